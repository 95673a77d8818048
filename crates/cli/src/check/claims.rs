//! `palisade check claims --jsonl`: claim detection only.
//!
//! Input `{"text", "scope"?}`, output `{"claims":[{"text","span"}]}` with
//! byte spans in the original input.

use super::LineChecker;
use palisade_provenance::{ClaimDetector, Scope};
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Deserialize)]
struct Request {
    text: String,
    #[serde(default)]
    scope: Option<String>,
}

struct Claims {
    decisions: ClaimDetector,
    with_preferences: ClaimDetector,
}

/// The checker for this guard.
pub fn checker() -> Box<dyn LineChecker> {
    Box::new(Claims {
        decisions: ClaimDetector::new(Scope::Decisions),
        with_preferences: ClaimDetector::new(Scope::DecisionsAndPreferences),
    })
}

impl LineChecker for Claims {
    fn check(&mut self, input: Value) -> Result<Value, String> {
        let req: Request = super::parse(input)?;
        let detector = match req.scope.as_deref().map(Scope::parse) {
            None => &self.decisions,
            Some(Some(Scope::DecisionsAndPreferences)) => &self.with_preferences,
            Some(Some(_)) => &self.decisions,
            Some(None) => {
                return Err(
                    "wrong shape: scope must be \"decisions\" or \"decisions+preferences\"".into(),
                )
            }
        };
        let claims: Vec<Value> = detector
            .detect(&req.text)
            .into_iter()
            .map(|c| json!({ "text": c.text, "span": c.span, "rule": c.rule }))
            .collect();
        Ok(json!({ "claims": claims }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_line() {
        let mut c = checker();
        let out = c
            .check(json!({"text": "Notes. User decided to ship on Friday."}))
            .unwrap();
        assert_eq!(out["claims"][0]["span"], json!([7, 38]));
        assert_eq!(out["claims"][0]["text"], "User decided to ship on Friday.");
        let none = c.check(json!({"text": "The PM decided."})).unwrap();
        assert_eq!(none["claims"], json!([]));
        assert!(c.check(json!({"txt": "x"})).is_err());
    }
}
