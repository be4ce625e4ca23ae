//! A mail body read as commands: quoted lines and the signature dropped, each remaining line
//! numbered as in the body and sorted into a command, an order line or press.

/// One command of a mail, with the body line it was on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Command {
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
    /// `HISTORY PRESS [PHASE]`: the press sent or received (the phase as the game names it;
    /// empty: every phase).
    HistoryPress(String),
    /// `MAP [PHASE]`: a picture of the board after a phase, or now (empty).
    Map(String),
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
    /// `SET WAIT` (true) or `SET NOWAIT`: the phase waits for its deadline.
    SetWait(bool),
    /// `SET ABSENCE [FROM TO | NONE]`, with the words after ABSENCE.
    SetAbsence(String),
    /// `SET DRAW` (true) or `SET NODRAW`: the secret draw vote.
    SetDraw(bool),
    /// `SET CONCEDE POWER` (`NONE`, or `SET NOCONCEDE`: withdrawn).
    SetConcede(String),
    /// `SET KEY VALUE` with any other word: the GM's setting of the game (`SET GRACE 12h`,
    /// `SET PRESS GREY`), or from a player an unknown command (`SET PASWORD`).
    Set {
        /// The key as written.
        key: String,
        /// The value as written.
        value: String,
    },
    /// `PRESS TO P1 P2 ...` or `BROADCAST` (no powers), with its text up to `ENDPRESS`;
    /// `PRESS GREY TO ...`, `BROADCAST GREY`: the sender not named.
    Press {
        /// The powers named (none: broadcast).
        to: Vec<String>,
        /// Grey press.
        grey: bool,
        /// The text.
        body: String,
    },
    /// `RESIGN`: the player leaves the power signed on as.
    Resign,
    /// `TAKEOVER POWER GAME CODE`: an open seat taken with the GM's one-time code.
    Takeover {
        /// The power.
        power: String,
        /// The game.
        game: String,
        /// The code.
        code: String,
    },
    /// `TAKEOVER` that doesn't have its three words.
    BadTakeover,
    /// `OBSERVE GAME` (empty when not given).
    Observe(String),
    /// `UNOBSERVE GAME` (empty when not given).
    Unobserve(String),
    /// `CONFIRM OBSERVE GAME TOKEN`: the token the judge mailed for an OBSERVE, sent back.
    Confirm {
        /// The game.
        game: String,
        /// The token.
        token: String,
    },
    /// `CONFIRM` that doesn't have `OBSERVE GAME TOKEN`.
    BadConfirm,
    /// One of the GM's commands.
    Gm(GmCommand),
    /// A known mobile signature ("Sent from my iPhone"): it ends the mail, and the reply lists
    /// it as not read.
    Closing,
    /// Anything else: an order line.
    Order(String),
}

impl Command {
    /// Whether this is one of the judge's commands, not a line that may be an order or a
    /// closing.
    pub(crate) fn is_command(&self) -> bool {
        !matches!(self, Command::Order(_) | Command::Closing)
    }
}

/// The words that start a command, as [`read`] knows them (a `SET` command with its second
/// word; the GM's settings, `SET KEY VALUE`, are `crate::settings::KEYS`): the one list the
/// reader's tests and the "did you mean" of an unknown command use. A new command adds its
/// words here.
pub(crate) const COMMANDS: &[&str] = &[
    "SIGNON",
    "HELP",
    "LIST",
    "HISTORY",
    "SUMMARY",
    "CLEAR",
    "SIGNOFF",
    "SET PASSWORD",
    "SET ADDRESS",
    "PRESS TO",
    "BROADCAST",
    "PROCESS",
    "PREVIEW",
    "ROLLBACK",
    "SET DEADLINE",
    "CONTROL",
    "PAUSE",
    "RESUME",
    "RESIGN",
    "TAKEOVER",
    "OBSERVE",
    "UNOBSERVE",
    "CONFIRM OBSERVE",
    "CODE",
    "REPLACE",
    "SET WAIT",
    "SET NOWAIT",
    "SET ABSENCE",
    "SET DRAW",
    "SET NODRAW",
    "SET CONCEDE",
    "SET NOCONCEDE",
    "END",
    "MAP",
];

/// The command closest to the words `line` starts with, when it is close enough to be a typo
/// (`HLEP`: HELP; `SET PASWORD`: SET PASSWORD).
pub(crate) fn nearest_command(line: &str) -> Option<&'static str> {
    nearest(line, COMMANDS.iter().copied())
}

/// The SET command closest to `SET WORD` (the line), when it is close enough to be a typo:
/// among the players' SET commands, and for the GM (`gm`) also SET DEADLINE and every setting
/// (`SET GRACE`).
pub(crate) fn nearest_set(line: &str, gm: bool) -> Option<String> {
    let keys: Vec<String> = crate::settings::KEYS
        .iter()
        .filter(|_| gm)
        .map(|(k, _)| format!("SET {}", k.to_ascii_uppercase()))
        .collect();
    let set = COMMANDS
        .iter()
        .copied()
        .filter(|c| c.starts_with("SET ") && (gm || *c != "SET DEADLINE"));
    nearest(line, set.chain(keys.iter().map(String::as_str))).map(str::to_string)
}

/// Of `candidates`, the one closest to the words `line` starts with, within a typo or two.
fn nearest<'a>(line: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let w = words(line);
    let one = w.first()?.to_ascii_uppercase();
    let two = w
        .get(1)
        .map(|s| format!("{one} {}", s.to_ascii_uppercase()))
        .unwrap_or_default();
    candidates
        .filter_map(|c| {
            // A two-word command is compared with the line's first two words.
            let written = if c.contains(' ') { &two } else { &one };
            let d = typos(written, c);
            let limit = if c.len() <= 4 { 1 } else { 2 };
            (d > 0 && d <= limit).then_some((d, c))
        })
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// Edits from `a` to `b`, a swap of two letters counting one (optimal string alignment).
fn typos(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // The table's rows two back, one back, and this one.
    let mut two: Vec<usize> = Vec::new();
    let mut one: Vec<usize> = (0..=b.len()).collect();
    for (i, &ca) in a.iter().enumerate() {
        let mut row = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            let mut best = (one[j] + usize::from(ca != cb))
                .min(one[j + 1] + 1)
                .min(row[j] + 1);
            let swapped = i > 0 && j > 0 && a[i - 1] == cb && b[j - 1] == ca;
            if swapped {
                best = best.min(two[j - 1] + 1);
            }
            row[j + 1] = best;
        }
        two = std::mem::replace(&mut one, row);
    }
    one[b.len()]
}

/// How mail programs on phones sign a mail ("Sent from my iPhone", "Get Outlook for iOS"),
/// in lower case: such a line ends the mail.
const MOBILE_SIGNATURES: &[&str] = &[
    "sent from my ",
    "get outlook for ",
    "sent from outlook",
    "sent from mail for windows",
    "sent from yahoo mail",
    "sent from proton mail",
    "sent with proton mail",
    "sent from gmail mobile",
];

/// Whether `t` (a trimmed line) is a known mobile signature.
pub(crate) fn is_mobile_signature(t: &str) -> bool {
    let lower = t.to_lowercase();
    MOBILE_SIGNATURES.iter().any(|s| lower.starts_with(s)) && words(t).len() <= 8
}

/// A command only the GM may give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum GmCommand {
    /// `PROCESS PHASE [NOW]` (the phase as the game names it; empty when not given). `NOW`
    /// processes it before its deadline.
    Process {
        /// The phase named.
        phase: String,
        /// `NOW`: processed anyway, before the deadline too.
        anyway: bool,
    },
    /// `PREVIEW`.
    Preview,
    /// `ROLLBACK PHASE [REASON...]` (a phase is three words: `Autumn 1801 Movement`).
    Rollback {
        /// The phase named.
        phase: String,
        /// Why, for the players' notice (may be empty).
        reason: String,
    },
    /// `SET DEADLINE TIME` (the game's local time, or with an offset).
    SetDeadline(String),
    /// `CONTROL MINOR POWER`.
    Control(String, String),
    /// `PAUSE`.
    Pause,
    /// `RESUME`.
    Resume,
    /// `CODE POWER [ADDRESS]`: a one-time code for an open seat, mailed to the address (or to
    /// the GM). The words after CODE.
    Code(Vec<String>),
    /// `REPLACE POWER ADDRESS`: the seat given to a new player. The words after REPLACE.
    Replace(Vec<String>),
    /// `END DRAW P1 P2 ... | END WINNER P | END REASON TEXT` (with the words after END).
    End(String),
}

/// A command and the 1-based body line it starts on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Line {
    /// The body line.
    pub number: usize,
    /// The line as written (trimmed).
    pub text: String,
    /// What it is.
    pub command: Command,
}

/// Own lines (not blank, not quoted) one mail may hold: a power's orders and a few commands
/// take a few dozen; more is a pasted file or a flood, and the mail is refused unread.
pub(crate) const MAX_LINES: usize = 2000;

/// A body with more than [`MAX_LINES`] own lines: how many it has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the mail has {0} lines of text; the judge reads at most {MAX_LINES} in one mail")]
pub(crate) struct TooLong(pub usize);

/// The lines of `body` that are the sender's own: up to a signature (`-- `) or an unmarked quote
/// (`-----Original Message-----`), without quoted
/// lines (`>`), blank lines and the "On ... wrote:" line that introduces a quote. Past
/// [`MAX_LINES`] nothing more is kept, only counted: a flood costs no memory.
fn own_lines(body: &str) -> Result<Vec<(usize, &str)>, TooLong> {
    let mut lines = body.lines().enumerate().peekable();
    let mut out = Vec::new();
    let mut count = 0usize;
    while let Some((i, raw)) = lines.next() {
        let t = raw.trim();
        // A signature, or a quote written without `>` (Outlook's "Original Message", a forward).
        if raw == "-- "
            || raw == "--"
            || (t.starts_with("-----") && t.to_ascii_lowercase().contains("original message"))
            || t.eq_ignore_ascii_case("Begin forwarded message:")
        {
            break;
        }
        if t.is_empty() || t.starts_with('>') {
            continue;
        }
        let next_quoted = lines
            .peek()
            .is_some_and(|(_, n)| n.trim_start().starts_with('>'));
        if next_quoted && t.ends_with("wrote:") {
            continue;
        }
        count = count.saturating_add(1);
        if count <= MAX_LINES {
            out.push((i.saturating_add(1), t));
        }
        // What follows a phone's signature is the mail program's, not the sender's.
        if is_mobile_signature(t) {
            break;
        }
    }
    if count > MAX_LINES {
        return Err(TooLong(count));
    }
    Ok(out)
}

fn words(t: &str) -> Vec<&str> {
    t.split_whitespace().collect()
}

/// Reads a body into commands. Press runs from `PRESS`/`BROADCAST` to `ENDPRESS` (or the end).
/// A body of more than [`MAX_LINES`] own lines is not read.
pub(crate) fn read(body: &str) -> Result<Vec<Line>, TooLong> {
    let mut out: Vec<Line> = Vec::new();
    let mut press: Option<OpenPress> = None;
    for (number, t) in own_lines(body)? {
        if is_mobile_signature(t) {
            // The end of the mail: it ends press too.
            if let Some(open) = press.take() {
                out.push(open.line());
            }
            out.push(Line {
                number,
                text: t.to_string(),
                command: Command::Closing,
            });
            break;
        }
        let w = words(t);
        let first = w
            .first()
            .map(|s| s.to_ascii_uppercase())
            .unwrap_or_default();
        if let Some(open) = press.as_mut() {
            if first == "ENDPRESS" {
                if let Some(open) = press.take() {
                    out.push(open.line());
                }
            } else {
                open.text.push(t);
            }
            continue;
        }
        let second = w.get(1).map(|s| s.to_ascii_uppercase()).unwrap_or_default();
        let rest = |from: usize| w.get(from..).map(|r| r.join(" ")).unwrap_or_default();
        let tail = |from: usize| {
            w.get(from..)
                .map(|r| r.iter().map(|s| s.to_string()).collect())
                .unwrap_or_default()
        };
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
            ("HISTORY", "PRESS") => Command::HistoryPress(rest(2)),
            ("HISTORY", _) => Command::History,
            ("MAP", _) => Command::Map(rest(1)),
            ("SUMMARY", _) => Command::Summary,
            ("CLEAR", _) => Command::Clear,
            ("RESIGN", _) => Command::Resign,
            ("TAKEOVER", _) => match w.as_slice() {
                [_, power, game, code] => Command::Takeover {
                    power: power.to_string(),
                    game: game.to_string(),
                    code: code.to_string(),
                },
                _ => Command::BadTakeover,
            },
            ("OBSERVE", _) => Command::Observe(rest(1)),
            ("UNOBSERVE", _) => Command::Unobserve(rest(1)),
            ("CONFIRM", _) => match w.as_slice() {
                [_, what, game, token] if what.eq_ignore_ascii_case("OBSERVE") => {
                    Command::Confirm {
                        game: game.to_string(),
                        token: token.to_string(),
                    }
                }
                _ => Command::BadConfirm,
            },
            ("CODE", _) => Command::Gm(GmCommand::Code(tail(1))),
            ("REPLACE", _) => Command::Gm(GmCommand::Replace(tail(1))),
            ("SIGNOFF", _) => Command::Signoff,
            ("PROCESS", _) => {
                // A phase is three words; a fourth, NOW, says to process before the deadline.
                let anyway = w.len() == 5 && w[4].eq_ignore_ascii_case("NOW");
                Command::Gm(GmCommand::Process {
                    phase: if anyway { w[1..4].join(" ") } else { rest(1) },
                    anyway,
                })
            }
            ("PREVIEW", _) => Command::Gm(GmCommand::Preview),
            ("PAUSE", _) => Command::Gm(GmCommand::Pause),
            ("RESUME", _) => Command::Gm(GmCommand::Resume),
            ("ROLLBACK", _) => Command::Gm(GmCommand::Rollback {
                phase: w.get(1..4).map_or_else(|| rest(1), |p| p.join(" ")),
                reason: rest(4),
            }),
            ("CONTROL", _) if w.len() == 3 => {
                Command::Gm(GmCommand::Control(w[1].to_string(), w[2].to_string()))
            }
            ("SET", "PASSWORD") => Command::SetPassword(rest(2)),
            ("SET", "ADDRESS") => Command::SetAddress(rest(2)),
            ("SET", "DEADLINE") => Command::Gm(GmCommand::SetDeadline(rest(2))),
            // With a word after it, `SET WAIT ON|OFF`: the GM's setting of the game.
            ("SET", "WAIT") if w.len() == 2 => Command::SetWait(true),
            ("SET", "NOWAIT") => Command::SetWait(false),
            ("SET", "ABSENCE") => Command::SetAbsence(rest(2)),
            ("SET", "DRAW") => Command::SetDraw(true),
            ("SET", "NODRAW") => Command::SetDraw(false),
            ("SET", "CONCEDE") => Command::SetConcede(rest(2)),
            ("SET", "NOCONCEDE") => Command::SetConcede("NONE".into()),
            ("END", _) => Command::Gm(GmCommand::End(rest(1))),
            ("SET", _) => Command::Set {
                key: w.get(1).map(|k| k.to_string()).unwrap_or_default(),
                value: rest(2),
            },
            ("PRESS", "TO") => {
                let to = w[2..].iter().map(|s| s.to_string()).collect();
                press = Some(OpenPress::new(number, t, to, false));
                continue;
            }
            ("PRESS", "GREY") if w.get(2).is_some_and(|s| s.eq_ignore_ascii_case("TO")) => {
                let to = w[3..].iter().map(|s| s.to_string()).collect();
                press = Some(OpenPress::new(number, t, to, true));
                continue;
            }
            ("BROADCAST", _) => {
                press = Some(OpenPress::new(number, t, Vec::new(), second == "GREY"));
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
    if let Some(open) = press.take() {
        out.push(open.line());
    }
    Ok(out)
}

/// The sender's own lines as [`read`] numbers them, with every password masked: what a reply
/// shows when a line failed.
pub(crate) fn as_read(body: &str) -> Vec<(usize, String)> {
    let (masked, _) = mask(body);
    own_lines(&masked)
        .map(|ls| ls.into_iter().map(|(n, t)| (n, t.to_string())).collect())
        .unwrap_or_default()
}

/// What a stored mail shows in place of a password.
pub(crate) const MASK: &str = "******";

/// `body` with the password of every SIGNON and SET PASSWORD line (and the code of a TAKEOVER,
/// the token of a CONFIRM OBSERVE) masked (`SIGNON France g1
/// ******`), wherever the line is: quoted, in press, below a signature, read or not. And the
/// passwords taken out, each with its line's number as `read` numbers lines.
pub fn mask(body: &str) -> (String, Vec<(usize, String)>) {
    let mut out = String::with_capacity(body.len());
    let mut secrets = Vec::new();
    for (i, line) in body.split_inclusive('\n').enumerate() {
        let content = line.trim_end_matches(['\r', '\n']);
        let end = &line[content.len()..];
        // Quote marks and spaces before the command.
        let t = content.trim_start_matches(|c: char| c == '>' || c.is_whitespace());
        let start = content.len() - t.len();
        let w = words(t);
        let upper = |k: usize| w.get(k).map(|s| s.to_ascii_uppercase()).unwrap_or_default();
        // The word the password starts at.
        let secret_word = match (upper(0).as_str(), upper(1).as_str()) {
            ("SIGNON", _) | ("TAKEOVER", _) | ("CONFIRM", "OBSERVE") => Some(3),
            ("SET", "PASSWORD") => Some(2),
            _ => None,
        };
        match secret_word.and_then(|k| word_start(t, k)) {
            Some(at) => {
                secrets.push((i + 1, t[at..].trim_end().to_string()));
                out.push_str(&content[..start + at]);
                out.push_str(MASK);
                out.push_str(end);
            }
            None => out.push_str(line),
        }
    }
    (out, secrets)
}

/// The byte offset in `t` of its word `k` (from 0), if it has one.
fn word_start(t: &str, k: usize) -> Option<usize> {
    let mut n = 0;
    let mut after_space = true;
    for (i, c) in t.char_indices() {
        let space = c.is_whitespace();
        if after_space && !space {
            if n == k {
                return Some(i);
            }
            n += 1;
        }
        after_space = space;
    }
    None
}

/// The passwords [`mask`] took out, as stored beside a mail not yet answered: a line each,
/// its number and the password.
pub fn secrets_text(secrets: &[(usize, String)]) -> String {
    secrets.iter().map(|(n, s)| format!("{n} {s}\n")).collect()
}

/// Puts the passwords kept apart (as [`secrets_text`] wrote them) back into the masked
/// commands of a stored mail, so that the tick answering it signs on as `receive` would have.
pub(crate) fn restore(lines: &mut [Line], secrets: &str) {
    for kept in secrets.lines() {
        let Some((number, secret)) = kept.split_once(' ') else {
            continue;
        };
        let Some(l) = lines.iter_mut().find(|l| number == l.number.to_string()) else {
            continue;
        };
        match &mut l.command {
            Command::Signon { password, .. }
            | Command::SetPassword(password)
            | Command::Takeover { code: password, .. }
            | Command::Confirm {
                token: password, ..
            } if password == MASK => {
                *password = secret.to_string();
            }
            _ => {}
        }
    }
}

/// A press being read: its first line (number, text), the powers named, whether it is grey,
/// and its lines so far.
struct OpenPress<'a> {
    number: usize,
    head: String,
    to: Vec<String>,
    grey: bool,
    text: Vec<&'a str>,
}

impl<'a> OpenPress<'a> {
    fn new(number: usize, head: &str, to: Vec<String>, grey: bool) -> OpenPress<'a> {
        OpenPress {
            number,
            head: head.to_string(),
            to,
            grey,
            text: Vec::new(),
        }
    }

    fn line(self) -> Line {
        Line {
            number: self.number,
            text: self.head,
            command: Command::Press {
                to: self.to,
                grey: self.grey,
                body: self.text.iter().map(|l| format!("{l}\n")).collect(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Quoted lines, the "wrote:" line and the signature are not read as commands.
    #[test]
    fn quotes_and_signature_are_dropped() {
        let body = "signon France g1 pw\nA Par-Bur\n\nOn Monday the judge wrote:\n> A Mar-Spa\n> SIGNON GM g1 x\n-- \nJean\nA Bre-Pic\n";
        let lines = read(body).expect("short");
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

    /// A reply quoting the judge's mail without `>` (Outlook) is read up to the quote.
    #[test]
    fn original_message_ends_the_mail() {
        let lines = read("list\n-----Original Message-----\nA(Par)-Bur\n").expect("short");
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].command, Command::List);
    }

    /// Every SIGNON and SET PASSWORD line loses its password, quoted or
    /// not, and the commands read from the masked text get them back from what was kept.
    #[test]
    fn passwords_are_masked_and_restored() {
        let body = "signon France g1 s3cret\r\nA Par-Bur\r\n  SET PASSWORD new one\r\n> SIGNON GM g1 gmpw\r\n";
        let (masked, secrets) = mask(body);
        assert_eq!(
            masked,
            "signon France g1 ******\r\nA Par-Bur\r\n  SET PASSWORD ******\r\n> SIGNON GM g1 ******\r\n"
        );
        assert_eq!(
            secrets,
            vec![
                (1, "s3cret".to_string()),
                (3, "new one".to_string()),
                (4, "gmpw".to_string())
            ]
        );
        let mut lines = read(&masked).expect("a short mail");
        restore(&mut lines, &secrets_text(&secrets));
        let commands = |ls: Vec<Line>| {
            ls.into_iter()
                .map(|l| (l.number, l.command))
                .collect::<Vec<_>>()
        };
        assert_eq!(commands(lines), commands(read(body).expect("a short mail")));
    }

    /// The list of command words is the reader's: each starts a command, so an
    /// unknown command's "did you mean" only ever names a real one.
    #[test]
    fn every_command_word_is_read_as_a_command() {
        for c in COMMANDS {
            let lines = read(&format!("{c} a b\n")).expect("short");
            assert!(
                lines.first().is_some_and(|l| l.command.is_command()),
                "{c}: {lines:?}"
            );
        }
        assert_eq!(nearest_command("hlep"), Some("HELP"));
        assert_eq!(nearest_command("set pasword x"), Some("SET PASSWORD"));
        assert_eq!(nearest_command("Alice"), None);
    }

    /// A SET word that is no command's is the nearest player's SET command's typo,
    /// and only for the GM a setting's or SET DEADLINE's.
    #[test]
    fn a_set_typo_is_nearest_among_the_senders_set_words() {
        assert_eq!(
            nearest_set("SET PASWORD x", false).as_deref(),
            Some("SET PASSWORD")
        );
        assert_eq!(nearest_set("SET GRCE 12h", false), None);
        assert_eq!(
            nearest_set("SET GRCE 12h", true).as_deref(),
            Some("SET GRACE")
        );
        assert_eq!(nearest_set("set deadlin x", false), None);
        assert_eq!(
            nearest_set("set deadlin x", true).as_deref(),
            Some("SET DEADLINE")
        );
        assert_eq!(nearest_set("SET COLOUR red", true), None);
        // Every setting's key is read as SET KEY VALUE, for the GM's settings.
        for (key, _) in crate::settings::KEYS {
            let lines = read(&format!("SET {key} on\n")).expect("short");
            assert!(
                matches!(&lines[0].command, Command::Set { key: k, .. } if k == key),
                "{key}: {lines:?}"
            );
        }
    }

    /// A phone's signature ends the mail, and press with it.
    #[test]
    fn a_mobile_signature_ends_the_mail_and_its_press() {
        let lines =
            read("PRESS TO France\nHello\nSent from my iPhone\nA Par-Bur\n").expect("short");
        let got: Vec<&Command> = lines.iter().map(|l| &l.command).collect();
        assert_eq!(
            got,
            vec![
                &Command::Press {
                    to: vec!["France".into()],
                    grey: false,
                    body: "Hello\n".into()
                },
                &Command::Closing
            ]
        );
    }

    /// Issue 31: a CONFIRM OBSERVE's token is masked in the stored mail like a takeover code,
    /// and put back for the tick that answers it; a CONFIRM without its three words is one
    /// command that says what to write.
    #[test]
    fn a_confirmation_token_is_masked_and_restored() {
        let body = "confirm observe g2 Xy7kPq2mZz9a\nCONFIRM g2\n";
        let (masked, secrets) = mask(body);
        assert_eq!(masked, "confirm observe g2 ******\nCONFIRM g2\n");
        let mut lines = read(&masked).expect("a short mail");
        restore(&mut lines, &secrets_text(&secrets));
        assert_eq!(
            lines.iter().map(|l| &l.command).collect::<Vec<_>>(),
            vec![
                &Command::Confirm {
                    game: "g2".into(),
                    token: "Xy7kPq2mZz9a".into()
                },
                &Command::BadConfirm
            ]
        );
    }

    /// A TAKEOVER's one-time code is masked in the stored mail like a password, and
    /// put back for the tick that answers it.
    #[test]
    fn a_takeover_code_is_masked_and_restored() {
        let body = "TAKEOVER France g1 Xy7kPq2mZz9a\nOBSERVE g2\n";
        let (masked, secrets) = mask(body);
        assert_eq!(masked, "TAKEOVER France g1 ******\nOBSERVE g2\n");
        let mut lines = read(&masked).expect("a short mail");
        restore(&mut lines, &secrets_text(&secrets));
        assert_eq!(
            lines.iter().map(|l| &l.command).collect::<Vec<_>>(),
            vec![
                &Command::Takeover {
                    power: "France".into(),
                    game: "g1".into(),
                    code: "Xy7kPq2mZz9a".into()
                },
                &Command::Observe("g2".into())
            ]
        );
    }

    /// PRESS GREY TO and BROADCAST GREY are grey press; HISTORY PRESS and MAP take
    /// an optional phase; the GM's press settings are read as any setting.
    #[test]
    fn grey_press_history_press_map_and_press_settings_read() {
        let lines = read(
            "press grey to Austria\nhi\nENDPRESS\nBROADCAST grey\nall\nENDPRESS\n\
             HISTORY PRESS Spring 1801 Movement\nhistory\nMAP\nmap Winter 1800 Bids\n\
             SET PRESS public\nSET GM-COPY on\n",
        )
        .expect("short");
        let commands: Vec<Command> = lines.into_iter().map(|l| l.command).collect();
        assert_eq!(
            commands,
            vec![
                Command::Press {
                    to: vec!["Austria".into()],
                    grey: true,
                    body: "hi\n".into()
                },
                Command::Press {
                    to: vec![],
                    grey: true,
                    body: "all\n".into()
                },
                Command::HistoryPress("Spring 1801 Movement".into()),
                Command::History,
                Command::Map(String::new()),
                Command::Map("Winter 1800 Bids".into()),
                Command::Set {
                    key: "PRESS".into(),
                    value: "public".into()
                },
                Command::Set {
                    key: "GM-COPY".into(),
                    value: "on".into()
                },
            ]
        );
    }

    /// Press runs to ENDPRESS and keeps its lines; what follows is read again.
    #[test]
    fn press_runs_to_endpress() {
        let lines =
            read("PRESS TO Britain Russia\nHello\n  there\nENDPRESS\nlist\n").expect("short");
        assert_eq!(
            lines[0].command,
            Command::Press {
                to: vec!["Britain".into(), "Russia".into()],
                grey: false,
                body: "Hello\nthere\n".into()
            }
        );
        assert_eq!(lines[1].command, Command::List);
        assert_eq!(lines[1].number, 5);
    }
}
