//! Issue 20, part 3's golden tests: waiting, absence and endings, by mail on a real SQLite file,
//! with the GM's shell commands run by the real `napjudge` binary on the same file.
//! `tests/mail/endings/NN-name.eml` are raw mails fed to `mail::receive` at their step's time;
//! every step (a mail, a tick, a shell command, a setup through the service or the store)
//! writes `NN-name.out`: what it printed and the exact mails it queued (a results mail's body is
//! left out: `tests/mail/game` shows those). Steps named `*-bad-*` must leave the games as they
//! were. `NAPJUDGE_BLESS=1 cargo test --release --test suite mail_endings::` rewrites the `.out` files: review
//! their diff.
//!
//! The scenarios, each on a game of its own: `w` (SET WAIT honoured, then SET NOWAIT), `dl` (a
//! processing delay, made by `game create --delay`), `ab` (an absence that moves a deadline, and
//! every refusal), `dr` (a draw voted, held by one NODRAW, ended by the last vote; orders and the
//! GM's commands refused after), `cc` (a concession), `en` and `e2` (the GM's END and `game
//! end`), `fo` (`game delete` of a forming game; refused for a running one). A victory ending a
//! game is in `tests/mail_life.rs` (game `vic`, steps 42-43).

use crate::golden;
use crate::intake;
use chrono::{DateTime, Utc};
use golden::{FivePowers, Folder, Outbox, Shell};
use intake::{config, scratch};
use napjudge_judge::{
    parse_time, tick, Author, GameState, Handled, Judge, Mail, MailKind, Period, Setting, Store,
    TickEvent,
};
use std::path::Path;

const POWERS: [&str; 5] = ["France", "England", "Austria", "Prussia", "Russia"];

/// Winter 1800's bids of the golden game, one per power.
const BIDS: [(&str, &str); 5] = [
    ("France", "BID 6 Denmark"),
    ("England", "BID 4 Portugal"),
    ("Austria", "bid 3 bavaria"),
    ("Prussia", "BID 4 Wurzburg"),
    ("Russia", "BID 3 Sweden"),
];

fn at(hours: i64) -> DateTime<Utc> {
    parse_time("2026-07-01T10:00:00Z").expect("time") + chrono::Duration::hours(hours)
}

fn stamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339()
}

/// The standard five powers in game `name`, pictures on, deadlines shown in `zone`, started at
/// `at(0)` unless `start` is false.
fn new_game(j: &mut Judge, name: &str, zone: &str, start: bool) {
    FivePowers {
        zone,
        start,
        ..FivePowers::new(name)
    }
    .set_up(j, at(0));
}

/// Every table a step may change, as text: a bad step leaves it as it was.
fn games_state(db: &Path) -> String {
    golden::dump(
        db,
        &[
            "SELECT id, name, state, grace, pictures FROM games ORDER BY id",
            "SELECT id, game, seq, report IS NOT NULL, deadline, superseded FROM phases ORDER BY id",
            "SELECT id, phase, power, text, by FROM orders ORDER BY id",
            "SELECT id, game, action FROM gm_actions ORDER BY id",
            "SELECT game, power, wait, draw, concede FROM choices ORDER BY game, power",
            "SELECT id, game, power, start, end FROM absences ORDER BY id",
            "SELECT game, kind, powers, reason, phase, at FROM endings ORDER BY game",
            "SELECT game, delay, absence_max_days, absences_per_year FROM game_timing ORDER BY game",
        ],
    )
}

/// The mails a step queued: a broadcast (the same subject, kind and body to several
/// addresses, one after another) once, with its addresses; a results mail without its body.
fn show(mails: &[Mail]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while let Some(m) = mails.get(i) {
        let same = mails[i..]
            .iter()
            .take_while(|n| (n.kind, &n.subject, &n.body) == (m.kind, &m.subject, &m.body))
            .count();
        let to: Vec<&str> = mails[i..i + same].iter().map(|n| n.to.as_str()).collect();
        let body = match m.kind {
            MailKind::Results => "(the results of the phase: tests/mail/game shows their text)\n",
            _ => m.body.as_str(),
        };
        out.push_str(&format!(
            "To: {}\nSubject: {}\nKind: {}{}\n\n{body}=====\n",
            to.join(", "),
            m.subject,
            m.kind,
            if m.picture.is_some() {
                "\nPicture: the board (PNG) attached"
            } else {
                ""
            }
        ));
        i += same;
    }
    out
}

/// What a step does.
enum Step {
    /// The mail `NN-name.eml`, received.
    Mail,
    /// The judge's tick.
    Tick,
    /// `napjudge` commands on the database, each a list of arguments.
    Shell(&'static [&'static [&'static str]]),
    /// A setup through the service or the store, printing what it did.
    Setup(fn(&mut Judge, &Path, DateTime<Utc>) -> String),
}

/// Every power but France bids in game `w` as its player.
fn w_bids(j: &mut Judge, _: &Path, now: DateTime<Utc>) -> String {
    bids(j, "w", &BIDS[1..], now)
}

/// Every power bids in game `dl` as its player.
fn dl_bids(j: &mut Judge, _: &Path, now: DateTime<Utc>) -> String {
    bids(j, "dl", &BIDS, now)
}

fn bids(j: &mut Judge, game: &str, which: &[(&str, &str)], now: DateTime<Utc>) -> String {
    let mut out = String::new();
    for (power, bid) in which {
        let taken = j
            .orders(game, power, bid, Author::Player, now)
            .expect("orders");
        out.push_str(&format!(
            "{game}: {power} ordered {} (as its player)\n",
            taken.ack.set().join("; ")
        ));
    }
    out
}

const CREATE_DL: &[&str] = &[
    "game",
    "create",
    "dl",
    "--gm",
    "gm@example.org",
    "--delay",
    "2h",
    "--absence-max-days",
    "10",
];

/// The steps, in order, each with its hour after the start.
fn steps() -> Vec<(&'static str, i64, Step)> {
    vec![
        ("01-w-france-set-wait", 1, Step::Mail),
        ("02-w-setup-bids", 2, Step::Setup(w_bids)),
        ("03-w-tick-waits", 3, Step::Tick),
        ("04-w-france-set-nowait", 4, Step::Mail),
        ("05-w-tick-processes", 5, Step::Tick),
        (
            "06-dl-create-with-delay",
            6,
            Step::Shell(&[
                CREATE_DL,
                &[
                    "game",
                    "create",
                    "dl2",
                    "--gm",
                    "gm@example.org",
                    "--absences-per-year",
                    "53",
                ],
                &[
                    "game",
                    "assign",
                    "dl",
                    "France",
                    "france@example.org",
                    "--password",
                    "pw-france",
                ],
                &[
                    "game",
                    "assign",
                    "dl",
                    "England",
                    "england@example.org",
                    "--password",
                    "pw-england",
                ],
                &[
                    "game",
                    "assign",
                    "dl",
                    "Austria",
                    "austria@example.org",
                    "--password",
                    "pw-austria",
                ],
                &[
                    "game",
                    "assign",
                    "dl",
                    "Prussia",
                    "prussia@example.org",
                    "--password",
                    "pw-prussia",
                ],
                &[
                    "game",
                    "assign",
                    "dl",
                    "Russia",
                    "russia@example.org",
                    "--password",
                    "pw-russia",
                ],
                &["game", "start", "dl"],
            ]),
        ),
        ("07-dl-setup-bids", 7, Step::Setup(dl_bids)),
        ("08-dl-tick-in-the-delay", 8, Step::Tick),
        ("09-dl-tick-after-the-delay", 9, Step::Tick),
        ("10-ab-france-absence", 10, Step::Mail),
        ("11-ab-bad-absences", 11, Step::Mail),
        ("12-ab-england-too-many", 12, Step::Mail),
        ("13-ab-england-list-and-clear", 13, Step::Mail),
        ("14-ab-gm-list", 14, Step::Mail),
        ("15-dr-france-draw", 15, Step::Mail),
        ("16-dr-england-draw", 16, Step::Mail),
        ("17-dr-austria-draw", 17, Step::Mail),
        ("18-dr-prussia-draw", 18, Step::Mail),
        ("19-dr-russia-nodraw", 19, Step::Mail),
        ("20-dr-russia-draw", 20, Step::Mail),
        ("21-dr-bad-orders-after-end", 21, Step::Mail),
        ("22-dr-bad-gm-after-end", 22, Step::Mail),
        ("23-cc-bad-concede", 23, Step::Mail),
        ("24-cc-england-concede", 24, Step::Mail),
        ("25-cc-austria-concede", 25, Step::Mail),
        ("26-cc-prussia-concede", 26, Step::Mail),
        ("27-cc-russia-concede", 27, Step::Mail),
        ("31-en-bad-gm-end", 31, Step::Mail),
        ("32-en-bad-player-end", 32, Step::Mail),
        ("33-en-gm-end", 33, Step::Mail),
        (
            "34-e2-game-end",
            34,
            Step::Shell(&[
                &[
                    "game",
                    "end",
                    "e2",
                    "--winner",
                    "France",
                    "--draw",
                    "England,Austria",
                ],
                &["game", "end", "e2"],
                &["game", "end", "e2", "--reason", "the players have left"],
                &["game", "end", "e2", "--reason", "again"],
                &["game", "show", "e2"],
            ]),
        ),
        (
            "35-fo-game-delete",
            35,
            Step::Shell(&[
                &["game", "delete", "w"],
                &["game", "delete", "nosuch"],
                &["game", "delete", "fo"],
                &["game", "show", "fo"],
            ]),
        ),
        ("36-ab-tick-past-the-old-grace", 73, Step::Tick),
    ]
}

#[test]
fn waiting_absence_and_endings_by_mail() {
    let dir = scratch("mail-endings");
    let db = dir.join("judge.db");
    let mut j = Judge::new(Store::open(&db).expect("db"));
    for g in ["w", "dr", "cc", "en", "e2"] {
        new_game(&mut j, g, "UTC", true);
    }
    new_game(&mut j, "ab", "Europe/Paris", true);
    new_game(&mut j, "fo", "UTC", false);
    let shell = Shell::new(&db);
    let mut folder = Folder::new("endings");
    let mut outbox = Outbox::after(j.view());
    let mut names = Vec::new();
    for (name, hours, step) in steps() {
        names.push(name);
        let now = at(hours);
        let before = games_state(&db);
        let printed = match step {
            Step::Mail => {
                let raw =
                    std::fs::read(folder.dir().join(format!("{name}.eml"))).expect("the mail");
                let handled = golden::receive(&mut j, &raw, now);
                assert!(handled == Handled::Answered, "{name}: {handled:?}");
                String::new()
            }
            Step::Tick => {
                let (answered, report) = golden::tick(&mut j, now);
                let mut out = format!("tick at {}: {answered} mails answered\n", stamp(now));
                let done = report.done.iter().map(ToString::to_string);
                for l in done.chain(report.failed) {
                    out.push_str(&format!("{l}\n"));
                }
                out
            }
            Step::Shell(commands) => commands
                .iter()
                .map(|c| shell.run(now, c, b"").transcript(&golden::line(c)))
                .collect(),
            Step::Setup(f) => f(&mut j, &db, now),
        };
        if name.contains("-bad-") {
            assert_eq!(before, games_state(&db), "{name} changed a game");
        }
        folder.check(
            name,
            &format!("{printed}{}", show(&outbox.new_mails(j.view()))),
        );
    }
    // Every mail of the folder is a step: none is left unplayed.
    for f in folder.steps(&["eml"]) {
        let stem = f
            .file_stem()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        assert!(names.contains(&stem.as_str()), "{stem} is no step");
    }
    folder.finish();

    // What the goldens show, checked on the store too.
    let view = j.view();
    let state = |g: &str| view.game(g).expect("read").map(|g| g.state);
    for g in ["dr", "cc", "en", "e2"] {
        assert_eq!(state(g), Some(GameState::Finished), "{g} ended");
    }
    assert_eq!(state("w"), Some(GameState::Running));
    assert_eq!(state("fo"), None, "fo is deleted");
    // The absence moved ab's deadline past the tick at the old grace's end: still Winter 1800.
    let ab = view.game("ab").expect("read").expect("ab");
    let phase = view.current_phase(ab.id).expect("read").expect("a phase");
    assert_eq!(phase.seq, 1);
    assert_eq!(
        phase.deadline,
        Some(parse_time("2026-07-05T22:00:00Z").expect("t"))
    );
}

/// The game's `wait` is every power's default: a phase everyone has ordered in goes early only
/// once every power owing orders has said SET NOWAIT.
#[test]
fn a_waiting_game_goes_early_only_when_every_power_says_nowait() {
    let dir = scratch("endings-wait-default");
    let mut j = Judge::new(Store::open(&dir.join("judge.db")).expect("db"));
    let cfg = config();
    FivePowers {
        wait: true,
        ..FivePowers::new("g")
    }
    .set_up(&mut j, at(0));
    bids(&mut j, "g", &BIDS, at(1));
    let processed = |j: &mut Judge, h: i64| {
        let (_, report) = tick(j, &cfg, at(h)).expect("tick");
        report
            .done
            .iter()
            .any(|e| matches!(e, TickEvent::Processed { .. }))
    };
    assert!(!processed(&mut j, 2), "the game waits");
    for p in &POWERS[..4] {
        j.set_wait("g", p, false).expect("NOWAIT");
    }
    assert!(
        !processed(&mut j, 3),
        "Russia still waits, by the game's default"
    );
    j.set_wait("g", "Russia", false).expect("NOWAIT");
    assert!(
        processed(&mut j, 4),
        "nobody waits: processed before the deadline"
    );
}

/// njudge's delay counts from the latest change of orders: a player who changes their mind
/// inside it starts it again.
#[test]
fn the_delay_starts_again_with_each_change_of_orders() {
    let dir = scratch("endings-delay");
    let mut j = Judge::new(Store::open(&dir.join("judge.db")).expect("db"));
    let cfg = config();
    new_game(&mut j, "g", "UTC", true);
    j.set("g", &Setting::Delay(Period::hours(2)), at(0))
        .expect("the delay");
    bids(&mut j, "g", &BIDS, at(1));
    bids(&mut j, "g", &[("France", "BID 5 Denmark")], at(2));
    let processed = |j: &mut Judge, h: i64| {
        let (_, report) = tick(j, &cfg, at(h)).expect("tick");
        report
            .done
            .iter()
            .any(|e| matches!(e, TickEvent::Processed { .. }))
    };
    assert!(
        !processed(&mut j, 3),
        "an hour after France changed its bid"
    );
    assert!(processed(&mut j, 4), "two hours after the last change");
}

/// The GM's rollback is the one way back from an ending: the game runs again, its ending and
/// its votes are forgotten, and it takes orders.
#[test]
fn a_rollback_undoes_an_ending() {
    let dir = scratch("endings-rollback");
    let mut j = Judge::new(Store::open(&dir.join("judge.db")).expect("db"));
    new_game(&mut j, "g", "UTC", true);
    bids(&mut j, "g", &BIDS, at(1));
    j.process("g", false, at(2)).expect("Winter 1800 processed");
    j.vote("g", "France", &napjudge_judge::Vote::Draw(true), at(3))
        .expect("a vote");
    let how = napjudge_judge::GmEnd {
        reason: "test".into(),
        ..Default::default()
    };
    j.end("g", &how, at(4)).expect("ended");
    let refused = j.orders("g", "France", "A(Par)-Bur", Author::Player, at(5));
    assert!(
        matches!(refused, Err(napjudge_judge::GameError::Ended { .. })),
        "{refused:?}"
    );
    j.rollback("g", "Winter 1800 Bids", None, at(6))
        .expect("rolled back");
    let game = j.view().game("g").expect("read").expect("g");
    assert_eq!(game.state, GameState::Running);
    assert_eq!(j.ending(&game).expect("read"), None);
    assert!(!j.view().choice(game.id, "France").expect("read").draw);
    j.orders("g", "France", "BID 6 Denmark", Author::Player, at(7))
        .expect("orders again");
}
