//! Candidate records, their enums, receipts and deterministic ids.
//!
//! # Id derivation
//!
//! `candidate_id = "tcand_" + hex(SHA-256(A "|" B "|" C))[..20]` where A is the
//! candidate content and C the classification, each trimmed, case-folded
//! ([`fold`]) and with whitespace runs collapsed to one space, and B is the
//! final sink's name. This is the seed's derivation, so ids agree with it:
//! ("Remember tea preference", user, user-preference-or-boundary) gives
//! `tcand_cd46d11c7430e250ceef`. To let a text that was once rejected or
//! expired be proposed again, [`candidate_id_with_epoch`] appends
//! `"|" epoch` (for example the day) to the hashed text.
//!
//! `event_id = "tcevt_" + hex(SHA-256(canonical JSON))[..20]` over the array
//! `[event_type, candidate_id, at as UTC (see `Timestamp::to_utc_string`),
//! status or null, reason, receipt or null]`, where canonical JSON sorts
//! object keys by their UTF-8 bytes, writes no spaces and escapes only what
//! JSON requires. It depends on no language's `repr`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::fmt;
use std::sync::Arc;

/// Where a candidate should finally live.
#[derive(Clone, Copy, Debug, Eq, Hash, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinalSink {
    /// The user profile memory.
    User,
    /// General agent memory.
    Memory,
    /// Project memory.
    Project,
    /// Operations notes.
    Ops,
    /// A skill (procedure).
    Skill,
    /// The knowledge base.
    Knowledge,
    /// Not worth keeping.
    Discard,
    /// Ask the user before anything else.
    AskUser,
}

/// A candidate's lifecycle state.
#[derive(Clone, Copy, Debug, Eq, Hash, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CandidateStatus {
    /// Awaiting a decision.
    Pending,
    /// Written to its sink (receipt required).
    Promoted,
    /// Merged into an existing memory (receipt required).
    Merged,
    /// Rejected as noise.
    RejectedNoise,
    /// Rejected as temporary state.
    RejectedTemporary,
    /// Rejected as sensitive.
    RejectedSensitive,
    /// Waiting for the user; a user confirmation can still promote it.
    NeedsUserConfirmation,
    /// Expired without a decision.
    Expired,
}

/// Risk of promoting a candidate.
#[derive(Clone, Copy, Debug, Eq, Hash, PartialEq, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Risk {
    /// Safe to recommend.
    Low,
    /// Needs a look.
    Medium,
    /// Needs the user.
    High,
}

macro_rules! str_enum {
    ($ty:ty { $($var:ident => $s:literal),* $(,)? }) => {
        impl $ty {
            /// The wire name.
            pub fn as_str(self) -> &'static str {
                match self { $(Self::$var => $s),* }
            }
            /// Parse the wire name (exact, lower case).
            pub fn parse(s: &str) -> Option<Self> {
                match s { $($s => Some(Self::$var),)* _ => None }
            }
        }
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

str_enum!(FinalSink { User => "user", Memory => "memory", Project => "project", Ops => "ops",
    Skill => "skill", Knowledge => "knowledge", Discard => "discard", AskUser => "ask_user" });
str_enum!(CandidateStatus { Pending => "pending", Promoted => "promoted", Merged => "merged",
    RejectedNoise => "rejected_noise", RejectedTemporary => "rejected_temporary",
    RejectedSensitive => "rejected_sensitive", NeedsUserConfirmation => "needs_user_confirmation",
    Expired => "expired" });
str_enum!(Risk { Low => "low", Medium => "medium", High => "high" });

impl CandidateStatus {
    /// Whether no further transition is possible. `pending` and
    /// `needs_user_confirmation` are open; everything else is final.
    ///
    /// ```
    /// use palisade_closure::schema::CandidateStatus;
    /// assert!(!CandidateStatus::NeedsUserConfirmation.is_terminal());
    /// assert!(CandidateStatus::Promoted.is_terminal());
    /// ```
    pub fn is_terminal(self) -> bool {
        !matches!(
            self,
            CandidateStatus::Pending | CandidateStatus::NeedsUserConfirmation
        )
    }

    /// Whether this is one of the three rejections.
    ///
    /// ```
    /// use palisade_closure::schema::CandidateStatus;
    /// assert!(CandidateStatus::RejectedNoise.is_rejection());
    /// assert!(!CandidateStatus::Expired.is_rejection());
    /// ```
    pub fn is_rejection(self) -> bool {
        matches!(
            self,
            CandidateStatus::RejectedNoise
                | CandidateStatus::RejectedTemporary
                | CandidateStatus::RejectedSensitive
        )
    }
}

/// Why a record, receipt or event failed validation.
#[derive(Clone, Debug, Eq, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct SchemaError {
    message: String,
}

impl SchemaError {
    pub(crate) fn new(message: impl Into<String>) -> SchemaError {
        SchemaError {
            message: message.into(),
        }
    }
}

/// Unicode case folding for ids: lower case plus the full foldings that
/// differ from it in common text (`ß`→`ss`, final sigma, `ſ`, Latin ligatures).
///
/// ```
/// use palisade_closure::schema::fold;
/// assert_eq!(fold("Straße"), fold("STRASSE"));
/// assert_eq!(fold("ΣΊΣΥΦΟΣ"), fold("σίσυφος"));
/// ```
pub fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            'ß' | 'ẞ' => out.push_str("ss"),
            'ς' => out.push('σ'),
            'ſ' => out.push('s'),
            'ﬀ' => out.push_str("ff"),
            'ﬁ' => out.push_str("fi"),
            'ﬂ' => out.push_str("fl"),
            'ﬃ' => out.push_str("ffi"),
            'ﬄ' => out.push_str("ffl"),
            'ﬅ' | 'ﬆ' => out.push_str("st"),
            'İ' => out.push_str("i\u{307}"),
            c => out.extend(c.to_lowercase()),
        }
    }
    out
}

fn fold_collapse(s: &str) -> String {
    fold(s.trim())
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn hex20(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().take(10).map(|b| format!("{b:02x}")).collect()
}

/// The deterministic candidate id (see the module docs).
///
/// ```
/// use palisade_closure::schema::{candidate_id, FinalSink};
/// assert_eq!(
///     candidate_id("Remember tea preference", FinalSink::User, "user-preference-or-boundary"),
///     "tcand_cd46d11c7430e250ceef"
/// );
/// assert_eq!(
///     candidate_id("  REMEMBER   tea preference ", FinalSink::User, "User-Preference-or-Boundary"),
///     "tcand_cd46d11c7430e250ceef"
/// );
/// ```
pub fn candidate_id(content: &str, sink: FinalSink, classification: &str) -> String {
    let text = format!(
        "{}|{}|{}",
        fold_collapse(content),
        sink.as_str(),
        fold_collapse(classification)
    );
    format!("tcand_{}", hex20(text.as_bytes()))
}

/// A candidate id salted with an epoch, for re-proposing a text whose earlier
/// candidate ended rejected or expired. An empty epoch gives [`candidate_id`].
///
/// ```
/// use palisade_closure::schema::{candidate_id, candidate_id_with_epoch, FinalSink};
/// let a = candidate_id("x", FinalSink::User, "c");
/// assert_eq!(candidate_id_with_epoch("x", FinalSink::User, "c", ""), a);
/// assert_ne!(candidate_id_with_epoch("x", FinalSink::User, "c", "2026-06-01"), a);
/// ```
pub fn candidate_id_with_epoch(
    content: &str,
    sink: FinalSink,
    classification: &str,
    epoch: &str,
) -> String {
    if epoch.trim().is_empty() {
        return candidate_id(content, sink, classification);
    }
    let text = format!(
        "{}|{}|{}|{}",
        fold_collapse(content),
        sink.as_str(),
        fold_collapse(classification),
        epoch.trim()
    );
    format!("tcand_{}", hex20(text.as_bytes()))
}

/// Canonical JSON: keys sorted by UTF-8 bytes, no whitespace.
///
/// ```
/// use palisade_closure::schema::canonical_json;
/// assert_eq!(canonical_json(&serde_json::json!({"b":1,"a":[true,null,"x"]})), r#"{"a":[true,null,"x"],"b":1}"#);
/// ```
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out, 0);
    out
}

fn write_canonical(value: &Value, out: &mut String, depth: usize) {
    match value {
        Value::Object(m) if depth < 128 => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                write_canonical(&m[k], out, depth + 1);
            }
            out.push('}');
        }
        Value::Array(a) if depth < 128 => {
            out.push('[');
            for (i, v) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(v, out, depth + 1);
            }
            out.push(']');
        }
        Value::Object(_) | Value::Array(_) => out.push_str("null"),
        other => out.push_str(&other.to_string()),
    }
}

/// Hash an event's identity fields into its id (see the module docs).
///
/// ```
/// use palisade_closure::schema::event_id;
/// let a = event_id("candidate.created", "tcand_x", "2026-05-17T00:00:00Z", Some("pending"), "r", None);
/// let b = event_id("candidate.created", "tcand_x", "2026-05-17T00:00:00Z", Some("pending"), "r", None);
/// assert_eq!(a, b);
/// assert!(a.starts_with("tcevt_") && a.len() == 26);
/// ```
pub fn event_id(
    event_type: &str,
    candidate_id: &str,
    at_utc: &str,
    status: Option<&str>,
    reason: &str,
    receipt: Option<&Value>,
) -> String {
    let v = Value::Array(vec![
        Value::String(event_type.to_owned()),
        Value::String(candidate_id.to_owned()),
        Value::String(at_utc.to_owned()),
        status.map_or(Value::Null, |s| Value::String(s.to_owned())),
        Value::String(reason.to_owned()),
        receipt.cloned().unwrap_or(Value::Null),
    ]);
    format!("tcevt_{}", hex20(canonical_json(&v).as_bytes()))
}

/// What a receipt records.
#[derive(Clone, Copy, Debug, Eq, Hash, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReceiptAction {
    /// Written to a sink.
    Promoted,
    /// Merged into existing memory.
    Merged,
    /// Rejected as noise.
    RejectedNoise,
    /// Rejected as temporary.
    RejectedTemporary,
    /// Rejected as sensitive.
    RejectedSensitive,
    /// Parked for the user.
    NeedsUserConfirmation,
    /// Expired.
    Expired,
    /// A dry run (records nothing durable).
    DryRun,
    /// Already satisfied by existing memory.
    AlreadySatisfied,
}

str_enum!(ReceiptAction { Promoted => "promoted", Merged => "merged", RejectedNoise => "rejected_noise",
    RejectedTemporary => "rejected_temporary", RejectedSensitive => "rejected_sensitive",
    NeedsUserConfirmation => "needs_user_confirmation", Expired => "expired", DryRun => "dry_run",
    AlreadySatisfied => "already_satisfied" });

/// Proof of what happened to a candidate.
///
/// ```
/// use palisade_closure::schema::{Receipt, ReceiptAction};
/// let r = Receipt::promotion("2026-05-18T00:00:00Z", "fake", "user", "mem-1");
/// assert_eq!(r.action, ReceiptAction::Promoted);
/// assert!(Receipt::rejection("2026-05-18T00:00:00Z", ReceiptAction::Promoted, "").is_err());
/// ```
#[derive(Clone, Debug, Eq, PartialEq, Serialize, Deserialize)]
pub struct Receipt {
    /// What happened.
    pub action: ReceiptAction,
    /// When (RFC 3339, from the caller).
    pub at: String,
    /// Who did it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub provider: String,
    /// Where it went.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub target: String,
    /// The id in the target store.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub id: String,
    /// Why.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// Extra fields passed through.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Receipt {
    /// A promotion receipt.
    ///
    /// ```
    /// use palisade_closure::schema::Receipt;
    /// assert_eq!(Receipt::promotion("t", "p", "user", "id").target, "user");
    /// ```
    pub fn promotion(at: &str, provider: &str, target: &str, id: &str) -> Receipt {
        Receipt {
            action: ReceiptAction::Promoted,
            at: at.to_owned(),
            provider: provider.to_owned(),
            target: target.to_owned(),
            id: id.to_owned(),
            reason: String::new(),
            extra: Map::new(),
        }
    }

    /// A merge receipt naming the memory merged into.
    ///
    /// ```
    /// use palisade_closure::schema::{Receipt, ReceiptAction};
    /// let r = Receipt::merge("t", "scope-recall", "user", "mem-9");
    /// assert_eq!(r.action, ReceiptAction::Merged);
    /// assert_eq!(r.extra["target_id"], "mem-9");
    /// ```
    pub fn merge(at: &str, provider: &str, target: &str, target_id: &str) -> Receipt {
        let mut extra = Map::new();
        extra.insert("target_id".into(), Value::String(target_id.to_owned()));
        Receipt {
            action: ReceiptAction::Merged,
            at: at.to_owned(),
            provider: provider.to_owned(),
            target: target.to_owned(),
            id: target_id.to_owned(),
            reason: String::new(),
            extra,
        }
    }

    /// A rejection, confirmation-request or expiry receipt; a reason is required.
    ///
    /// ```
    /// use palisade_closure::schema::{Receipt, ReceiptAction};
    /// assert!(Receipt::rejection("t", ReceiptAction::RejectedNoise, "noise").is_ok());
    /// assert!(Receipt::rejection("t", ReceiptAction::RejectedNoise, " ").is_err());
    /// ```
    pub fn rejection(
        at: &str,
        action: ReceiptAction,
        reason: &str,
    ) -> Result<Receipt, SchemaError> {
        if !matches!(
            action,
            ReceiptAction::RejectedNoise
                | ReceiptAction::RejectedTemporary
                | ReceiptAction::RejectedSensitive
                | ReceiptAction::NeedsUserConfirmation
                | ReceiptAction::Expired
        ) {
            return Err(SchemaError::new(format!(
                "receipt action {action} is not a rejection"
            )));
        }
        if reason.trim().is_empty() {
            return Err(SchemaError::new("a rejection receipt needs a reason"));
        }
        Ok(Receipt {
            action,
            at: at.to_owned(),
            provider: "palisade-closure".into(),
            target: String::new(),
            id: String::new(),
            reason: reason.to_owned(),
            extra: Map::new(),
        })
    }

    /// Parse and validate a receipt from JSON (`action` must be known).
    ///
    /// ```
    /// use palisade_closure::schema::Receipt;
    /// let r = Receipt::from_value(&serde_json::json!({"action":"promoted","at":"t","scope_mode":"x"})).unwrap();
    /// assert_eq!(r.extra["scope_mode"], "x");
    /// assert!(Receipt::from_value(&serde_json::json!({"action":"unknown"})).is_err());
    /// ```
    pub fn from_value(v: &Value) -> Result<Receipt, SchemaError> {
        serde_json::from_value(v.clone())
            .map_err(|e| SchemaError::new(format!("invalid receipt: {e}")))
    }

    /// The receipt as JSON.
    ///
    /// ```
    /// use palisade_closure::schema::Receipt;
    /// assert_eq!(Receipt::promotion("t", "p", "user", "m").to_value()["action"], "promoted");
    /// ```
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// A review candidate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CandidateRecord {
    /// Deterministic id ([`candidate_id`]).
    pub candidate_id: String,
    /// The turn record it came from.
    #[serde(default)]
    pub record_id: String,
    /// The session it came from.
    #[serde(default)]
    pub session_id: String,
    /// When it was created (RFC 3339).
    #[serde(default)]
    pub created_at: String,
    /// When it last changed (RFC 3339).
    #[serde(default)]
    pub updated_at: String,
    /// Lifecycle state.
    pub status: CandidateStatus,
    /// Classifier label (e.g. `user-preference`).
    pub classification: String,
    /// Where it should finally live.
    pub final_sink: FinalSink,
    /// Promotion risk.
    pub risk: Risk,
    /// Confidence in [0, 1].
    pub confidence: f64,
    /// The text to retain: the user's own words, redacted.
    pub candidate_content: String,
    /// Why it became a candidate.
    #[serde(default)]
    pub evidence_summary: String,
    /// Why it is in its current state.
    #[serde(default)]
    pub decision_reason: String,
    /// Provenance details (turn, previews, cue ids).
    #[serde(default)]
    pub source: Map<String, Value>,
    /// Proof of the terminal decision, when there is one.
    #[serde(default)]
    pub receipt: Option<Arc<Receipt>>,
}

impl CandidateRecord {
    /// Validate a record: non-blank content, confidence in [0, 1], and an id
    /// equal to the derived one (an empty id is filled in).
    ///
    /// ```
    /// use palisade_closure::schema::*;
    /// let mut r = CandidateRecord::new("Remember tea", FinalSink::User, "user-preference", Risk::Low, 0.9);
    /// assert!(r.validate().is_ok());
    /// r.candidate_content = "   ".into();
    /// assert!(r.validate().is_err());
    /// ```
    pub fn validate(&mut self) -> Result<(), SchemaError> {
        if self.candidate_content.trim().is_empty() {
            return Err(SchemaError::new("candidate content is empty"));
        }
        if !(0.0..=1.0).contains(&self.confidence) {
            return Err(SchemaError::new(format!(
                "confidence {} is outside [0, 1]",
                self.confidence
            )));
        }
        let derived = candidate_id(
            &self.candidate_content,
            self.final_sink,
            &self.classification,
        );
        if self.candidate_id.trim().is_empty() {
            self.candidate_id = derived;
        } else if self.candidate_id != derived && !self.candidate_id.starts_with("tcand_") {
            return Err(SchemaError::new(format!(
                "candidate id {:?} is not a tcand_ id",
                self.candidate_id
            )));
        }
        Ok(())
    }

    /// A pending record with its derived id and empty provenance.
    ///
    /// ```
    /// use palisade_closure::schema::*;
    /// let r = CandidateRecord::new("Remember tea preference", FinalSink::User, "user-preference-or-boundary", Risk::Low, 0.9);
    /// assert_eq!(r.candidate_id, "tcand_cd46d11c7430e250ceef");
    /// assert_eq!(r.status, CandidateStatus::Pending);
    /// ```
    pub fn new(
        content: &str,
        sink: FinalSink,
        classification: &str,
        risk: Risk,
        confidence: f64,
    ) -> CandidateRecord {
        CandidateRecord {
            candidate_id: candidate_id(content, sink, classification),
            record_id: String::new(),
            session_id: String::new(),
            created_at: String::new(),
            updated_at: String::new(),
            status: CandidateStatus::Pending,
            classification: classification.to_owned(),
            final_sink: sink,
            risk,
            confidence: confidence.clamp(0.0, 1.0),
            candidate_content: content.to_owned(),
            evidence_summary: String::new(),
            decision_reason: "awaiting promotion decision".into(),
            source: Map::new(),
            receipt: None,
        }
    }

    /// Parse a record, tolerating the seed's compatibility aliases
    /// (`content`, `recommended_sink`, `candidate_status`), and validate it.
    ///
    /// ```
    /// use palisade_closure::schema::CandidateRecord;
    /// let r = CandidateRecord::from_value(&serde_json::json!({
    ///     "content":"Remember tea preference","recommended_sink":"user",
    ///     "classification":"user-preference-or-boundary","risk":"low","confidence":0.9})).unwrap();
    /// assert_eq!(r.candidate_id, "tcand_cd46d11c7430e250ceef");
    /// assert!(CandidateRecord::from_value(&serde_json::json!({"content":"x","recommended_sink":"memory/day"})).is_err());
    /// ```
    pub fn from_value(v: &Value) -> Result<CandidateRecord, SchemaError> {
        let Value::Object(m) = v else {
            return Err(SchemaError::new("candidate must be a JSON object"));
        };
        let s = |keys: &[&str]| -> Option<String> {
            keys.iter()
                .find_map(|k| m.get(*k).and_then(Value::as_str).map(str::to_owned))
        };
        let sink_s = s(&["final_sink", "recommended_sink"]).unwrap_or_default();
        let final_sink = FinalSink::parse(&sink_s)
            .ok_or_else(|| SchemaError::new(format!("invalid final sink {sink_s:?}")))?;
        let status_s = s(&["candidate_status", "status"]).unwrap_or_else(|| "pending".into());
        let status = CandidateStatus::parse(&status_s)
            .ok_or_else(|| SchemaError::new(format!("invalid status {status_s:?}")))?;
        let risk_s = s(&["risk"]).unwrap_or_else(|| "medium".into());
        let risk = Risk::parse(&risk_s)
            .ok_or_else(|| SchemaError::new(format!("invalid risk {risk_s:?}")))?;
        let receipt = match m.get("receipt") {
            None | Some(Value::Null) => None,
            Some(r) => Some(Receipt::from_value(r)?),
        };
        let mut rec = CandidateRecord {
            candidate_id: s(&["candidate_id", "id"]).unwrap_or_default(),
            record_id: s(&["record_id"]).unwrap_or_default(),
            session_id: s(&["session_id"]).unwrap_or_default(),
            created_at: s(&["created_at", "judged_at", "at"]).unwrap_or_default(),
            updated_at: s(&["updated_at", "created_at", "judged_at", "at"]).unwrap_or_default(),
            status,
            classification: s(&["classification"]).unwrap_or_else(|| "routine".into()),
            final_sink,
            risk,
            confidence: m.get("confidence").and_then(Value::as_f64).unwrap_or(0.5),
            candidate_content: s(&["candidate_content", "content"]).unwrap_or_default(),
            evidence_summary: s(&["evidence_summary"]).unwrap_or_default(),
            decision_reason: s(&["decision_reason", "candidate_reason"]).unwrap_or_default(),
            source: m
                .get("source")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
            receipt: receipt.map(Arc::new),
        };
        rec.validate()?;
        Ok(rec)
    }

    /// The record as JSON, with the seed's compatibility aliases added
    /// (`candidate_status`, `recommended_sink`, `recommended_sinks`, `content`).
    ///
    /// ```
    /// use palisade_closure::schema::*;
    /// let v = CandidateRecord::new("x", FinalSink::User, "c", Risk::Low, 0.9).to_value();
    /// assert_eq!(v["recommended_sink"], "user");
    /// assert_eq!(v["candidate_status"], "pending");
    /// ```
    pub fn to_value(&self) -> Value {
        let mut v = serde_json::to_value(self).unwrap_or(Value::Null);
        if let Value::Object(m) = &mut v {
            m.insert(
                "candidate_status".into(),
                Value::String(self.status.as_str().into()),
            );
            m.insert(
                "recommended_sink".into(),
                Value::String(self.final_sink.as_str().into()),
            );
            m.insert(
                "recommended_sinks".into(),
                Value::Array(vec![Value::String(self.final_sink.as_str().into())]),
            );
            m.insert(
                "content".into(),
                Value::String(self.candidate_content.clone()),
            );
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip_and_sink_changes_id() {
        let r = CandidateRecord::new(
            "Remember stable tea preference",
            FinalSink::User,
            "user-preference",
            Risk::Low,
            0.9,
        );
        let back = CandidateRecord::from_value(&r.to_value()).unwrap();
        assert_eq!(back, r);
        let p = CandidateRecord::new(
            "Remember stable tea preference",
            FinalSink::Project,
            "user-preference",
            Risk::Low,
            0.9,
        );
        assert_ne!(p.candidate_id, r.candidate_id);
    }
}
