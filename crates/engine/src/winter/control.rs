//! Control of the minors outside the bids (R7.8, R7.11): detecting a major that loses a minor,
//! recording how long centres are held, and the GM's commands that name a new controller or
//! carry out an adoption.

use crate::outcome::{LossCause, WinterEvent};
use crate::position::ledger::{Adoption, Holding, LedgerError, Ledgers, MinorControl};
use crate::position::Position;
use crate::variant::{PowerId, ProvinceId, ProvinceSet, Variant};

/// R7.8 (b): a controller with more than one unit inside its minor's home centres loses the minor
/// for good. The phase sequence calls this after every phase; returns the losses.
pub fn detect_crowding(variant: &Variant, position: &mut Position) -> Vec<WinterEvent> {
    let mut events = Vec::new();
    for (minor, major) in controlled(&position.ledgers) {
        let homes = position.ledgers.homes(variant, minor);
        let inside: u32 = position
            .forces()
            .filter(|(p, f)| f.power == major && homes.contains(*p))
            .map(|(_, f)| f.components())
            .sum();
        if inside > 1 {
            events.push(lose(
                &mut position.ledgers,
                minor,
                major,
                LossCause::Crowded(inside),
            ));
        }
    }
    events
}

/// The end of an Autumn season, before its centres change hands (R7.1): R7.8 (a), a controller
/// occupying a centre its minor owns loses the minor for good; and every centre about to change
/// hands is recorded as held by its new owner since this year (for optional rule 12, R7.11).
/// Returns the losses.
pub fn before_centres_change(variant: &Variant, position: &mut Position) -> Vec<WinterEvent> {
    let mut events = Vec::new();
    for (minor, major) in controlled(&position.ledgers) {
        let occupied = position
            .forces()
            .find(|(p, f)| f.power == major && position.owners[p.index()] == Some(minor))
            .map(|(p, _)| p);
        if let Some(p) = occupied {
            events.push(lose(
                &mut position.ledgers,
                minor,
                major,
                LossCause::Occupied(p),
            ));
        }
    }
    let year = position.phase.year;
    for p in variant.centres().iter() {
        let Some(f) = position.units[p.index()] else {
            continue;
        };
        if position.owners[p.index()] != Some(f.power) {
            let holding = Holding {
                owner: f.power,
                since: year,
            };
            position.ledgers.held.insert(p, holding);
        }
    }
    events
}

fn controlled(ledgers: &Ledgers) -> Vec<(PowerId, PowerId)> {
    ledgers
        .minors
        .iter()
        .filter_map(|(&m, c)| c.controller.map(|c| (m, c)))
        .collect()
}

fn lose(ledgers: &mut Ledgers, minor: PowerId, major: PowerId, cause: LossCause) -> WinterEvent {
    let control = ledgers.minors.entry(minor).or_default();
    control.controller = None;
    control.years = 0;
    if !control.barred.contains(&major) {
        control.barred.push(major);
    }
    WinterEvent::ControlLost {
        minor,
        major,
        cause,
    }
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

    /// Carries the command out on `position`, or says why it can't be; the event is for the
    /// report of the phase the GM acts before.
    pub fn apply(
        &self,
        variant: &Variant,
        position: &mut Position,
    ) -> Result<WinterEvent, LedgerError> {
        match *self {
            GmCommand::Control { minor, major } => give_control(variant, position, minor, major),
            GmCommand::Adopt { minor, major } => adopt(variant, position, minor, major),
        }
    }
}

fn check_kinds(
    variant: &Variant,
    ledgers: &Ledgers,
    minor: PowerId,
    major: PowerId,
) -> Result<(), LedgerError> {
    let name = |p: PowerId| variant.power(p).name.clone();
    if ledgers.is_major(variant, minor) {
        return Err(LedgerError::NotMinor(name(minor)));
    }
    if !ledgers.is_major(variant, major) {
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
) -> Result<WinterEvent, LedgerError> {
    if let Some(m) = major {
        check_kinds(variant, &position.ledgers, minor, m)?;
        if position.ledgers.barred(minor, m) {
            return Err(LedgerError::Barred {
                major: variant.power(m).name.clone(),
                minor: variant.power(minor).name.clone(),
            });
        }
    } else if position.ledgers.is_major(variant, minor) {
        return Err(LedgerError::NotMinor(variant.power(minor).name.clone()));
    }
    let control = position.ledgers.minors.entry(minor).or_default();
    control.controller = major;
    control.years = 0;
    Ok(WinterEvent::GmControl { minor, major })
}

/// Optional rule 12 (R7.11): `major` makes `minor`, which it controls and which owns at least 4
/// centres, its new major power, and becomes a minor itself.
///
/// The minor's home centres become its own plus, to make 4, the others it owns that it has held
/// the longest (alphabetically by name on a tie). What the player had as a major goes with it to
/// the new major: the bank, loans made and owed, control of its other minors (years kept) and the
/// minors it was barred from. The old major becomes a minor the new major controls, at 0 years,
/// with its own home centres.
pub fn adopt(
    variant: &Variant,
    position: &mut Position,
    minor: PowerId,
    major: PowerId,
) -> Result<WinterEvent, LedgerError> {
    if !variant.rules.adoption {
        return Err(LedgerError::Rule12Off);
    }
    check_kinds(variant, &position.ledgers, minor, major)?;
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
    let homes = new_homes(variant, position, minor);
    let ledgers = &mut position.ledgers;
    let mut set = ProvinceSet::EMPTY;
    for &p in &homes {
        set.insert(p);
    }
    ledgers.adoptions.push(Adoption {
        old: major,
        new: minor,
        homes: set,
    });
    ledgers.minors.remove(&minor);
    for control in ledgers.minors.values_mut() {
        if control.controller == Some(major) {
            control.controller = Some(minor);
        }
        if control.barred.contains(&major) && !control.barred.contains(&minor) {
            control.barred.push(minor);
        }
    }
    ledgers.minors.insert(
        major,
        MinorControl {
            controller: Some(minor),
            years: 0,
            barred: Vec::new(),
        },
    );
    if let Some(bank) = ledgers.bank.remove(&major) {
        ledgers.bank.insert(minor, bank);
    }
    for loan in &mut ledgers.loans {
        for side in [&mut loan.lender, &mut loan.borrower] {
            if *side == major {
                *side = minor;
            }
        }
    }
    Ok(WinterEvent::Adopted {
        old: major,
        new: minor,
        homes,
    })
}

/// The adopted minor's 4 home centres (R7.11): its own, then the other centres it owns, held the
/// longest first, alphabetically by name on a tie.
fn new_homes(variant: &Variant, position: &Position, minor: PowerId) -> Vec<ProvinceId> {
    let ledgers = &position.ledgers;
    let own = ledgers.homes(variant, minor);
    let mut others: Vec<ProvinceId> = variant
        .centres()
        .iter()
        .filter(|p| position.owners[p.index()] == Some(minor) && !own.contains(*p))
        .collect();
    // Held since before the recorded history (None) is the longest.
    others.sort_by(|&a, &b| {
        let since = |p| ledgers.held_since(p, minor);
        since(a)
            .cmp(&since(b))
            .then_with(|| variant.province(a).name.cmp(&variant.province(b).name))
    });
    let wanted = 4usize.saturating_sub(own.len());
    own.iter().chain(others.into_iter().take(wanted)).collect()
}
