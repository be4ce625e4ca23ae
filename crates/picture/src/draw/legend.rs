//! The legend under the board: the phase, each power's colour and centres, and a key of the
//! marks.

use super::colour::OUTLINE;
use super::geometry::{text_width, Rect, MARK};
use super::orders::OrderResult;
use super::svg::{blockade_svg, cross_svg, escape, n, round_mark_svg};
use super::View;
use crate::shapes::{Board, Point};
use napjudge_engine::position::Position;
use napjudge_engine::turn::PhaseReport;
use napjudge_engine::variant::{PowerKind, Variant};
use std::fmt::Write;

pub(super) fn legend_columns(width: f32) -> usize {
    ((width / 150.0) as usize).max(1)
}

/// The phase, each power's colour and centre count (a minor's controller beside it), and a key
/// of the marks, each drawn as on the board.
pub(super) fn legend(
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
    // A unit's dashed outline: a dislodged unit (red) and a refused build (grey) are drawn so.
    let dashed_box = |out: &mut String, x: f32, stroke: &str, width: &str| {
        let r = Rect::centred(c(x, 14.0), 14.0, 10.0);
        let _ = writeln!(
            out,
            "<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"10\" rx=\"2\" fill=\"#ffffff\" stroke=\"{stroke}\" stroke-width=\"{width}\" stroke-dasharray=\"2.5 1.5\"/>",
            n(r.left),
            n(r.top)
        );
        r
    };
    cross_svg(out, c(x, 8.0), OrderResult::Failed);
    entry(out, &mut x, 8.0, "failed");
    cross_svg(out, c(x, 8.0), OrderResult::Void);
    entry(out, &mut x, 8.0, "void");
    dashed_box(out, x, "#d00000", "1.6");
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
    let r = dashed_box(out, x, "#8a8a8a", "1.4");
    cross_svg(out, r.centre(), OrderResult::Failed);
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
