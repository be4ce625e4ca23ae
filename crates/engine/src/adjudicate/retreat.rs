//! The retreat phase: dislodged forces retreat or disband.
//!
//! A retreat may not go to an occupied space, to the space the attacker came from (unless the
//! attacker came by convoy, DATC 4.A.5), or to a space left empty by a stand-off. Retreats into
//! the same space are all disbanded, except that with Multiplicity (R1.9) one power's retreats
//! there merge and only retreats of different powers clash.

use crate::order::{Order, OrderKind};
use crate::outcome::{Event, Outcome, Reason, Void};
use crate::position::{Force, Position, SeaTime};
use crate::validate::retreat_barred;
use crate::variant::{PowerId, Region, SpaceKind, Variant};

/// One retreat, as decided so far.
struct Move {
    order: usize,
    /// The dislodged force it comes from, by its index in the position's list.
    from: usize,
    power: PowerId,
    armies: u8,
    fleets: u8,
    to: Region,
}

/// Adjudicates a retreat phase: `orders` are validated retreats and disbands. Returns the
/// outcomes, the position with every dislodged force retreated or disbanded, and an event for
/// each force whose units were disbanded without a disband order.
pub fn adjudicate(
    variant: &Variant,
    position: &Position,
    orders: &[Order<Region>],
) -> (Vec<Outcome>, Position, Vec<Event>) {
    let mut outcomes = vec![Outcome::Void(Void::NoDislodgedUnit); orders.len()];
    let mut moves: Vec<Move> = Vec::new();
    for (i, order) in orders.iter().enumerate() {
        match &order.kind {
            OrderKind::Retreat { unit, to } => {
                let Some((from, d)) = position
                    .dislodged
                    .iter()
                    .enumerate()
                    .find(|(_, d)| d.province == unit.at.province)
                else {
                    continue;
                };
                match retreat_barred(position, d, to.province) {
                    Some(why) => outcomes[i] = Outcome::Void(why),
                    None => moves.push(Move {
                        order: i,
                        from,
                        power: d.force.power,
                        armies: unit.armies,
                        fleets: unit.fleets,
                        to: *to,
                    }),
                }
            }
            OrderKind::Disband { .. } => outcomes[i] = Outcome::Succeeds,
            _ => {}
        }
    }
    let mut next = position.clone();
    next.dislodged.clear();
    next.standoffs = Default::default();
    // Armies aboard go with the retreating fleets, and take their own seasons at sea with them
    // (R3.6, the longest at sea first), by destination: the order of writing plays no part.
    moves.sort_by_key(|m| m.to.province.index());
    carry_armies_aboard(variant, position, &mut moves);
    let mut pools: Vec<SeaTime> = position.dislodged.iter().map(|d| d.sea_time).collect();
    for m in &moves {
        let clash = moves.iter().any(|o| {
            o.order != m.order
                && o.to.province == m.to.province
                && (!variant.rules.multiplicity || o.power != m.power)
        });
        if clash {
            outcomes[m.order] = Outcome::Fails(Reason::RetreatClash);
            continue;
        }
        outcomes[m.order] = Outcome::Succeeds;
        next.add_force(
            m.to.province,
            Force {
                power: m.power,
                armies: m.armies,
                fleets: m.fleets,
                coast: m.to.coast,
            },
        );
        let time = pools[m.from].take_longest(m.armies);
        if variant.province(m.to.province).kind == SpaceKind::Sea {
            next.sea_time[m.to.province.index()].add(time);
        }
    }
    let events = unordered_disbands(position, orders, &outcomes, &moves);
    (outcomes, next, events)
}

/// The units of each dislodged force that neither retreated nor were ordered to disband.
fn unordered_disbands(
    position: &Position,
    orders: &[Order<Region>],
    outcomes: &[Outcome],
    moves: &[Move],
) -> Vec<Event> {
    position
        .dislodged
        .iter()
        .enumerate()
        .filter_map(|(from, d)| {
            let (mut armies, mut fleets) = (d.force.armies, d.force.fleets);
            for m in moves
                .iter()
                .filter(|m| m.from == from && outcomes[m.order] == Outcome::Succeeds)
            {
                armies = armies.saturating_sub(m.armies);
                fleets = fleets.saturating_sub(m.fleets);
            }
            for o in orders {
                if let OrderKind::Disband { unit } = &o.kind {
                    if unit.at.province == d.province {
                        armies = armies.saturating_sub(unit.armies);
                        fleets = fleets.saturating_sub(unit.fleets);
                    }
                }
            }
            (armies + fleets > 0).then_some(Event::Disbanded {
                power: d.force.power,
                at: d.province,
                armies,
                fleets,
            })
        })
        .collect()
}

/// A dislodged force at sea retreats with its armies aboard (R3.5): armies its orders don't name go
/// with its fleets retreating to other seas (in the order of `moves`), as many as those fleets can
/// carry; a fleet retreating ashore takes none (an army lands only by D, R3.3); the rest are lost
/// with no fleet.
fn carry_armies_aboard(variant: &Variant, position: &Position, moves: &mut [Move]) {
    for (from, d) in position.dislodged.iter().enumerate() {
        if variant.province(d.province).kind != SpaceKind::Sea {
            continue;
        }
        let named: u8 = moves
            .iter()
            .filter(|m| m.from == from)
            .map(|m| m.armies)
            .sum();
        let mut loose = d.force.armies.saturating_sub(named);
        let to_sea = |m: &Move| variant.province(m.to.province).kind == SpaceKind::Sea;
        for m in moves.iter_mut().filter(|m| m.from == from && to_sea(m)) {
            let room = m.fleets.saturating_sub(m.armies).min(loose);
            m.armies += room;
            loose -= room;
        }
    }
}
