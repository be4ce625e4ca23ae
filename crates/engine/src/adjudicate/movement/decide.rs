//! The decisions: the dependency graph and its order, `resolve` (Kruijswijk's guess-and-check and
//! the DATC 5.B.9 backup rule), `decide`, and what each decision reads: paths, denied passages,
//! strengths, merges, embarkations and support cutting.

use super::{Act, Filed, Group, Resolver, Route, State};
use crate::variant::{PowerId, ProvinceId, ProvinceSet, SpaceKind};
use petgraph::algo::TarjanScc;
use petgraph::graph::{DiGraph, NodeIndex};

impl<'a> Resolver<'a> {
    pub(super) fn resolve_all(&mut self) {
        // Most phases have no cycle of decisions: each decision, asked for in turn, reads only
        // decisions that can be decided before it, and the answers are the same in any order.
        // Only when some decision's evaluation comes back to itself (a guess is read) are the
        // answers thrown away and the phase decided again in the graph's order, cycles whole.
        for i in 0..self.d.len() {
            self.resolve(i);
        }
        if !self.cyclic {
            self.file_landings();
            return;
        }
        for d in &mut self.d {
            d.state = State::Unresolved;
            d.paradox = false;
        }
        self.cycle.clear();
        let n = self.d.len();
        let mut graph: DiGraph<(), ()> = DiGraph::with_capacity(n, n * 4);
        for _ in 0..n {
            graph.add_node(());
        }
        for i in 0..n {
            self.dependencies(i, &mut |j| {
                if j != i {
                    graph.add_edge(NodeIndex::new(i), NodeIndex::new(j), ());
                }
            });
        }
        // Tarjan gives the components in reverse topological order: dependencies first.
        TarjanScc::new().run(&graph, |component| {
            for node in component {
                self.resolve(node.index());
            }
        });
        self.file_landings();
    }

    fn file_landings(&mut self) {
        // Each landing is filed under the carrier that carried it, for what follows (R3.3).
        for g in 0..self.alike.len() {
            let members = self.alike[g].clone();
            let carriers: Vec<Option<usize>> =
                members.iter().map(|&i| self.carrier_of(i)).collect();
            for (i, c) in members.into_iter().zip(carriers) {
                self.items[i].carrier = c;
            }
        }
    }

    /// The carrier whose move brings landing `i`'s armies into its sea (R3.3). Landings written
    /// alike share the carriers matched to them: those that arrive go first, in board order, to
    /// the landings in the order written (nothing else tells them apart), so exactly the armies
    /// that arrive land, whichever carrier's move is written first.
    pub(super) fn carrier_of(&mut self, i: usize) -> Option<usize> {
        let own = self.items[i].carrier?;
        let Some(g) = self.alike.iter().position(|g| g.contains(&i)) else {
            return Some(own);
        };
        let members: Vec<usize> = self.alike[g]
            .iter()
            .copied()
            .filter(|&j| self.is_move(j) && self.d[j].void.is_none())
            .collect();
        let Some(rank) = members.iter().position(|&j| j == i) else {
            return Some(own);
        };
        let mut carriers: Vec<(bool, usize, usize)> = Vec::with_capacity(members.len());
        for j in members {
            if let Some(c) = self.items[j].carrier {
                let arrives = self.arrives(c);
                carriers.push((!arrives, self.items[c].at.index(), c));
            }
        }
        carriers.sort_unstable();
        carriers.get(rank).map(|&(_, _, c)| c)
    }

    /// Whether carrier `c` brings its armies into the sea: its move (not found void) succeeds.
    fn arrives(&mut self, c: usize) -> bool {
        self.is_move(c) && self.resolve(c)
    }

    /// Whether landing `m`'s armies are in its sea to land: not when they come aboard a carrier
    /// that doesn't arrive; such a landing fails and contests nothing (R3.3).
    pub(super) fn aboard(&mut self, m: usize) -> bool {
        // Most moves come from no carrier: no call to find none (a path is asked for often).
        if self.items[m].carrier.is_none() {
            return true;
        }
        match self.carrier_of(m) {
            Some(c) => self.arrives(c),
            None => true,
        }
    }

    /// The decisions a move's route reads: its convoys, or the fleets that may deny its passage.
    fn route_dependencies(&self, m: usize, edge: &mut impl FnMut(usize)) {
        let (from, to) = (self.items[m].at, self.move_to(m));
        match (self.d[m].route, to) {
            (Route::Convoy, Some(to)) => self.convoys_for(from, to).for_each(&mut *edge),
            (Route::Passage(sea), _) => self
                .items_at(sea)
                .filter(|&d| matches!(self.items[d].act, Act::Deny { .. }))
                .for_each(&mut *edge),
            _ => {}
        }
        if self.items[m].carrier.is_some() {
            // Alike landings share their carriers (`carrier_of`).
            match self.alike.iter().find(|g| g.contains(&m)) {
                Some(g) => g
                    .iter()
                    .filter_map(|&j| self.items[j].carrier)
                    .for_each(&mut *edge),
                None => self.items[m].carrier.into_iter().for_each(&mut *edge),
            }
        }
    }

    /// The decisions decision `i` may read, each given to `edge`.
    fn dependencies(&self, i: usize, edge: &mut impl FnMut(usize)) {
        let (space, group) = match self.items.get(i) {
            Some(it) => match it.act {
                Act::Move { to, .. } => (to.province, it.group),
                Act::Embark { sea } => {
                    // An embarking army dislodged where it stands does not board (R3.2).
                    for m in self.moves_into(it.at) {
                        edge(m);
                    }
                    // Nor where armies whose landing failed keep the room (R3.3).
                    for m in self.moves_into(sea) {
                        self.standing_at(self.items[m].at)
                            .filter(|&j| self.items[j].lands || self.leaves(j))
                            .for_each(&mut *edge);
                    }
                    (sea, it.group)
                }
                _ => (it.at, it.group),
            },
            // A merge's own decision reads what its participants' moves would.
            None => (self.groups[i - self.items.len()].target, None),
        };
        for m in self.moves_into(space) {
            edge(m);
            self.route_dependencies(m, edge);
            self.supports_of_move(self.items[m].at, space)
                .for_each(&mut *edge);
        }
        for j in self.items_at(space) {
            edge(j);
            if let Some(c) = self.move_to(j) {
                self.supports_of_move(space, c).for_each(&mut *edge);
            }
        }
        self.index.iter(Filed::Supports, space).for_each(&mut *edge);
        if let Some(g) = group {
            edge(self.group_node(g));
        }
    }

    fn supports_of_move(
        &self,
        from: ProvinceId,
        to: ProvinceId,
    ) -> impl Iterator<Item = usize> + '_ {
        self.index.iter(Filed::Supports, to).filter(move |&s| {
            self.d[s].matched
                && matches!(self.items[s].act, Act::SupportMove { from: f, .. } if f == from)
        })
    }

    /// Kruijswijk's resolver: the decision for item `i`, guessing around cycles.
    ///
    /// A decision heads its cycle only when every guess its answer rests on was made inside its
    /// own evaluation. Kruijswijk's test (the first decision found guessing is `i` itself) let a
    /// decision head a cycle that also ran through a decision guessed before it, further up: it
    /// then settled with that outer guess frozen, and which decision came first followed the order
    /// of writing, so Pandin's paradox (DATC 6.F.16) came out differently when the orders were
    /// written in another order (RULINGS section 0). Now only the outermost decision of the cycle
    /// tries both guesses, over the whole cycle, whichever decision is reached first.
    fn resolve(&mut self, i: usize) -> bool {
        match self.d[i].state {
            State::Resolved => return self.d[i].result,
            State::Guessing(_) => {
                self.cyclic = true;
                // Recorded at every read, not once: each decision reading it, however deep,
                // must see that its answer rests on this guess.
                self.cycle.push(i);
                return self.d[i].result;
            }
            State::Unresolved => {}
        }
        let old = self.cycle.len();
        let first = self.guess(i, false);
        if self.cycle.len() == old {
            if self.d[i].state != State::Resolved {
                self.d[i].result = first;
                self.d[i].state = State::Resolved;
            }
            return self.d[i].result;
        }
        if !self.heads_cycle(i, old) {
            // Part of a cycle led by an earlier decision: report the guess-based answer upwards.
            self.cycle.push(i);
            self.d[i].result = first;
            return first;
        }
        // `i` heads a cycle: try the other guess.
        for &d in &self.cycle[old..] {
            self.d[d].state = State::Unresolved;
        }
        self.cycle.truncate(old);
        let second = self.guess(i, true);
        if first == second {
            // One answer whatever the guess.
            for &d in &self.cycle[old..] {
                self.d[d].state = State::Unresolved;
            }
            self.cycle.truncate(old);
            self.d[i].result = first;
            self.d[i].state = State::Resolved;
            return first;
        }
        // No answer or two: the backup rule.
        let members: Vec<usize> = self.cycle.drain(old..).chain(std::iter::once(i)).collect();
        self.backup_rule(&members);
        self.resolve(i)
    }

    /// Guesses decision `i` and decides it on that guess.
    fn guess(&mut self, i: usize, guess: bool) -> bool {
        self.d[i].result = guess;
        self.d[i].state = State::Guessing(self.guesses);
        self.guesses += 1;
        self.decide(i)
    }

    /// Whether `i` heads the cycle its evaluation ran into (the guesses read since `old`): none
    /// of them was guessed before `i`.
    fn heads_cycle(&self, i: usize, old: usize) -> bool {
        let State::Guessing(mine) = self.d[i].state else {
            return false;
        };
        self.cycle[old..]
            .iter()
            .all(|&d| !matches!(self.d[d].state, State::Guessing(n) if n < mine))
    }

    /// DATC 5.B.9: a cycle of moves only is circular movement, and all its moves succeed; a cycle
    /// through a convoy order is a paradox, and the Szykman rule makes its convoyed moves fail.
    /// A cycle through a passage denial is the same paradox (R6.4): the crossings of that
    /// passage fail and cut nothing.
    fn backup_rule(&mut self, members: &[usize]) {
        let act = |d: usize| self.items.get(d).map(|it| it.act);
        let paradox = members
            .iter()
            .any(|&d| matches!(act(d), Some(Act::Convoy { .. } | Act::Deny { .. })));
        if paradox {
            for &d in members {
                match act(d) {
                    Some(Act::Convoy { from, to }) => {
                        for m in self.items_at(from).collect::<Vec<_>>() {
                            if self.move_to(m) == Some(to) && self.d[m].route == Route::Convoy {
                                self.d[m].paradox = true;
                            }
                        }
                    }
                    Some(Act::Deny { a, b }) => {
                        let (sea, denier) = (self.items[d].at, self.items[d].power);
                        for m in 0..self.items.len() {
                            if self.crosses(m, sea, a, b, denier) {
                                self.d[m].paradox = true;
                            }
                        }
                    }
                    _ => {}
                }
            }
            for &d in members {
                self.d[d].state = State::Unresolved;
            }
        } else {
            for &d in members {
                // A merge's decision moves with its participants.
                if d >= self.items.len() || self.is_move(d) {
                    self.d[d].result = true;
                    self.d[d].state = State::Resolved;
                } else {
                    self.d[d].state = State::Unresolved;
                }
            }
        }
    }

    /// The decision of item `i`, reading the others through `resolve`.
    fn decide(&mut self, i: usize) -> bool {
        let Some(item) = self.items.get(i) else {
            return self.merge_succeeds(i - self.items.len());
        };
        match item.act {
            Act::Move { .. } => match item.group {
                // Each participant goes with the merge when its own path holds (R2.4, R2.6).
                Some(g) => self.path(i) && self.resolve(self.group_node(g)),
                // A landing whose carrier doesn't arrive has no path (`aboard`).
                None => self.move_succeeds(i),
            },
            Act::SupportHold { .. } | Act::SupportMove { .. } | Act::SupportMerge { .. } => {
                self.d[i].matched && !self.support_cut(i) && !self.support_denied(i)
            }
            Act::Embark { .. } => self.embark_succeeds(i),
            Act::Hold | Act::Convoy { .. } | Act::Blockade { .. } | Act::Deny { .. } => {
                !self.dislodged(self.items[i].at)
            }
        }
    }

    /// Whether a move's route holds.
    ///
    /// Asked for at every strength: the common answers (straight over land, no route) are
    /// inlined, the rest is in [`Resolver::path_by_sea`].
    #[inline]
    pub(super) fn path(&mut self, m: usize) -> bool {
        match self.d[m].route {
            Route::Direct if self.items[m].carrier.is_none() => true,
            Route::NotMove | Route::NoConvoy => false,
            _ => self.path_by_sea(m),
        }
    }

    /// [`Resolver::path`] for a move aboard a carrier, across a passage or by convoy.
    #[inline(never)]
    fn path_by_sea(&mut self, m: usize) -> bool {
        if !self.aboard(m) {
            return false;
        }
        match self.d[m].route {
            Route::Direct => true,
            Route::NotMove | Route::NoConvoy => false,
            Route::Passage(_) if self.d[m].paradox => false,
            Route::Passage(sea) => {
                let (from, to) = (
                    self.items[m].at,
                    self.move_to(m).unwrap_or(self.items[m].at),
                );
                !self.denied(sea, from, to, self.items[m].power)
            }
            Route::Convoy => {
                if self.d[m].paradox {
                    return false;
                }
                let (from, to) = (
                    self.items[m].at,
                    self.move_to(m).unwrap_or(self.items[m].at),
                );
                let mut seas = ProvinceSet::EMPTY;
                for k in 0..self.convoys.len() {
                    let c = self.convoys[k];
                    let convoys = self.items[c].act == Act::Convoy { from, to };
                    if convoys && self.d[c].matched && self.resolve(c) {
                        seas.insert(self.items[c].at);
                    }
                }
                // Resolving the convoys may have run into the paradox rule for this very move.
                !self.d[m].paradox && self.chain_over(from, to, seas)
            }
        }
    }

    /// Whether the passage `from`-`to` across `sea` is denied to `power`: a fleet of a power
    /// under another command (R6.2: a major and the minors it controls are one command) orders
    /// the denial and is not dislodged.
    fn denied(
        &mut self,
        sea: ProvinceId,
        from: ProvinceId,
        to: ProvinceId,
        power: PowerId,
    ) -> bool {
        let deniers: Vec<usize> = self
            .items_at(sea)
            .filter(|&d| match self.items[d].act {
                Act::Deny { a, b } => {
                    ((a == from && b == to) || (a == to && b == from))
                        && self.commander(self.items[d].power) != self.commander(power)
                }
                _ => false,
            })
            .collect();
        let mut any = false;
        for d in deniers {
            any |= self.resolve(d);
        }
        any
    }

    /// Whether item `m` crosses the passage `a`-`b` over `sea` that a fleet of `denier` denies: a
    /// move by that passage, or a support given across it, of a unit under another command.
    fn crosses(
        &self,
        m: usize,
        sea: ProvinceId,
        a: ProvinceId,
        b: ProvinceId,
        denier: PowerId,
    ) -> bool {
        let it = self.items[m];
        let to = match it.act {
            Act::Move { to, .. } if self.d[m].route == Route::Passage(sea) => to.province,
            Act::SupportHold { target } | Act::SupportMerge { target } => target,
            Act::SupportMove { to, .. } => to,
            _ => return false,
        };
        let across = (it.at == a && to == b) || (it.at == b && to == a);
        across && it.fleets == 0 && self.commander(it.power) != self.commander(denier)
    }

    /// Who commands `power`'s units: its controller for a controlled minor, else itself (R7.9).
    fn commander(&self, power: PowerId) -> PowerId {
        self.position.ledgers.controller(power).unwrap_or(power)
    }

    /// Whether a support given across a direct passage is denied: the denial blocks every
    /// crossing, supports included (R6.1, R6.2).
    fn support_denied(&mut self, s: usize) -> bool {
        let it = self.items[s];
        let into = match it.act {
            Act::SupportHold { target } | Act::SupportMerge { target } => target,
            Act::SupportMove { to, .. } => to,
            _ => return false,
        };
        if it.fleets > 0 || self.variant.army_adjacent(it.at, into) || !self.variant.rules.passages
        {
            return false;
        }
        if self.d[s].paradox {
            return true;
        }
        match self.variant.passage(it.at, into) {
            Some(p) => {
                let sea = p.sea;
                self.denied(sea, it.at, into, it.power)
            }
            None => false,
        }
    }

    /// Whether the force staying in `p` is dislodged: a move of another power into it succeeds.
    fn dislodged(&mut self, p: ProvinceId) -> bool {
        let owner = self.position.force(p).map(|f| f.power);
        let mut any = false;
        let mut filed = self.index.first(Filed::Into, p);
        while let Some(m) = filed {
            filed = self.index.after(Filed::Into, m);
            if Some(self.items[m].power) != owner {
                any |= self.resolve(m);
            }
        }
        any
    }

    /// The strength of the supports of the move `from`-`to`, leaving out `except`'s supports and
    /// those given from `not_from` (a blockaded centre, R5.3). Most moves have none: that answer
    /// is inlined.
    #[inline]
    pub(super) fn move_support(
        &mut self,
        from: ProvinceId,
        to: ProvinceId,
        except: Option<PowerId>,
        not_from: Option<ProvinceId>,
    ) -> u32 {
        match self.index.first(Filed::Supports, to) {
            None => 0,
            Some(_) => self.sum_move_support(from, to, except, not_from),
        }
    }

    #[inline(never)]
    fn sum_move_support(
        &mut self,
        from: ProvinceId,
        to: ProvinceId,
        except: Option<PowerId>,
        not_from: Option<ProvinceId>,
    ) -> u32 {
        let mut total = 0;
        let mut filed = self.index.first(Filed::Supports, to);
        while let Some(s) = filed {
            filed = self.index.after(Filed::Supports, s);
            let it = self.items[s];
            let matches = matches!(it.act, Act::SupportMove { from: f, .. } if f == from);
            let counts = Some(it.power) != except && Some(it.at) != not_from;
            if matches && counts && self.d[s].matched && self.resolve(s) {
                total += self.weight(s, to);
            }
        }
        total
    }

    /// How strongly the space `p` is held against a move into it.
    pub(super) fn hold_strength(&mut self, p: ProvinceId) -> u32 {
        let mut total = 0;
        let mut staying = false;
        let mut holder = None;
        let mut filed = self.index.first(Filed::At, p);
        while let Some(j) = filed {
            filed = self.index.after(Filed::At, j);
            if !self.holds_ground(j) {
                continue;
            }
            if self.leaves(j) {
                if !self.resolve(j) {
                    total += self.weight(j, p);
                    holder = Some(self.items[j].power);
                }
            } else {
                staying = true;
                holder = Some(self.items[j].power);
                total += self.weight(j, p);
            }
        }
        if staying {
            let mut filed = self.index.first(Filed::Supports, p);
            while let Some(s) = filed {
                filed = self.index.after(Filed::Supports, s);
                if self.d[s].matched
                    && self.items[s].act == (Act::SupportHold { target: p })
                    && self.resolve(s)
                {
                    total += self.weight(s, p);
                }
            }
        }
        // A merge into a space its power still holds defends it with all its strength (R2.3).
        if let Some(power) = holder {
            for g in 0..self.groups.len() {
                if self.groups[g].target == p && self.groups[g].power == power {
                    total += self.merge_strength(g, None, None);
                }
            }
        }
        total
    }

    /// A merge's strength (R2.2): its moving participants that have a path, plus (in the first
    /// phase) the supports of their moves and the `S MERGE` supports, leaving out `except`'s and
    /// any participant or support from `not_from` (a blockaded centre, R5.3).
    pub(super) fn merge_strength(
        &mut self,
        g: usize,
        except: Option<PowerId>,
        not_from: Option<ProvinceId>,
    ) -> u32 {
        let target = self.groups[g].target;
        let mut total = 0;
        let mut filed = self.index.first(Filed::Into, target);
        while let Some(m) = filed {
            filed = self.index.after(Filed::Into, m);
            let from = self.items[m].at;
            if self.items[m].group == Some(g) && Some(from) != not_from && self.path(m) {
                total += self.weight(m, target);
                if !self.second {
                    total += self.move_support(from, target, except, not_from);
                }
            }
        }
        if !self.second {
            let mut filed = self.index.first(Filed::Supports, target);
            while let Some(s) = filed {
                filed = self.index.after(Filed::Supports, s);
                let it = self.items[s];
                let merge = it.act == Act::SupportMerge { target };
                let counts = Some(it.power) != except && Some(it.at) != not_from;
                if merge && counts && self.d[s].matched && self.resolve(s) {
                    total += self.weight(s, target);
                }
            }
        }
        total
    }

    /// Whether a unit of the merge's power stays in its target (there and not leaving, or failing
    /// to leave): then the merge reinforces it, and defends the space with its strength (R2.3).
    fn own_remains(&mut self, g: usize) -> bool {
        let Group { power, target } = self.groups[g];
        let mut filed = self.index.first(Filed::At, target);
        while let Some(j) = filed {
            filed = self.index.after(Filed::At, j);
            let it = self.items[j];
            if it.carrier.is_none() && it.power == power && (!self.leaves(j) || !self.resolve(j)) {
                return true;
            }
        }
        false
    }

    /// Whether the move `n`, out of merge `g`'s target, meets a participant head to head (R2.7);
    /// a denied passage is no battle (R6.2).
    fn meets_merge(&mut self, g: usize, n: usize) -> bool {
        let Some(m) = self.d[n].h2h else { return false };
        self.items[m].group == Some(g) && self.path(m) && self.path(n)
    }

    /// The move out of merge `g`'s target that beat it head to head (R2.7), if any.
    pub(super) fn merge_beaten_by(&mut self, g: usize) -> Option<usize> {
        let target = self.groups[g].target;
        let mut filed = self.index.first(Filed::Into, target);
        while let Some(m) = filed {
            filed = self.index.after(Filed::Into, m);
            let Some(n) = self.d[m].h2h else { continue };
            if self.items[m].group == Some(g) && self.path(m) && self.path(n) && self.resolve(n) {
                return Some(n);
            }
        }
        None
    }

    /// Whether a merge goes in: reinforcing its own force, when no other power takes the space;
    /// into an empty, vacated or foreign space, as one attack of its whole strength, which meets
    /// a move out of the target into a participant's space head to head (R2.3, R2.7).
    fn merge_succeeds(&mut self, g: usize) -> bool {
        let target = self.groups[g].target;
        if self.own_remains(g) {
            return !self.dislodged(target);
        }
        let mut vacated = true;
        let mut occupant = None;
        // The strongest move out of the target met head to head, and whether anything else is there.
        let mut defend = None;
        let mut others = false;
        let mut filed = self.index.first(Filed::At, target);
        while let Some(j) = filed {
            filed = self.index.after(Filed::At, j);
            if !self.holds_ground(j) {
                continue;
            }
            occupant = Some(self.items[j].power);
            if self.meets_merge(g, j) {
                vacated = false;
                let d = self.defend_strength(j);
                defend = Some(defend.map_or(d, |x: u32| x.max(d)));
            } else {
                others = true;
                vacated &= self.leaves(j) && self.resolve(j);
            }
        }
        let attack = match occupant {
            Some(owner) if !vacated => {
                let attack = self.merge_strength(g, Some(owner), None);
                let held = match defend {
                    Some(d) if others => d.max(self.hold_strength(target)),
                    Some(d) => d,
                    None => self.hold_strength(target),
                };
                if attack <= held {
                    return false;
                }
                attack
            }
            _ => self.merge_strength(g, None, None),
        };
        if attack == 0 {
            return false;
        }
        let mut filed = self.index.first(Filed::Into, target);
        while let Some(o) = filed {
            filed = self.index.after(Filed::Into, o);
            if self.items[o].group != Some(g) && attack <= self.prevent_strength(o) {
                return false;
            }
        }
        true
    }

    pub(super) fn attack_strength(&mut self, m: usize) -> u32 {
        if !self.path(m) {
            return 0;
        }
        let (from, power) = (self.items[m].at, self.items[m].power);
        let Some(to) = self.move_to(m) else { return 0 };
        let mut vacated = true;
        let mut occupant = None;
        let mut filed = self.index.first(Filed::At, to);
        while let Some(j) = filed {
            filed = self.index.after(Filed::At, j);
            if !self.holds_ground(j) {
                continue;
            }
            occupant = Some(self.items[j].power);
            vacated &= self.leaves(j) && self.d[m].h2h != Some(j) && self.resolve(j);
        }
        let base = self.weight(m, to);
        match occupant {
            Some(owner) if !vacated => {
                if owner == power {
                    0
                } else {
                    base + self.move_support(from, to, Some(owner), None)
                }
            }
            _ => base + self.move_support(from, to, None, None),
        }
    }

    /// A move's strength in a head-to-head battle: a merge's participant has the merge's (R2.7).
    fn defend_strength(&mut self, m: usize) -> u32 {
        if let Some(g) = self.items[m].group {
            return self.merge_strength(g, None, None);
        }
        let from = self.items[m].at;
        let to = self.move_to(m).unwrap_or(from);
        self.weight(m, to) + self.move_support(from, to, None, None)
    }

    pub(super) fn prevent_strength(&mut self, m: usize) -> u32 {
        if !self.path(m) {
            return 0;
        }
        if let Some(g) = self.items[m].group {
            // Where its power stays, the merge defends the space (hold strength) instead; a merge
            // beaten head to head prevents nothing (DATC 6.E).
            if self.own_remains(g) || self.merge_beaten_by(g).is_some() {
                return 0;
            }
            return self.merge_strength(g, None, None);
        }
        if let Some(n) = self.d[m].h2h {
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
        let Some(to) = self.move_to(m) else {
            return false;
        };
        let opposite = self.d[m].h2h;
        let h2h = match opposite {
            // A move whose passage is denied is no head-to-head battle (R6.2).
            Some(n) if self.path(n) => Some(n),
            _ => None,
        };
        let held = match h2h {
            Some(n) => {
                let others_stay = self.standing_at(to).any(|j| j != n);
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
        let mut filed = self.index.first(Filed::Into, to);
        while let Some(o) = filed {
            filed = self.index.after(Filed::Into, o);
            if o != m && attack <= self.prevent_strength(o) {
                return false;
            }
        }
        true
    }

    /// Whether an army finds a fleet of its power in the sea, with room for it, once the first
    /// moves are over (R3.2): fleets there that stay and are not dislodged, or that arrive.
    fn embark_succeeds(&mut self, i: usize) -> bool {
        let Act::Embark { sea } = self.items[i].act else {
            return false;
        };
        if self.dislodged(self.items[i].at) {
            return false;
        }
        let power = self.items[i].power;
        let (mut fleets, mut armies) = (0u32, 0u32);
        if !self.dislodged(sea) {
            let here: Vec<usize> = self.standing_at(sea).collect();
            for j in here {
                let it = self.items[j];
                if it.power == power && (!self.leaves(j) || !self.resolve(j)) {
                    fleets += u32::from(it.fleets);
                    armies += u32::from(it.armies);
                }
            }
        }
        let arriving: Vec<usize> = self
            .moves_into(sea)
            .filter(|&m| self.items[m].power == power)
            .collect();
        let mut from_seas: Vec<ProvinceId> = Vec::new();
        for m in arriving {
            if self.resolve(m) {
                fleets += u32::from(self.items[m].fleets);
                armies += u32::from(self.items[m].armies);
                from_seas.push(self.items[m].at);
            }
        }
        // Armies whose landing failed stay aboard and may sail on with these fleets (R3.3): they
        // were aboard first, so they take the room first.
        from_seas.sort();
        from_seas.dedup();
        for from in from_seas {
            armies += self.stranded(from, power);
        }
        // All the armies boarding there at once must fit, or none boards (R1.2).
        let boarding: u32 = self
            .items
            .iter()
            .filter(|e| e.power == power && e.act == Act::Embark { sea })
            .map(|e| u32::from(e.armies))
            .sum();
        fleets > 0 && armies + boarding <= fleets
    }

    /// The armies of `power` whose landing from `sea` failed and that the fleets staying there
    /// have no room for: they sail on with the fleets leaving for other seas (R3.3, R3.4).
    fn stranded(&mut self, sea: ProvinceId, power: PowerId) -> u32 {
        if self.variant.province(sea).kind != SpaceKind::Sea {
            return 0;
        }
        let here: Vec<usize> = self
            .standing_at(sea)
            .filter(|&j| self.items[j].power == power)
            .collect();
        let (mut landing, mut fleets, mut armies) = (0u32, 0u32, 0u32);
        for j in here {
            let it = self.items[j];
            if it.lands {
                if !self.resolve(j) {
                    landing += u32::from(it.armies);
                }
            } else if !self.leaves(j) || !self.resolve(j) {
                fleets += u32::from(it.fleets);
                armies += u32::from(it.armies);
            }
        }
        landing.saturating_sub(fleets.saturating_sub(armies))
    }

    /// Whether support item `s` is cut: attacked by another power from anywhere but the space the
    /// support goes into, or dislodged.
    fn support_cut(&mut self, s: usize) -> bool {
        let it = self.items[s];
        let into = match it.act {
            Act::SupportHold { target } | Act::SupportMerge { target } => target,
            Act::SupportMove { to, .. } => to,
            _ => return false,
        };
        let mut filed = self.index.first(Filed::Into, it.at);
        while let Some(m) = filed {
            filed = self.index.after(Filed::Into, m);
            let am = self.items[m];
            if am.power != it.power && am.at != into && self.path(m) {
                return true;
            }
        }
        // An attack from the supported space still cuts when it dislodges the supporter.
        let mut filed = self.index.first(Filed::Into, it.at);
        while let Some(m) = filed {
            filed = self.index.after(Filed::Into, m);
            let am = self.items[m];
            if am.at == into && am.power != it.power && self.resolve(m) {
                return true;
            }
        }
        false
    }
}
