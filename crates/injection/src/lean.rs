//! Lean regex builds for rule patterns compiled on the message path.
//!
//! The same engine the `regex` crate wraps (`regex-automata`'s meta
//! regex, same syntax, same leftmost-first matches, same size limits),
//! built without its literal prefilter: every rule here is already gated
//! by keyword and prefix-literal automata before it runs, so the
//! prefilter's literal extraction (a third of a rule's compile cost) buys
//! nothing. Matches are identical; only the search strategy differs.

use regex_automata::meta::{Config, Regex};
use regex_automata::nfa::thompson::{self, pikevm::PikeVM, WhichCaptures};
use regex_automata::util::pool::Pool;
#[cfg(test)]
use regex_automata::PatternSet;
use regex_automata::{hybrid, Input, MatchKind};
use regex_syntax::hir::{Capture, Hir, HirKind, Look, Repetition};
use std::panic::{RefUnwindSafe, UnwindSafe};
use std::sync::OnceLock;

fn config() -> Config {
    Config::new()
        .auto_prefilter(false)
        // No full DFA for a small pattern: determinizing one costs more
        // than a one-shot process searches with it (the lazy DFA serves).
        .dfa(false)
        .nfa_size_limit(Some(10 * (1 << 20)))
        .hybrid_cache_capacity(2 * (1 << 20))
}

/// One pattern, leftmost-first (as `regex::Regex::new`). `None` if it
/// does not compile.
pub(crate) fn regex(pattern: &str) -> Option<Regex> {
    Regex::builder().configure(config()).build(pattern).ok()
}

/// A pattern packed at build time ([`palisade_common::pattern::packed`]):
/// compiled without parsing. `None` if the bytes are not a packed pattern
/// or it does not compile.
pub(crate) fn regex_packed(packed: &[u8]) -> Option<Regex> {
    let hir = palisade_common::pattern::packed::unpack(packed)?;
    Regex::builder()
        .configure(config())
        .build_from_hir(&hir)
        .ok()
}

/// [`set`] of packed patterns, widened: every Unicode word-boundary
/// assertion is dropped, so the set reports every pattern that matches
/// and perhaps a few more ([`Set::candidates`]). A Unicode `\b` makes the
/// lazy DFA give up on non-ASCII text, and a set of a few dozen patterns
/// then falls back to the PikeVM, which costs milliseconds per message;
/// without the assertions the set stays on the lazy DFA. Callers run each
/// candidate's exact regex.
pub(crate) fn set_packed<'p>(packed: impl IntoIterator<Item = &'p [u8]>) -> Option<Set> {
    let hirs = packed
        .into_iter()
        .map(|p| palisade_common::pattern::packed::unpack(p).map(widened))
        .collect::<Option<Vec<_>>>()?;
    Set::from_hirs(&hirs, 16 << 20)
}

/// A set of patterns reporting every one that matches (as
/// `regex::RegexSet::new`). `None` if one does not compile.
#[cfg(test)]
pub(crate) fn set<'p>(patterns: impl IntoIterator<Item = &'p str>) -> Option<Set> {
    let hirs = patterns
        .into_iter()
        .map(|p| regex_syntax::parse(p).ok())
        .collect::<Option<Vec<_>>>()?;
    Set::from_hirs(&hirs, 2 << 20)
}

/// The Unicode word-boundary assertions a widened set drops.
const UNICODE_WORD: [Look; 6] = [
    Look::WordUnicode,
    Look::WordUnicodeNegate,
    Look::WordStartUnicode,
    Look::WordEndUnicode,
    Look::WordStartHalfUnicode,
    Look::WordEndHalfUnicode,
];

/// `h` without its Unicode word-boundary assertions, or `h` itself when
/// it has none (an ASCII twin never has).
fn widened(h: Hir) -> Hir {
    let looks = h.properties().look_set();
    if UNICODE_WORD.iter().any(|&l| looks.contains(l)) {
        widen(&h)
    } else {
        h
    }
}

/// `h` without its Unicode word-boundary assertions: it matches wherever
/// `h` matches (an assertion only ever removes matches).
fn widen(h: &Hir) -> Hir {
    match h.kind() {
        HirKind::Look(l) if UNICODE_WORD.contains(l) => Hir::empty(),
        HirKind::Repetition(r) => Hir::repetition(Repetition {
            sub: Box::new(widen(&r.sub)),
            ..r.clone()
        }),
        HirKind::Capture(c) => Hir::capture(Capture {
            sub: Box::new(widen(&c.sub)),
            ..c.clone()
        }),
        HirKind::Concat(subs) => Hir::concat(subs.iter().map(widen).collect()),
        HirKind::Alternation(subs) => Hir::alternation(subs.iter().map(widen).collect()),
        _ => h.clone(),
    }
}

/// Makes a lazy DFA's cache for a [`Set`]'s pool.
type CacheFn = Box<dyn Fn() -> hybrid::dfa::Cache + Send + Sync + UnwindSafe + RefUnwindSafe>;

/// A compiled set ([`set`]): which patterns match, and nothing else.
///
/// A set only answers which of its patterns match somewhere, so it is
/// built as the forward lazy DFA of an NFA without capture states: no
/// reverse NFA, no capture slots, no literal analysis, which is what a
/// meta regex spends most of its build on. When the lazy DFA gives up
/// (its cache thrashes, or a Unicode word boundary meets non-ASCII text)
/// the PikeVM answers over the same NFA.
pub(crate) struct Set {
    dfa: hybrid::dfa::DFA,
    caches: Pool<hybrid::dfa::Cache, CacheFn>,
    pikevm: OnceLock<Option<PikeVM>>,
    #[cfg_attr(not(test), allow(dead_code))]
    len: usize,
}

impl Set {
    /// The set of `hirs`, its lazy DFA caching up to `cache` bytes; `None`
    /// if the NFA is over the size limit.
    fn from_hirs(hirs: &[Hir], cache: usize) -> Option<Set> {
        let nfa = thompson::Compiler::new()
            .configure(
                thompson::Config::new()
                    .which_captures(WhichCaptures::None)
                    .nfa_size_limit(Some(10 << 20)),
            )
            .build_many_from_hir(hirs)
            .ok()?;
        let dfa = hybrid::dfa::Builder::new()
            .configure(
                hybrid::dfa::Config::new()
                    .match_kind(MatchKind::All)
                    // A Unicode word boundary makes the lazy DFA give up on
                    // non-ASCII text (the PikeVM then answers) instead of
                    // failing to build.
                    .unicode_word_boundary(true)
                    .cache_capacity(cache)
                    .skip_cache_capacity_check(true),
            )
            .build_from_nfa(nfa)
            .ok()?;
        let make = dfa.clone();
        let caches: CacheFn = Box::new(move || make.create_cache());
        Some(Set {
            dfa,
            caches: Pool::new(caches),
            pikevm: OnceLock::new(),
            len: hirs.len(),
        })
    }

    /// Whether any pattern matches somewhere in `text` (the search stops
    /// at the first match).
    pub(crate) fn is_match(&self, text: &str) -> bool {
        let input = Input::new(text).earliest(true);
        let found = {
            let mut cache = self.caches.get();
            self.dfa.try_search_fwd(&mut cache, &input)
        };
        match found {
            Ok(m) => m.is_some(),
            Err(_) => match self
                .pikevm
                .get_or_init(|| PikeVM::new_from_nfa(self.dfa.get_nfa().clone()).ok())
            {
                Some(vm) => vm.is_match(&mut vm.create_cache(), input),
                // No engine: say it may match.
                None => true,
            },
        }
    }

    /// The indices of the patterns that match somewhere in `text`, in
    /// order (of a [`set_packed`] set: a superset of them).
    #[cfg(test)]
    pub(crate) fn matches(&self, text: &str) -> Vec<usize> {
        let mut found = PatternSet::new(self.len);
        let input = Input::new(text);
        let done = {
            let mut cache = self.caches.get();
            self.dfa
                .try_which_overlapping_matches(&mut cache, &input, &mut found)
                .is_ok()
        };
        if !done {
            found.clear();
            let vm = self
                .pikevm
                .get_or_init(|| PikeVM::new_from_nfa(self.dfa.get_nfa().clone()).ok());
            if let Some(vm) = vm {
                vm.which_overlapping_matches(&mut vm.create_cache(), &input, &mut found);
            } else {
                // No engine: report every pattern, so callers run them all.
                return (0..self.len).collect();
            }
        }
        found.iter().map(|p| p.as_usize()).collect()
    }
}

/// A constant pattern asked only whether it matches, in two forms built
/// on first use: as written, and its ASCII twin
/// ([`crate::derive::ascii`]) for all-ASCII text, where it decides the
/// same at a fraction of the compile cost.
///
/// Each form is a [`Set`] of one pattern: whether it matches is all a
/// caller asks, and that needs only the forward NFA's lazy DFA.
/// The context patterns ([`crate::duals`]) parsed and packed by
/// `build.rs`: `(source, pattern range, ASCII twin range)` into
/// [`DUALS_BLOB`].
type PackedDual = (&'static str, (usize, usize), (usize, usize));
static DUALS: &[PackedDual] = include!(concat!(env!("OUT_DIR"), "/duals.rs"));
static DUALS_BLOB: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/duals.bin"));

/// The packed parse of context pattern `source` (`ascii`: its twin).
fn packed_dual(source: &str, ascii: bool) -> Option<Hir> {
    let &(_, full, twin) = DUALS.iter().find(|d| d.0 == source)?;
    let (start, end) = if ascii { twin } else { full };
    palisade_common::pattern::packed::unpack(DUALS_BLOB.get(start..end)?)
}

pub(crate) struct Dual {
    pattern: &'static str,
    full: OnceLock<Option<Set>>,
    ascii: OnceLock<Option<Set>>,
}

impl Dual {
    pub(crate) const fn new(pattern: &'static str) -> Dual {
        Dual {
            pattern,
            full: OnceLock::new(),
            ascii: OnceLock::new(),
        }
    }

    /// The matcher for `text` (`None`: the pattern does not compile; tests
    /// compile every one).
    fn get(&self, ascii: bool) -> Option<&Set> {
        let cell = if ascii { &self.ascii } else { &self.full };
        cell.get_or_init(|| {
            let hir = match packed_dual(self.pattern, ascii) {
                Some(hir) => hir,
                None => {
                    let hir = regex_syntax::Parser::new().parse(self.pattern).ok()?;
                    if ascii {
                        crate::derive::ascii(&hir)
                    } else {
                        hir
                    }
                }
            };
            Set::from_hirs(&[hir], 2 << 20)
        })
        .as_ref()
    }

    /// Whether the pattern matches somewhere in `text`.
    pub(crate) fn is_match(&self, text: &str) -> bool {
        self.get(text.is_ascii())
            .is_some_and(|set| set.is_match(text))
    }

    /// Both forms compile.
    #[cfg(test)]
    pub(crate) fn compiles(&self) -> bool {
        self.get(true).is_some() && self.get(false).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Same matches and sets as the `regex` crate's defaults.
    #[test]
    fn agrees_with_the_regex_crate() {
        let pats = [
            r"(?-u:\b)ignore\s+(?:all\s+)?previous",
            r"a|",
            r"(?i)système",
            r"\w+@\w+",
        ];
        let texts = [
            "Ignore all previous; ignore previous",
            "",
            "SYSTÈME x@y aé",
            "baa",
        ];
        for p in pats {
            let (a, b) = (regex::Regex::new(p).unwrap(), regex(p).unwrap());
            for t in texts {
                let x: Vec<_> = a.find_iter(t).map(|m| m.range()).collect();
                let y: Vec<_> = b.find_iter(t).map(|m| m.range()).collect();
                assert_eq!(x, y, "{p} on {t:?}");
            }
        }
        let (a, b) = (regex::RegexSet::new(pats).unwrap(), set(pats).unwrap());
        for t in texts {
            assert_eq!(
                a.matches(t).iter().collect::<Vec<_>>(),
                b.matches(t),
                "{t:?}"
            );
        }
        assert!(regex("(").is_none() && set(["a", "("]).is_none());
    }

    /// A dual pattern says what the `regex` crate's `is_match` says, in
    /// both forms (Unicode word boundaries on non-ASCII text included:
    /// there the lazy DFA gives up and the PikeVM answers).
    /// The packed context patterns are a fresh parse of each, and its
    /// twin.
    #[test]
    fn packed_duals_equal_a_fresh_parse() {
        assert_eq!(DUALS.len(), crate::duals::ALL.len());
        for source in crate::duals::ALL {
            let hir = regex_syntax::Parser::new().parse(source).unwrap();
            assert_eq!(packed_dual(source, false), Some(hir.clone()), "{source}");
            assert_eq!(
                packed_dual(source, true),
                Some(crate::derive::ascii(&hir)),
                "{source}"
            );
        }
        assert!(packed_dual("not a context pattern", true).is_none());
    }

    #[test]
    fn dual_agrees_with_is_match() {
        static PATS: [Dual; 4] = [
            Dual::new(r"(?-u:\b)(?:ignore|skip)\s+\w{1,12}(?-u:\b)"),
            Dual::new(r"\bcat\b"),
            Dual::new(r"(?:^|[^\w])(?:such as|like)\s*$"),
            Dual::new("атак|攻击"),
        ];
        let srcs = [
            r"(?-u:\b)(?:ignore|skip)\s+\w{1,12}(?-u:\b)",
            r"\bcat\b",
            r"(?:^|[^\w])(?:such as|like)\s*$",
            "атак|攻击",
        ];
        for (d, src) in PATS.iter().zip(srcs) {
            assert!(d.compiles());
            let re = regex::Regex::new(src).unwrap();
            for t in [
                "please ignore prévious",
                "ignore all",
                "a cat",
                "é cat é",
                "écat",
                "text such as ",
                "unlike",
                "атака",
                "",
            ] {
                assert_eq!(d.is_match(t), re.is_match(t), "{src} on {t:?}");
            }
        }
    }

    /// A widened set reports every pattern whose exact regex matches.
    #[test]
    fn a_widened_set_holds_every_match() {
        let pats = [r"\bcat\b", r"(?-u:\b)dog", r"\Bfish", r"[а-я]+\b!", r"x"];
        let packed: Vec<Vec<u8>> = pats
            .iter()
            .map(|p| palisade_common::pattern::packed::pack(&regex_syntax::parse(p).unwrap()))
            .collect();
        let wide = set_packed(packed.iter().map(Vec::as_slice)).unwrap();
        for t in [
            "a cat",
            "concatenate",
            "é cat é",
            "catfish dogs",
            "привет!",
            "x",
            "",
        ] {
            let found = wide.matches(t);
            for (i, p) in pats.iter().enumerate() {
                if regex::Regex::new(p).unwrap().is_match(t) {
                    assert!(found.contains(&i), "{p} on {t:?}: {found:?}");
                }
            }
        }
        // Wider, not everything: "concatenate" holds `cat` but no `x`.
        assert_eq!(wide.matches("concatenate"), vec![0]);
    }
}
