//! The acknowledgement's round trip (issue 18; docs/orders.md: "parsing the canonical form gives
//! the same order"): whatever the acknowledgement prints for an order parses, and checks against
//! the same position, back to the same order. Orders are generated for the positions of every
//! fixture case (both boards, every kind of phase), written in every notation of docs/orders.md
//! (parenthesised or judge notation, codes or full names, one-line merges or one line per
//! participant, chains or `2:` orders), several to a mail so that R1.4's counting across orders
//! plays its part.

use crate::generated::cases;
use napjudge_cases::{self as case, file, run};
use napjudge_engine::order::spec_text;
use napjudge_engine::position::Position;
use napjudge_engine::turn::{self, CheckedOrder, OrderError};
use napjudge_engine::variant::{
    PhaseKind, PowerId, ProvinceId, Region, SpaceKind, UnitType, Variant,
};
use proptest::prelude::*;
use std::path::PathBuf;
use std::sync::OnceLock;

/// A fixture case's position, on its board with its options.
struct Board {
    id: String,
    variant: Variant,
    position: Position,
}

/// Every fixture case's starting position (the cases that can't be set up are left out).
fn boards() -> &'static [Board] {
    static BOARDS: OnceLock<Vec<Board>> = OnceLock::new();
    BOARDS.get_or_init(|| {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let (files, _) = case::case_files(&[root]);
        let mut variants = run::Variants::default();
        let mut out = Vec::new();
        for f in files {
            let Ok(cases) = file::read_file(&f) else {
                continue;
            };
            for c in cases {
                let Ok(v) = variants.get(&c.variant) else {
                    continue;
                };
                let Ok(variant) = v.with_options(&c.options) else {
                    continue;
                };
                if let Ok(position) = run::initial_position(&c, &variant) {
                    out.push(Board {
                        id: c.id.clone(),
                        variant,
                        position,
                    });
                }
            }
        }
        out
    })
}

/// A stream of choices drawn from proptest's numbers.
struct Dice<'a> {
    xs: &'a [u32],
    i: usize,
}

impl Dice<'_> {
    fn below(&mut self, n: usize) -> usize {
        let x = self.xs.get(self.i).copied().unwrap_or(0) as usize;
        self.i += 1;
        if n == 0 {
            0
        } else {
            x % n
        }
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<T: Copy>(&mut self, xs: &[T]) -> Option<T> {
        (!xs.is_empty()).then(|| xs[self.below(xs.len())])
    }
}

/// How one order is written.
#[derive(Clone, Copy)]
struct Style {
    /// `A Par - Bur` rather than `A(Par)-Bur`.
    judge: bool,
    /// Full names rather than codes.
    names: bool,
}

struct Writer<'v> {
    v: &'v Variant,
    style: Style,
}

impl Writer<'_> {
    fn place(&self, r: Region) -> String {
        let p = self.v.province(r.province);
        let base = if self.style.names { &p.name } else { &p.code };
        match r.coast {
            Some(c) => format!("{base}/{}", c.code()),
            None => base.clone(),
        }
    }

    /// A unit as a player writes it: armies alone in the whole space, fleets on their coast.
    fn unit(&self, armies: u8, fleets: u8, at: Region) -> String {
        let spec = spec_text(armies, fleets);
        let at = Region {
            coast: at.coast.filter(|_| fleets > 0),
            ..at
        };
        if self.style.judge {
            format!("{spec} {}", self.place(at))
        } else {
            format!("{spec}({})", self.place(at))
        }
    }

    fn dash(&self) -> &'static str {
        if self.style.judge {
            " - "
        } else {
            "-"
        }
    }
}

/// A force that may be ordered: where it is, its region (with the fleets' coast) and counts.
#[derive(Clone, Copy)]
struct Unit {
    at: Region,
    armies: u8,
    fleets: u8,
}

/// Some of a force's components: a count of armies and of fleets, at least one unit (sometimes
/// more than it has, to reach R1.4's refusals).
fn part(d: &mut Dice, u: Unit) -> (u8, u8) {
    let extra = u8::from(d.chance(5));
    let a = if u.armies > 0 {
        d.below(usize::from(u.armies) + 1) as u8
    } else {
        0
    };
    let f = if u.fleets > 0 {
        d.below(usize::from(u.fleets) + 1) as u8
    } else {
        0
    };
    match (a + extra, f) {
        (0, 0) if u.fleets > 0 => (0, 1),
        (0, 0) => (1, 0),
        other => other,
    }
}

/// The regions next to `r`, by land or by sea, and sometimes any space on the board.
fn near(v: &Variant, d: &mut Dice, r: Region) -> Region {
    let p = r.province;
    let mut xs: Vec<Region> = v
        .province_ids()
        .filter(|&q| v.army_adjacent(p, q) || v.fleet_reach[p.index()].contains(q))
        .map(|q| {
            let coasts = &v.province(q).coasts;
            let coast = if coasts.is_empty() || d.chance(30) {
                None
            } else {
                d.pick(coasts)
            };
            Region { province: q, coast }
        })
        .collect();
    if xs.is_empty() || d.chance(5) {
        xs = v.province_ids().map(Region::of).collect();
    }
    d.pick(&xs).unwrap_or(r)
}

fn seas_near(v: &Variant, p: ProvinceId) -> Vec<ProvinceId> {
    v.fleet_reach[p.index()]
        .iter()
        .filter(|&q| v.province(q).kind == SpaceKind::Sea)
        .collect()
}

/// The board's position, on a board with Multiplicity sometimes with a unit more in some forces
/// (armies joining coastal fleets, fleets and armies aboard at sea: the mixed forces whose
/// coasts the acknowledgement must print right).
fn position(b: &Board, d: &mut Dice) -> Position {
    let (v, mut pos) = (&b.variant, b.position.clone());
    if !v.rules.multiplicity || d.chance(40) {
        return pos;
    }
    let forces: Vec<(ProvinceId, napjudge_engine::position::Force)> =
        pos.forces().map(|(p, f)| (p, *f)).collect();
    let coasted: Vec<(ProvinceId, napjudge_engine::position::Force)> = forces
        .iter()
        .copied()
        .filter(|(_, f)| f.coast.is_some())
        .collect();
    for _ in 0..3 {
        let among = if d.chance(50) { &coasted } else { &forces };
        let Some((p, f)) = d.pick(among) else {
            continue;
        };
        let here = pos.force(p).copied().unwrap_or(f);
        let region = Region {
            province: p,
            coast: here.coast,
        };
        let unit = match v.province(p).kind {
            SpaceKind::Land => UnitType::Army,
            SpaceKind::Sea if here.armies < here.fleets && d.chance(50) => UnitType::Army,
            SpaceKind::Sea => UnitType::Fleet,
            SpaceKind::Coast if here.fleets > 0 || d.chance(30) => UnitType::Army,
            SpaceKind::Coast => UnitType::Fleet,
        };
        // A fleet joins a coastal force on the coast its fleets are on, or on none.
        if unit == UnitType::Fleet && here.fleets == 0 && !v.province(p).coasts.is_empty() {
            continue;
        }
        pos.add_unit(here.power, unit, region);
    }
    pos
}

/// One power's mail for the phase `pos` is in: a few orders of every kind the phase takes, each
/// written in a style of its own.
fn mail(v: &Variant, pos: &Position, d: &mut Dice) -> Option<(PowerId, String)> {
    let retreat = matches!(
        pos.phase.kind,
        PhaseKind::Retreat | PhaseKind::SecondRetreat
    );
    let winter = matches!(pos.phase.kind, PhaseKind::Adjustment | PhaseKind::Bids);
    let units_of = |power: PowerId| -> Vec<Unit> {
        let unit = |p: ProvinceId, f: &napjudge_engine::position::Force| Unit {
            at: Region {
                province: p,
                coast: f.coast,
            },
            armies: f.armies,
            fleets: f.fleets,
        };
        let commands = |o: PowerId| o == power || pos.ledgers.controller(o) == Some(power);
        if retreat {
            pos.dislodged
                .iter()
                .filter(|x| commands(x.force.power))
                .map(|x| unit(x.province, &x.force))
                .collect()
        } else {
            pos.forces()
                .filter(|(_, f)| commands(f.power))
                .map(|(p, f)| unit(p, f))
                .collect()
        }
    };
    let powers: Vec<PowerId> = v
        .power_ids()
        .filter(|&p| winter || !units_of(p).is_empty())
        .collect();
    let power = d.pick(&powers)?;
    let mine = units_of(power);
    let d = &mut *d;
    let all: Vec<Unit> = pos
        .forces()
        .map(|(p, f)| Unit {
            at: Region {
                province: p,
                coast: f.coast,
            },
            armies: f.armies,
            fleets: f.fleets,
        })
        .collect();
    let n = 1 + d.below(6);
    let mut lines = Vec::new();
    let mut used: Vec<ProvinceId> = Vec::new();
    for _ in 0..n {
        let style = Style {
            judge: d.chance(40),
            names: d.chance(25),
        };
        let w = Writer { v, style };
        // Mostly a force no other order names yet (R1.4 refuses a force ordered twice).
        let free: Vec<Unit> = mine
            .iter()
            .copied()
            .filter(|u| d.chance(10) || !used.contains(&u.at.province))
            .collect();
        let line = if winter {
            winter_order(d, &w, power, &mine)
        } else if let Some(u) = d.pick(&free) {
            used.push(u.at.province);
            if retreat {
                retreat_order(d, &w, u)
            } else {
                movement_order(d, &w, u, &mine, &all)
            }
        } else {
            continue;
        };
        lines.extend(line);
    }
    Some((power, lines.join("\n")))
}

fn retreat_order(d: &mut Dice, w: &Writer, u: Unit) -> Vec<String> {
    let (a, f) = part(d, u);
    let unit = w.unit(a, f, u.at);
    if d.chance(20) {
        return vec![format!("{unit} DISBAND")];
    }
    let to = near(w.v, d, u.at);
    let verb = if w.style.judge { " RETREAT " } else { " R " };
    vec![format!("{unit}{verb}{}", w.place(to))]
}

fn winter_order(d: &mut Dice, w: &Writer, power: PowerId, mine: &[Unit]) -> Vec<String> {
    let v = w.v;
    let centres: Vec<ProvinceId> = v.province_ids().filter(|&p| v.province(p).centre).collect();
    let majors: Vec<PowerId> = v.power_ids().filter(|&p| p != power).collect();
    let name = |p: PowerId| v.power(p).name.clone();
    let line = match d.below(9) {
        0..=2 => {
            let p = d.pick(&centres).unwrap_or(ProvinceId(0));
            let coasts = &v.province(p).coasts;
            let coast = if coasts.is_empty() {
                None
            } else {
                d.pick(coasts)
            };
            let count = 1 + u8::from(v.rules.multiplicity && d.chance(25));
            let (a, f) = if d.chance(50) { (count, 0) } else { (0, count) };
            let at = Region { province: p, coast };
            if w.style.judge && d.chance(50) {
                format!("{} BUILD", w.unit(a, f, at))
            } else {
                format!("BUILD {}", w.unit(a, f, at))
            }
        }
        3 | 4 => match d.pick(mine) {
            Some(u) => {
                let (a, f) = part(d, u);
                format!("REMOVE {}", w.unit(a, f, u.at))
            }
            None => "WAIVE".to_string(),
        },
        5..=8 if !v.rules.supply_points => "WAIVE".to_string(),
        5 => format!("BANK {}", d.below(10)),
        6 => match d.pick(&majors) {
            Some(p) => format!("LOAN {} TO {}", d.below(10), name(p)),
            None => "WAIVE".to_string(),
        },
        7 => format!("CONVERT {}", d.below(6)),
        _ => match (d.pick(&majors), d.pick(&majors)) {
            (Some(minor), Some(other)) if d.chance(30) => {
                format!("BID {} {} FOR {}", d.below(8), name(minor), name(other))
            }
            (Some(minor), _) => format!("BID {} {}", d.below(8), name(minor)),
            _ => "WAIVE".to_string(),
        },
    };
    vec![line]
}

fn movement_order(d: &mut Dice, w: &Writer, u: Unit, mine: &[Unit], all: &[Unit]) -> Vec<String> {
    let v = w.v;
    let (a, f) = part(d, u);
    let unit = w.unit(a, f, u.at);
    let dash = w.dash();
    let other = d.pick(all).unwrap_or(u);
    let (oa, of) = part(d, other);
    let supported = w.unit(oa, of, other.at);
    let rules = &v.rules;
    let second = if rules.second_moves && d.chance(10) {
        "2: "
    } else {
        ""
    };
    // The kinds of order the board's rules have.
    let kinds: Vec<usize> = (0..14)
        .filter(|k| match k {
            5..=7 => rules.multiplicity,
            9..=11 => rules.abstraction,
            12 => rules.blockades,
            13 => rules.passages,
            _ => true,
        })
        .collect();
    let line = match d.pick(&kinds).unwrap_or(0) {
        0 => format!("{second}{unit} H"),
        1 | 2 => {
            let to = near(v, d, u.at);
            let mut s = format!("{second}{unit}{dash}{}", w.place(to));
            if d.chance(20) {
                let then = near(v, d, to);
                if second.is_empty() && d.chance(50) {
                    // A chain, or the same written as its first move and a `2:` order.
                    s.push_str(&format!("{dash}{}", w.place(then)));
                } else {
                    let moved = w.unit(0, f.max(1), to);
                    return vec![s, format!("2: {moved}{dash}{}", w.place(then))];
                }
            } else if d.chance(5) {
                s.push_str(" via convoy");
            }
            s
        }
        3 => format!("{second}{unit} S {supported}"),
        4 => {
            let to = near(v, d, other.at);
            format!("{second}{unit} S {supported}{dash}{}", w.place(to))
        }
        5 => {
            let to = near(v, d, u.at);
            let target = if w.style.judge {
                format!(" S MERGE {}", w.place(to))
            } else {
                format!(" S MERGE({})", w.place(to))
            };
            format!("{unit}{target}")
        }
        6 | 7 => {
            // A merge into a space next to this force, with more of the power's forces.
            let target = near(v, d, u.at);
            let mut parts = vec![(a, f, u.at)];
            for _ in 0..d.below(3) {
                if let Some(x) = d.pick(mine) {
                    let (xa, xf) = part(d, x);
                    parts.push((xa, xf, x.at));
                }
            }
            let (ta, tf) = parts.iter().fold((0u8, 0u8), |(s, t), p| {
                (s.saturating_add(p.0), t.saturating_add(p.1))
            });
            if d.chance(50) {
                let names: Vec<String> = parts.iter().map(|p| w.unit(p.0, p.1, p.2)).collect();
                let result = if d.chance(50) {
                    w.unit(ta, tf, Region::of(target.province))
                } else {
                    w.place(target)
                };
                return vec![format!("{second}{} MERGE {result}", names.join(" & "))];
            }
            return parts
                .iter()
                .map(|p| {
                    format!(
                        "{second}{} MERGE {}",
                        w.unit(p.0, p.1, p.2),
                        w.place(target)
                    )
                })
                .collect();
        }
        8 => {
            let from = near(v, d, u.at);
            let to = near(v, d, from);
            let army = w.unit(1, 0, Region::of(from.province));
            format!("{unit} C {army}{dash}{}", w.place(to))
        }
        9 => {
            let seas = seas_near(v, u.at.province);
            let sea = d.pick(&seas).map_or(u.at, Region::of);
            format!("{unit} E {}", w.place(sea))
        }
        10 => {
            let seas = seas_near(v, u.at.province);
            let fleet_at = d.pick(&seas).map_or(u.at, Region::of);
            let to = near(v, d, fleet_at);
            let fleet = w.unit(0, 1, fleet_at);
            let then = if d.chance(20) {
                format!("{dash}{}", w.place(near(v, d, to)))
            } else {
                String::new()
            };
            format!("{unit} E {fleet}{dash}{}{then}", w.place(to))
        }
        11 => {
            let to = near(v, d, u.at);
            format!("{unit} D {}", w.place(to))
        }
        12 => {
            let centre = near(v, d, u.at);
            format!("{unit} B {}", w.place(centre))
        }
        _ => {
            let from = near(v, d, u.at);
            let to = near(v, d, u.at);
            format!("{unit} X {}-{}", w.place(from), w.place(to))
        }
    };
    vec![line]
}

/// Checks the mail, then the mail with each line that parsed replaced by what the
/// acknowledgement prints for it: every order checked the first time comes back the same, and
/// prints the same; a line refused but parsed prints the same once parsed again.
fn round_trip(b: &Board, pos: &Position, power: PowerId, text: &str) -> Result<(), String> {
    let v = &b.variant;
    let first = turn::check(v, Some(pos), Some(power), text);
    let lines: Vec<&str> = text.lines().collect();
    let printed: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(k, l)| {
            first
                .iter()
                .find(|c| c.line == k + 1)
                .and_then(|c| c.canonical(v))
                .unwrap_or_else(|| l.to_string())
        })
        .collect();
    let again = turn::check(v, Some(pos), Some(power), &printed.join("\n"));
    let shown = |c: &CheckedOrder| match &c.checked {
        Ok(o) => o.display(v),
        Err(e) => format!("refused: {e}"),
    };
    for c in &first {
        let Some(d) = again.iter().find(|d| d.line == c.line) else {
            return Err(format!("line {} is gone when written back", c.line));
        };
        let same = match (&c.checked, &d.checked) {
            (Ok(a), Ok(b)) => a == b,
            (Ok(_), Err(_)) => false,
            // A refused line: its printed form parses back to the order as parsed.
            (Err(OrderError::Invalid(_)), _) => c.parsed == d.parsed,
            (Err(OrderError::Parse(_)), _) => true,
        };
        if !same {
            return Err(format!(
                "{} ({}), {}: line {} '{}' is acknowledged as '{}', which reads back as '{}'",
                b.id,
                v.name,
                v.power(power).name,
                c.line,
                c.text,
                c.canonical(v).unwrap_or_default(),
                shown(d)
            ));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(3000)))]

    /// docs/orders.md and RULINGS section 0: what the acknowledgement prints for an order parses
    /// back, against the same position, to the same order, in every notation, on both boards.
    #[test]
    fn acknowledged_orders_read_back_as_the_same_orders(
        which in any::<prop::sample::Index>(),
        xs in prop::collection::vec(any::<u32>(), 0..80),
    ) {
        let boards = boards();
        prop_assume!(!boards.is_empty());
        let mut d = Dice { xs: &xs, i: 0 };
        // A quarter of the time a position with a force on one coast of a two-coast space, where
        // the acknowledgement must tell the fleets' coast from the armies' whole space.
        let coasted: Vec<usize> = (0..boards.len())
            .filter(|&k| {
                let b = &boards[k];
                b.variant.rules.multiplicity && b.position.forces().any(|(_, f)| f.coast.is_some())
            })
            .collect();
        let k = match d.pick(&coasted) {
            Some(k) if d.chance(25) => k,
            _ => which.index(boards.len()),
        };
        let b = &boards[k];
        let pos = position(b, &mut d);
        if let Some((power, text)) = mail(&b.variant, &pos, &mut d) {
            if let Err(e) = round_trip(b, &pos, power, &text) {
                prop_assert!(false, "{}\nthe mail:\n{}", e, text);
            }
        }
    }
}

/// The generator reaches both boards and every kind of phase, and most mails have orders the
/// check takes (a round trip of nothing but refusals would prove little).
#[test]
fn the_positions_cover_both_boards_and_every_kind_of_phase() {
    let boards = boards();
    for name in ["standard", "napoleonic"] {
        assert!(
            boards.iter().any(|b| b.variant.name == name),
            "no {name} position"
        );
    }
    for kind in [
        PhaseKind::Movement,
        PhaseKind::Retreat,
        PhaseKind::Adjustment,
    ] {
        assert!(
            boards.iter().any(|b| b.position.phase.kind == kind),
            "no {kind:?} position"
        );
    }
    let mut taken = 0;
    let mut lines = 0;
    for seed in 0..400u32 {
        let xs: Vec<u32> = (0..80u32)
            .map(|k| {
                seed.wrapping_mul(2_654_435_761)
                    .wrapping_add(k.wrapping_mul(40_503))
                    >> 7
            })
            .collect();
        let b = &boards[seed as usize % boards.len()];
        let mut d = Dice { xs: &xs, i: 0 };
        let pos = position(b, &mut d);
        if let Some((power, text)) = mail(&b.variant, &pos, &mut d) {
            let checked = turn::check(&b.variant, Some(&pos), Some(power), &text);
            lines += checked.len();
            taken += checked.iter().filter(|c| c.checked.is_ok()).count();
            if std::env::var("SHOW_REFUSED").is_ok() {
                for c in &checked {
                    if let Err(e) = &c.checked {
                        println!("{}: {} => {e}", b.position.phase.kind.word(), c.text);
                    }
                }
            }
        }
    }
    assert!(
        taken * 5 >= lines,
        "only {taken} of {lines} generated orders were taken"
    );
}

/// Issue 18, fault 11 (R1.1, docs/orders.md): the armies of `2A/F(Pap/ec)` are acknowledged
/// without the fleet's coast, and what is printed reads back as the same order.
#[test]
fn an_army_of_a_mixed_force_is_acknowledged_without_a_coast() {
    let b = boards()
        .iter()
        .find(|b| b.id == "R1.1-army-names-no-coast")
        .expect("the case R1.1-army-names-no-coast is among the fixtures");
    let austria = b.variant.power_by_name("Austria").expect("Austria");
    let text = "2A(Pap)-Tus\nF(Pap) H";
    let checked = turn::check(&b.variant, Some(&b.position), Some(austria), text);
    let printed: Vec<String> = checked
        .iter()
        .filter_map(|c| c.canonical(&b.variant))
        .collect();
    assert_eq!(printed, ["2A(Pap)-Tus", "F(Pap/ec) H"]);
    assert_eq!(round_trip(b, &b.position, austria, text), Ok(()));
}
