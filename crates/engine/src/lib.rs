//! The napjudge engine: the rules of the Napoleonic Wars variant (and the standard game), with no
//! I/O, no clock and no mail. The judge calls it through one entry point per phase, [`turn::play`].
//!
//! The modules follow the data's path: a [`variant`] is the board, [`order`] parses what a player
//! writes, [`validate`] checks it against a [`position`], [`adjudicate`] decides a phase, [`turn`]
//! plays one phase from each power's order text (the one call the judge, the CLI and the case runner make).
//!
//! From a board and a line a player wrote to an outcome:
//!
//! ```
//! use napjudge_engine::adjudicate::adjudicate;
//! use napjudge_engine::order::parse_line;
//! use napjudge_engine::validate::{check_set, Checker};
//! use napjudge_engine::position::Position;
//! use napjudge_engine::variant::load_named;
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
pub mod order;
pub mod outcome;
pub mod position;
pub mod turn;
pub mod validate;
pub mod variant;
pub mod winter;
