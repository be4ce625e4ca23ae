//! Time for the judge: the clock (`--now` or the system's, the only place that reads it),
//! periods such as `48h`, and deadlines shown in a game's time zone.

use crate::render::echo;
use chrono::{DateTime, Datelike, NaiveDateTime, TimeDelta, TimeZone, Utc};
use chrono_tz::Tz;

/// Why a time, period or zone can't be read.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum ClockError {
    /// Not a period.
    #[error("'{}' is not a period: write a number and a unit, such as 48h, 90m, 2d or 1d12h", echo(.0))]
    Period(String),
    /// Not a time.
    #[error("'{}' is not a time: write '2026-11-22 18:00' (a deadline: the game's own time; --now: UTC), or with an offset, 2026-11-22T18:00:00Z", echo(.0))]
    Time(String),
    /// A time outside the years the judge keeps.
    #[error("'{0}' is outside the years 1970 to 9999 that napjudge keeps: check the year")]
    OutsideCalendar(String),
    /// Not a zone.
    #[error("'{}' is not a time zone: use an IANA name such as Europe/Paris or UTC", echo(.0))]
    Zone(String),
    /// A local time the zone skips (the clocks go forward over it): the time and zone, and
    /// the first time after the change.
    #[error("{0} does not exist: the clocks go forward over it; give a time after the change, such as {1}")]
    Skipped(String, String),
    /// A local time the zone has twice (the clocks go back over it): the time and zone, and
    /// the two instants it can be.
    #[error("{0} happens twice (the clocks go back over it): give it with its offset, {1}")]
    Twice(String, String),
    /// A period longer than any game needs (and than the calendar can add up safely).
    #[error("'{}' is too long: a period is at most {MAX_PERIOD_DAYS}d", echo(.0))]
    PeriodTooLong(String),
    /// A deadline that is not ahead.
    #[error("{0} is in the past (now is {1}): give a later deadline")]
    Past(String, String),
    /// A deadline farther ahead than any game needs.
    #[error("{0} is too far ahead: a deadline is at most {MAX_AHEAD_DAYS} days from now")]
    TooFarAhead(String),
    /// A time plus a period past the end of the calendar (only a damaged or hand-edited
    /// database holds such a time: every door bounds them).
    #[error("{0} plus {1} seconds is past the end of the calendar: set a new deadline")]
    OutOfRange(String, i64),
}

/// The longest period a game may have (movement, retreat, Winter, grace, reminder): a year
/// is more than any game needs, and keeps every deadline computed from it far inside the
/// calendar.
pub(crate) const MAX_PERIOD_DAYS: i64 = 365;

/// How far ahead of now the GM may set a deadline.
pub(crate) const MAX_AHEAD_DAYS: i64 = 2 * 365;

/// A period of a game, in whole seconds, from 0 to `MAX_PERIOD_DAYS`: the one type every
/// door (the command line, a GM's mail, a game folder, the store) reads a period into, so no
/// setting can overflow the deadlines computed from it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Period(i64);

impl Period {
    /// The longest period, [`MAX_PERIOD_DAYS`].
    pub(crate) const MAX: Period = Period(MAX_PERIOD_DAYS * 86_400);

    /// `secs` seconds, when within 0 and `Period::MAX`.
    pub fn new(secs: i64) -> Result<Period, ClockError> {
        if secs < 0 {
            return Err(ClockError::Period(format!("{secs}s")));
        }
        if secs > Period::MAX.0 {
            return Err(ClockError::PeriodTooLong(show_secs(secs)));
        }
        Ok(Period(secs))
    }

    /// `h` hours (at most 255: always within the bound).
    pub const fn hours(h: u8) -> Period {
        Period(h as i64 * 3_600)
    }

    /// A period as stored: a value out of bounds (written by a napjudge before the bound, or
    /// by hand) is read as the nearest bound, so that no stored game can stop a tick.
    pub(crate) fn clamped(secs: i64) -> Period {
        Period(secs.clamp(0, Period::MAX.0))
    }

    /// Its length in seconds.
    pub fn secs(self) -> i64 {
        self.0
    }

    /// Reads a period: `48h`, `90m`, `2d`, `1d12h`, `30s` (units in any case).
    pub fn parse(text: &str) -> Result<Period, ClockError> {
        let bad = || ClockError::Period(text.to_string());
        let too_long = || ClockError::PeriodTooLong(text.trim().to_string());
        let mut total: i64 = 0;
        let mut number = String::new();
        for ch in text.trim().chars() {
            if ch.is_ascii_digit() {
                number.push(ch);
                continue;
            }
            let unit = match ch.to_ascii_lowercase() {
                'd' => 86_400,
                'h' => 3_600,
                'm' => 60,
                's' => 1,
                _ => return Err(bad()),
            };
            if number.is_empty() {
                return Err(bad());
            }
            // Only digits: the one way to fail is a number too large for i64.
            let n: i64 = number.parse().map_err(|_| too_long())?;
            total = n
                .checked_mul(unit)
                .and_then(|s| total.checked_add(s))
                .ok_or_else(too_long)?;
            number.clear();
        }
        if !number.is_empty() || text.trim().is_empty() {
            return Err(bad());
        }
        Period::new(total).map_err(|_| too_long())
    }
}

impl std::fmt::Display for Period {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&show_secs(self.0))
    }
}

/// The clock: fixed by `--now` for a test or a replay, else the system's.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    fixed: Option<DateTime<Utc>>,
}

impl Clock {
    /// The system clock.
    pub fn system() -> Clock {
        Clock { fixed: None }
    }

    /// A clock stopped at `now`.
    pub(crate) fn fixed(now: DateTime<Utc>) -> Clock {
        Clock { fixed: Some(now) }
    }

    /// `--now TIME` when given, else the system clock.
    pub fn from_arg(now: Option<&str>) -> Result<Clock, ClockError> {
        Ok(match now {
            Some(t) => Clock::fixed(parse_time(t)?),
            None => Clock::system(),
        })
    }

    /// Now, to the second.
    pub fn now(&self) -> DateTime<Utc> {
        let t = self.fixed.unwrap_or_else(Utc::now);
        // Stored times are whole seconds; keep comparisons with them exact.
        DateTime::from_timestamp(t.timestamp(), 0).unwrap_or(t)
    }
}

/// `t` as an RFC 3339 time with its offset or `Z`.
fn instant(t: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(t)
        .ok()
        .map(|d| d.with_timezone(&Utc))
}

/// Reads `2026-11-22T18:00:00Z` (any RFC 3339 offset) or `2026-11-22 18:00[:ss]` (UTC).
pub fn parse_time(text: &str) -> Result<DateTime<Utc>, ClockError> {
    let t = text.trim();
    let parsed = instant(t)
        .or_else(|| {
            ["%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M"]
                .iter()
                .find_map(|f| NaiveDateTime::parse_from_str(t, f).ok())
                .map(|n| Utc.from_utc_datetime(&n))
        })
        .ok_or_else(|| ClockError::Time(text.to_string()))?;
    in_calendar(text, parsed)
}

/// `t`, read from `text`, when the store and the mails can hold it.
fn in_calendar(text: &str, t: DateTime<Utc>) -> Result<DateTime<Utc>, ClockError> {
    if storable(&t) {
        Ok(t)
    } else {
        Err(ClockError::OutsideCalendar(text.to_string()))
    }
}

/// Reads a time the GM types for a game kept in `zone`: one with an offset or `Z`
/// (`2026-12-03T18:00:00+01:00`) is that instant; one without (`2026-12-03 18:00`) is the
/// game's local time, and a local time the zone skips or has twice (a change of summer time)
/// is refused with what to write instead.
pub(crate) fn parse_local(text: &str, zone: &str) -> Result<DateTime<Utc>, ClockError> {
    let t = text.trim();
    if let Some(d) = instant(t) {
        return in_calendar(text, d);
    }
    let tz = parse_zone(zone)?;
    let naive = [
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%d %H:%M",
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%dT%H:%M",
    ]
    .iter()
    .find_map(|f| NaiveDateTime::parse_from_str(t, f).ok())
    .ok_or_else(|| ClockError::Time(text.to_string()))?;
    let shown = format!("{} in {zone}", naive.format("%Y-%m-%d %H:%M"));
    match tz.from_local_datetime(&naive) {
        chrono::LocalResult::Single(d) => in_calendar(text, d.with_timezone(&Utc)),
        chrono::LocalResult::None => {
            // An hour later is past the gap (no zone skips more than an hour at once).
            let after = naive
                .checked_add_signed(TimeDelta::hours(1))
                .and_then(|n| tz.from_local_datetime(&n).earliest())
                .map_or_else(|| "one with its offset".to_string(), |d| d.to_rfc3339());
            Err(ClockError::Skipped(shown, after))
        }
        chrono::LocalResult::Ambiguous(a, b) => Err(ClockError::Twice(
            shown,
            format!("{} or {}", a.to_rfc3339(), b.to_rfc3339()),
        )),
    }
}

/// Seconds as the GM writes a period: `48h`, `1h30m`, `7d` (days only from three days up).
fn show_secs(secs: i64) -> String {
    if secs >= 3 * 86_400 && secs % 86_400 == 0 {
        return format!("{}d", secs / 86_400);
    }
    let (h, m, s) = (secs / 3_600, secs % 3_600 / 60, secs % 60);
    let mut out = String::new();
    if h > 0 {
        out.push_str(&format!("{h}h"));
    }
    if m > 0 {
        out.push_str(&format!("{m}m"));
    }
    if s > 0 || out.is_empty() {
        out.push_str(&format!("{s}s"));
    }
    out
}

/// Reads an IANA zone name.
pub(crate) fn parse_zone(name: &str) -> Result<Tz, ClockError> {
    name.parse::<Tz>()
        .map_err(|_| ClockError::Zone(name.to_string()))
}

/// Whether `t` is a time the judge can keep and mail: from 1970 (a mail's Date header can't be
/// written before it) to the year 9999 (RFC 3339's last).
pub fn storable(t: &DateTime<Utc>) -> bool {
    t.timestamp() >= 0 && t.year() <= 9999
}

/// `t` plus `secs` seconds (minus, when negative), or an error past the calendar's ends
/// (1970 and the year 9999, [`storable`]).
pub fn after(t: DateTime<Utc>, secs: i64) -> Result<DateTime<Utc>, ClockError> {
    TimeDelta::try_seconds(secs)
        .and_then(|d| t.checked_add_signed(d))
        .filter(storable)
        .ok_or_else(|| ClockError::OutOfRange(t.to_rfc3339(), secs))
}

/// A deadline the GM sets: after `now`, and at most [`MAX_AHEAD_DAYS`] ahead.
pub(crate) fn check_deadline(at: DateTime<Utc>, now: DateTime<Utc>) -> Result<(), ClockError> {
    if at <= now {
        return Err(ClockError::Past(at.to_rfc3339(), now.to_rfc3339()));
    }
    if at > after(now, MAX_AHEAD_DAYS * 86_400)? {
        return Err(ClockError::TooFarAhead(at.to_rfc3339()));
    }
    Ok(())
}

/// A time as a player reads it: in the game's zone, with the zone's abbreviation and UTC offset.
pub fn show_in(t: DateTime<Utc>, zone: &str) -> String {
    match parse_zone(zone) {
        Ok(tz) => tz
            .from_utc_datetime(&t.naive_utc())
            .format("%A %-d %B %Y, %H:%M %Z (UTC%:z)")
            .to_string(),
        Err(_) => t.format("%A %-d %B %Y, %H:%M UTC").to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periods_read_as_the_gm_writes_them() {
        let secs = |t: &str| Period::parse(t).map(Period::secs);
        assert_eq!(secs("48h"), Ok(48 * 3600));
        assert_eq!(secs("1d12h"), Ok(36 * 3600));
        assert_eq!(secs("90m"), Ok(5400));
        assert_eq!(secs("2D"), Ok(2 * 86_400));
        assert!(Period::parse("48").is_err());
        assert!(Period::parse("h").is_err());
        assert!(Period::parse("").is_err());
        assert!(Period::parse("2w").is_err());
    }

    /// A period is bounded by its one reader, with a clear error.
    #[test]
    fn periods_are_bounded() {
        assert_eq!(Period::parse("365d"), Ok(Period::MAX));
        assert_eq!(Period::parse("0s").map(Period::secs), Ok(0));
        for t in [
            "366d",
            "365d1s",
            "100000000d",
            "9999999999999999999d",
            "9223372036854775807s",
        ] {
            assert_eq!(
                Period::parse(t),
                Err(ClockError::PeriodTooLong(t.to_string())),
                "{t}"
            );
        }
        assert!(matches!(Period::parse("-1d"), Err(ClockError::Period(_))));
        assert!(Period::new(-1).is_err());
        assert_eq!(Period::clamped(i64::MAX), Period::MAX);
        assert_eq!(Period::clamped(i64::MIN).secs(), 0);
    }

    /// Time arithmetic is checked, never a panic.
    #[test]
    fn arithmetic_past_the_calendar_is_an_error() {
        let t = parse_time("9999-12-31T00:00:00Z").expect("a time");
        assert!(after(t, Period::MAX.secs()).is_err());
        assert!(after(DateTime::<Utc>::MAX_UTC, 1).is_err());
        assert!(after(t, i64::MAX).is_err());
        assert!(after(t, i64::MIN).is_err());
        let now = parse_time("2026-07-01 16:00").expect("a time");
        assert!(check_deadline(after(now, 730 * 86_400).expect("in range"), now).is_ok());
        assert!(matches!(
            check_deadline(after(now, 731 * 86_400).expect("in range"), now),
            Err(ClockError::TooFarAhead(_))
        ));
    }

    #[test]
    fn periods_print_back() {
        let show = |s: i64| Period::new(s).map(|p| p.to_string());
        assert_eq!(show(48 * 3600), Ok("48h".into()));
        assert_eq!(show(24 * 3600), Ok("24h".into()));
        assert_eq!(show(5400), Ok("1h30m".into()));
        assert_eq!(show(7 * 86_400), Ok("7d".into()));
    }

    /// A time the GM types is the game's local time unless it has an offset; the
    /// hour the clocks skip, and the hour they have twice, are refused with what to write.
    #[test]
    fn times_typed_are_read_in_the_game_zone() {
        let paris = |t: &str| parse_local(t, "Europe/Paris");
        assert_eq!(
            paris("2026-12-03 18:00"),
            parse_time("2026-12-03T17:00:00Z")
        );
        assert_eq!(
            paris("2026-07-03T18:00"),
            parse_time("2026-07-03T16:00:00Z")
        );
        assert_eq!(
            paris("2026-12-03T18:00:00Z"),
            parse_time("2026-12-03T18:00:00Z")
        );
        assert_eq!(
            paris("2026-12-03T18:00:00-05:00"),
            parse_time("2026-12-03T23:00:00Z")
        );
        assert!(matches!(
            paris("2026-03-29 02:30"),
            Err(ClockError::Skipped(..))
        ));
        let twice = paris("2026-10-25 02:30");
        assert!(matches!(twice, Err(ClockError::Twice(..))), "{twice:?}");
        assert!(matches!(paris("tomorrow"), Err(ClockError::Time(_))));
        assert!(matches!(
            parse_local("2026-12-03 18:00", "Mars/Olympus"),
            Err(ClockError::Zone(_))
        ));
    }

    #[test]
    fn deadlines_show_in_the_game_zone() {
        let t = parse_time("2026-07-01 16:00").expect("a time");
        assert_eq!(
            show_in(t, "Europe/Paris"),
            "Wednesday 1 July 2026, 18:00 CEST (UTC+02:00)"
        );
        assert!(parse_zone("Mars/Olympus").is_err());
    }
}
