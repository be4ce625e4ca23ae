//! The schema, one migration per version: a file is migrated forward on open, and a file newer
//! than this program is refused.

use super::StoreError;
use rusqlite::Connection;

/// The schema version this program writes.
pub const VERSION: i64 = 2;

/// Migration `i` takes a file from version `i` to `i + 1`.
const MIGRATIONS: [&str; VERSION as usize] = [
    r#"
CREATE TABLE games (
    id       INTEGER PRIMARY KEY,
    name     TEXT NOT NULL UNIQUE,
    variant  TEXT NOT NULL,
    gm       TEXT NOT NULL,
    timezone TEXT NOT NULL,
    movement INTEGER NOT NULL,   -- periods in seconds
    retreat  INTEGER NOT NULL,
    winter   INTEGER NOT NULL,
    grace    INTEGER NOT NULL,
    remind   INTEGER NOT NULL,   -- the reminder goes this long before the deadline
    wait     INTEGER NOT NULL,   -- 1: wait for the deadline even when everyone has ordered
    state    TEXT NOT NULL,      -- forming, running, paused, finished
    created  TEXT NOT NULL
);
CREATE TABLE players (
    game          INTEGER NOT NULL REFERENCES games(id),
    power         TEXT NOT NULL,
    address       TEXT NOT NULL,
    password_hash TEXT NOT NULL,  -- argon2 PHC string, never the password
    PRIMARY KEY (game, power)
);
CREATE TABLE phases (
    id           INTEGER PRIMARY KEY,
    game         INTEGER NOT NULL REFERENCES games(id),
    seq          INTEGER NOT NULL,
    position     TEXT NOT NULL,   -- JSON of the engine's Position
    report       TEXT,            -- JSON of the engine's PhaseReport, once processed
    deadline     TEXT,            -- UTC, RFC 3339
    processed_at TEXT,
    reminded     INTEGER NOT NULL DEFAULT 0,
    superseded   INTEGER NOT NULL DEFAULT 0,  -- set aside by a rollback, kept as history
    late         TEXT NOT NULL DEFAULT '[]',
    missing      TEXT NOT NULL DEFAULT '[]',
    owe          TEXT NOT NULL DEFAULT '[]',  -- powers owing orders (turn::owing), for tick
    UNIQUE (game, seq)
);
CREATE INDEX phases_current ON phases (game, superseded, report);
CREATE TABLE orders (
    id       INTEGER PRIMARY KEY,
    phase    INTEGER NOT NULL REFERENCES phases(id),
    power    TEXT NOT NULL,
    text     TEXT NOT NULL,
    received TEXT NOT NULL,
    by       TEXT NOT NULL         -- player or gm
);
CREATE INDEX orders_phase ON orders (phase, power);
CREATE TABLE gm_actions (
    id      INTEGER PRIMARY KEY,
    game    INTEGER NOT NULL REFERENCES games(id),
    phase   INTEGER REFERENCES phases(id),
    action  TEXT NOT NULL,         -- what the GM did, in words
    command TEXT,                  -- an engine GM command for the phase (CONTROL Denmark France)
    at      TEXT NOT NULL
);
CREATE TABLE press (
    id         INTEGER PRIMARY KEY,
    game       INTEGER NOT NULL REFERENCES games(id),
    phase      INTEGER REFERENCES phases(id),
    sender     TEXT NOT NULL,
    recipients TEXT NOT NULL,
    body       TEXT NOT NULL,
    at         TEXT NOT NULL
);
CREATE TABLE outbox (
    id        INTEGER PRIMARY KEY,
    game      INTEGER NOT NULL REFERENCES games(id),
    phase     INTEGER REFERENCES phases(id),
    kind      TEXT NOT NULL,       -- results, reminder, password
    recipient TEXT NOT NULL,
    subject   TEXT NOT NULL,
    body      TEXT NOT NULL,
    state     TEXT NOT NULL,       -- queued, sent, failed
    error     TEXT,
    tries     INTEGER NOT NULL DEFAULT 0,
    created   TEXT NOT NULL,
    sent_at   TEXT
);
CREATE INDEX outbox_state ON outbox (state);
"#,
    r#"
-- Delivery by SMTP: a mail's Message-ID is fixed at its first try, so a resend after a crash
-- between the server's acceptance and marking it sent carries the same one; a failed mail
-- waits until next_try (back-off); state 'undeliverable' once it was given up.
ALTER TABLE outbox ADD COLUMN message_id TEXT;
ALTER TABLE outbox ADD COLUMN next_try TEXT;
"#,
];

/// Brings the file to [`VERSION`], each step in its own transaction.
pub fn migrate(conn: &mut Connection, path: &str) -> Result<(), StoreError> {
    let found: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if found > VERSION {
        return Err(StoreError::Newer {
            path: path.to_string(),
            found,
            supported: VERSION,
        });
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(found as usize) {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", i as i64 + 1)?;
        tx.commit()?;
    }
    Ok(())
}
