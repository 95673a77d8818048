//! Cursor: `preToolUse`, `beforeShellExecution`, `beforeMCPExecution`,
//! `beforeReadFile`, `postToolUse`, `beforeSubmitPrompt`,
//! `afterAgentResponse`, `stop`, `sessionEnd` (HOOKS.md §3).
//!
//! Flat snake_case answers (`permission`, `user_message`, `agent_message`,
//! `updated_input`, `updated_mcp_tool_output`, `additional_context`,
//! `continue`). Every answer is a JSON object, because a hook installed with
//! `failClosed: true` blocks on empty output.

use super::{
    maybe_json, opt_str, str_of, Answer, Decision, Event, Output, PostAnswer, PreAnswer,
    PromptAnswer, ToolEvent,
};
use serde_json::{json, Value};

fn session_of(raw: &Value) -> String {
    opt_str(raw, "conversation_id")
        .or_else(|| opt_str(raw, "session_id"))
        .unwrap_or_default()
}

fn cwd_of(raw: &Value) -> Option<String> {
    opt_str(raw, "cwd").or_else(|| raw["workspace_roots"][0].as_str().map(str::to_owned))
}

/// The host's event, normalized.
pub(crate) fn parse(raw: &Value) -> Event {
    let session = session_of(raw);
    let base = ToolEvent {
        session: session.clone(),
        turn: opt_str(raw, "generation_id"),
        cwd: cwd_of(raw),
        ..ToolEvent::default()
    };
    let name = str_of(raw, "tool_name");
    match raw["hook_event_name"].as_str().unwrap_or_default() {
        "preToolUse" => Event::PreTool(ToolEvent {
            mcp: name.starts_with("MCP:"),
            tool: name,
            input: maybe_json(&raw["tool_input"]),
            ..base
        }),
        "beforeShellExecution" => Event::PreTool(ToolEvent {
            tool: "Shell".to_owned(),
            input: json!({"command": str_of(raw, "command")}),
            ..base
        }),
        "beforeMCPExecution" => Event::PreTool(ToolEvent {
            tool: format!("MCP:{name}"),
            input: maybe_json(&raw["tool_input"]),
            mcp: true,
            ..base
        }),
        "postToolUse" => Event::PostTool(ToolEvent {
            mcp: name.starts_with("MCP:"),
            tool: name,
            input: maybe_json(&raw["tool_input"]),
            output: maybe_json(&raw["tool_output"]),
            ..base
        }),
        // The file's content is about to enter the context: scan it like a result.
        "beforeReadFile" => Event::PostTool(ToolEvent {
            tool: "Read".to_owned(),
            input: json!({"file_path": str_of(raw, "file_path")}),
            output: Value::String(str_of(raw, "content")),
            ..base
        }),
        "beforeSubmitPrompt" => Event::Prompt {
            session,
            turn: opt_str(raw, "generation_id"),
            text: str_of(raw, "prompt"),
        },
        // The reply's text arrives here; `stop` then finds the turn judged.
        "afterAgentResponse" | "stop" => Event::Stop {
            session,
            reply: str_of(raw, "text"),
            prompt: None,
        },
        "sessionEnd" => Event::SessionEnd { session },
        other => Event::Other(other.to_owned()),
    }
}

/// The answer in Cursor's protocol.
pub(crate) fn render(raw: &Value, event: &Event, answer: &Answer) -> Output {
    let name = raw["hook_event_name"].as_str().unwrap_or_default();
    match (event, answer) {
        (Event::PreTool(_), Answer::Pre(a)) => pre(name, a),
        (Event::PostTool(_), Answer::Post(a)) if name == "beforeReadFile" => {
            if a.held {
                let note = a.context.clone().unwrap_or_default();
                Output::json(
                    json!({"permission": "deny", "user_message": note, "agent_message": note}),
                )
            } else {
                Output::json(json!({"permission": "allow"}))
            }
        }
        (Event::PostTool(t), Answer::Post(a)) => post(t, a),
        (Event::Prompt { .. }, Answer::Prompt(PromptAnswer::Block(reason))) => {
            Output::json(json!({"continue": false, "user_message": reason}))
        }
        (Event::Prompt { .. }, _) => Output::json(json!({"continue": true})),
        _ => Output::json(json!({})),
    }
}

fn pre(name: &str, a: &PreAnswer) -> Output {
    // `ask` is enforced on shell and MCP hooks only; preToolUse can rewrite.
    let can_ask = name != "preToolUse";
    let can_rewrite = name == "preToolUse";
    let deny = || {
        Output::json(
            json!({"permission": "deny", "user_message": a.reason, "agent_message": a.reason}),
        )
    };
    let ask = |why: &str| {
        Output::json(json!({"permission": "ask", "user_message": why, "agent_message": why}))
    };
    match (a.decision, &a.updated_input) {
        (Decision::Deny, _) => deny(),
        (Decision::Ask, _) if can_ask => ask(&a.reason),
        (Decision::Ask, _) => deny(),
        (Decision::Allow, Some(input)) if can_rewrite => {
            Output::json(json!({"permission": "allow", "updated_input": input, "agent_message": a.reason}))
        }
        (Decision::Allow, Some(_)) if can_ask => ask(&format!(
            "{} — this hook cannot rewrite the command; approve only if sending the credential is intended.",
            a.reason
        )),
        (Decision::Allow, Some(_)) => deny(),
        (Decision::Allow, None) => Output::json(json!({"permission": "allow"})),
    }
}

fn post(t: &ToolEvent, a: &PostAnswer) -> Output {
    let mut out = json!({});
    if t.mcp {
        if let Some(replaced) = &a.replaced {
            out["updated_mcp_tool_output"] = replaced.clone();
        }
    } else if a.replaced.is_some() && !a.held {
        // Built-in tool output cannot be rewritten here: warn the model.
        out["additional_context"] = Value::from(
            "[egress-guard] the tool output carries credentials or small counts; do not repeat or send them.",
        );
    }
    if let Some(note) = &a.context {
        out["additional_context"] = Value::String(note.clone());
    }
    Output::json(out)
}
