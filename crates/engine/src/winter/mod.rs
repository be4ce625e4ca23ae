//! The Napoleonic Winter (RULINGS §7) and the standard game's adjustment phase: supply points,
//! builds and removals, influence points, bids for minor powers, control of minors, victory.
//!
//! [`adjudicate`] runs the sequence: (a) autumn retreats happen before, in their own phase; (b)
//! the SP accounts ([`supply::open`]), builds and removals ([`adjust::units`]), then
//! [`supply::close`]; (c)-(e) influence, bids and control ([`influence::winter`]); then the victory
//! check ([`victory::check`]). A Winter `Bids` phase (Winter 1800) runs (c)-(e) only. [`control`]
//! detects losses of control after every phase, records how long centres are held, and carries
//! out the GM's commands. Each step returns what it reports beyond the orders' outcomes, as
//! [`WinterEvent`]s in the order they happened.

pub mod adjust;
pub mod control;
pub mod influence;
pub mod supply;
pub mod victory;

pub use control::GmCommand;

use crate::order::Order;
use crate::outcome::{Outcome, Void, WinterEvent};
use crate::position::Position;
use crate::variant::{PhaseKind, PowerId, ProvinceSet, Region, Variant};

/// Adjudicates a Winter phase. `orders` are validated Winter orders, each with the power that
/// gave it. Without the Napoleonic rule switches this is the standard adjustment phase; with
/// them it is the Winter sequence of RULINGS §7. Returns the outcomes, the position after the
/// Winter, and its events in the order they happened.
pub fn adjudicate(
    variant: &Variant,
    position: &Position,
    orders: &[(PowerId, Order<Region>)],
) -> (Vec<Outcome>, Position, Vec<WinterEvent>) {
    let mut outcomes = vec![Outcome::Void(Void::NotAnAdjustment); orders.len()];
    let mut events = Vec::new();
    let mut next = position.clone();
    let rules = &variant.rules;
    let napoleonic = rules.supply_points || rules.influence;
    if napoleonic {
        next.ledgers.start_winter();
    }
    // Winter 1800 (a Bids phase) runs steps (c)-(e) only.
    if position.phase.kind != PhaseKind::Bids {
        if rules.supply_points {
            events.extend(supply::open(
                variant,
                position,
                orders,
                &mut outcomes,
                &mut next.ledgers,
            ));
        }
        events.extend(adjust::units(
            variant,
            position,
            &mut next,
            orders,
            &mut outcomes,
        ));
        if rules.supply_points {
            supply::close(variant, &mut next, orders, &mut outcomes);
        }
        // A blockade stops builds for this Winter only (R5.4).
        next.blockaded = ProvinceSet::EMPTY;
    }
    if rules.influence {
        events.extend(influence::winter(variant, &mut next, orders, &mut outcomes));
    }
    if napoleonic {
        events.extend(victory::check(variant, &mut next));
    }
    (outcomes, next, events)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::LossCause;
    use crate::position::ledger::Holding;
    use crate::position::{Item, LedgerError, Ledgers};
    use crate::variant::{load_named, UnitType};

    fn board() -> Variant {
        load_named("napoleonic").expect("the napoleonic board loads")
    }

    fn power(v: &Variant, name: &str) -> crate::variant::PowerId {
        v.power_by_name(name).expect("a power of the board")
    }

    /// R7.7: the variant text's example, three years and two extra centres, is +7.
    #[test]
    fn r7_7_automatic_ip_is_years_plus_two_per_extra_centre() {
        let v = board();
        let mut pos = Position::initial(&v);
        let swe = power(&v, "Sweden");
        for c in ["Nwy", "Kau"] {
            let p = v.province_ids().find(|&p| v.province(p).code == c);
            pos.owners[p.expect("a centre of the board").index()] = Some(swe);
        }
        GmCommand::parse(&v, "CONTROL Sweden England")
            .and_then(|c| c.apply(&v, &mut pos))
            .expect("the GM gives Sweden to England");
        if let Some(c) = pos.ledgers.minors.get_mut(&swe) {
            c.years = 3;
        }
        assert_eq!(influence::automatic_ip(&v, &pos, swe), Some(7));
    }

    fn centre(v: &Variant, code: &str) -> crate::variant::ProvinceId {
        v.province_ids()
            .find(|&p| v.province(p).code == code)
            .expect("a space of the board")
    }

    /// Validated orders of one power, as the adjudicator gets them.
    fn orders(
        v: &Variant,
        pos: &Position,
        who: &str,
        lines: &[&str],
    ) -> Vec<(PowerId, Order<Region>)> {
        use crate::validate::{check_set, Checker};
        let p = power(v, who);
        let parsed: Vec<_> = lines
            .iter()
            .map(|l| crate::order::parse_line(v, l).expect("an order"))
            .collect();
        let checker = Checker {
            variant: v,
            position: Some(pos),
            power: Some(p),
        };
        check_set(&checker, &parsed)
            .into_iter()
            .map(|o| (p, o.expect("a valid order")))
            .collect()
    }

    fn winter_1803(v: &Variant) -> Position {
        let mut pos = Position::empty(v, v.parse_phase("Winter 1803 Adjustment").expect("a phase"));
        pos.units = Position::initial(v).units;
        pos
    }

    /// R7.6, R7.7: the bids for a minor are reported with each total, the incumbent's automatic
    /// IP inside its own, and who takes control.
    #[test]
    fn r7_6_bids_and_change_of_control_are_events() {
        let v = board();
        let mut pos = winter_1803(&v);
        let (swe, eng, rus) = (
            power(&v, "Sweden"),
            power(&v, "England"),
            power(&v, "Russia"),
        );
        for c in ["Nwy", "Kau"] {
            pos.owners[centre(&v, c).index()] = Some(swe);
        }
        let control = pos.ledgers.minors.entry(swe).or_default();
        control.controller = Some(eng);
        control.years = 3;
        let bids = orders(&v, &pos, "Russia", &["BID 8 Sweden"]);
        let (_, _, events) = adjudicate(&v, &pos, &bids);
        let tally = WinterEvent::Bids {
            minor: swe,
            totals: vec![(rus, 8), (eng, 7)],
            automatic: Some((eng, 7)),
        };
        assert!(events.contains(&tally), "{events:?}");
        assert_eq!(
            tally.describe(&v),
            "bids for Sweden: Russia 8, England 7 (7 automatic)"
        );
        let gained = WinterEvent::ControlGained {
            minor: swe,
            major: rus,
        };
        assert!(events.contains(&gained), "{events:?}");
        assert_eq!(gained.describe(&v), "Russia takes control of Sweden");
    }

    /// R7.4: each unit civil disorder removes is reported, with its space and type.
    #[test]
    fn r7_4_civil_disorder_removals_are_events() {
        let v = board();
        let mut pos = winter_1803(&v);
        let fra = power(&v, "France");
        pos.units = vec![None; v.provinces.len()];
        for (code, unit) in [
            ("Par", UnitType::Army),
            ("Bur", UnitType::Army),
            ("War", UnitType::Army),
            ("GOB", UnitType::Fleet),
            ("MAO", UnitType::Fleet),
            ("Pic", UnitType::Army),
        ] {
            pos.add_unit(fra, unit, Region::of(centre(&v, code)));
        }
        let (_, _, events) = adjudicate(&v, &pos, &[]);
        let removed: Vec<&WinterEvent> = events
            .iter()
            .filter(|e| matches!(e, WinterEvent::CivilDisorder { .. }))
            .collect();
        let war = WinterEvent::CivilDisorder {
            power: fra,
            at: centre(&v, "War"),
            unit: UnitType::Army,
        };
        assert_eq!(removed.len(), 2, "{removed:?}");
        assert!(removed.contains(&&war), "{removed:?}");
        assert_eq!(
            war.describe(&v),
            "France's army in Warsaw is removed (civil disorder)"
        );
    }

    /// R7.8 (b): a loss of control is reported with its cause.
    #[test]
    fn r7_8_loss_of_control_is_an_event_with_its_cause() {
        let v = board();
        let mut pos = Position::empty(&v, v.start);
        let (den, eng) = (power(&v, "Denmark"), power(&v, "England"));
        pos.ledgers.minors.entry(den).or_default().controller = Some(eng);
        let at = Region::of(centre(&v, "Den"));
        pos.add_unit(eng, UnitType::Army, at);
        pos.add_unit(eng, UnitType::Army, at);
        let events = control::detect_crowding(&v, &mut pos);
        let lost = WinterEvent::ControlLost {
            minor: den,
            major: eng,
            cause: LossCause::Crowded(2),
        };
        assert_eq!(events, vec![lost.clone()]);
        assert!(lost
            .describe(&v)
            .contains("England loses control of Denmark for good (R7.8): it has 2 units inside"));
    }

    /// R7.10: every major that reaches its threshold is reported, and a tie for the GM.
    #[test]
    fn r7_10_victory_and_tie_are_events() {
        let v = board();
        let mut pos = winter_1803(&v);
        let (fra, eng) = (power(&v, "France"), power(&v, "England"));
        let others = |p| ![Some(fra), Some(eng)].contains(&v.province(p).home);
        let mut centres = v.centres().iter().filter(|&p| others(p));
        for p in centres.by_ref().take(16) {
            pos.owners[p.index()] = Some(fra);
        }
        for p in centres.take(16) {
            pos.owners[p.index()] = Some(eng);
        }
        let events = victory::check(&v, &mut pos);
        assert_eq!(pos.ledgers.winners, vec![eng, fra]);
        let tie = WinterEvent::VictoryTie {
            majors: vec![eng, fra],
        };
        assert_eq!(events.last(), Some(&tie));
        assert_eq!(
            tie.describe(&v),
            "England, France all reached victory: the GM decides (R7.10)"
        );
    }

    /// R7.11: the adoption event names both powers and the new homes, its own first, then by
    /// how long they were held.
    #[test]
    fn r7_11_adoption_is_an_event() {
        let mut v = board();
        v.rules.adoption = true;
        let mut pos = Position::initial(&v);
        let (swe, eng) = (power(&v, "Sweden"), power(&v, "England"));
        for (c, since) in [("War", 1802), ("Nwy", 1803), ("Kau", 1801), ("Den", 1804)] {
            let p = centre(&v, c);
            pos.owners[p.index()] = Some(swe);
            pos.ledgers.held.insert(p, Holding { owner: swe, since });
        }
        pos.ledgers.minors.entry(swe).or_default().controller = Some(eng);
        let event = GmCommand::parse(&v, "ADOPT Sweden England")
            .and_then(|c| c.apply(&v, &mut pos))
            .expect("England adopts Sweden");
        let homes = ["Swe", "Kau", "War", "Nwy"].map(|c| centre(&v, c)).to_vec();
        assert_eq!(
            event,
            WinterEvent::Adopted {
                old: eng,
                new: swe,
                homes
            }
        );
        assert_eq!(
            event.describe(&v),
            "England adopts Sweden as its major power (rule 12) and becomes a minor power; \
             Sweden's home centres: Sweden, Kaus, Warsaw, Norway"
        );
        assert!(pos.ledgers.is_major(&v, swe) && !pos.ledgers.is_major(&v, eng));
    }

    /// R7.8: the GM can't give a minor to a major that lost it for good.
    #[test]
    fn r7_8_gm_control_refuses_a_barred_major() {
        let v = board();
        let mut pos = Position::initial(&v);
        let item = Item::parse(&v, "barred France").expect("an item");
        item.apply(&v, &mut pos.ledgers, power(&v, "Denmark"))
            .expect("a minor's item");
        let e = GmCommand::parse(&v, "CONTROL Denmark France")
            .and_then(|c| c.apply(&v, &mut pos))
            .unwrap_err();
        assert!(matches!(e, LedgerError::Barred { .. }), "{e}");
        assert!(e.to_string().contains("can never control it again"), "{e}");
    }

    /// R7.11: adopting a minor needs optional rule 12, which is off by default.
    #[test]
    fn r7_11_adoption_is_off_by_default() {
        let v = board();
        let mut pos = Position::initial(&v);
        let e = GmCommand::parse(&v, "ADOPT Sweden England")
            .and_then(|c| c.apply(&v, &mut pos))
            .unwrap_err();
        assert_eq!(e, LedgerError::Rule12Off);
    }

    /// R7.11: a minor of fewer than 4 centres can't be adopted.
    #[test]
    fn r7_11_adoption_needs_four_centres() {
        let mut v = board();
        v.rules.adoption = true;
        let mut pos = Position::initial(&v);
        GmCommand::parse(&v, "CONTROL Sweden England")
            .and_then(|c| c.apply(&v, &mut pos))
            .expect("the GM gives Sweden to England");
        let e = GmCommand::parse(&v, "ADOPT Sweden England")
            .and_then(|c| c.apply(&v, &mut pos))
            .unwrap_err();
        assert!(e.to_string().contains("not the 4 needed"), "{e}");
    }

    /// R7.7: the automatic IP are a Winter's result: a pre-state can't set them, and says so.
    #[test]
    fn r7_7_automatic_ip_are_not_set_before_a_phase() {
        let v = board();
        let mut ledgers = Ledgers::default();
        let item = Item::parse(&v, "auto 7 Sweden").expect("an item");
        let e = item
            .apply(&v, &mut ledgers, power(&v, "England"))
            .unwrap_err();
        assert_eq!(e, LedgerError::NotInLedger("auto 7 Sweden".into()));
        assert!(e.to_string().contains("checked after a phase"), "{e}");
    }

    /// R7.6: a bid for a minor that doesn't exist is refused by the parser, naming it.
    #[test]
    fn r7_6_bid_for_an_unknown_minor_is_named() {
        let v = board();
        let e = crate::order::parse_line(&v, "BID 3 Atlantis").unwrap_err();
        assert!(e.to_string().contains("Atlantis"), "{e}");
    }

    /// R7.2, R7.7, R7.11: ledger items read back as they are written (the case file and result
    /// mail form).
    #[test]
    fn r7_2_ledger_items_round_trip() {
        let v = board();
        for text in [
            "bank 6",
            "loan 3 to France",
            "debt 3 to England",
            "controller England 3 years",
            "controller England 1 year",
            "controller none",
            "barred Prussia",
            "auto 7 Sweden",
            "held Nwy since 1802",
            "adopted from England homes Den Kau Nwy Swe",
        ] {
            let item = Item::parse(&v, text).expect("an item");
            assert_eq!(item.text(&v), text);
        }
    }
}
