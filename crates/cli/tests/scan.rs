//! `palisade scan` on the bundled sample sessions: the leaky one shows every
//! kind of finding, the clean one none, and exit codes follow `--fail-on`.

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

fn sessions() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/sessions")
}

fn palisade(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_palisade"))
        .args(args)
        .output()
        .expect("the palisade binary runs")
}

fn findings(output: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each --json line is a JSON object"))
        .collect()
}

#[test]
fn leaky_session_reports_every_guard() {
    let path = sessions().join("leaky.jsonl");
    let out = palisade(&["scan", "--json", path.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "critical findings trip the default --fail-on high"
    );
    let found = findings(&out);
    let has = |guard: &str, kind: &str, line: u64| {
        found
            .iter()
            .any(|f| f["guard"] == guard && f["kind"] == kind && f["line"] == line)
    };
    assert!(has("egress", "secret", 3), "{found:#?}");
    assert!(has("egress", "upload", 5));
    assert!(has("egress", "small_cell", 11));
    assert!(has("injection", "injection", 14));
    assert!(has("injection", "dangerous_tool_call", 15));
    assert!(has("provenance", "unbacked_claim", 19));
    assert!(has("closure", "unretained_preference", 22));
    // Previews are masked: the raw key never appears anywhere in the output.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("AKIAQ3EGUWK7ZJ2X5R4N"));
    assert!(!stdout.contains("q8Xv2Lr9TnB4wKe7Yp1Zs6Hd3Mf0Jc5Ga2Ub8Nx4"));
    for f in &found {
        for key in ["line", "guard", "kind", "rule", "severity", "preview"] {
            assert!(f.get(key).is_some(), "finding lacks {key}: {f}");
        }
    }
}

#[test]
fn clean_session_is_clean() {
    let path = sessions().join("clean.jsonl");
    let out = palisade(&["scan", "--json", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        findings(&out).is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let human = palisade(&["scan", path.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&human.stdout).contains("nothing found"));
}

#[test]
fn fail_on_threshold_and_bad_lines() {
    let dir = std::env::temp_dir().join(format!("palisade-scan-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let session = dir.join("s.jsonl");
    std::fs::write(
        &session,
        "{\"role\":\"user\",\"content\":\"From now on always answer in French.\"}\nnot json\n{\"role\":\"assistant\",\"content\":\"D'accord.\"}\n",
    )
    .unwrap();
    let path = session.to_str().unwrap();
    let out = palisade(&["scan", "--json", path]);
    // A medium finding does not trip the default threshold…
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains(":2: skipped: not valid JSON"));
    assert_eq!(findings(&out).len(), 1);
    // …but does at --fail-on low, and never with --fail-on never.
    assert_eq!(
        palisade(&["scan", "--fail-on", "low", path]).status.code(),
        Some(1)
    );
    assert_eq!(
        palisade(&["scan", "--fail-on", "never", path])
            .status
            .code(),
        Some(0)
    );
    // A missing file is a usage error.
    assert_eq!(
        palisade(&["scan", "/nonexistent/session.jsonl"])
            .status
            .code(),
        Some(2)
    );
    std::fs::remove_dir_all(&dir).ok();
}
