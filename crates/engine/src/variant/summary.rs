//! A plain-text description of a board, for `napjudge variant show NAME`.

use super::{ProvinceId, Region, SpaceKind, Variant};
use std::fmt::Write;

/// Describes a variant for a GM: title, rules, start, victory, spaces, centres, build sites,
/// passages, coasts and starting units.
pub fn summary(v: &Variant) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail; the results are ignored for that reason.
    let _ = write_summary(v, &mut out);
    out
}

/// The codes of `ids`, wrapped so that no line is much wider than 100 columns; continuation
/// lines are indented by `indent` columns to sit under the first code.
fn codes(v: &Variant, ids: impl Iterator<Item = ProvinceId>, indent: usize) -> String {
    let names: Vec<String> = ids.map(|p| v.province(p).code.clone()).collect();
    if names.is_empty() {
        return "-".to_string();
    }
    wrap(&names, indent)
}

fn write_summary(v: &Variant, out: &mut String) -> std::fmt::Result {
    writeln!(out, "{} ({})", v.title, v.name)?;
    writeln!(out)?;

    let r = &v.rules;
    let mut on: Vec<String> = super::SWITCHES
        .iter()
        .filter(|s| s.is_on(r))
        .map(|s| s.name.to_string())
        .collect();
    if let Some(p) = r.extra_unit {
        on.push(format!("extra-unit {}", v.power(p).name));
    }
    let rules = if on.is_empty() {
        "none (the standard rules)".to_string()
    } else {
        on.join(", ")
    };
    writeln!(out, "Rules:    {rules}")?;
    writeln!(out, "Seasons:  {}", v.season_names.join(", "))?;
    writeln!(out, "Start:    {}", v.phase_name(v.start))?;
    write!(out, "Victory:  {} centres", v.victory)?;
    for &(p, n) in &v.victory_overrides {
        write!(out, "; {} {n}", v.power(p).name)?;
    }
    writeln!(out)?;
    writeln!(out)?;

    writeln!(out, "Powers:")?;
    for p in v.power_ids() {
        let power = v.power(p);
        let kind = match power.kind {
            super::PowerKind::Major => "major",
            super::PowerKind::Minor => "minor",
        };
        let aliases = if power.aliases.is_empty() {
            String::new()
        } else {
            format!(" (also {})", power.aliases.join(", "))
        };
        writeln!(out, "  {:<12} {kind}{aliases}", power.name)?;
    }
    writeln!(out)?;

    writeln!(out, "Spaces: {}", v.provinces.len())?;
    for (kind, label) in [
        (SpaceKind::Land, "inland"),
        (SpaceKind::Coast, "coastal"),
        (SpaceKind::Sea, "sea"),
    ] {
        let ids: Vec<ProvinceId> = v
            .province_ids()
            .filter(|&p| v.province(p).kind == kind)
            .collect();
        writeln!(
            out,
            "  {label:<8} {:>3}: {}",
            ids.len(),
            codes(v, ids.iter().copied(), 16)
        )?;
    }
    writeln!(out)?;

    let centres = v.centres();
    writeln!(out, "Centres: {}", centres.len())?;
    for p in v.power_ids() {
        let homes = v.homes(p);
        if !homes.is_empty() {
            writeln!(
                out,
                "  {:<12} {:>2}: {}",
                v.power(p).name,
                homes.len(),
                codes(v, homes.iter(), 19)
            )?;
        }
    }
    let neutral: Vec<ProvinceId> = centres
        .iter()
        .filter(|&p| v.province(p).home.is_none())
        .collect();
    writeln!(
        out,
        "  {:<12} {:>2}: {}",
        "neutral",
        neutral.len(),
        codes(v, neutral.iter().copied(), 19)
    )?;
    writeln!(out)?;

    if v.build_sites.is_empty() {
        writeln!(out, "Build sites (not centres): none")?;
    } else {
        writeln!(out, "Build sites (not centres):")?;
        for b in &v.build_sites {
            let kinds: Vec<&str> = [(b.army, "army"), (b.fleet, "fleet")]
                .iter()
                .filter(|(ok, _)| *ok)
                .map(|(_, k)| *k)
                .collect();
            writeln!(
                out,
                "  {:<5} {} ({})",
                v.province(b.province).code,
                v.power(b.power).name,
                kinds.join(", ")
            )?;
        }
    }
    writeln!(out)?;

    if v.passages.is_empty() {
        writeln!(out, "Direct passages: none")?;
    } else {
        writeln!(out, "Direct passages:")?;
        for p in &v.passages {
            writeln!(
                out,
                "  {} - {} across {}",
                v.province(p.a).code,
                v.province(p.b).code,
                v.province(p.sea).code
            )?;
        }
    }
    writeln!(out)?;

    let multi: Vec<String> = v
        .provinces
        .iter()
        .filter(|p| !p.coasts.is_empty())
        .map(|p| {
            let coasts: Vec<&str> = p.coasts.iter().map(|c| c.code()).collect();
            format!("{} ({})", p.code, coasts.join(" "))
        })
        .collect();
    let multi = if multi.is_empty() {
        "none".to_string()
    } else {
        multi.join(", ")
    };
    writeln!(out, "Multi-coast provinces: {multi}")?;
    writeln!(out)?;

    writeln!(out, "Starting units: {}", v.start_units.len())?;
    for p in v.power_ids() {
        let units: Vec<String> = v
            .start_units
            .iter()
            .filter(|u| u.power == p)
            .map(|u| format!("{} {}", u.unit.letter(), v.region_name(u.region)))
            .collect();
        if !units.is_empty() {
            writeln!(
                out,
                "  {:<12} {:>2}: {}",
                v.power(p).name,
                units.len(),
                units.join(", ")
            )?;
        }
    }
    writeln!(out)?;
    writeln!(out, "Total centres: {}", centres.len())?;
    writeln!(out)?;
    write_spaces(v, out)
}

/// Every space: code, full name, kind, coasts, and where armies and fleets go from it, so a
/// player can learn what a code means on this board (`BOT` is the Bay of Tunis here).
fn write_spaces(v: &Variant, out: &mut String) -> std::fmt::Result {
    writeln!(
        out,
        "Space list (code, name, kind; where armies and fleets go from it):"
    )?;
    for p in v.province_ids() {
        let province = v.province(p);
        let kind = match province.kind {
            SpaceKind::Land => "inland",
            SpaceKind::Coast => "coastal",
            SpaceKind::Sea => "sea",
        };
        let mut facts = vec![kind.to_string()];
        if province.centre {
            facts.push(match province.home {
                Some(h) => format!("{} home centre", v.power(h).name),
                None => "centre".to_string(),
            });
        }
        if !province.coasts.is_empty() {
            let coasts: Vec<&str> = province.coasts.iter().map(|c| c.code()).collect();
            facts.push(format!("coasts {}", coasts.join(" ")));
        }
        writeln!(
            out,
            "  {:<5} {} ({})",
            province.code,
            province.name,
            facts.join(", ")
        )?;
        if province.kind != SpaceKind::Sea {
            let armies = v.province_ids().filter(|&q| v.army_adjacent(p, q));
            writeln!(out, "        army:  {}", codes(v, armies, 15))?;
        }
        let mut regions = vec![Region::of(p)];
        regions.extend(province.coasts.iter().map(|&c| Region {
            province: p,
            coast: Some(c),
        }));
        for r in regions {
            let moves: Vec<String> = v.fleet_moves(r).map(|to| v.region_name(to)).collect();
            if moves.is_empty() {
                continue;
            }
            let label = match r.coast {
                Some(c) => format!("fleet/{}:", c.code()),
                None => "fleet:".to_string(),
            };
            writeln!(out, "        {label:<7}{}", wrap(&moves, 15))?;
        }
    }
    Ok(())
}

/// Names joined by blanks, wrapped like [`codes`].
fn wrap(names: &[String], indent: usize) -> String {
    let mut out = String::new();
    let mut width = indent;
    for name in names {
        if !out.is_empty() {
            if width + 1 + name.len() > 100 {
                out.push('\n');
                out.push_str(&" ".repeat(indent));
                width = indent;
            } else {
                out.push(' ');
                width += 1;
            }
        }
        out.push_str(name);
        width += name.len();
    }
    out
}
