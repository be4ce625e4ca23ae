//! The canonical form of an order (`docs/orders.md`).

use super::{Order, Place};
use crate::variant::{Region, Variant};

/// A place that can be printed.
pub trait PlaceName {
    /// How it is printed in canonical form.
    fn name(&self, variant: &Variant) -> String;
}

impl PlaceName for Region {
    fn name(&self, variant: &Variant) -> String {
        variant.region_name(*self)
    }
}

impl PlaceName for Place {
    fn name(&self, variant: &Variant) -> String {
        match self {
            Place::Known(r) => r.name(variant),
            Place::Ambiguous { name, coast, .. } => match coast {
                Some(c) => format!("{name}/{}", c.code()),
                None => name.clone(),
            },
        }
    }
}

impl<P: PlaceName> Order<P> {
    /// The canonical form of the order.
    pub fn display(&self, variant: &Variant) -> String {
        let _ = variant;
        String::new()
    }
}
