//! A power's orders: how they are acknowledged (each line as read, the stacks, the warnings),
//! stored by `game orders` or a player's mail, cleared, and shown as the set in force.

use super::{begin, join_or, names, variant, Current, GameError, Judge};
use crate::notice;
use crate::render;
use crate::store::{Author, Game, OrderText, View};
use chrono::{DateTime, Utc};
use napjudge_engine::advice::{self, Warning};
use napjudge_engine::order::{Order, OrderKind, Place, Stage};
use napjudge_engine::outcome::{Outcome, Reason, Refusal};
use napjudge_engine::position::Position;
use napjudge_engine::turn::{self, CheckedOrder, OrderError};
use napjudge_engine::variant::{PowerId, Region, Variant};

/// One line of a power's orders as `game orders` understood it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderCheck {
    /// The line number.
    pub line: usize,
    /// The line as written.
    pub text: String,
    /// The canonical order, or the text.
    pub order: String,
    /// The error, when it failed (without its place: see `column`).
    pub error: Option<String>,
    /// Where in the line a line that is no order goes wrong (1-based, in characters).
    pub column: Option<usize>,
    /// What validation changed in a line it kept (a merge's participants left out).
    pub note: Option<String>,
    /// What a kept line will do that the power may not mean: it stands as written.
    pub warnings: Vec<String>,
}

impl OrderCheck {
    /// Where the line is, once: `line 3` or, for a line that is no order, `line 3, column 7`.
    /// `line` is the line's number and `shift` the characters before the order in the line
    /// as the reader sees it (a mail's line numbers and the GM's `France: ` before an order).
    pub fn place(&self, line: usize, shift: usize) -> String {
        match self.column {
            Some(c) => format!("line {line}, column {}", c + shift),
            None => format!("line {line}"),
        }
    }

    /// A kept line as the acknowledgement gives it: the canonical order, and what validation
    /// changed in it.
    pub fn kept(&self) -> String {
        match &self.note {
            None => self.order.clone(),
            Some(n) => format!("{} (note: {n})", self.order),
        }
    }
}

/// A power's orders as the acknowledgement gives them: each line as understood, and for the
/// power's forces of several components what each component will do (R1.4).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Acknowledgement {
    /// Each line, in the order written.
    pub lines: Vec<OrderCheck>,
    /// `3A(Bur): 1 by A(Bur)-Par; 2 hold`, for each force of several components.
    pub stacks: Vec<String>,
    /// The warnings about the set (units with no order, builds unused) and, in a Winter, the
    /// power's budget.
    pub notes: Vec<String>,
}

impl Acknowledgement {
    /// How many lines were kept.
    pub(crate) fn kept(&self) -> usize {
        self.lines.iter().filter(|l| l.error.is_none()).count()
    }

    /// The order set the kept lines make, canonical, with the stacks restated.
    pub fn set(&self) -> Vec<String> {
        self.lines
            .iter()
            .filter(|l| l.error.is_none())
            .map(|l| l.order.clone())
            .chain(self.stacks.iter().cloned())
            .collect()
    }
}

/// What `orders` did with a power's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrdersTaken {
    /// The power, as the variant names it.
    pub power: String,
    /// The text read.
    pub ack: Acknowledgement,
}

/// A power's orders in force in the current phase.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct OrderSet {
    /// The phase's name.
    pub phase: String,
    /// Whether the power owes orders in it.
    pub owes: bool,
    /// The orders in force, canonical, with the stacks restated (none: the defaults apply).
    pub orders: Option<Vec<String>>,
}

/// What a power owes in the current phase, as a reply to orders written for a phase processed
/// before they came says it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Owed {
    /// The current phase's name.
    pub phase: String,
    /// Its deadline.
    pub deadline: Option<DateTime<Utc>>,
    /// Whether the power owes orders in it.
    pub owes: bool,
    /// In a retreat phase, each of the power's dislodged forces and where it may retreat
    /// (`A(Bar): may retreat to Kon, Sil`).
    pub retreats: Vec<String>,
}

/// What the acknowledgement says of a one-line merge's participants left out: those named where
/// the power has no such unit (R2.4), and those whose units are there but are ordered more than
/// once (R1.4, R2.6); in both cases the others merge.
fn participants_note(
    position: &Position,
    power: PowerId,
    c: &turn::CheckedOrder,
) -> Option<String> {
    let dropped = c.dropped_participants();
    let Some(OrderKind::Merge { units, .. }) = c.parsed.as_ref().map(|p| &p.kind) else {
        return None;
    };
    // Every participant kept is there; one left out though its units are there was over-ordered.
    let there = units
        .iter()
        .filter(|u| match &u.at {
            Place::Known(r) => position.force(r.province).is_some_and(|f| {
                position.commands(power, f.power) && f.armies >= u.armies && f.fleets >= u.fleets
            }),
            Place::Ambiguous { .. } => false,
        })
        .count();
    let doubled = there.saturating_sub(units.len() - dropped).min(dropped);
    let absent = dropped - doubled;
    let mut notes = Vec::new();
    match absent {
        0 => {}
        1 => notes.push("one participant named is not there".to_string()),
        n => notes.push(format!("{n} participants named are not there")),
    }
    match doubled {
        0 => {}
        1 => notes.push("one participant named is also ordered elsewhere (R1.4)".to_string()),
        n => notes.push(format!(
            "{n} participants named are also ordered elsewhere (R1.4)"
        )),
    }
    let they = if dropped == 1 {
        "it takes"
    } else {
        "they take"
    };
    (dropped > 0).then(|| {
        format!(
            "{}: {they} no part, and the others merge (R2.4)",
            notes.join(", and ")
        )
    })
}

/// How a power's orders are acknowledged (the GM's `game orders`, and a player's mail): the text
/// checked once, with the warnings of what the orders will do that the power may not mean
/// ([`advice::check`]: `turn::check`, and in a Winter the power's orders played alone). A bid past
/// the power's IP (R7.6) is refused now, with the engine's reason, rather than only when the
/// phase is processed: a power's IP depend only on its own orders and the position.
pub(crate) fn acknowledge(
    v: &Variant,
    position: &Position,
    gm: &[String],
    power: PowerId,
    text: &str,
) -> Acknowledgement {
    let advised = advice::check(v, position, gm, power, text);
    let checked = &advised.orders;
    let mut lines: Vec<OrderCheck> = checked
        .iter()
        .map(|c| OrderCheck {
            line: c.line,
            text: c.text.clone(),
            order: c.canonical(v).unwrap_or_else(|| c.text.clone()),
            error: match &c.checked {
                Ok(_) => None,
                Err(OrderError::Parse(e)) => Some(e.message()),
                Err(e) => Some(e.to_string()),
            },
            column: match &c.checked {
                Err(OrderError::Parse(e)) => Some(e.column),
                _ => None,
            },
            note: participants_note(position, power, c),
            warnings: Vec::new(),
        })
        .collect();
    let order_at = |n: usize| {
        checked
            .iter()
            .find(|c| c.line == n)
            .and_then(|c| c.canonical(v))
    };
    let mut whole = Vec::new();
    for a in &advised.advice {
        let Some(l) = a.line.and_then(|n| lines.iter_mut().find(|l| l.line == n)) else {
            whole.push(&a.warning);
            continue;
        };
        match &a.warning {
            Warning::Alone(
                outcome @ Outcome::Fails(Reason::Refused(Refusal::IpOverBudget { .. })),
            ) => {
                l.error = Some(outcome.describe(v));
            }
            w => l.warnings.push(render::advice::line(v, w, &order_at)),
        }
    }
    let mut notes = render::advice::notes(v, &whole);
    if let Some(b) = &advised.budget {
        notes.extend(render::advice::budget(v, b));
    }
    let kept: Vec<&CheckedOrder> = checked
        .iter()
        .filter(|c| lines.iter().any(|l| l.line == c.line && l.error.is_none()))
        .collect();
    let stacks = stacks(v, position, power, &kept);
    Acknowledgement {
        lines,
        stacks,
        notes,
    }
}

/// R1.4: for each of the power's forces of several components, what each component of it will
/// do under the kept orders (`3A(Bur): 1 by A(Bur)-Par; 2 hold`): components no order names hold.
fn stacks(v: &Variant, position: &Position, p: PowerId, kept: &[&CheckedOrder]) -> Vec<String> {
    let orders: Vec<&Order<Region>> = kept
        .iter()
        .filter_map(|c| c.checked.as_ref().ok())
        .filter(|o| o.stage == Stage::First)
        .collect();
    position
        .forces()
        .filter(|(_, f)| f.power == p && f.components() > 1)
        .map(|(at, f)| {
            let mut parts = Vec::new();
            let mut named = 0;
            for o in &orders {
                if let Some(u) = o.kind.unit().filter(|u| u.at.province == at) {
                    let k = u32::from(u.armies) + u32::from(u.fleets);
                    named += k;
                    parts.push(format!("{k} by {}", o.display(v)));
                }
            }
            let rest = f.components().saturating_sub(named);
            if rest > 0 {
                parts.push(format!("{rest} hold"));
            }
            format!("{}: {}", f.name(v, at), parts.join("; "))
        })
        .collect()
}

/// Refuses orders or a CLEAR of time `now` for `power` when the phase holds a newer row for it:
/// a mail answered late (its `receive` killed, answered by a tick) never replaces orders
/// received after it, whoever entered them.
fn newer(view: View, phase: i64, power: &str, now: DateTime<Utc>) -> Result<(), GameError> {
    match view
        .latest_rows(phase)?
        .into_iter()
        .find(|t| t.power == power && t.received > now)
    {
        Some(t) => Err(GameError::Superseded {
            power: t.power,
            by: t.by,
            at: t.received,
            cleared: t.cleared,
        }),
        None => Ok(()),
    }
}

impl Judge {
    /// `game orders`: checks a power's orders once, as the acknowledgement gives them
    /// (`acknowledge`), keeps the valid lines as the power's orders for the phase, and says
    /// how each line was read. A text with no valid line changes nothing: the earlier orders
    /// stand.
    pub fn orders(
        &mut self,
        name: &str,
        power: &str,
        text: &str,
        by: Author,
        now: DateTime<Utc>,
    ) -> Result<OrdersTaken, GameError> {
        let (tx, cur, v) = begin(&mut self.store, &mut self.variants, name)?;
        let p = Judge::owing(v, &cur, power)?;
        newer(tx.view(), cur.phase.id, &v.power(p).name, now)?;
        let gm = tx.view().gm_commands(cur.phase.id)?;
        let ack = acknowledge(v, &cur.phase.position, &gm, p, text);
        let kept: String = ack
            .lines
            .iter()
            .filter(|l| l.error.is_none())
            .map(|l| format!("{}\n", l.text))
            .collect();
        let power = v.power(p).name.clone();
        if !kept.is_empty() {
            tx.add_orders(
                cur.phase.id,
                &OrderText {
                    power: power.clone(),
                    text: kept,
                    received: now,
                    by,
                    cleared: false,
                    flawed: ack.lines.iter().any(|l| l.error.is_some()),
                },
            )?;
            // The player learns what was entered on their behalf; the others are not told
            // (a power's orders, and that its player needed the GM, are its own until the
            // results).
            if by == Author::Gm {
                let change = notice::Change::GmOrders {
                    power: power.clone(),
                    orders: ack.set(),
                };
                notice::tell(&tx, v, &cur.game, &change, now)?;
            }
        }
        tx.commit()?;
        Ok(OrdersTaken { power, ack })
    }

    /// The major `power` (as written), when it owes orders in the current phase.
    fn owing(v: &Variant, cur: &Current, power: &str) -> Result<PowerId, GameError> {
        let p = Judge::major(v, power)?;
        let owe = turn::owing(v, &cur.phase.position);
        if !owe.contains(&p) {
            return Err(GameError::NotOwing {
                power: v.power(p).name.clone(),
                phase: v.phase_name(cur.phase.position.phase),
                owe: join_or(&names(v, &owe), "nobody"),
            });
        }
        Ok(p)
    }

    /// CLEAR: the power has no orders in the current phase from now on (the rules' defaults
    /// apply unless it orders again). Kept in the orders' history as a row that holds the text
    /// it cleared, with when and by whom; false when there was nothing to clear.
    pub(crate) fn clear(
        &mut self,
        name: &str,
        power: &str,
        by: Author,
        now: DateTime<Utc>,
    ) -> Result<bool, GameError> {
        let (tx, cur, v) = begin(&mut self.store, &mut self.variants, name)?;
        let power = v.power(Judge::major(v, power)?).name.clone();
        newer(tx.view(), cur.phase.id, &power, now)?;
        let Some(was) = tx
            .view()
            .latest_orders(cur.phase.id)?
            .into_iter()
            .find(|t| t.power == power)
        else {
            return Ok(false);
        };
        // The GM's orders stand in for the player's (a player away, a correction): only the GM
        // takes them back.
        if by == Author::Player && was.by == Author::Gm {
            return Err(GameError::ClearGm(power));
        }
        tx.add_orders(
            cur.phase.id,
            &OrderText {
                power,
                text: was.text,
                received: now,
                by,
                cleared: true,
                flawed: false,
            },
        )?;
        tx.commit()?;
        Ok(true)
    }

    /// What `power` owes in the current phase of a running game (none when it has none).
    pub(crate) fn owed(&mut self, game: &Game, power: &str) -> Result<Option<Owed>, GameError> {
        let Some(phase) = self.store.view().current_phase(game.id)? else {
            return Ok(None);
        };
        let v = variant(&mut self.variants, game)?;
        let Some(p) = v.power_by_name(power) else {
            return Ok(None);
        };
        let position = &phase.position;
        let retreats = position
            .dislodged
            .iter()
            .filter(|d| position.commands(p, d.force.power))
            .map(|d| {
                let to = turn::legal_retreats(v, position, d)
                    .iter()
                    .map(|&r| v.region_name(r))
                    .collect();
                format!(
                    "{}: may retreat to {}",
                    d.force.name(v, d.province),
                    render::list_or(to, "nowhere: it disbands")
                )
            })
            .collect();
        Ok(Some(Owed {
            phase: v.phase_name(position.phase),
            deadline: phase.deadline,
            owes: turn::owing(v, position).contains(&p),
            retreats,
        }))
    }

    /// A power's orders in force in the current phase (none when the game is over), as the
    /// acknowledgement gives them: `checked`, the acknowledgement of the orders just stored, or
    /// else the stored text checked now.
    pub(crate) fn order_set(
        &mut self,
        game: &Game,
        power: &str,
        checked: Option<Acknowledgement>,
    ) -> Result<Option<OrderSet>, GameError> {
        let view = self.store.view();
        // An ended game has no orders to give, though a draw leaves its last phase unplayed.
        if view.ending(game.id)?.is_some() {
            return Ok(None);
        }
        let Some(phase) = view.current_phase(game.id)? else {
            return Ok(None);
        };
        let text = view
            .latest_orders(phase.id)?
            .into_iter()
            .find(|t| t.power == power)
            .map(|t| t.text);
        let gm = view.gm_commands(phase.id)?;
        let v = variant(&mut self.variants, game)?;
        let name = v.phase_name(phase.position.phase);
        let Some(p) = v.power_by_name(power) else {
            return Ok(Some(OrderSet {
                phase: name,
                owes: false,
                orders: None,
            }));
        };
        let owes = turn::owing(v, &phase.position).contains(&p);
        let orders = match checked {
            Some(ack) => Some(ack.set()),
            None => text.map(|t| acknowledge(v, &phase.position, &gm, p, &t).set()),
        };
        Ok(Some(OrderSet {
            phase: name,
            owes,
            orders,
        }))
    }
}
