//! The order parser (nom): one line of a player's mail into an [`Order`], or a precise error.
//!
//! One grammar serves every notation of `docs/orders.md`: the judge's (`A Par-Bur`, `F NTH C A
//! Lon-Bre`) and the variant's parenthesised one (`A(Par)-Bur`, `A/3F(MAO)`). Places are read by
//! longest match against the board's names, so `Mid-Atlantic Ocean - Spain (nc)` and `A Par-Bur`
//! both split where a player means them to.
//!
//! This file holds the entry points; the grammar lives beside it: `orders` (what an order
//! orders), `units` (units, places and powers), `words` (keywords, names, numbers, coasts) and
//! `fail` (how a parse fails).

mod fail;
mod orders;
mod units;
mod words;

#[cfg(test)]
mod tests;

use super::{Order, Place, UnitSpec};
use crate::variant::{PowerId, Variant};
use fail::{failure, run, unknown};
use std::fmt;
use units::UNIT;
use words::{stage, ws0};

/// Why a line is not an order.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ParseError {
    /// The 1-based line number.
    pub line: usize,
    /// The 1-based column (in characters) where the trouble starts.
    pub column: usize,
    /// What the parser expected there.
    pub expected: String,
    /// What it found (the rest of the line, quoted, or `end of line`).
    pub found: String,
    /// A message that says more than "expected X, found Y" (`unknown space 'Burgandy' (did you
    /// mean Burgundy?)`); printed instead of it.
    pub hint: Option<String>,
}

impl ParseError {
    /// What is wrong, without where: for a caller that names the line and column in its own
    /// text (a mail's line, where the order may not start the line).
    pub fn message(&self) -> String {
        match &self.hint {
            Some(hint) => hint.clone(),
            None => format!("expected {}, found {}", self.expected, self.found),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line,
            self.column,
            self.message()
        )
    }
}

impl std::error::Error for ParseError {}

/// A line of a mail that parsed as an order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedLine {
    /// The 1-based line number.
    pub line: usize,
    /// The power the line names before a colon (`France: A(Par)-Bur`), if it does.
    pub power: Option<PowerId>,
    /// The order.
    pub order: Order<Place>,
}

/// Parses one order (without a line number: errors say line 1).
pub fn parse_line(variant: &Variant, text: &str) -> Result<Order<Place>, ParseError> {
    let p = Grammar { v: variant };
    run(text, |i| {
        let (i, _) = ws0(i)?;
        let (i, stage) = stage(i)?;
        let (i, _) = ws0(i)?;
        let (i, kind) = p.kind(i)?;
        Ok((i, Order { stage, kind }))
    })
}

/// Parses a unit or force alone: `F(NTH)`, `2A/F(Bre)`, `A Par`.
pub fn parse_unit(variant: &Variant, text: &str) -> Result<UnitSpec<Place>, ParseError> {
    let p = Grammar { v: variant };
    run(text, |i| match p.unit(i) {
        Err(nom::Err::Error(e)) => Err(failure(e.at, UNIT)),
        other => other,
    })
}

/// Parses a place alone: `Par`, `North Sea`, `StP/nc`, `Spa (sc)`.
pub fn parse_place(variant: &Variant, text: &str) -> Result<Place, ParseError> {
    let p = Grammar { v: variant };
    run(text, |i| match p.place(i) {
        Err(nom::Err::Error(e)) => Err(failure(e.at, "a space name")),
        other => other,
    })
}

/// Parses every line of a mail body that has an order: blank lines and `#` comments are skipped.
/// Each gives an order or an error.
pub fn parse_orders(variant: &Variant, body: &str) -> Vec<Result<ParsedLine, ParseError>> {
    parse_mail(variant, body, None)
}

/// How many lines' results [`parse_mail`] makes room for at once, at most.
const MAIL_LINES_RESERVED: usize = 64;

/// [`parse_orders`] for one power's mail: a line may start with a power's name and a colon
/// (`France: A(Par)-Bur`), which must be `power` when it is given.
pub fn parse_mail(
    variant: &Variant,
    body: &str,
    power: Option<PowerId>,
) -> Vec<Result<ParsedLine, ParseError>> {
    // Room for a sheet's lines at once (a line per newline, and one more): growing the vector
    // moves every order read so far, and orders are large (issue 35). Capped: a mail of blank
    // lines must not reserve room for an order a line.
    let lines = body.bytes().filter(|&b| b == b'\n').count() + 1;
    let mut out = Vec::with_capacity(lines.min(MAIL_LINES_RESERVED));
    out.extend(body.lines().enumerate().filter_map(|(i, l)| {
        let text = l.find('#').map_or(l, |hash| &l[..hash]);
        if text.trim().is_empty() {
            return None;
        }
        let at_line = |e: ParseError| ParseError { line: i + 1, ..e };
        Some(
            mail_line(variant, text, power)
                .map(|(named, order)| ParsedLine {
                    line: i + 1,
                    power: named,
                    order,
                })
                .map_err(at_line),
        )
    }));
    out
}

/// One line of a mail: the power named before a colon, if any, and the order.
fn mail_line(
    variant: &Variant,
    text: &str,
    power: Option<PowerId>,
) -> Result<(Option<PowerId>, Order<Place>), ParseError> {
    // `2: F(ENG)-NTH` is a stage, not a power.
    let prefix = text
        .split_once(':')
        .filter(|(name, _)| !name.trim().chars().all(|c| c.is_ascii_digit()));
    let Some((name, rest)) = prefix else {
        return parse_line(variant, text).map(|o| (None, o));
    };
    let shift = name.chars().count() + 1;
    let column = name.len() - name.trim_start().len() + 1;
    let fail = |hint: String| ParseError {
        line: 1,
        column,
        expected: "a power".into(),
        found: format!("'{}'", name.trim()),
        hint: Some(hint),
    };
    let Some(named) = variant.power_by_name(name.trim()) else {
        let suggestion = variant.suggest_power(name.trim()).map(str::to_string);
        return Err(fail(unknown("power", name.trim(), suggestion)));
    };
    if let Some(p) = power.filter(|&p| p != named) {
        return Err(fail(format!(
            "this line is for {}, but these are {}'s orders: send each power's orders apart",
            variant.power(named).name,
            variant.power(p).name
        )));
    }
    parse_line(variant, rest)
        .map(|o| (Some(named), o))
        .map_err(|e| ParseError {
            column: e.column + shift,
            ..e
        })
}

/// The grammar, over one board's names.
struct Grammar<'v> {
    v: &'v Variant,
}
