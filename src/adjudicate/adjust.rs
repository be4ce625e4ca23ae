//! The adjustment phase: builds, removals, waives, and removals for a power that did not order
//! enough of them (civil disorder, the DATC's 2023 rule: the unit farthest from the power's owned
//! centres goes first, counting moves over land and sea alike; fleets before armies at equal
//! distance; then by the space's full name).

use super::outcome::{Outcome, Reason};
use crate::order::{Order, OrderKind};
use crate::position::Position;
use crate::variant::{PowerId, ProvinceId, ProvinceSet, Region, UnitType, Variant};

/// How many units `power` may keep: its centres, plus one for the power with the extra unit
/// (England, rule 11) while it owns any centre.
pub fn allowance(variant: &Variant, position: &Position, power: PowerId) -> i32 {
    let centres = position.centre_count(variant, power) as i32;
    let extra = i32::from(variant.rules.extra_unit == Some(power) && centres > 0);
    centres + extra
}

/// Where `power` may build a unit of this type (before checking occupation).
fn may_build_at(
    variant: &Variant,
    position: &Position,
    power: PowerId,
    unit: UnitType,
    at: ProvinceId,
) -> Result<(), String> {
    let prov = variant.province(at);
    if let Some(site) = variant.build_sites.iter().find(|s| s.province == at) {
        let ok = site.power == power
            && match unit {
                UnitType::Army => site.army,
                UnitType::Fleet => site.fleet,
            };
        return if ok {
            Ok(())
        } else {
            Err(format!("{} is not a build site for that", prov.name))
        };
    }
    if !prov.centre || position.owners[at.index()] != Some(power) {
        return Err(format!("{} is not a centre you own", prov.name));
    }
    if prov.home != Some(power) {
        return Err(format!("{} is not one of your home centres", prov.name));
    }
    Ok(())
}

/// Adjudicates an adjustment phase. `orders` are validated Winter orders, each with the power
/// that gave it.
pub fn adjudicate(
    variant: &Variant,
    position: &Position,
    orders: &[(PowerId, Order<Region>)],
) -> (Vec<Outcome>, Position) {
    let mut outcomes = vec![Outcome::Void("not an adjustment order".into()); orders.len()];
    let mut next = position.clone();
    for power in variant.power_ids() {
        let units: i32 = position
            .forces()
            .filter(|(_, f)| f.power == power)
            .map(|(_, f)| f.components() as i32)
            .sum();
        let mut delta = allowance(variant, position, power) - units;
        let mine = orders.iter().enumerate().filter(|(_, (p, _))| *p == power);
        let mut built = ProvinceSet::EMPTY;
        for (i, (_, order)) in mine {
            outcomes[i] = match &order.kind {
                OrderKind::Build { unit } => {
                    let at = unit.at.province;
                    let Some(t) = unit.unit_type() else { continue };
                    if delta <= 0 {
                        Outcome::Fails(Reason::NotAllowed("no builds left".into()))
                    } else if let Err(why) = may_build_at(variant, position, power, t, at) {
                        Outcome::Fails(Reason::NotAllowed(why))
                    } else if position.force(at).is_some() || built.contains(at) {
                        Outcome::Fails(Reason::NotAllowed(format!(
                            "{} is occupied",
                            variant.province(at).name
                        )))
                    } else {
                        built.insert(at);
                        next.add_unit(power, t, unit.at);
                        delta -= 1;
                        Outcome::Succeeds
                    }
                }
                OrderKind::Waive if delta > 0 => {
                    delta -= 1;
                    Outcome::Succeeds
                }
                OrderKind::Waive => Outcome::Fails(Reason::NotAllowed("no builds left".into())),
                OrderKind::Remove { unit } => {
                    let at = unit.at.province;
                    let present = next.force(at).is_some_and(|f| {
                        f.power == power && f.armies >= unit.armies && f.fleets >= unit.fleets
                    });
                    if delta >= 0 {
                        Outcome::Fails(Reason::NotAllowed("no removals due".into()))
                    } else if !present {
                        Outcome::Fails(Reason::NotAllowed(format!(
                            "no such unit of yours in {}",
                            variant.province(at).name
                        )))
                    } else {
                        remove(&mut next, at, unit.armies, unit.fleets);
                        delta += i32::from(unit.armies) + i32::from(unit.fleets);
                        Outcome::Succeeds
                    }
                }
                _ => continue,
            };
        }
        while delta < 0 {
            let Some((at, t)) = civil_disorder_pick(variant, &next, power) else {
                break;
            };
            let (a, f) = match t {
                UnitType::Army => (1, 0),
                UnitType::Fleet => (0, 1),
            };
            remove(&mut next, at, a, f);
            delta += 1;
        }
    }
    (outcomes, next)
}

fn remove(position: &mut Position, at: ProvinceId, armies: u8, fleets: u8) {
    let slot = &mut position.units[at.index()];
    if let Some(f) = slot {
        f.armies = f.armies.saturating_sub(armies);
        f.fleets = f.fleets.saturating_sub(fleets);
        if f.components() == 0 {
            *slot = None;
        }
    }
}

/// The unit civil disorder removes next: farthest from an owned centre, fleets first, then by name.
fn civil_disorder_pick(
    variant: &Variant,
    position: &Position,
    power: PowerId,
) -> Option<(ProvinceId, UnitType)> {
    let distance = distances_to_owned(variant, position, power);
    position
        .forces()
        .filter(|(_, f)| f.power == power)
        .map(|(p, f)| {
            let t = if f.fleets > 0 {
                UnitType::Fleet
            } else {
                UnitType::Army
            };
            (p, t)
        })
        .max_by(|&(p, t), &(q, u)| {
            let key = |p: ProvinceId| distance[p.index()];
            key(p)
                .cmp(&key(q))
                .then((t == UnitType::Fleet).cmp(&(u == UnitType::Fleet)))
                .then(variant.province(q).name.cmp(&variant.province(p).name))
        })
}

/// Moves needed from each space to the nearest centre `power` owns, over land and sea alike.
fn distances_to_owned(variant: &Variant, position: &Position, power: PowerId) -> Vec<u32> {
    let n = variant.provinces.len();
    let mut dist = vec![u32::MAX; n];
    let mut frontier: Vec<ProvinceId> = variant
        .centres()
        .iter()
        .filter(|p| position.owners[p.index()] == Some(power))
        .collect();
    for p in &frontier {
        dist[p.index()] = 0;
    }
    let mut d = 0;
    while !frontier.is_empty() {
        d += 1;
        let mut next = Vec::new();
        for p in frontier {
            let near = variant.army_adj[p.index()].0 | variant.fleet_reach[p.index()].0;
            for q in ProvinceSet(near).iter() {
                if dist[q.index()] == u32::MAX {
                    dist[q.index()] = d;
                    next.push(q);
                }
            }
        }
        frontier = next;
    }
    dist
}
