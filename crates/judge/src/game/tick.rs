//! The clock's tick: each running game's phase processed when due, or its reminders sent.

use super::{seats, variant, Current, GameError, Judge};
use crate::clock::{self, ClockError};
use crate::render;
use crate::store::{Due, GameState, MailKind, NewMail, Reminded};
use chrono::{DateTime, Utc};
use napjudge_engine::advice;

/// What one `tick` did, per game.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TickReport {
    /// Each thing done, shown as a line (`game: processed Spring 1801 Movement`).
    pub done: Vec<TickEvent>,
    /// One line per game (or received mail) whose handling failed, with why: the others went
    /// on, and nothing of the failed one was changed.
    pub failed: Vec<String>,
}

/// One thing a tick did to a game.
#[derive(Clone, Debug, PartialEq)]
pub enum TickEvent {
    /// A phase processed.
    Processed {
        /// The game.
        game: String,
        /// The phase.
        phase: String,
    },
    /// The players who have not ordered reminded, before the deadline or in the grace.
    Reminded {
        /// The game.
        game: String,
        /// The powers reminded.
        powers: Vec<String>,
        /// In the grace, past the deadline.
        grace: bool,
    },
    /// A phase due left for the next tick: a mail is still being read.
    WaitsForMail {
        /// The game.
        game: String,
    },
    /// A game whose stored deadline can't be reckoned with, left as it is.
    NotProcessed {
        /// The game.
        game: String,
        /// Why.
        why: ClockError,
    },
}

impl std::fmt::Display for TickEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TickEvent::Processed { game, phase } => write!(f, "{game}: processed {phase}"),
            TickEvent::Reminded {
                game,
                powers,
                grace,
            } => {
                let when = if *grace {
                    "grace"
                } else {
                    "before the deadline"
                };
                write!(f, "{game}: reminded {} ({when})", powers.join(", "))
            }
            TickEvent::WaitsForMail { game } => {
                write!(
                    f,
                    "{game}: due, waits for a mail the judge is still reading"
                )
            }
            TickEvent::NotProcessed { game, why } => write!(f, "{game}: not processed: {why}"),
        }
    }
}

impl Judge {
    /// `tick`: for each running game, processes a phase that is due, or sends the reminders due.
    /// A phase is due when its deadline has passed and every power owing orders has sent them,
    /// when everyone has ordered and the game doesn't wait for the deadline, or when the grace
    /// has run out. Each game is its own transaction. Without `may_process` (a mail is still
    /// being read) no phase is processed: a phase due waits for the next tick.
    pub(crate) fn tick_games(
        &mut self,
        now: DateTime<Utc>,
        may_process: bool,
    ) -> Result<TickReport, GameError> {
        let mut report = TickReport::default();
        // One read for every game; only a game with something to do opens a write transaction.
        for due in self.store.view().due(None)? {
            // One game that fails (a damaged row, a deadline at the calendar's end, a GM command
            // the engine refuses) is reported and left as it was: the others are still processed.
            match self.tick_game(&due, now, may_process) {
                Ok(done) => report.done.extend(done),
                Err(e) => report.failed.push(format!("{}: {e}", due.game.name)),
            }
        }
        Ok(report)
    }

    /// One game's part of a tick, in its own transaction: what was done, if anything.
    fn tick_game(
        &mut self,
        due: &Due,
        now: DateTime<Utc>,
        may_process: bool,
    ) -> Result<Vec<TickEvent>, GameError> {
        let mut done = Vec::new();
        let waiting: Vec<String> = due
            .owe
            .iter()
            .filter(|p| !due.ordered.contains(p))
            .cloned()
            .collect();
        let waiting = seats::seated(self.store.view(), due.game.id, waiting)?;
        let p = &due.game.periods;
        let times = clock::after(due.deadline, p.grace.secs())
            .and_then(|g| Ok((g, clock::after(due.deadline, -p.remind.secs())?)));
        // A stored deadline at the calendar's end (only a damaged file has one) stops its own
        // game, said in the report, and the GM's `game deadline` mends it.
        let (grace_end, remind_at) = match times {
            Ok(t) => t,
            Err(why) => {
                return Ok(vec![TickEvent::NotProcessed {
                    game: due.game.name.clone(),
                    why,
                }])
            }
        };
        let due_now = (waiting.is_empty()
            && (now >= due.deadline || self.early_at(due)?.is_some_and(|at| at <= now)))
            || now >= grace_end;
        if due_now && !may_process {
            done.push(TickEvent::WaitsForMail {
                game: due.game.name.clone(),
            });
        }
        let process = due_now && may_process;
        let level = if now >= due.deadline {
            Reminded::Grace
        } else if now >= remind_at {
            Reminded::BeforeDeadline
        } else {
            Reminded::None
        };
        let remind = level > due.reminded && !waiting.is_empty();
        if !process && !remind {
            return Ok(done);
        }
        let v = variant(&mut self.variants, &due.game)?;
        let tx = self.store.begin()?;
        // Re-read inside the transaction: another napjudge may have moved the game on.
        let Some(phase) = tx.view().current_phase(due.game.id)? else {
            return Ok(done);
        };
        if phase.id != due.phase
            || tx.view().game(&due.game.name)?.map(|g| g.state) != Some(GameState::Running)
        {
            return Ok(done);
        }
        let game = &due.game;
        if process {
            let cur = Current {
                game: game.clone(),
                phase,
            };
            let played = Judge::play(&tx, v, &cur, now, false, self.site.as_deref())?;
            tx.commit()?;
            done.push(TickEvent::Processed {
                game: game.name.clone(),
                phase: played.phase,
            });
            return Ok(done);
        }
        let players = tx.view().players(game.id)?;
        let phase_name = v.phase_name(phase.position.phase);
        let shown = clock::show_in(due.deadline, &game.timezone);
        let grace_shown = clock::show_in(grace_end, &game.timezone);
        for power in &waiting {
            let Some(player) = players
                .iter()
                .find(|p| p.role.power() == Some(power.as_str()))
            else {
                continue;
            };
            let body = render::render(
                "reminder",
                &render::ReminderMail {
                    game: &game.name,
                    power,
                    phase: &phase_name,
                    deadline: &shown,
                    grace_end: &grace_shown,
                    in_grace: level == Reminded::Grace,
                    budget: &v
                        .power_by_name(power)
                        .and_then(|p| advice::budget(v, &phase.position, p, &[]))
                        .map(|b| render::advice::budget(v, &b).join("\n"))
                        .unwrap_or_default(),
                },
            )?;
            tx.queue_mail(
                &NewMail {
                    game: Some(game.id),
                    phase: Some(phase.id),
                    kind: MailKind::Reminder,
                    to: player.address.as_str(),
                    subject: &format!("{}: {phase_name}: orders due", game.name),
                    body: &body,
                    in_reply_to: None,
                },
                now,
            )?;
        }
        tx.set_reminded(phase.id, level)?;
        tx.commit()?;
        done.push(TickEvent::Reminded {
            game: game.name.clone(),
            powers: waiting,
            grace: level == Reminded::Grace,
        });
        Ok(done)
    }
}
