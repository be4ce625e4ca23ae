//! Validation: an order as parsed, checked against the board, the phase and (when given) the
//! position, giving an order on settled regions that the adjudicator can use, or the reason it
//! can't be used. An order that fails validation is void: its units hold (DATC 4.E.1).
//!
//! Rulings made here (DATC 4.B): a fleet moving to a multi-coast province without naming the coast
//! goes to the one coast it can reach, and is void when it could reach both; a coast it can't reach
//! makes the move void; the coast written for the ordered unit itself, and any coast written for
//! an army or in a support, are ignored.

use crate::order::{Order, OrderKind, Place, Stage, UnitSpec};
use crate::outcome::{Describe, Refusal, Void};
use crate::position::{Dislodged, Ledgers, Position};
use crate::variant::{
    spec_text, PhaseKind, PowerId, PowerKind, ProvinceId, Region, SpaceKind, UnitType, Variant,
};

/// An order the rules forbid whatever the position: one fixed reason each.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize,
)]
pub enum Forbidden {
    /// A move or retreat to the space the unit is in.
    #[error("a unit can't move to the space it is in")]
    SameSpace,
    /// Armies at sea moving with fewer fleets than armies (R1.2).
    #[error("at sea the fleets moving must carry the armies moving with them: name as many fleets as armies (R1.2)")]
    SeaArmiesNeedFleets,
    /// An A/F moving as a whole where one of its kinds can't go.
    #[error("an A/F at sea can't enter a coastal space as a whole (land the army with D), and armies and fleets in a coastal space move together only where each could go")]
    MixedMoveAshore,
    /// A unit supporting itself to hold.
    #[error("a unit can't support itself to hold")]
    SupportSelf,
    /// A support of a move into the supporter's own space.
    #[error("a unit can't support a move into its own space")]
    SupportOwnSpace,
    /// A convoy by a fleet that is not at sea.
    #[error("only a fleet at sea can convoy")]
    ConvoyNotAtSea,
    /// A convoy of a fleet.
    #[error("only armies can be convoyed")]
    ConvoyFleet,
    /// A convoy by fleets that carry an army (R3.4).
    #[error("fleets carrying an army can't convoy another (R3.4)")]
    ConvoyCarrying,
    /// A chained second move for a force without fleets (R4).
    #[error("only fleets make a second move")]
    SecondMoveArmy,
    /// An embarkation by something other than armies on a coast.
    #[error("only armies in a coastal space can embark")]
    EmbarkNotArmyAshore,
    /// An embarkation onto something other than fleets at sea.
    #[error("an army embarks on a fleet at sea")]
    EmbarkNotAtSea,
    /// An embarkation onto another power's fleet, or onto fleets that aren't there.
    #[error("an army embarks only on a fleet of its own power")]
    EmbarkOtherPower,
    /// A fleet carrying an army sent into a coastal space (R3.4).
    #[error("a fleet carrying an army may not enter a coastal space (R3.4)")]
    CarrierToCoast,
    /// A disembarkation by something other than armies at sea.
    #[error("only an army aboard a fleet at sea can disembark")]
    DisembarkNotAboard,
    /// A blockade outside Autumn (R5.1).
    #[error("blockades are ordered in Autumn only (R5.1)")]
    BlockadeNotAutumn,
    /// A blockade by something other than fleets at sea.
    #[error("only fleets at sea can blockade")]
    BlockadeNotFleetsAtSea,
    /// A blockade of something other than another power's coastal home centre.
    #[error("a blockade is of another power's coastal home centre")]
    BlockadeNotHome,
    /// A blockade by fleets that carry an army (R5.1).
    #[error("fleets carrying an army can't blockade (R5.1)")]
    CarrierBlockade,
    /// A passage denial by armies.
    #[error("only fleets deny a passage")]
    DenyNotFleets,
    /// A denial of a passage that doesn't cross the fleet's sea (R6).
    #[error("there is no direct passage between those spaces across this sea")]
    NoPassage,
    /// A merge of several powers' forces (R2.2).
    #[error("only one power's forces merge (R2.2)")]
    MergeTwoPowers,
    /// An army ordered in the second phase (R4.4).
    #[error("armies never act in the second phase (R4.4)")]
    SecondPhaseArmy,
    /// A second move that doesn't end at sea (R4.3).
    #[error("a second move must end in a sea space (R4.3)")]
    SecondMoveNotSea,
    /// A second-phase support by or of armies.
    #[error("only fleets support, and only fleets' moves, in the second phase")]
    SecondSupportNotFleets,
    /// A second-phase merge of armies or onto land (R2.5).
    #[error("a second-phase merge is of fleets, into a sea space (R2.5)")]
    SecondMergeNotFleets,
    /// A second-phase order of a kind the second phase doesn't take (R4.3).
    #[error(
        "only moves, supports of second-phase moves and merges are second-phase orders (R4.3)"
    )]
    SecondPhaseKind,
    /// A build of armies and fleets in one order.
    #[error("build one type of unit at a time")]
    BuildMixed,
    /// A build by count (`BUILD 2A(Par)`) where a space holds one unit (no Multiplicity).
    #[error("a space holds one unit on this board: build one unit at a time")]
    BuildStack,
    /// A loan to the lender itself.
    #[error("a power can't lend to itself")]
    LendToSelf,
}

/// Why an order can't be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum ValidationError {
    /// A name several spaces answer to, and the order fits more than one (or none) of them.
    #[error("ambiguous: '{name}' could be {options}; write the space's code")]
    Ambiguous {
        /// The name as written.
        name: String,
        /// The spaces it may mean, by full name, "X or Y".
        options: String,
    },
    /// The space named holds no unit at all (issue 21: said plainly, not as a unit of the
    /// wrong kind).
    #[error("there is no unit in {place}")]
    Empty {
        /// The space.
        place: String,
    },
    /// The orderer's force there is not of the kind or size the order names.
    #[error("{place} holds {holds}, not {what}")]
    NoUnit {
        /// What the order names (`an army`, `a fleet`, `2 armies`).
        what: String,
        /// The space.
        place: String,
        /// What the space holds (empty in reports stored before issue 21).
        #[serde(default)]
        holds: String,
    },
    /// The unit belongs to another power.
    #[error("the unit in {place} belongs to {owner}, not to you")]
    NotYours {
        /// The space.
        place: String,
        /// Its power.
        owner: String,
    },
    /// Two or more orders for a one-unit force (R1.4 with RULINGS section 0: which one was
    /// written first may not decide, so none stands).
    #[error(
        "the unit in {place} is also ordered in {others}: a unit takes one order, so all its \
         orders are void and it holds; keep the one you mean and delete the others"
    )]
    SecondOrder {
        /// The space.
        place: String,
        /// The other orders for it: `line 3` (or `order 1` outside a mail).
        others: String,
    },
    /// The orders for a force name more components than it has (R1.4 with RULINGS section 0:
    /// which one was written first may not decide, so none stands).
    #[error(
        "the orders for the force in {place} ({orders}) name {named}, and it has {has}: all of \
         them are void and the force holds; order no more components than it has"
    )]
    TooMany {
        /// The space.
        place: String,
        /// What the force has.
        has: String,
        /// What the orders name together.
        named: String,
        /// The orders for the force: `this one and line 3, line 4`.
        orders: String,
    },
    /// The order is of a kind this phase doesn't take.
    #[error("{what} can't be ordered in the {phase} phase")]
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
    /// A fleet written on a coast it is not on, whose move fails from the coast it is on.
    #[error(
        "the fleet in {space} is on the {actual}, not the {written}: from there it can't reach \
         {place} (write {unit})"
    )]
    WrongCoast {
        /// The space.
        space: String,
        /// The coast it is on, in words.
        actual: String,
        /// The coast written, in words.
        written: String,
        /// The destination.
        place: String,
        /// The fleet as it should be written.
        unit: String,
    },
    /// A coast written for a space that has none.
    #[error("{space} has no coasts: write {code}, not {written}")]
    NoCoasts {
        /// The space's full name.
        space: String,
        /// What was written (`Par/nc`).
        written: String,
        /// Its code.
        code: String,
    },
    /// A coast written for an ordered army.
    #[error("an army has no coast: it stands in the whole space (write {unit})")]
    ArmyCoast {
        /// The army as it should be written.
        unit: String,
    },
    /// A merge whose result as written is not what its participants make (R2.1).
    #[error(
        "the merge says it makes {written}, but its participants bring {brings}: write MERGE \
         {right}, or name every participant"
    )]
    MergeResult {
        /// The result as written.
        written: String,
        /// What the participants bring, in words.
        brings: String,
        /// The result they make.
        right: String,
    },
    /// `2 F(ENG) ...` where there are no two fleets: the `2:` of a second-phase order.
    #[error(
        "{place} holds no 2 fleets of yours: did you mean the second-phase order '{meant}'? \
         (write '2:' with its colon)"
    )]
    ColonForgotten {
        /// The space.
        place: String,
        /// The second-phase order meant.
        meant: String,
    },
    /// A fleet given one move by an embarkation and another by its own order (R3.2).
    #[error(
        "the fleet in {place} is given two different moves, here and in {other}: both orders are \
         void; give the fleet one move (the embarkation's, or leave the army ashore)"
    )]
    FleetMovedTwice {
        /// The fleet's space.
        place: String,
        /// The other order: `line 3`.
        other: String,
    },
    /// A blockade by fleets an army embarks on in the same season (R5.1).
    #[error(
        "an army embarks on the fleets in {place} this season ({other}), and fleets carrying an \
         army can't blockade (R5.1): drop the blockade or the embarkation"
    )]
    BlockadeCarrying {
        /// The fleets' space.
        place: String,
        /// The embarkation: `line 3`.
        other: String,
    },
    /// A rule that forbids the order whatever the position.
    #[error(transparent)]
    Forbidden(#[from] Forbidden),
    /// A retreat or disband where no unit was dislodged.
    #[error("no unit was dislodged in {place}")]
    NotDislodged {
        /// The space.
        place: String,
    },
    /// A retreat into a space the unit may not retreat to (R1.9).
    #[error(
        "{unit} can't retreat to {place}: {why} (R1.9); retreat elsewhere or write {unit} DISBAND"
    )]
    RetreatBarred {
        /// The unit as written.
        unit: String,
        /// The destination.
        place: String,
        /// The reason, as adjudication gives it.
        reason: Void,
        /// Its words.
        why: String,
    },
    /// A fleet built in a multi-coast province without its coast.
    #[error("say which coast the fleet is built on ({place})")]
    BuildCoastNeeded {
        /// The province.
        place: String,
    },
    /// A unit built where its kind can't stand.
    #[error("{unit} can't be built there ({place})")]
    CantStand {
        /// `a fleet` or `an army`.
        unit: String,
        /// The space.
        place: String,
    },
    /// A Winter order the rules refuse, for the reason adjudication would give (R7).
    #[error("{why}")]
    Refused {
        /// The reason.
        reason: Refusal,
        /// Its words.
        why: String,
    },
    /// A loan to a power that is not a major (R7.5).
    #[error("{power} is not a major power: loans are only between majors")]
    LoanNotMajor {
        /// The power named.
        power: String,
    },
    /// A disembarkation from a sea where the power has no army aboard and none is carried there
    /// this phase (R3.3).
    #[error("no army of yours is aboard a fleet in {sea}, nor carried there this phase")]
    NotAboard {
        /// The sea.
        sea: String,
    },
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
        for p in order.places() {
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
        let results: Vec<(Order<Region>, Checked)> = combos
            .iter()
            .map(|c| {
                let settled = settle(order, c);
                let checked = self.check_settled(&settled);
                (settled, checked)
            })
            .collect();
        let mut valid: Vec<(&Order<Region>, &Order<Region>)> = results
            .iter()
            .filter_map(|(s, r)| Some((s, r.as_ref().ok()?)))
            .collect();
        let whole = |(written, checked): &(&Order<Region>, &Order<Region>)| {
            units_of(written).len() == units_of(checked).len()
        };
        if valid.len() > 1 && valid.iter().any(whole) {
            // A meaning under which every participant written is there beats one that drops
            // some (R2.6: `A/F(Bal) & A(Kol) MERGE Sax` names the Baltic's A/F).
            valid.retain(whole);
        }
        if valid.len() > 1 {
            // Parts of an order judged only later (a chain's second leg, a merge participant's
            // path, a second-phase order's place) still settle a name when only one meaning
            // fits the board as written: `F(SKA) MERGE Bal` can only be the Baltic.
            let fitting: Vec<_> = valid
                .iter()
                .copied()
                .filter(|(written, _)| self.fits_board(written, true))
                .collect();
            // A merge whose participants fit no meaning all together takes the meaning some of
            // them fit, as their own `MERGE` lines would (R2.6); the others drop out (R2.4).
            valid = if fitting.is_empty() {
                valid.retain(|(written, _)| self.fits_board(written, false));
                valid
            } else {
                fitting
            };
        }
        if valid.is_empty() {
            if let Some(e) = real_problem(&results) {
                return Err(e);
            }
        }
        match valid.as_slice() {
            [(_, one)] => Ok((*one).clone()),
            _ => {
                if let Some(rest) = without_ambiguous_participants(order) {
                    // A participant whose name no meaning settles is void on its own, as its own
                    // `MERGE` line would be; the rest merges (R2.6).
                    return self.check(&rest);
                }
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

    /// Whether the parts of an order that are judged only during adjudication are possible on
    /// the board at all: a second leg from the first move's end into a sea, each merge participant
    /// next to (or in) the target (`every` participant, or some), a second-phase order's fleet
    /// next to where it acts.
    fn fits_board(&self, order: &Order<Region>, every: bool) -> bool {
        use OrderKind::*;
        let v = self.variant;
        let fleet_next = |a: ProvinceId, b: ProvinceId| v.fleet_reach[a.index()].contains(b);
        let sea = |p: ProvinceId| v.province(p).kind == SpaceKind::Sea;
        let second = order.stage == Stage::Second;
        match &order.kind {
            Move { unit, to, then, .. } => {
                then.is_none_or(|leg| sea(leg.province) && fleet_next(to.province, leg.province))
                    && (!second || fleet_next(unit.at.province, to.province))
            }
            EmbarkWith { to, then, .. } => {
                then.is_none_or(|leg| sea(leg.province) && fleet_next(to.province, leg.province))
            }
            Merge { units, target, .. } => {
                let fits = |u: &UnitSpec<Region>| {
                    let (a, t) = (u.at.province, target.province);
                    a == t || fleet_next(a, t) || (!second && v.army_adjacent(a, t))
                };
                if every {
                    units.iter().all(fits)
                } else {
                    units.iter().any(fits)
                }
            }
            SupportMove { unit, to, .. } if second => fleet_next(unit.at.province, to.province),
            _ => true,
        }
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
    fn check_geometry(&self, order: &Order<Region>) -> Checked {
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

    fn check_movement(&self, order: &Order<Region>) -> Checked {
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

    /// The variant's own first-phase orders (R2, R3, R5, R6), beyond what the board says.
    fn check_napoleonic(&self, order: &Order<Region>) -> Result<(), ValidationError> {
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
    fn check_second_phase(&self, order: &Order<Region>) -> Checked {
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
            // Every component must reach the space as it could move there (R1.9): fleets by sea
            // or coast, armies over land, armies at sea only aboard their fleets (R1.2, R3.5).
            if unit.fleets > 0 {
                *to = self.fleet_destination(unit, *to)?;
            } else {
                to.coast = None;
            }
            if unit.armies > 0 && unit.fleets > 0 {
                self.check_mixed_reach(unit, to.province)?;
            } else if unit.armies > 0 && !self.variant.army_adjacent(unit.at.province, to.province)
            {
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

    fn check_winter(&self, order: &Order<Region>) -> Checked {
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

    /// The unit named is in the position, of that type and count, and the orderer's.
    fn check_unit(&self, unit: &UnitSpec<Region>) -> Result<(), ValidationError> {
        let Some(pos) = self.position else {
            return Ok(());
        };
        let place = self.variant.province(unit.at.province).name.clone();
        let force = pos
            .force(unit.at.province)
            .ok_or_else(|| ValidationError::Empty {
                place: place.clone(),
            })?;
        // Another power's unit is the problem, whatever its kind.
        self.check_owner(force.power, unit.at.province)?;
        if unit.armies > force.armies || unit.fleets > force.fleets {
            return Err(ValidationError::NoUnit {
                what: describe_counts(unit.armies, unit.fleets),
                place,
                holds: describe_counts(force.armies, force.fleets),
            });
        }
        Ok(())
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
    fn check_mixed_reach(
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
    fn check_support_reach(
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
    fn fleet_destination(
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
        let unit_name = format!("F({})", v.region_name(from));
        match (to.coast, reachable.as_slice()) {
            (_, []) => Err(self
                .wrong_coast(unit.at, to)
                .unwrap_or(ValidationError::Unreachable {
                    unit: unit_name,
                    place: v.region_name(to),
                })),
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

    fn unreachable(&self, unit: &UnitSpec<Region>, to: Region) -> ValidationError {
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
    fn refused(&self, reason: Refusal) -> ValidationError {
        ValidationError::Refused {
            why: reason.shown(self.variant).to_string(),
            reason,
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

/// `A(Par)`, `2A/F(Bre)`: a unit as an order writes it.
fn unit_name(v: &Variant, unit: &UnitSpec<Region>) -> String {
    format!(
        "{}({})",
        spec_text(unit.armies, unit.fleets),
        v.region_name(unit.at)
    )
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
/// When no meaning of an ambiguous name gives a valid order, the error the player should read
/// (issue 21: adjacency before ambiguity): the one error every meaning gives; the one meaning
/// the unit can reach says what else is wrong; when it reaches none, that it can't reach any of
/// them. None: the meanings fail in ways that don't say which was meant.
fn real_problem(results: &[(Order<Region>, Checked)]) -> Option<ValidationError> {
    let errors: Vec<&ValidationError> = results
        .iter()
        .filter_map(|(_, r)| r.as_ref().err())
        .collect();
    if let [first, rest @ ..] = errors.as_slice() {
        if rest.iter().all(|e| e == first) {
            return Some((*first).clone());
        }
    }
    let reached: Vec<_> = errors
        .iter()
        .filter(|e| !matches!(e, ValidationError::Unreachable { .. }))
        .collect();
    match reached.as_slice() {
        [one] => return Some((**one).clone()),
        [] => {}
        _ => return None,
    }
    let mut unit = None;
    let mut places = Vec::new();
    for e in &errors {
        match e {
            ValidationError::Unreachable { unit: u, place }
                if unit.is_none_or(|first| first == u) =>
            {
                unit = Some(u);
                places.push(place.as_str());
            }
            _ => return None,
        }
    }
    Some(ValidationError::Unreachable {
        unit: unit?.clone(),
        place: places.join(" or "),
    })
}

fn units_of<P>(order: &Order<P>) -> Vec<&UnitSpec<P>> {
    match &order.kind {
        OrderKind::Merge { units, .. } => units.iter().collect(),
        kind => kind.unit().into_iter().collect(),
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
    order.map(&region)
}

/// Checks a whole order set for one power: each order alone, then the counts across orders
/// (R1.4: an order naming more components than its force has left is void; on the standard map, a
/// second order to the same unit).
pub fn check_set(checker: &Checker, orders: &[Order<Place>]) -> Vec<Checked> {
    check_numbered(checker, orders.iter(), &Numbering::Order)
}

/// [`check_set`] for the orders of a mail, each with its line number: messages about an earlier
/// order name its line.
pub fn check_mail(checker: &Checker, lines: &[(usize, Order<Place>)]) -> Vec<Checked> {
    let numbers: Vec<usize> = lines.iter().map(|(n, _)| *n).collect();
    let orders = lines.iter().map(|(_, o)| o);
    check_numbered(checker, orders, &Numbering::Lines(&numbers))
}

fn check_numbered<'o>(
    checker: &Checker,
    orders: impl Iterator<Item = &'o Order<Place>>,
    numbers: &Numbering,
) -> Vec<Checked> {
    let checked: Vec<Checked> = orders.map(|o| checker.check(o)).collect();
    // R1.4: every force's components named by all the orders together, before any is judged, so
    // that which order was written first decides nothing (RULINGS section 0).
    let mut used: Vec<Used> = Vec::new();
    if let Some(pos) = checker.position {
        for (this, order) in checked.iter().enumerate() {
            let Ok(order) = order else { continue };
            // Winter orders are taken in the order written (DATC 6.I.1, 6.J.1, 6.J.2: a unit
            // removed twice is removed once), landings and second-phase orders are counted where
            // adjudication knows what is aboard and what moved.
            let skip = order.kind.is_winter()
                || matches!(order.kind, OrderKind::Disembark { .. })
                || order.stage == Stage::Second;
            if !skip {
                for unit in units_of(order) {
                    tally(pos, &mut used, unit, this);
                }
            }
        }
    }
    // Seas this order set may bring an army of the power into (R3.2): a landing from a sea the
    // army only reaches this phase must be the same power's. Fleets sailing from a force with
    // armies aboard may carry them (R3.4), by a move or a merge, whether or not the order names
    // the armies; adjudication matches each landing to the armies actually carried (R3.3).
    let carries = |u: &UnitSpec<Region>| {
        u.fleets > 0
            && (u.armies > 0
                || checker
                    .position
                    .and_then(|pos| pos.force(u.at.province))
                    .is_some_and(|f| f.armies > 0))
    };
    let carried: Vec<ProvinceId> = checked
        .iter()
        .flatten()
        .filter_map(|o| match &o.kind {
            OrderKind::EmbarkWith { to, .. } => Some(to.province),
            OrderKind::Move { unit, to, .. } if carries(unit) => Some(to.province),
            OrderKind::Merge { units, target, .. } if units.iter().any(carries) => {
                Some(target.province)
            }
            _ => None,
        })
        .collect();
    let merges = merge_sums(&checked);
    let conflicts: Vec<Option<ValidationError>> = (0..checked.len())
        .map(|i| conflict(checker, &checked, i, numbers))
        .collect();
    checked
        .into_iter()
        .zip(conflicts)
        .enumerate()
        .map(|(this, (checked, conflict))| {
            let checked = checked?;
            if let Some(e) = conflict {
                return Err(e);
            }
            check_merge_result(checker, &merges, &checked)?;
            if let (OrderKind::Disembark { unit, .. }, Some(pos)) =
                (&checked.kind, checker.position)
            {
                let sea = unit.at.province;
                let aboard = pos.force(sea).is_some_and(|f| f.armies > 0);
                if !aboard && !carried.contains(&sea) {
                    return Err(ValidationError::NotAboard {
                        sea: checker.variant.province(sea).name.clone(),
                    });
                }
            }
            // `used` holds only the counted orders' forces (none without a position).
            if !used.iter().any(|u| u.by.contains(&this)) {
                return Ok(checked);
            }
            // A one-line merge participant whose force is over-ordered is void by itself, as its
            // own `MERGE` line would be, and the rest merges (R1.4, R2.6).
            let valid = |unit: &UnitSpec<Region>| {
                over_named(checker, &used, unit.at.province, this, numbers)
            };
            if let Some(merge) = without_void_participants(checked.clone(), valid) {
                return merge;
            }
            for unit in units_of(&checked) {
                valid(unit)?;
            }
            Ok(checked)
        })
        .collect()
}

/// A one-line merge with the participants `valid` refuses left out, as their own `MERGE` lines
/// would be void (R2.6); the result written loses what they would have brought. Void, with the
/// first participant's reason, when none is left. `None` for any other order.
fn without_void_participants(
    mut order: Order<Region>,
    mut valid: impl FnMut(&UnitSpec<Region>) -> Result<(), ValidationError>,
) -> Option<Checked> {
    let OrderKind::Merge { units, result, .. } = &mut order.kind else {
        return None;
    };
    if units.len() < 2 {
        return None;
    }
    let mut void = None;
    let mut kept = Vec::new();
    for u in units.drain(..) {
        match valid(&u) {
            Ok(()) => kept.push(u),
            Err(e) => {
                if let Some((a, f)) = result {
                    *a = a.saturating_sub(u.armies);
                    *f = f.saturating_sub(u.fleets);
                }
                void.get_or_insert(e);
            }
        }
    }
    *units = kept;
    Some(match void {
        Some(e) if units.is_empty() => Err(e),
        _ => Ok(order),
    })
}

/// A one-line merge without its participants written with an ambiguous name, when its target
/// and some participant are written plainly; the written result loses what they would bring.
fn without_ambiguous_participants(order: &Order<Place>) -> Option<Order<Place>> {
    let OrderKind::Merge {
        units,
        target: Place::Known(_),
        result,
    } = &order.kind
    else {
        return None;
    };
    let plain = |u: &&UnitSpec<Place>| matches!(u.at, Place::Known(_));
    let kept: Vec<UnitSpec<Place>> = units.iter().filter(plain).cloned().collect();
    if kept.is_empty() || kept.len() == units.len() {
        return None;
    }
    let result = result.map(|(mut a, mut f)| {
        for u in units.iter().filter(|u| !plain(u)) {
            a = a.saturating_sub(u.armies);
            f = f.saturating_sub(u.fleets);
        }
        (a, f)
    });
    let mut rest = order.clone();
    if let OrderKind::Merge {
        units, result: r, ..
    } = &mut rest.kind
    {
        *units = kept;
        *r = result;
    }
    Some(rest)
}

/// Two of the power's own orders that adjudication would void together (R3.2, R5.1): a fleet
/// given one move by an embarkation (`A(Wal) E F(ENG)-NTH`) and another by its own order, or a
/// blockade by fleets an army embarks on this season.
fn conflict(
    checker: &Checker,
    checked: &[Checked],
    this: usize,
    numbers: &Numbering,
) -> Option<ValidationError> {
    use OrderKind::*;
    let v = checker.variant;
    let order = checked.get(this)?.as_ref().ok()?;
    let others = || {
        checked
            .iter()
            .enumerate()
            .filter(move |&(k, _)| k != this)
            .filter_map(|(k, o)| Some((k, o.as_ref().ok()?)))
    };
    let name = |p: ProvinceId| v.province(p).name.clone();
    // A fleet's own move that is not the embarkation's (`via convoy` is never the same move).
    let differs = |fleet_at: ProvinceId, to: ProvinceId, own: &Order<Region>| match &own.kind {
        Move {
            unit,
            to: own_to,
            via_convoy,
            ..
        } if unit.fleets > 0 && unit.at.province == fleet_at => {
            own_to.province != to || *via_convoy
        }
        _ => false,
    };
    // Whether the embarkation finds a fleet in `fleet_at` to ride on (R3.2): one given the same
    // move, or one no first-phase order names. Without a position the fleets are not known.
    let carried = |fleet_at: ProvinceId, to: ProvinceId| {
        let first = || {
            checked
                .iter()
                .filter_map(|o| o.as_ref().ok())
                .filter(|o| o.stage == Stage::First)
        };
        let same = first().any(|o| match &o.kind {
            Move {
                unit,
                to: own_to,
                via_convoy: false,
                ..
            } => unit.fleets > 0 && unit.at.province == fleet_at && own_to.province == to,
            _ => false,
        });
        let named: u32 = first()
            .filter_map(|o| match &o.kind {
                EmbarkWith { .. } => None,
                kind => kind.unit().filter(|u| u.at.province == fleet_at),
            })
            .map(|u| u32::from(u.fleets))
            .sum();
        let free = checker.position.is_none_or(|pos| {
            pos.force(fleet_at)
                .is_some_and(|f| u32::from(f.fleets) > named)
        });
        same || free
    };
    match &order.kind {
        EmbarkWith { fleet, to, .. } if !carried(fleet.at.province, to.province) => others()
            .find(|(_, o)| o.stage == Stage::First && differs(fleet.at.province, to.province, o))
            .map(|(k, _)| ValidationError::FleetMovedTwice {
                place: name(fleet.at.province),
                other: numbers.name(k),
            }),
        Move { unit, .. } if unit.fleets > 0 && order.stage == Stage::First => others()
            .find(|(_, o)| match &o.kind {
                EmbarkWith { fleet, to, .. } => {
                    differs(fleet.at.province, to.province, order)
                        && !carried(fleet.at.province, to.province)
                }
                _ => false,
            })
            .map(|(k, _)| ValidationError::FleetMovedTwice {
                place: name(unit.at.province),
                other: numbers.name(k),
            }),
        Blockade { unit, .. } => others()
            .find(
                |(_, o)| matches!(&o.kind, Embark { sea, .. } if sea.province == unit.at.province),
            )
            .map(|(k, _)| ValidationError::BlockadeCarrying {
                place: name(unit.at.province),
                other: numbers.name(k),
            }),
        _ => None,
    }
}

/// A merge target in one phase, and the (armies, fleets) its participants bring.
type MergeSum = ((Stage, ProvinceId), (u8, u8));

/// For each merge target of the set (and phase), the components of every participant written,
/// in either notation (R2.6): one line with them all, or a line each.
fn merge_sums(checked: &[Checked]) -> Vec<MergeSum> {
    let mut sums: Vec<MergeSum> = Vec::new();
    for order in checked.iter().flatten() {
        if let OrderKind::Merge { units, target, .. } = &order.kind {
            let k = (order.stage, target.province);
            let i = sums
                .iter()
                .position(|(key, _)| *key == k)
                .unwrap_or_else(|| {
                    sums.push((k, (0, 0)));
                    sums.len() - 1
                });
            for u in units {
                let (a, f) = sums[i].1;
                sums[i].1 = (a.saturating_add(u.armies), f.saturating_add(u.fleets));
            }
        }
    }
    sums
}

/// A merge's result, when written (`MERGE 2A(Bur)`), must be what its participants make: their
/// sum, or with a position, their sum and the power's own force already in the target when that
/// force is not written as a participant. Otherwise the player meant something the orders don't
/// say, and the merge is refused rather than carried out with fewer or more units.
fn check_merge_result(
    checker: &Checker,
    merges: &[MergeSum],
    order: &Order<Region>,
) -> Result<(), ValidationError> {
    let OrderKind::Merge {
        units,
        target,
        result: Some(written),
    } = &order.kind
    else {
        return Ok(());
    };
    let key = (order.stage, target.province);
    let Some(&(_, sum)) = merges.iter().find(|(k, _)| *k == key) else {
        return Ok(());
    };
    // What the whole merge makes, or what this line's own participants bring when the power
    // writes its merge in several lines (R2.6: they are one merge).
    let own = units.iter().fold((0u8, 0u8), |(a, f), u| {
        (a.saturating_add(u.armies), f.saturating_add(u.fleets))
    });
    let mut fits = vec![sum, own];
    let target_named = units.iter().any(|u| u.at.province == target.province);
    if let (Some(pos), Stage::First, false) = (checker.position, order.stage, target_named) {
        let owner = units
            .first()
            .and_then(|u| pos.force(u.at.province))
            .map(|f| f.power);
        if let Some(f) = pos
            .force(target.province)
            .filter(|f| Some(f.power) == owner)
        {
            for (a, b) in [sum, own] {
                fits.push((a.saturating_add(f.armies), b.saturating_add(f.fleets)));
            }
        }
    }
    if fits.contains(written) {
        return Ok(());
    }
    let v = checker.variant;
    let place = v.province(target.province).code.clone();
    Err(ValidationError::MergeResult {
        written: format!("{}({place})", spec_text(written.0, written.1)),
        brings: describe_counts(sum.0, sum.1),
        right: format!("{}({place})", spec_text(sum.0, sum.1)),
    })
}

/// Adds one order's components to what its force is given in all (R1.4).
fn tally(pos: &Position, used: &mut Vec<Used>, unit: &UnitSpec<Region>, this: usize) {
    let p = unit.at.province;
    let (has_a, has_f) = match pos.phase.kind {
        PhaseKind::Retreat | PhaseKind::SecondRetreat => pos
            .dislodged
            .iter()
            .find(|d| d.province == p)
            .map_or((0, 0), |d| (d.force.armies, d.force.fleets)),
        _ => pos.force(p).map_or((0, 0), |f| (f.armies, f.fleets)),
    };
    let i = match used.iter().position(|e| e.at == p) {
        Some(i) => i,
        None => {
            used.push(Used {
                at: p,
                has: (has_a, has_f),
                armies: 0,
                fleets: 0,
                by: Vec::new(),
            });
            used.len() - 1
        }
    };
    let u = &mut used[i];
    u.armies = u.armies.saturating_add(unit.armies);
    u.fleets = u.fleets.saturating_add(unit.fleets);
    if !u.by.contains(&this) {
        u.by.push(this);
    }
}

/// Why an order is void when the orders for the force in `p` together name more components
/// than it has (R1.4): every one of them is, whichever was written first.
fn over_named(
    checker: &Checker,
    used: &[Used],
    p: ProvinceId,
    this: usize,
    numbers: &Numbering,
) -> Result<(), ValidationError> {
    let Some(u) = used.iter().find(|e| e.at == p) else {
        return Ok(());
    };
    let (has_a, has_f) = u.has;
    if u.armies <= has_a && u.fleets <= has_f {
        return Ok(());
    }
    let others: Vec<String> =
        u.by.iter()
            .filter(|&&k| k != this)
            .map(|&k| numbers.name(k))
            .collect();
    let place = checker.variant.province(p).name.clone();
    Err(if has_a + has_f == 1 && !others.is_empty() {
        ValidationError::SecondOrder {
            place,
            others: others.join(", "),
        }
    } else {
        ValidationError::TooMany {
            place,
            has: describe_counts(has_a, has_f),
            named: describe_counts(u.armies, u.fleets),
            orders: if others.is_empty() {
                "this one".to_string()
            } else {
                format!("this one and {}", others.join(", "))
            },
        }
    })
}

/// The components of one force ordered so far, and by which orders (R1.4).
struct Used {
    at: ProvinceId,
    /// What the force has: (armies, fleets).
    has: (u8, u8),
    armies: u8,
    fleets: u8,
    by: Vec<usize>,
}

/// How messages name an earlier order of the set: `order 2`, or its line in a mail.
enum Numbering<'a> {
    Order,
    Lines(&'a [usize]),
}

impl Numbering<'_> {
    fn name(&self, index: usize) -> String {
        match self {
            Numbering::Order => format!("order {}", index + 1),
            Numbering::Lines(lines) => match lines.get(index) {
                Some(n) => format!("line {n}"),
                None => format!("order {}", index + 1),
            },
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The rules that validation and adjudication both apply (the retreat phase and the Winter call
// these too), so that the acknowledgement and the result agree.

/// Why a retreat of `d` to `p` is illegal, if it is (DATC 6.H.5, 6.H.6, 6.H.10): the space is
/// occupied, the attacker came from there (not by convoy), or a stand-off left it empty.
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
