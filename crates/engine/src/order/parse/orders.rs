//! What an order orders: a Winter order by its keyword, or what follows a unit (hold, move,
//! support, convoy, embarkation, blockade, denial, retreat, merge).

use super::fail::{failure, failure_hint, quote_rest, Res};
use super::units::UNIT;
use super::words::{
    keyword, keyword_of, move_op, number, points, via_convoy, ws0, Op, Winter, OPS, WINTER,
};
use super::Grammar;
use crate::order::display::PlaceName;
use crate::order::{OrderKind, Place, UnitSpec};

impl Grammar<'_> {
    /// What an order orders, after the stage.
    pub(super) fn kind<'a>(&self, i: &'a str) -> Res<'a, OrderKind<Place>> {
        if let Ok((rest, w)) = keyword_of(i, WINTER) {
            return self.winter(rest, w);
        }
        let (rest, unit) = match self.unit(i) {
            Err(nom::Err::Error(_)) => return Err(failure(i, UNIT)),
            other => other?,
        };
        self.unit_order(rest, unit)
    }

    /// A Winter order after its keyword.
    fn winter<'a>(&self, i: &'a str, w: Winter) -> Res<'a, OrderKind<Place>> {
        match w {
            Winter::Build | Winter::Remove => {
                let (rest, unit) = match self.unit(i) {
                    Err(nom::Err::Error(_)) => {
                        let (j, _) = ws0(i)?;
                        return Err(failure(j, UNIT));
                    }
                    other => other?,
                };
                Ok(match w {
                    Winter::Build => (rest, OrderKind::Build { unit }),
                    _ => (rest, OrderKind::Remove { unit }),
                })
            }
            Winter::Waive => match number(i) {
                Ok((rest, 1)) => Ok((rest, OrderKind::Waive)),
                Ok(_) => {
                    let (j, _) = ws0(i)?;
                    Err(failure_hint(
                        j,
                        "1 or the end of the order",
                        None,
                        "WAIVE declines one build: write WAIVE once for each build".to_string(),
                    ))
                }
                Err(_) => Ok((i, OrderKind::Waive)),
            },
            Winter::Bank => points(i, "sp").map(|(r, amount)| (r, OrderKind::Bank { amount })),
            Winter::Convert => {
                points(i, "sp").map(|(r, amount)| (r, OrderKind::Convert { amount }))
            }
            Winter::Loan => {
                let (i, amount) = points(i, "sp")?;
                let (i, _) = ws0(i)?;
                let (i, _) =
                    keyword(i, &["to"]).map_err(|_| failure(i, "TO and the borrowing power"))?;
                let (i, to) = self.power(i)?;
                Ok((i, OrderKind::Loan { amount, to }))
            }
            Winter::Renew => {
                let (i, _) = ws0(i)?;
                let i = keyword(i, &["loan"]).map_or(i, |(r, _)| r);
                let (i, _) = ws0(i)?;
                let i = keyword(i, &["to"]).map_or(i, |(r, _)| r);
                let (i, to) = self.power(i)?;
                Ok((i, OrderKind::Renew { to }))
            }
            Winter::Bid => {
                let (i, amount) = points(i, "ip")?;
                let (i, minor) = self.power(i)?;
                let (j, _) = ws0(i)?;
                let (i, on_behalf) = match keyword(j, &["for"]) {
                    Ok((rest, _)) => {
                        let (rest, p) = self.power(rest)?;
                        (rest, Some(p))
                    }
                    Err(_) => (i, None),
                };
                Ok((
                    i,
                    OrderKind::Bid {
                        amount,
                        minor,
                        on_behalf,
                    },
                ))
            }
        }
    }

    /// What follows a unit.
    fn unit_order<'a>(&self, i: &'a str, unit: UnitSpec<Place>) -> Res<'a, OrderKind<Place>> {
        let (i, _) = ws0(i)?;
        if i.starts_with('&') {
            return self.merge_list(i, unit);
        }
        if let Ok((rest, op)) = move_op(i) {
            return self.movement(rest, unit, op);
        }
        let Ok((rest, op)) = keyword_of(i, OPS) else {
            let u = self.quote(&unit);
            let expected = format!("an order after '{u}' (H, -, S, C, E, D, B, X)");
            // `A Par Bur`: the dash left out.
            return Err(match self.place(i) {
                Ok((rest, to)) if rest.trim().is_empty() => {
                    let to = to.name(self.v);
                    let hint = format!(
                        "expected {expected}, found {} (did you mean {u}-{to}?)",
                        quote_rest(i)
                    );
                    failure_hint(i, expected, None, hint)
                }
                _ => failure(i, expected),
            });
        };
        let u = self.quote(&unit);
        match op {
            Op::Hold => Ok((rest, OrderKind::Hold { unit })),
            Op::Support => self.support(rest, unit),
            Op::Convoy => {
                let (rest, army) = self.unit_or_place(rest, || {
                    format!("nothing after 'C': which army does {u} convoy?")
                })?;
                let a = self.quote(&army);
                let (rest, _) =
                    move_op(rest).map_err(|_| failure(rest, format!("'-' and where {a} goes")))?;
                let (rest, to) = self.destination(rest, || {
                    format!("nothing after '-': where does {u} convoy {a} to?")
                })?;
                Ok((rest, OrderKind::Convoy { unit, army, to }))
            }
            Op::Embark => {
                let (rest, fleet) = self.unit_or_place(rest, || {
                    format!("nothing after 'E': which sea does {u} embark in?")
                })?;
                match move_op(rest) {
                    Ok((rest, op)) => {
                        let f = self.quote(&fleet);
                        let (rest, to) = self.destination(rest, || {
                            format!("nothing after '{op}': where should {f} carry {u}?")
                        })?;
                        // The fleet's second move may follow as a chain (rule 6's example).
                        let (rest, then) = match move_op(rest) {
                            Ok((rest, op)) => {
                                let (rest, then) = self.destination(rest, || {
                                    format!("nothing after '{op}': where should {f} sail next?")
                                })?;
                                (rest, Some(then))
                            }
                            Err(_) => (rest, None),
                        };
                        Ok((
                            rest,
                            OrderKind::EmbarkWith {
                                unit,
                                fleet,
                                to,
                                then,
                            },
                        ))
                    }
                    // `E F(ENG)` names the fleet's space: the plain embark.
                    Err(_) => Ok((
                        rest,
                        OrderKind::Embark {
                            unit,
                            sea: fleet.at,
                        },
                    )),
                }
            }
            Op::Disembark => {
                let (rest, to) = self.destination(rest, || {
                    format!("nothing after 'D': where should {u} land?")
                })?;
                Ok((rest, OrderKind::Disembark { unit, to }))
            }
            Op::Blockade => {
                let (rest, centre) = self.destination(rest, || {
                    format!("nothing after 'B': which centre should {u} blockade?")
                })?;
                Ok((rest, OrderKind::Blockade { unit, centre }))
            }
            Op::Deny => {
                let (rest, from) = self.destination(rest, || {
                    format!("nothing after 'X': which passage should {u} deny?")
                })?;
                let (rest, _) = move_op(rest)
                    .map_err(|_| failure(rest, "'-' and the other end of the passage"))?;
                let (rest, to) = self.destination(rest, || {
                    format!("nothing after '-': where does the passage {u} denies lead?")
                })?;
                Ok((rest, OrderKind::Deny { unit, from, to }))
            }
            Op::Retreat => {
                let (rest, to) = self.destination(rest, || {
                    format!("nothing after 'R': where should {u} retreat?")
                })?;
                Ok((rest, OrderKind::Retreat { unit, to }))
            }
            Op::Disband => Ok((rest, OrderKind::Disband { unit })),
            Op::Build => Ok((rest, OrderKind::Build { unit })),
            Op::Remove => Ok((rest, OrderKind::Remove { unit })),
            Op::Merge => {
                let (rest, (target, result)) = self.merge_target(rest, || u.to_string())?;
                Ok((
                    rest,
                    OrderKind::Merge {
                        units: vec![unit],
                        target,
                        result,
                    },
                ))
            }
        }
    }

    /// A move after its operator: destination, a fleet's second move, `via convoy`.
    fn movement<'a>(
        &self,
        i: &'a str,
        unit: UnitSpec<Place>,
        op: &str,
    ) -> Res<'a, OrderKind<Place>> {
        let u = self.quote(&unit);
        let (i, to) = self.destination(i, || {
            format!("nothing after '{op}': where should {u} move?")
        })?;
        let (i, then) = match move_op(i) {
            Ok((rest, op)) => {
                let first = to.name(self.v);
                let (rest, then) = self.destination(rest, || {
                    format!("nothing after '{op}': where should {u} move after {first}?")
                })?;
                (rest, Some(then))
            }
            Err(_) => (i, None),
        };
        let (i, via_convoy) = via_convoy(i)?;
        Ok((
            i,
            OrderKind::Move {
                unit,
                to,
                via_convoy,
                then,
            },
        ))
    }

    /// A support after `S`: of a merge, a hold or a move.
    fn support<'a>(&self, i: &'a str, unit: UnitSpec<Place>) -> Res<'a, OrderKind<Place>> {
        let u = self.quote(&unit);
        let (i, _) = ws0(i)?;
        if let Ok((rest, _)) = keyword(i, &["merge"]) {
            let (rest, target) = self.destination(rest, || {
                format!("nothing after 'MERGE': which space's merge does {u} support?")
            })?;
            return Ok((rest, OrderKind::SupportMerge { unit, target }));
        }
        let (i, supported) = self.unit_or_place(i, || {
            format!("nothing after 'S': which unit does {u} support?")
        })?;
        if let Ok((rest, op)) = move_op(i) {
            let s = self.quote(&supported);
            let (rest, to) = self.destination(rest, || {
                format!("nothing after '{op}': where does the {s} that {u} supports move?")
            })?;
            return Ok((
                rest,
                OrderKind::SupportMove {
                    unit,
                    supported,
                    to,
                },
            ));
        }
        let (j, _) = ws0(i)?;
        let i = keyword(j, &["h", "hold", "holds"]).map_or(i, |(rest, _)| rest);
        Ok((i, OrderKind::SupportHold { unit, supported }))
    }

    /// `& A(Pic) ... MERGE target` after the first participant.
    fn merge_list<'a>(&self, mut i: &'a str, first: UnitSpec<Place>) -> Res<'a, OrderKind<Place>> {
        let mut units = vec![first];
        loop {
            let (j, _) = ws0(i)?;
            let Some(rest) = j.strip_prefix('&') else {
                break;
            };
            let (rest, unit) = match self.unit(rest) {
                Err(nom::Err::Error(_)) => {
                    let (rest, _) = ws0(rest)?;
                    return Err(failure(rest, "a unit to merge after '&'"));
                }
                other => other?,
            };
            units.push(unit);
            i = rest;
        }
        let (i, _) = ws0(i)?;
        let (i, _) = keyword(i, &["merge"]).map_err(|_| failure(i, "MERGE and the target"))?;
        let who = || {
            let names: Vec<String> = units.iter().map(|u| self.quote(u).to_string()).collect();
            names.join(" & ")
        };
        let (i, (target, result)) = self.merge_target(i, who)?;
        Ok((
            i,
            OrderKind::Merge {
                units,
                target,
                result,
            },
        ))
    }

    /// A merge's target: `2A(Bur)` (with the resulting force) or a place.
    fn merge_target<'a>(
        &self,
        i: &'a str,
        who: impl FnOnce() -> String,
    ) -> Res<'a, (Place, Option<(u8, u8)>)> {
        match self.unit(i) {
            Ok((rest, u)) => Ok((rest, (u.at, Some((u.armies, u.fleets))))),
            Err(nom::Err::Error(_)) => {
                let (rest, target) = self.destination(i, || {
                    format!("nothing after 'MERGE': where should {} merge?", who())
                })?;
                Ok((rest, (target, None)))
            }
            Err(e) => Err(e),
        }
    }
}
