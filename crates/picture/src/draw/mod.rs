//! A position, and optionally a phase's orders with their outcomes, drawn as an SVG string: a
//! pure function of its inputs (no I/O), so the same position always gives the same picture.
//!
//! This file lays the board out in its layers; beside it are the colours (`colour`), sizes and
//! boxes (`geometry`), the SVG of each part (`svg`), the canvas that places things and draws
//! arrows (`canvas`), a phase's orders and events (`orders`) and the legend (`legend`).

mod canvas;
mod colour;
mod geometry;
mod legend;
mod orders;
mod svg;

pub use colour::power_colours;
pub use geometry::Rect;

use crate::shapes::{Board, Class, Point, Problem};
use canvas::Canvas;
use colour::{land_fill, stripes, DECOR, LAND_INK, OUTLINE, SEA};
use geometry::{dot_at, name_box, text_width, token_width, LABEL_SIZE, TOKEN_H};
use legend::{legend, legend_columns};
use napjudge_engine::order::{spec_text, Stage};
use napjudge_engine::outcome::Event;
use napjudge_engine::position::Position;
use napjudge_engine::turn::PhaseReport;
use napjudge_engine::variant::{ProvinceId, Variant};
use orders::{drawable, event, unit_title, OrderResult};
use std::fmt::Write;
use svg::{blockade_svg, escape, n, ring_path, token};

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

/// Draws `position` on `board` (with `report`'s orders, when given) as a standalone SVG.
pub fn draw(
    v: &Variant,
    board: &Board,
    position: &Position,
    report: Option<&PhaseReport>,
    view: View,
) -> Result<String, DrawError> {
    drawing(v, board, position, report, view).map(|d| d.svg)
}

/// [`draw`] for the web: each unit box after a phase carries a `<title>`, its order and outcome,
/// which a browser shows on hover or tap. The mails' pictures are drawn without (a PNG has no
/// use for it, and the mails stay as they were).
pub fn draw_titled(
    v: &Variant,
    board: &Board,
    position: &Position,
    report: Option<&PhaseReport>,
    view: View,
) -> Result<String, DrawError> {
    drawn(v, board, position, report, view, true).map(|d| d.svg)
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
) -> Result<Drawing, DrawError> {
    drawn(v, board, position, report, view, false)
}

/// [`drawing`], with each unit's `<title>` when `titled`.
fn drawn(
    v: &Variant,
    board: &Board,
    position: &Position,
    report: Option<&PhaseReport>,
    view: View,
    titled: bool,
) -> Result<Drawing, DrawError> {
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
            LAND_INK
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
    // blockader's colour, broken ones crossed); else the season's blockades still in play (a
    // movement phase followed by a retreat reports them only once the season ends, yet they held
    // or broke in it); else as the position has them for the year.
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
    for b in &position.blockades {
        if !blockades.iter().any(|&(q, _, _)| q == b.centre) {
            blockades.push((b.centre, cv.colour(b.power), !b.held));
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
            cv.cross(r.centre(), OrderResult::Failed);
        }
    }
    // The forces, then the dislodged ones beside their space's.
    let mut tokens = String::new();
    for (p, f) in position.forces() {
        let s = cv.shape(p);
        let at = f.coast.map_or(s.unit, |c| s.coast_point(c));
        let text = spec_text(f.armies, f.fleets);
        let r = cv.place(Item::Unit(p), at, token_width(&text), TOKEN_H, Some(p));
        let title = report
            .filter(|_| titled)
            .and_then(|rep| unit_title(v, rep, f.power, p));
        token(
            &mut tokens,
            r,
            &text,
            cv.colour(f.power),
            false,
            title.as_deref(),
        );
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
        let title = report
            .filter(|_| titled)
            .and_then(|rep| unit_title(v, rep, d.force.power, d.province))
            .map(|t| format!("{t}\n(dislodged)"));
        token(
            &mut tokens,
            r,
            &text,
            cv.colour(d.force.power),
            true,
            title.as_deref(),
        );
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
            cv.order(s.power, &s.order, OrderResult::of(&s.outcome));
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
