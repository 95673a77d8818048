//! Retention-write detection: did a tool call durably retain something?
//!
//! Five tools can retain: `memory`, `hindsight_retain`, `skill_manage`,
//! `write_file` and `patch`. A call counts only when its result shows success,
//! and a file write only when its path, after lexical normalization and
//! resolution against the tool's working directory, lies under `knowledge/`,
//! `memory/` or `memories/` of the agent home. Removing memory is a deletion
//! event, never a retention.
//!
//! # Untrusted input
//! Arguments and results are arbitrary JSON. Strings that look like JSON are
//! parsed only up to [`MAX_PARSE_BYTES`]; patch text is scanned line by line up
//! to [`MAX_PATCH_LINES`]; paths longer than [`MAX_PATH_BYTES`] are refused.
//! Nothing here panics or errors.

use crate::redact;
use serde_json::{Map, Value};

/// Strings longer than this are not parsed as JSON.
pub const MAX_PARSE_BYTES: usize = 1 << 20;
/// At most this many patch lines are scanned for file headers.
pub const MAX_PATCH_LINES: usize = 100_000;
/// Paths longer than this are never retention paths.
pub const MAX_PATH_BYTES: usize = 4096;

/// One tool call and its result, as the host saw it.
///
/// ```
/// use palisade_closure::detect::ToolCall;
/// use serde_json::json;
/// let call = ToolCall::new("memory", json!({"action":"add","content":"x"}), json!({"success":true}));
/// assert_eq!(call.name, "memory");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    /// Tool name as the host registered it.
    pub name: String,
    /// Arguments: a JSON object, or a string holding one.
    pub args: Value,
    /// The tool's result: an object, a string (maybe holding JSON), or null.
    pub result: Value,
    /// The working directory the tool ran in, when the host knows it.
    pub cwd: Option<String>,
}

impl ToolCall {
    /// A call without a known working directory.
    ///
    /// ```
    /// use palisade_closure::detect::ToolCall;
    /// let c = ToolCall::new("write_file", serde_json::json!({"path":"memory/a.md"}), "ok".into());
    /// assert!(c.cwd.is_none());
    /// ```
    pub fn new(name: impl Into<String>, args: Value, result: Value) -> ToolCall {
        ToolCall {
            name: name.into(),
            args,
            result,
            cwd: None,
        }
    }

    /// The same call with a working directory.
    ///
    /// ```
    /// use palisade_closure::detect::ToolCall;
    /// let c = ToolCall::new("patch", serde_json::json!({}), "ok".into()).with_cwd("/repo");
    /// assert_eq!(c.cwd.as_deref(), Some("/repo"));
    /// ```
    pub fn with_cwd(mut self, cwd: impl Into<String>) -> ToolCall {
        self.cwd = Some(cwd.into());
        self
    }
}

/// Whether a tool result shows success.
#[derive(Clone, Debug, Eq, PartialEq)]
pub enum Outcome {
    /// The result positively or plausibly shows success.
    Succeeded,
    /// The result shows failure; the string says which signal.
    Failed(String),
    /// No result to judge (null or empty): not counted as a write.
    Unknown,
}

/// How path prefixes compare.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub enum PathCase {
    /// `Memory/` is not `memory/` (POSIX file systems).
    #[default]
    Sensitive,
    /// ASCII case is ignored (case-insensitive file systems).
    Insensitive,
}

/// Where retention lives. The agent home is given by the caller; resolving
/// symlinks is the caller's job (pass canonical paths).
///
/// ```
/// use palisade_closure::detect::RetentionPolicy;
/// let p = RetentionPolicy::with_home("/home/u/.hermes");
/// assert_eq!(p.retention_path("/home/u/.hermes/memory/x.md", None).as_deref(), Some("memory/x.md"));
/// assert_eq!(p.retention_path("memory/notes.md", Some("/repo")), None);
/// ```
#[derive(Clone, Debug, Default, Eq, PartialEq)]
pub struct RetentionPolicy {
    /// The agent home (`HERMES_HOME`). When absent, an absolute path is
    /// judged by its first `.hermes` component, the default home's name.
    pub home: Option<String>,
    /// How prefixes compare.
    pub case: PathCase,
}

/// What a write did.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Effect {
    /// Something was added or changed in retention.
    Retain,
    /// Something was removed from retention.
    Delete,
}

/// Which family of tool wrote.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum WriteKind {
    /// The `memory` tool.
    Memory,
    /// The `hindsight_retain` tool.
    HindsightRetain,
    /// The `skill_manage` tool.
    SkillManage,
    /// `write_file` or `patch` on a retention path.
    KnowledgeWrite,
}

impl WriteKind {
    /// The seed's name for the kind.
    ///
    /// ```
    /// use palisade_closure::detect::WriteKind;
    /// assert_eq!(WriteKind::KnowledgeWrite.as_str(), "knowledge_write");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            WriteKind::Memory => "memory",
            WriteKind::HindsightRetain => "hindsight_retain",
            WriteKind::SkillManage => "skill_manage",
            WriteKind::KnowledgeWrite => "knowledge_write",
        }
    }
}

/// A detected retention write or deletion.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct WriteEvent {
    /// Tool family.
    pub kind: WriteKind,
    /// The tool name as called.
    pub tool: String,
    /// Retain or delete.
    pub effect: Effect,
    /// The tool's action argument, when it has one.
    pub action: Option<String>,
    /// The memory target or skill name, when given.
    pub target: Option<String>,
    /// Retention paths (home-relative, normalized) touched by a file write.
    pub paths: Vec<String>,
    /// Retention paths deleted by a patch that also retained others.
    pub deleted_paths: Vec<String>,
    /// A redacted preview of the written content (160 characters).
    pub content_preview: Option<String>,
}

impl WriteEvent {
    fn new(kind: WriteKind, tool: &str, effect: Effect) -> WriteEvent {
        WriteEvent {
            kind,
            tool: tool.to_owned(),
            effect,
            action: None,
            target: None,
            paths: Vec::new(),
            deleted_paths: Vec::new(),
            content_preview: None,
        }
    }

    /// What the write touched, for reports: the paths, else the target, else
    /// the kind.
    ///
    /// ```
    /// use palisade_closure::detect::{detect_write, RetentionPolicy, ToolCall};
    /// let call = ToolCall::new("memory", serde_json::json!({"action":"add","target":"user","content":"tea"}), "ok".into());
    /// let ev = detect_write(&call, &RetentionPolicy::default()).unwrap();
    /// assert_eq!(ev.targets(), vec!["user".to_string()]);
    /// ```
    pub fn targets(&self) -> Vec<String> {
        if !self.paths.is_empty() {
            return self.paths.clone();
        }
        match &self.target {
            Some(t) if !t.is_empty() => vec![t.clone()],
            _ => vec![self.kind.as_str().to_owned()],
        }
    }
}

/// The retention-write rule: what a call to `tool` with `action` does to
/// retention, before its result and path are looked at.
///
/// | tool | action | effect |
/// |---|---|---|
/// | `memory` | `add`, `replace`, `update`, `append`, `set`, `create` | [`Effect::Retain`] |
/// | `memory` | `remove`, `delete` | [`Effect::Delete`] |
/// | `skill_manage` | `create`, `edit`, `patch`, `update`, `write_file` | [`Effect::Retain`] |
/// | `skill_manage` | `delete`, `remove_file` | [`Effect::Delete`] |
/// | `hindsight_retain` | any | [`Effect::Retain`] |
/// | `write_file`, `patch` | any | [`Effect::Retain`] when the path is a retention path ([`RetentionPolicy::retention_path`]); a patch that only deletes files is [`Effect::Delete`] |
/// | anything else | | `None` |
///
/// A deletion never counts as retention. Actions compare trimmed and in any
/// case.
///
/// ```
/// use palisade_closure::detect::{retention_effect, Effect};
/// assert_eq!(retention_effect("memory", Some("Add")), Some(Effect::Retain));
/// assert_eq!(retention_effect("skill_manage", Some("delete")), Some(Effect::Delete));
/// assert_eq!(retention_effect("memory", Some("read")), None);
/// assert_eq!(retention_effect("hindsight_retain", None), Some(Effect::Retain));
/// assert_eq!(retention_effect("terminal", None), None);
/// ```
pub fn retention_effect(tool: &str, action: Option<&str>) -> Option<Effect> {
    let action = action.map(|a| a.trim().to_ascii_lowercase());
    let action = action.as_deref();
    match tool.trim() {
        "memory" => match action? {
            "add" | "replace" | "update" | "append" | "set" | "create" => Some(Effect::Retain),
            "remove" | "delete" => Some(Effect::Delete),
            _ => None,
        },
        "skill_manage" => match action? {
            "create" | "patch" | "edit" | "write_file" | "update" => Some(Effect::Retain),
            "delete" | "remove_file" => Some(Effect::Delete),
            _ => None,
        },
        "hindsight_retain" | "write_file" | "patch" => Some(Effect::Retain),
        _ => None,
    }
}

/// Detect a retention write (or deletion) in one tool call: the
/// retention-write rule ([`retention_effect`]), a result that shows success
/// ([`call_outcome`]) and, for file writes, a path inside the home's
/// `knowledge/`, `memory/` or `memories/` ([`RetentionPolicy::retention_path`]).
///
/// ```
/// use palisade_closure::detect::{detect_write, Effect, RetentionPolicy, ToolCall};
/// use serde_json::json;
/// let policy = RetentionPolicy::default();
/// let ok = ToolCall::new("write_file", json!({"path":"knowledge/a.md","content":"x"}), json!({"success":true}));
/// assert_eq!(detect_write(&ok, &policy).unwrap().paths, vec!["knowledge/a.md"]);
/// let failed = ToolCall::new("write_file", json!({"path":"knowledge/a.md"}), json!("Error: disk full"));
/// assert!(detect_write(&failed, &policy).is_none());
/// let removed = ToolCall::new("memory", json!({"action":"remove","target":"user"}), json!({"success":true}));
/// assert_eq!(detect_write(&removed, &policy).unwrap().effect, Effect::Delete);
/// ```
pub fn detect_write(call: &ToolCall, policy: &RetentionPolicy) -> Option<WriteEvent> {
    let name = call.name.trim();
    if !matches!(
        name,
        "memory" | "hindsight_retain" | "skill_manage" | "write_file" | "patch"
    ) {
        return None;
    }
    if call_outcome(&call.result) != Outcome::Succeeded {
        return None;
    }
    let empty = Map::new();
    let parsed = as_object(&call.args);
    let args = parsed.as_ref().unwrap_or(&empty);
    let cwd = call.cwd.as_deref();
    match name {
        "memory" => {
            let action = str_arg(args, &["action"])?.trim().to_ascii_lowercase();
            let effect = retention_effect(name, Some(&action))?;
            let mut ev = WriteEvent::new(WriteKind::Memory, name, effect);
            ev.action = Some(action);
            ev.target = str_arg(args, &["target"]).map(str::to_owned);
            ev.content_preview = args.get("content").map(|c| redact::preview(c, 160));
            Some(ev)
        }
        "hindsight_retain" => {
            let mut ev = WriteEvent::new(WriteKind::HindsightRetain, name, Effect::Retain);
            ev.content_preview = args.get("content").map(|c| redact::preview(c, 160));
            Some(ev)
        }
        "skill_manage" => {
            let action = str_arg(args, &["action"])?.trim().to_ascii_lowercase();
            let effect = retention_effect(name, Some(&action))?;
            let mut ev = WriteEvent::new(WriteKind::SkillManage, name, effect);
            ev.action = Some(action);
            ev.target = str_arg(args, &["name"]).map(str::to_owned);
            Some(ev)
        }
        "write_file" => {
            let raw = str_arg(args, &["path", "file_path", "filename"])?;
            let path = policy.retention_path(raw, cwd)?;
            let mut ev = WriteEvent::new(WriteKind::KnowledgeWrite, name, Effect::Retain);
            ev.paths = vec![path];
            Some(ev)
        }
        _ => {
            // patch
            let mode = str_arg(args, &["mode"])
                .map(|m| m.trim().to_ascii_lowercase())
                .unwrap_or_else(|| "replace".to_owned());
            let mut ev = WriteEvent::new(WriteKind::KnowledgeWrite, name, Effect::Retain);
            ev.action = Some(mode.clone());
            if mode == "patch" {
                let text = str_arg(args, &["patch", "content", "diff"])?;
                let (kept, deleted) = patch_paths(text, cwd, policy);
                if kept.is_empty() && deleted.is_empty() {
                    return None;
                }
                if kept.is_empty() {
                    ev.effect = Effect::Delete;
                    ev.paths = deleted;
                } else {
                    ev.paths = kept;
                    ev.deleted_paths = deleted;
                }
            } else {
                let raw = str_arg(args, &["path", "file_path"])?;
                ev.paths = vec![policy.retention_path(raw, cwd)?];
            }
            Some(ev)
        }
    }
}

/// The write-success rule: judge a tool result.
///
/// | result | outcome |
/// |---|---|
/// | `null`, blank text | [`Outcome::Unknown`] (a cancelled call: never a write) |
/// | `true` / `false` | succeeded / failed |
/// | text holding a JSON object (compact or pretty-printed) | judged as that object |
/// | other text beginning with an error word — `Error`, `Failed`, `Traceback`, `Permission denied`, 错误, 失败 … in any case | failed |
/// | other text | succeeded (a plain confirmation such as `Entry replaced in MEMORY.md`) |
/// | object with `success` / `ok` / `succeeded` | that flag decides, whatever else the object carries |
/// | object without such a flag | failed when `error` is truthy, `errors` is non-empty, an exit code is non-zero (number or numeric string) or `status` names a failure; else succeeded |
///
/// ```
/// use palisade_closure::detect::{call_outcome, Outcome};
/// use serde_json::json;
/// assert_eq!(call_outcome(&json!({"success": true})), Outcome::Succeeded);
/// assert_eq!(call_outcome(&json!({"success": true, "error": "near capacity"})), Outcome::Succeeded);
/// assert!(matches!(call_outcome(&json!({"error": "rate limited"})), Outcome::Failed(_)));
/// assert_eq!(call_outcome(&json!("done")), Outcome::Succeeded);
/// assert!(matches!(call_outcome(&json!({"success": 0})), Outcome::Failed(_)));
/// assert!(matches!(call_outcome(&json!("{\n  \"success\": false\n}")), Outcome::Failed(_)));
/// assert!(matches!(call_outcome(&json!("{\"exit_code\": \"1\"}")), Outcome::Failed(_)));
/// assert!(matches!(call_outcome(&json!("ERROR: timeout")), Outcome::Failed(_)));
/// assert_eq!(call_outcome(&json!(null)), Outcome::Unknown);
/// ```
pub fn call_outcome(result: &Value) -> Outcome {
    match result {
        Value::Null => Outcome::Unknown,
        Value::Bool(true) => Outcome::Succeeded,
        Value::Bool(false) => Outcome::Failed("result is false".into()),
        Value::Object(map) => object_outcome(map),
        Value::String(s) => {
            let t = s.trim();
            if t.is_empty() {
                return Outcome::Unknown;
            }
            if let Some(map) = parse_object(t) {
                return object_outcome(&map);
            }
            text_outcome(t)
        }
        Value::Number(_) | Value::Array(_) => Outcome::Unknown,
    }
}

/// Error words that open a failed result's text.
const ERROR_OPENERS: &[&str] = &[
    "error",
    "err:",
    "failed",
    "failure",
    "fatal",
    "exception",
    "traceback",
    "permission denied",
    "access denied",
    "no such file",
    "could not",
    "couldn't",
    "cannot",
    "can't",
    "unable to",
    "not found",
    "denied",
    "refused",
    "invalid",
    "fail",
    "timeout",
    "timed out",
    "rejected",
    "unauthorized",
    "forbidden",
    "aborted",
    // The same in the other languages the closure cues read.
    "fehler",
    "fehlgeschlagen",
    "erreur",
    "échec",
    "echec",
    "falha",
    "fallo",
    "erro",
];

/// Words that report a failure among the first words of a result text
/// ("Memory full: remove an entry first", "Hindsight unavailable").
const FAILURE_WORDS: &[&str] = &[
    "full",
    "failed",
    "failure",
    "error",
    "disabled",
    "unavailable",
    "rejected",
    "denied",
    "refused",
    "timeout",
    "exceeded",
    "exceeds",
    "forbidden",
    "unauthorized",
];
/// Past participles that "not" turns into a failure ("Entry not added").
const NOT_DONE: &[&str] = &[
    "saved",
    "added",
    "stored",
    "written",
    "updated",
    "created",
    "replaced",
    "found",
    "allowed",
    "permitted",
    "applied",
    "patched",
];

/// The failure word among the first five words of `head` (lower case), or
/// "not <done>" among its first six.
fn failure_lead_in(head: &str) -> Option<&'static str> {
    let words: Vec<&str> = head
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .take(6)
        .collect();
    for (i, w) in words.iter().enumerate().take(5) {
        // "no error", "without failure", "0 failed" report success.
        let cleared = i > 0
            && words
                .get(i - 1)
                .is_some_and(|p| matches!(*p, "no" | "without" | "0" | "zero" | "never"));
        if let Some(f) = FAILURE_WORDS.iter().find(|f| *f == w) {
            if !cleared {
                return Some(f);
            }
        }
    }
    words.windows(2).find_map(|p| match p {
        ["not", done] => NOT_DONE.iter().find(|d| *d == done).map(|_| "not"),
        _ => None,
    })
}

/// Words that report a failure when they end a short lead-in with a colon:
/// "Write failed: disk full", "Hindsight error: bank not found".
const ERROR_LABELS: &[&str] = &[" failed:", " error:", " failed (", " failure:"];

fn text_outcome(t: &str) -> Outcome {
    // The first few words, for "<subject> failed: …" lead-ins.
    let head_words: String = t.chars().take(48).collect::<String>().to_lowercase();
    let head: String = t
        .trim_start_matches(['[', '(', '*', '!', '❌', '✗', ' '])
        .chars()
        .take(24)
        .collect::<String>()
        .to_lowercase();
    for opener in ERROR_OPENERS {
        if let Some(rest) = head.strip_prefix(opener) {
            // "errors: 0" or "failed: 0" are counters, not failures; "errorless" is a word.
            let next = rest.chars().next();
            if next.is_some_and(char::is_alphanumeric) && !opener.ends_with(':') {
                continue;
            }
            return Outcome::Failed(format!("result text starts with {opener:?}"));
        }
    }
    if ERROR_LABELS.iter().any(|l| head_words.contains(l)) {
        return Outcome::Failed("result text reports a failure in its lead-in".into());
    }
    if let Some(word) = failure_lead_in(&head_words) {
        return Outcome::Failed(format!("result text opens with {word:?}"));
    }
    for opener in [
        "错误",
        "失败",
        "异常",
        "出错",
        "报错",
        "无法",
        "拒绝",
        "エラー",
        "失敗",
    ] {
        if t.starts_with(opener) {
            return Outcome::Failed(format!("result text starts with {opener:?}"));
        }
    }
    Outcome::Succeeded
}

fn falsy(v: &Value) -> bool {
    match v {
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => matches!(s.trim().to_ascii_lowercase().as_str(), "false" | "0" | "no"),
        _ => false,
    }
}

fn truthy_error(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(s) => {
            let t = s.trim().to_ascii_lowercase();
            !(t.is_empty() || t == "null" || t == "none" || t == "false")
        }
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

fn object_outcome(map: &Map<String, Value>) -> Outcome {
    // An explicit success flag is the tool's own verdict: a warning or a
    // null `error` beside `"success": true` does not undo the write.
    for key in ["success", "ok", "succeeded"] {
        match map.get(key) {
            None | Some(Value::Null) => continue,
            Some(v) if falsy(v) => return Outcome::Failed(format!("{key} is false")),
            Some(_) => return Outcome::Succeeded,
        }
    }
    for key in ["error", "errors", "exception", "stderr_error"] {
        if map.get(key).is_some_and(truthy_error) {
            return Outcome::Failed(format!("{key} is set"));
        }
    }
    for key in ["exit_code", "returncode", "exit_status", "code"] {
        let code = match map.get(key) {
            Some(Value::Number(n)) => n.as_f64(),
            Some(Value::String(s)) if key != "code" => s.trim().parse::<f64>().ok(),
            Some(Value::Bool(true)) if key != "code" => Some(1.0),
            _ => None,
        };
        if code.is_some_and(|c| c != 0.0 && !(key == "code" && (200.0..300.0).contains(&c))) {
            return Outcome::Failed(format!("{key} is non-zero"));
        }
    }
    for s in ["status", "result", "state", "outcome"]
        .iter()
        .filter_map(|k| map.get(*k).and_then(Value::as_str))
    {
        let s = s.trim().to_ascii_lowercase();
        if matches!(
            s.as_str(),
            "error" | "failed" | "failure" | "fail" | "denied" | "rejected" | "aborted"
        ) {
            return Outcome::Failed(format!("status is {s:?}"));
        }
    }
    // Without a flag, the tool's own message speaks: {"message": "Error: …"}.
    for key in ["result", "message"] {
        if let Some(Value::String(t)) = map.get(key) {
            if let Outcome::Failed(why) = text_outcome(t.trim()) {
                return Outcome::Failed(format!("{key}: {why}"));
            }
        }
    }
    Outcome::Succeeded
}

/// The arguments as a map: an object as is, or a string holding a JSON object.
///
/// ```
/// use palisade_closure::detect::as_object;
/// use serde_json::json;
/// assert!(as_object(&json!("{\"path\":\"memory/x\"}")).is_some());
/// assert!(as_object(&json!("memory/x")).is_none());
/// ```
pub fn as_object(value: &Value) -> Option<Map<String, Value>> {
    match value {
        Value::Object(m) => Some(m.clone()),
        Value::String(s) => parse_object(s.trim()),
        _ => None,
    }
}

fn parse_object(t: &str) -> Option<Map<String, Value>> {
    if t.len() > MAX_PARSE_BYTES || !t.starts_with('{') || !t.ends_with('}') {
        return None;
    }
    match serde_json::from_str::<Value>(t) {
        Ok(Value::Object(m)) => Some(m),
        _ => None,
    }
}

fn str_arg<'a>(args: &'a Map<String, Value>, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str))
        .filter(|s| !s.trim().is_empty())
}

/// Retention paths named by a patch: (added/updated/moved-to, deleted).
/// Recognises `*** Add File:`, `*** Update File:`, `*** Delete File:`,
/// `*** Move to:` headers and unified-diff `+++ b/…` / `--- a/…` headers.
fn patch_paths(
    text: &str,
    cwd: Option<&str>,
    policy: &RetentionPolicy,
) -> (Vec<String>, Vec<String>) {
    let mut kept: Vec<String> = Vec::new();
    let mut deleted: Vec<String> = Vec::new();
    let mut last_minus: Option<&str> = None;
    for line in text.lines().take(MAX_PATCH_LINES) {
        let line = line.trim_end_matches('\r');
        let (raw, delete) = if let Some(r) = line.strip_prefix("*** Add File:") {
            (r, false)
        } else if let Some(r) = line.strip_prefix("*** Update File:") {
            (r, false)
        } else if let Some(r) = line.strip_prefix("*** Move to:") {
            (r, false)
        } else if let Some(r) = line.strip_prefix("*** Delete File:") {
            (r, true)
        } else if let Some(r) = line.strip_prefix("--- ") {
            last_minus = Some(r);
            continue;
        } else if let Some(r) = line.strip_prefix("+++ ") {
            let r = r.split('\t').next().unwrap_or(r).trim();
            if r == "/dev/null" {
                // A deletion: the old side names the file.
                if let Some(old) = last_minus.take() {
                    let old = old.split('\t').next().unwrap_or(old).trim();
                    let old = old.strip_prefix("a/").unwrap_or(old);
                    push_unique(&mut deleted, policy.retention_path(old, cwd));
                }
                continue;
            }
            (r.strip_prefix("b/").unwrap_or(r), false)
        } else {
            continue;
        };
        let path = policy.retention_path(raw.trim(), cwd);
        if delete {
            push_unique(&mut deleted, path);
        } else {
            push_unique(&mut kept, path);
        }
    }
    (kept, deleted)
}

fn push_unique(list: &mut Vec<String>, item: Option<String>) {
    if let Some(item) = item {
        if !list.contains(&item) {
            list.push(item);
        }
    }
}

/// Top-level folders whose contents are retention.
pub const RETENTION_DIRS: &[&str] = &["knowledge", "memory", "memories"];

impl RetentionPolicy {
    /// A policy with a known agent home.
    ///
    /// ```
    /// use palisade_closure::detect::RetentionPolicy;
    /// assert!(RetentionPolicy::with_home("/h").home.is_some());
    /// ```
    pub fn with_home(home: impl Into<String>) -> RetentionPolicy {
        RetentionPolicy {
            home: Some(home.into()),
            case: PathCase::Sensitive,
        }
    }

    /// The home-relative retention path `raw` denotes, or `None`.
    ///
    /// `raw` is normalized lexically (backslashes to slashes, `.` dropped,
    /// `..` applied); a relative path is resolved against `cwd` when given,
    /// else against the home; `$HERMES_HOME/` and `~/.hermes/` expand to the
    /// home. A relative path that climbs out of its base is refused. The
    /// result must be `knowledge/…`, `memory/…` or `memories/…` with at least
    /// one component after the folder.
    ///
    /// ```
    /// use palisade_closure::detect::RetentionPolicy;
    /// let p = RetentionPolicy::default();
    /// assert_eq!(p.retention_path("./memory/x", None).as_deref(), Some("memory/x"));
    /// assert_eq!(p.retention_path("src/../knowledge/x", None).as_deref(), Some("knowledge/x"));
    /// assert_eq!(p.retention_path("knowledge/../../etc/passwd", None), None);
    /// assert_eq!(p.retention_path("knowledgebase/x", None), None);
    /// assert_eq!(p.retention_path("memory", None), None);
    /// assert_eq!(p.retention_path("/etc/knowledge/x", None), None);
    /// ```
    pub fn retention_path(&self, raw: &str, cwd: Option<&str>) -> Option<String> {
        let raw = raw.trim();
        if raw.is_empty() || raw.len() > MAX_PATH_BYTES || raw.contains('\0') {
            return None;
        }
        let raw = raw.replace('\\', "/");
        let home = self.home.as_deref().map(|h| h.replace('\\', "/"));
        // Expand the home variable forms.
        let expanded = ["$HERMES_HOME/", "${HERMES_HOME}/"]
            .iter()
            .find_map(|var| raw.strip_prefix(var))
            .map(|rest| match &home {
                Some(h) => format!("{h}/{rest}"),
                None => rest.to_owned(),
            });
        let raw = expanded.unwrap_or(raw);
        let user_dir = home.as_deref().and_then(user_dir_of);
        let raw = expand_tilde(raw, user_dir.as_deref());
        let cwd = cwd.map(|c| expand_tilde(c.trim().replace('\\', "/"), user_dir.as_deref()));
        let cwd = cwd.as_deref();
        let rest: Vec<String> = if is_absolute(&raw) {
            self.home_relative(&normalize_abs(&raw), home.as_deref())?
        } else if let Some(cwd) = cwd
            .map(|c| c.trim().replace('\\', "/"))
            .filter(|c| !c.is_empty())
        {
            if is_absolute(&cwd) {
                let joined = format!("{cwd}/{raw}");
                self.home_relative(&normalize_abs(&joined), home.as_deref())?
            } else {
                normalize_rel(&format!("{cwd}/{raw}"))?
            }
        } else {
            normalize_rel(&raw)?
        };
        if rest.len() < 2 {
            return None;
        }
        let first = &rest[0];
        let hit = RETENTION_DIRS.iter().any(|d| match self.case {
            PathCase::Sensitive => first == d,
            PathCase::Insensitive => first.eq_ignore_ascii_case(d),
        });
        if !hit {
            return None;
        }
        let mut out = rest.join("/");
        if self.case == PathCase::Insensitive {
            let lower = first.to_ascii_lowercase();
            out.replace_range(..first.len(), &lower);
        }
        Some(out)
    }

    fn home_relative(&self, abs: &[String], home: Option<&str>) -> Option<Vec<String>> {
        match home {
            Some(h) => {
                let h = normalize_abs(h);
                if abs.len() < h.len() {
                    return None;
                }
                let same = abs.iter().zip(&h).all(|(a, b)| match self.case {
                    PathCase::Sensitive => a == b,
                    PathCase::Insensitive => a.eq_ignore_ascii_case(b),
                });
                same.then(|| abs[h.len()..].to_vec())
            }
            None => {
                let at = abs.iter().position(|c| match self.case {
                    PathCase::Sensitive => c == ".hermes",
                    PathCase::Insensitive => c.eq_ignore_ascii_case(".hermes"),
                })?;
                let rest = &abs[at + 1..];
                // A named profile is a home of its own:
                // `.hermes/profiles/<name>/knowledge/…`.
                match rest {
                    [p, _name, tail @ ..] if p == "profiles" => Some(tail.to_vec()),
                    _ => Some(rest.to_vec()),
                }
            }
        }
    }
}

/// The user's directory `~` stands for, read off an absolute home: the
/// part before its `.hermes` component (`/home/u/.hermes/profiles/w` →
/// `/home/u`), else `/home/<user>` or `/Users/<user>`.
fn user_dir_of(home: &str) -> Option<String> {
    if !home.starts_with('/') {
        return None;
    }
    let comps: Vec<&str> = home.split('/').filter(|c| !c.is_empty()).collect();
    let n = match comps.iter().position(|c| *c == ".hermes") {
        Some(i) => i,
        None if comps.len() >= 2 && matches!(comps.first(), Some(&"home") | Some(&"Users")) => 2,
        None => return None,
    };
    Some(format!("/{}", comps.get(..n)?.join("/")))
}

/// `~` or `~/…` with the user's directory when it is known.
fn expand_tilde(p: String, user_dir: Option<&str>) -> String {
    match user_dir {
        Some(dir) if p == "~" => dir.to_owned(),
        Some(dir) if p.starts_with("~/") => format!("{dir}{}", &p[1..]),
        _ => p,
    }
}

fn is_absolute(p: &str) -> bool {
    let b = p.as_bytes();
    p.starts_with('/')
        || p == "~"
        || p.starts_with("~/")
        || (b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':')
}

/// Components of an absolute path after applying `.` and `..` (`..` at the
/// root stays at the root, as POSIX does). A leading `~` or drive is kept as
/// the first component.
fn normalize_abs(p: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut floor = 0;
    for (i, comp) in p.split('/').enumerate() {
        if i == 0 && (comp == "~" || comp.ends_with(':')) {
            out.push(comp.to_owned());
            floor = 1;
            continue;
        }
        match comp {
            "" | "." => {}
            ".." => {
                if out.len() > floor {
                    out.pop();
                }
            }
            c => out.push(c.to_owned()),
        }
    }
    out
}

/// Components of a relative path, or `None` when `..` climbs out of it.
fn normalize_rel(p: &str) -> Option<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for comp in p.split('/') {
        match comp {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            c => out.push(c.to_owned()),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn home_and_cwd_resolution() {
        let p = RetentionPolicy::with_home("/home/u/.hermes");
        assert_eq!(
            p.retention_path("memory/x.md", Some("/home/u/.hermes"))
                .as_deref(),
            Some("memory/x.md")
        );
        assert_eq!(p.retention_path("memory/x.md", Some("/repo")), None);
        assert_eq!(
            p.retention_path("../.hermes/knowledge/a", Some("/home/u/proj"))
                .as_deref(),
            Some("knowledge/a")
        );
        assert_eq!(
            p.retention_path("$HERMES_HOME/knowledge/../src/x", None),
            None
        );
        assert_eq!(
            p.retention_path("$HERMES_HOME/knowledge/x", None)
                .as_deref(),
            Some("knowledge/x")
        );
        assert_eq!(p.retention_path("/home/u/.hermes/../memory/x", None), None);
        let ci = RetentionPolicy {
            home: None,
            case: PathCase::Insensitive,
        };
        assert_eq!(
            ci.retention_path("Memory/x", None).as_deref(),
            Some("memory/x")
        );
    }

    #[test]
    fn patch_headers() {
        let patch = "*** Begin Patch\n*** Update File: knowledge/review/foo.md\n@@\n-a\n+b\n*** Update File: src/app.py\n*** End Patch";
        let call = ToolCall::new(
            "patch",
            json!({"mode":"patch","patch":patch}),
            json!({"success":true}),
        );
        let ev = detect_write(&call, &RetentionPolicy::default()).unwrap();
        assert_eq!(ev.paths, vec!["knowledge/review/foo.md"]);
        let del = "*** Delete File: memory/old.md\n";
        let call = ToolCall::new(
            "patch",
            json!({"mode":"patch","patch":del}),
            json!({"success":true}),
        );
        assert_eq!(
            detect_write(&call, &RetentionPolicy::default())
                .unwrap()
                .effect,
            Effect::Delete
        );
        let diff = "--- a/memory/x.md\n+++ b/memory/x.md\n@@ -1 +1 @@\n-a\n+b\n";
        let call = ToolCall::new("patch", json!({"mode":"patch","patch":diff}), json!("ok"));
        assert_eq!(
            detect_write(&call, &RetentionPolicy::default())
                .unwrap()
                .paths,
            vec!["memory/x.md"]
        );
    }

    #[test]
    fn outcomes() {
        assert!(matches!(
            call_outcome(&json!({"ok": false})),
            Outcome::Failed(_)
        ));
        assert!(matches!(
            call_outcome(&json!({"error": "boom"})),
            Outcome::Failed(_)
        ));
        assert_eq!(call_outcome(&json!({"error": ""})), Outcome::Succeeded);
        assert!(matches!(
            call_outcome(&json!({"status": " Failed "})),
            Outcome::Failed(_)
        ));
        assert_eq!(call_outcome(&json!("Errorless run")), Outcome::Succeeded);
        assert!(matches!(
            call_outcome(&json!("错误：磁盘已满")),
            Outcome::Failed(_)
        ));
        assert_eq!(call_outcome(&json!("{not json}")), Outcome::Succeeded);
    }
}
