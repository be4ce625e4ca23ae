//! Movement adjudication, napjudge side by side with the `diplomacy` crate, on the same inputs.
//!
//! Groups:
//! - `spring_1901`: the standard opening, 22 units, two bounces (Gal, BLA).
//! - `datc`: every DATC (v3.0 chapter 6) movement phase in `fixtures/datc`, once each; the
//!   `diplomacy` crate gets the cases it can express, and napjudge is also timed on exactly that
//!   subset so the ratio compares like with like.
//!
//! Inputs are built once, outside the timing: napjudge parses and validates its orders, the
//! `diplomacy` crate builds its `Submission` (which is where it drops illegal orders and adds holds).
//! Only the adjudication call is timed. After the criterion groups, a plain `Instant` loop prints the
//! per-iteration figures and the ratios.
//!
//! Run: `cargo bench --bench adjudicate`.

use criterion::Criterion;
use diplomacy::geo::{standard_map, RegionKey};
use diplomacy::judge::{MappedMainOrder, OrderState, Rulebook, Submission};
use diplomacy::{ShortName, UnitPosition};
use napjudge_cases::file::{read_file, Case};
use napjudge_cases::run::{forces_text, initial_position, play, sheets};
use napjudge_engine::adjudicate::{self, movement};
use napjudge_engine::order::{parse_line, Order};
use napjudge_engine::position::Position;
use napjudge_engine::turn::{self, Sheets};
use napjudge_engine::validate::{check_set, Checker};
use napjudge_engine::variant::{self, PhaseKind, PowerId, ProvinceId, Region, Variant};
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

/// The standard opening with two bounces: A(War)/A(Vie)-Gal and F(Sev)/F(Ank)-BLA. Every other
/// unit moves to a free space (A(Ber)-Kie follows F(Kie)-Den out). Russia's fleet goes to Fin,
/// not the usual BOT: the crate's standard map (0.2.0) lacks the BOT-StP/sc border, so it would
/// void F(StP/sc)-BOT as unreachable.
const SPRING_1901: &[(&str, &str)] = &[
    ("England", "F(Lon)-NTH"),
    ("England", "F(Edi)-NWG"),
    ("England", "A(Lvp)-Yor"),
    ("France", "F(Bre)-MAO"),
    ("France", "A(Par)-Bur"),
    ("France", "A(Mar)-Spa"),
    ("Germany", "F(Kie)-Den"),
    ("Germany", "A(Ber)-Kie"),
    ("Germany", "A(Mun)-Ruh"),
    ("Italy", "F(Nap)-ION"),
    ("Italy", "A(Rom)-Apu"),
    ("Italy", "A(Ven)-Pie"),
    ("Austria", "F(Tri)-Alb"),
    ("Austria", "A(Vie)-Gal"),
    ("Austria", "A(Bud)-Ser"),
    ("Russia", "F(StP/sc)-Fin"),
    ("Russia", "A(Mos)-Ukr"),
    ("Russia", "A(War)-Gal"),
    ("Russia", "F(Sev)-BLA"),
    ("Turkey", "F(Ank)-BLA"),
    ("Turkey", "A(Con)-Bul"),
    ("Turkey", "A(Smy)-Arm"),
];

/// The moves of [`SPRING_1901`] that bounce.
const SPRING_1901_BOUNCES: &[&str] = &["war", "vie", "sev", "ank"];

// ----- napjudge side -----

/// Parses and validates `(power, order)` lines against `position`, power by power, as the case
/// runner does. Panics on an order that does not parse or validate: bench inputs are known good.
fn napjudge_orders(
    variant: &Variant,
    position: &Position,
    lines: &[(&str, &str)],
) -> Vec<(PowerId, Order<Region>)> {
    let parsed: Vec<(PowerId, _)> = lines
        .iter()
        .map(|(power, text)| {
            let p = variant
                .power_by_name(power)
                .expect("a power of the variant");
            (p, parse_line(variant, text).expect("an order that parses"))
        })
        .collect();
    let mut out = Vec::new();
    for power in variant.power_ids() {
        let orders: Vec<_> = parsed
            .iter()
            .filter(|(p, _)| *p == power)
            .map(|(_, o)| o.clone())
            .collect();
        let checker = Checker {
            variant,
            position: Some(position),
            power: Some(power),
        };
        for checked in check_set(&checker, &orders) {
            out.push((power, checked.expect("an order that validates")));
        }
    }
    out
}

// ----- diplomacy side: canonical case notation into the crate's order syntax -----

/// `StP/sc` → `stp(sc)`, `NTH` → `nth`; `None` when the standard map of the crate has no such
/// region.
fn dip_region(code: &str) -> Option<String> {
    let code = code.trim();
    let key = match code.split_once('/') {
        Some((p, c)) => format!("{}({})", p.to_lowercase(), c.to_lowercase()),
        None => code.to_lowercase(),
    };
    standard_map().find_region(&key).map(|_| key)
}

/// `A(Par)` → `A par`, `F(StP/sc)` → `F stp(sc)`; `None` for stacks and A/Fs (`2A(Par)`), which the
/// crate cannot express.
fn dip_unit(text: &str) -> Option<String> {
    let text = text.trim();
    let (kind, rest) = text.split_once('(')?;
    let region = rest.strip_suffix(')')?;
    if kind != "A" && kind != "F" {
        return None;
    }
    Some(format!("{kind} {}", dip_region(region)?))
}

/// One canonical order (`F(NTH)-Pic`, `A(Lon)-Bel via convoy`, `A(Bur) S A(Par)-Pic`,
/// `F(Tri) S F(Tri)`, `F(NTH) C A(Lon)-Bre`, `A(Par) H`) as the crate's text; `None` for anything
/// else (retreats, builds, stacks).
fn dip_order_text(nation: &str, text: &str) -> Option<String> {
    let text = text.trim();
    let close = text.find(')')?;
    let unit = dip_unit(&text[..=close])?;
    let rest = text[close + 1..].trim_start();
    let command = if let Some(dest) = rest.strip_prefix('-') {
        match dest.strip_suffix(" via convoy") {
            Some(d) => format!("-> {} via convoy", dip_region(d)?),
            None => format!("-> {}", dip_region(dest)?),
        }
    } else if rest == "H" {
        "holds".to_string()
    } else if let Some(s) = rest.strip_prefix("S ") {
        let s = s.trim();
        let close = s.find(')')?;
        let supported = dip_unit(&s[..=close])?;
        match s[close + 1..].trim().strip_prefix('-') {
            Some(dest) => format!("supports {supported} -> {}", dip_region(dest)?),
            None if s[close + 1..].trim().is_empty() => format!("supports {supported}"),
            None => return None,
        }
    } else if let Some(c) = rest.strip_prefix("C ") {
        let (army, dest) = c.trim().split_once('-')?;
        let army = dip_unit(army)?;
        if !army.starts_with("A ") {
            return None;
        }
        format!("convoys {army} -> {}", dip_region(dest)?)
    } else {
        return None;
    };
    Some(format!("{nation}: {unit} {command}"))
}

/// `England: F(NTH)-Pic` lines into the crate's orders.
fn dip_orders<'l>(lines: impl IntoIterator<Item = &'l str>) -> Option<Vec<MappedMainOrder>> {
    lines
        .into_iter()
        .map(|l| {
            let (nation, order) = l.split_once(':')?;
            dip_order_text(nation.trim(), order)?.parse().ok()
        })
        .collect()
}

/// `England: F(NTH), A(Yor); France: A(Par)` (the runner's force list) into the crate's units.
fn dip_units(forces: &str) -> Option<Vec<UnitPosition<'static, RegionKey>>> {
    let mut out = Vec::new();
    if forces == "(none)" {
        return Some(out);
    }
    for part in forces.split(';') {
        let (nation, units) = part.split_once(':')?;
        for u in units.split(',') {
            let text = format!("{}: {}", nation.trim(), dip_unit(u)?);
            out.push(text.parse().ok()?);
        }
    }
    Some(out)
}

// ----- inputs -----

/// The Spring 1901 input, built once for both engines.
struct Spring {
    variant: Variant,
    position: Position,
    orders: Vec<Order<Region>>,
    dip_units: Vec<UnitPosition<'static, RegionKey>>,
    dip_orders: Vec<MappedMainOrder>,
}

impl Spring {
    fn new() -> Spring {
        let variant = variant::load_named("standard").expect("the standard variant");
        let position = Position::initial(&variant);
        let orders: Vec<Order<Region>> = napjudge_orders(&variant, &position, SPRING_1901)
            .into_iter()
            .map(|(_, o)| o)
            .collect();
        assert_eq!(orders.len(), 22, "22 valid orders");
        let forces: Vec<(ProvinceId, _)> = position.forces().map(|(p, f)| (p, *f)).collect();
        let dip_units = dip_units(&forces_text(&variant, &forces)).expect("units the crate reads");
        let dip_orders = dip_orders(
            SPRING_1901
                .iter()
                .map(|(p, o)| format!("{p}: {o}"))
                .collect::<Vec<_>>()
                .iter()
                .map(String::as_str),
        )
        .expect("orders the crate reads");
        Spring {
            variant,
            position,
            orders,
            dip_units,
            dip_orders,
        }
    }

    fn submission(&self) -> Submission<'static> {
        Submission::new(standard_map(), &self.dip_units, self.dip_orders.clone())
    }

    /// Both engines move the same units: every move but the four bounces.
    fn verify(&self) {
        let napjudge = movement::adjudicate(&self.variant, &self.position, &self.orders);
        let mut nap_ok: Vec<String> = Vec::new();
        for (order, outcome) in self.orders.iter().zip(&napjudge.outcomes) {
            if outcome.succeeded() {
                let at = order.kind.unit().expect("a unit").at.province;
                nap_ok.push(self.variant.province(at).code.to_lowercase());
            }
        }
        let sub = self.submission();
        let rules = Rulebook::default();
        let outcome = sub.adjudicate(&rules);
        let mut dip_ok: Vec<String> = Vec::new();
        for order in &self.dip_orders {
            let state = OrderState::from(outcome.get(order).expect("an outcome per order"));
            if state == OrderState::Succeeds {
                dip_ok.push(order.region.province().short_name().into_owned());
            }
        }
        nap_ok.sort();
        dip_ok.sort();
        assert_eq!(nap_ok, dip_ok, "both engines move the same units");
        assert_eq!(nap_ok.len(), 22 - SPRING_1901_BOUNCES.len());
        for b in SPRING_1901_BOUNCES {
            assert!(!nap_ok.iter().any(|p| p == b), "{b} bounces");
        }
    }
}

/// One DATC movement phase: napjudge's input, and the crate's when it can express it.
struct DatcStep {
    id: String,
    position: Position,
    valid: Vec<(PowerId, Order<Region>)>,
    /// napjudge's outcome per ORDERS line (`true` for succeeded), for the agreement count.
    nap_success: Vec<bool>,
    dip: Option<(Vec<UnitPosition<'static, RegionKey>>, Vec<MappedMainOrder>)>,
}

/// Every movement phase of every case in `fixtures/datc`.
struct Datc {
    variant: Variant,
    steps: Vec<DatcStep>,
}

impl Datc {
    fn new() -> Datc {
        let variant = variant::load_named("standard").expect("the standard variant");
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/datc");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("fixtures/datc")
            .map(|e| e.expect("a directory entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "case"))
            .collect();
        files.sort();
        let mut steps = Vec::new();
        for file in files {
            for case in read_file(&file).expect("a case file") {
                steps.extend(Self::case_steps(&variant, &case));
            }
        }
        Datc { variant, steps }
    }

    fn case_steps(variant: &Variant, case: &Case) -> Vec<DatcStep> {
        if case.variant != "standard" {
            return Vec::new();
        }
        let played = play(case, variant).expect("a case that plays");
        let mut out = Vec::new();
        for (step, p) in case.steps.iter().zip(played) {
            if !matches!(
                p.before.phase.kind,
                PhaseKind::Movement | PhaseKind::SecondMovement
            ) {
                continue;
            }
            let forces: Vec<(ProvinceId, _)> = p.before.forces().map(|(q, f)| (q, *f)).collect();
            let dip = dip_units(&forces_text(variant, &forces)).and_then(|units| {
                let orders = dip_orders(step.orders.iter().map(|l| l.text.as_str()))?;
                Some((units, orders))
            });
            out.push(DatcStep {
                id: case.id.clone(),
                nap_success: p
                    .orders
                    .iter()
                    .map(|o| matches!(&o.result, Ok(r) if r.succeeded()))
                    .collect(),
                valid: p
                    .report
                    .powers
                    .iter()
                    .flat_map(|po| {
                        po.orders
                            .iter()
                            .filter_map(|o| o.order.checked.clone().ok().map(|c| (po.power, c)))
                    })
                    .collect(),
                position: p.before,
                dip,
            });
        }
        out
    }
}

/// A full Napoleonic Autumn season from `benches/napoleonic-season.case`: 88 units in 69 forces,
/// stacks, A/Fs, a ferry, an embarkation, a merge, a blockade, a denial, chained second moves and
/// a second-phase support. One season is the engine's one call per phase, [`turn::play`], from
/// each power's order text (parsing and validation included): the movement phase and, as
/// something is dislodged there, the retreat phase (no retreat orders: the army disbands), which
/// goes on to play the fleets' second phase and end the season.
struct Season {
    variant: Variant,
    position: Position,
    sheets: Sheets,
    /// The same orders parsed and validated beforehand, for the adjudication alone.
    valid: Vec<(PowerId, Order<Region>)>,
}

impl Season {
    fn new() -> Season {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/napoleonic-season.case");
        let cases = read_file(&file).expect("the season case reads");
        let case = cases.first().expect("one case");
        let variant = variant::load_named(&case.variant).expect("the napoleonic board");
        let position = initial_position(case, &variant).expect("the season's position");
        let step = case.steps.first().expect("one phase");
        let (sheets, _) = sheets(&variant, &step.orders).expect("the season's orders");
        let valid = sheets
            .orders
            .iter()
            .flat_map(|(&power, text)| {
                turn::check(&variant, Some(&position), Some(power), text)
                    .into_iter()
                    .filter_map(move |c| c.checked.ok().map(|o| (power, o)))
            })
            .collect();
        Season {
            variant,
            position,
            sheets,
            valid,
        }
    }

    /// The season's adjudication alone, from validated orders: both phases and the retreat phase
    /// between them (the figure to hold against the core's earlier ones).
    fn adjudicate(&self) -> Position {
        let first = adjudicate::adjudicate(&self.variant, &self.position, &self.valid);
        if first.position.phase.kind != PhaseKind::Retreat {
            return first.position;
        }
        adjudicate::adjudicate(&self.variant, &first.position, &[]).position
    }

    /// Plays the season; returns the phase it ends in (checked once, outside the timing).
    fn play(&self) -> Position {
        let first = turn::play(&self.variant, &self.position, &self.sheets).expect("no GM command");
        if first.next.phase.kind != PhaseKind::Retreat {
            return first.next;
        }
        turn::play(&self.variant, &first.next, &Sheets::default())
            .expect("no GM command")
            .next
    }
}

fn nap_datc(variant: &Variant, steps: &[&DatcStep]) {
    for s in steps {
        black_box(adjudicate::adjudicate(variant, &s.position, &s.valid));
    }
}

fn dip_datc(subs: &[Submission<'static>], rules: &Rulebook) {
    for s in subs {
        black_box(s.adjudicate(rules));
    }
}

// ----- main -----

fn main() {
    let spring = Spring::new();
    spring.verify();
    let spring_sub = spring.submission();

    let season = Season::new();
    let units: u32 = season.position.forces().map(|(_, f)| f.components()).sum();
    let end = season.play().phase;
    assert_eq!(
        season.variant.phase_name(end),
        "Winter 1805 Adjustment",
        "the season plays both phases through to the Winter"
    );
    assert_eq!(
        season.adjudicate(),
        season.play(),
        "the adjudication alone gives the position the whole call gives"
    );

    let datc = Datc::new();
    let all: Vec<&DatcStep> = datc.steps.iter().collect();
    let rules = Rulebook::default();
    // The subset the crate can express and adjudicates without panicking.
    let mut subset: Vec<&DatcStep> = Vec::new();
    let mut subs: Vec<Submission<'static>> = Vec::new();
    let mut agree = 0;
    let mut disagree: Vec<&str> = Vec::new();
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for s in &all {
        let Some((units, orders)) = &s.dip else {
            continue;
        };
        let sub = Submission::new(standard_map(), units, orders.clone());
        let same = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let outcome = sub.adjudicate(&rules);
            orders.iter().zip(&s.nap_success).all(|(o, nap)| {
                let ok = outcome.get(o).map(OrderState::from) == Some(OrderState::Succeeds);
                ok == *nap
            })
        }));
        let Ok(same) = same else { continue };
        if same {
            agree += 1;
        } else {
            disagree.push(&s.id);
        }
        subset.push(s);
        subs.push(sub);
    }
    std::panic::set_hook(hook);

    // `NAPJUDGE_BENCH_COUNT=WHAT:N`: run one workload N times and stop, nothing printed, for a
    // load-independent count of it (`perf stat -e instructions:u`, `valgrind --tool=callgrind`;
    // `benches/figures.sh` uses it). WHAT is spring_napjudge, spring_diplomacy, season_napjudge,
    // season_adjudication, datc_napjudge or datc_diplomacy.
    if let Ok(count) = std::env::var("NAPJUDGE_BENCH_COUNT") {
        let (what, n) = count.split_once(':').expect("NAPJUDGE_BENCH_COUNT=WHAT:N");
        let n: u32 = n.parse().expect("N a count");
        let mut f: Box<dyn FnMut()> = match what {
            "spring_napjudge" => Box::new(|| {
                black_box(movement::adjudicate(
                    &spring.variant,
                    &spring.position,
                    black_box(&spring.orders),
                ));
            }),
            "spring_diplomacy" => Box::new(|| {
                black_box(black_box(&spring_sub).adjudicate(&rules));
            }),
            "season_napjudge" => Box::new(|| {
                black_box(black_box(&season).play());
            }),
            "season_adjudication" => Box::new(|| {
                black_box(black_box(&season).adjudicate());
            }),
            "datc_napjudge" => Box::new(|| nap_datc(&datc.variant, black_box(&subset))),
            "datc_diplomacy" => Box::new(|| dip_datc(black_box(&subs), &rules)),
            other => panic!("no workload {other}"),
        };
        for _ in 0..n {
            f();
        }
        return;
    }

    let mut c = Criterion::default()
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1))
        .sample_size(30)
        .configure_from_args();

    let mut g = c.benchmark_group("spring_1901");
    g.bench_function("napjudge", |b| {
        b.iter(|| {
            movement::adjudicate(
                black_box(&spring.variant),
                black_box(&spring.position),
                black_box(&spring.orders),
            )
        })
    });
    g.bench_function("diplomacy", |b| {
        b.iter(|| black_box(&spring_sub).adjudicate(&rules))
    });
    g.finish();

    let mut g = c.benchmark_group("napoleonic_season");
    g.bench_function(format!("napjudge_{units}_units"), |b| {
        b.iter(|| black_box(&season).play())
    });
    g.bench_function(format!("adjudication_only_{units}_units"), |b| {
        b.iter(|| black_box(&season).adjudicate())
    });
    g.finish();

    let mut g = c.benchmark_group("datc");
    g.bench_function(format!("napjudge_all_{}", all.len()), |b| {
        b.iter(|| nap_datc(&datc.variant, black_box(&all)))
    });
    g.bench_function(format!("napjudge_subset_{}", subset.len()), |b| {
        b.iter(|| nap_datc(&datc.variant, black_box(&subset)))
    });
    g.bench_function(format!("diplomacy_subset_{}", subs.len()), |b| {
        b.iter(|| dip_datc(black_box(&subs), &rules))
    });
    g.finish();
    c.final_summary();

    // Plain timing for the ratios (short in `--test` mode, none under `--profile-time`, so that a
    // profiler sees only the benchmark it filters for).
    if std::env::args().any(|a| a == "--profile-time") {
        return;
    }
    let quick = std::env::args().any(|a| a == "--test");
    // The best of five rounds, the engines compared taking turns round by round: on this
    // virtual machine a loop's time drifts with what the host does (a first loop after an idle
    // minute ran 60% slow), and the fastest round of each is the figure least disturbed.
    const ROUNDS: u32 = 5;
    let round = |iters: u32, f: &mut dyn FnMut()| -> f64 {
        let t = Instant::now();
        for _ in 0..iters {
            f();
        }
        t.elapsed().as_secs_f64() * 1e6 / f64::from(iters)
    };
    let best_of = |iters: u32, fs: &mut [&mut dyn FnMut()]| -> Vec<f64> {
        let per_round = iters.div_ceil(ROUNDS);
        for f in fs.iter_mut() {
            round(per_round.div_ceil(10), *f);
        }
        let mut best = vec![f64::INFINITY; fs.len()];
        for _ in 0..ROUNDS {
            for (b, f) in best.iter_mut().zip(fs.iter_mut()) {
                *b = b.min(round(per_round, *f));
            }
        }
        best
    };
    let (n_spring, n_datc) = if quick { (10, 2) } else { (100_000, 1_000) };
    let spring_times = best_of(
        n_spring,
        &mut [
            &mut || {
                black_box(movement::adjudicate(
                    &spring.variant,
                    &spring.position,
                    black_box(&spring.orders),
                ));
            },
            &mut || {
                black_box(black_box(&spring_sub).adjudicate(&rules));
            },
        ],
    );
    let (nap, dip) = (spring_times[0], spring_times[1]);
    println!();
    println!(
        "spring_1901: napjudge {nap:.2} us, diplomacy {dip:.2} us, ratio {:.1}",
        dip / nap
    );
    let nap_season = best_of(
        n_spring / 10,
        &mut [&mut || {
            black_box(black_box(&season).play());
        }],
    )[0];
    println!("napoleonic_season ({units} units, both phases): napjudge {nap_season:.2} us");
    let datc_times = best_of(
        n_datc,
        &mut [
            &mut || nap_datc(&datc.variant, black_box(&all)),
            &mut || nap_datc(&datc.variant, black_box(&subset)),
            &mut || dip_datc(black_box(&subs), &rules),
        ],
    );
    let (nap_all, nap_sub, dip_sub) = (datc_times[0], datc_times[1], datc_times[2]);
    println!(
        "datc ({} cases, napjudge only): napjudge {nap_all:.1} us",
        all.len()
    );
    println!(
        "datc ({} cases): napjudge {nap_sub:.1} us, diplomacy {dip_sub:.1} us, ratio {:.1}",
        subset.len(),
        dip_sub / nap_sub
    );
    println!(
        "datc: the crate expresses {} of {} movement phases; on {agree} of them both engines \
         agree on every order's success; they differ on: {}",
        subset.len(),
        all.len(),
        if disagree.is_empty() {
            "none".to_string()
        } else {
            disagree.join(" ")
        }
    );
}
