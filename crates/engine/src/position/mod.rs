//! A position: the phase, the forces on the board, dislodged forces, centre owners, and the Winter
//! ledgers ([`ledger`]) it carries from year to year.
//!
//! A [`Force`] is all the units of one power in one space (Multiplicity II, rule R1.1): on the
//! standard map every force is a single army or fleet.

pub mod ledger;

pub use ledger::{Item, LedgerError, Ledgers};

use crate::order::Order;
use crate::outcome::Void;
use crate::variant::{
    spec_text, Coast, Phase, PowerId, ProvinceId, ProvinceSet, Region, UnitType, Variant,
};

/// All the units of one power in one space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Force {
    /// Whose units they are.
    pub power: PowerId,
    /// How many armies (at sea: aboard the fleets).
    pub armies: u8,
    /// How many fleets.
    pub fleets: u8,
    /// The coast the fleets are on, in a multi-coast province.
    pub coast: Option<Coast>,
}

impl Force {
    /// One unit.
    pub fn single(power: PowerId, unit: UnitType, coast: Option<Coast>) -> Force {
        let (armies, fleets) = match unit {
            UnitType::Army => (1, 0),
            UnitType::Fleet => (0, 1),
        };
        Force {
            power,
            armies,
            fleets,
            coast,
        }
    }

    /// How many units (components) the force has.
    pub fn components(&self) -> u32 {
        u32::from(self.armies) + u32::from(self.fleets)
    }

    /// The unit type, when the force is of one type only.
    pub fn unit_type(&self) -> Option<UnitType> {
        match (self.armies, self.fleets) {
            (0, f) if f > 0 => Some(UnitType::Fleet),
            (a, 0) if a > 0 => Some(UnitType::Army),
            _ => None,
        }
    }

    /// How the force is written without its place: `A`, `2A`, `F`, `A/3F`.
    pub fn spec(&self) -> String {
        spec_text(self.armies, self.fleets)
    }

    /// How the force is written with its place: `A(Par)`, `2A/F(Bre)`, `F(StP/sc)`.
    pub fn name(&self, variant: &Variant, at: ProvinceId) -> String {
        let region = Region {
            province: at,
            coast: self.coast,
        };
        format!("{}({})", self.spec(), variant.region_name(region))
    }
}

/// How long the armies aboard one force at sea have been at sea (R3.6): `ended[k]` armies have
/// been at sea at the end of `k + 1` movement seasons (the last slot also holds longer counts,
/// which only starvation turned off allows). The force's other armies have ended none: they
/// boarded this season.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct SeaTime {
    ended: [u8; 3],
}

impl SeaTime {
    /// The most seasons an army can have ended at sea and still be aboard (the fourth starves).
    pub const LONGEST: u8 = 3;

    /// From each army's count of seasons (0 to [`SeaTime::LONGEST`]; longer counts as the longest).
    pub fn from_counts(counts: impl IntoIterator<Item = u8>) -> SeaTime {
        let mut t = SeaTime::default();
        for c in counts.into_iter().filter(|&c| c > 0) {
            let slot = &mut t.ended[usize::from(c.min(Self::LONGEST) - 1)];
            *slot = slot.saturating_add(1);
        }
        t
    }

    /// The armies that have ended at least one season at sea.
    pub fn counted(&self) -> u8 {
        self.ended.iter().fold(0, |n, &k| n.saturating_add(k))
    }

    /// Takes `n` armies out, the longest at sea first; returns the armies taken (those beyond the
    /// counted ones have ended no season at sea).
    pub fn take_longest(&mut self, n: u8) -> SeaTime {
        let mut taken = SeaTime::default();
        let mut n = n;
        for k in (0..self.ended.len()).rev() {
            let t = n.min(self.ended[k]);
            self.ended[k] -= t;
            taken.ended[k] = t;
            n -= t;
        }
        taken
    }

    /// Adds the armies of `other`.
    pub fn add(&mut self, other: SeaTime) {
        for (a, b) in self.ended.iter_mut().zip(other.ended) {
            *a = a.saturating_add(b);
        }
    }

    /// Keeps the counts of at most `armies` armies: when armies are lost at sea (R3.5) the
    /// freshest go first.
    pub fn fit(&mut self, armies: u8) {
        let mut excess = self.counted().saturating_sub(armies);
        for slot in self.ended.iter_mut() {
            let t = excess.min(*slot);
            *slot -= t;
            excess -= t;
        }
    }

    /// The end of a movement season for a force at sea carrying `armies`: each of them has ended
    /// one more season at sea. Returns how many have now ended four, removed when `starve` (R3.6).
    pub fn end_season(&mut self, armies: u8, starve: bool) -> u8 {
        self.fit(armies);
        let [one, two, three] = self.ended;
        let fresh = armies - self.counted();
        let starved = if starve { three } else { 0 };
        self.ended = [fresh, one, two.saturating_add(three - starved)];
        starved
    }
}

/// A force dislodged in the last movement phase, waiting for its retreat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Dislodged {
    /// Where it was dislodged.
    pub province: ProvinceId,
    /// The force.
    pub force: Force,
    /// Where the attackers came from: one space, or every participant's of a merge (R2.8); empty
    /// when not known. A retreat there is not allowed, unless they came by convoy.
    pub attacker_from: ProvinceSet,
    /// Whether the attacker came by convoy (then the retreat to its origin is allowed, DATC 6.H.11).
    pub by_convoy: bool,
    /// The seasons the armies aboard have spent at sea, carried through the retreat (R3.6).
    pub sea_time: SeaTime,
}

/// A second-phase order waiting for the fleets' second movement phase (R4), with the reason it is
/// void when the first phase already made it so (R4.3).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Pending {
    /// The power that gave it.
    pub power: PowerId,
    /// The order, naming where the fleet is after its first move.
    pub order: Order<Region>,
    /// Why it can't be carried out, when the first phase decided that.
    pub void: Option<Void>,
    /// The participants of a one-line merge (by their place in the order) whose part the first
    /// phase made void (R4.3, R1.4): the others still merge (R2.6).
    pub dropped: Vec<usize>,
}

/// A blockade ordered this Autumn (R5), followed through both movement phases.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Blockade {
    /// The sea space the blockading fleets are in.
    pub province: ProvinceId,
    /// Their power.
    pub power: PowerId,
    /// How many fleets blockade.
    pub fleets: u8,
    /// The home centre blockaded.
    pub centre: ProvinceId,
    /// Whether it still holds (not cut, blockader not dislodged).
    pub held: bool,
}

/// The state of a game between phases.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Position {
    /// The phase to be played next.
    pub phase: Phase,
    /// The force in each space, by space index.
    pub units: Vec<Option<Force>>,
    /// Forces dislodged in the last movement phase.
    pub dislodged: Vec<Dislodged>,
    /// Spaces left empty by a stand-off in the last movement phase (no retreat there).
    pub standoffs: ProvinceSet,
    /// The owner of each space (meaningful for centres), by space index.
    pub owners: Vec<Option<PowerId>>,
    /// Home centres under a successful blockade this year: no fleet may be built there (R5.4).
    pub blockaded: ProvinceSet,
    /// Supply points, loans, influence, bids and control of minor powers (RULINGS §7).
    pub ledgers: Ledgers,
    /// Second-phase orders carried over a first-phase retreat (R4.1).
    pub pending: Vec<Pending>,
    /// This season's blockades, until the season ends (R5).
    pub blockades: Vec<Blockade>,
    /// For each space, the movement seasons each army aboard the force there has spent at sea
    /// (R3.6; every army has its own count).
    pub sea_time: Vec<SeaTime>,
}

impl Position {
    /// An empty board in `phase`, with home centres owned by their powers.
    pub fn empty(variant: &Variant, phase: Phase) -> Position {
        let n = variant.provinces.len();
        let owners = variant
            .provinces
            .iter()
            .map(|p| if p.centre { p.home } else { None })
            .collect();
        Position {
            phase,
            units: vec![None; n],
            dislodged: Vec::new(),
            standoffs: ProvinceSet::EMPTY,
            owners,
            blockaded: ProvinceSet::EMPTY,
            ledgers: Ledgers::default(),
            pending: Vec::new(),
            blockades: Vec::new(),
            sea_time: vec![SeaTime::default(); n],
        }
    }

    /// The starting position of a game of `variant`.
    pub fn initial(variant: &Variant) -> Position {
        let mut pos = Position::empty(variant, variant.start);
        for u in &variant.start_units {
            pos.add_unit(u.power, u.unit, u.region);
        }
        pos
    }

    /// The force in `p`.
    pub fn force(&self, p: ProvinceId) -> Option<&Force> {
        self.units[p.index()].as_ref()
    }

    /// Adds one unit to the force of `power` in `region` (creating the force), as
    /// [`Position::add_force`] adds a force: a fleet's coast is kept only where the force has none.
    ///
    /// The caller makes sure no other power's force is there.
    pub fn add_unit(&mut self, power: PowerId, unit: UnitType, region: Region) {
        let (armies, fleets, coast) = match unit {
            UnitType::Army => (1, 0, None),
            UnitType::Fleet => (0, 1, region.coast),
        };
        self.add_force(
            region.province,
            Force {
                power,
                armies,
                fleets,
                coast,
            },
        );
    }

    /// Adds `force`'s components to its power's force in `p`, creating that force on an empty
    /// space; a force already there keeps its coast, else takes the newcomers'. The caller makes
    /// sure no other power's force is there.
    pub fn add_force(&mut self, p: ProvinceId, force: Force) {
        match &mut self.units[p.index()] {
            // Counts are bytes: a stack can't grow past 255 (R1.1).
            Some(f) => {
                f.armies = f.armies.saturating_add(force.armies);
                f.fleets = f.fleets.saturating_add(force.fleets);
                f.coast = f.coast.or(force.coast);
            }
            slot @ None => *slot = Some(force),
        }
    }

    /// The number of centres `power` owns.
    pub fn centre_count(&self, variant: &Variant, power: PowerId) -> usize {
        variant
            .centres()
            .iter()
            .filter(|p| self.owners[p.index()] == Some(power))
            .count()
    }

    /// Whether `power` may order the units of `owner`: its own, and those of a minor it controls
    /// (R7.9).
    pub fn commands(&self, power: PowerId, owner: PowerId) -> bool {
        power == owner || self.ledgers.controller(owner) == Some(power)
    }

    /// The forces on the board, in space order.
    pub fn forces(&self) -> impl Iterator<Item = (ProvinceId, &Force)> {
        self.units
            .iter()
            .enumerate()
            .filter_map(|(i, f)| f.as_ref().map(|f| (ProvinceId(i as u8), f)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sea_time_is_counted_per_army() {
        // R3.6: two armies at 3 and 1 seasons and one fresh one, in a force of three armies.
        let mut t = SeaTime::from_counts([3, 1, 0]);
        assert_eq!(t.counted(), 2);
        // The longest at sea leaves first.
        let gone = t.take_longest(1);
        assert_eq!(gone, SeaTime::from_counts([3]));
        t.add(gone);
        // At the end of the season the army at 3 reaches 4 and starves; the others go on.
        assert_eq!(t.end_season(3, true), 1);
        assert_eq!(t, SeaTime::from_counts([2, 1]));
        // Without starvation it stays at the longest count.
        let mut kept = SeaTime::from_counts([3]);
        assert_eq!(kept.end_season(1, false), 0);
        assert_eq!(kept, SeaTime::from_counts([3]));
    }
}
