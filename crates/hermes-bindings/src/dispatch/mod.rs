//! Hook dispatch: one module per guard, a shared fail-mode path.

pub(crate) mod adapters;
pub(crate) mod closure;
pub(crate) mod egress;
pub(crate) mod egress_policy;
pub(crate) mod injection;
pub(crate) mod provenance;

use crate::config::Env;
use crate::hooks::{Directive, Hook, HookCall};
use crate::host::Host;
use crate::plugin::GuardName;
use crate::storage::jsonl::JsonlLog;
use crate::time::Timestamp;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Everything a dispatcher needs for one call.
pub(crate) struct Ctx<'a> {
    pub guard: GuardName,
    pub home: &'a Path,
    pub now: Timestamp,
    pub host: &'a Host,
    pub env: &'a Env,
    pub warnings: &'a std::sync::Mutex<Warnings>,
}

impl Ctx<'_> {
    /// Queue a warning for the host's log (once per distinct text).
    pub fn warn(&self, message: impl Into<String>) {
        let mut w = self.warnings.lock().unwrap_or_else(|p| p.into_inner());
        w.push(message.into());
    }
}

/// Warnings for the host's log: every fallback and fail-closed decision,
/// each distinct text once per process (so a broken store is one line, not
/// one per message).
#[derive(Default)]
pub(crate) struct Warnings {
    pending: Vec<String>,
    seen: std::collections::HashSet<String>,
}

/// Distinct warnings remembered; past it, the set is cleared (a warning
/// may then repeat, never be lost).
const MAX_SEEN_WARNINGS: usize = 256;
/// Warnings waiting to be taken; past it the oldest are dropped.
const MAX_PENDING_WARNINGS: usize = 64;

impl Warnings {
    pub(crate) fn push(&mut self, message: String) {
        if self.seen.len() >= MAX_SEEN_WARNINGS {
            self.seen.clear();
        }
        if self.seen.insert(message.clone()) {
            if self.pending.len() >= MAX_PENDING_WARNINGS {
                self.pending.remove(0);
            }
            self.pending.push(message);
        }
    }

    pub(crate) fn take(&mut self) -> Vec<String> {
        std::mem::take(&mut self.pending)
    }
}

/// Whether an internal error text is a storage failure (the `Display` of
/// [`DispatchError::Io`] and [`DispatchError::Db`]).
pub(crate) fn is_store_error(error: &str) -> bool {
    error.starts_with("storage error") || error.starts_with("database error")
}

/// Per-plugin state kept between calls.
#[derive(Default)]
pub(crate) struct State {
    pub provenance: provenance::ProvenanceState,
    pub egress: egress::EgressState,
    pub injection: injection::InjectionState,
    pub closure: closure::ClosureState,
    /// Log path → when this process last checked whether it was due for
    /// retention pruning (the `.pruned` marker decides across processes).
    pub pruned: HashMap<PathBuf, i64>,
}

/// How often one process looks at a log's `.pruned` marker.
const PRUNE_CHECK_SECS: i64 = 60;
/// How often a log is pruned (the seeds' "at most once an hour").
pub(crate) const PRUNE_INTERVAL_SECS: i64 = 3600;

/// Retention pruning (age and size, see [`crate::storage::jsonl::Retention`])
/// of `log`, whose age limit is the environment variable `key`. At most
/// hourly across processes and one marker read a minute per process, so a
/// hook call almost never touches the disk for it. Best effort: a failed
/// prune is retried at the next check.
pub(crate) fn prune_log(
    ctx: &Ctx<'_>,
    pruned: &mut HashMap<PathBuf, i64>,
    log: &JsonlLog,
    key: &str,
) {
    let now = ctx.now.unix();
    if let Some(last) = pruned.get(log.path()) {
        if now >= *last && now - last < PRUNE_CHECK_SECS {
            return;
        }
    }
    if pruned.len() > 256 {
        pruned.clear();
    }
    pruned.insert(log.path().to_path_buf(), now);
    let (retention, _) = crate::config::log_retention(ctx.env, key);
    let _ = log.prune_sized_if_due(&retention, "ts", ctx.now, PRUNE_INTERVAL_SECS);
}

/// Housekeeping after a hook call: retention pruning of the logs whose
/// dispatcher does not prune them itself (the egress audit log).
pub(crate) fn maintain(ctx: &Ctx<'_>, state: &mut State) {
    if ctx.guard == GuardName::Egress {
        let log = egress::audit_log(ctx.home);
        prune_log(ctx, &mut state.pruned, &log, "EGRESS_GUARD_RETENTION_DAYS");
    }
}

/// An internal error: becomes the guard's fail-mode verdict.
#[derive(Debug, thiserror::Error)]
pub(crate) enum DispatchError {
    #[error("storage error: {0}")]
    Io(#[from] std::io::Error),
    #[error("database error: {0}")]
    Db(#[from] rusqlite::Error),
    #[error("{0}")]
    Other(String),
}

pub(crate) fn dispatch(
    ctx: &Ctx<'_>,
    state: &mut State,
    call: &HookCall,
) -> Result<Directive, DispatchError> {
    match ctx.guard {
        GuardName::Provenance => provenance::dispatch(ctx, &mut state.provenance, call),
        GuardName::Egress => egress::dispatch(ctx, &mut state.egress, call),
        GuardName::Injection => injection::dispatch(ctx, &mut state.injection, call),
        GuardName::Closure => closure::dispatch(ctx, &mut state.closure, call),
    }
}

/// Write every buffered decision of every guard.
pub(crate) fn flush(state: &mut State) -> Result<(), DispatchError> {
    state.injection.flush()
}

/// The fail-mode directive for an internal error (or unparseable kwargs),
/// recorded best-effort in the guard's evidence log.
pub(crate) fn fail(
    ctx: &Ctx<'_>,
    state: &mut State,
    hook: Option<Hook>,
    call: Option<&HookCall>,
    error: &str,
) -> Directive {
    match ctx.guard {
        GuardName::Provenance => provenance::fail(ctx, &mut state.provenance, hook, call, error),
        GuardName::Egress => egress::fail(ctx, &mut state.egress, hook, call, error),
        GuardName::Injection => injection::fail(ctx, &mut state.injection, hook, call, error),
        GuardName::Closure => closure::fail(ctx, &mut state.closure, hook, call, error),
    }
}

/// A session id fit for rows: the given one, or empty.
pub(crate) fn session_of(call: Option<&HookCall>) -> String {
    call.and_then(HookCall::session_id)
        .unwrap_or_default()
        .to_owned()
}
