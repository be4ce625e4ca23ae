//! Issue 12: pictures of the board. The SVG of three positions kept as snapshots (checked by eye
//! when made: labels readable, no unit hidden, arrows from and to the right spaces), their PNGs
//! of the right size, `napjudge map`'s errors, and result mails carrying the picture.

use chrono::{DateTime, Duration, Utc};
use mail_parser::MimeHeaders;
use napjudge_cases::{file, run};
use napjudge_engine::variant::Variant;
use napjudge_judge::outbox::{Retry, Target};
use napjudge_judge::store;
use napjudge_judge::MailKind;
use napjudge_judge::{Judge, NewGame, Periods, Store};
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
    let mut variants = run::Variants::default();
    let v = variants
        .get(&case.variant)
        .expect("variant")
        .with_options(&case.options)
        .expect("options");
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
    // Four move arrows, four failure marks (red).
    assert_eq!(svg.matches("<polygon").count(), 4);
    assert_eq!(
        svg.matches("stroke=\"#d00000\" stroke-width=\"2\"").count(),
        4
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
    assert_eq!(red(&before, "2"), 4);
    insta::assert_snapshot!("crowded_before", before);
    // The dislodged Russian army's box.
    let after = draw(&v, &steps, View::After);
    assert_eq!(red(&after, "1.6"), 1);
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
    let mut files = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from("fixtures")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("a fixtures folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "case") {
                files.push(path);
            }
        }
    }
    let mut variants = run::Variants::default();
    let mut boards = std::collections::HashMap::new();
    let mut drawn = 0;
    for path in files {
        for case in file::read_file(&path).expect("the case file reads") {
            let v = variants
                .get(&case.variant)
                .expect("variant")
                .with_options(&case.options)
                .expect("options");
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
        &NewGame {
            name: "g".into(),
            variant: "standard".into(),
            gm: "gm@example.org".into(),
            timezone: "UTC".into(),
            periods: Periods {
                movement: 86_400,
                retreat: 86_400,
                winter: 86_400,
                grace: 3_600,
                remind: 3_600,
            },
            wait: false,
            options: Vec::new(),
            pictures: true,
        },
        now,
    )
    .expect("create");
    if !pictures {
        j.set_pictures("g", false, now).expect("pictures off");
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
fn results(j: &Judge) -> Vec<store::Mail> {
    j.view()
        .mails(None)
        .expect("outbox")
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
    let down = Target::Smtp(Box::new(
        lettre::SmtpTransport::builder_dangerous("127.0.0.1")
            .port(1)
            .build(),
    ));
    let retry = Retry {
        limit: 5,
        minutes: 5,
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
