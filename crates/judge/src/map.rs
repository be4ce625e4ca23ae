//! MAP by mail: a picture of the board after a played phase (the one its result
//! mails carried, when it was stored) or of the board now, for a reply to carry.

use crate::game::{GameError, Judge};
use crate::store::{Game, MailPicture as Picture};
use napjudge_picture as picture;

/// A MAP's picture, and what it shows in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BoardMap {
    /// `the board after Spring 1801 Movement, with its orders`, `the board now (...)`.
    pub shows: String,
    /// The picture.
    pub picture: Picture,
}

impl Judge {
    /// MAP [PHASE]: the board after `phase` (a played phase, as the game names it: its stored
    /// picture, or drawn when the game had pictures off then), or with none the board now (the
    /// current phase's position, drawn; after the last phase when the game is over). A phase
    /// the game hasn't reached is refused, naming those it has.
    pub(crate) fn map(&mut self, game: &Game, phase: Option<&str>) -> Result<BoardMap, GameError> {
        let row = self.phase_row(game, phase)?;
        let name = self.with_variant(game, |v, _| v.phase_name(row.position.phase))?;
        if row.report.is_none() {
            let png = self.picture(&game.name, phase, None, picture::Format::Png)?;
            return Ok(BoardMap {
                shows: format!("the board now ({name}, before its orders)"),
                picture: Picture::Drawn(png),
            });
        }
        let shows = format!("the board after {name}, with its orders");
        let stored = self.view().picture(row.id)?.is_some();
        let picture = if stored {
            Picture::Stored(row.id)
        } else {
            Picture::Drawn(self.picture(&game.name, phase, None, picture::Format::Png)?)
        };
        Ok(BoardMap { shows, picture })
    }
}
