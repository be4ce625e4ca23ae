//! Issue 31, finding 4a: a time before 1970 (a `--now` typo, a record's `time_sent` of 0) made
//! every later `outbox send` and `tick` panic in the Date header's formatting. Such times are
//! refused where they come in, and a stored one is written, not a panic.

use crate::common;
use crate::intake::{scratch, JUDGE};
use chrono::{DateTime, Utc};
use napjudge_judge::{parse_time, Retry, Target};
use napjudge_judge::{Judge, Store};
use napjudge_replay::import;

fn at(text: &str) -> DateTime<Utc> {
    parse_time(text).expect("a time")
}

/// `--now` before 1970 is refused with what to check, before anything is stored.
#[test]
fn now_before_1970_is_refused() {
    let dir = scratch("now");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_napjudge"))
        .arg("--db")
        .arg(dir.join("judge.db"))
        .args(["--now", "1969-12-31T00:00:00Z", "game", "list"])
        .env_remove("NAPJUDGE_CONFIG")
        .output()
        .expect("napjudge runs");
    assert!(!o.status.success(), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("1970 to 9999"), "{err}");
    assert!(parse_time("1969-12-31 23:59").is_err());
    assert!(parse_time("1970-01-01 00:00").is_ok());
}

/// A mail stored with a time before 1970 (the library takes any time; an old database may
/// hold one) is sent, not a panic, dated at the earliest the header can say.
#[test]
fn a_stored_time_before_1970_is_sent_not_a_panic() {
    let dir = scratch("stored");
    let early = DateTime::from_timestamp(-86_400, 0).expect("1969-12-31");
    let mut j = Judge::new(Store::open(&dir.join("judge.db")).expect("db"));
    common::start_five_players(&mut j, early, "g", "UTC", common::day_periods(), |p| {
        format!("{}@example.org", p.to_lowercase())
    });
    let out = dir.join("out");
    let retry = Retry::from_config(&Default::default());
    let sent = j
        .send_outbox(
            &Target::Dir(out.clone()),
            JUDGE,
            retry,
            at("2026-07-01 10:00"),
        )
        .expect("sent");
    assert!(sent.sent > 0, "{sent:?}");
    let first = std::fs::read_dir(&out)
        .expect("the mails")
        .next()
        .expect("a mail")
        .expect("entry");
    let text = std::fs::read_to_string(first.path()).expect("eml");
    assert!(text.contains("Date: Thu, 01 Jan 1970 00:00:00"), "{text}");
}

/// A record whose first press has `time_sent` 0 would start the game in 1969: refused, naming
/// the field to correct.
#[test]
fn an_import_whose_press_is_dated_before_1970_is_refused() {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/records/webdiplomacy/game_439643_ENGLAND_T.json");
    let json = std::fs::read_to_string(&file).expect("the record");
    let (head, tail) = json.split_once("\"time_sent\":").expect("a press");
    let digits = tail.find(|c: char| !c.is_ascii_digit()).expect("a number");
    let zeroed = format!("{head}\"time_sent\":0{}", &tail[digits..]);
    let e = import::import(&zeroed, "record.json", "record", &[], None).expect_err("refused");
    assert!(e.to_string().contains("time_sent 0"), "{e}");
}
