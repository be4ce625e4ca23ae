//! `napjudge game export`: a game in the store written back as a MILA JSON record (the format
//! [`crate::import`] reads, written by [`napjudge_cases::mila::write`]): every phase played, its
//! position at the start, each power's orders as the judge read them when it was processed
//! (in the format's notation, `A PAR - BUR`, whatever the player wrote), and the press.
//!
//! What the judge doesn't keep, the export can't give back: the record's id (the game's name is
//! written instead) and the press's times to the 1/10,000 s (the judge's own time of each
//! message, to the second, is written). Press to several powers, which the format can't say, is
//! one message to each; press to every other power is the format's `ALL`; the GM's press is left
//! out (the format has powers only).

use napjudge_cases::mila::{
    self, MilaError, Press, RecordedGame, RecordedPhase, RecordedState, RecordedUnit,
};
use napjudge_engine::position::{Force, Position};
use napjudge_engine::variant::{PowerId, ProvinceId, Region, UnitType, Variant};
use napjudge_judge::{board, GameError, Player, PressRow, StoreError, View};
use std::collections::BTreeSet;

/// Why a game can't be exported.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The store can't be read.
    #[error("{0}")]
    Store(#[from] StoreError),
    /// The game's board doesn't load.
    #[error("{0}")]
    Game(#[from] GameError),
    /// No game of that name.
    #[error("there is no game '{0}' (`napjudge game list` shows the games)")]
    UnknownGame(String),
    /// A board the format can't carry.
    #[error(
        "game '{game}' is played on the {variant} board: the MILA JSON format records standard \
         Diplomacy only (no Bids or second phases, no stacks, no minor powers); nothing written"
    )]
    Board {
        /// The game.
        game: String,
        /// Its variant.
        variant: String,
    },
    /// The record can't be written.
    #[error("{0}")]
    Mila(#[from] MilaError),
}

/// How much of the game to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Everything the format carries: the GM's copy, which `game import` turns back into the
    /// game's folder.
    Full,
    /// What anyone may read (the web archive's `game.json`): only press to every power, and only
    /// of phases already processed.
    Public,
}

/// The game called `name` as a record, with its board.
pub fn record(
    view: View,
    name: &str,
    scope: Scope,
) -> Result<(Variant, RecordedGame), ExportError> {
    let g = view
        .game(name)?
        .ok_or_else(|| ExportError::UnknownGame(name.to_string()))?;
    let v = board(&g)?;
    if v.name != "standard" {
        return Err(ExportError::Board {
            game: g.name,
            variant: v.name.clone(),
        });
    }
    let players = view.players(g.id)?;
    let press = view.press(g.id)?;
    let mut phases = Vec::new();
    for row in view.phases(g.id)?.into_iter().filter(|r| !r.superseded) {
        let processed = row.report.is_some();
        let ph = row.position.phase;
        let mut orders = std::collections::BTreeMap::new();
        // The orders as the judge read them, in the format's own notation whatever the player
        // wrote: one the judge refused is left out (its unit held, as an unordered one does).
        for p in row.report.iter().flat_map(|r| &r.powers) {
            let lines: Vec<String> = p
                .orders
                .iter()
                .filter_map(|o| o.order.checked.as_ref().ok())
                .filter_map(|o| mila::recorded_order(&v, &row.position, o, ph.kind))
                .collect();
            if !lines.is_empty() {
                orders.insert(p.power, lines.join("\n"));
            }
        }
        let mut messages = Vec::new();
        if processed || scope == Scope::Full {
            for m in press.iter().filter(|m| m.phase == Some(row.id)) {
                messages.extend(messages_of(&v, &players, m, scope));
            }
        }
        phases.push(RecordedPhase {
            name: mila::phase_name(ph).unwrap_or_else(|| v.phase_name(ph)),
            phase: Some(ph),
            state: state(&v, &row.position),
            orders,
            press: messages,
        });
    }
    Ok((v, RecordedGame { id: g.name, phases }))
}

/// The game called `name` as MILA JSON text.
pub fn export(view: View, name: &str, scope: Scope) -> Result<String, ExportError> {
    let (v, game) = record(view, name, scope)?;
    Ok(mila::write(&v, &game)?)
}

/// One stored press message as the format's messages: `ALL` when it went to every other power,
/// else one to each power named (none for the GM's, nor for private press in a public export).
fn messages_of(v: &Variant, players: &[Player], m: &PressRow, scope: Scope) -> Vec<Press> {
    let Some(sender) = v.power_by_name(&m.sender) else {
        return Vec::new();
    };
    // The format names every message's sender: grey press, whose sender its readers were not
    // told, is not made public.
    if m.grey && scope != Scope::Full {
        return Vec::new();
    }
    let to: BTreeSet<PowerId> = m
        .recipients
        .iter()
        .filter_map(|r| v.power_by_name(r))
        .collect();
    let everyone = m.to_everyone(players);
    let press = |recipient| Press {
        sender,
        recipient,
        // The judge keeps each press line with its newline; the format's text has none after
        // the last.
        text: m.body.strip_suffix('\n').unwrap_or(&m.body).to_string(),
        time_sent: m.at.timestamp().saturating_mul(10_000),
    };
    if everyone {
        vec![press(None)]
    } else if scope == Scope::Full {
        to.into_iter().map(|p| press(Some(p))).collect()
    } else {
        Vec::new()
    }
}

/// A position as the format lists it: each unit, each dislodged unit, each centre's owner.
fn state(v: &Variant, position: &Position) -> RecordedState {
    let mut s = RecordedState::default();
    for (p, f) in position.forces() {
        s.units.extend(units(p, f));
    }
    for d in &position.dislodged {
        s.dislodged.extend(units(d.province, &d.force));
    }
    for c in v.centres().iter() {
        if let Some(Some(owner)) = position.owners.get(c.index()) {
            s.centres.push((*owner, c));
        }
    }
    s.units.sort();
    s.dislodged.sort();
    s.centres.sort();
    s
}

/// A force as single units (the standard board has one unit a space).
fn units(province: ProvinceId, f: &Force) -> Vec<RecordedUnit> {
    let unit = |unit, coast| RecordedUnit {
        power: f.power,
        unit,
        region: Region { province, coast },
    };
    let armies = (0..f.armies).map(|_| unit(UnitType::Army, None));
    let fleets = (0..f.fleets).map(|_| unit(UnitType::Fleet, f.coast));
    armies.chain(fleets).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use napjudge_judge::{Address, Role};

    /// Grey press keeps its sender in the judge's full export (the GM's copy), and is left out of
    /// the public one, whose format would name the sender its readers weren't told.
    #[test]
    fn grey_press_is_not_made_public() {
        let v = napjudge_engine::variant::load_named("standard").expect("the standard board");
        let players: Vec<Player> = v
            .power_ids()
            .map(|p| Player {
                role: Role::Power(v.power(p).name.clone()),
                address: Address::new("p@example.org"),
            })
            .collect();
        let sender = v.power(v.power_ids().next().expect("a power")).name.clone();
        let everyone: Vec<String> = players
            .iter()
            .filter_map(|p| p.role.power().map(str::to_string))
            .filter(|p| *p != sender)
            .collect();
        let row = |grey| PressRow {
            phase: Some(1),
            sender: sender.clone(),
            recipients: everyone.clone(),
            body: "a word to all\n".into(),
            at: chrono::DateTime::UNIX_EPOCH,
            grey,
        };
        assert_eq!(
            messages_of(&v, &players, &row(false), Scope::Public).len(),
            1
        );
        assert_eq!(messages_of(&v, &players, &row(true), Scope::Full).len(), 1);
        assert!(messages_of(&v, &players, &row(true), Scope::Public).is_empty());
    }
}
