//! How a parse fails: the error nom carries inside the grammar, committed or not, and the
//! [`ParseError`] a player reads, with what was expected and what was found.

use super::words::ws0;
use super::ParseError;
use nom::IResult;

/// How much of the rest of a line an error quotes.
const MAX_FOUND: usize = 40;

/// An error inside the parser: where, and what was wanted there.
#[derive(Debug)]
pub(super) struct Fail<'a> {
    /// The input where the trouble starts (always a suffix of the line).
    pub(super) at: &'a str,
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

pub(super) type Res<'a, T> = IResult<&'a str, T, Fail<'a>>;

/// A committed error (nom's `Failure`): no alternative is tried after it.
pub(super) fn failure<'a>(at: &'a str, expected: impl Into<String>) -> nom::Err<Fail<'a>> {
    nom::Err::Failure(Fail {
        at,
        expected: expected.into(),
        found: None,
        hint: None,
    })
}

/// A committed error with a message for the player.
pub(super) fn failure_hint<'a>(
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
pub(super) fn mismatch<'a>(at: &'a str) -> nom::Err<Fail<'a>> {
    nom::Err::Error(nom::error::ParseError::from_error_kind(
        at,
        nom::error::ErrorKind::Fail,
    ))
}

/// Runs `parser` on the whole of `text`, requiring that nothing but blanks follows, and turns its
/// error into a [`ParseError`] on line 1.
pub(super) fn run<'a, T>(
    text: &'a str,
    parser: impl FnOnce(&'a str) -> Res<'a, T>,
) -> Result<T, ParseError> {
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
pub(super) fn quote_rest(rest: &str) -> String {
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

/// `unknown space 'Burgandy' (did you mean Burgundy?)`
pub(super) fn unknown(what: &str, name: &str, suggestion: Option<String>) -> String {
    match suggestion {
        Some(s) => format!("unknown {what} '{name}' (did you mean {s}?)"),
        None => format!("unknown {what} '{name}'"),
    }
}
