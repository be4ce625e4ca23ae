//! The words of an order: blanks, names by longest match, keywords and their tables, the move
//! operator, stages, numbers and counts, coasts, `via convoy`.

use super::fail::{failure, failure_hint, mismatch, Fail, Res};
use crate::order::Stage;
use crate::variant::Coast;
use nom::bytes::complete::{tag, take_while};
use nom::character::complete::digit1;
use nom::Parser;

/// A name is never longer than this (bytes); bounds the longest-match search on garbage input.
const MAX_NAME: usize = 64;

pub(super) fn ws0(i: &str) -> Res<'_, &str> {
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
/// On the stack: the parser asks at every place it reads.
pub(super) struct NameEnds {
    ends: [usize; MAX_NAME],
    len: usize,
}

impl NameEnds {
    pub(super) fn new(i: &str) -> NameEnds {
        let mut ends = NameEnds {
            ends: [0; MAX_NAME],
            len: 0,
        };
        let mut chars = i.char_indices().peekable();
        while let Some((idx, c)) = chars.next() {
            // Each end is past its own character: fewer ends than `MAX_NAME` bytes.
            if !is_name_char(c) || idx >= MAX_NAME {
                break;
            }
            if is_word_char(c) && !chars.peek().is_some_and(|&(_, n)| is_word_char(n)) {
                ends.ends[ends.len] = idx + c.len_utf8();
                ends.len += 1;
            }
        }
        ends
    }

    pub(super) fn as_slice(&self) -> &[usize] {
        &self.ends[..self.len]
    }
}

/// The longest run of name text at `i` that `find` knows, with its end.
pub(super) fn longest<T>(i: &str, find: impl Fn(&str) -> Option<T>) -> Option<(usize, T)> {
    NameEnds::new(i)
        .as_slice()
        .iter()
        .rev()
        .find_map(|&end| i.get(..end).and_then(&find).map(|t| (end, t)))
}

/// The name an unknown-name error quotes, and the suggestion for it: the shortest run of words
/// with a suggestion (`Burgandy` in `Burgandy H`), else the first word.
pub(super) fn unknown_name(
    i: &str,
    suggest: impl Fn(&str) -> Option<String>,
) -> Option<(&str, Option<String>)> {
    let ends = NameEnds::new(i);
    let ends = ends.as_slice();
    ends.iter()
        .find_map(|&e| {
            let name = i.get(..e)?;
            suggest(name).map(|s| (name, Some(s)))
        })
        .or_else(|| Some((i.get(..*ends.first()?)?, None)))
}

/// A keyword, case insensitive; a word must not run on into letters (`S` is not the start of
/// `Spa`). Returns the index of the matched word in `words`.
pub(super) fn keyword<'a>(i: &'a str, words: &[&str]) -> Res<'a, usize> {
    keyword_in(i, words.iter().copied())
}

fn keyword_in<'a, 'w>(i: &'a str, words: impl Iterator<Item = &'w str>) -> Res<'a, usize> {
    for (n, w) in words.enumerate() {
        // Compared as bytes, ASCII letters without case: parsing tries every word of a table in
        // turn, and most fail on the first byte. The non-ASCII words (`\u{2013}`, `\u{2192}`)
        // have no case and compare exactly.
        let Some(rest) = i
            .get(..w.len())
            .filter(|head| head.eq_ignore_ascii_case(w))
            .map(|_| &i[w.len()..])
        else {
            continue;
        };
        let alphabetic = w.chars().all(char::is_alphabetic);
        if !alphabetic || !rest.starts_with(char::is_alphanumeric) {
            return Ok((rest, n));
        }
    }
    Err(mismatch(i))
}

/// The ways to write a move; `->` before `-` so the longer wins.
const MOVE_OPS: &[&str] = &["->", "-", "\u{2013}", "\u{2192}", "m", "move", "moves"];

/// A move operator after optional blanks; gives the operator as written.
pub(super) fn move_op(i: &str) -> Res<'_, &str> {
    let (j, _) = ws0(i)?;
    let (rest, _) = keyword(j, MOVE_OPS)?;
    Ok((rest, &j[..j.len() - rest.len()]))
}

/// An optional `1:` or `2:` before an order.
pub(super) fn stage(i: &str) -> Res<'_, Stage> {
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
pub(super) fn number(i: &str) -> Res<'_, u32> {
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
pub(super) fn points<'a>(i: &'a str, unit: &str) -> Res<'a, u32> {
    let (i, n) = number(i)?;
    let (j, _) = ws0(i)?;
    Ok((keyword(j, &[unit]).map_or(i, |(rest, _)| rest), n))
}

/// A count of units (`2A`): 1 to 255.
pub(super) fn count<'a>(at: &'a str, digits: Option<&'a str>) -> Result<u8, nom::Err<Fail<'a>>> {
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
pub(super) const ARMY_WORDS: &[&str] = &["armies", "army", "a"];
pub(super) const FLEET_WORDS: &[&str] = &["fleets", "fleet", "f"];

/// The keywords that follow a unit.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
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

pub(super) const OPS: &[(&str, Op)] = &[
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
pub(super) enum Winter {
    Build,
    Remove,
    Waive,
    Bank,
    Loan,
    Renew,
    Convert,
    Bid,
}

pub(super) const WINTER: &[(&str, Winter)] = &[
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
pub(super) fn keyword_of<'a, T: Copy>(i: &'a str, table: &[(&str, T)]) -> Res<'a, T> {
    let (rest, n) = keyword_in(i, table.iter().map(|&(w, _)| w))?;
    match table.get(n) {
        Some(&(_, t)) => Ok((rest, t)),
        None => Err(mismatch(i)),
    }
}

/// A coast after a place: `/nc`, `/north coast`, `(sc)`, ` (north coast)`, and where
/// `words` allows, bare `sc` or `south coast`.
pub(super) fn coast(i: &str, words: bool) -> Res<'_, Option<Coast>> {
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
pub(super) fn via_convoy(i: &str) -> Res<'_, bool> {
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
