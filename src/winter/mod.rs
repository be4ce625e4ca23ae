//! The Winter of the Napoleonic variant: supply points, influence points, bids for minor powers,
//! control of minors, victory (RULINGS §7).

use crate::variant::PowerId;

/// Every power's Winter accounts and the control of the minor powers: part of the position, so
/// that a case file and a result mail can show it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ledgers {}

impl Ledgers {
    /// The major that controls `minor` now, if any.
    pub fn controller(&self, minor: PowerId) -> Option<PowerId> {
        let _ = minor;
        None
    }
}
