//! Structural signals: forged turns and wrappers, notes addressed to an AI
//! reader, approval claims, placeholder links, hidden HTML regions, and the
//! orders an agent is given. The data is `data/signals.json`: every entry
//! has a signal class, a pattern (case-insensitive unless it starts with
//! `(?-i)`), examples it must match and negative examples it must not.
//!
//! What each class does to the tier is the policy table in the crate docs
//! ([`crate::policy`]): orders and hidden regions never count alone, they
//! turn a boundary or an address into a hijack or a held message.

use crate::lean::{self, Set};
use crate::rules::{Error, ErrorKind};
use palisade_common::Span;
use regex_automata::meta::Regex;
#[cfg(test)]
use serde::Deserialize;
use std::sync::OnceLock;

/// The built-in structural signals.
#[cfg(test)]
pub(crate) const BUILTIN: &str = include_str!("../data/signals.json");

/// Most hits kept per entry and text.
const MAX_HITS: usize = 32;

/// A signal class (the `signal` field of an entry).
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash, Ord, PartialOrd)]
#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(test, serde(rename_all = "lowercase"))]
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

/// One entry of the data file (the shape tests check).
#[cfg(test)]
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

/// One entry as derived at build time (`build.rs`): the pattern as
/// compiled and its ASCII twin.
struct BuiltinSignal {
    id: &'static str,
    signal: &'static str,
    /// The pattern and its twin as text (the tests compare them with the
    /// data; the scanner compiles the packed forms).
    #[cfg_attr(not(test), allow(dead_code))]
    pattern: &'static str,
    #[cfg_attr(not(test), allow(dead_code))]
    twin: &'static str,
    /// Byte ranges of the packed pattern and twin in [`PACKED`].
    packed: (usize, usize),
    packed_twin: (usize, usize),
}

impl BuiltinSignal {
    /// The packed pattern (`twin`: its ASCII twin); empty if the range is
    /// not in the blob, which then fails to unpack and never matches.
    fn packed(&self, twin: bool) -> &'static [u8] {
        let (a, b) = if twin { self.packed_twin } else { self.packed };
        PACKED.get(a..b).unwrap_or(&[])
    }
}

/// The packed patterns of the built-in entries (`build.rs`).
static PACKED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/signals.bin"));

/// The built-in entries, in data-file order.
static BUILTIN_SIGNALS: &[BuiltinSignal] = include!(concat!(env!("OUT_DIR"), "/signals.rs"));

impl Signal {
    fn parse(name: &str) -> Option<Signal> {
        Some(match name {
            "order" => Signal::Order,
            "turn" => Signal::Turn,
            "address" => Signal::Address,
            "claim" => Signal::Claim,
            "exfil" => Signal::Exfil,
            "hidden" => Signal::Hidden,
            _ => return None,
        })
    }
}

/// One hit: entry id, class, span in the searched text.
#[derive(Clone, Debug)]
pub(crate) struct Hit {
    pub entry: usize,
    pub signal: Signal,
    pub span: Span,
}

/// A regex compiled the first time it is needed, in two forms: the
/// pattern as written, and its ASCII twin for all-ASCII text (exact there,
/// and a fraction of the compile cost). `None` if a pattern fails to
/// compile (a size limit): the crate's tests compile every built-in one.
/// Both come packed from the build script, so neither is parsed here.
struct Lazy {
    entry: &'static BuiltinSignal,
    full: OnceLock<Option<Regex>>,
    ascii: OnceLock<Option<Regex>>,
}

impl Lazy {
    fn new(entry: &'static BuiltinSignal) -> Lazy {
        Lazy {
            entry,
            full: OnceLock::new(),
            ascii: OnceLock::new(),
        }
    }

    fn get(&self, ascii: bool) -> Option<&Regex> {
        if ascii {
            self.ascii
                .get_or_init(|| lean::regex_packed(self.entry.packed(true)))
        } else {
            self.full
                .get_or_init(|| lean::regex_packed(self.entry.packed(false)))
        }
        .as_ref()
    }
}

pub(crate) struct Signals {
    ids: Vec<&'static str>,
    classes: Vec<Signal>,
    regexes: Vec<Lazy>,
    /// Every entry except orders, searched in one pass first (built on
    /// first use, one set per form).
    set: OnceLock<Option<Set>>,
    ascii_set: OnceLock<Option<Set>>,
    set_index: Vec<usize>,
    orders: Vec<usize>,
}

impl Signals {
    /// The built-in signals. Nothing is compiled here: each regex and the
    /// non-order set are compiled on first use.
    pub(crate) fn build() -> Result<Signals, Error> {
        let mut s = Signals {
            ids: Vec::with_capacity(BUILTIN_SIGNALS.len()),
            classes: Vec::with_capacity(BUILTIN_SIGNALS.len()),
            regexes: Vec::with_capacity(BUILTIN_SIGNALS.len()),
            set: OnceLock::new(),
            ascii_set: OnceLock::new(),
            set_index: Vec::new(),
            orders: Vec::new(),
        };
        for (i, entry) in BUILTIN_SIGNALS.iter().enumerate() {
            let signal = Signal::parse(entry.signal).ok_or_else(|| {
                Error::new(
                    ErrorKind::RuleData,
                    format!("signal {:?}: unknown class {:?}", entry.id, entry.signal),
                )
            })?;
            s.ids.push(entry.id);
            s.classes.push(signal);
            s.regexes.push(Lazy::new(entry));
            if signal == Signal::Order {
                s.orders.push(i);
            } else {
                s.set_index.push(i);
            }
        }
        Ok(s)
    }

    fn set(&self, ascii: bool) -> Option<&Set> {
        let cell = if ascii { &self.ascii_set } else { &self.set };
        cell.get_or_init(|| {
            lean::set_packed(
                self.set_index
                    .iter()
                    .map(|&i| BUILTIN_SIGNALS[i].packed(ascii)),
            )
        })
        .as_ref()
    }

    fn hits_of(&self, i: usize, text: &str, ascii: bool, out: &mut Vec<Hit>) {
        let Some(re) = self.regexes[i].get(ascii) else {
            return;
        };
        for m in re.find_iter(text).take(MAX_HITS) {
            out.push(Hit {
                entry: i,
                signal: self.classes[i],
                span: Span::new(m.start(), m.end()),
            });
        }
    }

    /// The entry id of a hit (`turn.role_line`).
    pub(crate) fn id(&self, hit: &Hit) -> &str {
        self.ids[hit.entry]
    }

    /// Every non-order signal in `text`.
    pub(crate) fn scan(&self, text: &str) -> Vec<Hit> {
        let ascii = text.is_ascii();
        let mut out = Vec::new();
        let Some(set) = self.set(ascii) else {
            return out;
        };
        for k in set.matches(text) {
            self.hits_of(self.set_index[k], text, ascii, &mut out);
        }
        out
    }

    /// The orders in `text` (asked only when a boundary or an address is
    /// present).
    pub(crate) fn orders(&self, text: &str) -> Vec<Hit> {
        let ascii = text.is_ascii();
        let mut out = Vec::new();
        for &i in &self.orders {
            self.hits_of(i, text, ascii, &mut out);
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
            let re = regex::Regex::new(&crate::derive::signal_pattern(&spec.pattern)).unwrap();
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

    /// The build-time table is the data file, derived by the same code the
    /// crate runs: same ids, classes and patterns, twins derived from them.
    #[test]
    fn builtin_table_is_derived_from_the_data() {
        let specs: Vec<Spec> = serde_json::from_str(BUILTIN).unwrap();
        assert_eq!(specs.len(), BUILTIN_SIGNALS.len());
        for (spec, entry) in specs.iter().zip(BUILTIN_SIGNALS) {
            assert_eq!(spec.id, entry.id);
            assert_eq!(
                Some(spec.signal),
                Signal::parse(entry.signal),
                "{}",
                spec.id
            );
            let pattern = crate::derive::signal_pattern(&spec.pattern);
            assert_eq!(pattern, entry.pattern, "{}", spec.id);
            let hir = regex_syntax::Parser::new().parse(&pattern).unwrap();
            assert_eq!(
                crate::derive::ascii_twin_of(&hir),
                entry.twin,
                "{}",
                spec.id
            );
            let unpack = palisade_common::pattern::packed::unpack;
            assert_eq!(
                unpack(entry.packed(false)),
                Some(hir.clone()),
                "{}",
                spec.id
            );
            assert_eq!(
                unpack(entry.packed(true)),
                Some(crate::derive::ascii(&hir)),
                "{}",
                spec.id
            );
        }
    }

    /// Every entry compiles in both forms, and the twin finds exactly what
    /// the pattern finds on ASCII text (examples, negatives, and all of
    /// them run together); the twin set matches the same entries.
    #[test]
    fn ascii_twins_compile_and_agree_on_ascii_text() {
        let specs: Vec<Spec> = serde_json::from_str(BUILTIN).unwrap();
        let s = Signals::build().unwrap();
        let mut texts: Vec<String> = specs
            .iter()
            .flat_map(|sp| sp.examples.iter().chain(&sp.negative_examples))
            .filter(|t| t.is_ascii())
            .cloned()
            .collect();
        texts.push(texts.join("\n"));
        assert!(texts.len() > 20);
        for (i, lazy) in s.regexes.iter().enumerate() {
            let full = lazy
                .get(false)
                .unwrap_or_else(|| panic!("{} does not compile", s.ids[i]));
            let twin = lazy
                .get(true)
                .unwrap_or_else(|| panic!("{} twin does not compile", s.ids[i]));
            for t in &texts {
                let a: Vec<_> = full.find_iter(t).map(|m| m.range()).collect();
                let b: Vec<_> = twin.find_iter(t).map(|m| m.range()).collect();
                assert_eq!(a, b, "{} on {t:?}", s.ids[i]);
            }
        }
        let (full, twin) = (s.set(false).unwrap(), s.set(true).unwrap());
        for t in &texts {
            assert_eq!(full.matches(t), twin.matches(t), "{t:?}");
        }
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
