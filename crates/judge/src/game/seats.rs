//! Seats that change hands and those who watch: RESIGN, a power abandoned after missed phases,
//! the GM's one-time takeover codes and TAKEOVER, `game replace`, observers.
//! A seat left is open: its player row (and so its password) is gone, its units get no orders
//! (civil disorder: the rules' defaults), and the tick doesn't wait for it.

use super::{hash_password_at, signon, variant, GameError, Judge, Secret, SignonRefusal, OBSERVER};
use crate::clock;
use crate::notice;
use crate::render::echo;
use crate::store::{
    Address, ChangeKind, CodeState, Game, GameState, MailKind, NewMail, PasswordFrom, Role,
    SeatChange, StoreError, Tx, View,
};
use chrono::{DateTime, TimeDelta, Utc};
use napjudge_engine::variant::{PowerKind, Variant};
use sha2::{Digest, Sha256};

/// Why a seat or observer command can't be done. Each names what to fix.
#[derive(Debug, thiserror::Error)]
pub enum SeatError {
    /// What any command of the judge can fail with (no such game, power or address).
    #[error(transparent)]
    Game(#[from] GameError),
    /// The GM's RESIGN.
    #[error(
        "the GM can't resign from game '{0}': a game needs its GM. Ask the judge's \
         administrator to hand it to another GM"
    )]
    GmResigns(String),
    /// The game is over.
    #[error(
        "game '{0}' is over: its seats no longer change hands and it has nothing more to observe"
    )]
    Over(String),
    /// A minor named where a seat is meant.
    #[error("'{power}' is a minor power of game '{game}': a minor has no player (the GM names its controller with CONTROL)")]
    Minor {
        /// As the variant names it.
        power: String,
        /// The game.
        game: String,
    },
    /// TAKEOVER of a seat that has a player.
    #[error("{power} has a player in game '{game}': only an open seat can be taken over (LIST shows which seats are open)")]
    Taken {
        /// The power.
        power: String,
        /// The game.
        game: String,
    },
    /// A code asked for a seat that has a player.
    #[error("{power} has a player in game '{game}' ({address}): a takeover code is for an open seat; REPLACE {power} ADDRESS gives a seat directly")]
    Held {
        /// The power.
        power: String,
        /// The game.
        game: String,
        /// Its player.
        address: Address,
    },
    /// Too many wrong passwords or codes for the seat lately: the code was not checked.
    #[error("too many wrong passwords or takeover codes for this seat came lately: the code was not checked; try again in a few hours")]
    Throttled(SignonRefusal),
    /// A code that is none of the GM's codes for the seat.
    #[error("that is not a takeover code for {power} in game '{game}': check the code the GM sent you (a code is for one power of one game)")]
    WrongCode {
        /// The power.
        power: String,
        /// The game.
        game: String,
    },
    /// A code used already.
    #[error("that code for {power} in game '{game}' was used at {at}: a code takes a seat once; ask the GM for a new one")]
    UsedCode {
        /// The power.
        power: String,
        /// The game.
        game: String,
        /// When, in the game's zone.
        at: String,
    },
    /// A code set aside.
    #[error("that code for {power} in game '{game}' is no longer good: the GM issued a newer one, or gave the seat; ask the GM")]
    VoidCode {
        /// The power.
        power: String,
        /// The game.
        game: String,
    },
    /// REPLACE naming the player the seat has.
    #[error("{address} plays {power} in game '{game}' already: nothing to replace")]
    Same {
        /// The power.
        power: String,
        /// The game.
        game: String,
        /// Its player.
        address: Address,
    },
    /// OBSERVE of a game whose GM takes no observers.
    #[error("game '{0}' takes no observers: its GM has turned them off")]
    NoObservers(String),
    /// OBSERVE of a game with as many observers as its GM takes.
    #[error(
        "game '{game}' has {cap} observers, as many as its GM takes: OBSERVE is refused until \
         one leaves (or the GM takes more)"
    )]
    Full {
        /// The game.
        game: String,
        /// The most observers it takes.
        cap: u32,
    },
    /// OBSERVE for an address, or from a sender, that asked too often lately.
    #[error(
        "{0} requests to observe came for this address or from this sender in the last 24 \
         hours, as many as the judge takes: no confirmation request was mailed; try again \
         tomorrow"
    )]
    Requests(u32),
    /// OBSERVE while a request for the address is unconfirmed.
    #[error(
        "a request to confirm was mailed to this address for game '{game}' already: send back \
         the line it gives (it holds until {until}); no other request was mailed"
    )]
    Asked {
        /// The game.
        game: String,
        /// Until when the request holds, in the game's zone.
        until: String,
    },
    /// OBSERVE for a stranger's address that had its mails of the day.
    #[error(
        "this address has had the mails the judge sends a day to an address that plays and \
         observes no game: no confirmation request was mailed; try again tomorrow"
    )]
    Quiet,
    /// CONFIRM OBSERVE with a token that is not one of the game's for the sender.
    #[error(
        "that is not a token the judge mailed this address to observe game '{0}': check the \
         line in the judge's mail, and send it from the address the mail went to"
    )]
    WrongToken(String),
    /// CONFIRM OBSERVE with a token used already.
    #[error(
        "that token to observe game '{0}' was used already: a token confirms once (send \
         OBSERVE {0} for a new one)"
    )]
    UsedToken(String),
    /// CONFIRM OBSERVE after the token's time.
    #[error(
        "that token to observe game '{game}' was good until {at}: send OBSERVE {game} for a new \
         one"
    )]
    Expired {
        /// The game.
        game: String,
        /// When it expired, in the game's zone.
        at: String,
    },
    /// OBSERVE from a player or the GM.
    #[error("you are {role} in game '{game}': its results come to you already")]
    Plays {
        /// The role.
        role: Role,
        /// The game.
        game: String,
    },
    /// OBSERVE twice.
    #[error("{address} observes game '{game}' already")]
    Observes {
        /// The address.
        address: Address,
        /// The game.
        game: String,
    },
    /// UNOBSERVE without OBSERVE.
    #[error("{address} doesn't observe game '{game}'")]
    NotObserving {
        /// The address.
        address: Address,
        /// The game.
        game: String,
    },
}

impl From<StoreError> for SeatError {
    fn from(e: StoreError) -> SeatError {
        SeatError::Game(e.into())
    }
}

/// A takeover code the GM issued.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IssuedCode {
    /// The power, as the variant names it.
    pub power: String,
    /// The code (stored only as its digest).
    pub code: String,
    /// Where it was mailed, if anywhere.
    pub mailed_to: Option<Address>,
}

/// The SHA-256 of a code, in hex: what the store keeps.
fn digest(code: &str) -> String {
    Sha256::digest(code.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The seat `power` (as written) names in `v`: a major's role, or why not.
fn seat(v: &Variant, game: &Game, power: &str) -> Result<Role, SeatError> {
    if let Some(p) = v.power_by_name(power) {
        if v.power(p).kind != PowerKind::Major {
            return Err(SeatError::Minor {
                power: v.power(p).name.clone(),
                game: game.name.clone(),
            });
        }
    }
    let p = Judge::major(v, power)?;
    Ok(Role::Power(v.power(p).name.clone()))
}

/// A game whose seats may still change hands.
fn open_game(game: Game) -> Result<Game, SeatError> {
    if game.state == GameState::Finished {
        return Err(SeatError::Over(game.name));
    }
    Ok(game)
}

/// After a phase is played, in its transaction: each owing power's player's missed phases in a
/// row (none ordered: one more; any order, late in the grace or the GM's: none), and the
/// powers that reach the game's limit abandoned. The powers abandoned.
pub(super) fn after_phase(
    tx: &Tx,
    v: &Variant,
    game: &Game,
    owe: &[String],
    missing: &[String],
    now: DateTime<Utc>,
) -> Result<Vec<String>, GameError> {
    let rules = tx.view().seat_rules(game.id)?;
    let mut abandoned = Vec::new();
    for (role, missed) in tx.view().missed(game.id)? {
        let Some(power) = role.power().filter(|p| owe.iter().any(|o| o == p)) else {
            continue;
        };
        let missed = match missing.iter().any(|m| m == power) {
            true => missed.saturating_add(1),
            false => 0,
        };
        if rules.abandon_after > 0 && missed >= rules.abandon_after {
            let change = SeatChange {
                power: power.to_string(),
                kind: ChangeKind::Abandoned,
                old: tx.remove_player(game.id, &role)?,
                new: None,
                missed,
                at: now,
            };
            tx.void_codes(game.id, power)?;
            tx.add_seat_change(game.id, &change)?;
            let told = notice::Change::Abandoned {
                power: change.power.clone(),
                missed,
                old: change.old,
            };
            notice::tell(tx, v, game, &told, now)?;
            abandoned.push(change.power);
        } else {
            tx.set_missed(game.id, &role, missed)?;
        }
    }
    Ok(abandoned)
}

/// Of the powers the tick waits for, those that have a player: an open seat is never waited
/// for (its units are in civil disorder).
pub(super) fn seated(
    view: View,
    game: i64,
    waiting: Vec<String>,
) -> Result<Vec<String>, StoreError> {
    let players = view.players(game)?;
    Ok(waiting
        .into_iter()
        .filter(|w| players.iter().any(|p| p.role.power() == Some(w.as_str())))
        .collect())
}

/// The seat `sender` left (or lost) as `role` in the game, if they had it: the latest change
/// that took it from them.
pub(super) fn left(
    view: View,
    game: i64,
    role: &Role,
    sender: &Address,
) -> Result<Option<SeatChange>, StoreError> {
    let Some(power) = role.power() else {
        return Ok(None);
    };
    Ok(view
        .seat_changes(game)?
        .into_iter()
        .rev()
        .find(|c| c.power == power && c.old.as_ref() == Some(sender)))
}

/// The lines `game show` and LIST add for seats: each open seat of a game that has started, with
/// how it was left; the observers (their addresses only for the GM and the shell).
pub(super) fn shown(
    view: View,
    v: &Variant,
    game: &Game,
    viewer: Option<&Role>,
) -> Result<String, StoreError> {
    let mut out = String::new();
    if game.state != GameState::Forming {
        let players = view.players(game.id)?;
        let changes = view.seat_changes(game.id)?;
        for p in v
            .power_ids()
            .filter(|&p| v.power(p).kind == PowerKind::Major)
        {
            let name = &v.power(p).name;
            if players.iter().any(|pl| pl.role.power() == Some(name)) {
                continue;
            }
            let how = changes
                .iter()
                .rev()
                .find(|c| &c.power == name)
                .map(|c| {
                    let at = clock::show_in(c.at, &game.timezone);
                    match c.kind {
                        ChangeKind::Abandoned => {
                            format!(" (abandoned {at} after {} missed phases)", c.missed)
                        }
                        _ => format!(" ({} {at})", c.kind),
                    }
                })
                .unwrap_or_default();
            out.push_str(&format!("  {name:<10} open{how}\n"));
        }
    }
    let observers = view.observers(game.id)?;
    match (observers.is_empty(), viewer) {
        (true, _) => {}
        (false, Some(Role::Power(_))) => out.push_str(&format!("Observers: {}\n", observers.len())),
        (false, _) => out.push_str(&format!(
            "Observers: {}\n",
            observers
                .iter()
                .map(Address::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
    Ok(out)
}

/// Requests to observe one address, or one sender, may make in [`REQUESTS_WINDOW`]: each mails
/// a confirmation request, to an address anyone may name.
const OBSERVE_REQUESTS: u32 = 3;

/// The window [`OBSERVE_REQUESTS`] counts in.
const REQUESTS_WINDOW: TimeDelta = TimeDelta::hours(24);

/// How long the token of a request to observe is good.
pub(crate) const CONFIRM_WITHIN: TimeDelta = TimeDelta::days(7);

/// The game named `name` (any case).
fn game_of(view: View, name: &str) -> Result<Game, SeatError> {
    Ok(view
        .game_any_case(name)?
        .ok_or_else(|| GameError::UnknownGame(name.to_string()))?)
}

/// Refuses `address` as an observer of the game when it plays in it or runs it.
fn plays(view: View, game: &Game, address: &Address) -> Result<(), SeatError> {
    let role = match &game.gm == address {
        true => Some(Role::Gm),
        false => view
            .players(game.id)?
            .into_iter()
            .find(|p| &p.address == address)
            .map(|p| p.role),
    };
    match role {
        Some(role) => Err(SeatError::Plays {
            role,
            game: game.name.clone(),
        }),
        None => Ok(()),
    }
}

/// Why `address` may not come to observe the game by mail, if it may not: the game takes no
/// more observers, or `address` plays in it, runs it or observes it already.
fn may_observe(view: View, game: &Game, address: &Address) -> Result<(), SeatError> {
    let cap = view.seat_rules(game.id)?.observers;
    if cap == 0 {
        return Err(SeatError::NoObservers(game.name.clone()));
    }
    plays(view, game, address)?;
    if view.observers(game.id)?.contains(address) {
        return Err(SeatError::Observes {
            address: address.clone(),
            game: game.name.clone(),
        });
    }
    if view.observer_count(game.id)? >= cap {
        return Err(SeatError::Full {
            game: game.name.clone(),
            cap,
        });
    }
    Ok(())
}

/// `address` observes the game from now (the game's record keeps it), unless it observes it
/// already. The game's name.
fn add_observer(
    tx: &Tx,
    game: Game,
    address: &Address,
    now: DateTime<Utc>,
) -> Result<String, SeatError> {
    if !tx.add_observer(game.id, address, now)? {
        return Err(SeatError::Observes {
            address: address.clone(),
            game: game.name,
        });
    }
    tx.add_gm_action(
        game.id,
        None,
        &format!("{address} observes the game"),
        None,
        now,
    )?;
    Ok(game.name)
}

/// The seats' calls of the service.
impl Judge {
    /// RESIGN: the player signed on as `role` leaves the power. The seat is open, the password
    /// gone; everyone is told.
    pub fn resign(
        &mut self,
        game: &Game,
        role: &Role,
        now: DateTime<Utc>,
    ) -> Result<(), SeatError> {
        if *role == Role::Gm {
            return Err(SeatError::GmResigns(game.name.clone()));
        }
        let game = open_game(Judge::game(self.store.view(), &game.name)?)?;
        let v = variant(&mut self.variants, &game)?;
        let tx = self.store.begin()?;
        let game = open_game(Judge::game(tx.view(), &game.name)?)?;
        let Some(old) = tx.remove_player(game.id, role)? else {
            return Err(GameError::NoPlayer(role.clone(), game.name.clone()).into());
        };
        let change = SeatChange {
            power: role.name().to_string(),
            kind: ChangeKind::Resigned,
            old: Some(old),
            new: None,
            missed: 0,
            at: now,
        };
        tx.void_codes(game.id, role.name())?;
        tx.add_seat_change(game.id, &change)?;
        tx.add_gm_action(game.id, None, &format!("{role} resigned"), None, now)?;
        let told = notice::Change::Resigned {
            power: change.power,
        };
        notice::tell(&tx, v, &game, &told, now).map_err(GameError::from)?;
        tx.commit()?;
        Ok(())
    }

    /// `game code` and CODE: a one-time code for an open seat (an earlier one is set aside),
    /// mailed to `mail_to` when given.
    pub fn issue_code(
        &mut self,
        name: &str,
        power: &str,
        mail_to: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<IssuedCode, SeatError> {
        let to = mail_to.map(Address::new);
        if let Some(a) = to.as_ref().filter(|a| !a.is_valid()) {
            return Err(GameError::Address(a.to_string()).into());
        }
        let game = open_game(Judge::game(self.store.view(), name)?)?;
        let v = variant(&mut self.variants, &game)?;
        let role = seat(v, &game, power)?;
        let code = self
            .drawn
            .draw(Secret::Code, role.name(), &game.name, now)?;
        let tx = self.store.begin()?;
        if let Some(address) = tx.view().player_address(game.id, &role)? {
            return Err(SeatError::Held {
                power: role.to_string(),
                game: game.name,
                address,
            });
        }
        tx.add_code(game.id, role.name(), &digest(&code), now)?;
        tx.add_gm_action(
            game.id,
            None,
            &format!("issued a takeover code for {role}"),
            None,
            now,
        )?;
        if let Some(to) = &to {
            let id = tx.queue_mail(
                &NewMail {
                    game: Some(game.id),
                    phase: None,
                    kind: MailKind::Password,
                    to: to.as_str(),
                    subject: &format!("{}: a takeover code for {role}", game.name),
                    body: &format!(
                        "The GM of game '{}' ({}) offers you the open seat of {role}.\n\nTo \
                         take it, mail the judge this line:\n\n  TAKEOVER {role} {} {code}\n\n\
                         The code works once. The judge then mails you the power's password.\n",
                        game.name, game.gm, game.name
                    ),
                    in_reply_to: None,
                },
                now,
            )?;
            tx.mail_secret(id, &code)?;
        }
        tx.commit()?;
        Ok(IssuedCode {
            power: role.to_string(),
            code,
            mailed_to: to,
        })
    }

    /// TAKEOVER POWER GAME CODE from `sender`: the open seat is theirs, with a new password
    /// mailed to them; the code is used; everyone is told. The game's name and the power's.
    pub(crate) fn takeover(
        &mut self,
        sender: &Address,
        power: &str,
        game: &str,
        code: &str,
        now: DateTime<Utc>,
    ) -> Result<(String, Role), SeatError> {
        let game = self
            .store
            .view()
            .game_any_case(game)?
            .ok_or_else(|| GameError::UnknownGame(game.to_string()))?;
        let game = open_game(game)?;
        let v = variant(&mut self.variants, &game)?;
        let role = seat(v, &game, power)?;
        // As a SIGNON's password: the throttle read, the code checked and a wrong one recorded
        // in one transaction.
        let tx = self.store.begin()?;
        let own = signon::owns(tx.view(), &game, &role, sender)?;
        if let Some(refused) = signon::throttle(tx.view(), &game, &role, sender, own, now)? {
            return Err(SeatError::Throttled(refused));
        }
        // The code is checked first, by its SHA-256: a guess costs no password hashed.
        let state = tx.view().code_state(game.id, role.name(), &digest(code))?;
        let taken = tx.view().password_hash(game.id, &role)?.is_some();
        // A used code says so even once its seat is taken: the one who used it may ask again.
        let id = match (state, taken) {
            (Some(CodeState::Used(at)), _) => {
                return Err(SeatError::UsedCode {
                    power: role.to_string(),
                    at: clock::show_in(at, &game.timezone),
                    game: game.name,
                })
            }
            (None, taken) => {
                // A guess: counted under the throttle, whatever the seat.
                signon::record_guess(&tx, &game, &role, sender, own, now)?;
                tx.commit()?;
                let (power, game) = (role.to_string(), game.name);
                return Err(match taken {
                    true => SeatError::Taken { power, game },
                    false => SeatError::WrongCode { power, game },
                });
            }
            (_, true) => {
                return Err(SeatError::Taken {
                    power: role.to_string(),
                    game: game.name,
                })
            }
            (Some(CodeState::Void), false) => {
                return Err(SeatError::VoidCode {
                    power: role.to_string(),
                    game: game.name,
                })
            }
            (Some(CodeState::Valid(id)), false) => id,
        };
        // Only a good code gets a password made and hashed (in the transaction: it takes a
        // while on purpose, and a takeover is rare).
        let password = self
            .drawn
            .draw(Secret::Password, role.name(), &game.name, now)?;
        let hash = hash_password_at(&password, self.password_cost)?;
        tx.use_code(id, now)?;
        tx.set_player(game.id, &role, sender, &hash, PasswordFrom::Mailed, now)?;
        let change = SeatChange {
            power: role.name().to_string(),
            kind: ChangeKind::TookOver,
            old: None,
            new: Some(sender.clone()),
            missed: 0,
            at: now,
        };
        tx.add_seat_change(game.id, &change)?;
        tx.add_gm_action(
            game.id,
            None,
            &format!("{sender} took over {role} with a code"),
            None,
            now,
        )?;
        notice::seat(
            &tx,
            v,
            &game,
            &self.address,
            &role,
            sender,
            Some(&password),
            now,
        )
        .map_err(GameError::from)?;
        let told = notice::Change::TookOver {
            power: change.power,
            new: sender.clone(),
        };
        notice::tell(&tx, v, &game, &told, now).map_err(GameError::from)?;
        tx.commit()?;
        Ok((game.name, role))
    }

    /// `game replace` and REPLACE: the seat given to `address` directly, with a new password
    /// mailed to them; the player it had (if any) is told, and everyone. The player it had.
    pub fn replace(
        &mut self,
        name: &str,
        power: &str,
        address: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<Address>, SeatError> {
        let address = Address::new(address);
        if !address.is_valid() {
            return Err(GameError::Address(address.to_string()).into());
        }
        let game = open_game(Judge::game(self.store.view(), name)?)?;
        let v = variant(&mut self.variants, &game)?;
        let role = seat(v, &game, power)?;
        let password = self
            .drawn
            .draw(Secret::Password, role.name(), &game.name, now)?;
        let hash = hash_password_at(&password, self.password_cost)?;
        let tx = self.store.begin()?;
        let old = tx.view().player_address(game.id, &role)?;
        if old.as_ref() == Some(&address) {
            return Err(SeatError::Same {
                power: role.to_string(),
                game: game.name,
                address,
            });
        }
        // A new row: the new player's missed phases start from none.
        tx.remove_player(game.id, &role)?;
        tx.set_player(game.id, &role, &address, &hash, PasswordFrom::Mailed, now)?;
        tx.void_codes(game.id, role.name())?;
        let change = SeatChange {
            power: role.name().to_string(),
            kind: ChangeKind::Replaced,
            old: old.clone(),
            new: Some(address.clone()),
            missed: 0,
            at: now,
        };
        tx.add_seat_change(game.id, &change)?;
        tx.add_gm_action(
            game.id,
            None,
            &format!("gave {role} to {address}"),
            None,
            now,
        )?;
        notice::seat(
            &tx,
            v,
            &game,
            &self.address,
            &role,
            &address,
            Some(&password),
            now,
        )
        .map_err(GameError::from)?;
        // The player it had hears of it with everyone, as after `game assign`.
        let told = notice::Change::Replaced {
            power: change.power,
            old: change.old,
            new: address,
        };
        notice::tell(&tx, v, &game, &told, now).map_err(GameError::from)?;
        tx.commit()?;
        Ok(old)
    }

    /// `game observe`: the GM's choice that `address` get the game's results, notices and
    /// broadcast press, at once (neither the game's cap nor a confirmation). The game's name.
    pub fn observe(
        &mut self,
        name: &str,
        address: &Address,
        now: DateTime<Utc>,
    ) -> Result<String, SeatError> {
        if !address.is_valid() {
            return Err(GameError::Address(address.to_string()).into());
        }
        let tx = self.store.begin()?;
        let game = open_game(game_of(tx.view(), name)?)?;
        plays(tx.view(), &game, address)?;
        let name = add_observer(&tx, game, address, now)?;
        tx.commit()?;
        Ok(name)
    }

    /// OBSERVE from `address` (the mail's Reply-To, else its From: `asked_by`): the request is
    /// stored with a one-time token (its digest), and the token mailed to `address`, which
    /// observes only once it sends it back ([`Judge::confirm_observe`]). The game's name.
    pub(crate) fn request_observe(
        &mut self,
        name: &str,
        address: &Address,
        asked_by: &Address,
        now: DateTime<Utc>,
    ) -> Result<String, SeatError> {
        if !address.is_valid() {
            return Err(GameError::Address(address.to_string()).into());
        }
        let tx = self.store.begin()?;
        let game = open_game(game_of(tx.view(), name)?)?;
        let token = self.drawn.draw(Secret::Token, OBSERVER, &game.name, now)?;
        may_observe(tx.view(), &game, address)?;
        // One request at a time per address and game: its mail holds the line to send back.
        if let Some(until) = tx.view().open_observe_request(game.id, address, now)? {
            return Err(SeatError::Asked {
                until: clock::show_in(until, &game.timezone),
                game: game.name,
            });
        }
        let asked = tx
            .view()
            .observe_requests_since(address, asked_by, now - REQUESTS_WINDOW)?;
        if asked >= OBSERVE_REQUESTS {
            return Err(SeatError::Requests(OBSERVE_REQUESTS));
        }
        let expires = now + CONFIRM_WITHIN;
        let body = format!(
            "Someone asked the judge at {judge} to send this address ({address}) the results, \
             notices and broadcast press of game '{g}'. The request came from {from}.\n\n\
             To confirm, mail the judge this line, from this address, by {until}:\n\n  \
             CONFIRM OBSERVE {g} {token}\n\n\
             If you did not ask for it, ignore this mail: nothing changes, and the judge mails \
             nothing more about it.\n",
            judge = self.address,
            g = game.name,
            from = echo(asked_by.as_str()),
            until = clock::show_in(expires, &game.timezone),
        );
        let Some(body) = super::inbox::to_stranger(&tx, address, &body, now)? else {
            return Err(SeatError::Quiet);
        };
        tx.add_observe_request(game.id, address, asked_by, &digest(&token), now, expires)?;
        let id = tx.queue_mail(
            &NewMail {
                game: Some(game.id),
                phase: None,
                kind: MailKind::Confirm,
                to: address.as_str(),
                subject: &format!("{}: confirm that you want to observe it", game.name),
                body: &body,
                in_reply_to: None,
            },
            now,
        )?;
        tx.mail_secret(id, &token)?;
        tx.commit()?;
        Ok(game.name)
    }

    /// CONFIRM OBSERVE GAME TOKEN from `sender`: with the token of a request for `sender`, not
    /// used and not expired, `sender` observes the game. The game's name.
    pub(crate) fn confirm_observe(
        &mut self,
        name: &str,
        sender: &Address,
        token: &str,
        now: DateTime<Utc>,
    ) -> Result<String, SeatError> {
        let tx = self.store.begin()?;
        let game = open_game(game_of(tx.view(), name)?)?;
        // A token of another address is as good as none: the mail says nothing of it.
        let Some(asked) = tx
            .view()
            .observe_request(game.id, &digest(token))?
            .filter(|r| &r.address == sender)
        else {
            return Err(SeatError::WrongToken(game.name));
        };
        if asked.used {
            return Err(SeatError::UsedToken(game.name));
        }
        if asked.expires < now {
            return Err(SeatError::Expired {
                at: clock::show_in(asked.expires, &game.timezone),
                game: game.name,
            });
        }
        may_observe(tx.view(), &game, sender)?;
        tx.use_observe_request(asked.id, now)?;
        let name = add_observer(&tx, game, sender, now)?;
        tx.commit()?;
        Ok(name)
    }

    /// `game observe --stop` and UNOBSERVE: `address` no longer observes the game.
    pub fn unobserve(
        &mut self,
        name: &str,
        address: &Address,
        now: DateTime<Utc>,
    ) -> Result<String, SeatError> {
        let tx = self.store.begin()?;
        let game = game_of(tx.view(), name)?;
        if !tx.remove_observer(game.id, address)? {
            return Err(SeatError::NotObserving {
                address: address.clone(),
                game: game.name,
            });
        }
        tx.add_gm_action(
            game.id,
            None,
            &format!("{address} no longer observes the game"),
            None,
            now,
        )?;
        tx.commit()?;
        Ok(game.name)
    }
}
