//! A game's settings after its creation: `game set NAME KEY VALUE` at the shell and the GM's
//! `SET KEY VALUE` by mail, read by one parser ([`Setting::parse`]) and applied by one service
//! call (`Judge::set`: one transaction, with a notice to everyone in a game under way).
//!
//! A new key is a variant of [`Setting`], a row of [`KEYS`] (its name and reader), and its arm
//! in [`Setting::apply`] and in `Display` (the compiler names any arm missing).

use crate::clock::{self, ClockError, Period};
use crate::store::Game;

/// One setting of a game with its new value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Setting {
    /// The period of a movement phase (from the next phase on).
    Movement(Period),
    /// The period of a retreat phase.
    Retreat(Period),
    /// The period of a Winter phase.
    Winter(Period),
    /// The grace after every deadline, the current one too.
    Grace(Period),
    /// How long before the deadline the reminder goes.
    Remind(Period),
    /// The time zone deadlines are shown and read in (IANA name).
    Zone(String),
    /// Whether a phase waits for its deadline even when everyone has ordered.
    Wait(bool),
    /// Whether result mails carry a picture of the board.
    Pictures(bool),
}

/// Why a `KEY VALUE` is not a setting: each says what to write.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SettingError {
    /// A key the judge doesn't know.
    #[error("'{0}' is not a setting of a game: the settings are {keys}", keys = key_list())]
    Unknown(String),
    /// A switch that is not on or off.
    #[error("{0} {1}: write {0} on or {0} off")]
    Switch(&'static str, String),
    /// A period or zone that can't be read.
    #[error("{0}: {1}")]
    Value(&'static str, ClockError),
    /// A phase's own period of nothing.
    #[error("{0} 0s: a phase's period must be longer than nothing")]
    Zero(&'static str),
}

type Reader = fn(&'static str, &str) -> Result<Setting, SettingError>;

/// Every key with its reader, in the order the list of keys shows them.
pub const KEYS: &[(&str, Reader)] = &[
    ("movement", |k, v| {
        Ok(Setting::Movement(phase_period(k, v)?))
    }),
    ("retreat", |k, v| Ok(Setting::Retreat(phase_period(k, v)?))),
    ("winter", |k, v| Ok(Setting::Winter(phase_period(k, v)?))),
    ("grace", |k, v| Ok(Setting::Grace(period(k, v)?))),
    ("remind", |k, v| Ok(Setting::Remind(period(k, v)?))),
    ("zone", |k, v| {
        clock::parse_zone(v.trim()).map_err(|e| SettingError::Value(k, e))?;
        Ok(Setting::Zone(v.trim().to_string()))
    }),
    ("wait", |k, v| Ok(Setting::Wait(switch(k, v)?))),
    ("pictures", |k, v| Ok(Setting::Pictures(switch(k, v)?))),
];

fn key_list() -> String {
    KEYS.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", ")
}

fn period(key: &'static str, value: &str) -> Result<Period, SettingError> {
    Period::parse(value).map_err(|e| SettingError::Value(key, e))
}

fn phase_period(key: &'static str, value: &str) -> Result<Period, SettingError> {
    let p = period(key, value)?;
    if p.secs() == 0 {
        return Err(SettingError::Zero(key));
    }
    Ok(p)
}

fn switch(key: &'static str, value: &str) -> Result<bool, SettingError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(SettingError::Switch(key, value.trim().to_string())),
    }
}

impl Setting {
    /// Reads `KEY VALUE` (the key in any case).
    pub fn parse(key: &str, value: &str) -> Result<Setting, SettingError> {
        let (name, read) = KEYS
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key.trim()))
            .ok_or_else(|| SettingError::Unknown(key.trim().to_string()))?;
        read(name, value)
    }

    /// The game with this setting changed.
    pub fn apply(&self, g: &mut Game) {
        match self {
            Setting::Movement(p) => g.periods.movement = *p,
            Setting::Retreat(p) => g.periods.retreat = *p,
            Setting::Winter(p) => g.periods.winter = *p,
            Setting::Grace(p) => g.periods.grace = *p,
            Setting::Remind(p) => g.periods.remind = *p,
            Setting::Zone(z) => g.timezone.clone_from(z),
            Setting::Wait(on) => g.wait = *on,
            Setting::Pictures(on) => g.pictures = *on,
        }
    }
}

impl std::fmt::Display for Setting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let on = |b: bool| if b { "on" } else { "off" };
        match self {
            Setting::Movement(p) => write!(f, "movement {p}"),
            Setting::Retreat(p) => write!(f, "retreat {p}"),
            Setting::Winter(p) => write!(f, "winter {p}"),
            Setting::Grace(p) => write!(f, "grace {p}"),
            Setting::Remind(p) => write!(f, "remind {p}"),
            Setting::Zone(z) => write!(f, "zone {z}"),
            Setting::Wait(b) => write!(f, "wait {}", on(*b)),
            Setting::Pictures(b) => write!(f, "pictures {}", on(*b)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 20: one reader for the shell's and the mail's settings; an unknown key gets the
    /// list of keys, a bad value what to write.
    #[test]
    fn keys_and_values_are_read_once() {
        assert_eq!(
            Setting::parse("GRACE", "12h"),
            Ok(Setting::Grace(Period::hours(12)))
        );
        assert_eq!(Setting::parse("wait", "ON"), Ok(Setting::Wait(true)));
        assert_eq!(
            Setting::parse("zone", "Europe/Paris"),
            Ok(Setting::Zone("Europe/Paris".into()))
        );
        let unknown = Setting::parse("colour", "red").expect_err("unknown");
        assert_eq!(
            unknown.to_string(),
            "'colour' is not a setting of a game: the settings are movement, retreat, winter, \
             grace, remind, zone, wait, pictures"
        );
        assert_eq!(
            Setting::parse("movement", "0s"),
            Err(SettingError::Zero("movement"))
        );
        assert!(Setting::parse("grace", "0s").is_ok(), "a grace may be none");
        assert!(matches!(
            Setting::parse("zone", "Mars/Olympus"),
            Err(SettingError::Value("zone", _))
        ));
        assert_eq!(
            Setting::parse("pictures", "maybe").map_err(|e| e.to_string()),
            Err("pictures maybe: write pictures on or pictures off".into())
        );
    }
}
