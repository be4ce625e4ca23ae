//! Issue 20, part 1: the GM's changes told to everyone. `tests/mail/notices/NN-name.*` is a
//! game run step by step through the real `napjudge` binary on a real SQLite file: a `.cmd`
//! step is a shell command (`game start g`, `game set g grace 12h`), a `.eml` step a mail
//! given to `napjudge mail receive`; `NN-name.out` holds what the command printed and the
//! exact mails each step queued. A step's time is its `at:` line (a `.cmd`), else an hour
//! after the step before. Steps named `-bad-` must leave the game as it was. At the end the
//! outbox goes through `outbox send` to the real SMTP server of `tests/smtp/server.rs`.
//! `NAPJUDGE_BLESS=1 cargo test --release --test suite mail_notices::` rewrites the `.out` files: review them.
//! The GM's pause by mail and resume by shell are told in `tests/mail_life.rs` (steps 18-19).

use crate::golden;
use crate::intake;

use chrono::Duration;
use golden::{Folder, Outbox, Shell, Smtp};
use intake::scratch;
use napjudge_judge::{parse_time, Store};
use std::path::Path;

/// What a step may change in a game, as text: a bad step leaves it as it was.
fn game_state(db: &Path) -> String {
    golden::game_state(
        db,
        &[
            "SELECT state, timezone, movement, retreat, winter, grace, remind, wait, pictures FROM games",
        ],
    )
}

#[test]
fn every_gm_change_is_noticed_to_everyone() {
    let dir = scratch("notices");
    let db = dir.join("judge.db");
    let shell = Shell::with_judge_address(&db, &dir.join("config"));
    let mut folder = Folder::new("notices");
    let steps = folder.steps(&["eml", "cmd"]);
    assert!(steps.len() >= 20, "the scenario's steps are there");
    let mut now = parse_time("2026-11-30T09:00:00Z").expect("time");
    let mut outbox = Outbox::default();
    for step in &steps {
        let name = golden::name(step);
        let text = std::fs::read(step).expect("step");
        let before = db.exists().then(|| game_state(&db));
        let mut got = String::new();
        if step.extension().is_some_and(|e| e == "cmd") {
            let text = String::from_utf8(text).expect("a command");
            let mut lines = text.lines();
            let mut line = lines.next().unwrap_or_default();
            if let Some(t) = line.strip_prefix("at: ") {
                now = parse_time(t).expect("the step's time");
                line = lines.next().unwrap_or_default();
            } else {
                now += Duration::hours(1);
            }
            got.push_str(&shell.transcript(now, line));
        } else {
            now += Duration::hours(1);
            let o = shell.run(now, &["mail", "receive"], &text);
            assert_eq!(o.code, 0, "{name}: {}{}", o.stdout, o.stderr);
        }
        if name.contains("-bad-") {
            assert_eq!(before, Some(game_state(&db)), "{name} changed the game");
        }
        let store = Store::open(&db).expect("db");
        got.push_str(&outbox.shown(store.view()));
        folder.check(&name, &got);
    }
    folder.finish();

    // End to end: the outbox, notices and all, through a real SMTP server on loopback.
    let mut smtp = Smtp::start();
    let got = smtp.deliver(&shell, now);
    let queued = golden::queued_in(&db);
    assert_eq!(got.len(), queued.len(), "every mail was delivered");
    let notices: Vec<&golden::server::Accepted> = got
        .iter()
        .filter(|m| m.data.contains("Subject: g: the deadline moved"))
        .collect();
    let mut to: Vec<&str> = notices
        .iter()
        .flat_map(|m| m.to.iter().map(String::as_str))
        .collect();
    to.sort_unstable();
    // Two deadline changes (steps 11 and 16), each to everyone once.
    assert_eq!(notices.len(), 12, "one mail per address and change");
    to.dedup();
    assert_eq!(
        to,
        [
            "austria@example.org",
            "england@example.org",
            "france@example.org",
            "gm@example.org",
            "prussia@example.org",
            "russia@example.org"
        ],
        "the deadline's notice reached every player and the GM"
    );
    assert!(
        notices
            .iter()
            .all(|m| m.from == golden::FROM && m.data.contains("Auto-Submitted: auto-generated")),
        "a notice is the judge's automatic mail"
    );
}
