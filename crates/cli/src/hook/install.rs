//! `palisade hooks install|uninstall HOST [--project|--user] [--dry-run]`.
//!
//! Merges Palisade's hook entries into the host's settings file. Other hooks
//! and settings are kept; Palisade's own entries (a `command` that runs
//! `palisade … hook HOST`) are replaced, so installing twice changes
//! nothing; the file is copied to `<file>.palisade-backup` before the first
//! change of each run and written atomically. Cursor entries on gate events
//! get `failClosed: true` (the only host with that switch).
//!
//! Key order inside the file is normalized (JSON objects are rewritten in
//! sorted order); the backup keeps the original bytes.

use super::HostKind;
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

/// Where the settings go.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) enum Scope {
    /// The project's settings (`<dir>/.claude/settings.json`, …).
    Project,
    /// The user's settings (`~/.claude/settings.json`, …).
    User,
}

/// The settings file for `host` in `scope`.
pub(crate) fn settings_path(host: HostKind, scope: Scope, project: &Path, home: &Path) -> PathBuf {
    let base = match scope {
        Scope::Project => project,
        Scope::User => home,
    };
    match host {
        HostKind::ClaudeCode => base.join(".claude").join("settings.json"),
        HostKind::Codex => base.join(".codex").join("hooks.json"),
        HostKind::Cursor => base.join(".cursor").join("hooks.json"),
        HostKind::Gemini => base.join(".gemini").join("settings.json"),
    }
}

/// One hook entry Palisade installs: the event, the matcher (tool events),
/// whether it gates (fails closed where the host can).
struct Entry {
    event: &'static str,
    matcher: Option<&'static str>,
    gate: bool,
}

const fn e(event: &'static str, matcher: Option<&'static str>, gate: bool) -> Entry {
    Entry {
        event,
        matcher,
        gate,
    }
}

const CLAUDE_ENTRIES: &[Entry] = &[
    e("PreToolUse", Some("*"), true),
    e("PostToolUse", Some("*"), false),
    e("UserPromptSubmit", None, false),
    e("Stop", None, false),
    e("SessionEnd", None, false),
];

const CODEX_ENTRIES: &[Entry] = &[
    e("PreToolUse", Some(".*"), true),
    e("PostToolUse", Some(".*"), false),
    e("UserPromptSubmit", None, false),
    e("Stop", None, false),
];

// preToolUse sees every tool (Shell, MCP, Write) and can rewrite
// arguments, so the narrower shell/MCP hooks would only run twice.
const CURSOR_ENTRIES: &[Entry] = &[
    e("preToolUse", None, true),
    e("beforeReadFile", None, true),
    e("postToolUse", None, false),
    e("beforeSubmitPrompt", None, false),
    e("afterAgentResponse", None, false),
    e("sessionEnd", None, false),
];

const GEMINI_ENTRIES: &[Entry] = &[
    e("BeforeTool", Some(".*"), true),
    e("AfterTool", Some(".*"), false),
    e("BeforeAgent", None, false),
    e("AfterAgent", None, false),
    e("SessionEnd", None, false),
];

fn entries(host: HostKind) -> &'static [Entry] {
    match host {
        HostKind::ClaudeCode => CLAUDE_ENTRIES,
        HostKind::Codex => CODEX_ENTRIES,
        HostKind::Cursor => CURSOR_ENTRIES,
        HostKind::Gemini => GEMINI_ENTRIES,
    }
}

/// The shell command the host runs: the binary path quoted for `sh -c`.
pub(crate) fn hook_command(binary: &str, host: HostKind) -> String {
    let quoted = if binary
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c))
    {
        binary.to_owned()
    } else {
        format!("'{}'", binary.replace('\'', r"'\''"))
    };
    format!("{quoted} hook {}", host.name())
}

/// A hook entry that runs Palisade for this host (installed by any version,
/// from any binary path).
fn is_ours(handler: &Value, host: HostKind) -> bool {
    handler["command"].as_str().is_some_and(|c| {
        c.contains("palisade") && c.trim_end().ends_with(&format!("hook {}", host.name()))
    })
}

/// Seconds for the timeout fields (Gemini counts milliseconds).
const TIMEOUT_S: u64 = 30;

/// `settings` with Palisade's entries for `host` removed (uninstall) or
/// replaced by fresh ones running `command` (install).
pub(crate) fn merge(
    settings: &Value,
    host: HostKind,
    command: Option<&str>,
) -> Result<Value, String> {
    let mut root = match settings {
        Value::Object(m) => m.clone(),
        Value::Null => Map::new(),
        _ => return Err("the settings file is not a JSON object".to_owned()),
    };
    if host == HostKind::Cursor && command.is_some() {
        root.entry("version").or_insert(json!(1));
    }
    let hooks = root.entry("hooks").or_insert_with(|| json!({}));
    let Value::Object(hooks) = hooks else {
        return Err("`hooks` in the settings file is not an object".to_owned());
    };
    // Remove ours everywhere (any event), keep everything else.
    let events: Vec<String> = hooks.keys().cloned().collect();
    for event in events {
        let Some(Value::Array(groups)) = hooks.get_mut(&event) else {
            continue;
        };
        if host == HostKind::Cursor {
            groups.retain(|h| !is_ours(h, host));
        } else {
            for group in groups.iter_mut() {
                if let Some(Value::Array(handlers)) = group.get_mut("hooks") {
                    handlers.retain(|h| !is_ours(h, host));
                }
            }
            groups.retain(|g| !g["hooks"].as_array().is_some_and(Vec::is_empty));
        }
        if groups.is_empty() {
            hooks.remove(&event);
        }
    }
    if let Some(command) = command {
        for entry in entries(host) {
            let list = hooks.entry(entry.event).or_insert_with(|| json!([]));
            let Value::Array(list) = list else {
                return Err(format!(
                    "`hooks.{}` in the settings file is not an array",
                    entry.event
                ));
            };
            list.push(handler(host, entry, command));
        }
    }
    let empty = hooks.is_empty();
    if empty {
        root.remove("hooks");
    }
    Ok(Value::Object(root))
}

fn handler(host: HostKind, entry: &Entry, command: &str) -> Value {
    match host {
        HostKind::Cursor => {
            let mut h = json!({"command": command, "timeout": TIMEOUT_S});
            if entry.gate {
                h["failClosed"] = json!(true);
            }
            h
        }
        HostKind::Gemini => {
            let mut g = json!({"hooks": [{
                "name": format!("palisade-{}", entry.event),
                "type": "command", "command": command, "timeout": TIMEOUT_S * 1000,
            }]});
            if let Some(m) = entry.matcher {
                g["matcher"] = json!(m);
            }
            g
        }
        HostKind::ClaudeCode | HostKind::Codex => {
            let mut g =
                json!({"hooks": [{"type": "command", "command": command, "timeout": TIMEOUT_S}]});
            if let Some(m) = entry.matcher {
                g["matcher"] = json!(m);
            }
            g
        }
    }
}

/// What an install/uninstall run did.
#[derive(Debug, PartialEq)]
pub(crate) struct Report {
    pub path: PathBuf,
    pub changed: bool,
    pub backup: Option<PathBuf>,
    pub content: Value,
}

/// Install (`command` = Some) or uninstall (None) at `path`.
pub(crate) fn apply(
    path: &Path,
    host: HostKind,
    command: Option<&str>,
    dry_run: bool,
) -> Result<Report, String> {
    let original = match std::fs::read(path) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let current: Value = match &original {
        Some(bytes) if !bytes.iter().all(u8::is_ascii_whitespace) => serde_json::from_slice(bytes)
            .map_err(|e| {
                format!(
                    "{} is not valid JSON ({e}); nothing was changed",
                    path.display()
                )
            })?,
        _ => Value::Null,
    };
    let merged = merge(&current, host, command)?;
    let unchanged =
        merged == current || (current.is_null() && merged.as_object().is_some_and(Map::is_empty));
    let mut report = Report {
        path: path.to_path_buf(),
        changed: !unchanged,
        backup: None,
        content: merged,
    };
    if unchanged || dry_run {
        return Ok(report);
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    if let Some(bytes) = &original {
        let backup = PathBuf::from(format!("{}.palisade-backup", path.display()));
        std::fs::write(&backup, bytes)
            .map_err(|e| format!("cannot write the backup {}: {e}", backup.display()))?;
        report.backup = Some(backup);
    }
    let mut text = serde_json::to_string_pretty(&report.content).map_err(|e| e.to_string())?;
    text.push('\n');
    let tmp = PathBuf::from(format!("{}.palisade-tmp", path.display()));
    std::fs::write(&tmp, text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot replace {}: {e}", path.display()))?;
    Ok(report)
}

/// A note on what the host needs besides the file.
pub(crate) fn host_note(host: HostKind) -> &'static str {
    match host {
        HostKind::ClaudeCode => "Claude Code reads the hooks at start-up; interactive sessions ask you to trust the folder first. A hook that crashes or times out lets the call through: keep the binary at this path.",
        HostKind::Codex => "Codex runs a new or changed hook only after you trust it (/hooks in the TUI, or --dangerously-bypass-hook-trust for automation); hooks need codex-cli 0.124 or later.",
        HostKind::Cursor => "Cursor picks the file up on its next start; gate events fail closed (failClosed: true).",
        HostKind::Gemini => "Gemini CLI asks before it runs project hooks it has not seen (they are fingerprinted); hooks are on by default since v0.27.",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_is_idempotent_and_keeps_other_hooks() {
        let other = json!({
            "model": "opus",
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./lint.sh"}]}]},
        });
        let cmd = hook_command("/usr/local/bin/palisade", HostKind::ClaudeCode);
        let once = merge(&other, HostKind::ClaudeCode, Some(&cmd)).unwrap();
        let twice = merge(&once, HostKind::ClaudeCode, Some(&cmd)).unwrap();
        assert_eq!(once, twice);
        assert_eq!(once["model"], "opus");
        let pre = once["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(pre.len(), 2);
        assert_eq!(pre[0]["hooks"][0]["command"], "./lint.sh");
        assert_eq!(
            pre[1]["hooks"][0]["command"],
            "/usr/local/bin/palisade hook claude-code"
        );
        // A new binary path replaces the old entry instead of adding one.
        let moved = merge(
            &once,
            HostKind::ClaudeCode,
            Some(&hook_command("/opt/palisade", HostKind::ClaudeCode)),
        )
        .unwrap();
        assert_eq!(moved["hooks"]["PreToolUse"].as_array().unwrap().len(), 2);
        let removed = merge(&once, HostKind::ClaudeCode, None).unwrap();
        assert_eq!(removed, other);
    }

    #[test]
    fn cursor_entries_are_flat_and_fail_closed_on_gates() {
        let cmd = hook_command("/bin/palisade", HostKind::Cursor);
        let v = merge(&Value::Null, HostKind::Cursor, Some(&cmd)).unwrap();
        assert_eq!(v["version"], 1);
        assert_eq!(v["hooks"]["preToolUse"][0]["failClosed"], true);
        assert!(v["hooks"]["postToolUse"][0].get("failClosed").is_none());
        let gone = merge(&v, HostKind::Cursor, None).unwrap();
        assert_eq!(gone, json!({"version": 1}));
    }

    #[test]
    fn another_hosts_entry_is_not_ours() {
        let cmd = hook_command("/bin/palisade", HostKind::Codex);
        let v = merge(&Value::Null, HostKind::Codex, Some(&cmd)).unwrap();
        let g = merge(&v, HostKind::Gemini, None).unwrap();
        assert_eq!(g, v);
        assert_eq!(
            hook_command("/my dir/palisade", HostKind::Gemini),
            "'/my dir/palisade' hook gemini"
        );
    }

    #[test]
    fn apply_backs_up_and_refuses_broken_json() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".claude/settings.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "{\"theme\": \"dark\"}").unwrap();
        let cmd = hook_command("/bin/palisade", HostKind::ClaudeCode);
        let dry = apply(&path, HostKind::ClaudeCode, Some(&cmd), true).unwrap();
        assert!(dry.changed);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"theme\": \"dark\"}"
        );
        let r = apply(&path, HostKind::ClaudeCode, Some(&cmd), false).unwrap();
        assert_eq!(
            std::fs::read_to_string(r.backup.unwrap()).unwrap(),
            "{\"theme\": \"dark\"}"
        );
        let again = apply(&path, HostKind::ClaudeCode, Some(&cmd), false).unwrap();
        assert!(!again.changed);
        std::fs::write(&path, "{broken").unwrap();
        assert!(apply(&path, HostKind::ClaudeCode, Some(&cmd), false).is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{broken");
    }
}
