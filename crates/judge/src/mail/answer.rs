//! Answering a stored message: ignored (no sender, the judge's own, automatic, a loop), a
//! duplicate, too large or too long to read, or its commands run and the reply queued.

use super::message::{commands, digest_of, whole, Head, Reading};
use super::replies::{as_read, attachments, reply, ReplyParts};
use super::session::{Fresh, Session};
use super::text::{self, Command};
use super::{Handled, MailConfig, MailError};
use crate::clock;
use crate::game::Judge;
use crate::store::{Address, Earlier, InboxState};
use chrono::{DateTime, Utc};
use mail_parser::Message;

/// A stored message being answered.
pub(super) struct Stored<'a> {
    /// The whole message's size.
    pub(super) size: u64,
    pub(super) parsed: Option<&'a Message<'a>>,
    /// The passwords masked in `raw`, to put back into its lines (a stored copy).
    pub(super) secrets: Option<&'a str>,
    pub(super) head: &'a Head,
    /// Its row.
    pub(super) id: i64,
}

/// Answers a stored message (or marks it ignored).
pub(super) fn answer(
    j: &mut Judge,
    cfg: &MailConfig,
    m: &Stored,
    earlier: Option<Earlier>,
    now: DateTime<Utc>,
) -> Result<Handled, MailError> {
    let (h, id) = (m.head, m.id);
    let ignored = if h.sender.as_str().is_empty() || !h.sender.as_str().contains('@') {
        Some(("no sender address to answer", "no sender address"))
    } else if h.sender == Address::new(&cfg.judge) {
        Some((
            "from the judge's own address",
            "from the judge's own address",
        ))
    } else if h.auto {
        Some((
            "automatic mail (auto-submitted or a bounce)",
            "automatic mail",
        ))
    } else if earlier.as_ref().is_some_and(|e| e.answered_twice) {
        // One duplicate reply per message: a loop resending it gets no more.
        Some(("a duplicate answered before", "a duplicate answered before"))
    } else {
        None
    };
    if let Some((note, why)) = ignored {
        j.mark_message(id, InboxState::Ignored, note)?;
        return Ok(Handled::Ignored(why.into()));
    }
    if let Some(Earlier {
        at, state, zone, ..
    }) = earlier
    {
        // In the zone of the game it was for, as the judge's other mails give times.
        let at = clock::show_in(at, zone.as_deref().unwrap_or("UTC"));
        let intro = if state == InboxState::Stored {
            format!(
                "This message (the same Message-ID, or the same text) reached the judge before, \
                 at {at}, and is being answered: this copy was not run."
            )
        } else if state == InboxState::Failed {
            format!(
                "This message (the same Message-ID, or the same text) reached the judge before, \
                 at {at}, and could not be answered then: the GM was told. Nothing was done this \
                 time."
            )
        } else {
            format!(
                "This message (the same Message-ID, or the same text) reached the judge before, \
                 at {at}. It was answered then; nothing was done this time."
            )
        };
        reply(
            j,
            h,
            id,
            &intro,
            InboxState::Duplicate,
            now,
            ReplyParts::default(),
        )?;
        return Ok(Handled::Duplicate);
    }
    if !whole(cfg, m.size) {
        let intro = format!(
            "Your mail of {} bytes is over the judge's limit of {} bytes; nothing in it was \
             read. Send your commands as plain text, without attachments.",
            m.size, cfg.max_size
        );
        return unread(j, h, id, &intro, now);
    }
    let Reading { lines, body } = match commands(m.parsed, m.secrets) {
        Ok(r) => r,
        Err(long) => {
            let intro = format!(
                "Your mail has {} lines of text; the judge reads at most {} in one mail. \
                 Nothing in it was read: send fewer at a time.",
                long.0,
                text::MAX_LINES
            );
            return unread(j, h, id, &intro, now);
        }
    };
    let attachments = attachments(&body);
    if lines.is_empty() {
        let intro = "The judge found no text it could read in your mail (no plain text or HTML \
                     body, or only quoted lines). Nothing was done. Write your commands as plain \
                     text, starting with SIGNON POWER GAME PASSWORD; send HELP for the guide.";
        reply(
            j,
            h,
            id,
            intro,
            InboxState::Answered,
            now,
            ReplyParts {
                blocks: &attachments,
                ..ReplyParts::default()
            },
        )?;
        return Ok(Handled::Answered);
    }
    // The text read, line by line, the SIGNON without its password (a stored mail has it
    // masked until it is answered).
    let mut own: String = lines
        .iter()
        .map(|l| match &l.command {
            Command::Signon { power, game, .. } => format!("SIGNON {power} {game}\n"),
            Command::Press { body, .. } => format!("{}\n{body}", l.text),
            _ => format!("{}\n", l.text),
        })
        .collect();
    // Players send the same short press twice in a phase ("ok", an empty one: 8 such mails in
    // the recorded games, four in one second), so a mail with press is a copy only with the
    // same Date too, and a copy is still read: only its press is not sent again.
    let press = lines
        .iter()
        .any(|l| matches!(l.command, Command::Press { .. }));
    if press {
        let date = h.date.map(|d| d.to_rfc3339()).unwrap_or_default();
        own.push_str(&format!("Date: {date}\n"));
    }
    let fresh = Fresh {
        dated: h.dated(now),
        digest: digest_of(own.as_bytes()),
        press,
    };
    let read = Session::new(j, cfg, h, now).run(&lines, &fresh)?;
    // A reply to a mail with a line that failed starts with the mail as it was read.
    let mut blocks = Vec::new();
    let shown = as_read(&body.text);
    if read.failed && !shown.lines.is_empty() {
        blocks.push(shown);
    }
    blocks.extend(attachments);
    blocks.extend(read.blocks);
    reply(
        j,
        h,
        id,
        &read.intro,
        InboxState::Answered,
        now,
        ReplyParts {
            game: read.game,
            blocks: &blocks,
            extras: Some(&read.extras),
            gm: read.gm,
        },
    )?;
    Ok(Handled::Answered)
}

/// Answers a mail none of which was read (over the size limit, or too many lines) with `intro`,
/// which says why and what to send instead.
fn unread(
    j: &mut Judge,
    h: &Head,
    id: i64,
    intro: &str,
    now: DateTime<Utc>,
) -> Result<Handled, MailError> {
    reply(
        j,
        h,
        id,
        intro,
        InboxState::Answered,
        now,
        ReplyParts::default(),
    )?;
    Ok(Handled::Answered)
}
