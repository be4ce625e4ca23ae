//! Passwords: generating a player's, and hashing and checking them with argon2.

use super::GameError;
use argon2::password_hash::PasswordHasher;
use chrono::{DateTime, Utc};

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

/// Where the passwords and takeover codes the judge draws come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Drawn {
    /// The system's random source: what a real judge uses.
    #[default]
    Random,
    /// [`public_secret`]: a replayed game folder's, so that its mails written with them (the
    /// exported ones: `crates/replay/src/dump.rs`) sign on as the recorded game's did.
    Public,
}

impl Drawn {
    /// A password or code for `role` of `game`, drawn at `now`.
    pub(crate) fn draw(
        self,
        what: Secret,
        role: &str,
        game: &str,
        now: DateTime<Utc>,
    ) -> Result<String, GameError> {
        match self {
            Drawn::Random => new_password(),
            Drawn::Public => Ok(public_secret(what, role, game, now)),
        }
    }
}

/// The name an OBSERVE's token is drawn for ([`Secret::Token`]): an observer has no role.
pub const OBSERVER: &str = "observer";

/// A drawn password or code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Secret {
    /// A player's password (`game assign` without one, `game replace`, a TAKEOVER).
    Password,
    /// A takeover code (`game code`, CODE).
    Code,
    /// An OBSERVE's token, drawn for the role `observer`.
    Token,
}

/// What a judge with [`Drawn::Public`] draws for `role` of `game` at `at`: `russia-life-
/// 20261209T000000`, `code-russia-life-...`. Public, and known from the seat changes' and the
/// codes' times alone.
pub fn public_secret(what: Secret, role: &str, game: &str, at: DateTime<Utc>) -> String {
    let base = format!(
        "{}-{}-{}",
        role.to_ascii_lowercase(),
        game.to_ascii_lowercase(),
        at.format("%Y%m%dT%H%M%S")
    );
    match what {
        Secret::Password => base,
        Secret::Code => format!("code-{base}"),
        Secret::Token => format!("token-{base}"),
    }
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
pub(crate) fn hash_password(password: &str) -> Result<String, GameError> {
    hash_password_at(password, PasswordCost::Full)
}

/// The argon2 PHC string of a password, at the cost given.
pub(crate) fn hash_password_at(password: &str, cost: PasswordCost) -> Result<String, GameError> {
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
