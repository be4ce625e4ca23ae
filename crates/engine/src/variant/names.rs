//! Name look-up: codes, full names and aliases, case insensitive, with "did you mean" answers.

use super::{PowerId, ProvinceId, Variant};

/// What a name written in an order or a case file may mean.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// Exactly one space.
    One(ProvinceId),
    /// Several spaces (a name the variant declares `ambiguous`); the order's geometry decides.
    Ambiguous(Vec<ProvinceId>),
    /// No space; the closest known name, if one is close.
    Unknown {
        /// The closest code or name, as printed.
        suggestion: Option<String>,
    },
}

/// The key a name is filed under: lower case, dots dropped, runs of spaces folded.
pub(crate) fn key(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    fold_key(name, |c| {
        out.push(c);
        true
    });
    out
}

/// Gives each character of [`key`] to `push` in turn, stopping (false) as soon as it says no.
fn fold_key(name: &str, mut push: impl FnMut(char) -> bool) -> bool {
    let mut started = false;
    let mut blank = false;
    for c in name.chars() {
        if c == '.' || c.is_whitespace() {
            blank = started;
            continue;
        }
        if blank && !push(' ') {
            return false;
        }
        blank = false;
        started = true;
        let fits = if c.is_ascii() {
            // Most names are ASCII: lower case without Unicode's tables.
            push(c.to_ascii_lowercase())
        } else {
            c.to_lowercase().all(&mut push)
        };
        if !fits {
            return false;
        }
    }
    true
}

/// The longest key [`short_key`] builds on the stack.
const SHORT_KEY: usize = 64;

/// [`key`] written into `buf` when it is ASCII and fits, else `None`: the parser looks up every
/// prefix of a line it tries as a name, and nearly all are short ASCII names, so none allocates.
fn short_key<'b>(name: &str, buf: &'b mut [u8; SHORT_KEY]) -> Option<&'b str> {
    let mut len = 0;
    let fits = fold_key(name, |c| match (buf.get_mut(len), u8::try_from(c)) {
        (Some(slot), Ok(b)) if b.is_ascii() => {
            *slot = b;
            len += 1;
            true
        }
        _ => false,
    });
    if !fits {
        return None;
    }
    std::str::from_utf8(&buf[..len]).ok()
}

/// Edit distance between two short strings (for suggestions).
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The closest of `candidates` to `name`, if it is close enough to be a likely typo.
pub(super) fn closest<'a>(
    name: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    let k = key(name);
    let limit = (k.chars().count() / 3).max(1);
    candidates
        .map(|c| (distance(&k, &key(c)), c))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

impl Variant {
    /// The spaces `name` (a code, full name or alias) answers to, without a suggestion when
    /// none: the parser tries many prefixes of a line, and only an error reported needs one.
    pub fn find(&self, name: &str) -> Option<&[ProvinceId]> {
        let mut buf = [0; SHORT_KEY];
        let found = match short_key(name, &mut buf) {
            Some(k) => self.names.get(k),
            None => self.names.get(&key(name)),
        };
        found.map(Vec::as_slice).filter(|s| !s.is_empty())
    }

    /// What `name` means: a code, full name or alias of a space, or the closest known name.
    pub fn lookup(&self, name: &str) -> Lookup {
        match self.find(name) {
            Some([one]) => Lookup::One(*one),
            Some(many) => Lookup::Ambiguous(many.to_vec()),
            None => {
                let printed = self
                    .provinces
                    .iter()
                    .flat_map(|p| [p.code.as_str(), p.name.as_str()]);
                Lookup::Unknown {
                    suggestion: closest(name, printed).map(str::to_string),
                }
            }
        }
    }

    /// The power called `name` (its name or an alias, case insensitive).
    pub fn power_by_name(&self, name: &str) -> Option<PowerId> {
        let k = key(name);
        self.powers
            .iter()
            .position(|p| key(&p.name) == k || p.aliases.iter().any(|a| key(a) == k))
            .map(|i| PowerId(i as u8))
    }

    /// The power name closest to `name`, for a "did you mean" answer.
    pub fn suggest_power(&self, name: &str) -> Option<&str> {
        closest(name, self.powers.iter().map(|p| p.name.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_folds_case_dots_and_spaces() {
        assert_eq!(key("St. Petersburg"), "st petersburg");
        assert_eq!(key("  ST   Petersburg "), "st petersburg");
        assert_eq!(key("St.Petersburg"), "st petersburg");
        assert_eq!(key("Côte d'Or"), "côte d'or");
    }

    /// The parser's stack-built key is the same key, and gives way to [`key`] beyond ASCII.
    #[test]
    fn short_key_is_the_key_or_none() {
        let mut buf = [0; SHORT_KEY];
        for name in [
            "St. Petersburg",
            "  ST   Petersburg ",
            "Mid-Atlantic Ocean",
            "nwy",
        ] {
            assert_eq!(
                short_key(name, &mut buf),
                Some(key(name).as_str()),
                "{name}"
            );
        }
        assert_eq!(short_key("Côte", &mut buf), None);
        assert_eq!(short_key(&"a".repeat(SHORT_KEY + 1), &mut buf), None);
    }

    #[test]
    fn distance_counts_edits() {
        assert_eq!(distance("burgundy", "burgandy"), 1);
        assert_eq!(distance("par", "par"), 0);
        assert_eq!(distance("", "abc"), 3);
    }
}
