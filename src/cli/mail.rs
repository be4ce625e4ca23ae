//! `napjudge mail`: mail in at the shell, one message from a pipe (`receive`) or every message
//! waiting in a Maildir or the `[imap]` mailbox (`poll`).

use crate::wiring::{self, Wired};
use clap::Subcommand;
use napjudge_judge::{
    receive_incoming, Clock, Imap, Incoming, Judge, MailConfig, Mailbox, PolledMessage,
};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

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
        #[arg(long, default_value_t = napjudge_judge::MAX_SIZE)]
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
        #[arg(long, default_value_t = napjudge_judge::MAX_SIZE)]
        max_size: usize,
    },
}

/// Runs a `mail` command. A message is taken (exit 0) once it is stored, whatever it said.
pub fn mail(
    db: &Path,
    now: Option<&str>,
    config_file: Option<&Path>,
    command: MailCommand,
) -> Result<ExitCode, String> {
    // Not stored: EX_TEMPFAIL (75) tells the mail server to keep the message and try again.
    let Wired {
        config,
        judge: mut j,
        clock,
    } = match wiring::judge(db, now, config_file, false) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("napjudge: {e}");
            return Ok(ExitCode::from(75));
        }
    };
    match command {
        MailCommand::Receive { from, max_size } => {
            let cfg = wiring::mail_config(&config, from, max_size);
            // At most the size limit is held: the rest of a larger message only goes through
            // its digest.
            let m = match Incoming::read(std::io::stdin().lock(), max_size) {
                Ok(m) => m,
                Err(err) => {
                    eprintln!("napjudge: standard input: {err}; the message was not stored");
                    return Ok(ExitCode::from(75));
                }
            };
            match receive_incoming(&mut j, &cfg, &m, clock.now()) {
                Ok(h) => wiring::handled("message", &h),
                Err(e) => {
                    eprintln!("napjudge: the message was not stored or answered: {e}");
                    if let Err(why) = wiring::writable(db) {
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
            let cfg = wiring::mail_config(&config, from, max_size);
            if let Some(maildir) = maildir.filter(|_| !imap) {
                let polled = wiring::poll_maildir(&mut j, &cfg, &maildir, &clock, usize::MAX)?;
                if let Some(fault) = polled.fault {
                    // Exit 75: the files left stay in `new/` for the next run.
                    eprintln!("napjudge: {fault}");
                    return Ok(ExitCode::from(75));
                }
                return Ok(polled.code);
            }
            let Some(imap) = &config.imap else {
                eprintln!("napjudge: mail poll --imap: no [imap] section in napjudge.toml");
                return Ok(ExitCode::from(75));
            };
            return Ok(poll_imap(&mut j, &cfg, imap, clock));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `mail poll --imap`: every message of the `[imap]` folder taken once. Exit 75 when the
/// mailbox can't be read or a message can't be stored (what is left stays in the folder).
fn poll_imap(j: &mut Judge, cfg: &MailConfig, imap: &Imap, clock: Clock) -> ExitCode {
    let mut code = ExitCode::SUCCESS;
    let mut taken = |p: &PolledMessage| {
        let what = format!("imap uid {}", p.uid);
        match (&p.left, &p.handled, &p.failed) {
            (Some(why), _, _) => {
                eprintln!("napjudge: {what}: {why}");
                code = ExitCode::FAILURE;
            }
            (None, _, Some(why)) => {
                eprintln!("napjudge: {what}: {why}; moved to {}", imap.failed);
                code = ExitCode::FAILURE;
            }
            (None, Some(h), None) => println!("{what}: {}", wiring::fate(h)),
            (None, None, None) => println!("{what}: stored by an earlier poll; moved now"),
        }
    };
    let done = Mailbox::open(imap).and_then(|mut m| {
        let r = m.poll(j, cfg, &clock, usize::MAX, &mut taken);
        m.close();
        r
    });
    if let Err(e) = done {
        eprintln!("napjudge: {e}");
        return ExitCode::from(75);
    }
    code
}
