//! An SVG picture rasterised to PNG by resvg, with the font shipped in `templates/fonts/` (no
//! system fonts), so the picture is the same on every machine.

use resvg::{tiny_skia, usvg};
use std::sync::{Arc, OnceLock};

/// DejaVu Sans Bold (licence: `templates/fonts/DejaVu-LICENSE.txt`).
const FONT: &[u8] = include_bytes!("../../../templates/fonts/DejaVuSans-Bold.ttf");

/// How many pixels a unit of the board's frame becomes: the frames are 900 to 1000 units wide,
/// and labels 8 units high read at twice that.
pub const SCALE: f32 = 2.0;

/// Why a picture can't be rasterised.
#[derive(Debug, thiserror::Error)]
pub enum PngError {
    /// The SVG is not one resvg reads (a bug in the drawing).
    #[error("the picture's SVG can't be read: {0}")]
    Svg(#[from] usvg::Error),
    /// The picture is empty or too large to allocate.
    #[error("the picture is too large or empty: {width}x{height} pixels")]
    Size {
        /// Width asked for.
        width: u32,
        /// Height asked for.
        height: u32,
    },
    /// The PNG encoder failed.
    #[error("the PNG can't be written: {0}")]
    Encode(String),
}

/// The font database, loaded once per process.
fn fonts() -> Arc<usvg::fontdb::Database> {
    static FONTS: OnceLock<Arc<usvg::fontdb::Database>> = OnceLock::new();
    FONTS
        .get_or_init(|| {
            let mut db = usvg::fontdb::Database::new();
            db.load_font_data(FONT.to_vec());
            Arc::new(db)
        })
        .clone()
}

/// The PNG of `svg` at [`SCALE`] pixels per unit.
pub fn render(svg: &str) -> Result<Vec<u8>, PngError> {
    let options = usvg::Options {
        font_family: "DejaVu Sans".into(),
        fontdb: fonts(),
        ..usvg::Options::default()
    };
    let tree = usvg::Tree::from_str(svg, &options)?;
    let size = tree.size();
    let (width, height) = (
        (size.width() * SCALE).ceil() as u32,
        (size.height() * SCALE).ceil() as u32,
    );
    let mut pixmap =
        tiny_skia::Pixmap::new(width, height).ok_or(PngError::Size { width, height })?;
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(SCALE, SCALE),
        &mut pixmap.as_mut(),
    );
    encode(&pixmap).map_err(|e| PngError::Encode(e.to_string()))
}

/// RGB (the picture is opaque), deflate level 1: about 12 ms and 280 kB for the Napoleonic
/// board, where the default level takes 80 ms for 340 kB (`benches/picture.rs`).
fn encode(pixmap: &tiny_skia::Pixmap) -> Result<Vec<u8>, png::EncodingError> {
    let rgb: Vec<u8> = pixmap
        .pixels()
        .iter()
        .flat_map(|p| {
            let c = p.demultiply();
            [c.red(), c.green(), c.blue()]
        })
        .collect();
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, pixmap.width(), pixmap.height());
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_deflate_compression(png::DeflateCompression::Level(1));
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&rgb)?;
    writer.finish()?;
    Ok(out)
}
