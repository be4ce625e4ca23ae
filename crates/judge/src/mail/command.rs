//! One command of a mail other than orders, CLEAR, SIGNON and HELP: the reports (LIST,
//! HISTORY, SUMMARY, MAP), a player's password and address, and the rest handed to the module
//! of its family.

use super::replies::{gm_only, service, Block};
use super::session::{stamp, Session};
use super::text::{Command, GmCommand};
use super::{endings, gm, players, press, settings, MailError};
use crate::game::{GameError, Signed};
use crate::store::{Address, PhaseRow, Role};
use napjudge_engine::variant::{PhaseKind, PowerKind, Variant};

impl Session<'_> {
    /// One command other than orders, CLEAR, SIGNON and HELP.
    pub(super) fn command(
        &mut self,
        s: &Signed,
        c: &Command,
        head: String,
    ) -> Result<Block, MailError> {
        let name = s.game.name.clone();
        let gm = s.role == Role::Gm;
        let now = self.now;
        let j = &mut *self.j;
        Ok(match c {
            Command::List => service(head, j.show(&name, Some(&s.role)), |t| {
                t.lines().map(str::to_string).collect()
            }),
            Command::History => {
                let bodies = j
                    .view()
                    .results_bodies(s.game.id)
                    .map_err(GameError::from)?;
                Block {
                    head,
                    lines: history(&bodies),
                }
            }
            Command::Summary => {
                let lines = j.with_variant(&s.game, |v, view| {
                    view.phases(s.game.id).map(|phases| summary(v, &phases))
                })?;
                Block {
                    head,
                    lines: lines.map_err(GameError::from)?,
                }
            }
            Command::HistoryPress(phase) => players::history_press(j, s, phase, head)?,
            Command::Map(_) if self.extras.picture.is_some() => Block::with(
                head,
                "MAP is answered once per mail: a reply carries one picture.",
            ),
            Command::Map(phase) => {
                let phase = Some(phase.trim()).filter(|p| !p.is_empty());
                match j.map(&s.game, phase) {
                    Ok(m) => {
                        self.extras.picture = Some(m.picture);
                        Block::with(
                            head,
                            format!("Attached: {}-board.png, {}.", s.game.name, m.shows),
                        )
                    }
                    Err(e) if e.is_database_fault() => return Err(e.into()),
                    Err(e) => Block::with(head, format!("ERROR: {e}. Nothing was done.")),
                }
            }
            Command::SetPassword(pw) => {
                if pw.is_empty() || pw.contains(char::is_whitespace) {
                    Block::with(
                        head,
                        "Write SET PASSWORD NEWPASSWORD (one word). Nothing was done.",
                    )
                } else {
                    match j.set_password(&s.game, &s.role, pw, now) {
                        Ok(()) => Block::with(
                            head,
                            "Your password is changed: sign on with the new one from now.",
                        ),
                        Err(e @ GameError::ShortPassword(_)) => {
                            Block::with(head, format!("ERROR: {e}. Nothing was done."))
                        }
                        Err(e) => return Err(e.into()),
                    }
                }
            }
            Command::SetAddress(a) if !gm => {
                let address = Address::new(a);
                if address.is_valid() {
                    j.set_address(&s.game, &s.role, &address, self.sender, now)?;
                    Block::with(head, format!("The judge now mails {} to {a}.", s.role))
                } else {
                    Block::with(
                        head,
                        "Write SET ADDRESS name@example.org (one address). Nothing was done.",
                    )
                }
            }
            Command::Press { .. } if self.press_copy.is_some() => Block::with(
                head,
                format!(
                    "Not sent again: your mail dated {} had the same text and date, and its \
                     press went then.",
                    self.press_copy.map(stamp).unwrap_or_default()
                ),
            ),
            Command::Press { to, grey, body } => press::send(j, s, to, *grey, body, head, now)?,
            Command::Set { key, value } => settings::command(j, s, (key, value), head, now)?,
            Command::Clear | Command::SetAddress(_) => Block::with(
                head,
                "The GM has no orders or address of a power to change by mail.",
            ),
            Command::SetWait(_)
            | Command::SetAbsence(_)
            | Command::SetDraw(_)
            | Command::SetConcede(_)
            | Command::Gm(GmCommand::End(_)) => endings::command(j, s, c, head, now)?,
            Command::Gm(g) if gm => gm::command(j, s, g, head, now)?,
            Command::Gm(_) => gm_only(head),
            // Run by `run` itself.
            Command::Help
            | Command::Signon { .. }
            | Command::BadSignon
            | Command::Signoff
            | Command::Closing
            | Command::Resign
            | Command::Takeover { .. }
            | Command::BadTakeover
            | Command::Observe(_)
            | Command::Unobserve(_)
            | Command::Confirm { .. }
            | Command::BadConfirm
            | Command::Order(_) => Block::new(head),
        })
    }
}

/// HISTORY: the results mails of the game's phases, oldest first.
fn history(bodies: &[String]) -> Vec<String> {
    if bodies.is_empty() {
        return vec!["No phase has been processed yet.".into()];
    }
    bodies
        .iter()
        .flat_map(|b| b.lines().chain(["", "----", ""]))
        .map(str::to_string)
        .collect()
}

/// SUMMARY: centre counts and ledgers at the start of each year (after each Winter), and now.
fn summary(v: &Variant, phases: &[PhaseRow]) -> Vec<String> {
    let live: Vec<&PhaseRow> = phases.iter().filter(|p| !p.superseded).collect();
    let mut out = Vec::new();
    for (i, p) in live.iter().enumerate() {
        let after_winter = i > 0
            && matches!(
                live[i - 1].position.phase.kind,
                PhaseKind::Adjustment | PhaseKind::Bids
            );
        let current = i + 1 == live.len();
        if !(after_winter || current) {
            continue;
        }
        let pos = &p.position;
        let when = if current && p.report.is_none() {
            format!("{} (now)", v.phase_name(pos.phase))
        } else {
            v.phase_name(pos.phase)
        };
        out.push(when);
        for power in v
            .power_ids()
            .filter(|&q| v.power(q).kind == PowerKind::Major)
        {
            let items: Vec<String> = pos
                .ledgers
                .items(v, power)
                .iter()
                .map(|i| i.text(v))
                .collect();
            let centres = pos.centre_count(v, power);
            out.push(format!(
                "  {:<10} {centres:>2} {}{}",
                v.power(power).name,
                crate::render::noun(centres as i64, "centre", "centres"),
                if items.is_empty() {
                    String::new()
                } else {
                    format!("; {}", items.join("; "))
                }
            ));
        }
    }
    out
}
