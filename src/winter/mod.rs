//! The Winter of the Napoleonic variant: supply points, influence points, bids for minor powers,
//! control of minors, victory (RULINGS §7).
//!
//! The sequence runs in [`crate::adjudicate::adjust`]: (a) autumn retreats happen before; (b) the
//! SP accounts ([`supply::open`]), builds and removals, then [`supply::close`]; (c)-(e) influence,
//! bids and control ([`influence::winter`]); then the victory check ([`victory::check`]). A Winter
//! `Bids` phase (Winter 1800) runs (c)-(e) only. [`control`] detects losses of control after every
//! phase and carries out the GM's commands.

pub mod control;
pub mod influence;
pub mod ledger;
pub mod supply;
pub mod victory;

pub use control::GmCommand;
pub use ledger::{Item, LedgerError, Ledgers};
