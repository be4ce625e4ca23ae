//! The received messages' own record: each stored once, then marked, answered (with its
//! reply queued in the same transaction) or failed; and the cap on the mails a stranger's
//! address gets in answer (issue 31: a forged sender can't turn the judge on anyone).

use super::{GameError, Judge};
use crate::clock;
use crate::store::{
    Address, Earlier, InboxState, MailKind, MailPicture, NewMail, NewMessage, SignedMail,
    StoreError, Tx,
};
use chrono::{DateTime, TimeDelta, Utc};

/// The most mails an address that plays, runs and observes no game gets in answer to mail
/// (replies, confirmation requests) in [`STRANGER_WINDOW`]: anyone can write a stranger's
/// address in From or Reply-To. Twice the SIGNON throttle's wrong passwords per sender
/// (`SENDER_LIMIT`), so that one who mistyped a password still hears that it is throttled.
const STRANGER_MAILS: u32 = 10;

/// The window [`STRANGER_MAILS`] counts in.
const STRANGER_WINDOW: TimeDelta = TimeDelta::hours(24);

/// The body a mail in answer to mail goes to `to` with now, if it may go, counted in the
/// transaction that queues it: to an address the judge knows (a player's, a GM's, an
/// observer's), unchanged; to a stranger's, counted, the last of the window saying so; past the
/// cap, none.
pub(super) fn to_stranger(
    tx: &Tx,
    to: &Address,
    body: &str,
    now: DateTime<Utc>,
) -> Result<Option<String>, StoreError> {
    if tx.view().is_known(to)? {
        return Ok(Some(body.to_string()));
    }
    let since = now - STRANGER_WINDOW;
    let (sent, first) = tx.view().stranger_mail(to, since)?;
    if sent >= STRANGER_MAILS {
        return Ok(None);
    }
    tx.add_stranger_mail(to, since, now)?;
    if sent.saturating_add(1) < STRANGER_MAILS {
        return Ok(Some(body.to_string()));
    }
    let until = first.unwrap_or(now) + STRANGER_WINDOW;
    Ok(Some(format!(
        "This is the last mail this address gets from the judge today: it answers at most \
         {STRANGER_MAILS} mails a day from an address that plays and observes no game. Further \
         mails are read but not answered until {}.\n\n{body}",
        clock::show_in(until, "UTC")
    )))
}

/// A reply to a received message, for [`Judge::answer_message`].
pub(crate) struct Reply<'a> {
    /// The game it concerned, if any.
    pub game: Option<i64>,
    /// The recipient.
    pub to: &'a str,
    /// The subject.
    pub subject: &'a str,
    /// The body, rendered.
    pub body: &'a str,
    /// The Message-ID (without brackets) of the message answered.
    pub in_reply_to: Option<&'a str>,
    /// The mail's record for refusing older mail and replays, when it was handled after a
    /// SIGNON.
    pub handled: Option<&'a SignedMail>,
    /// A picture of the board the reply carries (MAP).
    pub picture: Option<&'a MailPicture>,
    /// Mails queued with the reply (the copy of a SIGNON from an address other than the
    /// role's own, for that address).
    pub also: &'a [NewMail<'a>],
}

impl Judge {
    /// Stores a received message (`stored`), in its own transaction: its row id and, if it was
    /// seen before (the same Message-ID, else the same bytes), when.
    pub fn store_message(
        &mut self,
        m: &NewMessage,
        now: DateTime<Utc>,
    ) -> Result<(i64, Option<Earlier>), GameError> {
        let tx = self.store.begin()?;
        let id = tx.store_message(m, now)?;
        let earlier = tx.view().earlier(m.message_id, m.digest, id)?;
        tx.commit()?;
        Ok((id, earlier))
    }

    /// Marks a received message still `stored` as `state` (ignored on purpose, or a duplicate
    /// answered through its original), with why.
    pub(crate) fn mark_message(
        &mut self,
        id: i64,
        state: InboxState,
        why: &str,
    ) -> Result<(), GameError> {
        let tx = self.store.begin()?;
        let secrets = tx.set_message_state(id, state, None, Some(why))?;
        tx.commit()?;
        self.forget_secrets(secrets)
    }

    /// After a message's passwords were dropped (`secrets`: it held some): the log that still
    /// has them emptied.
    fn forget_secrets(&self, secrets: Option<bool>) -> Result<(), GameError> {
        if secrets == Some(true) {
            self.store.truncate_wal()?;
        }
        Ok(())
    }

    /// Queues the reply to the received message `id` and marks the message `state`, in one
    /// transaction: a message is answered once or not at all (a message another napjudge
    /// answered first gets no second reply).
    pub(crate) fn answer_message(
        &mut self,
        id: i64,
        state: InboxState,
        reply: &Reply,
        now: DateTime<Utc>,
    ) -> Result<(), GameError> {
        let tx = self.store.begin()?;
        // A mail that signed on with a power's password is its player's, from whatever address
        // (a copy goes to the power's own): its reply is not a stranger's.
        let body = match reply.handled {
            Some(_) => Some(reply.body.to_string()),
            None => to_stranger(&tx, &Address::new(reply.to), reply.body, now)?,
        };
        let note = body.is_none().then(|| {
            format!(
                "not answered: its sender had the {STRANGER_MAILS} mails a day the judge sends \
                 an address that plays and observes no game"
            )
        });
        let Some(secrets) = tx.set_message_state(id, state, reply.game, note.as_deref())? else {
            return Ok(());
        };
        if let Some(body) = body {
            let mail = tx.queue_mail(
                &NewMail {
                    game: reply.game,
                    phase: None,
                    kind: MailKind::Reply,
                    to: reply.to,
                    subject: reply.subject,
                    body: &body,
                    in_reply_to: reply.in_reply_to,
                },
                now,
            )?;
            match reply.picture {
                Some(MailPicture::Stored(phase)) => tx.mail_picture(mail, *phase)?,
                Some(MailPicture::Drawn(png)) => tx.mail_png(mail, png)?,
                None => {}
            }
        }
        for m in reply.also {
            tx.queue_mail(m, now)?;
        }
        if let Some(h) = reply.handled {
            tx.add_handled(id, h)?;
        }
        tx.commit()?;
        self.forget_secrets(Some(secrets))
    }

    /// Marks the received message `id` failed with why, and queues the notice to the GM (or
    /// the judge's own address) and the word to its sender, in one transaction: later ticks
    /// skip it, and the notices go once.
    pub(crate) fn fail_message(
        &mut self,
        id: i64,
        why: &str,
        gm: &Reply,
        sender: Option<&Reply>,
        now: DateTime<Utc>,
    ) -> Result<(), GameError> {
        let tx = self.store.begin()?;
        let Some(secrets) = tx.set_message_state(id, InboxState::Failed, gm.game, Some(why))?
        else {
            return Ok(());
        };
        // The sender's word is a reply: capped as one.
        let word = match sender {
            Some(r) => to_stranger(&tx, &Address::new(r.to), r.body, now)?.map(|b| (r, b)),
            None => None,
        };
        let notices = [
            Some((MailKind::Unanswered, gm, gm.body.to_string())),
            word.map(|(r, b)| (MailKind::Reply, r, b)),
        ];
        for (kind, n, body) in notices.into_iter().flatten() {
            tx.queue_mail(
                &NewMail {
                    game: n.game,
                    phase: None,
                    kind,
                    to: n.to,
                    subject: n.subject,
                    body: &body,
                    in_reply_to: n.in_reply_to,
                },
                now,
            )?;
        }
        tx.commit()?;
        self.forget_secrets(Some(secrets))
    }
}
