//! Orders by mail: a mail's order lines taken as one set per power, CLEAR, the power's orders
//! as they now stand for the reply's last block, and why a game takes no orders.

use super::replies::Block;
use super::session::{stamp, Session};
use super::text::Line;
use super::{MailError, MAX_ORDER_LINES};
use crate::clock;
use crate::game::{GameError, Judge, OrderSet, Outlook, PhasePassed, Signed};
use crate::render::echo;
use crate::store::{Author, Game, GameState, Role};
use chrono::{DateTime, Utc};

/// Why a mail's orders or CLEAR are not used: it came in a phase that is over.
fn passed(p: &PhasePassed, at: DateTime<Utc>) -> String {
    let then = p
        .then
        .as_ref()
        .map_or("the game started".to_string(), |t| format!("{t} was over"));
    format!(
        "Your mail of {} reached the judge but was not read before {then}; its orders were not \
         used (the game is now in {}). Nothing was changed: send your orders for {} if you \
         have not.",
        stamp(at),
        p.now,
        p.now
    )
}

impl Session<'_> {
    /// A power's orders written for a phase that was processed without orders from it before
    /// they reached the judge: said first (once a mail), with what the power owes now. The
    /// orders are read for the phase now (a Date can be wrong: they are not refused for it).
    fn processed_before(&mut self, s: &Signed, game: &Game) -> Result<(), MailError> {
        let Role::Power(power) = &s.role else {
            return Ok(());
        };
        if self.told_processed || self.dated >= self.now {
            return Ok(());
        }
        let Some(PhasePassed {
            then: Some(then),
            now,
            at: Some(at),
            missing,
        }) = self.j.phase_passed(game, self.dated)?
        else {
            return Ok(());
        };
        if !missing.contains(power) {
            return Ok(());
        }
        let Some(owed) = self.j.owed(game, power)? else {
            return Ok(());
        };
        self.told_processed = true;
        let when = |t| clock::show_in(t, &game.timezone);
        let mut lines = vec![
            format!(
                "{then} was processed at {} without orders from you: your mail, dated {}, \
                 reached the judge at {}, after it.",
                when(at),
                when(self.dated),
                when(self.now)
            ),
            format!(
                "The game is now in {now}{}; your orders below were read for it.",
                owed.deadline
                    .map(|d| format!(" (deadline {})", when(d)))
                    .unwrap_or_default()
            ),
        ];
        lines.push(if owed.owes {
            format!("{power} owes orders in {now}.")
        } else {
            format!("{power} owes no orders in {now}.")
        });
        if !owed.retreats.is_empty() {
            lines.push("Your dislodged units:".into());
            lines.extend(owed.retreats);
        }
        self.push(Block {
            head: format!("{then} was processed without your orders"),
            lines,
        });
        Ok(())
    }

    /// CLEAR: the power's orders for the current phase are cleared (kept in their history).
    pub(super) fn clear(&mut self, s: &Signed, head: String) -> Result<Block, MailError> {
        let game = self.game_now(s)?;
        if let Some(refusal) = refuse_orders(self.j, &game)? {
            return Ok(Block::with(head, refusal));
        }
        if let Some(p) = self.j.phase_passed(&game, self.now)? {
            return Ok(Block::with(head, passed(&p, self.now)));
        }
        self.processed_before(s, &game)?;
        let power = s.role.name();
        match self.j.clear(&game.name, power, Author::Player, self.now) {
            Err(GameError::Over(_)) => Ok(Block::with(
                head,
                "The game is over: there are no orders to clear.",
            )),
            Err(e @ (GameError::ClearGm(_) | GameError::Superseded { .. })) => {
                Ok(Block::with(head, format!("ERROR: {e}. Nothing was done.")))
            }
            Err(e) => Err(e.into()),
            Ok(_) => {
                self.set = None;
                Ok(Block::with(head, "Your orders for this phase are cleared."))
            }
        }
    }

    /// The order lines of the mail, through the service's `orders` (the shell's `game orders`):
    /// per power, each line as understood or its error, replacing the orders' blocks so far. A
    /// player's lines are the player's; the GM's lines name their power (`France: A(Par)-Bur`),
    /// split off here once: the service is given the orders alone.
    pub(super) fn take_orders(&mut self, s: &Signed, lines: &[&Line]) -> Result<(), MailError> {
        self.blocks.retain(|(o, _)| !o);
        let game = self.game_now(s)?;
        if let Some(refusal) = refuse_orders(self.j, &game)? {
            self.push_block(true, Block::with("Orders", refusal));
            return Ok(());
        }
        if let Some(p) = self.j.phase_passed(&game, self.now)? {
            self.blocks
                .push((true, Block::with("Orders", passed(&p, self.now))));
            return Ok(());
        }
        self.processed_before(s, &game)?;
        if lines.len() > MAX_ORDER_LINES {
            self.push_block(
                true,
                Block::with(
                    "Orders",
                    format!(
                        "Your mail has {} order lines; the judge takes at most {MAX_ORDER_LINES} \
                         in one mail. None was read: send one line per order of your units. \
                         Nothing was done.",
                        lines.len()
                    ),
                ),
            );
            return Ok(());
        }
        // Per power, each line as given to the service with the mail's line and the characters
        // before the order in it (the GM's `France: `), so an error's column is the mail's.
        type Given<'l> = (&'l Line, &'l str, usize);
        let mut by_power: Vec<(String, Vec<Given<'_>>)> = Vec::new();
        for &l in lines {
            let (power, order, shift) = match &s.role {
                Role::Gm => l
                    .text
                    .split_once(':')
                    .map_or(("", l.text.as_str(), 0), |(p, o)| {
                        let before = l.text.len() - o.trim_start().len();
                        (p.trim(), o.trim(), l.text[..before].chars().count())
                    }),
                Role::Power(p) => (p.as_str(), l.text.as_str(), 0),
            };
            match by_power
                .iter_mut()
                .find(|(p, _)| p.eq_ignore_ascii_case(power))
            {
                Some((_, ls)) => ls.push((l, order, shift)),
                None => by_power.push((power.to_string(), vec![(l, order, shift)])),
            }
        }
        let by = match s.role {
            Role::Gm => Author::Gm,
            Role::Power(_) => Author::Player,
        };
        let mut failed = false;
        for (power, ls) in by_power {
            if power.is_empty() {
                failed = true;
                let lines = ls
                    .iter()
                    .map(|(l, _, _)| {
                        format!(
                            "line {}: {}: ERROR: the GM's orders name their power first \
                             (France: A(Par)-Bur).",
                            l.number,
                            echo(&l.text)
                        )
                    })
                    .collect();
                self.push_block(
                    true,
                    Block {
                        head: "Orders".into(),
                        lines,
                    },
                );
                continue;
            }
            let text: String = ls.iter().map(|(_, o, _)| format!("{o}\n")).collect();
            let block = match self.j.orders(&game.name, &power, &text, by, self.now) {
                Ok(taken) => {
                    // The service numbers the lines it was given: back to the mail's.
                    let mail_line = |n: usize| ls.get(n.wrapping_sub(1));
                    let mut lines: Vec<String> = taken
                        .ack
                        .lines
                        .iter()
                        .flat_map(|c| {
                            let (number, written, shift) = mail_line(c.line)
                                .map_or((c.line, c.text.as_str(), 0), |(l, _, shift)| {
                                    (l.number, l.text.as_str(), *shift)
                                });
                            let head = match &c.error {
                                None => format!("line {number}: {}", c.kept()),
                                Some(e) => {
                                    failed = true;
                                    let place = c.place(number, shift);
                                    format!("{place}: {}: ERROR: {e}", echo(written))
                                }
                            };
                            std::iter::once(head).chain(
                                c.warnings
                                    .iter()
                                    .map(move |w| format!("line {number}: WARNING: {w}")),
                            )
                        })
                        .collect();
                    let kept = taken.ack.kept();
                    lines.push(if kept == 0 {
                        "No line could be used: your earlier orders stand.".to_string()
                    } else {
                        format!(
                            "{kept} of {} lines kept; they replace your earlier orders for the \
                             phase.",
                            taken.ack.lines.len()
                        )
                    });
                    if kept > 0 {
                        lines.extend(taken.ack.notes.iter().cloned());
                    }
                    if kept > 0 && by == Author::Player {
                        self.set = Some(taken.ack);
                    }
                    Block {
                        head: format!("Orders for {}", echo(&power)),
                        lines,
                    }
                }
                Err(e) => {
                    failed = true;
                    Block::with(
                        format!("Orders for {}", echo(&power)),
                        format!("ERROR: {e}. Nothing was done."),
                    )
                }
            };
            self.push_block(true, block);
        }
        self.failed |= failed;
        Ok(())
    }

    /// The power's orders for the current phase as they now stand, canonical: those this mail
    /// stored as they were checked, else the stored ones checked once.
    pub(super) fn order_set(
        &mut self,
        game: &Game,
        power: &str,
    ) -> Result<Option<Block>, MailError> {
        let Some(set) = self.j.order_set(game, power, self.set.take())? else {
            return Ok(None);
        };
        let OrderSet {
            phase,
            owes,
            orders,
        } = set;
        let head = format!("Your orders for {phase} now");
        let mut lines = match (orders, owes) {
            (_, false) => vec![format!("{power} owes no orders in {phase}.")],
            (None, true) => vec!["None yet: without orders the rules' defaults apply.".into()],
            (Some(o), true) => o,
        };
        if owes && Judge::waits(self.j.view(), game, power)? {
            lines.push("You wait for the deadline: the phase is not processed before it.".into());
        }
        let when = |t| crate::clock::show_in(t, &game.timezone);
        match self.j.outlook(game, power)? {
            Some(Outlook::Early { at }) => lines.push(format!(
                "Everyone has ordered: the phase will be processed at {} unless someone changes \
                 orders.",
                when(at.max(self.now))
            )),
            Some(Outlook::WaitsForYou { deadline }) => lines.push(format!(
                "You have an error: the phase waits for you until the deadline, {}.",
                when(deadline)
            )),
            None => {}
        }
        Ok(Some(Block { head, lines }))
    }
}

/// Why a game takes no orders now, if it doesn't.
fn refuse_orders(j: &Judge, g: &Game) -> Result<Option<String>, MailError> {
    if let Some(e) = j.ending(g)? {
        return Ok(Some(format!(
            "Game '{}' ended {}: it takes no orders. Nothing was done.",
            g.name,
            crate::game::describe(&e, &g.timezone)
        )));
    }
    Ok(match g.state {
        GameState::Forming => Some(format!(
            "Game '{}' has not started: no orders yet. Nothing was done.",
            g.name
        )),
        GameState::Paused => Some(format!(
            "Game '{}' is paused by the GM: no orders are taken until it resumes. Nothing was done.",
            g.name
        )),
        GameState::Finished => Some(format!(
            "Game '{}' is over: no orders are taken. Nothing was done.",
            g.name
        )),
        GameState::Running => None,
    })
}
