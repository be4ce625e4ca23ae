//! The judge's figures (issue 9): one Napoleonic phase from the store and back (load the
//! position and orders, adjudicate, store the report and the next position, render and queue
//! every result mail, commit), and a `tick` over 1,000 idle games.

#[path = "../tests/common/mod.rs"]
mod common;
mod scratch;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use napjudge_judge::{parse_time, Author, Judge, MailConfig, PasswordCost, Store};
use std::path::Path;

const NOW: &str = "2026-07-01T12:00:00Z";

/// A game at Spring 1801 with every power's orders in.
fn spring_1801(db: &Path) {
    let now = parse_time(NOW).expect("time");
    let mut j = Judge::new(Store::open(db).expect("db"));
    common::start_five_players(
        &mut j,
        now,
        "g",
        "Europe/Paris",
        common::day_periods(),
        |p| format!("{}@example.org", p.to_lowercase()),
    );
    j.process("g", false, now).expect("Winter 1800");
    for (p, o) in [
        ("France", "A(Par)-Bur\nF(Bre)-MAO\nF(Mar)-GOL\nA(Bor) H\n"),
        ("Austria", "A(Vie)-Boh\nA(Bud)-Gal\nA(Tra) H\nF(Dal)-ADR\n"),
        ("Prussia", "A(Ber)-Sax\nA(Kon) H\nA(Kol)-Han\nA(Brt) H\n"),
        ("Russia", "A(StP)-Fin\nA(Sib) H\nA(Azo)-Cau\nA(Mos) H\n"),
        (
            "England",
            "F(Lon)-NTH\nF(Sco)-NWG\nA(Lpl)-Wal\nF(Sar)-TYS\n",
        ),
    ] {
        j.orders("g", p, o, Author::Player, now).expect("orders");
    }
}

/// 1,000 running games in Winter 1800, deadlines a day away, nobody ordered yet: set up through
/// the service, as a GM would (light passwords: 5,000 full-cost hashes would take minutes).
fn idle_games(db: &Path) {
    let now = parse_time(NOW).expect("time");
    let mut j = Judge::new(Store::open(db).expect("db")).with_password_cost(PasswordCost::Light);
    for i in 0..1000 {
        common::start_five_players(
            &mut j,
            now,
            &format!("game{i:04}"),
            "UTC",
            common::day_periods(),
            |_| "p@example.org".to_string(),
        );
    }
}

fn bench(c: &mut Criterion) {
    let with_picture = scratch::db("phase-template.db");
    spring_1801(&with_picture);
    // The store round trip alone (issue 9's aim), and with the result mails' picture (issue 12).
    let plain = scratch::db("phase-template-plain.db");
    std::fs::copy(&with_picture, &plain).expect("copy");
    let now = parse_time(NOW).expect("time");
    Judge::new(Store::open(&plain).expect("db"))
        .set("g", &napjudge_judge::Setting::Pictures(false), now)
        .expect("pictures off");
    let db = scratch::db("phase.db");
    for (name, template) in [
        ("judge/phase_from_store_and_back", &plain),
        ("judge/phase_with_picture", &with_picture),
    ] {
        c.bench_function(name, |b| {
            b.iter_batched(
                || {
                    for ext in ["-wal", "-shm"] {
                        let _ = std::fs::remove_file(format!("{}{ext}", db.display()));
                    }
                    std::fs::copy(template, &db).expect("copy");
                    let mut j = Judge::new(Store::open(&db).expect("db"));
                    // Loading the board is once per process, not per phase: outside the timing.
                    j.show("g", None).expect("show");
                    j
                },
                |mut j| {
                    let p = j.process("g", false, now).expect("Spring 1801");
                    assert_eq!(p.mails, 6);
                    j
                },
                BatchSize::PerIteration,
            )
        });
    }

    let idle = scratch::db("idle.db");
    idle_games(&idle);
    let mut j = Judge::new(Store::open(&idle).expect("db"));
    // The tick `napjudge tick` runs: stored mail first (none here), then the games.
    let cfg = MailConfig {
        judge: "judge@napjudge.invalid".into(),
        max_size: napjudge_judge::MAX_SIZE,
    };
    c.bench_function("judge/tick_1000_idle_games", |b| {
        b.iter(|| {
            let (_, r) = napjudge_judge::tick(&mut j, &cfg, now).expect("tick");
            assert!(r.done.is_empty());
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
