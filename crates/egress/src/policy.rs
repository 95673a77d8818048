//! The egress policy: rule modes and scopes, presets with deep merge,
//! allowlist, fail mode and the size cap — the seed's YAML shape as serde
//! types.
//!
//! The caller reads the file (YAML, JSON, …) and hands the parsed document
//! over as a [`serde_json::Value`] (any serde format converts into one), so
//! this crate needs no YAML parser and reads no files.
//!
//! Resolution: built-in defaults ← preset ← the user's document, merged
//! deeply (objects merge key by key, everything else is replaced), so a user
//! who sets only `rules.network.allowed_hosts` keeps the preset's
//! `mode: block`. An unknown preset, an unknown key, a bad mode or a regex
//! that does not compile is an [`Error`]; the caller falls back to
//! [`Policy::default`], never to "off".
//!
//! ```
//! use palisade_egress::policy::{Policy, RuleMode, Scope};
//! let doc = serde_json::json!({
//!     "preset": "research-data",
//!     "rules": {"network": {"allowed_hosts": ["localhost", "data.internal"]}}
//! });
//! let p = Policy::from_value(doc).unwrap();
//! assert_eq!(p.rules.network.mode, RuleMode::Block);
//! assert_eq!(p.rules.network.allowed_hosts, ["localhost", "data.internal"]);
//! assert_eq!(p.rules.smallcell.threshold, 10);
//! assert!(p.rules.smallcell.scopes.contains(&Scope::Result));
//! assert!(Policy::from_value(serde_json::json!({"preset": "prod"})).is_err());
//! ```

use crate::command::{MatchMode, NetworkOptions};
use crate::error::{Error, ErrorKind};
use crate::table::{Method, MicrodataAction, TableOptions};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{json, Map, Value};

/// Default `max_scan_bytes`: 1 MiB.
pub const DEFAULT_MAX_SCAN_BYTES: usize = 1 << 20;

/// Reason code of the secrets rule.
pub const SECRET_CODE: &str = "EG-SECRET-001";
/// Reason code of the network rule.
pub const NET_CODE: &str = "EG-NET-001";
/// Reason code of the size cap.
pub const SIZE_CODE: &str = "EG-SIZE-001";
/// Reason code of the small-cell rule.
pub const CELL_CODE: &str = "EG-CELL-001";
/// Reason code of the microdata rule.
pub const MICRO_CODE: &str = "EG-MICRO-001";

/// What a rule does with a finding. Ordered: the strictest finding wins.
///
/// ```
/// use palisade_egress::policy::RuleMode;
/// assert!(RuleMode::Block > RuleMode::Approve);
/// assert!(RuleMode::Approve > RuleMode::Redact);
/// assert_eq!(RuleMode::parse("WARN"), Some(RuleMode::Warn));
/// // YAML 1.1 reads a bare `off` as `false`; it still means off.
/// let m: RuleMode = serde_json::from_value(serde_json::json!(false)).unwrap();
/// assert_eq!(m, RuleMode::Off);
/// ```
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash, Ord, PartialOrd, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleMode {
    /// The rule does not run.
    Off,
    /// Record in the audit log only.
    Warn,
    /// Rewrite the text with the finding masked.
    Redact,
    /// Hand the call to the host's approval prompt.
    Approve,
    /// Refuse.
    Block,
}

impl RuleMode {
    /// Parse a mode name (case-insensitive).
    ///
    /// ```
    /// assert_eq!(palisade_egress::policy::RuleMode::parse("block"), Some(palisade_egress::policy::RuleMode::Block));
    /// assert_eq!(palisade_egress::policy::RuleMode::parse("enforce"), None);
    /// ```
    pub fn parse(s: &str) -> Option<RuleMode> {
        match s.trim().to_ascii_lowercase().as_str() {
            "off" => Some(RuleMode::Off),
            "warn" => Some(RuleMode::Warn),
            "redact" => Some(RuleMode::Redact),
            "approve" => Some(RuleMode::Approve),
            "block" => Some(RuleMode::Block),
            _ => None,
        }
    }

    /// The canonical name.
    ///
    /// ```
    /// assert_eq!(palisade_egress::policy::RuleMode::Approve.as_str(), "approve");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            RuleMode::Off => "off",
            RuleMode::Warn => "warn",
            RuleMode::Redact => "redact",
            RuleMode::Approve => "approve",
            RuleMode::Block => "block",
        }
    }
}

impl<'de> Deserialize<'de> for RuleMode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            S(String),
            B(bool),
        }
        match Raw::deserialize(d)? {
            Raw::S(s) => RuleMode::parse(&s).ok_or_else(|| {
                serde::de::Error::custom(format!(
                    "unknown mode `{s}` (expected off, warn, redact, approve or block)"
                ))
            }),
            Raw::B(false) => Ok(RuleMode::Off),
            Raw::B(true) => Err(serde::de::Error::custom(
                "mode `true` is ambiguous (expected off, warn, redact, approve or block)",
            )),
        }
    }
}

/// Where a rule runs.
///
/// ```
/// use palisade_egress::policy::Scope;
/// assert_eq!(serde_json::from_str::<Scope>("\"reply\"").unwrap(), Scope::Reply);
/// ```
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// Tool arguments, before the tool runs.
    Args,
    /// Tool results, before the model sees them.
    Result,
    /// The model's final reply.
    Reply,
}

/// What happens on an internal error or an unscanned oversized string.
///
/// ```
/// use palisade_egress::policy::FailMode;
/// assert_eq!(FailMode::default(), FailMode::Open);
/// ```
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailMode {
    /// Let it through (and record it).
    #[default]
    Open,
    /// Block it.
    Closed,
}

/// The secrets rule's settings.
///
/// ```
/// let r = palisade_egress::policy::SecretsRule::default();
/// assert_eq!(r.mode, palisade_egress::policy::RuleMode::Redact);
/// assert_eq!(r.scopes.len(), 3);
/// ```
#[derive(Clone, Debug, Eq, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecretsRule {
    /// Mode (default redact).
    pub mode: RuleMode,
    /// Scopes (default args, result, reply).
    pub scopes: Vec<Scope>,
}

impl Default for SecretsRule {
    fn default() -> Self {
        SecretsRule {
            mode: RuleMode::Redact,
            scopes: vec![Scope::Args, Scope::Result, Scope::Reply],
        }
    }
}

/// The network rule's settings.
///
/// ```
/// let r = palisade_egress::policy::NetworkRule::default();
/// assert_eq!(r.mode, palisade_egress::policy::RuleMode::Approve);
/// assert!(r.allowed_hosts.is_empty());
/// ```
#[derive(Clone, Debug, Eq, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkRule {
    /// Mode (default approve).
    pub mode: RuleMode,
    /// Scopes (default args).
    pub scopes: Vec<Scope>,
    /// Allowed destinations (hosts with subdomains, `s3://b`, `gs://b`, `rclone:r`).
    pub allowed_hosts: Vec<String>,
    /// `uploads` (default) or `any_host`.
    #[serde(rename = "match")]
    pub match_mode: MatchMode,
}

impl Default for NetworkRule {
    fn default() -> Self {
        NetworkRule {
            mode: RuleMode::Approve,
            scopes: vec![Scope::Args],
            allowed_hosts: Vec::new(),
            match_mode: MatchMode::Uploads,
        }
    }
}

impl NetworkRule {
    /// The command checker's options.
    ///
    /// ```
    /// let r = palisade_egress::policy::NetworkRule::default();
    /// assert!(r.options().allowed_hosts.is_empty());
    /// ```
    pub fn options(&self) -> NetworkOptions {
        NetworkOptions {
            allowed_hosts: self.allowed_hosts.clone(),
            match_mode: self.match_mode,
            ..NetworkOptions::default()
        }
    }
}

/// The small-cell rule's settings.
///
/// ```
/// let r = palisade_egress::policy::SmallCellRule::default();
/// assert_eq!((r.threshold, r.min_value), (5, 1));
/// ```
#[derive(Clone, Debug, Eq, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmallCellRule {
    /// Mode (default redact).
    pub mode: RuleMode,
    /// Scopes (default args, reply).
    pub scopes: Vec<Scope>,
    /// Counts below this are small (default 5).
    pub threshold: u64,
    /// Smallest flagged count (default 1; 0 also flags zeros).
    pub min_value: u64,
    /// `suppress` (default) or `round`.
    pub method: Method,
}

impl Default for SmallCellRule {
    fn default() -> Self {
        SmallCellRule {
            mode: RuleMode::Redact,
            scopes: vec![Scope::Args, Scope::Reply],
            threshold: 5,
            min_value: 1,
            method: Method::Suppress,
        }
    }
}

/// The microdata rule's settings.
///
/// ```
/// let r = palisade_egress::policy::MicrodataRule::default();
/// assert_eq!(r.max_rows, 20);
/// assert_eq!(r.mode, palisade_egress::policy::RuleMode::Warn);
/// ```
#[derive(Clone, Debug, Eq, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MicrodataRule {
    /// Mode (default warn: audit log only).
    pub mode: RuleMode,
    /// Scopes (default args, reply).
    pub scopes: Vec<Scope>,
    /// More rows than this with an ID-like column is microdata (default 20).
    pub max_rows: usize,
}

impl Default for MicrodataRule {
    fn default() -> Self {
        MicrodataRule {
            mode: RuleMode::Warn,
            scopes: vec![Scope::Args, Scope::Reply],
            max_rows: 20,
        }
    }
}

/// All rule settings.
///
/// ```
/// let r = palisade_egress::policy::Rules::default();
/// assert_eq!(r.secrets.mode, palisade_egress::policy::RuleMode::Redact);
/// ```
#[derive(Clone, Debug, Default, Eq, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rules {
    /// EG-SECRET-001.
    pub secrets: SecretsRule,
    /// EG-NET-001.
    pub network: NetworkRule,
    /// EG-CELL-001.
    pub smallcell: SmallCellRule,
    /// EG-MICRO-001.
    pub microdata: MicrodataRule,
}

/// Audit settings (the bindings write the log).
///
/// ```
/// assert!(palisade_egress::policy::AuditSettings::default().enabled);
/// ```
#[derive(Clone, Debug, Eq, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditSettings {
    /// Whether findings are appended to the audit log (default true).
    pub enabled: bool,
    /// Log path; `None` is the bindings' default.
    #[serde(default)]
    pub path: Option<String>,
}

impl Default for AuditSettings {
    fn default() -> Self {
        AuditSettings {
            enabled: true,
            path: None,
        }
    }
}

/// A resolved, validated policy.
///
/// ```
/// use palisade_egress::policy::{FailMode, Policy};
/// let p = Policy::default();
/// assert_eq!(p.fail_mode, FailMode::Open);
/// assert_eq!(p.max_scan_bytes, 1 << 20);
/// assert_eq!(p.preset, None);
/// ```
#[derive(Clone, Debug, Eq, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// The preset the policy started from, if any.
    #[serde(default)]
    pub preset: Option<String>,
    /// Rule settings.
    pub rules: Rules,
    /// Regexes; a finding whose raw value matches one is ignored.
    pub allowlist: Vec<String>,
    /// `open` (default) or `closed`.
    pub fail_mode: FailMode,
    /// Strings longer than this (UTF-8 bytes) are not scanned (EG-SIZE-001).
    pub max_scan_bytes: usize,
    /// Audit settings.
    pub audit: AuditSettings,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            preset: None,
            rules: Rules::default(),
            allowlist: Vec::new(),
            fail_mode: FailMode::Open,
            max_scan_bytes: DEFAULT_MAX_SCAN_BYTES,
            audit: AuditSettings::default(),
        }
    }
}

/// The names of the built-in presets.
pub const PRESETS: &[&str] = &["research-data", "dev"];

/// A preset's settings as a document to merge under the user's.
///
/// ```
/// use palisade_egress::policy::preset;
/// assert!(preset("dev").is_some());
/// assert!(preset("nope").is_none());
/// ```
pub fn preset(name: &str) -> Option<Value> {
    match name {
        "research-data" => Some(json!({
            "rules": {
                "smallcell": {"threshold": 10, "scopes": ["args", "result", "reply"]},
                "network": {"mode": "block"}
            }
        })),
        "dev" => Some(json!({
            "rules": {
                "smallcell": {"mode": "off"},
                "microdata": {"mode": "off"},
                "network": {"mode": "off"}
            }
        })),
        _ => None,
    }
}

impl Policy {
    /// Resolve a policy document: defaults ← preset ← document, deep-merged,
    /// then validated. Top-level `allowed_hosts` and `min_value` (the seed's
    /// "other options") apply to the network and small-cell rules unless the
    /// rule sets them itself. `null` or an empty document gives the defaults.
    ///
    /// # Errors
    ///
    /// Unknown preset, unknown key, a value of the wrong type, a bad mode,
    /// `threshold`/`max_rows`/`max_scan_bytes` of 0, or an allowlist regex
    /// that does not compile.
    ///
    /// ```
    /// use palisade_egress::policy::{Policy, RuleMode};
    /// let p = Policy::from_value(serde_json::json!({
    ///     "allowed_hosts": ["pypi.org"], "min_value": 0,
    ///     "rules": {"secrets": {"mode": "block"}}
    /// })).unwrap();
    /// assert_eq!(p.rules.secrets.mode, RuleMode::Block);
    /// assert_eq!(p.rules.network.allowed_hosts, ["pypi.org"]);
    /// assert_eq!(p.rules.smallcell.min_value, 0);
    /// let err = Policy::from_value(serde_json::json!({"rules": {"secrets": {"mode": "loud"}}})).unwrap_err();
    /// assert!(err.to_string().contains("loud"));
    /// ```
    pub fn from_value(document: Value) -> Result<Policy, Error> {
        let mut user = match document {
            Value::Null => Value::Object(Map::new()),
            Value::Object(m) => Value::Object(m),
            other => {
                return Err(policy_error(format!(
                    "the policy must be a mapping, not {}",
                    kind_of(&other)
                )))
            }
        };
        hoist_shortcuts(&mut user);
        let mut merged = serde_json::to_value(Policy::default())
            .map_err(|e| policy_error(format!("defaults: {e}")))?;
        if let Some(name) = user.get("preset").cloned() {
            let name = match name {
                Value::String(s) => s,
                Value::Null => String::new(),
                other => {
                    return Err(policy_error(format!(
                        "preset must be a name, not {}",
                        kind_of(&other)
                    )))
                }
            };
            if !name.is_empty() {
                let p = preset(&name).ok_or_else(|| {
                    policy_error(format!(
                        "unknown preset `{name}` (known: {})",
                        PRESETS.join(", ")
                    ))
                })?;
                deep_merge(&mut merged, p);
            }
        }
        deep_merge(&mut merged, user);
        let policy: Policy =
            serde_json::from_value(merged).map_err(|e| policy_error(e.to_string()))?;
        policy.validate()?;
        Ok(policy)
    }

    /// Check the invariants [`from_value`](Self::from_value) guarantees.
    ///
    /// # Errors
    ///
    /// See [`from_value`](Self::from_value).
    ///
    /// ```
    /// let mut p = palisade_egress::policy::Policy::default();
    /// assert!(p.validate().is_ok());
    /// p.allowlist.push("(".into());
    /// assert!(p.validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<(), Error> {
        if self.rules.smallcell.threshold == 0 {
            return Err(policy_error("rules.smallcell.threshold must be at least 1"));
        }
        if self.rules.microdata.max_rows == 0 {
            return Err(policy_error("rules.microdata.max_rows must be at least 1"));
        }
        if self.max_scan_bytes == 0 {
            return Err(policy_error("max_scan_bytes must be at least 1"));
        }
        for (i, pattern) in self.allowlist.iter().enumerate() {
            regex::RegexBuilder::new(pattern)
                .size_limit(1 << 20)
                .build()
                .map_err(|e| {
                    policy_error(format!(
                        "allowlist[{i}] `{pattern}` is not a valid regex: {e}"
                    ))
                })?;
        }
        Ok(())
    }

    /// The table rules' options for a scope: the small-cell settings, plus
    /// the microdata action (`withhold` when the microdata rule redacts in
    /// this scope).
    ///
    /// ```
    /// use palisade_egress::policy::{Policy, Scope};
    /// let p = Policy::from_value(serde_json::json!({"preset": "research-data"})).unwrap();
    /// assert_eq!(p.table_options(Scope::Result).threshold, 10);
    /// ```
    pub fn table_options(&self, scope: Scope) -> TableOptions {
        let micro = &self.rules.microdata;
        TableOptions {
            threshold: self.rules.smallcell.threshold,
            min_value: self.rules.smallcell.min_value,
            method: self.rules.smallcell.method,
            max_rows: micro.max_rows,
            microdata: if micro.mode == RuleMode::Redact && micro.scopes.contains(&scope) {
                MicrodataAction::Withhold
            } else {
                MicrodataAction::Keep
            },
            ..TableOptions::default()
        }
    }
}

fn policy_error(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Policy, message)
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

/// Move top-level `allowed_hosts` / `min_value` into their rules unless set there.
fn hoist_shortcuts(user: &mut Value) {
    let Value::Object(top) = user else { return };
    let moves = [
        ("allowed_hosts", "network", "allowed_hosts"),
        ("min_value", "smallcell", "min_value"),
    ];
    for (key, rule, field) in moves {
        let Some(value) = top.remove(key) else {
            continue;
        };
        let rules = top
            .entry("rules")
            .or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(rules) = rules else {
            continue;
        };
        let r = rules
            .entry(rule)
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(r) = r {
            r.entry(field).or_insert(value);
        }
    }
}

/// Merge `over` into `base`: objects key by key (recursively), anything else replaced.
///
/// ```
/// use palisade_egress::policy::deep_merge;
/// let mut a = serde_json::json!({"rules": {"network": {"mode": "block", "allowed_hosts": ["a"]}}});
/// deep_merge(&mut a, serde_json::json!({"rules": {"network": {"allowed_hosts": ["b"]}}}));
/// assert_eq!(a, serde_json::json!({"rules": {"network": {"mode": "block", "allowed_hosts": ["b"]}}}));
/// ```
pub fn deep_merge(base: &mut Value, over: Value) {
    match (base, over) {
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                match b.get_mut(&k) {
                    Some(slot) if slot.is_object() && v.is_object() => deep_merge(slot, v),
                    _ => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (slot, v) => *slot = v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_the_seed() {
        let p = Policy::from_value(Value::Null).unwrap();
        assert_eq!(p, Policy::default());
        assert_eq!(
            p.rules.secrets.scopes,
            [Scope::Args, Scope::Result, Scope::Reply]
        );
        assert_eq!(p.rules.smallcell.scopes, [Scope::Args, Scope::Reply]);
        assert_eq!(p.rules.microdata.mode, RuleMode::Warn);
        assert_eq!(p.rules.network.scopes, [Scope::Args]);
    }

    #[test]
    fn dev_preset_turns_off_all_but_secrets() {
        let p = Policy::from_value(json!({"preset": "dev"})).unwrap();
        assert_eq!(p.rules.secrets.mode, RuleMode::Redact);
        assert_eq!(p.rules.smallcell.mode, RuleMode::Off);
        assert_eq!(p.rules.microdata.mode, RuleMode::Off);
        assert_eq!(p.rules.network.mode, RuleMode::Off);
    }

    #[test]
    fn user_settings_win_over_the_preset() {
        let p = Policy::from_value(json!({
            "preset": "research-data",
            "rules": {"smallcell": {"threshold": 7}, "network": {"mode": "approve"}}
        }))
        .unwrap();
        assert_eq!(p.rules.smallcell.threshold, 7);
        assert_eq!(
            p.rules.smallcell.scopes,
            [Scope::Args, Scope::Result, Scope::Reply]
        );
        assert_eq!(p.rules.network.mode, RuleMode::Approve);
    }

    #[test]
    fn invalid_documents_are_errors() {
        for bad in [
            json!({"preset": "prod"}),
            json!({"rules": {"secrets": {"mode": "loud"}}}),
            json!({"rules": {"secrets": {"mdoe": "warn"}}}),
            json!({"rules": {"smallcell": {"threshold": 0}}}),
            json!({"rules": {"smallcell": {"method": "shuffle"}}}),
            json!({"rules": {"network": {"match": "everything"}}}),
            json!({"rules": {"network": {"scopes": ["outbox"]}}}),
            json!({"allowlist": ["("]}),
            json!({"fail_mode": "maybe"}),
            json!({"max_scan_bytes": 0}),
            json!(["not", "a", "mapping"]),
            json!({"preset": 3}),
        ] {
            let err = Policy::from_value(bad.clone()).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::Policy, "{bad}");
            assert!(err.to_string().starts_with("invalid policy: "), "{err}");
        }
    }

    #[test]
    fn yaml_bare_off_is_off() {
        let p = Policy::from_value(json!({"rules": {"network": {"mode": false}}})).unwrap();
        assert_eq!(p.rules.network.mode, RuleMode::Off);
    }

    #[test]
    fn table_options_follow_the_policy() {
        let p = Policy::from_value(json!({
            "rules": {"microdata": {"mode": "redact", "max_rows": 50}, "smallcell": {"method": "round"}}
        }))
        .unwrap();
        let o = p.table_options(Scope::Reply);
        assert_eq!(o.max_rows, 50);
        assert_eq!(o.method, Method::Round);
        assert_eq!(o.microdata, MicrodataAction::Withhold);
        assert_eq!(
            p.table_options(Scope::Result).microdata,
            MicrodataAction::Keep
        );
    }
}
