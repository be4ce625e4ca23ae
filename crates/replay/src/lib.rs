//! `napjudge replay`: a game folder ([`folder`]) played through the judge as it runs for real. A
//! fresh SQLite store; the game created from game.toml, its powers assigned and started at its
//! `start`; every mail through [`napjudge_judge::receive`] (what `napjudge mail receive` calls),
//! in date order, the clock set to its date; before each mail, and after the last, the clock
//! moved to each reminder time, deadline and grace end that comes first, and [`tick`] run (what
//! `napjudge tick` calls) until it has nothing more to do. After each phase the judge processes,
//! its stored report and next position are checked against record.txt's section for it by
//! [`check_step`], the case runner's own check (a phase a rollback sets aside is unchecked).
//! The GM's shell steps (`[[shell]]`) run at their times through the service calls their
//! commands make; a folder that lists `ticks` is ticked at those times only. The judge draws
//! public passwords and codes, those an exported folder's mails use. The result mails go to a
//! folder of `.eml` files through [`napjudge_judge::send`] (what `napjudge outbox send
//! --to-dir` calls).

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
    after, tick, Address, Author, Drawn, Game, GameError, GmEnd, Handled, Judge, MailConfig,
    MailError, MailKind, NewGame, OutboxError, PasswordCost, Retry, Setting, Store, StoreError,
    Target, MAX_SIZE,
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
    /// Each phase checked, in order: its `seq`, the section index it was matched from, and the
    /// differences it added (`differences[from..to]`), undone when a rollback sets it aside.
    done: Vec<(i64, usize, std::ops::Range<usize>)>,
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

/// What the replay does next, in time order.
enum Event<'a> {
    /// A GM's shell step.
    Shell(&'a folder::Step),
    /// A mail in.
    Mail(&'a folder::MailFile),
    /// A recorded tick.
    Tick(DateTime<Utc>),
}

impl Event<'_> {
    fn at(&self) -> DateTime<Utc> {
        match self {
            Event::Shell(s) => s.at,
            Event::Mail(m) => m.date,
            Event::Tick(t) => *t,
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
    /// Checks every phase processed since the last call. A phase checked that a rollback has
    /// since set aside is unchecked: its section is matched again by the phase played in its
    /// place, and its differences are dropped (record.txt holds the phases that stand).
    fn check_new(&mut self) -> Result<(), ReplayError> {
        let last = self.checker.done.last().map(|d| d.0);
        let rows = self
            .j
            .view()
            .phases_from(self.game.id, last.unwrap_or(self.checker.seq))?;
        if rows
            .first()
            .is_some_and(|r| Some(r.seq) == last && r.superseded)
        {
            let aside: std::collections::HashSet<i64> = self
                .j
                .view()
                .phases(self.game.id)?
                .into_iter()
                .filter(|r| r.superseded)
                .map(|r| r.seq)
                .collect();
            let c = &mut self.checker;
            while let Some((seq, next, added)) = c.done.last().cloned() {
                if !aside.contains(&seq) {
                    break;
                }
                c.done.pop();
                c.next = next;
                c.differences.drain(added);
            }
        }
        let mut processed = Vec::new();
        let from = self.checker.seq;
        for r in rows.into_iter().filter(|r| r.seq >= from) {
            if r.superseded {
                self.checker.seq = r.seq + 1;
                continue;
            }
            let Some(report) = r.report else {
                break;
            };
            self.checker.seq = r.seq + 1;
            processed.push((r.seq, r.position, report));
        }
        let checker = &mut self.checker;
        self.j.with_variant(&self.game, |v, _| {
            for (seq, before, report) in processed {
                checker.checked += 1;
                let (next, from) = (checker.next, checker.differences.len());
                checker.phase(v, before, report);
                checker
                    .done
                    .push((seq, next, from..checker.differences.len()));
            }
        })?;
        Ok(())
    }

    /// Runs a GM's shell step through the service call its `napjudge` command makes; why the
    /// judge refused it, if it did.
    fn shell(
        &mut self,
        args: &[String],
        input: Option<&str>,
    ) -> Result<Option<String>, ReplayError> {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let (j, now) = (&mut self.j, self.now);
        let e = |e: &dyn std::fmt::Display| Some(e.to_string());
        let refused = match a.as_slice() {
            // An input on a step that reads none would be dropped unseen: refused, nothing run.
            [_, cmd, ..] if input.is_some() && *cmd != "orders" => {
                e(&"only a `game orders` step reads an input: remove `input` or fix `args`")
            }
            ["game", "pause", n] => j.pause(n, now).err().and_then(|x| e(&x)),
            ["game", "resume", n] => j.resume(n, now).err().and_then(|x| e(&x)),
            ["game", "replace", n, p, to] => j.replace(n, p, to, now).err().and_then(|x| e(&x)),
            ["game", "code", n, p] => j.issue_code(n, p, None, now).err().and_then(|x| e(&x)),
            ["game", "code", n, p, "--mail", to] => {
                j.issue_code(n, p, Some(to), now).err().and_then(|x| e(&x))
            }
            ["game", "rollback", n, phase] => {
                j.rollback(n, phase, None, now).err().and_then(|x| e(&x))
            }
            ["game", "rollback", n, phase, "--reason", r] => {
                j.rollback(n, phase, Some(r), now).err().and_then(|x| e(&x))
            }
            ["game", "deadline", n, t] => j.set_deadline(n, t, now).err().and_then(|x| e(&x)),
            ["game", "set", n, k, v] => match Setting::parse(k, v) {
                Ok(setting) => j.set(n, &setting, now).err().and_then(|x| e(&x)),
                Err(x) => e(&x),
            },
            ["game", "process", n] => j.process_due(n, None, false, now).err().and_then(|x| e(&x)),
            ["game", "process", n, "--now-anyway"] => {
                j.process_due(n, None, true, now).err().and_then(|x| e(&x))
            }
            ["game", "control", n, minor, major] => {
                j.control(n, minor, major, now).err().and_then(|x| e(&x))
            }
            ["game", "observe", n, a] => j
                .observe(n, &Address::new(a), now)
                .err()
                .and_then(|x| e(&x)),
            ["game", "observe", n, a, "--stop"] => j
                .unobserve(n, &Address::new(a), now)
                .err()
                .and_then(|x| e(&x)),
            ["game", "orders", n, p, by @ ..] => {
                let by = match by {
                    [] => Some(Author::Gm),
                    ["--as-player"] => Some(Author::Player),
                    _ => None,
                };
                match (by, input) {
                    (Some(by), Some(text)) => {
                        j.orders(n, p, text, by, now).err().and_then(|x| e(&x))
                    }
                    (None, _) => e(&"`game orders` takes --as-player only"),
                    (_, None) => e(&"`game orders` needs its orders as the step's input"),
                }
            }
            ["game", "end", n, flags @ ..] => match gm_end(flags) {
                Some(how) => j.end(n, &how, now).err().and_then(|x| e(&x)),
                None => e(&"`game end` takes --draw, --winner and --reason, each once"),
            },
            _ => Some(
                "the replay runs `game pause`, `resume`, `replace`, `code`, `rollback`, \
                 `deadline`, `set`, `process`, `control`, `observe`, `end` and `orders` only"
                    .into(),
            ),
        };
        // A setting may have changed the periods the clock goes by.
        if let Some(g) = self.j.view().game(&self.game.name)? {
            self.game = g;
        }
        Ok(refused)
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

/// A shell step's `game end` flags (as the binary records them: `--draw A,B`, `--winner P`,
/// `--reason TEXT`) as the GM's ending; none when a flag is unknown, given twice or has no value.
fn gm_end(flags: &[&str]) -> Option<GmEnd> {
    let mut how = GmEnd {
        draw: Vec::new(),
        winner: None,
        reason: String::new(),
    };
    let (mut draw, mut reason) = (false, false);
    for pair in flags.chunks(2) {
        match *pair {
            ["--draw", v] if !draw => {
                draw = true;
                how.draw = v.split(',').map(str::to_string).collect();
            }
            ["--winner", v] if how.winner.is_none() => how.winner = Some(v.to_string()),
            ["--reason", v] if !reason => {
                reason = true;
                how.reason = v.to_string();
            }
            _ => return None,
        }
    }
    Some(how)
}

/// Why the judge's reply says a mail was refused, if it does: a reply that doesn't read the
/// mail as a power's (a wrong password, no SIGNON) nor as commands that need none (TAKEOVER,
/// OBSERVE: "Here is what you asked for."), or any line of it that is an `ERROR`.
pub(crate) fn refusal(body: &str) -> Option<String> {
    let first = body.lines().next().unwrap_or_default().trim().to_string();
    if !first.starts_with("The judge read your mail as") && first != "Here is what you asked for." {
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
    let settings = s.game_settings(&toml)?;
    let steps = s.shell_steps(&toml)?;
    // Public draws: the passwords and codes the judge makes are those an export wrote.
    let mut j = Judge::new(Store::open_scratch(db)?)
        .with_password_cost(PasswordCost::Light)
        .with_drawn(Drawn::Public)
        .with_address(&s.game.judge);
    let name = s.game.name.clone();
    j.create_with(
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
        &settings,
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
            done: Vec::new(),
            differences: Vec::new(),
        },
    };
    run.settle()?;
    // The GM's shell steps among the mails by time, a step before a mail of the same second;
    // the recorded ticks, when listed, after both.
    let ticks = s.ticks(&toml)?;
    let mut events: Vec<Event> = steps
        .iter()
        .map(Event::Shell)
        .chain(folder.mails.iter().map(Event::Mail))
        .chain(ticks.iter().flatten().map(|&t| Event::Tick(t)))
        .collect();
    events.sort_by_key(Event::at);
    for event in events {
        let at = event.at();
        if ticks.is_none() {
            run.advance(Some(at))?;
        }
        run.now = run.now.max(at);
        let m = match event {
            Event::Tick(_) => {
                run.settle()?;
                progress(run.checker.next);
                continue;
            }
            Event::Shell(st) => {
                if let Some(why) = run.shell(&st.args, st.input.as_deref())? {
                    let phase = run.phase_now()?;
                    run.checker.differences.push(format!(
                        "{name} {phase}: shell step `napjudge {}`: refused: {why}",
                        st.args.join(" ")
                    ));
                }
                // What the step did, checked (`game process` plays a phase).
                run.check_new()?;
                if ticks.is_none() {
                    run.settle()?;
                }
                progress(run.checker.next);
                continue;
            }
            Event::Mail(m) => m,
        };
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
        if ticks.is_none() {
            run.settle()?;
        } else {
            // What the mail did, checked (a GM's PROCESS, a draw voted).
            run.check_new()?;
        }
        progress(run.checker.next);
    }
    if ticks.is_none() {
        run.advance(None)?;
    }
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
