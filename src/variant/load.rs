//! Reading and validating a variant file (`docs/variant-format.md`).

use super::Variant;
use std::path::Path;

/// Why a variant could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file says something wrong at a line.
    #[error("{file}:{line}: {message}")]
    Invalid {
        /// The file (or source name).
        file: String,
        /// The 1-based line.
        line: usize,
        /// What is wrong, and what would be right.
        message: String,
    },
    /// The file could not be read.
    #[error("{file}: {source}")]
    Io {
        /// The path.
        file: String,
        /// The error.
        source: std::io::Error,
    },
    /// No built-in variant has that name.
    #[error("no variant called '{0}' (built in: standard, napoleonic)")]
    UnknownVariant(String),
}

/// Loads a variant from its text; `source` names it in error messages.
pub fn load(source: &str, text: &str) -> Result<Variant, LoadError> {
    let _ = text;
    Err(LoadError::UnknownVariant(source.to_string()))
}

/// Loads a variant file from disk.
pub fn load_file(path: &Path) -> Result<Variant, LoadError> {
    let text = std::fs::read_to_string(path).map_err(|source| LoadError::Io {
        file: path.display().to_string(),
        source,
    })?;
    load(&path.display().to_string(), &text)
}

/// Loads a variant by name (`standard`, `napoleonic`: built into the binary from `variant/`), or,
/// when `name` is a path to a `.variant` file, from disk.
pub fn load_named(name: &str) -> Result<Variant, LoadError> {
    Err(LoadError::UnknownVariant(name.to_string()))
}
