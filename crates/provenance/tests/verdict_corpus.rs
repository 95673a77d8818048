//! Table-driven verdict corpus: `testdata/verdicts.jsonl`. Each case is
//! checked three ways — the text itself, a `memory` add and a
//! `skill_manage` create — and all three must give the expected verdict and
//! reason. A failure prints the case name and the text.

use palisade_provenance::gate::{Gate, GateConfig, Outcome};
use palisade_provenance::replay::{check_write, Stored};
use palisade_provenance::{SaidIndex, Scope, SearchScope};
use serde_json::{json, Value};

const CASES: &str = include_str!("../testdata/verdicts.jsonl");

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn verdict_corpus() {
    let mut failures = Vec::new();
    let mut count = 0;
    // Building a gate compiles its regexes: once per search scope.
    let session_gate = Gate::new(GateConfig {
        scope: Scope::Decisions,
        search: SearchScope::Session,
    });
    let profile_gate = Gate::new(GateConfig {
        scope: Scope::Decisions,
        search: SearchScope::Profile,
    });
    for line in CASES.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).expect("corpus line is JSON");
        let name = case["name"].as_str().unwrap_or("?");
        let text = case["text"].as_str().unwrap_or("");
        let expected = case["expected"].as_str().unwrap_or("");
        let reason = case["reason"].as_str();
        let search = case["search"]
            .as_str()
            .and_then(SearchScope::parse)
            .unwrap_or_default();
        let mut said = SaidIndex::new();
        for m in strings(&case["other_session"]) {
            said.push("s0", None, "u1", &m);
        }
        for m in strings(&case["said"]) {
            said.push("s1", None, "u1", &m);
        }
        let gate = if search == SearchScope::Profile {
            &profile_gate
        } else {
            &session_gate
        };
        let shapes = [
            ("text", gate.check(text, &said, "s1", None)),
            (
                "memory add",
                check_write(
                    gate,
                    "memory",
                    &json!({"action": "add", "target": "memory", "content": text}),
                    &Stored::default(),
                    &said,
                    "s1",
                ),
            ),
            (
                "skill create",
                check_write(
                    gate,
                    "skill_manage",
                    &json!({"action": "create", "name": "corpus-skill", "content": text}),
                    &Stored::default(),
                    &said,
                    "s1",
                ),
            ),
        ];
        for (shape, report) in shapes {
            count += 1;
            let got = if report.outcome == Outcome::Pass {
                "pass"
            } else {
                "block"
            };
            let got_reason = report.reason.map(|r| r.as_str());
            if got != expected || (expected == "block" && got_reason != reason) {
                failures.push(format!(
                    "{name} [{shape}]: expected {expected}/{reason:?}, got {got}/{got_reason:?}: {text:?}"
                ));
            }
        }
    }
    println!(
        "verdict corpus: {count} checks, {} failures",
        failures.len()
    );
    assert!(count >= 600, "corpus too small");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
