//! The warnings' unit tests, each on a position set up by hand on a built-in board.

use super::*;
use crate::variant::{load_named, UnitType};

fn spring(v: &Variant, units: &[(&str, UnitType, &str)]) -> Position {
    let phase = v.parse_phase("Spring 1805 Movement").expect("a phase");
    let mut pos = Position::empty(v, phase);
    for (power, unit, at) in units {
        let p = v.power_by_name(power).expect("a power");
        let at = v
            .province_ids()
            .find(|&q| v.province(q).code == *at)
            .expect("a space");
        pos.add_unit(p, *unit, Region::of(at));
    }
    pos
}

fn warnings(v: &Variant, pos: &Position, power: &str, text: &str) -> Vec<Advice> {
    let p = v.power_by_name(power).expect("a power");
    let advised = check(v, pos, &[], p, text);
    assert!(
        advised.orders.iter().all(|c| c.checked.is_ok()),
        "{:?}",
        advised.orders
    );
    advised.advice
}

/// A convoy of the power's own army that the army doesn't take is warned, naming the army's own
/// order's line.
#[test]
fn a_convoy_of_an_own_army_ordered_elsewhere_is_warned() {
    let v = load_named("napoleonic").expect("the board loads");
    let pos = spring(
        &v,
        &[
            ("England", UnitType::Army, "Lon"),
            ("England", UnitType::Fleet, "NTH"),
        ],
    );
    let advice = warnings(&v, &pos, "England", "F NTH C A Lon-Bel\nA Lon-Wal\n");
    let at = v.province_ids().find(|&q| v.province(q).code == "Lon");
    assert!(
        advice.contains(&Advice {
            line: Some(1),
            warning: Warning::ConvoyNotUsed {
                at: at.expect("Lon"),
                ordered: Some(2)
            },
        }),
        "{advice:?}"
    );
}

fn code(v: &Variant, c: &str) -> ProvinceId {
    v.province_ids()
        .find(|&q| v.province(q).code == c)
        .expect("a space")
}

/// The property test's 20,000-case finding (`2: F(BOT) S A/F(TYS)-WMS`): `F(TYS)-Sar` would
/// leave the army of A/F(TYS) at sea, so it is void (played alone) and the A/F stays in TYS;
/// no other power's fleet can be there for the second phase, so the support of its second
/// move is void too, and warned.
#[test]
fn a_second_phase_support_of_a_space_the_power_still_holds_is_warned() {
    let v = load_named("napoleonic").expect("the board loads");
    let mut pos = spring(
        &v,
        &[
            ("Austria", UnitType::Fleet, "BOT"),
            ("Austria", UnitType::Fleet, "TYS"),
        ],
    );
    let austria = v.power_by_name("Austria").expect("a power");
    pos.add_unit(austria, UnitType::Army, Region::of(code(&v, "TYS")));
    let advice = warnings(
        &v,
        &pos,
        "Austria",
        "F(TYS)-Sar\n2: F(BOT) S A/F(TYS)-WMS\n",
    );
    assert!(
        advice.contains(&Advice {
            line: Some(1),
            warning: Warning::Alone(Outcome::Void(Void::FleetsLeaveArmies)),
        }),
        "{advice:?}"
    );
    assert!(
        advice.contains(&Advice {
            line: Some(2),
            warning: Warning::SupportNotGiven {
                at: code(&v, "TYS"),
                ordered: Some(1)
            },
        }),
        "{advice:?}"
    );
    // Where the power's force really leaves, another power's fleet may come in and move on:
    // that is the others' to decide, and not warned.
    let pos = spring(
        &v,
        &[
            ("Austria", UnitType::Fleet, "BOT"),
            ("Austria", UnitType::Fleet, "TYS"),
        ],
    );
    let advice = warnings(&v, &pos, "Austria", "F(TYS)-WMS\n2: F(BOT) S F(TYS)-WMS\n");
    assert!(advice.iter().all(|a| a.line != Some(2)), "{advice:?}");
}

/// The property test's finding: a merge participant that is a fleet with no sea route to the
/// target (Nap to Sic is an army's passage, R6.1) drops out whatever the others order (no
/// fleet is convoyed), so the merge and a support of that move are both warned.
#[test]
fn a_fleet_merging_where_it_cannot_sail_is_warned_with_its_support() {
    let v = load_named("napoleonic").expect("the board loads");
    let pos = spring(
        &v,
        &[
            ("Austria", UnitType::Fleet, "Nap"),
            ("Austria", UnitType::Army, "Sic"),
            ("Austria", UnitType::Fleet, "TYS"),
        ],
    );
    let advice = warnings(
        &v,
        &pos,
        "Austria",
        "F(Nap) MERGE Sic\nA(Sic) MERGE Sic\nF(TYS) S F(Nap)-Sic\n",
    );
    assert!(
        advice.contains(&Advice {
            line: Some(1),
            warning: Warning::Alone(Outcome::Void(Void::NoConvoyPossible)),
        }),
        "{advice:?}"
    );
    assert!(
        advice
            .iter()
            .any(|a| a.line == Some(3) && matches!(a.warning, Warning::SupportNotGiven { .. })),
        "{advice:?}"
    );
}

/// The property test's finding: `2: A/F(Mor)-SAO` names an army in a coastal space, void in
/// the second phase whatever the first moves do (R4.4); played alone the fleet's first move
/// bounces off the foreign force in Mor, and the warning still names the armies.
#[test]
fn a_second_phase_order_naming_armies_ashore_is_warned_even_after_a_bounce() {
    let v = load_named("napoleonic").expect("the board loads");
    let pos = spring(
        &v,
        &[
            ("Russia", UnitType::Fleet, "Sah"),
            ("Prussia", UnitType::Army, "Mor"),
        ],
    );
    let advice = warnings(&v, &pos, "Russia", "F(Sah)-Mor\n2: A/F(Mor)-SAO\n");
    assert!(
        advice.contains(&Advice {
            line: Some(2),
            warning: Warning::Alone(Outcome::Void(Void::ArmiesInSecondPhase)),
        }),
        "{advice:?}"
    );
}

/// The property test's finding (`2: A/F(Lib) S A/F(ION)-BOT`): when the power's first moves,
/// played alone, dislodge a unit, the phase stops at the retreats and the second-phase orders
/// wait in the next position; their voids are still read and warned there.
#[test]
fn a_second_phase_void_is_warned_when_the_first_moves_dislodge() {
    let v = load_named("napoleonic").expect("the board loads");
    let mut pos = spring(
        &v,
        &[
            ("Russia", UnitType::Fleet, "EMS"),
            ("Russia", UnitType::Fleet, "ION"),
            ("Russia", UnitType::Fleet, "Lib"),
            ("France", UnitType::Fleet, "SMS"),
        ],
    );
    let russia = v.power_by_name("Russia").expect("a power");
    pos.add_unit(russia, UnitType::Army, Region::of(code(&v, "Lib")));
    let advice = warnings(
        &v,
        &pos,
        "Russia",
        "F(EMS)-SMS\nF(ION) S F(EMS)-SMS\n2: A/F(Lib)-BOT\n",
    );
    assert!(
        advice.contains(&Advice {
            line: Some(3),
            warning: Warning::Alone(Outcome::Void(Void::ArmiesInSecondPhase)),
        }),
        "{advice:?}"
    );
}

/// The property test's finding (seed 14): a support naming the other coast of the power's
/// own move (`S F(Nap)-Pap/ec` with `F(Nap)-Pap/wc`) matches nothing, as adjudication
/// matches coasts ([`Region::names_move_into`]), and is warned.
#[test]
fn a_support_naming_the_other_coast_of_an_own_move_is_warned() {
    let v = load_named("napoleonic").expect("the board loads");
    let pos = spring(
        &v,
        &[
            ("Austria", UnitType::Fleet, "ADR"),
            ("Austria", UnitType::Fleet, "Nap"),
        ],
    );
    let advice = warnings(
        &v,
        &pos,
        "Austria",
        "F(ADR) S F(Nap)-Pap/ec\nF(Nap)-Pap/wc\n",
    );
    assert!(
        advice.contains(&Advice {
            line: Some(1),
            warning: Warning::SupportNotGiven {
                at: code(&v, "Nap"),
                ordered: Some(2)
            },
        }),
        "{advice:?}"
    );
    let advice = warnings(&v, &pos, "Austria", "F(ADR) S F(Nap)-Pap\nF(Nap)-Pap/wc\n");
    assert!(advice.iter().all(|a| a.line != Some(1)), "{advice:?}");
}

/// A support of a merge none of the power's forces makes is warned.
#[test]
fn a_support_of_a_merge_nobody_of_yours_makes_is_warned() {
    let v = load_named("napoleonic").expect("the board loads");
    let pos = spring(
        &v,
        &[
            ("France", UnitType::Army, "Pic"),
            ("France", UnitType::Army, "Par"),
        ],
    );
    let advice = warnings(&v, &pos, "France", "A Pic S MERGE Bur\nA Par H\n");
    assert!(
        advice
            .iter()
            .any(|a| a.line == Some(1) && matches!(a.warning, Warning::NoMergeToSupport { .. })),
        "{advice:?}"
    );
    // With the merge ordered, no warning about the support.
    let advice = warnings(&v, &pos, "France", "A Pic S MERGE Bur\nA Par MERGE Bur\n");
    assert!(advice.iter().all(|a| a.line != Some(1)), "{advice:?}");
}
