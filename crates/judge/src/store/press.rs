//! Press: a game's press options, and the press sent in it.

use super::{exec, read_time, row, time, Player, PressMode, StoreError, Tx, View};
use chrono::{DateTime, Utc};
use rusqlite::params;

/// A game's press options: what its players may send, and who is named.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PressRules {
    /// Which press the players may send.
    pub mode: PressMode,
    /// The players are known by their powers only (gunboat): no player's address is shown to
    /// another player.
    pub anonymous: bool,
    /// The GM gets a copy of every press a player sends to fewer than all.
    pub gm_copy: bool,
}

/// Press as stored: who sent it, to whom, in which phase.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PressRow {
    /// The phase current when it was sent (none before the game started).
    pub phase: Option<i64>,
    /// The sender: a power's name, or `GM`.
    pub sender: String,
    /// The names of those it went to.
    pub recipients: Vec<String>,
    /// The text.
    pub body: String,
    /// When it was sent.
    pub at: DateTime<Utc>,
    /// Grey press: those it went to were not told who sent it.
    pub grey: bool,
}

impl PressRow {
    /// Whether it went to every power of the game but its sender (a BROADCAST): the public
    /// press, which the web archive publishes.
    pub fn to_everyone(&self, players: &[Player]) -> bool {
        players
            .iter()
            .filter_map(|p| p.role.power())
            .all(|p| p == self.sender || self.recipients.iter().any(|r| r == p))
    }
}

impl View<'_> {
    /// The press of a game, oldest first (the web archive publishes the public part).
    pub fn press(&self, game: i64) -> Result<Vec<PressRow>, StoreError> {
        let mut st = self.0.prepare_cached(
            "SELECT phase, sender, recipients, body, at, grey FROM press WHERE game = ?1
             ORDER BY id",
        )?;
        type Raw = (Option<i64>, String, String, String, String, bool);
        let raw: Vec<Raw> = st
            .query_map([game], |r| Raw::try_from(r))?
            .collect::<Result<_, _>>()?;
        raw.into_iter()
            .map(|(phase, sender, recipients, body, at, grey)| {
                Ok(PressRow {
                    phase,
                    sender,
                    recipients: recipients.split_whitespace().map(str::to_string).collect(),
                    body,
                    at: read_time(&at)?,
                    grey,
                })
            })
            .collect()
    }

    /// Press sent by `sender` (a power's name, or `GM`) in a phase of a game.
    pub(crate) fn press_count(
        &self,
        game: i64,
        phase: i64,
        sender: &str,
    ) -> Result<i64, StoreError> {
        Ok(row(
            self.0,
            "SELECT COUNT(*) FROM press WHERE game = ?1 AND phase = ?2 AND sender = ?3",
            params![game, phase, sender],
            |r| r.get(0),
        )?)
    }
}

impl Tx<'_> {
    /// Stores press sent in a game (from a power or the GM, to the powers named; `grey`: the
    /// sender not told to them).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn add_press(
        &self,
        game: i64,
        phase: Option<i64>,
        from: &str,
        to: &str,
        body: &str,
        grey: bool,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        exec(
            &self.0,
            "INSERT INTO press (game, phase, sender, recipients, body, at, grey)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![game, phase, from, to, body, time(now), grey],
        )?;
        Ok(())
    }
}
