//! The Napoleonic Winter (RULINGS §7) and the standard game's adjustment phase: supply points,
//! builds and removals, influence points, bids for minor powers, control of minors, victory.
//!
//! [`adjudicate`] runs the sequence: (a) autumn retreats happen before, in their own phase; (b)
//! the SP accounts ([`supply::open`]), builds and removals ([`adjust::units`]), then
//! [`supply::close`]; (c)-(e) influence, bids and control ([`influence::winter`]); then the victory
//! check ([`victory::check`]). A Winter `Bids` phase (Winter 1800) runs (c)-(e) only. [`control`]
//! detects losses of control after every phase, records how long centres are held, and carries
//! out the GM's commands. What happened beyond the orders' outcomes is reported as [`Event`]s in
//! the position's ledgers.

pub mod adjust;
pub mod control;
pub mod event;
pub mod influence;
pub mod ledger;
pub mod supply;
pub mod victory;

pub use control::GmCommand;
pub use event::{Event, LossCause};
pub use ledger::{Item, LedgerError, Ledgers};

use crate::adjudicate::Outcome;
use crate::order::Order;
use crate::position::Position;
use crate::variant::{PhaseKind, PowerId, ProvinceSet, Region, Variant};

/// Adjudicates a Winter phase. `orders` are validated Winter orders, each with the power that
/// gave it. Without the Napoleonic rule switches this is the standard adjustment phase; with
/// them it is the Winter sequence of RULINGS §7.
pub fn adjudicate(
    variant: &Variant,
    position: &Position,
    orders: &[(PowerId, Order<Region>)],
) -> (Vec<Outcome>, Position) {
    let mut outcomes = vec![Outcome::Void("not an adjustment order".into()); orders.len()];
    let mut next = position.clone();
    let rules = &variant.rules;
    let napoleonic = rules.supply_points || rules.influence;
    if napoleonic {
        next.ledgers.start_winter();
    }
    // Winter 1800 (a Bids phase) runs steps (c)-(e) only.
    if position.phase.kind != PhaseKind::Bids {
        if rules.supply_points {
            supply::open(variant, position, orders, &mut outcomes, &mut next.ledgers);
        }
        adjust::units(variant, position, &mut next, orders, &mut outcomes);
        if rules.supply_points {
            supply::close(variant, &mut next, orders, &mut outcomes);
        }
        // A blockade stops builds for this Winter only (R5.4).
        next.blockaded = ProvinceSet::EMPTY;
    }
    if rules.influence {
        influence::winter(variant, &mut next, orders, &mut outcomes);
    }
    if napoleonic {
        victory::check(variant, &mut next);
    }
    (outcomes, next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position;
    use crate::variant::{load_named, Variant};

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
