//! Issue 19, findings 2, 3 and 5: no setting can make the judge panic, stale orders never win,
//! and a captured mail can't be replayed. Real SQLite files, real RFC 5322 mails through
//! `mail::receive` and `mail::tick` (what `napjudge mail receive` and `napjudge tick` run), and
//! the real `napjudge` binary for every command that takes a time or a period.

use crate::common;

use crate::intake;
use chrono::{DateTime, Duration, Utc};
use intake::{config, JUDGE};
use napjudge_judge::{
    parse_time, tick, Handled, Judge, Mail, MailKind, NewMessage, Period, Periods, PhaseRow, Store,
    TickEvent,
};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const START: &str = "2026-07-01T10:00:00Z";

fn scratch(name: &str) -> PathBuf {
    intake::scratch(name).join("judge.db")
}

/// `START` plus `minutes`.
fn at(minutes: i64) -> DateTime<Utc> {
    parse_time(START).expect("time") + Duration::minutes(minutes)
}

/// A day for each phase (the Winter 1800 deadline is `at(1440)`), no grace: a phase is due at
/// its deadline.
fn periods() -> Periods {
    Periods {
        grace: Period::hours(0),
        ..common::day_periods()
    }
}

/// The five players' game, started at `START` (Winter 1800 Bids), and the GM's mail password.
fn game(db: &Path) -> Judge {
    let mut j = Judge::new(Store::open(db).expect("db"));
    common::start_five_players(&mut j, at(0), "g", "UTC", periods(), |p| {
        format!("{}@example.org", p.to_lowercase())
    });
    j.assign("g", "GM", "gm@example.org", Some("gm-pw"), at(0))
        .expect("the GM's password");
    j
}

/// A plain-text mail, CRLF, dated `date` (minutes after `START`).
fn mail(from: &str, id: &str, date: i64, body: &str) -> Vec<u8> {
    let date = at(date).to_rfc2822();
    format!(
        "From: {from}\nTo: {JUDGE}\nSubject: orders\nDate: {date}\nMessage-ID: <{id}>\n\
         MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n\n{body}"
    )
    .replace('\n', "\r\n")
    .into_bytes()
}

fn france(id: &str, date: i64, bid: &str) -> Vec<u8> {
    mail(
        "france@example.org",
        id,
        date,
        &format!("SIGNON France g pw\n{bid}\n"),
    )
}

/// The row a `mail receive` killed between storing and answering leaves behind: the message
/// stored (its first transaction, the same call `receive` makes), never answered.
fn killed_receive(j: &mut Judge, raw: &[u8], id: &str, now: DateTime<Utc>) {
    use sha2::{Digest, Sha256};
    let digest: String = Sha256::digest(raw)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    j.store_message(
        &NewMessage {
            message_id: Some(id),
            digest: &digest,
            sender: "france@example.org",
            raw,
            size: raw.len() as u64,
            // Unmasked, as tests/mail.rs leaves its stored rows: the recovery reads either.
            secrets: None,
        },
        now,
    )
    .expect("stored");
}

fn receive(j: &mut Judge, raw: &[u8], now: DateTime<Utc>) {
    let handled = napjudge_judge::receive(j, &config(), raw, now).expect("stored");
    assert_eq!(handled, Handled::Answered);
}

fn phases(j: &Judge) -> Vec<PhaseRow> {
    let g = j.view().game("g").expect("read").expect("game");
    j.view().phases(g.id).expect("phases")
}

/// France's orders in force in the phase `i` (0: Winter 1800 Bids).
fn france_orders(j: &Judge, i: usize) -> Option<String> {
    let id = phases(j)[i].id;
    j.view()
        .latest_orders(id)
        .expect("orders")
        .into_iter()
        .find(|t| t.power == "France")
        .map(|t| t.text)
}

/// The reply to the mail of Message-ID `id`.
fn reply_to(j: &Judge, id: &str) -> Mail {
    let mails = crate::golden::queued(j.view());
    let found = mails
        .into_iter()
        .filter(|m| m.kind == MailKind::Reply && m.in_reply_to.as_deref() == Some(id))
        .collect::<Vec<_>>();
    assert_eq!(found.len(), 1, "one reply to {id}: {found:?}");
    found.into_iter().next().expect("one")
}

/// The other four powers' bids, stored at `START`.
fn others_bid(j: &mut Judge) {
    for (p, bid) in [
        ("England", "BID 4 Portugal"),
        ("Austria", "BID 3 Bavaria"),
        ("Prussia", "BID 4 Wurzburg"),
        ("Russia", "BID 3 Sweden"),
    ] {
        j.orders("g", p, bid, napjudge_judge::Author::Player, at(0))
            .expect("bid");
    }
}

/// Finding 3: a mail whose `receive` was killed, recovered by `tick` after the player's later
/// mail was handled, doesn't replace the later orders (today the newest row id won).
#[test]
fn a_killed_receive_recovered_after_a_later_mail_leaves_the_later_orders() {
    let db = scratch("stale-recovered-after-later");
    let mut j = game(&db);
    let first = france("f1@example.org", 10, "BID 6 Denmark");
    killed_receive(&mut j, &first, "f1@example.org", at(10));
    receive(
        &mut j,
        &france("f2@example.org", 20, "BID 2 Denmark"),
        at(20),
    );
    let (answered, _) = tick(&mut j, &config(), at(30)).expect("tick");
    assert_eq!(answered, 1, "the stored mail is answered");
    assert_eq!(
        france_orders(&j, 0).as_deref(),
        Some("BID 2 Denmark\n"),
        "the later mail's orders stand"
    );
    let r = reply_to(&j, "f1@example.org");
    assert!(r.body.contains("an older mail can't undo"), "{}", r.body);
}

/// Issue 31, finding 4: a player's mail received at 11:00 whose `receive` was killed, answered
/// by the 11:06 tick, replaced the orders the GM entered for the power at 11:02 (shell) and 11:03
/// (mail): the newest row was in force, and the check of older mail is per role. Orders older
/// (by the time received) than those in force for the power are never applied, whoever entered
/// those, and the reply says whose newer orders stand; a CLEAR as well.
#[test]
fn a_recovered_mail_does_not_replace_the_gms_newer_orders() {
    let db = scratch("stale-recovered-after-gm");
    let mut j = game(&db);
    let bids = france("r1@example.org", 60, "BID 6 Denmark");
    killed_receive(&mut j, &bids, "r1@example.org", at(60));
    let clear = france("r2@example.org", 60, "CLEAR");
    killed_receive(&mut j, &clear, "r2@example.org", at(60));
    j.orders(
        "g",
        "France",
        "BID 1 Denmark",
        napjudge_judge::Author::Gm,
        at(62),
    )
    .expect("the GM's orders at the shell");
    receive(
        &mut j,
        &mail(
            "gm@example.org",
            "gm1@example.org",
            63,
            "SIGNON GM g gm-pw\nFrance: BID 2 Denmark\n",
        ),
        at(63),
    );
    let (answered, _) = napjudge_judge::tick(&mut j, &config(), at(66)).expect("tick");
    assert_eq!(answered, 2, "both stored mails are answered");
    assert_eq!(
        france_orders(&j, 0).as_deref(),
        Some("BID 2 Denmark\n"),
        "the GM's orders of 11:03 stand"
    );
    for id in ["r1@example.org", "r2@example.org"] {
        let r = reply_to(&j, id);
        assert!(
            r.body.contains(
                "not applied: newer orders for France, entered by the GM at \
                 2026-07-01T11:03:00Z, are in force"
            ),
            "{id}: {}",
            r.body
        );
    }
}

/// Finding 3: a mail stored two minutes before the deadline and not answered (a killed
/// `receive`) holds the phase: `tick` doesn't process it while the mail is younger than
/// PENDING_AFTER, then answers it as of its time and processes the phase with its orders (today
/// the phase was processed without them and the mail applied to the next phase).
#[test]
fn a_mail_stored_before_the_deadline_counts_for_its_phase() {
    let db = scratch("stale-before-deadline");
    let mut j = game(&db);
    others_bid(&mut j);
    let deadline = 24 * 60;
    let raw = france("late@example.org", deadline - 2, "BID 6 Denmark");
    killed_receive(&mut j, &raw, "late@example.org", at(deadline - 2));
    let (_, report) = tick(&mut j, &config(), at(deadline + 1)).expect("tick");
    assert!(phases(&j)[0].report.is_none(), "{:?}", report.done);
    assert!(
        report
            .done
            .iter()
            .any(|e| matches!(e, TickEvent::WaitsForMail { .. })),
        "{:?}",
        report.done
    );
    let (answered, report) = tick(&mut j, &config(), at(deadline + 4)).expect("tick");
    assert_eq!(answered, 1);
    assert!(
        report.done.iter().any(
            |e| matches!(e, TickEvent::Processed { phase, .. } if phase.starts_with("Winter 1800"))
        ),
        "{:?}",
        report.done
    );
    let winter = &phases(&j)[0];
    assert!(
        winter.missing.is_empty(),
        "France's bid counted: {winter:?}"
    );
    assert_eq!(france_orders(&j, 0).as_deref(), Some("BID 6 Denmark\n"));
    assert_eq!(france_orders(&j, 1), None, "nothing went to Spring 1801");
}

/// Finding 3: when the phase was processed anyway (by the GM, while the mail lay stored), the
/// recovered mail's orders are not applied to the next phase, and the player is told.
#[test]
fn a_mail_recovered_after_its_phase_was_processed_is_reported_unused() {
    let db = scratch("stale-after-process");
    let mut j = game(&db);
    others_bid(&mut j);
    let raw = france("slow@example.org", 60, "CLEAR");
    killed_receive(&mut j, &raw, "slow@example.org", at(60));
    j.process("g", false, at(61)).expect("the GM processes");
    j.orders(
        "g",
        "France",
        "A(Par)-Bur",
        napjudge_judge::Author::Player,
        at(62),
    )
    .expect("France's Spring orders");
    tick(&mut j, &config(), at(70)).expect("tick");
    let r = reply_to(&j, "slow@example.org");
    assert!(
        r.body
            .contains("was not read before Winter 1800 Bids was over; its orders were not used"),
        "{}",
        r.body
    );
    assert_eq!(
        france_orders(&j, 1).as_deref(),
        Some("A(Par)-Bur\n"),
        "the CLEAR of the Winter's mail didn't clear Spring's orders"
    );
}

/// Finding 5: an old orders mail sent again with a new Message-ID is refused (it is older than
/// the power's last mail), and so is its text again with a new Date in the same phase; the
/// player's orders are unchanged (today they were reverted).
#[test]
fn an_old_orders_mail_with_a_new_message_id_is_refused() {
    let db = scratch("stale-old-orders");
    let mut j = game(&db);
    receive(
        &mut j,
        &france("o1@example.org", 10, "BID 6 Denmark"),
        at(10),
    );
    receive(
        &mut j,
        &france("o2@example.org", 20, "BID 2 Denmark"),
        at(20),
    );
    receive(
        &mut j,
        &france("o3@example.org", 10, "BID 6 Denmark"),
        at(60),
    );
    assert_eq!(france_orders(&j, 0).as_deref(), Some("BID 2 Denmark\n"));
    let r = reply_to(&j, "o3@example.org");
    assert!(r.body.contains("Nothing in it was done"), "{}", r.body);
    receive(
        &mut j,
        &france("o4@example.org", 61, "BID 6 Denmark"),
        at(61),
    );
    // A new Date can't be told from a new mail, but the same text in the same phase can.
    let r = reply_to(&j, "o4@example.org");
    assert!(r.body.contains("taken for a copy sent again"), "{}", r.body);
    assert_eq!(france_orders(&j, 0).as_deref(), Some("BID 2 Denmark\n"));
    // A Date far ahead counts as the time received: it can't lock the player out.
    receive(
        &mut j,
        &france("o5@example.org", 100_000, "BID 1 Denmark"),
        at(62),
    );
    receive(
        &mut j,
        &france("o6@example.org", 63, "BID 3 Denmark"),
        at(63),
    );
    assert_eq!(france_orders(&j, 0).as_deref(), Some("BID 3 Denmark\n"));
}

/// Finding 5: a GM's PROCESS names its phase; the same mail replayed (a new Message-ID, or a new
/// Date) is refused and no second phase is processed; a bare PROCESS says how to write it.
#[test]
fn a_replayed_process_is_refused() {
    let db = scratch("stale-process");
    let mut j = game(&db);
    others_bid(&mut j);
    let gm = |id: &str, date: i64, body: &str| {
        mail(
            "gm@example.org",
            id,
            date,
            &format!("SIGNON GM g gm-pw\n{body}\n"),
        )
    };
    receive(
        &mut j,
        &gm("p1@example.org", 10, "PROCESS Winter 1800 Bids NOW"),
        at(10),
    );
    assert_eq!(phases(&j).len(), 2, "Winter 1800 processed");
    receive(
        &mut j,
        &gm("p2@example.org", 10, "PROCESS Winter 1800 Bids NOW"),
        at(20),
    );
    let r = reply_to(&j, "p2@example.org");
    assert!(
        r.body.contains("Winter 1800 Bids is not the current phase")
            && r.body.contains("processed already"),
        "{}",
        r.body
    );
    // Dated later: the same text in the same phase (Spring) is a copy.
    receive(
        &mut j,
        &gm("p3@example.org", 30, "PROCESS Winter 1800 Bids NOW"),
        at(30),
    );
    let r = reply_to(&j, "p3@example.org");
    assert!(r.body.contains("nothing in it was done"), "{}", r.body);
    assert_eq!(phases(&j).len(), 2, "no second phase processed");
    receive(&mut j, &gm("p4@example.org", 40, "PROCESS"), at(40));
    let r = reply_to(&j, "p4@example.org");
    assert!(
        r.body.contains("PROCESS Spring 1801 Movement"),
        "{}",
        r.body
    );
    assert_eq!(phases(&j).len(), 2);
}

/// Issue 31, finding 5(a): after the GM rolled the phase back at the shell, the GM's PROCESS
/// mail replayed with a new Message-ID (its Date and text unchanged) processed the phase again:
/// the copy check looked only in the phase current now, a new row after the rollback, and the
/// mail was not older than the GM's last. A mail with the same text and Date as one handled for
/// the role in the game is that mail again, whatever phase is current: refused.
#[test]
fn a_gms_process_replayed_after_a_rollback_is_refused() {
    let db = scratch("stale-process-rollback");
    let mut j = game(&db);
    others_bid(&mut j);
    let process = |id: &str| {
        mail(
            "gm@example.org",
            id,
            10,
            "SIGNON GM g gm-pw\nPROCESS Winter 1800 Bids NOW\n",
        )
    };
    receive(&mut j, &process("q1@example.org"), at(10));
    assert_eq!(phases(&j).len(), 2, "Winter 1800 processed");
    j.rollback("g", "Winter 1800 Bids", Some("a mistake"), at(15))
        .expect("the GM rolls back at the shell");
    let played = |j: &Judge| phases(j).iter().filter(|p| p.report.is_some()).count();
    let before = played(&j);
    receive(&mut j, &process("q2@example.org"), at(20));
    let r = reply_to(&j, "q2@example.org");
    assert!(r.body.contains("taken for a copy sent again"), "{}", r.body);
    assert_eq!(played(&j), before, "the phase was not processed again");
}

/// Finding 5: a press mail replayed with a new Message-ID is delivered once (the copy is read,
/// its press not sent again).
#[test]
fn a_replayed_press_mail_is_delivered_once() {
    let db = scratch("stale-press");
    let mut j = game(&db);
    let press = |id: &str| {
        mail(
            "france@example.org",
            id,
            10,
            "SIGNON France g pw\nPRESS TO England\nShall we?\nENDPRESS\n",
        )
    };
    receive(&mut j, &press("m1@example.org"), at(10));
    receive(&mut j, &press("m2@example.org"), at(20));
    let delivered = crate::golden::queued(j.view())
        .into_iter()
        .filter(|m| m.kind == MailKind::Press)
        .count();
    assert_eq!(delivered, 1);
    let r = reply_to(&j, "m2@example.org");
    assert!(r.body.contains("Not sent again"), "{}", r.body);
}

// ---- Finding 2: every command that takes a time or a period, fed the extremes.

fn napjudge(db: &Path, now: &str, args: &[&str], stdin: Option<&[u8]>) -> Output {
    crate::golden::piped(
        Command::new(env!("CARGO_BIN_EXE_napjudge"))
            .args(["--now", now, "--db"])
            .arg(db)
            .args(args),
        stdin.unwrap_or_default(),
    )
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Exits 0, without a panic.
fn ok(o: &Output, what: &str) {
    assert!(o.status.success(), "{what}: {}", text(o));
    assert!(!text(o).contains("panicked"), "{what}: {}", text(o));
}

/// Refused with exit 2 and an error that says `says`, without a panic.
fn refused(o: &Output, what: &str, says: &str) {
    assert_eq!(o.status.code(), Some(2), "{what}: {}", text(o));
    assert!(text(o).contains(says), "{what}: {}", text(o));
    assert!(!text(o).contains("panicked"), "{what}: {}", text(o));
}

/// The periods every test of the extremes feeds, with what each gives: accepted, or the error's
/// words. `0s` is refused only for a phase's own period (a grace or reminder of nothing is fine).
const PERIODS: [(&str, Option<&str>); 15] = [
    ("0", Some("is not a period")),
    ("-1", Some("is not a period")),
    ("-1d", Some("is not a period")),
    ("", Some("is not a period")),
    ("d", Some("is not a period")),
    ("365d", None),
    ("366d", Some("a period is at most 365d")),
    ("100000000d", Some("a period is at most 365d")),
    ("9223372036854775807s", Some("a period is at most 365d")),
    ("9999999999999999999d", Some("a period is at most 365d")),
    ("48H", None),
    ("2D", None),
    ("90M", None),
    ("30S", None),
    ("1d12h", None),
];

/// The times `game deadline` and `SET DEADLINE` are fed, from a game whose clock reads `START`.
const DEADLINES: [(&str, Option<&str>); 8] = [
    ("", Some("is not a time")),
    ("2026-06-30T10:00:00Z", Some("in the past")),
    ("2028-06-30T10:00:00Z", None),
    ("2028-07-01T10:00:00Z", Some("too far ahead")),
    ("9999-12-31T23:59:59Z", Some("too far ahead")),
    ("+262143-12-31T23:59:59Z", Some("is not a time")),
    ("10000-01-01 00:00", Some("is not a time")),
    ("tomorrow", Some("is not a time")),
];

/// Finding 2: `game create` with every period flag at every extreme; each is refused with an
/// error naming the flag and the bound, or accepted; then `tick` and `game show` exit 0.
#[test]
fn every_period_flag_is_bounded_and_nothing_panics() {
    let db = scratch("stale-extremes-create");
    let mut n = 0;
    for flag in ["movement", "retreat", "winter", "grace", "remind"] {
        for (value, says) in PERIODS.iter().chain([&("0s", None)]) {
            n += 1;
            let name = format!("c{n}");
            let set = format!("--{flag}={value}");
            let o = napjudge(
                &db,
                START,
                &["game", "create", &name, "--gm", "gm@example.org", &set],
                None,
            );
            let zero_phase = *value == "0s" && !matches!(flag, "grace" | "remind");
            match (says, zero_phase) {
                (_, true) => refused(&o, &set, "must be longer than nothing"),
                (Some(says), _) => {
                    refused(&o, &set, &format!("--{flag}"));
                    refused(&o, &set, says);
                }
                (None, false) => ok(&o, &set),
            }
        }
    }
    ok(&napjudge(&db, START, &["tick"], None), "tick");
    ok(&napjudge(&db, START, &["game", "show", "c6"], None), "show");
}

/// Finding 2: `game deadline`, `SET DEADLINE` and `SET GRACE` by mail, and `--now`, at their
/// extremes; a stored game with periods out of bounds (as a napjudge before the bound could
/// write them) and a deadline at the calendar's end: `tick` and `game show` still exit 0.
#[test]
fn deadlines_graces_and_stored_values_at_the_extremes_never_panic() {
    let db = scratch("stale-extremes-game");
    drop(game(&db));
    for (time, says) in DEADLINES {
        let o = napjudge(&db, START, &["game", "deadline", "g", time], None);
        match says {
            Some(says) => refused(&o, time, says),
            None => ok(&o, time),
        }
    }
    let mut n = 0;
    let mut by_mail = |command: String| {
        n += 1;
        let id = format!("x{n}@example.org");
        let raw = mail(
            "gm@example.org",
            &id,
            0,
            &format!("SIGNON GM g gm-pw\n{command}\n"),
        );
        let o = napjudge(&db, START, &["mail", "receive"], Some(&raw));
        ok(&o, &command);
        let st = Store::open(&db).expect("db");
        let j = Judge::new(st);
        reply_to(&j, &id).body
    };
    for (value, says) in PERIODS {
        let body = by_mail(format!("SET GRACE {value}"));
        match says {
            Some(says) => assert!(
                body.contains("ERROR") && body.contains(says),
                "SET GRACE {value}: {body}"
            ),
            None => assert!(body.contains("Set: grace "), "SET GRACE {value}: {body}"),
        }
    }
    for (time, says) in DEADLINES {
        let body = by_mail(format!("SET DEADLINE {time}"));
        match says {
            Some(says) => assert!(
                body.contains("ERROR") && body.contains(says),
                "SET DEADLINE {time}: {body}"
            ),
            None => assert!(body.contains("Deadline: "), "SET DEADLINE {time}: {body}"),
        }
    }
    // A clock at the calendar's end: the deadline can't be computed, said as an error.
    let o = napjudge(
        &db,
        "9999-12-31T00:00:00Z",
        &["game", "create", "late", "--gm", "gm@example.org"],
        None,
    );
    ok(&o, "create at the end of the calendar");
    for p in ["Austria", "England", "France", "Prussia", "Russia"] {
        let o = napjudge(
            &db,
            "9999-12-31T00:00:00Z",
            &[
                "game",
                "assign",
                "late",
                p,
                "x@example.org",
                "--password",
                "pw",
            ],
            None,
        );
        ok(&o, "assign");
    }
    let o = napjudge(
        &db,
        "9999-12-31T00:00:00Z",
        &["game", "start", "late"],
        None,
    );
    refused(&o, "start", "past the end of the calendar");
    // What an older napjudge could have stored: periods out of bounds, a deadline at the end.
    let conn = rusqlite::Connection::open(&db).expect("db");
    conn.execute_batch(
        "UPDATE games SET grace = 9223372036854775807, remind = -9223372036854775808,
                          movement = 9223372036854775807 WHERE name = 'g';
         UPDATE phases SET deadline = '9999-12-31T23:59:59Z'",
    )
    .expect("old values");
    drop(conn);
    for now in [START, "9999-12-31T23:59:59Z"] {
        ok(&napjudge(&db, now, &["tick"], None), "tick");
        let o = napjudge(&db, now, &["game", "show", "g"], None);
        ok(&o, "show");
        assert!(text(&o).contains("grace 365d"), "{}", text(&o));
    }
}

/// Two mails with attachments and a password: `orders.txt` read as the body (the mail's own
/// text gives no command), and orders in the text with `x.pdf` and a picture without a name
/// attached, not read.
fn with_attachments(id: &str) -> Vec<u8> {
    let head = format!(
        "From: france@example.org\nTo: {JUDGE}\nSubject: orders\nDate: {}\nMessage-ID: <{id}>\n\
         MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"b\"\n\n",
        at(10).to_rfc2822()
    );
    let parts = if id.starts_with("txt") {
        "--b\nContent-Type: text/plain; charset=utf-8\n\nMy orders are attached.\n\
         --b\nContent-Type: text/plain; charset=utf-8; name=\"orders.txt\"\n\
         Content-Disposition: attachment; filename=\"orders.txt\"\n\n\
         SIGNON France g pw\nBID 6 Denmark\n--b--\n"
    } else {
        "--b\nContent-Type: text/plain; charset=utf-8\n\nSIGNON France g pw\nBID 6 Denmark\n\
         --b\nContent-Type: application/pdf; name=\"x.pdf\"\n\
         Content-Disposition: attachment; filename=\"x.pdf\"\nContent-Transfer-Encoding: base64\n\n\
         JVBERi0xLjQK\n--b\nContent-Type: image/png\nContent-Transfer-Encoding: base64\n\n\
         iVBORw0KGgo=\n--b--\n"
    };
    format!("{head}{parts}").replace('\n', "\r\n").into_bytes()
}

/// Issue 21: a mail stored and not answered when the judge stopped (here its answer's
/// transaction fails, as a crash between the two leaves it), answered by the next run's tick
/// from the stored copy, gets the reply it would have got at once, the note on its
/// attachments included. The stored copy of a mail with a password is masked; before, it kept
/// only the text read, so the recovered reply lost "orders.txt read as the body" and
/// "Not read: x.pdf".
#[test]
fn a_mail_answered_after_a_crash_keeps_its_attachment_note() {
    for id in ["txt@example.org", "pdf@example.org"] {
        let raw = with_attachments(id);
        let at_once = {
            let mut j = game(&scratch(&format!("attachments-at-once-{id}")));
            receive(&mut j, &raw, at(10));
            reply_to(&j, id).body
        };
        let db = scratch(&format!("attachments-crash-{id}"));
        let mut j = game(&db);
        let stop = |sql: &str| {
            rusqlite::Connection::open(&db)
                .expect("db")
                .execute_batch(sql)
                .expect("trigger");
        };
        stop(
            "CREATE TRIGGER crash BEFORE INSERT ON outbox \
             BEGIN SELECT RAISE(ABORT, 'the judge stopped here'); END",
        );
        let failed = napjudge_judge::receive(&mut j, &config(), &raw, at(10));
        assert!(failed.is_err(), "{id}: the answer must fail: {failed:?}");
        // The copy stored holds the attachments' names, not the password.
        let raw: Vec<u8> = rusqlite::Connection::open(&db)
            .expect("db")
            .query_row("SELECT raw FROM inbox", [], |r| r.get(0))
            .expect("the stored copy");
        let raw = String::from_utf8_lossy(&raw);
        assert!(!raw.contains("g pw"), "{id}: {raw}");
        drop(j);
        stop("DROP TRIGGER crash");
        // The next run: a new process on the same file.
        let mut j = Judge::new(Store::open(&db).expect("db"));
        let (answered, _) = tick(&mut j, &config(), at(30)).expect("tick");
        assert_eq!(answered, 1, "{id}");
        let recovered = reply_to(&j, id).body;
        assert!(at_once.contains("Attachments\n"), "{id}: {at_once}");
        assert_eq!(recovered, at_once, "{id}: the same reply after the crash");
    }
}
