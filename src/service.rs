//! The judge as a service: `napjudge serve` (intake, the tick and the outbox in one process),
//! `napjudge init` (a commented napjudge.toml and the database) and `napjudge check` (the
//! database and the mail servers tried, each failure named). Every step calls what the one-shot
//! commands call, through the same wiring, so each keeps their guarantees.

use crate::wiring::{self, fate, Wired};
use napjudge_judge::{
    load_config, Clock, Config, Handled, Imap, ImapError, Judge, JudgeConfig, MailConfig, Mailbox,
    PolledMessage, Store, Target, DEFAULT_FILE, MAX_SIZE,
};
use std::net::ToSocketAddrs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tracing::{error, info, warn};

/// How long `serve` waits at most between two looks at the stop flag: an IDLE (or a sleep) is
/// cut into slices this long, so SIGTERM is obeyed within it.
const SLICE: Duration = Duration::from_secs(5);

/// How often `serve` looks into a Maildir.
const MAILDIR_EVERY: Duration = Duration::from_secs(2);

/// The most messages `serve` takes before it delivers the replies and looks at the stop flag
/// again: a burst is answered as it is read, and a stop waits for this many at most.
const BATCH: usize = 50;

/// The longest wait before `serve` tries a lost IMAP server again.
const RECONNECT_MAX: Duration = Duration::from_secs(300);

/// The wait after a fault of the database (a full disk, a damaged or locked file), doubled at each fault in a row up to [`FAULT_WAIT_MAX`]: every message
/// would fail alike, and trying at once spends the CPU and fills the log.
const FAULT_WAIT: Duration = Duration::from_secs(1);

/// The longest wait between two tries while the fault lasts.
const FAULT_WAIT_MAX: Duration = Duration::from_secs(60);

/// A fault that lasts is logged at most this often, with the number of tries not logged.
const FAULT_LOG_EVERY: Duration = Duration::from_secs(60);

/// `napjudge serve`'s options.
pub struct Serve {
    /// Read this Maildir instead of the `[imap]` mailbox.
    pub maildir: Option<PathBuf>,
    /// Seconds between two ticks.
    pub tick_every: u64,
    /// Deliver into this folder instead of by SMTP.
    pub to_dir: Option<PathBuf>,
    /// Deliver to this mail server instead of the config's.
    pub smtp: Option<String>,
}

/// The logger of `serve`: levels to standard error, `NAPJUDGE_LOG` (or `RUST_LOG`) choosing
/// them (`info` by default; `debug` adds each wait).
fn start_logging() {
    let filter = std::env::var("NAPJUDGE_LOG")
        .or_else(|_| std::env::var("RUST_LOG"))
        .unwrap_or_else(|_| "info".into());
    let filter = tracing_subscriber::EnvFilter::try_new(&filter)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_target(false)
        .try_init();
}

/// Where mail comes in from.
enum Intake {
    /// The `[imap]` mailbox, and the session while it holds.
    Imap {
        config: Box<Imap>,
        /// Boxed: a TLS session is large beside the other variants.
        session: Option<Box<Mailbox>>,
        /// When to try connecting again, and the wait after the next failure.
        retry_at: Instant,
        backoff: Duration,
        /// `serve`'s stop flag, which a session obeys between messages and while it waits.
        stop: Arc<AtomicBool>,
    },
    /// A Maildir, looked into every [`MAILDIR_EVERY`].
    Maildir(PathBuf),
    /// None (the pipe, `mail receive`, brings the mail).
    Pipe,
}

/// What one look at the intake did.
enum Received {
    /// This many messages taken (stored, and let go at their source).
    Taken(usize),
    /// A fault of the database stopped it, with what the log says: the messages not taken
    /// wait at their source.
    Fault(String),
}

impl Intake {
    /// Stores and answers what has come in.
    fn receive(&mut self, j: &mut Judge, cfg: &MailConfig) -> Received {
        match self {
            Intake::Pipe => Received::Taken(0),
            Intake::Maildir(dir) => {
                // A batch at a time, as from IMAP: a stop waits for one batch, not the burst.
                match wiring::poll_maildir(j, cfg, dir, &Clock::system(), BATCH) {
                    Ok(p) => {
                        if p.taken > 0 {
                            info!("maildir {}: {} message(s) taken", dir.display(), p.taken);
                        }
                        match p.fault {
                            Some(why) => Received::Fault(why),
                            None => Received::Taken(p.taken),
                        }
                    }
                    // The Maildir's own fault (a folder that can't be read or written): the
                    // tick goes on, and the next look in MAILDIR_EVERY tries again.
                    Err(e) => {
                        error!("maildir {}: {e}", dir.display());
                        Received::Taken(0)
                    }
                }
            }
            Intake::Imap {
                config,
                session,
                retry_at,
                backoff,
                stop,
            } => {
                if session.is_none() {
                    if Instant::now() < *retry_at {
                        return Received::Taken(0);
                    }
                    match Mailbox::open_until(config, Arc::clone(stop)) {
                        Ok(m) => {
                            info!("imap {}: connected, reading {}", config.host, config.folder);
                            *session = Some(Box::new(m));
                            *backoff = SLICE;
                        }
                        Err(e) => {
                            error!("{e}; trying again in {} s", backoff.as_secs());
                            *retry_at = Instant::now() + *backoff;
                            *backoff = (*backoff * 2).min(RECONNECT_MAX);
                            return Received::Taken(0);
                        }
                    }
                }
                let Some(m) = session.as_mut() else {
                    return Received::Taken(0);
                };
                let taken = |p: &PolledMessage| match (&p.left, &p.handled, &p.failed) {
                    (Some(why), _, _) => warn!("imap uid {}: {why}", p.uid),
                    (None, _, Some(why)) => {
                        warn!("imap uid {}: {why}; moved to {}", p.uid, config.failed)
                    }
                    (None, Some(h @ Handled::Failed(_)), None) => {
                        error!("imap uid {}: {}", p.uid, fate(h))
                    }
                    (None, Some(h), None) => info!("imap uid {}: {}", p.uid, fate(h)),
                    (None, None, None) => {
                        info!("imap uid {}: stored before the last stop; moved now", p.uid)
                    }
                };
                match m.poll(j, cfg, &Clock::system(), BATCH, &mut { taken }) {
                    Ok(n) => Received::Taken(n),
                    // The session is sound: the database is at fault.
                    Err(e @ ImapError::Store(_)) => Received::Fault(e.to_string()),
                    Err(e) if stop.load(Ordering::SeqCst) => {
                        info!("stopping in the middle of a message: {e}");
                        Received::Taken(1)
                    }
                    Err(e) => {
                        error!("{e}");
                        if let Some(m) = session.take() {
                            m.close();
                        }
                        // Whatever was taken before the fault is delivered at once.
                        Received::Taken(1)
                    }
                }
            }
        }
    }

    /// Waits up to `at_most` for mail, looking at `stop` at least every [`SLICE`].
    fn wait(&mut self, at_most: Duration, stop: &AtomicBool) {
        let until = Instant::now() + at_most;
        while !stop.load(Ordering::SeqCst) {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            match self {
                Intake::Imap {
                    session: Some(m), ..
                } => match m.wait(left.min(SLICE)) {
                    Ok(true) => return,
                    Ok(false) => {}
                    Err(e) => {
                        // A wait cut short by the stop is no fault.
                        if !stop.load(Ordering::SeqCst) {
                            warn!("{e}");
                        }
                        if let Intake::Imap { session, .. } = self {
                            if let Some(m) = session.take() {
                                m.close();
                            }
                        }
                        return;
                    }
                },
                Intake::Maildir(_) => {
                    std::thread::sleep(left.min(MAILDIR_EVERY));
                    return;
                }
                _ => std::thread::sleep(left.min(Duration::from_millis(500))),
            }
        }
    }
}

/// The wait after a fault: while it lasts `serve` touches neither the database nor the intake.
#[derive(Default)]
struct Backoff {
    /// When to try again, while a fault lasts.
    until: Option<Instant>,
    /// The wait after the next fault.
    next: Duration,
    /// When the fault was last logged, and the faults since not logged.
    logged: Option<Instant>,
    unlogged: usize,
}

impl Backoff {
    /// How long is left to wait, if a fault was the last thing seen.
    fn left(&self) -> Option<Duration> {
        self.until
            .map(|u| u.saturating_duration_since(Instant::now()))
            .filter(|d| !d.is_zero())
    }

    /// A fault: the wait starts (or doubles), and the fault is logged unless it was within
    /// [`FAULT_LOG_EVERY`].
    fn fault(&mut self, why: &str) {
        let now = Instant::now();
        let wait = if self.until.is_some() {
            self.next
        } else {
            FAULT_WAIT
        };
        self.until = Some(now + wait);
        self.next = (wait * 2).min(FAULT_WAIT_MAX);
        if self
            .logged
            .is_some_and(|t| now.duration_since(t) < FAULT_LOG_EVERY)
        {
            self.unlogged += 1;
            return;
        }
        error!(
            "{why}; trying again in {} s{}",
            wait.as_secs(),
            self.unlogged()
        );
        self.logged = Some(now);
        self.unlogged = 0;
    }

    /// The faults not logged since the last report, said.
    fn unlogged(&self) -> String {
        match self.unlogged {
            0 => String::new(),
            n => format!(" ({n} more fault(s) since the last report, not logged)"),
        }
    }

    /// A round of `serve` touched the database without a fault: a fault has cleared.
    fn cleared(&mut self) {
        if self.until.take().is_some() {
            info!(
                "the fault has cleared: mail is taken again{}",
                self.unlogged()
            );
        }
        self.logged = None;
        self.unlogged = 0;
    }
}

/// `napjudge serve`: until SIGTERM or SIGINT, the mail taken as it comes, the tick every
/// `tick_every` seconds and the outbox delivered after each. A signal lets the step at work
/// finish (each of its changes is one transaction), so a restart finds everything as a run of
/// the one-shot commands would leave it.
pub fn serve(db: &Path, config_file: Option<&Path>, s: Serve) -> Result<ExitCode, String> {
    start_logging();
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        signal_hook::flag::register(signal, Arc::clone(&stop))
            .map_err(|e| format!("can't catch signal {signal}: {e}"))?;
    }
    let Wired {
        config,
        judge: mut j,
        clock,
    } = wiring::judge(db, None, config_file, false)?;
    let target = wiring::target(&config, s.to_dir.as_deref(), s.smtp.as_deref())?;
    if let Some(Target::Smtp(_)) = &target {
        JudgeConfig::sender(&config.judge.address).map_err(|e| e.to_string())?;
    }
    let mut intake = match (s.maildir, &config.imap) {
        (Some(dir), _) => Intake::Maildir(dir),
        (None, Some(imap)) => {
            // A mailbox that can't be reached at the start is a set-up to fix, not an outage
            // to wait out: say so and stop.
            let m = Mailbox::open_until(imap, Arc::clone(&stop)).map_err(|e| e.to_string())?;
            info!("imap {}: connected, reading {}", imap.host, imap.folder);
            Intake::Imap {
                config: Box::new(imap.clone()),
                session: Some(Box::new(m)),
                retry_at: Instant::now(),
                backoff: SLICE,
                stop: Arc::clone(&stop),
            }
        }
        (None, None) => {
            warn!("no [imap] in napjudge.toml and no --maildir: mail comes in only by `napjudge mail receive`");
            Intake::Pipe
        }
    };
    let cfg = wiring::mail_config(&config, None, MAX_SIZE);
    let every = Duration::from_secs(s.tick_every.max(1));
    info!(
        "serving {} (tick every {} s)",
        db.display(),
        every.as_secs()
    );
    let mut next_tick = Instant::now();
    let mut backoff = Backoff::default();
    while !stop.load(Ordering::SeqCst) {
        if let Some(left) = backoff.left() {
            std::thread::sleep(left.min(Duration::from_millis(500)));
            continue;
        }
        let came = match intake.receive(&mut j, &cfg) {
            Received::Taken(n) => n,
            Received::Fault(why) => {
                backoff.fault(&why);
                next_tick = Instant::now();
                continue;
            }
        };
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let ticked = Instant::now() >= next_tick;
        let mut fault = None;
        if ticked {
            fault = tick(&mut j, &config, clock);
            next_tick = Instant::now() + every;
        }
        if fault.is_none() && (ticked || came > 0) {
            fault = deliver(&mut j, &config, target.as_ref(), clock);
        }
        if let Some(why) = fault {
            backoff.fault(&why);
            // The next try ticks: a round that ticks without a fault is the sign it cleared.
            next_tick = Instant::now();
            continue;
        }
        if ticked || came > 0 {
            backoff.cleared();
        }
        // A full batch: more may wait in the folder; take them before waiting.
        if came < BATCH {
            intake.wait(next_tick.saturating_duration_since(Instant::now()), &stop);
        }
    }
    if let Intake::Imap {
        session: Some(m), ..
    } = intake
    {
        m.close();
    }
    info!("stopped");
    Ok(ExitCode::SUCCESS)
}

/// One tick, as `napjudge tick`'s (the games, then the web archive), logged; the fault that
/// stopped it (the database's: every game would fail alike), for the back-off to log.
fn tick(j: &mut Judge, config: &Config, clock: Clock) -> Option<String> {
    let ticked = wiring::run_tick(j, config, clock);
    match ticked.games {
        Ok((answered, report)) => {
            if answered > 0 {
                info!("tick: answered {answered} stored message(s) left unanswered");
            }
            for line in &report.done {
                info!("tick: {line}");
            }
            for line in &report.failed {
                error!("tick: {line}");
            }
        }
        Err(e) => return Some(format!("tick: {e}")),
    }
    match ticked.archive {
        Ok(Some(line)) => info!("tick: {line}"),
        Ok(None) => {}
        Err(e) => error!("tick: the web archive: {e}"),
    }
    None
}

/// The outbox delivered, as `outbox send` does, logged; with nowhere to deliver, a warning
/// when mail waits. The fault that stopped it (the database's, or the outbox's folder or lock
/// file's: every mail would fail alike), for the back-off to log.
fn deliver(
    j: &mut Judge,
    config: &Config,
    target: Option<&Target>,
    clock: Clock,
) -> Option<String> {
    let Some(target) = target else {
        if let Some(w) = wiring::undeliverable(j) {
            warn!("{w}");
        }
        return None;
    };
    match wiring::deliver(j, config, target, None, clock) {
        Ok(sent) => {
            for w in &sent.waiting {
                warn!("{w}");
            }
            for p in &sent.problems {
                warn!("outbox: {p}");
            }
            if sent.sent + sent.failed + sent.given_up > 0 {
                info!(
                    "outbox: {} sent, {} failed, {} given up",
                    sent.sent, sent.failed, sent.given_up
                );
            }
        }
        Err(e) => return Some(format!("outbox: {e}")),
    }
    None
}

/// The napjudge.toml `init` writes: every section a GM with a hosted mailbox needs, the two
/// places to edit marked.
fn config_text(password: &Path) -> String {
    format!(
        r#"# napjudge.toml, written by `napjudge init`. napjudge finds it by --config, else
# $NAPJUDGE_CONFIG, else beside the database (napjudge.db in this folder).
# Every field is explained in napjudge.toml.example; `napjudge check` tries the settings.

# EDIT 1: your mailbox. The judge's address is where players write to and the sender of
# every mail; [imap] reads that mailbox, [smtp] sends from it.
[judge]
address = "judge@example.org"

[imap]
host = "imap.example.org"
tls = "implicit"                 # implicit (port 993) or starttls (port 143)
# port = 993                     # only for a server on another port than its TLS's
user = "judge@example.org"
# The password is never written here: it is the first line of this command's output.
password_command = "cat {password}"
# password_env = "NAPJUDGE_IMAP_PASSWORD"   # or an environment variable
folder = "INBOX"                 # where players' mail arrives
done = "napjudge-answered"       # where a message goes once it is stored and answered
failed = "napjudge-failed"       # where a message goes when it can't be stored whole

[smtp]
host = "smtp.example.org"
security = "starttls"            # starttls (port 587) or tls (465)
# port = 587                     # only for a server on another port than its security's
user = "judge@example.org"
password_file = "password"       # this folder's file `password`

# EDIT 2: put the mailbox's password (an app password, for Gmail and the like) in the file
# {password} (chmod 600), then run `napjudge check`, then `napjudge serve`.

[outbox]
retry_days = 7
retry_minutes = 5
"#,
        password = password.display()
    )
}

/// `napjudge init [DIR]`: the folder made, a commented napjudge.toml and an empty database in
/// it (neither replaced when it exists), and the next steps printed.
pub fn init(dir: &Path) -> Result<ExitCode, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let dir = dir
        .canonicalize()
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    let toml = dir.join(DEFAULT_FILE);
    let db = dir.join("napjudge.db");
    let password = dir.join("password");
    if toml.exists() {
        println!("{} is there already: kept as it is", toml.display());
    } else {
        std::fs::write(&toml, config_text(&password))
            .map_err(|e| format!("{}: {e}", toml.display()))?;
        println!("wrote {}", toml.display());
    }
    if db.exists() {
        println!("{} is there already: kept as it is", db.display());
    } else {
        Store::open(&db).map_err(|e| format!("{}: {e}", db.display()))?;
        println!("made {} (readable by you only)", db.display());
    }
    println!(
        "next:\n  1. edit {toml}: the judge's address, the [imap] and [smtp] hosts and user\n  \
         2. put the mailbox's password in {password} (chmod 600 {password})\n  \
         3. napjudge --db {db} check\n  \
         4. napjudge --db {db} game create NAME --gm YOU@example.org ...\n  \
         5. napjudge --db {db} serve   (docs/napjudge.service runs it under systemd)",
        toml = toml.display(),
        password = password.display(),
        db = db.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Whether `host` resolves, else the line that says it doesn't.
fn resolves(section: &str, host: &str, port: u16) -> Result<(), String> {
    match (host, port).to_socket_addrs().map(|mut a| a.next()) {
        Ok(Some(_)) => Ok(()),
        Ok(None) => Err(format!(
            "{section} host {host}: no address (DNS): check the name"
        )),
        Err(e) => Err(format!(
            "{section} host {host}: the name can't be resolved ({e}): check the name and this \
             machine's DNS"
        )),
    }
}

/// What a failed SMTP login's message is about, for the GM.
fn smtp_hint(message: &str) -> &'static str {
    let m = message.to_ascii_lowercase();
    if m.contains("certificate") || m.contains("tls") || m.contains("handshake") {
        "TLS: check [smtp] security (starttls for 587, tls for 465) and ca_file"
    } else if m.contains("auth") || m.contains("535") || m.contains("credentials") {
        "authentication: check [smtp] user and the password file (an app password for a hosted mailbox)"
    } else if m.contains("refused") || m.contains("timed out") || m.contains("connection") {
        "connection: check [smtp] host and port, and that no firewall is in the way"
    } else {
        "check [smtp] in napjudge.toml"
    }
}

/// `napjudge check`: the database (there, readable, writable with its folder), the judge's
/// address, the SMTP login and the IMAP login, each on a line with what is wrong; exit 1 when
/// anything is.
pub fn check(db: &Path, config_file: Option<&Path>) -> Result<ExitCode, String> {
    let mut bad = 0;
    let mut say = |what: &str, r: Result<String, String>| match r {
        Ok(ok) => println!("ok    {what}: {ok}"),
        Err(e) => {
            bad += 1;
            println!("FAIL  {what}: {e}");
        }
    };
    say(
        "database",
        wiring::open(db, false).and_then(|store| {
            let games = store.view().games().map_err(|e| e.to_string())?.len();
            wiring::writable(db)?;
            Ok(format!("{}: {games} game(s), writable", db.display()))
        }),
    );
    let config = match load_config(config_file) {
        Ok(c) => {
            let read = config_file
                .map(Path::to_path_buf)
                .or_else(|| Some(PathBuf::from(DEFAULT_FILE)).filter(|p| p.is_file()));
            say(
                "config",
                Ok(read.map_or_else(
                    || "no napjudge.toml found: the defaults".to_string(),
                    |p| p.display().to_string(),
                )),
            );
            c
        }
        Err(e) => {
            say("config", Err(e.to_string()));
            return Ok(ExitCode::FAILURE);
        }
    };
    say(
        "judge address",
        JudgeConfig::sender(&config.judge.address)
            .map(str::to_string)
            .map_err(|e| e.to_string()),
    );
    match &config.smtp {
        None => say(
            "smtp",
            Err("no [smtp] section: mail is queued and never sent".into()),
        ),
        Some(smtp) => say(
            "smtp",
            resolves("[smtp]", &smtp.host, smtp.port()).and_then(|()| {
                let t = Target::smtp(smtp).map_err(|e| e.to_string())?;
                let Target::Smtp(server) = t else {
                    return Err("not a mail server".into());
                };
                match server.test() {
                    Ok(true) => Ok(format!(
                        "{}:{} accepted the login{}",
                        smtp.host,
                        smtp.port(),
                        smtp.user
                            .as_deref()
                            .map(|u| format!(" of {u}"))
                            .unwrap_or_default()
                    )),
                    Ok(false) => Err(format!("{}:{} did not answer NOOP", smtp.host, smtp.port())),
                    Err(e) => Err(format!(
                        "{}:{}: {e} ({})",
                        smtp.host,
                        smtp.port(),
                        smtp_hint(&e.to_string())
                    )),
                }
            }),
        ),
    }
    match &config.imap {
        None => say(
            "imap",
            Ok("no [imap] section: mail comes in by `mail receive` or a Maildir".into()),
        ),
        Some(imap) => say(
            "imap",
            Mailbox::open(imap)
                .map(|m| {
                    m.close();
                    format!(
                        "{}:{} accepted the login of {}; folder {} open",
                        imap.host,
                        imap.port(),
                        imap.user,
                        imap.folder
                    )
                })
                .map_err(|e: ImapError| e.to_string()),
        ),
    }
    Ok(if bad == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
