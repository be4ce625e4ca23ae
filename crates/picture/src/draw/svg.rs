//! The SVG written for the board's parts: numbers as the shapes write them, escaped text, a
//! shape's path, a force's box, the marks (crosses, builds and removals, blockades).

use super::colour::ink;
use super::geometry::{Rect, MARK, UNIT_SIZE};
use super::orders::OrderResult;
use crate::shapes::{Point, Ring};
use std::fmt::Write;

/// One decimal, as the shapes are written.
pub(super) fn n(x: f32) -> String {
    let s = format!("{:.1}", x);
    if s == "-0.0" {
        "0.0".into()
    } else {
        s
    }
}

pub(super) fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

pub(super) fn ring_path(out: &mut String, rings: &[Ring]) {
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

/// A force as its counts in its box, of its power's colour; with `title`, grouped under a
/// `<title>` a browser shows on hover or tap (resvg draws no title: the PNG is the same).
pub(super) fn token(
    out: &mut String,
    r: Rect,
    text: &str,
    colour: &str,
    dislodged: bool,
    title: Option<&str>,
) {
    if let Some(t) = title {
        let _ = write!(out, "<g><title>{}</title>", escape(t));
    }
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
    if title.is_some() {
        out.push_str("</g>\n");
    }
}

/// The cross of a failed (red) or void (black) order, on a white halo.
pub(super) fn cross_svg(out: &mut String, at: Point, result: OrderResult) {
    let colour = if result == OrderResult::Failed {
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
pub(super) fn round_mark_svg(out: &mut String, c: Point, plus: bool, auto: bool) {
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
pub(super) fn blockade_svg(out: &mut String, r: Rect, colour: &str) {
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
