//! What happened to each order, and why: the result mails print these.

use crate::variant::{ProvinceId, Variant};
use std::fmt::Write;

/// The outcome of one order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The order did what it said: the move moved, the support was given, the build was built.
    Succeeds,
    /// The order was legal but did not succeed.
    Fails(Reason),
    /// The order could not be carried out at all (illegal, or nothing to apply to); the units hold.
    Void(String),
    /// A second-phase order: its outcome is reported with the fleets' second phase (R4).
    SecondPhase,
}

impl Outcome {
    /// Whether the order succeeded.
    pub fn succeeded(&self) -> bool {
        matches!(self, Outcome::Succeeds)
    }

    /// A short English description: `succeeds`, `fails: bounced with Pic`, `void: not adjacent`.
    pub fn describe(&self, variant: &Variant) -> String {
        match self {
            Outcome::Succeeds => "succeeds".to_string(),
            Outcome::Fails(r) => format!("fails: {}", r.describe(variant)),
            Outcome::Void(why) => format!("void: {why}"),
            Outcome::SecondPhase => "for the second phase".to_string(),
        }
    }
}

/// Why a legal order failed.
#[derive(Clone, Debug, PartialEq, Eq)]
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
    /// A support was cut by an attack from this space.
    Cut(ProvinceId),
    /// The unit was dislodged by the attack from this space.
    Dislodged(ProvinceId),
    /// A retreat or build was not allowed, with the reason.
    NotAllowed(String),
    /// Two retreats went to the same space: both units are disbanded.
    RetreatClash,
}

impl Reason {
    /// A short English description.
    pub fn describe(&self, variant: &Variant) -> String {
        let name = |p: &ProvinceId| variant.province(*p).code.clone();
        match self {
            Reason::Bounced(with) => {
                let mut s = String::from("bounced");
                if !with.is_empty() {
                    let names: Vec<String> = with.iter().map(name).collect();
                    let _ = write!(s, " with {}", names.join(", "));
                }
                s
            }
            Reason::BeatenHeadToHead(p) => format!("beaten head to head by {}", name(p)),
            Reason::NoConvoy => "no convoy".to_string(),
            Reason::ConvoyDisrupted => "convoy disrupted".to_string(),
            Reason::ConvoyParadox => "convoy paradox (Szykman rule)".to_string(),
            Reason::PassageDenied(p) => format!("passage denied by the fleet in {}", name(p)),
            Reason::Cut(p) => format!("cut by {}", name(p)),
            Reason::Dislodged(p) => format!("dislodged from {}", name(p)),
            Reason::NotAllowed(why) => why.clone(),
            Reason::RetreatClash => "another unit retreated to the same space".to_string(),
        }
    }
}
