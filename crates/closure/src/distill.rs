//! Distillation: candidates proposed by a model, parsed without writing.
//!
//! The caller runs its own model client (this crate does no I/O) and hands
//! the raw output here. Unlike the seed, the model's sink, risk and
//! confidence are kept, every text is redacted, and because a model's
//! phrasing is not the user's own words, a model-extracted candidate is never
//! `low` risk: it is raised to `medium` so it cannot be auto-promoted, and
//! its `source.attribution` says `model-extracted`.

use crate::redact::{collapse_whitespace, redact_text};
use crate::schema::{candidate_id, CandidateRecord, CandidateStatus, FinalSink, Risk};
use serde_json::{json, Map, Value};

/// At most this many candidates are taken from one model output.
pub const MAX_MODEL_CANDIDATES: usize = 64;

/// Parse a model's output into pending candidate records.
///
/// `output` may be a JSON string, an object with a `candidates` list, or a
/// list. Items without valid content or sink are dropped, and so are
/// duplicates (same candidate id).
///
/// ```
/// use palisade_closure::distill::candidates_from_model;
/// use palisade_closure::schema::{FinalSink, Risk};
/// use serde_json::json;
/// let out = json!({"candidates": [{"content": "Remember that Joy prefers concise summaries",
///     "classification": "preference", "final_sink": "user", "risk": "low", "confidence": 0.91}]});
/// let c = candidates_from_model(&out, "rec-1", "s1", "2026-05-18T00:00:00Z");
/// assert_eq!(c.len(), 1);
/// assert_eq!(c[0].final_sink, FinalSink::User);
/// assert_eq!(c[0].risk, Risk::Medium); // model words are not the user's
/// assert_eq!(c[0].confidence, 0.91);
/// assert!(candidates_from_model(&json!("not json"), "r", "s", "t").is_empty());
/// ```
pub fn candidates_from_model(
    output: &Value,
    record_id: &str,
    session_id: &str,
    at: &str,
) -> Vec<CandidateRecord> {
    let parsed;
    let value = match output {
        Value::String(s) => {
            if s.len() > crate::detect::MAX_PARSE_BYTES {
                return Vec::new();
            }
            match serde_json::from_str::<Value>(s.trim()) {
                Ok(v) => {
                    parsed = v;
                    &parsed
                }
                Err(_) => return Vec::new(),
            }
        }
        other => other,
    };
    let items = match value {
        Value::Array(a) => a.as_slice(),
        Value::Object(m) => match m.get("candidates") {
            Some(Value::Array(a)) => a.as_slice(),
            _ => return Vec::new(),
        },
        _ => return Vec::new(),
    };
    let mut out: Vec<CandidateRecord> = Vec::new();
    for item in items.iter().take(MAX_MODEL_CANDIDATES) {
        let Some(rec) = one(item, record_id, session_id, at) else {
            continue;
        };
        if !out.iter().any(|r| r.candidate_id == rec.candidate_id) {
            out.push(rec);
        }
    }
    out
}

fn one(item: &Value, record_id: &str, session_id: &str, at: &str) -> Option<CandidateRecord> {
    let m = item.as_object()?;
    let s = |keys: &[&str]| keys.iter().find_map(|k| m.get(*k).and_then(Value::as_str));
    let content = collapse_whitespace(&redact_text(s(&["candidate_content", "content", "text"])?));
    if content.is_empty() {
        return None;
    }
    let sink = FinalSink::parse(s(&["final_sink", "recommended_sink", "sink"])?.trim())?;
    let classification = s(&["classification"])
        .unwrap_or("semantic")
        .trim()
        .to_owned();
    let model_risk = s(&["risk"]).and_then(Risk::parse).unwrap_or(Risk::Medium);
    let risk = model_risk.max(Risk::Medium);
    let confidence = m
        .get("confidence")
        .and_then(Value::as_f64)
        .unwrap_or(0.5)
        .clamp(0.0, 1.0);
    let mut rec = CandidateRecord::new(&content, sink, &classification, risk, confidence);
    rec.candidate_id = candidate_id(&content, sink, &classification);
    rec.status = CandidateStatus::Pending;
    rec.record_id = record_id.to_owned();
    rec.session_id = session_id.to_owned();
    rec.created_at = at.to_owned();
    rec.updated_at = at.to_owned();
    rec.evidence_summary = s(&["evidence_summary", "reason"])
        .map(redact_text)
        .unwrap_or_default();
    let mut source = Map::new();
    source.insert("attribution".into(), json!("model-extracted"));
    source.insert("record_id".into(), json!(record_id));
    source.insert("model_risk".into(), json!(model_risk.as_str()));
    rec.source = source;
    Some(rec)
}
