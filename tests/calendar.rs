//! Issue 23, "deadlines in the calendar": the mails that announce a deadline (results, reminders,
//! notices, the start mail) carry it as an iCalendar event in the game's zone, one event per
//! phase (a stable UID) whose SEQUENCE grows, so that a moved deadline updates the same event.
//! The mails are written by the real outbox into a folder, read back with mail-parser, and each
//! event is parsed by Python's `icalendar` (installed by `.ci/run`).

use chrono::{DateTime, Duration, Utc};
use mail_parser::{MessageParser, MimeHeaders};
use napjudge_judge::clock::parse_time;
use napjudge_judge::outbox::{self, Retry, Target};
use napjudge_judge::{Judge, Store};
use std::path::{Path, PathBuf};
use std::process::Command;
mod common;
mod intake;

fn t0() -> DateTime<Utc> {
    parse_time("2026-12-01T09:00:00Z").expect("time")
}

/// Sends the outbox into `dir` at `now`; returns the files written by this send.
fn send(db: &Path, dir: &Path, now: DateTime<Utc>) -> Vec<PathBuf> {
    let before: Vec<PathBuf> = files(dir);
    let mut store = Store::open(db).expect("db");
    outbox::send(
        &mut store,
        &Target::Dir(dir.to_path_buf()),
        "judge@example.org",
        Retry {
            days: 7,
            minutes: 10,
            limit: None,
        },
        now,
    )
    .expect("send");
    files(dir)
        .into_iter()
        .filter(|f| !before.contains(f))
        .collect()
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|r| r.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// The subject and the calendar part (if any) of a written mail.
fn read(file: &Path) -> (String, Option<String>) {
    let raw = std::fs::read(file).expect("eml");
    let m = MessageParser::default().parse(&raw).expect("a message");
    let subject = m.subject().unwrap_or_default().to_string();
    let ics = m.attachments().find_map(|a| {
        let ct = a.content_type()?;
        (ct.ctype() == "text" && ct.subtype() == Some("calendar"))
            .then(|| String::from_utf8_lossy(a.contents()).into_owned())
    });
    (subject, ics)
}

/// The event parsed by Python's icalendar: `UID|SEQUENCE|DTSTART in UTC|DTSTART's zone`.
fn parse_event(ics: &str) -> String {
    let out = Command::new("python3")
        .arg("-c")
        .arg(
            "import sys, icalendar, datetime\n\
             cal = icalendar.Calendar.from_ical(sys.stdin.read())\n\
             assert cal['VERSION'] == '2.0' and cal['METHOD'] == 'PUBLISH'\n\
             ev = [c for c in cal.walk('VEVENT')]\n\
             assert len(ev) == 1, ev\n\
             e = ev[0]\n\
             start = e.decoded('DTSTART')\n\
             assert start.tzinfo is not None\n\
             assert [a for a in e.walk('VALARM')], 'an alarm'\n\
             print('%s|%s|%s|%s' % (e['UID'], e['SEQUENCE'], \
               start.astimezone(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ'), \
               e['DTSTART'].params.get('TZID', 'UTC')))\n",
        )
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            if let Some(mut i) = c.stdin.take() {
                i.write_all(ics.as_bytes())?;
            }
            c.wait_with_output()
        })
        .unwrap_or_else(|e| panic!("python3 is needed to check the events ({e})"));
    assert!(
        out.status.success(),
        "icalendar refused the event: {}\n{ics}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn a_moved_deadline_updates_the_same_event_in_the_games_zone() {
    let dir = intake::scratch("calendar");
    let db = dir.join("napjudge.db");
    let out = dir.join("outbox");
    let mut j = Judge::new(Store::open(&db).expect("db"));
    common::start_five_players(
        &mut j,
        t0(),
        "cal",
        "Europe/Paris",
        common::day_periods(),
        |p| format!("{}@example.org", p.to_lowercase()),
    );
    // The seats' mails of the set-up go first: the test follows the results.
    send(&db, &out, t0());
    // Winter 1800 processed by the GM: its results announce Spring 1801's deadline.
    let processed = j
        .process("cal", false, t0() + Duration::hours(1))
        .expect("process");
    let first_deadline = processed.deadline.expect("a next deadline");
    let sent = send(&db, &out, t0() + Duration::hours(1));
    let results: Vec<(String, Option<String>)> = sent.iter().map(|f| read(f)).collect();
    assert_eq!(results.len(), 6, "five players and the GM");
    let (subject, ics) = &results[0];
    assert!(subject.contains("results of Winter 1800"), "{subject}");
    let e1 = parse_event(ics.as_deref().expect("the results carry the next deadline"));
    let f1: Vec<&str> = e1.split('|').collect();
    assert_eq!(
        f1[2],
        first_deadline.format("%Y-%m-%dT%H:%M:%SZ").to_string()
    );
    assert_eq!(f1[3], "Europe/Paris", "written in the game's zone");

    // The GM moves the deadline; the reminder before it carries the same event, moved.
    let moved = parse_time("2026-12-04T17:00:00Z").expect("time");
    j.set_deadline("cal", &moved.to_rfc3339(), t0() + Duration::hours(2))
        .expect("deadline");
    let remind_at = moved - Duration::minutes(59);
    napjudge_judge::mail::tick(&mut j, &intake::config(), remind_at).expect("tick");
    let sent = send(&db, &out, remind_at);
    let reminders: Vec<(String, Option<String>)> = sent.iter().map(|f| read(f)).collect();
    assert!(!reminders.is_empty(), "reminders were sent");
    for (subject, ics) in &reminders {
        let e2 = parse_event(ics.as_deref().expect("a reminder carries its deadline"));
        let f2: Vec<&str> = e2.split('|').collect();
        assert_eq!(f2[0], f1[0], "{subject}: the same phase, the same event");
        assert_eq!(
            f2[2], "2026-12-04T17:00:00Z",
            "{subject}: the moved deadline"
        );
        let (s1, s2): (i64, i64) = (
            f1[1].parse().expect("sequence"),
            f2[1].parse().expect("sequence"),
        );
        assert!(s2 > s1, "{subject}: a later SEQUENCE ({s1} then {s2})");
    }
}

#[test]
fn a_reply_carries_no_event() {
    let dir = intake::scratch("calendar-none");
    let db = dir.join("napjudge.db");
    let out = dir.join("outbox");
    let mut j = Judge::new(Store::open(&db).expect("db"));
    common::start_five_players(&mut j, t0(), "calp", "UTC", common::day_periods(), |p| {
        format!("{}@example.org", p.to_lowercase())
    });
    // The seats' start mails announce the first deadline: sent before the reply is looked at.
    send(&db, &out, t0());
    // A reply (HELP) has no deadline to announce.
    let help = format!(
        "From: austria@example.org\r\nTo: {}\r\nSubject: help\r\nMessage-ID: <h1@example.org>\r\n\
         Date: Tue, 01 Dec 2026 10:00:00 +0000\r\n\r\nHELP\r\n",
        intake::JUDGE
    );
    napjudge_judge::mail::receive(
        &mut j,
        &intake::config(),
        help.as_bytes(),
        t0() + Duration::hours(1),
    )
    .expect("receive");
    let sent = send(&db, &out, t0() + Duration::hours(1));
    assert!(!sent.is_empty());
    for f in &sent {
        let (subject, ics) = read(f);
        assert!(ics.is_none(), "{subject}: no event");
    }
}
