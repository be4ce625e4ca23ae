//! Pictures of the board: the shapes of its spaces ([`shapes`]), a position with a phase's orders
//! drawn as SVG ([`draw`]), and that SVG rasterised to PNG with the font shipped in the project
//! ([`png`]).

pub mod draw;
pub mod png;
pub mod shapes;

pub use draw::{
    draw, draw_titled, drawing, power_colours, DrawError, Drawing, Item, Layout, Rect, View,
};
pub use png::PngError;
pub use shapes::{Board, ShapeError};

use napjudge_engine::position::Position;
use napjudge_engine::turn::PhaseReport;
use napjudge_engine::variant::Variant;

/// Why a picture can't be made.
#[derive(Debug, thiserror::Error)]
pub enum PictureError {
    /// The variant has no shapes file built in.
    #[error(
        "there are no board shapes for the variant '{0}' (only napoleonic and standard have them)"
    )]
    NoShapes(String),
    /// The built-in shapes file can't be read.
    #[error("the shapes of '{variant}': {source}")]
    Shapes {
        /// The variant.
        variant: String,
        /// Why.
        source: ShapeError,
    },
    /// The shapes don't fit the variant.
    #[error(transparent)]
    Draw(#[from] DrawError),
    /// The PNG can't be made.
    #[error(transparent)]
    Png(#[from] PngError),
}

/// The built-in shapes of `v`'s board.
pub fn board_for(v: &Variant) -> Result<Board, PictureError> {
    match shapes::builtin(&v.name) {
        Some(Ok(board)) => Ok(board),
        Some(Err(source)) => Err(PictureError::Shapes {
            variant: v.name.clone(),
            source,
        }),
        None => Err(PictureError::NoShapes(v.name.clone())),
    }
}

/// The file formats of a picture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A standalone SVG (text).
    Svg,
    /// A PNG at [`png::SCALE`] pixels per unit of the board.
    Png,
}

impl Format {
    /// The format a file name's extension asks for (`.svg`, `.png`, any case).
    pub fn of_path(path: &std::path::Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "svg" => Some(Format::Svg),
            "png" => Some(Format::Png),
            _ => None,
        }
    }
}

/// The picture of `position` (with `report`'s orders, when given) on `board`, as the file's
/// bytes.
pub fn picture(
    v: &Variant,
    board: &Board,
    position: &Position,
    report: Option<&PhaseReport>,
    view: View,
    format: Format,
) -> Result<Vec<u8>, PictureError> {
    let svg = draw(v, board, position, report, view)?;
    match format {
        Format::Svg => Ok(svg.into_bytes()),
        Format::Png => Ok(png::render(&svg)?),
    }
}
