//! What the GM and players read of a game: `game show` and LIST, the map of a phase, and
//! `game list`.

use super::{describe, join_or, names, seats, variant, waiting, GameError, Judge};
use crate::clock;
use crate::render;
use crate::store::{Game, GameState, PhaseRow, Role};
use napjudge_engine::advice;
use napjudge_engine::turn;
use napjudge_picture as picture;

impl Judge {
    /// `game show` (`viewer` none) and a mail's LIST (`viewer` the role signed on): the phase,
    /// its deadline, who has ordered, centres and ledgers. A player's LIST shows the player's
    /// own address and the GM's, not the other players' (a stranger who learns one password
    /// should not learn every address to forge).
    pub fn show(&mut self, name: &str, viewer: Option<&Role>) -> Result<String, GameError> {
        let c = self.store.view();
        let game = Judge::game(c, name)?;
        let v = variant(&mut self.variants, &game)?;
        let c = self.store.view();
        let mut out = format!(
            "Game {} ({}), {}; GM {}\n",
            game.name, game.variant, game.state, game.gm,
        );
        out.push_str(&crate::settings::shown(c, &game)?);
        if !game.options.is_empty() {
            out.push_str(&format!("Options: {}\n", game.options.join(", ")));
        }
        out.push_str("Players:\n");
        for p in c.players(game.id)? {
            let shown = match viewer {
                Some(v @ Role::Power(_)) if *v != p.role && p.role != Role::Gm => {
                    if game.press.anonymous {
                        "(anonymous)"
                    } else {
                        "(address private)"
                    }
                }
                _ => p.address.as_str(),
            };
            out.push_str(&format!("  {:<10} {shown}\n", p.role));
        }
        out.push_str(&seats::shown(c, v, &game, viewer)?);
        out.push_str(&waiting::show_lines(c, &game, viewer)?);
        let phases = c.phases(game.id)?;
        let Some(cur) = phases
            .iter()
            .rev()
            .find(|p| game.state != GameState::Finished && !p.superseded && p.report.is_none())
        else {
            if let Some(e) = c.ending(game.id)? {
                out.push_str(&format!(
                    "Ended {}, in {}.\n",
                    describe(&e, &game.timezone),
                    e.phase
                ));
                return Ok(out);
            }
            let last = phases.iter().rev().find(|p| !p.superseded);
            match last {
                Some(p) => {
                    out.push_str(&format!("Over after {}.\n", v.phase_name(p.position.phase)))
                }
                None => out.push_str("Not started.\n"),
            }
            return Ok(out);
        };
        let pos = &cur.position;
        out.push_str(&format!("Phase: {}\n", v.phase_name(pos.phase)));
        if let Some(d) = cur.deadline {
            // A stored deadline at the calendar's end shows without its grace, not a panic.
            let grace = clock::after(d, game.periods.grace.secs()).map_or_else(
                |_| "past the end of the calendar".to_string(),
                |g| clock::show_in(g, &game.timezone),
            );
            out.push_str(&format!(
                "Deadline: {} (grace until {grace})\n",
                clock::show_in(d, &game.timezone),
            ));
        }
        let texts = c.latest_orders(cur.id)?;
        let owe = names(v, &turn::owing(v, pos));
        let ordered: Vec<String> = owe
            .iter()
            .filter(|p| texts.iter().any(|t| &&t.power == p))
            .cloned()
            .collect();
        let waiting: Vec<String> = owe
            .iter()
            .filter(|p| !ordered.contains(p))
            .cloned()
            .collect();
        out.push_str(&format!("Ordered: {}\n", join_or(&ordered, "nobody")));
        out.push_str(&format!("Waiting for: {}\n", join_or(&waiting, "nobody")));
        out.push_str("Centres:\n");
        for p in v.power_ids() {
            let n = pos.centre_count(v, p);
            if n > 0 {
                out.push_str(&format!("  {:<10} {n}\n", v.power(p).name));
            }
        }
        let with_items: Vec<(String, String)> = v
            .power_ids()
            .map(|p| {
                // Last Winter's figures stay in the ledgers until this Winter's: say whose they
                // are, so nobody reads them as this phase's budget.
                let (winter, standing): (Vec<_>, Vec<_>) = pos
                    .ledgers
                    .items(v, p)
                    .into_iter()
                    .partition(|i| i.of_one_winter());
                let mut items: Vec<String> = standing.iter().map(|i| i.text(v)).collect();
                if !winter.is_empty() {
                    let figures: Vec<String> = winter.iter().map(|i| i.text(v)).collect();
                    items.push(format!("last Winter: {}", figures.join(", ")));
                }
                (v.power(p).name.clone(), items.join("; "))
            })
            .filter(|(_, i)| !i.is_empty())
            .collect();
        if v.rules.supply_points || v.rules.influence {
            out.push_str("Ledgers:\n");
            for (p, items) in with_items {
                out.push_str(&format!("  {p}: {items}\n"));
            }
        }
        // A Winter's budgets with the orders given so far (as the acknowledgement counted
        // them): a player's own, else every major's that owes orders.
        let own = match viewer {
            Some(Role::Power(p)) => v.power_by_name(p),
            _ => None,
        };
        let budgets: Vec<String> = turn::owing(v, pos)
            .into_iter()
            .filter(|&p| own.is_none_or(|o| o == p))
            .filter_map(|p| {
                let name = &v.power(p).name;
                let given = texts
                    .iter()
                    .find(|t| &t.power == name)
                    .map_or("", |t| &t.text);
                advice::check(v, pos, &[], p, given).budget.map(|b| {
                    let figures = render::advice::budget_figures(v, &b);
                    format!("  {name:<10} {}\n", figures.join("\n             "))
                })
            })
            .collect();
        if !budgets.is_empty() {
            out.push_str("Budgets with the orders given so far:\n");
            out.extend(budgets);
        }
        out.push_str("History:\n");
        for p in &phases {
            let state = match (&p.report, p.superseded) {
                (_, true) => "rolled back",
                (Some(_), false) => "processed",
                (None, false) => "current",
            };
            out.push_str(&format!(
                "  {:>3} {:<28} {state}\n",
                p.seq,
                v.phase_name(p.position.phase)
            ));
        }
        Ok(out)
    }

    /// `map GAME [PHASE]`: a picture of the game's current position, or with `phase` (a played
    /// phase, the latest of that name not rolled back) of the position after it with its
    /// orders; a game that is over is drawn after its last phase. On `board` when given, else
    /// on the variant's built-in shapes.
    pub fn picture(
        &mut self,
        name: &str,
        phase: Option<&str>,
        board: Option<&picture::Board>,
        format: picture::Format,
    ) -> Result<Vec<u8>, GameError> {
        let c = self.store.view();
        let game = Judge::game(c, name)?;
        let row = self.phase_row(&game, phase)?;
        let v = variant(&mut self.variants, &game)?;
        let owned;
        let board = match board {
            Some(b) => b,
            None => {
                owned = picture::board_for(v)?;
                &owned
            }
        };
        let drawn = match &row.report {
            Some(r) => picture::picture(v, board, &r.next, Some(r), picture::View::After, format),
            None => picture::picture(v, board, &row.position, None, picture::View::Before, format),
        };
        Ok(drawn?)
    }

    /// The phase of `game` a picture shows: with `phase` (as the game names it) the latest of
    /// that name not rolled back, else the current one (the last, when the game is over).
    pub(crate) fn phase_row(
        &mut self,
        game: &Game,
        phase: Option<&str>,
    ) -> Result<PhaseRow, GameError> {
        let v = variant(&mut self.variants, game)?;
        let live: Vec<PhaseRow> = self
            .store
            .view()
            .phases(game.id)?
            .into_iter()
            .filter(|p| !p.superseded)
            .collect();
        let unknown = || GameError::UnknownPhase {
            game: game.name.clone(),
            phase: phase.unwrap_or_default().to_string(),
            phases: live
                .iter()
                .map(|p| format!("'{}'", v.phase_name(p.position.phase)))
                .collect::<Vec<_>>()
                .join(", "),
        };
        let row = match phase {
            Some(text) => {
                let wanted = v.parse_phase(text).ok_or_else(unknown)?;
                live.iter()
                    .rev()
                    .find(|p| p.position.phase == wanted)
                    .ok_or_else(unknown)?
            }
            None => live
                .last()
                .ok_or_else(|| GameError::NotStarted(game.name.clone()))?,
        };
        Ok(row.clone())
    }

    /// `game list`: each game with its state, phase and deadline.
    pub fn list(&mut self) -> Result<Vec<String>, GameError> {
        let games = self.store.view().games()?;
        let mut out = Vec::new();
        for g in games {
            let v = variant(&mut self.variants, &g)?;
            let phase = self.store.view().current_phase(g.id)?;
            let (phase, deadline) = match phase {
                Some(p) => (
                    v.phase_name(p.position.phase),
                    // A finished game's last phase keeps its deadline in the store; none runs.
                    p.deadline
                        .filter(|_| g.state != GameState::Finished)
                        .map(|d| clock::show_in(d, &g.timezone))
                        .unwrap_or_default(),
                ),
                None => ("-".to_string(), String::new()),
            };
            out.push(format!(
                "{}\t{}\t{}\t{phase}\t{deadline}",
                g.name, g.variant, g.state
            ));
        }
        Ok(out)
    }
}
