//! Evidence rows of the session pipeline, built on
//! [`palisade_common::EvidenceRow`] with the field names the seeds' tools
//! read.
//!
//! The egress audit row (`plugin-data/egress-guard/audit.jsonl`, one per
//! inspected string with findings): `ts`, `session`, `guard`
//! (`egress-guard`), `target` and `direction` (`args`, `result`, `reply`),
//! `tool`, `action`, `verdict`, `reason` (the strictest rule key),
//! `counts` (findings per rule code), `findings` (masked: `rule`, `kind`,
//! `severity`, `mode`, `preview`, `path` when inside JSON) and `sha256_12`
//! (a prefix of the inspected text's hash, which the caller computes).

use palisade_common::{EvidenceRow, Verdict};
use palisade_egress::guard::{Action, EgressFinding, Inspection};
use serde_json::{json, Map, Value};

/// At most this many findings are listed (and counted) per egress row.
pub const EGRESS_MAX_FINDINGS: usize = 50;

/// The evidence verdict of an egress action.
///
/// ```
/// use palisade_egress::guard::Action;
/// use palisade_common::Verdict;
/// assert_eq!(palisade_session::evidence::egress_verdict(Action::Redact), Verdict::Redacted);
/// assert_eq!(palisade_session::evidence::egress_verdict(Action::Block), Verdict::Blocked);
/// ```
pub fn egress_verdict(action: Action) -> Verdict {
    match action {
        Action::Pass => Verdict::Pass,
        Action::Warn => Verdict::Warn,
        Action::Redact => Verdict::Redacted,
        Action::Approve => Verdict::Approve,
        Action::Block => Verdict::Blocked,
    }
}

/// The lower-case name of an egress action (`approve`).
///
/// ```
/// assert_eq!(palisade_session::evidence::egress_action(palisade_egress::guard::Action::Warn), "warn");
/// ```
pub fn egress_action(action: Action) -> &'static str {
    match action {
        Action::Pass => "pass",
        Action::Warn => "warn",
        Action::Redact => "redact",
        Action::Approve => "approve",
        Action::Block => "block",
    }
}

/// One egress finding as a row lists it: masked preview only.
///
/// ```
/// use palisade_egress::guard::EgressGuard;
/// use palisade_egress::policy::Scope;
/// let ins = EgressGuard::new(Default::default()).unwrap().inspect_text("AKIAZ7QPMX3RWB5TLN2K", Scope::Args);
/// let row = palisade_session::evidence::egress_finding(&ins.findings[0]);
/// assert_eq!(row["rule"], "EG-SECRET-001");
/// assert_eq!(row["preview"], "AKIA…****");
/// ```
pub fn egress_finding(f: &EgressFinding) -> Value {
    let mut row = json!({"rule": f.rule.reason(), "kind": f.kind, "severity": f.severity,
        "mode": f.mode.as_str(), "preview": f.preview});
    if let Some(path) = &f.path {
        row["path"] = json!(path);
    }
    row
}

/// Where and when an egress inspection ran, for its row.
#[derive(Clone, Copy, Debug)]
pub struct EgressContext<'a> {
    /// RFC 3339 time of the decision (the caller's clock).
    pub ts: &'a str,
    /// The session id.
    pub session: &'a str,
    /// `args`, `result` or `reply`.
    pub direction: &'a str,
    /// The tool's name (empty for a reply).
    pub tool: &'a str,
    /// The first 12 hex digits of the SHA-256 of the inspected text.
    pub sha256_12: &'a str,
}

/// The audit row of one inspected string.
///
/// ```
/// use palisade_egress::guard::EgressGuard;
/// use palisade_egress::policy::Scope;
/// use palisade_session::evidence::{egress_row, EgressContext};
/// let ins = EgressGuard::new(Default::default()).unwrap().inspect_text("AKIAZ7QPMX3RWB5TLN2K", Scope::Args);
/// let cx = EgressContext { ts: "2026-12-01T00:00:00Z", session: "s1", direction: "args",
///     tool: "terminal", sha256_12: "0123456789ab" };
/// let row = serde_json::to_value(egress_row(&cx, &ins)).unwrap();
/// assert_eq!(row["verdict"], "redacted");
/// assert_eq!(row["reason"], "egress-guard:EG-SECRET-001");
/// assert_eq!(row["counts"]["EG-SECRET-001"], 1);
/// assert_eq!(row["target"], "args");
/// ```
pub fn egress_row(cx: &EgressContext<'_>, ins: &Inspection) -> EvidenceRow {
    let listed: Vec<Value> = ins
        .findings
        .iter()
        .take(EGRESS_MAX_FINDINGS)
        .map(egress_finding)
        .collect();
    let mut counts: Map<String, Value> = Map::new();
    for f in ins.findings.iter().take(EGRESS_MAX_FINDINGS) {
        let rule = f.rule.reason().to_owned();
        let n = counts.get(&rule).and_then(Value::as_u64).unwrap_or(0);
        counts.insert(rule, json!(n + 1));
    }
    let mut row = EvidenceRow::new(
        cx.ts,
        cx.session,
        "egress-guard",
        cx.direction,
        egress_verdict(ins.action),
    );
    row.reason = Some(ins.rule_key().map(ToString::to_string).unwrap_or_default());
    let extra = &mut row.extra;
    extra.insert("direction".into(), json!(cx.direction));
    extra.insert("tool".into(), json!(cx.tool));
    extra.insert("action".into(), json!(egress_action(ins.action)));
    extra.insert("counts".into(), Value::Object(counts));
    extra.insert("findings".into(), Value::Array(listed));
    extra.insert("sha256_12".into(), json!(cx.sha256_12));
    row
}
