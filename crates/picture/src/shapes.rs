//! The board's shapes: one polygon set per space, read from the constrained SVG beside each
//! variant (`variant/NAME.svg`, format in `docs/map-format.md`) by a line reader, and checked
//! against the variant (every space one shape; neighbours touch; points inside their shape).

use napjudge_engine::variant::{Coast, ProvinceId, SpaceKind, Variant};

/// A point in the board's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// Left to right.
    pub x: f32,
    /// Top to bottom.
    pub y: f32,
}

/// One closed polygon (the last point joins the first).
pub type Ring = Vec<Point>;

/// What a path is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// A land space (inland or coastal).
    Land,
    /// A sea space.
    Sea,
}

/// A space's shape.
#[derive(Clone, Debug, PartialEq)]
pub struct Shape {
    /// The space's code as the variant file writes it.
    pub id: String,
    /// Land or sea.
    pub class: Class,
    /// Its polygons (islands and parts each a ring).
    pub rings: Vec<Ring>,
    /// Where its units are drawn.
    pub unit: Point,
    /// Where its name is written.
    pub label: Point,
    /// Where a fleet on each coast is drawn.
    pub coasts: Vec<(Coast, Point)>,
    /// The line of the file it was read from.
    pub line: usize,
}

impl Shape {
    /// Where a fleet on `coast` is drawn (the unit point when the shape has no such coast).
    pub fn coast_point(&self, coast: Coast) -> Point {
        self.coasts
            .iter()
            .find(|(c, _)| *c == coast)
            .map_or(self.unit, |&(_, p)| p)
    }

    /// Whether `p` lies inside the shape (even-odd over all its rings).
    pub fn contains(&self, p: Point) -> bool {
        let mut inside = false;
        for ring in &self.rings {
            for (a, b) in segments(ring) {
                if (a.y > p.y) != (b.y > p.y) && p.x < a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y)
                {
                    inside = !inside;
                }
            }
        }
        inside
    }

    /// Whether some vertex of either shape's outline is within `tolerance` of the other's.
    pub fn touches(&self, other: &Shape, tolerance: f32) -> bool {
        near(self, other, tolerance) || near(other, self, tolerance)
    }
}

fn segments(ring: &Ring) -> impl Iterator<Item = (Point, Point)> + '_ {
    ring.iter()
        .zip(ring.iter().cycle().skip(1))
        .map(|(&a, &b)| (a, b))
}

fn distance_to_segment(p: Point, a: Point, b: Point) -> f32 {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let len2 = dx * dx + dy * dy;
    let t = if len2 == 0.0 {
        0.0
    } else {
        (((p.x - a.x) * dx + (p.y - a.y) * dy) / len2).clamp(0.0, 1.0)
    };
    let (cx, cy) = (a.x + t * dx - p.x, a.y + t * dy - p.y);
    (cx * cx + cy * cy).sqrt()
}

/// Whether a vertex of `a` is within `tolerance` of a segment of `b`.
fn near(a: &Shape, b: &Shape, tolerance: f32) -> bool {
    a.rings.iter().flatten().any(|&p| {
        b.rings.iter().any(|ring| {
            segments(ring).any(|(s, t)| {
                // The segment's box, widened by the tolerance, rules most pairs out cheaply.
                p.x >= s.x.min(t.x) - tolerance
                    && p.x <= s.x.max(t.x) + tolerance
                    && p.y >= s.y.min(t.y) - tolerance
                    && p.y <= s.y.max(t.y) + tolerance
                    && distance_to_segment(p, s, t) <= tolerance
            })
        })
    })
}

/// A board's shapes as read.
#[derive(Clone, Debug, PartialEq)]
pub struct Board {
    /// The frame's width.
    pub width: f32,
    /// The frame's height.
    pub height: f32,
    /// The spaces' shapes, in file order.
    pub shapes: Vec<Shape>,
    /// Drawn but not spaces (impassable land, land off the board), in file order.
    pub decor: Vec<Vec<Ring>>,
}

/// Why a shapes file can't be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    /// A line that is not one of the format's elements.
    #[error("line {line}: {what} (see docs/map-format.md: one <path .../> per line)")]
    Syntax {
        /// The line.
        line: usize,
        /// What is wrong.
        what: String,
    },
    /// No `<svg ... viewBox="0 0 W H">` line before the paths.
    #[error("line {line}: the file must open with <svg ... viewBox=\"0 0 W H\">")]
    NoFrame {
        /// The line.
        line: usize,
    },
}

fn syntax(line: usize, what: impl Into<String>) -> ShapeError {
    ShapeError::Syntax {
        line,
        what: what.into(),
    }
}

/// The `name="value"` pairs of an element, in order (values hold no quotes: the format has no
/// entities).
fn attributes(line: usize, text: &str) -> Result<Vec<(&str, &str)>, ShapeError> {
    let mut out = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let (name, after) = rest
            .split_once("=\"")
            .ok_or_else(|| syntax(line, format!("cannot read the attributes at '{rest}'")))?;
        let (value, after) = after
            .split_once('"')
            .ok_or_else(|| syntax(line, format!("the value of {} has no closing quote", name)))?;
        out.push((name.trim(), value));
        rest = after.trim_start();
    }
    Ok(out)
}

fn number(line: usize, text: &str) -> Result<f32, ShapeError> {
    text.parse::<f32>()
        .ok()
        .filter(|n| n.is_finite())
        .ok_or_else(|| syntax(line, format!("'{text}' is not a number")))
}

fn point(line: usize, name: &str, text: &str) -> Result<Point, ShapeError> {
    let mut it = text.split_whitespace();
    match (it.next(), it.next(), it.next()) {
        (Some(x), Some(y), None) => Ok(Point {
            x: number(line, x)?,
            y: number(line, y)?,
        }),
        _ => Err(syntax(line, format!("{name} must be two numbers \"x y\""))),
    }
}

/// Reads `M x y L x y ... Z` rings.
fn rings(line: usize, d: &str) -> Result<Vec<Ring>, ShapeError> {
    let mut out: Vec<Ring> = Vec::new();
    let mut open: Option<Ring> = None;
    let mut words = d.split_whitespace();
    while let Some(w) = words.next() {
        match w {
            "M" | "L" => {
                let (Some(x), Some(y)) = (words.next(), words.next()) else {
                    return Err(syntax(line, format!("d: {w} needs x and y")));
                };
                let p = Point {
                    x: number(line, x)?,
                    y: number(line, y)?,
                };
                match (w, &mut open) {
                    ("M", None) => open = Some(vec![p]),
                    ("L", Some(ring)) => ring.push(p),
                    ("M", Some(_)) => {
                        return Err(syntax(line, "d: a ring must end with Z before M"))
                    }
                    _ => return Err(syntax(line, "d: L before any M")),
                }
            }
            "Z" => match open.take() {
                Some(ring) if ring.len() >= 3 => out.push(ring),
                Some(_) => return Err(syntax(line, "d: a ring needs at least three points")),
                None => return Err(syntax(line, "d: Z without a ring")),
            },
            other => {
                return Err(syntax(
                    line,
                    format!("d: '{other}' (only absolute M, L and Z are allowed)"),
                ))
            }
        }
    }
    if open.is_some() || out.is_empty() {
        return Err(syntax(line, "d: every ring must end with Z"));
    }
    Ok(out)
}

/// Reads a shapes file.
pub fn parse(text: &str) -> Result<Board, ShapeError> {
    let mut frame: Option<(f32, f32)> = None;
    let mut shapes = Vec::new();
    let mut decor = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim();
        if l.is_empty() || l == "</svg>" || (l.starts_with("<!--") && l.ends_with("-->")) {
            continue;
        }
        if let Some(rest) = l.strip_prefix("<svg ") {
            let attrs = attributes(line, rest.trim_end_matches('>'))?;
            let view = attrs
                .iter()
                .find(|(n, _)| *n == "viewBox")
                .ok_or(ShapeError::NoFrame { line })?;
            let nums: Vec<f32> = view
                .1
                .split_whitespace()
                .map(|n| number(line, n))
                .collect::<Result<_, _>>()?;
            match nums[..] {
                [0.0, 0.0, w, h] if w > 0.0 && h > 0.0 => frame = Some((w, h)),
                _ => return Err(ShapeError::NoFrame { line }),
            }
            continue;
        }
        let body = l
            .strip_prefix("<path ")
            .and_then(|b| b.strip_suffix("/>"))
            .ok_or_else(|| syntax(line, format!("not a <path .../> element: '{l}'")))?;
        if frame.is_none() {
            return Err(ShapeError::NoFrame { line });
        }
        let attrs = attributes(line, body)?;
        let get = |name: &str| attrs.iter().find(|(n, _)| *n == name).map(|&(_, v)| v);
        let d = rings(
            line,
            get("d").ok_or_else(|| syntax(line, "a path needs d"))?,
        )?;
        let class = match get("class") {
            Some("land") => Class::Land,
            Some("sea") => Class::Sea,
            Some("decor") => {
                if let Some((n, _)) = attrs.iter().find(|(n, _)| *n != "class" && *n != "d") {
                    return Err(syntax(line, format!("a decor path has no {n}")));
                }
                decor.push(d);
                continue;
            }
            other => {
                return Err(syntax(
                    line,
                    format!(
                        "class must be land, sea or decor, not '{}'",
                        other.unwrap_or("")
                    ),
                ))
            }
        };
        let id = get("id").ok_or_else(|| syntax(line, "a land or sea path needs an id"))?;
        let need = |name: &str| {
            get(name)
                .ok_or_else(|| syntax(line, format!("{id} has no {name}")))
                .and_then(|v| point(line, name, v))
        };
        let mut coasts = Vec::new();
        for &(name, value) in &attrs {
            let known = ["id", "class", "d", "data-unit", "data-label"];
            if known.contains(&name) {
                continue;
            }
            let coast = name
                .strip_prefix("data-coast-")
                .and_then(Coast::parse)
                .ok_or_else(|| syntax(line, format!("unknown attribute {name}")))?;
            coasts.push((coast, point(line, name, value)?));
        }
        shapes.push(Shape {
            id: id.to_string(),
            class,
            rings: d,
            unit: need("data-unit")?,
            label: need("data-label")?,
            coasts,
            line,
        });
    }
    let (width, height) = frame.ok_or(ShapeError::NoFrame { line: 1 })?;
    Ok(Board {
        width,
        height,
        shapes,
        decor,
    })
}

/// Where a board's shapes disagree with its variant.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    /// A space of the variant without a shape.
    #[error("{0} has no shape")]
    Missing(String),
    /// A shape whose id names no space.
    #[error("line {line}: {id} is not a space of the variant")]
    Unknown {
        /// The id.
        id: String,
        /// The line.
        line: usize,
    },
    /// Two shapes with one id.
    #[error("line {line}: a second shape for {id}")]
    Duplicate {
        /// The id.
        id: String,
        /// The line of the second.
        line: usize,
    },
    /// A land space drawn as sea, or the reverse.
    #[error("{0}: the class (land or sea) is not the space's kind")]
    Class(String),
    /// Neighbours in the variant whose shapes don't touch.
    #[error("{a} and {b} are adjacent ({by}) but their shapes don't touch")]
    Apart {
        /// One space.
        a: String,
        /// The other.
        b: String,
        /// `army` or `fleet`.
        by: &'static str,
    },
    /// A point outside its own shape.
    #[error("{id}: {what} is outside the shape")]
    Outside {
        /// The space.
        id: String,
        /// `data-unit`, `data-label`, `data-coast-nc`.
        what: String,
    },
    /// A coast of the variant without a point, or a point for a coast the space lacks.
    #[error("{id}: {what}")]
    Coast {
        /// The space.
        id: String,
        /// What is wrong.
        what: String,
    },
}

/// How close two neighbours' outlines must come (shapes-format.md).
pub const TOUCH: f32 = 1.0;

impl Board {
    /// Each space's shape, by space index, or what does not fit the variant.
    pub fn for_variant<'a>(&'a self, v: &Variant) -> Result<Vec<&'a Shape>, Vec<Problem>> {
        let mut slots: Vec<Option<&Shape>> = vec![None; v.provinces.len()];
        let mut problems = Vec::new();
        for s in &self.shapes {
            let Some(p) = v.province_ids().find(|&p| v.province(p).code == s.id) else {
                problems.push(Problem::Unknown {
                    id: s.id.clone(),
                    line: s.line,
                });
                continue;
            };
            let slot = &mut slots[p.index()];
            if slot.is_some() {
                problems.push(Problem::Duplicate {
                    id: s.id.clone(),
                    line: s.line,
                });
            }
            slot.get_or_insert(s);
        }
        let mut found = Vec::with_capacity(slots.len());
        for (p, slot) in v.province_ids().zip(slots) {
            match slot {
                Some(s) => found.push(s),
                None => problems.push(Problem::Missing(v.province(p).code.clone())),
            }
        }
        if problems.is_empty() {
            Ok(found)
        } else {
            Err(problems)
        }
    }

    /// Everything where the shapes disagree with the variant: a space without exactly one shape
    /// or a shape without a space, an army or fleet edge (not a passage) whose shapes don't
    /// touch, a point outside its shape, a coast without its point.
    pub fn problems(&self, v: &Variant) -> Vec<Problem> {
        let shapes = match self.for_variant(v) {
            Ok(s) => s,
            Err(problems) => return problems,
        };
        let mut problems = Vec::new();
        let shape = |p: ProvinceId| shapes[p.index()];
        for p in v.province_ids() {
            let (prov, s) = (v.province(p), shape(p));
            let sea = prov.kind == SpaceKind::Sea;
            if sea != (s.class == Class::Sea) {
                problems.push(Problem::Class(s.id.clone()));
            }
            let points = [
                ("data-unit".to_string(), s.unit),
                ("data-label".into(), s.label),
            ];
            let coasts = s
                .coasts
                .iter()
                .map(|(c, pt)| (format!("data-coast-{}", c.code()), *pt));
            for (what, pt) in points.into_iter().chain(coasts) {
                if !s.contains(pt) {
                    problems.push(Problem::Outside {
                        id: s.id.clone(),
                        what,
                    });
                }
            }
            for c in &prov.coasts {
                if !s.coasts.iter().any(|(k, _)| k == c) {
                    problems.push(Problem::Coast {
                        id: s.id.clone(),
                        what: format!("no data-coast-{} for its {}", c.code(), c.words()),
                    });
                }
            }
            for (k, _) in &s.coasts {
                if !prov.coasts.contains(k) {
                    problems.push(Problem::Coast {
                        id: s.id.clone(),
                        what: format!("data-coast-{}: the space has no {}", k.code(), k.words()),
                    });
                }
            }
        }
        let mut edges: Vec<(ProvinceId, ProvinceId, &'static str)> = Vec::new();
        for a in v.province_ids() {
            for b in v.army_adj[a.index()].iter().filter(|&b| a < b) {
                edges.push((a, b, "army"));
            }
        }
        for &(a, b) in &v.fleet_edges {
            let (a, b) = (a.province, b.province);
            if a < b && !edges.iter().any(|&(x, y, _)| x == a && y == b) {
                edges.push((a, b, "fleet"));
            }
        }
        for (a, b, by) in edges {
            if !shape(a).touches(shape(b), TOUCH) {
                problems.push(Problem::Apart {
                    a: shape(a).id.clone(),
                    b: shape(b).id.clone(),
                    by,
                });
            }
        }
        problems
    }
}

/// The shapes shipped for the built-in variants, by variant name.
const BOARDS: &[(&str, &str)] = &[
    (
        "napoleonic",
        include_str!("../../../variant/napoleonic.svg"),
    ),
    ("standard", include_str!("../../../variant/standard.svg")),
];

/// The shapes of a built-in variant (`napoleonic`, `standard`), read from the file embedded at
/// build time; `None` for a variant that has none.
pub fn builtin(variant: &str) -> Option<Result<Board, ShapeError>> {
    BOARDS
        .iter()
        .find(|(name, _)| *name == variant)
        .map(|(_, text)| parse(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(x: f32, y: f32, side: f32) -> Ring {
        vec![
            Point { x, y },
            Point { x: x + side, y },
            Point {
                x: x + side,
                y: y + side,
            },
            Point { x, y: y + side },
        ]
    }

    fn shape(rings: Vec<Ring>) -> Shape {
        Shape {
            id: "X".into(),
            class: Class::Land,
            rings,
            unit: Point { x: 0.0, y: 0.0 },
            label: Point { x: 0.0, y: 0.0 },
            coasts: Vec::new(),
            line: 1,
        }
    }

    /// shapes-format.md rule 3: even-odd over all rings (an island ring inside counts as a hole).
    #[test]
    fn contains_is_even_odd_over_rings() {
        let s = shape(vec![square(0.0, 0.0, 10.0), square(3.0, 3.0, 2.0)]);
        assert!(s.contains(Point { x: 1.0, y: 1.0 }));
        assert!(!s.contains(Point { x: 4.0, y: 4.0 }));
        assert!(!s.contains(Point { x: 11.0, y: 1.0 }));
    }

    /// shapes-format.md rule 2: within 1.0 unit touches, 1.5 apart does not.
    #[test]
    fn touching_is_within_the_tolerance() {
        let a = shape(vec![square(0.0, 0.0, 10.0)]);
        let b = shape(vec![square(10.8, 2.0, 5.0)]);
        let c = shape(vec![square(11.5, 2.0, 5.0)]);
        assert!(a.touches(&b, TOUCH));
        assert!(!a.touches(&c, TOUCH));
    }

    /// The format's errors name the line.
    #[test]
    fn a_broken_path_names_its_line() {
        let text = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 10 10\">\n\
                    <path id=\"A\" class=\"land\" d=\"M 0 0 L 1 0 L 1 1\" data-unit=\"0 0\" data-label=\"0 0\"/>\n";
        let err = parse(text).expect_err("no Z");
        assert!(matches!(err, ShapeError::Syntax { line: 2, .. }), "{err}");
    }
}
