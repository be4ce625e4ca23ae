//! Warnings for the acknowledgement: what a power's orders will do that the power may not mean,
//! known from the position and its own orders before the deadline. They never change an order:
//! the orders stand as written, and the warnings say why one will not do what it says.
//!
//! [`check`] is [`turn::check`] with the warnings: the lines read and checked once, then
//! - in a movement phase: the forces with no order (they hold), moves that need a convoy none of
//!   the power's fleets gives, moves into the power's own space that will bounce (a MERGE was
//!   perhaps meant), supports and convoys of the power's own units that name an order those units
//!   don't give, supports of a merge none of the power's forces makes, second-phase orders with no
//!   fleet of the power to carry them out;
//! - in a retreat phase: the dislodged forces with no order (they disband);
//! - in a Winter: the power's orders played alone through [`turn::play`], the very adjudication
//!   the phase gets ([`crate::winter::adjudicate`]), so an order the power's supply points or
//!   builds can't pay for is warned with the engine's own refusal, and builds left unused or
//!   removals left to civil disorder are named; with the power's [`Budget`] (SP and IP).
//!
//! Only another power's orders can make an order without a warning void, or a Winter order fail:
//! a loan to the power or a renewal of its debt (more SP, so a removal may no longer be due),
//! another power's unit removed from a build site, and in a movement phase the outcomes of the
//! first moves (R4.3), other powers' units named by a support or convoy, and the fleets at sea
//! (DATC 6.D.31, 6.G.6). `tests/warnings.rs` plays random orders to hold that promise.

use crate::adjudicate::season;
use crate::order::{Order, OrderKind, Place, Stage, UnitSpec};
use crate::outcome::{Outcome, Reason, Void, WinterEvent};
use crate::position::Position;
use crate::turn::{self, named, CheckedOrder, Sheets, Unordered};
use crate::validate::Checker;
use crate::variant::{PhaseKind, PowerId, ProvinceId, Region, SpaceKind, Variant};
use crate::winter::{self, adjust, supply};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One warning: data, made into words by the judge.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Warning {
    /// Components of a force with no order, and what happens to them.
    Unordered(Unordered),
    /// An army's move that needs a convoy no fleet of the power is ordered to give.
    NeedsConvoy {
        /// Where it goes.
        to: ProvinceId,
    },
    /// A move into a space where the power's own force stays: it bounces.
    IntoOwnHeld {
        /// The space.
        to: ProvinceId,
        /// The same units merging there (`A(Mar) MERGE Bur`), when that is a valid order.
        merge: Option<Order<Region>>,
    },
    /// A support of the power's own force that gives another order (or none): the support is
    /// void. `ordered`: the line of that force's order, if it has one.
    SupportNotGiven {
        /// Where the supported force is.
        at: ProvinceId,
        /// The line of its order, or none (it holds).
        ordered: Option<usize>,
    },
    /// A convoy of the power's own army that is not ordered to that move: the convoy is void.
    ConvoyNotUsed {
        /// Where the army is.
        at: ProvinceId,
        /// The line of its order, or none (it holds).
        ordered: Option<usize>,
    },
    /// A support of a merge into a space no force of the power merges into.
    NoMergeToSupport {
        /// The space.
        target: ProvinceId,
    },
    /// A second-phase order naming more fleets in a space than the power will have there to move
    /// again after the first moves (R4.3).
    NoFirstMove {
        /// The space the order names.
        at: ProvinceId,
    },
    /// An order that fails or is void when the power's orders are played alone: in a Winter any
    /// (the budget's checks among them), in a movement phase a void only its own orders decide.
    Alone(Outcome),
    /// Builds the power may make and leaves unordered (none is built for them), as many as the SP
    /// it doesn't bank, convert or lend could still pay for.
    BuildsUnused(u32),
    /// Removals due and not ordered: civil disorder removes these units.
    CivilDisorder(Vec<(ProvinceId, crate::variant::UnitType)>),
}

/// A warning and the line it is about (none: about the whole set).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Advice {
    /// The 1-based line of the power's text.
    pub line: Option<usize>,
    /// What.
    pub warning: Warning,
}

/// A power's means in a Winter with its orders so far (RULINGS §7): what its orders may spend.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Budget {
    /// In an adjustment phase, its units and what pays for them.
    pub units: Option<Units>,
    /// With influence, a major's IP for this Winter's bids (R7.5, R7.6).
    pub ip: Option<Ip>,
}

/// A power's units in an adjustment phase and what pays for them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Units {
    /// SP at hand this Winter (income, bank, repayments, the power's own loans), when the game
    /// has supply points.
    pub sp: Option<u32>,
    /// Units (components) on the board.
    pub count: u32,
    /// What they cost (with supply points, 3 SP each).
    pub upkeep: u32,
    /// Builds available (negative: removals due).
    pub builds: i32,
}

impl Units {
    /// SP left after upkeep (negative: short).
    pub fn left(&self) -> Option<i64> {
        self.sp.map(|sp| i64::from(sp) - i64::from(self.upkeep))
    }
}

/// A major's influence points this Winter, as the Winter's own steps (c) and (d) count them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ip {
    /// IP received: 3 per centre, 2 per minor controlled, 2 per SP converted (R7.5).
    pub received: u32,
    /// SP its orders convert (their IP are in `received`).
    pub converted: u32,
    /// IP its bids taken spend.
    pub spent: u32,
    /// Its automatic IP as incumbent (R7.7), per minor: added to its total there, not spendable.
    pub automatic: Vec<(PowerId, u32)>,
}

impl Ip {
    /// IP its bids may still spend.
    pub fn left(&self) -> u32 {
        self.received.saturating_sub(self.spent)
    }
}

/// A power's Winter budget with `orders` its own orders (its loans, conversions and bids count):
/// none outside a Winter or for a power with neither units to order nor IP. The units' part is
/// the Winter's own opening of the accounts ([`supply::open`]); the IP the Winter played with
/// these orders alone ([`winter::adjudicate`]), so the acknowledgement, LIST and the reminders
/// show what the phase will count.
pub fn budget(
    variant: &Variant,
    position: &Position,
    power: PowerId,
    orders: &[Order<Region>],
) -> Option<Budget> {
    if !matches!(position.phase.kind, PhaseKind::Adjustment | PhaseKind::Bids) {
        return None;
    }
    let own: Vec<(PowerId, Order<Region>)> = orders.iter().map(|o| (power, o.clone())).collect();
    let units = (position.phase.kind == PhaseKind::Adjustment)
        .then(|| units(variant, position, power, &own));
    let ip = ip(variant, position, power, &own);
    (units.is_some() || ip.is_some()).then_some(Budget { units, ip })
}

fn units(
    variant: &Variant,
    position: &Position,
    power: PowerId,
    own: &[(PowerId, Order<Region>)],
) -> Units {
    let count = supply::unit_count(position, power);
    let by_sp = variant.rules.supply_points && position.ledgers.is_major(variant, power);
    if !by_sp {
        let keep = adjust::allowance(variant, position, power);
        return Units {
            sp: None,
            count,
            upkeep: count,
            builds: keep - count as i32,
        };
    }
    let mut outcomes = vec![Outcome::Succeeds; own.len()];
    let mut ledgers = position.ledgers.clone();
    ledgers.start_winter();
    supply::open(variant, position, own, &mut outcomes, &mut ledgers);
    let sp = ledgers.accounts.get(&power).map_or(0, |a| a.available);
    Units {
        sp: Some(sp),
        count,
        upkeep: supply::SP_PER_UNIT * count,
        builds: supply::units_paid(&ledgers, power) - count as i32,
    }
}

fn ip(
    variant: &Variant,
    position: &Position,
    power: PowerId,
    own: &[(PowerId, Order<Region>)],
) -> Option<Ip> {
    if !variant.rules.influence || !position.ledgers.is_major(variant, power) {
        return None;
    }
    let (_, next, _) = winter::adjudicate(variant, position, own);
    let l = &next.ledgers;
    let influence = l.influence.get(&power)?;
    Some(Ip {
        received: influence.received,
        converted: l.accounts.get(&power).map_or(0, |a| a.converted),
        spent: influence.spent,
        automatic: l
            .automatic
            .iter()
            .filter(|(_, (incumbent, _))| *incumbent == power)
            .map(|(&minor, &(_, n))| (minor, n))
            .collect(),
    })
}

/// A power's orders read and checked ([`turn::check`]), with the warnings and, in a Winter, its
/// budget.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Advised {
    /// Each line as [`turn::check`] gives it.
    pub orders: Vec<CheckedOrder>,
    /// The warnings, those about a line in the order of the lines, then those about the set.
    pub advice: Vec<Advice>,
    /// In an adjustment phase, the power's budget.
    pub budget: Option<Budget>,
}

/// Reads and checks `power`'s orders as [`turn::check`] does, and warns of what they will do
/// that the power may not mean. `gm` are the GM's commands for the phase (they act first,
/// R7.8).
pub fn check(
    variant: &Variant,
    position: &Position,
    gm: &[String],
    power: PowerId,
    text: &str,
) -> Advised {
    let orders = turn::check(variant, Some(position), Some(power), text);
    let kept: Vec<(usize, &Order<Region>)> = orders
        .iter()
        .filter_map(|c| c.checked.as_ref().ok().map(|o| (c.line, o)))
        .collect();
    let plain: Vec<Order<Region>> = kept.iter().map(|(_, o)| (*o).clone()).collect();
    let mut advice = Vec::new();
    let mut budget = None;
    match position.phase.kind {
        PhaseKind::Movement | PhaseKind::SecondMovement => {
            let voids = own_voids(variant, position, gm, power, &orders);
            let void_lines: Vec<usize> = voids.iter().filter_map(|a| a.line).collect();
            advice = movement(variant, position, power, &kept, &void_lines);
            // A move no fleet could carry is told once, as the convoy it needs.
            let needs_convoy = |line: Option<usize>| {
                advice
                    .iter()
                    .any(|a| a.line == line && matches!(a.warning, Warning::NeedsConvoy { .. }))
            };
            let voids: Vec<Advice> = voids
                .into_iter()
                .filter(|v| {
                    v.warning != Warning::Alone(Outcome::Void(Void::NoConvoyPossible))
                        || !needs_convoy(v.line)
                })
                .collect();
            advice.extend(voids);
        }
        PhaseKind::Retreat | PhaseKind::SecondRetreat => {}
        PhaseKind::Adjustment | PhaseKind::Bids => {
            budget = self::budget(variant, position, power, &plain);
            advice = self::winter(variant, position, gm, power, &orders, budget.as_ref());
        }
    }
    let ordered: Vec<&Order<Region>> = kept.iter().map(|(_, o)| *o).collect();
    advice.extend(
        turn::unordered(position, power, &ordered)
            .into_iter()
            .map(|u| Advice {
                line: None,
                warning: Warning::Unordered(u),
            }),
    );
    Advised {
        orders,
        advice,
        budget,
    }
}

/// Where an order's units at `at` go in the first phase, if they move: a move's target, a merge
/// participant's (outside the target), a landing's coast, an embarking army's sea.
fn leaves_to(order: &Order<Region>, at: ProvinceId) -> Option<ProvinceId> {
    leaves_for(order, at).map(|r| r.province)
}

/// [`leaves_to`] with the coast the order names.
fn leaves_for(order: &Order<Region>, at: ProvinceId) -> Option<Region> {
    match &order.kind {
        OrderKind::Move { unit, to, .. } if unit.at.province == at => Some(*to),
        OrderKind::Disembark { unit, to } if unit.at.province == at => Some(*to),
        OrderKind::Embark { unit, sea } if unit.at.province == at => Some(*sea),
        // The army boards the fleet, and the fleet's first move is the order's too.
        OrderKind::EmbarkWith {
            unit, fleet, to, ..
        } if unit.at.province == at || fleet.at.province == at => Some(*to),
        OrderKind::Merge { units, target, .. }
            if target.province != at && units.iter().any(|u| u.at.province == at) =>
        {
            Some(*target)
        }
        _ => None,
    }
}

/// The movement phase's warnings. `void_lines`: the orders the power's own set makes void
/// ([`own_voids`]): they are warned themselves, and their units stay where they are, so what
/// leans on them (a support of the move, the space it would have left) is judged without them.
fn movement(
    variant: &Variant,
    position: &Position,
    power: PowerId,
    kept: &[(usize, &Order<Region>)],
    void_lines: &[usize],
) -> Vec<Advice> {
    let first: Vec<(usize, &Order<Region>)> = kept
        .iter()
        .filter(|(_, o)| o.stage == Stage::First)
        .copied()
        .collect();
    // The orders that will be carried out as far as the power's own set decides. A void first
    // move still spends its fleets' first move (R4.3), so `first` counts it for the second phase.
    let acting: Vec<(usize, &Order<Region>)> = kept
        .iter()
        .filter(|(l, _)| !void_lines.contains(l))
        .copied()
        .collect();
    let acting_first: Vec<(usize, &Order<Region>)> = acting
        .iter()
        .filter(|(_, o)| o.stage == Stage::First)
        .copied()
        .collect();
    let own = |p: ProvinceId| {
        position
            .force(p)
            .filter(|f| position.commands(power, f.power))
    };
    // Components ordered out of their space: (all, fleets).
    let mut leaving: BTreeMap<ProvinceId, (u32, u32)> = BTreeMap::new();
    for (_, o) in &acting_first {
        for u in named(o) {
            if leaves_to(o, u.at.province).is_some() {
                let l = leaving.entry(u.at.province).or_default();
                l.0 += u32::from(u.armies) + u32::from(u.fleets);
                l.1 += u32::from(u.fleets);
            }
        }
    }
    // Whether some of the power's force in `p` stays there through the first phase. At sea an
    // army is carried: it stays only while a fleet of the force does.
    let stays = |p: ProvinceId| {
        own(p).is_some_and(|f| {
            let (all, fleets) = leaving.get(&p).copied().unwrap_or((0, 0));
            if variant.province(p).kind == SpaceKind::Sea {
                u32::from(f.fleets) > fleets
            } else {
                f.components() > all
            }
        })
    };
    let order_at = |p: ProvinceId| {
        first
            .iter()
            .find(|(_, o)| named(o).any(|u| u.at.province == p))
            .map(|(l, _)| *l)
    };
    // Whether the power's own orders leave a force of it in `p` after the first moves (staying,
    // or ordered in): then no other power's fleet can be there to move again.
    let held = |p: ProvinceId| {
        stays(p)
            || acting_first
                .iter()
                .any(|(_, o)| named(o).any(|u| leaves_to(o, u.at.province) == Some(p)))
    };
    let moves = |from: ProvinceId, to: Region, armies: bool| {
        acting_first.iter().any(|(_, o)| {
            leaves_for(o, from).is_some_and(|d| to.names_move_into(d))
                && named(o).any(|u| u.at.province == from && (!armies || u.armies > 0))
        })
    };
    let checker = Checker {
        variant,
        position: Some(position),
        power: Some(power),
    };
    let mut out = Vec::new();
    let mut warn = |line: usize, warning: Warning| {
        out.push(Advice {
            line: Some(line),
            warning,
        })
    };
    for &(line, o) in kept {
        // A void order is warned as such (`own_voids`), with nothing else to say about it, but
        // for an army's move that needs a convoy: that warning says why in the player's terms.
        let void = void_lines.contains(&line);
        if void && !matches!(o.kind, OrderKind::Move { .. }) {
            continue;
        }
        if o.stage == Stage::Second {
            if let Some(at) = second_without_first(position, power, &first, kept, o) {
                warn(line, Warning::NoFirstMove { at });
            } else if let OrderKind::SupportMove { supported, to, .. } = &o.kind {
                // A support of a second move from a space the power's own force holds after the
                // first moves that no second-phase order of it (or chain) makes.
                let (at, to) = (supported.at.province, to.province);
                let moved = acting.iter().any(|(_, m)| match &m.kind {
                    OrderKind::Move { unit, to: t, .. } if m.stage == Stage::Second => {
                        unit.at.province == at && t.province == to
                    }
                    OrderKind::Move {
                        to: t,
                        then: Some(n),
                        ..
                    }
                    | OrderKind::EmbarkWith {
                        to: t,
                        then: Some(n),
                        ..
                    } => t.province == at && n.province == to,
                    _ => false,
                });
                if held(at) && !moved {
                    // The line that keeps the force there: its second-phase order, else its
                    // first, else the first move that brings it in.
                    let ordered = kept
                        .iter()
                        .find(|(_, m)| {
                            m.stage == Stage::Second && named(m).any(|u| u.at.province == at)
                        })
                        .map(|(l, _)| *l)
                        .or_else(|| order_at(at))
                        .or_else(|| {
                            first
                                .iter()
                                .find(|(_, m)| {
                                    named(m).any(|u| leaves_to(m, u.at.province) == Some(at))
                                })
                                .map(|(l, _)| *l)
                        });
                    warn(line, Warning::SupportNotGiven { at, ordered });
                }
            }
            continue;
        }
        match &o.kind {
            OrderKind::Move { unit, to, .. } => {
                let (from, to) = (unit.at.province, to.province);
                let by_land = variant.army_adjacent(from, to)
                    || (variant.rules.passages && variant.passage(from, to).is_some());
                let convoyed = first.iter().any(|(_, c)| {
                    matches!(&c.kind, OrderKind::Convoy { army, to: t, .. }
                        if army.at.province == from && t.province == to)
                });
                let army = unit.fleets == 0 && unit.armies > 0;
                if army && variant.province(from).kind != SpaceKind::Sea && !by_land && !convoyed {
                    warn(line, Warning::NeedsConvoy { to });
                }
                if stays(to) && !void {
                    let merge = Order::new(OrderKind::Merge {
                        units: vec![place(unit)],
                        target: Place::Known(Region::of(to)),
                        result: None,
                    });
                    let merge = checker.check(&merge).ok();
                    warn(line, Warning::IntoOwnHeld { to, merge });
                }
            }
            OrderKind::SupportHold { supported, .. } => {
                let at = supported.at.province;
                if own(at).is_some() && !stays(at) {
                    let ordered = order_at(at);
                    warn(line, Warning::SupportNotGiven { at, ordered });
                }
            }
            OrderKind::SupportMove { supported, to, .. } => {
                let at = supported.at.province;
                if own(at).is_some() && !moves(at, *to, false) {
                    let ordered = order_at(at);
                    warn(line, Warning::SupportNotGiven { at, ordered });
                }
            }
            OrderKind::Convoy { army, to, .. } => {
                let at = army.at.province;
                if own(at).is_some() && !moves(at, *to, true) {
                    let ordered = order_at(at);
                    warn(line, Warning::ConvoyNotUsed { at, ordered });
                }
            }
            OrderKind::SupportMerge { target, .. } => {
                let merged = first.iter().any(|(_, m)| {
                    matches!(&m.kind, OrderKind::Merge { target: t, .. } if t.province == target.province)
                });
                if !merged {
                    let target = target.province;
                    warn(line, Warning::NoMergeToSupport { target });
                }
            }
            _ => {}
        }
    }
    out
}

fn place(u: &UnitSpec<Region>) -> UnitSpec<Place> {
    UnitSpec {
        armies: u.armies,
        fleets: u.fleets,
        at: Place::Known(u.at),
    }
}

/// The power's fleets in `p` that may move again after its first moves, as ordered (R4.3): those
/// there that hold, and those ordered in.
fn fleets_after_first(
    position: &Position,
    power: PowerId,
    first: &[(usize, &Order<Region>)],
    p: ProvinceId,
) -> i64 {
    let mut n: i64 = position
        .force(p)
        .filter(|f| f.power == power)
        .map_or(0, |f| i64::from(f.fleets));
    for (_, o) in first {
        match &o.kind {
            OrderKind::Move { unit, to, .. } => {
                let f = i64::from(unit.fleets);
                if unit.at.province == p {
                    n -= f;
                }
                if to.province == p {
                    n += f;
                }
            }
            OrderKind::Blockade { unit, .. } if unit.at.province == p => {
                n -= i64::from(unit.fleets);
            }
            OrderKind::Merge { units, target, .. } => {
                for u in units.iter().filter(|_| target.province != p) {
                    if u.at.province == p {
                        n -= i64::from(u.fleets);
                    }
                }
                if target.province == p {
                    n += units
                        .iter()
                        .filter(|u| u.at.province != p)
                        .map(|u| i64::from(u.fleets))
                        .sum::<i64>();
                }
            }
            OrderKind::EmbarkWith { fleet, to, .. } => {
                if fleet.at.province == p {
                    n -= i64::from(fleet.fleets);
                }
                if to.province == p {
                    n += i64::from(fleet.fleets);
                }
            }
            _ => {}
        }
    }
    n
}

/// The space of a second-phase order where it names more fleets than the power may move again
/// there after the first moves, as planned (R4.3): those that hold there and those ordered in;
/// the chains' second legs and the other `2:` orders there count against them.
fn second_without_first(
    position: &Position,
    power: PowerId,
    first: &[(usize, &Order<Region>)],
    kept: &[(usize, &Order<Region>)],
    order: &Order<Region>,
) -> Option<ProvinceId> {
    let fleets_at = |p: ProvinceId| fleets_after_first(position, power, first, p);
    let named_second = |p: ProvinceId| -> i64 {
        let chains: i64 = first
            .iter()
            .filter_map(|(_, o)| match &o.kind {
                OrderKind::Move {
                    unit,
                    to,
                    then: Some(_),
                    ..
                } if to.province == p => Some(i64::from(unit.fleets.max(1))),
                OrderKind::EmbarkWith {
                    fleet,
                    to,
                    then: Some(_),
                    ..
                } if to.province == p => Some(i64::from(fleet.fleets.max(1))),
                _ => None,
            })
            .sum();
        let seconds: i64 = kept
            .iter()
            .filter(|(_, o)| o.stage == Stage::Second)
            .flat_map(|(_, o)| named(o))
            .filter(|u| u.at.province == p)
            .map(|u| i64::from(u.fleets.max(1)))
            .sum();
        chains + seconds
    };
    named(order)
        .map(|u| u.at.province)
        .find(|&p| named_second(p) > fleets_at(p))
}

/// The power's valid orders played alone (the GM's commands first, the other powers' units
/// holding) by the phase's own adjudication, with the line of each order played; none when a GM
/// command is refused (that is reported when the phase is processed).
fn alone(
    variant: &Variant,
    position: &Position,
    gm: &[String],
    power: PowerId,
    orders: &[CheckedOrder],
) -> Option<(turn::PhaseReport, Vec<usize>)> {
    let valid = || orders.iter().filter(|c| c.checked.is_ok());
    let text: String = valid().map(|c| format!("{}\n", c.text)).collect();
    let lines: Vec<usize> = valid().map(|c| c.line).collect();
    let sheets = Sheets {
        gm: gm.to_vec(),
        orders: BTreeMap::from([(power, text)]),
    };
    turn::play(variant, position, &sheets)
        .ok()
        .map(|report| (report, lines))
}

/// The voids of a movement phase that the power's own orders alone decide, found by playing
/// them alone: they come out the same whatever the others order. A second-phase order's outcome
/// is found by its canonical form.
fn own_voids(
    variant: &Variant,
    position: &Position,
    gm: &[String],
    power: PowerId,
    orders: &[CheckedOrder],
) -> Vec<Advice> {
    let Some((report, lines)) = alone(variant, position, gm, power, orders) else {
        return Vec::new();
    };
    let own = |o: &Outcome| {
        matches!(
            o,
            Outcome::Void(
                Void::FleetsLeaveArmies
                    | Void::ArmiesInSecondPhase
                    | Void::SecondMoveNotToSea
                    | Void::NamesNoFleet
                    // No fleet on the board could carry it (the board is known before any
                    // order), or it is a fleet's (a merge participant's) that can't get there.
                    | Void::NoConvoyPossible
            )
        )
    };
    let mut out: Vec<Advice> = report
        .powers
        .iter()
        .flat_map(|p| &p.orders)
        .filter_map(|o| match &o.result {
            Ok(outcome) if own(outcome) => Some(Advice {
                line: lines.get(o.order.line.wrapping_sub(1)).copied(),
                warning: Warning::Alone(outcome.clone()),
            }),
            _ => None,
        })
        .collect();
    // The second-phase orders as decided; when the first moves dislodged a unit, the phase
    // stops at the retreats and they wait in the next position with the voids known so far.
    let decided = report
        .second
        .iter()
        .map(|s| (&s.order, s.canonical.clone(), s.outcome.clone()));
    let waiting = report.next.pending.iter().filter_map(|p| {
        p.void
            .map(|w| (&p.order, p.order.display(variant), Outcome::Void(w)))
    });
    for (order, canonical, outcome) in decided.chain(waiting) {
        // A second-phase order naming armies ashore is void whatever the first moves do; played
        // alone it may be void first for another reason (its fleets' first move bounced).
        let outcome = match outcome {
            Outcome::Void(_) if season::armies_ashore(variant, order) => {
                Outcome::Void(Void::ArmiesInSecondPhase)
            }
            o => o,
        };
        if !own(&outcome) {
            continue;
        }
        let line = orders.iter().find(|c| {
            c.checked.as_ref().is_ok_and(|o| o.stage == Stage::Second)
                && c.canonical(variant).as_ref() == Some(&canonical)
        });
        if let Some(c) = line {
            out.push(Advice {
                line: Some(c.line),
                warning: Warning::Alone(outcome),
            });
        }
    }
    out
}

/// The Winter's warnings: the power's orders played alone (the GM's commands first), each that
/// fails warned with its outcome; builds left unordered; the civil disorder removals.
fn winter(
    variant: &Variant,
    position: &Position,
    gm: &[String],
    power: PowerId,
    orders: &[CheckedOrder],
    budget: Option<&Budget>,
) -> Vec<Advice> {
    let Some((report, lines)) = alone(variant, position, gm, power, orders) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    // Builds ordered or waived, units built, and SP banked or converted on purpose (a loan is
    // already out of the budget's builds: the opening of the account takes it).
    let (mut used, mut built, mut allocated): (i64, i64, i64) = (0, 0, 0);
    for o in report.powers.iter().flat_map(|p| &p.orders) {
        let Ok(outcome) = &o.result else { continue };
        let line = lines.get(o.order.line.wrapping_sub(1)).copied();
        match (outcome, o.order.checked.as_ref().map(|c| &c.kind)) {
            (Outcome::Succeeds, Ok(OrderKind::Build { unit })) => {
                let n = i64::from(unit.armies.max(unit.fleets));
                used += n;
                built += n;
            }
            (Outcome::Succeeds, Ok(OrderKind::Waive)) => used += 1,
            (Outcome::Succeeds, Ok(OrderKind::Bank { amount } | OrderKind::Convert { amount })) => {
                allocated += i64::from(*amount)
            }
            (Outcome::Succeeds, _) => {}
            (Outcome::Fails(Reason::Refused(_)) | Outcome::Void(_), _) => out.push(Advice {
                line,
                warning: Warning::Alone(outcome.clone()),
            }),
            _ => {}
        }
    }
    if let Some(b) = budget.and_then(|b| b.units) {
        // Only the builds the SP not allocated could still pay for are left unused.
        let payable = b.left().map_or(i64::MAX, |left| {
            (left - i64::from(supply::SP_PER_UNIT) * built - allocated)
                / i64::from(supply::SP_PER_UNIT)
        });
        let unused = (i64::from(b.builds) - used).min(payable);
        if b.builds > 0 && unused > 0 {
            out.push(Advice {
                line: None,
                warning: Warning::BuildsUnused(u32::try_from(unused).unwrap_or(0)),
            });
        }
    }
    let removed: Vec<(ProvinceId, crate::variant::UnitType)> = report
        .events
        .iter()
        .filter_map(|e| match e {
            crate::outcome::Event::Winter(WinterEvent::CivilDisorder { power: p, at, unit })
                if *p == power =>
            {
                Some((*at, *unit))
            }
            _ => None,
        })
        .collect();
    if !removed.is_empty() {
        out.push(Advice {
            line: None,
            warning: Warning::CivilDisorder(removed),
        });
    }
    out
}

#[cfg(test)]
mod tests;
