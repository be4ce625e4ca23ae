//! The judge as every command wires it: napjudge.toml read, the store opened, the judge told the
//! config's address and site, the mail settings, where the outbox goes, and the tick that `tick`
//! and `serve` both run. The shell's commands and the service share this, and nothing else.

use napjudge_judge::{
    load_config, tick, Clock, Config, Handled, Judge, JudgeConfig, MailConfig, MailState,
    MaildirError, PolledFile, Retry, Sent, Smtp, Store, Target, TickReport, View, MAX_SIZE,
};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The file in the archive's folder that holds the store's stamp when it was last written.
const STAMP: &str = ".napjudge-stamp";

/// One command's judge: napjudge.toml, the judge over the store wired from it, and the clock its
/// calls are made at.
pub struct Wired {
    /// napjudge.toml.
    pub config: Config,
    /// The judge, with the config's address and site.
    pub judge: Judge,
    /// `--now`, else the system's.
    pub clock: Clock,
}

/// napjudge.toml (`config_file`, else where [`load_config`] looks).
pub fn config(config_file: Option<&Path>) -> Result<Config, String> {
    load_config(config_file).map_err(|e| e.to_string())
}

/// The judge over `db`, telling players to mail the config's `[judge] address` and linking its
/// results to the config's `[site] url`, and the clock (`--now`, else the system's). Only `game
/// create` makes a new database (`create`): every other command refuses a file that doesn't
/// exist, so a wrong directory or a typo in `--db` never runs on an empty judge (a mail would be
/// told "there is no game", a tick would quietly do nothing).
pub fn judge(
    db: &Path,
    now: Option<&str>,
    config_file: Option<&Path>,
    create: bool,
) -> Result<Wired, String> {
    let config = config(config_file)?;
    let clock = Clock::from_arg(now).map_err(|e| format!("--now: {e}"))?;
    let judge = Judge::new(open(db, create)?)
        .with_address(&config.judge.address)
        .with_site(config.site.url.clone());
    Ok(Wired {
        config,
        judge,
        clock,
    })
}

/// The store at `db` (made when `create`), with a warning when others may read it.
pub fn open(db: &Path, create: bool) -> Result<Store, String> {
    let store = if create {
        Store::open(db).map_err(|e| e.to_string())?
    } else {
        open_existing(db)?
    };
    if let Some(w) = Store::loose_permissions(db) {
        eprintln!("napjudge: {w}");
    }
    Ok(store)
}

/// The store at `db`, which must exist: a reader never creates an empty one by a typo.
pub fn open_existing(db: &Path) -> Result<Store, String> {
    if !db.is_file() {
        let name = db
            .file_name()
            .map_or("napjudge.db".into(), |n| n.to_string_lossy());
        let dir = match db.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.display().to_string(),
            _ => ".".into(),
        };
        return Err(format!(
            "{}: no such database: no {name} in {dir}; give --db FILE, set NAPJUDGE_DB, or run \
             `napjudge init` (`napjudge game create` makes one too)",
            db.display()
        ));
    }
    Store::open(db).map_err(|e| format!("{}: {e}", db.display()))
}

/// What intake needs: the judge's own address (`from`, else the config's; mail from it is never
/// answered) and the size limit.
pub fn mail_config(config: &Config, from: Option<String>, max_size: usize) -> MailConfig {
    MailConfig {
        judge: from.unwrap_or_else(|| config.judge.address.clone()),
        max_size,
    }
}

/// Whether this user can write the database and its folder (SQLite writes its journal and the
/// outbox its lock file beside it); else what to fix. A mail server runs a pipe as its own
/// user: a database it can only read gives exit 75 for every mail.
pub fn writable(db: &Path) -> Result<(), String> {
    let folder = match db.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let user = std::env::var("USER").unwrap_or_else(|_| "this user".into());
    std::fs::OpenOptions::new()
        .append(true)
        .open(db)
        .map_err(|e| {
            format!(
                "{}: {e}: {user} can't write the database (the user the mail server runs the \
                 pipe as must own it, or share its group with mode 660: see README, \
                 \"Permissions\")",
                db.display()
            )
        })?;
    let probe = folder.join(format!(".napjudge-check-{}", std::process::id()));
    std::fs::write(&probe, b"")
        .and_then(|()| std::fs::remove_file(&probe))
        .map_err(|e| {
            format!(
                "{}: {e}: {user} can't write in the database's folder (SQLite's journal and the \
                 outbox's lock file go there: see README, \"Permissions\")",
                folder.display()
            )
        })
}

/// What a message's fate is called in the logs and on standard output.
pub fn fate(h: &Handled) -> String {
    match h {
        Handled::Answered => "answered".into(),
        Handled::Duplicate => "duplicate, answered as such".into(),
        Handled::Ignored(why) => format!("stored, not answered ({why})"),
        Handled::Failed(why) => format!("stored, not answered (marked failed, the GM told): {why}"),
    }
}

/// A message's fate printed: a failed one on standard error, for the GM.
pub fn handled(what: &str, h: &Handled) {
    match h {
        Handled::Failed(_) => eprintln!("napjudge: {what}: {}", fate(h)),
        _ => println!("{what}: {}", fate(h)),
    }
}

/// What a poll of a Maildir did.
pub struct MaildirPoll {
    /// The files taken: moved to `cur/`, or set aside in `failed/`.
    pub taken: usize,
    /// Exit 1 when a file could not be read or stored (it is in `failed/`).
    pub code: ExitCode,
    /// A fault of the database stopped the poll: the files left stay in `new/` for the next one.
    pub fault: Option<String>,
}

/// A Maildir polled (`mail poll --maildir`, and `serve --maildir` a batch at a time), each file
/// printed as it is taken.
pub fn poll_maildir(
    j: &mut Judge,
    cfg: &MailConfig,
    dir: &Path,
    clock: &Clock,
    at_most: usize,
) -> Result<MaildirPoll, String> {
    let mut code = ExitCode::SUCCESS;
    let mut taken = 0;
    let mut report = |p: &PolledFile| {
        taken += 1;
        if let Some(t) = &p.taken {
            match &t.handled {
                Some(h) => handled(&p.name, h),
                None => println!("{}: stored by an earlier run, not answered again", p.name),
            }
        }
        if let Some(aside) = &p.set_aside {
            match &aside.moved {
                Ok(to) => eprintln!(
                    "napjudge: {}: {}; moved to {}",
                    p.path.display(),
                    aside.why,
                    to.display()
                ),
                Err(err) => eprintln!(
                    "napjudge: {}: {}; could not move it to {}: {err}",
                    p.path.display(),
                    aside.why,
                    aside.folder.display()
                ),
            }
        }
        if p.is_fault() {
            code = ExitCode::FAILURE;
        }
    };
    let fault = match napjudge_judge::poll_maildir(j, cfg, dir, clock, at_most, &mut report) {
        Ok(()) => None,
        Err(e @ MaildirError::Store { .. }) => Some(e.to_string()),
        Err(e) => return Err(e.to_string()),
    };
    Ok(MaildirPoll { taken, code, fault })
}

/// What one tick did: the games (stored mail answered, reminders, the phases due), then the web
/// archive in `[site] out`.
pub struct Ticked {
    /// The messages answered that were stored and left unanswered, and each game's lines.
    pub games: Result<(usize, TickReport), String>,
    /// The archive's line when it was written.
    pub archive: Result<Option<String>, String>,
}

/// One tick: `tick`'s and `serve`'s. The archive is kept up to date, but a failure to write it
/// holds no mail back.
pub fn run_tick(j: &mut Judge, config: &Config, clock: Clock) -> Ticked {
    let cfg = mail_config(config, None, MAX_SIZE);
    let games = tick(j, &cfg, clock.now()).map_err(|e| e.to_string());
    let archive = refresh(j.view(), config);
    Ticked { games, archive }
}

/// Rewrites the whole archive in `[site] out` when the games changed since it was last written
/// (a phase processed or rolled back, a deadline moved, a game started or ended: by tick, by
/// mail or by the shell): what it did, or nothing when there is no `out` or no change.
fn refresh(view: View, config: &Config) -> Result<Option<String>, String> {
    let Some(out) = config.site.out.as_deref() else {
        return Ok(None);
    };
    let stamp = view.archive_stamp().map_err(|e| e.to_string())?;
    let file = out.join(STAMP);
    if std::fs::read_to_string(&file).ok().as_deref() == Some(stamp.as_str()) {
        return Ok(None);
    }
    let built = build_site(view, config, out, &[])?;
    // Written last: an archive cut short by a failure is written again by the next tick.
    std::fs::write(&file, &stamp).map_err(|e| format!("{}: {e}", file.display()))?;
    Ok(Some(format!(
        "site: wrote {}: {} games, {} phase pages",
        out.display(),
        built.games,
        built.phases
    )))
}

/// The web archive of `games` (every game started when none is named) written into `out`, its
/// links under the config's `[site] url`.
pub fn build_site(
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

/// Where the outbox goes: `--to-dir`, else `--smtp`, else the config's outbox folder, else its
/// mail server; none when nothing names one.
pub fn target(
    config: &Config,
    to_dir: Option<&Path>,
    smtp: Option<&str>,
) -> Result<Option<Target>, String> {
    if let Some(dir) = to_dir
        .or(config.outbox.dir.as_deref())
        .filter(|_| smtp.is_none())
    {
        return Ok(Some(Target::Dir(dir.to_path_buf())));
    }
    let server = match smtp {
        Some(url) => Some(Smtp::from_url(url, config.smtp.as_ref()).map_err(|e| e.to_string())?),
        None => config.smtp.clone(),
    };
    if let Some(w) = server.as_ref().and_then(Smtp::warning) {
        eprintln!("napjudge: {w}");
    }
    server
        .map(|s| Target::smtp(&s).map_err(|e| e.to_string()))
        .transpose()
}

/// Delivers the outbox from `from` (else the config's judge address, which a mail server must
/// be able to answer).
pub fn deliver(
    j: &mut Judge,
    config: &Config,
    target: &Target,
    from: Option<String>,
    clock: Clock,
) -> Result<Sent, String> {
    let from = from.unwrap_or_else(|| config.judge.address.clone());
    if let Target::Smtp(_) = target {
        JudgeConfig::sender(&from).map_err(|e| e.to_string())?;
    }
    let retry = Retry::from_config(&config.outbox);
    j.send_outbox(target, &from, retry, clock.now())
        .map_err(|e| e.to_string())
}

/// The warning when mail waits and nothing is named to deliver it.
pub fn undeliverable(j: &Judge) -> Option<String> {
    let n = queued(j);
    (n > 0).then(|| {
        format!(
            "{n} mail(s) queued and no way to deliver them: write [smtp] (or [outbox] dir) in \
             napjudge.toml, or give --smtp URL or --to-dir DIR"
        )
    })
}

/// The number of mails queued and not yet sent: with nowhere to send them, they are said.
fn queued(j: &Judge) -> usize {
    j.view()
        .mails(None)
        .map(|ms| {
            ms.iter()
                .filter(|m| matches!(m.state, MailState::Queued | MailState::Failed))
                .count()
        })
        .unwrap_or(0)
}
