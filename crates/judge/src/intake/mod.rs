//! Where mail comes in from besides a pipe: a Maildir ([`maildir`]) and an IMAP mailbox
//! ([`imap`]). Each intake hands every message to [`receive_once`] and lets it go at its source
//! only once it is stored.

pub(crate) mod imap;
pub(crate) mod maildir;

use crate::game::Judge;
use crate::mail::{self, Handled, Incoming, MailConfig, MailError};
use chrono::{DateTime, Utc};

/// What became of one message taken from a mailbox.
#[derive(Debug)]
pub struct Taken {
    /// How it was answered; `None`: stored by an earlier run that stopped before letting it go
    /// at its source (let go now, not answered again).
    pub handled: Option<Handled>,
    /// Why it belongs in the failed folder.
    pub failed: Option<SetAside>,
}

/// Why a message goes to the failed folder rather than the answered one.
#[derive(Debug, thiserror::Error)]
pub enum SetAside {
    /// It could not be stored (not a mail the judge can read): the GM looks at it.
    #[error("can't be stored ({0})")]
    Unstored(String),
    /// Over the size limit: only its headers were stored, and its sender answered.
    #[error(
        "{size} bytes, over the limit of {max}: only its headers were stored, and its sender \
         answered"
    )]
    TooLarge { size: u64, max: usize },
}

/// Stores and answers `m` unless its bytes are stored already: a mailbox hands a message again
/// when the judge stopped between storing it and letting it go, and its sender must not get a
/// second answer. `Err` only for a fault of the database: the message stays at its source.
pub(crate) fn receive_once(
    j: &mut Judge,
    cfg: &MailConfig,
    m: &Incoming,
    now: DateTime<Utc>,
) -> Result<Taken, MailError> {
    let mut taken = Taken {
        handled: None,
        failed: None,
    };
    let seen = j
        .view()
        .has_digest(m.digest())
        .map_err(|e| MailError::Game(e.into()))?;
    if !seen {
        match mail::receive_incoming(j, cfg, m, now) {
            Ok(h) => taken.handled = Some(h),
            Err(e) if e.is_database_fault() => return Err(e),
            Err(e) => taken.failed = Some(SetAside::Unstored(e.to_string())),
        }
    }
    if usize::try_from(m.size()).map_or(true, |n| n > cfg.max_size) {
        taken.failed = Some(SetAside::TooLarge {
            size: m.size(),
            max: cfg.max_size,
        });
    }
    Ok(taken)
}
