//! A movement phase: the one adjudication core.
//!
//! Every order becomes one or more [`Item`]s: a number of components of one force doing one thing
//! (on the standard map every force is one unit and every item the whole force). Components that
//! no order names hold. Each item has one yes/no decision (a move succeeds; a support is given; a
//! staying force is not dislodged; an embarkation finds its fleet), decided as the DATC chapter 5
//! describes, with strengths counted in components (R1.5).
//!
//! Decisions depend on each other. They are put in a dependency graph (petgraph), whose strongly
//! connected components are decided in dependency order. Inside a component that is a real cycle
//! the decisions are made by Kruijswijk's guess-and-check, and a cycle with no single consistent
//! answer is settled by DATC 5.B.9: circular movement succeeds; a cycle through a convoy order is
//! a paradox and the Szykman rule makes the convoyed moves fail.
//!
//! The Napoleonic rules are switches on the same core: merges (one decision for a group of
//! moves, R2), armies aboard fleets (embarking, landing, ferried armies staying aboard, R3),
//! blockades (R5) and denied passages (R6).

use super::outcome::{Outcome, Reason, Refusal, Void};
use crate::order::{Order, OrderKind};
use crate::position::{Dislodged, Force, Position, SeaTime};
use crate::variant::{
    Coast, PhaseKind, PowerId, ProvinceId, ProvinceSet, Region, SpaceKind, Variant,
};
use petgraph::algo::TarjanScc;
use petgraph::graph::{DiGraph, NodeIndex};

/// What an item does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Act {
    Hold,
    Move {
        to: Region,
        via_convoy: bool,
    },
    SupportHold {
        target: ProvinceId,
    },
    SupportMove {
        from: ProvinceId,
        to: ProvinceId,
        coast: Option<Coast>,
    },
    SupportMerge {
        target: ProvinceId,
    },
    Convoy {
        from: ProvinceId,
        to: ProvinceId,
    },
    Blockade {
        centre: ProvinceId,
    },
    Deny {
        a: ProvinceId,
        b: ProvinceId,
    },
    Embark {
        sea: ProvinceId,
    },
}

/// Components of one force doing one thing.
#[derive(Clone, Copy, Debug)]
struct Item {
    power: PowerId,
    at: ProvinceId,
    armies: u8,
    fleets: u8,
    act: Act,
    /// The order it carries out; `None` for the components no order named.
    order: Option<usize>,
    /// A second order it carries out: an army's `E F(BOT)-ION` rides on the fleet's move.
    also: Option<usize>,
    /// Of its armies, those boarding from the coast with `E F(..)-..` this phase (R3.6: they
    /// bring no seasons at sea).
    boarded: u8,
    /// The merge it takes part in (R2).
    group: Option<usize>,
    /// An army landing from the sea (R3.3): its armies count, though it starts at sea.
    lands: bool,
    /// For an army landing from a sea it only reaches this phase (`A(Tun) E F(BOT)-ION`, then
    /// `A(ION) D Bkn`): the move that carries it there, which must succeed first.
    carrier: Option<usize>,
}

/// A merge: one power's moves into one space (R2.2). Its decision is a node of its own, after
/// the items' (`items.len() + g`): no participant leads it, each goes with it when its own path
/// holds (R2.6).
#[derive(Clone, Copy, Debug)]
struct Group {
    power: PowerId,
    target: ProvinceId,
}

/// How a move travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Route {
    /// Not a move.
    NotMove,
    /// Straight to an adjacent space.
    Direct,
    /// Across a direct passage over this sea (R6).
    Passage(ProvinceId),
    /// By convoy.
    Convoy,
    /// A convoy was needed and none was ordered (fleets that could have convoyed were there).
    NoConvoy,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Unresolved,
    /// Guessed, the guess being the resolver's n-th: a decision guessed later was guessed while
    /// this one's guess stood.
    Guessing(usize),
    Resolved,
}

/// What is known and decided of one item.
#[derive(Clone, Copy, Debug)]
struct Decision {
    route: Route,
    /// The move going the other way between the same two spaces, both over land.
    h2h: Option<usize>,
    /// A support or convoy that matches an order of the unit it names.
    matched: bool,
    /// A convoyed move the Szykman rule has made fail.
    paradox: bool,
    /// Found void once all orders are known (DATC 4.E.1), with the reason.
    void: Option<Void>,
    state: State,
    result: bool,
}

/// A blockade's result in one phase (R5.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockadeResult {
    /// The sea the blockading fleets are in.
    pub province: ProvinceId,
    /// Their power.
    pub power: PowerId,
    /// How many fleets blockade.
    pub fleets: u8,
    /// The centre blockaded.
    pub centre: ProvinceId,
    /// Whether it held this phase.
    pub held: bool,
    /// The order that made it, if it was ordered this phase.
    pub order: Option<usize>,
}

/// Item numbers grouped by space, built once per phase: `items[start[p + 1]..start[p + 2]]` are
/// the items filed under space `p`, so that look-ups by space don't scan every item.
#[derive(Default)]
struct Index {
    start: Vec<u16>,
    items: Vec<u16>,
}

impl Index {
    fn build(
        spaces: usize,
        entries: impl DoubleEndedIterator<Item = (ProvinceId, usize)> + Clone,
    ) -> Index {
        // Counting sort: start[p + 1] holds p's count, then the end of p's run; filling from the
        // back moves it down to the beginning of p's run, which is where p + 1's run ends.
        let mut start = vec![0u16; spaces + 2];
        for (p, _) in entries.clone() {
            start[p.index() + 1] += 1;
        }
        let mut total = 0;
        for n in start.iter_mut() {
            total += *n;
            *n = total;
        }
        let mut items = vec![0u16; usize::from(start[spaces + 1])];
        for (p, i) in entries.rev() {
            let cursor = &mut start[p.index() + 1];
            *cursor -= 1;
            items[usize::from(*cursor)] = i as u16;
        }
        Index { start, items }
    }

    fn range(&self, p: ProvinceId) -> std::ops::Range<usize> {
        usize::from(self.start[p.index() + 1])..usize::from(self.start[p.index() + 2])
    }

    fn get(&self, k: usize) -> usize {
        usize::from(self.items[k])
    }

    fn iter(&self, p: ProvinceId) -> impl Iterator<Item = usize> + Clone + '_ {
        self.items[self.range(p)].iter().map(|&i| usize::from(i))
    }
}

/// The adjudication of one movement phase.
struct Resolver<'a> {
    variant: &'a Variant,
    position: &'a Position,
    items: Vec<Item>,
    groups: Vec<Group>,
    /// Items by the space they stand in.
    at: Index,
    /// Moves by the space they go to.
    into: Index,
    /// Supports by the space they support into (the supported unit's space, for a hold).
    supports: Index,
    /// The convoy orders (there are seldom any).
    convoys: Vec<usize>,
    /// What is known and decided of each item.
    d: Vec<Decision>,
    /// The seas holding a fleet at the start: what makes a convoy possible at all.
    fleet_seas: ProvinceSet,
    /// The fleets' second movement phase: merges count their fleets only (R2.5).
    second: bool,
    /// Orders void with no item of their own to carry the reason (an embarkation whose fleet
    /// was given another move).
    void_orders: Vec<(usize, Void)>,
    /// Orders that fail whatever the decisions (an embarkation onto fleets carrying their limit).
    refused: Vec<(usize, Refusal)>,
    /// Kruijswijk's list of decisions that depend on a guess.
    cycle: Vec<usize>,
    /// How many guesses have been made: numbers each guess (see [`State::Guessing`]).
    guesses: usize,
}

/// The result of a movement phase.
pub struct MovementResult {
    /// One outcome per order, in order.
    pub outcomes: Vec<Outcome>,
    /// The position after the phase (dislodged forces waiting to retreat).
    pub position: Position,
    /// Every blockade of the phase, ordered or carried over.
    pub blockades: Vec<BlockadeResult>,
    /// Every merge participant that set out for the target, with its own result (R2.6): the
    /// second phase's orders need it fleet by fleet (R4.3).
    pub merged: Vec<MergeMove>,
}

/// A merge participant's move and whether it went in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MergeMove {
    /// Where it came from.
    pub from: ProvinceId,
    /// The merge's target.
    pub to: ProvinceId,
    /// How many fleets it moved.
    pub fleets: u8,
    /// Whether it arrived.
    pub arrived: bool,
}

/// Adjudicates a movement phase: `orders` are validated orders of this phase, each naming
/// components of a force in `position` (second-phase orders are given here as plain orders when
/// `position` is in its second movement phase).
pub fn adjudicate(
    variant: &Variant,
    position: &Position,
    orders: &[Order<Region>],
) -> MovementResult {
    adjudicate_by(variant, position, orders, &[])
}

/// As [`adjudicate`], knowing the power that gave each order (`powers[i]` gave `orders[i]`): a
/// landing from a sea its army only reaches this phase is then carried there only by a move of
/// that power (R3.3), whatever the order of writing.
pub fn adjudicate_by(
    variant: &Variant,
    position: &Position,
    orders: &[Order<Region>],
    powers: &[PowerId],
) -> MovementResult {
    let mut r = Resolver::new(variant, position, orders, powers);
    r.resolve_all();
    // The item that carries each order out. A one-line merge's outcome is the merge's (R2.6): a
    // participant that went in, else one that had a path, else one that tried to move; among
    // equals the first on the board, so that the order of writing changes nothing.
    let rank = |r: &mut Resolver, i: usize| {
        let moves = r.is_move(i);
        (moves && r.d[i].result, moves && r.path(i), moves)
    };
    let mut carrier: Vec<Option<usize>> = vec![None; orders.len()];
    for i in 0..r.items.len() {
        let mine = rank(&mut r, i);
        let it = r.items[i];
        for o in [it.order, it.also].into_iter().flatten() {
            let better = carrier[o].is_none_or(|c| {
                let theirs = rank(&mut r, c);
                mine > theirs || (mine == theirs && it.at < r.items[c].at)
            });
            if better {
                carrier[o] = Some(i);
            }
        }
    }
    let outcomes = (0..orders.len())
        .map(|o| r.outcome_of(o, carrier[o]))
        .collect();
    let blockades = r.blockade_results();
    let merged = (0..r.items.len())
        .filter(|&i| r.items[i].group.is_some())
        .filter_map(|i| {
            Some(MergeMove {
                from: r.items[i].at,
                to: r.move_to(i)?,
                fleets: r.items[i].fleets,
                arrived: r.d[i].result,
            })
        })
        .collect();
    let position = r.next_position(position);
    MovementResult {
        outcomes,
        position,
        blockades,
        merged,
    }
}

impl<'a> Resolver<'a> {
    fn new(
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
        // sea this phase (R3.3); landings from one sea are matched by destination, so the order of
        // writing plays no part.
        disembarks.sort_by_key(|&(_, at, _, to)| (at.index(), to.province.index()));
        for (i, at, armies, to) in disembarks {
            if left[at.index()].0 < armies {
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
        for (i, at, armies, to) in landings {
            let power = powers.get(i).copied();
            let carrier = items.iter().position(|it| {
                power.is_none_or(|p| position.commands(p, it.power))
                    && it.armies > 0
                    && it.fleets > 0
                    && matches!(it.act, Act::Move { to: dest, .. } if dest.province == at)
            });
            let Some(c) = carrier else {
                void_orders.push((i, Void::NoArmyAboard));
                continue;
            };
            let mut it = item(
                items[c].power,
                at,
                armies.min(items[c].armies),
                0,
                Act::Move {
                    to,
                    via_convoy: false,
                },
                Some(i),
            );
            it.lands = true;
            it.carrier = Some(c);
            items.push(it);
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
        let n = items.len();
        let decisions = n + groups.len();
        let spaces = variant.provinces.len();
        let at = Index::build(spaces, items.iter().enumerate().map(|(i, it)| (it.at, i)));
        let mut r = Resolver {
            variant,
            position,
            groups,
            at,
            into: Index::default(),
            supports: Index::default(),
            convoys: (0..n)
                .filter(|&i| matches!(items[i].act, Act::Convoy { .. }))
                .collect(),
            fleet_seas,
            second: position.phase.kind == PhaseKind::SecondMovement,
            void_orders: Vec::new(),
            refused,
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
                };
                decisions
            ],
            cycle: Vec::new(),
            guesses: 0,
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

    /// The decision of merge `g`: whether it goes in (R2.6: no participant leads it).
    fn group_node(&self, g: usize) -> usize {
        self.items.len() + g
    }

    /// Files the moves by destination and the supports by the space they support into, once the
    /// moves are settled (a move no fleet could convoy has become a hold by now).
    fn index_moves_and_supports(&mut self) {
        let spaces = self.variant.provinces.len();
        let items = &self.items;
        self.into = Index::build(
            spaces,
            items.iter().enumerate().filter_map(|(i, it)| match it.act {
                Act::Move { to, .. } => Some((to.province, i)),
                _ => None,
            }),
        );
        self.supports = Index::build(
            spaces,
            items.iter().enumerate().filter_map(|(i, it)| match it.act {
                Act::SupportHold { target } | Act::SupportMerge { target } => Some((target, i)),
                Act::SupportMove { to, .. } => Some((to, i)),
                _ => None,
            }),
        );
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
        for i in 0..self.items.len() {
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
        for i in 0..self.items.len() {
            if self.d[i].void.is_some() {
                continue;
            }
            let Act::Convoy { from, to } = self.items[i].act else {
                continue;
            };
            let seas: Vec<ProvinceId> = self.fleet_seas.iter().collect();
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
        let mut chain = Vec::new();
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
                    let matching = self.items_at(from).any(|j| match self.items[j].act {
                        Act::Move { to: dest, .. } => {
                            dest.province == to
                                && (coast.is_none() || dest.coast.is_none() || dest.coast == coast)
                        }
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

    /// How each move travels (DATC 4.A.3: an army that could go by land goes by convoy only when
    /// written `via convoy` or when a fleet of its own power is ordered to convoy it).
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
                match overland {
                    Some(land) if !(via_convoy || own) => land,
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

    fn overland(&self, m: usize) -> bool {
        matches!(self.d[m].route, Route::Direct | Route::Passage(_))
            && self.items[m].carrier.is_none()
    }

    fn items_at(&self, p: ProvinceId) -> impl Iterator<Item = usize> + Clone + '_ {
        self.at.iter(p)
    }

    /// The items really standing in `p` (not an army that only reaches it aboard a carrier).
    fn standing_at(&self, p: ProvinceId) -> impl Iterator<Item = usize> + Clone + '_ {
        self.items_at(p)
            .filter(|&i| self.items[i].carrier.is_none())
    }

    fn moves_into(&self, p: ProvinceId) -> impl Iterator<Item = usize> + Clone + '_ {
        self.into.iter(p)
    }

    fn convoys_for(
        &self,
        from: ProvinceId,
        to: ProvinceId,
    ) -> impl Iterator<Item = usize> + Clone + '_ {
        self.convoys
            .iter()
            .copied()
            .filter(move |&i| self.d[i].matched && self.items[i].act == Act::Convoy { from, to })
    }

    fn is_move(&self, i: usize) -> bool {
        matches!(self.items[i].act, Act::Move { .. })
    }

    /// Whether the item tries to leave its space during the first moves: a move. An army
    /// embarking with `E SEA` stands in its space until the fleets' first moves are over (R3.2).
    fn leaves(&self, i: usize) -> bool {
        matches!(self.items[i].act, Act::Move { .. })
    }

    fn move_to(&self, i: usize) -> Option<ProvinceId> {
        match self.items[i].act {
            Act::Move { to, .. } => Some(to.province),
            _ => None,
        }
    }

    /// Whether the seas in `fleets` form a chain of adjacent seas from `from` to `to`, no longer
    /// than the variant allows.
    fn chain_over(&self, from: ProvinceId, to: ProvinceId, fleets: ProvinceSet) -> bool {
        let reach = |p: ProvinceId| self.variant.fleet_reach[p.index()];
        let mut seen = ProvinceSet::EMPTY;
        let mut frontier = ProvinceSet(reach(from).0 & fleets.0);
        let mut length = 0;
        while !frontier.is_empty() && length < self.variant.rules.convoy_chain_limit() {
            length += 1;
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

    /// The seas of the legal convoy orders for `from`-`to` that pass `usable`.
    fn convoy_seas(
        &self,
        from: ProvinceId,
        to: ProvinceId,
        mut usable: impl FnMut(usize) -> bool,
    ) -> ProvinceSet {
        let mut seas = ProvinceSet::EMPTY;
        for c in self.convoys_for(from, to) {
            if usable(c) {
                seas.insert(self.items[c].at);
            }
        }
        seas
    }

    /// The components of an item that count in or into `dest` (R1.5): at sea only fleets act
    /// (a landing army counts itself); into a sea only fleets count; into an inland space only
    /// armies.
    fn weight(&self, i: usize, dest: ProvinceId) -> u32 {
        let it = &self.items[i];
        let (a, f) = (u32::from(it.armies), u32::from(it.fleets));
        if it.lands {
            return a;
        }
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
        if let Some(c) = self.items[m].carrier {
            edge(c);
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
        self.supports.iter(space).for_each(&mut *edge);
        if let Some(g) = group {
            edge(self.group_node(g));
        }
    }

    fn supports_of_move(
        &self,
        from: ProvinceId,
        to: ProvinceId,
    ) -> impl Iterator<Item = usize> + '_ {
        self.supports.iter(to).filter(move |&s| {
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
    fn backup_rule(&mut self, members: &[usize]) {
        let act = |d: usize| self.items.get(d).map(|it| it.act);
        let convoy_involved = members
            .iter()
            .any(|&d| matches!(act(d), Some(Act::Convoy { .. })));
        if convoy_involved {
            for &d in members {
                if let Some(Act::Convoy { from, to }) = act(d) {
                    for m in self.items_at(from).collect::<Vec<_>>() {
                        if self.move_to(m) == Some(to) && self.d[m].route == Route::Convoy {
                            self.d[m].paradox = true;
                        }
                    }
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
            Act::Move { .. } => match (item.group, item.carrier) {
                // Each participant goes with the merge when its own path holds (R2.4, R2.6).
                (Some(g), _) => self.path(i) && self.resolve(self.group_node(g)),
                (None, Some(c)) => self.resolve(c) && self.move_succeeds(i),
                (None, None) => self.move_succeeds(i),
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
    fn path(&mut self, m: usize) -> bool {
        match self.d[m].route {
            Route::Direct => true,
            Route::NotMove | Route::NoConvoy => false,
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
        for k in self.into.range(p) {
            let m = self.into.get(k);
            if Some(self.items[m].power) != owner {
                any |= self.resolve(m);
            }
        }
        any
    }

    /// The strength of the supports of the move `from`-`to`, leaving out `except`'s supports and
    /// those given from `not_from` (a blockaded centre, R5.3).
    fn move_support(
        &mut self,
        from: ProvinceId,
        to: ProvinceId,
        except: Option<PowerId>,
        not_from: Option<ProvinceId>,
    ) -> u32 {
        let mut total = 0;
        for k in self.supports.range(to) {
            let s = self.supports.get(k);
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
    fn hold_strength(&mut self, p: ProvinceId) -> u32 {
        let mut total = 0;
        let mut staying = false;
        let mut holder = None;
        for k in self.at.range(p) {
            let j = self.at.get(k);
            if self.items[j].carrier.is_some() {
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
            for k in self.supports.range(p) {
                let s = self.supports.get(k);
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
    fn merge_strength(
        &mut self,
        g: usize,
        except: Option<PowerId>,
        not_from: Option<ProvinceId>,
    ) -> u32 {
        let target = self.groups[g].target;
        let mut total = 0;
        for k in self.into.range(target) {
            let m = self.into.get(k);
            let from = self.items[m].at;
            if self.items[m].group == Some(g) && Some(from) != not_from && self.path(m) {
                total += self.weight(m, target);
                if !self.second {
                    total += self.move_support(from, target, except, not_from);
                }
            }
        }
        if !self.second {
            for k in self.supports.range(target) {
                let s = self.supports.get(k);
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
        for k in self.at.range(target) {
            let j = self.at.get(k);
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
    fn merge_beaten_by(&mut self, g: usize) -> Option<usize> {
        let target = self.groups[g].target;
        for k in self.into.range(target) {
            let m = self.into.get(k);
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
        for k in self.at.range(target) {
            let j = self.at.get(k);
            if self.items[j].carrier.is_some() {
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
        for k in self.into.range(target) {
            let o = self.into.get(k);
            if self.items[o].group != Some(g) && attack <= self.prevent_strength(o) {
                return false;
            }
        }
        true
    }

    fn attack_strength(&mut self, m: usize) -> u32 {
        if !self.path(m) {
            return 0;
        }
        let (from, power) = (self.items[m].at, self.items[m].power);
        let Some(to) = self.move_to(m) else { return 0 };
        let mut vacated = true;
        let mut occupant = None;
        for k in self.at.range(to) {
            let j = self.at.get(k);
            if self.items[j].carrier.is_some() {
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

    fn prevent_strength(&mut self, m: usize) -> u32 {
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
        for k in self.into.range(to) {
            let o = self.into.get(k);
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
        for k in self.into.range(it.at) {
            let m = self.into.get(k);
            let am = self.items[m];
            if am.power != it.power && am.at != into && self.path(m) {
                return true;
            }
        }
        // An attack from the supported space still cuts when it dislodges the supporter.
        for k in self.into.range(it.at) {
            let m = self.into.get(k);
            let am = self.items[m];
            if am.at == into && am.power != it.power && self.resolve(m) {
                return true;
            }
        }
        false
    }

    // ----- after the decisions -----

    /// Each blockade's result (R5.3): it fails when the fleets are dislodged, or attacked by
    /// another power, from anywhere but the blockaded centre, with a strength (not counting
    /// supports from the centre) of at least the number of blockading fleets.
    fn blockade_results(&mut self) -> Vec<BlockadeResult> {
        let mut out = Vec::new();
        for i in 0..self.items.len() {
            let Act::Blockade { centre } = self.items[i].act else {
                continue;
            };
            let it = self.items[i];
            let mut held = self.d[i].result;
            let attackers: Vec<usize> = self.moves_into(it.at).collect();
            let mut merges: Vec<usize> = Vec::new();
            for m in attackers {
                let from = self.items[m].at;
                if self.items[m].power == it.power || from == centre || !self.path(m) {
                    continue;
                }
                let (except, not_from) = (Some(it.power), Some(centre));
                // A merge is one attack, with its whole strength (R2.7).
                let strength = match self.items[m].group {
                    Some(g) if merges.contains(&g) => continue,
                    Some(g) => {
                        merges.push(g);
                        self.merge_strength(g, except, not_from)
                    }
                    None => {
                        self.weight(m, it.at) + self.move_support(from, it.at, except, not_from)
                    }
                };
                if strength >= u32::from(it.fleets) {
                    held = false;
                }
            }
            out.push(BlockadeResult {
                province: it.at,
                power: it.power,
                fleets: it.fleets,
                centre,
                held,
                order: it.order,
            });
        }
        out
    }

    fn outcome_of(&mut self, order: usize, carrier: Option<usize>) -> Outcome {
        if let Some(&(_, why)) = self.void_orders.iter().find(|(o, _)| *o == order) {
            return Outcome::Void(why);
        }
        if let Some(&(_, why)) = self.refused.iter().find(|(o, _)| *o == order) {
            return Outcome::Fails(Reason::Refused(why));
        }
        let Some(i) = carrier else {
            return Outcome::Void(Void::NoUnit);
        };
        if let Some(why) = self.d[i].void {
            if self.items[i].order == Some(order) {
                return Outcome::Void(why);
            }
        }
        let at = self.items[i].at;
        let power = self.items[i].power;
        // Of several attackers (a merge's participants, moves from two spaces), the reason names
        // the one from the first space on the board, so that the order of writing changes nothing.
        let dislodger = |r: &mut Self| {
            r.moves_into(at)
                .filter(|&m| r.d[m].result && r.items[m].power != power)
                .min_by_key(|&m| r.items[m].at)
        };
        let attacker = |r: &Self| {
            r.moves_into(at)
                .filter(|&m| r.items[m].power != power)
                .map(|m| r.items[m].at)
                .min()
                .unwrap_or(at)
        };
        match self.items[i].act {
            Act::Move { .. } => {
                if self.d[i].result {
                    Outcome::Succeeds
                } else {
                    Outcome::Fails(self.why_move_failed(i))
                }
            }
            Act::SupportHold { .. } | Act::SupportMove { .. } | Act::SupportMerge { .. } => {
                if let Some(m) = dislodger(self) {
                    return Outcome::Fails(Reason::Dislodged(self.items[m].at));
                }
                if self.d[i].result {
                    return Outcome::Succeeds;
                }
                Outcome::Fails(Reason::Cut(attacker(self)))
            }
            Act::Embark { sea } => {
                if self.d[i].result {
                    Outcome::Succeeds
                } else if let Some(m) = dislodger(self) {
                    Outcome::Fails(Reason::Dislodged(self.items[m].at))
                } else {
                    Outcome::Fails(Reason::Refused(Refusal::NoFleetWithRoom(sea)))
                }
            }
            Act::Blockade { .. } => {
                if let Some(m) = dislodger(self) {
                    return Outcome::Fails(Reason::Dislodged(self.items[m].at));
                }
                let cut = self
                    .blockade_results()
                    .into_iter()
                    .find(|b| b.order == Some(order));
                match cut {
                    Some(b) if !b.held => Outcome::Fails(Reason::Cut(attacker(self))),
                    _ => Outcome::Succeeds,
                }
            }
            Act::Hold | Act::Convoy { .. } | Act::Deny { .. } => {
                if let Some(m) = dislodger(self) {
                    Outcome::Fails(Reason::Dislodged(self.items[m].at))
                } else {
                    Outcome::Succeeds
                }
            }
        }
    }

    fn why_move_failed(&mut self, m: usize) -> Reason {
        let route = self.d[m].route;
        match route {
            Route::NoConvoy => return Reason::NoConvoy,
            Route::Convoy if self.d[m].paradox => return Reason::ConvoyParadox,
            Route::Convoy if !self.path(m) => return Reason::ConvoyDisrupted,
            Route::Passage(sea) if !self.path(m) => return Reason::PassageDenied(sea),
            _ => {}
        }
        if let Some(c) = self.items[m].carrier {
            if !self.d[c].result {
                return Reason::Refused(Refusal::CarrierFailed);
            }
        }
        if let Some(n) = self.d[m].h2h {
            if self.d[n].result {
                return Reason::BeatenHeadToHead(self.items[n].at);
            }
        }
        if let Some(n) = self.items[m].group.and_then(|g| self.merge_beaten_by(g)) {
            return Reason::BeatenHeadToHead(self.items[n].at);
        }
        let Some(to) = self.move_to(m) else {
            return Reason::Bounced(Vec::new());
        };
        let attack = match self.items[m].group {
            Some(g) => self.merge_strength(g, None, None),
            None => self.attack_strength(m),
        };
        let mut with = Vec::new();
        if self.standing_at(to).next().is_some() && attack <= self.hold_strength(to) {
            with.push(to);
        }
        let group = self.items[m].group;
        for k in self.into.range(to) {
            let o = self.into.get(k);
            let rival = o != m && (group.is_none() || self.items[o].group != group);
            if rival && attack <= self.prevent_strength(o) && !with.contains(&self.items[o].at) {
                with.push(self.items[o].at);
            }
        }
        Reason::Bounced(with)
    }

    /// Where each ferried army that failed to land stays aboard (R3.1): in the sea of a convoying
    /// fleet of its own power, when that power's fleets there after the phase have room for all
    /// the armies failing to land there; otherwise they all stay where they started. Fleets that
    /// sail away take no army, and the order of writing plays no part. Empty when no convoy was
    /// ordered.
    fn ferries_aboard(&self) -> Vec<Option<ProvinceId>> {
        let n = self.items.len();
        if !self.variant.rules.abstraction || self.convoys.is_empty() {
            return Vec::new();
        }
        let mut aboard = vec![None; n];
        for (m, slot) in aboard.iter_mut().enumerate() {
            let d = self.d[m];
            let Some(to) = self.move_to(m).filter(|_| d.route == Route::Convoy) else {
                continue;
            };
            if d.paradox || d.result {
                continue;
            }
            let (from, power) = (self.items[m].at, self.items[m].power);
            *slot = self
                .convoys_for(from, to)
                .filter(|&c| self.items[c].power == power && self.d[c].result)
                .map(|c| self.items[c].at)
                .min();
        }
        let full: Vec<usize> = (0..n)
            .filter(|&m| {
                let (Some(sea), power) = (aboard[m], self.items[m].power) else {
                    return false;
                };
                let ferried: u32 = (0..n)
                    .filter(|&k| aboard[k] == Some(sea) && self.items[k].power == power)
                    .map(|k| u32::from(self.items[k].armies))
                    .sum();
                ferried > self.room_after(sea, power)
            })
            .collect();
        for m in full {
            aboard[m] = None;
        }
        aboard
    }

    /// The room for more armies aboard `power`'s fleets in `sea` once the phase is over: the
    /// fleets that end there less the armies that end there.
    fn room_after(&self, sea: ProvinceId, power: PowerId) -> u32 {
        let (mut fleets, mut armies) = (0u32, 0u32);
        for (i, it) in self.items.iter().enumerate() {
            if it.power != power || it.carrier.is_some() {
                continue;
            }
            let ends_here = match it.act {
                Act::Move { to, .. } if self.d[i].result => to.province == sea,
                Act::Embark { sea: s } if self.d[i].result => s == sea,
                _ => it.at == sea,
            };
            if ends_here {
                let landed: u32 = (0..self.items.len())
                    .filter(|&k| self.items[k].carrier == Some(i) && self.d[k].result)
                    .map(|k| u32::from(self.items[k].armies))
                    .sum();
                fleets += u32::from(it.fleets);
                armies += u32::from(it.armies).saturating_sub(landed);
            }
        }
        fleets.saturating_sub(armies)
    }

    /// An army whose landing failed stays aboard (R3.3): when the fleets it was aboard sailed on
    /// to other seas and those that stayed have no room for it, it sails with them (R3.4, as an
    /// army no order names does), the seas taken in board order so that the order of writing
    /// plays no part.
    fn failed_landings_sail_on(&self, next: &mut Position, sea_time: &mut [SeaTime]) {
        for (i, it) in self.items.iter().enumerate() {
            if !it.lands || it.carrier.is_some() || self.d[i].result {
                continue;
            }
            let at = it.at.index();
            let Some(stayed) = next.units[at].filter(|f| f.power == it.power) else {
                continue;
            };
            let mut excess = stayed.armies.saturating_sub(stayed.fleets);
            let mut seas: Vec<ProvinceId> = (0..self.items.len())
                .filter(|&m| {
                    let s = &self.items[m];
                    s.at == it.at && s.power == it.power && s.fleets > 0 && self.d[m].result
                })
                .filter_map(|m| self.move_to(m))
                .filter(|&to| self.variant.province(to).kind == SpaceKind::Sea)
                .collect();
            seas.sort();
            seas.dedup();
            for sea in seas {
                let Some(there) = next.units[sea.index()].as_mut() else {
                    continue;
                };
                if excess == 0 || there.power != it.power {
                    continue;
                }
                let moved = excess.min(there.fleets.saturating_sub(there.armies));
                there.armies += moved;
                excess -= moved;
                if let Some(f) = next.units[at].as_mut() {
                    f.armies -= moved;
                }
                let time = sea_time[at].take_longest(moved);
                sea_time[sea.index()].add(time);
            }
        }
    }

    fn next_position(&mut self, before: &Position) -> Position {
        let mut next = before.clone();
        next.dislodged.clear();
        next.standoffs = ProvinceSet::EMPTY;
        for slot in next.units.iter_mut() {
            *slot = None;
        }
        let n_prov = next.units.len();
        // Armies that landed from a carrier leave it.
        let landed = |c: usize| -> u8 {
            self.items
                .iter()
                .zip(&self.d)
                .filter(|(it, d)| it.carrier == Some(c) && d.result)
                .map(|(it, _)| it.armies)
                .sum()
        };
        let aboard = self.ferries_aboard();
        // Armies leaving a sea space take their own seasons at sea with them (R3.6), the longest
        // at sea first: those landing, then those sailing on, by destination; so the order of
        // writing plays no part.
        let mut times = vec![SeaTime::default(); self.items.len()];
        let mut drawing: Vec<usize> = (0..self.items.len())
            .filter(|&i| {
                let it = &self.items[i];
                it.carrier.is_none() && before.sea_time[it.at.index()].counted() > 0
            })
            .collect();
        if !drawing.is_empty() {
            let mut pool = before.sea_time.clone();
            drawing.sort_by_key(|&i| match self.move_to(i) {
                Some(to) if self.d[i].result => (!self.items[i].lands, to.index()),
                _ => (true, usize::MAX),
            });
            for i in drawing {
                let it = self.items[i];
                times[i] = pool[it.at.index()].take_longest(it.armies.saturating_sub(it.boarded));
            }
        }
        // (space, force, where it came from, its armies' time at sea)
        let mut arriving: Vec<(ProvinceId, Force, usize, SeaTime)> =
            Vec::with_capacity(self.items.len());
        let mut sea_time = vec![SeaTime::default(); n_prov];
        for (i, &drawn) in times.iter().enumerate() {
            let it = self.items[i];
            // Armies that landed from this carrier this phase have left it.
            let landed = if it.armies > 0 && it.fleets > 0 && self.is_move(i) {
                landed(i)
            } else {
                0
            };
            let mut time = drawn;
            time.take_longest(landed);
            let armies = it.armies - landed.min(it.armies);
            let destination = match it.act {
                Act::Move { to, .. } if self.d[i].result => Some((to, time)),
                Act::Embark { sea } if self.d[i].result => Some((Region::of(sea), time)),
                Act::Move { .. } => aboard
                    .get(i)
                    .copied()
                    .flatten()
                    .map(|sea| (Region::of(sea), time)),
                _ => None,
            };
            if it.carrier.is_some() && destination.is_none() {
                // An army that did not land stays aboard its carrier, counted there.
                continue;
            }
            match destination {
                Some((to, time)) => arriving.push((
                    to.province,
                    Force {
                        power: it.power,
                        armies,
                        fleets: it.fleets,
                        coast: to.coast,
                    },
                    i,
                    if it.lands { SeaTime::default() } else { time },
                )),
                None => {
                    let coast = before.force(it.at).and_then(|f| f.coast);
                    let slot = &mut next.units[it.at.index()];
                    let f = slot.get_or_insert(Force {
                        power: it.power,
                        armies: 0,
                        fleets: 0,
                        coast,
                    });
                    f.armies = f.armies.saturating_add(armies);
                    f.fleets = f.fleets.saturating_add(it.fleets);
                    sea_time[it.at.index()].add(time);
                }
            }
        }
        // A force still in a space another power entered is dislodged; one power's arrivals
        // join its own force there.
        for (p, force, i, time) in arriving {
            let slot = &mut next.units[p.index()];
            match slot {
                Some(f) if f.power == force.power => {
                    f.armies = f.armies.saturating_add(force.armies);
                    f.fleets = f.fleets.saturating_add(force.fleets);
                    f.coast = f.coast.or(force.coast);
                    // Every participant of a merge that dislodged a force is an attacker (R2.8).
                    if let Some(d) = next.dislodged.iter_mut().find(|d| d.province == p) {
                        d.attacker_from.insert(self.items[i].at);
                        d.by_convoy &= self.d[i].route == Route::Convoy;
                    }
                }
                Some(_) => {
                    if let Some(stayed) = slot.take() {
                        let mut attacker_from = ProvinceSet::EMPTY;
                        attacker_from.insert(self.items[i].at);
                        next.dislodged.push(Dislodged {
                            province: p,
                            force: stayed,
                            attacker_from,
                            by_convoy: self.d[i].route == Route::Convoy,
                            sea_time: sea_time[p.index()],
                        });
                    }
                    next.units[p.index()] = Some(force);
                    sea_time[p.index()] = SeaTime::default();
                }
                None => *slot = Some(force),
            }
            sea_time[p.index()].add(time);
        }
        self.failed_landings_sail_on(&mut next, &mut sea_time);
        // At sea a force may not carry more armies than it has fleets: the rest are lost (R1.2,
        // R3.5).
        for (i, slot) in next.units.iter_mut().enumerate() {
            let Some(f) = slot else { continue };
            if self.variant.provinces[i].kind != SpaceKind::Sea {
                sea_time[i] = SeaTime::default();
                continue;
            }
            f.armies = f.armies.min(f.fleets);
            sea_time[i].fit(f.armies);
            if f.components() == 0 {
                *slot = None;
            }
        }
        next.sea_time = sea_time;
        // A space left empty after a stand-off takes no retreat.
        let mut entered = ProvinceSet::EMPTY;
        for i in 0..self.items.len() {
            if let Some(p) = self.move_to(i) {
                entered.insert(p);
            }
        }
        for p in entered.iter() {
            if next.units[p.index()].is_some() {
                continue;
            }
            if self.moves_into(p).any(|m| self.d[m].result) {
                continue;
            }
            let mut contested = false;
            for k in self.into.range(p) {
                let m = self.into.get(k);
                contested |= self.prevent_strength(m) > 0;
            }
            if contested {
                next.standoffs.insert(p);
            }
        }
        next
    }
}

/// Armies aboard a sea force that no move takes along (unordered, or named in a hold, support or
/// blockade) travel with its fleets sailing to other seas when the fleets staying behind have no
/// room for them (R3.4: an A/F moves as one force at sea), the sailing moves taken by destination
/// so that the order of writing plays no part. Fleets can't sail ashore from under armies aboard
/// (R3.3: an army lands only by `D`), those ordered to land included (the landing may fail, and
/// the army then stays aboard): while armies would be left without room, the moves of that
/// force's fleets into coastal spaces are void (a merge participant drops out, R2.4). Returns the
/// items made void. Unordered items left with no unit are dropped: nothing stays behind.
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
        let fleets: u32 = items
            .iter()
            .filter(|it| stays(it))
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
