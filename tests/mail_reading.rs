//! Issue 21, part 1 (reading): golden mails of how a body is read. `tests/mail/reading/NN-name.eml`
//! are raw mails fed in order to `mail::receive` on a real SQLite file, in a Napoleonic game
//! moved on to Spring 1801; `NN-name.out` the exact mails each one queued. A missing ENDPRESS,
//! Gmail's and Outlook's HTML, attachments, closing lines, unknown commands and the messages
//! that name the real problem each have their mail. Steps named `bad-*` must leave everything
//! stored as it was (phases, orders, press, players, GM actions), apart from the mail itself.
//! `NAPJUDGE_BLESS=1 cargo test --test mail_reading` rewrites the `.out` files: review the diff.

mod common;
mod golden;
mod intake;

use chrono::{DateTime, Utc};
use intake::{config, scratch};
use napjudge_judge::clock::parse_time;
use napjudge_judge::mail::{self, Handled};
use napjudge_judge::store::Store;
use napjudge_judge::Judge;
use std::path::{Path, PathBuf};

fn at(hours: i64) -> DateTime<Utc> {
    parse_time("2026-07-01T10:00:00Z").expect("time") + chrono::Duration::hours(hours)
}

/// What a refused mail must not change, as text.
fn stored(db: &Path) -> String {
    golden::dump(
        db,
        &[
            "SELECT id, seq, report IS NOT NULL, deadline, superseded FROM phases ORDER BY id",
            "SELECT id, phase, power, text, by FROM orders ORDER BY id",
            "SELECT * FROM press ORDER BY id",
            "SELECT power, address, password_hash FROM players ORDER BY power",
            "SELECT id, action FROM gm_actions ORDER BY id",
        ],
    )
}

#[test]
fn every_mail_is_read_as_the_player_meant_it() {
    let dir = scratch("mail-reading");
    let db = dir.join("judge.db");
    let mut j = Judge::new(Store::open(&db).expect("db"));
    common::start_five_players(&mut j, at(0), "g", "UTC", common::day_periods(), |p| {
        format!("{}@example.org", p.to_lowercase())
    });
    // The bids phase processed with no bids: Spring 1801, where orders are read.
    j.process("g", false, at(0)).expect("Winter 1800 processed");
    let cfg = config();
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mail/reading");
    let mut steps: Vec<PathBuf> = std::fs::read_dir(&golden)
        .expect("tests/mail/reading")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "eml"))
        .collect();
    steps.sort();
    assert!(steps.len() >= 12, "the scenario's mails are there");
    let bless = std::env::var_os("NAPJUDGE_BLESS").is_some();
    let mut seen = j.view().mails(None).expect("outbox").len();
    let mut failures = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let name = step
            .file_stem()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let raw = std::fs::read(step).expect("mail");
        let before = stored(&db);
        let handled = mail::receive(&mut j, &cfg, &raw, at(i as i64 + 1)).expect("stored");
        assert_eq!(handled, Handled::Answered, "{name}");
        if name.contains("-bad-") {
            assert_eq!(before, stored(&db), "{name} changed what is stored");
        }
        let mails = j.view().mails(None).expect("outbox");
        let got: String = mails[seen..].iter().map(golden::show).collect();
        seen = mails.len();
        let out = golden.join(format!("{name}.out"));
        if bless {
            std::fs::write(&out, &got).expect("write golden");
        } else {
            let want = std::fs::read_to_string(&out).unwrap_or_default();
            if want != got {
                failures.push(format!("{name}:\n--- want\n{want}\n--- got\n{got}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Issue 21 (with issue 19): a game is named without regard to capitals everywhere, the GM's
/// commands too, not only in SIGNON.
#[test]
fn every_place_a_game_is_named_ignores_capitals() {
    let dir = scratch("game-names");
    let mut j = Judge::new(Store::open(&dir.join("judge.db")).expect("db"));
    common::start_five_players(
        &mut j,
        at(0),
        "Spring26",
        "UTC",
        common::day_periods(),
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
        napjudge_judge::store::Author::Gm,
        at(1),
    )
    .expect("orders for the game named in lower case");
}
