//! The judge around the engine: games in SQLite (the [`Store`], read through a [`View`]), the
//! service ([`Judge`]: every change, one transaction each, at the time its caller gives),
//! deadlines ([`Clock`], [`Period`]), mail in ([`receive`], [`tick`]: an adapter from messages to
//! service calls) and out ([`send`]), and its settings file ([`Config`]). It calls the engine
//! ([`napjudge_engine::play`]) once per phase; the engine never calls it.
//!
//! The modules are private: what the front ends, the replay and the web archive use is
//! re-exported here, and nothing else is public (the lints below hold both ways).

// A `pub` item outside the list below, or a public type missing from it, is a warning.
#![warn(unreachable_pub, unnameable_types)]

mod calendar;
mod clock;
mod config;
mod game;
mod intake;
mod mail;
mod map;
mod notice;
mod outbox;
mod pages;
mod press;
mod render;
mod settings;
mod store;

// The service: every change to a game is one call, one transaction, at the time its caller
// gives; what the calls return, and why they fail.
pub use game::{
    board, check_name, describe as describe_ending, public_secret, verify_password,
    Acknowledgement, Drawn, GameError, GmEnd, Guesser, IssuedCode, Judge, NewGame, OrderCheck,
    OrdersTaken, PasswordCost, Processed, SeatError, Secret, SignonRefusal, TickEvent, TickReport,
    Vote, MIN_PASSWORD, OBSERVER, OTHERS_LIMIT, OWNER_LIMIT, SENDER_LIMIT,
};
pub use notice::NoticeError;
pub use press::PressRefusal;
// The store: opened here, read through a `View`, written only by the service.
pub use store::{Store, StoreError, View, VERSION as SCHEMA_VERSION};
// The store's rows, as a `View` reads them.
pub use store::{
    Choices, Earlier, Ending, Game, GameMail, Mail, NewMessage, OrderText, Periods, PhaseRow,
    Player, PressRow, PressRules, SeatChange, ShellStep,
};
// The store's typed words.
pub use store::{
    Address, Author, ChangeKind, EndKind, GameState, InboxState, MailKind, MailState, PressMode,
    Reminded, Role,
};
// Mail in: a message stored, then answered; the tick that answers what is left and plays the
// phases due; the passwords a stored message keeps apart.
pub use mail::text::{mask as mask_passwords, secrets_text};
pub use mail::{
    receive, receive_incoming, tick, Handled, Incoming, MailConfig, MailError, MAX_SIZE,
};
// Where mail comes from: an IMAP mailbox, a Maildir.
pub use intake::imap::{ImapError, Mailbox, Polled as PolledMessage};
pub use intake::maildir::{poll as poll_maildir, MaildirError, Polled as PolledFile, SetAsideFile};
pub use intake::{SetAside, Taken};
// Mail out: the outbox sent by SMTP or written as files.
pub use outbox::{
    message as outgoing_message, send, OutboxError, Retry, Sent, Server, Target, Which,
};
// `napjudge.toml`.
pub use config::{
    load as load_config, locate as locate_config, parse as parse_config, Config, ConfigError, Imap,
    ImapTls, Judge as JudgeConfig, Outbox as OutboxConfig, Security, Site as SiteConfig, Smtp,
    DEFAULT_FILE,
};
// Time: the clock, periods, times as the GM types them.
pub use clock::{after, parse_time, show_in, storable, Clock, ClockError, Period};
// A game's settings, one reader and one writer.
pub use settings::{current as game_settings, Setting, SettingError};
// For the web archive: its paths, and a phase's results as the results mail shows them.
pub use pages::{game_dir, phase_file};
pub use render::{
    Context, MinorLine, OrderLine, PhaseView, PowerBoard, PowerLines, RenderError, RetreatLine,
    SheetRow,
};
