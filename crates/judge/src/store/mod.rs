//! The judge's SQLite file: games, players, phases (position and report as JSON), order texts, GM
//! actions, press, the mail received and the outbox. Every SQL statement of the judge is in this
//! module: reads through a [`View`] (of the [`Store`] or of a transaction), writes through a
//! [`Tx`], the one transaction a service call runs in. Games are here; each other part of the
//! file has a submodule of its own, with its `View` and `Tx` methods.

mod endings;
mod inbox;
mod outbox;
mod phases;
mod players;
mod press;
mod schema;
mod seats;
mod types;

use crate::clock::Period;
use chrono::{DateTime, Utc};
use rusqlite::config::DbConfig;
use rusqlite::{params, Connection, OptionalExtension, Params, Row, TransactionBehavior};
use std::path::Path;

pub(crate) use endings::{Absence, Timing};
pub use endings::{Choices, Ending};
pub use inbox::{Earlier, GameMail, NewMessage};
pub(crate) use inbox::{Pending, SignedMail};
// The record's earlier name, which the service still uses.
pub use outbox::Mail;
pub(crate) use outbox::{MailPicture, NewMail};
pub(crate) use phases::Due;
pub use phases::OrderText;
pub use phases::{PhaseRow, ShellStep};
pub use players::Player;
pub(crate) use players::SignonFailure;
pub use press::{PressRow, PressRules};
pub use schema::VERSION;
pub use seats::SeatChange;
pub(crate) use seats::{CodeState, SeatRules, DEFAULT_OBSERVERS};
pub use types::{
    Address, Author, ChangeKind, EndKind, GameState, InboxState, MailKind, MailState, PressMode,
    Reminded, Role,
};
pub(crate) use types::{Fault, PasswordFrom};

/// Why the store can't do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite refused (a locked, unreadable or damaged file, or a stored value this napjudge
    /// doesn't know).
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
    /// The file can't be created.
    #[error("database {path}: can't create the file: {source}")]
    Create {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A stored time doesn't read back.
    #[error("database: a stored time '{0}' is not RFC 3339; restore the file from a backup")]
    Time(String),
}

/// Creates the file at `path`, empty and readable by its owner only, unless it exists.
fn create_private(path: &Path) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

impl StoreError {
    /// Whether the file or the machine is at fault (damaged, not a database, full, busy,
    /// unreadable), not what was asked: every message would fail alike, so a mail server should
    /// keep the message and try again later rather than have it marked failed.
    pub(crate) fn is_database_fault(&self) -> bool {
        use rusqlite::ErrorCode as C;
        match self {
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(e, _)) => matches!(
                e.code,
                C::DatabaseCorrupt
                    | C::NotADatabase
                    | C::DiskFull
                    | C::SystemIoFailure
                    | C::DatabaseBusy
                    | C::DatabaseLocked
                    | C::CannotOpen
                    | C::ReadOnly
                    | C::OutOfMemory
                    | C::PermissionDenied
                    | C::FileLockingProtocolFailed
            ),
            _ => false,
        }
    }
}

/// One row of `sql`, through the connection's cache of prepared statements: parsing and planning
/// a statement cost more than running one of the judge's small queries (issue 35: 40% of a
/// replay's instructions went to preparing the same statements again).
fn row<T, P: Params>(
    conn: &Connection,
    sql: &str,
    params: P,
    f: impl FnOnce(&Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    conn.prepare_cached(sql)?.query_row(params, f)
}

/// Runs `sql` through the cache of prepared statements (see [`row`]); the rows changed.
fn exec<P: Params>(conn: &Connection, sql: &str, params: P) -> rusqlite::Result<usize> {
    conn.prepare_cached(sql)?.execute(params)
}

/// More than the store's distinct statements, so that none is prepared twice.
const STATEMENT_CACHE: usize = 256;

/// An open judge database.
pub struct Store {
    conn: Connection,
}

impl Store {
    /// Opens (creating it if needed) the database at `path`, in WAL mode, migrated to [`VERSION`].
    /// A new file is made readable by its owner only (0600), and SQLite gives its `-wal`,
    /// `-shm` and journal files the same mode: the file holds password hashes and mail.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        create_private(path).map_err(|source| StoreError::Create {
            path: path.display().to_string(),
            source,
        })?;
        let mut conn = Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        // What is deleted (a mail's passwords once it is answered) is overwritten, not left in
        // free pages.
        conn.pragma_update(None, "secure_delete", "ON")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        // Plans that don't depend on the values bound: else SQLite prepares a cached statement
        // again whenever a value it planned with changes (a third of a replay's prepares).
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
        schema::migrate(&mut conn, &path.display().to_string())?;
        Ok(Store { conn })
    }

    /// The warning to print when the file at `path` can be read by others than its owner (a
    /// file made before napjudge made them 0600, or copied): the command that fixes it.
    pub fn loose_permissions(path: &Path) -> Option<String> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(path).ok()?.permissions().mode();
            (mode & 0o077 != 0).then(|| {
                format!(
                    "warning: the database {0} can be read by other users (mode {1:o}), and it \
                     holds password hashes and mail: run chmod 600 {0}",
                    path.display(),
                    mode & 0o777
                )
            })
        }
        #[cfg(not(unix))]
        {
            let _ = path;
            None
        }
    }

    /// Opens a scratch database (a replay's): as [`Store::open`], without an fsync at each
    /// commit (34 ms each on the test machine, more than the rest of a game's replay), holding
    /// its lock from the first transaction to the last (no other process reads a replay's file
    /// while it runs: two `fcntl` calls a transaction saved), without overwriting what is deleted
    /// (a replay's passwords are the fixture's public ones), with its rollback journal in memory
    /// instead of a write-ahead log (each changed page written once, not to the log and again to
    /// the file: 458,536 writes for the 22 games became 183,902), and read through a memory map
    /// (SQLite reads a large value's overflow pages with a system call each, 284,526 of them).
    /// A replay killed in a transaction may leave its file damaged: it is a scratch file.
    pub fn open_scratch(path: &Path) -> Result<Store, StoreError> {
        let store = Store::open(path)?;
        store.conn.pragma_update(None, "synchronous", "OFF")?;
        store
            .conn
            .pragma_update(None, "locking_mode", "EXCLUSIVE")?;
        store.conn.pragma_update(None, "secure_delete", "OFF")?;
        store.conn.pragma_update(None, "journal_mode", "MEMORY")?;
        store.conn.pragma_update(None, "mmap_size", 1i64 << 30)?;
        Ok(store)
    }

    /// Copies the write-ahead log into the file and empties it (`wal_checkpoint(TRUNCATE)`), so
    /// that what a transaction dropped (a mail's passwords, kept until it is answered) is not
    /// left in the log's older frames while the store stays open (`serve`): `secure_delete`
    /// overwrites it in the file, not in the log. A reader in another process at that moment
    /// keeps the log as it is until the next call; that is no error.
    pub(crate) fn truncate_wal(&self) -> Result<(), StoreError> {
        self.conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        Ok(())
    }

    /// The file the store is in; none for a database in memory.
    pub(crate) fn path(&self) -> Option<&Path> {
        self.conn.path().filter(|p| !p.is_empty()).map(Path::new)
    }

    /// Reads outside any write transaction.
    pub fn view(&self) -> View<'_> {
        View(&self.conn)
    }

    /// A write transaction, taken at once (`IMMEDIATE`): two napjudges never both read a phase
    /// and then both write it. Dropped without [`Tx::commit`], it leaves no trace.
    pub(crate) fn begin(&mut self) -> Result<Tx<'_>, StoreError> {
        Ok(Tx(self.conn.transaction_with_behavior(
            TransactionBehavior::Immediate,
        )?))
    }
}

/// Typed reads, on the store or inside a transaction.
#[derive(Clone, Copy)]
pub struct View<'a>(&'a Connection);

/// A write transaction: every change to the file is one of its methods.
pub(crate) struct Tx<'a>(rusqlite::Transaction<'a>);

/// The periods of a game, each bounded ([`Period`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Periods {
    /// A movement phase.
    pub movement: Period,
    /// A retreat phase.
    pub retreat: Period,
    /// A Winter (adjustments, bids).
    pub winter: Period,
    /// The grace after a deadline.
    pub grace: Period,
    /// How long before the deadline the reminder goes.
    pub remind: Period,
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
    pub gm: Address,
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
    /// Its press options.
    pub press: PressRules,
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
                            remind, wait, state, pictures, options, press, anonymous, gm_copy";

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
        state: r.get(11)?,
        pictures: r.get(12)?,
        options: serde_json::from_str(&r.get::<_, String>(13)?).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(13, rusqlite::types::Type::Text, Box::new(e))
        })?,
        press: PressRules {
            mode: r.get(14)?,
            anonymous: r.get(15)?,
            gm_copy: r.get(16)?,
        },
    })
}

impl View<'_> {
    /// The game called `name`.
    pub fn game(&self, name: &str) -> Result<Option<Game>, StoreError> {
        Ok(row(
            self.0,
            &format!("SELECT {GAME_COLUMNS} FROM games WHERE name = ?1"),
            [name],
            game_row,
        )
        .optional()?)
    }

    /// Every game, by name.
    pub fn games(&self) -> Result<Vec<Game>, StoreError> {
        let mut st = self
            .0
            .prepare_cached(&format!("SELECT {GAME_COLUMNS} FROM games ORDER BY name"))?;
        let rows = st.query_map([], game_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// What the web archive shows has changed when this has: the games and their states, and
    /// the phases (played, set aside, their deadlines). One short text, compared from tick to
    /// tick.
    pub fn archive_stamp(&self) -> Result<String, StoreError> {
        Ok(row(
            self.0,
            "SELECT (SELECT COALESCE(GROUP_CONCAT(name || '=' || state), '') FROM games)
                    || '|' || COUNT(*) || ':' || COALESCE(MAX(id), 0) || ':' || COUNT(report)
                    || ':' || COALESCE(SUM(superseded), 0)
                    || ':' || COALESCE(MAX(processed_at), '')
                    || '|' || COALESCE((SELECT GROUP_CONCAT(deadline) FROM phases
                                        WHERE report IS NULL AND superseded = 0), '')
             FROM phases",
            [],
            |r| r.get(0),
        )?)
    }

    /// The game called `name`, capitals aside (a SIGNON's game): the one written exactly so
    /// first.
    pub(crate) fn game_any_case(&self, name: &str) -> Result<Option<Game>, StoreError> {
        Ok(row(
            self.0,
            &format!(
                "SELECT {GAME_COLUMNS} FROM games WHERE name = ?1 COLLATE NOCASE
                     ORDER BY name = ?1 DESC LIMIT 1"
            ),
            [name],
            game_row,
        )
        .optional()?)
    }
}

impl Tx<'_> {
    /// Reads inside the transaction.
    pub(crate) fn view(&self) -> View<'_> {
        View(&self.0)
    }

    /// Makes every change of the transaction lasting.
    pub(crate) fn commit(self) -> Result<(), StoreError> {
        Ok(self.0.commit()?)
    }

    /// Adds a game; its id.
    pub(crate) fn insert_game(&self, g: &Game, now: DateTime<Utc>) -> Result<i64, StoreError> {
        exec(
            &self.0,
            "INSERT INTO games (name, variant, gm, timezone, movement, retreat, winter, grace,
                                remind, wait, state, created, pictures, options, press,
                                anonymous, gm_copy)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
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
                g.state,
                time(now),
                g.pictures,
                json(&g.options),
                g.press.mode,
                g.press.anonymous,
                g.press.gm_copy
            ],
        )?;
        Ok(self.0.last_insert_rowid())
    }

    /// Sets a game's state.
    pub(crate) fn set_state(&self, game: i64, state: GameState) -> Result<(), StoreError> {
        exec(
            &self.0,
            "UPDATE games SET state = ?2 WHERE id = ?1",
            params![game, state],
        )?;
        Ok(())
    }

    /// Stores a game's settings as `g` has them: zone, periods, wait, pictures and the press
    /// options.
    pub(crate) fn set_settings(&self, g: &Game) -> Result<(), StoreError> {
        exec(
            &self.0,
            "UPDATE games SET timezone = ?2, movement = ?3, retreat = ?4, winter = ?5,
                              grace = ?6, remind = ?7, wait = ?8, pictures = ?9,
                              press = ?10, anonymous = ?11, gm_copy = ?12
             WHERE id = ?1",
            params![
                g.id,
                g.timezone,
                g.periods.movement,
                g.periods.retreat,
                g.periods.winter,
                g.periods.grace,
                g.periods.remind,
                g.wait,
                g.pictures,
                g.press.mode,
                g.press.anonymous,
                g.press.gm_copy
            ],
        )?;
        Ok(())
    }
}
