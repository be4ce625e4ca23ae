//! Issue 11: game folders replayed through the judge (docs/games.md), `napjudge game import`,
//! and game options. Real SQLite files in a temporary folder, real .eml files.

use napjudge_cases::mila;
use napjudge_replay::{self as replay, export, folder, import};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh folder for one test.
fn temp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("replay-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

fn napjudge(args: &[&str], cwd: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_napjudge"))
        .args(args)
        .current_dir(cwd)
        .env_remove("NAPJUDGE_DB")
        .env_remove("NAPJUDGE_CONFIG")
        .output()
        .expect("napjudge runs")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder");
    for e in std::fs::read_dir(from).expect("a folder") {
        let path = e.expect("an entry").path();
        let target = to.join(path.file_name().expect("a name"));
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).expect("a copy");
        }
    }
}

/// Every file under `dir`, by path inside it, with its bytes.
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    crate::tree::files(dir, None)
        .into_iter()
        .map(|path| {
            let rel = path.strip_prefix(dir).expect("inside").to_path_buf();
            let bytes = std::fs::read(&path).expect("a file");
            (rel, bytes)
        })
        .collect()
}

/// Issue 11 "done when": every game folder under fixtures/games/ replays through the real
/// pipeline with zero differences; the 20 webDiplomacy games are 722 phases and 6,070 mails, and
/// every mail the judge sent is an .eml file in the game's outbox folder.
#[test]
fn every_game_folder_replays_with_zero_differences() {
    let dirs = folder::find(&root().join("fixtures/games")).expect("the game folders");
    assert!(dirs.len() >= 20, "the 20 webDiplomacy games at least");
    let work = temp("all");
    // Two at a time: the machine running the tests has two cores or more.
    let halves: Vec<&[PathBuf]> = dirs.chunks(dirs.len().div_ceil(2)).collect();
    let results: Vec<replay::Replayed> = std::thread::scope(|s| {
        let handles: Vec<_> = halves
            .iter()
            .map(|part| {
                let work = &work;
                s.spawn(move || {
                    part.iter()
                        .map(|dir| {
                            let f = folder::read(dir).expect("a game folder reads");
                            let name = &f.settings.game.name;
                            let db = work.join(format!("{name}.db"));
                            let out = work.join(name).join("outbox");
                            replay::replay_game(&f, &db, &out, &|_| {}).expect("replays")
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a replay thread"))
            .collect()
    });
    let mut differences = Vec::new();
    for r in &results {
        differences.extend(r.differences.iter().cloned());
        let written = std::fs::read_dir(&r.outbox).expect("the outbox").count();
        assert_eq!(written, r.mails_out, "{}: .eml files written", r.name);
        assert!(r.press > 0, "{}: press delivered", r.name);
    }
    assert!(
        differences.is_empty(),
        "{} differences:\n{}",
        differences.len(),
        differences.join("\n")
    );
    let wd: Vec<&replay::Replayed> = results
        .iter()
        .filter(|r| r.name.starts_with("wd"))
        .collect();
    assert_eq!(wd.len(), 20);
    assert_eq!(wd.iter().map(|r| r.phases).sum::<usize>(), 722, "phases");
    assert_eq!(
        wd.iter().map(|r| r.mails_in).sum::<usize>(),
        6070,
        "mails in"
    );
    // Issue 23: each replayed store exported again (no second replay: the stores are these).
    for r in &results {
        exports_as_recorded(&work.join(format!("{}.db", r.name)), &r.name);
    }
}

/// Issue 23, `game export`: the game in `db` written as MILA JSON equals its record in every
/// field the importer reads, and imported again gives the fixture's folder (so its replay is the
/// fixture's: zero differences). What the judge doesn't keep is the judge's own: the id (the
/// game's name), the press times (to the second, as the judge received each message) and blanks
/// at a press message's ends. A record closed as `COMPLETED` ends at the judge's phase now (its
/// re-imported folder then expects that phase too, and is replayed). The Napoleonic game is
/// refused: the format has no Bids phase.
fn exports_as_recorded(db: &Path, name: &str) {
    let store = napjudge_judge::Store::open(db).expect("the replayed store");
    let exported = export::export(store.view(), name, export::Scope::Full);
    let Some(number) = name.strip_prefix("wd") else {
        let err = exported.expect_err("the Napoleonic game has no MILA record");
        assert!(err.to_string().contains("standard Diplomacy only"), "{err}");
        return;
    };
    let json = exported.expect("a standard game exports");
    let records = root().join("fixtures/records/webdiplomacy");
    let original = std::fs::read_dir(&records)
        .expect("the records")
        .map(|e| e.expect("an entry").path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(&format!("game_{number}_")))
        })
        .expect("the game's record");
    let board = napjudge_engine::variant::load_named("standard").expect("the standard board");
    let read = |text: &str| mila::read(&board, text).expect("a record reads");
    let mut want = read(&std::fs::read_to_string(&original).expect("the record"));
    let got = read(&json);
    want.id = name.to_string();
    // A copy of a press mail (the same text from the same power, sent the same second in the
    // same phase) is delivered once (issue 19, finding 5): wd434015 has France's empty press to
    // Germany four times in one second, and the judge keeps one.
    let mut copies = 0;
    for w in &mut want.phases {
        let mut seen = std::collections::HashSet::new();
        let before = w.press.len();
        w.press.retain(|p| {
            seen.insert((
                p.sender,
                p.recipient,
                p.text.trim().to_string(),
                p.time_sent / 10_000,
            ))
        });
        copies += before - w.press.len();
    }
    for (w, g) in want.phases.iter_mut().zip(&got.phases) {
        for (wm, gm) in w.press.iter_mut().zip(&g.press) {
            // The import only ever moves press later, to fit its phase.
            assert!(
                gm.time_sent / 10_000 >= wm.time_sent / 10_000,
                "{name}: press time"
            );
            wm.time_sent = gm.time_sent;
            // Blanks at a message's ends are not kept by the judge (a mail's lines are trimmed).
            assert_eq!(wm.text.trim(), gm.text, "{name}: press text");
            wm.text.clone_from(&gm.text);
        }
    }
    // A record closed as `COMPLETED` (the game ended, on the site that recorded it) ends, in the
    // judge's game, at the phase the judge waits in: the same position, the phase's own name.
    let completed = want.phases.last().is_some_and(|p| p.phase.is_none());
    if let (true, Some(w), Some(g)) = (completed, want.phases.last_mut(), got.phases.last()) {
        assert!(g.orders.is_empty(), "{name}: no orders of the phase now");
        w.name.clone_from(&g.name);
        w.phase = g.phase;
    }
    assert_eq!(want.phases.len(), got.phases.len(), "{name}: phases");
    for (w, g) in want.phases.iter().zip(&got.phases) {
        assert_eq!(w, g, "{name} {}: the exported phase", w.name);
    }
    assert_eq!(want, got, "{name}");
    // Imported under the original's file name (the folder names its source file).
    let source = original.display().to_string();
    let again = import::import(&json, &source, name, &["webdiplomacy".into()], None)
        .expect("the export imports");
    let fixture = root().join("fixtures/games").join(name);
    assert!(again.files.len() > 2, "{name}: a folder");
    if completed || copies > 0 {
        // Its record.txt also expects the phase now (or its folder lacks the copies' mails):
        // replayed, it has no differences.
        let dir = db.with_extension("exported");
        import::write(&again, &dir, true).expect("the folder written");
        let f = folder::read(&dir).expect("the folder reads");
        let r = replay::replay_game(&f, &dir.join("replay.db"), &dir.join("outbox"), &|_| {})
            .expect("replays");
        assert!(r.differences.is_empty(), "{name}: {:?}", r.differences);
        return;
    }
    for (path, bytes) in &again.files {
        let old = std::fs::read(fixture.join(path)).expect("the fixture has the file");
        // The mails' lines compared without their blanks at the ends, which the judge drops.
        let trimmed = |b: &[u8]| -> Vec<u8> {
            let text = String::from_utf8_lossy(b);
            let lines: Vec<&str> = text.lines().map(str::trim).collect();
            lines.join("\n").into_bytes()
        };
        let (old, bytes) = if path.starts_with("mail") {
            (trimmed(&old), trimmed(bytes))
        } else {
            (old, bytes.clone())
        };
        assert!(
            old == bytes,
            "{name}: {} differs from the fixture's",
            path.display()
        );
    }
}

/// Issue 11: a record changed by one unit makes `napjudge replay` print that difference, naming
/// the game and phase, and exit non-zero.
#[test]
fn a_corrupted_record_is_reported_and_fails_the_replay() {
    let work = temp("corrupt");
    let game = work.join("wd448105");
    copy_dir(&root().join("fixtures/games/wd448105"), &game);
    let record = std::fs::read_to_string(game.join("record.txt")).expect("the record");
    let want = "  England: A(Edi), F(NTH), F(NWG)\n";
    assert!(record.contains(want), "the first phase's English units");
    std::fs::write(
        game.join("record.txt"),
        record.replacen(want, "  England: A(Yor), F(NTH), F(NWG)\n", 1),
    )
    .expect("the changed record");
    let out = napjudge(&["replay", "wd448105", "--outbox", "outbox"], &work);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout
            .contains("wd448105 Spring 1901 Movement: POSTSTATE differs\n    expected: Austria: "),
        "{stdout}"
    );
    assert!(
        stdout.contains("England: F(NTH), F(NWG), A(Yor);"),
        "{stdout}"
    );
    assert!(
        stdout.contains("England: A(Edi), F(NTH), F(NWG)"),
        "{stdout}"
    );
    assert!(stdout.contains("1 difference,"), "{stdout}");
}

/// Issue 35: games with a store each are replayed side by side, the largest first, and yet
/// reported in the folders' order: the larger game, first by its folder's name and still running
/// when the smaller one is done, has its difference printed first, as one shared store
/// (`--db`, one game at a time) prints it.
#[test]
fn games_replayed_side_by_side_are_reported_in_the_folders_order() {
    let work = temp("order");
    let want = "  England: A(Edi), F(NTH), F(NWG)\n";
    for (dir, game) in [("1-large", "wd445034"), ("2-small", "wd448105")] {
        let to = work.join("games").join(dir);
        copy_dir(&root().join("fixtures/games").join(game), &to);
        let record = std::fs::read_to_string(to.join("record.txt")).expect("the record");
        assert!(
            record.contains(want),
            "{game}: the first phase's English units"
        );
        std::fs::write(
            to.join("record.txt"),
            record.replacen(want, "  England: A(Yor), F(NTH), F(NWG)\n", 1),
        )
        .expect("the changed record");
    }
    let differences = |args: &[&str]| {
        let out = napjudge(args, &work);
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert_eq!(out.status.code(), Some(1), "{stdout}");
        assert!(stdout.contains("replayed 2 games:"), "{stdout}");
        assert!(stdout.contains(" 2 differences,"), "{stdout}");
        stdout
            .lines()
            .filter(|l| l.contains("POSTSTATE differs"))
            .map(|l| l.split(' ').next().unwrap_or_default().to_string())
            .collect::<Vec<_>>()
    };
    let games = ["wd445034", "wd448105"];
    assert_eq!(
        differences(&["replay", "games", "--outbox", "side-by-side"]),
        games
    );
    assert_eq!(
        differences(&["replay", "games", "--outbox", "one-store", "--db", "one.db"]),
        games
    );
}

/// Issue 11: a record with a phase the import can't express is refused with the phase named,
/// and no folder is written.
#[test]
fn an_unreadable_phase_is_named_and_nothing_is_written() {
    let work = temp("unreadable");
    let json = std::fs::read_to_string(
        root().join("fixtures/records/webdiplomacy/game_448105_ENGLAND_AG.json"),
    )
    .expect("a record");
    let broken = json.replacen("\"A PAR - GAS\"", "\"A PAR Z GAS\"", 1);
    assert_ne!(broken, json, "an order changed");
    std::fs::write(work.join("game_448105_ENGLAND_AG.json"), broken).expect("the record");
    let out = napjudge(
        &[
            "game",
            "import",
            "game_448105_ENGLAND_AG.json",
            "--out",
            "games/wd448105",
        ],
        &work,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("phase S1901M: can't read FRANCE's order 'A PAR Z GAS'"),
        "{stderr}"
    );
    assert!(!work.join("games").exists(), "nothing written");
}

/// Issue 11: importing a record twice gives byte-identical folders, identical to the one in
/// fixtures/games/ (which is therefore what the import makes today); a folder with files is
/// not overwritten without --force.
#[test]
fn import_is_deterministic_and_matches_the_fixture() {
    let work = temp("determinism");
    let record = root().join("fixtures/records/webdiplomacy/game_439643_ENGLAND_T.json");
    let record = record.to_str().expect("a path");
    for out in ["a", "b"] {
        let o = napjudge(
            &[
                "game",
                "import",
                record,
                "--edition",
                "webdiplomacy",
                "--out",
                out,
            ],
            &work,
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let a = tree(&work.join("a"));
    assert_eq!(a, tree(&work.join("b")));
    assert_eq!(a, tree(&root().join("fixtures/games/wd439643")));
    let again = napjudge(&["game", "import", record, "--out", "a"], &work);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    let imported =
        import::import_file(Path::new(record), &["webdiplomacy".into()], None).expect("imports");
    assert_eq!(imported.name, "wd439643");
}

/// Issue 11: a game option is stored with the game and shown; an unknown one is refused with the
/// list of rule switches.
#[test]
fn game_options_are_stored_shown_and_checked() {
    let work = temp("options");
    let create = |name: &str, option: &str| {
        napjudge(
            &[
                "--db",
                "judge.db",
                "game",
                "create",
                name,
                "--variant",
                "standard",
                "--gm",
                "gm@example.org",
                "--option",
                option,
            ],
            &work,
        )
    };
    let ok = create("g", "webdiplomacy");
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let show = napjudge(&["--db", "judge.db", "game", "show", "g"], &work);
    assert!(String::from_utf8_lossy(&show.stdout).contains("Options: webdiplomacy=on\n"));
    let bad = create("h", "no-such-rule");
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(!bad.status.success());
    assert!(
        stderr.contains("unknown option 'no-such-rule': the rule switches are second-moves,"),
        "{stderr}"
    );
    assert!(stderr.contains("webdiplomacy"), "{stderr}");
    let off = create("i", "webdiplomacy=maybe");
    assert!(String::from_utf8_lossy(&off.stderr).contains("'maybe' is not on or off"));
}

/// A mail marked `X-Napjudge-Expect: refused` (an intended mistake) that the judge refuses is no
/// difference; the same mistake unmarked is one, naming the mail and the judge's reason.
#[test]
fn refused_mails_are_differences_unless_marked() {
    let work = temp("refused");
    let game = work.join("wd448105");
    copy_dir(&root().join("fixtures/games/wd448105"), &game);
    let mail = |expect: &str, n: &str| {
        format!(
            "From: france@wd448105.example.org\r\nTo: judge@wd448105.example.org\r\n\
             Date: Sun, 9 Oct 2022 18:30:00 +0000\r\nMessage-ID: <{n}@example.org>\r\n\
             Subject: orders\r\n{expect}Content-Type: text/plain; charset=utf-8\r\n\r\n\
             SIGNON France wd448105 guessed\r\nA PAR - BUR\r\n"
        )
    };
    let marked = mail("X-Napjudge-Expect: refused\r\n", "a");
    std::fs::write(game.join("mail/0000-france-marked.eml"), marked).expect("a mail");
    std::fs::write(game.join("mail/0000-france-unmarked.eml"), mail("", "b")).expect("a mail");
    let f = folder::read(&game).expect("the folder");
    assert!(
        f.mails[0].refused && !f.mails[1].refused,
        "read in name order"
    );
    let r =
        replay::replay_game(&f, &work.join("r.db"), &work.join("out"), &|_| {}).expect("replays");
    assert_eq!(
        r.differences,
        vec![
            "wd448105 Spring 1901 Movement: mail 0000-france-unmarked.eml: expected accepted, \
             got refused: Wrong password for France in game 'wd448105'. Nothing was done."
                .to_string()
        ]
    );
}

/// R5.3: a blockade is decided after the fleets' second phase. In the hand-worked game's Autumn
/// 1801, England's second move cuts France's blockade of Naples while England's of Brest holds:
/// each results mail gives each blockade its final outcome once, on the line as ordered, and not
/// again among the second-phase orders (a "succeeds" then a "fails" for one order misleads).
#[test]
fn a_blockade_is_reported_once_with_its_outcome_after_the_second_phase() {
    let work = temp("blockade");
    let f = folder::read(&root().join("fixtures/games/napoleonic-1800")).expect("the game");
    let r =
        replay::replay_game(&f, &work.join("r.db"), &work.join("out"), &|_| {}).expect("replays");
    assert!(r.differences.is_empty(), "{:?}", r.differences);
    let results = std::fs::read_dir(&r.outbox)
        .expect("the outbox")
        .filter_map(|e| std::fs::read_to_string(e.ok()?.path()).ok())
        .find(|eml| eml.contains("Subject: nap1800: results of Autumn 1801 Movement"))
        .expect("the Autumn 1801 results mail");
    // The text part is plain 7-bit here (quoted-printable would only fold long lines).
    let text = results.replace("=\r\n", "").replace("=\n", "");
    assert!(
        text.contains("F(TYS) B Nap: fails: the blockade was cut or the fleets dislodged"),
        "{text}"
    );
    assert!(text.contains("F(ENG) B Bre: succeeds"), "{text}");
    assert_eq!(text.matches(" B Nap:").count(), 1, "{text}");
    assert_eq!(text.matches(" B Bre:").count(), 1, "{text}");
}

/// Issue 34: a standard game whose players wrote this judge's notation (`F Tri-Alb`,
/// `A(Vie)-Gal`) is exported in MILA's own (`F TRI - ALB`), which `game import` reads back (it
/// refused the export before: "can't read AUSTRIA's order 'F Tri-Alb'"); an export damaged in
/// its second phase is refused naming that phase.
#[test]
fn an_export_is_in_milas_notation_and_imports_again() {
    let work = temp("typed");
    let game = work.join("typed");
    std::fs::create_dir_all(game.join("mail")).expect("the folder");
    let mut toml = String::from(
        "[game]\nname = \"typed\"\nvariant = \"standard\"\noptions = []\n\
         gm = \"gm@typed.example.org\"\nstart = \"2026-01-01T00:00:00Z\"\nmovement = \"48h\"\n\
         retreat = \"24h\"\nwinter = \"24h\"\ngrace = \"0s\"\npictures = false\n",
    );
    for p in [
        "Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey",
    ] {
        let l = p.to_ascii_lowercase();
        toml.push_str(&format!(
            "\n[powers.{p}]\naddress = \"{l}@typed.example.org\"\npassword = \"pw-{l}\"\n"
        ));
    }
    std::fs::write(game.join("game.toml"), toml).expect("game.toml");
    let mail = |n: u32, power: &str, orders: &str| {
        let l = power.to_ascii_lowercase();
        let eml = format!(
            "From: {l}@typed.example.org\r\nTo: judge@napjudge.example.org\r\n\
             Date: Thu, 01 Jan 2026 01:0{n}:00 +0000\r\nMessage-ID: <{n}.typed@example.org>\r\n\
             Subject: orders\r\n\r\nSIGNON {power} typed pw-{l}\r\n{orders}"
        );
        std::fs::write(game.join(format!("mail/000{n}-{l}.eml")), eml).expect("a mail");
    };
    mail(
        1,
        "Austria",
        "F Tri-Alb\r\nA(Vie)-Gal\r\nA bud s a vie-gal\r\n",
    );
    mail(2, "Russia", "F StP/sc-Bot\r\nA(War) H\r\n");
    std::fs::write(game.join("record.txt"), "AFTER Spring 1901 Movement\nEND\n")
        .expect("record.txt");
    let f = folder::read(&game).expect("the folder reads");
    let db = work.join("typed.db");
    let r = replay::replay_game(&f, &db, &work.join("outbox"), &|_| {}).expect("replays");
    assert!(r.differences.is_empty(), "{:?}", r.differences);
    let store = napjudge_judge::Store::open(&db).expect("the store");
    let json = export::export(store.view(), "typed", export::Scope::Full).expect("exports");
    for order in [
        "\"F TRI - ALB\"",
        "\"A VIE - GAL\"",
        "\"A BUD S A VIE - GAL\"",
        "\"F STP/SC - BOT\"",
        "\"A WAR H\"",
    ] {
        assert!(json.contains(order), "{order} in MILA's notation:\n{json}");
    }
    let again = import::import(&json, "typed.json", "typed", &[], None).expect("imports");
    assert!(
        again.files.keys().any(|p| p.starts_with("mail")),
        "its mails"
    );
    // The second phase's position names a space the board doesn't have.
    let (head, tail) = json.split_at(json.find("\"F1901M\"").expect("the second phase"));
    let damaged = format!("{head}{}", tail.replacen("\"A GAL\"", "\"A XYZ\"", 1));
    assert_ne!(damaged, json, "a unit changed");
    let err =
        import::import(&damaged, "typed.json", "typed", &[], None).expect_err("a damaged export");
    assert!(
        err.to_string()
            .contains("phase F1901M: can't read the unit 'A XYZ'"),
        "{err}"
    );
}

/// Issue 31: `game import` was quadratic in the orders of a phase: each of N orders for one unit
/// was void with the list of all the others (4,000 orders: 348 MB). A record of 20,000 such
/// orders imports, and the acknowledgement's errors name a few others each, not all of them
/// (their whole text was 20,000 × 20,000 line numbers).
#[test]
fn a_record_of_twenty_thousand_orders_imports_in_linear_work() {
    const N: usize = 20_000;
    let orders: Vec<String> = (0..N).map(|_| "\"A VIE H\"".to_string()).collect();
    let state = r#"{"units": {"AUSTRIA": ["A VIE", "F TRI", "A BUD"]},
        "centers": {"AUSTRIA": ["VIE", "TRI", "BUD"]}}"#;
    let json = format!(
        r#"{{"id": "big", "phases": [
            {{"name": "S1901M", "state": {state}, "orders": {{"AUSTRIA": [{}]}}}},
            {{"name": "COMPLETED", "state": {state}}}]}}"#,
        orders.join(",")
    );
    let imported = import::import(&json, "big.json", "big", &[], None).expect("imports");
    let mail = imported
        .files
        .iter()
        .find(|(p, _)| p.starts_with("mail"))
        .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
        .expect("Austria's orders mail");
    assert_eq!(
        mail.matches("A VIE H").count(),
        N,
        "every order in the mail"
    );
    let v = napjudge_engine::variant::load_named("standard").expect("the board");
    let austria = v.power_by_name("Austria").expect("Austria");
    let position = napjudge_engine::position::Position::initial(&v);
    let text = vec!["A VIE H"; N].join("\n");
    let checked = napjudge_engine::turn::check(&v, Some(&position), Some(austria), &text);
    let errors: Vec<String> = checked
        .iter()
        .filter_map(|c| c.checked.as_ref().err().map(ToString::to_string))
        .collect();
    assert_eq!(errors.len(), N, "every order for the unit is void (R1.4)");
    let bytes: usize = errors.iter().map(String::len).sum();
    assert!(
        bytes < 300 * N,
        "the errors' text is linear in the orders: {bytes} bytes, first: {}",
        errors[0]
    );
    assert!(errors[0].contains("and 19994 more"), "{}", errors[0]);
}

/// Issue 34: any game, the Napoleonic one too, exported as a game folder (`game export NAME
/// --out DIR`) replays with zero differences: the same phases, the same mails in. The players'
/// passwords are in none of its files (each power has a replacement, used in its mails'
/// SIGNONs). Bad input is refused and writes nothing: a folder already there, an unknown game,
/// a name no game can have, a game with no phase played.
#[test]
fn a_game_exported_as_a_folder_replays_with_zero_differences() {
    let work = temp("dump");
    let fixture = root().join("fixtures/games/napoleonic-1800");
    let run = |args: &[&str]| {
        let out = napjudge(args, &work);
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let fixture_arg = fixture.display().to_string();
    let (ok, first, err) = run(&[
        "replay",
        &fixture_arg,
        "--db",
        "judge.db",
        "--outbox",
        "out1",
    ]);
    assert!(ok, "{first}{err}");
    assert!(first.contains(", 0 differences,"), "{first}");
    let (ok, out, err) = run(&[
        "--db", "judge.db", "game", "export", "nap1800", "--out", "nap",
    ]);
    assert!(ok, "{out}{err}");
    let (ok, again, err) = run(&["replay", "nap", "--outbox", "out2"]);
    assert!(ok, "{again}{err}");
    assert!(again.contains(", 0 differences,"), "{again}");
    // The same phases and mails in as the fixture's replay (the refused ones too: a wrong
    // password leaves a mail tied to no game, and it is exported all the same).
    let counts = |s: &str| s.split(" mails in").next().map(str::to_string);
    assert_eq!(counts(&first), counts(&again), "{first}\n{again}");
    let settings = std::fs::read_to_string(fixture.join("game.toml")).expect("game.toml");
    let real: Vec<&str> = settings
        .lines()
        .filter_map(|l| l.strip_prefix("password = \""))
        .filter_map(|l| l.split('"').next())
        .collect();
    assert!(real.len() >= 5, "the fixture's passwords: {real:?}");
    for (path, bytes) in tree(&work.join("nap")) {
        let text = String::from_utf8_lossy(&bytes);
        for pw in &real {
            assert!(
                !text.contains(pw),
                "{}: has the password '{pw}'",
                path.display()
            );
        }
    }

    let refused = |args: Vec<String>, why: &str| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (ok, out, err) = run(&args);
        assert!(!ok, "{args:?}: {out}");
        assert!(err.contains(why), "{args:?}: {err}");
    };
    let export = |name: &str, dir: &str| {
        vec![
            "--db".to_string(),
            "judge.db".into(),
            "game".into(),
            "export".into(),
            name.into(),
            "--out".into(),
            dir.into(),
        ]
    };
    refused(export("nap1800", "nap"), "nap exists");
    refused(export("nosuch", "x"), "there is no game 'nosuch'");
    refused(export("../up", "y"), "../up");
    let (ok, out, err) = run(&[
        "--db",
        "judge.db",
        "game",
        "create",
        "fresh",
        "--gm",
        "gm@example.org",
    ]);
    assert!(ok, "{out}{err}");
    refused(export("fresh", "z"), "has no phase processed yet");
    for dir in ["x", "y", "z"] {
        assert!(!work.join(dir).exists(), "{dir}: nothing written");
    }
}

/// Issue 34's last shell commands: a game the GM played at the shell alone (`game orders` from
/// a file, `game control`, `game observe` and `--stop`, `game process --now-anyway`, `game end
/// --draw --reason`) is exported with each of them as a `[[shell]]` step (the orders as its
/// input), and its replay plays the same phases with the GM's orders and ends the game as the
/// GM did; the observer gets the results only while it observes. Before, none was recorded: the
/// replay processed each phase at its deadline instead, without France's bid, and never ended.
#[test]
fn a_game_run_at_the_shell_is_exported_and_replayed_with_its_gm_commands() {
    let work = temp("gm-shell");
    let at = |t: &str, args: &[&str]| {
        let mut all = vec!["--db", "judge.db", "--now", t];
        all.extend_from_slice(args);
        let out = napjudge(&all, &work);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    at(
        "2026-07-01T10:00:00Z",
        &["game", "create", "g", "--gm", "gm@example.org"],
    );
    for p in ["Austria", "England", "France", "Prussia", "Russia"] {
        let addr = format!("{}@example.org", p.to_lowercase());
        at(
            "2026-07-01T10:00:00Z",
            &["game", "assign", "g", p, &addr, "--password", "secret-pw"],
        );
    }
    at("2026-07-01T10:00:00Z", &["game", "start", "g"]);
    std::fs::write(work.join("france.txt"), "BID 3 Denmark\n").expect("the GM's orders file");
    at(
        "2026-07-01T10:20:00Z",
        &["game", "orders", "g", "France", "france.txt"],
    );
    let steps: [(&str, &[&str]); 6] = [
        (
            "2026-07-01T10:30:00Z",
            &["game", "control", "g", "Sweden", "Russia"],
        ),
        (
            "2026-07-01T10:40:00Z",
            &["game", "observe", "g", "carol@example.net"],
        ),
        (
            "2026-07-01T11:00:00Z",
            &["game", "process", "g", "--now-anyway"],
        ),
        (
            "2026-07-01T11:10:00Z",
            &["game", "observe", "g", "carol@example.net", "--stop"],
        ),
        (
            "2026-07-01T12:00:00Z",
            &["game", "process", "g", "--now-anyway"],
        ),
        (
            "2026-07-01T13:00:00Z",
            &[
                "game",
                "end",
                "g",
                "--draw",
                "France,Russia",
                "--reason",
                "agreed by all",
            ],
        ),
    ];
    for (t, args) in steps {
        at(t, args);
    }
    let out = napjudge(
        &["--db", "judge.db", "game", "export", "g", "--out", "g"],
        &work,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let toml = std::fs::read_to_string(work.join("g/game.toml")).expect("game.toml");
    for (_, args) in steps {
        let quoted: Vec<String> = args.iter().map(|a| format!("\"{a}\"")).collect();
        let line = format!("args = [{}]", quoted.join(", "));
        assert!(toml.contains(&line), "{line} not in:\n{toml}");
    }
    // The GM's orders as the step's input, not as the file they came from.
    let orders = "args = [\"game\", \"orders\", \"g\", \"France\"]\ninput = \"BID 3 Denmark\\n\"\n";
    assert!(toml.contains(orders), "{orders} not in:\n{toml}");
    let out = napjudge(&["replay", "g", "--outbox", "out"], &work);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("replayed 1 game: 2 phases,"), "{stdout}");
    assert!(stdout.contains(" 0 differences,"), "{stdout}");
    let mails: Vec<String> = tree(&work.join("out/g"))
        .into_iter()
        .map(|(_, bytes)| String::from_utf8_lossy(&bytes).into_owned())
        .collect();
    let to_carol: Vec<&String> = mails
        .iter()
        .filter(|m| m.contains("\r\nTo: carol@example.net\r\n"))
        .collect();
    assert!(
        to_carol
            .iter()
            .any(|m| m.contains("results of Winter 1800 Bids")),
        "carol observed the first results: {to_carol:#?}"
    );
    assert!(
        !to_carol
            .iter()
            .any(|m| m.contains("results of Spring 1801 Movement")),
        "carol stopped before the second: {to_carol:#?}"
    );
    assert!(
        mails
            .iter()
            .any(|m| m.contains("To: france@example.org") && m.contains("agreed by all")),
        "the final mail of the draw"
    );
    assert!(
        mails
            .iter()
            .any(|m| m.contains("results of Winter 1800 Bids") && m.contains("BID 3 Denmark")),
        "France's bid, entered by the GM, in the results"
    );
}

/// Issue 34, part 3: the life game's folder (fixtures/games/life) without the parts a folder
/// couldn't carry before fails its replay: without its `[[shell]]` steps the game stays paused
/// and Prussia's new player can't sign on; with a step the judge refuses, one the replay doesn't
/// run, an input on a step that reads none, or a `game orders` step without one, the step is a
/// difference; a `[settings]` key `game set` doesn't know is refused
/// naming game.toml; without `ticks` the replay processes Autumn 1801 again at France's SET
/// NOWAIT, before Austria's flawed orders (a difference the recorded judge didn't make).
#[test]
fn a_folder_s_shell_steps_settings_and_ticks_are_replayed() {
    let work = temp("life-parts");
    let fixture = root().join("fixtures/games/life");
    let toml = std::fs::read_to_string(fixture.join("game.toml")).expect("game.toml");
    let replayed = |name: &str, text: &str| {
        let game = work.join(name);
        copy_dir(&fixture, &game);
        std::fs::write(game.join("game.toml"), text).expect("game.toml");
        let f = folder::read(&game).expect("the folder");
        replay::replay_game(
            &f,
            &work.join(format!("{name}.db")),
            &work.join(name),
            &|_| {},
        )
        .expect("replays")
        .differences
    };
    let shell = toml
        .find("\n[[shell]]")
        .expect("the fixture has shell steps");
    let without = replayed("noshell", &toml[..shell]);
    assert!(
        without
            .iter()
            .any(|d| d.contains("expected accepted, got refused")),
        "{without:#?}"
    );
    let refused = replayed(
        "badstep",
        &toml.replace(
            r#"args = ["game", "resume", "life"]"#,
            r#"args = ["game", "deadline", "life", "2026-01-01 10:00"]"#,
        ),
    );
    assert!(
        refused
            .iter()
            .any(|d| d
                .contains("shell step `napjudge game deadline life 2026-01-01 10:00`: refused")),
        "{refused:#?}"
    );
    let unknown = replayed(
        "unknownstep",
        &toml.replace(
            r#"args = ["game", "resume", "life"]"#,
            r#"args = ["game", "delete", "life"]"#,
        ),
    );
    assert!(
        unknown.iter().any(|d| d.contains(
            "shell step `napjudge game delete life`: refused: the replay runs `game pause`"
        )),
        "{unknown:#?}"
    );
    // A step's input only where a `game orders` step reads it, and there it is needed.
    let stray = replayed(
        "strayinput",
        &toml.replace(
            r#"args = ["game", "resume", "life"]"#,
            "args = [\"game\", \"resume\", \"life\"]\ninput = \"A(Par) H\\n\"",
        ),
    );
    assert!(
        stray.iter().any(|d| d.contains(
            "shell step `napjudge game resume life`: refused: only a `game orders` step reads an \
             input"
        )),
        "{stray:#?}"
    );
    let no_input = replayed(
        "noinput",
        &toml.replace(
            r#"args = ["game", "resume", "life"]"#,
            r#"args = ["game", "orders", "life", "France"]"#,
        ),
    );
    assert!(
        no_input.iter().any(|d| d.contains(
            "shell step `napjudge game orders life France`: refused: `game orders` needs its \
             orders as the step's input"
        )),
        "{no_input:#?}"
    );
    let ticks = toml
        .lines()
        .find(|l| l.starts_with("ticks = "))
        .expect("the fixture lists its ticks");
    let untimed = replayed("noticks", &toml.replace(&format!("{ticks}\n"), ""));
    assert!(
        untimed
            .iter()
            .any(|d| d.contains("-austria.eml: expected accepted, got refused")),
        "{untimed:#?}"
    );
    let bad = work.join("badkey");
    copy_dir(&fixture, &bad);
    std::fs::write(
        bad.join("game.toml"),
        toml.replace("[settings]\n", "[settings]\nnosuch = \"1\"\n"),
    )
    .expect("game.toml");
    let err = folder::read(&bad)
        .expect_err("an unknown setting")
        .to_string();
    assert!(
        err.contains("game.toml") && err.contains("'nosuch' is not a setting"),
        "{err}"
    );
}
