//! The clock's tick: each running game's phase processed when due, or its reminders sent.

use super::{seats, variant, Current, GameError, Judge};
use crate::clock;
use crate::render;
use crate::store::{Due, GameState, MailKind, NewMail, Reminded};
use chrono::{DateTime, Utc};
use napjudge_engine::advice;

/// What one `tick` did, per game.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TickReport {
    /// One line per thing done (`game: processed Spring 1801 Movement`).
    pub done: Vec<String>,
    /// One line per game (or received mail) whose handling failed, with why: the others went
    /// on, and nothing of the failed one was changed.
    pub failed: Vec<String>,
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
        for due in self.store.view().due()? {
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
    ) -> Result<Vec<String>, GameError> {
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
            Err(e) => return Ok(vec![format!("{}: not processed: {e}", due.game.name)]),
        };
        let due_now = (waiting.is_empty()
            && (now >= due.deadline || self.may_go_early(due, now)?))
            || now >= grace_end;
        if due_now && !may_process {
            done.push(format!(
                "{}: due, waits for a mail the judge is still reading",
                due.game.name
            ));
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
            done.push(format!("{}: processed {}", game.name, played.phase));
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
                        .map(|b| render::advice::budget(&b))
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
        done.push(format!(
            "{}: reminded {} ({})",
            game.name,
            waiting.join(", "),
            if level == Reminded::Grace {
                "grace"
            } else {
                "before the deadline"
            }
        ));
        Ok(done)
    }
}
