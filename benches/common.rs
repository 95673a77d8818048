//! Criterion benches for palisade-common's text machinery.
//!
//! `cargo bench --bench common`

// criterion_group!/criterion_main! generate undocumented public items.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use palisade_common::{normalize::normalize, quotes::quoted_spans, text::sentences};

fn corpus(kib: usize) -> String {
    let unit = "The **user** decided we ship on Friday (\"I decided we ship on Friday\"). 用户决定使用 Postgres。 Ｆｕｌｌ-width and zero\u{200B}width. ";
    let mut s = String::new();
    while s.len() < kib * 1024 {
        s.push_str(unit);
    }
    s
}

fn text_machinery(c: &mut Criterion) {
    let mut group = c.benchmark_group("common");
    for kib in [16usize, 128, 1024] {
        let text = corpus(kib);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::new("normalize", kib), &text, |b, t| {
            b.iter(|| normalize(t))
        });
        group.bench_with_input(BenchmarkId::new("sentences", kib), &text, |b, t| {
            b.iter(|| sentences(t))
        });
        group.bench_with_input(BenchmarkId::new("quoted_spans", kib), &text, |b, t| {
            b.iter(|| quoted_spans(t))
        });
    }
    let ascii = "plain ascii text without anything special in it. ".repeat(20_000);
    group.throughput(Throughput::Bytes(ascii.len() as u64));
    group.bench_function("normalize/ascii-1MB", |b| b.iter(|| normalize(&ascii)));
    group.finish();
}

criterion_group!(benches, text_machinery);
criterion_main!(benches);
