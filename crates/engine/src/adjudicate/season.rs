//! The movement season with the fleets' second moves (R4): the first phase, its retreats, the
//! second phase (fleets only, with orders given at the first deadline), its retreats; then the
//! end of the season (blockades recorded for the Winter, armies starving at sea, centre owners).

use super::movement;
use crate::order::{Order, OrderKind, Stage, UnitSpec};
use crate::outcome::{Event, Outcome, Reason, Refusal, Void};
use crate::position::{Pending, Position, SeaTime};
use crate::variant::{PowerId, Region, Season, SpaceKind, Variant};
use crate::winter::control::before_centres_change;

/// The first movement phase: chains are split into a first move and a second-phase move, orders
/// for the second phase are set aside, and after the first moves each set-aside order is checked
/// (R4.3) and kept in the position until the second phase.
pub fn first_phase(
    variant: &Variant,
    position: &Position,
    orders: &[(PowerId, Order<Region>)],
) -> (Vec<Outcome>, Position, Vec<Event>) {
    let mut first: Vec<Order<Region>> = Vec::new();
    let mut first_powers: Vec<PowerId> = Vec::new();
    let mut first_index: Vec<usize> = Vec::new();
    // (power, order, the input order it came from, the chain's first move if it is a chain's)
    let mut second: Vec<(PowerId, Order<Region>, Option<usize>)> = Vec::new();
    for (i, (power, order)) in orders.iter().enumerate() {
        if order.stage == Stage::Second {
            second.push((*power, order.clone(), None));
            continue;
        }
        first_index.push(i);
        first_powers.push(*power);
        match split_chain(order) {
            Some((head, leg)) => {
                first.push(head);
                second.push((*power, leg, Some(first.len() - 1)));
            }
            None => first.push(order.clone()),
        }
    }
    one_leg_for_a_move_given_twice(&first, &first_powers, &mut second);
    let r = movement::adjudicate_by(variant, position, &first, &first_powers);
    let mut outcomes = vec![Outcome::SecondPhase; orders.len()];
    for (k, &i) in first_index.iter().enumerate() {
        outcomes[i] = r.outcomes[k].clone();
    }
    let mut next = r.position;
    next.blockades = r.blockades;
    next.pending = pending_orders(
        variant,
        position,
        &next,
        &first,
        &r.outcomes,
        (&r.merged, &r.embarked),
        second,
    );
    void_armies_ashore(variant, &mut next.pending);
    (outcomes, next, r.events)
}

/// No army boards or acts in the second phase (R3.3, R4.4): a second-phase order naming armies
/// in a coastal space is void, as the same order is in the first phase, and nothing moves.
fn void_armies_ashore(variant: &Variant, pending: &mut [Pending]) {
    for p in pending.iter_mut().filter(|p| p.void.is_none()) {
        if armies_ashore(variant, &p.order) {
            p.void = Some(Void::ArmiesInSecondPhase);
        }
    }
}

/// Whether a second-phase order names armies in a coastal space (void, R4.4).
pub(crate) fn armies_ashore(variant: &Variant, order: &Order<Region>) -> bool {
    order
        .kind
        .unit()
        .is_some_and(|u| u.armies > 0 && variant.province(u.at.province).kind != SpaceKind::Sea)
}

/// The second-phase orders, each void if the first phase made it so (R4.3): the fleet's first
/// move failed, it was dislodged, it blockaded, or no eligible fleet of the power is where the
/// order says.
fn pending_orders(
    variant: &Variant,
    before: &Position,
    after: &Position,
    first: &[Order<Region>],
    outcomes: &[Outcome],
    (merged, embarked): (&[movement::MergeMove], &[movement::EmbarkMove]),
    second: Vec<(PowerId, Order<Region>, Option<usize>)>,
) -> Vec<Pending> {
    // Whether each first-phase order's move was made: an embarkation's is its fleets' move,
    // which stands even when the army can't board (R3.2), so a chain's second leg goes on.
    let embarkation = |k: usize| embarked.iter().find(|e| e.order == k);
    let moved = |k: usize| embarkation(k).map_or(outcomes[k].succeeded(), |e| e.moved);
    // Fleets that may still act in each space: those that held, and those that arrived.
    let n = after.units.len();
    let mut eligible = vec![0u32; n];
    for (p, f) in before.forces() {
        eligible[p.index()] = u32::from(f.fleets);
    }
    for (k, (order, outcome)) in first.iter().zip(outcomes).enumerate() {
        let Some(unit) = order.kind.unit() else {
            continue;
        };
        let from = unit.at.province.index();
        match &order.kind {
            OrderKind::Move { to, .. } => {
                eligible[from] = eligible[from].saturating_sub(u32::from(unit.fleets));
                if outcome.succeeded() {
                    eligible[to.province.index()] += u32::from(unit.fleets);
                }
            }
            OrderKind::Blockade { .. } => {
                eligible[from] = eligible[from].saturating_sub(u32::from(unit.fleets));
            }
            // Fleets whose own order gives the same move are counted with that order.
            OrderKind::EmbarkWith { fleet, to, .. }
                if embarkation(k).is_some_and(|e| !e.own_order) =>
            {
                let at = fleet.at.province.index();
                eligible[at] = eligible[at].saturating_sub(u32::from(fleet.fleets));
                if moved(k) {
                    eligible[to.province.index()] += u32::from(fleet.fleets);
                }
            }
            _ => {}
        }
    }
    // A fleet that merged into its target may move again from there; one whose merge failed or
    // that dropped out may not (R4.3, R2.6).
    for m in merged {
        let from = m.from.index();
        eligible[from] = eligible[from].saturating_sub(u32::from(m.fleets));
        if m.arrived {
            eligible[m.to.index()] += u32::from(m.fleets);
        }
    }
    // A dislodged force's fleets may not move again; fleets that arrived in its space may (R4.1).
    for d in &after.dislodged {
        let e = &mut eligible[d.province.index()];
        *e = e.saturating_sub(u32::from(d.force.fleets));
    }
    // The fleets the power's second-phase orders name in each space where its force is. Orders
    // that together name more than may still act there are all void (R1.4, R4.3): no order of
    // writing picks which (section 0).
    let units_named = |order: &Order<Region>| -> Vec<UnitSpec<Region>> {
        match &order.kind {
            OrderKind::Merge { units, .. } => units.clone(),
            kind => kind.unit().into_iter().cloned().collect(),
        }
    };
    let here = |unit: &UnitSpec<Region>, power: PowerId| {
        after
            .force(unit.at.province)
            .is_some_and(|f| f.power == power)
    };
    let mut named = vec![0u32; n];
    let counted =
        |order: &Order<Region>| leg_is_legal(variant, order) && !armies_ashore(variant, order);
    for (power, order, _) in second.iter().filter(|s| counted(&s.1)) {
        for unit in units_named(order).iter().filter(|u| here(u, *power)) {
            named[unit.at.province.index()] += u32::from(unit.fleets.max(1));
        }
    }
    let take = |unit: &UnitSpec<Region>, power: PowerId| {
        let p = unit.at.province.index();
        (!here(unit, power) || named[p] > eligible[p]).then_some(Void::NoFleetMayMoveAgain)
    };
    // A chain's second leg is its `2:` order (R4.2, section 0): fleets are told apart only by
    // where they are, so a fleet of the power that may move again where the first move was going
    // carries it out, even when that first move failed; with none there, the failed first move
    // is the reason.
    let mut pending = Vec::with_capacity(second.len());
    for (power, order, chain) in second {
        let mut dropped = Vec::new();
        let void = match &order.kind {
            _ if !leg_is_legal(variant, &order) => Some(Void::SecondMoveNotToSea),
            // Each participant of a merge is judged on its own; the merge is void only when all
            // are (R2.6).
            OrderKind::Merge { units, .. } => {
                let mut why = None;
                for (k, unit) in units.iter().enumerate() {
                    if let Some(w) = take(unit, power) {
                        dropped.push(k);
                        why = why.or(Some(w));
                    }
                }
                why.filter(|_| dropped.len() == units.len())
            }
            kind => match kind.unit() {
                Some(unit) => take(unit, power),
                None => Some(Void::NamesNoFleet),
            },
        };
        let failed = chain.is_some_and(|k| !moved(k));
        let void = void.map(|why| if failed { Void::FirstMoveFailed } else { why });
        pending.push(Pending {
            power,
            order,
            void,
            dropped,
        });
    }
    pending
}

/// A chain (`F(NTH)-ENG-MAO`, `A(Tun) E F(BOT)-ION-AEG`) as its first-phase order and the
/// second-phase move of the fleet from where the first move takes it (R4.2). With an embarkation
/// the fleet sails on carrying the army (no landing in the second phase, R3.3).
fn split_chain(order: &Order<Region>) -> Option<(Order<Region>, Order<Region>)> {
    // A move's leg names the armies the fleets carry, as its `2:` order would (section 0).
    let (head, armies, fleets, at, next) = match &order.kind {
        OrderKind::Move {
            unit,
            to,
            via_convoy,
            then: Some(next),
        } => {
            let head = OrderKind::Move {
                unit: unit.clone(),
                to: *to,
                via_convoy: *via_convoy,
                then: None,
            };
            (head, unit.armies, unit.fleets, *to, *next)
        }
        OrderKind::EmbarkWith {
            unit,
            fleet,
            to,
            then: Some(next),
        } => {
            let head = OrderKind::EmbarkWith {
                unit: unit.clone(),
                fleet: fleet.clone(),
                to: *to,
                then: None,
            };
            // Reported as the fleet's move (`2: F(ION)-AEG`): the army it took aboard this
            // phase has no room to stay behind in.
            (head, 0, fleet.fleets, *to, *next)
        }
        _ => return None,
    };
    let leg = OrderKind::Move {
        unit: UnitSpec { armies, fleets, at },
        to: next,
        via_convoy: false,
        then: None,
    };
    Some((
        Order::new(head),
        Order {
            stage: Stage::Second,
            kind: leg,
        },
    ))
}

/// The same fleet move or chain given twice (in an embark and in the fleet's own order) is one
/// move: its second leg is made once, not voided as two orders for one fleet (R3.2, section 0).
/// For each embarkation whose fleet's own order gives the same first move, two second-phase
/// moves of the power from where that move goes, to the same sea with as many fleets, are one:
/// the embarkation's chain leg is dropped, else a `2:` order, whichever notation gave them.
fn one_leg_for_a_move_given_twice(
    first: &[Order<Region>],
    powers: &[PowerId],
    second: &mut Vec<(PowerId, Order<Region>, Option<usize>)>,
) {
    let fleet_move = |o: &Order<Region>| match &o.kind {
        OrderKind::Move {
            unit,
            to,
            via_convoy: false,
            ..
        } if unit.fleets > 0 => Some((unit.at.province, to.province, unit.fleets)),
        _ => None,
    };
    for (k, order) in first.iter().enumerate() {
        let OrderKind::EmbarkWith { fleet, to, .. } = &order.kind else {
            continue;
        };
        let given = (fleet.at.province, to.province, fleet.fleets);
        let twice = first
            .iter()
            .zip(powers)
            .any(|(o, p)| *p == powers[k] && fleet_move(o) == Some(given));
        if !twice {
            continue;
        }
        let legs: Vec<usize> = (0..second.len())
            .filter(|&j| {
                let (p, o, _) = &second[j];
                *p == powers[k]
                    && fleet_move(o).is_some_and(|(at, _, n)| at == given.1 && n == given.2)
            })
            .collect();
        let same = |a: usize, b: usize| fleet_move(&second[a].1) == fleet_move(&second[b].1);
        let drop = legs
            .iter()
            .copied()
            .filter(|&a| legs.iter().any(|&b| b != a && same(a, b)))
            .min_by_key(|&a| match second[a].2 {
                Some(c) if c == k => 0,
                None => 1,
                Some(_) => 2,
            });
        if let Some(a) = drop {
            second.remove(a);
        }
    }
}

/// Whether a chain's second leg goes from where the fleet is to an adjacent sea space.
fn leg_is_legal(variant: &Variant, order: &Order<Region>) -> bool {
    match &order.kind {
        OrderKind::Move { unit, to, .. } => {
            variant.province(to.province).kind == SpaceKind::Sea
                && variant
                    .fleet_moves(Region::of(unit.at.province))
                    .any(|r| r.province == to.province)
        }
        _ => true,
    }
}

/// A one-line merge without the participants whose part is void (R2.6); any other order as it is.
fn without_dropped(kind: &OrderKind<Region>, dropped: &[usize]) -> OrderKind<Region> {
    match kind {
        OrderKind::Merge {
            units,
            target,
            result,
        } if !dropped.is_empty() => OrderKind::Merge {
            units: (0..units.len())
                .filter(|k| !dropped.contains(k))
                .map(|k| units[k].clone())
                .collect(),
            target: *target,
            result: *result,
        },
        kind => kind.clone(),
    }
}

/// The fleets' second phase, from the orders the position kept: returns each kept order with its
/// outcome, and leaves the position after the phase.
pub fn second_phase(variant: &Variant, position: &mut Position) -> Vec<super::Decided> {
    let pending = std::mem::take(&mut position.pending);
    let mut orders: Vec<Order<Region>> = pending
        .iter()
        .filter(|p| p.void.is_none())
        .map(|p| Order::new(without_dropped(&p.order.kind, &p.dropped)))
        .collect();
    // Blockading fleets keep blockading: attacks in this phase may still cut them (R5.2, R5.3).
    // Fleets whose blockade was cut are still blockaders: the army goes with the part that does
    // not blockade (R5.1).
    let blockade_orders: Vec<Order<Region>> = position
        .blockades
        .iter()
        .map(|b| {
            Order::new(OrderKind::Blockade {
                unit: UnitSpec {
                    armies: 0,
                    fleets: b.fleets,
                    at: Region::of(b.province),
                },
                centre: Region::of(b.centre),
            })
        })
        .collect();
    for (b, order) in position.blockades.iter().zip(&blockade_orders) {
        let still_there = position
            .force(b.province)
            .is_some_and(|f| f.power == b.power && f.fleets >= b.fleets);
        if b.held || still_there {
            orders.push(order.clone());
        }
    }
    let r = movement::adjudicate(variant, position, &orders);
    let mut outcomes = r.outcomes.into_iter();
    let mut reported: Vec<super::Decided> = pending
        .into_iter()
        .map(|p| {
            let outcome = match &p.void {
                Some(why) => Outcome::Void(*why),
                None => outcomes.next().unwrap_or(Outcome::Void(Void::NoUnit)),
            };
            (p.power, p.order, outcome)
        })
        .collect();
    let blockades = std::mem::take(&mut position.blockades);
    *position = r.position;
    position.blockades = blockades
        .into_iter()
        .map(|mut b| {
            let again = r
                .blockades
                .iter()
                .find(|x| x.province == b.province && x.power == b.power);
            b.held = b.held && again.is_some_and(|x| x.held);
            b
        })
        .collect();
    // A blockade's outcome is known only now: attacks in either phase cut it (R5.3).
    for (b, order) in position.blockades.iter().zip(blockade_orders) {
        let outcome = if b.held {
            Outcome::Succeeds
        } else {
            Outcome::Fails(Reason::Refused(Refusal::BlockadeBroken))
        };
        reported.push((b.power, order, outcome));
    }
    reported
}

/// The end of a movement season: armies too long at sea starve (R3.6), blockades that held stop
/// fleet builds in the Winter (R5.4), and after Autumn centres change owner (R7.1). Returns what
/// happened: each blockade held or cut, the armies starved, the minors lost (R7.8 (a)).
pub fn end_of_season(variant: &Variant, position: &mut Position) -> Vec<Event> {
    let mut events: Vec<Event> = position
        .blockades
        .iter()
        .map(|b| {
            let (power, sea, centre) = (b.power, b.province, b.centre);
            if b.held {
                Event::BlockadeHeld { power, sea, centre }
            } else {
                Event::BlockadeCut { power, sea, centre }
            }
        })
        .collect();
    for p in variant.province_ids() {
        let i = p.index();
        let at_sea = variant.province(p).kind == SpaceKind::Sea;
        let time = &mut position.sea_time[i];
        match &mut position.units[i] {
            // Each army counts its own seasons; only those reaching four starve, the fleets and
            // the other armies sail on.
            Some(f) if at_sea && f.armies > 0 => {
                let starved = time.end_season(f.armies, variant.rules.starvation);
                f.armies -= starved;
                if starved > 0 {
                    events.push(Event::Starved {
                        power: f.power,
                        sea: p,
                        armies: starved,
                    });
                }
            }
            _ => *time = SeaTime::default(),
        }
    }
    position.pending.clear();
    let blockades = std::mem::take(&mut position.blockades);
    if position.phase.season == Season::Autumn {
        for b in blockades.iter().filter(|b| b.held) {
            position.blockaded.insert(b.centre);
        }
        // R7.8 (a), and how long centres are held (R7.11), before the centres change hands.
        let lost = before_centres_change(variant, position);
        events.extend(lost.into_iter().map(Event::Winter));
        for (p, f) in position.units.iter().enumerate() {
            if let Some(f) = f {
                if variant.provinces[p].centre {
                    position.owners[p] = Some(f.power);
                }
            }
        }
    }
    events
}
