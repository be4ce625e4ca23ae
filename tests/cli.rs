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
        out.contains("line 2") && out.contains("there is no unit in Brest"),
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

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const PASSING: &str = "CASE ok\nVARIANT standard\nPHASE Spring 1901 Movement\nSTATE\n  France: A(Par)\nORDERS\n  France: A(Par)-Bur\nPOSTSTATE\n  France: A(Bur)\nEND\n";

#[test]
fn nothing_checked_is_a_failure() {
    let empty = crate::intake::scratch("empty");
    let o = napjudge(&["cases", arg(&empty)]);
    assert_eq!(o.status.code(), Some(1), "an empty folder");
    assert!(stdout(&o).contains("nothing was checked"), "{}", stdout(&o));

    let no_cases = scratch("no-cases.case", "# only a comment\n");
    let o = napjudge(&["cases", arg(&no_cases)]);
    assert_eq!(o.status.code(), Some(1), "a file with no case");
    assert!(stdout(&o).contains("no case in it"), "{}", stdout(&o));

    let blank = scratch("blank.txt", "\n\n");
    let o = napjudge(&["orders", "check", "--variant", "standard", arg(&blank)]);
    assert!(!o.status.success(), "orders check on an empty file");
    assert!(stderr(&o).contains("nothing was checked"), "{}", stderr(&o));

    let o = napjudge(&["adjudicate", arg(&no_cases)]);
    assert!(!o.status.success(), "adjudicate on a file with no case");
    assert!(
        stderr(&o).contains("nothing was adjudicated"),
        "{}",
        stderr(&o)
    );
}

#[cfg(unix)]
#[test]
fn one_dangling_link_is_one_failure_and_the_rest_still_run() {
    let dir = crate::intake::scratch("dangling");
    std::fs::write(dir.join("a.case"), PASSING).expect("a case file");
    std::os::unix::fs::symlink(dir.join("gone.case"), dir.join("b.case")).expect("a link");
    let o = napjudge(&["cases", arg(&dir)]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains("b.case"), "{out}");
    assert!(out.ends_with("cases: 1 passed, 1 failed\n"), "{out}");
}

#[test]
fn an_error_in_a_case_file_says_file_and_line_once() {
    let path = scratch(
        "bad-order.case",
        "CASE bad\nVARIANT standard\nPHASE Spring 1901 Movement\nSTATE\n  France: A(Par)\nORDERS\n  France: A(Par)-Burgandy\nEND\n",
    );
    let o = napjudge(&["cases", arg(&path)]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    let want = format!("{}:7: column", arg(&path));
    assert!(out.contains(&want), "{out}");
    assert!(!out.contains("line 1"), "one line number only: {out}");
}

#[test]
fn a_case_without_variant_or_phase_says_which_line_is_missing() {
    let no_variant = scratch(
        "no-variant.case",
        "CASE nv\nPHASE Spring 1901 Movement\nORDERS\nEND\n",
    );
    let out = stdout(&napjudge(&["cases", arg(&no_variant)]));
    assert!(out.contains("no VARIANT line"), "{out}");
    assert!(!out.contains("no variant called ''"), "{out}");

    let no_phase = scratch("no-phase.case", "CASE np\nVARIANT standard\nORDERS\nEND\n");
    let o = napjudge(&["cases", arg(&no_phase)]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains("no PHASE line"), "{out}");
}

#[test]
fn orders_check_takes_the_variant_of_the_position() {
    // Austerlitz (Aus) is a space of the Napoleonic board only: checked against the case's board.
    let position = scratch(
        "napoleonic-position.case",
        "CASE p\nVARIANT napoleonic\nPHASE Spring 1805 Movement\nSTATE\n  France: A(Bav)\nORDERS\nEND\n",
    );
    let orders = scratch("napoleonic-orders.txt", "A(Bav) H\n");
    let o = napjudge(&[
        "orders",
        "check",
        "--position",
        arg(&position),
        "--power",
        "France",
        arg(&orders),
    ]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("line 1: A(Bav) H"), "{}", stdout(&o));

    let o = napjudge(&[
        "orders",
        "check",
        "--variant",
        "standard",
        "--position",
        arg(&position),
        arg(&orders),
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("contradicts"), "{}", stderr(&o));
}

#[test]
fn adjudicate_prints_the_position_after_as_state_blocks() {
    let path = scratch(
        "dislodge.case",
        "CASE d\nVARIANT standard\nPHASE Spring 1901 Movement\nSTATE\n  Austria: F(ADR), A(Tri), A(Vie)\n  Italy: A(Ven), A(Tyr)\nORDERS\n  Austria: F(ADR) S A(Tri)-Ven\n  Austria: A(Tri)-Ven\n  Austria: A(Vie)-Tyr\n  Italy: A(Ven) H\n  Italy: A(Tyr) S A(Ven)\nEND\n",
    );
    let o = napjudge(&["adjudicate", arg(&path)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("A(Ven) H: fails: dislodged by the attack from Tri"),
        "{out}"
    );
    assert!(out.contains("PHASE Spring 1901 Retreat"), "{out}");
    assert!(
        out.contains("STATE\n  Austria: F(ADR), A(Ven), A(Vie)\n  Italy: A(Tyr)\n"),
        "{out}"
    );
    // Only Italy has a dislodged unit: only Italy owes retreat orders.
    assert!(out.contains("owe orders: Italy\n"), "{out}");
    assert!(
        out.contains("  Italy: A(Ven) from Tri   # may retreat to: Apu, Pie, Rom, Tus"),
        "{out}"
    );
    assert!(out.contains("OWNERS\n"), "{out}");
}

#[test]
fn adjudicate_prints_a_winters_events_and_ledgers() {
    // R7.10: France reaching its threshold is reported as an event; the ledgers follow.
    let o = napjudge(&["adjudicate", "fixtures/winter/R7.10.case"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("events:\n"), "{out}");
    assert!(out.contains("victory (R7.10)"), "{out}");
    assert!(out.contains("ledgers:\n"), "{out}");
    assert!(out.contains("LEDGER\n") || out.contains("bank"), "{out}");
}

#[test]
fn the_position_adjudicate_prints_feeds_back_as_a_case() {
    // DATC 6.D.2 then its retreat: the printed blocks are the next case's position as they are.
    let path = scratch(
        "feed-1.case",
        "CASE d\nVARIANT standard\nPHASE Spring 1901 Movement\nSTATE\n  Austria: F(ADR), A(Tri), A(Vie)\n  Italy: A(Ven), A(Tyr)\nORDERS\n  Austria: F(ADR) S A(Tri)-Ven\n  Austria: A(Tri)-Ven\n  Austria: A(Vie)-Tyr\n  Italy: A(Ven) H\n  Italy: A(Tyr) S A(Ven)\nEND\n",
    );
    let out = stdout(&napjudge(&["adjudicate", arg(&path)]));
    let (_, blocks) = out.split_once("position after:\n").expect("a position");
    let next = scratch(
        "feed-2.case",
        &format!("CASE retreat\n{blocks}ORDERS\n  Italy: A(Ven)-Tus\nRESULTS\n  Italy: A(Ven)-Tus => succeeds\nPOSTSTATE\n  Austria: F(ADR), A(Ven), A(Vie)\n  Italy: A(Tyr), A(Tus)\nEND\n"),
    );
    let o = napjudge(&["cases", arg(&next)]);
    assert!(o.status.success(), "{}", stdout(&o));
}

/// Issue 19, finding 12: a game folder named `../../..` in its game.toml had `replay` write its
/// database and outbox outside their folders; `game import --name` wrote the folder outside too.
/// Now both refuse the name and write nothing.
#[test]
fn replay_and_import_refuse_a_name_that_leaves_their_folder() {
    let dir = crate::intake::scratch("escape");
    let game = dir.join("game");
    std::fs::create_dir_all(&game).expect("folder");
    let toml = std::fs::read_to_string("fixtures/games/napoleonic-1800/game.toml")
        .expect("a game.toml")
        .replace("name = \"nap1800\"", "name = \"../escaped\"");
    std::fs::write(game.join("game.toml"), toml).expect("game.toml");
    std::fs::copy(
        "fixtures/games/napoleonic-1800/record.txt",
        game.join("record.txt"),
    )
    .expect("record");
    let out = dir.join("out");
    let o = napjudge(&["replay", arg(&game), "--outbox", arg(&out)]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("can't be a game's name"), "{err}");
    assert!(!dir.join("escaped").exists() && !out.exists());
    let into = dir.join("imported");
    for name in ["../../..", "/tmp/x", "a/b"] {
        let o = napjudge(&[
            "game",
            "import",
            "fixtures/records/webdiplomacy/game_433761_ENGLAND_AG.json",
            "--name",
            name,
            "--out",
            arg(&into),
        ]);
        assert!(!o.status.success(), "{name}");
        let err = stderr(&o);
        assert!(
            err.contains("--name: '") && err.contains("can't be a game's name"),
            "{err}"
        );
        assert!(!into.exists());
    }
}

/// Issue 22 (set-up that can't go silently wrong): run in the wrong folder, or with a typo in
/// `--db`, a command used to make an empty database and answer from it (`tick` did nothing and
/// exited 0; a mail was told there is no such game). Now only `game create` makes one: the
/// others refuse and name the file, `mail receive` with exit 75 so the mail server keeps the
/// mail, and no file is left behind.
#[test]
fn only_game_create_makes_a_database() {
    let dir = crate::intake::scratch("no-database");
    let db = dir.join("typo.db");
    for args in [vec!["tick"], vec!["game", "list"], vec!["outbox", "list"]] {
        let mut all = vec!["--db", arg(&db)];
        all.extend(&args);
        let o = napjudge(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("no such database"),
            "{args:?}: {}",
            stderr(&o)
        );
        assert!(!db.exists(), "{args:?} made {}", db.display());
    }
    let mut receive = Command::new(env!("CARGO_BIN_EXE_napjudge"))
        .args(["--db", arg(&db), "mail", "receive"])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("napjudge runs");
    {
        use std::io::Write;
        let mut stdin = receive.stdin.take().expect("stdin");
        // The judge may refuse before it reads the mail (no database: exit 75, the mail server
        // keeps the mail), closing the pipe: only that failure of the write is expected.
        let written =
            stdin.write_all(b"From: a@example.org\r\nMessage-ID: <x@example.org>\r\n\r\nHELP\r\n");
        if let Err(e) = written {
            assert_eq!(
                e.kind(),
                std::io::ErrorKind::BrokenPipe,
                "the mail written: {e}"
            );
        }
    }
    let o = receive.wait_with_output().expect("napjudge ends");
    assert_eq!(o.status.code(), Some(75), "{}", stderr(&o));
    assert!(!db.exists());
    let o = napjudge(&[
        "--db",
        arg(&db),
        "game",
        "create",
        "g1",
        "--gm",
        "gm@example.org",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(db.is_file());
}

/// A Napoleonic game `g` in a fresh database, its five powers assigned and started at `now`,
/// deadlines in Europe/Paris; the database's path.
fn started_game(name: &str, now: &str) -> PathBuf {
    let db = crate::intake::scratch(name).join("judge.db");
    let run = |args: &[&str]| {
        let mut all = vec!["--now", now, "--db", arg(&db)];
        all.extend_from_slice(args);
        let o = napjudge(&all);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    };
    run(&[
        "game",
        "create",
        "g",
        "--gm",
        "gm@example.org",
        "--timezone",
        "Europe/Paris",
    ]);
    for p in ["Austria", "England", "France", "Prussia", "Russia"] {
        let address = format!("{}@example.org", p.to_lowercase());
        run(&["game", "assign", "g", p, &address, "--password", "pw"]);
    }
    run(&["game", "start", "g"]);
    db
}

/// Issue 20: `game deadline` reads a time without an offset in the game's zone and echoes it
/// there (the "2026-12-03 18:00" was read as UTC and shown as 19:00 CET); a time with
/// `Z` keeps it; the hour the clocks skip is refused.
#[test]
fn game_deadline_is_read_and_echoed_in_the_games_zone() {
    let db = started_game("cli-deadline", "2026-11-30T09:00:00Z");
    let at = |args: &[&str]| {
        let mut all = vec!["--now", "2026-11-30T10:00:00Z", "--db", arg(&db)];
        all.extend_from_slice(args);
        napjudge(&all)
    };
    let o = at(&["game", "deadline", "g", "2026-12-03 18:00"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("deadline Thursday 3 December 2026, 18:00 CET (UTC+01:00)"),
        "{}",
        stdout(&o)
    );
    let o = at(&["game", "deadline", "g", "2026-12-03T18:00:00Z"]);
    assert!(stdout(&o).contains("19:00 CET"), "{}", stdout(&o));
    let o = at(&["game", "deadline", "g", "2027-03-28 02:30"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("02:30 in Europe/Paris does not exist"),
        "{}",
        stderr(&o)
    );
    let show = stdout(&at(&["game", "show", "g"]));
    assert!(
        show.contains("Deadline: Thursday 3 December 2026, 19:00 CET"),
        "the refused time changed nothing: {show}"
    );
}

/// Issue 20: `game set NAME KEY VALUE` changes a setting after creation; an unknown key gets
/// the list of keys and changes nothing.
#[test]
fn game_set_changes_a_setting_and_names_the_keys() {
    let db = started_game("cli-set", "2026-11-30T09:00:00Z");
    let at = |args: &[&str]| {
        let mut all = vec!["--now", "2026-11-30T10:00:00Z", "--db", arg(&db)];
        all.extend_from_slice(args);
        napjudge(&all)
    };
    let o = at(&["game", "set", "g", "grace", "12h"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "g: grace 12h\n");
    let o = at(&["game", "set", "g", "colour", "red"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(
            "the settings are movement, retreat, winter, grace, remind, zone, wait, pictures"
        ),
        "{}",
        stderr(&o)
    );
    let show = stdout(&at(&["game", "show", "g"]));
    assert!(show.contains("grace 12h"), "{show}");
}

/// Issue 20: `game process` before the deadline says who hasn't ordered and what happens to
/// them, and processes nothing; `--now-anyway` processes.
#[test]
fn game_process_before_the_deadline_needs_now_anyway() {
    let db = started_game("cli-process", "2026-11-30T09:00:00Z");
    let at = |args: &[&str]| {
        let mut all = vec!["--now", "2026-11-30T10:00:00Z", "--db", arg(&db)];
        all.extend_from_slice(args);
        napjudge(&all)
    };
    let o = at(&["game", "process", "g"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("No orders yet from Austria, England, France, Prussia, Russia"),
        "{err}"
    );
    assert!(err.contains("--now-anyway"), "{err}");
    assert!(stdout(&at(&["game", "show", "g"])).contains("Phase: Winter 1800 Bids"));
    let o = at(&["game", "process", "g", "--now-anyway"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("processed Winter 1800 Bids; next Spring 1801 Movement"),
        "{}",
        stdout(&o)
    );
}
