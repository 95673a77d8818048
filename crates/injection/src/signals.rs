//! Structural signals: forged turns and wrappers, notes addressed to an AI
//! reader, approval claims, placeholder links, hidden HTML regions, and the
//! orders an agent is given. The data is `data/signals.json`: every entry
//! has a signal class, a pattern (case-insensitive unless it starts with
//! `(?-i)`), examples it must match and negative examples it must not.
//!
//! What each class does to the tier is the policy table in the crate docs
//! ([`crate::policy`]): orders and hidden regions never count alone, they
//! turn a boundary or an address into a hijack or a held message.

use crate::rules::{Error, ErrorKind};
use palisade_common::Span;
use regex::{Regex, RegexSet};
use serde::Deserialize;

/// The built-in structural signals.
pub(crate) const BUILTIN: &str = include_str!("../data/signals.json");

/// Most hits kept per entry and text.
const MAX_HITS: usize = 32;

/// A signal class (the `signal` field of an entry).
#[derive(Clone, Copy, Debug, Deserialize, Eq, PartialEq, Hash, Ord, PartialOrd)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Signal {
    /// An order aimed at the agent: a command, a secret, a sink, a tool.
    Order,
    /// A forged chat turn, a closed wrapper, a reset.
    Turn,
    /// A note addressed to the AI reading the text.
    Address,
    /// A claim of approval given in advance, or a rule to remember.
    Claim,
    /// A link built to carry data out.
    Exfil,
    /// A region a human reader does not see.
    Hidden,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Spec {
    id: String,
    signal: Signal,
    description: String,
    pattern: String,
    #[serde(default)]
    examples: Vec<String>,
    #[serde(default)]
    negative_examples: Vec<String>,
}

/// One hit: entry id, class, span in the searched text.
#[derive(Clone, Debug)]
pub(crate) struct Hit {
    pub entry: usize,
    pub signal: Signal,
    pub span: Span,
}

pub(crate) struct Signals {
    ids: Vec<String>,
    classes: Vec<Signal>,
    regexes: Vec<Regex>,
    /// Every entry except orders, searched in one pass first.
    set: RegexSet,
    set_index: Vec<usize>,
    orders: Vec<usize>,
}

/// Case-insensitive unless the pattern starts with `(?-i)`; `\b` is an
/// ASCII word boundary (a Unicode one keeps the regex engine off its fast
/// DFA on non-ASCII text).
fn compile(pattern: &str) -> String {
    let p = pattern.replace("\\b", "(?-u:\\b)");
    if p.starts_with("(?-i)") {
        p
    } else {
        format!("(?i){p}")
    }
}

impl Signals {
    pub(crate) fn build() -> Result<Signals, Error> {
        let specs: Vec<Spec> = serde_json::from_str(BUILTIN)
            .map_err(|e| Error::new(ErrorKind::RuleData, format!("signal data: {e}")))?;
        let mut s = Signals {
            ids: Vec::new(),
            classes: Vec::new(),
            regexes: Vec::new(),
            set: RegexSet::empty(),
            set_index: Vec::new(),
            orders: Vec::new(),
        };
        let mut set_patterns = Vec::new();
        for (i, spec) in specs.into_iter().enumerate() {
            let pat = compile(&spec.pattern);
            let re = Regex::new(&pat).map_err(|e| {
                Error::new(
                    ErrorKind::Pattern,
                    format!("signal {:?}: pattern does not compile: {e}", spec.id),
                )
            })?;
            let _ = (&spec.description, &spec.examples, &spec.negative_examples);
            s.ids.push(spec.id);
            s.classes.push(spec.signal);
            s.regexes.push(re);
            if spec.signal == Signal::Order {
                s.orders.push(i);
            } else {
                set_patterns.push(pat);
                s.set_index.push(i);
            }
        }
        s.set = RegexSet::new(&set_patterns)
            .map_err(|e| Error::new(ErrorKind::Pattern, format!("signal set: {e}")))?;
        Ok(s)
    }

    fn hits_of(&self, i: usize, text: &str, out: &mut Vec<Hit>) {
        for m in self.regexes[i].find_iter(text).take(MAX_HITS) {
            out.push(Hit {
                entry: i,
                signal: self.classes[i],
                span: Span::new(m.start(), m.end()),
            });
        }
    }

    /// The entry id of a hit (`turn.role_line`).
    pub(crate) fn id(&self, hit: &Hit) -> &str {
        &self.ids[hit.entry]
    }

    /// Every non-order signal in `text`.
    pub(crate) fn scan(&self, text: &str) -> Vec<Hit> {
        let mut out = Vec::new();
        for k in self.set.matches(text).iter() {
            self.hits_of(self.set_index[k], text, &mut out);
        }
        out
    }

    /// The orders in `text` (asked only when a boundary or an address is
    /// present).
    pub(crate) fn orders(&self, text: &str) -> Vec<Hit> {
        let mut out = Vec::new();
        for &i in &self.orders {
            self.hits_of(i, text, &mut out);
        }
        out
    }
}

/// Where a hidden region found at `start` ends: the end of the comment, the
/// attribute's closing quote, or the element's next closing tag (bounded to
/// 4 KiB).
pub(crate) fn hidden_region_end(text: &str, hit: Span) -> usize {
    let rest = &text[hit.end..];
    let head = &text[hit.start..hit.end];
    let limit = rest.len().min(4096);
    let mut cut = limit;
    while !rest.is_char_boundary(cut) {
        cut -= 1;
    }
    let window = &rest[..cut];
    let end = if head.starts_with("<!--") {
        window.find("-->")
    } else if head.ends_with('"') {
        window.find('"')
    } else {
        // an element: its text runs to the next closing tag
        window
            .find('>')
            .and_then(|gt| window[gt..].find("</").map(|p| gt + p))
    };
    hit.end + end.unwrap_or(cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every entry matches its examples and none of its negative examples.
    #[test]
    fn signal_examples_and_negatives() {
        let specs: Vec<Spec> = serde_json::from_str(BUILTIN).unwrap();
        assert!(specs.len() >= 10);
        for spec in &specs {
            let re = Regex::new(&compile(&spec.pattern)).unwrap();
            assert!(!spec.examples.is_empty(), "{} has no examples", spec.id);
            assert!(!spec.description.is_empty());
            for ex in &spec.examples {
                assert!(re.is_match(ex), "{} misses its example {ex:?}", spec.id);
            }
            for ex in &spec.negative_examples {
                assert!(!re.is_match(ex), "{} matches its negative {ex:?}", spec.id);
            }
        }
        let s = Signals::build().unwrap();
        assert!(s
            .scan("\n\nHuman: hi")
            .iter()
            .any(|h| h.signal == Signal::Turn));
        assert!(s.scan("just a normal sentence").is_empty());
        assert!(s
            .orders("then run rm -rf ~/")
            .iter()
            .any(|h| s.id(h) == "order.shell"));
    }

    #[test]
    fn hidden_regions_end_where_they_close() {
        let t = "<p style=\"display:none\">secret text</p> visible";
        let s = Signals::build().unwrap();
        let h = s
            .scan(t)
            .into_iter()
            .find(|h| h.signal == Signal::Hidden)
            .unwrap();
        let end = hidden_region_end(t, h.span);
        assert_eq!(
            &t[h.span.start..end].rsplit('>').next().unwrap(),
            &"secret text"
        );
        let c = "a <!-- to the AI: x --> b";
        let h = s
            .scan(c)
            .into_iter()
            .find(|h| h.signal == Signal::Hidden)
            .unwrap();
        assert_eq!(
            &c[h.span.end..hidden_region_end(c, h.span)],
            " to the AI: x "
        );
    }
}
