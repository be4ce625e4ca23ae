//! Victory (R7.10): after the Winter, a major owning, with the minors it controls, its variant's
//! threshold of centres wins; every major that reaches it is reported and the GM decides a tie.

use crate::outcome::WinterEvent;
use crate::position::Position;
use crate::variant::{PowerId, Variant};

/// The centres `major` counts for victory: its own and those of the minors it controls.
pub fn centres_counted(variant: &Variant, position: &Position, major: PowerId) -> u32 {
    let own = position.centre_count(variant, major);
    let minors: usize = position
        .ledgers
        .controlled_by(major)
        .map(|m| position.centre_count(variant, m))
        .sum();
    (own + minors) as u32
}

/// Records in the ledgers every major that reached its threshold; returns an event for each and
/// one for a tie.
pub fn check(variant: &Variant, position: &mut Position) -> Vec<WinterEvent> {
    let winners: Vec<(PowerId, u32)> = position
        .ledgers
        .majors(variant)
        .map(|p| (p, centres_counted(variant, position, p)))
        .filter(|&(p, n)| n >= variant.victory_for(p))
        .collect();
    let mut events = Vec::new();
    for &(major, centres) in &winners {
        events.push(WinterEvent::Victory {
            major,
            centres,
            needed: variant.victory_for(major),
        });
    }
    let majors: Vec<PowerId> = winners.into_iter().map(|(p, _)| p).collect();
    if majors.len() > 1 {
        events.push(WinterEvent::VictoryTie {
            majors: majors.clone(),
        });
    }
    position.ledgers.winners = majors;
    events
}
