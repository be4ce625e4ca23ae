//! Which text of a message the judge reads (issue 21): the plain text body, else the HTML body
//! read by its blocks ([`html`]); a text/plain attachment when the body gives no command (a
//! player who attached `orders.txt`); every other attachment named as not read.

use super::{html, text};
use mail_parser::{Message, MessagePart, MimeHeaders, PartType};

/// The text read from a message, and what became of its attachments.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Body {
    /// The text the commands are read from (empty when the message has none).
    pub text: String,
    /// The attachment read as the body, by name, when it was.
    pub attachment: Option<String>,
    /// The attachments not read, by name.
    pub ignored: Vec<String>,
}

/// The body of `m` as the judge reads it.
pub fn of(m: &Message) -> Body {
    let main = m.text_part(0).and_then(part_text).unwrap_or_default();
    let mut body = Body {
        text: main,
        ..Body::default()
    };
    // A body that gives no command ("orders attached", or nothing) leaves the first text/plain
    // attachment to be read in its place.
    let mut take_attachment = !gives_commands(&body.text);
    for a in m.attachments() {
        let name = name(a);
        // mail-parser lists an inline text part both as a body and as an attachment.
        let is_body = m.text_bodies().any(|b| std::ptr::eq(b, a));
        if is_body {
            continue;
        }
        match (take_attachment, a.is_content_type("text", "plain"), &a.body) {
            (true, true, PartType::Text(t)) => {
                body.text = t.to_string();
                body.attachment = Some(name);
                take_attachment = false;
            }
            _ => body.ignored.push(name),
        }
    }
    body
}

/// A body part's text: plain as it is, HTML read by its blocks.
fn part_text(p: &MessagePart) -> Option<String> {
    match &p.body {
        PartType::Text(t) => Some(t.to_string()),
        PartType::Html(h) => Some(html::to_text(h)),
        _ => None,
    }
}

/// Whether `t` holds a command the judge knows (not only lines that may be orders).
fn gives_commands(t: &str) -> bool {
    text::read(t).map_or(true, |lines| lines.iter().any(|l| l.command.is_command()))
}

/// An attachment as a reply names it: its file name, else its type.
fn name(a: &MessagePart) -> String {
    if let Some(n) = a.attachment_name() {
        return n.to_string();
    }
    let kind = a
        .content_type()
        .map_or("application/octet-stream".to_string(), |ct| {
            match ct.subtype() {
                Some(sub) => format!("{}/{sub}", ct.ctype()),
                None => ct.ctype().to_string(),
            }
        });
    format!("an attachment without a name ({kind})")
}
