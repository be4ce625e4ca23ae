//! Game folders and records at the shell: `game import`, `game export` and `replay`
//! (`napjudge-replay`).

use crate::wiring;
use napjudge_replay::{self as replay, folder};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `game import`: the folder is written whole, or nothing is.
pub fn import(
    file: &Path,
    editions: &[String],
    out: Option<PathBuf>,
    name: Option<&str>,
    force: bool,
) -> Result<ExitCode, String> {
    let imported = replay::import::import_file(file, editions, name).map_err(|e| e.to_string())?;
    let out = out.unwrap_or_else(|| Path::new("fixtures/games").join(&imported.name));
    replay::import::write(&imported, &out, force).map_err(|e| e.to_string())?;
    let mails = imported
        .files
        .keys()
        .filter(|p| p.starts_with("mail"))
        .count();
    println!(
        "{}: wrote {} ({mails} mails); replay it with `napjudge replay {}`",
        imported.name,
        out.display(),
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// `game export --mila`: the record to `out` (`-`: standard output). The store is only read.
pub fn export(db: &Path, name: &str, out: &Path, public: bool) -> Result<ExitCode, String> {
    let store = wiring::open_existing(db)?;
    let scope = if public {
        replay::export::Scope::Public
    } else {
        replay::export::Scope::Full
    };
    let json = replay::export::export(store.view(), name, scope).map_err(|e| e.to_string())?;
    if out == Path::new("-") {
        println!("{json}");
    } else {
        std::fs::write(out, json + "\n").map_err(|e| format!("{}: {e}", out.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `game export --out DIR`: the game's folder, written whole (aside, then renamed) or not at
/// all; a folder already there is refused. The store is only read.
pub fn export_folder(db: &Path, name: &str, out: &Path) -> Result<ExitCode, String> {
    if out.exists() {
        return Err(format!(
            "{} exists: give --out a folder that doesn't (nothing written)",
            out.display()
        ));
    }
    let store = wiring::open_existing(db)?;
    let dumped = replay::dump::folder(store.view(), name).map_err(|e| e.to_string())?;
    replay::import::write(&dumped, out, false).map_err(|e| e.to_string())?;
    let mails = dumped
        .files
        .keys()
        .filter(|p| p.starts_with("mail"))
        .count();
    println!(
        "{name}: wrote {} ({mails} mails, passwords replaced); replay it with `napjudge replay {}`",
        out.display(),
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// A folder for this run's databases, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Result<TempDir, String> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir =
            std::env::temp_dir().join(format!("napjudge-replay-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(TempDir(dir))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Where a replay's mails go without `--outbox`: under the system's temporary folder, never
/// into the folder the replay was started from.
fn replay_root() -> PathBuf {
    std::env::temp_dir().join("napjudge-replay")
}

/// `napjudge replay PATH`: every game folder at PATH replayed through the judge (docs/games.md);
/// exit 1 when any differs from its record. `db`: one store for every game instead of a fresh
/// one each; `outbox`: where each game's mails go (`DIR/NAME`, else [`replay_root`]`/NAME`).
/// Games with a store each are independent: they are replayed on as many threads as the machine
/// has cores, the largest first, and reported in the folders' order.
pub fn replay(path: &Path, db: Option<&Path>, outbox: Option<&Path>) -> Result<ExitCode, String> {
    use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Mutex;
    let started = std::time::Instant::now();
    let dirs = folder::find(path).map_err(|e| e.to_string())?;
    if dirs.is_empty() {
        return Err(format!(
            "{}: no game folder here (a folder with a game.toml, or folders of them)",
            path.display()
        ));
    }
    let folders = dirs
        .iter()
        .map(|dir| folder::read(dir).map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    let temp = TempDir::new()?;
    // Drawn on stderr, and only when it is a terminal.
    let bars = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
    let style = |template: &str| {
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar())
    };
    let overall = bars.add(ProgressBar::new(dirs.len() as u64));
    overall.set_style(style("games  [{bar:30}] {pos}/{len} {elapsed}"));
    // One store for every game (`--db`) takes one game at a time.
    let threads = match db {
        Some(_) => 1,
        None => std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(folders.len()),
    };
    let mut order: Vec<usize> = (0..folders.len()).collect();
    if threads > 1 {
        order.sort_by_key(|&i| std::cmp::Reverse(folders[i].mails.len()));
    }
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let results: Mutex<Vec<Option<Result<replay::Replayed, String>>>> =
        Mutex::new(folders.iter().map(|_| None).collect());
    let play = |i: usize| {
        let f = &folders[i];
        let name = &f.settings.game.name;
        let bar = bars.add(ProgressBar::new(f.record.len() as u64));
        bar.set_style(style("{msg:>10} [{bar:30}] {pos}/{len} phases"));
        bar.set_message(name.clone());
        let store = match db {
            Some(file) => file.to_path_buf(),
            None => temp.0.join(format!("{name}.db")),
        };
        let out = match outbox {
            Some(d) => d.join(name),
            None => replay_root().join(name),
        };
        let r = replay::replay_game(f, &store, &out, &|n| bar.set_position(n as u64))
            .map_err(|e| format!("{}: {e}", dirs[i].display()));
        bar.finish_and_clear();
        overall.inc(1);
        r
    };
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                // A game that can't be replayed ends the run: no new game is started.
                while !failed.load(Ordering::Relaxed) {
                    let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) else {
                        break;
                    };
                    let r = play(i);
                    failed.fetch_or(r.is_err(), Ordering::Relaxed);
                    if let Ok(mut all) = results.lock() {
                        all[i] = Some(r);
                    }
                }
            });
        }
    });
    let results = results
        .into_inner()
        .map_err(|_| "a replay thread panicked".to_string())?;
    let mut total = replay::Replayed::default();
    let mut games = 0;
    let mut outboxes = Vec::new();
    for r in results.into_iter().flatten() {
        let r = r?;
        for d in &r.differences {
            bars.suspend(|| println!("{d}"));
        }
        games += 1;
        total.phases += r.phases;
        total.mails_in += r.mails_in;
        total.mails_out += r.mails_out;
        total.press += r.press;
        total.differences.extend(r.differences);
        outboxes.push(r.outbox);
    }
    overall.finish_and_clear();
    let where_ = match (outbox, outboxes.as_slice()) {
        (_, [one]) => one.display().to_string(),
        (Some(d), _) => format!("{}/GAME/", d.display()),
        (None, _) => format!("{}/GAME/", replay_root().display()),
    };
    println!(
        "replayed {games} game{}: {} phases, {} mails in, {} mails out ({} press delivered), {} \
         difference{}, in {:.1} s; the judge's mails are in {where_}",
        if games == 1 { "" } else { "s" },
        total.phases,
        total.mails_in,
        total.mails_out,
        total.press,
        total.differences.len(),
        if total.differences.len() == 1 {
            ""
        } else {
            "s"
        },
        started.elapsed().as_secs_f64()
    );
    Ok(if total.differences.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
