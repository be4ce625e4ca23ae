//! `napjudge replay`: a game folder ([`folder`]) played through the judge as it runs for real. A
//! fresh SQLite store; the game created from game.toml, its powers assigned and started at its
//! `start`; every mail through [`napjudge_judge::receive`] (what `napjudge mail receive` calls),
//! in date order, the clock set to its date; before each mail, and after the last, the clock
//! moved to each reminder time, deadline and grace end that comes first, and [`tick`] run (what
//! `napjudge tick` calls) until it has nothing more to do. After each phase the judge processes,
//! its stored report and next position are checked against record.txt's section for it by
//! [`check_step`], the case runner's own check. The result mails go to a folder of `.eml` files
//! through [`napjudge_judge::send`] (what `napjudge outbox send --to-dir` calls).

pub mod dump;
pub mod export;
pub mod folder;
pub mod import;

use chrono::{DateTime, Utc};
use folder::{Folder, FolderError};
use napjudge_cases::file::Section;
use napjudge_cases::run::{check_step, PlayedStep};
use napjudge_engine::position::Position;
use napjudge_engine::turn::PhaseReport;
use napjudge_engine::variant::Variant;
use napjudge_judge::{
    after, tick, Game, GameError, Handled, Judge, MailConfig, MailError, MailKind, NewGame,
    OutboxError, PasswordCost, Retry, Store, StoreError, Target, MAX_SIZE,
};
use std::path::{Path, PathBuf};

/// Why a game couldn't be replayed at all (a difference from the record is no error: it is
/// reported in [`Replayed::differences`]).
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The folder can't be read.
    #[error(transparent)]
    Folder(#[from] FolderError),
    /// The judge refused to set the game up.
    #[error("game.toml: {0}")]
    Game(#[from] GameError),
    /// A mail couldn't be stored.
    #[error(transparent)]
    Mail(#[from] MailError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The result mails couldn't be written.
    #[error(transparent)]
    Outbox(#[from] OutboxError),
    /// A folder couldn't be made or cleared.
    #[error("{path}: {source}")]
    Io {
        /// The folder.
        path: String,
        /// Why.
        source: std::io::Error,
    },
}

/// What the replay of one game did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Replayed {
    /// The game's name.
    pub name: String,
    /// Phases the judge processed.
    pub phases: usize,
    /// Mails read from the folder.
    pub mails_in: usize,
    /// Mails the judge sent (replies, press, results, reminders).
    pub mails_out: usize,
    /// Press mails delivered to players.
    pub press: usize,
    /// Every difference from the record, `GAME PHASE: expected ..., got ...`.
    pub differences: Vec<String>,
    /// Where the result mails are.
    pub outbox: PathBuf,
}

/// Where the replay stands against record.txt.
struct Checker<'a> {
    game: String,
    sections: &'a [Section],
    /// The next section to match.
    next: usize,
    /// Processed phases checked so far.
    checked: usize,
    /// The `seq` of the first phase not yet seen processed.
    seq: i64,
    differences: Vec<String>,
}

impl Checker<'_> {
    /// Checks one processed phase against the record's next section.
    fn phase(&mut self, v: &Variant, before: Position, report: PhaseReport) {
        let played = v.phase_name(report.phase);
        let label = format!("{} {played}", self.game);
        loop {
            let Some(section) = self.sections.get(self.next) else {
                self.differences.push(format!(
                    "{label}: expected no more phases (record.txt ends), got {played} played"
                ));
                return;
            };
            let Some(want) = v.parse_phase(&section.after.text) else {
                self.differences.push(
                    section
                        .after
                        .error(format!("'{}' is not a phase", section.after.text)),
                );
                self.next += 1;
                continue;
            };
            if want == report.phase {
                self.next += 1;
                let step = PlayedStep::from_report(before, report);
                self.differences
                    .extend(check_step(v, &section.step, &step, &label));
                return;
            }
            if want < report.phase {
                self.differences.push(format!(
                    "{} {}: expected {} played, got {played} played in its place",
                    self.game, section.after.text, section.after.text
                ));
                self.next += 1;
                continue;
            }
            self.differences.push(format!(
                "{label}: expected AFTER {} next in record.txt, got {played} played (record.txt \
                 has no section for it)",
                section.after.text
            ));
            return;
        }
    }
}

/// The replay of one game in a judge.
struct Run<'a> {
    j: Judge,
    /// The replay's clock: each mail's date, each deadline reached.
    now: DateTime<Utc>,
    game: Game,
    cfg: MailConfig,
    checker: Checker<'a>,
}

impl Run<'_> {
    /// Checks every phase processed since the last call.
    fn check_new(&mut self) -> Result<(), ReplayError> {
        let rows = self.j.view().phases_from(self.game.id, self.checker.seq)?;
        let mut processed = Vec::new();
        for r in rows {
            // The replay doesn't roll back: phases are processed in `seq` order.
            let Some(report) = r.report.filter(|_| !r.superseded) else {
                break;
            };
            self.checker.seq = r.seq + 1;
            processed.push((r.position, report));
        }
        let checker = &mut self.checker;
        self.j.with_variant(&self.game, |v, _| {
            for (before, report) in processed {
                checker.checked += 1;
                checker.phase(v, before, report);
            }
        })?;
        Ok(())
    }

    /// `tick` at the clock's time until it has nothing more to do (a phase nobody owes orders
    /// in is processed by the tick after the one that made it).
    fn settle(&mut self) -> Result<(), ReplayError> {
        for _ in 0..100 {
            // The same tick as `napjudge tick`'s.
            if tick(&mut self.j, &self.cfg, self.now)?.1.done.is_empty() {
                break;
            }
            self.check_new()?;
        }
        Ok(())
    }

    /// Moves the clock to each reminder time, deadline and grace end of the current phase
    /// before `until` (with none: until the record is played through), ticking at each.
    fn advance(&mut self, until: Option<DateTime<Utc>>) -> Result<(), ReplayError> {
        let p = self.game.periods;
        loop {
            if until.is_none() && self.checker.next >= self.checker.sections.len() {
                return Ok(());
            }
            let Some(cur) = self.j.view().current_phase(self.game.id)? else {
                return Ok(());
            };
            let Some(d) = cur.deadline else {
                return Ok(());
            };
            let now = self.now;
            let next = [
                after(d, -p.remind.secs()).map_err(GameError::from)?,
                d,
                after(d, p.grace.secs()).map_err(GameError::from)?,
            ]
            .into_iter()
            .filter(|t| *t > now && until.is_none_or(|u| *t < u))
            .min();
            let Some(t) = next else {
                return Ok(());
            };
            self.now = t;
            self.settle()?;
        }
    }

    /// The current phase's name, for a message.
    fn phase_now(&mut self) -> Result<String, ReplayError> {
        let cur = self.j.view().current_phase(self.game.id)?;
        Ok(self.j.with_variant(&self.game, |v, _| {
            cur.map_or("(game over)".to_string(), |c| {
                v.phase_name(c.position.phase)
            })
        })?)
    }

    /// Receives one mail; why the judge refused it, if it did.
    fn receive(&mut self, raw: &[u8]) -> Result<Option<String>, ReplayError> {
        let last = self.j.view().last_mail_id()?;
        let handled = napjudge_judge::receive(&mut self.j, &self.cfg, raw, self.now)?;
        let reply = self.j.view().reply_after(last)?;
        Ok(match (handled, reply) {
            (Handled::Answered, Some(body)) => refusal(&body),
            (Handled::Answered, None) => Some("no reply was queued".into()),
            (Handled::Duplicate, _) => Some("answered as a duplicate of an earlier mail".into()),
            (Handled::Ignored(why), _) => Some(format!("ignored: {why}")),
            (Handled::Failed(why), _) => Some(format!("not answered: {why}")),
        })
    }
}

/// Why the judge's reply says a mail was refused, if it does: a reply that doesn't read the
/// mail as a power's (a wrong password, no SIGNON), or any line of it that is an `ERROR`.
pub(crate) fn refusal(body: &str) -> Option<String> {
    let first = body.lines().next().unwrap_or_default().trim().to_string();
    if !first.starts_with("The judge read your mail as") {
        return Some(first);
    }
    body.lines()
        .find(|l| l.contains("ERROR"))
        .map(|l| l.trim().to_string())
}

/// Replays one game folder into the store at `db` (a fresh file, or one without this game),
/// writing the judge's mails into `outbox` (its old `.eml` files are removed first).
/// `progress` is told each phase checked.
pub fn replay_game(
    folder: &Folder,
    db: &Path,
    outbox_dir: &Path,
    progress: &dyn Fn(usize),
) -> Result<Replayed, ReplayError> {
    let s = &folder.settings;
    let toml = folder.dir.join("game.toml").display().to_string();
    let periods = s.periods(&toml)?;
    let start = s.start(&toml)?;
    let mut j = Judge::new(Store::open_scratch(db)?)
        .with_password_cost(PasswordCost::Light)
        .with_address(&s.game.judge);
    let name = s.game.name.clone();
    j.create(
        &NewGame {
            name: name.clone(),
            variant: s.game.variant.clone(),
            gm: s.game.gm.clone(),
            timezone: s.game.timezone.clone(),
            periods,
            wait: s.game.wait,
            options: s.game.options.clone(),
            pictures: s.game.pictures,
            press: Default::default(),
        },
        start,
    )?;
    // `GM` among them sets the password the GM signs on with, as `game assign NAME GM` does.
    for (power, p) in &s.powers {
        j.assign(&name, power, &p.address, Some(&p.password), start)?;
    }
    j.start(&name, start)?;
    let game = j
        .view()
        .game(&name)?
        .ok_or_else(|| GameError::UnknownGame(name.clone()))?;
    let mut run = Run {
        j,
        now: start,
        game,
        cfg: MailConfig {
            judge: s.game.judge.clone(),
            max_size: MAX_SIZE,
        },
        checker: Checker {
            game: name.clone(),
            sections: &folder.record,
            next: 0,
            checked: 0,
            seq: 0,
            differences: Vec::new(),
        },
    };
    run.settle()?;
    for m in &folder.mails {
        run.advance(Some(m.date))?;
        run.now = run.now.max(m.date);
        let refused = run.receive(&m.raw)?;
        let difference = match (refused, m.refused) {
            (Some(why), false) => Some(format!("expected accepted, got refused: {why}")),
            (None, true) => Some(format!(
                "expected refused ({}), got accepted",
                folder::EXPECT_HEADER
            )),
            _ => None,
        };
        if let Some(d) = difference {
            let phase = run.phase_now()?;
            run.checker
                .differences
                .push(format!("{name} {phase}: mail {}: {d}", m.name));
        }
        run.settle()?;
        progress(run.checker.next);
    }
    run.advance(None)?;
    progress(run.checker.next);
    let checker = &mut run.checker;
    for section in &checker.sections[checker.next.min(checker.sections.len())..] {
        checker.differences.push(format!(
            "{name} {}: expected {} played, got none (the replay ended before it)",
            section.after.text, section.after.text
        ));
    }
    clear_eml(outbox_dir)?;
    let sent = run.j.send_outbox(
        &Target::Dir(outbox_dir.to_path_buf()),
        &s.game.judge,
        Retry::from_config(&Default::default()),
        run.now,
    )?;
    let press = run.j.view().mail_count(run.game.id, MailKind::Press)?;
    for p in &sent.problems {
        run.checker
            .differences
            .push(format!("{name}: a result mail was not written: {p}"));
    }
    Ok(Replayed {
        name,
        phases: run.checker.checked,
        mails_in: folder.mails.len(),
        mails_out: sent.sent,
        press: usize::try_from(press).unwrap_or_default(),
        differences: run.checker.differences,
        outbox: outbox_dir.to_path_buf(),
    })
}

/// Removes the `.eml` files a former replay left in `dir`.
fn clear_eml(dir: &Path) -> Result<(), ReplayError> {
    let io = |source| ReplayError::Io {
        path: dir.display().to_string(),
        source,
    };
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io(e)),
    };
    for e in entries {
        let path = e.map_err(io)?.path();
        if path.extension().is_some_and(|x| x == "eml") {
            std::fs::remove_file(&path).map_err(io)?;
        }
    }
    Ok(())
}
