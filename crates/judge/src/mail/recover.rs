//! Mail stored and answered later: the tick answers the messages a stopped judge stored and
//! never answered (running again only what is harmless to repeat), and a message whose
//! answering fails is marked failed, its GM and sender told.

use super::answer::{answer, Stored};
use super::message::{commands, parse, whole};
use super::replies::{reply, reply_subject, ReplyMail, ReplyParts};
use super::text::Command;
use super::{Handled, MailConfig, MailError};
use crate::game::{GameError, Judge, Reply, TickReport};
use crate::render::{self, echo};
use crate::store::{Address, InboxState, Pending, Role};
use chrono::{DateTime, Utc};

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
        | Command::Confirm { .. }
        | Command::Unobserve(_) => false,
        Command::BadSignon
        | Command::BadTakeover
        | Command::BadConfirm
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

/// How long a stored message waits before `tick` answers it in place of the `mail receive`
/// that stored it: long enough that a receive still at work keeps its own message.
pub(crate) const PENDING_AFTER: chrono::TimeDelta = chrono::TimeDelta::minutes(5);

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
pub(super) fn answer_stored(
    j: &mut Judge,
    cfg: &MailConfig,
    m: &Pending,
) -> Result<Handled, MailError> {
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
            &intro,
            InboxState::Answered,
            at,
            ReplyParts::default(),
        )
        .map(|()| Handled::Answered)
    }
}

/// The GM's notice of a message that could not be answered.
#[derive(askama::Template)]
#[template(path = "unanswered.txt")]
pub(crate) struct UnansweredMail<'a> {
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
            subject: &echo(&h.subject),
            message_id: &echo(h.message_id.as_deref().unwrap_or("(none)")),
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
            gm: false,
        },
    )?;
    let to_sender = Reply {
        game: gm.game,
        to: h.sender.as_str(),
        subject: &reply_subject(&h.subject),
        body: &sorry,
        in_reply_to: h.reply_to_id(),
        handled: None,
        picture: None,
        also: &[],
    };
    let answerable =
        h.sender.as_str().contains('@') && !h.auto && h.sender != Address::new(&cfg.judge);
    j.fail_message(m.id, why, &gm, answerable.then_some(&to_sender), now)?;
    Ok(())
}

/// What answering a stored message came to: a fault of the database is passed on (the message
/// stays `stored`, to be answered later); any other failure marks it failed, the GM told.
pub(super) fn settle(
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
