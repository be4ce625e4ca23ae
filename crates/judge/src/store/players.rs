//! Players: who plays each role of a game, their password hashes and addresses, and the wrong
//! passwords the SIGNON throttle counts.

use super::{read_time, time, Address, Role, StoreError, Tx, View};
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
    pub fn player_address(&self, game: i64, role: &Role) -> Result<Option<Address>, StoreError> {
        Ok(self
            .players(game)?
            .into_iter()
            .find(|p| &p.role == role)
            .map(|p| p.address))
    }

    /// A role's password hash (PHC string), if it has a player.
    pub fn password_hash(&self, game: i64, role: &Role) -> Result<Option<String>, StoreError> {
        Ok(self
            .0
            .query_row(
                "SELECT password_hash FROM players WHERE game = ?1 AND power = ?2",
                params![game, role],
                |r| r.get(0),
            )
            .optional()?)
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
    ) -> Result<(), StoreError> {
        self.0.execute(
            "INSERT INTO players (game, power, address, password_hash) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (game, power) DO UPDATE SET address = ?3, password_hash = ?4",
            params![game, role, address, password_hash],
        )?;
        Ok(())
    }

    /// Changes a player's password; false when the role has no player.
    pub(crate) fn set_password(
        &self,
        game: i64,
        role: &Role,
        password_hash: &str,
    ) -> Result<bool, StoreError> {
        let n = self.0.execute(
            "UPDATE players SET password_hash = ?3 WHERE game = ?1 AND power = ?2",
            params![game, role, password_hash],
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
        let n = self.0.execute(
            "UPDATE players SET address = ?3 WHERE game = ?1 AND power = ?2",
            params![game, role, address],
        )?;
        Ok(n == 1)
    }

    /// Forgets the wrong passwords given at `since` or before (the throttle looks no further
    /// back).
    pub(crate) fn forget_signon_failures(&self, since: DateTime<Utc>) -> Result<(), StoreError> {
        self.0
            .execute("DELETE FROM signon_failures WHERE at <= ?1", [time(since)])?;
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
        self.0.execute(
            "INSERT INTO signon_failures (game, role, address, registered, at)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![game, role, sender.folded(), registered, time(now)],
        )?;
        Ok(())
    }
}
