//! Criterion benches for the egress table rules (small-cell suppression with
//! its audit, rounding, microdata) against the budgets in DESIGN.md:
//! small Markdown table ≤ 20 µs, 800-row CSV (29 KB) ≤ 1 ms, worst case
//! ~1 MB with ≈ 400k small cells ≤ 200 ms including the audit.
//!
//! Run with `cargo bench --bench egress_table`.

// criterion_group!/criterion_main! generate undocumented public items.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use palisade::egress::table::{scan, Method, TableOptions};
use std::hint::black_box;

/// The seed's demo shape: a small cross-tab with both margins.
fn small_markdown() -> String {
    "| Town | A | B | C | Total |\n|---|---|---|---|---|\n\
| Peace Valley | 7 | 0 | 3 | 10 |\n| Hill | 8 | 12 | 9 | 29 |\n| Lake | 20 | 15 | 29 | 64 |\n\
| Total | 35 | 27 | 41 | 103 |\n"
        .to_string()
}

/// A deterministic pseudo-random count: small with probability ~1/4.
fn count(state: &mut u64) -> u64 {
    *state = state
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    let x = (*state >> 33) % 100;
    if x < 25 {
        1 + x % 4
    } else {
        5 + x % 60
    }
}

/// An aggregate CSV: `rows` detail rows, `cols` count columns, a total
/// column and a total row.
fn aggregate_csv(rows: usize, cols: usize, mut next: impl FnMut() -> u64) -> String {
    let mut out = String::from("area");
    for c in 0..cols {
        out.push_str(&format!(",c{c}"));
    }
    out.push_str(",total\n");
    let mut totals = vec![0u64; cols + 1];
    for r in 0..rows {
        out.push_str(&format!("a{r}"));
        let mut sum = 0;
        for t in totals.iter_mut().take(cols) {
            let v = next();
            sum += v;
            *t += v;
            out.push_str(&format!(",{v}"));
        }
        totals[cols] += sum;
        out.push_str(&format!(",{sum}\n"));
    }
    out.push_str("Total");
    for t in totals {
        out.push_str(&format!(",{t}"));
    }
    out.push('\n');
    out
}

/// 800 synthetic records with an ID column (microdata), ≈ 29 KB.
fn records_800() -> String {
    let mut out = String::from("record_id,age,sex,region,postcode,visits,diagnosis\n");
    let mut s = 7u64;
    for i in 0..800 {
        let v = count(&mut s);
        out.push_str(&format!(
            "R{i:05},{},{},Region {},AB{} {}CD,{},J{:02}\n",
            18 + v % 70,
            if v % 2 == 0 { "F" } else { "M" },
            v % 7,
            v % 9,
            v % 8,
            v % 6,
            v % 40
        ));
    }
    out
}

fn bench(c: &mut Criterion) {
    let opts = TableOptions::default();
    let mut g = c.benchmark_group("egress_table");

    let small = small_markdown();
    g.throughput(Throughput::Bytes(small.len() as u64));
    g.bench_function("small_markdown", |b| {
        b.iter(|| scan(black_box(&small), &opts))
    });

    // Three sizes of aggregate CSV with ~25% small cells, audit included.
    for rows in [100usize, 800, 8000] {
        let mut s = 1u64;
        let text = aggregate_csv(rows, 4, || count(&mut s));
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_with_input(
            BenchmarkId::new("aggregate_csv_rows", rows),
            &text,
            |b, t| b.iter(|| scan(black_box(t), &opts)),
        );
    }

    let records = records_800();
    g.throughput(Throughput::Bytes(records.len() as u64));
    g.bench_function("records_800_csv", |b| {
        b.iter(|| scan(black_box(&records), &opts))
    });

    let round = TableOptions {
        method: Method::Round,
        ..TableOptions::default()
    };
    let mut s = 3u64;
    let rounding = aggregate_csv(800, 4, || count(&mut s));
    g.throughput(Throughput::Bytes(rounding.len() as u64));
    g.bench_function("round_800_rows", |b| {
        b.iter(|| scan(black_box(&rounding), &round))
    });

    // Adversarial: every cell small (1..4) with both margins, so every cell
    // is a primary and the audit has to certify all of them. Three sizes up
    // to ≈ 400k cells in ≈ 1 MB.
    g.sample_size(10);
    for (rows, cols) in [(100usize, 100usize), (500, 200), (2000, 200)] {
        let mut s = 11u64;
        let text = aggregate_csv(rows, cols, || {
            s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            1 + (s >> 60) % 4
        });
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_with_input(
            BenchmarkId::new("all_small_cells", rows * cols),
            &text,
            |b, t| b.iter(|| scan(black_box(t), &opts)),
        );
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
