//! The canvas the orders are drawn on: where each thing goes (the nearest spot clear of names
//! and of what is already placed), arrows and lines, and the marks of failed and void orders.

use super::colour::shade;
use super::geometry::{Rect, CROSS, DISLODGED_OFFSET, MARK, NAME_GAP, TOKEN_H};
use super::orders::OrderResult;
use super::svg::{cross_svg, n, round_mark_svg};
use super::{Item, Layout};
use crate::shapes::{Point, Shape};
use napjudge_engine::order::UnitSpec;
use napjudge_engine::variant::{PowerId, ProvinceId, Region, Variant};
use std::fmt::Write;

/// The stroke patterns, one per kind of line.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Line {
    Move,
    Support,
    Convoy,
    Embark,
}

/// The end of a line.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Head {
    Arrow,
    Dot,
    Bar,
}

pub(super) struct Canvas<'a> {
    pub(super) v: &'a Variant,
    pub(super) shapes: Vec<&'a Shape>,
    pub(super) colours: Vec<&'static str>,
    /// Arrows and lines, drawn under the units.
    pub(super) lines: String,
    /// Unit boxes and outlines.
    pub(super) units: String,
    /// Marks drawn over everything (failed orders, builds, removals, blockades).
    pub(super) marks: String,
    /// Whether the report holds the fleets' second phase (else its orders are still to come).
    pub(super) second_played: bool,
    pub(super) layout: Layout,
}

impl Canvas<'_> {
    pub(super) fn shape(&self, p: ProvinceId) -> &Shape {
        self.shapes[p.index()]
    }

    /// Whether `r` is clear of every name and of everything placed so far.
    fn free(&self, r: &Rect) -> bool {
        let near = r.grown(NAME_GAP);
        self.layout.names.iter().all(|(_, b)| !b.overlaps(&near))
            && self.layout.items.iter().all(|(_, b)| !b.overlaps(r))
    }

    /// The box `w` by `h` nearest `at` that covers no name and nothing placed: searched on rings
    /// around `at` (every 2.5 units, out to 40), first with its centre in `space`, then
    /// anywhere; `at` itself when nothing is clear (a board too crowded there).
    pub(super) fn place(
        &mut self,
        item: Item,
        at: Point,
        w: f32,
        h: f32,
        space: Option<ProvinceId>,
    ) -> Rect {
        let candidates = std::iter::once(at).chain((1..=16).flat_map(|ring| {
            let r = ring as f32 * 2.5;
            let steps = 8 * ring.min(4);
            (0..steps).map(move |k| {
                let a = k as f32 * std::f32::consts::TAU / steps as f32;
                Point {
                    x: at.x + r * a.sin(),
                    y: at.y - r * a.cos(),
                }
            })
        }));
        let inside = |pt: &Point| space.is_none_or(|p| self.shape(p).contains(*pt));
        let chosen = candidates
            .clone()
            .find(|pt| inside(pt) && self.free(&Rect::centred(*pt, w, h)))
            .or_else(|| {
                candidates
                    .clone()
                    .find(|pt| self.free(&Rect::centred(*pt, w, h)))
            })
            .unwrap_or(at);
        let r = Rect::centred(chosen, w, h);
        self.layout.items.push((item, r));
        r
    }

    /// The box of what stands in `p` (a force, else a ghost), if any.
    pub(super) fn unit_box(&self, p: ProvinceId) -> Option<Rect> {
        self.layout.items.iter().find_map(|&(item, r)| match item {
            Item::Unit(q) | Item::Ghost(q) | Item::BuildRefused(q) if q == p => Some(r),
            _ => None,
        })
    }

    fn dislodged_box(&self, p: ProvinceId) -> Option<Rect> {
        self.layout.items.iter().find_map(|&(item, r)| match item {
            Item::Dislodged(q) if q == p => Some(r),
            _ => None,
        })
    }

    /// Where a region is drawn: its force's box, else its unit (or coast) point.
    pub(super) fn point(&self, r: Region) -> Point {
        if let Some(b) = self.unit_box(r.province) {
            return b.centre();
        }
        let s = self.shape(r.province);
        r.coast.map_or(s.unit, |c| s.coast_point(c))
    }

    /// Where the units an order names are drawn.
    pub(super) fn at(&self, u: &UnitSpec<Region>) -> Point {
        self.point(u.at)
    }

    /// Where a dislodged force of `p` is drawn: its box, else beside the space's units.
    pub(super) fn dislodged_point(&self, p: ProvinceId) -> Point {
        self.dislodged_box(p).map_or_else(
            || {
                let a = self.point(Region::of(p));
                Point {
                    x: a.x + DISLODGED_OFFSET.x,
                    y: a.y + DISLODGED_OFFSET.y,
                }
            },
            |b| b.centre(),
        )
    }

    pub(super) fn colour(&self, power: PowerId) -> &'static str {
        self.colours[power.index()]
    }

    /// A line from `a` to `b`, shortened at both ends so that it doesn't cover the units, with
    /// an arrowhead, a dot or a bar at its end.
    pub(super) fn arrow(
        &mut self,
        a: Point,
        b: Point,
        colour: &str,
        line: Line,
        head: Head,
        result: OrderResult,
    ) {
        let (dx, dy) = (b.x - a.x, b.y - a.y);
        let len = (dx * dx + dy * dy).sqrt();
        if len < 1.0 {
            return;
        }
        let (ux, uy) = (dx / len, dy / len);
        let start = (TOKEN_H * 0.6).min(len / 3.0);
        let end = match head {
            Head::Arrow | Head::Bar => (TOKEN_H * 0.75).min(len / 3.0),
            Head::Dot => 2.0_f32.min(len / 3.0),
        };
        let p = Point {
            x: a.x + ux * start,
            y: a.y + uy * start,
        };
        let q = Point {
            x: b.x - ux * end,
            y: b.y - uy * end,
        };
        let (width, dash) = match line {
            Line::Move => (2.2, ""),
            Line::Support => (1.5, " stroke-dasharray=\"4 2.5\""),
            Line::Convoy => (1.5, " stroke-dasharray=\"1.2 2\""),
            Line::Embark => (1.8, " stroke-dasharray=\"7 2 2 2\""),
        };
        // Lines in a darker shade than the land they cross is tinted with.
        let dark = shade(colour, 0.25);
        let (colour, opacity) = match result {
            OrderResult::Done => (dark.as_str(), 1.0),
            OrderResult::Failed => (dark.as_str(), 0.8),
            OrderResult::Void => ("#707070", 0.7),
            OrderResult::Pending => (dark.as_str(), 0.45),
        };
        // The arrowhead's base: the line stops there so its end doesn't poke through the tip.
        let head_len = 6.0;
        let base = match head {
            Head::Arrow => Point {
                x: q.x - ux * head_len,
                y: q.y - uy * head_len,
            },
            _ => q,
        };
        let _ = writeln!(
            self.lines,
            "<g opacity=\"{opacity}\"><line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#ffffff\" stroke-opacity=\"0.7\" stroke-width=\"{}\"{dash}/>\
             <line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{colour}\" stroke-width=\"{width}\"{dash}/>",
            n(p.x), n(p.y), n(base.x), n(base.y), n(width + 1.6),
            n(p.x), n(p.y), n(base.x), n(base.y),
        );
        match head {
            Head::Arrow => {
                let (px, py) = (-uy, ux);
                let _ = writeln!(
                    self.lines,
                    "<polygon points=\"{},{} {},{} {},{}\" fill=\"{colour}\" stroke=\"#ffffff\" stroke-width=\"0.6\"/>",
                    n(q.x), n(q.y),
                    n(base.x + px * 3.5), n(base.y + py * 3.5),
                    n(base.x - px * 3.5), n(base.y - py * 3.5),
                );
            }
            Head::Dot => {
                let _ = writeln!(
                    self.lines,
                    "<circle cx=\"{}\" cy=\"{}\" r=\"2.2\" fill=\"{colour}\"/>",
                    n(q.x),
                    n(q.y)
                );
            }
            Head::Bar => {
                let (px, py) = (-uy * 5.0, ux * 5.0);
                let _ = writeln!(
                    self.lines,
                    "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{colour}\" stroke-width=\"3\"/>",
                    n(q.x + px), n(q.y + py), n(q.x - px), n(q.y - py),
                );
            }
        }
        self.lines.push_str("</g>\n");
        // The mark halfway, else the spot along the line nearest halfway that covers no name and
        // no unit, else the nearest clear spot around halfway.
        if matches!(result, OrderResult::Failed | OrderResult::Void) {
            let along = |t: f32| Point {
                x: p.x + (base.x - p.x) * t,
                y: p.y + (base.y - p.y) * t,
            };
            match [0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8]
                .into_iter()
                .map(along)
                .find(|&m| self.free(&Rect::centred(m, CROSS, CROSS)))
            {
                Some(m) => self.cross(m, result),
                None => self.cross_near(along(0.5), result),
            }
        }
    }

    /// The mark of a failed (red) or void (black) order, at `at`.
    pub(super) fn cross(&mut self, at: Point, result: OrderResult) {
        self.layout
            .items
            .push((Item::Cross, Rect::centred(at, CROSS, CROSS)));
        cross_svg(&mut self.marks, at, result);
    }

    /// The mark of a failed or void order at the clear spot nearest `at`.
    pub(super) fn cross_near(&mut self, at: Point, result: OrderResult) {
        let r = self.place(Item::Cross, at, CROSS, CROSS, None);
        cross_svg(&mut self.marks, r.centre(), result);
    }

    /// A round mark (+ built, − removed; black when made by default) beside the box `of`: at its
    /// top right corner, else the nearest clear spot.
    pub(super) fn round_mark(&mut self, of: Rect, item: Item) {
        let at = Point {
            x: of.right,
            y: of.top,
        };
        let r = self.place(item, at, MARK, MARK, None);
        let c = r.centre();
        let auto = matches!(item, Item::AutoBuilt(_) | Item::AutoRemoved(_));
        let plus = matches!(item, Item::Built(_) | Item::AutoBuilt(_));
        round_mark_svg(&mut self.marks, c, plus, auto);
    }
}
