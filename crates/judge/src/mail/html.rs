//! An HTML body read as the lines its writer saw: each block (`div`, `p`, `li`, a
//! table row, a heading) and each `<br>` starts a line, tags are dropped and entities decoded,
//! and what the mail program quotes or hides (`<blockquote>`, Gmail's `gmail_quote`, Yahoo's
//! `yahoo_quoted`, `<style>`, `<head>`) is left out like `> ` lines; Outlook's reply header
//! (`divRplyFwdMsg`, `appendonsend`) ends the mail like `-----Original Message-----`.
//! mail-parser's own HTML-to-text joins a Gmail mail's `<div>`s into one line, which is why the
//! judge reads HTML itself.

/// Elements whose start and end break the line (once: no blank lines between blocks).
const BLOCKS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "body",
    "center",
    "dd",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "html",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "table",
    "tbody",
    "tfoot",
    "thead",
    "tr",
    "ul",
];

/// Elements whose content is never shown as the mail's text.
const HIDDEN: &[&str] = &["head", "script", "style", "title", "template"];

/// Elements with no end tag: they never open a level to skip.
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr",
];

/// Marks (in a tag's attributes, lower case) of a block that quotes an earlier mail.
const QUOTED: &[&str] = &["gmail_quote", "yahoo_quoted", "moz-cite-prefix"];

/// Marks of the block from which Outlook quotes the mail answered, to the end.
const REPLY_HEADER: &[&str] = &["divrplyfwdmsg", "appendonsend"];

/// The text of an HTML body, one line per block or `<br>`.
pub(super) fn to_text(html: &str) -> String {
    let mut out = Text::default();
    // The element being skipped (its name) and how many of that name are open inside it.
    let mut skip: Option<(String, usize)> = None;
    let mut pre = 0usize;
    let mut rest = html;
    while !rest.is_empty() {
        let Some(lt) = rest.find('<') else {
            if skip.is_none() {
                out.text(rest, pre > 0);
            }
            break;
        };
        let (before, tag_on) = rest.split_at(lt);
        if skip.is_none() {
            out.text(before, pre > 0);
        }
        if let Some(after) = tag_on.strip_prefix("<!--") {
            rest = after.find("-->").map_or("", |e| &after[e + 3..]);
            continue;
        }
        let Some(gt) = tag_on.find('>') else {
            // A `<` that opens no tag is text.
            if skip.is_none() {
                out.text(tag_on, pre > 0);
            }
            break;
        };
        let tag = Tag::read(&tag_on[1..gt]);
        rest = &tag_on[gt + 1..];
        let Some(tag) = tag else {
            continue;
        };
        if let Some((name, depth)) = skip.as_mut() {
            if *name == tag.name && !VOID.contains(&tag.name.as_str()) && !tag.self_closing {
                if tag.end {
                    *depth = depth.saturating_sub(1);
                    if *depth == 0 {
                        skip = None;
                        out.block();
                    }
                } else {
                    *depth = depth.saturating_add(1);
                }
            }
            continue;
        }
        if !tag.end && REPLY_HEADER.iter().any(|m| tag.attributes.contains(m)) {
            break;
        }
        let quoted = tag.name == "blockquote" || QUOTED.iter().any(|m| tag.attributes.contains(m));
        if !tag.end
            && !tag.self_closing
            && !VOID.contains(&tag.name.as_str())
            && (quoted || HIDDEN.contains(&tag.name.as_str()))
        {
            out.block();
            skip = Some((tag.name, 1));
            continue;
        }
        if tag.name == "br" {
            out.newline();
        } else if tag.name == "td" || tag.name == "th" {
            // A row's cells are one line, a space apart.
            out.space = out.open;
        } else if BLOCKS.contains(&tag.name.as_str()) {
            if tag.name == "pre" {
                pre = if tag.end {
                    pre.saturating_sub(1)
                } else {
                    pre.saturating_add(1)
                };
            }
            out.block();
        }
    }
    out.finish()
}

/// A tag as far as reading needs it: its name, whether it ends an element, and its attributes
/// in lower case (searched for the marks of a quote).
struct Tag {
    name: String,
    end: bool,
    self_closing: bool,
    attributes: String,
}

impl Tag {
    /// The tag between `<` and `>`; None for a declaration (`<!DOCTYPE ...>`) or a processing
    /// instruction.
    fn read(inner: &str) -> Option<Tag> {
        if inner.starts_with('!') || inner.starts_with('?') {
            return None;
        }
        let (end, inner) = match inner.strip_prefix('/') {
            Some(i) => (true, i),
            None => (false, inner),
        };
        let self_closing = inner.trim_end().ends_with('/');
        let name_len = inner
            .find(|c: char| c.is_whitespace() || c == '/')
            .unwrap_or(inner.len());
        let (name, attributes) = inner.split_at(name_len);
        if name.is_empty() {
            return None;
        }
        Some(Tag {
            name: name.to_ascii_lowercase(),
            end,
            self_closing,
            attributes: attributes.to_ascii_lowercase(),
        })
    }
}

/// The text being built: whitespace folded as a browser folds it, lines broken where blocks
/// and `<br>` break them.
#[derive(Default)]
struct Text {
    out: String,
    /// The current line has text.
    open: bool,
    /// A space is owed before the next word of the line.
    space: bool,
}

impl Text {
    fn text(&mut self, raw: &str, pre: bool) {
        let decoded = decode(raw);
        for c in decoded.chars() {
            if pre && c == '\n' {
                self.newline();
            } else if c.is_whitespace() {
                self.space = self.open;
            } else {
                if self.space {
                    self.out.push(' ');
                }
                self.space = false;
                self.open = true;
                self.out.push(c);
            }
        }
    }

    /// `<br>`: always a new line (an empty one too).
    fn newline(&mut self) {
        self.out.push('\n');
        self.open = false;
        self.space = false;
    }

    /// A block's edge: a new line unless the line is empty.
    fn block(&mut self) {
        if self.open {
            self.newline();
        }
    }

    fn finish(mut self) -> String {
        self.block();
        self.out
    }
}

/// `s` with its character references decoded: the numeric ones, and the named ones mail
/// programs write. An unknown name is left as written.
fn decode(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let end = after
            .char_indices()
            .take(12)
            .find(|&(_, c)| c == ';')
            .map(|(i, _)| i);
        let decoded = end.and_then(|e| entity(&after[..e]).map(|c| (c, e)));
        match decoded {
            Some((c, e)) => {
                out.push(c);
                rest = &after[e + 1..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The character an entity's name (between `&` and `;`) stands for.
fn entity(name: &str) -> Option<char> {
    if let Some(num) = name.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse().ok()?,
        };
        return char::from_u32(code);
    }
    Some(match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => ' ',
        "ndash" => '–',
        "mdash" => '—',
        "lsquo" => '‘',
        "rsquo" => '’',
        "ldquo" => '“',
        "rdquo" => '”',
        "hellip" => '…',
        "eacute" => 'é',
        "egrave" => 'è',
        "agrave" => 'à',
        "ouml" => 'ö',
        "uuml" => 'ü',
        "auml" => 'ä',
        "szlig" => 'ß',
        "ccedil" => 'ç',
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gmail writes one `<div>` per line; each is a line, `<div><br></div>` a blank one.
    #[test]
    fn gmail_divs_are_lines() {
        let html = "<div dir=\"ltr\"><div>SIGNON France g pw</div><div>A Par-Bur</div><div><br></div><div>F&nbsp;Bre - MAO</div></div>";
        assert_eq!(
            to_text(html),
            "SIGNON France g pw\nA Par-Bur\n\nF Bre - MAO\n"
        );
    }

    /// Paragraphs and `<br>` keep the lines `mail-parser` kept (no blank line between
    /// paragraphs), so line numbers of existing HTML mails don't move.
    #[test]
    fn paragraphs_and_breaks() {
        let html =
            "<html><body><p>SIGNON Austria g pw</p><p>A(Vie)-Boh<br>A(Bud)-Gal</p></body></html>";
        assert_eq!(
            to_text(html),
            "SIGNON Austria g pw\nA(Vie)-Boh\nA(Bud)-Gal\n"
        );
    }

    /// Quoted blocks (Gmail's gmail_quote, Apple Mail's blockquote) are dropped, and
    /// Outlook's reply header ends the text.
    #[test]
    fn quotes_are_dropped() {
        let gmail = "<div>LIST</div><br><div class=\"gmail_quote\"><div class=\"gmail_attr\">On Mon, judge wrote:<br></div><blockquote class=\"gmail_quote\"><div>A Mar-Spa</div></blockquote></div>";
        assert_eq!(to_text(gmail), "LIST\n\n");
        let apple = "<div>LIST</div><div><blockquote type=\"cite\"><div><blockquote>SIGNON GM g x</blockquote></div></blockquote>CLEAR</div>";
        assert_eq!(to_text(apple), "LIST\nCLEAR\n");
        let outlook = "<div>LIST</div><hr><div id=\"divRplyFwdMsg\"><b>From:</b> judge</div><div>A Mar-Spa</div>";
        assert_eq!(to_text(outlook), "LIST\n");
    }

    /// Entities decoded, tags, comments, styles and list items handled.
    #[test]
    fn entities_lists_tables_and_styles() {
        let html = "<head><style>p { color: red }</style></head><!-- x --><ul><li>A(Par)&#45;Bur</li><li>F Bre &amp; co &lt;ok&gt;</li></ul><table><tr><td>A</td><td>Mar H</td></tr></table>&unknown; 5 &lt 6";
        assert_eq!(
            to_text(html),
            "A(Par)-Bur\nF Bre & co <ok>\nA Mar H\n&unknown; 5 &lt 6\n"
        );
    }
}
