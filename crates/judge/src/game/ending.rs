//! How a game ends: secret draw votes, concession, victory (R7.10), the GM's end; the final
//! mail to everyone; an ended game refusing every change; `game delete` of a game that never
//! started.
//!
//! **Stored shape.** An ended game keeps the state `finished` (the word victory always wrote),
//! and how it ended is a row of `endings` beside it (kind, powers, the GM's reason, the phase,
//! when). A finished game of an older napjudge has no row: it ended in a victory.

use super::{board_png, names, variant, GameError, Judge};
use crate::clock;
use crate::notice;
use crate::store::{EndKind, Ending, Game, GameState, PhaseRow, Tx, View};
use chrono::{DateTime, Utc};
use napjudge_engine::position::Position;
use napjudge_engine::variant::{PhaseKind, PowerId, PowerKind, Variant};
use napjudge_picture as picture;

/// A player's vote: SET DRAW / SET NODRAW, SET CONCEDE POWER / SET CONCEDE NONE.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Vote {
    /// For a draw (true) or no longer (false).
    Draw(bool),
    /// Concedes to the power named (as written), or withdraws a concession (none).
    Concede(Option<String>),
}

/// How the GM ends a game (`game end`, `END`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GmEnd {
    /// A draw between these powers (as written).
    pub draw: Vec<String>,
    /// The winner (as written).
    pub winner: Option<String>,
    /// Why, in the GM's words.
    pub reason: String,
}

/// "and"-joined names: `A`, `A and B`, `A, B and C`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// How a game ended, in words: `on Friday ... in a draw between England and France`.
pub fn describe(e: &Ending, zone: &str) -> String {
    let when = clock::show_in(e.at, zone);
    let how = match e.kind {
        EndKind::Victory => format!("in a victory for {}", and_list(&e.powers)),
        EndKind::Draw => format!("in a draw between {}", and_list(&e.powers)),
        EndKind::Concession => format!("conceded to {}", and_list(&e.powers)),
        EndKind::Gm => "by the GM".to_string(),
    };
    let why = if e.reason.is_empty() {
        String::new()
    } else {
        format!(" ({})", e.reason)
    };
    format!("on {when} {how}{why}")
}

/// The majors with a centre or a unit left in `position`.
fn surviving(v: &Variant, position: &Position) -> Vec<PowerId> {
    v.power_ids()
        .filter(|&p| v.power(p).kind == PowerKind::Major)
        .filter(|&p| {
            position.centre_count(v, p) > 0 || position.forces().any(|(_, f)| f.power == p)
        })
        .collect()
}

/// The game's board as it stands: after its last phase played, or its current phase's.
fn board_now(live: &[&PhaseRow]) -> Option<Position> {
    live.last().map(|p| match &p.report {
        Some(r) => r.next.clone(),
        None => p.position.clone(),
    })
}

/// The phase a game ends in: its current phase, or the last one played.
fn phase_now(v: &Variant, live: &[&PhaseRow]) -> String {
    live.last()
        .map(|p| v.phase_name(p.position.phase))
        .unwrap_or_default()
}

impl Judge {
    /// Refuses a change to an ended game, saying how it ended.
    pub(crate) fn refuse_ended(view: View<'_>, game: &Game) -> Result<(), GameError> {
        if game.state != GameState::Finished {
            return Ok(());
        }
        let how = match view.ending(game.id)? {
            Some(e) => describe(&e, &game.timezone),
            None => "in a victory".to_string(),
        };
        Err(GameError::Ended {
            game: game.name.clone(),
            how,
        })
    }

    /// How `game` ended, if it did (a finished game of an older napjudge: none recorded).
    pub fn ending(&self, game: &Game) -> Result<Option<Ending>, GameError> {
        Ok(self.store.view().ending(game.id)?)
    }

    /// SET DRAW, SET NODRAW, SET CONCEDE: records `power`'s vote, secretly, and ends the game
    /// when the votes are all in: a draw when every surviving major votes draw, a concession
    /// to X when every other surviving major concedes to X. The ending, when it came.
    pub fn vote(
        &mut self,
        name: &str,
        power: &str,
        vote: &Vote,
        now: DateTime<Utc>,
    ) -> Result<Option<Ending>, GameError> {
        let tx = self.store.begin()?;
        let game = Judge::game(tx.view(), name)?;
        if game.state == GameState::Forming {
            return Err(GameError::NotStarted(game.name));
        }
        Judge::refuse_ended(tx.view(), &game)?;
        let v = variant(&mut self.variants, &game)?;
        let phases = tx.view().phases(game.id)?;
        let live: Vec<&PhaseRow> = phases.iter().filter(|p| !p.superseded).collect();
        let Some(position) = board_now(&live) else {
            return Err(GameError::NotStarted(game.name));
        };
        let alive = surviving(v, &position);
        let me = Judge::major(v, power)?;
        if !alive.contains(&me) {
            return Err(GameError::Eliminated(v.power(me).name.clone()));
        }
        let mut choice = tx.view().choice(game.id, &v.power(me).name)?;
        match vote {
            Vote::Draw(on) => choice.draw = *on,
            Vote::Concede(None) => choice.concede = None,
            Vote::Concede(Some(to)) => {
                let to = Judge::major(v, to)?;
                if to == me || !alive.contains(&to) {
                    return Err(GameError::ConcedeTo(v.power(to).name.clone()));
                }
                choice.concede = Some(v.power(to).name.clone());
            }
        }
        tx.set_choices(game.id, &v.power(me).name, &choice)?;
        let choices = tx.view().choices(game.id)?;
        let of = |p: PowerId| {
            choices
                .iter()
                .find(|(n, _)| *n == v.power(p).name)
                .map(|(_, c)| c.clone())
                .unwrap_or_default()
        };
        let all_draw = alive.iter().all(|&p| of(p).draw);
        let conceded = alive.iter().copied().find(|&x| {
            alive.len() > 1
                && alive
                    .iter()
                    .filter(|&&p| p != x)
                    .all(|&p| of(p).concede.as_deref() == Some(v.power(x).name.as_str()))
        });
        let ending = match (all_draw, conceded) {
            (true, _) => Some((EndKind::Draw, names(v, &alive))),
            (false, Some(x)) => Some((EndKind::Concession, vec![v.power(x).name.clone()])),
            (false, None) => None,
        };
        let Some((kind, powers)) = ending else {
            tx.commit()?;
            return Ok(None);
        };
        let e = Ending {
            kind,
            powers,
            reason: String::new(),
            phase: phase_now(v, &live),
            at: now,
        };
        finish(&tx, v, &game, &e, now)?;
        tx.commit()?;
        Ok(Some(e))
    }

    /// `game end NAME [--draw P1,P2|--winner P] [--reason TEXT]` and the GM's `END`: ends a
    /// started game now, with a draw, a winner, or only the GM's reason.
    pub fn end(
        &mut self,
        name: &str,
        how: &GmEnd,
        now: DateTime<Utc>,
    ) -> Result<Ending, GameError> {
        let tx = self.store.begin()?;
        let game = Judge::game(tx.view(), name)?;
        if game.state == GameState::Forming {
            return Err(GameError::EndForming(game.name));
        }
        Judge::refuse_ended(tx.view(), &game)?;
        let v = variant(&mut self.variants, &game)?;
        let majors = |ps: &[String]| -> Result<Vec<String>, GameError> {
            let mut out: Vec<String> = Vec::new();
            for p in ps {
                let n = v.power(Judge::major(v, p)?).name.clone();
                if !out.contains(&n) {
                    out.push(n);
                }
            }
            Ok(out)
        };
        let (kind, powers) = match (&how.draw[..], &how.winner) {
            ([_, ..], Some(_)) => return Err(GameError::EndHow),
            ([_], None) => return Err(GameError::EndHow),
            ([], Some(w)) => (EndKind::Victory, majors(std::slice::from_ref(w))?),
            ([], None) if how.reason.trim().is_empty() => return Err(GameError::EndHow),
            ([], None) => (EndKind::Gm, Vec::new()),
            (draw, None) => (EndKind::Draw, majors(draw)?),
        };
        if kind == EndKind::Draw && powers.len() < 2 {
            return Err(GameError::EndHow);
        }
        let phases = tx.view().phases(game.id)?;
        let live: Vec<&PhaseRow> = phases.iter().filter(|p| !p.superseded).collect();
        let e = Ending {
            kind,
            powers,
            reason: how.reason.trim().to_string(),
            phase: phase_now(v, &live),
            at: now,
        };
        finish(&tx, v, &game, &e, now)?;
        tx.add_gm_action(
            game.id,
            None,
            &format!("ended the game {}", describe(&e, "UTC")),
            None,
            now,
        )?;
        tx.commit()?;
        Ok(e)
    }

    /// `game delete NAME`: removes a game that never started. A started game is kept (its
    /// record is the players'): the GM ends it instead.
    pub fn delete(&mut self, name: &str) -> Result<(), GameError> {
        let tx = self.store.begin()?;
        let game = Judge::game(tx.view(), name)?;
        if game.state != GameState::Forming || !tx.delete_forming_game(game.id)? {
            return Err(GameError::DeleteStarted(game.name));
        }
        tx.commit()?;
        Ok(())
    }
}

/// A victory (R7.10) found by processing a phase: the game ends with the final mail, after
/// the phase's results. Inside the phase's transaction.
pub(crate) fn victory(
    tx: &Tx<'_>,
    v: &Variant,
    game: &Game,
    winners: &[PowerId],
    phase: &str,
    now: DateTime<Utc>,
) -> Result<usize, GameError> {
    let e = Ending {
        kind: EndKind::Victory,
        powers: names(v, winners),
        reason: String::new(),
        phase: phase.to_string(),
        at: now,
    };
    finish(tx, v, game, &e, now)
}

/// Ends the game in `tx`: the state, the ending, the votes forgotten, and the final mail to
/// everyone, with the picture of the last phase played when the game sends pictures. How many
/// mails were queued.
fn finish(
    tx: &Tx<'_>,
    v: &Variant,
    game: &Game,
    e: &Ending,
    now: DateTime<Utc>,
) -> Result<usize, GameError> {
    tx.set_state(game.id, GameState::Finished)?;
    tx.set_ending(game.id, e)?;
    tx.clear_votes(game.id)?;
    let phases = tx.view().phases(game.id)?;
    let live: Vec<&PhaseRow> = phases.iter().filter(|p| !p.superseded).collect();
    let body = final_body(v, game, e, &live);
    let subject = format!("{}: the game has ended", game.name);
    let n = notice::broadcast(tx, game, &notice::Broadcast::notice(&subject, &body), now)?;
    if let (true, Some(last)) = (game.pictures, live.last()) {
        // A phase played has its picture (stored when it was processed); a game that ends
        // between phases gets one of its board as it stands, kept with its last phase.
        if last.report.is_none() {
            if let Some(png) = board_png(v, game, &last.position, None, picture::View::Before) {
                tx.attach_picture(last.id, &png)?;
            }
        }
        tx.give_picture_to_last(game.id, n, last.id)?;
    }
    Ok(n)
}

/// The final mail: the result, the final board (each major's centres and units) and each
/// major's centres year by year.
fn final_body(v: &Variant, game: &Game, e: &Ending, live: &[&PhaseRow]) -> String {
    let mut out = format!(
        "Game '{}' has ended {}, in {}.\n",
        game.name,
        describe(e, &game.timezone),
        e.phase
    );
    let majors: Vec<PowerId> = v
        .power_ids()
        .filter(|&p| v.power(p).kind == PowerKind::Major)
        .collect();
    if let Some(board) = board_now(live) {
        out.push_str("\nThe final board:\n");
        for &p in &majors {
            let mut units: Vec<String> = board
                .forces()
                .filter(|(_, f)| f.power == p)
                .map(|(at, f)| f.name(v, at))
                .collect();
            units.sort();
            let centres = board.centre_count(v, p);
            out.push_str(&format!(
                "  {:<10} {centres:>2} {}; {}\n",
                v.power(p).name,
                crate::render::noun(centres as i64, "centre", "centres"),
                if units.is_empty() {
                    "no units".to_string()
                } else {
                    units.join(", ")
                }
            ));
        }
    }
    // Columns: the start, after each Winter (its year), and the end.
    let mut columns: Vec<(String, &Position)> = Vec::new();
    if let Some(first) = live.first() {
        columns.push(("start".into(), &first.position));
    }
    for p in live {
        if let (Some(r), PhaseKind::Adjustment | PhaseKind::Bids) =
            (&p.report, p.position.phase.kind)
        {
            columns.push((p.position.phase.year.to_string(), &r.next));
        }
    }
    let last = live.last().map(|p| match &p.report {
        Some(r) => &r.next,
        None => &p.position,
    });
    if let Some(last) = last {
        columns.push(("end".into(), last));
    }
    out.push_str("\nCentres year by year (at the start, after each Winter, at the end):\n");
    out.push_str(&format!("  {:<10}", ""));
    for (label, _) in &columns {
        out.push_str(&format!(" {label:>5}"));
    }
    out.push('\n');
    for &p in &majors {
        out.push_str(&format!("  {:<10}", v.power(p).name));
        for (_, pos) in &columns {
            out.push_str(&format!(" {:>5}", pos.centre_count(v, p)));
        }
        out.push('\n');
    }
    out.push_str(
        "\nThe game takes no more orders. Its record stays: LIST, HISTORY and SUMMARY still \
         answer by mail.\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_joined_with_and() {
        let s = |v: &[&str]| and_list(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(s(&["France"]), "France");
        assert_eq!(s(&["England", "France"]), "England and France");
        assert_eq!(s(&["A", "B", "C"]), "A, B and C");
    }
}
