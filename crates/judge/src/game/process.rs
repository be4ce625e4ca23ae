//! Playing a phase: `game process` and the GM's PROCESS (refused before the deadline unless
//! said "anyway"), the preview, the results mails, and `game rollback`.

use super::{
    begin, board_png, ending, join_or, names, period_for, seats, variant, waiting, Current,
    GameError, Judge,
};
use crate::clock;
use crate::notice;
use crate::pages;
use crate::render::{self, Context, PhaseView};
use crate::store::{Author, GameState, MailKind, OrderText, PhaseRow, Tx, View};
use chrono::{DateTime, Utc};
use napjudge_engine::turn::{self, Sheets};
use napjudge_engine::variant::{PhaseKind, Variant};
use napjudge_picture as picture;
use std::collections::BTreeMap;

/// What `process` did.
#[derive(Clone, Debug, PartialEq)]
pub struct Processed {
    /// The phase played.
    pub phase: String,
    /// The next phase (or none: the game is over).
    pub next: Option<String>,
    /// Its deadline.
    pub deadline: Option<DateTime<Utc>>,
    /// Mails queued.
    pub mails: usize,
    /// The results mail text.
    pub results: String,
}

impl Judge {
    /// The sheets of a phase: the GM's commands and each power's latest orders.
    fn sheets(
        c: View,
        v: &Variant,
        phase: &PhaseRow,
    ) -> Result<(Sheets, Vec<OrderText>), GameError> {
        let texts = c.latest_orders(phase.id)?;
        let mut orders = BTreeMap::new();
        for t in &texts {
            if let Some(p) = v.power_by_name(&t.power) {
                orders.insert(p, t.text.clone());
            }
        }
        Ok((
            Sheets {
                gm: c.gm_commands(phase.id)?,
                orders,
            },
            texts,
        ))
    }

    /// Late and missing powers of a phase processed now.
    fn lateness(v: &Variant, phase: &PhaseRow, texts: &[OrderText]) -> (Vec<String>, Vec<String>) {
        let owe = names(v, &turn::owing(v, &phase.position));
        let late = owe
            .iter()
            .filter(|p| {
                texts.iter().any(|t| {
                    &&t.power == p
                        && t.by == Author::Player
                        && phase.deadline.is_some_and(|d| t.received > d)
                })
            })
            .cloned()
            .collect();
        let missing = owe
            .iter()
            .filter(|p| !texts.iter().any(|t| &&t.power == p))
            .cloned()
            .collect();
        (late, missing)
    }

    /// `game process`: plays the current phase now. With `preview`, returns the GM's preview and
    /// stores nothing.
    pub fn process(
        &mut self,
        name: &str,
        preview: bool,
        now: DateTime<Utc>,
    ) -> Result<Processed, GameError> {
        self.process_checked(name, None, preview, None, now)
    }

    /// `game process` (`named` none) and the GM's `PROCESS PHASE` by mail, which plays the
    /// current phase only when it is the one named, so that a PROCESS mail sent again (or
    /// replayed) can't process the phase after it. Before the deadline it is refused, saying
    /// who has not ordered and what happens to them, unless the GM says `anyway`
    /// (`--now-anyway`, `PROCESS PHASE NOW`) or everyone has ordered in a game that doesn't
    /// wait for its deadline.
    pub fn process_due(
        &mut self,
        name: &str,
        named: Option<&str>,
        anyway: bool,
        now: DateTime<Utc>,
    ) -> Result<Processed, GameError> {
        self.process_checked(name, named, false, Some(anyway), now)
    }

    /// `anyway`: none for the library's own callers (tests, benches), which process whatever
    /// the deadline; else whether the GM said to process before it.
    fn process_checked(
        &mut self,
        name: &str,
        named: Option<&str>,
        preview: bool,
        anyway: Option<bool>,
        now: DateTime<Utc>,
    ) -> Result<Processed, GameError> {
        let (tx, cur, v) = begin(&mut self.store, &mut self.variants, name)?;
        if let Some(named) = named {
            let current = v.phase_name(cur.phase.position.phase);
            if named.trim().is_empty() {
                return Err(GameError::ProcessWhich(current));
            }
            let wanted = v.parse_phase(named);
            if wanted != Some(cur.phase.position.phase) {
                let played = tx.view().phases(cur.game.id)?.iter().any(|p| {
                    Some(p.position.phase) == wanted && p.report.is_some() && !p.superseded
                });
                return Err(GameError::NotCurrent {
                    game: cur.game.name.clone(),
                    named: named.trim().to_string(),
                    what: if played {
                        "it was processed already"
                    } else {
                        "not a phase the game is in"
                    },
                    current,
                });
            }
        }
        if anyway == Some(false) {
            Judge::refuse_early(tx.view(), v, &cur, now)?;
        }
        let processed = Judge::play(&tx, v, &cur, now, preview, self.site.as_deref())?;
        if preview {
            // Dropping the transaction rolls it back: a preview leaves no trace.
            return Ok(processed);
        }
        tx.commit()?;
        Ok(processed)
    }

    /// Refuses a GM's process before the current phase's deadline, naming who has not ordered
    /// and what the rules do for them; a phase everyone has ordered for in a game that doesn't
    /// wait for its deadline is due anyway (the next tick would process it).
    fn refuse_early(
        view: View,
        v: &Variant,
        cur: &Current,
        now: DateTime<Utc>,
    ) -> Result<(), GameError> {
        let Some(deadline) = cur.phase.deadline.filter(|&d| now < d) else {
            return Ok(());
        };
        let texts = view.latest_orders(cur.phase.id)?;
        let waiting: Vec<String> = names(v, &turn::owing(v, &cur.phase.position))
            .into_iter()
            .filter(|p| !texts.iter().any(|t| &t.power == p))
            .collect();
        if waiting.is_empty() && !cur.game.wait {
            return Ok(());
        }
        let phase = v.phase_name(cur.phase.position.phase);
        let fate = match cur.phase.position.phase.kind {
            PhaseKind::Movement | PhaseKind::SecondMovement => "their units hold (civil disorder)",
            PhaseKind::Retreat | PhaseKind::SecondRetreat => "their dislodged units disband",
            PhaseKind::Adjustment | PhaseKind::Bids => {
                "the Winter's defaults apply to them (civil disorder: no bids or builds, \
                 removals as the rules choose)"
            }
        };
        let waiting = match waiting.as_slice() {
            [] => "Everyone has ordered, but the game waits for its deadline: players may \
                   still change their orders."
                .to_string(),
            w => format!("No orders yet from {}: {fate}.", w.join(", ")),
        };
        Err(GameError::Early {
            game: cur.game.name.clone(),
            phase,
            deadline,
            zone: cur.game.timezone.clone(),
            waiting,
        })
    }

    /// Plays `cur` inside the caller's transaction: stores the report, the next phase and every
    /// result mail, linking to the phase's page under `site` (or, for a preview, only renders).
    pub(super) fn play(
        c: &Tx,
        v: &Variant,
        cur: &Current,
        now: DateTime<Utc>,
        preview: bool,
        site: Option<&str>,
    ) -> Result<Processed, GameError> {
        let (game, phase) = (&cur.game, &cur.phase);
        let (sheets, texts) = Judge::sheets(c.view(), v, phase)?;
        let report = turn::play(v, &phase.position, &sheets)?;
        let (late, missing) = Judge::lateness(v, phase, &texts);
        let over = !report.next.ledgers.winners.is_empty();
        let (deadline, moved) = match over {
            true => (None, None),
            false => {
                let computed = clock::after(
                    now,
                    period_for(&game.periods, report.next.phase.kind).secs(),
                )?;
                let (at, moved) = waiting::clear_deadline(c, game, computed)?;
                (Some(at), moved)
            }
        };
        // A preview's phase has no page yet.
        let page = site
            .filter(|_| !preview)
            .map(|url| pages::phase_url(url, &game.name, v, report.phase));
        let view = PhaseView::new(
            v,
            &report,
            &Context {
                game: &game.name,
                before: &phase.position,
                late: &late,
                missing: &missing,
                next_deadline: deadline.map(|d| clock::show_in(d, &game.timezone)),
                over,
                page,
            },
        );
        let mut results = render::results(&view, report.phase.kind)?;
        // A phase played again after a rollback: its results replace those mailed before.
        let replayed = c.view().rolled_back(game.id)?
            && c.view().phases(game.id)?.iter().any(|p| {
                p.superseded && p.report.is_some() && p.position.phase == phase.position.phase
            });
        if replayed {
            results = format!(
                "These results replace the earlier results of {}, made void when the GM rolled \
                 the game back.\n\n{results}",
                v.phase_name(phase.position.phase)
            );
        }
        let phase_name = v.phase_name(report.phase);
        let next = (!over).then(|| v.phase_name(report.next.phase));
        if preview {
            let waiting: Vec<String> = names(v, &turn::owing(v, &phase.position))
                .into_iter()
                .filter(|p| !texts.iter().any(|t| &t.power == p))
                .collect();
            let text = render::render(
                "preview",
                &render::PreviewMail {
                    game: &game.name,
                    phase: &phase_name,
                    results: &results,
                    waiting: &join_or(&waiting, "nobody"),
                },
            )?;
            return Ok(Processed {
                phase: phase_name,
                next,
                deadline,
                mails: 0,
                results: text,
            });
        }
        if !c.finish_phase(phase.id, &report, now, &late, &missing)? {
            return Err(GameError::Raced(game.name.clone()));
        }
        if over {
            c.set_state(game.id, GameState::Finished)?;
        } else {
            c.insert_phase(game.id, &report.next, &names(v, &report.owe), deadline, now)?;
        }
        let subject = format!("{}: results of {phase_name}", game.name);
        let mails = notice::broadcast(
            c,
            game,
            &notice::Broadcast {
                kind: MailKind::Results,
                phase: Some(phase.id),
                subject: &subject,
                body: &results,
            },
            now,
        )?;
        // The next phase's deadline moved for an absence is told after the results that
        // open that phase: queued after them, it is delivered after them.
        if let (Some(m), Some(next)) = (moved, &next) {
            waiting::tell_moved(c, game, next, m, now)?;
        }
        if game.pictures {
            let png = board_png(v, game, &report.next, Some(&report), picture::View::After);
            if let Some(png) = png {
                c.attach_picture(phase.id, &png)?;
            }
        }
        let owe = names(v, &turn::owing(v, &phase.position));
        seats::after_phase(c, v, game, &owe, &missing, now)?;
        if over {
            ending::victory(c, v, game, &report.next.ledgers.winners, &phase_name, now)?;
        }
        Ok(Processed {
            phase: phase_name,
            next,
            deadline,
            mails,
            results,
        })
    }

    /// `game rollback`: the game goes back to the start of `phase` (a phase played before); the
    /// phases after it stay in the history, set aside, and everyone is told which results are
    /// void, with the GM's `reason`. The phase's orders and GM commands are
    /// carried over, so that processing it again gives the same results unless they change.
    pub fn rollback(
        &mut self,
        name: &str,
        phase_name: &str,
        reason: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<String, GameError> {
        let tx = self.store.begin()?;
        let game = Judge::game(tx.view(), name)?;
        if game.state == GameState::Forming {
            return Err(GameError::NotStarted(game.name));
        }
        let v = variant(&mut self.variants, &game)?;
        let live: Vec<PhaseRow> = tx
            .view()
            .phases(game.id)?
            .into_iter()
            .filter(|p| !p.superseded)
            .collect();
        let wanted = v.parse_phase(phase_name);
        let target = live
            .iter()
            .rev()
            .find(|p| Some(p.position.phase) == wanted && p.report.is_some())
            .ok_or_else(|| GameError::UnknownPhase {
                game: game.name.clone(),
                phase: phase_name.to_string(),
                phases: live
                    .iter()
                    .filter(|p| p.report.is_some())
                    .map(|p| format!("'{}'", v.phase_name(p.position.phase)))
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
        let texts = tx.view().all_orders(target.id)?;
        let commands = tx.view().gm_commands(target.id)?;
        tx.supersede_from(game.id, target.seq)?;
        let shown = v.phase_name(target.position.phase);
        let deadline = clock::after(
            now,
            period_for(&game.periods, target.position.phase.kind).secs(),
        )?;
        let deadline = waiting::deadline_for(&tx, &game, &shown, deadline, now)?;
        let owe = names(v, &turn::owing(v, &target.position));
        let id = tx.insert_phase(game.id, &target.position, &owe, Some(deadline), now)?;
        for t in &texts {
            tx.add_orders(id, t)?;
        }
        for c in &commands {
            tx.add_gm_action(
                game.id,
                Some(id),
                &format!("carried over: {c}"),
                Some(c),
                now,
            )?;
        }
        let reason = reason.map(str::trim).filter(|r| !r.is_empty());
        tx.add_gm_action(
            game.id,
            Some(id),
            &match reason {
                Some(r) => format!("rolled back to {shown}: {r}"),
                None => format!("rolled back to {shown}"),
            },
            None,
            now,
        )?;
        let mut game = game.clone();
        if game.state == GameState::Finished {
            // The GM's way back from any ending: the game plays on, its votes start afresh.
            tx.set_state(game.id, GameState::Running)?;
            tx.forget_ending(game.id)?;
            tx.clear_votes(game.id)?;
            game.state = GameState::Running;
        }
        let void = live
            .iter()
            .filter(|p| p.seq >= target.seq && p.report.is_some())
            .map(|p| v.phase_name(p.position.phase))
            .collect();
        let change = notice::Change::RolledBack {
            to: shown.clone(),
            void,
            reason: reason.map(str::to_string),
        };
        notice::tell(&tx, v, &game, &change, now)?;
        tx.commit()?;
        Ok(shown)
    }
}
