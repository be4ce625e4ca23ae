//! Adjudication: a phase's validated orders against a position give an outcome for every order
//! and the next position.
//!
//! [`movement`] is the one adjudication core; [`retreat`] and [`crate::winter`] decide the other
//! phases; [`advance`] moves the calendar on (and changes centre ownership after Autumn).

pub mod movement;
mod outcome;
pub mod retreat;
pub mod season;

pub use outcome::{Describe, Event, Outcome, Reason, Refusal, Shown, Void};

use crate::order::Order;
use crate::position::{Force, Position};
use crate::variant::{PhaseKind, PowerId, ProvinceId, Region, Season, SpaceKind, Variant};

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
    /// What happened besides the outcomes: passages denied, blockades, starvation, and the
    /// Winter's and the minors' control events.
    pub events: Vec<Event>,
}

/// Adjudicates the phase `position` is in, with validated orders (each with the power that gave
/// it), and moves on to the next phase that needs orders.
pub fn adjudicate(
    variant: &Variant,
    position: &Position,
    orders: &[(PowerId, Order<Region>)],
) -> Adjudication {
    let plain = || orders.iter().map(|(_, o)| o.clone()).collect::<Vec<_>>();
    let mut events: Vec<Event> = Vec::new();
    let (outcomes, mut next) = match position.phase.kind {
        PhaseKind::Movement => {
            let (outcomes, next, denied) = season::first_phase(variant, position, orders);
            events = denied;
            (outcomes, next)
        }
        PhaseKind::SecondMovement => {
            let r = movement::adjudicate(variant, position, &plain());
            (r.outcomes, r.position)
        }
        PhaseKind::Retreat | PhaseKind::SecondRetreat => {
            let (outcomes, next, disbanded) = retreat::adjudicate(variant, position, &plain());
            events = disbanded;
            (outcomes, next)
        }
        PhaseKind::Adjustment | PhaseKind::Bids => {
            crate::winter::adjudicate(variant, position, orders)
        }
    };
    let second = advance(variant, &mut next, &mut events);
    // The Winter's and the control of the minors' events (R7.8 can happen in any phase).
    events.extend(
        std::mem::take(&mut next.ledgers.events)
            .into_iter()
            .map(Event::Winter),
    );
    Adjudication {
        outcomes,
        second,
        position: next,
        events,
    }
}

/// Moves `position`, just adjudicated in its phase, on to the next phase that needs orders:
/// a retreat phase only when something was dislodged; the fleets' second phase, which has its
/// orders already, is played on the way (R4.1); at the end of a season, the season's end, whose
/// blockades and starved armies go into `events`.
pub fn advance(
    variant: &Variant,
    position: &mut Position,
    events: &mut Vec<Event>,
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
                let at_sea: Vec<(ProvinceId, Force)> = position
                    .forces()
                    .filter(|(p, f)| f.armies > 0 && variant.province(*p).kind == SpaceKind::Sea)
                    .map(|(p, f)| (p, *f))
                    .collect();
                for b in &position.blockades {
                    let (power, sea, centre) = (b.power, b.province, b.centre);
                    events.push(if b.held {
                        Event::BlockadeHeld { power, sea, centre }
                    } else {
                        Event::BlockadeCut { power, sea, centre }
                    });
                }
                season::end_of_season(variant, position);
                // The season's end moves no unit: armies missing from a sea starved there.
                for (sea, before) in at_sea {
                    let left = position.force(sea).map_or(0, |f| f.armies);
                    if left < before.armies {
                        events.push(Event::Starved {
                            power: before.power,
                            sea,
                            armies: before.armies - left,
                        });
                    }
                }
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
