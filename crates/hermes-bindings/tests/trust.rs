//! Trust bars (issue 22): every fallback and fail-closed decision is visible,
//! every store failure is noticed, nothing is created by a reading command.

use palisade_hermes::{Env, GuardName, Host, Plugin, Timestamp};
use serde_json::Value;

fn env(pairs: &[(&str, &str)]) -> Env {
    Env::from_pairs(
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
    )
}

#[test]
fn egress_transform_fails_closed_with_fail_mode_closed() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("egress-guard.yaml"), "fail_mode: closed\n").unwrap();
    let p = Plugin::new(GuardName::Egress, Host::default(), env(&[]));
    for hook in ["transform_llm_output", "transform_tool_result"] {
        // Kwargs that do not parse are an internal error of the guard.
        let out = p.handle_at(home.path(), hook, "[not an object", Timestamp::from_unix(0));
        assert!(out.error.is_some(), "{hook}");
        let v: Value = serde_json::from_str(&out.directive.to_json()).unwrap();
        let text = v.as_str().unwrap_or_default();
        assert!(text.contains("WITHHELD"), "{hook}: {v}");
    }
    // fail_mode open (the default) lets the text through unchanged.
    std::fs::write(home.path().join("egress-guard.yaml"), "fail_mode: open\n").unwrap();
    let out = p.handle_at(
        home.path(),
        "transform_llm_output",
        "[x",
        Timestamp::from_unix(1),
    );
    assert_eq!(out.directive.to_json(), "null");
}

/// Issue 22 item 5: an unreadable said store is named as such to the model
/// (not "the user never typed it") and logged once.
#[test]
fn unreadable_said_store_says_so_and_warns_once() {
    let home = tempfile::tempdir().unwrap();
    let dir = GuardName::Provenance.data_dir(home.path());
    std::fs::create_dir_all(dir.join("said.jsonl")).unwrap(); // a directory: unreadable
    let p = Plugin::new(
        GuardName::Provenance,
        Host::default(),
        env(&[("PROVENANCE_GATE_MODE", "block")]),
    );
    let write = serde_json::json!({"tool_name": "memory", "session_id": "s", "args": {
        "action": "add", "target": "memory",
        "content": "User decided to ship on Friday (\"ship it on friday\")."}});
    for i in 0..2 {
        let out = p.handle_at(
            home.path(),
            "pre_tool_call",
            &write.to_string(),
            Timestamp::from_unix(i),
        );
        let v: Value = serde_json::from_str(&out.directive.to_json()).unwrap();
        let msg = v["message"].as_str().unwrap_or_default();
        assert_eq!(v["action"], "block", "{v}");
        assert!(msg.contains("could not read its store"), "{msg}");
        assert!(!msg.contains("not in what the user typed"), "{msg}");
    }
    let w = p.take_warnings();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("said.jsonl"), "{w:?}");
}

#[test]
fn broken_injection_store_holds_with_the_true_reason_and_warns() {
    let home = tempfile::tempdir().unwrap();
    let dir = GuardName::Injection.data_dir(home.path());
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("guard.sqlite3"),
        b"not a database at all".repeat(200),
    )
    .unwrap();
    let p = Plugin::new(GuardName::Injection, Host::default(), env(&[]));
    let kwargs = r#"{"session_id":"s","turn_id":"t1","user_message":"hello"}"#;
    let out = p.handle_at(home.path(), "pre_llm_call", kwargs, Timestamp::from_unix(0));
    let v: Value = serde_json::from_str(&out.directive.to_json()).unwrap();
    assert_eq!(v["action"], "hold", "{v}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("could not read its store"),
        "{v}"
    );
    let w = p.take_warnings();
    assert!(
        w.iter()
            .any(|w| w.contains("hermes-guard") && w.contains("failed closed")),
        "{w:?}"
    );
}

#[test]
fn invalid_egress_policy_warns_once_naming_the_file() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("egress-guard.yaml"), "rules: [unclosed").unwrap();
    let p = Plugin::new(GuardName::Egress, Host::default(), env(&[]));
    for i in 0..3 {
        p.handle_at(
            home.path(),
            "transform_llm_output",
            r#"{"response_text":"hi"}"#,
            Timestamp::from_unix(i),
        );
    }
    let w = p.take_warnings();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("egress-guard.yaml"), "{w:?}");
}

/// Issue 22 item 6: EGRESS_GUARD_POLICY → $HERMES_HOME/egress-guard.yaml →
/// ~/.hermes/egress-guard.yaml → built-in; status names the file used.
#[test]
fn egress_policy_lookup_order_and_status_names_the_file() {
    let user = tempfile::tempdir().unwrap();
    let seed_dir = user.path().join(".hermes");
    let profile = seed_dir.join("profiles/work");
    std::fs::create_dir_all(&profile).unwrap();
    let status = |env: &Env| -> String {
        let p = Plugin::new(GuardName::Egress, Host::default(), env.clone());
        let v = p.command_at(&profile, "status", "{}", Timestamp::from_unix(0));
        v["result"]["policy_file"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    let home_var = user.path().to_str().unwrap().to_owned();
    let base = env(&[("HOME", &home_var)]);
    assert!(status(&base).contains("built-in"), "{}", status(&base));
    // the seed's ~/.hermes file applies to a profile that has none of its own
    let seed_file = seed_dir.join("egress-guard.yaml");
    std::fs::write(&seed_file, "preset: dev\n").unwrap();
    assert_eq!(status(&base), seed_file.display().to_string());
    // the profile's own file wins over it
    let own = profile.join("egress-guard.yaml");
    std::fs::write(&own, "preset: dev\n").unwrap();
    assert_eq!(status(&base), own.display().to_string());
    // and EGRESS_GUARD_POLICY over both
    let named = user.path().join("named.yaml");
    std::fs::write(&named, "preset: dev\n").unwrap();
    let with_var = env(&[
        ("HOME", &home_var),
        ("EGRESS_GUARD_POLICY", named.to_str().unwrap()),
    ]);
    assert_eq!(status(&with_var), named.display().to_string());
}
