//! Generated Napoleonic Winters (RULINGS §7) for `tests/winter_properties.rs`: centres changed
//! hands, banks, loans (several creditors of one borrower that may not repay them all), minors
//! controlled, units on and near the direct passages, and each major's Winter orders of every
//! kind (builds, removals, loans, renewals, banking, conversions, bids).

use super::{spec_text, Dice, Spec};
use napjudge_engine::variant::{PowerId, PowerKind, ProvinceId, Region, SpaceKind, Variant};

/// A Winter order's kind, for the orders a major may write in any order: loans (and renewals) are
/// made before the builds and removals, `CONVERT` and `BANK` after them, and the bids last (R7.2,
/// R7.6), whatever order they are written in; within a kind the order written counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Loan,
    Unit,
    Spend,
    Bid,
}

/// A generated Winter: its blocks' lines, each power's ledger items and orders.
#[derive(Clone, Debug)]
pub struct Winter {
    /// `OWNERS` lines (`France: Par, Mar`, `none: Lon`): the centres that changed hands.
    pub owners: Vec<String>,
    /// Each power's `LEDGER` items (`bank 3`, `loan 3 to France`, `controller England 1 year`).
    pub ledger: Vec<(PowerId, Vec<String>)>,
    /// `STATE` lines.
    pub forces: Vec<(PowerId, Spec, Region)>,
    /// Each order: its power, kind and text.
    pub orders: Vec<(PowerId, Kind, String)>,
}

impl Winter {
    /// The case text: the ledger's lines in the order `ledger_perm` gives (each line's items
    /// shuffled by its seed), the orders' lines in the order `order_perm` gives (`[]`: as
    /// generated).
    pub fn text(&self, v: &Variant, ledger_perm: &[(usize, u64)], order_perm: &[usize]) -> String {
        let mut t = String::from("CASE w\nVARIANT napoleonic\nPHASE Winter 1802 Adjustment\n");
        if !self.owners.is_empty() {
            t.push_str("OWNERS\n");
            for l in &self.owners {
                t.push_str(&format!("  {l}\n"));
            }
        }
        let ledger: Vec<(usize, u64)> = if ledger_perm.is_empty() {
            (0..self.ledger.len()).map(|k| (k, 0)).collect()
        } else {
            ledger_perm.to_vec()
        };
        if !ledger.is_empty() {
            t.push_str("LEDGER\n");
            for (k, seed) in ledger {
                let (p, items) = &self.ledger[k];
                let items: Vec<&str> = if seed == 0 {
                    items.iter().map(String::as_str).collect()
                } else {
                    super::shuffled(items.len(), seed)
                        .into_iter()
                        .map(|i| items[i].as_str())
                        .collect()
                };
                t.push_str(&format!("  {}: {}\n", v.power(*p).name, items.join("; ")));
            }
        }
        t.push_str("STATE\n");
        for (p, s, r) in &self.forces {
            t.push_str(&format!(
                "  {}: {}({})\n",
                v.power(*p).name,
                spec_text(*s),
                v.region_name(*r)
            ));
        }
        t.push_str("ORDERS\n");
        let order: Vec<usize> = if order_perm.len() == self.orders.len() {
            order_perm.to_vec()
        } else {
            (0..self.orders.len()).collect()
        };
        for k in order {
            let (p, _, o) = &self.orders[k];
            t.push_str(&format!("  {}: {o}\n", v.power(*p).name));
        }
        t.push_str("END\n");
        t
    }
}

fn kind(v: &Variant, p: ProvinceId) -> SpaceKind {
    v.province(p).kind
}

pub fn generate_winter(v: &Variant, xs: &[u16]) -> Winter {
    let mut d = Dice { xs, at: 0 };
    let majors: Vec<PowerId> = v
        .power_ids()
        .filter(|&p| v.power(p).kind == PowerKind::Major)
        .collect();
    let minors: Vec<PowerId> = v
        .power_ids()
        .filter(|&p| v.power(p).kind == PowerKind::Minor)
        .collect();
    let centres: Vec<ProvinceId> = v.centres().iter().collect();
    // Centres that changed hands: to another major, or to nobody; a borrower often loses most
    // of its own, so that it can't repay every creditor (R7.2).
    let mut owners: Vec<(Option<PowerId>, Vec<ProvinceId>)> = Vec::new();
    let borrower = d.pick(&majors);
    if let Some(b) = borrower.filter(|_| d.chance(50)) {
        let lost: Vec<ProvinceId> = v.homes(b).iter().filter(|_| d.chance(75)).collect();
        owners.push((None, lost));
    }
    for _ in 0..d.below(12) {
        let Some(c) = d.pick(&centres) else { break };
        if owners.iter().any(|(_, cs)| cs.contains(&c)) {
            continue;
        }
        let to = if d.chance(40) { None } else { d.pick(&majors) };
        match owners.iter_mut().find(|(o, _)| *o == to) {
            Some((_, cs)) => cs.push(c),
            None => owners.push((to, vec![c])),
        }
    }
    let owner_of = |c: ProvinceId| {
        owners
            .iter()
            .find(|(_, cs)| cs.contains(&c))
            .map_or(v.province(c).home, |(o, _)| *o)
    };
    let owned: Vec<(PowerId, ProvinceId)> = centres
        .iter()
        .filter_map(|&c| owner_of(c).map(|o| (o, c)))
        .collect();
    // Units: near the passages often (an army's distance crosses them, R7.4), else anywhere.
    let ends: Vec<ProvinceId> = v.passages.iter().flat_map(|x| [x.a, x.b]).collect();
    let all: Vec<ProvinceId> = v.province_ids().collect();
    let mut forces: Vec<(PowerId, Spec, Region)> = Vec::new();
    for _ in 0..4 + d.below(14) {
        let near_passage = d.chance(50);
        let p = if near_passage {
            let e = d.pick(&ends).unwrap_or(all[0]);
            let around: Vec<ProvinceId> = std::iter::once(e)
                .chain(v.army_adj[e.index()].iter())
                .chain(v.fleet_reach[e.index()].iter())
                .collect();
            d.pick(&around).unwrap_or(e)
        } else {
            d.pick(&all).unwrap_or(all[0])
        };
        if forces.iter().any(|f| f.2.province == p) {
            continue;
        }
        let Some(power) = d.pick(&majors) else { break };
        let prov = v.province(p);
        let coast = d.pick(&prov.coasts);
        let n = 1 + u8::from(d.chance(20));
        let (spec, region) = match prov.kind {
            SpaceKind::Land => (Spec(n, 0), Region::of(p)),
            SpaceKind::Sea => (Spec(u8::from(d.chance(40)).min(n), n), Region::of(p)),
            SpaceKind::Coast => match d.below(3) {
                0 => (Spec(n, 0), Region::of(p)),
                1 => (Spec(0, n), Region { province: p, coast }),
                _ => (Spec(1, 1), Region { province: p, coast }),
            },
        };
        forces.push((power, spec, region));
    }
    // Civil disorder next to a passage (R7.4 with R6.1): a major left with one centre, on a
    // passage's end, and an army on the other end (one move across, more around), among more
    // units than its SP pay for.
    if d.chance(30) {
        let crossing = d.pick(&v.passages);
        let me = d.pick(&majors);
        if let (Some(x), Some(me)) = (crossing, me) {
            let (centre, across) = if d.chance(50) { (x.a, x.b) } else { (x.b, x.a) };
            let mine: Vec<ProvinceId> = owned
                .iter()
                .filter(|(o, c)| *o == me && *c != centre)
                .map(|(_, c)| *c)
                .collect();
            for (_, cs) in owners.iter_mut() {
                cs.retain(|c| *c != centre && !mine.contains(c));
            }
            owners.push((None, mine));
            if v.province(centre).centre {
                match owners.iter_mut().find(|(o, _)| *o == Some(me)) {
                    Some((_, cs)) => cs.push(centre),
                    None => owners.push((Some(me), vec![centre])),
                }
            }
            forces.retain(|f| f.2.province != across);
            forces.push((me, Spec(1, 0), Region::of(across)));
            for _ in 0..2 + d.below(3) {
                let around: Vec<ProvinceId> = v.army_adj[across.index()]
                    .iter()
                    .chain(v.army_adj[centre.index()].iter())
                    .filter(|&p| kind(v, p) != SpaceKind::Sea)
                    .collect();
                if let Some(p) = d
                    .pick(&around)
                    .filter(|&p| !forces.iter().any(|f| f.2.province == p))
                {
                    forces.push((me, Spec(1, 0), Region::of(p)));
                }
            }
        }
    }
    // Ledgers: banks, loans (a borrower with several creditors), control of minors.
    let mut ledger: Vec<(PowerId, Vec<String>)> = Vec::new();
    let mut item = |p: PowerId, it: String| match ledger.iter_mut().find(|(q, _)| *q == p) {
        Some((_, items)) => items.push(it),
        None => ledger.push((p, vec![it])),
    };
    for &m in &majors {
        if d.chance(30) {
            item(m, format!("bank {}", 1 + d.below(9)));
        }
    }
    for _ in 0..d.below(5) {
        let (Some(lender), Some(b)) = (d.pick(&majors), borrower) else {
            break;
        };
        if lender != b {
            item(
                lender,
                format!("loan {} to {}", 1 + d.below(9), v.power(b).name),
            );
        }
    }
    let mut controlled: Vec<PowerId> = Vec::new();
    for &minor in &minors {
        if d.chance(30) {
            if let Some(m) = d.pick(&majors) {
                let years = 1 + d.below(3);
                let s = if years == 1 { "" } else { "s" };
                item(
                    minor,
                    format!("controller {} {years} year{s}", v.power(m).name),
                );
                controlled.push(minor);
            }
        }
    }
    // Orders: each major writes a few of every kind.
    let mut orders: Vec<(PowerId, Kind, String)> = Vec::new();
    for _ in 0..d.below(16) {
        let Some(me) = d.pick(&majors) else { break };
        let other = d.pick(&majors).filter(|&o| o != me);
        let mine: Vec<&(PowerId, Spec, Region)> = forces.iter().filter(|f| f.0 == me).collect();
        let sites: Vec<ProvinceId> = owned
            .iter()
            .filter(|(o, _)| *o == me)
            .map(|(_, c)| *c)
            .collect();
        let n = 1 + d.below(6);
        let o = match d.below(9) {
            0 | 1 => d.pick(&sites).map(|c| {
                let fleet = kind(v, c) == SpaceKind::Coast && d.chance(40);
                let coast = v.province(c).coasts.first().copied();
                let r = Region {
                    province: c,
                    coast: if fleet { coast } else { None },
                };
                let t = if fleet { "F" } else { "A" };
                (Kind::Unit, format!("BUILD {t}({})", v.region_name(r)))
            }),
            2 => d.pick(&mine).map(|f| {
                let t = if f.1 .1 > 0 && (f.1 .0 == 0 || d.chance(50)) {
                    "F"
                } else {
                    "A"
                };
                (Kind::Unit, format!("REMOVE {t}({})", v.region_name(f.2)))
            }),
            3 => other.map(|o| (Kind::Loan, format!("LOAN {n} TO {}", v.power(o).name))),
            4 => other.map(|o| (Kind::Loan, format!("RENEW {}", v.power(o).name))),
            5 => Some((Kind::Spend, format!("BANK {n}"))),
            6 => Some((Kind::Spend, format!("CONVERT {n}"))),
            _ => {
                let minor = if d.chance(60) {
                    d.pick(&controlled)
                } else {
                    d.pick(&minors)
                };
                minor.map(|m| {
                    let on_behalf = other
                        .filter(|_| d.chance(25))
                        .map_or(String::new(), |o| format!(" FOR {}", v.power(o).name));
                    (
                        Kind::Bid,
                        format!("BID {} {}{on_behalf}", 1 + d.below(12), v.power(m).name),
                    )
                })
            }
        };
        if let Some((k, text)) = o {
            orders.push((me, k, text));
        }
    }
    Winter {
        owners: owners
            .iter()
            .filter(|(_, cs)| !cs.is_empty())
            .map(|(o, cs)| {
                let who = o.map_or("none".to_string(), |o| v.power(o).name.clone());
                let codes: Vec<&str> = cs.iter().map(|&c| v.province(c).code.as_str()).collect();
                format!("{who}: {}", codes.join(", "))
            })
            .collect(),
        ledger,
        forces,
        orders,
    }
}
