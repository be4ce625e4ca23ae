//! The judge's commands at a shell (`game`, `tick`, `mail`, `outbox`, `map`, `replay`): each
//! parses its arguments, opens the store through the wiring, calls the service, prints. Exit 0
//! only on success.

pub mod game;
pub mod mail;
pub mod map;
pub mod outbox;
pub mod replay;

use crate::wiring::{self, Wired};
use std::path::Path;
use std::process::ExitCode;

/// Runs `tick`: the games, then the outbox when a folder or mail server is named.
pub fn tick(
    db: &Path,
    now: Option<&str>,
    config_file: Option<&Path>,
    to_dir: Option<&Path>,
    smtp: Option<&str>,
) -> Result<ExitCode, String> {
    let Wired {
        config,
        judge: mut j,
        clock,
    } = wiring::judge(db, now, config_file, false)?;
    let ticked = wiring::run_tick(&mut j, &config, clock);
    let (answered, report) = ticked.games?;
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
    match ticked.archive {
        Ok(Some(line)) => println!("{line}"),
        Ok(None) => {}
        Err(e) => {
            eprintln!("napjudge: tick: the web archive: {e}");
            code = ExitCode::FAILURE;
        }
    }
    let target = wiring::target(&config, to_dir, smtp)?;
    if target.is_none() {
        if let Some(w) = wiring::undeliverable(&j) {
            eprintln!("napjudge: tick: {w}");
        }
    }
    if let Some(target) = target {
        let from = std::env::var("NAPJUDGE_FROM").ok();
        let sent = wiring::deliver(&mut j, &config, &target, from, clock)?;
        println!("outbox: {}", outbox::sent_lines(&sent));
        if sent.failed + sent.given_up > 0 {
            code = ExitCode::FAILURE;
        }
    }
    Ok(code)
}
