//! Who hears of a game, and the one way a change is told to all of them. The results of a
//! phase and every notice of a change (the GM's, a seat's, an ending) go to the same people:
//! each player, the GM and the observers, each address once.

use crate::store::{Address, Game, MailKind, NewMail, StoreError, Tx, View};
use chrono::{DateTime, Utc};
use std::collections::HashSet;

/// Everyone a game's news goes to: each player's address in the order of the players, then the
/// GM's, then the observers'; an address once, so a player of two powers (or a GM who plays) gets one copy.
pub fn audience(view: View<'_>, game: &Game) -> Result<Vec<Address>, StoreError> {
    let mut to: Vec<Address> = view
        .players(game.id)?
        .into_iter()
        .map(|p| p.address)
        .collect();
    to.push(game.gm.clone());
    // Observers hear of everything told to the whole game: results and notices.
    to.extend(view.observers(game.id)?);
    let mut seen = HashSet::new();
    to.retain(|a| seen.insert(a.clone()));
    Ok(to)
}

/// One mail to everyone in the game.
pub struct Broadcast<'a> {
    /// What kind of mail it is.
    pub kind: MailKind,
    /// The phase it belongs to, if any.
    pub phase: Option<i64>,
    /// Its subject.
    pub subject: &'a str,
    /// Its body.
    pub body: &'a str,
}

/// Queues `mail` to each of the game's [`audience`] in the transaction `tx`; returns how many
/// mails were queued.
pub fn broadcast(
    tx: &Tx<'_>,
    game: &Game,
    mail: &Broadcast<'_>,
    now: DateTime<Utc>,
) -> Result<usize, StoreError> {
    let to = audience(tx.view(), game)?;
    for addr in &to {
        tx.queue_mail(
            &NewMail {
                game: Some(game.id),
                phase: mail.phase,
                kind: mail.kind,
                to: addr.as_str(),
                subject: mail.subject,
                body: mail.body,
                in_reply_to: None,
            },
            now,
        )?;
    }
    Ok(to.len())
}
