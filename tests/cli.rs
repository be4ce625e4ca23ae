//! The `napjudge` command as a user runs it: the real binary, its output and its exit codes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn napjudge(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_napjudge"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("napjudge runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn scratch(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli");
    std::fs::create_dir_all(&dir).expect("scratch folder");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("scratch file");
    path
}

fn arg(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

#[test]
fn variant_show_prints_the_napoleonic_board() {
    let o = napjudge(&["variant", "show", "napoleonic"]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(out.contains("Spaces: 105"), "{out}");
    assert!(out.contains("Centres: 48"), "{out}");
}

#[test]
fn variant_show_exits_non_zero_with_file_and_line_for_a_broken_board() {
    let path = scratch(
        "broken.variant",
        "variant broken\nstart Spring 1901 Movement\nspace Aaa land \"A\"\nspace Bbb land \"B\"\narmy Aaa: Bbb\n",
    );
    let o = napjudge(&["variant", "show", arg(&path)]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("broken.variant:5"), "{err}");
}

#[test]
fn orders_check_prints_canonical_forms_and_fails_on_a_bad_line() {
    let path = scratch(
        "orders.txt",
        "A Paris - Burgundy\nF North Sea C A Lon-Bel\nA Par-Burgandy\n",
    );
    let o = napjudge(&["orders", "check", "--variant", "standard", arg(&path)]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains("line 1: A(Par)-Bur"), "{out}");
    assert!(out.contains("line 2: F(NTH) C A(Lon)-Bel"), "{out}");
    assert!(
        out.contains("line 3") && out.contains("did you mean Burgundy"),
        "{out}"
    );
}

#[test]
fn orders_check_with_a_position_checks_legality() {
    let position = scratch(
        "position.case",
        "CASE p\nVARIANT standard\nPHASE Spring 1901 Movement\nSTATE\n  France: A(Par)\nORDERS\nEND\n",
    );
    let orders = scratch("legal.txt", "A(Par)-Bur\nA(Bre)-Pic\n");
    let o = napjudge(&[
        "orders",
        "check",
        "--variant",
        "standard",
        "--position",
        arg(&position),
        "--power",
        "France",
        arg(&orders),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains("line 1: A(Par)-Bur"), "{out}");
    assert!(
        out.contains("line 2") && out.contains("Brest holds no such unit"),
        "{out}"
    );
}

#[test]
fn cases_reports_the_count_line_and_exit_code() {
    let o = napjudge(&["cases", "fixtures/datc/6.A.case"]);
    assert!(o.status.success());
    assert!(stdout(&o).ends_with("cases: 12 passed, 0 failed\n"));
    let failing = scratch(
        "failing.case",
        "CASE f\nVARIANT standard\nPHASE Spring 1901 Movement\nSTATE\n  France: A(Par)\nORDERS\n  France: A(Par)-Bur\nPOSTSTATE\n  France: A(Par)\nEND\n",
    );
    let o = napjudge(&["cases", arg(&failing)]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.contains("FAIL f") && out.contains("expected: France: A(Par)"),
        "{out}"
    );
    assert!(out.ends_with("cases: 0 passed, 1 failed\n"), "{out}");
}

#[test]
fn adjudicate_prints_outcomes_with_reasons() {
    let o = napjudge(&["adjudicate", "fixtures/datc/6.A.case"]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(out.contains("CASE 6.A.1"), "{out}");
    assert!(out.contains("F(NTH)-Pic: void"), "{out}");
}
