//! Issue 20, part 1: the GM's changes told to everyone. `tests/mail/notices/NN-name.*` is a
//! game run step by step through the real `napjudge` binary on a real SQLite file: a `.cmd`
//! step is a shell command (`game start g`, `game set g grace 12h`), a `.eml` step a mail
//! given to `napjudge mail receive`; `NN-name.out` holds what the command printed and the
//! exact mails each step queued. A step's time is its `at:` line (a `.cmd`), else an hour
//! after the step before. Steps named `-bad-` must leave the game as it was. At the end the
//! outbox goes through `outbox send` to the real SMTP server of `tests/smtp/server.rs`.
//! `NAPJUDGE_BLESS=1 cargo test --test mail_notices` rewrites the `.out` files: review them.

mod golden;
mod intake;
#[path = "smtp/server.rs"]
mod server;

use chrono::{DateTime, Duration, Utc};
use intake::{config, scratch};
use napjudge_judge::clock::parse_time;
use napjudge_judge::store::Store;
use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

/// The words of a command line, with "double quotes" around a word that has spaces.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            c => {
                word.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(word);
    }
    out
}

/// Runs `napjudge --db DB --now NOW ARGS` with `input` on standard input.
fn napjudge(db: &Path, now: DateTime<Utc>, args: &[String], input: &[u8]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_napjudge"))
        .arg("--now")
        .arg(now.to_rfc3339())
        .arg("--db")
        .arg(db)
        .args(args)
        .env("NAPJUDGE_CONFIG", config_file())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("napjudge runs");
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(input).expect("stdin");
    }
    child.wait_with_output().expect("napjudge ends")
}

/// A napjudge.toml naming the judge's address the mails tell players to write to.
fn config_file() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mail_notices-config");
    std::fs::create_dir_all(&dir).expect("config folder");
    let path = dir.join("napjudge.toml");
    let toml = format!("[judge]\naddress = \"{}\"\n", config().judge);
    std::fs::write(&path, toml).expect("config");
    path
}

/// What a step may change in a game, as text: a bad step leaves it as it was.
fn game_state(db: &Path) -> String {
    golden::dump(
        db,
        &[
            "SELECT id, seq, report IS NOT NULL, deadline, superseded FROM phases ORDER BY id",
            "SELECT id, phase, power, text, by FROM orders ORDER BY id",
            "SELECT power, address, password_hash FROM players ORDER BY power",
            "SELECT id, action FROM gm_actions ORDER BY id",
            "SELECT state, timezone, movement, retreat, winter, grace, remind, wait, pictures FROM games",
        ],
    )
}

/// The mails the server accepted.
#[derive(Clone, Default)]
struct Catcher(Arc<Mutex<Vec<server::Accepted>>>);

impl server::Mailbox for Catcher {
    fn accept(&self, m: server::Accepted) {
        self.0.lock().expect("log").push(m);
    }
}

#[test]
fn every_gm_change_is_noticed_to_everyone() {
    let dir = scratch("notices");
    let db = dir.join("judge.db");
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mail/notices");
    let mut steps: Vec<PathBuf> = std::fs::read_dir(&golden)
        .expect("tests/mail/notices")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "eml" || e == "cmd"))
        .collect();
    steps.sort();
    assert!(steps.len() >= 20, "the scenario's steps are there");
    let bless = std::env::var_os("NAPJUDGE_BLESS").is_some();
    let mut now = parse_time("2026-11-30T09:00:00Z").expect("time");
    let mut seen = 0;
    let mut failures = Vec::new();
    for step in &steps {
        let name = step
            .file_stem()
            .expect("name")
            .to_string_lossy()
            .into_owned();
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
            let o = napjudge(&db, now, &words(line), b"");
            got.push_str(&format!(
                "$ napjudge {line}\nexit {}\n{}{}",
                o.status.code().unwrap_or(-1),
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            ));
        } else {
            now += Duration::hours(1);
            let o = napjudge(&db, now, &["mail".into(), "receive".into()], &text);
            assert!(o.status.success(), "{name}: {o:?}");
        }
        if name.contains("-bad-") {
            assert_eq!(before, Some(game_state(&db)), "{name} changed the game");
        }
        let mails = Store::open(&db)
            .expect("db")
            .view()
            .mails(None)
            .expect("outbox");
        got.extend(
            mails
                .get(seen..)
                .unwrap_or_default()
                .iter()
                .map(golden::show),
        );
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

    // End to end: the outbox, notices and all, through a real SMTP server on loopback.
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
    let port = listener.local_addr().expect("addr").port();
    let catcher = Catcher::default();
    server::serve(listener, None, catcher.clone());
    let o = napjudge(
        &db,
        now,
        &[
            "outbox".into(),
            "send".into(),
            "--smtp".into(),
            format!("smtp://127.0.0.1:{port}"),
            // Not from the placeholder the mails name: SMTP refuses it (issue 22).
            "--from".into(),
            "judge@example.org".into(),
        ],
        b"",
    );
    assert!(o.status.success(), "{o:?}");
    let queued = Store::open(&db)
        .expect("db")
        .view()
        .mails(None)
        .expect("outbox");
    let got = catcher.0.lock().expect("log");
    assert_eq!(got.len(), queued.len(), "every mail was delivered");
    let notices: Vec<&server::Accepted> = got
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
            .all(|m| m.from == "judge@example.org"
                && m.data.contains("Auto-Submitted: auto-generated")),
        "a notice is the judge's automatic mail"
    );
}
