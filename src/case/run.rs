//! Playing a case against its variant: building the position, validating and adjudicating each
//! `ORDERS` block, and comparing what came out with what the case expects.

use super::file::{Case, Line};
use crate::adjudicate::{self, Outcome};
use crate::order::{parse_line, parse_place, parse_unit, Order, Place};
use crate::position::{Dislodged, Force, Position};
use crate::validate::{check_set, Checker};
use crate::variant::{self, PowerId, ProvinceId, Region, Variant};
use crate::winter::{GmCommand, Item};
use std::collections::HashMap;

/// Variants loaded so far, by name.
#[derive(Default)]
pub struct Variants(HashMap<String, Variant>);

impl Variants {
    /// The variant called `name`, loading it the first time.
    pub fn get(&mut self, name: &str) -> Result<&Variant, String> {
        if !self.0.contains_key(name) {
            let v = variant::load_named(name).map_err(|e| e.to_string())?;
            self.0.insert(name.to_string(), v);
        }
        self.0
            .get(name)
            .ok_or_else(|| format!("variant {name} could not be kept"))
    }
}

/// One order of a played step: who gave it, its canonical form and its outcome.
pub struct PlayedOrder {
    /// The power that gave it.
    pub power: PowerId,
    /// The order as parsed (for matching `RESULTS` lines).
    pub parsed: Order<Place>,
    /// The canonical form.
    pub text: String,
    /// What happened.
    pub outcome: Outcome,
}

/// A phase of a case, played.
pub struct PlayedStep {
    /// The position before the phase.
    pub before: Position,
    /// Its orders with their outcomes.
    pub orders: Vec<PlayedOrder>,
    /// The orders that passed validation, as the adjudicator got them.
    pub valid: Vec<(PowerId, Order<Region>)>,
    /// Second-phase orders decided while finishing this phase (R4), with their outcomes.
    pub second: Vec<PlayedOrder>,
    /// The position after it (in the next phase).
    pub after: Position,
}

/// The result of checking one case.
pub struct CaseReport {
    /// Where the case is: `FILE:LINE`.
    pub place: String,
    /// The case's id and title.
    pub name: String,
    /// Every difference from what the case expects; empty when it passed.
    pub failures: Vec<String>,
}

/// The variant with the case's `OPTIONS` applied: each names a rule switch, `on` or `off`
/// (`starvation=off`, `rule12=on`).
pub fn with_options(variant: &Variant, case: &Case) -> Result<Variant, String> {
    let mut v = variant.clone();
    for (key, value) in &case.options {
        let on = match value.to_ascii_lowercase().as_str() {
            "on" | "yes" | "true" => true,
            "off" | "no" | "false" => false,
            other => return Err(format!("option {key}: '{other}' is not on or off")),
        };
        let switch = v.rules.switch(key).ok_or_else(|| {
            format!("unknown option '{key}' (a rule switch: starvation, rule12, ...)")
        })?;
        *switch = on;
    }
    Ok(v)
}

/// Plays every step of a case.
pub fn play(case: &Case, variant: &Variant) -> Result<Vec<PlayedStep>, String> {
    let mut position = initial_position(case, variant)?;
    let mut steps = Vec::new();
    for step in &case.steps {
        let mut parsed: Vec<(PowerId, Order<Place>)> = Vec::new();
        for l in &step.orders {
            if let Some(command) = gm_command(l) {
                // The GM acts before the phase is processed (R7.8).
                GmCommand::parse(variant, command)
                    .and_then(|c| c.apply(variant, &mut position))
                    .map_err(|e| at(l, e.to_string()))?;
                continue;
            }
            let (power, text) = split_power(variant, l)?;
            let order = parse_line(variant, text).map_err(|e| at(l, e.to_string()))?;
            parsed.push((
                power.ok_or_else(|| at(l, "orders need a power".into()))?,
                order,
            ));
        }
        // Validation per power, so that R1.4 counts each power's orders together.
        let mut checked: Vec<Option<Result<Order<Region>, String>>> = vec![None; parsed.len()];
        for power in variant.power_ids() {
            let idx: Vec<usize> = (0..parsed.len())
                .filter(|&i| parsed[i].0 == power)
                .collect();
            if idx.is_empty() {
                continue;
            }
            let orders: Vec<Order<Place>> = idx.iter().map(|&i| parsed[i].1.clone()).collect();
            let checker = Checker {
                variant,
                position: Some(&position),
                power: Some(power),
            };
            for (&i, r) in idx.iter().zip(check_set(&checker, &orders)) {
                checked[i] = Some(r.map_err(|e| e.to_string()));
            }
        }
        let valid: Vec<(PowerId, Order<Region>)> = parsed
            .iter()
            .zip(&checked)
            .filter_map(|((p, _), c)| match c {
                Some(Ok(o)) => Some((*p, o.clone())),
                _ => None,
            })
            .collect();
        let result = adjudicate::adjudicate(variant, &position, &valid);
        let mut outcomes = result.outcomes.into_iter();
        let orders = parsed
            .into_iter()
            .zip(checked)
            .map(|((power, order), c)| {
                let outcome = match c {
                    Some(Ok(_)) => outcomes
                        .next()
                        .unwrap_or_else(|| Outcome::Void("lost".into())),
                    Some(Err(why)) => Outcome::Void(why),
                    None => Outcome::Void("not checked".into()),
                };
                PlayedOrder {
                    power,
                    text: order.display(variant),
                    parsed: order,
                    outcome,
                }
            })
            .collect();
        let second = result
            .second
            .iter()
            .map(|(power, order, outcome)| {
                let parsed = order.map(&|r: &Region| Place::Known(*r));
                PlayedOrder {
                    power: *power,
                    text: parsed.display(variant),
                    parsed,
                    outcome: outcome.clone(),
                }
            })
            .collect();
        steps.push(PlayedStep {
            before: position,
            orders,
            second,
            valid,
            after: result.position.clone(),
        });
        position = result.position;
    }
    Ok(steps)
}

/// Plays a case and compares every expectation.
pub fn check(case: &Case, variants: &mut Variants) -> CaseReport {
    let mut report = CaseReport {
        place: format!("{}:{}", case.file, case.line),
        name: format!("{} {}", case.id, case.title).trim().to_string(),
        failures: Vec::new(),
    };
    let variant = match variants.get(&case.variant) {
        Ok(v) => v,
        Err(e) => {
            report.failures.push(e);
            return report;
        }
    };
    let variant = match with_options(variant, case) {
        Ok(v) => v,
        Err(e) => {
            report.failures.push(e);
            return report;
        }
    };
    let variant = &variant;
    let steps = match play(case, variant) {
        Ok(s) => s,
        Err(e) => {
            report.failures.push(e);
            return report;
        }
    };
    for (n, (step, played)) in case.steps.iter().zip(&steps).enumerate() {
        let f = &mut report.failures;
        let label = format!(
            "phase {} ({})",
            n + 1,
            variant.phase_name(played.before.phase)
        );
        if let Err(e) = check_results(variant, &step.results, played, &label, f) {
            f.push(e);
        }
        let pos = &played.after;
        if let Some(lines) = &step.poststate {
            match read_forces(variant, lines) {
                Ok(expected) => {
                    let actual: Vec<(ProvinceId, Force)> =
                        pos.forces().map(|(p, f)| (p, *f)).collect();
                    compare(variant, f, &label, "POSTSTATE", &expected, &actual);
                }
                Err(e) => f.push(e),
            }
        }
        if let Some(lines) = &step.postdislodged {
            match read_dislodged(variant, lines) {
                Ok(expected) => {
                    let strip = |d: &Dislodged| (d.province, d.force);
                    let exp: Vec<(ProvinceId, Force)> = expected.iter().map(strip).collect();
                    let act: Vec<(ProvinceId, Force)> = pos.dislodged.iter().map(strip).collect();
                    compare(variant, f, &label, "POSTDISLODGED", &exp, &act);
                    for d in expected.iter().filter(|d| d.attacker_from.is_some()) {
                        let same = pos.dislodged.iter().any(|a| {
                            a.province == d.province && a.attacker_from == d.attacker_from
                        });
                        if !same {
                            f.push(format!(
                                "{label}: POSTDISLODGED: {} was not dislodged from {}",
                                d.force.name(variant, d.province),
                                d.attacker_from
                                    .map_or("?".into(), |p| variant.province(p).code.clone())
                            ));
                        }
                    }
                }
                Err(e) => f.push(e),
            }
        }
        if let Some(lines) = &step.postowners {
            match read_owners(variant, lines) {
                Ok(owners) => {
                    for (p, owner) in owners {
                        let actual = pos.owners[p.index()];
                        if actual != owner {
                            let name = |o: Option<PowerId>| {
                                o.map_or("nobody".to_string(), |o| variant.power(o).name.clone())
                            };
                            f.push(format!(
                                "{label}: POSTOWNERS: {} expected {}, got {}",
                                variant.province(p).code,
                                name(owner),
                                name(actual)
                            ));
                        }
                    }
                }
                Err(e) => f.push(e),
            }
        }
        if let Some(lines) = &step.postledger {
            if let Err(e) = check_ledger(variant, lines, pos, &label, f) {
                f.push(e);
            }
        }
        if let Some(l) = &step.postwinners {
            match read_powers(variant, l) {
                Ok(expected) if expected == pos.ledgers.winners => {}
                Ok(_) => {
                    let names = |ps: &[PowerId]| {
                        let v: Vec<&str> =
                            ps.iter().map(|p| variant.power(*p).name.as_str()).collect();
                        if v.is_empty() {
                            "none".to_string()
                        } else {
                            v.join(", ")
                        }
                    };
                    f.push(format!(
                        "{label}: POSTWINNERS expected {}, got {}",
                        l.text,
                        names(&pos.ledgers.winners)
                    ));
                }
                Err(e) => f.push(e),
            }
        }
        if let Some(l) = &step.postphase {
            match variant.parse_phase(&l.text) {
                Some(ph) if ph == pos.phase => {}
                Some(_) => f.push(format!(
                    "{label}: POSTPHASE expected {}, got {}",
                    l.text,
                    variant.phase_name(pos.phase)
                )),
                None => f.push(at(l, format!("'{}' is not a phase", l.text))),
            }
        }
    }
    report
}

fn check_results(
    variant: &Variant,
    lines: &[Line],
    played: &PlayedStep,
    label: &str,
    failures: &mut Vec<String>,
) -> Result<(), String> {
    // Identical orders match RESULTS lines in turn; second-phase outcomes are looked at first.
    let all: Vec<&PlayedOrder> = played.second.iter().chain(&played.orders).collect();
    let mut used = vec![false; all.len()];
    for l in lines {
        let (left, word) = l.text.rsplit_once("=>").ok_or_else(|| {
            at(
                l,
                "a RESULTS line is 'POWER: ORDER => succeeds|fails|void'".into(),
            )
        })?;
        let left = Line {
            number: l.number,
            text: left.trim().to_string(),
        };
        let (power, text) = split_power(variant, &left)?;
        let order = parse_line(variant, text).map_err(|e| at(l, e.to_string()))?;
        let Some(k) = (0..all.len())
            .find(|&k| !used[k] && Some(all[k].power) == power && all[k].parsed == order)
        else {
            return Err(at(
                l,
                format!("no such order in the ORDERS block: {}", text.trim()),
            ));
        };
        used[k] = true;
        let played = all[k];
        let ok = match word.trim() {
            "succeeds" => played.outcome.succeeded(),
            "fails" => !played.outcome.succeeded(),
            "void" => matches!(played.outcome, Outcome::Void(_)),
            other => return Err(at(l, format!("'{other}' is not succeeds, fails or void"))),
        };
        if !ok {
            failures.push(format!(
                "{label}: line {}: {} expected {}, got {}",
                l.number,
                played.text,
                word.trim(),
                played.outcome.describe(variant)
            ));
        }
    }
    Ok(())
}

/// Compares two lists of forces, reporting both in full when they differ.
fn compare(
    variant: &Variant,
    failures: &mut Vec<String>,
    label: &str,
    what: &str,
    expected: &[(ProvinceId, Force)],
    actual: &[(ProvinceId, Force)],
) {
    let mut e: Vec<(ProvinceId, Force)> = expected.to_vec();
    let mut a: Vec<(ProvinceId, Force)> = actual.to_vec();
    e.sort_by_key(|x| x.0);
    a.sort_by_key(|x| x.0);
    if e != a {
        failures.push(format!(
            "{label}: {what} differs\n    expected: {}\n    actual:   {}",
            forces_text(variant, &e),
            forces_text(variant, &a)
        ));
    }
}

/// Forces as case-file text: `England: F(NTH), A(Yor); France: A(Par)`.
pub fn forces_text(variant: &Variant, forces: &[(ProvinceId, Force)]) -> String {
    let mut parts = Vec::new();
    for power in variant.power_ids() {
        let mine: Vec<String> = forces
            .iter()
            .filter(|(_, f)| f.power == power)
            .map(|(p, f)| f.name(variant, *p))
            .collect();
        if !mine.is_empty() {
            parts.push(format!(
                "{}: {}",
                variant.power(power).name,
                mine.join(", ")
            ));
        }
    }
    if parts.is_empty() {
        "(none)".into()
    } else {
        parts.join("; ")
    }
}

/// The command of a `GM: COMMAND` line in an `ORDERS` block.
fn gm_command(l: &Line) -> Option<&str> {
    let (who, rest) = l.text.split_once(':')?;
    who.trim().eq_ignore_ascii_case("gm").then(|| rest.trim())
}

/// `England, France` or `none`, in the variant's power order.
fn read_powers(variant: &Variant, l: &Line) -> Result<Vec<PowerId>, String> {
    if l.text.trim().eq_ignore_ascii_case("none") {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for name in items(&l.text) {
        out.push(
            variant
                .power_by_name(name)
                .ok_or_else(|| at(l, format!("unknown power '{name}'")))?,
        );
    }
    out.sort();
    Ok(out)
}

/// Reads `POWER: ITEM; ITEM` ledger lines (items also separated by commas).
fn read_ledger(variant: &Variant, lines: &[Line]) -> Result<Vec<(PowerId, Item)>, String> {
    let mut out = Vec::new();
    for l in lines {
        let (power, rest) = split_power(variant, l)?;
        let power = power.ok_or_else(|| at(l, "ledger lines need a power".into()))?;
        for item in rest
            .split([';', ','])
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            let item = Item::parse(variant, item).map_err(|e| at(l, e.to_string()))?;
            out.push((power, item));
        }
    }
    Ok(out)
}

/// `POSTLEDGER`: for each power and each key written for it, the items of that key must be
/// exactly those written (`loan none`: no loan at all).
fn check_ledger(
    variant: &Variant,
    lines: &[Line],
    pos: &Position,
    label: &str,
    failures: &mut Vec<String>,
) -> Result<(), String> {
    let expected = read_ledger(variant, lines)?;
    let mut checked: Vec<(PowerId, &str)> = Vec::new();
    for &(power, item) in &expected {
        let key = item.key();
        if checked.contains(&(power, key)) {
            continue;
        }
        checked.push((power, key));
        let texts = |items: &mut dyn Iterator<Item = Item>| {
            let mut t: Vec<String> = items
                .filter(|i| i.key() == key && !matches!(i, Item::NoneOf(_)))
                .map(|i| i.text(variant))
                .collect();
            t.sort();
            t
        };
        let want = texts(
            &mut expected
                .iter()
                .filter(|(p, _)| *p == power)
                .map(|&(_, i)| i),
        );
        let got = texts(&mut pos.ledgers.items(variant, power).into_iter());
        if want != got {
            let show = |t: &[String]| {
                if t.is_empty() {
                    format!("{key} none")
                } else {
                    t.join("; ")
                }
            };
            failures.push(format!(
                "{label}: POSTLEDGER {}: expected {}, got {}",
                variant.power(power).name,
                show(&want),
                show(&got)
            ));
        }
    }
    Ok(())
}

fn at(l: &Line, message: String) -> String {
    format!("line {}: {message}", l.number)
}

/// `England: rest` → (England, rest); `none: rest` → (None, rest).
fn split_power<'t>(variant: &Variant, l: &'t Line) -> Result<(Option<PowerId>, &'t str), String> {
    let (name, rest) = l.text.split_once(':').ok_or_else(|| {
        at(
            l,
            format!("'{}' needs a power first ('England: ...')", l.text),
        )
    })?;
    let name = name.trim();
    if name.eq_ignore_ascii_case("none") {
        return Ok((None, rest.trim()));
    }
    let power = variant.power_by_name(name).ok_or_else(|| {
        let hint = variant
            .suggest_power(name)
            .map_or(String::new(), |s| format!(" (did you mean {s}?)"));
        at(l, format!("unknown power '{name}'{hint}"))
    })?;
    Ok((Some(power), rest.trim()))
}

fn known(l: &Line, variant: &Variant, place: Place) -> Result<Region, String> {
    match place {
        Place::Known(r) => Ok(r),
        // In a list of units a code written exactly as the board prints it names its space.
        Place::Ambiguous {
            name,
            options,
            coast,
        } => match options.iter().find(|&&p| variant.province(p).code == name) {
            Some(&province) => Ok(Region { province, coast }),
            None => Err(at(
                l,
                format!(
                    "'{name}' is ambiguous on the {} board: use a code",
                    variant.name
                ),
            )),
        },
    }
}

fn items(text: &str) -> impl Iterator<Item = &str> {
    text.split(',').map(str::trim).filter(|s| !s.is_empty())
}

/// Reads `POWER: UNIT, UNIT` lines into forces.
fn read_forces(variant: &Variant, lines: &[Line]) -> Result<Vec<(ProvinceId, Force)>, String> {
    let mut out: Vec<(ProvinceId, Force)> = Vec::new();
    for l in lines {
        let (power, rest) = split_power(variant, l)?;
        let power = power.ok_or_else(|| at(l, "units need a power".into()))?;
        for item in items(rest) {
            let unit = parse_unit(variant, item).map_err(|e| at(l, e.to_string()))?;
            let region = known(l, variant, unit.at.clone())?;
            let force = Force {
                power,
                armies: unit.armies,
                fleets: unit.fleets,
                coast: region.coast,
            };
            if out.iter().any(|(p, _)| *p == region.province) {
                return Err(at(
                    l,
                    format!("two forces in {}", variant.province(region.province).code),
                ));
            }
            out.push((region.province, force));
        }
    }
    Ok(out)
}

/// Reads `POWER: A(Kie) from Ber` lines.
fn read_dislodged(variant: &Variant, lines: &[Line]) -> Result<Vec<Dislodged>, String> {
    let mut out = Vec::new();
    for l in lines {
        let (power, rest) = split_power(variant, l)?;
        let power = power.ok_or_else(|| at(l, "units need a power".into()))?;
        for item in items(rest) {
            let (unit_text, from) = match item.split_once(" from ") {
                Some((u, f)) => (u, Some(f.trim())),
                None => (item, None),
            };
            let unit = parse_unit(variant, unit_text).map_err(|e| at(l, e.to_string()))?;
            let region = known(l, variant, unit.at.clone())?;
            let (by_convoy, from) = match from.map(|f| {
                f.strip_prefix("convoy ")
                    .map_or((false, f), |r| (true, r.trim()))
            }) {
                Some((c, f)) => {
                    let place = parse_place(variant, f).map_err(|e| at(l, e.to_string()))?;
                    (c, Some(known(l, variant, place)?.province))
                }
                None => (false, None),
            };
            out.push(Dislodged {
                province: region.province,
                force: Force {
                    power,
                    armies: unit.armies,
                    fleets: unit.fleets,
                    coast: region.coast,
                },
                attacker_from: from,
                by_convoy,
                sea_time: 0,
            });
        }
    }
    Ok(out)
}

/// Reads `POWER: CENTRE, CENTRE` (or `none: CENTRE`) lines.
fn read_owners(
    variant: &Variant,
    lines: &[Line],
) -> Result<Vec<(ProvinceId, Option<PowerId>)>, String> {
    let mut out = Vec::new();
    for l in lines {
        let (power, rest) = split_power(variant, l)?;
        for item in items(rest) {
            let place = parse_place(variant, item).map_err(|e| at(l, e.to_string()))?;
            out.push((known(l, variant, place)?.province, power));
        }
    }
    Ok(out)
}

/// The position a case starts from.
fn initial_position(case: &Case, variant: &Variant) -> Result<Position, String> {
    let phase = match &case.phase {
        Some(l) => variant.parse_phase(&l.text).ok_or_else(|| {
            at(
                l,
                format!("'{}' is not a phase (e.g. Spring 1901 Movement)", l.text),
            )
        })?,
        None => variant.start,
    };
    let mut pos = Position::empty(variant, phase);
    for (p, force) in read_forces(variant, &case.state)? {
        pos.units[p.index()] = Some(force);
    }
    for (p, owner) in read_owners(variant, &case.owners)? {
        pos.owners[p.index()] = owner;
    }
    pos.dislodged = read_dislodged(variant, &case.dislodged)?;
    for l in &case.standoffs {
        for item in items(&l.text) {
            let place = parse_place(variant, item).map_err(|e| at(l, e.to_string()))?;
            pos.standoffs.insert(known(l, variant, place)?.province);
        }
    }
    for (power, item) in read_ledger(variant, &case.ledger)? {
        item.apply(variant, &mut pos.ledgers, power)
            .map_err(|e| format!("LEDGER {}: {e}", variant.power(power).name))?;
    }
    for l in &case.blockaded {
        for item in items(&l.text) {
            let place = parse_place(variant, item).map_err(|e| at(l, e.to_string()))?;
            pos.blockaded.insert(known(l, variant, place)?.province);
        }
    }
    Ok(pos)
}
