//! An SVG picture rasterised to PNG by resvg, with the font shipped in `templates/fonts/` (no
//! system fonts), so the picture is the same on every machine.

use resvg::{tiny_skia, usvg};
use std::collections::HashMap;
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

/// The most colours a PNG palette holds.
const PALETTE_MAX: usize = 256;

/// An indexed-colour PNG (at most 256 colours), since a result mail carries one picture per
/// player: the picture is flat fills with anti-aliased edges, so the 256 commonest colours hold
/// every fill, line and ink exactly and each edge pixel takes its nearest palette colour (no
/// dithering, which would speckle the fills). About 105 kB for the Napoleonic board, where RGB at
/// level 1 took 280 kB (`docs/performance.md`).
fn encode(pixmap: &tiny_skia::Pixmap) -> Result<Vec<u8>, png::EncodingError> {
    let (palette, indices) = quantise(pixmap);
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, pixmap.width(), pixmap.height());
    encoder.set_color(png::ColorType::Indexed);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_palette(
        palette
            .iter()
            .flat_map(|&c| rgb_bytes(c))
            .collect::<Vec<u8>>(),
    );
    // Rows of palette indices don't gain from prediction: the filters only cost time.
    encoder.set_filter(png::Filter::NoFilter);
    encoder.set_deflate_compression(png::DeflateCompression::Level(DEFLATE_LEVEL));
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&indices)?;
    writer.finish()?;
    Ok(out)
}

/// The deflate level. The Napoleonic start (CPU per `napjudge map`, `docs/performance.md`): level
/// 1, 155 kB in 41 ms; 3, 109 kB in 49 ms; 4, 105 kB in 48 ms; 6, 103 kB in 60 ms; 9, 101 kB in
/// 90 ms.
const DEFLATE_LEVEL: u8 = 4;

/// A colour as 0xRRGGBB.
type Rgb = u32;

fn rgb_bytes(c: Rgb) -> [u8; 3] {
    [(c >> 16) as u8, (c >> 8) as u8, c as u8]
}

/// The opaque picture's pixels as colours (the background is white, so every pixel is opaque).
fn colours(pixmap: &tiny_skia::Pixmap) -> impl Iterator<Item = Rgb> + '_ {
    pixmap.pixels().iter().map(|p| {
        let c = p.demultiply();
        (u32::from(c.red()) << 16) | (u32::from(c.green()) << 8) | u32::from(c.blue())
    })
}

/// The palette (the commonest colours, by pixel count) and each pixel's index into it.
fn quantise(pixmap: &tiny_skia::Pixmap) -> (Vec<Rgb>, Vec<u8>) {
    // Counted run by run: a row is mostly long runs of one fill.
    let mut counts: HashMap<Rgb, usize, ColourHash> = HashMap::default();
    let mut run: Option<(Rgb, usize)> = None;
    for c in colours(pixmap) {
        match &mut run {
            Some((last, n)) if *last == c => *n += 1,
            _ => {
                if let Some((last, n)) = run {
                    *counts.entry(last).or_default() += n;
                }
                run = Some((c, 1));
            }
        }
    }
    if let Some((last, n)) = run {
        *counts.entry(last).or_default() += n;
    }
    let mut by_count: Vec<(Rgb, usize)> = counts.into_iter().collect();
    // Ties broken by colour, so the same picture always gives the same file.
    by_count.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    by_count.truncate(PALETTE_MAX);
    let palette: Vec<Rgb> = by_count.into_iter().map(|(c, _)| c).collect();
    let nearest = Nearest::new(&palette);
    let mut index: HashMap<Rgb, u8, ColourHash> = palette
        .iter()
        .enumerate()
        .map(|(i, &c)| (c, i as u8))
        .collect();
    let mut last: Option<(Rgb, u8)> = None;
    let indices = colours(pixmap)
        .map(|c| match last {
            Some((l, i)) if l == c => i,
            _ => {
                let i = *index.entry(c).or_insert_with(|| nearest.of(c));
                last = Some((c, i));
                i
            }
        })
        .collect();
    (palette, indices)
}

/// A colour's hash: one multiplication (Fibonacci hashing), since the default hasher's cost per
/// run of pixels is most of the quantising's time and colours need no defence against collisions.
type ColourHash = std::hash::BuildHasherDefault<MultiplyHasher>;

#[derive(Default)]
struct MultiplyHasher(u64);

impl std::hash::Hasher for MultiplyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b) | (self.0 << 8));
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        // The product's high bits depend on every bit of the colour; folded into the low bits,
        // which pick the table's bucket.
        let x = n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = x ^ (x >> 32);
    }
}

/// The nearest palette colour (squared distance in RGB), searched outwards from the colour's
/// green in the palette sorted by green, stopping once green alone is farther than the best.
struct Nearest {
    /// (green, colour, index), by green.
    by_green: Vec<(i32, Rgb, u8)>,
}

impl Nearest {
    fn new(palette: &[Rgb]) -> Nearest {
        let mut by_green: Vec<(i32, Rgb, u8)> = palette
            .iter()
            .enumerate()
            .map(|(i, &c)| (((c >> 8) & 0xff) as i32, c, i as u8))
            .collect();
        by_green.sort_unstable();
        Nearest { by_green }
    }

    fn of(&self, c: Rgb) -> u8 {
        let [r, g, b] = rgb_bytes(c).map(i32::from);
        let distance = |p: Rgb| {
            let [pr, pg, pb] = rgb_bytes(p).map(i32::from);
            (pr - r).pow(2) + (pg - g).pow(2) + (pb - b).pow(2)
        };
        let start = self.by_green.partition_point(|&(pg, _, _)| pg < g);
        let mut best = (i32::MAX, 0u8);
        let (mut up, mut down) = (start, start);
        loop {
            let mut moved = false;
            if let Some(&(pg, p, i)) = self.by_green.get(up) {
                if (pg - g).pow(2) < best.0 {
                    best = best.min((distance(p), i));
                    up += 1;
                    moved = true;
                }
            }
            if down > 0 {
                let (pg, p, i) = self.by_green[down - 1];
                if (pg - g).pow(2) < best.0 {
                    best = best.min((distance(p), i));
                    down -= 1;
                    moved = true;
                }
            }
            if !moved {
                return best.1;
            }
        }
    }
}
