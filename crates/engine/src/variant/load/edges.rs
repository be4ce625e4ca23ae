//! Pass 3 of a variant file: the lines that need centres and coasts known: build sites, army and
//! fleet edges, passages, starting units.

use super::tokens::{Line, Tok};
use super::{Builder, Res};
use crate::variant::{BuildSite, Passage, ProvinceId, SpaceKind, UnitType};

impl<'f> Builder<'f> {
    pub(super) fn build_line(&mut self, l: &Line<'f>) -> Res<()> {
        let usage = "build CODE POWER army|fleet...";
        let a = self.args(l)?;
        let [code, power, kinds @ ..] = a.as_slice() else {
            return Err(self.usage(l, usage));
        };
        if kinds.is_empty() {
            return Err(self.usage(l, usage));
        }
        let p = self.space(l.no, code)?;
        let power = self.power(l.no, power)?;
        let prov = &self.provinces[p.index()];
        if prov.centre {
            return Err(self.err(
                l.no,
                format!(
                    "{} is a supply centre; 'build' is only for build sites that are not centres",
                    prov.code
                ),
            ));
        }
        let (mut army, mut fleet) = (false, false);
        for k in kinds {
            match k.to_ascii_lowercase().as_str() {
                "army" | "a" => army = true,
                "fleet" | "f" => fleet = true,
                other => {
                    return Err(
                        self.err(l.no, format!("a build is 'army' or 'fleet', not '{other}'"))
                    )
                }
            }
        }
        if prov.kind == SpaceKind::Sea {
            return Err(self.err(
                l.no,
                format!(
                    "{} is a sea; a build site is a land or coastal space",
                    prov.code
                ),
            ));
        }
        if fleet && prov.kind == SpaceKind::Land {
            return Err(self.err(
                l.no,
                format!("{} is inland; no fleet can be built there", prov.code),
            ));
        }
        if let Some((first, _)) = self
            .build_sites
            .iter()
            .find(|(_, b)| b.province == p && b.power == power)
        {
            return Err(self.err(
                l.no,
                format!(
                    "{} is already a build site of {} (line {first})",
                    prov.code,
                    self.powers[power.index()].name
                ),
            ));
        }
        self.build_sites.push((
            l.no,
            BuildSite {
                province: p,
                power,
                army,
                fleet,
            },
        ));
        Ok(())
    }

    /// Splits `X: Y Z...` into the first word and the rest.
    fn edge_args(&self, l: &Line<'f>, usage: &str) -> Res<(&'f str, Vec<&'f str>)> {
        match l.toks.as_slice() {
            [_, first, Tok::Colon, rest @ ..] if *first != Tok::Colon && !rest.is_empty() => {
                let rest = rest
                    .iter()
                    .map(|t| match t {
                        Tok::Colon => Err(self.usage(l, usage)),
                        t => Ok(t.text()),
                    })
                    .collect::<Res<Vec<_>>>()?;
                Ok((first.text(), rest))
            }
            _ => Err(self.usage(l, usage)),
        }
    }

    pub(super) fn army_line(&mut self, l: &Line<'f>) -> Res<()> {
        let (from, tos) = self.edge_args(l, "army CODE: CODE...")?;
        let a = self.space(l.no, from)?;
        self.not_sea(l.no, a)?;
        self.army_lines.entry(a).or_insert(l.no);
        for to in tos {
            let b = self.space(l.no, to)?;
            self.not_sea(l.no, b)?;
            if a == b {
                return Err(self.err(
                    l.no,
                    format!("army {}: lists {} itself", self.code(a), self.code(a)),
                ));
            }
            if let Some(&(_, _, first)) = self.army_edges.iter().find(|e| (e.0, e.1) == (a, b)) {
                return Err(self.err(
                    l.no,
                    format!(
                        "army {}: {} is listed twice (first on line {first})",
                        self.code(a),
                        self.code(b)
                    ),
                ));
            }
            self.army_edges.push((a, b, l.no));
        }
        Ok(())
    }

    fn not_sea(&self, line: usize, p: ProvinceId) -> Res<()> {
        if self.provinces[p.index()].kind == SpaceKind::Sea {
            return Err(self.err(
                line,
                format!(
                    "{} is a sea; army moves join land and coastal spaces only (a crossing by sea is a 'passage' line)",
                    self.code(p)
                ),
            ));
        }
        Ok(())
    }

    pub(super) fn fleet_line(&mut self, l: &Line<'f>) -> Res<()> {
        let (from, tos) = self.edge_args(l, "fleet REGION: REGION...")?;
        let a = self.fleet_region(l.no, from)?;
        self.fleet_lines.entry(a).or_insert(l.no);
        for to in tos {
            let b = self.fleet_region(l.no, to)?;
            if a.province == b.province {
                return Err(self.err(
                    l.no,
                    format!(
                        "fleet {}: lists its own space {}",
                        self.region_name(a),
                        self.region_name(b)
                    ),
                ));
            }
            if let Some(&(_, _, first)) = self.fleet_edges.iter().find(|e| (e.0, e.1) == (a, b)) {
                return Err(self.err(
                    l.no,
                    format!(
                        "fleet {}: {} is listed twice (first on line {first})",
                        self.region_name(a),
                        self.region_name(b)
                    ),
                ));
            }
            self.fleet_edges.push((a, b, l.no));
        }
        Ok(())
    }

    pub(super) fn passage_line(&mut self, l: &Line<'f>) -> Res<()> {
        let a = self.args(l)?;
        let [x, y, sea] = a.as_slice() else {
            return Err(self.usage(l, "passage CODE CODE SEA"));
        };
        let (pa, pb, ps) = (
            self.space(l.no, x)?,
            self.space(l.no, y)?,
            self.space(l.no, sea)?,
        );
        for p in [pa, pb] {
            if self.provinces[p.index()].kind == SpaceKind::Sea {
                return Err(self.err(
                    l.no,
                    format!(
                        "a passage joins two land or coastal spaces, and {} is a sea",
                        self.code(p)
                    ),
                ));
            }
        }
        if pa == pb {
            return Err(self.err(l.no, format!("a passage from {} to itself", self.code(pa))));
        }
        if self.provinces[ps.index()].kind != SpaceKind::Sea {
            return Err(self.err(
                l.no,
                format!(
                    "a passage crosses a sea, and {} is not a sea",
                    self.code(ps)
                ),
            ));
        }
        if let Some((first, _)) = self
            .passages
            .iter()
            .find(|(_, p)| (p.a == pa && p.b == pb) || (p.a == pb && p.b == pa))
        {
            return Err(self.err(
                l.no,
                format!(
                    "a second passage between {} and {} (the first is line {first})",
                    self.code(pa),
                    self.code(pb)
                ),
            ));
        }
        self.passages.push((
            l.no,
            Passage {
                a: pa,
                b: pb,
                sea: ps,
            },
        ));
        Ok(())
    }

    pub(super) fn unit_line(&mut self, l: &Line<'f>) -> Res<()> {
        let a = self.args(l)?;
        let [power, kind, region] = a.as_slice() else {
            return Err(self.usage(l, "unit POWER A|F REGION"));
        };
        let power = self.power(l.no, power)?;
        let unit = match kind.to_ascii_lowercase().as_str() {
            "a" | "army" => UnitType::Army,
            "f" | "fleet" => UnitType::Fleet,
            other => return Err(self.err(l.no, format!("a unit is 'A' or 'F', not '{other}'"))),
        };
        self.units.push((l.no, power, unit, region));
        Ok(())
    }
}
