//! The order parser (nom): one line of a player's mail into an [`Order`], or a precise error.
//!
//! One grammar serves every notation of `docs/orders.md`: the judge's (`A Par-Bur`, `F NTH C A
//! Lon-Bre`) and the variant's parenthesised one (`A(Par)-Bur`, `A/3F(MAO)`). Places are read by
//! longest match against the board's names, so `Mid-Atlantic Ocean - Spain (nc)` and `A Par-Bur`
//! both split where a player means them to.

use super::display::{unit_name, PlaceName};
use super::{Order, OrderKind, Place, Stage, UnitSpec};
use crate::variant::{spec_text, Coast, Lookup, PowerId, Region, Variant};
use nom::bytes::complete::{tag, tag_no_case, take_while};
use nom::character::complete::digit1;
use nom::{IResult, Parser};
use std::fmt;

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

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}: ", self.line, self.column)?;
        match &self.hint {
            Some(hint) => f.write_str(hint),
            None => write!(f, "expected {}, found {}", self.expected, self.found),
        }
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

/// [`parse_orders`] for one power's mail: a line may start with a power's name and a colon
/// (`France: A(Par)-Bur`), which must be `power` when it is given.
pub fn parse_mail(
    variant: &Variant,
    body: &str,
    power: Option<PowerId>,
) -> Vec<Result<ParsedLine, ParseError>> {
    body.lines()
        .enumerate()
        .filter_map(|(i, l)| {
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
        })
        .collect()
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

/// What the parser expects where a unit should start.
const UNIT: &str = "a unit (A, F, 2A, A/F...)";

/// A name is never longer than this (bytes); bounds the longest-match search on garbage input.
const MAX_NAME: usize = 64;

/// How much of the rest of a line an error quotes.
const MAX_FOUND: usize = 40;

/// An error inside the parser: where, and what was wanted there.
#[derive(Debug)]
struct Fail<'a> {
    /// The input where the trouble starts (always a suffix of the line).
    at: &'a str,
    /// What was expected there.
    expected: String,
    /// What was found, when not simply the rest of the line.
    found: Option<String>,
    /// A fuller message for the player.
    hint: Option<String>,
}

impl<'a> nom::error::ParseError<&'a str> for Fail<'a> {
    fn from_error_kind(input: &'a str, _: nom::error::ErrorKind) -> Self {
        Fail {
            at: input,
            expected: String::new(),
            found: None,
            hint: None,
        }
    }

    fn append(_: &'a str, _: nom::error::ErrorKind, other: Self) -> Self {
        other
    }
}

type Res<'a, T> = IResult<&'a str, T, Fail<'a>>;

/// A committed error (nom's `Failure`): no alternative is tried after it.
fn failure<'a>(at: &'a str, expected: impl Into<String>) -> nom::Err<Fail<'a>> {
    nom::Err::Failure(Fail {
        at,
        expected: expected.into(),
        found: None,
        hint: None,
    })
}

/// A committed error with a message for the player.
fn failure_hint<'a>(
    at: &'a str,
    expected: impl Into<String>,
    found: Option<String>,
    hint: String,
) -> nom::Err<Fail<'a>> {
    nom::Err::Failure(Fail {
        at,
        expected: expected.into(),
        found,
        hint: Some(hint),
    })
}

/// A recoverable error: the caller may try something else here.
fn mismatch<'a>(at: &'a str) -> nom::Err<Fail<'a>> {
    nom::Err::Error(nom::error::ParseError::from_error_kind(
        at,
        nom::error::ErrorKind::Fail,
    ))
}

/// Runs `parser` on the whole of `text`, requiring that nothing but blanks follows, and turns its
/// error into a [`ParseError`] on line 1.
fn run<'a, T>(text: &'a str, parser: impl FnOnce(&'a str) -> Res<'a, T>) -> Result<T, ParseError> {
    let result = parser(text).and_then(|(rest, value)| {
        let (rest, _) = ws0(rest)?;
        if rest.is_empty() {
            Ok(value)
        } else {
            Err(failure(rest, "the end of the order"))
        }
    });
    result.map_err(|e| match e {
        nom::Err::Error(f) | nom::Err::Failure(f) => to_parse_error(text, f),
        // Complete parsers never ask for more input; treat it as a mismatch at the start.
        nom::Err::Incomplete(_) => to_parse_error(
            text,
            Fail {
                at: text,
                expected: String::new(),
                found: None,
                hint: None,
            },
        ),
    })
}

/// The public error for a parser error on `text`.
fn to_parse_error(text: &str, f: Fail<'_>) -> ParseError {
    // `at` is a suffix of `text`, so the difference in length is its byte offset.
    let offset = text.len().saturating_sub(f.at.len());
    let column = text.get(..offset).map_or(1, |s| s.chars().count() + 1);
    let expected = if f.expected.is_empty() {
        "an order".to_string()
    } else {
        f.expected
    };
    ParseError {
        line: 1,
        column,
        expected,
        found: f.found.unwrap_or_else(|| quote_rest(f.at)),
        hint: f.hint,
    }
}

/// The rest of a line as an error quotes it: `'attacks Bur'`, or `end of line`.
fn quote_rest(rest: &str) -> String {
    let rest = rest.trim();
    if rest.is_empty() {
        return "end of line".to_string();
    }
    let mut quoted: String = rest.chars().take(MAX_FOUND).collect();
    if rest.chars().count() > MAX_FOUND {
        quoted.push_str("...");
    }
    format!("'{quoted}'")
}

fn ws0(i: &str) -> Res<'_, &str> {
    take_while(char::is_whitespace).parse(i)
}

/// Characters that may end a word of a name (`St.`, `Côte d'Or`).
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '.' || c == '\''
}

/// Characters that may appear inside a name (`Mid-Atlantic Ocean`).
fn is_name_char(c: char) -> bool {
    is_word_char(c) || c == '-' || c.is_whitespace()
}

/// The byte offsets at which a name starting at `i` may end (after each word), shortest first.
fn name_ends(i: &str) -> Vec<usize> {
    let mut ends = Vec::new();
    let mut chars = i.char_indices().peekable();
    while let Some((idx, c)) = chars.next() {
        if !is_name_char(c) || idx >= MAX_NAME {
            break;
        }
        if is_word_char(c) && !chars.peek().is_some_and(|&(_, n)| is_word_char(n)) {
            ends.push(idx + c.len_utf8());
        }
    }
    ends
}

/// The longest run of name text at `i` that `find` knows, with its end.
fn longest<T>(i: &str, find: impl Fn(&str) -> Option<T>) -> Option<(usize, T)> {
    name_ends(i)
        .into_iter()
        .rev()
        .find_map(|end| i.get(..end).and_then(&find).map(|t| (end, t)))
}

/// The name an unknown-name error quotes, and the suggestion for it: the shortest run of words
/// with a suggestion (`Burgandy` in `Burgandy H`), else the first word.
fn unknown_name(
    i: &str,
    suggest: impl Fn(&str) -> Option<String>,
) -> Option<(&str, Option<String>)> {
    let ends = name_ends(i);
    ends.iter()
        .find_map(|&e| {
            let name = i.get(..e)?;
            suggest(name).map(|s| (name, Some(s)))
        })
        .or_else(|| Some((i.get(..*ends.first()?)?, None)))
}

/// A keyword, case insensitive; a word must not run on into letters (`S` is not the start of
/// `Spa`). Returns the index of the matched word in `words`.
fn keyword<'a>(i: &'a str, words: &[&str]) -> Res<'a, usize> {
    keyword_in(i, words.iter().copied())
}

fn keyword_in<'a, 'w>(i: &'a str, words: impl Iterator<Item = &'w str>) -> Res<'a, usize> {
    for (n, w) in words.enumerate() {
        if let Ok((rest, _)) = tag_no_case::<_, _, Fail<'a>>(w).parse(i) {
            let alphabetic = w.chars().all(char::is_alphabetic);
            if !alphabetic || !rest.starts_with(char::is_alphanumeric) {
                return Ok((rest, n));
            }
        }
    }
    Err(mismatch(i))
}

/// The ways to write a move; `->` before `-` so the longer wins.
const MOVE_OPS: &[&str] = &["->", "-", "\u{2013}", "\u{2192}", "m", "move", "moves"];

/// A move operator after optional blanks; gives the operator as written.
fn move_op(i: &str) -> Res<'_, &str> {
    let (j, _) = ws0(i)?;
    let (rest, _) = keyword(j, MOVE_OPS)?;
    Ok((rest, &j[..j.len() - rest.len()]))
}

/// An optional `1:` or `2:` before an order.
fn stage(i: &str) -> Res<'_, Stage> {
    match (digit1::<_, Fail>, ws0, tag(":")).parse(i) {
        Ok((rest, (digits, _, _))) => match digits {
            "1" => Ok((rest, Stage::First)),
            "2" => Ok((rest, Stage::Second)),
            _ => Err(failure(i, "a movement stage (1: or 2:)")),
        },
        Err(_) => Ok((i, Stage::First)),
    }
}

/// A number of points (`BANK 6`).
fn number(i: &str) -> Res<'_, u32> {
    let (i, _) = ws0(i)?;
    let (rest, digits) = digit1::<_, Fail>(i).map_err(|_| failure(i, "a number"))?;
    match digits.parse() {
        Ok(n) => Ok((rest, n)),
        Err(_) => Err(failure_hint(
            i,
            "a number",
            None,
            format!("{digits} is too large a number"),
        )),
    }
}

/// An amount of points with its unit written or not: `6`, `6 SP` (`unit` is `sp` or `ip`).
fn points<'a>(i: &'a str, unit: &str) -> Res<'a, u32> {
    let (i, n) = number(i)?;
    let (j, _) = ws0(i)?;
    Ok((keyword(j, &[unit]).map_or(i, |(rest, _)| rest), n))
}

/// A count of units (`2A`): 1 to 255.
fn count<'a>(at: &'a str, digits: Option<&'a str>) -> Result<u8, nom::Err<Fail<'a>>> {
    let Some(digits) = digits else { return Ok(1) };
    match digits.parse::<u8>() {
        Ok(0) => Err(failure_hint(
            at,
            "a count of 1 or more",
            Some(format!("'{digits}'")),
            "a unit count must be at least 1".to_string(),
        )),
        Ok(n) => Ok(n),
        Err(_) => Err(failure_hint(
            at,
            "a count of 1 to 255",
            Some(format!("'{digits}'")),
            format!("{digits} units is more than a space can hold"),
        )),
    }
}

/// Unit type words; the index says which (`ARMY_WORDS` first).
const ARMY_WORDS: &[&str] = &["armies", "army", "a"];
const FLEET_WORDS: &[&str] = &["fleets", "fleet", "f"];

/// The keywords that follow a unit.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Hold,
    Support,
    Convoy,
    Embark,
    Disembark,
    Blockade,
    Deny,
    Retreat,
    Disband,
    Build,
    Remove,
    Merge,
}

const OPS: &[(&str, Op)] = &[
    ("h", Op::Hold),
    ("hold", Op::Hold),
    ("holds", Op::Hold),
    ("s", Op::Support),
    ("support", Op::Support),
    ("supports", Op::Support),
    ("c", Op::Convoy),
    ("convoy", Op::Convoy),
    ("convoys", Op::Convoy),
    ("e", Op::Embark),
    ("embark", Op::Embark),
    ("d", Op::Disembark),
    ("disembark", Op::Disembark),
    ("b", Op::Blockade),
    ("blockade", Op::Blockade),
    ("x", Op::Deny),
    ("deny", Op::Deny),
    ("r", Op::Retreat),
    ("retreat", Op::Retreat),
    ("disband", Op::Disband),
    ("disbands", Op::Disband),
    ("build", Op::Build),
    ("remove", Op::Remove),
    ("merge", Op::Merge),
];

/// The Winter orders that start a line.
#[derive(Clone, Copy)]
enum Winter {
    Build,
    Remove,
    Waive,
    Bank,
    Loan,
    Renew,
    Convert,
    Bid,
}

const WINTER: &[(&str, Winter)] = &[
    ("build", Winter::Build),
    ("remove", Winter::Remove),
    ("waive", Winter::Waive),
    ("bank", Winter::Bank),
    ("loan", Winter::Loan),
    ("renew", Winter::Renew),
    ("convert", Winter::Convert),
    ("bid", Winter::Bid),
];

/// A keyword from a table of (word, meaning).
fn keyword_of<'a, T: Copy>(i: &'a str, table: &[(&str, T)]) -> Res<'a, T> {
    let (rest, n) = keyword_in(i, table.iter().map(|&(w, _)| w))?;
    match table.get(n) {
        Some(&(_, t)) => Ok((rest, t)),
        None => Err(mismatch(i)),
    }
}

/// A unit as a message prints it (its canonical form).
struct Quote<'v, 'u>(&'v Variant, &'u UnitSpec<Place>);

impl fmt::Display for Quote<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&unit_name(self.1, self.0))
    }
}

/// The grammar, over one board's names.
struct Grammar<'v> {
    v: &'v Variant,
}

impl Grammar<'_> {
    /// How a unit is quoted in messages: its canonical form.
    /// Written only when a message needs it: most lines parse, and printing a unit looks its
    /// names up.
    fn quote<'u>(&self, unit: &'u UnitSpec<Place>) -> Quote<'_, 'u> {
        Quote(self.v, unit)
    }

    /// What an order orders, after the stage.
    fn kind<'a>(&self, i: &'a str) -> Res<'a, OrderKind<Place>> {
        if let Ok((rest, w)) = keyword_of(i, WINTER) {
            return self.winter(rest, w);
        }
        let (rest, unit) = match self.unit(i) {
            Err(nom::Err::Error(_)) => return Err(failure(i, UNIT)),
            other => other?,
        };
        self.unit_order(rest, unit)
    }

    /// A Winter order after its keyword.
    fn winter<'a>(&self, i: &'a str, w: Winter) -> Res<'a, OrderKind<Place>> {
        match w {
            Winter::Build | Winter::Remove => {
                let (rest, unit) = match self.unit(i) {
                    Err(nom::Err::Error(_)) => {
                        let (j, _) = ws0(i)?;
                        return Err(failure(j, UNIT));
                    }
                    other => other?,
                };
                Ok(match w {
                    Winter::Build => (rest, OrderKind::Build { unit }),
                    _ => (rest, OrderKind::Remove { unit }),
                })
            }
            Winter::Waive => match number(i) {
                Ok((rest, 1)) => Ok((rest, OrderKind::Waive)),
                Ok(_) => {
                    let (j, _) = ws0(i)?;
                    Err(failure_hint(
                        j,
                        "1 or the end of the order",
                        None,
                        "WAIVE declines one build: write WAIVE once for each build".to_string(),
                    ))
                }
                Err(_) => Ok((i, OrderKind::Waive)),
            },
            Winter::Bank => points(i, "sp").map(|(r, amount)| (r, OrderKind::Bank { amount })),
            Winter::Convert => {
                points(i, "sp").map(|(r, amount)| (r, OrderKind::Convert { amount }))
            }
            Winter::Loan => {
                let (i, amount) = points(i, "sp")?;
                let (i, _) = ws0(i)?;
                let (i, _) =
                    keyword(i, &["to"]).map_err(|_| failure(i, "TO and the borrowing power"))?;
                let (i, to) = self.power(i)?;
                Ok((i, OrderKind::Loan { amount, to }))
            }
            Winter::Renew => {
                let (i, _) = ws0(i)?;
                let i = keyword(i, &["loan"]).map_or(i, |(r, _)| r);
                let (i, _) = ws0(i)?;
                let i = keyword(i, &["to"]).map_or(i, |(r, _)| r);
                let (i, to) = self.power(i)?;
                Ok((i, OrderKind::Renew { to }))
            }
            Winter::Bid => {
                let (i, amount) = points(i, "ip")?;
                let (i, minor) = self.power(i)?;
                let (j, _) = ws0(i)?;
                let (i, on_behalf) = match keyword(j, &["for"]) {
                    Ok((rest, _)) => {
                        let (rest, p) = self.power(rest)?;
                        (rest, Some(p))
                    }
                    Err(_) => (i, None),
                };
                Ok((
                    i,
                    OrderKind::Bid {
                        amount,
                        minor,
                        on_behalf,
                    },
                ))
            }
        }
    }

    /// A power by name or alias, longest match.
    fn power<'a>(&self, i: &'a str) -> Res<'a, PowerId> {
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
    fn unit<'a>(&self, i: &'a str) -> Res<'a, UnitSpec<Place>> {
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
    fn unit_or_place<'a>(
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
    fn destination<'a>(&self, i: &'a str, hint: impl FnOnce() -> String) -> Res<'a, Place> {
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
    fn place<'a>(&self, i: &'a str) -> Res<'a, Place> {
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
            // A name written exactly as one space's code is that space (issue 21: `BAL`, as
            // the map prints the Baltic Sea); written otherwise (`Bal`) it may be any of them.
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

    /// What follows a unit.
    fn unit_order<'a>(&self, i: &'a str, unit: UnitSpec<Place>) -> Res<'a, OrderKind<Place>> {
        let (i, _) = ws0(i)?;
        if i.starts_with('&') {
            return self.merge_list(i, unit);
        }
        if let Ok((rest, op)) = move_op(i) {
            return self.movement(rest, unit, op);
        }
        let Ok((rest, op)) = keyword_of(i, OPS) else {
            let u = self.quote(&unit);
            let expected = format!("an order after '{u}' (H, -, S, C, E, D, B, X)");
            // `A Par Bur`: the dash left out.
            return Err(match self.place(i) {
                Ok((rest, to)) if rest.trim().is_empty() => {
                    let to = to.name(self.v);
                    let hint = format!(
                        "expected {expected}, found {} (did you mean {u}-{to}?)",
                        quote_rest(i)
                    );
                    failure_hint(i, expected, None, hint)
                }
                _ => failure(i, expected),
            });
        };
        let u = self.quote(&unit);
        match op {
            Op::Hold => Ok((rest, OrderKind::Hold { unit })),
            Op::Support => self.support(rest, unit),
            Op::Convoy => {
                let (rest, army) = self.unit_or_place(rest, || {
                    format!("nothing after 'C': which army does {u} convoy?")
                })?;
                let a = self.quote(&army);
                let (rest, _) =
                    move_op(rest).map_err(|_| failure(rest, format!("'-' and where {a} goes")))?;
                let (rest, to) = self.destination(rest, || {
                    format!("nothing after '-': where does {u} convoy {a} to?")
                })?;
                Ok((rest, OrderKind::Convoy { unit, army, to }))
            }
            Op::Embark => {
                let (rest, fleet) = self.unit_or_place(rest, || {
                    format!("nothing after 'E': which sea does {u} embark in?")
                })?;
                match move_op(rest) {
                    Ok((rest, op)) => {
                        let f = self.quote(&fleet);
                        let (rest, to) = self.destination(rest, || {
                            format!("nothing after '{op}': where should {f} carry {u}?")
                        })?;
                        // The fleet's second move may follow as a chain (rule 6's example).
                        let (rest, then) = match move_op(rest) {
                            Ok((rest, op)) => {
                                let (rest, then) = self.destination(rest, || {
                                    format!("nothing after '{op}': where should {f} sail next?")
                                })?;
                                (rest, Some(then))
                            }
                            Err(_) => (rest, None),
                        };
                        Ok((
                            rest,
                            OrderKind::EmbarkWith {
                                unit,
                                fleet,
                                to,
                                then,
                            },
                        ))
                    }
                    // `E F(ENG)` names the fleet's space: the plain embark.
                    Err(_) => Ok((
                        rest,
                        OrderKind::Embark {
                            unit,
                            sea: fleet.at,
                        },
                    )),
                }
            }
            Op::Disembark => {
                let (rest, to) = self.destination(rest, || {
                    format!("nothing after 'D': where should {u} land?")
                })?;
                Ok((rest, OrderKind::Disembark { unit, to }))
            }
            Op::Blockade => {
                let (rest, centre) = self.destination(rest, || {
                    format!("nothing after 'B': which centre should {u} blockade?")
                })?;
                Ok((rest, OrderKind::Blockade { unit, centre }))
            }
            Op::Deny => {
                let (rest, from) = self.destination(rest, || {
                    format!("nothing after 'X': which passage should {u} deny?")
                })?;
                let (rest, _) = move_op(rest)
                    .map_err(|_| failure(rest, "'-' and the other end of the passage"))?;
                let (rest, to) = self.destination(rest, || {
                    format!("nothing after '-': where does the passage {u} denies lead?")
                })?;
                Ok((rest, OrderKind::Deny { unit, from, to }))
            }
            Op::Retreat => {
                let (rest, to) = self.destination(rest, || {
                    format!("nothing after 'R': where should {u} retreat?")
                })?;
                Ok((rest, OrderKind::Retreat { unit, to }))
            }
            Op::Disband => Ok((rest, OrderKind::Disband { unit })),
            Op::Build => Ok((rest, OrderKind::Build { unit })),
            Op::Remove => Ok((rest, OrderKind::Remove { unit })),
            Op::Merge => {
                let (rest, (target, result)) = self.merge_target(rest, || u.to_string())?;
                Ok((
                    rest,
                    OrderKind::Merge {
                        units: vec![unit],
                        target,
                        result,
                    },
                ))
            }
        }
    }

    /// A move after its operator: destination, a fleet's second move, `via convoy`.
    fn movement<'a>(
        &self,
        i: &'a str,
        unit: UnitSpec<Place>,
        op: &str,
    ) -> Res<'a, OrderKind<Place>> {
        let u = self.quote(&unit);
        let (i, to) = self.destination(i, || {
            format!("nothing after '{op}': where should {u} move?")
        })?;
        let (i, then) = match move_op(i) {
            Ok((rest, op)) => {
                let first = to.name(self.v);
                let (rest, then) = self.destination(rest, || {
                    format!("nothing after '{op}': where should {u} move after {first}?")
                })?;
                (rest, Some(then))
            }
            Err(_) => (i, None),
        };
        let (i, via_convoy) = via_convoy(i)?;
        Ok((
            i,
            OrderKind::Move {
                unit,
                to,
                via_convoy,
                then,
            },
        ))
    }

    /// A support after `S`: of a merge, a hold or a move.
    fn support<'a>(&self, i: &'a str, unit: UnitSpec<Place>) -> Res<'a, OrderKind<Place>> {
        let u = self.quote(&unit);
        let (i, _) = ws0(i)?;
        if let Ok((rest, _)) = keyword(i, &["merge"]) {
            let (rest, target) = self.destination(rest, || {
                format!("nothing after 'MERGE': which space's merge does {u} support?")
            })?;
            return Ok((rest, OrderKind::SupportMerge { unit, target }));
        }
        let (i, supported) = self.unit_or_place(i, || {
            format!("nothing after 'S': which unit does {u} support?")
        })?;
        if let Ok((rest, op)) = move_op(i) {
            let s = self.quote(&supported);
            let (rest, to) = self.destination(rest, || {
                format!("nothing after '{op}': where does the {s} that {u} supports move?")
            })?;
            return Ok((
                rest,
                OrderKind::SupportMove {
                    unit,
                    supported,
                    to,
                },
            ));
        }
        let (j, _) = ws0(i)?;
        let i = keyword(j, &["h", "hold", "holds"]).map_or(i, |(rest, _)| rest);
        Ok((i, OrderKind::SupportHold { unit, supported }))
    }

    /// `& A(Pic) ... MERGE target` after the first participant.
    fn merge_list<'a>(&self, mut i: &'a str, first: UnitSpec<Place>) -> Res<'a, OrderKind<Place>> {
        let mut units = vec![first];
        loop {
            let (j, _) = ws0(i)?;
            let Some(rest) = j.strip_prefix('&') else {
                break;
            };
            let (rest, unit) = match self.unit(rest) {
                Err(nom::Err::Error(_)) => {
                    let (rest, _) = ws0(rest)?;
                    return Err(failure(rest, "a unit to merge after '&'"));
                }
                other => other?,
            };
            units.push(unit);
            i = rest;
        }
        let (i, _) = ws0(i)?;
        let (i, _) = keyword(i, &["merge"]).map_err(|_| failure(i, "MERGE and the target"))?;
        let who = || {
            let names: Vec<String> = units.iter().map(|u| self.quote(u).to_string()).collect();
            names.join(" & ")
        };
        let (i, (target, result)) = self.merge_target(i, who)?;
        Ok((
            i,
            OrderKind::Merge {
                units,
                target,
                result,
            },
        ))
    }

    /// A merge's target: `2A(Bur)` (with the resulting force) or a place.
    fn merge_target<'a>(
        &self,
        i: &'a str,
        who: impl FnOnce() -> String,
    ) -> Res<'a, (Place, Option<(u8, u8)>)> {
        match self.unit(i) {
            Ok((rest, u)) => Ok((rest, (u.at, Some((u.armies, u.fleets))))),
            Err(nom::Err::Error(_)) => {
                let (rest, target) = self.destination(i, || {
                    format!("nothing after 'MERGE': where should {} merge?", who())
                })?;
                Ok((rest, (target, None)))
            }
            Err(e) => Err(e),
        }
    }
}

/// `unknown space 'Burgandy' (did you mean Burgundy?)`
fn unknown(what: &str, name: &str, suggestion: Option<String>) -> String {
    match suggestion {
        Some(s) => format!("unknown {what} '{name}' (did you mean {s}?)"),
        None => format!("unknown {what} '{name}'"),
    }
}

/// A coast after a place: `/nc`, `/north coast`, `(sc)`, ` (north coast)`, and where
/// `words` allows, bare `sc` or `south coast`.
fn coast(i: &str, words: bool) -> Res<'_, Option<Coast>> {
    let (j, _) = ws0(i)?;
    if let Some(rest) = j.strip_prefix('/') {
        let (rest, _) = ws0(rest)?;
        return match coast_words(rest) {
            Some((after, c)) => Ok((after, Some(c))),
            None => Err(failure(rest, "a coast (nc, sc, ec, wc)")),
        };
    }
    if let Some(rest) = j.strip_prefix('(') {
        let (rest, _) = ws0(rest)?;
        let written = coast_words(rest).and_then(|(after, c)| {
            let (after, _) = ws0(after).ok()?;
            after.strip_prefix(')').map(|after| (after, c))
        });
        return match written {
            Some((after, c)) => Ok((after, Some(c))),
            None => Err(failure(rest, "a coast (nc, sc, ec, wc)")),
        };
    }
    if words && j.len() < i.len() {
        if let Some((after, c)) = coast_words(j) {
            // Only the two-letter codes and `... coast` as bare words: `n`, `s`, `e` are orders.
            let written = &j[..j.len() - after.len()];
            if written.len() == 2 || written.to_ascii_lowercase().ends_with("coast") {
                return Ok((after, Some(c)));
            }
        }
    }
    Ok((i, None))
}

/// A coast written as a word or two (`nc`, `north`, `north coast`).
fn coast_words(i: &str) -> Option<(&str, Coast)> {
    let (rest, word) = take_while::<_, _, Fail>(char::is_alphabetic)
        .parse(i)
        .ok()?;
    if word.is_empty() {
        return None;
    }
    let (after_blank, _) = ws0(rest).ok()?;
    if let Ok((after, _)) = keyword(after_blank, &["coast"]) {
        let written = &i[..i.len() - after.len()];
        if let Some(c) = Coast::parse(&written.split_whitespace().collect::<Vec<_>>().join(" ")) {
            return Some((after, c));
        }
    }
    Coast::parse(word).map(|c| (rest, c))
}

/// An optional `via convoy`, `by convoy`, `via C`.
fn via_convoy(i: &str) -> Res<'_, bool> {
    let (j, _) = ws0(i)?;
    let Ok((rest, _)) = keyword(j, &["via", "by"]) else {
        return Ok((i, false));
    };
    let (rest, _) = ws0(rest)?;
    match keyword(rest, &["convoy", "c"]) {
        Ok((rest, _)) => Ok((rest, true)),
        Err(_) => Err(failure(rest, "CONVOY (as in 'via convoy')")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::{
        Phase, PhaseKind, Power, PowerKind, Province, ProvinceId, Rules, Season, SpaceKind,
    };
    use std::collections::HashMap;

    /// A small board built by hand, so the parser's own tests need no loader: seas, coasts, a
    /// multi-word and a hyphenated name, and `Bal` shared by the Balkans and the Baltic Sea.
    fn board() -> Variant {
        type Space<'s> = (&'s str, SpaceKind, &'s str, &'s [&'s str], &'s [Coast]);
        let spaces: &[Space] = &[
            ("Par", SpaceKind::Land, "Paris", &[], &[]),
            ("Bur", SpaceKind::Land, "Burgundy", &[], &[]),
            ("Pic", SpaceKind::Coast, "Picardy", &[], &[]),
            (
                "Spa",
                SpaceKind::Coast,
                "Spain",
                &[],
                &[Coast::North, Coast::South],
            ),
            (
                "StP",
                SpaceKind::Coast,
                "St Petersburg",
                &["st petersburg", "saint petersburg"],
                &[Coast::North, Coast::South],
            ),
            ("NTH", SpaceKind::Sea, "North Sea", &[], &[]),
            ("MAO", SpaceKind::Sea, "Mid-Atlantic Ocean", &[], &[]),
            ("Bal", SpaceKind::Land, "Balkans", &[], &[]),
            ("BAL", SpaceKind::Sea, "Baltic Sea", &[], &[]),
        ];
        let mut names: HashMap<String, Vec<ProvinceId>> = HashMap::new();
        let mut provinces = Vec::new();
        for (n, &(code, kind, name, aliases, coasts)) in spaces.iter().enumerate() {
            let id = ProvinceId(n as u8);
            let keys = [code.to_lowercase(), name.to_lowercase()];
            for k in keys
                .iter()
                .map(String::as_str)
                .chain(aliases.iter().copied())
            {
                let ids = names.entry(k.to_string()).or_default();
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
            provinces.push(Province {
                code: code.into(),
                name: name.into(),
                kind,
                coasts: coasts.to_vec(),
                centre: false,
                home: None,
            });
        }
        let power = |name: &str, kind, aliases: &[&str]| Power {
            name: name.into(),
            kind,
            aliases: aliases.iter().map(|a| a.to_string()).collect(),
        };
        Variant {
            name: "test".into(),
            title: "test".into(),
            season_names: ["Spring".into(), "Autumn".into(), "Winter".into()],
            start: Phase {
                year: 1805,
                season: Season::Spring,
                kind: PhaseKind::Movement,
            },
            victory: 5,
            victory_overrides: vec![],
            rules: Rules::default(),
            powers: vec![
                power("France", PowerKind::Major, &["FRA"]),
                power("Great Britain", PowerKind::Major, &["Britain"]),
                power("Denmark", PowerKind::Minor, &[]),
            ],
            army_adj: vec![Default::default(); provinces.len()],
            fleet_reach: vec![Default::default(); provinces.len()],
            provinces,
            build_sites: vec![],
            passages: vec![],
            start_units: vec![],
            fleet_edges: vec![],
            names,
        }
    }

    fn id(v: &Variant, code: &str) -> ProvinceId {
        match v.lookup(code) {
            Lookup::One(p) => p,
            other => panic!("{code}: {other:?}"),
        }
    }

    fn known(v: &Variant, code: &str, coast: Option<Coast>) -> Place {
        Place::Known(Region {
            province: id(v, code),
            coast,
        })
    }

    fn canon(text: &str) -> String {
        let v = board();
        match parse_line(&v, text) {
            Ok(order) => order.display(&v),
            Err(e) => panic!("{text}: {e}"),
        }
    }

    fn error(text: &str) -> ParseError {
        match parse_line(&board(), text) {
            Ok(order) => panic!("{text} parsed as {order:?}"),
            Err(e) => e,
        }
    }

    #[test]
    fn name_ends_stop_after_each_word() {
        assert_eq!(name_ends("Par-Bur"), vec![3, 7]);
        assert_eq!(name_ends("St. Petersburg/nc"), vec![3, 14]);
        assert_eq!(name_ends("North Sea)"), vec![5, 9]);
        assert_eq!(name_ends("(Par)"), Vec::<usize>::new());
    }

    #[test]
    fn longest_name_wins_over_its_first_word() {
        assert_eq!(canon("F Mid-Atlantic Ocean - Spain (nc)"), "F(MAO)-Spa/nc");
        assert_eq!(canon("A Par-Bur"), "A(Par)-Bur");
        assert_eq!(canon("F North Sea H"), "F(NTH) H");
        assert_eq!(canon("F St. Petersburg north coast H"), "F(StP/nc) H");
    }

    #[test]
    fn coasts_in_every_spelling() {
        for text in [
            "F StP/nc H",
            "F StP(nc) H",
            "F(StP/nc) H",
            "F(StP (nc)) H",
            "F St Petersburg (north coast) H",
            "F stp / NC H",
            "F StP nc H",
            "F Saint Petersburg/north H",
        ] {
            assert_eq!(canon(text), "F(StP/nc) H", "{text}");
        }
    }

    #[test]
    fn bare_coast_letters_are_orders_not_coasts() {
        assert_eq!(canon("F Spa S F MAO"), "F(Spa) S F(MAO)");
    }

    #[test]
    fn shared_name_parses_as_ambiguous_and_its_spaces_print_as_codes() {
        let v = board();
        let order = parse_line(&v, "A Par D bal").unwrap_or_else(|e| panic!("{e}"));
        let OrderKind::Disembark { to, .. } = &order.kind else {
            panic!("{order:?}");
        };
        assert_eq!(
            to,
            &Place::Ambiguous {
                name: "bal".into(),
                options: vec![id(&v, "Balkans"), id(&v, "Baltic Sea")],
                coast: None
            }
        );
        assert_eq!(known(&v, "Balkans", None).name(&v), "Bal");
    }

    #[test]
    fn unknown_space_suggests_the_closest_name() {
        let e = error("A Burgandy H");
        assert_eq!(e.column, 3);
        assert_eq!(e.found, "'Burgandy'");
        assert_eq!(
            e.to_string(),
            "line 1, column 3: unknown space 'Burgandy' (did you mean Burgundy?)"
        );
    }

    #[test]
    fn unknown_order_word_names_the_unit() {
        assert_eq!(
            error("A(Par) attacks Bur").to_string(),
            "line 1, column 8: expected an order after 'A(Par)' (H, -, S, C, E, D, B, X), found 'attacks Bur'"
        );
    }

    #[test]
    fn missing_destination_asks_where() {
        assert_eq!(
            error("A(Par) -").to_string(),
            "line 1, column 9: nothing after '-': where should A(Par) move?"
        );
    }

    #[test]
    fn unknown_power_suggests() {
        assert_eq!(
            error("LOAN 6 TO Frnace").to_string(),
            "line 1, column 11: unknown power 'Frnace' (did you mean France?)"
        );
    }

    #[test]
    fn multi_word_power_names() {
        assert_eq!(
            canon("bid 3 denmark for great britain"),
            "BID 3 Denmark FOR Great Britain"
        );
        assert_eq!(canon("RENEW LOAN TO Britain"), "RENEW Great Britain");
    }
}
