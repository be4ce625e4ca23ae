//! Playing a case against its variant: building the position, validating and adjudicating each
//! `ORDERS` block, and comparing what came out with what the case expects.

mod state;

use super::file::{Case, Line, Step};
use napjudge_engine::order::{parse_line, Order, Place};
use napjudge_engine::outcome::{Describe, Event, Outcome};
use napjudge_engine::position::{Dislodged, Force, Item, Position};
use napjudge_engine::turn::{self, OrderError, PhaseReport, Sheets, TurnError};
use napjudge_engine::variant::{PowerId, ProvinceId, Region, Variant};
use napjudge_engine::winter::GmCommand;
pub use state::initial_position;
use state::{at, parse_error, read_dislodged, read_forces, read_ledger, read_owners, read_powers};
use std::collections::HashMap;

/// Variants loaded so far, by name.
#[derive(Default)]
pub struct Variants(HashMap<String, Variant>);

impl Variants {
    /// The variant called `name`, loading it the first time.
    pub fn get(&mut self, name: &str) -> Result<&Variant, String> {
        if !self.0.contains_key(name) {
            let v = crate::files::load_variant(name).map_err(|e| e.to_string())?;
            self.0.insert(name.to_string(), v);
        }
        self.0
            .get(name)
            .ok_or_else(|| format!("variant {name} could not be kept"))
    }

    /// The board `case` is played on: its variant, with the rule switches it gives.
    pub fn for_case(&mut self, case: &Case) -> Result<Variant, String> {
        self.get(&case.variant)?
            .with_options(&case.options)
            .map_err(|e| e.to_string())
    }
}

/// One order of a played step: who gave it, its canonical form and what became of it.
pub struct PlayedOrder {
    /// The power that gave it.
    pub power: PowerId,
    /// The order as parsed (for matching `RESULTS` lines).
    pub parsed: Order<Place>,
    /// The canonical form.
    pub text: String,
    /// Its outcome, or why validation refused it (then it is void).
    pub result: Result<Outcome, OrderError>,
}

impl PlayedOrder {
    /// Whether it is void: refused by validation, or void in adjudication.
    fn void(&self) -> bool {
        matches!(self.result, Err(_) | Ok(Outcome::Void(_)))
    }

    /// Whether it succeeded.
    fn succeeded(&self) -> bool {
        matches!(&self.result, Ok(o) if o.succeeded())
    }

    /// The reason's English alone (what a `fails "TEXT"` or `void "TEXT"` line checks).
    fn reason(&self, variant: &Variant) -> String {
        match &self.result {
            Ok(Outcome::Fails(r)) => r.shown(variant).to_string(),
            Ok(Outcome::Void(v)) => v.shown(variant).to_string(),
            Ok(o) => o.shown(variant).to_string(),
            Err(e) => e.to_string(),
        }
    }

    /// The outcome's English: `succeeds`, `fails: ...`, `void: ...`.
    fn describe(&self, variant: &Variant) -> String {
        match &self.result {
            Ok(o) => o.describe(variant),
            Err(e) => format!("void: {e}"),
        }
    }
}

/// A phase of a case, played.
pub struct PlayedStep {
    /// The position before the phase (and its GM commands).
    pub before: Position,
    /// Its orders with their outcomes, in the order of the case's lines.
    pub orders: Vec<PlayedOrder>,
    /// Second-phase orders decided while finishing this phase (R4), with their outcomes.
    pub second: Vec<PlayedOrder>,
    /// What the engine reported; `report.next` is the position after the phase.
    pub report: PhaseReport,
}

impl PlayedStep {
    /// A phase the judge played (its stored report and the position it was played from), for
    /// checking against a game folder's record: the orders in the report's order; lines that
    /// did not parse are left out (no `RESULTS` line can name them).
    pub fn from_report(before: Position, report: PhaseReport) -> PlayedStep {
        let orders = report
            .powers
            .iter()
            .flat_map(|p| p.orders.iter().map(move |o| (p.power, o)))
            .filter_map(|(power, o)| {
                Some(PlayedOrder {
                    power,
                    parsed: o.order.parsed.clone()?,
                    text: o.canonical.clone().unwrap_or_default(),
                    result: o.result.clone(),
                })
            })
            .collect();
        PlayedStep {
            before,
            orders,
            second: second_orders(&report),
            report,
        }
    }
}

/// The second-phase orders of a report (R4) as played orders.
fn second_orders(report: &PhaseReport) -> Vec<PlayedOrder> {
    report
        .second
        .iter()
        .map(|s| PlayedOrder {
            power: s.power,
            parsed: s.order.map(&|r: &Region| Place::Known(*r)),
            text: s.canonical.clone(),
            result: Ok(s.outcome.clone()),
        })
        .collect()
}

/// For each power, the case line of each line of its sheet.
pub type SheetLines = Vec<(PowerId, Vec<usize>)>;

/// A step's `ORDERS` lines as the engine takes them: the GM's commands and each power's text,
/// with the case line of each power's line.
pub fn sheets(variant: &Variant, lines: &[Line]) -> Result<(Sheets, SheetLines), String> {
    let mut sheets = Sheets::default();
    let mut numbers: Vec<(PowerId, Vec<usize>)> = Vec::new();
    for l in lines {
        if let Some(command) = gm_command(l) {
            // `GM: ... => refused` is the case's expectation, checked apart (see `play`).
            if refused_gm_command(command).is_none() {
                sheets.gm.push(command.to_string());
            }
            continue;
        }
        let (power, text) = split_power(variant, l)?;
        let power = power.ok_or_else(|| l.error("orders need a power ('France: A(Par)-Bur')"))?;
        let sheet = sheets.orders.entry(power).or_default();
        sheet.push_str(text);
        sheet.push('\n');
        match numbers.iter_mut().find(|(p, _)| *p == power) {
            Some((_, n)) => n.push(l.number),
            None => numbers.push((power, vec![l.number])),
        }
    }
    Ok((sheets, numbers))
}

/// The file a case's lines come from.
fn case_file(case: &Case, lines: &[Line]) -> std::sync::Arc<str> {
    lines
        .first()
        .map_or_else(|| case.file.as_str().into(), |l| l.file.clone())
}

/// Plays every step of a case through the engine's one call per phase ([`turn::play`]).
pub fn play(case: &Case, variant: &Variant) -> Result<Vec<PlayedStep>, String> {
    let mut position = initial_position(case, variant)?;
    let mut steps = Vec::new();
    for step in &case.steps {
        // A GM command the case expects refused must be refused, and changes nothing (R7.8).
        for l in &step.orders {
            if let Some(command) = gm_command(l).and_then(refused_gm_command) {
                let command = GmCommand::parse(variant, command).map_err(|e| l.error(&e))?;
                if command.apply(variant, &mut position.clone()).is_ok() {
                    return Err(l.error("the GM command was not refused"));
                }
            }
        }
        let (sheets, numbers) = sheets(variant, &step.orders)?;
        let report = turn::play(variant, &position, &sheets).map_err(|e| match &e {
            TurnError::Gm { index, .. } => {
                let gm = step.orders.iter().filter(|l| gm_command(l).is_some());
                match gm.clone().nth(*index) {
                    Some(l) => l.error(&e),
                    None => e.to_string(),
                }
            }
        })?;
        // Back to the case's lines: each power's orders, in the order the lines were written.
        let mut by_line: Vec<(usize, PlayedOrder)> = Vec::new();
        for power_orders in &report.powers {
            let lines = numbers
                .iter()
                .find(|(p, _)| *p == power_orders.power)
                .map(|(_, n)| n.as_slice())
                .unwrap_or_default();
            for o in &power_orders.orders {
                let number = lines.get(o.order.line - 1).copied().unwrap_or(0);
                let Some(parsed) = o.order.parsed.clone() else {
                    let line = Line {
                        file: case_file(case, &step.orders),
                        number,
                        text: o.order.text.clone(),
                    };
                    return Err(match &o.result {
                        Err(OrderError::Parse(e)) => parse_error(&line, e),
                        _ => line.error("not an order"),
                    });
                };
                by_line.push((
                    number,
                    PlayedOrder {
                        power: power_orders.power,
                        text: o.canonical.clone().unwrap_or_default(),
                        parsed,
                        result: o.result.clone(),
                    },
                ));
            }
        }
        by_line.sort_by_key(|(n, _)| *n);
        let second = second_orders(&report);
        let before = std::mem::replace(&mut position, report.next.clone());
        steps.push(PlayedStep {
            before,
            orders: by_line.into_iter().map(|(_, o)| o).collect(),
            second,
            report,
        });
    }
    Ok(steps)
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

/// Plays a case and compares every expectation.
pub fn check(case: &Case, variants: &mut Variants) -> CaseReport {
    let mut report = CaseReport {
        place: format!("{}:{}", case.file, case.line),
        name: format!("{} {}", case.id, case.title).trim().to_string(),
        failures: Vec::new(),
    };
    if case.variant.is_empty() {
        let message = "the case has no VARIANT line (VARIANT standard, or napoleonic)";
        report
            .failures
            .push(format!("{}:{}: {message}", case.file, case.line));
        return report;
    }
    let variant = match variants.for_case(case) {
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
        let label = format!(
            "phase {} ({})",
            n + 1,
            variant.phase_name(played.before.phase)
        );
        report
            .failures
            .extend(check_step(variant, step, played, &label));
    }
    report
}

/// Every difference between what `step` expects (its `RESULTS`, `EVENTS` and `POST...` blocks;
/// blocks not written are not checked) and the phase as played, each starting with `label`. The
/// case runner and the replay of a game folder both check through here.
pub fn check_step(variant: &Variant, step: &Step, played: &PlayedStep, label: &str) -> Vec<String> {
    let mut failures = Vec::new();
    let f = &mut failures;
    if let Err(e) = check_results(variant, &step.results, played, label, f) {
        f.push(e);
    }
    if let Some(lines) = &step.events {
        check_events(variant, lines, &played.report.events, label, f);
    }
    let pos = &played.report.next;
    if let Some(lines) = &step.poststate {
        match read_forces(variant, lines) {
            Ok(expected) => {
                let actual: Vec<(ProvinceId, Force)> = pos.forces().map(|(p, f)| (p, *f)).collect();
                let forces: Vec<(ProvinceId, Force)> =
                    expected.iter().map(|&(p, f, _)| (p, f)).collect();
                compare(variant, f, label, "POSTSTATE", &forces, &actual);
                // Seasons at sea are checked where written (R3.6).
                for &(p, _, time) in &expected {
                    if time.is_some_and(|t| t != pos.sea_time[p.index()]) {
                        f.push(format!(
                            "{label}: POSTSTATE: the seasons at sea in {} differ",
                            variant.province(p).code
                        ));
                    }
                }
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
                compare(variant, f, label, "POSTDISLODGED", &exp, &act);
                for d in expected.iter().filter(|d| !d.attacker_from.is_empty()) {
                    let same = pos
                        .dislodged
                        .iter()
                        .any(|a| a.province == d.province && a.attacker_from == d.attacker_from);
                    if !same {
                        let from: Vec<&str> = d
                            .attacker_from
                            .iter()
                            .map(|p| variant.province(p).code.as_str())
                            .collect();
                        f.push(format!(
                            "{label}: POSTDISLODGED: {} was not dislodged by the attack from {}",
                            d.force.name(variant, d.province),
                            from.join(" & ")
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
        if let Err(e) = check_ledger(variant, lines, pos, label, f) {
            f.push(e);
        }
    }
    if let Some(l) = &step.postwinners {
        match read_powers(variant, l) {
            Ok(expected) if expected == pos.ledgers.winners => {}
            Ok(_) => {
                let names = |ps: &[PowerId]| {
                    let v: Vec<&str> = ps.iter().map(|p| variant.power(*p).name.as_str()).collect();
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
    failures
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
            file: l.file.clone(),
            number: l.number,
            text: left.trim().to_string(),
        };
        let (power, text) = split_power(variant, &left)?;
        let order = parse_line(variant, text).map_err(|e| parse_error(l, &e))?;
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
        let word = word.trim();
        // `fails "TEXT"` / `void "TEXT"`: the reason's English must be TEXT exactly.
        let (word, wording) = match word.split_once(char::is_whitespace) {
            Some((w, quoted)) => {
                let text = quoted
                    .trim()
                    .strip_prefix('"')
                    .and_then(|t| t.strip_suffix('"'))
                    .ok_or_else(|| at(l, format!("write the reason in quotes: {w} \"TEXT\"")))?;
                (w, Some(text))
            }
            None => (word, None),
        };
        let ok = match word {
            "succeeds" if wording.is_none() => played.succeeded(),
            "fails" => !played.succeeded(),
            "void" => played.void(),
            other => {
                return Err(at(
                    l,
                    format!("'{other}' is not succeeds, fails \"REASON\" or void \"REASON\""),
                ))
            }
        };
        let worded = wording.is_none_or(|w| played.reason(variant) == w);
        if !ok || !worded {
            let expected = match wording {
                Some(w) => format!("{word} \"{w}\""),
                None => word.to_string(),
            };
            failures.push(format!(
                "{label}: line {}: {} expected {expected}, got {}",
                l.number,
                played.text,
                played.describe(variant)
            ));
        }
    }
    Ok(())
}

/// `EVENTS`: `KIND: TEXT` lines (`KIND: none` for no event of that kind). For each kind written,
/// the phase's events of that kind must be exactly those written, in that order.
fn check_events(
    variant: &Variant,
    lines: &[Line],
    events: &[Event],
    label: &str,
    failures: &mut Vec<String>,
) {
    let mut kinds: Vec<&str> = Vec::new();
    let mut expected: Vec<(&str, &str)> = Vec::new();
    for l in lines {
        let Some((kind, text)) = l.text.split_once(':') else {
            failures.push(at(l, "an event line is 'KIND: TEXT'".into()));
            continue;
        };
        let Some(&kind) = Event::KINDS.iter().find(|k| **k == kind.trim()) else {
            let kinds = Event::KINDS.join(", ");
            failures.push(at(
                l,
                format!("unknown event kind '{}' ({kinds})", kind.trim()),
            ));
            continue;
        };
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
        if text.trim() != "none" {
            expected.push((kind, text.trim()));
        }
    }
    for kind in kinds {
        let want: Vec<&str> = expected
            .iter()
            .filter(|(k, _)| *k == kind)
            .map(|(_, t)| *t)
            .collect();
        let got: Vec<String> = events
            .iter()
            .filter(|e| e.kind() == kind)
            .map(|e| e.shown(variant).to_string())
            .collect();
        if want != got {
            let show = |t: Vec<String>| {
                if t.is_empty() {
                    "none".into()
                } else {
                    t.join(" | ")
                }
            };
            failures.push(format!(
                "{label}: EVENTS {kind}: expected {}, got {}",
                show(want.iter().map(|s| s.to_string()).collect()),
                show(got)
            ));
        }
    }
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
    let lines = super::write::force_lines(variant, forces);
    let parts: Vec<&str> = lines.lines().map(str::trim).collect();
    if parts.is_empty() {
        "(none)".into()
    } else {
        parts.join("; ")
    }
}

/// The command of a `GM: COMMAND => refused` line: the case expects the judge to refuse it.
fn refused_gm_command(command: &str) -> Option<&str> {
    let (command, word) = command.rsplit_once("=>")?;
    word.trim()
        .eq_ignore_ascii_case("refused")
        .then(|| command.trim())
}

/// The command of a `GM: COMMAND` line in an `ORDERS` block.
fn gm_command(l: &Line) -> Option<&str> {
    let (who, rest) = l.text.split_once(':')?;
    who.trim().eq_ignore_ascii_case("gm").then(|| rest.trim())
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

/// `England: rest` → (England, rest); `none: rest` → (None, rest).
pub(super) fn split_power<'t>(
    variant: &Variant,
    l: &'t Line,
) -> Result<(Option<PowerId>, &'t str), String> {
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
