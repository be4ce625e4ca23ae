//! RULINGS §0's two properties, checked on generated Napoleonic phases and on every fixture case:
//! the outcome does not depend on the order of writing nor on the notation (chain or `2:` order,
//! one-line merge or one line per participant, parenthesised or judge notation), nor on the sheet a
//! controlled minor's orders are on (R1.4), nor on an embark move given twice (R3.2); and no unit
//! is lost or created except where a ruling says so. `docs/rules.md` ("Properties") says how to run
//! a longer search (`PROPTEST_CASES=100000`).

use napjudge_cases::{self as case, file, run};
use napjudge_engine::outcome::{Event, Outcome, Reason};
use napjudge_engine::position::Position;
use napjudge_engine::turn::{self, Sheets};
use napjudge_engine::variant::{PhaseKind, PowerId, ProvinceId, SpaceKind, Variant};
use proptest::prelude::*;
use proptest::test_runner::Config;
use std::path::PathBuf;

use crate::generated;
use generated::*;

// ---------------------------------------------------------------------------------------------
// Playing a phase: the one place that calls the case runner.

/// One ORDERS block played, with the retreats it leads to left unordered (civil disorder), so
/// that the fleets' second phase is always played too.
struct Played {
    /// The position before the phase.
    before: Position,
    /// Each order line's power and outcome (or why the check refused it), in the order written.
    orders: Vec<(PowerId, Result<Outcome, String>)>,
    /// Each order line's text as the case runner reads it back (canonical when it parsed).
    texts: Vec<String>,
    /// The second-phase orders as reported (`2:` canonical text), with their outcomes.
    second: Vec<(PowerId, String, Outcome)>,
    /// The events the phase reported (starvation among them), the retreat phase's included.
    events: Vec<Event>,
    /// The position after everything the block led to.
    after: Position,
}

/// Plays every ORDERS block of a case. With `unordered_retreats`, a retreat phase the last block
/// leads to is played with no orders (everything dislodged disbands), and so the fleets' second
/// phase too. The only place that calls the engine: re-point it here at a one-call-per-phase API.
fn play_case(
    variant: &Variant,
    case: &file::Case,
    unordered_retreats: bool,
) -> Result<Vec<Played>, String> {
    let steps = run::play(case, variant)?;
    let mut out = Vec::new();
    for step in steps {
        out.push(Played {
            orders: step
                .orders
                .iter()
                .map(|o| (o.power, o.result.clone().map_err(|e| e.to_string())))
                .collect(),
            texts: step.orders.iter().map(|o| o.text.clone()).collect(),
            second: step
                .second
                .into_iter()
                .map(|o| (o.power, o.text, o.result.unwrap_or(Outcome::SecondPhase)))
                .collect(),
            before: step.before,
            events: step.report.events,
            after: step.report.next,
        });
    }
    if let Some(last) = out.last_mut().filter(|_| unordered_retreats) {
        if last.after.phase.kind == PhaseKind::Retreat {
            let r =
                turn::play(variant, &last.after, &Sheets::default()).map_err(|e| e.to_string())?;
            last.second.extend(
                r.second
                    .iter()
                    .map(|o| (o.power, o.canonical.clone(), o.outcome.clone())),
            );
            last.events.extend(r.events);
            last.after = r.next;
        }
    }
    Ok(out)
}

/// A generated phase (one ORDERS block), with its retreats unordered.
fn play_phase(variant: &Variant, text: &str) -> Result<Played, String> {
    let cases = file::parse("generated", text).map_err(|e| e.to_string())?;
    let case = cases.first().ok_or("no case")?;
    play_case(variant, case, true)?
        .pop()
        .ok_or_else(|| "no phase played".to_string())
}

/// RULINGS §0 and R1.1/R1.2: conservation of units and what a position may hold.
fn check_invariants(variant: &Variant, played: &Played) -> Result<(), String> {
    let before = units(variant, &played.before);
    let after = units(variant, &played.after);
    let allowed = reported_losses(variant, &played.events);
    for p in variant.power_ids() {
        let (b, a, l) = (before[p.index()], after[p.index()], allowed[p.index()]);
        let name = &variant.power(p).name;
        if a.0 > b.0 || a.1 > b.1 {
            return Err(format!("{name} has units it did not have: {b:?} -> {a:?}"));
        }
        if b.0 - a.0 > l.0 || b.1 - a.1 > l.1 {
            return Err(format!(
                "{name} lost units no ruling takes: (armies, fleets) {b:?} -> {a:?}, allowed losses {l:?}"
            ));
        }
    }
    let dislodged = played.after.dislodged.iter().map(|d| (d.province, d.force));
    for (p, f) in played.after.forces().map(|(p, f)| (p, *f)).chain(dislodged) {
        let prov = variant.province(p);
        let name = f.name(variant, p);
        if f.components() == 0 {
            return Err(format!("a force of no units in {}", prov.code));
        }
        if prov.kind == SpaceKind::Sea && f.armies > f.fleets {
            return Err(format!("{name}: more armies than fleets at sea (R1.2)"));
        }
        if prov.kind == SpaceKind::Land && f.fleets > 0 {
            return Err(format!("{name}: a fleet inland (R1.2)"));
        }
    }
    Ok(())
}

/// An outcome as compared between writings: bounce lists do not depend on the order of writing.
fn outcome_key(o: &Outcome) -> String {
    match o {
        Outcome::Fails(Reason::Bounced(with)) => {
            let mut with = with.clone();
            with.sort();
            format!("{:?}", Outcome::Fails(Reason::Bounced(with)))
        }
        o => format!("{o:?}"),
    }
}

/// [`outcome_key`] of an order's result, or the check's message when it was refused, with the
/// numbers of the other lines it names left out (they move with the order of writing).
fn result_key(r: &Result<Outcome, String>) -> String {
    match r {
        Ok(o) => outcome_key(o),
        Err(why) => {
            let mut key = String::from("refused: ");
            let mut after_ref = false;
            for word in why.split(' ') {
                let number = word.trim_end_matches([',', ')', ':', ';']);
                if after_ref && number.chars().all(|c| c.is_ascii_digit()) {
                    key.push_str("N ");
                } else {
                    key.push_str(word);
                    key.push(' ');
                }
                after_ref = matches!(word.trim_start_matches('('), "line" | "order" | "lines");
            }
            key
        }
    }
}

/// Everything of a position the orders may change.
fn position_key(variant: &Variant, p: &Position) -> String {
    let forces: Vec<(ProvinceId, napjudge_engine::position::Force)> =
        p.forces().map(|(p, f)| (p, *f)).collect();
    let mut dislodged: Vec<String> = p
        .dislodged
        .iter()
        .map(|d| {
            format!(
                "{} from {:?}",
                d.force.name(variant, d.province),
                d.attacker_from
            )
        })
        .collect();
    dislodged.sort();
    let mut blockades: Vec<String> = p.blockades.iter().map(|b| format!("{b:?}")).collect();
    blockades.sort();
    let standoffs: Vec<&str> = p
        .standoffs
        .iter()
        .map(|s| variant.province(s).code.as_str())
        .collect();
    let owners: Vec<String> = variant
        .province_ids()
        .filter_map(|c| {
            let o = p.owners[c.index()]?;
            Some(format!(
                "{}:{}",
                variant.province(c).code,
                variant.power(o).name
            ))
        })
        .collect();
    let sea_time: Vec<(usize, napjudge_engine::position::SeaTime)> = p
        .sea_time
        .iter()
        .copied()
        .enumerate()
        .filter(|s| s.1 != napjudge_engine::position::SeaTime::default())
        .collect();
    format!(
        "{}\n  dislodged {dislodged:?}\n  standoffs {standoffs:?} blockades {blockades:?}\n  phase {:?} sea time {sea_time:?} blockaded {:?}\n  owners {}",
        run::forces_text(variant, &forces),
        p.phase,
        p.blockaded.iter().collect::<Vec<_>>(),
        owners.join(" ")
    )
}

fn second_key(variant: &Variant, played: &Played) -> Vec<String> {
    let mut s: Vec<String> = played
        .second
        .iter()
        .map(|(p, t, o)| format!("{}: {t} => {}", variant.power(*p).name, outcome_key(o)))
        .collect();
    s.sort();
    s
}

/// Compares two plays of one phase. `lines_a[i]` and `lines_b[j]` name the written order each
/// outcome belongs to (`None`: a line rewritten into another notation, not compared by itself).
fn compare(
    variant: &Variant,
    a: &Played,
    lines_a: &[Option<usize>],
    b: &Played,
    lines_b: &[Option<usize>],
    second: bool,
) -> Result<(), String> {
    let (pa, pb) = (
        position_key(variant, &a.after),
        position_key(variant, &b.after),
    );
    if pa != pb {
        return Err(format!("positions differ:\n  {pa}\nagainst\n  {pb}"));
    }
    for (i, key) in lines_a.iter().enumerate() {
        let Some(key) = key else { continue };
        // Lines written alike (one power, one text) differ in nothing but the order of writing
        // (R3.3: two landings sharing their carriers), so their outcomes are compared together,
        // in any order; every other line by itself.
        let alike = |k: usize| {
            lines_a[k].is_some() && a.orders[k].0 == a.orders[i].0 && a.texts[k] == a.texts[i]
        };
        if (0..i).any(alike) {
            continue;
        }
        let (mut oa, mut ob) = (Vec::new(), Vec::new());
        for k in (i..lines_a.len()).filter(|&k| alike(k)) {
            let Some(j) = lines_b.iter().position(|l| *l == lines_a[k]) else {
                continue;
            };
            oa.push(result_key(&a.orders[k].1));
            ob.push(result_key(&b.orders[j].1));
        }
        oa.sort();
        ob.sort();
        if oa != ob {
            return Err(format!(
                "order {key}: {} against {}",
                oa.join(" | "),
                ob.join(" | ")
            ));
        }
    }
    // The phase report's events (passages denied, blockades, starvation, the Winter's) are the
    // same in any order of writing and either notation (section 0), listed in any order.
    let (ea, eb) = (event_keys(&a.events), event_keys(&b.events));
    if ea != eb {
        return Err(format!("events differ: {ea:?} against {eb:?}"));
    }
    // A rewritten chain or merge reports its second phase in its own words; the positions
    // compared above say whether it did the same.
    let (sa, sb) = (second_key(variant, a), second_key(variant, b));
    if second && sa != sb {
        return Err(format!("second phase: {sa:?} against {sb:?}"));
    }
    Ok(())
}

/// A phase's events as compared between writings: in any order.
fn event_keys(events: &[Event]) -> Vec<String> {
    let mut keys: Vec<String> = events.iter().map(|e| format!("{e:?}")).collect();
    keys.sort();
    keys
}

/// Every permutation of `0..n`, the identity first.
fn all_orders(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for rest in all_orders(n - 1) {
        for at in (0..n).rev() {
            let mut p = rest.clone();
            p.insert(at, n - 1);
            out.push(p);
        }
    }
    out
}

/// Plays a generated phase written several ways and checks both properties.
fn check_phase(phase: &Phase, seed: u64) -> Result<(), String> {
    let v = napoleonic();
    let plain = Style {
        judge: false,
        split: false,
    };
    let (text, keys) = phase.text(v, plain, &[]);
    let base = play_phase(v, &text).map_err(|e| format!("{e}\n{text}"))?;
    check_invariants(v, &base).map_err(|e| format!("{e}\n{text}"))?;
    arrivals(v, phase, &base).map_err(|e| format!("{e}\n{text}"))?;
    let n = keys.len();
    // Every order of writing when there are few orders, else the reverse and a shuffle.
    let orders_of_writing = if n <= 4 {
        all_orders(n)
    } else {
        vec![(0..n).rev().collect(), shuffled(n, seed)]
    };
    let mut writings: Vec<(Style, Vec<usize>)> = orders_of_writing
        .into_iter()
        .skip(usize::from(n <= 4)) // the first of all is the plain order, already played
        .map(|p| (plain, p))
        .collect();
    let judge = Style {
        judge: true,
        split: false,
    };
    writings.push((judge, shuffled(n, seed ^ 1)));
    let split = Style {
        judge: false,
        split: true,
    };
    let n_split = phase.text(v, split, &[]).1.len();
    writings.push((split, (0..n_split).collect()));
    writings.push((split, shuffled(n_split, seed ^ 2)));
    for (style, perm) in writings {
        let (t2, k2) = phase.text(v, style, &perm);
        let other = play_phase(v, &t2).map_err(|e| format!("{e}\n{t2}"))?;
        check_invariants(v, &other).map_err(|e| format!("{e}\n{t2}"))?;
        compare(v, &base, &keys, &other, &k2, !style.split)
            .map_err(|e| format!("{e}\nwritten\n{text}\nand\n{t2}"))?;
    }
    // Rewritings that change the orders' reasons, not what happens: the positions and the events
    // are compared.
    for (what, p2) in same_phase_written_otherwise(phase, &base) {
        let (t2, k2) = p2.text(v, plain, &[]);
        let other = play_phase(v, &t2).map_err(|e| format!("{e}\n{t2}"))?;
        check_invariants(v, &other).map_err(|e| format!("{e}\n{t2}"))?;
        let (none_a, none_b) = (vec![None; keys.len()], vec![None; k2.len()]);
        compare(v, &base, &none_a, &other, &none_b, false)
            .map_err(|e| format!("{what}: {e}\nwritten\n{text}\nand\n{t2}"))?;
    }
    Ok(())
}

/// The phase written in ways that must change nothing on the board:
/// - a controlled minor's orders on its controller's sheet instead of its own: a unit ordered on
///   two sheets is over-named as on one (R1.4);
/// - the same embark move or chain given once instead of twice (in the embarkation and in the
///   fleets' own order, both accepted): given twice it is one move (R3.2).
fn same_phase_written_otherwise(phase: &Phase, base: &Played) -> Vec<(&'static str, Phase)> {
    let mut out = Vec::new();
    if let Some(&(minor, major)) = phase.controls.first() {
        if phase.orders.iter().any(|(p, _)| *p == minor) {
            let mut p = phase.clone();
            for o in &mut p.orders {
                if o.0 == minor {
                    o.0 = major;
                }
            }
            out.push(("the minor's orders on its controller's sheet (R1.4)", p));
        }
    }
    let accepted =
        |i: usize| matches!(base.orders.get(i), Some((_, Ok(o))) if !matches!(o, Outcome::Void(_)));
    for (i, (power, g)) in phase.orders.iter().enumerate() {
        let G::EmbarkFleet(_, fleet, to, then) = g else {
            continue;
        };
        let twice = phase.orders.iter().enumerate().position(|(j, (q, h))| {
            let same = match h {
                G::Move(u, a) => then.is_none() && a == to && u.1 == fleet.1,
                G::Chain(u, a, b) => Some(*b) == *then && a == to && u.1 == fleet.1,
                _ => false,
            };
            j != i && q == power && same
        });
        if let Some(j) = twice.filter(|&j| accepted(i) && accepted(j)) {
            let mut p = phase.clone();
            p.orders.remove(j);
            out.push(("the embark move given once (R3.2)", p));
        }
    }
    out
}

/// What kind of failure a message reports (its first words), to shrink toward the same one.
fn failure_kind(e: &str) -> &str {
    let line = e.lines().next().unwrap_or("");
    line.split([':', '(']).next().unwrap_or(line)
}

/// A smaller phase that fails the same way: drops orders, then forces, while it still does.
fn shrink(mut phase: Phase, seed: u64, error: &str) -> Phase {
    let kind = failure_kind(error).to_string();
    let still = |p: &Phase| check_phase(p, seed).is_err_and(|e| failure_kind(&e) == kind);
    loop {
        let mut smaller = false;
        for i in (0..phase.orders.len()).rev() {
            let mut p = phase.clone();
            p.orders.remove(i);
            if still(&p) {
                phase = p;
                smaller = true;
            }
        }
        for i in (0..phase.forces.len()).rev() {
            let mut p = phase.clone();
            // Orders for the force go with it: an order naming no unit is another order.
            let gone = p.forces.remove(i).2;
            p.orders.retain(|(_, g)| g.unit().1 != gone);
            if still(&p) {
                phase = p;
                smaller = true;
            }
        }
        if !smaller {
            return phase;
        }
    }
}

/// Not a test of its own: with `PROPTEST_CASES=N`, plays N generated phases without stopping at
/// the first failure and prints one shrunk example of each kind of failure (for finding bugs).
#[test]
#[ignore]
fn survey_generated_failures() {
    let v = napoleonic();
    let mut seen: Vec<(String, u32)> = Vec::new();
    let mut failed = 0;
    let mut tally = [0; 3];
    let first_seed: u64 = std::env::var("PROPS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let n = cases(2000);
    for k in 0..n {
        let seed = u64::from(k) + first_seed;
        let xs: Vec<u16> = shuffled(120, seed)
            .iter()
            .zip(shuffled(120, seed ^ 0xabcdef))
            .map(|(a, b)| (a * 541 + b * 7919) as u16)
            .collect();
        let phase = generate(v, &xs);
        let (text, _) = phase.text(
            v,
            Style {
                judge: false,
                split: false,
            },
            &[],
        );
        if let Ok(p) = play_phase(v, &text) {
            for (_, o) in &p.orders {
                let k = match o {
                    Ok(Outcome::Void(why)) => {
                        if std::env::var("SHOW_VOID").is_ok() {
                            println!("void: {why:?}");
                        }
                        0
                    }
                    Err(why) => {
                        if std::env::var("SHOW_VOID").is_ok() {
                            println!("refused: {why}");
                        }
                        0
                    }
                    Ok(Outcome::Succeeds) => 1,
                    _ => 2,
                };
                tally[k] += 1;
            }
        }
        if let Err(e) = check_phase(&phase, seed) {
            failed += 1;
            let small = shrink(phase, seed, &e);
            let e = check_phase(&small, seed).err().unwrap_or(e);
            let sig = failure_kind(&e).to_string();
            match seen.iter_mut().find(|(k, _)| *k == sig) {
                Some((_, count)) => *count += 1,
                None => {
                    println!("=== {sig}\n{e}\n");
                    seen.push((sig, 1));
                }
            }
        }
    }
    println!(
        "{failed} of {n} generated phases failed; {} kinds",
        seen.len()
    );
    for (kind, count) in &seen {
        println!("  {count} {kind}");
    }
    println!(
        "orders: {} void, {} succeeded, {} failed",
        tally[0], tally[1], tally[2]
    );
}

/// A move reported as succeeded ends at its target: armies always (nothing moves them in the
/// second phase), fleets when no second-phase order was given at all. `played` is the phase
/// written plainly, one line per order.
fn arrivals(v: &Variant, phase: &Phase, played: &Played) -> Result<(), String> {
    let quiet = !phase.orders.iter().any(|(_, g)| {
        matches!(
            g,
            G::Chain(..) | G::SecondMove(..) | G::SecondSupport(..) | G::Merge(_, _, true)
        )
    });
    for ((power, g), (_, outcome)) in phase.orders.iter().zip(&played.orders) {
        let (need, to) = match g {
            G::Move(u, to) => (u.0, *to),
            G::Merge(us, to, false) => (
                us.iter()
                    .fold(Spec(0, 0), |s, u| Spec(s.0 + u.0 .0, s.1 + u.0 .1)),
                *to,
            ),
            _ => continue,
        };
        if *outcome != Ok(Outcome::Succeeds) || (need.1 > 0 && !quiet) {
            continue;
        }
        // Armies carried into a sea may land from it at once (R3.3).
        let landed: u8 = phase
            .orders
            .iter()
            .zip(&played.orders)
            .filter_map(|((p, g), (_, o))| match g {
                G::Disembark(u, _)
                    if p == power && u.1.province == to.province && *o == Ok(Outcome::Succeeds) =>
                {
                    Some(u.0 .0)
                }
                _ => None,
            })
            .sum();
        let need = Spec(need.0.saturating_sub(landed), need.1);
        // A name several spaces answer to (`BAL`: the Baltic Sea or the Balkans) is settled by the
        // order's geometry (issue 13, bug 9): the move may end in any of them.
        let written = &v.province(to.province).code;
        let candidates = v
            .find(written)
            .map_or_else(|| vec![to.province], |ps| ps.to_vec());
        let there = candidates
            .iter()
            .filter_map(|&p| played.after.force(p))
            .find(|f| played.before.commands(*power, f.power));
        // A merge succeeds when some participants arrive: one whose path fails drops out (R2.4).
        let merge = matches!(g, G::Merge(..));
        let ok = there.is_some_and(|f| merge || (f.armies >= need.0 && f.fleets >= need.1));
        if !ok {
            let w = Writer {
                v,
                style: Style {
                    judge: false,
                    split: false,
                },
            };
            return Err(format!(
                "{} succeeded but {} is not in {}",
                w.lines(g).join(" "),
                spec_text(need),
                v.region_name(to)
            ));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(Config { cases: cases(2000), max_shrink_iters: 4000, ..Config::default() })]

    /// RULINGS §0: on generated Napoleonic phases, the outcome is the same however the orders
    /// are ordered and written, and units are conserved except for the losses rulings allow.
    #[test]
    fn generated_phases_keep_rulings_section_0(
        xs in prop::collection::vec(any::<u16>(), 0..120),
        seed in any::<u64>(),
    ) {
        let phase = generate(napoleonic(), &xs);
        if let Err(e) = check_phase(&phase, seed) {
            let small = shrink(phase, seed, &e);
            let e = check_phase(&small, seed).err().unwrap_or(e);
            prop_assert!(false, "{}", e);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Every fixture case, its orders reordered and rewritten.

/// Whether a line is a GM command (kept first, in its place among the GM lines: the GM acts
/// before the phase's orders are read).
fn is_gm(l: &file::Line) -> bool {
    l.text
        .split_once(':')
        .is_some_and(|(w, _)| w.trim().eq_ignore_ascii_case("gm"))
}

fn power_of(l: &file::Line) -> &str {
    l.text.split_once(':').map_or("", |(w, _)| w.trim())
}

/// The case with each ORDERS block's lines in a new order: GM lines first; in a movement or retreat phase
/// any order; in a Winter (R7.6: bids are taken in the order written) each power's lines keep
/// their own order and only the powers are interleaved differently. Returns the case and, per
/// block, the original index of each line.
fn permuted(case: &file::Case, winter: &[bool], seed: u64) -> (file::Case, Vec<Vec<usize>>) {
    let mut c = case.clone();
    let mut maps = Vec::new();
    for (k, step) in c.steps.iter_mut().enumerate() {
        let n = step.orders.len();
        let (gm, rest): (Vec<usize>, Vec<usize>) = (0..n).partition(|&i| is_gm(&step.orders[i]));
        let shuffle = shuffled(rest.len(), seed.wrapping_add(k as u64));
        let mut drawn: Vec<usize> = shuffle.iter().map(|&s| rest[s]).collect();
        if winter.get(k).copied().unwrap_or(false) {
            // Each power's lines back into their own order, at the places its lines were drawn.
            let mut by_power: Vec<(String, Vec<usize>)> = Vec::new();
            for &i in &rest {
                let p = power_of(&step.orders[i]).to_string();
                match by_power.iter_mut().find(|(q, _)| *q == p) {
                    Some((_, v)) => v.push(i),
                    None => by_power.push((p, vec![i])),
                }
            }
            for slot in drawn.iter_mut() {
                let p = power_of(&step.orders[*slot]).to_string();
                if let Some((_, v)) = by_power.iter_mut().find(|(q, _)| *q == p) {
                    *slot = v.remove(0);
                }
            }
        }
        let map: Vec<usize> = gm.into_iter().chain(drawn).collect();
        step.orders = map.iter().map(|&i| step.orders[i].clone()).collect();
        written_in_order(&mut step.orders);
        maps.push(map);
    }
    (c, maps)
}

/// A unit written `SPEC(PLACE)` at the start of `s`: (spec, place, rest).
fn split_unit(s: &str) -> Option<(&str, &str, &str)> {
    let open = s.find('(')?;
    let spec = &s[..open];
    if spec.is_empty()
        || !spec
            .chars()
            .all(|c| c.is_ascii_digit() || "AF/".contains(c))
    {
        return None;
    }
    let close = open + s[open..].find(')')?;
    // A coast in parentheses inside the place (`F(Spa(sc))`): not handled, left as it is.
    if s[open + 1..close].contains('(') {
        return None;
    }
    Some((spec, &s[open + 1..close], &s[close + 1..]))
}

/// One order line in the other notations RULINGS §0 names: `judge` writes `A Par - Bur` for
/// `A(Par)-Bur`; otherwise a chain becomes its first move and a `2:` order, and a one-line merge
/// one `MERGE` line per participant. `None` when the line has nothing to rewrite.
fn rewrite(text: &str, judge: bool) -> Option<Vec<String>> {
    let (power, order) = text.split_once(':')?;
    let (pre, order) = match order.trim().strip_prefix("2:") {
        Some(o) => ("2: ", o.trim()),
        None => ("", order.trim()),
    };
    if judge {
        let mut out = String::new();
        let mut rest = order;
        let mut changed = false;
        while let Some(open) = rest.find('(') {
            let start = rest[..open].rfind([' ', '&']).map_or(0, |i| i + 1);
            let word = &rest[start..open];
            let close = open + rest[open..].find(')')?;
            let unit = !word.is_empty()
                && word
                    .chars()
                    .all(|c| c.is_ascii_digit() || "AF/".contains(c));
            if (unit || word == "MERGE") && !rest[open + 1..close].contains('(') {
                out.push_str(&rest[..open]);
                out.push(' ');
                out.push_str(&rest[open + 1..close]);
                changed = true;
            } else {
                out.push_str(&rest[..=close]);
            }
            rest = &rest[close + 1..];
        }
        out.push_str(rest);
        if !changed || out.contains("->") {
            return None;
        }
        let out = out.replace('-', " - ");
        return Some(vec![format!("{power}: {pre}{out}")]);
    }
    if let Some((parts, target)) = order.split_once(" MERGE ") {
        if !parts.contains(" & ") {
            return None;
        }
        let (_, place, _) = split_unit(target.trim())?;
        return Some(
            parts
                .split(" & ")
                .map(|p| format!("{power}: {pre}{} MERGE {place}", p.trim()))
                .collect(),
        );
    }
    let (spec, place, rest) = split_unit(order)?;
    let legs: Vec<&str> = rest.split('-').collect();
    if pre.is_empty()
        && legs.len() == 3
        && legs[0].is_empty()
        && legs.iter().all(|l| !l.contains(' '))
    {
        return Some(vec![
            format!("{power}: {spec}({place})-{}", legs[1]),
            format!("{power}: 2: {spec}({})-{}", legs[1], legs[2]),
        ]);
    }
    None
}

/// The case with its order lines rewritten; per block, each line's original index when it is
/// that line unchanged in meaning one for one (`judge`), `None` for parts of a split line.
fn rewritten(case: &file::Case, judge: bool) -> Option<(file::Case, Vec<Vec<Option<usize>>>)> {
    let mut c = case.clone();
    let mut maps = Vec::new();
    let mut any = false;
    for step in c.steps.iter_mut() {
        let mut lines = Vec::new();
        let mut map = Vec::new();
        for (i, l) in step.orders.iter().enumerate() {
            match rewrite(&l.text, judge).filter(|_| !is_gm(l)) {
                Some(new) => {
                    any = true;
                    let whole = new.len() == 1;
                    for t in new {
                        lines.push(file::Line {
                            file: l.file.clone(),
                            number: l.number,
                            text: t,
                        });
                        map.push(whole.then_some(i));
                    }
                }
                None => {
                    lines.push(l.clone());
                    map.push(Some(i));
                }
            }
        }
        step.orders = lines;
        written_in_order(&mut step.orders);
        maps.push(map);
    }
    any.then_some((c, maps))
}

/// Numbers a block's lines in the order they now stand: the case runner reports a block's orders
/// in the order of their line numbers, as a file would have them.
fn written_in_order(lines: &mut [file::Line]) {
    let first = lines.iter().map(|l| l.number).min().unwrap_or(1);
    for (k, l) in lines.iter_mut().enumerate() {
        l.number = first + k;
    }
}

/// The outcomes' keys of a rewritten block: GM lines give no outcome, so line indices become
/// indices among the original block's orders.
fn order_keys(
    original: &file::Step,
    other: &file::Step,
    map: &[Option<usize>],
) -> Vec<Option<usize>> {
    let mut rank = Vec::new();
    let mut n = 0;
    for l in &original.orders {
        rank.push((!is_gm(l)).then_some(n));
        n += usize::from(!is_gm(l));
    }
    other
        .orders
        .iter()
        .zip(map)
        .filter(|(l, _)| !is_gm(l))
        .map(|(_, m)| m.and_then(|i| rank[i]))
        .collect()
}

/// A fixture case written another way.
struct Rewriting {
    /// How, for the failure message.
    what: String,
    /// The case written so.
    case: file::Case,
    /// Per block, each line's original line index (`None` for part of a split line).
    keys: Vec<Vec<Option<usize>>>,
    /// Whether chains and merges were split (their second-phase reports then differ in words).
    split: bool,
}

/// Orders of writing tried per fixture case: `PROPS_PERMUTATIONS` when set, else 3.
fn permutations() -> u64 {
    std::env::var("PROPS_PERMUTATIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3)
}

/// RULINGS §0 on every case in `fixtures/`: each case's orders in three other orders of writing (`PROPS_PERMUTATIONS`),
/// and rewritten into the other notations, give the same outcomes and positions, block by block.
#[test]
fn fixture_cases_keep_rulings_section_0() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let (files, unreadable) = case::case_files(&[root]);
    assert!(unreadable.is_empty(), "unreadable fixtures: {unreadable:?}");
    let mut variants = run::Variants::default();
    let mut failures = Vec::new();
    let mut checked = 0;
    for f in files {
        let cases = file::read_file(&f).expect("fixture files parse");
        for c in &cases {
            let Ok(loaded) = variants.get(&c.variant) else {
                continue;
            };
            let Ok(v) = loaded.with_options(&c.options) else {
                continue;
            };
            let Ok(base) = play_case(&v, c, false) else {
                continue;
            };
            checked += 1;
            let winter: Vec<bool> = base
                .iter()
                .map(|s| matches!(s.before.phase.kind, PhaseKind::Adjustment | PhaseKind::Bids))
                .collect();
            let identity: Vec<Vec<Option<usize>>> = base
                .iter()
                .map(|s| (0..s.orders.len()).map(Some).collect())
                .collect();
            let mut others: Vec<Rewriting> = Vec::new();
            for seed in 1..=permutations() {
                let (pc, maps) = permuted(c, &winter, seed);
                let maps = maps
                    .into_iter()
                    .map(|m| m.into_iter().map(Some).collect())
                    .collect();
                others.push(Rewriting {
                    what: format!("orders reordered ({seed})"),
                    case: pc,
                    keys: maps,
                    split: false,
                });
            }
            for judge in [true, false] {
                if let Some((rc, maps)) = rewritten(c, judge) {
                    let what = if judge {
                        "judge notation"
                    } else {
                        "chains and merges split"
                    };
                    others.push(Rewriting {
                        what: what.to_string(),
                        case: rc,
                        keys: maps,
                        split: !judge,
                    });
                }
            }
            for Rewriting {
                what,
                case: oc,
                keys: maps,
                split,
            } in others
            {
                let result = play_case(&v, &oc, false).and_then(|steps| {
                    for (k, (a, b)) in base.iter().zip(&steps).enumerate() {
                        let keys = order_keys(&c.steps[k], &oc.steps[k], &maps[k]);
                        compare(&v, a, &identity[k], b, &keys, !split)
                            .map_err(|e| format!("block {}: {e}", k + 1))?;
                    }
                    Ok(())
                });
                if let Err(e) = result {
                    let lines: Vec<String> = oc
                        .steps
                        .iter()
                        .map(|s| {
                            s.orders
                                .iter()
                                .map(|l| l.text.as_str())
                                .collect::<Vec<_>>()
                                .join(" | ")
                        })
                        .collect();
                    failures.push(format!(
                        "{} ({}), {what}: {e}\n  orders: {lines:?}",
                        c.id, c.file
                    ));
                }
            }
        }
    }
    assert!(
        checked > 300,
        "only {checked} fixture cases could be played"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
