//! The movement phase: the one adjudication core.
//!
//! Every order becomes an [`Item`]: a number of components of one force doing one thing (on the
//! standard map every force is one unit and every item the whole force). Components that no order
//! names hold. Each item has one yes/no decision (a move succeeds; a support is given; a holding
//! or convoying force is not dislodged), decided as the DATC chapter 5 describes, with strengths
//! counted in components (R1.5).
//!
//! Decisions depend on each other. They are put in a dependency graph (petgraph), whose strongly
//! connected components are decided in dependency order. Inside a component that is a real cycle
//! the decisions are made by Kruijswijk's guess-and-check, and a cycle with no single consistent
//! answer is settled by DATC 5.B.9: circular movement succeeds; a cycle through a convoy is a
//! paradox and the Szykman rule makes the convoyed moves fail.

use super::outcome::{Outcome, Reason};
use crate::order::{Order, OrderKind, Stage};
use crate::position::{Dislodged, Force, Position};
use crate::variant::{PowerId, ProvinceId, ProvinceSet, Region, SpaceKind, Variant};
use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};

/// What an item does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Act {
    Hold,
    Move { to: Region, via_convoy: bool },
    SupportHold { target: ProvinceId },
    SupportMove { from: ProvinceId, to: ProvinceId },
    Convoy { from: ProvinceId, to: ProvinceId },
}

/// Components of one force doing one thing.
#[derive(Clone, Copy, Debug)]
struct Item {
    power: PowerId,
    at: ProvinceId,
    armies: u8,
    fleets: u8,
    act: Act,
    /// The order it comes from; `None` for the components no order named.
    order: Option<usize>,
}

/// How a move travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Route {
    /// Not a move.
    NotMove,
    /// Straight to an adjacent space.
    Direct,
    /// By convoy.
    Convoy,
    /// No route: a convoy was needed and none was ordered.
    NoConvoy,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Unresolved,
    Guessing,
    Resolved,
}

/// Item indices grouped by space, each group in ascending order: the items of space `p` are
/// `list[start[p]..start[p + 1]]`.
struct BySpace {
    start: Vec<usize>,
    list: Vec<usize>,
}

impl BySpace {
    /// Groups `0..n` by `space_of` (items with no space are left out).
    fn new(spaces: usize, n: usize, space_of: impl Fn(usize) -> Option<ProvinceId>) -> BySpace {
        let mut start = vec![0; spaces + 1];
        for i in 0..n {
            if let Some(p) = space_of(i) {
                start[p.index() + 1] += 1;
            }
        }
        for p in 0..spaces {
            start[p + 1] += start[p];
        }
        let mut next = start.clone();
        let mut list = vec![0; start[spaces]];
        for i in 0..n {
            if let Some(p) = space_of(i) {
                list[next[p.index()]] = i;
                next[p.index()] += 1;
            }
        }
        BySpace { start, list }
    }

    fn get(&self, p: ProvinceId) -> &[usize] {
        &self.list[self.start[p.index()]..self.start[p.index() + 1]]
    }
}

/// The adjudication of one movement phase.
struct Resolver<'a> {
    variant: &'a Variant,
    items: Vec<Item>,
    /// The items in each space.
    at: BySpace,
    /// The moves into each space.
    into: BySpace,
    route: Vec<Route>,
    /// The move going the other way between the same two spaces, both direct.
    h2h: Vec<Option<usize>>,
    /// Supports and convoys that match an order of the unit they name.
    matched: Vec<bool>,
    /// Convoyed moves the Szykman rule has made fail.
    paradox: Vec<bool>,
    state: Vec<State>,
    result: Vec<bool>,
    /// Kruijswijk's list of decisions that depend on a guess.
    cycle: Vec<usize>,
}

/// The result of a movement phase.
pub struct MovementResult {
    /// One outcome per order, in order.
    pub outcomes: Vec<Outcome>,
    /// The position after the phase (dislodged forces waiting to retreat).
    pub position: Position,
}

/// Adjudicates a movement phase: `orders` are validated orders of this phase (one per order line,
/// each naming components of a force in `position`).
pub fn adjudicate(
    variant: &Variant,
    position: &Position,
    orders: &[Order<Region>],
) -> MovementResult {
    let mut r = Resolver::new(variant, position, orders);
    r.resolve_all();
    // The item each order became (at most one), found once rather than searched per order.
    let mut item_of = vec![None; orders.len()];
    for (i, it) in r.items.iter().enumerate() {
        if let Some(o) = it.order {
            item_of[o].get_or_insert(i);
        }
    }
    let outcomes = item_of.iter().map(|&i| r.outcome_of(i)).collect();
    let position = r.next_position(position);
    MovementResult { outcomes, position }
}

impl<'a> Resolver<'a> {
    fn new(variant: &'a Variant, position: &Position, orders: &[Order<Region>]) -> Self {
        let mut items = Vec::with_capacity(orders.len() + 4);
        // Components each force still has unordered, by space.
        let mut left: Vec<(u8, u8)> = position
            .units
            .iter()
            .map(|f| f.map_or((0, 0), |f| (f.armies, f.fleets)))
            .collect();
        for (i, order) in orders.iter().enumerate() {
            if order.stage != Stage::First {
                continue;
            }
            let Some(unit) = order.kind.unit() else {
                continue;
            };
            let at = unit.at.province;
            let Some(force) = position.force(at) else {
                continue;
            };
            let act = match &order.kind {
                OrderKind::Move { to, via_convoy, .. } => Act::Move {
                    to: *to,
                    via_convoy: *via_convoy,
                },
                OrderKind::SupportHold { supported, .. } => Act::SupportHold {
                    target: supported.at.province,
                },
                OrderKind::SupportMove { supported, to, .. } => Act::SupportMove {
                    from: supported.at.province,
                    to: to.province,
                },
                OrderKind::Convoy { army, to, .. } => Act::Convoy {
                    from: army.at.province,
                    to: to.province,
                },
                _ => Act::Hold,
            };
            let l = &mut left[at.index()];
            let (armies, fleets) = (unit.armies.min(l.0), unit.fleets.min(l.1));
            l.0 -= armies;
            l.1 -= fleets;
            items.push(Item {
                power: force.power,
                at,
                armies,
                fleets,
                act,
                order: Some(i),
            });
        }
        for (p, force) in position.forces() {
            let (armies, fleets) = left[p.index()];
            if armies + fleets > 0 {
                items.push(Item {
                    power: force.power,
                    at: p,
                    armies,
                    fleets,
                    act: Act::Hold,
                    order: None,
                });
            }
        }
        let n = items.len();
        let spaces = variant.provinces.len();
        let at = BySpace::new(spaces, n, |i| Some(items[i].at));
        let into = BySpace::new(spaces, n, |i| match items[i].act {
            Act::Move { to, .. } => Some(to.province),
            _ => None,
        });
        let mut r = Resolver {
            variant,
            items,
            at,
            into,
            route: vec![Route::NotMove; n],
            h2h: vec![None; n],
            matched: vec![true; n],
            paradox: vec![false; n],
            state: vec![State::Unresolved; n],
            result: vec![false; n],
            cycle: Vec::new(),
        };
        r.match_supports_and_convoys();
        r.find_routes();
        r
    }

    /// Which supports and convoys name an order the named unit really gave.
    fn match_supports_and_convoys(&mut self) {
        for i in 0..self.items.len() {
            let ok = match self.items[i].act {
                Act::SupportHold { target } => self.items_at(target).any(|j| !self.is_move(j)),
                Act::SupportMove { from, to } => {
                    self.items_at(from).any(|j| self.move_to(j) == Some(to))
                }
                Act::Convoy { from, to } => {
                    self.variant.province(self.items[i].at).kind == SpaceKind::Sea
                        && self
                            .items_at(from)
                            .any(|j| self.move_to(j) == Some(to) && self.items[j].armies > 0)
                }
                _ => true,
            };
            self.matched[i] = ok;
        }
    }

    /// How each move travels (DATC 4.A.3: an army that could go by land goes by convoy only when
    /// written `via convoy` or when a fleet of its own power is ordered to convoy it).
    fn find_routes(&mut self) {
        for m in 0..self.items.len() {
            let Act::Move { to, via_convoy } = self.items[m].act else {
                continue;
            };
            let item = self.items[m];
            let from = item.at;
            let is_army_move = item.fleets == 0;
            self.route[m] = if !is_army_move {
                Route::Direct
            } else {
                let by_land = self.variant.army_adjacent(from, to.province);
                let convoys = self.convoys_for(from, to.province);
                let own = convoys
                    .clone()
                    .any(|c| self.items[c].power == item.power);
                // The convoy chain is looked for only when the land route does not settle it.
                if by_land && !(via_convoy || own) {
                    Route::Direct
                } else if (by_land && (via_convoy || own))
                    || self.convoy_chain(from, to.province, |_| true)
                {
                    Route::Convoy
                } else if by_land {
                    Route::Direct
                } else {
                    Route::NoConvoy
                }
            };
        }
        for m in 0..self.items.len() {
            if self.route[m] != Route::Direct {
                continue;
            }
            let (from, to) = (self.items[m].at, self.move_to(m));
            self.h2h[m] = to.and_then(|to| {
                self.items_at(to)
                    .find(|&n| self.route[n] == Route::Direct && self.move_to(n) == Some(from))
            });
        }
    }

    fn items_at(&self, p: ProvinceId) -> impl Iterator<Item = usize> + Clone + '_ {
        self.at.get(p).iter().copied()
    }

    fn moves_into(&self, p: ProvinceId) -> impl Iterator<Item = usize> + Clone + '_ {
        self.into.get(p).iter().copied()
    }

    fn convoys_for(&self, from: ProvinceId, to: ProvinceId) -> impl Iterator<Item = usize> + Clone + '_ {
        (0..self.items.len()).filter(move |&i| {
            self.matched[i] && self.items[i].act == Act::Convoy { from, to }
        })
    }

    fn is_move(&self, i: usize) -> bool {
        matches!(self.items[i].act, Act::Move { .. })
    }

    fn move_to(&self, i: usize) -> Option<ProvinceId> {
        match self.items[i].act {
            Act::Move { to, .. } => Some(to.province),
            _ => None,
        }
    }

    /// Whether fleets ordered to convoy `from`-`to`, each passing `usable`, form a chain of
    /// adjacent seas from `from` to `to`.
    fn convoy_chain(
        &self,
        from: ProvinceId,
        to: ProvinceId,
        mut usable: impl FnMut(usize) -> bool,
    ) -> bool {
        let mut fleets = ProvinceSet::EMPTY;
        for c in self.convoys_for(from, to) {
            if usable(c) {
                fleets.insert(self.items[c].at);
            }
        }
        let reach = |p: ProvinceId| self.variant.fleet_reach[p.index()];
        let mut seen = ProvinceSet::EMPTY;
        let mut frontier = ProvinceSet(reach(from).0 & fleets.0);
        while !frontier.is_empty() {
            seen.0 |= frontier.0;
            let mut next = ProvinceSet::EMPTY;
            for s in frontier.iter() {
                if reach(s).contains(to) {
                    return true;
                }
                next.0 |= reach(s).0;
            }
            frontier = ProvinceSet(next.0 & fleets.0 & !seen.0);
        }
        false
    }

    /// The components of an item that count in or into `dest` (R1.5): at sea only fleets act; into
    /// a sea only fleets count; into an inland space only armies.
    fn weight(&self, i: usize, dest: ProvinceId) -> u32 {
        let it = &self.items[i];
        let (a, f) = (u32::from(it.armies), u32::from(it.fleets));
        if self.variant.province(it.at).kind == SpaceKind::Sea {
            return f;
        }
        match self.variant.province(dest).kind {
            SpaceKind::Sea => f,
            SpaceKind::Land => a,
            SpaceKind::Coast => a + f,
        }
    }

    // ----- the decisions -----

    fn resolve_all(&mut self) {
        let n = self.items.len();
        let mut graph: DiGraph<(), ()> = DiGraph::with_capacity(n, n * 2);
        for _ in 0..n {
            graph.add_node(());
        }
        for i in 0..n {
            for j in self.dependencies(i) {
                graph.add_edge(NodeIndex::new(i), NodeIndex::new(j), ());
            }
        }
        // Tarjan gives the components in reverse topological order: dependencies first.
        for component in tarjan_scc(&graph) {
            for node in component {
                self.resolve(node.index());
            }
        }
    }

    /// The decisions decision `i` may read.
    fn dependencies(&self, i: usize) -> Vec<usize> {
        let it = self.items[i];
        let mut deps = Vec::new();
        // Whether this item's force is dislodged, or its support cut, depends on the moves into
        // its space and on what carries them.
        let attackers = |deps: &mut Vec<usize>, p: ProvinceId| {
            for m in self.moves_into(p) {
                deps.push(m);
                if self.route[m] == Route::Convoy {
                    deps.extend(self.convoys_for(self.items[m].at, p));
                }
            }
        };
        match it.act {
            Act::Move { to, .. } => {
                let b = to.province;
                for m in self.moves_into(b) {
                    deps.push(m);
                    if self.route[m] == Route::Convoy {
                        deps.extend(self.convoys_for(self.items[m].at, b));
                    }
                    deps.extend(self.supports_of_move(self.items[m].at, b));
                }
                for j in self.items_at(b) {
                    deps.push(j);
                    if let Some(c) = self.move_to(j) {
                        deps.extend(self.supports_of_move(b, c));
                    }
                }
                deps.extend(self.supports_of_hold(b));
            }
            _ => attackers(&mut deps, it.at),
        }
        deps.retain(|&j| j != i || matches!(it.act, Act::Move { .. }));
        deps
    }

    fn supports_of_move(&self, from: ProvinceId, to: ProvinceId) -> impl Iterator<Item = usize> + '_ {
        (0..self.items.len()).filter(move |&s| {
            self.matched[s] && self.items[s].act == Act::SupportMove { from, to }
        })
    }

    fn supports_of_hold(&self, target: ProvinceId) -> impl Iterator<Item = usize> + '_ {
        (0..self.items.len())
            .filter(move |&s| self.matched[s] && self.items[s].act == Act::SupportHold { target })
    }

    /// Kruijswijk's resolver: the decision for item `i`, guessing around cycles.
    fn resolve(&mut self, i: usize) -> bool {
        match self.state[i] {
            State::Resolved => return self.result[i],
            State::Guessing => {
                if !self.cycle.contains(&i) {
                    self.cycle.push(i);
                }
                return self.result[i];
            }
            State::Unresolved => {}
        }
        let old = self.cycle.len();
        self.result[i] = false;
        self.state[i] = State::Guessing;
        let first = self.decide(i);
        if self.cycle.len() == old {
            if self.state[i] != State::Resolved {
                self.result[i] = first;
                self.state[i] = State::Resolved;
            }
            return self.result[i];
        }
        if self.cycle[old] != i {
            // Part of a cycle led by another decision: report the guess-based answer upwards.
            self.cycle.push(i);
            self.result[i] = first;
            return first;
        }
        // `i` heads a cycle: try the other guess.
        for &d in &self.cycle[old..] {
            self.state[d] = State::Unresolved;
        }
        self.cycle.truncate(old);
        self.result[i] = true;
        self.state[i] = State::Guessing;
        let second = self.decide(i);
        if first == second {
            // One answer whatever the guess.
            for &d in &self.cycle[old..] {
                self.state[d] = State::Unresolved;
            }
            self.cycle.truncate(old);
            self.result[i] = first;
            self.state[i] = State::Resolved;
            return first;
        }
        // No answer or two: the backup rule.
        let members: Vec<usize> = self.cycle.drain(old..).chain(std::iter::once(i)).collect();
        self.backup_rule(&members);
        self.resolve(i)
    }

    /// DATC 5.B.9: a cycle of moves only is circular movement, and all its moves succeed; a cycle
    /// through a convoy is a paradox, and the Szykman rule makes its convoyed moves fail.
    fn backup_rule(&mut self, members: &[usize]) {
        let convoy_involved = members
            .iter()
            .any(|&d| matches!(self.items[d].act, Act::Convoy { .. }) || self.route[d] == Route::Convoy);
        if convoy_involved {
            for &d in members {
                if let Act::Convoy { from, to } = self.items[d].act {
                    for m in self.items_at(from).collect::<Vec<_>>() {
                        if self.move_to(m) == Some(to) && self.route[m] == Route::Convoy {
                            self.paradox[m] = true;
                        }
                    }
                }
                if self.route[d] == Route::Convoy {
                    self.paradox[d] = true;
                }
            }
            for &d in members {
                self.state[d] = State::Unresolved;
            }
        } else {
            for &d in members {
                if self.is_move(d) {
                    self.result[d] = true;
                    self.state[d] = State::Resolved;
                } else {
                    self.state[d] = State::Unresolved;
                }
            }
        }
    }

    /// The decision of item `i`, reading the others through `resolve`.
    fn decide(&mut self, i: usize) -> bool {
        match self.items[i].act {
            Act::Move { .. } => self.move_succeeds(i),
            Act::SupportHold { .. } | Act::SupportMove { .. } => {
                self.matched[i] && !self.support_cut(i)
            }
            Act::Hold | Act::Convoy { .. } => !self.dislodged(self.items[i].at),
        }
    }

    /// Whether a move's route holds.
    fn path(&mut self, m: usize) -> bool {
        match self.route[m] {
            Route::Direct => true,
            Route::NotMove | Route::NoConvoy => false,
            Route::Convoy => {
                if self.paradox[m] {
                    return false;
                }
                let (from, to) = (self.items[m].at, self.move_to(m).unwrap_or(self.items[m].at));
                let convoys: Vec<usize> = self.convoys_for(from, to).collect();
                let mut ok = Vec::with_capacity(convoys.len());
                for c in convoys {
                    if self.resolve(c) {
                        ok.push(c);
                    }
                }
                self.convoy_chain(from, to, |c| ok.contains(&c))
            }
        }
    }

    fn dislodged(&mut self, p: ProvinceId) -> bool {
        let movers: Vec<usize> = self.moves_into(p).collect();
        let mut any = false;
        for m in movers {
            any |= self.resolve(m);
        }
        any
    }

    /// The strength of the supports of the move `from`-`to`, leaving out `except`'s supports.
    fn move_support(&mut self, from: ProvinceId, to: ProvinceId, except: Option<PowerId>) -> u32 {
        let supports: Vec<usize> = self.supports_of_move(from, to).collect();
        let mut total = 0;
        for s in supports {
            if Some(self.items[s].power) != except && self.resolve(s) {
                total += self.weight(s, to);
            }
        }
        total
    }

    /// How strongly the space `p` is held against a move into it.
    fn hold_strength(&mut self, p: ProvinceId) -> u32 {
        let here: Vec<usize> = self.items_at(p).collect();
        let mut total = 0;
        let mut staying = false;
        for j in here {
            if self.is_move(j) {
                if !self.resolve(j) {
                    total += self.weight(j, p);
                }
            } else {
                staying = true;
                total += self.weight(j, p);
            }
        }
        if staying {
            let supports: Vec<usize> = self.supports_of_hold(p).collect();
            for s in supports {
                if self.resolve(s) {
                    total += self.weight(s, p);
                }
            }
        }
        total
    }

    fn attack_strength(&mut self, m: usize) -> u32 {
        if !self.path(m) {
            return 0;
        }
        let (from, power) = (self.items[m].at, self.items[m].power);
        let Some(to) = self.move_to(m) else { return 0 };
        let here: Vec<usize> = self.items_at(to).collect();
        let mut vacated = true;
        let mut occupant = None;
        for &j in &here {
            occupant = Some(self.items[j].power);
            let leaves = self.is_move(j) && self.h2h[m] != Some(j) && self.resolve(j);
            vacated &= leaves;
        }
        let base = self.weight(m, to);
        match occupant {
            Some(owner) if !vacated => {
                if owner == power {
                    0
                } else {
                    base + self.move_support(from, to, Some(owner))
                }
            }
            _ => base + self.move_support(from, to, None),
        }
    }

    fn defend_strength(&mut self, m: usize) -> u32 {
        let from = self.items[m].at;
        let to = self.move_to(m).unwrap_or(from);
        self.weight(m, to) + self.move_support(from, to, None)
    }

    fn prevent_strength(&mut self, m: usize) -> u32 {
        if !self.path(m) {
            return 0;
        }
        if let Some(n) = self.h2h[m] {
            if self.resolve(n) {
                return 0;
            }
        }
        self.defend_strength(m)
    }

    fn move_succeeds(&mut self, m: usize) -> bool {
        let attack = self.attack_strength(m);
        if attack == 0 {
            return false;
        }
        let Some(to) = self.move_to(m) else { return false };
        let held = match self.h2h[m] {
            Some(n) => {
                let others_stay = self.items_at(to).any(|j| j != n);
                let defend = self.defend_strength(n);
                if others_stay {
                    defend.max(self.hold_strength(to))
                } else {
                    defend
                }
            }
            None => self.hold_strength(to),
        };
        if attack <= held {
            return false;
        }
        let rivals: Vec<usize> = self.moves_into(to).filter(|&o| o != m).collect();
        for o in rivals {
            if attack <= self.prevent_strength(o) {
                return false;
            }
        }
        true
    }

    /// Whether support item `s` is cut: attacked by another power from anywhere but the space the
    /// support goes into, or dislodged.
    fn support_cut(&mut self, s: usize) -> bool {
        let it = self.items[s];
        let into = match it.act {
            Act::SupportHold { target } => target,
            Act::SupportMove { to, .. } => to,
            _ => return false,
        };
        let attackers: Vec<usize> = self.moves_into(it.at).collect();
        for &m in &attackers {
            let am = self.items[m];
            if am.power == it.power || am.at == into {
                continue;
            }
            if self.path(m) {
                return true;
            }
        }
        // An attack from the supported space still cuts when it dislodges the supporter.
        for &m in &attackers {
            if self.items[m].at == into && self.resolve(m) {
                return true;
            }
        }
        false
    }

    // ----- after the decisions -----

    /// The outcome of an order, given the item it became (`None`: it named no unit).
    fn outcome_of(&mut self, item: Option<usize>) -> Outcome {
        let Some(i) = item else {
            return Outcome::Void("no unit to carry it out".to_string());
        };
        let at = self.items[i].at;
        let dislodger = |r: &mut Self| r.moves_into(at).find(|&m| r.result[m]);
        match self.items[i].act {
            Act::Move { .. } => {
                if self.result[i] {
                    Outcome::Succeeds
                } else {
                    Outcome::Fails(self.why_move_failed(i))
                }
            }
            Act::SupportHold { .. } | Act::SupportMove { .. } => {
                if !self.matched[i] {
                    return Outcome::Fails(Reason::NotMatched);
                }
                if let Some(m) = dislodger(self) {
                    return Outcome::Fails(Reason::Dislodged(self.items[m].at));
                }
                if self.result[i] {
                    return Outcome::Succeeds;
                }
                let by = self
                    .moves_into(at)
                    .find(|&m| self.items[m].power != self.items[i].power)
                    .map_or(at, |m| self.items[m].at);
                Outcome::Fails(Reason::Cut(by))
            }
            Act::Hold | Act::Convoy { .. } => {
                if let Some(m) = dislodger(self) {
                    Outcome::Fails(Reason::Dislodged(self.items[m].at))
                } else if !self.matched[i] {
                    Outcome::Fails(Reason::NotMatched)
                } else {
                    Outcome::Succeeds
                }
            }
        }
    }

    fn why_move_failed(&mut self, m: usize) -> Reason {
        let route = self.route[m];
        match route {
            Route::NoConvoy => return Reason::NoConvoy,
            Route::Convoy if self.paradox[m] => return Reason::ConvoyParadox,
            Route::Convoy if !self.path(m) => return Reason::ConvoyDisrupted,
            _ => {}
        }
        if let Some(n) = self.h2h[m] {
            if self.result[n] {
                return Reason::BeatenHeadToHead(self.items[n].at);
            }
        }
        let Some(to) = self.move_to(m) else {
            return Reason::Bounced(Vec::new());
        };
        let attack = self.attack_strength(m);
        let mut with = Vec::new();
        if self.items_at(to).next().is_some() && attack <= self.hold_strength(to) {
            with.push(to);
        }
        let rivals: Vec<usize> = self.moves_into(to).filter(|&o| o != m).collect();
        for o in rivals {
            if attack <= self.prevent_strength(o) && !with.contains(&self.items[o].at) {
                with.push(self.items[o].at);
            }
        }
        Reason::Bounced(with)
    }

    fn next_position(&mut self, before: &Position) -> Position {
        let mut next = before.clone();
        next.dislodged.clear();
        next.standoffs = ProvinceSet::EMPTY;
        for slot in next.units.iter_mut() {
            *slot = None;
        }
        let mut arriving: Vec<(ProvinceId, Force)> = Vec::new();
        for i in 0..self.items.len() {
            let it = self.items[i];
            let moved = self.is_move(i) && self.result[i];
            if moved {
                if let Act::Move { to, .. } = it.act {
                    arriving.push((
                        to.province,
                        Force {
                            power: it.power,
                            armies: it.armies,
                            fleets: it.fleets,
                            coast: to.coast,
                        },
                    ));
                }
                continue;
            }
            let coast = before.force(it.at).and_then(|f| f.coast);
            let slot = &mut next.units[it.at.index()];
            let f = slot.get_or_insert(Force {
                power: it.power,
                armies: 0,
                fleets: 0,
                coast,
            });
            f.armies += it.armies;
            f.fleets += it.fleets;
        }
        // Forces still in a space that a move entered are dislodged.
        for (p, force) in arriving.iter().copied() {
            if let Some(stayed) = next.units[p.index()].take() {
                let attacker = self
                    .moves_into(p)
                    .find(|&m| self.result[m])
                    .map(|m| (self.items[m].at, self.route[m] == Route::Convoy));
                next.dislodged.push(Dislodged {
                    province: p,
                    force: stayed,
                    attacker_from: attacker.map(|a| a.0),
                    by_convoy: attacker.is_some_and(|a| a.1),
                });
            }
            next.units[p.index()] = Some(force);
        }
        // A space left empty after a stand-off takes no retreat. Only spaces some move went
        // into can have one.
        let mut targets = ProvinceSet::EMPTY;
        for i in 0..self.items.len() {
            if let Some(to) = self.move_to(i) {
                targets.insert(to);
            }
        }
        for p in targets.iter() {
            if next.units[p.index()].is_some() {
                continue;
            }
            let movers: Vec<usize> = self.moves_into(p).collect();
            if movers.iter().any(|&m| self.result[m]) {
                continue;
            }
            let mut contested = false;
            for m in movers {
                contested |= self.prevent_strength(m) > 0;
            }
            if contested {
                next.standoffs.insert(p);
            }
        }
        next
    }
}
