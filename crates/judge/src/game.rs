//! The judge's service: the GM's commands and the clock's `tick`, each one transaction on the
//! [`Store`]. The engine is reached only through [`turn`]: `check` for orders, `play` for a phase,
//! `owing` for who owes orders.

use crate::clock::{self, Clock, ClockError};
use crate::render::{self, Context, PhaseView, RenderError};
use crate::store::{self, Game, GameState, NewMail, Periods, PhaseRow, Store, StoreError};
use argon2::password_hash::PasswordHasher;
use chrono::{DateTime, Utc};
use napjudge_engine::order::{OrderKind, Place};
use napjudge_engine::outcome::{Outcome, Reason, Refusal};
use napjudge_engine::position::{LedgerError, Position};
use napjudge_engine::turn::{self, OrderError, PhaseReport, Sheets, TurnError};
use napjudge_engine::variant::{
    self, LoadError, PhaseKind, PowerId, PowerKind, RuleOption, Variant,
};
use napjudge_engine::winter::GmCommand;
use napjudge_picture as picture;
use rusqlite::{Connection, TransactionBehavior};
use std::collections::{BTreeMap, HashMap};

/// Why a GM command or a tick can't be done. Each names what to fix.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// SQLite failed outside the store's own calls (a transaction).
    #[error("database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A time, period or zone that can't be read.
    #[error(transparent)]
    Clock(#[from] ClockError),
    /// The game's variant doesn't load.
    #[error("variant: {0}")]
    Variant(#[from] LoadError),
    /// No game of that name.
    #[error("no game called '{0}' (`napjudge game list` shows the games)")]
    UnknownGame(String),
    /// The name is taken.
    #[error("a game called '{0}' exists already: choose another name")]
    GameExists(String),
    /// Not a power of the variant, or not one a player plays.
    #[error("'{power}' is not a major power of {variant}: use one of {majors}")]
    UnknownPower {
        /// As written.
        power: String,
        /// The variant.
        variant: String,
        /// The majors.
        majors: String,
    },
    /// A minor named where it must be a minor.
    #[error("'{0}' is not a minor power of the game's variant")]
    NotMinor(String),
    /// Not a usable address.
    #[error("'{0}' is not a mail address (name@example.org)")]
    Address(String),
    /// A period of zero.
    #[error("the {0} period must be longer than nothing")]
    ZeroPeriod(&'static str),
    /// Started already.
    #[error("game '{0}' has started already")]
    Started(String),
    /// Not started yet.
    #[error("game '{0}' has not started: assign the powers, then `napjudge game start {0}`")]
    NotStarted(String),
    /// Powers without players.
    #[error("game '{game}' can't start: no player for {powers} (`napjudge game assign {game} POWER ADDRESS`)")]
    Unassigned {
        /// The game.
        game: String,
        /// The powers.
        powers: String,
    },
    /// The game is over.
    #[error("game '{0}' is over: roll it back to an earlier phase to play on")]
    Over(String),
    /// Paused.
    #[error("game '{0}' is paused: `napjudge game resume {0}` first")]
    Paused(String),
    /// Not paused.
    #[error("game '{0}' is not paused")]
    NotPaused(String),
    /// A phase that doesn't exist.
    #[error("game '{game}' has no played phase '{phase}': its phases are {phases}")]
    UnknownPhase {
        /// The game.
        game: String,
        /// As written.
        phase: String,
        /// Those it has.
        phases: String,
    },
    /// A power that owes nothing now.
    #[error("{power} has no orders to give in {phase}: orders are due from {owe}")]
    NotOwing {
        /// The power.
        power: String,
        /// The phase.
        phase: String,
        /// Who owes orders.
        owe: String,
    },
    /// A GM command the engine refuses.
    #[error("{0}")]
    Ledger(#[from] LedgerError),
    /// The phase can't be played (a stored GM command the engine refuses).
    #[error("{0}: cancel or correct it by rolling back the phase")]
    Turn(#[from] TurnError),
    /// A mail can't be rendered.
    #[error(transparent)]
    Render(#[from] RenderError),
    /// A picture of the board can't be made.
    #[error(transparent)]
    Picture(#[from] picture::PictureError),
    /// Hashing a password failed.
    #[error("password: {0}")]
    Password(String),
    /// A game option that is not a rule switch, or not on or off.
    #[error("{0}")]
    Option(String),
    /// Another process processed the phase first.
    #[error("game '{0}': the phase was processed by another napjudge at the same time; nothing was done")]
    Raced(String),
}

/// What `game create` is given.
#[derive(Clone, Debug)]
pub struct NewGame {
    /// The name.
    pub name: String,
    /// The variant (`napoleonic`).
    pub variant: String,
    /// The GM's address.
    pub gm: String,
    /// The time zone deadlines are shown in.
    pub timezone: String,
    /// The periods.
    pub periods: Periods,
    /// Wait for the deadline even when everyone has ordered.
    pub wait: bool,
    /// Rule switches, `NAME` (on) or `NAME=on|off` (`webdiplomacy`).
    pub options: Vec<String>,
    /// Result mails carry a picture of the board.
    pub pictures: bool,
}

/// One line of a power's orders as `game orders` understood it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderCheck {
    /// The line number.
    pub line: usize,
    /// The line as written.
    pub text: String,
    /// The canonical order, or the text.
    pub order: String,
    /// The error, when it failed.
    pub error: Option<String>,
    /// What validation changed in a line it kept (a merge's participants left out).
    pub note: Option<String>,
}

/// What `process` did.
#[derive(Clone, Debug, PartialEq)]
pub struct Processed {
    /// The phase played.
    pub phase: String,
    /// The next phase (or none: the game is over).
    pub next: Option<String>,
    /// Its deadline.
    pub deadline: Option<DateTime<Utc>>,
    /// Mails queued.
    pub mails: usize,
    /// The results mail text.
    pub results: String,
}

/// What one `tick` did, per game.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TickReport {
    /// One line per thing done (`game: processed Spring 1801 Movement`).
    pub done: Vec<String>,
}

/// The judge: a store, a clock, and the variants loaded so far.
pub struct Judge {
    /// The database.
    pub store: Store,
    /// The clock.
    pub clock: Clock,
    /// The cost of the passwords `assign` hashes (a replay makes it light).
    pub password_cost: PasswordCost,
    variants: HashMap<String, Variant>,
}

fn period_for(p: &Periods, kind: PhaseKind) -> i64 {
    match kind {
        PhaseKind::Movement | PhaseKind::SecondMovement => p.movement,
        PhaseKind::Retreat | PhaseKind::SecondRetreat => p.retreat,
        PhaseKind::Adjustment | PhaseKind::Bids => p.winter,
    }
}

/// Whether `a` looks like a mail address (`name@example.org`).
pub fn valid_address(a: &str) -> bool {
    let mut parts = a.split('@');
    matches!(
        (parts.next(), parts.next(), parts.next()),
        (Some(l), Some(d), None) if !l.is_empty() && d.contains('.') && !a.contains(char::is_whitespace)
    )
}

fn names(v: &Variant, powers: &[PowerId]) -> Vec<String> {
    powers.iter().map(|&p| v.power(p).name.clone()).collect()
}

fn join_or(items: &[String], empty: &str) -> String {
    if items.is_empty() {
        empty.to_string()
    } else {
        items.join(", ")
    }
}

/// The name the GM signs on with, in `players` for the GM's mail password.
pub const GM: &str = "GM";

/// A password of 12 letters and digits from the system's random source.
fn new_password() -> Result<String, GameError> {
    const ALPHABET: &[u8] = b"abcdefghjkmnpqrstuvwxyzACDEFGHJKLMNPQRSTUVWXYZ23456789";
    let bytes = argon2::password_hash::try_generate_salt()
        .map_err(|e| GameError::Password(e.to_string()))?;
    Ok(bytes
        .iter()
        .take(12)
        .map(|b| ALPHABET[usize::from(*b) % ALPHABET.len()] as char)
        .collect())
}

/// How costly the argon2 hash of a password `game assign` sets is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PasswordCost {
    /// argon2's default parameters: what a real judge uses.
    #[default]
    Full,
    /// The least memory and time argon2 allows, for the public passwords of a replayed game
    /// folder: thousands of sign-ons verify in well under a second. The PHC string carries its
    /// parameters, so [`verify_password`] needs no switch.
    Light,
}

/// The argon2 PHC string of a password, at full cost.
pub fn hash_password(password: &str) -> Result<String, GameError> {
    hash_password_at(password, PasswordCost::Full)
}

/// The argon2 PHC string of a password, at the cost given.
pub fn hash_password_at(password: &str, cost: PasswordCost) -> Result<String, GameError> {
    let params = match cost {
        PasswordCost::Full => argon2::Params::default(),
        PasswordCost::Light => argon2::Params::new(argon2::Params::MIN_M_COST, 1, 1, None)
            .map_err(|e| GameError::Password(e.to_string()))?,
    };
    argon2::Argon2::from(params)
        .hash_password(password.as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| GameError::Password(e.to_string()))
}

/// Checks a password against a stored hash.
pub fn verify_password(password: &str, hash: &str) -> bool {
    use argon2::password_hash::PasswordVerifier;
    argon2::password_hash::phc::PasswordHash::new(hash).is_ok_and(|h| {
        argon2::Argon2::default()
            .verify_password(password.as_bytes(), &h)
            .is_ok()
    })
}

impl OrderCheck {
    /// A kept line as the acknowledgement gives it: the canonical order, and what validation
    /// changed in it.
    pub fn kept(&self) -> String {
        match &self.note {
            None => self.order.clone(),
            Some(n) => format!("{} (note: {n})", self.order),
        }
    }
}

/// What the acknowledgement says of a one-line merge's participants left out: those named where
/// the power has no such unit (R2.4), and those whose units are there but are ordered more than
/// once (R1.4, R2.6); in both cases the others merge.
fn participants_note(
    position: &Position,
    power: PowerId,
    c: &turn::CheckedOrder,
) -> Option<String> {
    let dropped = c.dropped_participants();
    let Some(OrderKind::Merge { units, .. }) = c.parsed.as_ref().map(|p| &p.kind) else {
        return None;
    };
    // Every participant kept is there; one left out though its units are there was over-ordered.
    let there = units
        .iter()
        .filter(|u| match &u.at {
            Place::Known(r) => position.force(r.province).is_some_and(|f| {
                position.commands(power, f.power) && f.armies >= u.armies && f.fleets >= u.fleets
            }),
            Place::Ambiguous { .. } => false,
        })
        .count();
    let doubled = there.saturating_sub(units.len() - dropped).min(dropped);
    let absent = dropped - doubled;
    let mut notes = Vec::new();
    match absent {
        0 => {}
        1 => notes.push("one participant named is not there".to_string()),
        n => notes.push(format!("{n} participants named are not there")),
    }
    match doubled {
        0 => {}
        1 => notes.push("one participant named is also ordered elsewhere (R1.4)".to_string()),
        n => notes.push(format!(
            "{n} participants named are also ordered elsewhere (R1.4)"
        )),
    }
    let they = if dropped == 1 {
        "it takes"
    } else {
        "they take"
    };
    (dropped > 0).then(|| {
        format!(
            "{}: {they} no part, and the others merge (R2.4)",
            notes.join(", and ")
        )
    })
}

/// How a power's orders are acknowledged (the GM's `game orders`, and a player's mail): each line
/// through `turn::check`; in a Winter with influence, the valid lines are also played alone with
/// `turn::play`, so that a bid past the power's IP (R7.6) is refused now, with the engine's
/// reason, rather than only when the phase is processed. A power's IP depend only on its own
/// orders and the position, so playing its orders alone gives its real budget.
pub fn acknowledge(
    v: &Variant,
    position: &Position,
    gm: &[String],
    power: PowerId,
    text: &str,
) -> Vec<OrderCheck> {
    let checked = turn::check(v, Some(position), Some(power), text);
    let mut lines: Vec<OrderCheck> = checked
        .iter()
        .map(|c| OrderCheck {
            line: c.line,
            text: c.text.clone(),
            order: c.canonical(v).unwrap_or_else(|| c.text.clone()),
            error: match &c.checked {
                Ok(_) => None,
                Err(OrderError::Parse(e)) => Some(e.to_string()),
                Err(e) => Some(e.to_string()),
            },
            note: participants_note(position, power, c),
        })
        .collect();
    let winter = matches!(position.phase.kind, PhaseKind::Adjustment | PhaseKind::Bids);
    if winter && v.rules.influence {
        let sheets = Sheets {
            gm: gm.to_vec(),
            orders: BTreeMap::from([(power, text.to_string())]),
        };
        // A GM command the engine refuses is reported when the phase is processed.
        if let Ok(report) = turn::play(v, position, &sheets) {
            let played = report.powers.iter().flat_map(|p| &p.orders);
            for o in played {
                if let Ok(outcome @ Outcome::Fails(Reason::Refused(Refusal::IpOverBudget { .. }))) =
                    &o.result
                {
                    if let Some(l) = lines.iter_mut().find(|l| l.line == o.order.line) {
                        l.error = Some(outcome.describe(v));
                    }
                }
            }
        }
    }
    lines
}

/// The variant called `name`, loaded once per judge.
/// The write transaction a command on game `name` runs in, with the game's current phase and its
/// board.
fn begin<'a>(
    store: &'a mut Store,
    cache: &'a mut HashMap<String, Variant>,
    name: &str,
) -> Result<(rusqlite::Transaction<'a>, Current, &'a Variant), GameError> {
    let tx = store
        .conn
        .transaction_with_behavior(TransactionBehavior::Immediate)?;
    let cur = Judge::current(&tx, name)?;
    let v = variant(cache, &cur.game)?;
    Ok((tx, cur, v))
}

/// The game's board with the game's options applied: the one place a game's variant comes from
/// (loaded once per judge for each variant and set of options).
fn variant<'a>(
    cache: &'a mut HashMap<String, Variant>,
    game: &Game,
) -> Result<&'a Variant, GameError> {
    let key = format!("{} {}", game.variant, game.options.join(" "));
    if !cache.contains_key(&key) {
        let base = variant::load_named(&game.variant)?;
        let v = base
            .with_options(&game.options)
            .map_err(|e| GameError::Option(e.to_string()))?;
        cache.insert(key.clone(), v);
    }
    cache
        .get(&key)
        .ok_or_else(|| GameError::Variant(LoadError::UnknownVariant(game.variant.clone())))
}

/// Everything about a game's current phase the commands need.
struct Current {
    game: Game,
    phase: PhaseRow,
}

impl Judge {
    /// A judge over `store`, reading time from `clock`.
    pub fn new(store: Store, clock: Clock) -> Judge {
        Judge {
            store,
            clock,
            password_cost: PasswordCost::Full,
            variants: HashMap::new(),
        }
    }

    fn game(c: &Connection, name: &str) -> Result<Game, GameError> {
        store::game(c, name)?.ok_or_else(|| GameError::UnknownGame(name.to_string()))
    }

    fn current(c: &Connection, name: &str) -> Result<Current, GameError> {
        let game = Judge::game(c, name)?;
        let phase = match game.state {
            GameState::Forming => return Err(GameError::NotStarted(game.name)),
            _ => store::current_phase(c, game.id)?,
        };
        match phase {
            Some(phase) => Ok(Current { game, phase }),
            None => Err(GameError::Over(game.name)),
        }
    }

    fn major(v: &Variant, name: &str) -> Result<PowerId, GameError> {
        v.power_by_name(name)
            .filter(|&p| v.power(p).kind == PowerKind::Major)
            .ok_or_else(|| GameError::UnknownPower {
                power: name.to_string(),
                variant: v.name.clone(),
                majors: v
                    .power_ids()
                    .filter(|&p| v.power(p).kind == PowerKind::Major)
                    .map(|p| v.power(p).name.clone())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }

    /// Runs `f` with the game's variant, its options applied, and the store (a mail's reply
    /// needs both at once).
    pub fn with_variant<R>(
        &mut self,
        game: &Game,
        f: impl FnOnce(&Variant, &Store) -> R,
    ) -> Result<R, GameError> {
        let v = variant(&mut self.variants, game)?;
        Ok(f(v, &self.store))
    }

    /// `game create`.
    pub fn create(&mut self, g: &NewGame) -> Result<Game, GameError> {
        let now = self.clock.now();
        clock::parse_zone(&g.timezone)?;
        if !valid_address(&g.gm) {
            return Err(GameError::Address(g.gm.clone()));
        }
        for (what, secs) in [
            ("movement", g.periods.movement),
            ("retreat", g.periods.retreat),
            ("winter", g.periods.winter),
        ] {
            if secs <= 0 {
                return Err(GameError::ZeroPeriod(what));
            }
        }
        let mut game = Game {
            id: 0,
            name: g.name.clone(),
            variant: g.variant.clone(),
            gm: g.gm.clone(),
            timezone: g.timezone.clone(),
            periods: g.periods,
            wait: g.wait,
            state: GameState::Forming,
            pictures: g.pictures,
            options: g
                .options
                .iter()
                .map(|o| RuleOption::parse(o).map(|o| o.to_string()))
                .collect::<Result<_, _>>()
                .map_err(|e| GameError::Option(e.to_string()))?,
        };
        // The variant loads and every option names a switch, before anything is stored.
        variant(&mut self.variants, &game)?;
        let tx = self.store.conn.transaction()?;
        if store::game(&tx, &g.name)?.is_some() {
            return Err(GameError::GameExists(g.name.clone()));
        }
        game.id = store::insert_game(&tx, &game, now)?;
        store::add_gm_action(
            &tx,
            game.id,
            None,
            &format!("created the game ({})", g.variant),
            None,
            now,
        )?;
        tx.commit()?;
        Ok(game)
    }

    /// `game assign`: sets a power's player; with no password, one is generated and mailed.
    /// Returns the generated password's mail recipient, if one was mailed.
    pub fn assign(
        &mut self,
        name: &str,
        power: &str,
        address: &str,
        password: Option<&str>,
    ) -> Result<bool, GameError> {
        let now = self.clock.now();
        if !valid_address(address) {
            return Err(GameError::Address(address.to_string()));
        }
        let game = Judge::game(&self.store.conn, name)?;
        let v = variant(&mut self.variants, &game)?;
        // `GM` sets the password the GM signs on with by mail (kept as a player row).
        let power = if power.eq_ignore_ascii_case(GM) {
            GM.to_string()
        } else {
            v.power(Judge::major(v, power)?).name.clone()
        };
        let (password, generated) = match password {
            Some(pw) => (pw.to_string(), false),
            None => (new_password()?, true),
        };
        // Hash outside the transaction: it takes a while on purpose.
        let hash = hash_password_at(&password, self.password_cost)?;
        let tx = self
            .store
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        store::set_player(&tx, game.id, &power, address, &hash)?;
        store::add_gm_action(
            &tx,
            game.id,
            None,
            &format!("assigned {power} to {address}"),
            None,
            now,
        )?;
        if generated {
            let body = render::render(
                "password",
                &render::PasswordMail {
                    game: &game.name,
                    power: &power,
                    password: &password,
                    gm: &game.gm,
                },
            )?;
            store::queue_mail(
                &tx,
                &NewMail {
                    game: Some(game.id),
                    phase: None,
                    kind: "password",
                    to: address,
                    subject: &format!("{}: your password for {power}", game.name),
                    body: &body,
                    in_reply_to: None,
                },
                now,
            )?;
        }
        tx.commit()?;
        Ok(generated)
    }

    /// `game start`: the variant's first phase, with its deadline.
    pub fn start(&mut self, name: &str) -> Result<(String, DateTime<Utc>), GameError> {
        let now = self.clock.now();
        let tx = self
            .store
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let game = Judge::game(&tx, name)?;
        if game.state != GameState::Forming {
            return Err(GameError::Started(game.name));
        }
        let v = variant(&mut self.variants, &game)?;
        let players = store::players(&tx, game.id)?;
        let missing: Vec<String> = v
            .power_ids()
            .filter(|&p| v.power(p).kind == PowerKind::Major)
            .map(|p| v.power(p).name.clone())
            .filter(|n| !players.iter().any(|pl| &pl.power == n))
            .collect();
        if !missing.is_empty() {
            return Err(GameError::Unassigned {
                game: game.name,
                powers: missing.join(", "),
            });
        }
        let position = Position::initial(v);
        let deadline = clock::after(now, period_for(&game.periods, position.phase.kind));
        let owe = names(v, &turn::owing(v, &position));
        store::insert_phase(&tx, game.id, &position, &owe, Some(deadline))?;
        store::set_state(&tx, game.id, GameState::Running)?;
        store::add_gm_action(&tx, game.id, None, "started the game", None, now)?;
        tx.commit()?;
        Ok((v.phase_name(position.phase), deadline))
    }

    /// `game orders`: checks a power's orders as the acknowledgement will (`turn::check`), keeps
    /// the valid lines as the power's orders for the phase, and says how each line was read.
    pub fn orders(
        &mut self,
        name: &str,
        power: &str,
        text: &str,
        by: &str,
    ) -> Result<Vec<OrderCheck>, GameError> {
        let now = self.clock.now();
        let (tx, cur, v) = begin(&mut self.store, &mut self.variants, name)?;
        let p = Judge::major(v, power)?;
        let owe = turn::owing(v, &cur.phase.position);
        if !owe.contains(&p) {
            return Err(GameError::NotOwing {
                power: v.power(p).name.clone(),
                phase: v.phase_name(cur.phase.position.phase),
                owe: join_or(&names(v, &owe), "nobody"),
            });
        }
        let gm = store::gm_commands(&tx, cur.phase.id)?;
        let lines = acknowledge(v, &cur.phase.position, &gm, p, text);
        let kept: String = lines
            .iter()
            .filter(|l| l.error.is_none())
            .map(|l| format!("{}\n", l.text))
            .collect();
        // A text with no valid line changes nothing: the power's earlier orders stand.
        if !kept.is_empty() {
            store::add_orders(&tx, cur.phase.id, &v.power(p).name, &kept, by, now)?;
        }
        tx.commit()?;
        Ok(lines)
    }

    /// The sheets of a phase: the GM's commands and each power's latest orders.
    fn sheets(
        c: &Connection,
        v: &Variant,
        phase: &PhaseRow,
    ) -> Result<(Sheets, Vec<store::OrderText>), GameError> {
        let texts = store::latest_orders(c, phase.id)?;
        let mut orders = BTreeMap::new();
        for t in &texts {
            if let Some(p) = v.power_by_name(&t.power) {
                orders.insert(p, t.text.clone());
            }
        }
        Ok((
            Sheets {
                gm: store::gm_commands(c, phase.id)?,
                orders,
            },
            texts,
        ))
    }

    /// Late and missing powers of a phase processed now.
    fn lateness(
        v: &Variant,
        phase: &PhaseRow,
        texts: &[store::OrderText],
    ) -> (Vec<String>, Vec<String>) {
        let owe = names(v, &turn::owing(v, &phase.position));
        let late = owe
            .iter()
            .filter(|p| {
                texts.iter().any(|t| {
                    &&t.power == p
                        && t.by == "player"
                        && phase.deadline.is_some_and(|d| t.received > d)
                })
            })
            .cloned()
            .collect();
        let missing = owe
            .iter()
            .filter(|p| !texts.iter().any(|t| &&t.power == p))
            .cloned()
            .collect();
        (late, missing)
    }

    fn render_results(
        v: &Variant,
        game: &Game,
        phase: &PhaseRow,
        report: &PhaseReport,
        late: &[String],
        missing: &[String],
        next_deadline: Option<DateTime<Utc>>,
    ) -> Result<String, GameError> {
        let over = !report.next.ledgers.winners.is_empty();
        let view = PhaseView::new(
            v,
            report,
            &Context {
                game: &game.name,
                before: &phase.position,
                late,
                missing,
                next_deadline: next_deadline.map(|d| clock::show_in(d, &game.timezone)),
                over,
            },
        );
        Ok(render::results(&view, report.phase.kind)?)
    }

    /// `game process`: plays the current phase now. With `preview`, returns the GM's preview and
    /// stores nothing.
    pub fn process(&mut self, name: &str, preview: bool) -> Result<Processed, GameError> {
        let now = self.clock.now();
        let (tx, cur, v) = begin(&mut self.store, &mut self.variants, name)?;
        let processed = Judge::play(&tx, v, &cur, now, preview)?;
        if preview {
            // Dropping the transaction rolls it back: a preview leaves no trace.
            return Ok(processed);
        }
        tx.commit()?;
        Ok(processed)
    }

    /// Plays `cur` inside the caller's transaction: stores the report, the next phase and every
    /// result mail (or, for a preview, only renders).
    fn play(
        c: &Connection,
        v: &Variant,
        cur: &Current,
        now: DateTime<Utc>,
        preview: bool,
    ) -> Result<Processed, GameError> {
        let (game, phase) = (&cur.game, &cur.phase);
        let (sheets, texts) = Judge::sheets(c, v, phase)?;
        let report = turn::play(v, &phase.position, &sheets)?;
        let (late, missing) = Judge::lateness(v, phase, &texts);
        let over = !report.next.ledgers.winners.is_empty();
        let deadline =
            (!over).then(|| clock::after(now, period_for(&game.periods, report.next.phase.kind)));
        let results = Judge::render_results(v, game, phase, &report, &late, &missing, deadline)?;
        let phase_name = v.phase_name(report.phase);
        let next = (!over).then(|| v.phase_name(report.next.phase));
        if preview {
            let waiting: Vec<String> = names(v, &turn::owing(v, &phase.position))
                .into_iter()
                .filter(|p| !texts.iter().any(|t| &t.power == p))
                .collect();
            let text = render::render(
                "preview",
                &render::PreviewMail {
                    game: &game.name,
                    phase: &phase_name,
                    results: &results,
                    waiting: &join_or(&waiting, "nobody"),
                },
            )?;
            return Ok(Processed {
                phase: phase_name,
                next,
                deadline,
                mails: 0,
                results: text,
            });
        }
        if !store::finish_phase(c, phase.id, &report, now, &late, &missing)? {
            return Err(GameError::Raced(game.name.clone()));
        }
        if over {
            store::set_state(c, game.id, GameState::Finished)?;
        } else {
            store::insert_phase(c, game.id, &report.next, &names(v, &report.owe), deadline)?;
        }
        let subject = format!("{}: results of {phase_name}", game.name);
        let mut to: Vec<String> = store::players(c, game.id)?
            .into_iter()
            .map(|p| p.address)
            .collect();
        to.push(game.gm.clone());
        // One mail per address: a player of two powers (or the GM playing) gets one copy.
        let mut seen = std::collections::HashSet::new();
        to.retain(|a| seen.insert(a.to_lowercase()));
        for addr in &to {
            store::queue_mail(
                c,
                &NewMail {
                    game: Some(game.id),
                    phase: Some(phase.id),
                    kind: "results",
                    to: addr,
                    subject: &subject,
                    body: &results,
                    in_reply_to: None,
                },
                now,
            )?;
        }
        if game.pictures {
            // A board without shapes (a variant of one's own) has no picture: the results go
            // out without one rather than not at all.
            if let Ok(png) = picture::board_for(v).and_then(|board| {
                picture::picture(
                    v,
                    &board,
                    &report.next,
                    Some(&report),
                    picture::View::After,
                    picture::Format::Png,
                )
            }) {
                store::attach_picture(c, phase.id, &png)?;
            }
        }
        Ok(Processed {
            phase: phase_name,
            next,
            deadline,
            mails: to.len(),
            results,
        })
    }

    /// `game rollback`: the game goes back to the start of `phase` (a phase played before); the
    /// phases after it stay in the history, set aside. The phase's orders and GM commands are
    /// carried over, so that processing it again gives the same results unless they change.
    pub fn rollback(&mut self, name: &str, phase_name: &str) -> Result<String, GameError> {
        let now = self.clock.now();
        let tx = self
            .store
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let game = Judge::game(&tx, name)?;
        if game.state == GameState::Forming {
            return Err(GameError::NotStarted(game.name));
        }
        let v = variant(&mut self.variants, &game)?;
        let live: Vec<PhaseRow> = store::phases(&tx, game.id)?
            .into_iter()
            .filter(|p| !p.superseded)
            .collect();
        let wanted = v.parse_phase(phase_name);
        let target = live
            .iter()
            .rev()
            .find(|p| Some(p.position.phase) == wanted && p.report.is_some())
            .ok_or_else(|| GameError::UnknownPhase {
                game: game.name.clone(),
                phase: phase_name.to_string(),
                phases: live
                    .iter()
                    .filter(|p| p.report.is_some())
                    .map(|p| format!("'{}'", v.phase_name(p.position.phase)))
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
        let texts = store::all_orders(&tx, target.id)?;
        let commands = store::gm_commands(&tx, target.id)?;
        store::supersede_from(&tx, game.id, target.seq)?;
        let deadline = clock::after(now, period_for(&game.periods, target.position.phase.kind));
        let owe = names(v, &turn::owing(v, &target.position));
        let id = store::insert_phase(&tx, game.id, &target.position, &owe, Some(deadline))?;
        for t in &texts {
            store::add_orders(&tx, id, &t.power, &t.text, &t.by, t.received)?;
        }
        for c in &commands {
            store::add_gm_action(
                &tx,
                game.id,
                Some(id),
                &format!("carried over: {c}"),
                Some(c),
                now,
            )?;
        }
        let shown = v.phase_name(target.position.phase);
        store::add_gm_action(
            &tx,
            game.id,
            Some(id),
            &format!("rolled back to {shown}"),
            None,
            now,
        )?;
        if game.state == GameState::Finished {
            store::set_state(&tx, game.id, GameState::Running)?;
        }
        tx.commit()?;
        Ok(shown)
    }

    /// `game control`: the GM names a minor's controller (R7.8), carried out when the current
    /// phase is processed. The engine checks it now against the current position.
    pub fn control(&mut self, name: &str, minor: &str, major: &str) -> Result<String, GameError> {
        let now = self.clock.now();
        let (tx, cur, v) = begin(&mut self.store, &mut self.variants, name)?;
        let m = v
            .power_by_name(minor)
            .filter(|&p| v.power(p).kind == PowerKind::Minor)
            .ok_or_else(|| GameError::NotMinor(minor.to_string()))?;
        let command = format!("CONTROL {} {}", v.power(m).name, major);
        // Every earlier command of the phase first, then this one: the engine's own check.
        let mut position = cur.phase.position.clone();
        for c in store::gm_commands(&tx, cur.phase.id)?
            .iter()
            .chain([&command])
        {
            GmCommand::parse(v, c)?.apply(v, &mut position)?;
        }
        store::add_gm_action(
            &tx,
            cur.game.id,
            Some(cur.phase.id),
            &command,
            Some(&command),
            now,
        )?;
        tx.commit()?;
        Ok(command)
    }

    /// `game pause` / `game resume`. A resumed game whose deadline passed while paused gets a
    /// new one, a full period from now.
    pub fn pause(&mut self, name: &str, pause: bool) -> Result<Option<DateTime<Utc>>, GameError> {
        let now = self.clock.now();
        let tx = self
            .store
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let game = Judge::game(&tx, name)?;
        let mut deadline = None;
        match (pause, game.state) {
            (_, GameState::Forming) => return Err(GameError::NotStarted(game.name)),
            (_, GameState::Finished) => return Err(GameError::Over(game.name)),
            (true, GameState::Paused) => return Err(GameError::Paused(game.name)),
            (false, GameState::Running) => return Err(GameError::NotPaused(game.name)),
            (true, _) => {
                store::set_state(&tx, game.id, GameState::Paused)?;
                store::add_gm_action(&tx, game.id, None, "paused the game", None, now)?;
            }
            (false, _) => {
                if let Some(phase) = store::current_phase(&tx, game.id)? {
                    deadline = phase.deadline;
                    if phase.deadline.is_none_or(|d| d <= now) {
                        let d =
                            clock::after(now, period_for(&game.periods, phase.position.phase.kind));
                        store::set_deadline(&tx, phase.id, Some(d))?;
                        deadline = Some(d);
                    }
                }
                store::set_state(&tx, game.id, GameState::Running)?;
                store::add_gm_action(&tx, game.id, None, "resumed the game", None, now)?;
            }
        }
        tx.commit()?;
        Ok(deadline)
    }

    /// `game deadline`: moves the current phase's deadline (not into the past).
    pub fn set_deadline(&mut self, name: &str, at: DateTime<Utc>) -> Result<(), GameError> {
        let now = self.clock.now();
        if at <= now {
            return Err(GameError::Clock(ClockError::Time(format!(
                "{} is in the past (now is {}): give a later deadline",
                at.to_rfc3339(),
                now.to_rfc3339()
            ))));
        }
        let tx = self
            .store
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let cur = Judge::current(&tx, name)?;
        store::set_deadline(&tx, cur.phase.id, Some(at))?;
        store::add_gm_action(
            &tx,
            cur.game.id,
            Some(cur.phase.id),
            &format!("deadline set to {}", at.to_rfc3339()),
            None,
            now,
        )?;
        tx.commit()?;
        Ok(())
    }

    /// `game grace`: sets the grace that follows every deadline of the game.
    pub fn set_grace(&mut self, name: &str, secs: i64) -> Result<(), GameError> {
        let now = self.clock.now();
        let tx = self
            .store
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let game = Judge::game(&tx, name)?;
        store::set_grace(&tx, game.id, secs)?;
        store::add_gm_action(
            &tx,
            game.id,
            None,
            &format!("grace set to {}", clock::show_period(secs)),
            None,
            now,
        )?;
        tx.commit()?;
        Ok(())
    }

    /// `game set NAME pictures on|off`: whether result mails carry a picture of the board.
    pub fn set_pictures(&mut self, name: &str, on: bool) -> Result<(), GameError> {
        let now = self.clock.now();
        let tx = self.store.conn.transaction()?;
        let game = Judge::game(&tx, name)?;
        store::set_pictures(&tx, game.id, on)?;
        let word = if on { "on" } else { "off" };
        store::add_gm_action(
            &tx,
            game.id,
            None,
            &format!("pictures in result mails {word}"),
            None,
            now,
        )?;
        tx.commit()?;
        Ok(())
    }

    /// `game show`: the phase, its deadline, who has ordered, centres and ledgers.
    pub fn show(&mut self, name: &str) -> Result<String, GameError> {
        let c = &self.store.conn;
        let game = Judge::game(c, name)?;
        let v = variant(&mut self.variants, &game)?;
        let c = &self.store.conn;
        let mut out = format!(
            "Game {} ({}), {}; GM {}; zone {}\nPeriods: movement {}, retreat {}, winter {}, grace {}, reminder {} before{}\n",
            game.name,
            game.variant,
            game.state,
            game.gm,
            game.timezone,
            clock::show_period(game.periods.movement),
            clock::show_period(game.periods.retreat),
            clock::show_period(game.periods.winter),
            clock::show_period(game.periods.grace),
            clock::show_period(game.periods.remind),
            if game.wait { "; waits for the deadline" } else { "" },
        );
        if !game.pictures {
            out.push_str("Result mails: without pictures\n");
        }
        if !game.options.is_empty() {
            out.push_str(&format!("Options: {}\n", game.options.join(", ")));
        }
        out.push_str("Players:\n");
        for p in store::players(c, game.id)? {
            out.push_str(&format!("  {:<10} {}\n", p.power, p.address));
        }
        let phases = store::phases(c, game.id)?;
        let Some(cur) = phases
            .iter()
            .rev()
            .find(|p| !p.superseded && p.report.is_none())
        else {
            let last = phases.iter().rev().find(|p| !p.superseded);
            match last {
                Some(p) => {
                    out.push_str(&format!("Over after {}.\n", v.phase_name(p.position.phase)))
                }
                None => out.push_str("Not started.\n"),
            }
            return Ok(out);
        };
        let pos = &cur.position;
        out.push_str(&format!("Phase: {}\n", v.phase_name(pos.phase)));
        if let Some(d) = cur.deadline {
            out.push_str(&format!(
                "Deadline: {} (grace until {})\n",
                clock::show_in(d, &game.timezone),
                clock::show_in(clock::after(d, game.periods.grace), &game.timezone)
            ));
        }
        let texts = store::latest_orders(c, cur.id)?;
        let owe = names(v, &turn::owing(v, pos));
        let ordered: Vec<String> = owe
            .iter()
            .filter(|p| texts.iter().any(|t| &&t.power == p))
            .cloned()
            .collect();
        let waiting: Vec<String> = owe
            .iter()
            .filter(|p| !ordered.contains(p))
            .cloned()
            .collect();
        out.push_str(&format!("Ordered: {}\n", join_or(&ordered, "nobody")));
        out.push_str(&format!("Waiting for: {}\n", join_or(&waiting, "nobody")));
        out.push_str("Centres:\n");
        for p in v.power_ids() {
            let n = pos.centre_count(v, p);
            if n > 0 {
                out.push_str(&format!("  {:<10} {n}\n", v.power(p).name));
            }
        }
        let with_items: Vec<(String, String)> = v
            .power_ids()
            .map(|p| {
                let items: Vec<String> =
                    pos.ledgers.items(v, p).iter().map(|i| i.text(v)).collect();
                (v.power(p).name.clone(), items.join("; "))
            })
            .filter(|(_, i)| !i.is_empty())
            .collect();
        if v.rules.supply_points || v.rules.influence {
            out.push_str("Ledgers:\n");
            for (p, items) in with_items {
                out.push_str(&format!("  {p}: {items}\n"));
            }
        }
        out.push_str("History:\n");
        for p in &phases {
            let state = match (&p.report, p.superseded) {
                (_, true) => "rolled back",
                (Some(_), false) => "processed",
                (None, false) => "current",
            };
            out.push_str(&format!(
                "  {:>3} {:<28} {state}\n",
                p.seq,
                v.phase_name(p.position.phase)
            ));
        }
        Ok(out)
    }

    /// `map GAME [PHASE]`: a picture of the game's current position, or with `phase` (a played
    /// phase, the latest of that name not rolled back) of the position after it with its
    /// orders; a game that is over is drawn after its last phase. On `board` when given, else
    /// on the variant's built-in shapes.
    pub fn picture(
        &mut self,
        name: &str,
        phase: Option<&str>,
        board: Option<&picture::Board>,
        format: picture::Format,
    ) -> Result<Vec<u8>, GameError> {
        let c = &self.store.conn;
        let game = Judge::game(c, name)?;
        let v = variant(&mut self.variants, &game)?;
        let live: Vec<PhaseRow> = store::phases(&self.store.conn, game.id)?
            .into_iter()
            .filter(|p| !p.superseded)
            .collect();
        let unknown = || GameError::UnknownPhase {
            game: game.name.clone(),
            phase: phase.unwrap_or_default().to_string(),
            phases: live
                .iter()
                .map(|p| format!("'{}'", v.phase_name(p.position.phase)))
                .collect::<Vec<_>>()
                .join(", "),
        };
        let row = match phase {
            Some(text) => {
                let wanted = v.parse_phase(text).ok_or_else(unknown)?;
                live.iter()
                    .rev()
                    .find(|p| p.position.phase == wanted)
                    .ok_or_else(unknown)?
            }
            None => live
                .last()
                .ok_or_else(|| GameError::NotStarted(game.name.clone()))?,
        };
        let owned;
        let board = match board {
            Some(b) => b,
            None => {
                owned = picture::board_for(v)?;
                &owned
            }
        };
        let drawn = match &row.report {
            Some(r) => picture::picture(v, board, &r.next, Some(r), picture::View::After, format),
            None => picture::picture(v, board, &row.position, None, picture::View::Before, format),
        };
        Ok(drawn?)
    }

    /// `game list`: each game with its state, phase and deadline.
    pub fn list(&mut self) -> Result<Vec<String>, GameError> {
        let games = store::games(&self.store.conn)?;
        let mut out = Vec::new();
        for g in games {
            let v = variant(&mut self.variants, &g)?;
            let phase = store::current_phase(&self.store.conn, g.id)?;
            let (phase, deadline) = match phase {
                Some(p) => (
                    v.phase_name(p.position.phase),
                    p.deadline
                        .map(|d| clock::show_in(d, &g.timezone))
                        .unwrap_or_default(),
                ),
                None => ("-".to_string(), String::new()),
            };
            out.push(format!(
                "{}\t{}\t{}\t{phase}\t{deadline}",
                g.name, g.variant, g.state
            ));
        }
        Ok(out)
    }

    /// `tick`: for each running game, processes a phase that is due, or sends the reminders due.
    /// A phase is due when its deadline has passed and every power owing orders has sent them,
    /// when everyone has ordered and the game doesn't wait for the deadline, or when the grace
    /// has run out. Each game is its own transaction.
    pub fn tick(&mut self) -> Result<TickReport, GameError> {
        let now = self.clock.now();
        let mut report = TickReport::default();
        // One read for every game; only a game with something to do opens a write transaction.
        for due in store::due(&self.store.conn)? {
            let waiting: Vec<String> = due
                .owe
                .iter()
                .filter(|p| !due.ordered.contains(p))
                .cloned()
                .collect();
            let grace_end = clock::after(due.deadline, due.game.periods.grace);
            let process =
                (waiting.is_empty() && (now >= due.deadline || !due.game.wait)) || now >= grace_end;
            let remind_at = clock::after(due.deadline, -due.game.periods.remind);
            let level = if now >= due.deadline {
                2
            } else if now >= remind_at {
                1
            } else {
                0
            };
            let remind = level > due.reminded && !waiting.is_empty();
            if !process && !remind {
                continue;
            }
            let v = variant(&mut self.variants, &due.game)?;
            let tx = self
                .store
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)?;
            // Re-read inside the transaction: another napjudge may have moved the game on.
            let Some(phase) = store::current_phase(&tx, due.game.id)? else {
                continue;
            };
            if phase.id != due.phase
                || store::game(&tx, &due.game.name)?.map(|g| g.state) != Some(GameState::Running)
            {
                continue;
            }
            let game = &due.game;
            if process {
                let cur = Current {
                    game: game.clone(),
                    phase,
                };
                let done = Judge::play(&tx, v, &cur, now, false)?;
                tx.commit()?;
                report
                    .done
                    .push(format!("{}: processed {}", game.name, done.phase));
                continue;
            }
            let players = store::players(&tx, game.id)?;
            let phase_name = v.phase_name(phase.position.phase);
            let shown = clock::show_in(due.deadline, &game.timezone);
            let grace_shown = clock::show_in(grace_end, &game.timezone);
            for power in &waiting {
                let Some(player) = players.iter().find(|p| &p.power == power) else {
                    continue;
                };
                let body = render::render(
                    "reminder",
                    &render::ReminderMail {
                        game: &game.name,
                        power,
                        phase: &phase_name,
                        deadline: &shown,
                        grace_end: &grace_shown,
                        in_grace: level == 2,
                    },
                )?;
                store::queue_mail(
                    &tx,
                    &NewMail {
                        game: Some(game.id),
                        phase: Some(phase.id),
                        kind: "reminder",
                        to: &player.address,
                        subject: &format!("{}: {phase_name}: orders due", game.name),
                        body: &body,
                        in_reply_to: None,
                    },
                    now,
                )?;
            }
            store::set_reminded(&tx, phase.id, level)?;
            tx.commit()?;
            report.done.push(format!(
                "{}: reminded {} ({})",
                game.name,
                waiting.join(", "),
                if level == 2 {
                    "grace"
                } else {
                    "before the deadline"
                }
            ));
        }
        Ok(report)
    }
}
