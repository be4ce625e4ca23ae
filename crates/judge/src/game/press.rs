//! Press between the powers: PRESS TO, BROADCAST and their grey forms, with the limits on how
//! many messages a phase takes and how long each may be.

use super::{GameError, Judge};
use crate::store::{Game, MailKind, NewMail, Role};
use chrono::{DateTime, Utc};
use std::collections::HashSet;

/// Press messages one power (or the GM) may send in one phase: a lively negotiation is a few
/// a day per partner; more is a flood, each one mailed to every power it names.
pub(crate) const PRESS_PER_PHASE: i64 = 50;
/// The longest press message (bytes): each is mailed to every power it names.
pub(crate) const MAX_PRESS_BYTES: usize = 20_000;

impl Judge {
    /// PRESS TO ... / BROADCAST (no powers named: everyone else), `grey` for PRESS GREY TO /
    /// BROADCAST GREY (the sender not named): checked against the game's press options
    /// ([`crate::press::check`]), stored, and mailed once to each address of the powers named
    /// (and to the GM, naming the sender, when the game's GM copy is on). The names of those it
    /// went to.
    pub(crate) fn press(
        &mut self,
        game: &Game,
        from: &Role,
        to: &[String],
        body: &str,
        grey: bool,
        now: DateTime<Utc>,
    ) -> Result<Vec<String>, GameError> {
        crate::press::check(game, from, to.is_empty(), grey)?;
        if body.len() > MAX_PRESS_BYTES {
            return Err(GameError::PressTooLong(body.len()));
        }
        let tx = self.store.begin()?;
        let phase = tx.view().current_phase(game.id)?.map(|p| p.id);
        if let Some(phase) = phase {
            if tx.view().press_count(game.id, phase, from.name())? >= PRESS_PER_PHASE {
                return Err(GameError::PressLimit(from.clone()));
            }
        }
        let players = tx.view().players(game.id)?;
        let others: Vec<_> = players.iter().filter(|p| &p.role != from).collect();
        let recipients = if to.is_empty() {
            others
        } else {
            to.iter()
                .map(|name| {
                    others
                        .iter()
                        .find(|p| p.role.name().eq_ignore_ascii_case(name))
                        .copied()
                        .ok_or_else(|| GameError::PressTo(name.clone()))
                })
                .collect::<Result<_, _>>()?
        };
        let names: Vec<String> = recipients.iter().map(|p| p.role.to_string()).collect();
        // Broadcast press goes to the observers too; press to named powers never does.
        let observers = match to.is_empty() {
            true => tx.view().observers(game.id)?,
            false => Vec::new(),
        };
        tx.add_press(
            game.id,
            phase,
            from.name(),
            &names.join(" "),
            body,
            grey,
            now,
        )?;
        let (mail, subject) = if grey {
            (
                format!(
                    "Grey press in game '{}' to {} (the sender is not named):\n\n{body}",
                    game.name,
                    names.join(", ")
                ),
                format!("{}: grey press", game.name),
            )
        } else {
            (
                format!(
                    "Press in game '{}' from {from} to {}:\n\n{body}",
                    game.name,
                    names.join(", ")
                ),
                format!("{}: press from {from}", game.name),
            )
        };
        let answer =
            |reader: Option<&Role>| how_to_answer(&self.address, &game.name, reader, from, grey);
        let to_gm = recipients.iter().any(|p| p.role == Role::Gm);
        let mut seen = HashSet::new();
        if crate::press::gm_copy(game, from, to_gm, grey) {
            // The GM's copy names the sender: the GM gets it in place of the unnamed one.
            seen.insert(game.gm.clone());
            let grey_word = if grey { "grey " } else { "" };
            tx.queue_mail(
                &NewMail {
                    game: Some(game.id),
                    phase,
                    kind: MailKind::Press,
                    to: game.gm.as_str(),
                    subject: &format!("{}: copy of {grey_word}press from {from}", game.name),
                    body: &format!(
                        "The GM's copy of {grey_word}press in game '{}' from {from} to {}:\n\n{}\n\n{}\n",
                        game.name,
                        names.join(", "),
                        body.trim_end(),
                        how_to_answer(&self.address, &game.name, Some(&Role::Gm), from, false)
                    ),
                    in_reply_to: None,
                },
                now,
            )?;
        }
        let addresses = recipients
            .iter()
            .map(|p| (&p.address, Some(&p.role)))
            .chain(observers.iter().map(|a| (a, None)));
        for (to, reader) in addresses.filter(|(a, _)| seen.insert((*a).clone())) {
            tx.queue_mail(
                &NewMail {
                    game: Some(game.id),
                    phase,
                    kind: MailKind::Press,
                    to: to.as_str(),
                    subject: &subject,
                    body: &format!("{}\n\n{}\n", mail.trim_end(), answer(reader)),
                    in_reply_to: None,
                },
                now,
            )?;
        }
        tx.commit()?;
        Ok(names)
    }
}

/// The lines a press mail ends with: how its reader answers, the lines to copy. Press goes
/// through the judge, so a plain reply reaches the judge, not the sender (`reader` is `None`
/// for an observer, who sends no press).
pub(crate) fn how_to_answer(
    judge: &str,
    game: &str,
    reader: Option<&Role>,
    from: &Role,
    grey: bool,
) -> String {
    let Some(reader) = reader else {
        return format!("You get this press as an observer of game '{game}': observers send none.");
    };
    let to = if grey {
        "PRESS TO POWER ...     (the sender is not named: name whom you write to)".to_string()
    } else {
        format!("PRESS TO {from}")
    };
    format!(
        "To answer, mail {judge} (replying to this mail does) with these lines, your password \
         in place of PASSWORD:\n  SIGNON {reader} {game} PASSWORD\n  {to}\n  your message\n  \
         ENDPRESS"
    )
}
