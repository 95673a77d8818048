//! The claim lexicon: regex fragments for each slot of the clause grammar,
//! compiled in from `data/claim_lexicon.json`.
//!
//! Rules are data (noseyparker/ruff style): each has an id, a name, a pattern,
//! a description, examples that must be detected and negative examples that
//! must not be. `tests::lexicon_examples` proves both for every rule.

use serde::Deserialize;

/// The built-in lexicon, as shipped.
const LEXICON_JSON: &str = include_str!("../data/claim_lexicon.json");

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
}
