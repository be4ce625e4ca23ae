//! Adjudication: a phase's validated orders against a position give an outcome for every order
//! and the next position.
//!
//! [`movement`] is the one adjudication core; [`retreat`] and [`crate::winter`] decide the other
//! phases; [`advance`] moves the calendar on (and changes centre ownership after Autumn).

pub mod movement;
pub mod retreat;
pub mod season;

use crate::order::Order;
use crate::outcome::{Event, Outcome};
use crate::position::Position;
use crate::variant::{PhaseKind, PowerId, Region, Season, Variant};
use crate::winter::control::detect_crowding;

/// A second-phase order decided (R4): the power that gave it, the order, its outcome.
pub type Decided = (PowerId, Order<Region>, Outcome);

/// What a phase gave: an outcome per order (in the order given) and the next position.
pub struct Adjudication {
    /// One outcome per order.
    pub outcomes: Vec<Outcome>,
    /// Second-phase orders decided while finishing the phase (R4), with their outcomes: given at
    /// the season's first deadline, they are decided once the first phase and its retreats are
    /// over.
    pub second: Vec<Decided>,
    /// The position after the phase, already in the next phase that needs orders.
    pub position: Position,
    /// What happened besides the outcomes: passages denied, blockades, starvation, and then the
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
    let (outcomes, mut next, mut events) = match position.phase.kind {
        PhaseKind::Movement => season::first_phase(variant, position, orders),
        PhaseKind::SecondMovement => {
            let r = movement::adjudicate(variant, position, &plain());
            (r.outcomes, r.position, r.events)
        }
        PhaseKind::Retreat | PhaseKind::SecondRetreat => {
            retreat::adjudicate(variant, position, &plain())
        }
        PhaseKind::Adjustment | PhaseKind::Bids => {
            let (outcomes, next, winter) = crate::winter::adjudicate(variant, position, orders);
            (
                outcomes,
                next,
                winter.into_iter().map(Event::Winter).collect(),
            )
        }
    };
    let (second, more) = advance(variant, &mut next);
    events.extend(more);
    // The report gives the board's events first, then the Winter's and the control of the
    // minors' (R7.8 can happen in any phase), each in the order they happened.
    events.sort_by_key(|e| matches!(e, Event::Winter(_)));
    Adjudication {
        outcomes,
        second,
        position: next,
        events,
    }
}

/// Moves `position`, just adjudicated in its phase, on to the next phase that needs orders:
/// a retreat phase only when something was dislodged; the fleets' second phase, which has its
/// orders already, is played on the way (R4.1); at the end of a season, the season's end. Returns
/// the second phase's orders with their outcomes, and the events on the way: losses of control
/// after every phase (R7.8 (b)), the season end's blockades, starved armies and losses of control.
pub fn advance(variant: &Variant, position: &mut Position) -> (Vec<Decided>, Vec<Event>) {
    let mut second = Vec::new();
    let mut events: Vec<Event> = detect_crowding(variant, position)
        .into_iter()
        .map(Event::Winter)
        .collect();
    loop {
        let dislodged = !position.dislodged.is_empty();
        let two_phases = variant.rules.second_moves;
        let phase = &mut position.phase;
        match phase.kind {
            PhaseKind::Movement if dislodged => {
                phase.kind = PhaseKind::Retreat;
                return (second, events);
            }
            PhaseKind::Movement | PhaseKind::Retreat if two_phases => {
                phase.kind = PhaseKind::SecondMovement;
                second = season::second_phase(variant, position);
                events.extend(
                    detect_crowding(variant, position)
                        .into_iter()
                        .map(Event::Winter),
                );
            }
            PhaseKind::SecondMovement if dislodged => {
                phase.kind = PhaseKind::SecondRetreat;
                return (second, events);
            }
            PhaseKind::Movement
            | PhaseKind::Retreat
            | PhaseKind::SecondMovement
            | PhaseKind::SecondRetreat => {
                events.extend(season::end_of_season(variant, position));
                let phase = &mut position.phase;
                if phase.season == Season::Autumn {
                    phase.season = Season::Winter;
                    phase.kind = PhaseKind::Adjustment;
                } else {
                    phase.season = Season::Autumn;
                    phase.kind = PhaseKind::Movement;
                }
                return (second, events);
            }
            PhaseKind::Adjustment | PhaseKind::Bids => {
                position.blockaded = Default::default();
                phase.year += 1;
                phase.season = Season::Spring;
                phase.kind = PhaseKind::Movement;
                return (second, events);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::WinterEvent;

    /// R7.9: a phase's events go to its adjudication, not into the position: a Winter's default
    /// builds are reported with the Winter, and the Spring after it reports none of them.
    #[test]
    fn events_belong_to_one_phase() {
        let v = crate::variant::load_named("napoleonic").expect("the napoleonic board loads");
        // No units: the minors' default builds are reported.
        let winter_1803 = v.parse_phase("Winter 1803 Adjustment").expect("a phase");
        let pos = Position::empty(&v, winter_1803);
        let winter = adjudicate(&v, &pos, &[]);
        let default_build =
            |e: &Event| matches!(e, Event::Winter(WinterEvent::DefaultBuild { .. }));
        assert!(
            winter.events.iter().any(default_build),
            "{:?}",
            winter.events
        );
        let spring = adjudicate(&v, &winter.position, &[]);
        assert!(
            !spring.events.iter().any(default_build),
            "{:?}",
            spring.events
        );
    }
}
