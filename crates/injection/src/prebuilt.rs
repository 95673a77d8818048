//! Automata built ahead of time: the build script determinizes the
//! built-in phrase rules and structural signals into dense DFAs
//! (`build.rs`, [`Dfas`]) and serializes them into one blob, which is
//! read here in place (`from_bytes` checks every table, copies nothing).
//! A pattern then costs no compile at run time: a process that meets a
//! rule's keyword for the first time only deserializes its DFAs.
//!
//! The DFAs match exactly what the meta regex of the same pattern
//! matches (leftmost-first, the same spans: the meta regex itself
//! searches with a forward and a reverse DFA). A DFA cannot decide a
//! Unicode word boundary on non-ASCII text, so a pattern with one gets
//! the exact DFAs of its ASCII twin, used on all-ASCII text only. A
//! pattern without exact DFAs (over the build script's size limit, or a
//! Unicode word boundary on non-ASCII text) gets the forward DFA of the
//! pattern loosened ([`crate::derive::loosened`]: no Unicode word
//! boundary, no upper bound on a repetition), which rules a text out but
//! not in: where it matches, the compiled regex decides as before.

use regex_automata::dfa::{dense, regex::Regex, Automaton};
use regex_automata::util::iter::Searcher;
use regex_automata::util::wire::AlignAs;
use regex_automata::Input;
use std::sync::OnceLock;

/// Every prebuilt DFA, aligned as `from_bytes` needs (each starts at an
/// 8-byte offset in the blob).
static BLOB: &AlignAs<[u8], u64> = &AlignAs {
    _align: [],
    bytes: *include_bytes!(concat!(env!("OUT_DIR"), "/dfas.bin")),
};

/// A DFA's byte range in the blob.
type Range = (usize, usize);

/// A pattern's prebuilt DFAs, as the build script emits them (byte ranges
/// of forward and reverse DFAs in the blob).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Dfas {
    /// The exact regex of the pattern (it has no Unicode word boundary).
    pub exact: Option<(Range, Range)>,
    /// The exact regex of its ASCII twin (all-ASCII text only).
    pub twin: Option<(Range, Range)>,
    /// The forward DFA of the pattern loosened (a superset of its matches).
    pub wide: Option<Range>,
}

impl Dfas {
    /// No prebuilt DFA (a custom rule).
    pub(crate) const NONE: Dfas = Dfas {
        exact: None,
        twin: None,
        wide: None,
    };
}

type Dfa = dense::DFA<&'static [u32]>;

fn dfa(range: Range) -> Option<Dfa> {
    let bytes = BLOB.bytes.get(range.0..range.1)?;
    dense::DFA::from_bytes(bytes).ok().map(|(d, _)| d)
}

/// What the prebuilt DFAs say about a text.
pub(crate) enum Verdict {
    /// Every match, in order (at most the number asked for).
    Matches(Vec<(usize, usize)>),
    /// No DFA decides this text: ask the compiled regex.
    Unknown,
}

/// A pattern's prebuilt DFAs, each deserialized (and checked) the first
/// time it is needed: the reverse DFA of a regex only once its forward
/// DFA has found a match, so a rule that never matches loads half.
pub(crate) struct Prebuilt {
    dfas: Dfas,
    exact: [OnceLock<Option<Dfa>>; 2],
    twin: [OnceLock<Option<Dfa>>; 2],
    wide: OnceLock<Option<Dfa>>,
}

/// The DFA at `range`, loaded into `cell` on first use.
fn load(cell: &OnceLock<Option<Dfa>>, range: Range) -> Option<&Dfa> {
    cell.get_or_init(|| dfa(range)).as_ref()
}

impl Prebuilt {
    pub(crate) fn new(dfas: Dfas) -> Prebuilt {
        Prebuilt {
            dfas,
            exact: [OnceLock::new(), OnceLock::new()],
            twin: [OnceLock::new(), OnceLock::new()],
            wide: OnceLock::new(),
        }
    }

    /// Whether the build script made any DFA of the pattern.
    #[cfg(test)]
    pub(crate) fn has_any(&self) -> bool {
        self.dfas.exact.is_some() || self.dfas.twin.is_some() || self.dfas.wide.is_some()
    }

    /// The matches of the pattern in `text` (`ascii`: `text` is all
    /// ASCII), at most `max` of them, empty ones included, as the meta
    /// regex's `find_iter` would give them; [`Verdict::Unknown`] when no
    /// prebuilt DFA decides.
    pub(crate) fn find(&self, text: &str, ascii: bool, max: usize) -> Verdict {
        let pair = if let Some(r) = self.dfas.exact {
            Some((&self.exact, r))
        } else if let (true, Some(r)) = (ascii, self.dfas.twin) {
            Some((&self.twin, r))
        } else {
            None
        };
        if let Some((cells, (fwd, rev))) = pair {
            if let Some(f) = load(&cells[0], fwd) {
                match f.try_search_fwd(&Input::new(text).earliest(true)) {
                    Ok(None) => return Verdict::Matches(Vec::new()),
                    Ok(Some(_)) => {
                        if let Some(r) = load(&cells[1], rev) {
                            let re = Regex::builder().build_from_dfas(f.clone(), r.clone());
                            if let Some(found) = find_all(&re, text, max) {
                                return Verdict::Matches(found);
                            }
                        }
                    }
                    Err(_) => {}
                }
            }
        }
        if let Some(r) = self.dfas.wide {
            if let Some(wide) = load(&self.wide, r) {
                if let Ok(None) = wide.try_search_fwd(&Input::new(text).earliest(true)) {
                    return Verdict::Matches(Vec::new());
                }
            }
        }
        Verdict::Unknown
    }
}

/// Every match of `re` in `text` up to `max`, iterated as the meta
/// regex iterates (`None`: the DFA gave up).
fn find_all(re: &Regex<Dfa>, text: &str, max: usize) -> Option<Vec<(usize, usize)>> {
    let mut it = Searcher::new(Input::new(text));
    let mut out = Vec::new();
    while out.len() < max {
        match it.try_advance(|input| re.try_search(input)) {
            Ok(Some(m)) => out.push((m.start(), m.end())),
            Ok(None) => break,
            Err(_) => return None,
        }
    }
    Some(out)
}
