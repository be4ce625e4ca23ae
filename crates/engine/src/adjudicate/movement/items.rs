//! The items of a phase: reading the orders into [`Item`]s (`Resolver::new` and its helpers,
//! armies aboard carried along with their fleets), and the [`Index`] of items by space. What is
//! settled here comes before any decision: how each move travels, and which supports and convoys
//! match an order.

use super::{Act, Decision, Group, Item, Resolver, Route, State};
use crate::order::{Order, OrderKind};
use crate::outcome::{Refusal, Void};
use crate::position::Position;
use crate::variant::{
    ConvoyIntent, PhaseKind, PowerId, ProvinceId, ProvinceSet, Region, SpaceKind, Unconvoyed,
    Variant,
};

/// Item numbers filed by space, three ways (see [`Filed`]), built once per phase so that
/// look-ups by space don't scan every item: each space's first item, and after each item the next
/// one filed under the same space, in item order. Walked by [`Index::first`] and [`Index::after`],
/// which hold no borrow across a loop that decides. The three filings share one allocation, a
/// space's (or an item's) three entries side by side: one memset per phase fills every head.
pub(super) struct Index {
    /// `data[p * 3 + by]`, the first item filed `by` under space `p`; `data[(spaces + i) * 3 +
    /// by]`, the one after item `i`; [`Index::NONE`] for none.
    data: Vec<u16>,
    spaces: usize,
}

/// How an item is filed in the [`Index`].
#[derive(Clone, Copy)]
pub(super) enum Filed {
    /// By the space it stands in.
    At,
    /// A move, by the space it goes to.
    Into,
    /// A support, by the space it supports into (the supported unit's space, for a hold).
    Supports,
}

impl Index {
    const NONE: u16 = u16::MAX;
    const WAYS: usize = 3;

    /// An index of `items` items over `spaces` spaces with nothing filed yet.
    pub(super) fn new(spaces: usize, items: usize) -> Index {
        Index {
            data: vec![Self::NONE; (spaces + items) * Self::WAYS],
            spaces,
        }
    }

    fn head(p: ProvinceId, by: Filed) -> usize {
        p.index() * Self::WAYS + by as usize
    }

    fn next(&self, i: usize, by: Filed) -> usize {
        (self.spaces + i) * Self::WAYS + by as usize
    }

    /// Files `entries`, (space, item) pairs with each item at most once, `by` a way nothing was
    /// filed yet.
    pub(super) fn file(
        &mut self,
        by: Filed,
        entries: impl DoubleEndedIterator<Item = (ProvinceId, usize)>,
    ) {
        // Filed from the back, so each space's items come out in item order.
        for (p, i) in entries.rev() {
            let (head, next) = (Self::head(p, by), self.next(i, by));
            self.data[next] = self.data[head];
            self.data[head] = i as u16;
        }
    }

    fn item(n: u16) -> Option<usize> {
        (n != Self::NONE).then_some(usize::from(n))
    }

    /// The first item filed `by` under `p`.
    pub(super) fn first(&self, by: Filed, p: ProvinceId) -> Option<usize> {
        Self::item(self.data[Self::head(p, by)])
    }

    /// The item filed `by` after `i` under the same space.
    pub(super) fn after(&self, by: Filed, i: usize) -> Option<usize> {
        Self::item(self.data[self.next(i, by)])
    }

    pub(super) fn iter(
        &self,
        by: Filed,
        p: ProvinceId,
    ) -> impl Iterator<Item = usize> + Clone + '_ {
        std::iter::successors(self.first(by, p), move |&i| self.after(by, i))
    }
}

impl<'a> Resolver<'a> {
    pub(super) fn new(
        variant: &'a Variant,
        position: &'a Position,
        orders: &[Order<Region>],
        powers: &[PowerId],
    ) -> Self {
        let mut items: Vec<Item> = Vec::with_capacity(orders.len() + 4);
        let mut groups: Vec<Group> = Vec::new();
        // Components each force still has unordered, by space.
        let mut left: Vec<(u8, u8)> = position
            .units
            .iter()
            .map(|f| f.map_or((0, 0), |f| (f.armies, f.fleets)))
            .collect();
        let item = |power, at, armies, fleets, act, order| Item {
            power,
            at,
            armies,
            fleets,
            act,
            order,
            also: None,
            boarded: 0,
            group: None,
            lands: false,
            carrier: None,
        };
        let take = |left: &mut Vec<(u8, u8)>, at: ProvinceId, armies: u8, fleets: u8| {
            let l = &mut left[at.index()];
            let got = (armies.min(l.0), fleets.min(l.1));
            l.0 -= got.0;
            l.1 -= got.1;
            got
        };
        let mut disembarks: Vec<(usize, ProvinceId, u8, Region)> = Vec::new();
        let mut landings: Vec<(usize, ProvinceId, u8, Region)> = Vec::new();
        let mut carried: Vec<(usize, ProvinceId, u8, ProvinceId, Region)> = Vec::new();
        for (i, order) in orders.iter().enumerate() {
            let power_at = |p: ProvinceId| position.force(p).map(|f| f.power);
            match &order.kind {
                OrderKind::Merge { units, target, .. } => {
                    for u in units {
                        let at = u.at.province;
                        let Some(power) = power_at(at) else { continue };
                        let (a, f) = take(&mut left, at, u.armies, u.fleets);
                        if a + f == 0 {
                            // Nothing left there to take part (R1.4): no force of no units.
                            continue;
                        }
                        let g = match groups
                            .iter()
                            .position(|g| g.power == power && g.target == target.province)
                        {
                            Some(g) => g,
                            None => {
                                groups.push(Group {
                                    power,
                                    target: target.province,
                                });
                                groups.len() - 1
                            }
                        };
                        let act = if at == target.province {
                            Act::Hold
                        } else {
                            Act::Move {
                                to: *target,
                                via_convoy: false,
                            }
                        };
                        let mut it = item(power, at, a, f, act, Some(i));
                        it.group = Some(g);
                        items.push(it);
                    }
                }
                OrderKind::EmbarkWith {
                    unit, fleet, to, ..
                } => {
                    // The army boards at once and rides on the fleet's first move (R3.2).
                    carried.push((i, fleet.at.province, unit.armies, unit.at.province, *to));
                }
                OrderKind::Disembark { unit, to } => {
                    disembarks.push((i, unit.at.province, unit.armies.max(1), *to));
                }
                kind => {
                    let Some(unit) = kind.unit() else { continue };
                    let at = unit.at.province;
                    let Some(power) = power_at(at) else { continue };
                    let act = match kind {
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
                            coast: to.coast,
                        },
                        OrderKind::SupportMerge { target, .. } => Act::SupportMerge {
                            target: target.province,
                        },
                        OrderKind::Convoy { army, to, .. } => Act::Convoy {
                            from: army.at.province,
                            to: to.province,
                        },
                        OrderKind::Blockade { centre, .. } => Act::Blockade {
                            centre: centre.province,
                        },
                        OrderKind::Deny { from, to, .. } => Act::Deny {
                            a: from.province,
                            b: to.province,
                        },
                        OrderKind::Embark { sea, .. } => Act::Embark { sea: sea.province },
                        _ => Act::Hold,
                    };
                    let (a, f) = take(&mut left, at, unit.armies, unit.fleets);
                    items.push(item(power, at, a, f, act, Some(i)));
                }
            }
        }
        // A landing takes an army aboard that no other order names, else one carried into the
        // sea this phase (R3.3); landings from one sea are matched by destination (then count),
        // and landings written alike (sea, destination and count) get their armies together or
        // not at all: nothing tells them apart but the order of writing, which plays no part.
        disembarks.sort_by_key(|&(_, at, n, to)| (at.index(), to.province.index(), n));
        let alike = |a: &(usize, ProvinceId, u8, Region), b: &(usize, ProvinceId, u8, Region)| {
            (a.1, a.2, a.3.province) == (b.1, b.2, b.3.province)
        };
        let mut from_aboard = vec![false; disembarks.len()];
        for k in 0..disembarks.len() {
            let (i, at, armies, to) = disembarks[k];
            // The first of a group decides for it: from the armies aboard if there are enough
            // for all, else each from a carrier.
            if k == 0 || !alike(&disembarks[k - 1], &disembarks[k]) {
                let group: Vec<usize> = (k..disembarks.len())
                    .take_while(|&j| alike(&disembarks[j], &disembarks[k]))
                    .collect();
                let all = u32::from(armies) * group.len() as u32;
                let enough = u32::from(left[at.index()].0) >= all;
                for j in group {
                    from_aboard[j] = enough;
                }
            }
            if !from_aboard[k] {
                landings.push((i, at, armies, to));
                continue;
            }
            let Some(power) = position.force(at).map(|f| f.power) else {
                continue;
            };
            let (a, _) = take(&mut left, at, armies, 0);
            let act = Act::Move {
                to,
                via_convoy: false,
            };
            let mut it = item(power, at, a, 0, act, Some(i));
            it.lands = true;
            items.push(it);
        }
        let mut void_orders: Vec<(usize, Void)> = Vec::new();
        let mut refused: Vec<(usize, Refusal)> = Vec::new();
        let mut embarked: Vec<(usize, usize, bool)> = Vec::new();
        for &(i, fleet_at, armies, army_at, to) in &carried {
            let Some(force) = position.force(fleet_at) else {
                continue;
            };
            let power = force.power;
            let same = |it: &Item| {
                it.act
                    == Act::Move {
                        to,
                        via_convoy: false,
                    }
            };
            let twice = carried.iter().any(|c| c.1 == fleet_at && c.4 != to);
            if twice {
                // The fleets there given different moves by two embarkations: both are void.
                void_orders.push((i, Void::FleetMovesElsewhere));
                continue;
            }
            // The fleets' own move, when one of their orders gives it; else a fleet no order
            // names; else the fleets' move was given twice, differently: the orders are all void
            // and the army stays ashore (R3.2), whichever is written first.
            let fleets_there = |it: &Item| it.at == fleet_at && it.fleets > 0;
            let fleet_move = items.iter().position(|it| fleets_there(it) && same(it));
            let free = left[fleet_at.index()].1 > 0;
            if fleet_move.is_none() && !free {
                let other: Vec<usize> = (0..items.len())
                    .filter(|&m| {
                        fleets_there(&items[m]) && matches!(items[m].act, Act::Move { .. })
                    })
                    .collect();
                if !other.is_empty() {
                    void_orders.push((i, Void::FleetMovesElsewhere));
                    for m in other {
                        if let Some(o) = items[m].order {
                            void_orders.push((o, Void::EmbarkationMovesFleet));
                        }
                        items[m].act = Act::Hold;
                    }
                    continue;
                }
            }
            // The armies boarding there, all together: all must fit or none boards (R1.2).
            let all = carried
                .iter()
                .filter(|c| c.1 == fleet_at)
                .fold(0u8, |n, c| n.saturating_add(c.2));
            let m = match fleet_move {
                Some(m) => m,
                None => {
                    let (_, f) = take(&mut left, fleet_at, 0, all.max(1));
                    if f == 0 {
                        // Every fleet there has an order of its own: the army stays ashore.
                        void_orders.push((i, Void::NoFreeFleet));
                        continue;
                    }
                    let act = Act::Move {
                        to,
                        via_convoy: false,
                    };
                    items.push(item(power, fleet_at, 0, f, act, None));
                    items.len() - 1
                }
            };
            embarked.push((i, m, fleet_move.is_some()));
            // A force carrying its limit takes on no further army (R3.4, R1.2): the army stays
            // ashore and the fleet's move stands.
            let own = items[m].armies - items[m].boarded;
            let full = u32::from(force.armies) + u32::from(all) > u32::from(force.fleets)
                || u32::from(own) + u32::from(all) > u32::from(items[m].fleets);
            if full {
                refused.push((i, Refusal::FleetsFull(fleet_at)));
                continue;
            }
            let (armies, _) = take(&mut left, army_at, armies, 0);
            items[m].armies = items[m].armies.saturating_add(armies);
            items[m].boarded = items[m].boarded.saturating_add(armies);
            items[m].also = Some(i);
        }
        let mut fleet_seas = ProvinceSet::EMPTY;
        for (p, force) in position.forces() {
            let (armies, fleets) = left[p.index()];
            if armies + fleets > 0 {
                items.push(item(force.power, p, armies, fleets, Act::Hold, None));
            }
            if force.fleets > 0 && variant.province(p).kind == SpaceKind::Sea {
                fleet_seas.insert(p);
            }
        }
        let ashore = carry_armies_aboard(variant, &mut items);
        // A landing from a sea its army only reaches this phase takes armies a move of its
        // power carries there, once the armies aboard have gone with their fleets (R3.3, R3.4):
        // each carrier's armies land once, a landing's armies from one carrier, the carriers
        // taken in board order and the landings by destination, so that the order of writing
        // plays no part.
        let mut aboard: Vec<u8> = if landings.is_empty() {
            Vec::new()
        } else {
            items.iter().map(|it| it.armies).collect()
        };
        let mut served: Vec<usize> = Vec::new();
        let carriers_for = |aboard: &mut Vec<u8>,
                            items: &Vec<Item>,
                            power: Option<PowerId>,
                            (at, armies): (ProvinceId, u8)| {
            let c = (0..aboard.len())
                .filter(|&c| {
                    let it = &items[c];
                    // Armies come into a sea only aboard fleets sailing from another (R3.2:
                    // from a coast they board by E, and the embarkation's fleets carry them).
                    power.is_none_or(|p| position.commands(p, it.power))
                        && variant.province(it.at).kind == SpaceKind::Sea
                        && it.fleets > 0
                        && aboard[c] >= armies
                        && matches!(it.act, Act::Move { to: dest, .. } if dest.province == at)
                })
                .min_by_key(|&c| items[c].at)?;
            aboard[c] -= armies;
            Some(c)
        };
        // Landings written alike are served together or not at all (see above); once served,
        // they share their carriers, which the decisions hand out (`Resolver::carrier_of`).
        let mut alike: Vec<Vec<usize>> = Vec::new();
        for (k, &(i, at, armies, to)) in landings.iter().enumerate() {
            let group: Vec<usize> = (0..landings.len())
                .filter(|&j| {
                    let l = landings[j];
                    (l.1, l.2, l.3.province) == (at, armies, to.province)
                })
                .collect();
            if group.first() == Some(&k) {
                let mut trial = aboard.clone();
                let fits = group.iter().all(|&j| {
                    let power = powers.get(landings[j].0).copied();
                    carriers_for(&mut trial, &items, power, (at, armies)).is_some()
                });
                if fits {
                    served.extend(group.iter().copied());
                }
            }
            let power = powers.get(i).copied();
            let carrier = served
                .contains(&k)
                .then(|| carriers_for(&mut aboard, &items, power, (at, armies)))
                .flatten();
            let Some(c) = carrier else {
                void_orders.push((i, Void::NoArmyAboard));
                continue;
            };
            let act = Act::Move {
                to,
                via_convoy: false,
            };
            let mut it = item(items[c].power, at, armies, 0, act, Some(i));
            it.lands = true;
            it.carrier = Some(c);
            items.push(it);
            let same = |g: &Vec<usize>| {
                g.first().is_some_and(|&j| {
                    let l: &Item = &items[j];
                    let order = |it: &Item| it.order.and_then(|o| powers.get(o));
                    (l.at, l.armies, l.act, order(l)) == (at, armies, act, order(&it))
                })
            };
            match alike.iter_mut().find(|g| same(g)) {
                Some(g) => g.push(items.len() - 1),
                None => alike.push(vec![items.len() - 1]),
            }
        }
        let n = items.len();
        let decisions = n + groups.len();
        let spaces = variant.provinces.len();
        let mut index = Index::new(spaces, n);
        index.file(
            Filed::At,
            items.iter().enumerate().map(|(i, it)| (it.at, i)),
        );
        let mut r = Resolver {
            variant,
            position,
            groups,
            index,
            convoys: (0..n)
                .filter(|&i| matches!(items[i].act, Act::Convoy { .. }))
                .collect(),
            fleet_seas,
            second: position.phase.kind == PhaseKind::SecondMovement,
            void_orders: Vec::new(),
            refused,
            embarked,
            alike,
            items,
            d: vec![
                Decision {
                    route: Route::NotMove,
                    h2h: None,
                    matched: true,
                    paradox: false,
                    void: None,
                    state: State::Unresolved,
                    result: false,
                    lends: 0,
                };
                decisions
            ],
            cycle: Vec::new(),
            guesses: 0,
            cyclic: false,
        };
        for i in ashore {
            r.d[i].void = Some(Void::FleetsLeaveArmies);
        }
        for (o, why) in void_orders {
            match r.items.iter().position(|it| it.order == Some(o)) {
                Some(i) => r.d[i].void = Some(why),
                None => r.void_orders.push((o, why)),
            }
        }
        r.void_blockades_with_embarkations();
        r.match_convoys();
        r.find_routes();
        r.index_moves_and_supports();
        r.match_supports();
        r
    }

    /// Files the moves by destination and the supports by the space they support into, once the
    /// moves are settled (a move no fleet could convoy has become a hold by now).
    fn index_moves_and_supports(&mut self) {
        let items = &self.items;
        let n = items.len();
        self.index.file(
            Filed::Into,
            items.iter().enumerate().filter_map(|(i, it)| match it.act {
                Act::Move { to, .. } => Some((to.province, i)),
                _ => None,
            }),
        );
        self.index.file(
            Filed::Supports,
            items
                .iter()
                .enumerate()
                .filter_map(|(i, it)| it.act.supports_into().map(|into| (into, i))),
        );
        for i in 0..n {
            let Some(into) = self.supports_into(i) else {
                continue;
            };
            let it = self.items[i];
            let from = Region {
                province: it.at,
                coast: self.position.force(it.at).and_then(|f| f.coast),
            };
            let (a, f) = self.variant.supporting(it.armies, it.fleets, from, into);
            self.d[i].lends = u32::from(a) + u32::from(f);
        }
    }

    /// A fleet may not blockade in a season an army of its power embarks on it (R5.1).
    fn void_blockades_with_embarkations(&mut self) {
        for i in 0..self.items.len() {
            if !matches!(self.items[i].act, Act::Blockade { .. }) {
                continue;
            }
            let (at, power) = (self.items[i].at, self.items[i].power);
            let embarking = self
                .items
                .iter()
                .any(|e| e.power == power && e.act == Act::Embark { sea: at });
            if embarking {
                self.items[i].act = Act::Hold;
                self.d[i].void = Some(Void::EmbarkOnBlockade);
            }
        }
    }

    /// Which convoys are legal: the fleet is at sea, the army it names is ordered to that move,
    /// and the fleet is needed on some route of the fleets on the board (DATC 6.G.6, 6.G.7,
    /// 6.G.19: a fleet on no minimal route gives an impossible order, which is ignored).
    fn match_convoys(&mut self) {
        // Only the convoy orders (there are seldom any) have anything to match.
        for k in 0..self.convoys.len() {
            let i = self.convoys[k];
            let Act::Convoy { from, to } = self.items[i].act else {
                continue;
            };
            let ordered = self
                .items_at(from)
                .any(|j| self.move_to(j) == Some(to) && self.items[j].armies > 0);
            self.d[i].void = if self.variant.province(self.items[i].at).kind != SpaceKind::Sea {
                Some(Void::ConvoyNotAtSea)
            } else if !ordered {
                Some(Void::ConvoyedArmyNotOrdered)
            } else {
                None
            };
        }
        let seas: Vec<ProvinceId> = if self.convoys.is_empty() {
            Vec::new()
        } else {
            self.fleet_seas.iter().collect()
        };
        for k in 0..self.convoys.len() {
            let i = self.convoys[k];
            if self.d[i].void.is_some() {
                continue;
            }
            let Act::Convoy { from, to } = self.items[i].act else {
                continue;
            };
            if !self.on_minimal_route(from, to, self.items[i].at, &seas) {
                self.d[i].void = Some(Void::NotOnConvoyRoute);
            }
        }
        for i in 0..self.items.len() {
            self.d[i].matched = self.d[i].void.is_none();
        }
    }

    /// Whether `sea` lies on a chordless chain of `seas` from `from` to `to`: a route none of whose
    /// fleets could be left out.
    fn on_minimal_route(
        &self,
        from: ProvinceId,
        to: ProvinceId,
        sea: ProvinceId,
        seas: &[ProvinceId],
    ) -> bool {
        // A chain holds each sea at most once: sized once, it never grows during the search.
        let mut chain = Vec::with_capacity(seas.len());
        self.chordless(&mut chain, (from, to, sea), seas)
    }

    /// Depth-first search over chains of `seas` that start next to `from`, each sea touching only
    /// the one before it, until one reaches `to`.
    fn chordless(
        &self,
        chain: &mut Vec<ProvinceId>,
        (from, to, sea): (ProvinceId, ProvinceId, ProvinceId),
        seas: &[ProvinceId],
    ) -> bool {
        let reach = |p: ProvinceId| self.variant.fleet_reach[p.index()];
        if let Some(&last) = chain.last() {
            if reach(last).contains(to) {
                return chain.contains(&sea);
            }
        }
        if chain.len() >= self.variant.rules.convoy_chain_limit() {
            return false;
        }
        for &s in seas {
            let next_to_last = match chain.last() {
                None => reach(s).contains(from),
                Some(&l) => reach(l).contains(s),
            };
            let n = chain.len();
            let chord = chain[..n.saturating_sub(1)]
                .iter()
                .any(|&p| reach(p).contains(s))
                || (n > 0 && reach(s).contains(from));
            if chain.contains(&s) || !next_to_last || chord {
                continue;
            }
            chain.push(s);
            if self.chordless(chain, (from, to, sea), seas) {
                return true;
            }
            chain.pop();
        }
        false
    }

    /// Which supports name an order the named unit really gave; a support of a move that can't
    /// go anywhere (no convoy route, DATC 6.D.31) matches nothing either.
    fn match_supports(&mut self) {
        for i in 0..self.items.len() {
            let why = match self.items[i].act {
                Act::SupportHold { target } => (!self.items_at(target).any(|j| !self.leaves(j)))
                    .then_some(Void::SupportedNotHolding),
                Act::SupportMove { from, to, coast } => {
                    let named = Region {
                        province: to,
                        coast,
                    };
                    let matching = self.items_at(from).any(|j| match self.items[j].act {
                        Act::Move { to: dest, .. } => named.names_move_into(dest),
                        _ => false,
                    });
                    let mut without = self.fleet_seas;
                    without.remove(self.items[i].at);
                    let by_sea_only = self.items_at(from).any(|j| {
                        self.move_to(j) == Some(to)
                            && matches!(self.d[j].route, Route::Convoy | Route::NoConvoy)
                    });
                    if !matching {
                        Some(Void::SupportedNotOrdered)
                    } else if by_sea_only && !self.chain_over(from, to, without) {
                        // A fleet can't both convoy and support (DATC 6.D.31).
                        Some(Void::ConvoyedOnlyBySupporter)
                    } else {
                        None
                    }
                }
                Act::SupportMerge { target } => (self.second
                    || !self.groups.iter().any(|g| g.target == target))
                .then_some(Void::NoMergeOrdered),
                _ => None,
            };
            if why.is_some() {
                self.d[i].void = why;
                self.d[i].matched = false;
            }
        }
    }

    /// How each move travels: an army that could go by land goes by convoy when written `via
    /// convoy` (unless no fleet is ordered to convoy it and the edition sends it over land then,
    /// [`Unconvoyed`]) or when its own power's fleet is ordered to convoy it and the edition
    /// counts that ([`ConvoyIntent`]; DATC 4.A.3).
    fn find_routes(&mut self) {
        for m in 0..self.items.len() {
            let Act::Move { to, via_convoy } = self.items[m].act else {
                continue;
            };
            let item = self.items[m];
            let from = item.at;
            let rules = &self.variant.rules;
            self.d[m].route = if item.fleets > 0 || item.lands {
                let reach = self.variant.fleet_reach[from.index()].contains(to.province);
                // Armies go along with fleets only where each could go (R3.4, R1.2): at sea
                // into another sea, ashore where an army walks; armies board only by E (R3.2).
                let armies_go = item.armies == 0
                    || match self.variant.province(from).kind {
                        SpaceKind::Sea => {
                            self.variant.province(to.province).kind == SpaceKind::Sea
                                && item.armies <= item.fleets
                        }
                        _ => self.variant.army_adjacent(from, to.province),
                    };
                if item.lands || (reach && armies_go) {
                    Route::Direct
                } else {
                    // Only a merge participant gets here unchecked (R2.4: it drops out).
                    Route::NoConvoy
                }
            } else {
                let by_land = self.variant.army_adjacent(from, to.province);
                let passage = self
                    .variant
                    .passage(from, to.province)
                    .filter(|_| rules.passages)
                    .map(|p| p.sea);
                let overland = if by_land {
                    Some(Route::Direct)
                } else {
                    passage.map(Route::Passage)
                };
                let own = self
                    .convoys_for(from, to.province)
                    .any(|c| self.items[c].power == item.power);
                let chain = self.chain_over(
                    from,
                    to.province,
                    self.convoy_seas(from, to.province, |_| true),
                );
                let written = via_convoy
                    && match rules.edition.unconvoyed {
                        Unconvoyed::Fails => true,
                        Unconvoyed::Overland => {
                            self.convoys_for(from, to.province).next().is_some()
                        }
                    };
                let intended = match rules.edition.convoy_intent {
                    ConvoyIntent::WrittenOrOwnConvoy => own,
                    ConvoyIntent::WrittenOnly => false,
                };
                let by_convoy = written || intended;
                match overland {
                    Some(land) if !by_convoy => land,
                    Some(_) => Route::Convoy,
                    None if chain => Route::Convoy,
                    None => Route::NoConvoy,
                }
            };
            // An army enters a sea only by embarking (R3.2): no convoy takes it there.
            let to_sea = self.variant.province(to.province).kind == SpaceKind::Sea;
            if item.fleets == 0 && !item.lands && to_sea {
                self.d[m].route = Route::NoConvoy;
            }
            if self.d[m].route == Route::NoConvoy
                && (item.fleets > 0
                    || to_sea
                    || !self.chain_over(from, to.province, self.fleet_seas))
            {
                // No fleets on the board could carry it: the move is impossible and ignored
                // (DATC 4.E.1, 6.D.32). With fleets that could, it is a move that fails (6.D.8).
                self.d[m].void = Some(Void::NoConvoyPossible);
                self.items[m].act = Act::Hold;
                self.d[m].route = Route::NotMove;
            }
        }
        // A merge's participant meets a move out of the target into its space head to head as
        // any move does (R2.7).
        for m in 0..self.items.len() {
            if !self.overland(m) {
                continue;
            }
            let (from, to) = (self.items[m].at, self.move_to(m));
            // Of several moves back from one force, the heaviest (then the merge's, then by
            // count), so that the order of writing plays no part.
            self.d[m].h2h = to.and_then(|to| {
                self.items_at(to)
                    .filter(|&n| self.overland(n) && self.move_to(n) == Some(from))
                    .max_by_key(|&n| {
                        let it = &self.items[n];
                        (
                            self.weight(n, from),
                            it.group.is_some(),
                            it.armies,
                            it.fleets,
                        )
                    })
            });
        }
    }
}

/// Armies aboard a sea force that no move takes along (unordered, or named in a hold, support or
/// blockade) travel with its fleets sailing to other seas when the fleets staying behind have no
/// room for them (R3.4: an A/F moves as one force at sea; blockading fleets have none, R5.1), the
/// sailing moves taken by destination so that the order of writing plays no part. Fleets can't sail
/// ashore from under armies aboard (R3.3: an army lands only by `D`), those ordered to land
/// included (the landing may fail, and the army then stays aboard): while armies would be left
/// without room, the moves of that force's fleets into coastal spaces are void (a merge participant
/// drops out, R2.4). Returns the items made void. Unordered items left with no unit are dropped:
/// nothing stays behind.
fn carry_armies_aboard(variant: &Variant, items: &mut Vec<Item>) -> Vec<usize> {
    let mut void = Vec::new();
    let to_sea = |it: &Item| match it.act {
        Act::Move { to, .. } => Some(variant.province(to.province).kind == SpaceKind::Sea),
        _ => None,
    };
    let mut seas: Vec<ProvinceId> = items
        .iter()
        .filter(|it| {
            it.armies > 0 && it.carrier.is_none() && variant.province(it.at).kind == SpaceKind::Sea
        })
        .map(|it| it.at)
        .collect();
    seas.sort();
    seas.dedup();
    for sea in seas {
        let here = |it: &Item| it.at == sea && it.carrier.is_none();
        let stays = |it: &Item| here(it) && !it.lands && to_sea(it).is_none();
        // Blockaders never end carrying an army (R5.1): the army belongs to the part that does
        // not blockade, and goes with it wherever it moves, in either phase.
        let fleets: u32 = items
            .iter()
            .filter(|it| stays(it) && !matches!(it.act, Act::Blockade { .. }))
            .map(|it| u32::from(it.fleets))
            .sum();
        let armies: u32 = items
            .iter()
            .filter(|it| stays(it))
            .map(|it| u32::from(it.armies))
            .sum();
        let landing: u32 = items
            .iter()
            .filter(|it| here(it) && it.lands)
            .map(|it| u32::from(it.armies))
            .sum();
        let mut excess = armies.saturating_sub(fleets);
        let mut sailing: Vec<usize> = (0..items.len())
            .filter(|&j| here(&items[j]) && to_sea(&items[j]) == Some(true))
            .collect();
        sailing.sort_by_key(|&j| match items[j].act {
            Act::Move { to, .. } => to.province.index(),
            _ => usize::MAX,
        });
        let mut room: u32 = 0;
        for j in sailing {
            let free = u32::from(items[j].fleets.saturating_sub(items[j].armies));
            let moved = excess.min(free) as u8;
            items[j].armies += moved;
            excess -= u32::from(moved);
            room += free - u32::from(moved);
            // Taken from the staying items, unordered ones first (they come last).
            let mut left = moved;
            for k in (0..items.len()).rev() {
                if left == 0 {
                    break;
                }
                if stays(&items[k]) {
                    let take = left.min(items[k].armies);
                    items[k].armies -= take;
                    left -= take;
                }
            }
        }
        let staying_room = fleets.saturating_sub(armies);
        if excess > 0 || landing > staying_room + room {
            for (j, m) in items.iter_mut().enumerate() {
                if here(m) && m.fleets > 0 && to_sea(m) == Some(false) && !m.lands {
                    m.act = Act::Hold;
                    void.push(j);
                }
            }
        }
    }
    // Only unordered items (all after the ordered ones) go, so the indices above still hold.
    items.retain(|it| it.order.is_some() || it.also.is_some() || it.armies + it.fleets > 0);
    void
}
