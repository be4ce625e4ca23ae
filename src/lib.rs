//! napjudge: a play-by-email judge for the Napoleonic Wars Diplomacy variant.
//!
//! The modules follow the data's path: a [`variant`] is the board, [`order`] parses what a player
//! writes, [`validate`] checks it against a [`position`], [`adjudicate`] decides a phase, [`turn`]
//! plays one phase from each power's order text (the one call the judge, the CLI and [`case`]
//! make), and
//! [`case`] runs adjudication cases from `fixtures/`.
//!
//! From a board and a line a player wrote to an outcome:
//!
//! ```
//! use napjudge::adjudicate::adjudicate;
//! use napjudge::order::parse_line;
//! use napjudge::validate::{check_set, Checker};
//! use napjudge::position::Position;
//! use napjudge::variant::load_named;
//!
//! let board = load_named("standard")?;
//! let spring_1901 = Position::initial(&board);
//! let france = board.power_by_name("France").ok_or("no France")?;
//! let order = parse_line(&board, "A Paris - Burgundy")?;
//! let checker = Checker { variant: &board, position: Some(&spring_1901), power: Some(france) };
//! let valid = check_set(&checker, &[order]).remove(0)?;
//! let result = adjudicate(&board, &spring_1901, &[(france, valid)]);
//! assert!(result.outcomes[0].succeeded());
//! assert_eq!(board.phase_name(result.position.phase), "Fall 1901 Movement");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod adjudicate;
pub mod case;
pub mod mila;
pub mod order;
pub mod picture;
pub mod position;
pub mod turn;
pub mod validate;
pub mod variant;
pub mod winter;

// The judge: the only modules with I/O and a clock. They depend on the engine, never the reverse.
pub mod clock;
pub mod config;
pub mod game;
pub mod mail;
pub mod outbox;
pub mod render;
pub mod replay;
pub mod store;
