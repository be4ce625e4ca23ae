//! Issue 23, the web archive: `napjudge site` over a store holding the replayed Napoleonic game
//! and a real webDiplomacy game, served from a loopback HTTP server this test starts, opened in
//! real headless Chromium (`--dump-dom`, `--screenshot`), the Atom feeds parsed as XML
//! (roxmltree). Chromium is required: `tests/run` installs it.

use crate::common;
use napjudge_judge::Store;
use napjudge_replay::{self as replay, folder};
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Napoleonic game and the smallest real game, replayed into one SQLite file.
const GAMES: [&str; 2] = ["napoleonic-1800", "wd439643"];

/// Serves `dir` over HTTP on loopback: GET of a file gives it, anything else 404. Returns the
/// base URL; the server's thread lives as long as the test.
fn serve(dir: PathBuf) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let addr = listener.local_addr().expect("its address");
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let dir = dir.clone();
            std::thread::spawn(move || answer(stream, &dir));
        }
    });
    format!("http://{addr}")
}

fn answer(mut stream: TcpStream, dir: &Path) {
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    let mut request = String::new();
    if reader.read_line(&mut request).is_err() {
        return;
    }
    // The headers, unread.
    let mut line = String::new();
    while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
        line.clear();
    }
    let path = request.split_whitespace().nth(1).unwrap_or("/");
    let path = path.split(['?', '#']).next().unwrap_or("/");
    let file = dir.join(path.trim_start_matches('/'));
    let inside = !path.contains("..");
    let (status, body, kind) = match std::fs::read(&file) {
        Ok(bytes) if inside && file.is_file() => {
            let kind = match file.extension().and_then(|e| e.to_str()) {
                Some("html") => "text/html; charset=utf-8",
                Some("css") => "text/css",
                Some("atom") => "application/atom+xml",
                Some("json") => "application/json",
                Some("png") => "image/png",
                Some("svg") => "image/svg+xml",
                Some("js") => "text/javascript",
                _ => "application/octet-stream",
            };
            ("200 OK", bytes, kind)
        }
        _ => ("404 Not Found", b"not found".to_vec(), "text/plain"),
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&body);
}

/// The status line of a GET of `url` (`http://127.0.0.1:PORT/path`) from the test's own client.
fn status(url: &str) -> String {
    let rest = url.strip_prefix("http://").expect("an http URL");
    let (host, path) = rest.split_once('/').expect("a path");
    let mut s = TcpStream::connect(host).expect("the server answers");
    write!(
        s,
        "GET /{path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .expect("sent");
    let mut reply = String::new();
    let _ = s.read_to_string(&mut reply);
    reply.lines().next().unwrap_or_default().to_string()
}

/// Chromium, with the flags it needs on a closed network, and a fresh profile.
fn chromium(args: &[&str], profile: &Path) -> std::process::Output {
    let bin = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .unwrap_or_else(|| {
            panic!(
                "Chromium is missing: run `apt-get install -y chromium` (tests/run does it \
                 as root) to run the web archive's tests"
            )
        });
    let _ = std::fs::remove_dir_all(profile);
    Command::new(bin)
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .output()
        .expect("chromium runs")
}

/// Every `href="..."` and `src="..."` in `html`.
fn links(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in ["href=\"", "src=\""] {
        let mut rest = html;
        while let Some(i) = rest.find(attr) {
            rest = &rest[i + attr.len()..];
            if let Some(end) = rest.find('"') {
                out.push(rest[..end].to_string());
                rest = &rest[end..];
            }
        }
    }
    out
}

/// `link` from the page at `page` (a path under the site, `nap1800/index.html`): the path it
/// names under the site, or None when it leaves the site (then the test fails on it).
fn resolve(page: &str, link: &str) -> Option<String> {
    if link.contains("://") || link.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = page.split('/').collect();
    parts.pop();
    for piece in link.split('#').next().unwrap_or_default().split('/') {
        match piece {
            ".." => {
                parts.pop()?;
            }
            "." | "" => {}
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// Issue 23's tests with real parts, in one run (the replays are the slow part).
/// The entries of an Atom feed, checked as XML: a `feed` with its id, title and updated, and
/// entries with unique `tag:` ids, each with its updated time and a link.
fn atom_entries(file: &Path) -> usize {
    const ATOM: &str = "http://www.w3.org/2005/Atom";
    let text = std::fs::read_to_string(file).expect("the feed");
    let doc = roxmltree::Document::parse(&text)
        .unwrap_or_else(|e| panic!("{}: not XML ({e})", file.display()));
    let root = doc.root_element();
    assert!(root.has_tag_name((ATOM, "feed")), "{}", file.display());
    fn child<'a, 'i>(n: roxmltree::Node<'a, 'i>, name: &str) -> Option<roxmltree::Node<'a, 'i>> {
        n.children().find(|c| c.has_tag_name((ATOM, name)))
    }
    for k in ["id", "title", "updated"] {
        assert!(
            child(root, k).is_some(),
            "{}: the feed's {k}",
            file.display()
        );
    }
    let entries: Vec<_> = root
        .children()
        .filter(|c| c.has_tag_name((ATOM, "entry")))
        .collect();
    let mut ids = std::collections::BTreeSet::new();
    for e in &entries {
        let id = child(*e, "id").and_then(|i| i.text()).unwrap_or_default();
        assert!(id.starts_with("tag:"), "{}: id {id}", file.display());
        assert!(
            ids.insert(id.to_string()),
            "{}: id {id} twice",
            file.display()
        );
        assert!(
            child(*e, "updated").is_some(),
            "{}: {id} updated",
            file.display()
        );
        let href = child(*e, "link").and_then(|l| l.attribute("href"));
        assert!(
            href.is_some_and(|h| !h.is_empty()),
            "{}: {id} link",
            file.display()
        );
    }
    entries.len()
}

#[test]
fn the_web_archive_is_served_drawn_linked_and_fits_a_phone() {
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("site");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).expect("a folder");
    let db = work.join("games.db");
    let mut names = Vec::new();
    for g in GAMES {
        let f = folder::read(&root().join("fixtures/games").join(g)).expect("a game folder");
        let r =
            replay::replay_game(&f, &db, &work.join("outbox").join(g), &|_| {}).expect("replays");
        assert!(r.differences.is_empty(), "{:?}", r.differences);
        names.push(r.name);
    }
    let out = work.join("www");
    let run = Command::new(env!("CARGO_BIN_EXE_napjudge"))
        .args(["--db"])
        .arg(&db)
        .args(["site", "--out"])
        .arg(&out)
        .current_dir(&work)
        .env_remove("NAPJUDGE_DB")
        .env_remove("NAPJUDGE_CONFIG")
        .output()
        .expect("napjudge runs");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // Bad inputs get an answer that says what to fix, and write nothing.
    let napjudge = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_napjudge"))
            .arg("--db")
            .arg(&db)
            .args(args)
            .current_dir(&work)
            .env_remove("NAPJUDGE_DB")
            .env_remove("NAPJUDGE_CONFIG")
            .output()
            .expect("napjudge runs")
    };
    let nope = napjudge(&["site", "--out", "nowhere", "nosuch"]);
    assert!(!nope.status.success());
    assert!(String::from_utf8_lossy(&nope.stderr).contains("no game 'nosuch'"));
    assert!(
        !work.join("nowhere").exists(),
        "nothing written for an unknown game"
    );
    // Issue 34: a finished game showed its last deadline, and no result. The GM ends the real
    // game in a draw; `game list` showed its deadline before and shows none after.
    let listed = |game: &str| {
        let out = napjudge(&["game", "list"]);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.lines()
            .find(|l| l.starts_with(&format!("{game}\t")))
            .unwrap_or_else(|| panic!("{game} in the list:\n{text}"))
            .to_string()
    };
    let deadline = |line: &str| line.rsplit('\t').next().unwrap_or_default().to_string();
    assert!(
        !deadline(&listed("wd439643")).is_empty(),
        "a running game lists its deadline"
    );
    let end = napjudge(&[
        "game",
        "end",
        "wd439643",
        "--draw",
        "England,France",
        "--reason",
        "agreed by the players",
    ]);
    assert!(
        end.status.success(),
        "{}",
        String::from_utf8_lossy(&end.stderr)
    );
    let line = listed("wd439643");
    assert!(line.contains("finished"), "{line}");
    assert_eq!(
        deadline(&line),
        "",
        "no deadline for a finished game: {line}"
    );
    let run = napjudge(&["site", "--out", out.to_str().expect("a UTF-8 path")]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let nap = napjudge(&["game", "export", "nap1800", "--mila", "-"]);
    assert!(!nap.status.success());
    assert!(String::from_utf8_lossy(&nap.stderr).contains("standard Diplomacy only"));
    assert!(
        !out.join("nap1800/game.json").exists(),
        "no record as data for Napoleonic"
    );
    let base = serve(out.clone());
    let profile = work.join("profile");

    // Every page written, and every href/src in it, is served.
    let pages = crate::tree::files(&out, Some("html"));
    assert!(pages.len() > 20, "the index, 2 game pages and the phases");
    let mut checked = BTreeSet::new();
    for page in &pages {
        let rel = page
            .strip_prefix(&out)
            .expect("inside")
            .to_string_lossy()
            .replace('\\', "/");
        let html = std::fs::read_to_string(page).expect("a page");
        // The one script is the arrow keys' file: nothing inline, nothing from elsewhere.
        assert_eq!(
            html.matches("<script").count(),
            html.matches("<script src=\"../site.js\"></script>").count(),
            "{rel}: no script but site.js"
        );
        for link in links(&html) {
            let target = resolve(&rel, &link)
                .unwrap_or_else(|| panic!("{rel}: link {link} is not relative inside the site"));
            if checked.insert(target.clone()) {
                let got = status(&format!("{base}/{target}"));
                assert!(got.contains("200"), "{rel}: {link} -> {target}: {got}");
            }
        }
    }
    assert!(checked.contains("site.css") && checked.contains("nap1800/feed.atom"));
    assert!(
        checked.contains("site.js"),
        "the phase pages load the arrow keys' script"
    );
    assert!(
        checked.contains("nap1800/board.svg")
            && checked.contains("nap1800/1802-autumn-movement.svg"),
        "each board links its SVG, to open full size"
    );

    // The phase page as Chromium builds it: the board's SVG with each of the board's spaces.
    let phase = "nap1800/1802-autumn-movement.html";
    let dom = chromium(&["--dump-dom", &format!("{base}/{phase}")], &profile);
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert!(dom.contains("<svg"), "the board is inline SVG:\n{dom}");
    let v = napjudge_engine::variant::load_named("napoleonic").expect("the board");
    let missing: Vec<&str> = v
        .provinces
        .iter()
        .map(|p| p.code.as_str())
        .filter(|c| !dom.contains(&format!("id=\"name-{c}\"")))
        .collect();
    assert!(missing.is_empty(), "spaces not drawn: {missing:?}");
    assert!(dom.contains("A(Pic)-Bel"), "the orders are on the page");
    // Issue 34: a unit's order and outcome on hover or tap, as the unit's <title>.
    assert!(
        dom.contains("<title>France: A(Pic)-Bel: "),
        "the unit in Bel carries its order:\n{dom}"
    );
    assert!(
        dom.contains("class=\"phases\"") && dom.contains("aria-current=\"page\""),
        "the list of phases, this one marked"
    );

    // Issue 34: the finished game's page shows its result where the deadline was, and no
    // deadline; both feeds have an entry for the ending.
    let dom = chromium(
        &["--dump-dom", &format!("{base}/wd439643/index.html")],
        &profile,
    );
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert!(
        dom.contains("in a draw between England and France (agreed by the players)"),
        "the result:\n{dom}"
    );
    assert!(
        !dom.contains("Deadline"),
        "no deadline for a finished game:\n{dom}"
    );
    for feed in ["wd439643/feed.atom", "feed.atom"] {
        let xml = std::fs::read_to_string(out.join(feed)).expect("the feed");
        assert!(
            xml.contains("wd439643: the game has ended")
                && xml.contains("in a draw between England and France"),
            "{feed}: an entry for the ending"
        );
    }

    // Fits a phone (390 px): a probe page of the test's own loads each page in a 390 px wide
    // frame and compares the document's scroll width with its width; the board (issue 34:
    // at most 900 px before) is as wide as the page's column, on the phone and at 1280 px.
    let probe_pages: Vec<String> = pages
        .iter()
        .map(|p| {
            p.strip_prefix(&out)
                .expect("inside")
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    let frames: String = probe_pages
        .iter()
        .flat_map(|p| {
            let wide = p.ends_with("nap1800/index.html") || p.ends_with(phase);
            let mut frames = vec![format!(
                "<iframe src=\"{p}\" width=\"390\" height=\"600\"></iframe>\n"
            )];
            if wide {
                frames.push(format!(
                    "<iframe src=\"{p}\" width=\"1280\" height=\"600\"></iframe>\n"
                ));
            }
            frames
        })
        .collect();
    let probe = format!(
        "<!DOCTYPE html><html><body>{frames}<pre id=\"result\">pending</pre><script>\n\
         window.addEventListener('load', () => {{\n\
           const out = [];\n\
           for (const f of document.querySelectorAll('iframe')) {{\n\
             const d = f.contentDocument.documentElement;\n\
             const main = f.contentDocument.querySelector('main');\n\
             const board = f.contentDocument.querySelector('figure.board svg');\n\
             const inner = main.clientWidth - parseFloat(getComputedStyle(main).paddingLeft) - parseFloat(getComputedStyle(main).paddingRight);\n\
             const b = board ? Math.round(board.getBoundingClientRect().width) + ' ' + Math.round(inner) : '- -';\n\
             out.push(f.getAttribute('src') + ' ' + d.scrollWidth + ' ' + d.clientWidth + ' ' + b);\n\
           }}\n\
           document.getElementById('result').textContent = 'widths\\n' + out.join('\\n');\n\
         }});\n</script></body></html>"
    );
    std::fs::write(out.join("probe.html"), probe).expect("the probe");
    let dom = chromium(
        &[
            "--virtual-time-budget=20000",
            "--run-all-compositor-stages-before-draw",
            "--dump-dom",
            &format!("{base}/probe.html"),
        ],
        &profile,
    );
    let dom = String::from_utf8_lossy(&dom.stdout);
    let widths = dom
        .split("widths\n")
        .nth(1)
        .and_then(|r| r.split("</pre>").next())
        .unwrap_or_else(|| panic!("the probe ran:\n{dom}"));
    let (mut measured, mut boards) = (0, 0);
    for line in widths.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let [page, scroll, width, board, column] = f.as_slice() else {
            panic!("a probe line: {line}");
        };
        let (scroll, width): (u32, u32) = (
            scroll.parse().expect("a width"),
            width.parse().expect("a width"),
        );
        assert!(
            (300..=390).contains(&width) || (1200..=1280).contains(&width),
            "{page}: a 390 or 1280 px frame, got {width}"
        );
        assert!(
            scroll <= width,
            "{page}: {scroll} px wide in {width} px: sideways scrolling"
        );
        if let (Ok(board), Ok(column)) = (board.parse::<i64>(), column.parse::<i64>()) {
            assert!(
                (board - column).abs() <= 1,
                "{page} at {width} px: the board is {board} px in a {column} px column"
            );
            if width > 1000 {
                assert!(board > 1100, "{page}: the board grows past 900 px: {board}");
            }
            boards += 1;
        }
        measured += 1;
    }
    assert_eq!(
        measured,
        probe_pages.len() + 2,
        "every page measured, two of them wide too"
    );
    assert!(
        boards > probe_pages.len() / 2,
        "the boards measured: {boards}"
    );
    std::fs::remove_file(out.join("probe.html")).expect("the probe removed");

    // Issue 34: the arrow keys step through the phases. A probe frame opens the phase, presses
    // → (the next phase opens), ← (back), ← (the previous one), reading where it lands.
    let html = std::fs::read_to_string(out.join(phase)).expect("the phase page");
    let rel = |r: &str| {
        let at = html
            .find(&format!("\" rel=\"{r}\""))
            .unwrap_or_else(|| panic!("a {r} link"));
        let start = html[..at].rfind("href=\"").expect("its href") + 6;
        format!("/nap1800/{}", &html[start..at])
    };
    let (prev, next) = (rel("prev"), rel("next"));
    let keys = format!(
        "<!DOCTYPE html><html><body><iframe id=\"f\" src=\"{phase}\" width=\"800\" \
         height=\"600\"></iframe><pre id=\"result\">pending</pre><script>\n\
         const f = document.getElementById('f');\n\
         const seen = [];\n\
         const keys = ['ArrowRight', 'ArrowLeft', 'ArrowLeft'];\n\
         f.addEventListener('load', () => {{\n\
           seen.push(f.contentWindow.location.pathname);\n\
           const key = keys.shift();\n\
           if (key) {{\n\
             setTimeout(() => f.contentDocument.dispatchEvent(\n\
               new KeyboardEvent('keydown', {{ key, bubbles: true }})), 10);\n\
           }} else {{\n\
             document.getElementById('result').textContent = 'keys\\n' + seen.join('\\n');\n\
           }}\n\
         }});\n</script></body></html>"
    );
    std::fs::write(out.join("keys.html"), keys).expect("the probe");
    let dom = chromium(
        &[
            "--virtual-time-budget=20000",
            "--dump-dom",
            &format!("{base}/keys.html"),
        ],
        &profile,
    );
    let dom = String::from_utf8_lossy(&dom.stdout);
    let seen: Vec<&str> = dom
        .split("keys\n")
        .nth(1)
        .and_then(|r| r.split("</pre>").next())
        .unwrap_or_else(|| panic!("the keys probe ran:\n{dom}"))
        .lines()
        .collect();
    let here = format!("/{phase}");
    assert_eq!(
        seen,
        [here.as_str(), next.as_str(), here.as_str(), prev.as_str()],
        "→, ←, ← from {phase}"
    );
    std::fs::remove_file(out.join("keys.html")).expect("the probe removed");

    // Screenshots of a phase page and the finished game's page, at a desktop's and a phone's
    // width: target/site-shots/{phase,finished}-{1280,390}.png.
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("target/")
        .join("site-shots");
    std::fs::create_dir_all(&shots).expect("target/site-shots");
    for (width, (name, page)) in [1280, 390].into_iter().flat_map(|w| {
        [
            (w, ("phase", phase)),
            (w, ("finished", "wd439643/index.html")),
        ]
    }) {
        let file = shots.join(format!("{name}-{width}.png"));
        let _ = std::fs::remove_file(&file);
        chromium(
            &[
                &format!("--screenshot={}", file.display()),
                &format!("--window-size={width},2400"),
                &format!("{base}/{page}"),
            ],
            &profile,
        );
        let png = std::fs::read(&file).expect("a screenshot");
        assert_eq!(&png[1..4], b"PNG");
        let w = u32::from_be_bytes([png[16], png[17], png[18], png[19]]);
        assert_eq!(w, width, "{}", file.display());
    }

    // The feeds, parsed as XML: Atom's namespace, one entry per processed phase
    // (a page each) and one for the finished game's ending, unique ids.
    for (feed, dir, ended) in [
        ("nap1800/feed.atom", Some("nap1800"), 0),
        ("wd439643/feed.atom", Some("wd439643"), 1),
        ("feed.atom", None, 1),
    ] {
        let want = ended
            + match dir {
                Some(d) => crate::tree::files(&out.join(d), Some("html")).len() - 1,
                None => pages.len() - 1 - names.len(),
            };
        let n = atom_entries(&out.join(feed));
        assert_eq!(n, want, "{feed}: an entry per processed phase");
    }

    // Nothing private: no address, no private press; the public press is there.
    let store = Store::open(&db).expect("the store");
    let view = store.view();
    let game = view.game("wd439643").expect("reads").expect("the game");
    let players = view.players(game.id).expect("the players");
    let mut published = String::new();
    for f in crate::tree::files(&out, Some("html"))
        .iter()
        .chain(&crate::tree::files(&out, Some("json")))
        .chain(&crate::tree::files(&out, Some("atom")))
    {
        published.push_str(&std::fs::read_to_string(f).expect("a file"));
    }
    for p in &players {
        assert!(
            !published.contains(p.address.as_str()),
            "{} published",
            p.address
        );
    }
    // A message is found as written (game.json) or as the pages escape it.
    let found = |b: &str| {
        // askama's escapes: numeric character references.
        let escaped = b
            .replace('&', "&#38;")
            .replace('<', "&#60;")
            .replace('>', "&#62;")
            .replace('"', "&#34;")
            .replace('\'', "&#39;");
        published.contains(b) || published.contains(&escaped)
    };
    let press = view.press(game.id).expect("the press");
    let (public, private): (Vec<_>, Vec<_>) = press.iter().partition(|m| m.to_everyone(&players));
    let text = |m: &&napjudge_judge::PressRow| m.body.trim().to_string();
    let public: Vec<String> = public.iter().map(text).collect();
    let private: Vec<String> = private.iter().map(text).collect();
    assert!(
        !private.is_empty() && !public.is_empty(),
        "press of both kinds to look for"
    );
    for b in private.iter().filter(|b| !public.contains(b)) {
        assert!(!found(b), "private press published: {b}");
    }
    assert!(
        public.iter().any(|b| found(b)),
        "the public press is published"
    );
}

/// Runs the binary with `args` over `db` and `config` at `now`; returns its stdout (it must exit 0).
fn napjudge(db: &Path, config: &Path, now: &str, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_napjudge"))
        .arg("--db")
        .arg(db)
        .arg("--config")
        .arg(config)
        .args(["--now", now])
        .args(args)
        .output()
        .expect("napjudge runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Issue 23: "`serve` (or `tick`) refreshes the game's pages after each processed phase" and
/// "with `[site] url` set, every results mail links to its phase's page". With `[site] out`
/// set, a tick that finds the games changed rewrites the archive (and one that finds nothing
/// changed leaves it), and a rollback's void phases leave the web with it.
///
/// Issue 31, finding 4: only what the archive wrote is pruned (the files listed in
/// `.napjudge-site`): a page of the site's owner, in the archive's folder or a game's, survives
/// every build, by tick and by `napjudge site --out` (the game's one used to be deleted).
#[test]
fn tick_keeps_the_archive_up_to_date_and_a_rollback_prunes_its_pages() {
    let dir = std::env::temp_dir().join(format!("napjudge-site-tick-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch");
    let (db, config, www) = (
        dir.join("napjudge.db"),
        dir.join("napjudge.toml"),
        dir.join("www"),
    );
    std::fs::write(
        &config,
        format!(
            "[judge]\naddress = \"judge@example.org\"\n\
             [site]\nout = \"{}\"\nurl = \"https://example.org/games/\"\n",
            www.display()
        ),
    )
    .expect("config");
    let t0 = napjudge_judge::parse_time("2026-12-01T09:00:00Z").expect("time");
    let mut j = napjudge_judge::Judge::new(Store::open(&db).expect("db"));
    common::start_five_players(&mut j, t0, "live", "UTC", common::day_periods(), |p| {
        format!("{}@example.org", p.to_lowercase())
    });
    drop(j);
    let pages = || {
        let mut v: Vec<String> = std::fs::read_dir(www.join("live"))
            .map(|r| {
                r.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| n.ends_with(".html"))
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    };
    // The first tick writes the archive: the game, no phase played yet.
    let out = napjudge(&db, &config, "2026-12-02T09:30:00Z", &["tick"]);
    assert!(out.contains("site: wrote"), "{out}");
    assert_eq!(pages(), ["index.html"]);
    let mine = [www.join("mine.html"), www.join("live").join("mine.html")];
    for f in &mine {
        std::fs::write(f, "<p>the site's owner's own page</p>").expect("a page of one's own");
    }
    let pages = || {
        let mut v = pages();
        v.retain(|p| p != "mine.html");
        v
    };
    // Winter 1800's deadline and grace have passed: processed, and the archive written again.
    let out = napjudge(&db, &config, "2026-12-02T10:01:00Z", &["tick"]);
    assert!(out.contains("site: wrote"), "{out}");
    assert_eq!(pages(), ["1800-winter-bids.html", "index.html"]);
    // With `[site] url`, each results mail links to its phase's page (and the page is there).
    let store = Store::open(&db).expect("db");
    let results: Vec<String> = crate::golden::queued(store.view())
        .into_iter()
        .filter(|m| m.kind == napjudge_judge::MailKind::Results)
        .map(|m| m.body)
        .collect();
    assert_eq!(results.len(), 6, "five players and the GM");
    for body in &results {
        assert!(
            body.contains(
                "This phase on the web: https://example.org/games/live/1800-winter-bids.html"
            ),
            "{body}"
        );
    }
    drop(store);
    // Nothing changed: the archive is left as it is.
    let out = napjudge(&db, &config, "2026-12-02T10:02:00Z", &["tick"]);
    assert!(!out.contains("site:"), "{out}");
    // Spring 1801 processed by a later tick: its page joins.
    napjudge(&db, &config, "2026-12-03T10:30:00Z", &["tick"]);
    let out = napjudge(&db, &config, "2026-12-03T11:02:00Z", &["tick"]);
    assert!(out.contains("site: wrote"), "{out}");
    assert_eq!(
        pages(),
        [
            "1800-winter-bids.html",
            "1801-spring-movement.html",
            "index.html"
        ]
    );
    // The GM rolls Spring 1801 back: its results are void, and so is its page.
    napjudge(
        &db,
        &config,
        "2026-12-03T12:00:00Z",
        &["game", "rollback", "live", "Spring 1801 Movement"],
    );
    let out = napjudge(&db, &config, "2026-12-03T12:01:00Z", &["tick"]);
    assert!(out.contains("site: wrote"), "{out}");
    assert_eq!(pages(), ["1800-winter-bids.html", "index.html"]);
    let listed = std::fs::read_to_string(www.join(".napjudge-site")).expect("the list");
    assert!(
        listed.lines().any(|l| l == "live/1800-winter-bids.html"),
        "{listed}"
    );
    assert!(!listed.contains("mine.html"), "{listed}");
    let www_arg = www.display().to_string();
    napjudge(
        &db,
        &config,
        "2026-12-03T12:02:00Z",
        &["site", "--out", &www_arg],
    );
    assert_eq!(pages(), ["1800-winter-bids.html", "index.html"]);
    for f in &mine {
        assert!(f.is_file(), "{} was deleted", f.display());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
