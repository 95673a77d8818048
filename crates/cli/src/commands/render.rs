//! A readable outline of a command's JSON result.
//!
//! Objects become `key: value` lines, nested objects indent, arrays of
//! objects become one compact line per item. Values are printed as stored:
//! the library only ever returns masked previews.

use serde_json::Value;
use std::fmt::Write;

/// Depth beyond which nested values are printed as compact JSON.
const MAX_DEPTH: usize = 4;
/// Characters per compact item line.
const LINE_CHARS: usize = 160;

/// Render `value` as an indented outline ending in a newline.
pub fn outline(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, 0);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// `text` with control characters escaped (ESC → `\x{1b}`, a bare CR →
/// `\r`), so stored text cannot move the cursor, clear the screen or
/// forge lines on the reader's terminal. Newlines and tabs are kept (the
/// callers flatten newlines where a line is expected).
pub fn escape_controls(text: &str) -> String {
    if !text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\x{{{:02x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => escape_controls(s),
        Value::Null => "—".to_owned(),
        other => other.to_string(),
    }
}

fn compact(v: &Value) -> String {
    let text = match v {
        Value::Object(o) => o
            .iter()
            .filter(|(_, x)| !x.is_null())
            .map(|(k, x)| match x {
                Value::String(_) | Value::Number(_) | Value::Bool(_) => {
                    format!("{k}={}", scalar(x))
                }
                other => format!("{k}={}", escape_controls(&other.to_string())),
            })
            .collect::<Vec<_>>()
            .join("  "),
        other => scalar(other),
    };
    let flat: String = text
        .chars()
        .map(|c| if c == '\n' { ' ' } else { c })
        .collect();
    if flat.chars().count() > LINE_CHARS {
        let cut: String = flat.chars().take(LINE_CHARS - 1).collect();
        format!("{cut}…")
    } else {
        flat
    }
}

fn write_value(out: &mut String, value: &Value, depth: usize) {
    let pad = "  ".repeat(depth);
    match value {
        Value::Object(o) => {
            if o.is_empty() {
                let _ = writeln!(out, "{pad}(nothing)");
            }
            for (k, v) in o {
                match v {
                    Value::Object(inner) if depth < MAX_DEPTH && !inner.is_empty() => {
                        let _ = writeln!(out, "{pad}{k}:");
                        write_value(out, v, depth + 1);
                    }
                    Value::Array(items) if depth < MAX_DEPTH && !items.is_empty() => {
                        let _ = writeln!(out, "{pad}{k}: ({})", items.len());
                        write_value(out, v, depth + 1);
                    }
                    Value::Array(_) => {
                        let _ = writeln!(out, "{pad}{k}: (none)");
                    }
                    Value::Object(inner) if inner.is_empty() => {
                        let _ = writeln!(out, "{pad}{k}: (none)");
                    }
                    // Messages are shown whole: they are the point of a dry run.
                    Value::String(text) => {
                        let _ = writeln!(out, "{pad}{k}: {}", escape_controls(text));
                    }
                    other => {
                        let _ = writeln!(out, "{pad}{k}: {}", compact(other));
                    }
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                let _ = writeln!(out, "{pad}- {}", compact(item));
            }
        }
        other => {
            let _ = writeln!(out, "{pad}{}", scalar(other));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn outlines_nested_results() {
        let text = outline(&json!({
            "rows": 2,
            "by_verdict": {"pass": 1, "would_block": 1},
            "newest_flagged": [{"claim": "User decided\nto ship", "reason": "no_quote", "quote": null}],
            "empty": [],
        }));
        assert!(text.contains("rows: 2"));
        assert!(text.contains("  would_block: 1"));
        assert!(text.contains("- claim=User decided to ship  reason=no_quote"));
        assert!(text.contains("empty: (none)"));
    }

    #[test]
    fn control_characters_are_escaped() {
        let text = outline(
            &json!({"preview": "ok\u{1b}[2J\rfake line\u{7}", "list": [{"t": "a\u{1b}b"}]}),
        );
        assert!(
            !text.contains('\u{1b}') && !text.contains('\r') && !text.contains('\u{7}'),
            "{text:?}"
        );
        assert!(text.contains("ok\\x{1b}[2J\\rfake line\\x{07}"), "{text:?}");
        assert!(text.contains("t=a\\x{1b}b"), "{text:?}");
    }
}
