//! The chart of each power's centres year by year: an inline SVG, no script. A point at the
//! game's start, one after each Winter, and one for the phase now when it is not one of those.

use napjudge_engine::position::Position;
use napjudge_engine::variant::{PhaseKind, PowerId, Variant};
use napjudge_judge::PhaseRow;
use napjudge_picture as picture;
use std::fmt::Write;

fn count(v: &Variant, position: &Position, p: PowerId) -> usize {
    v.centres()
        .iter()
        .filter(|c| position.owners.get(c.index()) == Some(&Some(p)))
        .count()
}

/// The chart of the game whose live phases are `rows`, as SVG text (empty before any phase);
/// `ended`: the game is over, its last point is its end.
pub fn centres(v: &Variant, rows: &[PhaseRow], ended: bool) -> String {
    let Some(first) = rows.first() else {
        return String::new();
    };
    let mut points: Vec<(String, &Position)> = vec![("start".into(), &first.position)];
    for r in rows {
        if let Some(report) = &r.report {
            if matches!(
                r.position.phase.kind,
                PhaseKind::Adjustment | PhaseKind::Bids
            ) {
                points.push((r.position.phase.year.to_string(), &report.next));
            }
        }
    }
    // The centres taken since the last Winter, until the next one counts them (at the end, for
    // a game that ended).
    if let Some(last) = rows.last().filter(|r| r.report.is_none() && rows.len() > 1) {
        let label = if ended { "end" } else { "now" };
        points.push((label.into(), &last.position));
    }
    let colours = picture::power_colours(v);
    let series: Vec<(String, &str, Vec<usize>)> = v
        .power_ids()
        .map(|p| {
            let counts: Vec<usize> = points.iter().map(|(_, pos)| count(v, pos, p)).collect();
            let colour = colours.get(p.index()).copied().unwrap_or("#888");
            (v.power(p).name.clone(), colour, counts)
        })
        .filter(|(_, _, c)| c.iter().any(|&n| n > 0))
        .collect();
    let most = series
        .iter()
        .flat_map(|s| s.2.iter().copied())
        .max()
        .unwrap_or(0)
        .max(1);
    // Plot area: 40..580 across, 10..190 down, in a 600 x 220 box.
    let (left, right, top, bottom) = (40.0_f32, 580.0_f32, 10.0_f32, 190.0_f32);
    let step = if points.len() > 1 {
        (right - left) / (points.len() - 1) as f32
    } else {
        0.0
    };
    let x = |i: usize| left + step * i as f32;
    let y = |n: usize| bottom - (bottom - top) * n as f32 / most as f32;
    let mut svg = String::from(
        "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 600 220\" \
         role=\"img\" aria-label=\"Centres of each power, year by year\">\n",
    );
    for n in (0..=most).step_by(most.div_ceil(5).max(1)) {
        let _ = writeln!(
            svg,
            "<line x1=\"{left}\" x2=\"{right}\" y1=\"{0:.1}\" y2=\"{0:.1}\" stroke=\"#ddd\"/>\
             <text x=\"{1}\" y=\"{2:.1}\" font-size=\"10\" text-anchor=\"end\">{n}</text>",
            y(n),
            left - 4.0,
            y(n) + 3.0
        );
    }
    let label_every = points.len().div_ceil(10).max(1);
    for (i, (label, _)) in points.iter().enumerate().step_by(label_every) {
        let _ = writeln!(
            svg,
            "<text x=\"{:.1}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\">{label}</text>",
            x(i),
            bottom + 16.0
        );
    }
    for (name, colour, counts) in &series {
        let line: Vec<String> = counts
            .iter()
            .enumerate()
            .map(|(i, &n)| format!("{:.1},{:.1}", x(i), y(n)))
            .collect();
        // Each line on a dark edge: a light colour (Turkey's yellow) reads on the white too.
        let _ = writeln!(
            svg,
            "<polyline fill=\"none\" stroke=\"#333\" stroke-width=\"4\" points=\"{0}\"/>\
             <polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"2.5\" points=\"{0}\">\
             <title>{name}</title></polyline>",
            line.join(" ")
        );
    }
    svg.push_str("</svg>");
    svg
}
