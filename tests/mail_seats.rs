//! Issue 20, part 2 (seats and observers), golden: `tests/mail/seats/NN-name.*` are the steps
//! of one game, run in order on a real SQLite file, and `NN-name.out` the exact mails each step
//! queued (and, for a shell step, what the `napjudge` binary printed). A step is
//! - `NN-name.eml`: a raw mail given to `mail::receive`, an hour after the step before;
//! - `NN-name.tick`: the clock moved on by the hours the file holds, then `mail::tick`;
//! - `NN-name.cmd`: `napjudge` run with the arguments the file holds (one a line).
//!
//! The game abandons a power after 2 phases in a row without orders. Codes and passwords are
//! random: each one a step mails or prints is shown as `{{CODE}}` or `{{PASSWORD}}`, and the
//! same markers in a later mail stand for the latest one. Steps named `bad-*` must leave the
//! game untouched. `NAPJUDGE_BLESS=1 cargo test --test mail_seats` rewrites the `.out` files.

use chrono::{DateTime, Utc};
use napjudge_judge::clock::{parse_time, Period};
use napjudge_judge::game::{Judge, NewGame};
use napjudge_judge::mail::{self, Handled};
use napjudge_judge::store::{ChangeKind, Periods, Store};
use napjudge_judge::{Author, Role, Setting};
use std::path::{Path, PathBuf};
use std::process::Command;
mod golden;
mod intake;
use intake::{config, scratch};

fn at(hours: i64) -> DateTime<Utc> {
    parse_time("2026-07-01T10:00:00Z").expect("time") + chrono::Duration::hours(hours)
}

/// Five players with known passwords, the GM's mail password, abandonment after 2 phases.
fn new_game(db: &Path) -> Judge {
    let mut j = Judge::new(Store::open(db).expect("db"));
    j.create(
        &NewGame {
            name: "g".into(),
            variant: "napoleonic".into(),
            gm: "gm@example.org".into(),
            timezone: "UTC".into(),
            periods: Periods {
                movement: Period::hours(48),
                retreat: Period::hours(24),
                winter: Period::hours(48),
                grace: Period::hours(24),
                remind: Period::hours(12),
            },
            wait: false,
            options: Vec::new(),
            pictures: false,
            press: Default::default(),
        },
        at(0),
    )
    .expect("create");
    j.set("g", &Setting::Abandon(2), at(0)).expect("seat rules");
    for p in ["France", "England", "Austria", "Prussia", "Russia"] {
        let lower = p.to_lowercase();
        j.assign(
            "g",
            p,
            &format!("{lower}@example.org"),
            Some(&format!("pw-{lower}")),
            at(0),
        )
        .expect("assign");
    }
    j.assign("g", "GM", "gm@example.org", Some("gm-pw"), at(0))
        .expect("the GM's password");
    j.start("g", at(0)).expect("start");
    j
}

/// Every table a seat command may change, as text: a bad step leaves it as it was.
fn game_state(db: &Path) -> String {
    golden::dump(
        db,
        &[
            "SELECT id, seq, report IS NOT NULL, deadline, superseded FROM phases ORDER BY id",
            "SELECT id, phase, power, text, by FROM orders ORDER BY id",
            "SELECT power, address, password_hash, missed FROM players ORDER BY power",
            "SELECT id, action FROM gm_actions ORDER BY id",
            "SELECT * FROM seat_changes ORDER BY id",
            "SELECT * FROM takeover_codes ORDER BY id",
            "SELECT * FROM observers ORDER BY address",
            "SELECT * FROM press ORDER BY rowid",
        ],
    )
}

/// The random secrets a step's text shows (a code, a password): the latest of each is kept.
#[derive(Default)]
struct Secrets {
    code: Option<String>,
    password: Option<String>,
}

impl Secrets {
    /// Learns the secrets `text` shows.
    fn learn(&mut self, text: &str) {
        for line in text.lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                ["Your", "password:", pw] => self.password = Some(pw.to_string()),
                ["TAKEOVER", _, _, code] if *code != "CODE" => self.code = Some(code.to_string()),
                [.., "takeover", "code", "for", _, code] => self.code = Some(code.to_string()),
                _ => {}
            }
        }
    }

    /// `text` with the secrets as their markers.
    fn hide(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (secret, marker) in [(&self.code, "{{CODE}}"), (&self.password, "{{PASSWORD}}")] {
            if let Some(s) = secret {
                out = out.replace(s.as_str(), marker);
            }
        }
        out
    }

    /// `text` with the markers as the secrets.
    fn fill(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (secret, marker) in [(&self.code, "{{CODE}}"), (&self.password, "{{PASSWORD}}")] {
            if let Some(s) = secret {
                out = out.replace(marker, s.as_str());
            }
        }
        out
    }
}

#[test]
fn seats_change_hands_and_observers_watch() {
    let dir = scratch("seats-golden");
    let db = dir.join("judge.db");
    let mut j = new_game(&db);
    let cfg = config();
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mail/seats");
    let mut steps: Vec<PathBuf> = std::fs::read_dir(&golden)
        .expect("tests/mail/seats")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e != "out"))
        .collect();
    steps.sort();
    assert!(steps.len() >= 25, "the scenario's steps are there");
    let bless = std::env::var_os("NAPJUDGE_BLESS").is_some();
    let mut seen = j.view().mails(None).expect("outbox").len();
    let mut secrets = Secrets::default();
    let mut hours = 0;
    let mut failures = Vec::new();
    for step in &steps {
        let name = step
            .file_stem()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let ext = step
            .extension()
            .expect("ext")
            .to_string_lossy()
            .into_owned();
        let text = secrets.fill(&std::fs::read_to_string(step).expect("step"));
        let before = game_state(&db);
        let mut printed = String::new();
        match ext.as_str() {
            "eml" => {
                hours += 1;
                let handled =
                    mail::receive(&mut j, &cfg, text.as_bytes(), at(hours)).expect("stored");
                assert!(matches!(handled, Handled::Answered), "{name}: {handled:?}");
            }
            "tick" => {
                hours += text.trim().parse::<i64>().expect("hours");
                let (_, report) = mail::tick(&mut j, &cfg, at(hours)).expect("tick");
                assert!(report.failed.is_empty(), "{name}: {report:?}");
                printed = report.done.iter().map(|l| format!("tick: {l}\n")).collect();
            }
            "cmd" => {
                hours += 1;
                let now = at(hours).to_rfc3339();
                let o = Command::new(env!("CARGO_BIN_EXE_napjudge"))
                    .args(["--now", &now, "--db"])
                    .arg(&db)
                    .args(text.lines())
                    .output()
                    .expect("napjudge runs");
                printed = format!(
                    "exit: {}\n{}{}",
                    o.status.code().unwrap_or(-1),
                    String::from_utf8_lossy(&o.stdout),
                    String::from_utf8_lossy(&o.stderr)
                );
            }
            other => panic!("{name}: a step is .eml, .tick or .cmd, not .{other}"),
        }
        if name.contains("-bad-") {
            assert_eq!(before, game_state(&db), "{name} changed the game");
        }
        let mails = j.view().mails(None).expect("outbox");
        let new = &mails[seen..];
        seen = mails.len();
        let got: String = printed + &new.iter().map(golden::show).collect::<String>();
        secrets.learn(&got);
        let got = secrets.hide(&got);
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
    let (_, report) = mail::tick(&mut j, &cfg, at(2)).expect("tick");
    assert_eq!(report.done, ["g: processed Winter 1800 Bids"], "{report:?}");
    // Spring 1801 (deadline at(50), grace to at(74)) and Autumn: France orders in the grace.
    for (late, end) in [(60, 80), (140, 160)] {
        j.orders("g", "France", "A Par H", Author::Player, at(late))
            .expect("France, late");
        let (_, report) = mail::tick(&mut j, &cfg, at(end)).expect("tick");
        assert!(
            report.done.iter().any(|d| d.contains("processed")),
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
