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
//! `NAPJUDGE_BLESS=1 cargo test --test mail_warnings` rewrites the `.out` files: review the diff.

use chrono::{DateTime, Utc};
use napjudge_judge::clock::parse_time;
use napjudge_judge::mail::{self, Handled};
use napjudge_judge::store::Store;
use napjudge_judge::Judge;
use std::path::{Path, PathBuf};
mod common;
mod golden;
mod intake;
use intake::{config, scratch};

fn at(hours: i64) -> DateTime<Utc> {
    parse_time("2026-07-01T10:00:00Z").expect("time") + chrono::Duration::hours(hours)
}

#[test]
fn warnings_before_the_deadline_golden() {
    let dir = scratch("mail-warnings");
    let db = dir.join("judge.db");
    let mut j = Judge::new(Store::open(&db).expect("db"));
    common::start_five_players(&mut j, at(0), "g", "UTC", common::day_periods(), |p| {
        format!("{}@example.org", p.to_lowercase())
    });
    j.assign("g", "GM", "gm@example.org", Some("gm-pw"), at(0))
        .expect("the GM's password");
    let cfg = config();
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mail/warnings");
    let mut steps: Vec<PathBuf> = std::fs::read_dir(&golden)
        .expect("tests/mail/warnings")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "eml" || e == "tick"))
        .collect();
    steps.sort();
    let bless = std::env::var_os("NAPJUDGE_BLESS").is_some();
    let mut seen = j.view().mails(None).expect("outbox").len();
    let mut failures = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let name = step
            .file_stem()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let raw = std::fs::read(step).expect("step");
        if step.extension().is_some_and(|e| e == "tick") {
            let now = parse_time(String::from_utf8_lossy(&raw).trim()).expect("a tick's time");
            let (_, report) = mail::tick(&mut j, &cfg, now).expect("tick");
            assert!(report.failed.is_empty(), "{name}: {report:?}");
        } else {
            let handled = mail::receive(&mut j, &cfg, &raw, at(i as i64 + 1)).expect("stored");
            assert!(
                !matches!(handled, Handled::Failed(_)),
                "{name}: {handled:?}"
            );
        }
        let mails = j.view().mails(None).expect("outbox");
        let got: String = mails[seen..].iter().map(golden::show).collect();
        seen = mails.len();
        let out = golden.join(format!("{name}.out"));
        if bless {
            std::fs::write(&out, &got).expect("write golden");
        } else if std::fs::read_to_string(&out).unwrap_or_default() != got {
            failures.push(format!("{name}:\n--- got\n{got}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
