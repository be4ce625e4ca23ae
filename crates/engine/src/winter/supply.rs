//! Supply points (R7.2-R7.4): each major's account is opened before its units are adjusted
//! ([`open`]: income, bank, repayments, renewals, new loans) and closed after ([`close`]: upkeep,
//! conversion to IP, bank).
//!
//! Rulings: a borrower repays out of this Winter's income and bank before anything else; what it
//! can't pay stays lent for another year. A borrower that can't repay every creditor pays them in
//! the variant's order of powers, whatever order the loans are listed or were recorded in. A loan
//! may only lend SP the lender doesn't need for the units it has (loans received this Winter don't
//! count). Conversions and banking come after the builds and removals; what is left unallocated
//! is banked.

use crate::order::{Order, OrderKind};
use crate::outcome::{Outcome, Reason, Refusal, WinterEvent};
use crate::position::ledger::{Account, Ledgers};
use crate::position::Position;
use crate::variant::{PowerId, Region, Variant};
use std::collections::BTreeMap;

/// SP one unit costs, and one centre yields.
pub const SP_PER_UNIT: u32 = 3;

/// This Winter's SP income of `power`: 3 per owned centre, and 3 more for the power with the
/// extra unit (England) while it owns any centre and is a major (R7.2; as a minor after an
/// adoption, R7.11, it has no SP and keeps one unit per centre).
pub fn income(variant: &Variant, position: &Position, power: PowerId) -> u32 {
    let centres = position.centre_count(variant, power) as u32;
    let extra = variant.rules.extra_unit == Some(power)
        && centres > 0
        && position.ledgers.is_major(variant, power);
    SP_PER_UNIT * (centres + u32::from(extra))
}

/// How many units `major` may keep this Winter: what its open account pays for (R7.3).
pub fn units_paid(ledgers: &Ledgers, major: PowerId) -> i32 {
    ledgers
        .accounts
        .get(&major)
        .map_or(0, |a| (a.available / SP_PER_UNIT) as i32)
}

/// The units (components) `power` has on the board.
pub fn unit_count(position: &Position, power: PowerId) -> u32 {
    position
        .forces()
        .filter(|(_, f)| f.power == power)
        .map(|(_, f)| f.components())
        .sum()
}

fn refuse(why: Refusal) -> Outcome {
    Outcome::Fails(Reason::Refused(why))
}

/// Opens every major's account: income and bank, then last year's loans repaid (or renewed),
/// then this Winter's loans, in the order written. Sets the outcomes of `RENEW` and `LOAN`;
/// returns the repayments.
pub fn open(
    variant: &Variant,
    position: &Position,
    orders: &[(PowerId, Order<Region>)],
    outcomes: &mut [Outcome],
    ledgers: &mut Ledgers,
) -> Vec<WinterEvent> {
    let mut events = Vec::new();
    let mut own: BTreeMap<PowerId, u32> = ledgers
        .majors(variant)
        .map(|p| (p, income(variant, position, p) + ledgers.banked(p)))
        .collect();
    // What a borrower can repay with: its own income and bank, not repayments it receives.
    let mut payable = own.clone();
    let mut renewed = Vec::new();
    for (i, (power, order)) in orders.iter().enumerate() {
        if let OrderKind::Renew { to } = order.kind {
            outcomes[i] = if ledgers
                .loans
                .iter()
                .any(|l| l.lender == *power && l.borrower == to)
            {
                renewed.push((*power, to));
                Outcome::Succeeds
            } else {
                refuse(Refusal::NoLoanToRenew(to))
            };
        }
    }
    let mut loans = std::mem::take(&mut ledgers.loans);
    // A borrower that can't repay every creditor pays them in the variant's order of powers,
    // whatever order the loans are listed or were recorded in (R7.2).
    loans.sort_by_key(|l| (l.lender, l.borrower));
    for loan in &mut loans {
        if renewed.contains(&(loan.lender, loan.borrower)) {
            continue;
        }
        let can = payable.get(&loan.borrower).copied().unwrap_or(0);
        let paid = loan.amount.min(can);
        for (p, change) in [
            (loan.borrower, -i64::from(paid)),
            (loan.lender, i64::from(paid)),
        ] {
            if let Some(v) = own.get_mut(&p) {
                *v = (i64::from(*v) + change).max(0) as u32;
            }
        }
        if let Some(v) = payable.get_mut(&loan.borrower) {
            *v -= paid;
        }
        events.push(WinterEvent::LoanRepaid {
            borrower: loan.borrower,
            lender: loan.lender,
            paid,
            owed: loan.amount,
        });
        loan.amount -= paid;
    }
    loans.retain(|l| l.amount > 0);
    ledgers.loans = loans;
    let mut lent: BTreeMap<PowerId, u32> = BTreeMap::new();
    let mut borrowed: BTreeMap<PowerId, u32> = BTreeMap::new();
    for (i, (power, order)) in orders.iter().enumerate() {
        let OrderKind::Loan { amount, to } = order.kind else {
            continue;
        };
        let has = own.get(power).copied().unwrap_or(0);
        let upkeep = SP_PER_UNIT * unit_count(position, *power);
        let free = has.saturating_sub(upkeep);
        outcomes[i] = if amount > free {
            refuse(Refusal::LoanOverBudget { has, upkeep, free })
        } else {
            if let Some(v) = own.get_mut(power) {
                *v -= amount;
            }
            *lent.entry(*power).or_default() += amount;
            *borrowed.entry(to).or_default() += amount;
            ledgers.add_loan(*power, to, amount);
            Outcome::Succeeds
        };
    }
    for (p, sp) in own {
        let available = sp + borrowed.get(&p).copied().unwrap_or(0);
        ledgers.bank.remove(&p);
        ledgers.accounts.insert(
            p,
            Account {
                available,
                ..Account::default()
            },
        );
    }
    events
}

/// Closes every major's account after its units are adjusted: upkeep of the units kept, then
/// `CONVERT` and `BANK` in the order written (each refused when over what is left); the rest is
/// banked. Sets the outcomes of `CONVERT` and `BANK`.
pub fn close(
    variant: &Variant,
    next: &mut Position,
    orders: &[(PowerId, Order<Region>)],
    outcomes: &mut [Outcome],
) {
    let majors: Vec<PowerId> = next.ledgers.majors(variant).collect();
    for p in majors {
        let units = unit_count(next, p);
        let ledgers = &mut next.ledgers;
        let Some(account) = ledgers.accounts.get_mut(&p) else {
            continue;
        };
        account.upkeep = (SP_PER_UNIT * units).min(account.available);
        let mut left = account.available - account.upkeep;
        for (i, (_, order)) in orders.iter().enumerate().filter(|(_, (q, _))| *q == p) {
            let (amount, convert) = match order.kind {
                OrderKind::Convert { amount } => (amount, true),
                OrderKind::Bank { amount } => (amount, false),
                _ => continue,
            };
            outcomes[i] = if amount > left {
                refuse(Refusal::SpOverBudget(left))
            } else {
                left -= amount;
                if convert {
                    account.converted += amount;
                }
                Outcome::Succeeds
            };
        }
        let bank = account.available - account.upkeep - account.converted;
        if bank > 0 {
            ledgers.bank.insert(p, bank);
        }
    }
}
