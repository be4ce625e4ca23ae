//! Mail in from a Maildir (`mail poll --maildir`, `serve --maildir`): each file of `new/` stored
//! and answered, then moved to `cur/`; one that can't be read or stored whole goes to `failed/`.

use super::{receive_once, SetAside, Taken};
use crate::clock::Clock;
use crate::game::Judge;
use crate::mail::{digest_of, Incoming, MailConfig, MailError};
use std::path::{Path, PathBuf};

/// The longest file name of the common file systems, in bytes.
const NAME_MAX: usize = 255;

/// The flags of a message in `cur/` that has been read (the Maildir's "info").
const SEEN: &str = ":2,S";

/// The name in `cur/` of the file `name` of `new/`: the name and [`SEEN`]. A name too long to
/// take the flags is cut, and a digest of the whole name keeps it unique: the rename would
/// fail, and every later poll with it.
fn seen_name(name: &str) -> String {
    if name.len() + SEEN.len() <= NAME_MAX {
        return format!("{name}{SEEN}");
    }
    let digest = digest_of(name.as_bytes());
    let digest = digest.get(..16).unwrap_or(&digest);
    let mut keep = NAME_MAX - SEEN.len() - digest.len() - 1;
    while !name.is_char_boundary(keep) {
        keep -= 1;
    }
    format!("{}.{digest}{SEEN}", &name[..keep])
}

/// Why a poll of the Maildir stopped; every file not yet moved stays in `new/`.
#[derive(Debug, thiserror::Error)]
pub enum MaildirError {
    /// `cur/` or `failed/` can't be made.
    #[error("{}: {source}", .dir.display())]
    Folder {
        /// The folder.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// `new/` can't be read.
    #[error("{}: {source} (give a Maildir)", .dir.display())]
    New {
        /// The folder.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A message stored and answered can't be moved to `cur/`.
    #[error("{}: {source}", .path.display())]
    Move {
        /// The file in `new/`.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A fault of the database: every later file would fail alike, so they stay in `new/` for
    /// the next poll.
    #[error(
        "{}: not stored: {source}; it and the files after it stay in {}",
        .path.display(),
        .new.display()
    )]
    Store {
        /// The file in `new/`.
        path: PathBuf,
        /// The folder it stays in.
        new: PathBuf,
        /// Why (boxed: it is large beside the other variants).
        source: Box<MailError>,
    },
}

/// One file of a poll.
#[derive(Debug)]
pub struct Polled {
    /// The file in `new/`.
    pub path: PathBuf,
    /// Its name there.
    pub name: String,
    /// What storing it did; `None`: it could not be read.
    pub taken: Option<Taken>,
    /// Why it went to `failed/`, and where to, if it did.
    pub set_aside: Option<SetAsideFile>,
}

/// A file moved to `failed/`.
#[derive(Debug)]
pub struct SetAsideFile {
    /// Why.
    pub why: String,
    /// The `failed/` folder.
    pub folder: PathBuf,
    /// Its path there, or why it could not be moved (it stays in `new/`).
    pub moved: Result<PathBuf, std::io::Error>,
}

impl Polled {
    /// It could not be read or stored: the GM has to look at it in `failed/`.
    pub fn is_fault(&self) -> bool {
        match &self.taken {
            None => true,
            Some(t) => matches!(t.failed, Some(SetAside::Unstored(_))),
        }
    }
}

/// Each file of `maildir/new`, in name order (the first `at_most`), stored and answered, then
/// moved to `cur/` and told to `polled`. A file that can't be read or stored, or one over the
/// size limit (its headers stored and its sender answered, but not the whole), is moved to
/// `failed/`, and polling goes on.
pub fn poll(
    j: &mut Judge,
    cfg: &MailConfig,
    maildir: &Path,
    clock: &Clock,
    at_most: usize,
    polled: &mut dyn FnMut(&Polled),
) -> Result<(), MaildirError> {
    let new = maildir.join("new");
    let cur = maildir.join("cur");
    let failed = maildir.join("failed");
    for dir in [&cur, &failed] {
        std::fs::create_dir_all(dir).map_err(|source| MaildirError::Folder {
            dir: dir.clone(),
            source,
        })?;
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(&new)
        .map_err(|source| MaildirError::New {
            dir: new.clone(),
            source,
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    // Maildir names start with the delivery time: their order is the order of arrival.
    files.sort();
    files.truncate(at_most);
    for path in files {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let name = name.unwrap_or_default();
        let read = std::fs::File::open(&path).and_then(|f| Incoming::read(f, cfg.max_size));
        let (taken, why) = match read {
            Ok(m) => {
                let taken = receive_once(j, cfg, &m, clock.now()).map_err(|source| {
                    MaildirError::Store {
                        path: path.clone(),
                        new: new.clone(),
                        source: Box::new(source),
                    }
                })?;
                let why = taken.failed.as_ref().map(ToString::to_string);
                (Some(taken), why)
            }
            Err(err) => (None, Some(format!("can't be read ({err})"))),
        };
        let Some(why) = why else {
            let target = cur.join(seen_name(&name));
            polled(&Polled {
                path: path.clone(),
                name,
                taken,
                set_aside: None,
            });
            std::fs::rename(&path, &target)
                .map_err(|source| MaildirError::Move { path, source })?;
            continue;
        };
        let target = failed.join(&name);
        let moved = std::fs::rename(&path, &target).map(|()| target);
        let set_aside = SetAsideFile {
            why,
            folder: failed.clone(),
            moved,
        };
        polled(&Polled {
            path,
            name,
            taken,
            set_aside: Some(set_aside),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    /// Issue 31, finding 2: a name too long for the flags is cut on a character's boundary (a
    /// name of two-byte characters) to fit 255 bytes with them, and two names alike in their
    /// start stay two.
    #[test]
    fn a_long_name_is_cut_to_fit_with_the_flags_and_stays_unique() {
        let a = format!("x{}a", "é".repeat(130));
        let b = format!("x{}b", "é".repeat(130));
        let (cut_a, cut_b) = (seen_name(&a), seen_name(&b));
        for cut in [&cut_a, &cut_b] {
            assert!(cut.len() <= NAME_MAX, "{} bytes", cut.len());
            assert!(cut.ends_with(SEEN), "{cut}");
            assert!(cut.starts_with(&format!("x{}", "é".repeat(100))), "{cut}");
        }
        assert_ne!(cut_a, cut_b);
        assert_eq!(seen_name("1.short"), "1.short:2,S");
    }

    /// In name order: a mail stored, answered and moved to `cur/` marked seen; one over the size
    /// limit answered from its headers and set aside in `failed/`, which is no fault; a
    /// directory in `new/` left alone.
    #[test]
    fn each_file_goes_to_cur_or_failed_in_name_order() {
        let dir = std::env::temp_dir().join(format!("napjudge-maildir-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let new = dir.join("Maildir").join("new");
        std::fs::create_dir_all(new.join("a-folder")).expect("maildir");
        let mail = |id: &str, body: &str| {
            format!("From: a@example.org\r\nMessage-ID: <{id}@example.org>\r\n\r\n{body}\r\n")
        };
        std::fs::write(new.join("1.small"), mail("1", "HELP")).expect("mail");
        std::fs::write(new.join("2.big"), mail("2", &"HELP\r\n".repeat(100))).expect("mail");
        let mut j = Judge::new(Store::open(&dir.join("judge.db")).expect("db"));
        let cfg = MailConfig {
            judge: "judge@example.org".into(),
            max_size: 200,
        };
        let mut seen = Vec::new();
        let maildir = dir.join("Maildir");
        poll(
            &mut j,
            &cfg,
            &maildir,
            &Clock::system(),
            usize::MAX,
            &mut |p| {
                let answered = p.taken.as_ref().is_some_and(|t| t.handled.is_some());
                let aside = p.set_aside.as_ref().map(|a| a.moved.is_ok());
                seen.push((p.name.clone(), answered, aside, p.is_fault()));
            },
        )
        .expect("polled");
        assert_eq!(
            seen,
            [
                ("1.small".to_string(), true, None, false),
                ("2.big".to_string(), true, Some(true), false),
            ]
        );
        assert!(maildir.join("cur").join("1.small:2,S").is_file());
        assert!(maildir.join("failed").join("2.big").is_file());
        assert!(new.join("a-folder").is_dir());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
