//! One mail's commands run in order: the caps on its work, its SIGNON (refused, stale or
//! passed), HELP, the order lines flushed as a set before any other command, and the reply's
//! blocks, each cut to the room the reply has left.

use super::message::Head;
use super::replies::{block_size, Block, Extras, GmHelpMail, HelpMail};
use super::text::{Command, GmCommand, Line};
use super::{players, seats, stray, MailConfig, MailError, MAX_COMMANDS, MAX_REPLY, MAX_REPORTS};
use crate::clock;
use crate::game::{
    Acknowledgement, GameError, Guesser, Judge, Signed, SignonRefusal, Stale, THROTTLE_WINDOW,
};
use crate::render::{self, echo};
use crate::store::{Address, Game, Role};
use chrono::{DateTime, Utc};

/// The one sentence a refused SIGNON's reply says (and a throttled TAKEOVER's).
pub(super) fn refusal(r: &SignonRefusal, sender: &Address) -> String {
    match r {
        SignonRefusal::Throttled {
            role,
            game,
            by,
            until,
        } => {
            let (whose, what) = match by {
                Guesser::Sender => (
                    format!("from {sender}"),
                    "checks no password or code from this address".to_string(),
                ),
                Guesser::Others => (
                    format!("from addresses other than {role}'s own"),
                    format!("checks only mail from the address it mails {role} at"),
                ),
                Guesser::Owner => (
                    format!(
                        "from {role}'s own address (if they were not yours, someone is \
                         forging it: tell your GM)"
                    ),
                    "checks no password or code".to_string(),
                ),
            };
            format!(
                "Too many wrong passwords or takeover codes for {role} in game '{game}' came \
                 {whose} in the last {}: the judge {what} for {role} until {until}. Nothing was \
                 done: try again then; your GM can set a new password.",
                clock::Period::clamped(THROTTLE_WINDOW)
            )
        }
        SignonRefusal::UnknownGame(game) => format!(
            "There is no game called '{}' on this judge. Check the name in your SIGNON line.",
            echo(game)
        ),
        SignonRefusal::UnknownPower {
            power,
            game,
            powers,
        } => format!(
            "'{}' is not a power of game '{game}'. Its powers: {}.",
            echo(power),
            powers.join(", ")
        ),
        SignonRefusal::WrongPassword { role, game } => {
            format!("Wrong password for {role} in game '{game}'. Nothing was done.")
        }
        SignonRefusal::Left {
            role,
            game,
            since,
            how,
        } => seats::left(role, game, since, *how),
    }
}

/// One mail's commands being run: who signed on, and the blocks of the reply so far.
pub(super) struct Session<'a> {
    pub(super) j: &'a mut Judge,
    cfg: &'a MailConfig,
    pub(super) sender: &'a Address,
    /// The mail's From (its sender is its Reply-To when it has one): who asked, as a request
    /// to observe tells the address it names.
    pub(super) from: &'a Address,
    /// The mail's Subject: a reply to a press mail is told how to answer press.
    subject: &'a str,
    /// The mail's time: every service call is made at it.
    pub(super) now: DateTime<Utc>,
    /// When the mail says it was written ([`Fresh::dated`]): orders written before the phase
    /// they were for was processed are told so first.
    pub(super) dated: DateTime<Utc>,
    /// The mail was told its phase was processed before it came (said once).
    pub(super) told_processed: bool,
    /// (is it the orders' block, the block): the orders' blocks are replaced at each flush.
    pub(super) blocks: Vec<(bool, Block)>,
    who: Option<Signed>,
    /// The power's order set as the mail's latest orders left it, when they were stored: the
    /// reply's last block, without checking them again.
    pub(super) set: Option<Acknowledgement>,
    /// What goes with the reply: the mail's record once its SIGNON passed the checks of older
    /// mail and replays, a MAP's picture, the copy for the role's own address.
    pub(super) extras: Extras,
    /// A mail with press that is a copy of one handled (the date of that one): its press is
    /// not sent again.
    pub(super) press_copy: Option<DateTime<Utc>>,
    /// Commands run so far (order lines not counted), of [`MAX_COMMANDS`].
    commands: usize,
    /// LIST, HISTORY, SUMMARY, PREVIEW and MAP run so far, of [`MAX_REPORTS`].
    reports: usize,
    /// HELP answered already.
    helped: bool,
    /// A line failed (an order's error, an unknown command, a command's ERROR).
    pub(super) failed: bool,
    /// The player signed on resigned: the mail's last block is not their orders.
    left: bool,
}

/// What a mail is recognised by: its date ([`Head::dated`](super::message::Head::dated))
/// and the digest of its text.
pub(super) struct Fresh {
    pub(super) dated: DateTime<Utc>,
    pub(super) digest: String,
    /// The mail carries press.
    pub(super) press: bool,
}

/// A mail's commands run: the game it concerned, the reply's first sentence and its blocks,
/// and what goes with the reply.
pub(super) struct Ran {
    pub(super) game: Option<i64>,
    pub(super) intro: String,
    pub(super) blocks: Vec<Block>,
    pub(super) extras: Extras,
    /// A line of the mail failed: the reply shows the mail as read.
    pub(super) failed: bool,
    /// The mail was signed on as the GM: the reply points to the GM's guide.
    pub(super) gm: bool,
}

impl Ran {
    /// A mail refused whole, in one sentence.
    fn refused(intro: String) -> Ran {
        Ran {
            game: None,
            intro,
            blocks: Vec::new(),
            extras: Extras::default(),
            failed: false,
            gm: false,
        }
    }

    /// A mail refused whole for one of its lines.
    fn bad_line(intro: String) -> Ran {
        Ran {
            failed: true,
            ..Ran::refused(intro)
        }
    }
}

/// A time as a reply gives it.
pub(super) fn stamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// The one sentence of a mail refused as older than one handled, or as a replay.
fn stale(why: &Stale, s: &Signed) -> String {
    let (role, game) = (&s.role, &s.game.name);
    match why {
        Stale::Older { dated, last } => format!(
            "Your mail is dated {}, before your mail dated {} that the judge has handled \
             already for {role} in game '{game}': an older mail can't undo a newer one. Nothing \
             in it was done. If you mean it, send it again: a new mail is dated now.",
            stamp(*dated),
            stamp(*last)
        ),
        Stale::Replayed { first } => format!(
            "Your mail has the same text as your mail dated {} that the judge has handled \
             already for {role} in game '{game}': it is taken for a copy sent again, and \
             nothing in it was done. To give the same commands again on purpose, \
             add a line such as LIST.",
            stamp(*first)
        ),
    }
}

impl<'a> Session<'a> {
    /// The mail of `head` about to be run at its time `now`.
    pub(super) fn new(
        j: &'a mut Judge,
        cfg: &'a MailConfig,
        head: &'a Head,
        now: DateTime<Utc>,
    ) -> Session<'a> {
        Session {
            j,
            cfg,
            sender: &head.sender,
            from: &head.from,
            subject: &head.subject,
            now,
            dated: now,
            told_processed: false,
            blocks: Vec::new(),
            who: None,
            set: None,
            extras: Extras::default(),
            press_copy: None,
            commands: 0,
            reports: 0,
            helped: false,
            failed: false,
            left: false,
        }
    }

    /// Adds a block other than the orders'.
    pub(super) fn push(&mut self, b: Block) {
        self.push_block(false, b);
    }

    /// Adds a block (an orders' block, or another), cut to the room the reply has left.
    pub(super) fn push_block(&mut self, orders: bool, mut b: Block) {
        let room = MAX_REPLY.saturating_sub(self.size());
        let mut used = b.head.len().saturating_add(2);
        let keep = b
            .lines
            .iter()
            .take_while(|l| {
                used = used.saturating_add(l.len()).saturating_add(3);
                used <= room
            })
            .count();
        let cut = b.lines.len().saturating_sub(keep);
        if cut > 0 {
            b.lines.truncate(keep);
            b.lines.push(format!(
                "... {cut} more lines cut: a reply holds at most {MAX_REPLY} bytes. Ask for \
                 this alone, or for less at a time."
            ));
        }
        self.blocks.push((orders, b));
    }

    /// The bytes the reply's blocks take so far.
    fn size(&self) -> usize {
        self.blocks
            .iter()
            .fold(0, |n, (_, b)| n.saturating_add(block_size(b)))
    }

    /// Runs a mail's commands: the game it concerned, the reply's first sentence and its
    /// blocks.
    pub(super) fn run(mut self, lines: &[Line], fresh: &Fresh) -> Result<Ran, MailError> {
        self.dated = fresh.dated;
        // The mail's order lines since its last CLEAR, and whether some came since the last
        // flush.
        let mut orders: Vec<&Line> = Vec::new();
        let mut dirty = false;
        // A GM's mail gets the GM's guide for HELP, before the SIGNON line too (a wrong
        // password refuses the whole mail).
        let gm_mail = lines.iter().any(
            |l| matches!(&l.command, Command::Signon { power, .. } if Role::named(power) == Role::Gm),
        );
        // Lines after it may be the mail's closing.
        let last_command = lines.iter().rposition(|l| l.command.is_command());
        for (i, l) in lines.iter().enumerate() {
            // Bounded work per mail: past the commands' cap or a full reply, the rest is not
            // run (order lines have their own cap, checked as a set).
            let is_order = !l.command.is_command();
            if !is_order {
                self.commands = self.commands.saturating_add(1);
            }
            if self.commands > MAX_COMMANDS || self.size() >= MAX_REPLY {
                let rest = lines.len().saturating_sub(i);
                self.push(Block::with(
                    format!("line {} and after", l.number),
                    format!("{rest} more commands not answered: send fewer at a time."),
                ));
                break;
            }
            let head = line_head(l);
            // The order lines so far are taken before any other command runs (LIST shows them,
            // a PAUSE comes after them), as one set: later lines join them and the set is taken
            // again.
            if let (Some(s), true, false, false) = (
                self.who.clone(),
                dirty,
                is_order,
                l.command == Command::Clear,
            ) {
                self.take_orders(&s, &orders)?;
                dirty = false;
            }
            match (&l.command, self.who.clone()) {
                (Command::Help, _) => self.help(head, gm_mail)?,
                (
                    Command::Signon {
                        power,
                        game,
                        password,
                    },
                    None,
                ) => {
                    if let Some(refused) = self.signon(l.number, power, game, password, fresh)? {
                        return Ok(refused);
                    }
                }
                (Command::Signon { .. }, Some(_)) => self.push(Block::with(
                    format!("line {}: SIGNON ...", l.number),
                    "One SIGNON per mail: this line was ignored.",
                )),
                (
                    c @ (Command::Takeover { .. }
                    | Command::BadTakeover
                    | Command::Observe(_)
                    | Command::Unobserve(_)
                    | Command::Confirm { .. }
                    | Command::BadConfirm),
                    _,
                ) => self.unsigned(c, head)?,
                (Command::BadSignon, _) => {
                    return Ok(Ran::bad_line(format!(
                        "Line {}: a SIGNON line has three words after SIGNON: \
                         SIGNON POWER GAME PASSWORD (the GM: SIGNON GM GAME PASSWORD). \
                         Nothing was done.",
                        l.number
                    )))
                }
                (Command::Closing, _) => {
                    self.push(Block::with(head, stray::Stray::Closing.answer()));
                }
                (c, None) => {
                    if let Some(why) = self.observer_refusal(c)? {
                        return Ok(Ran::refused(why));
                    }
                    if let Some(how) = super::press::reply_to_press(self.subject) {
                        return Ok(Ran::bad_line(how));
                    }
                    return Ok(Ran::bad_line(format!(
                        "Line {}: your mail has no SIGNON before its commands. Start the mail \
                         with SIGNON POWER GAME PASSWORD (send HELP for the guide). Nothing \
                         was done.",
                        l.number
                    )));
                }
                (Command::Resign, Some(s)) => {
                    if self.resign(&s, head)? {
                        self.left = true;
                        break;
                    }
                }
                (Command::Signoff, Some(_)) => {
                    self.push(Block::with(
                        head,
                        "Signed off: the rest of the mail was not read.",
                    ));
                    break;
                }
                (Command::Order(text), Some(s)) => {
                    let trailing = last_command.is_none_or(|k| i > k);
                    match self.stray(&s, text, trailing)? {
                        Some(stray) => {
                            self.failed |= matches!(stray, stray::Stray::Unknown { .. });
                            self.push(Block::with(head, stray.answer()));
                        }
                        None => {
                            orders.push(l);
                            dirty = true;
                        }
                    }
                }
                (Command::Clear, Some(s)) if s.role != Role::Gm => {
                    // CLEAR drops the mail's earlier order lines too.
                    let dropped = orders.len();
                    orders.clear();
                    dirty = false;
                    self.blocks.retain(|(o, _)| !o);
                    let mut b = self.clear(&s, head)?;
                    if dropped > 0 {
                        b.lines.push(format!(
                            "The {dropped} order lines above it were dropped too."
                        ));
                    }
                    self.push(b);
                }
                (c, Some(_)) if is_report(c) && self.reports >= MAX_REPORTS => {
                    self.push(Block::with(
                        head,
                        format!(
                            "LIST, HISTORY, SUMMARY, PREVIEW and MAP are answered \
                             {MAX_REPORTS} times per mail in all: this one was not run."
                        ),
                    ));
                }
                (c, Some(s)) => {
                    if is_report(c) {
                        self.reports = self.reports.saturating_add(1);
                    }
                    let b = self.command(&s, c, head)?;
                    self.failed |= b.lines.iter().any(|l| l.starts_with("ERROR"));
                    self.push(b);
                }
            }
        }
        self.finish(&orders, dirty)
    }

    /// HELP: the players' guide, or in a GM's mail the GM's; answered once per mail.
    fn help(&mut self, head: String, gm_mail: bool) -> Result<(), MailError> {
        if self.helped {
            self.push(Block::with(head, "HELP is answered once per mail."));
            return Ok(());
        }
        self.helped = true;
        let judge = &self.cfg.judge;
        let guide = if gm_mail {
            render::render("GM's help", &GmHelpMail { judge })?
        } else {
            render::render("help", &HelpMail { judge })?
        };
        self.push(Block {
            head,
            lines: guide.lines().map(str::to_string).collect(),
        });
        Ok(())
    }

    /// The mail's SIGNON on line `number`: who the mail is from from now on; or, when it is
    /// refused or the mail is older than one handled or a replay, the mail's answer, refused
    /// whole.
    fn signon(
        &mut self,
        number: usize,
        power: &str,
        game: &str,
        password: &str,
        fresh: &Fresh,
    ) -> Result<Option<Ran>, MailError> {
        let s = match self
            .j
            .signon(self.sender, power, game, password, self.now)?
        {
            Ok(s) => s,
            Err(r) => return Ok(Some(Ran::refused(refusal(&r, self.sender)))),
        };
        // An older mail, or the same text again in the phase: nothing is done.
        match self.j.check_fresh(&s, fresh.dated, &fresh.digest)? {
            Ok(h) => self.extras.handled = Some(h),
            Err(Stale::Replayed { first }) if fresh.press => self.press_copy = Some(first),
            Err(why) => return Ok(Some(Ran::refused(stale(&why, &s)))),
        }
        let mut b = Block::with(
            format!("line {number}: SIGNON {} {}", s.role, s.game.name),
            format!("Signed on as {} in game '{}'.", s.role, s.game.name),
        );
        self.extras.copy = players::signon_copy(self.j, &s, self.sender, self.now)?;
        if self.extras.copy.is_some() {
            b.lines.push(players::copy_said(&s.role));
        }
        self.push(b);
        self.who = Some(s);
        Ok(None)
    }

    /// The mail's answer once its lines have run: its last order lines are taken, and a
    /// power's orders as they now stand are the reply's last block.
    fn finish(mut self, orders: &[&Line], dirty: bool) -> Result<Ran, MailError> {
        let Some(s) = self.who.clone() else {
            return Ok(Ran {
                game: None,
                intro: "Here is what you asked for.".into(),
                blocks: self.blocks.into_iter().map(|(_, b)| b).collect(),
                extras: Extras::default(),
                failed: self.failed,
                gm: false,
            });
        };
        if dirty {
            self.take_orders(&s, orders)?;
        }
        if let (Role::Power(power), false) = (&s.role, self.left) {
            if let Some(b) = self.order_set(&s.game, power)? {
                self.push(b);
            }
        }
        let intro = format!(
            "The judge read your mail as {} in game '{}'. Line by line:",
            s.role, s.game.name
        );
        Ok(Ran {
            game: Some(s.game.id),
            intro,
            blocks: self.blocks.into_iter().map(|(_, b)| b).collect(),
            extras: self.extras,
            failed: self.failed,
            gm: s.role == Role::Gm,
        })
    }

    /// What an order line of the mail is when it is not an order ([`stray::classify`]). The
    /// GM's lines that name a power are orders.
    fn stray(
        &mut self,
        s: &Signed,
        text: &str,
        trailing: bool,
    ) -> Result<Option<stray::Stray>, MailError> {
        if s.role == Role::Gm && text.contains(':') {
            return Ok(None);
        }
        Ok(self
            .j
            .with_variant(&s.game, |v, _| stray::classify(v, text, trailing))?)
    }

    /// The game as it is now: an earlier line of the mail may have paused or resumed it.
    pub(super) fn game_now(&self, s: &Signed) -> Result<Game, MailError> {
        Ok(self
            .j
            .view()
            .game(&s.game.name)
            .map_err(GameError::from)?
            .unwrap_or_else(|| s.game.clone()))
    }
}

/// The commands that answer with a long text: LIST, HISTORY, SUMMARY, PREVIEW.
fn is_report(c: &Command) -> bool {
    matches!(
        c,
        Command::List
            | Command::History
            | Command::HistoryPress(_)
            | Command::Map(_)
            | Command::Summary
            | Command::Gm(GmCommand::Preview)
    )
}

/// A line's heading in the reply: the line as written, but a new password, a takeover code or
/// a token to observe is not echoed back.
fn line_head(l: &Line) -> String {
    match &l.command {
        Command::SetPassword(_) => format!("line {}: SET PASSWORD ...", l.number),
        Command::Takeover { power, game, .. } => format!(
            "line {}: TAKEOVER {} {} ...",
            l.number,
            echo(power),
            echo(game)
        ),
        Command::Confirm { game, .. } => {
            format!("line {}: CONFIRM OBSERVE {} ...", l.number, echo(game))
        }
        _ => format!("line {}: {}", l.number, echo(&l.text)),
    }
}
