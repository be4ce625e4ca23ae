//! The order parser (nom): one line of a player's mail into an [`Order`], or a precise error.

use super::{Order, Place};
use crate::variant::Variant;

/// Why a line is not an order.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: expected {expected}, found {found}")]
pub struct ParseError {
    /// The 1-based line number.
    pub line: usize,
    /// The 1-based column where the trouble starts.
    pub column: usize,
    /// What the parser expected there.
    pub expected: String,
    /// What it found (the rest of the line, or `end of line`).
    pub found: String,
}

/// A line of a mail that parsed as an order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedLine {
    /// The 1-based line number.
    pub line: usize,
    /// The order.
    pub order: Order<Place>,
}

/// Parses one order (without a line number: errors say line 1).
pub fn parse_line(variant: &Variant, text: &str) -> Result<Order<Place>, ParseError> {
    let _ = variant;
    Err(ParseError {
        line: 1,
        column: 1,
        expected: "an order".into(),
        found: text.into(),
    })
}

/// Parses every non-blank line of a mail body; each gives an order or an error.
pub fn parse_orders(variant: &Variant, body: &str) -> Vec<Result<ParsedLine, ParseError>> {
    body.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            parse_line(variant, l)
                .map(|order| ParsedLine { line: i + 1, order })
                .map_err(|e| ParseError { line: i + 1, ..e })
        })
        .collect()
}

/// Parses a unit or force alone: `F(NTH)`, `2A/F(Bre)`, `A Par`.
pub fn parse_unit(variant: &Variant, text: &str) -> Result<super::UnitSpec<Place>, ParseError> {
    let _ = variant;
    Err(ParseError {
        line: 1,
        column: 1,
        expected: "a unit".into(),
        found: text.into(),
    })
}

/// Parses a place alone: `Par`, `StP/nc`, `St Petersburg (north coast)`.
pub fn parse_place(variant: &Variant, text: &str) -> Result<Place, ParseError> {
    let _ = variant;
    Err(ParseError {
        line: 1,
        column: 1,
        expected: "a space".into(),
        found: text.into(),
    })
}
