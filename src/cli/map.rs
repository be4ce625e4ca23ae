//! `napjudge map`: a board drawn, a game's from the store or a case file's, as PNG or SVG.

use crate::wiring;
use napjudge_cases::{self as case, run};
use napjudge_picture as picture;
use std::path::Path;
use std::process::ExitCode;

/// Runs `map GAME [PHASE]`.
pub fn map(
    db: &Path,
    config_file: Option<&Path>,
    game: &str,
    phase: Option<&str>,
    shapes: Option<&Path>,
    output: &Path,
) -> Result<ExitCode, String> {
    let (format, board) = picture_target(shapes, output)?;
    let mut j = wiring::judge(db, None, config_file, false)?.judge;
    let bytes = j
        .picture(game, phase, board.as_ref(), format)
        .map_err(|e| super::game::shell_error(&e))?;
    write_picture(output, &bytes)
}

/// The picture format `output`'s extension asks for, and the shapes file to draw with when one
/// is given (else the variant's built-in shapes are used).
fn picture_target(
    shapes: Option<&Path>,
    output: &Path,
) -> Result<(picture::Format, Option<picture::Board>), String> {
    let format = picture::Format::of_path(output).ok_or_else(|| {
        format!(
            "{}: write the picture to a .png or a .svg file",
            output.display()
        )
    })?;
    let board = match shapes {
        Some(path) => {
            let text = napjudge_cases::files::read_text(path)?;
            let board =
                picture::shapes::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            Some(board)
        }
        None => None,
    };
    Ok((format, board))
}

/// Writes a picture file.
fn write_picture(output: &Path, bytes: &[u8]) -> Result<ExitCode, String> {
    std::fs::write(output, bytes).map_err(|e| format!("{}: {e}", output.display()))?;
    println!("wrote {}", output.display());
    Ok(ExitCode::SUCCESS)
}

/// Runs `map --case FILE`: the case's first phase before its orders, or with `after` its last
/// phase's result.
pub fn map_case(
    file: &Path,
    id: Option<&str>,
    after: bool,
    shapes: Option<&Path>,
    output: &Path,
) -> Result<ExitCode, String> {
    let cases = case::file::read_file(file).map_err(|e| e.to_string())?;
    let case = match id {
        Some(id) => cases.iter().find(|c| c.id == id).ok_or_else(|| {
            let ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
            format!(
                "{}: no case '{id}'; its cases are {}",
                file.display(),
                ids.join(", ")
            )
        })?,
        None => cases
            .first()
            .ok_or_else(|| format!("{}: no case in it to draw", file.display()))?,
    };
    if case.variant.is_empty() {
        return Err(format!(
            "{}:{}: the case has no VARIANT line (VARIANT standard, or napoleonic)",
            case.file, case.line
        ));
    }
    let mut variants = run::Variants::default();
    let v = &variants.for_case(case)?;
    let (format, board) = picture_target(shapes, output)?;
    let board = match board {
        Some(b) => b,
        None => picture::board_for(v).map_err(|e| e.to_string())?,
    };
    let steps = run::play(case, v)?;
    // Before: the first phase's position with its orders; after: the last phase's result.
    let step = if after { steps.last() } else { steps.first() };
    let bytes = match step {
        Some(s) if after => picture::picture(
            v,
            &board,
            &s.report.next,
            Some(&s.report),
            picture::View::After,
            format,
        ),
        Some(s) => picture::picture(
            v,
            &board,
            &s.before,
            Some(&s.report),
            picture::View::Before,
            format,
        ),
        None => {
            let pos = run::initial_position(case, v)?;
            picture::picture(v, &board, &pos, None, picture::View::Before, format)
        }
    }
    .map_err(|e| e.to_string())?;
    write_picture(output, &bytes)
}
