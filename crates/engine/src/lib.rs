//! The napjudge engine: the rules of the Napoleonic Wars variant (and the standard game), with no
//! I/O, no clock and no mail. The judge calls it through one entry point per phase, [`play`].
//!
//! The modules follow the data's path, each using only those before it (checked by
//! `tests/module_graph.rs`): a [`variant`] is the board and its rules; [`outcome`] is what
//! happened (outcomes with their reasons, and events), the leaf the later modules share; [`order`]
//! parses what a player writes; a [`position`] is the state of a game (with its Winter ledgers);
//! [`validate`] checks an order against a position; [`winter`] and [`adjudicate`](mod@adjudicate) decide a phase,
//! each step returning its events; [`turn`] plays one phase from each power's order text (the one
//! call the judge, the CLI and the case runner make).
//!
//! The types a user of the engine needs are also here at the root. A phase from each power's
//! text to its report:
//!
//! ```
//! use napjudge_engine::{load_named, play, Describe, Position, Sheets};
//!
//! let board = load_named("standard")?;
//! let spring_1901 = Position::initial(&board);
//! let france = board.power_by_name("France").ok_or("no France")?;
//! let mut sheets = Sheets::default();
//! sheets.orders.insert(france, "A Paris - Burgundy".to_string());
//! let report = play(&board, &spring_1901, &sheets)?;
//! let moved = report.powers[0].orders[0].result.as_ref().map_err(|e| e.to_string())?;
//! assert_eq!(moved.shown(&board).to_string(), "succeeds");
//! assert_eq!(board.phase_name(report.next.phase), "Fall 1901 Movement");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! From a board and a line a player wrote to an outcome, step by step:
//!
//! ```
//! use napjudge_engine::{adjudicate, check_set, load_named, parse_line, Checker, Position};
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
pub mod advice;
pub mod order;
pub mod outcome;
pub mod position;
pub mod turn;
pub mod validate;
pub mod variant;
pub mod winter;

pub use adjudicate::{adjudicate, Adjudication};
pub use order::{parse_line, parse_mail, Order, OrderKind, ParseError, Place, UnitSpec};
pub use outcome::{Describe, Event, LossCause, Outcome, Reason, Refusal, Void, WinterEvent};
pub use position::{Dislodged, Force, Item, LedgerError, Ledgers, Position};
pub use turn::{check, play, CheckedOrder, OrderError, PhaseReport, Sheets, TurnError};
pub use validate::{check_set, Checker, ValidationError};
pub use variant::{
    load, load_named, Edition, LoadError, OptionError, Phase, PhaseKind, PowerId, ProvinceId,
    Region, RuleOption, Variant,
};
pub use winter::GmCommand;
