//! `palisade check secrets --jsonl`: `{"text"}` →
//! `{"findings":[{"kind","span","preview","rule","severity"}],"redacted":"…"}`.

use super::LineChecker;
use palisade_egress::secrets::SecretScanner;
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Deserialize)]
struct Request {
    text: String,
}

struct Secrets {
    scanner: &'static SecretScanner,
}

impl LineChecker for Secrets {
    fn check(&mut self, input: Value) -> Result<Value, String> {
        let req: Request = super::parse(input)?;
        let out = self.scanner.redact(&req.text);
        let findings: Vec<Value> = out
            .findings
            .iter()
            .map(|f| {
                json!({
                    "kind": f.kind,
                    "span": f.span,
                    "preview": f.preview,
                    "rule": f.rule_id,
                    "severity": f.severity,
                })
            })
            .collect();
        Ok(json!({ "findings": findings, "redacted": out.text }))
    }
}

/// The checker for this guard.
pub fn checker() -> Box<dyn LineChecker> {
    Box::new(Secrets {
        scanner: SecretScanner::builtin(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_exactly_the_secret() {
        let mut c = checker();
        let out = c
            .check(json!({"text": "export GITHUB_TOKEN=ghp_R8aWq2LmZ0xT5vNcK7pB3yHd9JfE1sUgQ4iO"}))
            .unwrap();
        assert_eq!(out["redacted"], "export GITHUB_TOKEN=ghp_…****");
        assert_eq!(out["findings"][0]["kind"], "github_token");
        assert_eq!(out["findings"][0]["span"], json!([20, 60]));
        assert!(c.check(json!({"txt": 1})).is_err());
    }
}
