//! The judge's service: the GM's commands and the clock's `tick`, each one transaction on the
//! [`Store`]. The engine is reached only through [`turn`]: `check` for orders, `play` for a phase,
//! `owing` for who owes orders.

use crate::clock::{self, ClockError, Period};
use crate::notice;
use crate::outbox;
use crate::pages;
use crate::render::{self, Context, PhaseView, RenderError};
use crate::settings::Setting;
use crate::store::{
    Address, Author, ChangeKind, Due, Earlier, Game, GameState, HandledMail, InboxState, MailKind,
    MailPicture, NewMail, NewMessage, OrderText, Periods, PhaseRow, PressRules, Reminded, Role,
    SignonFailure, Store, StoreError, Tx, View,
};
use argon2::password_hash::PasswordHasher;
use chrono::{DateTime, Utc};
use napjudge_engine::advice::{self, Warning};
use napjudge_engine::order::{Order, OrderKind, Place, Stage};
use napjudge_engine::outcome::{Outcome, Reason, Refusal};
use napjudge_engine::position::{LedgerError, Position};
use napjudge_engine::turn::{self, CheckedOrder, OrderError, Sheets, TurnError};
use napjudge_engine::variant::{
    self, LoadError, PhaseKind, PowerId, PowerKind, Region, RuleOption, Variant,
};
use napjudge_engine::winter::GmCommand;
use napjudge_picture as picture;
use std::collections::{BTreeMap, HashMap, HashSet};

mod seats;
pub use seats::{IssuedCode, SeatError};
mod ending;
mod waiting;
pub use ending::{describe, GmEnd, Vote};
pub use waiting::{read_absence, AbsenceError, AbsenceSet, Moved};

impl GameError {
    /// Whether the database file or the machine failed (see [`StoreError::is_database_fault`]),
    /// not the command: anything else would fail alike now.
    pub fn is_database_fault(&self) -> bool {
        match self {
            GameError::Store(e) => e.is_database_fault(),
            GameError::Notice(e) => e.is_database_fault(),
            _ => false,
        }
    }
}

/// Why a GM command or a tick can't be done. Each names what to fix.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A time, period or zone that can't be read.
    #[error(transparent)]
    Clock(#[from] ClockError),
    /// The game's variant doesn't load.
    #[error("variant: {0}")]
    Variant(#[from] LoadError),
    /// No game of that name.
    #[error("no game called '{0}' (`napjudge game list` shows the games)")]
    UnknownGame(String),
    /// The name is taken.
    #[error("a game called '{0}' exists already: choose another name")]
    GameExists(String),
    /// A player's CLEAR of orders the GM entered for the power.
    #[error("{0}'s orders for this phase were entered by the GM, and a player's CLEAR leaves them: send new orders to replace them, or ask the GM")]
    ClearGm(String),
    /// A game's name that can't be one (shown escaped and cut short).
    #[error("'{0}' can't be a game's name: use 1 to 32 letters (a-z, A-Z), digits, '-' or '_', starting with a letter or digit")]
    Name(String),
    /// Not a power of the variant, or not one a player plays.
    #[error("'{power}' is not a major power of {variant}: use one of {majors}")]
    UnknownPower {
        /// As written.
        power: String,
        /// The variant.
        variant: String,
        /// The majors.
        majors: String,
    },
    /// A minor named where it must be a minor.
    #[error("'{0}' is not a minor power of the game's variant")]
    NotMinor(String),
    /// Not a usable address.
    #[error("'{0}' is not a mail address (name@example.org)")]
    Address(String),
    /// A period of zero.
    #[error("the {0} period must be longer than nothing")]
    ZeroPeriod(&'static str),
    /// Started already.
    #[error("game '{0}' has started already")]
    Started(String),
    /// Not started yet.
    #[error("game '{0}' has not started: assign the powers, then `napjudge game start {0}`")]
    NotStarted(String),
    /// Powers without players.
    #[error("game '{game}' can't start: no player for {powers} (`napjudge game assign {game} POWER ADDRESS`)")]
    Unassigned {
        /// The game.
        game: String,
        /// The powers.
        powers: String,
    },
    /// The game is over.
    #[error("game '{0}' is over: roll it back to an earlier phase to play on")]
    Over(String),
    /// Paused.
    #[error("game '{0}' is paused: `napjudge game resume {0}` first")]
    Paused(String),
    /// Not paused.
    #[error("game '{0}' is not paused")]
    NotPaused(String),
    /// A phase that doesn't exist.
    #[error("game '{game}' has no played phase '{phase}': its phases are {phases}")]
    UnknownPhase {
        /// The game.
        game: String,
        /// As written.
        phase: String,
        /// Those it has.
        phases: String,
    },
    /// A power that owes nothing now.
    #[error("{power} has no orders to give in {phase}: orders are due from {owe}")]
    NotOwing {
        /// The power.
        power: String,
        /// The phase.
        phase: String,
        /// Who owes orders.
        owe: String,
    },
    /// A GM command the engine refuses.
    #[error("{0}")]
    Ledger(#[from] LedgerError),
    /// The phase can't be played (a stored GM command the engine refuses).
    #[error("{0}: cancel or correct it by rolling back the phase")]
    Turn(#[from] TurnError),
    /// A setting that can't be read.
    #[error(transparent)]
    Setting(#[from] crate::settings::SettingError),
    /// A notice can't be queued.
    #[error(transparent)]
    Notice(#[from] notice::NoticeError),
    /// A mail can't be rendered.
    #[error(transparent)]
    Render(#[from] RenderError),
    /// A picture of the board can't be made.
    #[error(transparent)]
    Picture(#[from] picture::PictureError),
    /// Hashing a password failed.
    #[error("password: {0}")]
    Password(String),
    /// A game option that is not a rule switch, or not on or off.
    #[error("{0}")]
    Option(String),
    /// A role without a player.
    #[error("{0} has no player in game '{1}': `napjudge game assign {1} {0} ADDRESS`")]
    NoPlayer(Role, String),
    /// Press to a name that is not another power of the game.
    #[error("'{0}' is not another power of the game: write PRESS TO and the powers' names")]
    PressTo(String),
    /// A power (or the GM) has sent all the press one phase takes.
    #[error(
        "{0} has sent {PRESS_PER_PHASE} press messages in this phase, the most the judge takes \
         in one phase: send more once the phase is processed"
    )]
    PressLimit(Role),
    /// A press message longer than the judge takes.
    #[error(
        "the press is {0} bytes; the judge takes press of up to {MAX_PRESS_BYTES} bytes: send \
         it in parts"
    )]
    PressTooLong(usize),
    /// A GM's PROCESS by mail without the phase it means.
    #[error("write the phase to process after PROCESS, as the game names it: PROCESS {0}")]
    ProcessWhich(String),
    /// A GM's PROCESS by mail naming a phase that is not the current one.
    #[error("{named} is not the current phase of game '{game}' ({what}): nothing was processed; the current phase is {current}")]
    NotCurrent {
        /// The game.
        game: String,
        /// The phase named, as written.
        named: String,
        /// Processed already, or not a phase of the game yet.
        what: &'static str,
        /// The current phase.
        current: String,
    },
    /// A GM's process before the deadline, without saying "anyway".
    #[error("{phase} of game '{game}' is not due: its deadline is {deadline}. {waiting} To process it now anyway, {how}")]
    Early {
        /// The game.
        game: String,
        /// The current phase.
        phase: String,
        /// Its deadline, in the game's zone.
        deadline: String,
        /// Who has not ordered, and what happens to them.
        waiting: String,
        /// How to say "anyway" where the GM asked (the shell or a mail).
        how: String,
    },
    /// Press the game's press option doesn't allow.
    #[error(transparent)]
    Press(#[from] crate::press::PressRefusal),
    /// Another process processed the phase first.
    #[error("game '{0}': the phase was processed by another napjudge at the same time; nothing was done")]
    Raced(String),
    /// The game has ended (issue 20): it takes no orders and no change.
    #[error("game '{game}' ended {how}: it takes no orders or changes (LIST, HISTORY and SUMMARY still answer)")]
    Ended {
        /// The game.
        game: String,
        /// How and when it ended.
        how: String,
    },
    /// A vote from a power with nothing left.
    #[error("{0} has no centre and no unit left: only the surviving powers vote")]
    Eliminated(String),
    /// A concession to oneself, or to a power out of the game.
    #[error("{0} can't be conceded to: name another power that still has a centre or a unit")]
    ConcedeTo(String),
    /// `game end` of a game that never started.
    #[error("game '{0}' never started: delete it instead (`napjudge game delete {0}`)")]
    EndForming(String),
    /// `game end` without a result or a reason, or with two.
    #[error("say how the game ends: a draw between two or more powers (--draw P1,P2; END DRAW P1 P2), a winner (--winner P; END WINNER P), or only why (--reason TEXT; END REASON TEXT), not a draw and a winner both")]
    EndHow,
    /// `game delete` of a started game.
    #[error("game '{0}' has started: its record is kept; end it instead (`napjudge game end {0} --reason TEXT`)")]
    DeleteStarted(String),
}

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

/// One line of a power's orders as `game orders` understood it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderCheck {
    /// The line number.
    pub line: usize,
    /// The line as written.
    pub text: String,
    /// The canonical order, or the text.
    pub order: String,
    /// The error, when it failed.
    pub error: Option<String>,
    /// What validation changed in a line it kept (a merge's participants left out).
    pub note: Option<String>,
    /// What a kept line will do that the power may not mean (issue 21): it stands as written.
    pub warnings: Vec<String>,
}

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

/// What one `tick` did, per game.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TickReport {
    /// One line per thing done (`game: processed Spring 1801 Movement`).
    pub done: Vec<String>,
    /// One line per game (or received mail) whose handling failed, with why: the others went
    /// on, and nothing of the failed one was changed.
    pub failed: Vec<String>,
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
    pub fn kept(&self) -> usize {
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
pub struct OrderSet {
    /// The phase's name.
    pub phase: String,
    /// Whether the power owes orders in it.
    pub owes: bool,
    /// The orders in force, canonical, with the stacks restated (none: the defaults apply).
    pub orders: Option<Vec<String>>,
}

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
pub struct Signed {
    /// The game, as it was at the SIGNON.
    pub game: Game,
    /// The GM, or the power (as the variant names it).
    pub role: Role,
}

/// The judge's service: every change to a game goes through one of its calls, each one
/// transaction of the store at the time given (`now`): the clock is the caller's.
pub struct Judge {
    store: Store,
    password_cost: PasswordCost,
    variants: HashMap<String, Variant>,
    /// The judge's own address, which the start and password mails tell players to write to.
    address: String,
    /// The web archive's address (`[site] url`): results mails link to their phase's page.
    site: Option<String>,
}

/// The judge's address when none is given (`napjudge.toml`'s default).
pub const DEFAULT_ADDRESS: &str = "judge@napjudge.invalid";

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

/// A password of 12 letters and digits from the system's random source.
fn new_password() -> Result<String, GameError> {
    const ALPHABET: &[u8] = b"abcdefghjkmnpqrstuvwxyzACDEFGHJKLMNPQRSTUVWXYZ23456789";
    let bytes = argon2::password_hash::try_generate_salt()
        .map_err(|e| GameError::Password(e.to_string()))?;
    Ok(bytes
        .iter()
        .take(12)
        .map(|b| ALPHABET[usize::from(*b) % ALPHABET.len()] as char)
        .collect())
}

/// How costly the argon2 hash of a password `game assign` sets is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PasswordCost {
    /// argon2's default parameters: what a real judge uses.
    #[default]
    Full,
    /// The least memory and time argon2 allows, for the public passwords of a replayed game
    /// folder: thousands of sign-ons verify in well under a second. The PHC string carries its
    /// parameters, so [`verify_password`] needs no switch.
    Light,
}

/// The argon2 PHC string of a password, at full cost.
pub fn hash_password(password: &str) -> Result<String, GameError> {
    hash_password_at(password, PasswordCost::Full)
}

/// The argon2 PHC string of a password, at the cost given.
pub fn hash_password_at(password: &str, cost: PasswordCost) -> Result<String, GameError> {
    let params = match cost {
        PasswordCost::Full => argon2::Params::default(),
        PasswordCost::Light => argon2::Params::new(argon2::Params::MIN_M_COST, 1, 1, None)
            .map_err(|e| GameError::Password(e.to_string()))?,
    };
    argon2::Argon2::from(params)
        .hash_password(password.as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| GameError::Password(e.to_string()))
}

/// Checks a password against a stored hash.
pub fn verify_password(password: &str, hash: &str) -> bool {
    use argon2::password_hash::PasswordVerifier;
    argon2::password_hash::phc::PasswordHash::new(hash).is_ok_and(|h| {
        argon2::Argon2::default()
            .verify_password(password.as_bytes(), &h)
            .is_ok()
    })
}

impl OrderCheck {
    /// A kept line as the acknowledgement gives it: the canonical order, and what validation
    /// changed in it.
    pub fn kept(&self) -> String {
        match &self.note {
            None => self.order.clone(),
            Some(n) => format!("{} (note: {n})", self.order),
        }
    }
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
pub fn acknowledge(
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
                Err(OrderError::Parse(e)) => Some(e.to_string()),
                Err(e) => Some(e.to_string()),
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
        notes.push(render::advice::budget(b));
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
            variants: HashMap::new(),
            address: DEFAULT_ADDRESS.to_string(),
            site: None,
        }
    }

    /// The same judge, telling players to mail `address` (`[judge] address` of
    /// napjudge.toml).
    pub fn with_address(mut self, address: &str) -> Judge {
        self.address = address.to_string();
        self
    }

    /// The judge's own address.
    pub fn address(&self) -> &str {
        &self.address
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

    /// Reads of the store (every write is a call of the service).
    pub fn view(&self) -> View<'_> {
        self.store.view()
    }

    /// The game called `name`, capitals aside, as everywhere a game is named (issue 21).
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

    /// `game create`.
    pub fn create(&mut self, g: &NewGame, now: DateTime<Utc>) -> Result<Game, GameError> {
        self.create_with(g, &[], now)
    }

    /// `game create` with `settings` beyond [`NewGame`]'s (seat rules, timing, and anything
    /// its flags give as a [`Setting`]), stored by [`Setting::apply`] in the game's one
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
            None => (new_password()?, true),
        };
        // Hash outside the transaction: it takes a while on purpose.
        let hash = hash_password_at(&password, self.password_cost)?;
        let tx = self.store.begin()?;
        let old = tx
            .view()
            .players(game.id)?
            .into_iter()
            .find(|p| p.role == role)
            .map(|p| p.address);
        tx.set_player(game.id, &role, &address, &hash)?;
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

    /// `game orders`: checks a power's orders once, as the acknowledgement gives them
    /// ([`acknowledge`]), keeps the valid lines as the power's orders for the phase, and says
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
    pub fn clear(
        &mut self,
        name: &str,
        power: &str,
        by: Author,
        now: DateTime<Utc>,
    ) -> Result<bool, GameError> {
        let (tx, cur, v) = begin(&mut self.store, &mut self.variants, name)?;
        let power = v.power(Judge::major(v, power)?).name.clone();
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
            },
        )?;
        tx.commit()?;
        Ok(true)
    }

    /// A power's orders in force in the current phase (none when the game is over), as the
    /// acknowledgement gives them: `checked`, the acknowledgement of the orders just stored, or
    /// else the stored text checked now.
    pub fn order_set(
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
            Judge::refuse_early(tx.view(), v, &cur, named, now)?;
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
        named: Option<&str>,
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
        let how = match named {
            Some(_) => format!("write PROCESS {phase} NOW"),
            None => format!(
                "add --now-anyway (napjudge game process {} --now-anyway)",
                cur.game.name
            ),
        };
        Err(GameError::Early {
            game: cur.game.name.clone(),
            phase,
            deadline: clock::show_in(deadline, &cur.game.timezone),
            waiting,
            how,
        })
    }

    /// Plays `cur` inside the caller's transaction: stores the report, the next phase and every
    /// result mail, linking to the phase's page under `site` (or, for a preview, only renders).
    fn play(
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
        let deadline = match over {
            true => None,
            false => Some(waiting::deadline_for(
                c,
                game,
                &v.phase_name(report.next.phase),
                clock::after(
                    now,
                    period_for(&game.periods, report.next.phase.kind).secs(),
                )?,
                now,
            )?),
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
        if game.pictures {
            // A board without shapes (a variant of one's own) has no picture: the results go
            // out without one rather than not at all.
            if let Ok(png) = picture::board_for(v).and_then(|board| {
                picture::picture(
                    v,
                    &board,
                    &report.next,
                    Some(&report),
                    picture::View::After,
                    picture::Format::Png,
                )
            }) {
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

    /// `game pause` / `game resume`. A resumed game whose deadline passed while paused gets a
    /// new one, a full period from now.
    pub fn pause(
        &mut self,
        name: &str,
        pause: bool,
        now: DateTime<Utc>,
    ) -> Result<Option<DateTime<Utc>>, GameError> {
        let tx = self.store.begin()?;
        let mut game = Judge::game(tx.view(), name)?;
        let mut deadline = None;
        match (pause, game.state) {
            (_, GameState::Forming) => return Err(GameError::NotStarted(game.name)),
            (_, GameState::Finished) => {
                Judge::refuse_ended(tx.view(), &game)?;
                return Err(GameError::Over(game.name));
            }
            (true, GameState::Paused) => return Err(GameError::Paused(game.name)),
            (false, GameState::Running) => return Err(GameError::NotPaused(game.name)),
            (true, _) => {
                tx.set_state(game.id, GameState::Paused)?;
                tx.add_gm_action(game.id, None, "paused the game", None, now)?;
            }
            (false, _) => {
                if let Some(phase) = tx.view().current_phase(game.id)? {
                    deadline = phase.deadline;
                    if phase.deadline.is_none_or(|d| d <= now) {
                        let period = period_for(&game.periods, phase.position.phase.kind);
                        let shown =
                            variant(&mut self.variants, &game)?.phase_name(phase.position.phase);
                        let d = clock::after(now, period.secs())?;
                        let d = waiting::deadline_for(&tx, &game, &shown, d, now)?;
                        tx.set_deadline(phase.id, Some(d))?;
                        deadline = Some(d);
                    }
                }
                tx.set_state(game.id, GameState::Running)?;
                tx.add_gm_action(game.id, None, "resumed the game", None, now)?;
            }
        }
        let change = if pause {
            game.state = GameState::Paused;
            notice::Change::Paused
        } else {
            game.state = GameState::Running;
            notice::Change::Resumed
        };
        let v = variant(&mut self.variants, &game)?;
        notice::tell(&tx, v, &game, &change, now)?;
        tx.commit()?;
        Ok(deadline)
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
        notice::tell(&tx, v, &cur.game, &notice::Change::Deadline, now)?;
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
                let items: Vec<String> =
                    pos.ledgers.items(v, p).iter().map(|i| i.text(v)).collect();
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
        // A Winter's budgets before the orders (issue 21): a player's own, else every major's
        // that owes orders.
        let own = match viewer {
            Some(Role::Power(p)) => v.power_by_name(p),
            _ => None,
        };
        let budgets: Vec<String> = turn::owing(v, pos)
            .into_iter()
            .filter(|&p| own.is_none_or(|o| o == p))
            .filter_map(|p| {
                advice::budget(v, pos, p, &[]).map(|b| {
                    let figures = render::advice::budget_figures(&b);
                    format!("  {:<10} {figures}\n", v.power(p).name)
                })
            })
            .collect();
        if !budgets.is_empty() {
            out.push_str("Budgets before orders:\n");
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
                    p.deadline
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

    /// `tick`: for each running game, processes a phase that is due, or sends the reminders due.
    /// A phase is due when its deadline has passed and every power owing orders has sent them,
    /// when everyone has ordered and the game doesn't wait for the deadline, or when the grace
    /// has run out. Each game is its own transaction. Without `may_process` (a mail is still
    /// being read) no phase is processed: a phase due waits for the next tick.
    pub(crate) fn tick_games(
        &mut self,
        now: DateTime<Utc>,
        may_process: bool,
    ) -> Result<TickReport, GameError> {
        let mut report = TickReport::default();
        // One read for every game; only a game with something to do opens a write transaction.
        for due in self.store.view().due()? {
            // One game that fails (a damaged row, a deadline at the calendar's end, a GM command
            // the engine refuses) is reported and left as it was: the others are still processed.
            match self.tick_game(&due, now, may_process) {
                Ok(done) => report.done.extend(done),
                Err(e) => report.failed.push(format!("{}: {e}", due.game.name)),
            }
        }
        Ok(report)
    }

    /// One game's part of a tick, in its own transaction: what was done, if anything.
    fn tick_game(
        &mut self,
        due: &Due,
        now: DateTime<Utc>,
        may_process: bool,
    ) -> Result<Vec<String>, GameError> {
        let mut done = Vec::new();
        let waiting: Vec<String> = due
            .owe
            .iter()
            .filter(|p| !due.ordered.contains(p))
            .cloned()
            .collect();
        let waiting = seats::seated(self.store.view(), due.game.id, waiting)?;
        let p = &due.game.periods;
        let times = clock::after(due.deadline, p.grace.secs())
            .and_then(|g| Ok((g, clock::after(due.deadline, -p.remind.secs())?)));
        // A stored deadline at the calendar's end (only a damaged file has one) stops its own
        // game, said in the report, and the GM's `game deadline` mends it.
        let (grace_end, remind_at) = match times {
            Ok(t) => t,
            Err(e) => return Ok(vec![format!("{}: not processed: {e}", due.game.name)]),
        };
        let due_now = (waiting.is_empty()
            && (now >= due.deadline || self.may_go_early(due, now)?))
            || now >= grace_end;
        if due_now && !may_process {
            done.push(format!(
                "{}: due, waits for a mail the judge is still reading",
                due.game.name
            ));
        }
        let process = due_now && may_process;
        let level = if now >= due.deadline {
            Reminded::Grace
        } else if now >= remind_at {
            Reminded::BeforeDeadline
        } else {
            Reminded::None
        };
        let remind = level > due.reminded && !waiting.is_empty();
        if !process && !remind {
            return Ok(done);
        }
        let v = variant(&mut self.variants, &due.game)?;
        let tx = self.store.begin()?;
        // Re-read inside the transaction: another napjudge may have moved the game on.
        let Some(phase) = tx.view().current_phase(due.game.id)? else {
            return Ok(done);
        };
        if phase.id != due.phase
            || tx.view().game(&due.game.name)?.map(|g| g.state) != Some(GameState::Running)
        {
            return Ok(done);
        }
        let game = &due.game;
        if process {
            let cur = Current {
                game: game.clone(),
                phase,
            };
            let played = Judge::play(&tx, v, &cur, now, false, self.site.as_deref())?;
            tx.commit()?;
            done.push(format!("{}: processed {}", game.name, played.phase));
            return Ok(done);
        }
        let players = tx.view().players(game.id)?;
        let phase_name = v.phase_name(phase.position.phase);
        let shown = clock::show_in(due.deadline, &game.timezone);
        let grace_shown = clock::show_in(grace_end, &game.timezone);
        for power in &waiting {
            let Some(player) = players
                .iter()
                .find(|p| p.role.power() == Some(power.as_str()))
            else {
                continue;
            };
            let body = render::render(
                "reminder",
                &render::ReminderMail {
                    game: &game.name,
                    power,
                    phase: &phase_name,
                    deadline: &shown,
                    grace_end: &grace_shown,
                    in_grace: level == Reminded::Grace,
                    budget: &v
                        .power_by_name(power)
                        .and_then(|p| advice::budget(v, &phase.position, p, &[]))
                        .map(|b| render::advice::budget(&b))
                        .unwrap_or_default(),
                },
            )?;
            tx.queue_mail(
                &NewMail {
                    game: Some(game.id),
                    phase: Some(phase.id),
                    kind: MailKind::Reminder,
                    to: player.address.as_str(),
                    subject: &format!("{}: {phase_name}: orders due", game.name),
                    body: &body,
                    in_reply_to: None,
                },
                now,
            )?;
        }
        tx.set_reminded(phase.id, level)?;
        tx.commit()?;
        done.push(format!(
            "{}: reminded {} ({})",
            game.name,
            waiting.join(", "),
            if level == Reminded::Grace {
                "grace"
            } else {
                "before the deadline"
            }
        ));
        Ok(done)
    }
}

/// The longest name a game may have.
pub const NAME_MAX: usize = 32;

/// Checks a game's name: 1 to [`NAME_MAX`] ASCII letters, digits, `-` or `_`, starting with a
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

/// The throttle's window (seconds): the wrong passwords given for a role (a power or the GM)
/// of a game within it are counted.
pub const THROTTLE_WINDOW: i64 = 6 * 3600;
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

/// Press messages one power (or the GM) may send in one phase: a lively negotiation is a few
/// a day per partner; more is a flood, each one mailed to every power it names.
pub const PRESS_PER_PHASE: i64 = 50;
/// The longest press message (bytes): each is mailed to every power it names.
pub const MAX_PRESS_BYTES: usize = 20_000;

/// A reply to a received message, for [`Judge::answer_message`].
pub struct Reply<'a> {
    /// The game it concerned, if any.
    pub game: Option<i64>,
    /// The recipient.
    pub to: &'a str,
    /// The subject.
    pub subject: &'a str,
    /// The body, rendered.
    pub body: &'a str,
    /// The Message-ID (without brackets) of the message answered.
    pub in_reply_to: Option<&'a str>,
    /// The mail's record for refusing older mail and replays, when it was handled after a
    /// SIGNON.
    pub handled: Option<&'a HandledMail>,
    /// A picture of the board the reply carries (MAP).
    pub picture: Option<&'a MailPicture>,
    /// Mails queued with the reply (the copy of a SIGNON from an address other than the
    /// role's own, for that address).
    pub also: &'a [NewMail<'a>],
}

/// Why a signed-on mail is not carried out: it is older than one handled, or a copy of one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stale {
    /// Dated before the latest mail handled for the power in the game.
    Older {
        /// The mail's date.
        dated: DateTime<Utc>,
        /// The latest handled mail's date.
        last: DateTime<Utc>,
    },
    /// The same text as a mail handled for the power in the same phase.
    Replayed {
        /// The earlier mail's date.
        first: DateTime<Utc>,
    },
}

/// A mail read after the phase of its time was over (a `receive` killed, the mail answered
/// by a later `tick`, or a PROCESS at the same time): the phase it belonged to and the
/// current one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhasePassed {
    /// The phase current when the mail came, by name (none: the game had not started).
    pub then: Option<String>,
    /// The current phase.
    pub now: String,
}

/// The calls of the judge by mail: signing on, a player's own settings, press, and the received
/// messages' own record.
impl Judge {
    /// Checks a SIGNON from `sender`: the game (capitals aside), the power (or `GM`) and the
    /// password. Each wrong password is recorded for the throttle, which counts them per role
    /// and refuses a sender unchecked past [`SENDER_LIMIT`], [`OTHERS_LIMIT`] or
    /// [`OWNER_LIMIT`] (the role's own address is only counted against the last).
    pub fn signon(
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
        let since = clock::after(now, -THROTTLE_WINDOW)?;
        let view = self.store.view();
        let own = players
            .iter()
            .any(|p| p.role == role && &p.address == sender)
            || (role == Role::Gm && &g.gm == sender);
        if let Some((by, until)) =
            throttled(&view.signon_failures(g.id, &role, since)?, sender, own)
        {
            return Ok(Err(SignonRefusal::Throttled {
                role,
                game: g.name,
                by,
                until: clock::show_in(until, &g.timezone),
            }));
        }
        let hash = view.password_hash(g.id, &role)?;
        if !hash.is_some_and(|h| verify_password(password, &h)) {
            // A right password is no guess: only wrong ones are recorded (and a good mail
            // costs no write).
            let tx = self.store.begin()?;
            tx.forget_signon_failures(since)?;
            tx.add_signon_failure(g.id, &role, sender, own, now)?;
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
    /// the game, or the same text as one handled in the current phase.
    pub fn check_fresh(
        &self,
        s: &Signed,
        dated: DateTime<Utc>,
        digest: &str,
    ) -> Result<Result<HandledMail, Stale>, GameError> {
        let view = self.store.view();
        if let Some(last) = view.last_dated(s.game.id, &s.role)? {
            if dated < last {
                return Ok(Err(Stale::Older { dated, last }));
            }
        }
        let phase = view.current_phase(s.game.id)?.map(|p| p.id);
        if let Some(first) = view.handled_digest(s.game.id, &s.role, phase, digest)? {
            return Ok(Err(Stale::Replayed { first }));
        }
        Ok(Ok(HandledMail {
            game: s.game.id,
            role: s.role.clone(),
            phase,
            dated,
            digest: digest.to_string(),
        }))
    }

    /// Whether a mail of time `at` came before the game's current phase began: then its
    /// orders belong to a phase that is over and are not used.
    pub fn phase_passed(
        &mut self,
        game: &Game,
        at: DateTime<Utc>,
    ) -> Result<Option<PhasePassed>, GameError> {
        let Some(cur) = self.store.view().current_phase(game.id)? else {
            return Ok(None);
        };
        // A phase stored before schema version 10 has no start: taken as current, as before.
        if cur.started.is_none_or(|s| s <= at) {
            return Ok(None);
        }
        // Rare (a mail answered late): the whole history is read only then.
        let phases = self.store.view().phases(game.id)?;
        let v = variant(&mut self.variants, game)?;
        let then = phases
            .iter()
            .rev()
            .find(|p| p.started.is_some_and(|s| s <= at))
            .map(|p| v.phase_name(p.position.phase));
        Ok(Some(PhasePassed {
            then,
            now: v.phase_name(cur.position.phase),
        }))
    }

    /// SET PASSWORD: a power's player chooses a new password (hashed at full cost).
    pub fn set_password(
        &mut self,
        game: &Game,
        role: &Role,
        password: &str,
    ) -> Result<(), GameError> {
        // Hash outside the transaction: it takes a while on purpose.
        let hash = hash_password(password)?;
        let tx = self.store.begin()?;
        if !tx.set_password(game.id, role, &hash)? {
            return Err(GameError::NoPlayer(role.clone(), game.name.clone()));
        }
        tx.commit()?;
        Ok(())
    }

    /// SET ADDRESS: a power's player has the judge's mail go to another address. The old and
    /// the new address each hear of it: by a mail of its own, but for the one the mail came
    /// from (`sender`), which has the reply.
    pub fn set_address(
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

    /// PRESS TO ... / BROADCAST (no powers named: everyone else), `grey` for PRESS GREY TO /
    /// BROADCAST GREY (the sender not named): checked against the game's press options
    /// ([`crate::press::check`]), stored, and mailed once to each address of the powers named
    /// (and to the GM, naming the sender, when the game's GM copy is on). The names of those it
    /// went to.
    pub fn press(
        &mut self,
        game: &Game,
        from: &Role,
        to: &[String],
        body: &str,
        grey: bool,
        now: DateTime<Utc>,
    ) -> Result<Vec<String>, GameError> {
        crate::press::check(game, from, to.is_empty(), grey)?;
        if body.len() > MAX_PRESS_BYTES {
            return Err(GameError::PressTooLong(body.len()));
        }
        let tx = self.store.begin()?;
        let phase = tx.view().current_phase(game.id)?.map(|p| p.id);
        if let Some(phase) = phase {
            if tx.view().press_count(game.id, phase, from.name())? >= PRESS_PER_PHASE {
                return Err(GameError::PressLimit(from.clone()));
            }
        }
        let players = tx.view().players(game.id)?;
        let others: Vec<_> = players.iter().filter(|p| &p.role != from).collect();
        let recipients = if to.is_empty() {
            others
        } else {
            to.iter()
                .map(|name| {
                    others
                        .iter()
                        .find(|p| p.role.name().eq_ignore_ascii_case(name))
                        .copied()
                        .ok_or_else(|| GameError::PressTo(name.clone()))
                })
                .collect::<Result<_, _>>()?
        };
        let names: Vec<String> = recipients.iter().map(|p| p.role.to_string()).collect();
        // Broadcast press goes to the observers too; press to named powers never does.
        let observers = match to.is_empty() {
            true => tx.view().observers(game.id)?,
            false => Vec::new(),
        };
        tx.add_press(
            game.id,
            phase,
            from.name(),
            &names.join(" "),
            body,
            grey,
            now,
        )?;
        let (mail, subject) = if grey {
            (
                format!(
                    "Grey press in game '{}' to {} (the sender is not named):\n\n{body}",
                    game.name,
                    names.join(", ")
                ),
                format!("{}: grey press", game.name),
            )
        } else {
            (
                format!(
                    "Press in game '{}' from {from} to {}:\n\n{body}",
                    game.name,
                    names.join(", ")
                ),
                format!("{}: press from {from}", game.name),
            )
        };
        let to_gm = recipients.iter().any(|p| p.role == Role::Gm);
        let mut seen = HashSet::new();
        if crate::press::gm_copy(game, from, to_gm, grey) {
            // The GM's copy names the sender: the GM gets it in place of the unnamed one.
            seen.insert(game.gm.clone());
            let grey_word = if grey { "grey " } else { "" };
            tx.queue_mail(
                &NewMail {
                    game: Some(game.id),
                    phase,
                    kind: MailKind::Press,
                    to: game.gm.as_str(),
                    subject: &format!("{}: copy of {grey_word}press from {from}", game.name),
                    body: &format!(
                        "The GM's copy of {grey_word}press in game '{}' from {from} to {}:\n\n{body}",
                        game.name,
                        names.join(", ")
                    ),
                    in_reply_to: None,
                },
                now,
            )?;
        }
        let addresses = recipients.iter().map(|p| &p.address).chain(&observers);
        for to in addresses.filter(|a| seen.insert((*a).clone())) {
            tx.queue_mail(
                &NewMail {
                    game: Some(game.id),
                    phase,
                    kind: MailKind::Press,
                    to: to.as_str(),
                    subject: &subject,
                    body: &mail,
                    in_reply_to: None,
                },
                now,
            )?;
        }
        tx.commit()?;
        Ok(names)
    }

    /// Stores a received message (`stored`), in its own transaction: its row id and, if it was
    /// seen before (the same Message-ID, else the same bytes), when.
    pub fn store_message(
        &mut self,
        m: &NewMessage,
        now: DateTime<Utc>,
    ) -> Result<(i64, Option<Earlier>), GameError> {
        let tx = self.store.begin()?;
        let id = tx.store_message(m, now)?;
        let earlier = tx.view().earlier(m.message_id, m.digest, id)?;
        tx.commit()?;
        Ok((id, earlier))
    }

    /// Marks a received message still `stored` as `state` (ignored on purpose, or a duplicate
    /// answered through its original), with why.
    pub fn mark_message(&mut self, id: i64, state: InboxState, why: &str) -> Result<(), GameError> {
        let tx = self.store.begin()?;
        tx.set_message_state(id, state, None, Some(why))?;
        tx.commit()?;
        Ok(())
    }

    /// Queues the reply to the received message `id` and marks the message `state`, in one
    /// transaction: a message is answered once or not at all (a message another napjudge
    /// answered first gets no second reply).
    pub fn answer_message(
        &mut self,
        id: i64,
        state: InboxState,
        reply: &Reply,
        now: DateTime<Utc>,
    ) -> Result<(), GameError> {
        let tx = self.store.begin()?;
        if !tx.set_message_state(id, state, reply.game, None)? {
            return Ok(());
        }
        let mail = tx.queue_mail(
            &NewMail {
                game: reply.game,
                phase: None,
                kind: MailKind::Reply,
                to: reply.to,
                subject: reply.subject,
                body: reply.body,
                in_reply_to: reply.in_reply_to,
            },
            now,
        )?;
        match reply.picture {
            Some(MailPicture::Stored(phase)) => tx.mail_picture(mail, *phase)?,
            Some(MailPicture::Drawn(png)) => tx.mail_png(mail, png)?,
            None => {}
        }
        for m in reply.also {
            tx.queue_mail(m, now)?;
        }
        if let Some(h) = reply.handled {
            tx.add_handled(id, h)?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Marks the received message `id` failed with why, and queues the notice to the GM (or
    /// the judge's own address) and the word to its sender, in one transaction: later ticks
    /// skip it, and the notices go once.
    pub fn fail_message(
        &mut self,
        id: i64,
        why: &str,
        gm: &Reply,
        sender: Option<&Reply>,
        now: DateTime<Utc>,
    ) -> Result<(), GameError> {
        let tx = self.store.begin()?;
        if !tx.set_message_state(id, InboxState::Failed, gm.game, Some(why))? {
            return Ok(());
        }
        let notices = [
            Some((MailKind::Unanswered, gm)),
            sender.map(|r| (MailKind::Reply, r)),
        ];
        for (kind, n) in notices.into_iter().flatten() {
            tx.queue_mail(
                &NewMail {
                    game: n.game,
                    phase: None,
                    kind,
                    to: n.to,
                    subject: n.subject,
                    body: n.body,
                    in_reply_to: n.in_reply_to,
                },
                now,
            )?;
        }
        tx.commit()?;
        Ok(())
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
