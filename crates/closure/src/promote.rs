//! Promotion: dry-run buckets, and writes only through the caller's writer.
//!
//! [`Promoter::decide`] puts a candidate into one of seven buckets, first
//! match wins:
//!
//! 1. `already_satisfied`: an existing memory says the same thing (case,
//!    whitespace, punctuation and the `User preference:`-style label ignored,
//!    or the same set of content words);
//! 2. `would_reject` (sensitive): a credential cue, or high risk outside `ask_user`;
//! 3. `would_reject` (temporary): runtime or temporary state ("right now", "port 443");
//! 4. `conflicts`: a conflict cue ("instead of", "no longer", 不再) or a
//!    conflict the caller reports for this candidate;
//! 5. `needs_confirmation`: sink `ask_user`, or already waiting for the user;
//! 6. `suggest_skill`: sink `skill` or a workflow cue;
//! 7. `suggest_knowledge`: sink `knowledge`;
//! 8. `would_reject` (noise): sink `discard`;
//! 9. `would_promote`: sink user/memory/project/ops with low risk;
//! 10. otherwise `needs_confirmation`.
//!
//! Cues match whole words (so "important", "support" and "healthy" are not
//! temporary, "philosophy" is not an SOP and "tokens" is not a token).
//!
//! [`Promoter::promote`] never writes by itself: a `would_promote` candidate
//! is written only by a [`PromotionWriter`] the caller passes, and the result
//! is an event for the caller to append to the ledger.

use crate::cues::{CueClass, CueSet};
use crate::ledger::{CandidateEvent, EventKind};
use crate::schema::{
    fold, CandidateRecord, CandidateStatus, FinalSink, Receipt, ReceiptAction, Risk,
};
use crate::time::Timestamp;
use palisade_common::tokens::content_tokens;
use std::collections::{BTreeSet, HashMap};

/// A dry-run bucket.
#[derive(Clone, Copy, Debug, Eq, Hash, PartialEq, Ord, PartialOrd)]
pub enum Bucket {
    /// Low-risk, would be written.
    WouldPromote,
    /// Needs the user.
    NeedsConfirmation,
    /// Procedural: suggest a skill.
    SuggestSkill,
    /// Suggest the knowledge base.
    SuggestKnowledge,
    /// Sensitive, temporary or noise.
    WouldReject,
    /// Contradicts something.
    Conflicts,
    /// Already in memory (or already final).
    AlreadySatisfied,
}

impl Bucket {
    /// All buckets in report order.
    pub const ALL: [Bucket; 7] = [
        Bucket::WouldPromote,
        Bucket::NeedsConfirmation,
        Bucket::SuggestSkill,
        Bucket::SuggestKnowledge,
        Bucket::WouldReject,
        Bucket::Conflicts,
        Bucket::AlreadySatisfied,
    ];

    /// Wire name.
    ///
    /// ```
    /// use palisade_closure::promote::Bucket;
    /// assert_eq!(Bucket::WouldPromote.as_str(), "would_promote");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Bucket::WouldPromote => "would_promote",
            Bucket::NeedsConfirmation => "needs_confirmation",
            Bucket::SuggestSkill => "suggest_skill",
            Bucket::SuggestKnowledge => "suggest_knowledge",
            Bucket::WouldReject => "would_reject",
            Bucket::Conflicts => "conflicts",
            Bucket::AlreadySatisfied => "already_satisfied",
        }
    }
}

/// Why a candidate would be rejected.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum RejectKind {
    /// Looks like a secret or is too risky.
    Sensitive,
    /// Runtime or temporary state.
    Temporary,
    /// Not worth keeping.
    Noise,
}

/// A bucket with its reason.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct Decision {
    /// The bucket.
    pub bucket: Bucket,
    /// Why.
    pub reason: String,
    /// For rejections, which kind.
    pub reject: Option<RejectKind>,
    /// For `already_satisfied`, the id of the equivalent memory.
    pub matched_memory: Option<String>,
}

/// A memory that already exists in the durable store.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct ExistingMemory {
    /// Its id in the store.
    pub id: String,
    /// Its text.
    pub content: String,
}

/// Writes a promoted candidate to its durable store and returns a receipt.
/// The crate never writes anything itself.
pub trait PromotionWriter {
    /// Write `candidate`; the receipt must have action `promoted`.
    fn write(&mut self, candidate: &CandidateRecord) -> Result<Receipt, String>;
}

/// The outcome of [`Promoter::promote`].
#[derive(Clone, Debug, PartialEq)]
pub enum PromotionOutcome {
    /// Nothing written; this is what would happen.
    DryRun(Decision),
    /// Append this event to the ledger.
    Event(Box<CandidateEvent>),
    /// A `would_promote` candidate needs a writer.
    WriterRequired,
    /// The writer failed or returned a wrong receipt; nothing to append.
    WriterFailed(String),
    /// The candidate is already final.
    Terminal(CandidateStatus),
    /// The candidate is already waiting for the user; only the user can move it.
    AwaitingUser,
}

/// Whether [`Promoter::promote`] may act.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Mode {
    /// Decide only.
    DryRun,
    /// Produce the event (and write through the writer when promoting).
    Apply,
}

/// A dry-run report: candidate ids per bucket.
#[derive(Clone, Debug, Default, Eq, PartialEq)]
pub struct DryRunReport {
    /// (bucket, candidate id, reason), in input order within each bucket.
    pub entries: Vec<(Bucket, String, String)>,
}

impl DryRunReport {
    /// How many candidates fell into `bucket`.
    ///
    /// ```
    /// use palisade_closure::promote::{Bucket, DryRunReport};
    /// assert_eq!(DryRunReport::default().count(Bucket::WouldPromote), 0);
    /// ```
    pub fn count(&self, bucket: Bucket) -> usize {
        self.entries.iter().filter(|(b, _, _)| *b == bucket).count()
    }
}

/// Decides buckets and builds promotion events.
///
/// ```
/// use palisade_closure::promote::{Bucket, Promoter};
/// use palisade_closure::schema::*;
/// let p = Promoter::new();
/// let c = CandidateRecord::new("Remember that Joy prefers concise summaries", FinalSink::User, "user-preference", Risk::Low, 0.9);
/// assert_eq!(p.decide(&c, &[], &[]).bucket, Bucket::WouldPromote);
/// let t = CandidateRecord::new("Current port 443 is open right now", FinalSink::Ops, "task-outcome-or-diagnostic", Risk::Medium, 0.7);
/// assert_eq!(p.decide(&t, &[], &[]).bucket, Bucket::WouldReject);
/// ```
#[derive(Clone, Debug)]
pub struct Promoter {
    cues: CueSet,
}

impl Default for Promoter {
    fn default() -> Self {
        Promoter::new()
    }
}

/// Labels the classifier puts before the user's words.
const LABELS: &[&str] = &[
    "user preference:",
    "user boundary:",
    "user preference/boundary:",
    "knowledge/governance request:",
    "outcome of requested work:",
    "interrupted turn needing follow-up:",
    "remember:",
    "knowledge:",
];

fn equivalence_key(s: &str) -> String {
    let mut f = fold(s.trim());
    for l in LABELS {
        if let Some(rest) = f.strip_prefix(l) {
            f = rest.to_owned();
            break;
        }
    }
    f.chars()
        .filter(|c| c.is_alphanumeric() || c.is_whitespace())
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

impl Promoter {
    /// A promoter with the built-in cues.
    ///
    /// ```
    /// let _ = palisade_closure::promote::Promoter::new();
    /// ```
    pub fn new() -> Promoter {
        Promoter {
            cues: CueSet::builtin(),
        }
    }

    /// Decide a candidate's bucket. `conflicts` are conflicts the caller found
    /// for this candidate (empty when none).
    ///
    /// ```
    /// use palisade_closure::promote::{Bucket, ExistingMemory, Promoter};
    /// use palisade_closure::schema::*;
    /// let c = CandidateRecord::new("Remember existing preference", FinalSink::User, "user-preference", Risk::Low, 0.9);
    /// let m = [ExistingMemory { id: "m1".into(), content: "remember  EXISTING preference.".into() }];
    /// assert_eq!(Promoter::new().decide(&c, &m, &[]).bucket, Bucket::AlreadySatisfied);
    /// ```
    pub fn decide(
        &self,
        c: &CandidateRecord,
        existing: &[ExistingMemory],
        conflicts: &[String],
    ) -> Decision {
        let d = |bucket, reason: &str, reject| Decision {
            bucket,
            reason: reason.to_owned(),
            reject,
            matched_memory: None,
        };
        if c.status.is_terminal() {
            return d(Bucket::AlreadySatisfied, "candidate already terminal", None);
        }
        let key = equivalence_key(&c.candidate_content);
        let tokens: BTreeSet<String> = content_tokens(&key).into_iter().collect();
        for m in existing {
            let mk = equivalence_key(&m.content);
            let same_tokens = !tokens.is_empty()
                && content_tokens(&mk).into_iter().collect::<BTreeSet<_>>() == tokens;
            if (!key.is_empty() && mk == key) || same_tokens {
                let mut out = d(
                    Bucket::AlreadySatisfied,
                    "equivalent durable memory already exists",
                    None,
                );
                out.matched_memory = Some(m.id.clone());
                return out;
            }
        }
        let text = format!("{}\n{}", c.candidate_content, c.evidence_summary);
        let classes: BTreeSet<CueClass> = self
            .cues
            .scan(&c.candidate_content)
            .into_iter()
            .map(|h| h.class)
            .collect();
        let evidence_classes: BTreeSet<CueClass> =
            self.cues.scan(&text).into_iter().map(|h| h.class).collect();
        if classes.contains(&CueClass::Sensitive)
            || c.candidate_content.contains("****")
            || (c.risk == Risk::High && c.final_sink != FinalSink::AskUser)
        {
            return d(
                Bucket::WouldReject,
                "candidate looks sensitive or too risky for automatic promotion",
                Some(RejectKind::Sensitive),
            );
        }
        if classes.contains(&CueClass::Temporary) {
            return d(
                Bucket::WouldReject,
                "runtime or temporary state should be checked live",
                Some(RejectKind::Temporary),
            );
        }
        if !conflicts.is_empty() || classes.contains(&CueClass::Conflict) {
            let reason = if conflicts.is_empty() {
                "candidate changes or contradicts an earlier statement".to_owned()
            } else {
                format!("conflicts: {}", conflicts.join("; "))
            };
            return d(Bucket::Conflicts, &reason, None);
        }
        if c.final_sink == FinalSink::AskUser || c.status == CandidateStatus::NeedsUserConfirmation
        {
            return d(
                Bucket::NeedsConfirmation,
                "candidate needs the user's confirmation",
                None,
            );
        }
        if c.final_sink == FinalSink::Skill || evidence_classes.contains(&CueClass::Workflow) {
            return d(
                Bucket::SuggestSkill,
                "procedural knowledge: suggest a skill",
                None,
            );
        }
        if c.final_sink == FinalSink::Knowledge {
            return d(Bucket::SuggestKnowledge, "suggest the knowledge base", None);
        }
        if c.final_sink == FinalSink::Discard {
            return d(
                Bucket::WouldReject,
                "candidate final sink is discard",
                Some(RejectKind::Noise),
            );
        }
        if c.risk == Risk::Low {
            return d(
                Bucket::WouldPromote,
                "low-risk candidate for a durable sink",
                None,
            );
        }
        d(
            Bucket::NeedsConfirmation,
            "promotion is not low-risk enough for default write",
            None,
        )
    }

    /// Bucket many candidates; writes nothing. `conflicts` maps candidate ids
    /// to conflicts the caller found for them.
    ///
    /// ```
    /// use palisade_closure::promote::{Bucket, Promoter};
    /// use palisade_closure::schema::*;
    /// use std::collections::HashMap;
    /// let c = CandidateRecord::new("Knowledge: release gate requires pytest", FinalSink::Knowledge, "governance-or-knowledge", Risk::Medium, 0.8);
    /// let r = Promoter::new().dry_run(&[c], &[], &HashMap::new());
    /// assert_eq!(r.count(Bucket::SuggestKnowledge), 1);
    /// ```
    pub fn dry_run(
        &self,
        candidates: &[CandidateRecord],
        existing: &[ExistingMemory],
        conflicts: &HashMap<String, Vec<String>>,
    ) -> DryRunReport {
        let mut r = DryRunReport::default();
        for c in candidates {
            let cf = conflicts
                .get(&c.candidate_id)
                .map_or(&[][..], Vec::as_slice);
            let dec = self.decide(c, existing, cf);
            r.entries
                .push((dec.bucket, c.candidate_id.clone(), dec.reason));
        }
        r
    }

    /// Decide and, in [`Mode::Apply`], produce the ledger event: a merge for
    /// `already_satisfied`, a rejection for `would_reject`, a
    /// `needs_user_confirmation` for conflicts and suggestions, and for
    /// `would_promote` a promotion whose receipt comes from `writer`.
    ///
    /// ```
    /// use palisade_closure::promote::{Mode, PromotionOutcome, PromotionWriter, Promoter};
    /// use palisade_closure::schema::*;
    /// use palisade_closure::time::Timestamp;
    /// struct Mem(Vec<String>);
    /// impl PromotionWriter for Mem {
    ///     fn write(&mut self, c: &CandidateRecord) -> Result<Receipt, String> {
    ///         self.0.push(c.candidate_id.clone());
    ///         Ok(Receipt::promotion("2026-05-18T00:00:00Z", "fake-memory-writer", c.final_sink.as_str(), &c.candidate_id))
    ///     }
    /// }
    /// let p = Promoter::new();
    /// let c = CandidateRecord::new("Remember that Joy prefers concise summaries", FinalSink::User, "user-preference", Risk::Low, 0.9);
    /// let at = Timestamp::from_unix(0);
    /// assert_eq!(p.promote(&c, &[], &[], at, Mode::Apply, None), PromotionOutcome::WriterRequired);
    /// let mut w = Mem(vec![]);
    /// assert!(matches!(p.promote(&c, &[], &[], at, Mode::Apply, Some(&mut w)), PromotionOutcome::Event(_)));
    /// assert_eq!(w.0.len(), 1);
    /// ```
    pub fn promote(
        &self,
        c: &CandidateRecord,
        existing: &[ExistingMemory],
        conflicts: &[String],
        at: Timestamp,
        mode: Mode,
        writer: Option<&mut dyn PromotionWriter>,
    ) -> PromotionOutcome {
        if c.status.is_terminal() {
            return PromotionOutcome::Terminal(c.status);
        }
        let dec = self.decide(c, existing, conflicts);
        if mode == Mode::DryRun {
            return PromotionOutcome::DryRun(dec);
        }
        let at_s = at.to_utc_string();
        let id = &c.candidate_id;
        let ev = |to, reason: &str, receipt| {
            PromotionOutcome::Event(Box::new(CandidateEvent::new(
                id,
                at,
                EventKind::Transitioned {
                    to,
                    confirmed_by_user: false,
                },
                reason,
                receipt,
            )))
        };
        match dec.bucket {
            Bucket::AlreadySatisfied => {
                let target = dec.matched_memory.clone().unwrap_or_else(|| id.clone());
                let receipt =
                    Receipt::merge(&at_s, "palisade-closure", c.final_sink.as_str(), &target);
                ev(CandidateStatus::Merged, &dec.reason, Some(receipt))
            }
            Bucket::WouldReject => {
                let (status, action) = match dec.reject {
                    Some(RejectKind::Sensitive) => (
                        CandidateStatus::RejectedSensitive,
                        ReceiptAction::RejectedSensitive,
                    ),
                    Some(RejectKind::Temporary) => (
                        CandidateStatus::RejectedTemporary,
                        ReceiptAction::RejectedTemporary,
                    ),
                    _ => (CandidateStatus::RejectedNoise, ReceiptAction::RejectedNoise),
                };
                match Receipt::rejection(&at_s, action, &dec.reason) {
                    Ok(r) => ev(status, &dec.reason, Some(r)),
                    Err(e) => PromotionOutcome::WriterFailed(e.to_string()),
                }
            }
            Bucket::Conflicts
            | Bucket::NeedsConfirmation
            | Bucket::SuggestSkill
            | Bucket::SuggestKnowledge => {
                if c.status == CandidateStatus::NeedsUserConfirmation {
                    return PromotionOutcome::AwaitingUser;
                }
                ev(CandidateStatus::NeedsUserConfirmation, &dec.reason, None)
            }
            Bucket::WouldPromote => self.write_through(c, at, writer, false),
        }
    }

    /// The user confirmed a candidate that was waiting for them: write it
    /// through `writer` and produce a promotion marked `confirmed_by_user`.
    ///
    /// ```
    /// use palisade_closure::promote::{PromotionOutcome, Promoter};
    /// use palisade_closure::schema::*;
    /// use palisade_closure::time::Timestamp;
    /// let c = CandidateRecord::new("x", FinalSink::Knowledge, "governance-or-knowledge", Risk::Medium, 0.7);
    /// assert_eq!(Promoter::new().confirm_by_user(&c, Timestamp::from_unix(0), None), PromotionOutcome::WriterRequired);
    /// ```
    pub fn confirm_by_user(
        &self,
        c: &CandidateRecord,
        at: Timestamp,
        writer: Option<&mut dyn PromotionWriter>,
    ) -> PromotionOutcome {
        if c.status.is_terminal() {
            return PromotionOutcome::Terminal(c.status);
        }
        self.write_through(c, at, writer, true)
    }

    fn write_through(
        &self,
        c: &CandidateRecord,
        at: Timestamp,
        writer: Option<&mut dyn PromotionWriter>,
        confirmed_by_user: bool,
    ) -> PromotionOutcome {
        let Some(writer) = writer else {
            return PromotionOutcome::WriterRequired;
        };
        match writer.write(c) {
            Ok(r) if r.action == ReceiptAction::Promoted => {
                let mut r = r;
                if r.target.is_empty() {
                    r.target = c.final_sink.as_str().to_owned();
                }
                let reason = if confirmed_by_user {
                    "promoted after the user's confirmation"
                } else {
                    "promoted through the caller's writer"
                };
                PromotionOutcome::Event(Box::new(CandidateEvent::new(
                    &c.candidate_id,
                    at,
                    EventKind::Transitioned {
                        to: CandidateStatus::Promoted,
                        confirmed_by_user,
                    },
                    reason,
                    Some(r),
                )))
            }
            Ok(r) => PromotionOutcome::WriterFailed(format!(
                "writer returned a {} receipt, not promoted",
                r.action
            )),
            Err(e) => PromotionOutcome::WriterFailed(e),
        }
    }
}
