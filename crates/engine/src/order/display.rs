//! The canonical form of an order (`docs/orders.md`, first column).

use super::{Order, OrderKind, Place, Stage, UnitSpec};
use crate::variant::{spec_text, PowerId, Region, Variant};

/// A place that can be printed.
pub trait PlaceName {
    /// How it is printed in canonical form.
    fn name(&self, variant: &Variant) -> String;
}

impl PlaceName for Region {
    fn name(&self, variant: &Variant) -> String {
        // Codes throughout: a code that is also a shared name (`BAL`, the Baltic Sea; `Bal` may
        // be the Balkans) reads back as that space, since validation takes the meaning written
        // as its exact code when several fit.
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

/// A unit as printed: `A(Par)`, `2A/F(Bre)`; a unit whose type was left out (no armies, no
/// fleets: `S Par-Pic`) as its bare place.
pub(super) fn unit_name<P: PlaceName>(unit: &UnitSpec<P>, variant: &Variant) -> String {
    let at = unit.at.name(variant);
    if unit.armies == 0 && unit.fleets == 0 {
        return at;
    }
    // Written onto the counts' string: every order's canonical form prints its units.
    let mut name = spec_text(unit.armies, unit.fleets);
    name.push('(');
    name.push_str(&at);
    name.push(')');
    name
}

fn power_name(power: PowerId, variant: &Variant) -> &str {
    &variant.power(power).name
}

impl<P: PlaceName> Order<P> {
    /// The canonical form of the order.
    pub fn display(&self, variant: &Variant) -> String {
        let v = variant;
        let u = |unit: &UnitSpec<P>| unit_name(unit, v);
        let n = |place: &P| place.name(v);
        let body = match &self.kind {
            OrderKind::Hold { unit } => format!("{} H", u(unit)),
            OrderKind::Move {
                unit,
                to,
                via_convoy,
                then,
            } => {
                let mut s = format!("{}-{}", u(unit), n(to));
                if let Some(then) = then {
                    s.push('-');
                    s.push_str(&n(then));
                }
                if *via_convoy {
                    s.push_str(" via convoy");
                }
                s
            }
            OrderKind::SupportHold { unit, supported } => {
                format!("{} S {}", u(unit), u(supported))
            }
            OrderKind::SupportMove {
                unit,
                supported,
                to,
            } => format!("{} S {}-{}", u(unit), u(supported), n(to)),
            OrderKind::SupportMerge { unit, target } => {
                format!("{} S MERGE({})", u(unit), n(target))
            }
            OrderKind::Convoy { unit, army, to } => {
                format!("{} C {}-{}", u(unit), u(army), n(to))
            }
            OrderKind::Merge {
                units,
                target,
                result,
            } => {
                let units: Vec<String> = units.iter().map(u).collect();
                let target = match result {
                    Some((a, f)) if *a > 0 || *f > 0 => {
                        format!("{}({})", spec_text(*a, *f), n(target))
                    }
                    _ => n(target),
                };
                format!("{} MERGE {target}", units.join(" & "))
            }
            OrderKind::Embark { unit, sea } => format!("{} E {}", u(unit), n(sea)),
            OrderKind::EmbarkWith {
                unit,
                fleet,
                to,
                then,
            } => {
                let then = then
                    .as_ref()
                    .map_or(String::new(), |t| format!("-{}", n(t)));
                format!("{} E {}-{}{then}", u(unit), u(fleet), n(to))
            }
            OrderKind::Disembark { unit, to } => format!("{} D {}", u(unit), n(to)),
            OrderKind::Blockade { unit, centre } => format!("{} B {}", u(unit), n(centre)),
            OrderKind::Deny { unit, from, to } => format!("{} X {}-{}", u(unit), n(from), n(to)),
            OrderKind::Retreat { unit, to } => format!("{} R {}", u(unit), n(to)),
            OrderKind::Disband { unit } => format!("{} DISBAND", u(unit)),
            OrderKind::Build { unit } => format!("BUILD {}", u(unit)),
            OrderKind::Remove { unit } => format!("REMOVE {}", u(unit)),
            OrderKind::Waive => "WAIVE".to_string(),
            OrderKind::Bank { amount } => format!("BANK {amount}"),
            OrderKind::Loan { amount, to } => format!("LOAN {amount} TO {}", power_name(*to, v)),
            OrderKind::Renew { to } => format!("RENEW {}", power_name(*to, v)),
            OrderKind::Convert { amount } => format!("CONVERT {amount}"),
            OrderKind::Bid {
                amount,
                minor,
                on_behalf,
            } => {
                let mut s = format!("BID {amount} {}", power_name(*minor, v));
                if let Some(p) = on_behalf {
                    s.push_str(" FOR ");
                    s.push_str(power_name(*p, v));
                }
                s
            }
        };
        match self.stage {
            Stage::First => body,
            Stage::Second => format!("2: {body}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_text_writes_counts_and_types() {
        assert_eq!(spec_text(1, 0), "A");
        assert_eq!(spec_text(2, 0), "2A");
        assert_eq!(spec_text(0, 1), "F");
        assert_eq!(spec_text(1, 3), "A/3F");
        assert_eq!(spec_text(2, 2), "2A/2F");
    }
}
