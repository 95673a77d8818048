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
use crate::time::Timestamp;
use std::path::Path;

/// Everything a dispatcher needs for one call.
pub(crate) struct Ctx<'a> {
    pub guard: GuardName,
    pub home: &'a Path,
    pub now: Timestamp,
    pub host: &'a Host,
    pub env: &'a Env,
}

/// Per-plugin state kept between calls.
#[derive(Default)]
pub(crate) struct State {
    pub provenance: provenance::ProvenanceState,
    pub egress: egress::EgressState,
    pub injection: injection::InjectionState,
    pub closure: closure::ClosureState,
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
