//! Issue 23, "deadlines in the calendar": the mails that announce a deadline (results, reminders,
//! notices, the start mail) carry it as an iCalendar event in the game's zone, one event per
//! phase (a stable UID) whose SEQUENCE grows, so that a moved deadline updates the same event.
//! The mails are written by the real outbox into a folder, read back with mail-parser, and each
//! event is parsed as RFC 5545 by the `icalendar` crate.

use crate::common;
use crate::intake;
use chrono::{DateTime, Duration, Utc};
use icalendar::{Calendar, CalendarDateTime, Component, DatePerhapsTime};
use mail_parser::{MessageParser, MimeHeaders};
use napjudge_judge::{parse_time, Judge, Retry, Store, Target};
use std::path::{Path, PathBuf};

fn t0() -> DateTime<Utc> {
    parse_time("2026-12-01T09:00:00Z").expect("time")
}

/// Sends the outbox into `dir` at `now`; returns the files written by this send.
fn send(db: &Path, dir: &Path, now: DateTime<Utc>) -> Vec<PathBuf> {
    let before: Vec<PathBuf> = files(dir);
    let mut store = Store::open(db).expect("db");
    // A send that finds the outbox's lock held sends nothing (`busy`), and the next tick sends:
    // the lock can be held for a moment by a child process another test of this binary started
    // (forked with the lock's descriptor, before its exec closes it), so this tries again.
    let mut tries = 0;
    loop {
        let sent = napjudge_judge::send(
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
        if !sent.busy {
            break;
        }
        tries += 1;
        assert!(tries < 100, "the outbox stayed locked for two seconds");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
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

/// What the tests read of a mail's one event.
struct Event {
    uid: String,
    sequence: u32,
    start: DateTime<Utc>,
    zone: String,
}

/// The mail's calendar parsed as RFC 5545 (the `icalendar` crate's parser): a VERSION 2.0
/// PUBLISH calendar with one VEVENT, whose DTSTART is in a named zone and which has an alarm.
fn parse_event(ics: &str) -> Event {
    let cal: Calendar = ics
        .parse()
        .unwrap_or_else(|e| panic!("the calendar does not parse ({e}):\n{ics}"));
    assert_eq!(cal.property_value("VERSION"), Some("2.0"), "{ics}");
    assert_eq!(cal.property_value("METHOD"), Some("PUBLISH"), "{ics}");
    let events: Vec<&icalendar::Event> =
        cal.components.iter().filter_map(|c| c.as_event()).collect();
    assert_eq!(events.len(), 1, "one event:\n{ics}");
    let e = events[0];
    assert!(
        e.components()
            .iter()
            .any(|c| c.component_kind() == "VALARM"),
        "an alarm:\n{ics}"
    );
    let Some(DatePerhapsTime::DateTime(start)) = e.get_start() else {
        panic!("DTSTART is a date-time:\n{ics}");
    };
    let CalendarDateTime::WithTimezone { tzid, .. } = &start else {
        panic!("DTSTART names its zone:\n{ics}");
    };
    Event {
        uid: e.get_uid().expect("a UID").to_string(),
        sequence: e.get_sequence().expect("a SEQUENCE"),
        zone: tzid.clone(),
        start: start.try_into_utc().expect("DTSTART in a known zone"),
    }
}

/// Game `name` of the five majors started at [`t0`] in `dir`, deadlines shown in `zone`, and
/// the set-up's mails (the seats' start mails, which announce the first deadline) sent to the
/// outbox folder first, so that a test follows what comes after: the judge, the database and
/// that folder.
fn started(dir: PathBuf, name: &str, zone: &str) -> (Judge, PathBuf, PathBuf) {
    let db = dir.join("napjudge.db");
    let out = dir.join("outbox");
    let mut j = Judge::new(Store::open(&db).expect("db"));
    common::start_five_players(&mut j, t0(), name, zone, common::day_periods(), |p| {
        format!("{}@example.org", p.to_lowercase())
    });
    send(&db, &out, t0());
    (j, db, out)
}

#[test]
fn a_moved_deadline_updates_the_same_event_in_the_games_zone() {
    let (mut j, db, out) = started(intake::scratch("calendar"), "cal", "Europe/Paris");
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
    assert_eq!(e1.start, first_deadline);
    assert_eq!(e1.zone, "Europe/Paris", "written in the game's zone");

    // The GM moves the deadline; the reminder before it carries the same event, moved.
    let moved = parse_time("2026-12-04T17:00:00Z").expect("time");
    j.set_deadline("cal", &moved.to_rfc3339(), t0() + Duration::hours(2))
        .expect("deadline");
    let remind_at = moved - Duration::minutes(59);
    napjudge_judge::tick(&mut j, &intake::config(), remind_at).expect("tick");
    let sent = send(&db, &out, remind_at);
    let reminders: Vec<(String, Option<String>)> = sent.iter().map(|f| read(f)).collect();
    assert!(!reminders.is_empty(), "reminders were sent");
    for (subject, ics) in &reminders {
        let e2 = parse_event(ics.as_deref().expect("a reminder carries its deadline"));
        assert_eq!(e2.uid, e1.uid, "{subject}: the same phase, the same event");
        assert_eq!(e2.start, moved, "{subject}: the moved deadline");
        let (s1, s2) = (e1.sequence, e2.sequence);
        assert!(s2 > s1, "{subject}: a later SEQUENCE ({s1} then {s2})");
    }
}

#[test]
fn a_reply_carries_no_event() {
    let (mut j, db, out) = started(intake::scratch("calendar-none"), "calp", "UTC");
    // A reply (HELP) has no deadline to announce.
    let help = format!(
        "From: austria@example.org\r\nTo: {}\r\nSubject: help\r\nMessage-ID: <h1@example.org>\r\n\
         Date: Tue, 01 Dec 2026 10:00:00 +0000\r\n\r\nHELP\r\n",
        intake::JUDGE
    );
    napjudge_judge::receive(
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

/// Issue 34: an ended game kept its last deadline in the players' calendars. The final mail
/// carries the same event (the phase's UID) with a higher SEQUENCE and STATUS:CANCELLED, as
/// RFC 5546 §3.2.1 cancels a published event, and no alarm.
#[test]
fn the_final_mail_cancels_the_deadline_in_the_calendar() {
    let (mut j, db, out) = started(intake::scratch("calendar-end"), "cale", "Europe/Paris");
    j.process("cale", false, t0() + Duration::hours(1))
        .expect("process");
    let sent = send(&db, &out, t0() + Duration::hours(1));
    let (_, ics) = read(&sent[0]);
    let announced = parse_event(ics.as_deref().expect("the results carry the next deadline"));
    let how = napjudge_judge::GmEnd {
        reason: "the players agreed".into(),
        ..Default::default()
    };
    j.end("cale", &how, t0() + Duration::hours(2))
        .expect("ended");
    let sent = send(&db, &out, t0() + Duration::hours(2));
    assert!(!sent.is_empty(), "the final mail");
    for f in &sent {
        let (subject, ics) = read(f);
        assert!(subject.contains("the game has ended"), "{subject}");
        let ics = ics.unwrap_or_else(|| panic!("{subject}: the event, cancelled"));
        let cal: Calendar = ics.parse().expect("RFC 5545");
        let e = cal
            .components
            .iter()
            .find_map(|c| c.as_event())
            .expect("one event");
        assert_eq!(e.get_uid(), Some(announced.uid.as_str()), "{subject}");
        assert_eq!(e.property_value("STATUS"), Some("CANCELLED"), "{ics}");
        assert!(
            e.get_sequence().expect("a SEQUENCE") > announced.sequence,
            "{ics}"
        );
        assert!(
            !e.components()
                .iter()
                .any(|c| c.component_kind() == "VALARM"),
            "no alarm for a deadline that will not come:\n{ics}"
        );
    }
}
