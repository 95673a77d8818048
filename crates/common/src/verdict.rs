//! The verdict convention every Palisade guard speaks.
//!
//! * **Mode** — `observe` records and changes nothing; `act` enforces. A guard
//!   may have its own richer vocabulary (provenance: `observe | ask | block`),
//!   expressed by implementing [`GuardMode`]. [`resolve_mode`] applies the
//!   precedence: the guard's own key, then the shared key
//!   (`HERMES_GUARD_MODE`), then the guard's default. A spelling a source does
//!   not recognise falls through to the next source; it never changes a
//!   posture on its own. Reading the environment is the caller's job.
//! * **Rule key** — `<guard>:<reason>`, stable and machine-readable.
//! * **Finding** — rule key, byte span in the original input, masked preview,
//!   severity.
//! * **Evidence row** — the JSON line a host appends for every decision.

use crate::span::Span;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;

/// The shared two-valued posture: record only, or enforce.
///
/// ```
/// use palisade_common::Mode;
/// assert_eq!(Mode::parse(" ACT "), Some(Mode::Act));
/// assert_eq!(Mode::parse("enforce"), None);
/// ```
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Record what would happen; change nothing.
    Observe,
    /// Enforce the verdict.
    Act,
}

impl Mode {
    /// Parse the shared key's vocabulary (`observe`, `act`), ignoring case and
    /// surrounding whitespace. Anything else is `None`.
    ///
    /// ```
    /// use palisade_common::Mode;
    /// assert_eq!(Mode::parse("observe"), Some(Mode::Observe));
    /// assert_eq!(Mode::parse(""), None);
    /// ```
    pub fn parse(s: &str) -> Option<Mode> {
        match s.trim().to_ascii_lowercase().as_str() {
            "observe" => Some(Mode::Observe),
            "act" => Some(Mode::Act),
            _ => None,
        }
    }

    /// The canonical spelling.
    ///
    /// ```
    /// assert_eq!(palisade_common::Mode::Act.as_str(), "act");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Observe => "observe",
            Mode::Act => "act",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A guard's own mode vocabulary.
///
/// `parse_own` reads the guard's own key exactly as the seed publishes it;
/// `from_shared` maps the shared key's `observe`/`act` onto the guard's modes;
/// `parse_shared` reads the shared key (by default: [`Mode::parse`], then
/// `from_shared`).
///
/// ```
/// use palisade_common::verdict::{GuardMode, Mode};
///
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// enum Gate { Observe, Ask, Block }
///
/// impl GuardMode for Gate {
///     fn parse_own(s: &str) -> Option<Self> {
///         match s.trim().to_ascii_lowercase().as_str() {
///             "observe" => Some(Gate::Observe),
///             "ask" => Some(Gate::Ask),
///             "block" => Some(Gate::Block),
///             _ => None,
///         }
///     }
///     fn from_shared(mode: Mode) -> Self {
///         match mode { Mode::Observe => Gate::Observe, Mode::Act => Gate::Block }
///     }
///     fn parse_shared(s: &str) -> Option<Self> {
///         // "ask" keeps its meaning whichever key names it.
///         if s.trim().eq_ignore_ascii_case("ask") { return Some(Gate::Ask); }
///         Mode::parse(s).map(Self::from_shared)
///     }
/// }
///
/// assert_eq!(Gate::parse_shared("act"), Some(Gate::Block));
/// assert_eq!(Gate::parse_own("act"), None);
/// ```
pub trait GuardMode: Copy {
    /// Parse the guard's own key.
    fn parse_own(s: &str) -> Option<Self>;
    /// Map the shared posture onto this guard's modes.
    fn from_shared(mode: Mode) -> Self;
    /// Parse the shared key; override when the guard accepts more words there.
    fn parse_shared(s: &str) -> Option<Self> {
        Mode::parse(s).map(Self::from_shared)
    }
}

impl GuardMode for Mode {
    fn parse_own(s: &str) -> Option<Self> {
        Mode::parse(s)
    }
    fn from_shared(mode: Mode) -> Self {
        mode
    }
}

/// Where a resolved mode came from.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModeSource {
    /// The guard's own key.
    Own,
    /// The shared key (`HERMES_GUARD_MODE`).
    Shared,
    /// Neither key was set to a recognised value.
    Default,
}

/// A resolved mode, where it came from, and the values that were ignored.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct Resolved<M> {
    /// The mode in force.
    pub mode: M,
    /// Which source decided it.
    pub source: ModeSource,
    /// Set but unrecognised values, as `(source, value)`, so a host can say why
    /// a setting had no effect.
    pub ignored: Vec<(ModeSource, String)>,
}

/// Resolve a guard's mode: own key → shared key → default.
///
/// An unset key (`None`) or an unrecognised spelling falls through.
///
/// ```
/// use palisade_common::verdict::{resolve_mode, ModeSource};
/// use palisade_common::Mode;
///
/// let r = resolve_mode(Some("bogus"), Some("act"), Mode::Observe);
/// assert_eq!(r.mode, Mode::Act);
/// assert_eq!(r.source, ModeSource::Shared);
/// assert_eq!(r.ignored, vec![(ModeSource::Own, "bogus".to_string())]);
///
/// let r = resolve_mode(None, Some(""), Mode::Observe);
/// assert_eq!((r.mode, r.source), (Mode::Observe, ModeSource::Default));
/// ```
pub fn resolve_mode<M: GuardMode>(
    own: Option<&str>,
    shared: Option<&str>,
    default: M,
) -> Resolved<M> {
    let mut ignored = Vec::new();
    if let Some(value) = own {
        match M::parse_own(value) {
            Some(mode) => {
                return Resolved {
                    mode,
                    source: ModeSource::Own,
                    ignored,
                }
            }
            None => ignored.push((ModeSource::Own, value.to_owned())),
        }
    }
    if let Some(value) = shared {
        match M::parse_shared(value) {
            Some(mode) => {
                return Resolved {
                    mode,
                    source: ModeSource::Shared,
                    ignored,
                }
            }
            None => ignored.push((ModeSource::Shared, value.to_owned())),
        }
    }
    Resolved {
        mode: default,
        source: ModeSource::Default,
        ignored,
    }
}

/// A stable, machine-readable rule key `<guard>:<reason>`.
///
/// Serializes as the string `guard:reason`.
///
/// ```
/// use palisade_common::RuleKey;
/// let key = RuleKey::new("egress-guard", "EG-NET-001");
/// assert_eq!(key.to_string(), "egress-guard:EG-NET-001");
/// assert_eq!(RuleKey::parse("provenance-gate:no_quote"), Some(RuleKey::new("provenance-gate", "no_quote")));
/// assert_eq!(RuleKey::parse("no-colon"), None);
/// ```
#[derive(Clone, Debug, Eq, PartialEq, Hash, Ord, PartialOrd)]
pub struct RuleKey {
    guard: Cow<'static, str>,
    reason: Cow<'static, str>,
}

impl RuleKey {
    /// A rule key from its two parts.
    ///
    /// ```
    /// let k = palisade_common::RuleKey::new("hermes-guard", "L1");
    /// assert_eq!(k.guard(), "hermes-guard");
    /// ```
    pub fn new(guard: impl Into<Cow<'static, str>>, reason: impl Into<Cow<'static, str>>) -> Self {
        RuleKey {
            guard: guard.into(),
            reason: reason.into(),
        }
    }

    /// Parse `guard:reason`; both parts non-empty, split at the first colon.
    ///
    /// ```
    /// use palisade_common::RuleKey;
    /// assert_eq!(RuleKey::parse("a:b:c").unwrap().reason(), "b:c");
    /// assert!(RuleKey::parse(":x").is_none());
    /// ```
    pub fn parse(s: &str) -> Option<RuleKey> {
        let (guard, reason) = s.split_once(':')?;
        if guard.is_empty() || reason.is_empty() {
            return None;
        }
        Some(RuleKey::new(guard.to_owned(), reason.to_owned()))
    }

    /// The guard part.
    ///
    /// ```
    /// assert_eq!(palisade_common::RuleKey::new("g", "r").guard(), "g");
    /// ```
    pub fn guard(&self) -> &str {
        &self.guard
    }

    /// The reason part.
    ///
    /// ```
    /// assert_eq!(palisade_common::RuleKey::new("g", "r").reason(), "r");
    /// ```
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl fmt::Display for RuleKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.guard, self.reason)
    }
}

impl Serialize for RuleKey {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for RuleKey {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        RuleKey::parse(&s).ok_or_else(|| {
            serde::de::Error::custom(format!("rule key {s:?} is not of the form guard:reason"))
        })
    }
}

/// How serious a finding is. Ordered from least to most severe.
///
/// ```
/// use palisade_common::Severity;
/// assert!(Severity::Critical > Severity::High);
/// assert_eq!(Severity::parse("medium"), Some(Severity::Medium));
/// ```
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash, Ord, PartialOrd, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Worth recording, nothing to do.
    Info,
    /// Minor.
    Low,
    /// Should be looked at.
    Medium,
    /// Should be stopped.
    High,
    /// Must be stopped.
    Critical,
}

impl Severity {
    /// Parse a severity name (case-insensitive).
    ///
    /// ```
    /// assert_eq!(palisade_common::Severity::parse("HIGH"), Some(palisade_common::Severity::High));
    /// ```
    pub fn parse(s: &str) -> Option<Severity> {
        match s.trim().to_ascii_lowercase().as_str() {
            "info" => Some(Severity::Info),
            "low" => Some(Severity::Low),
            "medium" => Some(Severity::Medium),
            "high" => Some(Severity::High),
            "critical" => Some(Severity::Critical),
            _ => None,
        }
    }

    /// The canonical lower-case name.
    ///
    /// ```
    /// assert_eq!(palisade_common::Severity::Low.as_str(), "low");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Low => "low",
            Severity::Medium => "medium",
            Severity::High => "high",
            Severity::Critical => "critical",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One thing a guard found: which rule, where, a masked preview, how serious.
///
/// The preview is produced with [`crate::mask`]; it never holds a raw secret
/// or a raw small count.
///
/// ```
/// use palisade_common::{Finding, RuleKey, Severity, Span};
/// let f = Finding::new(RuleKey::new("egress-guard", "EG-SECRET-001"), Span::new(4, 24), "AKIA…****", Severity::High);
/// let json = serde_json::to_value(&f).unwrap();
/// assert_eq!(json["rule"], "egress-guard:EG-SECRET-001");
/// assert_eq!(json["span"], serde_json::json!([4, 24]));
/// ```
#[derive(Clone, Debug, Eq, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// The rule that fired.
    pub rule: RuleKey,
    /// Byte span in the original input.
    pub span: Span,
    /// Masked preview of what was found.
    pub preview: String,
    /// How serious it is.
    pub severity: Severity,
}

impl Finding {
    /// A finding from its parts.
    ///
    /// ```
    /// use palisade_common::{Finding, RuleKey, Severity, Span};
    /// let f = Finding::new(RuleKey::new("g", "r"), Span::new(0, 1), "x", Severity::Low);
    /// assert_eq!(f.severity, Severity::Low);
    /// ```
    pub fn new(rule: RuleKey, span: Span, preview: impl Into<String>, severity: Severity) -> Self {
        Finding {
            rule,
            span,
            preview: preview.into(),
            severity,
        }
    }
}

/// One finding as a host reports it, whatever guard made it: the one shape
/// `palisade scan` prints and the Hermes plugin records, so the same message
/// gives the same finding offline and live.
///
/// `guard` is the short guard name (`egress`, `injection`, `provenance`,
/// `closure`), `kind` the class of what was found (`secret`, `upload`,
/// `small_cell`, `microdata`, `injection`, `dangerous_tool_call`,
/// `unbacked_claim`, `unretained_preference`, …). The span is in the
/// inspected text when the guard gives one. The preview is masked: never a
/// raw secret or a raw small count.
///
/// ```
/// use palisade_common::{GuardFinding, RuleKey, Severity, Span};
/// let f = GuardFinding {
///     guard: "egress".into(),
///     kind: "secret".into(),
///     rule: RuleKey::new("egress-guard", "EG-SECRET-001"),
///     severity: Severity::Critical,
///     span: Some(Span::new(11, 31)),
///     preview: "AKIA…****".into(),
/// };
/// let json = serde_json::to_value(&f).unwrap();
/// assert_eq!(json["rule"], "egress-guard:EG-SECRET-001");
/// assert_eq!(json["span"], serde_json::json!([11, 31]));
/// let back: GuardFinding = serde_json::from_value(json).unwrap();
/// assert_eq!(back, f);
/// ```
#[derive(Clone, Debug, Eq, PartialEq, Hash, Serialize, Deserialize)]
pub struct GuardFinding {
    /// Which guard found it (`egress`, `injection`, `provenance`, `closure`).
    pub guard: Cow<'static, str>,
    /// What was found (`secret`, `upload`, `injection`, …).
    pub kind: Cow<'static, str>,
    /// The stable rule key.
    pub rule: RuleKey,
    /// How serious it is.
    pub severity: Severity,
    /// Byte span in the inspected text, when the guard gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
    /// Masked preview of what was found.
    pub preview: String,
}

/// What a host did (or would have done) about one inspected item.
///
/// Serialized in snake case (`would_block`), the spelling the seeds' log
/// tooling reads.
///
/// ```
/// use palisade_common::Verdict;
/// assert_eq!(serde_json::to_string(&Verdict::WouldBlock).unwrap(), "\"would_block\"");
/// assert!(Verdict::Blocked.is_enforced());
/// ```
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Verdict {
    /// Nothing found.
    Pass,
    /// Recorded only.
    Warn,
    /// Found and enforced by refusing.
    Blocked,
    /// Found, but the mode is observe: it would have been blocked.
    WouldBlock,
    /// Found and rewritten with the finding masked.
    Redacted,
    /// Sent to the host's approval gate.
    Approve,
    /// Flagged for attention without blocking.
    Flagged,
    /// Held in quarantine.
    Quarantined,
    /// Not inspected (too large, unreadable), recorded as such.
    Unscanned,
}

impl Verdict {
    /// Whether this verdict changed what the agent did.
    ///
    /// ```
    /// assert!(!palisade_common::Verdict::WouldBlock.is_enforced());
    /// ```
    pub fn is_enforced(self) -> bool {
        matches!(
            self,
            Verdict::Blocked | Verdict::Redacted | Verdict::Approve | Verdict::Quarantined
        )
    }

    /// The snake-case spelling.
    ///
    /// ```
    /// assert_eq!(palisade_common::Verdict::Redacted.as_str(), "redacted");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Warn => "warn",
            Verdict::Blocked => "blocked",
            Verdict::WouldBlock => "would_block",
            Verdict::Redacted => "redacted",
            Verdict::Approve => "approve",
            Verdict::Flagged => "flagged",
            Verdict::Quarantined => "quarantined",
            Verdict::Unscanned => "unscanned",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The base of the JSON line a host appends for every decision.
///
/// The fixed fields are common to all guards; guard-specific fields (those the
/// seeds list, such as `claim`, `quote`, `matched_in` for provenance) go in
/// `extra` and are flattened into the same JSON object. The timestamp is
/// passed in by the caller: guard crates have no clock.
///
/// ```
/// use palisade_common::{EvidenceRow, Verdict};
/// let mut row = EvidenceRow::new("2026-11-30T10:00:00Z", "dc9d87bf5db4", "provenance-gate", "memory:memory", Verdict::WouldBlock);
/// row.reason = Some("no_quote".into());
/// row.extra.insert("claim".into(), "User decided to ship on Friday.".into());
/// let json = serde_json::to_value(&row).unwrap();
/// assert_eq!(json["verdict"], "would_block");
/// assert_eq!(json["claim"], "User decided to ship on Friday.");
/// let back: EvidenceRow = serde_json::from_value(json).unwrap();
/// assert_eq!(back, row);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvidenceRow {
    /// When the decision was made (RFC 3339, from the caller's clock).
    pub ts: String,
    /// The session the decision belongs to.
    pub session: String,
    /// Which guard decided (`provenance-gate`, `egress-guard`, …).
    pub guard: String,
    /// What was inspected (`memory:memory`, `tool:terminal`, `reply`, …).
    pub target: String,
    /// What happened.
    pub verdict: Verdict,
    /// The reason code, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Guard-specific fields, flattened into the row.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

impl EvidenceRow {
    /// A row with no reason and no extra fields.
    ///
    /// ```
    /// use palisade_common::{EvidenceRow, Verdict};
    /// let row = EvidenceRow::new("t", "s", "g", "x", Verdict::Pass);
    /// assert!(row.extra.is_empty());
    /// ```
    pub fn new(
        ts: impl Into<String>,
        session: impl Into<String>,
        guard: impl Into<String>,
        target: impl Into<String>,
        verdict: Verdict,
    ) -> Self {
        EvidenceRow {
            ts: ts.into(),
            session: session.into(),
            guard: guard.into(),
            target: target.into(),
            verdict,
            reason: None,
            extra: serde_json::Map::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolution_table() {
        // (own, shared, default, want, source)
        type Case<'a> = (Option<&'a str>, Option<&'a str>, Mode, Mode, ModeSource);
        let cases: &[Case<'_>] = &[
            (
                None,
                None,
                Mode::Observe,
                Mode::Observe,
                ModeSource::Default,
            ),
            (Some("act"), None, Mode::Observe, Mode::Act, ModeSource::Own),
            (
                Some("observe"),
                Some("act"),
                Mode::Act,
                Mode::Observe,
                ModeSource::Own,
            ),
            (
                Some("blcok"),
                Some("act"),
                Mode::Observe,
                Mode::Act,
                ModeSource::Shared,
            ),
            (
                Some(""),
                Some(""),
                Mode::Act,
                Mode::Act,
                ModeSource::Default,
            ),
            (None, Some("off"), Mode::Act, Mode::Act, ModeSource::Default),
            (
                Some(" Observe\n"),
                None,
                Mode::Act,
                Mode::Observe,
                ModeSource::Own,
            ),
        ];
        for (own, shared, default, want, source) in cases {
            let r = resolve_mode(*own, *shared, *default);
            assert_eq!(
                (r.mode, r.source),
                (*want, *source),
                "own={own:?} shared={shared:?}"
            );
        }
    }

    #[test]
    fn types_are_send_sync() {
        fn check<T: Send + Sync>() {}
        check::<Finding>();
        check::<GuardFinding>();
        check::<EvidenceRow>();
        check::<RuleKey>();
        check::<Resolved<Mode>>();
    }

    #[test]
    fn rule_key_rejects_bad_json() {
        assert!(serde_json::from_str::<RuleKey>("\"nocolon\"").is_err());
        let k: RuleKey = serde_json::from_str("\"egress-guard:EG-NET-001\"").unwrap();
        assert_eq!(k.reason(), "EG-NET-001");
    }
}
