//! The web archive from the command line: `napjudge site` (`tick` and `serve` keep it up to date
//! in `[site] out` through the wiring's tick).

use crate::wiring;
use std::path::Path;
use std::process::ExitCode;

/// `napjudge site`: the web archive of the games in `db`, written into `out`.
pub fn site(
    db: &Path,
    config_file: Option<&Path>,
    out: &Path,
    games: &[String],
) -> Result<ExitCode, String> {
    let config = wiring::config(config_file)?;
    let store = wiring::open_existing(db)?;
    let built = wiring::build_site(store.view(), &config, out, games)?;
    println!(
        "wrote {}: {} games, {} phase pages; open {}",
        out.display(),
        built.games,
        built.phases,
        out.join("index.html").display()
    );
    Ok(ExitCode::SUCCESS)
}
