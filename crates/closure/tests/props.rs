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
        let receipt = with_receipt.then(|| match to {
            CandidateStatus::Merged => Receipt::merge("t", "p", "user", "m1"),
            _ => Receipt::promotion("t", "p", "user", &format!("m{minutes}")),
        });
        let reason = if reason { "because" } else { "" };
        let kind = if s == 99 {
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
        0usize..7,
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
