//! The outbox: every mail the judge queued, delivered as RFC 5322 messages to a mail server by
//! SMTP, or into a folder (one `.eml` file per mail) for local use.
//!
//! A mail is marked sent only once the server accepted it (or its file is in place). A send holds
//! the outbox (a lock on a file beside the database, dropped by the system when the sender ends,
//! even killed) so that a second sender never sends what the first is still trying, however long
//! its try takes. Before each try the mail is claimed in its own committed transaction, which
//! fixes its Message-ID: a judge killed between the server's acceptance and marking it sent
//! sends it again later with the same Message-ID, never loses it.
//!
//! A try that fails for a passing reason (no connection, a timeout, a 4xx) is retried with
//! back-off, daily at most, for the retry days from its first failure; then the mail is given up
//! and the game's GM is mailed why. A refusal for good (5xx) gives it up at once. A mail given up
//! is queued again by `outbox retry`, and, when it was given up because the server couldn't be
//! reached, by the first later send that reaches the server. The GM's notices are never given up.

mod message;

use crate::config::{ConfigError, Security, Smtp};
use crate::render;
use crate::store::{Fault, Mail, MailKind, MailState, NewMail, Store, StoreError};
use askama::Template;
use chrono::{DateTime, Duration, Utc};
use lettre::address::Envelope;
use lettre::transport::smtp::authentication::{Credentials, DEFAULT_MECHANISMS};
use lettre::transport::smtp::client::{Certificate, SmtpConnection, Tls, TlsParameters};
use lettre::transport::smtp::commands::{Data, Mail as MailFrom, Rcpt};
use lettre::transport::smtp::extension::{ClientId, Extension, MailBodyParameter, MailParameter};
use lettre::transport::smtp::Error as SmtpError;
use lettre::Message;
pub use message::message;
use message::{deadline_event, new_message_id};
use std::collections::HashMap;
use std::fs::{File, OpenOptions, TryLockError};
use std::path::PathBuf;

/// How long a claimed mail is held from other senders when its sender was killed mid-try (while
/// the sender runs, its hold on the outbox keeps them off).
const CLAIM_SECONDS: i64 = 600;

/// Why the outbox can't be sent.
#[derive(Debug, thiserror::Error)]
pub enum OutboxError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The folder can't be made.
    #[error("{path}: {source} (give a folder napjudge can write to)")]
    Folder {
        /// The folder.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The mail server's settings can't be used.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The mail server's name or CA file can't be used for TLS.
    #[error("smtp host {host}: {message} (check [smtp] host in napjudge.toml)")]
    Server {
        /// The host.
        host: String,
        /// Why.
        message: String,
    },
    /// The GM's report of an undeliverable mail can't be rendered.
    #[error(transparent)]
    Render(#[from] render::RenderError),
    /// The outbox's lock file can't be made or locked.
    #[error(
        "{path}: {source} (the outbox's lock file, beside the database: napjudge must be able to \
         write in the database's folder)"
    )]
    Lock {
        /// The lock file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// `outbox retry` names a mail the outbox doesn't have.
    #[error("no mail {0} in the outbox (napjudge outbox list shows each mail's id)")]
    NoMail(i64),
    /// `outbox retry` names a mail that wasn't given up.
    #[error(
        "mail {id} is {state}, not given up: only an undeliverable mail is sent again \
         (a failed one is retried by itself; napjudge outbox list shows each mail's state)"
    )]
    NotGivenUp {
        /// The mail.
        id: i64,
        /// Where it stands.
        state: MailState,
    },
}

/// What a send did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sent {
    /// Mails delivered.
    pub sent: usize,
    /// Mails that failed this time and will be retried (their error is stored with them).
    pub failed: usize,
    /// Mails given up (the GM was mailed).
    pub given_up: usize,
    /// For each mail that failed: its id, recipient, the error and what happens next.
    pub problems: Vec<String>,
    /// Mails given up while the server couldn't be reached, queued again because this send
    /// reached it (they go on the next send).
    pub requeued: usize,
    /// Another send holds the outbox: this one tried nothing.
    pub busy: bool,
    /// One line for each of the GM's notices that a try failed and that waits in the outbox.
    pub waiting: Vec<String>,
}

/// The retry policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retry {
    /// Days from a mail's first failed try during which it is retried.
    pub days: u32,
    /// Minutes before the first retry; doubled for each later one, a day at most.
    pub minutes: u32,
    /// Tries before a mail is given up, if the days shouldn't decide alone.
    pub limit: Option<u32>,
}

/// `now` moved on by `d`; `now` itself if that isn't a time (never with the bounded settings).
fn later(now: DateTime<Utc>, d: Duration) -> DateTime<Utc> {
    now.checked_add_signed(d).unwrap_or(now)
}

impl Retry {
    /// The policy of `[outbox]` in napjudge.toml.
    pub fn from_config(c: &crate::config::Outbox) -> Retry {
        Retry {
            days: c.retry_days,
            minutes: c.retry_minutes,
            limit: c.retry_limit,
        }
    }

    /// When `mail`, whose try failed at `now` with `fault`, is tried again; none when it is
    /// given up.
    fn next(&self, mail: &Mail, fault: Fault, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let tries = mail.tries.saturating_add(1);
        // 5, 10, 20, ... minutes, capped at a day so a long outage is still retried daily.
        let shift = u32::try_from(tries.saturating_sub(1).clamp(0, 20)).unwrap_or(20);
        let minutes = i64::from(self.minutes)
            .saturating_mul(1_i64 << shift)
            .min(24 * 60);
        let backoff = Duration::minutes(minutes);
        if mail.kind.is_gm_notice() {
            // The GM's notice is never given up: it is the only word of a lost mail. Refused
            // for good, it is tried daily, for the day the GM's address is mended.
            let wait = match fault {
                Fault::Permanent => Duration::days(1),
                Fault::Unreachable | Fault::Deferred => backoff,
            };
            return Some(later(now, wait));
        }
        if fault == Fault::Permanent || self.limit.is_some_and(|l| tries >= i64::from(l)) {
            return None;
        }
        let end = later(
            mail.failing_since.unwrap_or(now),
            Duration::days(self.days.into()),
        );
        // The last try falls on the end of the retry days, not past it.
        (now < end).then(|| later(now, backoff).min(end))
    }
}

/// A send's hold on the outbox, released when dropped (or when the process ends).
struct Hold {
    /// The locked file; none for a database in memory, which no other process can open.
    _file: Option<File>,
}

/// Takes the outbox for one send: none when another send holds it.
fn hold(store: &Store) -> Result<Option<Hold>, OutboxError> {
    let Some(db) = store.path() else {
        return Ok(Some(Hold { _file: None }));
    };
    let mut name = db.as_os_str().to_owned();
    name.push(".outbox-lock");
    let path = PathBuf::from(name);
    let lock_error = |source| OutboxError::Lock {
        path: path.display().to_string(),
        source,
    };
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(lock_error)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(Hold { _file: Some(file) })),
        Err(TryLockError::WouldBlock) => Ok(None),
        Err(TryLockError::Error(e)) => Err(lock_error(e)),
    }
}

/// Where mails go.
pub enum Target {
    /// A folder of `.eml` files.
    Dir(PathBuf),
    /// A mail server.
    Smtp(Box<Server>),
}

/// A mail server and how to reach it. The SMTP dialogue is driven step by step (lettre's
/// connection, not its transport) so that a refusal is told apart by where it came: at the
/// greeting, EHLO, STARTTLS, the login or MAIL FROM it refuses the judge, at RCPT TO or DATA the
/// recipient.
pub struct Server {
    host: String,
    port: u16,
    timeout: std::time::Duration,
    tls: Tls,
    credentials: Option<Credentials>,
    hello: ClientId,
}

impl Server {
    /// A connection that has greeted, said EHLO, started TLS and logged in as configured.
    fn connect(&self) -> Result<SmtpConnection, SmtpError> {
        let wrapper = match &self.tls {
            Tls::Wrapper(params) => Some(params),
            _ => None,
        };
        let mut conn = SmtpConnection::connect(
            (self.host.as_str(), self.port),
            Some(self.timeout),
            &self.hello,
            wrapper,
            None,
        )?;
        if let Tls::Required(params) = &self.tls {
            conn.starttls(params, &self.hello)?;
        }
        if let Some(credentials) = &self.credentials {
            conn.auth(DEFAULT_MECHANISMS, credentials)?;
        }
        Ok(conn)
    }

    /// Whether the server greets, takes the login and answers NOOP (`napjudge check`).
    pub fn test(&self) -> Result<bool, SmtpError> {
        let mut conn = self.connect()?;
        let answered = conn.test_connected();
        conn.quit()?;
        Ok(answered)
    }
}

impl Target {
    /// The mail server `smtp` describes (its password file is read here).
    pub fn smtp(smtp: &Smtp) -> Result<Target, OutboxError> {
        let server = |e: SmtpError| OutboxError::Server {
            host: smtp.host.clone(),
            message: e.to_string(),
        };
        let tls = match smtp.security {
            Security::Plain => Tls::None,
            Security::Starttls | Security::Tls => {
                let mut params = TlsParameters::builder(smtp.host.clone());
                if let Some(file) = &smtp.ca_file {
                    let pem = std::fs::read(file).map_err(|source| ConfigError::CaFile {
                        path: file.display().to_string(),
                        source,
                    })?;
                    params =
                        params.add_root_certificate(Certificate::from_pem(&pem).map_err(server)?);
                }
                let params = params.build_rustls().map_err(server)?;
                match smtp.security {
                    Security::Tls => Tls::Wrapper(params),
                    _ => Tls::Required(params),
                }
            }
        };
        Ok(Target::Smtp(Box::new(Server {
            host: smtp.host.clone(),
            port: smtp.port(),
            // Every step of a try bounded (checked at load; held here for any caller), so a
            // try ends well inside a claim.
            timeout: std::time::Duration::from_secs(
                smtp.timeout.clamp(1, crate::config::MAX_TIMEOUT),
            ),
            tls,
            credentials: smtp
                .credentials()?
                .map(|(user, password)| Credentials::new(user, password)),
            hello: ClientId::default(),
        })))
    }
}

/// How one try failed: why, and what that means for the mail (see [`Fault`]). After
/// [`Fault::Unreachable`] the mails after this one aren't tried in this run.
struct Failure(Fault, String);

/// How a refusal or error of the server counts: `judge` when it came before the recipient was
/// named (the greeting, EHLO, STARTTLS, the login, MAIL FROM), which is about the judge and never
/// gives a mail up.
fn fault(e: &SmtpError, judge: bool) -> Failure {
    let code = e.status().map(u16::from);
    // A closing server (421) or a refused login (530-538) refuses the judge, not the mail.
    let login_or_closing = code.is_some_and(|c| c == 421 || (530..=538).contains(&c));
    let fault = if judge || login_or_closing {
        Fault::Unreachable
    } else if e.is_permanent() {
        Fault::Permanent
    } else if e.is_transient() {
        Fault::Deferred
    } else {
        Fault::Unreachable
    };
    Failure(fault, e.to_string())
}

/// MAIL FROM's parameters for `envelope` and `email` on `conn`: SMTPUTF8 and 8BITMIME when they
/// are needed (RFC 6531, RFC 6152), as lettre's own transaction does.
fn mail_from(conn: &SmtpConnection, envelope: &Envelope, email: &[u8]) -> Result<MailFrom, String> {
    let mut parameters = Vec::new();
    let info = conn.server_info();
    if envelope
        .from()
        .into_iter()
        .chain(envelope.to())
        .any(|a| !AsRef::<str>::as_ref(a).is_ascii())
    {
        if !info.supports_feature(Extension::SmtpUtfEight) {
            return Err("an address is not ASCII and the server does not offer SMTPUTF8".into());
        }
        parameters.push(MailParameter::SmtpUtfEight);
    }
    if !email.is_ascii() {
        if !info.supports_feature(Extension::EightBitMime) {
            return Err("the mail is not ASCII and the server does not offer 8BITMIME".into());
        }
        parameters.push(MailParameter::Body(MailBodyParameter::EightBitMime));
    }
    Ok(MailFrom::new(envelope.from().cloned(), parameters))
}

/// One mail's SMTP transaction on the run's connection, opened (or opened again, when the server
/// dropped it) here; a connection that failed is closed so the next mail starts afresh.
fn transact(
    server: &Server,
    session: &mut Option<SmtpConnection>,
    m: &Message,
) -> Result<(), Failure> {
    if let Some(conn) = session.as_mut().filter(|c| !c.has_broken()) {
        if !conn.test_connected() {
            conn.abort();
            *session = None;
        }
    }
    let conn = match session {
        Some(conn) if !conn.has_broken() => conn,
        _ => session.insert(server.connect().map_err(|e| fault(&e, true))?),
    };
    let envelope = m.envelope();
    let email = m.formatted();
    let result = match mail_from(conn, envelope, &email) {
        Err(e) => Err(Failure(Fault::Unreachable, e)),
        Ok(from) => conn
            .command(from)
            .map_err(|e| fault(&e, true))
            .and_then(|_| {
                envelope
                    .to()
                    .iter()
                    .try_for_each(|to| conn.command(Rcpt::new(to.clone(), vec![])).map(|_| ()))
                    .and_then(|()| conn.command(Data))
                    .and_then(|_| conn.message(&email))
                    .map_err(|e| fault(&e, false))
            }),
    };
    if result.is_err() {
        conn.abort();
        *session = None;
    }
    result.map(|_| ())
}

/// Writes `bytes` to a new file at `path` readable by its owner only: a mail may hold a
/// generated password. A file left there by a crashed send is replaced.
fn write_private(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    // Created new, so that the mode is ours; the leftover removed only when there is one (a
    // removal first would be a failed system call for each of a replay's 17,000 mails).
    let file = match options.open(path) {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            std::fs::remove_file(path)?;
            options.open(path)
        }
        other => other,
    };
    std::io::Write::write_all(&mut file?, bytes)
}

fn deliver(
    target: &Target,
    session: &mut Option<SmtpConnection>,
    mail: &Mail,
    m: &Message,
) -> Result<(), Failure> {
    match target {
        Target::Dir(dir) => {
            // Written aside then renamed: a crash never leaves half a file under the real name,
            // and a resend rewrites the same file.
            let path = dir.join(format!("{:06}.eml", mail.id));
            let tmp = dir.join(format!(".{:06}.eml.tmp", mail.id));
            write_private(&tmp, &m.formatted())
                .and_then(|()| std::fs::rename(&tmp, &path))
                .map_err(|e| Failure(Fault::Unreachable, format!("{}: {e}", path.display())))
        }
        Target::Smtp(server) => transact(server, session, m),
    }
}

/// The GM's mail about a mail given up.
#[derive(Template)]
#[template(path = "undeliverable.txt")]
pub(crate) struct UndeliverableMail<'a> {
    /// The mail's id in the outbox (for `outbox retry`).
    pub id: i64,
    /// The game.
    pub game: &'a str,
    /// The mail's recipient.
    pub to: &'a str,
    /// Its subject.
    pub subject: &'a str,
    /// Its Message-ID.
    pub message_id: &'a str,
    /// Tries made.
    pub tries: i64,
    /// The last error.
    pub error: &'a str,
}

/// Records a failed try: retried later, or given up with a report to the GM, in one transaction.
fn failed(
    store: &mut Store,
    mail: &Mail,
    message_id: &str,
    failure: &Failure,
    retry: Retry,
    now: DateTime<Utc>,
    out: &mut Sent,
) -> Result<(), OutboxError> {
    let tries = mail.tries.saturating_add(1);
    let Failure(fault, error) = failure;
    let next = retry.next(mail, *fault, now);
    let tx = store.begin()?;
    tx.mail_failed(mail.id, error, *fault, next, now)?;
    out.problems.push(format!(
        "mail {} to {}: {error}; {}",
        mail.id,
        mail.to,
        match next {
            Some(t) => format!("next try {}", t.to_rfc3339()),
            None => format!("given up after {tries} tries"),
        }
    ));
    if next.is_some() {
        out.failed += 1;
    } else {
        out.given_up += 1;
        // A notice is never given up (`Retry::next`), so none reports another.
        if let Some(game) = tx.view().game(&mail.game)? {
            let body = render::render(
                "undeliverable",
                &UndeliverableMail {
                    id: mail.id,
                    game: &mail.game,
                    to: &mail.to,
                    subject: &mail.subject,
                    message_id,
                    tries,
                    error,
                },
            )?;
            tx.queue_mail(
                &NewMail {
                    game: Some(game.id),
                    phase: None,
                    kind: MailKind::Undeliverable,
                    to: game.gm.as_str(),
                    subject: &format!("{}: a mail to {} was not delivered", mail.game, mail.to),
                    body: &body,
                    in_reply_to: None,
                },
                now,
            )?;
        }
    }
    tx.commit()?;
    Ok(())
}

/// Delivers every mail that is due (queued, or failed and past its back-off) to `target`, each
/// marked sent once delivered. Once the server can't be reached, the rest are recorded as failed
/// with the same error without trying (one try of each, so their back-off runs together). The
/// first delivery queues again the mails given up in the last retry days because the server
/// couldn't be reached. Nothing is tried while another send holds the outbox.
pub fn send(
    store: &mut Store,
    target: &Target,
    from: &str,
    retry: Retry,
    now: DateTime<Utc>,
) -> Result<Sent, OutboxError> {
    if let Target::Dir(dir) = target {
        std::fs::create_dir_all(dir).map_err(|source| OutboxError::Folder {
            path: dir.display().to_string(),
            source,
        })?;
    }
    let mut out = Sent::default();
    let Some(_hold) = hold(store)? else {
        out.busy = true;
        return Ok(out);
    };
    let mut down: Option<String> = None;
    let mut reached = false;
    let until = later(now, Duration::seconds(CLAIM_SECONDS));
    let mut deadlines = HashMap::new();
    let mut session = None;
    // Reports of mails given up in this run are queued after the list was read: next run.
    for mail in store.view().mails_due(now)? {
        let fresh = new_message_id(&mail, from, now);
        // Each step its own committed transaction: a claim holds even if the send then dies.
        let tx = store.begin()?;
        let claimed = tx.claim_mail(mail.id, &fresh, now, until)?;
        tx.commit()?;
        if !claimed {
            continue; // another sender took it
        }
        let message_id = mail.message_id.clone().unwrap_or(fresh);
        let picture = match mail.picture {
            Some(phase) => store.view().picture(phase)?,
            // A MAP of the board now carries a picture of its own.
            None if mail.kind == MailKind::Reply => store.view().mail_png(mail.id)?,
            None => None,
        };
        let event = deadline_event(store, &mut deadlines, &mail, from, now)?;
        let written = message(
            &mail,
            from,
            &message_id,
            picture.as_deref(),
            event.as_deref(),
        );
        let result = match (&down, written) {
            // A mail that can't be written (an address that isn't one) never will be.
            (_, Err(e)) => Err(Failure(Fault::Permanent, e)),
            (Some(e), Ok(_)) => Err(Failure(Fault::Unreachable, format!("not tried: {e}"))),
            (None, Ok(m)) => deliver(target, &mut session, &mail, &m),
        };
        match result {
            Ok(()) => {
                let tx = store.begin()?;
                tx.mail_sent(mail.id, now)?;
                if !reached {
                    reached = true;
                    let since = now
                        .checked_sub_signed(Duration::days(retry.days.into()))
                        .unwrap_or(now);
                    out.requeued = tx.requeue_unreachable(since)?.len();
                }
                tx.commit()?;
                out.sent += 1;
            }
            Err(f) => {
                if let (Failure(Fault::Unreachable, e), None) = (&f, &down) {
                    down = Some(e.clone());
                }
                failed(store, &mail, &message_id, &f, retry, now, &mut out)?;
            }
        }
    }
    if let Some(mut conn) = session {
        // The mails are taken; a QUIT the server doesn't answer changes nothing.
        let _ = conn.quit();
    }
    out.waiting = store
        .view()
        .mails(Some(MailState::Failed))?
        .into_iter()
        .filter(|m| m.kind.is_gm_notice())
        .map(|m| {
            format!(
                "the GM's notice {} to {} is not delivered ({}); it stays in the outbox, \
                 tried again from {} (napjudge outbox list)",
                m.id,
                m.to,
                m.error.as_deref().unwrap_or("no error kept"),
                m.next_try.map(|t| t.to_rfc3339()).unwrap_or_default()
            )
        })
        .collect();
    Ok(out)
}

/// Which given-up mails `outbox retry` queues again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which {
    /// The mail with this row id.
    One(i64),
    /// Every mail given up.
    All,
}

/// Queues given-up mails again (`outbox retry`), each keeping its Message-ID; their ids.
pub(crate) fn retry(store: &mut Store, which: Which) -> Result<Vec<i64>, OutboxError> {
    let ids = match which {
        Which::One(id) => {
            let mail = store.view().mail(id)?.ok_or(OutboxError::NoMail(id))?;
            if mail.state != MailState::Undeliverable {
                return Err(OutboxError::NotGivenUp {
                    id,
                    state: mail.state,
                });
            }
            vec![id]
        }
        Which::All => store
            .view()
            .mails(Some(MailState::Undeliverable))?
            .into_iter()
            .map(|m| m.id)
            .collect(),
    };
    let tx = store.begin()?;
    for id in &ids {
        tx.requeue_mail(*id)?;
    }
    tx.commit()?;
    Ok(ids)
}
