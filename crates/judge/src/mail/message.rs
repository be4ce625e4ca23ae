//! The bytes and headers of a message: a message read from the mail server within the size
//! limit, the headers the judge looks at, its digest, the commands of its body, and the copy
//! stored with its passwords masked.

use super::text::{self, Line};
use super::{body, MailConfig};
use crate::store::Address;
use chrono::{DateTime, Utc};
use mail_parser::{Message, MessageParser};
use sha2::{Digest, Sha256};
use std::io::Read;

/// The part of a message over the size limit that is stored: its headers, up to this many bytes.
const MAX_HEADERS: usize = 64 * 1024;

/// A message as read from the mail server, holding at most the size limit and one byte in
/// memory: the bytes (all of them, or the first `max_size + 1` of a message over the limit),
/// and the whole message's size and SHA-256.
pub struct Incoming {
    pub(super) bytes: Vec<u8>,
    pub(super) size: u64,
    pub(super) digest: String,
}

impl Incoming {
    /// Reads a message from `r`: up to `max_size + 1` bytes are kept; the rest only goes
    /// through the digest and the count.
    pub fn read(mut r: impl Read, max_size: usize) -> std::io::Result<Incoming> {
        let mut bytes = Vec::new();
        let keep = u64::try_from(max_size.saturating_add(1)).unwrap_or(u64::MAX);
        Read::by_ref(&mut r).take(keep).read_to_end(&mut bytes)?;
        let mut hash = Sha256::new();
        hash.update(&bytes);
        let mut size = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match r.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    hash.update(buf.get(..n).unwrap_or_default());
                    size = size.saturating_add(u64::try_from(n).unwrap_or(u64::MAX));
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        if bytes.len() > max_size {
            // Only the headers are stored: the rest need not stay in memory.
            let head = header_part(&bytes).len();
            bytes.truncate(head);
        }
        Ok(Incoming {
            bytes,
            size,
            digest: hex(&hash.finalize()),
        })
    }

    /// The whole message's size (bytes).
    pub(crate) fn size(&self) -> u64 {
        self.size
    }

    /// The whole message's SHA-256, hex: what a message is known by when it has no Message-ID,
    /// and how an intake knows a message it stored before.
    pub(crate) fn digest(&self) -> &str {
        &self.digest
    }
}

/// The headers intake looks at.
#[derive(Default)]
pub(super) struct Head {
    pub(super) message_id: Option<String>,
    /// Reply-To, else From (empty when there is neither).
    pub(super) sender: Address,
    /// From (empty when there is none).
    pub(super) from: Address,
    pub(super) subject: String,
    pub(super) auto: bool,
    /// The Date header, when it is a valid date.
    pub(super) date: Option<DateTime<Utc>>,
}

/// How far after the time it was received a mail's Date may be and still count: a Date later
/// than that (a wrong clock, or a forger's trick to lock the player out of older-mail checks)
/// counts as the time received.
pub(crate) const DATE_AHEAD: chrono::TimeDelta = chrono::TimeDelta::minutes(10);

/// The longest line RFC 5322 allows (characters, without its CRLF).
const MAX_LINE: usize = 998;

impl Head {
    /// The Message-ID a reply names in In-Reply-To and References: none when it is malformed
    /// (not `left@right` of visible ASCII) or too long for those headers' one line.
    pub(super) fn reply_to_id(&self) -> Option<&str> {
        self.message_id.as_deref().filter(|id| {
            id.len() <= MAX_LINE - "In-Reply-To: <>".len()
                && id.contains('@')
                && id
                    .bytes()
                    .all(|b| b.is_ascii_graphic() && b != b'<' && b != b'>')
        })
    }

    /// The mail's date as the judge orders mail by: its Date header, bounded by
    /// [`DATE_AHEAD`] after `received`; without one, `received`.
    pub(super) fn dated(&self, received: DateTime<Utc>) -> DateTime<Utc> {
        let latest = received.checked_add_signed(DATE_AHEAD).unwrap_or(received);
        self.date.filter(|d| *d <= latest).unwrap_or(received)
    }
}

fn head(m: &Message) -> Head {
    let addr = |a: Option<&mail_parser::Address>| {
        a.and_then(|a| a.first())
            .and_then(|a| a.address())
            .map(|s| s.trim().to_string())
    };
    let from = addr(m.from());
    let sender = addr(m.reply_to()).or_else(|| from.clone());
    let raw = |name: &str| m.header_raw(name).map(|v| v.trim().to_ascii_lowercase());
    // RFC 3834: anything but "no" is automatic; bounces have an empty Return-Path; lists and
    // vacation programs mark themselves with Precedence.
    let auto = raw("Auto-Submitted").is_some_and(|v| !v.is_empty() && v != "no")
        || raw("Return-Path").is_some_and(|v| v == "<>")
        || raw("Precedence").is_some_and(|v| matches!(v.as_str(), "bulk" | "junk" | "list"))
        || sender
            .as_deref()
            .is_some_and(|s| Address::new(s).folded().starts_with("mailer-daemon@"));
    Head {
        message_id: m.message_id().map(|s| s.trim().to_string()),
        sender: Address::new(&sender.unwrap_or_default()),
        from: Address::new(&from.unwrap_or_default()),
        subject: m.subject().unwrap_or("").to_string(),
        auto,
        date: m
            .date()
            .filter(|d| d.is_valid())
            .and_then(|d| DateTime::from_timestamp(d.to_timestamp(), 0))
            // A Date before 1970 is a forger's or a broken clock's: as if there were none.
            .filter(crate::clock::storable),
    }
}

/// A message as intake reads it: whole, or only its headers when it was over the size limit
/// (`whole` false: `raw` holds only them).
pub(super) fn parse(raw: &[u8], whole: bool) -> (Option<Message<'_>>, Head) {
    let parser = MessageParser::default();
    let parsed = if whole {
        parser.parse(raw)
    } else {
        parser.parse_headers(header_part(raw))
    };
    let h = parsed.as_ref().map(head).unwrap_or_default();
    (parsed, h)
}

/// The header part of a message too large to read whole.
pub(super) fn header_part(raw: &[u8]) -> &[u8] {
    let part = raw.get(..MAX_HEADERS).unwrap_or(raw);
    let end = part
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .or_else(|| part.windows(2).position(|w| w == b"\n\n"));
    end.and_then(|e| part.get(..e)).unwrap_or(part)
}

/// The SHA-256 of a raw message, hex: how a message without a Message-ID is recognised again.
pub(crate) fn digest_of(raw: &[u8]) -> String {
    hex(&Sha256::digest(raw))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A message's commands, and the text and attachments they were read from.
pub(super) struct Reading {
    pub(super) lines: Vec<Line>,
    pub(super) body: body::Body,
}

/// The commands of a message; `secrets`, the passwords kept apart from a stored copy, are put
/// back into its masked lines.
pub(super) fn commands(
    parsed: Option<&Message>,
    secrets: Option<&str>,
) -> Result<Reading, text::TooLong> {
    let body = parsed.map(body::of).unwrap_or_default();
    let mut lines = text::read(&body.text)?;
    if let Some(s) = secrets {
        text::restore(&mut lines, s);
    }
    Ok(Reading { lines, body })
}

/// Whether a message of `size` bytes was read and stored whole, not only its headers.
pub(super) fn whole(cfg: &MailConfig, size: u64) -> bool {
    usize::try_from(size).is_ok_and(|n| n <= cfg.max_size)
}

/// The message to store, when the text the judge reads holds a password: its headers and that
/// text with the passwords masked, as plain UTF-8, and the passwords taken out. An encoded or
/// HTML body can't be masked in place, so the stored copy is the text the judge read; an HTML
/// twin is not kept, and attachments only by name and type ([`body::stored`]), so that a reply
/// from the copy names them as the first would have. None when there is nothing to mask.
pub(super) fn masked(raw: &[u8], m: &Message) -> Option<(Vec<u8>, String)> {
    let body = body::of(m);
    let (text, secrets) = text::mask(&body.text);
    if secrets.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(raw.len());
    for h in m.root_part().headers() {
        let name = h.name();
        if name.eq_ignore_ascii_case("Content-Type")
            || name.eq_ignore_ascii_case("Content-Transfer-Encoding")
        {
            continue;
        }
        // A header the parser can't place is left out rather than the mail stored unmasked.
        let Some(field) = raw.get(h.offset_field() as usize..h.offset_end() as usize) else {
            continue;
        };
        let end = field
            .iter()
            .rposition(|&b| b != b'\r' && b != b'\n')
            .map_or(0, |i| i + 1);
        out.extend_from_slice(&field[..end]);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(&body::stored(&body, &text));
    Some((out, text::secrets_text(&secrets)))
}
