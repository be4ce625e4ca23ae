//! Reading case files into their blocks (`docs/case-format.md`). This step knows nothing of
//! boards: names are read later, against the case's variant.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

impl Line {
    /// `FILE:LINE: message`, the one form of an error inside a case file.
    pub fn error(&self, message: impl fmt::Display) -> String {
        format!("{}:{}: {message}", self.file, self.number)
    }
}

/// A line of a case file, with where it came from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Line {
    /// The file it is in (shared by all its lines, and between threads: a replay runs games side
    /// by side).
    pub file: Arc<str>,
    /// The 1-based line number in the file.
    pub number: usize,
    /// The text, trimmed, comment removed.
    pub text: String,
}

/// The orders of one phase and what must come out of it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Step {
    /// `POWER: ORDER` lines.
    pub orders: Vec<Line>,
    /// `POWER: ORDER => succeeds|fails|void` lines.
    pub results: Vec<Line>,
    /// The units expected after the phase, when given.
    pub poststate: Option<Vec<Line>>,
    /// The dislodged units expected after the phase, when given.
    pub postdislodged: Option<Vec<Line>>,
    /// Centre owners expected after the phase, when given.
    pub postowners: Option<Vec<Line>>,
    /// The phase expected after the phase, when given.
    pub postphase: Option<Line>,
    /// Events expected in the phase (`KIND: TEXT`), when given.
    pub events: Option<Vec<Line>>,
    /// Ledger items expected after the phase (`POWER: ITEM; ITEM`), when given.
    pub postledger: Option<Vec<Line>>,
    /// The majors expected to have reached victory (`POSTWINNERS England` or `none`), when given.
    pub postwinners: Option<Line>,
}

/// One case, as written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Case {
    /// The file it is in.
    pub file: String,
    /// The line of its `CASE`.
    pub line: usize,
    /// Its id (`6.A.5`).
    pub id: String,
    /// Its title.
    pub title: String,
    /// The variant's name.
    pub variant: String,
    /// The `PHASE` line.
    pub phase: Option<Line>,
    /// The `OPTIONS` rule switches, each as written: `NAME` or `NAME=on|off`.
    pub options: Vec<String>,
    /// `CHOICE` notes.
    pub choices: Vec<String>,
    /// `STATE` lines.
    pub state: Vec<Line>,
    /// `OWNERS` lines.
    pub owners: Vec<Line>,
    /// `DISLODGED` lines.
    pub dislodged: Vec<Line>,
    /// `STANDOFFS` items.
    pub standoffs: Vec<Line>,
    /// `LEDGER` lines: banks, loans, control of minors.
    pub ledger: Vec<Line>,
    /// `BLOCKADED` items: centres under a successful blockade this year.
    pub blockaded: Vec<Line>,
    /// The phases played.
    pub steps: Vec<Step>,
}

/// Why a case file can't be read.
#[derive(Debug, thiserror::Error)]
pub enum CaseFileError {
    /// A line the format doesn't allow.
    #[error("{file}:{line}: {message}")]
    Syntax {
        /// The file.
        file: String,
        /// The 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The file couldn't be read.
    #[error("{file}: {source}")]
    Io {
        /// The file.
        file: String,
        /// The error.
        source: std::io::Error,
    },
}

/// Which block the lines being read belong to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Block {
    None,
    State,
    Owners,
    Dislodged,
    Standoffs,
    Ledger,
    Blockaded,
    Orders,
    Results,
    Poststate,
    Postdislodged,
    Postowners,
    Postledger,
    Events,
}

/// Reads every case in a file.
pub fn read_file(path: &Path) -> Result<Vec<Case>, CaseFileError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| CaseFileError::Io {
        file: file.clone(),
        source,
    })?;
    parse(&file, &text)
}

/// One section of a game folder's `record.txt` (docs/games.md): the phase played, and what must
/// come out of it, in a case's expectation blocks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// The `AFTER PHASE` line: the phase the judge plays.
    pub after: Line,
    /// The expectations (no orders: they come by mail).
    pub step: Step,
}

/// Reads a game folder's record: `AFTER PHASE` sections of expectation blocks, each closed by
/// `END`, read by the same code as a case's blocks.
pub fn parse_record(file: &str, text: &str) -> Result<Vec<Section>, CaseFileError> {
    Ok(parse_mode(file, text, true)?
        .into_iter()
        .filter_map(|c| {
            let after = c.phase?;
            let step = c.steps.into_iter().next()?;
            Some(Section { after, step })
        })
        .collect())
}

/// Reads every case in a text; `file` names it in messages.
pub fn parse(file: &str, text: &str) -> Result<Vec<Case>, CaseFileError> {
    parse_mode(file, text, false)
}

/// The keywords a record's section takes: its expectation blocks.
const RECORD_KEYWORDS: &[&str] = &[
    "END",
    "RESULTS",
    "POSTSTATE",
    "POSTDISLODGED",
    "POSTOWNERS",
    "POSTLEDGER",
    "EVENTS",
    "POSTWINNERS",
    "POSTPHASE",
];

/// The keywords of a case that a record's section doesn't take (its position and orders come
/// from the game and its mails).
const CASE_KEYWORDS: &[&str] = &[
    "CASE",
    "VARIANT",
    "PHASE",
    "OPTIONS",
    "CHOICE",
    "STATE",
    "OWNERS",
    "DISLODGED",
    "STANDOFFS",
    "LEDGER",
    "BLOCKADED",
    "ORDERS",
];

/// Reads cases, or with `record` a record's sections (each a case of one step, its `AFTER`
/// line kept as the case's phase).
fn parse_mode(file: &str, text: &str, record: bool) -> Result<Vec<Case>, CaseFileError> {
    let err = |line: usize, message: String| CaseFileError::Syntax {
        file: file.to_string(),
        line,
        message,
    };
    let shared: Arc<str> = Arc::from(file);
    let mut cases = Vec::new();
    let mut current: Option<Case> = None;
    let mut block = Block::None;
    for (i, raw) in text.lines().enumerate() {
        let number = i + 1;
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let (word, rest) = match content.split_once(char::is_whitespace) {
            Some((w, r)) => (w, r.trim()),
            None => (content, ""),
        };
        let keyword = word.trim_end_matches(':');
        if record && keyword == "AFTER" {
            if current.is_some() {
                return Err(err(
                    number,
                    "AFTER inside a section: END the previous one".into(),
                ));
            }
            if rest.is_empty() {
                return Err(err(
                    number,
                    "AFTER needs the phase played (AFTER Spring 1901 Movement)".into(),
                ));
            }
            current = Some(Case {
                file: file.to_string(),
                line: number,
                id: "AFTER".into(),
                phase: Some(Line {
                    file: shared.clone(),
                    number,
                    text: rest.to_string(),
                }),
                steps: vec![Step::default()],
                ..Case::default()
            });
            block = Block::None;
            continue;
        }
        if record && CASE_KEYWORDS.contains(&keyword) {
            return Err(err(
                number,
                format!(
                    "{keyword} is not part of a record: a section is AFTER PHASE, then any of {}",
                    RECORD_KEYWORDS.join(", ")
                ),
            ));
        }
        if keyword == "CASE" {
            if current.is_some() {
                return Err(err(
                    number,
                    "CASE inside a case: END the previous one".into(),
                ));
            }
            let (id, title) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            if id.is_empty() {
                return Err(err(number, "CASE needs an id".into()));
            }
            current = Some(Case {
                file: file.to_string(),
                line: number,
                id: id.to_string(),
                title: title.trim().to_string(),
                ..Case::default()
            });
            block = Block::None;
            continue;
        }
        let Some(case) = current.as_mut() else {
            let start = if record {
                "a section (start with AFTER PHASE)"
            } else {
                "a case (start with CASE)"
            };
            return Err(err(number, format!("'{content}' outside {start}")));
        };
        let line = |text: &str| Line {
            file: shared.clone(),
            number,
            text: text.to_string(),
        };
        let step = |case: &mut Case| -> Result<(), CaseFileError> {
            if case.steps.is_empty() {
                return Err(err(number, format!("{keyword} before any ORDERS")));
            }
            Ok(())
        };
        match keyword {
            "END" => {
                if let Some(c) = current.take() {
                    if c.steps.is_empty() {
                        return Err(err(number, format!("case {} has no ORDERS", c.id)));
                    }
                    cases.push(c);
                }
                block = Block::None;
                continue;
            }
            "VARIANT" => case.variant = rest.to_string(),
            "PHASE" => case.phase = Some(line(rest)),
            // Read as a game's options are, when the case is run (`RuleOption`).
            "OPTIONS" => case
                .options
                .extend(rest.split_whitespace().map(str::to_string)),
            "CHOICE" => case.choices.push(rest.to_string()),
            "STATE" => block = Block::State,
            "OWNERS" => block = Block::Owners,
            "DISLODGED" => block = Block::Dislodged,
            "STANDOFFS" => block = Block::Standoffs,
            "LEDGER" => block = Block::Ledger,
            "BLOCKADED" => block = Block::Blockaded,
            "ORDERS" => {
                case.steps.push(Step::default());
                block = Block::Orders;
            }
            "RESULTS" => {
                step(case)?;
                block = Block::Results;
            }
            "POSTSTATE" => {
                step(case)?;
                if let Some(s) = case.steps.last_mut() {
                    s.poststate = Some(Vec::new());
                }
                block = Block::Poststate;
            }
            "POSTDISLODGED" => {
                step(case)?;
                if let Some(s) = case.steps.last_mut() {
                    s.postdislodged = Some(Vec::new());
                }
                block = Block::Postdislodged;
            }
            "POSTOWNERS" => {
                step(case)?;
                if let Some(s) = case.steps.last_mut() {
                    s.postowners = Some(Vec::new());
                }
                block = Block::Postowners;
            }
            "POSTLEDGER" => {
                step(case)?;
                if let Some(s) = case.steps.last_mut() {
                    s.postledger = Some(Vec::new());
                }
                block = Block::Postledger;
            }
            "EVENTS" => {
                step(case)?;
                if let Some(s) = case.steps.last_mut() {
                    s.events = Some(Vec::new());
                }
                block = Block::Events;
            }
            "POSTWINNERS" => {
                step(case)?;
                if let Some(s) = case.steps.last_mut() {
                    s.postwinners = Some(line(rest));
                }
                block = Block::None;
            }
            "POSTPHASE" => {
                step(case)?;
                if let Some(s) = case.steps.last_mut() {
                    s.postphase = Some(line(rest));
                }
                block = Block::None;
            }
            _ => {
                push(case, block, line(content)).map_err(|m| err(number, m))?;
                continue;
            }
        }
        // A block keyword may carry its first item on the same line (`STANDOFFS: Bur, Pic`).
        if !rest.is_empty()
            && matches!(
                block,
                Block::State
                    | Block::Owners
                    | Block::Dislodged
                    | Block::Standoffs
                    | Block::Ledger
                    | Block::Blockaded
            )
            && !matches!(keyword, "VARIANT" | "PHASE" | "OPTIONS" | "CHOICE")
        {
            push(case, block, line(rest)).map_err(|m| err(number, m))?;
        }
    }
    if let Some(c) = current {
        let what = if record {
            format!(
                "the section AFTER {} has no END",
                c.phase.map(|l| l.text).unwrap_or_default()
            )
        } else {
            format!("case {} has no END", c.id)
        };
        return Err(err(c.line, what));
    }
    Ok(cases)
}

/// Files a content line under the block being read.
fn push(case: &mut Case, block: Block, line: Line) -> Result<(), String> {
    let step = case.steps.last_mut();
    let target = match (block, step) {
        (Block::State, _) => &mut case.state,
        (Block::Owners, _) => &mut case.owners,
        (Block::Dislodged, _) => &mut case.dislodged,
        (Block::Standoffs, _) => &mut case.standoffs,
        (Block::Ledger, _) => &mut case.ledger,
        (Block::Blockaded, _) => &mut case.blockaded,
        (Block::Orders, Some(s)) => &mut s.orders,
        (Block::Results, Some(s)) => &mut s.results,
        (Block::Poststate, Some(s)) => s.poststate.get_or_insert_with(Vec::new),
        (Block::Postdislodged, Some(s)) => s.postdislodged.get_or_insert_with(Vec::new),
        (Block::Postowners, Some(s)) => s.postowners.get_or_insert_with(Vec::new),
        (Block::Postledger, Some(s)) => s.postledger.get_or_insert_with(Vec::new),
        (Block::Events, Some(s)) => s.events.get_or_insert_with(Vec::new),
        _ => return Err(format!("'{}' is not in any block", line.text)),
    };
    target.push(line);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_blocks_and_steps() {
        let text = "CASE 1 A title\nVARIANT standard\nPHASE Spring 1901 Movement\nSTATE\n  England: F(NTH)\nORDERS\n  England: F(NTH)-Pic # comment\nRESULTS\n  England: F(NTH)-Pic => fails\nPOSTSTATE\n  England: F(NTH)\nEND\n";
        let cases = parse("t", text).expect("parses");
        assert_eq!(cases.len(), 1);
        let c = &cases[0];
        assert_eq!(c.id, "1");
        assert_eq!(c.title, "A title");
        assert_eq!(c.state[0].text, "England: F(NTH)");
        assert_eq!(c.steps[0].orders[0].text, "England: F(NTH)-Pic");
        assert_eq!(c.steps[0].results.len(), 1);
        assert_eq!(c.steps[0].poststate.as_ref().map(Vec::len), Some(1));
    }

    #[test]
    fn a_case_without_end_is_refused_with_its_line() {
        let e = parse("t", "CASE x\nVARIANT standard\nORDERS\n").unwrap_err();
        assert!(e.to_string().starts_with("t:1:"), "{e}");
    }

    #[test]
    fn inline_standoffs_are_read() {
        let text = "CASE 1\nSTANDOFFS: Bur, Pic\nORDERS\nEND\n";
        let cases = parse("t", text).expect("parses");
        assert_eq!(cases[0].standoffs[0].text, "Bur, Pic");
    }

    /// A record's sections are read with the case's blocks; a bare `AFTER` section
    /// expects nothing but that the phase was played; a case keyword is refused in a record.
    #[test]
    fn record_sections_are_read_with_the_case_blocks() {
        let text = "# a note\nAFTER Spring 1901 Movement\nPOSTSTATE\n  England: F(NTH)\nPOSTPHASE Fall 1901 Movement\nEND\nAFTER Fall 1901 Retreat\nEND\n";
        let sections = parse_record("r", text).expect("parses");
        assert_eq!(sections.len(), 2);
        assert_eq!(sections[0].after.text, "Spring 1901 Movement");
        assert_eq!(sections[0].step.poststate.as_ref().map(Vec::len), Some(1));
        assert!(sections[0].step.postphase.is_some());
        assert_eq!(sections[1].step, Step::default());
        let e = parse_record("r", "AFTER Spring 1901 Movement\nSTATE\nEND\n").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("r:2: STATE is not part of a record"),
            "{e}"
        );
    }

    /// RULINGS §7: LEDGER, BLOCKADED (R5.4), GM lines (R7.8), POSTLEDGER, POSTWINNERS (R7.10).
    #[test]
    fn r7_winter_blocks_are_read() {
        let text = "CASE R7.2\nBLOCKADED: Bre\nLEDGER\n  England: bank 6; loan 3 to France\nORDERS\n  GM: CONTROL Denmark France\nPOSTLEDGER\n  England: bank 3\nPOSTWINNERS none\nEND\n";
        let cases = parse("t", text).expect("parses");
        let c = &cases[0];
        assert_eq!(c.blockaded[0].text, "Bre");
        assert_eq!(c.ledger[0].text, "England: bank 6; loan 3 to France");
        assert_eq!(c.steps[0].orders[0].text, "GM: CONTROL Denmark France");
        assert_eq!(c.steps[0].postledger.as_ref().map(Vec::len), Some(1));
        assert_eq!(
            c.steps[0].postwinners.as_ref().map(|l| l.text.as_str()),
            Some("none")
        );
    }
}
