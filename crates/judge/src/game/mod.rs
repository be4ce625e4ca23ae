//! The judge's service: the GM's commands and the clock's `tick`, each one transaction on the
//! [`Store`]. The engine is reached only through [`turn`](napjudge_engine::turn): `check` for
//! orders, `play` for a phase, `owing` for who owes orders. This file holds the [`Judge`] and
//! what its calls share; each concern's calls are in a file of their own beside it.

use crate::clock::{self, Period};
use crate::outbox;
use crate::store::{Game, GameState, Periods, PhaseRow, Store, Tx, View};
use chrono::{DateTime, Utc};
use napjudge_engine::position::Position;
use napjudge_engine::turn::PhaseReport;
use napjudge_engine::variant::{self, LoadError, PhaseKind, PowerId, PowerKind, Variant};
use napjudge_picture as picture;
use std::collections::HashMap;

mod commands;
mod create;
mod ending;
mod error;
mod inbox;
mod orders;
mod password;
mod press;
mod process;
mod seats;
mod show;
mod signon;
mod tick;
mod waiting;

pub use create::{check_name, NewGame};
pub use ending::{describe, GmEnd, Vote};
pub use error::GameError;
pub(crate) use inbox::Reply;
pub(crate) use orders::OrderSet;
pub use orders::{Acknowledgement, OrderCheck, OrdersTaken};

pub(crate) use password::{hash_password, hash_password_at};
pub use password::{public_secret, verify_password, Drawn, PasswordCost, Secret, OBSERVER};
pub use process::Processed;
pub(crate) use seats::CONFIRM_WITHIN;
pub use seats::{IssuedCode, SeatError};
pub use signon::{Guesser, SignonRefusal};
pub(crate) use signon::{PhasePassed, Signed, Stale, THROTTLE_WINDOW};
pub use signon::{MIN_PASSWORD, OTHERS_LIMIT, OWNER_LIMIT, SENDER_LIMIT};
pub use tick::{TickEvent, TickReport};
pub(crate) use waiting::{read_absence, AbsenceSet, Outlook};

/// The judge's service: every change to a game goes through one of its calls, each one
/// transaction of the store at the time given (`now`): the clock is the caller's.
pub struct Judge {
    store: Store,
    password_cost: PasswordCost,
    drawn: Drawn,
    variants: HashMap<String, Variant>,
    /// The judge's own address, which the start and password mails tell players to write to.
    address: String,
    /// The web archive's address (`[site] url`): results mails link to their phase's page.
    site: Option<String>,
}

fn period_for(p: &Periods, kind: PhaseKind) -> Period {
    match kind {
        PhaseKind::Movement | PhaseKind::SecondMovement => p.movement,
        PhaseKind::Retreat | PhaseKind::SecondRetreat => p.retreat,
        PhaseKind::Adjustment | PhaseKind::Bids => p.winter,
    }
}

fn names(v: &Variant, powers: &[PowerId]) -> Vec<String> {
    powers.iter().map(|&p| v.power(p).name.clone()).collect()
}

fn join_or(items: &[String], empty: &str) -> String {
    if items.is_empty() {
        empty.to_string()
    } else {
        items.join(", ")
    }
}

/// The write transaction a command on game `name` runs in, with the game's current phase and its
/// board.
fn begin<'a>(
    store: &'a mut Store,
    cache: &'a mut HashMap<String, Variant>,
    name: &str,
) -> Result<(Tx<'a>, Current, &'a Variant), GameError> {
    let tx = store.begin()?;
    let cur = Judge::current(tx.view(), name)?;
    let v = variant(cache, &cur.game)?;
    Ok((tx, cur, v))
}

/// The game's board with the game's options applied: the one place a game's variant comes from
/// (loaded once per judge for each variant and set of options).
fn variant<'a>(
    cache: &'a mut HashMap<String, Variant>,
    game: &Game,
) -> Result<&'a Variant, GameError> {
    let key = format!("{} {}", game.variant, game.options.join(" "));
    if !cache.contains_key(&key) {
        cache.insert(key.clone(), board(game)?);
    }
    cache
        .get(&key)
        .ok_or_else(|| GameError::Variant(LoadError::UnknownVariant(game.variant.clone())))
}

/// The game's board with the game's options applied, loaded afresh (for readers of the store,
/// such as the export and the web archive, that hold no [`Judge`]).
pub fn board(game: &Game) -> Result<Variant, GameError> {
    variant::load_named(&game.variant)?
        .with_options(&game.options)
        .map_err(|e| GameError::Option(e.to_string()))
}

/// The PNG of `position` on the variant's built-in board that a mail of `game` carries, or none:
/// the mail then goes without a picture rather than not at all. A variant without shapes (one of
/// one's own) is expected to have none; any other failure is a fault to look into, so it is
/// logged.
fn board_png(
    v: &Variant,
    game: &Game,
    position: &Position,
    report: Option<&PhaseReport>,
    view: picture::View,
) -> Option<Vec<u8>> {
    let drawn = picture::board_for(v).and_then(|board| {
        picture::picture(v, &board, position, report, view, picture::Format::Png)
    });
    match drawn {
        Ok(png) => Some(png),
        Err(picture::PictureError::NoShapes(_)) => None,
        Err(e) => {
            tracing::warn!(game = %game.name, "the mail goes without its picture: {e}");
            None
        }
    }
}

/// Everything about a game's current phase the commands need.
struct Current {
    game: Game,
    phase: PhaseRow,
}

impl Judge {
    /// A judge over `store`, hashing the passwords it sets at full cost.
    pub fn new(store: Store) -> Judge {
        Judge {
            store,
            password_cost: PasswordCost::Full,
            drawn: Drawn::Random,
            variants: HashMap::new(),
            address: crate::config::UNSET_ADDRESS.to_string(),
            site: None,
        }
    }

    /// The same judge, telling players to mail `address` (`[judge] address` of
    /// napjudge.toml).
    pub fn with_address(mut self, address: &str) -> Judge {
        self.address = address.to_string();
        self
    }

    /// The same judge, its results mails linking to their phase's page under `url` (`[site]
    /// url`, where the archive `tick` keeps is served).
    pub fn with_site(mut self, url: Option<String>) -> Judge {
        self.site = url.filter(|u| !u.trim().is_empty());
        self
    }

    /// The same judge, hashing the passwords `assign` sets at `cost` (a replay's are light).
    pub fn with_password_cost(mut self, cost: PasswordCost) -> Judge {
        self.password_cost = cost;
        self
    }

    /// The same judge, drawing passwords and codes as `drawn` says (a replay's are public).
    pub fn with_drawn(mut self, drawn: Drawn) -> Judge {
        self.drawn = drawn;
        self
    }

    /// Reads of the store (every write is a call of the service).
    pub fn view(&self) -> View<'_> {
        self.store.view()
    }

    /// The game called `name`, capitals aside, as everywhere a game is named.
    fn game(c: View, name: &str) -> Result<Game, GameError> {
        c.game_any_case(name)?
            .ok_or_else(|| GameError::UnknownGame(name.to_string()))
    }

    fn current(c: View, name: &str) -> Result<Current, GameError> {
        let game = Judge::game(c, name)?;
        let phase = match game.state {
            GameState::Forming => return Err(GameError::NotStarted(game.name)),
            GameState::Finished => {
                Judge::refuse_ended(c, &game)?;
                None
            }
            _ => c.current_phase(game.id)?,
        };
        match phase {
            Some(phase) => Ok(Current { game, phase }),
            None => Err(GameError::Over(game.name)),
        }
    }

    fn major(v: &Variant, name: &str) -> Result<PowerId, GameError> {
        v.power_by_name(name)
            .filter(|&p| v.power(p).kind == PowerKind::Major)
            .ok_or_else(|| GameError::UnknownPower {
                power: name.to_string(),
                variant: v.name.clone(),
                majors: v
                    .power_ids()
                    .filter(|&p| v.power(p).kind == PowerKind::Major)
                    .map(|p| v.power(p).name.clone())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }

    /// Runs `f` with the game's variant, its options applied, and reads of the store (a
    /// mail's reply needs both at once).
    pub fn with_variant<R>(
        &mut self,
        game: &Game,
        f: impl FnOnce(&Variant, View) -> R,
    ) -> Result<R, GameError> {
        let v = variant(&mut self.variants, game)?;
        Ok(f(v, self.store.view()))
    }

    /// A time as the GM and players read it: in game `name`'s zone (UTC for a game there is
    /// none of).
    pub fn local_time(&self, name: &str, t: DateTime<Utc>) -> String {
        let zone = self
            .store
            .view()
            .game(name)
            .ok()
            .flatten()
            .map(|g| g.timezone);
        clock::show_in(t, zone.as_deref().unwrap_or("UTC"))
    }
}

impl Judge {
    /// Delivers the outbox's due mails ([`outbox::send`]) at `now`.
    pub fn send_outbox(
        &mut self,
        target: &outbox::Target,
        from: &str,
        retry: outbox::Retry,
        now: DateTime<Utc>,
    ) -> Result<outbox::Sent, outbox::OutboxError> {
        outbox::send(&mut self.store, target, from, retry, now)
    }

    /// Queues given-up mails again (`outbox retry`); their ids.
    pub fn retry_outbox(&mut self, which: outbox::Which) -> Result<Vec<i64>, outbox::OutboxError> {
        outbox::retry(&mut self.store, which)
    }
}
