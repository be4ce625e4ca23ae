//! The mail commands of waiting, absence and endings: a player's `SET WAIT`,
//! `SET NOWAIT`, `SET ABSENCE`, `SET DRAW`, `SET NODRAW`, `SET CONCEDE`, and the GM's `END`.
//! Each is one call of the service; the reply says what came of it.

use super::replies::{gm_only, service, Block};
use super::text::{Command, GmCommand};
use super::MailError;
use crate::clock;
use crate::game::{describe, read_absence, AbsenceSet, GameError, GmEnd, Judge, Signed, Vote};
use crate::store::{Ending, Role};
use chrono::{DateTime, Utc};

/// What the reply says of an ending a vote or the GM brought.
fn ended(e: &Ending, zone: &str) -> String {
    format!(
        "The game has ended {}. Everyone is mailed the result.",
        describe(e, zone)
    )
}

/// Reads the GM's `END` words: `DRAW P1 P2 ...`, `WINNER P`, then optionally `REASON TEXT`
/// (or `REASON TEXT` alone).
fn read_end(words: &str) -> GmEnd {
    let w: Vec<&str> = words.split_whitespace().collect();
    let at = w
        .iter()
        .position(|x| x.eq_ignore_ascii_case("REASON"))
        .unwrap_or(w.len());
    let (how, why) = w.split_at(at);
    let reason = why.get(1..).map(|r| r.join(" ")).unwrap_or_default();
    let powers = |ps: &[&str]| -> Vec<String> {
        ps.iter()
            .flat_map(|p| p.split(','))
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect()
    };
    match how {
        [first, rest @ ..] if first.eq_ignore_ascii_case("DRAW") => GmEnd {
            draw: powers(rest),
            winner: None,
            reason,
        },
        [first, p] if first.eq_ignore_ascii_case("WINNER") => GmEnd {
            draw: Vec::new(),
            winner: Some(p.to_string()),
            reason,
        },
        [] => GmEnd {
            draw: Vec::new(),
            winner: None,
            reason,
        },
        // Anything else can't be read: no result and no reason, which the service refuses
        // with the forms to write.
        _ => GmEnd::default(),
    }
}

/// One of this module's commands, for the signed-on `s`, at the mail's time `now`.
pub(super) fn command(
    j: &mut Judge,
    s: &Signed,
    c: &Command,
    head: String,
    now: DateTime<Utc>,
) -> Result<Block, MailError> {
    let name = s.game.name.as_str();
    let zone = s.game.timezone.as_str();
    let power = match (&s.role, c) {
        (Role::Gm, Command::Gm(GmCommand::End(words))) => {
            return Ok(service(head, j.end(name, &read_end(words), now), |e| {
                vec![ended(&e, zone)]
            }));
        }
        (Role::Gm, _) => {
            return Ok(Block::with(
                head,
                "WAIT, ABSENCE, DRAW and CONCEDE are a player's: the GM sets the game's own \
                 with `napjudge game create` and `game set`. Nothing was done.",
            ))
        }
        (Role::Power(_), Command::Gm(_)) => return Ok(gm_only(head)),
        (Role::Power(p), _) => p.clone(),
    };
    Ok(match c {
        Command::SetWait(wait) => service(head, j.set_wait(name, &power, *wait), |()| {
            vec![if *wait {
                "You wait for the deadline: a phase you owe orders in is processed at its \
                 deadline, even once everyone has ordered (SET NOWAIT undoes it)."
                    .into()
            } else {
                "You don't wait for the deadline: once everyone has ordered, the phase may be \
                 processed before it (unless another player waits)."
                    .into()
            }]
        }),
        Command::SetAbsence(words) => absence(j, s, &power, words, head, now)?,
        Command::SetDraw(on) => service(head, j.vote(name, &power, &Vote::Draw(*on), now), |e| {
            vec![match (e, on) {
                (Some(e), _) => ended(&e, zone),
                (None, true) => "Your vote for a draw is recorded, in secret. It stands \
                                     until SET NODRAW; the game ends in a draw when every \
                                     surviving power has voted for one."
                    .into(),
                (None, false) => "You don't vote for a draw.".into(),
            }]
        }),
        Command::SetConcede(to) => {
            let vote = match to.trim() {
                t if t.eq_ignore_ascii_case("NONE") => Vote::Concede(None),
                "" => {
                    return Ok(Block::with(
                        head,
                        "Write SET CONCEDE POWER (SET CONCEDE NONE takes it back). Nothing \
                         was done.",
                    ))
                }
                t => Vote::Concede(Some(t.to_string())),
            };
            service(head, j.vote(name, &power, &vote, now), |e| {
                vec![match (e, &vote) {
                    (Some(e), _) => ended(&e, zone),
                    (None, Vote::Concede(Some(to))) => format!(
                        "You concede to {to}, in secret. The game is conceded to {to} when \
                         every other surviving power does (SET CONCEDE NONE takes it back)."
                    ),
                    (None, _) => "You concede to nobody.".into(),
                }]
            })
        }
        // Not this module's: `mail::Session::command` sends only the commands above here.
        _ => Block::new(head),
    })
}

/// `SET ABSENCE` alone (the player's absences), `SET ABSENCE NONE`, `SET ABSENCE FROM TO`.
fn absence(
    j: &mut Judge,
    s: &Signed,
    power: &str,
    words: &str,
    head: String,
    now: DateTime<Utc>,
) -> Result<Block, MailError> {
    let (name, zone) = (s.game.name.as_str(), s.game.timezone.as_str());
    let show = |t: DateTime<Utc>| clock::show_in(t, zone);
    if words.trim().is_empty() {
        let game = s.game.clone();
        let lines: Vec<String> = j
            .absences(&game, Some(power), now)?
            .iter()
            .map(|a| format!("Away from {} to {}.", show(a.start), show(a.end)))
            .collect();
        return Ok(Block {
            head,
            lines: if lines.is_empty() {
                vec!["You have no absence registered.".into()]
            } else {
                lines
            },
        });
    }
    if words.trim().eq_ignore_ascii_case("NONE") {
        return Ok(service(head, j.clear_absences(name, power, now), |n| {
            vec![format!(
                "{n} absence(s) cleared: deadlines fall as they come again."
            )]
        }));
    }
    let days = match read_absence(words) {
        Ok(d) => d,
        Err(e) => return Ok(Block::with(head, format!("ERROR: {e}. Nothing was done."))),
    };
    Ok(match j.add_absence(name, power, days, now) {
        Ok(Ok(AbsenceSet { start, end, moved })) => {
            let mut lines = vec![format!(
                "You are away from {} to {}: no deadline falls inside it (one would move to \
                 its end).",
                show(start),
                show(end)
            )];
            if let Some(m) = moved {
                lines.push(format!(
                    "The current deadline moves from {} to {}; everyone is told.",
                    show(m.from),
                    show(m.to)
                ));
            }
            Block { head, lines }
        }
        Ok(Err(e)) => Block::with(head, format!("ERROR: {e}. Nothing was done.")),
        Err(e @ (GameError::Ended { .. } | GameError::NotStarted(_))) => {
            Block::with(head, format!("ERROR: {e}. Nothing was done."))
        }
        Err(e) => return Err(e.into()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The GM's END: a draw, a winner, a reason, each with a reason after REASON.
    #[test]
    fn end_is_read_as_the_gm_writes_it() {
        assert_eq!(
            read_end("DRAW France, England REASON agreed by all"),
            GmEnd {
                draw: vec!["France".into(), "England".into()],
                winner: None,
                reason: "agreed by all".into()
            }
        );
        assert_eq!(
            read_end("winner Russia"),
            GmEnd {
                draw: vec![],
                winner: Some("Russia".into()),
                reason: String::new()
            }
        );
        assert_eq!(read_end("REASON players gone").reason, "players gone");
        assert_eq!(read_end("soon"), GmEnd::default());
    }
}
