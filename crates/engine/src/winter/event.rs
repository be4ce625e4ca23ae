//! What the Winter and the control of the minors report (RULINGS §7): plain data with the ids it
//! refers to, read as English in one place ([`Event::describe`]).

use crate::variant::{PowerId, ProvinceId, UnitType, Variant};

/// Why a major lost a minor for good (R7.8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum LossCause {
    /// (a) It occupied this centre, owned by the minor, at the end of an Autumn season.
    Occupied(ProvinceId),
    /// (b) It had this many units inside the minor's home centres.
    Crowded(u32),
}

/// Something that happened to the ledgers or the board outside the orders' own outcomes.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Event {
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

impl Event {
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

    /// The kind of event, one of [`Event::KINDS`].
    pub fn kind(&self) -> &'static str {
        let k = match self {
            Event::LoanRepaid { .. } => 0,
            Event::Bids { .. } => 1,
            Event::ControlGained { .. } => 2,
            Event::ControlKept { .. } => 3,
            Event::Uncontrolled { .. } => 4,
            Event::ControlLost { .. } => 5,
            Event::GmControl { .. } => 6,
            Event::Adopted { .. } => 7,
            Event::CivilDisorder { .. } => 8,
            Event::DefaultBuild { .. } => 9,
            Event::Victory { .. } => 10,
            Event::VictoryTie { .. } => 11,
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
            Event::LoanRepaid {
                borrower,
                lender,
                paid,
                owed,
            } if paid == owed => {
                format!("{} repays the {paid} SP lent by {}", name(*borrower), name(*lender))
            }
            Event::LoanRepaid {
                borrower,
                lender,
                paid,
                owed,
            } => format!(
                "{} can repay only {paid} of the {owed} SP lent by {}: the rest stays lent for a year",
                name(*borrower),
                name(*lender)
            ),
            Event::Bids {
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
            Event::ControlGained { minor, major } => {
                format!("{} takes control of {}", name(*major), name(*minor))
            }
            Event::ControlKept { minor, major, tie } => format!(
                "{}{} keeps control of {}",
                if *tie { "a tie: " } else { "" },
                name(*major),
                name(*minor)
            ),
            Event::Uncontrolled { minor, tie } => format!(
                "{}nobody controls {}",
                if *tie { "a tie: " } else { "" },
                name(*minor)
            ),
            Event::ControlLost {
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
            Event::GmControl { minor, major } => format!(
                "the GM gives control of {} to {}",
                name(*minor),
                major.map_or("nobody", name)
            ),
            Event::Adopted { old, new, homes } => {
                let homes: Vec<&str> = homes.iter().map(|&p| place(p)).collect();
                format!(
                    "{} adopts {} as its major power (rule 12) and becomes a minor power; {}'s home centres: {}",
                    name(*old),
                    name(*new),
                    name(*new),
                    homes.join(", ")
                )
            }
            Event::CivilDisorder { power, at, unit: u } => format!(
                "{}'s {} in {} is removed (civil disorder)",
                name(*power),
                unit(*u),
                place(*at)
            ),
            Event::DefaultBuild { power, at, unit: u } => format!(
                "{} builds {} in {} (the default build, R7.9)",
                name(*power),
                a_unit(*u),
                place(*at)
            ),
            Event::Victory {
                major,
                centres,
                needed,
            } => format!(
                "{} reaches {centres} centres with its minors (needs {needed}): victory (R7.10)",
                name(*major)
            ),
            Event::VictoryTie { majors } => {
                let names: Vec<&str> = majors.iter().map(|&p| name(p)).collect();
                format!(
                    "{} all reached victory: the GM decides (R7.10)",
                    names.join(", ")
                )
            }
        }
    }
}
