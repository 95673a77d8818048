//! What the secret scanner costs to start and to run on clean text, per
//! keyword-automaton kind.
//!
//! `cargo bench -p palisade-secrets --bench prefilter -- --warm-up-time 1 --measurement-time 3`
//!
//! The contiguous NFA is what a short-lived process (a hook, one `check`
//! line) walks: it is cheap to build. The DFA is faster to walk and is built
//! once a process has scanned enough text to pay for it.

// criterion_group!/criterion_main! generate undocumented public items.
#![allow(missing_docs)]

use aho_corasick::automaton::Automaton;
use aho_corasick::nfa::contiguous;
use aho_corasick::{dfa, MatchKind};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use palisade_common::automaton::walk;
use palisade_secrets::{builtin_specs, SecretScanner};
use std::hint::black_box;

fn keywords() -> Vec<String> {
    let mut kws: Vec<String> = builtin_specs()
        .unwrap_or_default()
        .into_iter()
        .flat_map(|s| s.keywords)
        .map(|k| k.to_ascii_lowercase())
        .collect();
    kws.sort();
    kws.dedup();
    kws
}

/// Ordinary agent traffic with no credentials: prose, code, logs, Chinese.
fn clean_text(size: usize) -> String {
    let unit = "The export finished in 42 seconds and wrote 1,204 rows to results.csv. \
        def load(path):\n    with open(path) as f:\n        return json.load(f)\n\
        2026-11-30T10:00:00Z INFO request_id=123e4567-e89b-42d3-a456-426614174000 status=200 bytes=5120\n\
        commit 9fceb02d0ae598e95dc970b74767f19372d61af8 Merge pull request #42 from org/feature\n\
        数据已经保存，下一步是生成报告。Next we compare the cohorts by region and age band.\n";
    let mut s = String::with_capacity(size + unit.len());
    while s.len() < size {
        s.push_str(unit);
    }
    s
}

fn count<A: Automaton>(a: &A, text: &[u8], max: usize) -> usize {
    let mut n = 0;
    let _ = walk(a, text, max, |_, _| n += 1);
    n
}

fn build(c: &mut Criterion) {
    let kws = keywords();
    let mut group = c.benchmark_group("secrets/prefilter_build");
    group.bench_function("contiguous_nfa", |b| {
        b.iter(|| {
            contiguous::Builder::new()
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::Standard)
                .build(black_box(&kws))
        })
    });
    group.bench_function("dfa", |b| {
        b.iter(|| {
            dfa::Builder::new()
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::Standard)
                .build(black_box(&kws))
        })
    });
    group.bench_function("builtin_specs", |b| b.iter(builtin_specs));
    group.finish();
}

fn walk_clean(c: &mut Criterion) {
    let kws = keywords();
    let max = kws.iter().map(String::len).max().unwrap_or(0);
    let text = clean_text(1 << 20);
    let (Ok(nfa), Ok(d)) = (
        contiguous::Builder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&kws),
        dfa::Builder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&kws),
    ) else {
        return;
    };
    let mut group = c.benchmark_group("secrets/prefilter_walk_1MiB");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("contiguous_nfa", |b| {
        b.iter(|| count(&nfa, black_box(text.as_bytes()), max))
    });
    group.bench_function("dfa", |b| {
        b.iter(|| count(&d, black_box(text.as_bytes()), max))
    });
    let scanner = SecretScanner::builtin();
    group.bench_function("scan", |b| b.iter(|| scanner.scan(black_box(&text))));
    group.finish();
}

criterion_group!(benches, build, walk_clean);
criterion_main!(benches);
