//! What the judge's tests and benches share: a Napoleonic game with its five major powers
//! assigned and started.

use chrono::{DateTime, Utc};
use napjudge_judge::{Judge, NewGame, Period, Periods};

/// A day for every phase, an hour's grace, a reminder an hour before the deadline.
pub fn day_periods() -> Periods {
    Periods {
        movement: Period::hours(24),
        retreat: Period::hours(24),
        winter: Period::hours(24),
        grace: Period::hours(1),
        remind: Period::hours(1),
    }
}

/// What `game create` is given for game `name` on `variant`: the GM `gm@example.org`, deadlines
/// shown in UTC, `periods`, pictures on, no waiting, no rule switches, white press. A test changes
/// what it needs with `NewGame { field, ..new_game(..) }`.
pub fn new_game(name: &str, variant: &str, periods: Periods) -> NewGame {
    NewGame {
        name: name.into(),
        variant: variant.into(),
        gm: "gm@example.org".into(),
        timezone: "UTC".into(),
        periods,
        wait: false,
        options: Vec::new(),
        pictures: true,
        press: Default::default(),
    }
}

/// Creates game `name` on the napoleonic board (GM `gm@example.org`, deadlines shown in
/// `timezone`), assigns each major power to `address(power)` with the password `pw`, and starts it
/// (Winter 1800 bids), all at `now`.
pub fn start_five_players(
    j: &mut Judge,
    now: DateTime<Utc>,
    name: &str,
    timezone: &str,
    periods: Periods,
    address: impl Fn(&str) -> String,
) {
    j.create(
        &NewGame {
            timezone: timezone.into(),
            ..new_game(name, "napoleonic", periods)
        },
        now,
    )
    .expect("create");
    for p in ["Austria", "England", "France", "Prussia", "Russia"] {
        j.assign(name, p, &address(p), Some("pw"), now)
            .expect("assign");
    }
    j.start(name, now).expect("start");
}
