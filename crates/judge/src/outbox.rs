//! The outbox: every mail the judge queued, delivered as RFC 5322 messages to a mail server by
//! SMTP, or into a folder (one `.eml` file per mail) for local use.
//!
//! A mail is marked sent only once the server accepted it (or its file is in place). Before each
//! try the mail is claimed in its own committed transaction, which fixes its Message-ID: a judge
//! killed between the server's acceptance and marking it sent sends it again later with the same
//! Message-ID, never loses it. A failed try is retried with back-off by later sends; after the
//! retry limit the mail is given up and the game's GM is mailed why.

use crate::config::{ConfigError, Security, Smtp};
use crate::render;
use crate::store::{Mail, MailKind, NewMail, Store, StoreError};
use askama::Template;
use chrono::{DateTime, Duration, Utc};
use lettre::message::header::{ContentType, Header, HeaderName, HeaderValue};
use lettre::message::{Attachment, Mailbox, MultiPart, SinglePart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::{Message, SmtpTransport, Transport};
use std::path::PathBuf;

/// How long a claimed mail is held from other senders: longer than one try can take.
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
}

/// The retry policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retry {
    /// Tries before a mail is given up.
    pub limit: u32,
    /// Minutes before the first retry; doubled for each later one.
    pub minutes: u32,
}

impl Retry {
    /// The policy of `[outbox]` in napjudge.toml.
    pub fn from_config(c: &crate::config::Outbox) -> Retry {
        Retry {
            limit: c.retry_limit,
            minutes: c.retry_minutes,
        }
    }

    /// When a mail that has now failed `tries` times is tried again; none once the limit is
    /// reached.
    fn next(&self, tries: i64, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        if tries >= i64::from(self.limit) {
            return None;
        }
        // 5, 10, 20, ... minutes, capped at a day so a long outage is still retried daily.
        let shift = u32::try_from(tries.saturating_sub(1).clamp(0, 20)).unwrap_or(20);
        let minutes = i64::from(self.minutes)
            .saturating_mul(1_i64 << shift)
            .min(24 * 60);
        Some(now + Duration::minutes(minutes))
    }
}

/// Where mails go.
pub enum Target {
    /// A folder of `.eml` files.
    Dir(PathBuf),
    /// A mail server.
    Smtp(Box<SmtpTransport>),
}

impl Target {
    /// The mail server `smtp` describes (its password file is read here).
    pub fn smtp(smtp: &Smtp) -> Result<Target, OutboxError> {
        let server = |e: lettre::transport::smtp::Error| OutboxError::Server {
            host: smtp.host.clone(),
            message: e.to_string(),
        };
        let mut builder = match smtp.security {
            Security::Plain => SmtpTransport::builder_dangerous(&smtp.host),
            Security::Starttls => SmtpTransport::starttls_relay(&smtp.host).map_err(server)?,
            Security::Tls => SmtpTransport::relay(&smtp.host).map_err(server)?,
        };
        if let (Some(file), Security::Starttls | Security::Tls) = (&smtp.ca_file, smtp.security) {
            let pem = std::fs::read(file).map_err(|source| ConfigError::CaFile {
                path: file.display().to_string(),
                source,
            })?;
            let params = TlsParameters::builder(smtp.host.clone())
                .add_root_certificate(Certificate::from_pem(&pem).map_err(server)?)
                .build_rustls()
                .map_err(server)?;
            builder = builder.tls(match smtp.security {
                Security::Tls => Tls::Wrapper(params),
                _ => Tls::Required(params),
            });
        }
        let mut builder = builder
            .port(smtp.port())
            .timeout(Some(std::time::Duration::from_secs(smtp.timeout)));
        if let Some((user, password)) = smtp.credentials()? {
            builder = builder.credentials(Credentials::new(user, password));
        }
        Ok(Target::Smtp(Box::new(builder.build())))
    }
}

/// How one try failed.
enum Failure {
    /// The server refused this mail (4xx or 5xx): retried. Even a 5xx isn't given up at once: the
    /// same codes come from a judge the server refuses as a sender, and giving up then would lose
    /// every mail of the run.
    Refused(String),
    /// The server (or folder) can't be used at all (no connection, TLS, timeout, a failed login,
    /// 421): retried, and the mails after this one aren't tried in this run.
    Unreachable(String),
    /// The mail can't be written (an address that isn't one): it never will be, so given up now.
    Invalid(String),
}

/// `Auto-Submitted` (RFC 3834): tells vacation responders and other judges not to answer.
#[derive(Clone, Debug, PartialEq, Eq)]
struct AutoSubmitted(&'static str);

impl Header for AutoSubmitted {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("Auto-Submitted")
    }

    fn parse(s: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        match s.trim() {
            "auto-replied" => Ok(AutoSubmitted("auto-replied")),
            "auto-generated" => Ok(AutoSubmitted("auto-generated")),
            other => Err(format!("Auto-Submitted: {other}").into()),
        }
    }

    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), self.0.to_string())
    }
}

/// A new Message-ID for a mail of the judge at `from`: unique across databases too (the row id
/// alone repeats when a judge starts a new file), so the time of the first try is in it.
fn new_message_id(mail: &Mail, from: &str, now: DateTime<Utc>) -> String {
    let domain = from
        .rsplit_once('@')
        .map(|(_, d)| d.trim_end_matches('>'))
        .filter(|d| !d.is_empty())
        .unwrap_or("napjudge.invalid");
    let nanos = now.timestamp_nanos_opt().unwrap_or_default();
    // The left part must be a dot-atom: the game's name reduced to letters, digits and '-', and
    // a reply outside any game (HELP, an unknown game) named `mail`.
    let game: String = mail
        .game
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    let game = if game.is_empty() { "mail" } else { &game };
    format!(
        "<napjudge.{game}.{}.{:x}.{}@{domain}>",
        mail.id,
        nanos,
        std::process::id()
    )
}

/// The message of a mail from `from`, with its Message-ID: plain text, or with a picture of the
/// board, the same text followed by the PNG as an attachment (multipart/mixed).
pub fn message(
    mail: &Mail,
    from: &str,
    message_id: &str,
    picture: Option<&[u8]>,
) -> Result<Message, String> {
    let from: Mailbox = from.parse().map_err(|e| format!("sender '{from}': {e}"))?;
    let to: Mailbox = mail
        .to
        .parse()
        .map_err(|e| format!("recipient '{}': {e}", mail.to))?;
    let mut builder = Message::builder()
        .from(from)
        .to(to)
        .subject(mail.subject.clone())
        .date(mail.created.into())
        .message_id(Some(message_id.to_string()))
        .header(AutoSubmitted(mail.kind.auto_submitted()));
    if let Some(id) = &mail.in_reply_to {
        builder = builder
            .in_reply_to(format!("<{id}>"))
            .references(format!("<{id}>"));
    }
    match picture {
        None => builder
            .header(ContentType::TEXT_PLAIN)
            .body(mail.body.clone()),
        Some(png) => {
            let png_type = ContentType::parse("image/png").map_err(|e| e.to_string())?;
            let name: String = mail
                .game
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            builder.multipart(
                MultiPart::mixed()
                    .singlepart(SinglePart::plain(mail.body.clone()))
                    .singlepart(
                        Attachment::new(format!("{name}-board.png")).body(png.to_vec(), png_type),
                    ),
            )
        }
    }
    .map_err(|e| e.to_string())
}

fn deliver(target: &Target, mail: &Mail, m: &Message) -> Result<(), Failure> {
    match target {
        Target::Dir(dir) => {
            // Written aside then renamed: a crash never leaves half a file under the real name,
            // and a resend rewrites the same file.
            let path = dir.join(format!("{:06}.eml", mail.id));
            let tmp = dir.join(format!(".{:06}.eml.tmp", mail.id));
            std::fs::write(&tmp, m.formatted())
                .and_then(|()| std::fs::rename(&tmp, &path))
                .map_err(|e| Failure::Unreachable(format!("{}: {e}", path.display())))
        }
        Target::Smtp(transport) => transport.send(m).map(|_| ()).map_err(|e| {
            let code = e.status().map(u16::from);
            let login_or_closing = code.is_some_and(|c| c == 421 || (530..=538).contains(&c));
            if (e.is_permanent() || e.is_transient()) && !login_or_closing {
                Failure::Refused(e.to_string())
            } else {
                Failure::Unreachable(e.to_string())
            }
        }),
    }
}

/// The GM's mail about a mail given up.
#[derive(Template)]
#[template(path = "undeliverable.txt")]
pub struct UndeliverableMail<'a> {
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
    let tries = mail.tries + 1;
    let (error, next) = match failure {
        Failure::Invalid(e) => (e, None),
        Failure::Refused(e) | Failure::Unreachable(e) => (e, retry.next(tries, now)),
    };
    let tx = store.begin()?;
    tx.mail_failed(mail.id, error, next)?;
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
        // A report of a mail given up is never itself reported (no loop when the GM's
        // address is the broken one).
        if mail.kind != MailKind::Undeliverable {
            if let Some(game) = tx.view().game(&mail.game)? {
                let body = render::render(
                    "undeliverable",
                    &UndeliverableMail {
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
    }
    tx.commit()?;
    Ok(())
}

/// Delivers every mail that is due (queued, or failed and past its back-off) to `target`, each
/// marked sent once delivered. Once the server can't be reached, the rest are recorded as failed
/// with the same error without trying (one try of each, so their back-off runs together).
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
    let mut down: Option<String> = None;
    let until = now + Duration::seconds(CLAIM_SECONDS);
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
            None => None,
        };
        let result = match (&down, message(&mail, from, &message_id, picture.as_deref())) {
            (_, Err(e)) => Err(Failure::Invalid(e)),
            (Some(e), Ok(_)) => Err(Failure::Unreachable(format!("not tried: {e}"))),
            (None, Ok(m)) => deliver(target, &mail, &m),
        };
        match result {
            Ok(()) => {
                let tx = store.begin()?;
                tx.mail_sent(mail.id, now)?;
                tx.commit()?;
                out.sent += 1;
            }
            Err(f) => {
                if let (Failure::Unreachable(e), None) = (&f, &down) {
                    down = Some(e.clone());
                }
                failed(store, &mail, &message_id, &f, retry, now, &mut out)?;
            }
        }
    }
    Ok(out)
}
