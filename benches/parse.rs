//! Order parsing, in both notations: 10,000 order lines of the napoleonic board written the
//! variant's way (`A(Par)-Bur`) and the judge's way (`A Par - Bur`), parsed as one mail each.
//!
//! The lines are every army move, hold and support along the board's land edges, repeated to
//! 10,000; both texts say the same orders. Parsing must be linear in the text and cheap in both
//! notations: "did you mean" suggestions are computed only for an error reported.
//!
//! Run: `cargo bench --bench parse`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use napjudge_engine::order::parse_orders;
use napjudge_engine::variant::{self, SpaceKind, Variant};
use std::hint::black_box;

/// How many order lines each mail has.
const LINES: usize = 10_000;

/// The mail in the variant's notation and in the judge's.
fn mails(v: &Variant) -> (String, String) {
    let mut paren = Vec::new();
    let mut judge = Vec::new();
    let land: Vec<_> = v
        .province_ids()
        .filter(|&p| v.province(p).kind != SpaceKind::Sea)
        .collect();
    for &a in &land {
        let ca = &v.province(a).code;
        paren.push(format!("A({ca}) H"));
        judge.push(format!("A {ca} H"));
        for &b in land.iter().filter(|&&b| v.army_adjacent(a, b)) {
            let cb = &v.province(b).code;
            paren.push(format!("A({ca})-{cb}"));
            judge.push(format!("A {ca} - {cb}"));
            paren.push(format!("A({cb}) S A({ca})-{cb}"));
            judge.push(format!("A {cb} S A {ca} - {cb}"));
        }
    }
    let take = |lines: Vec<String>| -> String {
        let mut out = String::new();
        for l in lines.iter().cycle().take(LINES) {
            out.push_str(l);
            out.push('\n');
        }
        out
    };
    (take(paren), take(judge))
}

fn parse(c: &mut Criterion) {
    let Ok(v) = variant::load_named("napoleonic") else {
        panic!("the napoleonic board loads");
    };
    let (paren, judge) = mails(&v);
    // Every line parses: the bench times the normal path, not the error path.
    for mail in [&paren, &judge] {
        assert!(parse_orders(&v, mail).iter().all(Result::is_ok));
    }
    let mut g = c.benchmark_group("parse_10000_lines");
    for (name, mail) in [("parenthesised", &paren), ("judge", &judge)] {
        g.throughput(Throughput::Bytes(mail.len() as u64));
        g.bench_function(name, |b| b.iter(|| parse_orders(&v, black_box(mail))));
    }
    g.finish();
}

criterion_group!(benches, parse);
criterion_main!(benches);
