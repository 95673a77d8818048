//! The append-only candidate event ledger, folded incrementally.
//!
//! The ledger is the candidate truth: a set of events, and a materialized view
//! that is a pure function of that set. Events for one candidate are kept
//! sorted by `(instant, kind rank, event id)` — parsed, timezone-aware
//! instants, never strings — and folded as: the first `created` event, then
//! every other event in that order. So the view does not depend on the order
//! events arrive in, a transition stamped a little before its creation (clock
//! skew) is not lost, and ties are broken the same way every time.
//!
//! Appending an event that sorts last for its candidate costs one fold step;
//! an out-of-order event re-folds only its own candidate (at most
//! [`MAX_EVENTS_PER_CANDIDATE`] events). Folding N events is therefore O(N)
//! amortised for in-order streams; [`Ledger::apply_all`] stores a batch and
//! then folds each candidate it touched once, so replaying N events costs
//! O(N) steps in any order.
//!
//! Per event the ledger hashes the candidate id once (keyed SipHash; the
//! index table stores the hash, so it grows without re-hashing strings),
//! moves the event into a chunked store that never copies stored events,
//! and formats the `updated_at` text once per applied event, not once per
//! re-folded one.
//!
//! # State machine
//!
//! | from | event | to | requires |
//! |---|---|---|---|
//! | — | `candidate.created` | `pending` | payload status `pending` |
//! | `pending` | `candidate.classified` | `pending` | no status change |
//! | `pending` / `needs_user_confirmation` | `candidate.receipt` | same | a valid receipt |
//! | `pending` | `candidate.promoted` | `promoted` | a `promoted` receipt |
//! | `pending` / `needs_user_confirmation` | `candidate.merged` | `merged` | a `merged` receipt |
//! | `pending` / `needs_user_confirmation` | `candidate.rejected` | `rejected_*` | a rejection status and a reason |
//! | `pending` | `candidate.needs_user_confirmation` | `needs_user_confirmation` | — |
//! | `needs_user_confirmation` | `candidate.promoted` | `promoted` | `confirmed_by_user` and a receipt |
//! | `pending` / `needs_user_confirmation` | `candidate.expired` | `expired` | — |
//!
//! Anything else is rejected with a reason, and the view is unchanged.

use crate::schema::{
    event_id, CandidateRecord, CandidateStatus, FinalSink, Receipt, ReceiptAction, Risk,
    SchemaError,
};
use crate::time::Timestamp;
use serde_json::{json, Map, Value};
use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};
use std::sync::Arc;

/// Events beyond this many for one candidate are rejected.
pub const MAX_EVENTS_PER_CANDIDATE: usize = 256;

/// Room reserved for a new candidate's events (most get a few).
const EVENTS_PER_CANDIDATE_HINT: usize = 4;

/// What an event does.
#[derive(Clone, Debug, PartialEq)]
pub enum EventKind {
    /// A new candidate.
    Created(Box<CandidateRecord>),
    /// Re-classification of a pending candidate; `None` fields stay.
    Classified {
        /// New classification label.
        classification: Option<String>,
        /// New sink.
        final_sink: Option<FinalSink>,
        /// New risk.
        risk: Option<Risk>,
        /// New confidence.
        confidence: Option<f64>,
    },
    /// A status transition.
    Transitioned {
        /// Target status.
        to: CandidateStatus,
        /// The user confirmed (needed to promote from `needs_user_confirmation`).
        confirmed_by_user: bool,
    },
    /// A receipt recorded ahead of its transition.
    Receipt,
    /// A dry run was shown; no state change.
    DryRun,
}

impl EventKind {
    fn rank(&self) -> u8 {
        match self {
            EventKind::Created(_) => 0,
            EventKind::Classified { .. } => 1,
            EventKind::Receipt => 2,
            EventKind::DryRun => 3,
            EventKind::Transitioned { .. } => 4,
        }
    }

    /// The wire event type.
    ///
    /// ```
    /// use palisade_closure::ledger::EventKind;
    /// use palisade_closure::schema::CandidateStatus;
    /// let k = EventKind::Transitioned { to: CandidateStatus::RejectedNoise, confirmed_by_user: false };
    /// assert_eq!(k.event_type(), "candidate.rejected");
    /// ```
    pub fn event_type(&self) -> &'static str {
        match self {
            EventKind::Created(_) => "candidate.created",
            EventKind::Classified { .. } => "candidate.classified",
            EventKind::Receipt => "candidate.receipt",
            EventKind::DryRun => "candidate.promote.dry_run",
            EventKind::Transitioned { to, .. } => match to {
                CandidateStatus::Promoted => "candidate.promoted",
                CandidateStatus::Merged => "candidate.merged",
                CandidateStatus::NeedsUserConfirmation => "candidate.needs_user_confirmation",
                CandidateStatus::Expired => "candidate.expired",
                CandidateStatus::Pending => "candidate.transitioned",
                _ => "candidate.rejected",
            },
        }
    }

    fn status(&self) -> Option<CandidateStatus> {
        match self {
            EventKind::Created(r) => Some(r.status),
            EventKind::Classified { .. } => Some(CandidateStatus::Pending),
            EventKind::Transitioned { to, .. } => Some(*to),
            EventKind::Receipt | EventKind::DryRun => None,
        }
    }
}

/// One ledger event.
#[derive(Clone, Debug, PartialEq)]
pub struct CandidateEvent {
    /// Deterministic id (see [`crate::schema`]), or the one the event carried.
    pub event_id: String,
    /// The candidate it concerns.
    pub candidate_id: String,
    /// When it happened.
    pub at: Timestamp,
    /// The turn record it came from.
    pub record_id: String,
    /// What it does.
    pub kind: EventKind,
    /// Why.
    pub reason: String,
    /// Proof, for promotions, merges and rejections. Shared: most events
    /// carry none, and the one a view takes over is the stored event's own,
    /// not a copy.
    pub receipt: Option<Arc<Receipt>>,
}

impl CandidateEvent {
    /// Build an event with its derived id.
    ///
    /// ```
    /// use palisade_closure::ledger::{CandidateEvent, EventKind};
    /// use palisade_closure::time::Timestamp;
    /// let at = Timestamp::parse("2026-05-18T00:00:00Z").unwrap();
    /// let e = CandidateEvent::new("tcand_x", at, EventKind::DryRun, "shown", None);
    /// assert_eq!(e, CandidateEvent::new("tcand_x", at, EventKind::DryRun, "shown", None));
    /// ```
    pub fn new(
        candidate_id: &str,
        at: Timestamp,
        kind: EventKind,
        reason: &str,
        receipt: Option<Receipt>,
    ) -> CandidateEvent {
        let receipt_v = receipt.as_ref().map(Receipt::to_value);
        let mut status = kind.status().map(|s| s.as_str().to_owned());
        if let EventKind::Transitioned {
            confirmed_by_user: true,
            ..
        } = kind
        {
            status = status.map(|s| format!("{s}+confirmed"));
        }
        let id = event_id(
            kind.event_type(),
            candidate_id,
            &at.to_utc_string(),
            status.as_deref(),
            reason,
            receipt_v.as_ref(),
        );
        CandidateEvent {
            event_id: id,
            candidate_id: candidate_id.to_owned(),
            at,
            record_id: String::new(),
            kind,
            reason: reason.to_owned(),
            receipt: receipt.map(Arc::new),
        }
    }

    /// A `created` event for a record, stamped with the record's `created_at`
    /// (or `at` when that is missing or unparseable).
    ///
    /// ```
    /// use palisade_closure::ledger::CandidateEvent;
    /// use palisade_closure::schema::*;
    /// use palisade_closure::time::Timestamp;
    /// let r = CandidateRecord::new("Remember tea", FinalSink::User, "user-preference", Risk::Low, 0.9);
    /// let e = CandidateEvent::created(r, Timestamp::from_unix(0));
    /// assert_eq!(e.kind.event_type(), "candidate.created");
    /// ```
    pub fn created(record: CandidateRecord, at: Timestamp) -> CandidateEvent {
        let at = Timestamp::parse(&record.created_at).unwrap_or(at);
        let reason = record.decision_reason.clone();
        let id = record.candidate_id.clone();
        let record_id = record.record_id.clone();
        let mut e =
            CandidateEvent::new(&id, at, EventKind::Created(Box::new(record)), &reason, None);
        e.record_id = record_id;
        e
    }

    /// Parse an event from its JSON line form, rejecting contradictions
    /// (an event type whose status says otherwise, a rejection without a
    /// rejection status, a timestamp without an offset).
    ///
    /// ```
    /// use palisade_closure::ledger::CandidateEvent;
    /// use serde_json::json;
    /// assert!(CandidateEvent::from_value(&json!({"event_type":"candidate.expired","candidate_id":"tcand_x","at":"2026-05-18T00:00:00Z"})).is_ok());
    /// let bad = json!({"event_type":"candidate.promoted","candidate_id":"tcand_x","at":"2026-05-18T00:00:00Z","status":"expired"});
    /// assert!(CandidateEvent::from_value(&bad).unwrap_err().to_string().contains("contradicts"));
    /// ```
    pub fn from_value(v: &Value) -> Result<CandidateEvent, SchemaError> {
        let Value::Object(m) = v else {
            return Err(SchemaError::new("event must be a JSON object"));
        };
        let s = |k: &str| {
            m.get(k)
                .and_then(Value::as_str)
                .unwrap_or("")
                .trim()
                .to_owned()
        };
        let event_type = s("event_type");
        let at_s = ["at", "created_at", "updated_at"]
            .iter()
            .map(|k| s(k))
            .find(|v| !v.is_empty())
            .unwrap_or_default();
        let at = Timestamp::parse(&at_s).map_err(|e| SchemaError::new(e.to_string()))?;
        let status_s = {
            let a = s("candidate_status");
            if a.is_empty() {
                s("status")
            } else {
                a
            }
        };
        let status = if status_s.is_empty() {
            None
        } else {
            Some(
                CandidateStatus::parse(&status_s)
                    .ok_or_else(|| SchemaError::new(format!("invalid status {status_s:?}")))?,
            )
        };
        let receipt = match m.get("receipt") {
            None | Some(Value::Null) => None,
            Some(Value::Object(o)) if o.is_empty() => None,
            Some(r) => Some(Receipt::from_value(r)?),
        };
        let details = m.get("details").and_then(Value::as_object);
        let confirmed = m
            .get("confirmed_by_user")
            .and_then(Value::as_bool)
            .unwrap_or(false)
            || details
                .and_then(|d| d.get("confirmed_by_user"))
                .and_then(Value::as_bool)
                .unwrap_or(false);
        let contradiction = |expected: &str| {
            SchemaError::new(format!(
                "event type {event_type} contradicts status {status_s} (expected {expected})"
            ))
        };
        let fixed = |want: CandidateStatus| -> Result<EventKind, SchemaError> {
            match status {
                Some(st) if st != want => Err(contradiction(want.as_str())),
                _ => Ok(EventKind::Transitioned {
                    to: want,
                    confirmed_by_user: confirmed,
                }),
            }
        };
        let kind = match event_type.as_str() {
            "candidate.created" => {
                let c = m
                    .get("candidate")
                    .ok_or_else(|| SchemaError::new("created event without a candidate"))?;
                let rec = CandidateRecord::from_value(c)?;
                if let Some(st) = status {
                    if st != rec.status {
                        return Err(contradiction(rec.status.as_str()));
                    }
                }
                EventKind::Created(Box::new(rec))
            }
            "candidate.classified" => {
                if let Some(st) = status.filter(|st| *st != CandidateStatus::Pending) {
                    return Err(SchemaError::new(format!(
                        "event type {event_type} cannot change the status to {st}"
                    )));
                }
                let d = details.cloned().unwrap_or_default();
                let get = |k: &str| {
                    d.get(k)
                        .or_else(|| m.get(k))
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                };
                EventKind::Classified {
                    classification: get("classification"),
                    final_sink: match get("final_sink") {
                        Some(x) => Some(FinalSink::parse(&x).ok_or_else(|| {
                            SchemaError::new(format!("invalid final sink {x:?}"))
                        })?),
                        None => None,
                    },
                    risk: match get("risk") {
                        Some(x) => Some(
                            Risk::parse(&x)
                                .ok_or_else(|| SchemaError::new(format!("invalid risk {x:?}")))?,
                        ),
                        None => None,
                    },
                    confidence: d
                        .get("confidence")
                        .or_else(|| m.get("confidence"))
                        .and_then(Value::as_f64),
                }
            }
            "candidate.promoted" => fixed(CandidateStatus::Promoted)?,
            "candidate.merged" => fixed(CandidateStatus::Merged)?,
            "candidate.needs_user_confirmation" => fixed(CandidateStatus::NeedsUserConfirmation)?,
            "candidate.expired" => fixed(CandidateStatus::Expired)?,
            "candidate.rejected" => match status {
                Some(st) if st.is_rejection() => EventKind::Transitioned {
                    to: st,
                    confirmed_by_user: confirmed,
                },
                _ => {
                    return Err(SchemaError::new(format!(
                        "event type {event_type} needs a rejection status, got {status_s:?}"
                    )))
                }
            },
            "candidate.receipt" => {
                if receipt.is_none() {
                    return Err(SchemaError::new("receipt event without a receipt"));
                }
                EventKind::Receipt
            }
            "candidate.promote.dry_run" => EventKind::DryRun,
            other => return Err(SchemaError::new(format!("unknown event type {other:?}"))),
        };
        let mut candidate_id = s("candidate_id");
        if let (true, EventKind::Created(rec)) = (candidate_id.is_empty(), &kind) {
            candidate_id = rec.candidate_id.clone();
        }
        if candidate_id.is_empty() {
            return Err(SchemaError::new("event without a candidate id"));
        }
        let reason = m
            .get("reason")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let mut e = CandidateEvent::new(&candidate_id, at, kind, &reason, receipt);
        let given = s("event_id");
        if !given.is_empty() {
            e.event_id = given;
        }
        e.record_id = s("record_id");
        Ok(e)
    }

    /// The event's JSON line form.
    ///
    /// ```
    /// use palisade_closure::ledger::{CandidateEvent, EventKind};
    /// use palisade_closure::time::Timestamp;
    /// let e = CandidateEvent::new("tcand_x", Timestamp::from_unix(0), EventKind::DryRun, "", None);
    /// let back = CandidateEvent::from_value(&e.to_value()).unwrap();
    /// assert_eq!(back, e);
    /// ```
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("event_id".into(), json!(self.event_id));
        m.insert("event_type".into(), json!(self.kind.event_type()));
        m.insert("candidate_id".into(), json!(self.candidate_id));
        m.insert("at".into(), json!(self.at.to_utc_string()));
        m.insert("record_id".into(), json!(self.record_id));
        m.insert(
            "status".into(),
            self.kind
                .status()
                .map_or(Value::Null, |s| json!(s.as_str())),
        );
        m.insert("reason".into(), json!(self.reason));
        m.insert(
            "receipt".into(),
            self.receipt
                .as_deref()
                .map_or(Value::Null, Receipt::to_value),
        );
        match &self.kind {
            EventKind::Created(r) => {
                m.insert("candidate".into(), r.to_value());
            }
            EventKind::Classified {
                classification,
                final_sink,
                risk,
                confidence,
            } => {
                let mut d = Map::new();
                if let Some(c) = classification {
                    d.insert("classification".into(), json!(c));
                }
                if let Some(s) = final_sink {
                    d.insert("final_sink".into(), json!(s.as_str()));
                }
                if let Some(r) = risk {
                    d.insert("risk".into(), json!(r.as_str()));
                }
                if let Some(c) = confidence {
                    d.insert("confidence".into(), json!(c));
                }
                m.insert("details".into(), Value::Object(d));
            }
            EventKind::Transitioned {
                confirmed_by_user: true,
                ..
            } => {
                m.insert("confirmed_by_user".into(), json!(true));
            }
            _ => {}
        }
        Value::Object(m)
    }
}

/// What applying one event did.
#[derive(Clone, Debug, Eq, PartialEq)]
pub enum Applied {
    /// Folded into the view.
    Accepted,
    /// Already in the ledger (same event id); nothing changed.
    Duplicate,
    /// A second creation of an existing candidate; the first one wins.
    Deduped,
    /// Held until the candidate's `created` event arrives.
    Deferred,
    /// Refused; the view is unchanged. The string says why.
    Rejected(String),
}

/// A candidate's materialized state.
#[derive(Clone, Debug, PartialEq)]
pub struct CandidateView {
    /// The record with its current status, receipt and reason.
    pub record: CandidateRecord,
    /// When it was created.
    pub created: Timestamp,
    /// When it last changed.
    pub updated: Timestamp,
    /// Accepted transitions: (when, to).
    pub transitions: Vec<(Timestamp, CandidateStatus)>,
    /// Events refused by the fold: (event id, reason).
    pub rejected: Vec<(String, String)>,
}

/// One candidate: its events (slots in the ledger's [`EventStore`], sorted
/// by [`StoredEvent::sort_key`]) and its materialized view.
///
/// Small on purpose (the view is boxed, the events live in the store), so
/// growing the entry vector copies little.
#[derive(Clone, Debug, Default)]
struct Entry {
    /// The candidate id.
    id: String,
    events: Vec<Slot>,
    /// Touched by the batch [`Ledger::apply_all`] is folding.
    dirty: bool,
    view: Option<Box<CandidateView>>,
    /// The store index of the creation the view started from. That stored
    /// record lent its fixed fields to the view (see [`start`]) and gets
    /// them back before the candidate is folded again ([`give_back`]).
    started: Option<usize>,
}

/// One of a candidate's events: where it is stored, and the FNV-1a hash of
/// its id for the duplicate check (a scan of the candidate's slots compares
/// strings only on a hash match, instead of reading every stored event).
#[derive(Clone, Copy, Debug)]
struct Slot {
    idx: usize,
    id_hash: u64,
}

/// Where [`Ledger::insert`] put an event.
struct Inserted {
    /// The candidate's entry.
    slot: usize,
    /// Position among the candidate's sorted events.
    pos: usize,
    /// Index in the event store.
    idx: usize,
    /// Whether it sorts after every other event of the candidate.
    at_end: bool,
}

/// Candidate id → position in the ledger's entry vector.
///
/// Keyed by a 64-bit SipHash of the id under this ledger's random keys
/// (ids written by an attacker cannot be steered into collisions), computed
/// once per lookup. The table stores that hash as its key, so growing it
/// re-hashes no strings. Two ids with the same 64-bit hash (not expected in
/// practice, but handled) go to an exact-string side map.
#[derive(Clone, Debug, Default)]
struct CandidateIndex {
    keys: RandomState,
    by_hash: HashMap<u64, usize, BuildHasherDefault<PassThrough>>,
    collided: HashMap<String, usize>,
}

impl CandidateIndex {
    /// The entry of `id`, or the id's hash for [`CandidateIndex::insert`].
    fn find(&self, id: &str, entries: &[Entry]) -> Result<usize, u64> {
        let h = self.keys.hash_one(id);
        match self.by_hash.get(&h) {
            Some(&i) if entries.get(i).is_some_and(|e| e.id == id) => Ok(i),
            Some(_) => self.collided.get(id).copied().ok_or(h),
            None => Err(h),
        }
    }

    /// Record a new id whose [`CandidateIndex::find`] just missed with hash `h`.
    fn insert(&mut self, id: &str, h: u64, i: usize) {
        match self.by_hash.entry(h) {
            std::collections::hash_map::Entry::Occupied(_) => {
                self.collided.insert(id.to_owned(), i);
            }
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(i);
            }
        }
    }
}

/// 64-bit FNV-1a: a cheap, unkeyed filter hash. A forced collision only
/// costs a string comparison, so it needs no key.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A hasher for keys that already are keyed 64-bit hashes.
#[derive(Clone, Copy, Debug, Default)]
struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `u64` keys are hashed here (`write_u64`); mix anything else in.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// An event as the ledger keeps it: what folding needs. The candidate id is
/// kept once, in its [`Entry`]; the turn record id plays no part in folding.
#[derive(Clone, Debug)]
struct StoredEvent {
    event_id: String,
    at: Timestamp,
    kind: EventKind,
    reason: String,
    receipt: Option<Arc<Receipt>>,
}

impl From<CandidateEvent> for StoredEvent {
    /// Keep what folding needs; the candidate and record ids are dropped.
    fn from(e: CandidateEvent) -> StoredEvent {
        StoredEvent {
            event_id: e.event_id,
            at: e.at,
            kind: e.kind,
            reason: e.reason,
            receipt: e.receipt,
        }
    }
}

impl StoredEvent {
    /// Fold order: time, then the kind's rank, then the event id.
    fn sort_key(&self) -> (&Timestamp, u8, &str) {
        (&self.at, self.kind.rank(), &self.event_id)
    }
}

/// Events in arrival order, in fixed-size chunks: pushing never moves an
/// event already stored, so growth costs one allocation per chunk and no
/// copying.
#[derive(Clone, Debug, Default)]
struct EventStore {
    chunks: Vec<Vec<StoredEvent>>,
    len: usize,
}

impl EventStore {
    /// Events per chunk.
    const CHUNK: usize = 256;

    /// Store an event; returns its index.
    fn push(&mut self, event: StoredEvent) -> usize {
        match self.chunks.last_mut() {
            Some(chunk) if chunk.len() < Self::CHUNK => chunk.push(event),
            _ => {
                let mut chunk = Vec::with_capacity(Self::CHUNK);
                chunk.push(event);
                self.chunks.push(chunk);
            }
        }
        self.len += 1;
        self.len - 1
    }
}

impl std::ops::Index<usize> for EventStore {
    type Output = StoredEvent;

    /// Every index held by an [`Entry`] came from [`EventStore::push`] on the
    /// same ledger, and events are never removed, so it is in bounds.
    fn index(&self, i: usize) -> &StoredEvent {
        &self.chunks[i / Self::CHUNK][i % Self::CHUNK]
    }
}

impl std::ops::IndexMut<usize> for EventStore {
    /// In bounds for the same reason as [`Index`](std::ops::Index).
    fn index_mut(&mut self, i: usize) -> &mut StoredEvent {
        &mut self.chunks[i / Self::CHUNK][i % Self::CHUNK]
    }
}

/// The ledger: events in, materialized views out.
///
/// ```
/// use palisade_closure::ledger::{Applied, CandidateEvent, EventKind, Ledger};
/// use palisade_closure::schema::*;
/// use palisade_closure::time::Timestamp;
/// let mut ledger = Ledger::new();
/// let rec = CandidateRecord::new("Remember tea", FinalSink::User, "user-preference", Risk::Low, 0.9);
/// let id = rec.candidate_id.clone();
/// let t0 = Timestamp::parse("2026-05-16T00:00:00Z").unwrap();
/// assert_eq!(ledger.apply(CandidateEvent::created(rec, t0)), Applied::Accepted);
/// let promote = EventKind::Transitioned { to: CandidateStatus::Promoted, confirmed_by_user: false };
/// let no_receipt = CandidateEvent::new(&id, t0.add_seconds(60), promote.clone(), "", None);
/// assert!(matches!(ledger.apply(no_receipt), Applied::Rejected(_)));
/// let receipt = Receipt::promotion("2026-05-16T00:02:00Z", "fake", "user", "mem-1");
/// let ok = CandidateEvent::new(&id, t0.add_seconds(120), promote, "", Some(receipt));
/// assert_eq!(ledger.apply(ok), Applied::Accepted);
/// assert_eq!(ledger.get(&id).unwrap().record.status, CandidateStatus::Promoted);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Ledger {
    /// Candidate id → position in `entries` (a small map that rehashes
    /// cheaply; the entries live in one vector, in arrival order).
    index: CandidateIndex,
    entries: Vec<Entry>,
    store: EventStore,
    events: usize,
}

impl Ledger {
    /// An empty ledger.
    ///
    /// ```
    /// assert_eq!(palisade_closure::ledger::Ledger::new().len(), 0);
    /// ```
    pub fn new() -> Ledger {
        Ledger::default()
    }

    /// Number of materialized candidates.
    ///
    /// ```
    /// assert!(palisade_closure::ledger::Ledger::new().is_empty());
    /// ```
    pub fn len(&self) -> usize {
        self.entries.iter().filter(|e| e.view.is_some()).count()
    }

    /// Whether no candidate is materialized.
    ///
    /// ```
    /// assert!(palisade_closure::ledger::Ledger::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of events stored.
    ///
    /// ```
    /// assert_eq!(palisade_closure::ledger::Ledger::new().event_count(), 0);
    /// ```
    pub fn event_count(&self) -> usize {
        self.events
    }

    /// A candidate's view.
    ///
    /// ```
    /// assert!(palisade_closure::ledger::Ledger::new().get("tcand_x").is_none());
    /// ```
    pub fn get(&self, candidate_id: &str) -> Option<&CandidateView> {
        self.index
            .find(candidate_id, &self.entries)
            .ok()
            .and_then(|i| self.entries.get(i))
            .and_then(|e| e.view.as_deref())
    }

    /// All views, in no particular order.
    ///
    /// ```
    /// assert_eq!(palisade_closure::ledger::Ledger::new().views().count(), 0);
    /// ```
    pub fn views(&self) -> impl Iterator<Item = &CandidateView> {
        self.entries.iter().filter_map(|e| e.view.as_deref())
    }

    /// Apply one event. Never panics; an event that breaks the state machine
    /// is rejected with a reason and leaves the view unchanged.
    ///
    /// ```
    /// use palisade_closure::ledger::{Applied, CandidateEvent, EventKind, Ledger};
    /// use palisade_closure::time::Timestamp;
    /// let mut l = Ledger::new();
    /// let e = CandidateEvent::new("tcand_x", Timestamp::from_unix(0), EventKind::DryRun, "", None);
    /// assert_eq!(l.apply(e.clone()), Applied::Deferred);
    /// assert_eq!(l.apply(e), Applied::Duplicate);
    /// ```
    pub fn apply(&mut self, event: CandidateEvent) -> Applied {
        let is_created = matches!(event.kind, EventKind::Created(_));
        let Inserted {
            slot,
            pos,
            idx,
            at_end,
        } = match self.insert(event) {
            Ok(ins) => ins,
            Err(outcome) => return outcome,
        };
        let Some(entry) = self.entries.get_mut(slot) else {
            return Applied::Rejected("internal: ledger entry missing".into());
        };
        let store = &mut self.store;
        if at_end {
            if let Some(view) = entry.view.as_mut() {
                let ev = &store[idx];
                // Fast path: the new event sorts last; one fold step.
                let before = view.updated;
                let outcome = step(view, ev);
                if view.updated != before {
                    sync_updated(view);
                }
                if let Applied::Rejected(why) = &outcome {
                    view.rejected.push((ev.event_id.clone(), why.clone()));
                }
                return outcome;
            }
        }
        if is_created && entry.events.len() == 1 {
            // Fast path: the candidate's first event is its creation.
            let ev = &mut store[idx];
            return match &mut ev.kind {
                EventKind::Created(rec) => match start(rec, &entry.id, ev.at) {
                    Ok(view) => {
                        entry.view = Some(Box::new(view));
                        entry.started = Some(idx);
                        Applied::Accepted
                    }
                    Err(why) => Applied::Rejected(why),
                },
                _ => Applied::Deferred,
            };
        }
        if !is_created && entry.view.is_none() {
            return Applied::Deferred;
        }
        refold(entry, store, pos)
    }

    /// Store an event under its candidate, at its sorted position, without
    /// folding it; or say why not (a duplicate id, a full candidate).
    fn insert(&mut self, event: CandidateEvent) -> Result<Inserted, Applied> {
        let CandidateEvent {
            event_id,
            candidate_id,
            at,
            record_id: _,
            kind,
            reason,
            receipt,
        } = event;
        let event = StoredEvent {
            event_id,
            at,
            kind,
            reason,
            receipt,
        };
        let slot = match self.index.find(&candidate_id, &self.entries) {
            Ok(i) => i,
            Err(h) => {
                let i = self.entries.len();
                self.index.insert(&candidate_id, h, i);
                self.entries.push(Entry {
                    id: candidate_id,
                    // A candidate usually gets a handful of events (created,
                    // classified, a decision): size for that once.
                    events: Vec::with_capacity(EVENTS_PER_CANDIDATE_HINT),
                    ..Entry::default()
                });
                i
            }
        };
        let Some(entry) = self.entries.get_mut(slot) else {
            return Err(Applied::Rejected("internal: ledger entry missing".into()));
        };
        let store = &self.store;
        let id_hash = fnv1a(event.event_id.as_bytes());
        if entry
            .events
            .iter()
            .any(|s| s.id_hash == id_hash && store[s.idx].event_id == event.event_id)
        {
            return Err(Applied::Duplicate);
        }
        if entry.events.len() >= MAX_EVENTS_PER_CANDIDATE {
            return Err(Applied::Rejected(format!(
                "candidate already has {MAX_EVENTS_PER_CANDIDATE} events"
            )));
        }
        self.events += 1;
        let pos = {
            let key = event.sort_key();
            match entry.events.last() {
                // The common case, an event newer than all others: one
                // comparison instead of a binary search over cold events.
                Some(last) if store[last.idx].sort_key() <= key => entry.events.len(),
                _ => entry
                    .events
                    .partition_point(|s| store[s.idx].sort_key() <= key),
            }
        };
        let at_end = pos == entry.events.len();
        let idx = self.store.push(event);
        entry.events.insert(pos, Slot { idx, id_hash });
        Ok(Inserted {
            slot,
            pos,
            idx,
            at_end,
        })
    }

    /// Apply many events at once (a whole replayed ledger, say), returning
    /// each one's outcome in input order.
    ///
    /// Events are stored first, in input order (so for a repeated event id
    /// the first one wins, as with [`Ledger::apply`]), and every candidate
    /// the batch touched is then folded once. The cost is one step per
    /// event whatever order the batch comes in, where [`Ledger::apply`]
    /// re-folds a candidate for each event that arrives older than the ones
    /// it already has. The views are the same as applying the events one by
    /// one; an event's outcome is what it did in its candidate's final fold
    /// (so an event that `apply` would first report as
    /// [`Applied::Deferred`] reports what happened once its creation came).
    ///
    /// ```
    /// use palisade_closure::ledger::{Applied, CandidateEvent, EventKind, Ledger};
    /// use palisade_closure::schema::*;
    /// use palisade_closure::time::Timestamp;
    /// let rec = CandidateRecord::new("Remember tea", FinalSink::User, "user-preference", Risk::Low, 0.9);
    /// let id = rec.candidate_id.clone();
    /// let t0 = Timestamp::from_unix(1_780_000_000);
    /// let expire = EventKind::Transitioned { to: CandidateStatus::Expired, confirmed_by_user: false };
    /// let batch = vec![
    ///     CandidateEvent::new(&id, t0.add_seconds(60), expire, "old", None),
    ///     CandidateEvent::created(rec, t0),
    /// ];
    /// let mut l = Ledger::new();
    /// assert_eq!(l.apply_all(batch), vec![Applied::Accepted, Applied::Accepted]);
    /// assert_eq!(l.get(&id).unwrap().record.status, CandidateStatus::Expired);
    /// ```
    pub fn apply_all(&mut self, events: impl IntoIterator<Item = CandidateEvent>) -> Vec<Applied> {
        let first_new = self.store.len;
        let mut out = Vec::new();
        // (output position, store index) of every stored event.
        let mut stored: Vec<(usize, usize)> = Vec::new();
        let mut dirty: Vec<usize> = Vec::new();
        for event in events {
            match self.insert(event) {
                Ok(ins) => {
                    stored.push((out.len(), ins.idx));
                    out.push(Applied::Deferred);
                    if let Some(entry) = self.entries.get_mut(ins.slot) {
                        if !entry.dirty {
                            entry.dirty = true;
                            dirty.push(ins.slot);
                        }
                    }
                }
                Err(outcome) => out.push(outcome),
            }
        }
        // Outcomes by store index, for the events of this batch.
        let mut by_idx = vec![Applied::Deferred; self.store.len - first_new];
        for slot in dirty {
            if let Some(entry) = self.entries.get_mut(slot) {
                entry.dirty = false;
                fold_entry(entry, &mut self.store, |idx, outcome| {
                    if let Some(o) = idx.checked_sub(first_new).and_then(|k| by_idx.get_mut(k)) {
                        o.clone_from(outcome);
                    }
                });
            }
        }
        for (pos, idx) in stored {
            if let (Some(o), Some(src)) = (out.get_mut(pos), by_idx.get_mut(idx - first_new)) {
                *o = std::mem::replace(src, Applied::Deferred);
            }
        }
        out
    }

    /// Parse and apply one JSON event line; a malformed event is rejected
    /// with the parse error as the reason.
    ///
    /// ```
    /// use palisade_closure::ledger::{Applied, Ledger};
    /// let mut l = Ledger::new();
    /// let r = l.apply_value(&serde_json::json!({"event_type":"candidate.rejected","candidate_id":"tcand_x","at":"2026-05-18T00:00:00Z","status":"promoted"}));
    /// assert!(matches!(r, Applied::Rejected(_)));
    /// ```
    pub fn apply_value(&mut self, value: &Value) -> Applied {
        match CandidateEvent::from_value(value) {
            Ok(e) => self.apply(e),
            Err(e) => Applied::Rejected(e.to_string()),
        }
    }

    /// The `created` event for a new candidate, or why none is needed.
    ///
    /// ```
    /// use palisade_closure::ledger::{Ledger, Proposal};
    /// use palisade_closure::schema::*;
    /// use palisade_closure::time::Timestamp;
    /// let mut l = Ledger::new();
    /// let rec = CandidateRecord::new("Remember tea", FinalSink::User, "user-preference", Risk::Low, 0.9);
    /// let Proposal::New(e) = l.propose(rec.clone(), Timestamp::from_unix(0)) else { panic!() };
    /// l.apply(*e);
    /// assert!(matches!(l.propose(rec, Timestamp::from_unix(9)), Proposal::Existing { .. }));
    /// ```
    pub fn propose(&self, record: CandidateRecord, at: Timestamp) -> Proposal {
        match self.get(&record.candidate_id) {
            None => Proposal::New(Box::new(CandidateEvent::created(record, at))),
            Some(v)
                if matches!(
                    v.record.status,
                    CandidateStatus::Expired | CandidateStatus::RejectedTemporary
                ) =>
            {
                let epoch_id = crate::schema::candidate_id_with_epoch(
                    &record.candidate_content,
                    record.final_sink,
                    &record.classification,
                    &at.local_day(),
                );
                // Already re-proposed in this epoch: that candidate stands.
                match self.get(&epoch_id) {
                    Some(again) => Proposal::Existing {
                        status: again.record.status,
                    },
                    None => Proposal::Reproposable {
                        status: v.record.status,
                        epoch_id,
                    },
                }
            }
            Some(v) => Proposal::Existing {
                status: v.record.status,
            },
        }
    }

    /// Validate a transition against the current view and build its event
    /// (the caller appends it). Terminal candidates answer
    /// [`TransitionError::Terminal`] and nothing is written.
    ///
    /// ```
    /// use palisade_closure::ledger::{Ledger, TransitionError};
    /// use palisade_closure::schema::CandidateStatus;
    /// use palisade_closure::time::Timestamp;
    /// let l = Ledger::new();
    /// let r = l.transition("tcand_x", CandidateStatus::Expired, Timestamp::from_unix(0), "old", None, false);
    /// assert_eq!(r.unwrap_err(), TransitionError::NotFound);
    /// ```
    pub fn transition(
        &self,
        candidate_id: &str,
        to: CandidateStatus,
        at: Timestamp,
        reason: &str,
        receipt: Option<Receipt>,
        confirmed_by_user: bool,
    ) -> Result<CandidateEvent, TransitionError> {
        let view = self.get(candidate_id).ok_or(TransitionError::NotFound)?;
        if view.record.status.is_terminal() {
            return Err(TransitionError::Terminal(view.record.status));
        }
        let event = CandidateEvent::new(
            candidate_id,
            at,
            EventKind::Transitioned {
                to,
                confirmed_by_user,
            },
            reason,
            receipt,
        );
        let mut probe = view.clone();
        match step(&mut probe, &StoredEvent::from(event.clone())) {
            Applied::Accepted => Ok(event),
            Applied::Rejected(why) => Err(TransitionError::Invalid(why)),
            _ => Err(TransitionError::Invalid("transition not applicable".into())),
        }
    }

    /// `expired` events for open candidates created more than `ttl_secs`
    /// before `now` (the caller's clock). Append them to expire.
    ///
    /// ```
    /// use palisade_closure::ledger::Ledger;
    /// use palisade_closure::time::Timestamp;
    /// assert!(Ledger::new().expire_due(&Timestamp::from_unix(0), 3600).is_empty());
    /// ```
    pub fn expire_due(&self, now: &Timestamp, ttl_secs: i64) -> Vec<CandidateEvent> {
        let mut out: Vec<CandidateEvent> = self
            .views()
            .filter(|v| {
                !v.record.status.is_terminal()
                    && now.unix_seconds() - v.created.unix_seconds() > ttl_secs
            })
            .map(|v| {
                CandidateEvent::new(
                    &v.record.candidate_id,
                    *now,
                    EventKind::Transitioned {
                        to: CandidateStatus::Expired,
                        confirmed_by_user: false,
                    },
                    &format!("no decision within {} hours", ttl_secs / 3600),
                    None,
                )
            })
            .collect();
        out.sort_by(|a, b| a.candidate_id.cmp(&b.candidate_id));
        out
    }

    /// Candidates, optionally of one status, most recently updated first
    /// (ties by id), at most `limit`.
    ///
    /// ```
    /// use palisade_closure::ledger::Ledger;
    /// assert!(Ledger::new().list(None, 10).is_empty());
    /// ```
    pub fn list(&self, status: Option<CandidateStatus>, limit: usize) -> Vec<&CandidateView> {
        let mut v: Vec<&CandidateView> = self
            .views()
            .filter(|v| status.is_none_or(|s| v.record.status == s))
            .collect();
        v.sort_by(|a, b| {
            b.updated
                .cmp(&a.updated)
                .then_with(|| a.record.candidate_id.cmp(&b.record.candidate_id))
        });
        v.truncate(limit);
        v
    }

    /// Counts for the pending report at `now` (the caller's clock; "today"
    /// is `now`'s calendar day in `now`'s own UTC offset).
    ///
    /// ```
    /// use palisade_closure::ledger::Ledger;
    /// use palisade_closure::time::Timestamp;
    /// let r = Ledger::new().pending_report(&Timestamp::from_unix(0), 24 * 3600);
    /// assert_eq!(r.pending_total, 0);
    /// ```
    pub fn pending_report(&self, now: &Timestamp, overdue_secs: i64) -> PendingReport {
        let today = now.day_at_offset(now.offset_seconds());
        let mut r = PendingReport::default();
        let mut oldest: Option<(&Timestamp, &str)> = None;
        for v in self.views() {
            match v.record.status {
                CandidateStatus::Pending => {
                    r.pending_total += 1;
                    if now.unix_seconds() - v.created.unix_seconds() > overdue_secs {
                        r.pending_overdue += 1;
                    }
                    let key = (&v.created, v.record.candidate_id.as_str());
                    if oldest.is_none_or(|o| key < o) {
                        oldest = Some(key);
                    }
                }
                CandidateStatus::NeedsUserConfirmation => r.needs_user_confirmation_total += 1,
                _ => {}
            }
            for (at, to) in &v.transitions {
                if at.day_at_offset(now.offset_seconds()) != today {
                    continue;
                }
                match to {
                    CandidateStatus::Promoted => r.promoted_today += 1,
                    CandidateStatus::Merged => r.merged_today += 1,
                    CandidateStatus::Expired => r.expired_today += 1,
                    s if s.is_rejection() => r.rejected_today += 1,
                    _ => {}
                }
            }
        }
        r.oldest_pending = oldest.map(|(_, id)| id.to_owned());
        r
    }
}

/// The answer to [`Ledger::propose`].
#[derive(Clone, Debug, PartialEq)]
pub enum Proposal {
    /// Append this `created` event.
    New(Box<CandidateEvent>),
    /// The candidate exists; nothing to append.
    Existing {
        /// Its current status.
        status: CandidateStatus,
    },
    /// The candidate expired or was rejected as temporary: it may be proposed
    /// again under an epoch-salted id.
    Reproposable {
        /// Its current status.
        status: CandidateStatus,
        /// The id to use for the new proposal.
        epoch_id: String,
    },
}

/// Why [`Ledger::transition`] refused.
#[derive(Clone, Debug, Eq, PartialEq, thiserror::Error)]
pub enum TransitionError {
    /// No such candidate.
    #[error("candidate not found")]
    NotFound,
    /// The candidate is already final.
    #[error("candidate is already {0}; terminal states are final")]
    Terminal(CandidateStatus),
    /// The state machine forbids it.
    #[error("{0}")]
    Invalid(String),
}

/// Counts for `/turn-closure report`.
#[derive(Clone, Debug, Default, Eq, PartialEq)]
pub struct PendingReport {
    /// Pending candidates.
    pub pending_total: usize,
    /// Pending for longer than the overdue threshold.
    pub pending_overdue: usize,
    /// Waiting for the user.
    pub needs_user_confirmation_total: usize,
    /// Promotions today.
    pub promoted_today: usize,
    /// Merges today.
    pub merged_today: usize,
    /// Rejections today.
    pub rejected_today: usize,
    /// Expiries today.
    pub expired_today: usize,
    /// The oldest pending candidate.
    pub oldest_pending: Option<String>,
}

/// Re-fold one candidate from its sorted events: the first `created`, then
/// every other event in order. Returns what happened to the event at
/// position `target` of the candidate's sorted events.
fn refold(entry: &mut Entry, store: &mut EventStore, target: usize) -> Applied {
    let target_idx = entry.events.get(target).map(|s| s.idx);
    let mut outcome = Applied::Deferred;
    fold_entry(entry, store, |idx, o| {
        if Some(idx) == target_idx {
            outcome = o.clone();
        }
    });
    outcome
}

/// Fold one candidate from scratch from its sorted events: the first valid
/// `created`, then every other event in order. `report` hears what each
/// folded event did (by store index); events never folded (no valid
/// creation yet) are not reported.
fn fold_entry(entry: &mut Entry, store: &mut EventStore, mut report: impl FnMut(usize, &Applied)) {
    if let (Some(view), Some(idx)) = (entry.view.take(), entry.started.take()) {
        if let EventKind::Created(rec) = &mut store[idx].kind {
            give_back(*view, rec);
        }
    }
    let ids: &[Slot] = &entry.events;
    // The first valid creation starts the view; invalid ones before it are
    // rejected.
    let mut started = None;
    for (i, slot) in ids.iter().enumerate() {
        let e = &mut store[slot.idx];
        if let EventKind::Created(rec) = &mut e.kind {
            match start(rec, &entry.id, e.at) {
                Ok(v) => {
                    started = Some((i, v));
                    break;
                }
                Err(why) => report(slot.idx, &Applied::Rejected(why)),
            }
        }
    }
    let Some((start_at, mut view)) = started else {
        return;
    };
    let store = &*store;
    let events = || ids.iter().map(|s| &store[s.idx]);
    let first = events()
        .position(|e| matches!(e.kind, EventKind::Created(_)))
        .unwrap_or(start_at);
    report(ids[start_at].idx, &Applied::Accepted);
    for (i, e) in events().enumerate() {
        // The creation that started the view, and an invalid first
        // creation (already reported), are not stepped.
        if i == start_at || (i == first && start_at != first) {
            continue;
        }
        let o = step(&mut view, e);
        if let Applied::Rejected(why) = &o {
            view.rejected.push((e.event_id.clone(), why.clone()));
        }
        report(ids[i].idx, &o);
    }
    sync_updated(&mut view);
    entry.view = Some(Box::new(view));
    entry.started = Some(ids[start_at].idx);
}

/// Start a candidate's view from its creation (`id` is the candidate id the
/// event carried, `at` its time).
///
/// The fields no later event changes (ids, content, evidence, source, the
/// timestamps' text) are moved from the stored record into the view rather
/// than cloned, so starting a candidate costs one allocation for the view
/// and a copy of the few fields the fold does change. The stored record keeps
/// those fields' original values, which is all a later re-fold needs after
/// [`give_back`] returns the moved ones.
fn start(rec: &mut CandidateRecord, id: &str, at: Timestamp) -> Result<CandidateView, String> {
    if rec.status != CandidateStatus::Pending {
        return Err(format!(
            "a created event must carry status pending, not {}",
            rec.status
        ));
    }
    if rec.candidate_id != id {
        return Err("created event's candidate id differs from its payload".into());
    }
    let mut record = CandidateRecord {
        candidate_id: std::mem::take(&mut rec.candidate_id),
        record_id: std::mem::take(&mut rec.record_id),
        session_id: std::mem::take(&mut rec.session_id),
        created_at: std::mem::take(&mut rec.created_at),
        updated_at: std::mem::take(&mut rec.updated_at),
        status: rec.status,
        classification: rec.classification.clone(),
        final_sink: rec.final_sink,
        risk: rec.risk,
        confidence: rec.confidence,
        candidate_content: std::mem::take(&mut rec.candidate_content),
        evidence_summary: std::mem::take(&mut rec.evidence_summary),
        decision_reason: rec.decision_reason.clone(),
        source: std::mem::take(&mut rec.source),
        receipt: rec.receipt.clone(),
    };
    at.write_utc(&mut record.created_at);
    record.updated_at.clone_from(&record.created_at);
    Ok(CandidateView {
        record,
        created: at,
        updated: at,
        transitions: Vec::new(),
        rejected: Vec::new(),
    })
}

/// Return the fields [`start`] moved out of a stored creation's record; the
/// fields the fold changes stayed there with their original values.
fn give_back(view: CandidateView, rec: &mut CandidateRecord) {
    let CandidateRecord {
        candidate_id,
        record_id,
        session_id,
        created_at,
        updated_at,
        status: _,
        classification: _,
        final_sink: _,
        risk: _,
        confidence: _,
        candidate_content,
        evidence_summary,
        decision_reason: _,
        source,
        receipt: _,
    } = view.record;
    rec.candidate_id = candidate_id;
    rec.record_id = record_id;
    rec.session_id = session_id;
    rec.created_at = created_at;
    rec.updated_at = updated_at;
    rec.candidate_content = candidate_content;
    rec.evidence_summary = evidence_summary;
    rec.source = source;
}

/// Bring `record.updated_at` in line with `updated` (the canonical UTC text
/// of the instant) after one or more [`step`]s.
fn sync_updated(view: &mut CandidateView) {
    view.updated.write_utc(&mut view.record.updated_at);
}

/// One fold step on an existing view; call [`sync_updated`] afterwards.
fn step(view: &mut CandidateView, e: &StoredEvent) -> Applied {
    let status = view.record.status;
    // Only the instant here; the `updated_at` text is written once per
    // apply by `sync_updated`, not once per re-folded event.
    let touch = |view: &mut CandidateView| {
        if e.at > view.updated {
            view.updated = e.at;
        }
    };
    match &e.kind {
        EventKind::Created(_) => Applied::Deduped,
        EventKind::DryRun => Applied::Accepted,
        _ if status.is_terminal() => Applied::Rejected(format!(
            "candidate is already {status}; terminal states are final"
        )),
        EventKind::Classified {
            classification,
            final_sink,
            risk,
            confidence,
        } => {
            if status != CandidateStatus::Pending {
                return Applied::Rejected(format!(
                    "cannot reclassify a candidate that is {status}"
                ));
            }
            if let Some(c) = confidence {
                if !(0.0..=1.0).contains(c) {
                    return Applied::Rejected(format!("confidence {c} is outside [0, 1]"));
                }
                view.record.confidence = *c;
            }
            if let Some(c) = classification {
                view.record.classification = c.clone();
            }
            if let Some(s) = final_sink {
                view.record.final_sink = *s;
            }
            if let Some(r) = risk {
                view.record.risk = *r;
            }
            if !e.reason.is_empty() {
                view.record.decision_reason.clone_from(&e.reason);
            }
            touch(view);
            Applied::Accepted
        }
        EventKind::Receipt => {
            let Some(r) = &e.receipt else {
                return Applied::Rejected("receipt event without a receipt".into());
            };
            view.record.receipt = Some(r.clone());
            touch(view);
            Applied::Accepted
        }
        EventKind::Transitioned {
            to,
            confirmed_by_user,
        } => {
            let receipt = e.receipt.as_deref().or(view.record.receipt.as_deref());
            let needs = |action: ReceiptAction| receipt.is_some_and(|r| r.action == action);
            let verdict: Result<(), String> = match (status, to) {
                (_, CandidateStatus::Pending) => Err("cannot transition back to pending".into()),
                (
                    CandidateStatus::NeedsUserConfirmation,
                    CandidateStatus::NeedsUserConfirmation,
                ) => Err("candidate already needs user confirmation".into()),
                (CandidateStatus::NeedsUserConfirmation, CandidateStatus::Promoted)
                    if !confirmed_by_user =>
                {
                    Err(
                        "promotion from needs_user_confirmation requires the user's confirmation"
                            .into(),
                    )
                }
                (_, CandidateStatus::Promoted) if !needs(ReceiptAction::Promoted) => {
                    Err("promotion without a promotion receipt".into())
                }
                (_, CandidateStatus::Merged) if !needs(ReceiptAction::Merged) => {
                    Err("merge without a merge receipt".into())
                }
                (_, s)
                    if s.is_rejection()
                        && e.reason.trim().is_empty()
                        && receipt.is_none_or(|r| r.reason.trim().is_empty()) =>
                {
                    Err("rejection without a reason".into())
                }
                (_, s)
                    if s.is_rejection()
                        && e.receipt
                            .as_ref()
                            .is_some_and(|r| r.action.as_str() != s.as_str()) =>
                {
                    Err(format!(
                        "rejection receipt action does not match status {s}"
                    ))
                }
                _ => Ok(()),
            };
            if let Err(why) = verdict {
                return Applied::Rejected(why);
            }
            view.record.status = *to;
            if let Some(r) = &e.receipt {
                view.record.receipt = Some(r.clone());
            }
            if !e.reason.is_empty() {
                view.record.decision_reason.clone_from(&e.reason);
            }
            view.transitions.push((e.at, *to));
            touch(view);
            Applied::Accepted
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reproposal_uses_one_epoch_id_per_day() {
        let mut l = Ledger::new();
        let rec = CandidateRecord::new(
            "Remember tea",
            FinalSink::User,
            "user-preference",
            Risk::Low,
            0.9,
        );
        let t0 = Timestamp::parse("2026-05-16T00:00:00Z").unwrap();
        let Proposal::New(e) = l.propose(rec.clone(), t0) else {
            panic!("first proposal is new")
        };
        assert_eq!(l.apply(*e), Applied::Accepted);
        let expire = l.expire_due(&t0.add_seconds(4 * 86_400), 72 * 3600);
        assert_eq!(expire.len(), 1);
        for e in expire {
            assert_eq!(l.apply(e), Applied::Accepted);
        }
        let t1 = t0.add_seconds(5 * 86_400);
        let Proposal::Reproposable { epoch_id, .. } = l.propose(rec.clone(), t1) else {
            panic!("expired text is re-proposable")
        };
        let mut again = rec.clone();
        again.candidate_id = epoch_id.clone();
        assert_eq!(
            l.apply(CandidateEvent::created(again, t1)),
            Applied::Accepted
        );
        assert_eq!(
            l.get(&epoch_id).map(|v| v.record.status),
            Some(CandidateStatus::Pending)
        );
        assert!(matches!(
            l.propose(rec, t1),
            Proposal::Existing {
                status: CandidateStatus::Pending
            }
        ));
    }

    #[test]
    fn transition_api_reports_terminal_and_invalid() {
        let mut l = Ledger::new();
        let rec = CandidateRecord::new("x", FinalSink::User, "c", Risk::Low, 0.9);
        let id = rec.candidate_id.clone();
        let t0 = Timestamp::from_unix(1_780_000_000);
        l.apply(CandidateEvent::created(rec, t0));
        let e = l.transition(
            &id,
            CandidateStatus::Promoted,
            t0.add_seconds(1),
            "",
            None,
            false,
        );
        assert!(matches!(e, Err(TransitionError::Invalid(_))));
        let e = l
            .transition(
                &id,
                CandidateStatus::RejectedNoise,
                t0.add_seconds(2),
                "noise",
                None,
                false,
            )
            .unwrap();
        assert_eq!(l.apply(e), Applied::Accepted);
        let e = l.transition(
            &id,
            CandidateStatus::Expired,
            t0.add_seconds(3),
            "late",
            None,
            false,
        );
        assert_eq!(
            e,
            Err(TransitionError::Terminal(CandidateStatus::RejectedNoise))
        );
    }
}

#[cfg(test)]
mod index_tests {
    use super::*;

    #[test]
    fn colliding_hashes_resolve_by_exact_id() {
        let mut idx = CandidateIndex::default();
        let entry = |id: &str| Entry {
            id: id.to_owned(),
            ..Entry::default()
        };
        let entries = vec![entry("tcand_x"), entry("tcand_b")];
        // Force "tcand_x" into the slot "tcand_b" hashes to.
        let Err(hb) = idx.find("tcand_b", &entries) else {
            panic!("empty index")
        };
        idx.insert("tcand_x", hb, 0);
        idx.insert("tcand_b", hb, 1);
        assert_eq!(idx.collided.len(), 1);
        assert_eq!(idx.find("tcand_b", &entries), Ok(1));
        assert!(idx.find("tcand_c", &entries).is_err());
    }

    #[test]
    fn apply_all_reports_outcomes_in_input_order() {
        let rec = CandidateRecord::new("x", FinalSink::User, "c", Risk::Low, 0.9);
        let id = rec.candidate_id.clone();
        let t0 = Timestamp::from_unix(1_780_000_000);
        let promote = EventKind::Transitioned {
            to: CandidateStatus::Promoted,
            confirmed_by_user: false,
        };
        let dry = CandidateEvent::new(&id, t0.add_seconds(5), EventKind::DryRun, "", None);
        let batch = vec![
            CandidateEvent::new(&id, t0.add_seconds(9), promote, "", None),
            dry.clone(),
            CandidateEvent::created(rec, t0),
            dry,
            CandidateEvent::new("tcand_other", t0, EventKind::DryRun, "", None),
        ];
        let mut l = Ledger::new();
        let got = l.apply_all(batch);
        assert!(matches!(got[0], Applied::Rejected(_)), "{got:?}");
        assert_eq!(got[1], Applied::Accepted);
        assert_eq!(got[2], Applied::Accepted);
        assert_eq!(got[3], Applied::Duplicate);
        assert_eq!(got[4], Applied::Deferred);
        assert_eq!(l.event_count(), 4);
        assert!(l.apply_all(Vec::new()).is_empty());
    }

    #[test]
    fn store_indices_survive_chunk_boundaries() {
        let mut store = EventStore::default();
        for i in 0..(EventStore::CHUNK * 3 + 5) {
            let e = CandidateEvent::new(
                "tcand_x",
                Timestamp::from_unix(i as i64),
                EventKind::DryRun,
                "",
                None,
            );
            assert_eq!(store.push(e.into()), i);
        }
        assert_eq!(
            store[EventStore::CHUNK * 2 + 1].at,
            Timestamp::from_unix((EventStore::CHUNK * 2 + 1) as i64)
        );
    }
}
