//! Issue 21: what the acknowledgement accepts is what adjudication carries out, or a warning says
//! why not. Random order sets are acknowledged power by power (`advice::check`, the judge's
//! acknowledgement) and then played together (`turn::play`); every order acknowledged without a
//! warning must not be void in adjudication, and in a Winter must not be refused.
//!
//! The exceptions follow one rule: an order may be void unwarned only when its void depends on
//! other powers' orders, or on a failure the warning of another of the power's orders names.
//! Each is listed with its reason in `docs/internals.md` ("What a warning can't know"):
//! - a support or convoy of another power's unit that unit doesn't give (SupportedNotHolding,
//!   SupportedNotOrdered, ConvoyedArmyNotOrdered), a support of a merge (NoMergeOrdered); in the
//!   second phase, a support of a space the power's own first moves empty (`holds_after_first`);
//! - the convoy routes the fleets at sea make (NotOnConvoyRoute, ConvoyedOnlyBySupporter);
//!   NoConvoyPossible is not exempt (the board alone decides it);
//! - after one of the power's first moves failed or one of its forces was dislodged: a
//!   second-phase order whose fleet may not move again (FirstMoveFailed, NoFleetMayMoveAgain,
//!   R4.3), and the fleets or armies aboard left over once the orders split a force
//!   (NoFreeFleet, NoArmyAboard);
//! - a support or convoy of the power's own order (or second move) that is void itself, warned
//!   or exempt;
//! - in a Winter, anything after another power lent the power SP or renewed its debt, and a build
//!   on a space another power holds (it may be emptied by that power's removals).
//!
//! Long runs: `PROPTEST_CASES=20000 cargo test --release --test suite warnings::`, and other seeds with
//! `PROPTEST_RNG_SEED=N`.

use napjudge_cases::{file, run};
use napjudge_engine::advice::{self, Advised, Warning};
use napjudge_engine::order::{Order, OrderKind, Stage, UnitSpec};
use napjudge_engine::outcome::{Outcome, Reason, Refusal, Void};
use napjudge_engine::position::Position;
use napjudge_engine::turn::{self, OrderReport, PowerOrders, Sheets};
use napjudge_engine::variant::{PowerId, PowerKind, ProvinceId, Region, SpaceKind, Variant};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use std::collections::BTreeMap;

#[allow(dead_code)] // the generator serves other tests too
use crate::generated;
use generated::*;

/// A line acknowledged without a warning about it.
fn unwarned(a: &Advised, line: usize) -> bool {
    !a.advice.iter().any(|x| x.line == Some(line))
}

/// The voids only the other powers' orders (or the first moves' outcomes) decide.
fn void_known_only_later(why: Void, others_unit: bool, first_phase_went_wrong: bool) -> bool {
    match why {
        Void::SupportedNotHolding
        | Void::SupportedNotOrdered
        | Void::ConvoyedArmyNotOrdered
        | Void::NoMergeOrdered => others_unit,
        Void::NotOnConvoyRoute | Void::ConvoyedOnlyBySupporter => true,
        Void::NoFreeFleet
        | Void::NoArmyAboard
        | Void::FirstMoveFailed
        | Void::NoFleetMayMoveAgain => first_phase_went_wrong,
        _ => false,
    }
}

/// Where a first-phase order takes the units it names at `at`, if it moves them.
fn destination(order: &Order<Region>, at: ProvinceId) -> Option<ProvinceId> {
    match &order.kind {
        OrderKind::Move { unit, to, .. }
        | OrderKind::Disembark { unit, to }
        | OrderKind::Embark { unit, sea: to } => (unit.at.province == at).then_some(to.province),
        OrderKind::EmbarkWith {
            unit, fleet, to, ..
        } => (unit.at.province == at || fleet.at.province == at).then_some(to.province),
        OrderKind::Merge { units, target, .. } => (target.province != at
            && units.iter().any(|u| u.at.province == at))
        .then_some(target.province),
        _ => None,
    }
}

/// The units an order names (both of an embarkation).
fn named_units(o: &Order<Region>) -> Vec<UnitSpec<Region>> {
    match &o.kind {
        OrderKind::Merge { units, .. } => units.clone(),
        OrderKind::EmbarkWith { unit, fleet, .. } => vec![unit.clone(), fleet.clone()],
        k => k.unit().into_iter().cloned().collect(),
    }
}

/// Whether the power's first-phase orders, those not void, keep some of its force in `p` or
/// bring some in: then the fleets in `p` for the second phase can only be its own (R1.1), and a
/// second-phase support naming them is the power's own to get right. Otherwise another power's
/// fleet may move into `p` and on, and only the others' orders decide the support.
fn holds_after_first(v: &Variant, before: &Position, po: &PowerOrders, p: ProvinceId) -> bool {
    let carried_out: Vec<&Order<Region>> = po
        .orders
        .iter()
        .filter(|o| !matches!(o.result, Ok(Outcome::Void(_))))
        .filter_map(|o| o.order.checked.as_ref().ok())
        .filter(|c| c.stage == Stage::First)
        .collect();
    let named = |o: &&Order<Region>| named_units(o);
    let (mut all, mut fleets) = (0u32, 0u32);
    for o in &carried_out {
        if destination(o, p).is_some() {
            for u in named(o).iter().filter(|u| u.at.province == p) {
                all += u32::from(u.armies) + u32::from(u.fleets);
                fleets += u32::from(u.fleets);
            }
        }
    }
    let stays = before
        .force(p)
        .filter(|f| before.commands(po.power, f.power))
        .is_some_and(|f| {
            // At sea the armies aboard go with the fleets (R3.4).
            if v.province(p).kind == SpaceKind::Sea {
                u32::from(f.fleets) > fleets
            } else {
                f.components() > all
            }
        });
    let brought = carried_out.iter().any(|o| {
        named(o)
            .iter()
            .any(|u| destination(o, u.at.province) == Some(p))
    });
    stays || brought
}

fn movement(xs: &[u16]) -> Result<(), String> {
    let v = napoleonic();
    let phase = generate(v, xs);
    let plain = Style {
        judge: false,
        split: true,
    };
    let (text, _) = phase.text(v, plain, &[]);
    let cases = file::parse("generated", &text).map_err(|e| e.to_string())?;
    let case = cases.first().ok_or("no case")?;
    let before = run::initial_position(case, v)?;
    let w = Writer { v, style: plain };
    let mut texts: BTreeMap<PowerId, String> = BTreeMap::new();
    for (p, g) in &phase.orders {
        for l in w.lines(g) {
            texts.entry(*p).or_default().push_str(&format!("{l}\n"));
        }
    }
    let advised: BTreeMap<PowerId, Advised> = texts
        .iter()
        .map(|(p, t)| (*p, advice::check(v, &before, &[], *p, t)))
        .collect();
    let report = turn::play(
        v,
        &before,
        &Sheets {
            gm: Vec::new(),
            orders: texts.clone(),
        },
    )
    .map_err(|e| e.to_string())?;
    for po in &report.powers {
        let a = &advised[&po.power];
        let went_wrong = po.orders.iter().any(|o| {
            o.order.checked.as_ref().is_ok_and(|c| {
                c.stage == Stage::First
                    && named_units(c)
                        .iter()
                        .any(|u| destination(c, u.at.province).is_some())
            }) && !matches!(o.result, Ok(Outcome::Succeeds))
        }) || report
            .next
            .dislodged
            .iter()
            .any(|d| d.force.power == po.power);
        for o in &po.orders {
            let Ok(order) = &o.order.checked else {
                continue;
            };
            if !unwarned(a, o.order.line) {
                continue;
            }
            let outcome = match &o.result {
                Ok(Outcome::SecondPhase) => report
                    .second
                    .iter()
                    .find(|s| s.power == po.power && Some(&s.canonical) == o.canonical.as_ref())
                    .map(|s| s.outcome.clone()),
                Ok(x) => Some(x.clone()),
                Err(_) => None,
            };
            let Some(Outcome::Void(why)) = outcome else {
                continue;
            };
            let named = match &order.kind {
                OrderKind::SupportHold { supported, .. }
                | OrderKind::SupportMove { supported, .. } => Some(supported.at.province),
                OrderKind::Convoy { army, .. } => Some(army.at.province),
                _ => None,
            };
            let others_unit = named.is_some_and(|p| {
                if order.stage == Stage::Second {
                    !holds_after_first(v, &before, po, p)
                } else {
                    before.force(p).is_some_and(|f| f.power != po.power)
                }
            }) || matches!(order.kind, OrderKind::SupportMerge { .. });
            // A support or convoy of the power's own order that is void itself, where that void
            // is warned or is the others' to decide: the support's void is that order's (the
            // rule's second exemption: a failure another order's warning names).
            let excused = |s: &OrderReport| match &s.result {
                Ok(Outcome::Void(w)) => {
                    !unwarned(a, s.order.line) || void_known_only_later(*w, false, went_wrong)
                }
                _ => false,
            };
            let own_order_void = order.stage == Stage::First
                && named.is_some_and(|p| {
                    po.orders.iter().any(|s| {
                        excused(s)
                            && s.order.checked.as_ref().is_ok_and(|c| {
                                c.stage == Stage::First
                                    && c.kind.unit().is_some_and(|u| u.at.province == p)
                            })
                    })
                });
            // In the second phase the same, for the power's own second move from the space
            // named (a `2:` order or a chain's leg) void for an exempt reason or warned.
            let own_second_void = order.stage == Stage::Second
                && named.is_some_and(|p| {
                    report.second.iter().any(|s| {
                        let Outcome::Void(w) = s.outcome else {
                            return false;
                        };
                        let warned = po.orders.iter().any(|o| {
                            o.canonical.as_ref() == Some(&s.canonical) && !unwarned(a, o.order.line)
                        });
                        s.power == po.power
                            && s.order.kind.unit().is_some_and(|u| u.at.province == p)
                            && (warned || void_known_only_later(w, false, went_wrong))
                    })
                });
            if !own_order_void
                && !own_second_void
                && !void_known_only_later(why, others_unit, went_wrong)
            {
                return Err(format!(
                    "{}: line {} '{}' acknowledged without a warning, void: {}\n{text}",
                    v.power(po.power).name,
                    o.order.line,
                    o.order.text,
                    Outcome::Void(why).describe(v)
                ));
            }
        }
    }
    Ok(())
}

/// A generated Winter: the initial board with centres moved between the majors, units taken
/// away, banks and loans, and each major's builds, removals, waives, conversions, banking and
/// loans.
fn winter(xs: &[u16]) -> Result<(), String> {
    let v = napoleonic();
    let mut d = Dice { xs, at: 0 };
    let mut pos = Position::initial(v);
    pos.phase = v
        .parse_phase("Winter 1805 Adjustment")
        .ok_or("no Winter 1805")?;
    let majors: Vec<PowerId> = v
        .power_ids()
        .filter(|&p| v.power(p).kind == PowerKind::Major)
        .collect();
    let centres: Vec<_> = v.centres().iter().collect();
    for _ in 0..d.below(12) {
        if let (Some(c), Some(p)) = (d.pick(&centres), d.pick(&majors)) {
            pos.owners[c.index()] = Some(p);
        }
    }
    let occupied: Vec<_> = pos.forces().map(|(p, _)| p).collect();
    for _ in 0..d.below(6) {
        if let Some(p) = d.pick(&occupied) {
            pos.units[p.index()] = None;
        }
    }
    let mut texts: BTreeMap<PowerId, String> = BTreeMap::new();
    let mut lent_to: Vec<PowerId> = Vec::new();
    for &p in &majors {
        if d.chance(20) {
            pos.ledgers.bank.insert(p, d.below(10) as u32);
        }
        let mut t = String::new();
        for _ in 0..d.below(5) {
            let homes: Vec<_> = v.homes(p).iter().collect();
            let mine: Vec<_> = pos
                .forces()
                .filter(|(_, f)| f.power == p)
                .map(|(at, f)| (at, f.fleets > 0))
                .collect();
            let line = match d.below(7) {
                0 | 1 => match d.pick(&homes) {
                    Some(h) => {
                        let fleet = d.chance(30) && !v.province(h).coasts.is_empty()
                            || v.province(h).kind != SpaceKind::Land && d.chance(50);
                        let unit = if fleet { "F" } else { "A" };
                        format!("BUILD {unit} {}", v.province(h).code)
                    }
                    None => continue,
                },
                2 => "WAIVE".to_string(),
                3 => match d.pick(&mine) {
                    Some((at, fleet)) => {
                        let unit = if fleet { "F" } else { "A" };
                        format!("REMOVE {unit} {}", v.province(at).code)
                    }
                    None => continue,
                },
                4 => format!("CONVERT {}", d.below(12)),
                5 => format!("BANK {}", d.below(12)),
                _ => match d.pick(&majors).filter(|&q| q != p) {
                    Some(q) => {
                        lent_to.push(q);
                        format!("LOAN {} TO {}", 1 + d.below(8), v.power(q).name)
                    }
                    None => continue,
                },
            };
            t.push_str(&line);
            t.push('\n');
        }
        if !t.is_empty() {
            texts.insert(p, t);
        }
    }
    let advised: BTreeMap<PowerId, Advised> = texts
        .iter()
        .map(|(p, t)| (*p, advice::check(v, &pos, &[], *p, t)))
        .collect();
    let report = turn::play(
        v,
        &pos,
        &Sheets {
            gm: Vec::new(),
            orders: texts.clone(),
        },
    )
    .map_err(|e| e.to_string())?;
    for po in &report.powers {
        if lent_to.contains(&po.power) {
            continue;
        }
        let a = &advised[&po.power];
        for o in &po.orders {
            let Ok(outcome) = &o.result else { continue };
            let known_later = matches!(
                outcome,
                Outcome::Fails(Reason::Refused(Refusal::HeldBy(..)))
            );
            if outcome.succeeded() || known_later || !unwarned(a, o.order.line) {
                continue;
            }
            return Err(format!(
                "{}: line {} '{}' acknowledged without a warning, then {}\n{texts:?}",
                v.power(po.power).name,
                o.order.line,
                o.order.text,
                outcome.describe(v)
            ));
        }
    }
    // The budget shown is the one the Winter used: the builds it allowed, when nobody lent.
    for (p, a) in &advised {
        let Some(b) = a.budget.as_ref().and_then(|b| b.units) else {
            continue;
        };
        if lent_to.contains(p) || b.sp.is_none() {
            continue;
        }
        let failed_for_builds = a.advice.iter().any(|x| {
            matches!(
                &x.warning,
                Warning::Alone(Outcome::Fails(Reason::Refused(
                    Refusal::NoBuildsLeftPaid(_) | Refusal::TooFewBuilds(..)
                )))
            )
        });
        if b.builds <= 0 && !failed_for_builds {
            let built = report
                .powers
                .iter()
                .filter(|po| po.power == *p)
                .flat_map(|po| &po.orders)
                .any(|o| {
                    matches!(
                        o.order.checked.as_ref().map(|c| &c.kind),
                        Ok(OrderKind::Build { .. })
                    ) && o.result.as_ref().is_ok_and(Outcome::succeeded)
                });
            if built {
                return Err(format!(
                    "{}: a budget of no builds, and a build succeeded\n{texts:?}",
                    v.power(*p).name
                ));
            }
        }
    }
    Ok(())
}

/// The cases' seed: fixed, so that CI plays the same cases each run and a red CI can be
/// reproduced; `PROPTEST_RNG_SEED=N` (any other number) explores further. Longer runs still find
/// unwarned void orders: docs/internals.md, "What a warning can't know", names them.
fn seed() -> RngSeed {
    match std::env::var("PROPTEST_RNG_SEED") {
        Ok(_) => Config::default().rng_seed,
        Err(_) => RngSeed::Fixed(20_261_126),
    }
}

proptest! {
    #![proptest_config(Config {
        cases: cases(1000),
        max_shrink_iters: 2000,
        rng_seed: seed(),
        ..Config::default()
    })]

    /// Issue 21: an order acknowledged without a warning is not void in a movement phase.
    #[test]
    fn unwarned_movement_orders_are_not_void(xs in prop::collection::vec(any::<u16>(), 0..120)) {
        if let Err(e) = movement(&xs) {
            prop_assert!(false, "{}", e);
        }
    }

    /// Issue 21: a Winter order acknowledged without a warning is not refused (the budget check
    /// is the one adjudication makes), unless another power lent to the power.
    #[test]
    fn unwarned_winter_orders_are_not_refused(xs in prop::collection::vec(any::<u16>(), 0..120)) {
        if let Err(e) = winter(&xs) {
            prop_assert!(false, "{}", e);
        }
    }
}
