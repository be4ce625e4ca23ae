//! Adjudication: a phase's validated orders against a position give an outcome for every order
//! and the next position.
//!
//! [`movement`] is the one adjudication core; [`retreat`] and [`crate::winter`] decide the other
//! phases; [`advance`] moves the calendar on (and changes centre ownership after Autumn).

pub mod movement;
mod outcome;
pub mod retreat;
pub mod season;

pub use outcome::{Outcome, Reason};

use crate::order::Order;
use crate::position::Position;
use crate::variant::{PhaseKind, PowerId, Region, Season, Variant};

/// What a phase gave: an outcome per order (in the order given) and the next position.
pub struct Adjudication {
    /// One outcome per order.
    pub outcomes: Vec<Outcome>,
    /// Second-phase orders decided while finishing the phase (R4), with their outcomes: given at
    /// the season's first deadline, they are decided once the first phase and its retreats are
    /// over.
    pub second: Vec<(PowerId, Order<Region>, Outcome)>,
    /// The position after the phase, already in the next phase that needs orders.
    pub position: Position,
}

/// Adjudicates the phase `position` is in, with validated orders (each with the power that gave
/// it), and moves on to the next phase that needs orders.
pub fn adjudicate(
    variant: &Variant,
    position: &Position,
    orders: &[(PowerId, Order<Region>)],
) -> Adjudication {
    let plain = || orders.iter().map(|(_, o)| o.clone()).collect::<Vec<_>>();
    let (outcomes, mut next) = match position.phase.kind {
        PhaseKind::Movement => season::first_phase(variant, position, orders),
        PhaseKind::SecondMovement => {
            let r = movement::adjudicate(variant, position, &plain());
            (r.outcomes, r.position)
        }
        PhaseKind::Retreat | PhaseKind::SecondRetreat => {
            retreat::adjudicate(variant, position, &plain())
        }
        PhaseKind::Adjustment | PhaseKind::Bids => {
            crate::winter::adjudicate(variant, position, orders)
        }
    };
    // The position keeps the events of the phase that made it only (each phase starts from a
    // copy of the position before, events and all).
    let before = position.ledgers.events.len().min(next.ledgers.events.len());
    next.ledgers.events.drain(..before);
    let second = advance(variant, &mut next);
    Adjudication {
        outcomes,
        second,
        position: next,
    }
}

/// Moves `position`, just adjudicated in its phase, on to the next phase that needs orders:
/// a retreat phase only when something was dislodged; the fleets' second phase, which has its
/// orders already, is played on the way (R4.1); at the end of a season, the season's end.
pub fn advance(
    variant: &Variant,
    position: &mut Position,
) -> Vec<(PowerId, Order<Region>, Outcome)> {
    let mut second = Vec::new();
    crate::winter::control::detect_crowding(variant, position); // R7.8 (b), after every phase
    loop {
        let dislodged = !position.dislodged.is_empty();
        let two_phases = variant.rules.second_moves;
        let phase = &mut position.phase;
        match phase.kind {
            PhaseKind::Movement if dislodged => {
                phase.kind = PhaseKind::Retreat;
                return second;
            }
            PhaseKind::Movement | PhaseKind::Retreat if two_phases => {
                phase.kind = PhaseKind::SecondMovement;
                second = season::second_phase(variant, position);
                crate::winter::control::detect_crowding(variant, position);
            }
            PhaseKind::SecondMovement if dislodged => {
                phase.kind = PhaseKind::SecondRetreat;
                return second;
            }
            PhaseKind::Movement
            | PhaseKind::Retreat
            | PhaseKind::SecondMovement
            | PhaseKind::SecondRetreat => {
                season::end_of_season(variant, position);
                let phase = &mut position.phase;
                if phase.season == Season::Autumn {
                    phase.season = Season::Winter;
                    phase.kind = PhaseKind::Adjustment;
                } else {
                    phase.season = Season::Autumn;
                    phase.kind = PhaseKind::Movement;
                }
                return second;
            }
            PhaseKind::Adjustment | PhaseKind::Bids => {
                position.blockaded = Default::default();
                phase.year += 1;
                phase.season = Season::Spring;
                phase.kind = PhaseKind::Movement;
                return second;
            }
        }
    }
}
