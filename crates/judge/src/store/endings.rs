//! The store's part of waiting, absence and endings: the GM's limits, each
//! player's choices (WAIT, the draw vote, a concession), absences, how a game ended, and the
//! removal of a game that never started.

use super::{exec, from_json, json, read_time, row, time, EndKind, StoreError, Tx, View};
use crate::clock::Period;
use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension};

/// The GM's limits on waiting and absence for a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Timing {
    /// After the last orders of a phase everyone has ordered in, how long the judge waits
    /// before processing it early (njudge's DELAY), so a player can still change their mind.
    pub delay: Period,
    /// The longest absence a player may register, in days.
    pub absence_max_days: i64,
    /// How many absences a power may register per calendar year (of their first day).
    pub absences_per_year: i64,
}

impl Default for Timing {
    /// No delay (the judge has always processed at once), absences of up to 14 days, 3 a year.
    fn default() -> Timing {
        Timing {
            delay: Period::default(),
            absence_max_days: 14,
            absences_per_year: 3,
        }
    }
}

/// A player's own choices in a game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Choices {
    /// SET WAIT (true) or SET NOWAIT (false); none: the game's own `wait`.
    pub wait: Option<bool>,
    /// A vote for a draw stands (SET DRAW) until SET NODRAW.
    pub draw: bool,
    /// The power this one concedes to (SET CONCEDE POWER).
    pub concede: Option<String>,
}

/// An absence a player registered: no deadline falls inside `[start, end)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Absence {
    /// Its row id.
    pub id: i64,
    /// The power away.
    pub power: String,
    /// Its first moment.
    pub start: DateTime<Utc>,
    /// Its end: a deadline inside moves here.
    pub end: DateTime<Utc>,
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ending {
    /// Victory, draw, concession, or the GM's end.
    pub kind: EndKind,
    /// The winners, the powers of the draw, or the power conceded to.
    pub powers: Vec<String>,
    /// The GM's words (empty when none).
    pub reason: String,
    /// The phase the game ended in, as the game names it.
    pub phase: String,
    /// When.
    pub at: DateTime<Utc>,
}

impl View<'_> {
    /// The game's limits (the defaults when the GM set none).
    pub(crate) fn timing(&self, game: i64) -> Result<Timing, StoreError> {
        let row: Option<(i64, i64, i64)> = row(
            self.0,
            "SELECT delay, absence_max_days, absences_per_year FROM game_timing
                 WHERE game = ?1",
            [game],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?;
        Ok(match row {
            Some((delay, days, per_year)) => Timing {
                delay: Period::clamped(delay),
                absence_max_days: days,
                absences_per_year: per_year,
            },
            None => Timing::default(),
        })
    }

    /// Every player's choices in the game that made any, by power.
    pub(crate) fn choices(&self, game: i64) -> Result<Vec<(String, Choices)>, StoreError> {
        let mut st = self.0.prepare_cached(
            "SELECT power, wait, draw, concede FROM choices WHERE game = ?1 ORDER BY power",
        )?;
        let rows = st.query_map([game], |r| {
            Ok((
                r.get(0)?,
                Choices {
                    wait: r.get(1)?,
                    draw: r.get(2)?,
                    concede: r.get(3)?,
                },
            ))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// One power's choices (none made: the defaults).
    pub fn choice(&self, game: i64, power: &str) -> Result<Choices, StoreError> {
        Ok(self
            .choices(game)?
            .into_iter()
            .find(|(p, _)| p == power)
            .map(|(_, c)| c)
            .unwrap_or_default())
    }

    /// The game's absences, earliest first.
    pub(crate) fn absences(&self, game: i64) -> Result<Vec<Absence>, StoreError> {
        let mut st = self.0.prepare_cached(
            "SELECT id, power, start, end FROM absences WHERE game = ?1 ORDER BY start, id",
        )?;
        let raw: Vec<(i64, String, String, String)> = st
            .query_map([game], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
            .collect::<Result<_, _>>()?;
        raw.into_iter()
            .map(|(id, power, start, end)| {
                Ok(Absence {
                    id,
                    power,
                    start: read_time(&start)?,
                    end: read_time(&end)?,
                })
            })
            .collect()
    }

    /// How the game ended, if it did and the judge recorded it (the web archive shows it).
    pub fn ending(&self, game: i64) -> Result<Option<Ending>, StoreError> {
        let row: Option<(EndKind, String, String, String, String)> = row(
            self.0,
            "SELECT kind, powers, reason, phase, at FROM endings WHERE game = ?1",
            [game],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .optional()?;
        row.map(|(kind, powers, reason, phase, at)| {
            Ok(Ending {
                kind,
                powers: from_json("list of powers of an ending", &powers)?,
                reason,
                phase,
                at: read_time(&at)?,
            })
        })
        .transpose()
    }

    /// When a phase's orders last changed (an order text or a CLEAR), if they did.
    pub(crate) fn last_orders_at(&self, phase: i64) -> Result<Option<DateTime<Utc>>, StoreError> {
        let at: Option<String> = row(
            self.0,
            "SELECT MAX(received) FROM orders WHERE phase = ?1",
            [phase],
            |r| r.get(0),
        )?;
        at.map(|t| read_time(&t)).transpose()
    }
}

impl Tx<'_> {
    /// Sets the game's limits.
    pub(crate) fn set_timing(&self, game: i64, t: &Timing) -> Result<(), StoreError> {
        exec(
            &self.0,
            "INSERT OR REPLACE INTO game_timing (game, delay, absence_max_days, absences_per_year)
             VALUES (?1, ?2, ?3, ?4)",
            params![game, t.delay, t.absence_max_days, t.absences_per_year],
        )?;
        Ok(())
    }

    /// Stores a power's choices, whole.
    pub(crate) fn set_choices(
        &self,
        game: i64,
        power: &str,
        c: &Choices,
    ) -> Result<(), StoreError> {
        exec(
            &self.0,
            "INSERT OR REPLACE INTO choices (game, power, wait, draw, concede)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![game, power, c.wait, c.draw, c.concede],
        )?;
        Ok(())
    }

    /// Forgets every draw vote and concession of the game (the game ended, or went back).
    pub(crate) fn clear_votes(&self, game: i64) -> Result<(), StoreError> {
        exec(
            &self.0,
            "UPDATE choices SET draw = 0, concede = NULL WHERE game = ?1",
            [game],
        )?;
        Ok(())
    }

    /// Registers an absence; its id.
    pub(crate) fn add_absence(
        &self,
        game: i64,
        power: &str,
        start: DateTime<Utc>,
        end: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        exec(
            &self.0,
            "INSERT INTO absences (game, power, start, end, created) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![game, power, time(start), time(end), time(now)],
        )?;
        Ok(self.0.last_insert_rowid())
    }

    /// Drops a power's absences that have not ended by `now`; how many.
    pub(crate) fn clear_absences(
        &self,
        game: i64,
        power: &str,
        now: DateTime<Utc>,
    ) -> Result<usize, StoreError> {
        Ok(exec(
            &self.0,
            "DELETE FROM absences WHERE game = ?1 AND power = ?2 AND end > ?3",
            params![game, power, time(now)],
        )?)
    }

    /// Records how the game ended.
    pub(crate) fn set_ending(&self, game: i64, e: &Ending) -> Result<(), StoreError> {
        exec(
            &self.0,
            "INSERT OR REPLACE INTO endings (game, kind, powers, reason, phase, at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![game, e.kind, json(&e.powers), e.reason, e.phase, time(e.at)],
        )?;
        Ok(())
    }

    /// Forgets how the game ended (the GM rolled it back to play on).
    pub(crate) fn forget_ending(&self, game: i64) -> Result<(), StoreError> {
        exec(&self.0, "DELETE FROM endings WHERE game = ?1", [game])?;
        Ok(())
    }

    /// Gives the last `n` mails queued for `game` (a broadcast just made, in this
    /// transaction) the picture of `phase`, when one is stored.
    pub(crate) fn give_picture_to_last(
        &self,
        game: i64,
        n: usize,
        phase: i64,
    ) -> Result<(), StoreError> {
        exec(
            &self.0,
            "UPDATE outbox SET picture = ?3 WHERE id IN
               (SELECT id FROM outbox WHERE game = ?1 ORDER BY id DESC LIMIT ?2)
             AND EXISTS (SELECT 1 FROM pictures WHERE phase = ?3)",
            params![game, i64::try_from(n).unwrap_or(i64::MAX), phase],
        )?;
        Ok(())
    }

    /// Removes a game that never started: its players, the GM's actions, the records of its
    /// mails and its settings. The mails to and from it stay in the outbox and the inbox,
    /// without a game. False when the game has phases (it started): nothing is removed.
    pub(crate) fn delete_forming_game(&self, game: i64) -> Result<bool, StoreError> {
        let phases: i64 = row(
            &self.0,
            "SELECT COUNT(*) FROM phases WHERE game = ?1",
            [game],
            |r| r.get(0),
        )?;
        if phases > 0 {
            return Ok(false);
        }
        for sql in [
            "UPDATE outbox SET game = NULL WHERE game = ?1",
            "UPDATE inbox SET game = NULL WHERE game = ?1",
            "DELETE FROM handled WHERE game = ?1",
            "DELETE FROM signon_failures WHERE game = ?1",
            "DELETE FROM press WHERE game = ?1",
            "DELETE FROM gm_actions WHERE game = ?1",
            "DELETE FROM players WHERE game = ?1",
            "DELETE FROM game_timing WHERE game = ?1",
            "DELETE FROM choices WHERE game = ?1",
            "DELETE FROM absences WHERE game = ?1",
            "DELETE FROM endings WHERE game = ?1",
            "DELETE FROM seat_rules WHERE game = ?1",
            "DELETE FROM seat_changes WHERE game = ?1",
            "DELETE FROM takeover_codes WHERE game = ?1",
            "DELETE FROM observers WHERE game = ?1",
            "DELETE FROM games WHERE id = ?1",
        ] {
            exec(&self.0, sql, [game])?;
        }
        Ok(true)
    }
}
