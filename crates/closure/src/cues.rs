//! Cue rules: the phrase lists behind classification and promotion, as data.
//!
//! The rules live in `data/cues.json` (compiled in), one object per rule with
//! `id`, `name`, `class`, `lang`, `pattern`, `description`, `examples` and
//! `negative_examples`; a test proves every example matches its rule and no
//! negative example does. Languages: `en`, `es`, `pt`, `de`, `fr` (patterns
//! match whole words only, so "preview" is not "review" and "important" is
//! not "port"), `zh` and `ja` (patterns match as written, since these
//! languages have no spaces between words).
//!
//! Text is scanned sentence by sentence. A cue in a hypothetical, question,
//! disavowed or one-off sentence ("If I said I prefer tea…", "Do you
//! remember…?", "That doesn't mean I always want…", "…for this task",
//! "这次…") is ignored — except a `conditional` rule, a standing instruction
//! phrased as a condition on what the user will say later ("If I ever tell
//! you to delete X, don't"). An explicit request preceded by a negation ("I
//! don't want you to remember…") counts as a boundary; a negated statement
//! of taste or fact ("I don't prefer either") is no cue at all. A cue inside a
//! quotation, a title or a `>` quoted line is someone else's words and is
//! ignored ([`foreign_spans`]), unless the quotation is the whole message;
//! so is a cue after reported speech in its sentence ("my boss said that
//! from now on…", "an email telling them that…": a `reported` rule).

use crate::literals::prefix_literals;
use crate::source::{rule_source, script, Script};
use aho_corasick::{AhoCorasick, MatchKind};
use palisade_common::literals::PairTable;
use palisade_common::negation::negation_before_in;
use palisade_common::pattern::{Options, Pattern};
use palisade_common::quotes::quoted_spans;
use palisade_common::quotes_intl::intl_quoted_spans;
use palisade_common::span::Span;
use palisade_common::text::sentences;
use serde::Deserialize;
use std::sync::{Arc, OnceLock};

/// The built-in rule data.
pub const CUES_JSON: &str = include_str!("../data/cues.json");

/// Sentences longer than this are cut for cue matching.
const MAX_SENTENCE_BYTES: usize = 4096;
/// At most this many sentences of one text are examined.
pub(crate) const MAX_SENTENCES: usize = 400;

/// What a cue signals.
#[derive(Clone, Copy, Debug, Eq, Hash, PartialEq, Ord, PartialOrd)]
#[non_exhaustive]
pub enum CueClass {
    /// A user preference to remember.
    Preference,
    /// A limit the user sets on the agent (including "do not remember").
    Boundary,
    /// Marks a sentence as hypothetical or a question: its cues do not count.
    Hypothetical,
    /// Knowledge or governance mechanics.
    Governance,
    /// Diagnostic or outcome work.
    Outcome,
    /// Procedural knowledge (skill material).
    Workflow,
    /// Credentials or sensitive personal data.
    Sensitive,
    /// Runtime or temporary state.
    Temporary,
    /// A change or contradiction.
    Conflict,
    /// In an assistant reply: a step of the work reported as done.
    Progress,
    /// Marks what follows in its sentence as someone else's words
    /// ("my boss said that…", "an email telling them that…").
    Reported,
}

impl CueClass {
    fn parse(s: &str) -> Option<CueClass> {
        Some(match s {
            "preference" => CueClass::Preference,
            "boundary" => CueClass::Boundary,
            "hypothetical" => CueClass::Hypothetical,
            "governance" => CueClass::Governance,
            "outcome" => CueClass::Outcome,
            "workflow" => CueClass::Workflow,
            "sensitive" => CueClass::Sensitive,
            "temporary" => CueClass::Temporary,
            "conflict" => CueClass::Conflict,
            "progress" => CueClass::Progress,
            "reported" => CueClass::Reported,
            _ => return None,
        })
    }
}

#[derive(Deserialize)]
struct RawRule {
    id: String,
    name: String,
    class: String,
    lang: String,
    pattern: String,
    description: String,
    #[serde(default)]
    examples: Vec<String>,
    #[serde(default)]
    negative_examples: Vec<String>,
    #[serde(default)]
    explicit: bool,
    #[serde(default)]
    when_negated: Option<String>,
    #[serde(default)]
    exclude: Vec<String>,
    #[serde(default)]
    question_only: bool,
    #[serde(default)]
    conditional: bool,
    #[serde(default)]
    weak: bool,
}

/// One compiled cue rule.
#[derive(Clone, Debug)]
pub struct Cue {
    /// Stable dotted id, never reused.
    pub id: String,
    /// Short name.
    pub name: String,
    /// What it signals.
    pub class: CueClass,
    /// `en`, `es`, `pt`, `de`, `fr`, `zh` or `ja`.
    pub lang: String,
    /// What it means.
    pub description: String,
    /// Texts it must match.
    pub examples: Vec<String>,
    /// Texts it must not match.
    pub negative_examples: Vec<String>,
    /// An explicit standing instruction (raises confidence, lowers risk).
    pub explicit: bool,
    /// The class a negated match turns into (`None`: the same class).
    pub when_negated: Option<CueClass>,
    /// A standing instruction phrased as a condition on what the user will
    /// say later: hypothetical markers in its sentence do not cancel it.
    pub conditional: bool,
    /// A weak signal (an outcome word such as "fixed"): it needs more tool
    /// work behind it than a strong one.
    pub weak: bool,
    script: Script,
    /// Shared by every clone of the set and compiled on first use for the
    /// built-in rules (custom rules are compiled, and checked, up front).
    regex: Arc<Pattern>,
    exclude: Vec<String>,
    question_only: bool,
}

/// Why the rule data could not be built.
#[derive(Debug, thiserror::Error)]
#[error("cue rule {id:?}: {message}")]
pub struct CueError {
    id: String,
    message: String,
}

/// One cue found in a text.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct CueHit {
    /// Index of the rule in [`CueSet::cues`].
    pub rule: usize,
    /// The effective class after negation.
    pub class: CueClass,
    /// The sentence holding the cue (byte span into the scanned text).
    pub sentence: Span,
    /// Whether a negation came right before the cue.
    pub negated: bool,
}

/// A compiled set of cue rules.
///
/// ```
/// use palisade_closure::cues::{CueClass, CueSet};
/// let set = CueSet::builtin();
/// let hits = set.scan("I don't want you to remember my address.");
/// assert!(hits.iter().any(|h| h.class == CueClass::Boundary));
/// assert!(!hits.iter().any(|h| h.class == CueClass::Preference));
/// assert!(set.scan("Show me a preview.").is_empty());
/// ```
#[derive(Clone, Debug)]
pub struct CueSet {
    cues: Vec<Cue>,
    prefilter: Arc<Prefilter>,
}

impl CueSet {
    /// Build a set from rule JSON (the format of `data/cues.json`).
    ///
    /// ```
    /// use palisade_closure::cues::CueSet;
    /// assert!(CueSet::from_json("[]").is_ok());
    /// assert!(CueSet::from_json(r#"[{"id":"x","name":"x","class":"nope","lang":"en","pattern":"a","description":""}]"#).is_err());
    /// ```
    pub fn from_json(json: &str) -> Result<CueSet, CueError> {
        CueSet::parse(json, Compile::Now, None)
    }

    /// Build a set, compiling each rule's regex now (checking it) or on
    /// first use (built-in data, which the tests compile).
    fn parse(json: &str, compile: Compile, built: Option<Built>) -> Result<CueSet, CueError> {
        let raw: Vec<RawRule> = serde_json::from_str(json).map_err(|e| CueError {
            id: String::new(),
            message: format!("invalid rule json: {e}"),
        })?;
        let mut cues = Vec::with_capacity(raw.len());
        let mut sources = Vec::with_capacity(raw.len());
        for r in raw {
            let err = |message: String| CueError {
                id: r.id.clone(),
                message,
            };
            let class = CueClass::parse(&r.class)
                .ok_or_else(|| err(format!("unknown class {:?}", r.class)))?;
            let when_negated = match r.when_negated.as_deref() {
                None => None,
                Some(s) => Some(
                    CueClass::parse(s).ok_or_else(|| err(format!("unknown when_negated {s:?}")))?,
                ),
            };
            let script =
                script(&r.lang).ok_or_else(|| err(format!("unknown lang {:?}", r.lang)))?;
            let source = rule_source(&r.lang, &r.pattern)
                .ok_or_else(|| err(format!("unknown lang {:?}", r.lang)))?;
            let regex = match compile {
                Compile::Now => Pattern::new(&source, Options::default())
                    .map_err(|e| err(format!("bad pattern: {}", e.message)))?,
                Compile::OnFirstUse => {
                    match built.and_then(|b| Some((b.packed(cues.len())?, b.gates(cues.len())?))) {
                        Some(((hir, twin), gates)) => {
                            Pattern::prepacked_gated(source, Options::default(), [hir, twin], gates)
                        }
                        None => Pattern::lazy(source),
                    }
                }
            };
            sources.push(crate::literals::prefilter_pattern(&r.pattern));
            cues.push(Cue {
                id: r.id,
                name: r.name,
                class,
                lang: r.lang,
                description: r.description,
                examples: r.examples,
                negative_examples: r.negative_examples,
                explicit: r.explicit,
                when_negated,
                conditional: r.conditional,
                weak: r.weak,
                script,
                regex: Arc::new(regex),
                exclude: r.exclude.iter().map(|w| w.to_lowercase()).collect(),
                question_only: r.question_only,
            });
        }
        let prefilter = Prefilter::new(&sources, compile, built).map_err(|e| CueError {
            id: String::new(),
            message: format!("prefilter: {e}"),
        })?;
        Ok(CueSet {
            cues,
            prefilter: Arc::new(prefilter),
        })
    }

    /// The built-in rules.
    ///
    /// ```
    /// use palisade_closure::cues::CueSet;
    /// assert!(CueSet::builtin().cues().len() > 20);
    /// ```
    pub fn builtin() -> CueSet {
        // One set per process: its clones share the compiled regexes.
        static BUILTIN: OnceLock<CueSet> = OnceLock::new();
        BUILTIN
            .get_or_init(|| {
                // invariant: the built-in data is validated by the crate's
                // tests (every rule regex and prefilter pattern is compiled
                // there), so the patterns are compiled on first use, not here.
                #[allow(clippy::expect_used)] // invariant: built-in rule data parses (tested)
                CueSet::parse(CUES_JSON, Compile::OnFirstUse, Some(BUILT))
                    .expect("built-in cue rules parse")
            })
            .clone()
    }

    /// The rules, in data order.
    ///
    /// ```
    /// use palisade_closure::cues::CueSet;
    /// assert!(CueSet::builtin().cues().iter().all(|c| !c.id.is_empty()));
    /// ```
    pub fn cues(&self) -> &[Cue] {
        &self.cues
    }

    /// Whether rule `index` matches a single sentence (used by the rule tests).
    ///
    /// ```
    /// use palisade_closure::cues::CueSet;
    /// let set = CueSet::builtin();
    /// let i = set.cues().iter().position(|c| c.id == "closure.cue.gov.en").unwrap();
    /// assert!(set.rule_matches(i, "Let's add this to the knowledge base."));
    /// ```
    pub fn rule_matches(&self, index: usize, text: &str) -> bool {
        let Some(cue) = self.cues.get(index) else {
            return false;
        };
        let (_, sentence) = prepare(text);
        self.find_in(cue, &sentence, |_| true).is_some()
    }

    /// The first match of `cue` in `sentence` whose start `allowed` accepts.
    fn find_in(&self, cue: &Cue, sentence: &str, allowed: impl Fn(usize) -> bool) -> Option<usize> {
        if cue.question_only && !sentence.trim_end().ends_with(['?', '？']) {
            return None;
        }
        for caps in cue.regex.captures_iter(sentence) {
            let Some(m) = caps.name("c").or_else(|| caps.get(0)) else {
                continue;
            };
            if let Some(w) = caps.name("w") {
                let w = w.as_str().to_lowercase();
                // Spaced languages exclude whole words; Chinese and Japanese
                // exclude what follows.
                let excluded = if cue.script == Script::Unspaced {
                    cue.exclude.iter().any(|x| w.starts_with(x.as_str()))
                } else {
                    cue.exclude.contains(&w)
                };
                if excluded {
                    continue;
                }
            }
            if !allowed(m.start()) {
                continue;
            }
            return Some(m.start());
        }
        None
    }

    /// Every cue in `text`, sentence by sentence, with hypothetical sentences'
    /// preference and boundary cues dropped, negated cues reclassified and
    /// cues inside someone else's words ([`foreign_spans`]) ignored.
    ///
    /// ```
    /// use palisade_closure::cues::{CueClass, CueSet};
    /// let set = CueSet::builtin();
    /// assert!(set.scan("If I said I prefer tea, would you remember it?").iter().all(|h| h.class != CueClass::Preference));
    /// assert!(set.scan("以后都用中文回复。").iter().any(|h| h.class == CueClass::Preference));
    /// assert!(set.scan("Translate: \"from now on, always use tabs\"").is_empty());
    /// assert!(set.scan("Si algún día te pido que borre las fotos, no me hagas caso.").iter().any(|h| h.class == CueClass::Boundary));
    /// ```
    pub fn scan(&self, text: &str) -> Vec<CueHit> {
        self.scan_rules(text, &self.prefilter.present(text))
    }

    /// [`CueSet::scan`] reading only the rules `present` (in rule order).
    fn scan_rules(&self, text: &str, present: &[usize]) -> Vec<CueHit> {
        let mut hits = Vec::new();
        if present.is_empty() {
            return hits;
        }
        let foreign = foreign_spans(text);
        let inside = |pos: usize| {
            let i = foreign.partition_point(|s| s.end <= pos);
            foreign.get(i).is_some_and(|s| s.start <= pos)
        };
        for span in sentences(text).into_iter().take(MAX_SENTENCES) {
            let raw = &text[span.range()];
            let (offset, sentence) = prepare(raw);
            let trimmed = raw.get(offset..).unwrap_or("");
            let own = |at: usize| !inside(span.start + offset + raw_offset(trimmed, at));
            let mut local: Vec<(usize, CueHit)> = Vec::new();
            // Where reported speech starts: cues after it are not the user's.
            let mut reported: Option<usize> = None;
            // A question suppresses stated preferences and boundaries; a true
            // hypothetical ("if", "what if", "suppose"), a disavowal or a
            // one-off scope suppresses governance statements too.
            let mut question = false;
            let mut hypothetical = false;
            for &i in present {
                let cue = &self.cues[i];
                let Some(at) = self.find_in(cue, &sentence, own) else {
                    continue;
                };
                if cue.class == CueClass::Reported {
                    reported = Some(reported.map_or(at, |r| r.min(at)));
                    continue;
                }
                if cue.class == CueClass::Hypothetical {
                    if cue.question_only {
                        question = true;
                    } else {
                        hypothetical = true;
                    }
                    continue;
                }
                // A negation counts only inside the cue's own clause, so "not
                // tabs, in all files" does not negate "in all files".
                let clause_start = sentence[..at]
                    .rfind([',', '，', ';', '；', ':', '：', '、'])
                    .map_or(0, |i| {
                        i + sentence[i..].chars().next().map_or(1, char::len_utf8)
                    });
                let negated = !cue.conditional
                    && matches!(cue.class, CueClass::Preference | CueClass::Boundary)
                    && negation_before_in(&sentence[clause_start..], at - clause_start, 4, 3)
                        .is_some();
                // A negated request ("don't remember…", "no recuerdes…") is
                // a boundary; a negated statement of taste or fact ("I don't
                // prefer either", "not that I prefer tabs") is no candidate.
                if negated
                    && cue.class == CueClass::Preference
                    && !cue.explicit
                    && cue.when_negated.is_none()
                {
                    continue;
                }
                let class = if negated {
                    cue.when_negated.unwrap_or(match cue.class {
                        CueClass::Preference => CueClass::Boundary,
                        c => c,
                    })
                } else {
                    cue.class
                };
                local.push((
                    at,
                    CueHit {
                        rule: i,
                        class,
                        sentence: span,
                        negated,
                    },
                ));
            }
            let cues = &self.cues;
            let personal = |c: CueClass| {
                matches!(
                    c,
                    CueClass::Preference | CueClass::Boundary | CueClass::Governance
                )
            };
            if let Some(r) = reported {
                local.retain(|(at, h)| *at < r || cues[h.rule].conditional || !personal(h.class));
            }
            let mut local: Vec<CueHit> = local.into_iter().map(|(_, h)| h).collect();
            if hypothetical {
                local.retain(|h| {
                    cues[h.rule].conditional
                        || !matches!(
                            h.class,
                            CueClass::Preference | CueClass::Boundary | CueClass::Governance
                        )
                });
            } else if question {
                local.retain(|h| {
                    cues[h.rule].conditional
                        || !matches!(h.class, CueClass::Preference | CueClass::Boundary)
                });
            }
            hits.extend(local);
        }
        hits
    }
}

/// When a set's rule regexes are compiled.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
enum Compile {
    /// Now, so a bad custom pattern is an error of [`CueSet::from_json`].
    Now,
    /// On first use: built-in data, which the tests compile.
    OnFirstUse,
}

/// Which rules can match a text: the literal prefixes of every rule's
/// widened pattern ([`prefilter_pattern`]), found in one Aho-Corasick pass.
///
/// A rule is *present* when its widened pattern matches the text (what a
/// `RegexSet` of the widened patterns would say). A match of the widened
/// pattern starts with one of its prefix literals, so a rule none of whose
/// literals occurs is not present; a rule whose literals do occur is
/// present unless its own regex cannot match in the text's prepared
/// sentences anyway (it then finds nothing, as if it were skipped). Two
/// cases are settled by the widened pattern itself, compiled on demand: a
/// rule with an apostrophe in a text with `’` (a prepared sentence folds
/// `’` to `'`, the widened pattern reads the raw text) and a rule with an
/// anchor the widening keeps (`\A`, `\z`, `(?m)`).
#[derive(Debug)]
struct Prefilter {
    /// The prefix literals of every rule (ASCII lower-cased, matched ASCII
    /// case-insensitively), for short texts: nothing to build.
    table: PairTable,
    /// The same literals as an automaton, built the first time a text of
    /// [`AUTOMATON_MIN`] bytes or more is searched (`None`: it failed to
    /// build, and every rule is then present in such a text).
    ac: OnceLock<Option<AhoCorasick>>,
    literals: Vec<String>,
    /// The rules that own each literal of `ac`.
    owners: Vec<Vec<usize>>,
    /// Rules without a finite prefix set: present in every text.
    always: Vec<usize>,
    /// Per rule, the widened pattern and when it must confirm presence.
    confirm: Vec<(Confirm, Pattern)>,
}

/// The literal prefixes of the built-in rules, one entry per rule in data
/// order, extracted by the build script with [`prefix_literals`].
type BuiltPrefixes = &'static [Option<&'static [&'static str]>];

/// What the build script derived from the built-in rules, in data order:
/// each rule's literal prefixes, and its regex ([`rule_source`]) parsed and
/// packed with its ASCII twin ([`palisade_common::pattern::packed`]), so a
/// process compiles a rule without parsing it.
#[derive(Clone, Copy)]
struct Built {
    prefixes: BuiltPrefixes,
    /// Per rule, the byte ranges of its packed regex and twin in `blob`,
    /// then those of their literal groups (`palisade_common::pattern::gate`:
    /// the regex's from the 5th offset to the 6th, the twin's to the 7th).
    packed: &'static [[u32; 7]],
    blob: &'static [u8],
}

impl Built {
    /// Rule `i`'s packed regex and twin.
    fn packed(&self, i: usize) -> Option<(&'static [u8], &'static [u8])> {
        let [a, b, c, d, ..] = *self.packed.get(i)?;
        let blob = self.blob;
        Some((
            blob.get(a as usize..b as usize)?,
            blob.get(c as usize..d as usize)?,
        ))
    }

    /// Rule `i`'s literal groups, of the regex and of the twin.
    fn gates(&self, i: usize) -> Option<[&'static [u8]; 2]> {
        let [.., e, f, g] = *self.packed.get(i)?;
        let blob = self.blob;
        Some([
            blob.get(e as usize..f as usize)?,
            blob.get(f as usize..g as usize)?,
        ])
    }
}

include!(concat!(env!("OUT_DIR"), "/cue_prefixes.rs"));

/// The built-in rules' derived data.
const BUILT: Built = Built {
    prefixes: BUILT_PREFIXES,
    packed: BUILT_PACKED,
    blob: include_bytes!(concat!(env!("OUT_DIR"), "/cues.bin")),
};

/// When a rule's widened pattern must confirm what the literals say.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
enum Confirm {
    Never,
    /// In a text with a curly apostrophe.
    CurlyApostrophe,
    Always,
}

/// Texts at least this long are searched with the literals' automaton;
/// shorter ones with the table, which costs nothing to build.
const AUTOMATON_MIN: usize = 16 * 1024;

/// Non-ASCII characters whose simple case fold is an ASCII letter (`ſ` is
/// `s`, the Kelvin sign is `k`): the ASCII case-insensitive literal search
/// would not see them, so a text holding one makes every rule present.
const FOLDS_TO_ASCII: [char; 2] = ['\u{17F}', '\u{212A}'];

impl Prefilter {
    /// The prefilter of the widened patterns `sources`, one per rule.
    fn new(
        sources: &[String],
        compile: Compile,
        built: Option<Built>,
    ) -> Result<Prefilter, String> {
        let mut literals: Vec<String> = Vec::new();
        let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        let mut owners: Vec<Vec<usize>> = Vec::new();
        let mut always = Vec::new();
        let mut confirm = Vec::with_capacity(sources.len());
        for (i, src) in sources.iter().enumerate() {
            let widened = format!("(?i)(?:{src})");
            let check = if ["\\A", "\\z", "(?m", "\\<", "\\>"]
                .iter()
                .any(|a| src.contains(a))
            {
                Confirm::Always
            } else if src.contains('\'') || src.contains("x27") || src.contains("u{27}") {
                Confirm::CurlyApostrophe
            } else {
                Confirm::Never
            };
            let regex = match compile {
                Compile::Now => {
                    Pattern::new(&widened, Options::default()).map_err(|e| e.message)?
                }
                Compile::OnFirstUse => Pattern::lazy(widened),
            };
            confirm.push((check, regex));
            let prefixes = match built.and_then(|b| b.prefixes.get(i)) {
                Some(lits) => lits.map(|l| l.iter().map(|s| (*s).to_owned()).collect()),
                None => prefix_literals(src),
            };
            match prefixes {
                Some(lits) => {
                    for lit in lits {
                        let at = *index.entry(lit.clone()).or_insert_with(|| {
                            literals.push(lit);
                            owners.push(Vec::new());
                            owners.len() - 1
                        });
                        if owners[at].last() != Some(&i) {
                            owners[at].push(i);
                        }
                    }
                }
                None => always.push(i),
            }
        }
        Ok(Prefilter {
            table: PairTable::new(&literals, true),
            ac: OnceLock::new(),
            literals,
            owners,
            always,
            confirm,
        })
    }

    /// Per rule, whether its literals say it may be in `text`, found with
    /// the automaton or with the table (the two mark the same rules).
    fn marked(&self, text: &str, automaton: bool) -> Vec<bool> {
        let mut hit = vec![false; self.confirm.len()];
        if text.contains(FOLDS_TO_ASCII) {
            hit.iter_mut().for_each(|h| *h = true);
            return hit;
        }
        for &i in &self.always {
            hit[i] = true;
        }
        let mut mark = |lit: usize| {
            for &i in &self.owners[lit] {
                hit[i] = true;
            }
        };
        if !automaton {
            self.table.for_each(text.as_bytes(), |lit, _, _| mark(lit));
        } else if let Some(ac) = self.automaton() {
            for m in ac.find_overlapping_iter(text) {
                mark(m.pattern().as_usize());
            }
        } else {
            hit.iter_mut().for_each(|h| *h = true);
        }
        hit
    }

    /// The automaton over the literals, built on first use (`None`: it
    /// could not be built; never for the built-in data, which the tests
    /// search).
    fn automaton(&self) -> Option<&AhoCorasick> {
        self.ac
            .get_or_init(|| {
                AhoCorasick::builder()
                    .ascii_case_insensitive(true)
                    .match_kind(MatchKind::Standard)
                    .build(&self.literals)
                    .ok()
            })
            .as_ref()
    }

    /// The rules present in `text`, in rule order.
    fn present(&self, text: &str) -> Vec<usize> {
        let n = self.confirm.len();
        let hit = self.marked(text, text.len() >= AUTOMATON_MIN);
        let curly = text.contains('’');
        (0..n)
            .filter(|&i| {
                hit[i]
                    && match self.confirm[i].0 {
                        Confirm::Never => true,
                        Confirm::CurlyApostrophe if !curly => true,
                        _ => self.confirm[i].1.is_match(text),
                    }
            })
            .collect()
    }
}

/// Spans of `text` that hold someone else's words: quotations (straight,
/// curly, single, corner brackets, backticks, guillemets, low-high quotes)
/// and lines quoted with `>`. Sorted, non-overlapping. When nothing but
/// punctuation lies outside them, the quotation is the user's own message
/// (pasted in quotes) and nothing is foreign.
///
/// ```
/// use palisade_closure::cues::foreign_spans;
/// let t = "Summarize this:\n> from now on always cc me\nThanks";
/// let f = foreign_spans(t);
/// assert_eq!(f.len(), 1);
/// assert!(t[f[0].range()].contains("always cc me"));
/// assert!(foreign_spans("\"Always use tabs.\"").is_empty());
/// ```
pub fn foreign_spans(text: &str) -> Vec<Span> {
    let mut spans: Vec<Span> = quoted_spans(text).iter().map(|q| q.outer).collect();
    spans.extend(intl_quoted_spans(text).iter().map(|q| q.outer));
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if line.trim_start().starts_with('>') {
            spans.push(Span::new(at, at + line.len()));
        }
        at += line.len();
    }
    spans.sort_unstable_by_key(|s| (s.start, std::cmp::Reverse(s.end)));
    let mut merged: Vec<Span> = Vec::with_capacity(spans.len());
    for s in spans {
        match merged.last_mut() {
            Some(last) if s.start < last.end => last.end = last.end.max(s.end),
            _ => merged.push(s),
        }
    }
    let mut outside = 0;
    let mut prev = 0;
    for s in &merged {
        outside += count_words(text.get(prev..s.start).unwrap_or(""));
        prev = s.end;
    }
    outside += count_words(text.get(prev..).unwrap_or(""));
    if outside == 0 {
        return Vec::new();
    }
    merged
}

fn count_words(s: &str) -> usize {
    s.chars().filter(|c| c.is_alphanumeric()).take(1).count()
}

/// The byte offset in `trimmed` of byte `at` of its prepared form (where
/// each `’` became a one-byte `'`).
fn raw_offset(trimmed: &str, at: usize) -> usize {
    let mut prepared = 0;
    for (i, c) in trimmed.char_indices() {
        if prepared >= at {
            return i;
        }
        prepared += if c == '’' { 1 } else { c.len_utf8() };
    }
    trimmed.len()
}

/// Trim list markers and quote marks from a sentence and fold curly
/// apostrophes, so `^` anchors see the sentence's first word.
fn prepare(raw: &str) -> (usize, String) {
    let mut cut = raw;
    if cut.len() > MAX_SENTENCE_BYTES {
        let mut end = MAX_SENTENCE_BYTES;
        while !cut.is_char_boundary(end) {
            end -= 1;
        }
        cut = &cut[..end];
    }
    let trimmed = cut.trim_start_matches(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '-' | '*' | '+' | '>' | '#' | '"' | '“' | '「' | '(' | '（' | '`' | '•'
            )
    });
    let trimmed = trimmed.trim_start_matches(|c: char| c.is_ascii_digit());
    let trimmed = trimmed.trim_start_matches(['.', ')', ' ']);
    (raw.len() - trimmed.len(), trimmed.replace('’', "'"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::literals::{has_case_variants, prefilter_pattern};

    /// The build script's prefixes are what the run-time extraction gives
    /// for every built-in rule, in data order.
    #[test]
    fn built_prefixes_equal_the_run_time_extraction() {
        let rules: Vec<serde_json::Value> = serde_json::from_str(CUES_JSON).unwrap();
        assert_eq!(rules.len(), BUILT_PREFIXES.len());
        for (rule, built) in rules.iter().zip(BUILT_PREFIXES) {
            let p = rule["pattern"].as_str().unwrap();
            let fresh = prefix_literals(&prefilter_pattern(p));
            let built: Option<Vec<String>> =
                built.map(|l| l.iter().map(|s| (*s).to_owned()).collect());
            assert_eq!(built, fresh, "{}", rule["id"]);
        }
    }

    /// The literal table (short texts) and the automaton (long ones) mark
    /// the same rules, on every rule's examples and on all of them at once.
    #[test]
    fn prefilter_table_and_automaton_agree() {
        let set = CueSet::builtin();
        let mut texts: Vec<String> = set
            .cues
            .iter()
            .flat_map(|c| c.examples.iter().chain(&c.negative_examples).cloned())
            .collect();
        texts.push(texts.join(" "));
        texts.push(texts.last().map(|t| t.to_uppercase()).unwrap_or_default());
        assert!(set.prefilter.automaton().is_some());
        for t in &texts {
            assert_eq!(
                set.prefilter.marked(t, false),
                set.prefilter.marked(t, true),
                "{t}"
            );
        }
    }

    /// The regexes the build script packed are the ones a fresh parse of
    /// each rule's source gives, and so are their twins.
    #[test]
    fn built_patterns_equal_a_fresh_parse() {
        use palisade_common::pattern::{ascii_twin, packed};
        let rules: Vec<serde_json::Value> = serde_json::from_str(CUES_JSON).unwrap();
        assert_eq!(rules.len(), BUILT_PACKED.len());
        for (i, rule) in rules.iter().enumerate() {
            let source = rule_source(
                rule["lang"].as_str().unwrap(),
                rule["pattern"].as_str().unwrap(),
            )
            .unwrap();
            let fresh = regex_syntax::parse(&source).unwrap();
            let (hir, twin) = BUILT.packed(i).unwrap();
            assert_eq!(packed::unpack(hir).as_ref(), Some(&fresh), "{}", rule["id"]);
            // And so are the literal groups of each.
            let [gate, twin_gate] = BUILT.gates(i).unwrap();
            let groups = |h: &regex_syntax::hir::Hir| {
                palisade_common::pattern::gate::encode(
                    &palisade_common::pattern::gate::requirements(h),
                )
            };
            assert_eq!(gate, groups(&fresh), "{}", rule["id"]);
            assert_eq!(twin_gate, groups(&ascii_twin(&fresh)), "{}", rule["id"]);
            assert_eq!(
                packed::unpack(twin),
                Some(ascii_twin(&fresh)),
                "{}",
                rule["id"]
            );
        }
        assert!(CueSet::builtin().cues.iter().all(|c| c.regex.is_packed()));
    }

    /// A Unicode word boundary (`\b`, `\B`) makes the regex crate's DFA
    /// give up on non-ASCII input and fall back to the PikeVM, so one such
    /// pattern made Chinese turns 30-90x slower. Built-in cues use the ASCII
    /// form `(?-u:\b)` or none.
    #[test]
    fn builtin_patterns_use_no_unicode_word_boundary() {
        let rules: Vec<serde_json::Value> =
            serde_json::from_str(CUES_JSON).expect("built-in cues parse");
        for r in &rules {
            let p = r["pattern"].as_str().unwrap_or("");
            let rest = p.replace("(?-u:\\b)", "").replace("(?-u:\\B)", "");
            assert!(
                !rest.contains("\\b") && !rest.contains("\\B"),
                "{}: Unicode word boundary in {p}",
                r["id"]
            );
        }
    }

    #[test]
    fn every_example_matches_and_no_negative_does() {
        let set = CueSet::builtin();
        let mut failures = Vec::new();
        for (i, cue) in set.cues().iter().enumerate() {
            if cue.examples.is_empty() {
                failures.push(format!("{} has no examples", cue.id));
            }
            for ex in &cue.examples {
                if !set.rule_matches(i, ex) {
                    failures.push(format!("{}: example {ex:?} does not match", cue.id));
                }
            }
            for ex in &cue.negative_examples {
                if set.rule_matches(i, ex) {
                    failures.push(format!("{}: negative {ex:?} matches", cue.id));
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    /// The prefilter must never hide a rule: each example matches the
    /// rule's widened prefilter pattern too.
    #[test]
    fn prefilter_is_a_superset_of_every_rule() {
        let set = CueSet::builtin();
        for (i, cue) in set.cues().iter().enumerate() {
            for ex in &cue.examples {
                let (_, prepared) = prepare(ex);
                assert!(
                    set.prefilter.present(&prepared).contains(&i),
                    "{}: prefilter misses {ex:?}",
                    cue.id
                );
            }
        }
        assert_eq!(
            prefilter_pattern(r"^a\w+[^。]{0,3}\p{Han}(?-u:\b)$"),
            "a(?s:.)+(?s:.){0,3}(?s:.)(?-u:)"
        );
    }

    /// The rules a `RegexSet` of the widened patterns reports: the
    /// prefilter [`Prefilter`] replaced, the reference for its tests.
    fn reference_present(text: &str) -> Vec<usize> {
        static REFERENCE: std::sync::OnceLock<regex::RegexSet> = std::sync::OnceLock::new();
        let reference = REFERENCE.get_or_init(|| {
            let rules: Vec<serde_json::Value> =
                serde_json::from_str(CUES_JSON).expect("built-in cues parse");
            regex::RegexSet::new(rules.iter().map(|r| {
                format!(
                    "(?i)(?:{})",
                    prefilter_pattern(r["pattern"].as_str().unwrap_or(""))
                )
            }))
            .expect("reference set compiles")
        });
        reference.matches(text).into_iter().collect()
    }

    /// Texts for the prefilter tests: every example and negative example,
    /// the same with curly apostrophes, and the characters that fold to
    /// ASCII letters.
    fn prefilter_texts(set: &CueSet) -> Vec<String> {
        let mut texts = Vec::new();
        for cue in set.cues() {
            for ex in cue.examples.iter().chain(&cue.negative_examples) {
                texts.push(ex.clone());
                texts.push(ex.replace('\'', "’"));
                texts.push(ex.replace('s', "\u{17F}").replace('k', "\u{212A}"));
                texts.push(ex.to_uppercase());
            }
        }
        texts
    }

    #[test]
    fn prefilter_scan_equals_the_regex_set() {
        let set = CueSet::builtin();
        for text in prefilter_texts(&set) {
            let present = set.prefilter.present(&text);
            let reference = reference_present(&text);
            // A superset of the reference…
            assert!(
                reference.iter().all(|i| present.contains(i)),
                "{text:?}: {present:?} misses some of {reference:?}"
            );
            // …that finds the same cues.
            assert_eq!(
                set.scan(&text),
                set.scan_rules(&text, &reference),
                "{text:?}"
            );
        }
    }

    #[test]
    fn prefilter_literals_are_finite_for_most_rules() {
        let set = CueSet::builtin();
        // The built-in rules nearly all have literal prefixes (a rule without
        // them is read in every text).
        assert!(
            set.prefilter.always.len() * 5 < set.cues().len(),
            "{:?}",
            set.prefilter.always
        );
        // A mundane sentence leaves most rules out. Not as many as it could:
        // short prefixes cut before a cased non-ASCII letter ("pr" of
        // "préfère") or a pronoun ("me") let about 40 of 106 through, and each
        // one present is compiled on first use (the Stop hook's start-up cost).
        let present = set.prefilter.present("Show me a preview.");
        assert!(present.len() < set.cues().len() / 2, "{present:?}");
        assert_eq!(
            prefix_literals("(?:Remember|note)\\s+that"),
            Some(vec!["remember".into(), "note".into()])
        );
        assert_eq!(prefix_literals("préfère"), Some(vec!["pr".into()]));
        assert_eq!(
            prefix_literals("记住|记下"),
            Some(vec!["记住".into(), "记下".into()])
        );
        assert_eq!(prefix_literals("(?s:.)foo"), None);
        assert!(has_case_variants('é') && has_case_variants('k') && !has_case_variants('记'));
    }

    #[test]
    fn only_two_non_ascii_characters_fold_to_ascii_letters() {
        let mut found = Vec::new();
        for c in 'a'..='z' {
            let mut class =
                regex_syntax::hir::ClassUnicode::new([regex_syntax::hir::ClassUnicodeRange::new(
                    c, c,
                )]);
            class.case_fold_simple();
            for r in class.ranges() {
                for x in r.start()..=r.end() {
                    if !x.is_ascii() {
                        found.push(x);
                    }
                }
            }
        }
        found.sort_unstable();
        let mut expected = FOLDS_TO_ASCII.to_vec();
        expected.sort_unstable();
        assert_eq!(found, expected);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// Random mixes of rule examples, apostrophes and folding
        /// characters find the same cues as the regex set's prefilter.
        #[test]
        fn prefilter_equals_regex_set_on_mixes(
            picks in proptest::collection::vec((0usize..4000, 0usize..6), 1..6),
        ) {
            let set = CueSet::builtin();
            let texts = prefilter_texts(&set);
            let seps = [" ", ". ", "\n", "’", "，", "? "];
            let text: String = picks
                .iter()
                .map(|&(i, sep)| format!("{}{}", texts[i % texts.len()], seps[sep]))
                .collect();
            let reference = reference_present(&text);
            proptest::prop_assert_eq!(set.scan(&text), set.scan_rules(&text, &reference));
        }
    }

    #[test]
    fn custom_rules_with_negated_classes_still_match() {
        let set = CueSet::from_json(
            r#"[{"id":"t.1","name":"t","class":"preference","lang":"en","pattern":"^use [^ ]+ always","description":"d"}]"#,
        )
        .unwrap();
        assert_eq!(set.scan("Hello there. Use tabs always.").len(), 1);
        assert!(set.scan("Hello there. We use tabs always.").is_empty());
    }

    #[test]
    fn ids_are_unique() {
        let set = CueSet::builtin();
        let mut ids: Vec<&str> = set.cues().iter().map(|c| c.id.as_str()).collect();
        ids.sort_unstable();
        let n = ids.len();
        ids.dedup();
        assert_eq!(ids.len(), n);
    }
}
