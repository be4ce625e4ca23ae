//! Issue 21, part 1 (reading): golden mails of how a body is read. `tests/mail/reading/NN-name.eml`
//! are raw mails fed in order to `mail::receive` on a real SQLite file, in a Napoleonic game
//! moved on to Spring 1801; `NN-name.out` the exact mails each one queued. A missing ENDPRESS,
//! Gmail's and Outlook's HTML, attachments, closing lines, unknown commands and the messages
//! that name the real problem each have their mail. Steps named `bad-*` must leave everything
//! stored as it was (phases, orders, press, players, GM actions), apart from the mail itself.
//! `NAPJUDGE_BLESS=1 cargo test --release --test suite mail_reading::` rewrites the `.out` files: review the diff.

use crate::golden;
use crate::intake;

use chrono::{DateTime, Utc};
use golden::{FivePowers, Folder, Outbox};
use intake::scratch;
use napjudge_judge::{parse_time, Handled, Judge, Store};
use std::path::Path;

fn at(hours: i64) -> DateTime<Utc> {
    parse_time("2026-07-01T10:00:00Z").expect("time") + chrono::Duration::hours(hours)
}

/// What a refused mail must not change, as text.
fn stored(db: &Path) -> String {
    golden::game_state(db, &["SELECT * FROM press ORDER BY id"])
}

#[test]
fn every_mail_is_read_as_the_player_meant_it() {
    let dir = scratch("mail-reading");
    let db = dir.join("judge.db");
    let mut j = Judge::new(Store::open(&db).expect("db"));
    FivePowers {
        periods: golden::common::day_periods(),
        one_password: Some("pw"),
        gm_password: false,
        ..FivePowers::new("g")
    }
    .set_up(&mut j, at(0));
    // The bids phase processed with no bids: Spring 1801, where orders are read.
    j.process("g", false, at(0)).expect("Winter 1800 processed");
    let mut folder = Folder::new("reading");
    let steps = folder.steps(&["eml"]);
    assert!(steps.len() >= 12, "the scenario's mails are there");
    let mut outbox = Outbox::after(j.view());
    for (i, step) in steps.iter().enumerate() {
        let name = golden::name(step);
        let raw = std::fs::read(step).expect("mail");
        let before = stored(&db);
        let handled = golden::receive(&mut j, &raw, at(i as i64 + 1));
        assert_eq!(handled, Handled::Answered, "{name}");
        if name.contains("-bad-") {
            assert_eq!(before, stored(&db), "{name} changed what is stored");
        }
        let got: String = outbox.shown(j.view());
        folder.check(&name, &got);
    }
    folder.finish();
}

/// Issue 21 (with issue 19): a game is named without regard to capitals everywhere, the GM's
/// commands too, not only in SIGNON.
#[test]
fn every_place_a_game_is_named_ignores_capitals() {
    let dir = scratch("game-names");
    let mut j = Judge::new(Store::open(&dir.join("judge.db")).expect("db"));
    golden::common::start_five_players(
        &mut j,
        at(0),
        "Spring26",
        "UTC",
        golden::common::day_periods(),
        |p| format!("{}@example.org", p.to_lowercase()),
    );
    let shown = j
        .show("SPRING26", None)
        .expect("the game, named in capitals");
    assert!(shown.contains("Spring26"), "{shown}");
    j.orders(
        "spring26",
        "France",
        "A Par H\n",
        napjudge_judge::Author::Gm,
        at(1),
    )
    .expect("orders for the game named in lower case");
}
