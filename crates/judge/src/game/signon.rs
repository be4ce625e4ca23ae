//! Signing on by mail: SIGNON with its throttle on wrong passwords, a signed-on mail refused
//! as older or replayed, a mail that came in an earlier phase, and a player's SET PASSWORD
//! and SET ADDRESS.

use super::{hash_password, seats, variant, verify_password, GameError, Judge};
use crate::clock;
use crate::render;
use crate::store::{
    Address, ChangeKind, Game, MailKind, NewMail, Role, SignedMail, SignonFailure, Tx, View,
};
use chrono::{DateTime, Utc};
use napjudge_engine::variant::PowerKind;

/// Whose wrong passwords a throttled SIGNON was refused for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guesser {
    /// The sender itself ([`SENDER_LIMIT`]).
    Sender,
    /// Every address but the role's own together ([`OTHERS_LIMIT`]).
    Others,
    /// The role's own address ([`OWNER_LIMIT`]): someone may be forging it.
    Owner,
}

/// Why a SIGNON is refused: the reply says it in one sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SignonRefusal {
    /// Too many wrong passwords for the role lately: its password is not checked for this
    /// sender until `until`.
    Throttled {
        /// The role.
        role: Role,
        /// The game.
        game: String,
        /// Whose guesses.
        by: Guesser,
        /// When the sender may try again, shown in the game's zone.
        until: String,
    },
    /// No game of that name.
    UnknownGame(String),
    /// Not a power of the game.
    UnknownPower {
        /// As written.
        power: String,
        /// The game.
        game: String,
        /// The powers that have players.
        powers: Vec<String>,
    },
    /// The password doesn't match.
    WrongPassword {
        /// Who.
        role: Role,
        /// The game.
        game: String,
    },
    /// The sender played the power and no longer does (resigned, abandoned, replaced).
    Left {
        /// The power.
        role: Role,
        /// The game.
        game: String,
        /// When, in the game's zone.
        since: String,
        /// How the seat was left.
        how: ChangeKind,
    },
}

/// Who signed on to a game by mail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Signed {
    /// The game, as it was at the SIGNON.
    pub game: Game,
    /// The GM, or the power (as the variant names it).
    pub role: Role,
}

/// The throttle's window (seconds): the wrong passwords given for a role (a power or the GM)
/// of a game within it are counted.
pub(crate) const THROTTLE_WINDOW: i64 = 6 * 3600;
/// Wrong passwords for a role from one sender (not the role's own address) in the window, after
/// which that sender's SIGNONs for the role are refused unchecked.
pub const SENDER_LIMIT: usize = 5;
/// Wrong passwords for a role from every address but its own together in the window, after
/// which only mail from the role's own address is checked: rotating senders can't guess on,
/// and can't lock the owner out.
pub const OTHERS_LIMIT: usize = 10;
/// Wrong passwords for a role from its own address in the window, after which that address too
/// is refused unchecked. Only a sender forging the owner's address blind (the replies go to the
/// owner) can spend these; so at most `OTHERS_LIMIT + OWNER_LIMIT` wrong passwords are checked
/// per role per window.
pub const OWNER_LIMIT: usize = 20;

/// The fewest characters a password a player chooses (SET PASSWORD) may have: a short one is
/// found in the throttle's few guesses.
pub const MIN_PASSWORD: usize = 8;

/// When a sender's SIGNON for a role may be checked again, if `failures` (the role's wrong
/// passwords in the window, oldest first) throttle it now.
fn throttled(
    failures: &[SignonFailure],
    sender: &Address,
    own: bool,
) -> Option<(Guesser, DateTime<Utc>)> {
    // The moment enough of a bucket's failures leave the window to bring it under its limit.
    let over = |times: Vec<DateTime<Utc>>, limit: usize| {
        let first = times.len().checked_sub(limit)?;
        // A failure's time is one the store read back (years 0-9999): past the calendar's end
        // its window never closes.
        times
            .get(first)
            .map(|&t| clock::after(t, THROTTLE_WINDOW).unwrap_or(DateTime::<Utc>::MAX_UTC))
    };
    let times = |keep: &dyn Fn(&SignonFailure) -> bool| {
        failures.iter().filter(|f| keep(f)).map(|f| f.at).collect()
    };
    if own {
        return over(times(&|f| f.registered), OWNER_LIMIT).map(|t| (Guesser::Owner, t));
    }
    let me = sender.folded();
    [
        (
            Guesser::Sender,
            over(times(&|f| !f.registered && f.address == me), SENDER_LIMIT),
        ),
        (
            Guesser::Others,
            over(times(&|f| !f.registered), OTHERS_LIMIT),
        ),
    ]
    .into_iter()
    .filter_map(|(g, t)| t.map(|t| (g, t)))
    .max_by_key(|&(_, t)| t)
}

/// Whether `sender` is the address the judge mails `role` of game `g` at (for the GM, also the
/// game's `--gm`): its guesses count against [`OWNER_LIMIT`] only.
pub(super) fn owns(view: View, g: &Game, role: &Role, sender: &Address) -> Result<bool, GameError> {
    Ok(view
        .players(g.id)?
        .iter()
        .any(|p| &p.role == role && &p.address == sender)
        || (*role == Role::Gm && &g.gm == sender))
}

/// The refusal of a guess at `role`'s secret (a SIGNON's password, a TAKEOVER's code) from
/// `sender` at `now`, when the role's wrong guesses in the window throttle it: the guess is then
/// not checked. Read in the transaction that checks the guess and records it if wrong.
pub(super) fn throttle(
    view: View,
    g: &Game,
    role: &Role,
    sender: &Address,
    own: bool,
    now: DateTime<Utc>,
) -> Result<Option<SignonRefusal>, GameError> {
    let since = clock::after(now, -THROTTLE_WINDOW)?;
    let failures = view.signon_failures(g.id, role, since)?;
    Ok(
        throttled(&failures, sender, own).map(|(by, until)| SignonRefusal::Throttled {
            role: role.clone(),
            game: g.name.clone(),
            by,
            until: clock::show_in(until, &g.timezone),
        }),
    )
}

/// Records a wrong guess at `role`'s secret for the throttle (and forgets those past the
/// window).
pub(super) fn record_guess(
    tx: &Tx,
    g: &Game,
    role: &Role,
    sender: &Address,
    own: bool,
    now: DateTime<Utc>,
) -> Result<(), GameError> {
    tx.forget_signon_failures(clock::after(now, -THROTTLE_WINDOW)?)?;
    tx.add_signon_failure(g.id, role, sender, own, now)?;
    Ok(())
}

/// Why a signed-on mail is not carried out: it is older than one handled, or a copy of one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Stale {
    /// Dated before the latest mail handled for the power in the game.
    Older {
        /// The mail's date.
        dated: DateTime<Utc>,
        /// The latest handled mail's date.
        last: DateTime<Utc>,
    },
    /// The same text as a mail handled for the power in the same phase, or with the same date
    /// in a phase a rollback set aside.
    Replayed {
        /// The earlier mail's date.
        first: DateTime<Utc>,
    },
}

/// A mail read after the phase of its time was over (a `receive` killed, the mail answered
/// by a later `tick`, or a PROCESS at the same time): the phase it belonged to and the
/// current one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PhasePassed {
    /// The phase current when the mail came, by name (none: the game had not started).
    pub then: Option<String>,
    /// The current phase.
    pub now: String,
    /// When the phase the mail belonged to was processed, when it is the one just before the
    /// current phase (a mail that missed more than one phase is told less).
    pub at: Option<DateTime<Utc>>,
    /// The powers that phase was processed without (they had no orders), when it is the one just
    /// before the current phase.
    pub missing: Vec<String>,
}

impl Judge {
    /// Checks a SIGNON from `sender`: the game (capitals aside), the power (or `GM`) and the
    /// password. Each wrong password is recorded for the throttle, which counts them per role
    /// and refuses a sender unchecked past [`SENDER_LIMIT`], [`OTHERS_LIMIT`] or
    /// [`OWNER_LIMIT`] (the role's own address is only counted against the last).
    pub(crate) fn signon(
        &mut self,
        sender: &Address,
        power: &str,
        game: &str,
        password: &str,
        now: DateTime<Utc>,
    ) -> Result<Result<Signed, SignonRefusal>, GameError> {
        let view = self.store.view();
        let Some(g) = view.game_any_case(game)? else {
            return Ok(Err(SignonRefusal::UnknownGame(game.to_string())));
        };
        let players = view.players(g.id)?;
        let role = match Role::named(power) {
            Role::Gm => Role::Gm,
            Role::Power(p) => {
                let v = variant(&mut self.variants, &g)?;
                let known = v
                    .power_by_name(&p)
                    .filter(|&q| v.power(q).kind == PowerKind::Major);
                match known {
                    Some(q) => Role::Power(v.power(q).name.clone()),
                    None => {
                        return Ok(Err(SignonRefusal::UnknownPower {
                            power: p,
                            game: g.name,
                            powers: players
                                .iter()
                                .filter_map(|pl| pl.role.power().map(str::to_string))
                                .collect(),
                        }))
                    }
                }
            }
        };
        // The throttle is read, the password checked and a wrong one recorded in one
        // IMMEDIATE transaction: guesses sent at once are checked one after another, each
        // counting the ones before it.
        let tx = self.store.begin()?;
        let own = owns(tx.view(), &g, &role, sender)?;
        if let Some(refused) = throttle(tx.view(), &g, &role, sender, own, now)? {
            return Ok(Err(refused));
        }
        let hash = tx.view().password_hash(g.id, &role)?;
        if !hash.is_some_and(|h| verify_password(password, &h)) {
            // A right password is no guess: only wrong ones are recorded (and a good mail
            // costs no write).
            record_guess(&tx, &g, &role, sender, own, now)?;
            tx.commit()?;
            if let Some(left) = seats::left(self.store.view(), g.id, &role, sender)? {
                return Ok(Err(SignonRefusal::Left {
                    role,
                    game: g.name,
                    since: clock::show_in(left.at, &g.timezone),
                    how: left.kind,
                }));
            }
            return Ok(Err(SignonRefusal::WrongPassword { role, game: g.name }));
        }
        Ok(Ok(Signed { game: g, role }))
    }

    /// After a SIGNON as `s`: the mail's record (dated `dated`, its text's digest `digest`,
    /// read at `now`), or why it is refused: older than a mail handled for the same power in
    /// the game, or the same text as one handled in the current phase (or with the same date
    /// in a phase a rollback set aside: the same mail again).
    pub(crate) fn check_fresh(
        &self,
        s: &Signed,
        dated: DateTime<Utc>,
        digest: &str,
    ) -> Result<Result<SignedMail, Stale>, GameError> {
        let view = self.store.view();
        if let Some(last) = view.last_dated(s.game.id, &s.role)? {
            if dated < last {
                return Ok(Err(Stale::Older { dated, last }));
            }
        }
        let phase = view.current_phase(s.game.id)?.map(|p| p.id);
        // The same text in the phase, or the same text and date in a phase a rollback set
        // aside (the same mail again: its phase is a new row now).
        if let Some(first) = view.handled_digest(s.game.id, &s.role, phase, digest, dated)? {
            return Ok(Err(Stale::Replayed { first }));
        }
        Ok(Ok(SignedMail {
            game: s.game.id,
            role: s.role.clone(),
            phase,
            dated,
            digest: digest.to_string(),
        }))
    }

    /// Whether a mail of time `at` came before the game's current phase began: then its
    /// orders belong to a phase that is over and are not used.
    pub(crate) fn phase_passed(
        &mut self,
        game: &Game,
        at: DateTime<Utc>,
    ) -> Result<Option<PhasePassed>, GameError> {
        let Some(cur) = self.store.view().current_phase(game.id)? else {
            return Ok(None);
        };
        // A phase stored before schema version 10 has no start: taken as current, as before.
        let Some(started) = cur.started.filter(|s| *s > at) else {
            return Ok(None);
        };
        // Rare (a mail answered late): the whole history is read only then.
        let phases = self.store.view().phases(game.id)?;
        let v = variant(&mut self.variants, game)?;
        let then = phases
            .iter()
            .rev()
            .find(|p| p.started.is_some_and(|s| s <= at));
        // Processing a phase starts the next in the same moment.
        let just_before = then.filter(|p| p.processed_at == Some(started));
        Ok(Some(PhasePassed {
            then: then.map(|p| v.phase_name(p.position.phase)),
            now: v.phase_name(cur.position.phase),
            at: just_before.and(Some(started)),
            missing: just_before.map(|p| p.missing.clone()).unwrap_or_default(),
        }))
    }

    /// SET PASSWORD: a power's player chooses a new password (hashed at full cost), of at least
    /// [`MIN_PASSWORD`] characters.
    pub(crate) fn set_password(
        &mut self,
        game: &Game,
        role: &Role,
        password: &str,
        now: DateTime<Utc>,
    ) -> Result<(), GameError> {
        if password.chars().count() < MIN_PASSWORD {
            return Err(GameError::ShortPassword(MIN_PASSWORD));
        }
        // Hash outside the transaction: it takes a while on purpose.
        let hash = hash_password(password)?;
        let tx = self.store.begin()?;
        if !tx.set_password(game.id, role, &hash, now)? {
            return Err(GameError::NoPlayer(role.clone(), game.name.clone()));
        }
        tx.commit()?;
        Ok(())
    }

    /// SET ADDRESS: a power's player has the judge's mail go to another address. The old and
    /// the new address each hear of it: by a mail of its own, but for the one the mail came
    /// from (`sender`), which has the reply.
    pub(crate) fn set_address(
        &mut self,
        game: &Game,
        role: &Role,
        address: &Address,
        sender: &Address,
        now: DateTime<Utc>,
    ) -> Result<(), GameError> {
        if !address.is_valid() {
            return Err(GameError::Address(address.to_string()));
        }
        let tx = self.store.begin()?;
        let old = tx
            .view()
            .players(game.id)?
            .into_iter()
            .find(|p| &p.role == role)
            .map(|p| p.address);
        if !tx.set_address(game.id, role, address)? {
            return Err(GameError::NoPlayer(role.clone(), game.name.clone()));
        }
        let body = render::render(
            "address",
            &render::AddressMail {
                game: &game.name,
                role: &role.to_string(),
                address: address.as_str(),
                old: old.as_ref().map(Address::as_str),
                sender: sender.as_str(),
                at: &now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                gm: game.gm.as_str(),
            },
        )?;
        let mut to: Vec<&Address> = old.iter().chain([address]).collect();
        to.dedup();
        for a in to.into_iter().filter(|a| *a != sender) {
            tx.queue_mail(
                &NewMail {
                    game: Some(game.id),
                    phase: None,
                    kind: MailKind::Notice,
                    to: a.as_str(),
                    subject: &format!("{}: {role}'s address is now {address}", game.name),
                    body: &body,
                    in_reply_to: None,
                },
                now,
            )?;
        }
        tx.commit()?;
        Ok(())
    }
}
