//! The nouns of an order: a unit or force as written, the place it names (bare or in
//! parentheses, with its coast) and powers by name, each read against the board.

use super::fail::{failure, failure_hint, mismatch, quote_rest, unknown, Fail, Res};
use super::words::{coast, count, keyword, longest, unknown_name, ws0, ARMY_WORDS, FLEET_WORDS};
use super::Grammar;
use crate::order::display::unit_name;
use crate::order::{Place, UnitSpec};
use crate::variant::{spec_text, Lookup, PowerId, Region, Variant};
use nom::character::complete::digit1;
use std::fmt;

/// What the parser expects where a unit should start.
pub(super) const UNIT: &str = "a unit (A, F, 2A, A/F...)";

/// A unit as a message prints it (its canonical form).
pub(super) struct Quote<'v, 'u>(&'v Variant, &'u UnitSpec<Place>);

impl fmt::Display for Quote<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&unit_name(self.1, self.0))
    }
}

impl Grammar<'_> {
    /// How a unit is quoted in messages: its canonical form.
    /// Written only when a message needs it: most lines parse, and printing a unit looks its
    /// names up.
    pub(super) fn quote<'u>(&self, unit: &'u UnitSpec<Place>) -> Quote<'_, 'u> {
        Quote(self.v, unit)
    }

    /// A power by name or alias, longest match.
    pub(super) fn power<'a>(&self, i: &'a str) -> Res<'a, PowerId> {
        let (i, _) = ws0(i)?;
        if let Some((end, p)) = longest(i, |s| self.v.power_by_name(s)) {
            return Ok((&i[end..], p));
        }
        match unknown_name(i, |s| self.v.suggest_power(s).map(str::to_string)) {
            None => Err(failure(i, "a power")),
            Some((name, suggestion)) => Err(failure_hint(
                i,
                "a power",
                Some(format!("'{name}'")),
                unknown("power", name, suggestion),
            )),
        }
    }

    /// A unit or force: count and type, then its place in parentheses or after a blank. A
    /// recoverable error when the text does not start like a unit.
    pub(super) fn unit<'a>(&self, i: &'a str) -> Res<'a, UnitSpec<Place>> {
        let (i, _) = ws0(i)?;
        let start = i;
        let (i, digits) = match digit1::<_, Fail>(i) {
            Ok((rest, d)) => (ws0(rest)?.0, Some(d)),
            Err(_) => (i, None),
        };
        let (i, army) = match keyword(i, ARMY_WORDS) {
            Ok((rest, _)) => (rest, true),
            Err(_) => match keyword(i, FLEET_WORDS) {
                Ok((rest, _)) => (rest, false),
                Err(_) if digits.is_some() => {
                    return Err(failure(i, "a unit type (A or F) after the count"))
                }
                Err(e) => return Err(e),
            },
        };
        let n = count(start, digits)?;
        let (armies, mut fleets) = if army { (n, 0) } else { (0, n) };
        let (i, _) = ws0(i)?;
        let i = match (army, i.strip_prefix('/')) {
            (true, Some(rest)) => {
                let (rest, _) = ws0(rest)?;
                let (after, digits) = match digit1::<_, Fail>(rest) {
                    Ok((after, d)) => (ws0(after)?.0, Some(d)),
                    Err(_) => (rest, None),
                };
                let (after, _) = keyword(after, FLEET_WORDS)
                    .map_err(|_| failure(after, "F (the fleets carrying the army)"))?;
                fleets = count(rest, digits)?;
                after
            }
            _ => i,
        };
        let (rest, at) = match self.place(i) {
            Err(nom::Err::Error(_)) => {
                let spec = spec_text(armies, fleets);
                return Err(failure_hint(
                    i,
                    "a space name",
                    None,
                    format!(
                        "expected the space of the unit after '{spec}', found {}",
                        quote_rest(i)
                    ),
                ));
            }
            other => other?,
        };
        Ok((rest, UnitSpec { armies, fleets, at }))
    }

    /// A unit, or a bare place when the unit's type is left out (`S Par-Pic`): then the spec has no
    /// armies and no fleets.
    pub(super) fn unit_or_place<'a>(
        &self,
        i: &'a str,
        hint: impl FnOnce() -> String,
    ) -> Res<'a, UnitSpec<Place>> {
        let (i, _) = ws0(i)?;
        match self.unit(i) {
            Err(nom::Err::Error(_)) => {}
            other => return other,
        }
        match self.place(i) {
            Ok((rest, at)) => Ok((
                rest,
                UnitSpec {
                    armies: 0,
                    fleets: 0,
                    at,
                },
            )),
            Err(nom::Err::Error(_)) if i.is_empty() => Err(failure_hint(i, UNIT, None, hint())),
            Err(nom::Err::Error(_)) => Err(failure(i, UNIT)),
            Err(e) => Err(e),
        }
    }

    /// A place where the order needs one; `hint` says what is missing when the line ends.
    pub(super) fn destination<'a>(
        &self,
        i: &'a str,
        hint: impl FnOnce() -> String,
    ) -> Res<'a, Place> {
        let (i, _) = ws0(i)?;
        match self.place(i) {
            Err(nom::Err::Error(_)) if i.is_empty() => {
                Err(failure_hint(i, "a space name", None, hint()))
            }
            Err(nom::Err::Error(_)) => Err(failure(i, "a space name")),
            other => other,
        }
    }

    /// A place, bare or in parentheses, with its coast. A recoverable error when no name starts
    /// here; a committed one when a name does but the board does not know it.
    pub(super) fn place<'a>(&self, i: &'a str) -> Res<'a, Place> {
        let (i, _) = ws0(i)?;
        let Some(inner) = i.strip_prefix('(') else {
            return self.bare_place(i);
        };
        let (inner, _) = ws0(inner)?;
        let (rest, place) = self.bare_place(inner)?;
        let (rest, _) = ws0(rest)?;
        match rest.strip_prefix(')') {
            Some(rest) => Ok((rest, place)),
            None => Err(failure(rest, "')'")),
        }
    }

    /// A name (longest match) and its coast.
    fn bare_place<'a>(&self, i: &'a str) -> Res<'a, Place> {
        let found = longest(i, |s| match self.v.find(s)? {
            [one] => Some(Place::Known(Region::of(*one))),
            // A name written exactly as one space's code is that space (`BAL`, as the map
            // prints the Baltic Sea); written otherwise (`Bal`) it may be any of them.
            options => match options.iter().find(|&&p| self.v.province(p).code == s) {
                Some(&coded) => Some(Place::Known(Region::of(coded))),
                None => Some(Place::Ambiguous {
                    name: s.to_string(),
                    options: options.to_vec(),
                    coast: None,
                }),
            },
        });
        let Some((end, mut place)) = found else {
            return Err(self.unknown_place(i));
        };
        // Bare coast words (`Spa sc`) only where a coast can be meant: `S` after `Par` is support.
        let coasts_possible = match &place {
            Place::Known(r) => !self.v.province(r.province).coasts.is_empty(),
            Place::Ambiguous { .. } => true,
        };
        let (rest, written) = coast(&i[end..], coasts_possible)?;
        match &mut place {
            Place::Known(r) => r.coast = written,
            Place::Ambiguous { coast, .. } => *coast = written,
        }
        Ok((rest, place))
    }

    /// The error for a name the board does not know (recoverable when there is no name at all).
    fn unknown_place<'a>(&self, i: &'a str) -> nom::Err<Fail<'a>> {
        let suggest = |s: &str| match self.v.lookup(s) {
            Lookup::Unknown { suggestion } => suggestion,
            _ => None,
        };
        match unknown_name(i, suggest) {
            None => mismatch(i),
            Some((name, suggestion)) => failure_hint(
                i,
                "a space name",
                Some(format!("'{name}'")),
                unknown("space", name, suggestion),
            ),
        }
    }
}
