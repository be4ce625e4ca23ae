//! Seats and observers: the abandonment rule and observers' switch of a game, the
//! phases each player has missed in a row, every seat left or given, the GM's takeover codes,
//! and who observes a game.

use super::{
    exec, read_opt_time, read_time, row, time, Address, ChangeKind, Role, StoreError, Tx, View,
};
use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension};

/// A confirmed request to observe: when it was asked, and when confirmed.
pub(crate) type Confirmed = (DateTime<Utc>, DateTime<Utc>);

/// The observers a game takes by mail unless its GM says otherwise (`observers on`).
pub(crate) const DEFAULT_OBSERVERS: u32 = 20;

/// A game's seat rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SeatRules {
    /// After this many phases in a row without orders a power is abandoned (0: never).
    pub abandon_after: u32,
    /// The most observers OBSERVE by mail may bring the game to (0: none by mail).
    pub observers: u32,
}

impl Default for SeatRules {
    /// What a game without rules of its own has: never abandoned, observers welcome.
    fn default() -> SeatRules {
        SeatRules {
            abandon_after: 0,
            observers: DEFAULT_OBSERVERS,
        }
    }
}

/// A request to observe a game, found by its token's digest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ObserveRequest {
    /// Its row.
    pub id: i64,
    /// The address that would observe.
    pub address: Address,
    /// Until when its token is good.
    pub expires: DateTime<Utc>,
    /// Whether it was confirmed already.
    pub used: bool,
}

/// One seat left or given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatChange {
    /// The power.
    pub power: String,
    /// How.
    pub kind: ChangeKind,
    /// The player who had it, if anyone.
    pub old: Option<Address>,
    /// The player who has it now, if anyone.
    pub new: Option<Address>,
    /// For an abandoned seat: the phases missed in a row.
    pub missed: u32,
    /// When.
    pub at: DateTime<Utc>,
}

/// What became of a takeover code looked up by its digest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CodeState {
    /// Good for one TAKEOVER (its row id).
    Valid(i64),
    /// Used already, at that time.
    Used(DateTime<Utc>),
    /// Set aside: a newer code was issued, or the seat was given.
    Void,
}

type RawChange = (
    String,
    ChangeKind,
    Option<Address>,
    Option<Address>,
    u32,
    String,
);

impl View<'_> {
    /// The game's seat rules (the defaults when it has none of its own).
    pub(crate) fn seat_rules(&self, game: i64) -> Result<SeatRules, StoreError> {
        Ok(row(
            self.0,
            "SELECT abandon_after, observers FROM seat_rules WHERE game = ?1",
            [game],
            |r| {
                Ok(SeatRules {
                    abandon_after: r.get(0)?,
                    observers: r.get(1)?,
                })
            },
        )
        .optional()?
        .unwrap_or_default())
    }

    /// Every takeover code issued for the game, oldest first: its power and when it was issued
    /// (the codes themselves are kept as digests only).
    pub fn codes_issued(&self, game: i64) -> Result<Vec<(String, DateTime<Utc>)>, StoreError> {
        let mut st = self.0.prepare_cached(
            "SELECT power, issued FROM takeover_codes WHERE game = ?1 ORDER BY id",
        )?;
        let rows = st.query_map([game], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        })?;
        rows.map(|r| {
            let (power, at) = r?;
            Ok((power, read_time(&at)?))
        })
        .collect()
    }

    /// Every request to observe the game that was confirmed, oldest first: when it was asked
    /// and when confirmed (the tokens themselves are kept as digests only).
    pub fn observe_confirmed(&self, game: i64) -> Result<Vec<Confirmed>, StoreError> {
        let mut st = self.0.prepare_cached(
            "SELECT asked, used FROM observe_requests
             WHERE game = ?1 AND used IS NOT NULL ORDER BY id",
        )?;
        let rows = st.query_map([game], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        })?;
        rows.map(|r| {
            let (asked, used) = r?;
            Ok((read_time(&asked)?, read_time(&used)?))
        })
        .collect()
    }

    /// Every seat change of the game, oldest first.
    pub fn seat_changes(&self, game: i64) -> Result<Vec<SeatChange>, StoreError> {
        let mut st = self.0.prepare_cached(
            "SELECT power, change, old_address, new_address, missed, at FROM seat_changes
             WHERE game = ?1 ORDER BY id",
        )?;
        let raw: Vec<RawChange> = st
            .query_map([game], |r| RawChange::try_from(r))?
            .collect::<Result<_, _>>()?;
        raw.into_iter()
            .map(|(power, kind, old, new, missed, at)| {
                Ok(SeatChange {
                    power,
                    kind,
                    old,
                    new,
                    missed,
                    at: read_time(&at)?,
                })
            })
            .collect()
    }

    /// The phases in a row each power's player has missed, by power.
    pub(crate) fn missed(&self, game: i64) -> Result<Vec<(Role, u32)>, StoreError> {
        let mut st = self
            .0
            .prepare_cached("SELECT power, missed FROM players WHERE game = ?1 ORDER BY power")?;
        let rows = st.query_map([game], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// What became of the code of digest `digest` for the game's `power`, if it is one.
    pub(crate) fn code_state(
        &self,
        game: i64,
        power: &str,
        digest: &str,
    ) -> Result<Option<CodeState>, StoreError> {
        let row: Option<(i64, Option<String>, bool)> = row(
            self.0,
            "SELECT id, used, void FROM takeover_codes
                 WHERE game = ?1 AND power = ?2 AND digest = ?3",
            params![game, power, digest],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?;
        Ok(match row {
            None => None,
            Some((_, Some(used), _)) => Some(CodeState::Used(read_time(&used)?)),
            Some((_, None, true)) => Some(CodeState::Void),
            Some((id, None, false)) => Some(CodeState::Valid(id)),
        })
    }

    /// The game's observers, in the order they came.
    pub(crate) fn observers(&self, game: i64) -> Result<Vec<Address>, StoreError> {
        let mut st = self
            .0
            .prepare_cached("SELECT address FROM observers WHERE game = ?1 ORDER BY rowid")?;
        let rows = st.query_map([game], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// How many addresses observe the game.
    pub(crate) fn observer_count(&self, game: i64) -> Result<u32, StoreError> {
        Ok(row(
            self.0,
            "SELECT COUNT(*) FROM observers WHERE game = ?1",
            [game],
            |r| r.get(0),
        )?)
    }

    /// The requests to observe made since `since` for `address` or by `asked_by`, any game.
    pub(crate) fn observe_requests_since(
        &self,
        address: &Address,
        asked_by: &Address,
        since: DateTime<Utc>,
    ) -> Result<u32, StoreError> {
        Ok(row(
            self.0,
            "SELECT COUNT(*) FROM observe_requests
             WHERE (address = ?1 OR asked_by = ?2) AND asked > ?3",
            params![address.folded(), asked_by.folded(), time(since)],
            |r| r.get(0),
        )?)
    }

    /// Until when the game's latest request for `address` holds, when one is unconfirmed and
    /// good at `now`.
    pub(crate) fn open_observe_request(
        &self,
        game: i64,
        address: &Address,
        now: DateTime<Utc>,
    ) -> Result<Option<DateTime<Utc>>, StoreError> {
        let until: Option<Option<String>> = row(
            self.0,
            "SELECT MAX(expires) FROM observe_requests
                 WHERE game = ?1 AND address = ?2 AND used IS NULL AND expires >= ?3",
            params![game, address.folded(), time(now)],
            |r| r.get(0),
        )
        .optional()?;
        read_opt_time(until.flatten())
    }

    /// The game's request to observe whose token has the digest `digest`, if any.
    pub(crate) fn observe_request(
        &self,
        game: i64,
        digest: &str,
    ) -> Result<Option<ObserveRequest>, StoreError> {
        let found: Option<(i64, Address, String, bool)> = row(
            self.0,
            "SELECT id, address, expires, used IS NOT NULL FROM observe_requests
                 WHERE game = ?1 AND digest = ?2",
            params![game, digest],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .optional()?;
        found
            .map(|(id, address, expires, used)| {
                Ok(ObserveRequest {
                    id,
                    address,
                    expires: read_time(&expires)?,
                    used,
                })
            })
            .transpose()
    }

    /// The names of the games `address` observes.
    pub(crate) fn observed_by(&self, address: &Address) -> Result<Vec<String>, StoreError> {
        let mut st = self.0.prepare_cached(
            "SELECT g.name FROM observers o JOIN games g ON g.id = o.game
             WHERE o.address = ?1 ORDER BY g.name",
        )?;
        let rows = st.query_map([address], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

impl Tx<'_> {
    /// Sets the game's seat rules.
    pub(crate) fn set_seat_rules(&self, game: i64, rules: SeatRules) -> Result<(), StoreError> {
        exec(
            &self.0,
            "INSERT INTO seat_rules (game, abandon_after, observers) VALUES (?1, ?2, ?3)
             ON CONFLICT (game) DO UPDATE SET abandon_after = ?2, observers = ?3",
            params![game, rules.abandon_after, rules.observers],
        )?;
        Ok(())
    }

    /// Sets the phases in a row a power's player has missed.
    pub(crate) fn set_missed(&self, game: i64, role: &Role, missed: u32) -> Result<(), StoreError> {
        exec(
            &self.0,
            "UPDATE players SET missed = ?3 WHERE game = ?1 AND power = ?2",
            params![game, role, missed],
        )?;
        Ok(())
    }

    /// Takes a role's player away (its password with it): the player's address, if it had one.
    pub(crate) fn remove_player(
        &self,
        game: i64,
        role: &Role,
    ) -> Result<Option<Address>, StoreError> {
        let old: Option<Address> = row(
            &self.0,
            "SELECT address FROM players WHERE game = ?1 AND power = ?2",
            params![game, role],
            |r| r.get(0),
        )
        .optional()?;
        exec(
            &self.0,
            "DELETE FROM players WHERE game = ?1 AND power = ?2",
            params![game, role],
        )?;
        Ok(old)
    }

    /// Records a seat change.
    pub(crate) fn add_seat_change(&self, game: i64, c: &SeatChange) -> Result<(), StoreError> {
        exec(
            &self.0,
            "INSERT INTO seat_changes (game, power, change, old_address, new_address, missed, at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![game, c.power, c.kind, c.old, c.new, c.missed, time(c.at)],
        )?;
        Ok(())
    }

    /// Sets aside every unused code for the game's `power`.
    pub(crate) fn void_codes(&self, game: i64, power: &str) -> Result<(), StoreError> {
        exec(
            &self.0,
            "UPDATE takeover_codes SET void = 1 WHERE game = ?1 AND power = ?2 AND used IS NULL",
            params![game, power],
        )?;
        Ok(())
    }

    /// Stores a new code (its digest) for the game's `power`, setting aside the earlier ones.
    pub(crate) fn add_code(
        &self,
        game: i64,
        power: &str,
        digest: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.void_codes(game, power)?;
        exec(
            &self.0,
            "INSERT INTO takeover_codes (game, power, digest, issued) VALUES (?1, ?2, ?3, ?4)",
            params![game, power, digest, time(now)],
        )?;
        Ok(())
    }

    /// Marks the code `id` used; false when it was used (or set aside) already.
    pub(crate) fn use_code(&self, id: i64, now: DateTime<Utc>) -> Result<bool, StoreError> {
        let n = exec(
            &self.0,
            "UPDATE takeover_codes SET used = ?2 WHERE id = ?1 AND used IS NULL AND void = 0",
            params![id, time(now)],
        )?;
        Ok(n == 1)
    }

    /// Adds an observer; false when the address observes the game already.
    pub(crate) fn add_observer(
        &self,
        game: i64,
        address: &Address,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let n = exec(
            &self.0,
            "INSERT OR IGNORE INTO observers (game, address, since) VALUES (?1, ?2, ?3)",
            params![game, address, time(now)],
        )?;
        Ok(n == 1)
    }

    /// Stores a request of `asked_by` that `address` observe the game, by its token's digest.
    pub(crate) fn add_observe_request(
        &self,
        game: i64,
        address: &Address,
        asked_by: &Address,
        digest: &str,
        now: DateTime<Utc>,
        expires: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        exec(
            &self.0,
            "INSERT INTO observe_requests (game, address, asked_by, digest, asked, expires)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                game,
                address.folded(),
                asked_by.folded(),
                digest,
                time(now),
                time(expires)
            ],
        )?;
        Ok(())
    }

    /// Marks the request `id` confirmed; false when it was already.
    pub(crate) fn use_observe_request(
        &self,
        id: i64,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let n = exec(
            &self.0,
            "UPDATE observe_requests SET used = ?2 WHERE id = ?1 AND used IS NULL",
            params![id, time(now)],
        )?;
        Ok(n == 1)
    }

    /// Removes an observer; false when the address didn't observe the game.
    pub(crate) fn remove_observer(&self, game: i64, address: &Address) -> Result<bool, StoreError> {
        let n = exec(
            &self.0,
            "DELETE FROM observers WHERE game = ?1 AND address = ?2",
            params![game, address],
        )?;
        Ok(n == 1)
    }
}
