//! The rule switches and editions: [`Rules`], the policies an [`Edition`] bundles, the table of
//! on/off switches ([`SWITCHES`]) and [`RuleOption`], the one reader of `NAME[=on|off]`.

use super::{PowerId, Variant};
use std::fmt;

/// The rule switches of a variant (`rules` lines). All off is the standard game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rules {
    /// Fleets make a second move each movement season (the variant's rule 6).
    pub second_moves: bool,
    /// Multiplicity II: stacks of one power's units in a space (rule 7).
    pub multiplicity: bool,
    /// Full Abstraction A/F: armies carried by fleets (rule 6).
    pub abstraction: bool,
    /// Blockades in Autumn (rule 8).
    pub blockades: bool,
    /// Direct passages and their denial (rule 10).
    pub passages: bool,
    /// Armies starve after four seasons at sea (a game option, on by default where listed).
    pub starvation: bool,
    /// Supply points pay for units (rule 5).
    pub supply_points: bool,
    /// Influence points and bids for minor powers (rule 4).
    pub influence: bool,
    /// The power that keeps one unit more than its centres (England, rule 11).
    pub extra_unit: Option<PowerId>,
    /// Majors may build armies in any centre they own, not only home centres (rule 9, R7.3).
    pub army_builds_anywhere: bool,
    /// Optional rule 12: a major may adopt a controlled minor as its major power (R7.11).
    pub adoption: bool,
    /// The rule edition: how the places the DATC leaves open are ruled (the `webdiplomacy` switch
    /// chooses [`Edition::webdiplomacy`]).
    pub edition: Edition,
}

/// A rule edition: a named bundle of policies, one for each place where rulebooks and judges
/// rule differently. An edition is built by its one constructor ([`Edition::datc`],
/// [`Edition::webdiplomacy`]); the adjudicator matches on each policy, never on the edition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edition {
    /// Which unit civil disorder removes first (R7.4).
    pub civil_disorder: CivilDisorder,
    /// Whether an army that can go over land takes a convoy it was not written `via convoy` for.
    pub convoy_intent: ConvoyIntent,
    /// Where a move written `via convoy` goes when no fleet is ordered to convoy it.
    pub unconvoyed: Unconvoyed,
    /// Whether a dislodged force with nowhere to retreat owes an order.
    pub trapped: Trapped,
}

impl Edition {
    /// The DATC v3.0 preferences, with the DATC's 2023 civil-disorder rule: the default.
    pub const fn datc() -> Edition {
        Edition {
            civil_disorder: CivilDisorder::FarthestFromOwnedCentres,
            convoy_intent: ConvoyIntent::WrittenOrOwnConvoy,
            unconvoyed: Unconvoyed::Fails,
            trapped: Trapped::OwesNothing,
        }
    }

    /// webDiplomacy's judge, so that its recorded games replay exactly.
    pub const fn webdiplomacy() -> Edition {
        Edition {
            civil_disorder: CivilDisorder::FarthestFromHomeCentres,
            convoy_intent: ConvoyIntent::WrittenOnly,
            unconvoyed: Unconvoyed::Overland,
            trapped: Trapped::OwesADisband,
        }
    }
}

impl Default for Edition {
    fn default() -> Edition {
        Edition::datc()
    }
}

/// Whether a dislodged force that may retreat nowhere owes an order (it disbands either way).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trapped {
    /// It owes none: nobody is asked for an order that has no choice (issue 32), and a retreat
    /// phase with no choice anywhere owes no orders.
    OwesNothing,
    /// Its power owes its disband, as webDiplomacy asks (its recorded games have these orders).
    OwesADisband,
}

/// Which unit civil disorder removes first from a power that did not order the removals it owes
/// (then fleets before armies at equal distance, then by the space's full name; moves over land
/// and sea count alike).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CivilDisorder {
    /// The unit farthest from a centre the power owns (the DATC, 2023).
    FarthestFromOwnedCentres,
    /// The unit farthest from the power's home centres (webDiplomacy).
    FarthestFromHomeCentres,
}

/// When an army that can reach its destination over land goes by convoy instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvoyIntent {
    /// When written `via convoy`, or when a fleet of its own power is ordered to convoy it (DATC
    /// 4.A.3, 6.G.3).
    WrittenOrOwnConvoy,
    /// Only when written `via convoy`: its own power's convoy is ignored (webDiplomacy).
    WrittenOnly,
}

/// What a move written `via convoy` does when no fleet is ordered to convoy it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unconvoyed {
    /// It must go by convoy, so it fails (DATC 4.A.3).
    Fails,
    /// It goes over land when it can (webDiplomacy).
    Overland,
}

/// One on/off rule switch: how `rules` lines, game options, case `OPTIONS` and `variant show` name
/// it, and what it reads and sets in the rules. [`SWITCHES`] is the one list of them.
#[derive(Debug)]
pub struct Switch {
    /// The name written (`second-moves`).
    pub name: &'static str,
    /// Other names accepted for it.
    pub aliases: &'static [&'static str],
    /// What it does, for `variant show`.
    pub description: &'static str,
    /// Whether it is on in a set of rules.
    get: fn(&Rules) -> bool,
    /// Turns it on or off in a set of rules.
    set: fn(&mut Rules, bool),
}

impl Switch {
    /// The switch `name` (any case, or an alias) names, if any.
    pub fn named(name: &str) -> Option<&'static Switch> {
        SWITCHES.iter().find(|s| s.is_called(name))
    }

    /// Whether it is on in `rules`.
    pub fn is_on(&self, rules: &Rules) -> bool {
        (self.get)(rules)
    }

    /// Turns it on or off in `rules`.
    pub fn set(&self, rules: &mut Rules, on: bool) {
        (self.set)(rules, on)
    }

    /// Whether `name` (any case) names it.
    pub fn is_called(&self, name: &str) -> bool {
        std::iter::once(&self.name)
            .chain(self.aliases)
            .any(|n| n.eq_ignore_ascii_case(name))
    }
}

/// Every on/off rule switch, in the order `variant show` prints them.
pub const SWITCHES: &[Switch] = &[
    Switch {
        name: "second-moves",
        aliases: &[],
        description: "fleets make a second move each movement season (rule 6)",
        get: |r| r.second_moves,
        set: |r, on| r.second_moves = on,
    },
    Switch {
        name: "multiplicity",
        aliases: &[],
        description: "stacks of one power's units in a space (Multiplicity II, rule 7)",
        get: |r| r.multiplicity,
        set: |r, on| r.multiplicity = on,
    },
    Switch {
        name: "abstraction",
        aliases: &[],
        description: "armies carried by fleets at sea (Full Abstraction A/F, rule 6)",
        get: |r| r.abstraction,
        set: |r, on| r.abstraction = on,
    },
    Switch {
        name: "blockades",
        aliases: &[],
        description: "fleets blockade home centres in Autumn (rule 8)",
        get: |r| r.blockades,
        set: |r, on| r.blockades = on,
    },
    Switch {
        name: "passages",
        aliases: &[],
        description: "direct passages across seas, and fleets denying them (rule 10)",
        get: |r| r.passages,
        set: |r, on| r.passages = on,
    },
    Switch {
        name: "starvation",
        aliases: &[],
        description: "armies starve after four seasons at sea",
        get: |r| r.starvation,
        set: |r, on| r.starvation = on,
    },
    Switch {
        name: "supply-points",
        aliases: &[],
        description: "supply points pay for units (rule 5)",
        get: |r| r.supply_points,
        set: |r, on| r.supply_points = on,
    },
    Switch {
        name: "influence",
        aliases: &[],
        description: "influence points and bids for minor powers (rule 4)",
        get: |r| r.influence,
        set: |r, on| r.influence = on,
    },
    Switch {
        name: "army-builds-anywhere",
        aliases: &[],
        description: "majors build armies in any centre they own (rule 9)",
        get: |r| r.army_builds_anywhere,
        set: |r, on| r.army_builds_anywhere = on,
    },
    Switch {
        name: "adoption",
        aliases: &["rule12"],
        description: "a major may adopt a controlled minor as its major power (optional rule 12)",
        get: |r| r.adoption,
        set: |r, on| r.adoption = on,
    },
    Switch {
        name: "webdiplomacy",
        aliases: &["edition-webdiplomacy"],
        description: "rule as webDiplomacy's judge does, not by the DATC's preferences (edition)",
        get: |r| r.edition == Edition::webdiplomacy(),
        set: |r, on| {
            r.edition = if on {
                Edition::webdiplomacy()
            } else {
                Edition::datc()
            }
        },
    },
];

/// Why a game's rule switches can't be set.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OptionError {
    /// The value is not on or off.
    #[error("option {key}: '{value}' is not on or off")]
    NotOnOff {
        /// The switch.
        key: String,
        /// What was written.
        value: String,
    },
    /// No switch has that name.
    #[error("unknown option '{key}': the rule switches are {}", switch_names())]
    Unknown {
        /// What was written.
        key: String,
    },
}

fn switch_names() -> String {
    SWITCHES
        .iter()
        .map(|s| s.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A rule switch set on or off for a game or a case, as written `NAME` (on) or `NAME=on|off`
/// (`yes`/`no`, `true`/`false` too, any case): the one reader of a game's `--option`, a game
/// folder's `options`, a stored game's options and a case's `OPTIONS`.
#[derive(Clone, Copy, Debug)]
pub struct RuleOption {
    /// The switch.
    pub switch: &'static Switch,
    /// On or off.
    pub on: bool,
}

impl RuleOption {
    /// Reads `NAME` or `NAME=on|off`.
    pub fn parse(text: &str) -> Result<RuleOption, OptionError> {
        let (key, value) = match text.split_once('=') {
            Some((k, v)) => (k.trim(), v.trim()),
            None => (text.trim(), "on"),
        };
        let on = match value.to_ascii_lowercase().as_str() {
            "on" | "yes" | "true" => true,
            "off" | "no" | "false" => false,
            _ => {
                return Err(OptionError::NotOnOff {
                    key: key.to_string(),
                    value: value.to_string(),
                })
            }
        };
        let switch = Switch::named(key).ok_or_else(|| OptionError::Unknown {
            key: key.to_string(),
        })?;
        Ok(RuleOption { switch, on })
    }
}

/// `NAME=on` or `NAME=off`, with the switch's own name.
impl fmt::Display for RuleOption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let value = if self.on { "on" } else { "off" };
        write!(f, "{}={value}", self.switch.name)
    }
}

impl Variant {
    /// This board with a game's or a case's rule switches set, each written `NAME` or
    /// `NAME=on|off` ([`RuleOption`]), in order.
    pub fn with_options<S: AsRef<str>>(&self, options: &[S]) -> Result<Variant, OptionError> {
        let mut v = self.clone();
        for text in options {
            let option = RuleOption::parse(text.as_ref())?;
            option.switch.set(&mut v.rules, option.on);
        }
        Ok(v)
    }
}

impl Rules {
    /// The most fleets a convoy may pass through: one under Fast Ferry (R3.1), else any number.
    pub fn convoy_chain_limit(&self) -> usize {
        if self.abstraction {
            1
        } else {
            usize::MAX
        }
    }
}
