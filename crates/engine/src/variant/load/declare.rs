//! Pass 1 of a variant file: the declarations (`variant`, `title`, `seasons`, `start`, `power`,
//! `space`) that the later lines name.

use super::tokens::Line;
use super::{Builder, NameEntry, Res};
use crate::variant::names::key;
use crate::variant::{Power, PowerKind, Province, ProvinceId, SpaceKind, MAX_PROVINCES};

impl<'f> Builder<'f> {
    pub(super) fn variant_line(&mut self, l: &Line<'f>) -> Res<()> {
        let a = self.args(l)?;
        let [name] = a.as_slice() else {
            return Err(self.usage(l, "variant NAME"));
        };
        if let Some((first, _)) = &self.name {
            return Err(self.err(
                l.no,
                format!("a second 'variant' line (the first is line {first})"),
            ));
        }
        self.name = Some((l.no, name.to_string()));
        Ok(())
    }

    pub(super) fn title_line(&mut self, l: &Line<'f>) -> Res<()> {
        let a = self.args(l)?;
        if a.is_empty() {
            return Err(self.usage(l, "title \"TEXT\""));
        }
        self.title = Some(a.join(" "));
        Ok(())
    }

    pub(super) fn seasons_line(&mut self, l: &Line<'f>) -> Res<()> {
        let a = self.args(l)?;
        let [s, a2, w] = a.as_slice() else {
            return Err(self.usage(l, "seasons SPRING AUTUMN WINTER (three names)"));
        };
        if self.seasons.is_some() {
            return Err(self.err(l.no, "a second 'seasons' line: name the seasons once"));
        }
        if s.eq_ignore_ascii_case(a2) || s.eq_ignore_ascii_case(w) || a2.eq_ignore_ascii_case(w) {
            return Err(self.err(
                l.no,
                "the three seasons need three different names (a phase names its season)",
            ));
        }
        self.seasons = Some([s.to_string(), a2.to_string(), w.to_string()]);
        Ok(())
    }

    pub(super) fn start_line(&mut self, l: &Line<'f>) -> Res<()> {
        let a = self.args(l)?;
        if let Some((first, _)) = &self.start {
            return Err(self.err(
                l.no,
                format!("a second 'start' line (the first is line {first})"),
            ));
        }
        self.start = Some((l.no, a.join(" ")));
        Ok(())
    }

    pub(super) fn power_line(&mut self, l: &Line<'f>) -> Res<()> {
        let usage = "power NAME major|minor [alias NAME...]";
        let a = self.args(l)?;
        let (name, kind, aliases) = match a.as_slice() {
            [name, kind] => (*name, *kind, &[][..]),
            [name, kind, alias, rest @ ..]
                if alias.eq_ignore_ascii_case("alias") && !rest.is_empty() =>
            {
                (*name, *kind, rest)
            }
            _ => return Err(self.usage(l, usage)),
        };
        let kind = match kind.to_ascii_lowercase().as_str() {
            "major" => PowerKind::Major,
            "minor" => PowerKind::Minor,
            other => {
                return Err(self.err(
                    l.no,
                    format!("a power is 'major' or 'minor', not '{other}'"),
                ));
            }
        };
        if self.powers.len() > u8::MAX as usize {
            return Err(self.err(l.no, "too many powers (at most 256)"));
        }
        for n in std::iter::once(name).chain(aliases.iter().copied()) {
            let k = key(n);
            if let Some(i) = self
                .powers
                .iter()
                .position(|p| key(&p.name) == k || p.aliases.iter().any(|a| key(a) == k))
            {
                return Err(self.err(
                    l.no,
                    format!(
                        "'{n}' already names the power {} (line {})",
                        self.powers[i].name, self.power_lines[i]
                    ),
                ));
            }
        }
        self.powers.push(Power {
            name: name.to_string(),
            kind,
            aliases: aliases.iter().map(|s| s.to_string()).collect(),
        });
        self.power_lines.push(l.no);
        Ok(())
    }

    pub(super) fn space_line(&mut self, l: &Line<'f>) -> Res<()> {
        let usage = "space CODE land|coast|sea \"FULL NAME\"";
        let a = self.args(l)?;
        let (code, kind, full) = match a.as_slice() {
            [code, kind] => (*code, *kind, *code),
            [code, kind, full] => (*code, *kind, *full),
            _ => return Err(self.usage(l, usage)),
        };
        if code.contains('/') {
            return Err(self.err(l.no, format!("a space code cannot contain '/': '{code}'")));
        }
        let kind = match kind.to_ascii_lowercase().as_str() {
            "land" => SpaceKind::Land,
            "coast" => SpaceKind::Coast,
            "sea" => SpaceKind::Sea,
            other => {
                return Err(self.err(
                    l.no,
                    format!("a space is 'land', 'coast' or 'sea', not '{other}'"),
                ));
            }
        };
        if let Some(&p) = self.codes.get(&key(code)) {
            return Err(self.err(
                l.no,
                format!(
                    "the code '{code}' is already used by {} (line {})",
                    self.code(p),
                    self.space_lines[p.index()]
                ),
            ));
        }
        if self.provinces.len() >= MAX_PROVINCES {
            return Err(self.err(
                l.no,
                format!("too many spaces: a board may have at most {MAX_PROVINCES}"),
            ));
        }
        let id = ProvinceId(self.provinces.len() as u8);
        self.provinces.push(Province {
            code: code.to_string(),
            name: full.to_string(),
            kind,
            coasts: Vec::new(),
            centre: false,
            home: None,
        });
        self.space_lines.push(l.no);
        self.coasts_lines.push(None);
        self.centre_lines.push(None);
        self.codes.insert(key(code), id);
        for n in [code, full] {
            self.names.push(NameEntry {
                key: key(n),
                printed: n.to_string(),
                space: id,
                line: l.no,
            });
        }
        Ok(())
    }
}
