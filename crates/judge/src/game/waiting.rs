//! Waiting and absence: a player's SET WAIT / SET NOWAIT, the processing delay after the last
//! orders (njudge's DELAY), and SET ABSENCE: no deadline falls inside a registered absence, it
//! moves to the absence's end and everyone is told.

use super::{seats, GameError, Judge};
use crate::clock;
use crate::notice;
use crate::render::echo;
use crate::store::{Absence, Due, Game, GameState, Role, Tx, View};
use chrono::{DateTime, Datelike, NaiveDate, TimeZone, Utc};

/// How far ahead an absence may start, in days.
pub(super) const ABSENCE_AHEAD_DAYS: i64 = 365;

/// Why an absence is refused: each says what to write instead.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(crate) enum AbsenceError {
    /// Not `SET ABSENCE FROM TO`.
    #[error("write SET ABSENCE FROM TO with two days, such as SET ABSENCE 2026-07-10 2026-07-14 (SET ABSENCE alone lists yours, SET ABSENCE NONE clears them)")]
    Form,
    /// A day that can't be read.
    #[error("'{}' is not a day: write it as 2026-07-10", echo(.0))]
    Day(String),
    /// TO before FROM.
    #[error(
        "the absence ends ({to}) before it starts ({from}): write the first day, then the last"
    )]
    Backwards {
        /// The first day.
        from: String,
        /// The last day.
        to: String,
    },
    /// Starts before today.
    #[error("the absence starts on {from}, before today ({today}) in the game's zone: an absence can't be registered after the fact")]
    Past {
        /// The first day.
        from: String,
        /// Today.
        today: String,
    },
    /// Starts too far ahead.
    #[error("the absence starts more than {ABSENCE_AHEAD_DAYS} days from now: register it nearer the time")]
    TooFar,
    /// Longer than the GM allows.
    #[error("the absence is {days} days long; game '{game}' allows at most {max}: register a shorter one, or ask the GM")]
    TooLong {
        /// Its length.
        days: i64,
        /// The game.
        game: String,
        /// The GM's limit.
        max: i64,
    },
    /// One more than the GM allows in the year.
    #[error("{power} has registered {count} absences starting in {year}; game '{game}' allows {max} a year: ask the GM")]
    TooMany {
        /// The power.
        power: String,
        /// How many it has.
        count: i64,
        /// The year.
        year: i32,
        /// The game.
        game: String,
        /// The GM's limit.
        max: i64,
    },
}

/// A deadline moved out of absences: where it would have been, and where it is now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Moved {
    /// The deadline as computed.
    pub from: DateTime<Utc>,
    /// The end of the last absence it fell in.
    pub to: DateTime<Utc>,
}

/// `deadline`, or the end of the absence it falls in (again, should that end fall in
/// another): no deadline falls inside a registered absence. Absences of every player count:
/// a player away can't answer a retreat either.
pub(crate) fn clear_of(absences: &[Absence], deadline: DateTime<Utc>) -> DateTime<Utc> {
    let mut at = deadline;
    // Each pass moves the deadline to a later end; at most one pass per absence.
    for _ in 0..=absences.len() {
        match absences.iter().find(|a| a.start <= at && at < a.end) {
            Some(a) => at = a.end,
            None => break,
        }
    }
    at
}

/// The deadline a phase gets when `computed` is its period's end: moved out of the game's
/// absences, with the move when it moved (its notice is the caller's: [`tell_moved`]).
pub(crate) fn clear_deadline(
    tx: &Tx<'_>,
    game: &Game,
    computed: DateTime<Utc>,
) -> Result<(DateTime<Utc>, Option<Moved>), GameError> {
    let at = clear_of(&tx.view().absences(game.id)?, computed);
    let moved = (at != computed).then_some(Moved {
        from: computed,
        to: at,
    });
    Ok((at, moved))
}

/// [`clear_deadline`], with a notice to everyone when it moved (`phase` names the phase).
pub(crate) fn deadline_for(
    tx: &Tx<'_>,
    game: &Game,
    phase: &str,
    computed: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<DateTime<Utc>, GameError> {
    let (at, moved) = clear_deadline(tx, game, computed)?;
    if let Some(m) = moved {
        tell_moved(tx, game, phase, m, now)?;
    }
    Ok(at)
}

/// The notice of a deadline moved for an absence. It doesn't say whose: an absence is the
/// player's own business, and the GM sees them all in `game show`.
pub(crate) fn tell_moved(
    tx: &Tx<'_>,
    game: &Game,
    phase: &str,
    m: Moved,
    now: DateTime<Utc>,
) -> Result<usize, GameError> {
    let body = format!(
        "Game '{}': the deadline of {phase} would have fallen on {}, while a player is away \
         (SET ABSENCE).\nIt is moved to the end of the absence: {}.\n",
        game.name,
        clock::show_in(m.from, &game.timezone),
        clock::show_in(m.to, &game.timezone),
    );
    let subject = format!("{}: {phase}: deadline moved for an absence", game.name);
    Ok(notice::broadcast(
        tx,
        game,
        &notice::Broadcast::notice(&subject, &body),
        now,
    )?)
}

/// The first moment of `day` in `zone` (the hour after a gap, where midnight doesn't exist).
fn day_start(day: NaiveDate, zone: &str) -> Result<DateTime<Utc>, GameError> {
    let tz = clock::parse_zone(zone)?;
    let midnight = day.and_hms_opt(0, 0, 0).unwrap_or_default();
    let local = tz
        .from_local_datetime(&midnight)
        .earliest()
        .or_else(|| {
            tz.from_local_datetime(&(midnight + chrono::TimeDelta::hours(1)))
                .earliest()
        })
        .ok_or_else(|| GameError::Clock(clock::ClockError::Time(day.to_string())))?;
    Ok(local.with_timezone(&Utc))
}

/// Today in `zone`.
fn today(now: DateTime<Utc>, zone: &str) -> Result<NaiveDate, GameError> {
    Ok(clock::parse_zone(zone)?
        .from_utc_datetime(&now.naive_utc())
        .date_naive())
}

fn read_day(text: &str) -> Result<NaiveDate, AbsenceError> {
    NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .ok()
        .filter(|d| (1..=9998).contains(&d.year()))
        .ok_or_else(|| AbsenceError::Day(text.to_string()))
}

/// The two days of `SET ABSENCE FROM TO` (the words FROM and TO may be written).
pub(crate) fn read_absence(words: &str) -> Result<(NaiveDate, NaiveDate), AbsenceError> {
    let w: Vec<&str> = words
        .split_whitespace()
        .filter(|w| !w.eq_ignore_ascii_case("from") && !w.eq_ignore_ascii_case("to"))
        .collect();
    match w.as_slice() {
        [from, to] => Ok((read_day(from)?, read_day(to)?)),
        _ => Err(AbsenceError::Form),
    }
}

/// What SET ABSENCE did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AbsenceSet {
    /// The absence registered: its first moment and its end.
    pub start: DateTime<Utc>,
    /// Its end.
    pub end: DateTime<Utc>,
    /// The current deadline, when it moved.
    pub moved: Option<Moved>,
}

impl Judge {
    /// A player's SET WAIT (`wait`) or SET NOWAIT: whether a phase the player owes orders in
    /// waits for its deadline once everyone has ordered.
    pub fn set_wait(&mut self, name: &str, power: &str, wait: bool) -> Result<(), GameError> {
        let tx = self.store.begin()?;
        let game = Judge::game(tx.view(), name)?;
        Judge::refuse_ended(tx.view(), &game)?;
        let mut c = tx.view().choice(game.id, power)?;
        c.wait = Some(wait);
        tx.set_choices(game.id, power, &c)?;
        tx.commit()?;
        Ok(())
    }

    /// Whether `power` waits for the deadline: its own SET WAIT/NOWAIT, else the game's `wait`.
    pub(crate) fn waits(view: View<'_>, game: &Game, power: &str) -> Result<bool, GameError> {
        Ok(view.choice(game.id, power)?.wait.unwrap_or(game.wait))
    }

    /// SET ABSENCE FROM TO: `power` is away from the first moment of `from` to the end of `to`
    /// (days in the game's zone), within the GM's limits. The current deadline moves out of it
    /// at once (with a notice); later ones as they are set.
    pub(crate) fn add_absence(
        &mut self,
        name: &str,
        power: &str,
        (from, to): (NaiveDate, NaiveDate),
        now: DateTime<Utc>,
    ) -> Result<Result<AbsenceSet, AbsenceError>, GameError> {
        let tx = self.store.begin()?;
        let game = Judge::game(tx.view(), name)?;
        Judge::refuse_ended(tx.view(), &game)?;
        let timing = tx.view().timing(game.id)?;
        let today = today(now, &game.timezone)?;
        let days = (to - from).num_days().saturating_add(1);
        let refusal = if to < from {
            Some(AbsenceError::Backwards {
                from: from.to_string(),
                to: to.to_string(),
            })
        } else if from < today {
            Some(AbsenceError::Past {
                from: from.to_string(),
                today: today.to_string(),
            })
        } else if (from - today).num_days() > ABSENCE_AHEAD_DAYS {
            Some(AbsenceError::TooFar)
        } else if days > timing.absence_max_days {
            Some(AbsenceError::TooLong {
                days,
                game: game.name.clone(),
                max: timing.absence_max_days,
            })
        } else {
            None
        };
        if let Some(r) = refusal {
            return Ok(Err(r));
        }
        let tz = clock::parse_zone(&game.timezone)?;
        let year = |t: DateTime<Utc>| tz.from_utc_datetime(&t.naive_utc()).year();
        let count = tx
            .view()
            .absences(game.id)?
            .iter()
            .filter(|a| a.power == power && year(a.start) == from.year())
            .count() as i64;
        if count >= timing.absences_per_year {
            return Ok(Err(AbsenceError::TooMany {
                power: power.to_string(),
                count,
                year: from.year(),
                game: game.name.clone(),
                max: timing.absences_per_year,
            }));
        }
        let start = day_start(from, &game.timezone)?;
        let end = day_start(to.succ_opt().unwrap_or(to), &game.timezone)?;
        tx.add_absence(game.id, power, start, end, now)?;
        let mut moved = None;
        if game.state != GameState::Forming {
            if let (Some(phase), Ok(v)) = (
                tx.view().current_phase(game.id)?,
                super::variant(&mut self.variants, &game),
            ) {
                if let Some(d) = phase.deadline {
                    let at = clear_of(&tx.view().absences(game.id)?, d);
                    if at != d {
                        tx.set_deadline(phase.id, Some(at))?;
                        let m = Moved { from: d, to: at };
                        tell_moved(&tx, &game, &v.phase_name(phase.position.phase), m, now)?;
                        moved = Some(m);
                    }
                }
            }
        }
        tx.commit()?;
        Ok(Ok(AbsenceSet { start, end, moved }))
    }

    /// SET ABSENCE NONE: drops `power`'s absences that have not ended; how many. (Those that
    /// ended stay, and count in their year.)
    pub(crate) fn clear_absences(
        &mut self,
        name: &str,
        power: &str,
        now: DateTime<Utc>,
    ) -> Result<usize, GameError> {
        let tx = self.store.begin()?;
        let game = Judge::game(tx.view(), name)?;
        Judge::refuse_ended(tx.view(), &game)?;
        let n = tx.clear_absences(game.id, power, now)?;
        tx.commit()?;
        Ok(n)
    }

    /// The absences of `power` (every power's, when none) that have not ended by `now`.
    pub(crate) fn absences(
        &self,
        game: &Game,
        power: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<Vec<Absence>, GameError> {
        Ok(self
            .store
            .view()
            .absences(game.id)?
            .into_iter()
            .filter(|a| a.end > now && power.is_none_or(|p| a.power == p))
            .collect())
    }

    /// When the phase may be processed before its deadline, if it may: every seated power
    /// owing orders has them in, none of them waits (SET WAIT, or the game's `wait`) or has
    /// orders with a line refused (it was told of an error it may still fix), and then the
    /// `delay` after the phase's latest orders or CLEAR. The tick and the acknowledgement both
    /// ask this, so what a player is told is what the tick does.
    pub(crate) fn early_at(&self, due: &Due) -> Result<Option<DateTime<Utc>>, GameError> {
        let view = self.store.view();
        let unordered: Vec<String> = due
            .owe
            .iter()
            .filter(|p| !due.ordered.contains(p))
            .cloned()
            .collect();
        if !seats::seated(view, due.game.id, unordered)?.is_empty() {
            return Ok(None);
        }
        for p in &due.owe {
            if due.flawed.contains(p) || Judge::waits(view, &due.game, p)? {
                return Ok(None);
            }
        }
        let delay = view.timing(due.game.id)?.delay;
        Ok(Some(match view.last_orders_at(due.phase)? {
            Some(last) => clock::after(last, delay.secs())?,
            // No orders to wait after: at once.
            None => DateTime::<Utc>::MIN_UTC,
        }))
    }

    /// What `power`'s reply says of when the current phase will be processed, if anything.
    pub(crate) fn outlook(&self, game: &Game, power: &str) -> Result<Option<Outlook>, GameError> {
        let Some(due) = self.store.view().due(Some(game.id))?.pop() else {
            return Ok(None);
        };
        if !due.owe.iter().any(|p| p == power) {
            return Ok(None);
        }
        if due.flawed.iter().any(|p| p == power) {
            return Ok(Some(Outlook::WaitsForYou {
                deadline: due.deadline,
            }));
        }
        Ok(self
            .early_at(&due)?
            .filter(|at| *at < due.deadline)
            .map(|at| Outlook::Early { at }))
    }
}

/// When a phase will be processed, as a power's reply says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outlook {
    /// Everyone has ordered: processed at `at` (the tick after it) unless orders change.
    Early {
        /// The latest orders plus the `delay`.
        at: DateTime<Utc>,
    },
    /// The power's orders had a line refused: the phase waits for its next orders, or the
    /// deadline.
    WaitsForYou {
        /// The phase's deadline.
        deadline: DateTime<Utc>,
    },
}

/// What LIST and `game show` add about waiting and absences (the game's limits are among its
/// settings): a player sees their own choices (a draw vote or a concession too, which no one
/// else sees); the GM sees who waits and every absence, never the votes.
pub(crate) fn show_lines(
    view: View<'_>,
    game: &Game,
    viewer: Option<&Role>,
) -> Result<String, GameError> {
    let mut out = String::new();
    let when = |a: &Absence| {
        format!(
            "from {} to {}",
            clock::show_in(a.start, &game.timezone),
            clock::show_in(a.end, &game.timezone)
        )
    };
    let absences = view.absences(game.id)?;
    match viewer {
        Some(Role::Power(me)) => {
            let c = view.choice(game.id, me)?;
            if c.wait.unwrap_or(game.wait) {
                out.push_str("You wait for the deadline (SET NOWAIT to let the phase go once everyone has ordered)\n");
            }
            if c.draw {
                out.push_str("Your vote: a draw (secret; SET NODRAW takes it back)\n");
            }
            if let Some(to) = &c.concede {
                out.push_str(&format!(
                    "You concede to {to} (SET CONCEDE NONE takes it back)\n"
                ));
            }
            for a in absences.iter().filter(|a| &a.power == me) {
                out.push_str(&format!("Your absence: {}\n", when(a)));
            }
        }
        _ => {
            let waiting: Vec<String> = view
                .choices(game.id)?
                .into_iter()
                .filter(|(_, c)| c.wait == Some(true))
                .map(|(p, _)| p)
                .collect();
            if !waiting.is_empty() {
                out.push_str(&format!("Wait for the deadline: {}\n", waiting.join(", ")));
            }
            for a in &absences {
                out.push_str(&format!("Absence: {} {}\n", a.power, when(a)));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(t: &str) -> DateTime<Utc> {
        clock::parse_time(t).expect("a time")
    }

    fn away(start: &str, end: &str) -> Absence {
        Absence {
            id: 0,
            power: "France".into(),
            start: at(start),
            end: at(end),
        }
    }

    /// No deadline falls inside an absence; one that ends inside another moves on.
    #[test]
    fn a_deadline_moves_to_the_end_of_the_absences_it_falls_in() {
        let a = [
            away("2026-07-10 00:00", "2026-07-15 00:00"),
            away("2026-07-14 00:00", "2026-07-20 00:00"),
        ];
        assert_eq!(clear_of(&a, at("2026-07-09 18:00")), at("2026-07-09 18:00"));
        assert_eq!(clear_of(&a, at("2026-07-11 18:00")), at("2026-07-20 00:00"));
        assert_eq!(clear_of(&a, at("2026-07-20 00:00")), at("2026-07-20 00:00"));
    }

    /// SET ABSENCE reads two days, with or without FROM and TO.
    #[test]
    fn absences_are_read_as_two_days() {
        let d = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").expect("a day");
        assert_eq!(
            read_absence("FROM 2026-07-10 TO 2026-07-14"),
            Ok((d("2026-07-10"), d("2026-07-14")))
        );
        assert_eq!(
            read_absence("2026-07-10 2026-07-14"),
            Ok((d("2026-07-10"), d("2026-07-14")))
        );
        assert_eq!(read_absence("2026-07-10"), Err(AbsenceError::Form));
        assert_eq!(
            read_absence("2026-07-10 tomorrow"),
            Err(AbsenceError::Day("tomorrow".into()))
        );
    }
}
