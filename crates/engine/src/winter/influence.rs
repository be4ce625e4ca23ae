//! Influence points and bids (R7.5-R7.7): (c) new IP, (d) bids in the order written, (e) the
//! change of control of each minor.

use crate::order::{Order, OrderKind};
use crate::outcome::{Outcome, Reason, Refusal, WinterEvent};
use crate::position::ledger::{Bid, Influence};
use crate::position::Position;
use crate::validate::check_bid;
use crate::variant::{PowerId, Region, Variant};
use std::collections::BTreeMap;

/// IP per owned centre, per controlled minor, per SP converted (R7.5).
const IP_PER_CENTRE: u32 = 3;
const IP_PER_MINOR: u32 = 2;
const IP_PER_SP: u32 = 2;

/// The incumbent's automatic IP for `minor` (R7.7): +1 per consecutive year of control, +2 per
/// centre the minor owns beyond its home centres. None when nobody controls it.
pub fn automatic_ip(variant: &Variant, position: &Position, minor: PowerId) -> Option<u32> {
    let control = position.ledgers.minors.get(&minor)?;
    control.controller?;
    let owned = position.centre_count(variant, minor) as u32;
    let homes = position.ledgers.homes(variant, minor).len() as u32;
    Some(control.years + 2 * owned.saturating_sub(homes))
}

/// Steps (c) to (e) of a Winter, on the position after adjustments. Sets the outcomes of `BID`
/// orders: a bid succeeds when it is taken (not when it wins). Returns the bids' totals and the
/// changes of control.
pub fn winter(
    variant: &Variant,
    next: &mut Position,
    orders: &[(PowerId, Order<Region>)],
    outcomes: &mut [Outcome],
) -> Vec<WinterEvent> {
    allocate(variant, next);
    take_bids(variant, next, orders, outcomes);
    change_control(variant, next)
}

/// (c): each major's IP for this Winter.
fn allocate(variant: &Variant, next: &mut Position) {
    let majors: Vec<PowerId> = next.ledgers.majors(variant).collect();
    for p in majors {
        let centres = next.centre_count(variant, p) as u32;
        let minors = next.ledgers.controlled_by(p).count() as u32;
        let converted = next.ledgers.accounts.get(&p).map_or(0, |a| a.converted);
        let received = IP_PER_CENTRE * centres + IP_PER_MINOR * minors + IP_PER_SP * converted;
        next.ledgers
            .influence
            .insert(p, Influence { received, spent: 0 });
    }
}

/// (d): bids in the order written; a bid past the bidder's IP is refused, the ones before stand.
fn take_bids(
    variant: &Variant,
    next: &mut Position,
    orders: &[(PowerId, Order<Region>)],
    outcomes: &mut [Outcome],
) {
    for (i, (power, order)) in orders.iter().enumerate() {
        let OrderKind::Bid {
            amount,
            minor,
            on_behalf,
        } = order.kind
        else {
            continue;
        };
        let ledgers = &mut next.ledgers;
        if let Err(e) = check_bid(variant, ledgers, *power, minor, on_behalf) {
            outcomes[i] = Outcome::Fails(Reason::Refused(e));
            continue;
        }
        let Some(ip) = ledgers.influence.get_mut(power) else {
            outcomes[i] = Outcome::Fails(Reason::Refused(Refusal::OnlyMajorsBid));
            continue;
        };
        if ip.spent + amount > ip.received {
            outcomes[i] = Outcome::Fails(Reason::Refused(Refusal::IpOverBudget {
                received: ip.received,
                spent: ip.spent,
            }));
            continue;
        }
        ip.spent += amount;
        ledgers.bids.push(Bid {
            by: *power,
            minor,
            for_: on_behalf.unwrap_or(*power),
            amount,
        });
        outcomes[i] = Outcome::Succeeds;
    }
}

/// (e): the highest total takes each minor; a tie at the top leaves it with last year's
/// controller, or with nobody. The incumbent's automatic IP go in the ledgers (R7.7). Returns the
/// bids' totals and the change of control, minor by minor.
fn change_control(variant: &Variant, next: &mut Position) -> Vec<WinterEvent> {
    let mut events = Vec::new();
    let minors: Vec<PowerId> = next.ledgers.minor_powers(variant).collect();
    for minor in minors {
        let mut totals: BTreeMap<PowerId, u32> = BTreeMap::new();
        for b in next.ledgers.bids.iter().filter(|b| b.minor == minor) {
            *totals.entry(b.for_).or_default() += b.amount;
        }
        let incumbent = next.ledgers.controller(minor);
        let automatic = automatic_ip(variant, next, minor).zip(incumbent);
        if let Some((auto, c)) = automatic {
            *totals.entry(c).or_default() += auto;
            next.ledgers.automatic.insert(minor, (c, auto));
        }
        let top = totals.values().copied().max().unwrap_or(0);
        let leaders: Vec<PowerId> = totals
            .iter()
            .filter(|(_, &t)| t == top && top > 0)
            .map(|(&p, _)| p)
            .collect();
        let tie = leaders.len() > 1;
        let winner = match leaders.as_slice() {
            [one] => Some(*one),
            _ => incumbent,
        };
        let control = next.ledgers.minors.entry(minor).or_default();
        control.years = match winner {
            Some(w) if Some(w) == incumbent => control.years + 1,
            Some(_) => 1,
            None => 0,
        };
        control.controller = winner;
        if totals.is_empty() && winner.is_none() {
            continue;
        }
        let mut totals: Vec<(PowerId, u32)> = totals.into_iter().collect();
        totals.sort_by_key(|&(p, t)| (std::cmp::Reverse(t), p));
        events.push(WinterEvent::Bids {
            minor,
            totals,
            automatic: automatic.map(|(n, c)| (c, n)),
        });
        events.push(match winner {
            Some(major) if Some(major) == incumbent => {
                WinterEvent::ControlKept { minor, major, tie }
            }
            Some(major) => WinterEvent::ControlGained { minor, major },
            None => WinterEvent::Uncontrolled { minor, tie },
        });
    }
    events
}
