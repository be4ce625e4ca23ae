//! Issues 20 and 21: every game setting through one framework, golden. `tests/mail/settings/`
//! holds the steps of one game on a real SQLite file, in order, an hour apart: `NN-name.cmd`
//! runs the real `napjudge` binary with the command line it holds, `NN-name.eml` gives a raw
//! mail to `mail::receive`. `NN-name.out` holds what a command printed and every mail the step
//! queued. Steps named `-bad-` must leave the game as it was (its settings in every row they
//! live in, players, choices, GM actions, ending).
//! `NAPJUDGE_BLESS=1 cargo test --release --test suite mail_settings::` rewrites the `.out` files: review them.

use crate::golden;
use crate::intake;

use chrono::Duration;
use golden::{Folder, Outbox, Shell};
use intake::scratch;
use napjudge_judge::{parse_time, Judge, Setting, Store};
use std::path::Path;

/// Every row a setting, or a refused one, could touch, as text.
fn game_state(db: &Path) -> String {
    if !db.exists() {
        return String::new();
    }
    golden::dump(
        db,
        &[
            "SELECT * FROM games ORDER BY id",
            "SELECT * FROM seat_rules ORDER BY game",
            "SELECT * FROM game_timing ORDER BY game",
            "SELECT * FROM choices ORDER BY game, power",
            "SELECT power, address, password_hash FROM players ORDER BY power",
            "SELECT id, action FROM gm_actions ORDER BY id",
            "SELECT id, seq, deadline FROM phases ORDER BY id",
            "SELECT * FROM endings ORDER BY game",
        ],
    )
}

#[test]
fn every_setting_by_shell_and_by_mail_with_its_notice() {
    let db = scratch("settings").join("judge.db");
    let shell = Shell::new(&db);
    let mut folder = Folder::new("settings");
    let steps = folder.steps(&["cmd", "eml"]);
    assert!(steps.len() >= 30, "the scenario's steps are there");
    let mut now = parse_time("2026-12-01T08:00:00Z").expect("time");
    let mut outbox = Outbox::default();
    for step in &steps {
        let name = golden::name(step);
        let text = std::fs::read_to_string(step).expect("step");
        let before = game_state(&db);
        now += Duration::hours(1);
        let mut got = String::new();
        if step.extension().is_some_and(|e| e == "cmd") {
            got = shell.transcript(now, text.trim());
        } else {
            let mut j = Judge::new(Store::open(&db).expect("db"));
            golden::receive(&mut j, text.as_bytes(), now);
        }
        if name.contains("-bad-") {
            assert_eq!(before, game_state(&db), "{name} changed the game");
        }
        let store = Store::open(&db).expect("db");
        got.push_str(&outbox.shown(store.view()));
        folder.check(&name, &got);
    }
    folder.finish();
}

/// Issues 20 and 21: `game show` (and so LIST) shows every setting the judge has, in the words
/// `game set` takes, each read back by `game set` unchanged.
#[test]
fn game_show_shows_every_setting_in_game_set_words() {
    let db = scratch("settings-show").join("judge.db");
    let shell = Shell::new(&db);
    let now = parse_time("2026-12-01T08:00:00Z").expect("time");
    let made = shell.run(
        now,
        &[
            "game",
            "create",
            "g",
            "--gm",
            "gm@example.org",
            "--delay",
            "90m",
        ],
        b"",
    );
    assert_eq!(made.code, 0, "{}", made.stderr);
    let show = shell.run(now, &["game", "show", "g"], b"").stdout;
    let block: String = show
        .lines()
        .skip_while(|l| !l.starts_with("Settings:"))
        .take_while(|l| !l.starts_with("Players:"))
        .collect::<Vec<_>>()
        .join(" ");
    let items: Vec<&str> = block
        .trim_start_matches("Settings:")
        .split(',')
        .map(str::trim)
        .collect();
    let keys: Vec<&str> = items.iter().filter_map(|i| i.split(' ').next()).collect();
    // Every key, as the judge lists them to whoever writes one it doesn't know.
    let unknown = Setting::parse("no-such-key", "")
        .expect_err("not a key")
        .to_string();
    let (_, all) = unknown.split_once("the settings are ").expect("the keys");
    assert_eq!(keys, all.split(", ").collect::<Vec<_>>(), "{show}");
    assert!(items.contains(&"delay 1h30m"), "{show}");
    for item in &items {
        let (key, value) = item.split_once(' ').expect("KEY VALUE");
        let set = shell.run(now, &["game", "set", "g", key, value], b"");
        assert_eq!((set.code, set.stdout), (0, format!("g: {item}\n")));
    }
    // Each setting set to what it showed: the game shows the same.
    assert_eq!(shell.run(now, &["game", "show", "g"], b"").stdout, show);
}
