//! A movement-phase order: moves, supports and convoys, the variant's own first-phase orders
//! (merges, embarkations, blockades, passages: R2, R3, R5, R6) and the second phase (R4).

use super::merge::without_void_participants;
use super::{units_of, Checked, Checker, Forbidden, ValidationError};
use crate::order::{Order, OrderKind, Stage, UnitSpec};
use crate::variant::{ProvinceId, Region, SpaceKind, UnitType};

impl Checker<'_> {
    pub(super) fn check_movement(&self, order: &Order<Region>) -> Checked {
        use OrderKind::*;
        match &order.kind {
            kind if kind.is_winter() => return Err(self.wrong_phase(order)),
            Retreat { .. } | Disband { .. } => {
                return Err(self.wrong_phase(order));
            }
            _ => {}
        }
        if order.stage == Stage::Second {
            return self.check_second_phase(order);
        }
        let order = &self.without_absent_participants(order)?;
        for unit in units_of(order) {
            // An army may land from a sea it only reaches this phase (R3.2, R3.3): whether it is
            // aboard there is known only once the first moves are decided.
            if !matches!(order.kind, Disembark { .. }) {
                self.check_unit(unit)
                    .map_err(|e| self.colon_forgotten(order, unit).unwrap_or(e))?;
            }
        }
        self.check_napoleonic(order)?;
        let mut order = self.check_geometry(order)?;
        // The ordered unit's own coast is whatever the position says (DATC 4.B.5); armies alone
        // stand in the whole space, and their canonical form names no coast (docs/orders.md).
        if let (Some(pos), Some(unit)) = (self.position, order.kind.unit_mut()) {
            let coast = pos.force(unit.at.province).and_then(|f| f.coast);
            unit.at.coast = coast.filter(|_| unit.fleets > 0);
        }
        match &mut order.kind {
            Move { unit, to, .. } => {
                if to.province == unit.at.province {
                    return Err(ValidationError::from(Forbidden::SameSpace));
                }
                if unit.unit_type() == Some(UnitType::Army) && unit.fleets == 0 {
                    to.coast = None;
                } else {
                    *to = self.fleet_destination(unit, *to)?;
                }
                if unit.armies > 0 && unit.fleets > 0 {
                    self.check_mixed_reach(unit, to.province)?;
                }
            }
            SupportHold { unit, supported } if supported.at.province == unit.at.province => {
                return Err(ValidationError::from(Forbidden::SupportSelf));
            }
            SupportMove { unit, to, .. } if to.province == unit.at.province => {
                return Err(ValidationError::from(Forbidden::SupportOwnSpace));
            }
            Convoy { unit, army, .. } => {
                if self.variant.province(unit.at.province).kind != SpaceKind::Sea {
                    return Err(ValidationError::from(Forbidden::ConvoyNotAtSea));
                }
                if army.unit_type() == Some(UnitType::Fleet) {
                    return Err(ValidationError::from(Forbidden::ConvoyFleet));
                }
                // Fleets carrying an army have no room for another: an A/F may not ferry (R3.4).
                let force = self.position.and_then(|p| p.force(unit.at.province));
                let carrying =
                    force.is_some_and(|f| f.fleets - unit.fleets.min(f.fleets) < f.armies);
                if unit.armies > 0 || carrying {
                    return Err(ValidationError::from(Forbidden::ConvoyCarrying));
                }
            }
            _ => {}
        }
        Ok(order)
    }

    /// A one-line merge is its participants' merges (R2.6): a participant naming a unit that
    /// isn't there is void by itself (R1.4), as its own `MERGE` line would be, and the rest merge;
    /// the result written loses what it would have brought. Void when no participant is left.
    fn without_absent_participants(
        &self,
        order: &Order<Region>,
    ) -> Result<Order<Region>, ValidationError> {
        without_void_participants(order.clone(), |u| self.check_unit(u))
            .unwrap_or_else(|| Ok(order.clone()))
    }

    /// `2 F(ENG) S ...` with no two fleets in ENG: most likely a second-phase order whose colon
    /// was forgotten (`2: F(ENG) S ...`), so the message says so.
    fn colon_forgotten(
        &self,
        order: &Order<Region>,
        unit: &UnitSpec<Region>,
    ) -> Option<ValidationError> {
        if !self.variant.rules.second_moves || (unit.armies, unit.fleets) != (0, 2) {
            return None;
        }
        let mut meant = order.clone();
        meant.stage = Stage::Second;
        meant.kind.unit_mut()?.fleets = 1;
        Some(ValidationError::ColonForgotten {
            place: self.variant.province(unit.at.province).name.clone(),
            meant: meant.display(self.variant),
        })
    }

    /// The variant's own first-phase orders (R2, R3, R5, R6), beyond what the board says.
    pub(super) fn check_napoleonic(&self, order: &Order<Region>) -> Result<(), ValidationError> {
        use OrderKind::*;
        let v = self.variant;
        let kind_of = |p: ProvinceId| v.province(p).kind;
        let army_only = |u: &UnitSpec<Region>| u.armies > 0 && u.fleets == 0;
        let fleets_only = |u: &UnitSpec<Region>| u.fleets > 0 && u.armies == 0;
        match &order.kind {
            Move {
                unit,
                then: Some(_),
                ..
            } => {
                // The second leg itself is checked after the first phase: if it is illegal only
                // it is void, and the first move stands (R4.3).
                if unit.fleets == 0 {
                    return Err(Forbidden::SecondMoveArmy.into());
                }
                Ok(())
            }
            Embark { unit, sea } => {
                if !army_only(unit) || kind_of(unit.at.province) != SpaceKind::Coast {
                    return Err(Forbidden::EmbarkNotArmyAshore.into());
                }
                if kind_of(sea.province) != SpaceKind::Sea
                    || !v.fleet_reach[sea.province.index()].contains(unit.at.province)
                {
                    return Err(self.unreachable(unit, *sea));
                }
                Ok(())
            }
            EmbarkWith {
                unit, fleet, to, ..
            } => {
                if !army_only(unit) || kind_of(unit.at.province) != SpaceKind::Coast {
                    return Err(Forbidden::EmbarkNotArmyAshore.into());
                }
                if !fleets_only(fleet) || kind_of(fleet.at.province) != SpaceKind::Sea {
                    return Err(Forbidden::EmbarkNotAtSea.into());
                }
                if !v.fleet_reach[fleet.at.province.index()].contains(unit.at.province) {
                    return Err(self.unreachable(unit, fleet.at));
                }
                if let Some(pos) = self.position {
                    let carrier = pos.force(fleet.at.province);
                    let own = pos.force(unit.at.province).map(|f| f.power);
                    if carrier.map(|f| f.power) != own
                        || carrier.is_none_or(|f| f.fleets < fleet.fleets)
                    {
                        return Err(Forbidden::EmbarkOtherPower.into());
                    }
                }
                if kind_of(to.province) != SpaceKind::Sea {
                    return Err(Forbidden::CarrierToCoast.into());
                }
                if !v
                    .fleet_moves(Region::of(fleet.at.province))
                    .any(|r| r.province == to.province)
                {
                    return Err(self.unreachable(fleet, *to));
                }
                Ok(())
            }
            Disembark { unit, to } => {
                if !army_only(unit) || kind_of(unit.at.province) != SpaceKind::Sea {
                    return Err(Forbidden::DisembarkNotAboard.into());
                }
                if kind_of(to.province) != SpaceKind::Coast
                    || !v.fleet_reach[unit.at.province.index()].contains(to.province)
                {
                    return Err(self.unreachable(unit, *to));
                }
                if let Some(f) = self.position.and_then(|p| p.force(unit.at.province)) {
                    if f.armies > 0 {
                        self.check_owner(f.power, unit.at.province)?;
                    }
                }
                Ok(())
            }
            Blockade { unit, centre } => {
                let c = v.province(centre.province);
                let season = self.position.map(|p| p.phase.season);
                if season.is_some_and(|s| s != crate::variant::Season::Autumn) {
                    return Err(Forbidden::BlockadeNotAutumn.into());
                }
                if !fleets_only(unit) || kind_of(unit.at.province) != SpaceKind::Sea {
                    return Err(Forbidden::BlockadeNotFleetsAtSea.into());
                }
                let force = self.position.and_then(|p| p.force(unit.at.province));
                let owner = force.map(|f| f.power);
                let home = c.home.filter(|h| Some(*h) != owner && c.centre);
                if home.is_none() || c.kind != SpaceKind::Coast {
                    return Err(Forbidden::BlockadeNotHome.into());
                }
                if !v.fleet_reach[unit.at.province.index()].contains(centre.province) {
                    return Err(self.unreachable(unit, *centre));
                }
                if force.is_some_and(|f| f.fleets - unit.fleets.min(f.fleets) < f.armies) {
                    return Err(Forbidden::CarrierBlockade.into());
                }
                Ok(())
            }
            Deny { unit, from, to } => {
                if !fleets_only(unit) {
                    return Err(Forbidden::DenyNotFleets.into());
                }
                match v.passage(from.province, to.province) {
                    Some(p) if p.sea == unit.at.province => Ok(()),
                    _ => Err(Forbidden::NoPassage.into()),
                }
            }
            Merge { units, .. } => {
                // A participant that can't get there drops out when the merge is adjudicated;
                // the rest go ahead (R2.4).
                let powers: Vec<_> = units
                    .iter()
                    .filter_map(|u| {
                        self.position
                            .and_then(|p| p.force(u.at.province))
                            .map(|f| f.power)
                    })
                    .collect();
                if powers.windows(2).any(|w| w[0] != w[1]) {
                    return Err(Forbidden::MergeTwoPowers.into());
                }
                Ok(())
            }
            SupportMerge { unit, target } => self.check_support_reach(unit, target.province),
            _ => Ok(()),
        }
    }

    /// A second-phase order (R4.3): a fleet's move into a sea space, a support of another
    /// fleet's second-phase move, or a merge of fleets. Where the fleet is can only be checked
    /// after the first moves.
    pub(super) fn check_second_phase(&self, order: &Order<Region>) -> Checked {
        use OrderKind::*;
        let v = self.variant;
        let sea = |p: ProvinceId| v.province(p).kind == SpaceKind::Sea;
        match &order.kind {
            Move {
                unit,
                to,
                then: None,
                via_convoy: false,
            } => {
                if unit.fleets == 0 {
                    return Err(Forbidden::SecondPhaseArmy.into());
                }
                if !sea(to.province) {
                    return Err(Forbidden::SecondMoveNotSea.into());
                }
                if !v.fleet_moves(unit.at).any(|r| r.province == to.province) {
                    return Err(self.unreachable(unit, *to));
                }
            }
            SupportMove {
                unit,
                supported,
                to,
            } => {
                if unit.fleets == 0 || supported.armies > 0 && supported.fleets == 0 {
                    return Err(Forbidden::SecondSupportNotFleets.into());
                }
                if !sea(to.province) {
                    return Err(Forbidden::SecondMoveNotSea.into());
                }
                let fleets = UnitSpec {
                    armies: 0,
                    fleets: unit.fleets,
                    at: unit.at,
                };
                self.check_support_reach(&fleets, to.province)?;
            }
            Merge { units, target, .. } => {
                if units.iter().any(|u| u.fleets == 0) || !sea(target.province) {
                    return Err(Forbidden::SecondMergeNotFleets.into());
                }
            }
            _ => return Err(Forbidden::SecondPhaseKind.into()),
        }
        Ok(order.clone())
    }
}
