//! The players' mail in the adapter: HISTORY PRESS, and the copy of a SIGNON from an address
//! other than the role's own.

use super::Block;
use crate::game::{GameError, Judge, Signed};
use crate::store::{Address, Role};
use chrono::{DateTime, Utc};

/// The copy of a mail's reply for the role's own address, when the SIGNON came from another.
pub(super) struct SignonCopy {
    /// The address the judge mails the role at.
    pub to: Address,
    /// Its subject.
    pub subject: String,
    /// What happened, in one paragraph (the reply follows it).
    pub intro: String,
}

/// The copy a SIGNON as `s` from `sender` sends to the role's own address (the player's, or for
/// the GM the game's GM address), when `sender` is none of the role's addresses.
pub(super) fn signon_copy(
    j: &Judge,
    s: &Signed,
    sender: &Address,
    now: DateTime<Utc>,
) -> Result<Option<SignonCopy>, GameError> {
    let players = j.view().players(s.game.id)?;
    let row = players
        .iter()
        .find(|p| p.role == s.role)
        .map(|p| p.address.clone());
    let own = match &s.role {
        Role::Gm => s.game.gm.clone(),
        Role::Power(_) => match row.clone() {
            Some(a) => a,
            None => return Ok(None),
        },
    };
    if *sender == own || row.as_ref() == Some(sender) {
        return Ok(None);
    }
    let (role, game) = (&s.role, &s.game.name);
    Ok(Some(SignonCopy {
        to: own,
        subject: format!("{game}: someone signed on as {role} from {sender}"),
        intro: format!(
            "Someone signed on as {role} in game '{game}' from {sender}, with {role}'s \
             password, at {}; the judge mails {role} here, so this is a copy. If it was you, \
             there is nothing to do. If not, your password is known to someone else: set a new \
             one now (SET PASSWORD, from this address) and tell your GM.",
            now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        ),
    }))
}

/// The SIGNON's line in the reply, when a copy goes to the role's own address.
pub(super) fn copy_said(role: &Role) -> String {
    format!("This is not the address the judge mails {role} at: a copy of this reply goes there.")
}

/// HISTORY PRESS \[PHASE\]: the press the signed-on role sent or received, as the game's options
/// let it see them.
pub(super) fn history_press(
    j: &mut Judge,
    s: &Signed,
    phase: &str,
    head: String,
) -> Result<Block, GameError> {
    let text = phase.trim();
    let game = &s.game;
    j.with_variant(game, |v, view| {
        let phases = view.phases(game.id)?;
        let wanted = match text {
            "" => None,
            _ => match v
                .parse_phase(text)
                .filter(|w| phases.iter().any(|p| p.position.phase == *w))
            {
                Some(w) => Some(w),
                None => {
                    let e = GameError::UnknownPhase {
                        game: game.name.clone(),
                        phase: text.to_string(),
                        phases: phases
                            .iter()
                            .filter(|p| !p.superseded)
                            .map(|p| format!("'{}'", v.phase_name(p.position.phase)))
                            .collect::<Vec<_>>()
                            .join(", "),
                    };
                    return Ok(Block::with(head, format!("ERROR: {e}. Nothing was done.")));
                }
            },
        };
        let press = view.press(game.id)?;
        let lines = crate::press::history(v, game, &s.role, &phases, &press, wanted);
        Ok(Block { head, lines })
    })?
}
