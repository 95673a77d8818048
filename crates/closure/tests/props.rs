//! Property tests: fold order independence, stable ids, totality.

use palisade_closure::classify::{Classifier, Turn};
use palisade_closure::detect::ToolCall;
use palisade_closure::ledger::{CandidateEvent, CandidateView, EventKind, Ledger};
use palisade_closure::redact::redact_text;
use palisade_closure::schema::{
    candidate_id, CandidateRecord, CandidateStatus, FinalSink, Receipt, Risk,
};
use palisade_closure::session::session_filename;
use palisade_closure::time::Timestamp;
use proptest::prelude::*;
use serde_json::json;
use std::sync::LazyLock;

static CLASSIFIER: LazyLock<Classifier> = LazyLock::new(Classifier::new);

const STATUSES: [CandidateStatus; 7] = [
    CandidateStatus::Promoted,
    CandidateStatus::Merged,
    CandidateStatus::RejectedNoise,
    CandidateStatus::RejectedTemporary,
    CandidateStatus::NeedsUserConfirmation,
    CandidateStatus::Expired,
    CandidateStatus::RejectedSensitive,
];

/// (candidate index, status index, minutes after base, with receipt, confirmed, reason)
type Step = (usize, usize, i64, bool, bool, bool);

fn events(n_candidates: usize, steps: &[Step]) -> Vec<CandidateEvent> {
    let base = 1_780_000_000i64;
    let mut out = Vec::new();
    let mut ids = Vec::new();
    for i in 0..n_candidates {
        let rec = CandidateRecord::new(
            &format!("Remember preference {i}"),
            FinalSink::User,
            "user-preference",
            Risk::Low,
            0.9,
        );
        ids.push(rec.candidate_id.clone());
        out.push(CandidateEvent::created(
            rec,
            Timestamp::from_unix(base + i as i64 * 7),
        ));
    }
    for &(c, s, minutes, with_receipt, confirmed, reason) in steps {
        let id = &ids[c % n_candidates];
        let to = STATUSES[s % STATUSES.len()];
        let at = Timestamp::from_unix(base + minutes * 60);
        let receipt = (with_receipt || s == STATUSES.len()).then(|| match to {
            CandidateStatus::Merged => Receipt::merge("t", "p", "user", "m1"),
            _ => Receipt::promotion("t", "p", "user", &format!("m{minutes}")),
        });
        let reason = if reason { "because" } else { "" };
        let kind = if s == STATUSES.len() {
            EventKind::Receipt
        } else {
            EventKind::Transitioned {
                to,
                confirmed_by_user: confirmed,
            }
        };
        out.push(CandidateEvent::new(id, at, kind, reason, receipt));
    }
    out
}

fn fold(evs: &[CandidateEvent]) -> Vec<CandidateView> {
    let mut l = Ledger::new();
    for e in evs {
        l.apply(e.clone());
    }
    let mut v: Vec<CandidateView> = l.views().cloned().collect();
    v.sort_by(|a, b| a.record.candidate_id.cmp(&b.record.candidate_id));
    v
}

fn step_strategy() -> impl Strategy<Value = Step> {
    (
        0usize..4,
        0usize..=7,
        -30i64..600,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn fold_is_order_independent(
        n in 1usize..4,
        steps in proptest::collection::vec(step_strategy(), 0..24),
        seed in any::<u64>(),
    ) {
        let evs = events(n, &steps);
        let sorted = fold(&evs);
        // A deterministic shuffle from the seed (Fisher–Yates with an LCG).
        let mut shuffled = evs.clone();
        let mut x = seed | 1;
        for i in (1..shuffled.len()).rev() {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let j = (x >> 33) as usize % (i + 1);
            shuffled.swap(i, j);
        }
        prop_assert_eq!(fold(&shuffled), sorted.clone());
        let mut reversed = evs.clone();
        reversed.reverse();
        prop_assert_eq!(fold(&reversed), sorted.clone());
        // Replaying every event again changes nothing (duplicates are ignored).
        let mut twice = evs.clone();
        twice.extend(evs.iter().cloned());
        prop_assert_eq!(fold(&twice), sorted);
    }

    #[test]
    fn events_roundtrip_through_json(n in 1usize..3, steps in proptest::collection::vec(step_strategy(), 0..8)) {
        for e in events(n, &steps) {
            let back = CandidateEvent::from_value(&e.to_value());
            prop_assert_eq!(back.as_ref().ok(), Some(&e));
        }
    }

    #[test]
    fn candidate_ids_are_stable(content in "[A-Za-z ß]{1,40}", class in "[a-z-]{1,20}") {
        let a = candidate_id(&content, FinalSink::User, &class);
        let spaced = format!("  {}  ", content.to_uppercase().replace(' ', "   "));
        prop_assert_eq!(candidate_id(&content, FinalSink::User, &class), a.clone());
        prop_assert_eq!(candidate_id(&spaced, FinalSink::User, &class.to_uppercase()), a.clone());
        prop_assert!(a.starts_with("tcand_") && a.len() == 26);
    }

    #[test]
    fn session_filenames_are_safe(id in any::<String>()) {
        let n = session_filename(&id);
        prop_assert_eq!(session_filename(&id), n.clone());
        prop_assert!(!n.contains(['/', '\\', '\0']));
        prop_assert!(!n.starts_with(['.', '-', '_']));
        prop_assert!(n.is_ascii() && n.len() <= 98);
    }

    #[test]
    fn redaction_is_idempotent(prefix in ".{0,40}", secret in "[A-Za-z0-9]{8,24}", label in prop::sample::select(vec!["password: ", "token=", "密码：", "Authorization: Bearer ", "暗号是", "api_key = "])) {
        let text = format!("{prefix} {label}{secret}1x");
        let once = redact_text(&text);
        prop_assert_eq!(redact_text(&once), once.clone());
        let raw = format!("{}1x", secret);
        prop_assert!(!once.contains(&raw));
    }

    #[test]
    fn judging_is_total(user in ".{0,200}", assistant in ".{0,200}", name in prop::sample::select(vec!["memory", "patch", "write_file", "terminal", "skill_manage"]), args in ".{0,80}", result in ".{0,40}", completed in any::<bool>(), interrupted in any::<bool>()) {
        let turn = Turn {
            user,
            assistant,
            tool_calls: vec![ToolCall::new(name, json!(args), json!(result))],
            completed,
            interrupted,
        };
        let j = CLASSIFIER.judge(&turn);
        prop_assert!(!j.reasons.is_empty());
        if let Some(c) = j.candidate {
            prop_assert!(!c.content.trim().is_empty());
            prop_assert!((0.0..=1.0).contains(&c.confidence));
        }
    }

    #[test]
    fn timestamps_never_panic(s in ".{0,40}", secs in -10_000_000_000i64..10_000_000_000) {
        let _ = Timestamp::parse(&s);
        let t = Timestamp::from_unix(secs);
        prop_assert_eq!(Timestamp::parse(&t.to_utc_string()).ok(), Some(t));
    }
}

/// One event of any kind, for the all-kinds order-independence property.
#[derive(Clone, Debug)]
enum Any {
    /// A transition to `STATUSES[status]`.
    Transition {
        status: usize,
        receipt: u8,
        confirmed: bool,
        reason: bool,
    },
    /// A re-classification (confidence may be out of range: rejected).
    Classify { confidence: u8, risk: bool },
    /// A receipt recorded ahead of its transition.
    Receipt { merge: bool },
    /// A dry run.
    DryRun,
    /// A second creation of the candidate, or an invalid one (not pending).
    Create { pending: bool },
}

/// (candidate index — one past the last is an unknown candidate —, minutes
/// after base, UTC offset in quarter hours, what)
type AnyStep = (usize, i64, i32, Any);

fn any_kind() -> impl Strategy<Value = Any> {
    prop_oneof![
        4 => (0usize..7, 0u8..3, any::<bool>(), any::<bool>()).prop_map(|(status, receipt, confirmed, reason)| Any::Transition { status, receipt, confirmed, reason }),
        2 => (0u8..12, any::<bool>()).prop_map(|(confidence, risk)| Any::Classify { confidence, risk }),
        2 => any::<bool>().prop_map(|merge| Any::Receipt { merge }),
        1 => Just(Any::DryRun),
        1 => any::<bool>().prop_map(|pending| Any::Create { pending }),
    ]
}

/// A timestamp `minutes` after the base, written in a UTC offset of
/// `quarters` quarter hours (the instant is the same whatever the offset).
fn stamp(minutes: i64, quarters: i32) -> Timestamp {
    let secs = 1_780_000_000 + minutes * 60;
    let off = quarters * 15 * 60;
    let local = Timestamp::from_unix(secs + i64::from(off)).to_utc_string();
    let sign = if off < 0 { '-' } else { '+' };
    let a = off.abs();
    let text = format!(
        "{}{sign}{:02}:{:02}",
        local.trim_end_matches('Z'),
        a / 3600,
        (a / 60) % 60
    );
    let t = Timestamp::parse(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(t.unix_seconds(), secs);
    t
}

fn any_events(n: usize, steps: &[AnyStep]) -> Vec<CandidateEvent> {
    let mut out = Vec::new();
    let mut ids = Vec::new();
    for i in 0..n {
        let rec = CandidateRecord::new(
            &format!("Remember preference {i}"),
            FinalSink::User,
            "user-preference",
            Risk::Low,
            0.9,
        );
        ids.push(rec.candidate_id.clone());
        out.push(CandidateEvent::created(rec, stamp(i as i64, 0)));
    }
    ids.push("tcand_unknown0000000000".to_owned());
    for (k, (c, minutes, quarters, what)) in steps.iter().enumerate() {
        let id = &ids[c % ids.len()];
        let at = stamp(*minutes, *quarters);
        let at_s = at.to_utc_string();
        let e = match what {
            Any::Transition {
                status,
                receipt,
                confirmed,
                reason,
            } => {
                let to = STATUSES[status % STATUSES.len()];
                let receipt = match receipt {
                    1 => Some(Receipt::promotion(&at_s, "p", "user", &format!("m{k}"))),
                    2 => Some(Receipt::merge(&at_s, "p", "user", "m1")),
                    _ => None,
                };
                let reason = if *reason { "because" } else { "" };
                CandidateEvent::new(
                    id,
                    at,
                    EventKind::Transitioned {
                        to,
                        confirmed_by_user: *confirmed,
                    },
                    reason,
                    receipt,
                )
            }
            Any::Classify { confidence, risk } => CandidateEvent::new(
                id,
                at,
                EventKind::Classified {
                    classification: Some(format!("class-{k}")),
                    final_sink: None,
                    risk: risk.then_some(Risk::High),
                    confidence: Some(f64::from(*confidence) / 10.0),
                },
                "reclassified",
                None,
            ),
            Any::Receipt { merge } => {
                let r = if *merge {
                    Receipt::merge(&at_s, "p", "user", "m1")
                } else {
                    Receipt::promotion(&at_s, "p", "user", &format!("m{k}"))
                };
                CandidateEvent::new(id, at, EventKind::Receipt, "", Some(r))
            }
            Any::DryRun => CandidateEvent::new(id, at, EventKind::DryRun, "shown", None),
            Any::Create { pending } => {
                let mut rec = CandidateRecord::new(
                    &format!("Remember preference {}", c % ids.len()),
                    FinalSink::User,
                    "user-preference",
                    Risk::Medium,
                    0.5,
                );
                rec.candidate_id = id.clone();
                rec.evidence_summary = format!("again {k}");
                if !pending {
                    rec.status = CandidateStatus::Promoted;
                }
                CandidateEvent::created(rec, at)
            }
        };
        out.push(e);
    }
    out
}

fn shuffle<T>(v: &mut [T], seed: u64) {
    let mut x = seed | 1;
    for i in (1..v.len()).rev() {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let j = (x >> 33) as usize % (i + 1);
        v.swap(i, j);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The closure_ledger_fold fuzz property, over every event kind, mixed
    /// UTC offsets, equal instants, duplicate and invalid creations and
    /// events for a candidate that never appears: the materialized view is
    /// the same for any arrival order (events whose id repeats are kept
    /// out, as in the fuzz target: for those the first arrival wins).
    #[test]
    fn fold_of_every_event_kind_is_order_independent(
        n in 1usize..5,
        steps in proptest::collection::vec((0usize..6, -30i64..240, -20i32..=20, any_kind()), 0..40),
        seed in any::<u64>(),
    ) {
        let mut evs = any_events(n, &steps);
        // With repeated ids too, a batch equals applying one by one in the
        // same order (the first arrival of an id wins in both).
        let mut l = Ledger::new();
        let outcomes = l.apply_all(evs.clone());
        prop_assert_eq!(outcomes.len(), evs.len());
        let mut v: Vec<CandidateView> = l.views().cloned().collect();
        v.sort_by(|a, b| a.record.candidate_id.cmp(&b.record.candidate_id));
        prop_assert_eq!(&v, &fold(&evs));
        let mut seen = std::collections::HashMap::new();
        for e in &evs {
            *seen.entry(e.event_id.clone()).or_insert(0usize) += 1;
        }
        evs.retain(|e| seen[&e.event_id] == 1);
        let want = fold(&evs);
        // In time order every event after a creation takes the one-step
        // fast path; the other orders re-fold. Both must agree.
        let mut in_time_order = evs.clone();
        in_time_order.sort_by_key(|e| e.at);
        prop_assert_eq!(&fold(&in_time_order), &want);
        let mut shuffled = evs.clone();
        shuffle(&mut shuffled, seed);
        prop_assert_eq!(&fold(&shuffled), &want);
        let mut reversed = evs.clone();
        reversed.reverse();
        prop_assert_eq!(&fold(&reversed), &want);
        // As one batch, in any order.
        let mut l = Ledger::new();
        let outcomes = l.apply_all(shuffled.clone());
        prop_assert_eq!(outcomes.len(), shuffled.len());
        let mut v: Vec<CandidateView> = l.views().cloned().collect();
        v.sort_by(|a, b| a.record.candidate_id.cmp(&b.record.candidate_id));
        prop_assert_eq!(&v, &want);
        // Part one by one, the rest as a batch on the same ledger.
        let cut = (seed as usize) % (shuffled.len() + 1);
        let mut l = Ledger::new();
        for e in &shuffled[..cut] {
            l.apply(e.clone());
        }
        l.apply_all(shuffled[cut..].to_vec());
        let mut v: Vec<CandidateView> = l.views().cloned().collect();
        v.sort_by(|a, b| a.record.candidate_id.cmp(&b.record.candidate_id));
        prop_assert_eq!(&v, &want);
        // Through the JSON line form, as the bindings replay files.
        let mut l = Ledger::new();
        for e in &shuffled {
            l.apply_value(&e.to_value());
        }
        let mut v: Vec<CandidateView> = l.views().cloned().collect();
        v.sort_by(|a, b| a.record.candidate_id.cmp(&b.record.candidate_id));
        prop_assert_eq!(&v, &want);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    /// Hundreds of candidates and over a thousand events (several storage
    /// chunks): any arrival order still gives the same views.
    #[test]
    fn large_folds_are_order_independent(
        n in 200usize..400,
        steps in proptest::collection::vec((0usize..400, -30i64..2000, -8i32..=8, any_kind()), 600..1200),
        seed in any::<u64>(),
    ) {
        let mut evs = any_events(n, &steps);
        let mut seen = std::collections::HashMap::new();
        for e in &evs {
            *seen.entry(e.event_id.clone()).or_insert(0usize) += 1;
        }
        evs.retain(|e| seen[&e.event_id] == 1);
        let want = fold(&evs);
        let mut shuffled = evs.clone();
        shuffle(&mut shuffled, seed);
        prop_assert_eq!(fold(&shuffled), want.clone());
        let mut l = Ledger::new();
        l.apply_all(shuffled);
        let mut v: Vec<CandidateView> = l.views().cloned().collect();
        v.sort_by(|a, b| a.record.candidate_id.cmp(&b.record.candidate_id));
        prop_assert_eq!(v, want);
    }
}

fn json_leaf() -> impl Strategy<Value = serde_json::Value> {
    prop_oneof![
        Just(json!(null)),
        any::<bool>().prop_map(|b| json!(b)),
        any::<i64>().prop_map(|n| json!(n)),
        prop::sample::select(vec![
            "candidate.created",
            "candidate.promoted",
            "candidate.rejected",
            "candidate.classified",
            "candidate.receipt",
            "candidate.expired",
            "pending",
            "promoted",
            "rejected_noise",
            "2026-05-16T00:00:00Z",
            "2026-05-16T00:00:00",
            "user",
            "memory/day",
            "tcand_x",
            "promoted ",
        ])
        .prop_map(|s| json!(s)),
        ".{0,12}".prop_map(|s| json!(s)),
    ]
}

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    json_leaf().prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::Array),
            prop::collection::vec(
                (
                    prop::sample::select(vec![
                        "event_type",
                        "candidate_id",
                        "at",
                        "status",
                        "candidate",
                        "receipt",
                        "reason",
                        "content",
                        "final_sink",
                        "action",
                        "confirmed_by_user",
                        "details",
                        "risk",
                        "confidence",
                    ]),
                    inner,
                ),
                0..8,
            )
            .prop_map(|kv| serde_json::Value::Object(
                kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
            )),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn arbitrary_json_never_panics(values in prop::collection::vec(json_value(), 1..8)) {
        let mut l = Ledger::new();
        for v in &values {
            let _ = l.apply_value(v);
            let _ = CandidateRecord::from_value(v);
            let _ = Turn::from_json(v).map(|t| CLASSIFIER.judge(&t));
            let _ = palisade_closure::distill::candidates_from_model(v, "r", "s", "t");
        }
        let _ = l.pending_report(&Timestamp::from_unix(1_780_000_000), 86_400);
    }
}

#[test]
fn public_types_are_send_and_sync() {
    fn assert<T: Send + Sync>() {}
    assert::<Classifier>();
    assert::<Ledger>();
    assert::<palisade_closure::promote::Promoter>();
    assert::<palisade_closure::cues::CueSet>();
    assert::<CandidateEvent>();
}
