//! Claude Code: `PreToolUse`, `PermissionRequest`, `PostToolUse`,
//! `UserPromptSubmit`, `Stop` / `SubagentStop`, `SessionEnd` (HOOKS.md §1).
//!
//! Answers are JSON on exit 0 (`hookSpecificOutput.permissionDecision`,
//! `updatedInput`, `updatedToolOutput`, `additionalContext`, top-level
//! `decision: "block"`); an internal failure on a gate event is exit 2 with
//! the reason on stderr, the one failure Claude Code does not let through.

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
        turn: opt_str(raw, "prompt_id"),
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
            turn: opt_str(raw, "prompt_id"),
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

/// Sessions where a rewrite may run unprompted: the user already turned
/// prompts off, so `allow` with the redacted input widens nothing.
fn runs_unprompted(raw: &Value) -> bool {
    matches!(
        raw["permission_mode"].as_str(),
        Some("bypassPermissions" | "dontAsk")
    )
}

/// The answer in Claude Code's protocol.
pub(crate) fn render(raw: &Value, event: &Event, answer: &Answer) -> Output {
    let name = raw["hook_event_name"].as_str().unwrap_or_default();
    match (event, answer) {
        (Event::PreTool(_), Answer::Pre(a)) if name == "PermissionRequest" => permission(a),
        (Event::PreTool(_), Answer::Pre(a)) => pre(raw, a),
        (Event::PostTool(_), Answer::Post(a)) => post(a),
        (Event::Prompt { .. }, Answer::Prompt(PromptAnswer::Block(reason))) => {
            Output::json(json!({"decision": "block", "reason": reason}))
        }
        (Event::Prompt { .. }, Answer::Prompt(PromptAnswer::Context(note))) => {
            Output::json(json!({
                "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": note}
            }))
        }
        _ => Output::default(),
    }
}

fn pre(raw: &Value, a: &PreAnswer) -> Output {
    let decision = match (a.decision, &a.updated_input) {
        (Decision::Deny, _) => "deny",
        (Decision::Ask, _) => "ask",
        (Decision::Allow, Some(_)) if runs_unprompted(raw) => "allow",
        (Decision::Allow, Some(_)) => "ask",
        (Decision::Allow, None) => return Output::default(),
    };
    let mut out = json!({
        "hookEventName": "PreToolUse",
        "permissionDecision": decision,
        "permissionDecisionReason": a.reason,
    });
    if let Some(input) = &a.updated_input {
        out["updatedInput"] = input.clone();
    }
    Output::json(json!({ "hookSpecificOutput": out }))
}

/// `PermissionRequest` fires only when a prompt would be shown: deny what
/// Palisade refuses, otherwise leave the prompt to the user.
fn permission(a: &PreAnswer) -> Output {
    match a.decision {
        Decision::Deny => Output::json(json!({"hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "deny", "message": a.reason},
        }})),
        _ => Output::default(),
    }
}

fn post(a: &PostAnswer) -> Output {
    let mut specific = json!({"hookEventName": "PostToolUse"});
    if let Some(note) = &a.context {
        specific["additionalContext"] = Value::String(note.clone());
    }
    if let Some(replaced) = &a.replaced {
        specific["updatedToolOutput"] = replaced.clone();
    }
    if a.context.is_none() && a.replaced.is_none() {
        return Output::default();
    }
    let mut out = json!({ "hookSpecificOutput": specific });
    if a.held {
        out["decision"] = Value::from("block");
        out["reason"] = Value::String(a.context.clone().unwrap_or_default());
    }
    Output::json(out)
}
