//! Issue 21, part 3 (press as the game allows, the board on request, addresses): golden mails.
//! `tests/mail/press/NN-name.eml` are raw mails fed in order to `mail::receive` on a real SQLite
//! file holding four games, one per press option: `grey` (grey press allowed, the GM's copy
//! on), `open` (public press only), `quiet` (no press) and `gun` (anonymous players); the
//! `NN-name.out` files are the exact mails each one queued. Steps named `bad-*` must leave every
//! game as it was (press included). `NAPJUDGE_BLESS=1 cargo test --release --test suite mail_press::` rewrites
//! the `.out` files: review their diff.
//!
//! A second test sends a MAP's reply through the real SMTP server on loopback
//! (`smtp/server.rs`) with the real binary, and finds the PNG in the delivered mail.

use crate::golden;
use crate::intake;

use chrono::{DateTime, Utc};
use golden::{server, FivePowers, Folder, Outbox};
use intake::{config, scratch};
use napjudge_judge::{parse_time, receive, Handled, Judge, Mail, PressMode, PressRules, Store};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

fn at(hours: i64) -> DateTime<Utc> {
    parse_time("2026-07-01T10:00:00Z").expect("time") + chrono::Duration::hours(hours)
}

/// The four games, each the standard five players and GM (known passwords), started.
fn new_judge(db: &Path) -> Judge {
    let mut j = Judge::new(Store::open(db).expect("db"));
    let games = [
        ("grey", PressMode::Grey, false, true),
        ("open", PressMode::Public, false, false),
        ("quiet", PressMode::None, false, false),
        ("gun", PressMode::White, true, false),
    ];
    for (name, mode, anonymous, gm_copy) in games {
        FivePowers {
            press: PressRules {
                mode,
                anonymous,
                gm_copy,
            },
            ..FivePowers::new(name)
        }
        .set_up(&mut j, at(0));
    }
    j
}

/// Every table a mail may change, as text: a bad mail leaves it as it was.
fn judge_state(db: &Path) -> String {
    golden::game_state(
        db,
        &[
            "SELECT name, state, grace, pictures, options, press, anonymous, gm_copy FROM games",
            "SELECT id, sender, recipients, body, grey FROM press ORDER BY id",
        ],
    )
}

/// A queued mail as the golden files show it: its headers, what it carries, its body.
fn show(j: &Judge, m: &Mail) -> String {
    let carries = match (m.picture, j.view().mail_png(m.id).expect("png")) {
        (Some(_), _) => "Picture: the phase's stored picture\n".to_string(),
        (None, Some(png)) => format!(
            "Picture: drawn for this mail ({})\n",
            if png.starts_with(b"\x89PNG\r\n\x1a\n") {
                "a PNG"
            } else {
                "NOT A PNG"
            }
        ),
        (None, None) => String::new(),
    };
    format!(
        "To: {}\nSubject: {}\nKind: {}\n{carries}\n{}=====\n",
        m.to, m.subject, m.kind, m.body
    )
}

/// The scenario's mails in order.
fn steps(folder: &Folder) -> Vec<PathBuf> {
    folder.steps(&["eml"])
}

/// Issue 21, part 3: grey press (its recipients don't learn the sender, the GM's copy does),
/// a public-only game refusing PRESS TO, a press-free game (the GM's broadcast still goes), a
/// gunboat game's LIST without addresses, HISTORY PRESS, MAP with its picture, a SIGNON from a
/// new address and the copy to the registered one, SET ADDRESS told to both, the GM's SET
/// PASSWORD and SET PRESS; the bad inputs change nothing.
#[test]
fn press_options_history_map_and_addresses_by_mail() {
    let dir = scratch("mail-press");
    let db = dir.join("judge.db");
    let mut j = new_judge(&db);
    let mut folder = Folder::new("press");
    let steps = steps(&folder);
    assert!(steps.len() >= 20, "the scenario's mails are there");
    let mut outbox = Outbox::after(j.view());
    for (i, step) in steps.iter().enumerate() {
        let name = golden::name(step);
        let now = at(i as i64 + 1);
        let raw = std::fs::read(step).expect("mail");
        let before = judge_state(&db);
        let handled = golden::receive(&mut j, &raw, now);
        assert_eq!(handled, Handled::Answered, "{name}");
        if name.contains("-bad-") {
            assert_eq!(before, judge_state(&db), "{name} changed the judge's state");
        }
        let new = outbox.new_mails(j.view());
        folder.check(&name, &new.iter().map(|m| show(&j, m)).collect::<String>());
    }
    folder.finish();
}

/// Issue 21: grey press never names its sender to those it went to; in the gunboat game no
/// mail to a player names another player's address (results, notices, press, replies).
#[test]
fn grey_press_and_anonymous_players_leak_nothing() {
    let dir = scratch("mail-press-leaks");
    let db = dir.join("judge.db");
    let mut j = new_judge(&db);
    for (i, step) in steps(&Folder::new("press")).iter().enumerate() {
        let raw = std::fs::read(step).expect("mail");
        golden::receive(&mut j, &raw, at(i as i64 + 1));
    }
    let games = j.view().games().expect("games");
    let id = |name: &str| games.iter().find(|g| g.name == name).expect("game").id;
    let press = j.view().press(id("grey")).expect("press");
    let grey: Vec<_> = press.iter().filter(|p| p.grey).collect();
    assert!(grey.len() >= 2, "{press:?}");
    let mails = golden::queued(j.view());
    for m in mails
        .iter()
        .filter(|m| m.kind == napjudge_judge::MailKind::Press)
    {
        let copy = m.subject.contains("copy of");
        for p in &grey {
            if m.body.contains(p.body.trim_end()) && !copy {
                assert!(
                    !m.body.contains(&format!("from {}", p.sender)),
                    "grey press names its sender: {}",
                    m.body
                );
            }
        }
    }
    let players = j.view().players(id("gun")).expect("players");
    for m in mails.iter().filter(|m| m.game == "gun") {
        for p in players.iter().filter(|p| p.address.as_str() != m.to) {
            if p.role.power().is_some() {
                assert!(
                    !m.body.contains(p.address.as_str()),
                    "a mail to {} names {}'s address:\n{}",
                    m.to,
                    p.role,
                    m.body
                );
            }
        }
    }
}

/// One message as the loopback server took it.
#[derive(Clone, Default)]
struct Catcher {
    log: Arc<Mutex<Vec<server::Accepted>>>,
}

impl server::Mailbox for Catcher {
    fn accept(&self, m: server::Accepted) {
        self.log.lock().expect("log").push(m);
    }
}

/// Issue 21: MAP's reply, sent by the real binary through the real SMTP server on loopback,
/// arrives with the picture of the board attached as a PNG.
#[test]
fn a_map_reply_arrives_by_smtp_with_its_png() {
    let dir = scratch("mail-press-smtp");
    let db = dir.join("judge.db");
    let mut j = new_judge(&db);
    let raw = b"From: France <france@example.org>\r\nTo: judge@napjudge.invalid\r\n\
                Subject: the board\r\nMessage-ID: <map.smtp@example.org>\r\n\
                Date: Wed, 1 Jul 2026 11:00:00 +0000\r\n\r\nSIGNON France grey pw-france\r\nMAP\r\n";
    let handled = receive(&mut j, &config(), raw, at(1)).expect("stored");
    assert_eq!(handled, Handled::Answered);
    drop(j);
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
    let port = listener.local_addr().expect("addr").port();
    let catcher = Catcher::default();
    let log = Arc::clone(&catcher.log);
    server::serve(listener, None, catcher);
    let o = Command::new(env!("CARGO_BIN_EXE_napjudge"))
        .args(["--now", "2026-07-01T11:00:00Z", "--db"])
        .arg(&db)
        .args([
            "outbox",
            "send",
            "--smtp",
            &format!("smtp://127.0.0.1:{port}"),
        ])
        .env_remove("NAPJUDGE_CONFIG")
        .env("NAPJUDGE_FROM", "judge@example.org")
        .current_dir(&dir)
        .output()
        .expect("napjudge runs");
    assert!(o.status.success(), "{o:?}");
    let log = log.lock().expect("log");
    let reply = log
        .iter()
        .find(|m| m.data.contains("Subject: Re: the board"))
        .expect("the MAP's reply was delivered");
    assert_eq!(reply.to, vec!["france@example.org".to_string()]);
    assert_eq!(
        reply.from, "judge@example.org",
        "the judge's address (NAPJUDGE_FROM)"
    );
    assert!(reply.data.contains("multipart/mixed"), "{}", reply.data);
    assert!(
        reply.data.contains("filename=\"grey-board.png\""),
        "{}",
        &reply.data[..reply.data.len().min(3000)]
    );
    assert!(reply.data.contains("Content-Type: image/png"));
    // The attachment's first bytes, base64: the PNG signature (89 50 4E 47 0D 0A 1A 0A).
    assert!(reply.data.contains("iVBORw0KGgo"), "no PNG in the mail");
}

/// Issue 21: the press options at the shell. `game create --press` with a word that is no
/// option is refused, naming the options, and makes no game; `game set NAME press WORD` with
/// one is refused and changes nothing; a good one is stored and told to everyone.
#[test]
fn press_options_at_the_shell_refuse_unknown_words() {
    let dir = scratch("mail-press-cli");
    let db = dir.join("judge.db");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_napjudge"))
            .args(["--now", "2026-07-01T10:00:00Z", "--db"])
            .arg(&db)
            .args(args)
            .env_remove("NAPJUDGE_CONFIG")
            .output()
            .expect("napjudge runs")
    };
    // `game create g` with the press options `press`.
    let create = |press: &[&str]| {
        let head = ["game", "create", "g", "--gm", "gm@example.org", "--press"];
        run(&[&head[..], press].concat())
    };
    let o = create(&["shades"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("'shades' is not a press option: write white, grey, public or none"),
        "{err}"
    );
    let games = |db: &Path| {
        Store::open(db)
            .ok()
            .map(|s| s.view().games().expect("games"))
            .unwrap_or_default()
    };
    assert!(games(&db).is_empty(), "no game was made");
    let o = create(&["GREY", "--anonymous"]);
    assert!(o.status.success(), "{o:?}");
    let made = games(&db);
    assert_eq!(
        made[0].press,
        PressRules {
            mode: PressMode::Grey,
            anonymous: true,
            gm_copy: false
        }
    );
    let o = run(&["game", "set", "g", "press", "shades"]);
    assert!(!o.status.success());
    assert_eq!(games(&db)[0].press, made[0].press, "nothing changed");
    let o = run(&["game", "set", "g", "gm-copy", "on"]);
    assert!(o.status.success(), "{o:?}");
    assert!(games(&db)[0].press.gm_copy);
}
