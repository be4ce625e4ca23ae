//! Which text of a message the judge reads: the plain text body, else the HTML body
//! read by its blocks ([`html`]); a text/plain attachment when the body gives no command (a
//! player who attached `orders.txt`); every other attachment named as not read. And the
//! inverse for a stored copy with its passwords masked: MIME parts that read back as the same
//! [`Body`], so a mail answered after a crash gets the same note on its attachments.

use super::{html, text};
use mail_parser::{Message, MessagePart, MimeHeaders, PartType};
use std::fmt;

/// The text read from a message, and what became of its attachments.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Body {
    /// The text the commands are read from (empty when the message has none).
    pub text: String,
    /// The attachment read as the body, when it was.
    pub attachment: Option<Attachment>,
    /// The attachments not read.
    pub ignored: Vec<Attachment>,
}

/// An attachment as a reply names it: its file name, else its type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Attachment {
    /// Its file name, when it has one.
    pub name: Option<String>,
    /// Its MIME type (`application/pdf`).
    pub kind: String,
}

impl fmt::Display for Attachment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.name {
            Some(n) => f.write_str(n),
            None => write!(f, "an attachment without a name ({})", self.kind),
        }
    }
}

/// The body of `m` as the judge reads it.
pub(super) fn of(m: &Message) -> Body {
    let main = m.text_part(0).and_then(part_text).unwrap_or_default();
    let mut body = Body {
        text: main,
        ..Body::default()
    };
    // A body that gives no command ("orders attached", or nothing) leaves the first text/plain
    // attachment to be read in its place.
    let mut take_attachment = !gives_commands(&body.text);
    for a in m.attachments() {
        let name = attachment(a);
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

/// An attachment's name and type.
fn attachment(a: &MessagePart) -> Attachment {
    let kind = a
        .content_type()
        .map_or("application/octet-stream".to_string(), |ct| {
            match ct.subtype() {
                Some(sub) => format!("{}/{sub}", ct.ctype()),
                None => ct.ctype().to_string(),
            }
        });
    Attachment {
        name: a.attachment_name().map(str::to_string),
        kind,
    }
}

/// The MIME content (its Content-Type and the rest of the headers, a blank line, the body) of a
/// stored copy whose text is `text` (the body's text, masked): [`of`] reads it back as `body`
/// with `text`. Without attachments, plain text; with them, the text (or the attachment read
/// as the body) and each attachment not read as an empty part of its name and type: their
/// bytes are not kept, as the judge never reads them.
pub(super) fn stored(body: &Body, text: &str) -> Vec<u8> {
    const PLAIN: &str = "Content-Type: text/plain; charset=utf-8\r\n\
                         Content-Transfer-Encoding: 8bit\r\n";
    if body.attachment.is_none() && body.ignored.is_empty() {
        return format!("{PLAIN}\r\n{text}").into_bytes();
    }
    let mut boundary = "napjudge-stored-part".to_string();
    while text.contains(&boundary) {
        boundary.push('-');
    }
    // The mail's own text gave no command when an attachment was read: it is left empty.
    let main = if body.attachment.is_some() { "" } else { text };
    let mut out = format!(
        "Content-Type: multipart/mixed; boundary=\"{boundary}\"\r\n\r\n\
         --{boundary}\r\n{PLAIN}\r\n{main}\r\n"
    );
    if let Some(a) = &body.attachment {
        out.push_str(&format!(
            "--{boundary}\r\n{PLAIN}{}\r\n{text}\r\n",
            disposition(a)
        ));
    }
    for a in &body.ignored {
        out.push_str(&format!(
            "--{boundary}\r\nContent-Type: {}\r\n{}\r\n",
            header_kind(&a.kind),
            disposition(a)
        ));
    }
    out.push_str(&format!("--{boundary}--\r\n"));
    out.into_bytes()
}

/// An attachment's Content-Disposition, its name encoded as RFC 2231 says (any character).
fn disposition(a: &Attachment) -> String {
    let Some(name) = &a.name else {
        return "Content-Disposition: attachment\r\n".to_string();
    };
    let encoded: String = name
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"!#$&+-.^_`|~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    format!("Content-Disposition: attachment; filename*=utf-8''{encoded}\r\n")
}

/// A type as a header may hold it: one read from a mail is a `type/subtype` token, anything
/// else (which a header could not carry) is stored as the generic type.
fn header_kind(kind: &str) -> &str {
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~/".contains(c);
    if !kind.is_empty() && kind.chars().all(token) {
        kind
    } else {
        "application/octet-stream"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stored copy reads back as the body it was made of: names in any script (RFC 2231),
    /// an attachment without a name by its type, the one read as the body.
    #[test]
    fn a_stored_copy_reads_back_as_its_body() {
        let named = |n: &str, kind: &str| Attachment {
            name: Some(n.into()),
            kind: kind.into(),
        };
        let bodies = [
            Body {
                text: "SIGNON France g ******\r\nA(Par)-Bur\r\n".into(),
                attachment: None,
                ignored: vec![
                    named("Befehle für \"Frühjahr\"; 1801.pdf", "application/pdf"),
                    Attachment {
                        name: None,
                        kind: "image/png".into(),
                    },
                ],
            },
            Body {
                text: "SIGNON France g ******\r\nA(Par)-Bur\r\n".into(),
                attachment: Some(named("ордера.txt", "text/plain")),
                ignored: vec![named("notes.txt", "text/plain")],
            },
        ];
        for body in bodies {
            let raw = [
                b"From: a@example.org\r\n".as_slice(),
                &stored(&body, &body.text),
            ]
            .concat();
            let m = mail_parser::MessageParser::default()
                .parse(&raw)
                .expect("parsed");
            assert_eq!(of(&m), body, "{}", String::from_utf8_lossy(&raw));
        }
    }
}
