//! Issue 22, IMAP intake: `napjudge mail poll --imap` against a real Dovecot on loopback
//! (`imap/dovecot.rs`), with implicit TLS and a login. New mail is answered and moved; a wrong
//! password is a clear error and nothing is lost; a message stored by a run killed before it
//! moved the message is moved by the next run and answered once; a server dropped mid-fetch
//! loses nothing and answers nothing twice; 500 mails waiting are all taken in one poll; a
//! server without MOVE (Dovecot's `imap_capability` without it) gets copies and `\Deleted`
//! flags, and only the judge's flagged messages are expunged, when it has UIDPLUS.

// Shared with other test binaries: not every helper is used here.
#[allow(dead_code)]
use crate::dovecot;
// Shared with other test binaries: not every helper is used here.
#[allow(dead_code)]
use crate::intake;

use dovecot::{mail, Dovecot, PASSWORD};
use napjudge_judge::{Judge, MailKind, Store};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A judge's folder: an empty database and a napjudge.toml with `imap` as its `[imap]`.
fn judge_dir(name: &str, imap: &str) -> (PathBuf, PathBuf) {
    let dir = intake::scratch(name);
    let db = dir.join("napjudge.db");
    drop(Store::open(&db).expect("db"));
    std::fs::write(
        dir.join("napjudge.toml"),
        format!("[judge]\naddress = \"judge@example.org\"\n{imap}"),
    )
    .expect("config");
    (dir, db)
}

/// `napjudge --db DB mail poll --imap` (the config found beside the database), with `password`
/// in the variable the config names.
fn poll(db: &Path, password: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_napjudge"))
        .arg("--db")
        .arg(db)
        .args(["mail", "poll", "--imap"])
        .env("NAPJUDGE_TEST_IMAP", password)
        .env_remove("NAPJUDGE_CONFIG")
        .env_remove("NAPJUDGE_FROM")
        .output()
        .expect("napjudge runs")
}

/// The replies queued, by recipient.
fn replies(db: &Path) -> Vec<String> {
    let st = Store::open(db).expect("db");
    crate::golden::queued(st.view())
        .into_iter()
        .filter(|m| m.kind == MailKind::Reply)
        .map(|m| m.to)
        .collect()
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr)
}

#[test]
fn new_mail_is_answered_then_moved() {
    let d = Dovecot::start(&intake::scratch("imap-new-server"));
    let (_dir, db) = judge_dir("imap-new", &d.config());
    d.deliver(&mail("alice@example.org", "a1", "HELP"));
    d.deliver(&mail("bob@example.org", "b1", "HELP"));
    let o = poll(&db, PASSWORD);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(text(&o).matches(": answered").count(), 2, "{}", text(&o));
    assert_eq!(d.count("INBOX"), 0);
    assert_eq!(d.count("napjudge-answered"), 2);
    let mut to = replies(&db);
    to.sort();
    assert_eq!(to, ["alice@example.org", "bob@example.org"]);
    // Polled again: nothing there, nothing answered twice.
    let o = poll(&db, PASSWORD);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(replies(&db).len(), 2);
}

/// A wrong password: exit 75 with the server's refusal and what to check, and the mail stays
/// in the mailbox, unread.
#[test]
fn a_wrong_password_is_a_clear_error_and_nothing_is_lost() {
    let d = Dovecot::start(&intake::scratch("imap-password-server"));
    let (_dir, db) = judge_dir("imap-password", &d.config());
    d.deliver(&mail("alice@example.org", "a1", "HELP"));
    let o = poll(&db, "not-the-password");
    assert_eq!(o.status.code(), Some(75), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("the login of judge was refused") && err.contains("app password"),
        "{err}"
    );
    assert_eq!(d.count("INBOX"), 1);
    assert!(replies(&db).is_empty());
    let o = poll(&db, PASSWORD);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(replies(&db), ["alice@example.org"]);
}

/// A run killed after storing a message and before moving it: the message is stored (and
/// answered) and still in INBOX. The next run moves it without answering it again.
#[test]
fn a_message_stored_before_a_kill_is_moved_and_answered_once() {
    let d = Dovecot::start(&intake::scratch("imap-kill-server"));
    let (_dir, db) = judge_dir("imap-kill", &d.config());
    let m = mail("alice@example.org", "a1", "HELP");
    d.deliver(&m);
    // What the killed run did: the same bytes stored and answered (Dovecot serves them as
    // delivered, with CRLF line ends).
    {
        let mut j = Judge::new(Store::open(&db).expect("db"));
        let mut cfg = intake::config();
        cfg.judge = "judge@example.org".into();
        napjudge_judge::receive(&mut j, &cfg, m.as_bytes(), chrono::Utc::now()).expect("stored");
    }
    assert_eq!(replies(&db).len(), 1);
    let o = poll(&db, PASSWORD);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("stored by an earlier poll"),
        "{}",
        text(&o)
    );
    assert_eq!(d.count("INBOX"), 0);
    assert_eq!(d.count("napjudge-answered"), 1);
    assert_eq!(replies(&db), ["alice@example.org"], "answered once");
}

/// A proxy to `port` that passes `budget` bytes from the server, then drops both sides: the
/// server lost in the middle of a fetch.
fn cutting_proxy(port: u16, budget: usize) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("proxy");
    let proxy = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        let Ok((client, _)) = listener.accept() else {
            return;
        };
        let Ok(server) = TcpStream::connect(("127.0.0.1", port)) else {
            return;
        };
        let (mut c_in, mut s_out) = (
            client.try_clone().expect("clone"),
            server.try_clone().expect("clone"),
        );
        std::thread::spawn(move || {
            let _ = std::io::copy(&mut c_in, &mut s_out);
        });
        let (mut s_in, mut c_out) = (server, client);
        let mut left = budget;
        let mut buf = [0u8; 4096];
        while left > 0 {
            let n = match s_in.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n.min(left),
            };
            if c_out.write_all(&buf[..n]).is_err() {
                break;
            }
            left -= n;
        }
        let _ = c_out.shutdown(std::net::Shutdown::Both);
        let _ = s_in.shutdown(std::net::Shutdown::Both);
    });
    proxy
}

/// The connection lost in the middle of the fetches: the poll says so (exit 75); the messages
/// taken before are stored and moved, the rest stay; the next poll takes them, and every
/// message is answered once.
#[test]
fn a_server_dropped_mid_fetch_loses_nothing() {
    let d = Dovecot::start(&intake::scratch("imap-drop-server"));
    let filler = "x".repeat(2000);
    for i in 0..20 {
        d.deliver(&mail(
            &format!("p{i}@example.org"),
            &format!("m{i}"),
            &format!("HELP\r\n\r\n{filler}"),
        ));
    }
    let proxy = cutting_proxy(d.port, 25_000);
    let cut = d
        .config()
        .replace(&format!("port = {}", d.port), &format!("port = {proxy}"));
    let (dir, db) = judge_dir("imap-drop", &cut);
    let o = poll(&db, PASSWORD);
    assert_eq!(o.status.code(), Some(75), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("stays in the folder"),
        "{}",
        text(&o)
    );
    let first = replies(&db).len();
    assert!(first < 20, "the cut came after every fetch: {}", text(&o));
    assert_eq!(d.count("INBOX") + d.count("napjudge-answered"), 20);
    std::fs::write(
        dir.join("napjudge.toml"),
        format!("[judge]\naddress = \"judge@example.org\"\n{}", d.config()),
    )
    .expect("config");
    let o = poll(&db, PASSWORD);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(d.count("INBOX"), 0);
    let mut to = replies(&db);
    to.sort();
    to.dedup();
    assert_eq!(to.len(), 20, "every sender answered");
    assert_eq!(replies(&db).len(), 20, "none twice");
}

/// 500 mails waiting when the judge starts: one poll takes them all, each answered once.
#[test]
fn five_hundred_mails_waiting_at_start_are_all_taken() {
    let d = Dovecot::start(&intake::scratch("imap-500-server"));
    let (_dir, db) = judge_dir("imap-500", &d.config());
    for i in 0..500 {
        d.deliver(&mail(
            &format!("p{i}@example.org"),
            &format!("m{i}"),
            "HELP",
        ));
    }
    let o = poll(&db, PASSWORD);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(d.count("INBOX"), 0);
    assert_eq!(d.count("napjudge-answered"), 500);
    assert_eq!(replies(&db).len(), 500);
}

/// Some of Dovecot's capabilities, without MOVE and (unless `uidplus`) UIDPLUS: a server
/// without them, as the client sees it after the login.
fn without_move(uidplus: bool) -> String {
    format!(
        "imap_capability = IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE IDLE SORT THREAD=REFS \
         LITERAL+ NAMESPACE UNSELECT CHILDREN ESEARCH{}\n",
        if uidplus { " UIDPLUS" } else { "" }
    )
}

/// A server without MOVE (with UIDPLUS when `uidplus`) holding a message another client
/// flagged `\Deleted` and two HELPs, polled once, which must succeed: the server, the judge's
/// database and the poll's output.
fn polled_without_move(name: &str, uidplus: bool) -> (Dovecot, PathBuf, Output) {
    let server = intake::scratch(&format!("{name}-server"));
    let d = Dovecot::start_with(&server, &without_move(uidplus));
    let (_dir, db) = judge_dir(name, &d.config());
    d.deliver_deleted(&mail("carol@example.org", "c1", "HELP"));
    d.deliver(&mail("alice@example.org", "a1", "HELP"));
    d.deliver(&mail("bob@example.org", "b1", "HELP"));
    let o = poll(&db, PASSWORD);
    assert!(o.status.success(), "{}", text(&o));
    (d, db, o)
}

/// Issue 22: a server without MOVE or UIDPLUS. Dovecot still runs MOVE when it is sent, so what
/// proves the client chose the fallback is what it leaves: each answered message copied to the
/// done folder and left in INBOX flagged `\Deleted` (a MOVE would have emptied INBOX), skipped
/// by the next poll (nothing answered twice); a message another client flagged is not taken.
#[test]
fn without_move_answered_mail_is_copied_and_flagged_deleted() {
    let (d, db, o) = polled_without_move("imap-nomove", false);
    assert_eq!(text(&o).matches(": answered").count(), 2, "{}", text(&o));
    assert_eq!(d.count("napjudge-answered"), 2);
    assert_eq!((d.count("INBOX"), d.flagged_deleted("INBOX")), (3, 3));
    // Polled again with a new message: only it is answered.
    d.deliver(&mail("dave@example.org", "d1", "HELP"));
    let o = poll(&db, PASSWORD);
    assert!(o.status.success(), "{}", text(&o));
    let mut to = replies(&db);
    to.sort();
    assert_eq!(
        to,
        ["alice@example.org", "bob@example.org", "dave@example.org"]
    );
    assert_eq!(d.count("napjudge-answered"), 3);
    assert_eq!((d.count("INBOX"), d.flagged_deleted("INBOX")), (4, 4));
}

/// Issue 22: without MOVE but with UIDPLUS, the copies flagged are expunged (UID EXPUNGE of
/// the messages the poll flagged, not of every `\Deleted`): INBOX keeps only the message
/// another client flagged.
#[test]
fn without_move_with_uidplus_only_the_judges_copies_are_expunged() {
    let (d, db, _) = polled_without_move("imap-uidplus", true);
    assert_eq!(replies(&db).len(), 2);
    assert_eq!(d.count("napjudge-answered"), 2);
    assert_eq!((d.count("INBOX"), d.flagged_deleted("INBOX")), (1, 1));
}
