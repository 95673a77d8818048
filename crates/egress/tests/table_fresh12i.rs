//! The twelfth round's second blind table corpus
//! (`testdata/table_fresh12i.jsonl`, writer I): 64 texts, 26 aggregate
//! tables, 13 record-level tables and 25 other tables (fleets, stock, CI
//! runs, CVE counts, recipes, menus, standings, latencies, weather, wine
//! cellars, row counts, CPUs …) that must pass unchanged. The writer's
//! exact LP audit is kept outside the repo.
//!
//! First sight on 41b80eb, under that audit: aggregate 24/26 pass,
//! microdata 11/13 flagged, other tables 13/25 unchanged. Round 12i
//! (measure headers for quantities of things: unit suffixes and CJK
//! bracketed units, stock, machines, sales, rows; whole tables of things:
//! test-run summaries, league tables, severity scales): other tables
//! 25/25 unchanged, aggregates (24/26, the same hidden cells and totals)
//! and microdata (11/13) as at first sight.
//!
//! This test holds that baseline: every aggregate keeps its audit (no
//! primary below its width, a second pass hides nothing more), every other
//! table not listed passes unchanged and unflagged, and the record-level
//! tables not listed are flagged. The lists are the known misses.

#![allow(missing_docs)] // integration test crate
#![allow(clippy::unwrap_used, clippy::expect_used)]

use palisade_egress::table::{scan, HideReason, TableOptions};
use serde_json::Value;

/// Aggregates whose in-crate audit reports a primary below its width (the
/// writer's LP audit passes them): a long table of households whose
/// primaries sit in rows that only reach their width together.
const AGGREGATE_MISSES: &[&str] = &["i-long-homeless-24rows"];

/// Record-level tables not yet flagged: a French list with social security
/// numbers (NIR) and a survey listing of eight named respondents.
const MICRODATA_MISSES: &[&str] = &["i-micro-fr-nir", "i-micro-survey-names-8"];

/// Other tables still changed or flagged.
const OTHER_MISSES: &[&str] = &[];

#[test]
fn fresh12i_corpus_holds_its_baseline() {
    let mut failures = Vec::new();
    let (mut agg, mut micro, mut other) = (0, 0, 0);
    for line in include_str!("../testdata/table_fresh12i.jsonl")
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
                        if h.reason == HideReason::Primary
                            && !h.full_width
                            && !AGGREGATE_MISSES.contains(&name)
                        {
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
    assert_eq!((agg, micro, other), (26, 13, 25), "corpus changed");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
