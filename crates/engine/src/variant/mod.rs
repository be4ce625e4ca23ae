//! The board and its rules as data: spaces, coasts, centres, powers, adjacency, passages.
//!
//! A [`Variant`] is loaded from a text file under `variant/` (see `docs/variant-format.md`) by
//! [`load`], which validates it; everything downstream only ever sees a valid board. Spaces are
//! numbered densely ([`ProvinceId`]) so that sets of spaces are bitsets ([`ProvinceSet`]) and the
//! adjudicator's look-ups are array indexing.

mod load;
mod names;
mod rules;
mod summary;
mod text;

pub use load::{load, load_named, LoadError};
pub use names::Lookup;
pub use rules::{
    CivilDisorder, ConvoyIntent, Edition, OptionError, RuleOption, Rules, Switch, Trapped,
    Unconvoyed, SWITCHES,
};
pub use summary::summary;
pub use text::{decode, DecodeError};

use std::fmt::{self, Write as _};

/// The most spaces a board may have: sets of spaces are 128-bit sets.
pub const MAX_PROVINCES: usize = 128;

/// A space of the board, by its index in [`Variant::provinces`].
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct ProvinceId(pub u8);

impl ProvinceId {
    /// The index into per-space tables.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A power (major or minor), by its index in [`Variant::powers`].
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct PowerId(pub u8);

impl PowerId {
    /// The index into per-power tables.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One coast of a multi-coast province.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Coast {
    /// North coast, `nc`.
    North,
    /// South coast, `sc`.
    South,
    /// East coast, `ec`.
    East,
    /// West coast, `wc`.
    West,
}

impl Coast {
    /// The short form printed after a slash: `nc`, `sc`, `ec`, `wc`.
    pub fn code(self) -> &'static str {
        match self {
            Coast::North => "nc",
            Coast::South => "sc",
            Coast::East => "ec",
            Coast::West => "wc",
        }
    }

    /// The coast in words: `north coast`.
    pub fn words(self) -> &'static str {
        match self {
            Coast::North => "north coast",
            Coast::South => "south coast",
            Coast::East => "east coast",
            Coast::West => "west coast",
        }
    }

    /// Reads `nc`, `north`, `north coast`, `n` and the like (case insensitive).
    pub fn parse(text: &str) -> Option<Coast> {
        let t = text.trim().to_ascii_lowercase();
        let t = t.strip_suffix(" coast").unwrap_or(&t);
        match t {
            "nc" | "n" | "north" | "ncs" => Some(Coast::North),
            "sc" | "s" | "south" | "scs" => Some(Coast::South),
            "ec" | "e" | "east" | "ecs" => Some(Coast::East),
            "wc" | "w" | "west" | "wcs" => Some(Coast::West),
            _ => None,
        }
    }
}

/// What can stand on a space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpaceKind {
    /// Inland: armies only.
    Land,
    /// Coastal: armies and fleets.
    Coast,
    /// Sea: fleets (and armies aboard them).
    Sea,
}

/// The two kinds of unit.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum UnitType {
    /// An army.
    Army,
    /// A fleet.
    Fleet,
}

/// `A`, `2A`, `F`, `A/3F`, `2A/2F`: counts and types of a force or order (here, with the unit
/// types, so that an order, a position and an event all write units the one way).
pub fn spec_text(armies: u8, fleets: u8) -> String {
    let mut out = String::with_capacity(8);
    write_spec(&mut out, armies, fleets);
    out
}

/// [`spec_text`] written onto `out`: an order's canonical form writes its units in place.
pub fn write_spec(out: &mut String, armies: u8, fleets: u8) {
    fn part(out: &mut String, n: u8, letter: char) {
        if n > 1 {
            // Writing to a String cannot fail.
            let _ = write!(out, "{n}");
        }
        if n > 0 {
            out.push(letter);
        }
    }
    match (armies, fleets) {
        (a, 0) => part(out, a, 'A'),
        (0, f) => part(out, f, 'F'),
        (a, f) => {
            part(out, a, 'A');
            out.push('/');
            part(out, f, 'F');
        }
    }
}

impl UnitType {
    /// `A` or `F`.
    pub fn letter(self) -> char {
        match self {
            UnitType::Army => 'A',
            UnitType::Fleet => 'F',
        }
    }
}

/// Where a unit stands: a space, and for a fleet in a multi-coast province, its coast.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Region {
    /// The space.
    pub province: ProvinceId,
    /// The coast, only for a fleet in a multi-coast province.
    pub coast: Option<Coast>,
}

impl Region {
    /// A region without a coast.
    pub fn of(province: ProvinceId) -> Region {
        Region {
            province,
            coast: None,
        }
    }

    /// Whether a support into `self` names the move into `dest`: the same space, and the same
    /// coast where both name one.
    pub fn names_move_into(self, dest: Region) -> bool {
        dest.province == self.province
            && (self.coast.is_none() || dest.coast.is_none() || dest.coast == self.coast)
    }
}

/// A set of spaces, as a bitset.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct ProvinceSet(pub u128);

impl ProvinceSet {
    /// The empty set.
    pub const EMPTY: ProvinceSet = ProvinceSet(0);

    /// Whether `p` is in the set.
    pub fn contains(self, p: ProvinceId) -> bool {
        self.0 >> p.0 & 1 == 1
    }

    /// Adds `p`.
    pub fn insert(&mut self, p: ProvinceId) {
        self.0 |= 1u128 << p.0;
    }

    /// Removes `p`.
    pub fn remove(&mut self, p: ProvinceId) {
        self.0 &= !(1u128 << p.0);
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// How many spaces are in the set.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// The spaces in the set, in index order.
    pub fn iter(self) -> impl Iterator<Item = ProvinceId> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let i = bits.trailing_zeros();
            bits &= bits - 1;
            Some(ProvinceId(i as u8))
        })
    }
}

impl fmt::Debug for ProvinceSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter().map(|p| p.0)).finish()
    }
}

/// Major powers are played; minor powers are controlled through influence (the variant's rule 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PowerKind {
    /// A player's power.
    Major,
    /// A minor power, ordered by the major that controls it.
    Minor,
}

/// A power of the variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Power {
    /// The name as printed (`England`).
    pub name: String,
    /// Major or minor.
    pub kind: PowerKind,
    /// Other spellings accepted in orders and case files (`ENG`, `English`).
    pub aliases: Vec<String>,
}

/// A space of the board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Province {
    /// The code, as printed (`StP`, `NTH`).
    pub code: String,
    /// The full name (`St Petersburg`).
    pub name: String,
    /// Inland, coastal or sea.
    pub kind: SpaceKind,
    /// The coasts of a multi-coast province; empty otherwise.
    pub coasts: Vec<Coast>,
    /// Whether it is a supply centre.
    pub centre: bool,
    /// The power whose home centre it is.
    pub home: Option<PowerId>,
}

/// A build site that is not a supply centre (the variant's Arkangel and Sardinia).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildSite {
    /// The space.
    pub province: ProvinceId,
    /// The only power that may build there.
    pub power: PowerId,
    /// Whether armies may be built there.
    pub army: bool,
    /// Whether fleets may be built there.
    pub fleet: bool,
}

/// A direct passage for armies between two spaces across a sea (the variant's rule 10).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Passage {
    /// One end.
    pub a: ProvinceId,
    /// The other end.
    pub b: ProvinceId,
    /// The sea crossed, where a fleet may deny the passage.
    pub sea: ProvinceId,
}

/// A unit on the board at the start of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StartUnit {
    /// Its power.
    pub power: PowerId,
    /// Army or fleet.
    pub unit: UnitType,
    /// Where it stands.
    pub region: Region,
}

/// The three seasons of a year.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Season {
    /// Spring.
    Spring,
    /// Autumn (the standard map prints it "Fall").
    Autumn,
    /// Winter.
    Winter,
}

/// The kinds of phase.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum PhaseKind {
    /// Movement (with the second-moves rule, the first phase of the season).
    Movement,
    /// Retreats after the (first) movement phase.
    Retreat,
    /// The fleets' second movement phase.
    SecondMovement,
    /// Retreats after the second movement phase.
    SecondRetreat,
    /// Winter: adjustments, supply points, influence and bids.
    Adjustment,
    /// A Winter with bids only (the first phase of a Napoleonic game, Winter 1800).
    Bids,
}

impl PhaseKind {
    /// The word printed for the kind.
    pub fn word(self) -> &'static str {
        match self {
            PhaseKind::Movement => "Movement",
            PhaseKind::Retreat => "Retreat",
            PhaseKind::SecondMovement => "SecondMovement",
            PhaseKind::SecondRetreat => "SecondRetreat",
            PhaseKind::Adjustment => "Adjustment",
            PhaseKind::Bids => "Bids",
        }
    }

    /// Reads the word printed for a kind (case insensitive; `Adjustments`, `Build`, `Builds` too).
    pub fn parse(word: &str) -> Option<PhaseKind> {
        match word.to_ascii_lowercase().as_str() {
            "movement" | "moves" => Some(PhaseKind::Movement),
            "retreat" | "retreats" => Some(PhaseKind::Retreat),
            "secondmovement" => Some(PhaseKind::SecondMovement),
            "secondretreat" => Some(PhaseKind::SecondRetreat),
            "adjustment" | "adjustments" | "build" | "builds" => Some(PhaseKind::Adjustment),
            "bids" => Some(PhaseKind::Bids),
            _ => None,
        }
    }
}

/// A phase of the game: `Spring 1901 Movement`.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Phase {
    /// The year.
    pub year: u16,
    /// The season.
    pub season: Season,
    /// The kind of phase.
    pub kind: PhaseKind,
}

/// Why a phase can't be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PhaseError {
    /// Not three words: season, year, kind.
    #[error("cannot read the phase '{text}' (write SEASON YEAR KIND, e.g. {example})")]
    Unreadable {
        /// The text.
        text: String,
        /// A phase written right.
        example: String,
    },
    /// A year the calendar can't hold or advance past.
    #[error("the year {year} is out of range: years run from 0 to {max}")]
    Year {
        /// The year as written.
        year: String,
        /// The last year allowed.
        max: u16,
    },
    /// A season and kind the calendar never has together.
    #[error(
        "there is no {phase} phase: Spring and Autumn have Movement, Retreat, SecondMovement \
         and SecondRetreat phases; Winter has Adjustment and Bids"
    )]
    NotInCalendar {
        /// The phase as read.
        phase: String,
    },
}

/// A board and its rules, loaded and validated.
#[derive(Clone, Debug)]
pub struct Variant {
    /// The variant's id (`standard`, `napoleonic`).
    pub name: String,
    /// Its full title.
    pub title: String,
    /// How the seasons are printed, in [`Season`] order.
    pub season_names: [String; 3],
    /// The first phase of a game.
    pub start: Phase,
    /// Centres needed to win.
    pub victory: u32,
    /// Per-power thresholds that differ from [`Variant::victory`].
    pub victory_overrides: Vec<(PowerId, u32)>,
    /// The rule switches.
    pub rules: Rules,
    /// The powers, majors and minors.
    pub powers: Vec<Power>,
    /// The spaces.
    pub provinces: Vec<Province>,
    /// Build sites that are not centres.
    pub build_sites: Vec<BuildSite>,
    /// Direct passages for armies.
    pub passages: Vec<Passage>,
    /// The units on the board at the start.
    pub start_units: Vec<StartUnit>,
    /// For each space, the spaces an army there can move to.
    pub army_adj: Vec<ProvinceSet>,
    /// For each space, the spaces a fleet there can reach on some coast (any of its coasts).
    pub fleet_reach: Vec<ProvinceSet>,
    /// Fleet edges between regions, each listed in both directions, sorted.
    pub fleet_edges: Vec<(Region, Region)>,
    /// Names (lower case) to the spaces they may mean; built by the loader.
    pub(crate) names: std::collections::HashMap<String, Vec<ProvinceId>>,
}

impl Variant {
    /// The space with that id.
    pub fn province(&self, p: ProvinceId) -> &Province {
        &self.provinces[p.index()]
    }

    /// The power with that id.
    pub fn power(&self, p: PowerId) -> &Power {
        &self.powers[p.index()]
    }

    /// The ids of all spaces.
    pub fn province_ids(&self) -> impl Iterator<Item = ProvinceId> {
        (0..self.provinces.len()).map(|i| ProvinceId(i as u8))
    }

    /// The ids of all powers.
    pub fn power_ids(&self) -> impl Iterator<Item = PowerId> {
        (0..self.powers.len()).map(|i| PowerId(i as u8))
    }

    /// The set of all supply centres.
    pub fn centres(&self) -> ProvinceSet {
        let mut s = ProvinceSet::EMPTY;
        for p in self.province_ids().filter(|&p| self.province(p).centre) {
            s.insert(p);
        }
        s
    }

    /// The home centres of `power`.
    pub fn homes(&self, power: PowerId) -> ProvinceSet {
        let mut s = ProvinceSet::EMPTY;
        for p in self
            .province_ids()
            .filter(|&p| self.province(p).home == Some(power))
        {
            s.insert(p);
        }
        s
    }

    /// The centres needed for `power` to win.
    pub fn victory_for(&self, power: PowerId) -> u32 {
        self.victory_overrides
            .iter()
            .find(|(p, _)| *p == power)
            .map_or(self.victory, |&(_, n)| n)
    }

    /// Whether an army can move from `from` to `to` over land (passages not included).
    pub fn army_adjacent(&self, from: ProvinceId, to: ProvinceId) -> bool {
        self.army_adj[from.index()].contains(to)
    }

    /// Whether a fleet in region `from` can move to region `to` (coasts exact).
    pub fn fleet_adjacent(&self, from: Region, to: Region) -> bool {
        self.fleet_edges.binary_search(&(from, to)).is_ok()
    }

    /// The regions a fleet in `from` can move to.
    pub fn fleet_moves(&self, from: Region) -> impl Iterator<Item = Region> + '_ {
        let start = self.fleet_edges.partition_point(|&(a, _)| a < from);
        self.fleet_edges[start..]
            .iter()
            .take_while(move |&&(a, _)| a == from)
            .map(|&(_, b)| b)
    }

    /// Whether an army in `from` reaches `to` by itself: over land, or across a direct passage as
    /// if adjacent (R6.1). Moves, supports and retreats (R1.9) all ask this.
    pub fn army_reaches(&self, from: ProvinceId, to: ProvinceId) -> bool {
        self.army_adjacent(from, to) || (self.rules.passages && self.passage(from, to).is_some())
    }

    /// How many of a force's `armies` and `fleets` in `from` could move into `into` themselves,
    /// as a support needs (R1.6): armies ashore over land or across a direct passage (R6.1),
    /// fleets by sea or coast (from any coast when `from` names none). Armies at sea support
    /// nothing: they act only aboard their fleets.
    pub fn supporting(&self, armies: u8, fleets: u8, from: Region, into: ProvinceId) -> (u8, u8) {
        let p = from.province;
        let walks = self.province(p).kind != SpaceKind::Sea && self.army_reaches(p, into);
        let coasts = &self.province(p).coasts;
        let sails = if from.coast.is_none() && !coasts.is_empty() {
            coasts.iter().any(|&c| {
                self.fleet_moves(Region {
                    province: p,
                    coast: Some(c),
                })
                .any(|r| r.province == into)
            })
        } else {
            self.fleet_moves(from).any(|r| r.province == into)
        };
        (
            if walks { armies } else { 0 },
            if sails { fleets } else { 0 },
        )
    }

    /// The direct passage between `a` and `b`, if there is one (either direction).
    pub fn passage(&self, a: ProvinceId, b: ProvinceId) -> Option<&Passage> {
        self.passages
            .iter()
            .find(|p| (p.a == a && p.b == b) || (p.a == b && p.b == a))
    }

    /// Whether a unit of this type may stand in this region.
    pub fn can_stand(&self, unit: UnitType, region: Region) -> bool {
        let prov = self.province(region.province);
        match (unit, prov.kind) {
            (UnitType::Army, SpaceKind::Sea) => false,
            (UnitType::Army, _) => region.coast.is_none(),
            (UnitType::Fleet, SpaceKind::Land) => false,
            (UnitType::Fleet, _) => match region.coast {
                None => prov.coasts.is_empty(),
                Some(c) => prov.coasts.contains(&c),
            },
        }
    }

    /// How a region is printed: `StP/nc`, `Par`.
    pub fn region_name(&self, region: Region) -> String {
        let code = &self.province(region.province).code;
        match region.coast {
            Some(c) => format!("{code}/{}", c.code()),
            None => code.clone(),
        }
    }

    /// How a season is printed in this variant.
    pub fn season_name(&self, season: Season) -> &str {
        &self.season_names[season as usize]
    }

    /// How a phase is printed: `Spring 1901 Movement`.
    pub fn phase_name(&self, phase: Phase) -> String {
        format!(
            "{} {} {}",
            self.season_name(phase.season),
            phase.year,
            phase.kind.word()
        )
    }

    /// Reads a season word (`Spring`, `Fall`, `Autumn`, `Winter`, or this variant's own names).
    pub fn parse_season(&self, word: &str) -> Option<Season> {
        let w = word.to_ascii_lowercase();
        let own = [Season::Spring, Season::Autumn, Season::Winter]
            .into_iter()
            .find(|&s| self.season_name(s).eq_ignore_ascii_case(&w));
        own.or(match w.as_str() {
            "spring" | "s" => Some(Season::Spring),
            "fall" | "autumn" | "f" | "a" => Some(Season::Autumn),
            "winter" | "w" => Some(Season::Winter),
            _ => None,
        })
    }

    /// Reads a phase: `Spring 1901 Movement` (three words).
    pub fn parse_phase(&self, text: &str) -> Option<Phase> {
        self.read_phase(text).ok()
    }

    /// Reads a phase, saying what is wrong with one the calendar can't have: a year it can't
    /// advance past, or a kind of phase its season never has (`Spring 1801 Bids`).
    pub fn read_phase(&self, text: &str) -> Result<Phase, PhaseError> {
        let spring = self.season_name(Season::Spring);
        let unreadable = || PhaseError::Unreadable {
            text: text.to_string(),
            example: format!("{spring} 1901 Movement"),
        };
        let mut words = text.split_whitespace();
        let (Some(season), Some(year), Some(kind), None) =
            (words.next(), words.next(), words.next(), words.next())
        else {
            return Err(unreadable());
        };
        let season = self.parse_season(season).ok_or_else(unreadable)?;
        let kind = PhaseKind::parse(kind).ok_or_else(unreadable)?;
        if !year.chars().all(|c| c.is_ascii_digit()) {
            return Err(unreadable());
        }
        // The calendar adds one to the year each Winter: the last year it can reach is refused
        // too, so that no game can run past it.
        let year = year
            .parse::<u16>()
            .ok()
            .filter(|&y| y < u16::MAX)
            .ok_or_else(|| PhaseError::Year {
                year: year.to_string(),
                max: u16::MAX - 1,
            })?;
        let winter = season == Season::Winter;
        let fits = match kind {
            PhaseKind::Movement
            | PhaseKind::Retreat
            | PhaseKind::SecondMovement
            | PhaseKind::SecondRetreat => !winter,
            PhaseKind::Adjustment | PhaseKind::Bids => winter,
        };
        if !fits {
            return Err(PhaseError::NotInCalendar {
                phase: format!("{} {year} {}", self.season_name(season), kind.word()),
            });
        }
        Ok(Phase { year, season, kind })
    }
}
