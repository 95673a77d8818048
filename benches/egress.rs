//! Criterion benches for palisade-egress against the budgets in DESIGN.md.
//! Placeholder until the guard lands; run with `cargo bench --bench egress`.

// criterion_group!/criterion_main! generate undocumented public items.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};

fn placeholder(c: &mut Criterion) {
    c.bench_function("egress/placeholder", |b| {
        b.iter(|| std::hint::black_box(1 + 1))
    });
}

criterion_group!(benches, placeholder);
criterion_main!(benches);
