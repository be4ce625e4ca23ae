//! Files under a folder, for the tests that read every fixture, source file or page of one.

use std::path::{Path, PathBuf};

/// Every file under `dir` and its folders (those ending `.EXT` when `ext` is given), sorted.
pub fn files(dir: &Path, ext: Option<&str>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("a folder") {
            let p = e.expect("an entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if ext.is_none_or(|ext| p.extension().is_some_and(|x| x == ext)) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
