//! Snapshot tests of every mail template (issue 9, "Results"), rendered from a real game played
//! through the store with a fixed clock: Winter 1800 bids, a Spring and an Autumn movement (with
//! a dislodgement and its retreats), the Autumn retreat, the Winter 1801 adjustments with the
//! tracking sheet, the GM's preview, a reminder and the password mail.

use chrono::{DateTime, Utc};
use napjudge_judge::clock::parse_time;
use napjudge_judge::notice::SeatMail;
use napjudge_judge::render;
use napjudge_judge::MailKind;
use napjudge_judge::{Author, Judge, MailConfig, Store};

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
        max_size: napjudge_judge::mail::MAX_SIZE,
    };
    napjudge_judge::mail::tick(&mut j, &cfg, now).expect("tick");
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

    let password = render::render(
        "password",
        &SeatMail {
            game: "demo",
            power: "Russia",
            gm: false,
            password: Some("k7Qm2xTz9pLw"),
            judge: "judge@example.org",
            gm_address: "gm@example.org",
            phase: None,
            deadline: String::new(),
            zone: "Europe/Paris",
        },
    )
    .expect("renders");
    insta::assert_snapshot!("password", password);
}
