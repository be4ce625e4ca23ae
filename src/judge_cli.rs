//! The judge's commands at a shell (`game`, `tick`, `outbox`): each parses its arguments, opens
//! the store, calls the service, prints. Exit 0 only on success.

use clap::Subcommand;
use napjudge_judge::clock::{Clock, Period};
use napjudge_judge::config::{self, Config, Smtp};
use napjudge_judge::game::{describe, GmEnd, DEFAULT_ADDRESS};
use napjudge_judge::mail;
use napjudge_judge::outbox::{OutboxError, Retry, Sent, Target, Which};
use napjudge_judge::{Author, Judge, MailState, NewGame, Periods, Setting, Store};
use napjudge_picture as picture;
use napjudge_replay::{self as replay, folder};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `napjudge game ...`
// One command is parsed per process: `Create`'s many settings cost nothing worth boxing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
pub enum GameCommand {
    /// Creates a game.
    Create {
        /// The game's name.
        name: String,
        /// The variant (napoleonic, standard).
        #[arg(long, default_value = "napoleonic")]
        variant: String,
        /// The GM's mail address.
        #[arg(long)]
        gm: String,
        /// The time zone deadlines are shown in (IANA name).
        #[arg(long, default_value = "UTC")]
        timezone: String,
        /// The period of a movement phase.
        #[arg(long, default_value = "48h")]
        movement: String,
        /// The period of a retreat phase.
        #[arg(long, default_value = "24h")]
        retreat: String,
        /// The period of a Winter.
        #[arg(long, default_value = "48h")]
        winter: String,
        /// The grace after each deadline.
        #[arg(long, default_value = "24h")]
        grace: String,
        /// How long before the deadline the reminder goes.
        #[arg(long, default_value = "12h")]
        remind: String,
        /// Wait for the deadline even when every power has ordered.
        #[arg(long)]
        wait: bool,
        /// Result mails without a picture of the board (`game set NAME pictures on` undoes it).
        #[arg(long)]
        no_pictures: bool,
        /// A rule switch for the game, NAME or NAME=on|off (repeatable): `--option webdiplomacy`
        /// rules as webDiplomacy's judge does (see docs/rules.md).
        #[arg(long = "option", value_name = "NAME[=on|off]")]
        options: Vec<String>,
        /// The players' press: white (the default: the sender named), grey (also PRESS GREY
        /// TO and BROADCAST GREY, the sender not named), public (broadcasts only) or none.
        #[arg(long, value_name = "MODE")]
        press: Option<String>,
        /// The players are known by their powers only (gunboat): no player's address is
        /// shown to another.
        #[arg(long)]
        anonymous: bool,
        /// The GM gets a copy, naming the sender, of every press a player sends.
        #[arg(long)]
        gm_copy: bool,
        /// A power whose player sends no orders for N phases in a row is abandoned: its seat
        /// opens (0, the default: never).
        #[arg(long, value_name = "N")]
        abandon_after: Option<String>,
        /// Nobody may OBSERVE the game by mail (`game observe` still adds an observer).
        #[arg(long)]
        no_observers: bool,
        /// Once everyone has ordered, how long after the last orders the phase is processed
        /// (njudge's delay: a player may still change their mind; 0s, the default: at once).
        #[arg(long, value_name = "PERIOD")]
        delay: Option<String>,
        /// The longest absence a player may register (SET ABSENCE), in days (1 to 90; 14 by
        /// default).
        #[arg(long, value_name = "N")]
        absence_max_days: Option<String>,
        /// How many absences a player may register per year (0 to 52; 3 by default).
        #[arg(long, value_name = "N")]
        absences_per_year: Option<String>,
    },
    /// Issues a one-time code for an open seat: whoever mails TAKEOVER POWER GAME CODE takes it.
    Code {
        /// The game.
        name: String,
        /// The power.
        power: String,
        /// Mail the code to this address (it is printed either way).
        #[arg(long, value_name = "ADDRESS")]
        mail: Option<String>,
    },
    /// Gives a power's seat to a new player: a new password is mailed to them, the old player
    /// (if any) and everyone in the game are told.
    Replace {
        /// The game.
        name: String,
        /// The power.
        power: String,
        /// The new player's address.
        address: String,
    },
    /// Adds an observer: the game's results, notices and broadcast press go to the address.
    Observe {
        /// The game.
        name: String,
        /// The observer's address.
        address: String,
        /// Stop: the address no longer observes the game.
        #[arg(long)]
        stop: bool,
    },
    /// Ends a started game: a draw, a winner, or only the GM's reason; everyone gets the final
    /// mail, and the game takes no more orders.
    End {
        /// The game.
        name: String,
        /// A draw between these powers (comma-separated).
        #[arg(long, value_delimiter = ',')]
        draw: Vec<String>,
        /// The winner.
        #[arg(long)]
        winner: Option<String>,
        /// Why (alone, or with --draw or --winner).
        #[arg(long, default_value = "")]
        reason: String,
    },
    /// Deletes a game that never started (a started game is ended instead).
    Delete {
        /// The game.
        name: String,
    },
    /// Gives a power to a player (a generated password is mailed when --password is absent).
    Assign {
        /// The game.
        name: String,
        /// The power.
        power: String,
        /// The player's address.
        address: String,
        /// The player's password.
        #[arg(long)]
        password: Option<String>,
    },
    /// Starts the game: the variant's first phase (Winter 1800 bids).
    Start {
        /// The game.
        name: String,
    },
    /// The phase, deadline, who has ordered, centres, ledgers and history.
    Show {
        /// The game.
        name: String,
    },
    /// Enters a power's orders (the GM's override): each line as understood or its error.
    Orders {
        /// The game.
        name: String,
        /// The power.
        power: String,
        /// The orders file, or - (the default) for standard input.
        #[arg(default_value = "-")]
        file: String,
        /// Record them as the player's own (for replaying mail), not the GM's.
        #[arg(long)]
        as_player: bool,
    },
    /// Processes the current phase now (before its deadline only with --now-anyway).
    Process {
        /// The game.
        name: String,
        /// Print the outcome; store nothing.
        #[arg(long)]
        preview: bool,
        /// Process before the deadline, though powers may not have ordered.
        #[arg(long, conflicts_with = "preview")]
        now_anyway: bool,
    },
    /// Goes back to an earlier phase ("Spring 1801 Movement"); later ones stay in the history.
    Rollback {
        /// The game.
        name: String,
        /// The phase.
        phase: String,
        /// Why, for the notice every player gets.
        #[arg(long)]
        reason: Option<String>,
    },
    /// Names a minor's controller, or none (R7.8), for the current phase.
    Control {
        /// The game.
        name: String,
        /// The minor.
        minor: String,
        /// The major, or none.
        power: String,
    },
    /// Moves the current phase's deadline.
    Deadline {
        /// The game.
        name: String,
        /// The new deadline in the game's zone ("2026-11-22 18:00"), or with an offset
        /// (2026-11-22T18:00:00Z).
        time: String,
    },
    /// Pauses a game: no deadline runs.
    Pause {
        /// The game.
        name: String,
    },
    /// Resumes a paused game.
    Resume {
        /// The game.
        name: String,
    },
    /// Changes a setting of the game (everyone in a game under way is told): movement,
    /// retreat, winter, grace, remind (periods: 48h), zone (Europe/Paris), wait and pictures
    /// (on or off), press (white|grey|public|none), anonymous and gm-copy (on or off),
    /// abandon (N missed phases; 0: never), observers (on or off), delay (a period),
    /// absence-max-days (1 to 90), absences-per-year (0 to 52).
    Set {
        /// The game.
        name: String,
        /// The setting.
        setting: String,
        /// Its value.
        value: String,
    },
    /// Lists the games.
    List,
    /// Turns a recorded game (MILA JSON, as webDiplomacy's published games) into a game folder
    /// for `napjudge replay` (docs/games.md); no database is opened.
    Import {
        /// The record.
        file: PathBuf,
        /// A rule switch to play it with, NAME or NAME=on|off (repeatable): webdiplomacy rules
        /// as the judge that recorded webDiplomacy's games.
        #[arg(long = "edition", value_name = "NAME[=on|off]")]
        editions: Vec<String>,
        /// The folder to write (default fixtures/games/NAME).
        #[arg(long)]
        out: Option<PathBuf>,
        /// The game's name (default: wd and the number of a game_NNN file, else the record's id).
        #[arg(long)]
        name: Option<String>,
        /// Replace a folder that has files.
        #[arg(long)]
        force: bool,
    },
    /// Writes a game as a MILA JSON record, the format `game import` reads (standard games
    /// only): every phase, its orders and press (docs/games.md).
    Export {
        /// The game.
        name: String,
        /// The file to write (default: standard output).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Only what anyone may read: press to every power, and no press of the current phase
        /// (what `napjudge site` publishes).
        #[arg(long)]
        public: bool,
    },
}

/// `napjudge outbox ...`
#[derive(Subcommand)]
pub enum OutboxCommand {
    /// Lists the mails: id, state, tries, game, recipient, subject, last error; when a mail
    /// waits for a retry, the time of the next try on the line after.
    List,
    /// Delivers every mail due to the mail server of napjudge.toml, or to --smtp or --to-dir;
    /// a mail is marked sent once the server accepted it, else retried by later sends and ticks.
    Send {
        /// Write each mail into this folder as an RFC 5322 .eml file instead.
        #[arg(long, conflicts_with = "smtp")]
        to_dir: Option<PathBuf>,
        /// The mail server for this run: smtp://host:port (plain), smtp://host?tls=required
        /// (STARTTLS), smtps://user@host (TLS); the password is the config's password_file.
        #[arg(long)]
        smtp: Option<String>,
        /// The judge's own address, the mails' sender (else the config's judge address).
        #[arg(long, env = "NAPJUDGE_FROM")]
        from: Option<String>,
    },
    /// Queues a mail given up (undeliverable) again, keeping its Message-ID: the next send or
    /// tick tries it as if new.
    #[command(group = clap::ArgGroup::new("which").required(true))]
    Retry {
        /// The mail's id (the first column of `outbox list`).
        #[arg(group = "which")]
        id: Option<i64>,
        /// Every mail given up.
        #[arg(long, group = "which")]
        all: bool,
    },
}

/// `napjudge mail ...`
#[derive(Subcommand)]
pub enum MailCommand {
    /// Stores one RFC 5322 message from standard input and queues its reply (exit 0 once stored).
    Receive {
        /// The judge's own address: mail from it is never answered (default: the config's
        /// [judge] address).
        #[arg(long, env = "NAPJUDGE_FROM")]
        from: Option<String>,
        /// Messages larger than this many bytes are refused unread.
        #[arg(long, default_value_t = napjudge_judge::mail::MAX_SIZE)]
        max_size: usize,
    },
    /// Stores each message in DIR/new, queues its reply, then moves it to DIR/cur; with
    /// --imap, each message of the [imap] folder, then moves it to the done folder.
    #[command(group = clap::ArgGroup::new("source").required(true))]
    Poll {
        /// The Maildir.
        #[arg(long, group = "source")]
        maildir: Option<PathBuf>,
        /// The [imap] mailbox of napjudge.toml.
        #[arg(long, group = "source")]
        imap: bool,
        /// The judge's own address: mail from it is never answered (default: the config's
        /// [judge] address).
        #[arg(long, env = "NAPJUDGE_FROM")]
        from: Option<String>,
        /// Messages larger than this many bytes are refused unread.
        #[arg(long, default_value_t = napjudge_judge::mail::MAX_SIZE)]
        max_size: usize,
    },
}

/// The judge over `db`, and the clock its calls are made at (`--now`, else the system's). Only
/// `game create` makes a new database (`create`): every other command refuses a file that
/// doesn't exist, so a wrong directory or a typo in `--db` never runs on an empty judge (a
/// mail would be told "there is no game", a tick would quietly do nothing).
pub(crate) fn judge(db: &Path, now: Option<&str>, create: bool) -> Result<(Judge, Clock), String> {
    judge_at(db, now, create, DEFAULT_ADDRESS)
}

/// [`judge`], telling players to write to `address`.
fn judge_at(
    db: &Path,
    now: Option<&str>,
    create: bool,
    address: &str,
) -> Result<(Judge, Clock), String> {
    let clock = Clock::from_arg(now).map_err(|e| format!("--now: {e}"))?;
    let store = if create {
        Store::open(db).map_err(|e| e.to_string())?
    } else {
        open_existing(db)?
    };
    if let Some(w) = Store::loose_permissions(db) {
        eprintln!("napjudge: {w}");
    }
    Ok((Judge::new(store).with_address(address), clock))
}

fn period(flag: &str, text: &str) -> Result<Period, String> {
    Period::parse(text).map_err(|e| format!("--{flag}: {e}"))
}

/// `game import`: the folder is written whole, or nothing is.
fn import(
    file: &Path,
    editions: &[String],
    out: Option<PathBuf>,
    name: Option<&str>,
    force: bool,
) -> Result<ExitCode, String> {
    let imported = replay::import::import_file(file, editions, name).map_err(|e| e.to_string())?;
    let out = out.unwrap_or_else(|| Path::new("fixtures/games").join(&imported.name));
    replay::import::write(&imported, &out, force).map_err(|e| e.to_string())?;
    let mails = imported
        .files
        .keys()
        .filter(|p| p.starts_with("mail"))
        .count();
    println!(
        "{}: wrote {} ({mails} mails); replay it with `napjudge replay {}`",
        imported.name,
        out.display(),
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// `game export`: the record to `out`, else to standard output. The store is only read.
fn export(db: &Path, name: &str, out: Option<&Path>, public: bool) -> Result<ExitCode, String> {
    let store = open_existing(db)?;
    let scope = if public {
        replay::export::Scope::Public
    } else {
        replay::export::Scope::Full
    };
    let json = replay::export::export(store.view(), name, scope).map_err(|e| e.to_string())?;
    match out {
        Some(path) => {
            std::fs::write(path, json + "\n").map_err(|e| format!("{}: {e}", path.display()))?
        }
        None => println!("{json}"),
    }
    Ok(ExitCode::SUCCESS)
}

/// The store at `db`, which must exist: a reader never creates an empty one by a typo.
pub fn open_existing(db: &Path) -> Result<Store, String> {
    if !db.is_file() {
        let name = db
            .file_name()
            .map_or("napjudge.db".into(), |n| n.to_string_lossy());
        let dir = match db.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.display().to_string(),
            _ => ".".into(),
        };
        return Err(format!(
            "{}: no such database: no {name} in {dir}; give --db FILE, set NAPJUDGE_DB, or run \
             `napjudge init` (`napjudge game create` makes one too)",
            db.display()
        ));
    }
    Store::open(db).map_err(|e| format!("{}: {e}", db.display()))
}

/// Runs a `game` command.
pub fn game(
    db: &Path,
    now: Option<&str>,
    config_file: Option<&Path>,
    command: GameCommand,
) -> Result<ExitCode, String> {
    if let GameCommand::Import {
        file,
        editions,
        out,
        name,
        force,
    } = command
    {
        return import(&file, &editions, out, name.as_deref(), force);
    }
    if let GameCommand::Export { name, out, public } = command {
        return export(db, &name, out.as_deref(), public);
    }
    let create = matches!(command, GameCommand::Create { .. });
    // The start and password mails tell players the judge's address.
    let config = config::load(config_file).map_err(|e| e.to_string())?;
    let (j, clock) = judge_at(db, now, create, &config.judge.address)?;
    // `game process`'s results link to their page as the tick's do.
    let mut j = j.with_site(config.site.url.clone());
    // A time as the GM reads it: in the game's zone.
    let local = |j: &Judge, name: &str, t| j.local_time(name, t);
    let e = |e: napjudge_judge::game::GameError| e.to_string();
    match command {
        GameCommand::Create {
            name,
            variant,
            gm,
            timezone,
            movement,
            retreat,
            winter,
            grace,
            remind,
            wait,
            no_pictures,
            options,
            press,
            anonymous,
            gm_copy,
            abandon_after,
            no_observers,
            delay,
            absence_max_days,
            absences_per_year,
        } => {
            // The flags given, read as `game set` reads them: the rest keep their defaults.
            let mut settings = Vec::new();
            for (key, value) in [
                ("press", press),
                ("abandon", abandon_after),
                ("delay", delay),
                ("absence-max-days", absence_max_days),
                ("absences-per-year", absences_per_year),
            ] {
                if let Some(value) = value {
                    settings.push(Setting::parse(key, &value).map_err(|e| e.to_string())?);
                }
            }
            for (on, setting) in [
                (anonymous, Setting::Anonymous(true)),
                (gm_copy, Setting::GmCopy(true)),
                (no_observers, Setting::Observers(false)),
            ] {
                if on {
                    settings.push(setting);
                }
            }
            let g = NewGame {
                name,
                variant,
                gm,
                timezone,
                periods: Periods {
                    movement: period("movement", &movement)?,
                    retreat: period("retreat", &retreat)?,
                    winter: period("winter", &winter)?,
                    grace: period("grace", &grace)?,
                    remind: period("remind", &remind)?,
                },
                wait,
                options,
                pictures: !no_pictures,
                press: Default::default(),
            };
            let game = j.create_with(&g, &settings, clock.now()).map_err(e)?;
            println!(
                "created {} ({}); assign the powers, then `napjudge game start {}`",
                game.name, game.variant, game.name
            );
        }
        GameCommand::Assign {
            name,
            power,
            address,
            password,
        } => {
            let mailed = j
                .assign(&name, &power, &address, password.as_deref(), clock.now())
                .map_err(e)?;
            println!(
                "{power} in {name}: {address}{}",
                if mailed { " (password mailed)" } else { "" }
            );
        }
        GameCommand::Code { name, power, mail } => {
            let c = j
                .issue_code(&name, &power, mail.as_deref(), clock.now())
                .map_err(|err| err.to_string())?;
            println!(
                "{name}: takeover code for {}: {}{}",
                c.power,
                c.code,
                c.mailed_to
                    .map(|a| format!(" (mailed to {a})"))
                    .unwrap_or_default()
            );
        }
        GameCommand::Replace {
            name,
            power,
            address,
        } => {
            let old = j
                .replace(&name, &power, &address, clock.now())
                .map_err(|err| err.to_string())?;
            println!(
                "{power} in {name}: {address} (password mailed){}",
                old.map(|a| format!("; {a} told")).unwrap_or_default()
            );
        }
        GameCommand::Observe {
            name,
            address,
            stop,
        } => {
            let a = napjudge_judge::Address::new(&address);
            if stop {
                let g = j
                    .unobserve(&name, &a, clock.now())
                    .map_err(|err| err.to_string())?;
                println!("{g}: {address} no longer observes");
            } else {
                let g = j
                    .observe(&name, &a, false, clock.now())
                    .map_err(|err| err.to_string())?;
                println!("{g}: {address} observes");
            }
        }
        GameCommand::Start { name } => {
            let (phase, deadline) = j.start(&name, clock.now()).map_err(e)?;
            println!(
                "{name} started: {phase}, deadline {}; every player and the GM are mailed",
                local(&j, &name, deadline)
            );
        }
        GameCommand::Show { name } => print!("{}", j.show(&name, None).map_err(e)?),
        GameCommand::Orders {
            name,
            power,
            file,
            as_player,
        } => {
            let text = if file == "-" {
                let mut s = String::new();
                std::io::stdin()
                    .read_to_string(&mut s)
                    .map_err(|err| format!("standard input: {err}"))?;
                s
            } else {
                std::fs::read_to_string(&file).map_err(|err| format!("{file}: {err}"))?
            };
            let by = if as_player {
                Author::Player
            } else {
                Author::Gm
            };
            let ack = j
                .orders(&name, &power, &text, by, clock.now())
                .map_err(e)?
                .ack;
            let lines = &ack.lines;
            let mut failed = false;
            for l in lines {
                match &l.error {
                    None => println!("line {}: {}", l.line, l.kept()),
                    Some(err) => {
                        failed = true;
                        println!("line {}: {}: {err}", l.line, l.order);
                    }
                }
                for w in &l.warnings {
                    println!("line {}: WARNING: {w}", l.line);
                }
            }
            let kept = lines.iter().filter(|l| l.error.is_none()).count();
            println!("{kept} of {} orders kept for {power}", lines.len());
            for n in &ack.notes {
                println!("{n}");
            }
            if failed {
                return Ok(ExitCode::FAILURE);
            }
        }
        GameCommand::Process {
            name,
            preview,
            now_anyway,
        } => {
            let p = match preview {
                true => j.process(&name, true, clock.now()),
                false => j.process_due(&name, None, now_anyway, clock.now()),
            }
            .map_err(e)?;
            if preview {
                print!("{}", p.results);
            } else {
                println!(
                    "{name}: processed {}; next {}{}; {} mails queued",
                    p.phase,
                    p.next.as_deref().unwrap_or("none (the game is over)"),
                    p.deadline
                        .map(|d| format!(", deadline {}", local(&j, &name, d)))
                        .unwrap_or_default(),
                    p.mails
                );
            }
        }
        GameCommand::Rollback {
            name,
            phase,
            reason,
        } => {
            let p = j
                .rollback(&name, &phase, reason.as_deref(), clock.now())
                .map_err(e)?;
            println!("{name}: back to {p}; everyone is told");
        }
        GameCommand::Control { name, minor, power } => {
            let c = j.control(&name, &minor, &power, clock.now()).map_err(e)?;
            println!("{name}: {c} (carried out when the phase is processed)");
        }
        GameCommand::Deadline { name, time } => {
            let at = j.set_deadline(&name, &time, clock.now()).map_err(e)?;
            println!(
                "{name}: deadline {}; everyone is told",
                local(&j, &name, at)
            );
        }
        GameCommand::Pause { name } => {
            j.pause(&name, true, clock.now()).map_err(e)?;
            println!("{name}: paused");
        }
        GameCommand::Resume { name } => {
            let d = j.pause(&name, false, clock.now()).map_err(e)?;
            println!(
                "{name}: resumed{}",
                d.map(|d| format!(", deadline {}", local(&j, &name, d)))
                    .unwrap_or_default()
            );
        }
        GameCommand::Set {
            name,
            setting,
            value,
        } => {
            let setting = Setting::parse(&setting, &value).map_err(|err| err.to_string())?;
            let game = j.set(&name, &setting, clock.now()).map_err(e)?;
            println!("{}: {setting}", game.name);
        }
        GameCommand::End {
            name,
            draw,
            winner,
            reason,
        } => {
            let how = GmEnd {
                draw,
                winner,
                reason,
            };
            let ended = j.end(&name, &how, clock.now()).map_err(e)?;
            let game = j
                .view()
                .game(&name)
                .map_err(|err| err.to_string())?
                .ok_or_else(|| format!("no game called '{name}'"))?;
            println!(
                "{name}: ended {}; the final mail is queued for everyone",
                describe(&ended, &game.timezone)
            );
        }
        GameCommand::Delete { name } => {
            j.delete(&name).map_err(e)?;
            println!("{name}: deleted");
        }
        GameCommand::List => {
            for line in j.list().map_err(e)? {
                println!("{line}");
            }
        }
        GameCommand::Import { .. } => return Err("game import needs no database".into()),
        GameCommand::Export { .. } => return Err("game export is run before the judge".into()),
    }
    Ok(ExitCode::SUCCESS)
}

/// Where the outbox goes: `--to-dir`, else `--smtp`, else the config's outbox folder, else its
/// mail server; none when nothing names one.
pub(crate) fn target(
    config: &Config,
    to_dir: Option<&Path>,
    smtp: Option<&str>,
) -> Result<Option<Target>, String> {
    let e = |e: OutboxError| e.to_string();
    if let Some(dir) = to_dir
        .or(config.outbox.dir.as_deref())
        .filter(|_| smtp.is_none())
    {
        return Ok(Some(Target::Dir(dir.to_path_buf())));
    }
    let server = match smtp {
        Some(url) => Some(Smtp::from_url(url, config.smtp.as_ref()).map_err(|e| e.to_string())?),
        None => config.smtp.clone(),
    };
    if let Some(w) = server.as_ref().and_then(Smtp::warning) {
        eprintln!("napjudge: {w}");
    }
    server.map(|s| Target::smtp(&s).map_err(e)).transpose()
}

/// Delivers the outbox; exit 1 when a mail failed or was given up (cron shows it).
pub(crate) fn deliver(
    j: &mut Judge,
    config: &Config,
    target: &Target,
    from: Option<String>,
    clock: Clock,
) -> Result<Sent, String> {
    let from = from.unwrap_or_else(|| config.judge.address.clone());
    if let Target::Smtp(_) = target {
        config::Judge::sender(&from).map_err(|e| e.to_string())?;
    }
    let retry = Retry::from_config(&config.outbox);
    j.send_outbox(target, &from, retry, clock.now())
        .map_err(|e| e.to_string())
}

/// The counts, then one line per failed mail; the GM's notices that wait go to standard error
/// (cron mails it), at every send while they wait.
fn sent_lines(sent: &Sent) -> String {
    for w in &sent.waiting {
        eprintln!("napjudge: {w}");
    }
    if sent.busy {
        return "another outbox send is running: it delivers the outbox, this one tried nothing"
            .into();
    }
    let mut out = format!(
        "{} sent, {} failed, {} given up",
        sent.sent, sent.failed, sent.given_up
    );
    for p in &sent.problems {
        out.push_str("\n  ");
        out.push_str(p);
    }
    if sent.requeued > 0 {
        out.push_str(&format!(
            "\n  {} mail(s) given up while the server was unreachable queued again: the next send \
             delivers them",
            sent.requeued
        ));
    }
    out
}

/// Runs `tick`: the games, then the outbox when a folder or mail server is named.
pub fn tick(
    db: &Path,
    now: Option<&str>,
    config_file: Option<&Path>,
    to_dir: Option<&Path>,
    smtp: Option<&str>,
) -> Result<ExitCode, String> {
    let config = config::load(config_file).map_err(|e| e.to_string())?;
    let (j, clock) = judge(db, now, false)?;
    let mut j = j.with_site(config.site.url.clone());
    let cfg = mail::MailConfig {
        judge: config.judge.address.clone(),
        max_size: mail::MAX_SIZE,
    };
    let (answered, report) = mail::tick(&mut j, &cfg, clock.now()).map_err(|e| e.to_string())?;
    if answered > 0 {
        println!("mail: answered {answered} stored message(s) left unanswered");
    }
    for line in &report.done {
        println!("{line}");
    }
    // A game or a mail that failed is reported and skipped; the rest of the tick goes on.
    for line in &report.failed {
        eprintln!("napjudge: tick: {line}");
    }
    let mut code = if report.failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    };
    // The archive is kept up to date, but a failure to write it holds no mail back.
    match crate::site_cli::refresh(j.view(), &config) {
        Ok(Some(line)) => println!("{line}"),
        Ok(None) => {}
        Err(e) => {
            eprintln!("napjudge: tick: the web archive: {e}");
            code = ExitCode::FAILURE;
        }
    }
    let target = target(&config, to_dir, smtp)?;
    if target.is_none() {
        if let Some(w) = crate::service::undeliverable(&j) {
            eprintln!("napjudge: tick: {w}");
        }
    }
    if let Some(target) = target {
        let from = std::env::var("NAPJUDGE_FROM").ok();
        let sent = deliver(&mut j, &config, &target, from, clock)?;
        println!("outbox: {}", sent_lines(&sent));
        if sent.failed + sent.given_up > 0 {
            code = ExitCode::FAILURE;
        }
    }
    Ok(code)
}

/// Runs an `outbox` command.
pub fn outbox(
    db: &Path,
    now: Option<&str>,
    config_file: Option<&Path>,
    command: OutboxCommand,
) -> Result<ExitCode, String> {
    let (mut j, clock) = judge(db, now, false)?;
    match command {
        OutboxCommand::List => {
            for m in j.view().mails(None).map_err(|e| e.to_string())? {
                println!(
                    "{}\t{}\t{}\t{}\t{}\t{}{}",
                    m.id,
                    m.state,
                    m.tries,
                    m.game,
                    m.to,
                    m.subject,
                    m.error.map(|e| format!("\t{e}")).unwrap_or_default()
                );
                if let (Some(t), MailState::Queued | MailState::Failed) = (m.next_try, m.state) {
                    println!("\tnot before {}", t.to_rfc3339());
                }
            }
        }
        OutboxCommand::Send { to_dir, smtp, from } => {
            let config = config::load(config_file).map_err(|e| e.to_string())?;
            let target = target(&config, to_dir.as_deref(), smtp.as_deref())?.ok_or(
                "no mail server: give --smtp URL or --to-dir DIR, or write [smtp] in napjudge.toml",
            )?;
            let sent = deliver(&mut j, &config, &target, from, clock)?;
            println!("{}", sent_lines(&sent));
            if sent.failed + sent.given_up > 0 {
                return Ok(ExitCode::FAILURE);
            }
        }
        OutboxCommand::Retry { id, .. } => {
            // clap takes exactly one of the id and --all.
            let which = id.map_or(Which::All, Which::One);
            let ids = j.retry_outbox(which).map_err(|e| e.to_string())?;
            for id in &ids {
                println!("mail {id} queued again");
            }
            if ids.is_empty() {
                println!("no mail is given up: nothing to retry");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn handled(what: &str, h: &mail::Handled) {
    match h {
        mail::Handled::Answered => println!("{what}: answered"),
        mail::Handled::Duplicate => println!("{what}: duplicate, answered as such"),
        mail::Handled::Ignored(why) => println!("{what}: stored, not answered ({why})"),
        mail::Handled::Failed(why) => {
            eprintln!("napjudge: {what}: stored, not answered (marked failed, the GM told): {why}")
        }
    }
}

/// Runs a `mail` command. A message is taken (exit 0) once it is stored, whatever it said.
pub fn mail(
    db: &Path,
    now: Option<&str>,
    config_file: Option<&Path>,
    command: MailCommand,
) -> Result<ExitCode, String> {
    // Not stored: EX_TEMPFAIL (75) tells the mail server to keep the message and try again.
    let (j, clock) = match judge(db, now, false) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("napjudge: {e}");
            return Ok(ExitCode::from(75));
        }
    };
    // The judge's own address, as `outbox send` writes it: mail from it is never answered.
    let config = match config::load(config_file) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("napjudge: {e}");
            return Ok(ExitCode::from(75));
        }
    };
    let mut j = j.with_site(config.site.url.clone());
    let judge_address = |from: Option<String>| from.unwrap_or_else(|| config.judge.address.clone());
    match command {
        MailCommand::Receive { from, max_size } => {
            let cfg = mail::MailConfig {
                judge: judge_address(from),
                max_size,
            };
            // At most the size limit is held: the rest of a larger message only goes through
            // its digest.
            let m = match mail::Incoming::read(std::io::stdin().lock(), max_size) {
                Ok(m) => m,
                Err(err) => {
                    eprintln!("napjudge: standard input: {err}; the message was not stored");
                    return Ok(ExitCode::from(75));
                }
            };
            match mail::receive_incoming(&mut j, &cfg, &m, clock.now()) {
                Ok(h) => handled("message", &h),
                Err(e) => {
                    eprintln!("napjudge: the message was not stored or answered: {e}");
                    if let Err(why) = crate::service::writable(db) {
                        eprintln!("napjudge: {why}");
                    }
                    return Ok(ExitCode::from(75));
                }
            }
        }
        MailCommand::Poll {
            maildir,
            imap,
            from,
            max_size,
        } => {
            let cfg = mail::MailConfig {
                judge: judge_address(from),
                max_size,
            };
            if let Some(maildir) = maildir.filter(|_| !imap) {
                return poll(&mut j, &cfg, &maildir, clock, usize::MAX);
            }
            let Some(imap) = &config.imap else {
                eprintln!("napjudge: mail poll --imap: no [imap] section in napjudge.toml");
                return Ok(ExitCode::from(75));
            };
            return Ok(crate::service::poll_imap(&mut j, &cfg, imap, clock));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `mail poll`: each file of `DIR/new`, in name order (the first `at_most`), stored and
/// answered, then moved to `DIR/cur`. A file that can't be read or stored, or one over the size limit (its headers
/// stored and its sender answered, but not the whole), is moved to `DIR/failed` with a line on
/// standard error, and polling goes on. A fault of the database stops the run (exit 75): every
/// later file would fail alike, so they stay in `new` for the next run.
pub(crate) fn poll(
    j: &mut Judge,
    cfg: &mail::MailConfig,
    maildir: &Path,
    clock: Clock,
    at_most: usize,
) -> Result<ExitCode, String> {
    let new = maildir.join("new");
    let cur = maildir.join("cur");
    let failed = maildir.join("failed");
    for dir in [&cur, &failed] {
        std::fs::create_dir_all(dir).map_err(|err| format!("{}: {err}", dir.display()))?;
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(&new)
        .map_err(|err| format!("{}: {err} (give a Maildir)", new.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    // Maildir names start with the delivery time: their order is the order of arrival.
    files.sort();
    files.truncate(at_most);
    let mut code = ExitCode::SUCCESS;
    for path in files {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let name = name.unwrap_or_default();
        let set_aside = |why: &str| {
            let target = failed.join(&name);
            match std::fs::rename(&path, &target) {
                Ok(()) => eprintln!(
                    "napjudge: {}: {why}; moved to {}",
                    path.display(),
                    target.display()
                ),
                Err(err) => eprintln!(
                    "napjudge: {}: {why}; could not move it to {}: {err}",
                    path.display(),
                    failed.display()
                ),
            }
        };
        let m = match std::fs::File::open(&path).and_then(|f| mail::Incoming::read(f, cfg.max_size))
        {
            Ok(m) => m,
            Err(err) => {
                set_aside(&format!("can't be read ({err})"));
                code = ExitCode::FAILURE;
                continue;
            }
        };
        let taken = match napjudge_judge::intake::take(j, cfg, &m, clock.now()) {
            Ok(t) => t,
            Err(e) => {
                eprintln!(
                    "napjudge: {}: not stored: {e}; it and the files after it stay in {}",
                    path.display(),
                    new.display()
                );
                return Ok(ExitCode::from(75));
            }
        };
        match &taken.handled {
            Some(h) => handled(&name, h),
            None => println!("{name}: stored by an earlier run, not answered again"),
        }
        if let Some(why) = &taken.failed {
            set_aside(&why.to_string());
            if matches!(why, napjudge_judge::intake::SetAside::Unstored(_)) {
                code = ExitCode::FAILURE;
            }
            continue;
        }
        let target = cur.join(format!("{name}:2,S"));
        std::fs::rename(&path, &target).map_err(|err| format!("{}: {err}", path.display()))?;
    }
    Ok(code)
}

/// The picture format `output`'s extension asks for, and the shapes file to draw with when one
/// is given (else the variant's built-in shapes are used).
pub fn picture_target(
    shapes: Option<&Path>,
    output: &Path,
) -> Result<(picture::Format, Option<picture::Board>), String> {
    let format = picture::Format::of_path(output).ok_or_else(|| {
        format!(
            "{}: write the picture to a .png or a .svg file",
            output.display()
        )
    })?;
    let board = match shapes {
        Some(path) => {
            let text = napjudge_cases::files::read_text(path)?;
            let board =
                picture::shapes::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            Some(board)
        }
        None => None,
    };
    Ok((format, board))
}

/// Writes a picture file.
pub fn write_picture(output: &Path, bytes: &[u8]) -> Result<ExitCode, String> {
    std::fs::write(output, bytes).map_err(|e| format!("{}: {e}", output.display()))?;
    println!("wrote {}", output.display());
    Ok(ExitCode::SUCCESS)
}

/// Runs `map GAME [PHASE]`.
pub fn map(
    db: &Path,
    game: &str,
    phase: Option<&str>,
    shapes: Option<&Path>,
    output: &Path,
) -> Result<ExitCode, String> {
    let (format, board) = picture_target(shapes, output)?;
    let (mut j, _) = judge(db, None, false)?;
    let bytes = j
        .picture(game, phase, board.as_ref(), format)
        .map_err(|e| e.to_string())?;
    write_picture(output, &bytes)
}

/// A folder for this run's databases, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Result<TempDir, String> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir =
            std::env::temp_dir().join(format!("napjudge-replay-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(TempDir(dir))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Where a replay's mails go without `--outbox`: under the system's temporary folder, never
/// into the folder the replay was started from.
fn replay_root() -> PathBuf {
    std::env::temp_dir().join("napjudge-replay")
}

/// `napjudge replay PATH`: every game folder at PATH replayed through the judge (docs/games.md);
/// exit 1 when any differs from its record. `db`: one store for every game instead of a fresh
/// one each; `outbox`: where each game's mails go (`DIR/NAME`, else [`replay_root`]`/NAME`).
pub fn replay(path: &Path, db: Option<&Path>, outbox: Option<&Path>) -> Result<ExitCode, String> {
    use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
    let started = std::time::Instant::now();
    let dirs = folder::find(path).map_err(|e| e.to_string())?;
    if dirs.is_empty() {
        return Err(format!(
            "{}: no game folder here (a folder with a game.toml, or folders of them)",
            path.display()
        ));
    }
    let temp = TempDir::new()?;
    // Drawn on stderr, and only when it is a terminal.
    let bars = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
    let style = |template: &str| {
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar())
    };
    let overall = bars.add(ProgressBar::new(dirs.len() as u64));
    overall.set_style(style("games  [{bar:30}] {pos}/{len} {elapsed}"));
    let mut total = replay::Replayed::default();
    let mut games = 0;
    let mut outboxes = Vec::new();
    for dir in &dirs {
        let f = folder::read(dir).map_err(|e| e.to_string())?;
        let name = f.settings.game.name.clone();
        let bar = bars.add(ProgressBar::new(f.record.len() as u64));
        bar.set_style(style("{msg:>10} [{bar:30}] {pos}/{len} phases"));
        bar.set_message(name.clone());
        let store = match db {
            Some(file) => file.to_path_buf(),
            None => temp.0.join(format!("{name}.db")),
        };
        let out = match outbox {
            Some(d) => d.join(&name),
            None => replay_root().join(&name),
        };
        let r = replay::replay_game(&f, &store, &out, &|n| bar.set_position(n as u64))
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        bar.finish_and_clear();
        overall.inc(1);
        for d in &r.differences {
            bars.suspend(|| println!("{d}"));
        }
        games += 1;
        total.phases += r.phases;
        total.mails_in += r.mails_in;
        total.mails_out += r.mails_out;
        total.press += r.press;
        total.differences.extend(r.differences);
        outboxes.push(r.outbox);
    }
    overall.finish_and_clear();
    let where_ = match (outbox, outboxes.as_slice()) {
        (_, [one]) => one.display().to_string(),
        (Some(d), _) => format!("{}/GAME/", d.display()),
        (None, _) => format!("{}/GAME/", replay_root().display()),
    };
    println!(
        "replayed {games} game{}: {} phases, {} mails in, {} mails out ({} press delivered), {} \
         difference{}, in {:.1} s; the judge's mails are in {where_}",
        if games == 1 { "" } else { "s" },
        total.phases,
        total.mails_in,
        total.mails_out,
        total.press,
        total.differences.len(),
        if total.differences.len() == 1 {
            ""
        } else {
            "s"
        },
        started.elapsed().as_secs_f64()
    );
    Ok(if total.differences.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
