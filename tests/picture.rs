//! Issue 12: pictures of the board. The SVG of three positions kept as snapshots (checked by eye
//! when made: labels readable, no unit hidden, arrows from and to the right spaces), their PNGs
//! of the right size, `napjudge map`'s errors, and result mails carrying the picture.

use chrono::{DateTime, Duration, Utc};
use mail_parser::MimeHeaders;
use napjudge_cases::{file, run};
use napjudge_engine::variant::{SpaceKind, Variant};
use napjudge_judge::{Judge, Mail, MailKind, Retry, Store, Target};
use napjudge_picture::{self as picture, png, Format, View};
use std::path::Path;
use std::process::Command;

/// The case `id` of `path`: its variant, the position before its first phase, and that phase's
/// report.
fn case(path: &str, id: &str) -> (Variant, Vec<run::PlayedStep>) {
    let cases = file::read_file(Path::new(path)).expect("the case file reads");
    let case = cases
        .iter()
        .find(|c| c.id == id)
        .expect("the case is in the file");
    let v = run::Variants::default()
        .for_case(case)
        .expect("the case's board");
    let steps = run::play(case, &v).expect("the case plays");
    (v, steps)
}

/// The PNG's width and height, read by decoding it.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    let pixmap = resvg::tiny_skia::Pixmap::decode_png(bytes).expect("a PNG");
    (pixmap.width(), pixmap.height())
}

/// The SVG's frame (`viewBox="0 0 W H"` on its first line) in pixels of its PNG.
fn expected_size(svg: &str) -> (u32, u32) {
    let head = svg.lines().next().expect("a first line");
    let view = head
        .split("viewBox=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .expect("a viewBox");
    let n: Vec<f32> = view
        .split_whitespace()
        .map(|x| x.parse().expect("a number"))
        .collect();
    (
        (n[2] * png::SCALE).ceil() as u32,
        (n[3] * png::SCALE).ceil() as u32,
    )
}

/// The SVG and its PNG, which must be the size the SVG's frame gives.
fn draw(v: &Variant, steps: &[run::PlayedStep], view: View) -> String {
    let board = picture::board_for(v).expect("the board has shapes");
    let (pos, report) = match view {
        View::Before => (&steps[0].before, &steps[0].report),
        View::After => (&steps[0].report.next, &steps[0].report),
    };
    let svg = picture::draw(v, &board, pos, Some(report), view).expect("draws");
    let png = picture::picture(v, &board, pos, Some(report), view, Format::Png).expect("PNG");
    assert_eq!(png_size(&png), expected_size(&svg));
    svg
}

/// Issue 12, DATC 6.C.3: the standard board with Turkey's disrupted three-army circle: four
/// arrows (Ank-Con, Con-Smy, Smy-Ank, Bul-Con), each marked failed.
#[test]
fn datc_6_c_3_on_the_standard_board() {
    let (v, steps) = case("fixtures/datc/6.C.case", "6.C.3");
    let svg = draw(&v, &steps, View::Before);
    // Four move arrows, four failure marks (red), and the legend's two (failed, build refused).
    assert_eq!(svg.matches("<polygon").count(), 4);
    assert_eq!(
        svg.matches("stroke=\"#d00000\" stroke-width=\"2\"").count(),
        4 + 2
    );
    insta::assert_snapshot!("datc_6_c_3", svg);
}

/// Issue 12: the Napoleonic board's starting position (Winter 1800 Bids): 5 majors' and 9
/// minors' units, no orders.
#[test]
fn the_napoleonic_starting_position() {
    let v = napjudge_engine::variant::load_named("napoleonic").expect("the board loads");
    let board = picture::board_for(&v).expect("the board has shapes");
    let start = napjudge_engine::position::Position::initial(&v);
    let svg = picture::draw(&v, &board, &start, None, View::Before).expect("draws");
    let png = picture::picture(&v, &board, &start, None, View::Before, Format::Png).expect("PNG");
    assert_eq!(png_size(&png), expected_size(&svg));
    // One box per starting force, each with its counts.
    assert_eq!(svg.matches("rx=\"2.5\"").count(), start.forces().count());
    insta::assert_snapshot!("napoleonic_start", svg);
}

/// Issue 12: a crowded Autumn (`tests/picture/crowded.case`, worked out by hand and checked
/// here): before its orders (stacks, the blockade's bar, the denial across Den-Swe, the chain's
/// faint second leg, the failed moves crossed) and after its first phase (the dislodged Russian
/// army beside War in a red dashed box); after the season the held blockade's badge on Brest.
#[test]
fn a_crowded_napoleonic_autumn() {
    let mut variants = run::Variants::default();
    let cases = file::read_file(Path::new("tests/picture/crowded.case")).expect("reads");
    let checked = run::check(&cases[0], &mut variants);
    assert!(checked.failures.is_empty(), "{:?}", checked.failures);
    let (v, steps) = case("tests/picture/crowded.case", "picture-crowded");
    let before = draw(&v, &steps, View::Before);
    // Failed: A(Den)-Swe (denied), A(Sax)-Sil and A(Boh)-Sil (bounced); and the denied passage.
    let red = |svg: &str, width: &str| {
        svg.matches(&format!("stroke=\"#d00000\" stroke-width=\"{width}\""))
            .count()
    };
    // And the legend's two red crosses (failed, build refused).
    assert_eq!(red(&before, "2"), 4 + 2);
    insta::assert_snapshot!("crowded_before", before);
    // The dislodged Russian army's box.
    let after = draw(&v, &steps, View::After);
    // And the legend's dislodged box.
    assert_eq!(red(&after, "1.6"), 1 + 1);
    insta::assert_snapshot!("crowded_after_first_phase", after);
    let last = steps.last().expect("the retreat and second phase");
    let board = picture::board_for(&v).expect("shapes");
    let end = picture::draw(
        &v,
        &board,
        &last.report.next,
        Some(&last.report),
        View::After,
    )
    .expect("draws");
    assert!(end.contains(">B</text>"), "the held blockade's badge");
}

/// Issue 12 ("draws any case's position before and after its orders"): every fixture case's
/// first phase is drawn before and after, each force and dislodged force as one box.
#[test]
fn every_fixture_case_draws_before_and_after() {
    let files = crate::tree::files(Path::new("fixtures"), Some("case"));
    let mut variants = run::Variants::default();
    let mut boards = std::collections::HashMap::new();
    let mut drawn = 0;
    for path in files {
        for case in file::read_file(&path).expect("the case file reads") {
            let v = variants.for_case(&case).expect("the case's board");
            let board = boards
                .entry(v.name.clone())
                .or_insert_with(|| picture::board_for(&v).expect("shapes"));
            let Ok(steps) = run::play(&case, &v) else {
                continue;
            };
            let Some(step) = steps.first() else {
                continue;
            };
            for (pos, view) in [
                (&step.before, View::Before),
                (&step.report.next, View::After),
            ] {
                let svg = picture::draw(&v, board, pos, Some(&step.report), view)
                    .unwrap_or_else(|e| panic!("{} {}: {e}", case.file, case.id));
                let boxes = pos.forces().count() + pos.dislodged.len();
                assert_eq!(svg.matches("rx=\"2.5\"").count(), boxes, "{}", case.id);
                drawn += 1;
            }
        }
    }
    assert!(drawn > 900, "{drawn} pictures");
}

/// `napjudge map`: the two forms' errors name what to fix.
#[test]
fn map_errors_say_what_to_fix() {
    let out = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_napjudge"))
            .args(args)
            .output()
            .expect("runs");
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let e = out(&["map", "--case", "fixtures/datc/6.C.case", "-o", "x.gif"]);
    assert!(
        e.contains("x.gif: write the picture to a .png or a .svg file"),
        "{e}"
    );
    let e = out(&[
        "map",
        "--case",
        "fixtures/datc/6.C.case",
        "--case-id",
        "6.Z.9",
        "-o",
        "x.png",
    ]);
    assert!(
        e.contains("no case '6.Z.9'; its cases are 6.C.1, 6.C.2"),
        "{e}"
    );
    let dir = tempdir("map-errors");
    let db = dir.join("j.db");
    let db = db.to_str().expect("utf-8 path");
    let e = out(&["--db", db, "map", "nosuch", "-o", "x.png"]);
    assert!(e.contains("no such database"), "{e}");
    let made = Command::new(env!("CARGO_BIN_EXE_napjudge"))
        .args(["--db", db, "game", "create", "g", "--gm", "gm@example.org"])
        .output()
        .expect("runs");
    assert!(made.status.success(), "{made:?}");
    let e = out(&["--db", db, "map", "nosuch", "-o", "x.png"]);
    assert!(e.contains("no game called 'nosuch'"), "{e}");
}

/// `napjudge map --case` with a board of one's own (`--shapes`): the tiny board's SVG before and
/// after Red's supported move; the PNG is written too.
#[test]
fn map_draws_a_case_before_and_after() {
    let dir = tempdir("map-case");
    let run = |after: bool, out: &Path| {
        let mut args = vec![
            "map",
            "--case",
            "tests/picture/tiny.case",
            "--shapes",
            "tests/picture/tiny.svg",
        ];
        if after {
            args.push("--after");
        }
        let o = Command::new(env!("CARGO_BIN_EXE_napjudge"))
            .args(&args)
            .arg("-o")
            .arg(out)
            .output()
            .expect("runs");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read(out).expect("written")
    };
    let before = String::from_utf8(run(false, &dir.join("b.svg"))).expect("SVG text");
    let after = String::from_utf8(run(true, &dir.join("a.svg"))).expect("SVG text");
    // Before: Red's army token in Aaa (unit point 20 30); after: in Bbb (55 35).
    assert!(before.contains("Spring 1901 Movement: orders"), "{before}");
    assert!(after.contains("After Spring 1901 Movement"), "{after}");
    let red_army_at = |svg: &str, x: &str| {
        svg.lines().any(|l| {
            l.contains("fill=\"#00897b\"")
                && l.contains(&format!("<text x=\"{x}\""))
                && l.ends_with(">A</text>")
        })
    };
    assert!(red_army_at(&before, "20.0") && !red_army_at(&before, "55.0"));
    assert!(red_army_at(&after, "55.0") && !red_army_at(&after, "20.0"));
    let png = run(true, &dir.join("a.png"));
    assert_eq!(png_size(&png), expected_size(&after));
}

fn tempdir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("napjudge-picture-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s)
        .expect("time")
        .with_timezone(&Utc)
}

/// A standard game with every power assigned, started and its first phase processed with no
/// orders (everything holds); `pictures` off when asked.
fn played(dir: &Path, pictures: bool) -> Judge {
    let store = Store::open(&dir.join("j.db")).expect("store");
    let now = at("2026-11-01T10:00:00Z");
    let mut j = Judge::new(store);
    j.create(
        &crate::common::new_game("g", "standard", crate::common::day_periods()),
        now,
    )
    .expect("create");
    if !pictures {
        j.set("g", &napjudge_judge::Setting::Pictures(false), now)
            .expect("pictures off");
    }
    for p in [
        "Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey",
    ] {
        let address = format!("{}@example.org", p.to_lowercase());
        j.assign("g", p, &address, Some("pw"), now).expect("assign");
    }
    j.start("g", now).expect("start");
    j.process("g", false, now).expect("process");
    j
}

/// The result mails of the game's first phase.
fn results(j: &Judge) -> Vec<Mail> {
    crate::golden::queued(j.view())
        .into_iter()
        .filter(|m| m.kind == MailKind::Results)
        .collect()
}

/// Issue 12: every result mail carries the picture of the new position as image/png after its
/// text, which is the text a mail without the picture has; a mail retried after a failed try
/// carries the same picture and Message-ID; with the GM's switch off there is no attachment.
#[test]
fn result_mails_carry_the_picture() {
    let dir = tempdir("mails");
    let mut j = played(&dir, true);
    let mails = results(&j);
    assert_eq!(mails.len(), 8, "seven players and the GM");
    let phase = mails[0].picture.expect("the mail names its picture");
    assert!(mails.iter().all(|m| m.picture == Some(phase)));
    let png = j
        .view()
        .picture(phase)
        .expect("store")
        .expect("the picture is stored");
    assert_eq!(png_size(&png).0, (1000.0 * png::SCALE) as u32);

    // A first try fails (no server listens on port 1): the mails wait for a retry.
    let down = Target::smtp(
        &napjudge_judge::Smtp::from_url("smtp://127.0.0.1:1", None).expect("a server"),
    )
    .expect("a target");
    let retry = Retry {
        days: 7,
        minutes: 5,
        limit: Some(5),
    };
    let now = at("2026-11-01T10:00:00Z");
    let sent = j
        .send_outbox(&down, "judge@example.org", retry, now)
        .expect("send");
    assert_eq!(sent.sent, 0);
    let tried = results(&j);
    // The retry, later, into a folder.
    let out = dir.join("out");
    let later = now + Duration::hours(1);
    let sent = j
        .send_outbox(&Target::Dir(out.clone()), "judge@example.org", retry, later)
        .expect("send");
    assert!(sent.sent >= 8, "{sent:?}");
    for m in &tried {
        let raw = std::fs::read(out.join(format!("{:06}.eml", m.id))).expect("the .eml");
        let msg = mail_parser::MessageParser::default()
            .parse(&raw)
            .expect("an RFC 5322 message");
        assert_eq!(
            msg.message_id(),
            m.message_id
                .as_deref()
                .map(|id| id.trim_matches(['<', '>']))
        );
        assert!(msg
            .content_type()
            .is_some_and(|c| c.c_type == "multipart" && c.subtype() == Some("mixed")));
        assert_eq!(
            msg.body_text(0).map(|t| t.replace("\r\n", "\n")).as_deref(),
            Some(m.body.as_str())
        );
        let attachment = msg.attachment(0).expect("one attachment");
        let ct = attachment.content_type().expect("its type");
        assert_eq!((ct.c_type.as_ref(), ct.subtype()), ("image", Some("png")));
        assert_eq!(attachment.contents(), png.as_slice());
    }

    // Off: the result mails are plain text.
    let dir = tempdir("mails-off");
    let j = played(&dir, false);
    assert!(results(&j).iter().all(|m| m.picture.is_none()));
}

/// The drawing of the case `id` of `path`, before or after its first phase.
fn drawing_of(path: &str, id: &str, view: View) -> (Variant, picture::Drawing) {
    let (v, steps) = case(path, id);
    let board = picture::board_for(&v).expect("the board has shapes");
    let (pos, report) = match view {
        View::Before => (&steps[0].before, &steps[0].report),
        View::After => (&steps[0].report.next, &steps[0].report),
    };
    let d = picture::drawing(&v, &board, pos, Some(report), view).expect("draws");
    (v, d)
}

/// The space whose code is `code`.
fn space(v: &Variant, code: &str) -> napjudge_engine::variant::ProvinceId {
    v.province_ids()
        .find(|&p| v.province(p).code == code)
        .unwrap_or_else(|| panic!("no space {code}"))
}

/// A variant's starting position drawn alone.
fn start_drawing(name: &str) -> (Variant, picture::Drawing) {
    let v = napjudge_engine::variant::load_named(name).expect("the board loads");
    let board = picture::board_for(&v).expect("the board has shapes");
    let start = napjudge_engine::position::Position::initial(&v);
    let d = picture::drawing(&v, &board, &start, None, View::Before).expect("draws");
    (v, d)
}

/// Each name's ink as resvg lays it out with the shipped font (`id="name-CODE"`), by code.
fn name_ink(svg: &str) -> Vec<(String, resvg::usvg::Rect)> {
    use resvg::usvg;
    let mut db = usvg::fontdb::Database::new();
    db.load_font_data(
        std::fs::read("templates/fonts/DejaVuSans-Bold.ttf").expect("the shipped font"),
    );
    let options = usvg::Options {
        font_family: "DejaVu Sans".into(),
        fontdb: std::sync::Arc::new(db),
        ..usvg::Options::default()
    };
    let tree = usvg::Tree::from_str(svg, &options).expect("the SVG reads");
    tree.root()
        .children()
        .iter()
        .filter_map(|node| match node {
            usvg::Node::Text(t) => t
                .id()
                .strip_prefix("name-")
                .map(|code| (code.to_string(), t.flattened().bounding_box())),
            _ => None,
        })
        .collect()
}

/// Issue 23: no unit box and no mark covers a space's name (its letters and its centre's dot),
/// on the starting positions of both boards, the crowded Autumn before and after its first phase
/// and at the end of its season, and a Winter with builds, a refused build and the minors'
/// builds by default (R7.2, R7.9). The boxes are the drawing's own (`picture::drawing`); the
/// names' boxes are checked to hold the letters as resvg sets them with the shipped font.
#[test]
fn no_unit_box_or_mark_covers_a_name() {
    let mut drawings = vec![start_drawing("napoleonic"), start_drawing("standard")];
    for view in [View::Before, View::After] {
        drawings.push(drawing_of(
            "tests/picture/crowded.case",
            "picture-crowded",
            view,
        ));
        drawings.push(drawing_of(
            "fixtures/winter/R7.2.case",
            "R7.2-england-extra-unit",
            view,
        ));
    }
    let (v, steps) = case("tests/picture/crowded.case", "picture-crowded");
    let last = &steps.last().expect("the season's last step").report;
    let board = picture::board_for(&v).expect("shapes");
    drawings.push((
        v.clone(),
        picture::drawing(&v, &board, &last.next, Some(last), View::After).expect("draws"),
    ));
    for (i, (v, d)) in drawings.iter().enumerate() {
        let layout = &d.layout;
        assert_eq!(layout.names.len(), v.provinces.len());
        for (item, r) in &layout.items {
            for (p, name) in &layout.names {
                assert!(
                    !r.overlaps(name),
                    "drawing {i}: {item:?} at {r:?} covers {}'s name at {name:?}",
                    v.province(*p).code
                );
            }
        }
        // The names' boxes are where the letters really are (half a unit for rounding).
        let ink = name_ink(&d.svg);
        assert_eq!(ink.len(), v.provinces.len(), "drawing {i}: one text a name");
        for (code, b) in ink {
            let p = space(v, &code);
            let name = layout.names[p.index()].1;
            assert!(
                b.left() >= name.left - 0.5
                    && b.right() <= name.right + 0.5
                    && b.top() >= name.top - 0.5
                    && b.bottom() <= name.bottom + 0.5,
                "drawing {i}: {code}'s letters {b:?} outside its box {name:?}"
            );
        }
    }
}

/// Issue 23, RULINGS R7.2, R7.4, R7.9: builds, refused builds, removals and the builds and
/// removals made by default each have their own mark, and the legend shows each.
#[test]
fn builds_removals_and_default_builds_are_marked_apart() {
    use picture::Item;
    let count = |d: &picture::Drawing, f: &dyn Fn(&Item) -> bool| {
        d.layout.items.iter().filter(|(i, _)| f(i)).count()
    };
    // England builds A(Lon) and F(Lpl); A(Sco) fails (no SP left); the nine minors without
    // units build by default (R7.9), Spain and Turkey twice.
    let (v, d) = drawing_of(
        "fixtures/winter/R7.2.case",
        "R7.2-england-extra-unit",
        View::After,
    );
    let at = |code: &str| space(&v, code);
    assert_eq!(count(&d, &|i| matches!(i, Item::Built(_))), 2);
    assert!(d
        .layout
        .items
        .iter()
        .any(|(i, _)| *i == Item::Built(at("Lon"))));
    assert_eq!(
        count(&d, &|i| matches!(i, Item::BuildRefused(_))),
        1,
        "A(Sco)"
    );
    assert!(d
        .layout
        .items
        .iter()
        .any(|(i, _)| *i == Item::BuildRefused(at("Sco"))));
    assert_eq!(count(&d, &|i| matches!(i, Item::AutoBuilt(_))), 11);
    // Before the Winter the builds are outlines of the units to come.
    let (_, before) = drawing_of(
        "fixtures/winter/R7.2.case",
        "R7.2-england-extra-unit",
        View::Before,
    );
    assert!(count(&before, &|i| matches!(i, Item::Ghost(_))) >= 2 + 11);
    // France removes A(Pic) as ordered; civil disorder removes the rest (R7.4).
    let (v, d) = drawing_of(
        "fixtures/winter/R7.4.case",
        "R7.4-ordered-removal",
        View::After,
    );
    assert!(d
        .layout
        .items
        .iter()
        .any(|(i, _)| *i == Item::Removed(space(&v, "Pic"))));
    assert!(count(&d, &|i| matches!(i, Item::AutoRemoved(_))) >= 1);
    for key in [
        ">failed<",
        ">void<",
        ">dislodged<",
        ">built<",
        ">built by default<",
        ">removed<",
        ">removed by default<",
        ">build refused<",
        ">blockaded<",
        ">controlled minor: striped with its controller<",
    ] {
        assert!(d.svg.contains(key), "the legend's {key}");
    }
}

/// Issue 23, R7.6: a controlled minor (Sweden, England's in the crowded Autumn) is striped with
/// its controller's colour on the map and in the legend alike; an uncontrolled one is plain.
#[test]
fn a_controlled_minor_is_striped_in_map_and_legend() {
    let (v, d) = drawing_of(
        "tests/picture/crowded.case",
        "picture-crowded",
        View::Before,
    );
    let colours = picture::power_colours(&v);
    let power = |name: &str| {
        v.power_ids()
            .find(|&p| v.power(p).name == name)
            .expect("a power")
    };
    let (sweden, england) = (power("Sweden"), power("England"));
    let pattern = |id: String| {
        d.svg
            .lines()
            .find(|l| l.contains(&format!("<pattern id=\"{id}\"")))
            .unwrap_or_else(|| panic!("pattern {id}"))
            .to_string()
    };
    let swatch = pattern(format!("swatch-{}", sweden.index()));
    assert!(swatch.contains(colours[sweden.index()]) && swatch.contains(colours[england.index()]));
    assert!(pattern(format!("land-{}", sweden.index())).contains("fill=\"#"));
    // Sweden's centre is filled with the land stripes, its swatch with the swatch stripes.
    assert!(d
        .svg
        .contains(&format!("fill=\"url(#land-{})\"", sweden.index())));
    let swatch_line = d
        .svg
        .lines()
        .find(|l| l.contains("id=\"swatch-Sweden\""))
        .expect("Sweden's swatch");
    assert!(swatch_line.contains(&format!("fill=\"url(#swatch-{})\"", sweden.index())));
    let denmark = d
        .svg
        .lines()
        .find(|l| l.contains("id=\"swatch-Denmark\""))
        .expect("Denmark's swatch");
    assert!(denmark.contains(&format!("fill=\"{}\"", colours[power("Denmark").index()])));
}

/// CIEDE2000 (Sharma, Wu and Dalal, "The CIEDE2000 colour-difference formula: implementation
/// notes, supplementary test data, and mathematical observations", Color Res. Appl. 30, 2005,
/// equations 1 to 22) between two CIELAB colours.
fn ciede2000(lab1: [f64; 3], lab2: [f64; 3]) -> f64 {
    let [l1, a1, b1] = lab1;
    let [l2, a2, b2] = lab2;
    let c_mean = (a1.hypot(b1) + a2.hypot(b2)) / 2.0;
    let g = 0.5 * (1.0 - (c_mean.powi(7) / (c_mean.powi(7) + 25f64.powi(7))).sqrt());
    let (a1p, a2p) = ((1.0 + g) * a1, (1.0 + g) * a2);
    let (c1p, c2p) = (a1p.hypot(b1), a2p.hypot(b2));
    let hue = |b: f64, a: f64| {
        if a == 0.0 && b == 0.0 {
            0.0
        } else {
            b.atan2(a).to_degrees().rem_euclid(360.0)
        }
    };
    let (h1p, h2p) = (hue(b1, a1p), hue(b2, a2p));
    let dl = l2 - l1;
    let dc = c2p - c1p;
    let dh = if c1p * c2p == 0.0 {
        0.0
    } else if (h2p - h1p).abs() <= 180.0 {
        h2p - h1p
    } else if h2p - h1p > 180.0 {
        h2p - h1p - 360.0
    } else {
        h2p - h1p + 360.0
    };
    let dh_big = 2.0 * (c1p * c2p).sqrt() * (dh / 2.0).to_radians().sin();
    let l_mean = (l1 + l2) / 2.0;
    let cp_mean = (c1p + c2p) / 2.0;
    let hp_mean = if c1p * c2p == 0.0 {
        h1p + h2p
    } else if (h1p - h2p).abs() <= 180.0 {
        (h1p + h2p) / 2.0
    } else if h1p + h2p < 360.0 {
        (h1p + h2p + 360.0) / 2.0
    } else {
        (h1p + h2p - 360.0) / 2.0
    };
    let cos = |deg: f64| deg.to_radians().cos();
    let t = 1.0 - 0.17 * cos(hp_mean - 30.0)
        + 0.24 * cos(2.0 * hp_mean)
        + 0.32 * cos(3.0 * hp_mean + 6.0)
        - 0.20 * cos(4.0 * hp_mean - 63.0);
    let d_theta = 30.0 * (-((hp_mean - 275.0) / 25.0).powi(2)).exp();
    let rc = 2.0 * (cp_mean.powi(7) / (cp_mean.powi(7) + 25f64.powi(7))).sqrt();
    let sl = 1.0 + 0.015 * (l_mean - 50.0).powi(2) / (20.0 + (l_mean - 50.0).powi(2)).sqrt();
    let sc = 1.0 + 0.045 * cp_mean;
    let sh = 1.0 + 0.015 * cp_mean * t;
    let rt = -(2.0 * d_theta).to_radians().sin() * rc;
    ((dl / sl).powi(2) + (dc / sc).powi(2) + (dh_big / sh).powi(2) + rt * (dc / sc) * (dh_big / sh))
        .sqrt()
}

/// A `#rrggbb` colour's linear RGB (IEC 61966-2-1).
fn linear_rgb(hex: &str) -> [f64; 3] {
    let c = |i: usize| {
        let v = f64::from(u8::from_str_radix(&hex[i..i + 2], 16).expect("hex")) / 255.0;
        if v <= 0.04045 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    [c(1), c(3), c(5)]
}

/// Linear sRGB to CIELAB (D65 white).
fn lab([r, g, b]: [f64; 3]) -> [f64; 3] {
    let x = 0.4124564 * r + 0.3575761 * g + 0.1804375 * b;
    let y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b;
    let z = 0.0193339 * r + 0.1191920 * g + 0.9503041 * b;
    let f = |t: f64| {
        if t > 216.0 / 24389.0 {
            t.cbrt()
        } else {
            (24389.0 / 27.0 * t + 16.0) / 116.0
        }
    };
    let (fx, fy, fz) = (f(x / 0.95047), f(y), f(z / 1.08883));
    [116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)]
}

/// The colour as a dichromat sees it: Machado, Oliveira and Fernandes, "A physiologically-based
/// model for simulation of color vision deficiency", IEEE TVCG 15(6), 2009, severity 1.0, on
/// linear RGB.
fn simulate(m: &[[f64; 3]; 3], [r, g, b]: [f64; 3]) -> [f64; 3] {
    m.map(|row| (row[0] * r + row[1] * g + row[2] * b).clamp(0.0, 1.0))
}

const PROTANOPIA: [[f64; 3]; 3] = [
    [0.152286, 1.052583, -0.204868],
    [0.114503, 0.786281, 0.099216],
    [-0.003882, -0.048116, 1.051998],
];
const DEUTERANOPIA: [[f64; 3]; 3] = [
    [0.367322, 0.860646, -0.227968],
    [0.280085, 0.672501, 0.047413],
    [-0.011820, 0.042940, 0.968881],
];
const TRITANOPIA: [[f64; 3]; 3] = [
    [1.255528, -0.076749, -0.178779],
    [-0.078411, 0.930809, 0.147602],
    [0.004733, 0.691367, 0.303900],
];

/// The CIEDE2000 implementation above gives Sharma et al.'s published differences (their table 1,
/// pairs 1, 7, 11, 13, 17, 19 and 20: blue, neutral, across the hue wrap, large differences).
#[test]
fn ciede2000_matches_sharmas_test_data() {
    for (lab1, lab2, expected) in [
        ([50.0, 2.6772, -79.7751], [50.0, 0.0, -82.7485], 2.0425),
        ([50.0, 0.0, 0.0], [50.0, -1.0, 2.0], 2.3669),
        ([50.0, 2.49, -0.001], [50.0, -2.49, 0.0009], 7.1792),
        ([50.0, 2.49, -0.001], [50.0, -2.49, 0.0011], 7.2195),
        ([50.0, 2.5, 0.0], [73.0, 25.0, -18.0], 27.1492),
        ([50.0, 2.5, 0.0], [56.0, -27.0, -3.0], 31.9030),
        ([50.0, 2.5, 0.0], [58.0, 24.0, 15.0], 19.4535),
    ] {
        let got = ciede2000(lab1, lab2);
        assert!((got - expected).abs() < 1e-4, "{lab1:?} {lab2:?}: {got}");
        assert!((ciede2000(lab2, lab1) - expected).abs() < 1e-4);
    }
}

/// Issue 23: on each board every two powers' colours differ by at least 23 in CIEDE2000 (the
/// old Austria and Spain, "hard to tell apart", were 20.2), and by at least 11.5 as a protanope
/// or a deuteranope sees them, 9.5 for a tritanope (Machado et al. 2009): no two powers look
/// alike to the about 1 in 12 men with a red-green deficiency.
#[test]
fn the_powers_colours_are_told_apart() {
    for name in ["napoleonic", "standard"] {
        let v = napjudge_engine::variant::load_named(name).expect("the board loads");
        let colours = picture::power_colours(&v);
        for (vision, matrix, least) in [
            ("normal", None, 23.0),
            ("protanopia", Some(&PROTANOPIA), 11.5),
            ("deuteranopia", Some(&DEUTERANOPIA), 11.5),
            ("tritanopia", Some(&TRITANOPIA), 9.5),
        ] {
            let seen = |hex: &str| {
                let rgb = linear_rgb(hex);
                lab(matrix.map_or(rgb, |m| simulate(m, rgb)))
            };
            for (i, a) in v.power_ids().enumerate() {
                for b in v.power_ids().skip(i + 1) {
                    let d = ciede2000(seen(colours[a.index()]), seen(colours[b.index()]));
                    assert!(
                        d >= least,
                        "{name}, {vision}: {} {} and {} {} differ by {d:.1} < {least}",
                        v.power(a).name,
                        colours[a.index()],
                        v.power(b).name,
                        colours[b.index()]
                    );
                }
            }
        }
    }
}

/// Issue 23: the PNG of the Napoleonic start and of the crowded Autumn is under 150 kB (a results
/// mail goes to every player), and every power's colour is in it exactly (an indexed PNG keeps
/// the fills, only edge pixels take their nearest colour).
#[test]
fn the_png_is_small_and_keeps_the_colours() {
    let v = napjudge_engine::variant::load_named("napoleonic").expect("the board loads");
    let board = picture::board_for(&v).expect("shapes");
    let start = napjudge_engine::position::Position::initial(&v);
    let (cv, steps) = case("tests/picture/crowded.case", "picture-crowded");
    let crowded = &steps[0].report;
    for (v, pos, report) in [(&v, &start, None), (&cv, &crowded.next, Some(crowded))] {
        let png = picture::picture(v, &board, pos, report, View::After, Format::Png).expect("PNG");
        assert!(png.len() < 150_000, "{} bytes", png.len());
        let pixmap = resvg::tiny_skia::Pixmap::decode_png(&png).expect("a PNG");
        let seen: std::collections::HashSet<(u8, u8, u8)> = pixmap
            .pixels()
            .iter()
            .map(|p| (p.red(), p.green(), p.blue()))
            .collect();
        for (p, hex) in v.power_ids().zip(picture::power_colours(v)) {
            let c = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex");
            assert!(
                seen.contains(&(c(1), c(3), c(5))),
                "{}'s {hex} is not in the PNG",
                v.power(p).name
            );
        }
    }
}

/// WCAG 2.1's contrast ratio of two `#rrggbb` colours (relative luminance from linear sRGB).
fn wcag_contrast(a: &str, b: &str) -> f64 {
    let l = |hex: &str| {
        let [r, g, b] = linear_rgb(hex);
        0.2126 * r + 0.7152 * g + 0.0722 * b
    };
    let (la, lb) = (l(a), l(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// The value of attribute `name` of the first tag in `tag`.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    tag.split(&format!(" {name}=\"")).nth(1)?.split('"').next()
}

/// Issue 34: labels read on their fills, at WCAG 2.1's 4.5:1 for normal text. A unit's counts
/// on its power's colour (white on Austria's pink was 3.8:1, on Bavaria's teal 2.8:1), and every
/// land space's name on every land fill (names on Prussia's lightened near-black were 3.4:1,
/// England's 4.1:1), on the starting positions of both boards, every power on the board.
#[test]
fn labels_read_on_their_fills() {
    for name in ["napoleonic", "standard"] {
        let (v, d) = start_drawing(name);
        let sea = d
            .svg
            .lines()
            .filter(|l| l.starts_with("<rect width="))
            .filter_map(|l| attr(l, "fill"))
            .nth(1)
            .expect("the sea's rectangle");
        let mut boxes = 0;
        for l in d.svg.lines().filter(|l| l.starts_with("<rect x=")) {
            let Some((rect, text)) = l.split_once("<text") else {
                continue;
            };
            let (fill, ink) = (attr(rect, "fill"), attr(text, "fill"));
            let (Some(fill), Some(ink)) = (fill, ink) else {
                continue;
            };
            let c = wcag_contrast(fill, ink);
            assert!(c >= 4.5, "{name}: a unit's {ink} on {fill}: {c:.2}:1");
            boxes += 1;
        }
        assert!(
            boxes >= v.powers.len(),
            "{name}: the units' boxes ({boxes})"
        );
        let land_fills: std::collections::BTreeSet<&str> = d
            .svg
            .lines()
            .filter(|l| l.starts_with("<path d="))
            .filter_map(|l| attr(l, "fill"))
            .filter(|f| f.starts_with('#') && *f != sea)
            .collect();
        assert!(
            land_fills.len() > v.powers.len() / 2,
            "{name}: {land_fills:?}"
        );
        let colours = picture::power_colours(&v);
        for p in v.provinces.iter().filter(|p| p.kind != SpaceKind::Sea) {
            let ink = d
                .svg
                .lines()
                .find(|l| l.starts_with(&format!("<text id=\"name-{}\"", p.code)))
                .and_then(|l| attr(l, "fill"))
                .expect("the name's colour");
            for fill in &land_fills {
                let c = wcag_contrast(fill, ink);
                let whose = v
                    .power_ids()
                    .find(|q| colours[q.index()] == *fill)
                    .map_or(String::new(), |q| v.power(q).name.clone());
                assert!(
                    c >= 4.5,
                    "{name}: {} in {ink} on {fill} {whose}: {c:.2}:1",
                    p.code
                );
            }
        }
    }
}

/// Issue 34: on the web a unit's order and outcome show on hover or tap (an SVG `<title>` per
/// unit), and the mails' picture is drawn without, so the PNG stays as it was.
#[test]
fn the_webs_board_titles_each_unit_with_its_order() {
    let (v, steps) = case("tests/picture/crowded.case", "picture-crowded");
    let board = picture::board_for(&v).expect("shapes");
    let report = &steps[0].report;
    let plain = picture::draw(&v, &board, &report.next, Some(report), View::After).expect("SVG");
    let titled =
        picture::draw_titled(&v, &board, &report.next, Some(report), View::After).expect("SVG");
    assert!(
        !plain.contains("<title>"),
        "the mails' picture has no titles"
    );
    let titles: Vec<&str> = titled
        .split("<title>")
        .skip(1)
        .filter_map(|t| t.split("</title>").next())
        .collect();
    assert!(
        titles.len() >= 8,
        "a title on most of the units: {titles:?}"
    );
    for t in &titles {
        let power = t.split(':').next().unwrap_or_default();
        assert!(
            v.powers.iter().any(|p| p.name == power),
            "a title names its power: {t}"
        );
    }
    let png = |svg: &str| png::render(svg).expect("PNG");
    assert!(png(&plain) == png(&titled), "titles change no pixel");
}

/// Issue 32 (a held blockade, R5.3): `2F(MAO) B Bre` holds in the crowded Autumn, whose movement
/// phase is followed by a retreat. The blockade's event comes only when the season ends, with the
/// retreat, yet the movement phase's picture (the one its results mail carries) shows the B on
/// Brest, as the retreat's does.
#[test]
fn the_movement_picture_shows_a_blockade_that_held() {
    use picture::Item;
    let (v, steps) = case("tests/picture/crowded.case", "picture-crowded");
    assert!(steps.len() > 1, "a retreat follows the movement phase");
    let board = picture::board_for(&v).expect("shapes");
    let bre = space(&v, "Bre");
    for (i, step) in steps.iter().enumerate() {
        let d = picture::drawing(
            &v,
            &board,
            &step.report.next,
            Some(&step.report),
            View::After,
        )
        .expect("draws");
        // One B for Brest, one in the legend.
        assert_eq!(
            d.svg.matches(">B</text>").count(),
            2,
            "phase {i}: Brest's B"
        );
        assert!(
            d.layout
                .items
                .iter()
                .any(|(item, _)| *item == Item::Blockade(bre)),
            "phase {i}: the B is placed on Brest"
        );
    }
}

/// How far (in board units) a unit box keeps from another space's name: a box beside a
/// neighbour's name reads as the neighbour's.
const CLEAR_OF_OTHER_NAMES: f32 = 2.0;

/// Issue 32: in western Germany (AN, Hes, Pal, Wur, Bav, Han with each of its coasts, Kol) and on
/// Sardinia, crowded as in `tests/picture/west.case`, each space's units are drawn at their own
/// point of the shapes (no name there for the drawing to move them off), their box lies inside
/// the space (its corners and the middles of its edges: none astride a border; a fleet on a coast
/// its centre), and it keeps `CLEAR_OF_OTHER_NAMES` from every other space's name.
#[test]
fn western_germany_and_sardinia_hold_their_own_units_clear_of_the_names() {
    use picture::Item;
    let mut checked = 0;
    for (id, spaces) in [
        (
            "picture-west",
            &["AN", "Hes", "Pal", "Wur", "Bav", "Han", "Kol", "Sar"][..],
        ),
        ("picture-west-han-ec", &["Han"][..]),
        ("picture-west-han-wc", &["Han"][..]),
    ] {
        let (v, steps) = case("tests/picture/west.case", id);
        let board = picture::board_for(&v).expect("shapes");
        let shapes = board.for_variant(&v).expect("the shapes fit");
        let pos = &steps[0].before;
        let d = picture::drawing(&v, &board, pos, None, View::Before).expect("draws");
        for code in spaces {
            let p = space(&v, code);
            let shape = shapes[p.index()];
            let force = pos.units[p.index()].as_ref().expect("a force there");
            let anchor = force.coast.map_or(shape.unit, |c| shape.coast_point(c));
            let r = d
                .layout
                .items
                .iter()
                .find_map(|&(item, r)| (item == Item::Unit(p)).then_some(r))
                .expect("the force's box");
            let c = r.centre();
            assert!(
                (c.x - anchor.x).abs() < 0.01 && (c.y - anchor.y).abs() < 0.01,
                "{id}: {code}'s units moved from their point {anchor:?} to {c:?} (a name is there)"
            );
            // A fleet on a coast is drawn at the coast: its centre in the space, its box may
            // reach over the water it faces.
            let reach: &[f32] = if force.coast.is_some() {
                &[0.5]
            } else {
                &[0.0, 0.5, 1.0]
            };
            for &fx in reach {
                for &fy in reach {
                    let at = picture::shapes::Point {
                        x: r.left + fx * (r.right - r.left),
                        y: r.top + fy * (r.bottom - r.top),
                    };
                    assert!(
                        shape.contains(at),
                        "{id}: {code}'s box {r:?} leaves the space at {at:?}"
                    );
                }
            }
            let wide = picture::Rect {
                left: r.left - CLEAR_OF_OTHER_NAMES,
                top: r.top - CLEAR_OF_OTHER_NAMES,
                right: r.right + CLEAR_OF_OTHER_NAMES,
                bottom: r.bottom + CLEAR_OF_OTHER_NAMES,
            };
            for (q, name) in &d.layout.names {
                assert!(
                    *q == p || !wide.overlaps(name),
                    "{id}: {code}'s box {r:?} is beside {}'s name {name:?}",
                    v.province(*q).code
                );
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 10);
}
