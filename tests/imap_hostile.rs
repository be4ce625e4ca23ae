//! Issue 31, findings 5 and 4d: `mail poll --imap` against a fake IMAP server on loopback (TLS by
//! the test certificate of `tests/smtp/`) that logs in fine, then answers as a broken or hostile
//! server would: an endless SEARCH line, a FETCH literal of 4 GB, a message over the size limit,
//! another UID's body, a NO to MOVE.

use crate::intake;

use napjudge_judge::Store;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::{ServerConfig, ServerConnection, StreamOwned};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The most the fake server writes of an endless answer, and for how long: the judge must hang
/// up long before.
const ENDLESS_CAP: usize = 100 << 20;
const ENDLESS_TIME: Duration = Duration::from_secs(30);

/// How the fake server answers a command (its text after the tag).
enum Answer {
    /// These lines, then the tagged OK.
    Ok(String),
    /// These bytes, then nothing: the tagged answer never comes.
    Raw(String),
    /// This start of a line, then `filler` forever (up to [`ENDLESS_CAP`]).
    Endless(&'static str, &'static str),
    /// A tagged NO.
    No,
}

/// A fake server's record: the commands it was sent, and the bytes of endless answers written.
#[derive(Clone, Default)]
struct Seen {
    commands: Arc<Mutex<Vec<String>>>,
    written: Arc<Mutex<usize>>,
}

impl Seen {
    fn commands(&self) -> Vec<String> {
        self.commands.lock().expect("commands").clone()
    }

    fn written(&self) -> usize {
        *self.written.lock().expect("written")
    }
}

fn tls_config() -> Arc<ServerConfig> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/smtp");
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(dir.join("server.pem"))
        .expect("the test certificate")
        .collect::<Result<_, _>>()
        .expect("the test certificate parses");
    let key = PrivateKeyDer::from_pem_file(dir.join("server.key")).expect("the test key");
    Arc::new(
        ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .expect("the certificate and key match"),
    )
}

/// Starts a fake server on 127.0.0.1 that answers the log-in and the folders' commands as a
/// server would, and every other command by `answer`. Its port and record.
fn start(answer: impl Fn(&str) -> Answer + Send + Sync + 'static) -> (u16, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
    let port = listener.local_addr().expect("addr").port();
    let seen = Seen::default();
    let record = seen.clone();
    let config = tls_config();
    std::thread::spawn(move || {
        // One connection per poll; the tests poll a few times at most.
        for tcp in listener.incoming().take(4).flatten() {
            // A connection the judge drops is its business: the tests look at what it did.
            let _ = session(tcp, Arc::clone(&config), &answer, &record);
        }
    });
    (port, seen)
}

fn session(
    tcp: TcpStream,
    config: Arc<ServerConfig>,
    answer: &dyn Fn(&str) -> Answer,
    seen: &Seen,
) -> std::io::Result<()> {
    tcp.set_read_timeout(Some(ENDLESS_TIME))?;
    let conn = ServerConnection::new(config).map_err(std::io::Error::other)?;
    let mut stream = BufReader::new(StreamOwned::new(conn, tcp));
    stream
        .get_mut()
        .write_all(b"* OK [CAPABILITY IMAP4rev1] fake ready\r\n")?;
    let mut line = String::new();
    for _ in 0..1000 {
        line.clear();
        if stream.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let Some((tag, command)) = line.trim_end().split_once(' ') else {
            return Ok(());
        };
        let (tag, command) = (tag.to_string(), command.to_string());
        seen.commands
            .lock()
            .expect("commands")
            .push(command.clone());
        let upper = command.to_ascii_uppercase();
        let out = stream.get_mut();
        let standard = if upper.starts_with("CAPABILITY") {
            Some(Answer::Ok("* CAPABILITY IMAP4rev1 MOVE UIDPLUS\r\n".into()))
        } else if upper.starts_with("LOGIN") || upper.starts_with("CREATE") {
            Some(Answer::Ok("".into()))
        } else if upper.starts_with("SELECT") {
            Some(Answer::Ok(
                "* 1 EXISTS\r\n* OK [UIDVALIDITY 1] UIDs valid\r\n".into(),
            ))
        } else if upper.starts_with("LOGOUT") {
            out.write_all(format!("* BYE\r\n{tag} OK\r\n").as_bytes())?;
            return Ok(());
        } else {
            None
        };
        match standard.unwrap_or_else(|| answer(&command)) {
            Answer::Ok(lines) => out.write_all(format!("{lines}{tag} OK done\r\n").as_bytes())?,
            Answer::No => out.write_all(format!("{tag} NO refused\r\n").as_bytes())?,
            Answer::Raw(bytes) => out.write_all(bytes.as_bytes())?,
            Answer::Endless(start, filler) => {
                out.write_all(start.as_bytes())?;
                let chunk = filler.repeat(64 * 1024 / filler.len());
                let began = Instant::now();
                while began.elapsed() < ENDLESS_TIME && seen.written() < ENDLESS_CAP {
                    out.write_all(chunk.as_bytes())?;
                    *seen.written.lock().expect("written") += chunk.len();
                }
                // Silent until the judge hangs up (its read times out) or the time is up.
                std::thread::sleep(ENDLESS_TIME.saturating_sub(began.elapsed()));
                return Ok(());
            }
        }
    }
    Ok(())
}

/// A judge's folder whose napjudge.toml reads the fake server on `port`.
fn judge_dir(name: &str, port: u16) -> PathBuf {
    let dir = intake::scratch(name);
    let db = dir.join("napjudge.db");
    drop(Store::open(&db).expect("db"));
    std::fs::write(
        dir.join("napjudge.toml"),
        format!(
            "[judge]\naddress = \"judge@example.org\"\n[imap]\nhost = \"localhost\"\n\
             port = {port}\ntls = \"implicit\"\nuser = \"judge\"\n\
             password_env = \"NAPJUDGE_TEST_IMAP\"\ntimeout = 10\nca_file = \"{}\"\n",
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/smtp/ca.pem")
                .display()
        ),
    )
    .expect("config");
    db
}

/// `napjudge --db DB mail poll --imap`, and how long it took.
fn poll(db: &Path) -> (Output, Duration) {
    let began = Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_napjudge"))
        .arg("--db")
        .arg(db)
        .args(["mail", "poll", "--imap"])
        .env("NAPJUDGE_TEST_IMAP", "secret")
        .env_remove("NAPJUDGE_CONFIG")
        .env_remove("NAPJUDGE_FROM")
        .output()
        .expect("napjudge runs");
    (o, began.elapsed())
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr)
}

/// An answer that never ends (the judge grew to 15-21 GB): the poll gives up with exit 75 and
/// says why, having read little more than the size limit, well inside 20 s.
fn endless(name: &str, answer: impl Fn(&str) -> Answer + Send + Sync + 'static) {
    let (port, seen) = start(answer);
    let db = judge_dir(name, port);
    let (o, took) = poll(&db);
    assert_eq!(o.status.code(), Some(75), "{}", text(&o));
    assert!(
        text(&o).contains("in answer to one command"),
        "{}",
        text(&o)
    );
    assert!(took < Duration::from_secs(20), "{took:?}");
    assert!(
        seen.written() < 16 << 20,
        "{} bytes written",
        seen.written()
    );
}

/// Finding 5: an endless `* SEARCH` line.
#[test]
fn an_endless_search_line_ends_the_poll_within_the_bound() {
    endless("imap-endless-search", |command| {
        if command.starts_with("UID SEARCH") {
            Answer::Endless("* SEARCH", " 1")
        } else {
            Answer::Ok("".into())
        }
    });
}

/// Finding 5: a FETCH whose literal says 4,000,000,000 bytes (and a size that says 100).
#[test]
fn a_four_gigabyte_literal_ends_the_poll_within_the_bound() {
    endless("imap-endless-literal", |command| {
        if command.starts_with("UID SEARCH") {
            Answer::Ok("* SEARCH 1\r\n".into())
        } else if command.contains("RFC822.SIZE") {
            Answer::Ok("* 1 FETCH (UID 1 RFC822.SIZE 100)\r\n".into())
        } else if command.starts_with("UID FETCH") {
            Answer::Endless("* 1 FETCH (UID 1 BODY[] {4000000000}\r\n", "x")
        } else {
            Answer::Ok("".into())
        }
    });
}

/// Finding 5: a message over the size limit by its RFC822.SIZE is not fetched: it goes to the
/// failed folder, and the poll says so.
#[test]
fn a_message_over_the_limit_is_moved_aside_unread() {
    let (port, seen) = start(|command| {
        if command.starts_with("UID SEARCH") {
            Answer::Ok("* SEARCH 1\r\n".into())
        } else if command.contains("RFC822.SIZE") {
            Answer::Ok("* 1 FETCH (UID 1 RFC822.SIZE 5000000)\r\n".into())
        } else if command.starts_with("UID FETCH") {
            Answer::Raw("* 1 FETCH (UID 1 BODY[] {5000000}\r\n".into())
        } else {
            Answer::Ok("".into())
        }
    });
    let db = judge_dir("imap-over-limit", port);
    let (o, _) = poll(&db);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("5000000 bytes, over the limit"),
        "{}",
        text(&o)
    );
    let commands = seen.commands();
    assert!(
        commands
            .iter()
            .any(|c| c == "UID MOVE 1 \"napjudge-failed\""),
        "{commands:?}"
    );
    assert!(
        !commands.iter().any(|c| c.contains("BODY.PEEK")),
        "{commands:?}"
    );
}

/// A HELP mail from `from`, as a FETCH's answer for `uid`.
fn fetched(uid: u32, from: &str) -> String {
    let mail = format!(
        "From: {from}\r\nTo: judge@example.org\r\nSubject: help\r\n\
         Message-ID: <{uid}.{from}>\r\n\r\nHELP\r\n"
    );
    format!(
        "* {uid} FETCH (UID {uid} BODY[] {{{}}}\r\n{mail})\r\n",
        mail.len()
    )
}

/// The replies the judge queued.
fn replies(db: &Path) -> usize {
    Store::open(db)
        .expect("db")
        .view()
        .mails(None)
        .expect("outbox")
        .len()
}

/// Finding 4d: a server that answers a FETCH with another UID's body got the asked message
/// moved to `done` unread. The message is left in the folder, and the poll says so.
#[test]
fn a_fetch_answered_with_another_message_leaves_the_message() {
    let (port, seen) = start(|command| {
        if command.starts_with("UID SEARCH") {
            Answer::Ok("* SEARCH 1\r\n".into())
        } else if command.contains("RFC822.SIZE") {
            Answer::Ok("* 1 FETCH (UID 1 RFC822.SIZE 100)\r\n".into())
        } else if command.starts_with("UID FETCH") {
            Answer::Ok(fetched(2, "mallory@example.org"))
        } else {
            Answer::Ok("".into())
        }
    });
    let db = judge_dir("imap-other-uid", port);
    let (o, _) = poll(&db);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("another message (UID 2)"), "{}", text(&o));
    let commands = seen.commands();
    assert!(
        !commands.iter().any(|c| c.starts_with("UID MOVE")),
        "{commands:?}"
    );
    assert_eq!(replies(&db), 0, "nothing stored, nothing answered");
}

/// Finding 4d: a NO to one message's MOVE stopped the poll there, and every later poll at it.
/// The next messages are taken and moved; that one is left, said, for the next poll.
#[test]
fn a_refused_move_does_not_stop_the_poll() {
    let (port, seen) = start(|command| {
        let uid = |n: &str| command.starts_with(&format!("UID FETCH {n} "));
        if command.starts_with("UID SEARCH") {
            Answer::Ok("* SEARCH 1 2\r\n".into())
        } else if command.contains("RFC822.SIZE") {
            let n = if uid("1") { 1 } else { 2 };
            Answer::Ok(format!("* {n} FETCH (UID {n} RFC822.SIZE 100)\r\n"))
        } else if uid("1") {
            Answer::Ok(fetched(1, "alice@example.org"))
        } else if uid("2") {
            Answer::Ok(fetched(2, "bob@example.org"))
        } else if command.starts_with("UID MOVE 1 ") {
            Answer::No
        } else {
            Answer::Ok("".into())
        }
    });
    let db = judge_dir("imap-move-refused", port);
    let (o, _) = poll(&db);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("refused to move it to napjudge-answered"),
        "{}",
        text(&o)
    );
    let commands = seen.commands();
    assert!(
        commands.iter().any(|c| c.starts_with("UID MOVE 2 ")),
        "{commands:?}"
    );
    assert_eq!(replies(&db), 2, "both answered");
}

/// Issue 31, finding 3: `serve` took 141 s to stop on SIGTERM with a slow server, as it
/// looked at the stop flag only after a batch of 50 messages. Twenty messages, each fetch
/// answered two seconds late: SIGTERM while the third is awaited ends `serve` (a wait limit of
/// 20 s; the whole batch would take 40), having taken whole messages only: each message moved
/// was answered, each answered one moved, and the others stay in the folder, unanswered.
#[test]
fn serve_stops_between_messages_of_a_slow_server() {
    let (port, seen) = start(|command| {
        if command.starts_with("UID SEARCH") {
            let uids: Vec<String> = (1..=20).map(|n| n.to_string()).collect();
            return Answer::Ok(format!("* SEARCH {}\r\n", uids.join(" ")));
        }
        let uid = command
            .strip_prefix("UID FETCH ")
            .and_then(|r| r.split(' ').next())
            .and_then(|n| n.parse::<u32>().ok());
        match uid {
            Some(n) if command.contains("RFC822.SIZE") => {
                Answer::Ok(format!("* {n} FETCH (UID {n} RFC822.SIZE 200)\r\n"))
            }
            Some(n) => {
                std::thread::sleep(Duration::from_secs(2));
                Answer::Ok(fetched(n, &format!("p{n}@example.org")))
            }
            None => Answer::Ok("".into()),
        }
    });
    let db = judge_dir("imap-slow-stop", port);
    let out = db.with_file_name("out");
    let log = std::fs::File::create(db.with_file_name("serve.log")).expect("log");
    let mut serve = Command::new(env!("CARGO_BIN_EXE_napjudge"))
        .arg("--db")
        .arg(&db)
        .args(["serve", "--to-dir"])
        .arg(&out)
        .env("NAPJUDGE_TEST_IMAP", "secret")
        .env_remove("NAPJUDGE_CONFIG")
        .env_remove("NAPJUDGE_FROM")
        .stdout(std::process::Stdio::null())
        .stderr(log)
        .spawn()
        .expect("napjudge serve runs");
    let logs = || std::fs::read_to_string(db.with_file_name("serve.log")).unwrap_or_default();
    let moves = || {
        seen.commands()
            .into_iter()
            .filter(|c| c.starts_with("UID MOVE "))
            .count()
    };
    let began = Instant::now();
    // The fake server records a command before it answers: the third fetch is awaited.
    while !seen
        .commands()
        .iter()
        .any(|c| c.starts_with("UID FETCH 3 BODY.PEEK"))
    {
        assert!(
            began.elapsed() < Duration::from_secs(60),
            "the third message not fetched within a minute:\n{}",
            logs()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let term = Command::new("kill")
        .args(["-TERM", &serve.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(term.success());
    let stopped = Instant::now();
    let status = loop {
        if let Some(s) = serve.try_wait().expect("wait") {
            break s;
        }
        if stopped.elapsed() > Duration::from_secs(20) {
            let _ = serve.kill();
            let _ = serve.wait();
            panic!("serve did not stop within 20 s of SIGTERM:\n{}", logs());
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{}", logs());
    let moved = moves();
    assert!(moved < 20, "the whole batch was taken:\n{}", logs());
    assert_eq!(
        replies(&db),
        moved,
        "each message moved answered, and only those"
    );
    let stored: i64 = rusqlite::Connection::open(&db)
        .expect("db")
        .query_row("SELECT COUNT(*) FROM inbox", [], |r| r.get(0))
        .expect("inbox");
    assert_eq!(stored as usize, moved, "none stored and left in the folder");
}
