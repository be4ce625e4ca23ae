//! The mail received: each message stored raw before it is read, the copies seen before, the
//! messages stored and never answered, what became of each, and the record of each mail
//! handled after its SIGNON (what refuses an older mail or a replay).

use super::{exec, read_opt_time, read_time, row, time, InboxState, Role, StoreError, Tx, View};
use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension};

/// A received message as stored, for `Tx::store_message`.
pub struct NewMessage<'a> {
    /// The Message-ID header, without brackets.
    pub message_id: Option<&'a str>,
    /// The SHA-256 of the raw bytes, hex.
    pub digest: &'a str,
    /// The address a reply goes to (`''` when there is none).
    pub sender: &'a str,
    /// The raw bytes, passwords masked: the whole message, or only its headers when it is over
    /// the size limit.
    pub raw: &'a [u8],
    /// The whole message's size (bytes) as received.
    pub size: u64,
    /// The passwords masked in `raw`, one `LINE PASSWORD` line each, kept only until the
    /// message is answered.
    pub secrets: Option<&'a str>,
}

/// A message seen before the one asked about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Earlier {
    /// When it first came.
    pub at: DateTime<Utc>,
    /// The zone of the game the first copy was answered for (none: it named no game).
    pub zone: Option<String>,
    /// A duplicate of it was answered already.
    pub answered_twice: bool,
    /// The first copy's row id.
    pub first: i64,
    /// What became of the first copy: `stored` when it was never answered.
    pub state: InboxState,
}

/// A mail handled for a power (or the GM) after its SIGNON: what refuses an older mail and a
/// replay of the same text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SignedMail {
    /// The game.
    pub game: i64,
    /// Who signed on.
    pub role: Role,
    /// The current phase at the mail's time, if any.
    pub phase: Option<i64>,
    /// The mail's date: its Date header, bounded by the time it was received.
    pub dated: DateTime<Utc>,
    /// The SHA-256 (hex) of the text the judge read.
    pub digest: String,
}

/// A message stored and never answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Pending {
    /// Its row id.
    pub id: i64,
    /// The raw bytes, passwords masked (only the headers of a message over the size limit).
    pub raw: Vec<u8>,
    /// The whole message's size (bytes) as received.
    pub size: u64,
    /// The SHA-256 of the whole message as received (before masking), hex.
    pub digest: String,
    /// The passwords masked in `raw` (`LINE PASSWORD` lines), if any.
    pub secrets: Option<String>,
    /// When it was received.
    pub received: DateTime<Utc>,
}

/// A mail received for a game, as `game export` writes it into the game's folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameMail {
    /// The raw bytes as stored: passwords and codes masked.
    pub raw: Vec<u8>,
    /// When the judge received it.
    pub received: DateTime<Utc>,
    /// What became of it.
    pub state: InboxState,
    /// Who it signed on as (a power's name, or GM), when its SIGNON was accepted.
    pub role: Option<String>,
    /// The judge's reply to it (found by its Message-ID), if any.
    pub reply: Option<String>,
    /// The judge tied it to no game (a SIGNON it refused, an OBSERVE): it has the game's name
    /// somewhere.
    pub untied: bool,
}

impl View<'_> {
    /// Every mail received for the game `game` called `name`, in the order received, and the
    /// mails tied to no game that have `name` in them (a SIGNON refused for a wrong password
    /// leaves the mail untied, as an OBSERVE does: the caller reads which of them name the
    /// game).
    pub fn game_mails(&self, game: i64, name: &str) -> Result<Vec<GameMail>, StoreError> {
        let mut st = self.0.prepare_cached(
            "SELECT i.raw, i.received, i.state,
                    (SELECT h.power FROM handled h WHERE h.inbox = i.id ORDER BY h.rowid LIMIT 1),
                    (SELECT o.body FROM outbox o WHERE o.kind = ?2 AND i.message_id IS NOT NULL
                        AND o.in_reply_to = i.message_id ORDER BY o.id LIMIT 1),
                    i.game IS NULL
             FROM inbox i
             WHERE i.game = ?1 OR (i.game IS NULL AND CAST(i.raw AS TEXT) LIKE ?3)
             ORDER BY i.id",
        )?;
        let like = format!("%{name}%");
        let rows = st.query_map(params![game, super::MailKind::Reply, like], |r| {
            Ok((
                r.get::<_, Vec<u8>>(0)?,
                r.get::<_, String>(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
            ))
        })?;
        rows.map(|row| {
            let (raw, received, state, role, reply, untied) = row?;
            Ok(GameMail {
                raw,
                received: read_time(&received)?,
                state,
                role,
                reply,
                untied,
            })
        })
        .collect()
    }

    /// When the message stored as `id` came before it: the same Message-ID, else (without
    /// one) the same digest.
    pub(crate) fn earlier(
        &self,
        message_id: Option<&str>,
        digest: &str,
        id: i64,
    ) -> Result<Option<Earlier>, StoreError> {
        let (key, value) = match message_id {
            Some(m) => ("message_id = ?1", m),
            None => ("message_id IS NULL AND digest = ?1", digest),
        };
        let first = row(
            self.0,
            &format!(
                "SELECT i.id, i.received, i.state, g.timezone FROM inbox i
                     LEFT JOIN games g ON g.id = i.game
                     WHERE {key} AND i.id < ?2 ORDER BY i.id LIMIT 1"
            ),
            params![value, id],
            |r| Ok((r.get(0)?, r.get::<_, String>(1)?, r.get(2)?, r.get(3)?)),
        )
        .optional()?;
        let Some((first, at, state, zone)) = first else {
            return Ok(None);
        };
        let at = read_time(&at)?;
        let answered_twice = row(
            self.0,
            &format!("SELECT COUNT(*) > 0 FROM inbox WHERE {key} AND id < ?2 AND state = ?3"),
            params![value, id, InboxState::Duplicate],
            |r| r.get(0),
        )?;
        Ok(Some(Earlier {
            at,
            zone,
            answered_twice,
            first,
            state,
        }))
    }

    /// Whether a message with these bytes (their SHA-256) is stored: an intake that fetches
    /// from a mailbox finds the messages it stored before it was stopped.
    pub(crate) fn has_digest(&self, digest: &str) -> Result<bool, StoreError> {
        Ok(row(
            self.0,
            "SELECT EXISTS (SELECT 1 FROM inbox WHERE digest = ?1)",
            params![digest],
            |r| r.get(0),
        )?)
    }

    /// The messages stored and not answered, received at `before` or earlier, oldest first.
    pub(crate) fn pending(&self, before: DateTime<Utc>) -> Result<Vec<Pending>, StoreError> {
        let mut st = self.0.prepare_cached(
            "SELECT id FROM inbox WHERE state = 'stored' AND received <= ?1 ORDER BY id",
        )?;
        let ids: Vec<i64> = st
            .query_map([time(before)], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        ids.into_iter()
            .filter_map(|id| self.message(id).transpose())
            .collect()
    }

    /// The stored message `id`, if there is one.
    pub(crate) fn message(&self, id: i64) -> Result<Option<Pending>, StoreError> {
        type Row = (Vec<u8>, i64, String, Option<String>, String);
        let row: Option<Row> = row(
            self.0,
            "SELECT raw, size, digest, secrets, received FROM inbox WHERE id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .optional()?;
        row.map(|(raw, size, digest, secrets, received)| {
            Ok(Pending {
                id,
                raw,
                size: u64::try_from(size).unwrap_or_default(),
                digest,
                secrets,
                received: read_time(&received)?,
            })
        })
        .transpose()
    }

    /// How many messages are stored and not answered, received after `after` and at `until`
    /// or earlier.
    pub(crate) fn stored_between(
        &self,
        after: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        Ok(row(self.0,
            "SELECT COUNT(*) FROM inbox WHERE state = 'stored' AND received > ?1 AND received <= ?2",
            params![time(after), time(until)],
            |r| r.get(0),
        )?)
    }

    /// The latest date of a mail handled for `role` in `game`.
    pub(crate) fn last_dated(
        &self,
        game: i64,
        role: &Role,
    ) -> Result<Option<DateTime<Utc>>, StoreError> {
        let t: Option<String> = row(
            self.0,
            "SELECT MAX(dated) FROM handled WHERE game = ?1 AND power = ?2",
            params![game, role],
            |r| r.get(0),
        )?;
        read_opt_time(t)
    }

    /// The date of a mail with the text digest `digest` handled for `role` in `game`, in its
    /// `phase`, or dated `dated` in a phase a rollback set aside, if there was one.
    pub(crate) fn handled_digest(
        &self,
        game: i64,
        role: &Role,
        phase: Option<i64>,
        digest: &str,
        dated: DateTime<Utc>,
    ) -> Result<Option<DateTime<Utc>>, StoreError> {
        let t: Option<String> = row(
            self.0,
            "SELECT MIN(h.dated) FROM handled h LEFT JOIN phases p ON p.id = h.phase
             WHERE h.game = ?1 AND h.power = ?2 AND h.digest = ?4
               AND (h.phase IS ?3 OR (p.superseded = 1 AND h.dated = ?5))",
            params![game, role, phase, digest, time(dated)],
            |r| r.get(0),
        )?;
        read_opt_time(t)
    }
}

impl Tx<'_> {
    /// Stores a received message, `stored`; its row id.
    pub(crate) fn store_message(
        &self,
        m: &NewMessage,
        now: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        exec(
            &self.0,
            "INSERT INTO inbox (message_id, digest, sender, size, raw, received, state, secrets)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                m.message_id,
                m.digest,
                m.sender,
                i64::try_from(m.size).unwrap_or(i64::MAX),
                m.raw,
                time(now),
                InboxState::Stored,
                m.secrets
            ],
        )?;
        Ok(self.0.last_insert_rowid())
    }

    /// Sets what became of a received message still `stored`: its state, the game it
    /// concerned, why (in words) when it was not answered. Its passwords kept apart are
    /// dropped: it is handled. Whether it held any (then [`Store::truncate_wal`] after the
    /// commit), or none when it is no longer `stored` (another napjudge answered it first): a
    /// message is answered once.
    pub(crate) fn set_message_state(
        &self,
        id: i64,
        state: InboxState,
        game: Option<i64>,
        note: Option<&str>,
    ) -> Result<Option<bool>, StoreError> {
        let secrets: Option<bool> = row(
            &self.0,
            "SELECT secrets IS NOT NULL FROM inbox WHERE id = ?1 AND state = ?2",
            params![id, InboxState::Stored],
            |r| r.get(0),
        )
        .optional()?;
        exec(
            &self.0,
            "UPDATE inbox SET state = ?2, game = ?3, note = ?4, secrets = NULL
             WHERE id = ?1 AND state = ?5",
            params![id, state, game, note, InboxState::Stored],
        )?;
        Ok(secrets)
    }

    /// Records a mail handled after its SIGNON (with the received message `inbox`).
    pub(crate) fn add_handled(&self, inbox: i64, h: &SignedMail) -> Result<(), StoreError> {
        exec(
            &self.0,
            "INSERT INTO handled (inbox, game, power, phase, dated, digest)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![inbox, h.game, h.role, h.phase, time(h.dated), h.digest],
        )?;
        Ok(())
    }
}
