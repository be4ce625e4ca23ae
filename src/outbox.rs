//! The outbox: every mail the judge queued, sent as RFC 5322 messages. This issue delivers to a
//! folder (one `.eml` file per mail); SMTP comes with mail intake.

use crate::store::{self, Mail, Store, StoreError};
use chrono::{DateTime, Utc};
use lettre::message::{header::ContentType, Mailbox};
use lettre::Message;
use std::path::Path;

/// Why the outbox can't be sent.
#[derive(Debug, thiserror::Error)]
pub enum OutboxError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The folder can't be made or written.
    #[error("{path}: {source} (give a folder napjudge can write to)")]
    Folder {
        /// The folder or file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
}

/// What a send did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sent {
    /// Mails written.
    pub sent: usize,
    /// Mails that failed (their error is stored with them).
    pub failed: usize,
}

/// The RFC 5322 text of a mail from `from`.
pub fn message(mail: &Mail, from: &str) -> Result<Vec<u8>, String> {
    let from: Mailbox = from.parse().map_err(|e| format!("sender '{from}': {e}"))?;
    let to: Mailbox = mail
        .to
        .parse()
        .map_err(|e| format!("recipient '{}': {e}", mail.to))?;
    let m = Message::builder()
        .from(from)
        .to(to)
        .subject(mail.subject.clone())
        .date(mail.created.into())
        .message_id(Some(format!(
            "<napjudge.{}.{}@napjudge.invalid>",
            mail.game, mail.id
        )))
        .header(ContentType::TEXT_PLAIN)
        .body(mail.body.clone())
        .map_err(|e| e.to_string())?;
    Ok(m.formatted())
}

/// Writes every queued (and previously failed) mail to `dir` as `<id>.eml`, then marks it sent.
/// A crash between the two rewrites the same file on the next send: never two files for one mail.
pub fn send_to_dir(
    store: &Store,
    dir: &Path,
    from: &str,
    now: DateTime<Utc>,
) -> Result<Sent, OutboxError> {
    let folder = |source| OutboxError::Folder {
        path: dir.display().to_string(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(folder)?;
    let mut out = Sent::default();
    let pending: Vec<Mail> = store::mails(&store.conn, None)?
        .into_iter()
        .filter(|m| m.state != "sent")
        .collect();
    for mail in pending {
        let bytes = match message(&mail, from) {
            Ok(b) => b,
            Err(e) => {
                store::mail_failed(&store.conn, mail.id, &e)?;
                out.failed += 1;
                continue;
            }
        };
        let path = dir.join(format!("{:06}.eml", mail.id));
        let tmp = dir.join(format!(".{:06}.eml.tmp", mail.id));
        let written = std::fs::write(&tmp, &bytes).and_then(|()| std::fs::rename(&tmp, &path));
        if let Err(source) = written {
            store::mail_failed(&store.conn, mail.id, &source.to_string())?;
            return Err(OutboxError::Folder {
                path: path.display().to_string(),
                source,
            });
        }
        store::mail_sent(&store.conn, mail.id, now)?;
        out.sent += 1;
    }
    Ok(out)
}
