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
///
/// A `\uD800`-style escape of a lone UTF-16 surrogate (which JSON allows
/// but no UTF-8 string can hold; Python's `json.dumps` writes them) is decoded
/// lossily as U+FFFD, so the rest of the message is still scanned.
pub fn parse_line(line_no: usize, text: &str) -> Result<Vec<Message>, String> {
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => match repair_surrogate_escapes(text) {
            Some(repaired) => {
                serde_json::from_str(&repaired).map_err(|e| format!("not valid JSON: {e}"))?
            }
            None => return Err(format!("not valid JSON: {e}")),
        },
    };
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

/// `text` with every escape of a lone UTF-16 surrogate (`\uD800`…`\uDFFF`
/// not forming a high-low pair) replaced by `\uFFFD`, or `None` when there
/// is none. An escaped backslash (`\\uD800`) is not an escape and is kept.
/// Linear time: one pass over the bytes.
pub fn repair_surrogate_escapes(text: &str) -> Option<String> {
    fn hex4(b: &[u8], at: usize) -> Option<u32> {
        let digits = std::str::from_utf8(b.get(at..at + 4)?).ok()?;
        u32::from_str_radix(digits, 16).ok()
    }
    let b = text.as_bytes();
    let mut out = String::new();
    let mut copied = 0; // bytes of `text` already in `out`
    let mut i = 0;
    while let Some(off) = b.get(i..).and_then(find_backslash) {
        let at = i + off;
        if b.get(at + 1) != Some(&b'u') {
            i = at + 2; // any other escape, `\\` included, is two bytes
            continue;
        }
        let Some(unit) = hex4(b, at + 2) else {
            i = at + 2;
            continue;
        };
        i = at + 6;
        if !(0xD800..=0xDFFF).contains(&unit) {
            continue;
        }
        if unit < 0xDC00 && b.get(at + 6) == Some(&b'\\') && b.get(at + 7) == Some(&b'u') {
            if let Some(low) = hex4(b, at + 8) {
                if (0xDC00..=0xDFFF).contains(&low) {
                    i = at + 12; // a valid pair
                    continue;
                }
            }
        }
        out.push_str(&text[copied..at]);
        out.push_str("\\uFFFD");
        copied = at + 6;
    }
    if copied == 0 {
        return None;
    }
    out.push_str(&text[copied..]);
    Some(out)
}

fn find_backslash(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&c| c == b'\\')
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
    fn lone_surrogate_escapes_are_decoded_lossily() {
        let m = parse_line(
            1,
            r#"{"role":"user","content":"a \ud800 b \udc80 c \ud83d\ude00 \\ud800"}"#,
        )
        .unwrap();
        assert_eq!(m[0].text, "a \u{FFFD} b \u{FFFD} c \u{1F600} \\ud800");
        assert_eq!(repair_surrogate_escapes(r#"{"a":"\\ud800 \u00e9"}"#), None);
        assert_eq!(
            repair_surrogate_escapes(r#""\uD800\u0041""#).unwrap(),
            r#""\uFFFD\u0041""#
        );
        // a truncated escape at the end is left for the JSON parser to reject
        assert!(parse_line(1, r#"{"role":"user","content":"\ud8"#).is_err());
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
