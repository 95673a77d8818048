//! `palisade scan` on host session files: a Claude Code transcript and a
//! Codex rollout (fixtures in testdata/hosts/), detected without a flag.

use serde_json::Value;
use std::process::Command;

fn scan(name: &str) -> Vec<Value> {
    let path = format!("{}/testdata/hosts/{name}", env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(env!("CARGO_BIN_EXE_palisade"))
        .args(["scan", &path, "--json", "--fail-on", "never"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn has(findings: &[Value], line: u64, kind: &str) -> bool {
    findings
        .iter()
        .any(|f| f["line"] == line && f["kind"] == kind)
}

#[test]
fn claude_code_transcript_is_scanned() {
    let f = scan("claude-code-transcript.jsonl");
    assert!(has(&f, 4, "secret"), "{f:?}");
    assert!(has(&f, 9, "injection"), "{f:?}");
    // Skipped entries (meta, summary, system, attachment, unknown types) are no errors.
    assert!(
        f.iter()
            .all(|x| x["kind"] != "unreadable_line" && x["guard"] != "scan"),
        "{f:?}"
    );
    assert!(f
        .iter()
        .all(|x| !x.to_string().contains("AKIAQ3EGUWK7ZJ2X5R4N")));
}

#[test]
fn codex_rollout_is_scanned() {
    let f = scan("codex-rollout.jsonl");
    assert!(has(&f, 7, "secret"), "{f:?}");
    assert!(has(&f, 9, "upload"), "{f:?}");
    // The environment context Codex injects is not read as the user's words.
    assert!(!has(&f, 2, "injection"), "{f:?}");
}
