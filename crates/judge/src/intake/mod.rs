//! Where mail comes in from besides a pipe: an IMAP mailbox ([`imap`]). Each intake hands every
//! message to [`crate::mail::receive_incoming`] and lets it go at its source only once it is
//! stored.

pub mod imap;
