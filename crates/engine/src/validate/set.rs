//! A power's whole set of orders: the components every force is given across the orders (R1.4),
//! orders that void each other, landings from seas reached this phase, and how messages name an
//! earlier order.

use super::error::describe_counts;
use super::merge::{check_merge_result, merge_sums, without_void_participants};
use super::{units_of, Checked, Checker, ValidationError};
use crate::order::{Order, OrderKind, Place, Stage, UnitSpec};
use crate::position::Position;
use crate::variant::{PhaseKind, PowerId, ProvinceId, Region, Variant};

pub(super) fn check_numbered<'o>(
    checker: &Checker,
    orders: impl Iterator<Item = &'o Order<Place>>,
    numbers: &Numbering,
) -> Vec<Checked> {
    let checked: Vec<Checked> = orders.map(|o| checker.check(o)).collect();
    // R1.4: every force's components named by all the orders together, before any is judged, so
    // that which order was written first decides nothing (RULINGS section 0).
    let mut used = Tally::new(checked.len());
    // Which orders `used` counts: looked up once an order, not searched for in every force.
    let mut tallied = vec![false; checked.len()];
    if let Some(pos) = checker.position {
        for (this, order) in checked.iter().enumerate() {
            let Ok(order) = order else { continue };
            if counted(order) {
                for unit in units_of(order) {
                    used.add(pos, unit, this);
                    tallied[this] = true;
                }
            }
        }
    }
    // Seas this order set may bring an army of the power into (R3.2): a landing from a sea the
    // army only reaches this phase must be the same power's. Fleets sailing from a force with
    // armies aboard may carry them (R3.4), by a move or a merge, whether or not the order names
    // the armies; adjudication matches each landing to the armies actually carried (R3.3).
    let carries = |u: &UnitSpec<Region>| {
        u.fleets > 0
            && (u.armies > 0
                || checker
                    .position
                    .and_then(|pos| pos.force(u.at.province))
                    .is_some_and(|f| f.armies > 0))
    };
    let carried: Vec<ProvinceId> = checked
        .iter()
        .flatten()
        .filter_map(|o| match &o.kind {
            OrderKind::EmbarkWith { to, .. } => Some(to.province),
            OrderKind::Move { unit, to, .. } if carries(unit) => Some(to.province),
            OrderKind::Merge { units, target, .. } if units.iter().any(carries) => {
                Some(target.province)
            }
            _ => None,
        })
        .collect();
    let merges = merge_sums(&checked);
    let fleets = Fleets::of(&checked);
    let conflicts: Vec<Option<ValidationError>> = (0..checked.len())
        .map(|i| conflict(checker, &checked, &fleets, i, numbers))
        .collect();
    checked
        .into_iter()
        .zip(conflicts)
        .enumerate()
        .map(|(this, (checked, conflict))| {
            let checked = checked?;
            if let Some(e) = conflict {
                return Err(e);
            }
            check_merge_result(checker, &merges, &checked)?;
            if let (OrderKind::Disembark { unit, .. }, Some(pos)) =
                (&checked.kind, checker.position)
            {
                let sea = unit.at.province;
                let aboard = pos.force(sea).is_some_and(|f| f.armies > 0);
                if !aboard && !carried.contains(&sea) {
                    return Err(ValidationError::NotAboard {
                        sea: checker.variant.province(sea).name.clone(),
                    });
                }
            }
            // `used` holds only the counted orders' forces (none without a position).
            if !tallied[this] {
                return Ok(checked);
            }
            // A one-line merge participant whose force is over-ordered is void by itself, as its
            // own `MERGE` line would be, and the rest merges (R1.4, R2.6).
            let valid = |unit: &UnitSpec<Region>| {
                over_named(checker, &used, unit.at.province, this, numbers)
            };
            if let Some(merge) = without_void_participants(checked.clone(), valid) {
                return merge;
            }
            for unit in units_of(&checked) {
                valid(unit)?;
            }
            Ok(checked)
        })
        .collect()
}

/// Whether R1.4 counts the order's components with the set's. Winter orders are taken in the
/// order written (DATC 6.I.1, 6.J.1, 6.J.2: a unit removed twice is removed once), landings and
/// second-phase orders are counted where adjudication knows what is aboard and what moved.
fn counted(order: &Order<Region>) -> bool {
    !(order.kind.is_winter()
        || matches!(order.kind, OrderKind::Disembark { .. })
        || order.stage == Stage::Second)
}

/// A sheet's power and its valid orders, each with its line.
pub type Sheet<'o> = (PowerId, Vec<(usize, &'o Order<Region>)>);

/// A unit ordered on two sheets (a controlled minor's unit by its controller and on the minor's
/// own sheet, which a GM may write) is over-named the same way as on one (R1.4): when the orders
/// of all the sheets for a force together name more components than it has, every one of them
/// is void and it holds. `sheets` holds each sheet's power and its valid orders, each with its
/// line; the answer is each order voided, as (sheet, order) indices into `sheets`, with why.
pub fn over_named_across_sheets(
    variant: &Variant,
    position: &Position,
    sheets: &[Sheet],
) -> Vec<((usize, usize), ValidationError)> {
    let all: Vec<(usize, usize, usize, &Order<Region>)> = sheets
        .iter()
        .enumerate()
        .flat_map(|(s, (_, orders))| {
            orders
                .iter()
                .enumerate()
                .map(move |(k, &(line, order))| (s, k, line, order))
        })
        .collect();
    let mut used = Tally::new(all.len());
    for (this, &(_, _, _, order)) in all.iter().enumerate() {
        if counted(order) {
            for unit in units_of(order) {
                used.add(position, unit, this);
            }
        }
    }
    let name = |k: usize| {
        let (s, _, line, _) = all[k];
        format!("{} line {line}", variant.power(sheets[s].0).name)
    };
    let mut void = Vec::new();
    for (force, u) in used.forces.iter().enumerate() {
        if u.armies <= u.has.0 && u.fleets <= u.has.1 {
            continue;
        }
        let mut sheets_used = used.by(force).map(|k| all[k].0);
        let first = sheets_used.next();
        if sheets_used.all(|s| Some(s) == first) {
            continue;
        }
        let orders = some_of(used.by(force).map(name), u.orders);
        for k in used.by(force) {
            let (s, i, _, _) = all[k];
            void.push((
                (s, i),
                ValidationError::OrderedOnSheets {
                    place: variant.province(u.at).name.clone(),
                    has: describe_counts(u.has.0, u.has.1),
                    named: describe_counts(u.armies, u.fleets),
                    orders: orders.clone(),
                },
            ));
        }
    }
    void
}

/// Two of the power's own orders that adjudication would void together (R3.2, R5.1): a fleet
/// given one move by an embarkation (`A(Wal) E F(ENG)-NTH`) and another by its own order, or a
/// blockade by fleets an army embarks on this season.
fn conflict(
    checker: &Checker,
    checked: &[Checked],
    fleets: &Fleets,
    this: usize,
    numbers: &Numbering,
) -> Option<ValidationError> {
    use OrderKind::*;
    let v = checker.variant;
    let order = checked.get(this)?.as_ref().ok()?;
    let name = |p: ProvinceId| v.province(p).name.clone();
    // A fleet's own move that is not the embarkation's (`via convoy` is never the same move).
    let differs = |fleet_at: ProvinceId, to: ProvinceId, own: &Order<Region>| match &own.kind {
        Move {
            unit,
            to: own_to,
            via_convoy,
            ..
        } if unit.fleets > 0 && unit.at.province == fleet_at => {
            own_to.province != to || *via_convoy
        }
        _ => false,
    };
    // Whether the embarkation finds a fleet in `fleet_at` to ride on (R3.2): one given the same
    // move, or one no first-phase order names. Without a position the fleets are not known.
    let carried = |fleet_at: ProvinceId, to: ProvinceId| {
        let same = fleets.moves.contains(&(fleet_at, to));
        let named = fleets.named.get(&fleet_at).copied().unwrap_or(0);
        let free = checker.position.is_none_or(|pos| {
            pos.force(fleet_at)
                .is_some_and(|f| u32::from(f.fleets) > named)
        });
        same || free
    };
    // Only the orders that can conflict are looked at: a set of thousands of moves is not
    // searched once for each of them (issue 31).
    fn among<'c>(
        list: &'c [usize],
        this: usize,
        checked: &'c [Checked],
    ) -> impl Iterator<Item = (usize, &'c Order<Region>)> {
        list.iter()
            .copied()
            .filter(move |&k| k != this)
            .filter_map(move |k| Some((k, checked.get(k)?.as_ref().ok()?)))
    }
    match &order.kind {
        EmbarkWith { fleet, to, .. } if !carried(fleet.at.province, to.province) => among(
            fleets
                .from
                .get(&fleet.at.province)
                .map_or(&[][..], Vec::as_slice),
            this,
            checked,
        )
        .find(|(_, o)| differs(fleet.at.province, to.province, o))
        .map(|(k, _)| ValidationError::FleetMovedTwice {
            place: name(fleet.at.province),
            other: numbers.name(k),
        }),
        Move { unit, .. } if unit.fleets > 0 && order.stage == Stage::First => {
            among(&fleets.embarkations, this, checked)
                .find(|(_, o)| match &o.kind {
                    EmbarkWith { fleet, to, .. } => {
                        differs(fleet.at.province, to.province, order)
                            && !carried(fleet.at.province, to.province)
                    }
                    _ => false,
                })
                .map(|(k, _)| ValidationError::FleetMovedTwice {
                    place: name(unit.at.province),
                    other: numbers.name(k),
                })
        }
        Blockade { unit, .. } => among(&fleets.embarks, this, checked)
            .find(
                |(_, o)| matches!(&o.kind, Embark { sea, .. } if sea.province == unit.at.province),
            )
            .map(|(k, _)| ValidationError::BlockadeCarrying {
                place: name(unit.at.province),
                other: numbers.name(k),
            }),
        _ => None,
    }
}

/// What [`conflict`] asks of the whole set, gathered once: the first-phase orders that give
/// fleets moves, and the embarkations.
struct Fleets {
    /// The fleets' own first-phase moves not via convoy: (from, to).
    moves: std::collections::BTreeSet<(ProvinceId, ProvinceId)>,
    /// The fleets each first-phase order other than an embarkation names, by space.
    named: std::collections::BTreeMap<ProvinceId, u32>,
    /// The first-phase fleet moves (any), by the space they leave.
    from: std::collections::BTreeMap<ProvinceId, Vec<usize>>,
    /// The `EmbarkWith` orders.
    embarkations: Vec<usize>,
    /// The `Embark` orders.
    embarks: Vec<usize>,
}

impl Fleets {
    fn of(checked: &[Checked]) -> Fleets {
        use OrderKind::*;
        let mut f = Fleets {
            moves: Default::default(),
            named: Default::default(),
            from: Default::default(),
            embarkations: Vec::new(),
            embarks: Vec::new(),
        };
        for (k, o) in checked.iter().enumerate() {
            let Ok(o) = o else { continue };
            match &o.kind {
                EmbarkWith { .. } => f.embarkations.push(k),
                Embark { .. } => f.embarks.push(k),
                _ => {}
            }
            if o.stage != Stage::First {
                continue;
            }
            if let Move {
                unit,
                to,
                via_convoy,
                ..
            } = &o.kind
            {
                if unit.fleets > 0 {
                    f.from.entry(unit.at.province).or_default().push(k);
                    if !via_convoy {
                        f.moves.insert((unit.at.province, to.province));
                    }
                }
            }
            if let Some(u) = (!matches!(o.kind, EmbarkWith { .. }))
                .then(|| o.kind.unit())
                .flatten()
            {
                *f.named.entry(u.at.province).or_default() += u32::from(u.fleets);
            }
        }
        f
    }
}

/// The components every force is given by a set of orders, and by which orders (R1.4).
struct Tally {
    forces: Vec<Used>,
    /// Each order counted for a force, as (its entry in `forces`, the order), in the orders'
    /// order: one list for all the forces, not one each, read only for a force over-named.
    named: Vec<(usize, usize)>,
    /// Each space's entry in `forces`, plus one (0: none): every order of a set is tallied and
    /// looked up again, so a force is found by its space in one step, not searched for (issue 35).
    /// A space's id is a byte.
    slot: [u16; 256],
}

impl Tally {
    /// For `orders` orders (about as many forces).
    fn new(orders: usize) -> Tally {
        Tally {
            forces: Vec::with_capacity(orders),
            named: Vec::with_capacity(orders),
            slot: [0; 256],
        }
    }

    /// The force in `p`, if an order named it, with its entry.
    fn get(&self, p: ProvinceId) -> Option<(usize, &Used)> {
        let i = usize::from(self.slot[p.index()]).checked_sub(1)?;
        Some((i, self.forces.get(i)?))
    }

    /// The orders counted for the force at entry `force`, in order.
    fn by(&self, force: usize) -> impl Iterator<Item = usize> + '_ {
        self.named
            .iter()
            .filter(move |&&(f, _)| f == force)
            .map(|&(_, k)| k)
    }

    /// Whether `order` was counted for the force at entry `force` (`named` is in the orders'
    /// order: a binary search, not a count through thousands of them).
    fn counted(&self, force: usize, order: usize) -> bool {
        let start = self.named.partition_point(|&(_, k)| k < order);
        self.named[start..]
            .iter()
            .take_while(|&&(_, k)| k == order)
            .any(|&(f, _)| f == force)
    }

    /// Adds one order's components to what its force is given in all.
    fn add(&mut self, pos: &Position, unit: &UnitSpec<Region>, this: usize) {
        let p = unit.at.province;
        let i = match usize::from(self.slot[p.index()]).checked_sub(1) {
            Some(i) => i,
            None => {
                let has = match pos.phase.kind {
                    PhaseKind::Retreat | PhaseKind::SecondRetreat => pos
                        .dislodged
                        .iter()
                        .find(|d| d.province == p)
                        .map_or((0, 0), |d| (d.force.armies, d.force.fleets)),
                    _ => pos.force(p).map_or((0, 0), |f| (f.armies, f.fleets)),
                };
                self.forces.push(Used {
                    at: p,
                    has,
                    armies: 0,
                    fleets: 0,
                    orders: 0,
                    last: None,
                });
                // At most one entry a space: fewer than 256.
                self.slot[p.index()] = self.forces.len() as u16;
                self.forces.len() - 1
            }
        };
        let u = &mut self.forces[i];
        u.armies = u.armies.saturating_add(unit.armies);
        u.fleets = u.fleets.saturating_add(unit.fleets);
        // The orders are tallied in order: this one, if already counted for the force, is its last.
        if u.last != Some(this) {
            u.last = Some(this);
            u.orders += 1;
            self.named.push((i, this));
        }
    }
}

/// Why an order is void when the orders for the force in `p` together name more components
/// than it has (R1.4): every one of them is, whichever was written first.
fn over_named(
    checker: &Checker,
    used: &Tally,
    p: ProvinceId,
    this: usize,
    numbers: &Numbering,
) -> Result<(), ValidationError> {
    let Some((force, u)) = used.get(p) else {
        return Ok(());
    };
    let (has_a, has_f) = u.has;
    if u.armies <= has_a && u.fleets <= has_f {
        return Ok(());
    }
    let count = u.orders - usize::from(used.counted(force, this));
    let others = some_of(
        used.by(force)
            .filter(|&k| k != this)
            .map(|k| numbers.name(k)),
        count,
    );
    let place = checker.variant.province(p).name.clone();
    Err(if has_a + has_f == 1 && count > 0 {
        ValidationError::SecondOrder { place, others }
    } else {
        ValidationError::TooMany {
            place,
            has: describe_counts(has_a, has_f),
            named: describe_counts(u.armies, u.fleets),
            orders: if count == 0 {
                "this one".to_string()
            } else {
                format!("this one and {others}")
            },
        }
    })
}

/// How many orders a message names before `and N more`: a set of thousands of orders for one
/// unit would otherwise give each of them the list of all the others (issue 31: quadratic).
const NAMED: usize = 5;

/// The first [`NAMED`] of `names` (of `count` in all), and how many more there are.
fn some_of(names: impl Iterator<Item = String>, count: usize) -> String {
    let listed: Vec<String> = names.take(NAMED).collect();
    match count.saturating_sub(listed.len()) {
        0 => listed.join(", "),
        more => format!("{} and {more} more", listed.join(", ")),
    }
}

/// The components of one force ordered so far, and by which orders (R1.4).
struct Used {
    at: ProvinceId,
    /// What the force has: (armies, fleets).
    has: (u8, u8),
    armies: u8,
    fleets: u8,
    /// How many orders name it, and the last of them.
    orders: usize,
    last: Option<usize>,
}

/// How messages name an earlier order of the set: `order 2`, or its line in a mail.
pub(super) enum Numbering<'a> {
    Order,
    Lines(&'a [usize]),
}

impl Numbering<'_> {
    fn name(&self, index: usize) -> String {
        match self {
            Numbering::Order => format!("order {}", index + 1),
            Numbering::Lines(lines) => match lines.get(index) {
                Some(n) => format!("line {n}"),
                None => format!("order {}", index + 1),
            },
        }
    }
}
