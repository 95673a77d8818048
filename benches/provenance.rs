//! Criterion benches for palisade-provenance against the budgets in DESIGN.md:
//! 1 MiB adversarial write ≤ 10 ms; 100 quoted claims vs 15 MB stored user
//! text ≤ 30 ms; a 2 KB write with 3 quoted claims vs 200 KB ≤ 50 µs; claim
//! detection at three sizes to show linear growth.
//!
//! Run: `cargo bench --bench provenance -- --warm-up-time 1 --measurement-time 3`.

// criterion_group!/criterion_main! generate undocumented public items.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use palisade::provenance::gate::{Gate, GateConfig, PreparedStored};
use palisade::provenance::said::{SaidIndex, SearchScope};
use palisade::provenance::{ClaimDetector, Scope};
use std::hint::black_box;

/// Ordinary memory lines, a few of them claims.
const LINES: &[&str] = &[
    "The repo uses pnpm workspaces and CI runs on GitHub Actions.",
    "User decided to ship on Friday (\"I decided we ship on Friday\").",
    "The user asked how to rotate the logs.",
    "用户决定使用Postgres作为事件存储。",
    "In the checkout flow the user chose express shipping.",
    "| User confirmed the order | checkout.js |",
    "The PM decided to postpone the release by a week.",
    "User prefers short answers with code first.",
];

fn realistic(size: usize) -> String {
    let mut s = String::with_capacity(size + 128);
    let mut i = 0;
    while s.len() < size {
        s.push_str(LINES[i % LINES.len()]);
        s.push('\n');
        i += 1;
    }
    s
}

/// Adversarial inputs of about `size` bytes.
fn adversarial(size: usize) -> Vec<(&'static str, String)> {
    let rep = |unit: &str| unit.repeat(size / unit.len() + 1);
    vec![
        ("subjects_no_punct", rep("the user the owner user ")),
        (
            "claims_one_sentence",
            rep("the user (Dana) already decided and "),
        ),
        (
            "quotes_everywhere",
            rep("\"user decided\" 'the user chose' "),
        ),
        ("cjk_subjects", rep("用户用户已经明确")),
        ("zero_width", rep("U\u{200B}ser de\u{200D}cided, ")),
        ("sentences", rep("User decided X. ")),
        ("named_sentences", rep("Dana decided X. ")),
        ("second_verbs", rep("the user reviewed it and ")),
        // A contrast starts a new clause: one sentence of many clauses.
        ("contrasts", rep("the user decided but ")),
        // Candidates the line rules exempt, up to the candidate limit.
        ("exempt_lines", rep("user: approved\n")),
        // Issue 19's forms: code-switched subjects and verbs, Chinese
        // agentless frames, labels at a line start, hedged claims.
        ("code_switched", rep("用户 approved 了 owner 同意了 ")),
        ("zh_frames", rep("按用户的要求得到老板首肯")),
        ("labels", rep("Owner: use X\n")),
        ("hedges", rep("I think the user approved it, ")),
    ]
}

fn bench_detect(c: &mut Criterion) {
    let det = ClaimDetector::new(Scope::Decisions);
    let mut g = c.benchmark_group("provenance/detect");
    for size in [16 * 1024, 128 * 1024, 1024 * 1024] {
        let text = realistic(size);
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_with_input(BenchmarkId::new("realistic", size), &text, |b, t| {
            b.iter(|| black_box(det.detect(t)).len())
        });
    }
    for (name, text) in adversarial(1024 * 1024) {
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_with_input(BenchmarkId::new("adversarial_1MiB", name), &text, |b, t| {
            b.iter(|| black_box(det.detect(t)).len())
        });
    }
    g.finish();
}

/// `n` bytes of user messages; message `i` says "we ship release {i} on friday".
fn said_store(bytes: usize) -> (SaidIndex, usize) {
    let mut said = SaidIndex::new();
    let filler =
        "can you look at the logs for me and tell me why the build keeps failing on arm64 ";
    let mut total = 0;
    let mut i = 0;
    while total < bytes {
        let msg = format!("{filler}. I decided we ship release {i} on friday after the review");
        total += msg.len() + 1;
        said.push(if i % 2 == 0 { "s1" } else { "s0" }, None, "u1", &msg);
        i += 1;
    }
    (said, i)
}

fn quoted_write(claims: usize, messages: usize) -> String {
    (0..claims)
        .map(|k| {
            let i = (k * 7919) % messages;
            format!("User decided to ship release {i} on friday (\"I decided we ship release {i} on friday\").\n")
        })
        .collect()
}

fn bench_gate(c: &mut Criterion) {
    let gate = Gate::new(GateConfig {
        scope: Scope::Decisions,
        search: SearchScope::Profile,
    });
    let mut g = c.benchmark_group("provenance/check");
    for (label, store_bytes, claims) in [
        ("3_claims_vs_200KB", 200 * 1024, 3usize),
        ("100_claims_vs_1.5MB", 1_500_000, 100),
        ("100_claims_vs_15MB", 15_000_000, 100),
    ] {
        let (said, n) = said_store(store_bytes);
        let mut write = quoted_write(claims, n);
        if claims == 3 {
            // Pad to about 2 KB of ordinary text.
            while write.len() < 2048 {
                write.push_str("The repo uses pnpm workspaces. ");
            }
        }
        let report = gate.check(&write, &said, "s1", None);
        assert!(
            report.is_pass(),
            "bench input must pass: {:?}",
            report.reason
        );
        g.throughput(Throughput::Bytes(write.len() as u64));
        g.bench_function(label, |b| {
            b.iter(|| {
                black_box(gate.check(black_box(&write), &said, "s1", None))
                    .claims
                    .len()
            })
        });
    }
    let (said, _) = said_store(200 * 1024);
    // A patch against a 200 KB stored skill file: the stored text prepared
    // per call (Gate::check) and once (Gate::check_prepared, what a host
    // with a StoredCache does).
    let stored_file = realistic(200 * 1024);
    let patch =
        "User decided to ship release 7 on friday (\"I decided we ship release 7 on friday\").";
    let prepared = PreparedStored::new(&stored_file);
    g.bench_function("patch_vs_200KB_stored/check", |b| {
        b.iter(|| {
            black_box(gate.check(patch, &said, "s1", Some(&stored_file)))
                .claims
                .len()
        })
    });
    g.bench_function("patch_vs_200KB_stored/check_prepared", |b| {
        b.iter(|| {
            black_box(gate.check_prepared(patch, &said, "s1", Some(&prepared)))
                .claims
                .len()
        })
    });
    for (name, adv) in adversarial(1024 * 1024) {
        g.throughput(Throughput::Bytes(adv.len() as u64));
        g.bench_with_input(
            BenchmarkId::new("adversarial_1MiB_write", name),
            &adv,
            |b, t| b.iter(|| black_box(gate.check(t, &said, "s1", None)).claims.len()),
        );
    }
    g.finish();
}

criterion_group!(benches, bench_detect, bench_gate);
criterion_main!(benches);
