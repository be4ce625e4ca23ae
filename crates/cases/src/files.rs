//! Reading the project's text files from disk: variant files, and any file a player or GM saved
//! (the engine reads none: it is given text).

use napjudge_engine::variant::{self, decode, LoadError, Variant};
use std::path::Path;

/// Why a variant file could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum VariantFileError {
    /// The file could not be read.
    #[error("{file}: {source}")]
    Io {
        /// The path.
        file: String,
        /// The error.
        source: std::io::Error,
    },
    /// The file is not text in an encoding the loader reads.
    #[error("{file}: {source}")]
    Decode {
        /// The path.
        file: String,
        /// Where and why.
        source: variant::DecodeError,
    },
    /// The board it describes is wrong.
    #[error(transparent)]
    Load(#[from] LoadError),
}

/// Reads a file (`-`: standard input) as text, for the command line; errors name the file.
pub fn read_text(path: &std::path::Path) -> Result<String, String> {
    use std::io::Read;
    let name = path.display();
    let mut bytes = Vec::new();
    let read = if path.as_os_str() == "-" {
        std::io::stdin().read_to_end(&mut bytes).map(|_| ())
    } else {
        std::fs::read(path).map(|b| bytes = b)
    };
    read.map_err(|e| format!("{name}: {e}"))?;
    decode(&bytes).map_err(|e| format!("{name}: {e}"))
}

/// Loads a variant file from disk.
pub fn load_variant_file(path: &Path) -> Result<Variant, VariantFileError> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| VariantFileError::Io {
        file: file.clone(),
        source,
    })?;
    let text = decode(&bytes).map_err(|source| VariantFileError::Decode {
        file: file.clone(),
        source,
    })?;
    Ok(variant::load(&file, &text)?)
}

/// Loads a variant by name (`standard`, `napoleonic`: built in), or, when `name` is a path to a
/// `.variant` file, from disk.
pub fn load_variant(name: &str) -> Result<Variant, VariantFileError> {
    if name.contains('/') || name.ends_with(".variant") {
        return load_variant_file(Path::new(name));
    }
    Ok(variant::load_named(name)?)
}
