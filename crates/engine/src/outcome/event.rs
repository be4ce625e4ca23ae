//! What else happened in a phase besides the orders' outcomes ([`Event`]), and what the Winter
//! and the control of the minors report ([`WinterEvent`]), each with its English.

use super::{code, power, Describe};
use crate::variant::{spec_text, PowerId, ProvinceId, UnitType, Variant};
use serde::{Deserialize, Serialize};
use std::fmt;

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
