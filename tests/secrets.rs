//! Issue 19, findings 4 and 6: a throttle a forged sender can't turn against the owner, and no
//! password at rest; issue 31 (a public mailbox), findings 1, 6 and 5(b): no argon2 for a wrong
//! takeover code, a throttle that can't be raced, no password in the WAL. Real mails through `mail::receive` on a real SQLite file, read back with a
//! connection of the test's own.

use crate::common;
use crate::golden;
use crate::intake;
use chrono::{DateTime, Utc};
use intake::{config, scratch, JUDGE};
use napjudge_judge::{
    mask_passwords, parse_time, receive, secrets_text, tick, Handled, Judge, MailKind, NewMessage,
    PasswordCost, Retry, Store, Target, OTHERS_LIMIT, OWNER_LIMIT, SENDER_LIMIT,
};
use std::path::{Path, PathBuf};

fn at(minutes: i64) -> DateTime<Utc> {
    parse_time("2026-07-01T10:00:00Z").expect("time") + chrono::Duration::minutes(minutes)
}

/// Game `g` in a new judge in the folder of test `name`, each power played from
/// `power@example.org` with the password `pw` (hashed light: the throttle is about how many
/// checks are made, not what each costs): the judge and its database.
fn new_game(name: &str) -> (Judge, PathBuf) {
    let db = scratch(name).join("judge.db");
    let mut j = Judge::new(Store::open(&db).expect("db")).with_password_cost(PasswordCost::Light);
    common::start_five_players(&mut j, at(0), "g", "UTC", common::day_periods(), |p| {
        format!("{}@example.org", p.to_lowercase())
    });
    (j, db)
}

/// A plain mail from `from` with `body`.
fn mail_from(from: &str, id: &str, body: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: {JUDGE}\r\nSubject: orders\r\nMessage-ID: <{id}@example.org>\r\n\r\n{body}"
    )
    .into_bytes()
}

/// A SIGNON for France with a wrong password from `from`, of Message-ID `<ID@example.org>`,
/// received at `when`.
fn guess(j: &mut Judge, from: &str, id: &str, when: DateTime<Utc>) {
    let m = mail_from(from, id, "SIGNON France g guess\r\n");
    receive(j, &config(), &m, when).expect("stored");
}

/// The wrong passwords checked for `role` in game `g`, as stored for the throttle (one row per
/// argon2 check that failed; a refused SIGNON is not checked and leaves none).
fn checks(db: &Path, role: &str) -> i64 {
    rusqlite::Connection::open(db)
        .expect("db")
        .query_row(
            "SELECT COUNT(*) FROM signon_failures WHERE role = ?1",
            [role],
            |r| r.get(0),
        )
        .expect("the attempts")
}

/// Finding 4: five wrong-password mails with France's own address forged in `From:` locked the
/// real player out of SIGNON for six hours. Now the owner's correct password still works.
#[test]
fn five_forged_wrong_passwords_do_not_lock_the_owner_out() {
    let (mut j, _) = new_game("forged");
    let cfg = config();
    for i in 0..5 {
        guess(&mut j, "france@example.org", &format!("forged{i}"), at(i));
    }
    let m = mail_from(
        "france@example.org",
        "owner",
        "SIGNON France g pw\r\nLIST\r\n",
    );
    assert_eq!(
        receive(&mut j, &cfg, &m, at(6)).expect("stored"),
        Handled::Answered
    );
    let reply = golden::last_reply(j.view(), "france@example.org");
    assert!(
        reply.contains("Signed on as France in game 'g'."),
        "{reply}"
    );
}

/// Finding 4: rotating the sender (From or Reply-To) gave unlimited guesses. Now at most
/// OTHERS_LIMIT wrong passwords for a power are checked per six hours from addresses other than its
/// own, each sender at most SENDER_LIMIT; the rest are refused unchecked with the time to try
/// again, and the owner, writing from the power's address, still signs on.
#[test]
fn rotating_senders_get_a_bounded_number_of_checks() {
    let (mut j, db) = new_game("rotating");
    let cfg = config();
    // One sender, over its own limit.
    for i in 0..SENDER_LIMIT + 3 {
        guess(&mut j, "mallory@evil.example", &format!("one{i}"), at(1));
    }
    assert_eq!(checks(&db, "France"), SENDER_LIMIT as i64);
    let reply = golden::last_reply(j.view(), "mallory@evil.example");
    assert!(
        reply.contains("came from mallory@evil.example in the last 6h")
            && reply.contains("until Wednesday 1 July 2026, 16:01 UTC"),
        "{reply}"
    );
    // A hundred senders, half of them by Reply-To.
    for i in 0..100 {
        let m = if i % 2 == 0 {
            mail_from(
                &format!("x{i}@evil.example"),
                &format!("many{i}"),
                "SIGNON France g guess\r\n",
            )
        } else {
            format!(
                "From: france@example.org\r\nReply-To: y{i}@evil.example\r\nTo: {JUDGE}\r\n\
                 Message-ID: <many{i}@example.org>\r\n\r\nSIGNON France g guess\r\n"
            )
            .into_bytes()
        };
        receive(&mut j, &cfg, &m, at(2)).expect("stored");
    }
    assert_eq!(checks(&db, "France"), OTHERS_LIMIT as i64);
    let reply = golden::last_reply(j.view(), "y99@evil.example");
    assert!(
        reply.contains("from addresses other than France's own")
            && reply.contains("checks only mail from the address it mails France at")
            // The five guesses of 10:01 leave the window then.
            && reply.contains("until Wednesday 1 July 2026, 16:01 UTC"),
        "{reply}"
    );
    // Even the right password is not checked from another address now...
    let m = mail_from("friend@example.net", "friend", "SIGNON France g pw\r\n");
    receive(&mut j, &cfg, &m, at(3)).expect("stored");
    assert!(golden::last_reply(j.view(), "friend@example.net").contains("Too many wrong passwords"));
    // ... but the owner's is, and other powers are not touched.
    for (from, body) in [
        ("france@example.org", "SIGNON France g pw\r\n"),
        ("england@example.org", "SIGNON England g pw\r\n"),
    ] {
        let m = mail_from(from, from, body);
        assert_eq!(
            receive(&mut j, &cfg, &m, at(4)).expect("stored"),
            Handled::Answered
        );
        assert!(
            golden::last_reply(j.view(), from).contains("Signed on as"),
            "{from}"
        );
    }
    assert_eq!(checks(&db, "France"), OTHERS_LIMIT as i64);
    // Six hours after the guesses, they no longer count.
    // (LIST: the same text as the owner's mail above would be refused as a copy, issue 19.)
    let m = mail_from(
        "friend@example.net",
        "friend2",
        "SIGNON France g pw\r\nLIST\r\n",
    );
    receive(&mut j, &cfg, &m, at(6 * 60 + 3)).expect("stored");
    assert!(golden::last_reply(j.view(), "friend@example.net").contains("Signed on as France"));
}

/// Finding 4, the one case left: a sender forging the owner's own address, blind (the replies
/// go to the owner), gets OWNER_LIMIT checks per six hours, and the owner's reply says so.
#[test]
fn guesses_from_the_owners_own_address_are_bounded_too() {
    let (mut j, db) = new_game("owner");
    for i in 0..OWNER_LIMIT + 5 {
        guess(&mut j, "France@Example.org", &format!("f{i}"), at(1));
    }
    assert_eq!(checks(&db, "France"), OWNER_LIMIT as i64);
    let reply = golden::last_reply(j.view(), "France@Example.org");
    assert!(
        reply.contains("from France's own address") && reply.contains("tell your GM"),
        "{reply}"
    );
}

/// The `inbox.raw` of every mail, as stored.
fn stored_raw(db: &Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(db).expect("db");
    let mut st = conn
        .prepare("SELECT raw, secrets FROM inbox ORDER BY id")
        .expect("query");
    let rows = st
        .query_map([], |r| {
            Ok((r.get::<_, Vec<u8>>(0)?, r.get::<_, Option<String>>(1)?))
        })
        .expect("rows");
    rows.map(|r| {
        let (raw, secrets) = r.expect("row");
        assert_eq!(secrets, None, "an answered mail keeps no password apart");
        String::from_utf8_lossy(&raw).into_owned()
    })
    .collect()
}

/// Finding 6: `inbox.raw` kept every SIGNON and SET PASSWORD line. Now the stored copy has them
/// masked, whether the body was plain, quoted-printable, base64 or HTML only, and the mail was
/// read with its password all the same.
#[test]
fn stored_mail_has_no_password_in_any_encoding() {
    let (mut j, db) = new_game("raw");
    let cfg = config();
    // "SIGNON France g pw\r\nSET PASSWORD n3wsecret\r\n" in base64.
    let b64 = "U0lHTk9OIEZyYW5jZSBnIHB3DQpTRVQgUEFTU1dPUkQgbjN3c2VjcmV0DQo=";
    let mails = [
        mail_from(
            "france@example.org",
            "plain",
            "SIGNON France g pw\r\nLIST\r\n> SIGNON France g pw\r\n",
        ),
        format!(
            "From: france@example.org\r\nTo: {JUDGE}\r\nMessage-ID: <b64@example.org>\r\n\
             MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\
             Content-Transfer-Encoding: base64\r\n\r\n{b64}\r\n"
        )
        .into_bytes(),
        format!(
            "From: france@example.org\r\nTo: {JUDGE}\r\nMessage-ID: <qp@example.org>\r\n\
             MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=\"b\"\r\n\r\n\
             --b\r\nContent-Type: text/plain; charset=utf-8\r\n\
             Content-Transfer-Encoding: quoted-printable\r\n\r\nSIGNON France g n3=\r\nwsecret\r\nSUMMARY\r\n\
             --b\r\nContent-Type: text/html\r\n\r\n<p>SIGNON France g n3wsecret</p><p>LIST</p>\r\n--b--\r\n"
        )
        .into_bytes(),
        format!(
            "From: france@example.org\r\nTo: {JUDGE}\r\nMessage-ID: <html@example.org>\r\n\
             MIME-Version: 1.0\r\nContent-Type: text/html\r\n\r\n\
             <html><body><p>SIGNON France g n3wsecret</p><p>HISTORY</p></body></html>\r\n"
        )
        .into_bytes(),
    ];
    for (i, m) in mails.iter().enumerate() {
        receive(&mut j, &cfg, m, at(i as i64)).expect("stored");
        let reply = golden::last_reply(j.view(), "france@example.org");
        assert!(reply.contains("Signed on as France"), "mail {i}: {reply}");
    }
    let raw = stored_raw(&db);
    assert_eq!(raw.len(), 4);
    for (i, r) in raw.iter().enumerate() {
        assert!(
            !r.contains("pw\r") && !r.contains("n3wsecret") && !r.contains(b64),
            "mail {i}: {r}"
        );
        assert!(r.contains("SIGNON France g ******"), "mail {i}: {r}");
    }
    assert!(raw[0].contains("> SIGNON France g ******"), "{}", raw[0]);
    assert!(raw[1].contains("SET PASSWORD ******"), "{}", raw[1]);
}

/// Finding 6: the digest that recognises a redelivered copy is of the bytes received, so a copy
/// of a mail without a Message-ID is still a duplicate though the stored copy is masked.
#[test]
fn a_redelivered_copy_of_a_masked_mail_is_a_duplicate() {
    let (mut j, _) = new_game("redelivered");
    let cfg = config();
    let m = format!(
        "From: france@example.org\r\nTo: {JUDGE}\r\nSubject: bids\r\n\r\nSIGNON France g pw\r\nBID 6 Denmark\r\n"
    );
    let first = receive(&mut j, &cfg, m.as_bytes(), at(1)).expect("stored");
    let again = receive(&mut j, &cfg, m.as_bytes(), at(2)).expect("stored");
    assert_eq!((first, again), (Handled::Answered, Handled::Duplicate));
}

/// Finding 6 with a killed `receive`: the passwords of a mail stored but not answered are kept
/// apart from its masked copy, so the tick that answers it signs on as `receive` would have,
/// and they are dropped once it is answered.
#[test]
fn a_mail_left_unanswered_is_answered_by_tick_and_then_keeps_no_password() {
    let (mut j, db) = new_game("pending");
    let (masked, secrets) = mask_passwords("SIGNON France g pw\r\nBID 6 Denmark\r\n");
    let raw = format!(
        "From: france@example.org\r\nTo: {JUDGE}\r\nMessage-ID: <k@example.org>\r\n\r\n{masked}"
    );
    // What `receive` writes before it answers (and where a kill leaves it).
    j.store_message(
        &NewMessage {
            message_id: Some("k@example.org"),
            digest: "0",
            sender: "france@example.org",
            raw: raw.as_bytes(),
            size: raw.len() as u64,
            secrets: Some(&secrets_text(&secrets)),
        },
        at(1),
    )
    .expect("stored");
    let (answered, _) = tick(&mut j, &config(), at(30)).expect("tick");
    assert_eq!(answered, 1);
    let reply = golden::last_reply(j.view(), "france@example.org");
    assert!(reply.contains("Signed on as France"), "{reply}");
    assert!(reply.contains("BID 6 Denmark"), "{reply}");
    let raw = stored_raw(&db);
    assert!(!raw[0].contains("pw\r"), "{}", raw[0]);
}

/// Finding 6: `outbox.body` kept generated passwords after sending. Now the mail goes out with
/// the password, and its stored body has it masked once sent.
#[test]
fn a_sent_password_mail_keeps_no_password() {
    let dir = scratch("outbox");
    let db = dir.join("judge.db");
    let mut j = Judge::new(Store::open(&db).expect("db")).with_password_cost(PasswordCost::Light);
    j.create(
        &common::new_game("g", "napoleonic", common::day_periods()),
        at(0),
    )
    .expect("create");
    assert!(j
        .assign("g", "France", "france@example.org", None, at(0))
        .expect("assign"));
    let body = |j: &Judge| {
        golden::queued(j.view())
            .into_iter()
            .find(|m| m.kind == MailKind::Password)
            .map(|m| m.body)
            .expect("the password mail")
    };
    let queued = body(&j);
    let password = queued
        .lines()
        .find_map(|l| l.strip_prefix("Your password: "))
        .expect("the password line")
        .to_string();
    let out = dir.join("out");
    let retry = Retry {
        days: 7,
        minutes: 5,
        limit: None,
    };
    let sent = j
        .send_outbox(&Target::Dir(out.clone()), JUDGE, retry, at(1))
        .expect("sent");
    assert_eq!(sent.sent, 1);
    let delivered: String = std::fs::read_dir(&out)
        .expect("the mails")
        .map(|e| std::fs::read_to_string(e.expect("entry").path()).expect("eml"))
        .collect();
    assert!(delivered.contains(&password), "the player gets it");
    let kept = body(&j);
    assert!(!kept.contains(&password), "{kept}");
    assert!(kept.contains("Your password: ******"), "{kept}");
}

/// Finding 6: the database was created world-readable (0644). Now it and its WAL files are
/// 0600, and opening one others can read warns with the chmod to run.
#[cfg(unix)]
#[test]
fn the_database_is_private_and_a_readable_one_is_warned_of() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("mode");
    let db = dir.join("judge.db");
    let store = Store::open(&db).expect("db");
    let mode = |p: &Path| std::fs::metadata(p).expect("the file").permissions().mode() & 0o777;
    assert_eq!(mode(&db), 0o600);
    for ext in ["judge.db-wal", "judge.db-shm"] {
        assert_eq!(mode(&dir.join(ext)), 0o600, "{ext}");
    }
    drop(store);
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_napjudge"))
        .arg("--db")
        .arg(&db)
        .args(["game", "list"])
        .output()
        .expect("napjudge runs");
    assert!(o.status.success(), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!("chmod 600 {}", db.display())),
        "{err}"
    );
}

/// Issue 31, finding 4b: `outbox send --to-dir` wrote its `.eml` files 0644, and some hold a
/// generated password. They are written 0600, and so is a mail whose half-written file a crashed
/// send left behind, readable by others (issue 35: that file is no longer removed first, only
/// when it is there).
#[cfg(unix)]
#[test]
fn mails_written_to_a_folder_are_readable_by_their_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let (mut j, db) = new_game("eml-mode");
    let out = db.with_file_name("out");
    std::fs::create_dir_all(&out).expect("the folder");
    let leftover = out.join(".000001.eml.tmp");
    std::fs::write(&leftover, "half a mail").expect("the crashed send's file");
    std::fs::set_permissions(&leftover, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let retry = Retry::from_config(&Default::default());
    let sent = j
        .send_outbox(&Target::Dir(out.clone()), JUDGE, retry, at(1))
        .expect("sent");
    assert!(sent.sent > 0, "{sent:?}");
    for entry in std::fs::read_dir(&out).expect("the mails") {
        let path = entry.expect("entry").path();
        let mode = std::fs::metadata(&path).expect("eml").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{}", path.display());
    }
    assert!(!leftover.exists(), "the leftover became the mail");
    let first = std::fs::read_to_string(out.join("000001.eml")).expect("the first mail");
    assert!(
        first.contains("Message-ID:") && !first.contains("half a mail"),
        "{first}"
    );
}

/// The players' rows (power, address, password hash): what a refused TAKEOVER leaves alone.
fn players(db: &Path) -> Vec<(String, String, String)> {
    let conn = rusqlite::Connection::open(db).expect("db");
    let mut st = conn
        .prepare("SELECT power, address, password_hash FROM players ORDER BY power")
        .expect("query");
    let rows = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("rows");
    rows.map(|r| r.expect("row")).collect()
}

/// Issue 31, finding 1: a stranger's mail of 100 `TAKEOVER France g wrongcode` lines cost 3-4.6 s
/// of CPU: each line hashed a new password with argon2 before its code was checked, with no
/// throttle, and France's seat needn't even be open. Now the code is checked first (its SHA-256
/// looked up), a password is hashed only for a good code, and a wrong code counts under the
/// SIGNON's throttle: the first SENDER_LIMIT lines are checked and refused, the rest refused as
/// throttled unchecked, and no player's row changes.
#[test]
fn a_flood_of_wrong_takeover_codes_is_throttled_and_hashes_nothing() {
    let (mut j, db) = new_game("takeover-flood");
    let before = players(&db);
    let m = mail_from(
        "mallory@evil.example",
        "takeover-flood",
        &"TAKEOVER France g wrongcode\r\n".repeat(100),
    );
    assert_eq!(
        receive(&mut j, &config(), &m, at(1)).expect("stored"),
        Handled::Answered
    );
    let reply = golden::last_reply(j.view(), "mallory@evil.example");
    assert_eq!(
        reply.matches("TAKEOVER France g ...").count(),
        100,
        "{reply}"
    );
    assert_eq!(
        reply.matches("France has a player in game 'g'").count(),
        SENDER_LIMIT,
        "{reply}"
    );
    assert_eq!(
        reply
            .matches("Too many wrong passwords or takeover codes for France in game 'g'")
            .count(),
        100 - SENDER_LIMIT,
        "{reply}"
    );
    assert_eq!(checks(&db, "France"), SENDER_LIMIT as i64);
    assert_eq!(players(&db), before, "no seat changed hands");
    // The same sender's SIGNON for France is throttled by the same count.
    let m = mail_from("mallory@evil.example", "then", "SIGNON France g pw\r\n");
    receive(&mut j, &config(), &m, at(2)).expect("stored");
    assert!(
        golden::last_reply(j.view(), "mallory@evil.example").contains("Too many wrong passwords"),
        "throttled"
    );
}

/// Issue 31, finding 6: the throttle could be raced. 40 `mail receive` runs at once, each a
/// wrong password for France from its own sender, all had their password checked (the limit is
/// OTHERS_LIMIT): each read the failures before any had recorded its own. The failures are read,
/// the password checked and a wrong one recorded in one IMMEDIATE transaction, so at most
/// OTHERS_LIMIT are checked and the rest are refused as throttled. Real processes of the binary,
/// at argon2's full cost (the race's window).
#[test]
fn parallel_wrong_passwords_cannot_race_the_throttle() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let dir = scratch("race");
    let db = dir.join("judge.db");
    let mut j = Judge::new(Store::open(&db).expect("db"));
    common::start_five_players(&mut j, at(0), "g", "UTC", common::day_periods(), |p| {
        format!("{}@example.org", p.to_lowercase())
    });
    drop(j);
    let config = dir.join("napjudge.toml");
    std::fs::write(&config, format!("[judge]\naddress = \"{JUDGE}\"\n")).expect("config");
    const RUNS: usize = 40;
    let mut children: Vec<_> = (0..RUNS)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_napjudge"))
                .arg("--db")
                .arg(&db)
                .args(["--now", "2026-07-01T10:01:00Z", "mail", "receive"])
                .env("NAPJUDGE_FROM", JUDGE)
                .env("NAPJUDGE_CONFIG", &config)
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("napjudge runs")
        })
        .collect();
    // Every process is waiting for its mail: they get them all at once.
    for (i, c) in children.iter_mut().enumerate() {
        let m = mail_from(
            &format!("x{i}@evil.example"),
            &format!("race{i}"),
            "SIGNON France g guess\r\n",
        );
        let mut input = c.stdin.take().expect("stdin");
        input.write_all(&m).expect("the mail");
    }
    for c in children {
        let o = c.wait_with_output().expect("napjudge ends");
        assert!(
            o.status.success(),
            "{:?}: {}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        );
    }
    assert_eq!(checks(&db, "France"), OTHERS_LIMIT as i64);
    let j = Judge::new(Store::open(&db).expect("db"));
    let replies: Vec<String> = (0..RUNS)
        .map(|i| golden::last_reply(j.view(), &format!("x{i}@evil.example")))
        .collect();
    let wrong = replies
        .iter()
        .filter(|r| r.contains("Wrong password"))
        .count();
    let throttled = replies
        .iter()
        .filter(|r| r.contains("Too many wrong passwords"))
        .count();
    assert_eq!((wrong, throttled), (OTHERS_LIMIT, RUNS - OTHERS_LIMIT));
}

/// Issue 31, finding 5(b): while `serve` ran, `napjudge.db-wal` held the passwords of SIGNON and
/// SET PASSWORD lines in clear (the main file held none once the mail was answered). After a
/// mail with both is received and answered, on a store in WAL mode as `serve` keeps it (never
/// checkpointed), neither file holds either password's bytes.
#[test]
fn no_password_reaches_the_wal() {
    let dir = scratch("wal");
    let db = dir.join("judge.db");
    let mut j = Judge::new(Store::open(&db).expect("db")).with_password_cost(PasswordCost::Light);
    common::start_five_players(&mut j, at(0), "g", "UTC", common::day_periods(), |p| {
        format!("{}@example.org", p.to_lowercase())
    });
    j.assign(
        "g",
        "France",
        "france@example.org",
        Some("Old-Secret-7q"),
        at(0),
    )
    .expect("France's password");
    let m = mail_from(
        "france@example.org",
        "wal",
        "SIGNON France g Old-Secret-7q\r\nSET PASSWORD New-Secret-9z\r\n",
    );
    assert_eq!(
        receive(&mut j, &config(), &m, at(1)).expect("stored"),
        Handled::Answered
    );
    assert!(golden::last_reply(j.view(), "france@example.org").contains("Signed on as France"));
    let wal = dir.join("judge.db-wal");
    assert!(wal.exists(), "the store is in WAL mode");
    for file in [&db, &wal] {
        let bytes = std::fs::read(file).expect("the file");
        for secret in ["Old-Secret-7q", "New-Secret-9z"] {
            assert!(
                !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
                "{secret} in {}",
                file.display()
            );
        }
    }
    drop(j);
}

/// Issue 31, finding 5(c): `SET PASSWORD a` was accepted, a password one guess away. A new
/// password of fewer than MIN_PASSWORD characters is refused with the rule, and the old one
/// still works; one of that length is taken.
#[test]
fn a_short_new_password_is_refused() {
    use napjudge_judge::MIN_PASSWORD;
    let (mut j, db) = new_game("short");
    let cfg = config();
    let before = players(&db);
    let m = mail_from(
        "france@example.org",
        "short",
        "SIGNON France g pw\r\nSET PASSWORD a\r\n",
    );
    receive(&mut j, &cfg, &m, at(1)).expect("stored");
    let reply = golden::last_reply(j.view(), "france@example.org");
    assert!(
        reply.contains(&format!(
            "a password has at least {MIN_PASSWORD} characters: choose a longer one"
        )) && reply.contains("Nothing was done"),
        "{reply}"
    );
    assert_eq!(players(&db), before, "the password is unchanged");
    let long = "b".repeat(MIN_PASSWORD);
    let m = mail_from(
        "france@example.org",
        "long",
        &format!("SIGNON France g pw\r\nSET PASSWORD {long}\r\n"),
    );
    receive(&mut j, &cfg, &m, at(2)).expect("stored");
    assert!(golden::last_reply(j.view(), "france@example.org").contains("Your password is changed"));
}
