//! `palisade scan` on a session and the Hermes plugin's hooks on the same
//! messages give the same egress findings: both run the session pipeline's
//! egress stage (`EgressGuard` with the built-in default policy, which is the
//! plugin's policy when no policy file is configured).
//!
//! The scan side is the `--json` output; the plugin side is what the egress
//! hooks recorded in `plugin-data/egress-guard/audit.jsonl`, one row per
//! inspected string, attributed to the message whose hook wrote it.

use palisade_hermes::{Env, GuardName, Host, Plugin};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// (line, kind, rule, severity, what): `what` is the masked preview, or for
/// an upload `tool → destination`.
type Key = (u64, String, String, String, String);

fn sessions() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/sessions")
}

/// A session that reaches the egress rules by other roads than the sample
/// does: credentials under JSON keys of a tool result, an upload in the
/// `cmd` argument of a tool that is not a shell (which the scan missed before
/// it ran the plugin's pipeline), string arguments, small counts in a reply,
/// a clean reply.
const MIXED: &str = r#"{"role":"user","content":"Pull the config and publish the report."}
{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read_config","arguments":"{\"path\":\"config/prod.json\"}"}}]}
{"role":"tool","tool_call_id":"c1","content":"{\"db\": {\"host\": \"db.internal\", \"password\": \"Vr7#qLm2-Xt9wPz4\"}, \"token\": \"ghp_R8aWq2LmZ0xT5vNcK7pB3yHd9JfE1sUgQ4iO\"}"}
{"role":"assistant","content":null,"tool_calls":[{"id":"c2","type":"function","function":{"name":"run_job","arguments":"{\"cmd\":\"scp report.csv ops@files.example.org:/srv/drop/\"}"}},{"id":"c3","type":"function","function":{"name":"notify","arguments":"\"ping with key sk_live_4eC39HqLyjWDarjtT1zdp7dc\""}}]}
{"role":"tool","tool_call_id":"c2","content":"copied"}
{"role":"assistant","content":"| clinic | diagnosis | patients |\n|---|---|---|\n| North | asthma | 3 |\n| North | diabetes | 41 |\n| South | asthma | 2 |\n| South | diabetes | 57 |\n"}
{"role":"user","content":"Thanks, that is all."}
{"role":"assistant","content":"Glad to help."}
"#;

fn scan_side(path: &Path) -> Vec<Key> {
    let out = Command::new(env!("CARGO_BIN_EXE_palisade"))
        .args(["scan", "--json", "--fail-on", "never"])
        .arg(path)
        .output()
        .expect("the palisade binary runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let mut keys = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let f: Value = serde_json::from_str(line).expect("JSON line");
        if f["guard"] != "egress" {
            continue;
        }
        let kind = f["kind"].as_str().unwrap().to_owned();
        let what = if kind == "upload" {
            // "<tool> sends data to <dest>, which no policy lists (…)"
            let why = f["why"].as_str().unwrap();
            let (tool, rest) = why.split_once(" sends data to ").expect(why);
            let (dest, _) = rest.split_once(", which no policy lists").expect(why);
            format!("{tool} → {dest}")
        } else {
            f["preview"].as_str().unwrap().to_owned()
        };
        keys.push((
            f["line"].as_u64().unwrap(),
            kind,
            f["rule"].as_str().unwrap().to_owned(),
            f["severity"].as_str().unwrap().to_owned(),
            what,
        ));
    }
    keys.sort();
    keys
}

fn message_text(content: &Value) -> String {
    palisade_hermes::hooks::message_text(content)
}

/// Drive the egress plugin's hooks with each message of the session, as
/// Hermes would call them, and read back what the hooks recorded.
fn plugin_side(session: &str) -> Vec<Key> {
    let home = tempfile::tempdir().unwrap();
    let plugin = Plugin::new(
        GuardName::Egress,
        Host::from_version("0.19.0"),
        Env::from_pairs(Vec::<(&str, &str)>::new()),
    );
    let audit = home
        .path()
        .join("plugin-data")
        .join("egress-guard")
        .join("audit.jsonl");
    let mut read = 0usize;
    let mut keys = Vec::new();
    let mut names: HashMap<String, String> = HashMap::new();
    let mut collect = |line: u64, keys: &mut Vec<Key>| {
        let text = std::fs::read_to_string(&audit).unwrap_or_default();
        let rows: Vec<&str> = text.lines().collect();
        for row in &rows[read..] {
            let row: Value = serde_json::from_str(row).unwrap();
            for f in row["findings"].as_array().unwrap() {
                let code = f["rule"].as_str().unwrap();
                let kind =
                    palisade_session::finding::egress_kind(code, f["kind"].as_str().unwrap())
                        .into_owned();
                keys.push((
                    line,
                    kind,
                    format!("egress-guard:{code}"),
                    f["severity"].as_str().unwrap().to_owned(),
                    f["preview"].as_str().unwrap().to_owned(),
                ));
            }
        }
        read = rows.len();
    };
    for (i, raw) in session.lines().enumerate() {
        let line = i as u64 + 1;
        let msg: Value = serde_json::from_str(raw).unwrap();
        match msg["role"].as_str().unwrap() {
            "assistant" => {
                let text = message_text(&msg["content"]);
                if !text.is_empty() {
                    let kwargs = json!({"response_text": text, "session_id": "s1"});
                    plugin.handle(home.path(), "transform_llm_output", &kwargs.to_string());
                }
                for call in msg["tool_calls"].as_array().into_iter().flatten() {
                    let name = call["function"]["name"].as_str().unwrap();
                    let raw_args = call["function"]["arguments"].as_str().unwrap();
                    let args: Value = serde_json::from_str(raw_args)
                        .unwrap_or_else(|_| Value::String(raw_args.to_owned()));
                    let id = call["id"].as_str().unwrap_or_default();
                    names.insert(id.to_owned(), name.to_owned());
                    let kwargs = json!({"tool_name": name, "args": args, "session_id": "s1",
                        "tool_call_id": id});
                    plugin.handle(home.path(), "pre_tool_call", &kwargs.to_string());
                }
            }
            "tool" => {
                let id = msg["tool_call_id"].as_str().unwrap_or_default();
                let name = names.get(id).cloned().unwrap_or_default();
                let kwargs = json!({"tool_name": name, "args": {}, "session_id": "s1",
                    "result": message_text(&msg["content"]), "tool_call_id": id});
                plugin.handle(home.path(), "transform_tool_result", &kwargs.to_string());
            }
            _ => {}
        }
        collect(line, &mut keys);
    }
    keys.sort();
    keys
}

fn kinds(keys: &[Key]) -> Vec<&str> {
    let mut k: Vec<&str> = keys.iter().map(|k| k.1.as_str()).collect();
    k.sort_unstable();
    k.dedup();
    k
}

#[test]
fn sample_session_same_egress_findings_offline_and_live() {
    let path = sessions().join("leaky.jsonl");
    let session = std::fs::read_to_string(&path).unwrap();
    let offline = scan_side(&path);
    let live = plugin_side(&session);
    assert_eq!(offline, live);
    // Not a vacuous match: the sample reaches secrets, uploads and small cells.
    assert_eq!(kinds(&offline), ["secret", "small_cell", "upload"]);
}

#[test]
fn mixed_session_same_egress_findings_offline_and_live() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mixed.jsonl");
    std::fs::write(&path, MIXED).unwrap();
    let offline = scan_side(&path);
    let live = plugin_side(MIXED);
    assert_eq!(offline, live);
    let lines: Vec<u64> = offline.iter().map(|k| k.0).collect();
    // the JSON tool result (line 3), both tool calls (line 4), the table (line 6)
    for line in [3, 4, 6] {
        assert!(lines.contains(&line), "line {line}: {offline:#?}");
    }
    assert!(kinds(&offline).contains(&"upload"), "{offline:#?}");
    // Previews are masked on both sides.
    for k in &offline {
        assert!(
            !k.4.contains("R8aWq2") && !k.4.contains("Vr7#qLm2"),
            "{k:?}"
        );
    }
}
