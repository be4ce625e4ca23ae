//! A queued mail as the RFC 5322 message the outbox sends: its headers (a Message-ID that holds
//! across retries, `Auto-Submitted`), its text, its picture and its deadline as a calendar event.

use crate::calendar;
use crate::store::{GameState, Mail, MailKind, Store, StoreError};
use chrono::{DateTime, Utc};
use lettre::message::header::{ContentType, Header, HeaderName, HeaderValue};
use lettre::message::{Attachment, Mailbox, MultiPart, SinglePart};
use lettre::Message;
use std::collections::HashMap;

/// `Auto-Submitted` (RFC 3834): tells vacation responders and other judges not to answer.
#[derive(Clone, Debug, PartialEq, Eq)]
struct AutoSubmitted(&'static str);

impl Header for AutoSubmitted {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("Auto-Submitted")
    }

    fn parse(s: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        match s.trim() {
            "auto-replied" => Ok(AutoSubmitted("auto-replied")),
            "auto-generated" => Ok(AutoSubmitted("auto-generated")),
            other => Err(format!("Auto-Submitted: {other}").into()),
        }
    }

    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), self.0.to_string())
    }
}

/// A new Message-ID for a mail of the judge at `from`: unique across databases too (the row id
/// alone repeats when a judge starts a new file), so the time of the first try is in it.
pub(super) fn new_message_id(mail: &Mail, from: &str, now: DateTime<Utc>) -> String {
    let domain = from
        .rsplit_once('@')
        .map(|(_, d)| d.trim_end_matches('>'))
        .filter(|d| !d.is_empty())
        .unwrap_or("napjudge.invalid");
    let nanos = now.timestamp_nanos_opt().unwrap_or_default();
    // The left part must be a dot-atom: the game's name reduced to letters, digits and '-', and
    // a reply outside any game (HELP, an unknown game) named `mail`.
    let game: String = mail
        .game
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    let game = if game.is_empty() { "mail" } else { &game };
    format!(
        "<napjudge.{game}.{}.{:x}.{}@{domain}>",
        mail.id,
        nanos,
        std::process::id()
    )
}

/// `text` with every line ended by CRLF, in one pass. lettre ends the lines of a body it is given
/// by inserting each missing CR in place, which is quadratic in the body (a 4 MB reply took 28 s
/// to build); given CRLF already, it inserts nothing.
fn crlf(text: &str) -> String {
    let mut out = String::with_capacity(text.len().saturating_add(text.len() / 32));
    let mut rest = text;
    while let Some((line, tail)) = rest.split_once('\n') {
        out.push_str(line.strip_suffix('\r').unwrap_or(line));
        out.push_str("\r\n");
        rest = tail;
    }
    out.push_str(rest);
    out
}

/// A stored time as a Date header. A time before 1970 or past the year 9999 (only a damaged or
/// hand-edited database holds one: every door refuses them) is written as the nearest the header
/// can hold: lettre's date formatting panics on it.
fn header_date(t: DateTime<Utc>) -> std::time::SystemTime {
    let last = DateTime::from_timestamp(253_402_300_799, 0).unwrap_or(t);
    t.clamp(DateTime::UNIX_EPOCH, last).into()
}

/// The message of a mail from `from`, with its Message-ID: plain text, or the same text followed
/// by the picture of the board (a PNG attachment) and the next deadline as a calendar event
/// (`text/calendar`), as multipart/mixed.
pub fn message(
    mail: &Mail,
    from: &str,
    message_id: &str,
    picture: Option<&[u8]>,
    calendar: Option<&str>,
) -> Result<Message, String> {
    let from: Mailbox = from.parse().map_err(|e| format!("sender '{from}': {e}"))?;
    let to: Mailbox = mail
        .to
        .parse()
        .map_err(|e| format!("recipient '{}': {e}", mail.to))?;
    let mut builder = Message::builder()
        .from(from)
        .to(to)
        .subject(mail.subject.clone())
        .date(header_date(mail.created))
        .message_id(Some(message_id.to_string()))
        .header(AutoSubmitted(mail.kind.auto_submitted()));
    if let Some(id) = &mail.in_reply_to {
        builder = builder
            .in_reply_to(format!("<{id}>"))
            .references(format!("<{id}>"));
    }
    let body = crlf(&mail.body);
    if picture.is_none() && calendar.is_none() {
        return builder
            .header(ContentType::TEXT_PLAIN)
            .body(body)
            .map_err(|e| e.to_string());
    }
    let name: String = mail
        .game
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    let mut parts = MultiPart::mixed().singlepart(SinglePart::plain(body));
    if let Some(png) = picture {
        let png_type = ContentType::parse("image/png").map_err(|e| e.to_string())?;
        parts = parts
            .singlepart(Attachment::new(format!("{name}-board.png")).body(png.to_vec(), png_type));
    }
    if let Some(ics) = calendar {
        let ics_type = ContentType::parse("text/calendar; charset=utf-8; method=PUBLISH")
            .map_err(|e| e.to_string())?;
        parts = parts.singlepart(
            Attachment::new(format!("{name}-deadline.ics")).body(ics.to_string(), ics_type),
        );
    }
    builder.multipart(parts).map_err(|e| e.to_string())
}

/// The game's board with its options, or none when it doesn't load (the mail then goes without
/// its event).
fn board(g: &crate::store::Game) -> Option<napjudge_engine::variant::Variant> {
    napjudge_engine::variant::load_named(&g.variant)
        .ok()
        .and_then(|v| v.with_options(&g.options).ok())
}

/// The next deadline of a mail's game as a calendar event, for the mails that announce one
/// (results, reminders, the start and password mails, notices): none when the game has no
/// deadline running (paused, not started), or its board can't be read. An ended game's mails
/// (the final one first) cancel the event of the phase it ended in (RFC 5546 §3.2.1: the
/// same UID, a higher SEQUENCE, STATUS:CANCELLED), so no calendar keeps a deadline that will
/// never come.
pub(super) fn deadline_event(
    store: &Store,
    cache: &mut HashMap<String, Option<Owned>>,
    mail: &Mail,
    from: &str,
    now: DateTime<Utc>,
) -> Result<Option<String>, StoreError> {
    if !matches!(
        mail.kind,
        MailKind::Results | MailKind::Reminder | MailKind::Password | MailKind::Notice
    ) {
        return Ok(None);
    }
    if !cache.contains_key(&mail.game) {
        let view = store.view();
        let found = match view.game(&mail.game)? {
            Some(g) if matches!(g.state, GameState::Running | GameState::Finished) => {
                match view.current_phase(g.id)? {
                    // The board loaded here, not through `game::board`: `game` calls the outbox,
                    // and the modules import each other one way (tests/architecture.rs).
                    Some(p) => match (p.deadline, board(&g)) {
                        (Some(at), Some(v)) => Some(Owned {
                            phase_id: p.id,
                            phase: v.phase_name(p.position.phase),
                            at,
                            started: p.started,
                            zone: g.timezone.clone(),
                            cancelled: g.state == GameState::Finished,
                        }),
                        _ => None,
                    },
                    None => None,
                }
            }
            _ => None,
        };
        cache.insert(mail.game.clone(), found);
    }
    Ok(cache.get(&mail.game).and_then(Option::as_ref).map(|o| {
        calendar::event(
            &calendar::Deadline {
                game: &mail.game,
                phase_id: o.phase_id,
                phase: &o.phase,
                at: o.at,
                zone: &o.zone,
                started: o.started,
                judge: from,
                cancelled: o.cancelled,
            },
            now,
        )
    }))
}

/// A game's current deadline, looked up once per send.
pub(super) struct Owned {
    phase_id: i64,
    phase: String,
    at: DateTime<Utc>,
    started: Option<DateTime<Utc>>,
    zone: String,
    cancelled: bool,
}
