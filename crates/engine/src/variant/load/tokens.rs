//! The words of a variant file's lines: bare words, quoted names, the `:` of an edge line, up to
//! a `#` comment.

use nom::branch::alt;
use nom::bytes::complete::{take_till, take_till1, take_while};
use nom::character::complete::char;
use nom::combinator::{opt, rest};
use nom::multi::many0;
use nom::sequence::{delimited, preceded, terminated};
use nom::{IResult, Parser};

use super::{invalid, LoadError};

/// One word of a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tok<'a> {
    /// A bare word.
    Word(&'a str),
    /// A double-quoted string, without its quotes.
    Quoted(&'a str),
    /// The `:` after the first region of an `army`/`fleet` line.
    Colon,
}

impl<'a> Tok<'a> {
    pub(super) fn text(self) -> &'a str {
        match self {
            Tok::Word(s) | Tok::Quoted(s) => s,
            Tok::Colon => ":",
        }
    }
}

/// A non-blank line: its 1-based number and its words.
pub(super) struct Line<'a> {
    pub(super) no: usize,
    pub(super) toks: Vec<Tok<'a>>,
}

impl<'a> Line<'a> {
    /// The directive, lower case.
    pub(super) fn keyword(&self) -> String {
        self.toks
            .first()
            .map_or(String::new(), |t| t.text().to_ascii_lowercase())
    }
}

fn token(input: &str) -> IResult<&str, Tok<'_>> {
    alt((
        delimited(char('"'), take_till(|c| c == '"'), char('"')).map(Tok::Quoted),
        char(':').map(|_| Tok::Colon),
        take_till1(|c: char| c.is_whitespace() || matches!(c, '"' | ':' | '#')).map(Tok::Word),
    ))
    .parse(input)
}

/// Blanks between words: any Unicode white space, since `token` stops at any (a pasted
/// non-breaking space would otherwise be unreadable).
fn blank(input: &str) -> IResult<&str, &str> {
    take_while(char::is_whitespace).parse(input)
}

/// The words of one line, up to an optional `#` comment.
fn line_tokens(input: &str) -> IResult<&str, Vec<Tok<'_>>> {
    terminated(
        many0(preceded(blank, token)),
        (blank, opt((char('#'), rest))),
    )
    .parse(input)
}

pub(super) fn tokenize<'a>(file: &str, text: &'a str) -> Result<Vec<Line<'a>>, LoadError> {
    let mut lines = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let no = i + 1;
        let (left, toks) =
            line_tokens(raw).map_err(|_| invalid(file, no, "cannot read this line"))?;
        if !left.is_empty() {
            let message = if left.starts_with('"') {
                "a quoted name has no closing '\"'".to_string()
            } else {
                format!("cannot read '{left}'")
            };
            return Err(invalid(file, no, message));
        }
        if !toks.is_empty() {
            lines.push(Line { no, toks });
        }
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_split_words_quotes_colons_and_comments() {
        let (rest, toks) = line_tokens(r#"alias StP "St. Petersburg" x:y # note "#).unwrap();
        assert_eq!(rest, "");
        assert_eq!(
            toks,
            vec![
                Tok::Word("alias"),
                Tok::Word("StP"),
                Tok::Quoted("St. Petersburg"),
                Tok::Word("x"),
                Tok::Colon,
                Tok::Word("y"),
            ]
        );
    }

    #[test]
    fn blank_and_comment_lines_have_no_tokens() {
        let lines = tokenize("f", "\n   \n# only a comment\n\tvariant\u{a0}x\r\n").unwrap();
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].no, 4);
        assert_eq!(lines[0].keyword(), "variant");
        assert_eq!(lines[0].toks[1], Tok::Word("x"));
    }

    #[test]
    fn unterminated_quote_is_reported_at_its_line() {
        let err = tokenize("f", "variant x\ntitle \"Open").err().unwrap();
        assert_eq!(err.to_string(), "f:2: a quoted name has no closing '\"'");
    }
}
