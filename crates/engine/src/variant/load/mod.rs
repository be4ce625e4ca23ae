//! Reading and validating a variant file (`docs/variant-format.md`).
//!
//! The file is read in passes so that its lines may come in any order: first the declarations
//! (`variant`, `power`, `space`, ...), then the facts that name declared things (`coasts`,
//! `centre`, `alias`, ...), then the edges, passages and units, and last the checks that need the
//! whole board (edge symmetry, starting units). Each pass has its file (`declare`, `facts`,
//! `edges`, `board`); `tokens` splits the lines into words.

mod board;
mod declare;
mod edges;
mod facts;
mod tokens;

use super::names::{closest, key};
use super::{
    BuildSite, Coast, Passage, Power, PowerId, Province, ProvinceId, Region, Rules, SpaceKind,
    UnitType, Variant,
};
use std::collections::{BTreeMap, HashMap};
use tokens::{tokenize, Line, Tok};

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
        include_str!("../../../../../variant/standard.variant"),
    ),
    (
        "napoleonic",
        include_str!("../../../../../variant/napoleonic.variant"),
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

/// A coasted space's regions as a message offers them: `Spa/nc or Spa/sc`.
fn coast_options(prov: &Province) -> String {
    prov.coasts
        .iter()
        .map(|k| format!("{}/{}", prov.code, k.code()))
        .collect::<Vec<_>>()
        .join(" or ")
}

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
                let options = coast_options(prov);
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
}
