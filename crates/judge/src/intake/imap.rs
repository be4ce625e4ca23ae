//! Mail in from an IMAP mailbox (`[imap]` in napjudge.toml): the hosted mailbox most GMs have.
//!
//! Each message of the folder is fetched whole (`BODY.PEEK[]`, so that nothing is marked read by
//! the fetch), stored and answered by [`mail::receive_incoming`], and only then moved to the
//! `done` folder (or, on a server without MOVE, copied there and flagged `\Deleted`). A poll
//! stopped anywhere (the connection lost, the judge killed) leaves every message not yet moved in
//! the folder; the next poll fetches it again and finds it stored by its digest (the same bytes
//! from the same mailbox), so it is moved without a second answer. A copy delivered twice by the
//! mail system has other bytes (its own Received lines) and is a duplicate by its Message-ID, as
//! from any intake.

use crate::clock::Clock;
use crate::config::{ConfigError, Imap, ImapTls};
use crate::game::Judge;
use crate::mail::{Handled, Incoming, MailConfig, MailError};
use imap::extensions::idle::{SetReadTimeout, WaitOutcome};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The longest one read of the socket blocks before the stop flag is looked at again: a read
/// waits out its timeout in slices this long, so `serve` stops within one after SIGTERM however
/// slowly the server answers.
const STOP_SLICE: Duration = Duration::from_millis(500);

/// Why the mailbox can't be read; each message says what to check.
#[derive(Debug, thiserror::Error)]
pub enum ImapError {
    /// The host name doesn't resolve.
    #[error("[imap] host {host}: the name can't be resolved ({source}): check the host name and this machine's DNS")]
    Resolve {
        /// The host.
        host: String,
        /// Why.
        source: std::io::Error,
    },
    /// No connection to the port.
    #[error("[imap] {host}:{port}: can't connect ({source}): check the port (993 for tls = \"implicit\", 143 for \"starttls\") and that no firewall is in the way")]
    Connect {
        /// The host.
        host: String,
        /// The port.
        port: u16,
        /// Why.
        source: std::io::Error,
    },
    /// TLS can't be set up, or the server's certificate isn't trusted.
    #[error("[imap] {host}: TLS failed ({message}): check [imap] tls (implicit for port 993, starttls for 143), and ca_file for a server with its own certificate authority")]
    Tls {
        /// The host.
        host: String,
        /// Why.
        message: String,
    },
    /// The password can't be had.
    #[error(transparent)]
    Password(#[from] ConfigError),
    /// The server refused the login.
    #[error("[imap] {host}: the login of {user} was refused ({message}): check [imap] user and the password (a hosted mailbox often wants an app password); nothing was read")]
    Login {
        /// The host.
        host: String,
        /// The user.
        user: String,
        /// The server's words.
        message: String,
    },
    /// A folder can't be opened or made.
    #[error(
        "[imap] folder {folder}: {message}: check [imap] folder, done and failed in napjudge.toml"
    )]
    Folder {
        /// The folder.
        folder: String,
        /// The server's words.
        message: String,
    },
    /// The connection failed in the middle of a poll.
    #[error("[imap] {host}: {message}; every message not yet moved stays in the folder for the next poll")]
    Server {
        /// The host.
        host: String,
        /// Why.
        message: String,
    },
    /// A message can't be stored for a fault of the database: the poll stops, and the message
    /// stays in the folder.
    #[error("a message was not stored: {0}; it and the messages after it stay in the folder")]
    Store(#[source] MailError),
}

type Tls = rustls::StreamOwned<rustls::ClientConnection, TcpStream>;

/// What the server may send in answer to one command beside a message of the size limit: the
/// FETCH's framing, a SEARCH's list of UIDs (some 130,000 of them).
const SLACK: usize = 1 << 20;

/// The connection under the IMAP session: TLS over TCP, with the configured timeout restored
/// whenever IDLE lifts its own, and the bytes read since the last command bounded. The IMAP
/// client gathers an answer whole in memory, however long its lines or literals: past the bound
/// a read fails, and the client returns that error.
pub(crate) struct Stream {
    tls: Tls,
    timeout: Duration,
    /// How long a read waits for the server now: `timeout`, or IDLE's own.
    wait: Duration,
    /// Bytes read since the client last wrote (its last command).
    read: usize,
    /// The most one answer may be: the size limit and [`SLACK`]; set by [`Mailbox::poll`].
    bound: Arc<AtomicUsize>,
    /// Set when the judge is to stop: a read waiting for the server gives up.
    stop: Arc<AtomicBool>,
}

impl Stream {
    /// One read of the TLS stream, waiting up to `wait` for the server in slices of
    /// [`STOP_SLICE`] (the socket's timeout), and giving up when `stop` is set.
    fn read_until_stopped(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let began = Instant::now();
        loop {
            if self.stop.load(Ordering::SeqCst) {
                // Not `Interrupted`, which a reader would try again.
                return Err(std::io::Error::other(
                    "the judge is stopping: the answer awaited was given up",
                ));
            }
            match self.tls.read(buf) {
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) && began.elapsed() < self.wait => {}
                done => return done,
            }
        }
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let bound = self.bound.load(Ordering::Relaxed);
        if self.read > bound {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "the server sent over {bound} bytes in answer to one command (the mail size \
                     limit and {SLACK} more): the poll is given up"
                ),
            ));
        }
        let n = self.read_until_stopped(buf)?;
        self.read = self.read.saturating_add(n);
        Ok(n)
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.read = 0;
        self.tls.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.tls.flush()
    }
}

impl SetReadTimeout for Stream {
    fn set_read_timeout(&mut self, timeout: Option<Duration>) -> imap::Result<()> {
        self.wait = timeout.unwrap_or(self.timeout);
        self.tls
            .sock
            .set_read_timeout(Some(self.wait.min(STOP_SLICE)))?;
        Ok(())
    }
}

/// A logged-in session on the folder to read.
pub struct Mailbox {
    session: imap::Session<Stream>,
    config: Imap,
    /// The server can MOVE (RFC 6851); without it, COPY and `\Deleted`.
    can_move: bool,
    /// The server can UID EXPUNGE (UIDPLUS, RFC 4315): without MOVE, the copies flagged
    /// `\Deleted` are removed; without either they stay, flagged, and the search skips them.
    can_expunge: bool,
    /// The server can IDLE (RFC 2177); without it, [`Mailbox::wait`] sleeps.
    can_idle: bool,
    /// The stream's bound on one answer.
    bound: Arc<AtomicUsize>,
    /// The stream's stop flag: set, a poll stops before the next message.
    stop: Arc<AtomicBool>,
}

/// One message of a poll.
#[derive(Debug)]
pub struct Polled {
    /// Its UID in the folder.
    pub uid: u32,
    /// What became of it; `None`: stored by an earlier poll that stopped before moving it
    /// (moved now, not answered again).
    pub handled: Option<Handled>,
    /// Moved to the failed folder (over the size limit, or it couldn't be stored), with why.
    pub failed: Option<String>,
    /// Left in the folder, with why: the server answered its fetch with another message, or
    /// refused to move it.
    pub left: Option<String>,
}

fn tls_config(c: &Imap) -> Result<rustls::ClientConfig, ImapError> {
    let bad = |message: String| ImapError::Tls {
        host: c.host.clone(),
        message,
    };
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    if let Some(file) = &c.ca_file {
        let certs = CertificateDer::pem_file_iter(file)
            .map_err(|e| bad(format!("ca_file {}: {e}", file.display())))?;
        for cert in certs {
            let cert = cert.map_err(|e| bad(format!("ca_file {}: {e}", file.display())))?;
            roots
                .add(cert)
                .map_err(|e| bad(format!("ca_file {}: {e}", file.display())))?;
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| bad(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth())
}

/// Whether an I/O error is TLS's (a certificate not trusted, a handshake refused).
fn tls_fault(e: &std::io::Error) -> Option<String> {
    e.get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>())
        .map(|t| t.to_string())
}

fn imap_fault(e: &imap::Error) -> Option<String> {
    match e {
        imap::Error::Io(io) => tls_fault(io),
        _ => None,
    }
}

/// The plain part of a STARTTLS connection (RFC 3501 6.2.1): the greeting, `STARTTLS`, its
/// OK; the connection is then ready for the TLS handshake. (The IMAP client has no STARTTLS
/// of its own without its TLS features, which would bring a second crypto library.)
fn starttls(tcp: TcpStream) -> std::io::Result<TcpStream> {
    use std::io::BufRead;
    let refused = |line: &str| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("the server answered {:?}", line.trim_end()),
        )
    };
    let mut reader = std::io::BufReader::new(&tcp);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    if !line.starts_with("* OK") {
        return Err(refused(&line));
    }
    (&tcp).write_all(b"n0 STARTTLS\r\n")?;
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Err(refused("nothing"));
        }
        if let Some(rest) = line.strip_prefix("n0 ") {
            if rest.to_ascii_uppercase().starts_with("OK") {
                break;
            }
            return Err(refused(&line));
        }
    }
    drop(reader);
    Ok(tcp)
}

impl Mailbox {
    /// Connects, logs in and selects the folder; the `done` and `failed` folders are made when
    /// missing.
    pub fn open(c: &Imap) -> Result<Mailbox, ImapError> {
        Mailbox::open_until(c, Arc::default())
    }

    /// As [`Mailbox::open`], for a judge that stops when `stop` is set (`serve` on SIGTERM): a
    /// poll then stops before the next message, and a read waiting for the server gives up
    /// within [`STOP_SLICE`].
    pub fn open_until(c: &Imap, stop: Arc<AtomicBool>) -> Result<Mailbox, ImapError> {
        let password = c.password()?;
        let port = c.port();
        let timeout = Duration::from_secs(c.timeout);
        let addrs: Vec<_> = (c.host.as_str(), port)
            .to_socket_addrs()
            .map_err(|source| ImapError::Resolve {
                host: c.host.clone(),
                source,
            })?
            .collect();
        let mut last = std::io::Error::new(std::io::ErrorKind::NotFound, "no address");
        let mut tcp = None;
        for a in &addrs {
            match TcpStream::connect_timeout(a, timeout) {
                Ok(s) => {
                    tcp = Some(s);
                    break;
                }
                Err(e) => last = e,
            }
        }
        let connect = |source| ImapError::Connect {
            host: c.host.clone(),
            port,
            source,
        };
        let tcp = tcp.ok_or_else(|| connect(last))?;
        tcp.set_read_timeout(Some(timeout)).map_err(connect)?;
        tcp.set_write_timeout(Some(timeout)).map_err(connect)?;
        let server = |e: &imap::Error| ImapError::Server {
            host: c.host.clone(),
            message: e.to_string(),
        };
        let tls_err = |message: String| ImapError::Tls {
            host: c.host.clone(),
            message,
        };
        let tcp = match c.tls {
            ImapTls::Implicit => tcp,
            ImapTls::Starttls => starttls(tcp).map_err(|e| tls_err(format!("STARTTLS: {e}")))?,
        };
        // From here every read is the stream's, which waits out the timeout in slices.
        tcp.set_read_timeout(Some(timeout.min(STOP_SLICE)))
            .map_err(connect)?;
        let name = ServerName::try_from(c.host.clone()).map_err(|e| tls_err(e.to_string()))?;
        let conn = rustls::ClientConnection::new(Arc::new(tls_config(c)?), name)
            .map_err(|e| tls_err(e.to_string()))?;
        let bound = Arc::new(AtomicUsize::new(
            crate::mail::MAX_SIZE.saturating_add(SLACK),
        ));
        let stream = Stream {
            tls: rustls::StreamOwned::new(conn, tcp),
            timeout,
            wait: timeout,
            read: 0,
            bound: Arc::clone(&bound),
            stop: Arc::clone(&stop),
        };
        let mut client = imap::Client::new(stream);
        let classify = |e: imap::Error| match imap_fault(&e) {
            Some(t) => tls_err(t),
            None => server(&e),
        };
        if c.tls == ImapTls::Implicit {
            client.read_greeting().map_err(classify)?;
        } else {
            // The handshake, before the password goes out (its errors are TLS's).
            client.capabilities().map_err(classify)?;
        }
        let mut session =
            client
                .login(&c.user, &password)
                .map_err(|(e, _)| match imap_fault(&e) {
                    Some(t) => tls_err(t),
                    None => ImapError::Login {
                        host: c.host.clone(),
                        user: c.user.clone(),
                        message: e.to_string(),
                    },
                })?;
        let caps = session.capabilities().map_err(|e| server(&e))?;
        let can_move = caps.has_str("MOVE");
        let can_expunge = caps.has_str("UIDPLUS");
        let can_idle = caps.has_str("IDLE");
        for folder in [&c.done, &c.failed] {
            // Made when missing; a server refuses CREATE of a folder that exists.
            if session.create(folder).is_err() {
                session
                    .status(folder, "(MESSAGES)")
                    .map_err(|e| ImapError::Folder {
                        folder: folder.clone(),
                        message: e.to_string(),
                    })?;
            }
        }
        session.select(&c.folder).map_err(|e| ImapError::Folder {
            folder: c.folder.clone(),
            message: e.to_string(),
        })?;
        Ok(Mailbox {
            session,
            config: c.clone(),
            can_move,
            can_expunge,
            can_idle,
            bound,
            stop,
        })
    }

    fn server(&self, e: &imap::Error) -> ImapError {
        ImapError::Server {
            host: self.config.host.clone(),
            message: e.to_string(),
        }
    }

    /// Takes the messages in the folder, oldest first, `at_most` of them: each stored and
    /// answered, then moved, then told to `taken`. The number taken. A fault of the database
    /// or of the connection stops the poll, and so does the stop flag (between two messages);
    /// every message not moved stays for the next one.
    pub fn poll(
        &mut self,
        j: &mut Judge,
        cfg: &MailConfig,
        clock: &Clock,
        at_most: usize,
        taken: &mut dyn FnMut(&Polled),
    ) -> Result<usize, ImapError> {
        self.bound
            .store(cfg.max_size.saturating_add(SLACK), Ordering::Relaxed);
        let mut uids: Vec<u32> = self
            .session
            .uid_search("NOT DELETED")
            .map_err(|e| self.server(&e))?
            .into_iter()
            .collect();
        uids.sort_unstable();
        uids.truncate(at_most);
        let mut count = 0;
        let mut flagged = Vec::new();
        for uid in uids {
            if self.stop.load(Ordering::SeqCst) {
                break;
            }
            count += 1;
            let Some((mut polled, folder)) = self.take(j, cfg, clock, uid)? else {
                continue;
            };
            if let Some(folder) = folder {
                match self.move_to(uid, &folder) {
                    Ok(()) if !self.can_move => flagged.push(uid.to_string()),
                    Ok(()) => {}
                    // Refused for this message alone: the next ones are taken, and the next
                    // poll finds this one stored and tries the move again.
                    Err(imap::Error::No(no)) => {
                        polled.left = Some(format!(
                            "the server refused to move it to {folder} ({}); left in the \
                             folder for the next poll",
                            no.information
                        ));
                    }
                    Err(e) => return Err(self.server(&e)),
                }
            }
            taken(&polled);
        }
        if self.can_expunge && !flagged.is_empty() {
            // Only the messages flagged here: a `\Deleted` another client set is its own. A
            // failed expunge loses nothing (the flagged copies are skipped by the search).
            let _ = self.session.uid_expunge(flagged.join(","));
        }
        Ok(count)
    }

    /// Takes one message: what became of it and the folder it goes to (none: it stays). None
    /// when it is gone since the search (another client moved it).
    fn take(
        &mut self,
        j: &mut Judge,
        cfg: &MailConfig,
        clock: &Clock,
        uid: u32,
    ) -> Result<Option<(Polled, Option<String>)>, ImapError> {
        let mut polled = Polled {
            uid,
            handled: None,
            failed: None,
            left: None,
        };
        let size = self
            .session
            .uid_fetch(uid.to_string(), "RFC822.SIZE")
            .map_err(|e| self.server(&e))?
            .iter()
            .find(|f| f.uid == Some(uid))
            .and_then(|f| f.size);
        let Some(size) = size else {
            return Ok(None);
        };
        if usize::try_from(size).map_or(true, |n| n > cfg.max_size) {
            // Not fetched: its bytes would be more than the judge holds for a message.
            polled.failed = Some(format!(
                "{size} bytes, over the limit of {}: not read, and its sender not answered",
                cfg.max_size
            ));
            return Ok(Some((polled, Some(self.config.failed.clone()))));
        }
        let fetched = self
            .session
            .uid_fetch(uid.to_string(), "BODY.PEEK[]")
            .map_err(|e| self.server(&e))?;
        let body = fetched
            .iter()
            .filter(|f| f.uid == Some(uid))
            .find_map(|f| f.body());
        let Some(body) = body else {
            let other = fetched.iter().find(|f| f.body().is_some());
            let Some(other) = other else {
                return Ok(None);
            };
            // Another message's bytes (a broken or hostile server): stored as this one, it
            // would be moved unread.
            polled.left = Some(format!(
                "the server answered its fetch with another message ({}); left in the folder",
                other
                    .uid
                    .map_or_else(|| "no UID".to_string(), |u| format!("UID {u}"))
            ));
            return Ok(Some((polled, None)));
        };
        let m = Incoming::read(body, cfg.max_size).map_err(|e| ImapError::Server {
            host: self.config.host.clone(),
            message: e.to_string(),
        })?;
        let taken = super::receive_once(j, cfg, &m, clock.now()).map_err(ImapError::Store)?;
        polled.handled = taken.handled;
        polled.failed = taken.failed.map(|why| why.to_string());
        let folder = if polled.failed.is_some() {
            &self.config.failed
        } else {
            &self.config.done
        };
        Ok(Some((polled, Some(folder.clone()))))
    }

    /// Moves one message; on a server without MOVE, copies it and flags it `\Deleted`.
    fn move_to(&mut self, uid: u32, folder: &str) -> imap::Result<()> {
        let uid = uid.to_string();
        if self.can_move {
            self.session.uid_mv(&uid, folder)
        } else {
            self.session
                .uid_copy(&uid, folder)
                .and_then(|()| self.session.uid_store(&uid, "+FLAGS.SILENT (\\Deleted)"))
                .map(|_| ())
        }
    }

    /// Waits up to `at_most` for new mail: IMAP IDLE where the server has it, else a sleep.
    /// True when the folder changed.
    pub fn wait(&mut self, at_most: Duration) -> Result<bool, ImapError> {
        if !self.can_idle {
            std::thread::sleep(at_most);
            return Ok(true);
        }
        let outcome = {
            let mut idle = self.session.idle();
            idle.timeout(at_most).keepalive(false);
            idle.wait_while(imap::extensions::idle::stop_on_any)
        };
        let outcome = outcome.map_err(|e| self.server(&e))?;
        Ok(outcome == WaitOutcome::MailboxChanged)
    }

    /// Logs out (a server counts open sessions).
    pub fn close(mut self) {
        let _ = self.session.logout();
    }
}
