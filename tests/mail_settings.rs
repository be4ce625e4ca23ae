//! Issues 20 and 21: every game setting through one framework, golden. `tests/mail/settings/`
//! holds the steps of one game on a real SQLite file, in order, an hour apart: `NN-name.cmd`
//! runs the real `napjudge` binary with the file's lines as its arguments (one a line),
//! `NN-name.eml` gives a raw mail to `mail::receive`. `NN-name.out` holds what a command
//! printed and every mail the step queued. Steps named `-bad-` must leave the game as it was
//! (its settings in every row they live in, players, choices, GM actions, ending).
//! `NAPJUDGE_BLESS=1 cargo test --test mail_settings` rewrites the `.out` files: review them.

mod golden;
mod intake;

use chrono::{DateTime, Duration, Utc};
use intake::{config, scratch};
use napjudge_judge::clock::parse_time;
use napjudge_judge::mail::{self, Handled};
use napjudge_judge::settings::KEYS;
use napjudge_judge::store::Store;
use napjudge_judge::Judge;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `napjudge --now NOW --db DB ARGS`: its exit code, then what it printed.
fn napjudge(db: &Path, now: DateTime<Utc>, args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_napjudge"))
        .args(["--now", &now.to_rfc3339(), "--db"])
        .arg(db)
        .args(args)
        .env_remove("NAPJUDGE_CONFIG")
        .output()
        .expect("napjudge runs");
    format!(
        "exit: {}\n{}{}",
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

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
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mail/settings");
    let mut steps: Vec<PathBuf> = std::fs::read_dir(&golden)
        .expect("tests/mail/settings")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e != "out"))
        .collect();
    steps.sort();
    assert!(steps.len() >= 30, "the scenario's steps are there");
    let bless = std::env::var_os("NAPJUDGE_BLESS").is_some();
    let mut now = parse_time("2026-12-01T08:00:00Z").expect("time");
    let mut seen = 0;
    let mut failures = Vec::new();
    for step in &steps {
        let name = step.file_stem().expect("name").to_string_lossy();
        let text = std::fs::read_to_string(step).expect("step");
        let before = game_state(&db);
        now += Duration::hours(1);
        let printed = match step.extension().and_then(|e| e.to_str()) {
            Some("cmd") => napjudge(&db, now, &text.lines().collect::<Vec<_>>()),
            Some("eml") => {
                let mut j = Judge::new(Store::open(&db).expect("db"));
                let handled = mail::receive(&mut j, &config(), text.as_bytes(), now);
                assert!(
                    matches!(handled, Ok(Handled::Answered)),
                    "{name}: {handled:?}"
                );
                String::new()
            }
            other => panic!("{name}: a step is .cmd or .eml, not {other:?}"),
        };
        if name.contains("-bad-") {
            assert_eq!(before, game_state(&db), "{name} changed the game");
        }
        let mails = Store::open(&db)
            .expect("db")
            .view()
            .mails(None)
            .expect("outbox");
        let got = printed
            + &mails
                .get(seen..)
                .unwrap_or_default()
                .iter()
                .map(golden::show)
                .collect::<String>();
        seen = mails.len();
        let out = golden.join(format!("{name}.out"));
        if bless {
            std::fs::write(&out, &got).expect("write golden");
        } else if std::fs::read_to_string(&out).unwrap_or_default() != got {
            failures.push(format!("{name}:\n{got}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Issues 20 and 21: `game show` (and so LIST) shows every setting the judge has, in the words
/// `game set` takes, each read back by `game set` unchanged.
#[test]
fn game_show_shows_every_setting_in_game_set_words() {
    let db = scratch("settings-show").join("judge.db");
    let now = parse_time("2026-12-01T08:00:00Z").expect("time");
    let made = napjudge(
        &db,
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
    );
    assert!(made.starts_with("exit: 0"), "{made}");
    let show = napjudge(&db, now, &["game", "show", "g"]);
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
    assert_eq!(
        keys,
        KEYS.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
        "{show}"
    );
    assert!(items.contains(&"delay 1h30m"), "{show}");
    for item in &items {
        let (key, value) = item.split_once(' ').expect("KEY VALUE");
        let set = napjudge(&db, now, &["game", "set", "g", key, value]);
        assert_eq!(set, format!("exit: 0\ng: {item}\n"));
    }
    // Each setting set to what it showed: the game shows the same.
    assert_eq!(napjudge(&db, now, &["game", "show", "g"]), show);
}
