//! Configuration with the seeds' names and precedence.
//!
//! The process environment is read in exactly one place,
//! [`Env::from_process`], into a snapshot; everything else takes an [`Env`]
//! so tests pass configuration explicitly instead of mutating the process
//! environment.
//!
//! | guard | source, in order | keys |
//! |---|---|---|
//! | provenance | env | `PROVENANCE_GATE_MODE` (`observe`/`ask`/`block`), then `HERMES_GUARD_MODE` (`observe`/`act`=block/`ask`), `PROVENANCE_GATE_SEARCH`, `PROVENANCE_GATE_SCOPE`, `PROVENANCE_GATE_RETENTION_DAYS` |
//! | egress | `EGRESS_GUARD_POLICY` → `$HERMES_HOME/egress-guard.yaml` → `~/.hermes/egress-guard.yaml` (the seed's path, when a profile's home is elsewhere) → built-in defaults (the bundled file sets nothing) | the policy document; `HERMES_GUARD_MODE=observe` turns every action into an audit-only warning |
//! | egress, closure logs | env | `EGRESS_GUARD_RETENTION_DAYS` (`audit.jsonl`), `TURN_CLOSURE_AUDIT_RETENTION_DAYS` (`turns.jsonl`, daily review files): days to keep, default 30, like `PROVENANCE_GATE_RETENTION_DAYS`; every log is also capped at 64 MiB (see [`log_retention`]) |
//! | injection | `$HERMES_HOME/config.yaml` `plugins.entries.hermes-guard.settings` (or the entry itself) | `fail_closed_on_error`, `quarantine_mode`, `callid_race_window_s`, `taint_ttl_minutes`, `redact_secrets`; `HERMES_GUARD_MODE` |
//!
//! An invalid value never turns a guard off: it falls back to the safe
//! default and the reason is kept in `notes`, which `status` commands show.

use palisade_common::verdict::{resolve_mode, GuardMode, Mode, ModeSource};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The environment variables Palisade reads.
pub const ENV_KEYS: &[&str] = &[
    "HERMES_HOME",
    "HOME",
    "HERMES_GUARD_MODE",
    "PROVENANCE_GATE_MODE",
    "PROVENANCE_GATE_SEARCH",
    "PROVENANCE_GATE_SCOPE",
    "PROVENANCE_GATE_RETENTION_DAYS",
    "EGRESS_GUARD_POLICY",
    "EGRESS_GUARD_RETENTION_DAYS",
    "TURN_CLOSURE_AUDIT_RETENTION_DAYS",
];

/// A snapshot of the environment variables in [`ENV_KEYS`].
///
/// ```
/// use palisade_hermes::Env;
/// let env = Env::from_pairs([("HERMES_HOME", "/h")]);
/// assert_eq!(env.get("HERMES_HOME"), Some("/h"));
/// assert_eq!(env.hermes_home(), std::path::PathBuf::from("/h"));
/// ```
#[derive(Clone, Debug, Default, Eq, PartialEq)]
pub struct Env {
    vars: BTreeMap<String, String>,
}

impl Env {
    /// Read [`ENV_KEYS`] from the process environment (the only place that does).
    ///
    /// ```
    /// let _ = palisade_hermes::Env::from_process();
    /// ```
    pub fn from_process() -> Env {
        let vars = ENV_KEYS
            .iter()
            .filter_map(|k| std::env::var(k).ok().map(|v| ((*k).to_owned(), v)))
            .collect();
        Env { vars }
    }

    /// An explicit snapshot.
    ///
    /// ```
    /// assert!(palisade_hermes::Env::from_pairs([("A", "b")]).get("A").is_some());
    /// ```
    pub fn from_pairs<K: Into<String>, V: Into<String>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Env {
        Env {
            vars: pairs
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        }
    }

    /// A variable's value.
    ///
    /// ```
    /// assert_eq!(palisade_hermes::Env::default().get("HOME"), None);
    /// ```
    pub fn get(&self, key: &str) -> Option<&str> {
        self.vars.get(key).map(String::as_str)
    }

    /// `$HERMES_HOME`, else `$HOME/.hermes`, else `./.hermes`.
    ///
    /// ```
    /// let env = palisade_hermes::Env::from_pairs([("HOME", "/u")]);
    /// assert_eq!(env.hermes_home(), std::path::PathBuf::from("/u/.hermes"));
    /// ```
    pub fn hermes_home(&self) -> PathBuf {
        match (self.get("HERMES_HOME"), self.get("HOME")) {
            (Some(h), _) if !h.trim().is_empty() => PathBuf::from(h),
            (_, Some(home)) if !home.trim().is_empty() => Path::new(home).join(".hermes"),
            _ => PathBuf::from(".hermes"),
        }
    }
}

/// The provenance gate's mode.
///
/// ```
/// use palisade_common::verdict::GuardMode;
/// use palisade_hermes::config::ProvenanceMode;
/// assert_eq!(ProvenanceMode::parse_own("act"), None); // its own key keeps its vocabulary
/// assert_eq!(ProvenanceMode::parse_shared("act"), Some(ProvenanceMode::Block));
/// assert_eq!(ProvenanceMode::parse_shared("ask"), Some(ProvenanceMode::Ask));
/// ```
#[derive(Clone, Copy, Debug, Eq, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProvenanceMode {
    /// Record `would_block`, refuse nothing.
    Observe,
    /// Escalate to the approval gate with `rule_key = provenance-gate:<reason>`.
    Ask,
    /// Refuse the write with instructions.
    Block,
}

impl GuardMode for ProvenanceMode {
    fn parse_own(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "observe" => Some(ProvenanceMode::Observe),
            "ask" => Some(ProvenanceMode::Ask),
            "block" => Some(ProvenanceMode::Block),
            _ => None,
        }
    }

    fn from_shared(mode: Mode) -> Self {
        match mode {
            Mode::Observe => ProvenanceMode::Observe,
            Mode::Act => ProvenanceMode::Block,
        }
    }

    fn parse_shared(s: &str) -> Option<Self> {
        if s.trim().eq_ignore_ascii_case("ask") {
            return Some(ProvenanceMode::Ask);
        }
        Mode::parse(s).map(Self::from_shared)
    }
}

/// Where quotes may come from.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Search {
    /// This session (and the sessions it was compressed from).
    Session,
    /// Every retained message in the profile, after this session.
    Profile,
}

/// Which claims need a quote.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// Decision claims only.
    Decisions,
    /// Decisions and preferences ("prefers / likes / 喜欢 / 偏好").
    DecisionsAndPreferences,
}

/// The provenance gate's configuration.
///
/// ```
/// use palisade_hermes::{config::{ProvenanceConfig, ProvenanceMode, Search}, Env};
/// let c = ProvenanceConfig::from_env(&Env::from_pairs([
///     ("PROVENANCE_GATE_MODE", "blcok"), ("HERMES_GUARD_MODE", "act"),
///     ("PROVENANCE_GATE_SEARCH", "profile"), ("PROVENANCE_GATE_RETENTION_DAYS", "-3"),
/// ]));
/// assert_eq!(c.mode, ProvenanceMode::Block); // misspelt own key falls through to the shared key
/// assert_eq!(c.search, Search::Profile);
/// assert_eq!(c.retention_days, 30);          // invalid → default, with a note
/// assert_eq!(c.notes.len(), 2);
/// ```
#[derive(Clone, Debug, Eq, PartialEq, Serialize)]
pub struct ProvenanceConfig {
    /// The resolved mode.
    pub mode: ProvenanceMode,
    /// Which source set it.
    pub mode_source: ModeSource,
    /// Quote search scope.
    pub search: Search,
    /// Claim scope.
    pub scope: Scope,
    /// Days of stored user text and evidence rows to keep.
    pub retention_days: u64,
    /// Why a setting was ignored.
    pub notes: Vec<String>,
}

impl ProvenanceConfig {
    /// Resolve from the environment snapshot.
    ///
    /// ```
    /// let c = palisade_hermes::config::ProvenanceConfig::from_env(&palisade_hermes::Env::default());
    /// assert_eq!(c.mode, palisade_hermes::config::ProvenanceMode::Observe);
    /// ```
    pub fn from_env(env: &Env) -> ProvenanceConfig {
        let mut notes = Vec::new();
        let resolved = resolve_mode(
            env.get("PROVENANCE_GATE_MODE"),
            env.get("HERMES_GUARD_MODE"),
            ProvenanceMode::Observe,
        );
        for (source, value) in &resolved.ignored {
            let key = match source {
                ModeSource::Own => "PROVENANCE_GATE_MODE",
                _ => "HERMES_GUARD_MODE",
            };
            if !value.trim().is_empty() {
                notes.push(format!("{key}={value:?} is not a recognised mode; ignored"));
            }
        }
        let search = match env
            .get("PROVENANCE_GATE_SEARCH")
            .map(|s| s.trim().to_ascii_lowercase())
        {
            None => Search::Session,
            Some(s) if s.is_empty() || s == "session" => Search::Session,
            Some(s) if s == "profile" => Search::Profile,
            Some(s) => {
                notes.push(format!(
                    "PROVENANCE_GATE_SEARCH={s:?} is not session|profile; using session"
                ));
                Search::Session
            }
        };
        let scope = match env
            .get("PROVENANCE_GATE_SCOPE")
            .map(|s| s.trim().to_ascii_lowercase())
        {
            None => Scope::Decisions,
            Some(s) if s.is_empty() || s == "decisions" => Scope::Decisions,
            Some(s) if s == "decisions+preferences" || s == "decisions,preferences" => {
                Scope::DecisionsAndPreferences
            }
            Some(s) => {
                notes.push(format!(
                    "PROVENANCE_GATE_SCOPE={s:?} is not decisions|decisions+preferences; using decisions"
                ));
                Scope::Decisions
            }
        };
        let retention_days = match env.get("PROVENANCE_GATE_RETENTION_DAYS").map(str::trim) {
            None | Some("") => 30,
            Some(s) => match s.parse::<u64>() {
                Ok(n) if n <= 36_500 => n,
                _ => {
                    notes.push(format!(
                        "PROVENANCE_GATE_RETENTION_DAYS={s:?} is not a number of days (0..=36500); using 30"
                    ));
                    30
                }
            },
        };
        ProvenanceConfig {
            mode: resolved.mode,
            mode_source: resolved.source,
            search,
            scope,
            retention_days,
            notes,
        }
    }
}

/// The retention of a JSONL log whose age limit is the environment
/// variable `key` (days, `0..=36500`, default 30, as
/// `PROVENANCE_GATE_RETENTION_DAYS`); the size cap is
/// [`crate::storage::jsonl::DEFAULT_MAX_LOG_BYTES`]. An invalid value keeps
/// the default and says why in the returned note.
///
/// ```
/// use palisade_hermes::{config::log_retention, Env};
/// let env = Env::from_pairs([("EGRESS_GUARD_RETENTION_DAYS", "7"), ("TURN_CLOSURE_AUDIT_RETENTION_DAYS", "-1")]);
/// assert_eq!(log_retention(&env, "EGRESS_GUARD_RETENTION_DAYS").0.days, 7);
/// let (r, note) = log_retention(&env, "TURN_CLOSURE_AUDIT_RETENTION_DAYS");
/// assert_eq!(r.days, 30);
/// assert!(note.unwrap().contains("using 30"));
/// ```
pub fn log_retention(env: &Env, key: &str) -> (crate::storage::jsonl::Retention, Option<String>) {
    let mut retention = crate::storage::jsonl::Retention::default();
    let mut note = None;
    match env.get(key).map(str::trim) {
        None | Some("") => {}
        Some(s) => match s.parse::<u64>() {
            Ok(n) if n <= 36_500 => retention.days = n,
            _ => {
                note = Some(format!(
                    "{key}={s:?} is not a number of days (0..=36500); using 30"
                ))
            }
        },
    }
    (retention, note)
}

/// Where the egress policy came from.
#[derive(Clone, Debug, Eq, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PolicySource {
    /// The file named by `EGRESS_GUARD_POLICY`.
    Env(PathBuf),
    /// `$HERMES_HOME/egress-guard.yaml`.
    Home(PathBuf),
    /// `~/.hermes/egress-guard.yaml` (the seed's path), looked up after the
    /// profile's own home when that is somewhere else.
    User(PathBuf),
    /// No file (or an invalid one): the built-in defaults.
    Builtin,
}

/// The egress guard's raw configuration: the policy document as JSON, before
/// the egress crate validates it.
///
/// ```
/// use palisade_hermes::{config::{EgressConfig, PolicySource}, Env};
/// let home = tempfile::tempdir().unwrap();
/// std::fs::write(home.path().join("egress-guard.yaml"), "preset: dev\n").unwrap();
/// let c = EgressConfig::load(&Env::default(), home.path());
/// assert!(matches!(c.source, PolicySource::Home(_)));
/// assert_eq!(c.document["preset"], "dev");
///
/// std::fs::write(home.path().join("egress-guard.yaml"), "rules: [unclosed").unwrap();
/// let c = EgressConfig::load(&Env::default(), home.path());
/// assert_eq!(c.source, PolicySource::Builtin);   // invalid → defaults, never off
/// assert!(c.notes[0].contains("egress-guard.yaml"));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EgressConfig {
    /// Where the document came from.
    pub source: PolicySource,
    /// The policy document (`{}` for the built-in defaults).
    pub document: Value,
    /// `HERMES_GUARD_MODE=observe`: record findings, change nothing.
    pub observe: bool,
    /// Why a file or setting was ignored.
    pub notes: Vec<String>,
}

impl EgressConfig {
    /// The policy files this config depends on, for change detection.
    ///
    /// ```
    /// let files = palisade_hermes::config::EgressConfig::files(&palisade_hermes::Env::default(), std::path::Path::new("/h"));
    /// assert_eq!(files.len(), 1);
    /// ```
    pub fn files(env: &Env, home: &Path) -> Vec<PathBuf> {
        let mut files = Vec::new();
        if let Some(p) = env
            .get("EGRESS_GUARD_POLICY")
            .filter(|p| !p.trim().is_empty())
        {
            files.push(PathBuf::from(p));
        }
        files.push(home.join("egress-guard.yaml"));
        if let Some(user) = user_policy(env, home) {
            files.push(user);
        }
        files
    }

    /// The file the policy was read from, or `None` for the built-in
    /// defaults.
    ///
    /// ```
    /// let c = palisade_hermes::config::EgressConfig::load(&palisade_hermes::Env::default(), std::path::Path::new("/nonexistent"));
    /// assert_eq!(c.file(), None);
    /// ```
    pub fn file(&self) -> Option<&Path> {
        match &self.source {
            PolicySource::Env(p) | PolicySource::Home(p) | PolicySource::User(p) => Some(p),
            PolicySource::Builtin => None,
        }
    }

    /// Look the policy up in order and parse it.
    ///
    /// ```
    /// let c = palisade_hermes::config::EgressConfig::load(&palisade_hermes::Env::default(), std::path::Path::new("/nonexistent"));
    /// assert_eq!(c.source, palisade_hermes::config::PolicySource::Builtin);
    /// assert!(c.notes.is_empty());
    /// ```
    pub fn load(env: &Env, home: &Path) -> EgressConfig {
        let mut notes = Vec::new();
        let observe = env
            .get("HERMES_GUARD_MODE")
            .and_then(Mode::parse)
            .is_some_and(|m| m == Mode::Observe);
        let mut candidates = Vec::new();
        if let Some(p) = env
            .get("EGRESS_GUARD_POLICY")
            .filter(|p| !p.trim().is_empty())
        {
            candidates.push(PolicySource::Env(PathBuf::from(p)));
        }
        candidates.push(PolicySource::Home(home.join("egress-guard.yaml")));
        if let Some(user) = user_policy(env, home) {
            candidates.push(PolicySource::User(user));
        }
        for candidate in candidates {
            let path = match &candidate {
                PolicySource::Env(p) | PolicySource::Home(p) | PolicySource::User(p) => p.clone(),
                PolicySource::Builtin => continue,
            };
            let text = match std::fs::read_to_string(&path) {
                Ok(t) => t,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    if matches!(candidate, PolicySource::Env(_)) {
                        notes.push(format!(
                            "EGRESS_GUARD_POLICY names {} which does not exist; looking further",
                            path.display()
                        ));
                    }
                    continue;
                }
                Err(e) => {
                    notes.push(format!(
                        "cannot read policy {}: {e}; using built-in defaults",
                        path.display()
                    ));
                    return EgressConfig::builtin(observe, notes);
                }
            };
            return match parse_yaml_document(&text) {
                Ok(document) => EgressConfig {
                    source: candidate,
                    document,
                    observe,
                    notes,
                },
                Err(e) => {
                    notes.push(format!(
                        "invalid policy {}: {e}; using built-in defaults",
                        path.display()
                    ));
                    EgressConfig::builtin(observe, notes)
                }
            };
        }
        EgressConfig::builtin(observe, notes)
    }

    fn builtin(observe: bool, notes: Vec<String>) -> EgressConfig {
        EgressConfig {
            source: PolicySource::Builtin,
            document: Value::Object(Default::default()),
            observe,
            notes,
        }
    }
}

/// `~/.hermes/egress-guard.yaml` when `$HOME` is set and the profile's home
/// is not `~/.hermes` itself.
fn user_policy(env: &Env, home: &Path) -> Option<PathBuf> {
    let user_home = env.get("HOME").filter(|h| !h.trim().is_empty())?;
    let seed_home = Path::new(user_home).join(".hermes");
    // Compared as written (no filesystem call on the hook path): a home
    // reached through a symlink is at worst looked up twice.
    (seed_home != home).then(|| seed_home.join("egress-guard.yaml"))
}

/// Parse a YAML document into JSON. An empty or comment-only file is `{}`;
/// anything but a mapping is an error.
///
/// ```
/// use palisade_hermes::config::parse_yaml_document;
/// assert_eq!(parse_yaml_document("# only comments\n").unwrap(), serde_json::json!({}));
/// assert!(parse_yaml_document("- a list").is_err());
/// ```
pub fn parse_yaml_document(text: &str) -> Result<Value, String> {
    if text.len() > 1 << 20 {
        return Err("policy file larger than 1 MiB".to_owned());
    }
    let value: Value = serde_norway::from_str(text).map_err(|e| e.to_string())?;
    match value {
        Value::Null => Ok(Value::Object(Default::default())),
        Value::Object(_) => Ok(value),
        _ => Err("the document must be a mapping".to_owned()),
    }
}

/// What happens to a quarantined message.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum QuarantineMode {
    /// Held messages are blocked; the user re-sends by hand.
    BlockAndManualResend,
    /// As above, and `clean_copy` offers a cleaned copy.
    CleanedResend,
}

/// The injection guard's configuration.
///
/// ```
/// use palisade_hermes::{config::InjectionConfig, Env};
/// let home = tempfile::tempdir().unwrap();
/// std::fs::write(home.path().join("config.yaml"),
///     "plugins:\n  entries:\n    hermes-guard:\n      settings:\n        callid_race_window_s: 3\n        fail_closed_on_error: maybe\n").unwrap();
/// let c = InjectionConfig::load(&Env::default(), home.path());
/// assert_eq!(c.callid_race_window_s, 3);
/// assert!(c.fail_closed_on_error);          // invalid → the safe default
/// assert_eq!(c.notes.len(), 1);
/// ```
#[derive(Clone, Debug, Eq, PartialEq, Serialize)]
pub struct InjectionConfig {
    /// Block the turn when a detector fails (default true).
    pub fail_closed_on_error: bool,
    /// What happens to held messages.
    pub quarantine_mode: QuarantineMode,
    /// Identical tool calls within this many seconds are a replay (default 10).
    pub callid_race_window_s: u64,
    /// Minutes a flagged session stays tainted (default 60).
    pub taint_ttl_minutes: u64,
    /// Mask secrets before anything is persisted (default true).
    pub redact_secrets: bool,
    /// `HERMES_GUARD_MODE`: observe records and never blocks.
    pub mode: Mode,
    /// Why a setting was ignored.
    pub notes: Vec<String>,
}

impl Default for InjectionConfig {
    fn default() -> Self {
        InjectionConfig {
            fail_closed_on_error: true,
            quarantine_mode: QuarantineMode::BlockAndManualResend,
            callid_race_window_s: 10,
            taint_ttl_minutes: 60,
            redact_secrets: true,
            mode: Mode::Act,
            notes: Vec::new(),
        }
    }
}

impl InjectionConfig {
    /// Read `$HERMES_HOME/config.yaml` and the shared mode key.
    ///
    /// ```
    /// let c = palisade_hermes::config::InjectionConfig::load(&palisade_hermes::Env::default(), std::path::Path::new("/nonexistent"));
    /// assert!(c.fail_closed_on_error && c.redact_secrets);
    /// ```
    pub fn load(env: &Env, home: &Path) -> InjectionConfig {
        let mut c = InjectionConfig::default();
        let resolved = resolve_mode::<Mode>(None, env.get("HERMES_GUARD_MODE"), Mode::Act);
        c.mode = resolved.mode;
        for (_, v) in resolved.ignored {
            if !v.trim().is_empty() {
                c.notes.push(format!(
                    "HERMES_GUARD_MODE={v:?} is not observe|act; ignored"
                ));
            }
        }
        let path = home.join("config.yaml");
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return c,
            Err(e) => {
                c.notes.push(format!(
                    "cannot read {}: {e}; using defaults",
                    path.display()
                ));
                return c;
            }
        };
        let doc = match parse_yaml_document(&text) {
            Ok(d) => d,
            Err(e) => {
                c.notes
                    .push(format!("invalid {}: {e}; using defaults", path.display()));
                return c;
            }
        };
        let entry = &doc["plugins"]["entries"]["hermes-guard"];
        let settings = if entry.get("settings").is_some_and(Value::is_object) {
            &entry["settings"]
        } else {
            entry
        };
        let Some(settings) = settings.as_object() else {
            return c;
        };
        let bool_setting = |key: &str, slot: &mut bool, notes: &mut Vec<String>| {
            if let Some(v) = settings.get(key) {
                match v {
                    Value::Bool(b) => *slot = *b,
                    other => notes.push(format!("{key}={other} is not true|false; using {slot}")),
                }
            }
        };
        bool_setting(
            "fail_closed_on_error",
            &mut c.fail_closed_on_error,
            &mut c.notes,
        );
        bool_setting("redact_secrets", &mut c.redact_secrets, &mut c.notes);
        let num_setting = |key: &str, max: u64, slot: &mut u64, notes: &mut Vec<String>| {
            if let Some(v) = settings.get(key) {
                match v.as_u64() {
                    Some(n) if n <= max => *slot = n,
                    _ => notes.push(format!(
                        "{key}={v} is not a whole number in 0..={max}; using {slot}"
                    )),
                }
            }
        };
        num_setting(
            "callid_race_window_s",
            3600,
            &mut c.callid_race_window_s,
            &mut c.notes,
        );
        num_setting(
            "taint_ttl_minutes",
            10_080,
            &mut c.taint_ttl_minutes,
            &mut c.notes,
        );
        if let Some(v) = settings.get("quarantine_mode") {
            match v.as_str() {
                Some("block_and_manual_resend") => c.quarantine_mode = QuarantineMode::BlockAndManualResend,
                Some("cleaned_resend") => c.quarantine_mode = QuarantineMode::CleanedResend,
                _ => c.notes.push(format!(
                    "quarantine_mode={v} is not block_and_manual_resend|cleaned_resend; using block_and_manual_resend"
                )),
            }
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provenance_precedence() {
        let cases: &[(&[(&str, &str)], ProvenanceMode)] = &[
            (&[], ProvenanceMode::Observe),
            (&[("HERMES_GUARD_MODE", "act")], ProvenanceMode::Block),
            (&[("HERMES_GUARD_MODE", "ask")], ProvenanceMode::Ask),
            (
                &[
                    ("PROVENANCE_GATE_MODE", "act"),
                    ("HERMES_GUARD_MODE", "observe"),
                ],
                ProvenanceMode::Observe,
            ),
            (
                &[
                    ("PROVENANCE_GATE_MODE", "ask"),
                    ("HERMES_GUARD_MODE", "act"),
                ],
                ProvenanceMode::Ask,
            ),
            (
                &[("PROVENANCE_GATE_MODE", ""), ("HERMES_GUARD_MODE", "off")],
                ProvenanceMode::Observe,
            ),
            (&[("PROVENANCE_GATE_MODE", "BLOCK")], ProvenanceMode::Block),
        ];
        for (pairs, want) in cases {
            let c = ProvenanceConfig::from_env(&Env::from_pairs(pairs.iter().copied()));
            assert_eq!(c.mode, *want, "{pairs:?}");
        }
    }

    #[test]
    fn egress_lookup_order() {
        let home = tempfile::tempdir().unwrap();
        let other = home.path().join("other.yaml");
        std::fs::write(&other, "preset: research-data\n").unwrap();
        std::fs::write(home.path().join("egress-guard.yaml"), "preset: dev\n").unwrap();
        let env = Env::from_pairs([("EGRESS_GUARD_POLICY", other.to_str().unwrap())]);
        let c = EgressConfig::load(&env, home.path());
        assert_eq!(c.document["preset"], "research-data");
        // A missing env file falls through to the home file, with a note.
        let env = Env::from_pairs([("EGRESS_GUARD_POLICY", "/nonexistent.yaml")]);
        let c = EgressConfig::load(&env, home.path());
        assert_eq!(c.document["preset"], "dev");
        assert_eq!(c.notes.len(), 1);
        // Comment-only file = defaults from that file.
        std::fs::write(home.path().join("egress-guard.yaml"), "# examples\n").unwrap();
        let c = EgressConfig::load(&Env::default(), home.path());
        assert_eq!(c.document, serde_json::json!({}));
    }

    #[test]
    fn injection_bad_values_keep_safe_defaults() {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(
            home.path().join("config.yaml"),
            "plugins:\n  entries:\n    hermes-guard:\n      redact_secrets: \"no\"\n      taint_ttl_minutes: -5\n      quarantine_mode: yolo\n",
        )
        .unwrap();
        let c = InjectionConfig::load(
            &Env::from_pairs([("HERMES_GUARD_MODE", "nope")]),
            home.path(),
        );
        assert!(c.redact_secrets);
        assert_eq!(c.taint_ttl_minutes, 60);
        assert_eq!(c.quarantine_mode, QuarantineMode::BlockAndManualResend);
        assert_eq!(c.mode, Mode::Act);
        assert_eq!(c.notes.len(), 4);
    }
}
