//! Issue 9's "Done when": a Napoleonic game from `game create` through Winter 1801, driven from
//! the shell with the real binary and a fixed clock (`--now`), one power late (England, Spring)
//! and one missing a phase (Russia, Autumn); then the stored history, the outbox and the
//! deadlines are checked, and a rollback followed by processing again gives the same results.

use napjudge_engine::variant::load_named;
use napjudge_judge::{MailKind, PhaseRow, Store, SCHEMA_VERSION};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

struct Shell {
    dir: PathBuf,
    db: PathBuf,
}

impl Shell {
    fn new(name: &str) -> Shell {
        let dir = crate::intake::scratch(name);
        Shell {
            db: dir.join("judge.db"),
            dir,
        }
    }

    /// Runs `napjudge --now NOW ARGS` with `input` on standard input.
    fn run(&self, now: &str, args: &[&str], input: &str) -> Output {
        crate::golden::piped(
            Command::new(env!("CARGO_BIN_EXE_napjudge"))
                .args(["--now", now])
                .args(args)
                .env("NAPJUDGE_DB", &self.db)
                .current_dir(&self.dir),
            input.as_bytes(),
        )
    }

    /// Runs and expects success; the standard output.
    fn ok(&self, now: &str, args: &[&str], input: &str) -> String {
        let o = self.run(now, args, input);
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(
            o.status.success(),
            "napjudge {args:?} failed: {out}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        out
    }

    fn orders(&self, now: &str, power: &str, text: &str) -> String {
        self.ok(
            now,
            &["game", "orders", "g", power, "-", "--as-player"],
            text,
        )
    }

    fn store(&self) -> Store {
        Store::open(&self.db).expect("the database opens")
    }
}

fn phases(s: &Shell) -> Vec<PhaseRow> {
    let st = s.store();
    let g = st.view().game("g").expect("read").expect("the game");
    st.view().phases(g.id).expect("phases")
}

fn name(p: &PhaseRow) -> String {
    let v = load_named("napoleonic").expect("board");
    v.phase_name(p.position.phase)
}

fn t(s: &str) -> chrono::DateTime<chrono::Utc> {
    napjudge_judge::parse_time(s).expect("a time")
}

const SPRING: [(&str, &str); 4] = [
    ("France", "A(Par)-Bur\nF(Bre)-MAO\nF(Mar)-GOL\nA(Bor) H\n"),
    ("Austria", "A(Vie)-Boh\nA(Bud)-Gal\nA(Tra) H\nF(Dal)-ADR\n"),
    ("Prussia", "A(Ber)-Sax\nA(Kon) H\nA(Kol) H\nA(Brt) H\n"),
    ("Russia", "A(StP)-Fin\nA(Sib) H\nA(Azo)-Cau\nA(Mos) H\n"),
];

fn play_to_spring_1802(s: &Shell) {
    s.ok(
        "2026-07-01T10:00:00Z",
        &[
            "game",
            "create",
            "g",
            "--variant",
            "napoleonic",
            "--gm",
            "gm@example.org",
            "--timezone",
            "Europe/Paris",
            "--movement",
            "48h",
            "--retreat",
            "24h",
            "--winter",
            "48h",
            "--grace",
            "24h",
            "--remind",
            "12h",
        ],
        "",
    );
    for p in ["Austria", "England", "France", "Prussia"] {
        let addr = format!("{}@example.org", p.to_lowercase());
        s.ok(
            "2026-07-01T10:00:00Z",
            &["game", "assign", "g", p, &addr, "--password", "pw"],
            "",
        );
    }
    // Russia's password is generated and mailed.
    let out = s.ok(
        "2026-07-01T10:00:00Z",
        &["game", "assign", "g", "Russia", "russia@example.org"],
        "",
    );
    assert!(out.contains("password mailed"), "{out}");
    s.ok("2026-07-01T10:00:00Z", &["game", "start", "g"], "");

    // Winter 1800: everyone bids before the deadline; the first tick processes it at once.
    for (p, bid) in [
        ("France", "BID 6 Denmark"),
        ("England", "BID 4 Portugal"),
        ("Austria", "BID 3 Bavaria"),
        ("Prussia", "BID 4 Wurzburg"),
        ("Russia", "BID 3 Sweden"),
    ] {
        s.orders("2026-07-01T11:00:00Z", p, bid);
    }
    let out = s.ok("2026-07-01T12:00:00Z", &["tick"], "");
    assert!(out.contains("processed Winter 1800 Bids"), "{out}");

    // Spring 1801 (deadline 07-03 12:00 UTC): England is late.
    for (p, o) in SPRING {
        s.orders("2026-07-01T13:00:00Z", p, o);
    }
    let out = s.ok("2026-07-03T01:00:00Z", &["tick"], "");
    assert!(
        out.contains("reminded England (before the deadline)"),
        "{out}"
    );
    let out = s.ok("2026-07-03T01:30:00Z", &["tick"], "");
    assert!(out.is_empty(), "one reminder only: {out}");
    let out = s.ok("2026-07-03T13:00:00Z", &["tick"], "");
    assert!(out.contains("reminded England (grace)"), "{out}");
    s.orders(
        "2026-07-03T14:00:00Z",
        "England",
        "F(Lon)-NTH\nF(Sco)-NWG\nA(Lpl)-Wal\nF(Sar)-TYS\n",
    );
    let out = s.ok("2026-07-03T15:00:00Z", &["tick"], "");
    assert!(out.contains("processed Spring 1801 Movement"), "{out}");

    // Autumn 1801 (deadline 07-05 15:00): Russia never orders; Hanover is dislodged.
    s.orders("2026-07-03T16:00:00Z", "Prussia", "A(Kol)-Han\n");
    s.orders(
        "2026-07-03T16:00:00Z",
        "France",
        "F(Den) S A(Kol)-Han\nA(Bur) H\n",
    );
    s.orders("2026-07-03T16:00:00Z", "Austria", "A(Boh) H\n");
    s.orders("2026-07-03T16:00:00Z", "England", "F(NTH) H\n");
    let out = s.ok("2026-07-05T03:00:00Z", &["tick"], "");
    assert!(
        out.contains("reminded Russia (before the deadline)"),
        "{out}"
    );
    let out = s.ok("2026-07-05T16:00:00Z", &["tick"], "");
    assert!(out.contains("reminded Russia (grace)"), "{out}");
    let out = s.ok("2026-07-06T14:59:00Z", &["tick"], "");
    assert!(out.is_empty(), "grace not over yet: {out}");
    let out = s.ok("2026-07-06T15:00:00Z", &["tick"], "");
    assert!(out.contains("processed Autumn 1801 Movement"), "{out}");
    // The retreat of uncontrolled Hanover is owed by nobody: the next tick processes it.
    let out = s.ok("2026-07-06T15:05:00Z", &["tick"], "");
    assert!(out.contains("processed Autumn 1801 Retreat"), "{out}");

    // Winter 1801: the GM processes it by hand.
    for (p, bid) in [
        ("France", "BID 3 Denmark"),
        ("England", "BID 3 Portugal"),
        ("Austria", "BID 3 Bavaria"),
        ("Prussia", "BID 3 Wurzburg"),
        ("Russia", "BID 3 Sweden"),
    ] {
        s.orders("2026-07-06T16:00:00Z", p, bid);
    }
    let out = s.ok(
        "2026-07-06T17:00:00Z",
        &["game", "process", "g", "--now-anyway"],
        "",
    );
    assert!(out.contains("processed Winter 1801 Adjustment"), "{out}");
}

#[test]
fn napoleonic_game_from_create_through_winter_1801() {
    let s = Shell::new("judge-game");
    play_to_spring_1802(&s);

    let ps = phases(&s);
    let names: Vec<String> = ps.iter().map(name).collect();
    assert_eq!(
        names,
        [
            "Winter 1800 Bids",
            "Spring 1801 Movement",
            "Autumn 1801 Movement",
            "Autumn 1801 Retreat",
            "Winter 1801 Adjustment",
            "Spring 1802 Movement"
        ]
    );
    // Deadlines: each phase's period from the moment the previous one was processed.
    let deadlines: Vec<_> = ps.iter().map(|p| p.deadline).collect();
    assert_eq!(
        deadlines,
        [
            Some(t("2026-07-03T10:00:00Z")), // started 07-01 10:00, Winter 48h
            Some(t("2026-07-03T12:00:00Z")), // processed 07-01 12:00, movement 48h
            Some(t("2026-07-05T15:00:00Z")),
            Some(t("2026-07-07T15:00:00Z")), // retreat 24h
            Some(t("2026-07-08T15:05:00Z")),
            Some(t("2026-07-08T17:00:00Z")),
        ]
    );
    let processed: Vec<_> = ps.iter().map(|p| p.processed_at).collect();
    assert_eq!(
        processed,
        [
            Some(t("2026-07-01T12:00:00Z")),
            Some(t("2026-07-03T15:00:00Z")),
            Some(t("2026-07-06T15:00:00Z")),
            Some(t("2026-07-06T15:05:00Z")),
            Some(t("2026-07-06T17:00:00Z")),
            None,
        ]
    );
    assert_eq!(ps[1].late, ["England"]);
    assert!(ps[1].missing.is_empty());
    assert_eq!(ps[2].missing, ["Russia"]);
    assert!(ps[2].late.is_empty());

    // Hand-worked: A(Kol)-Han with F(Den)'s support (2) dislodges the holding Hanoverian army (1);
    // nobody orders its retreat, so it disbands (R7.9 defaults). After the Autumn Prussia owns
    // Hanover and neutral Saxony (held since Spring by A(Ber)-Sax) besides its 4 homes: 6.
    let v = load_named("napoleonic").expect("board");
    let autumn = ps[2].report.as_ref().expect("the Autumn was processed");
    assert_eq!(autumn.dislodged.len(), 1);
    let han = v
        .province_ids()
        .find(|&p| v.province(p).code == "Han")
        .expect("Han");
    let prussia = v.power_by_name("Prussia").expect("Prussia");
    let spring_1802 = &ps[5].position;
    assert_eq!(spring_1802.force(han).map(|f| f.power), Some(prussia));
    assert_eq!(spring_1802.centre_count(&v, prussia), 6);

    // The outbox: 1 password mail, 4 reminders, and 6 result mails (5 players and the GM) for
    // each of the 5 phases.
    let st = s.store();
    let mails = crate::golden::queued(st.view());
    let count = |kind: MailKind| mails.iter().filter(|m| m.kind == kind).count();
    assert_eq!(count(MailKind::Password), 1);
    assert_eq!(count(MailKind::Reminder), 4);
    assert_eq!(count(MailKind::Results), 30);
    let password = mails
        .iter()
        .find(|m| m.kind == MailKind::Password)
        .expect("mail");
    assert_eq!(password.to, "russia@example.org");
    for (phase, says) in [
        ("Spring 1801 Movement", "England (late):"),
        ("Spring 1801 Movement", "A(Par)-Bur: succeeds"),
        (
            "Autumn 1801 Movement",
            "No orders (civil disorder: the rules' defaults were applied): Russia",
        ),
        // Deadlines are shown in the game's zone: 07-03 12:00 UTC is 14:00 in Paris.
        (
            "Winter 1800 Bids",
            "Deadline: Friday 3 July 2026, 14:00 CEST (UTC+02:00)",
        ),
        ("Winter 1801 Adjustment", "TRACKING SHEET"),
    ] {
        let subject = format!("g: results of {phase}");
        let results = mails
            .iter()
            .find(|m| m.subject == subject)
            .unwrap_or_else(|| panic!("no results of {phase}"));
        assert!(results.body.contains(says), "{phase}: {}", results.body);
    }
    drop(st);

    // Sending: one .eml per mail, each marked sent; a second send sends nothing.
    let out_dir = s.dir.join("out");
    let out = s.ok(
        "2026-07-06T18:00:00Z",
        &[
            "outbox",
            "send",
            "--to-dir",
            out_dir.to_str().expect("utf-8"),
        ],
        "",
    );
    assert!(out.contains("45 sent, 0 failed"), "{out}");
    let files = std::fs::read_dir(&out_dir).expect("out").count();
    assert_eq!(files, 45);
    // Russia's password mail, among the seats' mails of the set-up.
    let eml = std::fs::read_dir(&out_dir)
        .expect("out")
        .filter_map(|e| std::fs::read_to_string(e.ok()?.path()).ok())
        .find(|eml| eml.contains("Subject: g: your password for Russia"))
        .expect("Russia's password mail");
    assert!(eml.contains("To: russia@example.org"), "{eml}");
    let out = s.ok(
        "2026-07-06T18:00:00Z",
        &[
            "outbox",
            "send",
            "--to-dir",
            out_dir.to_str().expect("utf-8"),
        ],
        "",
    );
    assert!(out.contains("0 sent, 0 failed"), "{out}");
}

#[test]
fn rollback_then_process_again_gives_the_same_results() {
    let s = Shell::new("judge-rollback");
    play_to_spring_1802(&s);
    let before = phases(&s);
    s.ok(
        "2026-07-07T09:00:00Z",
        &["game", "rollback", "g", "Autumn 1801 Movement"],
        "",
    );
    let out = s.ok(
        "2026-07-07T10:00:00Z",
        &["game", "process", "g", "--now-anyway"],
        "",
    );
    assert!(out.contains("processed Autumn 1801 Movement"), "{out}");
    let after = phases(&s);
    // The four phases from the Autumn on are kept, set aside; the replayed Autumn follows them.
    assert_eq!(after.len(), before.len() + 2);
    assert!(after[2..6].iter().all(|p| p.superseded));
    let replayed = &after[6];
    assert_eq!(name(replayed), "Autumn 1801 Movement");
    assert_eq!(replayed.report, before[2].report);
    assert_eq!(replayed.missing, ["Russia"]);
    // An unknown phase is named with the phases there are.
    let o = s.run(
        "2026-07-07T11:00:00Z",
        &["game", "rollback", "g", "Spring 1799 Movement"],
        "",
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("no played phase 'Spring 1799 Movement'"),
        "{err}"
    );
    assert!(err.contains("'Winter 1800 Bids'"), "{err}");
}

#[test]
fn game_orders_keeps_valid_lines_and_exits_1_on_a_bad_one() {
    let s = Shell::new("judge-orders");
    s.ok(
        "2026-07-01T10:00:00Z",
        &["game", "create", "g", "--gm", "gm@example.org"],
        "",
    );
    for p in ["Austria", "England", "France", "Prussia", "Russia"] {
        s.ok(
            "2026-07-01T10:00:00Z",
            &["game", "assign", "g", p, "p@example.org", "--password", "x"],
            "",
        );
    }
    s.ok("2026-07-01T10:00:00Z", &["game", "start", "g"], "");
    // R7.1: Winter 1800 has bids only; a movement order is refused, the bid is kept.
    let o = s.run(
        "2026-07-01T11:00:00Z",
        &["game", "orders", "g", "France", "-"],
        "BID 3 Denmark\nA(Par)-Bur\n",
    );
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("line 1: BID 3 Denmark\n"), "{out}");
    assert!(out.contains("line 2: A(Par)-Bur: "), "{out}");
    assert!(out.contains("1 of 2 orders kept for France"), "{out}");
    let st = s.store();
    let g = st.view().game("g").expect("read").expect("game");
    let cur = st.view().current_phase(g.id).expect("read").expect("phase");
    let kept = st.view().latest_orders(cur.id).expect("orders");
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].text, "BID 3 Denmark\n");
    // R7.6: a bid past the power's IP is refused at once (France has 4 centres: 12 IP), with the
    // engine's reason; the bids before it stand.
    drop(st);
    let o = s.run(
        "2026-07-01T11:30:00Z",
        &["game", "orders", "g", "France", "-"],
        "BID 6 Denmark\nBID 9 Spain\n",
    );
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("line 1: BID 6 Denmark\n"), "{out}");
    assert!(
        out.contains("line 2: BID 9 Spain: fails: over budget: you have 12 IP"),
        "{out}"
    );
    let st = s.store();
    let kept = st.view().latest_orders(cur.id).expect("orders");
    assert_eq!(kept[0].text, "BID 6 Denmark\n");
    // Unknown game and power are named.
    let o = s.run("2026-07-01T11:00:00Z", &["game", "show", "nope"], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no game called 'nope'"));
    let o = s.run(
        "2026-07-01T11:00:00Z",
        &["game", "orders", "g", "Atlantis", "-"],
        "BID 1 Denmark\n",
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("'Atlantis' is not a major power"));
    // A deadline in the past is refused.
    let o = s.run(
        "2026-07-01T11:00:00Z",
        &["game", "deadline", "g", "2026-07-01T09:00:00Z"],
        "",
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("in the past"));
}

#[test]
fn a_newer_database_is_refused() {
    let s = Shell::new("judge-newer");
    {
        // Its own connection: the judge's store lends none.
        drop(s.store());
        let conn = rusqlite::Connection::open(&s.db).expect("db");
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .expect("set version");
    }
    let o = s.run("2026-07-01T10:00:00Z", &["game", "list"], "");
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("is newer than this napjudge's"), "{err}");
    assert!(Path::new(&s.db).exists());
}

#[test]
fn control_and_pause_are_gm_actions_of_the_current_phase() {
    let s = Shell::new("judge-control");
    s.ok(
        "2026-07-01T10:00:00Z",
        &["game", "create", "g", "--gm", "gm@example.org"],
        "",
    );
    for p in ["Austria", "England", "France", "Prussia", "Russia"] {
        let addr = format!("{}@example.org", p.to_lowercase());
        s.ok(
            "2026-07-01T10:00:00Z",
            &["game", "assign", "g", p, &addr, "--password", "x"],
            "",
        );
    }
    s.ok("2026-07-01T10:00:00Z", &["game", "start", "g"], "");
    // R7.8: the GM gives uncontrolled Sweden to Russia; with no bids for it, Russia keeps it
    // through the Winter 1800 bids (a tie at nothing leaves last year's controller).
    let out = s.ok(
        "2026-07-01T10:30:00Z",
        &["game", "control", "g", "Sweden", "Russia"],
        "",
    );
    assert!(out.contains("CONTROL Sweden Russia"), "{out}");
    let o = s.run(
        "2026-07-01T10:30:00Z",
        &["game", "control", "g", "France", "Russia"],
        "",
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("'France' is not a minor power"));

    // Paused, the game is left alone by tick even past its grace; resumed, it gets a new deadline.
    s.ok("2026-07-01T11:00:00Z", &["game", "pause", "g"], "");
    let out = s.ok("2026-07-05T11:00:00Z", &["tick"], "");
    assert!(out.is_empty(), "{out}");
    let out = s.ok("2026-07-05T12:00:00Z", &["game", "resume", "g"], "");
    assert!(
        out.contains("deadline Tuesday 7 July 2026, 12:00 UTC (UTC+00:00)"),
        "{out}"
    );
    let out = s.ok("2026-07-08T12:00:00Z", &["tick"], "");
    assert!(out.contains("processed Winter 1800 Bids"), "{out}");

    let v = load_named("napoleonic").expect("board");
    let ps = phases(&s);
    let sweden = v.power_by_name("Sweden").expect("Sweden");
    let russia = v.power_by_name("Russia").expect("Russia");
    assert_eq!(ps[1].position.ledgers.controller(sweden), Some(russia));
    // Nobody ordered: all five are named as missing.
    assert_eq!(ps[0].missing.len(), 5);
}

/// Game `g` by the shell at `at`: created, its five majors assigned, started, and its Winter 1800
/// processed, so that it stands in Spring 1801 Movement.
fn spring_1801(s: &Shell, at: &str) {
    s.ok(at, &["game", "create", "g", "--gm", "gm@example.org"], "");
    for p in ["Austria", "England", "France", "Prussia", "Russia"] {
        s.ok(
            at,
            &["game", "assign", "g", p, "p@example.org", "--password", "x"],
            "",
        );
    }
    s.ok(at, &["game", "start", "g"], "");
    s.ok(at, &["game", "process", "g", "--now-anyway"], "");
}

/// R2.4 in the acknowledgement: a one-line merge naming a unit that isn't there keeps its other
/// participants, and the reply says that one was left out (before, the line came back shorter
/// with no word why).
#[test]
fn a_merge_participant_left_out_is_said_in_the_acknowledgement() {
    let s = Shell::new("judge-merge-note");
    let at = "2026-07-01T10:00:00Z";
    spring_1801(&s, at);
    // Spring 1801: Silesia is empty, so only A(Kol) takes part in the merge into Saxony.
    let out = s.orders(at, "Prussia", "A(Kol) & A(Sil) MERGE Sax\n");
    let line = out
        .lines()
        .find(|l| l.starts_with("line 1: "))
        .unwrap_or_default();
    assert!(line.starts_with("line 1: A(Kol) "), "{out}");
    assert!(!line.contains("Sil"), "{out}");
    assert!(
        line.ends_with(
            "(note: one participant named is not there: it takes no part, and the others merge \
             (R2.4))"
        ),
        "{out}"
    );
    assert!(out.contains("1 of 1 orders kept for Prussia"), "{out}");
}

/// R1.4 and R2.6 in the acknowledgement (issue 18, fault 5): a one-line merge participant also
/// ordered elsewhere is void by itself and the others merge; the reply says why it was left out
/// (it is there, so "not there" would be wrong), and refuses the other order for it.
#[test]
fn a_merge_participant_ordered_twice_is_said_in_the_acknowledgement() {
    let s = Shell::new("judge-merge-twice");
    let at = "2026-07-01T10:00:00Z";
    spring_1801(&s, at);
    // Spring 1801: A(Ber) is named in the merge into Saxony and ordered to Silesia too.
    // A refused line makes the command exit 1; its reply is the acknowledgement all the same.
    let o = s.run(
        at,
        &["game", "orders", "g", "Prussia", "-", "--as-player"],
        "A(Kol) & A(Ber) MERGE Sax\nA(Ber)-Sil\n",
    );
    assert!(!o.status.success());
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let line = |n: &str| {
        out.lines()
            .find(|l| l.starts_with(n))
            .unwrap_or_default()
            .to_string()
    };
    assert!(
        line("line 1: ").ends_with(
            "A(Kol) MERGE Sax (note: one participant named is also ordered elsewhere (R1.4): it \
             takes no part, and the others merge (R2.4))"
        ),
        "{out}"
    );
    assert!(line("line 2: ").contains("also ordered in line 1"), "{out}");
    assert!(out.contains("1 of 2 orders kept for Prussia"), "{out}");
}

/// Issue 19, finding 12: game names were not checked (CRLF, empty, a bidi override, 100 kB, a
/// path). Now `game create` refuses each with what a name may be, creates nothing, and refuses a
/// name that differs from an existing game's only by capitals (SIGNON ignores them).
#[test]
fn game_create_refuses_names_that_cant_be_names() {
    let s = Shell::new("judge-game-names");
    let now = "2026-07-01T10:00:00Z";
    let long = "a".repeat(100_000);
    for bad in [
        "",
        "a\r\nb",
        "spring\u{202e}26",
        long.as_str(),
        "../../x",
        "_g",
        "a b",
    ] {
        let o = s.run(now, &["game", "create", bad, "--gm", "gm@example.org"], "");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{bad:?} was taken");
        assert!(
            err.contains("can't be a game's name: use 1 to 32 letters"),
            "{bad:?}: {err}"
        );
        assert!(
            err.len() < 400,
            "the error doesn't echo 100 kB: {}",
            err.len()
        );
    }
    s.ok(
        now,
        &["game", "create", "Spring26", "--gm", "gm@example.org"],
        "",
    );
    let o = s.run(
        now,
        &["game", "create", "spring26", "--gm", "gm@example.org"],
        "",
    );
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("a game called 'Spring26' exists already"));
    let games = s.store().view().games().expect("games");
    assert_eq!(games.len(), 1);
}

/// Issue 19, finding 12: `game assign` took addresses lettre can't send to (every mail to them
/// then failed at every try). Now they are refused, and nothing is assigned.
#[test]
fn game_assign_refuses_an_address_lettre_cant_parse() {
    let s = Shell::new("judge-assign-address");
    let now = "2026-07-01T10:00:00Z";
    s.ok(now, &["game", "create", "g", "--gm", "gm@example.org"], "");
    for bad in ["bob<x@example.org", "bob,x@example.org"] {
        let o = s.run(
            now,
            &["game", "assign", "g", "France", bad, "--password", "x"],
            "",
        );
        assert!(!o.status.success(), "{bad} was taken");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("is not a mail address"), "{bad}: {err}");
    }
    let st = s.store();
    let g = st.view().game("g").expect("read").expect("the game");
    assert!(st.view().players(g.id).expect("players").is_empty());
}

/// Issue 19, finding 12: `security = "plain"` with a login sent AUTH in clear text without a
/// word. Now sending warns on stderr.
#[test]
fn a_plain_smtp_login_is_warned_of() {
    let s = Shell::new("judge-plain-login");
    let made = s.run(
        "2026-07-01T10:00:00Z",
        &["game", "create", "g", "--gm", "gm@example.org"],
        "",
    );
    assert!(made.status.success(), "{made:?}");
    let o = s.run(
        "2026-07-01T10:00:00Z",
        &["outbox", "send", "--smtp", "smtp://alice@127.0.0.1:9"],
        "",
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("the login (AUTH) goes to 127.0.0.1:9 in clear text"),
        "{err}"
    );
}
