//! PRESS by mail: the text checked for orders after a forgotten ENDPRESS, the press sent
//! through the service, and the answer when it is refused.

use super::replies::Block;
use super::{stray, MailError};
use crate::game::{GameError, Judge, Signed};
use crate::press::PressRefusal;
use crate::render::echo;
use chrono::{DateTime, Utc};

/// A PRESS (`to` the powers named, none for a BROADCAST; `grey`: without the sender's name)
/// by the role signed on as `s`, at the mail's time `now`.
pub(super) fn send(
    j: &mut Judge,
    s: &Signed,
    to: &[String],
    grey: bool,
    body: &str,
    head: String,
    now: DateTime<Utc>,
) -> Result<Block, MailError> {
    // Orders after a forgotten ENDPRESS would go out as press, and not be entered.
    let orders = j.with_variant(&s.game, |v, _| stray::orders_in(v, body))?;
    if !orders.is_empty() {
        return Ok(Block::with(head, stray::forgot_endpress(&orders)));
    }
    Ok(match j.press(&s.game, &s.role, to, body, grey, now) {
        Ok(names) if grey => Block::with(
            head,
            format!("Sent to {}, without your name.", names.join(", ")),
        ),
        Ok(names) => Block::with(head, format!("Sent to {}.", names.join(", "))),
        Err(GameError::Press(r)) => Block::with(head, press_refused(&r)),
        Err(GameError::PressTo(name)) => {
            let near = j.with_variant(&s.game, |v, _| {
                v.suggest_power(&name)
                    .filter(|n| !n.eq_ignore_ascii_case(&name))
                    .map(|n| format!(" (did you mean {n}?)"))
            })?;
            Block::with(
                head,
                format!(
                    "ERROR: '{}' is not another power of the game{}: write \
                     PRESS TO and the powers' names. Nothing was sent.",
                    echo(&name),
                    near.unwrap_or_default()
                ),
            )
        }
        Err(e @ (GameError::PressLimit(_) | GameError::PressTooLong(_))) => {
            Block::with(head, format!("ERROR: {e}. Nothing was sent."))
        }
        Err(e) => return Err(e.into()),
    })
}

/// The reply's line for press the game's options refuse.
fn press_refused(e: &PressRefusal) -> String {
    format!("ERROR: {e}. Nothing was sent.")
}

/// The answer to a mail with no SIGNON whose subject is that of a reply to a press mail
/// (`Re: GAME: press from France`, `Re: GAME: grey press`, the GM's `copy of` ones): the
/// player meant to answer the press, so they are told how, in place of a bare refusal.
pub(super) fn reply_to_press(subject: &str) -> Option<String> {
    let mut rest = subject.trim();
    let mut replied = false;
    while let Some(after) = rest
        .get(..3)
        .filter(|p| p.eq_ignore_ascii_case("re:"))
        .and_then(|_| rest.get(3..))
    {
        rest = after.trim_start();
        replied = true;
    }
    let (game, what) = rest.split_once(": ")?;
    let what = what.strip_prefix("copy of ").unwrap_or(what);
    let to = match what.strip_prefix("press from ") {
        Some(from) => format!("PRESS TO {from}"),
        None if what.starts_with("grey press") => "PRESS TO and the powers you answer".into(),
        None => return None,
    };
    if !replied || game.contains(char::is_whitespace) {
        return None;
    }
    Some(format!(
        "Your mail looks like a reply to press in game '{}'. Press goes through the judge, and \
         a mail to it starts with your SIGNON: write SIGNON POWER {} PASSWORD (your power and \
         password), then {}, your message, and ENDPRESS on a line of its own. Nothing was done.",
        echo(game),
        echo(game),
        echo(&to)
    ))
}
