//! Issue 10, mail out: the outbox delivered by the real binary (`napjudge outbox send --smtp`) to a
//! real SMTP server on loopback started by the test (`smtp/server.rs`, plain or with STARTTLS). Results arrive with their
//! stored Message-ID and `Auto-Submitted`; with the server down nothing is lost and the mails
//! arrive once it is up; the retry limit gives a mail up and mails the GM; a send killed while
//! the server takes a mail sends it again later with the same Message-ID.

use crate::server;

use napjudge_judge::{parse_time, Mail, MailKind, MailState, Store};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

const T0: &str = "2026-07-01T12:00:00Z";

/// One message as the server took it.
#[derive(Clone, Debug, Default)]
struct Received {
    from: String,
    to: Vec<String>,
    data: String,
}

impl Received {
    /// A header's value (unfolded lines are enough for the headers checked here).
    fn header(&self, name: &str) -> Option<&str> {
        let head = self.data.split("\r\n\r\n").next().unwrap_or_default();
        head.lines().find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }
}

/// The server's side: each accepted message is added to the shared log. A recipient at
/// `refused.example.org` is refused for good (550), as a server does for an unknown mailbox; a
/// message to `slow@example.org` is answered only after two seconds (time to kill the sender).
#[derive(Clone, Default)]
struct Catcher {
    log: Log,
    /// The recipients of every message whose DATA began.
    started: Started,
}

impl server::Mailbox for Catcher {
    fn takes(&self, to: &str) -> bool {
        !to.contains("@refused.example.org")
    }

    fn begun(&self, to: &[String]) {
        self.started
            .lock()
            .expect("started")
            .extend(to.iter().cloned());
    }

    fn accept(&self, m: server::Accepted) {
        // Long enough for the test to kill the sender before it hears the 250.
        if m.to.iter().any(|t| t == "slow@example.org") {
            std::thread::sleep(std::time::Duration::from_secs(1));
        }
        self.log.lock().expect("log").push(Received {
            from: m.from,
            to: m.to,
            data: m.data,
        });
    }
}

type Log = Arc<Mutex<Vec<Received>>>;
type Started = Arc<Mutex<Vec<String>>>;

/// A port nothing listens on (yet).
fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("a free port");
    l.local_addr().expect("addr").port()
}

/// Starts a real SMTP server on `port`; it runs until the test process ends.
fn start_server(port: u16) -> Log {
    start_server_watched(port).0
}

/// The same, with the recipients of each message begun.
fn start_server_watched(port: u16) -> (Log, Started) {
    let catcher = Catcher::default();
    let seen = (Arc::clone(&catcher.log), Arc::clone(&catcher.started));
    server::serve(listen(port), None, catcher);
    seen
}

/// A server with STARTTLS (a certificate for `localhost` from the test CA `tests/smtp/ca.pem`)
/// that wants a login (AUTH PLAIN, offered only once the connection is encrypted).
fn start_tls_server(port: u16, user: &'static str, password: &'static str) -> Log {
    let certs = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/smtp");
    let catcher = Catcher::default();
    let log = Arc::clone(&catcher.log);
    let secure = server::Secure {
        cert: &certs.join("server.pem"),
        key: &certs.join("server.key"),
        login: (user, password),
    };
    server::serve(listen(port), Some(secure), catcher);
    log
}

fn listen(port: u16) -> TcpListener {
    TcpListener::bind(("127.0.0.1", port)).expect("the port is free")
}

struct Judged {
    dir: PathBuf,
    db: PathBuf,
    /// How many mails the set-up queued (the seats' mails and the notice of the setting).
    setup: usize,
}

impl Judged {
    /// A game `g` whose Winter 1800 is processed: its result mails are queued. `france` is the
    /// French player's address.
    fn new(name: &str, france: &str) -> Judged {
        let dir = crate::intake::scratch(name);
        let db = dir.join("judge.db");
        let setup = crate::golden::results_queued(&db, parse_time(T0).expect("time"), |p| {
            if p == "France" {
                france.to_string()
            } else {
                format!("{}@example.org", p.to_lowercase())
            }
        });
        Judged { dir, db, setup }
    }

    /// Runs `napjudge --now NOW ARGS` in the scratch folder, the judge's address given (issue
    /// 22: nothing is sent by SMTP from the placeholder address).
    fn run(&self, now: &str, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_napjudge"))
            .args(["--now", now, "--db"])
            .arg(&self.db)
            .args(args)
            .env_remove("NAPJUDGE_CONFIG")
            .env("NAPJUDGE_FROM", "judge@example.org")
            .current_dir(&self.dir)
            .output()
            .expect("napjudge runs")
    }

    /// `outbox send --smtp smtp://127.0.0.1:PORT`, plus `extra`; (success, standard output).
    fn send(&self, now: &str, port: u16, extra: &[&str]) -> (bool, String) {
        let url = format!("smtp://127.0.0.1:{port}");
        let mut args = vec!["outbox", "send", "--smtp", url.as_str()];
        args.extend_from_slice(extra);
        let o = self.run(now, &args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.is_empty() || !o.status.success(), "{err}");
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stdout).into_owned() + &err,
        )
    }

    /// The mails queued after the set-up's (which went at once), oldest first.
    fn mails(&self) -> Vec<Mail> {
        let st = Store::open(&self.db).expect("db");
        let mut all = crate::golden::queued(st.view());
        all.drain(..self.setup.min(all.len()));
        all
    }
}

fn time(s: &str) -> chrono::DateTime<chrono::Utc> {
    parse_time(s).expect("time")
}

#[test]
fn results_arrive_by_smtp_with_their_message_id_and_auto_submitted() {
    let port = free_port();
    let log = start_server(port);
    let s = Judged::new("smtp-arrive", "france@example.org");
    let queued = s.mails();
    assert!(queued.len() >= 6, "a results mail per player and the GM");
    let (ok, out) = s.send(T0, port, &["--from", "judge@example.org"]);
    assert!(ok, "{out}");
    assert!(
        out.contains(&format!("{} sent, 0 failed, 0 given up", queued.len())),
        "{out}"
    );

    let got = log.lock().expect("log").clone();
    assert_eq!(got.len(), queued.len());
    for mail in s.mails() {
        assert_eq!(mail.state, MailState::Sent);
        let id = mail
            .message_id
            .expect("a Message-ID is stored with the mail");
        assert!(id.ends_with("@example.org>"), "{id}: the judge's domain");
        let r = got
            .iter()
            .find(|r| r.header("Message-ID") == Some(id.as_str()))
            .expect("the server got the mail with its stored Message-ID");
        assert_eq!(r.to, vec![mail.to.clone()]);
        assert_eq!(r.from, "judge@example.org");
        assert_eq!(r.header("Auto-Submitted"), Some("auto-generated"));
        assert_eq!(r.header("Subject"), Some(mail.subject.as_str()));
    }
    // Every Message-ID is different.
    let mut ids: Vec<_> = got.iter().map(|r| r.header("Message-ID")).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), got.len());

    // Sent once: a second send sends nothing.
    let (ok, out) = s.send(T0, port, &[]);
    assert!(ok && out.contains("0 sent, 0 failed"), "{out}");
    assert_eq!(log.lock().expect("log").len(), queued.len());
}

#[test]
fn with_the_server_down_the_outbox_keeps_the_mails_until_it_is_up() {
    let port = free_port();
    let s = Judged::new("smtp-down", "france@example.org");
    let n = s.mails().len();
    let (ok, out) = s.send(T0, port, &[]);
    assert!(!ok, "a failed send exits non-zero for cron: {out}");
    assert!(
        out.contains(&format!("0 sent, {n} failed, 0 given up")),
        "{out}"
    );
    let after_first = s.mails();
    for m in &after_first {
        assert_eq!((m.state.word(), m.tries), ("failed", 1), "{m:?}");
        assert_eq!(
            m.next_try,
            Some(time("2026-07-01T12:05:00Z")),
            "first back-off: 5 minutes"
        );
        assert!(m.message_id.is_some());
    }
    let list = s.run(T0, &["outbox", "list"]);
    let list = String::from_utf8_lossy(&list.stdout);
    assert!(
        list.contains("\tnot before 2026-07-01T12:05:00+00:00"),
        "{list}"
    );
    // Before the back-off is over nothing is tried.
    let (ok, out) = s.send("2026-07-01T12:04:00Z", port, &[]);
    assert!(ok && out.contains("0 sent, 0 failed, 0 given up"), "{out}");

    let log = start_server(port);
    let (ok, out) = s.send("2026-07-01T12:06:00Z", port, &[]);
    assert!(ok, "{out}");
    assert!(out.contains(&format!("{n} sent, 0 failed")), "{out}");
    let got = log.lock().expect("log").clone();
    assert_eq!(got.len(), n);
    for m in &after_first {
        let id = m.message_id.as_deref();
        assert!(
            got.iter().any(|r| r.header("Message-ID") == id),
            "{id:?}: the Message-ID fixed at the failed try is the one sent"
        );
    }
    for (now, before) in s.mails().iter().zip(&after_first) {
        assert_eq!((now.state.word(), now.tries), ("sent", 2));
        assert_eq!(
            now.message_id, before.message_id,
            "the stored Message-ID never changes"
        );
    }
}

#[test]
fn the_retry_limit_gives_a_mail_up_and_mails_the_gm() {
    let port = free_port();
    let s = Judged::new("smtp-limit", "france@example.org");
    let config = s.dir.join("judge.toml");
    std::fs::write(
        &config,
        "[judge]\naddress = \"judge@example.org\"\n[outbox]\nretry_limit = 2\nretry_minutes = 1\n",
    )
    .expect("config");
    let cfg = config.to_str().expect("utf-8");
    let n = s.mails().len();
    let (_, out) = s.send(T0, port, &["--config", cfg]);
    assert!(
        out.contains(&format!("0 sent, {n} failed, 0 given up")),
        "{out}"
    );
    // The second try is the last (retry_limit = 2): every mail is given up, the GM told of each.
    let (ok, out) = s.send("2026-07-01T12:01:00Z", port, &["--config", cfg]);
    assert!(!ok);
    assert!(
        out.contains(&format!("0 sent, 0 failed, {n} given up")),
        "{out}"
    );
    let mails = s.mails();
    let reports: Vec<&Mail> = mails
        .iter()
        .filter(|m| m.kind == MailKind::Undeliverable)
        .collect();
    assert_eq!(reports.len(), n);
    assert!(reports
        .iter()
        .all(|m| m.to == "gm@example.org" && m.state == MailState::Queued));
    assert!(mails
        .iter()
        .filter(|m| m.kind != MailKind::Undeliverable)
        .all(|m| m.state == MailState::Undeliverable && m.tries == 2));

    // Once the server is up, the GM's reports arrive; the given-up mails stay given up.
    let log = start_server(port);
    let (ok, out) = s.send("2026-07-01T12:02:00Z", port, &["--config", cfg]);
    assert!(ok, "{out}");
    assert!(
        out.contains(&format!("{n} sent, 0 failed, 0 given up")),
        "{out}"
    );
    let got = log.lock().expect("log").clone();
    assert_eq!(got.len(), n);
    let r = got
        .iter()
        .find(|r| r.data.contains("To:         france@example.org"))
        .expect("a report names the French player's mail");
    assert_eq!(r.to, vec!["gm@example.org".to_string()]);
    assert_eq!(r.header("Auto-Submitted"), Some("auto-generated"));
    assert!(r.data.contains("after 2 tries"), "{}", r.data);
}

/// A refusal for good (550, an unknown mailbox) gives that mail up at once (issue 19, finding 7:
/// retrying a 5xx can't help; `outbox retry` sends it again), and the others go in the same run.
#[test]
fn a_refused_recipient_is_given_up_alone_at_once_and_the_gm_told() {
    let port = free_port();
    let log = start_server(port);
    let s = Judged::new("smtp-refused", "france@refused.example.org");
    let n = s.mails().len();
    let (ok, out) = s.send(T0, port, &[]);
    assert!(!ok, "{out}");
    assert!(
        out.contains(&format!("{} sent, 0 failed, 1 given up", n - 1)),
        "{out}"
    );
    assert!(
        out.contains("to france@refused.example.org: ") && out.contains("550"),
        "{out}"
    );
    let mails = s.mails();
    let refused = mails
        .iter()
        .find(|m| m.to == "france@refused.example.org")
        .expect("France's mail");
    assert_eq!((refused.state.word(), refused.tries), ("undeliverable", 1));
    assert!(
        refused.error.as_deref().is_some_and(|e| e.contains("550")),
        "{refused:?}"
    );
    // The report goes on the next send (it was queued during that one).
    let (ok, out) = s.send("2026-07-01T12:01:00Z", port, &[]);
    assert!(ok && out.contains("1 sent, 0 failed"), "{out}");
    let got = log.lock().expect("log").clone();
    assert_eq!(got.len(), n);
    let report = got.last().expect("the report");
    assert_eq!(report.to, vec!["gm@example.org".to_string()]);
    assert!(
        report.data.contains("france@refused.example.org"),
        "{}",
        report.data
    );
    assert!(report.data.contains("550"), "{}", report.data);
}

#[test]
fn a_send_killed_mid_send_loses_nothing_and_resends_with_the_same_message_id() {
    let port = free_port();
    let (log, started) = start_server_watched(port);
    let s = Judged::new("smtp-killed", "slow@example.org");
    let n = s.mails().len();
    let url = format!("smtp://127.0.0.1:{port}");
    let mut child = Command::new(env!("CARGO_BIN_EXE_napjudge"))
        .args(["--now", T0, "--db"])
        .arg(&s.db)
        .args(["outbox", "send", "--smtp", &url])
        .env_remove("NAPJUDGE_CONFIG")
        .env("NAPJUDGE_FROM", "judge@example.org")
        .current_dir(&s.dir)
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("napjudge runs");
    // Killed once the slow message's DATA began: the server then accepts it, but the judge
    // never hears so.
    let waited = std::time::Instant::now();
    while !started
        .lock()
        .expect("started")
        .iter()
        .any(|t| t == "slow@example.org")
    {
        assert!(waited.elapsed().as_secs() < 20, "the slow mail never began");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().expect("kill");
    child.wait().expect("reaped");
    // The server accepts it once its pause is over: wait for that, not a fixed time.
    let waited = std::time::Instant::now();
    while !log
        .lock()
        .expect("log")
        .iter()
        .any(|r| r.to.iter().any(|t| t == "slow@example.org"))
    {
        assert!(
            waited.elapsed().as_secs() < 20,
            "the slow mail was never accepted"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let slow = s
        .mails()
        .into_iter()
        .find(|m| m.to == "slow@example.org")
        .expect("France's mail");
    assert_eq!(
        slow.state,
        MailState::Queued,
        "not marked sent: the judge never heard the 250"
    );
    let id = slow
        .message_id
        .clone()
        .expect("its Message-ID was fixed before the try");
    assert_eq!(
        slow.next_try,
        Some(time("2026-07-01T12:10:00Z")),
        "held ten minutes"
    );

    // A send within the ten minutes leaves it (another sender may still be at it) and sends the
    // mails the killed one never reached.
    let (ok, out) = s.send("2026-07-01T12:01:00Z", port, &[]);
    assert!(ok, "{out}");
    let first_run = log.lock().expect("log").len();
    assert_eq!(first_run, n, "every mail once, the slow one included");
    assert!(s
        .mails()
        .iter()
        .all(|m| m.state == MailState::Sent || m.id == slow.id));
    // After it, it goes again with the same Message-ID: twice at worst, never lost.
    let (ok, out) = s.send("2026-07-01T12:11:00Z", port, &[]);
    assert!(ok && out.contains("1 sent"), "{out}");
    let got = log.lock().expect("log").clone();
    let copies: Vec<&Received> = got
        .iter()
        .filter(|r| r.to == vec!["slow@example.org".to_string()])
        .collect();
    assert_eq!(copies.len(), 2);
    assert!(copies
        .iter()
        .all(|r| r.header("Message-ID") == Some(id.as_str())));
}

#[test]
fn the_config_names_the_server_and_a_bad_config_says_what_to_fix() {
    let port = free_port();
    let log = start_server(port);
    let s = Judged::new("smtp-config", "france@example.org");
    std::fs::write(
        s.dir.join("napjudge.toml"),
        format!(
            "[judge]\naddress = \"judge@example.org\"\n\
             [smtp]\nhost = \"127.0.0.1\"\nport = {port}\nsecurity = \"plain\"\n"
        ),
    )
    .expect("config");
    // ./napjudge.toml is read when no --config names another; tick sends the outbox too.
    let o = s.run(T0, &["tick"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let n = s.mails().len();
    assert!(out.contains(&format!("outbox: {n} sent")), "{out}");
    assert_eq!(log.lock().expect("log").len(), n);
    assert!(log
        .lock()
        .expect("log")
        .iter()
        .all(|r| r.from == "judge@example.org"));

    let bad = s.dir.join("bad.toml");
    std::fs::write(&bad, "[smtp]\nhost = \"h\"\nsecurity = \"ssl\"\n").expect("config");
    let o = s.run(
        T0,
        &["--config", bad.to_str().expect("utf-8"), "outbox", "send"],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(err.contains("bad.toml") && err.contains("ssl"), "{err}");
    let missing = Path::new("/nonexistent/napjudge.toml");
    let o = s.run(
        T0,
        &[
            "--config",
            missing.to_str().expect("utf-8"),
            "outbox",
            "send",
        ],
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("--config"));
}

#[test]
fn starttls_with_a_login_from_the_password_file_delivers_and_a_wrong_password_loses_nothing() {
    let port = free_port();
    let log = start_tls_server(port, "judge@example.org", "s3cret");
    let s = Judged::new("smtp-tls", "france@example.org");
    let ca = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/smtp/ca.pem");
    // The config in a folder of its own, naming the password file relative to that folder.
    let etc = s.dir.join("etc");
    std::fs::create_dir_all(&etc).expect("etc");
    let config = etc.join("napjudge.toml");
    let cfg = config.to_str().expect("utf-8");
    let write_config = |password: &str| {
        std::fs::write(etc.join("password"), format!("{password}\n")).expect("password");
        std::fs::write(
            &config,
            format!(
                "[judge]\naddress = \"judge@example.org\"\n\
                 [smtp]\nhost = \"localhost\"\nport = {port}\nsecurity = \"starttls\"\n\
                 user = \"judge@example.org\"\npassword_file = \"password\"\nca_file = {:?}\n",
                ca.to_str().expect("utf-8")
            ),
        )
        .expect("config");
    };
    let n = s.mails().len();
    // A wrong password: the server refuses the login (535); every mail waits, none given up.
    write_config("wrong");
    let o = s.run(T0, &["--config", cfg, "outbox", "send"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!o.status.success());
    assert!(
        out.contains(&format!("0 sent, {n} failed, 0 given up")),
        "{out}"
    );
    assert!(out.contains("535"), "{out}");
    assert!(log.lock().expect("log").is_empty());
    // The right one, after the back-off: delivered over TLS.
    write_config("s3cret");
    let o = s.run("2026-07-01T12:05:00Z", &["--config", cfg, "outbox", "send"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.contains(&format!("{n} sent, 0 failed")), "{out}");
    assert_eq!(log.lock().expect("log").len(), n);
}
