//! A phase's orders and events on the canvas: how each ended, the arrows of each kind of order,
//! builds and removals with their marks.

use super::canvas::{Canvas, Head, Line};
use super::colour::OUTLINE;
use super::geometry::{token_width, Rect, TOKEN_H, UNIT_SIZE};
use super::svg::{escape, n};
use super::Item;
use crate::shapes::Point;
use napjudge_engine::order::{spec_text, Order, OrderKind, Place, UnitSpec};
use napjudge_engine::outcome::{Event, Outcome, WinterEvent};
use napjudge_engine::turn::PhaseReport;
use napjudge_engine::variant::{PowerId, ProvinceId, Region, Variant};
use std::fmt::Write;

/// How an order ended, for its look.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum OrderResult {
    Done,
    Failed,
    Void,
    /// A second-phase order not played yet (a retreat phase comes first, R4.1).
    Pending,
}

impl OrderResult {
    pub(super) fn of(outcome: &Outcome) -> OrderResult {
        match outcome {
            Outcome::Succeeds => OrderResult::Done,
            Outcome::SecondPhase => OrderResult::Pending,
            Outcome::Fails(_) => OrderResult::Failed,
            Outcome::Void(_) => OrderResult::Void,
        }
    }
}

/// An order the picture can draw: the checked one, else (a void order) the parsed one when
/// every place in it is settled.
pub(super) fn drawable(
    o: &napjudge_engine::turn::OrderReport,
) -> Option<(Order<Region>, OrderResult)> {
    match (&o.order.checked, &o.result) {
        (Ok(order), Ok(outcome)) => Some((order.clone(), OrderResult::of(outcome))),
        (Ok(order), Err(_)) => Some((order.clone(), OrderResult::Void)),
        (Err(_), _) => {
            let parsed = o.order.parsed.as_ref()?;
            if !parsed.places().all(|p| matches!(p, Place::Known(_))) {
                return None;
            }
            let settled = parsed.map(&|p: &Place| match p {
                Place::Known(r) => *r,
                // Ruled out above.
                Place::Ambiguous { options, .. } => Region::of(options[0]),
            });
            Some((settled, OrderResult::Void))
        }
    }
}

/// The hover text of `power`'s units in `at` after `report`'s phase: each of its orders that
/// ended there (a move or retreat that succeeded into `at`) or was given from there and did not
/// move away, as `France: A(Pic)-Bel: succeeds`, one a line; none when no order fits.
pub(super) fn unit_title(
    v: &Variant,
    report: &PhaseReport,
    power: PowerId,
    at: ProvinceId,
) -> Option<String> {
    let who = &v.power(power).name;
    let lines: Vec<String> = report
        .powers
        .iter()
        .filter(|po| po.power == power)
        .flat_map(|po| &po.orders)
        .filter_map(|o| {
            let order = o.order.checked.as_ref().ok()?;
            let moved = match (&order.kind, &o.result) {
                (
                    OrderKind::Move { to, then, .. },
                    Ok(Outcome::Succeeds | Outcome::SecondPhase),
                ) => Some(then.unwrap_or(*to).province),
                (OrderKind::Retreat { to, .. }, Ok(Outcome::Succeeds)) => Some(to.province),
                _ => None,
            };
            let from = order.kind.unit().map(|u| u.at.province);
            let here = match moved {
                Some(to) => to == at,
                None => from == Some(at),
            };
            here.then(|| {
                let text = o.canonical.clone().unwrap_or_else(|| o.order.text.clone());
                let outcome = match &o.result {
                    Ok(outcome) => outcome.describe(v),
                    Err(e) => format!("void: {e}"),
                };
                format!("{who}: {text}: {outcome}")
            })
        })
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

impl Canvas<'_> {
    /// The box of `power`'s units in `r`: the force drawn there, else a dashed outline of them
    /// (a build not made yet, a unit removed), placed like a force.
    fn unit_or_ghost(&mut self, power: PowerId, u: &UnitSpec<Region>, refused: bool) -> Rect {
        let p = u.at.province;
        if !refused {
            if let Some(b) = self.unit_box(p) {
                return b;
            }
        }
        let text = spec_text(u.armies, u.fleets);
        let w = token_width(&text);
        let s = self.shape(p);
        let at = u.at.coast.map_or(s.unit, |c| s.coast_point(c));
        let item = if refused {
            Item::BuildRefused(p)
        } else {
            Item::Ghost(p)
        };
        let r = self.place(item, at, w, TOKEN_H, Some(p));
        let colour = if refused {
            "#8a8a8a"
        } else {
            self.colour(power)
        };
        let _ = writeln!(
            self.units,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{TOKEN_H}\" rx=\"2\" fill=\"#ffffff\" fill-opacity=\"0.8\" stroke=\"{colour}\" stroke-width=\"1.4\" stroke-dasharray=\"2.5 1.5\"/>\
             <text x=\"{}\" y=\"{}\" font-size=\"{UNIT_SIZE}\" text-anchor=\"middle\" fill=\"{colour}\">{}</text>",
            n(r.left),
            n(r.top),
            n(r.width()),
            n(r.centre().x),
            n(r.centre().y + UNIT_SIZE * 0.36),
            escape(&text),
        );
        r
    }

    /// A build or removal (ordered or made by default) with its result: the units' box (or
    /// their outline) and its mark; a refused build is its grey outline crossed.
    fn adjustment(
        &mut self,
        power: PowerId,
        u: &UnitSpec<Region>,
        item: Item,
        result: OrderResult,
    ) {
        let build = matches!(item, Item::Built(_) | Item::AutoBuilt(_));
        if build && matches!(result, OrderResult::Failed | OrderResult::Void) {
            let b = self.unit_or_ghost(power, u, true);
            self.cross(b.centre(), result);
            return;
        }
        let b = self.unit_or_ghost(power, u, false);
        self.round_mark(b, item);
        if matches!(result, OrderResult::Failed | OrderResult::Void) {
            self.cross(b.centre(), result);
        }
    }

    /// Draws one order with its result.
    pub(super) fn order(&mut self, power: PowerId, order: &Order<Region>, result: OrderResult) {
        use OrderKind::*;
        let c = self.colour(power);
        let mid = |a: Point, b: Point| Point {
            x: (a.x + b.x) / 2.0,
            y: (a.y + b.y) / 2.0,
        };
        match &order.kind {
            Hold { .. }
            | Waive
            | Bank { .. }
            | Loan { .. }
            | Renew { .. }
            | Convert { .. }
            | Bid { .. } => {}
            Move { unit, to, then, .. } => {
                let a = self.at(unit);
                self.arrow(a, self.point(*to), c, Line::Move, Head::Arrow, result);
                // A chain's second leg: from the report's second-phase orders once played, else
                // here, waiting, when the first move went.
                if let (Some(next), false, OrderResult::Done) = (then, self.second_played, result) {
                    let b = self.point(*to);
                    self.arrow(
                        b,
                        self.point(*next),
                        c,
                        Line::Move,
                        Head::Arrow,
                        OrderResult::Pending,
                    );
                }
            }
            SupportHold { unit, supported } => {
                let a = self.at(unit);
                let b = self.at(supported);
                self.arrow(a, b, c, Line::Support, Head::Bar, result);
            }
            SupportMove {
                unit,
                supported,
                to,
            } => {
                let a = self.at(unit);
                let m = mid(self.at(supported), self.point(*to));
                self.arrow(a, m, c, Line::Support, Head::Dot, result);
            }
            SupportMerge { unit, target } => {
                let a = self.at(unit);
                self.arrow(a, self.point(*target), c, Line::Support, Head::Dot, result);
            }
            Convoy { unit, army, to } => {
                let a = self.at(unit);
                let m = mid(self.at(army), self.point(*to));
                self.arrow(a, m, c, Line::Convoy, Head::Dot, result);
            }
            Merge { units, target, .. } => {
                let t = self.point(*target);
                for u in units {
                    let a = self.at(u);
                    self.arrow(a, t, c, Line::Move, Head::Arrow, result);
                }
            }
            Embark { unit, sea } => {
                let a = self.at(unit);
                self.arrow(a, self.point(*sea), c, Line::Embark, Head::Arrow, result);
            }
            EmbarkWith {
                unit, fleet, to, ..
            } => {
                let a = self.at(unit);
                let f = self.at(fleet);
                self.arrow(a, f, c, Line::Embark, Head::Arrow, result);
                self.arrow(f, self.point(*to), c, Line::Move, Head::Arrow, result);
            }
            Disembark { unit, to } => {
                let a = self.at(unit);
                self.arrow(a, self.point(*to), c, Line::Embark, Head::Arrow, result);
            }
            Blockade { unit, centre } => {
                let a = self.at(unit);
                let b = self.point(Region::of(centre.province));
                self.arrow(a, b, c, Line::Move, Head::Bar, result);
            }
            Deny { unit, from, to } => {
                let m = mid(self.point(*from), self.point(*to));
                let a = self.at(unit);
                // The passage itself, thin, with the fleet's bar across it.
                let _ = writeln!(
                    self.lines,
                    "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{OUTLINE}\" stroke-width=\"1\" stroke-dasharray=\"1 1.5\"/>",
                    n(self.point(*from).x),
                    n(self.point(*from).y),
                    n(self.point(*to).x),
                    n(self.point(*to).y),
                );
                self.arrow(a, m, c, Line::Convoy, Head::Bar, result);
            }
            Retreat { unit, to } => {
                let a = self.dislodged_point(unit.at.province);
                self.arrow(a, self.point(*to), c, Line::Move, Head::Arrow, result);
            }
            Disband { unit } => {
                let at = self.dislodged_point(unit.at.province);
                self.cross(at, OrderResult::Void);
            }
            Build { unit } => {
                self.adjustment(power, unit, Item::Built(unit.at.province), result);
            }
            Remove { unit } => {
                self.adjustment(power, unit, Item::Removed(unit.at.province), result);
            }
        }
    }
}

/// Marks for what happened besides the orders: passages denied, units disbanded, builds and
/// removals made by default (the blockades' marks go with the names).
pub(super) fn event(cv: &mut Canvas, e: &Event) {
    match e {
        Event::PassageDenied { from, sea } => {
            let v = cv.v;
            for pass in v
                .passages
                .iter()
                .filter(|p| p.sea == *sea && (p.a == *from || p.b == *from))
            {
                let a = cv.point(Region::of(pass.a));
                let b = cv.point(Region::of(pass.b));
                let m = Point {
                    x: (a.x + b.x) / 2.0,
                    y: (a.y + b.y) / 2.0,
                };
                cv.cross_near(m, OrderResult::Failed);
            }
        }
        // Units disbanded for want of a retreat: crossed where their dislodged force stood.
        Event::Disbanded { at, .. } => {
            let p = cv.dislodged_point(*at);
            cv.cross_near(p, OrderResult::Void);
        }
        Event::Winter(WinterEvent::DefaultBuild { power, at, unit }) => {
            let u = UnitSpec::single(*unit, Region::of(*at));
            cv.adjustment(*power, &u, Item::AutoBuilt(*at), OrderResult::Done);
        }
        Event::Winter(WinterEvent::CivilDisorder { power, at, unit }) => {
            let u = UnitSpec::single(*unit, Region::of(*at));
            cv.adjustment(*power, &u, Item::AutoRemoved(*at), OrderResult::Done);
        }
        Event::BlockadeHeld { .. }
        | Event::BlockadeCut { .. }
        | Event::Starved { .. }
        | Event::Winter(_) => {}
    }
}
