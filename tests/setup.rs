//! Issue 22, a set-up that can't go silently wrong: `napjudge init` writes a config and a
//! database and says what comes next; `napjudge check` names what is wrong (DNS, the login);
//! the config is found beside the database from any folder; no mail goes by SMTP from the
//! placeholder address; `tick` says when mail waits with no way to deliver it; a missing
//! database's refusal names the fix; a replay writes into the temporary folder it names, not
//! into the folder it was started from.

// Shared with other test binaries: not every helper is used here.
#[allow(dead_code)]
use crate::dovecot;
#[allow(dead_code)]
use crate::intake;

use dovecot::{Dovecot, PASSWORD};
use napjudge_judge::{MailState, Store};
use std::path::Path;
use std::process::{Command, Output};

/// `napjudge ARGS` in `cwd`, with none of the variables that would name another database or
/// config.
fn napjudge(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_napjudge"))
        .args(args)
        .current_dir(cwd)
        .env_remove("NAPJUDGE_DB")
        .env_remove("NAPJUDGE_CONFIG")
        .env_remove("NAPJUDGE_FROM")
        .output()
        .expect("napjudge runs")
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr)
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// A database in `dir` with one mail queued (a generated password, mailed).
fn one_mail_queued(dir: &Path) -> std::path::PathBuf {
    let db = dir.join("napjudge.db");
    for args in [
        vec!["game", "create", "g", "--gm", "gm@example.org"],
        vec!["game", "assign", "g", "France", "france@example.org"],
    ] {
        let mut all = vec!["--db", path(&db)];
        all.extend(args);
        let o = napjudge(dir, &all);
        assert!(o.status.success(), "{}", out(&o));
    }
    db
}

fn states(db: &Path) -> Vec<MailState> {
    let st = Store::open(db).expect("db");
    crate::golden::queued(st.view())
        .into_iter()
        .map(|m| m.state)
        .collect()
}

#[test]
fn init_writes_a_commented_config_and_the_database_then_check_names_each_fault() {
    let dir = intake::scratch("init");
    let judge = dir.join("judge");
    let o = napjudge(&dir, &["init", path(&judge)]);
    assert!(o.status.success(), "{}", out(&o));
    assert!(
        out(&o).contains("next:") && out(&o).contains("serve"),
        "{}",
        out(&o)
    );
    let toml = judge.join("napjudge.toml");
    let text = std::fs::read_to_string(&toml).expect("config written");
    assert!(text.contains("EDIT 1") && text.contains("EDIT 2"), "{text}");
    // Issue 32, finding 13: the port lines of napjudge.toml.example, for a server on another port.
    assert!(
        text.contains("# port = 993") && text.contains("# port = 587"),
        "{text}"
    );
    napjudge_judge::parse_config(&text).expect("the written config reads");
    assert!(judge.join("napjudge.db").is_file());
    // Run again: nothing replaced.
    std::fs::write(&toml, format!("{text}\n# mine\n")).expect("edit");
    let o = napjudge(&dir, &["init", path(&judge)]);
    assert!(o.status.success(), "{}", out(&o));
    assert!(std::fs::read_to_string(&toml)
        .expect("config")
        .ends_with("# mine\n"));

    // The two edits, made wrong: an SMTP host that doesn't resolve, a wrong IMAP password.
    let d = Dovecot::start(&intake::scratch("init-imap"));
    std::fs::write(
        &toml,
        format!(
            "[judge]\naddress = \"judge@example.org\"\n[smtp]\nhost = \"mail.napjudge.invalid\"\n\
             security = \"tls\"\n{}",
            d.config()
        ),
    )
    .expect("config");
    let check = |password: &str| {
        Command::new(env!("CARGO_BIN_EXE_napjudge"))
            .args(["--db", path(&judge.join("napjudge.db")), "check"])
            .current_dir(&dir)
            .env("NAPJUDGE_TEST_IMAP", password)
            .env_remove("NAPJUDGE_CONFIG")
            .output()
            .expect("napjudge runs")
    };
    let o = check("wrong");
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    let said = out(&o);
    assert!(said.contains("ok    database"), "{said}");
    assert!(
        said.contains("FAIL  smtp: [smtp] host mail.napjudge.invalid: the name can't be resolved"),
        "{said}"
    );
    assert!(
        said.contains("FAIL  imap: [imap] localhost: the login of judge was refused"),
        "{said}"
    );
    let o = check(PASSWORD);
    assert!(
        out(&o).contains("ok    imap: localhost:") && out(&o).contains("folder INBOX open"),
        "{}",
        out(&o)
    );
}

/// A cron job or a mail server's pipe starts napjudge in some other folder: the config beside
/// the database is the one read (here its `[outbox] dir`).
#[test]
fn the_config_is_found_beside_the_database() {
    let dir = intake::scratch("config-beside");
    let db = one_mail_queued(&dir);
    std::fs::write(
        dir.join("napjudge.toml"),
        "[judge]\naddress = \"judge@example.org\"\n[outbox]\ndir = \"out\"\n",
    )
    .expect("config");
    let elsewhere = intake::scratch("config-beside-elsewhere");
    let o = napjudge(&elsewhere, &["--db", path(&db), "outbox", "send"]);
    assert!(o.status.success(), "{}", out(&o));
    assert!(out(&o).contains("1 sent"), "{}", out(&o));
    assert_eq!(std::fs::read_dir(dir.join("out")).expect("out").count(), 1);
}

/// Without `[judge] address` a send by SMTP is refused, saying what to write, and the mail
/// stays queued; `tick` with nowhere to deliver says mail waits.
#[test]
fn no_mail_goes_from_the_placeholder_address_and_tick_says_mail_waits() {
    let dir = intake::scratch("no-address");
    let db = one_mail_queued(&dir);
    let o = napjudge(
        &dir,
        &[
            "--db",
            path(&db),
            "outbox",
            "send",
            "--smtp",
            "smtp://127.0.0.1:9",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", out(&o));
    assert!(
        out(&o).contains("no judge address: write address = \"judge@your.domain\" under [judge]"),
        "{}",
        out(&o)
    );
    assert_eq!(states(&db), [MailState::Queued]);
    let o = napjudge(&dir, &["--db", path(&db), "tick"]);
    assert!(
        out(&o).contains("1 mail(s) queued and no way to deliver them"),
        "{}",
        out(&o)
    );
}

#[test]
fn a_missing_database_names_the_fix() {
    let dir = intake::scratch("missing-db");
    let o = napjudge(&dir, &["--db", path(&dir.join("nope.db")), "game", "list"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        out(&o).contains(&format!(
            "no nope.db in {}; give --db FILE, set NAPJUDGE_DB, or run `napjudge init`",
            dir.display()
        )),
        "{}",
        out(&o)
    );
}

/// A replay started in any folder leaves nothing there: its mails go under the temporary
/// folder, which the summary names.
#[test]
fn a_replay_writes_under_the_temporary_folder_and_says_where() {
    let dir = intake::scratch("replay-where");
    let tmp = intake::scratch("replay-where-tmp");
    let game = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/games/wd433761");
    let o = Command::new(env!("CARGO_BIN_EXE_napjudge"))
        .args(["replay", path(&game)])
        .current_dir(&dir)
        .env("TMPDIR", &tmp)
        .output()
        .expect("napjudge runs");
    assert!(o.status.success(), "{}", out(&o));
    let there = tmp.join("napjudge-replay/wd433761");
    assert!(
        out(&o).contains(&format!("the judge's mails are in {}", there.display())),
        "{}",
        out(&o)
    );
    assert!(std::fs::read_dir(&there).expect("outbox").count() > 0);
    assert_eq!(
        std::fs::read_dir(&dir).expect("cwd").count(),
        0,
        "nothing in the cwd"
    );
}
