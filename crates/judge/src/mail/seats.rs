//! Seats and observers by mail: RESIGN, the GM's CODE and REPLACE, TAKEOVER,
//! OBSERVE (a request the address confirms), CONFIRM OBSERVE and UNOBSERVE, and the answer to an observer who orders or sends press. Each is one
//! call of the service ([`crate::game::seats`]).

use super::replies::Block;
use super::session::{refusal, Session};
use super::MailError;
use crate::game::{GameError, Judge, SeatError, Signed, CONFIRM_WITHIN};
use crate::mail::text::Command;
use crate::render::echo;
use crate::store::{ChangeKind, Role};
use chrono::{DateTime, Utc};

/// A seat command's answer: what was done, or its error and that nothing was.
fn answer<T>(
    head: String,
    r: Result<T, SeatError>,
    ok: impl FnOnce(T) -> String,
) -> Result<Block, MailError> {
    match r {
        Ok(t) => Ok(Block::with(head, ok(t))),
        Err(SeatError::Game(GameError::UnknownGame(g))) => Ok(Block::with(
            head,
            format!(
                "ERROR: there is no game called '{}' on this judge. Nothing was done.",
                echo(&g)
            ),
        )),
        Err(SeatError::Game(e)) if e.is_database_fault() => Err(e.into()),
        Err(e) => Ok(Block::with(head, format!("ERROR: {e}. Nothing was done."))),
    }
}

/// The GM's `CODE POWER [ADDRESS]`: the code goes by a mail of its own (to the address, else
/// to the GM), so that the reply, kept with the GM's mail, doesn't hold it.
pub(super) fn code(
    j: &mut Judge,
    s: &Signed,
    words: &[String],
    head: String,
    now: DateTime<Utc>,
) -> Result<Block, MailError> {
    let (power, to) = match words {
        [power] => (power, s.game.gm.to_string()),
        [power, to] => (power, to.clone()),
        _ => {
            return Ok(Block::with(
                head,
                "ERROR: write CODE POWER, or CODE POWER ADDRESS to mail the code to a new \
                 player. Nothing was done.",
            ))
        }
    };
    answer(
        head,
        j.issue_code(&s.game.name, power, Some(&to), now),
        |c| {
            format!(
            "A one-time takeover code for {} is mailed to {to}: whoever has it mails TAKEOVER {} \
             {} CODE. Any earlier code for {} no longer works.",
            c.power, c.power, s.game.name, c.power
        )
        },
    )
}

/// The GM's `REPLACE POWER ADDRESS`.
pub(super) fn replace(
    j: &mut Judge,
    s: &Signed,
    words: &[String],
    head: String,
    now: DateTime<Utc>,
) -> Result<Block, MailError> {
    let [power, to] = words else {
        return Ok(Block::with(
            head,
            "ERROR: write REPLACE POWER ADDRESS (the new player's address). Nothing was done.",
        ));
    };
    answer(head, j.replace(&s.game.name, power, to, now), |old| {
        let told = old.map_or(String::new(), |a| format!("; {a} is told"));
        format!(
            "{to} now plays {power}: a new password is mailed to them, the old one no longer \
             works{told}, and everyone in the game is told."
        )
    })
}

impl Session<'_> {
    /// RESIGN by the player signed on as `s`: whether the seat was left (the rest of the mail
    /// is then not read).
    pub(super) fn resign(&mut self, s: &Signed, head: String) -> Result<bool, MailError> {
        let r = self.j.resign(&s.game, &s.role, self.now);
        let left = r.is_ok();
        let b = answer(head, r, |()| {
            format!(
                "You no longer play {} in game '{}': your password no longer works, and the GM \
                 and the players are told. Orders you already gave for the phase under way \
                 stand; after them, the power's units are in civil disorder (the rules' \
                 defaults) until a new player takes the seat. The rest of your mail was not \
                 read.",
                s.role, s.game.name
            )
        })?;
        self.push(b);
        Ok(left)
    }

    /// A command that needs no SIGNON: TAKEOVER, OBSERVE, CONFIRM OBSERVE, UNOBSERVE.
    pub(super) fn unsigned(&mut self, c: &Command, head: String) -> Result<(), MailError> {
        let (j, now, sender) = (&mut *self.j, self.now, self.sender);
        // A mail without From answers its Reply-To: that address asked.
        let from = match self.from.as_str().is_empty() {
            true => sender,
            false => self.from,
        };
        let b = match c {
            Command::Takeover { power, game, code } => {
                match j.takeover(sender, power, game, code, now) {
                    Err(SeatError::Throttled(r)) => Block::with(head, refusal(&r, sender)),
                    r => answer(head, r, |(g, role)| {
                        format!(
                            "You now play {role} in game '{g}': your password comes in a mail \
                             of its own. Sign on with SIGNON {role} {g} PASSWORD to give orders."
                        )
                    })?,
                }
            }
            Command::BadTakeover => Block::with(
                head,
                "ERROR: write TAKEOVER POWER GAME CODE, with the code the GM sent you. Nothing \
                 was done.",
            ),
            Command::Observe(game) | Command::Unobserve(game) if game.is_empty() => Block::with(
                head,
                "ERROR: write the game's name after the command. Nothing was done.",
            ),
            Command::Observe(game) => {
                answer(head, j.request_observe(game, sender, from, now), |g| {
                    format!(
                        "The judge mailed {sender} a request to confirm: the results of game \
                         '{g}', its notices to everyone and its broadcast press go there once \
                         that address sends back the line the request gives (within {} days). \
                         Until then nothing changes.",
                        CONFIRM_WITHIN.num_days()
                    )
                })?
            }
            Command::Confirm { game, token } => {
                answer(head, j.confirm_observe(game, sender, token, now), |g| {
                    format!(
                        "You now observe game '{g}': you get its results, the notices to \
                         everyone and its broadcast press. UNOBSERVE {g} stops them."
                    )
                })?
            }
            Command::BadConfirm => Block::with(
                head,
                "ERROR: write CONFIRM OBSERVE GAME TOKEN, as the judge's request to confirm \
                 gives it. Nothing was done.",
            ),
            Command::Unobserve(game) => answer(head, j.unobserve(game, sender, now), |g| {
                format!("You no longer observe game '{g}'.")
            })?,
            _ => Block::new(head),
        };
        self.push(b);
        Ok(())
    }

    /// Why a mail without a SIGNON from an observer is refused, when it orders or sends press.
    pub(super) fn observer_refusal(&self, c: &Command) -> Result<Option<String>, MailError> {
        if !matches!(
            c,
            Command::Order(_) | Command::Press { .. } | Command::Resign
        ) {
            return Ok(None);
        }
        let games = self
            .j
            .view()
            .observed_by(self.sender)
            .map_err(GameError::from)?;
        if games.is_empty() {
            return Ok(None);
        }
        Ok(Some(format!(
            "You observe {}: an observer gets the results and the broadcast press, but gives no \
             orders and sends no press. Nothing was done. To play, ask the GM for an open seat; \
             a player's mail starts with SIGNON POWER GAME PASSWORD.",
            games
                .iter()
                .map(|g| format!("game '{g}'"))
                .collect::<Vec<_>>()
                .join(", ")
        )))
    }
}

/// The one sentence a former player's SIGNON gets.
pub(super) fn left(role: &Role, game: &str, since: &str, how: ChangeKind) -> String {
    let why = match how {
        ChangeKind::Resigned => "you resigned".to_string(),
        ChangeKind::Abandoned => {
            "the power was abandoned after the phases it missed in a row".to_string()
        }
        ChangeKind::Replaced | ChangeKind::TookOver => {
            "the GM gave the seat to another player".to_string()
        }
    };
    format!(
        "You no longer play {role} in game '{game}' since {since}: {why}, and your old password \
         no longer works. Nothing was done. Ask the GM for the seat if you want it back."
    )
}
