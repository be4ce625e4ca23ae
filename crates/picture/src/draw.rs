//! A position, and optionally a phase's orders with their outcomes, drawn as an SVG string: a
//! pure function of its inputs (no I/O), so the same position always gives the same picture.

use super::shapes::{Board, Class, Point, Problem, Ring, Shape};
use napjudge_engine::order::{spec_text, Order, OrderKind, Place, Stage, UnitSpec};
use napjudge_engine::outcome::{Event, Outcome};
use napjudge_engine::position::{Force, Position};
use napjudge_engine::turn::PhaseReport;
use napjudge_engine::variant::{PowerId, PowerKind, ProvinceId, ProvinceSet, Region, Variant};
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

/// The standard colours of the powers, by name; others take the spare ones in turn.
const COLOURS: &[(&str, &str)] = &[
    ("Austria", "#c0392b"),
    ("England", "#1f3c88"),
    ("France", "#3d8fe0"),
    ("Prussia", "#3a3a3a"),
    ("Germany", "#5d4037"),
    ("Russia", "#7d3c98"),
    ("Italy", "#2e7d32"),
    ("Turkey", "#e0b000"),
    ("Bavaria", "#17a589"),
    ("Denmark", "#f06292"),
    ("Hanover", "#ef7d00"),
    ("Naples", "#9e9d24"),
    ("Portugal", "#8d6e63"),
    ("Sweden", "#f9d71c"),
    ("Spain", "#ad1457"),
    ("Wurzburg", "#78909c"),
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

/// Each power's colour, by power index.
fn palette(v: &Variant) -> Vec<&'static str> {
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

/// Roughly how wide DejaVu Sans Bold sets `text` at `size`.
fn text_width(text: &str, size: f32) -> f32 {
    text.chars().count() as f32 * size * 0.68
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
    /// Marks drawn over everything (failed orders, builds, removals, blockades).
    marks: String,
    /// Whether the report holds the fleets' second phase (else its orders are still to come).
    second_played: bool,
    /// The spaces with units drawn.
    occupied: ProvinceSet,
}

impl Canvas<'_> {
    fn shape(&self, p: ProvinceId) -> &Shape {
        self.shapes[p.index()]
    }

    /// Where a force in `r` is drawn.
    /// Where a force in `r` is drawn: its unit (or coast) point, or, when a unit there would
    /// cover a space's name, the nearest spot beside that name (above, below, left, right) that
    /// covers none, stays in the space and keeps clear of the units drawn in other spaces (none:
    /// the unit point).
    fn point(&self, r: Region) -> Point {
        let s = self.shape(r.province);
        let at = r.coast.map_or(s.unit, |c| s.coast_point(c));
        // A typical token: two characters wide.
        let token_w = text_width("2A", UNIT_SIZE) / 2.0 + 2.5;
        let gap_y = TOKEN_H / 2.0 + LABEL_SIZE * 0.6;
        // A name's extent left and right of its point (a centre's dot stands before it).
        let extent = |p: ProvinceId| {
            let half = text_width(&self.v.province(p).code, LABEL_SIZE) / 2.0 + 1.0;
            let dot = if self.v.province(p).centre { 6.0 } else { 0.0 };
            (half + dot, half)
        };
        let covers = |pt: Point| {
            self.v.province_ids().find(|&p| {
                let label = self.shape(p).label;
                let (left, right) = extent(p);
                pt.x > label.x - left - token_w
                    && pt.x < label.x + right + token_w
                    && (pt.y - label.y).abs() < gap_y
            })
        };
        let Some(p) = covers(at) else {
            return at;
        };
        let label = self.shape(p).label;
        let (left, right) = extent(p);
        let candidates = [
            Point {
                x: at.x,
                y: label.y - gap_y - 0.5,
            },
            Point {
                x: at.x,
                y: label.y + gap_y + 0.5,
            },
            Point {
                x: label.x - left - token_w - 0.5,
                y: at.y,
            },
            Point {
                x: label.x + right + token_w + 0.5,
                y: at.y,
            },
        ];
        let clear = |pt: Point| {
            self.occupied.iter().filter(|&q| q != r.province).all(|q| {
                let u = self.shape(q).unit;
                (pt.x - u.x).abs() >= 2.0 * token_w || (pt.y - u.y).abs() >= TOKEN_H + 1.0
            })
        };
        let distance = |pt: &Point| (pt.x - at.x).powi(2) + (pt.y - at.y).powi(2);
        let mut fits: Vec<Point> = candidates
            .into_iter()
            .filter(|&pt| s.contains(pt) && covers(pt).is_none())
            .collect();
        fits.sort_by(|a, b| distance(a).total_cmp(&distance(b)));
        // Where no spot is clear, the name is covered rather than another space's units.
        fits.into_iter().find(|&pt| clear(pt)).unwrap_or(at)
    }

    /// Where the units an order names are drawn.
    fn at(&self, u: &UnitSpec<Region>) -> Point {
        self.point(u.at)
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
        // The mark halfway, where it hides neither the arrowhead nor the units.
        if matches!(result, Result::Failed | Result::Void) {
            let m = Point {
                x: (p.x + base.x) / 2.0,
                y: (p.y + base.y) / 2.0,
            };
            self.cross(m, result);
        }
    }

    /// The mark of a failed (red) or void (black) order.
    fn cross(&mut self, at: Point, result: Result) {
        let colour = if result == Result::Failed {
            "#d00000"
        } else {
            "#202020"
        };
        let d = 3.5;
        let _ =
            writeln!(
            self.marks,
            "<path d=\"M {} {} L {} {} M {} {} L {} {}\" stroke=\"#ffffff\" stroke-width=\"4\"/>\
             <path d=\"M {} {} L {} {} M {} {} L {} {}\" stroke=\"{colour}\" stroke-width=\"2\"/>",
            n(at.x - d), n(at.y - d), n(at.x + d), n(at.y + d),
            n(at.x - d), n(at.y + d), n(at.x + d), n(at.y - d),
            n(at.x - d), n(at.y - d), n(at.x + d), n(at.y + d),
            n(at.x - d), n(at.y + d), n(at.x + d), n(at.y - d),
        );
    }

    /// A ring around a point (a build, a blockaded centre).
    fn ring(&mut self, at: Point, r: f32, colour: &str, dash: bool) {
        let dash = if dash {
            " stroke-dasharray=\"3 2\""
        } else {
            ""
        };
        let _ = writeln!(
            self.marks,
            "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"{dash}/>",
            n(at.x),
            n(at.y),
            n(r)
        );
    }

    /// A small square badge with a letter (B: blockaded centre).
    fn badge(&mut self, at: Point, letter: &str, colour: &str) {
        let _ = writeln!(
            self.marks,
            "<rect x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{colour}\" stroke=\"#000000\" stroke-width=\"0.8\"/>\
             <text x=\"{}\" y=\"{}\" font-size=\"8\" text-anchor=\"middle\" fill=\"{}\">{letter}</text>",
            n(at.x - 5.0),
            n(at.y - 5.0),
            n(at.x),
            n(at.y + 3.0),
            ink(colour),
        );
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
                let a = self.at(unit);
                let a = Point {
                    x: a.x + DISLODGED_OFFSET.x,
                    y: a.y + DISLODGED_OFFSET.y,
                };
                self.arrow(a, self.point(*to), c, Line::Move, Head::Arrow, result);
            }
            Disband { unit } => {
                let a = self.at(unit);
                let at = Point {
                    x: a.x + DISLODGED_OFFSET.x,
                    y: a.y + DISLODGED_OFFSET.y,
                };
                self.cross(at, Result::Void);
            }
            Build { unit } => {
                let at = self.at(unit);
                if result == Result::Done {
                    self.ring(at, TOKEN_H, c, false);
                } else {
                    self.ring(at, TOKEN_H, "#8a8a8a", true);
                    self.cross(at, result);
                }
            }
            Remove { unit } => {
                let at = self.at(unit);
                self.ring(at, TOKEN_H, c, true);
                self.cross(
                    at,
                    if result == Result::Done {
                        Result::Failed
                    } else {
                        result
                    },
                );
            }
        }
    }
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
    let shapes = board.for_variant(v).map_err(DrawError::Shapes)?;
    let colours = palette(v);
    let mut cv = Canvas {
        v,
        shapes,
        colours,
        lines: String::new(),
        marks: String::new(),
        second_played: report.is_some_and(|r| !r.second.is_empty()),
        occupied: position
            .forces()
            .map(|(p, _)| p)
            .chain(position.dislodged.iter().map(|d| d.province))
            .fold(ProvinceSet::EMPTY, |mut set, p| {
                set.insert(p);
                set
            }),
    };
    let legend_rows = v.powers.len().div_ceil(legend_columns(board.width));
    let legend_h = 22.0 + legend_rows as f32 * 15.0 + 26.0;
    let (w, h) = (board.width, board.height + legend_h);
    let mut out = String::with_capacity(256 * 1024);
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" font-family=\"DejaVu Sans\" font-weight=\"bold\">",
        n(w), n(h), n(w), n(h)
    );
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
            "<text x=\"{}\" y=\"{}\" font-size=\"{LABEL_SIZE}\" text-anchor=\"middle\" fill=\"{colour}\">{}</text>",
            n(s.label.x),
            n(s.label.y + LABEL_SIZE * 0.35),
            escape(&prov.code)
        );
        if prov.centre {
            let x = s.label.x - text_width(&prov.code, LABEL_SIZE) / 2.0 - 4.0;
            let _ = writeln!(
                out,
                "<circle cx=\"{}\" cy=\"{}\" r=\"2.6\" fill=\"#ffffff\" stroke=\"#000000\" stroke-width=\"1.2\"/>",
                n(x),
                n(s.label.y)
            );
        }
        if position.blockaded.contains(p) {
            let at = Point {
                x: s.label.x + text_width(&prov.code, LABEL_SIZE) / 2.0 + 7.0,
                y: s.label.y,
            };
            cv.badge(at, "B", "#ffffff");
        }
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
    // Units over the lines; dislodged forces beside their space's, marked.
    for (p, f) in position.forces() {
        let at = force_point(&cv, p, f);
        token(&mut out, at, f, cv.colour(f.power), false);
    }
    for d in &position.dislodged {
        let at = force_point(&cv, d.province, &d.force);
        let at = Point {
            x: at.x + DISLODGED_OFFSET.x,
            y: at.y + DISLODGED_OFFSET.y,
        };
        token(&mut out, at, &d.force, cv.colour(d.force.power), true);
    }
    out.push_str(&cv.marks);
    legend(&mut out, v, board, position, report, view, &cv.colours);
    out.push_str("</svg>\n");
    Ok(out)
}

fn force_point(cv: &Canvas, p: ProvinceId, f: &Force) -> Point {
    cv.point(Region {
        province: p,
        coast: f.coast,
    })
}

/// A land space's colour: its centre's owner (a minor's centre in its controller's lighter
/// colour); neutral without a centre or owner.
fn land_fill(v: &Variant, position: &Position, colours: &[&str], p: ProvinceId) -> String {
    if !v.province(p).centre {
        return LAND.into();
    }
    match position.owners[p.index()] {
        Some(owner) => match position.ledgers.controller(owner) {
            Some(major) if v.power(owner).kind == PowerKind::Minor => {
                tint(colours[major.index()], 0.72)
            }
            _ => tint(colours[owner.index()], 0.5),
        },
        None => LAND.into(),
    }
}

/// A force as its counts in a box of its power's colour.
fn token(out: &mut String, at: Point, f: &Force, colour: &str, dislodged: bool) {
    let text = spec_text(f.armies, f.fleets);
    let w = text_width(&text, UNIT_SIZE) + 5.0;
    let (stroke, width, dash) = if dislodged {
        ("#d00000", 1.6, " stroke-dasharray=\"2.5 1.5\"")
    } else {
        ("#000000", 0.8, "")
    };
    let _ = writeln!(
        out,
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{TOKEN_H}\" rx=\"2.5\" fill=\"{colour}\" stroke=\"{stroke}\" stroke-width=\"{width}\"{dash}/>\
         <text x=\"{}\" y=\"{}\" font-size=\"{UNIT_SIZE}\" text-anchor=\"middle\" fill=\"{}\">{}</text>",
        n(at.x - w / 2.0),
        n(at.y - TOKEN_H / 2.0),
        n(w),
        n(at.x),
        n(at.y + UNIT_SIZE * 0.36),
        ink(colour),
        escape(&text),
    );
}

/// Marks for what happened besides the orders: blockades held or broken, passages denied.
fn event(cv: &mut Canvas, e: &Event) {
    match e {
        Event::BlockadeHeld { power, centre, .. } | Event::BlockadeCut { power, centre, .. } => {
            let s = cv.shape(*centre);
            let code = &cv.v.province(*centre).code;
            let at = Point {
                x: s.label.x + text_width(code, LABEL_SIZE) / 2.0 + 7.0,
                y: s.label.y,
            };
            let colour = cv.colour(*power);
            cv.badge(at, "B", colour);
            if matches!(e, Event::BlockadeCut { .. }) {
                cv.cross(at, Result::Failed);
            }
        }
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
                cv.cross(m, Result::Failed);
            }
        }
        // Units disbanded for want of a retreat: crossed where their dislodged force stood.
        Event::Disbanded { at, .. } => {
            let p = cv.point(Region::of(*at));
            let p = Point {
                x: p.x + DISLODGED_OFFSET.x,
                y: p.y + DISLODGED_OFFSET.y,
            };
            cv.cross(p, Result::Void);
        }
        Event::Starved { .. } | Event::Winter(_) => {}
    }
}

fn legend_columns(width: f32) -> usize {
    ((width / 150.0) as usize).max(1)
}

/// The phase, each power's colour and centre count (a minor's controller beside it), and a key.
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
        if let Some(c) = position.ledgers.controller(p) {
            let _ = write!(text, " ({})", v.power(c).name);
        }
        let _ = writeln!(
            out,
            "<rect x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{}\" stroke=\"#000000\" stroke-width=\"0.8\"/>\
             <text x=\"{}\" y=\"{}\" font-size=\"9\" fill=\"#000000\">{}</text>",
            n(x),
            n(y),
            colours[p.index()],
            n(x + 14.0),
            n(y + 8.5),
            escape(&text)
        );
    }
    let key_y = top + 22.0 + v.powers.len().div_ceil(cols) as f32 * 15.0 + 8.0;
    let key = [
        "Beside each power: its centres (a minor's controller in brackets). Arrows: solid, move; \
         dashed, support; dotted, convoy or denial; dash-dot, embark or disembark.",
        "\u{2715}: failed (red) or void (black); red dashed box: dislodged; ring: built; \
         B: blockaded centre.",
    ];
    for (i, line) in key.iter().enumerate() {
        let _ = writeln!(
            out,
            "<text x=\"8\" y=\"{}\" font-size=\"8\" fill=\"#404040\">{line}</text>",
            n(key_y + i as f32 * 10.0)
        );
    }
}
