//! Loading variant files: the standard board, name look-ups, and each validation error.

use napjudge::variant::{
    load_named, Coast, LoadError, Lookup, PowerKind, ProvinceId, Region, SpaceKind, UnitType,
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
