//! Pictures of the board: the shapes of its spaces ([`shapes`]), a position with a phase's orders
//! drawn as SVG ([`draw`]), and that SVG rasterised to PNG with the font shipped in the project
//! ([`png`]).

pub mod draw;
pub mod png;
pub mod shapes;

pub use draw::{draw, DrawError, View};
pub use shapes::{Board, ShapeError};
