//! Issue 11: the 20 recorded webDiplomacy games (`fixtures/records/webdiplomacy/`, MIT, see
//! `LICENSE-cicero-games` there) replayed phase by phase through `turn::play` with the
//! `webdiplomacy` edition: each phase from the recorded position and orders must give the next
//! recorded phase's position.

use napjudge_cases::mila::{self, RecordedPhase};
use napjudge_engine::position::Position;
use napjudge_engine::turn::{play, Sheets};
use napjudge_engine::variant::{load_named, Edition, PhaseKind, Variant};
use std::path::PathBuf;

/// Plays every phase of one record; returns each difference from the record, naming the phase.
fn replay(variant: &Variant, phases: &[RecordedPhase]) -> Vec<String> {
    let mut diffs = Vec::new();
    // The position after the last phase played, as the judge has it: a retreat phase starts from
    // it, since the record doesn't say where the dislodging units came from.
    let mut judged: Option<Position> = None;
    for pair in phases.windows(2) {
        let (now, next) = (&pair[0], &pair[1]);
        let Some(phase) = now.phase else {
            diffs.push(format!("{}: phase with no name to play", now.name));
            break;
        };
        let start = match (phase.kind, judged.take()) {
            (PhaseKind::Retreat, Some(p)) if p.phase == phase => p,
            _ => now.state.position(variant, phase),
        };
        let sheets = Sheets {
            gm: Vec::new(),
            orders: now.orders.clone(),
        };
        let mut position = match play(variant, &start, &sheets) {
            Ok(r) => {
                // Every recorded order must be read and legal here: a rejected one would hold
                // its unit and could hide a difference.
                for o in r.powers.iter().flat_map(|p| &p.orders) {
                    if let Err(e) = &o.result {
                        diffs.push(format!(
                            "{}: order '{}' rejected: {e}",
                            now.name, o.order.text
                        ));
                    }
                }
                r.next
            }
            Err(e) => {
                diffs.push(format!("{}: {e}", now.name));
                continue;
            }
        };
        // The record leaves out phases where nobody had anything to do (a Winter with no
        // adjustments, a retreat phase with no retreat possible): play them with no orders.
        while let Some(want) = next.phase {
            if position.phase >= want {
                break;
            }
            match play(variant, &position, &Sheets::default()) {
                Ok(r) => position = r.next,
                Err(e) => {
                    diffs.push(format!("{} (skipped phase): {e}", now.name));
                    break;
                }
            }
        }
        if let Some(want) = next.phase {
            if position.phase != want {
                diffs.push(format!(
                    "{}: the judge goes on to {:?}, the record to {}",
                    now.name, position.phase, next.name
                ));
            }
        }
        // Centres change hands after the Autumn; the record's count is in its Winter state.
        let centres = matches!(next.phase.map(|p| p.kind), Some(PhaseKind::Adjustment))
            || phase.kind == PhaseKind::Adjustment;
        for d in next.state.differences(variant, &position, centres) {
            diffs.push(format!("{} -> {}: {d}", now.name, next.name));
        }
        judged = Some(position);
    }
    diffs
}

/// Replays all 20 records under `edition` (webDiplomacy's or the DATC's): the phases played and every
/// difference, naming the file and phase.
fn replay_all(edition: Edition) -> (usize, Vec<String>) {
    let mut variant = load_named("standard").expect("the standard board loads");
    variant.rules.edition = edition;
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/records/webdiplomacy");
    let files = crate::tree::files(&dir, Some("json"));
    assert_eq!(files.len(), 20, "the 20 recorded games");
    let mut report = Vec::new();
    let mut phases = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a record reads");
        let game = mila::read(&variant, &text).expect("a record parses");
        phases += game.phases.len().saturating_sub(1);
        for d in replay(&variant, &game.phases) {
            report.push(format!(
                "{}: {d}",
                file.file_name().unwrap_or_default().to_string_lossy()
            ));
        }
    }
    (phases, report)
}

/// Every phase of all 20 games replays exactly under the `webdiplomacy` edition: 722 phases
/// played (742 recorded states, each game's last only compared).
#[test]
fn the_20_webdiplomacy_games_replay_exactly_under_the_webdiplomacy_edition() {
    let (phases, report) = replay_all(Edition::webdiplomacy());
    assert_eq!(phases, 722, "phases played");
    assert!(
        report.is_empty(),
        "{} differences:\n{}",
        report.len(),
        report.join("\n")
    );
}

/// Under the DATC preferences (the default edition) the records differ, and only where the
/// recording judge removes units in civil disorder from the home centres (issue 11): the Winter
/// 1908 of ten games, where the powers sent no removals.
#[test]
fn under_the_datc_preferences_only_civil_disorder_removals_differ() {
    let (_, report) = replay_all(Edition::datc());
    assert!(!report.is_empty(), "the DATC edition must differ somewhere");
    let other: Vec<&String> = report
        .iter()
        .filter(|d| !d.contains(": W1908A -> S1909M: units: "))
        .collect();
    assert!(other.is_empty(), "differences elsewhere: {other:?}");
    let mut games: Vec<&str> = report.iter().filter_map(|d| d.split(':').next()).collect();
    games.dedup();
    assert_eq!(games.len(), 10, "games that differ: {games:?}");
}
