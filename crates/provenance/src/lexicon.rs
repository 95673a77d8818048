//! The claim lexicon: regex fragments for each slot of the clause grammar,
//! compiled in from `data/claim_lexicon.json` (predicates, phrases, frames,
//! labels), `data/claim_grammar.json` (subjects and adverbs) and
//! `data/claim_exemptions.json` (the not-claim rules kept as data).
//!
//! Rules are data (noseyparker/ruff style): each has an id, a name, a pattern,
//! a description, examples that must be detected and negative examples that
//! must not be. `tests::lexicon_examples` proves both for every rule.

use serde::Deserialize;

/// The built-in lexicon, as shipped.
const LEXICON_JSON: &str = include_str!("../data/claim_lexicon.json");

/// The built-in subject and adverb fragments.
const GRAMMAR_JSON: &str = include_str!("../data/claim_grammar.json");

/// The built-in not-claim rules kept as data.
const EXEMPTIONS_JSON: &str = include_str!("../data/claim_exemptions.json");

/// Which slot of the clause grammar a rule fills.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Slot {
    /// Predicate after an English user subject.
    EnPred,
    /// Predicate after an English user subject that may follow a negation.
    EnPredNeg,
    /// Preference predicate (decisions+preferences scope only).
    EnPref,
    /// Predicate after "we" / "the user and I".
    EnWe,
    /// Participle before "by the user".
    EnPassive,
    /// A whole phrase naming the user's decision.
    EnPhrase,
    /// Predicate after a Chinese user subject.
    ZhPred,
    /// Preference predicate in Chinese (decisions+preferences scope only).
    ZhPref,
    /// Predicate after 我们.
    ZhWe,
    /// An English verb after a Chinese user subject (用户 approved 了).
    MxPred,
    /// A Chinese agentless frame (按用户的要求, 得到老板首肯).
    ZhPhrase,
    /// A label at the start of a clause ("Owner: use X", 用户：以后…).
    Label,
    /// A whole subject + decision-verb clause in another language
    /// (Japanese, Korean, Arabic, Spanish …): one pattern per language,
    /// led by its subject words, with the verb in a past or perfect form.
    OtherLang,
}

/// Which slot of a clause form a grammar fragment fills.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum FragmentSlot {
    /// Who the user is, in English.
    EnSubject,
    /// Words between an English subject and its verb.
    EnAdverb,
    /// The user, in Chinese.
    ZhSubject,
    /// Words between a Chinese subject and its verb.
    ZhAdverb,
    /// An English subject in a Chinese clause.
    CsSubject,
}

/// One subject or adverb fragment of the grammar.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct Fragment {
    #[allow(dead_code)] // documentation field, read by tests and humans
    pub id: String,
    pub slot: FragmentSlot,
    pub pattern: String,
    #[serde(default)]
    #[allow(dead_code)] // read by the grammar example tests
    pub examples: Vec<String>,
    #[serde(default)]
    #[allow(dead_code)] // read by the grammar example tests
    pub negative_examples: Vec<String>,
}

/// Where a data exemption applies (see `data/claim_exemptions.json`).
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ExemptionKind {
    /// Lower-cased English clause text before the subject.
    EnBeforeSubject,
    /// Clause text before a Chinese or code-switched subject.
    ZhBeforeSubject,
    /// The end of the sentence.
    SentenceTail,
    /// A bare we / 我们 subject counts only when the clause matches.
    WeNeedsUser,
    /// Text right after a phrase claim.
    AfterPhrase,
    /// The value of a key/value line whose key holds a decision word.
    KvScalarValue,
    /// Text right after a subject that follows an opening quote.
    QuotedField,
    /// An English predicate and the text after it, lower-cased: a report
    /// of a fact, not a decision ("confirmed the bug reproduces").
    AfterPredicate,
    /// Clause text before an other-language clause (a condition or a
    /// question word: إذا, هل, אם, si, wenn …).
    OtherBeforeClause,
    /// The start of the next sentence on the same line: it withdraws or
    /// denies what the sentence before said ("…; that approval was never
    /// given").
    RetractedNext,
    MentionLead,
}

/// One not-claim rule kept as data.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct Exemption {
    #[allow(dead_code)] // documentation field, read by tests and humans
    pub id: String,
    pub kind: ExemptionKind,
    pub pattern: String,
    #[serde(default)]
    #[allow(dead_code)] // read by the exemption example tests
    pub examples: Vec<String>,
    #[serde(default)]
    #[allow(dead_code)] // read by the exemption example tests
    pub negative_examples: Vec<String>,
}

/// What kind of decision a claim states.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimClass {
    /// Approved, agreed, decided, chose, confirmed.
    Approval,
    /// Rejected, vetoed, said no.
    Rejection,
    /// Told, asked, wants, requested.
    Instruction,
    /// Prefers, likes (only in the decisions+preferences scope).
    Preference,
}

/// One lexicon rule.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct Rule {
    pub id: String,
    #[allow(dead_code)] // documentation field, read by tests and humans
    pub name: String,
    pub slot: Slot,
    pub class: ClaimClass,
    pub pattern: String,
    #[allow(dead_code)] // documentation field
    pub description: String,
    #[serde(default)]
    #[allow(dead_code)] // read by the lexicon example tests
    pub examples: Vec<String>,
    #[serde(default)]
    #[allow(dead_code)] // read by the lexicon example tests
    pub negative_examples: Vec<String>,
}

#[derive(Deserialize)]
struct File {
    rules: Vec<Rule>,
}

/// The built-in rules. The JSON is compiled in and checked by tests, so a
/// parse failure cannot happen in a released build; it still degrades to an
/// empty lexicon rather than panicking.
pub(crate) fn builtin_rules() -> Vec<Rule> {
    serde_json::from_str::<File>(LEXICON_JSON)
        .map(|f| f.rules)
        .unwrap_or_default()
}

#[derive(Deserialize)]
struct GrammarFile {
    fragments: Vec<Fragment>,
}

#[derive(Deserialize)]
struct ExemptionFile {
    rules: Vec<Exemption>,
}

/// The built-in grammar fragments (compiled in and checked by tests, so a
/// parse failure degrades to an empty list rather than panicking).
pub(crate) fn builtin_fragments() -> Vec<Fragment> {
    serde_json::from_str::<GrammarFile>(GRAMMAR_JSON)
        .map(|f| f.fragments)
        .unwrap_or_default()
}

/// The built-in data exemptions (as [`builtin_fragments`]).
pub(crate) fn builtin_exemptions() -> Vec<Exemption> {
    serde_json::from_str::<ExemptionFile>(EXEMPTIONS_JSON)
        .map(|f| f.rules)
        .unwrap_or_default()
}

/// The alternation of every fragment of one slot, or `None`.
pub(crate) fn fragment_alternation(fragments: &[Fragment], slot: FragmentSlot) -> Option<String> {
    let parts: Vec<String> = fragments
        .iter()
        .filter(|f| f.slot == slot)
        .map(|f| format!("(?:{})", f.pattern))
        .collect();
    (!parts.is_empty()).then(|| parts.join("|"))
}

/// The alternation of every exemption pattern of one kind, or `None`.
pub(crate) fn exemption_alternation(rules: &[Exemption], kind: ExemptionKind) -> Option<String> {
    let parts: Vec<String> = rules
        .iter()
        .filter(|r| r.kind == kind)
        .map(|r| format!("(?:{})", r.pattern))
        .collect();
    (!parts.is_empty()).then(|| parts.join("|"))
}

/// The alternation of every rule pattern of one slot and class, or `None`.
pub(crate) fn alternation(rules: &[Rule], slot: Slot, class: Option<ClaimClass>) -> Option<String> {
    let parts: Vec<String> = rules
        .iter()
        .filter(|r| r.slot == slot && class.is_none_or(|c| c == r.class))
        .map(|r| format!("(?:{})", r.pattern))
        .collect();
    (!parts.is_empty()).then(|| parts.join("|"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexicon_parses_and_ids_are_unique() {
        let rules = builtin_rules();
        assert!(rules.len() >= 10, "lexicon failed to parse");
        let mut ids: Vec<&str> = rules.iter().map(|r| r.id.as_str()).collect();
        ids.sort_unstable();
        let before = ids.len();
        ids.dedup();
        assert_eq!(before, ids.len(), "duplicate rule id");
        for r in &rules {
            assert!(
                regex::Regex::new(&r.pattern).is_ok(),
                "{} does not compile",
                r.id
            );
        }
    }

    #[test]
    fn grammar_and_exemptions_parse_and_ids_are_unique() {
        let fragments = builtin_fragments();
        let exemptions = builtin_exemptions();
        let rules = builtin_rules();
        assert!(fragments.len() >= 8, "grammar failed to parse");
        assert!(exemptions.len() >= 8, "exemptions failed to parse");
        let mut ids: Vec<&str> = fragments
            .iter()
            .map(|f| f.id.as_str())
            .chain(exemptions.iter().map(|e| e.id.as_str()))
            .chain(rules.iter().map(|r| r.id.as_str()))
            .collect();
        ids.sort_unstable();
        let before = ids.len();
        ids.dedup();
        assert_eq!(before, ids.len(), "duplicate rule id");
        for (id, pattern) in fragments
            .iter()
            .map(|f| (&f.id, &f.pattern))
            .chain(exemptions.iter().map(|e| (&e.id, &e.pattern)))
        {
            assert!(regex::Regex::new(pattern).is_ok(), "{id} does not compile");
        }
        for f in &fragments {
            assert!(!f.examples.is_empty(), "{}: no examples", f.id);
        }
        for e in &exemptions {
            assert!(!e.examples.is_empty(), "{}: no examples", e.id);
            assert!(!e.negative_examples.is_empty(), "{}: no near misses", e.id);
        }
    }
}
