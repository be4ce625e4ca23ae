//! RULINGS section 0: the outcome never depends on the order in which the orders are written.
//! Every DATC case of 6.A to 6.H (with 6.F's convoy paradoxes, Pandin's 6.F.16 and 6.F.17, and
//! 6.G's) is played with each step's orders reversed, rotated to every starting line, and
//! shuffled with a few fixed seeds; each must still pass.

use napjudge_cases::file::{parse, Case, Line};
use napjudge_cases::run::{check, Variants};
use std::path::PathBuf;

fn read(name: &str) -> Vec<Case> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/datc")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    parse(name, &text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A fixed pseudo-random sequence (xorshift), so a failure can be replayed.
struct Shuffler(u64);

impl Shuffler {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn shuffle(&mut self, lines: &mut [Line]) {
        for i in (1..lines.len()).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            lines.swap(i, j);
        }
    }
}

/// A way of rewriting a step's orders.
#[derive(Clone, Copy, Debug)]
enum Way {
    Reversed,
    /// Starting at this line (modulo the number of lines), wrapping round.
    Rotated(usize),
    Shuffled(u64),
}

impl Way {
    fn apply(self, orders: &[Line]) -> Vec<Line> {
        let mut out = orders.to_vec();
        match self {
            Way::Reversed => out.reverse(),
            Way::Rotated(k) => {
                let n = out.len().max(1);
                out.rotate_left(k % n);
            }
            Way::Shuffled(seed) => Shuffler(seed).shuffle(&mut out),
        }
        out
    }
}

/// Plays every case of `file` with its orders rewritten each way; returns how many were played
/// and every failure.
fn failures_when_permuted(file: &str) -> (usize, Vec<String>) {
    let mut variants = Variants::default();
    let mut played = 0;
    let mut failures = Vec::new();
    for case in read(file) {
        let longest = case.steps.iter().map(|s| s.orders.len()).max().unwrap_or(0);
        let ways = std::iter::once(Way::Reversed)
            .chain((1..longest).map(Way::Rotated))
            .chain([1, 7, 42, 2024, 0x9e37_79b9].map(Way::Shuffled));
        for way in ways {
            let mut permuted = case.clone();
            for step in &mut permuted.steps {
                step.orders = way.apply(&step.orders);
            }
            played += 1;
            let report = check(&permuted, &mut variants);
            if !report.failures.is_empty() {
                failures.push(format!(
                    "{} with orders {way:?}:\n  {}",
                    report.name,
                    report.failures.join("\n  ")
                ));
            }
        }
    }
    (played, failures)
}

/// DATC 6.F (with 6.F.16 and 6.F.17, Pandin's paradoxes) passes whatever the order of writing.
#[test]
fn datc_6f_convoys_pass_in_any_order_of_writing() {
    let (played, failures) = failures_when_permuted("6.F.case");
    assert!(played > 24 * 5, "only {played} permuted cases played");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// DATC 6.G (convoys to adjacent places, with its convoy paradoxes) passes whatever the order of
/// writing.
#[test]
fn datc_6g_adjacent_convoys_pass_in_any_order_of_writing() {
    let (played, failures) = failures_when_permuted("6.G.case");
    assert!(played > 20 * 5, "only {played} permuted cases played");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The movement chapters 6.A to 6.E (with 6.C's circular movement, 6.E's head-to-head battles
/// and beleaguered garrisons) and 6.H (retreats) pass whatever the order of writing. 6.I and 6.J
/// are left out: there the order of writing decides which of too many builds or disbands count
/// (DATC 6.I.1, 6.J.1).
#[test]
fn datc_movement_and_retreat_chapters_pass_in_any_order_of_writing() {
    let mut played = 0;
    let mut failures = Vec::new();
    for file in [
        "6.A.case", "6.B.case", "6.C.case", "6.D.case", "6.E.case", "6.H.case",
    ] {
        let (p, f) = failures_when_permuted(file);
        played += p;
        failures.extend(f);
    }
    assert!(played > 100 * 5, "only {played} permuted cases played");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
