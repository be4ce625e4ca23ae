//! Issue 22, `napjudge serve` end to end: mails put into a real Dovecot's INBOX
//! (`imap/dovecot.rs`) are answered, a deadline passes and the results reach the real SMTP
//! server on loopback (`smtp/server.rs`). Stopped by SIGTERM in the middle of a burst and
//! started again, every mail is answered exactly once and every mail of the outbox delivered
//! exactly once (counted by Message-ID at the SMTP server); killed with SIGKILL instead, every
//! mail is still answered once (a mail the server took just before the kill may come twice,
//! with its one Message-ID). The same with `--maildir`: mails an MDA drops into `new/` are
//! answered once each and moved to `cur/`, across a SIGTERM in the middle of the burst. Issue
//! 32: a player brought in by the GM's REPLACE by mail gets the configured judge address and a
//! password, and signs on with it by mail.

// Shared with other test binaries: not every helper is used here.
#[allow(dead_code)]
use crate::common;
// Shared with other test binaries: not every helper is used here.
#[allow(dead_code)]
use crate::dovecot;
// Shared with other test binaries: not every helper is used here.
#[allow(dead_code)]
use crate::intake;
// Shared with other test binaries: not every helper is used here.
#[allow(dead_code)]
use crate::server;

use dovecot::{mail, Dovecot, PASSWORD};
use napjudge_judge::{Judge, MailKind, MailState, Period, Periods, Store};
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

type Log = Arc<Mutex<Vec<String>>>;

struct Catcher(Log);

impl server::Mailbox for Catcher {
    fn accept(&self, m: server::Accepted) {
        self.0.lock().expect("log").push(m.data);
    }
}

fn header(data: &str, name: &str) -> Option<String> {
    let head = data.split("\r\n\r\n").next().unwrap_or_default();
    head.lines().find_map(|l| {
        let (n, v) = l.split_once(':')?;
        n.eq_ignore_ascii_case(name).then(|| v.trim().to_string())
    })
}

/// A judge's folder with a game whose Winter 1800 ends `winter` seconds after now (no grace),
/// the config reaching `imap` (else a Maildir, `DIR/Maildir`), and the SMTP server's port.
struct Served {
    dir: PathBuf,
    db: PathBuf,
    smtp: u16,
    log: Log,
    _imap: Option<Dovecot>,
}

impl Served {
    fn new(name: &str, d: Option<Dovecot>, winter: i64) -> Served {
        let dir = intake::scratch(name);
        let db = dir.join("napjudge.db");
        let mut j = Judge::new(Store::open(&db).expect("db"));
        let periods = Periods {
            movement: Period::hours(24),
            retreat: Period::hours(24),
            winter: Period::new(winter).expect("period"),
            grace: Period::new(0).expect("period"),
            remind: Period::new(1).expect("period"),
        };
        common::start_five_players(&mut j, chrono::Utc::now(), "g", "UTC", periods, |p| {
            format!("{}@example.org", p.to_lowercase())
        });
        std::fs::write(
            dir.join("napjudge.toml"),
            format!(
                "[judge]\naddress = \"judge@example.org\"\n{}",
                d.as_ref().map(Dovecot::config).unwrap_or_default()
            ),
        )
        .expect("config");
        if d.is_none() {
            for sub in ["new", "cur", "tmp"] {
                std::fs::create_dir_all(dir.join("Maildir").join(sub)).expect("maildir");
            }
        }
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("port");
        let smtp = listener.local_addr().expect("addr").port();
        let log: Log = Arc::default();
        server::serve(listener, None, Catcher(Arc::clone(&log)));
        Served {
            dir,
            db,
            smtp,
            log,
            _imap: d,
        }
    }

    /// The Dovecot of a judge on IMAP.
    fn imap(&self) -> &Dovecot {
        self._imap.as_ref().expect("a judge on IMAP")
    }

    fn maildir(&self) -> PathBuf {
        self.dir.join("Maildir")
    }

    fn start(&self, run: usize) -> Child {
        let err = std::fs::File::create(self.dir.join(format!("serve-{run}.log"))).expect("log");
        let mut serve = Command::new(env!("CARGO_BIN_EXE_napjudge"));
        self.args(&mut serve);
        serve.stderr(err).spawn().expect("napjudge serve runs")
    }

    /// `serve`'s arguments and environment, its output to nowhere.
    fn args(&self, serve: &mut Command) {
        serve
            .arg("--db")
            .arg(&self.db)
            .args(["serve", "--tick-every", "1", "--smtp"])
            .arg(format!("smtp://127.0.0.1:{}", self.smtp));
        if self._imap.is_none() {
            serve.arg("--maildir").arg(self.maildir());
        }
        serve
            .env("NAPJUDGE_TEST_IMAP", PASSWORD)
            .env_remove("NAPJUDGE_CONFIG")
            .env_remove("NAPJUDGE_FROM")
            .stdout(Stdio::null());
    }

    fn logs(&self) -> String {
        (0..3)
            .filter_map(|r| std::fs::read_to_string(self.dir.join(format!("serve-{r}.log"))).ok())
            .collect()
    }

    /// The In-Reply-To of every reply the SMTP server took.
    fn answered(&self) -> Vec<String> {
        let log = self.log.lock().expect("log");
        log.iter()
            .filter_map(|d| header(d, "In-Reply-To"))
            .collect()
    }

    /// Waits until `done`, at most a minute.
    fn wait_for(&self, what: &str, done: impl Fn(&Served) -> bool) {
        let started = Instant::now();
        while !done(self) {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "{what}: not within a minute; serve's log:\n{}",
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn mails(&self) -> Vec<napjudge_judge::Mail> {
        crate::golden::queued_in(&self.db)
    }
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(ok.success());
}

/// Waits for `child` to end, at most 30 seconds; its exit status.
fn ended(child: &mut Child) -> std::process::ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(s) = child.try_wait().expect("wait") {
            return s;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "serve did not stop"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Stops `serve` with SIGTERM, which must end it cleanly; `n` mails must have been answered,
/// each once.
fn stopped_with_each_answered_once(s: &Served, serve: &mut Child, n: usize) {
    signal(serve, "-TERM");
    assert!(ended(serve).success(), "{}", s.logs());
    let answered = counts(s.answered());
    assert_eq!(answered.len(), n, "every mail answered");
    assert!(
        answered.values().all(|&n| n == 1),
        "none twice: {answered:?}"
    );
}

fn counts(items: impl IntoIterator<Item = String>) -> HashMap<String, usize> {
    let mut m = HashMap::new();
    for i in items {
        *m.entry(i).or_insert(0) += 1;
    }
    m
}

/// `n` HELP mails waiting in INBOX, the `i`th from `FROMi@example.org` with the Message-ID `IDi`.
fn helps(d: &Dovecot, n: usize, from: &str, id: &str) {
    for i in 0..n {
        d.deliver(&mail(
            &format!("{from}{i}@example.org"),
            &format!("{id}{i}"),
            "HELP",
        ));
    }
}

#[test]
fn serve_answers_processes_and_delivers_each_mail_once_across_a_sigterm() {
    let d = Dovecot::start(&intake::scratch("serve-term-imap"));
    helps(&d, 30, "q", "t");
    let s = Served::new("serve-term", Some(d), 20);
    let mut first = s.start(0);
    s.wait_for("the first replies", |s| s.answered().len() >= 3);
    signal(&first, "-TERM");
    assert!(ended(&mut first).success(), "{}", s.logs());
    assert!(s.logs().contains("stopped"), "{}", s.logs());
    for i in 30..40 {
        s.imap().deliver(&mail(
            &format!("q{i}@example.org"),
            &format!("t{i}"),
            "HELP",
        ));
    }
    let mut second = s.start(1);
    s.wait_for("every mail answered and the Winter's results sent", |s| {
        let mails = s.mails();
        s.answered().len() >= 40
            && mails.iter().any(|m| m.kind == MailKind::Results)
            && mails.iter().all(|m| m.state == MailState::Sent)
    });
    stopped_with_each_answered_once(&s, &mut second, 40);
    let log = s.log.lock().expect("log").clone();
    let ids = counts(log.iter().filter_map(|d| header(d, "Message-ID")));
    assert!(
        ids.values().all(|&n| n == 1),
        "a mail delivered twice: {ids:?}"
    );
    assert_eq!(
        log.len(),
        s.mails().len(),
        "every mail of the outbox delivered"
    );
    assert_eq!(s.imap().count("INBOX"), 0);
    assert!(s.logs().contains("processed"), "{}", s.logs());
}

/// The replies queued, by recipient.
fn replies(s: &Served) -> HashMap<String, usize> {
    counts(
        s.mails()
            .into_iter()
            .filter(|m| m.kind == MailKind::Reply)
            .map(|m| m.to),
    )
}

/// SIGKILL in the middle of the burst (a message may be stored and not moved, or a reply
/// taken by the server and not marked sent): after a restart every mail is answered once. A
/// mail claimed by the killed sender waits the outbox's claim (ten minutes) before it is tried
/// again, so delivery is checked only for what the server took: never two Message-IDs for one
/// answer.
#[test]
fn serve_killed_mid_burst_answers_every_mail_once_after_a_restart() {
    let d = Dovecot::start(&intake::scratch("serve-kill-imap"));
    helps(&d, 60, "k", "k");
    let s = Served::new("serve-kill", Some(d), 3600);
    let mut first = s.start(0);
    s.wait_for("the first replies queued", |s| replies(s).len() >= 3);
    first.kill().expect("SIGKILL");
    let _ = first.wait();
    let mut second = s.start(1);
    s.wait_for("every mail answered", |s| {
        replies(s).len() >= 60 && s.imap().count("INBOX") == 0
    });
    signal(&second, "-TERM");
    assert!(ended(&mut second).success(), "{}", s.logs());
    let per_sender = replies(&s);
    assert_eq!(per_sender.len(), 60);
    assert!(per_sender.values().all(|&n| n == 1), "{per_sender:?}");
    let log = s.log.lock().expect("log").clone();
    let mut ids: HashMap<String, String> = HashMap::new();
    for d in &log {
        if let (Some(to), Some(id)) = (header(d, "In-Reply-To"), header(d, "Message-ID")) {
            let first = ids.entry(to.clone()).or_insert_with(|| id.clone());
            assert_eq!(*first, id, "two answers to {to}");
        }
    }
}

/// The files in a folder of the judge's Maildir.
fn files(s: &Served, sub: &str) -> Vec<String> {
    std::fs::read_dir(s.maildir().join(sub)).map_or_else(
        |_| Vec::new(),
        |d| {
            d.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        },
    )
}

/// Delivers mail number `i` into a Maildir as an MDA does: written in `tmp/`, then renamed
/// into `new/`.
fn drop_mail(maildir: &std::path::Path, i: usize) {
    let name = format!("{}.M{i}P1.test", 1_700_000_000 + i);
    let tmp = maildir.join("tmp").join(&name);
    let m = mail(&format!("m{i}@example.org"), &format!("m{i}"), "HELP");
    std::fs::write(&tmp, m).expect("deliver");
    std::fs::rename(&tmp, maildir.join("new").join(&name)).expect("deliver");
}

/// Issue 22, `serve --maildir`: 240 mails waiting in `new/` at the start and 30 more delivered
/// while `serve` runs, with a SIGTERM in the middle of the burst and a restart. The stop waits
/// for one batch, not the whole burst (mail is left in `new/`); after the restart every mail
/// is answered once at the SMTP server and moved to `cur/` marked seen (`:2,S`); none is left
/// in `new/` or set aside in `failed/`.
#[test]
fn serve_on_a_maildir_answers_each_mail_once_across_a_sigterm() {
    let s = Served::new("serve-maildir", None, 3600);
    let maildir = s.maildir();
    for i in 0..240 {
        drop_mail(&maildir, i);
    }
    let mut first = s.start(0);
    let mda = std::thread::spawn(move || {
        for i in 240..270 {
            drop_mail(&maildir, i);
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    s.wait_for("the first replies", |s| s.answered().len() >= 3);
    signal(&first, "-TERM");
    assert!(ended(&mut first).success(), "{}", s.logs());
    assert!(s.logs().contains("stopped"), "{}", s.logs());
    // Of the mails waiting at the start (`.M0P1` to `.M239P1`), some are still waiting.
    let waiting = files(&s, "new")
        .iter()
        .filter_map(|f| {
            f.split_once(".M")?
                .1
                .split_once('P')?
                .0
                .parse::<usize>()
                .ok()
        })
        .filter(|&i| i < 240)
        .count();
    assert!(waiting > 0, "the stop waited for the whole burst");
    mda.join().expect("the MDA");
    let mut second = s.start(1);
    s.wait_for("every mail answered and delivered", |s| {
        s.answered().len() >= 270 && files(s, "new").is_empty()
    });
    stopped_with_each_answered_once(&s, &mut second, 270);
    let cur = files(&s, "cur");
    assert_eq!(cur.len(), 270, "{cur:?}");
    assert!(cur.iter().all(|f| f.ends_with(":2,S")), "{cur:?}");
    assert!(files(&s, "failed").is_empty());
}

/// Issue 31, finding 1: `serve --maildir` on a full disk. The disk is made full for `serve`
/// alone by its file size limit (RLIMIT_FSIZE, which binds root too) lowered to 0 while it runs
/// (`prlimit`), SIGXFSZ ignored so that a write fails with EFBIG as on a full disk; its log goes
/// through a pipe, which the limit does not bind. With 50 mails waiting, `serve` backs off and
/// logs the fault once (it used to retry at once, logging each try: thousands of lines in a
/// few seconds, and report the failed batch as 50 taken). The mails stay in `new/`, unanswered;
/// once the limit is lifted every one is answered and moved to `cur/`.
#[test]
fn serve_backs_off_on_a_full_disk_and_answers_the_mail_once_it_clears() {
    use std::io::{BufRead, Write};
    let s = Served::new("serve-full", None, 3600);
    let mut serve = Command::new("sh");
    // The shell ignores SIGXFSZ and `exec`s serve, which keeps it ignored.
    serve.args([
        "-c",
        "trap '' XFSZ; exec \"$0\" \"$@\"",
        env!("CARGO_BIN_EXE_napjudge"),
    ]);
    s.args(&mut serve);
    let mut child = serve
        .stderr(Stdio::piped())
        .spawn()
        .expect("napjudge serve runs");
    let pid = child.id().to_string();
    let err = child.stderr.take().expect("stderr");
    let mut log = std::fs::File::create(s.dir.join("serve-0.log")).expect("log");
    let copier = std::thread::spawn(move || {
        for line in std::io::BufReader::new(err).lines().map_while(Result::ok) {
            writeln!(log, "{line}").expect("log");
        }
    });
    let fsize = |limit: &str| {
        let ok = Command::new("prlimit")
            .args(["--pid", &pid, &format!("--fsize={limit}:")])
            .status()
            .expect("prlimit runs");
        assert!(ok.success(), "prlimit --fsize={limit}");
    };
    s.wait_for("serve started", |s| s.logs().contains("serving"));
    fsize("0");
    let maildir = s.maildir();
    for i in 0..50 {
        drop_mail(&maildir, i);
    }
    s.wait_for("the fault logged", |s| s.logs().contains(" ERROR "));
    // A few seconds of the fault: a wait, not a measure (the count of lines is the check).
    std::thread::sleep(Duration::from_secs(4));
    let lines = s.logs().lines().count();
    assert!(lines <= 6, "{lines} lines logged:\n{}", s.logs());
    assert!(!s.logs().contains("50 message(s) taken"), "{}", s.logs());
    assert_eq!(files(&s, "new").len(), 50, "every mail still waiting");
    assert!(s.answered().is_empty());
    fsize("unlimited");
    s.wait_for("every mail answered", |s| {
        s.answered().len() >= 50 && files(s, "new").is_empty()
    });
    stopped_with_each_answered_once(&s, &mut child, 50);
    copier.join().expect("the log");
    assert!(
        s.logs()
            .contains("the fault has cleared: mail is taken again ("),
        "the faults not logged are counted:\n{}",
        s.logs()
    );
    assert_eq!(files(&s, "cur").len(), 50);
}

/// The text of each message the SMTP server took for `to`, decoded.
fn received_by(s: &Served, to: &str) -> Vec<String> {
    let log = s.log.lock().expect("log");
    log.iter()
        .filter(|d| header(d, "To").is_some_and(|t| t.contains(to)))
        .filter_map(|d| {
            let m = mail_parser::MessageParser::default().parse(d.as_bytes())?;
            Some(m.body_text(0)?.into_owned())
        })
        .collect()
}

/// Issue 32 ("a player brought in by REPLACE by mail under `serve`, through the loopback SMTP
/// and Dovecot"): the GM's `REPLACE Russia frank@...` lands in Dovecot's INBOX; `serve` takes it
/// by IMAP, and Frank gets, through the SMTP server, the mail with the configured judge address
/// and his password; he signs on with that password by mail (through IMAP again) and is told he
/// is signed on as Russia.
#[test]
fn serve_brings_in_a_player_by_replace_who_signs_on_by_mail() {
    const FRANK: &str = "frank@example.net";
    let d = Dovecot::start(&intake::scratch("serve-replace-imap"));
    // Winter 1800 an hour long: nothing is processed meanwhile.
    let s = Served::new("serve-replace", Some(d), 3600);
    Judge::new(Store::open(&s.db).expect("db"))
        .assign(
            "g",
            "GM",
            "gm@example.org",
            Some("gm-pw"),
            chrono::Utc::now(),
        )
        .expect("the GM's mail password");
    s.imap().deliver(
        "From: gm@example.org\r\nTo: judge@example.org\r\nSubject: seats\r\n\
         Message-ID: <replace@example.org>\r\n\r\nSIGNON GM g gm-pw\r\nREPLACE Russia frank@example.net\r\n",
    );
    let mut serve = s.start(0);
    s.wait_for("Frank's password mail", |s| {
        received_by(s, FRANK)
            .iter()
            .any(|m| m.contains("Your password: "))
    });
    let welcome = received_by(&s, FRANK)
        .into_iter()
        .find(|m| m.contains("Your password: "))
        .expect("the password mail");
    assert!(
        welcome.contains("Mail your commands to the judge at judge@example.org"),
        "{welcome}"
    );
    let password = welcome
        .lines()
        .find_map(|l| l.strip_prefix("Your password: "))
        .map(str::trim)
        .expect("the password's line")
        .to_string();
    s.imap().deliver(&mail(
        FRANK,
        "frank-signs-on",
        &format!("SIGNON Russia g {password}"),
    ));
    s.wait_for("Frank's acknowledgement", |s| {
        received_by(s, FRANK)
            .iter()
            .any(|m| m.contains("Signed on as Russia in game 'g'."))
    });
    signal(&serve, "-TERM");
    assert!(ended(&mut serve).success(), "{}", s.logs());
    let replies = received_by(&s, FRANK);
    assert_eq!(
        replies.len(),
        2,
        "the password mail and the answer: {replies:?}"
    );
    assert_eq!(s.imap().count("INBOX"), 0, "both mails taken");
}
