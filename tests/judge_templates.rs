//! Snapshot tests of every mail template (issue 9, "Results"), rendered from a real game played
//! through the store with a fixed clock: Winter 1800 bids, a Spring and an Autumn movement (with
//! a dislodgement and its retreats), the Autumn retreat, the Winter 1801 adjustments with the
//! tracking sheet, the GM's preview, a reminder and the password mail.

use chrono::{DateTime, Utc};
use napjudge_judge::{
    parse_time, Author, Judge, MailConfig, MailKind, NewGame, Period, Periods, Store,
};

/// The judge over `db`, and the time its calls are made at.
fn judge(db: &std::path::Path, now: &str) -> (Judge, DateTime<Utc>) {
    (
        Judge::new(Store::open(db).expect("db")),
        parse_time(now).expect("time"),
    )
}

fn results(db: &std::path::Path, subject: &str) -> String {
    let st = Store::open(db).expect("db");
    crate::golden::queued(st.view())
        .into_iter()
        .find(|m| m.subject == subject)
        .map(|m| m.body)
        .unwrap_or_else(|| panic!("no mail '{subject}'"))
}

/// Game `demo`, not started: its GM, zone and periods.
fn demo() -> NewGame {
    NewGame {
        name: "demo".into(),
        variant: "napoleonic".into(),
        gm: "gm@example.org".into(),
        timezone: "Europe/Paris".into(),
        periods: Periods {
            movement: Period::hours(48),
            retreat: Period::hours(24),
            winter: Period::hours(48),
            grace: Period::hours(24),
            remind: Period::hours(12),
        },
        wait: false,
        options: Vec::new(),
        pictures: true,
        press: Default::default(),
    }
}

#[test]
fn every_template_renders_a_real_game() {
    let db = crate::intake::scratch("every-template").join("t.db");
    let (mut j, now) = judge(&db, "2026-01-10T09:00:00Z");
    crate::common::start_five_players(
        &mut j,
        now,
        "demo",
        "Europe/Paris",
        crate::golden::two_day_periods(),
        |p| format!("{}@example.org", p.to_lowercase()),
    );
    for (p, o) in [
        ("France", "BID 6 Denmark\nBID 9 Spain\n"),
        ("England", "BID 4 Portugal"),
        ("Austria", "BID 3 Bavaria"),
        ("Prussia", "BID 4 Wurzburg"),
        ("Russia", "BID 3 Sweden"),
    ] {
        j.orders("demo", p, o, Author::Player, now).expect("orders");
    }
    j.process("demo", false, now).expect("Winter 1800");
    insta::assert_snapshot!(
        "winter_1800_bids",
        results(&db, "demo: results of Winter 1800 Bids")
    );

    for (p, o) in [
        ("France", "A(Par)-Bur\nF(Bre)-MAO\nF(Mar)-GOL\nA(Bor) H\n"),
        ("Austria", "A(Vie)-Boh\nA(Bud)-Gal\nA(Tra) H\nF(Dal)-ADR\n"),
        ("Prussia", "A(Ber)-Sax\nA(Kon) H\nA(Kol) H\nA(Brt) H\n"),
        ("Russia", "A(StP)-Fin\nA(Sib) H\nA(Azo)-Cau\nA(Mos) H\n"),
    ] {
        j.orders("demo", p, o, Author::Player, now).expect("orders");
    }
    let preview = j.process("demo", true, now).expect("preview");
    insta::assert_snapshot!("preview_spring_1801", preview.results);

    // A reminder to England, 11 hours before the deadline (12 January, 09:00 UTC).
    let (mut j, now) = judge(&db, "2026-01-11T22:00:00Z");
    let cfg = MailConfig {
        judge: "judge@napjudge.invalid".into(),
        max_size: napjudge_judge::MAX_SIZE,
    };
    napjudge_judge::tick(&mut j, &cfg, now).expect("tick");
    let st = Store::open(&db).expect("db");
    let reminder = crate::golden::queued(st.view())
        .into_iter()
        .find(|m| m.kind == MailKind::Reminder)
        .expect("a reminder");
    insta::assert_snapshot!(
        "reminder",
        format!(
            "To: {}\nSubject: {}\n\n{}",
            reminder.to, reminder.subject, reminder.body
        )
    );
    drop(st);

    j.orders(
        "demo",
        "England",
        "F(Lon)-NTH\nF(Sco)-NWG\nA(Lpl)-Wal\nF(Sar)-TYS\n",
        Author::Player,
        now,
    )
    .expect("orders");
    j.process("demo", false, now).expect("Spring");
    insta::assert_snapshot!(
        "spring_1801_movement",
        results(&db, "demo: results of Spring 1801 Movement")
    );

    for (p, o) in [
        ("Prussia", "A(Kol)-Han\n"),
        ("France", "F(Den) S A(Kol)-Han\nA(Bur) H\nF(MAO)-Por\n"),
        ("Austria", "A(Boh) H\n"),
        ("England", "F(NTH) H\n"),
    ] {
        j.orders("demo", p, o, Author::Player, now).expect("orders");
    }
    j.process("demo", false, now).expect("Autumn");
    insta::assert_snapshot!(
        "autumn_1801_movement",
        results(&db, "demo: results of Autumn 1801 Movement")
    );
    j.process("demo", false, now).expect("Autumn retreat");
    insta::assert_snapshot!(
        "autumn_1801_retreat",
        results(&db, "demo: results of Autumn 1801 Retreat")
    );

    for (p, o) in [
        ("France", "BID 3 Denmark"),
        ("England", "BID 3 Portugal"),
        ("Prussia", "BID 3 Wurzburg"),
    ] {
        j.orders("demo", p, o, Author::Player, now).expect("orders");
    }
    j.process("demo", false, now).expect("Winter 1801");
    insta::assert_snapshot!(
        "winter_1801_adjustment",
        results(&db, "demo: results of Winter 1801 Adjustment")
    );

    // The password mail `game assign` sends with no password given, before the game starts;
    // the generated password is replaced by a fixed one for the snapshot.
    let db = db.with_file_name("password.db");
    let (j, now) = judge(&db, "2026-01-10T09:00:00Z");
    let mut j = j.with_address("judge@example.org");
    j.create(&demo(), now).expect("create");
    j.assign("demo", "Russia", "russia@example.org", None, now)
        .expect("assign");
    let mail = j
        .view()
        .mails(None)
        .expect("outbox")
        .into_iter()
        .find(|m| m.to == "russia@example.org")
        .expect("the password mail");
    let generated = mail
        .body
        .lines()
        .find_map(|l| l.strip_prefix("Your password: "))
        .expect("a password");
    let password = mail.body.replace(generated, "k7Qm2xTz9pLw");
    insta::assert_snapshot!("password", password);
}
