//! The schema, one migration per version: a file is migrated forward on open, and a file newer
//! than this program is refused.

use super::StoreError;
use rusqlite::Connection;

/// The schema version this program writes.
pub const VERSION: i64 = 19;

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
    // Version 2 (mail intake): every message received is kept raw; replies to mail that names no game
    // (HELP, an unknown game) need an outbox row without a game, so the outbox is rebuilt with `game`
    // nullable (SQLite can't drop a NOT NULL in place).
    r#"
CREATE TABLE inbox (
    id         INTEGER PRIMARY KEY,
    message_id TEXT,                 -- the Message-ID header, without brackets
    digest     TEXT NOT NULL,        -- SHA-256 of the raw bytes, hex
    sender     TEXT NOT NULL,        -- the From address as given ('' when there is none)
    size       INTEGER NOT NULL,
    raw        BLOB NOT NULL,
    received   TEXT NOT NULL,
    state      TEXT NOT NULL,        -- stored, answered, duplicate, ignored
    game       INTEGER REFERENCES games(id),
    note       TEXT                  -- why it was ignored or refused, in words
);
CREATE INDEX inbox_message_id ON inbox (message_id);
CREATE INDEX inbox_digest ON inbox (digest);
CREATE TABLE signon_failures (
    address TEXT NOT NULL,           -- lower case
    at      TEXT NOT NULL
);
CREATE INDEX signon_failures_address ON signon_failures (address, at);
CREATE TABLE outbox_v2 (
    id        INTEGER PRIMARY KEY,
    game      INTEGER REFERENCES games(id),
    phase     INTEGER REFERENCES phases(id),
    kind      TEXT NOT NULL,       -- results, reminder, password, reply, press
    recipient TEXT NOT NULL,
    subject   TEXT NOT NULL,
    body      TEXT NOT NULL,
    state     TEXT NOT NULL,       -- queued, sent, failed
    error     TEXT,
    tries     INTEGER NOT NULL DEFAULT 0,
    created   TEXT NOT NULL,
    sent_at   TEXT
);
INSERT INTO outbox_v2 SELECT * FROM outbox;
DROP TABLE outbox;
ALTER TABLE outbox_v2 RENAME TO outbox;
CREATE INDEX outbox_state ON outbox (state);
"#,
    // Version 3 (mail out): delivery by SMTP.
    r#"
-- Delivery by SMTP: a mail's Message-ID is fixed at its first try, so a resend after a crash
-- between the server's acceptance and marking it sent carries the same one; a failed mail
-- waits until next_try (back-off); state 'undeliverable' once it was given up.
ALTER TABLE outbox ADD COLUMN message_id TEXT;
ALTER TABLE outbox ADD COLUMN next_try TEXT;
"#,
    // Version 4 (game options): the rule switches a game is played with, as a JSON list of
    // `NAME=on|off` (`["webdiplomacy=on"]`); a game of an older file has none.
    r#"
ALTER TABLE games ADD COLUMN options TEXT NOT NULL DEFAULT '[]';
"#,
    // Version 5 (pictures of the board).
    r#"
-- The GM can turn the picture in result mails off (game set NAME pictures off).
ALTER TABLE games ADD COLUMN pictures INTEGER NOT NULL DEFAULT 1;
-- A processed phase's picture (PNG), stored once in the transaction that queues its result
-- mails; each of those mails names it, so a retry after a crash carries the same bytes.
CREATE TABLE pictures (
    phase INTEGER PRIMARY KEY REFERENCES phases(id),
    png   BLOB NOT NULL
);
ALTER TABLE outbox ADD COLUMN picture INTEGER REFERENCES pictures(phase);
"#,
    // Version 6: a reply names the message it answers (In-Reply-To), so mail programs thread it.
    r#"
ALTER TABLE outbox ADD COLUMN in_reply_to TEXT;
"#,
    r#"
-- A player's CLEAR is a row of the orders' history, not a deletion: its text is what it
-- cleared, and from it on the power has no orders in the phase.
ALTER TABLE orders ADD COLUMN cleared INTEGER NOT NULL DEFAULT 0;
"#,
    // Version 8 (delivery through outages): a mail is retried for days from its first
    // failure, not for a number of tries; why its last try failed decides whether it is retried
    // and whether it is sent again by itself once the server is back (given up at `given_up`).
    r#"
ALTER TABLE outbox ADD COLUMN fault TEXT;
ALTER TABLE outbox ADD COLUMN failing_since TEXT;
ALTER TABLE outbox ADD COLUMN given_up TEXT;
"#,
    // Version 9: the throttle counts per game and power, and no password is kept.
    r#"
-- The old throttle counted wrong passwords per address across every game, so a forged From
-- locked a player out everywhere: it counts per game and role now, and its old rows name
-- neither.
DROP TABLE signon_failures;
-- Each wrong password of a SIGNON (an argon2 check), kept for the throttle's window.
CREATE TABLE signon_failures (
    game       INTEGER NOT NULL REFERENCES games(id),
    role       TEXT NOT NULL,
    address    TEXT NOT NULL,      -- the sender, lower case
    registered INTEGER NOT NULL,   -- 1: the address the judge mails the role at
    at         TEXT NOT NULL
);
CREATE INDEX signon_failures_role ON signon_failures (game, role, at);
-- A stored mail's raw text has its passwords masked; one not yet answered keeps them apart
-- ('LINE PASSWORD' lines), for the tick that answers it, and loses them when it is answered.
ALTER TABLE inbox ADD COLUMN secrets TEXT;
-- A generated password mailed: masked in the mail's body once the mail is sent.
ALTER TABLE outbox ADD COLUMN secret TEXT;
"#,
    // Version 10 (stale mail and replays).
    r#"
-- When a phase became current: a mail received before it (answered late, by tick)
-- belongs to an earlier phase and its orders are not used. NULL for phases stored before.
ALTER TABLE phases ADD COLUMN started TEXT;
-- Every mail handled after a SIGNON: its date (the Date header, bounded by the time received),
-- so that an older mail of the same power is refused, and the digest of the text read, so that
-- the same text again in the same phase is refused as a replay.
CREATE TABLE handled (
    inbox  INTEGER NOT NULL REFERENCES inbox(id),
    game   INTEGER NOT NULL REFERENCES games(id),
    power  TEXT NOT NULL,            -- the power's name, or GM
    phase  INTEGER REFERENCES phases(id),  -- the current phase at the mail's time, if any
    dated  TEXT NOT NULL,
    digest TEXT NOT NULL             -- SHA-256 of the text read, hex
);
CREATE INDEX handled_power ON handled (game, power, phase);
"#,
    // Version 11 (seats and observers).
    r#"
-- Per game: after how many phases in a row without orders a power is abandoned (0: never),
-- and whether anyone may OBSERVE it by mail. A game without a row: never, and yes.
CREATE TABLE seat_rules (
    game          INTEGER PRIMARY KEY REFERENCES games(id),
    abandon_after INTEGER NOT NULL,
    observers     INTEGER NOT NULL
);
-- Phases in a row the power's player has sent no orders: reset by orders and by a new player.
ALTER TABLE players ADD COLUMN missed INTEGER NOT NULL DEFAULT 0;
-- Every seat left or given after the start: resigned, abandoned, replaced, taken over.
CREATE TABLE seat_changes (
    id          INTEGER PRIMARY KEY,
    game        INTEGER NOT NULL REFERENCES games(id),
    power       TEXT NOT NULL,
    change      TEXT NOT NULL,
    old_address TEXT,
    new_address TEXT,
    missed      INTEGER NOT NULL DEFAULT 0,  -- phases missed, for an abandoned seat
    at          TEXT NOT NULL
);
CREATE INDEX seat_changes_power ON seat_changes (game, power);
-- The GM's one-time codes for an open seat (TAKEOVER): the SHA-256 of the code, never the code.
CREATE TABLE takeover_codes (
    id     INTEGER PRIMARY KEY,
    game   INTEGER NOT NULL REFERENCES games(id),
    power  TEXT NOT NULL,
    digest TEXT NOT NULL,
    issued TEXT NOT NULL,
    used   TEXT,                     -- when it was used
    void   INTEGER NOT NULL DEFAULT 0  -- 1: a newer code, or the seat was given
);
-- Who observes a game: its results and broadcast press, nothing else.
CREATE TABLE observers (
    game    INTEGER NOT NULL REFERENCES games(id),
    address TEXT NOT NULL COLLATE NOCASE,
    since   TEXT NOT NULL,
    PRIMARY KEY (game, address)
);
"#,
    // Version 12 (waiting, absence, endings).
    r#"
-- The GM's limits on waiting and absence; a game without a row has the defaults.
CREATE TABLE game_timing (
    game              INTEGER PRIMARY KEY REFERENCES games(id),
    delay             INTEGER NOT NULL,  -- seconds after the last orders before an early process
    absence_max_days  INTEGER NOT NULL,  -- the longest absence, in days
    absences_per_year INTEGER NOT NULL   -- absences per power per calendar year (of FROM)
);
-- A player's own choices: WAIT/NOWAIT (NULL: the game's wait), the secret draw vote and the
-- power the player concedes to.
CREATE TABLE choices (
    game    INTEGER NOT NULL REFERENCES games(id),
    power   TEXT NOT NULL,
    wait    INTEGER,
    draw    INTEGER NOT NULL DEFAULT 0,
    concede TEXT,
    PRIMARY KEY (game, power)
);
-- Absences registered by SET ABSENCE: no deadline falls inside one.
CREATE TABLE absences (
    id      INTEGER PRIMARY KEY,
    game    INTEGER NOT NULL REFERENCES games(id),
    power   TEXT NOT NULL,
    start   TEXT NOT NULL,
    end     TEXT NOT NULL,
    created TEXT NOT NULL
);
CREATE INDEX absences_game ON absences (game, start);
-- How a finished game ended (a finished game of an older napjudge has none: a victory).
CREATE TABLE endings (
    game   INTEGER PRIMARY KEY REFERENCES games(id),
    kind   TEXT NOT NULL,   -- victory, draw, concession, gm
    powers TEXT NOT NULL,   -- JSON list: the winners, the powers of the draw, the power conceded to
    reason TEXT NOT NULL,   -- the GM's words, or empty
    phase  TEXT NOT NULL,   -- the phase it ended in, as the game names it
    at     TEXT NOT NULL
);
"#,
    // Version 13 (players' mail): press as the game allows, and the board on request.
    r#"
-- Which press the players may send (white, grey, public, none), whether the players are known
-- by their powers only (a gunboat game), and whether the GM gets a copy of private press.
ALTER TABLE games ADD COLUMN press TEXT NOT NULL DEFAULT 'white';
ALTER TABLE games ADD COLUMN anonymous INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN gm_copy INTEGER NOT NULL DEFAULT 0;
-- Grey press: the judge keeps the sender, and no one it went to is told.
ALTER TABLE press ADD COLUMN grey INTEGER NOT NULL DEFAULT 0;
-- A mail's own picture (a MAP of the board now), when it is not a processed phase's stored one.
ALTER TABLE outbox ADD COLUMN png BLOB;
"#,
    // Version 14 (a game as its players live it): where each password came from, and when.
    r#"
-- mailed (generated and mailed by the judge), gm (the GM chose it), player (SET PASSWORD); an
-- older napjudge's rows have none.
ALTER TABLE players ADD COLUMN password_from TEXT;
ALTER TABLE players ADD COLUMN password_set TEXT;
"#,
    // Version 15 (a game as its players live it): orders sent with a line refused hold the phase
    // for their power.
    r#"
-- 1: the text these orders came in had a line refused; until the power's next orders (or the
-- deadline) the phase is not processed early.
ALTER TABLE orders ADD COLUMN flawed INTEGER NOT NULL DEFAULT 0;
"#,
    // Version 16 (issue 31: strangers' mail): OBSERVE by confirmation, observers capped, and
    // the replies to strangers counted per address.
    r#"
-- The most observers a game takes (0: none by mail): it was a switch, and on is the default cap.
UPDATE seat_rules SET observers = 20 WHERE observers = 1;
-- OBSERVE asks; only a CONFIRM OBSERVE from the address, with the token mailed to it, subscribes.
CREATE TABLE observe_requests (
    id       INTEGER PRIMARY KEY,
    game     INTEGER NOT NULL REFERENCES games(id),
    address  TEXT NOT NULL,          -- the address to observe, lower case
    asked_by TEXT NOT NULL,          -- the request's From, lower case
    digest   TEXT NOT NULL,          -- SHA-256 of the token, never the token
    asked    TEXT NOT NULL,
    expires  TEXT NOT NULL,
    used     TEXT                    -- when it was confirmed
);
CREATE INDEX observe_requests_digest ON observe_requests (game, digest);
CREATE INDEX observe_requests_address ON observe_requests (address, asked);
CREATE INDEX observe_requests_asked_by ON observe_requests (asked_by, asked);
-- Each mail to an address that plays, runs and observes no game, in answer to mail from it
-- (a reply, a confirmation request): a few a day, whatever a forger sends in its name.
CREATE TABLE stranger_mail (
    address TEXT NOT NULL,           -- lower case
    at      TEXT NOT NULL
);
CREATE INDEX stranger_mail_address ON stranger_mail (address, at);
"#,
    // Version 17 (issue 35, speed): the mail waiting to be answered found without reading every
    // stored mail (each tick asks; a scan read each mail's raw bytes to reach its state).
    r#"
CREATE INDEX inbox_stored ON inbox (state, received);
"#,
    // Version 18 (issue 34): what the GM did at the shell, so that a game folder can replay it.
    r#"
-- The napjudge arguments (JSON list: ["game", "resume", "life"]) of a GM's shell command that
-- changed the game; NULL for an action by mail or one the shell's own record doesn't cover.
ALTER TABLE gm_actions ADD COLUMN shell TEXT;
"#,
    // Version 19 (issue 35, speed): whether an address plays, runs or observes any game, asked
    // for each mail queued (a stranger's are capped), found without reading every player, game
    // and observer.
    r#"
CREATE INDEX players_address_folded ON players (lower(address));
CREATE INDEX games_gm_folded ON games (lower(gm));
CREATE INDEX observers_address_folded ON observers (lower(address));
"#,
];

/// Brings the file to [`VERSION`], each step in its own transaction.
pub(super) fn migrate(conn: &mut Connection, path: &str) -> Result<(), StoreError> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A file at `version` holding a game (the first version's columns) and one result mail
    /// sent.
    fn old_file(version: usize) -> Connection {
        let conn = Connection::open_in_memory().expect("sqlite");
        for sql in &MIGRATIONS[..version] {
            conn.execute_batch(sql).expect("an old version");
        }
        conn.pragma_update(None, "user_version", version as i64)
            .expect("version");
        conn.execute_batch(
            "INSERT INTO games (id, name, variant, gm, timezone, movement, retreat, winter,
                                grace, remind, wait, state, created)
             VALUES (1, 'g', 'napoleonic', 'gm@example.org', 'UTC', 1, 1, 1, 1, 1, 0, 'running',
                     '2026-07-01T10:00:00Z');
             INSERT INTO outbox (game, kind, recipient, subject, body, state, created)
             VALUES (1, 'results', 'a@example.org', 's', 'b', 'sent', '2026-07-01T10:00:00Z');",
        )
        .expect("the old rows");
        conn
    }

    /// A file of the first version opens and migrates forward through every version: its
    /// outbox is kept, replies without a game can then be queued, and its mails have no
    /// Message-ID yet (fixed at their first try, version 3).
    #[test]
    fn a_version_1_file_migrates_to_the_current_version() {
        let mut conn = old_file(1);
        migrate(&mut conn, ":memory:").expect("migrates");
        let version: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .expect("version");
        assert_eq!(version, VERSION);
        let kept: (i64, String, String, Option<String>) = conn
            .query_row(
                "SELECT game, kind, state, message_id FROM outbox",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .expect("the old mail");
        assert_eq!(kept, (1, "results".into(), "sent".into(), None));
        conn.execute(
            "INSERT INTO outbox (game, kind, recipient, subject, body, state, created)
             VALUES (NULL, 'reply', 'b@example.org', 's', 'b', 'queued', '2026-07-01T11:00:00Z')",
            [],
        )
        .expect("a reply without a game");
        let inbox: i64 = conn
            .query_row("SELECT COUNT(*) FROM inbox", [], |r| r.get(0))
            .expect("the inbox table");
        assert_eq!(inbox, 0);
    }

    /// Issue 35: whether an address is known (asked for each mail queued) reads schema 19's
    /// indexes on the folded addresses, not every player, game and observer.
    #[test]
    fn whether_an_address_is_known_is_found_by_index() {
        let mut conn = old_file(18);
        migrate(&mut conn, ":memory:").expect("migrates");
        let plan: Vec<String> = conn
            .prepare(&format!(
                "EXPLAIN QUERY PLAN {}",
                super::super::outbox::IS_KNOWN
            ))
            .expect("the plan")
            .query_map(["a@example.org"], |r| r.get::<_, String>(3))
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("the plan's steps");
        for index in [
            "players_address_folded",
            "games_gm_folded",
            "observers_address_folded",
        ] {
            assert!(
                plan.iter().any(|step| step.contains(index)),
                "{index} not used: {plan:?}"
            );
        }
        assert!(
            !plan
                .iter()
                .any(|step| step.starts_with("SCAN") && step != "SCAN CONSTANT ROW"),
            "a table read whole: {plan:?}"
        );
    }

    /// Issue 31: a version 15 file's observers stay, its switch `observers on` becomes the
    /// default number (20) and `off` none; the requests to observe and the count of mail to
    /// strangers start empty.
    #[test]
    fn a_version_15_file_keeps_its_observers_and_its_switch_becomes_a_number() {
        let mut conn = old_file(15);
        conn.execute_batch(
            "INSERT INTO games (id, name, variant, gm, timezone, movement, retreat, winter,
                                grace, remind, wait, state, created)
             VALUES (2, 'h', 'napoleonic', 'gm@example.org', 'UTC', 1, 1, 1, 1, 1, 0, 'running',
                     '2026-07-01T10:00:00Z');
             INSERT INTO seat_rules VALUES (1, 0, 1), (2, 2, 0);
             INSERT INTO observers VALUES (1, 'carol@example.net', '2026-07-01T10:00:00Z');",
        )
        .expect("the old rows");
        migrate(&mut conn, ":memory:").expect("migrates");
        let rules: Vec<(i64, i64, i64)> = conn
            .prepare("SELECT game, abandon_after, observers FROM seat_rules ORDER BY game")
            .expect("query")
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("the rules");
        assert_eq!(rules, [(1, 0, 20), (2, 2, 0)]);
        let kept: String = conn
            .query_row("SELECT address FROM observers WHERE game = 1", [], |r| {
                r.get(0)
            })
            .expect("the observer stays");
        assert_eq!(kept, "carol@example.net");
        for table in ["observe_requests", "stranger_mail"] {
            let n: i64 = conn
                .query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0))
                .expect("the new table");
            assert_eq!(n, 0, "{table}");
        }
    }

    /// A version 3 file migrates to the current version: its games
    /// gain an empty list of options (rule switches), so they keep the variant's own rules, and
    /// send pictures (on by default); its mails carry none, and answer no mail.
    #[test]
    fn a_version_3_file_gains_game_options_and_pictures() {
        let mut conn = old_file(3);
        migrate(&mut conn, ":memory:").expect("migrates");
        let (options, pictures): (String, bool) = conn
            .query_row(
                "SELECT options, pictures FROM games WHERE id = 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .expect("the game");
        assert_eq!(options, "[]");
        assert!(pictures);
        let (picture, in_reply_to): (Option<i64>, Option<String>) = conn
            .query_row("SELECT picture, in_reply_to FROM outbox", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .expect("the mail");
        assert_eq!((picture, in_reply_to), (None, None));
    }
}
