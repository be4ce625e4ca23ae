//! The acknowledgement's warnings ([`napjudge_engine::advice`]) and the Winter's budget in words.

use napjudge_engine::advice::{Budget, Ip, Units, Warning};
use napjudge_engine::outcome::Describe;
use napjudge_engine::position::Force;
use napjudge_engine::turn::Fate;
use napjudge_engine::variant::{ProvinceId, UnitType, Variant};

use super::plural;

fn code(v: &Variant, p: ProvinceId) -> &str {
    &v.province(p).code
}

/// A warning about one line, as the acknowledgement prints it after `WARNING: `. `order_at` gives
/// the canonical order of a line of the same text (the order a supported unit was given).
pub(crate) fn line(v: &Variant, w: &Warning, order_at: &dyn Fn(usize) -> Option<String>) -> String {
    let given = |at: ProvinceId, ordered: Option<usize>| match ordered.and_then(order_at) {
        Some(o) => format!("your unit in {} is ordered {o}", code(v, at)),
        None => format!("your unit in {} has no order and holds", code(v, at)),
    };
    match w {
        Warning::NeedsConvoy { to } => format!(
            "the move to {} needs a convoy, and no fleet of yours is ordered to convoy it: it \
             is void unless another power's fleets convoy it",
            code(v, *to)
        ),
        Warning::IntoOwnHeld { to, merge } => {
            let mut s = format!(
                "your own unit in {} stays there, so this move bounces",
                code(v, *to)
            );
            if let Some(m) = merge {
                s.push_str(&format!(": did you mean {}?", m.display(v)));
            }
            s
        }
        Warning::SupportNotGiven { at, ordered } => format!(
            "{}, not what this support names: the support will be void",
            given(*at, *ordered)
        ),
        Warning::ConvoyNotUsed { at, ordered } => format!(
            "{}, not the move this convoy names: the convoy will be void",
            given(*at, *ordered)
        ),
        Warning::NoMergeToSupport { target } => format!(
            "no merge of yours into {} is ordered: the support is void unless another power \
             merges there",
            code(v, *target)
        ),
        Warning::NoFirstMove { at } => format!(
            "no fleet of yours is ordered into {0} (or holds there) to move again after the \
             first moves: this second-phase order will be void (R4.3)",
            code(v, *at)
        ),
        Warning::Alone(outcome) => {
            format!("played now with your orders alone: {}", outcome.shown(v))
        }
        other => set(v, other).unwrap_or_default(),
    }
}

fn unit_name(v: &Variant, at: ProvinceId, unit: UnitType) -> String {
    let letter = match unit {
        UnitType::Army => "A",
        UnitType::Fleet => "F",
    };
    format!("{letter}({})", code(v, at))
}

fn forces(v: &Variant, list: &[(ProvinceId, Force)]) -> String {
    list.iter()
        .map(|(at, f)| f.name(v, *at))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The warnings about the whole set (no line), one sentence each: the units with no order are
/// gathered into one sentence per fate.
pub(crate) fn notes(v: &Variant, warnings: &[&Warning]) -> Vec<String> {
    let mut out = Vec::new();
    for fate in [Fate::Holds, Fate::Disbands] {
        let list: Vec<(ProvinceId, Force)> = warnings
            .iter()
            .filter_map(|w| match w {
                Warning::Unordered(u) if u.fate == fate => Some((u.at, u.force)),
                _ => None,
            })
            .collect();
        if !list.is_empty() {
            let what = match fate {
                Fate::Holds => "they hold",
                Fate::Disbands => "they disband",
            };
            out.push(format!("No order ({what}): {}.", forces(v, &list)));
        }
    }
    out.extend(
        warnings
            .iter()
            .filter(|w| !matches!(w, Warning::Unordered(_)))
            .filter_map(|w| set(v, w)),
    );
    out
}

fn set(v: &Variant, w: &Warning) -> Option<String> {
    Some(match w {
        Warning::BuildsUnused(n) => format!(
            "WARNING: {} not ordered: no unit is built for {} (BUILD, or WAIVE to say so).",
            plural(*n, "build", "builds"),
            if *n == 1 { "it" } else { "them" }
        ),
        Warning::CivilDisorder(units) => {
            let names: Vec<String> = units.iter().map(|(at, u)| unit_name(v, *at, *u)).collect();
            format!(
                "WARNING: {} due and not ordered: civil disorder would remove {} (REMOVE the \
                 units you choose).",
                plural(names.len() as i64, "removal", "removals"),
                names.join(", ")
            )
        }
        _ => return None,
    })
}

/// A power's Winter budget, a line for its units and one for its IP: `Budget: 18 SP now (income,
/// bank and loans); upkeep 15 SP for 5 units; 3 SP left: 1 build available.` and `IP budget: ...`.
pub(crate) fn budget(v: &Variant, b: &Budget) -> Vec<String> {
    let mut out: Vec<String> = b
        .units
        .iter()
        .map(|u| format!("Budget: {}", unit_figures(u)))
        .collect();
    out.extend(
        b.ip.as_ref()
            .map(|ip| format!("IP budget: {}", ip_figures(v, ip))),
    );
    out
}

/// The budget's figures alone, a line each (`18 SP now ...`, `IP: 12 this Winter ...`), for a
/// list that names the power.
pub(crate) fn budget_figures(v: &Variant, b: &Budget) -> Vec<String> {
    let mut out: Vec<String> = b.units.iter().map(unit_figures).collect();
    out.extend(b.ip.as_ref().map(|ip| format!("IP: {}", ip_figures(v, ip))));
    out
}

fn unit_figures(b: &Units) -> String {
    let units = plural(b.count, "unit", "units");
    let builds = match b.builds {
        n if n > 0 => format!("{} available", plural(n, "build", "builds")),
        0 => "no builds available, no removals due".to_string(),
        n => format!("{} due", plural(-n, "removal", "removals")),
    };
    match (b.sp, b.left()) {
        (Some(sp), Some(left)) => {
            let left = if left >= 0 {
                format!("{left} SP left")
            } else {
                format!("{} SP short", -left)
            };
            format!(
                "{sp} SP now (income, bank and loans); upkeep {} SP for {units}; {left}: \
                 {builds}.",
                b.upkeep
            )
        }
        _ => format!("{units} on the board; {builds}."),
    }
}

/// `14 this Winter (3 per centre, 2 per minor controlled, 2 per SP converted; 1 SP converted);
/// 6 bid; 8 left; automatic IP 3 for Denmark, added to your total there.`
fn ip_figures(v: &Variant, ip: &Ip) -> String {
    let mut s = format!(
        "{} this Winter (3 per centre, 2 per minor controlled, 2 per SP converted; {} SP \
         converted); {} bid; {} left",
        ip.received,
        ip.converted,
        ip.spent,
        ip.left(),
    );
    for (minor, n) in &ip.automatic {
        s.push_str(&format!(
            "; automatic IP {n} for {}, added to your total there",
            v.power(*minor).name
        ));
    }
    s.push('.');
    s
}
