//! A case's position read from its blocks: forces, dislodged forces, centre owners, armies'
//! seasons at sea and the Winter ledgers, each line's error naming the case file's line.

use super::split_power;
use crate::file::{Case, Line};
use napjudge_engine::order::{parse_place, parse_unit, ParseError, Place};
use napjudge_engine::position::{Dislodged, Force, Item, Position, SeaTime};
use napjudge_engine::variant::{self, PowerId, ProvinceId, ProvinceSet, Region, Variant};

/// `England, France` or `none`, in the variant's power order.
pub(super) fn read_powers(variant: &Variant, l: &Line) -> Result<Vec<PowerId>, String> {
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
pub(super) fn read_ledger(
    variant: &Variant,
    lines: &[Line],
) -> Result<Vec<(PowerId, Item)>, String> {
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

pub(super) fn at(l: &Line, message: String) -> String {
    l.error(message)
}

/// A parse error of a case line: its column and what was wrong (the line is the case file's).
pub(super) fn parse_error(l: &Line, e: &ParseError) -> String {
    let what = e
        .hint
        .clone()
        .unwrap_or_else(|| format!("expected {}, found {}", e.expected, e.found));
    l.error(format!("column {}: {what}", e.column))
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
pub(super) fn read_forces(
    variant: &Variant,
    lines: &[Line],
) -> Result<Vec<(ProvinceId, Force, Option<SeaTime>)>, String> {
    let mut out: Vec<(ProvinceId, Force, Option<SeaTime>)> = Vec::new();
    for l in lines {
        let (power, rest) = split_power(variant, l)?;
        let power = power.ok_or_else(|| at(l, "units need a power".into()))?;
        for item in items(rest) {
            let (item, at_sea) = match item.split_once(" at sea ") {
                Some((u, counts)) => (u.trim(), Some(counts)),
                None => (item, None),
            };
            let unit = parse_unit(variant, item).map_err(|e| parse_error(l, &e))?;
            let region = known(l, variant, unit.at.clone())?;
            let force = Force {
                power,
                armies: unit.armies,
                fleets: unit.fleets,
                coast: region.coast,
            };
            if out.iter().any(|(p, _, _)| *p == region.province) {
                return Err(at(
                    l,
                    format!("two forces in {}", variant.province(region.province).code),
                ));
            }
            let time = match at_sea {
                Some(counts) => {
                    let sea = variant.province(region.province).kind == variant::SpaceKind::Sea;
                    Some(read_sea_time(counts, unit.armies, sea).map_err(|e| at(l, e))?)
                }
                None => None,
            };
            out.push((region.province, force, time));
        }
    }
    Ok(out)
}

/// Reads the counts after `at sea` (R3.6): one count for every army aboard (`3`), or one per army
/// (`3 1`), each the movement seasons it has ended at sea.
fn read_sea_time(text: &str, armies: u8, sea: bool) -> Result<SeaTime, String> {
    if !sea || armies == 0 {
        return Err("`at sea` is for a force with armies aboard, in a sea space".into());
    }
    let mut counts = Vec::new();
    for c in text.split_whitespace() {
        match c.trim().parse::<u8>() {
            Ok(n) if n <= SeaTime::LONGEST => counts.push(n),
            _ => {
                return Err(format!(
                    "'{}' is not a count of seasons at sea (0 to {}: the fourth starves)",
                    c.trim(),
                    SeaTime::LONGEST
                ))
            }
        }
    }
    match counts.len() {
        1 => Ok(SeaTime::from_counts(vec![counts[0]; usize::from(armies)])),
        n if n == usize::from(armies) => Ok(SeaTime::from_counts(counts)),
        n => Err(format!(
            "{n} counts of seasons at sea for {armies} armies: write one for all, or one per army"
        )),
    }
}

/// Reads `POWER: A(Kie) from Ber` lines (`from Mar & Pic`: the participants of a merge, R2.8).
pub(super) fn read_dislodged(variant: &Variant, lines: &[Line]) -> Result<Vec<Dislodged>, String> {
    let mut out = Vec::new();
    for l in lines {
        let (power, rest) = split_power(variant, l)?;
        let power = power.ok_or_else(|| at(l, "units need a power".into()))?;
        for item in items(rest) {
            let (unit_text, from) = match item.split_once(" from ") {
                Some((u, f)) => (u, Some(f.trim())),
                None => (item, None),
            };
            let unit = parse_unit(variant, unit_text).map_err(|e| parse_error(l, &e))?;
            let region = known(l, variant, unit.at.clone())?;
            let (by_convoy, from) = match from.map(|f| {
                f.strip_prefix("convoy ")
                    .map_or((false, f), |r| (true, r.trim()))
            }) {
                Some((c, f)) => {
                    let mut origins = ProvinceSet::EMPTY;
                    for f in f.split('&') {
                        let place =
                            parse_place(variant, f.trim()).map_err(|e| parse_error(l, &e))?;
                        origins.insert(known(l, variant, place)?.province);
                    }
                    (c, origins)
                }
                None => (false, ProvinceSet::EMPTY),
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
                sea_time: SeaTime::default(),
            });
        }
    }
    Ok(out)
}

/// Reads `POWER: CENTRE, CENTRE` (or `none: CENTRE`) lines.
pub(super) fn read_owners(
    variant: &Variant,
    lines: &[Line],
) -> Result<Vec<(ProvinceId, Option<PowerId>)>, String> {
    let mut out = Vec::new();
    for l in lines {
        let (power, rest) = split_power(variant, l)?;
        for item in items(rest) {
            let place = parse_place(variant, item).map_err(|e| parse_error(l, &e))?;
            out.push((known(l, variant, place)?.province, power));
        }
    }
    Ok(out)
}

/// The position a case starts from: its state blocks in its `PHASE` (required: a case says which
/// phase it plays rather than defaulting to the variant's start).
pub fn initial_position(case: &Case, variant: &Variant) -> Result<Position, String> {
    let phase = match &case.phase {
        Some(l) => variant.parse_phase(&l.text).ok_or_else(|| {
            at(
                l,
                format!("'{}' is not a phase (e.g. Spring 1901 Movement)", l.text),
            )
        })?,
        None => {
            return Err(format!(
                "{}:{}: the case has no PHASE line (e.g. PHASE {})",
                case.file,
                case.line,
                variant.phase_name(variant.start)
            ))
        }
    };
    let mut pos = Position::empty(variant, phase);
    for (p, force, time) in read_forces(variant, &case.state)? {
        pos.units[p.index()] = Some(force);
        pos.sea_time[p.index()] = time.unwrap_or_default();
    }
    for (p, owner) in read_owners(variant, &case.owners)? {
        pos.owners[p.index()] = owner;
    }
    pos.dislodged = read_dislodged(variant, &case.dislodged)?;
    for l in &case.standoffs {
        for item in items(&l.text) {
            let place = parse_place(variant, item).map_err(|e| parse_error(l, &e))?;
            pos.standoffs.insert(known(l, variant, place)?.province);
        }
    }
    for l in &case.ledger {
        for (power, item) in read_ledger(variant, std::slice::from_ref(l))? {
            item.apply(variant, &mut pos.ledgers, power)
                .map_err(|e| l.error(format!("LEDGER {}: {e}", variant.power(power).name)))?;
        }
    }
    for l in &case.blockaded {
        for item in items(&l.text) {
            let place = parse_place(variant, item).map_err(|e| parse_error(l, &e))?;
            pos.blockaded.insert(known(l, variant, place)?.province);
        }
    }
    Ok(pos)
}
