//! A position: the phase, the forces on the board, dislodged forces, centre owners.
//!
//! A [`Force`] is all the units of one power in one space (Multiplicity II, rule R1.1): on the
//! standard map every force is a single army or fleet.

use crate::order::{spec_text, Order};
use crate::variant::{Coast, Phase, PowerId, ProvinceId, ProvinceSet, Region, UnitType, Variant};
use crate::winter::Ledgers;

/// All the units of one power in one space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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

/// A force dislodged in the last movement phase, waiting for its retreat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dislodged {
    /// Where it was dislodged.
    pub province: ProvinceId,
    /// The force.
    pub force: Force,
    /// Where the attacker came from (a retreat there is not allowed, unless it came by convoy).
    pub attacker_from: Option<ProvinceId>,
    /// Whether the attacker came by convoy (then the retreat to its origin is allowed, DATC 6.H.11).
    pub by_convoy: bool,
    /// The seasons the armies aboard have spent at sea, carried through the retreat (R3.6).
    pub sea_time: u8,
}

/// A second-phase order waiting for the fleets' second movement phase (R4), with the reason it is
/// void when the first phase already made it so (R4.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pending {
    /// The power that gave it.
    pub power: PowerId,
    /// The order, naming where the fleet is after its first move.
    pub order: Order<Region>,
    /// Why it can't be carried out, when the first phase decided that.
    pub void: Option<String>,
}

/// A blockade ordered this Autumn (R5), followed through both movement phases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
#[derive(Clone, Debug, PartialEq, Eq)]
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
    /// For each space, the movement seasons the armies aboard the force there have spent at sea
    /// (R3.6; the longest-serving army counts for all of them).
    pub sea_time: Vec<u8>,
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
            sea_time: vec![0; n],
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

    /// Adds one unit to the force of `power` in `region` (creating the force).
    ///
    /// The caller makes sure no other power's force is there.
    pub fn add_unit(&mut self, power: PowerId, unit: UnitType, region: Region) {
        let slot = &mut self.units[region.province.index()];
        let force = slot.get_or_insert(Force {
            power,
            armies: 0,
            fleets: 0,
            coast: None,
        });
        match unit {
            UnitType::Army => force.armies = force.armies.saturating_add(1),
            UnitType::Fleet => {
                force.fleets = force.fleets.saturating_add(1);
                force.coast = region.coast.or(force.coast);
            }
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
