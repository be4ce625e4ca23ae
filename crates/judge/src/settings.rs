//! A game's settings: `game create`'s flags, `game set NAME KEY VALUE` at the shell and the GM's
//! `SET KEY VALUE` by mail, read by one parser ([`Setting::parse`]) and stored by one writer
//! ([`Setting::apply`], in the transaction of `Judge::create_with` or `Judge::set`: the latter
//! with a notice to everyone in a game under way).
//!
//! A setting lives where its rule is read: the game's row (periods, zone, wait, pictures, press
//! options), its seat rules (abandon, observers) or its timing (delay, absence limits).
//! A new key is a variant of [`Setting`], a row of [`KEYS`] (its name and reader), its arm in
//! [`Setting::apply`], [`Setting::key`], `Display` and `notice`'s words for it (the compiler
//! names any arm missing), and its value in [`current`] (`tests/mail_settings.rs` checks that
//! `game show` names every key of [`KEYS`]).

use crate::clock::{self, ClockError, Period};
use crate::render::echo;
use crate::store::{Game, PressMode, SeatRules, StoreError, Timing, Tx, View, DEFAULT_OBSERVERS};

/// The longest absence a GM may allow, in days.
pub(crate) const MAX_ABSENCE_DAYS: i64 = 90;
/// The most absences per year a GM may allow.
pub(crate) const MAX_ABSENCES_PER_YEAR: i64 = 52;
/// The most phases in a row without orders a GM may wait before a power is abandoned: more
/// than a long game has.
pub(crate) const MAX_ABANDON: i64 = 99;
/// The most observers a GM may let OBSERVE a game by mail: each gets every results mail.
pub(crate) const MAX_OBSERVERS: i64 = 1000;

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
    /// Which press the players may send.
    Press(PressMode),
    /// Whether players are known by their powers only (gunboat).
    Anonymous(bool),
    /// Whether the GM gets a copy of the players' press.
    GmCopy(bool),
    /// After this many phases in a row without orders a power is abandoned (0: never).
    Abandon(u32),
    /// The most observers OBSERVE by mail may bring the game to (0, `off`: none; `on`: the
    /// default, 20).
    Observers(u32),
    /// Once everyone has ordered, how long after the last orders the phase is processed
    /// (njudge's delay).
    Delay(Period),
    /// The longest absence a player may register, in days.
    AbsenceMaxDays(i64),
    /// How many absences a power may register per calendar year.
    AbsencesPerYear(i64),
}

/// Why a `KEY VALUE` is not a setting: each says what to write.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SettingError {
    /// A key the judge doesn't know.
    #[error("'{}' is not a setting of a game: the settings are {keys}", echo(.0), keys = key_list())]
    Unknown(String),
    /// A switch that is not on or off.
    #[error("{key} {value}: write {key} on or {key} off", key = .0, value = echo(.1))]
    Switch(&'static str, String),
    /// A period or zone that can't be read.
    #[error("{0}: {1}")]
    Value(&'static str, ClockError),
    /// A phase's own period of nothing.
    #[error("{0} 0s: a phase's period must be longer than nothing")]
    Zero(&'static str),
    /// Not one of the press options.
    #[error("'{}' is not a press option: write white, grey, public or none", echo(.0))]
    Press(String),
    /// A count that is not a whole number in its bounds.
    #[error("{key} {}: write a whole number from {min} to {max} ({what})", echo(.value))]
    Count {
        /// The key.
        key: &'static str,
        /// As written.
        value: String,
        /// The least it may be.
        min: i64,
        /// The most it may be.
        max: i64,
        /// What it counts.
        what: &'static str,
    },
}

type Reader = fn(&'static str, &str) -> Result<Setting, SettingError>;

/// Every key with its reader, in the order the list of keys, `game show` and LIST show them.
pub(crate) const KEYS: &[(&str, Reader)] = &[
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
    ("press", |_, v| {
        PressMode::parse(v.trim())
            .map(Setting::Press)
            .ok_or_else(|| SettingError::Press(v.trim().to_string()))
    }),
    ("anonymous", |k, v| Ok(Setting::Anonymous(switch(k, v)?))),
    ("gm-copy", |k, v| Ok(Setting::GmCopy(switch(k, v)?))),
    ("abandon", |k, v| {
        let n = count(
            k,
            v,
            0,
            MAX_ABANDON,
            "phases in a row without orders; 0: never",
        )?;
        // In 0..=MAX_ABANDON: it fits.
        Ok(Setting::Abandon(u32::try_from(n).unwrap_or(0)))
    }),
    ("observers", |k, v| {
        if let Ok(on) = switch(k, v) {
            return Ok(Setting::Observers(if on { DEFAULT_OBSERVERS } else { 0 }));
        }
        let n = count(
            k,
            v,
            0,
            MAX_OBSERVERS,
            "the most observers by mail; on: 20, off: none",
        )?;
        // In 0..=MAX_OBSERVERS: it fits.
        Ok(Setting::Observers(u32::try_from(n).unwrap_or(0)))
    }),
    ("delay", |k, v| Ok(Setting::Delay(period(k, v)?))),
    ("absence-max-days", |k, v| {
        Ok(Setting::AbsenceMaxDays(count(
            k,
            v,
            1,
            MAX_ABSENCE_DAYS,
            "the longest absence, in days",
        )?))
    }),
    ("absences-per-year", |k, v| {
        Ok(Setting::AbsencesPerYear(count(
            k,
            v,
            0,
            MAX_ABSENCES_PER_YEAR,
            "absences a power may register per year",
        )?))
    }),
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

fn count(
    key: &'static str,
    value: &str,
    min: i64,
    max: i64,
    what: &'static str,
) -> Result<i64, SettingError> {
    value
        .trim()
        .parse::<i64>()
        .ok()
        .filter(|n| (min..=max).contains(n))
        .ok_or_else(|| SettingError::Count {
            key,
            value: value.trim().to_string(),
            min,
            max,
            what,
        })
}

/// Whether `key` (any case) is one of the settings' keys.
pub(crate) fn is_key(key: &str) -> bool {
    KEYS.iter().any(|(k, _)| k.eq_ignore_ascii_case(key.trim()))
}

/// Every setting of `game` as it stands, in the order of [`KEYS`]: what `game show` and LIST
/// show, in the words `game set` takes.
pub fn current(view: View<'_>, game: &Game) -> Result<Vec<Setting>, StoreError> {
    let seats = view.seat_rules(game.id)?;
    let timing = view.timing(game.id)?;
    Ok(vec![
        Setting::Movement(game.periods.movement),
        Setting::Retreat(game.periods.retreat),
        Setting::Winter(game.periods.winter),
        Setting::Grace(game.periods.grace),
        Setting::Remind(game.periods.remind),
        Setting::Zone(game.timezone.clone()),
        Setting::Wait(game.wait),
        Setting::Pictures(game.pictures),
        Setting::Press(game.press.mode),
        Setting::Anonymous(game.press.anonymous),
        Setting::GmCopy(game.press.gm_copy),
        Setting::Abandon(seats.abandon_after),
        Setting::Observers(seats.observers),
        Setting::Delay(timing.delay),
        Setting::AbsenceMaxDays(timing.absence_max_days),
        Setting::AbsencesPerYear(timing.absences_per_year),
    ])
}

/// The lines `game show` and LIST give the settings: `Settings: movement 48h, ...`, wrapped.
pub(crate) fn shown(view: View<'_>, game: &Game) -> Result<String, StoreError> {
    let mut out = String::from("Settings:");
    let mut width = out.len();
    let all = current(view, game)?;
    for (i, s) in all.iter().enumerate() {
        let item = format!(" {s}{}", if i + 1 < all.len() { "," } else { "" });
        if width + item.len() > 96 {
            out.push_str("\n ");
            width = 1;
        }
        width += item.len();
        out.push_str(&item);
    }
    out.push('\n');
    Ok(out)
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

    /// Its key, as `KEYS` names it.
    pub fn key(&self) -> &'static str {
        match self {
            Setting::Movement(_) => "movement",
            Setting::Retreat(_) => "retreat",
            Setting::Winter(_) => "winter",
            Setting::Grace(_) => "grace",
            Setting::Remind(_) => "remind",
            Setting::Zone(_) => "zone",
            Setting::Wait(_) => "wait",
            Setting::Pictures(_) => "pictures",
            Setting::Press(_) => "press",
            Setting::Anonymous(_) => "anonymous",
            Setting::GmCopy(_) => "gm-copy",
            Setting::Abandon(_) => "abandon",
            Setting::Observers(_) => "observers",
            Setting::Delay(_) => "delay",
            Setting::AbsenceMaxDays(_) => "absence-max-days",
            Setting::AbsencesPerYear(_) => "absences-per-year",
        }
    }

    /// Stores the setting in `tx`, in the row it lives in (and in `game` when it is one of
    /// the game row's): the one writer of every setting.
    pub(crate) fn apply(&self, tx: &Tx<'_>, game: &mut Game) -> Result<(), StoreError> {
        let id = game.id;
        let seats = |change: &dyn Fn(&mut SeatRules)| {
            let mut rules = tx.view().seat_rules(id)?;
            change(&mut rules);
            tx.set_seat_rules(id, rules)
        };
        let timing = |change: &dyn Fn(&mut Timing)| {
            let mut t = tx.view().timing(id)?;
            change(&mut t);
            tx.set_timing(id, &t)
        };
        match self {
            Setting::Abandon(n) => return seats(&|r| r.abandon_after = *n),
            Setting::Observers(n) => return seats(&|r| r.observers = *n),
            Setting::Delay(p) => return timing(&|t| t.delay = *p),
            Setting::AbsenceMaxDays(n) => return timing(&|t| t.absence_max_days = *n),
            Setting::AbsencesPerYear(n) => return timing(&|t| t.absences_per_year = *n),
            Setting::Movement(p) => game.periods.movement = *p,
            Setting::Retreat(p) => game.periods.retreat = *p,
            Setting::Winter(p) => game.periods.winter = *p,
            Setting::Grace(p) => game.periods.grace = *p,
            Setting::Remind(p) => game.periods.remind = *p,
            Setting::Zone(z) => game.timezone.clone_from(z),
            Setting::Wait(on) => game.wait = *on,
            Setting::Pictures(on) => game.pictures = *on,
            Setting::Press(mode) => game.press.mode = *mode,
            Setting::Anonymous(on) => game.press.anonymous = *on,
            Setting::GmCopy(on) => game.press.gm_copy = *on,
        }
        tx.set_settings(game)
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
            Setting::Press(m) => write!(f, "press {m}"),
            Setting::Anonymous(b) => write!(f, "anonymous {}", on(*b)),
            Setting::GmCopy(b) => write!(f, "gm-copy {}", on(*b)),
            Setting::Abandon(n) => write!(f, "abandon {n}"),
            Setting::Observers(0) => write!(f, "observers off"),
            Setting::Observers(DEFAULT_OBSERVERS) => write!(f, "observers on"),
            Setting::Observers(n) => write!(f, "observers {n}"),
            Setting::Delay(p) => write!(f, "delay {p}"),
            Setting::AbsenceMaxDays(n) => write!(f, "absence-max-days {n}"),
            Setting::AbsencesPerYear(n) => write!(f, "absences-per-year {n}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One reader for the shell's and the mail's settings; an unknown key gets the
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
             grace, remind, zone, wait, pictures, press, anonymous, gm-copy, abandon, observers, \
             delay, absence-max-days, absences-per-year"
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

    /// Issues 20 and 21: every setting is read back from the words it is shown in (`game show`,
    /// the notice, the GM action), by the key it names.
    #[test]
    fn every_setting_reads_back_from_its_words() {
        let all = [
            Setting::Movement(Period::hours(48)),
            Setting::Retreat(Period::hours(24)),
            Setting::Winter(Period::hours(36)),
            Setting::Grace(Period::default()),
            Setting::Remind(Period::hours(12)),
            Setting::Zone("Europe/Paris".into()),
            Setting::Wait(true),
            Setting::Pictures(false),
            Setting::Press(PressMode::Grey),
            Setting::Anonymous(true),
            Setting::GmCopy(false),
            Setting::Abandon(2),
            Setting::Observers(0),
            Setting::Delay(Period::hours(2)),
            Setting::AbsenceMaxDays(90),
            Setting::AbsencesPerYear(0),
        ];
        assert_eq!(
            all.iter().map(Setting::key).collect::<Vec<_>>(),
            KEYS.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
            "one of each key, in the order of KEYS"
        );
        for s in &all {
            let text = s.to_string();
            let (key, value) = text.split_once(' ').expect("KEY VALUE");
            assert_eq!(key, s.key());
            assert_eq!(Setting::parse(key, value).as_ref(), Ok(s), "{text}");
        }
    }

    /// Issues 20 and 21: the new keys' bad values say what to write, with their bounds.
    #[test]
    fn counts_and_press_options_name_what_to_write() {
        let said = |k: &str, v: &str| Setting::parse(k, v).map_err(|e| e.to_string());
        assert_eq!(
            said("press", "shades"),
            Err("'shades' is not a press option: write white, grey, public or none".into())
        );
        assert_eq!(
            said("abandon", "-1"),
            Err(
                "abandon -1: write a whole number from 0 to 99 (phases in a row without \
                 orders; 0: never)"
                    .into()
            )
        );
        assert_eq!(
            said("absence-max-days", "0"),
            Err(
                "absence-max-days 0: write a whole number from 1 to 90 (the longest absence, \
                 in days)"
                    .into()
            )
        );
        assert_eq!(
            said("ABSENCES-PER-YEAR", "53"),
            Err(
                "absences-per-year 53: write a whole number from 0 to 52 (absences a power \
                 may register per year)"
                    .into()
            )
        );
        assert_eq!(
            Setting::parse("absence-max-days", " 90"),
            Ok(Setting::AbsenceMaxDays(90))
        );
        assert!(matches!(
            Setting::parse("delay", "soon"),
            Err(SettingError::Value("delay", _))
        ));
        assert_eq!(Setting::parse("gm-copy", "ON"), Ok(Setting::GmCopy(true)));
    }

    /// Issue 31: `observers` is the most observers by mail; on and off, its old words, are
    /// the default (20) and none, and each number reads back from the words it is shown in.
    #[test]
    fn observers_is_a_number_with_on_and_off() {
        assert_eq!(
            Setting::parse("observers", "on"),
            Ok(Setting::Observers(DEFAULT_OBSERVERS))
        );
        assert_eq!(
            Setting::parse("observers", "OFF"),
            Ok(Setting::Observers(0))
        );
        for n in [0, 1, 20, 21, 1000] {
            let s = Setting::Observers(n);
            let text = s.to_string();
            let (_, value) = text.split_once(' ').expect("KEY VALUE");
            assert_eq!(Setting::parse("observers", value), Ok(s), "{text}");
        }
        assert_eq!(Setting::Observers(20).to_string(), "observers on");
        assert_eq!(
            Setting::parse("observers", "1001").map_err(|e| e.to_string()),
            Err(
                "observers 1001: write a whole number from 0 to 1000 (the most observers by \
                 mail; on: 20, off: none)"
                    .into()
            )
        );
    }
}
