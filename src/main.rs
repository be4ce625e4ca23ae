//! The `napjudge` command line.

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use napjudge_cases::{self as case, run};
use napjudge_engine::outcome::Describe;
use napjudge_engine::turn::{self, OrderError};
use napjudge_engine::variant::{self, Variant};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod cli;
mod service;
mod site_cli;
mod wiring;

#[derive(Parser)]
#[command(
    name = "napjudge",
    version,
    about = "A play-by-email judge for the Napoleonic Wars Diplomacy variant"
)]
struct Cli {
    /// The judge's database file (else $NAPJUDGE_DB, else napjudge.db here).
    #[arg(
        long,
        global = true,
        env = "NAPJUDGE_DB",
        default_value = "napjudge.db"
    )]
    db: PathBuf,
    /// The time to act at, for tests and replays (2026-11-22T18:00:00Z); else the system clock.
    #[arg(long, global = true)]
    now: Option<String>,
    /// The configuration file (else $NAPJUDGE_CONFIG, else ./napjudge.toml when there is one).
    #[arg(long, global = true)]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

// One command is parsed per process: `game create`'s many flags cost nothing worth boxing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Boards: `variant show NAME` prints a board's summary.
    Variant {
        #[command(subcommand)]
        command: VariantCommand,
    },
    /// Orders: `orders check` prints each order in canonical form, or its error.
    Orders {
        #[command(subcommand)]
        command: OrdersCommand,
    },
    /// Runs every adjudication case in the files or folders given and checks the outcomes.
    Cases {
        /// Case files or folders (searched for `*.case`).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Prints the outcome of a case file's positions and orders, without checking (a what-if).
    Adjudicate {
        /// A case file.
        file: PathBuf,
    },
    /// Games: the GM's commands.
    Game {
        #[command(subcommand)]
        command: cli::game::GameCommand,
    },
    /// For cron: reminders, phases that are due, then the outbox (to --to-dir, --smtp, or the
    /// config's [outbox] dir or [smtp] server; not sent when none is named).
    Tick {
        /// Also send the outbox to this folder.
        #[arg(long, conflicts_with = "smtp")]
        to_dir: Option<PathBuf>,
        /// Also send the outbox to this mail server (smtp://host:port, smtps://user@host).
        #[arg(long)]
        smtp: Option<String>,
    },
    /// Mail in: `mail receive` (one message on standard input), `mail poll --maildir DIR`.
    Mail {
        #[command(subcommand)]
        command: cli::mail::MailCommand,
    },
    /// Draws a board: `map --case FILE [--after] -o FILE.png` (a case's position before its
    /// orders, or after them with the orders drawn) or `map GAME [PHASE] -o FILE.png` (a game's
    /// current position, or a played phase's result with its orders). PNG or SVG by extension.
    Map {
        /// The game (its current position), unless --case is given.
        #[arg(required_unless_present = "case", conflicts_with = "case")]
        game: Option<String>,
        /// A played phase of the game ("Autumn 1801 Movement"): the position after it, with its
        /// orders.
        phase: Option<String>,
        /// A case file: its first case (or --case-id's) is drawn.
        #[arg(long)]
        case: Option<PathBuf>,
        /// The case to draw, by its id (default: the file's first).
        #[arg(long, requires = "case")]
        case_id: Option<String>,
        /// Draw the case's position after its orders (default: before them).
        #[arg(long, requires = "case")]
        after: bool,
        /// A board-shapes SVG to draw with (default: the variant's built-in shapes).
        #[arg(long)]
        shapes: Option<PathBuf>,
        /// The file to write: .png or .svg.
        #[arg(short = 'o', long)]
        output: PathBuf,
    },
    /// The mails the judge queued.
    Outbox {
        #[command(subcommand)]
        command: cli::outbox::OutboxCommand,
    },
    /// Writes the web archive: a static site of the games (every processed phase with its board,
    /// orders, outcomes and public press; standings, centres chart, Atom feeds), no script
    /// (docs/gm-guide.md, "The web archive").
    Site {
        /// The folder to write (made when missing; the site's files in it are replaced).
        #[arg(long)]
        out: PathBuf,
        /// The games to publish (default: every game started).
        games: Vec<String>,
    },
    /// The judge as one long-running process: mail taken as it comes (the [imap] mailbox by
    /// IDLE, or --maildir), the tick every minute, the outbox delivered; stops cleanly on
    /// SIGTERM or SIGINT. Logs to standard error (NAPJUDGE_LOG=debug for more).
    Serve {
        /// Read this Maildir instead of the [imap] mailbox.
        #[arg(long)]
        maildir: Option<PathBuf>,
        /// Seconds between two ticks.
        #[arg(long, default_value_t = 60)]
        tick_every: u64,
        /// Deliver the outbox into this folder instead of by SMTP.
        #[arg(long, conflicts_with = "smtp")]
        to_dir: Option<PathBuf>,
        /// Deliver the outbox to this mail server (smtp://host:port, smtps://user@host).
        #[arg(long)]
        smtp: Option<String>,
    },
    /// Sets up a judge in DIR (default: here): a commented napjudge.toml and the database, then
    /// prints the next steps. Nothing there is replaced.
    Init {
        /// The folder.
        #[arg(default_value = ".")]
        dir: PathBuf,
    },
    /// Tries the database, the SMTP login and the IMAP login, and says what is wrong.
    Check,
    /// Plays game folders through the judge (mails in, deadlines, results out) and compares
    /// every phase with the folder's record; exit 1 on any difference (docs/games.md).
    Replay {
        /// A game folder, or a folder of game folders (fixtures/games/).
        path: PathBuf,
        /// Where each game's result mails go, as DIR/GAME/ (default: napjudge-replay/GAME/ in
        /// the system's temporary folder; the summary names it).
        #[arg(long)]
        outbox: Option<PathBuf>,
    },
}

#[derive(Subcommand)]
enum VariantCommand {
    /// Prints the board's summary; exits non-zero when the variant file is invalid.
    Show {
        /// `standard`, `napoleonic`, or the path of a `.variant` file.
        name: String,
    },
}

#[derive(Subcommand)]
enum OrdersCommand {
    /// Checks an orders file: syntax and names, or, with a position, legality too.
    Check {
        /// The variant (`standard`, `napoleonic`, or a `.variant` path); with --position, the
        /// case's VARIANT is used.
        #[arg(long)]
        variant: Option<String>,
        /// A case file whose first case's position (and variant) the orders are checked against.
        #[arg(long)]
        position: Option<PathBuf>,
        /// The power giving the orders (with --position: its units only).
        #[arg(long)]
        power: Option<String>,
        /// The orders, one per line.
        file: PathBuf,
    },
}

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    // The replay keeps its store in a temporary folder unless --db is on its command line (not
    // from $NAPJUDGE_DB: a replay never writes into the live judge's file by accident).
    let db_given = matches.value_source("db") == Some(clap::parser::ValueSource::CommandLine);
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    // The config is found the way the database is: --config, $NAPJUDGE_CONFIG, or beside it.
    let config_file = napjudge_judge::locate_config(cli.config.as_deref(), &cli.db);
    let config_file = config_file.as_deref();
    let result = match cli.command {
        Command::Serve {
            maildir,
            tick_every,
            to_dir,
            smtp,
        } => {
            if cli.now.is_some() {
                Err("serve runs on the system clock: leave --now out".to_string())
            } else {
                service::serve(
                    &cli.db,
                    config_file,
                    service::Serve {
                        maildir,
                        tick_every,
                        to_dir,
                        smtp,
                    },
                )
            }
        }
        Command::Init { dir } => service::init(&dir),
        Command::Check => service::check(&cli.db, config_file),
        Command::Replay { path, outbox } => cli::replay::replay(
            &path,
            db_given.then_some(cli.db.as_path()),
            outbox.as_deref(),
        ),
        Command::Game { command } => {
            cli::game::game(&cli.db, cli.now.as_deref(), config_file, command)
        }
        Command::Site { out, games } => site_cli::site(&cli.db, config_file, &out, &games),
        Command::Tick { to_dir, smtp } => cli::tick(
            &cli.db,
            cli.now.as_deref(),
            config_file,
            to_dir.as_deref(),
            smtp.as_deref(),
        ),
        Command::Outbox { command } => {
            cli::outbox::outbox(&cli.db, cli.now.as_deref(), config_file, command)
        }
        Command::Mail { command } => {
            cli::mail::mail(&cli.db, cli.now.as_deref(), config_file, command)
        }
        Command::Map {
            game: Some(game),
            phase,
            shapes,
            output,
            ..
        } => cli::map::map(
            &cli.db,
            config_file,
            &game,
            phase.as_deref(),
            shapes.as_deref(),
            &output,
        ),
        command => run_command(command),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("napjudge: {e}");
            ExitCode::from(2)
        }
    }
}

fn run_command(command: Command) -> Result<ExitCode, String> {
    match command {
        Command::Variant {
            command: VariantCommand::Show { name },
        } => {
            let v = napjudge_cases::files::load_variant(&name).map_err(|e| e.to_string())?;
            print!("{}", variant::summary(&v));
            Ok(ExitCode::SUCCESS)
        }
        Command::Orders {
            command:
                OrdersCommand::Check {
                    variant,
                    position,
                    power,
                    file,
                },
        } => orders_check(variant.as_deref(), position, power, &file),
        Command::Cases { paths } => {
            let summary = case::run_paths(&paths);
            print!("{}", summary.report);
            Ok(if summary.failed == 0 && summary.passed > 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Adjudicate { file } => adjudicate(&file),
        Command::Map {
            case,
            case_id,
            after,
            shapes,
            output,
            ..
        } => match case {
            Some(file) => {
                cli::map::map_case(&file, case_id.as_deref(), after, shapes.as_deref(), &output)
            }
            None => Err("give a GAME or --case FILE".into()),
        },
        Command::Game { .. }
        | Command::Tick { .. }
        | Command::Outbox { .. }
        | Command::Replay { .. }
        | Command::Site { .. }
        | Command::Serve { .. }
        | Command::Init { .. }
        | Command::Check
        | Command::Mail { .. } => Err("the judge's commands are run by main".into()),
    }
}

fn orders_check(
    variant_name: Option<&str>,
    position: Option<PathBuf>,
    power: Option<String>,
    file: &Path,
) -> Result<ExitCode, String> {
    // The position's case names its variant: a --variant that says otherwise is a mistake.
    let case = match &position {
        Some(path) => {
            let cases = case::file::read_file(path).map_err(|e| e.to_string())?;
            let first = cases.into_iter().next().ok_or_else(|| {
                format!(
                    "{}: no case in it to take the position from",
                    path.display()
                )
            })?;
            Some(first)
        }
        None => None,
    };
    let name = match (&case, variant_name) {
        (Some(c), Some(n)) if !c.variant.is_empty() && c.variant != n => {
            return Err(format!(
                "--variant {n} contradicts the position's VARIANT {} ({}:{}): leave --variant out",
                c.variant, c.file, c.line
            ))
        }
        (Some(c), _) if !c.variant.is_empty() => c.variant.clone(),
        (_, Some(n)) => n.to_string(),
        (Some(c), None) => {
            return Err(format!(
                "{}:{}: the case has no VARIANT line; give --variant",
                c.file, c.line
            ))
        }
        (None, None) => {
            return Err(
                "give --variant (standard, napoleonic, or a .variant file), or --position CASE"
                    .into(),
            )
        }
    };
    let mut v: Variant = napjudge_cases::files::load_variant(&name).map_err(|e| e.to_string())?;
    let pos = match &case {
        Some(c) => {
            v = v.with_options(&c.options).map_err(|e| e.to_string())?;
            Some(run::initial_position(c, &v)?)
        }
        None => None,
    };
    let body = napjudge_cases::files::read_text(file)?;
    let power = match power {
        Some(name) => Some(
            v.power_by_name(&name)
                .ok_or_else(|| format!("unknown power '{name}'"))?,
        ),
        None => None,
    };
    let checked = turn::check(&v, pos.as_ref(), power, &body);
    if checked.is_empty() {
        return Err(format!(
            "{}: no orders in it: nothing was checked",
            file.display()
        ));
    }
    let mut failed = false;
    for c in &checked {
        match &c.checked {
            Ok(order) => println!("line {}: {}", c.line, order.display(&v)),
            Err(OrderError::Parse(e)) => {
                failed = true;
                println!("{e}");
            }
            Err(e) => {
                failed = true;
                let canonical = c.canonical(&v).unwrap_or_default();
                println!("line {}: {canonical}: {e}", c.line);
            }
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn adjudicate(file: &Path) -> Result<ExitCode, String> {
    let cases = case::file::read_file(file).map_err(|e| e.to_string())?;
    if cases.is_empty() {
        return Err(format!(
            "{}: no case in it: nothing was adjudicated",
            file.display()
        ));
    }
    let mut variants = run::Variants::default();
    for case in &cases {
        if case.variant.is_empty() {
            return Err(format!(
                "{}:{}: the case has no VARIANT line (VARIANT standard, or napoleonic)",
                case.file, case.line
            ));
        }
        let v = &variants.for_case(case)?;
        println!("{}", format!("CASE {} {}", case.id, case.title).trim_end());
        for step in run::play(case, v)? {
            let report = &step.report;
            println!("{}", v.phase_name(report.phase));
            for o in step.orders.iter().chain(&step.second) {
                let outcome = match &o.result {
                    Ok(outcome) => outcome.describe(v),
                    Err(e) => format!("void: {e}"),
                };
                println!("  {}: {}: {outcome}", v.power(o.power).name, o.text);
            }
            if !report.events.is_empty() {
                println!("events:");
                for e in &report.events {
                    println!("  {}: {}", e.kind(), e.shown(v));
                }
            }
            if !report.ledgers.is_empty() {
                println!("ledgers:");
                for l in &report.ledgers {
                    let items: Vec<String> = l.items.iter().map(|i| i.text(v)).collect();
                    println!("  {}: {}", v.power(l.power).name, items.join("; "));
                }
            }
            let owe: Vec<&str> = report
                .owe
                .iter()
                .map(|&p| v.power(p).name.as_str())
                .collect();
            if owe.is_empty() {
                println!("owe orders: nobody");
            } else {
                println!("owe orders: {}", owe.join(", "));
            }
            println!("position after:");
            print!(
                "{}",
                case::write::state_blocks(v, &report.next, &report.dislodged)
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
