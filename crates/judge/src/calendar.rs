//! A phase's deadline as an iCalendar event (RFC 5545), carried by the mails that announce a
//! deadline, so that a player's calendar shows it and follows it when it moves.
//!
//! One event per phase: its UID is the phase's, and its SEQUENCE the seconds from the phase's
//! start to the mail's sending, so a later mail (a moved deadline) always supersedes an earlier
//! one of the same phase in the calendar. When the game ends, the phase's event is sent once
//! more with STATUS:CANCELLED (RFC 5546 §3.2.1): a calendar then drops the deadline.

use chrono::{DateTime, Offset, TimeZone, Utc};

/// A phase's deadline, as an event.
pub(crate) struct Deadline<'a> {
    /// The game's name.
    pub game: &'a str,
    /// The phase's row id: with the game and the judge's domain, the event's UID.
    pub phase_id: i64,
    /// The phase as players name it (`Spring 1802 Movement`).
    pub phase: &'a str,
    /// When orders are due.
    pub at: DateTime<Utc>,
    /// The game's zone (IANA); the event is written in it.
    pub zone: &'a str,
    /// When the phase became current (none for phases stored before schema version 10).
    pub started: Option<DateTime<Utc>>,
    /// The judge's address: where orders go, and whose domain names the UID.
    pub judge: &'a str,
    /// The game ended: the event is cancelled.
    pub cancelled: bool,
}

/// The event's text (CRLF lines, folded at 75 octets), as of `now`.
pub(crate) fn event(d: &Deadline, now: DateTime<Utc>) -> String {
    let domain = d.judge.rsplit('@').next().unwrap_or("napjudge.invalid");
    let sequence = d
        .started
        .map_or(0, |s| (now - s).num_seconds().clamp(0, i64::from(i32::MAX)));
    let stamp = |t: DateTime<Utc>| t.format("%Y%m%dT%H%M%SZ").to_string();
    let mut lines: Vec<String> = vec![
        "BEGIN:VCALENDAR".into(),
        "VERSION:2.0".into(),
        concat!(
            "PRODID:-//napjudge//napjudge ",
            env!("CARGO_PKG_VERSION"),
            "//EN"
        )
        .into(),
        "CALSCALE:GREGORIAN".into(),
        "METHOD:PUBLISH".into(),
    ];
    let start = match d.zone.parse::<chrono_tz::Tz>() {
        Ok(tz) if d.zone != "UTC" => {
            let local = tz.from_utc_datetime(&d.at.naive_utc());
            // The zone as it stands at the deadline: enough for a reader without the IANA
            // data, and right for this one instant whatever the season.
            let offset = local.offset().fix().local_minus_utc();
            let sign = if offset < 0 { '-' } else { '+' };
            let hhmm = format!(
                "{sign}{:02}{:02}",
                offset.abs() / 3600,
                offset.abs() % 3600 / 60
            );
            lines.extend([
                "BEGIN:VTIMEZONE".into(),
                format!("TZID:{}", d.zone),
                "BEGIN:STANDARD".into(),
                "DTSTART:19700101T000000".into(),
                format!("TZOFFSETFROM:{hhmm}"),
                format!("TZOFFSETTO:{hhmm}"),
                format!("TZNAME:{}", local.format("%Z")),
                "END:STANDARD".into(),
                "END:VTIMEZONE".into(),
            ]);
            format!("DTSTART;TZID={}:{}", d.zone, local.format("%Y%m%dT%H%M%S"))
        }
        _ => format!("DTSTART:{}", stamp(d.at)),
    };
    let (summary, description) = if d.cancelled {
        (
            format!("{}: game ended, no orders due", d.game),
            format!("{} has ended: no orders are due for {}.", d.game, d.phase),
        )
    } else {
        (
            format!("{}: orders due, {}", d.game, d.phase),
            format!(
                "Orders for {} in {} are due. Mail them to {}.",
                d.phase, d.game, d.judge
            ),
        )
    };
    lines.extend([
        "BEGIN:VEVENT".into(),
        // A TEXT value: a name from an old database may hold a line break.
        format!(
            "UID:{}",
            text(&format!("phase-{}.{}@{domain}", d.phase_id, d.game))
        ),
        format!("DTSTAMP:{}", stamp(now)),
        format!("SEQUENCE:{sequence}"),
        start,
        format!("SUMMARY:{}", text(&summary)),
        format!("DESCRIPTION:{}", text(&description)),
        "TRANSP:TRANSPARENT".into(),
    ]);
    if d.cancelled {
        lines.push("STATUS:CANCELLED".into());
    } else {
        lines.extend([
            "BEGIN:VALARM".into(),
            "ACTION:DISPLAY".into(),
            format!(
                "DESCRIPTION:{}",
                text(&format!("{}: orders due in an hour", d.game))
            ),
            "TRIGGER:-PT1H".into(),
            "END:VALARM".into(),
        ]);
    }
    lines.extend(["END:VEVENT".into(), "END:VCALENDAR".into()]);
    let mut out = String::new();
    for l in &lines {
        fold(l, &mut out);
    }
    out
}

/// A TEXT value escaped (RFC 5545 §3.3.11): a line break as `\n`, the other control
/// characters, which TEXT can't hold, left out.
fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' | ';' | ',' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            c if c.is_control() && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

/// Appends `line` folded into lines of at most 75 octets (a continuation starts with a space),
/// never inside a character, each ended by CRLF.
fn fold(line: &str, out: &mut String) {
    let mut used = 0;
    for c in line.chars() {
        let n = c.len_utf8();
        if used + n > 75 {
            out.push_str("\r\n ");
            used = 1;
        }
        out.push(c);
        used += n;
    }
    out.push_str("\r\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::parse_time;

    fn deadline(zone: &str) -> Deadline<'_> {
        Deadline {
            game: "g1",
            phase_id: 7,
            phase: "Spring 1802 Movement",
            at: parse_time("2026-12-03T17:00:00Z").expect("time"),
            zone,
            started: Some(parse_time("2026-12-01T17:00:00Z").expect("time")),
            judge: "judge@example.org",
            cancelled: false,
        }
    }

    /// Issue 34: a game that ended kept its last deadline in every calendar. The final mail's
    /// event cancels it: the same UID, a higher SEQUENCE than the last announcement's, and
    /// STATUS:CANCELLED, with no alarm left to ring.
    #[test]
    fn an_ended_games_event_cancels_its_deadline() {
        let seq = |e: &str| {
            e.lines()
                .find_map(|l| l.strip_prefix("SEQUENCE:"))
                .and_then(|s| s.trim().parse::<i64>().ok())
        };
        let announced = event(
            &deadline("UTC"),
            parse_time("2026-12-02T17:00:00Z").expect("time"),
        );
        let cancel = event(
            &Deadline {
                cancelled: true,
                ..deadline("UTC")
            },
            parse_time("2026-12-02T18:00:00Z").expect("time"),
        );
        assert!(
            cancel.contains("UID:phase-7.g1@example.org\r\n"),
            "{cancel}"
        );
        assert!(cancel.contains("STATUS:CANCELLED\r\n"), "{cancel}");
        assert!(!cancel.contains("VALARM"), "{cancel}");
        assert!(seq(&cancel) > seq(&announced), "{cancel}");
        assert!(!announced.contains("STATUS:CANCELLED"), "{announced}");
    }

    #[test]
    fn the_deadline_is_written_in_the_games_zone() {
        let now = parse_time("2026-12-02T17:00:00Z").expect("time");
        let e = event(&deadline("Europe/Paris"), now);
        assert!(
            e.contains("DTSTART;TZID=Europe/Paris:20261203T180000\r\n"),
            "{e}"
        );
        assert!(e.contains("TZOFFSETTO:+0100\r\n"), "{e}");
        assert!(e.contains("UID:phase-7.g1@example.org\r\n"), "{e}");
        assert!(e.contains("SEQUENCE:86400\r\n"), "{e}");
        let utc = event(&deadline("UTC"), now);
        assert!(utc.contains("DTSTART:20261203T170000Z\r\n"), "{utc}");
        assert!(!utc.contains("VTIMEZONE"), "{utc}");
    }

    #[test]
    fn a_later_mail_of_the_same_phase_has_a_higher_sequence() {
        let seq = |t: &str| {
            let e = event(&deadline("UTC"), parse_time(t).expect("time"));
            e.lines()
                .find_map(|l| l.strip_prefix("SEQUENCE:"))
                .and_then(|s| s.trim().parse::<i64>().ok())
        };
        assert!(seq("2026-12-01T18:00:00Z") < seq("2026-12-01T18:00:01Z"));
    }

    #[test]
    fn long_lines_fold_at_75_octets_without_splitting_a_character() {
        let mut out = String::new();
        let line = format!("SUMMARY:{}", "é".repeat(60));
        fold(&line, &mut out);
        for l in out.split("\r\n") {
            assert!(l.len() <= 75, "{l}");
        }
        assert_eq!(out.replace("\r\n ", "").trim_end(), line);
        assert_eq!(text("a,b;c\\d\ne"), "a\\,b\\;c\\\\d\\ne");
    }

    /// The UID took the game's name as it is, and a name with CR/LF (from
    /// an old database) wrote lines of its own into the event.
    #[test]
    fn a_name_with_line_breaks_writes_no_line_of_its_own() {
        let now = parse_time("2026-12-02T17:00:00Z").expect("time");
        let d = Deadline {
            game: "g\r\nATTENDEE:mailto:x@evil.example\r\nX,Y;Z\u{7}",
            ..deadline("UTC")
        };
        // Unfolded, as a reader sees it.
        let e = event(&d, now).replace("\r\n ", "");
        assert!(
            e.contains(
                "UID:phase-7.g\\nATTENDEE:mailto:x@evil.example\\nX\\,Y\\;Z@example.org\r\n"
            ),
            "{e}"
        );
        assert!(!e.lines().any(|l| l.starts_with("ATTENDEE")), "{e}");
        assert!(!e.contains('\u{7}'), "{e}");
    }
}
