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
use palisade_common::literals::PairTable;
use palisade_common::Span;
use regex_automata::meta::Regex;
use regex_automata::util::iter::Searcher;
use regex_automata::Input;
#[cfg(test)]
use serde::Deserialize;
use std::borrow::Cow;
#[cfg(test)]
use std::collections::HashMap;
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
    /// Byte ranges of the packed pattern and twin in [`PACKED`] (the
    /// tests compare them with the branches).
    #[cfg_attr(not(test), allow(dead_code))]
    packed: (usize, usize),
    #[cfg_attr(not(test), allow(dead_code))]
    packed_twin: (usize, usize),
    /// The pattern's branches and the twin's ([`crate::derive::branches_of`]).
    branches: &'static [BuiltinBranch],
    twin_branches: &'static [BuiltinBranch],
}

/// One branch of a built-in pattern (`build.rs`): its packed form's byte
/// range in [`PACKED`], and its gate (groups of literals, a text must hold
/// one of each, ASCII case ignored, for the branch to match in it; none:
/// no gate; [`crate::derive::requirements`]).
struct BuiltinBranch {
    packed: (usize, usize),
    /// Read by the run-time derivation ([`Form::derive`]) the test
    /// compares with the tables `build.rs` wrote.
    #[cfg_attr(not(test), allow(dead_code))]
    gate: &'static [&'static [&'static [u8]]],
}

impl BuiltinSignal {
    /// The packed pattern (`twin`: its ASCII twin); empty if the range is
    /// not in the blob, which then fails to unpack and never matches.
    #[cfg(test)]
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

/// One branch of a signal's pattern in one form, its pre-check (a set of
/// one pattern, for the signals searched as a set) and its regex compiled
/// on first use. `None`: it does not compile (a size limit; the crate's
/// tests compile every built-in one).
struct Branch {
    packed: &'static [u8],
    set: OnceLock<Option<Set>>,
    regex: OnceLock<Option<Regex>>,
}

impl Branch {
    fn set(&self) -> Option<&Set> {
        self.set
            .get_or_init(|| lean::set_packed([self.packed]))
            .as_ref()
    }

    fn regex(&self) -> Option<&Regex> {
        self.regex
            .get_or_init(|| lean::regex_packed(self.packed))
            .as_ref()
    }
}

/// Every signal's branches in one form (the patterns as written, or their
/// ASCII twins for all-ASCII text), and which of them a text can match.
///
/// A text wakes the branches whose gate literals it holds (and those
/// without a gate); the others match nowhere in it, so only the woken
/// ones are compiled and searched: a signal's hits are those of the
/// alternation of its woken branches, which are exactly its pattern's.
struct Form {
    branches: Vec<Branch>,
    /// Signal → its branches.
    of_signal: Vec<std::ops::Range<usize>>,
    /// Every gate literal (ASCII case ignored).
    table: PairTable,
    /// Branch → its gate's groups, as literal indices.
    gates: Cow<'static, [Gate]>,
}

/// One branch's gate groups, as literal indices.
type Gate = Cow<'static, [Cow<'static, [u32]>]>;

/// A form's gate tables derived by `build.rs` ([`Form::derive`] at build
/// time): the full form, then the twin.
struct BuiltinForm {
    gates: &'static [Gate],
    table: PairTable,
}

/// The forms' gate tables, full then twin.
static BUILTIN_FORMS: [BuiltinForm; 2] = include!(concat!(env!("OUT_DIR"), "/signal_forms.rs"));

impl Form {
    /// The form (`twin`: the ASCII twins), its gate tables as `build.rs`
    /// derived them.
    fn new(twin: bool) -> Form {
        let built = &BUILTIN_FORMS[usize::from(twin)];
        let mut branches = Vec::new();
        let mut of_signal = Vec::with_capacity(BUILTIN_SIGNALS.len());
        for entry in BUILTIN_SIGNALS {
            let from = branches.len();
            let list = if twin {
                entry.twin_branches
            } else {
                entry.branches
            };
            branches.extend(list.iter().map(|b| Branch {
                packed: PACKED.get(b.packed.0..b.packed.1).unwrap_or(&[]),
                set: OnceLock::new(),
                regex: OnceLock::new(),
            }));
            of_signal.push(from..branches.len());
        }
        Form {
            branches,
            of_signal,
            table: built.table.clone(),
            gates: Cow::Borrowed(built.gates),
        }
    }

    /// The form with its gate tables derived here from the branches'
    /// gates (what `build.rs` writes; the test compares).
    #[cfg(test)]
    fn derive(twin: bool) -> Form {
        let mut f = Form {
            branches: Vec::new(),
            of_signal: Vec::with_capacity(BUILTIN_SIGNALS.len()),
            table: PairTable::new::<[&[u8]; 0], &[u8]>([], true),
            gates: Cow::Owned(Vec::new()),
        };
        let mut lits: Vec<&'static [u8]> = Vec::new();
        let mut lit_at: HashMap<&'static [u8], usize> = HashMap::new();
        for entry in BUILTIN_SIGNALS {
            let from = f.branches.len();
            let branches = if twin {
                entry.twin_branches
            } else {
                entry.branches
            };
            for b in branches {
                f.branches.push(Branch {
                    packed: PACKED.get(b.packed.0..b.packed.1).unwrap_or(&[]),
                    set: OnceLock::new(),
                    regex: OnceLock::new(),
                });
                let gate: Vec<Cow<'static, [u32]>> = b
                    .gate
                    .iter()
                    .map(|group| {
                        group
                            .iter()
                            .map(|&lit| {
                                let k = *lit_at.entry(lit).or_insert_with(|| {
                                    lits.push(lit);
                                    lits.len() - 1
                                });
                                u32::try_from(k).unwrap_or(u32::MAX)
                            })
                            .collect::<Vec<u32>>()
                            .into()
                    })
                    .collect();
                f.gates.to_mut().push(Cow::Owned(gate));
            }
            f.of_signal.push(from..f.branches.len());
        }
        f.table = PairTable::new(&lits, true);
        f
    }

    /// Which branches `text` can match (a superset: woken, not matched).
    fn woken(&self, text: &str) -> Vec<bool> {
        let mut found = vec![false; self.table.len()];
        self.table
            .for_each(text.as_bytes(), |k, _, _| found[k] = true);
        self.gates
            .iter()
            .map(|groups| {
                groups
                    .iter()
                    .all(|g| g.iter().any(|&k| found.get(k as usize) == Some(&true)))
            })
            .collect()
    }

    /// The branches of signal `i` that may match `text`: woken, and their
    /// pre-check matches (one that fails to build counts as a match). The
    /// others match nowhere in `text`.
    fn live(&self, i: usize, text: &str, woken: &[bool]) -> Vec<usize> {
        self.of_signal[i]
            .clone()
            .filter(|&b| woken[b])
            .filter(|&b| self.branches[b].set().is_none_or(|s| s.is_match(text)))
            .collect()
    }

    /// The matches in `text` of a signal whose branches that may match it
    /// are `live` ([`Form::live`]), as its whole pattern's `find_iter`
    /// reports them: at each
    /// step the leftmost match of any branch, the earliest branch among
    /// those starting there (the alternation's preference).
    fn find_each(&self, live: &[usize], text: &str, mut each: impl FnMut(Span) -> bool) {
        let regexes: Vec<&Regex> = live
            .iter()
            .filter_map(|&b| self.branches[b].regex())
            .collect();
        match regexes.as_slice() {
            [] => {}
            [re] => {
                for m in re.find_iter(text) {
                    if !each(Span::new(m.start(), m.end())) {
                        break;
                    }
                }
            }
            _ => {
                let mut it = Searcher::new(Input::new(text));
                while let Some(m) = it.advance(|input| {
                    let mut best: Option<regex_automata::Match> = None;
                    for re in &regexes {
                        if let Some(m) = re.search(input) {
                            if best.is_none_or(|b| m.start() < b.start()) {
                                best = Some(m);
                            }
                        }
                    }
                    Ok(best)
                }) {
                    if !each(Span::new(m.start(), m.end())) {
                        break;
                    }
                }
            }
        }
    }
}

pub(crate) struct Signals {
    ids: Vec<&'static str>,
    classes: Vec<Signal>,
    /// The branches of every signal, one [`Form`] for all-ASCII text and
    /// one for the rest, each built on first use.
    forms: [OnceLock<Form>; 2],
    set_index: Vec<usize>,
    orders: Vec<usize>,
}

impl Signals {
    /// The built-in signals. Nothing is compiled here: each branch's
    /// pre-check and regex are compiled on first use.
    pub(crate) fn build() -> Result<Signals, Error> {
        let mut s = Signals {
            ids: Vec::with_capacity(BUILTIN_SIGNALS.len()),
            classes: Vec::with_capacity(BUILTIN_SIGNALS.len()),
            forms: [OnceLock::new(), OnceLock::new()],
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
            if signal == Signal::Order {
                s.orders.push(i);
            } else {
                s.set_index.push(i);
            }
        }
        Ok(s)
    }

    fn form(&self, ascii: bool) -> &Form {
        self.forms[usize::from(ascii)].get_or_init(|| Form::new(ascii))
    }

    fn hits_of(&self, form: &Form, i: usize, text: &str, woken: &[bool], out: &mut Vec<Hit>) {
        let live = form.live(i, text, woken);
        let mut n = 0;
        form.find_each(&live, text, |span| {
            out.push(Hit {
                entry: i,
                signal: self.classes[i],
                span,
            });
            n += 1;
            n < MAX_HITS
        });
    }

    /// The entry id of a hit (`turn.role_line`).
    pub(crate) fn id(&self, hit: &Hit) -> &str {
        self.ids[hit.entry]
    }

    /// Every non-order signal in `text`.
    pub(crate) fn scan(&self, text: &str) -> Vec<Hit> {
        let form = self.form(text.is_ascii());
        let woken = form.woken(text);
        let mut out = Vec::new();
        for &i in &self.set_index {
            self.hits_of(form, i, text, &woken, &mut out);
        }
        out
    }

    /// The orders in `text` (asked only when a boundary or an address is
    /// present).
    pub(crate) fn orders(&self, text: &str) -> Vec<Hit> {
        let form = self.form(text.is_ascii());
        let woken = form.woken(text);
        let mut out = Vec::new();
        for &i in &self.orders {
            self.hits_of(form, i, text, &woken, &mut out);
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
    /// The gate tables `build.rs` wrote are the ones derived here from
    /// the branches' gates, in both forms.
    #[test]
    fn built_forms_equal_the_derived_ones() {
        for twin in [false, true] {
            let (built, derived) = (Form::new(twin), Form::derive(twin));
            assert!(matches!(built.gates, Cow::Borrowed(_)));
            assert_eq!(built.gates, derived.gates, "twin {twin}");
            assert_eq!(built.table, derived.table, "twin {twin}");
            assert_eq!(built.of_signal, derived.of_signal, "twin {twin}");
            assert_eq!(built.branches.len(), derived.branches.len());
            for (a, b) in built.branches.iter().zip(&derived.branches) {
                assert_eq!(a.packed, b.packed);
            }
        }
    }

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

    /// The whole pattern of entry `i` (`twin`: its ASCII twin), compiled.
    fn whole(i: usize, twin: bool) -> Regex {
        lean::regex_packed(BUILTIN_SIGNALS[i].packed(twin))
            .unwrap_or_else(|| panic!("{} does not compile", BUILTIN_SIGNALS[i].id))
    }

    /// The texts of the data file (examples and negatives, and all of them
    /// run together); `ascii`: the all-ASCII ones only.
    fn texts(ascii: bool) -> Vec<String> {
        let specs: Vec<Spec> = serde_json::from_str(BUILTIN).unwrap();
        let mut texts: Vec<String> = specs
            .iter()
            .flat_map(|sp| sp.examples.iter().chain(&sp.negative_examples))
            .filter(|t| !ascii || t.is_ascii())
            .cloned()
            .collect();
        texts.push(texts.join("\n"));
        texts.push(texts[..texts.len() - 1].join(" "));
        texts
    }

    /// Every entry compiles in both forms, and the twin finds exactly what
    /// the pattern finds on ASCII text (examples, negatives, and all of
    /// them run together).
    #[test]
    fn ascii_twins_compile_and_agree_on_ascii_text() {
        let texts = texts(true);
        assert!(texts.len() > 20);
        for (i, entry) in BUILTIN_SIGNALS.iter().enumerate() {
            let (full, twin) = (whole(i, false), whole(i, true));
            for t in &texts {
                let a: Vec<_> = full.find_iter(t).map(|m| m.range()).collect();
                let b: Vec<_> = twin.find_iter(t).map(|m| m.range()).collect();
                assert_eq!(a, b, "{} on {t:?}", entry.id);
            }
        }
    }

    /// Every branch compiles, and a signal's hits from its woken branches
    /// are its whole pattern's matches, in both forms, on every text of
    /// the data file; a split pattern wakes fewer branches on a text
    /// without its literals.
    #[test]
    fn woken_branches_find_what_the_whole_pattern_finds() {
        let s = Signals::build().unwrap();
        for twin in [false, true] {
            let form = s.form(twin);
            for b in &form.branches {
                assert!(b.regex().is_some() && b.set().is_some());
            }
            for t in texts(twin) {
                let woken = form.woken(&t);
                for (i, entry) in BUILTIN_SIGNALS.iter().enumerate() {
                    let want: Vec<_> = whole(i, twin)
                        .find_iter(&t)
                        .take(MAX_HITS)
                        .map(|m| m.range())
                        .collect();
                    let mut got = Vec::new();
                    s.hits_of(form, i, &t, &woken, &mut got);
                    let got: Vec<_> = got.iter().map(|h| h.span.start..h.span.end).collect();
                    assert_eq!(want, got, "{} ({twin}) on {t:?}", entry.id);
                }
            }
            let split = BUILTIN_SIGNALS
                .iter()
                .filter(|e| if twin { e.twin_branches.len() } else { e.branches.len() } > 1)
                .count();
            assert!(split >= 10, "{split} split ({twin})");
            let woken = form.woken("just a normal sentence");
            assert!(woken.iter().filter(|&&w| w).count() * 4 < woken.len());
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
