//! The golden mail tests' one harness (`tests/mail*.rs`): a scenario is a folder
//! `tests/mail/NAME/` of steps, each writing `NN-name.out`. What every driver shares is here:
//! - [`Folder`]: the steps' files, and the compare-or-bless of each `.out` (a line diff on
//!   failure; `NAPJUDGE_BLESS=1` rewrites the files instead: review their diff);
//! - the steps: [`receive`] a raw mail, [`tick`] the clock, [`Shell::run`] the real `napjudge`
//!   binary ([`piped`] runs any command of it with its input); [`Outbox`] gives the mails a step
//!   queued, [`show`] writes one as the goldens do, [`queued`] and [`last_reply`] read the outbox;
//! - [`Smtp`]: the outbox delivered by `napjudge outbox send` to the real SMTP server on
//!   loopback (`tests/smtp/server.rs`), and what it received, as text ([`Smtp::shown`]);
//! - [`FivePowers`]: the standard five-power Napoleonic game most scenarios play;
//!   [`results_queued`]: a five-power game with its Winter 1800 processed, for sending tests;
//! - [`dump`] and [`game_state`]: the database as text, compared before and after each `bad-*`
//!   step, which must change nothing; [`Secrets`]: random codes, passwords and tokens shown as
//!   markers.

// Each driver uses the part it needs: what one leaves unused is not dead.
#![allow(dead_code)]

pub(crate) use crate::common;
pub(crate) use crate::server;

use crate::intake;
use chrono::{DateTime, Utc};
use mail_parser::MimeHeaders;
use napjudge_judge::{
    Handled, Judge, Mail, NewGame, Period, Periods, PressRules, Setting, TickReport, View,
};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};

/// A scenario's folder, `tests/mail/NAME`: its steps' files and their `.out` goldens.
pub struct Folder {
    dir: PathBuf,
    bless: bool,
    failures: Vec<String>,
}

impl Folder {
    /// `tests/mail/NAME`, blessed when `NAPJUDGE_BLESS` is set.
    pub fn new(name: &str) -> Folder {
        Folder {
            dir: Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/mail")
                .join(name),
            bless: std::env::var_os("NAPJUDGE_BLESS").is_some(),
            failures: Vec::new(),
        }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The folder's files ending in one of `exts`, in order: the steps.
    pub fn steps(&self, exts: &[&str]) -> Vec<PathBuf> {
        let mut steps: Vec<PathBuf> = std::fs::read_dir(&self.dir)
            .expect("the scenario's folder")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| exts.iter().any(|x| e == *x)))
            .collect();
        steps.sort();
        steps
    }

    /// Compares what step `name` gave with `name.out` (or writes it, blessing).
    pub fn check(&mut self, name: &str, got: &str) {
        let out = self.dir.join(format!("{name}.out"));
        if self.bless {
            std::fs::write(&out, got).expect("write golden");
            return;
        }
        let want = std::fs::read_to_string(&out).unwrap_or_default();
        if want != got {
            self.failures
                .push(format!("{name}.out (- want, + got):\n{}", diff(&want, got)));
        }
    }

    /// Fails, naming each step whose `.out` differs and how.
    pub fn finish(self) {
        assert!(
            self.failures.is_empty(),
            "{} golden file(s) differ (NAPJUDGE_BLESS=1 rewrites them: review the diff)\n{}",
            self.failures.len(),
            self.failures.join("\n")
        );
    }
}

/// The lines of `want` and `got` that differ, with two lines of context around each change
/// (a longest common subsequence: the files are small).
fn diff(want: &str, got: &str) -> String {
    let a: Vec<&str> = want.lines().collect();
    let b: Vec<&str> = got.lines().collect();
    // Past a few million cells the table would be too big: the first line that differs.
    if a.len().saturating_mul(b.len()) > 4_000_000 {
        let at = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
        return format!(
            "line {}:\n- {}\n+ {}\n",
            at + 1,
            a.get(at).unwrap_or(&"(end)"),
            b.get(at).unwrap_or(&"(end)")
        );
    }
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut lines: Vec<(char, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            lines.push((' ', a[i]));
            i += 1;
            j += 1;
        } else if j < b.len() && (i == a.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            lines.push(('+', b[j]));
            j += 1;
        } else {
            lines.push(('-', a[i]));
            i += 1;
        }
    }
    let near = |k: usize| {
        lines[k.saturating_sub(2)..(k + 3).min(lines.len())]
            .iter()
            .any(|(c, _)| *c != ' ')
    };
    let mut out = String::new();
    let mut skipped = false;
    for (k, (c, l)) in lines.iter().enumerate() {
        if near(k) {
            if skipped {
                out.push_str("  ...\n");
                skipped = false;
            }
            out.push_str(&format!("{c} {l}\n"));
        } else {
            skipped = true;
        }
    }
    if want.ends_with('\n') != got.ends_with('\n') {
        out.push_str("(one of them has no newline at its end)\n");
    }
    out
}

/// Every mail of the outbox, in the order queued.
pub fn queued(view: View<'_>) -> Vec<Mail> {
    view.mails(None).expect("outbox")
}

/// Every mail of the outbox of the database at `db` (a store of its own), in the order queued.
pub fn queued_in(db: &Path) -> Vec<Mail> {
    queued(napjudge_judge::Store::open(db).expect("db").view())
}

/// The last reply queued to `to`; empty when there is none.
pub fn last_reply(view: View<'_>, to: &str) -> String {
    queued(view)
        .into_iter()
        .rfind(|m| m.kind == napjudge_judge::MailKind::Reply && m.to == to)
        .map(|m| m.body)
        .unwrap_or_default()
}

/// The outbox as the steps go: each step's look gives the mails queued since the last one.
#[derive(Default)]
pub struct Outbox {
    seen: usize,
}

impl Outbox {
    /// Starting after the mails already queued (a set-up's).
    pub fn after(view: View<'_>) -> Outbox {
        Outbox {
            seen: queued(view).len(),
        }
    }

    /// The mails queued since the last look.
    pub fn new_mails(&mut self, view: View<'_>) -> Vec<Mail> {
        let mails = queued(view);
        let new = mails.get(self.seen..).unwrap_or_default().to_vec();
        self.seen = mails.len();
        new
    }

    /// The mails queued since the last look, as the golden files show them.
    pub fn shown(&mut self, view: View<'_>) -> String {
        self.new_mails(view).iter().map(show).collect()
    }
}

/// A step's name: its file name without the extension (`NN-name`).
pub fn name(step: &Path) -> String {
    step.file_stem()
        .expect("a step's name")
        .to_string_lossy()
        .into_owned()
}

/// A step's kind: its file's extension (`eml`, `cmd`, `tick`).
pub fn ext(step: &Path) -> String {
    step.extension()
        .expect("a step's extension")
        .to_string_lossy()
        .into_owned()
}

/// A queued mail as the golden files show it: its recipient, subject, kind and body.
pub fn show(m: &Mail) -> String {
    format!(
        "To: {}\nSubject: {}\nKind: {}\n\n{}=====\n",
        m.to, m.subject, m.kind, m.body
    )
}

/// A mail step: the raw mail given to `mail::receive` at `now`; stored whatever it says.
pub fn receive(j: &mut Judge, raw: &[u8], now: DateTime<Utc>) -> Handled {
    napjudge_judge::receive(j, &intake::config(), raw, now).expect("the mail is stored")
}

/// A tick step: the judge's clock at `now` (answers mails left unanswered, reminders, phases
/// due). The mails answered and what was done.
pub fn tick(j: &mut Judge, now: DateTime<Utc>) -> (usize, TickReport) {
    napjudge_judge::tick(j, &intake::config(), now).expect("tick")
}

/// The real `napjudge` binary on a scenario's database.
pub struct Shell {
    db: PathBuf,
    config: Option<PathBuf>,
}

/// What a run of the binary gave.
pub struct Ran {
    /// Its exit code (-1: killed by a signal).
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    /// The run as a transcript: `$ napjudge LINE`, its exit code, what it printed.
    pub fn transcript(&self, line: &str) -> String {
        format!(
            "$ napjudge {line}\nexit {}\n{}{}",
            self.code, self.stdout, self.stderr
        )
    }
}

impl Shell {
    /// The binary on `db`, with no napjudge.toml: the mails name the judge's default address.
    pub fn new(db: &Path) -> Shell {
        Shell {
            db: db.to_path_buf(),
            config: None,
        }
    }

    /// The binary on `db`, with a napjudge.toml (in `dir`) naming the tests' judge address
    /// ([`intake::JUDGE`]), the one the mails tell players to write to.
    pub fn with_judge_address(db: &Path, dir: &Path) -> Shell {
        std::fs::create_dir_all(dir).expect("config folder");
        let path = dir.join("napjudge.toml");
        let toml = format!("[judge]\naddress = \"{}\"\n", intake::JUDGE);
        std::fs::write(&path, toml).expect("config");
        Shell {
            db: db.to_path_buf(),
            config: Some(path),
        }
    }

    /// Runs `napjudge --now NOW --db DB ARGS` with `input` on standard input.
    pub fn run<S: AsRef<std::ffi::OsStr>>(
        &self,
        now: DateTime<Utc>,
        args: &[S],
        input: &[u8],
    ) -> Ran {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_napjudge"));
        cmd.arg("--now")
            .arg(now.to_rfc3339())
            .arg("--db")
            .arg(&self.db)
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"));
        match &self.config {
            Some(path) => cmd.env("NAPJUDGE_CONFIG", path),
            None => cmd.env_remove("NAPJUDGE_CONFIG"),
        };
        let o = piped(&mut cmd, input);
        Ran {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }

    /// Runs the command `line` (words, "double quotes" around one with spaces) and gives its
    /// transcript.
    pub fn transcript(&self, now: DateTime<Utc>, line: &str) -> String {
        self.run(now, &words(line), b"").transcript(line)
    }
}

/// Runs `cmd` (the binary) with `input` on its standard input, closed after; what it printed.
pub fn piped(cmd: &mut Command, input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("napjudge runs");
    if let Some(mut stdin) = child.stdin.take() {
        // A judge that stops reading early closes the pipe: that is not the test's failure (its
        // exit and output say what happened).
        let _ = stdin.write_all(input);
    }
    child.wait_with_output().expect("napjudge ends")
}

/// The words of a command line, with "double quotes" around a word that has spaces.
pub fn words(line: &str) -> Vec<String> {
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

/// `args` as a command line [`words`] reads back: a word with a space in "double quotes".
pub fn line(args: &[&str]) -> String {
    args.iter()
        .map(|a| {
            if a.contains(' ') {
                format!("\"{a}\"")
            } else {
                a.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// 48 hours a movement and a Winter, 24 a retreat and the grace, the reminder 12 hours before.
pub fn two_day_periods() -> Periods {
    Periods {
        movement: Period::hours(48),
        retreat: Period::hours(24),
        winter: Period::hours(48),
        grace: Period::hours(24),
        remind: Period::hours(12),
    }
}

/// The standard game of the scenarios: Napoleonic, the five majors at
/// `POWER@example.org` (password `pw-power`), the GM at `gm@example.org` (password `gm-pw`).
pub struct FivePowers<'a> {
    pub name: &'a str,
    /// The zone its deadlines are shown in.
    pub zone: &'a str,
    pub periods: Periods,
    pub pictures: bool,
    pub wait: bool,
    pub press: PressRules,
    /// Settings beyond these (seat rules, timing), made with the game.
    pub settings: Vec<Setting>,
    /// Every power's password, for the scenarios written with one (else `pw-power`).
    pub one_password: Option<&'a str>,
    /// Whether the GM gets a mail password.
    pub gm_password: bool,
    /// Whether the game is started (Winter 1800 bids).
    pub start: bool,
}

/// The five majors, in the order they are assigned.
pub const POWERS: [&str; 5] = ["France", "England", "Austria", "Prussia", "Russia"];

impl<'a> FivePowers<'a> {
    /// Game `name`: in UTC, 48 hours a movement and a Winter, 24 a retreat and the grace, the
    /// reminder 12 hours before; pictures on, no waiting, white press, the GM's password, started.
    pub fn new(name: &'a str) -> FivePowers<'a> {
        FivePowers {
            name,
            zone: "UTC",
            periods: two_day_periods(),
            pictures: true,
            wait: false,
            press: PressRules::default(),
            settings: Vec::new(),
            one_password: None,
            gm_password: true,
            start: true,
        }
    }

    /// Creates the game, all at `now`.
    pub fn set_up(&self, j: &mut Judge, now: DateTime<Utc>) {
        j.create_with(
            &NewGame {
                timezone: self.zone.into(),
                wait: self.wait,
                pictures: self.pictures,
                press: self.press,
                ..common::new_game(self.name, "napoleonic", self.periods)
            },
            &self.settings,
            now,
        )
        .expect("create");
        for p in POWERS {
            let lower = p.to_lowercase();
            let password = match self.one_password {
                Some(pw) => pw.to_string(),
                None => format!("pw-{lower}"),
            };
            j.assign(
                self.name,
                p,
                &format!("{lower}@example.org"),
                Some(&password),
                now,
            )
            .expect("assign");
        }
        if self.gm_password {
            j.assign(self.name, "GM", "gm@example.org", Some("gm-pw"), now)
                .expect("the GM's password");
        }
        if self.start {
            j.start(self.name, now).expect("start");
        }
    }
}

/// Game `g` of [`common::start_five_players`] in a new judge at `db`, each power at
/// `address(power)`, with plain-text result mails (a picture makes one half a megabyte: a send
/// killed or stalled mid-way must have written whole messages), the set-up's mails (seats, the
/// notice of the setting) delivered to `set-up/` beside `db` so that a test follows the results
/// alone, and its Winter 1800 processed: the results are queued. How many mails the set-up queued.
pub fn results_queued(db: &Path, now: DateTime<Utc>, address: impl Fn(&str) -> String) -> usize {
    let mut j = Judge::new(napjudge_judge::Store::open(db).expect("db"));
    common::start_five_players(&mut j, now, "g", "UTC", common::day_periods(), address);
    j.set("g", &Setting::Pictures(false), now)
        .expect("pictures off");
    let setup = napjudge_judge::Target::Dir(db.with_file_name("set-up"));
    let retry = napjudge_judge::Retry::from_config(&Default::default());
    j.send_outbox(&setup, "judge@example.org", retry, now)
        .expect("the set-up's mails");
    let setup = j.view().mails(None).expect("outbox").len();
    j.process("g", false, now).expect("Winter 1800");
    setup
}

/// The rows `queries` read from the database at `db`, as text (a connection of its own: the
/// judge's store has none to lend): the golden tests compare it before and after a bad step,
/// which must change nothing.
pub fn dump(db: &Path, queries: &[&str]) -> String {
    let conn = rusqlite::Connection::open(db).expect("db");
    let mut out = String::new();
    for sql in queries {
        let mut st = conn.prepare(sql).expect("query");
        let n = st.column_count();
        let rows = st
            .query_map([], |r| {
                (0..n)
                    .map(|i| {
                        r.get::<_, rusqlite::types::Value>(i)
                            .map(|v| format!("{v:?}"))
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .expect("rows");
        for r in rows {
            out.push_str(&r.expect("row").join("|"));
            out.push('\n');
        }
    }
    out
}

/// The phases, orders, players and GM's log of the database at `db`, and the rows of `more`, as
/// text ([`dump`]): what a refused step must leave as it was.
pub fn game_state(db: &Path, more: &[&str]) -> String {
    let mut queries = vec![
        "SELECT id, seq, report IS NOT NULL, deadline, superseded FROM phases ORDER BY id",
        "SELECT id, phase, power, text, by FROM orders ORDER BY id",
        "SELECT game, power, address, password_hash FROM players ORDER BY game, power",
        "SELECT id, action FROM gm_actions ORDER BY id",
    ];
    queries.extend(more);
    dump(db, &queries)
}

/// The random secrets a scenario's mails show (a takeover code, a password): the goldens
/// show the latest of each as `{{CODE}}`, `{{PASSWORD}}` or (an OBSERVE's) `{{TOKEN}}`, and a
/// step's file may use the markers for them.
#[derive(Default)]
pub struct Secrets {
    code: Option<String>,
    password: Option<String>,
    token: Option<String>,
}

impl Secrets {
    /// Learns the secrets `text` shows.
    pub fn learn(&mut self, text: &str) {
        for line in text.lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                ["Your", "password:", pw] => self.password = Some(pw.to_string()),
                ["TAKEOVER", _, _, code] if *code != "CODE" => self.code = Some(code.to_string()),
                [.., "takeover", "code", "for", _, code] => self.code = Some(code.to_string()),
                ["CONFIRM", "OBSERVE", _, token] if !matches!(*token, "TOKEN" | "{{TOKEN}}") => {
                    self.token = Some(token.to_string())
                }
                _ => {}
            }
        }
    }

    /// `text` with the secrets as their markers.
    pub fn hide(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (secret, marker) in [
            (&self.code, "{{CODE}}"),
            (&self.password, "{{PASSWORD}}"),
            (&self.token, "{{TOKEN}}"),
        ] {
            if let Some(s) = secret {
                out = out.replace(s.as_str(), marker);
            }
        }
        out
    }

    /// `text` with the markers as the secrets.
    pub fn fill(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (secret, marker) in [
            (&self.code, "{{CODE}}"),
            (&self.password, "{{PASSWORD}}"),
            (&self.token, "{{TOKEN}}"),
        ] {
            if let Some(s) = secret {
                out = out.replace(marker, s.as_str());
            }
        }
        out
    }
}

/// What the loopback server received.
#[derive(Clone, Default)]
struct Catcher(Arc<Mutex<Vec<server::Accepted>>>);

impl server::Mailbox for Catcher {
    fn accept(&self, m: server::Accepted) {
        self.0.lock().expect("log").push(m);
    }
}

/// The real SMTP server of `tests/smtp/server.rs` on loopback, and what it has received.
pub struct Smtp {
    port: u16,
    log: Catcher,
    seen: usize,
}

/// The address the judge's mails come from over SMTP (not the `.invalid` placeholder the
/// mails name: SMTP refuses it, issue 22).
pub const FROM: &str = "judge@example.org";

impl Smtp {
    /// A server on a free port of 127.0.0.1, serving until the test ends.
    pub fn start() -> Smtp {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
        let port = listener.local_addr().expect("addr").port();
        let log = Catcher::default();
        server::serve(listener, None, log.clone());
        Smtp { port, log, seen: 0 }
    }

    /// `smtp://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    /// Every mail queued, sent by `napjudge outbox send` through the server; the messages it
    /// received since the last delivery.
    pub fn deliver(&mut self, shell: &Shell, now: DateTime<Utc>) -> Vec<server::Accepted> {
        let ran = shell.run(
            now,
            &["outbox", "send", "--smtp", &self.url(), "--from", FROM],
            b"",
        );
        assert_eq!(ran.code, 0, "outbox send: {}{}", ran.stdout, ran.stderr);
        let log = self.log.0.lock().expect("log");
        let new: Vec<server::Accepted> = log
            .get(self.seen..)
            .unwrap_or_default()
            .iter()
            .map(|m| server::Accepted {
                from: m.from.clone(),
                to: m.to.clone(),
                data: m.data.clone(),
            })
            .collect();
        self.seen = log.len();
        new
    }

    /// Delivered messages as the goldens show them: the envelope's recipients, the subject,
    /// the attachments, the text body. The same message to several recipients (one after
    /// another) once, with all of them; a body `summary` gives one (a results mail's) is
    /// replaced by it.
    pub fn shown(
        messages: &[server::Accepted],
        summary: impl Fn(&str, &str) -> Option<String>,
    ) -> String {
        let parsed: Vec<(Vec<String>, String, String, String)> = messages
            .iter()
            .map(|m| {
                let (subject, attached, body) = read(m);
                (m.to.clone(), subject, attached, body)
            })
            .collect();
        let mut out = String::new();
        let mut i = 0;
        while let Some((_, subject, attached, body)) = parsed.get(i) {
            let same = parsed[i..]
                .iter()
                .take_while(|(_, s, a, b)| (s, a, b) == (subject, attached, body))
                .count();
            let to: Vec<&str> = parsed[i..i + same]
                .iter()
                .flat_map(|(t, ..)| t.iter().map(String::as_str))
                .collect();
            let body = summary(subject, body).unwrap_or_else(|| body.clone());
            out.push_str(&format!(
                "To: {}\nSubject: {subject}\n{attached}\n{body}{}=====\n",
                to.join(", "),
                if body.ends_with('\n') { "" } else { "\n" }
            ));
            i += same;
        }
        out
    }
}

/// A delivered message's subject, attachments (a line each: name, type, whether a PNG) and text
/// body.
pub fn read(m: &server::Accepted) -> (String, String, String) {
    let msg = mail_parser::MessageParser::default()
        .parse(m.data.as_bytes())
        .expect("a delivered message parses");
    assert_eq!(m.from, FROM, "the envelope's sender");
    let subject = msg.subject().unwrap_or_default().to_string();
    let body = msg
        .body_text(0)
        .map(|b| b.replace("\r\n", "\n"))
        .unwrap_or_default();
    let attached: String = msg
        .attachments()
        .map(|a| {
            let kind = a
                .content_type()
                .map(|c| format!("{}/{}", c.ctype(), c.subtype().unwrap_or("")))
                .unwrap_or_default();
            let png = a.contents().starts_with(b"\x89PNG\r\n\x1a\n");
            format!(
                "Attached: {} ({kind}{})\n",
                a.attachment_name().unwrap_or("unnamed"),
                if png { ", a PNG" } else { "" }
            )
        })
        .collect();
    (subject, attached, body)
}
