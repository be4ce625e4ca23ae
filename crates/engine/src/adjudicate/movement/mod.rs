//! A movement phase: the one adjudication core.
//!
//! Every order becomes one or more [`Item`]s: a number of components of one force doing one thing
//! (on the standard map every force is one unit and every item the whole force). Components that
//! no order names hold. Each item has one yes/no decision (a move succeeds; a support is given; a
//! staying force is not dislodged; an embarkation finds its fleet), decided as the DATC chapter 5
//! describes, with strengths counted in components (R1.5).
//!
//! Decisions depend on each other. Most phases have no cycle of decisions, and each decision is
//! decided as it is asked for; when one recurs into itself, the phase is decided again through a
//! dependency graph (petgraph), whose strongly connected components are decided in dependency
//! order. Inside a component that is a real cycle the decisions are made by Kruijswijk's
//! guess-and-check, and a cycle with no single consistent answer is settled by DATC 5.B.9:
//! circular movement succeeds; a cycle through a convoy order is a paradox and the Szykman rule
//! makes the convoyed moves fail.
//!
//! The Napoleonic rules are switches on the same core: merges (one decision for a group of
//! moves, R2), armies aboard fleets (embarking, landing, ferried armies staying aboard, R3),
//! blockades (R5) and denied passages (R6).
//!
//! The phase goes in three stages, one file each: `items.rs` reads the orders into items and
//! settles what is known before any decision (routes, matching supports and convoys);
//! `decide.rs` makes the decisions; `after.rs` reads them into the outcomes, the blockades'
//! results and the next position. This file holds the public API, the types the stages share
//! and the queries each reads.

mod after;
mod decide;
mod items;

use crate::order::Order;
use crate::outcome::{Event, Outcome, Refusal, Void};
use crate::position::{Blockade, Position};
use crate::variant::{Coast, PowerId, ProvinceId, ProvinceSet, Region, SpaceKind, Variant};
use items::{Filed, Index};

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

impl Act {
    /// The space a support supports into (the supported unit's space, for a hold).
    fn supports_into(self) -> Option<ProvinceId> {
        match self {
            Act::SupportHold { target } | Act::SupportMerge { target } => Some(target),
            Act::SupportMove { to, .. } => Some(to),
            _ => None,
        }
    }
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
    /// For a support, the components it lends into the space it supports (R1.6): worked out
    /// once, as strengths are summed many times.
    lends: u32,
}

/// The adjudication of one movement phase.
struct Resolver<'a> {
    variant: &'a Variant,
    position: &'a Position,
    items: Vec<Item>,
    groups: Vec<Group>,
    /// Items by the space they stand in, moves by the space they go to, supports by the space
    /// they support into.
    index: Index,
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
    /// Each embarkation with a move (`A(Tun) E F(BOT)-ION`): its order, the item of the fleets'
    /// move, and whether that move is also the fleets' own order.
    embarked: Vec<(usize, usize, bool)>,
    /// The landings from a sea its armies only reach this phase, in groups written alike (sea,
    /// destination, count and power), each in the order written: nothing else tells a group's
    /// landings apart, and they share the carriers matched to them (R3.3).
    alike: Vec<Vec<usize>>,
    /// Kruijswijk's list of decisions that depend on a guess.
    cycle: Vec<usize>,
    /// How many guesses have been made: numbers each guess (see [`State::Guessing`]).
    guesses: usize,
    /// Whether a decision was read while it was being guessed: the phase has a cycle.
    cyclic: bool,
}

/// The result of a movement phase.
pub struct MovementResult {
    /// One outcome per order, in order.
    pub outcomes: Vec<Outcome>,
    /// The position after the phase (dislodged forces waiting to retreat).
    pub position: Position,
    /// Every blockade of the phase, ordered or carried over.
    pub blockades: Vec<Blockade>,
    /// Every merge participant that set out for the target, with its own result (R2.6): the
    /// second phase's orders need it fleet by fleet (R4.3).
    pub merged: Vec<MergeMove>,
    /// Every embarkation with a move and its fleets' move (R3.2): the second phase needs
    /// whether the fleets moved, which the embarkation's own outcome doesn't say (R4.3).
    pub embarked: Vec<EmbarkMove>,
    /// The passages denied (R6.2), one for each force whose crossing was denied, a merge
    /// participant's included (section 0: whichever notation the merge is written in), by the
    /// space it came from.
    pub events: Vec<Event>,
}

/// An embarkation with a move (`A(Tun) E F(BOT)-ION`) and the fleets' move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmbarkMove {
    /// The embarkation's order, by its index in the orders adjudicated.
    pub order: usize,
    /// Whether the fleets made the move, whether or not the army boarded (R3.2-q).
    pub moved: bool,
    /// Whether the fleets' own order gives the same move (it then accounts for the fleets).
    pub own_order: bool,
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
        let it = r.items[i];
        for o in [it.order, it.also].into_iter().flatten() {
            // Ranked only when two items carry one order (a merge, an embarkation): seldom.
            let better = carrier[o].is_none_or(|c| {
                let (mine, theirs) = (rank(&mut r, i), rank(&mut r, c));
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
    let embarked = r
        .embarked
        .iter()
        .map(|&(order, m, own_order)| EmbarkMove {
            order,
            moved: r.d[m].result,
            own_order,
        })
        .collect();
    let mut events: Vec<Event> = (0..r.items.len())
        .filter_map(|m| {
            let route = r.d[m].route;
            match route {
                Route::Passage(sea) if !r.d[m].paradox && !r.path(m) => {
                    Some(Event::PassageDenied {
                        from: r.items[m].at,
                        sea,
                    })
                }
                _ => None,
            }
        })
        .collect();
    events.sort_by_key(|e| match e {
        Event::PassageDenied { from, sea } => (*from, *sea),
        _ => (ProvinceId(0), ProvinceId(0)),
    });
    events.dedup();
    let position = r.next_position(position);
    MovementResult {
        outcomes,
        position,
        blockades,
        merged,
        embarked,
        events,
    }
}

/// The queries every stage reads.
impl<'a> Resolver<'a> {
    /// The decision of merge `g`: whether it goes in (R2.6: no participant leads it).
    fn group_node(&self, g: usize) -> usize {
        self.items.len() + g
    }

    fn overland(&self, m: usize) -> bool {
        matches!(self.d[m].route, Route::Direct | Route::Passage(_))
            && self.items[m].carrier.is_none()
    }

    fn items_at(&self, p: ProvinceId) -> impl Iterator<Item = usize> + Clone + '_ {
        self.index.iter(Filed::At, p)
    }

    /// Whether item `i` counts as standing in its space against moves into it: not an army that
    /// only reaches the space aboard a carrier, nor an army landing from it (R3.3: a landing that
    /// fails adds nothing to the force it stays aboard, and its army sails on with its fleets).
    fn holds_ground(&self, i: usize) -> bool {
        self.items[i].carrier.is_none() && !self.items[i].lands
    }

    /// The items really standing in `p` (not an army that only reaches it aboard a carrier).
    fn standing_at(&self, p: ProvinceId) -> impl Iterator<Item = usize> + Clone + '_ {
        self.items_at(p)
            .filter(|&i| self.items[i].carrier.is_none())
    }

    fn moves_into(&self, p: ProvinceId) -> impl Iterator<Item = usize> + Clone + '_ {
        self.index.iter(Filed::Into, p)
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

    /// The space a support item supports into (the supported unit's space, for a hold).
    fn supports_into(&self, i: usize) -> Option<ProvinceId> {
        self.items[i].act.supports_into()
    }

    /// The components of an item that count in or into `dest` (R1.5): at sea only fleets act
    /// (a landing army counts itself into the coast, and nothing in its sea, R3.3); into a sea
    /// only fleets count; into an inland space only armies. A support counts only the components
    /// that could move into the space themselves (R1.6).
    fn weight(&self, i: usize, dest: ProvinceId) -> u32 {
        let it = &self.items[i];
        let (a, f) = (u32::from(it.armies), u32::from(it.fleets));
        if it.lands {
            return if dest == it.at { 0 } else { a };
        }
        if let Some(into) = self.supports_into(i) {
            if dest != it.at {
                // A support counts only into the space it supports.
                debug_assert_eq!(dest, into);
                return self.d[i].lends;
            }
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
}
