//! The rules that validation and adjudication both apply (the retreat phase and the Winter call
//! these too), so that the acknowledgement and the result agree.

use crate::order::{Order, OrderKind};
use crate::outcome::{Refusal, Void};
use crate::position::{Dislodged, Ledgers, Position};
use crate::variant::{PowerId, ProvinceId, Region, UnitType, Variant};

/// Why a retreat of `d` to `p` is illegal, if it is (DATC 6.H.5, 6.H.6, 6.H.10): the space is
/// occupied, the attacker came from there (not by convoy: a crossing is no convoy, so the
/// attacker's origin stays barred when the attacker crossed, R1.9), or a stand-off left it empty.
pub fn retreat_barred(position: &Position, d: &Dislodged, p: ProvinceId) -> Option<Void> {
    if position.units[p.index()].is_some() {
        Some(Void::RetreatOccupied(p))
    } else if d.attacker_from.contains(p) && !d.by_convoy {
        Some(Void::RetreatToAttacker(p))
    } else if position.standoffs.contains(p) {
        Some(Void::RetreatToStandoff(p))
    } else {
        None
    }
}

/// Where `power` may build a unit of this type: its owned home centres (armies in any owned
/// centre for a major under rule 9), its build sites, never a fleet in a blockaded centre (R7.3).
pub fn may_build_at(
    variant: &Variant,
    position: &Position,
    power: PowerId,
    unit: UnitType,
    at: ProvinceId,
) -> Result<(), Refusal> {
    let prov = variant.province(at);
    let ledgers = &position.ledgers;
    if unit == UnitType::Fleet && position.blockaded.contains(at) {
        return Err(Refusal::Blockaded(at));
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
            Err(Refusal::NotBuildSite(at))
        };
    }
    if !prov.centre || position.owners[at.index()] != Some(power) {
        return Err(Refusal::NotOwnedCentre(at));
    }
    let anywhere = variant.rules.army_builds_anywhere
        && unit == UnitType::Army
        && ledgers.is_major(variant, power);
    if !ledgers.homes(variant, power).contains(at) && !anywhere {
        return Err(
            if variant.rules.army_builds_anywhere && unit == UnitType::Fleet {
                Refusal::FleetNotHome(at)
            } else {
                Refusal::NotHome(at)
            },
        );
    }
    Ok(())
}

/// The power an adjustment order is for: a build on a minor's home centre (not one of the
/// giver's own), or a removal of a minor's unit, ordered by the minor's controller is the
/// minor's (R7.9).
pub fn acting_power(
    variant: &Variant,
    position: &Position,
    giver: PowerId,
    order: &Order<Region>,
) -> PowerId {
    let ledgers = &position.ledgers;
    let minor = match &order.kind {
        OrderKind::Build { unit } => {
            let at = unit.at.province;
            // A centre the giver owns is its own build, even a controlled minor's home (R7.9).
            let own = ledgers.homes(variant, giver).contains(at)
                || position.owners[at.index()] == Some(giver);
            let mut minors = ledgers.controlled_by(giver);
            (!own)
                .then(|| minors.find(|&m| ledgers.homes(variant, m).contains(at)))
                .flatten()
        }
        OrderKind::Remove { unit } => position
            .force(unit.at.province)
            .map(|f| f.power)
            .filter(|&o| ledgers.controller(o) == Some(giver)),
        _ => None,
    };
    minor.unwrap_or(giver)
}

/// Why `bidder`'s bid for `minor` (for `on_behalf`, or itself) can't be taken, if it can't: the
/// minor must be a minor, the beneficiary a major that isn't barred from it (R7.6, R7.8).
/// Validation and adjudication both ask this.
pub fn check_bid(
    variant: &Variant,
    ledgers: &Ledgers,
    bidder: PowerId,
    minor: PowerId,
    on_behalf: Option<PowerId>,
) -> Result<(), Refusal> {
    if ledgers.is_major(variant, minor) {
        return Err(Refusal::NotAMinor(minor));
    }
    let beneficiary = on_behalf.unwrap_or(bidder);
    if !ledgers.is_major(variant, beneficiary) {
        return Err(Refusal::NotAMajor(beneficiary));
    }
    if ledgers.barred(minor, beneficiary) {
        return Err(Refusal::Barred(minor, beneficiary));
    }
    Ok(())
}
