//! Cue rules: the phrase lists behind classification and promotion, as data.
//!
//! The rules live in `data/cues.json` (compiled in), one object per rule with
//! `id`, `name`, `class`, `lang`, `pattern`, `description`, `examples` and
//! `negative_examples`; a test proves every example matches its rule and no
//! negative example does. English patterns match whole words only (so
//! "preview" is not "review" and "important" is not "port"); Chinese patterns
//! match as written, since Chinese has no spaces between words.
//!
//! Text is scanned sentence by sentence. A cue in a hypothetical, question
//! or one-off sentence ("If I said I prefer tea…", "Do you remember…?",
//! "…for this task", "这次…") is ignored; a
//! preference cue preceded by a negation ("I don't want you to remember…")
//! counts as a boundary.

use palisade_common::negation::negation_before;
use palisade_common::span::Span;
use palisade_common::text::sentences;
use regex::{Regex, RegexSet};
use serde::Deserialize;

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
    /// `en` or `zh`.
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
    regex: Regex,
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
    prefilter: RegexSet,
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
            let source = match r.lang.as_str() {
                // ASCII word boundaries: Unicode `\b` forces the slow
                // engine on non-ASCII text, and CJK next to a Latin word
                // is a boundary either way.
                "en" => format!(r"(?i)(?-u:\b)(?:{})(?:(?-u:\b)|$)", r.pattern),
                "zh" => format!("(?i)(?:{})", r.pattern),
                other => return Err(err(format!("unknown lang {other:?}"))),
            };
            let regex = Regex::new(&source).map_err(|e| err(format!("bad pattern: {e}")))?;
            sources.push(source);
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
                regex,
                exclude: r.exclude.iter().map(|w| w.to_lowercase()).collect(),
                question_only: r.question_only,
            });
        }
        // Sentence anchors make no sense for the whole-text prefilter, so
        // they are dropped; a pattern with a negated class (`[^…]`), whose
        // `^` must stay, is always checked instead (empty prefilter).
        let pre: Vec<String> = sources
            .iter()
            .map(|s| {
                if s.contains("[^") {
                    String::new()
                } else {
                    s.replace('^', "")
                }
            })
            .collect();
        let prefilter = RegexSet::new(&pre).map_err(|e| CueError {
            id: String::new(),
            message: format!("prefilter: {e}"),
        })?;
        Ok(CueSet { cues, prefilter })
    }

    /// The built-in rules.
    ///
    /// ```
    /// use palisade_closure::cues::CueSet;
    /// assert!(CueSet::builtin().cues().len() > 20);
    /// ```
    pub fn builtin() -> CueSet {
        // invariant: the built-in data is validated by the crate's tests.
        #[allow(clippy::expect_used)] // invariant: built-in rule data compiles (tested)
        CueSet::from_json(CUES_JSON).expect("built-in cue rules compile")
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
        self.find_in(cue, &sentence).is_some()
    }

    fn find_in(&self, cue: &Cue, sentence: &str) -> Option<usize> {
        if cue.question_only && !sentence.trim_end().ends_with(['?', '？']) {
            return None;
        }
        for caps in cue.regex.captures_iter(sentence) {
            let Some(m) = caps.get(0) else { continue };
            if let Some(w) = caps.name("w") {
                let w = w.as_str().to_lowercase();
                // English excludes whole words; Chinese excludes what follows.
                let excluded = if cue.lang == "zh" {
                    cue.exclude.iter().any(|x| w.starts_with(x.as_str()))
                } else {
                    cue.exclude.contains(&w)
                };
                if excluded {
                    continue;
                }
            }
            return Some(m.start());
        }
        None
    }

    /// Every cue in `text`, sentence by sentence, with hypothetical sentences'
    /// preference and boundary cues dropped and negated cues reclassified.
    ///
    /// ```
    /// use palisade_closure::cues::{CueClass, CueSet};
    /// let set = CueSet::builtin();
    /// assert!(set.scan("If I said I prefer tea, would you remember it?").iter().all(|h| h.class != CueClass::Preference));
    /// assert!(set.scan("以后都用中文回复。").iter().any(|h| h.class == CueClass::Preference));
    /// ```
    pub fn scan(&self, text: &str) -> Vec<CueHit> {
        let mut hits = Vec::new();
        let present: Vec<usize> = self.prefilter.matches(text).into_iter().collect();
        if present.is_empty() {
            return hits;
        }
        for span in sentences(text).into_iter().take(MAX_SENTENCES) {
            let raw = &text[span.range()];
            let (_, sentence) = prepare(raw);
            let mut local: Vec<CueHit> = Vec::new();
            // A question suppresses stated preferences and boundaries; a true
            // hypothetical ("if", "what if", "suppose") suppresses governance
            // statements too.
            let mut question = false;
            let mut hypothetical = false;
            for &i in &present {
                let cue = &self.cues[i];
                let Some(at) = self.find_in(cue, &sentence) else {
                    continue;
                };
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
                    .rfind([',', '，', ';', '；', ':', '：'])
                    .map_or(0, |i| {
                        i + sentence[i..].chars().next().map_or(1, char::len_utf8)
                    });
                let negated = matches!(cue.class, CueClass::Preference | CueClass::Boundary)
                    && negation_before(&sentence[clause_start..], at - clause_start, 4, 3)
                        .is_some();
                let class = if negated {
                    cue.when_negated.unwrap_or(match cue.class {
                        CueClass::Preference => CueClass::Boundary,
                        c => c,
                    })
                } else {
                    cue.class
                };
                local.push(CueHit {
                    rule: i,
                    class,
                    sentence: span,
                    negated,
                });
            }
            if hypothetical {
                local.retain(|h| {
                    !matches!(
                        h.class,
                        CueClass::Preference | CueClass::Boundary | CueClass::Governance
                    )
                });
            } else if question {
                local.retain(|h| !matches!(h.class, CueClass::Preference | CueClass::Boundary));
            }
            hits.extend(local);
        }
        hits
    }
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
        for (i, cue) in set.cues().iter().enumerate() {
            assert!(!cue.examples.is_empty(), "{} has no examples", cue.id);
            for ex in &cue.examples {
                assert!(
                    set.rule_matches(i, ex),
                    "{}: example {ex:?} does not match",
                    cue.id
                );
            }
            for ex in &cue.negative_examples {
                assert!(
                    !set.rule_matches(i, ex),
                    "{}: negative {ex:?} matches",
                    cue.id
                );
            }
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
