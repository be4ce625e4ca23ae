//! `napjudge game`: the GM's commands at the shell, each one call of the service.

use super::replay;
use crate::wiring::{self, Wired};
use clap::Subcommand;
use napjudge_judge::{
    describe_ending, Author, Clock, GameError, GmEnd, Judge, NewGame, Period, Periods, SeatError,
    Setting,
};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `napjudge game ...`
// One command is parsed per process: `Create`'s many settings cost nothing worth boxing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
pub enum GameCommand {
    /// Creates a game.
    Create(Create),
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
    /// abandon (N missed phases; 0: never), observers (the most by mail: N, on for 20, off for
    /// none), delay (a period),
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
    /// Writes a game out: with --out DIR as a game folder that `napjudge replay` plays again
    /// (any variant; passwords replaced), with --mila FILE as a MILA JSON record, the format
    /// `game import` reads (standard games only) (docs/games.md).
    #[command(group(clap::ArgGroup::new("format").required(true).args(["out", "mila"])))]
    Export {
        /// The game.
        name: String,
        /// The game folder to write (game.toml, mail/, record.txt); it must not exist.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// The MILA JSON record to write, - for standard output.
        #[arg(long, value_name = "FILE")]
        mila: Option<PathBuf>,
        /// With --mila, only what anyone may read: press to every power, and no press of the
        /// current phase (what `napjudge site` publishes).
        #[arg(long, requires = "mila")]
        public: bool,
    },
}

/// `napjudge game create`'s flags.
#[derive(clap::Args)]
pub struct Create {
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
    /// (njudge's delay: a player may still change their mind; 0s: at once).
    #[arg(long, value_name = "PERIOD", default_value = "10m")]
    delay: String,
    /// The longest absence a player may register (SET ABSENCE), in days (1 to 90; 14 by
    /// default).
    #[arg(long, value_name = "N")]
    absence_max_days: Option<String>,
    /// How many absences a player may register per year (0 to 52; 3 by default).
    #[arg(long, value_name = "N")]
    absences_per_year: Option<String>,
}

/// A service error as the shell prints it: what is wrong, then the command that fixes it (a
/// mail's reply names the mail's own commands, so the service's words name none).
pub fn shell_error(e: &GameError) -> String {
    let command = match e {
        GameError::UnknownGame(_) => "`napjudge game list` shows the games".to_string(),
        GameError::NotStarted(game) => format!("`napjudge game start {game}`"),
        GameError::Unassigned { game, .. } => {
            format!("`napjudge game assign {game} POWER ADDRESS`")
        }
        GameError::Paused(game) => format!("`napjudge game resume {game}`"),
        GameError::NoPlayer(role, game) => format!("`napjudge game assign {game} {role} ADDRESS`"),
        GameError::EndForming(game) => format!("`napjudge game delete {game}`"),
        GameError::DeleteStarted(game) => format!("`napjudge game end {game} --reason TEXT`"),
        GameError::Early { game, .. } => {
            return format!(
                "{e} To process it now anyway, add --now-anyway (napjudge game process {game} \
                 --now-anyway)"
            )
        }
        _ => return e.to_string(),
    };
    format!("{e} ({command})")
}

/// A seat command's error as the shell prints it (see [`shell_error`]).
fn seat_error(e: &SeatError) -> String {
    match e {
        SeatError::Game(e) => shell_error(e),
        SeatError::Held { game, power, .. } => {
            format!("{e} (`napjudge game replace {game} {power} ADDRESS`)")
        }
        _ => e.to_string(),
    }
}

fn period(flag: &str, text: &str) -> Result<Period, String> {
    Period::parse(text).map_err(|e| format!("--{flag}: {e}"))
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
        return replay::import(&file, &editions, out, name.as_deref(), force);
    }
    if let GameCommand::Export {
        name,
        out,
        mila,
        public,
    } = command
    {
        return match (out, mila) {
            (Some(dir), _) => replay::export_folder(db, &name, &dir),
            (None, Some(file)) => replay::export(db, &name, &file, public),
            // clap requires one of them.
            (None, None) => Err("game export: give --out DIR or --mila FILE".into()),
        };
    }
    let makes_database = matches!(command, GameCommand::Create(_));
    // The start and password mails tell players the judge's address, and `game process`'s
    // results link to their page as the tick's do.
    let Wired {
        judge: mut j,
        clock,
        ..
    } = wiring::judge(db, now, config_file, makes_database)?;
    // A time as the GM reads it: in the game's zone.
    let local = |j: &Judge, name: &str, t| j.local_time(name, t);
    let e = |e: GameError| shell_error(&e);
    let step = shell_step(&command);
    match command {
        GameCommand::Create(c) => create(&mut j, clock, c)?,
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
                .map_err(|err| seat_error(&err))?;
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
                .map_err(|err| seat_error(&err))?;
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
                    .map_err(|err| seat_error(&err))?;
                println!("{g}: {address} no longer observes");
            } else {
                let g = j
                    .observe(&name, &a, clock.now())
                    .map_err(|err| seat_error(&err))?;
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
        } => return orders(&mut j, clock, &name, &power, &file, as_player),
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
            j.pause(&name, clock.now()).map_err(e)?;
            println!("{name}: paused");
        }
        GameCommand::Resume { name } => {
            let d = j.resume(&name, clock.now()).map_err(e)?;
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
                describe_ending(&ended, &game.timezone)
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
    if let Some((name, args)) = step {
        j.record_shell(&name, &args, None, clock.now()).map_err(e)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A command that changes a game under way and that `napjudge replay` runs again (see
/// `crates/replay`, "shell steps"): its game and its arguments, recorded once it succeeded so
/// that `game export` writes it into the game's folder.
fn shell_step(command: &GameCommand) -> Option<(String, Vec<String>)> {
    let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let (name, args) = match command {
        GameCommand::Pause { name } => (name, words(&["game", "pause", name])),
        GameCommand::Resume { name } => (name, words(&["game", "resume", name])),
        GameCommand::Replace {
            name,
            power,
            address,
        } => (name, words(&["game", "replace", name, power, address])),
        GameCommand::Code { name, power, mail } => {
            let mut a = words(&["game", "code", name, power]);
            if let Some(to) = mail {
                a.extend(words(&["--mail", to]));
            }
            (name, a)
        }
        GameCommand::Rollback {
            name,
            phase,
            reason,
        } => {
            let mut a = words(&["game", "rollback", name, phase]);
            if let Some(r) = reason {
                a.extend(words(&["--reason", r]));
            }
            (name, a)
        }
        GameCommand::Deadline { name, time } => (name, words(&["game", "deadline", name, time])),
        GameCommand::Set {
            name,
            setting,
            value,
        } => (name, words(&["game", "set", name, setting, value])),
        GameCommand::Process {
            name,
            preview: false,
            now_anyway,
        } => {
            let mut a = words(&["game", "process", name]);
            if *now_anyway {
                a.push("--now-anyway".into());
            }
            (name, a)
        }
        GameCommand::Control { name, minor, power } => {
            (name, words(&["game", "control", name, minor, power]))
        }
        GameCommand::Observe {
            name,
            address,
            stop,
        } => {
            let mut a = words(&["game", "observe", name, address]);
            if *stop {
                a.push("--stop".into());
            }
            (name, a)
        }
        GameCommand::End {
            name,
            draw,
            winner,
            reason,
        } => {
            let mut a = words(&["game", "end", name]);
            if !draw.is_empty() {
                a.extend(["--draw".to_string(), draw.join(",")]);
            }
            if let Some(w) = winner {
                a.extend(words(&["--winner", w]));
            }
            if !reason.is_empty() {
                a.extend(words(&["--reason", reason]));
            }
            (name, a)
        }
        _ => return None,
    };
    Some((name.clone(), args))
}

/// `game create`: the game with the flags given, read as `game set` reads them.
fn create(j: &mut Judge, clock: Clock, c: Create) -> Result<(), String> {
    let Create {
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
    } = c;
    // The flags given, read as `game set` reads them: the rest keep their defaults.
    let mut settings = Vec::new();
    for (key, value) in [
        ("press", press),
        ("abandon", abandon_after),
        ("delay", Some(delay)),
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
        (no_observers, Setting::Observers(0)),
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
    let game = j
        .create_with(&g, &settings, clock.now())
        .map_err(|e| shell_error(&e))?;
    println!(
        "created {} ({}); assign the powers, then `napjudge game start {}`",
        game.name, game.variant, game.name
    );
    Ok(())
}

/// `game orders`: a power's orders entered, each line printed as understood or with its error;
/// exit 1 when a line was refused.
fn orders(
    j: &mut Judge,
    clock: Clock,
    name: &str,
    power: &str,
    file: &str,
    as_player: bool,
) -> Result<ExitCode, String> {
    let text = if file == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|err| format!("standard input: {err}"))?;
        s
    } else {
        std::fs::read_to_string(file).map_err(|err| format!("{file}: {err}"))?
    };
    let by = if as_player {
        Author::Player
    } else {
        Author::Gm
    };
    let ack = j
        .orders(name, power, &text, by, clock.now())
        .map_err(|e| shell_error(&e))?
        .ack;
    // The orders as the step's input, whatever file they came from: `napjudge replay` enters
    // them again.
    let mut args: Vec<String> = ["game", "orders", name, power].map(String::from).to_vec();
    if as_player {
        args.push("--as-player".into());
    }
    j.record_shell(name, &args, Some(&text), clock.now())
        .map_err(|e| shell_error(&e))?;
    let lines = &ack.lines;
    let mut failed = false;
    for l in lines {
        match &l.error {
            None => println!("line {}: {}", l.line, l.kept()),
            Some(err) => {
                failed = true;
                println!("{}: {}: {err}", l.place(l.line, 0), l.order);
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
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
