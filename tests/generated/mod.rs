//! The generated Napoleonic phases the property tests play (`tests/properties.rs`, RULINGS §0)
//! and check for legality (`tests/legality.rs`): a position around a random space, and orders of
//! every kind, legal and not, written in either notation.

mod cases;
pub mod winter;
pub use cases::cases;

use napjudge_engine::variant::{self, PowerId, PowerKind, ProvinceId, Region, SpaceKind, Variant};
use std::sync::OnceLock;

pub fn napoleonic() -> &'static Variant {
    static V: OnceLock<Variant> = OnceLock::new();
    V.get_or_init(|| variant::load_named("napoleonic").expect("the napoleonic variant loads"))
}

// ---------------------------------------------------------------------------------------------
// Generated phases.

/// A stream of choices: proptest shrinks the numbers toward 0 and the list toward empty, and
/// 0 (or an exhausted list) always means the simplest choice.
pub struct Dice<'a> {
    pub xs: &'a [u16],
    pub at: usize,
}

impl Dice<'_> {
    pub fn below(&mut self, n: usize) -> usize {
        let x = self.xs.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        if n == 0 {
            0
        } else {
            usize::from(x) % n
        }
    }
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) >= 100 - percent
    }
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> Option<T> {
        (!xs.is_empty()).then(|| xs[self.below(xs.len())])
    }
}

/// Count and type of some components: (armies, fleets).
#[derive(Clone, Copy, Debug)]
pub struct Spec(pub u8, pub u8);

/// A unit as written: its components and region.
#[derive(Clone, Copy, Debug)]
pub struct U(pub Spec, pub Region);

/// One written order, before it is put into either notation.
#[derive(Clone, Debug)]
pub enum G {
    Hold(U),
    Move(U, Region),
    /// A first move and a second move: `F(NTH)-ENG-MAO`.
    Chain(U, Region, Region),
    /// `2: F(ENG)-MAO`.
    SecondMove(U, Region),
    /// `2: F(IRI) S F(ENG)-MAO`.
    SecondSupport(U, U, Region),
    Support(U, U, Option<Region>),
    /// Participants, target; `true` for a second-phase merge.
    Merge(Vec<U>, Region, bool),
    SupportMerge(U, Region),
    EmbarkSea(U, Region),
    /// The army, the fleets it boards, their first move and, for a chain, their second.
    EmbarkFleet(U, U, Region, Option<Region>),
    Disembark(U, Region),
    Convoy(U, U, Region),
    Blockade(U, Region),
    Deny(U, Region, Region),
}

impl G {
    /// The components of the force at `at` this order gives an order to, if any.
    pub fn names_at(&self, at: ProvinceId) -> Option<Spec> {
        match self {
            G::Merge(us, _, _) => us.iter().find(|u| u.1.province == at).map(|u| u.0),
            g => Some(g.unit()).filter(|u| u.1.province == at).map(|u| u.0),
        }
    }

    /// The unit the order is given to.
    pub fn unit(&self) -> U {
        match self {
            G::Merge(us, _, _) => us[0],
            G::Hold(u)
            | G::Move(u, _)
            | G::Chain(u, _, _)
            | G::SecondMove(u, _)
            | G::SecondSupport(u, _, _)
            | G::Support(u, _, _)
            | G::SupportMerge(u, _)
            | G::EmbarkSea(u, _)
            | G::EmbarkFleet(u, _, _, _)
            | G::Disembark(u, _)
            | G::Convoy(u, _, _)
            | G::Blockade(u, _)
            | G::Deny(u, _, _) => *u,
        }
    }
}

/// How the orders are written.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    /// `A Par - Bur` instead of `A(Par)-Bur`.
    pub judge: bool,
    /// Chains as first move + `2:` order, merges as one `MERGE` line per participant.
    pub split: bool,
}

pub fn spec_text(s: Spec) -> String {
    let n = |k: u8, t: &str| {
        if k == 1 {
            t.to_string()
        } else {
            format!("{k}{t}")
        }
    };
    match s {
        Spec(0, f) => n(f, "F"),
        Spec(a, 0) => n(a, "A"),
        Spec(a, f) => format!("{}/{}", n(a, "A"), n(f, "F")),
    }
}

pub struct Writer<'v> {
    pub v: &'v Variant,
    pub style: Style,
}

impl Writer<'_> {
    fn place(&self, r: Region) -> String {
        self.v.region_name(r)
    }
    pub fn unit(&self, u: U) -> String {
        // Armies stand on no coast: a coastal A/F's armies are named by the space alone.
        let u = if u.0 .1 == 0 {
            U(u.0, Region::of(u.1.province))
        } else {
            u
        };
        if self.style.judge {
            format!("{} {}", spec_text(u.0), self.place(u.1))
        } else {
            format!("{}({})", spec_text(u.0), self.place(u.1))
        }
    }
    fn dash(&self) -> &'static str {
        if self.style.judge {
            " - "
        } else {
            "-"
        }
    }
    fn mv(&self, u: U, to: Region) -> String {
        format!("{}{}{}", self.unit(u), self.dash(), self.place(to))
    }
    /// The lines of one order.
    pub fn lines(&self, g: &G) -> Vec<String> {
        let d = self.dash();
        match g {
            G::Hold(u) => vec![format!("{} H", self.unit(*u))],
            G::Move(u, to) => vec![self.mv(*u, *to)],
            G::Chain(u, a, b) if self.style.split => {
                vec![self.mv(*u, *a), format!("2: {}", self.mv(U(u.0, *a), *b))]
            }
            G::Chain(u, a, b) => vec![format!("{}{d}{}", self.mv(*u, *a), self.place(*b))],
            G::SecondMove(u, to) => vec![format!("2: {}", self.mv(*u, *to))],
            G::SecondSupport(u, t, to) => {
                vec![format!("2: {} S {}", self.unit(*u), self.mv(*t, *to))]
            }
            G::Support(u, t, None) => vec![format!("{} S {}", self.unit(*u), self.unit(*t))],
            G::Support(u, t, Some(to)) => {
                vec![format!("{} S {}", self.unit(*u), self.mv(*t, *to))]
            }
            G::Merge(us, to, second) => {
                let pre = if *second { "2: " } else { "" };
                if self.style.split {
                    us.iter()
                        .map(|u| format!("{pre}{} MERGE {}", self.unit(*u), self.place(*to)))
                        .collect()
                } else {
                    let total = us
                        .iter()
                        .fold(Spec(0, 0), |s, u| Spec(s.0 + u.0 .0, s.1 + u.0 .1));
                    let parts: Vec<String> = us.iter().map(|u| self.unit(*u)).collect();
                    vec![format!(
                        "{pre}{} MERGE {}",
                        parts.join(" & "),
                        self.unit(U(total, *to))
                    )]
                }
            }
            G::SupportMerge(u, to) if self.style.judge => {
                vec![format!("{} S MERGE {}", self.unit(*u), self.place(*to))]
            }
            G::SupportMerge(u, to) => {
                vec![format!("{} S MERGE({})", self.unit(*u), self.place(*to))]
            }
            G::EmbarkSea(u, sea) => vec![format!("{} E {}", self.unit(*u), self.place(*sea))],
            G::EmbarkFleet(u, f, to, then) => {
                let leg = then.map_or(String::new(), |b| format!("{d}{}", self.place(b)));
                vec![format!("{} E {}{leg}", self.unit(*u), self.mv(*f, *to))]
            }
            G::Disembark(u, to) => vec![format!("{} D {}", self.unit(*u), self.place(*to))],
            G::Convoy(f, a, to) => vec![format!("{} C {}", self.unit(*f), self.mv(*a, *to))],
            G::Blockade(u, c) => vec![format!("{} B {}", self.unit(*u), self.place(*c))],
            G::Deny(u, a, b) => vec![format!(
                "{} X {}{d}{}",
                self.unit(*u),
                self.place(*a),
                self.place(*b)
            )],
        }
    }
}

/// A generated phase: the position and each power's orders.
#[derive(Debug, Clone)]
pub struct Phase {
    pub autumn: bool,
    pub forces: Vec<(PowerId, Spec, Region)>,
    /// Each order with the power whose sheet it is on (a minor's own, or its controller's).
    pub orders: Vec<(PowerId, G)>,
    /// The minors controlled, and by whom (a `LEDGER` item).
    pub controls: Vec<(PowerId, PowerId)>,
}

impl Phase {
    /// The case text with the orders written in `style`, the lines in the order `perm` gives;
    /// with, for each line, the order it is the whole of (`None` for a rewritten part).
    pub fn text(&self, v: &Variant, style: Style, perm: &[usize]) -> (String, Vec<Option<usize>>) {
        let w = Writer { v, style };
        let plain = Writer {
            v,
            style: Style {
                judge: false,
                split: false,
            },
        };
        let keep = Writer {
            v,
            style: Style {
                judge: style.judge,
                split: false,
            },
        };
        let mut lines: Vec<(String, Option<usize>)> = Vec::new();
        for (i, (p, g)) in self.orders.iter().enumerate() {
            // Where another force of the power starts in a chain's first target, `2: F(ENG)-MAO`
            // could name that force's fleet (R4.2) and is no longer the chain's second leg: the
            // chain stays a chain.
            let crowded = matches!(g, G::Chain(_, a, _)
                if self.forces.iter().any(|f| f.0 == *p && f.2.province == a.province));
            let ls = if crowded { keep.lines(g) } else { w.lines(g) };
            let whole = ls.len() == 1 && plain.lines(g).len() == 1;
            for l in ls {
                lines.push((format!("{}: {l}", v.power(*p).name), whole.then_some(i)));
            }
        }
        let order: Vec<usize> = if perm.len() == lines.len() {
            perm.to_vec()
        } else {
            (0..lines.len()).collect()
        };
        let season = if self.autumn { "Autumn" } else { "Spring" };
        let mut t = format!("CASE p\nVARIANT napoleonic\nPHASE {season} 1805 Movement\n");
        if !self.controls.is_empty() {
            t.push_str("LEDGER\n");
            for (minor, major) in &self.controls {
                let (minor, major) = (&v.power(*minor).name, &v.power(*major).name);
                t.push_str(&format!("  {minor}: controller {major} 1 year\n"));
            }
        }
        t.push_str("STATE\n");
        for (p, s, r) in &self.forces {
            t.push_str(&format!(
                "  {}: {}\n",
                v.power(*p).name,
                plain.unit(U(*s, *r))
            ));
        }
        t.push_str("ORDERS\n");
        let mut keys = Vec::new();
        for &k in &order {
            t.push_str(&format!("  {}\n", lines[k].0));
            keys.push(lines[k].1);
        }
        t.push_str("END\n");
        (t, keys)
    }
}

/// The spaces within two steps of `centre`, for any unit.
pub fn neighbourhood(v: &Variant, centre: ProvinceId) -> Vec<ProvinceId> {
    within(v, centre, 2)
}

/// The spaces next to `centre`, and it.
fn neighbourhood_1(v: &Variant, centre: ProvinceId) -> Vec<ProvinceId> {
    within(v, centre, 1)
}

fn within(v: &Variant, centre: ProvinceId, steps: usize) -> Vec<ProvinceId> {
    let mut set = variant::ProvinceSet::EMPTY;
    set.insert(centre);
    for _ in 0..steps {
        let mut next = set;
        for p in set.iter() {
            for q in v.army_adj[p.index()]
                .iter()
                .chain(v.fleet_reach[p.index()].iter())
            {
                next.insert(q);
            }
        }
        set = next;
    }
    set.iter().collect()
}

/// Every space a force in `r` reaches, by land, sea or passage.
pub fn targets_of(v: &Variant, r: Region) -> Vec<Region> {
    let mut t = moves(v, r, false);
    t.extend(v.fleet_reach[r.province.index()].iter().map(Region::of));
    t
}

/// Where an army (`false`) or fleet (`true`) in `r` may try to go, passages included.
fn moves(v: &Variant, r: Region, fleet: bool) -> Vec<Region> {
    if fleet {
        v.fleet_moves(r).collect()
    } else {
        let mut out: Vec<Region> = v.army_adj[r.province.index()]
            .iter()
            .map(Region::of)
            .collect();
        for p in &v.passages {
            let other = if p.a == r.province {
                p.b
            } else if p.b == r.province {
                p.a
            } else {
                continue;
            };
            out.push(Region::of(other));
        }
        out
    }
}

fn kind(v: &Variant, r: Region) -> SpaceKind {
    v.province(r.province).kind
}

/// Landings from a sea entered this phase (R3.3): one or two carriers of one power in seas next
/// to a sea close to the centre sail in, by a move (the whole A/F or its fleets alone) or by a
/// merge, and one to three landings name that sea, some for two armies. Returns the orders and
/// the carriers (already ordered).
fn landings(
    v: &Variant,
    d: &mut Dice,
    close: &[ProvinceId],
    powers: &[PowerId],
    forces: &mut Vec<(PowerId, Spec, Region)>,
) -> (Vec<(PowerId, G)>, Vec<usize>) {
    let mut orders = Vec::new();
    let mut preset = Vec::new();
    let sea = |p: ProvinceId| v.province(p).kind == SpaceKind::Sea;
    let seas: Vec<ProvinceId> = close.iter().copied().filter(|&p| sea(p)).collect();
    let (Some(target), Some(power)) = (d.pick(&seas), d.pick(powers)) else {
        return (orders, preset);
    };
    if !d.chance(30) {
        return (orders, preset);
    }
    if d.chance(40) {
        return leaving(v, d, target, (power, powers), forces);
    }
    let free: Vec<ProvinceId> = v.fleet_reach[target.index()]
        .iter()
        .filter(|&q| sea(q) && !forces.iter().any(|f| f.2.province == q))
        .collect();
    let mut carriers: Vec<U> = Vec::new();
    for _ in 0..1 + d.below(2) {
        if let Some(q) = d
            .pick(&free)
            .filter(|q| !carriers.iter().any(|u| u.1.province == *q))
        {
            let fleets = 1 + d.below(2) as u8;
            let armies = 1 + d.below(usize::from(fleets)) as u8;
            carriers.push(U(Spec(armies, fleets), Region::of(q)));
        }
    }
    for u in &carriers {
        preset.push(forces.len());
        forces.push((power, u.0, u.1));
    }
    let to = Region::of(target);
    match carriers.as_slice() {
        [] => return (orders, preset),
        [one] if d.chance(50) => orders.push((power, G::Move(*one, to))),
        [one] => orders.push((power, G::Move(U(Spec(0, one.0 .1), one.1), to))),
        many => orders.push((power, G::Merge(many.to_vec(), to, false))),
    }
    let coasts: Vec<Region> = v.fleet_reach[target.index()]
        .iter()
        .filter(|&c| v.province(c).kind == SpaceKind::Coast)
        .map(Region::of)
        .collect();
    for _ in 0..1 + d.below(3) {
        if let Some(c) = d.pick(&coasts) {
            let armies = 1 + u8::from(d.chance(20));
            orders.push((power, G::Disembark(U(Spec(armies, 0), to), c)));
        }
    }
    (orders, preset)
}

/// Landings from a sea the fleets leave (R3.3): an A/F in `target` lands its armies while its
/// fleets sail to another sea or stay; the landing may meet a foreign army ashore, and another
/// power's fleets may move into the sea, with support. Returns the orders and the forces placed
/// (already ordered).
fn leaving(
    v: &Variant,
    d: &mut Dice,
    target: ProvinceId,
    (power, powers): (PowerId, &[PowerId]),
    forces: &mut Vec<(PowerId, Spec, Region)>,
) -> (Vec<(PowerId, G)>, Vec<usize>) {
    let mut orders = Vec::new();
    let mut preset = Vec::new();
    let taken = |forces: &[(PowerId, Spec, Region)], q: ProvinceId| {
        forces.iter().any(|f| f.2.province == q)
    };
    if taken(forces, target) {
        return (orders, preset);
    }
    let near = |k: SpaceKind| -> Vec<ProvinceId> {
        v.fleet_reach[target.index()]
            .iter()
            .filter(|&q| v.province(q).kind == k)
            .collect()
    };
    let (seas, coasts) = (near(SpaceKind::Sea), near(SpaceKind::Coast));
    let fleets = 1 + d.below(2) as u8;
    let armies = 1 + d.below(usize::from(fleets)) as u8;
    let at = Region::of(target);
    preset.push(forces.len());
    forces.push((power, Spec(armies, fleets), at));
    if let Some(to) = d.pick(&seas).filter(|&q| !taken(forces, q) && d.chance(70)) {
        orders.push((power, G::Move(U(Spec(0, fleets), at), Region::of(to))));
    }
    let Some(coast) = d.pick(&coasts) else {
        return (orders, preset);
    };
    orders.push((
        power,
        G::Disembark(U(Spec(armies, 0), at), Region::of(coast)),
    ));
    let others: Vec<PowerId> = powers.iter().copied().filter(|&p| p != power).collect();
    let Some(foe) = d.pick(&others) else {
        return (orders, preset);
    };
    if !taken(forces, coast) && d.chance(50) {
        preset.push(forces.len());
        forces.push((foe, Spec(1, 0), Region::of(coast)));
    }
    let mut attackers = Vec::new();
    for _ in 0..1 + d.below(2) {
        if let Some(q) = d.pick(&seas).filter(|&q| !taken(forces, q)) {
            preset.push(forces.len());
            forces.push((foe, Spec(0, 1), Region::of(q)));
            attackers.push(U(Spec(0, 1), Region::of(q)));
        }
    }
    if let Some((first, rest)) = attackers.split_first() {
        orders.push((foe, G::Move(*first, at)));
        for u in rest {
            orders.push((foe, G::Support(*u, *first, Some(at))));
        }
    }
    (orders, preset)
}

pub fn generate(v: &Variant, xs: &[u16]) -> Phase {
    let mut d = Dice { xs, at: 0 };
    let autumn = d.chance(50);
    let all: Vec<ProvinceId> = v.province_ids().collect();
    let centre = d.pick(&all).unwrap_or(ProvinceId(0));
    let near = neighbourhood(v, centre);
    let majors: Vec<PowerId> = v
        .power_ids()
        .filter(|&p| v.power(p).kind == PowerKind::Major)
        .collect();
    let mut powers = Vec::new();
    let wanted = 1 + d.below(3);
    for _ in 0..wanted {
        if let Some(p) = d.pick(&majors) {
            if !powers.contains(&p) {
                powers.push(p);
            }
        }
    }
    let mut forces: Vec<(PowerId, Spec, Region)> = Vec::new();
    let count = 3 + d.below(8);
    // Half the forces next to the centre, so that most orders meet each other.
    let close = neighbourhood_1(v, centre);
    for _ in 0..count {
        let from = if d.chance(50) { &near } else { &close };
        let Some(p) = d.pick(from) else { break };
        if forces.iter().any(|f| f.2.province == p) {
            continue;
        }
        let power = d.pick(&powers).unwrap_or(majors[0]);
        let size = |d: &mut Dice| {
            1 + if d.chance(30) {
                1 + d.below(2) as u8
            } else {
                0
            }
        };
        let prov = v.province(p);
        let coast = d.pick(&prov.coasts);
        let (spec, region) = match prov.kind {
            SpaceKind::Land => (Spec(size(&mut d), 0), Region::of(p)),
            SpaceKind::Sea => {
                let f = size(&mut d);
                let a = if d.chance(40) {
                    1 + d.below(usize::from(f)) as u8
                } else {
                    0
                };
                (Spec(a, f), Region::of(p))
            }
            SpaceKind::Coast => match d.below(3) {
                0 => (Spec(size(&mut d), 0), Region::of(p)),
                1 => (Spec(0, size(&mut d)), Region { province: p, coast }),
                _ => (
                    Spec(size(&mut d), size(&mut d)),
                    Region { province: p, coast },
                ),
            },
        };
        forces.push((power, spec, region));
    }
    let (mut orders, preset) = landings(v, &mut d, &close, &powers, &mut forces);
    let mut ordered = vec![false; forces.len()];
    for j in preset {
        ordered[j] = true;
    }
    for i in 0..forces.len() {
        if ordered[i] {
            continue;
        }
        ordered[i] = true;
        let (power, spec, r) = forces[i];
        let at_sea = kind(v, r) == SpaceKind::Sea;
        // The components this force's main order addresses: the whole force, or a part of one
        // type (an A/F at sea whole or its fleets only).
        let part = if d.chance(30) {
            if spec.0 > 0 && (spec.1 == 0 || d.chance(50)) && !at_sea {
                Spec(1 + d.below(usize::from(spec.0)) as u8, 0)
            } else if spec.1 > 0 {
                Spec(0, 1 + d.below(usize::from(spec.1)) as u8)
            } else {
                spec
            }
        } else {
            spec
        };
        let fleetish = part.1 > 0 && (part.0 == 0 || at_sea);
        let unit = U(part, r);
        // A mixed force's supports go anywhere now and then: only the components that could move
        // into the space may give them (R1.6).
        let wide = part.0 > 0 && part.1 > 0 && d.chance(40);
        // Forces this one could support or be supported by: in a space next to it.
        let reach: Vec<ProvinceId> = targets_of(v, r).iter().map(|t| t.province).collect();
        let others: Vec<usize> = (0..forces.len())
            .filter(|&j| j != i && (reach.contains(&forces[j].2.province) || wide || d.chance(3)))
            .collect();
        let targets = moves(v, r, fleetish);
        let g = match d.below(16) {
            0 => None,
            1 => Some(G::Hold(unit)),
            2 | 3 => d.pick(&targets).map(|to| G::Move(unit, to)),
            4 if fleetish => d.pick(&targets).and_then(|a| {
                d.pick(&v.fleet_moves(a).collect::<Vec<_>>())
                    .map(|b| G::Chain(unit, a, b))
            }),
            5 if d.chance(70) => {
                // Support a move already ordered, into a space this force reaches.
                let moves: Vec<(U, Region)> = orders
                    .iter()
                    .filter_map(|(_, g)| match g {
                        G::Move(u, to) | G::Chain(u, to, _)
                            if wide || reach.contains(&to.province) =>
                        {
                            Some((*u, *to))
                        }
                        _ => None,
                    })
                    .collect();
                d.pick(&moves).map(|(u, to)| G::Support(unit, u, Some(to)))
            }
            5 | 6 => d.pick(&others).map(|j| {
                let (_, s, at) = forces[j];
                let to = if d.chance(50) {
                    d.pick(&moves(v, at, s.1 > 0 && s.0 == 0))
                } else {
                    None
                };
                G::Support(unit, U(s, at), to)
            }),
            7 => {
                // A merge with another force of the same power, unordered so far.
                let mates: Vec<usize> = others
                    .iter()
                    .copied()
                    .filter(|&j| !ordered[j] && forces[j].0 == power)
                    .collect();
                d.pick(&mates).and_then(|j| {
                    let (_, s, at) = forces[j];
                    let mut to_set: Vec<Region> = targets.clone();
                    to_set.push(Region::of(at.province));
                    let to = d.pick(&to_set)?;
                    ordered[j] = true;
                    let second = at_sea && kind(v, at) == SpaceKind::Sea && d.chance(30);
                    let mut us = vec![unit, U(s, at)];
                    if d.chance(50) {
                        us.reverse();
                    }
                    Some(G::Merge(us, to, second))
                })
            }
            8 => {
                let merges: Vec<Region> = orders
                    .iter()
                    .filter_map(|(_, g)| match g {
                        G::Merge(_, to, false) if wide || reach.contains(&to.province) => {
                            Some(Region::of(to.province))
                        }
                        _ => None,
                    })
                    .collect();
                d.pick(&merges).map(|to| G::SupportMerge(unit, to))
            }
            9 if part.0 > 0 && !at_sea => {
                let seas: Vec<Region> = v.fleet_reach[r.province.index()]
                    .iter()
                    .filter(|&s| v.province(s).kind == SpaceKind::Sea)
                    .map(Region::of)
                    .collect();
                let sea = d.pick(&seas);
                // Onto fleets that may already carry their limit (R3.2, R3.4), and as a chain
                // with the fleets' second move (R4.3).
                let fleet = forces.iter().enumerate().position(|(j, f)| {
                    Some(f.2) == sea && f.0 == power && !ordered[j] && f.1 .1 > 0
                });
                match (sea, fleet) {
                    (Some(sea), Some(j)) if d.chance(60) => {
                        let to = d.pick(&v.fleet_moves(sea).collect::<Vec<_>>());
                        to.map(|to| {
                            ordered[j] = true;
                            let then = if d.chance(40) {
                                d.pick(&v.fleet_moves(to).collect::<Vec<_>>())
                            } else {
                                None
                            };
                            let fleets = U(Spec(0, forces[j].1 .1), sea);
                            G::EmbarkFleet(U(Spec(part.0, 0), r), fleets, to, then)
                        })
                    }
                    (Some(sea), _) => Some(G::EmbarkSea(U(Spec(part.0, 0), r), sea)),
                    _ => None,
                }
            }
            10 if at_sea && spec.0 > 0 => {
                let coasts: Vec<Region> = v.fleet_reach[r.province.index()]
                    .iter()
                    .filter(|&c| v.province(c).kind == SpaceKind::Coast)
                    .map(Region::of)
                    .collect();
                d.pick(&coasts)
                    .map(|c| G::Disembark(U(Spec(spec.0, 0), r), c))
            }
            11 if part.1 > 0 => {
                if d.chance(50) {
                    let whole = if d.chance(30) {
                        U(spec, r)
                    } else {
                        U(Spec(0, part.1), r)
                    };
                    d.pick(&v.fleet_moves(r).collect::<Vec<_>>())
                        .map(|to| G::SecondMove(whole, to))
                } else {
                    d.pick(&others).and_then(|j| {
                        let (_, s, at) = forces[j];
                        let to = d.pick(&v.fleet_moves(at).collect::<Vec<_>>())?;
                        Some(G::SecondSupport(unit, U(s, at), to))
                    })
                }
            }
            12 if at_sea && autumn => {
                let centres: Vec<Region> = v.fleet_reach[r.province.index()]
                    .iter()
                    .filter(|&c| {
                        let p = v.province(c);
                        p.kind == SpaceKind::Coast && p.centre && p.home.is_some_and(|h| h != power)
                    })
                    .map(Region::of)
                    .collect();
                d.pick(&centres)
                    .map(|c| G::Blockade(U(Spec(0, part.1), r), c))
            }
            13 if at_sea => v
                .passages
                .iter()
                .find(|p| p.sea == r.province)
                .map(|p| G::Deny(U(Spec(0, 1), r), Region::of(p.a), Region::of(p.b))),
            14 if at_sea && spec.0 == 0 => {
                // A Fast Ferry: an army on a coast next to this sea, to another coast next to it.
                let coasts: Vec<ProvinceId> = v.fleet_reach[r.province.index()]
                    .iter()
                    .filter(|&c| v.province(c).kind == SpaceKind::Coast)
                    .collect();
                let army = forces
                    .iter()
                    .enumerate()
                    .position(|(j, f)| !ordered[j] && f.1 .0 > 0 && coasts.contains(&f.2.province));
                let to = d.pick(&coasts);
                match (army, to) {
                    (Some(j), Some(to)) => {
                        ordered[j] = true;
                        let a = U(Spec(1, 0), Region::of(forces[j].2.province));
                        orders.push((forces[j].0, G::Move(a, Region::of(to))));
                        Some(G::Convoy(U(Spec(0, 1), r), a, Region::of(to)))
                    }
                    _ => None,
                }
            }
            15 => {
                // Illegal on purpose: a space that is probably not adjacent, or too many units.
                if d.chance(50) {
                    d.pick(&near).map(|p| G::Move(unit, Region::of(p)))
                } else {
                    let more = Spec(
                        spec.0 + u8::from(spec.0 > 0),
                        spec.1 + u8::from(spec.0 == 0),
                    );
                    d.pick(&targets).map(|to| G::Move(U(more, r), to))
                }
            }
            _ => None,
        };
        let used = g.as_ref().and_then(|g| g.names_at(r.province));
        if let Some(g) = g {
            orders.push((power, g));
        }
        // The components the order left out may get an order of their own (R1.4, R1.6).
        let rest = used.map(|u| Spec(spec.0.saturating_sub(u.0), spec.1.saturating_sub(u.1)));
        if let Some(rest) = rest.filter(|s| s.0 + s.1 > 0 && d.chance(50)) {
            let sea = |q: ProvinceId| v.province(q).kind == SpaceKind::Sea;
            let g = if at_sea && rest.1 == 0 {
                let coasts: Vec<Region> = v.fleet_reach[r.province.index()]
                    .iter()
                    .filter(|&c| !sea(c))
                    .map(Region::of)
                    .collect();
                d.pick(&coasts).map(|c| G::Disembark(U(rest, r), c))
            } else if d.chance(60) {
                let fleets = rest.1 > 0 && (rest.0 == 0 || at_sea);
                d.pick(&moves(v, r, fleets))
                    .map(|to| G::Move(U(rest, r), to))
            } else {
                d.pick(&others)
                    .map(|j| G::Support(U(rest, r), U(forces[j].1, forces[j].2), None))
            };
            if let Some(g) = g {
                orders.push((power, g));
            }
        }
    }
    // A landing from the sea an embarkation's fleets sail to (R3.2, R3.3).
    let embarked: Vec<(PowerId, Region)> = orders
        .iter()
        .filter_map(|(p, g)| match g {
            G::EmbarkFleet(_, _, to, None) => Some((*p, *to)),
            _ => None,
        })
        .collect();
    for (power, sea) in embarked {
        let coasts: Vec<Region> = v.fleet_reach[sea.province.index()]
            .iter()
            .filter(|&c| v.province(c).kind == SpaceKind::Coast)
            .map(Region::of)
            .collect();
        if let Some(c) = d.pick(&coasts).filter(|_| d.chance(40)) {
            orders.push((power, G::Disembark(U(Spec(1, 0), sea), c)));
        }
    }
    // The situations of issue 33's six faults, placed anywhere on the board.
    let mut controls = Vec::new();
    orders.extend(passage_retreat(v, &mut d, &powers, &majors, &mut forces));
    if autumn {
        orders.extend(partial_blockade(v, &mut d, &powers, &mut forces));
    }
    orders.extend(doubled_chain(v, &mut d, &powers, &mut forces));
    controls.extend(two_sheets(v, &mut d, &powers, &mut forces, &mut orders));
    Phase {
        autumn,
        forces,
        orders,
        controls,
    }
}

/// Whether no force stands in any of `ps` yet.
fn vacant(forces: &[(PowerId, Spec, Region)], ps: &[ProvinceId]) -> bool {
    !forces.iter().any(|f| ps.contains(&f.2.province))
}

/// A retreat where a direct passage is adjacent (R1.9, R6.1): an army on a passage's end is
/// attacked by two armies of another power over land, so that it is dislodged next to the
/// passage; the other end is empty or held.
fn passage_retreat(
    v: &Variant,
    d: &mut Dice,
    powers: &[PowerId],
    majors: &[PowerId],
    forces: &mut Vec<(PowerId, Spec, Region)>,
) -> Vec<(PowerId, G)> {
    let none = Vec::new();
    if !d.chance(25) {
        return none;
    }
    let Some(x) = d.pick(&v.passages) else {
        return none;
    };
    let (at, other) = if d.chance(50) { (x.a, x.b) } else { (x.b, x.a) };
    let land: Vec<ProvinceId> = v.army_adj[at.index()].iter().collect();
    let (Some(from), Some(me)) = (d.pick(&land), d.pick(powers)) else {
        return none;
    };
    let foes: Vec<PowerId> = majors.iter().copied().filter(|&p| p != me).collect();
    let Some(foe) = d.pick(&foes) else {
        return none;
    };
    if !vacant(forces, &[at, from]) {
        return none;
    }
    forces.push((me, Spec(1, 0), Region::of(at)));
    forces.push((foe, Spec(2, 0), Region::of(from)));
    if d.chance(30) && vacant(forces, &[other]) {
        forces.push((foe, Spec(1, 0), Region::of(other)));
    }
    let attack = G::Move(U(Spec(2, 0), Region::of(from)), Region::of(at));
    vec![(foe, attack)]
}

/// Part of a force at sea blockading while the rest sails away or stays (R5.1): an A/nF in a sea
/// next to another power's coastal home centre; some of its fleets blockade, and the rest (its
/// army aboard) is given a move written one of three ways, or nothing.
fn partial_blockade(
    v: &Variant,
    d: &mut Dice,
    powers: &[PowerId],
    forces: &mut Vec<(PowerId, Spec, Region)>,
) -> Vec<(PowerId, G)> {
    let none = Vec::new();
    if !d.chance(30) {
        return none;
    }
    let Some(me) = d.pick(powers) else {
        return none;
    };
    let home_centre = |c: ProvinceId| {
        let p = v.province(c);
        p.kind == SpaceKind::Coast && p.centre && p.home.is_some_and(|h| h != me)
    };
    let seas: Vec<ProvinceId> = v
        .province_ids()
        .filter(|&s| kind(v, Region::of(s)) == SpaceKind::Sea)
        .filter(|&s| v.fleet_reach[s.index()].iter().any(home_centre))
        .collect();
    let Some(sea) = d.pick(&seas).filter(|&s| vacant(forces, &[s])) else {
        return none;
    };
    let centres: Vec<ProvinceId> = v.fleet_reach[sea.index()]
        .iter()
        .filter(|&c| home_centre(c))
        .collect();
    let Some(centre) = d.pick(&centres) else {
        return none;
    };
    let fleets = 2 + d.below(2) as u8;
    let blockading = 1 + d.below(usize::from(fleets) - 1) as u8;
    let rest = fleets - blockading;
    let armies = 1 + d.below(usize::from(rest)) as u8;
    let at = Region::of(sea);
    forces.push((me, Spec(armies, fleets), at));
    let mut orders = vec![(
        me,
        G::Blockade(U(Spec(0, blockading), at), Region::of(centre)),
    )];
    let next: Vec<Region> = v
        .fleet_moves(at)
        .filter(|r| kind(v, *r) == SpaceKind::Sea)
        .collect();
    if let Some(to) = d.pick(&next) {
        match d.below(4) {
            0 => orders.push((me, G::Move(U(Spec(0, rest), at), to))),
            1 => orders.push((me, G::SecondMove(U(Spec(0, rest), at), to))),
            2 => orders.push((me, G::Move(U(Spec(armies, rest), at), to))),
            _ => {}
        }
    }
    orders
}

/// The same embark move or chain given twice (R3.2): `A(Pap) E F(ADR)-ION-AEG` with the fleets'
/// own order giving the same move, sometimes onto fleets already carrying their limit.
fn doubled_chain(
    v: &Variant,
    d: &mut Dice,
    powers: &[PowerId],
    forces: &mut Vec<(PowerId, Spec, Region)>,
) -> Vec<(PowerId, G)> {
    let none = Vec::new();
    if !d.chance(25) {
        return none;
    }
    let coasts: Vec<ProvinceId> = v
        .province_ids()
        .filter(|&c| kind(v, Region::of(c)) == SpaceKind::Coast)
        .collect();
    let (Some(coast), Some(me)) = (d.pick(&coasts), d.pick(powers)) else {
        return none;
    };
    let seas: Vec<ProvinceId> = v.fleet_reach[coast.index()]
        .iter()
        .filter(|&s| kind(v, Region::of(s)) == SpaceKind::Sea)
        .collect();
    let Some(sea) = d.pick(&seas).filter(|&s| vacant(forces, &[s, coast])) else {
        return none;
    };
    let sea = Region::of(sea);
    let Some(to) = d.pick(&v.fleet_moves(sea).collect::<Vec<_>>()) else {
        return none;
    };
    let then = if d.chance(70) {
        d.pick(&v.fleet_moves(to).collect::<Vec<_>>())
    } else {
        None
    };
    let full = d.chance(40);
    forces.push((me, Spec(1, 0), Region::of(coast)));
    forces.push((me, Spec(u8::from(full), 1), sea));
    let fleet = U(Spec(0, 1), sea);
    let own = match then {
        Some(b) if d.chance(50) => G::Chain(if full { U(Spec(1, 1), sea) } else { fleet }, to, b),
        Some(b) => G::Chain(fleet, to, b),
        None => G::Move(fleet, to),
    };
    let embark = G::EmbarkFleet(U(Spec(1, 0), Region::of(coast)), fleet, to, then);
    let mut orders = vec![(me, embark), (me, own)];
    if d.chance(50) {
        orders.reverse();
    }
    orders
}

/// A controlled minor's unit ordered on its own sheet and by its controller (R1.4, R7.9): a
/// minor's force of one or two armies on one of its home centres, given an order on each sheet
/// (a move or a hold), which may together name more armies than it has. Returns the minor and
/// its controller.
fn two_sheets(
    v: &Variant,
    d: &mut Dice,
    powers: &[PowerId],
    forces: &mut Vec<(PowerId, Spec, Region)>,
    orders: &mut Vec<(PowerId, G)>,
) -> Option<(PowerId, PowerId)> {
    if !d.chance(25) {
        return None;
    }
    let minors: Vec<PowerId> = v
        .power_ids()
        .filter(|&p| v.power(p).kind == PowerKind::Minor)
        .collect();
    let (minor, major) = (d.pick(&minors)?, d.pick(powers)?);
    let homes: Vec<ProvinceId> = v
        .homes(minor)
        .iter()
        .filter(|&h| kind(v, Region::of(h)) != SpaceKind::Sea)
        .collect();
    let home = d.pick(&homes).filter(|&h| vacant(forces, &[h]))?;
    let armies = 1 + d.below(2) as u8;
    let at = Region::of(home);
    forces.push((minor, Spec(armies, 0), at));
    let targets = moves(v, at, false);
    let mut given = Vec::new();
    for sheet in [major, minor] {
        let n = 1 + d.below(usize::from(armies));
        let u = U(Spec(n as u8, 0), at);
        let g = match d.below(3) {
            0 => G::Hold(u),
            _ => G::Move(u, d.pick(&targets)?),
        };
        given.push((sheet, g));
    }
    if d.chance(50) {
        given.reverse();
    }
    orders.extend(given);
    Some((minor, major))
}

/// A permutation of `0..n` drawn from `seed` (Fisher-Yates with a small LCG).
pub fn shuffled(n: usize, seed: u64) -> Vec<usize> {
    let mut xs: Vec<usize> = (0..n).collect();
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    for i in (1..n).rev() {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let j = ((s >> 33) as usize) % (i + 1);
        xs.swap(i, j);
    }
    xs
}

/// Every army and fleet of each power, on the board and dislodged.
pub fn units(variant: &Variant, pos: &napjudge_engine::position::Position) -> Vec<(u32, u32)> {
    let mut out = vec![(0, 0); variant.powers.len()];
    let all = pos
        .forces()
        .map(|(_, f)| *f)
        .chain(pos.dislodged.iter().map(|d| d.force));
    for f in all {
        let u = &mut out[f.power.index()];
        u.0 += u32::from(f.armies);
        u.1 += u32::from(f.fleets);
    }
    out
}

/// The units each power may lose in a played phase, as (armies, fleets): what its events report
/// lost, the units disbanded for want of a retreat and the armies starved at sea (R3.6).
pub fn reported_losses(
    variant: &Variant,
    events: &[napjudge_engine::outcome::Event],
) -> Vec<(u32, u32)> {
    use napjudge_engine::outcome::Event;
    let mut out = vec![(0, 0); variant.powers.len()];
    for e in events {
        match e {
            Event::Disbanded {
                power,
                armies,
                fleets,
                ..
            } => {
                let l = &mut out[power.index()];
                l.0 += u32::from(*armies);
                l.1 += u32::from(*fleets);
            }
            Event::Starved { power, armies, .. } => out[power.index()].0 += u32::from(*armies),
            _ => {}
        }
    }
    out
}
