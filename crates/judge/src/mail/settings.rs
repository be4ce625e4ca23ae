//! `SET KEY VALUE` by mail: the GM's setting of the game, read by
//! `Setting::parse` and made by `Judge::set` (a notice to everyone in a game under way); from a
//! player, a GM's setting is refused as the GM's, and any other word is an unknown command
//! with the nearest SET command the sender may give (`text::nearest_set`).

use super::endings;
use super::replies::{gm_only, service, Block};
use super::stray::Stray;
use super::text::{self, Command};
use super::MailError;
use crate::game::{GameError, Judge, Signed};
use crate::settings::{self, Setting, SettingError};
use crate::store::Role;
use chrono::{DateTime, Utc};

/// `SET KEY VALUE` from the signed-on `s`, at the mail's time `now`.
pub(super) fn command(
    j: &mut Judge,
    s: &Signed,
    (key, value): (&str, &str),
    head: String,
    now: DateTime<Utc>,
) -> Result<Block, MailError> {
    let gm = s.role == Role::Gm;
    let nearest = text::nearest_set(&format!("SET {key}"), gm);
    let unknown = |nearest| {
        Stray::Unknown {
            command: format!("SET {}", key.to_ascii_uppercase())
                .trim()
                .to_string(),
            nearest,
        }
        .answer()
    };
    if !gm {
        if key.eq_ignore_ascii_case("wait") {
            // A player's SET WAIT ON|OFF is SET WAIT or SET NOWAIT: the game's own is the GM's.
            if let Ok(Setting::Wait(on)) = Setting::parse(key, value) {
                return endings::command(j, s, &Command::SetWait(on), head, now);
            }
            return Ok(Block::with(
                head,
                "Write SET WAIT or SET NOWAIT (SET WAIT ON and SET WAIT OFF say the same). \
                 Nothing was done.",
            ));
        }
        return Ok(match settings::is_key(key) {
            true => gm_only(head),
            false => Block::with(head, unknown(nearest)),
        });
    }
    Ok(match Setting::parse(key, value) {
        // A typo of a command or key is answered as one; a word like none gets every key.
        Err(SettingError::Unknown(_)) if nearest.is_some() => Block::with(head, unknown(nearest)),
        r => {
            let r = r
                .map_err(GameError::from)
                .and_then(|setting| j.set(&s.game.name, &setting, now).map(|_| setting));
            service(head, r, |setting| vec![format!("Set: {setting}.")])
        }
    })
}
