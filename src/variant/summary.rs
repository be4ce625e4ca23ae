//! The board's summary printed by `napjudge variant show`.

use super::Variant;

/// A readable summary of the board.
pub fn summary(v: &Variant) -> String {
    format!("{} ({})\n", v.title, v.name)
}
