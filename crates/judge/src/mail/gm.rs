//! The GM's commands by mail that run the game: PROCESS, PREVIEW, ROLLBACK, SET DEADLINE,
//! CONTROL, PAUSE and RESUME, and CODE and REPLACE through the seats' module. END is one of the
//! endings' commands.

use super::replies::{service, Block};
use super::text::GmCommand;
use super::{seats, MailError};
use crate::clock;
use crate::game::{GameError, Judge, Signed};
use chrono::{DateTime, Utc};

/// One GM's command `c` by the GM signed on as `s`, at the mail's time `now`.
pub(super) fn command(
    j: &mut Judge,
    s: &Signed,
    c: &GmCommand,
    head: String,
    now: DateTime<Utc>,
) -> Result<Block, MailError> {
    let name = s.game.name.clone();
    Ok(match c {
        GmCommand::Process { phase, anyway } => {
            let r = j.process_due(&name, Some(phase), *anyway, now);
            match &r {
                // The error says why the phase is not due; how to say "anyway" is the mail's.
                Err(e @ GameError::Early { phase, .. }) => Block::with(
                    head,
                    format!(
                        "ERROR: {e} To process it now anyway, write PROCESS {phase} NOW. Nothing \
                         was done."
                    ),
                ),
                _ => service(head, r, |p| {
                    vec![format!(
                        "Processed {}; next {}; {} mails queued.",
                        p.phase,
                        p.next.as_deref().unwrap_or("none (the game is over)"),
                        p.mails
                    )]
                }),
            }
        }
        GmCommand::Preview => service(head, j.process(&name, true, now), |p| {
            p.results.lines().map(str::to_string).collect()
        }),
        GmCommand::Rollback { phase, reason } => {
            service(head, j.rollback(&name, phase, Some(reason), now), |p| {
                vec![format!(
                    "The game is back at the start of {p}; everyone is told."
                )]
            })
        }
        GmCommand::SetDeadline(t) => {
            let zone = s.game.timezone.clone();
            service(head, j.set_deadline(&name, t, now), |at| {
                vec![format!(
                    "Deadline: {}; everyone is told.",
                    clock::show_in(at, &zone)
                )]
            })
        }
        GmCommand::Control(minor, major) => {
            service(head, j.control(&name, minor, major, now), |c| {
                vec![format!("{c} (carried out when the phase is processed).")]
            })
        }
        GmCommand::Code(words) => seats::code(j, s, words, head, now)?,
        GmCommand::Replace(words) => seats::replace(j, s, words, head, now)?,
        GmCommand::Pause => service(head, j.pause(&name, now), |_| {
            vec!["The game is paused.".into()]
        }),
        GmCommand::Resume => {
            let zone = s.game.timezone.clone();
            service(head, j.resume(&name, now), |d| {
                vec![format!(
                    "The game runs again{}.",
                    d.map(|d| format!("; deadline {}", clock::show_in(d, &zone)))
                        .unwrap_or_default()
                )]
            })
        }
        // Run by the endings' module.
        GmCommand::End(_) => Block::new(head),
    })
}
