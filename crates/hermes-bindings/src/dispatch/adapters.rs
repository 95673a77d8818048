//! Small shapes shared by the dispatchers and the commands, and thin calls
//! into the pure guard crates (secret masking, the egress policy, the
//! injection arena and clean copy).

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

/// Mask every credential in `text` before it is persisted (`AKIA…****`),
/// with the shared catalogue `palisade check secrets` uses, reading a config
/// line quoted after a colon lead-in as a line start
/// ([`palisade_secrets::SecretScanner::redact_quoted`]): stored text is what
/// users typed.
pub(crate) fn mask_secrets(text: &str) -> String {
    palisade_secrets::SecretScanner::builtin()
        .redact_quoted(text)
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

pub(crate) use super::egress_policy::EgressPolicy;

/// Build the policy from the raw document; an invalid document falls back to
/// the built-in defaults with a note in `config.notes`.
pub(crate) fn egress_policy(config: &mut crate::config::EgressConfig) -> EgressPolicy {
    super::egress_policy::from_config(config)
}

/// Inspect one string (`is_command`: the `command` argument of a tool).
pub(crate) fn egress_inspect(
    policy: &EgressPolicy,
    scope: EgressScope,
    text: &str,
    is_command: bool,
) -> Result<EgressInspection, DispatchError> {
    Ok(super::egress_policy::inspect(
        policy, scope, text, is_command,
    ))
}

/// A summary of the active egress policy for `status`.
pub(crate) fn egress_policy_summary(
    policy: &EgressPolicy,
    _config: &crate::config::EgressConfig,
) -> Value {
    super::egress_policy::summary(policy)
}

/// Mask every credential as `[REDACTED-SECRET]` (the injection seed's marker).
///
/// The marker hides exactly what [`mask_secrets`] would.
pub(crate) fn mask_secrets_marker(text: &str) -> String {
    let findings = palisade_secrets::SecretScanner::builtin().scan_quoted(text);
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

/// A cleaned copy of a held message: invisible characters stripped,
/// obfuscated blobs redacted (secrets stay masked as stored).
pub(crate) fn injection_clean(text: &str) -> String {
    palisade_injection::clean_copy(text)
}

/// Run the simulation arena in memory (never touches live data).
pub(crate) fn injection_arena() -> Result<Value, DispatchError> {
    let result = palisade_injection::run_arena(&palisade_injection::Scanner::new());
    serde_json::to_value(result).map_err(|e| DispatchError::Other(e.to_string()))
}
