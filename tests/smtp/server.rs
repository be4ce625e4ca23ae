//! The delivery tests' SMTP server on loopback: plain, or with STARTTLS and AUTH PLAIN on rustls with
//! the ring provider, the project's one TLS stack (mailin-embedded needs a TLS of its own, whose
//! rustls compiles a second crypto library, aws-lc, into every test build). It speaks what a
//! submission server must: EHLO/HELO, STARTTLS, AUTH PLAIN (only once encrypted), MAIL, RCPT,
//! DATA, RSET, NOOP, QUIT; what it takes and refuses (for good, for now), and how long it takes
//! to answer a message's DATA (a stall), is the test's [`Mailbox`]. A server that is down is one
//! not started yet.

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::{ServerConfig, ServerConnection, StreamOwned};
use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::Arc;

/// One message the server accepted: the envelope and the data, dot-stuffing undone.
pub struct Accepted {
    pub from: String,
    pub to: Vec<String>,
    pub data: String,
}

/// The test's side of the server.
pub trait Mailbox: Send + Sync + 'static {
    /// Whether mail for `to` is taken (else 550, for good, as for an unknown mailbox).
    fn takes(&self, _to: &str) -> bool {
        true
    }
    /// The reply to `RCPT TO:<to>` when it isn't taken this time: a whole reply line such as
    /// `451 4.3.0 try again later` (a server out of room) or `554 5.7.1 rejected` (policy).
    fn refusal(&self, _to: &str) -> Option<String> {
        None
    }
    /// The DATA of a message to `to` begins.
    fn begun(&self, _to: &[String]) {}
    /// A whole message arrived; the server says 250 once this returns.
    fn accept(&self, message: Accepted);
}

/// TLS and a login, for a server that wants them.
pub struct Secure<'a> {
    /// The certificate (PEM).
    pub cert: &'a Path,
    /// Its key (PEM).
    pub key: &'a Path,
    /// The user and password AUTH PLAIN must give.
    pub login: (&'static str, &'static str),
}

/// What a session wants next.
enum Next {
    StartTls,
    Quit,
}

/// Serves on `listener` until the process ends: plain, or with `secure` STARTTLS and a login.
pub fn serve(listener: TcpListener, secure: Option<Secure>, mailbox: impl Mailbox) {
    let tls = secure.map(|s| {
        let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(s.cert)
            .expect("the test certificate")
            .collect::<Result<_, _>>()
            .expect("the test certificate parses");
        let key = PrivateKeyDer::from_pem_file(s.key).expect("the test key");
        let config =
            ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
                .with_safe_default_protocol_versions()
                .expect("TLS versions")
                .with_no_client_auth()
                .with_single_cert(certs, key)
                .expect("the certificate and key match");
        (Arc::new(config), s.login)
    });
    let mailbox: Arc<dyn Mailbox> = Arc::new(mailbox);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let tls = tls.clone();
            let mailbox = Arc::clone(&mailbox);
            std::thread::spawn(move || {
                // A broken connection is the client's business: the tests see what arrived.
                let _ = session(stream, tls, &*mailbox);
            });
        }
    });
}

fn session(
    mut tcp: TcpStream,
    tls: Option<(Arc<ServerConfig>, (&str, &str))>,
    mailbox: &dyn Mailbox,
) -> io::Result<()> {
    tcp.write_all(b"220 test.example.org ESMTP\r\n")?;
    let Some((config, login)) = tls else {
        // No STARTTLS to follow a line here, so reads may be buffered (a byte a read makes a
        // megabyte's picture take seconds).
        let mut plain = Buffered(io::BufReader::new(tcp));
        return dialogue(&mut plain, Stage::Open, mailbox).map(|_| ());
    };
    if let Next::Quit = dialogue(&mut tcp, Stage::BeforeTls, mailbox)? {
        return Ok(());
    }
    let conn = ServerConnection::new(config).map_err(io::Error::other)?;
    let mut stream = StreamOwned::new(conn, tcp);
    dialogue(&mut stream, Stage::Tls(login), mailbox).map(|_| ())
}

/// A plain session's socket, its reads buffered.
struct Buffered(io::BufReader<TcpStream>);

impl Read for Buffered {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

impl Write for Buffered {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.get_mut().write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.0.get_mut().flush()
    }
}

/// Where a session stands: a plain server's, or a secure server's before and after STARTTLS.
#[derive(Clone, Copy)]
enum Stage<'a> {
    Open,
    BeforeTls,
    Tls((&'a str, &'a str)),
}

/// The commands of one session at one stage.
fn dialogue<S: Read + Write>(s: &mut S, stage: Stage, mailbox: &dyn Mailbox) -> io::Result<Next> {
    let mut authed = matches!(stage, Stage::Open);
    let mut from = None;
    let mut to = Vec::new();
    while let Some(line) = read_line(s)? {
        let upper = line.to_ascii_uppercase();
        let reply: String = if upper.starts_with("EHLO") || upper.starts_with("HELO") {
            let offer = match stage {
                Stage::Open => "8BITMIME",
                Stage::BeforeTls => "STARTTLS",
                Stage::Tls(_) => "AUTH PLAIN",
            };
            format!("250-test.example.org\r\n250 {offer}\r\n")
        } else if upper == "STARTTLS" && matches!(stage, Stage::BeforeTls) {
            s.write_all(b"220 2.0.0 ready to start TLS\r\n")?;
            return Ok(Next::StartTls);
        } else if upper.starts_with("AUTH PLAIN") {
            if let Stage::Tls(login) = stage {
                let inline = line[10..].trim().to_string();
                let answer = if inline.is_empty() {
                    s.write_all(b"334 \r\n")?;
                    read_line(s)?.unwrap_or_default()
                } else {
                    inline
                };
                let plain = base64_decode(&answer).unwrap_or_default();
                let mut parts = plain.split(|b| *b == 0).skip(1);
                let given = (parts.next(), parts.next());
                authed = given == (Some(login.0.as_bytes()), Some(login.1.as_bytes()));
                if authed {
                    "235 2.7.0 authentication successful\r\n".into()
                } else {
                    "535 5.7.8 authentication credentials invalid\r\n".into()
                }
            } else {
                "530 5.7.0 must issue a STARTTLS command first\r\n".into()
            }
        } else if upper.starts_with("MAIL FROM:") {
            if authed {
                from = Some(path(&line[10..]));
                "250 2.1.0 OK\r\n".into()
            } else {
                "530 5.7.0 authentication required\r\n".into()
            }
        } else if upper.starts_with("RCPT TO:") && from.is_some() {
            let rcpt = path(&line[8..]);
            if let Some(reply) = mailbox.refusal(&rcpt) {
                format!("{reply}\r\n")
            } else if mailbox.takes(&rcpt) {
                to.push(rcpt);
                "250 2.1.5 OK\r\n".into()
            } else {
                "550 5.1.1 mailbox unavailable\r\n".into()
            }
        } else if upper == "DATA" && !to.is_empty() {
            mailbox.begun(&to);
            s.write_all(b"354 end data with <CR><LF>.<CR><LF>\r\n")?;
            // Lines joined by CRLF: the CRLF before the final "." ends the data's last line
            // and belongs to the terminator (RFC 5321 4.1.1.4), not to the data.
            let mut data = String::new();
            let mut first = true;
            while let Some(l) = read_line(s)? {
                if l == "." {
                    break;
                }
                if !std::mem::take(&mut first) {
                    data.push_str("\r\n");
                }
                data.push_str(l.strip_prefix('.').unwrap_or(&l));
            }
            mailbox.accept(Accepted {
                from: from.take().unwrap_or_default(),
                to: std::mem::take(&mut to),
                data,
            });
            "250 2.0.0 OK\r\n".into()
        } else if upper == "RSET" {
            from = None;
            to.clear();
            "250 2.0.0 OK\r\n".into()
        } else if upper == "NOOP" {
            "250 2.0.0 OK\r\n".into()
        } else if upper == "QUIT" {
            s.write_all(b"221 2.0.0 bye\r\n")?;
            return Ok(Next::Quit);
        } else {
            "503 5.5.1 bad sequence of commands\r\n".into()
        };
        s.write_all(reply.as_bytes())?;
        s.flush()?;
    }
    Ok(Next::Quit)
}

/// The address inside `<...>` (parameters after it dropped).
fn path(rest: &str) -> String {
    let rest = rest.trim();
    rest.strip_prefix('<')
        .and_then(|r| r.split_once('>'))
        .map_or(rest, |(a, _)| a)
        .to_string()
}

/// One line without its CRLF, read a byte at a time so that nothing past it is consumed (the
/// TLS handshake follows STARTTLS's line on the same socket); None at the end of the stream.
fn read_line<S: Read>(s: &mut S) -> io::Result<Option<String>> {
    let mut line = Vec::new();
    let mut byte = [0u8];
    loop {
        if s.read(&mut byte)? == 0 {
            return Ok((!line.is_empty()).then(|| String::from_utf8_lossy(&line).into_owned()));
        }
        if byte[0] == b'\n' {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok(Some(String::from_utf8_lossy(&line).into_owned()));
        }
        line.push(byte[0]);
    }
}

fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in text.bytes().filter(|c| *c != b'=') {
        acc = (acc << 6) | u32::from(value(c)?);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}
