//! napjudge: a play-by-email judge for the Napoleonic Wars Diplomacy variant.
//!
//! The modules follow the data's path: a [`variant`] is the board, [`order`] parses what a player
//! writes and validates it against a [`position`], [`adjudicate`] decides a phase, and [`case`] runs
//! adjudication cases from `fixtures/`.

pub mod adjudicate;
pub mod case;
pub mod order;
pub mod position;
pub mod variant;
pub mod winter;
