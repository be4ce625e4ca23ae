//! `napjudge site`: the web archive, a static site any web host serves, made from the store
//! through its read API only. An index of games (`index.html`); per game a page with the board
//! now, the standings, the deadline, the phases and a chart of the centres (`GAME/index.html`),
//! a page per processed phase (`GAME/1801-spring-movement.html`) with the board, the orders with
//! their outcomes (the results mail's own view, [`PhaseView`]), the events, the retreats,
//! the Winter's ledgers and the public press; the record as data (`GAME/game.json`, the public
//! export), and Atom feeds (`feed.atom`, `GAME/feed.atom`, [`feed`]). Every link is relative.
//!
//! Nothing private is published: no address, no press but to every power, no orders of a phase
//! not yet processed (only processed phases have pages; the game page shows positions only).

mod chart;
pub mod feed;

use askama::Template;
use chrono::{DateTime, Utc};
use napjudge_engine::position::Position;
use napjudge_engine::variant::{PowerId, Variant};
use napjudge_judge::{
    board, describe_ending, game_dir, phase_file, show_in, Context, Game, GameError, GameState,
    PhaseRow, PhaseView, Player, StoreError, View,
};
use napjudge_picture as picture;
use napjudge_replay::export::{self, ExportError, Scope};
use std::path::{Path, PathBuf};

/// Why the site can't be made.
#[derive(Debug, thiserror::Error)]
pub enum SiteError {
    /// The store can't be read.
    #[error("{0}")]
    Store(#[from] StoreError),
    /// A game's board doesn't load.
    #[error("{0}")]
    Game(#[from] GameError),
    /// No game of that name.
    #[error("there is no game '{0}' (`napjudge game list` shows the games)")]
    UnknownGame(String),
    /// A board can't be drawn.
    #[error("the board of game '{game}': {source}")]
    Picture {
        /// The game.
        game: String,
        /// Why.
        source: picture::PictureError,
    },
    /// A page can't be rendered.
    #[error("the page {page}: {source}")]
    Render {
        /// The page.
        page: String,
        /// Why.
        source: askama::Error,
    },
    /// The export can't be made.
    #[error("{0}")]
    Export(#[from] ExportError),
    /// A file can't be written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
}

/// What to publish, and where it is served.
pub struct Options<'a> {
    /// The games (none: every game started).
    pub games: &'a [String],
    /// `[site] url`: the feeds' links absolute under it, else relative.
    pub url: Option<&'a str>,
    /// Who mints the feeds' `tag:` ids: the url's host, else the judge's mail domain.
    pub authority: &'a str,
}

/// What was written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Built {
    /// Games published.
    pub games: usize,
    /// Phase pages written.
    pub phases: usize,
}

const CSS: &str = include_str!("../../../templates/site.css");
/// The arrow keys' script: the one script of the site, a file beside the CSS.
const JS: &str = include_str!("../../../templates/site.js");

/// A phase with a page: its file name and title.
#[derive(Clone, Debug)]
pub struct PhaseLink {
    /// `1801-spring-movement.html`.
    pub href: String,
    /// `Spring 1801 Movement`.
    pub name: String,
}

/// A power's line of the standings.
pub struct Standing {
    /// The power.
    pub power: String,
    /// Its colour on the board.
    pub colour: String,
    /// Centres owned.
    pub centres: usize,
    /// Units on the board.
    pub units: u32,
}

/// A public press message.
pub struct PressItem {
    /// The sender.
    pub from: String,
    /// When, in the game's zone.
    pub at: String,
    /// The text.
    pub body: String,
}

/// A game on the index.
pub struct GameLine {
    /// The game's folder.
    pub href: String,
    /// Its name.
    pub name: String,
    /// Its variant.
    pub variant: String,
    /// Its state.
    pub state: String,
    /// Its phase now.
    pub phase: String,
}

#[derive(Template)]
#[template(path = "site-index.html")]
struct IndexPage<'a> {
    games: &'a [GameLine],
}

#[derive(Template)]
#[template(path = "site-game.html")]
struct GamePage<'a> {
    name: &'a str,
    variant: &'a str,
    state: &'a str,
    phase: &'a str,
    deadline: &'a str,
    /// How a finished game ended, shown instead of its phase and deadline.
    ended: Option<&'a str>,
    board: &'a str,
    /// The board's SVG file, to open full size.
    board_file: &'a str,
    standings: &'a [Standing],
    phases: &'a [PhaseLink],
    chart: &'a str,
    export: Option<&'a str>,
    no_export: &'a str,
}

#[derive(Template)]
#[template(path = "site-phase.html")]
struct PhasePage<'a> {
    title: &'a str,
    board: &'a str,
    /// The board's SVG file, to open full size.
    board_file: &'a str,
    v: &'a PhaseView,
    press: &'a [PressItem],
    prev: Option<&'a PhaseLink>,
    next: Option<&'a PhaseLink>,
    /// Every phase with a page, for the list; `here` is this one's file.
    phases: &'a [PhaseLink],
    here: &'a str,
}

fn render<T: Template>(page: &str, t: &T) -> Result<String, SiteError> {
    t.render().map_err(|source| SiteError::Render {
        page: page.to_string(),
        source,
    })
}

fn write(path: &Path, text: &str) -> Result<(), SiteError> {
    std::fs::write(path, text).map_err(|source| SiteError::Io {
        path: path.display().to_string(),
        source,
    })
}

/// The file in the archive's folder that lists the files the last build wrote, one path (from
/// the folder) a line. Only a file listed there is ever removed: the site's owner may keep
/// files of their own in the folder.
pub const MANIFEST: &str = ".napjudge-site";

/// The files one build wrote, by their paths from the archive's folder.
struct Written<'a> {
    out: &'a Path,
    files: Vec<String>,
}

impl Written<'_> {
    /// Writes the file `path` (from the archive's folder) and lists it.
    fn write(&mut self, path: &str, text: &str) -> Result<(), SiteError> {
        write(&self.out.join(path), text)?;
        self.files.push(path.to_string());
        Ok(())
    }

    /// Removes each file the last build listed and this one did not write (a rollback's void
    /// phases, a game no longer published), and lists this build's files for the next. A build
    /// of some games (`napjudge site GAME`) removes nothing from the other games' folders, and
    /// keeps them listed. With no list (a first build, or one by a napjudge before the list),
    /// nothing is removed.
    fn prune(mut self, only: Option<&[String]>) -> Result<(), SiteError> {
        let manifest = self.out.join(MANIFEST);
        let before = std::fs::read_to_string(&manifest).unwrap_or_default();
        for old in before.lines() {
            // A line that leads out of the folder (the list edited by hand) is not followed.
            let outside = old.starts_with('/') || old.split('/').any(|c| c.is_empty() || c == "..");
            if outside || self.files.iter().any(|f| f == old) {
                continue;
            }
            let folder = old.rsplit_once('/').map_or("", |(d, _)| d);
            if only.is_some_and(|dirs| !folder.is_empty() && !dirs.iter().any(|d| d == folder)) {
                self.files.push(old.to_string());
                continue;
            }
            let path = self.out.join(old);
            match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(SiteError::Io {
                        path: path.display().to_string(),
                        source: e,
                    })
                }
                _ => {}
            }
            if !folder.is_empty() {
                // A game's folder left empty goes too; one holding anything else stays.
                let _ = std::fs::remove_dir(self.out.join(folder));
            }
        }
        let mut list = self.files.join("\n");
        list.push('\n');
        write(&manifest, &list)
    }
}

/// Makes the site in `out` from the store.
pub fn build(view: View, out: &Path, opts: &Options) -> Result<Built, SiteError> {
    let games: Vec<Game> = if opts.games.is_empty() {
        view.games()?
    } else {
        opts.games
            .iter()
            .map(|n| {
                view.game(n)?
                    .ok_or_else(|| SiteError::UnknownGame(n.clone()))
            })
            .collect::<Result<_, _>>()?
    };
    mkdir(out)?;
    let mut files = Written {
        out,
        files: Vec::new(),
    };
    files.write("site.css", CSS)?;
    files.write("site.js", JS)?;
    let mut built = Built::default();
    let mut lines = Vec::new();
    let mut entries = Vec::new();
    let mut taken: Vec<String> = Vec::new();
    for g in games {
        let rows: Vec<PhaseRow> = view
            .phases(g.id)?
            .into_iter()
            .filter(|r| !r.superseded)
            .collect();
        let Some(now) = rows.last() else {
            continue; // not started: nothing to show
        };
        let mut dir = game_dir(&g.name);
        while taken.contains(&dir) {
            dir.push('_');
        }
        taken.push(dir.clone());
        let v = board(&g)?;
        let site = GameSite {
            view,
            game: &g,
            v: &v,
            rows: &rows,
            dir: out.join(&dir),
        };
        built.phases += site.write(opts, &dir, &mut entries, &mut files)?;
        built.games += 1;
        lines.push(GameLine {
            href: format!("{dir}/index.html"),
            name: g.name.clone(),
            variant: g.variant.clone(),
            state: g.state.to_string(),
            phase: v.phase_name(now.position.phase),
        });
    }
    files.write(
        "index.html",
        &render("index.html", &IndexPage { games: &lines })?,
    )?;
    entries.sort_by(|a, b| b.updated.cmp(&a.updated).then(a.id.cmp(&b.id)));
    let judge_feed = feed::Feed {
        id: feed::tag(opts.authority, feed::first_date(&entries), "judge"),
        title: "napjudge: every game".into(),
        updated: entries.iter().map(|e| e.updated).max(),
        self_href: feed::link(opts.url, "", "feed.atom"),
        alternate: feed::link(opts.url, "", "index.html"),
        entries,
    };
    files.write("feed.atom", &feed::render(&judge_feed)?)?;
    files.prune((!opts.games.is_empty()).then_some(taken.as_slice()))?;
    Ok(built)
}

fn mkdir(dir: &Path) -> Result<(), SiteError> {
    std::fs::create_dir_all(dir).map_err(|source| SiteError::Io {
        path: dir.display().to_string(),
        source,
    })
}

/// One game being written.
struct GameSite<'a> {
    view: View<'a>,
    game: &'a Game,
    v: &'a Variant,
    rows: &'a [PhaseRow],
    dir: PathBuf,
}

impl GameSite<'_> {
    fn svg(
        &self,
        board: &picture::Board,
        position: &Position,
        row: &PhaseRow,
    ) -> Result<String, SiteError> {
        let (report, shown) = match &row.report {
            Some(r) => (Some(r), picture::View::After),
            None => (None, picture::View::Before),
        };
        let position = report.map_or(position, |r| &r.next);
        picture::draw_titled(self.v, board, position, report, shown).map_err(|e| {
            SiteError::Picture {
                game: self.game.name.clone(),
                source: e.into(),
            }
        })
    }

    /// Writes the game's folder; returns the number of phase pages, and adds its feed's entries
    /// to `all` (for the judge's feed, with links from the site's root).
    fn write(
        &self,
        opts: &Options,
        dir: &str,
        all: &mut Vec<feed::Entry>,
        files: &mut Written,
    ) -> Result<usize, SiteError> {
        let (g, v) = (self.game, self.v);
        mkdir(&self.dir)?;
        let board = picture::board_for(v).map_err(|source| SiteError::Picture {
            game: g.name.clone(),
            source,
        })?;
        let players: Vec<Player> = self.view.players(g.id)?;
        let press = self.view.press(g.id)?;
        let processed: Vec<(&PhaseRow, PhaseLink)> = self
            .rows
            .iter()
            .filter(|r| r.report.is_some())
            .map(|r| {
                let link = PhaseLink {
                    href: phase_file(v, r.position.phase),
                    name: v.phase_name(r.position.phase),
                };
                (r, link)
            })
            .collect();
        let links: Vec<PhaseLink> = processed.iter().map(|(_, l)| l.clone()).collect();
        let mut entries = Vec::new();
        let first = self
            .rows
            .first()
            .and_then(|r| r.processed_at.or(r.deadline));
        for (i, (row, link)) in processed.iter().enumerate() {
            let Some(report) = &row.report else {
                continue;
            };
            let next_deadline = self
                .rows
                .iter()
                .find(|r| r.seq > row.seq)
                .and_then(|r| r.deadline)
                .map(|d| show_in(d, &g.timezone));
            let pv = PhaseView::new(
                v,
                report,
                &Context {
                    game: &g.name,
                    before: &row.position,
                    late: &row.late,
                    missing: &row.missing,
                    next_deadline,
                    over: !report.next.ledgers.winners.is_empty(),
                    page: None,
                },
            );
            let items: Vec<PressItem> = press
                .iter()
                .filter(|m| m.phase == Some(row.id) && m.to_everyone(&players))
                .map(|m| PressItem {
                    // Grey press: those it went to were not told the sender, nor is the archive.
                    from: if m.grey {
                        "(not named: grey press)".to_string()
                    } else {
                        m.sender.clone()
                    },
                    at: show_in(m.at, &g.timezone),
                    body: m.body.clone(),
                })
                .collect();
            let title = format!("{}: {}", g.name, link.name);
            let key = link.href.trim_end_matches(".html");
            let svg = self.svg(&board, &row.position, row)?;
            let board_file = format!("{key}.svg");
            files.write(&format!("{dir}/{board_file}"), &svg)?;
            let page = PhasePage {
                title: &title,
                board: &svg,
                board_file: &board_file,
                v: &pv,
                press: &items,
                prev: i
                    .checked_sub(1)
                    .and_then(|p| processed.get(p))
                    .map(|p| &p.1),
                next: processed.get(i + 1).map(|p| &p.1),
                phases: &links,
                here: &link.href,
            };
            files.write(&format!("{dir}/{}", link.href), &render(&link.href, &page)?)?;
            let updated = row.processed_at.unwrap_or(DateTime::<Utc>::UNIX_EPOCH);
            let entry = feed::Entry {
                id: feed::tag(opts.authority, first, &format!("{dir}/{key}")),
                title: title.clone(),
                updated,
                href: feed::link(opts.url, dir, &link.href),
                summary: summary(v, &report.next),
            };
            all.push(feed::Entry {
                href: feed::link(opts.url, "", &format!("{dir}/{}", link.href)),
                ..entry.clone()
            });
            entries.push(entry);
        }
        let Some(now) = self.rows.last() else {
            return Ok(0);
        };
        let current = now.report.as_ref().map_or(&now.position, |r| &r.next);
        // A finished game has no deadline: its result stands where the deadline was.
        let ending = match g.state {
            GameState::Finished => self.view.ending(g.id)?,
            _ => None,
        };
        let ended = match (&ending, g.state) {
            (Some(e), _) => Some(format!(
                "Ended {}, in {}.",
                describe_ending(e, &g.timezone),
                e.phase
            )),
            // A game an older napjudge finished recorded no ending: it ended in a victory.
            (None, GameState::Finished) => Some("Ended in a victory.".to_string()),
            _ => None,
        };
        let deadline = match (now.report.is_some(), now.deadline) {
            (false, Some(d)) => show_in(d, &g.timezone),
            _ => "none".to_string(),
        };
        if let (Some(e), Some(result)) = (&ending, &ended) {
            let entry = feed::Entry {
                id: feed::tag(opts.authority, first, &format!("{dir}/end")),
                title: format!("{}: the game has ended", g.name),
                updated: e.at,
                href: feed::link(opts.url, dir, "index.html"),
                summary: format!("{result} {}", summary(v, current)),
            };
            all.push(feed::Entry {
                href: feed::link(opts.url, "", &format!("{dir}/index.html")),
                ..entry.clone()
            });
            entries.push(entry);
        }
        let no_export = match export::export(self.view, &g.name, Scope::Public) {
            Ok(json) => {
                files.write(&format!("{dir}/game.json"), &json)?;
                String::new()
            }
            Err(e @ ExportError::Board { .. }) => e.to_string(),
            Err(e) => return Err(e.into()),
        };
        let svg = self.svg(&board, &now.position, now)?;
        files.write(&format!("{dir}/{BOARD_FILE}"), &svg)?;
        let page = GamePage {
            name: &g.name,
            variant: &g.variant,
            state: &g.state.to_string(),
            phase: &v.phase_name(now.position.phase),
            deadline: &deadline,
            ended: ended.as_deref(),
            board: &svg,
            board_file: BOARD_FILE,
            standings: &standings(v, current),
            phases: &links,
            chart: &chart::centres(v, self.rows, ended.is_some()),
            export: no_export.is_empty().then_some("game.json"),
            no_export: &no_export,
        };
        files.write(&format!("{dir}/index.html"), &render("index.html", &page)?)?;
        entries.sort_by_key(|e| std::cmp::Reverse(e.updated));
        let game_feed = feed::Feed {
            id: feed::tag(opts.authority, first, dir),
            title: format!("napjudge: {}", g.name),
            updated: entries.iter().map(|e| e.updated).max(),
            self_href: feed::link(opts.url, dir, "feed.atom"),
            alternate: feed::link(opts.url, dir, "index.html"),
            entries,
        };
        files.write(&format!("{dir}/feed.atom"), &feed::render(&game_feed)?)?;
        Ok(processed.len())
    }
}

/// The game page's board, as a file.
const BOARD_FILE: &str = "board.svg";

/// A feed entry's text: the centres after the phase (`Centres: France 5, Austria 4`).
fn summary(v: &Variant, position: &Position) -> String {
    let counts: Vec<String> = standings(v, position)
        .iter()
        .map(|s| format!("{} {}", s.power, s.centres))
        .collect();
    format!("Centres: {}", counts.join(", "))
}

/// Each power's centres and units in `position`, most centres first.
fn standings(v: &Variant, position: &Position) -> Vec<Standing> {
    let colours = picture::power_colours(v);
    let mut out: Vec<Standing> = v
        .power_ids()
        .map(|p: PowerId| Standing {
            power: v.power(p).name.clone(),
            colour: colours
                .get(p.index())
                .copied()
                .unwrap_or("#888")
                .to_string(),
            centres: v
                .centres()
                .iter()
                .filter(|c| position.owners.get(c.index()) == Some(&Some(p)))
                .count(),
            units: position
                .forces()
                .filter(|(_, f)| f.power == p)
                .map(|(_, f)| u32::from(f.armies) + u32::from(f.fleets))
                .sum(),
        })
        .filter(|s| s.centres > 0 || s.units > 0)
        .collect();
    out.sort_by(|a, b| b.centres.cmp(&a.centres).then(a.power.cmp(&b.power)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What users write (a game's name) is HTML-escaped on the pages and in the feeds, and never
    /// names a folder outside the site.
    #[test]
    fn names_from_users_are_escaped_and_kept_inside_the_site() {
        let name = "<b>Ann & \"Bob\"</b>";
        let lines = [GameLine {
            href: format!("{}/index.html", game_dir(name)),
            name: name.into(),
            variant: "standard".into(),
            state: "running".into(),
            phase: "Spring 1901 Movement".into(),
        }];
        let html = render("index.html", &IndexPage { games: &lines }).expect("renders");
        assert!(
            html.contains("&#60;b&#62;Ann &#38; &#34;Bob&#34;&#60;/b&#62;"),
            "{html}"
        );
        assert!(!html.contains("<b>"), "{html}");
        let f = feed::Feed {
            id: "tag:example.org,2026-01-01:x".into(),
            title: name.into(),
            updated: None,
            self_href: "feed.atom".into(),
            alternate: "index.html".into(),
            entries: Vec::new(),
        };
        let xml = feed::render(&f).expect("renders");
        assert!(xml.contains("<title>&#60;b&#62;Ann &#38;"), "{xml}");
        assert_eq!(game_dir("../etc/passwd"), "---etc-passwd");
        assert_eq!(game_dir(""), "game");
    }
}
