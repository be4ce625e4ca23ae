//! The judge's small typed values, each stored as the text (or number) the schema has always
//! held: reading a value the program doesn't know is an error, never a default.

use crate::clock::Period;
use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

/// Reads a stored word into one of `values`, or fails naming the word.
fn word_of<T: Copy>(v: ValueRef<'_>, values: &[(T, &'static str)], what: &str) -> FromSqlResult<T> {
    let s = v.as_str()?;
    values
        .iter()
        .find(|(_, w)| *w == s)
        .map(|(t, _)| *t)
        .ok_or_else(|| FromSqlError::Other(format!("'{s}' is not a {what}").into()))
}

/// Declares a stored word type: its values and their words, `word`, `Display`, `ToSql`, `FromSql`.
macro_rules! stored_word {
    ($(#[$doc:meta])* $vis:vis $name:ident, $what:literal, { $($(#[$vdoc:meta])* $variant:ident => $word:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $name {
            $($(#[$vdoc])* $variant),+
        }

        impl $name {
            const WORDS: &'static [($name, &'static str)] = &[$(($name::$variant, $word)),+];

            /// The word stored and shown.
            $vis fn word(self) -> &'static str {
                match self {
                    $($name::$variant => $word),+
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.pad(self.word())
            }
        }

        impl ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
                Ok(ToSqlOutput::from(self.word()))
            }
        }

        impl FromSql for $name {
            fn column_result(v: ValueRef<'_>) -> FromSqlResult<Self> {
                word_of(v, $name::WORDS, $what)
            }
        }
    };
}

stored_word!(
    /// A game's state.
    pub GameState, "game state", {
        /// Created, players being assigned.
        Forming => "forming",
        /// Phases are being played.
        Running => "running",
        /// The GM paused it: no deadline runs, `tick` leaves it.
        Paused => "paused",
        /// A major won (R7.10).
        Finished => "finished",
    }
);

stored_word!(
    /// Where a player's password came from, so a mail that doesn't carry it says what is true.
    pub(crate) PasswordFrom, "password origin", {
        /// The judge generated it and mailed it to the player.
        Mailed => "mailed",
        /// The GM chose it (`game assign ... PASSWORD`).
        Gm => "gm",
        /// The player chose it (SET PASSWORD).
        Player => "player",
    }
);

stored_word!(
    /// What a mail in the outbox is.
    pub MailKind, "mail kind", {
        /// A phase's results, to every player and the GM.
        Results => "results",
        /// Orders are due.
        Reminder => "reminder",
        /// A generated password.
        Password => "password",
        /// The GM told a mail was given up.
        Undeliverable => "undeliverable",
        /// The answer to a mail received.
        Reply => "reply",
        /// Press delivered from a power.
        Press => "press",
        /// The GM (or the judge's own address) told a received mail could not be answered.
        Unanswered => "unanswered",
        /// A change to a game told to everyone in it (`notice::broadcast`).
        Notice => "notice",
        /// The request to confirm an OBSERVE, to the address that would observe.
        Confirm => "confirm",
    }
);

impl MailKind {
    /// The `Auto-Submitted` header (RFC 3834): what the judge sends of itself is
    /// `auto-generated`; the answer to a mail, and the press it carries on, `auto-replied`.
    pub(crate) fn auto_submitted(self) -> &'static str {
        match self {
            MailKind::Results
            | MailKind::Reminder
            | MailKind::Password
            | MailKind::Undeliverable
            | MailKind::Unanswered
            | MailKind::Notice => "auto-generated",
            MailKind::Reply | MailKind::Press | MailKind::Confirm => "auto-replied",
        }
    }

    /// A notice to the GM of a mail lost (given up, or not answered): the only word of it, so
    /// the outbox never gives it up.
    pub(crate) fn is_gm_notice(self) -> bool {
        matches!(self, MailKind::Undeliverable | MailKind::Unanswered)
    }
}

stored_word!(
    /// Where a mail of the outbox stands.
    pub MailState, "mail state", {
        /// Waiting for its first try.
        Queued => "queued",
        /// Delivered.
        Sent => "sent",
        /// A try failed: tried again after its back-off.
        Failed => "failed",
        /// Given up.
        Undeliverable => "undeliverable",
    }
);

stored_word!(
    /// Why a try of a mail failed, which decides what happens to it next.
    pub(crate) Fault, "mail fault", {
        /// The server couldn't be used at all (no connection, a timeout, TLS, a failed login,
        /// 421): retried up to the retry days, and once given up, sent again by itself when a
        /// later send reaches the server.
        Unreachable => "unreachable",
        /// The server refused this mail for now (4xx): retried up to the retry days.
        Deferred => "deferred",
        /// The server refused this mail for good (5xx), or it can't be written (an address that
        /// isn't one): given up at once; `outbox retry` sends it again.
        Permanent => "permanent",
    }
);

stored_word!(
    /// Where a received message stands.
    pub InboxState, "received mail's state", {
        /// Stored, not answered yet (the next `tick` answers it).
        Stored => "stored",
        /// Answered.
        Answered => "answered",
        /// Seen before, answered as a duplicate.
        Duplicate => "duplicate",
        /// Not answered, on purpose (automatic mail, the judge's own, a loop).
        Ignored => "ignored",
        /// Answering it failed (the note says why); later ticks skip it, the GM was told.
        Failed => "failed",
    }
);

stored_word!(
    /// How a seat changed hands.
    pub ChangeKind, "seat change", {
        /// Its player left it (RESIGN).
        Resigned => "resigned",
        /// Its player missed too many phases in a row.
        Abandoned => "abandoned",
        /// The GM gave it to a new player (`game replace`, REPLACE).
        Replaced => "replaced",
        /// A new player took it with the GM's code (TAKEOVER).
        TookOver => "took over",
    }
);

stored_word!(
    /// Which press a game's players may send: the GM's press always goes.
    pub PressMode, "press option", {
        /// Private and public press, the sender named.
        White => "white",
        /// As white, and `PRESS GREY TO` / `BROADCAST GREY`: the sender not named.
        Grey => "grey",
        /// Broadcasts only, the sender named.
        Public => "public",
        /// No press from the players.
        None => "none",
    }
);

impl Default for PressMode {
    /// What every game had before the option: white press.
    fn default() -> PressMode {
        PressMode::White
    }
}

impl PressMode {
    /// The mode a word names (any case), or none.
    pub(crate) fn parse(word: &str) -> Option<PressMode> {
        PressMode::WORDS
            .iter()
            .find(|(_, w)| w.eq_ignore_ascii_case(word))
            .map(|(m, _)| *m)
    }
}

stored_word!(
    /// Who entered an order text.
    pub Author, "author of orders", {
        /// The power's player (by mail, or `game orders --as-player`).
        Player => "player",
        /// The GM.
        Gm => "gm",
    }
);

/// Who a player row is: the GM (the password the GM signs on with by mail) or a power.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// The game's GM.
    Gm,
    /// A major power, by its name in the variant.
    Power(String),
}

impl Role {
    /// The word stored, and written in a SIGNON, for the GM.
    pub(crate) const GM: &'static str = "GM";

    /// The role named `name`: `GM` in any case, else the power as written.
    pub(crate) fn named(name: &str) -> Role {
        if name.eq_ignore_ascii_case(Role::GM) {
            Role::Gm
        } else {
            Role::Power(name.to_string())
        }
    }

    /// Its name: `GM`, or the power's.
    pub(crate) fn name(&self) -> &str {
        match self {
            Role::Gm => Role::GM,
            Role::Power(p) => p,
        }
    }

    /// The power, unless it is the GM.
    pub fn power(&self) -> Option<&str> {
        match self {
            Role::Gm => None,
            Role::Power(p) => Some(p),
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

impl ToSql for Role {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.name()))
    }
}

impl FromSql for Role {
    fn column_result(v: ValueRef<'_>) -> FromSqlResult<Self> {
        // The GM's row has always been stored as the power `GM`.
        v.as_str().map(|s| match s {
            Role::GM => Role::Gm,
            p => Role::Power(p.to_string()),
        })
    }
}

/// The reminders sent for a phase, in the order they go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reminded {
    /// None yet.
    None,
    /// The one before the deadline.
    BeforeDeadline,
    /// The one when the grace starts.
    Grace,
}

impl ToSql for Reminded {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(match self {
            Reminded::None => 0i64,
            Reminded::BeforeDeadline => 1,
            Reminded::Grace => 2,
        }))
    }
}

impl FromSql for Reminded {
    fn column_result(v: ValueRef<'_>) -> FromSqlResult<Self> {
        match v.as_i64()? {
            0 => Ok(Reminded::None),
            1 => Ok(Reminded::BeforeDeadline),
            2 => Ok(Reminded::Grace),
            n => Err(FromSqlError::OutOfRange(n)),
        }
    }
}

/// A mail address as given (kept for sending and showing), compared and counted in one
/// case-folded form: `France@Example.org` and `france@example.org` are the same player.
#[derive(Clone, Debug, Default, Eq)]
pub struct Address(String);

impl Address {
    /// The address as written, trimmed.
    pub fn new(text: &str) -> Address {
        Address(text.trim().to_string())
    }

    /// As written.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The one case-folding every comparison uses (ASCII: the domain is case-blind, and no
    /// mail server this judge meets tells local parts apart by case).
    pub(crate) fn folded(&self) -> String {
        self.0.to_ascii_lowercase()
    }

    /// Whether it is a mail address the judge can send to (`name@example.org`): one `@`, a
    /// domain with a dot, and what lettre, which sends the mail, can parse (an address it
    /// can't would fail at every try of every mail to it).
    pub(crate) fn is_valid(&self) -> bool {
        let a = &self.0;
        let mut parts = a.split('@');
        matches!(
            (parts.next(), parts.next(), parts.next()),
            (Some(l), Some(d), None) if !l.is_empty() && d.contains('.') && !a.contains(char::is_whitespace)
        ) && a.parse::<lettre::Address>().is_ok()
    }
}

impl PartialEq for Address {
    fn eq(&self, other: &Address) -> bool {
        self.0.eq_ignore_ascii_case(&other.0)
    }
}

impl std::hash::Hash for Address {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.folded().hash(state)
    }
}

impl std::fmt::Display for Address {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(&self.0)
    }
}

impl ToSql for Address {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.0.as_str()))
    }
}

impl FromSql for Address {
    fn column_result(v: ValueRef<'_>) -> FromSqlResult<Self> {
        v.as_str().map(Address::new)
    }
}

/// A period is stored as its seconds; a stored value out of bounds (an older napjudge had none)
/// is read as the nearest bound (`Period::clamped`), never an error that would stop a tick.
impl ToSql for Period {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.secs()))
    }
}

impl FromSql for Period {
    fn column_result(v: ValueRef<'_>) -> FromSqlResult<Self> {
        v.as_i64().map(Period::clamped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A state the program doesn't know is an error, not `Forming`.
    #[test]
    fn an_unknown_game_state_is_an_error() {
        let got = GameState::column_result(ValueRef::Text(b"archived"));
        assert!(got.is_err());
        let got = GameState::column_result(ValueRef::Text(b"paused"));
        assert_eq!(got.ok(), Some(GameState::Paused));
    }

    /// RFC 3834: the judge's own mails are auto-generated, its answers auto-replied.
    #[test]
    fn auto_submitted_follows_the_kind() {
        assert_eq!(MailKind::Results.auto_submitted(), "auto-generated");
        assert_eq!(MailKind::Undeliverable.auto_submitted(), "auto-generated");
        assert_eq!(MailKind::Reply.auto_submitted(), "auto-replied");
        assert_eq!(MailKind::Press.auto_submitted(), "auto-replied");
    }

    /// The GM's notices of a lost mail, given up or never answered,
    /// are the outbox's to keep trying; the players' mails are not.
    #[test]
    fn the_gms_notices_of_lost_mail_are_never_given_up() {
        assert!(MailKind::Undeliverable.is_gm_notice());
        assert!(MailKind::Unanswered.is_gm_notice());
        assert!(!MailKind::Results.is_gm_notice());
        assert!(!MailKind::Reply.is_gm_notice());
    }

    /// One case-folding for addresses.
    #[test]
    fn addresses_compare_case_blind_and_keep_their_text() {
        let a = Address::new(" France@Example.org ");
        assert_eq!(a, Address::new("france@example.org"));
        assert_eq!(a.as_str(), "France@Example.org");
        assert_eq!(a.folded(), "france@example.org");
        assert!(!Address::new("nobody").is_valid());
    }

    /// The GM's row keeps the stored word `GM`.
    #[test]
    fn the_gm_role_reads_back_from_its_stored_word() {
        assert_eq!(
            Role::column_result(ValueRef::Text(b"GM")).ok(),
            Some(Role::Gm)
        );
        assert_eq!(Role::named("gm"), Role::Gm);
        assert_eq!(Role::named("France").power(), Some("France"));
    }
}

stored_word!(
    /// How a game ended (`endings.kind`).
    pub EndKind, "kind of ending", {
        /// A major won (R7.10).
        Victory => "victory",
        /// Every surviving major voted for a draw, or the GM declared one.
        Draw => "draw",
        /// Every other surviving major conceded to one.
        Concession => "concession",
        /// The GM ended it, with a reason and no result.
        Gm => "gm",
    }
);
