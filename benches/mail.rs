//! Issue 10's figure: one order mail from `mail::receive` to its queued reply (stored raw,
//! parsed, signed on, validated through `game orders`' service, rendered, queued, committed),
//! with the database on disk. The sign-on's argon2 check is part of it, and measured alone too;
//! and the same mail with the password hashed at argon2's least cost (issue 22: what the rest
//! of an order mail costs, the store, the orders' validation and warnings, the reply).
//! Issue 19's figure: a stranger's 1 MB mail (a HELP flood, plain-text noise) to its reply.

#[path = "../tests/common/mod.rs"]
mod common;
mod scratch;

use criterion::{criterion_group, criterion_main, Criterion};
use napjudge_judge::{
    parse_time, receive, verify_password, Handled, Judge, MailConfig, MailKind, PasswordCost, Role,
    Store, MAX_SIZE,
};

/// France's Spring 1801 orders, the `n`th mail: its own Message-ID, and its own text (the case
/// of the orders' 26 letters spells `n`), because the same text again in a phase is refused as
/// a replay, unread: the figure is of orders validated, warned about and acknowledged.
fn order_mail(n: u64) -> String {
    let mut bit = 0u32;
    let orders: String = "A(Par)-Bur\r\nF(Bre)-MAO\r\nF(Mar)-GOL\r\nA(Bor) H\r\n"
        .chars()
        .map(|c| {
            if !c.is_ascii_alphabetic() {
                return c;
            }
            let upper = n.checked_shr(bit).unwrap_or(0) & 1 == 1;
            bit += 1;
            if upper {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect();
    format!(
        "From: France <france@example.org>\r\nTo: judge@napjudge.invalid\r\n\
         Subject: Spring 1801\r\nMessage-ID: <{n}@example.org>\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\n\
         SIGNON France g pw\r\n{orders}"
    )
}

/// The figure `name`: France's orders, each mail its own (`n` counts them across figures), from
/// `mail::receive` to the reply queued. The last reply, when the bench ran, must keep the four.
fn order_figure(
    c: &mut Criterion,
    name: &str,
    j: &mut Judge,
    cfg: &MailConfig,
    now: chrono::DateTime<chrono::Utc>,
    n: &mut u64,
) {
    c.bench_function(name, |b| {
        b.iter(|| {
            *n += 1;
            let raw = order_mail(*n);
            let h = receive(j, cfg, raw.as_bytes(), now).expect("stored");
            assert_eq!(h, Handled::Answered);
        })
    });
    let mails = j.view().mails(None).expect("outbox");
    if let Some(last) = mails.iter().rev().find(|m| m.kind == MailKind::Reply) {
        assert!(last.body.contains("4 of 4 lines kept"), "{}", last.body);
    }
}

fn bench(c: &mut Criterion) {
    let db = scratch::db("mail.db");
    let now = parse_time("2026-07-01T12:00:00Z").expect("time");
    let mut j = Judge::new(Store::open(&db).expect("db"));
    common::start_five_players(&mut j, now, "g", "UTC", common::day_periods(), |p| {
        format!("{}@example.org", p.to_lowercase())
    });
    j.process("g", false, now).expect("Winter 1800");
    let cfg = MailConfig {
        judge: "judge@napjudge.invalid".into(),
        max_size: MAX_SIZE,
    };
    let mut n = 0u64;
    order_figure(
        c,
        "mail/order_mail_to_queued_reply",
        &mut j,
        &cfg,
        now,
        &mut n,
    );
    // The same game with its passwords hashed at the least cost: the mail without argon2's.
    let mut light = Judge::new(Store::open(&scratch::db("mail-light.db")).expect("db"))
        .with_password_cost(PasswordCost::Light);
    common::start_five_players(&mut light, now, "g", "UTC", common::day_periods(), |p| {
        format!("{}@example.org", p.to_lowercase())
    });
    light.process("g", false, now).expect("Winter 1800");
    order_figure(
        c,
        "mail/order_mail_light_password",
        &mut light,
        &cfg,
        now,
        &mut n,
    );
    let hash = j
        .view()
        .password_hash(1, &Role::Power("France".into()))
        .expect("read")
        .expect("a hash");
    c.bench_function("mail/argon2_signon_check", |b| {
        b.iter(|| assert!(verify_password("pw", &hash)))
    });
    // Issue 19: a stranger's 1 MB mail (under the size limit, so read whole), a HELP flood and
    // plain-text noise, from `receive` to its queued reply.
    let help = "HELP\r\n".repeat(1_000_000 / 6);
    let noise: String = (0..500)
        .map(|i| {
            let line: String = (0..2000)
                .map(|k| char::from(b'a' + ((i * 7 + k * 13) % 26) as u8))
                .collect();
            format!("{line}\r\n")
        })
        .collect();
    for (name, body) in [("help_flood", help), ("noise", noise)] {
        c.bench_function(&format!("mail/stranger_1mb_{name}"), |b| {
            b.iter(|| {
                n += 1;
                let raw = format!(
                    "From: <stranger@example.net>\r\nTo: judge@napjudge.invalid\r\n\
                     Subject: hi\r\nMessage-ID: <{n}@example.net>\r\n\
                     Content-Type: text/plain; charset=utf-8\r\n\r\n{body}"
                );
                let h = receive(&mut j, &cfg, raw.as_bytes(), now).expect("stored");
                assert_eq!(h, Handled::Answered);
            })
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
