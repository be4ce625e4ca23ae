//! What happened to each order, and why, and what else happened in a phase: structured (the ids
//! each reason refers to, so a program can store them and a mail can render them), with the
//! English in one place, [`Describe`].
//!
//! A leaf of the engine: it names only the board's ids, so adjudication, the Winter, validation,
//! the position and the turn all use it without using each other.

use crate::variant::{spec_text, PowerId, ProvinceId, UnitType, Variant};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The outcome of one order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    /// The order did what it said: the move moved, the support was given, the build was built.
    Succeeds,
    /// The order was legal but did not succeed.
    Fails(Reason),
    /// The order could not be carried out at all (nothing to apply to, or made impossible by the
    /// other orders); the units hold.
    Void(Void),
    /// A second-phase order: its outcome is reported with the fleets' second phase (R4).
    SecondPhase,
}

impl Outcome {
    /// Whether the order succeeded.
    pub fn succeeded(&self) -> bool {
        matches!(self, Outcome::Succeeds)
    }

    /// A short English description: `succeeds`, `fails: bounced with Pic`, `void: ...`.
    pub fn describe(&self, variant: &Variant) -> String {
        self.shown(variant).to_string()
    }
}

/// Why a legal order failed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reason {
    /// A move bounced: stood off with, or was held back by, the units in these spaces.
    Bounced(Vec<ProvinceId>),
    /// A move lost a head-to-head battle with the unit moving the other way from this space.
    BeatenHeadToHead(ProvinceId),
    /// A move needed a convoy and no convoy route was ordered.
    NoConvoy,
    /// A move's convoy was disrupted (a convoying fleet was dislodged).
    ConvoyDisrupted,
    /// A move's convoy was taken out by the paradox rule (Szykman, DATC 4.A.2).
    ConvoyParadox,
    /// The passage was denied by the fleet in this sea (rule 10).
    PassageDenied(ProvinceId),
    /// The crossing over this sea was taken out by the paradox rule through a denial (R6.4).
    PassageParadox(ProvinceId),
    /// A support or blockade was cut by an attack from this space.
    Cut(ProvinceId),
    /// The unit was dislodged by the attack from this space.
    Dislodged(ProvinceId),
    /// A retreat, build or Winter order the rules did not allow.
    Refused(Refusal),
    /// Two retreats went to the same space: both units are disbanded.
    RetreatClash,
}

/// Why an order was void: it named nothing that could carry it out, or the other orders made it
/// impossible. The units it named hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Void {
    /// No unit is there to carry it out.
    NoUnit,
    /// The fleet was given a different move.
    FleetMovesElsewhere,
    /// An embarkation gave the fleet a different move.
    EmbarkationMovesFleet,
    /// No fleet there is free to carry the army.
    NoFreeFleet,
    /// No army of the power is aboard a fleet there.
    NoArmyAboard,
    /// An army embarks on the blockading fleets this season (R5).
    EmbarkOnBlockade,
    /// Only a fleet at sea can convoy.
    ConvoyNotAtSea,
    /// The army a convoy names was not ordered to that move.
    ConvoyedArmyNotOrdered,
    /// The convoying fleet is on no convoy route of the army (DATC 6.G.6).
    NotOnConvoyRoute,
    /// The unit a support to hold names is not holding there.
    SupportedNotHolding,
    /// The unit a support names did not make that move.
    SupportedNotOrdered,
    /// The move could only be convoyed by the supporting fleet itself (DATC 6.D.31).
    ConvoyedOnlyBySupporter,
    /// No merge into the supported space was ordered.
    NoMergeOrdered,
    /// No fleets on the board could convoy the move (DATC 6.D.32).
    NoConvoyPossible,
    /// A second-phase order whose chain's first move failed (R4.3).
    FirstMoveFailed,
    /// A second move must go to an adjacent sea space (R4.3).
    SecondMoveNotToSea,
    /// Armies don't act in the second phase (R4.4): the order names armies.
    ArmiesInSecondPhase,
    /// The fleets of an A/F can't sail ashore from under the armies they carry (R3.3, R3.4).
    FleetsLeaveArmies,
    /// A second-phase order that names no fleet.
    NamesNoFleet,
    /// No fleet of the power that may move again is there after the first moves (R4.3).
    NoFleetMayMoveAgain,
    /// A retreat or disband with no dislodged unit to carry it out.
    NoDislodgedUnit,
    /// A retreat into an occupied space.
    RetreatOccupied(ProvinceId),
    /// A retreat into the space the attacker came from.
    RetreatToAttacker(ProvinceId),
    /// A retreat into a space left empty by a stand-off.
    RetreatToStandoff(ProvinceId),
    /// Not an order of the adjustment phase.
    NotAnAdjustment,
}

/// Why the rules did not allow an order (a build, a Winter order, an embarkation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Refusal {
    /// No fleet of the power with room in this sea after the first moves (R3.2).
    NoFleetWithRoom(ProvinceId),
    /// The fleet carrying the army did not get there.
    CarrierFailed,
    /// The fleets in this sea already carry as many armies as they can (R3.4, R1.2).
    FleetsFull(ProvinceId),
    /// The blockade was cut, or its fleets dislodged, in one of the phases (R5.3).
    BlockadeBroken,
    /// No builds left.
    NoBuildsLeft,
    /// No builds left: the power's supply points pay for this many units (R7.2).
    NoBuildsLeftPaid(i32),
    /// A build by count (`BUILD 2A(Par)`) past the builds left: this many ordered, that many
    /// left (R7.3: never carried out as a smaller build).
    TooFewBuilds(u8, i32),
    /// No removals are due.
    NoRemovalsDue,
    /// No such unit of the power in this space.
    NoSuchUnit(ProvinceId),
    /// The fleets in this sea carry armies: removing them would leave the armies alone at sea
    /// (R1.2); remove the armies first.
    RemoveArmiesFirst(ProvinceId),
    /// The build space is held by another power.
    HeldBy(ProvinceId, PowerId),
    /// The build space is occupied.
    Occupied(ProvinceId),
    /// A fleet can't be built in a home centre under blockade this year (R5.4).
    Blockaded(ProvinceId),
    /// Not a build site for that kind of unit.
    NotBuildSite(ProvinceId),
    /// Not a centre the power owns.
    NotOwnedCentre(ProvinceId),
    /// Not one of the power's home centres.
    NotHome(ProvinceId),
    /// Not a home centre, and fleets are built only there (army builds anywhere).
    FleetNotHome(ProvinceId),
    /// No loan to this major to renew.
    NoLoanToRenew(PowerId),
    /// Over budget: SP at hand, upkeep, and so at most this much to lend.
    LoanOverBudget {
        /// SP at hand.
        has: u32,
        /// The units' upkeep.
        upkeep: u32,
        /// What can still be lent.
        free: u32,
    },
    /// Over budget: only this many SP left after upkeep and the orders before.
    SpOverBudget(u32),
    /// A bid for a power that is not a minor.
    NotAMinor(PowerId),
    /// A bid on behalf of a power that is not a major.
    NotAMajor(PowerId),
    /// A bid for a minor the major lost for good (R7.8): (minor, major).
    Barred(PowerId, PowerId),
    /// Only majors bid.
    OnlyMajorsBid,
    /// Over budget: IP received, and IP spent by the bids before this one.
    IpOverBudget {
        /// IP received.
        received: u32,
        /// IP already spent.
        spent: u32,
    },
}

/// Anything the engine reports that reads as English against a board: the one place the words
/// are (the CLI prints them, the result mails will).
pub trait Describe {
    /// Writes the English.
    fn describe_to(&self, variant: &Variant, f: &mut fmt::Formatter<'_>) -> fmt::Result;

    /// A value that `Display`s as the English.
    fn shown<'a>(&'a self, variant: &'a Variant) -> Shown<'a, Self> {
        Shown {
            variant,
            item: self,
        }
    }
}

/// Something [`Describe`] with its board, ready to print.
pub struct Shown<'a, T: ?Sized> {
    variant: &'a Variant,
    item: &'a T,
}

impl<T: Describe + ?Sized> fmt::Display for Shown<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.item.describe_to(self.variant, f)
    }
}

fn code(v: &Variant, p: ProvinceId) -> &str {
    &v.province(p).code
}

fn name(v: &Variant, p: ProvinceId) -> &str {
    &v.province(p).name
}

fn power(v: &Variant, p: PowerId) -> &str {
    &v.power(p).name
}

impl Describe for Outcome {
    fn describe_to(&self, v: &Variant, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Succeeds => f.write_str("succeeds"),
            Outcome::Fails(r) => write!(f, "fails: {}", r.shown(v)),
            Outcome::Void(why) => write!(f, "void: {}", why.shown(v)),
            Outcome::SecondPhase => f.write_str("for the second phase"),
        }
    }
}

impl Describe for Reason {
    fn describe_to(&self, v: &Variant, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Bounced(with) if with.is_empty() => f.write_str("bounced"),
            Reason::Bounced(with) => {
                let names: Vec<&str> = with.iter().map(|&p| code(v, p)).collect();
                write!(f, "bounced with {}", names.join(", "))
            }
            Reason::BeatenHeadToHead(p) => write!(f, "beaten head to head by {}", code(v, *p)),
            Reason::NoConvoy => f.write_str("no convoy"),
            Reason::ConvoyDisrupted => f.write_str("convoy disrupted"),
            Reason::ConvoyParadox => f.write_str("convoy paradox (Szykman rule)"),
            Reason::PassageDenied(p) => write!(f, "passage denied by the fleet in {}", code(v, *p)),
            Reason::PassageParadox(p) => write!(
                f,
                "passage paradox over {}: the crossing fails (R6.4)",
                code(v, *p)
            ),
            Reason::Cut(p) => write!(f, "cut by the attack from {}", code(v, *p)),
            Reason::Dislodged(p) => write!(f, "dislodged by the attack from {}", code(v, *p)),
            Reason::Refused(r) => r.describe_to(v, f),
            Reason::RetreatClash => f.write_str("another unit retreated to the same space"),
        }
    }
}

impl Describe for Void {
    fn describe_to(&self, v: &Variant, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            Void::NoUnit => "no unit to carry it out",
            Void::FleetMovesElsewhere => "the fleet was given a different move",
            Void::EmbarkationMovesFleet => "the embarkation gave the fleet a different move",
            Void::NoFreeFleet => "no fleet there is free to carry the army",
            Void::NoArmyAboard => "no army of yours is aboard a fleet there",
            Void::EmbarkOnBlockade => "an army embarks on the blockading fleets this season",
            Void::ConvoyNotAtSea => "only a fleet at sea can convoy",
            Void::ConvoyedArmyNotOrdered => "the army named was not ordered to that move",
            Void::NotOnConvoyRoute => "the fleet is on no convoy route of the army",
            Void::SupportedNotHolding => "the unit named is not holding there",
            Void::SupportedNotOrdered => "the unit named did not make that move",
            Void::ConvoyedOnlyBySupporter => {
                "the move could only be convoyed by the supporting fleet itself"
            }
            Void::NoMergeOrdered => "no merge into that space was ordered",
            Void::NoConvoyPossible => "no fleets could convoy it",
            Void::FirstMoveFailed => "its first move failed",
            Void::SecondMoveNotToSea => "a second move must go to an adjacent sea space (R4.3)",
            Void::ArmiesInSecondPhase => {
                "armies don't act in the second phase (R4.4): name only the fleets"
            }
            Void::FleetsLeaveArmies => {
                "the fleets can't sail ashore from under the armies they carry: land the armies with D"
            }
            Void::NamesNoFleet => "it names no fleet",
            Void::NoFleetMayMoveAgain => {
                "no fleet of yours that may move again is there after the first moves"
            }
            Void::NoDislodgedUnit => "no dislodged unit to carry it out",
            Void::RetreatOccupied(p) => return write!(f, "{} is occupied", code(v, *p)),
            Void::RetreatToAttacker(p) => {
                return write!(f, "the attacker came from {}", code(v, *p))
            }
            Void::RetreatToStandoff(p) => {
                return write!(f, "{} was left empty by a stand-off", code(v, *p))
            }
            Void::NotAnAdjustment => "not an adjustment order",
        };
        f.write_str(text)
    }
}

impl Describe for Refusal {
    fn describe_to(&self, v: &Variant, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Refusal::NoFleetWithRoom(sea) => write!(
                f,
                "no fleet of yours with room in {} after the first moves",
                code(v, sea)
            ),
            Refusal::CarrierFailed => f.write_str("the fleet carrying the army did not get there"),
            Refusal::FleetsFull(p) => write!(
                f,
                "the fleets in {} already carry as many armies as they can",
                name(v, p)
            ),
            Refusal::BlockadeBroken => f.write_str("the blockade was cut or the fleets dislodged"),
            Refusal::NoBuildsLeft => f.write_str("no builds left"),
            Refusal::TooFewBuilds(ordered, left) => write!(
                f,
                "{ordered} builds ordered, and only {left} left: build no more units than that"
            ),
            Refusal::NoBuildsLeftPaid(n) => write!(
                f,
                "no builds left: your supply points pay for {n} units"
            ),
            Refusal::NoRemovalsDue => f.write_str("no removals due"),
            Refusal::NoSuchUnit(p) => write!(f, "no such unit of yours in {}", name(v, p)),
            Refusal::RemoveArmiesFirst(p) => write!(
                f,
                "the fleets in {} carry armies: remove the armies aboard first",
                name(v, p)
            ),
            Refusal::HeldBy(p, by) => write!(
                f,
                "{} is held by {}: you can't build there",
                name(v, p),
                power(v, by)
            ),
            Refusal::Occupied(p) => write!(f, "{} is occupied", name(v, p)),
            Refusal::Blockaded(p) => write!(
                f,
                "{} is blockaded this year: no fleet may be built there (R5.4)",
                name(v, p)
            ),
            Refusal::NotBuildSite(p) => write!(f, "{} is not a build site for that", name(v, p)),
            Refusal::NotOwnedCentre(p) => write!(f, "{} is not a centre you own", name(v, p)),
            Refusal::NotHome(p) => write!(f, "{} is not one of your home centres", name(v, p)),
            Refusal::FleetNotHome(p) => write!(
                f,
                "{} is not one of your home centres: fleets are built only there",
                name(v, p)
            ),
            Refusal::NoLoanToRenew(to) => {
                write!(f, "you have no loan to {} to renew", power(v, to))
            }
            Refusal::LoanOverBudget { has, upkeep, free } => write!(
                f,
                "over budget: you have {has} SP and your units need {upkeep}, so at most {free} SP can still be lent"
            ),
            Refusal::SpOverBudget(left) => write!(
                f,
                "over budget: only {left} SP are left after upkeep and the orders before this one"
            ),
            Refusal::NotAMinor(p) => write!(f, "{} is not a minor power", power(v, p)),
            Refusal::NotAMajor(p) => write!(f, "{} is not a major power", power(v, p)),
            Refusal::Barred(minor, major) => write!(
                f,
                "{} lost control of {} for good (R7.8) and can never control it again",
                power(v, major),
                power(v, minor)
            ),
            Refusal::OnlyMajorsBid => f.write_str("only majors bid"),
            Refusal::IpOverBudget { received, spent } => write!(
                f,
                "over budget: you have {received} IP and the bids before this one spent {spent}"
            ),
        }
    }
}

/// Something that happened in a phase besides the orders' outcomes, for the result mail.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Event {
    /// A blockade held through the season: no fleet may be built in the centre this Winter (R5.4).
    BlockadeHeld {
        /// The blockading power.
        power: PowerId,
        /// The sea space of the blockading fleets.
        sea: ProvinceId,
        /// The home centre blockaded.
        centre: ProvinceId,
    },
    /// A blockade was cut or its fleets dislodged (R5.3).
    BlockadeCut {
        /// The blockading power.
        power: PowerId,
        /// The sea space of the blockading fleets.
        sea: ProvinceId,
        /// The home centre it blockaded.
        centre: ProvinceId,
    },
    /// A fleet denied a move's direct passage (rule 10, R6).
    PassageDenied {
        /// Where the denied unit stood.
        from: ProvinceId,
        /// The sea of the denying fleet.
        sea: ProvinceId,
    },
    /// Armies too long at sea starved (R3.6).
    Starved {
        /// Their power.
        power: PowerId,
        /// The sea space.
        sea: ProvinceId,
        /// How many armies were lost.
        armies: u8,
    },
    /// Dislodged units that did not retreat were disbanded: no retreat was ordered for them, or
    /// it failed (DATC 4.D.5's civil disorder in a retreat phase; a disband ordered is an order's
    /// outcome, not an event).
    Disbanded {
        /// Their power.
        power: PowerId,
        /// Where they were dislodged.
        at: ProvinceId,
        /// Armies disbanded.
        armies: u8,
        /// Fleets disbanded.
        fleets: u8,
    },
    /// A Winter or control event (bids, control gained or lost, the GM's decision, adoption,
    /// civil disorder, victory).
    Winter(WinterEvent),
}

impl Event {
    /// The kind of event, as a case's `EVENTS` block names it.
    pub fn kind(&self) -> &'static str {
        match self {
            Event::BlockadeHeld { .. } => "blockade-held",
            Event::BlockadeCut { .. } => "blockade-cut",
            Event::PassageDenied { .. } => "passage-denied",
            Event::Starved { .. } => "starved",
            Event::Disbanded { .. } => "disbanded",
            Event::Winter(e) => e.kind(),
        }
    }

    /// Every kind, for messages.
    pub const KINDS: [&'static str; 5 + WinterEvent::KINDS.len()] = {
        let mut all = [""; 5 + WinterEvent::KINDS.len()];
        let own = [
            "blockade-held",
            "blockade-cut",
            "passage-denied",
            "starved",
            "disbanded",
        ];
        let mut i = 0;
        while i < all.len() {
            all[i] = if i < own.len() {
                own[i]
            } else {
                WinterEvent::KINDS[i - own.len()]
            };
            i += 1;
        }
        all
    };
}

impl Describe for Event {
    fn describe_to(&self, v: &Variant, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::BlockadeHeld {
                power: p,
                sea,
                centre,
            } => write!(
                f,
                "{}'s blockade of {} from {} held: no fleet may be built there this Winter",
                power(v, *p),
                code(v, *centre),
                code(v, *sea)
            ),
            Event::BlockadeCut {
                power: p,
                sea,
                centre,
            } => write!(
                f,
                "{}'s blockade of {} from {} was broken",
                power(v, *p),
                code(v, *centre),
                code(v, *sea)
            ),
            Event::PassageDenied { from, sea } => write!(
                f,
                "the fleet in {} denied passage to the unit from {}",
                code(v, *sea),
                code(v, *from)
            ),
            Event::Starved {
                power: p,
                sea,
                armies,
            } => {
                let armies = match armies {
                    1 => "1 army".to_string(),
                    n => format!("{n} armies"),
                };
                write!(
                    f,
                    "{} of {} starved at sea in {}",
                    armies,
                    power(v, *p),
                    code(v, *sea)
                )
            }
            Event::Disbanded {
                power: p,
                at,
                armies,
                fleets,
            } => write!(
                f,
                "{}'s {}({}) did not retreat and was disbanded",
                power(v, *p),
                spec_text(*armies, *fleets),
                code(v, *at)
            ),
            Event::Winter(e) => f.write_str(&e.describe(v)),
        }
    }
}

/// Why a major lost a minor for good (R7.8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum LossCause {
    /// (a) It occupied this centre, owned by the minor, at the end of an Autumn season.
    Occupied(ProvinceId),
    /// (b) It had this many units inside the minor's home centres.
    Crowded(u32),
}

/// What the Winter and the control of the minors report (RULINGS §7), read as English in one
/// place ([`WinterEvent::describe`]).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum WinterEvent {
    /// A loan fell due (R7.2): the borrower repaid `paid` of the `owed` SP; the rest stays lent.
    LoanRepaid {
        /// Who borrowed.
        borrower: PowerId,
        /// Who lent.
        lender: PowerId,
        /// SP repaid.
        paid: u32,
        /// SP that were due.
        owed: u32,
    },
    /// The bids for a minor (R7.6): each major's total, the incumbent's automatic IP included
    /// (R7.7), highest first.
    Bids {
        /// The minor bid for.
        minor: PowerId,
        /// Each major's total.
        totals: Vec<(PowerId, u32)>,
        /// The incumbent and its automatic IP, part of its total.
        automatic: Option<(PowerId, u32)>,
    },
    /// A major takes control of a minor at the bids (R7.6).
    ControlGained {
        /// The minor.
        minor: PowerId,
        /// Its new controller.
        major: PowerId,
    },
    /// Last year's controller keeps a minor at the bids, outright or on a tie (R7.6).
    ControlKept {
        /// The minor.
        minor: PowerId,
        /// Its controller.
        major: PowerId,
        /// Whether the top totals tied.
        tie: bool,
    },
    /// Nobody controls a minor after the bids (R7.6).
    Uncontrolled {
        /// The minor.
        minor: PowerId,
        /// Whether the top totals tied.
        tie: bool,
    },
    /// A major loses a minor for good and may never regain it (R7.8); the GM names the next
    /// controller.
    ControlLost {
        /// The minor.
        minor: PowerId,
        /// The major barred from it from now on.
        major: PowerId,
        /// Why.
        cause: LossCause,
    },
    /// The GM names a minor's controller, or nobody (R7.8).
    GmControl {
        /// The minor.
        minor: PowerId,
        /// The new controller.
        major: Option<PowerId>,
    },
    /// A player makes a minor its major power (optional rule 12, R7.11).
    Adopted {
        /// The major power the player had, a minor from now on.
        old: PowerId,
        /// The player's new major power.
        new: PowerId,
        /// The new major's home centres.
        homes: Vec<ProvinceId>,
    },
    /// A unit removed because its power owed a removal it did not order (R7.4, civil disorder).
    CivilDisorder {
        /// The unit's power.
        power: PowerId,
        /// Where it was.
        at: ProvinceId,
        /// What it was.
        unit: UnitType,
    },
    /// A minor's build its controller did not order, made by R7.9's default.
    DefaultBuild {
        /// The minor.
        power: PowerId,
        /// Where.
        at: ProvinceId,
        /// What.
        unit: UnitType,
    },
    /// A major reaches its victory threshold with the minors it controls (R7.10).
    Victory {
        /// The major.
        major: PowerId,
        /// The centres it counts.
        centres: u32,
        /// Its threshold.
        needed: u32,
    },
    /// Several majors reached victory at once: the GM decides (R7.10).
    VictoryTie {
        /// Those majors.
        majors: Vec<PowerId>,
    },
}

impl WinterEvent {
    /// Every kind, as a case's `EVENTS` block names them.
    pub const KINDS: [&'static str; 12] = [
        "loan-repaid",
        "bids",
        "control-gained",
        "control-kept",
        "uncontrolled",
        "control-lost",
        "gm-control",
        "adopted",
        "civil-disorder",
        "default-build",
        "victory",
        "victory-tie",
    ];

    /// The kind of event, one of [`WinterEvent::KINDS`].
    pub fn kind(&self) -> &'static str {
        let k = match self {
            WinterEvent::LoanRepaid { .. } => 0,
            WinterEvent::Bids { .. } => 1,
            WinterEvent::ControlGained { .. } => 2,
            WinterEvent::ControlKept { .. } => 3,
            WinterEvent::Uncontrolled { .. } => 4,
            WinterEvent::ControlLost { .. } => 5,
            WinterEvent::GmControl { .. } => 6,
            WinterEvent::Adopted { .. } => 7,
            WinterEvent::CivilDisorder { .. } => 8,
            WinterEvent::DefaultBuild { .. } => 9,
            WinterEvent::Victory { .. } => 10,
            WinterEvent::VictoryTie { .. } => 11,
        };
        Self::KINDS[k]
    }

    /// The event in English, for a result mail: `Denmark: France 6, England 4 (3 automatic)`.
    pub fn describe(&self, variant: &Variant) -> String {
        let name = |p: PowerId| variant.power(p).name.as_str();
        let place = |p: ProvinceId| variant.province(p).name.as_str();
        let unit = |u: UnitType| match u {
            UnitType::Army => "army",
            UnitType::Fleet => "fleet",
        };
        let a_unit = |u: UnitType| match u {
            UnitType::Army => "an army",
            UnitType::Fleet => "a fleet",
        };
        match self {
            WinterEvent::LoanRepaid {
                borrower,
                lender,
                paid,
                owed,
            } if paid == owed => {
                format!("{} repays the {paid} SP lent by {}", name(*borrower), name(*lender))
            }
            WinterEvent::LoanRepaid {
                borrower,
                lender,
                paid,
                owed,
            } => format!(
                "{} can repay only {paid} of the {owed} SP lent by {}: the rest stays lent for a year",
                name(*borrower),
                name(*lender)
            ),
            WinterEvent::Bids {
                minor,
                totals,
                automatic,
            } => {
                let parts: Vec<String> = totals
                    .iter()
                    .map(|&(p, t)| match automatic {
                        Some((a, n)) if *a == p && *n > 0 => {
                            format!("{} {t} ({n} automatic)", name(p))
                        }
                        _ => format!("{} {t}", name(p)),
                    })
                    .collect();
                let parts = if parts.is_empty() {
                    "no bids".to_string()
                } else {
                    parts.join(", ")
                };
                format!("bids for {}: {parts}", name(*minor))
            }
            WinterEvent::ControlGained { minor, major } => {
                format!("{} takes control of {}", name(*major), name(*minor))
            }
            WinterEvent::ControlKept { minor, major, tie } => format!(
                "{}{} keeps control of {}",
                if *tie { "a tie: " } else { "" },
                name(*major),
                name(*minor)
            ),
            WinterEvent::Uncontrolled { minor, tie } => format!(
                "{}nobody controls {}",
                if *tie { "a tie: " } else { "" },
                name(*minor)
            ),
            WinterEvent::ControlLost {
                minor,
                major,
                cause,
            } => {
                let why = match cause {
                    LossCause::Occupied(p) => {
                        format!("it occupies {} at the end of the Autumn", place(*p))
                    }
                    LossCause::Crowded(n) => format!("it has {n} units inside its home centres"),
                };
                format!(
                    "{} loses control of {} for good (R7.8): {why}; the GM names the new controller",
                    name(*major),
                    name(*minor)
                )
            }
            WinterEvent::GmControl { minor, major } => format!(
                "the GM gives control of {} to {}",
                name(*minor),
                major.map_or("nobody", name)
            ),
            WinterEvent::Adopted { old, new, homes } => {
                let homes: Vec<&str> = homes.iter().map(|&p| place(p)).collect();
                format!(
                    "{} adopts {} as its major power (rule 12) and becomes a minor power; {}'s home centres: {}",
                    name(*old),
                    name(*new),
                    name(*new),
                    homes.join(", ")
                )
            }
            WinterEvent::CivilDisorder { power, at, unit: u } => format!(
                "{}'s {} in {} is removed (civil disorder)",
                name(*power),
                unit(*u),
                place(*at)
            ),
            WinterEvent::DefaultBuild { power, at, unit: u } => format!(
                "{} builds {} in {} (the default build, R7.9)",
                name(*power),
                a_unit(*u),
                place(*at)
            ),
            WinterEvent::Victory {
                major,
                centres,
                needed,
            } => format!(
                "{} reaches {centres} centres with its minors (needs {needed}): victory (R7.10)",
                name(*major)
            ),
            WinterEvent::VictoryTie { majors } => {
                let names: Vec<&str> = majors.iter().map(|&p| name(p)).collect();
                format!(
                    "{} all reached victory: the GM decides (R7.10)",
                    names.join(", ")
                )
            }
        }
    }
}
