//! The canonical form of an order (`docs/orders.md`, first column).

use super::{Order, OrderKind, Place, Stage, UnitSpec};
use crate::variant::{write_spec, PowerId, Region, Variant};
use std::fmt::Write as _;

/// A place that can be printed.
pub trait PlaceName {
    /// How it is printed in canonical form, written onto `out`.
    fn write_name(&self, variant: &Variant, out: &mut String);

    /// How it is printed in canonical form.
    fn name(&self, variant: &Variant) -> String {
        let mut out = String::new();
        self.write_name(variant, &mut out);
        out
    }
}

impl PlaceName for Region {
    fn write_name(&self, variant: &Variant, out: &mut String) {
        // Codes throughout: a code that is also a shared name (`BAL`, the Baltic Sea; `Bal` may
        // be the Balkans) reads back as that space, since validation takes the meaning written
        // as its exact code when several fit ([`Variant::region_name`], written in place).
        out.push_str(&variant.province(self.province).code);
        if let Some(c) = self.coast {
            out.push('/');
            out.push_str(c.code());
        }
    }
}

impl PlaceName for Place {
    fn write_name(&self, variant: &Variant, out: &mut String) {
        match self {
            Place::Known(r) => r.write_name(variant, out),
            Place::Ambiguous { name, coast, .. } => {
                out.push_str(name);
                if let Some(c) = coast {
                    out.push('/');
                    out.push_str(c.code());
                }
            }
        }
    }
}

/// A unit as printed: `A(Par)`, `2A/F(Bre)`; a unit whose type was left out (no armies, no
/// fleets: `S Par-Pic`) as its bare place.
pub(super) fn unit_name<P: PlaceName>(unit: &UnitSpec<P>, variant: &Variant) -> String {
    let mut out = String::new();
    write_unit(unit, variant, &mut out);
    out
}

/// [`unit_name`] written onto `out`.
fn write_unit<P: PlaceName>(unit: &UnitSpec<P>, variant: &Variant, out: &mut String) {
    if unit.armies == 0 && unit.fleets == 0 {
        return unit.at.write_name(variant, out);
    }
    write_spec(out, unit.armies, unit.fleets);
    out.push('(');
    unit.at.write_name(variant, out);
    out.push(')');
}

fn power_name(power: PowerId, variant: &Variant) -> &str {
    &variant.power(power).name
}

impl<P: PlaceName> Order<P> {
    /// The canonical form of the order.
    pub fn display(&self, variant: &Variant) -> String {
        // One string written in place: every order of a phase report is printed (issue 35).
        let mut w = Canonical {
            v: variant,
            s: String::with_capacity(32),
        };
        if self.stage == Stage::Second {
            w.text("2: ");
        }
        match &self.kind {
            OrderKind::Hold { unit } => w.unit(unit).text(" H"),
            OrderKind::Move {
                unit,
                to,
                via_convoy,
                then,
            } => {
                w.unit(unit).text("-").place(to);
                if let Some(then) = then {
                    w.text("-").place(then);
                }
                if *via_convoy {
                    w.text(" via convoy");
                }
                &mut w
            }
            OrderKind::SupportHold { unit, supported } => w.unit(unit).text(" S ").unit(supported),
            OrderKind::SupportMove {
                unit,
                supported,
                to,
            } => w.unit(unit).text(" S ").unit(supported).text("-").place(to),
            OrderKind::SupportMerge { unit, target } => {
                w.unit(unit).text(" S MERGE(").place(target).text(")")
            }
            OrderKind::Convoy { unit, army, to } => {
                w.unit(unit).text(" C ").unit(army).text("-").place(to)
            }
            OrderKind::Merge {
                units,
                target,
                result,
            } => {
                for (k, unit) in units.iter().enumerate() {
                    if k > 0 {
                        w.text(" & ");
                    }
                    w.unit(unit);
                }
                w.text(" MERGE ");
                match result {
                    Some((a, f)) if *a > 0 || *f > 0 => {
                        write_spec(&mut w.s, *a, *f);
                        w.text("(").place(target).text(")")
                    }
                    _ => w.place(target),
                }
            }
            OrderKind::Embark { unit, sea } => w.unit(unit).text(" E ").place(sea),
            OrderKind::EmbarkWith {
                unit,
                fleet,
                to,
                then,
            } => {
                w.unit(unit).text(" E ").unit(fleet).text("-").place(to);
                if let Some(then) = then {
                    w.text("-").place(then);
                }
                &mut w
            }
            OrderKind::Disembark { unit, to } => w.unit(unit).text(" D ").place(to),
            OrderKind::Blockade { unit, centre } => w.unit(unit).text(" B ").place(centre),
            OrderKind::Deny { unit, from, to } => {
                w.unit(unit).text(" X ").place(from).text("-").place(to)
            }
            OrderKind::Retreat { unit, to } => w.unit(unit).text(" R ").place(to),
            OrderKind::Disband { unit } => w.unit(unit).text(" DISBAND"),
            OrderKind::Build { unit } => w.text("BUILD ").unit(unit),
            OrderKind::Remove { unit } => w.text("REMOVE ").unit(unit),
            OrderKind::Waive => w.text("WAIVE"),
            OrderKind::Bank { amount } => w.text("BANK ").number(*amount),
            OrderKind::Loan { amount, to } => w
                .text("LOAN ")
                .number(*amount)
                .text(" TO ")
                .text(power_name(*to, variant)),
            OrderKind::Renew { to } => w.text("RENEW ").text(power_name(*to, variant)),
            OrderKind::Convert { amount } => w.text("CONVERT ").number(*amount),
            OrderKind::Bid {
                amount,
                minor,
                on_behalf,
            } => {
                w.text("BID ")
                    .number(*amount)
                    .text(" ")
                    .text(power_name(*minor, variant));
                if let Some(p) = on_behalf {
                    w.text(" FOR ").text(power_name(*p, variant));
                }
                &mut w
            }
        };
        w.s
    }
}

/// A canonical form being written, part by part.
struct Canonical<'v> {
    v: &'v Variant,
    s: String,
}

impl Canonical<'_> {
    fn text(&mut self, text: &str) -> &mut Self {
        self.s.push_str(text);
        self
    }

    fn unit<P: PlaceName>(&mut self, unit: &UnitSpec<P>) -> &mut Self {
        write_unit(unit, self.v, &mut self.s);
        self
    }

    fn place<P: PlaceName>(&mut self, place: &P) -> &mut Self {
        place.write_name(self.v, &mut self.s);
        self
    }

    fn number(&mut self, n: u32) -> &mut Self {
        // Writing to a String cannot fail.
        let _ = write!(self.s, "{n}");
        self
    }
}

#[cfg(test)]
mod tests {
    use crate::variant::spec_text;

    #[test]
    fn spec_text_writes_counts_and_types() {
        assert_eq!(spec_text(1, 0), "A");
        assert_eq!(spec_text(2, 0), "2A");
        assert_eq!(spec_text(0, 1), "F");
        assert_eq!(spec_text(1, 3), "A/3F");
        assert_eq!(spec_text(2, 2), "2A/2F");
    }
}
