//! Mail intake, an adapter around the judge's service: one RFC 5322 message in, stored raw
//! first (its own transaction), its body read as commands ([`text`]), each command one call of
//! the service ([`Judge`]), and the reply rendered from what the calls gave, queued with the
//! message marked answered in one transaction. A mail does nothing the GM's shell commands
//! don't, and the time of each call is the mail's (`now`): a message answered late by `tick` is
//! answered as of when it came.

mod body;
mod endings;
mod html;
mod players;
mod seats;
mod settings;
mod stray;
pub mod text;

use crate::clock;
use crate::game::{
    Acknowledgement, GameError, Guesser, Judge, OrderSet, PhasePassed, Reply, Signed,
    SignonRefusal, Stale, TickReport, THROTTLE_WINDOW,
};

use crate::render::{self, RenderError};
use crate::store::{
    Address, Author, Earlier, Game, GameState, HandledMail, InboxState, MailKind,
    MailPicture as Picture, NewMail, NewMessage, Pending, Role,
};
use chrono::{DateTime, Utc};
use mail_parser::{Message, MessageParser};
use napjudge_engine::variant::{PhaseKind, PowerKind, Variant};
use sha2::{Digest, Sha256};
use std::io::Read;
use text::{Command, GmCommand, Line};

/// The default size limit of a message (bytes).
pub const MAX_SIZE: usize = 1 << 20;

/// Order lines one mail may hold: a power has a few dozen units; a mail with more is a mistake
/// (a pasted file, a loop) and its orders are refused whole.
pub const MAX_ORDER_LINES: usize = 500;

/// Commands one mail may give (every line but an order line; a press with its text is one): a
/// player's mail has a handful. Past it, the rest of the mail is not run, and the reply says
/// how many commands were left.
pub const MAX_COMMANDS: usize = 100;

/// LIST, HISTORY (and HISTORY PRESS), SUMMARY, PREVIEW and MAP run in one mail, in all: each
/// can be long, and a MAP draws a picture.
pub const MAX_REPORTS: usize = 3;

/// The most a reply's blocks hold (bytes): a block past it is cut, and the commands after it
/// are not run.
pub const MAX_REPLY: usize = 40_000;

/// The part of a message over the size limit that is stored: its headers, up to this many bytes.
const MAX_HEADERS: usize = 64 * 1024;

/// A message as read from the mail server, holding at most the size limit and one byte in
/// memory: the bytes (all of them, or the first `max_size + 1` of a message over the limit),
/// and the whole message's size and SHA-256.
pub struct Incoming {
    bytes: Vec<u8>,
    size: u64,
    digest: String,
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
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The whole message's SHA-256, hex: what a message is known by when it has no Message-ID,
    /// and how an intake knows a message it stored before.
    pub fn digest(&self) -> &str {
        &self.digest
    }
}

/// What intake needs to know about the judge.
#[derive(Clone, Debug)]
pub struct MailConfig {
    /// The judge's own address: mail from it is never answered.
    pub judge: String,
    /// Messages larger than this (bytes) are refused unread.
    pub max_size: usize,
}

/// Why a message could not be stored, or a tick failed (anything after storing a message is
/// answered, not an error).
#[derive(Debug, thiserror::Error)]
pub enum MailError {
    /// The service (or its store) failed.
    #[error(transparent)]
    Game(#[from] GameError),
    /// The reply can't be rendered.
    #[error(transparent)]
    Render(#[from] RenderError),
}

impl MailError {
    /// Whether the database file or the machine failed, not this message: the mail server
    /// should keep it and try again later.
    pub fn is_database_fault(&self) -> bool {
        matches!(self, MailError::Game(e) if e.is_database_fault())
    }
}

/// What became of a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Handled {
    /// Stored and answered (the reply is queued).
    Answered,
    /// Seen before: answered as a duplicate, nothing done.
    Duplicate,
    /// Stored, not answered (why).
    Ignored(String),
    /// Stored, but answering failed (why): the message is marked `failed`, the GM told.
    Failed(String),
}

/// The headers intake looks at.
#[derive(Default)]
struct Head {
    message_id: Option<String>,
    /// Reply-To, else From (empty when there is neither).
    sender: Address,
    subject: String,
    auto: bool,
    /// The Date header, when it is a valid date.
    date: Option<DateTime<Utc>>,
}

/// How far after the time it was received a mail's Date may be and still count: a Date later
/// than that (a wrong clock, or a forger's trick to lock the player out of older-mail checks)
/// counts as the time received.
pub const DATE_AHEAD: chrono::TimeDelta = chrono::TimeDelta::minutes(10);

impl Head {
    /// The mail's date as the judge orders mail by: its Date header, bounded by
    /// [`DATE_AHEAD`] after `received`; without one, `received`.
    fn dated(&self, received: DateTime<Utc>) -> DateTime<Utc> {
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
    let sender = addr(m.reply_to()).or_else(|| addr(m.from()));
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
        subject: m.subject().unwrap_or("").to_string(),
        auto,
        date: m
            .date()
            .filter(|d| d.is_valid())
            .and_then(|d| DateTime::from_timestamp(d.to_timestamp(), 0)),
    }
}

/// A message as intake reads it: whole, or only its headers when it was over the size limit
/// (`whole` false: `raw` holds only them).
fn parse(raw: &[u8], whole: bool) -> (Option<Message<'_>>, Head) {
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
fn header_part(raw: &[u8]) -> &[u8] {
    let part = raw.get(..MAX_HEADERS).unwrap_or(raw);
    let end = part
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .or_else(|| part.windows(2).position(|w| w == b"\n\n"));
    end.and_then(|e| part.get(..e)).unwrap_or(part)
}

/// The judge's tick, the one `napjudge tick` and the replay run: the messages stored but never
/// answered are answered first (so their orders count before any phase is processed), then each
/// running game's phase is processed or its reminders sent. The number of messages answered,
/// and what the games' tick did.
pub fn tick(
    j: &mut Judge,
    cfg: &MailConfig,
    now: DateTime<Utc>,
) -> Result<(usize, TickReport), MailError> {
    let (answered, failed) = answer_pending(j, cfg, now)?;
    // A mail stored and not yet answered, too young to be taken from the `receive` at work on
    // it, may hold orders for a phase due now: no phase is processed until it is answered
    // (the next tick answers it, or finds it answered).
    let reading = j
        .view()
        .stored_between(now.checked_sub_signed(PENDING_AFTER).unwrap_or(now), now)
        .map_err(GameError::from)?;
    let mut report = j.tick_games(now, reading == 0)?;
    report.failed.splice(0..0, failed);
    Ok((answered, report))
}

/// Whether running a command a second time does no harm: orders and player settings are
/// replaced by the same again; press would be sent twice, and a GM's command could process or
/// roll back a phase twice.
fn repeatable(c: &Command) -> bool {
    match c {
        Command::Signon { power, .. } => Role::named(power) != Role::Gm,
        // A seat or observer command run again is refused as done (a seat taken, a code used).
        Command::Press { .. }
        | Command::Gm(_)
        | Command::Set { .. }
        | Command::Resign
        | Command::Takeover { .. }
        | Command::Observe(_)
        | Command::Unobserve(_) => false,
        Command::BadSignon
        | Command::BadTakeover
        | Command::Help
        | Command::List
        | Command::History
        | Command::HistoryPress(_)
        | Command::Map(_)
        | Command::Summary
        | Command::Clear
        | Command::Signoff
        | Command::SetPassword(_)
        | Command::SetAddress(_)
        | Command::SetWait(_)
        | Command::SetDraw(_)
        | Command::SetConcede(_)
        | Command::Closing
        | Command::Order(_) => true,
        // A second run would register the absence twice.
        Command::SetAbsence(_) => false,
    }
}

/// The SHA-256 of a raw message, hex: how a message without a Message-ID is recognised again.
fn digest_of(raw: &[u8]) -> String {
    hex(&Sha256::digest(raw))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// How long a stored message waits before `tick` answers it in place of the `mail receive`
/// that stored it: long enough that a receive still at work keeps its own message.
pub const PENDING_AFTER: chrono::TimeDelta = chrono::TimeDelta::minutes(5);

/// Answers the messages stored but never answered (the judge killed between storing and
/// answering), oldest first, each as of the time it was received, so that its orders count
/// for the phase they came in and no order stored is ever lost. The replies say nothing of the
/// delay. A message whose answering fails is marked failed (its GM told) and the others go
/// on; only a fault of the database itself stops the tick. The number answered, and a line
/// for each message that failed.
fn answer_pending(
    j: &mut Judge,
    cfg: &MailConfig,
    now: DateTime<Utc>,
) -> Result<(usize, Vec<String>), MailError> {
    let pending = j
        .view()
        .pending(now - PENDING_AFTER)
        .map_err(GameError::from)?;
    let mut answered = 0;
    let mut failed = Vec::new();
    for m in pending {
        let done = answer_stored(j, cfg, &m);
        match settle(j, cfg, &m, done, now)? {
            Handled::Failed(why) => failed.push(format!("message {}: not answered: {why}", m.id)),
            _ => answered += 1,
        }
    }
    Ok((answered, failed))
}

/// Answers a message stored earlier and never answered (by `tick`, or by `receive` when the
/// mail server delivers it again), as of the time it was received. Part of it may have been
/// carried out before the judge was stopped, so only a mail whose commands are harmless to
/// repeat is run again (orders, which replace themselves, and a player's settings); a mail
/// with press or a GM command is not (press would go out twice, a PROCESS would process two
/// phases): its sender is told to check with LIST and send again what is missing.
fn answer_stored(j: &mut Judge, cfg: &MailConfig, m: &Pending) -> Result<Handled, MailError> {
    let (parsed, h) = parse(&m.raw, whole(cfg, m.size));
    let earlier = j
        .view()
        .earlier(h.message_id.as_deref(), &m.digest, m.id)
        .map_err(GameError::from)?;
    let secrets = m.secrets.as_deref();
    // A mail too long to read runs nothing: `answer` tells its sender so.
    let lines = commands(parsed.as_ref(), secrets)
        .map(|r| r.lines)
        .unwrap_or_default();
    let at = m.received;
    let msg = Stored {
        size: m.size,
        parsed: parsed.as_ref(),
        secrets,
        head: &h,
        id: m.id,
    };
    if lines.iter().all(|l| repeatable(&l.command)) {
        answer(j, cfg, &msg, earlier, at)
    } else {
        let intro = format!(
            "The judge stored your mail of {} but was stopped before it answered, \
             and may have carried out part of it. It was not run again, because a GM \
             command or press run twice could do harm: check the game with LIST and send \
             again what is missing.",
            at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        );
        reply(
            j,
            &h,
            m.id,
            None,
            &intro,
            &[],
            None,
            InboxState::Answered,
            at,
        )
        .map(|()| Handled::Answered)
    }
}

/// The GM's notice of a message that could not be answered.
#[derive(askama::Template)]
#[template(path = "unanswered.txt")]
pub struct UnansweredMail<'a> {
    /// The game the message named, if any.
    pub game: Option<&'a str>,
    /// Its sender.
    pub sender: &'a str,
    /// Its subject.
    pub subject: &'a str,
    /// Its Message-ID.
    pub message_id: &'a str,
    /// When it came.
    pub received: &'a str,
    /// Its size (bytes).
    pub size: u64,
    /// Its row in the inbox.
    pub id: i64,
    /// Why answering it failed.
    pub error: &'a str,
}

/// Marks the stored message `m` failed with `why`, and tells the GM of the game its SIGNON
/// names (else the judge's own address) and its sender, once.
fn fail(
    j: &mut Judge,
    cfg: &MailConfig,
    m: &Pending,
    why: &str,
    now: DateTime<Utc>,
) -> Result<(), MailError> {
    let (parsed, h) = parse(&m.raw, whole(cfg, m.size));
    let named = commands(parsed.as_ref(), None).ok().and_then(|read| {
        read.lines.into_iter().find_map(|l| match l.command {
            Command::Signon { game, .. } => Some(game),
            _ => None,
        })
    });
    let game = match named {
        Some(name) => j.view().game_any_case(&name).map_err(GameError::from)?,
        None => None,
    };
    let received = m
        .received
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let body = render::render(
        "unanswered",
        &UnansweredMail {
            game: game.as_ref().map(|g| g.name.as_str()),
            sender: h.sender.as_str(),
            subject: &h.subject,
            message_id: h.message_id.as_deref().unwrap_or("(none)"),
            received: &received,
            size: m.size,
            id: m.id,
            error: why,
        },
    )?;
    let subject = match &game {
        Some(g) => format!("{}: a mail the judge could not answer", g.name),
        None => "a mail the judge could not answer".to_string(),
    };
    let gm = Reply {
        game: game.as_ref().map(|g| g.id),
        to: game.as_ref().map_or(cfg.judge.as_str(), |g| g.gm.as_str()),
        subject: &subject,
        body: &body,
        in_reply_to: None,
        handled: None,
        picture: None,
        also: &[],
    };
    let sorry = render::render(
        "reply",
        &ReplyMail {
            intro: "The judge could not answer your mail: something went wrong on its side, \
                    and it has told the GM. Nothing more will be done with this mail; send it \
                    again once the GM says so.",
            blocks: &[],
        },
    )?;
    let to_sender = Reply {
        game: gm.game,
        to: h.sender.as_str(),
        subject: &reply_subject(&h.subject),
        body: &sorry,
        in_reply_to: h.message_id.as_deref(),
        handled: None,
        picture: None,
        also: &[],
    };
    let answerable =
        h.sender.as_str().contains('@') && !h.auto && h.sender != Address::new(&cfg.judge);
    j.fail_message(m.id, why, &gm, answerable.then_some(&to_sender), now)?;
    Ok(())
}

/// A message's commands, and the text and attachments they were read from.
struct Reading {
    lines: Vec<Line>,
    body: body::Body,
}

/// The commands of a message; `secrets`, the passwords kept apart from a stored copy, are put
/// back into its masked lines.
fn commands(parsed: Option<&Message>, secrets: Option<&str>) -> Result<Reading, text::TooLong> {
    let body = parsed.map(body::of).unwrap_or_default();
    let mut lines = text::read(&body.text)?;
    if let Some(s) = secrets {
        text::restore(&mut lines, s);
    }
    Ok(Reading { lines, body })
}

/// Whether a message of `size` bytes was read and stored whole, not only its headers.
fn whole(cfg: &MailConfig, size: u64) -> bool {
    usize::try_from(size).is_ok_and(|n| n <= cfg.max_size)
}

/// The message to store, when the text the judge reads holds a password: its headers and that
/// text with the passwords masked, as plain UTF-8, and the passwords taken out. An encoded or
/// HTML body can't be masked in place, so the stored copy is the text the judge read; an HTML
/// twin is not kept, and attachments only by name and type ([`body::stored`]), so that a reply
/// from the copy names them as the first would have. None when there is nothing to mask.
fn masked(raw: &[u8], m: &Message) -> Option<(Vec<u8>, String)> {
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

/// One part of a reply: a heading and its lines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Block {
    /// The heading (`line 3: LIST`).
    pub head: String,
    /// Its lines.
    pub lines: Vec<String>,
}

impl Block {
    fn new(head: impl Into<String>) -> Block {
        Block {
            head: head.into(),
            lines: Vec::new(),
        }
    }

    fn with(head: impl Into<String>, line: impl Into<String>) -> Block {
        Block {
            head: head.into(),
            lines: vec![line.into()],
        }
    }
}

/// The reply to a mail.
#[derive(askama::Template)]
#[template(path = "reply.txt")]
pub struct ReplyMail<'a> {
    /// What the judge made of the mail, in one sentence.
    pub intro: &'a str,
    /// One block per command, in the mail's order.
    pub blocks: &'a [Block],
}

/// The players' guide.
#[derive(askama::Template)]
#[template(path = "help.txt")]
pub struct HelpMail<'a> {
    /// The judge's address.
    pub judge: &'a str,
}

/// The GM's guide: every GM command by mail and at the shell.
#[derive(askama::Template)]
#[template(path = "help-gm.txt")]
pub struct GmHelpMail<'a> {
    /// The judge's address.
    pub judge: &'a str,
}

/// Receives one message at `now`: stores it, then answers it (or not: mail from the judge
/// itself and automatic mail are stored and never answered). A message over the size limit is
/// stored as its headers, digest and size.
pub fn receive(
    j: &mut Judge,
    cfg: &MailConfig,
    raw: &[u8],
    now: DateTime<Utc>,
) -> Result<Handled, MailError> {
    let size = u64::try_from(raw.len()).unwrap_or(u64::MAX);
    let kept = if raw.len() > cfg.max_size {
        header_part(raw)
    } else {
        raw
    };
    take(j, cfg, kept, size, digest_of(raw), now)
}

/// [`receive`] of a message read by [`Incoming::read`].
pub fn receive_incoming(
    j: &mut Judge,
    cfg: &MailConfig,
    m: &Incoming,
    now: DateTime<Utc>,
) -> Result<Handled, MailError> {
    take(j, cfg, &m.bytes, m.size, m.digest.clone(), now)
}

/// Stores a message (`kept`: the whole, or its headers when `size` is over the limit) and
/// answers it. An error is a message not stored, or a fault of the database: the mail server
/// keeps it and tries again. Anything else that fails marks the message failed.
fn take(
    j: &mut Judge,
    cfg: &MailConfig,
    kept: &[u8],
    size: u64,
    digest: String,
    now: DateTime<Utc>,
) -> Result<Handled, MailError> {
    let (parsed, h) = parse(kept, whole(cfg, size));
    // No password is written: the masked copy is stored, the passwords apart until answered.
    let masked = parsed.as_ref().and_then(|m| masked(kept, m));
    let (id, earlier) = j.store_message(
        &NewMessage {
            message_id: h.message_id.as_deref(),
            digest: &digest,
            sender: h.sender.as_str(),
            raw: masked.as_ref().map_or(kept, |(r, _)| r),
            size,
            secrets: masked.as_ref().map(|(_, s)| s.as_str()),
        },
        now,
    )?;
    // A copy of a message stored and never answered (its receive was killed): the original is
    // answered now, once, and this copy through it. Under the recovery's guard: an original
    // stored less than `PENDING_AFTER` ago may still be at work in its own receive.
    if let Some(e) = earlier.as_ref().filter(|e| e.state == InboxState::Stored) {
        let original = j.view().message(e.first).map_err(GameError::from)?;
        if let Some(original) = original.filter(|o| o.received <= now - PENDING_AFTER) {
            let done = answer_stored(j, cfg, &original);
            let handled = settle(j, cfg, &original, done, now)?;
            j.mark_message(
                id,
                InboxState::Duplicate,
                &format!("a second copy of message {}, answered through it", e.first),
            )?;
            return Ok(handled);
        }
    }
    let msg = Stored {
        size,
        parsed: parsed.as_ref(),
        // Read from the bytes received, passwords and all.
        secrets: None,
        head: &h,
        id,
    };
    match answer(j, cfg, &msg, earlier, now) {
        Err(e) if !e.is_database_fault() => {
            // Only the failure's notices need the bytes again.
            let this = Pending {
                id,
                raw: kept.to_vec(),
                size,
                digest,
                secrets: None,
                received: now,
            };
            settle(j, cfg, &this, Err(e), now)
        }
        done => done,
    }
}

/// What answering a stored message came to: a fault of the database is passed on (the message
/// stays `stored`, to be answered later); any other failure marks it failed, the GM told.
fn settle(
    j: &mut Judge,
    cfg: &MailConfig,
    m: &Pending,
    done: Result<Handled, MailError>,
    now: DateTime<Utc>,
) -> Result<Handled, MailError> {
    match done {
        Ok(h) => Ok(h),
        Err(e) if e.is_database_fault() => Err(e),
        Err(e) => {
            let why = e.to_string();
            fail(j, cfg, m, &why, now)?;
            Ok(Handled::Failed(why))
        }
    }
}

/// A stored message being answered.
struct Stored<'a> {
    /// The whole message's size.
    size: u64,
    parsed: Option<&'a Message<'a>>,
    /// The passwords masked in `raw`, to put back into its lines (a stored copy).
    secrets: Option<&'a str>,
    head: &'a Head,
    /// Its row.
    id: i64,
}

/// The subject of a reply to a mail whose subject is `subject`.
fn reply_subject(subject: &str) -> String {
    let clean: String = subject.chars().filter(|c| !c.is_control()).collect();
    let clean = clean.trim();
    if clean.is_empty() {
        "your mail to the judge".to_string()
    } else if clean.to_ascii_lowercase().starts_with("re:") {
        clean.to_string()
    } else {
        format!("Re: {clean}")
    }
}

/// Renders the reply to the stored message `id`, and has the service queue it and mark the
/// message `state` (one transaction).
#[allow(clippy::too_many_arguments)]
fn reply(
    j: &mut Judge,
    h: &Head,
    id: i64,
    game: Option<i64>,
    intro: &str,
    blocks: &[Block],
    extras: Option<&Extras>,
    state: InboxState,
    now: DateTime<Utc>,
) -> Result<(), MailError> {
    let body = render::render("reply", &ReplyMail { intro, blocks })?;
    // The copy for the role's own address holds the reply whole: what was done in its name.
    let copy = extras.and_then(|e| e.copy.as_ref()).map(|c| {
        (
            c,
            format!("{}\n\nThe judge's reply to that mail:\n\n{body}", c.intro),
        )
    });
    let also: Vec<NewMail> = copy
        .iter()
        .map(|(c, text)| NewMail {
            game,
            phase: None,
            kind: MailKind::Notice,
            to: c.to.as_str(),
            subject: &c.subject,
            body: text,
            in_reply_to: None,
        })
        .collect();
    j.answer_message(
        id,
        state,
        &Reply {
            game,
            to: h.sender.as_str(),
            subject: &reply_subject(&h.subject),
            body: &body,
            in_reply_to: h.message_id.as_deref(),
            handled: extras.and_then(|e| e.handled.as_ref()),
            picture: extras.and_then(|e| e.picture.as_ref()),
            also: &also,
        },
        now,
    )?;
    Ok(())
}

/// Answers a stored message (or marks it ignored).
fn answer(
    j: &mut Judge,
    cfg: &MailConfig,
    m: &Stored,
    earlier: Option<Earlier>,
    now: DateTime<Utc>,
) -> Result<Handled, MailError> {
    let (h, id) = (m.head, m.id);
    let ignored = if h.sender.as_str().is_empty() || !h.sender.as_str().contains('@') {
        Some(("no sender address to answer", "no sender address"))
    } else if h.sender == Address::new(&cfg.judge) {
        Some((
            "from the judge's own address",
            "from the judge's own address",
        ))
    } else if h.auto {
        Some((
            "automatic mail (auto-submitted or a bounce)",
            "automatic mail",
        ))
    } else if earlier.as_ref().is_some_and(|e| e.answered_twice) {
        // One duplicate reply per message: a loop resending it gets no more.
        Some(("a duplicate answered before", "a duplicate answered before"))
    } else {
        None
    };
    if let Some((note, why)) = ignored {
        j.mark_message(id, InboxState::Ignored, note)?;
        return Ok(Handled::Ignored(why.into()));
    }
    if let Some(Earlier { at, state, .. }) = earlier {
        let intro = if state == InboxState::Stored {
            format!(
                "This message (the same Message-ID, or the same text) reached the judge before, \
                 at {at}, and is being answered: this copy was not run."
            )
        } else if state == InboxState::Failed {
            format!(
                "This message (the same Message-ID, or the same text) reached the judge before, \
                 at {at}, and could not be answered then: the GM was told. Nothing was done this \
                 time."
            )
        } else {
            format!(
                "This message (the same Message-ID, or the same text) reached the judge before, \
                 at {at}. It was answered then; nothing was done this time."
            )
        };
        reply(
            j,
            h,
            id,
            None,
            &intro,
            &[],
            None,
            InboxState::Duplicate,
            now,
        )?;
        return Ok(Handled::Duplicate);
    }
    if !whole(cfg, m.size) {
        let intro = format!(
            "Your mail of {} bytes is over the judge's limit of {} bytes; nothing in it was \
             read. Send your commands as plain text, without attachments.",
            m.size, cfg.max_size
        );
        reply(j, h, id, None, &intro, &[], None, InboxState::Answered, now)?;
        return Ok(Handled::Answered);
    }
    let Reading { lines, body } = match commands(m.parsed, m.secrets) {
        Ok(r) => r,
        Err(long) => {
            let intro = format!(
                "Your mail has {} lines of text; the judge reads at most {} in one mail. \
                 Nothing in it was read: send fewer at a time.",
                long.0,
                text::MAX_LINES
            );
            reply(j, h, id, None, &intro, &[], None, InboxState::Answered, now)?;
            return Ok(Handled::Answered);
        }
    };
    let attachments = attachments(&body);
    if lines.is_empty() {
        let intro = "The judge found no text it could read in your mail (no plain text or HTML \
                     body, or only quoted lines). Nothing was done. Write your commands as plain \
                     text, starting with SIGNON POWER GAME PASSWORD; send HELP for the guide.";
        reply(
            j,
            h,
            id,
            None,
            intro,
            &attachments,
            None,
            InboxState::Answered,
            now,
        )?;
        return Ok(Handled::Answered);
    }
    // The text read, line by line, the SIGNON without its password (a stored mail has it
    // masked until it is answered).
    let mut own: String = lines
        .iter()
        .map(|l| match &l.command {
            Command::Signon { power, game, .. } => format!("SIGNON {power} {game}\n"),
            Command::Press { body, .. } => format!("{}\n{body}", l.text),
            _ => format!("{}\n", l.text),
        })
        .collect();
    // Players send the same short press twice in a phase ("ok", an empty one: 8 such mails in
    // the recorded games, four in one second), so a mail with press is a copy only with the
    // same Date too, and a copy is still read: only its press is not sent again.
    let press = lines
        .iter()
        .any(|l| matches!(l.command, Command::Press { .. }));
    if press {
        let date = h.date.map(|d| d.to_rfc3339()).unwrap_or_default();
        own.push_str(&format!("Date: {date}\n"));
    }
    let fresh = Fresh {
        dated: h.dated(now),
        digest: digest_of(own.as_bytes()),
        press,
    };
    let read = Session::new(j, cfg, &h.sender, now).run(&lines, &fresh)?;
    // A reply to a mail with a line that failed starts with the mail as it was read.
    let mut blocks = Vec::new();
    let shown = as_read(&body.text);
    if read.failed && !shown.lines.is_empty() {
        blocks.push(shown);
    }
    blocks.extend(attachments);
    blocks.extend(read.blocks);
    reply(
        j,
        h,
        id,
        read.game,
        &read.intro,
        &blocks,
        Some(&read.extras),
        InboxState::Answered,
        now,
    )?;
    Ok(Handled::Answered)
}

/// The most the reply's block of the mail as read holds (bytes): a long mail is shown in part.
const MAX_AS_READ: usize = 8_000;

/// The reply's block of the mail's lines as the judge read them, numbered as in the body.
fn as_read(text: &str) -> Block {
    let all = text::as_read(text);
    let mut used = 0usize;
    let mut lines: Vec<String> = all
        .iter()
        .map(|(n, t)| format!("{n}: {t}"))
        .take_while(|l| {
            used = used.saturating_add(l.len());
            used <= MAX_AS_READ
        })
        .collect();
    let cut = all.len().saturating_sub(lines.len());
    if cut > 0 {
        lines.push(format!("... and {cut} more lines."));
    }
    Block {
        head: "Your mail as the judge read it".into(),
        lines,
    }
}

/// The reply's block on a message's attachments, when it has any: the one read as the body,
/// those not read.
fn attachments(body: &body::Body) -> Vec<Block> {
    let mut lines = Vec::new();
    if let Some(a) = &body.attachment {
        lines.push(format!(
            "The judge read your attachment {a} as the mail's body: the mail's own text \
             gave no command."
        ));
    }
    if !body.ignored.is_empty() {
        lines.push(format!(
            "Not read: {}. The judge reads the mail's text (or one plain text attachment); \
             write your commands there.",
            body.ignored
                .iter()
                .map(|a| a.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if lines.is_empty() {
        Vec::new()
    } else {
        vec![Block {
            head: "Attachments".into(),
            lines,
        }]
    }
}

/// The one sentence a refused SIGNON's reply says.
fn refusal(r: &SignonRefusal, sender: &Address) -> String {
    match r {
        SignonRefusal::Throttled {
            role,
            game,
            by,
            until,
        } => {
            let (whose, what) = match by {
                Guesser::Sender => (
                    format!("from {sender}"),
                    "checks no password from this address".to_string(),
                ),
                Guesser::Others => (
                    format!("from addresses other than {role}'s own"),
                    format!("checks only mail from the address it mails {role} at"),
                ),
                Guesser::Owner => (
                    format!(
                        "from {role}'s own address (if they were not yours, someone is \
                         forging it: tell your GM)"
                    ),
                    "checks no password".to_string(),
                ),
            };
            format!(
                "Too many wrong passwords for {role} in game '{game}' came {whose} in the last \
                 {}: the judge {what} for {role} until {until}. Nothing was done: try again \
                 then; your GM can set a new password.",
                clock::Period::clamped(THROTTLE_WINDOW)
            )
        }
        SignonRefusal::UnknownGame(game) => format!(
            "There is no game called '{game}' on this judge. Check the name in your SIGNON line."
        ),
        SignonRefusal::UnknownPower {
            power,
            game,
            powers,
        } => format!(
            "'{power}' is not a power of game '{game}'. Its powers: {}.",
            powers.join(", ")
        ),
        SignonRefusal::WrongPassword { role, game } => {
            format!("Wrong password for {role} in game '{game}'. Nothing was done.")
        }
        SignonRefusal::Left {
            role,
            game,
            since,
            how,
        } => seats::left(role, game, since, *how),
    }
}

/// One mail's commands being run: who signed on, and the blocks of the reply so far.
struct Session<'a> {
    j: &'a mut Judge,
    cfg: &'a MailConfig,
    sender: &'a Address,
    /// The mail's time: every service call is made at it.
    now: DateTime<Utc>,
    /// (is it the orders' block, the block): the orders' blocks are replaced at each flush.
    blocks: Vec<(bool, Block)>,
    who: Option<Signed>,
    /// The power's order set as the mail's latest orders left it, when they were stored: the
    /// reply's last block, without checking them again.
    set: Option<Acknowledgement>,
    /// What goes with the reply: the mail's record once its SIGNON passed the checks of older
    /// mail and replays, a MAP's picture, the copy for the role's own address.
    extras: Extras,
    /// A mail with press that is a copy of one handled (the date of that one): its press is
    /// not sent again.
    press_copy: Option<DateTime<Utc>>,
    /// Commands run so far (order lines not counted), of [`MAX_COMMANDS`].
    commands: usize,
    /// LIST, HISTORY, SUMMARY, PREVIEW and MAP run so far, of [`MAX_REPORTS`].
    reports: usize,
    /// HELP answered already.
    helped: bool,
    /// A line failed (an order's error, an unknown command, a command's ERROR).
    failed: bool,
    /// The player signed on resigned: the mail's last block is not their orders.
    left: bool,
}

/// What a mail is recognised by: its date ([`Head::dated`]) and the digest of its text.
struct Fresh {
    dated: DateTime<Utc>,
    digest: String,
    /// The mail carries press.
    press: bool,
}

/// A mail's commands run: the game it concerned, the reply's first sentence and its blocks,
/// and what goes with the reply.
struct Ran {
    game: Option<i64>,
    intro: String,
    blocks: Vec<Block>,
    extras: Extras,
    /// A line of the mail failed: the reply shows the mail as read.
    failed: bool,
}

/// What goes with a reply besides its text.
#[derive(Default)]
struct Extras {
    /// The mail's record, when it was handled after a SIGNON.
    handled: Option<HandledMail>,
    /// The picture a MAP asked for.
    picture: Option<Picture>,
    /// A copy for the role's own address, when the SIGNON came from another.
    copy: Option<players::SignonCopy>,
}

impl Ran {
    /// A mail refused whole, in one sentence.
    fn refused(intro: String) -> Ran {
        Ran {
            game: None,
            intro,
            blocks: Vec::new(),
            extras: Extras::default(),
            failed: false,
        }
    }

    /// A mail refused whole for one of its lines.
    fn bad_line(intro: String) -> Ran {
        Ran {
            failed: true,
            ..Ran::refused(intro)
        }
    }
}

/// A time as a reply gives it.
fn stamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// The one sentence of a mail refused as older than one handled, or as a replay.
fn stale(why: &Stale, s: &Signed) -> String {
    let (role, game) = (&s.role, &s.game.name);
    match why {
        Stale::Older { dated, last } => format!(
            "Your mail is dated {}, before your mail dated {} that the judge has handled \
             already for {role} in game '{game}': an older mail can't undo a newer one. Nothing \
             in it was done. If you mean it, send it again: a new mail is dated now.",
            stamp(*dated),
            stamp(*last)
        ),
        Stale::Replayed { first } => format!(
            "Your mail has the same text as your mail dated {} that the judge has handled \
             already for {role} in game '{game}' in this phase: it is taken for a copy sent \
             again, and nothing in it was done. To give the same commands again on purpose, \
             add a line such as LIST.",
            stamp(*first)
        ),
    }
}

/// Why a mail's orders or CLEAR are not used: it came in a phase that is over.
fn passed(p: &PhasePassed, at: DateTime<Utc>) -> String {
    let then = p
        .then
        .as_ref()
        .map_or("the game started".to_string(), |t| format!("{t} was over"));
    format!(
        "Your mail of {} reached the judge but was not read before {then}; its orders were not \
         used (the game is now in {}). Nothing was changed: send your orders for {} if you \
         have not.",
        stamp(at),
        p.now,
        p.now
    )
}

/// The bytes a block takes in the reply (as `reply.txt` lays it out).
fn block_size(b: &Block) -> usize {
    b.lines.iter().fold(b.head.len().saturating_add(2), |n, l| {
        n.saturating_add(l.len()).saturating_add(3)
    })
}

impl<'a> Session<'a> {
    fn new(
        j: &'a mut Judge,
        cfg: &'a MailConfig,
        sender: &'a Address,
        now: DateTime<Utc>,
    ) -> Session<'a> {
        Session {
            j,
            cfg,
            sender,
            now,
            blocks: Vec::new(),
            who: None,
            set: None,
            extras: Extras::default(),
            press_copy: None,
            commands: 0,
            reports: 0,
            helped: false,
            failed: false,
            left: false,
        }
    }

    fn push(&mut self, b: Block) {
        self.push_block(false, b);
    }

    /// Adds a block (an orders' block, or another), cut to the room the reply has left.
    fn push_block(&mut self, orders: bool, mut b: Block) {
        let room = MAX_REPLY.saturating_sub(self.size());
        let mut used = b.head.len().saturating_add(2);
        let keep = b
            .lines
            .iter()
            .take_while(|l| {
                used = used.saturating_add(l.len()).saturating_add(3);
                used <= room
            })
            .count();
        let cut = b.lines.len().saturating_sub(keep);
        if cut > 0 {
            b.lines.truncate(keep);
            b.lines.push(format!(
                "... {cut} more lines cut: a reply holds at most {MAX_REPLY} bytes. Ask for \
                 this alone, or for less at a time."
            ));
        }
        self.blocks.push((orders, b));
    }

    /// The bytes the reply's blocks take so far.
    fn size(&self) -> usize {
        self.blocks
            .iter()
            .fold(0, |n, (_, b)| n.saturating_add(block_size(b)))
    }

    /// Runs a mail's commands: the game it concerned, the reply's first sentence and its
    /// blocks.
    fn run(mut self, lines: &[Line], fresh: &Fresh) -> Result<Ran, MailError> {
        // The mail's order lines since its last CLEAR, and whether some came since the last
        // flush.
        let mut orders: Vec<&Line> = Vec::new();
        let mut dirty = false;
        // A GM's mail gets the GM's guide for HELP, before the SIGNON line too (a wrong
        // password refuses the whole mail).
        let gm_mail = lines.iter().any(
            |l| matches!(&l.command, Command::Signon { power, .. } if Role::named(power) == Role::Gm),
        );
        // Lines after it may be the mail's closing.
        let last_command = lines.iter().rposition(|l| l.command.is_command());
        for (i, l) in lines.iter().enumerate() {
            // Bounded work per mail: past the commands' cap or a full reply, the rest is not
            // run (order lines have their own cap, checked as a set).
            let is_order = !l.command.is_command();
            if !is_order {
                self.commands = self.commands.saturating_add(1);
            }
            if self.commands > MAX_COMMANDS || self.size() >= MAX_REPLY {
                let rest = lines.len().saturating_sub(i);
                self.push(Block::with(
                    format!("line {} and after", l.number),
                    format!("{rest} more commands not answered: send fewer at a time."),
                ));
                break;
            }
            // A new password is not echoed back.
            let head = match &l.command {
                Command::SetPassword(_) => format!("line {}: SET PASSWORD ...", l.number),
                Command::Takeover { power, game, .. } => {
                    format!("line {}: TAKEOVER {power} {game} ...", l.number)
                }
                _ => format!("line {}: {}", l.number, l.text),
            };
            // The order lines so far are taken before any other command runs (LIST shows them,
            // a PAUSE comes after them), as one set: later lines join them and the set is taken
            // again.
            if let (Some(s), true, false, false) = (
                self.who.clone(),
                dirty,
                is_order,
                l.command == Command::Clear,
            ) {
                self.take_orders(&s, &orders)?;
                dirty = false;
            }
            match (&l.command, self.who.clone()) {
                (Command::Help, _) if self.helped => {
                    self.push(Block::with(head, "HELP is answered once per mail."));
                }
                (Command::Help, _) => {
                    self.helped = true;
                    let judge = &self.cfg.judge;
                    let guide = if gm_mail {
                        render::render("GM's help", &GmHelpMail { judge })?
                    } else {
                        render::render("help", &HelpMail { judge })?
                    };
                    self.push(Block {
                        head,
                        lines: guide.lines().map(str::to_string).collect(),
                    });
                }
                (
                    Command::Signon {
                        power,
                        game,
                        password,
                    },
                    None,
                ) => match self
                    .j
                    .signon(self.sender, power, game, password, self.now)?
                {
                    Ok(s) => {
                        // An older mail, or the same text again in the phase: nothing is done.
                        match self.j.check_fresh(&s, fresh.dated, &fresh.digest)? {
                            Ok(h) => self.extras.handled = Some(h),
                            Err(Stale::Replayed { first }) if fresh.press => {
                                self.press_copy = Some(first)
                            }
                            Err(why) => return Ok(Ran::refused(stale(&why, &s))),
                        }
                        let mut b = Block::with(
                            format!("line {}: SIGNON {} {}", l.number, s.role, s.game.name),
                            format!("Signed on as {} in game '{}'.", s.role, s.game.name),
                        );
                        self.extras.copy = players::signon_copy(self.j, &s, self.sender, self.now)?;
                        if self.extras.copy.is_some() {
                            b.lines.push(players::copy_said(&s.role));
                        }
                        self.push(b);
                        self.who = Some(s);
                    }
                    Err(r) => return Ok(Ran::refused(refusal(&r, self.sender))),
                },
                (Command::Signon { .. }, Some(_)) => self.push(Block::with(
                    format!("line {}: SIGNON ...", l.number),
                    "One SIGNON per mail: this line was ignored.",
                )),
                (
                    c @ (Command::Takeover { .. }
                    | Command::BadTakeover
                    | Command::Observe(_)
                    | Command::Unobserve(_)),
                    _,
                ) => self.unsigned(c, head)?,
                (Command::BadSignon, _) => {
                    return Ok(Ran::bad_line(format!(
                        "Line {}: a SIGNON line has three words after SIGNON: \
                         SIGNON POWER GAME PASSWORD (the GM: SIGNON GM GAME PASSWORD). \
                         Nothing was done.",
                        l.number
                    )))
                }
                (Command::Closing, _) => {
                    self.push(Block::with(head, stray::Stray::Closing.answer()));
                }
                (c, None) => {
                    if let Some(why) = self.observer_refusal(c)? {
                        return Ok(Ran::refused(why));
                    }
                    return Ok(Ran::bad_line(format!(
                        "Line {}: your mail has no SIGNON before its commands. Start the mail \
                         with SIGNON POWER GAME PASSWORD (send HELP for the guide). Nothing \
                         was done.",
                        l.number
                    )));
                }
                (Command::Resign, Some(s)) => {
                    if self.resign(&s, head)? {
                        self.left = true;
                        break;
                    }
                }
                (Command::Signoff, Some(_)) => {
                    self.push(Block::with(
                        head,
                        "Signed off: the rest of the mail was not read.",
                    ));
                    break;
                }
                (Command::Order(text), Some(s)) => {
                    let trailing = last_command.is_none_or(|k| i > k);
                    match self.stray(&s, text, trailing)? {
                        Some(stray) => {
                            self.failed |= matches!(stray, stray::Stray::Unknown { .. });
                            self.push(Block::with(head, stray.answer()));
                        }
                        None => {
                            orders.push(l);
                            dirty = true;
                        }
                    }
                }
                (Command::Clear, Some(s)) if s.role != Role::Gm => {
                    // CLEAR drops the mail's earlier order lines too.
                    let dropped = orders.len();
                    orders.clear();
                    dirty = false;
                    self.blocks.retain(|(o, _)| !o);
                    let mut b = self.clear(&s, head)?;
                    if dropped > 0 {
                        b.lines.push(format!(
                            "The {dropped} order lines above it were dropped too."
                        ));
                    }
                    self.push(b);
                }
                (c, Some(_)) if is_report(c) && self.reports >= MAX_REPORTS => {
                    self.push(Block::with(
                        head,
                        format!(
                            "LIST, HISTORY, SUMMARY, PREVIEW and MAP are answered \
                             {MAX_REPORTS} times per mail in all: this one was not run."
                        ),
                    ));
                }
                (c, Some(s)) => {
                    if is_report(c) {
                        self.reports = self.reports.saturating_add(1);
                    }
                    let b = self.command(&s, c, head)?;
                    self.failed |= b.lines.iter().any(|l| l.starts_with("ERROR"));
                    self.push(b);
                }
            }
        }
        let Some(s) = self.who.clone() else {
            return Ok(Ran {
                game: None,
                intro: "Here is what you asked for.".into(),
                blocks: self.blocks.into_iter().map(|(_, b)| b).collect(),
                extras: Extras::default(),
                failed: self.failed,
            });
        };
        if dirty {
            self.take_orders(&s, &orders)?;
        }
        if let (Role::Power(power), false) = (&s.role, self.left) {
            if let Some(b) = self.order_set(&s.game, power)? {
                self.push(b);
            }
        }
        let intro = format!(
            "The judge read your mail as {} in game '{}'. Line by line:",
            s.role, s.game.name
        );
        Ok(Ran {
            game: Some(s.game.id),
            intro,
            blocks: self.blocks.into_iter().map(|(_, b)| b).collect(),
            extras: self.extras,
            failed: self.failed,
        })
    }

    /// What an order line of the mail is when it is not an order ([`stray::classify`]). The
    /// GM's lines that name a power are orders.
    fn stray(
        &mut self,
        s: &Signed,
        text: &str,
        trailing: bool,
    ) -> Result<Option<stray::Stray>, MailError> {
        if s.role == Role::Gm && text.contains(':') {
            return Ok(None);
        }
        Ok(self
            .j
            .with_variant(&s.game, |v, _| stray::classify(v, text, trailing))?)
    }

    /// The game as it is now: an earlier line of the mail may have paused or resumed it.
    fn game_now(&self, s: &Signed) -> Result<Game, MailError> {
        Ok(self
            .j
            .view()
            .game(&s.game.name)
            .map_err(GameError::from)?
            .unwrap_or_else(|| s.game.clone()))
    }

    /// CLEAR: the power's orders for the current phase are cleared (kept in their history).
    fn clear(&mut self, s: &Signed, head: String) -> Result<Block, MailError> {
        let game = self.game_now(s)?;
        if let Some(refusal) = refuse_orders(self.j, &game)? {
            return Ok(Block::with(head, refusal));
        }
        if let Some(p) = self.j.phase_passed(&game, self.now)? {
            return Ok(Block::with(head, passed(&p, self.now)));
        }
        let power = s.role.name();
        match self.j.clear(&game.name, power, Author::Player, self.now) {
            Err(GameError::Over(_)) => Ok(Block::with(
                head,
                "The game is over: there are no orders to clear.",
            )),
            Err(e @ GameError::ClearGm(_)) => {
                Ok(Block::with(head, format!("ERROR: {e}. Nothing was done.")))
            }
            Err(e) => Err(e.into()),
            Ok(_) => {
                self.set = None;
                Ok(Block::with(head, "Your orders for this phase are cleared."))
            }
        }
    }

    /// The order lines of the mail, through the service's `orders` (the shell's `game orders`):
    /// per power, each line as understood or its error, replacing the orders' blocks so far. A
    /// player's lines are the player's; the GM's lines name their power (`France: A(Par)-Bur`),
    /// split off here once: the service is given the orders alone.
    fn take_orders(&mut self, s: &Signed, lines: &[&Line]) -> Result<(), MailError> {
        self.blocks.retain(|(o, _)| !o);
        let game = self.game_now(s)?;
        if let Some(refusal) = refuse_orders(self.j, &game)? {
            self.push_block(true, Block::with("Orders", refusal));
            return Ok(());
        }
        if let Some(p) = self.j.phase_passed(&game, self.now)? {
            self.blocks
                .push((true, Block::with("Orders", passed(&p, self.now))));
            return Ok(());
        }
        if lines.len() > MAX_ORDER_LINES {
            self.push_block(
                true,
                Block::with(
                    "Orders",
                    format!(
                        "Your mail has {} order lines; the judge takes at most {MAX_ORDER_LINES} \
                         in one mail. None was read: send one line per order of your units. \
                         Nothing was done.",
                        lines.len()
                    ),
                ),
            );
            return Ok(());
        }
        // Per power, each line as given to the service with the mail's line.
        let mut by_power: Vec<(String, Vec<(&Line, &str)>)> = Vec::new();
        for &l in lines {
            let (power, order) = match &s.role {
                Role::Gm => l
                    .text
                    .split_once(':')
                    .map_or(("", l.text.as_str()), |(p, o)| (p.trim(), o.trim())),
                Role::Power(p) => (p.as_str(), l.text.as_str()),
            };
            match by_power
                .iter_mut()
                .find(|(p, _)| p.eq_ignore_ascii_case(power))
            {
                Some((_, ls)) => ls.push((l, order)),
                None => by_power.push((power.to_string(), vec![(l, order)])),
            }
        }
        let by = match s.role {
            Role::Gm => Author::Gm,
            Role::Power(_) => Author::Player,
        };
        let mut failed = false;
        for (power, ls) in by_power {
            if power.is_empty() {
                failed = true;
                let lines = ls
                    .iter()
                    .map(|(l, _)| {
                        format!(
                            "line {}: {}: ERROR: the GM's orders name their power first \
                             (France: A(Par)-Bur).",
                            l.number, l.text
                        )
                    })
                    .collect();
                self.push_block(
                    true,
                    Block {
                        head: "Orders".into(),
                        lines,
                    },
                );
                continue;
            }
            let text: String = ls.iter().map(|(_, o)| format!("{o}\n")).collect();
            let block = match self.j.orders(&game.name, &power, &text, by, self.now) {
                Ok(taken) => {
                    // The service numbers the lines it was given: back to the mail's.
                    let mail_line = |n: usize| ls.get(n.wrapping_sub(1)).map(|(l, _)| *l);
                    let mut lines: Vec<String> = taken
                        .ack
                        .lines
                        .iter()
                        .flat_map(|c| {
                            let (number, written) = mail_line(c.line)
                                .map_or((c.line, c.text.as_str()), |l| (l.number, l.text.as_str()));
                            let head = match &c.error {
                                None => format!("line {number}: {}", c.kept()),
                                Some(e) => {
                                    failed = true;
                                    format!("line {number}: {written}: ERROR: {e}")
                                }
                            };
                            std::iter::once(head).chain(
                                c.warnings
                                    .iter()
                                    .map(move |w| format!("line {number}: WARNING: {w}")),
                            )
                        })
                        .collect();
                    let kept = taken.ack.kept();
                    lines.push(if kept == 0 {
                        "No line could be used: your earlier orders stand.".to_string()
                    } else {
                        format!(
                            "{kept} of {} lines kept; they replace your earlier orders for the \
                             phase.",
                            taken.ack.lines.len()
                        )
                    });
                    if kept > 0 {
                        lines.extend(taken.ack.notes.iter().cloned());
                    }
                    if kept > 0 && by == Author::Player {
                        self.set = Some(taken.ack);
                    }
                    Block {
                        head: format!("Orders for {power}"),
                        lines,
                    }
                }
                Err(e) => {
                    failed = true;
                    Block::with(
                        format!("Orders for {power}"),
                        format!("ERROR: {e}. Nothing was done."),
                    )
                }
            };
            self.push_block(true, block);
        }
        self.failed |= failed;
        Ok(())
    }

    /// The power's orders for the current phase as they now stand, canonical: those this mail
    /// stored as they were checked, else the stored ones checked once.
    fn order_set(&mut self, game: &Game, power: &str) -> Result<Option<Block>, MailError> {
        let Some(set) = self.j.order_set(game, power, self.set.take())? else {
            return Ok(None);
        };
        let OrderSet {
            phase,
            owes,
            orders,
        } = set;
        let head = format!("Your orders for {phase} now");
        let mut lines = match (orders, owes) {
            (_, false) => vec![format!("{power} owes no orders in {phase}.")],
            (None, true) => vec!["None yet: without orders the rules' defaults apply.".into()],
            (Some(o), true) => o,
        };
        if owes && Judge::waits(self.j.view(), game, power)? {
            lines.push("You wait for the deadline: the phase is not processed before it.".into());
        }
        Ok(Some(Block { head, lines }))
    }

    /// One command other than orders, CLEAR, SIGNON and HELP.
    fn command(&mut self, s: &Signed, c: &Command, head: String) -> Result<Block, MailError> {
        let name = s.game.name.clone();
        let gm = s.role == Role::Gm;
        let now = self.now;
        let j = &mut *self.j;
        Ok(match c {
            Command::List => service(head, j.show(&name, Some(&s.role)), |t| {
                t.lines().map(str::to_string).collect()
            }),
            Command::History => {
                let bodies = j
                    .view()
                    .results_bodies(s.game.id)
                    .map_err(GameError::from)?;
                Block {
                    head,
                    lines: history(&bodies),
                }
            }
            Command::Summary => {
                let lines = j.with_variant(&s.game, |v, view| {
                    view.phases(s.game.id).map(|phases| summary(v, &phases))
                })?;
                Block {
                    head,
                    lines: lines.map_err(GameError::from)?,
                }
            }
            Command::HistoryPress(phase) => players::history_press(j, s, phase, head)?,
            Command::Map(_) if self.extras.picture.is_some() => Block::with(
                head,
                "MAP is answered once per mail: a reply carries one picture.",
            ),
            Command::Map(phase) => {
                let phase = Some(phase.trim()).filter(|p| !p.is_empty());
                match j.map(&s.game, phase) {
                    Ok(m) => {
                        self.extras.picture = Some(m.picture);
                        Block::with(
                            head,
                            format!("Attached: {}-board.png, {}.", s.game.name, m.shows),
                        )
                    }
                    Err(e) if e.is_database_fault() => return Err(e.into()),
                    Err(e) => Block::with(head, format!("ERROR: {e}. Nothing was done.")),
                }
            }
            Command::SetPassword(pw) => {
                if pw.is_empty() || pw.contains(char::is_whitespace) {
                    Block::with(
                        head,
                        "Write SET PASSWORD NEWPASSWORD (one word). Nothing was done.",
                    )
                } else {
                    j.set_password(&s.game, &s.role, pw)?;
                    Block::with(
                        head,
                        "Your password is changed: sign on with the new one from now.",
                    )
                }
            }
            Command::SetAddress(a) if !gm => {
                let address = Address::new(a);
                if address.is_valid() {
                    j.set_address(&s.game, &s.role, &address, self.sender, now)?;
                    Block::with(head, format!("The judge now mails {} to {a}.", s.role))
                } else {
                    Block::with(
                        head,
                        "Write SET ADDRESS name@example.org (one address). Nothing was done.",
                    )
                }
            }
            Command::Press { .. } if self.press_copy.is_some() => Block::with(
                head,
                format!(
                    "Not sent again: your mail dated {} had the same text and date, and its \
                     press went then.",
                    self.press_copy.map(stamp).unwrap_or_default()
                ),
            ),
            Command::Press { to, grey, body } => {
                // Orders after a forgotten ENDPRESS would go out as press, and not be entered.
                let orders = j.with_variant(&s.game, |v, _| stray::orders_in(v, body))?;
                if !orders.is_empty() {
                    return Ok(Block::with(head, stray::forgot_endpress(&orders)));
                }
                match j.press(&s.game, &s.role, to, body, *grey, now) {
                    Ok(names) if *grey => Block::with(
                        head,
                        format!("Sent to {}, without your name.", names.join(", ")),
                    ),
                    Ok(names) => Block::with(head, format!("Sent to {}.", names.join(", "))),
                    Err(GameError::Press(r)) => Block::with(head, players::press_refused(&r)),
                    Err(GameError::PressTo(name)) => {
                        let near = j.with_variant(&s.game, |v, _| {
                            v.suggest_power(&name)
                                .filter(|n| !n.eq_ignore_ascii_case(&name))
                                .map(|n| format!(" (did you mean {n}?)"))
                        })?;
                        Block::with(
                            head,
                            format!(
                                "ERROR: '{name}' is not another power of the game{}: write \
                                 PRESS TO and the powers' names. Nothing was sent.",
                                near.unwrap_or_default()
                            ),
                        )
                    }
                    Err(e @ (GameError::PressLimit(_) | GameError::PressTooLong(_))) => {
                        Block::with(head, format!("ERROR: {e}. Nothing was sent."))
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            Command::Gm(GmCommand::Process { phase, now: anyway }) if gm => {
                service(head, j.process_due(&name, Some(phase), *anyway, now), |p| {
                    vec![format!(
                        "Processed {}; next {}; {} mails queued.",
                        p.phase,
                        p.next.as_deref().unwrap_or("none (the game is over)"),
                        p.mails
                    )]
                })
            }
            Command::Gm(GmCommand::Preview) if gm => {
                service(head, j.process(&name, true, now), |p| {
                    p.results.lines().map(str::to_string).collect()
                })
            }
            Command::Gm(GmCommand::Rollback { phase, reason }) if gm => {
                service(head, j.rollback(&name, phase, Some(reason), now), |p| {
                    vec![format!(
                        "The game is back at the start of {p}; everyone is told."
                    )]
                })
            }
            Command::Gm(GmCommand::SetDeadline(t)) if gm => {
                let zone = s.game.timezone.clone();
                service(head, j.set_deadline(&name, t, now), |at| {
                    vec![format!(
                        "Deadline: {}; everyone is told.",
                        clock::show_in(at, &zone)
                    )]
                })
            }
            Command::Set { key, value } => settings::command(j, s, (key, value), head, now)?,
            Command::Gm(GmCommand::Control(minor, major)) if gm => {
                service(head, j.control(&name, minor, major, now), |c| {
                    vec![format!("{c} (carried out when the phase is processed).")]
                })
            }
            Command::Gm(GmCommand::Code(words)) if gm => seats::code(j, s, words, head, now)?,
            Command::Gm(GmCommand::Replace(words)) if gm => seats::replace(j, s, words, head, now)?,
            Command::Gm(GmCommand::Pause) if gm => service(head, j.pause(&name, true, now), |_| {
                vec!["The game is paused.".into()]
            }),
            Command::Gm(GmCommand::Resume) if gm => {
                let zone = s.game.timezone.clone();
                service(head, j.pause(&name, false, now), |d| {
                    vec![format!(
                        "The game runs again{}.",
                        d.map(|d| format!("; deadline {}", clock::show_in(d, &zone)))
                            .unwrap_or_default()
                    )]
                })
            }
            Command::Clear | Command::SetAddress(_) => Block::with(
                head,
                "The GM has no orders or address of a power to change by mail.",
            ),
            Command::SetWait(_)
            | Command::SetAbsence(_)
            | Command::SetDraw(_)
            | Command::SetConcede(_)
            | Command::Gm(GmCommand::End(_)) => endings::command(j, s, c, head, now)?,
            Command::Gm(_) => gm_only(head),
            // Run by `run` itself.
            Command::Help
            | Command::Signon { .. }
            | Command::BadSignon
            | Command::Signoff
            | Command::Closing
            | Command::Resign
            | Command::Takeover { .. }
            | Command::BadTakeover
            | Command::Observe(_)
            | Command::Unobserve(_)
            | Command::Order(_) => Block::new(head),
        })
    }
}

/// The commands that answer with a long text: LIST, HISTORY, SUMMARY, PREVIEW.
fn is_report(c: &Command) -> bool {
    matches!(
        c,
        Command::List
            | Command::History
            | Command::HistoryPress(_)
            | Command::Map(_)
            | Command::Summary
            | Command::Gm(GmCommand::Preview)
    )
}

fn gm_only(head: String) -> Block {
    Block::with(
        head,
        "Only the GM may do this (SIGNON GM GAME PASSWORD). Nothing was done.",
    )
}

fn service<T>(head: String, r: Result<T, GameError>, ok: impl FnOnce(T) -> Vec<String>) -> Block {
    match r {
        Ok(t) => Block { head, lines: ok(t) },
        Err(e) => Block::with(head, format!("ERROR: {e}. Nothing was done.")),
    }
}

/// Why a game takes no orders now, if it doesn't.
fn refuse_orders(j: &Judge, g: &Game) -> Result<Option<String>, MailError> {
    if let Some(e) = j.ending(g)? {
        return Ok(Some(format!(
            "Game '{}' ended {}: it takes no orders. Nothing was done.",
            g.name,
            crate::game::describe(&e, &g.timezone)
        )));
    }
    Ok(match g.state {
        GameState::Forming => Some(format!(
            "Game '{}' has not started: no orders yet. Nothing was done.",
            g.name
        )),
        GameState::Paused => Some(format!(
            "Game '{}' is paused by the GM: no orders are taken until it resumes. Nothing was done.",
            g.name
        )),
        GameState::Finished => Some(format!(
            "Game '{}' is over: no orders are taken. Nothing was done.",
            g.name
        )),
        GameState::Running => None,
    })
}

/// HISTORY: the results mails of the game's phases, oldest first.
fn history(bodies: &[String]) -> Vec<String> {
    if bodies.is_empty() {
        return vec!["No phase has been processed yet.".into()];
    }
    bodies
        .iter()
        .flat_map(|b| b.lines().chain(["", "----", ""]))
        .map(str::to_string)
        .collect()
}

/// SUMMARY: centre counts and ledgers at the start of each year (after each Winter), and now.
fn summary(v: &Variant, phases: &[crate::store::PhaseRow]) -> Vec<String> {
    let live: Vec<&crate::store::PhaseRow> = phases.iter().filter(|p| !p.superseded).collect();
    let mut out = Vec::new();
    for (i, p) in live.iter().enumerate() {
        let after_winter = i > 0
            && matches!(
                live[i - 1].position.phase.kind,
                PhaseKind::Adjustment | PhaseKind::Bids
            );
        let current = i + 1 == live.len();
        if !(after_winter || current) {
            continue;
        }
        let pos = &p.position;
        let when = if current && p.report.is_none() {
            format!("{} (now)", v.phase_name(pos.phase))
        } else {
            v.phase_name(pos.phase)
        };
        out.push(when);
        for power in v
            .power_ids()
            .filter(|&q| v.power(q).kind == PowerKind::Major)
        {
            let items: Vec<String> = pos
                .ledgers
                .items(v, power)
                .iter()
                .map(|i| i.text(v))
                .collect();
            out.push(format!(
                "  {:<10} {:>2} centres{}",
                v.power(power).name,
                pos.centre_count(v, power),
                if items.is_empty() {
                    String::new()
                } else {
                    format!("; {}", items.join("; "))
                }
            ));
        }
    }
    out
}
