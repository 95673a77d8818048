//! The Hermes hook surface: typed payloads in, typed directives out.
//!
//! Hermes calls every callback as `cb(**kwargs)` and adds kwargs over time
//! (every call also carries `telemetry_schema_version`), so every payload
//! here ignores fields it does not know, accepts `null` where Hermes may send
//! `None`, and accepts a number where a string id is expected.
//!
//! The shapes follow `../shared/hermes/API.md` §3.2 (Hermes 0.19.0, verified
//! kwargs) plus the fields newer versions add (`parent_session_id`,
//! `sender_id`, `reason`).

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use std::fmt;

/// A hook the Palisade plugins register.
///
/// ```
/// use palisade_hermes::Hook;
/// assert_eq!(Hook::parse("pre_tool_call"), Some(Hook::PreToolCall));
/// assert_eq!(Hook::PreToolCall.name(), "pre_tool_call");
/// assert_eq!(Hook::parse("on_kanban_dispatch_tick"), None);
/// ```
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Hook {
    /// Once per user turn, before the first model call.
    PreLlmCall,
    /// Before each tool call; may block or send to the approval gate.
    PreToolCall,
    /// After each tool call; observer.
    PostToolCall,
    /// After a registry tool runs; a string return replaces the result.
    TransformToolResult,
    /// Once per turn on the final reply; a string return replaces it.
    TransformLlmOutput,
    /// Once per completed turn; observer.
    PostLlmCall,
    /// At the end of every `run_conversation` (really per turn); observer.
    OnSessionEnd,
}

impl Hook {
    /// Every hook, in the order Hermes fires them within a turn.
    pub const ALL: [Hook; 7] = [
        Hook::PreLlmCall,
        Hook::PreToolCall,
        Hook::PostToolCall,
        Hook::TransformToolResult,
        Hook::TransformLlmOutput,
        Hook::PostLlmCall,
        Hook::OnSessionEnd,
    ];

    /// The hook for a Hermes hook name.
    ///
    /// ```
    /// assert!(palisade_hermes::Hook::parse("post_llm_call").is_some());
    /// ```
    pub fn parse(name: &str) -> Option<Hook> {
        Hook::ALL.into_iter().find(|h| h.name() == name)
    }

    /// The Hermes hook name.
    ///
    /// ```
    /// assert_eq!(palisade_hermes::Hook::OnSessionEnd.name(), "on_session_end");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Hook::PreLlmCall => "pre_llm_call",
            Hook::PreToolCall => "pre_tool_call",
            Hook::PostToolCall => "post_tool_call",
            Hook::TransformToolResult => "transform_tool_result",
            Hook::TransformLlmOutput => "transform_llm_output",
            Hook::PostLlmCall => "post_llm_call",
            Hook::OnSessionEnd => "on_session_end",
        }
    }
}

impl fmt::Display for Hook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Deserialize an optional id or text: `null` → `None`, a number or bool →
/// its text, an object or array → its JSON.
fn lenient_string<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let v = Value::deserialize(d)?;
    Ok(match v {
        Value::Null => None,
        Value::String(s) => Some(s),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        other => Some(other.to_string()),
    })
}

/// Deserialize a bool that may arrive as `null`, a string or a number.
fn lenient_bool<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    let v = Value::deserialize(d)?;
    Ok(match v {
        Value::Bool(b) => b,
        Value::String(s) => matches!(s.trim().to_ascii_lowercase().as_str(), "true" | "1" | "yes"),
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        _ => false,
    })
}

/// Deserialize a list that may arrive as `null` or as something else.
fn lenient_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Value>, D::Error> {
    let v = Value::deserialize(d)?;
    Ok(match v {
        Value::Array(items) => items,
        _ => Vec::new(),
    })
}

/// Flatten a user message given as a string or as OpenAI content parts
/// (`[{"type":"text","text":…}, {"type":"image_url",…}]`) to its text.
///
/// ```
/// use palisade_hermes::hooks::message_text;
/// use serde_json::json;
/// assert_eq!(message_text(&json!("hi")), "hi");
/// let parts = json!([{"type":"text","text":"a"},{"type":"image_url"},{"type":"text","text":"b"}]);
/// assert_eq!(message_text(&parts), "a\nb");
/// ```
pub fn message_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter_map(|p| match p {
                    Value::String(s) => Some(s.as_str()),
                    Value::Object(o) => o.get("text").and_then(Value::as_str),
                    _ => None,
                })
                .collect();
            texts.join("\n")
        }
        Value::Object(o) => o
            .get("content")
            .map(message_text)
            .or_else(|| o.get("text").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_default(),
        _ => String::new(),
    }
}

/// Kwargs of `pre_llm_call`.
///
/// ```
/// use palisade_hermes::hooks::PreLlmCall;
/// let p: PreLlmCall = serde_json::from_str(
///     r#"{"session_id":"s1","user_message":"I decided we ship on Friday","is_first_turn":true,
///         "telemetry_schema_version":"hermes.observer.v1","brand_new_kwarg":1}"#).unwrap();
/// assert_eq!(p.user_text(), "I decided we ship on Friday");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PreLlmCall {
    /// Session id; empty when Hermes sends none.
    #[serde(default, deserialize_with = "lenient_string")]
    pub session_id: Option<String>,
    /// Task id.
    #[serde(default, deserialize_with = "lenient_string")]
    pub task_id: Option<String>,
    /// Turn id.
    #[serde(default, deserialize_with = "lenient_string")]
    pub turn_id: Option<String>,
    /// The turn's user message as Hermes built it: a string or content parts.
    #[serde(default)]
    pub user_message: Value,
    /// Earlier messages (a copy).
    #[serde(default, deserialize_with = "lenient_list")]
    pub conversation_history: Vec<Value>,
    /// First turn of the session.
    #[serde(default, deserialize_with = "lenient_bool")]
    pub is_first_turn: bool,
    /// Model name.
    #[serde(default, deserialize_with = "lenient_string")]
    pub model: Option<String>,
    /// `cli`, `telegram`, … and `curator`, `subagent`, `cron` for agents that are not the user.
    #[serde(default, deserialize_with = "lenient_string")]
    pub platform: Option<String>,
    /// The platform user who sent the message.
    #[serde(default, deserialize_with = "lenient_string")]
    pub sender_id: Option<String>,
    /// The previous session when context compression started this one (newer Hermes).
    #[serde(default, deserialize_with = "lenient_string")]
    pub parent_session_id: Option<String>,
}

impl PreLlmCall {
    /// The user message flattened to text.
    ///
    /// ```
    /// let p = palisade_hermes::hooks::PreLlmCall::default();
    /// assert_eq!(p.user_text(), "");
    /// ```
    pub fn user_text(&self) -> String {
        message_text(&self.user_message)
    }
}

/// Kwargs of `pre_tool_call`. `args` are raw: no schema coercion has run.
///
/// ```
/// use palisade_hermes::hooks::PreToolCall;
/// let p: PreToolCall = serde_json::from_str(
///     r#"{"tool_name":"memory","args":{"action":"add","content":"x"},"session_id":"s"}"#).unwrap();
/// assert_eq!(p.tool_name, "memory");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PreToolCall {
    /// The tool's name (the tool_search bridge is already unwrapped).
    #[serde(default, deserialize_with = "lenient_string_required")]
    pub tool_name: String,
    /// The tool's arguments as parsed from the model's JSON.
    #[serde(default)]
    pub args: Value,
    /// Task id.
    #[serde(default, deserialize_with = "lenient_string")]
    pub task_id: Option<String>,
    /// Session id.
    #[serde(default, deserialize_with = "lenient_string")]
    pub session_id: Option<String>,
    /// Tool call id from the model.
    #[serde(default, deserialize_with = "lenient_string")]
    pub tool_call_id: Option<String>,
    /// Turn id.
    #[serde(default, deserialize_with = "lenient_string")]
    pub turn_id: Option<String>,
    /// API request id.
    #[serde(default, deserialize_with = "lenient_string")]
    pub api_request_id: Option<String>,
}

fn lenient_string_required<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(lenient_string(d)?.unwrap_or_default())
}

/// Kwargs of `post_tool_call` (for registry tools `args` are the coerced ones).
///
/// ```
/// use palisade_hermes::hooks::PostToolCall;
/// let p: PostToolCall = serde_json::from_str(
///     r#"{"tool_name":"memory","args":{},"result":"{\"success\":true}","status":"ok","duration_ms":3}"#).unwrap();
/// assert!(p.succeeded());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PostToolCall {
    /// The tool's name.
    #[serde(default, deserialize_with = "lenient_string_required")]
    pub tool_name: String,
    /// The arguments the tool ran with.
    #[serde(default)]
    pub args: Value,
    /// The tool's result (normally a string, often JSON).
    #[serde(default)]
    pub result: Value,
    /// Task id.
    #[serde(default, deserialize_with = "lenient_string")]
    pub task_id: Option<String>,
    /// Session id.
    #[serde(default, deserialize_with = "lenient_string")]
    pub session_id: Option<String>,
    /// Tool call id.
    #[serde(default, deserialize_with = "lenient_string")]
    pub tool_call_id: Option<String>,
    /// Turn id.
    #[serde(default, deserialize_with = "lenient_string")]
    pub turn_id: Option<String>,
    /// Duration of the call.
    #[serde(default)]
    pub duration_ms: Option<f64>,
    /// `ok`, `error`, `blocked` or `cancelled`.
    #[serde(default, deserialize_with = "lenient_string")]
    pub status: Option<String>,
    /// `plugin_block` and others.
    #[serde(default, deserialize_with = "lenient_string")]
    pub error_type: Option<String>,
    /// Error text.
    #[serde(default, deserialize_with = "lenient_string")]
    pub error_message: Option<String>,
    /// Working directory, when a host passes one.
    #[serde(default, deserialize_with = "lenient_string")]
    pub cwd: Option<String>,
}

impl PostToolCall {
    /// The call ran and did not report an error, neither in `status` nor in
    /// a JSON result of the shape `{"error": …}` or `{"success": false}`.
    ///
    /// ```
    /// use palisade_hermes::hooks::PostToolCall;
    /// let mut p = PostToolCall { status: Some("ok".into()), ..Default::default() };
    /// p.result = serde_json::json!("{\"error\":\"nope\"}");
    /// assert!(!p.succeeded());
    /// ```
    pub fn succeeded(&self) -> bool {
        if let Some(status) = &self.status {
            if status != "ok" && status != "success" {
                return false;
            }
        }
        let parsed;
        let result = match &self.result {
            Value::String(s) => {
                parsed = serde_json::from_str::<Value>(s).unwrap_or(Value::Null);
                &parsed
            }
            other => other,
        };
        if let Value::Object(o) = result {
            if o.get("error").is_some_and(|e| !e.is_null()) {
                return false;
            }
            if o.get("success") == Some(&Value::Bool(false)) {
                return false;
            }
        }
        true
    }

    /// The result as text (a JSON string's contents, or the JSON of anything else).
    ///
    /// ```
    /// let p = palisade_hermes::hooks::PostToolCall { result: "ok".into(), ..Default::default() };
    /// assert_eq!(p.result_text(), "ok");
    /// ```
    pub fn result_text(&self) -> String {
        match &self.result {
            Value::String(s) => s.clone(),
            Value::Null => String::new(),
            other => other.to_string(),
        }
    }
}

/// Kwargs of `transform_tool_result` (registry tools only; never `memory`).
///
/// ```
/// use palisade_hermes::hooks::TransformToolResult;
/// let p: TransformToolResult = serde_json::from_str(r#"{"tool_name":"web","result":"text"}"#).unwrap();
/// assert_eq!(p.result, "text");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TransformToolResult {
    /// The tool's name.
    #[serde(default, deserialize_with = "lenient_string_required")]
    pub tool_name: String,
    /// The arguments the tool ran with.
    #[serde(default)]
    pub args: Value,
    /// The result the model would see.
    #[serde(default, deserialize_with = "lenient_string_required")]
    pub result: String,
    /// Session id.
    #[serde(default, deserialize_with = "lenient_string")]
    pub session_id: Option<String>,
    /// Tool call id.
    #[serde(default, deserialize_with = "lenient_string")]
    pub tool_call_id: Option<String>,
    /// Turn id.
    #[serde(default, deserialize_with = "lenient_string")]
    pub turn_id: Option<String>,
    /// `ok`, `error`, …
    #[serde(default, deserialize_with = "lenient_string")]
    pub status: Option<String>,
}

/// Kwargs of `transform_llm_output`.
///
/// ```
/// use palisade_hermes::hooks::TransformLlmOutput;
/// let p: TransformLlmOutput = serde_json::from_str(r#"{"response_text":"done","session_id":null}"#).unwrap();
/// assert_eq!(p.response_text, "done");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TransformLlmOutput {
    /// The final reply.
    #[serde(default, deserialize_with = "lenient_string_required")]
    pub response_text: String,
    /// Session id.
    #[serde(default, deserialize_with = "lenient_string")]
    pub session_id: Option<String>,
    /// Model name.
    #[serde(default, deserialize_with = "lenient_string")]
    pub model: Option<String>,
    /// Platform.
    #[serde(default, deserialize_with = "lenient_string")]
    pub platform: Option<String>,
}

/// Kwargs of `post_llm_call` (`assistant_response` is after `transform_llm_output`).
///
/// ```
/// use palisade_hermes::hooks::PostLlmCall;
/// let p: PostLlmCall = serde_json::from_str(r#"{"user_message":"hi","assistant_response":"hello"}"#).unwrap();
/// assert_eq!(p.assistant_response, "hello");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PostLlmCall {
    /// Session id.
    #[serde(default, deserialize_with = "lenient_string")]
    pub session_id: Option<String>,
    /// Task id.
    #[serde(default, deserialize_with = "lenient_string")]
    pub task_id: Option<String>,
    /// Turn id.
    #[serde(default, deserialize_with = "lenient_string")]
    pub turn_id: Option<String>,
    /// The user message (string or content parts).
    #[serde(default)]
    pub user_message: Value,
    /// The final reply.
    #[serde(default, deserialize_with = "lenient_string_required")]
    pub assistant_response: String,
    /// Earlier messages.
    #[serde(default, deserialize_with = "lenient_list")]
    pub conversation_history: Vec<Value>,
    /// Model name.
    #[serde(default, deserialize_with = "lenient_string")]
    pub model: Option<String>,
    /// Platform.
    #[serde(default, deserialize_with = "lenient_string")]
    pub platform: Option<String>,
}

/// Kwargs of `on_session_end`.
///
/// ```
/// use palisade_hermes::hooks::OnSessionEnd;
/// let p: OnSessionEnd = serde_json::from_str(r#"{"session_id":"s","completed":true,"interrupted":false}"#).unwrap();
/// assert!(p.completed && !p.interrupted);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OnSessionEnd {
    /// Session id.
    #[serde(default, deserialize_with = "lenient_string")]
    pub session_id: Option<String>,
    /// Task id.
    #[serde(default, deserialize_with = "lenient_string")]
    pub task_id: Option<String>,
    /// Turn id.
    #[serde(default, deserialize_with = "lenient_string")]
    pub turn_id: Option<String>,
    /// The turn completed.
    #[serde(default, deserialize_with = "lenient_bool")]
    pub completed: bool,
    /// The turn was interrupted.
    #[serde(default, deserialize_with = "lenient_bool")]
    pub interrupted: bool,
    /// Model name.
    #[serde(default, deserialize_with = "lenient_string")]
    pub model: Option<String>,
    /// Platform.
    #[serde(default, deserialize_with = "lenient_string")]
    pub platform: Option<String>,
    /// Why the session ended (CLI and TUI paths).
    #[serde(default, deserialize_with = "lenient_string")]
    pub reason: Option<String>,
}

/// One parsed hook call.
///
/// ```
/// use palisade_hermes::hooks::HookCall;
/// let call = HookCall::parse("pre_tool_call", r#"{"tool_name":"terminal","args":{"command":"ls"}}"#).unwrap();
/// assert!(matches!(call, HookCall::PreToolCall(_)));
/// assert!(HookCall::parse("pre_tool_call", "[1,2]").is_err());
/// assert!(HookCall::parse("nope", "{}").is_err());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum HookCall {
    /// `pre_llm_call`.
    PreLlmCall(PreLlmCall),
    /// `pre_tool_call`.
    PreToolCall(PreToolCall),
    /// `post_tool_call`.
    PostToolCall(PostToolCall),
    /// `transform_tool_result`.
    TransformToolResult(TransformToolResult),
    /// `transform_llm_output`.
    TransformLlmOutput(TransformLlmOutput),
    /// `post_llm_call`.
    PostLlmCall(PostLlmCall),
    /// `on_session_end`.
    OnSessionEnd(OnSessionEnd),
}

/// Why a hook call could not be parsed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HookError {
    /// The hook name is not one Palisade handles.
    #[error("unknown hook {0:?}")]
    UnknownHook(String),
    /// The kwargs are not a JSON object of the expected shape.
    #[error("bad kwargs for {hook}: {source}")]
    BadKwargs {
        /// The hook.
        hook: Hook,
        /// The parse error.
        source: serde_json::Error,
    },
}

impl HookCall {
    /// Parse `kwargs_json` (a JSON object) as the kwargs of `hook`.
    ///
    /// ```
    /// use palisade_hermes::hooks::HookCall;
    /// assert_eq!(HookCall::parse("on_session_end", "{}").unwrap().hook().name(), "on_session_end");
    /// ```
    pub fn parse(hook: &str, kwargs_json: &str) -> Result<HookCall, HookError> {
        let hook = Hook::parse(hook).ok_or_else(|| HookError::UnknownHook(hook.to_owned()))?;
        let bad = |source| HookError::BadKwargs { hook, source };
        let value: Value = serde_json::from_str(kwargs_json).map_err(bad)?;
        if !value.is_object() {
            return Err(bad(<serde_json::Error as serde::de::Error>::custom(
                "kwargs must be a JSON object",
            )));
        }
        fn typed<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, serde_json::Error> {
            serde_json::from_value(v)
        }
        Ok(match hook {
            Hook::PreLlmCall => HookCall::PreLlmCall(typed(value).map_err(bad)?),
            Hook::PreToolCall => HookCall::PreToolCall(typed(value).map_err(bad)?),
            Hook::PostToolCall => HookCall::PostToolCall(typed(value).map_err(bad)?),
            Hook::TransformToolResult => HookCall::TransformToolResult(typed(value).map_err(bad)?),
            Hook::TransformLlmOutput => HookCall::TransformLlmOutput(typed(value).map_err(bad)?),
            Hook::PostLlmCall => HookCall::PostLlmCall(typed(value).map_err(bad)?),
            Hook::OnSessionEnd => HookCall::OnSessionEnd(typed(value).map_err(bad)?),
        })
    }

    /// Which hook this is.
    ///
    /// ```
    /// use palisade_hermes::hooks::{HookCall, OnSessionEnd};
    /// assert_eq!(HookCall::OnSessionEnd(OnSessionEnd::default()).hook(), palisade_hermes::Hook::OnSessionEnd);
    /// ```
    pub fn hook(&self) -> Hook {
        match self {
            HookCall::PreLlmCall(_) => Hook::PreLlmCall,
            HookCall::PreToolCall(_) => Hook::PreToolCall,
            HookCall::PostToolCall(_) => Hook::PostToolCall,
            HookCall::TransformToolResult(_) => Hook::TransformToolResult,
            HookCall::TransformLlmOutput(_) => Hook::TransformLlmOutput,
            HookCall::PostLlmCall(_) => Hook::PostLlmCall,
            HookCall::OnSessionEnd(_) => Hook::OnSessionEnd,
        }
    }

    /// The session id the call carries, if any.
    ///
    /// ```
    /// use palisade_hermes::hooks::HookCall;
    /// let c = HookCall::parse("on_session_end", r#"{"session_id":7}"#).unwrap();
    /// assert_eq!(c.session_id(), Some("7"));
    /// ```
    pub fn session_id(&self) -> Option<&str> {
        match self {
            HookCall::PreLlmCall(p) => p.session_id.as_deref(),
            HookCall::PreToolCall(p) => p.session_id.as_deref(),
            HookCall::PostToolCall(p) => p.session_id.as_deref(),
            HookCall::TransformToolResult(p) => p.session_id.as_deref(),
            HookCall::TransformLlmOutput(p) => p.session_id.as_deref(),
            HookCall::PostLlmCall(p) => p.session_id.as_deref(),
            HookCall::OnSessionEnd(p) => p.session_id.as_deref(),
        }
    }
}

/// What a callback returns to Hermes.
///
/// [`Directive::to_json`] gives exactly the Python value the shim should
/// return (after `json.loads`): `None`, a dict, or a string.
///
/// ```
/// use palisade_hermes::Directive;
/// assert_eq!(Directive::None.to_json(), "null");
/// assert_eq!(Directive::block("no").to_json(), r#"{"action":"block","message":"no"}"#);
/// assert_eq!(Directive::Rewrite("x".into()).to_json(), r#""x""#);
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Directive {
    /// No opinion: the call proceeds unchanged (Python `None`).
    None,
    /// `pre_tool_call`: refuse the call; the model gets `{"error": message}`.
    Block {
        /// Shown to the model; never contains a raw flagged value.
        message: String,
    },
    /// `pre_tool_call`: hand the decision to Hermes' approval gate.
    Approve {
        /// Shown to the human.
        message: String,
        /// `guard:reason`, so an "always" answer covers one failure class.
        rule_key: String,
    },
    /// `pre_tool_call` on hosts with `modify` (0.21+): shallow-merged args.
    Modify {
        /// The keys to replace.
        args: serde_json::Map<String, Value>,
    },
    /// `pre_llm_call`: text appended to the user message's API copy.
    Context(String),
    /// `pre_llm_call`: hold the turn — the inbound message must never reach
    /// the model (the injection guard's block/quarantine tiers).
    ///
    /// No Hermes version can veto a turn from `pre_llm_call`, so a host acts
    /// on this type itself: the Python shim answers the turn locally with
    /// `message` and never calls the provider. A host that does not know
    /// `"action":"hold"` still finds `context` in the same dict (Hermes
    /// appends it to the message's API copy), and every tool call of the
    /// held turn is blocked in `pre_tool_call` either way.
    Hold {
        /// The reply the user gets instead of a model answer.
        message: String,
        /// The note for hosts that cannot hold a turn: tells the model the
        /// message was withheld and must be treated as data.
        context: String,
        /// The quarantine entry holding the message, when one was written
        /// (owner commands `release` / `delete` take this id).
        quarantine_id: Option<String>,
    },
    /// `transform_tool_result` / `transform_llm_output`: the replacement text.
    Rewrite(String),
}

impl Directive {
    /// A block with `message`.
    ///
    /// ```
    /// assert!(matches!(palisade_hermes::Directive::block("x"), palisade_hermes::Directive::Block { .. }));
    /// ```
    pub fn block(message: impl Into<String>) -> Directive {
        Directive::Block {
            message: message.into(),
        }
    }

    /// An approval request with `message` and `rule_key`.
    ///
    /// ```
    /// let d = palisade_hermes::Directive::approve("confirm", "egress-guard:EG-NET-001");
    /// assert!(d.to_json().contains("\"rule_key\":\"egress-guard:EG-NET-001\""));
    /// ```
    pub fn approve(message: impl Into<String>, rule_key: impl Into<String>) -> Directive {
        Directive::Approve {
            message: message.into(),
            rule_key: rule_key.into(),
        }
    }

    /// The directive as a JSON value.
    ///
    /// ```
    /// use palisade_hermes::Directive;
    /// assert_eq!(Directive::Context("note".into()).to_value()["context"], "note");
    /// ```
    pub fn to_value(&self) -> Value {
        match self {
            Directive::None => Value::Null,
            Directive::Block { message } => {
                serde_json::json!({"action": "block", "message": message})
            }
            Directive::Approve { message, rule_key } => {
                serde_json::json!({"action": "approve", "message": message, "rule_key": rule_key})
            }
            Directive::Modify { args } => serde_json::json!({"action": "modify", "args": args}),
            Directive::Context(text) => serde_json::json!({ "context": text }),
            Directive::Hold {
                message,
                context,
                quarantine_id,
            } => serde_json::json!({
                "action": "hold", "message": message, "context": context,
                "quarantine_id": quarantine_id,
            }),
            Directive::Rewrite(text) => Value::String(text.clone()),
        }
    }

    /// The directive as JSON text (what [`crate::Plugin::handle`] returns).
    ///
    /// ```
    /// assert_eq!(palisade_hermes::Directive::Context("c".into()).to_json(), r#"{"context":"c"}"#);
    /// ```
    pub fn to_json(&self) -> String {
        self.to_value().to_string()
    }

    /// True for [`Directive::Block`].
    ///
    /// ```
    /// assert!(palisade_hermes::Directive::block("x").is_block());
    /// ```
    pub fn is_block(&self) -> bool {
        matches!(self, Directive::Block { .. })
    }

    /// True for [`Directive::Hold`].
    ///
    /// ```
    /// use palisade_hermes::Directive;
    /// let d = Directive::Hold { message: "held".into(), context: "note".into(), quarantine_id: None };
    /// assert!(d.is_hold());
    /// assert_eq!(d.to_value()["action"], "hold");
    /// assert_eq!(d.to_value()["context"], "note");
    /// assert!(!Directive::None.is_hold());
    /// ```
    pub fn is_hold(&self) -> bool {
        matches!(self, Directive::Hold { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn verified_kwargs_parse() {
        // The exact name sets recorded in the 0.19.0 end-to-end run.
        let pre = json!({"tool_name":"memory","args":{"action":"add"},"task_id":"t","session_id":"s",
            "tool_call_id":"call_00","turn_id":"u","api_request_id":"r","middleware_trace":[],
            "telemetry_schema_version":"hermes.observer.v1"});
        assert!(HookCall::parse("pre_tool_call", &pre.to_string()).is_ok());
        let post = json!({"tool_name":"memory","args":{},"result":"{}","task_id":"t","session_id":"s",
            "tool_call_id":"c","turn_id":"u","api_request_id":"r","duration_ms":12,"status":"blocked",
            "error_type":"plugin_block","error_message":null,"middleware_trace":[]});
        let HookCall::PostToolCall(p) =
            HookCall::parse("post_tool_call", &post.to_string()).unwrap()
        else {
            panic!("wrong variant")
        };
        assert!(!p.succeeded());
        let llm = json!({"session_id":"s","task_id":"t","turn_id":"u","user_message":[{"type":"text","text":"hi"}],
            "conversation_history":null,"is_first_turn":"true","model":"m","platform":"cli","sender_id":null});
        let HookCall::PreLlmCall(p) = HookCall::parse("pre_llm_call", &llm.to_string()).unwrap()
        else {
            panic!("wrong variant")
        };
        assert!(p.is_first_turn);
        assert_eq!(p.user_text(), "hi");
        for hook in Hook::ALL {
            assert!(HookCall::parse(hook.name(), "{}").is_ok(), "{hook}");
            assert!(HookCall::parse(hook.name(), "not json").is_err(), "{hook}");
        }
    }

    #[test]
    fn directive_shapes() {
        let d = Directive::Modify {
            args: serde_json::Map::from_iter([("command".to_owned(), json!("echo ****"))]),
        };
        assert_eq!(
            d.to_value(),
            json!({"action":"modify","args":{"command":"echo ****"}})
        );
        let a = Directive::approve("m", "k:r").to_value();
        assert_eq!(a["action"], "approve");
        assert_eq!(a["rule_key"], "k:r");
        let h = Directive::Hold {
            message: "held".into(),
            context: "note".into(),
            quarantine_id: Some("abc123".into()),
        };
        assert_eq!(
            h.to_value(),
            json!({"action":"hold","message":"held","context":"note","quarantine_id":"abc123"})
        );
    }
}
