//! The retreat phase: dislodged forces retreat or disband.
//!
//! A retreat may not go to an occupied space, to the space the attacker came from (unless the
//! attacker came by convoy, DATC 4.A.5), or to a space left empty by a stand-off. Retreats into
//! the same space are all disbanded, except that with Multiplicity (R1.9) one power's retreats
//! there merge and only retreats of different powers clash.

use super::outcome::{Outcome, Reason};
use crate::order::{Order, OrderKind};
use crate::position::{Dislodged, Force, Position};
use crate::variant::{PowerId, ProvinceId, Region, SpaceKind, Variant};

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
/// outcomes and the position with every dislodged force retreated or disbanded.
pub fn adjudicate(
    variant: &Variant,
    position: &Position,
    orders: &[Order<Region>],
) -> (Vec<Outcome>, Position) {
    let mut outcomes =
        vec![Outcome::Void("no dislodged unit to carry it out".into()); orders.len()];
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
                match retreat_bar(position, d, to.province) {
                    // Each of these makes the retreat illegal (DATC 6.H.5, 6.H.6, 6.H.10).
                    Some(why) => outcomes[i] = Outcome::Void(why.into()),
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
    carry_armies_aboard(variant, position, &mut moves);
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
        let slot = &mut next.units[m.to.province.index()];
        let f = slot.get_or_insert(Force {
            power: m.power,
            armies: 0,
            fleets: 0,
            coast: m.to.coast,
        });
        // Counts are bytes: a stack can't grow past 255 (R1.1).
        f.armies = f.armies.saturating_add(m.armies);
        f.fleets = f.fleets.saturating_add(m.fleets);
        if m.armies > 0 && variant.province(m.to.province).kind == SpaceKind::Sea {
            let time = &mut next.sea_time[m.to.province.index()];
            *time = (*time).max(position.dislodged[m.from].sea_time);
        }
    }
    (outcomes, next)
}

/// A dislodged force at sea retreats with its armies aboard (R3.5): armies its orders don't name go
/// with its retreating fleets, as many as those fleets can carry; the rest are lost with no fleet.
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
        for m in moves.iter_mut().filter(|m| m.from == from) {
            let room = m.fleets.saturating_sub(m.armies).min(loose);
            m.armies += room;
            loose -= room;
        }
    }
}

/// Why a dislodged force may not retreat into `p`, known from the position alone (R1.9; DATC
/// 6.H.5, 6.H.6, 6.H.10): validation refuses such a retreat with the same reason.
pub(crate) fn retreat_bar(
    position: &Position,
    d: &Dislodged,
    p: ProvinceId,
) -> Option<&'static str> {
    if position.units[p.index()].is_some() {
        Some("the space is occupied")
    } else if d.attacker_from == Some(p) && !d.by_convoy {
        Some("the attacker came from there")
    } else if position.standoffs.contains(p) {
        Some("the space was left empty by a stand-off")
    } else {
        None
    }
}
