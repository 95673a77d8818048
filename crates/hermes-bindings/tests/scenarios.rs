//! Table-driven hook scenarios: `testdata/scenarios.jsonl`, one case per line.
//!
//! A case: `{"name", "guard", "host"?, "env"?, "files"?, "steps": [...], "note"}`.
//! A step: `{"hook", "kwargs", "expect"?, "row"?}` where `expect` is `null`
//! (no directive) or an object matched against the directive
//! (`action`, `rule_key`, `contains` (substrings of the message, context or
//! rewritten text), `not_contains`), and `row` is
//! `{"file": path under the home, "last": {field: value…}}` matched against
//! the last row of that JSONL file. Each case runs in a fresh home, with
//! steps one second apart; `__HOME__` in an env value is that home.

use palisade_hermes::{Env, GuardName, Host, Plugin, Timestamp};
use serde_json::Value;

fn text_of(directive: &Value) -> String {
    match directive {
        Value::String(s) => s.clone(),
        Value::Object(o) => {
            let mut parts: Vec<String> = ["message", "context"]
                .iter()
                .filter_map(|k| o.get(*k).and_then(Value::as_str))
                .map(str::to_owned)
                .collect();
            if let Some(args) = o.get("args") {
                parts.push(args.to_string());
            }
            parts.join("\n")
        }
        _ => String::new(),
    }
}

fn check_expect(case: &str, step: usize, got: &Value, want: &Value) -> Result<(), String> {
    if want.is_null() {
        return if got.is_null() {
            Ok(())
        } else {
            Err(format!(
                "{case} step {step}: expected no directive, got {got}"
            ))
        };
    }
    if got.is_null() {
        return Err(format!(
            "{case} step {step}: expected {want}, got no directive"
        ));
    }
    for key in ["action", "rule_key"] {
        if let Some(w) = want.get(key) {
            if got.get(key) != Some(w) {
                return Err(format!(
                    "{case} step {step}: {key} should be {w}, got {got}"
                ));
            }
        }
    }
    let text = text_of(got);
    for s in want["contains"].as_array().into_iter().flatten() {
        let s = s.as_str().unwrap_or_default();
        if !text.contains(s) {
            return Err(format!("{case} step {step}: {s:?} not in {text:?}"));
        }
    }
    for s in want["not_contains"].as_array().into_iter().flatten() {
        let s = s.as_str().unwrap_or_default();
        if text.contains(s) {
            return Err(format!(
                "{case} step {step}: {s:?} should not be in {text:?}"
            ));
        }
    }
    Ok(())
}

fn check_row(case: &str, step: usize, home: &std::path::Path, want: &Value) -> Result<(), String> {
    let file = home.join(want["file"].as_str().unwrap_or_default());
    let text = std::fs::read_to_string(&file)
        .map_err(|e| format!("{case} step {step}: cannot read {}: {e}", file.display()))?;
    let last: Value = text
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())
        .ok_or_else(|| format!("{case} step {step}: no row in {}", file.display()))?;
    for (k, v) in want["last"].as_object().into_iter().flatten() {
        if last.get(k) != Some(v) {
            return Err(format!(
                "{case} step {step}: row field {k} should be {v}, row is {last}"
            ));
        }
    }
    Ok(())
}

fn run_case(case: &Value) -> Result<(), String> {
    let name = case["name"].as_str().unwrap_or("?");
    let guard = GuardName::parse(case["guard"].as_str().unwrap_or_default())
        .ok_or_else(|| format!("{name}: unknown guard"))?;
    let host = Host::from_version(case["host"].as_str().unwrap_or("0.19.0"));
    let home = tempfile::tempdir().map_err(|e| e.to_string())?;
    let home_text = home.path().to_string_lossy().into_owned();
    let env = Env::from_pairs(case["env"].as_object().into_iter().flatten().map(|(k, v)| {
        let v = v
            .as_str()
            .unwrap_or_default()
            .replace("__HOME__", &home_text);
        (k.clone(), v)
    }));
    for (path, content) in case["files"].as_object().into_iter().flatten() {
        let p = home.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).map_err(|e| e.to_string())?;
        std::fs::write(&p, content.as_str().unwrap_or_default()).map_err(|e| e.to_string())?;
    }
    let plugin = Plugin::new(guard, host, env);
    for (i, step) in case["steps"].as_array().into_iter().flatten().enumerate() {
        let now = Timestamp::from_unix(1_800_000_000 + i as i64);
        let hook = step["hook"].as_str().unwrap_or_default();
        let out = plugin.handle_at(home.path(), hook, &step["kwargs"].to_string(), now);
        if let Some(err) = &out.error {
            if step.get("error").is_none() {
                return Err(format!("{name} step {i}: internal error {err}"));
            }
        }
        let got = out.directive.to_value();
        if let Some(want) = step.get("expect") {
            check_expect(name, i, &got, want)?;
        }
        if let Some(row) = step.get("row") {
            check_row(name, i, home.path(), row)?;
        }
    }
    Ok(())
}

#[test]
fn scenarios() {
    let text = include_str!("../testdata/scenarios.jsonl");
    let mut failures = Vec::new();
    let mut count = 0;
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let case: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("testdata/scenarios.jsonl:{}: {e}", n + 1));
        count += 1;
        if let Err(e) = run_case(&case) {
            failures.push(format!("line {}: {e}", n + 1));
        }
    }
    assert!(count >= 10, "too few scenarios");
    assert!(
        failures.is_empty(),
        "{} of {count} scenarios failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
