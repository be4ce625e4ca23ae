//! Adjudication cases and recorded games. Cases (`docs/case-format.md`): reading case files ([`file`]), and playing and
//! checking them ([`run`]). `napjudge cases` and the test suite both go through [`run_paths`].

pub mod file;
pub mod files;
pub mod mila;
pub mod run;
pub mod write;

use std::path::{Path, PathBuf};

/// Every `.case` file in `paths` (files as given, folders searched recursively), sorted, and
/// the paths that could not be read (each one failure; the rest still run).
pub fn case_files(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<String>) {
    let mut out = Vec::new();
    let mut unreadable = Vec::new();
    for p in paths {
        collect(p, &mut out, &mut unreadable);
    }
    (out, unreadable)
}

fn collect(path: &Path, out: &mut Vec<PathBuf>, unreadable: &mut Vec<String>) {
    if path.is_dir() {
        let entries = match std::fs::read_dir(path) {
            Ok(e) => e,
            Err(e) => return unreadable.push(format!("{}: {e}", path.display())),
        };
        let mut children: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        children.sort();
        for child in children {
            if child.is_dir() || child.extension().is_some_and(|x| x == "case") {
                collect(&child, out, unreadable);
            }
        }
    } else if path.is_file() {
        out.push(path.to_path_buf());
    } else {
        unreadable.push(format!(
            "{}: no such file or folder (or a link to nothing)",
            path.display()
        ));
    }
}

/// The totals of a run over case files.
pub struct Summary {
    /// Cases that met every expectation.
    pub passed: usize,
    /// Cases that did not (or could not be read).
    pub failed: usize,
    /// The report: each failure with expected against actual, then the count line.
    pub report: String,
}

/// Runs every case under `paths` and reports failures, ending with `cases: N passed, M failed`.
pub fn run_paths(paths: &[PathBuf]) -> Summary {
    let mut summary = Summary {
        passed: 0,
        failed: 0,
        report: String::new(),
    };
    let mut variants = run::Variants::default();
    let (files, unreadable) = case_files(paths);
    for e in unreadable {
        summary.failed += 1;
        summary.report.push_str(&format!("{e}\n"));
    }
    for f in files {
        let cases = match file::read_file(&f) {
            Ok(c) => c,
            Err(e) => {
                summary.failed += 1;
                summary.report.push_str(&format!("{e}\n"));
                continue;
            }
        };
        if cases.is_empty() {
            summary.failed += 1;
            summary
                .report
                .push_str(&format!("{}: no case in it\n", f.display()));
        }
        for case in &cases {
            let r = run::check(case, &mut variants);
            if r.failures.is_empty() {
                summary.passed += 1;
            } else {
                summary.failed += 1;
                summary
                    .report
                    .push_str(&format!("FAIL {} ({})\n", r.name, r.place));
                for failure in &r.failures {
                    summary.report.push_str(&format!("  {failure}\n"));
                }
            }
        }
    }
    if summary.passed + summary.failed == 0 {
        summary.failed += 1;
        summary
            .report
            .push_str("no case files found: nothing was checked\n");
    }
    summary.report.push_str(&format!(
        "cases: {} passed, {} failed\n",
        summary.passed, summary.failed
    ));
    summary
}
