//! The state one hook process hands to the next, per host session.
//!
//! Hermes keeps a turn's accumulator, the held turn and the session taint in
//! the plugin's memory; a host hook is a new process per event, so that
//! state lives in `<profile>/hooks/sessions/<safe-session>.json` (0600,
//! atomic rewrite, read-modify-write under an exclusive lock, because Claude
//! Code and Codex run hooks of parallel tool calls at the same time).
//! Everything stored is secret-masked and capped; it is a working file, not
//! a transcript: the turn's entries are dropped when the turn is judged.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Tool calls remembered per turn (the closure accumulator's own cap).
const MAX_CALLS: usize = 256;
/// Characters kept per stored text.
const MAX_TEXT: usize = 8192;

/// One tool call of the open turn, as the closure judgment needs it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct StoredCall {
    pub name: String,
    pub args: Value,
    pub result: String,
    pub cwd: Option<String>,
    pub ok: bool,
}

/// What one session carries between hook processes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct SessionFile {
    /// Prompts seen in this session (the fallback turn id for hosts without one).
    #[serde(default)]
    pub prompts: u64,
    /// The open turn's id.
    #[serde(default)]
    pub turn: String,
    /// The open turn's user prompt (masked, capped).
    #[serde(default)]
    pub prompt: String,
    /// The turn whose prompt was held as a likely injection: no tool runs for it.
    #[serde(default)]
    pub held_turn: Option<String>,
    /// The session is tainted by an injection in a prompt or tool result until then.
    #[serde(default)]
    pub tainted_until_ms: Option<u64>,
    /// The open turn's tool calls.
    #[serde(default)]
    pub calls: Vec<StoredCall>,
}

impl SessionFile {
    /// The turn id to use: the host's, else this session's prompt counter.
    pub(crate) fn turn_id(&self, host_turn: Option<&str>) -> String {
        match host_turn {
            Some(t) if !t.is_empty() => t.to_owned(),
            _ if !self.turn.is_empty() => self.turn.clone(),
            _ => format!("turn-{}", self.prompts),
        }
    }

    /// Remember a tool call of the open turn (masked, capped).
    pub(crate) fn push_call(&mut self, call: StoredCall) {
        if self.calls.len() < MAX_CALLS {
            self.calls.push(StoredCall {
                result: cap(&mask(&call.result)),
                args: mask_value(&call.args),
                ..call
            });
        }
    }
}

/// Mask credentials before anything is written to disk.
pub(crate) fn mask(text: &str) -> String {
    palisade_egress::secrets::SecretScanner::builtin()
        .redact(text)
        .text
}

fn mask_value(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(cap(&mask(s))),
        Value::Array(items) => Value::Array(items.iter().map(mask_value).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), mask_value(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The first [`MAX_TEXT`] characters.
pub(crate) fn cap(text: &str) -> String {
    text.chars().take(MAX_TEXT).collect()
}

/// Where a session's file lives.
pub(crate) fn path(home: &Path, session: &str) -> PathBuf {
    home.join("hooks").join("sessions").join(format!(
        "{}.json",
        palisade_closure::session::session_filename(session)
    ))
}

/// Read, change and write one session's file under its lock. A missing or
/// unreadable file starts empty (the guards then run without taint: the
/// stored guards' own files still hold every decision).
pub(crate) fn update<T>(
    home: &Path,
    session: &str,
    change: impl FnOnce(&mut SessionFile) -> T,
) -> std::io::Result<T> {
    let file = path(home, session);
    let dir = file
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| home.to_path_buf());
    palisade_hermes::storage::ensure_dir(&dir)?;
    let lock_path = file.with_extension("lock");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)?;
    // Fully qualified: fs4's flock, not std's newer inherent File::lock (MSRV).
    <std::fs::File as fs4::FileExt>::lock(&lock)?;
    let mut state: SessionFile = std::fs::read(&file)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let before = state.clone();
    let out = change(&mut state);
    if state != before {
        let bytes = serde_json::to_vec(&state).map_err(std::io::Error::other)?;
        // Atomic (temp + rename) without fsync: a session's state between
        // two hook events of a running agent; a power cut that could roll
        // it back ends the agent's session too.
        palisade_hermes::storage::jsonl::replace_file(&file, &bytes)?;
    }
    let _ = <std::fs::File as fs4::FileExt>::unlock(&lock);
    Ok(out)
}

/// Remove a session's files (the session ended).
pub(crate) fn remove(home: &Path, session: &str) {
    let file = path(home, session);
    let _ = std::fs::remove_file(&file);
    let _ = std::fs::remove_file(file.with_extension("lock"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn update_persists_and_masks() {
        let dir = tempfile::tempdir().unwrap();
        update(dir.path(), "s/../1", |s| {
            s.prompts += 1;
            s.push_call(StoredCall {
                name: "Bash".into(),
                args: serde_json::json!({"command": "export GITHUB_TOKEN=ghp_4tR9kLm2Qx8Vz1Nw6Yb3Hc7Jd5Fg0Ps2Ue9A"}),
                result: "ok".into(),
                cwd: None,
                ok: true,
            });
        })
        .unwrap();
        let file = path(dir.path(), "s/../1");
        assert!(file.starts_with(dir.path().join("hooks/sessions")));
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(
            !text.contains("ghp_4tR9kLm2Qx8Vz1Nw6Yb3Hc7Jd5Fg0Ps2Ue9A"),
            "{text}"
        );
        let prompts = update(dir.path(), "s/../1", |s| s.prompts).unwrap();
        assert_eq!(prompts, 1);
        remove(dir.path(), "s/../1");
        assert!(!file.exists());
    }

    #[test]
    fn turn_id_falls_back_to_the_counter() {
        let mut s = SessionFile::default();
        assert_eq!(s.turn_id(None), "turn-0");
        assert_eq!(s.turn_id(Some("p1")), "p1");
        s.turn = "t".into();
        assert_eq!(s.turn_id(Some("")), "t");
    }
}
