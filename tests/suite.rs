//! The judge's integration tests, as one test binary: each file beside this one is a module (one
//! link of the whole judge instead of one per file, as the cargo project does), and the helpers
//! they share are modules here too.
//!
//! Run them with `tests/run` (it installs what the tests need first); `cargo test --release
//! --test suite MODULE::` runs one file's tests.

// What the tests share.
mod common;
#[path = "imap/dovecot.rs"]
mod dovecot;
mod generated;
mod golden;
mod intake;
#[path = "smtp/server.rs"]
mod server;
mod tree;

mod architecture;
mod board_shapes;
mod calendar;
mod cli;
mod datc_order;
mod early_times;
mod editions;
mod fixtures;
mod imap;
mod imap_hostile;
mod judge_crash;
mod judge_game;
mod judge_templates;
mod legality;
mod limits;
mod mail;
mod mail_endings;
mod mail_life;
mod mail_notices;
mod mail_press;
mod mail_reading;
mod mail_seats;
mod mail_settings;
mod mail_warnings;
mod observe;
mod order_parse;
mod outage;
mod picture;
mod properties;
mod replay;
mod round_trip;
mod secrets;
mod serde;
mod serve;
mod setup;
mod site;
mod smtp;
mod stale_mail;
mod validate;
mod variant_load;
mod warnings;
mod webdiplomacy_games;
mod winter_properties;
mod wiring;
