//! The `napjudge` command line.

use clap::{Parser, Subcommand};
use napjudge::case::{self, run};
use napjudge::order::{parse_mail, Order, Place};
use napjudge::validate::{check_mail, Checker};
use napjudge::variant::{self, Variant};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "napjudge",
    version,
    about = "A play-by-email judge for the Napoleonic Wars Diplomacy variant"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

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
        /// The variant (`standard`, `napoleonic`, or a `.variant` path).
        #[arg(long)]
        variant: String,
        /// A case file whose first case's position the orders are checked against.
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
    let cli = Cli::parse();
    match run_command(cli.command) {
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
            let v = variant::load_named(&name).map_err(|e| e.to_string())?;
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
        } => orders_check(&variant, position, power, &file),
        Command::Cases { paths } => {
            let summary = case::run_paths(&paths);
            print!("{}", summary.report);
            Ok(if summary.failed == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Adjudicate { file } => adjudicate(&file),
    }
}

fn orders_check(
    variant_name: &str,
    position: Option<PathBuf>,
    power: Option<String>,
    file: &Path,
) -> Result<ExitCode, String> {
    let v: Variant = variant::load_named(variant_name).map_err(|e| e.to_string())?;
    let body = variant::read_text(file)?;
    let power = match power {
        Some(name) => Some(
            v.power_by_name(&name)
                .ok_or_else(|| format!("unknown power '{name}'"))?,
        ),
        None => None,
    };
    let pos = match &position {
        Some(path) => {
            let cases = case::file::read_file(path).map_err(|e| e.to_string())?;
            let first = cases
                .first()
                .ok_or_else(|| format!("{}: no case in it", path.display()))?;
            let steps = run::play(first, &v)?;
            Some(
                steps
                    .first()
                    .map(|s| s.before.clone())
                    .ok_or_else(|| format!("{}: the case has no phase", path.display()))?,
            )
        }
        None => None,
    };
    let checker = Checker {
        variant: &v,
        position: pos.as_ref(),
        power,
    };
    let lines = parse_mail(&v, &body, power);
    let parsed: Vec<(usize, Order<Place>)> = lines
        .iter()
        .filter_map(|l| l.as_ref().ok().map(|p| (p.line, p.order.clone())))
        .collect();
    let checked = check_mail(&checker, &parsed);
    let mut failed = false;
    let mut checked = parsed.iter().map(|(n, _)| *n).zip(checked);
    for line in &lines {
        match line {
            Err(e) => {
                failed = true;
                println!("{e}");
            }
            Ok(p) => match checked.next() {
                Some((n, Ok(order))) => println!("line {n}: {}", order.display(&v)),
                Some((n, Err(e))) => {
                    failed = true;
                    println!("line {n}: {}: {e}", p.order.display(&v));
                }
                None => {}
            },
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
    let mut variants = run::Variants::default();
    for case in &cases {
        let v = &run::with_options(variants.get(&case.variant)?, case)?;
        println!("CASE {} {}", case.id, case.title);
        for step in run::play(case, v)? {
            println!("{}", v.phase_name(step.before.phase));
            for o in step.orders.iter().chain(&step.second) {
                println!(
                    "  {}: {}: {}",
                    v.power(o.power).name,
                    o.text,
                    o.outcome.describe(v)
                );
            }
            let forces: Vec<_> = step.after.forces().map(|(p, f)| (p, *f)).collect();
            println!("  units: {}", run::forces_text(v, &forces));
            for d in &step.after.dislodged {
                println!("  dislodged: {}", d.force.name(v, d.province));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
