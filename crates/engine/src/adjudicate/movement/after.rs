//! After the decisions: each order's outcome (`outcome_of`, `why_move_failed`), the blockades'
//! results, and the next position (ferried armies staying aboard, failed landings sailing on,
//! dislodged forces and standoffs).

use super::{Act, Filed, Resolver, Route};
use crate::outcome::{Outcome, Reason, Refusal, Void};
use crate::position::{Blockade, Dislodged, Force, Position, SeaTime};
use crate::variant::{PowerId, ProvinceId, ProvinceSet, Region, SpaceKind};

impl<'a> Resolver<'a> {
    /// Every blockade's result, ordered or carried over.
    pub(super) fn blockade_results(&mut self) -> Vec<Blockade> {
        // Seldom any: the items are sifted here, not in a call for each.
        let mut results = Vec::new();
        for i in 0..self.items.len() {
            if matches!(self.items[i].act, Act::Blockade { .. }) {
                results.extend(self.blockade_result(i));
            }
        }
        results
    }

    /// Item `i`'s blockade result, if it blockades (R5.3): it fails when the fleets are
    /// dislodged, or attacked by another power, from anywhere but the blockaded centre, with a
    /// strength (not counting supports from the centre) of at least the number of blockading
    /// fleets.
    fn blockade_result(&mut self, i: usize) -> Option<Blockade> {
        let Act::Blockade { centre } = self.items[i].act else {
            return None;
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
                None => self.weight(m, it.at) + self.move_support(from, it.at, except, not_from),
            };
            if strength >= u32::from(it.fleets) {
                held = false;
            }
        }
        Some(Blockade {
            province: it.at,
            power: it.power,
            fleets: it.fleets,
            centre,
            held,
        })
    }

    pub(super) fn outcome_of(&mut self, order: usize, carrier: Option<usize>) -> Outcome {
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
                match self.blockade_result(i) {
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
            Route::Passage(sea) if self.d[m].paradox => return Reason::PassageParadox(sea),
            Route::Passage(sea) if !self.path(m) => return Reason::PassageDenied(sea),
            _ => {}
        }
        if !self.aboard(m) {
            return Reason::Refused(Refusal::CarrierFailed);
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
        // Most moves are stood off by one or two units: room for them up front spares a regrowth.
        let mut with = Vec::with_capacity(2);
        // The strongest unit that held the move back, when it was stronger than the attack: then
        // the move was beaten, not stood off. Ties go to the lowest space, so that the reason
        // does not depend on the order of writing. A move of no strength (into its own power's
        // unit) was never a contest: it bounced.
        let mut beaten: Option<(u32, ProvinceId, bool)> = None;
        let mut stronger = |strength: u32, at: ProvinceId, holding: bool| {
            let wins = beaten.is_none_or(|(s, p, _)| strength > s || (strength == s && at < p));
            if attack > 0 && strength > attack && wins {
                beaten = Some((strength, at, holding));
            }
        };
        if self.standing_at(to).next().is_some() {
            let hold = self.hold_strength(to);
            if attack <= hold {
                with.push(to);
                stronger(hold, to, true);
            }
        }
        let group = self.items[m].group;
        let mut filed = self.index.first(Filed::Into, to);
        while let Some(o) = filed {
            filed = self.index.after(Filed::Into, o);
            let rival = o != m && (group.is_none() || self.items[o].group != group);
            if !rival {
                continue;
            }
            let prevent = self.prevent_strength(o);
            if attack <= prevent && !with.contains(&self.items[o].at) {
                with.push(self.items[o].at);
                stronger(prevent, self.items[o].at, false);
            }
        }
        match beaten {
            Some((strength, at, holding)) => Reason::Beaten {
                strength,
                at,
                holding,
            },
            None => Reason::Bounced(with),
        }
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
    /// plays no part. `stranded` are such armies left alone in a sea another power entered: they
    /// sail on from there too, and only those with no room are dislodged.
    fn failed_landings_sail_on(
        &self,
        next: &mut Position,
        sea_time: &mut [SeaTime],
        stranded: &mut [Dislodged],
    ) {
        for (i, it) in self.items.iter().enumerate() {
            if !it.lands || it.carrier.is_some() || self.d[i].result {
                continue;
            }
            let at = it.at.index();
            let alone = stranded
                .iter()
                .position(|d| d.province == it.at && d.force.power == it.power);
            let stayed = match alone {
                Some(k) => stranded[k].force,
                None => match next.units[at].filter(|f| f.power == it.power) {
                    Some(f) => f,
                    None => continue,
                },
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
                let time = match alone {
                    Some(k) => {
                        stranded[k].force.armies -= moved;
                        stranded[k].sea_time.take_longest(moved)
                    }
                    None => {
                        if let Some(f) = next.units[at].as_mut() {
                            f.armies -= moved;
                        }
                        sea_time[at].take_longest(moved)
                    }
                };
                sea_time[sea.index()].add(time);
            }
        }
    }

    pub(super) fn next_position(&mut self, before: &Position) -> Position {
        // Built afresh, not cloned: the forces, dislodged forces, stand-offs and times at sea
        // are all the phase's own.
        let n_prov = before.units.len();
        let mut next = Position {
            phase: before.phase,
            units: vec![None; n_prov],
            dislodged: Vec::new(),
            standoffs: ProvinceSet::EMPTY,
            owners: before.owners.clone(),
            blockaded: before.blockaded,
            ledgers: before.ledgers.clone(),
            pending: before.pending.clone(),
            blockades: before.blockades.clone(),
            sea_time: Vec::new(),
        };
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
        // Empty when no army at sea has been there a season (most phases): none draws a time.
        let mut times = Vec::new();
        let mut drawing: Vec<usize> = (0..self.items.len())
            .filter(|&i| {
                let it = &self.items[i];
                it.carrier.is_none() && before.sea_time[it.at.index()].counted() > 0
            })
            .collect();
        if !drawing.is_empty() {
            times = vec![SeaTime::default(); self.items.len()];
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
        for i in 0..self.items.len() {
            let drawn = times.get(i).copied().unwrap_or_default();
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
                    // Armies stand in the whole space: a coast is the fleets' (R1.1).
                    let coast = before
                        .force(it.at)
                        .and_then(|f| f.coast)
                        .filter(|_| it.fleets > 0);
                    next.add_force(
                        it.at,
                        Force {
                            power: it.power,
                            armies,
                            fleets: it.fleets,
                            coast,
                        },
                    );
                    sea_time[it.at.index()].add(time);
                }
            }
        }
        // A force still in a space another power entered is dislodged; one power's arrivals
        // join its own force there. Armies alone at sea are those whose landing failed after
        // their fleets sailed: they go with those fleets first (R3.3).
        let mut stranded: Vec<Dislodged> = Vec::new();
        for (p, force, i, time) in arriving {
            let slot = &mut next.units[p.index()];
            match slot {
                Some(f) if f.power == force.power => {
                    next.add_force(p, force);
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
                        let d = Dislodged {
                            province: p,
                            force: stayed,
                            attacker_from,
                            by_convoy: self.d[i].route == Route::Convoy,
                            sea_time: sea_time[p.index()],
                        };
                        let sea = self.variant.province(p).kind == SpaceKind::Sea;
                        if sea && stayed.fleets == 0 {
                            stranded.push(d);
                        } else {
                            next.dislodged.push(d);
                        }
                    }
                    next.units[p.index()] = Some(force);
                    sea_time[p.index()] = SeaTime::default();
                }
                None => *slot = Some(force),
            }
            sea_time[p.index()].add(time);
        }
        self.failed_landings_sail_on(&mut next, &mut sea_time, &mut stranded);
        next.dislodged
            .extend(stranded.into_iter().filter(|d| d.force.armies > 0));
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
            let mut filed = self.index.first(Filed::Into, p);
            while let Some(m) = filed {
                filed = self.index.after(Filed::Into, m);
                contested |= self.prevent_strength(m) > 0;
            }
            if contested {
                next.standoffs.insert(p);
            }
        }
        next
    }
}
