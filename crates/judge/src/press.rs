//! Press as the game allows: the one check of a press against the game's press
//! options (white, grey, public, none; anonymous players; the GM's copy: settings of the game,
//! `crate::settings`), and a player's HISTORY PRESS.

use crate::store::{Game, PhaseRow, PressMode, PressRow, Role};
use napjudge_engine::variant::{Phase, Variant};

/// Why a press is refused by the game's press option: nothing is sent.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PressRefusal {
    /// The game has no press from its players.
    #[error("game '{0}' has no press: its players send none (only the GM's press goes)")]
    NoPress(String),
    /// The game has broadcasts only.
    #[error("game '{0}' has public press only: write BROADCAST, which goes to every power")]
    PublicOnly(String),
    /// GREY in a game whose press names its sender.
    #[error(
        "game '{0}' has {1} press: every press names its sender; write PRESS TO or BROADCAST \
         without GREY"
    )]
    NotGrey(String, PressMode),
}

/// Whether `from` may send this press in `game`: `broadcast` (no powers named), `grey` (the
/// sender not named). The GM's press is never refused by the option; GREY needs a grey game
/// from anyone.
pub(crate) fn check(
    game: &Game,
    from: &Role,
    broadcast: bool,
    grey: bool,
) -> Result<(), PressRefusal> {
    let mode = game.press.mode;
    if grey && mode != PressMode::Grey {
        return Err(PressRefusal::NotGrey(game.name.clone(), mode));
    }
    if *from == Role::Gm {
        return Ok(());
    }
    match mode {
        PressMode::None => Err(PressRefusal::NoPress(game.name.clone())),
        PressMode::Public if !broadcast => Err(PressRefusal::PublicOnly(game.name.clone())),
        _ => Ok(()),
    }
}

/// Whether the GM gets a copy of a player's press naming its sender: with the game's GM copy
/// on, unless the press went to the GM already with its sender named.
pub(crate) fn gm_copy(game: &Game, from: &Role, to_gm: bool, grey: bool) -> bool {
    game.press.gm_copy && *from != Role::Gm && (grey || !to_gm)
}

/// Whether `viewer` may see `p` in HISTORY PRESS, and who it may see as its sender: the press
/// it sent or received, and with the GM copy on, the GM every player's press.
fn seen_by(game: &Game, viewer: &Role, p: &PressRow) -> Option<String> {
    let me = viewer.name();
    let sent = p.sender == me;
    let received = p.recipients.iter().any(|r| r == me);
    let copied = *viewer == Role::Gm && game.press.gm_copy && p.sender != Role::Gm.name();
    if !(sent || received || copied) {
        return None;
    }
    Some(if sent {
        if p.grey {
            "you (grey)".to_string()
        } else {
            "you".to_string()
        }
    } else if p.grey && !copied {
        "(not named: grey press)".to_string()
    } else if p.grey {
        format!("{} (grey)", p.sender)
    } else {
        p.sender.clone()
    })
}

/// HISTORY PRESS: the press `viewer` sent or received in `game`, oldest first, in the phase
/// `wanted` (a phase of the game) or in all; each with its phase, time, sender and recipients
/// as the game's options let `viewer` see them.
pub(crate) fn history(
    v: &Variant,
    game: &Game,
    viewer: &Role,
    phases: &[PhaseRow],
    press: &[PressRow],
    wanted: Option<Phase>,
) -> Vec<String> {
    let phase_of = |id: Option<i64>| phases.iter().find(|p| Some(p.id) == id);
    let mut out = Vec::new();
    for p in press {
        let row = phase_of(p.phase);
        if wanted.is_some_and(|w| row.is_none_or(|r| r.position.phase != w)) {
            continue;
        }
        let Some(from) = seen_by(game, viewer, p) else {
            continue;
        };
        let when = row.map_or("before the game started".to_string(), |r| {
            v.phase_name(r.position.phase)
        });
        out.push(format!(
            "{when}, {}: from {from} to {}",
            p.at.format("%Y-%m-%d %H:%M UTC"),
            p.recipients.join(", ")
        ));
        out.extend(p.body.lines().map(|l| format!("  {l}")));
        out.push(String::new());
    }
    if out.is_empty() {
        out.push(match wanted {
            Some(w) => format!("No press of yours in {}.", v.phase_name(w)),
            None => "No press of yours yet.".to_string(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Address, GameState, Periods, PressRules};

    fn game(mode: PressMode) -> Game {
        Game {
            id: 1,
            name: "g".into(),
            variant: "napoleonic".into(),
            gm: Address::new("gm@example.org"),
            timezone: "UTC".into(),
            periods: Periods {
                movement: crate::clock::Period::hours(1),
                retreat: crate::clock::Period::hours(1),
                winter: crate::clock::Period::hours(1),
                grace: crate::clock::Period::hours(1),
                remind: crate::clock::Period::hours(1),
            },
            wait: false,
            state: GameState::Running,
            pictures: true,
            options: Vec::new(),
            press: PressRules {
                mode,
                ..PressRules::default()
            },
        }
    }

    /// Each press option refuses what its rule forbids, and only that; the GM's press
    /// is never refused by it, but GREY needs a grey game from anyone.
    #[test]
    fn each_press_option_refuses_what_its_rule_forbids() {
        let france = Role::Power("France".into());
        let cases = [
            // mode, broadcast, grey: allowed for a player, for the GM
            (PressMode::White, false, false, true, true),
            (PressMode::White, true, true, false, false),
            (PressMode::Grey, false, true, true, true),
            (PressMode::Grey, true, true, true, true),
            (PressMode::Public, false, false, false, true),
            (PressMode::Public, true, false, true, true),
            (PressMode::None, true, false, false, true),
            (PressMode::None, false, false, false, true),
        ];
        for (mode, broadcast, grey, player, gm) in cases {
            let g = game(mode);
            assert_eq!(
                check(&g, &france, broadcast, grey).is_ok(),
                player,
                "{mode} broadcast {broadcast} grey {grey}"
            );
            assert_eq!(check(&g, &Role::Gm, broadcast, grey).is_ok(), gm);
        }
    }
}
