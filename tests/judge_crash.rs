//! Issue 9's crash test: `game process` run as a child process and killed at many points; each
//! time the reopened file holds the game either before the phase or after it, never between, and
//! no result mail is queued twice or lost.

use crate::common;

use napjudge_judge::{parse_time, Author, Judge, Store};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const NOW: &str = "2026-07-01T12:00:00Z";

fn prepare(db: &Path) {
    let _ = std::fs::remove_file(db);
    let now = parse_time(NOW).expect("time");
    let mut j = Judge::new(Store::open(db).expect("db"));
    common::start_five_players(&mut j, now, "g", "UTC", common::day_periods(), |p| {
        format!("{}@example.org", p.to_lowercase())
    });
    j.process("g", false, now).expect("Winter 1800");
    for (p, o) in [
        ("France", "A(Par)-Bur\nF(Bre)-MAO\nF(Mar)-GOL\nA(Bor) H\n"),
        ("Austria", "A(Vie)-Boh\nA(Bud)-Gal\nA(Tra) H\nF(Dal)-ADR\n"),
        ("Prussia", "A(Ber)-Sax\nA(Kon) H\nA(Kol) H\nA(Brt) H\n"),
        ("Russia", "A(StP)-Fin\nA(Sib) H\nA(Azo)-Cau\nA(Mos) H\n"),
        (
            "England",
            "F(Lon)-NTH\nF(Sco)-NWG\nA(Lpl)-Wal\nF(Sar)-TYS\n",
        ),
    ] {
        j.orders("g", p, o, Author::Player, now).expect("orders");
    }
}

/// (Spring 1801 processed?, result mails of Spring 1801, current phase's sequence number).
fn state(db: &Path) -> (bool, usize, i64) {
    let st = Store::open(db).expect("the file reopens after the kill");
    let g = st.view().game("g").expect("read").expect("game");
    let phases = st.view().phases(g.id).expect("phases");
    let spring = &phases[1];
    let mails = crate::golden::queued(st.view())
        .iter()
        .filter(|m| m.subject == "g: results of Spring 1801 Movement")
        .count();
    let current = st
        .view()
        .current_phase(g.id)
        .expect("read")
        .expect("a current phase")
        .seq;
    (spring.report.is_some(), mails, current)
}

fn process(db: &Path) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_napjudge"))
        .args(["--now", NOW, "--db"])
        .arg(db)
        .args(["game", "process", "g"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("napjudge runs")
}

#[test]
fn killed_while_processing_the_game_is_before_or_after_never_between() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("judge-crash");
    std::fs::create_dir_all(&dir).expect("scratch");
    let template = dir.join("template.db");
    prepare(&template);
    // How long a whole run takes, to spread the kills over it.
    let timing = dir.join("timing.db");
    std::fs::copy(&template, &timing).expect("copy");
    let start = Instant::now();
    let status = process(&timing).wait().expect("runs");
    let full = start.elapsed();
    assert!(status.success());
    assert_eq!(state(&timing), (true, 6, 3));

    let (mut before, mut after) = (0, 0);
    let steps = 30u32;
    for i in 0..=steps {
        let db = dir.join(format!("crash-{i}.db"));
        for ext in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{ext}", db.display()));
        }
        std::fs::copy(&template, &db).expect("copy");
        let mut child = process(&db);
        // From at once to twice a whole run: the last kills come after the process ended.
        std::thread::sleep(full * 2 * i / steps);
        let _ = child.kill();
        let _ = child.wait();
        match state(&db) {
            (false, 0, 2) => {
                before += 1;
                // Processing again after the kill does the whole phase, once.
                assert!(process(&db).wait().expect("runs").success());
                assert_eq!(
                    state(&db),
                    (true, 6, 3),
                    "kill {i}/{steps}: after the rerun"
                );
            }
            (true, 6, 3) => after += 1,
            other => panic!("kill {i}/{steps}: the game is between phases: {other:?}"),
        }
    }
    // Both outcomes were seen: the kills landed before and after the commit.
    assert!(
        before > 0 && after > 0,
        "before {before}, after {after}, run {full:?}"
    );
}
