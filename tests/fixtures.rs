//! The adjudication cases under `fixtures/`, run through the same runner as `napjudge cases`.

use napjudge::case::run_paths;
use std::path::PathBuf;

fn run(folder: &str) -> napjudge::case::Summary {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(folder);
    run_paths(&[path])
}

/// DATC v3.0 chapter 6: all 164 cases (6.J.9's two positions as two cases), none skipped.
#[test]
fn datc_v3_chapter_6_passes_in_full() {
    let s = run("datc");
    assert_eq!(s.failed, 0, "{}", s.report);
    assert_eq!(s.passed, 165, "{}", s.report);
}

/// RULINGS §7 (R7.1-R7.11): the Napoleonic Winter cases, at least one per ruling.
#[test]
fn winter_rulings_r7_pass_in_full() {
    let s = run("winter");
    assert_eq!(s.failed, 0, "{}", s.report);
    assert_eq!(s.passed, 47, "{}", s.report);
}

/// The Napoleonic movement rules, RULINGS sections 1 to 6, and the variant text's examples.
#[test]
fn napoleonic_movement_cases_pass() {
    let s = run("napoleonic");
    assert_eq!(s.failed, 0, "{}", s.report);
    assert_eq!(s.passed, 197, "{}", s.report);
}
