//! A position written as a case's state blocks (`docs/case-format.md`), so that what
//! `napjudge adjudicate` prints after a phase can be fed back as the next case's position.

use napjudge_engine::position::{Force, Item, Position};
use napjudge_engine::turn::Retreats;
use napjudge_engine::variant::{PowerId, ProvinceId, Variant};
use std::fmt::Write;

/// `VARIANT`, `PHASE`, `STATE`, `DISLODGED` (each force's legal retreats in a comment),
/// `STANDOFFS`, `OWNERS` (every centre), `BLOCKADED` and `LEDGER` for `position`.
pub fn state_blocks(variant: &Variant, position: &Position, retreats: &[Retreats]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "VARIANT {}", variant.name);
    let _ = writeln!(out, "PHASE {}", variant.phase_name(position.phase));
    out.push_str("STATE\n");
    let forces: Vec<(ProvinceId, Force)> = position.forces().map(|(p, f)| (p, *f)).collect();
    out.push_str(&force_lines(variant, &forces));
    if !position.dislodged.is_empty() {
        out.push_str("DISLODGED\n");
        for d in &position.dislodged {
            let mut line = format!(
                "  {}: {}",
                variant.power(d.force.power).name,
                d.force.name(variant, d.province)
            );
            if !d.attacker_from.is_empty() {
                let convoy = if d.by_convoy { "convoy " } else { "" };
                let from: Vec<&str> = d
                    .attacker_from
                    .iter()
                    .map(|p| variant.province(p).code.as_str())
                    .collect();
                let _ = write!(line, " from {convoy}{}", from.join(" & "));
            }
            let to = retreats
                .iter()
                .find(|r| r.dislodged.province == d.province)
                .map(|r| {
                    r.to.iter()
                        .map(|&t| variant.region_name(t))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default();
            let to = if to.is_empty() {
                "none (disband)".to_string()
            } else {
                to.join(", ")
            };
            let _ = writeln!(out, "{line}   # may retreat to: {to}");
        }
    }
    let codes = |set: napjudge_engine::variant::ProvinceSet| {
        set.iter()
            .map(|p| variant.province(p).code.clone())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !position.standoffs.is_empty() {
        let _ = writeln!(out, "STANDOFFS: {}", codes(position.standoffs));
    }
    if !position.blockaded.is_empty() {
        let _ = writeln!(out, "BLOCKADED: {}", codes(position.blockaded));
    }
    out.push_str("OWNERS\n");
    out.push_str(&owner_lines(variant, &position.owners));
    let mut ledger = String::new();
    for power in variant.power_ids() {
        // What a `LEDGER` block takes: banks, loans, control; nothing that is the default.
        let items: Vec<String> = position
            .ledgers
            .items(variant, power)
            .into_iter()
            .filter(|i| match i {
                Item::Bank(n) => *n > 0,
                Item::Loan(..) | Item::Barred(_) => true,
                Item::Controller(c, _) => c.is_some(),
                _ => false,
            })
            .map(|i| i.text(variant))
            .collect();
        if !items.is_empty() {
            let _ = writeln!(
                ledger,
                "  {}: {}",
                variant.power(power).name,
                items.join("; ")
            );
        }
    }
    if !ledger.is_empty() {
        out.push_str("LEDGER\n");
        out.push_str(&ledger);
    }
    out
}

/// `  England: F(NTH), A(Yor)` lines, one a power with forces, in the variant's power order (a
/// `STATE` block's, or a game record's `POSTSTATE`).
pub fn force_lines(variant: &Variant, forces: &[(ProvinceId, Force)]) -> String {
    let mut out = String::new();
    for power in variant.power_ids() {
        let units: Vec<String> = forces
            .iter()
            .filter(|(_, f)| f.power == power)
            .map(|(p, f)| f.name(variant, *p))
            .collect();
        if !units.is_empty() {
            let _ = writeln!(out, "  {}: {}", variant.power(power).name, units.join(", "));
        }
    }
    out
}

/// `  France: Bre, Mar` lines for every centre, by owner (`none:` for the unowned), from the
/// owners indexed by province (an `OWNERS` block's, or a game record's `POSTOWNERS`).
pub fn owner_lines(variant: &Variant, owners: &[Option<PowerId>]) -> String {
    let mut out = String::new();
    let all = variant.power_ids().map(Some).chain(std::iter::once(None));
    for owner in all {
        let centres: Vec<&str> = variant
            .centres()
            .iter()
            .filter(|p| owners.get(p.index()).copied().flatten() == owner)
            .map(|p| variant.province(p).code.as_str())
            .collect();
        if !centres.is_empty() {
            let name = owner.map_or("none", |o| variant.power(o).name.as_str());
            let _ = writeln!(out, "  {name}: {}", centres.join(", "));
        }
    }
    out
}
