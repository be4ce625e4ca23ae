//! Recorded games of standard Diplomacy in the MILA / pydipcc JSON format (webDiplomacy's games
//! as published with Meta's Cicero): every phase's position, each power's orders and the press.
//!
//! [`read`] maps the record onto a board's names: phase names (`S1901M`), unit strings (`A VIE`,
//! `F STP/SC`, `*A BUD` for a dislodged unit), order strings (`A EDI - NWY VIA`, `A PAR B`) into
//! this judge's order text, so that a phase can be played through [`napjudge_engine::turn::play`]. A phase
//! it can't express is an error naming the phase. [`write`] is its inverse: a game in the same
//! format, which [`read`] gives back. No I/O: the caller reads and writes the file.

use napjudge_engine::order::{Order, OrderKind, UnitSpec};
use napjudge_engine::position::Position;
use napjudge_engine::variant::{
    Coast, Phase, PhaseKind, PowerId, Region, Season, UnitType, Variant,
};
use std::collections::BTreeMap;

/// Why a recorded game can't be read.
#[derive(Debug, thiserror::Error)]
pub enum MilaError {
    /// Not JSON of the expected shape.
    #[error("not a game record in the MILA JSON format: {0}")]
    Json(#[from] serde_json::Error),
    /// A phase name that is not `S1901M`, `F1901R`, `W1901A` and the like.
    #[error(
        "phase '{0}': can't express this phase (write a season letter S, F or W, a year, and \
         M, R or A, as in S1901M)"
    )]
    Phase(String),
    /// A power the board doesn't have.
    #[error("phase {phase}: there is no power '{power}' on this board")]
    Power {
        /// The phase.
        phase: String,
        /// The name as recorded.
        power: String,
    },
    /// A unit string that isn't `A VIE`, `F STP/SC` or `*A BUD`, or names no space of the board.
    #[error(
        "phase {phase}: can't read the unit '{unit}' (write A or F and a space, as in 'F STP/SC')"
    )]
    Unit {
        /// The phase.
        phase: String,
        /// The unit as recorded.
        unit: String,
    },
    /// A centre that is not a supply centre of the board.
    #[error("phase {phase}: '{centre}' is not a supply centre of this board")]
    Centre {
        /// The phase.
        phase: String,
        /// The centre as recorded.
        centre: String,
    },
    /// An order of a kind the format doesn't have.
    #[error("phase {phase}: can't read {power}'s order '{order}'")]
    Order {
        /// The phase.
        phase: String,
        /// The power.
        power: String,
        /// The order as recorded.
        order: String,
    },
    /// A phase of another board's calendar, which the format has no name for.
    #[error(
        "{0}: the MILA JSON format names the standard board's phases only (Spring and Autumn \
         movement and retreats, Winter adjustments), not this one"
    )]
    NoName(String),
}

// One set of types for both directions: what `write` writes is what `read` reads.
#[derive(serde::Deserialize, serde::Serialize)]
struct RawGame {
    #[serde(default)]
    id: serde_json::Value,
    phases: Vec<RawPhase>,
}

#[derive(serde::Deserialize, serde::Serialize)]
struct RawPhase {
    name: String,
    state: RawState,
    #[serde(default)]
    orders: BTreeMap<String, Option<Vec<String>>>,
    #[serde(default)]
    messages: Vec<RawMessage>,
}

#[derive(serde::Deserialize, serde::Serialize)]
struct RawState {
    #[serde(default)]
    units: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    centers: BTreeMap<String, Vec<String>>,
}

#[derive(serde::Deserialize, serde::Serialize)]
struct RawMessage {
    sender: String,
    recipient: String,
    message: String,
    time_sent: i64,
}

/// A unit as the record lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct RecordedUnit {
    /// Its power.
    pub power: PowerId,
    /// Army or fleet.
    pub unit: UnitType,
    /// Where it stands.
    pub region: Region,
}

/// A position as the record gives it at the start of a phase.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecordedState {
    /// The units on the board, sorted.
    pub units: Vec<RecordedUnit>,
    /// The dislodged units (in a retreat phase), sorted.
    pub dislodged: Vec<RecordedUnit>,
    /// The centres each power owns, sorted.
    pub centres: Vec<(PowerId, napjudge_engine::variant::ProvinceId)>,
}

/// One message of the press.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Press {
    /// Who sent it.
    pub sender: PowerId,
    /// To whom: a power, or None for everybody (`ALL`).
    pub recipient: Option<PowerId>,
    /// The text.
    pub text: String,
    /// When, as recorded: 1/10,000 s since the Unix epoch.
    pub time_sent: i64,
}

/// One phase of the record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedPhase {
    /// The name as recorded (`S1901M`).
    pub name: String,
    /// The phase; None for the record's closing `COMPLETED` state, which has no orders.
    pub phase: Option<Phase>,
    /// The position at its start.
    pub state: RecordedState,
    /// Each power's orders in this judge's notation, one a line; a power that sent none is absent.
    pub orders: BTreeMap<PowerId, String>,
    /// The press sent during the phase.
    pub press: Vec<Press>,
}

/// A recorded game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedGame {
    /// The record's game id.
    pub id: String,
    /// Its phases, in order.
    pub phases: Vec<RecordedPhase>,
}

impl RecordedState {
    /// The position to play `phase` from: the units and centre owners (no dislodged units: the
    /// record doesn't say where their attackers came from).
    pub fn position(&self, variant: &Variant, phase: Phase) -> Position {
        let mut position = Position::empty(variant, phase);
        position.owners.iter_mut().for_each(|o| *o = None);
        for &(power, p) in &self.centres {
            position.owners[p.index()] = Some(power);
        }
        for u in &self.units {
            position.add_unit(u.power, u.unit, u.region);
        }
        position
    }

    /// How `position` differs from this state: units and dislodged units, and with `centres`
    /// the centre owners too. Empty when they agree.
    pub fn differences(
        &self,
        variant: &Variant,
        position: &Position,
        centres: bool,
    ) -> Vec<String> {
        let units = |f: &napjudge_engine::position::Force, p| {
            let mut v = Vec::new();
            for (n, unit) in [(f.armies, UnitType::Army), (f.fleets, UnitType::Fleet)] {
                let coast = if unit == UnitType::Fleet {
                    f.coast
                } else {
                    None
                };
                for _ in 0..n {
                    v.push(RecordedUnit {
                        power: f.power,
                        unit,
                        region: Region { province: p, coast },
                    });
                }
            }
            v
        };
        let mut on_board: Vec<RecordedUnit> =
            position.forces().flat_map(|(p, f)| units(f, p)).collect();
        on_board.sort();
        let mut dislodged: Vec<RecordedUnit> = position
            .dislodged
            .iter()
            .flat_map(|d| units(&d.force, d.province))
            .collect();
        dislodged.sort();
        let mut out = Vec::new();
        let name = |u: &RecordedUnit| {
            format!(
                "{} {}({})",
                variant.powers[u.power.index()].name,
                u.unit.letter(),
                variant.region_name(u.region)
            )
        };
        let mut compare = |what: &str, judged: &[RecordedUnit], recorded: &[RecordedUnit]| {
            for u in judged.iter().filter(|u| !recorded.contains(u)) {
                out.push(format!("{what}: the judge has {}, the record not", name(u)));
            }
            for u in recorded.iter().filter(|u| !judged.contains(u)) {
                out.push(format!("{what}: the record has {}, the judge not", name(u)));
            }
        };
        compare("units", &on_board, &self.units);
        compare("dislodged", &dislodged, &self.dislodged);
        if centres {
            for p in variant.centres().iter() {
                let recorded = self
                    .centres
                    .iter()
                    .find(|(_, c)| *c == p)
                    .map(|(power, _)| *power);
                let judged = position.owners[p.index()];
                if judged != recorded {
                    let who = |o: Option<PowerId>| {
                        o.map_or("nobody".to_string(), |w| {
                            variant.powers[w.index()].name.clone()
                        })
                    };
                    out.push(format!(
                        "centre {}: the judge gives it to {}, the record to {}",
                        variant.province(p).code,
                        who(judged),
                        who(recorded)
                    ));
                }
            }
        }
        out
    }
}

/// Reads a recorded game for `variant` (the standard board) from its JSON text.
pub fn read(variant: &Variant, json: &str) -> Result<RecordedGame, MilaError> {
    let raw: RawGame = serde_json::from_str(json)?;
    let id = match raw.id {
        serde_json::Value::String(s) => s,
        other => other.to_string(),
    };
    let count = raw.phases.len();
    let phases = raw
        .phases
        .into_iter()
        .enumerate()
        .map(|(i, p)| read_phase(variant, p, i + 1 == count))
        .collect::<Result<_, _>>()?;
    Ok(RecordedGame { id, phases })
}

fn read_phase(variant: &Variant, raw: RawPhase, last: bool) -> Result<RecordedPhase, MilaError> {
    let name = raw.name;
    let phase = match phase_of(&name) {
        Some(p) => Some(p),
        // The record ends with the final position under this name.
        None if last && name == "COMPLETED" => None,
        None => return Err(MilaError::Phase(name)),
    };
    let power = |text: &str| {
        variant.power_by_name(text).ok_or_else(|| MilaError::Power {
            phase: name.clone(),
            power: text.to_string(),
        })
    };
    let mut state = RecordedState::default();
    for (who, list) in &raw.state.units {
        let p = power(who)?;
        for text in list {
            let (dislodged, rest) = match text.strip_prefix('*') {
                Some(rest) => (true, rest),
                None => (false, text.as_str()),
            };
            let unit = unit_of(variant, p, rest).ok_or_else(|| MilaError::Unit {
                phase: name.clone(),
                unit: text.clone(),
            })?;
            if dislodged {
                state.dislodged.push(unit);
            } else {
                state.units.push(unit);
            }
        }
    }
    for (who, list) in &raw.state.centers {
        let p = power(who)?;
        for text in list {
            let centre = variant
                .find(text)
                .and_then(|ids| ids.first().copied())
                .filter(|c| variant.province(*c).centre)
                .ok_or_else(|| MilaError::Centre {
                    phase: name.clone(),
                    centre: text.clone(),
                })?;
            state.centres.push((p, centre));
        }
    }
    state.units.sort();
    state.dislodged.sort();
    state.centres.sort();
    let mut orders = BTreeMap::new();
    for (who, list) in &raw.orders {
        let p = power(who)?;
        let list = list.as_deref().unwrap_or_default();
        if list.is_empty() {
            continue;
        }
        let kind = phase.map(|p| p.kind);
        let lines = list
            .iter()
            .map(|o| {
                order_text(o, kind).ok_or_else(|| MilaError::Order {
                    phase: name.clone(),
                    power: who.clone(),
                    order: o.clone(),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        orders.insert(p, lines.join("\n"));
    }
    let press = raw
        .messages
        .iter()
        .map(|m| {
            Ok(Press {
                sender: power(&m.sender)?,
                recipient: match m.recipient.as_str() {
                    "ALL" => None,
                    r => Some(power(r)?),
                },
                text: m.message.clone(),
                time_sent: m.time_sent,
            })
        })
        .collect::<Result<_, MilaError>>()?;
    Ok(RecordedPhase {
        name,
        phase,
        state,
        orders,
        press,
    })
}

/// Writes `game` in the format [`read`] reads, for `variant` (the board its phases were read
/// with): power names in capitals, units as `A VIE` and `*A BUD`, orders in the format's
/// notation. A phase the format has no name for (Bids, a second phase) is an error.
pub fn write(variant: &Variant, game: &RecordedGame) -> Result<String, MilaError> {
    let power = |p: PowerId| variant.power(p).name.to_ascii_uppercase();
    let unit = |u: &RecordedUnit, dislodged: bool| {
        format!(
            "{}{} {}",
            if dislodged { "*" } else { "" },
            u.unit.letter(),
            variant.region_name(u.region).to_ascii_uppercase()
        )
    };
    let mut phases = Vec::with_capacity(game.phases.len());
    for p in &game.phases {
        let name = match p.phase {
            Some(ph) => phase_name(ph).ok_or_else(|| MilaError::NoName(variant.phase_name(ph)))?,
            None => p.name.clone(),
        };
        let mut state = RawState {
            units: BTreeMap::new(),
            centers: BTreeMap::new(),
        };
        let listed = p.state.units.iter().map(|u| (u, false));
        for (u, dislodged) in listed.chain(p.state.dislodged.iter().map(|u| (u, true))) {
            state
                .units
                .entry(power(u.power))
                .or_default()
                .push(unit(u, dislodged));
        }
        for &(who, c) in &p.state.centres {
            state
                .centers
                .entry(power(who))
                .or_default()
                .push(variant.province(c).code.to_ascii_uppercase());
        }
        let kind = p.phase.map(|ph| ph.kind);
        let orders = p
            .orders
            .iter()
            .map(|(&who, text)| {
                let list = text.lines().map(|o| mila_order(o, kind)).collect();
                (power(who), Some(list))
            })
            .collect();
        let messages = p
            .press
            .iter()
            .map(|m| RawMessage {
                sender: power(m.sender),
                recipient: m.recipient.map_or_else(|| "ALL".to_string(), power),
                message: m.text.clone(),
                time_sent: m.time_sent,
            })
            .collect();
        phases.push(RawPhase {
            name,
            state,
            orders,
            messages,
        });
    }
    let raw = RawGame {
        id: serde_json::Value::String(game.id.clone()),
        phases,
    };
    Ok(serde_json::to_string_pretty(&raw)?)
}

/// The format's name of a phase (`S1901M`), when it has one: the inverse of [`phase_of`].
pub fn phase_name(phase: Phase) -> Option<String> {
    let season = match phase.season {
        Season::Spring => 'S',
        Season::Autumn => 'F',
        Season::Winter => 'W',
    };
    let kind = match phase.kind {
        PhaseKind::Movement => 'M',
        PhaseKind::Retreat => 'R',
        PhaseKind::Adjustment => 'A',
        PhaseKind::Bids | PhaseKind::SecondMovement | PhaseKind::SecondRetreat => return None,
    };
    let name = format!("{season}{}{kind}", phase.year);
    (phase_of(&name) == Some(phase)).then_some(name)
}

/// An order of this judge's notation in the format's: the inverse of [`order_text`] (`BUILD A
/// PAR` → `A PAR B`); any other order is written as it is.
fn mila_order(order: &str, kind: Option<PhaseKind>) -> String {
    let words: Vec<&str> = order.split_whitespace().collect();
    match (words.as_slice(), kind) {
        (["BUILD", u, at], Some(PhaseKind::Adjustment)) => format!("{u} {at} B"),
        (["REMOVE", u, at], Some(PhaseKind::Adjustment)) => format!("{u} {at} D"),
        ([u, at, "DISBAND"], Some(PhaseKind::Retreat)) => format!("{u} {at} D"),
        ([head @ .., "via", "convoy"], Some(PhaseKind::Movement)) => {
            format!("{} VIA", head.join(" "))
        }
        _ => words.join(" "),
    }
}

/// An order as the format writes it (`A PAR - BUR`, `F STP/SC S A MOS - LVN`, `A PAR B`), in
/// this judge's notation as [`read`] gives it ([`RecordedPhase::orders`]), whatever notation the
/// player wrote it in: what `game export` writes, so that MILA's own tools (and `game import`)
/// read it. `position` is the phase's, for a supported or convoyed unit written without its type.
/// None for an order the format has no word for (a Napoleonic one).
pub fn recorded_order(
    variant: &Variant,
    position: &Position,
    order: &Order<Region>,
    kind: PhaseKind,
) -> Option<String> {
    use OrderKind::*;
    let unit = |u: &UnitSpec<Region>| {
        let letter = match (u.armies, u.fleets) {
            (1, 0) => 'A',
            (0, 1) => 'F',
            (0, 0) => {
                let f = position.force(u.at.province)?;
                match (f.armies, f.fleets) {
                    (1, 0) => 'A',
                    (0, 1) => 'F',
                    _ => return None,
                }
            }
            _ => return None,
        };
        Some(format!("{letter} {}", at(variant, u.at)))
    };
    let to = |r: &Region| at(variant, *r);
    let mila = match &order.kind {
        Hold { unit: u } => format!("{} H", unit(u)?),
        Move {
            unit: u,
            to: t,
            via_convoy,
            then: None,
        } => format!(
            "{} - {}{}",
            unit(u)?,
            to(t),
            if *via_convoy { " VIA" } else { "" }
        ),
        SupportHold { unit: u, supported } => format!("{} S {}", unit(u)?, unit(supported)?),
        SupportMove {
            unit: u,
            supported,
            to: t,
        } => format!("{} S {} - {}", unit(u)?, unit(supported)?, to(t)),
        Convoy {
            unit: u,
            army,
            to: t,
        } => format!("{} C {} - {}", unit(u)?, unit(army)?, to(t)),
        Retreat { unit: u, to: t } => format!("{} R {}", unit(u)?, to(t)),
        Disband { unit: u } | Remove { unit: u } => format!("{} D", unit(u)?),
        Build { unit: u } => format!("{} B", unit(u)?),
        Waive => "WAIVE".to_string(),
        _ => return None,
    };
    order_text(&mila, Some(kind))
}

/// A region as the format names it: `STP/SC`.
fn at(variant: &Variant, r: Region) -> String {
    variant.region_name(r).to_ascii_uppercase()
}

/// `S1901M` → Spring 1901 Movement; `F1901R` → Autumn 1901 Retreat; `W1901A` → Winter 1901
/// Adjustment. Any other name is None.
fn phase_of(name: &str) -> Option<Phase> {
    let mut chars = name.chars();
    let season = match chars.next()? {
        'S' => Season::Spring,
        'F' => Season::Autumn,
        'W' => Season::Winter,
        _ => return None,
    };
    let kind = match chars.next_back()? {
        'M' => PhaseKind::Movement,
        'R' => PhaseKind::Retreat,
        'A' => PhaseKind::Adjustment,
        _ => return None,
    };
    let year: &str = chars.as_str();
    if year.is_empty() || !year.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let year = year.parse().ok()?;
    let fits = matches!(
        (season, kind),
        (Season::Winter, PhaseKind::Adjustment)
            | (
                Season::Spring | Season::Autumn,
                PhaseKind::Movement | PhaseKind::Retreat
            )
    );
    fits.then_some(Phase { year, season, kind })
}

/// `A VIE`, `F STP/SC` as a unit of `power`.
fn unit_of(variant: &Variant, power: PowerId, text: &str) -> Option<RecordedUnit> {
    let (letter, place) = text.trim().split_once(' ')?;
    let unit = match letter {
        "A" => UnitType::Army,
        "F" => UnitType::Fleet,
        _ => return None,
    };
    let (space, coast) = match place.split_once('/') {
        Some((s, c)) => (s, Some(Coast::parse(c)?)),
        None => (place, None),
    };
    let province = *variant.find(space)?.first()?;
    Some(RecordedUnit {
        power,
        unit,
        region: Region { province, coast },
    })
}

/// A MILA order in this judge's order notation (docs/orders.md): `A EDI - NWY VIA` →
/// `A EDI - NWY via convoy`, `A PAR B` → `BUILD A PAR`, `A BUD D` → `A BUD DISBAND` in a
/// retreat phase and `REMOVE A BUD` in an adjustment phase. The rest is already readable.
fn order_text(order: &str, kind: Option<PhaseKind>) -> Option<String> {
    let words: Vec<&str> = order.split_whitespace().collect();
    Some(match (words.as_slice(), kind?) {
        (["WAIVE"], PhaseKind::Adjustment) => "WAIVE".to_string(),
        ([u, at, "B"], PhaseKind::Adjustment) => format!("BUILD {u} {at}"),
        ([u, at, "D"], PhaseKind::Adjustment) => format!("REMOVE {u} {at}"),
        ([u, at, "D"], PhaseKind::Retreat) => format!("{u} {at} DISBAND"),
        ([_, _, "R", _], PhaseKind::Retreat) => order.to_string(),
        ([head @ .., "VIA"], PhaseKind::Movement) => format!("{} via convoy", head.join(" ")),
        ([_, _, "H" | "-" | "S" | "C", ..], PhaseKind::Movement) => order.to_string(),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phase_names_map_to_phases() {
        let p = phase_of("F1902R");
        assert_eq!(
            p,
            Some(Phase {
                year: 1902,
                season: Season::Autumn,
                kind: PhaseKind::Retreat
            })
        );
        // A Winter movement phase is not in the calendar; a name without a year is not a phase.
        assert_eq!(phase_of("W1902M"), None);
        assert_eq!(phase_of("SM"), None);
    }

    #[test]
    fn an_unknown_phase_is_an_error_naming_it() {
        let variant = napjudge_engine::variant::load_named("standard").expect("standard board");
        let json = r#"{"id": 1, "phases": [{"name": "X1901Q", "state": {}}]}"#;
        let err = read(&variant, json).expect_err("X1901Q is no phase");
        assert!(err.to_string().contains("X1901Q"), "{err}");
    }

    #[test]
    fn orders_become_this_judges_notation() {
        let m = Some(PhaseKind::Movement);
        let a = Some(PhaseKind::Adjustment);
        let r = Some(PhaseKind::Retreat);
        assert_eq!(
            order_text("A EDI - NWY VIA", m).as_deref(),
            Some("A EDI - NWY via convoy")
        );
        assert_eq!(order_text("A PAR B", a).as_deref(), Some("BUILD A PAR"));
        assert_eq!(order_text("A BUD D", a).as_deref(), Some("REMOVE A BUD"));
        assert_eq!(order_text("A BUD D", r).as_deref(), Some("A BUD DISBAND"));
        // A build in a movement phase is not an order of the format.
        assert_eq!(order_text("A PAR B", m), None);
    }

    /// The writer is the reader's inverse (the export's round trip): each order of
    /// the format read and written back is itself.
    #[test]
    fn orders_written_back_are_the_formats() {
        let cases = [
            ("A EDI - NWY VIA", PhaseKind::Movement),
            ("F NTH S A PIC - BEL", PhaseKind::Movement),
            ("A PAR B", PhaseKind::Adjustment),
            ("A BUD D", PhaseKind::Adjustment),
            ("WAIVE", PhaseKind::Adjustment),
            ("A BUD D", PhaseKind::Retreat),
            ("F NAO R MAO", PhaseKind::Retreat),
        ];
        for (order, kind) in cases {
            let ours = order_text(order, Some(kind)).expect("an order of the format");
            assert_eq!(mila_order(&ours, Some(kind)), order);
        }
        let bids = Phase {
            year: 1800,
            season: Season::Winter,
            kind: PhaseKind::Bids,
        };
        assert_eq!(
            phase_name(bids),
            None,
            "Winter 1800 Bids has no name in the format"
        );
    }
}
