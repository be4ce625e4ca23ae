//! Players: who plays each role of a game, their password hashes and addresses, and the wrong
//! passwords the SIGNON throttle counts.

use super::{exec, read_time, row, time, Address, PasswordFrom, Role, StoreError, Tx, View};
use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension};

/// A player: of a power, or the GM's mail password.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Player {
    /// Who.
    pub role: Role,
    /// The player's address.
    pub address: Address,
}

/// Where a player's password came from, and when it was set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PasswordSet {
    /// Who chose it.
    pub from: PasswordFrom,
    /// When.
    pub at: DateTime<Utc>,
}

/// A wrong password given in a SIGNON, for the throttle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SignonFailure {
    /// The sender, folded.
    pub address: String,
    /// Whether it was the address the judge mails the role at.
    pub registered: bool,
    /// When.
    pub at: DateTime<Utc>,
}

impl View<'_> {
    /// The players (the GM's row included), by name.
    pub fn players(&self, game: i64) -> Result<Vec<Player>, StoreError> {
        let mut st = self
            .0
            .prepare_cached("SELECT power, address FROM players WHERE game = ?1 ORDER BY power")?;
        let rows = st.query_map([game], |r| {
            Ok(Player {
                role: r.get(0)?,
                address: r.get(1)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The address `role` plays at in the game, if anyone does.
    pub(crate) fn player_address(
        &self,
        game: i64,
        role: &Role,
    ) -> Result<Option<Address>, StoreError> {
        Ok(self
            .players(game)?
            .into_iter()
            .find(|p| &p.role == role)
            .map(|p| p.address))
    }

    /// A role's password hash (PHC string), if it has a player.
    pub fn password_hash(&self, game: i64, role: &Role) -> Result<Option<String>, StoreError> {
        Ok(row(
            self.0,
            "SELECT password_hash FROM players WHERE game = ?1 AND power = ?2",
            params![game, role],
            |r| r.get(0),
        )
        .optional()?)
    }

    /// Where a role's password came from and when it was set: none when nobody plays the role
    /// (no password), `Some(None)` when an older napjudge set it.
    pub(crate) fn password_from(
        &self,
        game: i64,
        role: &Role,
    ) -> Result<Option<Option<PasswordSet>>, StoreError> {
        let row: Option<(Option<PasswordFrom>, Option<String>)> = row(
            self.0,
            "SELECT password_from, password_set FROM players WHERE game = ?1 AND power = ?2",
            params![game, role],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
        row.map(|r| match r {
            (Some(from), Some(set)) => Ok(Some(PasswordSet {
                from,
                at: read_time(&set)?,
            })),
            _ => Ok(None),
        })
        .transpose()
    }

    /// The wrong passwords given for `role` in `game` after `since`, oldest first.
    pub(crate) fn signon_failures(
        &self,
        game: i64,
        role: &Role,
        since: DateTime<Utc>,
    ) -> Result<Vec<SignonFailure>, StoreError> {
        let mut st = self.0.prepare_cached(
            "SELECT address, registered, at FROM signon_failures
             WHERE game = ?1 AND role = ?2 AND at > ?3 ORDER BY at",
        )?;
        let rows: Vec<(String, bool, String)> = st
            .query_map(params![game, role, time(since)], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })?
            .collect::<Result<_, _>>()?;
        rows.into_iter()
            .map(|(address, registered, at)| {
                Ok(SignonFailure {
                    address,
                    registered,
                    at: read_time(&at)?,
                })
            })
            .collect()
    }
}

impl Tx<'_> {
    /// Sets (or replaces) a role's player.
    pub(crate) fn set_player(
        &self,
        game: i64,
        role: &Role,
        address: &Address,
        password_hash: &str,
        from: PasswordFrom,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        exec(
            &self.0,
            "INSERT INTO players (game, power, address, password_hash, password_from, password_set)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT (game, power) DO UPDATE
             SET address = ?3, password_hash = ?4, password_from = ?5, password_set = ?6",
            params![game, role, address, password_hash, from, time(now)],
        )?;
        Ok(())
    }

    /// Changes a player's password; false when the role has no player.
    pub(crate) fn set_password(
        &self,
        game: i64,
        role: &Role,
        password_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let n = exec(
            &self.0,
            "UPDATE players SET password_hash = ?3, password_from = ?4, password_set = ?5
             WHERE game = ?1 AND power = ?2",
            params![game, role, password_hash, PasswordFrom::Player, time(now)],
        )?;
        Ok(n == 1)
    }

    /// Changes a player's address; false when the role has no player.
    pub(crate) fn set_address(
        &self,
        game: i64,
        role: &Role,
        address: &Address,
    ) -> Result<bool, StoreError> {
        let n = exec(
            &self.0,
            "UPDATE players SET address = ?3 WHERE game = ?1 AND power = ?2",
            params![game, role, address],
        )?;
        Ok(n == 1)
    }

    /// Forgets the wrong passwords given at `since` or before (the throttle looks no further
    /// back).
    pub(crate) fn forget_signon_failures(&self, since: DateTime<Utc>) -> Result<(), StoreError> {
        exec(
            &self.0,
            "DELETE FROM signon_failures WHERE at <= ?1",
            [time(since)],
        )?;
        Ok(())
    }

    /// Records a wrong password in a SIGNON for `role` in `game` from `sender` (`registered`:
    /// the role's own address).
    pub(crate) fn add_signon_failure(
        &self,
        game: i64,
        role: &Role,
        sender: &Address,
        registered: bool,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        exec(
            &self.0,
            "INSERT INTO signon_failures (game, role, address, registered, at)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![game, role, sender.folded(), registered, time(now)],
        )?;
        Ok(())
    }
}
