//! `palisade hook HOST`: one host event on stdin, the host's own answer out.
//!
//! Each host adapter (`claude`, `codex`, `cursor`, `gemini`) turns the
//! host's event JSON into one [`Event`] and renders the [`Answer`] back in
//! the host's protocol (`../shared/hosts/HOOKS.md`). Everything in between
//! is [`engine`]: the same palisade-hermes plugins Hermes runs, called with
//! the hooks the event corresponds to, over one profile per host under
//! `$PALISADE_HOME` (default `~/.palisade/<host>/`), so `palisade injection
//! list --home ~/.palisade/claude-code` reads what the hooks stored.
//!
//! | host event | Hermes hooks run | answer |
//! |---|---|---|
//! | before a tool | egress + injection `pre_tool_call`; provenance `pre_tool_call` when the tool writes a memory file | deny / ask / rewritten input |
//! | after a tool | injection scan of the result (`pre_llm_call` path: quarantine, ledger); egress `transform_tool_result` | replaced result / block / context |
//! | user prompt | provenance + injection `pre_llm_call` | block / context |
//! | stop, session end | closure `post_tool_call` × n, `post_llm_call`, `on_session_end` (replayed from the session file) | nothing |
//!
//! Only the plugins an event needs are built, so a prompt never builds the
//! egress policy and a tool result never builds the provenance gate.

pub(crate) mod claude;
pub(crate) mod codex;
pub(crate) mod cursor;
pub(crate) mod engine;
pub(crate) mod gemini;
pub(crate) mod install;
pub(crate) mod memory;
pub(crate) mod session;

use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The hosts `palisade hook` speaks to.
#[derive(Clone, Copy, Debug, Eq, PartialEq, clap::ValueEnum)]
pub(crate) enum HostKind {
    /// Claude Code (`~/.claude/settings.json` hooks).
    #[value(name = "claude-code")]
    ClaudeCode,
    /// OpenAI Codex CLI (`~/.codex/hooks.json`).
    Codex,
    /// Cursor (`.cursor/hooks.json`).
    Cursor,
    /// Gemini CLI (`~/.gemini/settings.json` hooks).
    Gemini,
}

impl HostKind {
    /// The profile name (and the CLI spelling).
    pub(crate) fn name(self) -> &'static str {
        match self {
            HostKind::ClaudeCode => "claude-code",
            HostKind::Codex => "codex",
            HostKind::Cursor => "cursor",
            HostKind::Gemini => "gemini",
        }
    }
}

/// `palisade hooks install|uninstall`: print what was done, pick the exit code.
pub(crate) fn run_install(
    host: HostKind,
    uninstall: bool,
    project: bool,
    dry_run: bool,
    dir: Option<PathBuf>,
    command: Option<String>,
) -> std::process::ExitCode {
    let scope = if project {
        install::Scope::Project
    } else {
        install::Scope::User
    };
    let project_dir = dir
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."));
    let user_home = std::env::var("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from("."));
    let path = install::settings_path(host, scope, &project_dir, &user_home);
    let command = if uninstall {
        None
    } else {
        let binary = command.or_else(|| {
            std::env::current_exe()
                .ok()
                .map(|p| p.display().to_string())
        });
        Some(install::hook_command(
            &binary.unwrap_or_else(|| "palisade".to_owned()),
            host,
        ))
    };
    let verb = if uninstall { "uninstall" } else { "install" };
    match install::apply(&path, host, command.as_deref(), dry_run) {
        Ok(report) => {
            if dry_run {
                println!(
                    "palisade hooks {verb} {} --dry-run: {} would become:",
                    host.name(),
                    path.display()
                );
                println!(
                    "{}",
                    serde_json::to_string_pretty(&report.content).unwrap_or_default()
                );
            } else if !report.changed {
                println!(
                    "palisade hooks {verb} {}: {} already up to date",
                    host.name(),
                    path.display()
                );
            } else {
                let backup = report
                    .backup
                    .map(|b| format!(" (backup {})", b.display()))
                    .unwrap_or_default();
                println!(
                    "palisade hooks {verb} {}: wrote {}{backup}",
                    host.name(),
                    path.display()
                );
                if !uninstall {
                    println!("{}", install::host_note(host));
                }
            }
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("palisade hooks {verb} {}: {e}", host.name());
            std::process::ExitCode::from(2)
        }
    }
}

/// A tool event, normalized.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ToolEvent {
    pub session: String,
    /// The host's turn/prompt id, if it sends one.
    pub turn: Option<String>,
    /// The host's tool name (`Bash`, `Shell`, `run_shell_command`, `mcp__x__y`).
    pub tool: String,
    /// The tool's arguments (an object for every host but odd cases).
    pub input: Value,
    pub cwd: Option<String>,
    /// The tool's output (after-tool events only), in the host's shape.
    pub output: Value,
    /// The tool is an MCP tool (some hosts rewrite only those results).
    pub mcp: bool,
}

/// One host event, normalized.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Event {
    /// Before a tool runs.
    PreTool(ToolEvent),
    /// After a tool ran (or a file is about to be read: its content is the output).
    PostTool(ToolEvent),
    /// The user submitted a prompt.
    Prompt {
        session: String,
        turn: Option<String>,
        text: String,
    },
    /// The agent finished its reply (the turn ends).
    Stop {
        session: String,
        reply: String,
        /// Some hosts (Gemini `AfterAgent`) send the prompt again.
        prompt: Option<String>,
    },
    /// The session ended.
    SessionEnd { session: String },
    /// An event Palisade does not act on.
    Other(String),
}

/// What Palisade decided before a tool runs.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Ord, PartialOrd)]
pub(crate) enum Decision {
    Allow,
    Ask,
    Deny,
}

/// The answer to a before-tool event.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PreAnswer {
    pub decision: Decision,
    /// Why (masked; shown to the model on deny).
    pub reason: String,
    /// The whole replacement input (credentials redacted), when any.
    pub updated_input: Option<Value>,
}

/// The answer to an after-tool event.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct PostAnswer {
    /// The result was held as a likely injection: the model must not see it.
    pub held: bool,
    /// The result in the host's shape with what must not reach the model
    /// replaced (held: the notice; otherwise secrets/small cells redacted).
    pub replaced: Option<Value>,
    /// The replacement as one text (for hosts that replace a result with a reason).
    pub replaced_text: Option<String>,
    /// A note for the model (a flag, or the hold notice).
    pub context: Option<String>,
}

/// The answer to a user prompt.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum PromptAnswer {
    Pass,
    Context(String),
    Block(String),
}

/// The engine's answer to one event.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Answer {
    Pre(PreAnswer),
    Post(PostAnswer),
    Prompt(PromptAnswer),
    /// Nothing to say (observers, unknown events).
    Nothing,
}

/// What the process writes and how it exits.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Output {
    pub stdout: String,
    pub stderr: String,
    pub code: u8,
}

impl Output {
    pub(crate) fn json(value: Value) -> Output {
        Output {
            stdout: value.to_string(),
            ..Output::default()
        }
    }
}

/// `$PALISADE_HOME/<host>`, `$PALISADE_HOME` defaulting to `~/.palisade`.
pub(crate) fn profile_home(
    host: HostKind,
    palisade_home: Option<&str>,
    home: Option<&str>,
) -> PathBuf {
    let base = match (palisade_home, home) {
        (Some(p), _) if !p.trim().is_empty() => PathBuf::from(p),
        (_, Some(h)) if !h.trim().is_empty() => Path::new(h).join(".palisade"),
        _ => PathBuf::from(".palisade"),
    };
    base.join(host.name())
}

/// Run one hook invocation: read stdin, answer, exit code.
pub(crate) fn run_process(host: HostKind, home: Option<PathBuf>) -> std::process::ExitCode {
    use std::io::Write;
    let mut input = String::new();
    let read = std::io::stdin()
        .lock()
        .take(engine::MAX_EVENT_BYTES as u64 + 1)
        .read_to_string(&mut input);
    let home = home.unwrap_or_else(|| {
        profile_home(
            host,
            std::env::var("PALISADE_HOME").ok().as_deref(),
            std::env::var("HOME").ok().as_deref(),
        )
    });
    let env = palisade_hermes::Env::from_process();
    let out = match read {
        Ok(_) => handle(host, &home, &env, &input),
        Err(e) => fail_output(None, &format!("cannot read the event: {e}")),
    };
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(out.stdout.as_bytes());
    let _ = stdout.flush();
    if !out.stderr.is_empty() {
        let _ = writeln!(std::io::stderr(), "{}", out.stderr);
    }
    std::process::ExitCode::from(out.code)
}

/// Parse, decide, render; never panics (a panic becomes the fail output).
pub(crate) fn handle(
    host: HostKind,
    home: &Path,
    env: &palisade_hermes::Env,
    input: &str,
) -> Output {
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if input.len() > engine::MAX_EVENT_BYTES {
            return Err((
                None,
                format!("the event is larger than {} bytes", engine::MAX_EVENT_BYTES),
            ));
        }
        let raw: Value = serde_json::from_str(input)
            .map_err(|e| (None, format!("the event is not JSON: {e}")))?;
        let event = parse(host, &raw);
        let kind = str_of(&raw, "hook_event_name");
        let answer =
            engine::decide(host, home, env, &event).map_err(|e| (Some(kind.clone()), e))?;
        Ok(render(host, &raw, &event, &answer))
    }));
    match result {
        Ok(Ok(out)) => out,
        Ok(Err((kind, error))) => fail_output(kind.as_deref(), &error),
        Err(_) => fail_output(None, "internal panic"),
    }
}

fn parse(host: HostKind, raw: &Value) -> Event {
    match host {
        HostKind::ClaudeCode => claude::parse(raw),
        HostKind::Codex => codex::parse(raw),
        HostKind::Cursor => cursor::parse(raw),
        HostKind::Gemini => gemini::parse(raw),
    }
}

fn render(host: HostKind, raw: &Value, event: &Event, answer: &Answer) -> Output {
    match host {
        HostKind::ClaudeCode => claude::render(raw, event, answer),
        HostKind::Codex => codex::render(raw, event, answer),
        HostKind::Cursor => cursor::render(raw, event, answer),
        HostKind::Gemini => gemini::render(raw, event, answer),
    }
}

/// An internal failure: fail closed where the event can block (exit 2 with
/// the reason on stderr: every host reads that as a block), silent elsewhere.
fn fail_output(kind: Option<&str>, error: &str) -> Output {
    let blocking = match kind {
        Some(k) => is_gate_event(k),
        // Unknown event (unparseable input): a gate must not open on garbage.
        None => true,
    };
    if blocking {
        Output {
            stdout: String::new(),
            stderr: format!(
                "palisade: the guard could not check this event ({error}); blocked (fail closed)."
            ),
            code: 2,
        }
    } else {
        Output {
            stdout: String::new(),
            stderr: format!("palisade: {error}"),
            code: 0,
        }
    }
}

/// Events where a failure must block: before a tool, before a file read.
pub(crate) fn is_gate_event(name: &str) -> bool {
    matches!(
        name,
        "PreToolUse"
            | "PermissionRequest"
            | "preToolUse"
            | "beforeShellExecution"
            | "beforeMCPExecution"
            | "beforeReadFile"
            | "BeforeTool"
    )
}

/// Every string leaf of `v`, joined by newlines (for scanning a structured result).
pub(crate) fn strings_of(v: &Value, out: &mut String) {
    match v {
        Value::String(s) => {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(s);
        }
        Value::Array(items) => items.iter().for_each(|i| strings_of(i, out)),
        Value::Object(map) => map.values().for_each(|i| strings_of(i, out)),
        _ => {}
    }
}

/// A string field of an event, or "".
pub(crate) fn str_of(raw: &Value, key: &str) -> String {
    match &raw[key] {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => String::new(),
    }
}

/// An optional, non-empty string field.
pub(crate) fn opt_str(raw: &Value, key: &str) -> Option<String> {
    Some(str_of(raw, key)).filter(|s| !s.is_empty())
}

/// A value that may arrive as JSON text (Cursor's `tool_input` on MCP
/// events, `tool_output`): parsed when it is JSON, else kept as a string.
pub(crate) fn maybe_json(v: &Value) -> Value {
    match v {
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(parsed @ (Value::Object(_) | Value::Array(_))) => parsed,
            _ => v.clone(),
        },
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_home_resolution() {
        assert_eq!(
            profile_home(HostKind::Codex, Some("/p"), Some("/u")),
            PathBuf::from("/p/codex")
        );
        assert_eq!(
            profile_home(HostKind::ClaudeCode, None, Some("/u")),
            PathBuf::from("/u/.palisade/claude-code")
        );
        assert_eq!(
            profile_home(HostKind::Gemini, Some(" "), None),
            PathBuf::from(".palisade/gemini")
        );
    }

    #[test]
    fn garbage_fails_closed() {
        let dir = tempfile::tempdir().unwrap();
        let out = handle(
            HostKind::ClaudeCode,
            dir.path(),
            &Default::default(),
            "not json",
        );
        assert_eq!(out.code, 2);
        assert!(out.stderr.contains("fail closed"));
    }

    #[test]
    fn maybe_json_parses_only_containers() {
        assert_eq!(maybe_json(&Value::from("{\"a\":1}"))["a"], 1);
        assert_eq!(maybe_json(&Value::from("12")), Value::from("12"));
    }
}
