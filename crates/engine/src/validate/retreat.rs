//! A retreat-phase order: a retreat or a disband of a dislodged unit (R1.9).

use super::error::unit_name;
use super::rules::retreat_barred;
use super::{Checked, Checker, ValidationError};
use crate::order::{Order, OrderKind, Stage};
use crate::outcome::Describe;
use crate::variant::Region;

impl Checker<'_> {
    pub(super) fn check_retreat(&self, order: &Order<Region>) -> Checked {
        use OrderKind::*;
        let kind = match &order.kind {
            Move {
                unit,
                to,
                then: None,
                ..
            } => Retreat {
                unit: unit.clone(),
                to: *to,
            },
            Retreat { .. } | Disband { .. } => order.kind.clone(),
            _ => return Err(self.wrong_phase(order)),
        };
        let unit = kind
            .unit()
            .cloned()
            .ok_or_else(|| self.wrong_phase(order))?;
        if let Some(pos) = self.position {
            let d = pos
                .dislodged
                .iter()
                .find(|d| d.province == unit.at.province)
                .ok_or_else(|| ValidationError::NotDislodged {
                    place: self.variant.province(unit.at.province).name.clone(),
                })?;
            self.check_owner(d.force.power, unit.at.province)?;
        }
        let mut order = Order {
            stage: Stage::First,
            kind,
        };
        if let Retreat { unit, to } = &mut order.kind {
            if let Some(pos) = self.position {
                // Armies alone name no coast, as in the movement phase.
                unit.at.coast = pos
                    .dislodged
                    .iter()
                    .find(|d| d.province == unit.at.province)
                    .and_then(|d| d.force.coast)
                    .filter(|_| unit.fleets > 0);
            }
            // Every component must reach the space as it could move there (R1.9), by the same check
            // as a move: armies over land or across a direct passage (never to sea), fleets by sea
            // or coast, armies at sea only aboard their fleets into another sea (R1.2, R3.5).
            // Nothing denies a crossing in a retreat phase (a denial is a first-phase order, R6.2).
            if unit.fleets > 0 {
                *to = self.fleet_destination(unit, *to)?;
            } else {
                to.coast = None;
            }
            if unit.armies > 0 && unit.fleets > 0 {
                self.check_mixed_reach(unit, to.province)?;
            } else if unit.armies > 0 && !self.variant.army_reaches(unit.at.province, to.province) {
                return Err(self.unreachable(unit, *to));
            }
            let dislodged = self.position.and_then(|pos| {
                pos.dislodged
                    .iter()
                    .find(|d| d.province == unit.at.province)
                    .map(|d| (pos, d))
            });
            if let Some((pos, d)) = dislodged {
                if let Some(reason) = retreat_barred(pos, d, to.province) {
                    return Err(ValidationError::RetreatBarred {
                        unit: unit_name(self.variant, unit),
                        place: self.variant.province(to.province).name.clone(),
                        why: reason.shown(self.variant).to_string(),
                        reason,
                    });
                }
            }
        }
        Ok(order)
    }
}
