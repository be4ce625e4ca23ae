//! Reading and validating a variant file (`docs/variant-format.md`).
//!
//! The file is read in passes so that its lines may come in any order: first the declarations
//! (`variant`, `power`, `space`, ...), then the facts that name declared things (`coasts`,
//! `centre`, `alias`, ...), then the edges, passages and units, and last the checks that need the
//! whole board (edge symmetry, starting units).

use super::names::{closest, key};
use super::{
    BuildSite, Coast, Passage, Phase, PhaseKind, Power, PowerId, PowerKind, Province, ProvinceId,
    ProvinceSet, Region, Rules, Season, SpaceKind, StartUnit, UnitType, Variant, MAX_PROVINCES,
};
use nom::branch::alt;
use nom::bytes::complete::{take_till, take_till1, take_while};
use nom::character::complete::char;
use nom::combinator::{opt, rest};
use nom::multi::many0;
use nom::sequence::{delimited, preceded, terminated};
use nom::{IResult, Parser};
use std::collections::{BTreeMap, HashMap, HashSet};

/// Why a variant could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file says something wrong at a line.
    #[error("{file}:{line}: {message}")]
    Invalid {
        /// The file (or source name).
        file: String,
        /// The 1-based line.
        line: usize,
        /// What is wrong, and what would be right.
        message: String,
    },
    /// The file is not text in an encoding the loader reads.
    #[error("{file}: {source}")]
    Decode {
        /// The path.
        file: String,
        /// Where and why.
        source: super::DecodeError,
    },
    /// No built-in variant has that name.
    #[error("no variant called '{0}' (built in: standard, napoleonic)")]
    UnknownVariant(String),
}

/// The variants built into the binary: name and file text.
const BUILTIN: &[(&str, &str)] = &[
    (
        "standard",
        include_str!("../../../../variant/standard.variant"),
    ),
    (
        "napoleonic",
        include_str!("../../../../variant/napoleonic.variant"),
    ),
];

/// Loads a variant from its text; `source` names it in error messages.
pub fn load(source: &str, text: &str) -> Result<Variant, LoadError> {
    // Editors on Windows may save a byte-order mark, which would stick to the first word.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines = tokenize(source, text)?;
    Builder::new(source).build(&lines)
}

/// Loads a built-in variant by name (`standard`, `napoleonic`: built into the binary from
/// `variant/`).
pub fn load_named(name: &str) -> Result<Variant, LoadError> {
    BUILTIN
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map_or_else(
            || Err(LoadError::UnknownVariant(name.to_string())),
            |(n, text)| load(&format!("variant/{n}.variant"), text),
        )
}

// ---------------------------------------------------------------------------------------------
// Tokens

/// One word of a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok<'a> {
    /// A bare word.
    Word(&'a str),
    /// A double-quoted string, without its quotes.
    Quoted(&'a str),
    /// The `:` after the first region of an `army`/`fleet` line.
    Colon,
}

impl<'a> Tok<'a> {
    fn text(self) -> &'a str {
        match self {
            Tok::Word(s) | Tok::Quoted(s) => s,
            Tok::Colon => ":",
        }
    }
}

/// A non-blank line: its 1-based number and its words.
struct Line<'a> {
    no: usize,
    toks: Vec<Tok<'a>>,
}

impl<'a> Line<'a> {
    /// The directive, lower case.
    fn keyword(&self) -> String {
        self.toks
            .first()
            .map_or(String::new(), |t| t.text().to_ascii_lowercase())
    }
}

fn token(input: &str) -> IResult<&str, Tok<'_>> {
    alt((
        delimited(char('"'), take_till(|c| c == '"'), char('"')).map(Tok::Quoted),
        char(':').map(|_| Tok::Colon),
        take_till1(|c: char| c.is_whitespace() || matches!(c, '"' | ':' | '#')).map(Tok::Word),
    ))
    .parse(input)
}

/// Blanks between words: any Unicode white space, since `token` stops at any (a pasted
/// non-breaking space would otherwise be unreadable).
fn blank(input: &str) -> IResult<&str, &str> {
    take_while(char::is_whitespace).parse(input)
}

/// The words of one line, up to an optional `#` comment.
fn line_tokens(input: &str) -> IResult<&str, Vec<Tok<'_>>> {
    terminated(
        many0(preceded(blank, token)),
        (blank, opt((char('#'), rest))),
    )
    .parse(input)
}

fn tokenize<'a>(file: &str, text: &'a str) -> Result<Vec<Line<'a>>, LoadError> {
    let mut lines = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let no = i + 1;
        let (left, toks) =
            line_tokens(raw).map_err(|_| invalid(file, no, "cannot read this line"))?;
        if !left.is_empty() {
            let message = if left.starts_with('"') {
                "a quoted name has no closing '\"'".to_string()
            } else {
                format!("cannot read '{left}'")
            };
            return Err(invalid(file, no, message));
        }
        if !toks.is_empty() {
            lines.push(Line { no, toks });
        }
    }
    Ok(lines)
}

fn invalid(file: &str, line: usize, message: impl Into<String>) -> LoadError {
    LoadError::Invalid {
        file: file.to_string(),
        line,
        message: message.into(),
    }
}

const DIRECTIVES: &[&str] = &[
    "variant",
    "title",
    "seasons",
    "start",
    "victory",
    "rules",
    "power",
    "space",
    "alias",
    "ambiguous",
    "coasts",
    "centre",
    "build",
    "army",
    "fleet",
    "passage",
    "unit",
];

/// The switches a `rules` line takes, for its messages.
fn switches() -> String {
    let mut names: Vec<&str> = super::SWITCHES.iter().map(|s| s.name).collect();
    names.push("extra-unit POWER");
    names.join(" ")
}

// ---------------------------------------------------------------------------------------------
// The builder

type Res<T> = Result<T, LoadError>;

/// A name a space answers to, and where the file gave it.
struct NameEntry {
    key: String,
    printed: String,
    space: ProvinceId,
    line: usize,
}

/// The board as it is being read.
struct Builder<'f> {
    file: &'f str,
    name: Option<(usize, String)>,
    title: Option<String>,
    seasons: Option<[String; 3]>,
    start: Option<(usize, String)>,
    victory: Option<(usize, u32)>,
    victory_overrides: Vec<(PowerId, u32, usize)>,
    rules: Rules,
    powers: Vec<Power>,
    power_lines: Vec<usize>,
    provinces: Vec<Province>,
    space_lines: Vec<usize>,
    /// Codes (by key) to spaces: how the file itself refers to spaces.
    codes: HashMap<String, ProvinceId>,
    coasts_lines: Vec<Option<usize>>,
    centre_lines: Vec<Option<usize>>,
    names: Vec<NameEntry>,
    /// Keys declared `ambiguous`, with their spaces and line.
    ambiguous: BTreeMap<String, (usize, Vec<ProvinceId>)>,
    build_sites: Vec<(usize, BuildSite)>,
    passages: Vec<(usize, Passage)>,
    /// Army edges in file order, with their line.
    army_edges: Vec<(ProvinceId, ProvinceId, usize)>,
    /// The first `army X:` line of each space.
    army_lines: HashMap<ProvinceId, usize>,
    fleet_edges: Vec<(Region, Region, usize)>,
    fleet_lines: HashMap<Region, usize>,
    units: Vec<(usize, PowerId, UnitType, &'f str)>,
}

impl<'f> Builder<'f> {
    fn new(file: &'f str) -> Self {
        Builder {
            file,
            name: None,
            title: None,
            seasons: None,
            start: None,
            victory: None,
            victory_overrides: Vec::new(),
            rules: Rules::default(),
            powers: Vec::new(),
            power_lines: Vec::new(),
            provinces: Vec::new(),
            space_lines: Vec::new(),
            codes: HashMap::new(),
            coasts_lines: Vec::new(),
            centre_lines: Vec::new(),
            names: Vec::new(),
            ambiguous: BTreeMap::new(),
            build_sites: Vec::new(),
            passages: Vec::new(),
            army_edges: Vec::new(),
            army_lines: HashMap::new(),
            fleet_edges: Vec::new(),
            fleet_lines: HashMap::new(),
            units: Vec::new(),
        }
    }

    fn err(&self, line: usize, message: impl Into<String>) -> LoadError {
        invalid(self.file, line, message)
    }

    fn build(mut self, lines: &[Line<'f>]) -> Res<Variant> {
        for l in lines {
            let kw = l.keyword();
            if !DIRECTIVES.contains(&kw.as_str()) {
                let hint = closest(&kw, DIRECTIVES.iter().copied()).map_or_else(
                    || format!(" (directives: {})", DIRECTIVES.join(" ")),
                    |d| format!(" (did you mean '{d}'?)"),
                );
                return Err(self.err(
                    l.no,
                    format!("unknown directive '{}'{hint}", l.toks[0].text()),
                ));
            }
        }
        // Pass 1: declarations.
        for l in lines {
            match l.keyword().as_str() {
                "variant" => self.variant_line(l)?,
                "title" => self.title_line(l)?,
                "seasons" => self.seasons_line(l)?,
                "start" => self.start_line(l)?,
                "power" => self.power_line(l)?,
                "space" => self.space_line(l)?,
                _ => {}
            }
        }
        // Pass 2: facts about declared spaces and powers.
        for l in lines {
            match l.keyword().as_str() {
                "rules" => self.rules_line(l)?,
                "victory" => self.victory_line(l)?,
                "coasts" => self.coasts_line(l)?,
                "centre" => self.centre_line(l)?,
                "alias" => self.alias_line(l)?,
                "ambiguous" => self.ambiguous_line(l)?,
                _ => {}
            }
        }
        // Pass 3: what needs centres and coasts known.
        for l in lines {
            match l.keyword().as_str() {
                "build" => self.build_line(l)?,
                "army" => self.army_line(l)?,
                "fleet" => self.fleet_line(l)?,
                "passage" => self.passage_line(l)?,
                "unit" => self.unit_line(l)?,
                _ => {}
            }
        }
        self.finish()
    }

    // --- argument helpers ---

    /// The words after the directive; a `:` is only allowed in `army`/`fleet` lines.
    fn args(&self, l: &Line<'f>) -> Res<Vec<&'f str>> {
        l.toks[1..]
            .iter()
            .map(|t| match t {
                Tok::Colon => {
                    Err(self.err(l.no, format!("unexpected ':' in a '{}' line", l.keyword())))
                }
                t => Ok(t.text()),
            })
            .collect()
    }

    fn usage(&self, l: &Line<'f>, usage: &str) -> LoadError {
        self.err(l.no, format!("expected: {usage}"))
    }

    /// A space by its code, as the file refers to it.
    fn space(&self, line: usize, code: &str) -> Res<ProvinceId> {
        if let Some(&p) = self.codes.get(&key(code)) {
            return Ok(p);
        }
        if let Some((base, _)) = code.split_once('/') {
            if self.codes.contains_key(&key(base)) {
                return Err(self.err(
                    line,
                    format!("'{code}': name the space without a coast here (write '{base}')"),
                ));
            }
        }
        let hint = closest(code, self.provinces.iter().map(|p| p.code.as_str()))
            .map_or(String::new(), |c| format!(" (did you mean '{c}'?)"));
        Err(self.err(line, format!("unknown space '{code}'{hint}")))
    }

    fn code(&self, p: ProvinceId) -> &str {
        &self.provinces[p.index()].code
    }

    fn power(&self, line: usize, name: &str) -> Res<PowerId> {
        let k = key(name);
        if let Some(i) = self
            .powers
            .iter()
            .position(|p| key(&p.name) == k || p.aliases.iter().any(|a| key(a) == k))
        {
            return Ok(PowerId(i as u8));
        }
        let hint = closest(name, self.powers.iter().map(|p| p.name.as_str()))
            .map_or(String::new(), |c| format!(" (did you mean '{c}'?)"));
        Err(self.err(line, format!("unknown power '{name}'{hint}")))
    }

    fn number(&self, line: usize, word: &str, what: &str) -> Res<u32> {
        word.parse()
            .map_err(|_| self.err(line, format!("{what} must be a number, not '{word}'")))
    }

    fn coast_word(&self, line: usize, word: &str) -> Res<Coast> {
        Coast::parse(word).ok_or_else(|| {
            self.err(
                line,
                format!("'{word}' is not a coast (use nc, sc, ec or wc)"),
            )
        })
    }

    fn coast_list(&self, p: ProvinceId) -> String {
        self.provinces[p.index()]
            .coasts
            .iter()
            .map(|c| c.code())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A region a fleet may stand in: `CODE` or `CODE/COAST`, exactly as the board allows.
    fn fleet_region(&self, line: usize, text: &str) -> Res<Region> {
        let (code, coast) = match text.split_once('/') {
            Some((c, coast)) => (c, Some(self.coast_word(line, coast)?)),
            None => (text, None),
        };
        let p = self.space(line, code)?;
        let prov = &self.provinces[p.index()];
        let c = &prov.code;
        if prov.kind == SpaceKind::Land {
            return Err(self.err(
                line,
                format!("{c} is inland; fleets cannot move to or from it"),
            ));
        }
        match coast {
            None if !prov.coasts.is_empty() => {
                let options = prov
                    .coasts
                    .iter()
                    .map(|k| format!("{c}/{}", k.code()))
                    .collect::<Vec<_>>()
                    .join(" or ");
                Err(self.err(
                    line,
                    format!("{c} has several coasts; name the coast ({options})"),
                ))
            }
            Some(k) if prov.coasts.is_empty() => Err(self.err(
                line,
                format!("{c} has no coasts; write {c}, not {c}/{}", k.code()),
            )),
            Some(k) if !prov.coasts.contains(&k) => Err(self.err(
                line,
                format!(
                    "{c} has no {} coast (its coasts: {})",
                    k.code(),
                    self.coast_list(p)
                ),
            )),
            _ => Ok(Region { province: p, coast }),
        }
    }

    fn region_name(&self, r: Region) -> String {
        match r.coast {
            Some(c) => format!("{}/{}", self.code(r.province), c.code()),
            None => self.code(r.province).to_string(),
        }
    }

    // --- pass 1 ---

    fn variant_line(&mut self, l: &Line<'f>) -> Res<()> {
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

    fn title_line(&mut self, l: &Line<'f>) -> Res<()> {
        let a = self.args(l)?;
        if a.is_empty() {
            return Err(self.usage(l, "title \"TEXT\""));
        }
        self.title = Some(a.join(" "));
        Ok(())
    }

    fn seasons_line(&mut self, l: &Line<'f>) -> Res<()> {
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

    fn start_line(&mut self, l: &Line<'f>) -> Res<()> {
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

    fn power_line(&mut self, l: &Line<'f>) -> Res<()> {
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

    fn space_line(&mut self, l: &Line<'f>) -> Res<()> {
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

    // --- pass 2 ---

    fn rules_line(&mut self, l: &Line<'f>) -> Res<()> {
        let a = self.args(l)?;
        if a.is_empty() {
            return Err(self.usage(l, &format!("rules SWITCH... ({})", switches())));
        }
        let mut words = a.iter();
        while let Some(w) = words.next() {
            if let Some(switch) = super::Switch::named(w) {
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

    fn victory_line(&mut self, l: &Line<'f>) -> Res<()> {
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

    fn coasts_line(&mut self, l: &Line<'f>) -> Res<()> {
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

    fn centre_line(&mut self, l: &Line<'f>) -> Res<()> {
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

    fn alias_line(&mut self, l: &Line<'f>) -> Res<()> {
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

    fn ambiguous_line(&mut self, l: &Line<'f>) -> Res<()> {
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

    // --- pass 3 ---

    fn build_line(&mut self, l: &Line<'f>) -> Res<()> {
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

    fn army_line(&mut self, l: &Line<'f>) -> Res<()> {
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

    fn fleet_line(&mut self, l: &Line<'f>) -> Res<()> {
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

    fn passage_line(&mut self, l: &Line<'f>) -> Res<()> {
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

    fn unit_line(&mut self, l: &Line<'f>) -> Res<()> {
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

    // --- the whole board ---

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

    fn finish(mut self) -> Res<Variant> {
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
            let options = prov
                .coasts
                .iter()
                .map(|k| format!("{c}/{}", k.code()))
                .collect::<Vec<_>>()
                .join(" or ");
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_split_words_quotes_colons_and_comments() {
        let (rest, toks) = line_tokens(r#"alias StP "St. Petersburg" x:y # note "#).unwrap();
        assert_eq!(rest, "");
        assert_eq!(
            toks,
            vec![
                Tok::Word("alias"),
                Tok::Word("StP"),
                Tok::Quoted("St. Petersburg"),
                Tok::Word("x"),
                Tok::Colon,
                Tok::Word("y"),
            ]
        );
    }

    #[test]
    fn blank_and_comment_lines_have_no_tokens() {
        let lines = tokenize("f", "\n   \n# only a comment\n\tvariant\u{a0}x\r\n").unwrap();
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].no, 4);
        assert_eq!(lines[0].keyword(), "variant");
        assert_eq!(lines[0].toks[1], Tok::Word("x"));
    }

    #[test]
    fn unterminated_quote_is_reported_at_its_line() {
        let err = tokenize("f", "variant x\ntitle \"Open").err().unwrap();
        assert_eq!(err.to_string(), "f:2: a quoted name has no closing '\"'");
    }
}
