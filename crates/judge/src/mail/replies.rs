//! The reply to a mail: its blocks, the templates it is rendered with, what goes with it (the
//! mail's record, a picture, a copy for the role's own address), and the reply queued with
//! the message marked.

use super::message::Head;
use super::{body, players, text, MailError};
use crate::game::{GameError, Judge, Reply};
use crate::render::{self, echo};
use crate::store::{InboxState, MailKind, MailPicture as Picture, NewMail, SignedMail};
use chrono::{DateTime, Utc};

/// One part of a reply: a heading and its lines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Block {
    /// The heading (`line 3: LIST`).
    pub head: String,
    /// Its lines.
    pub lines: Vec<String>,
}

impl Block {
    /// A block without lines yet.
    pub(super) fn new(head: impl Into<String>) -> Block {
        Block {
            head: head.into(),
            lines: Vec::new(),
        }
    }

    /// A block of one line.
    pub(super) fn with(head: impl Into<String>, line: impl Into<String>) -> Block {
        Block {
            head: head.into(),
            lines: vec![line.into()],
        }
    }
}

/// The reply to a mail.
#[derive(askama::Template)]
#[template(path = "reply.txt")]
pub(crate) struct ReplyMail<'a> {
    /// What the judge made of the mail, in one sentence.
    pub intro: &'a str,
    /// One block per command, in the mail's order.
    pub blocks: &'a [Block],
    /// To the GM: the footer points to the GM's guide.
    pub gm: bool,
}

/// The players' guide.
#[derive(askama::Template)]
#[template(path = "help.txt")]
pub(crate) struct HelpMail<'a> {
    /// The judge's address.
    pub judge: &'a str,
}

/// The GM's guide: every GM command by mail and at the shell.
#[derive(askama::Template)]
#[template(path = "help-gm.txt")]
pub(crate) struct GmHelpMail<'a> {
    /// The judge's address.
    pub judge: &'a str,
}

/// What goes with a reply besides its text.
#[derive(Default)]
pub(super) struct Extras {
    /// The mail's record, when it was handled after a SIGNON.
    pub(super) handled: Option<SignedMail>,
    /// The picture a MAP asked for.
    pub(super) picture: Option<Picture>,
    /// A copy for the role's own address, when the SIGNON came from another.
    pub(super) copy: Option<players::SignonCopy>,
}

/// The parts of a reply besides its first sentence, all optional: a caller names those it has.
#[derive(Default)]
pub(super) struct ReplyParts<'a> {
    /// The game the mail concerned.
    pub(super) game: Option<i64>,
    /// The blocks, in the reply's order.
    pub(super) blocks: &'a [Block],
    /// What goes with the reply besides its text.
    pub(super) extras: Option<&'a Extras>,
    /// The mail was the GM's.
    pub(super) gm: bool,
}

/// The subject of a reply to a mail whose subject is `subject`.
pub(super) fn reply_subject(subject: &str) -> String {
    let clean: String = subject.chars().filter(|c| !c.is_control()).collect();
    let clean = echo(clean.trim());
    if clean.is_empty() {
        "your mail to the judge".to_string()
    } else if clean.to_ascii_lowercase().starts_with("re:") {
        clean.into_owned()
    } else {
        format!("Re: {clean}")
    }
}

/// Renders the reply to the stored message `id`, and has the service queue it and mark the
/// message `state` (one transaction).
pub(super) fn reply(
    j: &mut Judge,
    h: &Head,
    id: i64,
    intro: &str,
    state: InboxState,
    now: DateTime<Utc>,
    parts: ReplyParts,
) -> Result<(), MailError> {
    let ReplyParts {
        game,
        blocks,
        extras,
        gm,
    } = parts;
    let body = render::render("reply", &ReplyMail { intro, blocks, gm })?;
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
            in_reply_to: h.reply_to_id(),
            handled: extras.and_then(|e| e.handled.as_ref()),
            picture: extras.and_then(|e| e.picture.as_ref()),
            also: &also,
        },
        now,
    )?;
    Ok(())
}

/// The most the reply's block of the mail as read holds (bytes): a long mail is shown in part.
const MAX_AS_READ: usize = 8_000;

/// The reply's block of the mail's lines as the judge read them, numbered as in the body.
pub(super) fn as_read(text: &str) -> Block {
    let all = text::as_read(text);
    let mut used = 0usize;
    let mut lines: Vec<String> = all
        .iter()
        .map(|(n, t)| format!("{n}: {}", echo(t)))
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
pub(super) fn attachments(body: &body::Body) -> Vec<Block> {
    let mut lines = Vec::new();
    if let Some(a) = &body.attachment {
        lines.push(format!(
            "The judge read your attachment {} as the mail's body: the mail's own text \
             gave no command.",
            echo(&a.to_string())
        ));
    }
    if !body.ignored.is_empty() {
        let names = body
            .ignored
            .iter()
            .map(|a| a.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        lines.push(format!(
            "Not read: {}. The judge reads the mail's text (or one plain text attachment); \
             write your commands there.",
            echo(&names)
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

/// The bytes a block takes in the reply (as `reply.txt` lays it out).
pub(super) fn block_size(b: &Block) -> usize {
    b.lines.iter().fold(b.head.len().saturating_add(2), |n, l| {
        n.saturating_add(l.len()).saturating_add(3)
    })
}

/// The answer to a GM's command from a player.
pub(super) fn gm_only(head: String) -> Block {
    Block::with(
        head,
        "Only the GM may do this (SIGNON GM GAME PASSWORD). Nothing was done.",
    )
}

/// The block of a service call's answer: what it gave, or its error and that nothing was done.
pub(super) fn service<T>(
    head: String,
    r: Result<T, GameError>,
    ok: impl FnOnce(T) -> Vec<String>,
) -> Block {
    match r {
        Ok(t) => Block { head, lines: ok(t) },
        Err(e) => Block::with(head, format!("ERROR: {e}. Nothing was done.")),
    }
}
