//! Sizes and boxes in the board's frame: font sizes, how wide a text is set, a name's box and its
//! centre's dot, a unit box's width.

use crate::shapes::{Point, Shape};
use napjudge_engine::variant::{ProvinceId, Variant};

/// Font sizes in board units: the board's frame is about 900 to 1000 wide and the PNG twice that.
pub(super) const LABEL_SIZE: f32 = 8.0;
pub(super) const UNIT_SIZE: f32 = 9.0;
pub(super) const TOKEN_H: f32 = 12.0;
/// How far a dislodged force is drawn from its space's unit point.
pub(super) const DISLODGED_OFFSET: Point = Point { x: 10.0, y: 13.0 };

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
pub(super) fn text_width(text: &str, size: f32) -> f32 {
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

/// The width of a unit box holding `text`.
pub(super) fn token_width(text: &str) -> f32 {
    text_width(text, UNIT_SIZE) + 5.0
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
    pub(super) fn centred(at: Point, w: f32, h: f32) -> Rect {
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

    pub(super) fn grown(&self, by: f32) -> Rect {
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

    pub(super) fn width(&self) -> f32 {
        self.right - self.left
    }

    pub(super) fn height(&self) -> f32 {
        self.bottom - self.top
    }
}

/// The gap kept between a unit box or mark and a name.
pub(super) const NAME_GAP: f32 = 1.0;
/// How large a cross (with its white halo) and a round mark are.
pub(super) const CROSS: f32 = 11.0;
pub(super) const MARK: f32 = 10.0;

/// A name's box: the letters as set at the label point (ascender to descender), with the centre's
/// dot before them.
pub(super) fn name_box(v: &Variant, s: &Shape, p: ProvinceId) -> Rect {
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
pub(super) fn dot_at(label: Point, half: f32) -> Point {
    Point {
        x: label.x - half - 4.0,
        y: label.y,
    }
}
