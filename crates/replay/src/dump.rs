//! `napjudge game export NAME --out DIR`: a game in the store written back as its game folder
//! (docs/games.md), for any variant, so that `napjudge replay DIR` plays it again: game.toml
//! from its settings and first players, every mail the judge received for it in the order
//! received (the stored copies), and record.txt with the result of every phase it played.
//!
//! The secrets: the store keeps a mail's passwords and codes masked (`SIGNON France g1 ******`),
//! and the players' passwords only as hashes. The folder gives each power (and the GM) a
//! replacement password, `power-GAME` as `game import` does, and writes it into every SIGNON of
//! a mail the judge accepted for that power; a SIGNON the judge refused gets a password that is
//! none of them. A `SET PASSWORD` the judge accepted gives the power its next replacement
//! (`power-GAME-2`), which its later SIGNONs use. A password or code the judge drew (a seat
//! given by `game replace` or REPLACE, taken over with a code; a takeover code) is written as the
//! replay's judge draws it ([`napjudge_judge::public_secret`]: from the role, the game and the
//! time, all in the store).
//!
//! Each mail's `Date:` is the time the judge received it, so the replay gives it to the judge
//! when the judge got it; a mail the judge refused (its reply, found by the Message-ID, reads as
//! the replay reads a refusal; a duplicate; an ignored mail) is marked `X-Napjudge-Expect:
//! refused`. What the GM did at the shell (`game replace`, `game resume`, `game process`,
//! `game end`, ...: the commands the binary records) goes into game.toml's `[[shell]]`, with the settings game.toml's `[game]`
//! has no key for in `[settings]`, and `ticks`: when the judge processed each phase, the times
//! the replay then ticks at (the recorded judge may have ticked later than a mail that made a
//! phase due).

use crate::import::Imported;
use crate::refusal;
use chrono::{DateTime, Utc};
use napjudge_cases::write::{force_lines, owner_lines};
use napjudge_engine::position::{Force, Position};
use napjudge_engine::variant::{ProvinceId, Variant};
use napjudge_judge::{
    board, game_settings, public_secret, ChangeKind, Game, GameError, GameMail, InboxState,
    SeatChange, Secret, StoreError, View, OBSERVER,
};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::PathBuf;

/// Why a game can't be written as a folder.
#[derive(Debug, thiserror::Error)]
pub enum DumpError {
    /// The store can't be read.
    #[error("{0}")]
    Store(#[from] StoreError),
    /// The game's board doesn't load, or its name can't name a folder.
    #[error("{0}")]
    Game(#[from] GameError),
    /// No game of that name.
    #[error("there is no game '{0}' (`napjudge game list` shows the games)")]
    UnknownGame(String),
    /// Nothing to replay yet.
    #[error(
        "game '{0}' has no phase processed yet: a game folder's record.txt expects the result \
         of each phase played, so there is nothing to export (start the game and process a \
         phase first); nothing written"
    )]
    NoPhases(String),
}

/// The password a refused SIGNON is given: none of the replacements (they end in the game's
/// name).
const WRONG: &str = "not-the-password";

/// The game called `name` as its folder's files.
pub fn folder(view: View, name: &str) -> Result<Imported, DumpError> {
    napjudge_judge::check_name(name)?;
    let g = view
        .game(name)?
        .ok_or_else(|| DumpError::UnknownGame(name.to_string()))?;
    let v = board(&g)?;
    let rows: Vec<_> = view
        .phases(g.id)?
        .into_iter()
        .filter(|r| !r.superseded)
        .collect();
    let Some(start) = rows.first().and_then(|r| r.started) else {
        return Err(DumpError::NoPhases(g.name));
    };
    let mut record = format!(
        "# The result of every phase of {} the judge played, written by `napjudge game export`:\n\
         # each phase's position after it, as the judge stored it. Blocks follow \
         docs/case-format.md.\n",
        g.name
    );
    let mut played = 0;
    for r in &rows {
        if let Some(report) = &r.report {
            played += 1;
            section(&v, &mut record, r.position.phase, &report.next);
        }
    }
    if played == 0 {
        return Err(DumpError::NoPhases(g.name));
    }
    let seats = first_players(&view, &g)?;
    let mut passwords: BTreeMap<String, (String, u32)> = seats
        .keys()
        .map(|role| (role.clone(), (replacement(role, &g.name, 1), 1)))
        .collect();
    let mut files = BTreeMap::new();
    // When the judge processed each phase (set aside by a rollback or not): the replay ticks
    // then, and only then, as the recorded judge did.
    let mut ticks: Vec<DateTime<Utc>> = view
        .phases(g.id)?
        .iter()
        .filter_map(|r| r.processed_at)
        .collect();
    ticks.sort();
    ticks.dedup();
    let mut toml = settings(&g, &v, start, &ticks, &seats, &passwords);
    let extra: Vec<String> = game_settings(view, &g)?
        .iter()
        .map(ToString::to_string)
        .filter(|s| !IN_GAME.contains(&s.split(' ').next().unwrap_or_default()))
        .collect();
    toml.push_str("\n[settings]\n");
    for s in extra {
        if let Some((k, val)) = s.split_once(' ') {
            let _ = writeln!(toml, "{k} = {}", quoted(val));
        }
    }
    for step in view.shell_steps(g.id)? {
        if step.at < start {
            // Before the game began: its settings are game.toml's.
            continue;
        }
        let args: Vec<String> = step.args.iter().map(|a| quoted(a)).collect();
        let _ = write!(
            toml,
            "\n[[shell]]\nat = {}\nargs = [{}]\n",
            quoted(&step.at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
            args.join(", ")
        );
        if let Some(input) = &step.input {
            let _ = writeln!(toml, "input = {}", quoted(input));
        }
    }
    files.insert(PathBuf::from("game.toml"), toml.into_bytes());
    let drawn = Drawn {
        game: g.name.clone(),
        seats: view
            .seat_changes(g.id)?
            .into_iter()
            .filter(|c| matches!(c.kind, ChangeKind::Replaced | ChangeKind::TookOver))
            .collect(),
        codes: view.codes_issued(g.id)?,
        observers: view.observe_confirmed(g.id)?,
    };
    let mut seated = 0;
    let mails = view.game_mails(g.id, &g.name)?;
    let ours = mails
        .iter()
        .filter(|m| !m.untied || names_game(&m.raw, &g.name));
    for (n, m) in ours.enumerate() {
        // The seats given with a password the judge drew, up to the mail's time.
        for c in drawn.seats[seated..]
            .iter()
            .take_while(|c| c.at <= m.received)
        {
            let k = passwords.get(&c.power).map_or(1, |p| p.1);
            let p = public_secret(Secret::Password, &c.power, &g.name, c.at);
            passwords.insert(c.power.clone(), (p, k));
            seated += 1;
        }
        let who = m
            .role
            .as_deref()
            .map_or_else(|| "mail".to_string(), str::to_ascii_lowercase);
        let file = PathBuf::from(format!("mail/{:04}-{who}.eml", n + 1));
        files.insert(file, mail(m, &drawn, &mut passwords));
    }
    files.insert(PathBuf::from("record.txt"), record.into_bytes());
    Ok(Imported {
        name: g.name,
        files,
    })
}

/// The `[game]` keys of game.toml among `game set`'s: the rest go into `[settings]`.
const IN_GAME: &[&str] = &[
    "movement", "retreat", "winter", "grace", "remind", "zone", "wait", "pictures",
];

/// What the replay's judge draws ([`napjudge_judge::Drawn::Public`]) comes from these.
struct Drawn {
    game: String,
    /// The seats given with a drawn password, oldest first.
    seats: Vec<SeatChange>,
    /// Each takeover code's power and when it was issued, oldest first.
    codes: Vec<(String, DateTime<Utc>)>,
    /// Each confirmed request to observe: when it was asked, and when confirmed.
    observers: Vec<(DateTime<Utc>, DateTime<Utc>)>,
}

impl Drawn {
    /// The code the replay's judge drew for `role`'s latest code before `at`.
    fn code(&self, role: &str, at: DateTime<Utc>) -> Option<String> {
        self.codes
            .iter()
            .rev()
            .find(|(power, issued)| power == role && *issued <= at)
            .map(|(_, issued)| public_secret(Secret::Code, role, &self.game, *issued))
    }
}

/// A role's `k`th replacement password: `france-GAME`, then `france-GAME-2`.
fn replacement(role: &str, game: &str, k: u32) -> String {
    let base = format!("{}-{game}", role.to_ascii_lowercase());
    if k == 1 {
        base
    } else {
        format!("{base}-{k}")
    }
}

/// Each role's address when the game began: the player before the first change of the seat,
/// else the player now (a seat never changed).
fn first_players(view: &View, g: &Game) -> Result<BTreeMap<String, String>, StoreError> {
    let mut seats: BTreeMap<String, String> = BTreeMap::new();
    for c in view.seat_changes(g.id)? {
        if !seats.contains_key(&c.power) {
            if let Some(old) = c.old {
                seats.insert(c.power.clone(), old.as_str().to_string());
            } else {
                // Open when the game began: nobody to seat.
                seats.insert(c.power.clone(), String::new());
            }
        }
    }
    for p in view.players(g.id)? {
        let role = match p.role.power() {
            Some(power) => power.to_string(),
            None => "GM".to_string(),
        };
        seats
            .entry(role)
            .or_insert_with(|| p.address.as_str().to_string());
    }
    seats.retain(|_, address| !address.is_empty());
    Ok(seats)
}

/// One record.txt section: the phase played and the position after it.
fn section(v: &Variant, out: &mut String, phase: napjudge_engine::variant::Phase, next: &Position) {
    let _ = writeln!(out, "AFTER {}", v.phase_name(phase));
    let forces: Vec<(ProvinceId, Force)> = next.forces().map(|(p, f)| (p, *f)).collect();
    out.push_str("POSTSTATE\n");
    out.push_str(&force_lines(v, &forces));
    let dislodged: Vec<(ProvinceId, Force)> = next
        .dislodged
        .iter()
        .map(|d| (d.province, d.force))
        .collect();
    out.push_str("POSTDISLODGED\n");
    out.push_str(&force_lines(v, &dislodged));
    out.push_str("POSTOWNERS\n");
    out.push_str(&owner_lines(v, &next.owners));
    if !next.ledgers.winners.is_empty() {
        let names: Vec<&str> = next
            .ledgers
            .winners
            .iter()
            .map(|&p| v.power(p).name.as_str())
            .collect();
        let _ = writeln!(out, "POSTWINNERS {}", names.join(", "));
    }
    let _ = writeln!(out, "POSTPHASE {}", v.phase_name(next.phase));
    out.push_str("END\n");
}

/// A TOML string: JSON's escapes are TOML's.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

fn settings(
    g: &Game,
    v: &Variant,
    start: DateTime<Utc>,
    ticks: &[DateTime<Utc>],
    seats: &BTreeMap<String, String>,
    passwords: &BTreeMap<String, (String, u32)>,
) -> String {
    let mut out = String::from("[game]\n");
    let _ = writeln!(out, "name = {}", quoted(&g.name));
    let _ = writeln!(out, "variant = {}", quoted(&v.name));
    let opts: Vec<String> = g.options.iter().map(|o| quoted(o)).collect();
    let _ = writeln!(out, "options = [{}]", opts.join(", "));
    let _ = writeln!(out, "gm = {}", quoted(g.gm.as_str()));
    let _ = writeln!(out, "timezone = {}", quoted(&g.timezone));
    let _ = writeln!(
        out,
        "start = {}",
        quoted(&start.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
    );
    let p = &g.periods;
    for (key, period) in [
        ("movement", p.movement),
        ("retreat", p.retreat),
        ("winter", p.winter),
        ("grace", p.grace),
        ("remind", p.remind),
    ] {
        let _ = writeln!(out, "{key} = {}", quoted(&period.to_string()));
    }
    let _ = writeln!(out, "wait = {}", g.wait);
    let _ = writeln!(out, "pictures = {}", g.pictures);
    let ticks: Vec<String> = ticks
        .iter()
        .map(|t| quoted(&t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)))
        .collect();
    let _ = writeln!(out, "ticks = [{}]", ticks.join(", "));
    let _ = writeln!(
        out,
        "source = {}",
        quoted(&format!(
            "game {} exported by napjudge game export: the passwords are replacements",
            g.name
        ))
    );
    for (role, address) in seats {
        let _ = writeln!(out, "\n[powers.{role}]");
        let _ = writeln!(out, "address = {}", quoted(address));
        let password = passwords.get(role).map_or(WRONG, |(p, _)| p.as_str());
        let _ = writeln!(out, "password = {}", quoted(password));
    }
    out
}

/// A stored mail as the folder's file: its `Date:` the time received, marked when the judge
/// refused it, its masked passwords replaced (`passwords` moves on at an accepted
/// `SET PASSWORD`).
fn mail(m: &GameMail, drawn: &Drawn, passwords: &mut BTreeMap<String, (String, u32)>) -> Vec<u8> {
    let refused = match m.state {
        InboxState::Duplicate | InboxState::Ignored => true,
        _ => m.reply.as_deref().is_some_and(|r| refusal(r).is_some()),
    };
    let split = find(&m.raw, b"\r\n\r\n")
        .map(|i| i + 4)
        .or_else(|| find(&m.raw, b"\n\n").map(|i| i + 2))
        .unwrap_or(m.raw.len());
    let (head, body) = m.raw.split_at(split);
    let mut out = Vec::with_capacity(m.raw.len() + 64);
    let head = String::from_utf8_lossy(head);
    let mut skip = false;
    for line in head.split_inclusive('\n') {
        // A folded header's next lines start with a blank.
        let continued = line.starts_with([' ', '\t']);
        if !continued {
            let lower = line.to_ascii_lowercase();
            skip = lower.starts_with("date:") || lower.starts_with("x-napjudge-expect:");
            if line.trim().is_empty() {
                out.extend_from_slice(format!("Date: {}\r\n", m.received.to_rfc2822()).as_bytes());
                if refused {
                    out.extend_from_slice(b"X-Napjudge-Expect: refused\r\n");
                }
            }
        }
        if !skip {
            out.extend_from_slice(line.as_bytes());
        }
    }
    if split == m.raw.len() {
        // No body: the headers' end was the message's.
        out.extend_from_slice(format!("Date: {}\r\n\r\n", m.received.to_rfc2822()).as_bytes());
    }
    match std::str::from_utf8(body) {
        Ok(text) if text.contains(MASK) => {
            out.extend_from_slice(unmask(text, drawn, m, passwords).as_bytes());
        }
        _ => out.extend_from_slice(body),
    }
    out
}

/// What the store shows in place of a password (`napjudge_judge::mask_passwords`).
const MASK: &str = "******";

/// The body's masked passwords replaced: a SIGNON to this game in a mail the judge accepted as
/// a role's gets the role's replacement, any other the wrong one; an accepted SET PASSWORD the
/// role's next one; an accepted TAKEOVER the code the replay's judge draws.
fn unmask(
    text: &str,
    drawn: &Drawn,
    m: &GameMail,
    passwords: &mut BTreeMap<String, (String, u32)>,
) -> String {
    let (game, role) = (drawn.game.as_str(), m.role.as_deref());
    let mut out = String::with_capacity(text.len());
    let mut next: Option<(String, u32)> = None;
    for line in text.split_inclusive('\n') {
        let words: Vec<&str> = line.split_whitespace().collect();
        let first = |w: &[&str]| w.iter().position(|x| !x.chars().all(|c| c == '>'));
        let at = first(&words).unwrap_or(0);
        let w = &words[at..];
        let upper = |k: usize| w.get(k).map(|s| s.to_ascii_uppercase()).unwrap_or_default();
        let current = role.and_then(|r| passwords.get(r));
        let replaced = match (upper(0).as_str(), upper(1).as_str()) {
            ("SIGNON", _) if w.get(3) == Some(&MASK) => {
                // The judge accepted the mail's SIGNON to this game as `role`, however the power
                // was written (`france`, an alias).
                let ours = role.is_some() && upper(2) == game.to_ascii_uppercase();
                Some(match (ours, current) {
                    (true, Some((p, _))) => p.clone(),
                    _ => WRONG.to_string(),
                })
            }
            ("TAKEOVER", _) if w.get(3) == Some(&MASK) => {
                // Accepted: the seat was taken over when the judge got the mail (the mail is
                // tied to no role: the sender had none yet).
                let ours = upper(2) == game.to_ascii_uppercase();
                let took = drawn.seats.iter().find(|c| {
                    ours && c.kind == ChangeKind::TookOver
                        && c.at == m.received
                        && c.power.eq_ignore_ascii_case(w[1])
                });
                Some(
                    took.and_then(|c| drawn.code(&c.power, m.received))
                        .unwrap_or_else(|| WRONG.to_string()),
                )
            }
            ("CONFIRM", "OBSERVE") if w.get(3) == Some(&MASK) => {
                // Accepted: the request was confirmed when the judge got the mail.
                let ours = upper(2) == game.to_ascii_uppercase();
                let asked = drawn
                    .observers
                    .iter()
                    .find(|(_, used)| ours && *used == m.received);
                Some(asked.map_or_else(
                    || WRONG.to_string(),
                    |(asked, _)| public_secret(Secret::Token, OBSERVER, game, *asked),
                ))
            }
            ("SET", "PASSWORD") if w.get(2) == Some(&MASK) => match (role, current) {
                (Some(r), Some((_, k))) => {
                    let k = k + 1;
                    let p = replacement(r, game, k);
                    next = Some((p.clone(), k));
                    Some(p)
                }
                _ => Some(WRONG.to_string()),
            },
            _ => None,
        };
        match replaced.and_then(|p| line.rfind(MASK).map(|i| (i, p))) {
            Some((i, p)) => {
                out.push_str(&line[..i]);
                out.push_str(&p);
                out.push_str(&line[i + MASK.len()..]);
            }
            None => out.push_str(line),
        }
    }
    if let (Some(r), Some(n)) = (role, next) {
        passwords.insert(r.to_string(), n);
    }
    out
}

/// Whether a mail has a line `SIGNON POWER GAME ...`, `TAKEOVER POWER GAME ...`, `OBSERVE GAME`
/// or `CONFIRM OBSERVE GAME ...` for the game `game`: a mail the judge answered without tying it
/// to a game, such as one with a wrong password, or an observer's.
fn names_game(raw: &[u8], game: &str) -> bool {
    String::from_utf8_lossy(raw).lines().any(|l| {
        let w: Vec<&str> = l
            .trim_start_matches(|c: char| c == '>' || c.is_whitespace())
            .split_whitespace()
            .collect();
        let at = match w.first().map(|s| s.to_ascii_uppercase()).as_deref() {
            Some("SIGNON" | "TAKEOVER" | "CONFIRM") => 2,
            Some("OBSERVE") => 1,
            _ => return false,
        };
        w.get(at).is_some_and(|g| g.eq_ignore_ascii_case(game))
    })
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}
