//! Reading a recorded agent session, one message at a time.
//!
//! Two shapes are read, line by line:
//!
//! * OpenAI chat format: one message object per line (`role`, `content` as a
//!   string or a list of parts, `tool_calls` with JSON-string `arguments`,
//!   `tool` messages with `tool_call_id`);
//! * a session export: a line holding an object with a `messages` array (the
//!   shape Hermes and most chat exporters write), whose messages are read in
//!   order as if they were lines of their own.
//!
//! Nothing is kept between lines except what the caller keeps, so memory stays
//! flat however long the file is.

use serde::Deserialize;
use serde_json::Value;

/// One message of a session, normalized from the chat format.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Message {
    /// 1-based line of the session file the message came from.
    pub line: usize,
    /// `user`, `assistant`, `tool`, `system`, … (lower case).
    pub role: String,
    /// The text content (parts of type `text` joined by newlines).
    pub text: String,
    /// Tool calls an assistant message makes.
    pub tool_calls: Vec<ToolCall>,
    /// For `tool` messages: which call this is the result of.
    pub tool_call_id: Option<String>,
    /// For `tool` messages: the tool's name when the exporter recorded it.
    pub name: Option<String>,
}

/// One tool call of an assistant message.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolCall {
    /// The call id (empty when the exporter did not record one).
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments: parsed JSON when the string was JSON, else the raw string.
    pub args: Value,
}

#[derive(Deserialize)]
struct RawMessage {
    role: Option<String>,
    #[serde(default)]
    content: Value,
    #[serde(default)]
    tool_calls: Option<Vec<RawToolCall>>,
    #[serde(default)]
    tool_call_id: Option<String>,
    #[serde(default)]
    name: Option<String>,
}

#[derive(Deserialize)]
struct RawToolCall {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<RawFunction>,
    // Some exporters flatten the function fields into the call.
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<Value>,
}

#[derive(Deserialize)]
struct RawFunction {
    name: Option<String>,
    #[serde(default)]
    arguments: Option<Value>,
}

/// Parse one line of a session file into its messages.
///
/// Returns an error that says what is wrong (not JSON, not an object, no
/// `role`…); the caller reports it with the line number and goes on.
pub fn parse_line(line_no: usize, text: &str) -> Result<Vec<Message>, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
    let Value::Object(map) = &value else {
        return Err("expected a JSON object (one message per line)".into());
    };
    if let Some(Value::Array(messages)) = map.get("messages") {
        let mut out = Vec::with_capacity(messages.len());
        for (i, m) in messages.iter().enumerate() {
            let msg =
                parse_message(line_no, m.clone()).map_err(|e| format!("messages[{i}]: {e}"))?;
            out.push(msg);
        }
        return Ok(out);
    }
    Ok(vec![parse_message(line_no, value)?])
}

fn parse_message(line: usize, value: Value) -> Result<Message, String> {
    let raw: RawMessage =
        serde_json::from_value(value).map_err(|e| format!("not a chat message: {e}"))?;
    let role = raw
        .role
        .ok_or_else(|| "missing field `role`".to_string())?
        .to_ascii_lowercase();
    let tool_calls = raw
        .tool_calls
        .unwrap_or_default()
        .into_iter()
        .map(|call| {
            let (name, arguments) = match call.function {
                Some(f) => (f.name, f.arguments),
                None => (call.name, call.arguments),
            };
            ToolCall {
                id: call.id.unwrap_or_default(),
                name: name.unwrap_or_default(),
                args: decode_arguments(arguments.unwrap_or(Value::Null)),
            }
        })
        .collect();
    Ok(Message {
        line,
        role,
        // Hermes' hook payloads flatten content the same way.
        text: palisade_hermes::hooks::message_text(&raw.content),
        tool_calls,
        tool_call_id: raw.tool_call_id,
        name: raw.name,
    })
}

/// Tool-call arguments are a JSON string in the chat format; decode it when
/// it is JSON, keep the raw string when it is not.
fn decode_arguments(args: Value) -> Value {
    match args {
        Value::String(s) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn chat_format_lines() {
        let m = parse_line(1, r#"{"role":"user","content":"hi"}"#).unwrap();
        assert_eq!(m[0].role, "user");
        assert_eq!(m[0].text, "hi");

        let m = parse_line(2, r#"{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"terminal","arguments":"{\"command\":\"ls\"}"}}]}"#).unwrap();
        assert_eq!(m[0].tool_calls[0].name, "terminal");
        assert_eq!(m[0].tool_calls[0].args, json!({"command": "ls"}));

        let m = parse_line(3, r#"{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"x"}},{"type":"text","text":"b"}]}"#).unwrap();
        assert_eq!(m[0].text, "a\nb");

        let m = parse_line(4, r#"{"role":"tool","tool_call_id":"c1","content":"out"}"#).unwrap();
        assert_eq!(m[0].tool_call_id.as_deref(), Some("c1"));
    }

    #[test]
    fn arguments_that_are_not_json_stay_strings() {
        let m = parse_line(1, r#"{"role":"assistant","tool_calls":[{"function":{"name":"t","arguments":"not json"}}]}"#).unwrap();
        assert_eq!(m[0].tool_calls[0].args, json!("not json"));
    }

    #[test]
    fn export_with_messages_array() {
        let m = parse_line(1, r#"{"session_id":"s","messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}"#).unwrap();
        assert_eq!(m.len(), 2);
        assert_eq!(m[1].text, "b");
    }

    #[test]
    fn bad_lines_say_what_is_wrong() {
        assert!(parse_line(1, "nope")
            .unwrap_err()
            .contains("not valid JSON"));
        assert!(parse_line(1, "[1,2]")
            .unwrap_err()
            .contains("expected a JSON object"));
        assert!(parse_line(1, r#"{"content":"x"}"#)
            .unwrap_err()
            .contains("role"));
        assert!(parse_line(1, r#"{"messages":[{"content":"x"}]}"#)
            .unwrap_err()
            .contains("messages[0]"));
    }
}
