//! Codex CLI: `PreToolUse`, `PermissionRequest`, `PostToolUse`,
//! `UserPromptSubmit`, `Stop` / `SubagentStop`, `SessionEnd` (HOOKS.md §2).
//!
//! Codex rejects `ask` and a bare `allow` (the hook then counts as failed
//! and the call proceeds), so an "ask" becomes a deny that says why, and a
//! redaction is `allow` with the whole `updatedInput`. A result can only be
//! replaced whole (`decision: "block"` + `reason` becomes the result).

use super::{
    opt_str, str_of, Answer, Decision, Event, Output, PostAnswer, PreAnswer, PromptAnswer,
    ToolEvent,
};
use serde_json::{json, Value};

/// The host's event, normalized.
pub(crate) fn parse(raw: &Value) -> Event {
    let session = str_of(raw, "session_id");
    let tool = || ToolEvent {
        session: session.clone(),
        turn: opt_str(raw, "turn_id"),
        tool: str_of(raw, "tool_name"),
        input: raw["tool_input"].clone(),
        cwd: opt_str(raw, "cwd"),
        output: raw["tool_response"].clone(),
        mcp: str_of(raw, "tool_name").starts_with("mcp__"),
    };
    match raw["hook_event_name"].as_str().unwrap_or_default() {
        "PreToolUse" | "PermissionRequest" => Event::PreTool(tool()),
        "PostToolUse" => Event::PostTool(tool()),
        "UserPromptSubmit" => Event::Prompt {
            session: session.clone(),
            turn: opt_str(raw, "turn_id"),
            text: str_of(raw, "prompt"),
        },
        "Stop" | "SubagentStop" => Event::Stop {
            session: session.clone(),
            reply: str_of(raw, "last_assistant_message"),
            prompt: None,
        },
        "SessionEnd" => Event::SessionEnd { session },
        other => Event::Other(other.to_owned()),
    }
}

/// The answer in Codex's protocol.
pub(crate) fn render(raw: &Value, event: &Event, answer: &Answer) -> Output {
    let name = raw["hook_event_name"].as_str().unwrap_or_default();
    match (event, answer) {
        (Event::PreTool(_), Answer::Pre(a)) if name == "PermissionRequest" => match a.decision {
            Decision::Deny | Decision::Ask => Output::json(json!({"hookSpecificOutput": {
                "hookEventName": "PermissionRequest",
                "decision": {"behavior": "deny", "message": reason(a)},
            }})),
            Decision::Allow => Output::default(),
        },
        (Event::PreTool(_), Answer::Pre(a)) => pre(a),
        (Event::PostTool(_), Answer::Post(a)) => post(a),
        (Event::Prompt { .. }, Answer::Prompt(PromptAnswer::Block(reason))) => {
            Output::json(json!({"decision": "block", "reason": reason}))
        }
        (Event::Prompt { .. }, Answer::Prompt(PromptAnswer::Context(note))) => {
            Output::json(json!({
                "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": note}
            }))
        }
        // Stop must print JSON on exit 0.
        (Event::Stop { .. }, _) => Output::json(json!({})),
        _ => Output::default(),
    }
}

/// A deny needs a non-empty reason, or Codex treats the hook as failed.
fn reason(a: &PreAnswer) -> String {
    let r = if a.reason.trim().is_empty() {
        "blocked by Palisade".to_owned()
    } else {
        a.reason.clone()
    };
    if a.decision == Decision::Ask {
        format!("{r} (Codex hooks cannot ask for approval, so Palisade refuses; run it yourself if it is intended)")
    } else {
        r
    }
}

fn pre(a: &PreAnswer) -> Output {
    match (a.decision, &a.updated_input) {
        (Decision::Deny | Decision::Ask, _) => Output::json(json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason(a),
        }})),
        (Decision::Allow, Some(input)) => Output::json(json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "permissionDecisionReason": a.reason,
            "updatedInput": input,
        }})),
        (Decision::Allow, None) => Output::default(),
    }
}

fn post(a: &PostAnswer) -> Output {
    if a.held {
        return Output::json(
            json!({"decision": "block", "reason": a.context.clone().unwrap_or_default()}),
        );
    }
    if let Some(text) = &a.replaced_text {
        return Output::json(json!({
            "decision": "block",
            "reason": format!("[egress-guard] the tool output, with credentials or small counts withheld:\n{text}"),
        }));
    }
    match &a.context {
        Some(note) => Output::json(json!({
            "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": note}
        })),
        None => Output::default(),
    }
}
