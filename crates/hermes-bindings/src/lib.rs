//! Hermes bindings for the Palisade guards: the one crate with side effects.
//!
//! It maps Hermes hook calls onto the pure guard crates and owns storage
//! (`$HERMES_HOME/plugin-data/<guard>/`), configuration (environment variables
//! and policy files) and the user commands of the four seeds.
//!
//! # Entry point for hosts (the Python shim, the CLI)
//!
//! One [`Plugin`] per guard. Build it once at `register(ctx)` time and call
//! [`Plugin::handle`] from every hook callback:
//!
//! ```
//! use palisade_hermes::{Env, GuardName, Host, Plugin};
//!
//! let home = tempfile::tempdir().unwrap();
//! // Env::from_process() in a real host; an explicit snapshot in tests.
//! let env = Env::from_pairs([("PROVENANCE_GATE_MODE", "block")]);
//! let plugin = Plugin::new(GuardName::Provenance, Host::from_version("0.19.0"), env);
//!
//! // Which hooks to register with ctx.register_hook(name, callback):
//! let hooks: Vec<&str> = plugin.hooks().iter().map(|h| h.name()).collect();
//! assert!(hooks.contains(&"pre_tool_call"));
//!
//! // Every callback: kwargs as JSON in, the Python return value as JSON out.
//! let out = plugin.handle(home.path(), "pre_llm_call",
//!     r#"{"session_id":"s1","user_message":"I decided we ship on Friday"}"#);
//! assert_eq!(out, "null");
//!
//! // Commands return structured JSON; rendering is the caller's job.
//! let status = plugin.command(home.path(), "status", "{}");
//! let status: serde_json::Value = serde_json::from_str(&status).unwrap();
//! assert_eq!(status["ok"], true);
//! ```
//!
//! The contract of [`Plugin::handle`]:
//!
//! * `home` is `hermes_constants.get_hermes_home()`, resolved by the caller
//!   **at call time** (profiles switch it).
//! * The return value is JSON text whose `json.loads` is exactly what the
//!   Python callback returns to Hermes: `null` (no opinion), a directive dict
//!   (`{"action":"block","message"}`, `{"action":"approve","message","rule_key"}`,
//!   `{"action":"modify","args"}` on 0.21+ hosts, `{"context"}` for
//!   `pre_llm_call`, and `{"action":"hold","message","context","quarantine_id"}`
//!   ([`Directive::Hold`]) when the injection guard holds a turn: the host
//!   must not send that message to the model; the Python shim answers the
//!   turn locally with `message`) or a string (the replacement text for the
//!   transform hooks).
//! * It never panics and never returns an error: a malformed call, a storage
//!   failure or an internal error becomes the guard's fail-mode verdict (for
//!   example a `block` for a fail-closed guard on `pre_tool_call`) and is
//!   recorded. The shim should still wrap the call in `try/except
//!   BaseException` and return a block for `pre_tool_call`, because Hermes
//!   0.19.0 lets a raising callback's tool run.
//! * It is thread-safe (`Plugin: Send + Sync`): Hermes runs `post_tool_call`
//!   on worker threads.
//!
//! # What each guard does with each hook
//!
//! | guard (plugin key) | hooks | files under `$HERMES_HOME/plugin-data/<key>/` |
//! |---|---|---|
//! | provenance (`provenance-gate`) | `pre_llm_call` captures the user's cleaned words; `pre_tool_call` checks `memory` / `skill_manage` writes replayed over `memories/*.md` and skill files | `said.jsonl`, `evidence.jsonl` (pruned hourly to `PROVENANCE_GATE_RETENTION_DAYS`) |
//! | egress (`egress-guard`) | `pre_tool_call` (args), `transform_tool_result` (JSON rewritten string by string), `transform_llm_output` (reply + withheld note) | `audit.jsonl` (masked values, 12-hex SHA-256 prefix, 64 KB line cap; pruned hourly to `EGRESS_GUARD_RETENTION_DAYS` and 64 MiB) |
//! | injection (`hermes-guard`) | `pre_llm_call` scan, `pre_tool_call` tool-call guard (taint, race window, held turns), `on_session_end` writes buffered decisions | `guard.sqlite3` (quarantine, patterns, telemetry), `ledger.sqlite3` (hash chain) |
//! | closure (`turn-closure-audit`) | `post_tool_call`, `post_llm_call` observe; `on_session_end` judges | **the seed's layout instead of `plugin-data/`**: `$HERMES_HOME/turn.closure.audit/` (`turns.jsonl`, pruned to `TURN_CLOSURE_AUDIT_RETENTION_DAYS` and 64 MiB; `latest/`; `candidates/events/`), `memory/<day>.md` (daily note), `knowledge/review/turn-closure-candidates-<day>.jsonl` |
//!
//! Every file is created 0600 (directories 0700); secrets are masked with
//! the shared catalogue (`palisade-secrets`, the rules `palisade check
//! secrets` uses) before anything is persisted — the closure trail through
//! closure's redaction, which layers its label logic on the same catalogue. The closure
//! trail keeps the turn-closure-audit seed's paths so tools written for the
//! seed find it; the other guards use `plugin-data/<plugin key>/` as
//! Hermes' own plugin-state layout suggests.
//!
//! The egress hooks run the session pipeline's egress stage
//! (`palisade_session::Egress`: one `EgressGuard` compiled from the
//! configured policy, the same call per event as `palisade scan`), and their
//! audit rows are `palisade_session::evidence::egress_row`s
//! (`palisade_common::EvidenceRow`), so a message gets the same egress
//! findings live as offline.
//!
//! The injection guard buffers its `pass` decisions in memory and writes
//! them in batches (one transaction per store), so a clean message costs no
//! SQLite commit; see [`Plugin::flush`]. Anything but a pass is written at
//! once, after the buffered rows, keeping the ledger in decision order.
//!
//! # Honest degradation
//!
//! | situation | Hermes 0.19.0 | Hermes 0.21+ |
//! |---|---|---|
//! | egress redaction of tool arguments | `approve` with `rule_key` (no `modify`); the audit row records `degraded` | `{"action":"modify","args":{…}}` |
//! | injection `block`/`quarantine` on `pre_llm_call` | cannot veto a turn: a context note tells the model the message was withheld, and every tool call of that turn is blocked; the ledger records `degraded` | same (no host can veto from `pre_llm_call`) |
//! | a raising or panicking callback | this crate never raises: internal errors become the guard's fail-mode verdict (`block` where the guard fails closed) | same |
//!
//! # Modules
//!
//! * [`hooks`] — typed payloads for the seven hooks and the [`Directive`]s back;
//! * [`host`] — what the running Hermes supports ([`Host`]);
//! * [`config`] — the seeds' environment variables and policy files, read once
//!   into typed config ([`Env`] is the only place the environment is read);
//! * [`storage`] — locked, 0600, crash-tolerant JSONL logs; the SQLite
//!   quarantine, pattern store, telemetry and hash-chained decision ledger;
//!   safe per-session file names;
//! * [`commands`] — the seeds' user commands as functions returning JSON;
//! * [`Plugin`] — the per-guard dispatcher.

#![forbid(unsafe_code)]

pub mod commands;
pub mod config;
pub mod hooks;
pub mod host;
mod plugin;
pub mod storage;
mod time;

mod dispatch;

pub use config::Env;
pub use hooks::{Directive, Hook, HookCall};
pub use host::Host;
pub use plugin::{GuardName, Outcome, Plugin};
pub use time::Timestamp;
