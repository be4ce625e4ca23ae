//! Victory (R7.10): after the Winter, a major owning, with the minors it controls, its variant's
//! threshold of centres wins; every major that reaches it is reported and the GM decides a tie.

use crate::position::Position;
use crate::variant::{PowerId, PowerKind, Variant};

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

/// Records in the ledgers every major that reached its threshold, with a note for the mail.
pub fn check(variant: &Variant, position: &mut Position) {
    let winners: Vec<(PowerId, u32)> = variant
        .power_ids()
        .filter(|&p| variant.power(p).kind == PowerKind::Major)
        .map(|p| (p, centres_counted(variant, position, p)))
        .filter(|&(p, n)| n >= variant.victory_for(p))
        .collect();
    let phase = position.phase;
    for &(p, n) in &winners {
        position.ledgers.note(
            phase,
            format!(
                "{} reaches {n} centres with its minors (needs {}): victory (R7.10)",
                variant.power(p).name,
                variant.victory_for(p)
            ),
        );
    }
    if winners.len() > 1 {
        position.ledgers.note(
            phase,
            "several majors reached victory: the GM decides".into(),
        );
    }
    position.ledgers.winners = winners.into_iter().map(|(p, _)| p).collect();
}
