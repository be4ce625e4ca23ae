//! Why an order can't be used: the refusals the rules make whatever the position, the errors
//! validation gives, and the words those messages are made of.

use crate::order::UnitSpec;
use crate::outcome::{Refusal, Void};
use crate::variant::{spec_text, Region, Variant};

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
    /// The space named holds no unit at all (said plainly, not as a unit of the wrong kind).
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
        /// What the space holds (empty in reports stored before it was recorded).
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
    /// A unit ordered on two sheets (a controlled minor's, by its controller and on its own
    /// sheet) is over-named as on one (R1.4): every order for it is void and it holds.
    #[error(
        "the force in {place} is ordered on more than one sheet ({orders}): they name {named}, \
         and it has {has}, so all of them are void and the force holds; order it on one sheet"
    )]
    OrderedOnSheets {
        /// The space.
        place: String,
        /// What the force has.
        has: String,
        /// What the orders name together.
        named: String,
        /// The orders for the force, on every sheet: `France line 1, Spain line 1`.
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

/// `A(Par)`, `2A/F(Bre)`: a unit as an order writes it.
pub(super) fn unit_name(v: &Variant, unit: &UnitSpec<Region>) -> String {
    format!(
        "{}({})",
        spec_text(unit.armies, unit.fleets),
        v.region_name(unit.at)
    )
}

/// "an army", "2 armies", "a fleet", "an army and 3 fleets".
pub(super) fn describe_counts(armies: u8, fleets: u8) -> String {
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
