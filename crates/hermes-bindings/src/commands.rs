//! The seeds' user commands as functions returning structured JSON.
//!
//! Rendering is the caller's job (the CLI prints text or `--json`; the
//! Python plugin formats slash-command replies). Call them through
//! [`crate::Plugin::command`]; the arguments are a JSON object:
//!
//! | guard | command | arguments |
//! |---|---|---|
//! | all | `status` | — |
//! | provenance | `report` | `days`? |
//! | provenance | `log` | `limit`? (20), `verdict`? (`pass`/`blocked`/`would_block`/`approve`) |
//! | provenance | `check` | `text`, `session`? — dry run, writes nothing |
//! | provenance, egress, closure | `purge` | exactly one of `older_than` (days) or `all: true` |
//! | egress | `report` | — (reads at most the last 16 MB of the audit log) |
//! | egress | `check` | `text` — dry run in every scope, writes nothing |
//! | injection | `list` | `limit`? (20) |
//! | injection | `show`, `clean_copy` | `id` |
//! | injection | `release`, `delete` | `id` — **owner only**: expose them only on owner surfaces (slash command, CLI), never as a model tool |
//! | injection | `simulate` | — (in memory; never touches live data) |
//! | injection | `verify` | — (walks the ledger chain) |
//! | closure | `recent` | `n`? (10) |
//! | closure | `last`, `path`, `report` | — |
//! | closure | `pending` | `n`? (20) |
//! | closure | `promote` | `dry_run: true`, `candidate`? — buckets, writes nothing; or `apply: true`, `candidate` — **owner only**: records the seed's decision for that one candidate in the event ledger, and for a `would_promote` candidate appends it to Hermes' memory file (`memories/USER.md` for sink `user`, else `memories/MEMORY.md`) |
//!
//! Negative `days`, `limit`, `n` or `older_than` are rejected with a clear error.

use crate::config::{EgressConfig, InjectionConfig, ProvenanceConfig};
use crate::dispatch::adapters::{self, EgressScope};
use crate::dispatch::{closure, egress, injection, provenance, Ctx, DispatchError, State};
use crate::plugin::GuardName;
use crate::storage::jsonl::{row_time, JsonlLog};
use crate::storage::ledger::Ledger;
use crate::storage::quarantine::GuardDb;
use palisade_closure::promote::Promoter;
use palisade_closure::schema::CandidateStatus;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap};

/// Reports read at most this much of a log.
pub const REPORT_MAX_BYTES: u64 = 16 * 1024 * 1024;

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CommandError {
    /// The arguments are not a JSON object of the right shape.
    #[error("bad arguments: {0}")]
    BadArgs(String),
    /// The guard has no such command.
    #[error("{guard} has no command {name:?}; try one of: {known}")]
    Unknown {
        /// The guard.
        guard: &'static str,
        /// The command asked for.
        name: String,
        /// The commands it has.
        known: String,
    },
    /// A file could not be read or written.
    #[error("storage error: {0}")]
    Io(#[from] std::io::Error),
    /// The SQLite store failed.
    #[error("database error: {0}")]
    Db(#[from] rusqlite::Error),
    /// The guard itself failed or is not in this build.
    #[error("{0}")]
    Guard(String),
}

impl From<DispatchError> for CommandError {
    fn from(e: DispatchError) -> Self {
        CommandError::Guard(e.to_string())
    }
}

type Res = Result<Value, CommandError>;

/// The commands each guard has.
///
/// ```
/// use palisade_hermes::{commands::commands_of, GuardName};
/// assert!(commands_of(GuardName::Injection).contains(&"verify"));
/// ```
pub fn commands_of(guard: GuardName) -> &'static [&'static str] {
    match guard {
        GuardName::Provenance => &["status", "report", "log", "check", "purge"],
        GuardName::Egress => &["status", "report", "check", "purge"],
        GuardName::Injection => &[
            "status",
            "list",
            "show",
            "clean_copy",
            "release",
            "delete",
            "simulate",
            "verify",
        ],
        GuardName::Closure => &[
            "status", "recent", "last", "path", "pending", "report", "promote", "purge",
        ],
    }
}

pub(crate) fn run(ctx: &Ctx<'_>, state: &mut State, name: &str, args: &Value) -> Res {
    if !args.is_object() {
        return Err(CommandError::BadArgs(
            "arguments must be a JSON object".to_owned(),
        ));
    }
    let name = name.trim().trim_start_matches('/').replace('-', "_");
    match (ctx.guard, name.as_str()) {
        (GuardName::Provenance, "status") => provenance_status(ctx),
        (GuardName::Provenance, "report") => provenance_report(ctx, args),
        (GuardName::Provenance, "log") => provenance_log(ctx, args),
        (GuardName::Provenance, "check") => provenance_check(ctx, state, args),
        (GuardName::Provenance, "purge") => {
            let (said, evidence) = provenance::files(ctx.home);
            purge(ctx, args, &[said, evidence])
        }
        (GuardName::Egress, "status") => egress_status(ctx, state),
        (GuardName::Egress, "report") => egress_report(ctx),
        (GuardName::Egress, "check") => egress_check(ctx, state, args),
        (GuardName::Egress, "purge") => purge(ctx, args, &[egress::audit_log(ctx.home)]),
        (GuardName::Injection, "status") => injection_status(ctx),
        (GuardName::Injection, "list") => {
            let limit = count_arg(args, "limit")?.unwrap_or(20);
            Ok(json!({"entries": open_db(ctx)?.list(limit as usize)?}))
        }
        (GuardName::Injection, "show") => {
            let id = id_arg(args)?;
            match open_db(ctx)?.show(&id)? {
                Some(entry) => Ok(json!({"entry": entry})),
                None => Err(CommandError::BadArgs(format!("no quarantine entry {id:?}"))),
            }
        }
        (GuardName::Injection, "clean_copy") => {
            let id = id_arg(args)?;
            match open_db(ctx)?.full_text(&id)? {
                Some(text) => Ok(json!({"id": id, "clean_copy": adapters::injection_clean(&text)})),
                None => Err(CommandError::BadArgs(format!("no quarantine entry {id:?}"))),
            }
        }
        (GuardName::Injection, "release") => {
            let id = id_arg(args)?;
            let db = open_db(ctx)?;
            // An unknown id is an error, as it is for `show`.
            if db.show(&id)?.is_none() {
                return Err(CommandError::BadArgs(format!("no quarantine entry {id:?}")));
            }
            let released = db.release(&id, ctx.now)?;
            if released {
                let ledger = open_ledger(ctx)?;
                ledger.append(
                    ctx.now,
                    "",
                    "release",
                    &json!({"id": id, "by": "owner"}).to_string(),
                )?;
                injection::anchor(&db, &ledger, ctx.now)?;
            }
            Ok(json!({"id": id, "released": released}))
        }
        (GuardName::Injection, "delete") => {
            let id = id_arg(args)?;
            let db = open_db(ctx)?;
            let deleted = db.delete(&id)?;
            if !deleted {
                return Err(CommandError::BadArgs(format!("no quarantine entry {id:?}")));
            }
            if deleted {
                let ledger = open_ledger(ctx)?;
                ledger.append(
                    ctx.now,
                    "",
                    "delete",
                    &json!({"id": id, "by": "owner"}).to_string(),
                )?;
                injection::anchor(&db, &ledger, ctx.now)?;
            }
            Ok(json!({"id": id, "deleted": deleted}))
        }
        (GuardName::Injection, "simulate") => Ok(adapters::injection_arena()?),
        (GuardName::Injection, "verify") => {
            Ok(serde_json::to_value(verify_ledger(ctx)?).unwrap_or(Value::Null))
        }
        (GuardName::Closure, "status") => closure_status(ctx),
        (GuardName::Closure, "path") => Ok(closure_paths(ctx)),
        (GuardName::Closure, "recent") => {
            let n = count_arg(args, "n")?.unwrap_or(10) as usize;
            let rows = closure::turns_log(ctx.home).read_tail(REPORT_MAX_BYTES)?;
            let skipped = rows.skipped;
            let newest: Vec<Value> = rows.rows.into_iter().rev().take(n).collect();
            Ok(json!({"turns": newest, "skipped_lines": skipped}))
        }
        (GuardName::Closure, "last") => {
            let rows = closure::turns_log(ctx.home).read_tail(REPORT_MAX_BYTES)?;
            Ok(json!({"turn": rows.rows.last()}))
        }
        (GuardName::Closure, "pending") => {
            let n = count_arg(args, "n")?.unwrap_or(20) as usize;
            let (ledger, skipped) = closure::candidate_ledger(ctx.home)?;
            let now = closure::closure_time(ctx.now);
            let report = ledger.pending_report(&now, OVERDUE_SECS);
            let list: Vec<Value> = ledger
                .list(Some(CandidateStatus::Pending), n)
                .into_iter()
                .map(|v| serde_json::to_value(&v.record).unwrap_or(Value::Null))
                .collect();
            Ok(json!({
                "pending": report.pending_total,
                "overdue": report.pending_overdue,
                "needs_user_confirmation": report.needs_user_confirmation_total,
                "oldest_pending": report.oldest_pending,
                "candidates": list,
                "skipped_lines": skipped,
            }))
        }
        (GuardName::Closure, "report") => closure_report(ctx),
        (GuardName::Closure, "promote") => closure_promote(ctx, args),
        (GuardName::Closure, "purge") => {
            let mut logs = vec![closure::turns_log(ctx.home)];
            if let Ok(entries) = std::fs::read_dir(closure::events_dir(ctx.home)) {
                for e in entries.flatten().take(10_000) {
                    if e.path().extension().is_some_and(|x| x == "jsonl") {
                        logs.push(JsonlLog::new(e.path()));
                    }
                }
            }
            // Only our own review day files: knowledge/review/ is shared.
            logs.extend(
                closure::review_files(ctx.home)
                    .into_iter()
                    .map(|(_, p)| JsonlLog::new(p)),
            );
            purge(ctx, args, &logs)
        }
        (guard, _) => Err(CommandError::Unknown {
            guard: guard.as_str(),
            name,
            known: commands_of(guard).join(", "),
        }),
    }
}

/// A non-negative whole number argument (`null`/absent → `None`).
fn count_arg(args: &Value, key: &str) -> Result<Option<u64>, CommandError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => {
            if let Some(n) = v.as_u64() {
                return Ok(Some(n));
            }
            if let Some(s) = v.as_str() {
                if let Ok(n) = s.trim().parse::<u64>() {
                    return Ok(Some(n));
                }
            }
            Err(CommandError::BadArgs(format!(
                "--{} must be zero or more (got {v})",
                key.replace('_', "-")
            )))
        }
    }
}

fn id_arg(args: &Value) -> Result<String, CommandError> {
    match args.get("id").and_then(Value::as_str) {
        Some(id) if !id.trim().is_empty() && id.len() <= 64 => Ok(id.trim().to_owned()),
        _ => Err(CommandError::BadArgs("an entry id is required".to_owned())),
    }
}

fn purge(ctx: &Ctx<'_>, args: &Value, logs: &[JsonlLog]) -> Res {
    let all = args.get("all").and_then(Value::as_bool).unwrap_or(false);
    let older = count_arg(args, "older_than")?;
    let mut removed = 0usize;
    let mut files = Vec::new();
    match (all, older) {
        (true, None) => {
            for log in logs {
                removed += log.purge_all()?;
                files.push(log.path().display().to_string());
            }
        }
        (false, Some(days)) => {
            let cutoff = ctx.now.minus_days(days);
            for log in logs {
                removed += log.prune_before("ts", cutoff)?.removed;
                files.push(log.path().display().to_string());
            }
        }
        _ => {
            return Err(CommandError::BadArgs(
                "purge needs exactly one of --older-than DAYS or --all".to_owned(),
            ))
        }
    }
    Ok(json!({"removed": removed, "files": files}))
}

fn file_info(log: &JsonlLog) -> Value {
    let meta = std::fs::metadata(log.path()).ok();
    json!({"path": log.path().display().to_string(), "exists": meta.is_some(), "bytes": meta.map(|m| m.len())})
}

fn provenance_status(ctx: &Ctx<'_>) -> Res {
    let config = ProvenanceConfig::from_env(ctx.env);
    let (said, evidence) = provenance::files(ctx.home);
    Ok(json!({
        "guard": "provenance-gate",
        "config": config,
        "host": ctx.host,
        "files": [file_info(&said), file_info(&evidence)],
    }))
}

fn rows_within(ctx: &Ctx<'_>, rows: Vec<Value>, days: Option<u64>) -> Vec<Value> {
    match days {
        None => rows,
        Some(d) => {
            let cutoff = ctx.now.minus_days(d);
            rows.into_iter()
                .filter(|r| row_time(r, "ts").is_some_and(|t| t >= cutoff))
                .collect()
        }
    }
}

fn provenance_report(ctx: &Ctx<'_>, args: &Value) -> Res {
    let days = count_arg(args, "days")?;
    let (_, evidence) = provenance::files(ctx.home);
    let read = evidence.read_tail(REPORT_MAX_BYTES)?;
    let rows = rows_within(ctx, read.rows, days);
    let mut by_verdict: BTreeMap<String, u64> = BTreeMap::new();
    let mut by_reason: BTreeMap<String, u64> = BTreeMap::new();
    for r in &rows {
        *by_verdict
            .entry(r["verdict"].as_str().unwrap_or("?").to_owned())
            .or_default() += 1;
        if r["verdict"] != "pass" {
            *by_reason
                .entry(r["reason"].as_str().unwrap_or("?").to_owned())
                .or_default() += 1;
        }
    }
    let flagged: Vec<&Value> = rows
        .iter()
        .rev()
        .filter(|r| r["verdict"] != "pass")
        .take(10)
        .collect();
    Ok(json!({
        "rows": rows.len(), "by_verdict": by_verdict, "by_reason": by_reason,
        "newest_flagged": flagged, "skipped_lines": read.skipped, "skipped_at": read.skipped_at, "partial": read.partial,
    }))
}

fn provenance_log(ctx: &Ctx<'_>, args: &Value) -> Res {
    let limit = count_arg(args, "limit")?.unwrap_or(20) as usize;
    let verdict = args.get("verdict").and_then(Value::as_str);
    if let Some(v) = verdict {
        if !["pass", "blocked", "would_block", "approve"].contains(&v) {
            return Err(CommandError::BadArgs(format!(
                "--verdict must be pass, blocked, would_block or approve (got {v:?})"
            )));
        }
    }
    let (_, evidence) = provenance::files(ctx.home);
    let read = evidence.read_tail(REPORT_MAX_BYTES)?;
    let rows: Vec<Value> = read
        .rows
        .into_iter()
        .rev()
        .filter(|r| verdict.is_none_or(|v| r["verdict"] == v))
        .take(limit)
        .collect();
    Ok(json!({"rows": rows, "skipped_lines": read.skipped, "skipped_at": read.skipped_at}))
}

fn provenance_check(ctx: &Ctx<'_>, state: &mut State, args: &Value) -> Res {
    let text = args
        .get("text")
        .and_then(Value::as_str)
        .ok_or_else(|| CommandError::BadArgs("check needs the text to check".to_owned()))?;
    let config = ProvenanceConfig::from_env(ctx.env);
    let session = args.get("session").and_then(Value::as_str).unwrap_or("");
    let gate = provenance::gate(&config);
    // Reads said.jsonl (a dry run writes nothing).
    let said = provenance::said_index(ctx, &config, &mut state.provenance);
    let args = json!({"action": "add", "target": "memory", "content": text});
    let report = palisade_provenance::replay::check_write(
        gate,
        "memory",
        &args,
        &palisade_provenance::replay::Stored::default(),
        said.index(),
        session,
    );
    // What the configured mode would record: observe never blocks.
    let failed = match config.mode {
        crate::config::ProvenanceMode::Observe => "would_block",
        crate::config::ProvenanceMode::Ask => "approve",
        crate::config::ProvenanceMode::Block => "block",
    };
    let claims =
        provenance::evidence_rows(&report, said, |pass| if pass { "pass" } else { failed });
    Ok(json!({
        "verdict": if report.is_pass() { "pass" } else { failed },
        "outcome": report.outcome.as_str(),
        "reason": report.reason.map(|r| r.as_str()),
        "message": if report.is_pass() { Value::Null } else { json!(provenance::refusal_message(&report)) },
        "claims": claims,
        "mode": config.mode,
        "session": session,
        "dry_run": true,
    }))
}

fn egress_status(ctx: &Ctx<'_>, state: &mut State) -> Res {
    let (config, policy): (&EgressConfig, _) = egress::policy(ctx, &mut state.egress);
    Ok(json!({
        "guard": "egress-guard",
        "policy_file": config.file().map_or_else(
            || "built-in defaults (no policy file found)".to_owned(),
            |p| p.display().to_string(),
        ),
        "source": config.source,
        "observe": config.observe,
        "notes": config.notes,
        "policy": adapters::egress_policy_summary(policy, config),
        "host": ctx.host,
        "audit": file_info(&egress::audit_log(ctx.home)),
    }))
}

fn egress_report(ctx: &Ctx<'_>) -> Res {
    let read = egress::audit_log(ctx.home).read_tail(REPORT_MAX_BYTES)?;
    let mut by_rule: BTreeMap<String, u64> = BTreeMap::new();
    let mut by_action: BTreeMap<String, u64> = BTreeMap::new();
    for r in &read.rows {
        if let Some(counts) = r["counts"].as_object() {
            for (rule, n) in counts {
                *by_rule.entry(rule.clone()).or_default() += n.as_u64().unwrap_or(0);
            }
        }
        *by_action
            .entry(r["action"].as_str().unwrap_or("?").to_owned())
            .or_default() += 1;
    }
    let last: Vec<&Value> = read.rows.iter().rev().take(5).collect();
    Ok(json!({
        "entries": read.rows.len(), "by_rule": by_rule, "by_action": by_action, "last": last,
        "skipped_lines": read.skipped, "skipped_at": read.skipped_at, "partial": read.partial,
    }))
}

fn egress_check(ctx: &Ctx<'_>, state: &mut State, args: &Value) -> Res {
    let text = args
        .get("text")
        .and_then(Value::as_str)
        .ok_or_else(|| CommandError::BadArgs("check needs the text to check".to_owned()))?;
    let (_, policy) = egress::policy(ctx, &mut state.egress);
    let mut out = Map::new();
    for (name, scope) in [
        ("args", EgressScope::Args),
        ("result", EgressScope::Result),
        ("reply", EgressScope::Reply),
    ] {
        let ins = adapters::egress_inspect(policy, scope, text, scope == EgressScope::Args)?;
        out.insert(
            name.to_owned(),
            json!({
                "action": ins.action.as_str(), "rule_key": ins.rule_key, "message": ins.message,
                "findings": ins.findings,
                "preview": ins.rewritten.as_deref().map(|t| palisade_common::mask::preview_line(t, 200)),
            }),
        );
    }
    out.insert("dry_run".to_owned(), json!(true));
    Ok(Value::Object(out))
}

fn open_db(ctx: &Ctx<'_>) -> Result<GuardDb, CommandError> {
    Ok(GuardDb::open(&injection::db_paths(ctx.home).0)?)
}

fn open_ledger(ctx: &Ctx<'_>) -> Result<Ledger, CommandError> {
    Ok(Ledger::open(&injection::db_paths(ctx.home).1)?)
}

/// The ledger checked against its anchors; creates neither store.
fn verify_ledger(ctx: &Ctx<'_>) -> Result<crate::storage::ledger::Verification, CommandError> {
    let (guard, ledger) = injection::db_paths(ctx.home);
    Ok(crate::storage::ledger::verify_files(&ledger, &guard)?)
}

/// The seed's posture score from live telemetry.
///
/// `score = base − pending − degraded − false_positive`, floored at 0, where
///
/// * base = 35 (pre_llm_call) + 25 (pre_tool_call) + 20 (fail-closed) +
///   10 (redaction) + 10 (ledger verified);
/// * pending = min(held × 5, 25);
/// * degraded = degraded layers × 15;
/// * false_positive = round(min(15, released / interceptions × 30)).
///
/// ```
/// use palisade_hermes::commands::posture_score;
/// assert_eq!(posture_score(true, true, true, 1, 0, 0, 6), 95);
/// assert_eq!(posture_score(true, true, true, 5, 0, 0, 6), 75);
/// assert_eq!(posture_score(true, true, true, 0, 1, 0, 0), 85);
/// assert_eq!(posture_score(true, true, true, 0, 0, 1, 1), 85);
/// assert_eq!(posture_score(true, true, true, 0, 9, 0, 0), 0);
/// ```
pub fn posture_score(
    fail_closed: bool,
    redaction: bool,
    ledger_verified: bool,
    held: u64,
    degraded_layers: u64,
    released: u64,
    interceptions: u64,
) -> u64 {
    let small = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
    let t = palisade_injection::Telemetry {
        pre_llm_call: true,
        pre_tool_call: true,
        fail_closed,
        redaction,
        ledger_verified,
        held: small(held),
        degraded_layers: small(degraded_layers),
        released: small(released),
        interceptions: small(interceptions),
    };
    u64::from(palisade_injection::posture_score(&t))
}

fn injection_status(ctx: &Ctx<'_>) -> Res {
    let config = InjectionConfig::load(ctx.env, ctx.home);
    let db = open_db(ctx)?;
    let t = db.telemetry()?;
    let v = verify_ledger(ctx)?;
    let score = posture_score(
        config.fail_closed_on_error,
        config.redact_secrets,
        v.ok,
        t.pending,
        t.degraded_layers.len() as u64,
        t.released,
        t.interceptions,
    );
    let latest = db.list(1)?;
    Ok(json!({
        "guard": "hermes-guard",
        "posture": score,
        "telemetry": t,
        "ledger": v,
        "latest_intercept": latest.first(),
        "config": config,
        "host": ctx.host,
        "suppressed_patterns": db.suppressed_phrases()?,
    }))
}

fn closure_paths(ctx: &Ctx<'_>) -> Value {
    let d = closure::dir(ctx.home);
    json!({
        "dir": d.display().to_string(),
        "turns": closure::turns_log(ctx.home).path().display().to_string(),
        "latest": d.join("latest").display().to_string(),
        "candidate_events": closure::events_dir(ctx.home).display().to_string(),
        "notes": closure::notes_dir(ctx.home).display().to_string(),
        "review": closure::review_dir(ctx.home).display().to_string(),
    })
}

/// Pending candidates older than this are overdue (7 days).
const OVERDUE_SECS: i64 = 7 * 86_400;

fn closure_status(ctx: &Ctx<'_>) -> Res {
    let read = closure::turns_log(ctx.home).read_tail(REPORT_MAX_BYTES)?;
    let (ledger, skipped) = closure::candidate_ledger(ctx.home)?;
    let report = ledger.pending_report(&closure::closure_time(ctx.now), OVERDUE_SECS);
    Ok(json!({
        "guard": "turn-closure-audit",
        "turns": read.rows.len(),
        "last": read.rows.last(),
        "candidates": ledger.len(),
        "pending": report.pending_total,
        "overdue": report.pending_overdue,
        "skipped_lines": read.skipped + skipped,
        "paths": closure_paths(ctx),
    }))
}

fn closure_report(ctx: &Ctx<'_>) -> Res {
    let read = closure::turns_log(ctx.home).read_tail(REPORT_MAX_BYTES)?;
    let mut by_judgment: BTreeMap<String, u64> = BTreeMap::new();
    for r in &read.rows {
        *by_judgment
            .entry(r["judgment"].as_str().unwrap_or("unscanned").to_owned())
            .or_default() += 1;
    }
    let (ledger, skipped) = closure::candidate_ledger(ctx.home)?;
    let mut by_status: BTreeMap<String, u64> = BTreeMap::new();
    let mut by_class: BTreeMap<String, u64> = BTreeMap::new();
    for v in ledger.views() {
        let status = serde_json::to_value(v.record.status).unwrap_or(Value::Null);
        *by_status
            .entry(status.as_str().unwrap_or("?").to_owned())
            .or_default() += 1;
        *by_class.entry(v.record.classification.clone()).or_default() += 1;
    }
    let report = ledger.pending_report(&closure::closure_time(ctx.now), OVERDUE_SECS);
    Ok(json!({
        "turns": read.rows.len(), "by_judgment": by_judgment,
        "candidates": ledger.len(), "by_status": by_status, "by_classification": by_class,
        "pending": report.pending_total, "overdue": report.pending_overdue,
        "promoted_today": report.promoted_today, "rejected_today": report.rejected_today,
        "skipped_lines": read.skipped + skipped,
    }))
}

/// `promote`: the seed's promotion decision.
///
/// * `dry_run: true` (`/turn-closure promote --dry-run [--candidate ID]`):
///   buckets every candidate (or one); writes nothing.
/// * `apply: true, candidate: ID` (`palisade closure promote --apply
///   --candidate ID`, an owner surface; never a model tool): the seed's
///   opt-in promotion for one candidate, with its safety rules — sensitive,
///   temporary, high-risk or discard candidates are rejected, conflicts and
///   skill/knowledge suggestions wait for the user, an equivalent existing
///   memory is a merge, and only a `would_promote` candidate (low risk, sink
///   `user`/`memory`/`project`/`ops`) is written: appended as one entry to
///   `memories/USER.md` (sink `user`) or `memories/MEMORY.md` (the others)
///   with Hermes' `§` delimiter, secrets masked, within Hermes' character
///   limits (1375 / 2200), atomically. Each outcome is one event in the
///   candidate ledger, with the seed's receipt. A terminal candidate is left
///   as it is.
fn closure_promote(ctx: &Ctx<'_>, args: &Value) -> Res {
    let dry_run = args.get("dry_run").and_then(Value::as_bool) == Some(true);
    let apply = args.get("apply").and_then(Value::as_bool) == Some(true);
    let only = args.get("candidate").and_then(Value::as_str);
    match (dry_run, apply) {
        (true, false) => closure_promote_dry_run(ctx, only),
        (false, true) => match only {
            Some(id) if !id.trim().is_empty() => closure_promote_apply(ctx, id.trim()),
            _ => Err(CommandError::BadArgs(
                "promote --apply needs --candidate ID (one candidate at a time)".to_owned(),
            )),
        },
        _ => Err(CommandError::BadArgs(
            "promote needs exactly one of --dry-run or --apply --candidate ID".to_owned(),
        )),
    }
}

/// Hermes' memory files, their character limits and entry delimiter.
const MEMORY_FILES: [(&str, usize); 2] = [("MEMORY.md", 2200), ("USER.md", 1375)];
const MEMORY_DELIMITER: &str = "\n§\n";

fn memory_path(home: &std::path::Path, file: &str) -> std::path::PathBuf {
    home.join("memories").join(file)
}

/// Every entry of MEMORY.md and USER.md, for the "already satisfied" check.
fn existing_memories(home: &std::path::Path) -> Vec<palisade_closure::promote::ExistingMemory> {
    let mut out = Vec::new();
    for (file, _) in MEMORY_FILES {
        let text = std::fs::read_to_string(memory_path(home, file)).unwrap_or_default();
        for (i, entry) in text.split(MEMORY_DELIMITER).enumerate().take(1000) {
            if !entry.trim().is_empty() {
                out.push(palisade_closure::promote::ExistingMemory {
                    id: format!("{file}#{i}"),
                    content: entry.trim().to_owned(),
                });
            }
        }
    }
    out
}

/// Appends a promoted candidate to Hermes' memory file for its sink.
struct HermesMemoryWriter<'a> {
    home: &'a std::path::Path,
    at: String,
}

impl palisade_closure::promote::PromotionWriter for HermesMemoryWriter<'_> {
    fn write(
        &mut self,
        c: &palisade_closure::schema::CandidateRecord,
    ) -> Result<palisade_closure::schema::Receipt, String> {
        use palisade_closure::schema::FinalSink;
        let (file, limit) = match c.final_sink {
            FinalSink::User => MEMORY_FILES[1],
            FinalSink::Memory | FinalSink::Project | FinalSink::Ops => MEMORY_FILES[0],
            other => return Err(format!("sink {} is not a memory file", other.as_str())),
        };
        // Stored content is redacted already; mask again, and never let the
        // entry carry Hermes' delimiter (it would split into two entries).
        let content = adapters::mask_secrets(c.candidate_content.trim()).replace('§', " ");
        if content.trim().is_empty() {
            return Err("the candidate has no content".to_owned());
        }
        let path = memory_path(self.home, file);
        let existing = std::fs::read_to_string(&path).unwrap_or_default();
        let existing = existing.trim_end();
        let text = if existing.is_empty() {
            content.clone()
        } else {
            format!("{existing}{MEMORY_DELIMITER}{content}")
        };
        let chars = text.chars().count();
        if chars > limit {
            return Err(format!(
                "{file} would hold {chars} characters, over Hermes' limit of {limit}; nothing was written"
            ));
        }
        crate::storage::ensure_dir(&self.home.join("memories")).map_err(|e| e.to_string())?;
        crate::storage::jsonl::atomic_write(&path, text.as_bytes())
            .map_err(|e| format!("{file}: {e}"))?;
        Ok(palisade_closure::schema::Receipt::promotion(
            &self.at,
            "palisade-closure",
            c.final_sink.as_str(),
            &format!("{file}#{}", text.split(MEMORY_DELIMITER).count() - 1),
        ))
    }
}

fn closure_promote_apply(ctx: &Ctx<'_>, id: &str) -> Res {
    use palisade_closure::promote::{Mode, PromotionOutcome};
    let (ledger, _) = closure::candidate_ledger(ctx.home)?;
    let Some(view) = ledger.get(id) else {
        return Err(CommandError::BadArgs(format!("no candidate {id:?}")));
    };
    let record = view.record.clone();
    let at = closure::closure_time(ctx.now);
    let mut writer = HermesMemoryWriter {
        home: ctx.home,
        at: ctx.now.to_string(),
    };
    let existing = existing_memories(ctx.home);
    let outcome =
        Promoter::new().promote(&record, &existing, &[], at, Mode::Apply, Some(&mut writer));
    let status = |s: CandidateStatus| serde_json::to_value(s).unwrap_or(Value::Null);
    match outcome {
        PromotionOutcome::Event(event) => {
            let value = event.to_value();
            JsonlLog::new(closure::events_dir(ctx.home).join(format!("{}.jsonl", ctx.now.date())))
                .append(&value)?;
            Ok(json!({"applied": true, "candidate_id": id, "event": value}))
        }
        PromotionOutcome::Terminal(s) => Ok(json!({
            "applied": false, "candidate_id": id, "status": status(s), "deduped": true,
            "message": "the candidate is already final; nothing changed",
        })),
        PromotionOutcome::AwaitingUser => Ok(json!({
            "applied": false, "candidate_id": id, "status": "needs_user_confirmation",
            "message": "the candidate is waiting for the user's confirmation; nothing changed",
        })),
        PromotionOutcome::WriterFailed(e) => Err(CommandError::BadArgs(format!(
            "promotion of {id} failed: {e}"
        ))),
        PromotionOutcome::WriterRequired | PromotionOutcome::DryRun(_) => Err(
            CommandError::BadArgs(format!("promotion of {id} produced no decision")),
        ),
    }
}

fn closure_promote_dry_run(ctx: &Ctx<'_>, only: Option<&str>) -> Res {
    let (ledger, _) = closure::candidate_ledger(ctx.home)?;
    if let Some(o) = only {
        if ledger.get(o).is_none() {
            return Err(CommandError::BadArgs(format!("no candidate {o:?}")));
        }
    }
    let records: Vec<_> = ledger
        .views()
        .filter(|v| only.is_none_or(|o| o == v.record.candidate_id))
        .map(|v| v.record.clone())
        .collect();
    let existing = existing_memories(ctx.home);
    let report = Promoter::new().dry_run(&records, &existing, &HashMap::new());
    let mut buckets: BTreeMap<&'static str, Vec<Value>> = BTreeMap::new();
    for (bucket, id, reason) in &report.entries {
        buckets
            .entry(bucket.as_str())
            .or_default()
            .push(json!({"candidate_id": id, "reason": reason}));
    }
    Ok(json!({"dry_run": true, "candidates": records.len(), "buckets": buckets}))
}
