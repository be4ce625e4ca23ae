//! One call per phase: a position and each power's order text in, a [`PhaseReport`] out.
//!
//! [`play`] is the whole turn pipeline (the GM's commands, parsing each power's text, validation
//! with R1.4 counted per power, adjudication, the fleets' second phase and the Winter); [`check`]
//! is its first half alone, the acknowledgement of one power's orders. The case runner, the
//! benches, the command line and the judge all go through these two.

use crate::adjudicate;
use crate::order::{parse_mail, Order, OrderKind, ParseError, Place, Stage, UnitSpec};
use crate::outcome::{Event, Outcome, Void};
use crate::position::{Dislodged, Force, Item, LedgerError, Position};
use crate::validate::{
    check_mail, over_named_across_sheets, retreat_barred, Checker, Sheet, ValidationError,
};
use crate::variant::{Phase, PhaseKind, PowerId, ProvinceId, Region, Trapped, Variant};
use crate::winter::GmCommand;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What the phase is given: the GM's commands and each power's order text.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sheets {
    /// GM commands (`CONTROL Denmark France`), carried out before the orders are read (R7.8).
    pub gm: Vec<String>,
    /// Each power's orders as written, one order a line (a controller writes its minors' orders).
    pub orders: BTreeMap<PowerId, String>,
}

/// Why an order could not be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum OrderError {
    /// The line is not an order.
    #[error("{0}")]
    Parse(ParseError),
    /// The order is not legal here (it is void; its units hold).
    #[error("{0}")]
    Invalid(ValidationError),
}

/// One line of a power's orders, read and checked against the position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckedOrder {
    /// The 1-based line in the power's text.
    pub line: usize,
    /// The line as written.
    pub text: String,
    /// The order as parsed, when it parsed.
    pub parsed: Option<Order<Place>>,
    /// The order the adjudicator gets, or why there is none.
    pub checked: Result<Order<Region>, OrderError>,
}

impl CheckedOrder {
    /// How many participants of a one-line merge validation left out (a unit that isn't there,
    /// or a name no meaning settles): they take no part and the others merge (R2.4, R2.6).
    pub fn dropped_participants(&self) -> usize {
        match (&self.parsed, &self.checked) {
            (Some(p), Ok(c)) => match (&p.kind, &c.kind) {
                (OrderKind::Merge { units: written, .. }, OrderKind::Merge { units: kept, .. }) => {
                    written.len().saturating_sub(kept.len())
                }
                _ => 0,
            },
            _ => 0,
        }
    }

    /// The canonical form: of the checked order, else of the order as parsed.
    pub fn canonical(&self, variant: &Variant) -> Option<String> {
        match (&self.checked, &self.parsed) {
            (Ok(o), _) => Some(o.display(variant)),
            (Err(_), Some(p)) => Some(p.display(variant)),
            (Err(_), None) => None,
        }
    }
}

/// Reads and checks one power's orders: each line that is not blank or a `#` comment parsed (a
/// `France:` prefix must name `power`), then the parsed orders validated together (R1.4), each
/// message about an earlier order naming its line. Without a position only the board is checked;
/// without a power any power's units may be ordered.
pub fn check(
    variant: &Variant,
    position: Option<&Position>,
    power: Option<PowerId>,
    text: &str,
) -> Vec<CheckedOrder> {
    let parsed = parse_mail(variant, text, power);
    // Borrowed, not cloned: the parsed orders are kept for the report.
    let orders: Vec<(usize, &Order<Place>)> = parsed
        .iter()
        .filter_map(|r| r.as_ref().ok().map(|p| (p.line, &p.order)))
        .collect();
    let checker = Checker {
        variant,
        position,
        power,
    };
    let mut valid = check_mail(&checker, &orders).into_iter();
    // The results come in the order of their lines, one a line: the text is read alongside.
    let mut lines = text.lines().enumerate();
    parsed
        .into_iter()
        .map(|r| {
            let (line, parsed, checked) = match r {
                Ok(p) => {
                    let checked = valid
                        .next()
                        .expect("check_mail gives one result per order")
                        .map_err(OrderError::Invalid);
                    (p.line, Some(p.order), checked)
                }
                Err(e) => (e.line, None, Err(OrderError::Parse(e))),
            };
            let text = lines
                .find(|&(i, _)| i + 1 == line)
                .map_or(String::new(), |(_, l)| l.trim().to_string());
            CheckedOrder {
                line,
                text,
                parsed,
                checked,
            }
        })
        .collect()
}

/// One order of the phase with what became of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderReport {
    /// The order as read and checked.
    pub order: CheckedOrder,
    /// Its canonical form, when it parsed.
    pub canonical: Option<String>,
    /// Its outcome (an order that failed validation is void, its units hold), or its error.
    pub result: Result<Outcome, OrderError>,
}

/// A power's orders in the phase.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PowerOrders {
    /// The power that gave them.
    pub power: PowerId,
    /// Every line, in the order written.
    pub orders: Vec<OrderReport>,
}

/// A second-phase order decided after the first phase (R4).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SecondOrder {
    /// The power that gave it.
    pub power: PowerId,
    /// The order, naming where the fleet is after its first move.
    pub order: Order<Region>,
    /// Its canonical form (`2: F(ENG)-MAO`).
    pub canonical: String,
    /// Its outcome.
    pub outcome: Outcome,
}

/// A force waiting for its retreat, with the spaces it may retreat to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Retreats {
    /// The dislodged force.
    pub dislodged: Dislodged,
    /// The regions it may legally retreat to (empty: it can only disband).
    pub to: Vec<Region>,
}

/// A power's Winter ledger after the phase, as items.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PowerLedger {
    /// The power.
    pub power: PowerId,
    /// Its items (`bank 6`, `loan 3 to France`, `controller England 2 years`).
    pub items: Vec<Item>,
}

/// Everything a phase gave: what the judge stores and the result mails print.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseReport {
    /// The phase played.
    pub phase: Phase,
    /// Each power's orders with their outcomes, in power order.
    pub powers: Vec<PowerOrders>,
    /// Second-phase orders decided while finishing the phase, with their outcomes (R4).
    pub second: Vec<SecondOrder>,
    /// Forces dislodged, with their legal retreats.
    pub dislodged: Vec<Retreats>,
    /// What else happened, in order.
    pub events: Vec<Event>,
    /// After a Winter phase, every power's ledger; empty otherwise.
    pub ledgers: Vec<PowerLedger>,
    /// The position after the phase, in the next phase that needs orders.
    pub next: Position,
    /// The powers that owe orders in the next phase.
    pub owe: Vec<PowerId>,
    /// The forces of the powers that sent orders which no order named, after the GM's commands:
    /// they held, or in a retreat disbanded. Reports stored before this field have none.
    #[serde(default)]
    pub unordered: Vec<Unordered>,
}

/// Why a phase can't be played.
#[derive(Debug, thiserror::Error)]
pub enum TurnError {
    /// A GM command that can't be carried out.
    #[error("GM command '{command}': {source}")]
    Gm {
        /// Its index in [`Sheets::gm`].
        index: usize,
        /// The command as written.
        command: String,
        /// Why.
        source: LedgerError,
    },
}

/// Plays the phase `position` is in with the GM's commands and each power's orders, on to the
/// next phase that needs orders.
pub fn play(
    variant: &Variant,
    position: &Position,
    sheets: &Sheets,
) -> Result<PhaseReport, TurnError> {
    let mut position = position.clone();
    // The GM acts before the phase is processed (R7.8).
    let mut gm_events = Vec::with_capacity(sheets.gm.len());
    for (index, command) in sheets.gm.iter().enumerate() {
        let event = GmCommand::parse(variant, command)
            .and_then(|c| c.apply(variant, &mut position))
            .map_err(|source| TurnError::Gm {
                index,
                command: command.clone(),
                source,
            })?;
        gm_events.push(Event::Winter(event));
    }
    let mut checked: Vec<(PowerId, Vec<CheckedOrder>)> = sheets
        .orders
        .iter()
        .map(|(&power, text)| (power, check(variant, Some(&position), Some(power), text)))
        .collect();
    // R1.4 across the sheets: a unit ordered on two (a controlled minor's by its controller and
    // on the minor's own sheet) is over-named as on one.
    let valid_by_sheet: Vec<Sheet> = checked
        .iter()
        .map(|(power, orders)| {
            let ok = orders
                .iter()
                .filter_map(|c| c.checked.as_ref().ok().map(|o| (c.line, o)))
                .collect();
            (*power, ok)
        })
        .collect();
    let over = over_named_across_sheets(variant, &position, &valid_by_sheet);
    let valid_at: Vec<Vec<usize>> = checked
        .iter()
        .map(|(_, orders)| {
            (0..orders.len())
                .filter(|&j| orders[j].checked.is_ok())
                .collect()
        })
        .collect();
    for ((s, k), e) in over {
        checked[s].1[valid_at[s][k]].checked = Err(OrderError::Invalid(e));
    }
    let valid: Vec<(PowerId, Order<Region>)> = checked
        .iter()
        .flat_map(|(power, orders)| {
            orders
                .iter()
                .filter_map(move |c| c.checked.as_ref().ok().map(|o| (*power, o.clone())))
        })
        .collect();
    let unordered: Vec<Unordered> = checked
        .iter()
        .flat_map(|(power, orders)| {
            let mine: Vec<&Order<Region>> = orders
                .iter()
                .filter_map(|c| c.checked.as_ref().ok())
                .collect();
            self::unordered(&position, *power, &mine)
        })
        .collect();
    let result = adjudicate::adjudicate(variant, &position, &valid);
    let mut outcomes = result.outcomes.into_iter();
    let powers = checked
        .into_iter()
        .map(|(power, orders)| PowerOrders {
            power,
            orders: orders
                .into_iter()
                .map(|order| {
                    let result = match &order.checked {
                        Ok(_) => Ok(outcomes.next().unwrap_or(Outcome::Void(Void::NoUnit))),
                        Err(e) => Err(e.clone()),
                    };
                    OrderReport {
                        canonical: order.canonical(variant),
                        order,
                        result,
                    }
                })
                .collect(),
        })
        .collect();
    let second = result
        .second
        .into_iter()
        .map(|(power, order, outcome)| SecondOrder {
            power,
            canonical: order.display(variant),
            order,
            outcome,
        })
        .collect();
    let next = result.position;
    let mut events = gm_events;
    events.extend(result.events);
    let winter = matches!(position.phase.kind, PhaseKind::Adjustment | PhaseKind::Bids)
        && (variant.rules.supply_points || variant.rules.influence);
    let ledgers = if winter {
        variant
            .power_ids()
            .map(|power| PowerLedger {
                power,
                items: next.ledgers.items(variant, power),
            })
            .collect()
    } else {
        Vec::new()
    };
    Ok(PhaseReport {
        phase: position.phase,
        powers,
        second,
        dislodged: next
            .dislodged
            .iter()
            .map(|d| Retreats {
                dislodged: *d,
                to: legal_retreats(variant, &next, d),
            })
            .collect(),
        events,
        ledgers,
        owe: owing(variant, &next),
        next,
        unordered,
    })
}

/// What happens this phase to a power's units no order names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Fate {
    /// In a movement phase they hold.
    Holds,
    /// In a retreat phase they disband.
    Disbands,
}

/// Components of a force no order names, and what happens to them this phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unordered {
    /// The power whose orders left them out (their owner, or the minor's controller).
    pub power: PowerId,
    /// Where the force is.
    pub at: ProvinceId,
    /// The components no order names (with the force's owner and coast).
    pub force: Force,
    /// What happens to them.
    pub fate: Fate,
}

/// The forces of `power` (its own and its controlled minors') no order in `orders` names, with
/// what happens to them: in a movement phase the components no first-phase order names hold; in
/// a retreat phase a dislodged force with no order disbands. None in a Winter (the acknowledgement warns of its
/// defaults, `advice::Warning::BuildsUnused` and `CivilDisorder`).
pub fn unordered(position: &Position, power: PowerId, orders: &[&Order<Region>]) -> Vec<Unordered> {
    let mine = |owner: PowerId| position.commands(power, owner);
    match position.phase.kind {
        PhaseKind::Movement | PhaseKind::SecondMovement => {
            // By space: (armies, fleets) named. A space's id is a byte: a table, not a map.
            let mut named_at = [(0u32, 0u32); 256];
            for o in orders.iter().filter(|o| o.stage == Stage::First) {
                for u in named(o) {
                    let n = &mut named_at[u.at.province.index()];
                    n.0 += u32::from(u.armies);
                    n.1 += u32::from(u.fleets);
                }
            }
            let less = |have: u8, named: u32| {
                u8::try_from(u32::from(have).saturating_sub(named)).unwrap_or(0)
            };
            position
                .forces()
                .filter(|(_, f)| mine(f.power))
                .filter_map(|(at, f)| {
                    let (a, fl) = named_at[at.index()];
                    let rest = Force {
                        armies: less(f.armies, a),
                        fleets: less(f.fleets, fl),
                        ..*f
                    };
                    (rest.components() > 0).then_some(Unordered {
                        power,
                        at,
                        force: rest,
                        fate: Fate::Holds,
                    })
                })
                .collect()
        }
        PhaseKind::Retreat | PhaseKind::SecondRetreat => position
            .dislodged
            .iter()
            .filter(|d| mine(d.force.power))
            .filter(|d| {
                !orders.iter().any(|o| {
                    matches!(&o.kind, OrderKind::Retreat { unit, .. } | OrderKind::Disband { unit }
                        if unit.at.province == d.province)
                })
            })
            .map(|d| Unordered {
                power,
                at: d.province,
                force: d.force,
                fate: Fate::Disbands,
            })
            .collect(),
        PhaseKind::Adjustment | PhaseKind::Bids => Vec::new(),
    }
}

/// The units an order names, with the stage it acts in: an embarkation names its army and the
/// fleet it boards. An iterator, not a list: asked of every order of every sheet (issue 35).
pub fn named(order: &Order<Region>) -> impl Iterator<Item = &UnitSpec<Region>> {
    let (many, pair) = match &order.kind {
        OrderKind::Merge { units, .. } => (units.as_slice(), [None, None]),
        OrderKind::EmbarkWith { unit, fleet, .. } => (&[][..], [Some(unit), Some(fleet)]),
        kind => (&[][..], [kind.unit(), None]),
    };
    many.iter().chain(pair.into_iter().flatten())
}

/// The regions a dislodged force may retreat to as a whole: those a retreat order validates for
/// and the retreat phase does not refuse (occupied, the attacker's origin, a stand-off).
pub fn legal_retreats(variant: &Variant, position: &Position, d: &Dislodged) -> Vec<Region> {
    let checker = Checker {
        variant,
        position: Some(position),
        power: None,
    };
    let unit = UnitSpec {
        armies: d.force.armies,
        fleets: d.force.fleets,
        at: Place::Known(Region {
            province: d.province,
            coast: d.force.coast,
        }),
    };
    // Only the spaces some component reaches from there are tried: the check below still
    // decides, and trying the whole board was most of a phase report's cost (issue 35).
    let from = d.province;
    let near = |p: ProvinceId| {
        variant.fleet_reach[from.index()].contains(p) || variant.army_reaches(from, p)
    };
    variant
        .province_ids()
        .filter(|&p| p != from && near(p) && retreat_barred(position, d, p).is_none())
        .flat_map(|p| {
            let coasts = &variant.province(p).coasts;
            std::iter::once(Region::of(p)).chain(coasts.iter().map(move |&c| Region {
                province: p,
                coast: Some(c),
            }))
        })
        .filter(|&to| {
            let order = Order::new(OrderKind::Retreat {
                unit: unit.clone(),
                to: Place::Known(to),
            });
            checker.check(&order).is_ok_and(|o| match o.kind {
                OrderKind::Retreat { to: settled, .. } => settled == to,
                _ => false,
            })
        })
        .collect()
}

/// Whether a dislodged force has a retreat to order: the whole force, or one army or one fleet
/// of it (R1.9: a force may split its retreat), may retreat somewhere. A force with none
/// disbands whatever is ordered, so nobody owes an order for it.
pub fn may_retreat(variant: &Variant, position: &Position, d: &Dislodged) -> bool {
    let f = d.force;
    [
        (f.armies, f.fleets),
        (f.armies.min(1), 0),
        (0, f.fleets.min(1)),
    ]
    .into_iter()
    .filter(|&(armies, fleets)| armies + fleets > 0)
    .any(|(armies, fleets)| {
        let part = Dislodged {
            force: Force {
                armies,
                fleets,
                ..f
            },
            ..*d
        };
        !legal_retreats(variant, position, &part).is_empty()
    })
}

/// The powers that owe orders in `position`'s phase: in a movement phase, every major with a
/// unit to order (a controlled minor's units are its controller's to order); in a retreat phase,
/// only those with a dislodged force that may retreat somewhere ([`may_retreat`]; with any
/// dislodged force under webDiplomacy's edition, [`Trapped`]); in a Winter,
/// every major still in the game. What is shown as owed (reminders, "Orders due from") and what
/// the judge waits for are this one list.
pub fn owing(variant: &Variant, position: &Position) -> Vec<PowerId> {
    // Who is a major is read from the ledgers: an adoption (R7.11) changes it.
    let major = |p: PowerId| position.ledgers.is_major(variant, p);
    let commander = |owner: PowerId| {
        if major(owner) {
            Some(owner)
        } else {
            position.ledgers.controller(owner)
        }
    };
    let mut owe: Vec<PowerId> = match position.phase.kind {
        PhaseKind::Movement | PhaseKind::SecondMovement => position
            .forces()
            .filter_map(|(_, f)| commander(f.power))
            .collect(),
        PhaseKind::Retreat | PhaseKind::SecondRetreat => position
            .dislodged
            .iter()
            .filter(|d| {
                variant.rules.edition.trapped == Trapped::OwesADisband
                    || may_retreat(variant, position, d)
            })
            .filter_map(|d| commander(d.force.power))
            .collect(),
        PhaseKind::Adjustment | PhaseKind::Bids => variant
            .power_ids()
            .filter(|&p| major(p))
            .filter(|&p| {
                position.phase.kind == PhaseKind::Bids
                    || position.centre_count(variant, p) > 0
                    || position.forces().any(|(_, f)| f.power == p)
            })
            .collect(),
    };
    owe.sort();
    owe.dedup();
    owe
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::{load_named, PowerKind, ProvinceSet, Season, UnitType};

    fn power(v: &Variant, name: &str) -> PowerId {
        v.power_by_name(name).expect("a power of the board")
    }

    /// R7.9: a controlled minor's orders come from its controller; an uncontrolled minor owes none.
    #[test]
    fn r7_9_a_controlled_minor_is_ordered_by_its_controller() {
        let v = load_named("napoleonic").expect("the board loads");
        let mut pos = Position::initial(&v);
        pos.phase = Phase {
            year: 1805,
            season: Season::Spring,
            kind: PhaseKind::Movement,
        };
        let sheets = Sheets {
            gm: vec!["CONTROL Sweden England".into()],
            orders: BTreeMap::new(),
        };
        let report = play(&v, &pos, &sheets).expect("the GM's command applies");
        let sweden = power(&v, "Sweden");
        let england = power(&v, "England");
        assert_eq!(report.next.ledgers.controller(sweden), Some(england));
        assert!(report.owe.contains(&england), "{:?}", report.owe);
        assert!(!report.owe.contains(&sweden), "{:?}", report.owe);
        assert!(report
            .owe
            .iter()
            .all(|&p| v.power(p).kind == PowerKind::Major));
    }

    /// R7.11: after an adoption the new major owes the Winter's orders and the old one, now a
    /// minor, owes none of its own.
    #[test]
    fn r7_11_an_adopted_major_owes_the_winter_orders() {
        let v = load_named("napoleonic").expect("the board loads");
        let mut pos = Position::initial(&v);
        pos.phase = Phase {
            year: 1805,
            season: Season::Winter,
            kind: PhaseKind::Adjustment,
        };
        let (sweden, england) = (power(&v, "Sweden"), power(&v, "England"));
        pos.ledgers
            .adoptions
            .push(crate::position::ledger::Adoption {
                old: england,
                new: sweden,
                homes: ProvinceSet::EMPTY,
            });
        let owe = owing(&v, &pos);
        assert!(owe.contains(&sweden), "{owe:?}");
        assert!(!owe.contains(&england), "{owe:?}");
    }

    /// Issue 32, finding 9: a dislodged unit with nowhere to retreat owes no order,
    /// and a retreat phase where no dislodged unit may retreat owes none from anyone.
    #[test]
    fn a_unit_with_no_retreat_owes_no_order() {
        let v = load_named("standard").expect("the board loads");
        let mut pos = Position::initial(&v);
        pos.phase = Phase {
            year: 1901,
            season: Season::Spring,
            kind: PhaseKind::Retreat,
        };
        let at = |name: &str| v.find(name).expect("a space")[0];
        let france = power(&v, "France");
        // A(Bre) dislodged: Paris is France's own, Picardy and Gascony stood off.
        pos.dislodged.push(Dislodged {
            province: at("Bre"),
            force: Force::single(france, UnitType::Army, None),
            attacker_from: ProvinceSet::EMPTY,
            by_convoy: false,
            sea_time: Default::default(),
        });
        pos.standoffs.insert(at("Pic"));
        pos.standoffs.insert(at("Gas"));
        assert!(owing(&v, &pos).is_empty(), "{:?}", owing(&v, &pos));
        pos.standoffs = ProvinceSet::EMPTY;
        pos.standoffs.insert(at("Pic"));
        assert_eq!(owing(&v, &pos), vec![france]);
    }

    /// R1.4 through the acknowledgement: two orders for a one-unit force are both refused, each
    /// with its line and naming the other's, whichever was written first (RULINGS section 0).
    #[test]
    fn r1_4_check_refuses_both_orders_for_one_unit() {
        let v = load_named("standard").expect("the board loads");
        let pos = Position::initial(&v);
        let france = power(&v, "France");
        let checked = check(&v, Some(&pos), Some(france), "A(Par)-Bur\n\nA(Par)-Pic\n");
        assert_eq!(checked.len(), 2);
        assert_eq!(checked[0].line, 1);
        assert_eq!(checked[1].line, 3);
        assert_eq!(checked[1].text, "A(Par)-Pic");
        let message = |k: usize| match &checked[k].checked {
            Err(OrderError::Invalid(e)) => e.to_string(),
            other => panic!("line {}: {other:?}", checked[k].line),
        };
        assert!(
            message(0).contains("also ordered in line 3"),
            "{}",
            message(0)
        );
        assert!(
            message(1).contains("also ordered in line 1"),
            "{}",
            message(1)
        );
    }
}
