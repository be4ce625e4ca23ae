//! The judge's mails, from the plain-text templates under `templates/`: phase results (movement,
//! retreats, Winter with its tracking sheet), the GM's preview and reminders.
//!
//! Every view is built from the engine's [`PhaseReport`] and the position it was played from:
//! the templates print, they never decide an outcome.

pub(crate) mod advice;

use askama::Template;
use napjudge_engine::order::OrderKind;
use napjudge_engine::outcome::Describe;
use napjudge_engine::position::Position;
use napjudge_engine::turn::{Fate, PhaseReport};
use napjudge_engine::variant::{PhaseKind, PowerId, PowerKind, Variant};

/// `1 build`, `2 builds`: a count with its noun in the number English gives it.
pub(crate) fn plural(n: impl Into<i64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", noun(n, one, many))
}

/// The noun for a count, for tables that pad the count themselves.
pub(crate) fn noun<'a>(n: impl Into<i64>, one: &'a str, many: &'a str) -> &'a str {
    if n.into() == 1 {
        one
    } else {
        many
    }
}

/// Why a mail can't be rendered.
#[derive(Debug, thiserror::Error)]
#[error("rendering the {what} mail: {source}")]
pub struct RenderError {
    /// Which mail.
    pub what: &'static str,
    /// Why.
    pub source: askama::Error,
}

/// One order and what became of it.
pub struct OrderLine {
    /// The order, canonical where it parsed.
    pub order: String,
    /// Its outcome, or why it was void.
    pub outcome: String,
}

/// A power's orders.
pub struct PowerLines {
    /// The power.
    pub power: String,
    /// Its orders (empty: it sent none).
    pub lines: Vec<OrderLine>,
    /// A note after the name: `late`, `no orders: defaults applied`.
    pub note: String,
}

/// A force waiting for its retreat.
pub struct RetreatLine {
    /// The force (`France: A(Par)`).
    pub force: String,
    /// Where it may go (`Bur, Pic`), or `nowhere: it disbands`.
    pub to: String,
}

/// A power's units, centres and counts.
pub struct PowerBoard {
    /// The power.
    pub power: String,
    /// Its forces after the phase (`A(Par), 2A/F(Bre)`).
    pub units: String,
    /// How many units.
    pub unit_count: u32,
    /// Its centres (`Bre Par Mar`).
    pub centres: String,
    /// How many centres.
    pub centre_count: usize,
}

/// A major's row of the Winter tracking sheet.
pub struct SheetRow {
    /// The major.
    pub power: String,
    /// Centres owned.
    pub centres: usize,
    /// SP at hand this Winter, before upkeep.
    pub sp: u32,
    /// Upkeep paid.
    pub upkeep: u32,
    /// SP converted to IP.
    pub converted: u32,
    /// SP banked.
    pub bank: u32,
    /// Loans made (`3 to France`) and owed, or `-`.
    pub loans: String,
    /// IP received.
    pub ip: u32,
    /// IP spent on bids.
    pub spent: u32,
    /// Minors controlled, with years (`Denmark 2y`), or `-`.
    pub minors: String,
}

/// A minor's control after the Winter.
pub struct MinorLine {
    /// The minor.
    pub minor: String,
    /// Its controller and years, or `uncontrolled`; barred majors.
    pub control: String,
}

/// Everything a results mail prints.
pub struct PhaseView {
    /// The game's name.
    pub game: String,
    /// The phase played (`Spring 1801 Movement`).
    pub phase: String,
    /// Each power's orders.
    pub powers: Vec<PowerLines>,
    /// Second-phase orders (R4).
    pub second: Vec<OrderLine>,
    /// Dislodged forces and their retreats.
    pub dislodged: Vec<RetreatLine>,
    /// What else happened.
    pub events: Vec<String>,
    /// Units and centres after the phase, per power that has any.
    pub board: Vec<PowerBoard>,
    /// The Winter tracking sheet (empty outside a Winter).
    pub sheet: Vec<SheetRow>,
    /// Each major's ledger items, after a Winter.
    pub ledgers: Vec<(String, String)>,
    /// The minors' control, after a Winter.
    pub minors: Vec<MinorLine>,
    /// Home centres blockaded this year (R5.4): no fleet built there this Winter.
    pub blockaded: Vec<String>,
    /// Powers whose orders came after the deadline.
    pub late: Vec<String>,
    /// Powers that sent no orders (the rules' defaults were applied).
    pub missing: Vec<String>,
    /// The next phase, or `the game is over`.
    pub next_phase: String,
    /// Its deadline in the game's zone, when it has one.
    pub next_deadline: String,
    /// Who owes orders in the next phase.
    pub owe: String,
    /// The phase's page in the web archive, when the judge publishes one.
    pub page: String,
}

/// What the view needs besides the report.
pub struct Context<'a> {
    /// The game's name.
    pub game: &'a str,
    /// The position the phase was played from.
    pub before: &'a Position,
    /// Powers late and missing.
    pub late: &'a [String],
    /// Powers that sent nothing.
    pub missing: &'a [String],
    /// The next phase's deadline, shown in the game's zone.
    pub next_deadline: Option<String>,
    /// Whether the game ended.
    pub over: bool,
    /// The phase's page in the web archive (`[site] url`), if any.
    pub page: Option<String>,
}

fn name(v: &Variant, p: PowerId) -> String {
    v.power(p).name.clone()
}

pub(crate) fn list_or(items: Vec<String>, empty: &str) -> String {
    if items.is_empty() {
        empty.to_string()
    } else {
        items.join(", ")
    }
}

impl PhaseView {
    /// The view of `report`.
    pub fn new(v: &Variant, report: &PhaseReport, cx: &Context) -> PhaseView {
        let next = &report.next;
        // A blockade is decided only after the second phase (R5.3): its line shows that final
        // outcome, once, rather than the first phase's and then the second's.
        let blockade = |power: PowerId, canonical: &str| {
            report.second.iter().find(|s| {
                s.power == power
                    && matches!(s.order.kind, OrderKind::Blockade { .. })
                    && s.canonical == canonical
            })
        };
        let mut powers: Vec<PowerLines> = report
            .powers
            .iter()
            .map(|p| PowerLines {
                power: name(v, p.power),
                lines: p
                    .orders
                    .iter()
                    .map(|o| {
                        let order = o.canonical.clone().unwrap_or_else(|| o.order.text.clone());
                        let outcome = match (&o.result, blockade(p.power, &order)) {
                            (Ok(_), Some(last)) => last.outcome.describe(v),
                            (Ok(outcome), None) => outcome.describe(v),
                            (Err(e), _) => format!("void: {e}"),
                        };
                        OrderLine { order, outcome }
                    })
                    .collect(),
                note: String::new(),
            })
            .collect();
        for late in cx.late {
            if let Some(p) = powers.iter_mut().find(|p| &p.power == late) {
                p.note = "late".into();
            }
        }
        for missing in cx.missing {
            powers.push(PowerLines {
                power: missing.clone(),
                lines: Vec::new(),
                note: "no orders: civil disorder, the rules' defaults were applied".into(),
            });
        }
        // The units no order named, after each power's orders.
        for u in &report.unordered {
            if let Some(p) = powers.iter_mut().find(|p| p.power == name(v, u.power)) {
                p.lines.push(OrderLine {
                    order: u.force.name(v, u.at),
                    outcome: match u.fate {
                        Fate::Holds => "no order: held".into(),
                        Fate::Disbands => "no order: disbanded".into(),
                    },
                });
            }
        }
        let board = v
            .power_ids()
            .filter_map(|p| {
                let units: Vec<String> = next
                    .forces()
                    .filter(|(_, f)| f.power == p)
                    .map(|(at, f)| f.name(v, at))
                    .collect();
                let unit_count = next
                    .forces()
                    .filter(|(_, f)| f.power == p)
                    .map(|(_, f)| f.components())
                    .sum();
                let centres: Vec<String> = v
                    .centres()
                    .iter()
                    .filter(|c| next.owners[c.index()] == Some(p))
                    .map(|c| v.province(c).code.clone())
                    .collect();
                (!units.is_empty() || !centres.is_empty()).then(|| PowerBoard {
                    power: name(v, p),
                    units: list_or(units, "none"),
                    unit_count,
                    centre_count: centres.len(),
                    centres: centres.join(" "),
                })
            })
            .collect();
        let winter = matches!(report.phase.kind, PhaseKind::Adjustment | PhaseKind::Bids);
        let l = &next.ledgers;
        let majors: Vec<PowerId> = v
            .power_ids()
            .filter(|&p| v.power(p).kind == PowerKind::Major)
            .collect();
        let sheet = if winter {
            majors
                .iter()
                .map(|&p| {
                    let a = l.accounts.get(&p).cloned().unwrap_or_default();
                    let i = l.influence.get(&p).cloned().unwrap_or_default();
                    let loans: Vec<String> = l
                        .loans
                        .iter()
                        .filter_map(|loan| {
                            if loan.lender == p {
                                Some(format!(
                                    "lent {} to {}",
                                    loan.amount,
                                    name(v, loan.borrower)
                                ))
                            } else if loan.borrower == p {
                                Some(format!("owes {} to {}", loan.amount, name(v, loan.lender)))
                            } else {
                                None
                            }
                        })
                        .collect();
                    let minors: Vec<String> = l
                        .controlled_by(p)
                        .map(|m| {
                            let years = l.minors.get(&m).map_or(0, |c| c.years);
                            format!("{} {years}y", name(v, m))
                        })
                        .collect();
                    SheetRow {
                        power: name(v, p),
                        centres: next.centre_count(v, p),
                        sp: a.available,
                        upkeep: a.upkeep,
                        converted: a.converted,
                        bank: l.banked(p),
                        loans: list_or(loans, "-"),
                        ip: i.received,
                        spent: i.spent,
                        minors: list_or(minors, "-"),
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        let ledgers = report
            .ledgers
            .iter()
            .filter(|pl| v.power(pl.power).kind == PowerKind::Major)
            .map(|pl| {
                let items: Vec<String> = pl.items.iter().map(|i| i.text(v)).collect();
                (name(v, pl.power), items.join("; "))
            })
            .collect();
        let minors = if winter {
            v.power_ids()
                .filter(|&p| v.power(p).kind == PowerKind::Minor)
                .map(|m| {
                    let c = l.minors.get(&m).cloned().unwrap_or_default();
                    let mut control = match c.controller {
                        Some(by) => format!(
                            "{} ({} year{})",
                            name(v, by),
                            c.years,
                            if c.years == 1 { "" } else { "s" }
                        ),
                        None => "uncontrolled".into(),
                    };
                    if !c.barred.is_empty() {
                        let barred: Vec<String> = c.barred.iter().map(|&b| name(v, b)).collect();
                        control.push_str(&format!("; barred for good: {}", barred.join(", ")));
                    }
                    MinorLine {
                        minor: name(v, m),
                        control,
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        PhaseView {
            game: cx.game.to_string(),
            phase: v.phase_name(report.phase),
            powers,
            second: report
                .second
                .iter()
                .filter(|s| !matches!(s.order.kind, OrderKind::Blockade { .. }))
                .map(|s| OrderLine {
                    order: format!("{}: {}", name(v, s.power), s.canonical),
                    outcome: s.outcome.describe(v),
                })
                .collect(),
            dislodged: report
                .dislodged
                .iter()
                .map(|r| {
                    let d = &r.dislodged;
                    let to: Vec<String> = r.to.iter().map(|&t| v.region_name(t)).collect();
                    RetreatLine {
                        force: format!(
                            "{}: {}",
                            name(v, d.force.power),
                            d.force.name(v, d.province)
                        ),
                        to: list_or(to, "nowhere: it disbands"),
                    }
                })
                .collect(),
            events: report
                .events
                .iter()
                .map(|e| e.shown(v).to_string())
                .collect(),
            board,
            sheet,
            ledgers,
            minors,
            blockaded: if winter {
                cx.before
                    .blockaded
                    .iter()
                    .map(|c| v.province(c).name.clone())
                    .collect()
            } else {
                Vec::new()
            },
            late: cx.late.to_vec(),
            missing: cx.missing.to_vec(),
            next_phase: if cx.over {
                "none: the game is over".into()
            } else {
                v.phase_name(next.phase)
            },
            next_deadline: cx.next_deadline.clone().unwrap_or_default(),
            owe: list_or(report.owe.iter().map(|&p| name(v, p)).collect(), "nobody"),
            page: cx.page.clone().unwrap_or_default(),
        }
    }
}

/// The results of a movement phase (with the fleets' second phase, R4).
#[derive(Template)]
#[template(path = "movement.txt")]
pub(crate) struct MovementMail<'a> {
    /// The view.
    pub v: &'a PhaseView,
}

/// The results of a retreat phase.
#[derive(Template)]
#[template(path = "retreat.txt")]
pub(crate) struct RetreatMail<'a> {
    /// The view.
    pub v: &'a PhaseView,
}

/// The results of a Winter (adjustments, or Winter 1800's bids), with the tracking sheet.
#[derive(Template)]
#[template(path = "winter.txt")]
pub(crate) struct WinterMail<'a> {
    /// The view.
    pub v: &'a PhaseView,
}

/// The GM's preview: the results mail as it would go, marked as not stored.
#[derive(Template)]
#[template(path = "preview.txt")]
pub(crate) struct PreviewMail<'a> {
    /// The game.
    pub game: &'a str,
    /// The phase.
    pub phase: &'a str,
    /// The results as they would be mailed.
    pub results: &'a str,
    /// Who has not ordered yet.
    pub waiting: &'a str,
}

/// A reminder to a power still owing orders.
#[derive(Template)]
#[template(path = "reminder.txt")]
pub(crate) struct ReminderMail<'a> {
    /// The game.
    pub game: &'a str,
    /// The power.
    pub power: &'a str,
    /// The phase.
    pub phase: &'a str,
    /// The deadline, in the game's zone.
    pub deadline: &'a str,
    /// The end of the grace, in the game's zone.
    pub grace_end: &'a str,
    /// Whether the deadline has passed (the grace has started).
    pub in_grace: bool,
    /// In a Winter, the power's budget before it orders (`Budget: ...`, `IP budget: ...`, a line
    /// each); empty otherwise.
    pub budget: &'a str,
}

/// The word to the old and the new address of a role whose address a SET ADDRESS changed.
#[derive(Template)]
#[template(path = "address.txt")]
pub(crate) struct AddressMail<'a> {
    /// The game.
    pub game: &'a str,
    /// The power (or GM).
    pub role: &'a str,
    /// The new address.
    pub address: &'a str,
    /// The old one, if the role had one.
    pub old: Option<&'a str>,
    /// Who asked.
    pub sender: &'a str,
    /// When.
    pub at: &'a str,
    /// The GM's address.
    pub gm: &'a str,
}

/// The most characters of a user's text (a name, a word, a line, a subject) a mail or an error
/// echoes: enough to recognise it, and a stranger's megabyte line can't make a megabyte reply.
pub(crate) const ECHO_MAX: usize = 200;

/// A user's text as the judge echoes it: whole up to [`ECHO_MAX`] characters, else cut there
/// with "...". The one cut of everything a mail or an error repeats back.
pub(crate) fn echo(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(ECHO_MAX) {
        Some((end, _)) => format!("{}...", text.get(..end).unwrap_or_default()).into(),
        None => text.into(),
    }
}

/// Renders a template, naming the mail when it fails.
pub(crate) fn render<T: Template>(what: &'static str, t: &T) -> Result<String, RenderError> {
    // Optional sections leave runs of blank lines: keep one, and end with a newline (askama drops
    // the template's last one).
    t.render()
        .map(|s| {
            let mut out = String::with_capacity(s.len() + 1);
            for line in s.lines() {
                if !(line.is_empty() && out.ends_with("\n\n")) {
                    out.push_str(line);
                    out.push('\n');
                }
            }
            out
        })
        .map_err(|source| RenderError { what, source })
}

/// The results mail for a phase report, by the kind of phase played.
pub(crate) fn results(view: &PhaseView, kind: PhaseKind) -> Result<String, RenderError> {
    match kind {
        PhaseKind::Movement | PhaseKind::SecondMovement => {
            render("movement results", &MovementMail { v: view })
        }
        PhaseKind::Retreat | PhaseKind::SecondRetreat => {
            render("retreat results", &RetreatMail { v: view })
        }
        PhaseKind::Adjustment | PhaseKind::Bids => {
            render("Winter results", &WinterMail { v: view })
        }
    }
}
