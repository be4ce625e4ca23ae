//! The adjudication cases under `fixtures/`, run through the same runner as `napjudge cases`.

use napjudge_cases::run_paths;
use std::path::PathBuf;

fn run(folder: &str) -> napjudge_cases::Summary {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(folder);
    run_paths(&[path])
}

/// The id of every case (`CASE` line) in the `.case` files under `fixtures/FOLDER`.
fn case_ids(folder: &str) -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(folder);
    let mut ids = Vec::new();
    for p in crate::tree::files(&dir, Some("case")) {
        let text = std::fs::read_to_string(&p).expect("case file");
        ids.extend(text.lines().filter_map(|l| {
            let rest = l.strip_prefix("CASE ")?;
            Some(rest.split_whitespace().next().unwrap_or("").to_string())
        }));
    }
    ids
}

/// How many cases the folder's files hold, so that every case written is run.
fn written(folder: &str) -> usize {
    case_ids(folder).len()
}

/// DATC v3.0 chapter 6: all 164 cases (6.J.9's two positions as two cases), none skipped.
#[test]
fn datc_v3_chapter_6_passes_in_full() {
    let s = run("datc");
    assert_eq!(s.failed, 0, "{}", s.report);
    assert_eq!(s.passed, 165, "{}", s.report);
}

/// RULINGS §7 (R7.1-R7.11) and R1.3: the Napoleonic Winter cases, at least one per ruling.
#[test]
fn winter_rulings_r7_pass_in_full() {
    let s = run("winter");
    assert_eq!(s.failed, 0, "{}", s.report);
    assert_eq!(s.passed, written("winter"), "{}", s.report);
}

/// The Napoleonic movement rules, RULINGS sections 1 to 6, and the variant text's examples.
#[test]
fn napoleonic_movement_cases_pass() {
    let s = run("napoleonic");
    assert_eq!(s.failed, 0, "{}", s.report);
    assert_eq!(s.passed, written("napoleonic"), "{}", s.report);
}

/// The phase report: events (`EVENTS`) and reason wording (`fails "TEXT"`), RULINGS §0 (every
/// loss reported), R3.6, R5.1, R5.3, R6.2 and DATC 6.A.1, 6.D.2.
#[test]
fn report_events_and_reasons_pass() {
    let s = run("reports");
    assert_eq!(s.failed, 0, "{}", s.report);
    assert_eq!(s.passed, written("reports"), "{}", s.report);
}

/// RULINGS: every ruling the rules document names (R1.1 to R7.11) has at least one case whose id
/// starts with it, so no ruling is left without a case that shows it.
#[test]
fn every_ruling_in_the_rules_document_has_a_case() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let rules = std::fs::read_to_string(root.join("docs/rules.md")).expect("docs/rules.md");
    let mut ids: Vec<String> = Vec::new();
    for word in rules.split(|c: char| !(c.is_ascii_alphanumeric() || c == '.')) {
        let word = word.trim_end_matches('.');
        let Some(rest) = word.strip_prefix('R') else {
            continue;
        };
        // `R1.4`, `R7.11`: a section from 1 to 7, a dot, a number.
        let ruling = rest.split_once('.').is_some_and(|(section, n)| {
            matches!(section, "1" | "2" | "3" | "4" | "5" | "6" | "7")
                && !n.is_empty()
                && n.chars().all(|c| c.is_ascii_digit())
        });
        if ruling && !ids.iter().any(|i| i == word) {
            ids.push(word.to_string());
        }
    }
    assert!(
        ids.len() >= 40,
        "ruling ids read from docs/rules.md: {ids:?}"
    );
    let cases = case_ids("");
    let named = |id: &str| {
        cases.iter().any(|c| {
            c.strip_prefix(id)
                .is_some_and(|rest| !rest.starts_with(|ch: char| ch.is_ascii_digit()))
        })
    };
    let missing: Vec<&String> = ids.iter().filter(|id| !named(id)).collect();
    assert!(missing.is_empty(), "rulings with no case: {missing:?}");
}
