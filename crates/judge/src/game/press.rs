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
                        "The GM's copy of {grey_word}press in game '{}' from {from} to {}:\n\n{body}",
                        game.name,
                        names.join(", ")
                    ),
                    in_reply_to: None,
                },
                now,
            )?;
        }
        let addresses = recipients.iter().map(|p| &p.address).chain(&observers);
        for to in addresses.filter(|a| seen.insert((*a).clone())) {
            tx.queue_mail(
                &NewMail {
                    game: Some(game.id),
                    phase,
                    kind: MailKind::Press,
                    to: to.as_str(),
                    subject: &subject,
                    body: &mail,
                    in_reply_to: None,
                },
                now,
            )?;
        }
        tx.commit()?;
        Ok(names)
    }
}
