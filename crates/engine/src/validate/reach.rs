//! Where a unit can go: a move's or a support's reach over the board, a mixed force's, and the
//! coast a fleet arrives on (DATC 4.B).

use super::error::unit_name;
use super::{Checker, Forbidden, ValidationError};
use crate::order::UnitSpec;
use crate::variant::{PhaseKind, ProvinceId, Region, SpaceKind, UnitType};

impl Checker<'_> {
    /// A move's reach over the board: armies over land (or by convoy between coasts, or across a
    /// passage), fleets along their edges.
    pub(super) fn check_reach(
        &self,
        t: UnitType,
        from: Region,
        to: &Region,
        convoy_allowed: bool,
    ) -> Result<(), ValidationError> {
        let v = self.variant;
        let (a, b) = (from.province, to.province);
        let ok = match t {
            UnitType::Army => {
                v.province(b).kind != SpaceKind::Sea
                    && (v.army_reaches(a, b)
                        || (convoy_allowed
                            && v.province(a).kind == SpaceKind::Coast
                            && v.province(b).kind == SpaceKind::Coast))
            }
            UnitType::Fleet => v.province(b).kind != SpaceKind::Land && self.fleet_reaches(from, b),
        };
        if ok {
            return Ok(());
        }
        let wrong_coast = match t {
            UnitType::Fleet => self.wrong_coast(from, *to),
            UnitType::Army => None,
        };
        Err(wrong_coast.unwrap_or(ValidationError::Unreachable {
            unit: format!("{}({})", t.letter(), v.region_name(from)),
            place: v.region_name(*to),
        }))
    }

    /// A mixed force moving or retreating as one (R1.2, R3.4, R1.9): at sea the fleets carry the
    /// armies into another sea, never ashore; in a coastal space armies and fleets go together
    /// only where each could go alone (the fleets' reach is checked with their destination).
    pub(super) fn check_mixed_reach(
        &self,
        unit: &UnitSpec<Region>,
        to: ProvinceId,
    ) -> Result<(), ValidationError> {
        let v = self.variant;
        let at_sea = v.province(unit.at.province).kind == SpaceKind::Sea;
        if at_sea && unit.armies > unit.fleets {
            return Err(ValidationError::from(Forbidden::SeaArmiesNeedFleets));
        }
        let ok = if at_sea {
            v.province(to).kind == SpaceKind::Sea
        } else {
            v.army_adjacent(unit.at.province, to)
        };
        if ok {
            Ok(())
        } else {
            Err(ValidationError::from(Forbidden::MixedMoveAshore))
        }
    }

    /// A support some component of the force could give by moving into the space itself (R1.6):
    /// armies ashore over land or across a passage, fleets by sea or coast.
    pub(super) fn check_support_reach(
        &self,
        unit: &UnitSpec<Region>,
        into: ProvinceId,
    ) -> Result<(), ValidationError> {
        let v = self.variant;
        let from = self.actual_region(unit.at);
        if v.supporting(unit.armies, unit.fleets, from, into) != (0, 0) {
            return Ok(());
        }
        let unit = match unit.unit_type() {
            Some(t) => format!("{}({})", t.letter(), v.region_name(unit.at)),
            None => unit_name(v, unit),
        };
        Err(ValidationError::Unreachable {
            unit,
            place: v.province(into).code.clone(),
        })
    }

    /// Whether a fleet in `from` reaches some coast of `to`. The fleet's coast comes from the
    /// position when there is one, since the coast written for it is ignored (DATC 4.B.5).
    fn fleet_reaches(&self, from: Region, to: ProvinceId) -> bool {
        self.fleet_moves(from).any(|r| r.province == to)
    }

    /// Where a fleet in `from` may move. A fleet written without its coast in a multi-coast
    /// province, with no position to say which (`F Spa - MAO`), moves as from any of its coasts:
    /// the order is accepted when some coast reaches.
    fn fleet_moves(&self, from: Region) -> impl Iterator<Item = Region> + '_ {
        let from = self.actual_region(from);
        let coasts: Vec<Region> = match from.coast {
            None => self
                .variant
                .province(from.province)
                .coasts
                .iter()
                .map(|&c| Region {
                    province: from.province,
                    coast: Some(c),
                })
                .collect(),
            Some(_) => Vec::new(),
        };
        let starts = if coasts.is_empty() {
            vec![from]
        } else {
            coasts
        };
        starts
            .into_iter()
            .flat_map(move |r| self.variant.fleet_moves(r))
    }

    fn actual_region(&self, from: Region) -> Region {
        // In a retreat phase the unit ordered is the dislodged force, not whoever entered its
        // space (its fleet's coast is its own, R1.9).
        let dislodged = self.position.and_then(|p| {
            (p.phase.kind == PhaseKind::Retreat)
                .then(|| p.dislodged.iter().find(|d| d.province == from.province))
                .flatten()
                .map(|d| &d.force)
        });
        match dislodged.or_else(|| self.position.and_then(|p| p.force(from.province))) {
            Some(f) if f.fleets > 0 => Region {
                province: from.province,
                coast: f.coast,
            },
            _ => from,
        }
    }

    /// The exact region a fleet moves to, settling an omitted coast (DATC 4.B.1, 4.B.2, 4.B.3).
    pub(super) fn fleet_destination(
        &self,
        unit: &UnitSpec<Region>,
        to: Region,
    ) -> Result<Region, ValidationError> {
        let v = self.variant;
        let from = self.actual_region(unit.at);
        let mut reachable: Vec<Region> = self
            .fleet_moves(from)
            .filter(|r| r.province == to.province)
            .collect();
        reachable.sort();
        reachable.dedup();
        // Named only in an error: a fleet's every move is checked here.
        let fleet_name = || format!("F({})", v.region_name(from));
        match (to.coast, reachable.as_slice()) {
            (_, []) => Err(self
                .wrong_coast(unit.at, to)
                .unwrap_or(ValidationError::Unreachable {
                    unit: fleet_name(),
                    place: v.region_name(to),
                })),
            (None, [one]) => Ok(*one),
            (None, _) if v.province(to.province).coasts.is_empty() => Ok(to),
            (None, _) => Err(ValidationError::CoastNeeded {
                unit: fleet_name(),
                place: v.province(to.province).code.clone(),
            }),
            (Some(c), _) if reachable.iter().any(|r| r.coast == Some(c)) => Ok(to),
            (Some(_), _) if v.province(to.province).coasts.is_empty() => {
                Ok(Region::of(to.province))
            }
            (Some(_), _) => Err(ValidationError::Unreachable {
                unit: fleet_name(),
                place: v.region_name(to),
            }),
        }
    }

    /// When a fleet is written on a coast it is not on, and can't go where it is ordered from the
    /// coast it is on: the message says where it is, not only that it can't get there.
    fn wrong_coast(&self, written: Region, to: Region) -> Option<ValidationError> {
        let actual = self.actual_region(written).coast?;
        let written_coast = written.coast.filter(|&c| c != actual)?;
        let v = self.variant;
        Some(ValidationError::WrongCoast {
            space: v.province(written.province).name.clone(),
            actual: actual.words().into(),
            written: written_coast.words().into(),
            place: v.region_name(to),
            unit: format!(
                "F({})",
                v.region_name(Region {
                    province: written.province,
                    coast: Some(actual)
                })
            ),
        })
    }
}
