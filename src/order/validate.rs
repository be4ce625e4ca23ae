//! Validation: an order as parsed, checked against the board, the phase and (when given) the
//! position, giving an order on settled regions that the adjudicator can use, or the reason it
//! can't be used. An order that fails validation is void: its units hold (DATC 4.E.1).
//!
//! Rulings made here (DATC 4.B): a fleet moving to a multi-coast province without naming the coast
//! goes to the one coast it can reach, and is void when it could reach both; a coast it can't reach
//! makes the move void; the coast written for the ordered unit itself, and any coast written for
//! an army or in a support, are ignored.

use super::{Order, OrderKind, Place, Stage, UnitSpec};
use crate::position::Position;
use crate::variant::{
    PhaseKind, PowerId, PowerKind, ProvinceId, Region, SpaceKind, UnitType, Variant,
};

/// Why an order can't be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ValidationError {
    /// A name several spaces answer to, and the order fits more than one (or none) of them.
    #[error("ambiguous: '{name}' could be {options}; write the space's code")]
    Ambiguous {
        /// The name as written.
        name: String,
        /// The spaces it may mean, by full name, "X or Y".
        options: String,
    },
    /// No unit of that kind there.
    #[error("there is no {what} in {place}")]
    NoUnit {
        /// What the order names (`army`, `fleet`, `2 armies`).
        what: String,
        /// The space.
        place: String,
    },
    /// The unit belongs to another power.
    #[error("the unit in {place} belongs to {owner}, not to you")]
    NotYours {
        /// The space.
        place: String,
        /// Its power.
        owner: String,
    },
    /// The force has fewer components than the orders name.
    #[error("{place} has only {has}: this order names more than the orders before it left")]
    TooMany {
        /// The space.
        place: String,
        /// What the force has left to order.
        has: String,
    },
    /// The order is of a kind this phase doesn't take.
    #[error("{what} can't be ordered in a {phase} phase")]
    WrongPhase {
        /// The kind of order.
        what: String,
        /// The phase kind.
        phase: String,
    },
    /// The order uses a rule this variant doesn't have.
    #[error("{what} is not part of this variant's rules")]
    NotInVariant {
        /// The kind of order.
        what: String,
    },
    /// A move or support that can't reach where it says.
    #[error("{unit} can't reach {place}")]
    Unreachable {
        /// The unit.
        unit: String,
        /// The destination.
        place: String,
    },
    /// A fleet move to a multi-coast province that could reach both coasts.
    #[error("{unit} could go to either coast of {place}: say which (e.g. {place}/nc)")]
    CoastNeeded {
        /// The unit.
        unit: String,
        /// The province.
        place: String,
    },
    /// Anything else that makes the order illegal, said plainly.
    #[error("{0}")]
    Illegal(String),
}

/// What validation knows: the board, and optionally the phase, the position and who is ordering.
#[derive(Clone, Copy)]
pub struct Checker<'a> {
    /// The board.
    pub variant: &'a Variant,
    /// The position the orders are for; without it only the board is checked.
    pub position: Option<&'a Position>,
    /// The power giving the orders; `None` accepts any power's units (case files name the power).
    pub power: Option<PowerId>,
}

type Checked = Result<Order<Region>, ValidationError>;

impl<'a> Checker<'a> {
    /// Validates one order. Ambiguous names are settled by trying each space they may mean: the
    /// one that gives a valid order wins.
    pub fn check(&self, order: &Order<Place>) -> Checked {
        let mut ambiguous: Vec<(String, Vec<ProvinceId>)> = Vec::new();
        for p in order_places(order) {
            if let Place::Ambiguous { name, options, .. } = p {
                if !ambiguous.iter().any(|(n, _)| n == name) {
                    ambiguous.push((name.clone(), options.clone()));
                }
            }
        }
        if ambiguous.is_empty() {
            return self.check_settled(&settle(order, &[]));
        }
        // Every combination of meanings (in practice one name with two meanings).
        let mut combos: Vec<Vec<(String, ProvinceId)>> = vec![Vec::new()];
        for (name, options) in &ambiguous {
            combos = combos
                .into_iter()
                .flat_map(|c| {
                    options.iter().map(move |&o| {
                        let mut c = c.clone();
                        c.push((name.clone(), o));
                        c
                    })
                })
                .collect();
        }
        let results: Vec<Checked> = combos
            .iter()
            .map(|c| self.check_settled(&settle(order, c)))
            .collect();
        let valid: Vec<&Order<Region>> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
        match valid.as_slice() {
            [one] => Ok((*one).clone()),
            _ => {
                let (name, options) = &ambiguous[0];
                let names: Vec<&str> = options
                    .iter()
                    .map(|&p| self.variant.province(p).name.as_str())
                    .collect();
                Err(ValidationError::Ambiguous {
                    name: name.clone(),
                    options: names.join(" or "),
                })
            }
        }
    }

    fn phase_kind(&self) -> Option<PhaseKind> {
        self.position.map(|p| p.phase.kind)
    }

    fn check_settled(&self, order: &Order<Region>) -> Checked {
        use OrderKind::*;
        let v = self.variant;
        let rules = &v.rules;
        if order.stage == Stage::Second && !rules.second_moves {
            return Err(ValidationError::NotInVariant {
                what: "a second-phase order".into(),
            });
        }
        let variant_only = match &order.kind {
            Merge { .. } | SupportMerge { .. } => (!rules.multiplicity).then_some("merging"),
            Embark { .. } | EmbarkWith { .. } | Disembark { .. } => {
                (!rules.abstraction).then_some("embarking and disembarking")
            }
            Blockade { .. } => (!rules.blockades).then_some("a blockade"),
            Deny { .. } => (!rules.passages).then_some("denying a passage"),
            Move { then: Some(_), .. } => (!rules.second_moves).then_some("a second move"),
            Bank { .. } | Loan { .. } | Renew { .. } | Convert { .. } => {
                (!rules.supply_points).then_some("a supply point order")
            }
            Bid { .. } => (!rules.influence).then_some("bidding"),
            _ => None,
        };
        if let Some(what) = variant_only {
            return Err(ValidationError::NotInVariant { what: what.into() });
        }
        match self.phase_kind() {
            None => self.check_geometry(order),
            Some(PhaseKind::Movement | PhaseKind::SecondMovement) => self.check_movement(order),
            Some(PhaseKind::Retreat | PhaseKind::SecondRetreat) => self.check_retreat(order),
            Some(PhaseKind::Adjustment | PhaseKind::Bids) => self.check_winter(order),
        }
    }

    /// Board-only checks, for `orders check` without a position.
    fn check_geometry(&self, order: &Order<Region>) -> Checked {
        use OrderKind::*;
        let mut order = order.clone();
        match &mut order.kind {
            Move { unit, to, .. } | Retreat { unit, to } => {
                if let Some(t) = unit.unit_type() {
                    self.check_reach(t, unit.at, to, true)?;
                }
            }
            SupportHold { unit, supported } => {
                if let Some(t) = unit.unit_type() {
                    self.check_support_reach(t, unit.at, supported.at.province)?;
                }
            }
            SupportMove { unit, to, .. } => {
                if let Some(t) = unit.unit_type() {
                    self.check_support_reach(t, unit.at, to.province)?;
                }
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

    fn check_movement(&self, order: &Order<Region>) -> Checked {
        use OrderKind::*;
        match &order.kind {
            Retreat { .. }
            | Disband { .. }
            | Build { .. }
            | Remove { .. }
            | Waive
            | Bank { .. }
            | Loan { .. }
            | Renew { .. }
            | Convert { .. }
            | Bid { .. } => {
                return Err(self.wrong_phase(order));
            }
            _ => {}
        }
        for unit in units_of(order) {
            self.check_unit(unit)?;
        }
        let mut order = self.check_geometry(order)?;
        // The ordered unit's own coast is whatever the position says (DATC 4.B.5).
        if let (Some(pos), Some(unit)) = (self.position, first_unit_mut(&mut order.kind)) {
            unit.at.coast = pos.force(unit.at.province).and_then(|f| f.coast);
        }
        match &mut order.kind {
            Move { unit, to, .. } => {
                if to.province == unit.at.province {
                    return Err(ValidationError::Illegal(
                        "a unit can't move to the space it is in".into(),
                    ));
                }
                if unit.unit_type() == Some(UnitType::Army) && unit.fleets == 0 {
                    to.coast = None;
                } else {
                    *to = self.fleet_destination(unit, *to)?;
                }
            }
            SupportHold { unit, supported } if supported.at.province == unit.at.province => {
                return Err(ValidationError::Illegal(
                    "a unit can't support itself to hold".into(),
                ));
            }
            SupportMove { unit, to, .. } if to.province == unit.at.province => {
                return Err(ValidationError::Illegal(
                    "a unit can't support a move into its own space".into(),
                ));
            }
            Convoy { unit, army, .. } => {
                if self.variant.province(unit.at.province).kind != SpaceKind::Sea {
                    return Err(ValidationError::Illegal(
                        "only a fleet at sea can convoy".into(),
                    ));
                }
                if army.unit_type() == Some(UnitType::Fleet) {
                    return Err(ValidationError::Illegal(
                        "only armies can be convoyed".into(),
                    ));
                }
            }
            _ => {}
        }
        Ok(order)
    }

    fn check_retreat(&self, order: &Order<Region>) -> Checked {
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
                .ok_or_else(|| {
                    ValidationError::Illegal(format!(
                        "no unit was dislodged in {}",
                        self.variant.province(unit.at.province).name
                    ))
                })?;
            self.check_owner(d.force.power, unit.at.province)?;
        }
        let mut order = Order {
            stage: Stage::First,
            kind,
        };
        if let Retreat { unit, to } = &mut order.kind {
            if let Some(pos) = self.position {
                unit.at.coast = pos
                    .dislodged
                    .iter()
                    .find(|d| d.province == unit.at.province)
                    .and_then(|d| d.force.coast);
            }
            match unit.unit_type() {
                Some(UnitType::Fleet) => *to = self.fleet_destination(unit, *to)?,
                Some(UnitType::Army) => {
                    to.coast = None;
                    if !self.variant.army_adjacent(unit.at.province, to.province) {
                        return Err(self.unreachable(unit, *to));
                    }
                }
                None => {}
            }
        }
        Ok(order)
    }

    fn check_winter(&self, order: &Order<Region>) -> Checked {
        use OrderKind::*;
        let kind = match &order.kind {
            Disband { unit } => Remove { unit: unit.clone() },
            Build { .. }
            | Remove { .. }
            | Waive
            | Bank { .. }
            | Loan { .. }
            | Renew { .. }
            | Convert { .. }
            | Bid { .. } => order.kind.clone(),
            _ => return Err(self.wrong_phase(order)),
        };
        // Winter 1800 has bids only (R7.1 and §13: steps (c)-(e)).
        if self.phase_kind() == Some(PhaseKind::Bids) && !matches!(kind, Bid { .. }) {
            return Err(self.wrong_phase(order));
        }
        if let Build { unit } = &kind {
            let t = unit.unit_type().ok_or_else(|| {
                ValidationError::Illegal("build one type of unit at a time".into())
            })?;
            if !self.variant.can_stand(t, unit.at) {
                let why = match (t, unit.at.coast) {
                    (UnitType::Fleet, None)
                        if !self.variant.province(unit.at.province).coasts.is_empty() =>
                    {
                        "say which coast the fleet is built on"
                    }
                    (UnitType::Fleet, _) => "a fleet can't be built there",
                    (UnitType::Army, _) => "an army can't be built there",
                };
                return Err(ValidationError::Illegal(format!(
                    "{why} ({})",
                    self.variant.region_name(unit.at)
                )));
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
        let major = |p: PowerId| v.power(p).kind == PowerKind::Major;
        match *kind {
            OrderKind::Loan { to, .. } | OrderKind::Renew { to } => {
                if !major(to) {
                    return Err(ValidationError::Illegal(format!(
                        "{} is not a major power: loans are only between majors",
                        v.power(to).name
                    )));
                }
                if self.power == Some(to) {
                    return Err(ValidationError::Illegal(
                        "a power can't lend to itself".into(),
                    ));
                }
            }
            OrderKind::Bid {
                minor, on_behalf, ..
            } => {
                if let (Some(pos), Some(bidder)) = (self.position, self.power) {
                    crate::winter::influence::check_bid(v, &pos.ledgers, bidder, minor, on_behalf)
                        .map_err(|e| ValidationError::Illegal(e.to_string()))?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The unit named is in the position, of that type and count, and the orderer's.
    fn check_unit(&self, unit: &UnitSpec<Region>) -> Result<(), ValidationError> {
        let Some(pos) = self.position else {
            return Ok(());
        };
        let place = self.variant.province(unit.at.province).name.clone();
        let force = pos
            .force(unit.at.province)
            .ok_or_else(|| ValidationError::NoUnit {
                what: describe_counts(unit.armies, unit.fleets),
                place: place.clone(),
            })?;
        if unit.armies > force.armies || unit.fleets > force.fleets {
            return Err(ValidationError::NoUnit {
                what: describe_counts(unit.armies, unit.fleets),
                place,
            });
        }
        self.check_owner(force.power, unit.at.province)
    }

    fn check_owner(&self, owner: PowerId, at: ProvinceId) -> Result<(), ValidationError> {
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

    /// A move's reach over the board: armies over land (or by convoy between coasts, or across a
    /// passage), fleets along their edges.
    fn check_reach(
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
                    && (v.army_adjacent(a, b)
                        || (v.rules.passages && v.passage(a, b).is_some())
                        || (convoy_allowed
                            && v.province(a).kind == SpaceKind::Coast
                            && v.province(b).kind == SpaceKind::Coast))
            }
            UnitType::Fleet => v.province(b).kind != SpaceKind::Land && self.fleet_reaches(from, b),
        };
        if ok {
            Ok(())
        } else {
            Err(ValidationError::Unreachable {
                unit: format!("{}({})", t.letter(), v.region_name(from)),
                place: v.region_name(*to),
            })
        }
    }

    fn check_support_reach(
        &self,
        t: UnitType,
        from: Region,
        into: ProvinceId,
    ) -> Result<(), ValidationError> {
        let v = self.variant;
        let ok = match t {
            UnitType::Army => {
                v.army_adjacent(from.province, into)
                    || (v.rules.passages && v.passage(from.province, into).is_some())
            }
            UnitType::Fleet => self.fleet_reaches(from, into),
        };
        if ok {
            Ok(())
        } else {
            Err(ValidationError::Unreachable {
                unit: format!("{}({})", t.letter(), v.region_name(from)),
                place: v.province(into).code.clone(),
            })
        }
    }

    /// Whether a fleet in `from` reaches some coast of `to`. The fleet's coast comes from the
    /// position when there is one, since the coast written for it is ignored (DATC 4.B.5).
    fn fleet_reaches(&self, from: Region, to: ProvinceId) -> bool {
        let from = self.actual_region(from);
        self.variant.fleet_moves(from).any(|r| r.province == to)
    }

    fn actual_region(&self, from: Region) -> Region {
        match self.position.and_then(|p| p.force(from.province)) {
            Some(f) if f.fleets > 0 => Region {
                province: from.province,
                coast: f.coast,
            },
            _ => from,
        }
    }

    /// The exact region a fleet moves to, settling an omitted coast (DATC 4.B.1, 4.B.2, 4.B.3).
    fn fleet_destination(
        &self,
        unit: &UnitSpec<Region>,
        to: Region,
    ) -> Result<Region, ValidationError> {
        let v = self.variant;
        let from = self.actual_region(unit.at);
        let reachable: Vec<Region> = v
            .fleet_moves(from)
            .filter(|r| r.province == to.province)
            .collect();
        let unit_name = format!("F({})", v.region_name(from));
        match (to.coast, reachable.as_slice()) {
            (_, []) => Err(ValidationError::Unreachable {
                unit: unit_name,
                place: v.region_name(to),
            }),
            (None, [one]) => Ok(*one),
            (None, _) if v.province(to.province).coasts.is_empty() => Ok(to),
            (None, _) => Err(ValidationError::CoastNeeded {
                unit: unit_name,
                place: v.province(to.province).code.clone(),
            }),
            (Some(c), _) if reachable.iter().any(|r| r.coast == Some(c)) => Ok(to),
            (Some(_), _) if v.province(to.province).coasts.is_empty() => {
                Ok(Region::of(to.province))
            }
            (Some(_), _) => Err(ValidationError::Unreachable {
                unit: unit_name,
                place: v.region_name(to),
            }),
        }
    }

    fn unreachable(&self, unit: &UnitSpec<Region>, to: Region) -> ValidationError {
        ValidationError::Unreachable {
            unit: format!(
                "{}({})",
                crate::position::spec_text(unit.armies, unit.fleets),
                self.variant.region_name(unit.at)
            ),
            place: self.variant.region_name(to),
        }
    }

    fn wrong_phase(&self, order: &Order<Region>) -> ValidationError {
        ValidationError::WrongPhase {
            what: kind_name(&order.kind).into(),
            phase: self
                .phase_kind()
                .map_or("this", |k| k.word())
                .to_lowercase(),
        }
    }
}

/// "an army", "2 armies", "a fleet", "an army and 3 fleets".
fn describe_counts(armies: u8, fleets: u8) -> String {
    let part = |n: u8, one: &str, many: &str| match n {
        0 => None,
        1 => Some(one.to_string()),
        n => Some(format!("{n} {many}")),
    };
    let parts: Vec<String> = [
        part(armies, "an army", "armies"),
        part(fleets, "a fleet", "fleets"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if parts.is_empty() {
        "unit".into()
    } else {
        parts.join(" and ")
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

/// The units an order gives orders to (not the ones it names as supported or convoyed).
fn units_of<P>(order: &Order<P>) -> Vec<&UnitSpec<P>> {
    match &order.kind {
        OrderKind::Merge { units, .. } => units.iter().collect(),
        kind => kind.unit().into_iter().collect(),
    }
}

fn first_unit_mut<P>(kind: &mut OrderKind<P>) -> Option<&mut UnitSpec<P>> {
    use OrderKind::*;
    match kind {
        Hold { unit }
        | Move { unit, .. }
        | SupportHold { unit, .. }
        | SupportMove { unit, .. }
        | SupportMerge { unit, .. }
        | Convoy { unit, .. }
        | Embark { unit, .. }
        | EmbarkWith { unit, .. }
        | Disembark { unit, .. }
        | Blockade { unit, .. }
        | Deny { unit, .. }
        | Retreat { unit, .. }
        | Disband { unit }
        | Build { unit }
        | Remove { unit } => Some(unit),
        Merge { units, .. } => units.first_mut(),
        Waive | Bank { .. } | Loan { .. } | Renew { .. } | Convert { .. } | Bid { .. } => None,
    }
}

fn order_places<P>(order: &Order<P>) -> Vec<&P> {
    use OrderKind::*;
    match &order.kind {
        Hold { unit } | Disband { unit } | Build { unit } | Remove { unit } => vec![&unit.at],
        Move { unit, to, then, .. } => {
            let mut v = vec![&unit.at, to];
            v.extend(then.iter());
            v
        }
        SupportHold { unit, supported } => vec![&unit.at, &supported.at],
        SupportMove {
            unit,
            supported,
            to,
        } => vec![&unit.at, &supported.at, to],
        SupportMerge { unit, target } => vec![&unit.at, target],
        Convoy { unit, army, to } => vec![&unit.at, &army.at, to],
        Merge { units, target, .. } => {
            let mut v: Vec<&P> = units.iter().map(|u| &u.at).collect();
            v.push(target);
            v
        }
        Embark { unit, sea } => vec![&unit.at, sea],
        EmbarkWith { unit, fleet, to } => vec![&unit.at, &fleet.at, to],
        Disembark { unit, to } | Retreat { unit, to } => vec![&unit.at, to],
        Blockade { unit, centre } => vec![&unit.at, centre],
        Deny { unit, from, to } => vec![&unit.at, from, to],
        Waive | Bank { .. } | Loan { .. } | Renew { .. } | Convert { .. } | Bid { .. } => vec![],
    }
}

/// The order with every place settled: known places as they are, ambiguous ones by `choice`
/// (the first option when `choice` doesn't name them).
fn settle(order: &Order<Place>, choice: &[(String, ProvinceId)]) -> Order<Region> {
    let region = |p: &Place| -> Region {
        match p {
            Place::Known(r) => *r,
            Place::Ambiguous {
                name,
                options,
                coast,
            } => {
                let province = choice
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|&(_, p)| p)
                    .or_else(|| options.first().copied())
                    .unwrap_or(ProvinceId(0));
                Region {
                    province,
                    coast: *coast,
                }
            }
        }
    };
    map_order(order, &region)
}

/// The same order with its places mapped.
pub fn map_order<P, Q>(order: &Order<P>, f: &impl Fn(&P) -> Q) -> Order<Q> {
    use OrderKind::*;
    let u = |s: &UnitSpec<P>| UnitSpec {
        armies: s.armies,
        fleets: s.fleets,
        at: f(&s.at),
    };
    let kind = match &order.kind {
        Hold { unit } => Hold { unit: u(unit) },
        Move {
            unit,
            to,
            via_convoy,
            then,
        } => Move {
            unit: u(unit),
            to: f(to),
            via_convoy: *via_convoy,
            then: then.as_ref().map(f),
        },
        SupportHold { unit, supported } => SupportHold {
            unit: u(unit),
            supported: u(supported),
        },
        SupportMove {
            unit,
            supported,
            to,
        } => SupportMove {
            unit: u(unit),
            supported: u(supported),
            to: f(to),
        },
        SupportMerge { unit, target } => SupportMerge {
            unit: u(unit),
            target: f(target),
        },
        Convoy { unit, army, to } => Convoy {
            unit: u(unit),
            army: u(army),
            to: f(to),
        },
        Merge {
            units,
            target,
            result,
        } => Merge {
            units: units.iter().map(u).collect(),
            target: f(target),
            result: *result,
        },
        Embark { unit, sea } => Embark {
            unit: u(unit),
            sea: f(sea),
        },
        EmbarkWith { unit, fleet, to } => EmbarkWith {
            unit: u(unit),
            fleet: u(fleet),
            to: f(to),
        },
        Disembark { unit, to } => Disembark {
            unit: u(unit),
            to: f(to),
        },
        Blockade { unit, centre } => Blockade {
            unit: u(unit),
            centre: f(centre),
        },
        Deny { unit, from, to } => Deny {
            unit: u(unit),
            from: f(from),
            to: f(to),
        },
        Retreat { unit, to } => Retreat {
            unit: u(unit),
            to: f(to),
        },
        Disband { unit } => Disband { unit: u(unit) },
        Build { unit } => Build { unit: u(unit) },
        Remove { unit } => Remove { unit: u(unit) },
        Waive => Waive,
        Bank { amount } => Bank { amount: *amount },
        Loan { amount, to } => Loan {
            amount: *amount,
            to: *to,
        },
        Renew { to } => Renew { to: *to },
        Convert { amount } => Convert { amount: *amount },
        Bid {
            amount,
            minor,
            on_behalf,
        } => Bid {
            amount: *amount,
            minor: *minor,
            on_behalf: *on_behalf,
        },
    };
    Order {
        stage: order.stage,
        kind,
    }
}

/// Checks a whole order set for one power: each order alone, then the counts across orders
/// (R1.4: an order naming more components than its force has left is void; on the standard map, a
/// second order to the same unit).
pub fn check_set(checker: &Checker, orders: &[Order<Place>]) -> Vec<Checked> {
    let mut used: Vec<(ProvinceId, u8, u8)> = Vec::new();
    orders
        .iter()
        .map(|o| {
            let checked = checker.check(o)?;
            let (Some(pos), Some(unit)) = (checker.position, checked.kind.unit()) else {
                return Ok(checked);
            };
            if matches!(checked.kind, OrderKind::Build { .. }) || checked.stage == Stage::Second {
                return Ok(checked);
            }
            let p = unit.at.province;
            let (has_a, has_f) = match pos.phase.kind {
                PhaseKind::Retreat | PhaseKind::SecondRetreat => pos
                    .dislodged
                    .iter()
                    .find(|d| d.province == p)
                    .map_or((0, 0), |d| (d.force.armies, d.force.fleets)),
                _ => pos.force(p).map_or((0, 0), |f| (f.armies, f.fleets)),
            };
            let entry = match used.iter_mut().find(|e| e.0 == p) {
                Some(e) => e,
                None => {
                    used.push((p, 0, 0));
                    let last = used.len() - 1;
                    &mut used[last]
                }
            };
            if entry.1 + unit.armies > has_a || entry.2 + unit.fleets > has_f {
                return Err(ValidationError::TooMany {
                    place: checker.variant.province(p).name.clone(),
                    has: describe_counts(has_a - entry.1.min(has_a), has_f - entry.2.min(has_f)),
                });
            }
            entry.1 += unit.armies;
            entry.2 += unit.fleets;
            Ok(checked)
        })
        .collect()
}
