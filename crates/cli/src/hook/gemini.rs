//! Gemini CLI: `BeforeTool`, `AfterTool`, `BeforeAgent`, `AfterAgent`,
//! `SessionEnd` (HOOKS.md §4).
//!
//! Top-level `decision: "deny"` + `reason` (on `AfterTool` the reason
//! replaces the result the model sees), `hookSpecificOutput.tool_input`
//! to override arguments, `hookSpecificOutput.additionalContext`.

use super::{
    opt_str, str_of, Answer, Decision, Event, Output, PostAnswer, PreAnswer, PromptAnswer,
    ToolEvent,
};
use serde_json::{json, Value};

/// The host's event, normalized.
pub(crate) fn parse(raw: &Value) -> Event {
    let session = str_of(raw, "session_id");
    let name = str_of(raw, "tool_name");
    let tool = |output: Value| ToolEvent {
        session: session.clone(),
        turn: None,
        mcp: name.starts_with("mcp_") || raw["mcp_context"].is_object(),
        tool: name.clone(),
        input: raw["tool_input"].clone(),
        cwd: opt_str(raw, "cwd"),
        output,
    };
    match raw["hook_event_name"].as_str().unwrap_or_default() {
        "BeforeTool" => Event::PreTool(tool(Value::Null)),
        // What the model reads is `llmContent`; `returnDisplay` is the screen copy.
        "AfterTool" => Event::PostTool(tool(raw["tool_response"]["llmContent"].clone())),
        "BeforeAgent" => Event::Prompt {
            session: session.clone(),
            turn: None,
            text: str_of(raw, "prompt"),
        },
        "AfterAgent" => Event::Stop {
            session: session.clone(),
            reply: str_of(raw, "prompt_response"),
            prompt: opt_str(raw, "prompt"),
        },
        "SessionEnd" => Event::SessionEnd { session },
        other => Event::Other(other.to_owned()),
    }
}

/// The answer in Gemini CLI's protocol.
pub(crate) fn render(_raw: &Value, event: &Event, answer: &Answer) -> Output {
    match (event, answer) {
        (Event::PreTool(_), Answer::Pre(a)) => pre(a),
        (Event::PostTool(_), Answer::Post(a)) => post(a),
        (Event::Prompt { .. }, Answer::Prompt(PromptAnswer::Block(reason))) => {
            Output::json(json!({"decision": "deny", "reason": reason}))
        }
        (Event::Prompt { .. }, Answer::Prompt(PromptAnswer::Context(note))) => {
            Output::json(json!({
                "hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": note}
            }))
        }
        _ => Output::default(),
    }
}

fn pre(a: &PreAnswer) -> Output {
    match (a.decision, &a.updated_input) {
        (Decision::Deny, _) => Output::json(json!({"decision": "deny", "reason": a.reason})),
        // No approval prompt a hook can raise: refuse and say why.
        (Decision::Ask, _) => Output::json(json!({
            "decision": "deny",
            "reason": format!("{} (Gemini CLI hooks cannot ask for approval, so Palisade refuses)", a.reason),
        })),
        // No `decision`: an `allow` could skip Gemini's own confirmation;
        // the override applies without one.
        (Decision::Allow, Some(input)) => Output::json(json!({
            "systemMessage": a.reason,
            "hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": input},
        })),
        (Decision::Allow, None) => Output::default(),
    }
}

fn post(a: &PostAnswer) -> Output {
    if a.held {
        return Output::json(
            json!({"decision": "deny", "reason": a.context.clone().unwrap_or_default()}),
        );
    }
    if let Some(text) = &a.replaced_text {
        // The reason replaces the result: the redacted copy is what the model reads.
        return Output::json(json!({"decision": "deny", "reason": text}));
    }
    match &a.context {
        Some(note) => Output::json(json!({
            "hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": note}
        })),
        None => Output::default(),
    }
}
