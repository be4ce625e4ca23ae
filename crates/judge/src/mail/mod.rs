//! Mail intake: one RFC 5322 message in, stored raw first (its own transaction), then read as
//! commands and answered with one reply queued in the outbox. The commands run through the
//! judge's service ([`Judge`]): a mail does nothing the GM's shell commands don't.

pub mod text;

use crate::clock;
use crate::game::{self, GameError, Judge, GM};
use crate::render::{self, RenderError};
use crate::store::{self, Game, GameState, NewMail, StoreError};
use chrono::{DateTime, Utc};
use mail_parser::{Message, MessageParser};
use napjudge_engine::order::{Order, Stage};
use napjudge_engine::position::Position;
use napjudge_engine::turn;
use napjudge_engine::variant::{PhaseKind, PowerId, PowerKind, Region, Variant};
use rusqlite::{params, Connection, OptionalExtension};
use sha2::{Digest, Sha256};
use text::{Command, GmCommand, Line};

/// The default size limit of a message (bytes).
pub const MAX_SIZE: usize = 1 << 20;

/// Order lines one mail may hold: a power has a few dozen units; a mail with more is a mistake
/// (a pasted file, a loop) and its orders are refused whole.
pub const MAX_ORDER_LINES: usize = 500;

/// Wrong passwords from one address within [`THROTTLE_WINDOW`] before its sign-ons are refused.
pub const THROTTLE_LIMIT: i64 = 5;
/// The window of [`THROTTLE_LIMIT`] (seconds).
pub const THROTTLE_WINDOW: i64 = 6 * 3600;

/// What intake needs to know about the judge.
#[derive(Clone, Debug)]
pub struct MailConfig {
    /// The judge's own address: mail from it is never answered.
    pub judge: String,
    /// Messages larger than this (bytes) are refused unread.
    pub max_size: usize,
}

/// Why a message could not be stored (anything after storing is answered, not an error).
#[derive(Debug, thiserror::Error)]
pub enum MailError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// SQLite failed.
    #[error("database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The service failed in a way a reply can't report (the store).
    #[error(transparent)]
    Game(#[from] GameError),
    /// The reply can't be rendered.
    #[error(transparent)]
    Render(#[from] RenderError),
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
    /// Stored, but answering failed (why): the raw message is kept with state `stored`.
    Unanswered(String),
}

/// The headers intake looks at.
#[derive(Default)]
struct Head {
    message_id: Option<String>,
    sender: String,
    subject: String,
    auto: bool,
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
            .is_some_and(|s| s.to_ascii_lowercase().starts_with("mailer-daemon@"));
    Head {
        message_id: m.message_id().map(|s| s.trim().to_string()),
        sender: sender.unwrap_or_default(),
        subject: m.subject().unwrap_or("").to_string(),
        auto,
    }
}

/// A message as intake reads it: whole, or only its headers when it is over the size limit.
fn parse<'a>(cfg: &MailConfig, raw: &'a [u8]) -> (Option<Message<'a>>, Head) {
    let parser = MessageParser::default();
    let parsed = if raw.len() > cfg.max_size {
        parser.parse_headers(header_part(raw))
    } else {
        parser.parse(raw)
    };
    let h = parsed.as_ref().map(head).unwrap_or_default();
    (parsed, h)
}

/// The header part of a message too large to read whole.
fn header_part(raw: &[u8]) -> &[u8] {
    let limit = raw.len().min(64 * 1024);
    let part = &raw[..limit];
    let end = part
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .or_else(|| part.windows(2).position(|w| w == b"\n\n"));
    end.map_or(part, |e| &raw[..e])
}

fn now_text(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// A message seen before.
struct Earlier {
    /// When it first came.
    at: String,
    /// A duplicate of it was answered already.
    answered_twice: bool,
}

/// The judge's tick by mail: the messages stored but never answered are answered first (so their
/// orders count before any phase is processed), then the games' tick. The number of messages
/// answered, and what the games' tick did.
pub fn tick(j: &mut Judge, cfg: &MailConfig) -> Result<(usize, game::TickReport), MailError> {
    let answered = answer_pending(j, cfg)?;
    Ok((answered, j.tick()?))
}

/// Whether running a command a second time does no harm: orders and player settings are
/// replaced by the same again; press would be sent twice, and a GM's command could process or
/// roll back a phase twice.
fn repeatable(c: &Command) -> bool {
    match c {
        Command::Signon { power, .. } => !power.eq_ignore_ascii_case(GM),
        Command::Press { .. } | Command::Gm(_) => false,
        Command::BadSignon
        | Command::Help
        | Command::List
        | Command::History
        | Command::Summary
        | Command::Clear
        | Command::Signoff
        | Command::SetPassword(_)
        | Command::SetAddress(_)
        | Command::Order(_) => true,
    }
}

/// The SHA-256 of a raw message, hex: how a message without a Message-ID is recognised again.
fn digest_of(raw: &[u8]) -> String {
    Sha256::digest(raw)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Stores the raw message in its own transaction; its row id and, if it was seen before (same
/// Message-ID, else same digest), when.
fn store_raw(
    c: &mut Connection,
    raw: &[u8],
    h: &Head,
    now: DateTime<Utc>,
) -> Result<(i64, Option<Earlier>), MailError> {
    let digest = digest_of(raw);
    let tx = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    tx.execute(
        "INSERT INTO inbox (message_id, digest, sender, size, raw, received, state)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'stored')",
        params![
            h.message_id,
            digest,
            h.sender,
            raw.len() as i64,
            raw,
            now_text(now)
        ],
    )?;
    let id = tx.last_insert_rowid();
    let earlier = earlier(&tx, h, &digest, id)?;
    tx.commit()?;
    Ok((id, earlier))
}

/// When the message stored as `id` came before it (the same Message-ID, else the same digest).
fn earlier(c: &Connection, h: &Head, digest: &str, id: i64) -> Result<Option<Earlier>, MailError> {
    let (key, value) = match &h.message_id {
        Some(id) => ("message_id = ?1", id.as_str()),
        None => ("message_id IS NULL AND digest = ?1", digest),
    };
    Ok(c.query_row(
        &format!(
            "SELECT MIN(received), SUM(state = 'duplicate') FROM inbox WHERE {key} AND id < ?2
             HAVING COUNT(*) > 0"
        ),
        params![value, id],
        |r| {
            Ok(Earlier {
                at: r.get(0)?,
                answered_twice: r.get::<_, i64>(1)? > 0,
            })
        },
    )
    .optional()?)
}

/// How long a stored message waits before `tick` answers it in place of the `mail receive`
/// that stored it: long enough that a receive still at work keeps its own message.
pub const PENDING_AFTER: chrono::TimeDelta = chrono::TimeDelta::minutes(5);

/// Answers the messages stored but never answered (the judge killed between storing and
/// answering, or an answer that failed), oldest first, each as of the time it was received, so
/// that its orders count for the phase they came in and no order stored is ever lost. `tick` runs
/// it before it processes any phase. The replies say nothing of the delay; the number answered
/// is returned.
fn answer_pending(j: &mut Judge, cfg: &MailConfig) -> Result<usize, MailError> {
    let before = now_text(j.clock.now() - PENDING_AFTER);
    let pending: Vec<(i64, Vec<u8>, String)> = {
        let mut stmt = j.store.conn.prepare(
            "SELECT id, raw, received FROM inbox WHERE state = 'stored' AND received <= ?1
             ORDER BY id",
        )?;
        let rows = stmt.query_map([before], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        rows.collect::<Result<_, _>>()?
    };
    let clock = j.clock;
    let mut answered = 0;
    for (id, raw, received) in pending {
        let Ok(at) = chrono::DateTime::parse_from_rfc3339(&received) else {
            continue;
        };
        let (parsed, h) = parse(cfg, &raw);
        let digest = digest_of(&raw);
        let earlier = earlier(&j.store.conn, &h, &digest, id)?;
        j.clock = clock::Clock::fixed(at.with_timezone(&Utc));
        let lines = parsed
            .as_ref()
            .and_then(|m| m.body_text(0))
            .map(|b| text::read(&b))
            .unwrap_or_default();
        let done = if lines.iter().all(|l| repeatable(&l.command)) {
            answer(j, cfg, &raw, parsed.as_ref(), &h, id, earlier)
        } else {
            let intro = format!(
                "The judge stored your mail of {received} but was stopped before it answered, \
                 and may have carried out part of it. It was not run again, because a GM \
                 command or press run twice could do harm: check the game with LIST and send \
                 again what is missing."
            );
            reply(j, &h, id, None, &intro, &[], "answered").map(|()| Handled::Answered)
        };
        j.clock = clock;
        if done.is_ok() {
            answered += 1;
        }
    }
    Ok(answered)
}

fn set_state(c: &Connection, id: i64, state: &str, note: Option<&str>) -> Result<(), MailError> {
    c.execute(
        "UPDATE inbox SET state = ?2, note = ?3 WHERE id = ?1",
        params![id, state, note],
    )?;
    Ok(())
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

/// Receives one message: stores it, then answers it (or not: mail from the judge itself and
/// automatic mail are stored and never answered).
pub fn receive(j: &mut Judge, cfg: &MailConfig, raw: &[u8]) -> Result<Handled, MailError> {
    let (parsed, h) = parse(cfg, raw);
    let (id, earlier) = store_raw(&mut j.store.conn, raw, &h, j.clock.now())?;
    // Stored: whatever goes wrong now is the judge's to report, not the mail server's to retry.
    Ok(answer(j, cfg, raw, parsed.as_ref(), &h, id, earlier)
        .unwrap_or_else(|e| Handled::Unanswered(e.to_string())))
}

/// Queues the reply to the stored message `id` and marks the message `state`, in one
/// transaction.
fn reply(
    j: &mut Judge,
    h: &Head,
    id: i64,
    game: Option<i64>,
    intro: &str,
    blocks: &[Block],
    state: &str,
) -> Result<(), MailError> {
    let now = j.clock.now();
    let clean: String = h.subject.chars().filter(|c| !c.is_control()).collect();
    let clean = clean.trim();
    let subject = if clean.is_empty() {
        "your mail to the judge".to_string()
    } else if clean.to_ascii_lowercase().starts_with("re:") {
        clean.to_string()
    } else {
        format!("Re: {clean}")
    };
    let body = render::render("reply", &ReplyMail { intro, blocks })?;
    let tx = j.store.conn.transaction()?;
    store::queue_mail(
        &tx,
        &NewMail {
            game,
            phase: None,
            kind: "reply",
            to: &h.sender,
            subject: &subject,
            body: &body,
            in_reply_to: h.message_id.as_deref(),
        },
        now,
    )?;
    tx.execute(
        "UPDATE inbox SET state = ?2, game = ?3 WHERE id = ?1",
        params![id, state, game],
    )?;
    tx.commit()?;
    Ok(())
}

/// Answers a stored message (or marks it ignored).
fn answer(
    j: &mut Judge,
    cfg: &MailConfig,
    raw: &[u8],
    parsed: Option<&Message>,
    h: &Head,
    id: i64,
    earlier: Option<Earlier>,
) -> Result<Handled, MailError> {
    let too_big = raw.len() > cfg.max_size;
    let c = &j.store.conn;
    if h.sender.is_empty() || !h.sender.contains('@') {
        set_state(c, id, "ignored", Some("no sender address to answer"))?;
        return Ok(Handled::Ignored("no sender address".into()));
    }
    if h.sender.eq_ignore_ascii_case(&cfg.judge) {
        set_state(c, id, "ignored", Some("from the judge's own address"))?;
        return Ok(Handled::Ignored("from the judge's own address".into()));
    }
    if h.auto {
        set_state(
            c,
            id,
            "ignored",
            Some("automatic mail (auto-submitted or a bounce)"),
        )?;
        return Ok(Handled::Ignored("automatic mail".into()));
    }
    if let Some(Earlier {
        answered_twice: true,
        ..
    }) = earlier
    {
        // One duplicate reply per message: a loop resending it gets no more.
        set_state(c, id, "ignored", Some("a duplicate answered before"))?;
        return Ok(Handled::Ignored("a duplicate answered before".into()));
    }
    if let Some(Earlier { at, .. }) = earlier {
        let intro = format!(
            "This message (the same Message-ID, or the same text) reached the judge before, at {at}. \
             It was answered then; nothing was done this time."
        );
        reply(j, h, id, None, &intro, &[], "duplicate")?;
        return Ok(Handled::Duplicate);
    }
    if too_big {
        let intro = format!(
            "Your mail is {} bytes; the judge reads mail up to {} bytes. Nothing was done: send \
             your commands as plain text, without attachments.",
            raw.len(),
            cfg.max_size
        );
        reply(j, h, id, None, &intro, &[], "answered")?;
        return Ok(Handled::Answered);
    }
    let body = parsed.and_then(|m| m.body_text(0));
    let lines = body.as_deref().map(text::read).unwrap_or_default();
    if lines.is_empty() {
        let intro = "The judge found no text it could read in your mail (no plain text or HTML \
                     body, or only quoted lines). Nothing was done. Write your commands as plain \
                     text, starting with SIGNON POWER GAME PASSWORD; send HELP for the guide.";
        reply(j, h, id, None, intro, &[], "answered")?;
        return Ok(Handled::Answered);
    }
    let (game, intro, blocks) = run(j, cfg, &h.sender, &lines)?;
    reply(j, h, id, game, &intro, &blocks, "answered")?;
    Ok(Handled::Answered)
}

/// Who signed on.
struct Signed {
    game: Game,
    /// The power's name, or `GM`.
    power: String,
}

fn wrong_password_count(
    c: &Connection,
    sender: &str,
    now: DateTime<Utc>,
) -> Result<i64, MailError> {
    let since = now_text(clock::after(now, -THROTTLE_WINDOW));
    Ok(c.query_row(
        "SELECT COUNT(*) FROM signon_failures WHERE address = ?1 AND at > ?2",
        params![sender.to_ascii_lowercase(), since],
        |r| r.get(0),
    )?)
}

/// Checks a SIGNON; the signed-on power, or the one sentence the reply says.
fn signon(
    j: &mut Judge,
    sender: &str,
    power: &str,
    game: &str,
    password: &str,
) -> Result<Result<Signed, String>, MailError> {
    let now = j.clock.now();
    if wrong_password_count(&j.store.conn, sender, now)? >= THROTTLE_LIMIT {
        return Ok(Err(format!(
            "Too many wrong passwords came from {sender} in the last six hours: the judge takes \
             no SIGNON from this address for now. Try again later; your GM can set you a new \
             password."
        )));
    }
    let Some(g) = store::game(&j.store.conn, game)? else {
        return Ok(Err(format!(
            "There is no game called '{game}' on this judge. Check the name in your SIGNON line."
        )));
    };
    let players = store::players(&j.store.conn, g.id)?;
    let name = if power.eq_ignore_ascii_case(GM) {
        GM.to_string()
    } else {
        let known = j.with_variant(&g, |v, _| {
            v.power_by_name(power)
                .filter(|&p| v.power(p).kind == PowerKind::Major)
                .map(|p| v.power(p).name.clone())
        })?;
        match known {
            Some(n) => n,
            None => {
                return Ok(Err(format!(
                    "'{power}' is not a power of game '{}'. Its powers: {}.",
                    g.name,
                    players
                        .iter()
                        .filter(|p| p.power != GM)
                        .map(|p| p.power.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )))
            }
        }
    };
    let hash = store::password_hash(&j.store.conn, g.id, &name)?;
    if !hash.is_some_and(|h| game::verify_password(password, &h)) {
        j.store.conn.execute(
            "INSERT INTO signon_failures (address, at) VALUES (?1, ?2)",
            params![sender.to_ascii_lowercase(), now_text(now)],
        )?;
        return Ok(Err(format!(
            "Wrong password for {name} in game '{}'. Nothing was done.",
            g.name
        )));
    }
    Ok(Ok(Signed {
        game: g,
        power: name,
    }))
}

/// Runs a mail's commands: the game it concerned, the reply's first sentence and its blocks.
fn run(
    j: &mut Judge,
    cfg: &MailConfig,
    sender: &str,
    lines: &[Line],
) -> Result<(Option<i64>, String, Vec<Block>), MailError> {
    // (is it the orders' block, the block): the orders' blocks are replaced at each flush.
    let mut blocks: Vec<(bool, Block)> = Vec::new();
    let mut who: Option<Signed> = None;
    // The mail's order lines since its last CLEAR, and whether some came since the last flush.
    let mut orders: Vec<&Line> = Vec::new();
    let mut dirty = false;
    for l in lines {
        // A new password is not echoed back.
        let head = match l.command {
            Command::SetPassword(_) => format!("line {}: SET PASSWORD ...", l.number),
            _ => format!("line {}: {}", l.number, l.text),
        };
        // The order lines so far are taken before any other command runs (LIST shows them, a
        // PAUSE comes after them), as one set: later lines join them and the set is taken again.
        let is_order = matches!(l.command, Command::Order(_));
        if let (Some(s), true, false, false) = (&who, dirty, is_order, l.command == Command::Clear)
        {
            blocks.retain(|(o, _)| !o);
            blocks.extend(take_orders(j, s, &orders)?.into_iter().map(|b| (true, b)));
            dirty = false;
        }
        match (&l.command, &who) {
            (Command::Help, _) => {
                let guide = render::render("help", &HelpMail { judge: &cfg.judge })?;
                blocks.push((
                    false,
                    Block {
                        head,
                        lines: guide.lines().map(str::to_string).collect(),
                    },
                ));
            }
            (
                Command::Signon {
                    power,
                    game,
                    password,
                },
                None,
            ) => match signon(j, sender, power, game, password)? {
                Ok(s) => {
                    blocks.push((
                        false,
                        Block::with(
                            format!("line {}: SIGNON {} {}", l.number, s.power, s.game.name),
                            format!("Signed on as {} in game '{}'.", s.power, s.game.name),
                        ),
                    ));
                    who = Some(s);
                }
                Err(why) => return Ok((None, why, Vec::new())),
            },
            (Command::Signon { .. }, Some(_)) => blocks.push((
                false,
                Block::with(
                    format!("line {}: SIGNON ...", l.number),
                    "One SIGNON per mail: this line was ignored.",
                ),
            )),
            (Command::BadSignon, _) => {
                return Ok((
                    None,
                    format!(
                        "Line {}: a SIGNON line has three words after SIGNON: \
                         SIGNON POWER GAME PASSWORD (the GM: SIGNON GM GAME PASSWORD). \
                         Nothing was done.",
                        l.number
                    ),
                    Vec::new(),
                ))
            }
            (_, None) => {
                return Ok((
                    None,
                    format!(
                        "Line {}: your mail has no SIGNON before its commands. Start the mail \
                         with SIGNON POWER GAME PASSWORD (send HELP for the guide). Nothing \
                         was done.",
                        l.number
                    ),
                    Vec::new(),
                ))
            }
            (Command::Signoff, Some(_)) => {
                blocks.push((
                    false,
                    Block::with(head, "Signed off: the rest of the mail was not read."),
                ));
                break;
            }
            (Command::Order(_), Some(_)) => {
                orders.push(l);
                dirty = true;
            }
            (Command::Clear, Some(s)) if s.power != GM => {
                // CLEAR drops the mail's earlier order lines too.
                let dropped = orders.len();
                orders.clear();
                dirty = false;
                blocks.retain(|(o, _)| !o);
                let mut b = clear(j, s, head)?;
                if dropped > 0 {
                    b.lines.push(format!(
                        "The {dropped} order lines above it were dropped too."
                    ));
                }
                blocks.push((false, b));
            }
            (c, Some(s)) => {
                let b = command(j, s, c, head)?;
                blocks.push((false, b));
            }
        }
    }
    let Some(s) = who else {
        return Ok((
            None,
            "Here is what you asked for.".into(),
            blocks.into_iter().map(|(_, b)| b).collect(),
        ));
    };
    if dirty {
        blocks.retain(|(o, _)| !o);
        blocks.extend(take_orders(j, &s, &orders)?.into_iter().map(|b| (true, b)));
    }
    let mut blocks: Vec<Block> = blocks.into_iter().map(|(_, b)| b).collect();
    if s.power != GM {
        if let Some(b) = order_set(j, &s)? {
            blocks.push(b);
        }
    }
    let intro = format!(
        "The judge read your mail as {} in game '{}'. Line by line:",
        s.power, s.game.name
    );
    Ok((Some(s.game.id), intro, blocks))
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

/// One command other than orders, SIGNON and HELP.
fn command(j: &mut Judge, s: &Signed, c: &Command, head: String) -> Result<Block, MailError> {
    let name = s.game.name.clone();
    let gm = s.power == GM;
    let now = j.clock.now();
    Ok(match c {
        Command::List => service(head, j.show(&name), |t| {
            t.lines().map(str::to_string).collect()
        }),
        Command::History => Block {
            head,
            lines: history(&j.store.conn, s.game.id)?,
        },
        Command::Summary => {
            let phases = store::phases(&j.store.conn, s.game.id)?;
            let lines = j.with_variant(&s.game, |v, _| summary(v, &phases))?;
            Block { head, lines }
        }
        Command::SetPassword(pw) if !gm => {
            if pw.is_empty() || pw.contains(char::is_whitespace) {
                Block::with(
                    head,
                    "Write SET PASSWORD NEWPASSWORD (one word). Nothing was done.",
                )
            } else {
                let hash = game::hash_password(pw)?;
                let address = player_address(&j.store.conn, s)?;
                store::set_player(&j.store.conn, s.game.id, &s.power, &address, &hash)?;
                Block::with(
                    head,
                    "Your password is changed: sign on with the new one from now.",
                )
            }
        }
        Command::SetAddress(a) if !gm => {
            if game::valid_address(a) {
                let hash =
                    store::password_hash(&j.store.conn, s.game.id, &s.power)?.unwrap_or_default();
                store::set_player(&j.store.conn, s.game.id, &s.power, a, &hash)?;
                Block::with(head, format!("The judge now mails {} to {a}.", s.power))
            } else {
                Block::with(
                    head,
                    "Write SET ADDRESS name@example.org (one address). Nothing was done.",
                )
            }
        }
        Command::Press { to, body } => press(j, s, to, body, head, now)?,
        Command::Gm(GmCommand::Process) if gm => service(head, j.process(&name, false), |p| {
            vec![format!(
                "Processed {}; next {}; {} mails queued.",
                p.phase,
                p.next.as_deref().unwrap_or("none (the game is over)"),
                p.mails
            )]
        }),
        Command::Gm(GmCommand::Preview) if gm => service(head, j.process(&name, true), |p| {
            p.results.lines().map(str::to_string).collect()
        }),
        Command::Gm(GmCommand::Rollback(phase)) if gm => {
            service(head, j.rollback(&name, phase), |p| {
                vec![format!("The game is back at the start of {p}.")]
            })
        }
        Command::Gm(GmCommand::SetDeadline(t)) if gm => {
            let r = clock::parse_time(t)
                .map_err(GameError::from)
                .and_then(|at| j.set_deadline(&name, at).map(|()| at));
            let zone = s.game.timezone.clone();
            service(head, r, |at| {
                vec![format!("Deadline: {}.", clock::show_in(at, &zone))]
            })
        }
        Command::Gm(GmCommand::SetGrace(p)) if gm => {
            let r = clock::parse_period(p)
                .map_err(GameError::from)
                .and_then(|secs| j.set_grace(&name, secs).map(|()| secs));
            service(head, r, |secs| {
                vec![format!("Grace: {}.", clock::show_period(secs))]
            })
        }
        Command::Gm(GmCommand::SetPictures(word)) if gm => {
            let on = match word.to_ascii_lowercase().as_str() {
                "on" => Some(true),
                "off" => Some(false),
                _ => None,
            };
            match on {
                Some(on) => service(head, j.set_pictures(&name, on), |()| {
                    let word = if on { "with" } else { "without" };
                    vec![format!("Result mails go {word} a picture of the board.")]
                }),
                None => Block::with(
                    head,
                    "ERROR: write SET PICTURES ON or SET PICTURES OFF. Nothing was done.",
                ),
            }
        }
        Command::Gm(GmCommand::Control(minor, major)) if gm => {
            service(head, j.control(&name, minor, major), |c| {
                vec![format!("{c} (carried out when the phase is processed).")]
            })
        }
        Command::Gm(GmCommand::Pause) if gm => service(head, j.pause(&name, true), |_| {
            vec!["The game is paused.".into()]
        }),
        Command::Gm(GmCommand::Resume) if gm => {
            let zone = s.game.timezone.clone();
            service(head, j.pause(&name, false), |d| {
                vec![format!(
                    "The game runs again{}.",
                    d.map(|d| format!("; deadline {}", clock::show_in(d, &zone)))
                        .unwrap_or_default()
                )]
            })
        }
        Command::Clear | Command::SetPassword(_) | Command::SetAddress(_) => Block::with(
            head,
            "The GM has no orders, password or address of a power to change by mail.",
        ),
        Command::Gm(_) => gm_only(head),
        // Handled by the caller.
        Command::Help
        | Command::Signon { .. }
        | Command::BadSignon
        | Command::Signoff
        | Command::Order(_) => Block::new(head),
    })
}

fn player_address(c: &Connection, s: &Signed) -> Result<String, MailError> {
    Ok(store::players(c, s.game.id)?
        .into_iter()
        .find(|p| p.power == s.power)
        .map(|p| p.address)
        .unwrap_or_default())
}

/// CLEAR: the power's orders for the current phase are dropped (the raw mails keep them).
fn clear(j: &mut Judge, s: &Signed, head: String) -> Result<Block, MailError> {
    let game = store::game(&j.store.conn, &s.game.name)?.unwrap_or_else(|| s.game.clone());
    if let Some(refusal) = refuse_orders(&game) {
        return Ok(Block::with(head, refusal));
    }
    let Some(phase) = store::current_phase(&j.store.conn, s.game.id)? else {
        return Ok(Block::with(
            head,
            "The game is over: there are no orders to clear.",
        ));
    };
    j.store.conn.execute(
        "DELETE FROM orders WHERE phase = ?1 AND power = ?2",
        params![phase.id, s.power],
    )?;
    Ok(Block::with(head, "Your orders for this phase are cleared."))
}

/// Why a game takes no orders now, if it doesn't.
fn refuse_orders(g: &Game) -> Option<String> {
    match g.state {
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
    }
}

/// The order lines of a mail, through `Judge::orders` (the shell's `game orders`): per power, each
/// line as understood or its error. A player's lines are the player's; the GM's lines name their
/// power (`France: A(Par)-Bur`).
fn take_orders(j: &mut Judge, s: &Signed, lines: &[&Line]) -> Result<Vec<Block>, MailError> {
    // The state now: an earlier line of the mail may have paused or resumed the game.
    let game = store::game(&j.store.conn, &s.game.name)?.unwrap_or_else(|| s.game.clone());
    if let Some(refusal) = refuse_orders(&game) {
        return Ok(vec![Block::with("Orders", refusal)]);
    }
    if lines.len() > MAX_ORDER_LINES {
        return Ok(vec![Block::with(
            "Orders",
            format!(
                "Your mail has {} order lines; the judge takes at most {MAX_ORDER_LINES} in one \
                 mail. None was read: send one line per order of your units. Nothing was done.",
                lines.len()
            ),
        )]);
    }
    // Each line keeps its body line number: the text given to the service has blank lines for
    // the mail's other lines.
    let mut by_power: Vec<(String, Vec<&Line>)> = Vec::new();
    for l in lines {
        let power = if s.power == GM {
            l.text
                .split_once(':')
                .map_or(String::new(), |(p, _)| p.trim().to_string())
        } else {
            s.power.clone()
        };
        match by_power
            .iter_mut()
            .find(|(p, _)| p.eq_ignore_ascii_case(&power))
        {
            Some((_, ls)) => ls.push(l),
            None => by_power.push((power, vec![l])),
        }
    }
    let mut blocks = Vec::new();
    for (power, ls) in by_power {
        let last = ls.last().map_or(0, |l| l.number);
        let mut text = vec![String::new(); last];
        for l in &ls {
            text[l.number - 1] = l.text.clone();
        }
        let text = text.join("\n");
        let by = if s.power == GM { "gm" } else { "player" };
        if power.is_empty() {
            blocks.push(Block {
                head: "Orders".into(),
                lines: ls
                    .iter()
                    .map(|l| {
                        format!(
                            "line {}: {}: ERROR: the GM's orders name their power first \
                             (France: A(Par)-Bur).",
                            l.number, l.text
                        )
                    })
                    .collect(),
            });
            continue;
        }
        let block = match j.orders(&s.game.name, &power, &text, by) {
            Ok(checks) => {
                let kept = checks.iter().filter(|c| c.error.is_none()).count();
                let mut lines: Vec<String> = checks
                    .iter()
                    .map(|c| match &c.error {
                        None => format!("line {}: {}", c.line, c.kept()),
                        Some(e) => format!("line {}: {}: ERROR: {e}", c.line, c.text),
                    })
                    .collect();
                lines.push(if kept == 0 {
                    "No line could be used: your earlier orders stand.".to_string()
                } else {
                    format!(
                        "{kept} of {} lines kept; they replace your earlier orders for the phase.",
                        checks.len()
                    )
                });
                Block {
                    head: format!("Orders for {power}"),
                    lines,
                }
            }
            Err(e) => Block::with(
                format!("Orders for {power}"),
                format!("ERROR: {e}. Nothing was done."),
            ),
        };
        blocks.push(block);
    }
    Ok(blocks)
}

/// The power's orders for the current phase as they now stand, canonical.
fn order_set(j: &mut Judge, s: &Signed) -> Result<Option<Block>, MailError> {
    let c = &j.store.conn;
    let Some(phase) = store::current_phase(c, s.game.id)? else {
        return Ok(None);
    };
    let text = store::latest_orders(c, phase.id)?
        .into_iter()
        .find(|t| t.power == s.power)
        .map(|t| t.text);
    let gm = store::gm_commands(c, phase.id)?;
    let lines = j.with_variant(&s.game, |v, _| {
        let name = v.phase_name(phase.position.phase);
        let head = format!("Your orders for {name} now");
        let Some(p) = v.power_by_name(&s.power) else {
            return Block::new(head);
        };
        let owe = turn::owing(v, &phase.position).contains(&p);
        let lines = match (&text, owe) {
            (_, false) => vec![format!("{} owes no orders in {name}.", s.power)],
            (None, true) => vec!["None yet: without orders the rules' defaults apply.".into()],
            (Some(t), true) => {
                let mut lines: Vec<String> = game::acknowledge(v, &phase.position, &gm, p, t)
                    .into_iter()
                    .map(|c| c.order)
                    .collect();
                lines.extend(stacks(v, &phase.position, p, t));
                lines
            }
        };
        Block { head, lines }
    })?;
    Ok(Some(lines))
}

/// R1.4: for each of the power's forces of several components, what each component will do
/// (`3A(Bur): 1 by A(Bur)-Par; 2 hold`): components no order names hold.
fn stacks(v: &Variant, position: &Position, p: PowerId, text: &str) -> Vec<String> {
    let orders: Vec<Order<Region>> = turn::check(v, Some(position), Some(p), text)
        .into_iter()
        .filter_map(|c| c.checked.ok())
        .filter(|o| o.stage == Stage::First)
        .collect();
    position
        .forces()
        .filter(|(_, f)| f.power == p && f.components() > 1)
        .map(|(at, f)| {
            let mut parts = Vec::new();
            let mut named = 0;
            for o in &orders {
                if let Some(u) = o.kind.unit().filter(|u| u.at.province == at) {
                    let k = u32::from(u.armies) + u32::from(u.fleets);
                    named += k;
                    parts.push(format!("{k} by {}", o.display(v)));
                }
            }
            let rest = f.components().saturating_sub(named);
            if rest > 0 {
                parts.push(format!("{rest} hold"));
            }
            format!("{}: {}", f.name(v, at), parts.join("; "))
        })
        .collect()
}

/// PRESS TO ... / BROADCAST: stored, and mailed to the powers named (everyone but the sender).
fn press(
    j: &mut Judge,
    s: &Signed,
    to: &[String],
    body: &str,
    head: String,
    now: DateTime<Utc>,
) -> Result<Block, MailError> {
    let players = store::players(&j.store.conn, s.game.id)?;
    let mut recipients = Vec::new();
    for name in to {
        match players
            .iter()
            .find(|p| p.power.eq_ignore_ascii_case(name) && p.power != s.power)
        {
            Some(p) => recipients.push(p),
            None => {
                return Ok(Block::with(
                    head,
                    format!(
                        "ERROR: '{name}' is not another power of the game: write PRESS TO and \
                         the powers' names. Nothing was sent."
                    ),
                ))
            }
        }
    }
    if to.is_empty() {
        recipients = players.iter().filter(|p| p.power != s.power).collect();
    }
    let names: Vec<&str> = recipients.iter().map(|p| p.power.as_str()).collect();
    let phase = store::current_phase(&j.store.conn, s.game.id)?.map(|p| p.id);
    let tx = j.store.conn.transaction()?;
    store::add_press(&tx, s.game.id, phase, &s.power, &names.join(" "), body, now)?;
    let mail = format!(
        "Press in game '{}' from {} to {}:\n\n{body}",
        s.game.name,
        s.power,
        names.join(", ")
    );
    let subject = format!("{}: press from {}", s.game.name, s.power);
    let mut seen = std::collections::HashSet::new();
    for p in &recipients {
        if seen.insert(p.address.to_ascii_lowercase()) {
            store::queue_mail(
                &tx,
                &NewMail {
                    game: Some(s.game.id),
                    phase,
                    kind: "press",
                    to: &p.address,
                    subject: &subject,
                    body: &mail,
                    in_reply_to: None,
                },
                now,
            )?;
        }
    }
    tx.commit()?;
    Ok(Block::with(head, format!("Sent to {}.", names.join(", "))))
}

/// HISTORY: the results mails of the game's phases, oldest first (one copy per phase).
fn history(c: &Connection, game: i64) -> Result<Vec<String>, MailError> {
    let mut st = c.prepare_cached(
        "SELECT body FROM outbox WHERE id IN
           (SELECT MIN(id) FROM outbox WHERE game = ?1 AND kind = 'results' GROUP BY phase)
         ORDER BY id",
    )?;
    let bodies: Vec<String> = st
        .query_map([game], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    if bodies.is_empty() {
        return Ok(vec!["No phase has been processed yet.".into()]);
    }
    Ok(bodies
        .iter()
        .flat_map(|b| b.lines().chain(["", "----", ""]))
        .map(str::to_string)
        .collect())
}

/// SUMMARY: centre counts and ledgers at the start of each year (after each Winter), and now.
fn summary(v: &Variant, phases: &[store::PhaseRow]) -> Vec<String> {
    let live: Vec<&store::PhaseRow> = phases.iter().filter(|p| !p.superseded).collect();
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
