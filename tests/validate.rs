//! Validation against a position: every error a player can get for an order that parses, on the
//! real boards (docs/orders.md; DATC 4.B and 4.E.1; RULINGS R1.4, R3, R4, R5, R6).

use napjudge_engine::order::{parse_line, Order, Place};
use napjudge_engine::position::Position;
use napjudge_engine::validate::{check_set, Checker, Forbidden, ValidationError};
use napjudge_engine::variant::{load_named, PhaseKind, Season, Variant};

fn board(name: &str) -> Variant {
    load_named(name).expect("built-in board")
}

fn order(v: &Variant, text: &str) -> Order<Place> {
    parse_line(v, text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Checks `texts` as one power's order set against `pos`.
fn check(
    v: &Variant,
    pos: Option<&Position>,
    power: &str,
    texts: &[&str],
) -> Vec<Result<String, ValidationError>> {
    let checker = Checker {
        variant: v,
        position: pos,
        power: Some(v.power_by_name(power).expect("power")),
    };
    let orders: Vec<Order<Place>> = texts.iter().map(|t| order(v, t)).collect();
    check_set(&checker, &orders)
        .into_iter()
        .map(|r| r.map(|o| o.display(v)))
        .collect()
}

fn standard_1901() -> (Variant, Position) {
    let v = board("standard");
    let p = Position::initial(&v);
    (v, p)
}

#[test]
fn valid_orders_print_in_canonical_form() {
    let (v, p) = standard_1901();
    let r = check(
        &v,
        Some(&p),
        "France",
        &["A Paris - Burgundy", "F Brest - Mid-Atlantic"],
    );
    assert_eq!(r[0].as_deref().ok(), Some("A(Par)-Bur"));
    assert_eq!(r[1].as_deref().ok(), Some("F(Bre)-MAO"));
}

#[test]
fn no_unit_there_is_an_error() {
    let (v, p) = standard_1901();
    let r = check(&v, Some(&p), "France", &["A(Bur)-Par"]);
    assert!(matches!(r[0], Err(ValidationError::Empty { .. })), "{r:?}");
}

#[test]
fn datc_6_a_6_another_powers_unit_is_refused() {
    let (v, p) = standard_1901();
    let r = check(&v, Some(&p), "Germany", &["F(Lon)-NTH"]);
    let Err(e) = &r[0] else { panic!("{r:?}") };
    assert!(matches!(e, ValidationError::NotYours { .. }));
    assert!(e.to_string().contains("England"), "{e}");
}

/// R1.4 with RULINGS section 0: two orders for one unit are both void, whichever came first.
#[test]
fn r1_4_two_orders_to_one_unit_are_both_void() {
    let (v, p) = standard_1901();
    let r = check(&v, Some(&p), "France", &["A(Par)-Bur", "A(Par)-Pic"]);
    let e = r[0].as_ref().err().map(ToString::to_string);
    assert_eq!(
        e.as_deref(),
        Some(
            "the unit in Paris is also ordered in order 2: a unit takes one order, so all its \
             orders are void and it holds; keep the one you mean and delete the others"
        )
    );
    assert!(r[1].is_err(), "{r:?}");
}

/// Issue 8, messages: in a mail, the other order is named by its line (R1.4).
#[test]
fn r1_4_a_second_order_names_the_other_line() {
    let (v, p) = standard_1901();
    let checker = Checker {
        variant: &v,
        position: Some(&p),
        power: v.power_by_name("France"),
    };
    let (first, second) = (order(&v, "A(Par)-Bur"), order(&v, "A Par - Pic"));
    let lines = [(2, &first), (5, &second)];
    let r = napjudge_engine::validate::check_mail(&checker, &lines);
    let e = |k: usize| r[k].as_ref().err().map(ToString::to_string);
    assert!(
        e(1).is_some_and(|e| e.starts_with("the unit in Paris is also ordered in line 2")),
        "{:?}",
        e(1)
    );
    assert!(
        e(0).is_some_and(|e| e.starts_with("the unit in Paris is also ordered in line 5")),
        "{:?}",
        e(0)
    );
}

#[test]
fn a_build_in_a_movement_phase_is_the_wrong_phase() {
    let (v, p) = standard_1901();
    let r = check(&v, Some(&p), "France", &["BUILD A(Par)"]);
    assert!(
        matches!(r[0], Err(ValidationError::WrongPhase { .. })),
        "{r:?}"
    );
}

#[test]
fn a_merge_is_not_in_the_standard_rules() {
    let (v, p) = standard_1901();
    let r = check(&v, Some(&p), "France", &["A(Par) MERGE Bur"]);
    assert!(
        matches!(r[0], Err(ValidationError::NotInVariant { .. })),
        "{r:?}"
    );
}

#[test]
fn datc_6_a_1_a_fleet_move_to_a_non_neighbour_is_unreachable() {
    let (v, p) = standard_1901();
    let r = check(&v, Some(&p), "England", &["F(Lon)-Pic"]);
    assert!(
        matches!(r[0], Err(ValidationError::Unreachable { .. })),
        "{r:?}"
    );
}

#[test]
fn datc_4_b_1_a_fleet_that_could_reach_both_coasts_must_name_one() {
    let v = board("standard");
    let mut p = Position::initial(&v);
    // Put the French fleet in MAO, from where both coasts of Spain are in reach.
    let bre = match v.lookup("Bre") {
        napjudge_engine::variant::Lookup::One(p) => p,
        other => panic!("{other:?}"),
    };
    let mao = match v.lookup("MAO") {
        napjudge_engine::variant::Lookup::One(p) => p,
        other => panic!("{other:?}"),
    };
    p.units[mao.index()] = p.units[bre.index()].take();
    let r = check(&v, Some(&p), "France", &["F(MAO)-Spa", "F(MAO)-Spa/nc"]);
    assert!(
        matches!(r[0], Err(ValidationError::CoastNeeded { .. })),
        "{r:?}"
    );
    // The first order was void, so the fleet is still free for the second.
    assert_eq!(r[1].as_deref().ok(), Some("F(MAO)-Spa/nc"));
}

#[test]
fn datc_6_a_4_a_move_to_the_own_space_is_illegal() {
    let (v, p) = standard_1901();
    let r = check(&v, Some(&p), "Germany", &["F(Kie)-Kie"]);
    assert_eq!(
        r[0],
        Err(ValidationError::Forbidden(Forbidden::SameSpace)),
        "{r:?}"
    );
}

#[test]
fn ambiguous_bal_is_settled_by_geometry() {
    let v = board("napoleonic");
    // A fleet in SKA reaches the Baltic Sea, not the Balkans.
    let r = check(&v, None, "Russia", &["F(SKA)-Bal"]);
    assert_eq!(r[0].as_deref().ok(), Some("F(SKA)-BAL"), "{r:?}");
    // An army in Constantinople reaches the Balkans, not the sea.
    let r = check(&v, None, "Russia", &["A(Con)-Bal"]);
    assert_eq!(r[0].as_deref().ok(), Some("A(Con)-Bkn"), "{r:?}");
}

#[test]
fn ambiguous_bal_that_fits_both_is_an_error_naming_both() {
    let v = board("napoleonic");
    let r = check(&v, None, "Russia", &["F(Bal) H"]);
    let Err(e) = &r[0] else { panic!("{r:?}") };
    assert!(matches!(e, ValidationError::Ambiguous { .. }));
    let text = e.to_string();
    assert!(
        text.contains("Baltic Sea") && text.contains("Balkans"),
        "{text}"
    );
}

/// Issue 21: `BAL` written exactly as the Baltic Sea's code is the Baltic, even where the
/// Balkans would fit too (the canonical form prints it so), while `Bal` stays ambiguous.
#[test]
fn the_exact_code_wins_when_both_meanings_fit() {
    let v = board("napoleonic");
    let r = check(&v, None, "Russia", &["F(BAL) H"]);
    assert_eq!(r[0].as_deref().ok(), Some("F(BAL) H"), "{r:?}");
}

/// Issue 21: `F GOB-BAL` failed as "ambiguous: 'BAL' could be Baltic Sea or Balkans", though the
/// real problem is that GOB doesn't border the Baltic: adjacency before ambiguity.
#[test]
fn an_ambiguous_name_no_meaning_fits_names_the_real_problem() {
    let v = board("napoleonic");
    let r = check(&v, None, "Russia", &["F GOB-BAL", "F GOB-bal"]);
    let got: Vec<String> = r
        .iter()
        .map(|r| {
            r.as_ref()
                .err()
                .map(ToString::to_string)
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(got[0], "F(GOB) can't reach BAL");
    assert_eq!(got[1], "F(GOB) can't reach BAL or Bkn");
}

/// Issue 21: "Silesia holds no such unit: the order names an army" when Silesia is empty; now
/// the error says what is (or isn't) there.
#[test]
fn an_empty_space_or_another_kind_of_unit_is_said_plainly() {
    let (v, p) = standard_1901();
    let r = check(
        &v,
        Some(&p),
        "France",
        &["A(Bur)-Par", "A(Bre)-Pic", "A(Lon)-Wal"],
    );
    let got: Vec<String> = r
        .iter()
        .map(|r| {
            r.as_ref()
                .err()
                .map(ToString::to_string)
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(
        got,
        [
            "there is no unit in Burgundy",
            "Brest holds a fleet, not an army",
            "the unit in London belongs to England, not to you"
        ]
    );
}

#[test]
fn r5_1_b_no_blockade_in_spring() {
    let v = board("napoleonic");
    let mut p = Position::initial(&v);
    p.phase.season = Season::Spring;
    p.phase.kind = PhaseKind::Movement;
    let r = check(&v, Some(&p), "France", &["F(Bre) B Lon"]);
    assert_eq!(
        r[0],
        Err(ValidationError::Forbidden(Forbidden::BlockadeNotAutumn)),
        "{r:?}"
    );
}

#[test]
fn r6_2_only_a_fleet_in_the_sea_crossed_may_deny() {
    let v = board("napoleonic");
    let r = check(&v, None, "England", &["F(NTH) X Den-Swe"]);
    assert_eq!(
        r[0],
        Err(ValidationError::Forbidden(Forbidden::NoPassage)),
        "{r:?}"
    );
}

#[test]
fn r4_3_armies_never_act_in_the_second_phase() {
    let v = board("napoleonic");
    let mut p = Position::initial(&v);
    p.phase.season = Season::Spring;
    p.phase.kind = PhaseKind::Movement;
    let r = check(&v, Some(&p), "France", &["2: A(Par)-Bur"]);
    assert_eq!(
        r[0],
        Err(ValidationError::Forbidden(Forbidden::SecondPhaseArmy)),
        "{r:?}"
    );
}

/// The napoleonic board in Spring 1801 with one fleet of Hanover's on Hanover's east coast.
fn napoleonic_fleet_on_han_ec() -> (Variant, Position) {
    let v = board("napoleonic");
    let mut p = Position::initial(&v);
    p.phase = v.read_phase("Spring 1801 Movement").expect("phase");
    let han = v.find("Han").expect("Han")[0];
    let hanover = v.power_by_name("Hanover").expect("Hanover");
    p.units[han.index()] = Some(napjudge_engine::position::Force {
        power: hanover,
        armies: 0,
        fleets: 1,
        coast: Some(napjudge_engine::variant::Coast::East),
    });
    (v, p)
}

/// Issue 8, coasts (DATC 4.B): without a position a fleet written without its coast in a
/// multi-coast province is accepted when some coast reaches.
#[test]
fn datc_4_b_a_fleet_written_without_its_coast_moves_from_any_coast() {
    let v = board("standard");
    let r = check(
        &v,
        None,
        "France",
        &["F Spa - MAO", "F Spa - Gas", "F Spa - Mar"],
    );
    assert_eq!(r[0].as_deref().ok(), Some("F(Spa)-MAO"), "{r:?}");
    assert_eq!(r[1].as_deref().ok(), Some("F(Spa)-Gas"), "{r:?}");
    assert_eq!(r[2].as_deref().ok(), Some("F(Spa)-Mar"), "{r:?}");
    let r = check(&v, None, "France", &["F Spa - Tun"]);
    assert!(
        matches!(r[0], Err(ValidationError::Unreachable { .. })),
        "{r:?}"
    );
    let v = board("napoleonic");
    let r = check(&v, None, "Hanover", &["F Han - Den", "F Han - HEL"]);
    assert!(r.iter().all(Result::is_ok), "{r:?}");
}

/// Issue 8, coasts: a fleet written on the coast it is not on is told where it is.
#[test]
fn datc_4_b_5_a_fleet_on_the_other_coast_is_told_which_coast_it_is_on() {
    let (v, p) = napoleonic_fleet_on_han_ec();
    let r = check(&v, Some(&p), "Hanover", &["F(Han/wc)-HEL"]);
    let e = r[0].as_ref().err().map(ToString::to_string);
    assert_eq!(
        e.as_deref(),
        Some(
            "the fleet in Hanover is on the east coast, not the west coast: from there it can't \
             reach HEL (write F(Han/ec))"
        )
    );
    // The coast written is ignored when the move is possible from the real one (DATC 4.B.5).
    let r = check(&v, Some(&p), "Hanover", &["F(Han/wc)-SKA"]);
    assert_eq!(r[0].as_deref().ok(), Some("F(Han/ec)-SKA"), "{r:?}");
}

/// Issue 8, coasts: a coast on a single-coast space, or on an army, is refused.
#[test]
fn a_coast_where_there_is_none_is_refused() {
    let (v, p) = standard_1901();
    let r = check(&v, Some(&p), "France", &["A(Par/nc) H", "F(Bre/nc)-MAO"]);
    let e: Vec<Option<String>> = r
        .iter()
        .map(|r| r.as_ref().err().map(|e| e.to_string()))
        .collect();
    assert_eq!(
        e[0].as_deref(),
        Some("Paris has no coasts: write Par, not Par/nc")
    );
    assert_eq!(
        e[1].as_deref(),
        Some("Brest has no coasts: write Bre, not Bre/nc")
    );
    let r = check(&v, None, "France", &["A(Spa/nc) H"]);
    let e = r[0].as_ref().err().map(ToString::to_string);
    assert_eq!(
        e.as_deref(),
        Some("an army has no coast: it stands in the whole space (write A(Spa))")
    );
}

fn at(v: &Variant, name: &str) -> napjudge_engine::variant::ProvinceId {
    v.find(name).expect("a space")[0]
}

fn army(v: &Variant, power: &str) -> napjudge_engine::position::Force {
    napjudge_engine::position::Force {
        power: v.power_by_name(power).expect("power"),
        armies: 1,
        fleets: 0,
        coast: None,
    }
}

fn message(r: &Result<String, ValidationError>) -> String {
    match r {
        Ok(o) => panic!("accepted: {o}"),
        Err(e) => e.to_string(),
    }
}

/// Issue 8, one validation decides both (R7.3): a build adjudication would refuse, on a centre
/// France does not own, is refused at the check with adjudication's reason.
#[test]
fn r7_3_a_build_on_a_centre_not_owned_is_refused_at_the_check() {
    let (v, mut p) = standard_1901();
    p.phase = v.read_phase("Winter 1901 Adjustment").expect("phase");
    p.units[at(&v, "Par").index()] = None;
    let r = check(&v, Some(&p), "France", &["BUILD A(Vie)", "BUILD A(Par)"]);
    assert_eq!(message(&r[0]), "Vienna is not a centre you own");
    assert_eq!(r[1].as_deref().ok(), Some("BUILD A(Par)"), "{r:?}");
}

/// Issue 8, one validation decides both (R1.9; DATC 6.H.5, 6.H.6, 6.H.10): retreats into the
/// attacker's space, an occupied space or a stand-off space are refused at the check.
#[test]
fn r1_9_retreats_adjudication_would_void_are_refused_at_the_check() {
    let (v, mut p) = standard_1901();
    p.phase = v.read_phase("Spring 1901 Retreat").expect("phase");
    let mun = at(&v, "Mun");
    let force = p.units[mun.index()].take().expect("A(Mun)");
    p.units[mun.index()] = Some(army(&v, "France"));
    p.dislodged.push(napjudge_engine::position::Dislodged {
        province: mun,
        force,
        attacker_from: {
            let mut from = napjudge_engine::variant::ProvinceSet::EMPTY;
            from.insert(at(&v, "Bur"));
            from
        },
        by_convoy: false,
        sea_time: napjudge_engine::position::SeaTime::default(),
    });
    p.standoffs.insert(at(&v, "Sil"));
    for (to, why) in [
        ("Bur", "the attacker came from Bur"),
        ("Kie", "Kie is occupied"),
        ("Sil", "Sil was left empty by a stand-off"),
    ] {
        let r = check(&v, Some(&p), "Germany", &[&format!("A(Mun) R {to}")]);
        assert!(message(&r[0]).contains(why), "{to}: {r:?}");
    }
    let r = check(&v, Some(&p), "Germany", &["A(Mun) R Ruh"]);
    assert_eq!(r[0].as_deref().ok(), Some("A(Mun) R Ruh"), "{r:?}");
}

/// Issue 8, one validation decides both (R2.1, R2.6): a merge whose written result is not what
/// its participants make is refused, in either notation, rather than carried out.
#[test]
fn r2_1_a_merge_result_that_does_not_match_its_participants_is_refused() {
    let v = board("napoleonic");
    let mut p = Position::initial(&v);
    p.phase = v.read_phase("Spring 1801 Movement").expect("phase");
    p.units[at(&v, "Mar").index()] = Some(army(&v, "France"));
    p.units[at(&v, "Pic").index()] = Some(army(&v, "France"));
    let r = check(&v, Some(&p), "France", &["A(Mar) & A(Pic) MERGE 3A(Bur)"]);
    assert_eq!(
        message(&r[0]),
        "the merge says it makes 3A(Bur), but its participants bring 2 armies: write MERGE \
         2A(Bur), or name every participant"
    );
    let r = check(
        &v,
        Some(&p),
        "France",
        &["A(Mar) MERGE 2A(Bur)", "A(Pic) MERGE 2A(Bur)"],
    );
    assert!(r.iter().all(Result::is_ok), "{r:?}");
    let r = check(&v, Some(&p), "France", &["A(Mar) MERGE 2A(Bur)"]);
    assert!(message(&r[0]).contains("bring an army"), "{r:?}");
    // The power's own force already in the target counts when it is not written.
    p.units[at(&v, "Bur").index()] = Some(army(&v, "France"));
    let r = check(&v, Some(&p), "France", &["A(Mar) & A(Pic) MERGE 3A(Bur)"]);
    assert!(r[0].is_ok(), "{r:?}");
}

/// Issue 13 #9: `Bal` (the Baltic Sea or the Balkans) is settled by the board for a chain's
/// second leg, a per-participant merge target and the place of a `2:` order, as for a move.
#[test]
fn ambiguous_bal_is_settled_by_the_board_in_legs_merges_and_second_phase_orders() {
    let v = board("napoleonic");
    let r = check(
        &v,
        None,
        "Russia",
        &["F(NTH)-SKA-Bal", "F(SKA) MERGE Bal", "2: F(Bal) MERGE SKA"],
    );
    let got: Vec<String> = r
        .into_iter()
        .map(|r| r.unwrap_or_else(|e| e.to_string()))
        .collect();
    assert_eq!(
        got,
        ["F(NTH)-SKA-BAL", "F(SKA) MERGE BAL", "2: F(BAL) MERGE SKA"]
    );
}

/// Issue 8, messages (R4.3): `2 F(ENG) S ...` where ENG has one fleet reads as the second-phase
/// order with its colon forgotten, and the message says how to write it; with two fleets there it
/// is an order to both.
#[test]
fn r4_3_a_forgotten_second_phase_colon_is_pointed_out() {
    let v = board("napoleonic");
    let mut p = Position::initial(&v);
    p.phase = v.read_phase("Spring 1801 Movement").expect("phase");
    let eng = at(&v, "ENG");
    let mut fleet = army(&v, "England");
    (fleet.armies, fleet.fleets) = (0, 1);
    p.units[eng.index()] = Some(fleet);
    p.units[at(&v, "NTH").index()] = Some(fleet);
    let r = check(&v, Some(&p), "England", &["2 F(ENG) S F(NTH)-Bel"]);
    assert_eq!(
        message(&r[0]),
        "English Channel holds no 2 fleets of yours: did you mean the second-phase order \
         '2: F(ENG) S F(NTH)-Bel'? (write '2:' with its colon)"
    );
    fleet.fleets = 2;
    p.units[eng.index()] = Some(fleet);
    let r = check(&v, Some(&p), "England", &["2 F(ENG) S F(NTH)-Bel"]);
    assert_eq!(r[0].as_deref().ok(), Some("2F(ENG) S F(NTH)-Bel"), "{r:?}");
}

/// Issue 8, one validation decides both (R3.2, R5.1): two of one power's orders that
/// adjudication would void together are refused at the check, each naming the other.
#[test]
fn r3_2_r5_1_own_orders_that_void_each_other_are_refused_at_the_check() {
    let v = board("napoleonic");
    let mut p = Position::initial(&v);
    p.phase = v.read_phase("Autumn 1801 Movement").expect("phase");
    let mut fleet = army(&v, "England");
    (fleet.armies, fleet.fleets) = (0, 1);
    let mut fleets = fleet;
    fleets.fleets = 2;
    // One fleet in ENG: the embarkation and the fleet's own order can't both have it (with two,
    // the embarkation rides on the fleet no order names, R3.2-v).
    p.units[at(&v, "ENG").index()] = Some(fleet);
    p.units[at(&v, "MAO").index()] = Some(fleets);
    p.units[at(&v, "Wal").index()] = Some(army(&v, "England"));
    let r = check(
        &v,
        Some(&p),
        "England",
        &["A(Wal) E F(ENG)-NTH", "F(ENG)-MAO"],
    );
    assert!(
        message(&r[0]).starts_with(
            "the fleet in English Channel is given two different moves, here and in order 2"
        ),
        "{r:?}"
    );
    assert!(message(&r[1]).contains("here and in order 1"), "{r:?}");
    let r = check(
        &v,
        Some(&p),
        "England",
        &["A(Wal) E F(ENG)-NTH", "F(ENG)-NTH"],
    );
    assert!(r.iter().all(Result::is_ok), "{r:?}");
    let r = check(&v, Some(&p), "England", &["2F(MAO) B Bre", "A(Wal) E ENG"]);
    assert!(r.iter().all(Result::is_ok), "{r:?}");
    p.units[at(&v, "Wal").index()] = None;
    p.units[at(&v, "Por").index()] = Some(army(&v, "England"));
    let r = check(&v, Some(&p), "England", &["2F(MAO) B Bre", "A(Por) E MAO"]);
    assert_eq!(
        message(&r[0]),
        "an army embarks on the fleets in Mid-Atlantic Ocean this season (order 2), and fleets \
         carrying an army can't blockade (R5.1): drop the blockade or the embarkation"
    );
    assert!(r[1].is_ok(), "{r:?}");
}
