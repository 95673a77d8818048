//! egress-guard: tool arguments (pre_tool_call), tool results
//! (transform_tool_result, JSON rewritten string by string) and the final
//! reply (transform_llm_output, with a withheld-values note). Every
//! decision is palisade-egress's (`EgressGuard`), made through the session
//! pipeline's egress stage (`palisade_session::Egress`, compiled from the
//! configured policy in `egress_policy`) with the same call per event that
//! `palisade scan` makes; audit rows are the pipeline's
//! (`palisade_session::evidence::egress_row`, a `common::EvidenceRow`). This
//! file does the I/O: audit rows, directives per host capability.
//!
//! File: `plugin-data/egress-guard/audit.jsonl` — one row per inspected
//! string with findings: masked previews only, the first 12 hex digits of a
//! SHA-256 of the inspected text, at most 50 findings, lines capped at 64 KB.

use super::adapters::{self, EgressAction};
use super::egress_policy;
use super::{session_of, Ctx, DispatchError};
use crate::config::EgressConfig;
use crate::hooks::{Directive, Hook, HookCall};
use crate::storage::jsonl::{cap_row, JsonlLog};
use crate::storage::paths::sha256_hex;
use palisade_egress::guard::{Action, Inspection};
use palisade_session::evidence::{egress_row, EgressContext};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Audit lines are capped at 64 KB.
pub(crate) const AUDIT_LINE_CAP: usize = 64 * 1024;
// At most `palisade_session::evidence::EGRESS_MAX_FINDINGS` (50) findings
// are listed per audit row.

#[derive(Default)]
pub(crate) struct EgressState {
    /// The loaded config and the (path, mtime, len) stamps it came from.
    cached: Option<(
        PathBuf,
        Vec<FileStamp>,
        EgressConfig,
        adapters::EgressPolicy,
    )>,
}

type FileStamp = (PathBuf, Option<(SystemTime, u64)>);

fn stamps(files: &[PathBuf]) -> Vec<FileStamp> {
    files
        .iter()
        .map(|f| {
            let meta = std::fs::metadata(f).ok();
            let stamp = meta.and_then(|m| Some((m.modified().ok()?, m.len())));
            (f.clone(), stamp)
        })
        .collect()
}

/// The policy for `home`, reloaded only when a policy file changed.
pub(crate) fn policy<'s>(
    ctx: &Ctx<'_>,
    state: &'s mut EgressState,
) -> (&'s EgressConfig, &'s adapters::EgressPolicy) {
    let files = EgressConfig::files(ctx.env, ctx.home);
    let now_stamps = stamps(&files);
    let fresh =
        matches!(&state.cached, Some((home, s, _, _)) if home == ctx.home && *s == now_stamps);
    if !fresh {
        state.cached = None;
    }
    let (_, _, config, policy) = state.cached.get_or_insert_with(|| {
        let mut config = EgressConfig::load(ctx.env, ctx.home);
        let policy = adapters::egress_policy(&mut config);
        for note in &config.notes {
            ctx.warn(format!("egress-guard: {note}"));
        }
        (ctx.home.to_path_buf(), now_stamps, config, policy)
    });
    (config, policy)
}

pub(crate) fn audit_log(home: &Path) -> JsonlLog {
    JsonlLog::new(crate::GuardName::Egress.data_dir(home).join("audit.jsonl"))
}

pub(crate) fn dispatch(
    ctx: &Ctx<'_>,
    state: &mut EgressState,
    call: &HookCall,
) -> Result<Directive, DispatchError> {
    let (config, policy) = policy(ctx, state);
    let observe = config.observe;
    let session = session_of(Some(call));
    match call {
        HookCall::PreToolCall(p) => {
            let mut messages = Vec::new();
            let mut rewritten = Map::new();
            let mut rows = Vec::new();
            // Every string of object arguments, JSON-aware (keys `command`,
            // `cmd`, `script` hold shell commands); string arguments as one
            // text. One audit row per string with findings.
            let out = policy
                .egress
                .tool_args(&p.tool_name, &p.args, 0, &mut |_path, s, one| {
                    if one.action != Action::Pass {
                        rows.push(audit_row(ctx, &session, "args", &p.tool_name, s, one));
                    }
                });
            let ins = egress_policy::to_inspection(&out.inspection);
            let worst = ins.action;
            let rule_key = ins.rule_key;
            if p.args.is_object() {
                if !ins.message.is_empty() && ins.action >= EgressAction::Approve {
                    messages.push(ins.message);
                }
                // `modify` shallow-merges: hand over the changed keys only.
                if let (Some(Value::Object(new)), Value::Object(old)) =
                    (out.rewritten_args, &p.args)
                {
                    for (key, value) in new {
                        if old.get(&key) != Some(&value) {
                            rewritten.insert(key, value);
                        }
                    }
                }
            } else if p.args.is_string() {
                messages.push(ins.message);
            }
            let mut directive = match worst {
                _ if observe => Directive::None,
                EgressAction::Pass | EgressAction::Warn => Directive::None,
                EgressAction::Redact if rewritten.is_empty() => Directive::None,
                EgressAction::Redact if ctx.host.supports_modify => {
                    Directive::Modify { args: rewritten }
                }
                // Hermes 0.19.0 cannot rewrite arguments: the redaction
                // becomes a human decision, and the audit row says so.
                EgressAction::Redact => Directive::approve(
                    "[egress-guard] APPROVE: the arguments carry a credential this Hermes cannot redact in place (no modify directive). Approve to send it as is.",
                    if rule_key.is_empty() { "egress-guard:EG-SECRET-001".to_owned() } else { rule_key.clone() },
                ),
                EgressAction::Approve => Directive::approve(messages.join(" "), rule_key.clone()),
                EgressAction::Block => Directive::block(messages.join(" ")),
            };
            if let Directive::Approve { message, .. } | Directive::Block { message } =
                &mut directive
            {
                if message.trim().is_empty() {
                    *message = format!("[egress-guard] {} ({rule_key})", worst.as_str());
                }
            }
            let degraded = worst == EgressAction::Redact && !ctx.host.supports_modify && !observe;
            write_audit(ctx, policy.audit_enabled, rows, degraded, observe);
            Ok(directive)
        }
        HookCall::TransformToolResult(p) => {
            let mut rows = Vec::new();
            // JSON is rewritten string by string, keeping its shape;
            // anything else is one text.
            let out = policy.egress.tool_result(
                Some(&p.tool_name),
                &p.result,
                0,
                &mut |_path, s, one| {
                    if one.action != Action::Pass {
                        rows.push(audit_row(ctx, &session, "result", &p.tool_name, s, one));
                    }
                },
            );
            write_audit(ctx, policy.audit_enabled, rows, false, observe);
            Ok(match out.inspection.text {
                Some(text) if !observe && text != p.result => Directive::Rewrite(text),
                _ => Directive::None,
            })
        }
        HookCall::TransformLlmOutput(p) => {
            let mut rows = Vec::new();
            let out = policy
                .egress
                .reply(&p.response_text, 0, &mut |_path, s, one| {
                    if one.action != Action::Pass {
                        rows.push(audit_row(ctx, &session, "reply", "", s, one));
                    }
                });
            let ins = egress_policy::to_inspection(&out.inspection);
            write_audit(ctx, policy.audit_enabled, rows, false, observe);
            Ok(match ins.rewritten {
                Some(mut text) if !observe => {
                    if ins.withheld > 0 {
                        text.push_str(&format!(
                            "\n\n[egress-guard] {} value(s) were withheld from this reply (credentials or small counts).",
                            ins.withheld
                        ));
                    }
                    Directive::Rewrite(text)
                }
                _ => Directive::None,
            })
        }
        _ => Ok(Directive::None),
    }
}

fn audit_row(
    ctx: &Ctx<'_>,
    session: &str,
    direction: &str,
    tool: &str,
    text: &str,
    ins: &Inspection,
) -> Value {
    let ts = ctx.now.to_string();
    let sha = sha256_hex(text.as_bytes());
    let cx = EgressContext {
        ts: &ts,
        session,
        direction,
        tool,
        sha256_12: &sha[..12],
    };
    serde_json::to_value(egress_row(&cx, ins)).unwrap_or(Value::Null)
}

fn write_audit(ctx: &Ctx<'_>, enabled: bool, rows: Vec<Value>, degraded: bool, observe: bool) {
    if !enabled || rows.is_empty() {
        return;
    }
    let lines: Vec<String> = rows
        .into_iter()
        .map(|mut r| {
            if let Value::Object(o) = &mut r {
                if degraded {
                    o.insert(
                        "degraded".into(),
                        json!("host has no modify directive: redact became approve"),
                    );
                }
                if observe {
                    o.insert("mode".into(), json!("observe"));
                }
            }
            cap_row(r, AUDIT_LINE_CAP).to_string()
        })
        .collect();
    // An audit failure never changes the verdict.
    let _ = audit_log(ctx.home).append_lines(&lines);
}

pub(crate) fn fail(
    ctx: &Ctx<'_>,
    state: &mut EgressState,
    hook: Option<Hook>,
    call: Option<&HookCall>,
    error: &str,
) -> Directive {
    let closed = {
        let (config, _) = policy(ctx, state);
        config.document["fail_mode"].as_str() == Some("closed")
    };
    let _ = audit_log(ctx.home).append(&json!({
        "ts": ctx.now.to_string(), "session": session_of(call), "guard": "egress-guard",
        "direction": hook.map(Hook::name), "action": if closed { "block" } else { "pass" },
        "verdict": if closed { "blocked" } else { "unscanned" }, "reason": "internal_error",
        "error": adapters::mask_secrets(error), "fail_mode": if closed { "closed" } else { "open" },
    }));
    match hook {
        Some(Hook::PreToolCall) if closed => Directive::block(
            "[egress-guard] BLOCK: the guard could not inspect this call (fail_mode: closed).",
        ),
        // Text the guard could not check may hold a credential: with
        // fail_mode closed it is withheld, not passed through.
        Some(Hook::TransformToolResult | Hook::TransformLlmOutput) if closed => Directive::Rewrite(
            "[egress-guard] WITHHELD: the guard could not inspect this text (fail_mode: closed)."
                .to_owned(),
        ),
        _ => Directive::None,
    }
}
