//! Mail intake, an adapter around the judge's service: one RFC 5322 message in, stored raw
//! first (its own transaction), its body read as commands ([`text`]), each command one call of
//! the service ([`Judge`]), and the reply rendered from what the calls gave, queued with the
//! message marked answered in one transaction. A mail does nothing the GM's shell commands
//! don't, and the time of each call is the mail's (`now`): a message answered late by `tick` is
//! answered as of when it came.

mod answer;
mod body;
mod command;
mod endings;
mod gm;
mod html;
mod message;
mod orders;
mod players;
mod press;
mod recover;
mod replies;
mod seats;
mod session;
mod settings;
mod stray;
pub(crate) mod text;

pub use message::Incoming;
pub use recover::tick;
pub(crate) use recover::PENDING_AFTER;
pub(crate) use replies::Block;

use crate::game::{GameError, Judge};
use crate::render::RenderError;
use crate::store::{InboxState, NewMessage, Pending};
use answer::{answer, Stored};
use chrono::{DateTime, Utc};
pub(crate) use message::digest_of;
use message::{header_part, masked, parse, whole};
use recover::{answer_stored, settle};

/// The default size limit of a message (bytes).
pub const MAX_SIZE: usize = 1 << 20;

/// Order lines one mail may hold: a power has a few dozen units; a mail with more is a mistake
/// (a pasted file, a loop) and its orders are refused whole.
pub(crate) const MAX_ORDER_LINES: usize = 500;

/// Commands one mail may give (every line but an order line; a press with its text is one): a
/// player's mail has a handful. Past it, the rest of the mail is not run, and the reply says
/// how many commands were left.
pub(crate) const MAX_COMMANDS: usize = 100;

/// LIST, HISTORY (and HISTORY PRESS), SUMMARY, PREVIEW and MAP run in one mail, in all: each
/// can be long, and a MAP draws a picture.
pub(crate) const MAX_REPORTS: usize = 3;

/// The most a reply's blocks hold (bytes): a block past it is cut, and the commands after it
/// are not run.
pub(crate) const MAX_REPLY: usize = 40_000;

/// What intake needs to know about the judge.
#[derive(Clone, Debug)]
pub struct MailConfig {
    /// The judge's own address: mail from it is never answered.
    pub judge: String,
    /// Messages larger than this (bytes) are refused unread.
    pub max_size: usize,
}

/// Why a message could not be stored, or a tick failed (anything after storing a message is
/// answered, not an error).
#[derive(Debug, thiserror::Error)]
pub enum MailError {
    /// The service (or its store) failed.
    #[error(transparent)]
    Game(#[from] GameError),
    /// The reply can't be rendered.
    #[error(transparent)]
    Render(#[from] RenderError),
}

impl MailError {
    /// Whether the database file or the machine failed, not this message: the mail server
    /// should keep it and try again later.
    pub(crate) fn is_database_fault(&self) -> bool {
        matches!(self, MailError::Game(e) if e.is_database_fault())
    }
}

/// What became of a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Handled {
    /// Stored and answered (the reply is queued).
    Answered,
    /// Seen before: answered as a duplicate, nothing done.
    Duplicate,
    /// Stored, not answered (why).
    Ignored(String),
    /// Stored, but answering failed (why): the message is marked `failed`, the GM told.
    Failed(String),
}

/// Receives one message at `now`: stores it, then answers it (or not: mail from the judge
/// itself and automatic mail are stored and never answered). A message over the size limit is
/// stored as its headers, digest and size.
pub fn receive(
    j: &mut Judge,
    cfg: &MailConfig,
    raw: &[u8],
    now: DateTime<Utc>,
) -> Result<Handled, MailError> {
    let size = u64::try_from(raw.len()).unwrap_or(u64::MAX);
    let kept = if raw.len() > cfg.max_size {
        header_part(raw)
    } else {
        raw
    };
    store_and_answer(j, cfg, kept, size, digest_of(raw), now)
}

/// [`receive`] of a message read by [`Incoming::read`].
pub fn receive_incoming(
    j: &mut Judge,
    cfg: &MailConfig,
    m: &Incoming,
    now: DateTime<Utc>,
) -> Result<Handled, MailError> {
    store_and_answer(j, cfg, &m.bytes, m.size, m.digest.clone(), now)
}

/// Stores a message (`kept`: the whole, or its headers when `size` is over the limit) and
/// answers it. An error is a message not stored, or a fault of the database: the mail server
/// keeps it and tries again. Anything else that fails marks the message failed.
fn store_and_answer(
    j: &mut Judge,
    cfg: &MailConfig,
    kept: &[u8],
    size: u64,
    digest: String,
    now: DateTime<Utc>,
) -> Result<Handled, MailError> {
    let (parsed, h) = parse(kept, whole(cfg, size));
    // No password is written: the masked copy is stored, the passwords apart until answered.
    let masked = parsed.as_ref().and_then(|m| masked(kept, m));
    let (id, earlier) = j.store_message(
        &NewMessage {
            message_id: h.message_id.as_deref(),
            digest: &digest,
            sender: h.sender.as_str(),
            raw: masked.as_ref().map_or(kept, |(r, _)| r),
            size,
            secrets: masked.as_ref().map(|(_, s)| s.as_str()),
        },
        now,
    )?;
    // A copy of a message stored and never answered (its receive was killed): the original is
    // answered now, once, and this copy through it. Under the recovery's guard: an original
    // stored less than `PENDING_AFTER` ago may still be at work in its own receive.
    if let Some(e) = earlier.as_ref().filter(|e| e.state == InboxState::Stored) {
        let original = j.view().message(e.first).map_err(GameError::from)?;
        if let Some(original) = original.filter(|o| o.received <= now - PENDING_AFTER) {
            let done = answer_stored(j, cfg, &original);
            let handled = settle(j, cfg, &original, done, now)?;
            j.mark_message(
                id,
                InboxState::Duplicate,
                &format!("a second copy of message {}, answered through it", e.first),
            )?;
            return Ok(handled);
        }
    }
    let msg = Stored {
        size,
        parsed: parsed.as_ref(),
        // Read from the bytes received, passwords and all.
        secrets: None,
        head: &h,
        id,
    };
    match answer(j, cfg, &msg, earlier, now) {
        Err(e) if !e.is_database_fault() => {
            // Only the failure's notices need the bytes again.
            let this = Pending {
                id,
                raw: kept.to_vec(),
                size,
                digest,
                secrets: None,
                received: now,
            };
            settle(j, cfg, &this, Err(e), now)
        }
        done => done,
    }
}
