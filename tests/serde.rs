//! The judge stores positions, order sheets and phase reports as JSON: each must come back equal.

use napjudge_cases::file::parse;
use napjudge_cases::run::{initial_position, sheets};
use napjudge_engine::position::Position;
use napjudge_engine::turn::{self, PhaseReport, Sheets};
use napjudge_engine::variant::{load_named, Variant};

/// Plays the first step of a case's text: the variant, the position, the sheets and the report.
fn first_step(text: &str) -> (Variant, Position, Sheets, PhaseReport) {
    let cases = parse("serde", text).expect("the case reads");
    let case = &cases[0];
    let variant = load_named(&case.variant).expect("the variant loads");
    let position = initial_position(case, &variant).expect("the position reads");
    let (sheets, _) = sheets(&variant, &case.steps[0].orders).expect("the orders read");
    let report = turn::play(&variant, &position, &sheets).expect("the phase plays");
    (variant, position, sheets, report)
}

fn round_trip<T>(value: &T) -> T
where
    T: serde::Serialize + serde::de::DeserializeOwned,
{
    let json = serde_json::to_string(value).expect("serialises");
    serde_json::from_str(&json).expect("deserialises")
}

/// R2/R3/R4/R5 in one position: stacks, an A/F at sea, a blockade, second moves, a dislodgement
/// with its retreats, a void order and an invalid one; everything comes back equal.
#[test]
fn a_napoleonic_autumn_report_round_trips() {
    let (_, position, sheets, report) = first_step(
        "CASE serde\nVARIANT napoleonic\nPHASE Autumn 1805 Movement\nSTATE\n  England: F(MAO), F(IRI), A/F(NTH)\n  France: F(BoB), 2A(Par)\nLEDGER\n  England: bank 4\nORDERS\n  England: F(MAO) B Bre\n  England: F(IRI) S F(MAO)\n  England: A/F(NTH)-ENG-MAO\n  France: F(BoB)-MAO\n  France: 2A(Par)-Bur\n  France: A(Mar)-Spa\nEND\n",
    );
    assert!(!report.events.is_empty(), "the blockade is reported");
    assert_eq!(round_trip(&position), position);
    assert_eq!(round_trip(&sheets), sheets);
    assert_eq!(round_trip(&report), report);
}

/// DATC 6.D.2: a report with a dislodged unit, its legal retreats and structured reasons.
#[test]
fn a_report_with_a_dislodgement_round_trips() {
    let (variant, _, _, report) = first_step(
        "CASE 6.D.2\nVARIANT standard\nPHASE Spring 1901 Movement\nSTATE\n  Austria: F(ADR), A(Tri), A(Vie)\n  Italy: A(Ven), A(Tyr)\nORDERS\n  Austria: F(ADR) S A(Tri)-Ven\n  Austria: A(Tri)-Ven\n  Austria: A(Vie)-Tyr\n  Italy: A(Ven) H\n  Italy: A(Tyr) S A(Ven)\nEND\n",
    );
    let retreats = &report.dislodged[0].to;
    let names: Vec<String> = retreats.iter().map(|&r| variant.region_name(r)).collect();
    // A(Ven) may not go to Tri (the attacker's origin) nor to occupied Tyr; Apu, Pie, Rom and Tus are
    // free (DATC 6.H: a retreat goes to an empty adjacent space other than the attacker's).
    assert_eq!(names, ["Apu", "Pie", "Rom", "Tus"], "{names:?}");
    assert_eq!(round_trip(&report), report);
}
