//! Why a command of the judge can't be done: [`GameError`], each variant naming what to fix.

use super::press::{MAX_PRESS_BYTES, PRESS_PER_PHASE};
use crate::clock::{self, ClockError};
use crate::notice;
use crate::render::echo;
use crate::render::RenderError;
use crate::store::{Author, Role, StoreError};
use chrono::{DateTime, Utc};
use napjudge_engine::position::LedgerError;
use napjudge_engine::turn::TurnError;
use napjudge_engine::variant::LoadError;
use napjudge_picture as picture;

/// Why a GM command or a tick can't be done. Each names what to fix, in words that hold by
/// mail and at the shell: the front ends add their own commands (the shell its `napjudge game
/// ...` line, a mail's reply its command).
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
    #[error("no game called '{}'", echo(.0))]
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
    #[error("'{}' is not a major power of {variant}: use one of {majors}", echo(.power))]
    UnknownPower {
        /// As written.
        power: String,
        /// The variant.
        variant: String,
        /// The majors.
        majors: String,
    },
    /// A minor named where it must be a minor.
    #[error("'{}' is not a minor power of the game's variant", echo(.0))]
    NotMinor(String),
    /// Not a usable address.
    #[error("'{}' is not a mail address (name@example.org)", echo(.0))]
    Address(String),
    /// A period of zero.
    #[error("the {0} period must be longer than nothing")]
    ZeroPeriod(&'static str),
    /// Started already.
    #[error("game '{0}' has started already")]
    Started(String),
    /// Not started yet.
    #[error("game '{0}' has not started: assign the powers, then start it")]
    NotStarted(String),
    /// Powers without players.
    #[error("game '{game}' can't start: no player for {powers}")]
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
    #[error("game '{0}' is paused: resume it first")]
    Paused(String),
    /// Not paused.
    #[error("game '{0}' is not paused")]
    NotPaused(String),
    /// A phase that doesn't exist.
    #[error("game '{game}' has no played phase '{}': its phases are {phases}", echo(.phase))]
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
    /// A GM command the engine refuses (its words echoed, so cut).
    #[error("{}", echo(&.0.to_string()))]
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
    /// A new password too short to hold against guesses.
    #[error("a password has at least {0} characters: choose a longer one")]
    ShortPassword(usize),
    /// Hashing a password failed.
    #[error("password: {0}")]
    Password(String),
    /// A game option that is not a rule switch, or not on or off.
    #[error("{0}")]
    Option(String),
    /// A role without a player.
    #[error("{0} has no player in game '{1}'")]
    NoPlayer(Role, String),
    /// Press to a name that is not another power of the game.
    #[error("'{}' is not another power of the game: write PRESS TO and the powers' names", echo(.0))]
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
    #[error("{} is not the current phase of game '{game}' ({what}): nothing was processed; the current phase is {current}", echo(.named))]
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
    /// A GM's process before the deadline, without saying "anyway" (each front end says how).
    #[error("{phase} of game '{game}' is not due: its deadline is {shown}. {waiting}", shown = clock::show_in(*deadline, zone))]
    Early {
        /// The game.
        game: String,
        /// The current phase.
        phase: String,
        /// Its deadline.
        deadline: DateTime<Utc>,
        /// The game's zone, the deadline's shown in.
        zone: String,
        /// Who has not ordered, and what happens to them.
        waiting: String,
    },
    /// Press the game's press option doesn't allow.
    #[error(transparent)]
    Press(#[from] crate::press::PressRefusal),
    /// Another process processed the phase first.
    #[error("game '{0}': the phase was processed by another napjudge at the same time; nothing was done")]
    Raced(String),
    /// The game has ended: it takes no orders and no change.
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
    #[error("game '{0}' never started: delete it instead")]
    EndForming(String),
    /// `game end` without a result or a reason, or with two.
    #[error("say how the game ends: a draw between two or more powers (--draw P1,P2; END DRAW P1 P2), a winner (--winner P; END WINNER P), or only why (--reason TEXT; END REASON TEXT), not a draw and a winner both")]
    EndHow,
    /// Orders or a CLEAR of a mail received before the power's latest orders (or CLEAR),
    /// answered late: never applied over them, whoever entered them.
    #[error("{}", superseded(.power, *.by, *.at, *.cleared))]
    Superseded {
        /// The power.
        power: String,
        /// Who entered the orders in force.
        by: Author,
        /// When they were received.
        at: DateTime<Utc>,
        /// They are a CLEAR.
        cleared: bool,
    },
    /// `game delete` of a started game.
    #[error("game '{0}' has started: its record is kept; end it instead")]
    DeleteStarted(String),
}

/// Why a late mail's orders were not applied: the newer orders (or CLEAR) in force.
fn superseded(power: &str, by: Author, at: DateTime<Utc>, cleared: bool) -> String {
    let who = match by {
        Author::Gm => "the GM".to_string(),
        Author::Player => format!("{power}'s player"),
    };
    let at = at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let newer = match cleared {
        true => format!("{power}'s orders were cleared later, by {who} at {at}"),
        false => format!("newer orders for {power}, entered by {who} at {at}, are in force"),
    };
    format!("not applied: {newer}; a mail received before them can't replace them")
}

impl GameError {
    /// Whether the database file or the machine failed (see [`StoreError::is_database_fault`]),
    /// not the command: anything else would fail alike now.
    pub(crate) fn is_database_fault(&self) -> bool {
        match self {
            GameError::Store(e) => e.is_database_fault(),
            GameError::Notice(e) => e.is_database_fault(),
            _ => false,
        }
    }
}
