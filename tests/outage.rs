//! Issue 19, part 4 (findings 7 and 10, and the outgoing body of finding 1): the outbox through
//! outages, driven by the real binary (`napjudge --now T outbox send --smtp ...`) against the real
//! SMTP server on loopback (`smtp/server.rs`), which the tests start late (an outage), make
//! refuse a recipient for now (4xx) or for good (5xx), or stall on a message's DATA.

use crate::server;

use chrono::{DateTime, Duration, Utc};
use napjudge_judge::{parse_time, Mail, MailKind, MailState, Store};
use std::collections::HashMap;
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Condvar, Mutex};

const T0: &str = "2026-07-01T12:00:00Z";

/// What the server does, changed by the test while it runs.
#[derive(Default)]
struct Behaviour {
    /// Recipients refused, with the reply line to RCPT (`451 ...`, `554 ...`).
    refuse: HashMap<String, String>,
    /// A recipient whose next message is held (no reply to its DATA) until `stalling` is false.
    stall: Option<String>,
    stalling: bool,
}

/// The server's side: every message taken, and what to refuse or stall.
#[derive(Clone, Default)]
struct Server {
    taken: Arc<Mutex<Vec<server::Accepted>>>,
    behaviour: Arc<(Mutex<Behaviour>, Condvar)>,
}

impl server::Mailbox for Server {
    fn refusal(&self, to: &str) -> Option<String> {
        let b = self.behaviour.0.lock().expect("behaviour");
        b.refuse.get(to).cloned()
    }

    fn accept(&self, m: server::Accepted) {
        let (lock, released) = &*self.behaviour;
        let mut b = lock.lock().expect("behaviour");
        if b.stall.as_ref().is_some_and(|s| m.to.contains(s)) {
            // Only the first message to it stalls: a second copy is taken at once.
            b.stall = None;
            b.stalling = true;
            while b.stalling {
                b = released.wait(b).expect("behaviour");
            }
        }
        drop(b);
        self.taken.lock().expect("taken").push(m);
    }
}

impl Server {
    /// Starts the server on `port`; it runs until the test process ends.
    fn start(&self, port: u16) {
        let listener = TcpListener::bind(("127.0.0.1", port)).expect("the port is free");
        server::serve(listener, None, self.clone());
    }

    fn refuse(&self, to: &str, reply: &str) {
        let mut b = self.behaviour.0.lock().expect("behaviour");
        b.refuse.insert(to.to_string(), reply.to_string());
    }

    fn take_again(&self, to: &str) {
        self.behaviour
            .0
            .lock()
            .expect("behaviour")
            .refuse
            .remove(to);
    }

    fn stall(&self, to: &str) {
        self.behaviour.0.lock().expect("behaviour").stall = Some(to.to_string());
    }

    fn release(&self) {
        let (lock, released) = &*self.behaviour;
        lock.lock().expect("behaviour").stalling = false;
        released.notify_all();
    }

    /// The messages taken for `to`.
    fn copies(&self, to: &str) -> Vec<String> {
        let taken = self.taken.lock().expect("taken");
        taken
            .iter()
            .filter(|m| m.to.iter().any(|t| t == to))
            .map(|m| m.data.clone())
            .collect()
    }

    fn count(&self) -> usize {
        self.taken.lock().expect("taken").len()
    }
}

/// A port nothing listens on (yet).
fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("a free port");
    l.local_addr().expect("addr").port()
}

fn time(s: &str) -> DateTime<Utc> {
    parse_time(s).expect("time")
}

/// A game `g` whose Winter 1800 is processed (its result mails queued, without pictures), in a
/// scratch folder with `config` as its napjudge.toml.
struct Judged {
    dir: PathBuf,
    db: PathBuf,
    config: PathBuf,
    /// How many mails the set-up queued (the seats' mails and the notice of the setting).
    setup: usize,
}

impl Judged {
    fn new(name: &str, config: &str) -> Judged {
        let dir = crate::intake::scratch(name);
        let db = dir.join("judge.db");
        let setup = crate::golden::results_queued(&db, time(T0), |p| {
            format!("{}@example.org", p.to_lowercase())
        });
        let config_file = dir.join("napjudge.toml");
        let text = format!("[judge]\naddress = \"judge@example.org\"\n{config}");
        std::fs::write(&config_file, text).expect("config");
        Judged {
            dir,
            db,
            config: config_file,
            setup,
        }
    }

    fn command(&self, now: DateTime<Utc>, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_napjudge"));
        c.arg("--now")
            .arg(now.to_rfc3339())
            .arg("--db")
            .arg(&self.db)
            .arg("--config")
            .arg(&self.config)
            .args(args)
            .env_remove("NAPJUDGE_CONFIG")
            .env_remove("NAPJUDGE_FROM")
            .current_dir(&self.dir);
        c
    }

    fn run(&self, now: DateTime<Utc>, args: &[&str]) -> Output {
        self.command(now, args).output().expect("napjudge runs")
    }

    /// `outbox send --smtp smtp://127.0.0.1:PORT` at `now`: (standard output, standard error).
    fn send(&self, now: DateTime<Utc>, port: u16) -> (String, String) {
        let o = self.run(
            now,
            &send_args(port)
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
        );
        (
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    }

    /// The mails queued after the set-up's (which went at once), oldest first.
    fn mails(&self) -> Vec<Mail> {
        let st = Store::open(&self.db).expect("db");
        let mut all = crate::golden::queued(st.view());
        all.drain(..self.setup.min(all.len()));
        all
    }

    fn mail_to(&self, to: &str, kind: MailKind) -> Mail {
        self.mails()
            .into_iter()
            .find(|m| m.to == to && m.kind == kind)
            .unwrap_or_else(|| panic!("a {kind} mail to {to}"))
    }

    /// The results mails (every mail but the GM's notices).
    fn results(&self) -> Vec<Mail> {
        let mails = self.mails();
        mails
            .into_iter()
            .filter(|m| m.kind == MailKind::Results)
            .collect()
    }
}

fn send_args(port: u16) -> Vec<String> {
    ["outbox", "send", "--smtp"]
        .iter()
        .map(|s| s.to_string())
        .chain([format!("smtp://127.0.0.1:{port}")])
        .collect()
}

/// Finding 7: an outage of more than eight tries (635 minutes, after which today's judge gave
/// every mail up) keeps every mail queued, retried at most a day apart; when the server returns,
/// they are delivered.
#[test]
fn an_outage_of_more_than_eight_tries_keeps_the_mails_until_the_server_returns() {
    let port = free_port();
    let s = Judged::new("outage-long", "");
    let n = s.results().len();
    let mut now = time(T0);
    let mut waits = Vec::new();
    for _ in 0..12 {
        let (out, _) = s.send(now, port);
        assert!(
            out.contains(&format!("0 sent, {n} failed, 0 given up")),
            "{out}"
        );
        let next = s.results()[0].next_try.expect("a next try");
        waits.push((next - now).num_minutes());
        now = next;
    }
    assert_eq!(
        waits,
        [5, 10, 20, 40, 80, 160, 320, 640, 1280, 1440, 1440, 1440],
        "back-off doubling to daily"
    );
    for m in s.mails() {
        assert_eq!((m.state, m.tries), (MailState::Failed, 12), "{m:?}");
    }
    let server = Server::default();
    server.start(port);
    let (out, _) = s.send(now, port);
    assert!(
        out.contains(&format!("{n} sent, 0 failed, 0 given up")),
        "{out}"
    );
    assert_eq!(server.count(), n);
    assert!(s.mails().iter().all(|m| m.state == MailState::Sent));
}

/// Finding 7: past `retry_days` an unreachable server's mails are given up (the GM told), and
/// they go again by themselves as soon as a send reaches the server.
#[test]
fn mails_given_up_in_an_outage_go_again_when_the_server_returns() {
    let port = free_port();
    let s = Judged::new("outage-requeue", "[outbox]\nretry_days = 1\n");
    let n = s.results().len();
    let (out, _) = s.send(time(T0), port);
    assert!(out.contains(&format!("0 sent, {n} failed")), "{out}");
    // Tried a day later: past the day, so given up.
    let (out, _) = s.send(time("2026-07-02T12:00:00Z"), port);
    assert!(
        out.contains(&format!("0 sent, 0 failed, {n} given up")),
        "{out}"
    );
    assert!(s
        .results()
        .iter()
        .all(|m| m.state == MailState::Undeliverable));
    let notices = s.mails().len() - n;
    assert_eq!(notices, n, "the GM is told of each");

    let server = Server::default();
    server.start(port);
    let (out, _) = s.send(time("2026-07-02T13:00:00Z"), port);
    assert!(
        out.contains(&format!("{n} sent, 0 failed, 0 given up")),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "{n} mail(s) given up while the server was unreachable queued again"
        )),
        "{out}"
    );
    let (out, _) = s.send(time("2026-07-02T13:05:00Z"), port);
    assert!(out.contains(&format!("{n} sent, 0 failed")), "{out}");
    assert_eq!(server.count(), 2 * n);
    let sent_ids: Vec<_> = s.results().iter().map(|m| m.message_id.clone()).collect();
    for (id, to) in sent_ids
        .iter()
        .zip(s.results().iter().map(|m| m.to.clone()))
    {
        let copies = server.copies(&to);
        let id = id.as_deref().expect("a Message-ID");
        assert!(
            copies.iter().any(|d| d.contains(id)),
            "{to}: the Message-ID of its first try"
        );
    }
}

/// Finding 7: a refusal for good (5xx) gives the mail up at once, the GM told; a refusal for
/// now (4xx) is retried; `outbox retry ID` queues a given-up mail again, and says what to fix
/// for an id that isn't one.
#[test]
fn a_permanent_refusal_is_given_up_at_once_and_outbox_retry_sends_it_again() {
    let port = free_port();
    let server = Server::default();
    server.refuse("france@example.org", "554 5.7.1 rejected by policy");
    server.refuse("prussia@example.org", "451 4.3.0 try again later");
    server.start(port);
    let s = Judged::new("outage-refused", "");
    let n = s.results().len();
    let (out, _) = s.send(time(T0), port);
    assert!(
        out.contains(&format!("{} sent, 1 failed, 1 given up", n - 2)),
        "{out}"
    );
    let france = s.mail_to("france@example.org", MailKind::Results);
    assert_eq!(france.state, MailState::Undeliverable);
    assert!(france.error.as_deref().is_some_and(|e| e.contains("554")));
    let prussia = s.mail_to("prussia@example.org", MailKind::Results);
    assert_eq!(prussia.state, MailState::Failed, "a 4xx is retried");
    let notice = s.mail_to("gm@example.org", MailKind::Undeliverable);
    assert!(
        notice.body.contains("france@example.org"),
        "{}",
        notice.body
    );
    assert!(
        notice
            .body
            .contains(&format!("napjudge outbox retry {}", france.id)),
        "{}",
        notice.body
    );

    // Bad ids say what to fix and change nothing.
    let before = s.mails();
    let o = s.run(time(T0), &["outbox", "retry", "999999"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no mail 999999"), "{err}");
    let sent = s.mail_to("austria@example.org", MailKind::Results);
    let o = s.run(time(T0), &["outbox", "retry", &sent.id.to_string()]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("is sent, not given up"), "{err}");
    let o = s.run(time(T0), &["outbox", "retry"]);
    assert!(!o.status.success(), "an id or --all is needed");
    assert_eq!(s.mails(), before);

    server.take_again("france@example.org");
    let o = s.run(time(T0), &["outbox", "retry", &france.id.to_string()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains(&format!("mail {} queued again", france.id)),
        "{out}"
    );
    assert_eq!(
        s.mail_to("france@example.org", MailKind::Results).state,
        MailState::Queued
    );
    let (out, _) = s.send(time("2026-07-01T12:01:00Z"), port);
    assert!(
        out.contains("2 sent"),
        "the mail and the GM's notice: {out}"
    );
    let copies = server.copies("france@example.org");
    assert_eq!(copies.len(), 1);
    let id = france.message_id.expect("a Message-ID");
    assert!(
        copies[0].contains(&id),
        "sent with the Message-ID of its first try"
    );
}

/// Finding 7: the GM's notice of a mail given up is never given up itself: it stays in the
/// outbox (listed), tried daily, and every send says on standard error that it waits.
#[test]
fn the_gms_notice_is_never_given_up_silently() {
    let port = free_port();
    let server = Server::default();
    server.refuse("france@example.org", "550 5.1.1 no such mailbox");
    server.start(port);
    let s = Judged::new(
        "outage-notice",
        "[outbox]\nretry_days = 1\nretry_limit = 2\n",
    );
    let (out, _) = s.send(time(T0), port);
    assert!(out.contains("1 given up"), "{out}");
    // The GM's mailbox goes too: the notice can't be delivered, neither for days nor in tries.
    server.refuse("gm@example.org", "550 5.1.1 no such mailbox");
    let mut now = time(T0);
    for _ in 0..5 {
        now += Duration::days(1);
        let (_, err) = s.send(now, port);
        let notice = s.mail_to("gm@example.org", MailKind::Undeliverable);
        assert_eq!(
            notice.state,
            MailState::Failed,
            "never given up: {notice:?}"
        );
        assert_eq!(
            notice.next_try,
            Some(now + Duration::days(1)),
            "a refused notice is tried daily"
        );
        assert!(
            err.contains(&format!(
                "the GM's notice {} to gm@example.org is not delivered",
                notice.id
            )),
            "{err}"
        );
    }
    let list = s.run(now, &["outbox", "list"]);
    let list = String::from_utf8_lossy(&list.stdout);
    let notice = s.mail_to("gm@example.org", MailKind::Undeliverable);
    assert!(
        list.lines()
            .any(|l| l.starts_with(&format!("{}\tfailed\t", notice.id)) && l.contains("550")),
        "{list}"
    );
    server.take_again("gm@example.org");
    let (out, err) = s.send(now + Duration::days(1), port);
    assert!(out.contains("1 sent"), "{out}");
    assert!(!err.contains("notice"), "{err}");
    assert_eq!(
        server.copies("gm@example.org").len(),
        2,
        "the GM's results mail, then the notice"
    );
}

/// Finding 10: a try that outlasts the ten-minute claim (a server that holds the DATA's reply)
/// is not sent again by a second `outbox send`: the first holds the outbox while it runs.
#[test]
fn a_second_send_does_not_send_a_mail_whose_try_outlasts_the_claim() {
    let port = free_port();
    let server = Server::default();
    server.stall("france@example.org");
    server.start(port);
    let s = Judged::new("outage-claim", "");
    let n = s.results().len();
    let first = s
        .command(
            time(T0),
            &send_args(port)
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("napjudge runs");
    // The whole message is in, its reply held.
    let waited = std::time::Instant::now();
    while !server.behaviour.0.lock().expect("behaviour").stalling {
        assert!(
            waited.elapsed().as_secs() < 30,
            "the stalled mail never came"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    // Eleven minutes on by the second sender's clock: past the first one's claim.
    let (out, err) = s.send(time("2026-07-01T12:11:00Z"), port);
    server.release();
    let first = first.wait_with_output().expect("the first send ends");
    let first_out = String::from_utf8_lossy(&first.stdout);
    assert_eq!(
        server.copies("france@example.org").len(),
        1,
        "sent once; the first: {first_out}\nthe second: {out}{err}"
    );
    assert!(
        first.status.success(),
        "{first_out}\nthe second: {out}{err}"
    );
    assert!(first_out.contains(&format!("{n} sent")), "{first_out}");
    assert!(out.contains("another outbox send is running"), "{out}{err}");
    assert_eq!(server.count(), n);
}

/// Finding 1's outgoing half: a large body (4 MB of long lines, accents, lines starting with a
/// dot) goes in one piece and arrives with its bytes, line ends made CRLF.
#[test]
fn a_large_body_arrives_whole_with_its_bytes() {
    let port = free_port();
    let server = Server::default();
    server.start(port);
    let s = Judged::new("outage-large", "");
    let mut body = String::new();
    let mut i = 0;
    while body.len() < 4_000_000 {
        i += 1;
        match i % 4 {
            0 => body.push_str(&format!(".{i} a line starting with a dot\n")),
            1 => body.push_str(&format!("{i} Zürich, Málaga, Kraków: ")),
            2 => body.push_str(&"A(Par)-Bur ".repeat(120)),
            _ => body.push_str(&format!("line {i} of ordinary text\n")),
        }
    }
    body.push_str("\nthe end\n");
    // The judge queues no reply this large, so the mail is queued by hand, as the store would.
    let conn = rusqlite::Connection::open(&s.db).expect("db");
    conn.execute(
        "INSERT INTO outbox (kind, recipient, subject, body, state, tries, created)
         VALUES ('reply', 'big@example.org', 'Re: help', ?1, 'queued', 0, ?2)",
        rusqlite::params![body, T0],
    )
    .expect("queued");
    drop(conn);
    let (out, err) = s.send(time(T0), port);
    assert!(out.contains("0 failed"), "{out}{err}");
    let copies = server.copies("big@example.org");
    assert_eq!(copies.len(), 1);
    let taken = server.taken.lock().expect("taken");
    assert!(
        taken.iter().all(|m| m.from == "judge@example.org"),
        "the envelope's sender"
    );
    drop(taken);
    let parsed = mail_parser::MessageParser::default()
        .parse(copies[0].as_bytes())
        .expect("the message parses");
    let got = parsed
        .body_text(0)
        .expect("a text body")
        .replace("\r\n", "\n");
    // Compared by hand: a failing assert_eq would print 4 MB twice.
    let same = got
        .bytes()
        .zip(body.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    assert!(
        got.len() == body.len() && same == body.len(),
        "the body's bytes differ from byte {same} (got {} bytes, queued {}): {:?} against {:?}",
        got.len(),
        body.len(),
        got.get(same.saturating_sub(40)..(same + 40).min(got.len())),
        body.get(same.saturating_sub(40)..(same + 40).min(body.len())),
    );
}

/// A server on `port` that refuses the judge at its greeting with `554`, for every connection,
/// until the test process ends.
fn refuse_at_greeting(port: u16) {
    let listener = TcpListener::bind(("127.0.0.1", port)).expect("the port is free");
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let _ = std::io::Write::write_all(
                &mut stream,
                b"554 5.7.1 no SMTP service here for you\r\n",
            );
        }
    });
}

/// Issue 31, finding 7: a `554` at the greeting (ten hours of it gave 112 mails up for good)
/// refuses the judge, not a recipient: every mail stays queued for a retry, and a server that
/// takes them later gets them all.
#[test]
fn a_refusal_at_the_greeting_is_an_outage_not_a_refused_recipient() {
    let port = free_port();
    let s = Judged::new("greeting-554", "");
    let n = s.results().len();
    let total = s.mails().len();
    refuse_at_greeting(port);
    let now = time(T0);
    let (out, err) = s.send(now, port);
    assert!(
        out.contains(&format!("0 sent, {total} failed, 0 given up")),
        "{out}{err}"
    );
    for m in s.mails() {
        assert_eq!(m.state, MailState::Failed, "kept for a retry: {m:?}");
        assert!(m.next_try.is_some(), "{m:?}");
    }
    let good = free_port();
    let server = Server::default();
    server.start(good);
    let later = s.results()[0].next_try.expect("a next try");
    let (out, err) = s.send(later, good);
    assert!(
        out.contains(&format!("{total} sent, 0 failed, 0 given up")),
        "{out}{err}"
    );
    assert_eq!(server.count(), total);
    assert!(n > 0 && s.mails().iter().all(|m| m.state == MailState::Sent));
}
