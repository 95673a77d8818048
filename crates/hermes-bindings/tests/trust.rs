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
