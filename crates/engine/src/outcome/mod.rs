//! What happened to each order, and why, and what else happened in a phase: structured (the ids
//! each reason refers to, so a program can store them and a mail can render them), with the
//! English given by one trait, [`Describe`].
//!
//! A leaf of the engine: it names only the board's ids, so adjudication, the Winter, validation,
//! the position and the turn all use it without using each other.

mod event;

pub use event::{Event, LossCause, WinterEvent};

use crate::variant::{PowerId, ProvinceId, Variant};
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
    /// A move bounced: stood off with, or was held back by, the units in these spaces, none of
    /// them stronger than the move.
    Bounced(Vec<ProvinceId>),
    /// A move was beaten by a stronger unit: the one holding in `at`, or the one moving from `at`
    /// into the same space, with this strength (the strongest such unit).
    Beaten {
        /// The stronger unit's strength.
        strength: u32,
        /// Where it was.
        at: ProvinceId,
        /// Whether it held there rather than moving from there.
        holding: bool,
    },
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
            Reason::Beaten {
                strength,
                at,
                holding,
            } => {
                let word = if *holding { "in" } else { "from" };
                write!(f, "beaten by {strength} {word} {}", code(v, *at))
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
