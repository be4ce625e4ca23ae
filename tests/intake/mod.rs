//! What the mail tests share: the judge's address, intake's settings, and a fresh folder per
//! test.

use napjudge_judge::mail::{self, MailConfig};
use std::path::PathBuf;

/// The judge's own address in every mail test.
pub const JUDGE: &str = "judge@napjudge.invalid";

/// Intake's settings in every mail test: the judge's address and the default size limit.
pub fn config() -> MailConfig {
    MailConfig {
        judge: JUDGE.into(),
        max_size: mail::MAX_SIZE,
    }
}

/// A fresh, empty folder for test `name`, under its test binary's own folder (so two test
/// binaries running at once never share one).
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(env!("CARGO_CRATE_NAME"))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}
