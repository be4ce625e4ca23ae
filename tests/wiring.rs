//! The judge's address of napjudge.toml in every mail, whichever entry point made it: the
//! shell's `game` commands, `mail receive`, `mail poll --maildir` and `tick`; `serve` in
//! `serve::serve_brings_in_a_player_by_replace_who_signs_on_by_mail` (through Dovecot and the
//! SMTP server). `serve` once told a player brought in by the GM's REPLACE by mail to write to
//! the placeholder `judge@napjudge.invalid`, because it built its judge without the config's
//! address.

use napjudge_judge::{Judge, MailKind, NewMessage, Store};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The address napjudge.toml gives.
const JUDGE: &str = "judge@club.example";

/// The placeholder a judge without the config's address names.
const PLACEHOLDER: &str = "napjudge.invalid";

/// A judge's folder: the database and napjudge.toml beside it.
struct Judged {
    dir: PathBuf,
    db: PathBuf,
}

impl Judged {
    fn new(name: &str) -> Judged {
        let dir = crate::intake::scratch(name);
        std::fs::write(
            dir.join("napjudge.toml"),
            format!("[judge]\naddress = \"{JUDGE}\"\n"),
        )
        .expect("config");
        let db = dir.join("napjudge.db");
        Judged { dir, db }
    }

    /// `napjudge --db DB ARGS` with `stdin`, from the judge's folder; the config is found
    /// beside the database.
    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_napjudge"));
        c.arg("--db")
            .arg(&self.db)
            .args(args)
            .current_dir(&self.dir)
            .env_remove("NAPJUDGE_CONFIG")
            .env_remove("NAPJUDGE_FROM")
            .env_remove("NAPJUDGE_DB");
        c
    }

    /// Runs `args` with `stdin`, which must succeed.
    fn ok(&self, args: &[&str], stdin: &str) -> Output {
        let o = crate::golden::piped(&mut self.command(args), stdin.as_bytes());
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        o
    }

    /// A game `g` made, assigned and started at the shell: the GM's mail password `gm-pw`,
    /// Russia's password generated and mailed.
    fn start_game(&self) {
        self.ok(&["game", "create", "g", "--gm", "gm@example.org"], "");
        self.ok(
            &[
                "game",
                "assign",
                "g",
                "GM",
                "gm@example.org",
                "--password",
                "gm-pw",
            ],
            "",
        );
        for p in ["Austria", "England", "France", "Prussia"] {
            let address = format!("{}@example.org", p.to_lowercase());
            self.ok(
                &["game", "assign", "g", p, &address, "--password", "pw"],
                "",
            );
        }
        let o = self.ok(&["game", "assign", "g", "Russia", "russia@example.org"], "");
        assert!(
            String::from_utf8_lossy(&o.stdout).contains("(password mailed)"),
            "{o:?}"
        );
        self.ok(&["game", "start", "g"], "");
    }

    /// Every mail the judge queued.
    fn mails(&self) -> Vec<napjudge_judge::Mail> {
        crate::golden::queued_in(&self.db)
    }

    /// The password mail to `to`, which must name the configured address.
    fn password_mail_to(&self, to: &str) -> String {
        let mails = self.mails();
        let m = mails
            .iter()
            .find(|m| m.kind == MailKind::Password && m.to == to)
            .unwrap_or_else(|| panic!("no password mail to {to}"));
        assert!(
            m.body
                .contains(&format!("Mail your commands to the judge at {JUDGE}")),
            "{}",
            m.body
        );
        m.body.clone()
    }

    /// No mail queued names the placeholder address.
    fn none_names_the_placeholder(&self) {
        for m in self.mails() {
            assert!(
                !m.body.contains(PLACEHOLDER),
                "mail {} to {} ({}) names the placeholder:\n{}",
                m.id,
                m.to,
                m.subject,
                m.body
            );
        }
    }
}

/// The GM's mail giving `power` to `address`.
fn replace(id: &str, power: &str, address: &str) -> String {
    format!(
        "From: gm@example.org\r\nTo: {JUDGE}\r\nSubject: seats\r\nMessage-ID: <{id}@example.org>\r\n\
         \r\nSIGNON GM g gm-pw\r\nREPLACE {power} {address}\r\n"
    )
}

/// Writes `mail` into `maildir/new` as an MDA does: in `tmp/`, then renamed.
fn deliver_to(maildir: &Path, name: &str, mail: &str) {
    for sub in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(maildir.join(sub)).expect("maildir");
    }
    let tmp = maildir.join("tmp").join(name);
    std::fs::write(&tmp, mail).expect("deliver");
    std::fs::rename(&tmp, maildir.join("new").join(name)).expect("deliver");
}

#[test]
fn the_shell_the_pipe_the_maildir_and_the_tick_name_the_configured_address() {
    let j = Judged::new("one-shot");
    // The shell: the seat mails of `game assign` and `game start`, Russia's password.
    j.start_game();
    j.password_mail_to("russia@example.org");
    let seats = j
        .mails()
        .iter()
        .filter(|m| {
            m.body
                .contains(&format!("Mail your commands to the judge at {JUDGE}"))
        })
        .count();
    assert!(
        seats >= 12,
        "a seat mail to each power and the GM at assign, and at start"
    );

    // The pipe.
    j.ok(
        &["mail", "receive"],
        &replace("pipe", "Russia", "frank@example.net"),
    );
    j.password_mail_to("frank@example.net");

    // The Maildir.
    let maildir = j.dir.join("Maildir");
    deliver_to(
        &maildir,
        "1.M1P1.test",
        &replace("maildir", "Prussia", "grace@example.net"),
    );
    j.ok(
        &[
            "mail",
            "poll",
            "--maildir",
            maildir.to_str().expect("utf-8"),
        ],
        "",
    );
    j.password_mail_to("grace@example.net");

    // The tick: a HELP stored by a `receive` that was stopped before it answered.
    let help = format!(
        "From: ida@example.net\r\nTo: {JUDGE}\r\nSubject: help\r\nMessage-ID: <help@example.org>\r\n\r\nHELP\r\n"
    );
    Judge::new(Store::open(&j.db).expect("db"))
        .store_message(
            &NewMessage {
                message_id: Some("help@example.org"),
                digest: "a help stored and not answered",
                sender: "ida@example.net",
                raw: help.as_bytes(),
                size: help.len() as u64,
                secrets: None,
            },
            chrono::Utc::now() - chrono::Duration::minutes(10),
        )
        .expect("stored");
    let o = j.ok(&["tick"], "");
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("answered 1 stored message"),
        "{o:?}"
    );
    let mails = j.mails();
    let reply = mails
        .iter()
        .find(|m| m.kind == MailKind::Reply && m.to == "ida@example.net")
        .expect("the HELP answered");
    assert!(reply.body.contains(JUDGE), "{}", reply.body);

    j.none_names_the_placeholder();
}
