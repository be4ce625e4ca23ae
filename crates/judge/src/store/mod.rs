//! The judge's SQLite file: games, players, phases (position and report as JSON), order texts, GM
//! actions, press and the outbox. One [`Store`] per open file; the game service runs every change
//! inside one transaction of it.

mod schema;

use chrono::{DateTime, Utc};
use napjudge_engine::position::Position;
use napjudge_engine::turn::PhaseReport;
use rusqlite::{params, Connection, OptionalExtension, Row};
use std::path::Path;

pub use schema::VERSION;

/// Why the store can't do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite refused (a locked, unreadable or damaged file).
    #[error("database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A stored position or report doesn't read back: the file was changed by hand or is damaged.
    #[error(
        "database: a stored {what} doesn't read back ({source}); restore the file from a backup"
    )]
    Json {
        /// What was being read.
        what: &'static str,
        /// Why.
        source: serde_json::Error,
    },
    /// The file was written by a newer napjudge.
    #[error("database {path}: schema version {found} is newer than this napjudge's {supported}; use a newer napjudge")]
    Newer {
        /// The file.
        path: String,
        /// Its schema version.
        found: i64,
        /// The newest this program knows.
        supported: i64,
    },
    /// A stored time doesn't read back.
    #[error("database: a stored time '{0}' is not RFC 3339; restore the file from a backup")]
    Time(String),
}

/// An open judge database.
pub struct Store {
    /// The connection; the service opens its transactions on it.
    pub conn: Connection,
}

impl Store {
    /// Opens (creating it if needed) the database at `path`, in WAL mode, migrated to [`VERSION`].
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let mut conn = Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        schema::migrate(&mut conn, &path.display().to_string())?;
        Ok(Store { conn })
    }
}

/// A game's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameState {
    /// Created, players being assigned.
    Forming,
    /// Phases are being played.
    Running,
    /// The GM paused it: no deadline runs, `tick` leaves it.
    Paused,
    /// A major won (R7.10).
    Finished,
}

impl GameState {
    fn word(self) -> &'static str {
        match self {
            GameState::Forming => "forming",
            GameState::Running => "running",
            GameState::Paused => "paused",
            GameState::Finished => "finished",
        }
    }

    fn parse(word: &str) -> GameState {
        match word {
            "running" => GameState::Running,
            "paused" => GameState::Paused,
            "finished" => GameState::Finished,
            _ => GameState::Forming,
        }
    }
}

impl std::fmt::Display for GameState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.word())
    }
}

/// The periods of a game, in seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Periods {
    /// A movement phase.
    pub movement: i64,
    /// A retreat phase.
    pub retreat: i64,
    /// A Winter (adjustments, bids).
    pub winter: i64,
    /// The grace after a deadline.
    pub grace: i64,
    /// How long before the deadline the reminder goes.
    pub remind: i64,
}

/// A game as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    /// Row id.
    pub id: i64,
    /// Its name.
    pub name: String,
    /// The variant's name (`napoleonic`).
    pub variant: String,
    /// The GM's address.
    pub gm: String,
    /// The IANA time zone deadlines are shown in.
    pub timezone: String,
    /// The periods.
    pub periods: Periods,
    /// Whether a phase waits for its deadline even when everyone has ordered.
    pub wait: bool,
    /// Its state.
    pub state: GameState,
    /// Whether result mails carry a picture of the board (the GM's switch).
    pub pictures: bool,
    /// The rule switches it is played with, `NAME=on|off` (`webdiplomacy=on`).
    pub options: Vec<String>,
}

/// A player of a power.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Player {
    /// The power's name.
    pub power: String,
    /// The player's address.
    pub address: String,
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
    /// Reminders sent: 0 none, 1 before the deadline, 2 at the start of the grace.
    pub reminded: i64,
    /// Whether a rollback set it aside (kept as history).
    pub superseded: bool,
    /// Powers that ordered after the deadline (names).
    pub late: Vec<String>,
    /// Powers that never ordered and got the defaults (names).
    pub missing: Vec<String>,
}

/// One order text received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderText {
    /// The power's name.
    pub power: String,
    /// The text as received.
    pub text: String,
    /// When.
    pub received: DateTime<Utc>,
    /// Who entered it: `player` or `gm`.
    pub by: String,
}

/// A mail in the outbox.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mail {
    /// Row id (also the .eml file's name).
    pub id: i64,
    /// The game's name.
    pub game: String,
    /// What kind of mail (`results`, `reminder`, `password`).
    pub kind: String,
    /// The recipient.
    pub to: String,
    /// The subject.
    pub subject: String,
    /// The body, plain text.
    pub body: String,
    /// `queued`, `sent`, `failed` (to be retried) or `undeliverable` (given up).
    pub state: String,
    /// The last error, when it failed.
    pub error: Option<String>,
    /// Tries so far.
    pub tries: i64,
    /// When it was queued.
    pub created: DateTime<Utc>,
    /// Its Message-ID, fixed at the first try.
    pub message_id: Option<String>,
    /// Not tried again before this (back-off after a failure).
    pub next_try: Option<DateTime<Utc>>,
    /// The picture it carries (a phase's, see [`picture`]).
    pub picture: Option<i64>,
    /// The Message-ID (without brackets) of the mail it answers.
    pub in_reply_to: Option<String>,
}

/// A new mail for [`queue_mail`].
pub struct NewMail<'a> {
    /// The game (none for a reply to mail that names no game).
    pub game: Option<i64>,
    /// The phase it belongs to, if any.
    pub phase: Option<i64>,
    /// What kind of mail.
    pub kind: &'a str,
    /// The recipient.
    pub to: &'a str,
    /// The subject.
    pub subject: &'a str,
    /// The body.
    pub body: &'a str,
    /// The Message-ID (without brackets) of the mail it answers, for a reply.
    pub in_reply_to: Option<&'a str>,
}

fn time(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

fn read_time(s: &str) -> Result<DateTime<Utc>, StoreError> {
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|_| StoreError::Time(s.to_string()))
}

fn read_opt_time(s: Option<String>) -> Result<Option<DateTime<Utc>>, StoreError> {
    s.map(|s| read_time(&s)).transpose()
}

fn json<T: serde::Serialize>(value: &T) -> String {
    // Serialising our own plain types can't fail (no maps with non-string keys are written as
    // JSON maps: PowerId keys serialise as numbers in strings).
    serde_json::to_string(value).unwrap_or_default()
}

fn from_json<T: serde::de::DeserializeOwned>(what: &'static str, s: &str) -> Result<T, StoreError> {
    serde_json::from_str(s).map_err(|source| StoreError::Json { what, source })
}

const GAME_COLUMNS: &str = "id, name, variant, gm, timezone, movement, retreat, winter, grace, \
                            remind, wait, state, pictures, options";

fn game_row(r: &Row) -> rusqlite::Result<Game> {
    Ok(Game {
        id: r.get(0)?,
        name: r.get(1)?,
        variant: r.get(2)?,
        gm: r.get(3)?,
        timezone: r.get(4)?,
        periods: Periods {
            movement: r.get(5)?,
            retreat: r.get(6)?,
            winter: r.get(7)?,
            grace: r.get(8)?,
            remind: r.get(9)?,
        },
        wait: r.get(10)?,
        state: GameState::parse(&r.get::<_, String>(11)?),
        pictures: r.get(12)?,
        options: serde_json::from_str(&r.get::<_, String>(13)?).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(13, rusqlite::types::Type::Text, Box::new(e))
        })?,
    })
}

/// Adds a game; its id.
pub fn insert_game(c: &Connection, g: &Game, now: DateTime<Utc>) -> Result<i64, StoreError> {
    c.execute(
        "INSERT INTO games (name, variant, gm, timezone, movement, retreat, winter, grace, remind,
                            wait, state, created, pictures, options)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
        params![
            g.name,
            g.variant,
            g.gm,
            g.timezone,
            g.periods.movement,
            g.periods.retreat,
            g.periods.winter,
            g.periods.grace,
            g.periods.remind,
            g.wait,
            g.state.word(),
            time(now),
            g.pictures,
            json(&g.options)
        ],
    )?;
    Ok(c.last_insert_rowid())
}

/// The game called `name`.
pub fn game(c: &Connection, name: &str) -> Result<Option<Game>, StoreError> {
    Ok(c.query_row(
        &format!("SELECT {GAME_COLUMNS} FROM games WHERE name = ?1"),
        [name],
        game_row,
    )
    .optional()?)
}

/// Every game, by name.
pub fn games(c: &Connection) -> Result<Vec<Game>, StoreError> {
    let mut st = c.prepare_cached(&format!("SELECT {GAME_COLUMNS} FROM games ORDER BY name"))?;
    let rows = st.query_map([], game_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The games `tick` looks at: running ones, by name.
pub fn running_games(c: &Connection) -> Result<Vec<Game>, StoreError> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {GAME_COLUMNS} FROM games WHERE state = 'running' ORDER BY name"
    ))?;
    let rows = st.query_map([], game_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Sets a game's state.
pub fn set_state(c: &Connection, game: i64, state: GameState) -> Result<(), StoreError> {
    c.execute(
        "UPDATE games SET state = ?2 WHERE id = ?1",
        params![game, state.word()],
    )?;
    Ok(())
}

/// Sets (or replaces) a power's player.
pub fn set_player(
    c: &Connection,
    game: i64,
    power: &str,
    address: &str,
    password_hash: &str,
) -> Result<(), StoreError> {
    c.execute(
        "INSERT INTO players (game, power, address, password_hash) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (game, power) DO UPDATE SET address = ?3, password_hash = ?4",
        params![game, power, address, password_hash],
    )?;
    Ok(())
}

/// The players, by power name.
pub fn players(c: &Connection, game: i64) -> Result<Vec<Player>, StoreError> {
    let mut st =
        c.prepare_cached("SELECT power, address FROM players WHERE game = ?1 ORDER BY power")?;
    let rows = st.query_map([game], |r| {
        Ok(Player {
            power: r.get(0)?,
            address: r.get(1)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// A power's password hash (PHC string), if it has a player.
pub fn password_hash(c: &Connection, game: i64, power: &str) -> Result<Option<String>, StoreError> {
    Ok(c.query_row(
        "SELECT password_hash FROM players WHERE game = ?1 AND power = ?2",
        params![game, power],
        |r| r.get(0),
    )
    .optional()?)
}

/// Sets a game's grace (seconds).
pub fn set_grace(c: &Connection, game: i64, secs: i64) -> Result<(), StoreError> {
    c.execute(
        "UPDATE games SET grace = ?2 WHERE id = ?1",
        params![game, secs],
    )?;
    Ok(())
}

/// Adds a phase to play, with the powers that owe orders in it; its id.
pub fn insert_phase(
    c: &Connection,
    game: i64,
    position: &Position,
    owe: &[String],
    deadline: Option<DateTime<Utc>>,
) -> Result<i64, StoreError> {
    let seq: i64 = c.query_row(
        "SELECT COALESCE(MAX(seq), 0) + 1 FROM phases WHERE game = ?1",
        [game],
        |r| r.get(0),
    )?;
    c.execute(
        "INSERT INTO phases (game, seq, position, owe, deadline) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![game, seq, json(position), json(&owe), deadline.map(time)],
    )?;
    Ok(c.last_insert_rowid())
}

const PHASE_COLUMNS: &str =
    "id, seq, position, report, deadline, processed_at, reminded, superseded, late, missing";

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
    })
}

struct RawPhase {
    id: i64,
    seq: i64,
    position: String,
    report: Option<String>,
    deadline: Option<String>,
    processed_at: Option<String>,
    reminded: i64,
    superseded: bool,
    late: String,
    missing: String,
}

impl RawPhase {
    fn read(self) -> Result<PhaseRow, StoreError> {
        Ok(PhaseRow {
            id: self.id,
            seq: self.seq,
            position: from_json("position", &self.position)?,
            report: self
                .report
                .map(|r| from_json("phase report", &r))
                .transpose()?,
            deadline: read_opt_time(self.deadline)?,
            processed_at: read_opt_time(self.processed_at)?,
            reminded: self.reminded,
            superseded: self.superseded,
            late: from_json("list of late powers", &self.late)?,
            missing: from_json("list of missing powers", &self.missing)?,
        })
    }
}

/// The phase to play next: the game's unprocessed, current phase.
pub fn current_phase(c: &Connection, game: i64) -> Result<Option<PhaseRow>, StoreError> {
    c.query_row(
        &format!(
            "SELECT {PHASE_COLUMNS} FROM phases
             WHERE game = ?1 AND report IS NULL AND superseded = 0 ORDER BY seq DESC LIMIT 1"
        ),
        [game],
        phase_row,
    )
    .optional()?
    .map(RawPhase::read)
    .transpose()
}

/// What `tick` needs to know of a running game's current phase, without reading its position.
#[derive(Clone, Debug, PartialEq)]
pub struct Due {
    /// The game.
    pub game: Game,
    /// The phase's row id.
    pub phase: i64,
    /// Its deadline.
    pub deadline: DateTime<Utc>,
    /// Reminders sent.
    pub reminded: i64,
    /// Powers owing orders.
    pub owe: Vec<String>,
    /// Powers that have sent orders.
    pub ordered: Vec<String>,
}

/// Every running game's current phase that has a deadline, by game name: one query.
pub fn due(c: &Connection) -> Result<Vec<Due>, StoreError> {
    let columns = GAME_COLUMNS
        .split(", ")
        .map(|col| format!("g.{col}"))
        .collect::<Vec<_>>();
    // The phase's columns follow the game's.
    let n = columns.len();
    let columns = columns.join(", ");
    let mut st = c.prepare_cached(&format!(
        "SELECT {columns}, p.id, p.deadline, p.reminded, p.owe,
                (SELECT json_group_array(DISTINCT power) FROM orders o WHERE o.phase = p.id)
         FROM games g JOIN phases p ON p.game = g.id AND p.report IS NULL AND p.superseded = 0
         WHERE g.state = 'running' AND p.deadline IS NOT NULL ORDER BY g.name"
    ))?;
    type Raw = (Game, i64, String, i64, String, String);
    let raw: Vec<Raw> = st
        .query_map([], |r| {
            Ok((
                game_row(r)?,
                r.get(n)?,
                r.get(n + 1)?,
                r.get(n + 2)?,
                r.get(n + 3)?,
                r.get(n + 4)?,
            ))
        })?
        .collect::<Result<_, _>>()?;
    raw.into_iter()
        .map(|(game, phase, deadline, reminded, owe, ordered)| {
            Ok(Due {
                game,
                phase,
                deadline: read_time(&deadline)?,
                reminded,
                owe: from_json("list of powers owing orders", &owe)?,
                ordered: from_json("list of powers that ordered", &ordered)?,
            })
        })
        .collect()
}

/// Every phase of the game, history included, oldest first.
pub fn phases(c: &Connection, game: i64) -> Result<Vec<PhaseRow>, StoreError> {
    phases_from(c, game, 0)
}

/// The phases of the game from `seq` on, history included, oldest first (a replay reads each
/// processed phase once).
pub fn phases_from(c: &Connection, game: i64, seq: i64) -> Result<Vec<PhaseRow>, StoreError> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {PHASE_COLUMNS} FROM phases WHERE game = ?1 AND seq >= ?2 ORDER BY seq"
    ))?;
    let raw: Vec<RawPhase> = st
        .query_map(params![game, seq], phase_row)?
        .collect::<Result<_, _>>()?;
    raw.into_iter().map(RawPhase::read).collect()
}

/// Stores a phase's outcome; false when it was already processed (another process got there
/// first), so that the caller rolls back.
pub fn finish_phase(
    c: &Connection,
    phase: i64,
    report: &PhaseReport,
    now: DateTime<Utc>,
    late: &[String],
    missing: &[String],
) -> Result<bool, StoreError> {
    let n = c.execute(
        "UPDATE phases SET report = ?2, processed_at = ?3, late = ?4, missing = ?5
         WHERE id = ?1 AND report IS NULL AND superseded = 0",
        params![phase, json(report), time(now), json(&late), json(&missing)],
    )?;
    Ok(n == 1)
}

/// Sets a phase's deadline (and forgets its reminders).
pub fn set_deadline(
    c: &Connection,
    phase: i64,
    deadline: Option<DateTime<Utc>>,
) -> Result<(), StoreError> {
    c.execute(
        "UPDATE phases SET deadline = ?2, reminded = 0 WHERE id = ?1",
        params![phase, deadline.map(time)],
    )?;
    Ok(())
}

/// Records the reminders sent for a phase.
pub fn set_reminded(c: &Connection, phase: i64, reminded: i64) -> Result<(), StoreError> {
    c.execute(
        "UPDATE phases SET reminded = ?2 WHERE id = ?1",
        params![phase, reminded],
    )?;
    Ok(())
}

/// Sets aside every phase of the game from `seq` on (kept as history).
pub fn supersede_from(c: &Connection, game: i64, seq: i64) -> Result<(), StoreError> {
    c.execute(
        "UPDATE phases SET superseded = 1 WHERE game = ?1 AND seq >= ?2",
        params![game, seq],
    )?;
    Ok(())
}

/// Stores an order text for a power in a phase (earlier texts are kept).
pub fn add_orders(
    c: &Connection,
    phase: i64,
    power: &str,
    text: &str,
    by: &str,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    c.execute(
        "INSERT INTO orders (phase, power, text, received, by) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![phase, power, text, time(now), by],
    )?;
    Ok(())
}

/// The latest order text of each power in a phase, by power name.
pub fn latest_orders(c: &Connection, phase: i64) -> Result<Vec<OrderText>, StoreError> {
    order_texts(
        c,
        "SELECT power, text, received, by FROM orders o
         WHERE phase = ?1 AND id = (SELECT MAX(id) FROM orders WHERE phase = ?1 AND power = o.power)
         ORDER BY power",
        phase,
    )
}

/// Every order text of a phase, oldest first.
pub fn all_orders(c: &Connection, phase: i64) -> Result<Vec<OrderText>, StoreError> {
    order_texts(
        c,
        "SELECT power, text, received, by FROM orders WHERE phase = ?1 ORDER BY id",
        phase,
    )
}

/// The order texts `sql` selects (power, text, received, by) for `phase`.
fn order_texts(c: &Connection, sql: &str, phase: i64) -> Result<Vec<OrderText>, StoreError> {
    let mut st = c.prepare_cached(sql)?;
    let raw: Vec<(String, String, String, String)> = st
        .query_map([phase], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?
        .collect::<Result<_, _>>()?;
    raw.into_iter()
        .map(|(power, text, received, by)| {
            Ok(OrderText {
                power,
                text,
                received: read_time(&received)?,
                by,
            })
        })
        .collect()
}

/// Records a GM action; `command` is carried into the phase's GM commands when `pending`.
pub fn add_gm_action(
    c: &Connection,
    game: i64,
    phase: Option<i64>,
    action: &str,
    command: Option<&str>,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    c.execute(
        "INSERT INTO gm_actions (game, phase, action, command, at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![game, phase, action, command, time(now)],
    )?;
    Ok(())
}

/// The GM commands (`CONTROL Denmark France`) for a phase, in the order given.
pub fn gm_commands(c: &Connection, phase: i64) -> Result<Vec<String>, StoreError> {
    let mut st = c.prepare_cached(
        "SELECT command FROM gm_actions WHERE phase = ?1 AND command IS NOT NULL ORDER BY id",
    )?;
    let rows = st.query_map([phase], |r| r.get(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The GM actions of a game as `(time, action)`, oldest first.
pub fn gm_actions(c: &Connection, game: i64) -> Result<Vec<(String, String)>, StoreError> {
    let mut st =
        c.prepare_cached("SELECT at, action FROM gm_actions WHERE game = ?1 ORDER BY id")?;
    let rows = st.query_map([game], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Stores press sent in a game (from a power or the GM, to the addresses named).
pub fn add_press(
    c: &Connection,
    game: i64,
    phase: Option<i64>,
    from: &str,
    to: &str,
    body: &str,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    c.execute(
        "INSERT INTO press (game, phase, sender, recipients, body, at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![game, phase, from, to, body, time(now)],
    )?;
    Ok(())
}

/// Queues a mail.
pub fn queue_mail(c: &Connection, m: &NewMail, now: DateTime<Utc>) -> Result<(), StoreError> {
    c.execute(
        "INSERT INTO outbox (game, phase, kind, recipient, subject, body, state, tries, created,
                             in_reply_to)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'queued', 0, ?7, ?8)",
        params![
            m.game,
            m.phase,
            m.kind,
            m.to,
            m.subject,
            m.body,
            time(now),
            m.in_reply_to
        ],
    )?;
    Ok(())
}

/// Stores `png` as the picture of `phase` and attaches it to the phase's result mails.
pub fn attach_picture(c: &Connection, phase: i64, png: &[u8]) -> Result<(), StoreError> {
    c.execute(
        "INSERT OR REPLACE INTO pictures (phase, png) VALUES (?1, ?2)",
        params![phase, png],
    )?;
    c.execute(
        "UPDATE outbox SET picture = ?1 WHERE phase = ?1 AND kind = 'results'",
        params![phase],
    )?;
    Ok(())
}

/// The picture of `phase`, when one was stored.
pub fn picture(c: &Connection, phase: i64) -> Result<Option<Vec<u8>>, StoreError> {
    Ok(
        c.query_row("SELECT png FROM pictures WHERE phase = ?1", [phase], |r| {
            r.get(0)
        })
        .optional()?,
    )
}

/// Turns the pictures in a game's result mails on or off.
pub fn set_pictures(c: &Connection, game: i64, on: bool) -> Result<(), StoreError> {
    c.execute(
        "UPDATE games SET pictures = ?2 WHERE id = ?1",
        params![game, on],
    )?;
    Ok(())
}

fn mail_row(r: &Row) -> rusqlite::Result<(Mail, String, Option<String>)> {
    Ok((
        Mail {
            id: r.get(0)?,
            game: r.get(1)?,
            kind: r.get(2)?,
            to: r.get(3)?,
            subject: r.get(4)?,
            body: r.get(5)?,
            state: r.get(6)?,
            error: r.get(7)?,
            tries: r.get(8)?,
            created: DateTime::<Utc>::MIN_UTC,
            message_id: r.get(10)?,
            next_try: None,
            picture: r.get(12)?,
            in_reply_to: r.get(13)?,
        },
        r.get(9)?,
        r.get(11)?,
    ))
}

/// The outbox, oldest first; only mails in `state` when given.
pub fn mails(c: &Connection, state: Option<&str>) -> Result<Vec<Mail>, StoreError> {
    let mut st = c.prepare_cached(
        "SELECT o.id, COALESCE(g.name, ''), o.kind, o.recipient, o.subject, o.body, o.state, o.error,
                o.tries, o.created, o.message_id, o.next_try, o.picture, o.in_reply_to
         FROM outbox o LEFT JOIN games g ON g.id = o.game
         WHERE ?1 IS NULL OR o.state = ?1 ORDER BY o.id",
    )?;
    let raw: Vec<_> = st.query_map([state], mail_row)?.collect::<Result<_, _>>()?;
    read_mails(raw)
}

fn read_mails(raw: Vec<(Mail, String, Option<String>)>) -> Result<Vec<Mail>, StoreError> {
    raw.into_iter()
        .map(|(mut m, created, next_try)| {
            m.created = read_time(&created)?;
            m.next_try = read_opt_time(next_try)?;
            Ok(m)
        })
        .collect()
}

/// The mails due for a try at `now`: queued or failed, and not waiting for a back-off; oldest
/// first.
pub fn mails_due(c: &Connection, now: DateTime<Utc>) -> Result<Vec<Mail>, StoreError> {
    let mut st = c.prepare_cached(
        "SELECT o.id, COALESCE(g.name, ''), o.kind, o.recipient, o.subject, o.body, o.state, o.error,
                o.tries, o.created, o.message_id, o.next_try, o.picture, o.in_reply_to
         FROM outbox o LEFT JOIN games g ON g.id = o.game
         WHERE o.state IN ('queued', 'failed') AND (o.next_try IS NULL OR o.next_try <= ?1)
         ORDER BY o.id",
    )?;
    let raw: Vec<_> = st
        .query_map([time(now)], mail_row)?
        .collect::<Result<_, _>>()?;
    read_mails(raw)
}

/// Takes a due mail for one try: fixes its Message-ID (kept if it has one) and holds it from
/// other senders until `until`, so two `outbox send`s never send it at once, and a sender killed
/// mid-send leaves it to be tried again after `until`. False when it is no longer due.
pub fn claim_mail(
    c: &Connection,
    id: i64,
    message_id: &str,
    now: DateTime<Utc>,
    until: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let n = c.execute(
        "UPDATE outbox SET message_id = COALESCE(message_id, ?2), next_try = ?4
         WHERE id = ?1 AND state IN ('queued', 'failed')
               AND (next_try IS NULL OR next_try <= ?3)",
        params![id, message_id, time(now), time(until)],
    )?;
    Ok(n == 1)
}

/// Marks a mail sent.
pub fn mail_sent(c: &Connection, id: i64, now: DateTime<Utc>) -> Result<(), StoreError> {
    c.execute(
        "UPDATE outbox SET state = 'sent', tries = tries + 1, error = NULL, sent_at = ?2,
                next_try = NULL
         WHERE id = ?1",
        params![id, time(now)],
    )?;
    Ok(())
}

/// Marks a try of a mail failed, with why: tried again from `retry` on, or, with none, given up
/// (`undeliverable`).
pub fn mail_failed(
    c: &Connection,
    id: i64,
    error: &str,
    retry: Option<DateTime<Utc>>,
) -> Result<(), StoreError> {
    let state = if retry.is_some() {
        "failed"
    } else {
        "undeliverable"
    };
    c.execute(
        "UPDATE outbox SET state = ?2, tries = tries + 1, error = ?3, next_try = ?4
         WHERE id = ?1",
        params![id, state, error, retry.map(time)],
    )?;
    Ok(())
}
