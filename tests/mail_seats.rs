//! Issue 20, part 2 (seats and observers), golden: `tests/mail/seats/NN-name.*` are the steps
//! of one game, run in order on a real SQLite file, and `NN-name.out` the exact mails each step
//! queued (and, for a shell step, what the `napjudge` binary printed). A step is
//! - `NN-name.eml`: a raw mail given to `mail::receive`, an hour after the step before;
//! - `NN-name.tick`: the clock moved on by the hours the file holds, then `mail::tick`;
//! - `NN-name.cmd`: `napjudge` run with the arguments the file holds (one a line).
//!
//! The game abandons a power after 2 phases in a row without orders. Codes, passwords and the
//! tokens of OBSERVE are random: each one a step mails or prints is shown as `{{CODE}}`,
//! `{{PASSWORD}}` or `{{TOKEN}}`, and the
//! same markers in a later mail stand for the latest one. Steps named `bad-*` must leave the
//! game untouched. `NAPJUDGE_BLESS=1 cargo test --release --test suite mail_seats::` rewrites the `.out` files.

use crate::golden;
use crate::intake;
use chrono::{DateTime, Utc};
use golden::{FivePowers, Folder, Outbox, Secrets, Shell};
use intake::{config, scratch};
use napjudge_judge::{
    parse_time, tick, Author, ChangeKind, Handled, Judge, Role, Setting, Store, TickEvent,
};
use std::path::Path;

fn at(hours: i64) -> DateTime<Utc> {
    parse_time("2026-07-01T10:00:00Z").expect("time") + chrono::Duration::hours(hours)
}

/// The standard five players, without pictures, abandonment after 2 phases.
fn new_game(db: &Path) -> Judge {
    let mut j = Judge::new(Store::open(db).expect("db"));
    FivePowers {
        pictures: false,
        settings: vec![Setting::Abandon(2)],
        ..FivePowers::new("g")
    }
    .set_up(&mut j, at(0));
    j
}

/// Every table a seat command may change, as text: a bad step leaves it as it was.
fn game_state(db: &Path) -> String {
    golden::game_state(
        db,
        &[
            "SELECT power, missed FROM players ORDER BY power",
            "SELECT * FROM seat_changes ORDER BY id",
            "SELECT * FROM takeover_codes ORDER BY id",
            "SELECT * FROM observers ORDER BY address",
            "SELECT * FROM press ORDER BY rowid",
        ],
    )
}

#[test]
fn seats_change_hands_and_observers_watch() {
    let dir = scratch("seats-golden");
    let db = dir.join("judge.db");
    let mut j = new_game(&db);
    let shell = Shell::new(&db);
    let mut folder = Folder::new("seats");
    let steps = folder.steps(&["eml", "tick", "cmd"]);
    assert!(steps.len() >= 25, "the scenario's steps are there");
    let mut outbox = Outbox::after(j.view());
    let mut secrets = Secrets::default();
    let mut hours = 0;
    for step in &steps {
        let name = golden::name(step);
        let ext = golden::ext(step);
        let text = secrets.fill(&std::fs::read_to_string(step).expect("step"));
        let before = game_state(&db);
        let mut printed = String::new();
        match ext.as_str() {
            "eml" => {
                hours += 1;
                let handled = golden::receive(&mut j, text.as_bytes(), at(hours));
                assert!(matches!(handled, Handled::Answered), "{name}: {handled:?}");
            }
            "tick" => {
                hours += text.trim().parse::<i64>().expect("hours");
                let (_, report) = golden::tick(&mut j, at(hours));
                assert!(report.failed.is_empty(), "{name}: {report:?}");
                printed = report.done.iter().map(|l| format!("tick: {l}\n")).collect();
            }
            _ => {
                // The arguments, one a line.
                hours += 1;
                let args: Vec<&str> = text.lines().collect();
                let o = shell.run(at(hours), &args, b"");
                printed = format!("exit: {}\n{}{}", o.code, o.stdout, o.stderr);
            }
        }
        if name.contains("-bad-") {
            assert_eq!(before, game_state(&db), "{name} changed the game");
        }
        let got = printed + &outbox.shown(j.view());
        secrets.learn(&got);
        folder.check(&name, &secrets.hide(&got));
    }
    folder.finish();
}

/// Issue 20, seats: an open seat is never waited for (the phase is processed once every seated
/// power has ordered), and a late order within the grace is not a missed phase: France, late
/// twice, keeps its seat while the powers that sent nothing for two phases are abandoned.
#[test]
fn an_open_seat_is_not_waited_for_and_a_late_order_is_not_missed() {
    let dir = scratch("seats-missed");
    let mut j = new_game(&dir.join("judge.db"));
    let cfg = config();
    let game = j.view().game("g").expect("db").expect("the game");
    j.resign(&game, &Role::Power("Prussia".into()), at(1))
        .expect("Prussia resigns");
    for (p, bid) in [
        ("France", "BID 6 Denmark"),
        ("England", "BID 4 Portugal"),
        ("Austria", "BID 3 Bavaria"),
        ("Russia", "BID 3 Sweden"),
    ] {
        j.orders("g", p, bid, Author::Player, at(1)).expect("bids");
    }
    let (_, report) = tick(&mut j, &cfg, at(2)).expect("tick");
    let bids = TickEvent::Processed {
        game: "g".into(),
        phase: "Winter 1800 Bids".into(),
    };
    assert_eq!(report.done, [bids], "{report:?}");
    // Spring 1801 (deadline at(50), grace to at(74)) and Autumn: France orders in the grace.
    for (late, end) in [(60, 80), (140, 160)] {
        j.orders("g", "France", "A Par H", Author::Player, at(late))
            .expect("France, late");
        let (_, report) = tick(&mut j, &cfg, at(end)).expect("tick");
        assert!(
            report
                .done
                .iter()
                .any(|e| matches!(e, TickEvent::Processed { .. })),
            "{report:?}"
        );
    }
    let seated: Vec<String> = j
        .view()
        .players(game.id)
        .expect("players")
        .into_iter()
        .map(|p| p.role.to_string())
        .collect();
    assert_eq!(seated, ["France", "GM"]);
    let changes = j.view().seat_changes(game.id).expect("changes");
    let abandoned: Vec<&str> = changes
        .iter()
        .filter(|c| c.kind == ChangeKind::Abandoned)
        .map(|c| c.power.as_str())
        .collect();
    assert_eq!(abandoned, ["Austria", "England", "Russia"]);
}
