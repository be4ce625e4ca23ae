//! The units' part of an adjustment phase (step (b) of the Winter, and the standard game's whole
//! adjustment phase): builds, removals, waives, and removals for a power that did not order
//! enough of them (civil disorder, the DATC's 2023 rule: the unit farthest from the power's owned
//! centres goes first, counting moves over land and sea alike; fleets before armies at equal
//! distance; then by the space's full name). The webdiplomacy edition counts from the power's
//! home centres instead of its owned ones ([`CivilDisorder`]).

use super::supply;
use crate::order::{Order, OrderKind};
use crate::outcome::{Outcome, Reason, Refusal, WinterEvent};
use crate::position::Position;
use crate::validate::{acting_power, may_build_at};
use crate::variant::{
    CivilDisorder, PowerId, ProvinceId, ProvinceSet, Region, SpaceKind, UnitType, Variant,
};

/// How many units `power` may keep without supply points: what its centres would pay for (its
/// centres, plus England's extra unit, R7.2).
pub fn allowance(variant: &Variant, position: &Position, power: PowerId) -> i32 {
    (supply::income(variant, position, power) / supply::SP_PER_UNIT) as i32
}

/// Every power's builds, waives and removals, its civil-disorder removals and a minor's default
/// builds, on `next`. A major under the supply-point rules keeps what its open account pays for.
/// Returns the civil-disorder removals and default builds, power by power.
pub fn units(
    variant: &Variant,
    position: &Position,
    next: &mut Position,
    orders: &[(PowerId, Order<Region>)],
    outcomes: &mut [Outcome],
) -> Vec<WinterEvent> {
    let mut events = Vec::new();
    let acting: Vec<PowerId> = orders
        .iter()
        .map(|(p, o)| acting_power(variant, position, *p, o))
        .collect();
    for power in variant.power_ids() {
        let by_sp = variant.rules.supply_points && position.ledgers.is_major(variant, power);
        let keep = if by_sp {
            supply::units_paid(&next.ledgers, power)
        } else {
            allowance(variant, position, power)
        };
        let no_builds = if by_sp {
            Refusal::NoBuildsLeftPaid(keep)
        } else {
            Refusal::NoBuildsLeft
        };
        let mine: Vec<usize> = (0..orders.len()).filter(|&i| acting[i] == power).collect();
        events.extend(adjust_power(
            variant, position, next, power, keep, no_builds, orders, &mine, outcomes,
        ));
    }
    events
}

/// Builds, waives and removals of one power, its unordered removals (civil disorder) and, for a
/// minor, its unordered builds (the default of R7.9). Returns those removals and builds.
#[allow(clippy::too_many_arguments)]
fn adjust_power(
    variant: &Variant,
    position: &Position,
    next: &mut Position,
    power: PowerId,
    keep: i32,
    no_builds: Refusal,
    orders: &[(PowerId, Order<Region>)],
    mine: &[usize],
    outcomes: &mut [Outcome],
) -> Vec<WinterEvent> {
    let mut events = Vec::new();
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
                // A build by count is that many builds, all or none (R7.3).
                let count = unit.armies.max(unit.fleets);
                let mut built = || -> Result<(), Refusal> {
                    for _ in 0..count {
                        build(variant, position, next, power, t, unit.at)?;
                    }
                    Ok(())
                };
                if delta <= 0 {
                    Outcome::Fails(Reason::Refused(no_builds))
                } else if delta < i32::from(count) {
                    Outcome::Fails(Reason::Refused(Refusal::TooFewBuilds(count, delta)))
                } else if let Err(why) = built() {
                    Outcome::Fails(Reason::Refused(why))
                } else {
                    delta -= i32::from(count);
                    Outcome::Succeeds
                }
            }
            OrderKind::Waive if delta > 0 => {
                delta -= 1;
                Outcome::Succeeds
            }
            OrderKind::Waive => Outcome::Fails(Reason::Refused(no_builds)),
            OrderKind::Remove { unit } => {
                let at = unit.at.province;
                let present = next.force(at).is_some_and(|f| {
                    f.power == power && f.armies >= unit.armies && f.fleets >= unit.fleets
                });
                let strands_armies = next.force(at).is_some_and(|f| {
                    stranded(
                        variant,
                        at,
                        f.armies - unit.armies.min(f.armies),
                        f.fleets - unit.fleets.min(f.fleets),
                    )
                });
                if delta >= 0 {
                    Outcome::Fails(Reason::Refused(Refusal::NoRemovalsDue))
                } else if present && strands_armies {
                    Outcome::Fails(Reason::Refused(Refusal::RemoveArmiesFirst(at)))
                } else if !present {
                    Outcome::Fails(Reason::Refused(Refusal::NoSuchUnit(at)))
                } else {
                    remove(next, at, unit.armies, unit.fleets);
                    delta += i32::from(unit.armies) + i32::from(unit.fleets);
                    Outcome::Succeeds
                }
            }
            _ => continue,
        };
    }
    if !position.ledgers.is_major(variant, power) {
        events = default_builds(variant, position, next, power, &mut delta);
    }
    while delta < 0 {
        let Some((at, unit)) = civil_disorder_pick(variant, next, power) else {
            break;
        };
        let (a, f) = match unit {
            UnitType::Army => (1, 0),
            UnitType::Fleet => (0, 1),
        };
        remove(next, at, a, f);
        events.push(WinterEvent::CivilDisorder { power, at, unit });
        delta += 1;
    }
    events
}

/// Whether `armies` and `fleets` left at sea would leave armies without fleets to carry them.
fn stranded(variant: &Variant, at: ProvinceId, armies: u8, fleets: u8) -> bool {
    variant.province(at).kind == SpaceKind::Sea && armies > fleets
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
) -> Result<(), Refusal> {
    may_build_at(variant, position, power, unit, at.province)?;
    match next.force(at.province) {
        Some(f) if f.power != power => return Err(Refusal::HeldBy(at.province, f.power)),
        Some(_) if !variant.rules.multiplicity => return Err(Refusal::Occupied(at.province)),
        _ => {}
    }
    next.add_unit(power, unit, at);
    Ok(())
}

/// R7.9's default for a minor's unordered builds: on its vacant owned home centres in board
/// order, an army where an army can stand, else a fleet (on the first coast). Returns the builds.
fn default_builds(
    variant: &Variant,
    position: &Position,
    next: &mut Position,
    minor: PowerId,
    delta: &mut i32,
) -> Vec<WinterEvent> {
    let mut events = Vec::new();
    for p in position.ledgers.homes(variant, minor).iter() {
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
            events.push(WinterEvent::DefaultBuild {
                power: minor,
                at: p,
                unit,
            });
            *delta -= 1;
        }
    }
    events
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

/// The unit civil disorder removes next: farthest from an owned centre, fleets first (but at sea
/// never a fleet that carries an army), then by name. A direct passage counts as one move for an
/// army (R7.4, R6.1), so an army's distance and a fleet's may differ in one space.
fn civil_disorder_pick(
    variant: &Variant,
    position: &Position,
    power: PowerId,
) -> Option<(ProvinceId, UnitType)> {
    let by_fleet = distances_to_owned(variant, position, power, false);
    let by_army = distances_to_owned(variant, position, power, variant.rules.passages);
    position
        .forces()
        .filter(|(_, f)| f.power == power)
        .flat_map(|(p, f)| {
            let fleet = (f.fleets > 0 && !stranded(variant, p, f.armies, f.fleets - 1))
                .then_some((p, UnitType::Fleet, by_fleet[p.index()]));
            let army = (f.armies > 0).then_some((p, UnitType::Army, by_army[p.index()]));
            fleet.into_iter().chain(army)
        })
        .max_by(|&(p, t, d), &(q, u, e)| {
            d.cmp(&e)
                .then((t == UnitType::Fleet).cmp(&(u == UnitType::Fleet)))
                .then(variant.province(q).name.cmp(&variant.province(p).name))
        })
        .map(|(p, t, _)| (p, t))
}

/// Moves needed from each space to the nearest centre `power` owns, or its nearest home centre,
/// as the edition's civil-disorder policy says, over land and sea alike; across the direct
/// passages too when `passages` (an army's distance, R7.4).
fn distances_to_owned(
    variant: &Variant,
    position: &Position,
    power: PowerId,
    passages: bool,
) -> Vec<u32> {
    let n = variant.provinces.len();
    let mut dist = vec![u32::MAX; n];
    let mut frontier: Vec<ProvinceId> = match variant.rules.edition.civil_disorder {
        CivilDisorder::FarthestFromOwnedCentres => variant
            .centres()
            .iter()
            .filter(|p| position.owners[p.index()] == Some(power))
            .collect(),
        CivilDisorder::FarthestFromHomeCentres => {
            position.ledgers.homes(variant, power).iter().collect()
        }
    };
    for p in &frontier {
        dist[p.index()] = 0;
    }
    let mut d = 0;
    while !frontier.is_empty() {
        d += 1;
        let mut next = Vec::new();
        for p in frontier {
            let near = variant.army_adj[p.index()].0 | variant.fleet_reach[p.index()].0;
            let crossed = variant
                .passages
                .iter()
                .filter(|_| passages)
                .filter_map(|x| (x.a == p).then_some(x.b).or((x.b == p).then_some(x.a)));
            for q in ProvinceSet(near).iter().chain(crossed) {
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
