//! The Atom feeds (RFC 4287): one per game and one for the judge, an entry per processed phase.
//!
//! Ids are `tag:` URIs (RFC 4151), `tag:AUTHORITY,DATE:GAME/1801-spring-movement`, from the
//! authority (the site's host, else the judge's mail domain), the day the game's first phase was
//! processed, the game's folder and the phase: they never change once the phase is played. With
//! `[site] url` links are absolute under it; without, they are relative references, which Atom
//! allows (RFC 4287 §2: resolved against the feed's own address, as `xml:base` would be).

use crate::SiteError;
use askama::Template;
use chrono::{DateTime, SecondsFormat, Utc};

/// A feed's entry: one processed phase.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Its `tag:` id.
    pub id: String,
    /// `GAME: Spring 1801 Movement`.
    pub title: String,
    /// When the phase was processed.
    pub updated: DateTime<Utc>,
    /// The phase's page.
    pub href: String,
    /// The centres after it.
    pub summary: String,
}

/// A feed.
pub struct Feed {
    /// Its `tag:` id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Its latest entry's time; none without entries.
    pub updated: Option<DateTime<Utc>>,
    /// The feed itself.
    pub self_href: String,
    /// The page it follows.
    pub alternate: String,
    /// The entries, newest first.
    pub entries: Vec<Entry>,
}

struct Line<'a> {
    e: &'a Entry,
    updated: String,
}

#[derive(Template)]
#[template(path = "site-feed.xml")]
struct FeedXml<'a> {
    f: &'a Feed,
    updated: String,
    entries: Vec<Line<'a>>,
}

fn time(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// The feed as Atom XML. A feed with no entries yet says it was updated at the Unix epoch:
/// Atom requires a time, and nothing has been published.
pub fn render(f: &Feed) -> Result<String, SiteError> {
    let xml = FeedXml {
        f,
        updated: time(f.updated.unwrap_or(DateTime::<Utc>::UNIX_EPOCH)),
        entries: f
            .entries
            .iter()
            .map(|e| Line {
                e,
                updated: time(e.updated),
            })
            .collect(),
    };
    xml.render().map_err(|source| SiteError::Render {
        page: "feed.atom".into(),
        source,
    })
}

/// A `tag:` URI minted by `authority` on `date`'s day (the epoch's when there is none yet).
pub fn tag(authority: &str, date: Option<DateTime<Utc>>, specific: &str) -> String {
    let day = date
        .unwrap_or(DateTime::<Utc>::UNIX_EPOCH)
        .format("%Y-%m-%d");
    format!("tag:{authority},{day}:{specific}")
}

/// The earliest entry's time (the judge's feed's tag date).
pub fn first_date(entries: &[Entry]) -> Option<DateTime<Utc>> {
    entries.iter().map(|e| e.updated).min()
}

/// The link to `file` of the folder `dir` (`""`: the site's root), from a feed in that folder:
/// absolute under `url` when there is one, else relative.
pub fn link(url: Option<&str>, dir: &str, file: &str) -> String {
    match url {
        Some(u) if dir.is_empty() => format!("{}/{file}", u.trim_end_matches('/')),
        Some(u) => format!("{}/{dir}/{file}", u.trim_end_matches('/')),
        None => file.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A feed's links are relative without `[site] url`, absolute under it.
    #[test]
    fn links_are_relative_unless_a_url_is_set() {
        assert_eq!(link(None, "g1", "feed.atom"), "feed.atom");
        assert_eq!(
            link(Some("https://example.org/games/"), "g1", "x.html"),
            "https://example.org/games/g1/x.html"
        );
        assert_eq!(
            link(Some("https://example.org"), "", "index.html"),
            "https://example.org/index.html"
        );
        let t = DateTime::from_timestamp(86_400 * 365, 0);
        assert_eq!(
            tag("example.org", t, "g1/1901-spring-movement"),
            "tag:example.org,1971-01-01:g1/1901-spring-movement"
        );
    }
}
