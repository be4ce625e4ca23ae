//! Time for the judge: the clock (`--now` or the system's, the only place that reads it),
//! periods such as `48h`, and deadlines shown in a game's time zone.

use chrono::{DateTime, Duration, NaiveDateTime, TimeZone, Utc};
use chrono_tz::Tz;

/// Why a time, period or zone can't be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ClockError {
    /// Not a period.
    #[error("'{0}' is not a period: write a number and a unit, such as 48h, 90m, 2d or 1d12h")]
    Period(String),
    /// Not a time.
    #[error("'{0}' is not a time: write 2026-11-22T18:00:00Z, or '2026-11-22 18:00' (UTC)")]
    Time(String),
    /// Not a zone.
    #[error("'{0}' is not a time zone: use an IANA name such as Europe/Paris or UTC")]
    Zone(String),
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
    pub fn fixed(now: DateTime<Utc>) -> Clock {
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

/// Reads `2026-11-22T18:00:00Z` (any RFC 3339 offset) or `2026-11-22 18:00[:ss]` (UTC).
pub fn parse_time(text: &str) -> Result<DateTime<Utc>, ClockError> {
    let t = text.trim();
    if let Ok(d) = DateTime::parse_from_rfc3339(t) {
        return Ok(d.with_timezone(&Utc));
    }
    ["%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M"]
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(t, f).ok())
        .map(|n| Utc.from_utc_datetime(&n))
        .ok_or_else(|| ClockError::Time(text.to_string()))
}

/// Reads a period: `48h`, `90m`, `2d`, `1d12h`, `30s`; its length in seconds.
pub fn parse_period(text: &str) -> Result<i64, ClockError> {
    let bad = || ClockError::Period(text.to_string());
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
        let n: i64 = number.parse().map_err(|_| bad())?;
        total = n
            .checked_mul(unit)
            .and_then(|s| total.checked_add(s))
            .ok_or_else(bad)?;
        number.clear();
    }
    if !number.is_empty() || text.trim().is_empty() {
        return Err(bad());
    }
    Ok(total)
}

/// A period as the GM writes it: `48h`, `1h30m`, `7d` (days only from three days up).
pub fn show_period(secs: i64) -> String {
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
pub fn parse_zone(name: &str) -> Result<Tz, ClockError> {
    name.parse::<Tz>()
        .map_err(|_| ClockError::Zone(name.to_string()))
}

/// `t` plus `secs` seconds.
pub fn after(t: DateTime<Utc>, secs: i64) -> DateTime<Utc> {
    t + Duration::seconds(secs)
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
        assert_eq!(parse_period("48h"), Ok(48 * 3600));
        assert_eq!(parse_period("1d12h"), Ok(36 * 3600));
        assert_eq!(parse_period("90m"), Ok(5400));
        assert!(parse_period("48").is_err());
        assert!(parse_period("h").is_err());
        assert!(parse_period("").is_err());
        assert!(parse_period("2w").is_err());
    }

    #[test]
    fn periods_print_back() {
        assert_eq!(show_period(48 * 3600), "48h");
        assert_eq!(show_period(24 * 3600), "24h");
        assert_eq!(show_period(5400), "1h30m");
        assert_eq!(show_period(7 * 86_400), "7d");
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
