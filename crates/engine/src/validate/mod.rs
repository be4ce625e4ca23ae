//! Validation: an order as parsed, checked against the board, the phase and (when given) the
//! position, giving an order on settled regions that the adjudicator can use, or the reason it
//! can't be used. An order that fails validation is void: its units hold (DATC 4.E.1).
//!
//! Rulings made here (DATC 4.B): a fleet moving to a multi-coast province without naming the coast
//! goes to the one coast it can reach, and is void when it could reach both; a coast it can't reach
//! makes the move void; the coast written for the ordered unit itself, and any coast written for
//! an army or in a support, are ignored.
//!
//! This file is the front: [`Checker::check`] (one order, an ambiguous name settled by the meaning
//! that gives a valid order), [`check_set`] and [`check_mail`] (a power's orders together). The
//! checks live beside it by concern: `order` dispatches by variant and phase to `movement`,
//! `retreat` and `adjustment`; `reach` says where a unit can go; `set` and `merge` judge the
//! orders together; `rules` holds what adjudication applies too; `error` says why an order fails.

mod adjustment;
mod error;
mod merge;
mod movement;
mod order;
mod reach;
mod retreat;
mod rules;
mod set;

pub use error::{Forbidden, ValidationError};
pub use rules::{acting_power, check_bid, may_build_at, retreat_barred};

use crate::order::{Order, OrderKind, Place, Stage, UnitSpec};
use crate::position::Position;
use crate::variant::{PowerId, ProvinceId, Region, SpaceKind, Variant};
use merge::without_ambiguous_participants;
use set::{check_numbered, Numbering};
pub use set::{over_named_across_sheets, Sheet};

/// What validation knows: the board, and optionally the phase, the position and who is ordering.
#[derive(Clone, Copy)]
pub struct Checker<'a> {
    /// The board.
    pub variant: &'a Variant,
    /// The position the orders are for; without it only the board is checked.
    pub position: Option<&'a Position>,
    /// The power giving the orders; `None` accepts any power's units (case files name the power).
    pub power: Option<PowerId>,
}

type Checked = Result<Order<Region>, ValidationError>;

impl Checker<'_> {
    /// Validates one order. Ambiguous names are settled by trying each space they may mean: the
    /// one that gives a valid order wins.
    pub fn check(&self, order: &Order<Place>) -> Checked {
        let mut ambiguous: Vec<(String, Vec<ProvinceId>)> = Vec::new();
        for p in order.places() {
            if let Place::Ambiguous { name, options, .. } = p {
                if !ambiguous.iter().any(|(n, _)| n == name) {
                    ambiguous.push((name.clone(), options.clone()));
                }
            }
        }
        if ambiguous.is_empty() {
            return self.check_settled(&settle(order, &[]));
        }
        // Every combination of meanings (in practice one name with two meanings).
        let mut combos: Vec<Vec<(String, ProvinceId)>> = vec![Vec::new()];
        for (name, options) in &ambiguous {
            combos = combos
                .into_iter()
                .flat_map(|c| {
                    options.iter().map(move |&o| {
                        let mut c = c.clone();
                        c.push((name.clone(), o));
                        c
                    })
                })
                .collect();
        }
        let results: Vec<(Order<Region>, Checked)> = combos
            .iter()
            .map(|c| {
                let settled = settle(order, c);
                let checked = self.check_settled(&settled);
                (settled, checked)
            })
            .collect();
        let mut valid: Vec<(&Order<Region>, &Order<Region>)> = results
            .iter()
            .filter_map(|(s, r)| Some((s, r.as_ref().ok()?)))
            .collect();
        let whole = |(written, checked): &(&Order<Region>, &Order<Region>)| {
            units_of(written).count() == units_of(checked).count()
        };
        if valid.len() > 1 && valid.iter().any(whole) {
            // A meaning under which every participant written is there beats one that drops
            // some (R2.6: `A/F(Bal) & A(Kol) MERGE Sax` names the Baltic's A/F).
            valid.retain(whole);
        }
        if valid.len() > 1 {
            // Parts of an order judged only later (a chain's second leg, a merge participant's
            // path, a second-phase order's place) still settle a name when only one meaning
            // fits the board as written: `F(SKA) MERGE Bal` can only be the Baltic.
            let fitting: Vec<_> = valid
                .iter()
                .copied()
                .filter(|(written, _)| self.fits_board(written, true))
                .collect();
            // A merge whose participants fit no meaning all together takes the meaning some of
            // them fit, as their own `MERGE` lines would (R2.6); the others drop out (R2.4).
            valid = if fitting.is_empty() {
                valid.retain(|(written, _)| self.fits_board(written, false));
                valid
            } else {
                fitting
            };
        }
        if valid.is_empty() {
            if let Some(e) = real_problem(&results) {
                return Err(e);
            }
        }
        match valid.as_slice() {
            [(_, one)] => Ok((*one).clone()),
            _ => {
                if let Some(rest) = without_ambiguous_participants(order) {
                    // A participant whose name no meaning settles is void on its own, as its own
                    // `MERGE` line would be; the rest merges (R2.6).
                    return self.check(&rest);
                }
                let (name, options) = &ambiguous[0];
                let names: Vec<&str> = options
                    .iter()
                    .map(|&p| self.variant.province(p).name.as_str())
                    .collect();
                Err(ValidationError::Ambiguous {
                    name: name.clone(),
                    options: names.join(" or "),
                })
            }
        }
    }

    /// Whether the parts of an order that are judged only during adjudication are possible on
    /// the board at all: a second leg from the first move's end into a sea, each merge participant
    /// next to (or in) the target (`every` participant, or some), a second-phase order's fleet
    /// next to where it acts.
    fn fits_board(&self, order: &Order<Region>, every: bool) -> bool {
        use OrderKind::*;
        let v = self.variant;
        let fleet_next = |a: ProvinceId, b: ProvinceId| v.fleet_reach[a.index()].contains(b);
        let sea = |p: ProvinceId| v.province(p).kind == SpaceKind::Sea;
        let second = order.stage == Stage::Second;
        match &order.kind {
            Move { unit, to, then, .. } => {
                then.is_none_or(|leg| sea(leg.province) && fleet_next(to.province, leg.province))
                    && (!second || fleet_next(unit.at.province, to.province))
            }
            EmbarkWith { to, then, .. } => {
                then.is_none_or(|leg| sea(leg.province) && fleet_next(to.province, leg.province))
            }
            Merge { units, target, .. } => {
                let fits = |u: &UnitSpec<Region>| {
                    let (a, t) = (u.at.province, target.province);
                    a == t || fleet_next(a, t) || (!second && v.army_adjacent(a, t))
                };
                if every {
                    units.iter().all(fits)
                } else {
                    units.iter().any(fits)
                }
            }
            SupportMove { unit, to, .. } if second => fleet_next(unit.at.province, to.province),
            _ => true,
        }
    }
}

/// When no meaning of an ambiguous name gives a valid order, the error the player should read
/// (adjacency before ambiguity): the one error every meaning gives; the one meaning
/// the unit can reach says what else is wrong; when it reaches none, that it can't reach any of
/// them. None: the meanings fail in ways that don't say which was meant.
fn real_problem(results: &[(Order<Region>, Checked)]) -> Option<ValidationError> {
    let errors: Vec<&ValidationError> = results
        .iter()
        .filter_map(|(_, r)| r.as_ref().err())
        .collect();
    if let [first, rest @ ..] = errors.as_slice() {
        if rest.iter().all(|e| e == first) {
            return Some((*first).clone());
        }
    }
    let reached: Vec<_> = errors
        .iter()
        .filter(|e| !matches!(e, ValidationError::Unreachable { .. }))
        .collect();
    match reached.as_slice() {
        [one] => return Some((**one).clone()),
        [] => {}
        _ => return None,
    }
    let mut unit = None;
    let mut places = Vec::new();
    for e in &errors {
        match e {
            ValidationError::Unreachable { unit: u, place }
                if unit.is_none_or(|first| first == u) =>
            {
                unit = Some(u);
                places.push(place.as_str());
            }
            _ => return None,
        }
    }
    Some(ValidationError::Unreachable {
        unit: unit?.clone(),
        place: places.join(" or "),
    })
}

/// The units an order gives orders to (not the ones it names as supported or convoyed).
/// An iterator, not a list: validation asks this of every order several times (issue 35).
fn units_of<P>(order: &Order<P>) -> impl Iterator<Item = &UnitSpec<P>> {
    let (many, one) = match &order.kind {
        OrderKind::Merge { units, .. } => (units.as_slice(), None),
        kind => (&[][..], kind.unit()),
    };
    many.iter().chain(one)
}

/// The order with every place settled: known places as they are, ambiguous ones by `choice`
/// (the first option when `choice` doesn't name them).
fn settle(order: &Order<Place>, choice: &[(String, ProvinceId)]) -> Order<Region> {
    let region = |p: &Place| -> Region {
        match p {
            Place::Known(r) => *r,
            Place::Ambiguous {
                name,
                options,
                coast,
            } => {
                let province = choice
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|&(_, p)| p)
                    .or_else(|| options.first().copied())
                    .unwrap_or(ProvinceId(0));
                Region {
                    province,
                    coast: *coast,
                }
            }
        }
    };
    order.map(&region)
}

/// Checks a whole order set for one power: each order alone, then the counts across orders
/// (R1.4: an order naming more components than its force has left is void; on the standard map, a
/// second order to the same unit).
pub fn check_set(checker: &Checker, orders: &[Order<Place>]) -> Vec<Checked> {
    check_numbered(checker, orders.iter(), &Numbering::Order)
}

/// [`check_set`] for the orders of a mail, each with its line number: messages about an earlier
/// order name its line.
pub fn check_mail(checker: &Checker, lines: &[(usize, &Order<Place>)]) -> Vec<Checked> {
    let numbers: Vec<usize> = lines.iter().map(|(n, _)| *n).collect();
    let orders = lines.iter().map(|&(_, o)| o);
    check_numbered(checker, orders, &Numbering::Lines(&numbers))
}
