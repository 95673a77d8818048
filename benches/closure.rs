//! Criterion benches for palisade-closure against the budgets in DESIGN.md:
//! one turn judgment ≤ 20 µs; folding 100 000 ledger events ≤ 50 ms, linear.
//! The adversarial ledger orders are measured both one event at a time
//! (`Ledger::apply`) and as one batch (`Ledger::apply_all`).
//!
//! `cargo bench --bench closure -- --warm-up-time 1 --measurement-time 3`

// criterion_group!/criterion_main! generate undocumented public items.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use palisade_closure::classify::{Classifier, Turn};
use palisade_closure::detect::ToolCall;
use palisade_closure::ledger::{CandidateEvent, EventKind, Ledger};
use palisade_closure::redact::redact_text;
use palisade_closure::schema::{CandidateRecord, CandidateStatus, FinalSink, Receipt, Risk};
use palisade_closure::time::Timestamp;
use serde_json::json;

fn typical_turns() -> Vec<(&'static str, Turn)> {
    let mut outcome = Turn::new(
        "Why does the nightly build fail on the arm64 runner? Please look into it.",
        "The root cause was a stale Docker layer cache on the arm64 runner. I pinned the base image digest, rebuilt, and verified the pipeline is green.",
    );
    outcome.tool_calls = vec![
        ToolCall::new(
            "terminal",
            json!({"command": "docker build --platform linux/arm64 ."}),
            json!("exit 0"),
        ),
        ToolCall::new(
            "read_file",
            json!({"path": "Dockerfile"}),
            json!("FROM rust:1.85"),
        ),
        ToolCall::new(
            "patch",
            json!({"path": "Dockerfile", "old_string": "a", "new_string": "b"}),
            json!({"success": true}),
        ),
    ];
    let mut written = Turn::new("Remember that I prefer tea.", "Saved to memory.");
    written.tool_calls = vec![ToolCall::new(
        "memory",
        json!({"action": "add", "target": "user", "content": "User prefers tea"}),
        json!("{\"success\": true}"),
    )];
    vec![
        ("preference_en", Turn::new("From now on, please write commit messages in the imperative mood and keep them under 72 characters.", "Understood, I will.")),
        ("boundary_zh", Turn::new("以后不要直接推送到 main 分支，先开 PR 给我审核。", "明白，以后先开 PR。")),
        ("routine", Turn::new("What's the difference between a mutex and a semaphore?", "A mutex allows one holder at a time; a semaphore allows up to N holders.")),
        ("boundary_es_quoted", Turn::new("Redáctame un correo para «Gestoría Ruiz». Y nunca pongas mi DNI en los correos que me redactes.", "Aquí tienes el borrador, sin tu DNI.")),
        ("conditional_ja", Turn::new("もし今後私が「全部消して」と言っても、写真フォルダだけは消さないで。覚えておいて。", "承知しました。")),
        ("outcome_tools", outcome),
        ("retained", written),
    ]
}

fn judge(c: &mut Criterion) {
    let classifier = Classifier::new();
    let mut group = c.benchmark_group("closure/judge");
    for (name, turn) in typical_turns() {
        group.bench_function(BenchmarkId::new("typical", name), |b| {
            b.iter(|| classifier.judge(&turn))
        });
    }
    // Three sizes of user text plus adversarial inputs.
    let unit = "We talked about the release and the staging environment today. ";
    for size in [256usize, 4 * 1024, 32 * 1024] {
        let mut user = String::new();
        while user.len() < size {
            user.push_str(unit);
        }
        user.push_str("From now on, always run the linter.");
        let turn = Turn::new(user.clone(), "ok");
        group.throughput(Throughput::Bytes(user.len() as u64));
        group.bench_with_input(BenchmarkId::new("user_bytes", size), &turn, |b, t| {
            b.iter(|| classifier.judge(t))
        });
    }
    let adversarial = [
        ("dont_storm", "don't ".repeat(6000)),
        ("no_sentence_breaks", "remember ".repeat(4000)),
        ("secret_labels", "password: x1 token=y2 ".repeat(1500)),
        ("cjk_run", "以后不要记住".repeat(5000)),
    ];
    for (name, user) in adversarial {
        let turn = Turn::new(user.clone(), "ok");
        group.throughput(Throughput::Bytes(user.len() as u64));
        group.bench_with_input(BenchmarkId::new("adversarial", name), &turn, |b, t| {
            b.iter(|| classifier.judge(t))
        });
    }
    group.finish();
}

/// `n` events over n/4 candidates: created, classified, a receipt, a promotion.
fn ledger_events(n: usize) -> Vec<CandidateEvent> {
    let base = 1_780_000_000i64;
    let mut out = Vec::with_capacity(n);
    let candidates = n.div_ceil(4);
    for i in 0..candidates {
        let rec = CandidateRecord::new(
            &format!("Remember preference number {i}"),
            FinalSink::User,
            "user-preference",
            Risk::Low,
            0.9,
        );
        let id = rec.candidate_id.clone();
        let t = base + i as i64 * 10;
        out.push(CandidateEvent::created(rec, Timestamp::from_unix(t)));
        out.push(CandidateEvent::new(
            &id,
            Timestamp::from_unix(t + 1),
            EventKind::Classified {
                classification: None,
                final_sink: None,
                risk: Some(Risk::Low),
                confidence: Some(0.91),
            },
            "reviewed",
            None,
        ));
        out.push(CandidateEvent::new(
            &id,
            Timestamp::from_unix(t + 2),
            EventKind::Receipt,
            "",
            Some(Receipt::promotion(
                "t",
                "writer",
                "user",
                &format!("mem-{i}"),
            )),
        ));
        out.push(CandidateEvent::new(
            &id,
            Timestamp::from_unix(t + 3),
            EventKind::Transitioned {
                to: CandidateStatus::Promoted,
                confirmed_by_user: false,
            },
            "promoted",
            None,
        ));
    }
    out.truncate(n);
    out
}

/// `n` events in candidates of 250 (the creation, then 249
/// re-classifications a minute apart), each candidate's history arriving
/// newest first after its creation: every event sorts before all the ones
/// already there, the worst order for one-by-one folding.
fn reversed_histories(n: usize) -> Vec<CandidateEvent> {
    const PER: usize = 250;
    let mut out = Vec::with_capacity(n);
    for c in 0..n.div_ceil(PER) {
        let rec = CandidateRecord::new(
            &format!("Remember preference number {c}"),
            FinalSink::User,
            "user-preference",
            Risk::Low,
            0.9,
        );
        let id = rec.candidate_id.clone();
        let t = 1_780_000_000i64 + c as i64;
        out.push(CandidateEvent::created(rec, Timestamp::from_unix(t)));
        for k in (1..PER).rev() {
            out.push(CandidateEvent::new(
                &id,
                Timestamp::from_unix(t + k as i64 * 60),
                EventKind::Classified {
                    classification: None,
                    final_sink: None,
                    risk: Some(Risk::Low),
                    confidence: Some(0.5),
                },
                &format!("review {k}"),
                None,
            ));
        }
    }
    out.truncate(n);
    out
}

fn fold_one_by_one(evs: Vec<CandidateEvent>) -> Ledger {
    let mut l = Ledger::new();
    for e in evs {
        l.apply(e);
    }
    l
}

fn fold_batch(evs: Vec<CandidateEvent>) -> Ledger {
    let mut l = Ledger::new();
    l.apply_all(evs);
    l
}

fn ledger(c: &mut Criterion) {
    let mut group = c.benchmark_group("closure/ledger_fold");
    group.sample_size(10);
    for n in [1_000usize, 10_000, 100_000] {
        let evs = ledger_events(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("in_order", n), &evs, |b, evs| {
            b.iter_batched(
                || evs.clone(),
                fold_one_by_one,
                criterion::BatchSize::LargeInput,
            )
        });
    }
    // Adversarial orders, one by one and as one batch.
    let mut per_candidate = ledger_events(100_000);
    for chunk in per_candidate.chunks_mut(4) {
        chunk.reverse();
    }
    let cases = [
        ("reversed_per_candidate", per_candidate),
        ("reversed_histories", reversed_histories(100_000)),
    ];
    for (name, evs) in cases {
        group.throughput(Throughput::Elements(evs.len() as u64));
        group.bench_with_input(BenchmarkId::new(name, 100_000), &evs, |b, evs| {
            b.iter_batched(
                || evs.clone(),
                fold_one_by_one,
                criterion::BatchSize::LargeInput,
            )
        });
        group.bench_with_input(
            BenchmarkId::new(format!("{name}_apply_all"), 100_000),
            &evs,
            |b, evs| b.iter_batched(|| evs.clone(), fold_batch, criterion::BatchSize::LargeInput),
        );
    }
    group.finish();
}

fn redact(c: &mut Criterion) {
    let mut group = c.benchmark_group("closure/redact");
    let unit = "The deploy uses password: hunter2x and Authorization: Bearer abcdefghijklmnop1234; otherwise prose. ";
    for kib in [1usize, 16, 128] {
        let mut text = String::new();
        while text.len() < kib * 1024 {
            text.push_str(unit);
        }
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::new("text", kib), &text, |b, t| {
            b.iter(|| redact_text(t))
        });
    }
    group.finish();
}

criterion_group!(benches, judge, ledger, redact);
criterion_main!(benches);
