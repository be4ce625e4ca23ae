//! Rule editions (issue 11): the cases under `fixtures/editions/`, each of the three places where
//! webDiplomacy's judge departs from the DATC's preferences, played under both editions.

use napjudge_cases::run_paths;
use std::path::PathBuf;

/// Civil-disorder removals, `via convoy` with no convoy, and a land move with an own convoy: the
/// DATC's preferences by default, webDiplomacy's rulings with `webdiplomacy=on`, two cases each.
#[test]
fn edition_cases_pass_under_both_editions() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/editions");
    let s = run_paths(&[path]);
    assert_eq!(s.failed, 0, "{}", s.report);
    assert_eq!(s.passed, 6, "{}", s.report);
}
