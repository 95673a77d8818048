//! No credential the shared secret catalogue knows survives a closure
//! judgment: every example of every built-in secret rule (the same rules
//! `palisade check secrets` masks with), and every secret of the catalogue's
//! agent-context corpus (`crates/secrets/testdata/secrets.jsonl`), is typed
//! by a user into turns of each shape closure turns into a review candidate,
//! and no field of the serialized judgment may hold the raw secret, nor
//! anything the catalogue would still mask.

#![allow(missing_docs)] // integration test crate

use palisade_closure::classify::{Classifier, JudgmentKind, Turn};
use palisade_closure::detect::ToolCall;
use palisade_closure::redact::{preview, redact_text};
use palisade_secrets::SecretScanner;
use serde_json::{json, Value};

/// Turn shapes that each copy the user's words somewhere: a preference, a
/// boundary, an anaphoric preference ("remember that"), an interrupted turn,
/// and a Chinese preference. `{}` is where the rule example goes.
const USER_TEMPLATES: &[(&str, &str)] = &[
    ("preference", "From now on, always use this for deploys: {}"),
    (
        "preference-after",
        "{}\nFrom now on, always use the key above for deploys.",
    ),
    ("boundary", "Never paste this into a public issue: {}"),
    (
        "anaphoric",
        "Here is the config.\n{}\nPlease remember that.",
    ),
    ("interrupted", "Deploy with this, please: {}"),
    ("chinese", "以后请一直用这个配置：{}"),
];

/// The catalogue's agent-context corpus: secrets in shell lines, `.env`,
/// JSON, YAML, code, logs, headers.
const CORPUS: &str = include_str!("../../secrets/testdata/secrets.jsonl");

/// `(where it comes from, text, its raw secrets)` for every rule example and
/// corpus case.
fn samples(scanner: &SecretScanner) -> Vec<(String, String, Vec<String>)> {
    let mut out = Vec::new();
    for rule in scanner.rules() {
        let spec = rule.spec();
        for example in &spec.examples {
            let secrets = secrets_of(scanner, example);
            assert!(
                !secrets.is_empty(),
                "{}: example not found: {example:?}",
                spec.id
            );
            out.push((spec.id.clone(), example.clone(), secrets));
        }
    }
    for line in CORPUS.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        let name = case["name"].as_str().unwrap_or_default();
        let input = case["input"].as_str().unwrap_or_default();
        let secrets: Vec<String> = case["expected"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect();
        assert!(!secrets.is_empty(), "corpus case {name} has no secret");
        out.push((format!("secrets.jsonl:{name}"), input.to_owned(), secrets));
    }
    out
}

/// Every string inside a JSON value.
fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(m) => m.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

/// The raw secrets of one example: what the catalogue itself finds in it.
fn secrets_of(scanner: &SecretScanner, example: &str) -> Vec<String> {
    scanner
        .scan(example)
        .into_iter()
        .map(|f| example[f.span.range()].to_owned())
        .collect()
}

/// Problems with one serialized judgment: a raw secret in a field, or a
/// field the catalogue would still mask.
fn leaks(scanner: &SecretScanner, out: &Value, secrets: &[String]) -> Vec<String> {
    let mut fields = Vec::new();
    strings(out, &mut fields);
    let mut found = Vec::new();
    for field in &fields {
        for s in secrets {
            if field.contains(s.as_str()) {
                found.push(format!("raw secret {s:?} in {field:?}"));
            }
        }
        for f in scanner.scan(field) {
            found.push(format!(
                "{} would still mask {:?} in {field:?}",
                f.rule_id,
                &field[f.span.range()]
            ));
        }
    }
    found
}

#[test]
fn no_rule_example_survives_a_closure_judgment() {
    let scanner = SecretScanner::builtin();
    let classifier = Classifier::new();
    let mut failures = Vec::new();
    let (mut examples, mut candidates) = (0usize, 0usize);
    for (id, example, secrets) in samples(scanner) {
        examples += 1;
        for (shape, template) in USER_TEMPLATES {
            let user = template.replace("{}", &example);
            let mut turn = Turn::new(user, "Noted.");
            if *shape == "interrupted" {
                // An interrupted turn is a candidate only with partial work:
                // a call that returned and a reply that reports a done step.
                turn.interrupted = true;
                turn.completed = false;
                turn.assistant = "I ran the build step and it finished.".into();
                turn.tool_calls.push(ToolCall::new(
                    "terminal",
                    json!({"command": "make build"}),
                    json!({"output": "build ok", "exit_code": 0}),
                ));
            }
            let judgment = classifier.judge(&turn);
            candidates += usize::from(judgment.kind == JudgmentKind::Candidate);
            for leak in leaks(scanner, &judgment.to_json(), &secrets) {
                failures.push(format!("{id} [{shape}] {leak}"));
            }
        }
    }
    eprintln!(
        "{examples} rule examples and corpus cases × {} turn shapes: {candidates} candidates",
        USER_TEMPLATES.len()
    );
    // The shapes are there to make candidates; most must be.
    assert!(
        candidates * 10 >= examples * USER_TEMPLATES.len() * 9,
        "only {candidates} candidates"
    );
    assert!(
        failures.is_empty(),
        "{} leak(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn no_rule_example_survives_a_memory_write_preview() {
    // A retention write's content preview is part of the judgment too.
    let scanner = SecretScanner::builtin();
    let classifier = Classifier::new();
    let mut failures = Vec::new();
    for (id, example, secrets) in samples(scanner) {
        let mut turn = Turn::new("Save my deploy settings.", "Saved.");
        turn.tool_calls.push(ToolCall::new(
            "memory",
            json!({"action": "add", "target": "memory", "content": example}),
            json!({"success": true}),
        ));
        let judgment = classifier.judge(&turn);
        assert_eq!(judgment.kind, JudgmentKind::Retained, "{id}");
        for leak in leaks(scanner, &judgment.to_json(), &secrets) {
            failures.push(format!("{id} {leak}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} leak(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn redaction_masks_whatever_the_catalogue_masks() {
    let scanner = SecretScanner::builtin();
    let mut failures = Vec::new();
    for (id, example, secrets) in samples(scanner) {
        for (what, out) in [
            ("redact_text", redact_text(&example)),
            ("preview", preview(&json!(example), 10_000)),
        ] {
            for s in &secrets {
                if out.contains(s.as_str()) {
                    failures.push(format!("{id} {what}: raw {s:?} in {out:?}"));
                }
            }
        }
        let once = redact_text(&example);
        if redact_text(&once) != once {
            failures.push(format!("{id}: redaction is not idempotent: {once:?}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn negative_examples_stay_readable_outside_labels() {
    // The catalogue's negative examples are not credentials; closure's label
    // layer may still mask a labelled value in them, but never a text
    // without a label word.
    let scanner = SecretScanner::builtin();
    let label_words = [
        "key",
        "secret",
        "token",
        "pass",
        "pwd",
        "cookie",
        "authorization",
        "密码",
        "口令",
        "令牌",
        "暗号",
        "密钥",
        "秘钥",
    ];
    let mut changed = Vec::new();
    let mut checked = 0;
    for rule in scanner.rules() {
        for neg in &rule.spec().negative_examples {
            let lower = neg.to_lowercase();
            if label_words.iter().any(|w| lower.contains(w)) || !scanner.scan(neg).is_empty() {
                continue;
            }
            checked += 1;
            if redact_text(neg) != *neg {
                changed.push(format!(
                    "{}: {neg:?} -> {:?}",
                    rule.spec().id,
                    redact_text(neg)
                ));
            }
        }
    }
    assert!(checked > 50, "only {checked} negatives without label words");
    assert!(changed.is_empty(), "{}", changed.join("\n"));
}
