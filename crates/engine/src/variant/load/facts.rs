//! Pass 2 of a variant file: facts about the declared spaces and powers (`rules`, `victory`,
//! `coasts`, `centre`, `alias`, `ambiguous`).

use super::tokens::Line;
use super::{switches, Builder, NameEntry, Res};
use crate::variant::names::key;
use crate::variant::{PowerKind, ProvinceId, SpaceKind};

impl<'f> Builder<'f> {
    pub(super) fn rules_line(&mut self, l: &Line<'f>) -> Res<()> {
        let a = self.args(l)?;
        if a.is_empty() {
            return Err(self.usage(l, &format!("rules SWITCH... ({})", switches())));
        }
        let mut words = a.iter();
        while let Some(w) = words.next() {
            if let Some(switch) = crate::variant::Switch::named(w) {
                switch.set(&mut self.rules, true);
                continue;
            }
            match w.to_ascii_lowercase().as_str() {
                "extra-unit" => {
                    let Some(name) = words.next() else {
                        return Err(self.err(l.no, "'extra-unit' needs a power: extra-unit POWER"));
                    };
                    let p = self.power(l.no, name)?;
                    self.rules.extra_unit = Some(p);
                }
                other => {
                    return Err(self.err(
                        l.no,
                        format!("unknown rule switch '{other}' (switches: {})", switches()),
                    ));
                }
            }
        }
        Ok(())
    }

    pub(super) fn victory_line(&mut self, l: &Line<'f>) -> Res<()> {
        let a = self.args(l)?;
        match a.as_slice() {
            [n] => {
                if let Some((first, _)) = self.victory {
                    return Err(self.err(
                        l.no,
                        format!("a second 'victory N' line (the first is line {first})"),
                    ));
                }
                let n = self.number(l.no, n, "the victory threshold")?;
                self.victory = Some((l.no, n));
            }
            [power, n] => {
                let p = self.power(l.no, power)?;
                if self.powers[p.index()].kind == PowerKind::Minor {
                    return Err(self.err(
                        l.no,
                        format!(
                            "{} is a minor power, and only major powers win (R7.12)",
                            self.powers[p.index()].name
                        ),
                    ));
                }
                let n = self.number(l.no, n, "the victory threshold")?;
                if self.victory_overrides.iter().any(|(q, _, _)| *q == p) {
                    return Err(self.err(
                        l.no,
                        format!(
                            "a second victory threshold for {}",
                            self.powers[p.index()].name
                        ),
                    ));
                }
                self.victory_overrides.push((p, n, l.no));
            }
            _ => return Err(self.usage(l, "victory N, or victory POWER N")),
        }
        Ok(())
    }

    pub(super) fn coasts_line(&mut self, l: &Line<'f>) -> Res<()> {
        let a = self.args(l)?;
        let [code, coasts @ ..] = a.as_slice() else {
            return Err(self.usage(l, "coasts CODE COAST..."));
        };
        if coasts.is_empty() {
            return Err(self.usage(l, "coasts CODE COAST... (nc sc ec wc)"));
        }
        let p = self.space(l.no, code)?;
        if let Some(first) = self.coasts_lines[p.index()] {
            return Err(self.err(
                l.no,
                format!(
                    "the coasts of {} are already given (line {first})",
                    self.code(p)
                ),
            ));
        }
        if self.provinces[p.index()].kind != SpaceKind::Coast {
            return Err(self.err(
                l.no,
                format!(
                    "{} is not a coastal space; only a 'coast' space has coasts",
                    self.code(p)
                ),
            ));
        }
        let mut list = Vec::new();
        for w in coasts {
            let c = self.coast_word(l.no, w)?;
            if list.contains(&c) {
                return Err(self.err(l.no, format!("the coast {} is listed twice", c.code())));
            }
            list.push(c);
        }
        self.provinces[p.index()].coasts = list;
        self.coasts_lines[p.index()] = Some(l.no);
        Ok(())
    }

    pub(super) fn centre_line(&mut self, l: &Line<'f>) -> Res<()> {
        let a = self.args(l)?;
        let (code, power) = match a.as_slice() {
            [code] => (*code, None),
            [code, power] => (*code, Some(*power)),
            _ => return Err(self.usage(l, "centre CODE [POWER]")),
        };
        let p = self.space(l.no, code)?;
        if let Some(first) = self.centre_lines[p.index()] {
            return Err(self.err(
                l.no,
                format!("{} is already a centre (line {first})", self.code(p)),
            ));
        }
        if self.provinces[p.index()].kind == SpaceKind::Sea {
            return Err(self.err(
                l.no,
                format!(
                    "{} is a sea; a supply centre is a land or coastal space",
                    self.code(p)
                ),
            ));
        }
        let home = power.map(|w| self.power(l.no, w)).transpose()?;
        let prov = &mut self.provinces[p.index()];
        prov.centre = true;
        prov.home = home;
        self.centre_lines[p.index()] = Some(l.no);
        Ok(())
    }

    pub(super) fn alias_line(&mut self, l: &Line<'f>) -> Res<()> {
        let a = self.args(l)?;
        let [code, names @ ..] = a.as_slice() else {
            return Err(self.usage(l, "alias CODE NAME..."));
        };
        if names.is_empty() {
            return Err(self.usage(l, "alias CODE NAME..."));
        }
        let p = self.space(l.no, code)?;
        for n in names {
            self.names.push(NameEntry {
                key: key(n),
                printed: n.to_string(),
                space: p,
                line: l.no,
            });
        }
        Ok(())
    }

    pub(super) fn ambiguous_line(&mut self, l: &Line<'f>) -> Res<()> {
        let a = self.args(l)?;
        let [name, codes @ ..] = a.as_slice() else {
            return Err(self.usage(l, "ambiguous NAME CODE CODE..."));
        };
        if codes.len() < 2 {
            return Err(self.err(
                l.no,
                format!(
                    "'ambiguous {name}' needs at least two spaces: ambiguous NAME CODE CODE..."
                ),
            ));
        }
        let mut spaces = Vec::new();
        for c in codes {
            let p = self.space(l.no, c)?;
            if !spaces.contains(&p) {
                spaces.push(p);
            }
        }
        let k = key(name);
        // A space's own code or full name keeps meaning it: an ambiguity may only add the other
        // spaces it could mean (`Bal`: the Baltic, BAL, or the Balkans).
        if let Some(owner) = self
            .names
            .iter()
            .find(|e| e.key == k && self.is_own_name(e.space, &k) && !spaces.contains(&e.space))
        {
            return Err(self.err(
                l.no,
                format!(
                    "'{name}' is the name of {} (line {}): an ambiguous name may not hide it; \
                     list {} among its spaces or choose another name",
                    self.code(owner.space),
                    owner.line,
                    self.code(owner.space)
                ),
            ));
        }
        if let Some((first, _)) = self.ambiguous.get(&k) {
            return Err(self.err(
                l.no,
                format!("'{name}' is already declared ambiguous (line {first})"),
            ));
        }
        self.ambiguous.insert(k, (l.no, spaces));
        Ok(())
    }

    /// Whether `k` is the key of the space's own code or full name (not an alias).
    fn is_own_name(&self, p: ProvinceId, k: &str) -> bool {
        let prov = &self.provinces[p.index()];
        key(&prov.code) == k || key(&prov.name) == k
    }
}
