//! The colours: each power's, the sea's and the land's, a power's land lightened, and a
//! controlled minor's stripes.

use super::svg::n;
use napjudge_engine::position::Position;
use napjudge_engine::variant::{PowerId, PowerKind, ProvinceId, Variant};
use std::fmt::Write;

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

pub(super) const SEA: &str = "#cfe3f0";
const LAND: &str = "#f1ead6";
pub(super) const DECOR: &str = "#cfcac0";
pub(super) const OUTLINE: &str = "#5a5a5a";

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
pub(super) fn shade(hex: &str, amount: f32) -> String {
    let (r, g, b) = rgb(hex);
    let m = |c: f32| (c * (1.0 - amount)).round() as u8;
    format!("#{:02x}{:02x}{:02x}", m(r), m(g), m(b))
}

/// The relative luminance of `hex` (WCAG 2.1, from sRGB).
fn luminance(hex: &str) -> f32 {
    let (r, g, b) = rgb(hex);
    let lin = |c: f32| {
        let c = c / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
}

/// The WCAG 2.1 contrast ratio of two colours, 1 to 21.
fn contrast(a: &str, b: &str) -> f32 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// Black or white, whichever contrasts more with `hex`: one of them always reaches 4.58:1,
/// above WCAG's 4.5:1 for text (a luma threshold put white on Austria's pink, 3.8:1).
pub(super) fn ink(hex: &str) -> &'static str {
    if contrast(hex, "#000000") >= contrast(hex, "#ffffff") {
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

/// The stripes of each controlled minor (R7.6): its colour and its controller's, on the land
/// (lighter) and in the legend's swatch alike.
pub(super) fn stripes(out: &mut String, v: &Variant, position: &Position, colours: &[&str]) {
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
            ("land", land_colour(own), land_colour(theirs), 7.0),
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

/// How far a power's colour is lightened for its land, at least.
const LAND_TINT: f32 = 0.5;

/// The colour of a land space's name.
pub(super) const LAND_INK: &str = "#3a3020";

/// A power's land: its colour mixed with white by [`LAND_TINT`], and further, by twentieths,
/// until the names on it have WCAG's 4.5:1 (Prussia's near-black half-tinted was a grey with
/// names at 3.4:1).
fn land_colour(hex: &str) -> String {
    let mut amount = LAND_TINT;
    let mut land = tint(hex, amount);
    while contrast(&land, LAND_INK) < 4.5 && amount < 1.0 {
        amount += 0.05;
        land = tint(hex, amount);
    }
    land
}

/// A land space's colour: its centre's owner, lighter (a controlled minor's centre striped with
/// its controller's colour); neutral without a centre or owner.
pub(super) fn land_fill(
    v: &Variant,
    position: &Position,
    colours: &[&str],
    p: ProvinceId,
) -> String {
    if !v.province(p).centre {
        return LAND.into();
    }
    match position.owners[p.index()] {
        Some(owner) => match position.ledgers.controller(owner) {
            Some(_) if v.power(owner).kind == PowerKind::Minor => {
                format!("url(#land-{})", owner.index())
            }
            _ => land_colour(colours[owner.index()]),
        },
        None => LAND.into(),
    }
}
