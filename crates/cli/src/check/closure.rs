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
