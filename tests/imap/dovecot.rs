//! A real IMAP server for the intake tests: Debian's Dovecot (`dovecot-imapd`, installed by
//! `tests/run`), started by the test in a folder of its own with its own config, on a free
//! loopback port, with implicit TLS by the test certificate of `tests/smtp/` (for `localhost`,
//! signed by `tests/smtp/ca.pem`), one user `judge` (password [`PASSWORD`]) whose mail is a
//! Maildir the test writes messages into. Stopped (its master process killed) when dropped.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// The user's password.
pub const PASSWORD: &str = "s3cret-imap";

/// A running Dovecot.
pub struct Dovecot {
    /// The IMAPS port on 127.0.0.1.
    pub port: u16,
    /// The user's Maildir (INBOX; other folders are `.NAME` in it).
    pub maildir: PathBuf,
    master: Child,
    /// Numbers the messages written.
    next: std::cell::Cell<u32>,
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    l.local_addr().expect("addr").port()
}

/// The uid the mail belongs to: Dovecot never gives mail to root, so as root (CI) it is
/// `nobody`'s.
fn mail_owner() -> Option<u32> {
    let out = Command::new("id").arg("-u").output().ok()?;
    let uid: u32 = String::from_utf8_lossy(&out.stdout).trim().parse().ok()?;
    (uid == 0).then_some(65534)
}

/// `id FLAG`: the user's id (`-u`) or its group's (`-g`).
fn id(flag: &str) -> u32 {
    let out = Command::new("id").arg(flag).output().expect("id");
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("an id")
}

fn chown(path: &Path) {
    if let Some(uid) = mail_owner() {
        std::os::unix::fs::chown(path, Some(uid), Some(uid)).expect("chown");
    }
}

impl Dovecot {
    /// Starts Dovecot in `dir` (made fresh) and waits until it takes connections.
    pub fn start(dir: &Path) -> Dovecot {
        Dovecot::start_with(dir, "")
    }

    /// [`Dovecot::start`] with `extra` lines of configuration (`imap_capability = ...`).
    pub fn start_with(dir: &Path, extra: &str) -> Dovecot {
        let _ = std::fs::remove_dir_all(dir);
        let maildir = dir.join("mail/judge");
        for sub in ["new", "cur", "tmp"] {
            std::fs::create_dir_all(maildir.join(sub)).expect("maildir");
        }
        std::fs::create_dir_all(dir.join("run")).expect("run");
        let certs = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/smtp");
        let port = free_port();
        let uid = mail_owner().unwrap_or_else(|| id("-u"));
        let gid = mail_owner().unwrap_or_else(|| id("-g"));
        let d = dir.display();
        std::fs::write(
            dir.join("passwd"),
            format!("judge:{{PLAIN}}{PASSWORD}:{uid}:{gid}::{d}/mail/judge\n"),
        )
        .expect("passwd");
        // As root Dovecot wants its own users for its helpers; as anyone else it runs as that
        // user throughout.
        let users = if mail_owner().is_some() {
            "default_internal_user = dovecot\ndefault_login_user = dovenull\n\
             default_internal_group = dovecot\n"
                .to_string()
        } else {
            let me = std::env::var("USER").unwrap_or_else(|_| "nobody".into());
            format!("default_internal_user = {me}\ndefault_login_user = {me}\n")
        };
        std::fs::write(
            dir.join("dovecot.conf"),
            format!(
                "base_dir = {d}/run\nstate_dir = {d}/run\nlisten = 127.0.0.1\n\
                 protocols = imap\n{users}first_valid_uid = 0\nlog_path = {d}/dovecot.log\n\
                 ssl = required\nssl_cert = <{c}/server.pem\nssl_key = <{c}/server.key\n\
                 auth_mechanisms = plain login\n\
                 passdb {{\n  driver = passwd-file\n  args = scheme=PLAIN {d}/passwd\n}}\n\
                 userdb {{\n  driver = passwd-file\n  args = {d}/passwd\n}}\n\
                 mail_location = maildir:{d}/mail/%u\n\
                 service imap-login {{\n  inet_listener imap {{\n    port = 0\n  }}\n  \
                 inet_listener imaps {{\n    address = 127.0.0.1\n    port = {port}\n    \
                 ssl = yes\n  }}\n}}\n{extra}",
                c = certs.display()
            ),
        )
        .expect("config");
        let mail = dir.join("mail");
        for p in [mail.clone(), mail.join("judge")]
            .into_iter()
            .chain(["new", "cur", "tmp"].map(|s| maildir.join(s)))
        {
            chown(&p);
        }
        let master = Command::new("dovecot")
            .args(["-F", "-c"])
            .arg(dir.join("dovecot.conf"))
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "Dovecot is missing ({e}): run `apt-get install -y dovecot-imapd` (tests/run \
                     does it as root) to run the IMAP tests"
                )
            });
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "dovecot did not start: {}",
                std::fs::read_to_string(dir.join("dovecot.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Dovecot {
            port,
            maildir,
            master,
            next: std::cell::Cell::new(0),
        }
    }

    /// The `[imap]` section reaching this server (the password from `NAPJUDGE_TEST_IMAP`).
    pub fn config(&self) -> String {
        format!(
            "[imap]\nhost = \"localhost\"\nport = {}\ntls = \"implicit\"\nuser = \"judge\"\n\
             password_env = \"NAPJUDGE_TEST_IMAP\"\ntimeout = 10\nca_file = \"{}\"\n",
            self.port,
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/smtp/ca.pem")
                .display()
        )
    }

    /// Delivers a message into INBOX, as a mail server would.
    pub fn deliver(&self, message: &str) {
        let n = self.next.get();
        self.next.set(n + 1);
        let name = format!("{:010}.M{n}P1.test", 1_700_000_000 + u64::from(n));
        let tmp = self.maildir.join("tmp").join(&name);
        std::fs::write(&tmp, message.replace("\r\n", "\n").replace('\n', "\r\n")).expect("deliver");
        chown(&tmp);
        std::fs::rename(&tmp, self.maildir.join("new").join(&name)).expect("deliver");
    }

    /// The messages in a folder (`INBOX`, or another by its name).
    pub fn count(&self, folder: &str) -> usize {
        let dir = if folder == "INBOX" {
            self.maildir.clone()
        } else {
            self.maildir.join(format!(".{folder}"))
        };
        ["new", "cur"]
            .iter()
            .map(|s| std::fs::read_dir(dir.join(s)).map_or(0, |d| d.count()))
            .sum()
    }
}

impl Dovecot {
    /// The messages in a folder flagged `\Deleted` (a Maildir file's `T` flag).
    pub fn flagged_deleted(&self, folder: &str) -> usize {
        let dir = if folder == "INBOX" {
            self.maildir.clone()
        } else {
            self.maildir.join(format!(".{folder}"))
        };
        std::fs::read_dir(dir.join("cur")).map_or(0, |d| {
            d.filter_map(Result::ok)
                .filter(|e| {
                    e.file_name()
                        .to_string_lossy()
                        .split_once(":2,")
                        .is_some_and(|(_, flags)| flags.contains('T'))
                })
                .count()
        })
    }

    /// Puts a message into INBOX flagged `\Deleted`, as another mail client leaves one.
    pub fn deliver_deleted(&self, message: &str) {
        let name = "1600000000.M0P1.other:2,ST";
        let path = self.maildir.join("cur").join(name);
        std::fs::write(&path, message.replace("\r\n", "\n").replace('\n', "\r\n"))
            .expect("deliver");
        chown(&path);
    }
}

impl Drop for Dovecot {
    fn drop(&mut self) {
        // SIGTERM: the master stops its helpers before it goes.
        let _ = Command::new("kill")
            .arg(self.master.id().to_string())
            .status();
        let _ = self.master.wait();
    }
}

/// A mail from `from` with `Message-ID: <id@example.org>` and `body`.
pub fn mail(from: &str, id: &str, body: &str) -> String {
    format!(
        "From: {from}\r\nTo: judge@example.org\r\nSubject: orders\r\n\
         Message-ID: <{id}@example.org>\r\nDate: Wed, 01 Jul 2026 12:00:00 +0000\r\n\r\n{body}\r\n"
    )
}
