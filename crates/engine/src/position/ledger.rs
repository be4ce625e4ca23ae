//! The ledger types: what the position remembers from Winter to Winter (banks, loans, control of
//! the minors, how long each centre has been held, adoptions) and what this Winter did (accounts,
//! influence, bids, winners), and the text form a case file and a result mail use
//! (`docs/case-format.md`, `LEDGER`). What happened is not kept here: each step of a phase returns
//! its events.

use crate::variant::{Lookup, PowerId, PowerKind, ProvinceId, ProvinceSet, Variant};
use std::collections::BTreeMap;

/// Supply points lent by one major to another for a year (R7.2).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Loan {
    /// Who lent.
    pub lender: PowerId,
    /// Who borrowed, and repays next Winter.
    pub borrower: PowerId,
    /// Supply points.
    pub amount: u32,
}

/// Who controls a minor, for how long, and who never may again (R7.6-R7.8).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MinorControl {
    /// The controlling major, if any.
    pub controller: Option<PowerId>,
    /// Consecutive Winters the controller has held it (automatic IP, R7.7).
    pub years: u32,
    /// Majors that lost control of it and may never regain it (R7.8).
    pub barred: Vec<PowerId>,
}

/// One major's supply-point account this Winter (R7.2).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Account {
    /// SP at hand after repayments and loans, before upkeep.
    pub available: u32,
    /// Upkeep of the units kept (3 SP each).
    pub upkeep: u32,
    /// SP converted to IP.
    pub converted: u32,
}

/// One major's influence points this Winter (R7.5).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Influence {
    /// IP received.
    pub received: u32,
    /// IP spent on accepted bids.
    pub spent: u32,
}

/// An accepted bid (R7.6).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Bid {
    /// The major that spent the IP.
    pub by: PowerId,
    /// The minor bid for.
    pub minor: PowerId,
    /// The major the bid counts for (the bidder itself, or the major it supports).
    pub for_: PowerId,
    /// Influence points.
    pub amount: u32,
}

/// Who owns a centre and since which year (for optional rule 12, R7.11).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Holding {
    /// The owner that took it.
    pub owner: PowerId,
    /// The year of the Autumn it took it in.
    pub since: u16,
}

/// A player's change of major power (optional rule 12, R7.11).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Adoption {
    /// The major power the player had: a minor from then on.
    pub old: PowerId,
    /// The minor the player adopted: its major power from then on.
    pub new: PowerId,
    /// The new major's home centres.
    pub homes: ProvinceSet,
}

/// Every power's Winter accounts and the control of the minor powers: part of the position, so
/// that a case file and a result mail can show it.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Ledgers {
    /// SP banked by each major.
    pub bank: BTreeMap<PowerId, u32>,
    /// Loans outstanding, repaid next Winter unless renewed.
    pub loans: Vec<Loan>,
    /// Control of each minor (minors absent here are uncontrolled, nobody barred).
    pub minors: BTreeMap<PowerId, MinorControl>,
    /// This Winter's supply-point accounts, per major.
    pub accounts: BTreeMap<PowerId, Account>,
    /// This Winter's influence points, per major.
    pub influence: BTreeMap<PowerId, Influence>,
    /// This Winter's accepted bids, in the order taken.
    pub bids: Vec<Bid>,
    /// This Winter's automatic IP (R7.7), per minor: its incumbent and the IP.
    pub automatic: BTreeMap<PowerId, (PowerId, u32)>,
    /// The majors that reached their victory threshold this Winter (R7.10).
    pub winners: Vec<PowerId>,
    /// Since when each centre's owner has held it, for the centres that changed hands during the
    /// game (a centre absent here, or recorded for another owner, is held since before it began).
    pub held: BTreeMap<ProvinceId, Holding>,
    /// The adoptions of optional rule 12 (R7.11), oldest first.
    pub adoptions: Vec<Adoption>,
}

impl Ledgers {
    /// The major that controls `minor` now, if any.
    pub fn controller(&self, minor: PowerId) -> Option<PowerId> {
        self.minors.get(&minor).and_then(|c| c.controller)
    }

    /// Whether `major` lost `minor` for good (R7.8).
    pub fn barred(&self, minor: PowerId, major: PowerId) -> bool {
        self.minors
            .get(&minor)
            .is_some_and(|c| c.barred.contains(&major))
    }

    /// The minors `major` controls.
    pub fn controlled_by(&self, major: PowerId) -> impl Iterator<Item = PowerId> + '_ {
        self.minors
            .iter()
            .filter(move |(_, c)| c.controller == Some(major))
            .map(|(&m, _)| m)
    }

    /// SP banked by `major`.
    pub fn banked(&self, major: PowerId) -> u32 {
        self.bank.get(&major).copied().unwrap_or(0)
    }

    /// Records a loan, adding to an outstanding one between the same two majors.
    pub fn add_loan(&mut self, lender: PowerId, borrower: PowerId, amount: u32) {
        match self
            .loans
            .iter_mut()
            .find(|l| l.lender == lender && l.borrower == borrower)
        {
            Some(l) => l.amount += amount,
            None => self.loans.push(Loan {
                lender,
                borrower,
                amount,
            }),
        }
    }

    /// Whether `power` is a major power now: the variant says so, unless an adoption changed it
    /// (R7.11).
    pub fn is_major(&self, variant: &Variant, power: PowerId) -> bool {
        for a in self.adoptions.iter().rev() {
            if a.new == power {
                return true;
            }
            if a.old == power {
                return false;
            }
        }
        variant.power(power).kind == PowerKind::Major
    }

    /// The majors now, in the variant's power order.
    pub fn majors<'a>(&'a self, variant: &'a Variant) -> impl Iterator<Item = PowerId> + 'a {
        variant
            .power_ids()
            .filter(move |&p| self.is_major(variant, p))
    }

    /// The minor powers now, in the variant's power order.
    pub fn minor_powers<'a>(&'a self, variant: &'a Variant) -> impl Iterator<Item = PowerId> + 'a {
        variant
            .power_ids()
            .filter(move |&p| !self.is_major(variant, p))
    }

    /// The home centres of `power`: the variant's, or those its adoption gave it (R7.11).
    pub fn homes(&self, variant: &Variant, power: PowerId) -> ProvinceSet {
        self.adoptions
            .iter()
            .rev()
            .find(|a| a.new == power)
            .map_or_else(|| variant.homes(power), |a| a.homes)
    }

    /// The year since which `owner` has held `centre`, or None when it has held it since before
    /// the game's recorded history (R7.11).
    pub fn held_since(&self, centre: ProvinceId, owner: PowerId) -> Option<u16> {
        self.held
            .get(&centre)
            .filter(|h| h.owner == owner)
            .map(|h| h.since)
    }

    /// Forgets last Winter's accounts, influence, automatic IP, bids and winners (banks, loans,
    /// control stay).
    pub fn start_winter(&mut self) {
        self.accounts.clear();
        self.influence.clear();
        self.automatic.clear();
        self.bids.clear();
        self.winners.clear();
    }

    /// Every power's ledger as items, for a result mail or a case's `POSTLEDGER`: majors show
    /// bank, loans made and owed, an adoption, and this Winter's SP, IP and automatic IP; minors
    /// their control; every power the centres it took during the game and since when.
    pub fn items(&self, variant: &Variant, power: PowerId) -> Vec<Item> {
        let mut out = Vec::new();
        out.extend(
            self.held
                .iter()
                .filter(|(_, h)| h.owner == power)
                .map(|(&p, h)| Item::Held(p, h.since)),
        );
        if !self.is_major(variant, power) {
            let c = self.minors.get(&power).cloned().unwrap_or_default();
            out.push(Item::Controller(c.controller, c.years));
            out.extend(c.barred.iter().map(|&b| Item::Barred(b)));
            return out;
        }
        out.extend(
            self.adoptions
                .iter()
                .filter(|a| a.new == power)
                .map(|a| Item::Adopted(a.old, a.homes)),
        );
        out.push(Item::Bank(self.banked(power)));
        for l in &self.loans {
            if l.lender == power {
                out.push(Item::Loan(l.amount, l.borrower));
            }
            if l.borrower == power {
                out.push(Item::Debt(l.amount, l.lender));
            }
        }
        if let Some(a) = self.accounts.get(&power) {
            out.push(Item::Sp(a.available));
            out.push(Item::Upkeep(a.upkeep));
            out.push(Item::Converted(a.converted));
        }
        if let Some(i) = self.influence.get(&power) {
            out.push(Item::Ip(i.received));
            out.push(Item::Spent(i.spent));
        }
        out.extend(
            self.automatic
                .iter()
                .filter(|(_, (major, _))| *major == power)
                .map(|(&minor, &(_, n))| Item::Auto(n, minor)),
        );
        out
    }
}

/// One item of a power's ledger as a case file or result mail writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Item {
    /// `bank 6`: SP banked.
    Bank(u32),
    /// `loan 6 to France`: SP lent, repaid next Winter.
    Loan(u32, PowerId),
    /// `debt 6 to England`: SP borrowed, to repay next Winter.
    Debt(u32, PowerId),
    /// `sp 15`: SP at hand this Winter before upkeep.
    Sp(u32),
    /// `upkeep 12`: SP paid for the units kept this Winter.
    Upkeep(u32),
    /// `converted 2`: SP converted to IP this Winter.
    Converted(u32),
    /// `ip 12`: IP received this Winter.
    Ip(u32),
    /// `spent 10`: IP spent on accepted bids this Winter.
    Spent(u32),
    /// `auto 7 Sweden`: the incumbent's automatic IP for a minor this Winter (R7.7).
    Auto(u32, PowerId),
    /// `controller England 3 years` or `controller none`.
    Controller(Option<PowerId>, u32),
    /// `barred France`: lost control for good.
    Barred(PowerId),
    /// `held Nwy since 1802`: a centre the power took in the Autumn of that year and has held
    /// since (R7.11).
    Held(ProvinceId, u16),
    /// `adopted from England homes Den Kau Nwy Swe`: the major power a player adopted in place of
    /// England, and its home centres (R7.11).
    Adopted(PowerId, ProvinceSet),
    /// `loan none`, `debt none`, `barred none`: no item of that key (a case's expectation only,
    /// never stored).
    #[serde(skip)]
    NoneOf(#[serde(skip)] &'static str),
}

/// Why a ledger item, a GM command or a ledger change can't be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LedgerError {
    /// Text that is no ledger item.
    #[error("'{0}' is not a ledger item (bank N, loan N to POWER, debt N to POWER, sp N, upkeep N, converted N, ip N, spent N, auto N MINOR, controller POWER N years, controller none, barred POWER, held CENTRE since YEAR, adopted from POWER homes CENTRE..., KEY none)")]
    Syntax(String),
    /// An item that describes a Winter's work, or a debt, in a pre-state.
    #[error("'{0}' describes what a Winter did (or a debt, written as the lender's loan): it can be checked after a phase, not set before one")]
    NotInLedger(String),
    /// A name that is no power.
    #[error("unknown power '{0}'")]
    UnknownPower(String),
    /// A name that is no supply centre.
    #[error("'{0}' is not a supply centre of this board")]
    UnknownCentre(String),
    /// A minor's item on a major's line or the other way round.
    #[error("{item} is not for {power} (a {kind} power)")]
    WrongKind {
        /// The item as written.
        item: String,
        /// The power.
        power: String,
        /// `major` or `minor`.
        kind: &'static str,
    },
    /// A power that must be a minor is not.
    #[error("{0} is not a minor power")]
    NotMinor(String),
    /// A power that must be a major is not.
    #[error("{0} is not a major power")]
    NotMajor(String),
    /// A major that may never control the minor again (R7.8).
    #[error("{major} lost control of {minor} for good (R7.8) and can never control it again")]
    Barred {
        /// The major.
        major: String,
        /// The minor.
        minor: String,
    },
    /// A GM command the judge doesn't know.
    #[error("'{0}' is not a GM command (CONTROL MINOR MAJOR|none, ADOPT MINOR MAJOR)")]
    UnknownCommand(String),
    /// Optional rule 12 is off in this game.
    #[error("optional rule 12 (adopting a minor) is not in use in this game")]
    Rule12Off,
    /// A major adopting a minor it doesn't control, or one too small (R7.11).
    #[error("{major} can't adopt {minor}: {why}")]
    CannotAdopt {
        /// The major.
        major: String,
        /// The minor.
        minor: String,
        /// Why not.
        why: String,
    },
}

impl Item {
    /// Whether the item is one Winter's figure (SP, upkeep, conversions, IP, bids, automatic
    /// IP), kept in the ledgers until the next Winter opens them again.
    pub fn of_one_winter(&self) -> bool {
        matches!(
            self,
            Item::Sp(_)
                | Item::Upkeep(_)
                | Item::Converted(_)
                | Item::Ip(_)
                | Item::Spent(_)
                | Item::Auto(..)
        )
    }

    /// The key that groups items in a `POSTLEDGER` comparison.
    pub fn key(&self) -> &'static str {
        match self {
            Item::Bank(_) => "bank",
            Item::Loan(..) => "loan",
            Item::Debt(..) => "debt",
            Item::Sp(_) => "sp",
            Item::Upkeep(_) => "upkeep",
            Item::Converted(_) => "converted",
            Item::Ip(_) => "ip",
            Item::Spent(_) => "spent",
            Item::Auto(..) => "auto",
            Item::Controller(..) => "controller",
            Item::Barred(_) => "barred",
            Item::Held(..) => "held",
            Item::Adopted(..) => "adopted",
            Item::NoneOf(k) => k,
        }
    }

    /// The kind of power whose line the item belongs on, when only one kind's.
    pub fn line_of(&self) -> Option<PowerKind> {
        match self {
            Item::Controller(..) | Item::Barred(_) | Item::NoneOf("barred" | "controller") => {
                Some(PowerKind::Minor)
            }
            Item::Held(..) | Item::NoneOf("held") => None,
            _ => Some(PowerKind::Major),
        }
    }

    /// The item as written: `loan 6 to France`.
    pub fn text(&self, variant: &Variant) -> String {
        let name = |p: &PowerId| variant.power(*p).name.clone();
        let code = |p: ProvinceId| variant.province(p).code.clone();
        match self {
            Item::Bank(n) => format!("bank {n}"),
            Item::Loan(n, p) => format!("loan {n} to {}", name(p)),
            Item::Debt(n, p) => format!("debt {n} to {}", name(p)),
            Item::Sp(n) => format!("sp {n}"),
            Item::Upkeep(n) => format!("upkeep {n}"),
            Item::Converted(n) => format!("converted {n}"),
            Item::Ip(n) => format!("ip {n}"),
            Item::Spent(n) => format!("spent {n}"),
            Item::Auto(n, p) => format!("auto {n} {}", name(p)),
            Item::Controller(None, _) => "controller none".into(),
            Item::Controller(Some(p), 1) => format!("controller {} 1 year", name(p)),
            Item::Controller(Some(p), y) => format!("controller {} {y} years", name(p)),
            Item::Barred(p) => format!("barred {}", name(p)),
            Item::Held(p, y) => format!("held {} since {y}", code(*p)),
            Item::Adopted(p, homes) => {
                // Codes in alphabetical order: one text for one set, however it was written.
                let mut codes: Vec<String> = homes.iter().map(code).collect();
                codes.sort();
                format!("adopted from {} homes {}", name(p), codes.join(" "))
            }
            Item::NoneOf(k) => format!("{k} none"),
        }
    }

    /// Reads one item (`bank 6`, `loan 3 to France`, `controller England 3 years`).
    pub fn parse(variant: &Variant, text: &str) -> Result<Item, LedgerError> {
        let syntax = || LedgerError::Syntax(text.to_string());
        let words: Vec<&str> = text.split_whitespace().collect();
        let power = |w: &str| {
            variant
                .power_by_name(w)
                .ok_or_else(|| LedgerError::UnknownPower(w.to_string()))
        };
        let num = |w: &str| w.parse::<u32>().map_err(|_| syntax());
        let key = words
            .first()
            .map(|w| w.to_ascii_lowercase())
            .unwrap_or_default();
        const KEYS: [&str; 13] = [
            "bank",
            "loan",
            "debt",
            "sp",
            "upkeep",
            "converted",
            "ip",
            "spent",
            "auto",
            "controller",
            "barred",
            "held",
            "adopted",
        ];
        let Some(&k) = KEYS.iter().find(|k| **k == key) else {
            return Err(syntax());
        };
        let rest = &words[1..];
        if rest.len() == 1 && rest[0].eq_ignore_ascii_case("none") {
            return Ok(match k {
                "controller" => Item::Controller(None, 0),
                _ => Item::NoneOf(k),
            });
        }
        let word = |w: &str, want: &str| w.eq_ignore_ascii_case(want);
        Ok(match (k, rest) {
            ("bank", [n]) => Item::Bank(num(n)?),
            ("sp", [n]) => Item::Sp(num(n)?),
            ("upkeep", [n]) => Item::Upkeep(num(n)?),
            ("converted", [n]) => Item::Converted(num(n)?),
            ("ip", [n]) => Item::Ip(num(n)?),
            ("spent", [n]) => Item::Spent(num(n)?),
            ("auto", [n, p]) => Item::Auto(num(n)?, power(p)?),
            ("loan", [n, to, p]) if word(to, "to") => Item::Loan(num(n)?, power(p)?),
            ("debt", [n, to, p]) if word(to, "to") => Item::Debt(num(n)?, power(p)?),
            ("barred", [p]) => Item::Barred(power(p)?),
            ("held", [c, since, y]) if word(since, "since") => {
                Item::Held(centre(variant, c)?, y.parse().map_err(|_| syntax())?)
            }
            ("adopted", [from, p, homes, cs @ ..])
                if word(from, "from") && word(homes, "homes") =>
            {
                let mut set = ProvinceSet::EMPTY;
                for c in cs {
                    set.insert(centre(variant, c)?);
                }
                Item::Adopted(power(p)?, set)
            }
            ("controller", [p]) => Item::Controller(Some(power(p)?), 0),
            ("controller", [p, n, y]) if y.to_ascii_lowercase().starts_with("year") => {
                Item::Controller(Some(power(p)?), num(n)?)
            }
            _ => return Err(syntax()),
        })
    }

    /// Puts a pre-state item (`LEDGER`) of `power` into the ledgers. Items that only describe a
    /// Winter's work (sp, ip, auto, ...) and debts (written on the lender's line) are refused.
    /// An adoption makes `power` a major and the power it names a minor for the items after it.
    pub fn apply(
        &self,
        variant: &Variant,
        ledgers: &mut Ledgers,
        power: PowerId,
    ) -> Result<(), LedgerError> {
        let p = variant.power(power);
        let kind = if ledgers.is_major(variant, power) {
            PowerKind::Major
        } else {
            PowerKind::Minor
        };
        // An adoption is written on the line of the new major, a minor until it is applied.
        let wanted = match self {
            Item::Adopted(..) => Some(PowerKind::Minor),
            other => other.line_of(),
        };
        if wanted.is_some_and(|w| w != kind) {
            return Err(LedgerError::WrongKind {
                item: self.text(variant),
                power: p.name.clone(),
                kind: match kind {
                    PowerKind::Major => "major",
                    PowerKind::Minor => "minor",
                },
            });
        }
        let not_major = |q: PowerId| LedgerError::NotMajor(variant.power(q).name.clone());
        match *self {
            Item::Bank(n) => {
                ledgers.bank.insert(power, n);
            }
            Item::Loan(n, to) => {
                if !ledgers.is_major(variant, to) || to == power {
                    return Err(not_major(to));
                }
                ledgers.add_loan(power, to, n);
            }
            Item::Controller(c, years) => {
                if let Some(c) = c.filter(|&c| !ledgers.is_major(variant, c)) {
                    return Err(not_major(c));
                }
                let m = ledgers.minors.entry(power).or_default();
                m.controller = c;
                m.years = years;
            }
            Item::Barred(b) => ledgers.minors.entry(power).or_default().barred.push(b),
            Item::Held(centre, since) => {
                let holding = Holding {
                    owner: power,
                    since,
                };
                ledgers.held.insert(centre, holding);
            }
            Item::Adopted(old, homes) => {
                if !ledgers.is_major(variant, old) {
                    return Err(not_major(old));
                }
                ledgers.adoptions.push(Adoption {
                    old,
                    new: power,
                    homes,
                });
            }
            Item::NoneOf(_) => {}
            _ => return Err(LedgerError::NotInLedger(self.text(variant))),
        }
        Ok(())
    }
}

/// The supply centre a ledger item names by code or name.
fn centre(variant: &Variant, text: &str) -> Result<ProvinceId, LedgerError> {
    let unknown = || LedgerError::UnknownCentre(text.to_string());
    let p = match variant.lookup(text) {
        Lookup::One(p) => p,
        // A code written exactly as the board prints it names its space.
        Lookup::Ambiguous(options) => options
            .into_iter()
            .find(|&p| variant.province(p).code == text)
            .ok_or_else(unknown)?,
        Lookup::Unknown { .. } => return Err(unknown()),
    };
    if variant.province(p).centre {
        Ok(p)
    } else {
        Err(unknown())
    }
}
