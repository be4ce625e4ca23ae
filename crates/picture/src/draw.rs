//! A position, and optionally a phase's orders with their outcomes, drawn as an SVG string: a
//! pure function of its inputs (no I/O), so the same position always gives the same picture.

use super::shapes::{Board, Class, Point, Problem, Ring, Shape};
use napjudge_engine::order::{spec_text, Order, OrderKind, Place, Stage, UnitSpec};
use napjudge_engine::outcome::{Event, Outcome, WinterEvent};
use napjudge_engine::position::Position;
use napjudge_engine::turn::PhaseReport;
use napjudge_engine::variant::{PowerId, PowerKind, ProvinceId, Region, Variant};
use std::fmt::Write;

/// What the picture shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// The position the orders were given in (or a position alone).
    Before,
    /// The position after the phase, with the phase's orders.
    After,
}

/// Why a picture can't be drawn.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DrawError {
    /// The shapes don't fit the variant.
    #[error("the board's shapes don't fit the variant: {}", .0.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("; "))]
    Shapes(Vec<Problem>),
}

/// The powers' colours, by name; others take the spare ones in turn. Chosen so that on each board
/// every two powers differ by at least 23 in CIEDE2000, and by at least 11.5 as a protanope or a
/// deuteranope sees them (Machado et al. 2009, full severity): a max-min search over sRGB from a
/// start of one hue family a power (red, navy, sky blue, black, purple, yellow, teal, rust,
/// orange, olive, brown, green, light green, grey-rose), each colour kept near its start
/// (`tests/picture.rs` checks the figures, `docs/map-format.md` has the reasons).
const COLOURS: &[(&str, &str)] = &[
    ("Austria", "#fd176e"),
    ("England", "#1f139c"),
    ("France", "#8db9ff"),
    ("Prussia", "#0d000a"),
    ("Germany", "#563b00"),
    ("Russia", "#b625b6"),
    ("Italy", "#098657"),
    ("Turkey", "#ffff5b"),
    ("Bavaria", "#24a9b4"),
    ("Denmark", "#b14f23"),
    ("Hanover", "#fab323"),
    ("Naples", "#929701"),
    ("Portugal", "#563b00"),
    ("Sweden", "#098657"),
    ("Spain", "#6dd588"),
    ("Wurzburg", "#b89a99"),
];

const SPARE: &[&str] = &[
    "#00897b", "#6d4c41", "#5c6bc0", "#c0ca33", "#d81b60", "#546e7a",
];

const SEA: &str = "#cfe3f0";
const LAND: &str = "#f1ead6";
const DECOR: &str = "#cfcac0";
const OUTLINE: &str = "#5a5a5a";

/// Font sizes in board units: the board's frame is about 900 to 1000 wide and the PNG twice that.
const LABEL_SIZE: f32 = 8.0;
const UNIT_SIZE: f32 = 9.0;
const TOKEN_H: f32 = 12.0;
/// How far a dislodged force is drawn from its space's unit point.
const DISLODGED_OFFSET: Point = Point { x: 10.0, y: 13.0 };

/// One decimal, as the shapes are written.
fn n(x: f32) -> String {
    let s = format!("{:.1}", x);
    if s == "-0.0" {
        "0.0".into()
    } else {
        s
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn rgb(hex: &str) -> (f32, f32, f32) {
    let c = |i: usize| {
        u8::from_str_radix(hex.get(i..i + 2).unwrap_or("80"), 16).map_or(128.0, f32::from)
    };
    (c(1), c(3), c(5))
}

/// `hex` mixed with white: `amount` 0 is the colour, 1 white.
fn tint(hex: &str, amount: f32) -> String {
    let (r, g, b) = rgb(hex);
    let m = |c: f32| (c + (255.0 - c) * amount).round() as u8;
    format!("#{:02x}{:02x}{:02x}", m(r), m(g), m(b))
}

/// `hex` mixed with black: `amount` 0 is the colour, 1 black.
fn shade(hex: &str, amount: f32) -> String {
    let (r, g, b) = rgb(hex);
    let m = |c: f32| (c * (1.0 - amount)).round() as u8;
    format!("#{:02x}{:02x}{:02x}", m(r), m(g), m(b))
}

/// Black or white, whichever reads on `hex`.
fn ink(hex: &str) -> &'static str {
    let (r, g, b) = rgb(hex);
    if 0.299 * r + 0.587 * g + 0.114 * b > 150.0 {
        "#000000"
    } else {
        "#ffffff"
    }
}

/// Each power's colour, by power index: what its units, its legend swatch and (lighter) its land
/// are drawn in.
pub fn power_colours(v: &Variant) -> Vec<&'static str> {
    let mut spare = SPARE.iter().cycle();
    v.powers
        .iter()
        .map(|p| {
            COLOURS
                .iter()
                .find(|(name, _)| *name == p.name)
                .map(|&(_, c)| c)
                .or_else(|| spare.next().copied())
                .unwrap_or("#808080")
        })
        .collect()
}

/// DejaVu Sans Bold's advance widths (`templates/fonts/`, its `hmtx` table) for ' ' to '~', in
/// 1/2048 of the font size: a name's box is the room its letters really take.
const ADVANCE: [u16; 95] = [
    713, 934, 1067, 1716, 1425, 2052, 1786, 627, 936, 936, 1071, 1716, 778, 850, 778, 748, 1425,
    1425, 1425, 1425, 1425, 1425, 1425, 1425, 1425, 1425, 819, 819, 1716, 1716, 1716, 1188, 2048,
    1585, 1561, 1503, 1700, 1399, 1399, 1681, 1714, 762, 762, 1587, 1305, 2038, 1714, 1741, 1501,
    1741, 1577, 1475, 1397, 1663, 1585, 2259, 1579, 1483, 1485, 936, 748, 936, 1716, 1024, 1024,
    1382, 1466, 1214, 1466, 1389, 891, 1466, 1458, 702, 702, 1362, 702, 2134, 1458, 1407, 1466,
    1466, 1010, 1219, 979, 1458, 1335, 1892, 1321, 1335, 1192, 1458, 748, 1458, 1716,
];

/// How wide DejaVu Sans Bold sets `text` at `size` (other characters as wide as '+').
fn text_width(text: &str, size: f32) -> f32 {
    let units: u32 = text
        .chars()
        .map(|c| {
            (c as usize)
                .checked_sub(32)
                .and_then(|i| ADVANCE.get(i))
                .map_or(1716, |&w| u32::from(w))
        })
        .sum();
    units as f32 / 2048.0 * size
}

fn ring_path(out: &mut String, rings: &[Ring]) {
    for ring in rings {
        for (i, p) in ring.iter().enumerate() {
            let _ = write!(
                out,
                "{} {} {} ",
                if i == 0 { "M" } else { "L" },
                n(p.x),
                n(p.y)
            );
        }
        out.push_str("Z ");
    }
    out.pop();
}

/// A box in the board's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    /// Its left edge.
    pub left: f32,
    /// Its top edge.
    pub top: f32,
    /// Its right edge.
    pub right: f32,
    /// Its bottom edge.
    pub bottom: f32,
}

impl Rect {
    fn centred(at: Point, w: f32, h: f32) -> Rect {
        Rect {
            left: at.x - w / 2.0,
            top: at.y - h / 2.0,
            right: at.x + w / 2.0,
            bottom: at.y + h / 2.0,
        }
    }

    /// Whether the two boxes share more than an edge.
    pub fn overlaps(&self, o: &Rect) -> bool {
        self.left < o.right && o.left < self.right && self.top < o.bottom && o.top < self.bottom
    }

    fn grown(&self, by: f32) -> Rect {
        Rect {
            left: self.left - by,
            top: self.top - by,
            right: self.right + by,
            bottom: self.bottom + by,
        }
    }

    fn union(&self, o: &Rect) -> Rect {
        Rect {
            left: self.left.min(o.left),
            top: self.top.min(o.top),
            right: self.right.max(o.right),
            bottom: self.bottom.max(o.bottom),
        }
    }

    /// Its centre.
    pub fn centre(&self) -> Point {
        Point {
            x: (self.left + self.right) / 2.0,
            y: (self.top + self.bottom) / 2.0,
        }
    }

    fn width(&self) -> f32 {
        self.right - self.left
    }

    fn height(&self) -> f32 {
        self.bottom - self.top
    }
}

/// What a box of the drawing holds, besides the names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item {
    /// A force's box.
    Unit(ProvinceId),
    /// A dislodged force's box (red, dashed).
    Dislodged(ProvinceId),
    /// The dashed outline of a unit ordered built (before the Winter), or of one removed.
    Ghost(ProvinceId),
    /// The grey dashed outline of a build that was refused or void, crossed.
    BuildRefused(ProvinceId),
    /// A build's mark: + in a white circle.
    Built(ProvinceId),
    /// A minor's build made by default (R7.9): + in a black circle.
    AutoBuilt(ProvinceId),
    /// A removal's mark: − in a white circle.
    Removed(ProvinceId),
    /// A removal made by civil disorder (R7.4): − in a black circle.
    AutoRemoved(ProvinceId),
    /// A blockaded centre's B.
    Blockade(ProvinceId),
    /// The cross of a failed (red) or void (black) order, or of a denied passage.
    Cross,
}

/// Where the drawing put things: each space's name (with its centre's dot) and every unit box
/// and mark, in the board's frame. The SVG is drawn from these boxes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layout {
    /// Each space's name box.
    pub names: Vec<(ProvinceId, Rect)>,
    /// Every unit box and mark.
    pub items: Vec<(Item, Rect)>,
}

/// A picture's SVG and where its parts went.
#[derive(Clone, Debug)]
pub struct Drawing {
    /// The standalone SVG.
    pub svg: String,
    /// Its boxes.
    pub layout: Layout,
}

/// The gap kept between a unit box or mark and a name.
const NAME_GAP: f32 = 1.0;
/// How large a cross (with its white halo) and a round mark are.
const CROSS: f32 = 11.0;
const MARK: f32 = 10.0;

/// A name's box: the letters as set at the label point (ascender to descender), with the centre's
/// dot before them.
fn name_box(v: &Variant, s: &Shape, p: ProvinceId) -> Rect {
    let prov = v.province(p);
    let half = text_width(&prov.code, LABEL_SIZE) / 2.0;
    let baseline = s.label.y + LABEL_SIZE * 0.35;
    let text = Rect {
        left: s.label.x - half,
        top: baseline - LABEL_SIZE * 0.77,
        right: s.label.x + half,
        bottom: baseline + LABEL_SIZE * 0.24,
    };
    if prov.centre {
        text.union(&Rect::centred(dot_at(s.label, half), 7.0, 7.0))
    } else {
        text
    }
}

/// Where a centre's dot is drawn, before a name `half` wide.
fn dot_at(label: Point, half: f32) -> Point {
    Point {
        x: label.x - half - 4.0,
        y: label.y,
    }
}

/// How an order ended, for its look.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Result {
    Done,
    Failed,
    Void,
    /// A second-phase order not played yet (a retreat phase comes first, R4.1).
    Pending,
}

impl Result {
    fn of(outcome: &Outcome) -> Result {
        match outcome {
            Outcome::Succeeds => Result::Done,
            Outcome::SecondPhase => Result::Pending,
            Outcome::Fails(_) => Result::Failed,
            Outcome::Void(_) => Result::Void,
        }
    }
}

/// The stroke patterns, one per kind of line.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Line {
    Move,
    Support,
    Convoy,
    Embark,
}

struct Canvas<'a> {
    v: &'a Variant,
    shapes: Vec<&'a Shape>,
    colours: Vec<&'static str>,
    /// Arrows and lines, drawn under the units.
    lines: String,
    /// Unit boxes and outlines.
    units: String,
    /// Marks drawn over everything (failed orders, builds, removals, blockades).
    marks: String,
    /// Whether the report holds the fleets' second phase (else its orders are still to come).
    second_played: bool,
    layout: Layout,
}

impl Canvas<'_> {
    fn shape(&self, p: ProvinceId) -> &Shape {
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
    fn place(&mut self, item: Item, at: Point, w: f32, h: f32, space: Option<ProvinceId>) -> Rect {
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
    fn unit_box(&self, p: ProvinceId) -> Option<Rect> {
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
    fn point(&self, r: Region) -> Point {
        if let Some(b) = self.unit_box(r.province) {
            return b.centre();
        }
        let s = self.shape(r.province);
        r.coast.map_or(s.unit, |c| s.coast_point(c))
    }

    /// Where the units an order names are drawn.
    fn at(&self, u: &UnitSpec<Region>) -> Point {
        self.point(u.at)
    }

    /// Where a dislodged force of `p` is drawn: its box, else beside the space's units.
    fn dislodged_point(&self, p: ProvinceId) -> Point {
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

    fn colour(&self, power: PowerId) -> &'static str {
        self.colours[power.index()]
    }

    /// A line from `a` to `b`, shortened at both ends so that it doesn't cover the units, with
    /// an arrowhead, a dot or a bar at its end.
    fn arrow(&mut self, a: Point, b: Point, colour: &str, line: Line, head: Head, result: Result) {
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
            Result::Done => (dark.as_str(), 1.0),
            Result::Failed => (dark.as_str(), 0.8),
            Result::Void => ("#707070", 0.7),
            Result::Pending => (dark.as_str(), 0.45),
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
        if matches!(result, Result::Failed | Result::Void) {
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
    fn cross(&mut self, at: Point, result: Result) {
        self.layout
            .items
            .push((Item::Cross, Rect::centred(at, CROSS, CROSS)));
        cross_svg(&mut self.marks, at, result);
    }

    /// The mark of a failed or void order at the clear spot nearest `at`.
    fn cross_near(&mut self, at: Point, result: Result) {
        let r = self.place(Item::Cross, at, CROSS, CROSS, None);
        cross_svg(&mut self.marks, r.centre(), result);
    }

    /// A round mark (+ built, − removed; black when made by default) beside the box `of`: at its
    /// top right corner, else the nearest clear spot.
    fn round_mark(&mut self, of: Rect, item: Item) {
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
    fn adjustment(&mut self, power: PowerId, u: &UnitSpec<Region>, item: Item, result: Result) {
        let build = matches!(item, Item::Built(_) | Item::AutoBuilt(_));
        if build && matches!(result, Result::Failed | Result::Void) {
            let b = self.unit_or_ghost(power, u, true);
            self.cross(b.centre(), result);
            return;
        }
        let b = self.unit_or_ghost(power, u, false);
        self.round_mark(b, item);
        if matches!(result, Result::Failed | Result::Void) {
            self.cross(b.centre(), result);
        }
    }

    /// Draws one order with its result.
    fn order(&mut self, power: PowerId, order: &Order<Region>, result: Result) {
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
                if let (Some(next), false, Result::Done) = (then, self.second_played, result) {
                    let b = self.point(*to);
                    self.arrow(
                        b,
                        self.point(*next),
                        c,
                        Line::Move,
                        Head::Arrow,
                        Result::Pending,
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
                self.cross(at, Result::Void);
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

/// The cross of a failed (red) or void (black) order, on a white halo.
fn cross_svg(out: &mut String, at: Point, result: Result) {
    let colour = if result == Result::Failed {
        "#d00000"
    } else {
        "#202020"
    };
    let d = 3.5;
    let lines = format!(
        "M {} {} L {} {} M {} {} L {} {}",
        n(at.x - d),
        n(at.y - d),
        n(at.x + d),
        n(at.y + d),
        n(at.x - d),
        n(at.y + d),
        n(at.x + d),
        n(at.y - d),
    );
    let _ = writeln!(
        out,
        "<path d=\"{lines}\" stroke=\"#ffffff\" stroke-width=\"4\"/><path d=\"{lines}\" stroke=\"{colour}\" stroke-width=\"2\"/>"
    );
}

/// A round mark: + (built) or − (removed), black on white, or white on black when made by
/// default.
fn round_mark_svg(out: &mut String, c: Point, plus: bool, auto: bool) {
    let (fill, ink) = if auto {
        ("#000000", "#ffffff")
    } else {
        ("#ffffff", "#000000")
    };
    let mut d = format!(
        "M {} {} L {} {}",
        n(c.x - 2.8),
        n(c.y),
        n(c.x + 2.8),
        n(c.y)
    );
    if plus {
        let _ = write!(
            d,
            " M {} {} L {} {}",
            n(c.x),
            n(c.y - 2.8),
            n(c.x),
            n(c.y + 2.8)
        );
    }
    let _ = writeln!(
        out,
        "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{fill}\" stroke=\"#000000\" stroke-width=\"1\"/><path d=\"{d}\" stroke=\"{ink}\" stroke-width=\"1.6\"/>",
        n(c.x),
        n(c.y),
        n(MARK / 2.0 - 0.5),
    );
}

/// A blockaded centre's B, in the blockading power's colour (white when only the position says).
fn blockade_svg(out: &mut String, r: Rect, colour: &str) {
    let c = r.centre();
    let _ = writeln!(
        out,
        "<rect x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{colour}\" stroke=\"#000000\" stroke-width=\"0.8\"/>\
         <text x=\"{}\" y=\"{}\" font-size=\"8\" text-anchor=\"middle\" fill=\"{}\">B</text>",
        n(r.left),
        n(r.top),
        n(c.x),
        n(c.y + 3.0),
        ink(colour),
    );
}

/// The end of a line.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Head {
    Arrow,
    Dot,
    Bar,
}

/// An order the picture can draw: the checked one, else (a void order) the parsed one when
/// every place in it is settled.
fn drawable(o: &napjudge_engine::turn::OrderReport) -> Option<(Order<Region>, Result)> {
    match (&o.order.checked, &o.result) {
        (Ok(order), Ok(outcome)) => Some((order.clone(), Result::of(outcome))),
        (Ok(order), Err(_)) => Some((order.clone(), Result::Void)),
        (Err(_), _) => {
            let parsed = o.order.parsed.as_ref()?;
            if !parsed.places().iter().all(|p| matches!(p, Place::Known(_))) {
                return None;
            }
            let settled = parsed.map(&|p: &Place| match p {
                Place::Known(r) => *r,
                // Ruled out above.
                Place::Ambiguous { options, .. } => Region::of(options[0]),
            });
            Some((settled, Result::Void))
        }
    }
}

/// Draws `position` on `board` (with `report`'s orders, when given) as a standalone SVG.
pub fn draw(
    v: &Variant,
    board: &Board,
    position: &Position,
    report: Option<&PhaseReport>,
    view: View,
) -> std::result::Result<String, DrawError> {
    drawing(v, board, position, report, view).map(|d| d.svg)
}

/// The width of a unit box holding `text`.
fn token_width(text: &str) -> f32 {
    text_width(text, UNIT_SIZE) + 5.0
}

/// Draws `position` on `board` (with `report`'s orders, when given): the SVG and where its names,
/// unit boxes and marks went. Names are placed first and never move; then the blockades' B, the
/// forces, the dislodged forces, and the marks of the orders and events, each at the spot nearest
/// its own that covers no name and nothing placed before it.
pub fn drawing(
    v: &Variant,
    board: &Board,
    position: &Position,
    report: Option<&PhaseReport>,
    view: View,
) -> std::result::Result<Drawing, DrawError> {
    let shapes = board.for_variant(v).map_err(DrawError::Shapes)?;
    let colours = power_colours(v);
    let mut cv = Canvas {
        v,
        shapes,
        colours,
        lines: String::new(),
        units: String::new(),
        marks: String::new(),
        second_played: report.is_some_and(|r| !r.second.is_empty()),
        layout: Layout::default(),
    };
    cv.layout.names = v
        .province_ids()
        .map(|p| (p, name_box(v, cv.shape(p), p)))
        .collect();
    let legend_rows = v.powers.len().div_ceil(legend_columns(board.width));
    let legend_h = 22.0 + legend_rows as f32 * 15.0 + 30.0;
    let (w, h) = (board.width, board.height + legend_h);
    let mut out = String::with_capacity(256 * 1024);
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" font-family=\"DejaVu Sans\" font-weight=\"bold\">",
        n(w), n(h), n(w), n(h)
    );
    stripes(&mut out, v, position, &cv.colours);
    let _ = writeln!(
        out,
        "<rect width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>",
        n(w),
        n(h)
    );
    let _ = writeln!(
        out,
        "<rect width=\"{}\" height=\"{}\" fill=\"{SEA}\"/>",
        n(board.width),
        n(board.height)
    );
    // Shapes in file order: seas, then land, then decor on top (the format's drawing order).
    let mut in_file_order: Vec<ProvinceId> = v.province_ids().collect();
    in_file_order.sort_by_key(|&p| cv.shape(p).line);
    for p in in_file_order {
        let s = cv.shape(p);
        let fill = match s.class {
            Class::Sea => SEA.to_string(),
            Class::Land => land_fill(v, position, &cv.colours, p),
        };
        out.push_str("<path d=\"");
        ring_path(&mut out, &s.rings);
        // Borders without anti-aliasing: a third of the time to draw, a smaller PNG.
        let _ = writeln!(out, "\" fill=\"{fill}\" stroke=\"{OUTLINE}\" stroke-width=\"0.7\" shape-rendering=\"crispEdges\"/>");
    }
    for d in &board.decor {
        out.push_str("<path d=\"");
        ring_path(&mut out, d);
        let _ = writeln!(
            out,
            "\" fill=\"{DECOR}\" stroke=\"{OUTLINE}\" stroke-width=\"0.7\" shape-rendering=\"crispEdges\"/>"
        );
    }
    // Names, with a dot before each supply centre's.
    for p in v.province_ids() {
        let prov = v.province(p);
        let s = cv.shape(p);
        let colour = if s.class == Class::Sea {
            "#2f5f80"
        } else {
            "#3a3020"
        };
        let _ = writeln!(
            out,
            "<text id=\"name-{}\" x=\"{}\" y=\"{}\" font-size=\"{LABEL_SIZE}\" text-anchor=\"middle\" fill=\"{colour}\">{}</text>",
            escape(&prov.code),
            n(s.label.x),
            n(s.label.y + LABEL_SIZE * 0.35),
            escape(&prov.code)
        );
        if prov.centre {
            let at = dot_at(s.label, text_width(&prov.code, LABEL_SIZE) / 2.0);
            let _ = writeln!(
                out,
                "<circle cx=\"{}\" cy=\"{}\" r=\"2.6\" fill=\"#ffffff\" stroke=\"#000000\" stroke-width=\"1.2\"/>",
                n(at.x),
                n(at.y)
            );
        }
    }
    // The blockades' B beside their centres' names: held or broken this phase (in the
    // blockader's colour, broken ones crossed), else as the position has them.
    let mut blockades: Vec<(ProvinceId, &str, bool)> = Vec::new();
    for e in report.iter().flat_map(|r| &r.events) {
        if let Event::BlockadeHeld { power, centre, .. }
        | Event::BlockadeCut { power, centre, .. } = e
        {
            blockades.push((
                *centre,
                cv.colour(*power),
                matches!(e, Event::BlockadeCut { .. }),
            ));
        }
    }
    for p in position.blockaded.iter() {
        if !blockades.iter().any(|&(q, _, _)| q == p) {
            blockades.push((p, "#ffffff", false));
        }
    }
    for (p, colour, cut) in blockades {
        let name = cv.layout.names[p.index()].1;
        let at = Point {
            x: name.right + 6.0,
            y: name.centre().y,
        };
        let r = cv.place(Item::Blockade(p), at, 10.0, 10.0, None);
        blockade_svg(&mut cv.marks, r, colour);
        if cut {
            cv.cross(r.centre(), Result::Failed);
        }
    }
    // The forces, then the dislodged ones beside their space's.
    let mut tokens = String::new();
    for (p, f) in position.forces() {
        let s = cv.shape(p);
        let at = f.coast.map_or(s.unit, |c| s.coast_point(c));
        let text = spec_text(f.armies, f.fleets);
        let r = cv.place(Item::Unit(p), at, token_width(&text), TOKEN_H, Some(p));
        token(&mut tokens, r, &text, cv.colour(f.power), false);
    }
    for d in &position.dislodged {
        let at = cv.dislodged_point(d.province);
        let text = spec_text(d.force.armies, d.force.fleets);
        let r = cv.place(
            Item::Dislodged(d.province),
            at,
            token_width(&text),
            TOKEN_H,
            None,
        );
        token(&mut tokens, r, &text, cv.colour(d.force.power), true);
    }
    if let Some(r) = report {
        for po in &r.powers {
            for o in &po.orders {
                let Some((order, result)) = drawable(o) else {
                    continue;
                };
                // Once played, second-phase orders are drawn with their outcomes below.
                if order.stage == Stage::Second && cv.second_played {
                    continue;
                }
                cv.order(po.power, &order, result);
            }
        }
        for s in &r.second {
            cv.order(s.power, &s.order, Result::of(&s.outcome));
        }
        for e in &r.events {
            event(&mut cv, e);
        }
    }
    out.push_str(&cv.lines);
    // Units over the lines, marks over the units.
    out.push_str(&tokens);
    out.push_str(&cv.units);
    out.push_str(&cv.marks);
    legend(&mut out, v, board, position, report, view, &cv.colours);
    out.push_str("</svg>\n");
    Ok(Drawing {
        svg: out,
        layout: cv.layout,
    })
}

/// The stripes of each controlled minor (R7.6): its colour and its controller's, on the land
/// (lighter) and in the legend's swatch alike.
fn stripes(out: &mut String, v: &Variant, position: &Position, colours: &[&str]) {
    let controlled: Vec<(PowerId, PowerId)> = v
        .power_ids()
        .filter(|&p| v.power(p).kind == PowerKind::Minor)
        .filter_map(|p| position.ledgers.controller(p).map(|c| (p, c)))
        .collect();
    if controlled.is_empty() {
        return;
    }
    out.push_str("<defs>\n");
    for (minor, major) in controlled {
        let (own, theirs) = (colours[minor.index()], colours[major.index()]);
        for (id, a, b, size) in [
            ("land", tint(own, LAND_TINT), tint(theirs, LAND_TINT), 7.0),
            ("swatch", own.to_string(), theirs.to_string(), 5.0),
        ] {
            let _ = writeln!(
                out,
                "<pattern id=\"{id}-{}\" patternUnits=\"userSpaceOnUse\" width=\"{}\" height=\"{}\" patternTransform=\"rotate(45)\"><rect width=\"{}\" height=\"{}\" fill=\"{a}\"/><rect width=\"{}\" height=\"{}\" fill=\"{b}\"/></pattern>",
                minor.index(),
                n(size),
                n(size),
                n(size),
                n(size),
                n(size / 2.0),
                n(size),
            );
        }
    }
    out.push_str("</defs>\n");
}

/// How far a power's colour is lightened for its land.
const LAND_TINT: f32 = 0.5;

/// A land space's colour: its centre's owner, lighter (a controlled minor's centre striped with
/// its controller's colour); neutral without a centre or owner.
fn land_fill(v: &Variant, position: &Position, colours: &[&str], p: ProvinceId) -> String {
    if !v.province(p).centre {
        return LAND.into();
    }
    match position.owners[p.index()] {
        Some(owner) => match position.ledgers.controller(owner) {
            Some(_) if v.power(owner).kind == PowerKind::Minor => {
                format!("url(#land-{})", owner.index())
            }
            _ => tint(colours[owner.index()], LAND_TINT),
        },
        None => LAND.into(),
    }
}

/// A force as its counts in its box, of its power's colour.
fn token(out: &mut String, r: Rect, text: &str, colour: &str, dislodged: bool) {
    let (stroke, width, dash) = if dislodged {
        ("#d00000", 1.6, " stroke-dasharray=\"2.5 1.5\"")
    } else {
        ("#000000", 0.8, "")
    };
    let c = r.centre();
    let _ = writeln!(
        out,
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"2.5\" fill=\"{colour}\" stroke=\"{stroke}\" stroke-width=\"{width}\"{dash}/>\
         <text x=\"{}\" y=\"{}\" font-size=\"{UNIT_SIZE}\" text-anchor=\"middle\" fill=\"{}\">{}</text>",
        n(r.left),
        n(r.top),
        n(r.width()),
        n(r.height()),
        n(c.x),
        n(c.y + UNIT_SIZE * 0.36),
        ink(colour),
        escape(text),
    );
}

/// Marks for what happened besides the orders: passages denied, units disbanded, builds and
/// removals made by default (the blockades' marks go with the names).
fn event(cv: &mut Canvas, e: &Event) {
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
                cv.cross_near(m, Result::Failed);
            }
        }
        // Units disbanded for want of a retreat: crossed where their dislodged force stood.
        Event::Disbanded { at, .. } => {
            let p = cv.dislodged_point(*at);
            cv.cross_near(p, Result::Void);
        }
        Event::Winter(WinterEvent::DefaultBuild { power, at, unit }) => {
            let u = UnitSpec::single(*unit, Region::of(*at));
            cv.adjustment(*power, &u, Item::AutoBuilt(*at), Result::Done);
        }
        Event::Winter(WinterEvent::CivilDisorder { power, at, unit }) => {
            let u = UnitSpec::single(*unit, Region::of(*at));
            cv.adjustment(*power, &u, Item::AutoRemoved(*at), Result::Done);
        }
        Event::BlockadeHeld { .. }
        | Event::BlockadeCut { .. }
        | Event::Starved { .. }
        | Event::Winter(_) => {}
    }
}

fn legend_columns(width: f32) -> usize {
    ((width / 150.0) as usize).max(1)
}

/// The phase, each power's colour and centre count (a minor's controller beside it), and a key
/// of the marks, each drawn as on the board.
fn legend(
    out: &mut String,
    v: &Variant,
    board: &Board,
    position: &Position,
    report: Option<&PhaseReport>,
    view: View,
    colours: &[&str],
) {
    let top = board.height;
    let caption = match (report, view) {
        (Some(r), View::Before) => format!("{}: orders", v.phase_name(r.phase)),
        (Some(r), View::After) => format!(
            "After {}, with its orders (next: {})",
            v.phase_name(r.phase),
            v.phase_name(position.phase)
        ),
        (None, _) => v.phase_name(position.phase),
    };
    let _ = writeln!(
        out,
        "<line x1=\"0\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{OUTLINE}\" stroke-width=\"1\"/>\
         <text x=\"8\" y=\"{}\" font-size=\"11\" fill=\"#000000\">{}</text>",
        n(top),
        n(board.width),
        n(top),
        n(top + 15.0),
        escape(&caption)
    );
    let cols = legend_columns(board.width);
    let col_w = board.width / cols as f32;
    for (i, p) in v.power_ids().enumerate() {
        let (row, col) = (i / cols, i % cols);
        let x = 8.0 + col as f32 * col_w;
        let y = top + 22.0 + row as f32 * 15.0;
        let mut text = format!("{} {}", v.power(p).name, position.centre_count(v, p));
        let controller = position.ledgers.controller(p);
        if let Some(c) = controller {
            let _ = write!(text, " ({})", v.power(c).name);
        }
        // A controlled minor's swatch is striped as its land is.
        let fill = match controller {
            Some(_) if v.power(p).kind == PowerKind::Minor => format!("url(#swatch-{})", p.index()),
            _ => colours[p.index()].to_string(),
        };
        let _ = writeln!(
            out,
            "<rect id=\"swatch-{}\" x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{fill}\" stroke=\"#000000\" stroke-width=\"0.8\"/>\
             <text x=\"{}\" y=\"{}\" font-size=\"9\" fill=\"#000000\">{}</text>",
            escape(&v.power(p).name),
            n(x),
            n(y),
            n(x + 14.0),
            n(y + 8.5),
            escape(&text)
        );
    }
    let key_y = top + 22.0 + v.powers.len().div_ceil(cols) as f32 * 15.0 + 6.0;
    let _ = writeln!(
        out,
        "<text x=\"8\" y=\"{}\" font-size=\"8\" fill=\"#404040\">Beside each power: its centres (a minor's controller in brackets). Arrows: solid, move; dashed, support; dotted, convoy or denial; dash-dot, embark or disembark.</text>",
        n(key_y)
    );
    // The marks, each drawn as on the board, with its meaning.
    let y = key_y + 10.0;
    let mut x = 8.0;
    let entry = |out: &mut String, x: &mut f32, w: f32, text: &str| {
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" font-size=\"8\" fill=\"#404040\">{text}</text>",
            n(*x + w + 3.0),
            n(y + 3.0)
        );
        *x += w + 3.0 + text_width(text, 8.0) + 10.0;
    };
    let c = |x: f32, w: f32| Point { x: x + w / 2.0, y };
    cross_svg(out, c(x, 8.0), Result::Failed);
    entry(out, &mut x, 8.0, "failed");
    cross_svg(out, c(x, 8.0), Result::Void);
    entry(out, &mut x, 8.0, "void");
    let r = Rect::centred(c(x, 14.0), 14.0, 10.0);
    let _ = writeln!(
        out,
        "<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"10\" rx=\"2\" fill=\"#ffffff\" stroke=\"#d00000\" stroke-width=\"1.6\" stroke-dasharray=\"2.5 1.5\"/>",
        n(r.left),
        n(r.top)
    );
    entry(out, &mut x, 14.0, "dislodged");
    for (plus, auto, text) in [
        (true, false, "built"),
        (true, true, "built by default"),
        (false, false, "removed"),
        (false, true, "removed by default"),
    ] {
        round_mark_svg(out, c(x, MARK), plus, auto);
        entry(out, &mut x, MARK, text);
    }
    let r = Rect::centred(c(x, 14.0), 14.0, 10.0);
    let _ = writeln!(
        out,
        "<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"10\" rx=\"2\" fill=\"#ffffff\" stroke=\"#8a8a8a\" stroke-width=\"1.4\" stroke-dasharray=\"2.5 1.5\"/>",
        n(r.left),
        n(r.top)
    );
    cross_svg(out, r.centre(), Result::Failed);
    entry(out, &mut x, 14.0, "build refused");
    blockade_svg(out, Rect::centred(c(x, 10.0), 10.0, 10.0), "#ffffff");
    entry(out, &mut x, 10.0, "blockaded");
    let r = Rect::centred(c(x, 10.0), 10.0, 10.0);
    let _ = writeln!(
        out,
        "<defs><pattern id=\"key-stripes\" patternUnits=\"userSpaceOnUse\" width=\"5\" height=\"5\" patternTransform=\"rotate(45)\"><rect width=\"5\" height=\"5\" fill=\"#ffffff\"/><rect width=\"2.5\" height=\"5\" fill=\"#808080\"/></pattern></defs>\
         <rect x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"url(#key-stripes)\" stroke=\"#000000\" stroke-width=\"0.8\"/>",
        n(r.left),
        n(r.top)
    );
    entry(
        out,
        &mut x,
        10.0,
        "controlled minor: striped with its controller",
    );
}
