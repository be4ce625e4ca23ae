//! The judge's configuration file, `napjudge.toml`: the judge's own address, the mail server and
//! the outbox. Read with [`load`]; every field has a default, so a missing file in the working
//! directory is the same as an empty one.

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The file read when neither `--config` nor `NAPJUDGE_CONFIG` names one.
pub const DEFAULT_FILE: &str = "napjudge.toml";

/// Why the configuration can't be read.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file can't be read.
    #[error("{path}: {source} (give an existing file with --config or NAPJUDGE_CONFIG)")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file isn't valid TOML, or a field is unknown or of the wrong type.
    #[error("{path}: {message} (see napjudge.toml.example)")]
    Syntax {
        /// The file.
        path: String,
        /// The parser's message, with the line.
        message: String,
    },
    /// The CA file can't be read.
    #[error("smtp ca_file {path}: {source} (a PEM certificate)")]
    CaFile {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The SMTP password file can't be read.
    #[error("smtp password_file {path}: {source} (a file holding only the password)")]
    Password {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A user is given but no password file.
    #[error("smtp user '{0}' has no password_file: add one under [smtp] in napjudge.toml")]
    NoPassword(String),
    /// The IMAP password can't be had.
    #[error("[imap]: {0} (give password_env = \"VARIABLE\" or password_command = \"COMMAND\" under [imap] in napjudge.toml; never the password itself)")]
    ImapPassword(String),
    /// The judge's own address is not set, and a mail would go from a made-up one.
    #[error("no judge address: write address = \"judge@your.domain\" under [judge] in napjudge.toml (or give --from): mail is not sent from {0}")]
    NoAddress(String),
    /// A number outside what napjudge takes for it.
    #[error("{field} = {value}: give a number from {min} to {max} ({why})")]
    Bound {
        /// The field, with its section (`[outbox] retry_days`).
        field: &'static str,
        /// The value given.
        value: u64,
        /// The least value taken.
        min: u64,
        /// The greatest value taken.
        max: u64,
        /// What the bound is for.
        why: &'static str,
    },
    /// An `--smtp` URL that can't be used.
    #[error("--smtp {url}: {why} (write smtp://host:port, smtp://host?tls=required or smtps://user@host)")]
    Url {
        /// The URL.
        url: String,
        /// What is wrong with it.
        why: &'static str,
    },
}

/// `napjudge.toml`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// `[judge]`.
    pub judge: Judge,
    /// `[smtp]`: absent means mails are not sent by SMTP.
    pub smtp: Option<Smtp>,
    /// `[outbox]`.
    pub outbox: Outbox,
    /// `[site]`: the web archive (`napjudge site`).
    pub site: Site,
    /// `[imap]`: the mailbox the judge's mail is read from (`mail poll --imap`, `serve`).
    pub imap: Option<Imap>,
}

/// How the connection to the IMAP server is secured (there is no plain IMAP: the password
/// would cross the network in clear).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ImapTls {
    /// TLS from the first byte (port 993).
    #[default]
    Implicit,
    /// A plain connection upgraded by STARTTLS, which is required (port 143).
    Starttls,
}

/// `[imap]`: the hosted mailbox the judge reads its mail from.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Imap {
    /// The server's host name.
    pub host: String,
    /// The port; by default 993 (implicit) or 143 (starttls).
    pub port: Option<u16>,
    /// implicit or starttls.
    #[serde(default)]
    pub tls: ImapTls,
    /// The user to log in as.
    pub user: String,
    /// The environment variable holding the password.
    pub password_env: Option<String>,
    /// A command whose first line of output is the password (`pass show judge`, `cat FILE`).
    pub password_command: Option<String>,
    /// The folder the judge's mail arrives in.
    #[serde(default = "default_folder")]
    pub folder: String,
    /// The folder a message is moved to once it is stored (made when missing).
    #[serde(default = "default_done")]
    pub done: String,
    /// The folder a message is moved to when it can't be stored whole (made when missing).
    #[serde(default = "default_failed")]
    pub failed: String,
    /// Seconds to wait for the server at each step.
    #[serde(default = "default_timeout")]
    pub timeout: u64,
    /// A PEM certificate to trust besides the public roots: the CA of a private mail server.
    pub ca_file: Option<PathBuf>,
}

fn default_folder() -> String {
    "INBOX".into()
}

fn default_done() -> String {
    "napjudge-answered".into()
}

fn default_failed() -> String {
    "napjudge-failed".into()
}

impl Imap {
    /// The port to connect to.
    pub fn port(&self) -> u16 {
        self.port.unwrap_or(match self.tls {
            ImapTls::Implicit => 993,
            ImapTls::Starttls => 143,
        })
    }

    /// The password: the environment variable `password_env` names, else the first line the
    /// command `password_command` prints (run by `sh -c`).
    pub(crate) fn password(&self) -> Result<String, ConfigError> {
        if let Some(var) = &self.password_env {
            return match std::env::var(var) {
                Ok(p) if !p.is_empty() => Ok(p),
                _ => Err(ConfigError::ImapPassword(format!(
                    "the environment variable {var} (password_env) is not set"
                ))),
            };
        }
        let Some(command) = &self.password_command else {
            return Err(ConfigError::ImapPassword(
                "neither password_env nor password_command is given".into(),
            ));
        };
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::inherit())
            .output()
            .map_err(|e| ConfigError::ImapPassword(format!("password_command: {e}")))?;
        if !out.status.success() {
            return Err(ConfigError::ImapPassword(format!(
                "password_command `{command}` failed ({})",
                out.status
            )));
        }
        let text = String::from_utf8_lossy(&out.stdout);
        match text.lines().next() {
            Some(line) if !line.is_empty() => Ok(line.to_string()),
            _ => Err(ConfigError::ImapPassword(format!(
                "password_command `{command}` printed nothing"
            ))),
        }
    }
}

/// `[site]`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(default, deny_unknown_fields)]
pub struct Site {
    /// Where the archive is served (`https://example.org/games/`): the feeds' links are absolute
    /// under it; without it they are relative to the feed.
    pub url: Option<String>,
    /// Where `tick` keeps the archive up to date (`napjudge site --out` by itself): rewritten
    /// when a tick finds the games changed since it was last written.
    pub out: Option<std::path::PathBuf>,
}

/// `[judge]`.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(default, deny_unknown_fields)]
pub struct Judge {
    /// The judge's own address: the sender of every mail, and the address players write to.
    pub address: String,
}

/// The judge's address when none is configured: good for files written locally, never a
/// sender on the Internet.
pub(crate) const UNSET_ADDRESS: &str = "judge@napjudge.invalid";

impl Judge {
    /// The judge's address, refused when it is still the placeholder `UNSET_ADDRESS`: mail
    /// sent to the world must come from an address players can answer.
    pub fn sender(address: &str) -> Result<&str, ConfigError> {
        if address.eq_ignore_ascii_case(UNSET_ADDRESS) || address.trim().is_empty() {
            Err(ConfigError::NoAddress(address.to_string()))
        } else {
            Ok(address)
        }
    }
}

impl Default for Judge {
    fn default() -> Judge {
        Judge {
            address: UNSET_ADDRESS.into(),
        }
    }
}

/// How the connection to the mail server is secured.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Security {
    /// No encryption (a server on the same machine or a trusted network only).
    Plain,
    /// Plain connection upgraded by STARTTLS, which is required (port 587).
    #[default]
    Starttls,
    /// TLS from the first byte (port 465).
    Tls,
}

/// `[smtp]`: the mail server the outbox is delivered to.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Smtp {
    /// The server's host name.
    pub host: String,
    /// The port; by default 25 (plain), 587 (starttls) or 465 (tls).
    pub port: Option<u16>,
    /// plain, starttls or tls.
    #[serde(default)]
    pub security: Security,
    /// The user to log in as, if the server wants a login.
    pub user: Option<String>,
    /// A file holding only the password (kept out of the config and of the command line).
    pub password_file: Option<PathBuf>,
    /// Seconds to wait for the server at each step of a try (connecting, each command, each
    /// write) before the try counts as failed; at most `MAX_TIMEOUT`.
    #[serde(default = "default_timeout")]
    pub timeout: u64,
    /// A PEM certificate to trust besides the public roots: the CA of a private mail server.
    pub ca_file: Option<PathBuf>,
}

fn default_timeout() -> u64 {
    30
}

/// The longest `[smtp] timeout`: a try of one mail must end well inside the ten minutes another
/// sender leaves a claimed mail alone.
pub(crate) const MAX_TIMEOUT: u64 = 120;

/// The longest `[outbox] retry_days`: a mail older than a season is no use to anyone.
pub(crate) const MAX_RETRY_DAYS: u32 = 90;

/// `[outbox]`.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(default, deny_unknown_fields)]
pub struct Outbox {
    /// Deliver into this folder as `.eml` files instead of by SMTP (for local use).
    pub dir: Option<PathBuf>,
    /// Days a mail that fails for a passing reason (no connection, a 4xx) is retried, from its
    /// first failed try, before it is given up and the game's GM is told.
    pub retry_days: u32,
    /// Minutes before the first retry; each later one waits twice as long as the one before,
    /// a day at most.
    pub retry_minutes: u32,
    /// Also give a mail up after this many tries (none by default: the days decide).
    pub retry_limit: Option<u32>,
}

impl Default for Outbox {
    fn default() -> Outbox {
        Outbox {
            dir: None,
            retry_days: 7,
            retry_minutes: 5,
            retry_limit: None,
        }
    }
}

/// Reads the configuration: `explicit` (from `--config`), else the file `NAPJUDGE_CONFIG` names
/// (both must exist), else `./napjudge.toml` if there is one, else the defaults. Relative paths
/// in it are taken from the file's folder.
pub fn load(explicit: Option<&Path>) -> Result<Config, ConfigError> {
    let named = explicit
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os("NAPJUDGE_CONFIG").map(PathBuf::from));
    let path = match named {
        Some(p) => p,
        None if Path::new(DEFAULT_FILE).exists() => PathBuf::from(DEFAULT_FILE),
        None => return Ok(Config::default()),
    };
    let text = std::fs::read_to_string(&path).map_err(|source| ConfigError::Read {
        path: path.display().to_string(),
        source,
    })?;
    let mut config = parse(&text).map_err(|message| ConfigError::Syntax {
        path: path.display().to_string(),
        message,
    })?;
    // A relative path in the file is read from the file's folder, not from wherever cron or the
    // mail server happens to start napjudge.
    let folder = path.parent().unwrap_or(Path::new(""));
    let (password_file, ca_file) = match config.smtp.as_mut() {
        Some(s) => (s.password_file.as_mut(), s.ca_file.as_mut()),
        None => (None, None),
    };
    let imap_ca = config.imap.as_mut().and_then(|i| i.ca_file.as_mut());
    for p in [password_file, ca_file, imap_ca, config.outbox.dir.as_mut()]
        .into_iter()
        .flatten()
    {
        *p = folder.join(&*p);
    }
    Ok(config)
}

/// The configuration file for the database `db`: `explicit` (`--config`), else the file
/// `NAPJUDGE_CONFIG` names, else `napjudge.toml` in the database's folder when there is one
/// (found the way the database is: a cron job or a mail server's pipe started in another folder
/// reads the same file); none leaves [`load`] to look in the working folder.
pub fn locate(explicit: Option<&Path>, db: &Path) -> Option<PathBuf> {
    explicit
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os("NAPJUDGE_CONFIG").map(PathBuf::from))
        .or_else(|| {
            let beside = db.parent().unwrap_or(Path::new("")).join(DEFAULT_FILE);
            beside.is_file().then_some(beside)
        })
}

/// Parses the text of a `napjudge.toml`, each number checked against its bounds.
pub fn parse(text: &str) -> Result<Config, String> {
    let config: Config = toml::from_str(text).map_err(|e| e.to_string().trim_end().to_string())?;
    config.check().map_err(|e| e.to_string())?;
    Ok(config)
}

/// `value` if it is within `min..=max`, else the error naming `field`.
fn bounded(
    field: &'static str,
    value: u64,
    (min, max): (u64, u64),
    why: &'static str,
) -> Result<(), ConfigError> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(ConfigError::Bound {
            field,
            value,
            min,
            max,
            why,
        })
    }
}

impl Config {
    /// Every number within its bounds, so that no time computed from them can overflow and a
    /// try always ends inside its claim.
    pub(crate) fn check(&self) -> Result<(), ConfigError> {
        let o = &self.outbox;
        bounded(
            "[outbox] retry_days",
            o.retry_days.into(),
            (1, MAX_RETRY_DAYS.into()),
            "days a mail is retried while the server is down",
        )?;
        bounded(
            "[outbox] retry_minutes",
            o.retry_minutes.into(),
            (1, 24 * 60),
            "minutes before the first retry",
        )?;
        if let Some(limit) = o.retry_limit {
            bounded(
                "[outbox] retry_limit",
                limit.into(),
                (1, u32::MAX.into()),
                "tries before a mail is given up; leave it out to retry for retry_days",
            )?;
        }
        if let Some(imap) = &self.imap {
            bounded(
                "[imap] timeout",
                imap.timeout,
                (1, MAX_TIMEOUT),
                "seconds to wait for the IMAP server at each step",
            )?;
        }
        if let Some(smtp) = &self.smtp {
            bounded(
                "[smtp] timeout",
                smtp.timeout,
                (1, MAX_TIMEOUT),
                "seconds to wait for the mail server at each step",
            )?;
        }
        Ok(())
    }
}

impl Smtp {
    /// The warning to print before delivering: a login over a plain connection sends the user
    /// and password (AUTH) in clear text to anyone on the way.
    pub fn warning(&self) -> Option<String> {
        match (self.security, &self.user) {
            (Security::Plain, Some(user)) => Some(format!(
                "warning: [smtp] security = \"plain\" with user {user}: the login (AUTH) goes \
                 to {}:{} in clear text; use security = \"starttls\" or \"tls\" unless the \
                 server is on this machine",
                self.host,
                self.port()
            )),
            _ => None,
        }
    }

    /// The port to connect to.
    pub fn port(&self) -> u16 {
        self.port.unwrap_or(match self.security {
            Security::Plain => 25,
            Security::Starttls => 587,
            Security::Tls => 465,
        })
    }

    /// The user and password to log in with, if a user is given; the password file's content
    /// without its final line break.
    pub(crate) fn credentials(&self) -> Result<Option<(String, String)>, ConfigError> {
        let Some(user) = &self.user else {
            return Ok(None);
        };
        let file = self
            .password_file
            .as_ref()
            .ok_or_else(|| ConfigError::NoPassword(user.clone()))?;
        let text = std::fs::read_to_string(file).map_err(|source| ConfigError::Password {
            path: file.display().to_string(),
            source,
        })?;
        let password = text.strip_suffix('\n').unwrap_or(&text);
        let password = password.strip_suffix('\r').unwrap_or(password);
        Ok(Some((user.clone(), password.to_string())))
    }

    /// The server an `--smtp` URL names: `smtp://host[:port]` (plain), `smtp://host?tls=required`
    /// (STARTTLS), `smtps://[user@]host[:port]` (TLS). The password is never in the URL: it
    /// comes from `password_file` of the `[smtp]` section of `base`, if any, as do its timeout
    /// and CA file.
    pub fn from_url(url: &str, base: Option<&Smtp>) -> Result<Smtp, ConfigError> {
        let bad = |why| ConfigError::Url {
            url: url.to_string(),
            why,
        };
        let (scheme, rest) = url.split_once("://").ok_or_else(|| bad("no scheme"))?;
        let (rest, query) = match rest.split_once('?') {
            Some((r, q)) => (r, Some(q)),
            None => (rest, None),
        };
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        let security = match (scheme.to_ascii_lowercase().as_str(), query) {
            ("smtp", None) => Security::Plain,
            ("smtp", Some("tls=required" | "starttls")) => Security::Starttls,
            ("smtps", None) => Security::Tls,
            ("smtp" | "smtps", Some(_)) => return Err(bad("the only query is ?tls=required")),
            _ => return Err(bad("the scheme is smtp or smtps")),
        };
        let (user, hostport) = match rest.rsplit_once('@') {
            Some((u, h)) => (Some(u), h),
            None => (None, rest),
        };
        if user.is_some_and(|u| u.contains(':')) {
            return Err(bad(
                "a password in the URL shows in the process list; use password_file",
            ));
        }
        let (host, port) = match hostport.rsplit_once(':') {
            Some((h, p)) => (h, Some(p.parse::<u16>().map_err(|_| bad("the port"))?)),
            None => (hostport, None),
        };
        if host.is_empty() {
            return Err(bad("no host"));
        }
        Ok(Smtp {
            host: host.to_string(),
            port,
            security,
            user: user.map(percent_decode),
            password_file: base.and_then(|b| b.password_file.clone()),
            timeout: base.map_or(default_timeout(), |b| b.timeout),
            ca_file: base.and_then(|b| b.ca_file.clone()),
        })
    }
}

/// `%40` and the like, so a user can be a mail address (`smtps://judge%40example.org@host`).
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_file_reads() {
        let c = parse(include_str!("../../../napjudge.toml.example")).expect("example");
        let smtp = c.smtp.expect("[smtp]");
        assert_eq!(smtp.security, Security::Starttls);
        assert_eq!(smtp.port(), 587);
        assert_eq!((c.outbox.retry_days, c.outbox.retry_limit), (7, None));
        assert_eq!(c.judge.address, "judge@example.org");
    }

    #[test]
    fn an_unknown_field_is_refused_with_its_name() {
        let e = parse("[smtp]\nhost = \"h\"\nsecurty = \"tls\"\n").expect_err("typo");
        assert!(e.contains("securty"), "{e}");
    }

    /// The retry days and the SMTP timeout have bounds, each error naming its field and what is
    /// taken.
    #[test]
    fn out_of_bounds_numbers_are_refused_with_their_field() {
        for (text, field) in [
            ("[outbox]\nretry_days = 0\n", "[outbox] retry_days = 0"),
            (
                "[outbox]\nretry_days = 1000000\n",
                "[outbox] retry_days = 1000000",
            ),
            (
                "[outbox]\nretry_minutes = 0\n",
                "[outbox] retry_minutes = 0",
            ),
            ("[outbox]\nretry_limit = 0\n", "[outbox] retry_limit = 0"),
            (
                "[smtp]\nhost = \"h\"\ntimeout = 600\n",
                "[smtp] timeout = 600: give a number from 1 to 120",
            ),
        ] {
            let e = parse(text).expect_err(text);
            assert!(e.starts_with(field), "{e}");
        }
        assert!(parse("[outbox]\nretry_days = 90\nretry_limit = 8\n").is_ok());
    }

    #[test]
    fn the_password_file_is_read_without_its_line_break() {
        let file = std::env::temp_dir().join(format!("napjudge-pw-{}", std::process::id()));
        std::fs::write(&file, "s3cret\n").expect("password file");
        let mut smtp = Smtp::from_url("smtps://judge@mail.example.org", None).expect("url");
        assert!(matches!(
            smtp.credentials(),
            Err(ConfigError::NoPassword(_))
        ));
        smtp.password_file = Some(file.clone());
        let creds = smtp.credentials().expect("read");
        let _ = std::fs::remove_file(&file);
        assert_eq!(creds, Some(("judge".into(), "s3cret".into())));
    }

    #[test]
    fn urls_name_the_security_and_the_default_ports() {
        let s = Smtp::from_url("smtp://127.0.0.1:2525", None).expect("plain");
        assert_eq!(
            (s.host.as_str(), s.port(), s.security),
            ("127.0.0.1", 2525, Security::Plain)
        );
        let s = Smtp::from_url("smtps://judge%40example.org@mail.example.org", None).expect("tls");
        assert_eq!(s.port(), 465);
        assert_eq!(s.user.as_deref(), Some("judge@example.org"));
        let s = Smtp::from_url("smtp://mail.example.org?tls=required", None).expect("starttls");
        assert_eq!((s.security, s.port()), (Security::Starttls, 587));
        assert!(Smtp::from_url("smtps://u:secret@h", None).is_err());
        assert!(Smtp::from_url("http://h", None).is_err());
        assert!(Smtp::from_url("smtp://h:port", None).is_err());
    }
}
