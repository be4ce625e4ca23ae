//! Setting a game up: `game create` (with its name checked), `game assign` of its seats, and
//! `game start`.

use super::{hash_password_at, names, period_for, variant, waiting, GameError, Judge, Secret};
use crate::clock;
use crate::notice;
use crate::settings::Setting;
use crate::store::{Address, Game, GameState, PasswordFrom, Periods, PressRules, Role};
use chrono::{DateTime, Utc};
use napjudge_engine::position::Position;
use napjudge_engine::turn;
use napjudge_engine::variant::{PowerKind, RuleOption};
use std::collections::HashSet;

/// What `game create` is given.
#[derive(Clone, Debug)]
pub struct NewGame {
    /// The name.
    pub name: String,
    /// The variant (`napoleonic`).
    pub variant: String,
    /// The GM's address.
    pub gm: String,
    /// The time zone deadlines are shown in.
    pub timezone: String,
    /// The periods.
    pub periods: Periods,
    /// Wait for the deadline even when everyone has ordered.
    pub wait: bool,
    /// Rule switches, `NAME` (on) or `NAME=on|off` (`webdiplomacy`).
    pub options: Vec<String>,
    /// Result mails carry a picture of the board.
    pub pictures: bool,
    /// The press options (`game create`'s flags come as settings: [`Judge::create_with`]).
    pub press: PressRules,
}

/// The longest name a game may have.
pub(crate) const NAME_MAX: usize = 32;

/// Checks a game's name: 1 to `NAME_MAX` ASCII letters, digits, `-` or `_`, starting with a
/// letter or digit. The name stands in every SIGNON and subject line and names the files and
/// folders of a replay and an import, so nothing that could break a line, hide text (a bidi
/// override) or leave a folder (`..`, `/`) gets in.
pub fn check_name(name: &str) -> Result<(), GameError> {
    let fits = (1..=NAME_MAX).contains(&name.len())
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if fits {
        return Ok(());
    }
    let shown: String = name.chars().take(40).flat_map(char::escape_debug).collect();
    let cut = if name.chars().count() > 40 { "..." } else { "" };
    Err(GameError::Name(format!("{shown}{cut}")))
}

impl Judge {
    /// `game create`.
    pub fn create(&mut self, g: &NewGame, now: DateTime<Utc>) -> Result<Game, GameError> {
        self.create_with(g, &[], now)
    }

    /// `game create` with `settings` beyond [`NewGame`]'s (seat rules, timing, and anything
    /// its flags give as a [`Setting`]), stored by `Setting::apply` in the game's one
    /// transaction.
    pub fn create_with(
        &mut self,
        g: &NewGame,
        settings: &[Setting],
        now: DateTime<Utc>,
    ) -> Result<Game, GameError> {
        check_name(&g.name)?;
        clock::parse_zone(&g.timezone)?;
        let gm = Address::new(&g.gm);
        if !gm.is_valid() {
            return Err(GameError::Address(g.gm.clone()));
        }
        for (what, period) in [
            ("movement", g.periods.movement),
            ("retreat", g.periods.retreat),
            ("winter", g.periods.winter),
        ] {
            if period.secs() == 0 {
                return Err(GameError::ZeroPeriod(what));
            }
        }
        let mut game = Game {
            id: 0,
            name: g.name.clone(),
            variant: g.variant.clone(),
            gm,
            timezone: g.timezone.clone(),
            periods: g.periods,
            wait: g.wait,
            state: GameState::Forming,
            pictures: g.pictures,
            press: g.press,
            options: g
                .options
                .iter()
                .map(|o| RuleOption::parse(o).map(|o| o.to_string()))
                .collect::<Result<_, _>>()
                .map_err(|e| GameError::Option(e.to_string()))?,
        };
        // The variant loads and every option names a switch, before anything is stored.
        variant(&mut self.variants, &game)?;
        let tx = self.store.begin()?;
        // A SIGNON finds a game by its name in any case: no two may differ only by case.
        if let Some(other) = tx.view().game_any_case(&g.name)? {
            return Err(GameError::GameExists(other.name));
        }
        game.id = tx.insert_game(&game, now)?;
        tx.add_gm_action(
            game.id,
            None,
            &format!("created the game ({})", g.variant),
            None,
            now,
        )?;
        for setting in settings {
            setting.apply(&tx, &mut game)?;
            tx.add_gm_action(game.id, None, &format!("set {setting}"), None, now)?;
        }
        tx.commit()?;
        Ok(game)
    }

    /// `game assign`: sets a power's player (`GM`: the password the GM signs on with by mail)
    /// and mails them their seat: the judge's address, a SIGNON, the phase once under way and,
    /// with no password given, a generated one. A power that changes hands in a game under way
    /// is noticed to everyone and the old player. Whether a password was mailed.
    pub fn assign(
        &mut self,
        name: &str,
        power: &str,
        address: &str,
        password: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<bool, GameError> {
        let address = Address::new(address);
        if !address.is_valid() {
            return Err(GameError::Address(address.to_string()));
        }
        let game = Judge::game(self.store.view(), name)?;
        let v = variant(&mut self.variants, &game)?;
        let role = match Role::named(power) {
            Role::Gm => Role::Gm,
            Role::Power(p) => Role::Power(v.power(Judge::major(v, &p)?).name.clone()),
        };
        let (password, generated) = match password {
            Some(pw) => (pw.to_string(), false),
            None => (
                self.drawn
                    .draw(Secret::Password, role.name(), &game.name, now)?,
                true,
            ),
        };
        // Hash outside the transaction: it takes a while on purpose.
        let hash = hash_password_at(&password, self.password_cost)?;
        let tx = self.store.begin()?;
        let old = tx.view().player_address(game.id, &role)?;
        let from = match generated {
            true => PasswordFrom::Mailed,
            false => PasswordFrom::Gm,
        };
        tx.set_player(game.id, &role, &address, &hash, from, now)?;
        tx.add_gm_action(
            game.id,
            None,
            &format!("assigned {role} to {address}"),
            None,
            now,
        )?;
        let shown = generated.then_some(password.as_str());
        notice::seat(&tx, v, &game, &self.address, &role, &address, shown, now)?;
        // A power that changes hands in a game under way: everyone is told, the old player too.
        let under_way = matches!(game.state, GameState::Running | GameState::Paused);
        if let (true, Some(old), Role::Power(power)) = (under_way, old, &role) {
            if old != address {
                let change = notice::Change::Replaced {
                    power: power.clone(),
                    old: Some(old),
                    new: address.clone(),
                };
                notice::tell(&tx, v, &game, &change, now)?;
            }
        }
        tx.commit()?;
        Ok(generated)
    }

    /// `game start`: the variant's first phase, with its deadline; each player and the GM are
    /// mailed the start of the game.
    pub fn start(
        &mut self,
        name: &str,
        now: DateTime<Utc>,
    ) -> Result<(String, DateTime<Utc>), GameError> {
        let tx = self.store.begin()?;
        let game = Judge::game(tx.view(), name)?;
        if game.state != GameState::Forming {
            return Err(GameError::Started(game.name));
        }
        let v = variant(&mut self.variants, &game)?;
        let players = tx.view().players(game.id)?;
        let missing: Vec<String> = v
            .power_ids()
            .filter(|&p| v.power(p).kind == PowerKind::Major)
            .map(|p| v.power(p).name.clone())
            .filter(|n| !players.iter().any(|pl| pl.role.power() == Some(n)))
            .collect();
        if !missing.is_empty() {
            return Err(GameError::Unassigned {
                game: game.name,
                powers: missing.join(", "),
            });
        }
        let position = Position::initial(v);
        let deadline = clock::after(now, period_for(&game.periods, position.phase.kind).secs())?;
        let deadline =
            waiting::deadline_for(&tx, &game, &v.phase_name(position.phase), deadline, now)?;
        let owe = names(v, &turn::owing(v, &position));
        tx.insert_phase(game.id, &position, &owe, Some(deadline), now)?;
        tx.set_state(game.id, GameState::Running)?;
        tx.add_gm_action(game.id, None, "started the game", None, now)?;
        // Each player and the GM get their seat's mail: the phase, the deadline, how to play.
        let running = Game {
            state: GameState::Running,
            ..game.clone()
        };
        let mut told = HashSet::new();
        for p in &players {
            if told.insert((p.role.clone(), p.address.clone())) {
                notice::seat(
                    &tx,
                    v,
                    &running,
                    &self.address,
                    &p.role,
                    &p.address,
                    None,
                    now,
                )?;
            }
        }
        if told.insert((Role::Gm, game.gm.clone())) {
            notice::seat(
                &tx,
                v,
                &running,
                &self.address,
                &Role::Gm,
                &game.gm,
                None,
                now,
            )?;
        }
        tx.commit()?;
        Ok((v.phase_name(position.phase), deadline))
    }
}
