//! `palisade check closure --jsonl`.
//!
//! Input: `{"turn":{"user","assistant","tool_calls":[{"name","args","result","cwd"?}],
//! "completed","interrupted"},"home"?}`. `home` (or `turn.home`) is the agent
//! home used to resolve absolute retention paths. Output: the judgment from
//! [`palisade_closure::classify::Judgment::to_json`].

use super::LineChecker;
use palisade_closure::classify::{Classifier, Turn};
use palisade_closure::detect::RetentionPolicy;
use serde_json::Value;

/// The checker for this guard.
pub fn checker() -> Box<dyn LineChecker> {
    Box::new(ClosureChecker {
        base: Classifier::new(),
    })
}

struct ClosureChecker {
    base: Classifier,
}

impl LineChecker for ClosureChecker {
    fn check(&mut self, input: Value) -> Result<Value, String> {
        let turn_v = input
            .get("turn")
            .ok_or_else(|| "wrong shape: missing field `turn`".to_string())?;
        let turn = Turn::from_json(turn_v).map_err(|e| format!("wrong shape: {e}"))?;
        let home = input
            .get("home")
            .or_else(|| turn_v.get("home"))
            .and_then(Value::as_str);
        let judgment = match home {
            Some(h) => self
                .base
                .clone()
                .with_policy(RetentionPolicy::with_home(h))
                .judge(&turn),
            None => self.base.judge(&turn),
        };
        Ok(judgment.to_json())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(input: Value) -> Result<Value, String> {
        checker().check(input)
    }

    #[test]
    fn judges_a_preference_turn() {
        let out = check(
            json!({"turn": {"user": "From now on, reply in English.", "assistant": "OK",
            "tool_calls": [], "completed": true, "interrupted": false}}),
        )
        .unwrap();
        assert_eq!(out["judgment"], "candidate");
        assert_eq!(out["candidate"]["classification"], "user-preference");
        assert!(out["candidate"]["content"]
            .as_str()
            .unwrap()
            .contains("reply in English"));
        assert!(!out["reasons"].as_array().unwrap().is_empty());
    }

    #[test]
    fn tolerates_string_args_object_results_and_missing_fields() {
        let out = check(json!({"turn": {"user": "save it", "tool_calls": [
            {"name": "memory", "args": "{\"action\":\"add\",\"target\":\"user\",\"content\":\"tea\"}",
             "result": {"success": true}}]}}))
        .unwrap();
        assert_eq!(out["judgment"], "retained");
        let out = check(json!({"turn": {}})).unwrap();
        assert_eq!(out["judgment"], "routine");
    }

    #[test]
    fn home_resolves_relative_paths_with_cwd() {
        let turn = json!({"user": "notes", "tool_calls": [{"name": "write_file",
            "args": {"path": "memory/notes.md"}, "result": "ok", "cwd": "/srv/repo"}]});
        let out = check(json!({"turn": turn, "home": "/home/u/.hermes"})).unwrap();
        assert_eq!(out["judgment"], "routine");
    }

    #[test]
    fn wrong_shapes_are_errors() {
        assert!(check(json!({"x": 1})).unwrap_err().contains("turn"));
        assert!(check(json!({"turn": {"user": 5}})).is_err());
        assert!(check(json!({"turn": {"tool_calls": [{"args": {}}]}})).is_err());
        assert!(check(json!({"turn": {"completed": "yes"}})).is_err());
    }
}
