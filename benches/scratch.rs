//! What the judge's benches share beside `tests/common`: a database path of their own.

use std::path::PathBuf;

/// `name` in the benches' scratch folder, with no database (nor its WAL files) left there by a
/// run before.
pub fn db(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join("napjudge-bench");
    std::fs::create_dir_all(&dir).expect("scratch");
    let path = dir.join(name);
    for ext in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{ext}", path.display()));
    }
    path
}
