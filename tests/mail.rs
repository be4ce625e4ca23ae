//! Issue 10's golden tests, the njudge way: `tests/mail/game/NN-name.eml` are raw mails fed in
//! order to `mail::receive` on a real SQLite file, and `NN-name.out` the exact mails each one
//! queued (the reply, and results or press it caused). A game goes from creation through a full
//! year by mail; every command and every bad input of the issue has its mail. Steps named
//! `bad-*` must leave the game untouched (phases, orders, players, GM actions). Issue 32: step 06
//! acknowledges a Bids phase with the IP budget and step 12's LIST gives every major's (finding
//! 3), and places its misspelt power once, by the mail's line and column (finding 6); step 38 warns of Prussia's unordered build, and 38a's CONVERT 3 of the same 3 SP warns of
//! nothing (finding 7).
//!
//! Two markers are expanded in a mail: `{{REPEAT N TEXT}}` (N lines of TEXT: the 10 MB mail and
//! the 10,000 order lines) and `{{QUOTE_RESULTS}}` (the last results mail, quoted with `> `).
//! `NAPJUDGE_BLESS=1 cargo test --release --test suite mail::` rewrites the `.out` files: review their diff.

use crate::golden;
use crate::intake;
use chrono::{DateTime, Utc};
use golden::{FivePowers, Folder, Outbox};
use intake::{config, scratch, JUDGE};
use napjudge_judge::{parse_time, receive, Handled, Judge, MailKind, NewMessage, Store};
use std::path::Path;
use std::process::Command;

fn at(hours: i64) -> DateTime<Utc> {
    let start = parse_time("2026-07-01T10:00:00Z").expect("time");
    start + chrono::Duration::hours(hours)
}

/// The game every scenario plays: the standard five players and the GM's mail password.
fn new_game(db: &Path) -> Judge {
    let mut j = Judge::new(Store::open(db).expect("db"));
    FivePowers::new("g").set_up(&mut j, at(0));
    j
}

/// Every table a mail may change in a game, as text: a bad mail leaves it as it was.
fn game_state(db: &Path) -> String {
    golden::game_state(db, &["SELECT state, grace, pictures, options FROM games"])
}

fn expand(raw: &[u8], last_results: &str) -> Vec<u8> {
    let text = String::from_utf8_lossy(raw);
    if !text.contains("{{") {
        return raw.to_vec();
    }
    let mut out = String::new();
    for line in text.split("\r\n") {
        if let Some(spec) = line
            .strip_prefix("{{REPEAT ")
            .and_then(|s| s.strip_suffix("}}"))
        {
            let (n, what) = spec.split_once(' ').expect("REPEAT N TEXT");
            let n: usize = n.parse().expect("a count");
            for _ in 0..n {
                out.push_str(what);
                out.push_str("\r\n");
            }
        } else if line == "{{QUOTE_RESULTS}}" {
            for l in last_results.lines() {
                out.push_str(&format!("> {l}\r\n"));
            }
        } else {
            out.push_str(line);
            out.push_str("\r\n");
        }
    }
    out.into_bytes()
}

#[test]
fn a_game_by_mail_from_creation_through_a_full_year() {
    let dir = scratch("mail-golden");
    let db = dir.join("judge.db");
    let mut j = new_game(&db);
    let mut folder = Folder::new("game");
    let steps = folder.steps(&["eml"]);
    assert!(steps.len() >= 40, "the scenario's mails are there");
    let mut outbox = Outbox::after(j.view());
    let mut last_results = String::new();
    for (i, step) in steps.iter().enumerate() {
        let name = golden::name(step);
        let now = at(i as i64 + 1);
        let raw = expand(&std::fs::read(step).expect("mail"), &last_results);
        let before = game_state(&db);
        let handled = golden::receive(&mut j, &raw, now);
        assert!(
            !matches!(handled, Handled::Failed(_)),
            "{name}: {handled:?}"
        );
        if name.contains("-bad-") {
            assert_eq!(before, game_state(&db), "{name} changed the game");
        }
        if name.contains("-ignored-") {
            assert!(
                matches!(handled, Handled::Ignored(_)),
                "{name}: {handled:?}"
            );
        }
        let new = outbox.new_mails(j.view());
        if let Some(r) = new.iter().rev().find(|m| m.kind == MailKind::Results) {
            last_results = r.body.clone();
        }
        folder.check(&name, &new.iter().map(golden::show).collect::<String>());
    }
    folder.finish();
    // Every mail was kept raw, duplicates and ignored ones too.
    let stored: i64 = rusqlite::Connection::open(&db)
        .expect("db")
        .query_row("SELECT COUNT(*) FROM inbox", [], |r| r.get(0))
        .expect("inbox");
    assert_eq!(stored as usize, steps.len());
}

/// Issue 31, finding 2: a file of a Maildir's `new/` whose name is too long to take the seen
/// flags `:2,S` (over 251 bytes: a name may have 255) is answered and moved to `cur/` under a
/// shorter name, unique by a digest of the whole; it used to fail the rename, and every later
/// poll with it. Two such names alike in their first 240 bytes get two names in `cur/`, and the
/// second poll takes its files as the first did.
#[test]
fn a_maildir_name_too_long_for_the_flags_is_moved_under_a_shorter_unique_name() {
    let dir = scratch("mail-long-name");
    let db = dir.join("judge.db");
    drop(new_game(&db));
    let maildir = dir.join("Maildir");
    std::fs::create_dir_all(maildir.join("new")).expect("maildir");
    let md = maildir.display().to_string();
    let long = |tail: &str| {
        format!(
            "1700000000.M1P1.{}{tail}",
            "h".repeat(252 - 16 - tail.len())
        )
    };
    let deliver = |name: &str, id: &str| {
        let m = format!(
            "From: {id}@example.net\r\nMessage-ID: <{id}@example.net>\r\nSubject: help\r\n\r\nHELP\r\n"
        );
        std::fs::write(maildir.join("new").join(name), m).expect("deliver");
    };
    let poll = || {
        Command::new(env!("CARGO_BIN_EXE_napjudge"))
            .args(["--now", "2026-07-01T11:00:00Z", "--db"])
            .arg(&db)
            .args(["mail", "poll", "--maildir", &md])
            .output()
            .expect("napjudge runs")
    };
    let files = |sub: &str| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(maildir.join(sub))
            .map(|d| {
                d.filter_map(|e| Some(e.ok()?.file_name().to_string_lossy().into_owned()))
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    };
    deliver(&long("a"), "first");
    deliver("1700000001.M2P1.short", "second");
    assert_eq!(long("a").len(), 252);
    let o = poll();
    assert!(o.status.success(), "{o:?}");
    assert!(files("new").is_empty(), "{:?}", files("new"));
    deliver(&long("b"), "third");
    let o = poll();
    assert!(o.status.success(), "{o:?}");
    assert!(files("new").is_empty(), "{:?}", files("new"));
    let cur = files("cur");
    assert_eq!(cur.len(), 3, "{cur:?}");
    assert!(
        cur.iter().all(|f| f.len() <= 255 && f.ends_with(":2,S")),
        "{cur:?}"
    );
    assert!(cur.contains(&"1700000001.M2P1.short:2,S".to_string()));
    assert!(files("failed").is_empty());
    let st = Store::open(&db).expect("db");
    let answered = golden::queued(st.view())
        .into_iter()
        .filter(|m| m.kind == MailKind::Reply)
        .count();
    assert_eq!(answered, 3, "each mail answered");
}

/// Issue 10: `mail receive` exits 0 once the message is stored, whatever it said, and
/// `mail poll` moves each message of a Maildir to `cur/` once stored, and answers it once.
#[test]
fn receive_and_poll_with_the_binary() {
    let dir = scratch("mail-cli");
    let db = dir.join("judge.db");
    drop(new_game(&db));
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mail/game");
    let run = |args: &[&str], input: &[u8]| {
        golden::piped(
            Command::new(env!("CARGO_BIN_EXE_napjudge"))
                .args(["--now", "2026-07-01T11:00:00Z", "--db"])
                .arg(&db)
                .args(args),
            input,
        )
    };
    let garbage = std::fs::read(golden.join("23-bad-garbage.eml")).expect("mail");
    let o = run(&["mail", "receive"], &garbage);
    assert!(o.status.success(), "{o:?}");
    // Without a Message-ID, the same bytes again are a duplicate by their digest: answered as
    // such once, and a third copy (a loop) not at all.
    let bare = b"From: someone@example.net\r\nSubject: hello\r\n\r\nHELP\r\n";
    for _ in 0..3 {
        let o = run(&["mail", "receive"], bare);
        assert!(o.status.success(), "{o:?}");
    }
    let maildir = dir.join("Maildir");
    std::fs::create_dir_all(maildir.join("new")).expect("maildir");
    for f in ["06-bids-france.eml", "07-bids-england.eml"] {
        std::fs::copy(golden.join(f), maildir.join("new").join(f)).expect("copy");
    }
    let md = maildir.display().to_string();
    let o = run(&["mail", "poll", "--maildir", &md], b"");
    assert!(o.status.success(), "{o:?}");
    assert_eq!(
        std::fs::read_dir(maildir.join("new")).expect("new").count(),
        0
    );
    assert_eq!(
        std::fs::read_dir(maildir.join("cur")).expect("cur").count(),
        2
    );
    // Issue 22: a run killed between storing a file and moving it leaves it in `new/`; the
    // next poll finds its bytes stored, moves it and doesn't answer it a second time.
    std::fs::copy(
        golden.join("06-bids-france.eml"),
        maildir.join("new").join("06-bids-france.eml"),
    )
    .expect("copy");
    let o = run(&["mail", "poll", "--maildir", &md], b"");
    assert!(o.status.success(), "{o:?}");
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("stored by an earlier run, not answered again"),
        "{o:?}"
    );
    assert_eq!(
        std::fs::read_dir(maildir.join("new")).expect("new").count(),
        0
    );
    let st = Store::open(&db).expect("db");
    let replies: Vec<(String, bool)> = golden::queued(st.view())
        .into_iter()
        .filter(|m| m.kind == MailKind::Reply)
        .map(|m| (m.to, m.body.contains("reached the judge before")))
        .collect();
    let want = [
        ("france@example.org", false),
        ("someone@example.net", false),
        ("someone@example.net", true),
        ("france@example.org", false),
        ("england@example.org", false),
    ];
    assert_eq!(replies, want.map(|(a, d)| (a.to_string(), d)));
    // The players' and the GM's seat mails of the game's set-up, and the replies.
    let queued = golden::queued(st.view()).len();
    drop(st);
    // The replies go out like any other mail, those without a game too.
    let out = dir.join("out").display().to_string();
    let o = run(&["outbox", "send", "--to-dir", &out], b"");
    assert!(o.status.success(), "{o:?}");
    assert_eq!(std::fs::read_dir(&out).expect("out").count(), queued);
    // Each reply names the mail it answers, so mail programs thread them (RFC 5322 3.6.4).
    let threaded = std::fs::read_dir(&out)
        .expect("out")
        .filter_map(|e| std::fs::read_to_string(e.ok()?.path()).ok())
        .filter(|eml| {
            eml.contains("In-Reply-To: <06.bids-france@example.org>")
                && eml.contains("References: <06.bids-france@example.org>")
        })
        .count();
    assert_eq!(threaded, 1, "the reply to France's bids names them");
}

/// Issue 10: the guide shows an example of every order form; each one must read on the
/// Napoleonic board (a guide with an order the judge refuses would teach a mistake).
#[test]
fn every_example_order_in_help_reads() {
    let dir = scratch("mail-help");
    let mut j = Judge::new(Store::open(&dir.join("judge.db")).expect("db"));
    let help = format!("From: new@example.net\r\nTo: {JUDGE}\r\nSubject: help\r\n\r\nHELP\r\n");
    receive(&mut j, &config(), help.as_bytes(), at(0)).expect("stored");
    let reply = j.view().mails(None).expect("outbox").remove(0).body;
    // The reply holds the guide indented by two spaces.
    let examples: String = reply
        .lines()
        .filter_map(|l| l.strip_prefix("  "))
        .skip_while(|l| !l.starts_with("ORDERS"))
        .skip(1)
        .take_while(|l| !l.starts_with("OTHER COMMANDS"))
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .flat_map(|l| l.trim().split("   ").next())
        .map(|o| format!("{}\n", o.trim()))
        .collect();
    let v = napjudge_engine::variant::load_named("napoleonic").expect("board");
    let checked = napjudge_engine::turn::check(&v, None, None, &examples);
    assert!(checked.len() >= 18, "{examples}");
    for c in &checked {
        assert!(
            c.checked.is_ok(),
            "line {} '{}': {:?}",
            c.line,
            c.text,
            c.checked
        );
    }
}

/// "Impossible to lose an order in": a judge killed after storing a message and before answering
/// it leaves the row `stored` (what `receive` commits first, on its own). The next `tick` answers
/// it as of the time it came, before it processes any phase: France's bid, received before the
/// deadline, counts in Winter 1800 even though the tick runs after the deadline and the grace.
#[test]
fn a_stored_but_unanswered_mail_is_answered_by_the_next_tick_in_time() {
    let dir = scratch("mail-pending");
    let db = dir.join("judge.db");
    drop(new_game(&db));
    leave_stored(&db, "06-bids-france.eml", "06.bids-france@example.org");
    // Three days on: past Winter 1800's deadline (48 h) and grace (24 h).
    let o = tick(&db, "2026-07-04T11:00:00Z");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("answered 1 stored message"), "{stdout}");
    let st = Store::open(&db).expect("db");
    let state: String = rusqlite::Connection::open(&db)
        .expect("db")
        .query_row("SELECT state FROM inbox", [], |r| r.get(0))
        .expect("the row");
    assert_eq!(state, "answered");
    let game = st.view().game("g").expect("read").expect("game");
    let winter = &st.view().phases(game.id).expect("phases")[0];
    assert!(winter.report.is_some(), "Winter 1800 was processed");
    let orders = st.view().latest_orders(winter.id).expect("orders");
    let france: Vec<_> = orders.iter().filter(|o| o.power == "France").collect();
    assert_eq!(france.len(), 1, "{orders:?}");
    assert!(france[0].text.contains("BID 6 Denmark"), "{france:?}");
    assert_eq!(
        france[0].received,
        parse_time("2026-07-01T11:00:00Z").expect("time"),
        "the bid counts as of when it came, not when the tick ran"
    );
    let replies = golden::queued(st.view());
    assert!(
        replies
            .iter()
            .any(|m| m.kind == MailKind::Reply && m.to == "france@example.org"),
        "France is answered"
    );
}

/// `napjudge tick` on `db` at `now`, which must succeed.
fn tick(db: &Path, now: &str) -> std::process::Output {
    let o = Command::new(env!("CARGO_BIN_EXE_napjudge"))
        .args(["--now", now, "--db"])
        .arg(db)
        .arg("tick")
        .output()
        .expect("napjudge runs");
    assert!(o.status.success(), "{o:?}");
    o
}

/// The row a `mail receive` killed between storing and answering leaves: the message stored, in
/// state `stored`, received an hour after the game started.
fn leave_stored(db: &Path, file: &str, message_id: &str) {
    use sha2::{Digest, Sha256};
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mail/game");
    let raw = std::fs::read(golden.join(file)).expect("mail");
    let digest: String = Sha256::digest(&raw)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let sender = mail_parser::MessageParser::default()
        .parse(&raw)
        .and_then(|m| {
            m.from()
                .and_then(|a| a.first())
                .and_then(|a| a.address().map(str::to_string))
        })
        .expect("a sender");
    Judge::new(Store::open(db).expect("db"))
        .store_message(
            &NewMessage {
                message_id: Some(message_id),
                digest: &digest,
                sender: &sender,
                raw: &raw,
                size: raw.len() as u64,
                secrets: None,
            },
            parse_time("2026-07-01T11:00:00Z").expect("time"),
        )
        .expect("the row a killed receive leaves");
}

/// A GM's mail left unanswered is not run again by `tick` (a PROCESS run twice would process two
/// phases): the GM is told to check and resend, and nothing is processed.
#[test]
fn a_stored_gm_mail_is_not_run_again_and_the_gm_is_told() {
    let dir = scratch("mail-pending-gm");
    let db = dir.join("judge.db");
    drop(new_game(&db));
    leave_stored(&db, "13-gm-process.eml", "13.gm-process@example.org");
    tick(&db, "2026-07-01T12:00:00Z");
    let st = Store::open(&db).expect("db");
    let game = st.view().game("g").expect("read").expect("game");
    let winter = &st.view().phases(game.id).expect("phases")[0];
    assert!(winter.report.is_none(), "the PROCESS was not run");
    let replies: Vec<_> = golden::queued(st.view())
        .into_iter()
        .filter(|m| m.kind == MailKind::Reply && m.to == "gm@example.org")
        .collect();
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert!(
        replies[0].body.contains("It was not run again"),
        "{}",
        replies[0].body
    );
}

/// Issue 12's GM switch by mail: `SET PICTURES` with a word other than ON or OFF gets an ERROR
/// line saying what to write, and changes nothing stored; `SET PICTURES OFF` turns the pictures
/// off.
#[test]
fn set_pictures_by_mail_refuses_a_bad_word_and_changes_nothing() {
    let dir = scratch("mail-set-pictures");
    let db = dir.join("judge.db");
    let mut j = new_game(&db);
    let cfg = config();
    let gm_mail = |id: &str, word: &str| {
        format!(
            "From: gm@example.org\r\nTo: {JUDGE}\r\nSubject: pictures\r\nMessage-ID: <{id}@example.org>\r\n\
             \r\nSIGNON GM g gm-pw\r\nSET PICTURES {word}\r\n"
        )
    };
    let before = game_state(&db);
    let h = receive(&mut j, &cfg, gm_mail("p1", "MAYBE").as_bytes(), at(1)).expect("stored");
    assert_eq!(h, Handled::Answered);
    assert_eq!(
        game_state(&db),
        before,
        "a bad SET PICTURES changes nothing"
    );
    let reply = golden::queued(j.view())
        .into_iter()
        .rfind(|m| m.kind == MailKind::Reply)
        .expect("a reply");
    assert!(
        reply.body.contains(
            "ERROR: pictures MAYBE: write pictures on or pictures off. Nothing was done."
        ),
        "{}",
        reply.body
    );
    receive(&mut j, &cfg, gm_mail("p2", "OFF").as_bytes(), at(2)).expect("stored");
    let game = j.view().game("g").expect("read").expect("game");
    assert!(!game.pictures, "SET PICTURES OFF turns them off");
}

/// Issue 17: CLEAR leaves a trace in the orders' history (what it cleared, when, by whom) and
/// the power then has no orders in force, instead of deleting them without one.
#[test]
fn clear_is_kept_in_the_orders_history() {
    let dir = scratch("mail-clear-trace");
    let db = dir.join("judge.db");
    let mut j = new_game(&db);
    let cfg = config();
    let mail = |id: &str, body: &str| {
        format!(
            "From: france@example.org\r\nTo: {JUDGE}\r\nSubject: orders\r\nMessage-ID: <{id}@example.org>\r\n\
             \r\nSIGNON France g pw-france\r\n{body}\r\n"
        )
    };
    receive(&mut j, &cfg, mail("c1", "BID 6 Denmark").as_bytes(), at(1)).expect("stored");
    receive(&mut j, &cfg, mail("c2", "CLEAR").as_bytes(), at(2)).expect("stored");
    let game = j.view().game("g").expect("read").expect("game");
    let phase = j
        .view()
        .current_phase(game.id)
        .expect("read")
        .expect("Winter 1800");
    let history = j.view().all_orders(phase.id).expect("orders");
    assert_eq!(history.len(), 2, "{history:?}");
    assert!(!history[0].cleared);
    assert!(history[1].cleared);
    assert_eq!(
        history[1].text, history[0].text,
        "the CLEAR keeps what it cleared"
    );
    assert_eq!(history[1].by, napjudge_judge::Author::Player);
    assert_eq!(history[1].received, at(2));
    assert!(
        j.view()
            .latest_orders(phase.id)
            .expect("orders")
            .iter()
            .all(|t| t.power != "France"),
        "France has no orders in force after CLEAR"
    );
}

/// Issue 19, finding 12: a player's CLEAR deleted the orders the GM entered for the power. Now
/// it is refused with a reply that says why, and the GM's orders stand.
#[test]
fn a_players_clear_leaves_the_gms_orders() {
    let dir = scratch("mail-clear-gm");
    let db = dir.join("judge.db");
    let mut j = new_game(&db);
    let cfg = config();
    let gm = format!(
        "From: gm@example.org\r\nTo: {JUDGE}\r\nMessage-ID: <gm1@example.org>\r\n\r\n\
         SIGNON GM g gm-pw\r\nFrance: BID 6 Denmark\r\n"
    );
    receive(&mut j, &cfg, gm.as_bytes(), at(1)).expect("stored");
    let clear = format!(
        "From: france@example.org\r\nTo: {JUDGE}\r\nMessage-ID: <fr1@example.org>\r\n\r\n\
         SIGNON France g pw-france\r\nCLEAR\r\n"
    );
    let before = game_state(&db);
    receive(&mut j, &cfg, clear.as_bytes(), at(2)).expect("stored");
    assert_eq!(game_state(&db), before, "the GM's orders are untouched");
    let reply = golden::last_reply(j.view(), "france@example.org");
    assert!(
        reply.contains("ERROR: France's orders for this phase were entered by the GM"),
        "{reply}"
    );
}

/// Issue 19, finding 12: SIGNON finds the game whatever its capitals (HELP says capitals don't
/// matter); an address lettre can't send to is refused by SET ADDRESS, nothing changed.
#[test]
fn signon_ignores_the_games_capitals_and_set_address_refuses_what_lettre_cant_parse() {
    let dir = scratch("mail-case-address");
    let db = dir.join("judge.db");
    let mut j = new_game(&db);
    let cfg = config();
    let before = game_state(&db);
    for (i, address) in ["bob<x@example.org", "bob,x@example.org"]
        .iter()
        .enumerate()
    {
        let m = format!(
            "From: france@example.org\r\nTo: {JUDGE}\r\nMessage-ID: <a{i}@example.org>\r\n\r\n\
             SIGNON France G pw-france\r\nSET ADDRESS {address}\r\n"
        );
        receive(&mut j, &cfg, m.as_bytes(), at(1)).expect("stored");
        let reply = golden::last_reply(j.view(), "france@example.org");
        assert!(
            reply.contains("Signed on as France in game 'g'."),
            "{reply}"
        );
        assert!(
            reply.contains("Write SET ADDRESS name@example.org (one address). Nothing was done."),
            "{address}: {reply}"
        );
    }
    assert_eq!(game_state(&db), before);
}
