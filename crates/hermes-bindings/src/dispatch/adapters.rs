//! The one place where the dispatchers call the pure guard crates.
//!
//! Each function here turns a guard crate's verdict into the small shape
//! the dispatchers need. When a guard's API is not available in this build,
//! its function returns [`DispatchError::Unavailable`], which the dispatcher
//! turns into the guard's documented fail-mode verdict (and an evidence row
//! with `reason: "guard_unavailable"`), never into a silent pass.

use super::DispatchError;
use serde_json::Value;

/// What a memory/skill write targets, for evidence rows and the
/// third-block rule (`memory:memory`, `memory:user`, `skill:<name>`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct WriteTarget {
    pub label: String,
}

impl WriteTarget {
    pub(crate) fn of(tool: &str, args: &Value) -> WriteTarget {
        let label = if tool == "memory" {
            format!("memory:{}", args["target"].as_str().unwrap_or("memory"))
        } else {
            let name: String = args["name"]
                .as_str()
                .unwrap_or("")
                .chars()
                .take(64)
                .collect();
            match args["file_path"].as_str() {
                Some(f) if !f.is_empty() => {
                    format!("skill:{name}/{}", f.chars().take(128).collect::<String>())
                }
                _ => format!("skill:{name}"),
            }
        };
        WriteTarget { label }
    }
}

/// Mask every credential in `text` before it is persisted (`AKIA…****`).
pub(crate) fn mask_secrets(text: &str) -> String {
    palisade_egress::secrets::SecretScanner::builtin()
        .redact(text)
        .text
}

/// Where an egress inspection runs.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) enum EgressScope {
    /// Tool arguments, before the tool runs.
    Args,
    /// A tool result, before the model sees it.
    Result,
    /// The final reply.
    Reply,
}

/// The strongest action an inspection asks for (ordered: the strictest wins).
#[allow(dead_code)] // Some variants are produced only by the egress crate's verdicts.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Ord, PartialOrd)]
pub(crate) enum EgressAction {
    Pass,
    Warn,
    Redact,
    Approve,
    Block,
}

impl EgressAction {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            EgressAction::Pass => "pass",
            EgressAction::Warn => "warn",
            EgressAction::Redact => "redact",
            EgressAction::Approve => "approve",
            EgressAction::Block => "block",
        }
    }

    /// The evidence-row verdict word.
    pub(crate) fn verdict(self) -> &'static str {
        match self {
            EgressAction::Pass => "pass",
            EgressAction::Warn => "warn",
            EgressAction::Redact => "redacted",
            EgressAction::Approve => "approve",
            EgressAction::Block => "blocked",
        }
    }
}

/// One inspected string.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct EgressInspection {
    pub action: EgressAction,
    /// `egress-guard:<code>` of the strictest finding.
    pub rule_key: String,
    /// Message for approve/block (masked; ends with a command preview).
    pub message: String,
    /// Masked findings: `{"rule","code","severity","reason","preview"}`.
    pub findings: Vec<Value>,
    /// The rewritten text when anything was redacted or suppressed.
    pub rewritten: Option<String>,
    /// Values withheld (for the reply note).
    pub withheld: usize,
}

/// The compiled egress policy (built once per policy-file change).
#[derive(Clone, Debug, Default)]
pub(crate) struct EgressPolicy {
    _private: (),
}

/// Build the policy from the raw document; an invalid document falls back to
/// the built-in defaults with a note in `config.notes`.
pub(crate) fn egress_policy(_config: &mut crate::config::EgressConfig) -> EgressPolicy {
    EgressPolicy::default()
}

/// Inspect one string.
pub(crate) fn egress_inspect(
    _policy: &EgressPolicy,
    _scope: EgressScope,
    _text: &str,
) -> Result<EgressInspection, DispatchError> {
    Err(DispatchError::Unavailable("egress"))
}

/// Mask every credential as `[REDACTED-SECRET]` (the injection seed's marker).
pub(crate) fn mask_secrets_marker(text: &str) -> String {
    let findings = palisade_egress::secrets::SecretScanner::builtin().scan(text);
    let mut out = String::with_capacity(text.len());
    let mut cursor = 0;
    for f in &findings {
        let (start, end) = (f.span.start, f.span.end);
        // Findings are sorted and disjoint on char boundaries; skip any
        // that are not rather than panic.
        if start < cursor
            || end > text.len()
            || !text.is_char_boundary(start)
            || !text.is_char_boundary(end)
        {
            continue;
        }
        out.push_str(&text[cursor..start]);
        out.push_str("[REDACTED-SECRET]");
        cursor = end;
    }
    out.push_str(&text[cursor..]);
    out
}

/// A summary of the active egress policy for `status`.
pub(crate) fn egress_policy_summary(
    _policy: &EgressPolicy,
    config: &crate::config::EgressConfig,
) -> Value {
    config.document.clone()
}

/// A cleaned copy of a held message: invisible characters stripped.
pub(crate) fn injection_clean(text: &str) -> String {
    palisade_common::normalize::normalize(text)
        .as_str()
        .to_owned()
}

/// Run the simulation arena in memory.
pub(crate) fn injection_arena() -> Result<Value, DispatchError> {
    Err(DispatchError::Unavailable("injection"))
}
