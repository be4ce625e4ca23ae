//! Issue 31's last findings: the judge's mailbox is public, and OBSERVE subscribed whoever the
//! mail's sender (or a Reply-To a stranger chose) was to every results mail at once, uncapped:
//! 300 OBSERVE mails subscribed 300 victims to the results of every phase. Now OBSERVE mails the
//! address a one-time token, and only `CONFIRM OBSERVE GAME TOKEN` from that address subscribes
//! it; a game takes at most its GM's number of observers (20 by default); an address or a sender
//! makes at most 3 requests a day; and an address that plays and observes no game gets at most
//! 10 mails a day in answer to mail, the last one saying so. Real SQLite files and RFC 5322 mails,
//! through `mail::receive`.

use crate::golden::{self, FivePowers};
use crate::intake::{config, scratch};
use chrono::{DateTime, Duration, Utc};
use napjudge_judge::{
    parse_time, receive, tick, Address, Handled, Judge, Mail, MailKind, Setting, Store,
};
use std::path::Path;

fn at(minutes: i64) -> DateTime<Utc> {
    parse_time("2026-07-01T10:00:00Z").expect("time") + Duration::minutes(minutes)
}

/// The standard five players' game `g` (its GM gm@example.org), without pictures.
fn new_game(db: &Path) -> Judge {
    let mut j = Judge::new(Store::open(db).expect("db"));
    FivePowers {
        pictures: false,
        ..FivePowers::new("g")
    }
    .set_up(&mut j, at(0));
    j
}

/// A mail From `from` (and Reply-To `reply_to`, when given) with `body`, its Message-ID `id`.
fn mail(id: &str, from: &str, reply_to: Option<&str>, body: &str) -> String {
    let reply_to = reply_to.map_or(String::new(), |r| format!("Reply-To: {r}\r\n"));
    format!(
        "From: {from}\r\n{reply_to}To: judge@napjudge.invalid\r\nSubject: observe\r\n\
         Date: Wed, 1 Jul 2026 10:00:00 +0000\r\nMessage-ID: <{id}@example.org>\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    )
}

fn send(j: &mut Judge, raw: &str, now: DateTime<Utc>) -> Handled {
    receive(j, &config(), raw.as_bytes(), now).expect("received")
}

fn outbox(j: &Judge) -> Vec<Mail> {
    golden::queued(j.view())
}

/// The mails queued to `to`, of `kind`.
fn to(j: &Judge, to: &str, kind: MailKind) -> Vec<Mail> {
    outbox(j)
        .into_iter()
        .filter(|m| m.to == to && m.kind == kind)
        .collect()
}

fn observers(db: &Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(db).expect("db");
    let mut st = conn
        .prepare("SELECT address FROM observers ORDER BY rowid")
        .expect("query");
    let rows = st.query_map([], |r| r.get(0)).expect("rows");
    rows.collect::<Result<_, _>>().expect("observers")
}

/// The token of the last confirmation request mailed to `address`.
fn token(j: &Judge, address: &str) -> String {
    let asks = to(j, address, MailKind::Confirm);
    let body = &asks.last().expect("a confirmation request").body;
    body.lines()
        .find_map(|l| l.trim().strip_prefix("CONFIRM OBSERVE g "))
        .expect("the line to send back")
        .to_string()
}

/// The last reply queued to `address`.
fn reply(j: &Judge, address: &str) -> String {
    golden::last_reply(j.view(), address)
}

/// Finding: OBSERVE subscribed at once. It mails the address one request naming who asked,
/// the game and the line to send back, and subscribes nobody: the results of the next phase
/// don't go there. Only the line sent back from that address subscribes it.
#[test]
fn observe_subscribes_nobody_until_the_address_confirms() {
    let dir = scratch("confirm");
    let db = dir.join("judge.db");
    let mut j = new_game(&db);
    let raw = mail("ask", "Carol <carol@example.net>", None, "OBSERVE g");
    assert_eq!(send(&mut j, &raw, at(1)), Handled::Answered);
    assert!(
        observers(&db).is_empty(),
        "no observer before the confirmation"
    );
    let asks = to(&j, "carol@example.net", MailKind::Confirm);
    assert_eq!(asks.len(), 1, "one confirmation request");
    let ask = &asks[0].body;
    for said in [
        "The request came from carol@example.net",
        "game 'g'",
        "CONFIRM OBSERVE g ",
        "ignore this mail: nothing changes",
    ] {
        assert!(ask.contains(said), "{said:?} in:\n{ask}");
    }
    let answer = reply(&j, "carol@example.net");
    assert!(
        answer.contains("The judge mailed carol@example.net a request to confirm"),
        "{answer}"
    );
    let raw = mail("ask-again", "Carol <carol@example.net>", None, "OBSERVE g");
    send(&mut j, &raw, at(2));
    let answer = reply(&j, "carol@example.net");
    assert!(
        answer.contains(
            "ERROR: a request to confirm was mailed to this address for game 'g' already"
        ),
        "{answer}"
    );
    assert!(
        !answer.contains(&token(&j, "carol@example.net")),
        "the reply holds no token"
    );
    // Winter 1800 processed: its results go to the players and the GM only.
    let (_, report) = tick(&mut j, &config(), at(60 * 24 * 4)).expect("tick");
    assert!(report.failed.is_empty(), "{report:?}");
    assert!(
        to(&j, "carol@example.net", MailKind::Results).is_empty(),
        "no results to an address that did not confirm"
    );
    let line = format!("CONFIRM OBSERVE g {}", token(&j, "carol@example.net"));
    let raw = mail("yes", "Carol <carol@example.net>", None, &line);
    send(&mut j, &raw, at(60 * 24 * 4 + 1));
    assert_eq!(observers(&db), ["carol@example.net"]);
    assert!(
        reply(&j, "carol@example.net").contains("You now observe game 'g'"),
        "{}",
        reply(&j, "carol@example.net")
    );
    // One request at a time: a second OBSERVE before the confirmation mailed nothing more.
    assert_eq!(to(&j, "carol@example.net", MailKind::Confirm).len(), 1);
    // The token works once.
    let raw = mail("again", "Carol <carol@example.net>", None, &line);
    send(&mut j, &raw, at(60 * 24 * 4 + 2));
    assert!(
        reply(&j, "carol@example.net").contains("was used already"),
        "{}",
        reply(&j, "carol@example.net")
    );
}

/// A confirmation from another address (with the right token), one with a wrong token, and
/// one after the token's 7 days are refused and change nothing.
#[test]
fn a_confirmation_from_another_address_or_with_a_wrong_or_expired_token_changes_nothing() {
    let dir = scratch("wrong-token");
    let db = dir.join("judge.db");
    let mut j = new_game(&db);
    send(
        &mut j,
        &mail("ask", "carol@example.net", None, "OBSERVE g"),
        at(1),
    );
    let good = token(&j, "carol@example.net");
    let before = golden::game_state(&db, &["SELECT * FROM observe_requests ORDER BY id"]);
    let tries = [
        ("other", "mallory@evil.example", good.as_str(), at(2)),
        ("wrong", "carol@example.net", "Xy7kPq2mZz9a", at(3)),
        (
            "late",
            "carol@example.net",
            good.as_str(),
            at(60 * 24 * 7 + 2),
        ),
    ];
    for (id, from, token, now) in tries {
        let raw = mail(id, from, None, &format!("CONFIRM OBSERVE g {token}"));
        assert_eq!(send(&mut j, &raw, now), Handled::Answered, "{id}");
        let answer = reply(&j, from);
        let want = match id {
            "late" => "was good until",
            _ => "that is not a token the judge mailed this address to observe game 'g'",
        };
        assert!(answer.contains(want), "{id}: {answer}");
        assert!(answer.contains("Nothing was done"), "{id}: {answer}");
        assert!(!answer.contains(token), "{id}: the token is not echoed");
        assert!(observers(&db).is_empty(), "{id}: nobody observes");
        assert_eq!(
            before,
            golden::game_state(&db, &["SELECT * FROM observe_requests ORDER BY id"]),
            "{id} changed the game"
        );
    }
}

/// A game takes 20 observers by default: the 21st OBSERVE is refused with a clear sentence,
/// and no confirmation request goes out; `observers 21` takes one more.
#[test]
fn the_21st_observer_is_refused_with_the_default_cap() {
    let dir = scratch("cap");
    let db = dir.join("judge.db");
    let mut j = new_game(&db);
    for i in 0..20 {
        let a = Address::new(&format!("watcher{i}@example.net"));
        j.observe("g", &a, at(1)).expect("the GM adds an observer");
    }
    let raw = mail("21st", "carol@example.net", None, "OBSERVE g");
    send(&mut j, &raw, at(2));
    let answer = reply(&j, "carol@example.net");
    assert!(
        answer.contains(
            "ERROR: game 'g' has 20 observers, as many as its GM takes: OBSERVE is refused \
             until one leaves"
        ),
        "{answer}"
    );
    assert!(to(&j, "carol@example.net", MailKind::Confirm).is_empty());
    assert_eq!(observers(&db).len(), 20);
    j.set("g", &Setting::Observers(21), at(3))
        .expect("the GM takes one more");
    let raw = mail("21st-again", "carol@example.net", None, "OBSERVE g");
    send(&mut j, &raw, at(4));
    let line = format!("CONFIRM OBSERVE g {}", token(&j, "carol@example.net"));
    send(
        &mut j,
        &mail("yes", "carol@example.net", None, &line),
        at(5),
    );
    assert_eq!(observers(&db).len(), 21);
}

/// At most 3 requests a day for one address, or from one sender: the 4th is refused and no
/// confirmation request goes out.
#[test]
fn a_sender_makes_at_most_three_requests_a_day() {
    let dir = scratch("requests");
    let db = dir.join("judge.db");
    let mut j = new_game(&db);
    for i in 0..4 {
        let victim = format!("victim{i}@example.net");
        let raw = mail(
            &format!("ask{i}"),
            "mallory@evil.example",
            Some(&victim),
            "OBSERVE g",
        );
        send(&mut j, &raw, at(i + 1));
    }
    let asks: Vec<String> = outbox(&j)
        .into_iter()
        .filter(|m| m.kind == MailKind::Confirm)
        .map(|m| m.to)
        .collect();
    assert_eq!(
        asks,
        [
            "victim0@example.net",
            "victim1@example.net",
            "victim2@example.net"
        ]
    );
    let answer = reply(&j, "victim3@example.net");
    assert!(
        answer.contains(
            "3 requests to observe came for this address or from this sender in the last 24 \
             hours"
        ),
        "{answer}"
    );
    // A day later the sender may ask again.
    let raw = mail(
        "tomorrow",
        "mallory@evil.example",
        Some("victim3@example.net"),
        "OBSERVE g",
    );
    send(&mut j, &raw, at(60 * 24 + 5));
    assert_eq!(to(&j, "victim3@example.net", MailKind::Confirm).len(), 1);
}

/// The finding's attack: 300 OBSERVE mails from one stranger, each naming another victim in
/// Reply-To. No victim is subscribed, 3 confirmation requests go out, no victim gets more than
/// a reply and a request, and the next results go to the players and the GM only.
#[test]
fn three_hundred_observes_naming_three_hundred_victims_subscribe_nobody() {
    let dir = scratch("three-hundred");
    let db = dir.join("judge.db");
    let mut j = new_game(&db);
    let before = outbox(&j).len();
    for i in 0..300 {
        let raw = mail(
            &format!("flood{i}"),
            "mallory@evil.example",
            Some(&format!("victim{i}@example.net")),
            "OBSERVE g",
        );
        send(&mut j, &raw, at(1));
    }
    let queued: Vec<Mail> = outbox(&j).into_iter().skip(before).collect();
    let asks = queued
        .iter()
        .filter(|m| m.kind == MailKind::Confirm)
        .count();
    assert_eq!(asks, 3, "the sender's 3 requests a day");
    assert_eq!(queued.len(), 300 + 3, "a reply each, and 3 requests");
    for i in 0..300 {
        let victim = format!("victim{i}@example.net");
        assert!(queued.iter().filter(|m| m.to == victim).count() <= 2);
    }
    assert!(observers(&db).is_empty());
    let (_, report) = tick(&mut j, &config(), at(60 * 24 * 4)).expect("tick");
    assert!(report.failed.is_empty(), "{report:?}");
    let results = outbox(&j)
        .into_iter()
        .filter(|m| m.kind == MailKind::Results)
        .count();
    assert_eq!(results, 6, "five players and the GM");
}

/// A stranger's address gets at most 10 mails a day in answer to mail, whoever sends them in
/// its name: the 10th says it is the last until when, the 11th and 12th are read and stored but
/// not answered. A day after the first, it is answered again; a player is never capped, nor a
/// mail signed on with a power's password from an address no game has (a player's phone).
#[test]
fn a_strangers_address_gets_ten_replies_a_day_and_the_last_says_so() {
    let dir = scratch("stranger");
    let db = dir.join("judge.db");
    let mut j = new_game(&db);
    let victim = "victim@example.net";
    for i in 0..12 {
        // Forged in the victim's name: From, or a Reply-To.
        let raw = match i % 2 {
            0 => mail(&format!("help{i}"), victim, None, "HELP"),
            _ => mail(
                &format!("help{i}"),
                "mallory@evil.example",
                Some(victim),
                "HELP",
            ),
        };
        assert_eq!(send(&mut j, &raw, at(i + 1)), Handled::Answered, "{i}");
    }
    let replies = to(&j, victim, MailKind::Reply);
    assert_eq!(replies.len(), 10, "10 replies a day");
    let last = &replies[9].body;
    assert!(
        last.starts_with(
            "This is the last mail this address gets from the judge today: it answers at most \
             10 mails a day from an address that plays and observes no game. Further mails are read \
             but not answered until Thursday 2 July 2026, 10:01 UTC"
        ),
        "{last}"
    );
    assert!(!replies[8].body.contains("the last mail"));
    let notes = golden::dump(
        &db,
        &["SELECT state, note FROM inbox WHERE sender = 'victim@example.net' ORDER BY id"],
    );
    assert!(
        notes.contains("not answered: its sender had the 10 mails a day"),
        "{notes}"
    );
    // An OBSERVE past the cap mails no request either.
    send(&mut j, &mail("observe", victim, None, "OBSERVE g"), at(20));
    assert!(to(&j, victim, MailKind::Confirm).is_empty());
    // A day after the first reply, one more.
    send(
        &mut j,
        &mail("tomorrow", victim, None, "HELP"),
        at(60 * 24 + 1),
    );
    assert_eq!(to(&j, victim, MailKind::Reply).len(), 11);
    // France's player, as many as she sends.
    for i in 0..12 {
        let raw = mail(&format!("france{i}"), "france@example.org", None, "HELP");
        send(&mut j, &raw, at(i + 1));
    }
    assert_eq!(to(&j, "france@example.org", MailKind::Reply).len(), 12);
    // France's player from her phone, an address no game has: signed on with her password,
    // every mail is answered; with a wrong one, she is a stranger.
    let phone = "france.phone@example.net";
    for i in 0..12 {
        // Each a different text: the same text again in a phase is refused as a replay.
        let body = format!(
            "SIGNON France g pw-france\nLIST\n{}",
            "HELP\n".repeat(i as usize)
        );
        let raw = mail(&format!("phone{i}"), phone, None, &body);
        send(&mut j, &raw, at(i + 1));
    }
    assert_eq!(to(&j, phone, MailKind::Reply).len(), 12, "signed on");
    for i in 0..12 {
        let raw = mail(
            &format!("wrong{i}"),
            phone,
            None,
            "SIGNON France g wrong\nLIST",
        );
        send(&mut j, &raw, at(i + 1));
    }
    assert_eq!(
        to(&j, phone, MailKind::Reply).len(),
        12 + 10,
        "10 as a stranger's"
    );
}

/// A stranger's worst mail, 1 MB of OBSERVE, TAKEOVER and CONFIRM OBSERVE lines with long
/// fields, gets one reply under 50 kB with no line over 998 characters, subscribes nobody and
/// mails one confirmation request, for its first OBSERVE: its 19 others of the same game mail
/// none.
#[test]
fn a_strangers_worst_mail_gets_one_small_reply_and_subscribes_nobody() {
    let dir = scratch("worst");
    let db = dir.join("judge.db");
    let mut j = new_game(&db);
    let raw = worst_mail();
    assert!(raw.len() > 1_000_000 && raw.len() <= napjudge_judge::MAX_SIZE);
    let before = outbox(&j).len();
    assert_eq!(send(&mut j, &raw, at(1)), Handled::Answered);
    let queued: Vec<Mail> = outbox(&j).into_iter().skip(before).collect();
    let replies: Vec<&Mail> = queued
        .iter()
        .filter(|m| m.kind == MailKind::Reply)
        .collect();
    assert_eq!(replies.len(), 1);
    let body = &replies[0].body;
    assert!(body.len() < 50_000, "{} bytes", body.len());
    let longest = body.lines().map(str::len).max().unwrap_or(0);
    assert!(longest <= 998, "a line of {longest}");
    assert!(replies[0].subject.len() <= 998);
    assert!(
        queued
            .iter()
            .filter(|m| m.kind == MailKind::Confirm)
            .count()
            <= 1
    );
    assert!(observers(&db).is_empty());
}

/// The worst mail a stranger can send within the size limit: 1 MB of commands with long
/// fields, a long From and Subject, and a Reply-To naming someone else (docs/performance.md
/// measures `mail receive` on a mail like it).
fn worst_mail() -> String {
    let long = "x".repeat(900);
    let mut body = String::new();
    for i in 0.. {
        // No SIGNON: a refused one would end the mail at once, and this one runs its 100
        // commands.
        let line = match i % 5 {
            0 => "OBSERVE g".to_string(),
            1 => format!("OBSERVE {long}"),
            2 => format!("TAKEOVER France g {long}"),
            3 => format!("CONFIRM OBSERVE g {long}"),
            _ => format!("TAKEOVER {long} g code"),
        };
        body.push_str(&line);
        body.push_str("\r\n");
        if body.len() >= 1_020_000 {
            break;
        }
    }
    mail(
        "worst",
        &format!("\"{}\" <mallory@evil.example>", "m".repeat(500)),
        Some("victim@example.net"),
        &body,
    )
    .replace("Subject: observe", &format!("Subject: {}", "s".repeat(900)))
}
