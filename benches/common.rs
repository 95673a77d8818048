//! Criterion benches for palisade-common's text machinery.
//!
//! `cargo bench --bench common --no-default-features -- --warm-up-time 1 --measurement-time 3`
//!
//! Groups: `normalize` (ASCII prose, ASCII Markdown, already-NFKC CJK/mixed
//! prose, CJK prose with full-width punctuation, a mixed corpus with
//! full-width letters, zero-width characters and emphasis, Hindi, and four
//! adversarial inputs) at 16 KiB / 128 KiB / 1 MiB, and
//! `text` (sentences, logical lines, quoted spans, content tokens, negation)
//! on mixed prose at the same sizes plus adversarial 1 MiB inputs.

// criterion_group!/criterion_main! generate undocumented public items.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use palisade_common::negation::{contains_negation, negation_before};
use palisade_common::normalize::normalize;
use palisade_common::quotes::quoted_spans;
use palisade_common::text::{logical_lines, sentences};
use palisade_common::tokens::content_tokens;

const SIZES_KIB: [usize; 3] = [16, 128, 1024];

/// Repeat `units` in turn until the text is at least `kib` KiB long.
fn fill(kib: usize, units: &[&str]) -> String {
    let mut s = String::with_capacity(kib * 1024 + 256);
    let mut k = 0;
    while s.len() < kib * 1024 {
        s.push_str(units[k % units.len()]);
        k += 1;
    }
    s
}

const ASCII_PROSE: &[&str] = &[
    "The user decided we ship on Friday, after the release notes are reviewed. ",
    "Run cargo test --workspace before merging; CI must stay green.\n",
    "She said \"don't deploy on weekends\" and everyone agreed (mostly). ",
    "Version 2.0 adds retries, e.g. for HTTP 503 responses - see docs/retry.md.\n\n",
    "Never delete the prod database without asking me first! Why would we? ",
];

const ASCII_MARKDOWN: &[&str] = &[
    "The **user** decided we ship on Friday, after the release notes are reviewed. ",
    "Run `cargo test --workspace` before merging; __CI__ must stay green.\n",
    "- She said \"don't deploy on weekends\" and *everyone* agreed.\n",
    "Call snake_case_name() or __init__ only when needed.\n\n",
];

const CJK_MIXED: &[&str] = &[
    "用户决定使用 Postgres 作为主数据库，并在周五上线。",
    "以后不要再自动提交代码，除非我明确同意。",
    "The user said 「以后不要自动提交」 yesterday. ",
    "我们讨论了缓存策略：先用 Redis，再评估别的方案。\n",
    "ユーザーは金曜日にリリースすると決めました。",
    "사용자가 금요일에 배포하기로 결정했습니다. ",
];

/// Already NFKC: no full-width punctuation, no compatibility characters.
const CJK_NFKC: &[&str] = &[
    "用户决定使用 Postgres 作为主数据库、并在周五上线。",
    "以后不要再自动提交代码, 除非我明确同意。",
    "The user said 「以后不要自动提交」 yesterday. ",
    "我们讨论了缓存策略: 先用 Redis、再评估别的方案。\n",
    "ユーザーは金曜日にリリースすると決めました。",
    "사용자가 금요일에 배포하기로 결정했습니다. ",
];

const MIXED_CORPUS: &[&str] = &[
    "The **user** decided we ship on Friday (\"I decided we ship on Friday\"). 用户决定使用 Postgres。 Ｆｕｌｌ-width and zero\u{200B}width. ",
];

fn normalize_group(c: &mut Criterion) {
    let mut group = c.benchmark_group("normalize");
    let inputs: &[(&str, &[&str])] = &[
        ("ascii-prose", ASCII_PROSE),
        ("ascii-markdown", ASCII_MARKDOWN),
        ("cjk-nfkc", CJK_NFKC),
        // Real Chinese prose: full-width punctuation that NFKC rewrites.
        ("cjk-fullwidth-punct", CJK_MIXED),
        ("mixed-corpus", MIXED_CORPUS),
        // Prose in a script outside the fast tables (Devanagari with nukta).
        (
            "hindi",
            &[
                "उपयोगकर्ता ने शुक्रवार को रिलीज़ करने का निर्णय लिया। ",
                "क़ानून और ज़रूरत ",
            ],
        ),
        // Adversarial: every other character is removed or rewritten.
        (
            "adv-zero-width",
            &["a\u{200B}", "b\u{200D}", "c\u{FEFF}", " \u{00AD}"],
        ),
        ("adv-full-width", &["aＡ", "bＢ", "1１", " ！"]),
        // Stacked combining marks: every chunk goes through NFKC.
        (
            "adv-zalgo",
            &[
                "a\u{0301}\u{0316}\u{0342}\u{0353}",
                "e\u{0300}\u{0323}",
                " ",
            ],
        ),
        // Removing the invisible makes the mark compose: forces a second pass.
        ("adv-compose", &["e\u{200B}\u{0301}", "a**\u{0308}", " "]),
    ];
    for (name, units) in inputs {
        for kib in SIZES_KIB {
            let text = fill(kib, units);
            group.throughput(Throughput::Bytes(text.len() as u64));
            group.bench_with_input(BenchmarkId::new(*name, kib), &text, |b, t| {
                b.iter(|| normalize(t))
            });
        }
    }
    group.finish();
}

fn text_group(c: &mut Criterion) {
    let mut group = c.benchmark_group("text");
    let prose: &[&str] = &[
        ASCII_PROSE[0],
        CJK_MIXED[0],
        ASCII_PROSE[2],
        CJK_MIXED[2],
        ASCII_PROSE[3],
        CJK_MIXED[1],
    ];
    for kib in SIZES_KIB {
        let text = fill(kib, prose);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::new("sentences", kib), &text, |b, t| {
            b.iter(|| sentences(t))
        });
        group.bench_with_input(BenchmarkId::new("logical_lines", kib), &text, |b, t| {
            b.iter(|| logical_lines(t))
        });
        group.bench_with_input(BenchmarkId::new("quoted_spans", kib), &text, |b, t| {
            b.iter(|| quoted_spans(t))
        });
        group.bench_with_input(BenchmarkId::new("content_tokens", kib), &text, |b, t| {
            b.iter(|| content_tokens(t))
        });
        group.bench_with_input(BenchmarkId::new("contains_negation", kib), &text, |b, t| {
            b.iter(|| contains_negation(t))
        });
    }
    // Adversarial 1 MiB inputs.
    let adversarial: &[(&str, String)] = &[
        // Single-quote openers that each reach the same far closer but hold one word.
        ("quoted_spans/unclosed-single", fill(1024, &["-'a"]) + "' "),
        ("quoted_spans/unclosed-double", fill(1024, &["\"a "])),
        (
            "sentences/abbreviations",
            fill(1024, &["e.g. Dr. vs. ", "x. "]),
        ),
        ("sentences/one-line-no-end", fill(1024, &["word, "])),
        (
            "logical_lines/wrapped",
            fill(1024, &["ask the user\n  ", "x\n"]),
        ),
        ("content_tokens/one-long-word", "x".repeat(1 << 20)),
    ];
    group.throughput(Throughput::Bytes(1 << 20));
    for (name, text) in adversarial {
        let (func, _) = name.split_once('/').unwrap_or((name, ""));
        group.bench_function(*name, |b| match func {
            "quoted_spans" => b.iter(|| quoted_spans(text)),
            "sentences" => b.iter(|| sentences(text)),
            "logical_lines" => b.iter(|| logical_lines(text)),
            _ => b.iter(|| content_tokens(text)),
        });
    }
    // negation_before with the cue window limits but nothing to stop on.
    let punct = "!".repeat(1 << 20);
    group.bench_function("negation_before/punctuation", |b| {
        b.iter(|| negation_before(&punct, punct.len(), 12, 6))
    });
    group.finish();
}

criterion_group!(benches, normalize_group, text_group);
criterion_main!(benches);
