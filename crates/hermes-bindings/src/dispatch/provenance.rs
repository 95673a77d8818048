//! provenance-gate: capture what the user typed (pre_llm_call), check
//! memory/skill writes for unbacked decision claims (pre_tool_call).
//!
//! Files, under `plugin-data/provenance-gate/`: `said.jsonl` (the user's
//! cleaned messages, secrets masked) and `evidence.jsonl` (one row per claim
//! checked, the seed's field names). Both 0600, pruned hourly to
//! `PROVENANCE_GATE_RETENTION_DAYS`.

use super::adapters::{self, ProvenanceCheck, SaidMessage, WriteTarget};
use super::{session_of, Ctx, DispatchError};
use crate::config::{ProvenanceConfig, ProvenanceMode, Search};
use crate::hooks::{Directive, Hook, HookCall, PreLlmCall, PreToolCall};
use crate::storage::jsonl::{IncrementalCache, JsonlLog};
use crate::storage::paths::sha256_hex;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Platforms whose `pre_llm_call` text the user did not type.
const NOT_THE_USER: &[&str] = &["curator", "subagent", "cron"];

/// Headers of turns Hermes writes itself (stored as nothing).
const SCAFFOLDING: &[&str] = &[
    "[System:",
    "[System note:",
    "[CONTEXT",
    "[PRIOR CONTEXT",
    "[IMPORTANT:",
    "[Your active task list",
    "[Planning state preserved",
    "[ASYNC DELEGATION",
    "[OUT-OF-BAND",
    "Cronjob Response:",
    "[Background process",
    "[Continuing toward",
    "[Goal set]",
    "[Heartbeat",
];

/// The message added to the third and later blocks of one target in a turn.
pub(crate) const STOP_RETRYING: &str = "Stop retrying this write; ask the user instead.";

#[derive(Default)]
pub(crate) struct ProvenanceState {
    said: Option<(PathBuf, IncrementalCache)>,
    /// Blocks per (session, turn, target) — the third adds STOP_RETRYING.
    blocks: HashMap<(String, String, String), u32>,
}

pub(crate) fn files(home: &Path) -> (JsonlLog, JsonlLog) {
    let dir = crate::GuardName::Provenance.data_dir(home);
    (
        JsonlLog::new(dir.join("said.jsonl")),
        JsonlLog::new(dir.join("evidence.jsonl")),
    )
}

pub(crate) fn dispatch(
    ctx: &Ctx<'_>,
    state: &mut ProvenanceState,
    call: &HookCall,
) -> Result<Directive, DispatchError> {
    let config = ProvenanceConfig::from_env(ctx.env);
    match call {
        HookCall::PreLlmCall(p) => {
            // A capture failure is logged and ignored (the seed's rule).
            let _ = capture(ctx, &config, p);
            Ok(Directive::None)
        }
        HookCall::PreToolCall(p) if is_write_tool(&p.tool_name) => check(ctx, &config, state, p),
        _ => Ok(Directive::None),
    }
}

fn is_write_tool(name: &str) -> bool {
    name == "memory" || name == "skill_manage"
}

fn capture(ctx: &Ctx<'_>, config: &ProvenanceConfig, p: &PreLlmCall) -> Result<(), DispatchError> {
    if p.platform
        .as_deref()
        .is_some_and(|pl| NOT_THE_USER.contains(&pl))
    {
        return Ok(());
    }
    let raw = p.user_text();
    let trimmed = raw.trim_start();
    if SCAFFOLDING.iter().any(|h| trimmed.starts_with(h)) {
        return Ok(());
    }
    let cleaned = adapters::clean_user_message(&raw);
    if cleaned.trim().is_empty() {
        return Ok(());
    }
    let text = adapters::mask_secrets(&cleaned);
    let session = p.session_id.clone().unwrap_or_default();
    let ts = ctx.now.to_string();
    let msg_id = sha256_hex(format!("{session}\n{ts}\n{text}").as_bytes())[..16].to_owned();
    let (said, evidence) = files(ctx.home);
    said.append(&json!({
        "ts": ts,
        "session": session,
        "msg_id": msg_id,
        "text": text,
        "sender_id": p.sender_id.clone().unwrap_or_default(),
        "parent_session_id": p.parent_session_id,
        "platform": p.platform,
        "turn_id": p.turn_id,
    }))?;
    prune(ctx, config, &said, &evidence);
    Ok(())
}

fn prune(ctx: &Ctx<'_>, config: &ProvenanceConfig, said: &JsonlLog, evidence: &JsonlLog) {
    let cutoff = ctx.now.minus_days(config.retention_days);
    // Best effort: a failed prune is retried at the next write.
    let _ = said.prune_if_due("ts", cutoff, ctx.now, 3600);
    let _ = evidence.prune_if_due("ts", cutoff, ctx.now, 3600);
}

/// The user's messages visible to a check, oldest first.
fn said_messages(
    ctx: &Ctx<'_>,
    config: &ProvenanceConfig,
    state: &mut ProvenanceState,
    session: &str,
) -> (Vec<SaidMessage>, Vec<SaidMessage>) {
    let (said, _) = files(ctx.home);
    let path = said.path().to_path_buf();
    let cache = match &mut state.said {
        Some((p, cache)) if *p == path => cache,
        slot => {
            *slot = Some((path, IncrementalCache::default()));
            match slot {
                Some((_, cache)) => cache,
                None => return (Vec::new(), Vec::new()),
            }
        }
    };
    // An unreadable said.jsonl means "nothing typed": claims then fail.
    if said.read_incremental(cache).is_err() {
        *cache = IncrementalCache::default();
        return (Vec::new(), Vec::new());
    }
    let cutoff = ctx.now.minus_days(config.retention_days);
    let rows: Vec<&Value> = cache
        .rows()
        .iter()
        .filter(|r| crate::storage::jsonl::row_time(r, "ts").is_none_or(|t| t >= cutoff))
        .collect();
    // Sessions linked by compression count as this session.
    let mut sessions: HashSet<String> = HashSet::from([session.to_owned()]);
    for _ in 0..32 {
        let before = sessions.len();
        for r in &rows {
            let s = r["session"].as_str().unwrap_or_default();
            if let Some(parent) = r["parent_session_id"].as_str() {
                if sessions.contains(s) && !parent.is_empty() {
                    sessions.insert(parent.to_owned());
                }
            }
        }
        if sessions.len() == before {
            break;
        }
    }
    let to_msg = |r: &Value| SaidMessage {
        text: r["text"].as_str().unwrap_or_default().to_owned(),
        msg_id: r["msg_id"].as_str().unwrap_or_default().to_owned(),
        sender_id: r["sender_id"].as_str().unwrap_or_default().to_owned(),
    };
    let this: Vec<SaidMessage> = if session.is_empty() {
        Vec::new()
    } else {
        rows.iter()
            .filter(|r| sessions.contains(r["session"].as_str().unwrap_or_default()))
            .map(|r| to_msg(r))
            .collect()
    };
    let other: Vec<SaidMessage> = match config.search {
        Search::Session => Vec::new(),
        Search::Profile => rows
            .iter()
            .filter(|r| !sessions.contains(r["session"].as_str().unwrap_or_default()))
            .map(|r| to_msg(r))
            .collect(),
    };
    (this, other)
}

/// The stored file a write edits, read from disk (empty when absent).
fn stored_text(home: &Path, tool: &str, args: &Value) -> String {
    let read = |p: PathBuf| std::fs::read_to_string(p).unwrap_or_default();
    if tool == "memory" {
        let target = args["target"].as_str().unwrap_or("memory");
        let file = if target == "user" {
            "USER.md"
        } else {
            "MEMORY.md"
        };
        return read(home.join("memories").join(file));
    }
    let Some(name) = args["name"].as_str() else {
        return String::new();
    };
    // Skill names are ^[a-z0-9][a-z0-9._-]*$; anything else cannot be a skill
    // folder and is never joined onto a path.
    let valid = !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b));
    if !valid {
        return String::new();
    }
    let file = args["file_path"]
        .as_str()
        .filter(|f| !f.is_empty() && !f.contains("..") && !f.starts_with('/'))
        .unwrap_or("SKILL.md");
    let skills = home.join("skills");
    let direct = skills.join(name).join(file);
    if direct.is_file() {
        return read(direct);
    }
    // One category level: skills/<category>/<name>/.
    if let Ok(entries) = std::fs::read_dir(&skills) {
        for entry in entries.flatten().take(512) {
            let candidate = entry.path().join(name).join(file);
            if candidate.is_file() {
                return read(candidate);
            }
        }
    }
    String::new()
}

fn check(
    ctx: &Ctx<'_>,
    config: &ProvenanceConfig,
    state: &mut ProvenanceState,
    p: &PreToolCall,
) -> Result<Directive, DispatchError> {
    let session = p.session_id.clone().unwrap_or_default();
    let (this_session, profile) = said_messages(ctx, config, state, &session);
    let stored = stored_text(ctx.home, &p.tool_name, &p.args);
    let target = WriteTarget::of(&p.tool_name, &p.args);
    let result: ProvenanceCheck = adapters::provenance_check(
        &p.tool_name,
        &p.args,
        &stored,
        &this_session,
        &profile,
        config,
    )?;
    let (_, evidence) = files(ctx.home);
    let enforced = matches!(config.mode, ProvenanceMode::Block | ProvenanceMode::Ask);
    let verdict_word = |pass: bool| {
        if pass {
            "pass"
        } else if enforced {
            match config.mode {
                ProvenanceMode::Ask => "approve",
                _ => "blocked",
            }
        } else {
            "would_block"
        }
    };
    let mut rows = Vec::new();
    for claim in &result.claims {
        let mut row = claim.clone();
        if let Value::Object(o) = &mut row {
            let pass = o.get("verdict").and_then(Value::as_str) == Some("pass");
            o.insert("ts".into(), json!(ctx.now.to_string()));
            o.insert("session".into(), json!(session));
            o.insert("guard".into(), json!("provenance-gate"));
            o.insert("tool".into(), json!(p.tool_name));
            o.insert("target".into(), json!(target.label));
            o.insert("verdict".into(), json!(verdict_word(pass)));
            o.insert("mode".into(), json!(config.mode));
        }
        rows.push(serde_json::to_string(&row).unwrap_or_default());
    }
    if result.claims.is_empty() && !result.pass {
        // An unreadable write (bad argument shape) is one row.
        rows.push(
            json!({"ts": ctx.now.to_string(), "session": session, "guard": "provenance-gate",
                "tool": p.tool_name, "target": target.label, "claim": null, "quote": null,
                "verdict": verdict_word(false), "reason": result.reason, "mode": config.mode})
            .to_string(),
        );
    }
    // The verdict is decided before anything is logged; a failed log write
    // does not change it.
    if !rows.is_empty() {
        let _ = evidence.append_lines(&rows);
    }
    if result.pass {
        return Ok(Directive::None);
    }
    let rule_key = format!("provenance-gate:{}", result.reason);
    match config.mode {
        ProvenanceMode::Observe => Ok(Directive::None),
        ProvenanceMode::Ask => Ok(Directive::approve(result.message.clone(), rule_key)),
        ProvenanceMode::Block => {
            let key = (
                session,
                p.turn_id.clone().unwrap_or_default(),
                target.label.clone(),
            );
            // Bound the map: a long-running process forgets old turns.
            if state.blocks.len() > 4096 {
                state.blocks.clear();
            }
            let n = state.blocks.entry(key).or_insert(0);
            *n += 1;
            let mut message = result.message.clone();
            if *n >= 3 {
                message.push(' ');
                message.push_str(STOP_RETRYING);
            }
            Ok(Directive::block(message))
        }
    }
}

pub(crate) fn fail(
    ctx: &Ctx<'_>,
    _state: &mut ProvenanceState,
    hook: Option<Hook>,
    call: Option<&HookCall>,
    error: &str,
) -> Directive {
    // Only a memory/skill_manage check has a verdict to fail; a capture
    // failure is ignored.
    let tool = match call {
        Some(HookCall::PreToolCall(p)) => p.tool_name.clone(),
        None if hook == Some(Hook::PreToolCall) => String::new(),
        _ => return Directive::None,
    };
    if !tool.is_empty() && !is_write_tool(&tool) {
        return Directive::None;
    }
    let config = ProvenanceConfig::from_env(ctx.env);
    let verdict = match config.mode {
        ProvenanceMode::Observe => "would_block",
        ProvenanceMode::Ask => "approve",
        ProvenanceMode::Block => "blocked",
    };
    let reason = if call.is_none() {
        "unreadable_arguments"
    } else {
        "internal_error"
    };
    let (_, evidence) = files(ctx.home);
    let _ = evidence.append(&json!({
        "ts": ctx.now.to_string(), "session": session_of(call), "guard": "provenance-gate",
        "tool": tool, "claim": null, "quote": null, "verdict": verdict, "reason": reason,
        "error": crate::dispatch::adapters::mask_secrets(error), "mode": config.mode,
    }));
    let message = format!(
        "provenance-gate: this write could not be checked ({reason}). Nothing was written."
    );
    match config.mode {
        ProvenanceMode::Observe => Directive::None,
        ProvenanceMode::Ask => Directive::approve(message, format!("provenance-gate:{reason}")),
        ProvenanceMode::Block => Directive::block(message),
    }
}
