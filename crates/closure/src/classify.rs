//! Turn judgment: retained, review candidate, or routine.
//!
//! Decision order:
//!
//! 1. A successful retention write ([`crate::detect::detect_write`]) makes
//!    the turn `retained`, also when the turn was interrupted after it.
//!    Deletions are reported but never retain; a failed, cancelled or
//!    out-of-home write is no write, and the turn is judged on its content.
//!    The assistant saying "saved" is not a write.
//! 2. A turn that did not complete normally (`interrupted`, or not
//!    `completed`) is a candidate `interrupted-turn` when it left partial
//!    work: some tool call returned a result and the assistant's text
//!    reports a completed step (a [`CueClass::Progress`] cue). Without
//!    partial work the interruption is no reason: the turn is judged on its
//!    content like any other (so a cut-off poem or a cancelled search is
//!    `routine`).
//! 3. Otherwise the user's words are scanned for cues ([`crate::cues`]):
//!    explicit governance — memory hygiene, where runbooks and notes live —
//!    first (`governance-or-knowledge`), then boundaries (`user-boundary`),
//!    preferences (`user-preference`), then other knowledge/governance
//!    discussion (`governance-or-knowledge`).
//! 4. Substantive work (`task-outcome-or-diagnostic`): an outcome cue in the
//!    user's or the assistant's words backed by tool work, the user stating
//!    (not asking about) an outcome, or five or more state-changing tool calls
//!    (reads do not count). A weak outcome word in the assistant's reply
//!    alone ("Fixed both typos") needs three state-changing calls.
//! 5. Otherwise `routine`.
//!
//! **Attribution.** The candidate's content is always built from the user's
//! words; the assistant's reply only contributes the names of cues it
//! matched, recorded in the evidence summary. The agent's own claims never
//! become a candidate stated as the user's.

use crate::cues::{CueClass, CueHit, CueSet};
use crate::detect::{
    call_outcome, detect_write, Effect, Outcome, RetentionPolicy, ToolCall, WriteEvent,
};
use crate::redact::{collapse_whitespace, preview_text, redact_ranges, redact_text};
use crate::schema::{CandidateRecord, FinalSink, Risk};
use serde_json::{json, Map, Value};

/// Characters of user text kept in a candidate's content.
pub const CONTENT_CHARS: usize = 500;
/// Characters kept in previews.
pub const PREVIEW_CHARS: usize = 220;
/// Bytes of each text scanned for cues (cut on a character boundary).
pub const MAX_SCAN_CHARS: usize = 32 * 1024;
/// At most this many tool calls of one turn are examined.
pub const MAX_TOOL_CALLS: usize = 1000;

/// One agent turn as the host observed it.
///
/// ```
/// use palisade_closure::classify::Turn;
/// let t = Turn::new("Remember I prefer tea", "Noted.");
/// assert!(t.completed && !t.interrupted);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Turn {
    /// The user's message.
    pub user: String,
    /// The assistant's final reply.
    pub assistant: String,
    /// Tool calls made during the turn, with results.
    pub tool_calls: Vec<ToolCall>,
    /// Whether the turn ran to completion.
    pub completed: bool,
    /// Whether the turn was interrupted.
    pub interrupted: bool,
}

impl Turn {
    /// A completed turn without tool calls.
    ///
    /// ```
    /// use palisade_closure::classify::Turn;
    /// assert!(Turn::new("hi", "hello").tool_calls.is_empty());
    /// ```
    pub fn new(user: impl Into<String>, assistant: impl Into<String>) -> Turn {
        Turn {
            user: user.into(),
            assistant: assistant.into(),
            tool_calls: Vec::new(),
            completed: true,
            interrupted: false,
        }
    }
}

impl Turn {
    /// Parse a turn from the CLI's JSON shape, tolerantly: `user`,
    /// `assistant` (also `user_message` / `assistant_response`), `tool_calls`
    /// with `name` (or `tool`, `tool_name`, `function.name`), `args` (or
    /// `arguments`, `input`, `function.arguments`; an object or a string
    /// holding one), `result` (or `output`, `content`; any JSON) and `cwd`.
    /// Missing fields default to empty, `completed: true`, `interrupted: false`.
    ///
    /// ```
    /// use palisade_closure::classify::Turn;
    /// let t = Turn::from_json(&serde_json::json!({"user":"hi","tool_calls":[{"name":"memory","args":"{\"action\":\"add\"}","result":"ok"}]})).unwrap();
    /// assert_eq!(t.tool_calls.len(), 1);
    /// assert!(Turn::from_json(&serde_json::json!({"user": 5})).is_err());
    /// ```
    pub fn from_json(v: &Value) -> Result<Turn, String> {
        let Value::Object(m) = v else {
            return Err("turn must be a JSON object".into());
        };
        let text = |keys: &[&str]| -> Result<String, String> {
            for k in keys {
                match m.get(*k) {
                    None | Some(Value::Null) => continue,
                    Some(Value::String(s)) => return Ok(s.clone()),
                    Some(_) => return Err(format!("`{k}` must be a string")),
                }
            }
            Ok(String::new())
        };
        let flag = |k: &str, default: bool| -> Result<bool, String> {
            match m.get(k) {
                None | Some(Value::Null) => Ok(default),
                Some(Value::Bool(b)) => Ok(*b),
                Some(_) => Err(format!("`{k}` must be a boolean")),
            }
        };
        let mut tool_calls = Vec::new();
        match m.get("tool_calls") {
            None | Some(Value::Null) => {}
            Some(Value::Array(calls)) => {
                for (i, c) in calls.iter().enumerate() {
                    let Value::Object(c) = c else {
                        return Err(format!("tool_calls[{i}] must be an object"));
                    };
                    let func = c.get("function").and_then(Value::as_object);
                    let pick = |keys: &[&str]| -> Option<&Value> {
                        keys.iter()
                            .find_map(|k| c.get(*k).filter(|v| !v.is_null()))
                            .or_else(|| func.and_then(|f| keys.iter().find_map(|k| f.get(*k))))
                    };
                    let name = match pick(&["name", "tool", "tool_name"]) {
                        Some(Value::String(s)) => s.clone(),
                        _ => return Err(format!("tool_calls[{i}] needs a string `name`")),
                    };
                    let args = pick(&["args", "arguments", "input"])
                        .cloned()
                        .unwrap_or(Value::Null);
                    let result = pick(&["result", "output", "content"])
                        .cloned()
                        .unwrap_or(Value::Null);
                    let cwd = pick(&["cwd", "workdir", "working_directory"])
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    tool_calls.push(ToolCall {
                        name,
                        args,
                        result,
                        cwd,
                    });
                }
            }
            Some(_) => return Err("`tool_calls` must be an array".into()),
        }
        Ok(Turn {
            user: text(&["user", "user_message"])?,
            assistant: text(&["assistant", "assistant_response"])?,
            tool_calls,
            completed: flag("completed", true)?,
            interrupted: flag("interrupted", false)?,
        })
    }
}

/// The headline verdict.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum JudgmentKind {
    /// A retention write happened.
    Retained,
    /// Worth a human review.
    Candidate,
    /// Nothing to retain.
    Routine,
}

impl JudgmentKind {
    /// Wire name.
    ///
    /// ```
    /// use palisade_closure::classify::JudgmentKind;
    /// assert_eq!(JudgmentKind::Candidate.as_str(), "candidate");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            JudgmentKind::Retained => "retained",
            JudgmentKind::Candidate => "candidate",
            JudgmentKind::Routine => "routine",
        }
    }
}

/// The classifier's label for a turn.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Classification {
    /// A retention write was observed.
    AlreadyWritten,
    /// The turn ended abnormally.
    InterruptedTurn,
    /// The user set a limit (including "do not remember").
    UserBoundary,
    /// The user stated a preference.
    UserPreference,
    /// Knowledge or governance discussion.
    GovernanceOrKnowledge,
    /// Substantive diagnostic or outcome work.
    TaskOutcomeOrDiagnostic,
    /// Nothing special.
    Routine,
}

impl Classification {
    /// Wire name.
    ///
    /// ```
    /// use palisade_closure::classify::Classification;
    /// assert_eq!(Classification::UserBoundary.as_str(), "user-boundary");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Classification::AlreadyWritten => "already-written",
            Classification::InterruptedTurn => "interrupted-turn",
            Classification::UserBoundary => "user-boundary",
            Classification::UserPreference => "user-preference",
            Classification::GovernanceOrKnowledge => "governance-or-knowledge",
            Classification::TaskOutcomeOrDiagnostic => "task-outcome-or-diagnostic",
            Classification::Routine => "routine",
        }
    }

    /// The seed's status string for a judgment of this class.
    fn status(self, abnormal: bool) -> &'static str {
        match self {
            Classification::AlreadyWritten => "judged_written",
            _ if abnormal => "judged_interrupted",
            Classification::Routine => "judged_not_written",
            _ => "judged_not_written_candidate",
        }
    }
}

/// The draft of a review candidate (not yet in a ledger).
#[derive(Clone, Debug, PartialEq)]
pub struct CandidateDraft {
    /// Classifier label.
    pub classification: Classification,
    /// The user's words (redacted), prefixed with what they are.
    pub content: String,
    /// Recommended final sink.
    pub final_sink: FinalSink,
    /// Promotion risk.
    pub risk: Risk,
    /// Confidence in [0, 1].
    pub confidence: f64,
    /// Why, in one line: the cues and tool evidence.
    pub evidence_summary: String,
    /// Ids of the cue rules that fired.
    pub cues: Vec<String>,
}

impl CandidateDraft {
    /// A pending ledger record for this draft.
    ///
    /// ```
    /// use palisade_closure::classify::{Classifier, Turn};
    /// let j = Classifier::new().judge(&Turn::new("Remember that I prefer tea.", "OK"));
    /// let rec = j.candidate.unwrap().to_record("s1:1", "s1", "2026-05-18T00:00:00Z");
    /// assert!(rec.candidate_id.starts_with("tcand_"));
    /// ```
    pub fn to_record(&self, record_id: &str, session_id: &str, at: &str) -> CandidateRecord {
        let mut rec = CandidateRecord::new(
            &self.content,
            self.final_sink,
            self.classification.as_str(),
            self.risk,
            self.confidence,
        );
        rec.record_id = record_id.to_owned();
        rec.session_id = session_id.to_owned();
        rec.created_at = at.to_owned();
        rec.updated_at = at.to_owned();
        rec.evidence_summary = self.evidence_summary.clone();
        let mut source = Map::new();
        source.insert("plugin".into(), json!("palisade-closure"));
        source.insert("record_id".into(), json!(record_id));
        source.insert("cues".into(), json!(self.cues));
        rec.source = source;
        rec
    }
}

/// A turn's judgment.
#[derive(Clone, Debug, PartialEq)]
pub struct Judgment {
    /// Retained, candidate or routine.
    pub kind: JudgmentKind,
    /// Classifier label.
    pub classification: Classification,
    /// The seed's status (`judged_written`, `judged_interrupted`, …).
    pub status: &'static str,
    /// Human-readable reasons, most important first.
    pub reasons: Vec<String>,
    /// Retention writes observed.
    pub writes: Vec<WriteEvent>,
    /// Deletions observed.
    pub deletions: Vec<WriteEvent>,
    /// The review candidate, for candidate turns.
    pub candidate: Option<CandidateDraft>,
    /// Redacted preview of the user's message.
    pub user_preview: String,
    /// Redacted preview of the assistant's reply.
    pub assistant_preview: String,
}

impl Judgment {
    /// The judgment in the CLI's JSON shape.
    ///
    /// ```
    /// use palisade_closure::classify::{Classifier, Turn};
    /// let v = Classifier::new().judge(&Turn::new("hi", "hello")).to_json();
    /// assert_eq!(v["judgment"], "routine");
    /// ```
    pub fn to_json(&self) -> Value {
        let ev = |e: &WriteEvent| {
            json!({
                "kind": e.kind.as_str(), "tool": e.tool, "action": e.action,
                "target": e.target, "paths": e.paths, "deleted_paths": e.deleted_paths,
                "content_preview": e.content_preview,
            })
        };
        let mut out = json!({
            "judgment": self.kind.as_str(),
            "classification": self.classification.as_str(),
            "status": self.status,
            "reasons": self.reasons,
            "writes": self.writes.iter().map(ev).collect::<Vec<_>>(),
            "deletions": self.deletions.iter().map(ev).collect::<Vec<_>>(),
            "user_preview": self.user_preview,
        });
        if let Some(c) = &self.candidate {
            out["candidate"] = json!({
                "candidate_id": crate::schema::candidate_id(&c.content, c.final_sink, c.classification.as_str()),
                "classification": c.classification.as_str(),
                "content": c.content,
                "final_sink": c.final_sink.as_str(),
                "risk": c.risk.as_str(),
                "confidence": c.confidence,
                "status": "pending",
                "evidence_summary": c.evidence_summary,
                "cues": c.cues,
            });
        }
        out
    }
}

/// Judges turns with a compiled cue set and a retention policy.
///
/// ```
/// use palisade_closure::classify::{Classifier, JudgmentKind, Turn};
/// let c = Classifier::new();
/// assert_eq!(c.judge(&Turn::new("From now on, reply in Chinese.", "好的")).kind, JudgmentKind::Candidate);
/// assert_eq!(c.judge(&Turn::new("What's 2+2?", "4")).kind, JudgmentKind::Routine);
/// ```
#[derive(Clone, Debug)]
pub struct Classifier {
    cues: CueSet,
    policy: RetentionPolicy,
}

impl Default for Classifier {
    fn default() -> Self {
        Classifier::new()
    }
}

/// Tool-name words that mark a read-only call (not state-changing work).
const READ_WORDS: &[&str] = &[
    "read", "search", "list", "view", "get", "fetch", "snapshot", "find", "grep", "ls", "cat",
    "show", "lookup", "query", "recall", "status", "clarify", "vision", "extract",
];

fn is_read_only(name: &str) -> bool {
    name.to_ascii_lowercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| READ_WORDS.contains(&w))
}

impl Classifier {
    /// The built-in cues and a policy without a known home.
    ///
    /// ```
    /// use palisade_closure::classify::Classifier;
    /// let _ = Classifier::new();
    /// ```
    pub fn new() -> Classifier {
        Classifier {
            cues: CueSet::builtin(),
            policy: RetentionPolicy::default(),
        }
    }

    /// Use `policy` for retention paths.
    ///
    /// ```
    /// use palisade_closure::{classify::Classifier, detect::RetentionPolicy};
    /// let _ = Classifier::new().with_policy(RetentionPolicy::with_home("/home/u/.hermes"));
    /// ```
    pub fn with_policy(mut self, policy: RetentionPolicy) -> Classifier {
        self.policy = policy;
        self
    }

    /// Use a custom cue set.
    ///
    /// ```
    /// use palisade_closure::{classify::Classifier, cues::CueSet};
    /// let _ = Classifier::new().with_cues(CueSet::builtin());
    /// ```
    pub fn with_cues(mut self, cues: CueSet) -> Classifier {
        self.cues = cues;
        self
    }

    /// The cue set in use.
    ///
    /// ```
    /// use palisade_closure::classify::Classifier;
    /// assert!(!Classifier::new().cues().cues().is_empty());
    /// ```
    pub fn cues(&self) -> &CueSet {
        &self.cues
    }

    /// Judge one turn. Total: never panics, whatever the input.
    ///
    /// ```
    /// use palisade_closure::classify::{Classifier, Classification, Turn};
    /// let j = Classifier::new().judge(&Turn::new("I don't want you to remember my address.", "Understood."));
    /// assert_eq!(j.classification, Classification::UserBoundary);
    /// assert!(j.candidate.unwrap().content.contains("my address"));
    /// ```
    pub fn judge(&self, turn: &Turn) -> Judgment {
        let user = cut(&turn.user, MAX_SCAN_CHARS);
        let assistant = cut(&turn.assistant, MAX_SCAN_CHARS);
        let mut writes = Vec::new();
        let mut deletions = Vec::new();
        let mut substantive = 0usize;
        let mut failed = 0usize;
        let calls = &turn.tool_calls[..turn.tool_calls.len().min(MAX_TOOL_CALLS)];
        for call in calls {
            match call_outcome(&call.result) {
                Outcome::Failed(_) => failed += 1,
                _ if !is_read_only(&call.name) => substantive += 1,
                _ => {}
            }
            if let Some(ev) = detect_write(call, &self.policy) {
                match ev.effect {
                    Effect::Retain => writes.push(ev),
                    Effect::Delete => deletions.push(ev),
                }
            }
        }
        let mut reasons: Vec<String> = Vec::new();
        let abnormal = turn.interrupted || !turn.completed;
        // Redact the user's words once; previews and content reuse it.
        let user_red = redact_text(user);
        let user_has_secret = user_red != user;
        let user_preview = palisade_common::mask::preview_line(
            &collapse_whitespace(cut(&user_red, PREVIEW_CHARS * 8)),
            PREVIEW_CHARS,
        );
        let assistant_preview = preview_text(assistant, PREVIEW_CHARS);
        let write_summary = || {
            let mut kinds: Vec<&str> = writes
                .iter()
                .map(|w: &WriteEvent| w.kind.as_str())
                .collect();
            kinds.sort_unstable();
            kinds.dedup();
            format!(
                "observed {} retention write event(s): {}",
                writes.len(),
                kinds.join(", ")
            )
        };
        if !deletions.is_empty() {
            let targets: Vec<String> = deletions.iter().flat_map(WriteEvent::targets).collect();
            reasons.push(format!(
                "observed {} deletion event(s) ({}); a deletion does not retain",
                deletions.len(),
                targets.join(", ")
            ));
        }
        let finish = |kind,
                      classification: Classification,
                      mut reasons: Vec<String>,
                      candidate,
                      writes,
                      deletions| {
            if reasons.is_empty() {
                reasons.push("no special candidate conditions matched".into());
            }
            Judgment {
                kind,
                classification,
                status: classification.status(abnormal),
                reasons,
                writes,
                deletions,
                candidate,
                user_preview: user_preview.clone(),
                assistant_preview: assistant_preview.clone(),
            }
        };

        if !writes.is_empty() {
            reasons.insert(0, write_summary());
            if abnormal {
                reasons.push("the turn was interrupted after the write; the write stands".into());
            }
            return finish(
                JudgmentKind::Retained,
                Classification::AlreadyWritten,
                reasons,
                None,
                writes,
                deletions,
            );
        }

        if abnormal {
            let returned = calls
                .iter()
                .any(|c| call_outcome(&c.result) != Outcome::Unknown);
            let progress = returned
                && self
                    .cues
                    .scan(assistant)
                    .iter()
                    .any(|h| h.class == CueClass::Progress);
            if progress {
                let why = if turn.interrupted {
                    "turn was interrupted after partial work and should remain reviewable"
                } else {
                    "turn did not complete normally after partial work and should remain reviewable"
                };
                reasons.insert(0, why.into());
                reasons.push(
                    "partial work: a tool call returned and the reply reports completed steps"
                        .into(),
                );
                if substantive > 0 {
                    reasons.push(format!(
                        "partial work: {substantive} state-changing tool call(s)"
                    ));
                }
                let content = if user.trim().is_empty() {
                    format!(
                        "Interrupted turn needing follow-up: {} tool call(s), no user message",
                        calls.len()
                    )
                } else {
                    format!(
                        "Interrupted turn needing follow-up: {}",
                        content_from_redacted(&user_red)
                    )
                };
                let draft = CandidateDraft {
                    classification: Classification::InterruptedTurn,
                    content,
                    final_sink: FinalSink::AskUser,
                    risk: Risk::High,
                    confidence: 0.9,
                    evidence_summary: reasons.join(" | "),
                    cues: Vec::new(),
                };
                return finish(
                    JudgmentKind::Candidate,
                    Classification::InterruptedTurn,
                    reasons,
                    Some(draft),
                    writes,
                    deletions,
                );
            }
            reasons
                .push("turn ended abnormally without completed work; judged on its content".into());
        }

        let user_hits = self.cues.scan(user);
        let names = |hits: &[CueHit], class: CueClass| -> Vec<String> {
            let mut v: Vec<String> = hits
                .iter()
                .filter(|h| h.class == class)
                .map(|h| self.cues.cues()[h.rule].id.clone())
                .collect();
            v.dedup();
            v
        };
        let sensitive = user_hits.iter().any(|h| h.class == CueClass::Sensitive) || user_has_secret;

        // A rule about memory itself or about where knowledge lives is
        // governance even when phrased as a prohibition ("nothing with a
        // shelf life under a month goes into MEMORY.md").
        let explicit_governance = user_hits
            .iter()
            .any(|h| h.class == CueClass::Governance && self.cues.cues()[h.rule].explicit);
        let personal: &[(CueClass, Classification)] = if explicit_governance {
            &[]
        } else {
            &[
                (CueClass::Boundary, Classification::UserBoundary),
                (CueClass::Preference, Classification::UserPreference),
            ]
        };
        for &(class, label) in personal {
            let hits: Vec<&CueHit> = user_hits.iter().filter(|h| h.class == class).collect();
            if hits.is_empty() {
                continue;
            }
            let explicit = hits.iter().any(|h| self.cues.cues()[h.rule].explicit);
            let ids = names(&user_hits, class);
            let what = if class == CueClass::Boundary {
                "boundary"
            } else {
                "preference"
            };
            reasons.insert(
                0,
                format!("user message states a {what} ({})", ids.join(", ")),
            );
            if hits.iter().any(|h| h.negated) {
                reasons.push(
                    "a negated request counts as a boundary, not a preference to store".into(),
                );
            }
            if sensitive {
                reasons.push("user message mentions a secret; risk raised".into());
            }
            // Content: the sentences that carry the cues, in order, redacted.
            let mut spans: Vec<_> = hits.iter().map(|h| h.sentence).collect();
            spans.sort_unstable_by_key(|s| s.start);
            spans.dedup();
            // "Please remember that." keeps its referent in the sentence
            // before; without it the candidate would say nothing.
            if spans.iter().any(|s| is_anaphoric(&user[s.range()])) {
                let all = palisade_common::text::sentences(user);
                let before: Vec<_> = spans
                    .iter()
                    .filter(|s| is_anaphoric(&user[s.range()]))
                    .filter_map(|s| {
                        all.iter()
                            .take(crate::cues::MAX_SENTENCES)
                            .rfind(|p| p.end <= s.start && !user[p.range()].trim().is_empty())
                            .copied()
                    })
                    .collect();
                spans.extend(before);
            }
            spans.sort_unstable_by_key(|s| s.start);
            spans.dedup();
            // Masked over the whole message, so a secret that spans a
            // sentence end or a line break is masked in every piece.
            let ranges: Vec<_> = spans.iter().map(|s| s.range()).collect();
            let words = redact_ranges(user, &ranges);
            let prefix = if class == CueClass::Boundary {
                "User boundary"
            } else {
                "User preference"
            };
            let risk = if sensitive {
                Risk::High
            } else if explicit && class == CueClass::Preference {
                Risk::Low
            } else {
                Risk::Medium
            };
            let draft = CandidateDraft {
                classification: label,
                content: format!("{prefix}: {}", content_from(&words)),
                final_sink: FinalSink::User,
                risk,
                confidence: if explicit { 0.86 } else { 0.78 },
                evidence_summary: reasons.join(" | "),
                cues: ids,
            };
            return finish(
                JudgmentKind::Candidate,
                label,
                reasons,
                Some(draft),
                writes,
                deletions,
            );
        }

        let user_outcome = names(&user_hits, CueClass::Outcome);
        let assistant_hits = if user_outcome.is_empty() || calls.is_empty() {
            self.cues.scan(assistant)
        } else {
            Vec::new()
        };
        let assistant_outcome = names(&assistant_hits, CueClass::Outcome);
        let assistant_strong = assistant_hits
            .iter()
            .any(|h| h.class == CueClass::Outcome && !self.cues.cues()[h.rule].weak);
        // The user reporting an outcome ("the root cause was…") is knowledge in
        // the user's own words even without tool work; asking about one is not.
        let user_reports = user_hits
            .iter()
            .any(|h| h.class == CueClass::Outcome && !is_question(&user[h.sentence.range()]));
        let backed_user = !user_outcome.is_empty() && (!calls.is_empty() || user_reports);
        let gov = names(&user_hits, CueClass::Governance);
        // Diagnostic work the user asked for and the tools did outranks a
        // passing mention of the knowledge base ("find out why, then note
        // it in the knowledge base"); an explicit rule about memory does not.
        if !gov.is_empty() && (explicit_governance || user_outcome.is_empty() || calls.is_empty()) {
            reasons.insert(
                0,
                format!(
                    "user discusses knowledge or governance mechanics ({})",
                    gov.join(", ")
                ),
            );
            let workflow = !names(&user_hits, CueClass::Workflow).is_empty();
            let draft = CandidateDraft {
                classification: Classification::GovernanceOrKnowledge,
                content: format!(
                    "Knowledge/governance request: {}",
                    content_from_redacted(&user_red)
                ),
                final_sink: if workflow {
                    FinalSink::Skill
                } else {
                    FinalSink::Knowledge
                },
                risk: if sensitive { Risk::High } else { Risk::Medium },
                confidence: 0.74,
                evidence_summary: reasons.join(" | "),
                cues: gov,
            };
            return finish(
                JudgmentKind::Candidate,
                Classification::GovernanceOrKnowledge,
                reasons,
                Some(draft),
                writes,
                deletions,
            );
        }

        let backed_assistant = if assistant_strong {
            substantive >= 1 || calls.len() >= 3
        } else {
            !assistant_outcome.is_empty() && substantive >= 3
        };
        if (backed_user || backed_assistant || substantive >= 5) && !user.trim().is_empty() {
            if user_reports && calls.is_empty() {
                reasons.push(format!(
                    "user reports an outcome or diagnosis ({})",
                    user_outcome.join(", ")
                ));
            } else if backed_user {
                reasons.push(format!(
                    "user asks for diagnostic/outcome work ({})",
                    user_outcome.join(", ")
                ));
            }
            if backed_assistant {
                reasons.push(format!(
                    "assistant reply reports an outcome ({}); only the user's words become content",
                    assistant_outcome.join(", ")
                ));
            }
            reasons.push(format!(
                "{} tool call(s), {} state-changing, {} failed",
                calls.len(),
                substantive,
                failed
            ));
            let workflow = !names(&user_hits, CueClass::Workflow).is_empty()
                || !names(&assistant_hits, CueClass::Workflow).is_empty();
            let mut cues = user_outcome.clone();
            cues.extend(assistant_outcome);
            let draft = CandidateDraft {
                classification: Classification::TaskOutcomeOrDiagnostic,
                content: format!(
                    "Outcome of requested work: {}",
                    content_from_redacted(&user_red)
                ),
                final_sink: if workflow {
                    FinalSink::Skill
                } else {
                    FinalSink::Knowledge
                },
                risk: if sensitive { Risk::High } else { Risk::Medium },
                confidence: if workflow { 0.76 } else { 0.72 },
                evidence_summary: reasons.join(" | "),
                cues,
            };
            return finish(
                JudgmentKind::Candidate,
                Classification::TaskOutcomeOrDiagnostic,
                reasons,
                Some(draft),
                writes,
                deletions,
            );
        }
        if !deletions.is_empty() {
            reasons.push("no retention write events observed during this turn".into());
        }
        finish(
            JudgmentKind::Routine,
            Classification::Routine,
            reasons,
            None,
            writes,
            deletions,
        )
    }
}

/// A turn record id: `<session>:<judged_at in UTC, full precision>:<turn index>`.
///
/// The seed's id had one-second resolution, so two turns judged in the same
/// second collided; the caller's per-session turn counter makes every id
/// distinct. An empty session id becomes `unknown-session`.
///
/// ```
/// use palisade_closure::classify::turn_record_id;
/// use palisade_closure::time::Timestamp;
/// let t = Timestamp::parse("2026-05-18T16:44:37.250+08:00").unwrap();
/// assert_eq!(turn_record_id("s1", &t, 3), "s1:2026-05-18T08:44:37.25Z:3");
/// assert_ne!(turn_record_id("s1", &t, 3), turn_record_id("s1", &t, 4));
/// ```
pub fn turn_record_id(
    session_id: &str,
    judged_at: &crate::time::Timestamp,
    turn_index: u64,
) -> String {
    let session = if session_id.trim().is_empty() {
        "unknown-session"
    } else {
        session_id
    };
    format!("{session}:{}:{turn_index}", judged_at.to_utc_string())
}

/// Whether a cue sentence only points back at something said before it:
/// a short request whose object is a bare demonstrative ("Please remember
/// that.", "Keep this in mind.", "记住这个。").
fn is_anaphoric(sentence: &str) -> bool {
    let t = sentence
        .trim()
        .trim_end_matches(|c: char| c.is_ascii_punctuation() || "。！？…～".contains(c))
        .trim();
    // A short request only; this also bounds the work per sentence.
    if t.len() > 96 || t.contains([':', '：']) {
        return false;
    }
    if t.chars().any(palisade_common::tokens::is_cjk) {
        return t.chars().count() <= 10
            && [
                "这个",
                "这点",
                "这一点",
                "这些",
                "这件事",
                "那个",
                "那些",
                "那件事",
                "这条",
            ]
            .iter()
            .any(|d| t.contains(d));
    }
    let words: Vec<String> = t
        .split_whitespace()
        .take(9)
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                .to_lowercase()
        })
        .collect();
    if words.len() > 8 {
        return false;
    }
    const TAIL: [&str; 15] = [
        "in",
        "mind",
        "for",
        "later",
        "me",
        "future",
        "reference",
        "down",
        "please",
        "too",
        "ok",
        "okay",
        "thanks",
        "now",
        "well",
    ];
    words
        .iter()
        .rposition(|w| matches!(w.as_str(), "that" | "this" | "it" | "these" | "those"))
        .is_some_and(|i| words[i + 1..].iter().all(|w| TAIL.contains(&w.as_str())))
}

/// Whether a sentence asks rather than states.
fn is_question(sentence: &str) -> bool {
    let t = sentence.trim_end();
    t.ends_with(['?', '？', '吗', '呢'])
        || t.strip_suffix(['。', '.', '!', '！'])
            .is_some_and(|t| t.ends_with(['吗', '呢']))
}

fn cut(s: &str, max_bytes: usize) -> &str {
    if s.len() <= max_bytes {
        return s;
    }
    let mut end = max_bytes;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Redacted, whitespace-collapsed user words, cut to [`CONTENT_CHARS`].
fn content_from(words: &str) -> String {
    content_from_redacted(&redact_text(cut(words, CONTENT_CHARS * 8)))
}

/// Whitespace-collapsed, already redacted words, cut to [`CONTENT_CHARS`].
fn content_from_redacted(red: &str) -> String {
    let flat = collapse_whitespace(cut(red, CONTENT_CHARS * 8));
    palisade_common::mask::preview_line(&flat, CONTENT_CHARS)
}
