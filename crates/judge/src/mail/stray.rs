//! Lines that are neither a command the reader knows nor an order: an unknown word
//! in command position (`QUIT`, `HLEP`) is answered as an unknown command with the nearest
//! one (a `SET WORD` is always a command: `mail::settings` answers an unknown WORD alike), and the closing lines of a mail ("Thanks!", "Alice") as not read, instead of
//! the order parser's "expected a unit". Only lines the reader took for orders come here, so
//! every real command has been tried first; the game's variant says what an order is.

use super::text;
use crate::render::echo;
use napjudge_engine::order::parse_line;
use napjudge_engine::variant::Variant;

/// What a line the reader took for an order is, when it is not one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Stray {
    /// An unknown word where a command starts: the words as written (upper case), and the
    /// nearest command when one is close.
    Unknown {
        /// `QUIT`, `SET FOO`.
        command: String,
        /// `HELP` for `HLEP`.
        nearest: Option<String>,
    },
    /// A closing line after the mail's last command ("Thanks!", "Cheers, Bob"): not read.
    Closing,
}

impl Stray {
    /// The reply's line for it.
    pub(super) fn answer(&self) -> String {
        match self {
            Stray::Unknown {
                command,
                nearest: Some(n),
            } => format!(
                "ERROR: unknown command {} (did you mean {n}?). Nothing was done.",
                echo(command)
            ),
            Stray::Unknown { command, .. } => format!(
                "ERROR: unknown command {}: send HELP for the commands. Nothing was done.",
                echo(command)
            ),
            Stray::Closing => "Not read: taken for the mail's closing.".into(),
        }
    }
}

/// What `line` is when it does not parse as an order of `v`: `trailing` when no command of the
/// mail comes after it. None: an order (valid or not), answered by the order's own error.
pub(super) fn classify(v: &Variant, line: &str, trailing: bool) -> Option<Stray> {
    let err = parse_line(v, line).err()?;
    let words: Vec<&str> = line.split_whitespace().collect();
    let first = words.first()?;
    // The parser stopped at the first word: no unit type, space or order word starts the line.
    let not_an_order = err.column <= 1 && err.hint.is_none();
    let word_like = first.len() >= 2 && first.chars().all(|c| c.is_ascii_alphabetic());
    let shouted = first.chars().all(|c| c.is_ascii_uppercase());
    let nearest = text::nearest_command(line);
    let upper = |n: usize| {
        words
            .iter()
            .take(n)
            .map(|w| w.to_ascii_uppercase())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let unknown = |n: usize| Stray::Unknown {
        command: upper(n),
        nearest: nearest.map(str::to_string),
    };
    if not_an_order && word_like && (nearest.is_some() || shouted) {
        let n = if nearest.is_some_and(|c| c.contains(' ')) {
            2
        } else {
            1
        };
        return Some(unknown(n));
    }
    // An order's marks (`Bur-Par`, `A(Par)`, `France:`) make it an order written wrong.
    let marked = line.contains(['-', '(', ':']);
    if trailing && not_an_order && !marked && words.len() <= 2 {
        return Some(Stray::Closing);
    }
    (not_an_order && word_like && words.len() <= 2).then(|| unknown(1))
}

/// The lines of a press text that parse as orders of `v`: press that holds them most likely
/// lost its ENDPRESS.
pub(super) fn orders_in<'a>(v: &Variant, press: &'a str) -> Vec<&'a str> {
    press
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && parse_line(v, l).is_ok())
        .collect()
}

/// The reply to press refused for [`orders_in`] lines.
pub(super) fn forgot_endpress(orders: &[&str]) -> String {
    let quoted: Vec<String> = orders.iter().map(|o| format!("'{o}'")).collect();
    format!(
        "ERROR: did you forget ENDPRESS? These lines of the press read as orders: {}. Press \
         runs from PRESS TO (or BROADCAST) to ENDPRESS, or to the end of the mail. Nothing was \
         sent, and the lines were not taken as orders: send the press again ending with \
         ENDPRESS, and the orders after it.",
        echo(&quoted.join(", "))
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use napjudge_engine::variant::load_named;

    fn board() -> Variant {
        load_named("napoleonic").expect("built-in board")
    }

    /// Unknown words in command position, with the nearest command.
    #[test]
    fn unknown_commands_name_the_nearest() {
        let v = board();
        let got = |l: &str| classify(&v, l, false).map(|s| s.answer());
        assert_eq!(
            got("HLEP").as_deref(),
            Some("ERROR: unknown command HLEP (did you mean HELP?). Nothing was done.")
        );
        assert_eq!(
            got("QUIT").as_deref(),
            Some("ERROR: unknown command QUIT: send HELP for the commands. Nothing was done.")
        );
        assert_eq!(
            got("Set pasword x").as_deref(),
            Some(
                "ERROR: unknown command SET PASWORD (did you mean SET PASSWORD?). Nothing was \
                 done."
            )
        );
        // Orders, good or bad, are the order parser's.
        assert_eq!(got("A Par-Bur"), None);
        assert_eq!(got("A Burgandy H"), None);
        assert_eq!(got("Par-Bur"), None);
    }

    /// A mail's closing lines after its last command are not read; the same words
    /// before a command are not a closing.
    #[test]
    fn closings_are_not_read() {
        let v = board();
        for l in ["Thanks!", "Alice", "Cheers, Bob"] {
            assert_eq!(classify(&v, l, true), Some(Stray::Closing), "{l}");
        }
        assert_eq!(classify(&v, "Thanks!", false), None);
        // An order of one or two words is still an order at the end of a mail.
        assert_eq!(classify(&v, "A Par-Bur", true), None);
        // A misspelt order is answered as one, with its own hint.
        assert_eq!(classify(&v, "A Burgandy", true), None);
        assert_eq!(classify(&v, "Burgandy-Par", true), None);
    }
}
