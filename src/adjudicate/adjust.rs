//! The adjustment phase (and the Napoleonic Winter, RULINGS §7, through [`crate::winter`]):
//! builds, removals, waives, and removals for a power that did not order
//! enough of them (civil disorder, the DATC's 2023 rule: the unit farthest from the power's owned
//! centres goes first, counting moves over land and sea alike; fleets before armies at equal
//! distance; then by the space's full name).

use super::outcome::{Outcome, Reason};
use crate::order::{Order, OrderKind};
use crate::position::Position;
use crate::variant::{
    PhaseKind, PowerId, PowerKind, ProvinceId, ProvinceSet, Region, UnitType, Variant,
};
use crate::winter::{influence, supply, victory};

/// How many units `power` may keep: its centres, plus one for the power with the extra unit
/// (England, rule 11) while it owns any centre.
pub fn allowance(variant: &Variant, position: &Position, power: PowerId) -> i32 {
    let centres = position.centre_count(variant, power) as i32;
    let extra = i32::from(variant.rules.extra_unit == Some(power) && centres > 0);
    centres + extra
}

/// Where `power` may build a unit of this type: its owned home centres (armies in any owned
/// centre for a major under rule 9), its build sites, never a fleet in a blockaded centre (R7.3).
pub(crate) fn may_build_at(
    variant: &Variant,
    position: &Position,
    power: PowerId,
    unit: UnitType,
    at: ProvinceId,
) -> Result<(), String> {
    let prov = variant.province(at);
    if unit == UnitType::Fleet && position.blockaded.contains(at) {
        return Err(format!(
            "{} is blockaded this year: no fleet may be built there (R5.4)",
            prov.name
        ));
    }
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
    let anywhere = variant.rules.army_builds_anywhere
        && unit == UnitType::Army
        && variant.power(power).kind == PowerKind::Major;
    if prov.home != Some(power) && !anywhere {
        return Err(
            if variant.rules.army_builds_anywhere && unit == UnitType::Fleet {
                format!(
                    "{} is not one of your home centres: fleets are built only there",
                    prov.name
                )
            } else {
                format!("{} is not one of your home centres", prov.name)
            },
        );
    }
    Ok(())
}

/// The power an adjustment order is for: a build on a minor's home centre, or a removal of a
/// minor's unit, ordered by the minor's controller is the minor's (R7.9).
pub(crate) fn acting_power(
    variant: &Variant,
    position: &Position,
    giver: PowerId,
    order: &Order<Region>,
) -> PowerId {
    let owner = match &order.kind {
        OrderKind::Build { unit } => variant.province(unit.at.province).home,
        OrderKind::Remove { unit } => position.force(unit.at.province).map(|f| f.power),
        _ => None,
    };
    match owner {
        Some(o) if o != giver && position.ledgers.controller(o) == Some(giver) => o,
        _ => giver,
    }
}

/// Adjudicates a Winter phase. `orders` are validated Winter orders, each with the power that
/// gave it. Without the Napoleonic rule switches this is the standard adjustment phase; with
/// them it is the Winter sequence of RULINGS §7 (see [`crate::winter`]).
pub fn adjudicate(
    variant: &Variant,
    position: &Position,
    orders: &[(PowerId, Order<Region>)],
) -> (Vec<Outcome>, Position) {
    let mut outcomes = vec![Outcome::Void("not an adjustment order".into()); orders.len()];
    let mut next = position.clone();
    let rules = &variant.rules;
    let napoleonic = rules.supply_points || rules.influence;
    if napoleonic {
        next.ledgers.start_winter();
    }
    // Winter 1800 (a Bids phase) runs steps (c)-(e) only.
    if position.phase.kind != PhaseKind::Bids {
        if rules.supply_points {
            supply::open(variant, position, orders, &mut outcomes, &mut next.ledgers);
        }
        let acting: Vec<PowerId> = orders
            .iter()
            .map(|(p, o)| acting_power(variant, position, *p, o))
            .collect();
        for power in variant.power_ids() {
            let by_sp = rules.supply_points && variant.power(power).kind == PowerKind::Major;
            let keep = if by_sp {
                supply::units_paid(&next.ledgers, power)
            } else {
                allowance(variant, position, power)
            };
            let no_builds = if by_sp {
                format!("no builds left: your supply points pay for {keep} units")
            } else {
                "no builds left".to_string()
            };
            let mine: Vec<usize> = (0..orders.len()).filter(|&i| acting[i] == power).collect();
            adjust_power(
                variant,
                position,
                &mut next,
                power,
                keep,
                &no_builds,
                orders,
                &mine,
                &mut outcomes,
            );
        }
        if rules.supply_points {
            supply::close(variant, &mut next, orders, &mut outcomes);
        }
        // A blockade stops builds for this Winter only (R5.4).
        next.blockaded = ProvinceSet::EMPTY;
    }
    if rules.influence {
        influence::winter(variant, &mut next, orders, &mut outcomes);
    }
    if napoleonic {
        victory::check(variant, &mut next);
    }
    (outcomes, next)
}

/// Builds, waives and removals of one power, its unordered removals (civil disorder) and, for a
/// minor, its unordered builds (the default of R7.9).
#[allow(clippy::too_many_arguments)]
fn adjust_power(
    variant: &Variant,
    position: &Position,
    next: &mut Position,
    power: PowerId,
    keep: i32,
    no_builds: &str,
    orders: &[(PowerId, Order<Region>)],
    mine: &[usize],
    outcomes: &mut [Outcome],
) {
    let units: i32 = position
        .forces()
        .filter(|(_, f)| f.power == power)
        .map(|(_, f)| f.components() as i32)
        .sum();
    let mut delta = keep - units;
    for &i in mine {
        let order = &orders[i].1;
        outcomes[i] = match &order.kind {
            OrderKind::Build { unit } => {
                let Some(t) = unit.unit_type() else { continue };
                if delta <= 0 {
                    Outcome::Fails(Reason::NotAllowed(no_builds.to_string()))
                } else if let Err(why) = build(variant, position, next, power, t, unit.at) {
                    Outcome::Fails(Reason::NotAllowed(why))
                } else {
                    delta -= 1;
                    Outcome::Succeeds
                }
            }
            OrderKind::Waive if delta > 0 => {
                delta -= 1;
                Outcome::Succeeds
            }
            OrderKind::Waive => Outcome::Fails(Reason::NotAllowed(no_builds.to_string())),
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
                    remove(next, at, unit.armies, unit.fleets);
                    delta += i32::from(unit.armies) + i32::from(unit.fleets);
                    Outcome::Succeeds
                }
            }
            _ => continue,
        };
    }
    if variant.power(power).kind == PowerKind::Minor {
        default_builds(variant, position, next, power, &mut delta);
    }
    while delta < 0 {
        let Some((at, t)) = civil_disorder_pick(variant, next, power) else {
            break;
        };
        let (a, f) = match t {
            UnitType::Army => (1, 0),
            UnitType::Fleet => (0, 1),
        };
        remove(next, at, a, f);
        delta += 1;
    }
}

/// Builds one unit if the site allows it: on an empty space, or (Multiplicity II) joining the
/// builder's own force; never on a foreign-held space (R7.3).
fn build(
    variant: &Variant,
    position: &Position,
    next: &mut Position,
    power: PowerId,
    unit: UnitType,
    at: Region,
) -> Result<(), String> {
    may_build_at(variant, position, power, unit, at.province)?;
    let name = &variant.province(at.province).name;
    match next.force(at.province) {
        Some(f) if f.power != power => {
            return Err(format!(
                "{name} is held by {}: you can't build there",
                variant.power(f.power).name
            ))
        }
        Some(_) if !variant.rules.multiplicity => return Err(format!("{name} is occupied")),
        _ => {}
    }
    next.add_unit(power, unit, at);
    Ok(())
}

/// R7.9's default for a minor's unordered builds: on its vacant owned home centres in board
/// order, an army where an army can stand, else a fleet (on the first coast).
fn default_builds(
    variant: &Variant,
    position: &Position,
    next: &mut Position,
    minor: PowerId,
    delta: &mut i32,
) {
    for p in variant.homes(minor).iter() {
        if *delta <= 0 {
            break;
        }
        if next.force(p).is_some() {
            continue;
        }
        let coast = variant.province(p).coasts.first().copied();
        let (unit, region) = if variant.can_stand(UnitType::Army, Region::of(p)) {
            (UnitType::Army, Region::of(p))
        } else {
            (UnitType::Fleet, Region { province: p, coast })
        };
        if build(variant, position, next, minor, unit, region).is_ok() {
            *delta -= 1;
        }
    }
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
