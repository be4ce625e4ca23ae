//! The web archive from the command line: `napjudge site`, and the refresh `tick` makes when
//! `[site] out` is set.

use crate::judge_cli::open_existing;
use napjudge_judge::config::{self, Config};
use napjudge_judge::store::View;
use std::path::Path;
use std::process::ExitCode;

/// The file in the archive's folder that holds the store's stamp when it was last written.
const STAMP: &str = ".napjudge-stamp";

/// `napjudge site`: the web archive of the games in `db`, written into `out`.
pub fn site(
    db: &Path,
    config_file: Option<&Path>,
    out: &Path,
    games: &[String],
) -> Result<ExitCode, String> {
    let config = config::load(config_file).map_err(|e| e.to_string())?;
    let store = open_existing(db)?;
    let built = build(store.view(), &config, out, games)?;
    println!(
        "wrote {}: {} games, {} phase pages; open {}",
        out.display(),
        built.games,
        built.phases,
        out.join("index.html").display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Rewrites the whole archive in `[site] out` when the games changed since it was last written
/// (a phase processed or rolled back, a deadline moved, a game started or ended: by tick, by
/// mail or by the shell): what it did, or nothing when there is no `out` or no change.
pub fn refresh(view: View, config: &Config) -> Result<Option<String>, String> {
    let Some(out) = config.site.out.as_deref() else {
        return Ok(None);
    };
    let stamp = view.archive_stamp().map_err(|e| e.to_string())?;
    let file = out.join(STAMP);
    if std::fs::read_to_string(&file).ok().as_deref() == Some(stamp.as_str()) {
        return Ok(None);
    }
    let built = build(view, config, out, &[])?;
    // Written last: an archive cut short by a failure is written again by the next tick.
    std::fs::write(&file, &stamp).map_err(|e| format!("{}: {e}", file.display()))?;
    Ok(Some(format!(
        "site: wrote {}: {} games, {} phase pages",
        out.display(),
        built.games,
        built.phases
    )))
}

fn build(
    view: View,
    config: &Config,
    out: &Path,
    games: &[String],
) -> Result<napjudge_site::Built, String> {
    let url = config.site.url.as_deref();
    // The feeds' tag: ids are minted by the site's host, else the judge's mail domain.
    let host = url
        .and_then(|u| u.split("://").nth(1))
        .and_then(|r| r.split(['/', ':']).next());
    let mail_domain = config.judge.address.rsplit('@').next();
    let authority = host
        .filter(|h| !h.is_empty())
        .or(mail_domain)
        .unwrap_or("localhost");
    napjudge_site::build(
        view,
        out,
        &napjudge_site::Options {
            games,
            url,
            authority,
        },
    )
    .map_err(|e| e.to_string())
}
