//! Issue 21, part 2: the warnings before the deadline, golden. `tests/mail/warnings/NN-name.eml`
//! are raw mails fed in order to `mail::receive` on a real SQLite file, and `NN-name.out` the
//! exact mails each one queued:
//! - an acknowledgement with each movement warning (units with no order, a move that needs a
//!   convoy, a move into the power's own held space with the MERGE it perhaps meant, supports and
//!   convoys of the power's own units ordered elsewhere, a `2:` order with no first move);
//! - the results mail listing the units no order named ("no order: held");
//! - a Winter LIST with the power's budget;
//! - Winter orders the power's SP or builds can't pay for, warned at once with the budget, and the
//!   same failures in the Winter's results;
//! - the Winter's reminders with each power's budget.
//!
//! A step `NN-name.tick` holds a time instead of a mail: the judge's `tick` runs then (reminders,
//! a phase due processed), and `NN-name.out` is what it queued.
//! A warning never changes what is stored: the orders stand as written.
//! `NAPJUDGE_BLESS=1 cargo test --release --test suite mail_warnings::` rewrites the `.out` files: review the diff.

use crate::golden;
use crate::intake;
use chrono::{DateTime, Utc};
use golden::{FivePowers, Folder, Outbox};
use intake::scratch;
use napjudge_judge::{parse_time, Handled, Judge, Store};

fn at(hours: i64) -> DateTime<Utc> {
    parse_time("2026-07-01T10:00:00Z").expect("time") + chrono::Duration::hours(hours)
}

#[test]
fn warnings_before_the_deadline_golden() {
    let dir = scratch("mail-warnings");
    let db = dir.join("judge.db");
    let mut j = Judge::new(Store::open(&db).expect("db"));
    FivePowers {
        periods: golden::common::day_periods(),
        one_password: Some("pw"),
        ..FivePowers::new("g")
    }
    .set_up(&mut j, at(0));
    let mut folder = Folder::new("warnings");
    let steps = folder.steps(&["eml", "tick"]);
    let mut outbox = Outbox::after(j.view());
    for (i, step) in steps.iter().enumerate() {
        let name = golden::name(step);
        let raw = std::fs::read(step).expect("step");
        if step.extension().is_some_and(|e| e == "tick") {
            let now = parse_time(String::from_utf8_lossy(&raw).trim()).expect("a tick's time");
            let (_, report) = golden::tick(&mut j, now);
            assert!(report.failed.is_empty(), "{name}: {report:?}");
        } else {
            let handled = golden::receive(&mut j, &raw, at(i as i64 + 1));
            assert!(
                !matches!(handled, Handled::Failed(_)),
                "{name}: {handled:?}"
            );
        }
        let got: String = outbox.shown(j.view());
        folder.check(&name, &got);
    }
    folder.finish();
}
