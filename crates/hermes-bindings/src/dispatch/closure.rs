//! turn-closure-audit: observe tool calls (post_tool_call) and the reply
//! (post_llm_call), judge the turn at `on_session_end`, write the trail.
//!
//! Files, under `plugin-data/turn-closure-audit/`:
//!
//! * `turns.jsonl` — one judgment per turn;
//! * `latest/<safe-session-id>.json` — the session's latest snapshot
//!   (atomic rewrite; the name comes from [`safe_component`], so hostile
//!   session ids never leave `latest/`);
//! * `candidates/events/<YYYY-MM-DD>.jsonl` — the append-only candidate
//!   event ledger (the authoritative candidate truth);
//! * `notes/<YYYY-MM-DD>.md` — the daily note (compatibility surface);
//! * `review/turn-closure-candidates-<YYYY-MM-DD>.jsonl` — review JSONL.
//!
//! Everything stored is a redacted preview, never a transcript.

use super::adapters::{self, ClosureToolCall, ClosureTurn};
use super::{session_of, Ctx, DispatchError};
use crate::hooks::{message_text, Directive, Hook, HookCall};
use crate::storage::jsonl::{atomic_write, JsonlLog};
use crate::storage::paths::{safe_component, sha256_hex};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Previews are cut to this many characters before they are stored.
pub(crate) const PREVIEW_CHARS: usize = 400;
/// Tool calls remembered per turn.
const MAX_CALLS: usize = 256;
/// Text kept per field for the judgment.
const MAX_FIELD: usize = 8192;
/// Sessions with an open turn (oldest dropped beyond this).
const MAX_OPEN: usize = 1024;

#[derive(Default)]
pub(crate) struct ClosureState {
    open: HashMap<String, ClosureTurn>,
}

pub(crate) fn dir(home: &Path) -> PathBuf {
    crate::GuardName::Closure.data_dir(home)
}

pub(crate) fn turns_log(home: &Path) -> JsonlLog {
    JsonlLog::new(dir(home).join("turns.jsonl"))
}

pub(crate) fn events_dir(home: &Path) -> PathBuf {
    dir(home).join("candidates").join("events")
}

fn cut(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}

fn cap_value(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(cut(s, MAX_FIELD)),
        Value::Object(o) => Value::Object(
            o.iter()
                .take(64)
                .map(|(k, x)| (k.clone(), cap_value(x)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().take(64).map(cap_value).collect()),
        other => other.clone(),
    }
}

pub(crate) fn dispatch(
    ctx: &Ctx<'_>,
    state: &mut ClosureState,
    call: &HookCall,
) -> Result<Directive, DispatchError> {
    let session = session_of(Some(call));
    if state.open.len() > MAX_OPEN && !state.open.contains_key(&session) {
        state.open.clear();
    }
    match call {
        HookCall::PostToolCall(p) => {
            let turn = state.open.entry(session).or_default();
            if turn.tool_calls.len() < MAX_CALLS {
                turn.tool_calls.push(ClosureToolCall {
                    name: p.tool_name.clone(),
                    args: cap_value(&p.args),
                    result: cut(&p.result_text(), MAX_FIELD),
                    succeeded: p.succeeded(),
                    cwd: p.cwd.clone(),
                });
            }
            Ok(Directive::None)
        }
        HookCall::PostLlmCall(p) => {
            let turn = state.open.entry(session).or_default();
            turn.user = cut(&message_text(&p.user_message), MAX_FIELD);
            turn.assistant = cut(&p.assistant_response, MAX_FIELD);
            Ok(Directive::None)
        }
        HookCall::OnSessionEnd(p) => {
            let mut turn = state.open.remove(&session).unwrap_or_default();
            turn.completed = p.completed;
            turn.interrupted = p.interrupted;
            finish(ctx, &session, p.turn_id.as_deref(), &turn)?;
            Ok(Directive::None)
        }
        _ => Ok(Directive::None),
    }
}

fn finish(
    ctx: &Ctx<'_>,
    session: &str,
    turn_id: Option<&str>,
    turn: &ClosureTurn,
) -> Result<(), DispatchError> {
    let judgment = adapters::closure_judge(turn)?;
    let date = ctx.now.date();
    let ts = ctx.now.to_string();
    let redact = |s: &str| adapters::closure_redact(&cut(s, PREVIEW_CHARS * 4));
    let user_preview = cut(&redact(&turn.user), PREVIEW_CHARS);
    let assistant_preview = cut(&redact(&turn.assistant), PREVIEW_CHARS);
    let row = json!({
        "ts": ts,
        "session": session,
        "guard": "turn-closure-audit",
        "target": "turn",
        "turn_id": turn_id,
        "verdict": "pass",
        "judgment": judgment.judgment,
        "reason": judgment.reasons.first(),
        "reasons": judgment.reasons,
        "completed": turn.completed,
        "interrupted": turn.interrupted,
        "tool_calls": turn.tool_calls.iter().map(|c| json!({"name": c.name, "ok": c.succeeded})).collect::<Vec<_>>(),
        "writes": judgment.writes,
        "user_preview": user_preview,
        "assistant_preview": assistant_preview,
        "candidate_id": judgment.candidate.as_ref().and_then(|c| c.get("candidate_id")).cloned(),
    });
    turns_log(ctx.home).append(&row)?;
    let latest = dir(ctx.home)
        .join("latest")
        .join(format!("{}.json", safe_component(session)));
    atomic_write(
        &latest,
        serde_json::to_string_pretty(&row)
            .unwrap_or_default()
            .as_bytes(),
    )?;
    if let Some(candidate) = &judgment.candidate {
        let mut candidate = candidate.clone();
        let id = candidate
            .get("candidate_id")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| {
                sha256_hex(format!("{session}\n{}\n{ts}", turn_id.unwrap_or("")).as_bytes())[..16]
                    .to_owned()
            });
        if let Value::Object(o) = &mut candidate {
            o.insert("candidate_id".into(), json!(id));
            o.entry("status").or_insert(json!("pending"));
            o.insert("session".into(), json!(session));
            o.insert("created".into(), json!(ts));
        }
        let event = json!({"ts": ts, "event": "created", "candidate_id": id, "status": "pending", "candidate": candidate});
        JsonlLog::new(events_dir(ctx.home).join(format!("{date}.jsonl"))).append(&event)?;
        JsonlLog::new(
            dir(ctx.home)
                .join("review")
                .join(format!("turn-closure-candidates-{date}.jsonl")),
        )
        .append(&candidate)?;
        append_note(
            &dir(ctx.home).join("notes").join(format!("{date}.md")),
            &format!(
                "- {ts} `{}` candidate {id} ({}): {}\n",
                safe_component(session),
                candidate["classification"]
                    .as_str()
                    .unwrap_or("unclassified"),
                palisade_common::mask::preview_line(&user_preview, 160)
            ),
        )?;
    }
    Ok(())
}

fn append_note(path: &Path, line: &str) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        crate::storage::ensure_dir(parent)?;
    }
    let mut f = crate::storage::private_options()
        .create(true)
        .append(true)
        .open(path)?;
    f.write_all(line.as_bytes())
}

pub(crate) fn fail(
    ctx: &Ctx<'_>,
    _state: &mut ClosureState,
    hook: Option<Hook>,
    call: Option<&HookCall>,
    error: &str,
) -> Directive {
    // An observer: record the failure, never change the turn.
    let _ = turns_log(ctx.home).append(&json!({
        "ts": ctx.now.to_string(), "session": session_of(call), "guard": "turn-closure-audit",
        "target": hook.map(Hook::name), "verdict": "unscanned", "reason": "internal_error",
        "error": adapters::closure_redact(error),
    }));
    Directive::None
}
