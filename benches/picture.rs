//! Pictures of the Napoleonic board (issue 12: under 50 ms): the SVG and the PNG of the starting
//! position, and of a crowded Autumn with its orders (`tests/picture/crowded.case`, after its
//! first phase). The board's shapes are read from the embedded file each time, as
//! `napjudge map` and the result mails do; the case is played once, outside the timing.
//!
//! Run: `cargo bench --bench picture`.

use criterion::Criterion;
use napjudge_cases::{file, run};
use napjudge_engine::position::Position;
use napjudge_engine::turn::PhaseReport;
use napjudge_engine::variant::{load_named, Variant};
use napjudge_picture::{self as picture, Format, View};
use std::hint::black_box;
use std::path::Path;

fn crowded() -> (Variant, PhaseReport) {
    let cases = file::read_file(Path::new("tests/picture/crowded.case")).expect("the case reads");
    let case = cases.first().expect("one case");
    let v = run::Variants::default()
        .for_case(case)
        .expect("the case's board");
    let steps = run::play(case, &v).expect("plays");
    let report = steps.into_iter().next().expect("a phase").report;
    (v, report)
}

fn bench(c: &mut Criterion, name: &str, v: &Variant, pos: &Position, report: Option<&PhaseReport>) {
    let board = picture::board_for(v).expect("shapes");
    let png = picture::picture(v, &board, pos, report, View::After, Format::Png).expect("draws");
    // The size a results mail carries, for docs/performance.md.
    println!("{name}: PNG {} bytes", png.len());
    let mut group = c.benchmark_group(name);
    for (label, format) in [("svg", Format::Svg), ("png", Format::Png)] {
        group.bench_function(label, |b| {
            b.iter(|| {
                let board = picture::board_for(v).expect("shapes");
                picture::picture(v, &board, pos, report, View::After, format).expect("draws")
            })
        });
    }
    group.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let v = load_named("napoleonic").expect("the board loads");
    let start = Position::initial(&v);
    bench(&mut c, "napoleonic_start", &v, &start, None);
    let (v, report) = crowded();
    bench(
        &mut c,
        "napoleonic_crowded_autumn",
        &v,
        black_box(&report.next),
        Some(&report),
    );
    c.final_summary();
}
