//! Loading variant files: the standard board, name look-ups, and each validation error.

use napjudge_cases::files::load_variant_file as load_file;
use napjudge_engine::variant::{
    load, load_named, Coast, LoadError, Lookup, PowerKind, ProvinceId, Region, SpaceKind, UnitType,
    Variant,
};

fn standard() -> Variant {
    match load_named("standard") {
        Ok(v) => v,
        Err(e) => panic!("the standard board does not load: {e}"),
    }
}

fn id(v: &Variant, name: &str) -> ProvinceId {
    match v.lookup(name) {
        Lookup::One(p) => p,
        other => panic!("'{name}' looks up as {other:?}"),
    }
}

fn region(v: &Variant, name: &str) -> Region {
    match name.split_once('/') {
        Some((p, c)) => Region {
            province: id(v, p),
            coast: Coast::parse(c),
        },
        None => Region::of(id(v, name)),
    }
}

#[test]
fn standard_board_has_75_spaces_34_centres_22_units() {
    let v = standard();
    assert_eq!(v.name, "standard");
    assert_eq!(v.provinces.len(), 75);
    assert_eq!(v.centres().len(), 34);
    assert_eq!(v.start_units.len(), 22);
    assert_eq!(v.powers.len(), 7);
    assert!(v.powers.iter().all(|p| p.kind == PowerKind::Major));
    assert_eq!(v.victory, 18);
    assert_eq!(v.phase_name(v.start), "Spring 1901 Movement");
    assert_eq!(v.season_names[1], "Fall");
    assert!(v.build_sites.is_empty() && v.passages.is_empty());
    let seas = v
        .provinces
        .iter()
        .filter(|p| p.kind == SpaceKind::Sea)
        .count();
    assert_eq!(seas, 19);
    let russia = v.power_by_name("Russia").expect("Russia");
    assert_eq!(v.homes(russia).len(), 4);
    assert_eq!(v.power_by_name("rus"), Some(russia));
    assert_eq!(v.power_by_name("Russian"), Some(russia));
    let neutral = v.provinces.iter().filter(|p| p.centre && p.home.is_none());
    assert_eq!(neutral.count(), 12);
    let stp_sc = region(&v, "StP/sc");
    assert!(v
        .start_units
        .iter()
        .any(|u| u.power == russia && u.unit == UnitType::Fleet && u.region == stp_sc));
}

#[test]
fn standard_fleet_edges_respect_coasts() {
    let v = standard();
    let yes = [
        ("Spa/nc", "MAO"),
        ("Spa/sc", "MAO"),
        ("Spa/nc", "Gas"),
        ("Spa/sc", "Mar"),
        ("Spa/sc", "WES"),
        ("StP/nc", "Nwy"),
        ("StP/nc", "BAR"),
        ("StP/sc", "Fin"),
        ("StP/sc", "BOT"),
        ("Bul/ec", "BLA"),
        ("Bul/sc", "AEG"),
        ("Con", "Bul/ec"),
        ("Con", "Bul/sc"),
        ("Kie", "Den"),
        ("Den", "Swe"),
        ("Con", "Smy"),
    ];
    for (a, b) in yes {
        assert!(
            v.fleet_adjacent(region(&v, a), region(&v, b)),
            "F {a} - {b}"
        );
        assert!(
            v.fleet_adjacent(region(&v, b), region(&v, a)),
            "F {b} - {a}"
        );
    }
    let no = [
        ("Spa/nc", "Mar"),
        ("Spa/sc", "Gas"),
        ("StP/sc", "Nwy"),
        ("StP/nc", "Fin"),
        ("Bul/ec", "AEG"),
        ("Bul/sc", "BLA"),
        ("Spa", "MAO"),
        ("Rom", "Ven"),
        ("Fin", "Nwy"),
    ];
    for (a, b) in no {
        assert!(
            !v.fleet_adjacent(region(&v, a), region(&v, b)),
            "F {a} - {b}"
        );
    }
    let spa = id(&v, "Spa");
    assert!(v.fleet_reach[id(&v, "MAO").index()].contains(spa));
    assert!(v.fleet_reach[spa.index()].contains(id(&v, "Mar")));
    assert!(v.fleet_reach[spa.index()].contains(id(&v, "Gas")));
    let from_stp_nc: Vec<String> = v
        .fleet_moves(region(&v, "StP/nc"))
        .map(|r| v.region_name(r))
        .collect();
    assert_eq!(from_stp_nc.len(), 2);
}

#[test]
fn standard_army_edges() {
    let v = standard();
    let yes = [
        ("Kie", "Den"),
        ("Den", "Swe"),
        ("Con", "Bul"),
        ("Spa", "Mar"),
        ("Spa", "Gas"),
        ("StP", "Nwy"),
        ("StP", "Mos"),
        ("Fin", "Nwy"),
        ("Rom", "Ven"),
        ("Gal", "Ukr"),
    ];
    for (a, b) in yes {
        assert!(v.army_adjacent(id(&v, a), id(&v, b)), "A {a} - {b}");
        assert!(v.army_adjacent(id(&v, b), id(&v, a)), "A {b} - {a}");
    }
    for (a, b) in [("Lon", "NTH"), ("Par", "Mar"), ("Bul", "Ank")] {
        assert!(!v.army_adjacent(id(&v, a), id(&v, b)), "A {a} - {b}");
    }
}

#[test]
fn standard_names_resolve_case_insensitively() {
    let v = standard();
    let stp = id(&v, "StP");
    for n in [
        "stp",
        "STP",
        "St Petersburg",
        "st. petersburg",
        "Saint Petersburg",
    ] {
        assert_eq!(v.lookup(n), Lookup::One(stp), "{n}");
    }
    let mao = id(&v, "MAO");
    for n in ["Mid-Atlantic Ocean", "mid atlantic ocean", "Mid-Atlantic"] {
        assert_eq!(v.lookup(n), Lookup::One(mao), "{n}");
    }
    assert_eq!(id(&v, "Gulf of Lyons"), id(&v, "LYO"));
    assert_eq!(id(&v, "English Channel"), id(&v, "eng"));
    assert_eq!(id(&v, "Heligoland Bight"), id(&v, "HEL"));
    assert_eq!(id(&v, "Tyrol"), id(&v, "Tyrolia"));
    assert_eq!(id(&v, "N Africa"), id(&v, "North Africa"));
    assert_eq!(id(&v, "Skagerak"), id(&v, "SKA"));
    assert_eq!(v.province(id(&v, "york")).code, "Yor");
    // The DATC's own text misspells Ruhr once.
    assert_eq!(id(&v, "Rhur"), id(&v, "Ruhr"));
}

#[test]
fn every_full_name_resolves_to_its_space() {
    // The full names are the DATC's, which its test cases use.
    let v = standard();
    for p in &v.provinces {
        assert_eq!(v.lookup(&p.name), v.lookup(&p.code), "{}", p.name);
    }
}

#[test]
fn unknown_name_gets_a_suggestion() {
    let v = standard();
    match v.lookup("Burgandy") {
        Lookup::Unknown { suggestion } => assert_eq!(suggestion.as_deref(), Some("Burgundy")),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        v.lookup("Atlantis Deep"),
        Lookup::Unknown { suggestion: None }
    ));
}

#[test]
fn load_named_unknown_variant() {
    assert!(matches!(
        load_named("nosuch"),
        Err(LoadError::UnknownVariant(n)) if n == "nosuch"
    ));
}

#[test]
fn summary_describes_the_standard_board() {
    let s = napjudge_engine::variant::summary(&standard());
    println!("{s}");
    assert!(s.contains("Diplomacy (standard map)"));
    assert!(s.contains("Spring 1901 Movement"));
    assert!(s.contains("Total centres: 34"));
    assert!(s.contains("StP (nc sc)"));
    assert!(s.contains("F StP/sc"));
}

// ---------------------------------------------------------------------------------------------
// Validation: a small valid board, and one deliberate fault per test.

const TINY: &str = r#"variant tiny
title "A tiny board"
start Spring 1901 Movement
power Red major alias R
power Blue minor
space Aaa coast "Alpha"
space Bbb coast "Bravo"
space Ccc land "Charlie"
space Ddd coast "Delta"
coasts Ddd nc sc
space SEA sea "Open Sea"
space NTH sea "North Water"
centre Aaa Red
centre Ccc Blue
centre Ddd
army Aaa: Bbb Ccc
army Bbb: Aaa Ccc
army Ccc: Aaa Bbb Ddd
army Ddd: Ccc
fleet Aaa: SEA Bbb
fleet Bbb: Aaa SEA
fleet SEA: Aaa Bbb Ddd/sc NTH
fleet NTH: SEA Ddd/nc
fleet Ddd/nc: NTH
fleet Ddd/sc: SEA
unit Red F Aaa
unit Blue A Ccc
"#;

/// The line number of the first line of `text` containing `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .map(|i| i + 1)
        .unwrap_or_else(|| panic!("no line with '{needle}'"))
}

/// TINY with `line` appended; returns the text and the new line's number.
fn plus(line: &str) -> (String, usize) {
    (format!("{TINY}{line}\n"), TINY.lines().count() + 1)
}

/// Loads `text`, expecting an error at `line` whose message contains every one of `parts`.
fn fails(text: &str, line: usize, parts: &[&str]) {
    match load("tiny.variant", text) {
        Err(LoadError::Invalid {
            file,
            line: l,
            message,
        }) => {
            assert_eq!(file, "tiny.variant");
            assert_eq!(l, line, "wrong line for: {message}");
            for p in parts {
                assert!(message.contains(p), "'{message}' lacks '{p}'");
            }
        }
        Err(e) => panic!("unexpected error: {e}"),
        Ok(_) => panic!("loaded, but should fail at line {line} with {parts:?}"),
    }
}

fn loads(text: &str) -> Variant {
    match load("tiny.variant", text) {
        Ok(v) => v,
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn tiny_board_loads_with_defaults() {
    let v = loads(TINY);
    assert_eq!(v.title, "A tiny board");
    assert_eq!(v.provinces.len(), 6);
    assert_eq!(v.centres().len(), 3);
    // No `victory` line: a majority of the centres.
    assert_eq!(v.victory, 2);
    assert_eq!(v.season_names[1], "Autumn");
    assert_eq!(v.powers[1].kind, PowerKind::Minor);
    let ddd = id(&v, "Ddd");
    assert!(v.fleet_reach[ddd.index()].contains(id(&v, "SEA")));
    assert!(v.fleet_reach[ddd.index()].contains(id(&v, "NTH")));
    // Sorted and deduplicated, as fleet_adjacent's binary search needs.
    assert!(v.fleet_edges.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(v.fleet_edges.len(), 12);
}

#[test]
fn comments_blank_lines_and_case_are_ignored() {
    let text = TINY.replace(
        "army Ddd: Ccc",
        "ARMY ddd : ccc   # the only way in\n\n# note",
    );
    let v = loads(&text);
    assert!(v.army_adjacent(id(&v, "Ddd"), id(&v, "Ccc")));
    // A byte-order mark left by an editor is not part of the first word.
    let v = loads(&format!("\u{feff}{TINY}"));
    assert_eq!(v.name, "tiny");
}

#[test]
fn rules_victory_builds_and_passages_are_read() {
    let (text, _) = plus(
        "rules second-moves passages extra-unit R\nvictory 3\nvictory Red 2\n\
         build Bbb Red army fleet\npassage Aaa Ddd SEA\nseasons Spring Fall Winter",
    );
    let v = loads(&text);
    assert!(v.rules.second_moves && v.rules.passages && !v.rules.influence);
    let red = v.power_by_name("Red").expect("Red");
    let blue = v.power_by_name("Blue").expect("Blue");
    assert_eq!(v.rules.extra_unit, Some(red));
    assert_eq!((v.victory_for(red), v.victory_for(blue)), (2, 3));
    assert_eq!(v.build_sites.len(), 1);
    assert!(v.build_sites[0].army && v.build_sites[0].fleet);
    let p = v.passage(id(&v, "Ddd"), id(&v, "Aaa")).expect("passage");
    assert_eq!(p.sea, id(&v, "SEA"));
    assert_eq!(v.phase_name(v.start), "Spring 1901 Movement");
    assert!(napjudge_engine::variant::summary(&v).contains("Aaa - Ddd across SEA"));
}

#[test]
fn unknown_directive_is_refused() {
    let (text, line) = plus("armee Aaa: Bbb");
    fails(&text, line, &["unknown directive 'armee'", "army", "fleet"]);
    let (text, line) = plus("flet Aaa: Bbb");
    fails(
        &text,
        line,
        &["unknown directive 'flet' (did you mean 'fleet'?)"],
    );
}

#[test]
fn unknown_space_is_refused() {
    let (text, line) = plus("army Aaa: Zzz");
    fails(&text, line, &["unknown space 'Zzz'"]);
}

#[test]
fn unknown_power_is_refused() {
    let (text, line) = plus("unit Green A Bbb");
    fails(&text, line, &["unknown power 'Green'"]);
}

#[test]
fn unknown_coast_word_is_refused() {
    let (text, line) = plus("fleet NTH: Ddd/xc");
    fails(&text, line, &["'xc' is not a coast"]);
}

#[test]
fn duplicate_code_is_refused() {
    let (text, line) = plus("space aaa land \"Another\"");
    fails(&text, line, &["'aaa'", "already used by Aaa", "line 6"]);
}

#[test]
fn duplicate_alias_is_refused() {
    let (text, line) = plus("alias Bbb \"Alpha\"");
    fails(
        &text,
        line,
        &["'Alpha' already names Aaa (line 6)", "ambiguous"],
    );
}

#[test]
fn full_name_clashing_with_a_code_is_refused() {
    let text = TINY.replace("\"North Water\"", "\"Sea\"");
    fails(
        &text,
        line_of(&text, "space NTH"),
        &["'Sea' already names SEA"],
    );
}

#[test]
fn ambiguous_name_may_mean_several_spaces() {
    let (text, _) = plus("alias Bbb Alpha\nambiguous Alpha Aaa Bbb\nambiguous sea SEA NTH");
    let v = loads(&text);
    let (a, b) = (id(&v, "Aaa"), id(&v, "Bbb"));
    assert_eq!(v.lookup("alpha"), Lookup::Ambiguous(vec![a, b]));
    // `ambiguous` overrides even a code's own entry.
    assert_eq!(
        v.lookup("SEA"),
        Lookup::Ambiguous(vec![id(&v, "Open Sea"), id(&v, "NTH")])
    );
}

#[test]
fn ambiguous_needs_two_spaces() {
    let (text, line) = plus("ambiguous Alpha Aaa");
    fails(&text, line, &["at least two spaces"]);
}

#[test]
fn asymmetric_army_edge_is_refused() {
    let text = TINY.replace("army Bbb: Aaa Ccc", "army Bbb: Aaa");
    fails(
        &text,
        line_of(&text, "army Ccc:"),
        &["army Ccc: Bbb is listed but 'army Bbb:' (line 17) does not list Ccc"],
    );
}

#[test]
fn army_edge_without_a_partner_line_is_refused() {
    let text = TINY.replace("army Ddd: Ccc\n", "");
    fails(
        &text,
        line_of(&text, "army Ccc:"),
        &["army Ccc: Ddd is listed but there is no 'army Ddd:' line"],
    );
}

#[test]
fn asymmetric_fleet_edge_is_refused() {
    let (text, line) = plus("fleet NTH: Bbb");
    fails(
        &text,
        line,
        &["fleet NTH: Bbb is listed but 'fleet Bbb:' (line 21) does not list NTH"],
    );
}

#[test]
fn army_edge_touching_a_sea_is_refused() {
    let (text, line) = plus("army Aaa: SEA");
    fails(&text, line, &["SEA is a sea", "passage"]);
}

#[test]
fn fleet_edge_to_an_inland_space_is_refused() {
    let (text, line) = plus("fleet SEA: Ccc");
    fails(&text, line, &["Ccc is inland"]);
}

#[test]
fn fleet_edge_naming_a_missing_coast_is_refused() {
    let (text, line) = plus("fleet NTH: Ddd/ec");
    fails(&text, line, &["Ddd has no ec coast", "nc sc"]);
}

#[test]
fn fleet_edge_to_multi_coast_province_without_coast_is_refused() {
    let (text, line) = plus("fleet NTH: Ddd");
    fails(&text, line, &["Ddd has several coasts", "Ddd/nc or Ddd/sc"]);
}

#[test]
fn fleet_edge_with_a_coast_on_a_single_coast_province_is_refused() {
    let (text, line) = plus("fleet SEA: Aaa/nc");
    fails(&text, line, &["Aaa has no coasts"]);
}

#[test]
fn coasts_on_an_inland_space_are_refused() {
    let (text, line) = plus("coasts Ccc nc sc");
    fails(&text, line, &["Ccc is not a coastal space"]);
}

#[test]
fn home_centre_of_unknown_power_is_refused() {
    let text = TINY.replace("centre Ddd", "centre Ddd Green");
    fails(
        &text,
        line_of(&text, "centre Ddd"),
        &["unknown power 'Green'"],
    );
}

#[test]
fn duplicate_centre_is_refused() {
    let (text, line) = plus("centre Aaa");
    fails(&text, line, &["Aaa is already a centre (line 13)"]);
}

#[test]
fn build_site_on_a_centre_is_refused() {
    let (text, line) = plus("build Aaa Red army");
    fails(&text, line, &["Aaa is a supply centre"]);
}

#[test]
fn fleet_build_site_inland_is_refused() {
    let (text, line) = plus("build Bbb Red army\nbuild Ccc Red fleet");
    fails(&text, line + 1, &["Ccc is a supply centre"]);
    let (text, line) = plus("space Eee land \"Echo\"\nbuild Eee Red fleet");
    fails(&text, line + 1, &["Eee is inland"]);
}

#[test]
fn starting_fleet_inland_is_refused() {
    let (text, line) = plus("unit Blue F Bbb\nunit Red F Ccc");
    fails(&text, line + 1, &["a fleet cannot stand in Ccc"]);
}

#[test]
fn starting_army_at_sea_is_refused() {
    let (text, line) = plus("unit Red A SEA");
    fails(&text, line, &["an army cannot stand in SEA"]);
}

#[test]
fn starting_fleet_without_its_coast_is_refused() {
    let (text, line) = plus("unit Red F Ddd");
    fails(&text, line, &["must name its coast", "Ddd/nc or Ddd/sc"]);
    let (text, _) = plus("unit Red F Ddd/nc");
    assert_eq!(loads(&text).start_units.len(), 3);
}

#[test]
fn two_starting_units_in_one_space_are_refused() {
    let (text, line) = plus("unit Red A Aaa");
    fails(&text, line, &["Aaa already has a unit (line 26)"]);
}

#[test]
fn passage_ending_at_sea_is_refused() {
    let (text, line) = plus("passage Aaa SEA NTH");
    fails(&text, line, &["SEA is a sea"]);
}

#[test]
fn passage_across_land_is_refused() {
    let (text, line) = plus("passage Aaa Bbb Ccc");
    fails(&text, line, &["Ccc is not a sea"]);
}

#[test]
fn more_than_128_spaces_are_refused() {
    let mut text = TINY.to_string();
    for i in 0..122 {
        text.push_str(&format!("space X{i} land\n"));
    }
    assert_eq!(loads(&text).provinces.len(), 128);
    text.push_str("space Y land\n");
    fails(&text, text.lines().count(), &["too many spaces", "128"]);
}

#[test]
fn missing_variant_line_is_refused() {
    let text = TINY.replace("variant tiny\n", "");
    fails(&text, 1, &["no 'variant NAME' line"]);
}

#[test]
fn missing_start_line_is_refused() {
    let text = TINY.replace("start Spring 1901 Movement\n", "");
    fails(&text, 1, &["no 'start"]);
}

#[test]
fn unreadable_start_phase_is_refused() {
    let text = TINY.replace("start Spring 1901", "start Summer 1901");
    fails(&text, 3, &["cannot read the phase 'Summer 1901 Movement'"]);
}

#[test]
fn start_phase_uses_the_variants_season_names() {
    let text = TINY.replace("start Spring 1901 Movement", "start Hiver 1800 Bids")
        + "seasons Printemps Automne Hiver\n";
    let v = loads(&text);
    assert_eq!(v.phase_name(v.start), "Hiver 1800 Bids");
}

/// Issue 8, names: an ambiguity or alias never hides a space's own code or full name; the
/// napoleonic `ambiguous Bal BAL Bkn` lists the Baltic (BAL), so it still may mean it.
#[test]
fn an_ambiguity_may_not_hide_a_spaces_own_name() {
    let (text, line) = plus("ambiguous Aaa Bbb Ccc");
    fails(
        &text,
        line,
        &["'Aaa' is the name of Aaa", "may not hide it"],
    );
    let (text, line) = plus("ambiguous Alpha Bbb Ccc");
    fails(&text, line, &["'Alpha' is the name of Aaa"]);
    let (text, line) = plus("alias Bbb Aaa");
    fails(&text, line, &["'Aaa' already names Aaa"]);
    // Listing the space itself keeps its name meaning it (the geometry decides).
    let (text, _) = plus("ambiguous Aaa Aaa Bbb");
    let v = loads(&text);
    assert_eq!(
        v.lookup("Aaa"),
        Lookup::Ambiguous(vec![id(&v, "Alpha"), id(&v, "Bravo")])
    );
}

/// Issue 8, names: thresholds, centres, start phases, seasons and edges the game can't have are
/// refused with FILE:LINE.
#[test]
fn impossible_boards_are_refused_at_their_line() {
    let (text, line) = plus("victory 0");
    fails(
        &text,
        line,
        &["a victory of 0 centres on a board of 3: write 1 to 3"],
    );
    let (text, line) = plus("victory 4");
    fails(&text, line, &["a victory of 4 centres on a board of 3"]);
    let (text, line) = plus("victory Red 49");
    fails(&text, line, &["a victory of 49 centres"]);
    let (text, line) = plus("victory Blue 2");
    fails(
        &text,
        line,
        &["Blue is a minor power", "only major powers win"],
    );
    let text = TINY.replace("centre Ddd\n", "centre Ddd\ncentre SEA\n");
    fails(
        &text,
        line_of(&text, "centre SEA"),
        &["SEA is a sea", "supply centre"],
    );
    let (text, line) = plus("build SEA Red fleet");
    fails(&text, line, &["SEA is a sea", "build site"]);
    let text = TINY.replace("start Spring 1901 Movement", "start Spring 1901 Bids");
    fails(&text, 3, &["start: there is no Spring 1901 Bids phase"]);
    let text = TINY.replace("start Spring 1901 Movement", "start Winter 1901 Movement");
    fails(&text, 3, &["there is no Winter 1901 Movement phase"]);
    let (text, line) = plus("seasons Spring Spring Winter");
    fails(&text, line, &["three different names"]);
    let (text, line) = plus("seasons Spring Fall Winter\nseasons Spring Autumn Winter");
    fails(&text, line + 1, &["a second 'seasons' line"]);
    let text = TINY.replace("army Ddd: Ccc", "army Ddd: Ccc Ccc");
    fails(
        &text,
        line_of(&text, "army Ddd:"),
        &["army Ddd: Ccc is listed twice"],
    );
    let (text, line) = plus("fleet Aaa: SEA");
    fails(
        &text,
        line,
        &["fleet Aaa: SEA is listed twice (first on line"],
    );
}

/// Issue 8, years: a year the calendar can't advance past is refused wherever a phase is read
/// (a start line here; case files read phases the same way), not wrapped or panicked on.
#[test]
fn a_year_at_the_top_of_its_range_is_refused() {
    let text = TINY.replace("start Spring 1901", "start Spring 65535");
    fails(
        &text,
        3,
        &["the year 65535 is out of range: years run from 0 to 65534"],
    );
    let text = TINY.replace("start Spring 1901", "start Spring 99999999999999999999");
    fails(&text, 3, &["the year 99999999999999999999 is out of range"]);
    let text = TINY.replace("start Spring 1901", "start Spring 65534");
    assert_eq!(loads(&text).start.year, 65534);
    assert!(standard().read_phase("Spring 65535 Movement").is_err());
}

/// Issue 8, rule switches: one table for the loader, the summary and case options; every switch
/// a board sets is printed (`army-builds-anywhere`, `adoption` were left out).
#[test]
fn every_switch_set_is_printed_and_spaces_are_described() {
    let s = napjudge_engine::variant::summary(&load_named("napoleonic").expect("napoleonic"));
    assert!(s.contains("army-builds-anywhere"), "{s}");
    assert!(s.contains("  BOT   Bay of Tunis (sea)\n"), "{s}");
    assert!(
        s.contains("  Han   Hanover (coastal, Hanover home centre, coasts ec wc)"),
        "{s}"
    );
    let (text, _) = plus("rules adoption");
    let v = loads(&text);
    assert!(v.rules.adoption);
    assert!(napjudge_engine::variant::summary(&v).contains("Rules:    adoption\n"));
    // Each switch is found by its name, and turns on and off what it reads back.
    for s in napjudge_engine::variant::SWITCHES {
        let found = napjudge_engine::variant::Switch::named(s.name).map(|f| f.name);
        assert_eq!(found, Some(s.name));
        let mut rules = napjudge_engine::variant::Rules::default();
        s.set(&mut rules, true);
        assert!(s.is_on(&rules), "{}", s.name);
        s.set(&mut rules, false);
        assert!(!s.is_on(&rules), "{}", s.name);
    }
}

/// Issue 8, input: a variant file in UTF-16 loads; one with a Latin-1 byte is refused at its line.
#[test]
fn variant_files_are_decoded_or_refused_at_the_bad_byte() {
    let dir = std::env::temp_dir().join(format!("napjudge-variant-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let utf16 = dir.join("utf16.variant");
    let bytes: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(TINY.encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    std::fs::write(&utf16, bytes).expect("write");
    assert_eq!(
        load_file(&utf16).map(|v| v.name).ok().as_deref(),
        Some("tiny")
    );
    let latin1 = dir.join("latin1.variant");
    let mut bytes = TINY.replace("\"Alpha\"", "\"Alph\u{e9}\"").into_bytes();
    // é in Latin-1 is one byte, 0xE9, where UTF-8 has two.
    if let Some(at) = bytes.windows(2).position(|w| w == [0xC3, 0xA9]) {
        bytes.splice(at..at + 2, [0xE9]);
    }
    std::fs::write(&latin1, bytes).expect("write");
    let e = load_file(&latin1).err().map(|e| e.to_string());
    let line = line_of(TINY, "\"Alpha\"");
    assert!(
        e.as_deref()
            .is_some_and(|e| e.contains(&format!("line {line}, column 22: byte 0xE9"))),
        "{e:?}"
    );
}

#[test]
fn unknown_rule_switch_is_refused() {
    let (text, line) = plus("rules second-moves flying-armies");
    fails(
        &text,
        line,
        &["unknown rule switch 'flying-armies'", "blockades"],
    );
}

#[test]
fn unterminated_quote_is_refused() {
    let (text, line) = plus("alias Aaa \"Alpha Prime");
    fails(&text, line, &["no closing"]);
}

#[test]
fn wrong_argument_count_shows_the_usage() {
    let (text, line) = plus("space Eee");
    fails(&text, line, &["expected: space CODE land|coast|sea"]);
}

#[test]
fn load_variant_reads_a_path_from_disk() {
    let dir = std::env::temp_dir().join(format!("napjudge-variant-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("tiny.variant");
    std::fs::write(&path, TINY).expect("write");
    let v = napjudge_cases::files::load_variant(path.to_str().expect("utf-8 path")).expect("loads");
    assert_eq!(v.name, "tiny");
    let missing = dir.join("missing.variant");
    assert!(matches!(
        napjudge_cases::files::load_variant(missing.to_str().expect("utf-8 path")),
        Err(napjudge_cases::files::VariantFileError::Io { .. })
    ));
    let _ = std::fs::remove_dir_all(&dir);
}
