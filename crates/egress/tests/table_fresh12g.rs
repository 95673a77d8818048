//! The twelfth round's table corpus (`testdata/table_fresh12g.jsonl`, writer
//! G, who read only the seed, the issue and the schema): 64 texts, 24
//! aggregate tables, 11 record-level tables and 29 other tables (timings,
//! prices, settings, standings, stock, weather …) that must pass unchanged.
//! The writer's exact LP audit (scipy MILP) is kept outside the repo.
//!
//! First sight on main d11c3d3, under that audit: aggregate 20/24 pass,
//! microdata 4/11 flagged, other tables 12/29 unchanged; hidden data cells
//! 0.84× the writer's reference, hidden totals 15 against 15. After round
//! 12 (measure headers for quantities of things; direct-identifier headers
//! in 15 languages; machines' IPs and role mailboxes are no people):
//! microdata 9/11 flagged, other tables 20/29 unchanged, aggregates as at
//! first sight (20/24).
//!
//! This test holds that baseline: every aggregate keeps its audit (no
//! primary below its width, a second pass hides nothing more) except the
//! tables not yet read as tables, every other table not listed passes
//! unchanged and unflagged, and the record-level tables not listed are
//! flagged. The lists are the known misses, by class.

#![allow(missing_docs)] // integration test crate
#![allow(clippy::unwrap_used, clippy::expect_used)]

use palisade_egress::table::{scan, HideReason, TableOptions};
use serde_json::Value;

/// Record-level tables not yet flagged: a whitespace-aligned listing of
/// users and IPs and a header-less sqlite listing with dates of birth (not
/// read as tables with headers).
const MICRODATA_MISSES: &[&str] = &[
    "g-en-aligned-ip-username-table",
    "g-fr-sqlite-eleves-date-naissance",
];

/// Other tables still changed or flagged: counts of things under headers
/// no measure word names (stock from a header-less sqlite listing, CI
/// jobs, diff lines, a chess cross table, a maximum next to a median,
/// pg_stat rows, a flags CSV). Round 12i's league tables and severity
/// scales took the standings and the npm audit counts off this list.
const OTHER_MISSES: &[&str] = &[
    "g-en-psql-pg-stat-statements",
    "g-en-sqlite-stock-levels",
    "g-en-ci-version-matrix",
    "g-en-code-review-diffstat",
    "g-en-clinic-means-medians",
    "g-ru-shahmatnyi-turnir",
    "g-en-cat-n-feature-flags-csv",
];

#[test]
fn fresh12g_corpus_holds_its_baseline() {
    let mut failures = Vec::new();
    let (mut agg, mut micro, mut other) = (0, 0, 0);
    for line in include_str!("../testdata/table_fresh12g.jsonl")
        .lines()
        .filter(|l| !l.trim().is_empty())
    {
        let case: Value = serde_json::from_str(line).unwrap();
        let name = case["name"].as_str().unwrap();
        let text = case["input"]["text"].as_str().unwrap();
        let mut o = TableOptions::default();
        if let Some(t) = case["input"]["threshold"].as_u64() {
            o.threshold = t;
        }
        let r = scan(text, &o);
        match case["kind"].as_str().unwrap() {
            "microdata" => {
                micro += 1;
                if !r.microdata() && !MICRODATA_MISSES.contains(&name) {
                    failures.push(format!("{name}: record-level table not flagged"));
                }
            }
            "none" => {
                other += 1;
                if !OTHER_MISSES.contains(&name) && (r.microdata() || r.text != text) {
                    failures.push(format!("{name}: changed or flagged"));
                }
            }
            _ => {
                agg += 1;
                for t in &r.tables {
                    for h in &t.hidden {
                        if h.reason == HideReason::Primary && !h.full_width {
                            failures.push(format!(
                                "{name}: primary {:?} below its width",
                                (h.row, h.column)
                            ));
                        }
                    }
                }
                if scan(&r.text, &o).text != r.text {
                    failures.push(format!("{name}: a second pass hides more"));
                }
            }
        }
    }
    assert_eq!((agg, micro, other), (24, 11, 29), "corpus changed");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
