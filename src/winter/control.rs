//! Control of the minors outside the bids (R7.8, R7.11): detecting a major that loses a minor,
//! and the GM's commands that name a new controller or record an adoption.

use super::ledger::{LedgerError, Ledgers};
use crate::position::{Force, Position};
use crate::variant::{Phase, PowerId, PowerKind, ProvinceId, Variant};

/// R7.8 (b): a controller with more than one unit inside its minor's home centres loses the minor
/// for good. The phase sequence calls this after every phase.
pub fn detect_crowding(variant: &Variant, position: &mut Position) {
    for (minor, major) in controlled(&position.ledgers) {
        let homes = variant.homes(minor);
        let inside: u32 = position
            .forces()
            .filter(|(p, f)| f.power == major && homes.contains(*p))
            .map(|(_, f)| f.components())
            .sum();
        if inside > 1 {
            let why = format!("it has {inside} units inside its home centres");
            let phase = position.phase;
            lose(variant, &mut position.ledgers, phase, minor, major, &why);
        }
    }
}

/// R7.8 (a): a controller occupying a centre its minor owns at the end of an Autumn season loses
/// the minor for good. The phase sequence calls this at the end of Autumn (`phase`), with the
/// units and the centre owners before the centres change hands.
pub fn detect_occupation(
    variant: &Variant,
    units: &[Option<Force>],
    owners: &[Option<PowerId>],
    ledgers: &mut Ledgers,
    phase: Phase,
) {
    for (minor, major) in controlled(ledgers) {
        let occupied = units.iter().enumerate().find(|(p, f)| {
            f.is_some_and(|f| f.power == major) && owners.get(*p) == Some(&Some(minor))
        });
        if let Some((p, _)) = occupied {
            let why = format!(
                "it occupies {} at the end of the Autumn",
                variant.provinces[p].name
            );
            lose(variant, ledgers, phase, minor, major, &why);
        }
    }
}

fn controlled(ledgers: &Ledgers) -> Vec<(PowerId, PowerId)> {
    ledgers
        .minors
        .iter()
        .filter_map(|(&m, c)| c.controller.map(|c| (m, c)))
        .collect()
}

fn lose(
    variant: &Variant,
    ledgers: &mut Ledgers,
    phase: Phase,
    minor: PowerId,
    major: PowerId,
    why: &str,
) {
    let control = ledgers.minors.entry(minor).or_default();
    control.controller = None;
    control.years = 0;
    if !control.barred.contains(&major) {
        control.barred.push(major);
    }
    let (minor, major) = (&variant.power(minor).name, &variant.power(major).name);
    ledgers.note(
        phase,
        format!("{major} loses control of {minor} for good (R7.8): {why}; the GM names the new controller"),
    );
}

/// A GM command on the ledgers, as the GM's mail (or a case's `GM:` line) writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GmCommand {
    /// `CONTROL Denmark France` (or `none`): the GM names a minor's controller (R7.8).
    Control {
        /// The minor.
        minor: PowerId,
        /// The new controller, or nobody.
        major: Option<PowerId>,
    },
    /// `ADOPT Sweden England`: England makes Sweden its major power (optional rule 12, R7.11).
    Adopt {
        /// The minor adopted.
        minor: PowerId,
        /// The major adopting it.
        major: PowerId,
    },
}

impl GmCommand {
    /// Reads `CONTROL MINOR MAJOR|none` or `ADOPT MINOR MAJOR`.
    pub fn parse(variant: &Variant, text: &str) -> Result<GmCommand, LedgerError> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let power = |w: &str| {
            variant
                .power_by_name(w)
                .ok_or_else(|| LedgerError::UnknownPower(w.to_string()))
        };
        match words.as_slice() {
            [c, minor, major] if c.eq_ignore_ascii_case("control") => Ok(GmCommand::Control {
                minor: power(minor)?,
                major: if major.eq_ignore_ascii_case("none") {
                    None
                } else {
                    Some(power(major)?)
                },
            }),
            [c, minor, major] if c.eq_ignore_ascii_case("adopt") => Ok(GmCommand::Adopt {
                minor: power(minor)?,
                major: power(major)?,
            }),
            _ => Err(LedgerError::UnknownCommand(text.to_string())),
        }
    }

    /// Carries the command out on `position`, or says why it can't be.
    pub fn apply(&self, variant: &Variant, position: &mut Position) -> Result<(), LedgerError> {
        match *self {
            GmCommand::Control { minor, major } => give_control(variant, position, minor, major),
            GmCommand::Adopt { minor, major } => adopt(variant, position, minor, major),
        }
    }
}

fn check_kinds(variant: &Variant, minor: PowerId, major: PowerId) -> Result<(), LedgerError> {
    let name = |p: PowerId| variant.power(p).name.clone();
    if variant.power(minor).kind != PowerKind::Minor {
        return Err(LedgerError::NotMinor(name(minor)));
    }
    if variant.power(major).kind != PowerKind::Major {
        return Err(LedgerError::NotMajor(name(major)));
    }
    Ok(())
}

/// The GM names `minor`'s controller (or nobody) after a loss of control or an attack on an
/// uncontrolled minor (R7.8). Control starts at 0 years: no automatic IP until it is kept at a
/// Winter's bids.
pub fn give_control(
    variant: &Variant,
    position: &mut Position,
    minor: PowerId,
    major: Option<PowerId>,
) -> Result<(), LedgerError> {
    if let Some(m) = major {
        check_kinds(variant, minor, m)?;
        if position.ledgers.barred(minor, m) {
            return Err(LedgerError::Barred {
                major: variant.power(m).name.clone(),
                minor: variant.power(minor).name.clone(),
            });
        }
    } else if variant.power(minor).kind != PowerKind::Minor {
        return Err(LedgerError::NotMinor(variant.power(minor).name.clone()));
    }
    let phase = position.phase;
    let control = position.ledgers.minors.entry(minor).or_default();
    control.controller = major;
    control.years = 0;
    let who = major.map_or("nobody".to_string(), |m| variant.power(m).name.clone());
    position.ledgers.note(
        phase,
        format!(
            "the GM gives control of {} to {who}",
            variant.power(minor).name
        ),
    );
    Ok(())
}

/// Optional rule 12 (R7.11): `major` makes a minor it controls, owning at least 4 centres, its
/// new major power. The minor's home centres become its original ones plus the others it owns,
/// alphabetically by name, up to 4 (the judge does not yet track how long a centre was held).
/// The adoption is recorded and reported; the GM re-seats the players.
pub fn adopt(
    variant: &Variant,
    position: &mut Position,
    minor: PowerId,
    major: PowerId,
) -> Result<(), LedgerError> {
    if !variant.rules.adoption {
        return Err(LedgerError::Rule12Off);
    }
    check_kinds(variant, minor, major)?;
    let cannot = |why: String| LedgerError::CannotAdopt {
        major: variant.power(major).name.clone(),
        minor: variant.power(minor).name.clone(),
        why,
    };
    if position.ledgers.controller(minor) != Some(major) {
        return Err(cannot("it does not control it".into()));
    }
    let owned = position.centre_count(variant, minor);
    if owned < 4 {
        return Err(cannot(format!("it owns {owned} centres, not the 4 needed")));
    }
    let homes = variant.homes(minor);
    let mut others: Vec<ProvinceId> = variant
        .centres()
        .iter()
        .filter(|p| position.owners[p.index()] == Some(minor) && !homes.contains(*p))
        .collect();
    others.sort_by(|a, b| variant.province(*a).name.cmp(&variant.province(*b).name));
    let mut new_homes: Vec<String> = homes
        .iter()
        .map(|p| variant.province(p).name.clone())
        .collect();
    let wanted = 4usize.saturating_sub(new_homes.len());
    new_homes.extend(
        others
            .iter()
            .take(wanted)
            .map(|p| variant.province(*p).name.clone()),
    );
    position.ledgers.adoptions.push((major, minor));
    let phase = position.phase;
    position.ledgers.note(
        phase,
        format!(
            "{} adopts {} as its major power (rule 12); home centres: {}",
            variant.power(major).name,
            variant.power(minor).name,
            new_homes.join(", ")
        ),
    );
    Ok(())
}
