//! Who hears of a game, and the one way a change is told to all of them. The results of a
//! phase and every notice of a change (the GM's, a seat's, an ending) go to the same people:
//! each player, the GM and the observers, each address once.

use crate::clock;
use crate::render::{self, RenderError};
use crate::settings::Setting;
use crate::store::{
    Address, Game, GameState, MailKind, NewMail, PasswordFrom, PressMode, Role, StoreError, Tx,
    View,
};
use chrono::{DateTime, Utc};
use napjudge_engine::variant::Variant;
use std::collections::HashSet;

/// Everyone a game's news goes to: each player's address in the order of the players, then the
/// GM's, then the observers'; an address once, so a player of two powers (or a GM who plays) gets one copy.
pub(crate) fn audience(view: View<'_>, game: &Game) -> Result<Vec<Address>, StoreError> {
    let mut to: Vec<Address> = view
        .players(game.id)?
        .into_iter()
        .map(|p| p.address)
        .collect();
    to.push(game.gm.clone());
    // Observers hear of everything told to the whole game: results and notices.
    to.extend(view.observers(game.id)?);
    let mut seen = HashSet::new();
    to.retain(|a| seen.insert(a.clone()));
    Ok(to)
}

/// One mail to everyone in the game.
pub(crate) struct Broadcast<'a> {
    /// What kind of mail it is.
    pub kind: MailKind,
    /// The phase it belongs to, if any.
    pub phase: Option<i64>,
    /// Its subject.
    pub subject: &'a str,
    /// Its body.
    pub body: &'a str,
}

impl<'a> Broadcast<'a> {
    /// A notice of no phase: what happened to the game as a whole.
    pub(crate) fn notice(subject: &'a str, body: &'a str) -> Broadcast<'a> {
        Broadcast {
            kind: MailKind::Notice,
            phase: None,
            subject,
            body,
        }
    }
}

/// Queues `mail` to each of the game's [`audience`] in the transaction `tx`; returns how many
/// mails were queued.
pub(crate) fn broadcast(
    tx: &Tx<'_>,
    game: &Game,
    mail: &Broadcast<'_>,
    now: DateTime<Utc>,
) -> Result<usize, StoreError> {
    let to = audience(tx.view(), game)?;
    for addr in &to {
        tx.queue_mail(
            &NewMail {
                game: Some(game.id),
                phase: mail.phase,
                kind: mail.kind,
                to: addr.as_str(),
                subject: mail.subject,
                body: mail.body,
                in_reply_to: None,
            },
            now,
        )?;
    }
    Ok(to.len())
}

/// Why a notice or a seat's mail can't be queued.
#[derive(Debug, thiserror::Error)]
pub enum NoticeError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The mail can't be rendered.
    #[error(transparent)]
    Render(#[from] RenderError),
}

impl NoticeError {
    /// Whether the database file or the machine failed.
    pub(crate) fn is_database_fault(&self) -> bool {
        matches!(self, NoticeError::Store(e) if e.is_database_fault())
    }
}

/// A change the GM made to a game under way, as its notice tells it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Change {
    /// The GM moved the current phase's deadline.
    Deadline {
        /// The deadline it had (none: it had none).
        from: Option<DateTime<Utc>>,
        /// The new one.
        to: DateTime<Utc>,
    },
    /// A setting changed.
    Setting(Setting),
    /// The game is paused.
    Paused,
    /// The game runs again.
    Resumed,
    /// The game went back to the start of a phase played before.
    RolledBack {
        /// The phase it is back at.
        to: String,
        /// The phases whose results are void, in order.
        void: Vec<String>,
        /// Why, as the GM gave it.
        reason: Option<String>,
    },
    /// The GM named a minor's controller, or none (R7.8).
    Control {
        /// The minor.
        minor: String,
        /// Its controller, or none.
        by: Option<String>,
    },
    /// The GM entered a power's orders: told to that power's player and the GM only.
    GmOrders {
        /// The power.
        power: String,
        /// The orders kept, as read.
        orders: Vec<String>,
    },
    /// A power's player resigned (RESIGN): its seat is open.
    Resigned {
        /// The power.
        power: String,
    },
    /// A power's player sent no orders for the game's number of phases in a row: its seat is
    /// open. Told to everyone and to the player who had it.
    Abandoned {
        /// The power.
        power: String,
        /// The phases missed in a row.
        missed: u32,
        /// The player who had it.
        old: Option<Address>,
    },
    /// A new player took an open seat with the GM's code: told to everyone but the new
    /// player (who gets the start mail).
    TookOver {
        /// The power.
        power: String,
        /// The new player's address.
        new: Address,
    },
    /// A power was given to another player (`game assign` in a game under way, `game
    /// replace`, REPLACE): told to everyone but the new player (who gets the start mail), and
    /// to the old one.
    Replaced {
        /// The power.
        power: String,
        /// The old player's address (none: the seat was open).
        old: Option<Address>,
        /// The new player's address.
        new: Address,
    },
}

/// What civil disorder means, as the seats' notices say it.
const CIVIL_DISORDER: &str = "its units get no orders (civil disorder: the rules' defaults for \
     a power without orders apply) until a new player takes the seat over";

/// The notice's line for a setting changed: what it means for the players.
fn setting_means(s: &Setting) -> String {
    let phases = |n: u32| if n == 1 { "phase" } else { "phases" };
    match s {
        Setting::Movement(_) | Setting::Retreat(_) | Setting::Winter(_) => {
            "It counts from the next phase on; the current deadline stands.".into()
        }
        Setting::Grace(_) => "The grace follows every deadline, the current one too.".into(),
        Setting::Remind(_) => "Reminders go this long before each deadline.".into(),
        Setting::Zone(_) => "Times are shown, and the GM's are read, in this zone.".into(),
        Setting::Wait(true) => {
            "Each phase now waits for its deadline, even when everyone has ordered.".into()
        }
        Setting::Wait(false) => "A phase is now processed as soon as everyone has ordered.".into(),
        Setting::Pictures(_) => "Result mails carry a picture of the board, or not.".into(),
        Setting::Press(PressMode::White) => {
            "Players' press names its sender: PRESS TO and BROADCAST.".into()
        }
        Setting::Press(PressMode::Grey) => "Players may also send press without their name: \
             PRESS GREY TO and BROADCAST GREY."
            .into(),
        Setting::Press(PressMode::Public) => {
            "Players send broadcasts only (BROADCAST), which go to every power.".into()
        }
        Setting::Press(PressMode::None) => {
            "Players send no press; only the GM's press goes.".into()
        }
        Setting::Anonymous(true) => {
            "Players are known by their powers only: no player's address is shown to another."
                .into()
        }
        Setting::Anonymous(false) => "Players are no longer anonymous; a player's LIST still \
             shows only their own address and the GM's."
            .into(),
        Setting::GmCopy(true) => {
            "The GM gets a copy, naming the sender, of every press a player sends.".into()
        }
        Setting::GmCopy(false) => "The GM no longer gets a copy of the players' press.".into(),
        Setting::Abandon(0) => "No power is abandoned for missing phases.".into(),
        Setting::Abandon(n) => format!(
            "A power whose player sends no orders for {n} {} in a row is abandoned: its seat \
             opens.",
            phases(*n)
        ),
        Setting::Observers(0) => {
            "OBSERVE by mail is refused from now; the observers the game has stay.".into()
        }
        Setting::Observers(n) => format!(
            "Anyone may OBSERVE the game by mail, confirmed from their address, up to {n} \
             observers in all; those the game has stay."
        ),
        Setting::Delay(p) if p.secs() == 0 => {
            "Once everyone has ordered, the phase is processed at once.".into()
        }
        Setting::Delay(p) => format!(
            "Once everyone has ordered, the phase is processed {p} after the last orders; a \
             change of orders starts the delay again."
        ),
        Setting::AbsenceMaxDays(n) => format!(
            "A player may register an absence (SET ABSENCE) of up to {n} days; those \
             registered stand."
        ),
        Setting::AbsencesPerYear(n) => format!(
            "A power may register up to {n} absences a year (SET ABSENCE); those registered \
             stand."
        ),
    }
}

impl Change {
    /// The subject's words after the game's name, and the notice's lines.
    fn text(&self, game: &Game) -> (String, Vec<String>) {
        match self {
            Change::Deadline { from, to } => {
                let when = |t| clock::show_in(t, &game.timezone);
                let from = from
                    .map(|f| format!(" from {}", when(f)))
                    .unwrap_or_default();
                (
                    "the deadline moved".into(),
                    vec![format!(
                        "The GM moved the deadline of the current phase{from} to {}.",
                        when(*to)
                    )],
                )
            }
            Change::Setting(s) => (
                format!("{s}"),
                vec![format!("The GM changed a setting: {s}."), setting_means(s)],
            ),
            Change::Paused => (
                "paused".into(),
                vec![
                    "The GM paused the game: no deadline runs and no orders are taken until it \
                     resumes."
                        .into(),
                ],
            ),
            Change::Resumed => (
                "resumed".into(),
                vec!["The GM resumed the game: orders are taken again.".into()],
            ),
            Change::RolledBack { to, void, reason } => {
                let mut lines = vec![
                    format!("The GM rolled the game back to the start of {to}."),
                    format!("Void: the results of {}.", void.join(", ")),
                ];
                if let Some(r) = reason {
                    lines.push(format!("The GM's reason: {r}"));
                }
                lines.push(format!(
                    "The orders given for {to} stand as they were: send new ones to change \
                     yours. The next results of {to} replace the void ones."
                ));
                (format!("rolled back to {to}"), lines)
            }
            Change::Control { minor, by } => {
                let line = match by {
                    Some(p) => format!("The GM gives control of {minor} to {p}."),
                    None => format!("The GM leaves {minor} without a controller."),
                };
                (
                    format!("control of {minor}"),
                    vec![
                        line,
                        "It is carried out when the current phase is processed.".into(),
                    ],
                )
            }
            Change::GmOrders { power, orders } => {
                let mut lines = vec![format!(
                    "The GM entered these orders for {power}; they replace the orders in force:"
                )];
                lines.extend(orders.iter().map(|o| format!("  {o}")));
                lines.push(format!(
                    "{power}'s player may send new orders to replace them."
                ));
                (format!("orders entered for {power} by the GM"), lines)
            }
            Change::Resigned { power } => (
                format!("{power} resigned"),
                vec![format!(
                    "{power}'s player has resigned. The seat is open: {CIVIL_DISORDER}."
                )],
            ),
            Change::Abandoned { power, missed, .. } => (
                format!("{power} abandoned"),
                vec![
                    format!(
                        "{power} sent no orders for {missed} phases in a row and is abandoned. \
                         The seat is open: {CIVIL_DISORDER}."
                    ),
                    format!(
                        "The old password of {power} no longer signs on: to play it again, \
                         ask the GM ({}) for a takeover code.",
                        game.gm
                    ),
                ],
            ),
            Change::TookOver { power, .. } => (
                format!("{power} has a new player"),
                vec![format!(
                    "A new player has taken over the open seat of {power} with the GM's code."
                )],
            ),
            Change::Replaced { power, old, .. } => {
                let mut lines = vec![format!("The GM gave {power} to a new player.")];
                if old.is_some() {
                    lines.push(format!("The old password of {power} no longer signs on."));
                }
                (format!("{power} has a new player"), lines)
            }
        }
    }

    /// Who hears of it, besides the GM: everyone in the game, or only some.
    fn audience(&self, view: View<'_>, game: &Game) -> Result<Vec<Address>, StoreError> {
        let mut to = match self {
            Change::GmOrders { power, .. } => view
                .players(game.id)?
                .into_iter()
                .filter(|p| p.role.power() == Some(power.as_str()))
                .map(|p| p.address)
                .chain([game.gm.clone()])
                .collect(),
            Change::Replaced { old, new, .. } => {
                let mut to: Vec<Address> = audience(view, game)?
                    .into_iter()
                    .filter(|a| a != new)
                    .collect();
                to.extend(old.iter().cloned());
                to
            }
            Change::TookOver { new, .. } => audience(view, game)?
                .into_iter()
                .filter(|a| a != new)
                .collect(),
            Change::Abandoned { old, .. } => {
                let mut to = audience(view, game)?;
                to.extend(old.iter().cloned());
                to
            }
            _ => audience(view, game)?,
        };
        let mut seen = HashSet::new();
        to.retain(|a| seen.insert(a.clone()));
        Ok(to)
    }
}

/// A notice of a change: what changed, then the phase and its deadline now, in the game's zone.
#[derive(askama::Template)]
#[template(path = "notice.txt")]
pub(crate) struct NoticeMail<'a> {
    /// The game.
    pub game: &'a str,
    /// What changed, a line each.
    pub lines: &'a [String],
    /// The phase now (or that the game has not started, or is over).
    pub phase: &'a str,
    /// Its deadline and grace in the game's zone, or why it has none.
    pub deadline: &'a str,
}

/// The phase now and its deadline in the game's zone, as the notices and start mails show them.
pub(crate) fn phase_now(
    view: View<'_>,
    v: &Variant,
    game: &Game,
) -> Result<(String, String), StoreError> {
    let Some(phase) = view.current_phase(game.id)? else {
        return Ok(("none: the game is over".into(), "none".into()));
    };
    let name = v.phase_name(phase.position.phase);
    let deadline = match (game.state, phase.deadline) {
        (GameState::Paused, _) => "none while the game is paused".to_string(),
        (_, None) => "none".to_string(),
        (_, Some(d)) => {
            let grace = clock::after(d, game.periods.grace.secs()).map_or_else(
                |_| "past the end of the calendar".to_string(),
                |g| clock::show_in(g, &game.timezone),
            );
            format!("{}; grace until {grace}", clock::show_in(d, &game.timezone))
        }
    };
    Ok((name, deadline))
}

/// Tells those a change concerns ([`Change`]: everyone, or the power and the GM) what changed,
/// with the phase and deadline now, in the transaction `tx` of the change itself. The number
/// of mails queued.
pub(crate) fn tell(
    tx: &Tx<'_>,
    v: &Variant,
    game: &Game,
    change: &Change,
    now: DateTime<Utc>,
) -> Result<usize, NoticeError> {
    let (what, lines) = change.text(game);
    let (phase, deadline) = phase_now(tx.view(), v, game)?;
    let body = render::render(
        "notice",
        &NoticeMail {
            game: &game.name,
            lines: &lines,
            phase: &phase,
            deadline: &deadline,
        },
    )?;
    let subject = format!("{}: {what}", game.name);
    let to = change.audience(tx.view(), game)?;
    for addr in &to {
        tx.queue_mail(
            &NewMail {
                game: Some(game.id),
                phase: None,
                kind: MailKind::Notice,
                to: addr.as_str(),
                subject: &subject,
                body: &body,
                in_reply_to: None,
            },
            now,
        )?;
    }
    Ok(to.len())
}

/// A seat's mail: what a player (or the GM) needs to play, mailed when a power is assigned
/// (with its generated password, or word that the GM gives it) and when the game starts.
#[derive(askama::Template)]
#[template(path = "password.txt")]
pub(crate) struct SeatMail<'a> {
    /// The game.
    pub game: &'a str,
    /// The power, or `GM`.
    pub power: &'a str,
    /// Whether it is the GM's mail.
    pub gm: bool,
    /// The password, when the mail carries it.
    pub password: Option<&'a str>,
    /// Otherwise, where the password came from.
    pub from: Said,
    /// The judge's address, where commands go.
    pub judge: &'a str,
    /// The GM's address.
    pub gm_address: &'a str,
    /// The phase now, once the game has started.
    pub phase: Option<String>,
    /// Its deadline in the game's zone.
    pub deadline: String,
    /// The game's zone.
    pub zone: &'a str,
}

/// Where the password a seat mail doesn't carry came from, as the mail says it.
pub(crate) enum Said {
    /// Generated and mailed to the player, at that time (in the game's zone).
    Mailed(String),
    /// The GM chose it.
    ByGm,
    /// The player chose it with SET PASSWORD.
    ByPlayer,
    /// Not recorded (set by an older napjudge).
    Unrecorded,
    /// There is none: nobody was assigned the role (the GM can be, to sign on by mail).
    NoPassword,
}

/// Queues the seat mail of `role` at `to` (kind `Password` when it carries one), with the
/// phase now when the game has started; a generated password is kept apart so that sending
/// masks it. The mail's id.
#[allow(clippy::too_many_arguments)]
pub(crate) fn seat(
    tx: &Tx<'_>,
    v: &Variant,
    game: &Game,
    judge: &str,
    role: &Role,
    to: &Address,
    password: Option<&str>,
    now: DateTime<Utc>,
) -> Result<i64, NoticeError> {
    let started = matches!(game.state, GameState::Running | GameState::Paused);
    let (phase, deadline) = match started {
        true => {
            let (p, d) = phase_now(tx.view(), v, game)?;
            (Some(p), d)
        }
        false => (None, String::new()),
    };
    let from = match tx.view().password_from(game.id, role)? {
        Some(Some(set)) => match set.from {
            PasswordFrom::Mailed => Said::Mailed(clock::show_in(set.at, &game.timezone)),
            PasswordFrom::Gm => Said::ByGm,
            PasswordFrom::Player => Said::ByPlayer,
        },
        Some(None) => Said::Unrecorded,
        None => Said::NoPassword,
    };
    let body = render::render(
        "seat",
        &SeatMail {
            game: &game.name,
            power: role.name(),
            gm: *role == Role::Gm,
            password,
            from,
            judge,
            gm_address: game.gm.as_str(),
            phase,
            deadline,
            zone: &game.timezone,
        },
    )?;
    let who = match role {
        Role::Gm => "the GM".to_string(),
        Role::Power(p) => p.clone(),
    };
    let (kind, subject) = match (password.is_some(), started) {
        (true, _) => (
            MailKind::Password,
            format!("{}: your password for {role}", game.name),
        ),
        (false, true) => (
            MailKind::Notice,
            format!("{}: the game is under way, you are {who}", game.name),
        ),
        (false, false) => (MailKind::Notice, format!("{}: you are {who}", game.name)),
    };
    let id = tx.queue_mail(
        &NewMail {
            game: Some(game.id),
            phase: None,
            kind,
            to: to.as_str(),
            subject: &subject,
            body: &body,
            in_reply_to: None,
        },
        now,
    )?;
    if let Some(pw) = password {
        tx.mail_secret(id, pw)?;
    }
    Ok(id)
}
