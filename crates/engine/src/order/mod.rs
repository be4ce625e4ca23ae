//! Orders: what a player writes, parsed ([`parse`]), printed in canonical form ([`fmt`] via
//! [`Order::display`]); [`crate::validate`] checks them against a position.
//!
//! An order is generic over how it names places: the parser gives `Order<Place>` (a name may still be
//! ambiguous, `Bal` the Baltic Sea or the Balkans), validation gives `Order<Region>` (every place
//! settled), which is all the adjudicator ever sees.

mod display;
mod parse;

pub use crate::variant::spec_text;
pub use display::PlaceName;
pub use parse::{
    parse_line, parse_mail, parse_orders, parse_place, parse_unit, ParseError, ParsedLine,
};

use crate::variant::{Coast, PowerId, ProvinceId, Region, UnitType};

/// A place as written in an order: settled to one region, or a name several spaces answer to.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Place {
    /// One region.
    Known(Region),
    /// A name (as written) that several spaces answer to, with the coast if one was written.
    Ambiguous {
        /// The name as the player wrote it.
        name: String,
        /// The spaces it may mean.
        options: Vec<ProvinceId>,
        /// A coast written after it.
        coast: Option<Coast>,
    },
}

/// The components an order addresses, and where they stand.
///
/// `A(Par)` is one army; `2A(Bur)` two; `A/3F(MAO)` one army aboard three fleets; `F(StP/sc)` a
/// fleet on a coast.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct UnitSpec<P> {
    /// How many armies.
    pub armies: u8,
    /// How many fleets.
    pub fleets: u8,
    /// Where they stand.
    pub at: P,
}

impl<P> UnitSpec<P> {
    /// One unit of `unit` type at `at`.
    pub fn single(unit: UnitType, at: P) -> Self {
        match unit {
            UnitType::Army => UnitSpec {
                armies: 1,
                fleets: 0,
                at,
            },
            UnitType::Fleet => UnitSpec {
                armies: 0,
                fleets: 1,
                at,
            },
        }
    }

    /// The unit type when the spec names exactly one kind of unit (`A`, `2A`, `F`, `3F`).
    pub fn unit_type(&self) -> Option<UnitType> {
        match (self.armies, self.fleets) {
            (0, f) if f > 0 => Some(UnitType::Fleet),
            (a, 0) if a > 0 => Some(UnitType::Army),
            _ => None,
        }
    }

    /// The same spec with its place mapped.
    pub fn map<Q>(self, f: impl FnOnce(P) -> Q) -> UnitSpec<Q> {
        UnitSpec {
            armies: self.armies,
            fleets: self.fleets,
            at: f(self.at),
        }
    }
}

/// Which movement phase an order belongs to (the variant's fleet second moves, rule 6).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Stage {
    /// The first (or only) movement phase; also every non-movement order.
    #[default]
    First,
    /// The fleets' second movement phase (`2: ...`).
    Second,
}

/// One order.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Order<P> {
    /// The movement phase it is for.
    pub stage: Stage,
    /// What it orders.
    pub kind: OrderKind<P>,
}

/// What an order orders.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum OrderKind<P> {
    /// `A(Par) H`
    Hold {
        /// The units holding.
        unit: UnitSpec<P>,
    },
    /// `A(Par)-Bur`, `A(Lon)-Bel via convoy`, `F(NTH)-ENG-MAO` (with a second move).
    Move {
        /// The units moving.
        unit: UnitSpec<P>,
        /// Where to.
        to: P,
        /// Written `via convoy`: the move must go by convoy.
        via_convoy: bool,
        /// A fleet's second move from `to`, written as a chain.
        then: Option<P>,
    },
    /// `A(Bur) S A(Par)`: support to hold.
    SupportHold {
        /// The units supporting.
        unit: UnitSpec<P>,
        /// The force supported.
        supported: UnitSpec<P>,
    },
    /// `A(Bur) S A(Par)-Pic`: support a move.
    SupportMove {
        /// The units supporting.
        unit: UnitSpec<P>,
        /// The force supported.
        supported: UnitSpec<P>,
        /// Where it moves.
        to: P,
    },
    /// `A(Pic) S MERGE(Bur)`: support a merge into a space.
    SupportMerge {
        /// The units supporting.
        unit: UnitSpec<P>,
        /// The merge's target.
        target: P,
    },
    /// `F(NTH) C A(Lon)-Bre`: convoy (Fast Ferry).
    Convoy {
        /// The convoying fleet.
        unit: UnitSpec<P>,
        /// The army convoyed.
        army: UnitSpec<P>,
        /// Where it goes.
        to: P,
    },
    /// `A(Mar) & A(Pic) MERGE 2A(Bur)` or `A(Mar) MERGE Bur`.
    Merge {
        /// The participants (one in the per-participant form).
        units: Vec<UnitSpec<P>>,
        /// The target space.
        target: P,
        /// The resulting force as written (`2A`), as (armies, fleets), when written.
        result: Option<(u8, u8)>,
    },
    /// `A(Wal) E ENG`: embark on the own fleet in ENG after its first move.
    Embark {
        /// The army embarking.
        unit: UnitSpec<P>,
        /// The sea space.
        sea: P,
    },
    /// `A(Tun) E F(BOT)-ION`: embark, and the fleet carries it on its first move;
    /// `A(Tun) E F(BOT)-ION-AEG` with the fleet's second move too.
    EmbarkWith {
        /// The army embarking.
        unit: UnitSpec<P>,
        /// The fleet boarded.
        fleet: UnitSpec<P>,
        /// The fleet's first move.
        to: P,
        /// The fleet's second move, written as a chain.
        then: Option<P>,
    },
    /// `A(ION) D Bal`: disembark.
    Disembark {
        /// The army aboard.
        unit: UnitSpec<P>,
        /// The coastal space it lands in.
        to: P,
    },
    /// `2F(MAO) B Bre`: blockade.
    Blockade {
        /// The blockading fleets.
        unit: UnitSpec<P>,
        /// The home centre blockaded.
        centre: P,
    },
    /// `F(SKA) X Den-Swe`: deny a direct passage.
    Deny {
        /// The denying fleet.
        unit: UnitSpec<P>,
        /// One end of the passage.
        from: P,
        /// The other end.
        to: P,
    },
    /// `A(Par) R Bur`: retreat.
    Retreat {
        /// The dislodged units.
        unit: UnitSpec<P>,
        /// Where to.
        to: P,
    },
    /// `A(Par) DISBAND`: disband a dislodged unit.
    Disband {
        /// The units disbanded.
        unit: UnitSpec<P>,
    },
    /// `BUILD A(Par)`.
    Build {
        /// The units built.
        unit: UnitSpec<P>,
    },
    /// `REMOVE A(Par)`.
    Remove {
        /// The units removed.
        unit: UnitSpec<P>,
    },
    /// `WAIVE`: decline a build.
    Waive,
    /// `BANK 6`: bank supply points.
    Bank {
        /// Supply points.
        amount: u32,
    },
    /// `LOAN 6 TO France`.
    Loan {
        /// Supply points.
        amount: u32,
        /// The borrower.
        to: PowerId,
    },
    /// `RENEW France`: renew for a year the loan made to France.
    Renew {
        /// The borrower.
        to: PowerId,
    },
    /// `CONVERT 4`: supply points into influence points (1 SP = 2 IP).
    Convert {
        /// Supply points converted.
        amount: u32,
    },
    /// `BID 6 Denmark` or `BID 2 Denmark FOR France`.
    Bid {
        /// Influence points.
        amount: u32,
        /// The minor power.
        minor: PowerId,
        /// The major whose bid this supports (None: one's own bid).
        on_behalf: Option<PowerId>,
    },
}

impl<P> OrderKind<P> {
    /// The units the order addresses, to change (the first participant of a merge).
    pub fn unit_mut(&mut self) -> Option<&mut UnitSpec<P>> {
        use OrderKind::*;
        match self {
            Hold { unit }
            | Move { unit, .. }
            | SupportHold { unit, .. }
            | SupportMove { unit, .. }
            | SupportMerge { unit, .. }
            | Convoy { unit, .. }
            | Embark { unit, .. }
            | EmbarkWith { unit, .. }
            | Disembark { unit, .. }
            | Blockade { unit, .. }
            | Deny { unit, .. }
            | Retreat { unit, .. }
            | Disband { unit }
            | Build { unit }
            | Remove { unit } => Some(unit),
            Merge { units, .. } => units.first_mut(),
            Waive | Bank { .. } | Loan { .. } | Renew { .. } | Convert { .. } | Bid { .. } => None,
        }
    }

    /// Whether it is one of the Winter's own orders: builds, removals, waives and the supply and
    /// influence point orders.
    pub fn is_winter(&self) -> bool {
        use OrderKind::*;
        matches!(
            self,
            Build { .. }
                | Remove { .. }
                | Waive
                | Bank { .. }
                | Loan { .. }
                | Renew { .. }
                | Convert { .. }
                | Bid { .. }
        )
    }

    /// The units the order addresses, when it addresses units (not a Winter account order).
    pub fn unit(&self) -> Option<&UnitSpec<P>> {
        use OrderKind::*;
        match self {
            Hold { unit }
            | Move { unit, .. }
            | SupportHold { unit, .. }
            | SupportMove { unit, .. }
            | SupportMerge { unit, .. }
            | Convoy { unit, .. }
            | Embark { unit, .. }
            | EmbarkWith { unit, .. }
            | Disembark { unit, .. }
            | Blockade { unit, .. }
            | Deny { unit, .. }
            | Retreat { unit, .. }
            | Disband { unit }
            | Build { unit }
            | Remove { unit } => Some(unit),
            Merge { units, .. } => units.first(),
            Waive | Bank { .. } | Loan { .. } | Renew { .. } | Convert { .. } | Bid { .. } => None,
        }
    }
}

impl<P> Order<P> {
    /// The same order with its places mapped (settled by validation, or back to places).
    pub fn map<Q>(&self, f: &impl Fn(&P) -> Q) -> Order<Q> {
        use OrderKind::*;
        let u = |s: &UnitSpec<P>| UnitSpec {
            armies: s.armies,
            fleets: s.fleets,
            at: f(&s.at),
        };
        let kind = match &self.kind {
            Hold { unit } => Hold { unit: u(unit) },
            Move {
                unit,
                to,
                via_convoy,
                then,
            } => Move {
                unit: u(unit),
                to: f(to),
                via_convoy: *via_convoy,
                then: then.as_ref().map(f),
            },
            SupportHold { unit, supported } => SupportHold {
                unit: u(unit),
                supported: u(supported),
            },
            SupportMove {
                unit,
                supported,
                to,
            } => SupportMove {
                unit: u(unit),
                supported: u(supported),
                to: f(to),
            },
            SupportMerge { unit, target } => SupportMerge {
                unit: u(unit),
                target: f(target),
            },
            Convoy { unit, army, to } => Convoy {
                unit: u(unit),
                army: u(army),
                to: f(to),
            },
            Merge {
                units,
                target,
                result,
            } => Merge {
                units: units.iter().map(u).collect(),
                target: f(target),
                result: *result,
            },
            Embark { unit, sea } => Embark {
                unit: u(unit),
                sea: f(sea),
            },
            EmbarkWith {
                unit,
                fleet,
                to,
                then,
            } => EmbarkWith {
                unit: u(unit),
                fleet: u(fleet),
                to: f(to),
                then: then.as_ref().map(f),
            },
            Disembark { unit, to } => Disembark {
                unit: u(unit),
                to: f(to),
            },
            Blockade { unit, centre } => Blockade {
                unit: u(unit),
                centre: f(centre),
            },
            Deny { unit, from, to } => Deny {
                unit: u(unit),
                from: f(from),
                to: f(to),
            },
            Retreat { unit, to } => Retreat {
                unit: u(unit),
                to: f(to),
            },
            Disband { unit } => Disband { unit: u(unit) },
            Build { unit } => Build { unit: u(unit) },
            Remove { unit } => Remove { unit: u(unit) },
            Waive => Waive,
            Bank { amount } => Bank { amount: *amount },
            Loan { amount, to } => Loan {
                amount: *amount,
                to: *to,
            },
            Renew { to } => Renew { to: *to },
            Convert { amount } => Convert { amount: *amount },
            Bid {
                amount,
                minor,
                on_behalf,
            } => Bid {
                amount: *amount,
                minor: *minor,
                on_behalf: *on_behalf,
            },
        };
        Order {
            stage: self.stage,
            kind,
        }
    }

    /// Every place the order names, the units' own spaces included. An iterator, not a list:
    /// validation asks this of every order (issue 35).
    pub fn places(&self) -> impl Iterator<Item = &P> {
        use OrderKind::*;
        let (units, fixed): (&[UnitSpec<P>], [Option<&P>; 4]) = match &self.kind {
            Hold { unit } | Disband { unit } | Build { unit } | Remove { unit } => {
                (&[], [Some(&unit.at), None, None, None])
            }
            Move { unit, to, then, .. } => (&[], [Some(&unit.at), Some(to), then.as_ref(), None]),
            SupportHold { unit, supported } => {
                (&[], [Some(&unit.at), Some(&supported.at), None, None])
            }
            SupportMove {
                unit,
                supported,
                to,
            } => (&[], [Some(&unit.at), Some(&supported.at), Some(to), None]),
            SupportMerge { unit, target } => (&[], [Some(&unit.at), Some(target), None, None]),
            Convoy { unit, army, to } => (&[], [Some(&unit.at), Some(&army.at), Some(to), None]),
            Merge { units, target, .. } => (units, [Some(target), None, None, None]),
            Embark { unit, sea } => (&[], [Some(&unit.at), Some(sea), None, None]),
            EmbarkWith {
                unit,
                fleet,
                to,
                then,
            } => (
                &[],
                [Some(&unit.at), Some(&fleet.at), Some(to), then.as_ref()],
            ),
            Disembark { unit, to } | Retreat { unit, to } => {
                (&[], [Some(&unit.at), Some(to), None, None])
            }
            Blockade { unit, centre } => (&[], [Some(&unit.at), Some(centre), None, None]),
            Deny { unit, from, to } => (&[], [Some(&unit.at), Some(from), Some(to), None]),
            Waive | Bank { .. } | Loan { .. } | Renew { .. } | Convert { .. } | Bid { .. } => {
                (&[], [None; 4])
            }
        };
        units
            .iter()
            .map(|u| &u.at)
            .chain(fixed.into_iter().flatten())
    }

    /// A first-stage order of that kind.
    pub fn new(kind: OrderKind<P>) -> Self {
        Order {
            stage: Stage::First,
            kind,
        }
    }
}
