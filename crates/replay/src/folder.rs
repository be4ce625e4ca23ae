//! The game folder (docs/games.md): `game.toml` (the game's settings), `mail/` (the mails in, one
//! RFC 5322 message per file) and `record.txt` (the expected result of every phase played).

use chrono::{DateTime, Utc};
use napjudge_cases::file::{self, CaseFileError, Section};
use napjudge_judge::{parse_time, ClockError, Period, Periods, Setting};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Why a game folder can't be read.
#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    /// A file can't be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// game.toml is not the settings' TOML.
    #[error("{path}: {message} (see docs/games.md for game.toml's keys)")]
    Settings {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// A period or time in game.toml can't be read.
    #[error("{path}: {key}: {source}")]
    Clock {
        /// The file.
        path: String,
        /// The key.
        key: &'static str,
        /// Why.
        source: ClockError,
    },
    /// A mail without a readable `Date:`.
    #[error("{0}: the mail has no readable Date: header (write an RFC 5322 date, e.g. 'Mon, 4 Mar 2019 10:00:00 +0000')")]
    NoDate(String),
    /// record.txt can't be read.
    #[error(transparent)]
    Record(#[from] CaseFileError),
}

/// `[game]` of game.toml.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameSettings {
    /// The judge's game name.
    pub name: String,
    /// The variant (`standard`, `napoleonic`).
    pub variant: String,
    /// Rule switches, as `game create --option` takes them.
    #[serde(default)]
    pub options: Vec<String>,
    /// The GM's address.
    pub gm: String,
    /// The judge's own address (the mails' `To:`).
    #[serde(default = "default_judge")]
    pub judge: String,
    /// The zone deadlines are shown in.
    #[serde(default = "default_zone")]
    pub timezone: String,
    /// When `game start` runs.
    pub start: String,
    /// The movement period.
    pub movement: String,
    /// The retreat period.
    pub retreat: String,
    /// The Winter period.
    pub winter: String,
    /// The grace after each deadline.
    pub grace: String,
    /// How long before a deadline the reminder goes (default 12h, as `game create`).
    #[serde(default = "default_remind")]
    pub remind: String,
    /// Wait for the deadline even when everyone has ordered.
    #[serde(default)]
    pub wait: bool,
    /// Result mails carry a picture of the board (default true, as `game create`).
    #[serde(default = "default_pictures")]
    pub pictures: bool,
    /// Where the game comes from, free text.
    #[serde(default)]
    pub source: String,
    /// When the recorded judge ran the ticks that processed its phases (`game export` writes
    /// them): when given, the replay ticks at these times only, not at each mail, reminder
    /// time and deadline.
    #[serde(default)]
    pub ticks: Option<Vec<String>>,
}

fn default_judge() -> String {
    "judge@napjudge.example.org".into()
}

fn default_pictures() -> bool {
    true
}

fn default_zone() -> String {
    "UTC".into()
}

fn default_remind() -> String {
    "12h".into()
}

/// `[powers.NAME]` of game.toml.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PowerSettings {
    /// The player's address.
    pub address: String,
    /// The player's password (public: a fixture's).
    pub password: String,
}

/// `[[shell]]` of game.toml: a GM's command at the shell, run by the replay at its time.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShellStep {
    /// When the GM ran it.
    pub at: String,
    /// Its napjudge arguments: `["game", "resume", "life"]`.
    pub args: Vec<String>,
    /// What it read on its standard input: `game orders`' orders.
    #[serde(default)]
    pub input: Option<String>,
}

/// A shell step, its time read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// When.
    pub at: DateTime<Utc>,
    /// The napjudge arguments.
    pub args: Vec<String>,
    /// Its standard input.
    pub input: Option<String>,
}

/// game.toml.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The game.
    pub game: GameSettings,
    /// The settings `[game]` has no key for, as `game set KEY VALUE` takes them (`abandon =
    /// "2"`, `press = "grey"`, `delay = "10m"`): a key `game set` doesn't know is refused.
    #[serde(default)]
    pub settings: BTreeMap<String, String>,
    /// The GM's commands at the shell, in time order.
    #[serde(default)]
    pub shell: Vec<ShellStep>,
    /// Each power's player, by power name; `[powers.GM]` gives the GM's password when the
    /// folder has mails from the GM.
    pub powers: BTreeMap<String, PowerSettings>,
}

impl Settings {
    /// The periods, read.
    pub fn periods(&self, path: &str) -> Result<Periods, FolderError> {
        let read = |key: &'static str, text: &str| {
            Period::parse(text).map_err(|source| FolderError::Clock {
                path: path.to_string(),
                key,
                source,
            })
        };
        Ok(Periods {
            movement: read("movement", &self.game.movement)?,
            retreat: read("retreat", &self.game.retreat)?,
            winter: read("winter", &self.game.winter)?,
            grace: read("grace", &self.game.grace)?,
            remind: read("remind", &self.game.remind)?,
        })
    }

    /// `[settings]`, read as `game set` reads them.
    pub fn game_settings(&self, path: &str) -> Result<Vec<Setting>, FolderError> {
        self.settings
            .iter()
            .map(|(k, v)| {
                Setting::parse(k, v).map_err(|e| FolderError::Settings {
                    path: path.to_string(),
                    message: format!("[settings] {k}: {e}"),
                })
            })
            .collect()
    }

    /// `[[shell]]`, the times read.
    pub fn shell_steps(&self, path: &str) -> Result<Vec<Step>, FolderError> {
        self.shell
            .iter()
            .map(|s| {
                Ok(Step {
                    at: parse_time(&s.at).map_err(|source| FolderError::Clock {
                        path: path.to_string(),
                        key: "shell at",
                        source,
                    })?,
                    args: s.args.clone(),
                    input: s.input.clone(),
                })
            })
            .collect()
    }

    /// `ticks`, read.
    pub fn ticks(&self, path: &str) -> Result<Option<Vec<DateTime<Utc>>>, FolderError> {
        let read = |t: &String| {
            parse_time(t).map_err(|source| FolderError::Clock {
                path: path.to_string(),
                key: "ticks",
                source,
            })
        };
        self.game
            .ticks
            .as_ref()
            .map(|ts| ts.iter().map(read).collect())
            .transpose()
    }

    /// When the game starts.
    pub fn start(&self, path: &str) -> Result<DateTime<Utc>, FolderError> {
        parse_time(&self.game.start).map_err(|source| FolderError::Clock {
            path: path.to_string(),
            key: "start",
            source,
        })
    }
}

/// One mail of the folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MailFile {
    /// Its file name (`0001-england-orders.eml`).
    pub name: String,
    /// The message as stored.
    pub raw: Vec<u8>,
    /// Its `Date:`.
    pub date: DateTime<Utc>,
    /// Marked `X-Napjudge-Expect: refused`: a mistake the judge must refuse.
    pub refused: bool,
}

/// A game folder, read.
#[derive(Clone, Debug)]
pub struct Folder {
    /// Where it is.
    pub dir: PathBuf,
    /// game.toml.
    pub settings: Settings,
    /// The mails, in the order they are replayed: by date, equal dates by file name.
    pub mails: Vec<MailFile>,
    /// record.txt's sections, in order.
    pub record: Vec<Section>,
}

/// The header that marks a mail the judge must refuse (an intended mistake).
pub const EXPECT_HEADER: &str = "X-Napjudge-Expect";

fn read_text(path: &Path) -> Result<String, FolderError> {
    std::fs::read_to_string(path).map_err(|source| FolderError::Io {
        path: path.display().to_string(),
        source,
    })
}

/// Reads one mail file: its date and whether it is marked refused.
pub fn read_mail(name: &str, raw: Vec<u8>) -> Result<MailFile, FolderError> {
    let parsed = mail_parser::MessageParser::default().parse_headers(&raw[..]);
    let date = parsed
        .as_ref()
        .and_then(|m| m.date())
        .and_then(|d| DateTime::from_timestamp(d.to_timestamp(), 0))
        .filter(napjudge_judge::storable)
        .ok_or_else(|| FolderError::NoDate(name.to_string()))?;
    let refused = parsed
        .as_ref()
        .and_then(|m| m.header_raw(EXPECT_HEADER))
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("refused"));
    Ok(MailFile {
        name: name.to_string(),
        raw,
        date,
        refused,
    })
}

/// Whether `dir` is a game folder (it has a game.toml).
pub fn is_game(dir: &Path) -> bool {
    dir.join("game.toml").is_file()
}

/// Reads the game folder at `dir`.
pub fn read(dir: &Path) -> Result<Folder, FolderError> {
    let toml_path = dir.join("game.toml");
    let shown = toml_path.display().to_string();
    let settings: Settings =
        toml::from_str(&read_text(&toml_path)?).map_err(|e| FolderError::Settings {
            path: shown.clone(),
            message: e.message().to_string(),
        })?;
    // The name names the replay's database and outbox folder: nothing that leaves them.
    napjudge_judge::check_name(&settings.game.name).map_err(|e| FolderError::Settings {
        path: shown.clone(),
        message: format!("[game] name: {e}"),
    })?;
    settings.periods(&shown)?;
    settings.start(&shown)?;
    settings.game_settings(&shown)?;
    settings.shell_steps(&shown)?;
    settings.ticks(&shown)?;
    let mail_dir = dir.join("mail");
    let io = |source| FolderError::Io {
        path: mail_dir.display().to_string(),
        source,
    };
    let mut names: Vec<String> = match std::fs::read_dir(&mail_dir) {
        Ok(entries) => entries
            .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
            .collect::<Result<_, _>>()
            .map_err(io)?,
        // A game without mails: nobody ever orders.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(io(e)),
    };
    names.retain(|n| n.ends_with(".eml"));
    names.sort();
    let mut mails = Vec::new();
    for name in names {
        let path = mail_dir.join(&name);
        let raw = std::fs::read(&path).map_err(|source| FolderError::Io {
            path: path.display().to_string(),
            source,
        })?;
        mails.push(read_mail(&name, raw)?);
    }
    // Stable: equal dates stay in file-name order.
    mails.sort_by_key(|m| m.date);
    let record_path = dir.join("record.txt");
    let record = file::parse_record(
        &record_path.display().to_string(),
        &read_text(&record_path)?,
    )?;
    Ok(Folder {
        dir: dir.to_path_buf(),
        settings,
        mails,
        record,
    })
}

/// The game folders at `path`: itself when it is one, else the game folders directly inside it,
/// by name.
pub fn find(path: &Path) -> Result<Vec<PathBuf>, FolderError> {
    if is_game(path) {
        return Ok(vec![path.to_path_buf()]);
    }
    let io = |source| FolderError::Io {
        path: path.display().to_string(),
        source,
    };
    let mut out: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(io)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(io)?
        .into_iter()
        .filter(|p| is_game(p))
        .collect();
    out.sort();
    Ok(out)
}
