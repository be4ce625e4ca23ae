//! The order parser's unit tests, on a small board built by hand.

use super::words::NameEnds;
use super::*;
use crate::order::display::PlaceName;
use crate::order::OrderKind;
use crate::variant::{
    Coast, Lookup, Phase, PhaseKind, Power, PowerKind, Province, ProvinceId, Region, Rules, Season,
    SpaceKind,
};
use std::collections::HashMap;

/// A small board built by hand, so the parser's own tests need no loader: seas, coasts, a
/// multi-word and a hyphenated name, and `Bal` shared by the Balkans and the Baltic Sea.
fn board() -> Variant {
    type Space<'s> = (&'s str, SpaceKind, &'s str, &'s [&'s str], &'s [Coast]);
    let spaces: &[Space] = &[
        ("Par", SpaceKind::Land, "Paris", &[], &[]),
        ("Bur", SpaceKind::Land, "Burgundy", &[], &[]),
        ("Pic", SpaceKind::Coast, "Picardy", &[], &[]),
        (
            "Spa",
            SpaceKind::Coast,
            "Spain",
            &[],
            &[Coast::North, Coast::South],
        ),
        (
            "StP",
            SpaceKind::Coast,
            "St Petersburg",
            &["st petersburg", "saint petersburg"],
            &[Coast::North, Coast::South],
        ),
        ("NTH", SpaceKind::Sea, "North Sea", &[], &[]),
        ("MAO", SpaceKind::Sea, "Mid-Atlantic Ocean", &[], &[]),
        ("Bal", SpaceKind::Land, "Balkans", &[], &[]),
        ("BAL", SpaceKind::Sea, "Baltic Sea", &[], &[]),
    ];
    let mut names: HashMap<String, Vec<ProvinceId>> = HashMap::new();
    let mut provinces = Vec::new();
    for (n, &(code, kind, name, aliases, coasts)) in spaces.iter().enumerate() {
        let id = ProvinceId(n as u8);
        let keys = [code.to_lowercase(), name.to_lowercase()];
        for k in keys
            .iter()
            .map(String::as_str)
            .chain(aliases.iter().copied())
        {
            let ids = names.entry(k.to_string()).or_default();
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        provinces.push(Province {
            code: code.into(),
            name: name.into(),
            kind,
            coasts: coasts.to_vec(),
            centre: false,
            home: None,
        });
    }
    let power = |name: &str, kind, aliases: &[&str]| Power {
        name: name.into(),
        kind,
        aliases: aliases.iter().map(|a| a.to_string()).collect(),
    };
    Variant {
        name: "test".into(),
        title: "test".into(),
        season_names: ["Spring".into(), "Autumn".into(), "Winter".into()],
        start: Phase {
            year: 1805,
            season: Season::Spring,
            kind: PhaseKind::Movement,
        },
        victory: 5,
        victory_overrides: vec![],
        rules: Rules::default(),
        powers: vec![
            power("France", PowerKind::Major, &["FRA"]),
            power("Great Britain", PowerKind::Major, &["Britain"]),
            power("Denmark", PowerKind::Minor, &[]),
        ],
        army_adj: vec![Default::default(); provinces.len()],
        fleet_reach: vec![Default::default(); provinces.len()],
        provinces,
        build_sites: vec![],
        passages: vec![],
        start_units: vec![],
        fleet_edges: vec![],
        names,
    }
}

fn id(v: &Variant, code: &str) -> ProvinceId {
    match v.lookup(code) {
        Lookup::One(p) => p,
        other => panic!("{code}: {other:?}"),
    }
}

fn known(v: &Variant, code: &str, coast: Option<Coast>) -> Place {
    Place::Known(Region {
        province: id(v, code),
        coast,
    })
}

fn canon(text: &str) -> String {
    let v = board();
    match parse_line(&v, text) {
        Ok(order) => order.display(&v),
        Err(e) => panic!("{text}: {e}"),
    }
}

fn error(text: &str) -> ParseError {
    match parse_line(&board(), text) {
        Ok(order) => panic!("{text} parsed as {order:?}"),
        Err(e) => e,
    }
}

#[test]
fn name_ends_stop_after_each_word() {
    assert_eq!(NameEnds::new("Par-Bur").as_slice(), vec![3, 7]);
    assert_eq!(NameEnds::new("St. Petersburg/nc").as_slice(), vec![3, 14]);
    assert_eq!(NameEnds::new("North Sea)").as_slice(), vec![5, 9]);
    assert_eq!(NameEnds::new("(Par)").as_slice(), &[] as &[usize]);
}

#[test]
fn longest_name_wins_over_its_first_word() {
    assert_eq!(canon("F Mid-Atlantic Ocean - Spain (nc)"), "F(MAO)-Spa/nc");
    assert_eq!(canon("A Par-Bur"), "A(Par)-Bur");
    assert_eq!(canon("F North Sea H"), "F(NTH) H");
    assert_eq!(canon("F St. Petersburg north coast H"), "F(StP/nc) H");
}

#[test]
fn coasts_in_every_spelling() {
    for text in [
        "F StP/nc H",
        "F StP(nc) H",
        "F(StP/nc) H",
        "F(StP (nc)) H",
        "F St Petersburg (north coast) H",
        "F stp / NC H",
        "F StP nc H",
        "F Saint Petersburg/north H",
    ] {
        assert_eq!(canon(text), "F(StP/nc) H", "{text}");
    }
}

#[test]
fn bare_coast_letters_are_orders_not_coasts() {
    assert_eq!(canon("F Spa S F MAO"), "F(Spa) S F(MAO)");
}

#[test]
fn shared_name_parses_as_ambiguous_and_its_spaces_print_as_codes() {
    let v = board();
    let order = parse_line(&v, "A Par D bal").unwrap_or_else(|e| panic!("{e}"));
    let OrderKind::Disembark { to, .. } = &order.kind else {
        panic!("{order:?}");
    };
    assert_eq!(
        to,
        &Place::Ambiguous {
            name: "bal".into(),
            options: vec![id(&v, "Balkans"), id(&v, "Baltic Sea")],
            coast: None
        }
    );
    assert_eq!(known(&v, "Balkans", None).name(&v), "Bal");
}

#[test]
fn unknown_space_suggests_the_closest_name() {
    let e = error("A Burgandy H");
    assert_eq!(e.column, 3);
    assert_eq!(e.found, "'Burgandy'");
    assert_eq!(
        e.to_string(),
        "line 1, column 3: unknown space 'Burgandy' (did you mean Burgundy?)"
    );
}

#[test]
fn unknown_order_word_names_the_unit() {
    assert_eq!(
        error("A(Par) attacks Bur").to_string(),
        "line 1, column 8: expected an order after 'A(Par)' (H, -, S, C, E, D, B, X), found 'attacks Bur'"
    );
}

#[test]
fn missing_destination_asks_where() {
    assert_eq!(
        error("A(Par) -").to_string(),
        "line 1, column 9: nothing after '-': where should A(Par) move?"
    );
}

#[test]
fn unknown_power_suggests() {
    assert_eq!(
        error("LOAN 6 TO Frnace").to_string(),
        "line 1, column 11: unknown power 'Frnace' (did you mean France?)"
    );
}

#[test]
fn multi_word_power_names() {
    assert_eq!(
        canon("bid 3 denmark for great britain"),
        "BID 3 Denmark FOR Great Britain"
    );
    assert_eq!(canon("RENEW LOAN TO Britain"), "RENEW Great Britain");
}

/// Keywords match ASCII letters in any case, and a character whose lower case is an ASCII letter
/// (the Kelvin sign, lower case `k`) is not that letter: `BAN\u{212A}` is no BANK, and reading it
/// must not cut the line inside the character (nom's case-insensitive tag did, and panicked).
#[test]
fn keywords_match_ascii_case_only() {
    assert_eq!(canon("bAnK 6"), "BANK 6");
    assert_eq!(canon("A Par MoVe Bur"), "A(Par)-Bur");
    assert_eq!(canon("A Par \u{2192} Bur"), "A(Par)-Bur");
    let e = parse_line(&board(), "BAN\u{212A} 6").expect_err("not a keyword");
    assert_eq!(e.column, 1, "{e}");
}
