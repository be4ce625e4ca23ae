//! What the mail tests share: the judge's address, intake's settings, and a fresh folder per
//! test.

use napjudge_judge::{MailConfig, MAX_SIZE};
use std::path::{Path, PathBuf};

/// The judge's own address in every mail test.
pub const JUDGE: &str = "judge@napjudge.invalid";

/// Intake's settings in every mail test: the judge's address and the default size limit.
pub fn config() -> MailConfig {
    MailConfig {
        judge: JUDGE.into(),
        max_size: MAX_SIZE,
    }
}

/// A fresh, empty folder for test `name`, under a folder named after the calling test file (so
/// two files' tests of one name, running at once in the one test binary, never share one).
#[track_caller]
pub fn scratch(name: &str) -> PathBuf {
    let file = std::panic::Location::caller().file();
    let stem = Path::new(file)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("tests");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(stem)
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}
