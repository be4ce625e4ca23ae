//! Adjudication: a phase's validated orders against a position give an outcome for every order
//! and the next position.
//!
//! [`movement`] is the one adjudication core; [`retreat`] and [`adjust`] decide the other phases;
//! [`advance`] moves the calendar on (and changes centre ownership after Autumn).

pub mod adjust;
pub mod movement;
mod outcome;
pub mod retreat;

pub use outcome::{Outcome, Reason};

use crate::order::Order;
use crate::position::Position;
use crate::variant::{PhaseKind, PowerId, Region, Season, Variant};

/// What a phase gave: an outcome per order (in the order given) and the next position.
pub struct Adjudication {
    /// One outcome per order.
    pub outcomes: Vec<Outcome>,
    /// The position after the phase, already in the next phase.
    pub position: Position,
}

/// Adjudicates the phase `position` is in, with validated orders (each with the power that gave
/// it), and moves on to the next phase.
pub fn adjudicate(
    variant: &Variant,
    position: &Position,
    orders: &[(PowerId, Order<Region>)],
) -> Adjudication {
    let plain: Vec<Order<Region>> = orders.iter().map(|(_, o)| o.clone()).collect();
    let (outcomes, mut next) = match position.phase.kind {
        PhaseKind::Movement | PhaseKind::SecondMovement => {
            let r = movement::adjudicate(variant, position, &plain);
            (r.outcomes, r.position)
        }
        PhaseKind::Retreat | PhaseKind::SecondRetreat => {
            retreat::adjudicate(variant, position, &plain)
        }
        PhaseKind::Adjustment | PhaseKind::Bids => adjust::adjudicate(variant, position, orders),
    };
    advance(variant, &mut next);
    Adjudication {
        outcomes,
        position: next,
    }
}

/// Moves `position` (just adjudicated) on to its next phase, skipping a retreat phase nobody
/// needs, and changing centre ownership at the end of Autumn (R7.1).
pub fn advance(variant: &Variant, position: &mut Position) {
    crate::winter::control::detect_crowding(variant, position); // R7.8 (b), after every phase
    let phase = &mut position.phase;
    let dislodged = !position.dislodged.is_empty();
    let end_of_season = match phase.kind {
        PhaseKind::Movement if dislodged => {
            phase.kind = PhaseKind::Retreat;
            false
        }
        PhaseKind::Movement | PhaseKind::Retreat => true,
        _ => true,
    };
    if !end_of_season {
        return;
    }
    match phase.season {
        Season::Spring if phase.kind != PhaseKind::Adjustment && phase.kind != PhaseKind::Bids => {
            phase.season = Season::Autumn;
            phase.kind = PhaseKind::Movement;
        }
        Season::Autumn => {
            let (units, owners) = (&position.units, &position.owners);
            crate::winter::control::detect_occupation(
                variant,
                units,
                owners,
                &mut position.ledgers,
                *phase,
            ); // R7.8 (a)
            for (p, f) in position.units.iter().enumerate() {
                if let Some(f) = f {
                    if variant.provinces[p].centre {
                        position.owners[p] = Some(f.power);
                    }
                }
            }
            phase.season = Season::Winter;
            phase.kind = PhaseKind::Adjustment;
        }
        _ => {
            phase.year += 1;
            phase.season = Season::Spring;
            phase.kind = PhaseKind::Movement;
        }
    }
}
