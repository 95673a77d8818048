//! provenance-gate: capture what the user typed (pre_llm_call), check
//! memory/skill writes for unbacked decision claims (pre_tool_call).
//!
//! Files, under `plugin-data/provenance-gate/`: `said.jsonl` (the user's
//! cleaned messages, secrets masked) and `evidence.jsonl` (one row per claim
//! checked, the seed's field names). Both 0600, pruned hourly to
//! `PROVENANCE_GATE_RETENTION_DAYS` and 64 MiB (the newest rows are kept).

use super::adapters::{self, WriteTarget};
use super::{session_of, Ctx, DispatchError};
use crate::config::{ProvenanceConfig, ProvenanceMode, Scope, Search};
use crate::hooks::{Directive, Hook, HookCall, PreLlmCall, PreToolCall};
use crate::storage::jsonl::{row_time, IncrementalCache, JsonlLog};
use crate::storage::paths::sha256_hex;
use crate::time::Timestamp;
use palisade_provenance::gate::{ClaimVerdict, Gate, GateConfig, Outcome, Reason, Report};
use palisade_provenance::replay::{check_write_cached, Stored, StoredCache};
use palisade_provenance::said::{SaidIndex, SearchScope};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The message added to the third and later blocks of one target in a turn.
pub(crate) const STOP_RETRYING: &str = "Stop retrying this write; ask the user instead.";

#[derive(Default)]
pub(crate) struct ProvenanceState {
    said: Option<SaidCache>,
    /// Blocks per (session, turn, target) — the third adds STOP_RETRYING.
    blocks: HashMap<(String, String, String), u32>,
    /// MEMORY.md / USER.md / skill files, reused while unchanged on disk.
    files: FileCache,
    /// The home and time this process last looked at the prune markers.
    prune_checked: Option<(PathBuf, i64)>,
    /// Stored texts (MEMORY.md, skill files) normalized once, by content.
    prepared: StoredCache,
    /// Writes sent to the approval gate (ask mode), by tool call, waiting
    /// for post_tool_call to say how the human answered.
    asked: HashMap<String, AskedWrite>,
}

/// A write sent to Hermes' approval gate, until its outcome is known.
#[derive(Clone, Debug)]
struct AskedWrite {
    session: String,
    tool: String,
    target: String,
    reason: &'static str,
}

/// Asked writes remembered at once (a host that never reports an outcome
/// must not grow memory).
const MAX_ASKED: usize = 1024;

/// The key of one tool call: its id, else session + turn + tool.
fn call_key(session: &str, turn: Option<&str>, call_id: Option<&str>, tool: &str) -> String {
    match call_id.filter(|id| !id.is_empty()) {
        Some(id) => format!("id:{id}"),
        None => format!("s:{session}\u{1f}{}\u{1f}{tool}", turn.unwrap_or_default()),
    }
}

/// What the human's answer was, from the post_tool_call of an asked write:
/// the write ran (`approved`), or Hermes' gate refused it, because the
/// human said no (`denied`), did not answer in time (`timed_out`) or no
/// one was there to ask (`no_approver`).
fn ask_outcome(p: &crate::hooks::PostToolCall) -> &'static str {
    if p.succeeded() {
        return "approved";
    }
    let text = format!(
        "{} {}",
        p.error_message.as_deref().unwrap_or_default(),
        p.result_text()
    )
    .to_ascii_lowercase();
    if text.contains("timed out") || text.contains("timeout") {
        "timed_out"
    } else if text.contains("no interactive user") || text.contains("no gateway") {
        "no_approver"
    } else if p.status.as_deref() == Some("blocked") || text.contains("denied") {
        "denied"
    } else {
        "approved_but_failed"
    }
}

/// How often one process looks at the logs' `.pruned` markers.
const PRUNE_CHECK_SECS: i64 = 60;

/// What identifies one version of a file on disk: modification time,
/// length and inode. Hermes rewrites MEMORY.md atomically (temp file +
/// rename), so every write gets a new inode even inside one mtime tick.
type FileStamp = (Option<std::time::SystemTime>, u64, u64);

fn stamp_of(meta: &std::fs::Metadata) -> FileStamp {
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(meta);
    #[cfg(not(unix))]
    let inode = 0;
    (meta.modified().ok(), meta.len(), inode)
}

/// Files the gate replays writes over, read from disk once per version.
#[derive(Default)]
pub(crate) struct FileCache {
    files: HashMap<PathBuf, (FileStamp, String)>,
}

/// Distinct files remembered (all dropped beyond this).
const MAX_CACHED_FILES: usize = 64;

impl FileCache {
    /// The file's text ("" when it is missing or unreadable), re-read only
    /// when its stamp changed.
    pub(crate) fn read(&mut self, path: &Path) -> String {
        let meta = match std::fs::metadata(path) {
            Ok(m) if m.is_file() => m,
            _ => {
                self.files.remove(path);
                return String::new();
            }
        };
        let stamp = stamp_of(&meta);
        if let Some((s, text)) = self.files.get(path) {
            if *s == stamp {
                return text.clone();
            }
        }
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if self.files.len() >= MAX_CACHED_FILES {
            self.files.clear();
        }
        self.files.insert(path.to_path_buf(), (stamp, text.clone()));
        text
    }
}

/// said.jsonl parsed once and indexed; reused while the file only grows.
pub(crate) struct SaidCache {
    path: PathBuf,
    rows: IncrementalCache,
    /// Rows of `rows` already pushed into `index`.
    indexed: usize,
    index: SaidIndex,
    /// msg_id of each indexed message.
    ids: Vec<String>,
    /// Why the file could not be read at the last refresh, if it could not.
    unreadable: Option<String>,
}

impl SaidCache {
    fn new(path: PathBuf) -> SaidCache {
        SaidCache {
            path,
            rows: IncrementalCache::default(),
            indexed: 0,
            index: SaidIndex::new(),
            ids: Vec::new(),
            unreadable: None,
        }
    }

    /// Read new rows (a rewrite rebuilds the index). An unreadable file
    /// means "nothing typed": the index is emptied and claims then fail.
    pub(crate) fn refresh(&mut self, log: &JsonlLog, cutoff: Timestamp) {
        if let Err(e) = log.read_incremental(&mut self.rows) {
            *self = SaidCache::new(self.path.clone());
            self.unreadable = Some(e.to_string());
            return;
        }
        self.unreadable = None;
        if self.rows.rows().len() < self.indexed {
            let path = self.path.clone();
            let rows = std::mem::take(&mut self.rows);
            *self = SaidCache::new(path);
            self.rows = rows;
        }
        for r in &self.rows.rows()[self.indexed..] {
            if row_time(r, "ts").is_some_and(|t| t < cutoff) {
                continue;
            }
            let text = r["text"].as_str().unwrap_or_default();
            self.index.push(
                r["session"].as_str().unwrap_or_default(),
                r["parent_session_id"].as_str(),
                r["sender_id"].as_str().unwrap_or_default(),
                text,
            );
            self.ids
                .push(r["msg_id"].as_str().unwrap_or_default().to_owned());
        }
        self.indexed = self.rows.rows().len();
    }

    pub(crate) fn index(&self) -> &SaidIndex {
        &self.index
    }

    pub(crate) fn msg_id(&self, message: usize) -> Option<&str> {
        self.ids.get(message).map(String::as_str)
    }
}

pub(crate) fn gate_config(config: &ProvenanceConfig) -> GateConfig {
    GateConfig {
        scope: match config.scope {
            Scope::Decisions => palisade_provenance::Scope::Decisions,
            Scope::DecisionsAndPreferences => palisade_provenance::Scope::DecisionsAndPreferences,
        },
        search: match config.search {
            Search::Session => SearchScope::Session,
            Search::Profile => SearchScope::Profile,
        },
    }
}

/// The gate for a config, built once per process and config.
pub(crate) fn gate(config: &ProvenanceConfig) -> &'static Gate {
    static GATES: [OnceLock<Gate>; 4] = [
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
    ];
    let wanted = gate_config(config);
    let slot = usize::from(matches!(config.scope, Scope::DecisionsAndPreferences)) * 2
        + usize::from(matches!(config.search, Search::Profile));
    GATES[slot].get_or_init(|| Gate::new(wanted))
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
            let _ = capture(ctx, &config, state, p);
            Ok(Directive::None)
        }
        HookCall::PreToolCall(p) if is_write_tool(&p.tool_name) => check(ctx, &config, state, p),
        HookCall::PostToolCall(p) if is_write_tool(&p.tool_name) => {
            record_ask_outcome(ctx, &config, state, p);
            Ok(Directive::None)
        }
        _ => Ok(Directive::None),
    }
}

/// The evidence row for the human's answer to an asked write, so `report`
/// shows what landed (the `approve` row only says a human was asked).
fn record_ask_outcome(
    ctx: &Ctx<'_>,
    config: &ProvenanceConfig,
    state: &mut ProvenanceState,
    p: &crate::hooks::PostToolCall,
) {
    let session = p.session_id.clone().unwrap_or_default();
    let key = call_key(
        &session,
        p.turn_id.as_deref(),
        p.tool_call_id.as_deref(),
        &p.tool_name,
    );
    let Some(asked) = state.asked.remove(&key) else {
        return;
    };
    let (_, evidence) = files(ctx.home);
    let _ = evidence.append(&json!({
        "ts": ctx.now.to_string(), "session": asked.session, "guard": "provenance-gate",
        "tool": asked.tool, "target": asked.target, "claim": null, "quote": null,
        "verdict": ask_outcome(p), "reason": asked.reason, "outcome_of": "approve",
        "mode": config.mode,
    }));
}

fn is_write_tool(name: &str) -> bool {
    name == "memory" || name == "skill_manage"
}

fn capture(
    ctx: &Ctx<'_>,
    config: &ProvenanceConfig,
    state: &mut ProvenanceState,
    p: &PreLlmCall,
) -> Result<(), DispatchError> {
    let raw = p.user_text();
    let Some(cleaned) = palisade_provenance::clean_capture(&raw, p.platform.as_deref()) else {
        return Ok(());
    };
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
    prune(ctx, config, state, &said, &evidence);
    Ok(())
}

fn prune(
    ctx: &Ctx<'_>,
    config: &ProvenanceConfig,
    state: &mut ProvenanceState,
    said: &JsonlLog,
    evidence: &JsonlLog,
) {
    // The `.pruned` markers decide "at most hourly" across processes; this
    // process reads them at most once a minute per home, so a write does not
    // pay two marker reads.
    let now = ctx.now.unix();
    if let Some((home, last)) = &state.prune_checked {
        if home == ctx.home && now >= *last && now - last < PRUNE_CHECK_SECS {
            return;
        }
    }
    state.prune_checked = Some((ctx.home.to_path_buf(), now));
    // Age (PROVENANCE_GATE_RETENTION_DAYS) and the size cap every log has.
    let retention = crate::storage::jsonl::Retention {
        days: config.retention_days,
        ..Default::default()
    };
    // Best effort: a failed prune is retried at the next write.
    let _ = said.prune_sized_if_due(&retention, "ts", ctx.now, super::PRUNE_INTERVAL_SECS);
    let _ = evidence.prune_sized_if_due(&retention, "ts", ctx.now, super::PRUNE_INTERVAL_SECS);
}

/// The said index for this home, refreshed from disk.
pub(crate) fn said_index<'s>(
    ctx: &Ctx<'_>,
    config: &ProvenanceConfig,
    state: &'s mut ProvenanceState,
) -> &'s SaidCache {
    let (said, _) = files(ctx.home);
    if !matches!(&state.said, Some(c) if c.path == said.path()) {
        state.said = None;
    }
    let cache = state
        .said
        .get_or_insert_with(|| SaidCache::new(said.path().to_path_buf()));
    cache.refresh(&said, ctx.now.minus_days(config.retention_days));
    if let Some(e) = &cache.unreadable {
        ctx.warn(format!(
            "provenance-gate: cannot read {}: {e}; quoted user decisions are refused until it can be read",
            cache.path.display()
        ));
    }
    cache
}

/// The stored files a write edits, read from disk (through `files`).
pub(crate) fn stored_for(files: &mut FileCache, home: &Path, tool: &str, args: &Value) -> Stored {
    let mut stored = Stored::default();
    // Arguments may arrive as a JSON string; decode for the lookup only.
    let decoded;
    let args = match args {
        Value::String(s) => {
            decoded = serde_json::from_str::<Value>(s).unwrap_or(Value::Null);
            &decoded
        }
        other => other,
    };
    if tool == "memory" {
        let target = args["target"].as_str().unwrap_or("memory");
        let target = if target == "user" { "user" } else { "memory" };
        stored.set_memory(target, &stored_text(files, home, tool, args));
    } else if let Some(name) = args["name"].as_str() {
        let file = args["file_path"]
            .as_str()
            .filter(|f| !f.is_empty())
            .unwrap_or("SKILL.md");
        let text = stored_text(files, home, tool, args);
        if !text.is_empty() {
            stored.set_skill_file(name, file, &text);
        }
    }
    stored
}

fn stored_text(files: &mut FileCache, home: &Path, tool: &str, args: &Value) -> String {
    let mut read = |p: PathBuf| files.read(&p);
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

/// The seed's refusal message for a failing report.
/// The approval prompt: the refusal's reasons, worded as the question the
/// human is asked (a prompt that ends "Nothing was written." while asking
/// to allow the write reads as if the answer did not matter).
pub(crate) fn ask_question(refusal: &str) -> String {
    let reasons = refusal
        .strip_suffix(" Nothing was written.")
        .unwrap_or(refusal);
    format!(
        "{reasons} Allow this write anyway? Approve to write it as it is; deny, or leave it unanswered, and nothing is written."
    )
}

pub(crate) fn refusal_message(report: &Report) -> String {
    let failing: Option<&ClaimVerdict> = report.claims.iter().find(|c| c.outcome == Outcome::Block);
    let reason = report.reason.unwrap_or(Reason::NoQuote);
    let claim = failing
        .map(|c| c.claim.text.trim().to_owned())
        .unwrap_or_default();
    let claim = palisade_common::mask::preview_line(&adapters::mask_secrets(&claim), 300);
    let quote = failing
        .and_then(|c| c.quote.as_deref())
        .map(|q| palisade_common::mask::preview_line(&adapters::mask_secrets(q), 200));
    let why = match (reason, &quote) {
        (Reason::QuoteUnrelated, Some(q)) => format!(" The quoted words (\"{q}\") do not share key words with the decision."),
        (Reason::QuoteNegated, Some(q)) => format!(" The quoted words (\"{q}\") follow a negation in what the user typed (for example \"never …\" or \"don't …\"), so they do not back the decision."),
        (Reason::QuoteNotSaid, Some(q)) => format!(" The quoted words (\"{q}\") are not in what the user typed."),
        (Reason::QuoteFromQuestion, Some(q)) => format!(" The quoted words (\"{q}\") come from a question the user asked, not a decision."),
        (Reason::ShortQuote, Some(q)) => format!(" The quoted words (\"{q}\") are too short to count unless they are the user's whole recent message."),
        (Reason::TooManyClaims, _) => " The write has more than 100 decision claims.".to_owned(),
        _ => String::new(),
    };
    match reason {
        Reason::UnreadableArguments => "provenance-gate: the arguments of this write could not be read (an operations value that is not JSON, an item that is not an object, or a text field that is not a string). Nothing was written.".to_owned(),
        _ => format!(
            "provenance-gate: this write states a user decision (\"{claim}\") without the user's words.{why} Quote the user's exact words in \"...\" if they said it, or write it as your own suggestion or as an open question. Nothing was written."
        ),
    }
}

/// One evidence row per claim (the seed's field names).
pub(crate) fn evidence_rows(
    report: &Report,
    said: &SaidCache,
    verdict_of: impl Fn(bool) -> &'static str,
) -> Vec<Value> {
    report
        .claims
        .iter()
        .map(|c| {
            let pass = c.outcome == Outcome::Pass;
            json!({
                "claim": adapters::mask_secrets(&c.claim.text),
                "quote": c.quote.as_deref().map(adapters::mask_secrets),
                "msg_id": c.message.and_then(|m| said.msg_id(m)),
                "matched_in": c.matched_in,
                "sender_id": c.sender,
                "role": c.role,
                "condition": c.condition,
                "verdict": verdict_of(pass),
                "reason": c.reason.map(Reason::as_str),
                "rule": c.claim.rule,
            })
        })
        .collect()
}

fn check(
    ctx: &Ctx<'_>,
    config: &ProvenanceConfig,
    state: &mut ProvenanceState,
    p: &PreToolCall,
) -> Result<Directive, DispatchError> {
    let session = p.session_id.clone().unwrap_or_default();
    let stored = stored_for(&mut state.files, ctx.home, &p.tool_name, &p.args);
    let target = WriteTarget::of(&p.tool_name, &p.args);
    let gate = gate(config);
    // Taken out for the call: the said index below borrows the state.
    let mut prepared = std::mem::take(&mut state.prepared);
    let said = said_index(ctx, config, state);
    let store_unreadable = said.unreadable.is_some();
    let report = check_write_cached(
        gate,
        &p.tool_name,
        &p.args,
        &stored,
        said.index(),
        &session,
        &mut prepared,
    );
    let enforced = config.mode;
    let verdict_of = |pass: bool| -> &'static str {
        if pass {
            "pass"
        } else {
            match enforced {
                ProvenanceMode::Observe => "would_block",
                ProvenanceMode::Ask => "approve",
                ProvenanceMode::Block => "blocked",
            }
        }
    };
    let mut rows = evidence_rows(&report, said, verdict_of);
    state.prepared = prepared;
    if rows.is_empty() && !report.is_pass() {
        // An unreadable write (bad argument shape) is one row.
        rows.push(
            json!({"claim": null, "quote": null, "verdict": verdict_of(false),
            "reason": report.reason.map(Reason::as_str)}),
        );
    }
    let lines: Vec<String> = rows
        .into_iter()
        .map(|mut row| {
            if let Value::Object(o) = &mut row {
                o.insert("ts".into(), json!(ctx.now.to_string()));
                o.insert("session".into(), json!(session));
                o.insert("guard".into(), json!("provenance-gate"));
                o.insert("tool".into(), json!(p.tool_name));
                o.insert("target".into(), json!(target.label));
                o.insert("mode".into(), json!(config.mode));
            }
            row.to_string()
        })
        .collect();
    // The verdict is decided before anything is logged; a failed log write
    // does not change it.
    let (said_log, evidence) = files(ctx.home);
    if !lines.is_empty() {
        let _ = evidence.append_lines(&lines);
        prune(ctx, config, state, &said_log, &evidence);
    }
    if report.is_pass() {
        return Ok(Directive::None);
    }
    let reason = report.reason.unwrap_or(Reason::NoQuote);
    let message = if store_unreadable {
        // Not "the user never typed it": the guard could not look.
        format!(
            "provenance-gate: the guard could not read its store ({}), so it cannot confirm the user's quoted words for this write; ask the owner to check the guard. Nothing was written.",
            said_log.path().display()
        )
    } else {
        refusal_message(&report)
    };
    match config.mode {
        ProvenanceMode::Observe => Ok(Directive::None),
        ProvenanceMode::Ask => {
            if state.asked.len() >= MAX_ASKED {
                state.asked.clear();
            }
            state.asked.insert(
                call_key(
                    &session,
                    p.turn_id.as_deref(),
                    p.tool_call_id.as_deref(),
                    &p.tool_name,
                ),
                AskedWrite {
                    session: session.clone(),
                    tool: p.tool_name.clone(),
                    target: target.label.clone(),
                    reason: reason.as_str(),
                },
            );
            Ok(Directive::approve(
                ask_question(&message),
                reason.rule_key().to_string(),
            ))
        }
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
            let mut message = message;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_cache_sees_every_rewrite() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("MEMORY.md");
        let mut cache = FileCache::default();
        assert_eq!(cache.read(&path), "", "missing file reads as empty");
        std::fs::write(&path, "alpha").unwrap();
        assert_eq!(cache.read(&path), "alpha");
        assert_eq!(cache.read(&path), "alpha", "cached read");
        // Same length, written the way Hermes writes memory (temp + rename),
        // immediately: the new inode shows the change within one mtime tick.
        let tmp = dir.path().join("MEMORY.md.tmp");
        std::fs::write(&tmp, "bravo").unwrap();
        std::fs::rename(&tmp, &path).unwrap();
        assert_eq!(cache.read(&path), "bravo");
        // A longer in-place write changes the length.
        std::fs::write(&path, "charlie").unwrap();
        assert_eq!(cache.read(&path), "charlie");
        std::fs::remove_file(&path).unwrap();
        assert_eq!(cache.read(&path), "", "a deleted file is forgotten");
        // Bounded: many distinct files never grow the cache past its cap.
        for i in 0..(MAX_CACHED_FILES * 2) {
            let p = dir.path().join(format!("f{i}"));
            std::fs::write(&p, "x").unwrap();
            assert_eq!(cache.read(&p), "x");
        }
        assert!(cache.files.len() <= MAX_CACHED_FILES);
    }
}
