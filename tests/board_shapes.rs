//! Issue 12: the board shapes fit their variant (shapes-format.md's three checks): every space has
//! exactly one shape and every shape is a space; every army or fleet edge (not a passage) has
//! touching shapes; every unit, label and coast point lies inside its own shape. Each check is
//! shown to catch a broken file on a tiny board of the tests' own (`tests/picture/tiny.*`).

use napjudge_cases::files::load_variant_file as load_file;
use napjudge_engine::variant::{load_named, Variant};
use napjudge_picture::shapes::{self, Problem};
use std::path::Path;

const TINY: &str = include_str!("picture/tiny.svg");

fn tiny() -> Variant {
    load_file(Path::new("tests/picture/tiny.variant")).expect("the tiny board loads")
}

fn problems(svg: &str) -> Vec<Problem> {
    shapes::parse(svg)
        .expect("the shapes file reads")
        .problems(&tiny())
}

/// The tiny board itself passes all three checks.
#[test]
fn the_tiny_board_fits_its_variant() {
    assert_eq!(problems(TINY), Vec::new());
}

/// Check 1: a space without a shape, a shape without a space, and a second shape for a space.
#[test]
fn check_1_catches_missing_unknown_and_duplicate_shapes() {
    let ccc = TINY
        .lines()
        .find(|l| l.contains("id=\"Ccc\""))
        .expect("Ccc's line");
    let without = TINY.replace(&format!("{ccc}\n"), "");
    assert_eq!(problems(&without), vec![Problem::Missing("Ccc".into())]);
    let unknown = TINY.replace("id=\"Ccc\"", "id=\"Zzz\"");
    assert_eq!(
        problems(&unknown),
        vec![
            Problem::Unknown {
                id: "Zzz".into(),
                line: 7
            },
            Problem::Missing("Ccc".into())
        ]
    );
    let twice = TINY.replace(&format!("{ccc}\n"), &format!("{ccc}\n{ccc}\n"));
    assert_eq!(
        problems(&twice),
        vec![Problem::Duplicate {
            id: "Ccc".into(),
            line: 8
        }]
    );
}

/// Check 2: Bbb and Ccc are army neighbours; Ccc moved 2 units east no longer touches Bbb.
/// Bbb/sc and STH are fleet neighbours; STH moved 3 units down no longer touches Bbb.
#[test]
fn check_2_catches_neighbours_whose_shapes_dont_touch() {
    let apart = TINY.replace(
        "d=\"M 70 20 L 100 20 L 100 50 L 70 50 Z\"",
        "d=\"M 72 20 L 100 20 L 100 50 L 72 50 Z\"",
    );
    assert_eq!(
        problems(&apart),
        vec![Problem::Apart {
            a: "Bbb".into(),
            b: "Ccc".into(),
            by: "army"
        }]
    );
    let sea_apart = TINY.replace(
        "d=\"M 40 50 L 100 50 L 100 60 L 40 60 Z\" data-unit=\"55 55\"",
        "d=\"M 41.5 53 L 100 53 L 100 60 L 41.5 60 Z\" data-unit=\"55 56\"",
    );
    assert_eq!(
        problems(&sea_apart),
        vec![
            Problem::Apart {
                a: "STH".into(),
                b: "Aaa".into(),
                by: "fleet"
            },
            Problem::Apart {
                a: "STH".into(),
                b: "Bbb".into(),
                by: "fleet"
            }
        ]
    );
}

/// Check 3: a unit point, a label point and a coast point outside their shape; a coast of the
/// variant without its point.
#[test]
fn check_3_catches_points_outside_their_shape() {
    let outside = TINY
        .replace(
            "data-unit=\"20 30\" data-label=\"20 50\"",
            "data-unit=\"50 30\" data-label=\"20 70\"",
        )
        .replace("data-coast-sc=\"55 48\"", "data-coast-sc=\"55 52\"");
    assert_eq!(
        problems(&outside),
        vec![
            Problem::Outside {
                id: "Aaa".into(),
                what: "data-unit".into()
            },
            Problem::Outside {
                id: "Aaa".into(),
                what: "data-label".into()
            },
            Problem::Outside {
                id: "Bbb".into(),
                what: "data-coast-sc".into()
            }
        ]
    );
    let no_coast = TINY.replace(" data-coast-sc=\"55 48\"", "");
    assert_eq!(
        problems(&no_coast),
        vec![Problem::Coast {
            id: "Bbb".into(),
            what: "no data-coast-sc for its south coast".into()
        }]
    );
}

/// The built-in shapes of `name` fit its variant.
fn builtin_fits(name: &str) {
    let v = load_named(name).expect("the board loads");
    let board = shapes::builtin(name)
        .expect("the board has shapes")
        .expect("its shapes file reads");
    assert_eq!(board.problems(&v), Vec::new());
}

/// Issue 12: the standard board's shapes fit `variant/standard.variant`.
#[test]
fn the_standard_board_fits_its_variant() {
    builtin_fits("standard");
}

/// Issue 12: the Napoleonic board's shapes fit `variant/napoleonic.variant`.
#[test]
fn the_napoleonic_board_fits_its_variant() {
    builtin_fits("napoleonic");
}
