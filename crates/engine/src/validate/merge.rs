//! Merges (R2): a one-line merge's participants dropped one by one as their own `MERGE` lines
//! would be, and a merge's written result matched to what its participants bring across the set.

use super::error::describe_counts;
use super::{Checked, Checker, ValidationError};
use crate::order::{Order, OrderKind, Place, Stage, UnitSpec};
use crate::variant::{spec_text, ProvinceId, Region};

/// A one-line merge with the participants `valid` refuses left out, as their own `MERGE` lines
/// would be void (R2.6); the result written loses what they would have brought. Void, with the
/// first participant's reason, when none is left. `None` for any other order.
pub(super) fn without_void_participants(
    mut order: Order<Region>,
    mut valid: impl FnMut(&UnitSpec<Region>) -> Result<(), ValidationError>,
) -> Option<Checked> {
    let OrderKind::Merge { units, result, .. } = &mut order.kind else {
        return None;
    };
    if units.len() < 2 {
        return None;
    }
    let mut void = None;
    let mut kept = Vec::new();
    for u in units.drain(..) {
        match valid(&u) {
            Ok(()) => kept.push(u),
            Err(e) => {
                if let Some((a, f)) = result {
                    *a = a.saturating_sub(u.armies);
                    *f = f.saturating_sub(u.fleets);
                }
                void.get_or_insert(e);
            }
        }
    }
    *units = kept;
    Some(match void {
        Some(e) if units.is_empty() => Err(e),
        _ => Ok(order),
    })
}

/// A one-line merge without its participants written with an ambiguous name, when its target
/// and some participant are written plainly; the written result loses what they would bring.
pub(super) fn without_ambiguous_participants(order: &Order<Place>) -> Option<Order<Place>> {
    let OrderKind::Merge {
        units,
        target: Place::Known(_),
        result,
    } = &order.kind
    else {
        return None;
    };
    let plain = |u: &&UnitSpec<Place>| matches!(u.at, Place::Known(_));
    let kept: Vec<UnitSpec<Place>> = units.iter().filter(plain).cloned().collect();
    if kept.is_empty() || kept.len() == units.len() {
        return None;
    }
    let result = result.map(|(mut a, mut f)| {
        for u in units.iter().filter(|u| !plain(u)) {
            a = a.saturating_sub(u.armies);
            f = f.saturating_sub(u.fleets);
        }
        (a, f)
    });
    let mut rest = order.clone();
    if let OrderKind::Merge {
        units, result: r, ..
    } = &mut rest.kind
    {
        *units = kept;
        *r = result;
    }
    Some(rest)
}

/// A merge target in one phase, and the (armies, fleets) its participants bring.
type MergeSum = ((Stage, ProvinceId), (u8, u8));

/// For each merge target of the set (and phase), the components of every participant written,
/// in either notation (R2.6): one line with them all, or a line each.
pub(super) fn merge_sums(checked: &[Checked]) -> Vec<MergeSum> {
    let mut sums: Vec<MergeSum> = Vec::new();
    for order in checked.iter().flatten() {
        if let OrderKind::Merge { units, target, .. } = &order.kind {
            let k = (order.stage, target.province);
            let i = sums
                .iter()
                .position(|(key, _)| *key == k)
                .unwrap_or_else(|| {
                    sums.push((k, (0, 0)));
                    sums.len() - 1
                });
            for u in units {
                let (a, f) = sums[i].1;
                sums[i].1 = (a.saturating_add(u.armies), f.saturating_add(u.fleets));
            }
        }
    }
    sums
}

/// A merge's result, when written (`MERGE 2A(Bur)`), must be what its participants make: their
/// sum, or with a position, their sum and the power's own force already in the target when that
/// force is not written as a participant. Otherwise the player meant something the orders don't
/// say, and the merge is refused rather than carried out with fewer or more units.
pub(super) fn check_merge_result(
    checker: &Checker,
    merges: &[MergeSum],
    order: &Order<Region>,
) -> Result<(), ValidationError> {
    let OrderKind::Merge {
        units,
        target,
        result: Some(written),
    } = &order.kind
    else {
        return Ok(());
    };
    let key = (order.stage, target.province);
    let Some(&(_, sum)) = merges.iter().find(|(k, _)| *k == key) else {
        return Ok(());
    };
    // What the whole merge makes, or what this line's own participants bring when the power
    // writes its merge in several lines (R2.6: they are one merge).
    let own = units.iter().fold((0u8, 0u8), |(a, f), u| {
        (a.saturating_add(u.armies), f.saturating_add(u.fleets))
    });
    let mut fits = vec![sum, own];
    let target_named = units.iter().any(|u| u.at.province == target.province);
    if let (Some(pos), Stage::First, false) = (checker.position, order.stage, target_named) {
        let owner = units
            .first()
            .and_then(|u| pos.force(u.at.province))
            .map(|f| f.power);
        if let Some(f) = pos
            .force(target.province)
            .filter(|f| Some(f.power) == owner)
        {
            for (a, b) in [sum, own] {
                fits.push((a.saturating_add(f.armies), b.saturating_add(f.fleets)));
            }
        }
    }
    if fits.contains(written) {
        return Ok(());
    }
    let v = checker.variant;
    let place = v.province(target.province).code.clone();
    Err(ValidationError::MergeResult {
        written: format!("{}({place})", spec_text(written.0, written.1)),
        brings: describe_counts(sum.0, sum.1),
        right: format!("{}({place})", spec_text(sum.0, sum.1)),
    })
}
