//! One order with its names settled: what the variant and the phase allow, then the checks
//! every phase shares (coasts written, the unit there and whose it is) and the messages they give.

use super::error::describe_counts;
use super::{units_of, Checked, Checker, Forbidden, ValidationError};
use crate::order::{Order, OrderKind, Stage, UnitSpec};
use crate::outcome::{Describe, Refusal};
use crate::variant::{spec_text, PhaseKind, PowerId, ProvinceId, Region, SpaceKind};

impl Checker<'_> {
    pub(super) fn phase_kind(&self) -> Option<PhaseKind> {
        self.position.map(|p| p.phase.kind)
    }

    pub(super) fn check_settled(&self, order: &Order<Region>) -> Checked {
        use OrderKind::*;
        let v = self.variant;
        let rules = &v.rules;
        if order.stage == Stage::Second && !rules.second_moves {
            return Err(ValidationError::NotInVariant {
                what: "a second-phase order".into(),
            });
        }
        let variant_only = match &order.kind {
            Move { then: Some(_), .. } | EmbarkWith { then: Some(_), .. }
                if !rules.second_moves =>
            {
                Some("a second move")
            }
            Merge { .. } | SupportMerge { .. } => (!rules.multiplicity).then_some("merging"),
            Embark { .. } | EmbarkWith { .. } | Disembark { .. } => {
                (!rules.abstraction).then_some("embarking and disembarking")
            }
            Blockade { .. } => (!rules.blockades).then_some("a blockade"),
            Deny { .. } => (!rules.passages).then_some("denying a passage"),
            Bank { .. } | Loan { .. } | Renew { .. } | Convert { .. } => {
                (!rules.supply_points).then_some("a supply point order")
            }
            Bid { .. } => (!rules.influence).then_some("bidding"),
            _ => None,
        };
        if let Some(what) = variant_only {
            return Err(ValidationError::NotInVariant { what: what.into() });
        }
        self.check_coasts(order)?;
        match self.phase_kind() {
            None if order.stage == Stage::Second => self.check_second_phase(order),
            None => {
                self.check_napoleonic(order)?;
                self.check_geometry(order)
            }
            Some(PhaseKind::Movement | PhaseKind::SecondMovement) => self.check_movement(order),
            Some(PhaseKind::Retreat | PhaseKind::SecondRetreat) => self.check_retreat(order),
            Some(PhaseKind::Adjustment | PhaseKind::Bids) => self.check_winter(order),
        }
    }

    /// Board-only checks, for `orders check` without a position.
    pub(super) fn check_geometry(&self, order: &Order<Region>) -> Checked {
        use OrderKind::*;
        let mut order = order.clone();
        match &mut order.kind {
            Move { unit, to, .. } | Retreat { unit, to } => {
                if to.province == unit.at.province {
                    return Err(ValidationError::from(Forbidden::SameSpace));
                }
                if let Some(t) = unit.unit_type() {
                    self.check_reach(t, unit.at, to, true)?;
                }
            }
            SupportHold { unit, supported } => {
                self.check_support_reach(unit, supported.at.province)?;
            }
            SupportMove { unit, to, .. } => {
                self.check_support_reach(unit, to.province)?;
            }
            Disembark { unit, to } => {
                let ok = self.variant.province(to.province).kind == SpaceKind::Coast
                    && self.variant.fleet_reach[unit.at.province.index()].contains(to.province);
                if !ok {
                    return Err(self.unreachable(unit, *to));
                }
            }
            _ => {}
        }
        Ok(order)
    }

    /// The unit named is in the position, of that type and count, and the orderer's.
    pub(super) fn check_unit(&self, unit: &UnitSpec<Region>) -> Result<(), ValidationError> {
        let Some(pos) = self.position else {
            return Ok(());
        };
        // Named only in an error: most units are there.
        let place = || self.variant.province(unit.at.province).name.clone();
        let force = pos
            .force(unit.at.province)
            .ok_or_else(|| ValidationError::Empty { place: place() })?;
        // Another power's unit is the problem, whatever its kind.
        self.check_owner(force.power, unit.at.province)?;
        if unit.armies > force.armies || unit.fleets > force.fleets {
            return Err(ValidationError::NoUnit {
                what: describe_counts(unit.armies, unit.fleets),
                place: place(),
                holds: describe_counts(force.armies, force.fleets),
            });
        }
        Ok(())
    }

    pub(super) fn check_owner(
        &self,
        owner: PowerId,
        at: ProvinceId,
    ) -> Result<(), ValidationError> {
        let commands = |p| {
            self.position
                .map_or(p == owner, |pos| pos.commands(p, owner))
        };
        match self.power {
            Some(p) if !commands(p) => Err(ValidationError::NotYours {
                place: self.variant.province(at).name.clone(),
                owner: self.variant.power(owner).name.clone(),
            }),
            _ => Ok(()),
        }
    }

    /// A coast written where there is none: on a space without coasts (`A(Par/nc)`,
    /// `F(Bre/nc)`), or for an ordered army, which stands in the whole space (`A(Spa/nc) H`).
    fn check_coasts(&self, order: &Order<Region>) -> Result<(), ValidationError> {
        let v = self.variant;
        for r in order.places() {
            if let Some(c) = r.coast {
                let p = v.province(r.province);
                if p.coasts.is_empty() {
                    return Err(ValidationError::NoCoasts {
                        space: p.name.clone(),
                        written: format!("{}/{}", p.code, c.code()),
                        code: p.code.clone(),
                    });
                }
            }
        }
        for unit in units_of(order) {
            if unit.fleets == 0 && unit.at.coast.is_some() {
                let code = &v.province(unit.at.province).code;
                return Err(ValidationError::ArmyCoast {
                    unit: format!("{}({code})", spec_text(unit.armies, 0)),
                });
            }
        }
        Ok(())
    }

    pub(super) fn unreachable(&self, unit: &UnitSpec<Region>, to: Region) -> ValidationError {
        ValidationError::Unreachable {
            unit: format!(
                "{}({})",
                spec_text(unit.armies, unit.fleets),
                self.variant.region_name(unit.at)
            ),
            place: self.variant.region_name(to),
        }
    }

    /// A refusal in adjudication's own words, so the acknowledgement says what the result will.
    pub(super) fn refused(&self, reason: Refusal) -> ValidationError {
        ValidationError::Refused {
            why: reason.shown(self.variant).to_string(),
            reason,
        }
    }

    pub(super) fn wrong_phase(&self, order: &Order<Region>) -> ValidationError {
        ValidationError::WrongPhase {
            what: kind_name(&order.kind).into(),
            phase: self
                .phase_kind()
                .map_or("this", |k| k.word())
                .to_lowercase(),
        }
    }
}

/// The name of an order's kind, for messages.
fn kind_name<P>(kind: &OrderKind<P>) -> &'static str {
    use OrderKind::*;
    match kind {
        Hold { .. } => "a hold",
        Move { .. } => "a move",
        SupportHold { .. } | SupportMove { .. } | SupportMerge { .. } => "a support",
        Convoy { .. } => "a convoy",
        Merge { .. } => "a merge",
        Embark { .. } | EmbarkWith { .. } => "an embarkation",
        Disembark { .. } => "a disembarkation",
        Blockade { .. } => "a blockade",
        Deny { .. } => "a passage denial",
        Retreat { .. } => "a retreat",
        Disband { .. } => "a disband",
        Build { .. } => "a build",
        Remove { .. } => "a removal",
        Waive => "a waive",
        Bank { .. } | Loan { .. } | Renew { .. } | Convert { .. } => "a supply point order",
        Bid { .. } => "a bid",
    }
}
