//! The checks that need the whole board (edge symmetry, the name table, victory, starting
//! units), and the variant they make.

use super::{Builder, Res};
use crate::variant::names::{closest, key};
use crate::variant::{
    Phase, PhaseKind, ProvinceId, ProvinceSet, Region, Season, SpaceKind, StartUnit, UnitType,
    Variant,
};
use std::collections::{HashMap, HashSet};

impl<'f> Builder<'f> {
    /// For each edge with no partner, the error naming the missing line.
    fn check_symmetry(&self) -> Res<()> {
        let army: HashSet<(ProvinceId, ProvinceId)> =
            self.army_edges.iter().map(|&(a, b, _)| (a, b)).collect();
        for &(a, b, line) in &self.army_edges {
            if !army.contains(&(b, a)) {
                let (ca, cb) = (self.code(a), self.code(b));
                let other = match self.army_lines.get(&b) {
                    Some(n) => format!("'army {cb}:' (line {n}) does not list {ca}"),
                    None => format!("there is no 'army {cb}:' line listing {ca}"),
                };
                return Err(self.err(line, format!("army {ca}: {cb} is listed but {other}")));
            }
        }
        let fleet: HashSet<(Region, Region)> =
            self.fleet_edges.iter().map(|&(a, b, _)| (a, b)).collect();
        for &(a, b, line) in &self.fleet_edges {
            if !fleet.contains(&(b, a)) {
                let (ra, rb) = (self.region_name(a), self.region_name(b));
                let other = match self.fleet_lines.get(&b) {
                    Some(n) => format!("'fleet {rb}:' (line {n}) does not list {ra}"),
                    None => format!("there is no 'fleet {rb}:' line listing {ra}"),
                };
                return Err(self.err(line, format!("fleet {ra}: {rb} is listed but {other}")));
            }
        }
        Ok(())
    }

    /// The name table: every code, full name and alias, checked for clashes.
    fn name_table(&mut self) -> Res<HashMap<String, Vec<ProvinceId>>> {
        // Stable sort: a clash is reported at the later of the two lines.
        self.names.sort_by_key(|e| e.line);
        let mut first: HashMap<&str, (ProvinceId, usize)> = HashMap::new();
        for e in &self.names {
            if self.ambiguous.contains_key(&e.key) {
                continue;
            }
            match first.get(e.key.as_str()) {
                Some(&(p, line)) if p != e.space => {
                    return Err(self.err(
                        e.line,
                        format!(
                            "'{}' already names {} (line {line}); declare it with 'ambiguous' if it should mean both",
                            e.printed,
                            self.code(p)
                        ),
                    ));
                }
                Some(_) => {}
                None => {
                    first.insert(&e.key, (e.space, e.line));
                }
            }
        }
        let mut names: HashMap<String, Vec<ProvinceId>> = first
            .into_iter()
            .map(|(k, (p, _))| (k.to_string(), vec![p]))
            .collect();
        for (k, (_, spaces)) in &self.ambiguous {
            names.insert(k.clone(), spaces.clone());
        }
        Ok(names)
    }

    pub(super) fn finish(mut self) -> Res<Variant> {
        let Some((_, name)) = self.name.take() else {
            return Err(self.err(1, "no 'variant NAME' line; the file should begin with one"));
        };
        let Some((start_line, start_text)) = self.start.take() else {
            return Err(self.err(
                1,
                "no 'start SEASON YEAR KIND' line (e.g. start Spring 1901 Movement)",
            ));
        };
        self.check_symmetry()?;
        let names = self.name_table()?;

        let n = self.provinces.len();
        let mut army_adj = vec![ProvinceSet::EMPTY; n];
        for &(a, b, _) in &self.army_edges {
            army_adj[a.index()].insert(b);
        }
        let mut fleet_reach = vec![ProvinceSet::EMPTY; n];
        let mut fleet_edges: Vec<(Region, Region)> =
            self.fleet_edges.iter().map(|&(a, b, _)| (a, b)).collect();
        fleet_edges.sort();
        fleet_edges.dedup();
        for &(a, b) in &fleet_edges {
            fleet_reach[a.province.index()].insert(b.province);
        }
        let centres = self.provinces.iter().filter(|p| p.centre).count() as u32;
        let victory = self.victory.map_or(centres / 2 + 1, |(_, v)| v);

        let mut v = Variant {
            title: self.title.clone().unwrap_or_else(|| name.clone()),
            name,
            season_names: self
                .seasons
                .clone()
                .unwrap_or_else(|| ["Spring", "Autumn", "Winter"].map(str::to_string)),
            start: Phase {
                year: 0,
                season: Season::Spring,
                kind: PhaseKind::Movement,
            },
            victory,
            victory_overrides: self
                .victory_overrides
                .iter()
                .map(|&(p, n, _)| (p, n))
                .collect(),
            rules: std::mem::take(&mut self.rules),
            powers: std::mem::take(&mut self.powers),
            provinces: std::mem::take(&mut self.provinces),
            build_sites: self.build_sites.iter().map(|(_, b)| b.clone()).collect(),
            passages: self.passages.iter().map(|&(_, p)| p).collect(),
            start_units: Vec::new(),
            army_adj,
            fleet_reach,
            fleet_edges,
            names,
        };
        v.start = v
            .read_phase(&start_text)
            .map_err(|e| self.err(start_line, format!("start: {e}")))?;
        self.check_victory(&v)?;
        v.start_units = self.start_units(&v)?;
        Ok(v)
    }

    /// Each victory threshold is one to the board's centre count: no fewer (a game won before
    /// it starts), no more (a game nobody can win).
    fn check_victory(&self, v: &Variant) -> Res<()> {
        let centres = v.centres().len() as u32;
        let lines = self
            .victory
            .iter()
            .map(|&(line, n)| (line, n))
            .chain(self.victory_overrides.iter().map(|&(_, n, line)| (line, n)));
        for (line, n) in lines {
            if n == 0 || n > centres {
                return Err(self.err(
                    line,
                    format!(
                        "a victory of {n} centres on a board of {centres}: write 1 to {centres}"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The starting units, each on a region its type can stand on, one per space.
    fn start_units(&self, v: &Variant) -> Res<Vec<StartUnit>> {
        let mut out: Vec<(usize, StartUnit)> = Vec::new();
        for &(line, power, unit, text) in &self.units {
            let (code, coast) = match text.split_once('/') {
                Some((c, k)) => (c, Some(self.coast_word(line, k)?)),
                None => (text, None),
            };
            let p = *self.codes.get(&key(code)).ok_or_else(|| {
                let hint = closest(code, v.provinces.iter().map(|p| p.code.as_str()))
                    .map_or(String::new(), |c| format!(" (did you mean '{c}'?)"));
                self.err(line, format!("unknown space '{code}'{hint}"))
            })?;
            let region = Region { province: p, coast };
            if !v.can_stand(unit, region) {
                return Err(self.err(line, cannot_stand(v, unit, region)));
            }
            if let Some((first, other)) = out.iter().find(|(_, u)| u.region.province == p) {
                if !v.rules.multiplicity || other.power != power {
                    return Err(self.err(
                        line,
                        format!("{} already has a unit (line {first})", v.province(p).code),
                    ));
                }
            }
            out.push((
                line,
                StartUnit {
                    power,
                    unit,
                    region,
                },
            ));
        }
        Ok(out.into_iter().map(|(_, u)| u).collect())
    }
}

/// Why a unit cannot stand in a region, for a GM.
fn cannot_stand(v: &Variant, unit: UnitType, region: Region) -> String {
    let prov = v.province(region.province);
    let c = &prov.code;
    match (unit, prov.kind, region.coast) {
        (UnitType::Army, SpaceKind::Sea, _) => format!("an army cannot stand in {c}: it is a sea"),
        (UnitType::Army, _, Some(_)) => format!("an army stands in {c}, not on a coast: write {c}"),
        (UnitType::Fleet, SpaceKind::Land, _) => {
            format!("a fleet cannot stand in {c}: it is inland")
        }
        (UnitType::Fleet, _, None) => {
            let options = super::coast_options(prov);
            format!("a fleet in {c} must name its coast ({options})")
        }
        (UnitType::Fleet, _, Some(k)) if prov.coasts.is_empty() => {
            format!("{c} has no coasts; write {c}, not {c}/{}", k.code())
        }
        (UnitType::Fleet, _, Some(k)) => {
            let list = prov
                .coasts
                .iter()
                .map(|k| k.code())
                .collect::<Vec<_>>()
                .join(" ");
            format!("{c} has no {} coast (its coasts: {list})", k.code())
        }
        (UnitType::Army, _, None) => format!("an army cannot stand in {c}"),
    }
}
