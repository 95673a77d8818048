//! `palisade check provenance --jsonl`: the full provenance verdict.
//!
//! Input `{"text", "said": [...], "search"?, "scope"?, "stored"?}` where
//! `said` holds the user's messages in this session, oldest first (strings,
//! or objects `{"text", "session"?, "sender"?}`; a message with another
//! session only counts with `"search": "profile"`). Output
//! `{"verdict":"pass"|"block","reason","claims":[{"text","verdict","reason","quote",…}]}`.

use super::LineChecker;
use palisade_provenance::gate::{ClaimVerdict, Gate, GateConfig, Report};
use palisade_provenance::{SaidIndex, Scope, SearchScope};
use serde::Deserialize;
use serde_json::{json, Value};

/// The session id the batch check uses for "this session".
const SESSION: &str = "this-session";

#[derive(Deserialize)]
#[serde(untagged)]
enum Said {
    Text(String),
    Message {
        text: String,
        #[serde(default)]
        session: Option<String>,
        #[serde(default)]
        sender: Option<String>,
    },
}

#[derive(Deserialize)]
struct Request {
    text: String,
    #[serde(default)]
    said: Vec<Said>,
    #[serde(default)]
    search: Option<String>,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    stored: Option<String>,
}

struct Provenance {
    gates: Vec<((Scope, SearchScope), Gate)>,
}

/// The checker for this guard.
pub fn checker() -> Box<dyn LineChecker> {
    let mut gates = Vec::new();
    for scope in [Scope::Decisions, Scope::DecisionsAndPreferences] {
        for search in [SearchScope::Session, SearchScope::Profile] {
            gates.push(((scope, search), Gate::new(GateConfig { scope, search })));
        }
    }
    Box::new(Provenance { gates })
}

impl LineChecker for Provenance {
    fn check(&mut self, input: Value) -> Result<Value, String> {
        let req: Request = super::parse(input)?;
        let search = match req.search.as_deref() {
            None => SearchScope::Session,
            Some(s) => SearchScope::parse(s)
                .ok_or("wrong shape: search must be \"session\" or \"profile\"")?,
        };
        let scope = match req.scope.as_deref() {
            None => Scope::Decisions,
            Some(s) => Scope::parse(s)
                .ok_or("wrong shape: scope must be \"decisions\" or \"decisions+preferences\"")?,
        };
        let gate = self
            .gates
            .iter()
            .find(|(k, _)| *k == (scope, search))
            .map(|(_, g)| g)
            .ok_or("internal: no gate for this configuration")?;
        let mut said = SaidIndex::new();
        for m in &req.said {
            match m {
                Said::Text(t) => said.push(SESSION, None, "", t),
                Said::Message {
                    text,
                    session,
                    sender,
                } => said.push(
                    session.as_deref().unwrap_or(SESSION),
                    None,
                    sender.as_deref().unwrap_or(""),
                    text,
                ),
            };
        }
        let report = gate.check(&req.text, &said, SESSION, req.stored.as_deref());
        Ok(render(&report))
    }
}

fn render(report: &Report) -> Value {
    let claims: Vec<Value> = report.claims.iter().map(render_claim).collect();
    json!({
        "verdict": report.outcome.as_str(),
        "reason": report.reason.map(|r| r.as_str()),
        "rule_key": report.reason.map(|r| r.rule_key().to_string()),
        "claims": claims,
    })
}

fn render_claim(c: &ClaimVerdict) -> Value {
    json!({
        "text": c.claim.text,
        "span": c.claim.span,
        "verdict": c.outcome.as_str(),
        "reason": c.reason.map(|r| r.as_str()),
        "quote": c.quote,
        "matched_in": c.matched_in,
        "role": c.role,
        "condition": c.condition,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provenance_lines() {
        let mut c = checker();
        let said = json!(["I decided we ship on Friday"]);
        let ok = c
            .check(json!({"text": "User decided to ship on Friday (\"I decided we ship on Friday\").", "said": said}))
            .unwrap();
        assert_eq!(ok["verdict"], "pass");
        assert_eq!(ok["claims"][0]["matched_in"], "this-session");
        let bad = c
            .check(json!({"text": "User decided to ship on Friday.", "said": said}))
            .unwrap();
        assert_eq!(bad["verdict"], "block");
        assert_eq!(bad["reason"], "no_quote");
        assert_eq!(bad["claims"][0]["reason"], "no_quote");
        let none = c
            .check(json!({"text": "Build is green.", "said": []}))
            .unwrap();
        assert_eq!(none["verdict"], "pass");
        assert!(c.check(json!({"text": "x", "search": "galaxy"})).is_err());
    }
}
