//! Issue 19, part 1: bounded work per mail and intake that can't jam. Each test names the
//! finding it covers; all run on a real SQLite file, most through the real `napjudge` binary.
//!
//! The fuzz-style test pipes mutated mails through `napjudge mail receive` and `mail poll`
//! under a memory limit (`prlimit --as`): 2,000 mails by default (about 30 s in debug);
//! `NAPJUDGE_FUZZ_MAILS=5000 cargo test --release --test suite limits::fuzz` runs more.

use crate::intake;
use chrono::{DateTime, Utc};
use intake::{config, JUDGE};
use napjudge_judge::{parse_time, receive, Handled, Judge, MailKind, NewGame, PasswordCost, Store};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn scratch(name: &str) -> PathBuf {
    let dir = intake::scratch(name);
    std::fs::write(
        dir.join("napjudge.toml"),
        format!("[judge]\naddress = \"{JUDGE}\"\n"),
    )
    .expect("the config");
    dir
}

fn at(hours: i64) -> DateTime<Utc> {
    parse_time("2026-07-01T10:00:00Z").expect("time") + chrono::Duration::hours(hours)
}

fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// A running Napoleonic game `name` (Winter 1800 bids due), its GM `gm-NAME@example.org`,
/// passwords `pw-france` ... (hashed light: these tests sign on thousands of times).
fn new_game(db: &Path, name: &str) {
    let mut j = Judge::new(Store::open(db).expect("db")).with_password_cost(PasswordCost::Light);
    j.create(
        &NewGame {
            gm: format!("gm-{name}@example.org"),
            pictures: false,
            ..crate::common::new_game(name, "napoleonic", crate::golden::two_day_periods())
        },
        at(0),
    )
    .expect("create");
    for p in ["France", "England", "Austria", "Prussia", "Russia"] {
        let lower = p.to_lowercase();
        j.assign(
            name,
            p,
            &format!("{lower}@example.org"),
            Some(&format!("pw-{lower}")),
            at(0),
        )
        .expect("assign");
    }
    j.assign(
        name,
        "GM",
        &format!("gm-{name}@example.org"),
        Some("gm-pw"),
        at(0),
    )
    .expect("the GM's password");
    j.start(name, at(0)).expect("start");
}

/// A mail from France with `body`.
fn mail_from_france(id: &str, body: &str) -> String {
    format!(
        "From: France <france@example.org>\r\nTo: {JUDGE}\r\nSubject: test\r\n\
         Date: Wed, 1 Jul 2026 11:00:00 +0000\r\nMessage-ID: <{id}@example.org>\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\n{body}"
    )
}

fn napjudge(db: &Path, now: DateTime<Utc>, args: &[&str], stdin: &[u8]) -> Output {
    crate::golden::piped(
        Command::new(env!("CARGO_BIN_EXE_napjudge"))
            .arg("--db")
            .arg(db)
            .arg("--now")
            .arg(rfc3339(now))
            .args(args)
            .env("NAPJUDGE_FROM", JUDGE)
            .env("NAPJUDGE_CONFIG", db.with_file_name("napjudge.toml")),
        stdin,
    )
}

/// The replies queued to `to`, bodies.
fn replies_to(db: &Path, to: &str) -> Vec<String> {
    crate::golden::queued_in(db)
        .into_iter()
        .filter(|m| m.to == to && m.kind == MailKind::Reply)
        .map(|m| m.body)
        .collect()
}

fn count(db: &Path, sql: &str) -> i64 {
    let conn = rusqlite::Connection::open(db).expect("db");
    conn.query_row(sql, [], |r| r.get(0)).expect("a count")
}

/// Finding 1 (amplification): each HELP line used to append the whole guide (6 kB in gave a
/// 4.3 MB reply). HELP is answered once per mail, the commands after the cap are summarised,
/// and the reply stays under 50 kB.
#[test]
fn a_help_flood_gets_one_guide_and_a_reply_under_50_kb() {
    let dir = scratch("help-flood");
    let db = dir.join("judge.db");
    let mut j = Judge::new(Store::open(&db).expect("db"));
    let raw = mail_from_france("help-flood", &"HELP\r\n".repeat(1500));
    let h = receive(&mut j, &config(), raw.as_bytes(), at(1)).expect("stored");
    assert_eq!(h, Handled::Answered);
    let replies = replies_to(&db, "france@example.org");
    assert_eq!(replies.len(), 1);
    let reply = &replies[0];
    assert!(reply.len() < 50_000, "a reply of {} bytes", reply.len());
    assert!(reply.contains("HELP is answered once per mail"), "{reply}");
    assert!(
        reply.contains("1400 more commands not answered: send fewer at a time"),
        "{reply}"
    );
}

/// Finding 1 for a signed-on player: 10,000 LIST lines are refused unread (the line cap), 1,000
/// are cut at the commands' cap with only three reports run, and the reply stays small.
#[test]
fn a_list_flood_runs_three_reports_and_the_10000_line_mail_is_refused_unread() {
    let dir = scratch("list-flood");
    let db = dir.join("judge.db");
    new_game(&db, "g");
    let mut j = Judge::new(Store::open(&db).expect("db"));
    let long = mail_from_france(
        "list-10000",
        &format!("SIGNON France g pw-france\r\n{}", "LIST\r\n".repeat(10_000)),
    );
    receive(&mut j, &config(), long.as_bytes(), at(1)).expect("stored");
    let some = mail_from_france(
        "list-1000",
        &format!("SIGNON France g pw-france\r\n{}", "LIST\r\n".repeat(1000)),
    );
    receive(&mut j, &config(), some.as_bytes(), at(1)).expect("stored");
    let replies = replies_to(&db, "france@example.org");
    assert_eq!(replies.len(), 2);
    assert!(
        replies[0].contains("Your mail has 10001 lines of text; the judge reads at most 2000"),
        "{}",
        replies[0]
    );
    let r = &replies[1];
    assert!(r.len() < 50_000, "a reply of {} bytes", r.len());
    assert_eq!(r.matches("Game g (napoleonic)").count(), 3, "{r}");
    assert!(r.contains("answered 3 times per mail in all"), "{r}");
    assert!(r.contains("901 more commands not answered"), "{r}");
}

/// Finding 1: 500 PRESS commands in one mail used to queue 500 press mails to each power. The
/// commands' cap runs 99 of them (after the SIGNON), and a power sends at most 50 press in a
/// phase, counted in the store across mails.
#[test]
fn a_press_flood_is_capped_per_mail_and_per_phase() {
    let dir = scratch("press-flood");
    let db = dir.join("judge.db");
    new_game(&db, "g");
    let mut j = Judge::new(Store::open(&db).expect("db"));
    let press = "PRESS TO England\r\nhello\r\nENDPRESS\r\n".repeat(500);
    let raw = mail_from_france(
        "press-flood",
        &format!("SIGNON France g pw-france\r\n{press}"),
    );
    receive(&mut j, &config(), raw.as_bytes(), at(1)).expect("stored");
    let again = mail_from_france(
        "press-again",
        "SIGNON France g pw-france\r\nPRESS TO England\r\nhi\r\nENDPRESS\r\n",
    );
    receive(&mut j, &config(), again.as_bytes(), at(2)).expect("stored");
    assert_eq!(count(&db, "SELECT COUNT(*) FROM press"), 50);
    assert_eq!(
        count(&db, "SELECT COUNT(*) FROM outbox WHERE kind = 'press'"),
        50
    );
    let replies = replies_to(&db, "france@example.org");
    assert!(
        replies[0].contains("401 more commands not answered"),
        "{}",
        replies[0]
    );
    assert!(
        replies[1].contains("France has sent 50 press messages in this phase"),
        "{}",
        replies[1]
    );
}

/// A 3 MB message: the header part of a mail.
fn big_mail(id: &str, bytes: usize) -> Vec<u8> {
    let mut raw = mail_from_france(id, "SIGNON France g pw-france\r\n").into_bytes();
    let line = b"0123456789012345678901234567890123456789012345678901234567890123456789\r\n";
    while raw.len() < bytes {
        raw.extend_from_slice(line);
    }
    raw
}

/// Finding 9: a mail over the size limit was read and stored whole (200 MB: 612 MB of memory).
/// It is stored as its headers, its digest (of the whole) and its size, answered once, and
/// `mail receive` exits 0 (a permanent answer, never 75).
#[test]
fn an_oversized_mail_is_stored_as_headers_and_digest_and_answered_once() {
    let dir = scratch("oversized");
    let db = dir.join("judge.db");
    new_game(&db, "g");
    let raw = big_mail("big", 3 << 20);
    let o = napjudge(&db, at(1), &["mail", "receive"], &raw);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let conn = rusqlite::Connection::open(&db).expect("db");
    let (kept, size, digest): (Vec<u8>, i64, String) = conn
        .query_row("SELECT raw, size, digest FROM inbox", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .expect("the stored message");
    assert!(kept.len() < 1024, "{} bytes stored", kept.len());
    assert!(kept.starts_with(b"From: France"));
    assert_eq!(size, raw.len() as i64);
    let whole: String = Sha256::digest(&raw)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(digest, whole);
    let replies = replies_to(&db, "france@example.org");
    assert_eq!(replies.len(), 1);
    assert!(
        replies[0].contains(&format!(
            "Your mail of {} bytes is over the judge's limit of 1048576 bytes; nothing in it was read",
            raw.len()
        )),
        "{}",
        replies[0]
    );
}

/// Finding 8: one file in `new/` that can't be read, or is too big to store whole, blocked
/// Maildir polling forever. Both are moved to `failed/` (the big one's sender answered), with a
/// line on standard error, and the next mail is answered.
#[test]
fn maildir_sets_aside_an_unreadable_and_a_too_big_file_and_goes_on() {
    let dir = scratch("maildir");
    let db = dir.join("judge.db");
    new_game(&db, "g");
    let maildir = dir.join("Maildir");
    let new = maildir.join("new");
    std::fs::create_dir_all(&new).expect("new/");
    // A file whose reading fails (EIO), even for root, who reads a mode-000 file.
    std::os::unix::fs::symlink("/proc/self/mem", new.join("1.unreadable")).expect("symlink");
    std::fs::write(new.join("2.big"), big_mail("big", 2 << 20)).expect("big");
    std::fs::write(
        new.join("3.next"),
        mail_from_france("next", "SIGNON France g pw-france\r\nLIST\r\n"),
    )
    .expect("next");
    let o = napjudge(
        &db,
        at(1),
        &[
            "mail",
            "poll",
            "--maildir",
            maildir.to_str().expect("utf-8"),
        ],
        b"",
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("1.unreadable: can't be read"), "{err}");
    assert!(err.contains("2.big: "), "{err}");
    let failed: Vec<String> = std::fs::read_dir(maildir.join("failed"))
        .expect("failed/")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(failed.len(), 2, "{failed:?}");
    assert!(std::fs::read_dir(&new).expect("new/").next().is_none());
    assert!(maildir.join("cur/3.next:2,S").exists());
    let replies = replies_to(&db, "france@example.org");
    assert_eq!(replies.len(), 2, "the big mail's answer and the next one's");
    assert!(replies[1].contains("Game g (napoleonic)"), "{}", replies[1]);
}

/// The row a `receive` killed between storing and answering leaves: the message `stored`,
/// received an hour after the games started (written by hand: the test's own connection).
fn leave_stored(db: &Path, raw: &str, message_id: &str) {
    let digest: String = Sha256::digest(raw.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let conn = rusqlite::Connection::open(db).expect("db");
    conn.execute(
        "INSERT INTO inbox (message_id, digest, sender, size, raw, received, state)
         VALUES (?1, ?2, 'france@example.org', ?3, ?4, ?5, 'stored')",
        rusqlite::params![
            message_id,
            digest,
            raw.len() as i64,
            raw.as_bytes(),
            rfc3339(at(1))
        ],
    )
    .expect("the stored row");
}

/// Damages game `name`'s current position, as a bad disk or a hand edit would.
fn damage_position(db: &Path, name: &str) {
    let conn = rusqlite::Connection::open(db).expect("db");
    let n = conn
        .execute(
            "UPDATE phases SET position = '{\"broken\":' WHERE game = (SELECT id FROM games WHERE name = ?1)",
            [name],
        )
        .expect("update");
    assert!(n > 0);
}

/// Finding 1's end and the brief's "one mail can never stop the judge": a mail whose answering
/// fails used to stay `stored` and abort every later tick. It is marked failed with the reason,
/// its game's GM is told once (and its sender), later ticks skip it, and a tick goes on to the
/// other games when one game fails.
#[test]
fn a_mail_whose_answering_fails_is_marked_failed_and_the_tick_goes_on() {
    let dir = scratch("failed");
    let db = dir.join("judge.db");
    new_game(&db, "g");
    new_game(&db, "h");
    damage_position(&db, "g");
    // One through `receive`, one left stored by a killed receive, for `tick`'s recovery.
    let raw = mail_from_france("fails", "SIGNON France g pw-france\r\nBID 6 Denmark\r\n");
    let o = napjudge(&db, at(1), &["mail", "receive"], raw.as_bytes());
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let stored = mail_from_france("stored", "SIGNON France g pw-france\r\nBID 6 Denmark\r\n");
    leave_stored(&db, &stored, "stored@example.org");
    // After the grace: both games are due.
    let o = napjudge(&db, at(80), &["tick"], b"");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(err.contains("g: database: a stored position"), "{err}");
    assert!(err.contains("not answered"), "{err}");
    assert_eq!(
        count(
            &db,
            "SELECT COUNT(*) FROM inbox WHERE state = 'failed' AND note LIKE '%position%'"
        ),
        2
    );
    let h_done = count(
        &db,
        "SELECT COUNT(*) FROM phases WHERE report IS NOT NULL AND game = (SELECT id FROM games WHERE name = 'h')",
    );
    assert_eq!(h_done, 1, "game h was processed past the failing game g");
    assert_eq!(
        count(
            &db,
            "SELECT COUNT(*) FROM outbox WHERE kind = 'unanswered' AND recipient = 'gm-g@example.org'"
        ),
        2,
        "the GM is told of each failed mail once"
    );
    // A later tick skips the failed mails: no new notice.
    napjudge(&db, at(81), &["tick"], b"");
    assert_eq!(
        count(&db, "SELECT COUNT(*) FROM outbox WHERE kind = 'unanswered'"),
        2
    );
}

/// Damages the pages of the games' tables (not the inbox's), as a bad disk would.
fn corrupt_game_pages(db: &Path) {
    let (roots, page): (Vec<i64>, i64) = {
        let conn = rusqlite::Connection::open(db).expect("db");
        conn.pragma_update(None, "wal_checkpoint", "TRUNCATE")
            .expect("checkpoint");
        let mut st = conn
            .prepare(
                "SELECT rootpage FROM sqlite_schema WHERE name IN ('games', 'players', 'phases')",
            )
            .expect("query");
        let roots = st
            .query_map([], |r| r.get(0))
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("roots");
        let page = conn
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .expect("page size");
        (roots, page)
    };
    let mut bytes = std::fs::read(db).expect("the file");
    for root in roots {
        let start = ((root - 1) * page) as usize;
        for b in &mut bytes[start..start + page as usize] {
            *b = 0xA5;
        }
    }
    std::fs::write(db, bytes).expect("damaged");
}

/// Finding 9: a database with damaged pages made `receive` exit 0, so the mail server dropped
/// its copy. A corrupt or foreign file is the database's fault: exit 75 (the server retries).
#[test]
fn a_corrupt_database_makes_receive_exit_75() {
    let dir = scratch("corrupt");
    let db = dir.join("judge.db");
    new_game(&db, "g");
    corrupt_game_pages(&db);
    let raw = mail_from_france("corrupt", "SIGNON France g pw-france\r\nLIST\r\n");
    let o = napjudge(&db, at(1), &["mail", "receive"], raw.as_bytes());
    assert_eq!(o.status.code(), Some(75), "{o:?}");
    let not_a_db = dir.join("garbage.db");
    std::fs::write(&not_a_db, vec![0x5Au8; 8192]).expect("garbage");
    let o = napjudge(&not_a_db, at(1), &["mail", "receive"], raw.as_bytes());
    assert_eq!(o.status.code(), Some(75), "{o:?}");
}

/// Finding 11: after a killed `receive`, the redelivered copy (same Message-ID) was told
/// "answered then; nothing was done" while the original was never answered. The copy answers
/// the original now, once: the orders are taken and one real reply goes.
#[test]
fn a_redelivered_copy_answers_the_unanswered_original() {
    let dir = scratch("redelivered");
    let db = dir.join("judge.db");
    new_game(&db, "g");
    let raw = mail_from_france("killed", "SIGNON France g pw-france\r\nBID 6 Denmark\r\n");
    leave_stored(&db, &raw, "killed@example.org");
    let mut j = Judge::new(Store::open(&db).expect("db"));
    // The mail server's retry, an hour later (an original younger than five minutes may still
    // be at work in its own receive, and is left to it).
    let h = receive(&mut j, &config(), raw.as_bytes(), at(2)).expect("stored");
    assert_eq!(h, Handled::Answered);
    let replies = replies_to(&db, "france@example.org");
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert!(!replies[0].contains("answered then"), "{}", replies[0]);
    assert!(replies[0].contains("Signed on as France"), "{}", replies[0]);
    assert_eq!(count(&db, "SELECT COUNT(*) FROM orders"), 1);
    assert_eq!(
        count(
            &db,
            "SELECT COUNT(*) FROM inbox WHERE state = 'answered' AND id = 1"
        ),
        1
    );
    assert_eq!(
        count(
            &db,
            "SELECT COUNT(*) FROM inbox WHERE state = 'duplicate' AND id = 2"
        ),
        1
    );
}

/// A deterministic generator (xorshift64*): the same seed, the same mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The real mails the mutations start from: the golden mails, and every 40th mail of the
/// recorded games.
fn seeds() -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("tests/mail/game"))
        .expect("tests/mail/game")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "eml"))
        .collect();
    let mut games: Vec<PathBuf> = std::fs::read_dir(root.join("fixtures/games"))
        .expect("fixtures/games")
        .map(|e| e.expect("entry").path().join("mail"))
        .filter(|p| p.is_dir())
        .flat_map(|d| {
            std::fs::read_dir(d)
                .expect("mail/")
                .map(|e| e.expect("entry").path())
        })
        .collect();
    games.sort();
    files.sort();
    files.extend(games.into_iter().step_by(40));
    files
        .iter()
        .map(|p| std::fs::read(p).expect("a mail"))
        .collect()
}

/// One mutation of `seed`, chosen by `rng`: truncation, byte flips, repeated lines, a huge
/// header, nested multiparts, a bad charset, or two of them.
fn mutate(seed: &[u8], rng: &mut Rng, depth: u32) -> Vec<u8> {
    let mut m = seed.to_vec();
    let split = |m: &[u8]| {
        m.windows(4)
            .position(|w| w == b"\r\n\r\n")
            .map(|i| i + 4)
            .or_else(|| m.windows(2).position(|w| w == b"\n\n").map(|i| i + 2))
            .unwrap_or(m.len())
    };
    match rng.below(8) {
        0 => m.truncate(rng.below(m.len() + 1)),
        1 => {
            for _ in 0..=rng.below(20) {
                let i = rng.below(m.len());
                if let Some(b) = m.get_mut(i) {
                    *b ^= 1 << rng.below(8);
                }
            }
        }
        2 => {
            let lines: Vec<&[u8]> = m.split(|&b| b == b'\n').collect();
            let pick = lines[rng.below(lines.len())].to_vec();
            let times = 1 + rng.below(5000);
            let at = rng.below(m.len() + 1);
            let mut rep = Vec::new();
            for _ in 0..times {
                rep.extend_from_slice(&pick);
                rep.push(b'\n');
            }
            m.splice(at..at, rep);
        }
        3 => {
            let size = 1 + rng.below(300_000);
            let mut h = b"X-Junk: ".to_vec();
            for i in 0..size {
                h.push(if i % 70 == 69 {
                    b'\t'
                } else {
                    b'a' + (i % 26) as u8
                });
                if i % 70 == 68 {
                    h.extend_from_slice(b"\r\n");
                }
            }
            h.extend_from_slice(b"\r\n");
            m.splice(0..0, h);
        }
        4 => {
            let body_at = split(&m);
            let body = m.split_off(body_at);
            let depth = 1 + rng.below(200);
            let mut out = m;
            out.extend_from_slice(b"Content-Type: multipart/mixed; boundary=\"b0\"\r\n\r\n");
            for d in 1..depth {
                out.extend_from_slice(
                    format!(
                        "--b{}\r\nContent-Type: multipart/mixed; boundary=\"b{d}\"\r\n\r\n",
                        d - 1
                    )
                    .as_bytes(),
                );
            }
            out.extend_from_slice(
                format!("--b{}\r\nContent-Type: text/plain\r\n\r\n", depth - 1).as_bytes(),
            );
            out.extend_from_slice(&body);
            m = out;
        }
        5 => {
            let charset = ["x-unknown", "utf-16", "utf-7", "iso-2022-jp", "", "\"\""][rng.below(6)];
            let header = format!(
                "Content-Type: text/plain; charset={charset}\r\nContent-Transfer-Encoding: {}\r\n",
                ["base64", "quoted-printable", "8bit", "x-bogus"][rng.below(4)]
            );
            m.splice(0..0, header.into_bytes());
        }
        6 => {
            let at = split(&m);
            let junk: Vec<u8> = (0..rng.below(4000)).map(|_| rng.next() as u8).collect();
            m.splice(at..at, junk);
        }
        _ if depth < 2 => {
            let once = mutate(&m, rng, depth + 1);
            m = mutate(&once, rng, depth + 1);
        }
        _ => m.reverse(),
    }
    m
}

/// The brief's fuzz-style test (finding 1, 8, 9): mutated real mails through the real
/// `napjudge mail receive` (one process a mail) and `mail poll` (many a process), under a
/// memory limit: every run exits 0 or 75, and a `tick` afterwards exits 0.
#[test]
fn fuzz_mutated_mails_exit_0_or_75_under_a_memory_limit() {
    let total: usize = std::env::var("NAPJUDGE_FUZZ_MAILS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2000);
    let prlimit = Path::new("/usr/bin/prlimit").exists();
    let dir = scratch("fuzz");
    let db = dir.join("judge.db");
    new_game(&db, "g");
    let seeds = seeds();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mails: Vec<Vec<u8>> = (0..total)
        .map(|_| {
            let seed = &seeds[rng.below(seeds.len())];
            mutate(seed, &mut rng, 0)
        })
        .collect();
    // 200 MB of address space: the judge's 1 MB limit and a bounded reply fit many times over;
    // the 750 MB reply of finding 1 does not.
    let limited = |args: &[&str]| -> Command {
        let mut c = if prlimit {
            let mut c = Command::new("/usr/bin/prlimit");
            c.arg("--as=200000000").arg(env!("CARGO_BIN_EXE_napjudge"));
            c
        } else {
            let mut c = Command::new("sh");
            c.arg("-c")
                .arg("ulimit -v 195000 && exec \"$0\" \"$@\"")
                .arg(env!("CARGO_BIN_EXE_napjudge"));
            c
        };
        c.arg("--db")
            .arg(&db)
            .arg("--now")
            .arg(rfc3339(at(1)))
            .args(args)
            .env("NAPJUDGE_FROM", JUDGE)
            .env("NAPJUDGE_CONFIG", dir.join("napjudge.toml"));
        c
    };
    let singles = total / 10;
    for (i, m) in mails.iter().take(singles).enumerate() {
        let o = crate::golden::piped(&mut limited(&["mail", "receive"]), m);
        assert!(
            matches!(o.status.code(), Some(0 | 75)),
            "mail {i}: {:?} {}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let maildir = dir.join("Maildir");
    for (b, batch) in mails[singles..].chunks(100).enumerate() {
        let new = maildir.join("new");
        std::fs::create_dir_all(&new).expect("new/");
        for (i, m) in batch.iter().enumerate() {
            std::fs::write(new.join(format!("{b:04}.{i:04}.fuzz")), m).expect("a mail file");
        }
        let o = limited(&[
            "mail",
            "poll",
            "--maildir",
            maildir.to_str().expect("utf-8"),
        ])
        .stdout(Stdio::null())
        .output()
        .expect("napjudge runs");
        assert!(
            matches!(o.status.code(), Some(0 | 75)),
            "batch {b}: {:?} {}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let o = napjudge(&db, at(80), &["tick"], b"");
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    // A sound database: every mail was stored (none turned away with 75), and answered,
    // ignored or marked failed. A Maildir file whose bytes are stored already (a mutation that
    // changed nothing) is taken as one fetched again, not stored twice (`intake::take`).
    let mut seen: std::collections::HashSet<&[u8]> =
        mails[..singles].iter().map(Vec::as_slice).collect();
    let polled = mails[singles..]
        .iter()
        .filter(|m| seen.insert(m.as_slice()))
        .count();
    assert_eq!(
        count(&db, "SELECT COUNT(*) FROM inbox") as usize,
        singles + polled
    );
    assert_eq!(
        count(&db, "SELECT COUNT(*) FROM inbox WHERE state = 'stored'"),
        0,
        "every mail stored was answered, ignored or marked failed"
    );
}

/// The mails queued to `to` (subject, Message-ID answered, body) and, sent to a folder as the
/// judge sends them, their `.eml` files.
fn sent_to(db: &Path, dir: &Path, to: &str) -> (Vec<napjudge_judge::Mail>, Vec<String>) {
    use napjudge_judge::{Retry, Target};
    let mut j = Judge::new(Store::open(db).expect("db"));
    let queued: Vec<_> = j
        .view()
        .mails(None)
        .expect("outbox")
        .into_iter()
        .filter(|m| m.to == to)
        .collect();
    let out = dir.join("out");
    let retry = Retry {
        days: 7,
        minutes: 5,
        limit: None,
    };
    j.send_outbox(&Target::Dir(out.clone()), JUDGE, retry, at(3))
        .expect("sent");
    let files = std::fs::read_dir(&out)
        .expect("the mails")
        .map(|e| std::fs::read_to_string(e.expect("entry").path()).expect("eml"))
        .filter(|m| m.contains(&format!("To: {to}")))
        .collect();
    (queued, files)
}

/// Issue 31, finding 3: the 50 kB cap counted the reply's blocks only; a command's heading,
/// a refusal's sentence (`no game called '...'`), an error's value, the Subject, In-Reply-To and
/// References and the attachments' names were echoed whole: a 1 MB mail got a 1.05 MB reply, a
/// 1 MB Message-ID a 2.1 MB reply with a 1 MB header line. Each of these mails, with one field
/// of 100 kB to 1 MB in every place a mail can echo, gets one reply under 50 kB whose every
/// line, queued and as sent, is at most 998 characters (RFC 5322), with the field cut ("...")
/// and the error that names it shown whole.
#[test]
fn every_echoed_field_is_cut_and_no_reply_line_is_over_998() {
    let dir = scratch("echo");
    let db = dir.join("judge.db");
    new_game(&db, "g");
    let x = "x".repeat(100_000);
    let mega = "x".repeat(1_000_000);
    let mut n = 0;
    let stranger = "mallory@evil.example";
    let mut mail = |from: &str, subject: &str, id: Option<&str>, body: &str| {
        n += 1;
        // A stranger's address gets 5 replies a day (issue 31): each mail of the stranger's
        // comes from an address of its own.
        let from = match from == stranger {
            true => format!("mallory{n}@evil.example"),
            false => from.to_string(),
        };
        let id = id.map_or(format!("echo{n}@example.org"), str::to_string);
        let m = format!(
            "From: {from}\r\nTo: {JUDGE}\r\nSubject: {subject}\r\n\
             Date: Wed, 1 Jul 2026 11:{n:02}:00 +0000\r\nMessage-ID: <{id}>\r\n\
             MIME-Version: 1.0\r\n{body}"
        );
        (from, m)
    };
    let text = |lines: &str| format!("Content-Type: text/plain; charset=utf-8\r\n\r\n{lines}\r\n");
    let mut mails = vec![
        mail(
            stranger,
            "t",
            None,
            &text(&format!("SIGNON France {mega} pw")),
        ),
        mail(stranger, "t", None, &text(&format!("SIGNON {x} g pw"))),
        mail(
            stranger,
            "t",
            None,
            &text(&format!("TAKEOVER France {x} code")),
        ),
        mail(stranger, "t", None, &text(&format!("TAKEOVER {x} g code"))),
        mail(stranger, "t", None, &text(&format!("OBSERVE {x}"))),
        mail(stranger, "t", None, &text(&format!("UNOBSERVE {x}"))),
        mail(stranger, &x, None, &text("HELP")),
        mail(
            stranger,
            "t",
            Some(&format!("{mega}@example.org")),
            &text("HELP"),
        ),
        mail(stranger, "t", Some("no at sign"), &text("HELP")),
    ];
    let attachments: String = (0..1500)
        .map(|i| {
            format!(
                "--b\r\nContent-Type: application/pdf; name=\"{i}{}.pdf\"\r\n\r\n%PDF\r\n",
                "n".repeat(300)
            )
        })
        .collect();
    mails.push(mail(
        stranger,
        "files",
        None,
        &format!(
            "Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n\
             --b\r\nContent-Type: text/plain\r\n\r\nHELP\r\n{attachments}--b--\r\n"
        ),
    ));
    let france = [
        x.clone(),
        format!("BID 6 {x}"),
        format!("SET ADDRESS {x}"),
        format!("PRESS TO {x}\r\nhello\r\nENDPRESS"),
        format!("SET {x} on"),
        format!("MAP {x}"),
        format!("HISTORY PRESS {x}"),
        format!("SET ABSENCE {x}"),
        format!("SET ABSENCE {x} 2026-07-10"),
        format!("SET CONCEDE {x}"),
        format!("{}\r\nLIST", x.to_uppercase()),
        format!(
            "PRESS TO England\r\n{}ENDPRESS",
            "A(Par)-Bur\r\n".repeat(1500)
        ),
    ];
    for line in &france {
        mails.push(mail(
            "france@example.org",
            "t",
            None,
            &text(&format!("SIGNON France g pw-france\r\n{line}")),
        ));
    }
    // Every key, as the judge lists them to whoever writes one it doesn't know.
    let unknown = napjudge_judge::Setting::parse("no-such-key", "")
        .expect_err("not a key")
        .to_string();
    let (_, keys) = unknown.split_once("the settings are ").expect("the keys");
    let mut gm: Vec<String> = keys
        .trim_end_matches('.')
        .split(", ")
        .map(|k| format!("SET {k} {x}"))
        .collect();
    gm.extend([
        format!("SET {x} on"),
        format!("SET DEADLINE {x}"),
        format!("CONTROL {x} France"),
        format!("CONTROL Denmark {x}"),
        format!("ROLLBACK {x}"),
        format!("PROCESS {x}"),
        format!("REPLACE France {x}"),
        format!("REPLACE {x} new@example.org"),
        format!("CODE {x}"),
        format!("CODE France {x}"),
        format!("END WINNER {x}"),
        format!("END DRAW France {x}"),
        format!("END {x}"),
        format!("{x}: BID 6 Denmark"),
        format!("France: BID 6 {x}"),
        format!("PRESS TO {x}\r\nhello\r\nENDPRESS"),
    ]);
    for line in &gm {
        mails.push(mail(
            "gm-g@example.org",
            "t",
            None,
            &text(&format!("SIGNON GM g gm-pw\r\n{line}")),
        ));
    }
    let mut j = Judge::new(Store::open(&db).expect("db"));
    for (i, (_, m)) in mails.iter().enumerate() {
        assert!(
            m.len() < napjudge_judge::MAX_SIZE,
            "mail {i} is within the size limit"
        );
        // Each mail's Date is before the time received, and each later than the one before.
        let h = receive(&mut j, &config(), m.as_bytes(), at(2)).expect("stored");
        assert_eq!(h, Handled::Answered, "mail {i}");
    }
    drop(j);
    // Every reply's faults, to see them all at once.
    let mut faults = Vec::new();
    let mut replies = 0;
    let senders: std::collections::BTreeSet<&str> = mails.iter().map(|(f, _)| f.as_str()).collect();
    for to in senders {
        let (queued, files) = sent_to(&db, &dir, to);
        for m in queued.iter().filter(|m| m.kind == MailKind::Reply) {
            replies += 1;
            let what = format!("the reply to {:.60}: {:.1500}", m.subject, m.body);
            let size =
                m.body.len() + m.subject.len() + m.in_reply_to.as_ref().map_or(0, String::len);
            let long = m.body.lines().any(|l| l.chars().count() > 998);
            if size >= 50_000 || m.subject.len() > 998 || long {
                faults.push(format!("{size} bytes: {what}"));
            } else if m.body.contains(&"x".repeat(300)) || m.body.contains("more lines cut") {
                faults.push(format!("echoed whole: {what}"));
            }
        }
        for f in &files {
            if f.len() >= 60_000 || f.lines().any(|l| l.len() > 998) {
                faults.push(format!("{} bytes sent: {:.1000}", f.len(), f));
            }
        }
    }
    assert!(faults.is_empty(), "{}", faults.join("\n\n"));
    assert_eq!(replies, mails.len(), "one reply each");
    // The megabyte Message-ID and the one without an '@' are not threaded to.
    assert_eq!(
        count(
            &db,
            "SELECT COUNT(*) FROM outbox WHERE kind = 'reply' AND in_reply_to IS NULL"
        ),
        2
    );
}
