//! Issue 11's figure: the 20 recorded webDiplomacy games replayed through the judge, each from
//! its game folder (already read) to its result mails written: a fresh SQLite file on disk, every
//! mail through `mail::receive`, every deadline through `tick`, each phase checked against the
//! record, every mail the judge sent written as an .eml file. The aim: all 20 in under 10 s.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use napjudge_replay::{self as replay, folder};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A new scratch folder for each run: files created where many were just deleted cost ext4 far
/// more (its search for an inode not recently freed), which a first replay never pays.
fn scratch() -> PathBuf {
    static RUN: AtomicUsize = AtomicUsize::new(0);
    let n = RUN.fetch_add(1, Ordering::Relaxed);
    let dir = base().join(format!("run{n}"));
    std::fs::create_dir_all(&dir).expect("scratch");
    dir
}

fn base() -> PathBuf {
    std::env::temp_dir().join("napjudge-bench-replay")
}

/// Replays `games` into fresh stores under `dir`; the phases played.
fn replay_all(games: &[folder::Folder], dir: &Path) -> usize {
    let mut phases = 0;
    for f in games {
        let name = &f.settings.game.name;
        let db = dir.join(format!("{name}.db"));
        let out = dir.join(name);
        let r = replay::replay_game(f, &db, &out, &|_| {}).expect("replays");
        assert!(r.differences.is_empty(), "{:?}", r.differences);
        phases += r.phases;
    }
    phases
}

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/games");
    let games: Vec<folder::Folder> = folder::find(&root)
        .expect("the game folders")
        .iter()
        .filter(|d| {
            d.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("wd"))
        })
        .map(|d| folder::read(d).expect("a game folder"))
        .collect();
    assert_eq!(games.len(), 20);
    let _ = std::fs::remove_dir_all(base());
    c.bench_function("replay/20_webdiplomacy_games", |b| {
        b.iter_batched(
            scratch,
            |dir| assert_eq!(replay_all(&games, &dir), 722),
            BatchSize::PerIteration,
        )
    });
    let one = &games[..1];
    c.bench_function("replay/one_game_wd433761", |b| {
        b.iter_batched(
            scratch,
            |dir| assert_eq!(replay_all(one, &dir), 35),
            BatchSize::PerIteration,
        )
    });
    let _ = std::fs::remove_dir_all(base());
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
