//! `napjudge outbox`: the mails the judge queued, listed, delivered and queued again.

use crate::wiring::{self, Wired};
use clap::Subcommand;
use napjudge_judge::{MailState, Sent, Which};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

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

/// Runs an `outbox` command.
pub fn outbox(
    db: &Path,
    now: Option<&str>,
    config_file: Option<&Path>,
    command: OutboxCommand,
) -> Result<ExitCode, String> {
    let Wired {
        config,
        judge: mut j,
        clock,
    } = wiring::judge(db, now, config_file, false)?;
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
            let target = wiring::target(&config, to_dir.as_deref(), smtp.as_deref())?.ok_or(
                "no mail server: give --smtp URL or --to-dir DIR, or write [smtp] in napjudge.toml",
            )?;
            let sent = wiring::deliver(&mut j, &config, &target, from, clock)?;
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

/// The counts, then one line per failed mail; the GM's notices that wait go to standard error
/// (cron mails it), at every send while they wait.
pub fn sent_lines(sent: &Sent) -> String {
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
