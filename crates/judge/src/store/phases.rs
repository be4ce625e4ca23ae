//! Phases and orders: each phase of a game with its position, report and deadline, the order
//! texts and CLEARs received in it, and the GM's actions.

use super::{
    exec, from_json, game_row, json, read_opt_time, read_time, row, time, Author, Game, Reminded,
    StoreError, Tx, View, GAME_COLUMNS,
};
use chrono::{DateTime, Utc};
use napjudge_engine::position::Position;
use napjudge_engine::turn::PhaseReport;
use rusqlite::{params, OptionalExtension, Row};
use std::cell::RefCell;

/// A GM's shell command that changed a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShellStep {
    /// When it ran.
    pub at: DateTime<Utc>,
    /// Its napjudge arguments: `["game", "resume", "life"]`.
    pub args: Vec<String>,
    /// What it read on its standard input (`game orders`' orders), if it read any.
    pub input: Option<String>,
}

/// A shell step as stored in `gm_actions.shell`: its arguments, or with its input, both.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
enum StoredShell {
    Args(Vec<String>),
    WithInput { args: Vec<String>, input: String },
}

/// A phase of a game: its position, and once played its report.
#[derive(Clone, Debug, PartialEq)]
pub struct PhaseRow {
    /// Row id.
    pub id: i64,
    /// Its place in the game's history (rolled-back phases keep theirs).
    pub seq: i64,
    /// The position to play.
    pub position: Position,
    /// The report, once processed.
    pub report: Option<PhaseReport>,
    /// When orders are due.
    pub deadline: Option<DateTime<Utc>>,
    /// When it was processed.
    pub processed_at: Option<DateTime<Utc>>,
    /// When it became current (none: stored before schema version 10).
    pub started: Option<DateTime<Utc>>,
    /// Reminders sent.
    pub reminded: Reminded,
    /// Whether a rollback set it aside (kept as history).
    pub superseded: bool,
    /// Powers that ordered after the deadline (names).
    pub late: Vec<String>,
    /// Powers that never ordered and got the defaults (names).
    pub missing: Vec<String>,
}

/// One order text received, or a CLEAR.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderText {
    /// The power's name.
    pub power: String,
    /// The text as received; for a CLEAR, the text it cleared.
    pub text: String,
    /// When.
    pub received: DateTime<Utc>,
    /// Who entered it.
    pub by: Author,
    /// A CLEAR: from it on the power has no orders in the phase.
    pub cleared: bool,
    /// The text these orders came in had a line refused: the power is told of an error it may
    /// still fix, so the phase waits for its next orders (or the deadline).
    pub flawed: bool,
}

const PHASE_COLUMNS: &str =
    "id, seq, position, report, deadline, processed_at, reminded, superseded, late, missing, \
     started";

fn phase_row(r: &Row) -> rusqlite::Result<RawPhase> {
    Ok(RawPhase {
        id: r.get(0)?,
        seq: r.get(1)?,
        position: r.get(2)?,
        report: r.get(3)?,
        deadline: r.get(4)?,
        processed_at: r.get(5)?,
        reminded: r.get(6)?,
        superseded: r.get(7)?,
        late: r.get(8)?,
        missing: r.get(9)?,
        started: r.get(10)?,
    })
}

struct RawPhase {
    id: i64,
    seq: i64,
    position: String,
    report: Option<String>,
    deadline: Option<String>,
    processed_at: Option<String>,
    reminded: Reminded,
    superseded: bool,
    late: String,
    missing: String,
    started: Option<String>,
}

thread_local! {
    /// The position last read, with its stored text: answering one mail reads the current
    /// phase four or five times (sign-on, orders, press, the tick), the same text each time, and
    /// parsing it again was a fifth of a replay's instructions (issue 35). Kept per thread, as a
    /// connection is used by one thread at a time.
    static LAST_POSITION: RefCell<Option<(String, Position)>> = const { RefCell::new(None) };
}

/// The position stored as `text`: the one last read when the text is the same, else parsed.
fn read_position(text: String) -> Result<Position, StoreError> {
    LAST_POSITION.with_borrow_mut(|last| {
        if let Some((_, position)) = last.as_ref().filter(|(seen, _)| *seen == text) {
            return Ok(position.clone());
        }
        let position: Position = from_json("position", &text)?;
        *last = Some((text, position.clone()));
        Ok(position)
    })
}

impl RawPhase {
    fn read(self) -> Result<PhaseRow, StoreError> {
        Ok(PhaseRow {
            id: self.id,
            seq: self.seq,
            position: read_position(self.position)?,
            report: self
                .report
                .map(|r| from_json("phase report", &r))
                .transpose()?,
            deadline: read_opt_time(self.deadline)?,
            processed_at: read_opt_time(self.processed_at)?,
            started: read_opt_time(self.started)?,
            reminded: self.reminded,
            superseded: self.superseded,
            late: from_json("list of late powers", &self.late)?,
            missing: from_json("list of missing powers", &self.missing)?,
        })
    }
}

/// What `tick` needs to know of a running game's current phase, without reading its position.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Due {
    /// The game.
    pub game: Game,
    /// The phase's row id.
    pub phase: i64,
    /// Its deadline.
    pub deadline: DateTime<Utc>,
    /// Reminders sent.
    pub reminded: Reminded,
    /// Powers owing orders.
    pub owe: Vec<String>,
    /// Powers that have orders in.
    pub ordered: Vec<String>,
    /// Of those, the powers whose orders had a line refused (`OrderText::flawed`).
    pub flawed: Vec<String>,
}

/// The latest row of each power in a phase (a CLEAR included).
const LATEST_ORDERS: &str = "SELECT power, text, received, by, cleared, flawed FROM orders o
     WHERE phase = ?1 AND id = (SELECT MAX(id) FROM orders WHERE phase = ?1 AND power = o.power)
     ORDER BY power";

impl View<'_> {
    /// The phase to play next: the game's unprocessed, current phase.
    pub fn current_phase(&self, game: i64) -> Result<Option<PhaseRow>, StoreError> {
        row(
            self.0,
            &format!(
                "SELECT {PHASE_COLUMNS} FROM phases
                     WHERE game = ?1 AND report IS NULL AND superseded = 0
                     ORDER BY seq DESC LIMIT 1"
            ),
            [game],
            phase_row,
        )
        .optional()?
        .map(RawPhase::read)
        .transpose()
    }

    /// Every running game's current phase that has a deadline (only `game`'s, when given), by
    /// game name: one query.
    pub(crate) fn due(&self, game: Option<i64>) -> Result<Vec<Due>, StoreError> {
        let columns = GAME_COLUMNS
            .split(", ")
            .map(|col| format!("g.{col}"))
            .collect::<Vec<_>>();
        // The phase's columns follow the game's.
        let n = columns.len();
        let columns = columns.join(", ");
        // A power has orders in when its latest row is not a CLEAR.
        let mut st = self.0.prepare_cached(&format!(
            "SELECT {columns}, p.id, p.deadline, p.reminded, p.owe,
                    (SELECT json_group_array(DISTINCT power) FROM orders o
                     WHERE o.phase = p.id AND o.cleared = 0
                       AND o.id = (SELECT MAX(id) FROM orders
                                   WHERE phase = p.id AND power = o.power)),
                    (SELECT json_group_array(DISTINCT power) FROM orders o
                     WHERE o.phase = p.id AND o.cleared = 0 AND o.flawed = 1
                       AND o.id = (SELECT MAX(id) FROM orders
                                   WHERE phase = p.id AND power = o.power))
             FROM games g JOIN phases p ON p.game = g.id AND p.report IS NULL AND p.superseded = 0
             WHERE g.state = 'running' AND p.deadline IS NOT NULL AND (?1 IS NULL OR g.id = ?1)
             ORDER BY g.name"
        ))?;
        type Raw = (Game, i64, String, Reminded, String, String, String);
        let raw: Vec<Raw> = st
            .query_map([game], |r| {
                Ok((
                    game_row(r)?,
                    r.get(n)?,
                    r.get(n + 1)?,
                    r.get(n + 2)?,
                    r.get(n + 3)?,
                    r.get(n + 4)?,
                    r.get(n + 5)?,
                ))
            })?
            .collect::<Result<_, _>>()?;
        raw.into_iter()
            .map(|(game, phase, deadline, reminded, owe, ordered, flawed)| {
                Ok(Due {
                    game,
                    phase,
                    deadline: read_time(&deadline)?,
                    reminded,
                    owe: from_json("list of powers owing orders", &owe)?,
                    ordered: from_json("list of powers that ordered", &ordered)?,
                    flawed: from_json("list of powers whose orders had an error", &flawed)?,
                })
            })
            .collect()
    }

    /// Every phase of the game, history included, oldest first.
    pub fn phases(&self, game: i64) -> Result<Vec<PhaseRow>, StoreError> {
        self.phases_from(game, 0)
    }

    /// Whether a rollback set aside a processed phase of the game (then a phase played again
    /// may replace results mailed before).
    pub(crate) fn rolled_back(&self, game: i64) -> Result<bool, StoreError> {
        Ok(row(
            self.0,
            "SELECT EXISTS (SELECT 1 FROM phases
                            WHERE game = ?1 AND superseded = 1 AND report IS NOT NULL)",
            params![game],
            |r| r.get(0),
        )?)
    }

    /// The phases of the game from `seq` on, history included, oldest first (a replay reads
    /// each processed phase once).
    pub fn phases_from(&self, game: i64, seq: i64) -> Result<Vec<PhaseRow>, StoreError> {
        let mut st = self.0.prepare_cached(&format!(
            "SELECT {PHASE_COLUMNS} FROM phases WHERE game = ?1 AND seq >= ?2 ORDER BY seq"
        ))?;
        let raw: Vec<RawPhase> = st
            .query_map(params![game, seq], phase_row)?
            .collect::<Result<_, _>>()?;
        raw.into_iter().map(RawPhase::read).collect()
    }

    /// The orders in force in a phase: each power's latest text, by power name (a power whose
    /// latest row is a CLEAR has none).
    pub fn latest_orders(&self, phase: i64) -> Result<Vec<OrderText>, StoreError> {
        Ok(self
            .latest_rows(phase)?
            .into_iter()
            .filter(|t| !t.cleared)
            .collect())
    }

    /// Each power's latest row of a phase, its orders or a CLEAR, by power name.
    pub(crate) fn latest_rows(&self, phase: i64) -> Result<Vec<OrderText>, StoreError> {
        self.order_texts(LATEST_ORDERS, phase)
    }

    /// Every order text and CLEAR of a phase, oldest first: its history.
    pub fn all_orders(&self, phase: i64) -> Result<Vec<OrderText>, StoreError> {
        self.order_texts(
            "SELECT power, text, received, by, cleared, flawed FROM orders WHERE phase = ?1 \
             ORDER BY id",
            phase,
        )
    }

    fn order_texts(&self, sql: &str, phase: i64) -> Result<Vec<OrderText>, StoreError> {
        let mut st = self.0.prepare_cached(sql)?;
        let raw: Vec<(String, String, String, Author, bool, bool)> = st
            .query_map([phase], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                ))
            })?
            .collect::<Result<_, _>>()?;
        raw.into_iter()
            .map(|(power, text, received, by, cleared, flawed)| {
                Ok(OrderText {
                    power,
                    text,
                    received: read_time(&received)?,
                    by,
                    cleared,
                    flawed,
                })
            })
            .collect()
    }

    /// The GM's shell commands that changed the game (`Judge::record_shell`), oldest first:
    /// when, and the napjudge arguments.
    pub fn shell_steps(&self, game: i64) -> Result<Vec<ShellStep>, StoreError> {
        let mut st = self.0.prepare_cached(
            "SELECT at, shell FROM gm_actions WHERE game = ?1 AND shell IS NOT NULL ORDER BY id",
        )?;
        let rows = st.query_map([game], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        })?;
        rows.map(|r| {
            let (at, shell) = r?;
            let (args, input) = match from_json("a shell step", &shell)? {
                StoredShell::Args(args) => (args, None),
                StoredShell::WithInput { args, input } => (args, Some(input)),
            };
            Ok(ShellStep {
                at: read_time(&at)?,
                args,
                input,
            })
        })
        .collect()
    }

    /// The GM commands (`CONTROL Denmark France`) for a phase, in the order given.
    pub(crate) fn gm_commands(&self, phase: i64) -> Result<Vec<String>, StoreError> {
        let mut st = self.0.prepare_cached(
            "SELECT command FROM gm_actions WHERE phase = ?1 AND command IS NOT NULL ORDER BY id",
        )?;
        let rows = st.query_map([phase], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

impl Tx<'_> {
    /// Adds a phase to play, with the powers that owe orders in it; its id.
    pub(crate) fn insert_phase(
        &self,
        game: i64,
        position: &Position,
        owe: &[String],
        deadline: Option<DateTime<Utc>>,
        now: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        let seq: i64 = row(
            &self.0,
            "SELECT COALESCE(MAX(seq), 0) + 1 FROM phases WHERE game = ?1",
            [game],
            |r| r.get(0),
        )?;
        exec(
            &self.0,
            "INSERT INTO phases (game, seq, position, owe, deadline, started)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                game,
                seq,
                json(position),
                json(&owe),
                deadline.map(time),
                time(now)
            ],
        )?;
        Ok(self.0.last_insert_rowid())
    }

    /// Stores a phase's outcome; false when it was already processed (another process got
    /// there first), so that the caller rolls back.
    pub(crate) fn finish_phase(
        &self,
        phase: i64,
        report: &PhaseReport,
        now: DateTime<Utc>,
        late: &[String],
        missing: &[String],
    ) -> Result<bool, StoreError> {
        let n = exec(
            &self.0,
            "UPDATE phases SET report = ?2, processed_at = ?3, late = ?4, missing = ?5
             WHERE id = ?1 AND report IS NULL AND superseded = 0",
            params![phase, json(report), time(now), json(&late), json(&missing)],
        )?;
        Ok(n == 1)
    }

    /// Sets a phase's deadline (and forgets its reminders).
    pub(crate) fn set_deadline(
        &self,
        phase: i64,
        deadline: Option<DateTime<Utc>>,
    ) -> Result<(), StoreError> {
        exec(
            &self.0,
            "UPDATE phases SET deadline = ?2, reminded = ?3 WHERE id = ?1",
            params![phase, deadline.map(time), Reminded::None],
        )?;
        Ok(())
    }

    /// Records the reminders sent for a phase.
    pub(crate) fn set_reminded(&self, phase: i64, reminded: Reminded) -> Result<(), StoreError> {
        exec(
            &self.0,
            "UPDATE phases SET reminded = ?2 WHERE id = ?1",
            params![phase, reminded],
        )?;
        Ok(())
    }

    /// Sets aside every phase of the game from `seq` on (kept as history).
    pub(crate) fn supersede_from(&self, game: i64, seq: i64) -> Result<(), StoreError> {
        exec(
            &self.0,
            "UPDATE phases SET superseded = 1 WHERE game = ?1 AND seq >= ?2",
            params![game, seq],
        )?;
        Ok(())
    }

    /// Stores an order text (or, with `cleared`, a CLEAR of the text given) for a power in a
    /// phase; earlier rows are kept, the latest is in force.
    pub(crate) fn add_orders(&self, phase: i64, t: &OrderText) -> Result<(), StoreError> {
        exec(
            &self.0,
            "INSERT INTO orders (phase, power, text, received, by, cleared, flawed)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                phase,
                t.power,
                t.text,
                time(t.received),
                t.by,
                t.cleared,
                t.flawed
            ],
        )?;
        Ok(())
    }

    /// Records a GM's shell command that changed the game, by its napjudge arguments and what
    /// it read on its standard input.
    pub(crate) fn add_shell_step(
        &self,
        game: i64,
        args: &[String],
        input: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let stored = match input {
            None => StoredShell::Args(args.to_vec()),
            Some(input) => StoredShell::WithInput {
                args: args.to_vec(),
                input: input.to_string(),
            },
        };
        exec(
            &self.0,
            "INSERT INTO gm_actions (game, action, shell, at) VALUES (?1, ?2, ?3, ?4)",
            params![
                game,
                format!("at the shell: napjudge {}", args.join(" ")),
                json(&stored),
                time(now)
            ],
        )?;
        Ok(())
    }

    /// Records a GM action; `command` is carried into the phase's GM commands.
    pub(crate) fn add_gm_action(
        &self,
        game: i64,
        phase: Option<i64>,
        action: &str,
        command: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        exec(
            &self.0,
            "INSERT INTO gm_actions (game, phase, action, command, at) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![game, phase, action, command, time(now)],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use napjudge_engine::variant::{load_named, Phase, PhaseKind, Season};

    /// Issue 35: the position kept from the last read is given back only for the same text; a
    /// different text is parsed, and the kept one then replaced.
    #[test]
    fn a_position_is_reused_only_for_the_same_text() {
        let variant = load_named("standard").expect("the standard board");
        let at = |year, kind| {
            Position::empty(
                &variant,
                Phase {
                    year,
                    season: Season::Spring,
                    kind,
                },
            )
        };
        let spring = at(1901, PhaseKind::Movement);
        let retreat = at(1901, PhaseKind::Retreat);
        for p in [&spring, &spring, &retreat, &spring, &retreat, &retreat] {
            let text = serde_json::to_string(p).expect("json");
            assert_eq!(&read_position(text).expect("reads"), p);
        }
        assert!(
            read_position("{}".into()).is_err(),
            "a text that is no position"
        );
    }
}
