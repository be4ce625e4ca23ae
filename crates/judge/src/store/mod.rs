//! The judge's SQLite file: games, players, phases (position and report as JSON), order texts, GM
//! actions, press, the mail received and the outbox. Every SQL statement of the judge is in this
//! module: reads through a [`View`] (of the [`Store`] or of a transaction), writes through a
//! [`Tx`], the one transaction a service call runs in.

mod endings;
mod schema;
mod seats;
mod types;

use crate::clock::Period;
use chrono::{DateTime, Utc};
use napjudge_engine::position::Position;
use napjudge_engine::turn::PhaseReport;
use rusqlite::{params, Connection, OptionalExtension, Row, TransactionBehavior};
use std::path::Path;

pub use endings::{Absence, Choices, Ending, Timing};
pub use schema::VERSION;
pub use seats::{CodeState, SeatChange, SeatRules};
pub use types::{
    Address, Author, ChangeKind, EndKind, Fault, GameState, InboxState, MailKind, MailState,
    PressMode, Reminded, Role,
};

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
    pub fn is_database_fault(&self) -> bool {
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

    /// Opens a scratch database (a replay's): as [`Store::open`], without an fsync at each WAL
    /// checkpoint (34 ms each on the test machine, more than the rest of a game's replay).
    pub fn open_scratch(path: &Path) -> Result<Store, StoreError> {
        let store = Store::open(path)?;
        store.conn.pragma_update(None, "synchronous", "OFF")?;
        Ok(store)
    }

    /// The file the store is in; none for a database in memory.
    pub fn path(&self) -> Option<&Path> {
        self.conn.path().filter(|p| !p.is_empty()).map(Path::new)
    }

    /// Reads outside any write transaction.
    pub fn view(&self) -> View<'_> {
        View(&self.conn)
    }

    /// A write transaction, taken at once (`IMMEDIATE`): two napjudges never both read a phase
    /// and then both write it. Dropped without [`Tx::commit`], it leaves no trace.
    pub fn begin(&mut self) -> Result<Tx<'_>, StoreError> {
        Ok(Tx(self.conn.transaction_with_behavior(
            TransactionBehavior::Immediate,
        )?))
    }
}

/// Typed reads, on the store or inside a transaction.
#[derive(Clone, Copy)]
pub struct View<'a>(&'a Connection);

/// A write transaction: every change to the file is one of its methods.
pub struct Tx<'a>(rusqlite::Transaction<'a>);

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

/// A picture of the board a mail carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MailPicture {
    /// The stored picture of a processed phase (its row id): the bytes its result mails carried.
    Stored(i64),
    /// A picture drawn for this mail (PNG), kept on its outbox row.
    Drawn(Vec<u8>),
}

/// A game's press options (issue 21): what its players may send, and who is named.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PressRules {
    /// Which press the players may send.
    pub mode: PressMode,
    /// The players are known by their powers only (gunboat): no player's address is shown to
    /// another player.
    pub anonymous: bool,
    /// The GM gets a copy of every press a player sends to fewer than all.
    pub gm_copy: bool,
}

/// A player: of a power, or the GM's mail password.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Player {
    /// Who.
    pub role: Role,
    /// The player's address.
    pub address: Address,
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
}

/// A mail in the outbox.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mail {
    /// Row id (also the .eml file's name).
    pub id: i64,
    /// The game's name.
    pub game: String,
    /// What kind of mail.
    pub kind: MailKind,
    /// The recipient.
    pub to: String,
    /// The subject.
    pub subject: String,
    /// The body, plain text.
    pub body: String,
    /// Where it stands.
    pub state: MailState,
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
    /// The picture it carries (a phase's, see [`View::picture`]).
    pub picture: Option<i64>,
    /// The Message-ID (without brackets) of the mail it answers.
    pub in_reply_to: Option<String>,
    /// When its first failed try since it was last queued was: its retry days count from it.
    pub failing_since: Option<DateTime<Utc>>,
}

/// A new mail for [`Tx::queue_mail`].
pub struct NewMail<'a> {
    /// The game (none for a reply to mail that names no game).
    pub game: Option<i64>,
    /// The phase it belongs to, if any.
    pub phase: Option<i64>,
    /// What kind of mail.
    pub kind: MailKind,
    /// The recipient.
    pub to: &'a str,
    /// The subject.
    pub subject: &'a str,
    /// The body.
    pub body: &'a str,
    /// The Message-ID (without brackets) of the mail it answers, for a reply.
    pub in_reply_to: Option<&'a str>,
}

/// A received message as stored, for [`Tx::store_message`].
pub struct NewMessage<'a> {
    /// The Message-ID header, without brackets.
    pub message_id: Option<&'a str>,
    /// The SHA-256 of the raw bytes, hex.
    pub digest: &'a str,
    /// The address a reply goes to (`''` when there is none).
    pub sender: &'a str,
    /// The raw bytes, passwords masked: the whole message, or only its headers when it is over
    /// the size limit.
    pub raw: &'a [u8],
    /// The whole message's size (bytes) as received.
    pub size: u64,
    /// The passwords masked in `raw`, one `LINE PASSWORD` line each, kept only until the
    /// message is answered.
    pub secrets: Option<&'a str>,
}

/// Press as stored: who sent it, to whom, in which phase.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PressRow {
    /// The phase current when it was sent (none before the game started).
    pub phase: Option<i64>,
    /// The sender: a power's name, or `GM`.
    pub sender: String,
    /// The names of those it went to.
    pub recipients: Vec<String>,
    /// The text.
    pub body: String,
    /// When it was sent.
    pub at: DateTime<Utc>,
    /// Grey press: those it went to were not told who sent it.
    pub grey: bool,
}

impl PressRow {
    /// Whether it went to every power of the game but its sender (a BROADCAST): the public
    /// press, which the web archive publishes.
    pub fn to_everyone(&self, players: &[Player]) -> bool {
        players
            .iter()
            .filter_map(|p| p.role.power())
            .all(|p| p == self.sender || self.recipients.iter().any(|r| r == p))
    }
}

/// A message seen before the one asked about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Earlier {
    /// When it first came (RFC 3339, as stored).
    pub at: String,
    /// A duplicate of it was answered already.
    pub answered_twice: bool,
    /// The first copy's row id.
    pub first: i64,
    /// What became of the first copy: `stored` when it was never answered.
    pub state: InboxState,
}

/// A mail handled for a power (or the GM) after its SIGNON: what refuses an older mail and a
/// replay of the same text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandledMail {
    /// The game.
    pub game: i64,
    /// Who signed on.
    pub role: Role,
    /// The current phase at the mail's time, if any.
    pub phase: Option<i64>,
    /// The mail's date: its Date header, bounded by the time it was received.
    pub dated: DateTime<Utc>,
    /// The SHA-256 (hex) of the text the judge read.
    pub digest: String,
}

/// A message stored and never answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pending {
    /// Its row id.
    pub id: i64,
    /// The raw bytes, passwords masked (only the headers of a message over the size limit).
    pub raw: Vec<u8>,
    /// The whole message's size (bytes) as received.
    pub size: u64,
    /// The SHA-256 of the whole message as received (before masking), hex.
    pub digest: String,
    /// The passwords masked in `raw` (`LINE PASSWORD` lines), if any.
    pub secrets: Option<String>,
    /// When it was received.
    pub received: DateTime<Utc>,
}

/// A wrong password given in a SIGNON, for the throttle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignonFailure {
    /// The sender, folded.
    pub address: String,
    /// Whether it was the address the judge mails the role at.
    pub registered: bool,
    /// When.
    pub at: DateTime<Utc>,
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
pub struct Due {
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
}

/// The latest row of each power in a phase (a CLEAR included).
const LATEST_ORDERS: &str = "SELECT power, text, received, by, cleared FROM orders o
     WHERE phase = ?1 AND id = (SELECT MAX(id) FROM orders WHERE phase = ?1 AND power = o.power)
     ORDER BY power";

const MAIL_COLUMNS: &str = "o.id, COALESCE(g.name, ''), o.kind, o.recipient, o.subject, o.body, \
     o.state, o.error, o.tries, o.created, o.message_id, o.next_try, o.picture, o.in_reply_to, \
     o.failing_since";

/// A mail's row, with its times still as stored: created, next try, failing since.
type MailRow = (Mail, String, Option<String>, Option<String>);

fn mail_row(r: &Row) -> rusqlite::Result<MailRow> {
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
            failing_since: None,
        },
        r.get(9)?,
        r.get(11)?,
        r.get(14)?,
    ))
}

fn read_mails(raw: Vec<MailRow>) -> Result<Vec<Mail>, StoreError> {
    raw.into_iter()
        .map(|(mut m, created, next_try, failing_since)| {
            m.created = read_time(&created)?;
            m.next_try = read_opt_time(next_try)?;
            m.failing_since = read_opt_time(failing_since)?;
            Ok(m)
        })
        .collect()
}

impl View<'_> {
    /// The game called `name`.
    pub fn game(&self, name: &str) -> Result<Option<Game>, StoreError> {
        Ok(self
            .0
            .query_row(
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

    /// The players (the GM's row included), by name.
    pub fn players(&self, game: i64) -> Result<Vec<Player>, StoreError> {
        let mut st = self
            .0
            .prepare_cached("SELECT power, address FROM players WHERE game = ?1 ORDER BY power")?;
        let rows = st.query_map([game], |r| {
            Ok(Player {
                role: r.get(0)?,
                address: r.get(1)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// A role's password hash (PHC string), if it has a player.
    pub fn password_hash(&self, game: i64, role: &Role) -> Result<Option<String>, StoreError> {
        Ok(self
            .0
            .query_row(
                "SELECT password_hash FROM players WHERE game = ?1 AND power = ?2",
                params![game, role],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// The phase to play next: the game's unprocessed, current phase.
    pub fn current_phase(&self, game: i64) -> Result<Option<PhaseRow>, StoreError> {
        self.0
            .query_row(
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

    /// Every running game's current phase that has a deadline, by game name: one query.
    pub fn due(&self) -> Result<Vec<Due>, StoreError> {
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
                                   WHERE phase = p.id AND power = o.power))
             FROM games g JOIN phases p ON p.game = g.id AND p.report IS NULL AND p.superseded = 0
             WHERE g.state = 'running' AND p.deadline IS NOT NULL ORDER BY g.name"
        ))?;
        type Raw = (Game, i64, String, Reminded, String, String);
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
    pub fn phases(&self, game: i64) -> Result<Vec<PhaseRow>, StoreError> {
        self.phases_from(game, 0)
    }

    /// Whether a rollback set aside a processed phase of the game (then a phase played again
    /// may replace results mailed before).
    pub fn rolled_back(&self, game: i64) -> Result<bool, StoreError> {
        Ok(self.0.query_row(
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
            .order_texts(LATEST_ORDERS, phase)?
            .into_iter()
            .filter(|t| !t.cleared)
            .collect())
    }

    /// Every order text and CLEAR of a phase, oldest first: its history.
    pub fn all_orders(&self, phase: i64) -> Result<Vec<OrderText>, StoreError> {
        self.order_texts(
            "SELECT power, text, received, by, cleared FROM orders WHERE phase = ?1 ORDER BY id",
            phase,
        )
    }

    fn order_texts(&self, sql: &str, phase: i64) -> Result<Vec<OrderText>, StoreError> {
        let mut st = self.0.prepare_cached(sql)?;
        let raw: Vec<(String, String, String, Author, bool)> = st
            .query_map([phase], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })?
            .collect::<Result<_, _>>()?;
        raw.into_iter()
            .map(|(power, text, received, by, cleared)| {
                Ok(OrderText {
                    power,
                    text,
                    received: read_time(&received)?,
                    by,
                    cleared,
                })
            })
            .collect()
    }

    /// The GM commands (`CONTROL Denmark France`) for a phase, in the order given.
    pub fn gm_commands(&self, phase: i64) -> Result<Vec<String>, StoreError> {
        let mut st = self.0.prepare_cached(
            "SELECT command FROM gm_actions WHERE phase = ?1 AND command IS NOT NULL ORDER BY id",
        )?;
        let rows = st.query_map([phase], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The press of a game, oldest first (the web archive publishes the public part).
    pub fn press(&self, game: i64) -> Result<Vec<PressRow>, StoreError> {
        let mut st = self.0.prepare_cached(
            "SELECT phase, sender, recipients, body, at, grey FROM press WHERE game = ?1
             ORDER BY id",
        )?;
        type Raw = (Option<i64>, String, String, String, String, bool);
        let raw: Vec<Raw> = st
            .query_map([game], |r| {
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
            .map(|(phase, sender, recipients, body, at, grey)| {
                Ok(PressRow {
                    phase,
                    sender,
                    recipients: recipients.split_whitespace().map(str::to_string).collect(),
                    body,
                    at: read_time(&at)?,
                    grey,
                })
            })
            .collect()
    }

    /// The picture of `phase`, when one was stored.
    pub fn picture(&self, phase: i64) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self
            .0
            .query_row("SELECT png FROM pictures WHERE phase = ?1", [phase], |r| {
                r.get(0)
            })
            .optional()?)
    }

    /// The picture a mail carries of its own (a MAP of the board now), when it has one.
    pub fn mail_png(&self, id: i64) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self
            .0
            .query_row("SELECT png FROM outbox WHERE id = ?1", [id], |r| r.get(0))
            .optional()?
            .flatten())
    }

    /// The outbox, oldest first; only mails in `state` when given.
    pub fn mails(&self, state: Option<MailState>) -> Result<Vec<Mail>, StoreError> {
        let mut st = self.0.prepare_cached(&format!(
            "SELECT {MAIL_COLUMNS} FROM outbox o LEFT JOIN games g ON g.id = o.game
             WHERE ?1 IS NULL OR o.state = ?1 ORDER BY o.id"
        ))?;
        let raw: Vec<_> = st.query_map([state], mail_row)?.collect::<Result<_, _>>()?;
        read_mails(raw)
    }

    /// The mail of the outbox with row id `id`.
    pub fn mail(&self, id: i64) -> Result<Option<Mail>, StoreError> {
        let mut st = self.0.prepare_cached(&format!(
            "SELECT {MAIL_COLUMNS} FROM outbox o LEFT JOIN games g ON g.id = o.game
             WHERE o.id = ?1"
        ))?;
        let raw: Vec<_> = st.query_map([id], mail_row)?.collect::<Result<_, _>>()?;
        Ok(read_mails(raw)?.into_iter().next())
    }

    /// The body of the first reply queued after row `after` of the outbox.
    pub fn reply_after(&self, after: i64) -> Result<Option<String>, StoreError> {
        Ok(self
            .0
            .query_row(
                "SELECT body FROM outbox WHERE kind = ?2 AND id > ?1 ORDER BY id LIMIT 1",
                params![after, MailKind::Reply],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// The last row id of the outbox (0 when empty).
    pub fn last_mail_id(&self) -> Result<i64, StoreError> {
        Ok(self
            .0
            .query_row("SELECT COALESCE(MAX(id), 0) FROM outbox", [], |r| r.get(0))?)
    }

    /// What the web archive shows has changed when this has: the games and their states, and
    /// the phases (played, set aside, their deadlines). One short text, compared from tick to
    /// tick.
    pub fn archive_stamp(&self) -> Result<String, StoreError> {
        Ok(self.0.query_row(
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

    /// How many mails of `kind` a game queued.
    pub fn mail_count(&self, game: i64, kind: MailKind) -> Result<i64, StoreError> {
        Ok(self.0.query_row(
            "SELECT COUNT(*) FROM outbox WHERE kind = ?2 AND game = ?1",
            params![game, kind],
            |r| r.get(0),
        )?)
    }

    /// The mails due for a try at `now`: queued or failed, and not waiting for a back-off;
    /// oldest first.
    pub fn mails_due(&self, now: DateTime<Utc>) -> Result<Vec<Mail>, StoreError> {
        let mut st = self.0.prepare_cached(&format!(
            "SELECT {MAIL_COLUMNS} FROM outbox o LEFT JOIN games g ON g.id = o.game
             WHERE o.state IN ('queued', 'failed') AND (o.next_try IS NULL OR o.next_try <= ?1)
             ORDER BY o.id"
        ))?;
        let raw: Vec<_> = st
            .query_map([time(now)], mail_row)?
            .collect::<Result<_, _>>()?;
        read_mails(raw)
    }

    /// The body of each processed phase's first results mail, oldest first (HISTORY).
    pub fn results_bodies(&self, game: i64) -> Result<Vec<String>, StoreError> {
        let mut st = self.0.prepare_cached(
            "SELECT body FROM outbox WHERE id IN
               (SELECT MIN(id) FROM outbox WHERE game = ?1 AND kind = 'results' GROUP BY phase)
             ORDER BY id",
        )?;
        let rows = st.query_map([game], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// When the message stored as `id` came before it: the same Message-ID, else (without
    /// one) the same digest.
    pub fn earlier(
        &self,
        message_id: Option<&str>,
        digest: &str,
        id: i64,
    ) -> Result<Option<Earlier>, StoreError> {
        let (key, value) = match message_id {
            Some(m) => ("message_id = ?1", m),
            None => ("message_id IS NULL AND digest = ?1", digest),
        };
        let first = self
            .0
            .query_row(
                &format!(
                    "SELECT id, received, state FROM inbox WHERE {key} AND id < ?2
                     ORDER BY id LIMIT 1"
                ),
                params![value, id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        let Some((first, at, state)) = first else {
            return Ok(None);
        };
        let answered_twice = self.0.query_row(
            &format!("SELECT COUNT(*) > 0 FROM inbox WHERE {key} AND id < ?2 AND state = ?3"),
            params![value, id, InboxState::Duplicate],
            |r| r.get(0),
        )?;
        Ok(Some(Earlier {
            at,
            answered_twice,
            first,
            state,
        }))
    }

    /// Whether a message with these bytes (their SHA-256) is stored: an intake that fetches
    /// from a mailbox finds the messages it stored before it was stopped.
    pub fn has_digest(&self, digest: &str) -> Result<bool, StoreError> {
        Ok(self.0.query_row(
            "SELECT EXISTS (SELECT 1 FROM inbox WHERE digest = ?1)",
            params![digest],
            |r| r.get(0),
        )?)
    }

    /// The messages stored and not answered, received at `before` or earlier, oldest first.
    pub fn pending(&self, before: DateTime<Utc>) -> Result<Vec<Pending>, StoreError> {
        let mut st = self.0.prepare_cached(
            "SELECT id FROM inbox WHERE state = 'stored' AND received <= ?1 ORDER BY id",
        )?;
        let ids: Vec<i64> = st
            .query_map([time(before)], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        ids.into_iter()
            .filter_map(|id| self.message(id).transpose())
            .collect()
    }

    /// The stored message `id`, if there is one.
    pub fn message(&self, id: i64) -> Result<Option<Pending>, StoreError> {
        type Row = (Vec<u8>, i64, String, Option<String>, String);
        let row: Option<Row> = self
            .0
            .query_row(
                "SELECT raw, size, digest, secrets, received FROM inbox WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )
            .optional()?;
        row.map(|(raw, size, digest, secrets, received)| {
            Ok(Pending {
                id,
                raw,
                size: u64::try_from(size).unwrap_or_default(),
                digest,
                secrets,
                received: read_time(&received)?,
            })
        })
        .transpose()
    }

    /// Press sent by `sender` (a power's name, or `GM`) in a phase of a game.
    pub fn press_count(&self, game: i64, phase: i64, sender: &str) -> Result<i64, StoreError> {
        Ok(self.0.query_row(
            "SELECT COUNT(*) FROM press WHERE game = ?1 AND phase = ?2 AND sender = ?3",
            params![game, phase, sender],
            |r| r.get(0),
        )?)
    }

    /// How many messages are stored and not answered, received after `after` and at `until`
    /// or earlier.
    pub fn stored_between(
        &self,
        after: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        Ok(self.0.query_row(
            "SELECT COUNT(*) FROM inbox WHERE state = 'stored' AND received > ?1 AND received <= ?2",
            params![time(after), time(until)],
            |r| r.get(0),
        )?)
    }

    /// The latest date of a mail handled for `role` in `game`.
    pub fn last_dated(&self, game: i64, role: &Role) -> Result<Option<DateTime<Utc>>, StoreError> {
        let t: Option<String> = self.0.query_row(
            "SELECT MAX(dated) FROM handled WHERE game = ?1 AND power = ?2",
            params![game, role],
            |r| r.get(0),
        )?;
        read_opt_time(t)
    }

    /// The date of a mail with the text digest `digest` handled for `role` in `game`'s
    /// `phase`, if there was one.
    pub fn handled_digest(
        &self,
        game: i64,
        role: &Role,
        phase: Option<i64>,
        digest: &str,
    ) -> Result<Option<DateTime<Utc>>, StoreError> {
        let t: Option<String> = self.0.query_row(
            "SELECT MIN(dated) FROM handled
             WHERE game = ?1 AND power = ?2 AND phase IS ?3 AND digest = ?4",
            params![game, role, phase, digest],
            |r| r.get(0),
        )?;
        read_opt_time(t)
    }

    /// The wrong passwords given for `role` in `game` after `since`, oldest first.
    pub fn signon_failures(
        &self,
        game: i64,
        role: &Role,
        since: DateTime<Utc>,
    ) -> Result<Vec<SignonFailure>, StoreError> {
        let mut st = self.0.prepare_cached(
            "SELECT address, registered, at FROM signon_failures
             WHERE game = ?1 AND role = ?2 AND at > ?3 ORDER BY at",
        )?;
        let rows: Vec<(String, bool, String)> = st
            .query_map(params![game, role, time(since)], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })?
            .collect::<Result<_, _>>()?;
        rows.into_iter()
            .map(|(address, registered, at)| {
                Ok(SignonFailure {
                    address,
                    registered,
                    at: read_time(&at)?,
                })
            })
            .collect()
    }

    /// The game called `name`, capitals aside (a SIGNON's game): the one written exactly so
    /// first.
    pub fn game_any_case(&self, name: &str) -> Result<Option<Game>, StoreError> {
        Ok(self
            .0
            .query_row(
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
    pub fn view(&self) -> View<'_> {
        View(&self.0)
    }

    /// Makes every change of the transaction lasting.
    pub fn commit(self) -> Result<(), StoreError> {
        Ok(self.0.commit()?)
    }

    /// Adds a game; its id.
    pub fn insert_game(&self, g: &Game, now: DateTime<Utc>) -> Result<i64, StoreError> {
        self.0.execute(
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
    pub fn set_state(&self, game: i64, state: GameState) -> Result<(), StoreError> {
        self.0.execute(
            "UPDATE games SET state = ?2 WHERE id = ?1",
            params![game, state],
        )?;
        Ok(())
    }

    /// Sets (or replaces) a role's player.
    pub fn set_player(
        &self,
        game: i64,
        role: &Role,
        address: &Address,
        password_hash: &str,
    ) -> Result<(), StoreError> {
        self.0.execute(
            "INSERT INTO players (game, power, address, password_hash) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (game, power) DO UPDATE SET address = ?3, password_hash = ?4",
            params![game, role, address, password_hash],
        )?;
        Ok(())
    }

    /// Changes a player's password; false when the role has no player.
    pub fn set_password(
        &self,
        game: i64,
        role: &Role,
        password_hash: &str,
    ) -> Result<bool, StoreError> {
        let n = self.0.execute(
            "UPDATE players SET password_hash = ?3 WHERE game = ?1 AND power = ?2",
            params![game, role, password_hash],
        )?;
        Ok(n == 1)
    }

    /// Changes a player's address; false when the role has no player.
    pub fn set_address(
        &self,
        game: i64,
        role: &Role,
        address: &Address,
    ) -> Result<bool, StoreError> {
        let n = self.0.execute(
            "UPDATE players SET address = ?3 WHERE game = ?1 AND power = ?2",
            params![game, role, address],
        )?;
        Ok(n == 1)
    }

    /// Stores a game's settings as `g` has them: zone, periods, wait, pictures and the press
    /// options.
    pub fn set_settings(&self, g: &Game) -> Result<(), StoreError> {
        self.0.execute(
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

    /// Adds a phase to play, with the powers that owe orders in it; its id.
    pub fn insert_phase(
        &self,
        game: i64,
        position: &Position,
        owe: &[String],
        deadline: Option<DateTime<Utc>>,
        now: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        let seq: i64 = self.0.query_row(
            "SELECT COALESCE(MAX(seq), 0) + 1 FROM phases WHERE game = ?1",
            [game],
            |r| r.get(0),
        )?;
        self.0.execute(
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
    pub fn finish_phase(
        &self,
        phase: i64,
        report: &PhaseReport,
        now: DateTime<Utc>,
        late: &[String],
        missing: &[String],
    ) -> Result<bool, StoreError> {
        let n = self.0.execute(
            "UPDATE phases SET report = ?2, processed_at = ?3, late = ?4, missing = ?5
             WHERE id = ?1 AND report IS NULL AND superseded = 0",
            params![phase, json(report), time(now), json(&late), json(&missing)],
        )?;
        Ok(n == 1)
    }

    /// Sets a phase's deadline (and forgets its reminders).
    pub fn set_deadline(
        &self,
        phase: i64,
        deadline: Option<DateTime<Utc>>,
    ) -> Result<(), StoreError> {
        self.0.execute(
            "UPDATE phases SET deadline = ?2, reminded = ?3 WHERE id = ?1",
            params![phase, deadline.map(time), Reminded::None],
        )?;
        Ok(())
    }

    /// Records the reminders sent for a phase.
    pub fn set_reminded(&self, phase: i64, reminded: Reminded) -> Result<(), StoreError> {
        self.0.execute(
            "UPDATE phases SET reminded = ?2 WHERE id = ?1",
            params![phase, reminded],
        )?;
        Ok(())
    }

    /// Sets aside every phase of the game from `seq` on (kept as history).
    pub fn supersede_from(&self, game: i64, seq: i64) -> Result<(), StoreError> {
        self.0.execute(
            "UPDATE phases SET superseded = 1 WHERE game = ?1 AND seq >= ?2",
            params![game, seq],
        )?;
        Ok(())
    }

    /// Stores an order text (or, with `cleared`, a CLEAR of the text given) for a power in a
    /// phase; earlier rows are kept, the latest is in force.
    pub fn add_orders(&self, phase: i64, t: &OrderText) -> Result<(), StoreError> {
        self.0.execute(
            "INSERT INTO orders (phase, power, text, received, by, cleared)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![phase, t.power, t.text, time(t.received), t.by, t.cleared],
        )?;
        Ok(())
    }

    /// Records a GM action; `command` is carried into the phase's GM commands.
    pub fn add_gm_action(
        &self,
        game: i64,
        phase: Option<i64>,
        action: &str,
        command: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.0.execute(
            "INSERT INTO gm_actions (game, phase, action, command, at) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![game, phase, action, command, time(now)],
        )?;
        Ok(())
    }

    /// Stores press sent in a game (from a power or the GM, to the powers named; `grey`: the
    /// sender not told to them).
    #[allow(clippy::too_many_arguments)]
    pub fn add_press(
        &self,
        game: i64,
        phase: Option<i64>,
        from: &str,
        to: &str,
        body: &str,
        grey: bool,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.0.execute(
            "INSERT INTO press (game, phase, sender, recipients, body, at, grey)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![game, phase, from, to, body, time(now), grey],
        )?;
        Ok(())
    }

    /// Has the queued mail `id` carry the stored picture of `phase`.
    pub fn mail_picture(&self, id: i64, phase: i64) -> Result<(), StoreError> {
        self.0.execute(
            "UPDATE outbox SET picture = ?2 WHERE id = ?1",
            params![id, phase],
        )?;
        Ok(())
    }

    /// Has the queued mail `id` carry `png`, a picture of its own.
    pub fn mail_png(&self, id: i64, png: &[u8]) -> Result<(), StoreError> {
        self.0
            .execute("UPDATE outbox SET png = ?2 WHERE id = ?1", params![id, png])?;
        Ok(())
    }

    /// Queues a mail.
    pub fn queue_mail(&self, m: &NewMail, now: DateTime<Utc>) -> Result<i64, StoreError> {
        self.0.execute(
            "INSERT INTO outbox (game, phase, kind, recipient, subject, body, state, tries,
                                 created, in_reply_to)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 0, ?8, ?9)",
            params![
                m.game,
                m.phase,
                m.kind,
                m.to,
                m.subject,
                m.body,
                MailState::Queued,
                time(now),
                m.in_reply_to
            ],
        )?;
        Ok(self.0.last_insert_rowid())
    }

    /// Stores `png` as the picture of `phase` and attaches it to the phase's result mails.
    pub fn attach_picture(&self, phase: i64, png: &[u8]) -> Result<(), StoreError> {
        self.0.execute(
            "INSERT OR REPLACE INTO pictures (phase, png) VALUES (?1, ?2)",
            params![phase, png],
        )?;
        self.0.execute(
            "UPDATE outbox SET picture = ?1 WHERE phase = ?1 AND kind = ?2",
            params![phase, MailKind::Results],
        )?;
        Ok(())
    }

    /// Takes a due mail for one try: fixes its Message-ID (kept if it has one) and holds it
    /// from other senders until `until`, so two `outbox send`s never send it at once, and a
    /// sender killed mid-send leaves it to be tried again after `until`. False when it is no
    /// longer due.
    pub fn claim_mail(
        &self,
        id: i64,
        message_id: &str,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let n = self.0.execute(
            "UPDATE outbox SET message_id = COALESCE(message_id, ?2), next_try = ?4
             WHERE id = ?1 AND state IN ('queued', 'failed')
                   AND (next_try IS NULL OR next_try <= ?3)",
            params![id, message_id, time(now), time(until)],
        )?;
        Ok(n == 1)
    }

    /// Marks a mail sent; a generated password it carried is masked in its body (sent, it is
    /// the player's to keep, not the judge's).
    pub fn mail_sent(&self, id: i64, now: DateTime<Utc>) -> Result<(), StoreError> {
        self.0.execute(
            "UPDATE outbox SET state = ?3, tries = tries + 1, error = NULL, sent_at = ?2,
                    next_try = NULL, fault = NULL, failing_since = NULL, given_up = NULL,
                    body = CASE WHEN secret IS NULL THEN body
                                ELSE replace(body, secret, '******') END,
                    secret = NULL
             WHERE id = ?1",
            params![id, time(now), MailState::Sent],
        )?;
        Ok(())
    }

    /// Marks a try of a mail failed at `now`, with why: tried again from `retry` on, or, with
    /// none, given up. The first failure since it was queued starts its retry days.
    pub fn mail_failed(
        &self,
        id: i64,
        error: &str,
        fault: Fault,
        retry: Option<DateTime<Utc>>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let state = if retry.is_some() {
            MailState::Failed
        } else {
            MailState::Undeliverable
        };
        self.0.execute(
            "UPDATE outbox SET state = ?2, tries = tries + 1, error = ?3, next_try = ?4,
                    fault = ?5, failing_since = COALESCE(failing_since, ?6),
                    given_up = CASE WHEN ?4 IS NULL THEN ?6 END
             WHERE id = ?1",
            params![id, state, error, retry.map(time), fault, time(now)],
        )?;
        Ok(())
    }

    /// Queues a given-up mail again, as if new (its Message-ID kept): false when mail `id`
    /// isn't given up.
    pub fn requeue_mail(&self, id: i64) -> Result<bool, StoreError> {
        let n = self.0.execute(
            "UPDATE outbox SET state = ?2, tries = 0, next_try = NULL, failing_since = NULL,
                    given_up = NULL
             WHERE id = ?1 AND state = ?3",
            params![id, MailState::Queued, MailState::Undeliverable],
        )?;
        Ok(n == 1)
    }

    /// Queues again every mail given up at `since` or later because the server couldn't be
    /// reached; their row ids.
    pub fn requeue_unreachable(&self, since: DateTime<Utc>) -> Result<Vec<i64>, StoreError> {
        let mut st = self.0.prepare_cached(
            "UPDATE outbox SET state = ?2, tries = 0, next_try = NULL, failing_since = NULL,
                    given_up = NULL
             WHERE state = ?3 AND fault = ?4 AND given_up >= ?1
             RETURNING id",
        )?;
        let ids = st.query_map(
            params![
                time(since),
                MailState::Queued,
                MailState::Undeliverable,
                Fault::Unreachable
            ],
            |r| r.get(0),
        )?;
        let mut ids: Vec<i64> = ids.collect::<Result<_, _>>()?;
        ids.sort_unstable();
        Ok(ids)
    }

    /// Stores a received message, `stored`; its row id.
    pub fn store_message(&self, m: &NewMessage, now: DateTime<Utc>) -> Result<i64, StoreError> {
        self.0.execute(
            "INSERT INTO inbox (message_id, digest, sender, size, raw, received, state, secrets)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                m.message_id,
                m.digest,
                m.sender,
                i64::try_from(m.size).unwrap_or(i64::MAX),
                m.raw,
                time(now),
                InboxState::Stored,
                m.secrets
            ],
        )?;
        Ok(self.0.last_insert_rowid())
    }

    /// Sets what became of a received message still `stored`: its state, the game it
    /// concerned, why (in words) when it was not answered. Its passwords kept apart are
    /// dropped: it is handled. False when it is no longer `stored` (another napjudge answered
    /// it first): a message is answered once.
    pub fn set_message_state(
        &self,
        id: i64,
        state: InboxState,
        game: Option<i64>,
        note: Option<&str>,
    ) -> Result<bool, StoreError> {
        let n = self.0.execute(
            "UPDATE inbox SET state = ?2, game = ?3, note = ?4, secrets = NULL
             WHERE id = ?1 AND state = ?5",
            params![id, state, game, note, InboxState::Stored],
        )?;
        Ok(n == 1)
    }

    /// Records a mail handled after its SIGNON (with the received message `inbox`).
    pub fn add_handled(&self, inbox: i64, h: &HandledMail) -> Result<(), StoreError> {
        self.0.execute(
            "INSERT INTO handled (inbox, game, power, phase, dated, digest)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![inbox, h.game, h.role, h.phase, time(h.dated), h.digest],
        )?;
        Ok(())
    }

    /// Forgets the wrong passwords given at `since` or before (the throttle looks no further
    /// back).
    pub fn forget_signon_failures(&self, since: DateTime<Utc>) -> Result<(), StoreError> {
        self.0
            .execute("DELETE FROM signon_failures WHERE at <= ?1", [time(since)])?;
        Ok(())
    }

    /// Records a wrong password in a SIGNON for `role` in `game` from `sender` (`registered`:
    /// the role's own address).
    pub fn add_signon_failure(
        &self,
        game: i64,
        role: &Role,
        sender: &Address,
        registered: bool,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.0.execute(
            "INSERT INTO signon_failures (game, role, address, registered, at)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![game, role, sender.folded(), registered, time(now)],
        )?;
        Ok(())
    }

    /// Keeps `secret` (a generated password in the mail's body) with the queued mail `id`, to be
    /// masked once it is sent.
    pub fn mail_secret(&self, id: i64, secret: &str) -> Result<(), StoreError> {
        self.0.execute(
            "UPDATE outbox SET secret = ?2 WHERE id = ?1",
            params![id, secret],
        )?;
        Ok(())
    }
}
