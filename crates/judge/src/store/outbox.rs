//! The outbox: mails queued, claimed for a try, sent, failed, given up and queued again, the
//! pictures they carry, the bodies HISTORY and the replay read back, and the count of mail to
//! strangers.

use super::{
    exec, read_opt_time, read_time, row, time, Address, Fault, MailKind, MailState, StoreError, Tx,
    View,
};
use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension, Row};

/// A mail in the outbox.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mail {
    /// Row id (also the .eml file's name).
    pub id: i64,
    /// The game's name.
    pub game: String,
    /// What kind of mail.
    pub kind: MailKind,
    /// The recipient.
    pub to: String,
    /// The subject.
    pub subject: String,
    /// The body, plain text.
    pub body: String,
    /// Where it stands.
    pub state: MailState,
    /// The last error, when it failed.
    pub error: Option<String>,
    /// Tries so far.
    pub tries: i64,
    /// When it was queued.
    pub created: DateTime<Utc>,
    /// Its Message-ID, fixed at the first try.
    pub message_id: Option<String>,
    /// Not tried again before this (back-off after a failure).
    pub next_try: Option<DateTime<Utc>>,
    /// The picture it carries (a phase's, see [`View::picture`]).
    pub picture: Option<i64>,
    /// The Message-ID (without brackets) of the mail it answers.
    pub in_reply_to: Option<String>,
    /// When its first failed try since it was last queued was: its retry days count from it.
    pub failing_since: Option<DateTime<Utc>>,
}

/// A new mail for [`Tx::queue_mail`].
pub(crate) struct NewMail<'a> {
    /// The game (none for a reply to mail that names no game).
    pub game: Option<i64>,
    /// The phase it belongs to, if any.
    pub phase: Option<i64>,
    /// What kind of mail.
    pub kind: MailKind,
    /// The recipient.
    pub to: &'a str,
    /// The subject.
    pub subject: &'a str,
    /// The body.
    pub body: &'a str,
    /// The Message-ID (without brackets) of the mail it answers, for a reply.
    pub in_reply_to: Option<&'a str>,
}

/// A picture of the board a mail carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum MailPicture {
    /// The stored picture of a processed phase (its row id): the bytes its result mails carried.
    Stored(i64),
    /// A picture drawn for this mail (PNG), kept on its outbox row.
    Drawn(Vec<u8>),
}

const MAIL_COLUMNS: &str = "o.id, COALESCE(g.name, ''), o.kind, o.recipient, o.subject, o.body, \
     o.state, o.error, o.tries, o.created, o.message_id, o.next_try, o.picture, o.in_reply_to, \
     o.failing_since";

/// A mail's row, with its times still as stored: created, next try, failing since.
type MailRow = (Mail, String, Option<String>, Option<String>);

fn mail_row(r: &Row) -> rusqlite::Result<MailRow> {
    Ok((
        Mail {
            id: r.get(0)?,
            game: r.get(1)?,
            kind: r.get(2)?,
            to: r.get(3)?,
            subject: r.get(4)?,
            body: r.get(5)?,
            state: r.get(6)?,
            error: r.get(7)?,
            tries: r.get(8)?,
            created: DateTime::<Utc>::MIN_UTC,
            message_id: r.get(10)?,
            next_try: None,
            picture: r.get(12)?,
            in_reply_to: r.get(13)?,
            failing_since: None,
        },
        r.get(9)?,
        r.get(11)?,
        r.get(14)?,
    ))
}

fn read_mails(raw: Vec<MailRow>) -> Result<Vec<Mail>, StoreError> {
    raw.into_iter()
        .map(|(mut m, created, next_try, failing_since)| {
            m.created = read_time(&created)?;
            m.next_try = read_opt_time(next_try)?;
            m.failing_since = read_opt_time(failing_since)?;
            Ok(m)
        })
        .collect()
}

/// Whether ?1, a folded address, plays, runs or observes a game (through schema 19's indexes).
pub(super) const IS_KNOWN: &str = "SELECT EXISTS (SELECT 1 FROM players WHERE lower(address) = ?1)
     OR EXISTS (SELECT 1 FROM games WHERE lower(gm) = ?1)
     OR EXISTS (SELECT 1 FROM observers WHERE lower(address) = ?1)";

impl View<'_> {
    /// Whether `address` plays, runs or observes a game: mail to it is not a stranger's.
    pub(crate) fn is_known(&self, address: &Address) -> Result<bool, StoreError> {
        Ok(row(self.0, IS_KNOWN, [address.folded()], |r| r.get(0))?)
    }

    /// The mails to the stranger `address` since `since`: how many, and the first's time.
    pub(crate) fn stranger_mail(
        &self,
        address: &Address,
        since: DateTime<Utc>,
    ) -> Result<(u32, Option<DateTime<Utc>>), StoreError> {
        let (n, first): (u32, Option<String>) = row(
            self.0,
            "SELECT COUNT(*), MIN(at) FROM stranger_mail WHERE address = ?1 AND at > ?2",
            params![address.folded(), time(since)],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        Ok((n, read_opt_time(first)?))
    }

    /// The picture of `phase`, when one was stored.
    pub fn picture(&self, phase: i64) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(row(
            self.0,
            "SELECT png FROM pictures WHERE phase = ?1",
            [phase],
            |r| r.get(0),
        )
        .optional()?)
    }

    /// The picture a mail carries of its own (a MAP of the board now), when it has one.
    pub fn mail_png(&self, id: i64) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(
            row(self.0, "SELECT png FROM outbox WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .optional()?
            .flatten(),
        )
    }

    /// The outbox, oldest first; only mails in `state` when given.
    pub fn mails(&self, state: Option<MailState>) -> Result<Vec<Mail>, StoreError> {
        let mut st = self.0.prepare_cached(&format!(
            "SELECT {MAIL_COLUMNS} FROM outbox o LEFT JOIN games g ON g.id = o.game
             WHERE ?1 IS NULL OR o.state = ?1 ORDER BY o.id"
        ))?;
        let raw: Vec<_> = st.query_map([state], mail_row)?.collect::<Result<_, _>>()?;
        read_mails(raw)
    }

    /// The mail of the outbox with row id `id`.
    pub(crate) fn mail(&self, id: i64) -> Result<Option<Mail>, StoreError> {
        let mut st = self.0.prepare_cached(&format!(
            "SELECT {MAIL_COLUMNS} FROM outbox o LEFT JOIN games g ON g.id = o.game
             WHERE o.id = ?1"
        ))?;
        let raw: Vec<_> = st.query_map([id], mail_row)?.collect::<Result<_, _>>()?;
        Ok(read_mails(raw)?.into_iter().next())
    }

    /// The body of the first reply queued after row `after` of the outbox.
    pub fn reply_after(&self, after: i64) -> Result<Option<String>, StoreError> {
        Ok(row(
            self.0,
            "SELECT body FROM outbox WHERE kind = ?2 AND id > ?1 ORDER BY id LIMIT 1",
            params![after, MailKind::Reply],
            |r| r.get(0),
        )
        .optional()?)
    }

    /// The last row id of the outbox (0 when empty).
    pub fn last_mail_id(&self) -> Result<i64, StoreError> {
        Ok(row(
            self.0,
            "SELECT COALESCE(MAX(id), 0) FROM outbox",
            [],
            |r| r.get(0),
        )?)
    }

    /// How many mails of `kind` a game queued.
    pub fn mail_count(&self, game: i64, kind: MailKind) -> Result<i64, StoreError> {
        Ok(row(
            self.0,
            "SELECT COUNT(*) FROM outbox WHERE kind = ?2 AND game = ?1",
            params![game, kind],
            |r| r.get(0),
        )?)
    }

    /// The mails due for a try at `now`: queued or failed, and not waiting for a back-off;
    /// oldest first.
    pub(crate) fn mails_due(&self, now: DateTime<Utc>) -> Result<Vec<Mail>, StoreError> {
        let mut st = self.0.prepare_cached(&format!(
            "SELECT {MAIL_COLUMNS} FROM outbox o LEFT JOIN games g ON g.id = o.game
             WHERE o.state IN ('queued', 'failed') AND (o.next_try IS NULL OR o.next_try <= ?1)
             ORDER BY o.id"
        ))?;
        let raw: Vec<_> = st
            .query_map([time(now)], mail_row)?
            .collect::<Result<_, _>>()?;
        read_mails(raw)
    }

    /// The body of each processed phase's first results mail, oldest first (HISTORY).
    pub(crate) fn results_bodies(&self, game: i64) -> Result<Vec<String>, StoreError> {
        let mut st = self.0.prepare_cached(
            "SELECT body FROM outbox WHERE id IN
               (SELECT MIN(id) FROM outbox WHERE game = ?1 AND kind = 'results' GROUP BY phase)
             ORDER BY id",
        )?;
        let rows = st.query_map([game], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

impl Tx<'_> {
    /// Counts a mail to the stranger `address`, and forgets its mails before `since`: only
    /// the window's count is ever read.
    pub(crate) fn add_stranger_mail(
        &self,
        address: &Address,
        since: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        exec(
            &self.0,
            "DELETE FROM stranger_mail WHERE address = ?1 AND at <= ?2",
            params![address.folded(), time(since)],
        )?;
        exec(
            &self.0,
            "INSERT INTO stranger_mail (address, at) VALUES (?1, ?2)",
            params![address.folded(), time(now)],
        )?;
        Ok(())
    }

    /// Has the queued mail `id` carry the stored picture of `phase`.
    pub(crate) fn mail_picture(&self, id: i64, phase: i64) -> Result<(), StoreError> {
        exec(
            &self.0,
            "UPDATE outbox SET picture = ?2 WHERE id = ?1",
            params![id, phase],
        )?;
        Ok(())
    }

    /// Has the queued mail `id` carry `png`, a picture of its own.
    pub(crate) fn mail_png(&self, id: i64, png: &[u8]) -> Result<(), StoreError> {
        exec(
            &self.0,
            "UPDATE outbox SET png = ?2 WHERE id = ?1",
            params![id, png],
        )?;
        Ok(())
    }

    /// Queues a mail.
    pub(crate) fn queue_mail(&self, m: &NewMail, now: DateTime<Utc>) -> Result<i64, StoreError> {
        exec(
            &self.0,
            "INSERT INTO outbox (game, phase, kind, recipient, subject, body, state, tries,
                                 created, in_reply_to)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 0, ?8, ?9)",
            params![
                m.game,
                m.phase,
                m.kind,
                m.to,
                m.subject,
                m.body,
                MailState::Queued,
                time(now),
                m.in_reply_to
            ],
        )?;
        Ok(self.0.last_insert_rowid())
    }

    /// Stores `png` as the picture of `phase` and attaches it to the phase's result mails.
    pub(crate) fn attach_picture(&self, phase: i64, png: &[u8]) -> Result<(), StoreError> {
        exec(
            &self.0,
            "INSERT OR REPLACE INTO pictures (phase, png) VALUES (?1, ?2)",
            params![phase, png],
        )?;
        exec(
            &self.0,
            "UPDATE outbox SET picture = ?1 WHERE phase = ?1 AND kind = ?2",
            params![phase, MailKind::Results],
        )?;
        Ok(())
    }

    /// Takes a due mail for one try: fixes its Message-ID (kept if it has one) and holds it
    /// from other senders until `until`, so two `outbox send`s never send it at once, and a
    /// sender killed mid-send leaves it to be tried again after `until`. False when it is no
    /// longer due.
    pub(crate) fn claim_mail(
        &self,
        id: i64,
        message_id: &str,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let n = exec(
            &self.0,
            "UPDATE outbox SET message_id = COALESCE(message_id, ?2), next_try = ?4
             WHERE id = ?1 AND state IN ('queued', 'failed')
                   AND (next_try IS NULL OR next_try <= ?3)",
            params![id, message_id, time(now), time(until)],
        )?;
        Ok(n == 1)
    }

    /// Marks a mail sent; a generated password it carried is masked in its body (sent, it is
    /// the player's to keep, not the judge's).
    pub(crate) fn mail_sent(&self, id: i64, now: DateTime<Utc>) -> Result<(), StoreError> {
        exec(
            &self.0,
            "UPDATE outbox SET state = ?3, tries = tries + 1, error = NULL, sent_at = ?2,
                    next_try = NULL, fault = NULL, failing_since = NULL, given_up = NULL,
                    body = CASE WHEN secret IS NULL THEN body
                                ELSE replace(body, secret, '******') END,
                    secret = NULL
             WHERE id = ?1",
            params![id, time(now), MailState::Sent],
        )?;
        Ok(())
    }

    /// Marks a try of a mail failed at `now`, with why: tried again from `retry` on, or, with
    /// none, given up. The first failure since it was queued starts its retry days.
    pub(crate) fn mail_failed(
        &self,
        id: i64,
        error: &str,
        fault: Fault,
        retry: Option<DateTime<Utc>>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let state = if retry.is_some() {
            MailState::Failed
        } else {
            MailState::Undeliverable
        };
        exec(
            &self.0,
            "UPDATE outbox SET state = ?2, tries = tries + 1, error = ?3, next_try = ?4,
                    fault = ?5, failing_since = COALESCE(failing_since, ?6),
                    given_up = CASE WHEN ?4 IS NULL THEN ?6 END
             WHERE id = ?1",
            params![id, state, error, retry.map(time), fault, time(now)],
        )?;
        Ok(())
    }

    /// Queues a given-up mail again, as if new (its Message-ID kept): false when mail `id`
    /// isn't given up.
    pub(crate) fn requeue_mail(&self, id: i64) -> Result<bool, StoreError> {
        let n = exec(
            &self.0,
            "UPDATE outbox SET state = ?2, tries = 0, next_try = NULL, failing_since = NULL,
                    given_up = NULL
             WHERE id = ?1 AND state = ?3",
            params![id, MailState::Queued, MailState::Undeliverable],
        )?;
        Ok(n == 1)
    }

    /// Queues again every mail given up at `since` or later because the server couldn't be
    /// reached; their row ids.
    pub(crate) fn requeue_unreachable(&self, since: DateTime<Utc>) -> Result<Vec<i64>, StoreError> {
        let mut st = self.0.prepare_cached(
            "UPDATE outbox SET state = ?2, tries = 0, next_try = NULL, failing_since = NULL,
                    given_up = NULL
             WHERE state = ?3 AND fault = ?4 AND given_up >= ?1
             RETURNING id",
        )?;
        let ids = st.query_map(
            params![
                time(since),
                MailState::Queued,
                MailState::Undeliverable,
                Fault::Unreachable
            ],
            |r| r.get(0),
        )?;
        let mut ids: Vec<i64> = ids.collect::<Result<_, _>>()?;
        ids.sort_unstable();
        Ok(ids)
    }

    /// Keeps `secret` (a generated password in the mail's body) with the queued mail `id`, to be
    /// masked once it is sent.
    pub(crate) fn mail_secret(&self, id: i64, secret: &str) -> Result<(), StoreError> {
        exec(
            &self.0,
            "UPDATE outbox SET secret = ?2 WHERE id = ?1",
            params![id, secret],
        )?;
        Ok(())
    }
}
