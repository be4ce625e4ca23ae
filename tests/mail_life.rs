//! Issue 20's scripted game ("Done when"): one five-power Napoleonic game, `life`, by mail from
//! the GM's `game create` to its draw and final mail, every mail delivered through the real SMTP
//! server on loopback. `tests/mail/life/NN-name.*` are the steps, in order:
//! - `.cmd`: shell commands run by the real `napjudge` binary, one a line, at the time of the
//!   first line `at: TIME`;
//! - `.eml`: a raw RFC 5322 mail (a player's, the GM's, the observer's, a stranger's) given to
//!   the judge at the time of its `Date:`;
//! - `.tick`: the judge's tick at the time the file holds.
//!
//! After each step the outbox goes out by `napjudge outbox send` to the server, and
//! `NN-name.out` shows what the step printed, then each message the server received (its
//! recipients, subject, attachments and text; a results mail summarised: `tests/mail/game` shows
//! results in full). Takeover codes and passwords are random: the goldens show them as
//! `{{CODE}}`, `{{PASSWORD}}` and `{{TOKEN}}`, and a step's mail uses the markers for the latest
//! ones. Steps
//! named `-bad-` must leave the games as they were. `NAPJUDGE_BLESS=1 cargo test --release --test
//! suite mail_life::` rewrites the `.out` files: review their diff.
//!
//! The story, step by step (the item in brackets):
//! - 01-03: the GM creates `life` (abandonment after 2 missed phases), seats the five players
//!   and the GM (Russia with a generated password), starts it [start mails with instructions;
//!   issue 32 finding 5: Russia's says its password was generated and mailed, and when, not
//!   "ask your GM"]; 04-04a: Carol asks to observe it, and observes once she sends back the
//!   token mailed to her (issue 31).
//! - 05: the GM moves the deadline by mail [a deadline change noticed to everyone].
//! - 06-07: Prussia's player resigns; his old password is refused [a player who resigns].
//! - 08-11: France, England and Austria bid, each acknowledgement with the IP budget left;
//!   10a: Austria reads its budget from LIST [issue 32: the IP budget read from LIST]; Russia's
//!   player has gone quiet. The tick at the grace's end processes Winter 1800: Russia missed a
//!   phase [the observer gets results].
//! - 12-13: France's press to England and Austria's broadcast in the same phase [the observer
//!   gets the broadcast, not the private press].
//! - 14: England will be away over the deadline: it moves to the absence's end [an absence
//!   that moves a deadline].
//! - 15-19: Spring 1801's orders; the GM pauses the game by mail and resumes it by shell [a
//!   pause noticed to everyone].
//! - 20: the tick processes Spring 1801: Russia missed a second phase and is abandoned [a power
//!   abandoned after missed phases].
//! - 21-22: the GM gives Prussia's open seat to Erin (`game replace`), who orders.
//! - 23-26: the GM mails a takeover code for Russia to Dave, who takes the seat and orders [taken
//!   over by a new player who then orders]; Russia's old player's password is refused.
//! - 27-30: France says SET WAIT; everyone has ordered, yet the tick waits for the deadline
//!   [a SET WAIT honoured]; at the deadline Autumn 1801 is processed.
//! - 31-34: the GM rolls Autumn 1801 back with a reason [a rollback noticed to everyone];
//!   England orders again, France says SET NOWAIT ("Everyone has ordered: the phase will be
//!   processed at ..."); 34a-34c [issue 32, finding 2]: Austria's orders have an error ("the
//!   phase waits for you until the deadline"), the tick after the delay leaves the phase alone,
//!   Austria corrects them and is told when it will be processed; 34d: Prussia will be away on
//!   Sunday, which moves the deadline; the tick processes Autumn 1801 again, and the notice that
//!   Winter's deadline moved for the absence comes after the results [issue 32, finding 10].
//! - 35-39: the five players vote SET DRAW; the last vote ends the game in a draw, with the
//!   final mail to everyone [a draw voted and the final mail]; 40: orders are refused after.
//! - 41-42: game `vic`, set up before the story at RULINGS R7.10's position (England and France
//!   reach their thresholds this Winter), is processed by its GM: the victory ends it [a victory
//!   that ends another game]; France's orders after are refused.

use crate::golden;
use crate::intake;

use chrono::{DateTime, Utc};
use golden::{FivePowers, Folder, Outbox, Secrets, Shell, Smtp};
use intake::scratch;
use napjudge_engine::{turn, variant};
use napjudge_judge::{parse_time, GameState, Handled, Judge, Store};
use std::path::Path;

/// Carol, who observes `life`.
const OBSERVER: &str = "carol@example.net";

/// Every table a step may change, as text: a bad step leaves it as it was.
fn games_state(db: &Path) -> String {
    golden::dump(
        db,
        &[
            "SELECT id, name, state, timezone, grace FROM games ORDER BY id",
            "SELECT id, game, seq, report IS NOT NULL, deadline, superseded FROM phases ORDER BY id",
            "SELECT id, phase, power, text, by FROM orders ORDER BY id",
            "SELECT game, power, address, password_hash, missed FROM players ORDER BY game, power",
            "SELECT id, game, action FROM gm_actions ORDER BY id",
            "SELECT game, power, wait, draw, concede FROM choices ORDER BY game, power",
            "SELECT * FROM seat_changes ORDER BY id",
            "SELECT * FROM takeover_codes ORDER BY id",
            "SELECT * FROM observers ORDER BY address",
            "SELECT * FROM press ORDER BY id",
            "SELECT id, game, power, start, end FROM absences ORDER BY id",
            "SELECT game, kind, powers, reason, phase, at FROM endings ORDER BY game",
        ],
    )
}

/// Game `vic`: the standard five powers, its first phase set aside for RULINGS R7.10's
/// position (fixtures/winter/R7.10.case: England and France reach their thresholds this
/// Winter), written into the file as the store writes a phase: the judge has no command that
/// sets a position, and playing five years by mail to reach one would show nothing more.
fn set_up_victory(j: &mut Judge, db: &Path, now: DateTime<Utc>) {
    FivePowers::new("vic").set_up(j, now);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cases = napjudge_cases::file::read_file(&root.join("fixtures/winter/R7.10.case"))
        .expect("the R7.10 cases");
    let case = cases
        .iter()
        .find(|c| c.id == "R7.10-win-with-minors")
        .expect("the case of France and England winning");
    let v = variant::load_named("napoleonic").expect("the board");
    let position = napjudge_cases::run::initial_position(case, &v).expect("its position");
    let owe: Vec<String> = turn::owing(&v, &position)
        .iter()
        .map(|&p| v.power(p).name.clone())
        .collect();
    let game = j.view().game("vic").expect("read").expect("vic");
    let time = |t: DateTime<Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let conn = rusqlite::Connection::open(db).expect("db");
    conn.execute(
        "UPDATE phases SET superseded = 1 WHERE game = ?1",
        [game.id],
    )
    .expect("the first phase set aside");
    conn.execute(
        "INSERT INTO phases (game, seq, position, owe, deadline, started)
         VALUES (?1, 2, ?2, ?3, ?4, ?5)",
        rusqlite::params![
            game.id,
            serde_json::to_string(&position).expect("the position as JSON"),
            serde_json::to_string(&owe).expect("the powers as JSON"),
            time(now + chrono::Duration::days(30)),
            time(now)
        ],
    )
    .expect("the phase");
}

/// A results mail's text, summarised: its first line, the powers late or without orders, and
/// the line saying it replaces void results (`tests/mail/game` shows results in full).
fn results_summary(subject: &str, body: &str) -> Option<String> {
    if !subject.contains("results of") {
        return None;
    }
    let keep: Vec<&str> = body
        .lines()
        .enumerate()
        .filter(|(i, l)| {
            *i == 0
                || l.starts_with("Late")
                || l.starts_with("These results replace")
                || l.contains("no orders")
        })
        .map(|(_, l)| l)
        .collect();
    Some(format!(
        "{}\n(the results: tests/mail/game shows their text in full)\n",
        keep.join("\n")
    ))
}

/// The time of a step: a `.tick`'s content, a `.cmd`'s `at:` line, an `.eml`'s `Date:`.
fn step_time(ext: &str, text: &str) -> DateTime<Utc> {
    let stamp = match ext {
        "tick" => text.trim().to_string(),
        "cmd" => text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("at: "))
            .expect("a command step begins with `at: TIME`")
            .to_string(),
        _ => {
            let date = text
                .lines()
                .find_map(|l| l.strip_prefix("Date: "))
                .expect("a mail step has a Date:");
            return DateTime::parse_from_rfc2822(date.trim())
                .expect("an RFC 5322 date")
                .with_timezone(&Utc);
        }
    };
    parse_time(&stamp).expect("the step's time")
}

/// Issue 20, "Done when": the scripted game, told above, golden.
#[test]
fn a_game_from_its_first_mail_to_its_last() {
    let dir = scratch("life");
    let db = dir.join("judge.db");
    let mut j = Judge::new(Store::open(&db).expect("db"));
    let shell = Shell::new(&db);
    let mut smtp = Smtp::start();
    let mut folder = Folder::new("life");
    let first = parse_time("2026-11-30T08:00:00Z").expect("time");
    set_up_victory(&mut j, &db, first);
    // The victory game's own start mails are not the story's.
    let set_up = smtp.deliver(&shell, first).len();
    let mut outbox = Outbox::after(j.view());
    let mut secrets = Secrets::default();
    let steps = folder.steps(&["cmd", "eml", "tick"]);
    assert!(steps.len() >= 40, "the scenario's steps are there");
    let mut delivered = set_up;
    let mut last = first;
    let mut observed = Vec::new();
    // Every password and code the story used, fixed or drawn by the judge.
    let mut used: Vec<String> = Vec::new();
    for step in &steps {
        let name = golden::name(step);
        let ext = golden::ext(step);
        let text = secrets.fill(&std::fs::read_to_string(step).expect("step"));
        let now = step_time(&ext, &text);
        assert!(now >= last, "{name}: the steps go forward in time");
        last = now;
        let before = games_state(&db);
        let printed = match ext.as_str() {
            "eml" => {
                let handled = golden::receive(&mut j, text.as_bytes(), now);
                assert_eq!(handled, Handled::Answered, "{name}");
                String::new()
            }
            "tick" => {
                let (answered, report) = golden::tick(&mut j, now);
                assert!(report.failed.is_empty(), "{name}: {report:?}");
                let mut out = format!("tick at {}: {answered} mails answered\n", now.to_rfc3339());
                for l in &report.done {
                    out.push_str(&format!("{l}\n"));
                }
                // Where the games stand after it (`game list`: state, phase, deadline).
                for l in shell.run(now, &["game", "list"], b"").stdout.lines() {
                    out.push_str(&format!("now: {l}\n"));
                }
                out
            }
            _ => text
                .lines()
                .skip(1)
                .filter(|l| !l.trim().is_empty())
                .map(|l| shell.transcript(now, l))
                .collect(),
        };
        if name.contains("-bad-") {
            assert_eq!(before, games_state(&db), "{name} changed a game");
        }
        let queued = outbox.new_mails(j.view()).len();
        // A step that queued nothing has nothing to send (and the binary's start is saved).
        let received = match queued {
            0 => Vec::new(),
            _ => smtp.deliver(&shell, now),
        };
        assert_eq!(
            received.len(),
            queued,
            "{name}: every mail queued was delivered"
        );
        delivered += received.len();
        for m in received
            .iter()
            .filter(|m| m.to.iter().any(|t| t == OBSERVER))
        {
            let (subject, _, body) = golden::read(m);
            observed.push(format!("{subject}\n{body}"));
        }
        let got = format!("{printed}{}", Smtp::shown(&received, results_summary));
        secrets.learn(&got);
        for marker in ["{{CODE}}", "{{PASSWORD}}"] {
            let s = secrets.fill(marker);
            if s != marker && !used.contains(&s) {
                used.push(s);
            }
        }
        folder.check(&name, &secrets.hide(&got));
    }
    folder.finish();
    assert_eq!(
        delivered,
        golden::queued(j.view()).len(),
        "the whole outbox went through the server"
    );

    // The observer got the results, the notices and the broadcast, not the private press of
    // the same phase.
    let got = |what: &str| observed.iter().filter(|m| m.contains(what)).count();
    assert_eq!(
        got("life: results of"),
        4,
        "Winter 1800, Spring and Autumn 1801, Autumn 1801 again"
    );
    assert_eq!(got("Vienna wishes peace to all."), 1, "the broadcast");
    assert_eq!(
        got("Shall we share the Channel"),
        0,
        "France's press to England"
    );
    assert_eq!(got("life: the game has ended"), 1, "the final mail");

    // Issue 34: the game exported as a game folder has every mail the judge received for it
    // (those refused for a wrong password too), and no password or code the players used.
    used.extend(
        [
            "pw-france",
            "pw-england",
            "pw-austria",
            "pw-prussia",
            "pw-russia",
            "gm-pw",
            "pw-erin-pr",
            "pw-dave-ru",
        ]
        .map(String::from),
    );
    let dumped = napjudge_replay::dump::folder(j.view(), "life").expect("life exports");
    let mails = dumped
        .files
        .keys()
        .filter(|p| p.starts_with("mail"))
        .count();
    let life_mails = steps
        .iter()
        .filter(|s| golden::ext(s) == "eml")
        .filter(|s| {
            std::fs::read_to_string(s).is_ok_and(|t| t.split_whitespace().any(|w| w == "life"))
        })
        .count();
    assert_eq!(mails, life_mails, "every mail for life, in the export");
    for (path, bytes) in &dumped.files {
        let text = String::from_utf8_lossy(bytes);
        for secret in &used {
            assert!(
                !text.contains(secret.as_str()),
                "{}: has the secret '{secret}'",
                path.display()
            );
        }
    }

    // Issue 34, part 3: the export is the committed fixtures/games/life (NAPJUDGE_BLESS=1
    // rewrites it), and it replays with zero differences: the GM's shell steps (`game resume`,
    // `game replace`) run at their times, the codes and passwords the judge drew are drawn again
    // as the export wrote them (a TAKEOVER accepted), the rollback's phase set aside, the
    // abandonment after 2 missed phases as game.toml's [settings] says.
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/games/life");
    if std::env::var_os("NAPJUDGE_BLESS").is_some() {
        let _ = std::fs::remove_dir_all(&fixture);
        napjudge_replay::import::write(&dumped, &fixture, false).expect("the fixture written");
    }
    for (path, bytes) in &dumped.files {
        let committed = std::fs::read(fixture.join(path)).unwrap_or_default();
        assert!(
            committed == *bytes,
            "fixtures/games/life/{} is not the export (NAPJUDGE_BLESS=1 rewrites it)",
            path.display()
        );
    }
    let exported = dir.join("exported");
    napjudge_replay::import::write(&dumped, &exported, false).expect("the export written");
    let read = napjudge_replay::folder::read(&exported).expect("the export reads");
    let replayed = napjudge_replay::replay_game(
        &read,
        &dir.join("replay.db"),
        &dir.join("replay-out"),
        &|_| {},
    )
    .expect("the export replays");
    assert_eq!(
        replayed.differences,
        Vec::<String>::new(),
        "life's export replayed"
    );
    assert_eq!(
        replayed.phases, 4,
        "Winter 1800, Spring and Autumn 1801, Autumn 1801 again"
    );

    // What the goldens show, checked on the store too.
    let view = j.view();
    for g in ["life", "vic"] {
        let game = view.game(g).expect("read").expect("the game");
        assert_eq!(game.state, GameState::Finished, "{g} ended");
    }
}
