//! The judge around the engine: games in SQLite ([`store`]: every SQL statement), the service
//! ([`game`]: every change, one transaction each, at the time its caller gives), deadlines
//! ([`clock`]), the mails it writes ([`render`]), mail in ([`mail`]: an adapter from messages to
//! service calls) and out ([`outbox`]), and its settings file ([`config`]). It calls the engine
//! ([`napjudge_engine::turn`]) once per phase; the engine never calls it.

pub mod calendar;
pub mod clock;
pub mod config;
pub mod game;
pub mod intake;
pub mod mail;
pub mod notice;
pub mod outbox;
pub mod pages;
pub mod render;
pub mod settings;
pub mod store;

pub use clock::Clock;
pub use game::{GameError, Judge, NewGame, PasswordCost};
pub use mail::{Handled, MailConfig, MailError};
pub use settings::Setting;
pub use store::{
    Address, Author, GameState, MailKind, MailState, Periods, Reminded, Role, Store, StoreError,
};
