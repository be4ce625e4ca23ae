//! A mail body read as commands: quoted lines and the signature dropped, each remaining line
//! numbered as in the body and sorted into a command, an order line or press.

/// One command of a mail, with the body line it was on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `SIGNON POWER GAME PASSWORD` (POWER may be `GM`).
    Signon {
        /// The power, or `GM`.
        power: String,
        /// The game.
        game: String,
        /// The password.
        password: String,
    },
    /// `SIGNON` that doesn't have its three words.
    BadSignon,
    /// `HELP`.
    Help,
    /// `LIST`.
    List,
    /// `HISTORY`.
    History,
    /// `SUMMARY`.
    Summary,
    /// `CLEAR`.
    Clear,
    /// `SIGNOFF`: the rest of the mail is not read.
    Signoff,
    /// `SET PASSWORD NEW`.
    SetPassword(String),
    /// `SET ADDRESS NEW`.
    SetAddress(String),
    /// `PRESS TO P1 P2 ...` or `BROADCAST` (no powers), with its text up to `ENDPRESS`.
    Press {
        /// The powers named (none: broadcast).
        to: Vec<String>,
        /// The text.
        body: String,
    },
    /// One of the GM's commands.
    Gm(GmCommand),
    /// Anything else: an order line.
    Order(String),
}

/// A command only the GM may give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GmCommand {
    /// `PROCESS PHASE` (the phase as the game names it; empty when not given).
    Process(String),
    /// `PREVIEW`.
    Preview,
    /// `ROLLBACK PHASE`.
    Rollback(String),
    /// `SET DEADLINE TIME`.
    SetDeadline(String),
    /// `SET GRACE PERIOD`.
    SetGrace(String),
    /// `SET PICTURES ON|OFF`: a picture of the board in each result mail.
    SetPictures(String),
    /// `CONTROL MINOR POWER`.
    Control(String, String),
    /// `PAUSE`.
    Pause,
    /// `RESUME`.
    Resume,
}

/// A command and the 1-based body line it starts on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The body line.
    pub number: usize,
    /// The line as written (trimmed).
    pub text: String,
    /// What it is.
    pub command: Command,
}

/// The lines of `body` that are the sender's own: up to a signature (`-- `) or an unmarked quote
/// (`-----Original Message-----`), without quoted
/// lines (`>`), blank lines and the "On ... wrote:" line that introduces a quote.
fn own_lines(body: &str) -> Vec<(usize, &str)> {
    let lines: Vec<&str> = body.lines().collect();
    let mut out = Vec::new();
    for (i, raw) in lines.iter().enumerate() {
        let t = raw.trim();
        // A signature, or a quote written without `>` (Outlook's "Original Message", a forward).
        if *raw == "-- "
            || *raw == "--"
            || (t.starts_with("-----") && t.to_ascii_lowercase().contains("original message"))
            || t.eq_ignore_ascii_case("Begin forwarded message:")
        {
            break;
        }
        if t.is_empty() || t.starts_with('>') {
            continue;
        }
        let next_quoted = lines
            .get(i + 1)
            .is_some_and(|n| n.trim_start().starts_with('>'));
        if next_quoted && t.ends_with("wrote:") {
            continue;
        }
        out.push((i + 1, t));
    }
    out
}

/// The text the judge reads of a body ([`own_lines`], one a line): what a replay of the same
/// commands is recognised by, whatever headers, quotes or signature came with it.
pub fn own_text(body: &str) -> String {
    own_lines(body)
        .iter()
        .map(|(_, t)| format!("{t}\n"))
        .collect()
}

fn words(t: &str) -> Vec<&str> {
    t.split_whitespace().collect()
}

/// Reads a body into commands. Press runs from `PRESS`/`BROADCAST` to `ENDPRESS` (or the end).
pub fn read(body: &str) -> Vec<Line> {
    let mut out: Vec<Line> = Vec::new();
    let mut press: Option<(usize, String, Vec<String>, Vec<&str>)> = None;
    for (number, t) in own_lines(body) {
        let w = words(t);
        let first = w
            .first()
            .map(|s| s.to_ascii_uppercase())
            .unwrap_or_default();
        if let Some((_, _, _, text)) = press.as_mut() {
            if first == "ENDPRESS" {
                if let Some((n, head, to, text)) = press.take() {
                    out.push(press_line(n, head, to, &text));
                }
            } else {
                text.push(t);
            }
            continue;
        }
        let second = w.get(1).map(|s| s.to_ascii_uppercase()).unwrap_or_default();
        let rest = |from: usize| w.get(from..).map(|r| r.join(" ")).unwrap_or_default();
        let command = match (first.as_str(), second.as_str()) {
            ("SIGNON", _) => match w.as_slice() {
                [_, power, game, password] => Command::Signon {
                    power: power.to_string(),
                    game: game.to_string(),
                    password: password.to_string(),
                },
                _ => Command::BadSignon,
            },
            ("HELP", _) => Command::Help,
            ("LIST", _) => Command::List,
            ("HISTORY", _) => Command::History,
            ("SUMMARY", _) => Command::Summary,
            ("CLEAR", _) => Command::Clear,
            ("SIGNOFF", _) => Command::Signoff,
            ("PROCESS", _) => Command::Gm(GmCommand::Process(rest(1))),
            ("PREVIEW", _) => Command::Gm(GmCommand::Preview),
            ("PAUSE", _) => Command::Gm(GmCommand::Pause),
            ("RESUME", _) => Command::Gm(GmCommand::Resume),
            ("ROLLBACK", _) => Command::Gm(GmCommand::Rollback(rest(1))),
            ("CONTROL", _) if w.len() == 3 => {
                Command::Gm(GmCommand::Control(w[1].to_string(), w[2].to_string()))
            }
            ("SET", "PASSWORD") => Command::SetPassword(rest(2)),
            ("SET", "ADDRESS") => Command::SetAddress(rest(2)),
            ("SET", "DEADLINE") => Command::Gm(GmCommand::SetDeadline(rest(2))),
            ("SET", "GRACE") => Command::Gm(GmCommand::SetGrace(rest(2))),
            ("SET", "PICTURES") => Command::Gm(GmCommand::SetPictures(rest(2))),
            ("PRESS", "TO") => {
                let to = w[2..].iter().map(|s| s.to_string()).collect();
                press = Some((number, t.to_string(), to, Vec::new()));
                continue;
            }
            ("BROADCAST", _) => {
                press = Some((number, t.to_string(), Vec::new(), Vec::new()));
                continue;
            }
            _ => Command::Order(t.to_string()),
        };
        out.push(Line {
            number,
            text: t.to_string(),
            command,
        });
    }
    if let Some((n, head, to, text)) = press.take() {
        out.push(press_line(n, head, to, &text));
    }
    out
}

fn press_line(number: usize, head: String, to: Vec<String>, text: &[&str]) -> Line {
    Line {
        number,
        text: head,
        command: Command::Press {
            to,
            body: text.iter().map(|l| format!("{l}\n")).collect(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 10: quoted lines, the "wrote:" line and the signature are not read as commands.
    #[test]
    fn quotes_and_signature_are_dropped() {
        let body = "signon France g1 pw\nA Par-Bur\n\nOn Monday the judge wrote:\n> A Mar-Spa\n> SIGNON GM g1 x\n-- \nJean\nA Bre-Pic\n";
        let lines = read(body);
        let got: Vec<(usize, &Command)> = lines.iter().map(|l| (l.number, &l.command)).collect();
        assert_eq!(
            got,
            vec![
                (
                    1,
                    &Command::Signon {
                        power: "France".into(),
                        game: "g1".into(),
                        password: "pw".into()
                    }
                ),
                (2, &Command::Order("A Par-Bur".into())),
            ]
        );
    }

    /// Issue 10: a reply quoting the judge's mail without `>` (Outlook) is read up to the quote.
    #[test]
    fn original_message_ends_the_mail() {
        let lines = read("list\n-----Original Message-----\nA(Par)-Bur\n");
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].command, Command::List);
    }

    /// Issue 10: press runs to ENDPRESS and keeps its lines; what follows is read again.
    #[test]
    fn press_runs_to_endpress() {
        let lines = read("PRESS TO Britain Russia\nHello\n  there\nENDPRESS\nlist\n");
        assert_eq!(
            lines[0].command,
            Command::Press {
                to: vec!["Britain".into(), "Russia".into()],
                body: "Hello\nthere\n".into()
            }
        );
        assert_eq!(lines[1].command, Command::List);
        assert_eq!(lines[1].number, 5);
    }
}
