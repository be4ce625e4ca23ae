//! `napjudge game import`: a recorded game (MILA JSON, [`napjudge_cases::mila`]) turned into a game folder
//! (docs/games.md): each power's orders and each press message as a mail, dated so that the
//! judge sees every mail inside its phase, and the record's next state as each phase's expected
//! result.
//!
//! The dates: the record dates press only. Each phase starts when the judge processes the one
//! before. Its press keeps the record's spacing, shifted later when needed so that it comes at
//! least a minute after the phase's start (the shift carries on to later phases), and is held an
//! hour before the phase's deadline. The orders mails come a minute after the phase's last press
//! (or its start), all at one time. When every power owing orders sends some, the judge
//! processes the phase at that time; else at the deadline plus grace, and the next phase starts
//! then. Which powers owe orders, and which phases the judge plays that the record leaves out
//! (nobody had anything to order), are found by playing the recorded orders through the engine
//! as the judge will; the expected results come from the record alone.

use chrono::{DateTime, Duration, Utc};
use napjudge_cases::mila::{self, MilaError, RecordedGame, RecordedUnit};
use napjudge_cases::write::{force_lines, owner_lines};
use napjudge_engine::position::{Force, Position};
use napjudge_engine::turn::{self, Sheets, TurnError};
use napjudge_engine::variant::{self, LoadError, Phase, PhaseKind, PowerId, ProvinceId, Variant};
use napjudge_judge::Period;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// Why a record can't be imported.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// A file can't be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The record can't be read (names the phase).
    #[error("{file}: {source}")]
    Mila {
        /// The record's file.
        file: String,
        /// Why.
        source: MilaError,
    },
    /// The board doesn't load.
    #[error("variant: {0}")]
    Variant(#[from] LoadError),
    /// An option that is no rule switch.
    #[error("--edition: {0}")]
    Option(String),
    /// The game's name can't be one (it names the folder written).
    #[error("--name: {0}")]
    Name(napjudge_judge::GameError),
    /// The folder has files already.
    #[error("{0} is not empty: give another --out, or --force to replace it")]
    Exists(String),
    /// The first press is dated too early for the game to start an hour before it.
    #[error(
        "{file}: the first press's time_sent {time_sent} is before 1970-01-01T01:00:00Z (it is \
         in tenths of a millisecond since 1970): correct it in the record"
    )]
    Time {
        /// The record's file.
        file: String,
        /// The first press's time, as recorded.
        time_sent: i64,
    },
    /// A phase the judge can't play.
    #[error("{file}: phase {phase}: {message}")]
    Phase {
        /// The record's file.
        file: String,
        /// The phase as recorded.
        phase: String,
        /// Why.
        message: String,
    },
}

/// A game folder, made in memory: each file's path inside the folder and its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Imported {
    /// The game's name.
    pub name: String,
    /// The files, by path.
    pub files: BTreeMap<PathBuf, Vec<u8>>,
}

/// The movement, retreat and Winter periods and the grace an imported game is given.
const PERIODS: [(&str, Period); 4] = [
    ("movement", Period::hours(48)),
    ("retreat", Period::hours(24)),
    ("winter", Period::hours(24)),
    ("grace", Period::hours(0)),
];

fn period(kind: PhaseKind) -> i64 {
    match kind {
        PhaseKind::Movement | PhaseKind::SecondMovement => PERIODS[0].1,
        PhaseKind::Retreat | PhaseKind::SecondRetreat => PERIODS[1].1,
        PhaseKind::Adjustment | PhaseKind::Bids => PERIODS[2].1,
    }
    .secs()
}

/// The game's name: `wd` and the number of a `game_433761_...` file, else the record's id with
/// only its letters and digits (ids such as `/k/HMz7EQEeb` are no names).
fn game_name(file_stem: &str, id: &str) -> String {
    let digits: String = file_stem
        .strip_prefix("game_")
        .map(|r| r.chars().take_while(char::is_ascii_digit).collect())
        .unwrap_or_default();
    if !digits.is_empty() {
        return format!("wd{digits}");
    }
    let clean: String = id
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_ascii_lowercase();
    if clean.is_empty() {
        "imported".into()
    } else {
        clean
    }
}

/// Reads the record at `path` and makes its folder; `LICENSE*` and `NOTICE*` files beside it
/// are copied in as they are (the records' licence asks that its notice goes with them).
pub fn import_file(
    path: &Path,
    options: &[String],
    name: Option<&str>,
) -> Result<Imported, ImportError> {
    let io = |p: &Path| {
        let p = p.display().to_string();
        move |source| ImportError::Io { path: p, source }
    };
    let json = std::fs::read_to_string(path).map_err(io(path))?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut imported = import(&json, &path.display().to_string(), &stem, options, name)?;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let dir = dir.unwrap_or(Path::new("."));
    let mut notices: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io(dir))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.is_file()
                && p.file_name()
                    .map(|n| n.to_string_lossy())
                    .is_some_and(|n| n.starts_with("LICENSE") || n.starts_with("NOTICE"))
        })
        .collect();
    notices.sort();
    for p in notices {
        let bytes = std::fs::read(&p).map_err(io(&p))?;
        if let Some(n) = p.file_name() {
            imported.files.insert(PathBuf::from(n), bytes);
        }
    }
    Ok(imported)
}

/// One phase the judge plays, as the import foresees it.
struct Played {
    phase: Phase,
    /// Some power owing orders sent none: the judge waits for the deadline and grace.
    waits: bool,
}

/// Makes the folder of a record: `json` is the record's text, `file` names it in messages,
/// `stem` is its file name without `.json` (for the game's name when `name` is not given).
pub fn import(
    json: &str,
    file: &str,
    stem: &str,
    options: &[String],
    name: Option<&str>,
) -> Result<Imported, ImportError> {
    let base = variant::load_named("standard")?;
    let v = base
        .with_options(options)
        .map_err(|e| ImportError::Option(e.to_string()))?;
    let game = mila::read(&v, json).map_err(|source| ImportError::Mila {
        file: file.to_string(),
        source,
    })?;
    let name = name.map_or_else(|| game_name(stem, &game.id), str::to_string);
    napjudge_judge::check_name(&name).map_err(ImportError::Name)?;
    let phase_error = |phase: &str, message: String| ImportError::Phase {
        file: file.to_string(),
        phase: phase.to_string(),
        message,
    };
    let played = foresee(&v, &game, &phase_error)?;
    let domain = format!("{name}.example.org");
    let address = |p: PowerId| format!("{}@{domain}", v.power(p).name.to_ascii_lowercase());
    let password = |p: PowerId| format!("{}-{name}", v.power(p).name.to_ascii_lowercase());
    let judge = format!("judge@{domain}");

    let first_press = game
        .phases
        .iter()
        .flat_map(|p| &p.press)
        .map(|m| m.time_sent)
        .min();
    let start = first_press
        .and_then(|t| DateTime::from_timestamp(t / 10_000 - 3600, 0))
        .map_or(DateTime::UNIX_EPOCH, |t| {
            DateTime::from_timestamp(t.timestamp() / 60 * 60, 0).unwrap_or(t)
        });
    // The game starts an hour before its first press: a mail can't be dated before 1970.
    if !napjudge_judge::storable(&start) {
        return Err(ImportError::Time {
            file: file.to_string(),
            time_sent: first_press.unwrap_or_default(),
        });
    }

    let mut mails: Vec<(DateTime<Utc>, String, String)> = Vec::new();
    let mut record = format!(
        "# The recorded result of every phase of {name}, imported from {} by `napjudge game \
         import`:\n# each phase's expected position is the record's next state. Blocks follow \
         docs/case-format.md.\n",
        Path::new(file)
            .file_name()
            .map_or_else(|| file.to_string(), |n| n.to_string_lossy().into_owned())
    );
    let mut phase_start = start;
    let mut shift: i64 = 0;
    for (pair, plays) in game.phases.windows(2).zip(&played) {
        let (now, next) = (&pair[0], &pair[1]);
        let deadline = phase_start + Duration::seconds(period(plays[0].phase.kind));
        let latest = deadline - Duration::seconds(3600);
        let phase_name = v.phase_name(plays[0].phase);
        let mut last = phase_start;
        let mut press = now.press.clone();
        press.sort_by_key(|m| m.time_sent);
        for m in &press {
            let real = m.time_sent / 10_000;
            let earliest = phase_start.timestamp() + 60;
            if real + shift < earliest {
                shift = earliest - real;
            }
            let at = DateTime::from_timestamp(real + shift, 0)
                .unwrap_or(phase_start)
                .max(last)
                .min(latest.max(last));
            last = at;
            let (head, to) = match m.recipient {
                Some(r) => (
                    format!("PRESS TO {}", v.power(r).name),
                    v.power(r).name.clone(),
                ),
                None => ("BROADCAST".to_string(), "all".to_string()),
            };
            let mut body = format!(
                "SIGNON {} {name} {}\r\n{head}\r\n",
                v.power(m.sender).name,
                password(m.sender)
            );
            for line in m.text.lines() {
                body.push_str(line);
                body.push_str("\r\n");
            }
            body.push_str("ENDPRESS\r\n");
            let subject = format!("{name}: press to {to}");
            mails.push((at, address(m.sender), format!("{subject}\n{body}")));
        }
        let orders_at = (last + Duration::seconds(60)).min(deadline - Duration::seconds(60));
        for (&p, text) in &now.orders {
            let mut body = format!("SIGNON {} {name} {}\r\n", v.power(p).name, password(p));
            for line in text.lines() {
                body.push_str(line);
                body.push_str("\r\n");
            }
            let subject = format!("{name}: orders for {phase_name}");
            mails.push((orders_at, address(p), format!("{subject}\n{body}")));
        }
        // When the judge processes each phase it plays before the record's next.
        let mut processed = if now.orders.is_empty() {
            phase_start
        } else {
            orders_at
        };
        for (i, p) in plays.iter().enumerate() {
            if i > 0 {
                phase_start = processed;
            }
            if p.waits {
                let deadline = phase_start + Duration::seconds(period(p.phase.kind));
                processed = deadline + Duration::seconds(PERIODS[3].1.secs());
            }
        }
        phase_start = processed;
        section(&v, &mut record, plays, next, now.phase);
    }

    let mut files = BTreeMap::new();
    for (n, (at, from, text)) in mails.iter().enumerate() {
        let (subject, body) = text.split_once('\n').unwrap_or((text, ""));
        let what = if subject.contains(": press to ") {
            "press"
        } else {
            "orders"
        };
        let who = from.split('@').next().unwrap_or_default();
        let file = format!("mail/{:04}-{who}-{what}.eml", n + 1);
        let eml = format!(
            "From: {from}\r\nTo: {judge}\r\nDate: {}\r\nMessage-ID: <{:04}.{name}@napjudge.example.org>\r\n\
             Subject: {subject}\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\
             Content-Transfer-Encoding: 8bit\r\n\r\n{body}",
            at.to_rfc2822(),
            n + 1
        );
        files.insert(PathBuf::from(file), eml.into_bytes());
    }
    files.insert(PathBuf::from("record.txt"), record.into_bytes());
    let settings = settings_toml(&v, &name, options, &judge, start, file, &address, &password);
    files.insert(PathBuf::from("game.toml"), settings.into_bytes());
    Ok(Imported { name, files })
}

/// Plays the record's orders through the engine as the judge will (each phase from the judge's
/// own position, only the powers owing orders heard): for each recorded phase, the phases the
/// judge plays before the record's next, and whether it waits for the deadline in each.
fn foresee(
    v: &Variant,
    game: &RecordedGame,
    phase_error: &dyn Fn(&str, String) -> ImportError,
) -> Result<Vec<Vec<Played>>, ImportError> {
    let mut position = Position::initial(v);
    let mut out = Vec::new();
    for pair in game.phases.windows(2) {
        let (now, next) = (&pair[0], &pair[1]);
        let Some(phase) = now.phase else {
            return Err(phase_error(
                &now.name,
                "a phase with no name to play".into(),
            ));
        };
        if position.phase != phase {
            return Err(phase_error(
                &now.name,
                format!(
                    "the judge would be playing {} here: the record can't be replayed from the \
                     start of a game",
                    v.phase_name(position.phase)
                ),
            ));
        }
        let owing = turn::owing(v, &position);
        let sheets = Sheets {
            gm: Vec::new(),
            orders: now
                .orders
                .iter()
                .filter(|(p, _)| owing.contains(p))
                .map(|(p, t)| (*p, t.clone()))
                .collect(),
        };
        let waits = owing.iter().any(|p| !now.orders.contains_key(p));
        let play = |position: &Position, sheets: &Sheets| {
            turn::play(v, position, sheets)
                .map_err(|e: TurnError| phase_error(&now.name, e.to_string()))
        };
        let report = play(&position, &sheets)?;
        position = report.next;
        let mut plays = vec![Played { phase, waits }];
        // The phases the record leaves out: nobody had orders to give, or nobody gave any.
        while let Some(want) = next.phase {
            if position.phase >= want || !position.ledgers.winners.is_empty() {
                break;
            }
            plays.push(Played {
                phase: position.phase,
                waits: !turn::owing(v, &position).is_empty(),
            });
            position = play(&position, &Sheets::default())?.next;
        }
        out.push(plays);
    }
    Ok(out)
}

/// Writes the record.txt sections of recorded phase `k`: one per phase the judge plays, the
/// expectations (the record's next state) under the last.
fn section(
    v: &Variant,
    out: &mut String,
    plays: &[Played],
    next: &mila::RecordedPhase,
    now: Option<Phase>,
) {
    for (i, p) in plays.iter().enumerate() {
        if i > 0 {
            out.push_str("# Not in the record: nobody had orders to give, or nobody gave any.\n");
        }
        let _ = writeln!(out, "AFTER {}", v.phase_name(p.phase));
        if i + 1 < plays.len() {
            out.push_str("END\n");
            continue;
        }
        out.push_str("POSTSTATE\n");
        out.push_str(&force_lines(v, &forces(&next.state.units)));
        out.push_str("POSTDISLODGED\n");
        out.push_str(&force_lines(v, &forces(&next.state.dislodged)));
        // Centres change hands after the Autumn: the record's owners are compared once a
        // Winter is reached or played.
        let winter = |ph: Option<Phase>| ph.is_some_and(|ph| ph.kind == PhaseKind::Adjustment);
        if winter(next.phase) || winter(now) || p.phase.kind == PhaseKind::Adjustment {
            let mut owners = vec![None; v.provinces.len()];
            for &(power, c) in &next.state.centres {
                owners[c.index()] = Some(power);
            }
            out.push_str("POSTOWNERS\n");
            out.push_str(&owner_lines(v, &owners));
        }
        if let Some(ph) = next.phase {
            let _ = writeln!(out, "POSTPHASE {}", v.phase_name(ph));
        }
        out.push_str("END\n");
    }
}

/// The recorded units as forces (one unit each: the standard board has no stacks).
fn forces(list: &[RecordedUnit]) -> Vec<(ProvinceId, Force)> {
    list.iter()
        .map(|u| {
            (
                u.region.province,
                Force::single(u.power, u.unit, u.region.coast),
            )
        })
        .collect()
}

/// A TOML string: JSON's escapes are TOML's.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

#[allow(clippy::too_many_arguments)]
fn settings_toml(
    v: &Variant,
    name: &str,
    options: &[String],
    judge: &str,
    start: DateTime<Utc>,
    file: &str,
    address: &dyn Fn(PowerId) -> String,
    password: &dyn Fn(PowerId) -> String,
) -> String {
    let source = Path::new(file)
        .file_name()
        .map_or_else(|| file.to_string(), |n| n.to_string_lossy().into_owned());
    let mut out = String::from("[game]\n");
    let _ = writeln!(out, "name = {}", quoted(name));
    let _ = writeln!(out, "variant = {}", quoted(&v.name));
    let opts: Vec<String> = options.iter().map(|o| quoted(o)).collect();
    let _ = writeln!(out, "options = [{}]", opts.join(", "));
    let _ = writeln!(out, "gm = {}", quoted(&format!("gm@{name}.example.org")));
    let _ = writeln!(out, "judge = {}", quoted(judge));
    out.push_str("timezone = \"UTC\"\n");
    let _ = writeln!(
        out,
        "start = {}",
        quoted(&start.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
    );
    for (key, period) in PERIODS {
        let _ = writeln!(out, "{key} = {}", quoted(&period.to_string()));
    }
    out.push_str("wait = false\n");
    // A picture for each of hundreds of phases would make the replay's outbox gigabytes.
    out.push_str("pictures = false\n");
    let _ = writeln!(
        out,
        "source = {}",
        quoted(&format!(
            "{source}, imported by napjudge game import (see the LICENSE file beside it)"
        ))
    );
    for p in v.power_ids() {
        let _ = writeln!(out, "\n[powers.{}]", v.power(p).name);
        let _ = writeln!(out, "address = {}", quoted(&address(p)));
        let _ = writeln!(out, "password = {}", quoted(&password(p)));
    }
    out
}

/// Writes the folder at `out`: refused when `out` has files, unless `force` (then replaced).
/// Written aside first and renamed, so a failure leaves nothing half-written.
pub fn write(imported: &Imported, out: &Path, force: bool) -> Result<(), ImportError> {
    let io = |p: &Path| {
        let p = p.display().to_string();
        move |source| ImportError::Io { path: p, source }
    };
    let non_empty = std::fs::read_dir(out).is_ok_and(|mut d| d.next().is_some());
    if non_empty && !force {
        return Err(ImportError::Exists(out.display().to_string()));
    }
    let parent = out.parent().filter(|p| !p.as_os_str().is_empty());
    let parent = parent.unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(io(parent))?;
    let leaf = out.file_name().map_or_else(
        || imported.name.clone(),
        |n| n.to_string_lossy().into_owned(),
    );
    let tmp = parent.join(format!(".{leaf}.import-{}", std::process::id()));
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).map_err(io(&tmp))?;
    }
    for (path, bytes) in &imported.files {
        let full = tmp.join(path);
        if let Some(dir) = full.parent() {
            std::fs::create_dir_all(dir).map_err(io(dir))?;
        }
        std::fs::write(&full, bytes).map_err(io(&full))?;
    }
    if out.exists() {
        std::fs::remove_dir_all(out).map_err(io(out))?;
    }
    std::fs::rename(&tmp, out).map_err(io(out))?;
    Ok(())
}
