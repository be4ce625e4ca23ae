//! The judge around the engine: games in SQLite ([`store`]), the GM's commands and phase
//! processing ([`game`]), deadlines ([`clock`]), the mails it writes ([`render`]), mail in
//! ([`mail`]) and out ([`outbox`]), and its settings file ([`config`]). It calls the engine
//! ([`napjudge_engine::turn`]) once per phase; the engine never calls it.

pub mod clock;
pub mod config;
pub mod game;
pub mod mail;
pub mod outbox;
pub mod render;
pub mod store;
