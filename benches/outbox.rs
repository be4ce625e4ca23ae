//! Issue 19, part 4: building an outgoing mail is linear in its body. Today's figures and the
//! ones before the fix are in docs/performance.md. Each iteration builds the RFC 5322 message of
//! a reply (`outgoing_message`) and writes it out (`formatted`), as a send does before SMTP.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use napjudge_judge::{outgoing_message, parse_time, Mail, MailKind, MailState};

/// A reply of about `size` bytes: lines of ordinary text, like the guide a HELP appends.
fn body(size: usize) -> String {
    let line = "Orders are written one a line: A(Par)-Bur, F(Bre) S A(Par)-Pic, A(Mun) H.\n";
    line.repeat(size / line.len() + 1)
}

fn mail(body: String) -> Mail {
    Mail {
        id: 1,
        game: "g".into(),
        kind: MailKind::Reply,
        to: "france@example.org".into(),
        subject: "Re: help".into(),
        body,
        state: MailState::Queued,
        error: None,
        tries: 0,
        created: parse_time("2026-07-01T12:00:00Z").expect("time"),
        message_id: None,
        next_try: None,
        picture: None,
        in_reply_to: None,
        failing_since: None,
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("outbox/message");
    group.sample_size(10);
    for (name, size) in [("100kB", 100_000), ("1MB", 1_000_000), ("4MB", 4_000_000)] {
        let m = mail(body(size));
        group.bench_with_input(BenchmarkId::from_parameter(name), &m, |b, m| {
            b.iter(|| {
                outgoing_message(m, "judge@example.org", "<1@example.org>", None, None)
                    .expect("a message")
                    .formatted()
                    .len()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
