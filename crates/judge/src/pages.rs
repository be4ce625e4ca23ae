//! Where a game's pages are in the web archive: a game's folder and a phase's page, the same
//! for the site that writes them and the results mails that link to them.

use napjudge_engine::variant::{Phase, Variant};

/// A game's folder: its letters, digits, `-` and `_`, the rest as `-` (a name from an older
/// store or an import may hold others; a folder name must not climb out of the site or hide
/// itself).
pub fn game_dir(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if s.is_empty() {
        "game".into()
    } else {
        s
    }
}

/// A phase's page in its game's folder: `1801-spring-movement.html`.
pub fn phase_file(v: &Variant, phase: Phase) -> String {
    format!(
        "{}-{}-{}.html",
        phase.year,
        v.season_name(phase.season),
        phase.kind.word()
    )
    .to_ascii_lowercase()
    .replace(' ', "-")
}

/// A phase's page under the site's address `url` (`[site] url`).
pub(crate) fn phase_url(url: &str, game: &str, v: &Variant, phase: Phase) -> String {
    format!(
        "{}/{}/{}",
        url.trim_end_matches('/'),
        game_dir(game),
        phase_file(v, phase)
    )
}
