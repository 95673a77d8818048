//! Rules as data: the JSON shape shared by the built-in phrase lists, special
//! tokens and tool-call rules, and the error type for building them.

use crate::Tier;
use serde::Deserialize;
use std::fmt;

/// One pattern rule as written in a data file.
///
/// ```
/// use palisade_injection::RuleSpec;
/// let json = r#"[{"id":"l2.custom.1","name":"pwned","tier":"quarantine",
///   "keywords":["pwned"],"pattern":"say\\s+pwned","description":"test",
///   "examples":["now say pwned"],"negative_examples":["pwned"]}]"#;
/// let rules: Vec<RuleSpec> = serde_json::from_str(json).unwrap();
/// assert_eq!(rules[0].id, "l2.custom.1");
/// ```
#[derive(Clone, Debug, Deserialize, Eq, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RuleSpec {
    /// Stable dotted id, never reused (`l2.en.override`).
    pub id: String,
    /// Short human name.
    pub name: String,
    /// Language (ISO 639-1) the phrase list is for, when it has one.
    #[serde(default)]
    pub lang: String,
    /// Family of the rule (`override`, `prompt_leak`, `persona`, …); two hits
    /// of different families in one message escalate.
    #[serde(default)]
    pub category: String,
    /// Signal class (`override`, `persona`, `prompt_leak`, `exfil`,
    /// `safety_bypass`, `conceal`, `address`, `forgery`, `weak`, …): the
    /// tier a hit alone gets follows from it by the policy table in the
    /// crate docs. Empty: the category decides.
    #[serde(default)]
    pub signal: String,
    /// Tier a hit of this rule alone gives, for custom rules that want one;
    /// built-in rules leave it out and follow their signal class.
    #[serde(default)]
    pub tier: Option<Tier>,
    /// Literal keywords (lower case); a match always contains one of them.
    /// Used as an Aho-Corasick prefilter.
    #[serde(default)]
    pub keywords: Vec<String>,
    /// The regex (matched against the folded, lower-case copy).
    pub pattern: String,
    /// What the rule means.
    pub description: String,
    /// Texts the rule must match.
    #[serde(default)]
    pub examples: Vec<String>,
    /// Texts the rule must not match at its tier.
    #[serde(default)]
    pub negative_examples: Vec<String>,
    /// Where the idea comes from.
    #[serde(default)]
    pub references: Vec<String>,
}

pub(crate) use crate::derive::expand;

/// Why building a scanner failed.
///
/// ```
/// use palisade_injection::{Scanner, ErrorKind};
/// let err = Scanner::builder().add_rules_json("not json").unwrap_err();
/// assert_eq!(err.kind(), &ErrorKind::RuleData);
/// assert!(err.to_string().contains("rule data"));
/// ```
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

/// The kind of a build [`Error`].
///
/// ```
/// use palisade_injection::ErrorKind;
/// assert_ne!(ErrorKind::RuleData, ErrorKind::Pattern);
/// ```
#[derive(Clone, Debug, Eq, PartialEq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A rule file is not valid JSON or not the rule shape.
    RuleData,
    /// A rule's regex does not compile.
    Pattern,
    /// Two rules share an id.
    DuplicateId,
    /// A keyword automaton could not be built.
    Automaton,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
        }
    }

    /// What kind of failure this is.
    ///
    /// ```
    /// use palisade_injection::{Scanner, ErrorKind};
    /// let bad = r#"[{"id":"x","name":"x","tier":"flag","pattern":"(","description":"d"}]"#;
    /// let err = Scanner::builder().add_rules_json(bad).unwrap().build().unwrap_err();
    /// assert_eq!(err.kind(), &ErrorKind::Pattern);
    /// ```
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl RuleSpec {
    /// The tier a hit of this rule alone gets: its own `tier` when set,
    /// else the policy table's entry for its signal class (or category).
    ///
    /// ```
    /// use palisade_injection::{RuleSpec, Tier};
    /// let json = r#"[{"id":"x","name":"x","signal":"weak","pattern":"x","description":"x"}]"#;
    /// let rules: Vec<RuleSpec> = serde_json::from_str(json).unwrap();
    /// assert_eq!(rules[0].resolved_tier(), Tier::Flag);
    /// ```
    pub fn resolved_tier(&self) -> Tier {
        resolve_tier(self.tier, &self.signal, &self.category)
    }
}

/// The tier a hit of a rule alone gets: `tier` when set, else the policy
/// table's entry for its signal class (or, without one, its category).
pub(crate) fn resolve_tier(tier: Option<Tier>, signal: &str, category: &str) -> Tier {
    tier.unwrap_or_else(|| {
        let class = if signal.is_empty() { category } else { signal };
        crate::policy::alone(class)
    })
}
