//! turn-closure-audit: observe tool calls (post_tool_call) and the reply
//! (post_llm_call), judge the turn at `on_session_end`, write the trail.
//!
//! Files, where the seed puts them ("What it writes"), under `$HERMES_HOME`:
//!
//! * `turn.closure.audit/turns.jsonl` — one judgment per turn (pruned at
//!   most hourly to `TURN_CLOSURE_AUDIT_RETENTION_DAYS`, default 30, and
//!   64 MiB);
//! * `turn.closure.audit/latest/<safe-session-id>--<sha1-12>.json` — the
//!   session's latest snapshot (atomic rewrite; the name comes from
//!   `session_filename`, so hostile session ids never leave `latest/`);
//! * `turn.closure.audit/candidates/events/<YYYY-MM-DD>.jsonl` — the
//!   append-only candidate event ledger (the authoritative candidate truth;
//!   never pruned by age, a pending candidate must not vanish);
//! * `memory/<YYYY-MM-DD>.md` — the daily note (compatibility surface; a
//!   block per candidate turn, deduplicated by its `<!-- turn-closure:ID -->`
//!   sentinel, as in the seed);
//! * `knowledge/review/turn-closure-candidates-<YYYY-MM-DD>.jsonl` — review
//!   JSONL (compatibility surface; day files older than the retention are
//!   removed with the turns pruning).
//!
//! Everything stored is a redacted preview, never a transcript.

use super::{session_of, Ctx, DispatchError};
use crate::hooks::{message_text, Directive, Hook, HookCall};
use crate::storage::jsonl::{replace_file, JsonlLog};
use crate::storage::paths::sha256_hex;
use palisade_closure::classify::{Classifier, Turn};
use palisade_closure::detect::{RetentionPolicy, ToolCall};
use palisade_closure::ledger::{CandidateEvent, Ledger as CandidateLedger, Proposal};
use palisade_closure::redact::redact_text;
use palisade_closure::session::session_filename;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Tool calls remembered per turn.
const MAX_CALLS: usize = 256;
/// Text kept per field for the judgment.
const MAX_FIELD: usize = 8192;
/// Sessions with an open turn (oldest dropped beyond this).
const MAX_OPEN: usize = 1024;

#[derive(Default)]
pub(crate) struct ClosureState {
    open: HashMap<String, Turn>,
    classifier: Option<(PathBuf, Classifier)>,
}

/// The built-in cue set, compiled once per process.
fn base_classifier() -> &'static Classifier {
    static BASE: OnceLock<Classifier> = OnceLock::new();
    BASE.get_or_init(Classifier::new)
}

fn empty_turn() -> Turn {
    Turn::new(String::new(), String::new())
}

/// The closure time for a timestamp (both are `palisade_common::time`'s).
pub(crate) fn closure_time(t: crate::Timestamp) -> palisade_closure::time::Timestamp {
    t.into()
}

/// Fold every candidate event file into the candidate ledger.
pub(crate) fn candidate_ledger(home: &Path) -> Result<(CandidateLedger, usize), DispatchError> {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(events_dir(home)) {
        Ok(entries) => entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .take(10_000)
            .collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    let mut ledger = CandidateLedger::new();
    let mut skipped = 0;
    for f in files {
        let read = JsonlLog::new(f).read_tail(crate::commands::REPORT_MAX_BYTES)?;
        skipped += read.skipped;
        for ev in &read.rows {
            ledger.apply_value(ev);
        }
    }
    Ok((ledger, skipped))
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

/// The seed's review-candidate folder.
pub(crate) fn review_dir(home: &Path) -> PathBuf {
    home.join(crate::storage::paths::CLOSURE_REVIEW_DIR)
}

/// The seed's daily-note folder.
pub(crate) fn notes_dir(home: &Path) -> PathBuf {
    home.join(crate::storage::paths::CLOSURE_NOTES_DIR)
}

/// The review file of one day.
pub(crate) fn review_file(home: &Path, date: &str) -> PathBuf {
    review_dir(home).join(format!("{REVIEW_PREFIX}{date}.jsonl"))
}

/// Review files are `turn-closure-candidates-<YYYY-MM-DD>.jsonl`.
pub(crate) const REVIEW_PREFIX: &str = "turn-closure-candidates-";

/// Every review day file we wrote (other files in the folder are not ours).
pub(crate) fn review_files(home: &Path) -> Vec<(String, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(review_dir(home)) else {
        return Vec::new();
    };
    let mut out: Vec<(String, PathBuf)> = entries
        .flatten()
        .take(10_000)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let date = name.strip_prefix(REVIEW_PREFIX)?.strip_suffix(".jsonl")?;
            let ok = date.len() == 10
                && date.bytes().enumerate().all(|(i, b)| {
                    if i == 4 || i == 7 {
                        b == b'-'
                    } else {
                        b.is_ascii_digit()
                    }
                });
            ok.then(|| (date.to_owned(), e.path()))
        })
        .collect();
    out.sort();
    out
}

/// Retention for the turn log (age and size) and the review day files
/// (removed once their day is older than the retention).
fn prune(ctx: &Ctx<'_>) {
    let (retention, _) = crate::config::log_retention(ctx.env, "TURN_CLOSURE_AUDIT_RETENTION_DAYS");
    let log = turns_log(ctx.home);
    if let Ok(Some(_)) =
        log.prune_sized_if_due(&retention, "ts", ctx.now, super::PRUNE_INTERVAL_SECS)
    {
        let cutoff = ctx.now.minus_days(retention.days).date();
        for (date, path) in review_files(ctx.home) {
            if date < cutoff {
                let _ = std::fs::remove_file(path);
            }
        }
    }
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
            let turn = state.open.entry(session).or_insert_with(empty_turn);
            if turn.tool_calls.len() < MAX_CALLS {
                let mut call = ToolCall::new(
                    p.tool_name.clone(),
                    cap_value(&p.args),
                    Value::String(cut(&p.result_text(), MAX_FIELD)),
                );
                if !p.succeeded() && p.status.as_deref().is_some_and(|s| s != "ok") {
                    // Hermes' status says the call failed even if the result text does not.
                    call.result = json!({"error": p.error_message.clone().unwrap_or_else(|| p.status.clone().unwrap_or_default())});
                }
                if let Some(cwd) = &p.cwd {
                    call = call.with_cwd(cwd.clone());
                }
                turn.tool_calls.push(call);
            }
            Ok(Directive::None)
        }
        HookCall::PostLlmCall(p) => {
            let turn = state.open.entry(session).or_insert_with(empty_turn);
            turn.user = cut(&message_text(&p.user_message), MAX_FIELD);
            turn.assistant = cut(&p.assistant_response, MAX_FIELD);
            Ok(Directive::None)
        }
        HookCall::OnSessionEnd(p) => {
            let mut turn = state.open.remove(&session).unwrap_or_else(empty_turn);
            turn.completed = p.completed;
            turn.interrupted = p.interrupted;
            let home = ctx.home.to_path_buf();
            if !matches!(&state.classifier, Some((h, _)) if *h == home) {
                state.classifier = None;
            }
            let (_, classifier) = state.classifier.get_or_insert_with(|| {
                let policy = RetentionPolicy::with_home(home.to_string_lossy().into_owned());
                (home.clone(), base_classifier().clone().with_policy(policy))
            });
            finish(ctx, classifier, &session, p.turn_id.as_deref(), &turn)?;
            Ok(Directive::None)
        }
        _ => Ok(Directive::None),
    }
}

fn finish(
    ctx: &Ctx<'_>,
    classifier: &Classifier,
    session: &str,
    turn_id: Option<&str>,
    turn: &Turn,
) -> Result<(), DispatchError> {
    let judgment = classifier.judge(turn);
    let date = ctx.now.date();
    let ts = ctx.now.to_string();
    let mut row = judgment.to_json();
    let mut candidate_id: Option<String> = None;
    if let Some(draft) = &judgment.candidate {
        let record_id =
            sha256_hex(format!("{session}\n{}\n{ts}", turn_id.unwrap_or("")).as_bytes())[..16]
                .to_owned();
        let mut record = draft.to_record(&record_id, session, &ts);
        record.candidate_content = redact_text(&record.candidate_content);
        record.evidence_summary = redact_text(&record.evidence_summary);
        let (ledger, _) = candidate_ledger(ctx.home)?;
        let at = closure_time(ctx.now);
        let event = match ledger.propose(record.clone(), at) {
            Proposal::New(event) => Some(*event),
            Proposal::Reproposable { epoch_id, .. } => {
                record.candidate_id = epoch_id;
                Some(CandidateEvent::created(record.clone(), at))
            }
            Proposal::Existing { .. } => None,
        };
        candidate_id = Some(record.candidate_id.clone());
        if let Some(event) = event {
            JsonlLog::new(events_dir(ctx.home).join(format!("{date}.jsonl")))
                .append(&event.to_value())?;
            JsonlLog::new(review_file(ctx.home, &date)).append(&record)?;
            append_note(
                &notes_dir(ctx.home).join(format!("{date}.md")),
                &date,
                &record.record_id,
                &note_block(ctx, session, turn, &judgment.to_json(), &record),
            )?;
        }
    }
    if let Value::Object(o) = &mut row {
        o.insert("ts".into(), json!(ts));
        o.insert("session".into(), json!(session));
        o.insert("guard".into(), json!("turn-closure-audit"));
        o.insert("target".into(), json!("turn"));
        o.insert("verdict".into(), json!("pass"));
        o.insert("turn_id".into(), json!(turn_id));
        o.insert("completed".into(), json!(turn.completed));
        o.insert("interrupted".into(), json!(turn.interrupted));
        o.insert("candidate_id".into(), json!(candidate_id));
        o.insert(
            "reason".into(),
            json!(o.get("reasons").and_then(|r| r.get(0)).cloned()),
        );
        o.insert(
            "tool_calls".into(),
            json!(turn
                .tool_calls
                .iter()
                .map(|c| c.name.clone())
                .collect::<Vec<_>>()),
        );
        // The candidate is in the event ledger; the turn row keeps a pointer.
        o.remove("candidate");
    }
    let row = crate::storage::jsonl::cap_row(row, 64 * 1024);
    turns_log(ctx.home).append(&row)?;
    prune(ctx);
    let latest = dir(ctx.home)
        .join("latest")
        .join(format!("{}.json", session_filename(session)));
    replace_file(
        &latest,
        serde_json::to_string_pretty(&row)
            .unwrap_or_default()
            .as_bytes(),
    )?;
    Ok(())
}

/// The seed's daily-note block for one candidate turn (previews only).
fn note_block(
    ctx: &Ctx<'_>,
    session: &str,
    turn: &Turn,
    judgment: &Value,
    record: &palisade_closure::schema::CandidateRecord,
) -> String {
    let or_empty = |s: String| {
        if s.trim().is_empty() {
            "（空）".to_owned()
        } else {
            s
        }
    };
    let time = ctx
        .now
        .to_string()
        .get(11..19)
        .unwrap_or("unknown")
        .to_owned();
    let user = palisade_common::mask::preview_line(&redact_text(&turn.user), 160);
    let reply = palisade_common::mask::preview_line(&redact_text(&turn.assistant), 160);
    let reason = judgment["reasons"][0]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    format!(
        "### {time} | candidate\n- session: `{}`\n- candidate: `{}` ({})\n- 工具事件: {}\n- 用户：{}\n- 回复：{}\n- 判定：{}\n- 推荐落点：{}\n",
        session_filename(session),
        record.candidate_id,
        record.classification,
        turn.tool_calls.len(),
        or_empty(user),
        or_empty(reply),
        or_empty(palisade_common::mask::preview_line(&reason, 200)),
        record.final_sink.as_str(),
    )
}

/// Append `block` to the daily note under its `<!-- turn-closure:ID -->`
/// sentinel, unless the sentinel is already there (the seed's dedupe). A
/// new note starts with the seed's headings. Under the note's lock.
fn append_note(path: &Path, date: &str, record_id: &str, block: &str) -> std::io::Result<()> {
    use std::io::Read;
    if let Some(parent) = path.parent() {
        crate::storage::ensure_dir(parent)?;
    }
    let mut f = crate::storage::private_options()
        .create(true)
        .read(true)
        .append(true)
        .open(path)?;
    // The seed locks the note itself (no sibling lock file in memory/).
    <std::fs::File as fs4::FileExt>::lock(&f)?;
    let mut existing = String::new();
    // A note that is not UTF-8 is not ours to parse: append after it.
    let _ = f.read_to_string(&mut existing);
    let sentinel = format!("<!-- turn-closure:{record_id} -->");
    if existing.contains(&sentinel) {
        return Ok(());
    }
    let mut text = String::new();
    if existing.is_empty() {
        text.push_str(&format!("# {date} 日记\n\n## 自动沉淀记录\n"));
    } else if !existing.contains("## 自动沉淀记录") {
        text.push_str("\n## 自动沉淀记录\n");
    }
    text.push_str(&format!("\n{sentinel}\n{block}"));
    f.write_all(text.as_bytes())
    // Dropping `f` closes it and releases the lock.
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
        "error": redact_text(error),
    }));
    Directive::None
}
