//! ASCII-mode regexes over `&str`: `\w`, `\s`, `\b`, `.` and negated classes
//! are byte classes, so bounded repetitions (`[^\n]{0,512}`) compile to a
//! few states per repetition instead of a UTF-8 automaton each. Match
//! offsets are snapped outwards to char boundaries, so every span is valid
//! in the original text.

use regex::bytes::{Captures, Regex, RegexBuilder};
use std::sync::OnceLock;

/// Per-regex cap on the compiled program and on its lazy-DFA cache.
const SIZE_LIMIT: usize = 4 << 20;
const DFA_LIMIT: usize = 1 << 20;

/// An ASCII-mode pattern, compiled the first time it is used (a process
/// that never reads a tool call never compiles the tool rules). A pattern
/// that fails to compile never matches; the crate's tests compile every
/// built-in one.
pub(crate) struct Re {
    pattern: String,
    re: OnceLock<Option<Regex>>,
}

/// One match (or capture group) in a `&str`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct M<'t> {
    text: &'t str,
    start: usize,
    end: usize,
}

impl<'t> M<'t> {
    fn new(text: &'t str, start: usize, end: usize) -> Self {
        let mut s = start.min(text.len());
        while !text.is_char_boundary(s) {
            s -= 1;
        }
        let mut e = end.clamp(s, text.len());
        while !text.is_char_boundary(e) {
            e += 1;
        }
        M {
            text,
            start: s,
            end: e,
        }
    }

    pub(crate) fn start(&self) -> usize {
        self.start
    }

    pub(crate) fn end(&self) -> usize {
        self.end
    }

    pub(crate) fn as_str(&self) -> &'t str {
        self.text.get(self.start..self.end).unwrap_or("")
    }
}

/// The capture groups of one match.
pub(crate) struct Caps<'t> {
    text: &'t str,
    caps: Captures<'t>,
}

impl<'t> Caps<'t> {
    pub(crate) fn get(&self, i: usize) -> Option<M<'t>> {
        self.caps
            .get(i)
            .map(|m| M::new(self.text, m.start(), m.end()))
    }
}

/// Compile `pattern` with Unicode mode off (`(?i)` is ASCII-only).
fn compile(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern)
        .unicode(false)
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(DFA_LIMIT)
        .build()
}

impl Re {
    /// Compile `pattern` now (an error if it does not compile).
    #[cfg(test)]
    pub(crate) fn new(pattern: &str) -> Result<Re, regex::Error> {
        let re = compile(pattern)?;
        Ok(Re {
            pattern: pattern.to_owned(),
            re: OnceLock::from(Some(re)),
        })
    }

    /// `pattern`, compiled on first use.
    pub(crate) fn lazy(pattern: String) -> Re {
        Re {
            pattern,
            re: OnceLock::new(),
        }
    }

    /// The compiled regex (`None`: the pattern does not compile).
    pub(crate) fn compiled(&self) -> Option<&Regex> {
        self.re.get_or_init(|| compile(&self.pattern).ok()).as_ref()
    }

    pub(crate) fn is_match(&self, text: &str) -> bool {
        self.compiled()
            .is_some_and(|re| re.is_match(text.as_bytes()))
    }

    pub(crate) fn find<'t>(&self, text: &'t str) -> Option<M<'t>> {
        self.compiled()?
            .find(text.as_bytes())
            .map(|m| M::new(text, m.start(), m.end()))
    }

    pub(crate) fn find_iter<'r, 't>(&'r self, text: &'t str) -> impl Iterator<Item = M<'t>> + 'r
    where
        't: 'r,
    {
        self.compiled()
            .into_iter()
            .flat_map(move |re| re.find_iter(text.as_bytes()))
            .map(move |m| M::new(text, m.start(), m.end()))
    }

    pub(crate) fn captures<'t>(&self, text: &'t str) -> Option<Caps<'t>> {
        self.compiled()?
            .captures(text.as_bytes())
            .map(|caps| Caps { text, caps })
    }

    pub(crate) fn captures_iter<'r, 't>(
        &'r self,
        text: &'t str,
    ) -> impl Iterator<Item = Caps<'t>> + 'r
    where
        't: 'r,
    {
        self.compiled()
            .into_iter()
            .flat_map(move |re| re.captures_iter(text.as_bytes()))
            .map(move |caps| Caps { text, caps })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_snap_to_char_boundaries() {
        let re = Re::new(r"a[^\n]{0,2}").unwrap();
        let text = "xaé!";
        let m = re.find(text).unwrap();
        assert!(text.is_char_boundary(m.start()) && text.is_char_boundary(m.end()));
        assert_eq!(m.as_str(), "aé");
        let re = Re::new(r"(?i)\bcurl\b").unwrap();
        assert!(re.is_match("x CURL y"));
        assert!(!re.is_match("xcurly"));
        let re = Re::new(r"'([^'\n]{1,3})'").unwrap();
        let c = re.captures("say 'é' ok").unwrap();
        assert_eq!(c.get(1).unwrap().as_str(), "é");
    }
}
