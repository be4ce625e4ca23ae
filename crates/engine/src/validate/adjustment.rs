//! A Winter order (the adjustment and bid phases): builds where the rules allow, removals,
//! loans, renewals and bids (R7).

use super::rules::{acting_power, check_bid, may_build_at};
use super::{Checked, Checker, Forbidden, ValidationError};
use crate::order::{Order, OrderKind, Stage};
use crate::variant::{PhaseKind, PowerId, PowerKind, Region, UnitType};

impl Checker<'_> {
    pub(super) fn check_winter(&self, order: &Order<Region>) -> Checked {
        use OrderKind::*;
        let kind = match &order.kind {
            Disband { unit } => Remove { unit: unit.clone() },
            kind if kind.is_winter() => kind.clone(),
            _ => return Err(self.wrong_phase(order)),
        };
        // Winter 1800 has bids only (R7.1 and §13: steps (c)-(e)).
        if self.phase_kind() == Some(PhaseKind::Bids) && !matches!(kind, Bid { .. }) {
            return Err(self.wrong_phase(order));
        }
        if let Build { unit } = &kind {
            let t = unit
                .unit_type()
                .ok_or_else(|| ValidationError::from(Forbidden::BuildMixed))?;
            // Each unit of a build by count is built in the one space (R7.3).
            if unit.armies.max(unit.fleets) > 1 && !self.variant.rules.multiplicity {
                return Err(Forbidden::BuildStack.into());
            }
            if !self.variant.can_stand(t, unit.at) {
                let place = self.variant.region_name(unit.at);
                let unit = match t {
                    UnitType::Fleet
                        if unit.at.coast.is_none()
                            && !self.variant.province(unit.at.province).coasts.is_empty() =>
                    {
                        return Err(ValidationError::BuildCoastNeeded { place })
                    }
                    UnitType::Fleet => "a fleet",
                    UnitType::Army => "an army",
                };
                return Err(ValidationError::CantStand {
                    unit: unit.into(),
                    place,
                });
            }
        }
        if let (Build { unit }, Some(pos), Some(giver)) = (&kind, self.position, self.power) {
            // The site is known from the position alone: the same rule adjudication applies
            // (R7.3, R5.4), so the acknowledgement and the result agree.
            let order = Order::new(kind.clone());
            let builder = acting_power(self.variant, pos, giver, &order);
            if let Some(t) = unit.unit_type() {
                may_build_at(self.variant, pos, builder, t, unit.at.province)
                    .map_err(|reason| self.refused(reason))?;
            }
        }
        if let Remove { unit } = &kind {
            self.check_unit(unit)?;
        }
        self.check_accounts(&kind)?;
        Ok(Order {
            stage: Stage::First,
            kind,
        })
    }

    /// Loans and renewals name another major; a bid names a minor and a major that may control
    /// it (R7.2, R7.6, R7.8).
    fn check_accounts(&self, kind: &OrderKind<Region>) -> Result<(), ValidationError> {
        let v = self.variant;
        // A major now: an adoption (R7.11) changes who is one.
        let major = |p: PowerId| {
            self.position
                .map_or(v.power(p).kind == PowerKind::Major, |pos| {
                    pos.ledgers.is_major(v, p)
                })
        };
        match *kind {
            OrderKind::Loan { to, .. } | OrderKind::Renew { to } => {
                if !major(to) {
                    return Err(ValidationError::LoanNotMajor {
                        power: v.power(to).name.clone(),
                    });
                }
                if self.power == Some(to) {
                    return Err(ValidationError::from(Forbidden::LendToSelf));
                }
            }
            OrderKind::Bid {
                minor, on_behalf, ..
            } => {
                if let (Some(pos), Some(bidder)) = (self.position, self.power) {
                    check_bid(v, &pos.ledgers, bidder, minor, on_behalf)
                        .map_err(|reason| self.refused(reason))?;
                }
            }
            _ => {}
        }
        Ok(())
    }
}
