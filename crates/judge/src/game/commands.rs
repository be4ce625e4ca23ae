//! The GM's commands on a game under way: CONTROL of a minor, pause and resume, the
//! deadline, and its settings.

use super::{begin, period_for, variant, waiting, GameError, Judge};
use crate::clock;
use crate::notice;
use crate::settings::Setting;
use crate::store::{Game, GameState, View};
use chrono::{DateTime, Utc};
use napjudge_engine::variant::PowerKind;
use napjudge_engine::winter::GmCommand;

impl Judge {
    /// `game control`: the GM names a minor's controller (R7.8), carried out when the current
    /// phase is processed. The engine checks it now against the current position.
    pub fn control(
        &mut self,
        name: &str,
        minor: &str,
        major: &str,
        now: DateTime<Utc>,
    ) -> Result<String, GameError> {
        let (tx, cur, v) = begin(&mut self.store, &mut self.variants, name)?;
        let m = v
            .power_by_name(minor)
            .filter(|&p| v.power(p).kind == PowerKind::Minor)
            .ok_or_else(|| GameError::NotMinor(minor.to_string()))?;
        let command = format!("CONTROL {} {}", v.power(m).name, major);
        // Every earlier command of the phase first, then this one: the engine's own check.
        let mut position = cur.phase.position.clone();
        for c in tx
            .view()
            .gm_commands(cur.phase.id)?
            .iter()
            .chain([&command])
        {
            GmCommand::parse(v, c)?.apply(v, &mut position)?;
        }
        tx.add_gm_action(
            cur.game.id,
            Some(cur.phase.id),
            &command,
            Some(&command),
            now,
        )?;
        let by = v.power_by_name(major).map(|p| v.power(p).name.clone());
        let change = notice::Change::Control {
            minor: v.power(m).name.clone(),
            by,
        };
        notice::tell(&tx, v, &cur.game, &change, now)?;
        tx.commit()?;
        Ok(command)
    }

    /// Records a GM's shell command that changed the game (`napjudge game resume life`: its
    /// arguments, and what it read on its standard input: `game orders`' orders), after the
    /// call that did it, so that `game export` can write it as a step of the game's folder for
    /// `napjudge replay` to run again.
    pub fn record_shell(
        &mut self,
        name: &str,
        args: &[String],
        input: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<(), GameError> {
        let tx = self.store.begin()?;
        let game = Judge::game(tx.view(), name)?;
        tx.add_shell_step(game.id, args, input, now)?;
        tx.commit()?;
        Ok(())
    }

    /// `game pause`: the game's deadlines pass unheeded until it is resumed
    /// ([`Judge::resume`]); everyone is told.
    pub fn pause(&mut self, name: &str, now: DateTime<Utc>) -> Result<(), GameError> {
        let tx = self.store.begin()?;
        let mut game = Judge::pausable(tx.view(), name)?;
        if game.state == GameState::Paused {
            return Err(GameError::Paused(game.name));
        }
        tx.set_state(game.id, GameState::Paused)?;
        tx.add_gm_action(game.id, None, "paused the game", None, now)?;
        game.state = GameState::Paused;
        let v = variant(&mut self.variants, &game)?;
        notice::tell(&tx, v, &game, &notice::Change::Paused, now)?;
        tx.commit()?;
        Ok(())
    }

    /// `game resume`: a paused game runs again and everyone is told. A game whose deadline
    /// passed while paused gets a new one, a full period from now. The current phase's
    /// deadline.
    pub fn resume(
        &mut self,
        name: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<DateTime<Utc>>, GameError> {
        let tx = self.store.begin()?;
        let mut game = Judge::pausable(tx.view(), name)?;
        if game.state == GameState::Running {
            return Err(GameError::NotPaused(game.name));
        }
        let mut deadline = None;
        if let Some(phase) = tx.view().current_phase(game.id)? {
            deadline = phase.deadline;
            if phase.deadline.is_none_or(|d| d <= now) {
                let period = period_for(&game.periods, phase.position.phase.kind);
                let shown = variant(&mut self.variants, &game)?.phase_name(phase.position.phase);
                let d = clock::after(now, period.secs())?;
                let d = waiting::deadline_for(&tx, &game, &shown, d, now)?;
                tx.set_deadline(phase.id, Some(d))?;
                deadline = Some(d);
            }
        }
        tx.set_state(game.id, GameState::Running)?;
        tx.add_gm_action(game.id, None, "resumed the game", None, now)?;
        game.state = GameState::Running;
        let v = variant(&mut self.variants, &game)?;
        notice::tell(&tx, v, &game, &notice::Change::Resumed, now)?;
        tx.commit()?;
        Ok(deadline)
    }

    /// The game called `name` when it can be paused or resumed: started, and not over.
    fn pausable(view: View, name: &str) -> Result<Game, GameError> {
        let game = Judge::game(view, name)?;
        match game.state {
            GameState::Forming => Err(GameError::NotStarted(game.name)),
            GameState::Finished => {
                Judge::refuse_ended(view, &game)?;
                Err(GameError::Over(game.name))
            }
            _ => Ok(game),
        }
    }

    /// `game deadline` and the GM's `SET DEADLINE`: moves the current phase's deadline (not
    /// into the past), read in the game's zone unless `time` has its offset; everyone is told.
    /// The new deadline.
    pub fn set_deadline(
        &mut self,
        name: &str,
        time: &str,
        now: DateTime<Utc>,
    ) -> Result<DateTime<Utc>, GameError> {
        let (tx, cur, v) = begin(&mut self.store, &mut self.variants, name)?;
        let at = clock::parse_local(time, &cur.game.timezone)?;
        clock::check_deadline(at, now)?;
        tx.set_deadline(cur.phase.id, Some(at))?;
        tx.add_gm_action(
            cur.game.id,
            Some(cur.phase.id),
            &format!("deadline set to {}", at.to_rfc3339()),
            None,
            now,
        )?;
        let change = notice::Change::Deadline {
            from: cur.phase.deadline,
            to: at,
        };
        notice::tell(&tx, v, &cur.game, &change, now)?;
        tx.commit()?;
        Ok(at)
    }

    /// `game set NAME KEY VALUE` and the GM's `SET KEY VALUE`: the setting is stored and, in
    /// a game under way, everyone is told, in one transaction. The game as it now is.
    pub fn set(
        &mut self,
        name: &str,
        setting: &Setting,
        now: DateTime<Utc>,
    ) -> Result<Game, GameError> {
        let tx = self.store.begin()?;
        let mut game = Judge::game(tx.view(), name)?;
        Judge::refuse_ended(tx.view(), &game)?;
        setting.apply(&tx, &mut game)?;
        tx.add_gm_action(game.id, None, &format!("set {setting}"), None, now)?;
        if matches!(game.state, GameState::Running | GameState::Paused) {
            let v = variant(&mut self.variants, &game)?;
            notice::tell(
                &tx,
                v,
                &game,
                &notice::Change::Setting(setting.clone()),
                now,
            )?;
        }
        tx.commit()?;
        Ok(game)
    }
}
