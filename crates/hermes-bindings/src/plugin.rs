//! The per-guard plugin: one entry point for every hook call and command.

use crate::config::Env;
use crate::dispatch::{self, Ctx, State};
use crate::hooks::{Directive, Hook, HookCall};
use crate::host::Host;
use crate::time::Timestamp;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::Mutex;

/// The four guards, one Hermes plugin each.
///
/// ```
/// use palisade_hermes::GuardName;
/// assert_eq!(GuardName::parse("egress-guard"), Some(GuardName::Egress));
/// assert_eq!(GuardName::Injection.plugin_key(), "hermes-guard");
/// assert_eq!(GuardName::Closure.as_str(), "closure");
/// ```
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GuardName {
    /// `provenance-gate`: unbacked user-decision claims in memory/skill writes.
    Provenance,
    /// `egress-guard`: credentials, uploads, small cells, microdata.
    Egress,
    /// `hermes-guard`: prompt injection.
    Injection,
    /// `turn-closure-audit`: retention judgments and review candidates.
    Closure,
}

impl GuardName {
    /// Every guard.
    pub const ALL: [GuardName; 4] = [
        GuardName::Provenance,
        GuardName::Egress,
        GuardName::Injection,
        GuardName::Closure,
    ];

    /// Parse a short name (`provenance`) or a plugin key (`provenance-gate`).
    ///
    /// ```
    /// assert!(palisade_hermes::GuardName::parse("turn-closure-audit").is_some());
    /// assert!(palisade_hermes::GuardName::parse("nope").is_none());
    /// ```
    pub fn parse(name: &str) -> Option<GuardName> {
        GuardName::ALL
            .into_iter()
            .find(|g| g.as_str() == name || g.plugin_key() == name)
    }

    /// The short name used by the CLI and in evidence rows' `guard` field.
    ///
    /// ```
    /// assert_eq!(palisade_hermes::GuardName::Egress.as_str(), "egress");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            GuardName::Provenance => "provenance",
            GuardName::Egress => "egress",
            GuardName::Injection => "injection",
            GuardName::Closure => "closure",
        }
    }

    /// The seed's plugin key: the rule-key prefix and the data folder name.
    ///
    /// ```
    /// assert_eq!(palisade_hermes::GuardName::Closure.plugin_key(), "turn-closure-audit");
    /// ```
    pub fn plugin_key(self) -> &'static str {
        match self {
            GuardName::Provenance => "provenance-gate",
            GuardName::Egress => "egress-guard",
            GuardName::Injection => "hermes-guard",
            GuardName::Closure => "turn-closure-audit",
        }
    }

    /// The hooks this guard registers.
    ///
    /// ```
    /// use palisade_hermes::{GuardName, Hook};
    /// assert_eq!(GuardName::Injection.hooks(), &[Hook::PreLlmCall, Hook::PreToolCall, Hook::OnSessionEnd]);
    /// ```
    pub fn hooks(self) -> &'static [Hook] {
        match self {
            // post_tool_call records how the human answered an ask-mode write.
            GuardName::Provenance => &[Hook::PreLlmCall, Hook::PreToolCall, Hook::PostToolCall],
            GuardName::Egress => &[
                Hook::PreToolCall,
                Hook::TransformToolResult,
                Hook::TransformLlmOutput,
            ],
            // on_session_end writes the buffered pass decisions.
            GuardName::Injection => &[Hook::PreLlmCall, Hook::PreToolCall, Hook::OnSessionEnd],
            GuardName::Closure => &[Hook::PostToolCall, Hook::PostLlmCall, Hook::OnSessionEnd],
        }
    }

    /// The guard's data folder: `$HERMES_HOME/plugin-data/<plugin_key>/`,
    /// except the closure trail, which lives where the turn-closure-audit
    /// seed puts it, `$HERMES_HOME/turn.closure.audit/` (its review JSONL
    /// and daily notes go to the seed's `knowledge/review/` and `memory/`,
    /// see [`crate::storage::paths::CLOSURE_DIR`]).
    ///
    /// ```
    /// use palisade_hermes::GuardName;
    /// let d = GuardName::Provenance.data_dir(std::path::Path::new("/h"));
    /// assert!(d.ends_with("plugin-data/provenance-gate"));
    /// assert!(GuardName::Closure.data_dir(std::path::Path::new("/h")).ends_with("turn.closure.audit"));
    /// ```
    pub fn data_dir(self, home: &Path) -> std::path::PathBuf {
        match self {
            GuardName::Closure => home.join(crate::storage::paths::CLOSURE_DIR),
            _ => crate::storage::paths::data_dir(home, self.plugin_key()),
        }
    }
}

impl fmt::Display for GuardName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The result of one hook call.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// What to return to Hermes.
    pub directive: Directive,
    /// The internal error that made this a fail-mode verdict, if any.
    pub error: Option<String>,
}

/// One guard's Hermes plugin: hook dispatch and commands.
///
/// See the crate docs for the contract. `Plugin` is `Send + Sync`; per-session
/// state (provenance block counts, injection taint and replay window, closure
/// turn accumulators, the reused said.jsonl rows) lives behind a mutex.
///
/// ```
/// use palisade_hermes::{Env, GuardName, Host, Plugin};
/// let home = tempfile::tempdir().unwrap();
/// let p = Plugin::new(GuardName::Closure, Host::default(), Env::default());
/// assert_eq!(p.handle(home.path(), "post_llm_call", "{}"), "null");
/// // Malformed kwargs never raise: an observer guard just answers null.
/// assert_eq!(p.handle(home.path(), "post_llm_call", "[not an object"), "null");
/// ```
pub struct Plugin {
    guard: GuardName,
    host: Host,
    env: Env,
    state: Mutex<State>,
    warnings: Mutex<dispatch::Warnings>,
}

impl Plugin {
    /// A plugin for `guard` on `host`, configured from `env`.
    ///
    /// ```
    /// let p = palisade_hermes::Plugin::new(palisade_hermes::GuardName::Egress,
    ///     palisade_hermes::Host::hermes_0_21(), palisade_hermes::Env::default());
    /// assert_eq!(p.guard(), palisade_hermes::GuardName::Egress);
    /// ```
    pub fn new(guard: GuardName, host: Host, env: Env) -> Plugin {
        Plugin {
            guard,
            host,
            env,
            state: Mutex::new(State::default()),
            warnings: Mutex::new(dispatch::Warnings::default()),
        }
    }

    /// A plugin configured from the process environment.
    ///
    /// ```
    /// let p = palisade_hermes::Plugin::from_process(palisade_hermes::GuardName::Provenance, "0.19.0");
    /// assert!(!p.host().supports_modify);
    /// ```
    pub fn from_process(guard: GuardName, hermes_version: &str) -> Plugin {
        Plugin::new(
            guard,
            Host::from_version(hermes_version),
            Env::from_process(),
        )
    }

    /// Which guard this is.
    ///
    /// ```
    /// let p = palisade_hermes::Plugin::new(palisade_hermes::GuardName::Closure, Default::default(), Default::default());
    /// assert_eq!(p.guard().plugin_key(), "turn-closure-audit");
    /// ```
    pub fn guard(&self) -> GuardName {
        self.guard
    }

    /// The host capabilities.
    ///
    /// ```
    /// let p = palisade_hermes::Plugin::new(palisade_hermes::GuardName::Closure, Default::default(), Default::default());
    /// assert_eq!(p.host().version, "0.19.0");
    /// ```
    pub fn host(&self) -> &Host {
        &self.host
    }

    /// The environment snapshot.
    ///
    /// ```
    /// let p = palisade_hermes::Plugin::new(palisade_hermes::GuardName::Closure, Default::default(), Default::default());
    /// assert!(p.env().get("HOME").is_none());
    /// ```
    pub fn env(&self) -> &Env {
        &self.env
    }

    /// The hooks to register.
    ///
    /// ```
    /// let p = palisade_hermes::Plugin::new(palisade_hermes::GuardName::Egress, Default::default(), Default::default());
    /// assert_eq!(p.hooks().len(), 3);
    /// ```
    pub fn hooks(&self) -> &'static [Hook] {
        self.guard.hooks()
    }

    /// Handle one hook call; returns the directive as JSON text (see the
    /// crate docs). Never panics.
    ///
    /// ```
    /// use palisade_hermes::{Env, GuardName, Host, Plugin};
    /// let home = tempfile::tempdir().unwrap();
    /// let p = Plugin::new(GuardName::Provenance, Host::default(), Env::default());
    /// assert_eq!(p.handle(home.path(), "pre_tool_call", r#"{"tool_name":"terminal","args":{"command":"ls"}}"#), "null");
    /// ```
    pub fn handle(&self, home: &Path, hook: &str, kwargs_json: &str) -> String {
        self.handle_at(home, hook, kwargs_json, Timestamp::now())
            .directive
            .to_json()
    }

    /// [`Plugin::handle`] at a given time, returning the typed outcome.
    ///
    /// ```
    /// use palisade_hermes::{Directive, Env, GuardName, Host, Plugin, Timestamp};
    /// let home = tempfile::tempdir().unwrap();
    /// let p = Plugin::new(GuardName::Closure, Host::default(), Env::default());
    /// let out = p.handle_at(home.path(), "unknown_hook", "{}", Timestamp::from_unix(0));
    /// assert_eq!(out.directive, Directive::None);
    /// assert!(out.error.is_some());
    /// ```
    pub fn handle_at(&self, home: &Path, hook: &str, kwargs_json: &str, now: Timestamp) -> Outcome {
        let ctx = Ctx {
            guard: self.guard,
            home,
            now,
            host: &self.host,
            env: &self.env,
            warnings: &self.warnings,
        };
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let call = match HookCall::parse(hook, kwargs_json) {
            Ok(call) => call,
            Err(err) => {
                let error = err.to_string();
                let directive = dispatch::fail(&ctx, &mut state, Hook::parse(hook), None, &error);
                ctx.warn(fail_warning(self.guard, hook, &error, &directive));
                return Outcome {
                    directive,
                    error: Some(error),
                };
            }
        };
        let result = catch_unwind(AssertUnwindSafe(|| {
            let directive = dispatch::dispatch(&ctx, &mut state, &call);
            dispatch::maintain(&ctx, &mut state);
            directive
        }));
        let error = match result {
            Ok(Ok(directive)) => {
                return Outcome {
                    directive,
                    error: None,
                }
            }
            Ok(Err(err)) => err.to_string(),
            Err(panic) => {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".to_owned());
                format!("internal panic: {what}")
            }
        };
        let directive = dispatch::fail(&ctx, &mut state, Some(call.hook()), Some(&call), &error);
        ctx.warn(fail_warning(
            self.guard,
            call.hook().name(),
            &error,
            &directive,
        ));
        Outcome {
            directive,
            error: Some(error),
        }
    }

    /// The warnings queued since the last call, for the host's log: each
    /// fallback (an invalid policy file, an unreadable store) and each
    /// fail-mode decision, naming the file or error and what the guard did
    /// instead; each distinct text once per process.
    ///
    /// ```
    /// use palisade_hermes::{Env, GuardName, Host, Plugin};
    /// let home = tempfile::tempdir().unwrap();
    /// std::fs::write(home.path().join("egress-guard.yaml"), "rules: [unclosed").unwrap();
    /// let p = Plugin::new(GuardName::Egress, Host::default(), Env::default());
    /// p.handle(home.path(), "transform_llm_output", r#"{"response_text":"hi"}"#);
    /// p.handle(home.path(), "transform_llm_output", r#"{"response_text":"hi"}"#);
    /// let w = p.take_warnings();
    /// assert_eq!(w.len(), 1, "{w:?}");
    /// assert!(w[0].contains("egress-guard.yaml"));
    /// assert!(p.take_warnings().is_empty());
    /// ```
    pub fn take_warnings(&self) -> Vec<String> {
        self.warnings
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
    }

    /// Write every decision still buffered in memory (the injection guard
    /// batches its `pass` rows; see the crate docs). Hosts call this at exit;
    /// it also runs before every command, at `on_session_end` and on drop.
    /// Returns the error text of a failed write.
    ///
    /// ```
    /// use palisade_hermes::{Env, GuardName, Host, Plugin};
    /// let home = tempfile::tempdir().unwrap();
    /// let p = Plugin::new(GuardName::Injection, Host::default(), Env::default());
    /// p.handle(home.path(), "pre_llm_call", r#"{"session_id":"s","user_message":"hello"}"#);
    /// assert!(p.flush().is_ok());
    /// let v: serde_json::Value = serde_json::from_str(&p.command(home.path(), "verify", "{}")).unwrap();
    /// assert_eq!(v["result"]["rows"], 1);
    /// ```
    pub fn flush(&self) -> Result<(), String> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        dispatch::flush(&mut state).map_err(|e| e.to_string())
    }

    /// Run a user command (`status`, `report`, `log`, `check`, `purge`,
    /// `list`, `show`, `release`, `delete`, `simulate`, `clean_copy`,
    /// `verify`, `recent`, `last`, `path`, `pending`, `promote`) with
    /// JSON arguments; returns `{"ok":true,"command":…,"result":…}` or
    /// `{"ok":false,"command":…,"error":…}`. See [`crate::commands`].
    ///
    /// ```
    /// use palisade_hermes::{Env, GuardName, Host, Plugin};
    /// let home = tempfile::tempdir().unwrap();
    /// let p = Plugin::new(GuardName::Provenance, Host::default(), Env::default());
    /// let out: serde_json::Value = serde_json::from_str(&p.command(home.path(), "log", r#"{"limit":-1}"#)).unwrap();
    /// assert_eq!(out["ok"], false);
    /// ```
    pub fn command(&self, home: &Path, name: &str, args_json: &str) -> String {
        self.command_at(home, name, args_json, Timestamp::now())
            .to_string()
    }

    /// [`Plugin::command`] at a given time, returning JSON.
    ///
    /// ```
    /// use palisade_hermes::{Env, GuardName, Host, Plugin, Timestamp};
    /// let home = tempfile::tempdir().unwrap();
    /// let p = Plugin::new(GuardName::Injection, Host::default(), Env::default());
    /// let v = p.command_at(home.path(), "verify", "{}", Timestamp::from_unix(0));
    /// assert_eq!(v["result"]["ok"], true);
    /// ```
    pub fn command_at(
        &self,
        home: &Path,
        name: &str,
        args_json: &str,
        now: Timestamp,
    ) -> serde_json::Value {
        let ctx = Ctx {
            guard: self.guard,
            home,
            now,
            host: &self.host,
            env: &self.env,
            warnings: &self.warnings,
        };
        let result = catch_unwind(AssertUnwindSafe(|| {
            let args: serde_json::Value = if args_json.trim().is_empty() {
                serde_json::Value::Object(Default::default())
            } else {
                serde_json::from_str(args_json)
                    .map_err(|e| crate::commands::CommandError::BadArgs(e.to_string()))?
            };
            let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
            // Commands read the stores: write buffered decisions first.
            // A failed write is retried later and does not stop the command.
            let _ = dispatch::flush(&mut state);
            crate::commands::run(&ctx, &mut state, name, &args)
        }));
        match result {
            // A verification that failed is a failed command (exit code,
            // `ok`), with its findings kept for the report.
            Ok(Ok(value)) if is_verify(name) && value["ok"] == false => serde_json::json!({
                "ok": false, "command": name, "result": value,
                "error": format!("ledger verification failed: {}", value["problem"].as_str().unwrap_or("unknown problem")),
            }),
            Ok(Ok(value)) => serde_json::json!({"ok": true, "command": name, "result": value}),
            Ok(Err(err)) => {
                serde_json::json!({"ok": false, "command": name, "error": err.to_string()})
            }
            Err(_) => serde_json::json!({"ok": false, "command": name, "error": "internal panic"}),
        }
    }
}

/// The log line for a fail-mode decision: the guard, the hook, the error
/// (secrets masked) and what was decided instead.
fn fail_warning(guard: GuardName, hook: &str, error: &str, directive: &Directive) -> String {
    let decided = if directive.is_block() || directive.is_hold() {
        "failed closed (refused)"
    } else if matches!(directive, Directive::Rewrite(_)) {
        "failed closed (text withheld)"
    } else {
        "failed open (passed unchecked)"
    };
    format!(
        "{}: {hook}: {}; {decided}",
        guard.plugin_key(),
        crate::dispatch::adapters::mask_secrets(error)
    )
}

fn is_verify(name: &str) -> bool {
    name.trim().trim_start_matches('/') == "verify"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plugin_is_send_sync() {
        fn check<T: Send + Sync>() {}
        check::<Plugin>();
        check::<Outcome>();
    }
}
