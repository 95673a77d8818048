//! The twelfth round's blind table corpora, each held at its baseline:
//! every aggregate keeps its audit (no primary below its width, a second
//! pass hides nothing more), every other table passes unchanged and
//! unflagged, and the record-level tables are flagged — except the known
//! misses each corpus lists, by class. The writers' exact LP audits are
//! kept outside the repo.

#![allow(missing_docs)] // integration test crate
#![allow(clippy::unwrap_used, clippy::expect_used)]

use palisade_egress::table::{scan, HideReason, TableOptions};
use serde_json::Value;

/// A corpus and its known misses.
struct Baseline {
    data: &'static str,
    /// Aggregate, record-level and other tables in the corpus.
    size: (usize, usize, usize),
    aggregate_misses: &'static [&'static str],
    microdata_misses: &'static [&'static str],
    other_misses: &'static [&'static str],
}

fn holds(b: &Baseline) {
    let mut failures = Vec::new();
    let (mut agg, mut micro, mut other) = (0, 0, 0);
    for line in b.data.lines().filter(|l| !l.trim().is_empty()) {
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
                if !r.microdata() && !b.microdata_misses.contains(&name) {
                    failures.push(format!("{name}: record-level table not flagged"));
                }
            }
            "none" => {
                other += 1;
                if !b.other_misses.contains(&name) && (r.microdata() || r.text != text) {
                    failures.push(format!("{name}: changed or flagged"));
                }
            }
            _ => {
                agg += 1;
                for t in &r.tables {
                    for h in &t.hidden {
                        if h.reason == HideReason::Primary
                            && !h.full_width
                            && !b.aggregate_misses.contains(&name)
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
    assert_eq!((agg, micro, other), b.size, "corpus changed");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// The twelfth round's table corpus (`testdata/table_fresh12g.jsonl`, writer
// G, who read only the seed, the issue and the schema): 64 texts, 24
// aggregate tables, 11 record-level tables and 29 other tables (timings,
// prices, settings, standings, stock, weather …) that must pass unchanged.
// The writer's exact LP audit (scipy MILP) is kept outside the repo.
//
// First sight on main d11c3d3, under that audit: aggregate 20/24 pass,
// microdata 4/11 flagged, other tables 12/29 unchanged; hidden data cells
// 0.84× the writer's reference, hidden totals 15 against 15. After round
// 12 (measure headers for quantities of things; direct-identifier headers
// in 15 languages; machines' IPs and role mailboxes are no people):
// microdata 9/11 flagged, other tables 20/29 unchanged, aggregates as at
// first sight (20/24).
//
// This test holds that baseline: every aggregate keeps its audit (no
// primary below its width, a second pass hides nothing more) except the
// tables not yet read as tables, every other table not listed passes
// unchanged and unflagged, and the record-level tables not listed are
// flagged. The lists are the known misses, by class.

/// Record-level tables not yet flagged: a header-less sqlite listing with
/// dates of birth (not read as a table with headers). Round 12m's
/// space-aligned tables took the listing of users and IPs off this list.
const G_MICRODATA_MISSES: &[&str] = &["g-fr-sqlite-eleves-date-naissance"];

/// Other tables still changed or flagged: a chess cross table, a maximum
/// next to a median, a flags CSV. Round 12i's league tables and severity
/// scales took the standings and the npm audit counts off this list; round
/// 12m's one-sign listings with no total took the stock listing, the CI
/// jobs, the diff lines and the pg_stat rows.
const G_OTHER_MISSES: &[&str] = &[
    "g-en-clinic-means-medians",
    "g-ru-shahmatnyi-turnir",
    "g-en-cat-n-feature-flags-csv",
];

#[test]
fn fresh12g_corpus_holds_its_baseline() {
    holds(&Baseline {
        data: include_str!("../testdata/table_fresh12g.jsonl"),
        size: (24, 11, 29),
        aggregate_misses: &[],
        microdata_misses: G_MICRODATA_MISSES,
        other_misses: G_OTHER_MISSES,
    });
}

// The twelfth round's second blind table corpus
// (`testdata/table_fresh12i.jsonl`, writer I): 64 texts, 26 aggregate
// tables, 13 record-level tables and 25 other tables (fleets, stock, CI
// runs, CVE counts, recipes, menus, standings, latencies, weather, wine
// cellars, row counts, CPUs …) that must pass unchanged. The writer's
// exact LP audit is kept outside the repo.
//
// First sight on 41b80eb, under that audit: aggregate 24/26 pass,
// microdata 11/13 flagged, other tables 13/25 unchanged. Round 12i
// (measure headers for quantities of things: unit suffixes and CJK
// bracketed units, stock, machines, sales, rows; whole tables of things:
// test-run summaries, league tables, severity scales): other tables
// 25/25 unchanged, aggregates (24/26, the same hidden cells and totals)
// and microdata (11/13) as at first sight.
//
// This test holds that baseline: every aggregate keeps its audit (no
// primary below its width, a second pass hides nothing more), every other
// table not listed passes unchanged and unflagged, and the record-level
// tables not listed are flagged. The lists are the known misses.

/// Aggregates whose in-crate audit reports a primary below its width: none
/// since round 12m (the long table of households that left a point falls
/// back to hiding every count, which is safe).
const I_AGGREGATE_MISSES: &[&str] = &[];

/// Record-level tables not yet flagged: a French list with social security
/// numbers (NIR) and a survey listing of eight named respondents.
const I_MICRODATA_MISSES: &[&str] = &["i-micro-fr-nir", "i-micro-survey-names-8"];

/// Other tables still changed or flagged.
const I_OTHER_MISSES: &[&str] = &[];

#[test]
fn fresh12i_corpus_holds_its_baseline() {
    holds(&Baseline {
        data: include_str!("../testdata/table_fresh12i.jsonl"),
        size: (26, 13, 25),
        aggregate_misses: I_AGGREGATE_MISSES,
        microdata_misses: I_MICRODATA_MISSES,
        other_misses: I_OTHER_MISSES,
    });
}

// The twelfth round's third blind table corpus
// (`testdata/table_fresh12j.jsonl`, writer J): 61 texts, 26 aggregate
// tables, 12 record-level tables and 23 other tables (hosts, sprints,
// invoices, releases, spare parts, a status page, energy meters, vehicles,
// an issue list, fuel prices …) that must pass unchanged. The writer's
// exact LP audit is kept outside the repo.
//
// First sight on 713b006, under that audit: aggregate 22/26 pass,
// microdata 11/12 flagged, other tables 12/23 unchanged. Round 12j (things
// of software and machines: bugs, fixes, features, comments, uptime,
// snake_case units, limits, stock, maintenance; service-monitoring tables;
// `Pos` columns; `n (x,x %)` cells and `22,3 %` shares; compound contact
// headers): aggregate 24/26, microdata 12/12, other tables 22/23.

/// Aggregates the writer's LP audit still fails: a psql rollup whose
/// hidden cells stay recoverable. And one the writer's audit passes but the
/// in-crate audit reports a primary below its width (primaries in rows that
/// only reach their width together; at least half of it, so it is
/// published with `audited: false`). Round 12m's space-aligned tables took
/// the R `addmargins` print off this list.
const J_AGGREGATE_MISSES: &[&str] = &[
    "j-lanternline-rollup-psql",
    "j-homeless-duty-postcodes-long",
];

/// Record-level tables not yet flagged.
const J_MICRODATA_MISSES: &[&str] = &[];

/// Other tables still changed or flagged: the 42-row issue list with an
/// `id` column, flagged as record-level once its comment counts are read
/// as things.
const J_OTHER_MISSES: &[&str] = &["j-gh-issues-id-list"];

#[test]
fn fresh12j_corpus_holds_its_baseline() {
    holds(&Baseline {
        data: include_str!("../testdata/table_fresh12j.jsonl"),
        size: (26, 12, 23),
        aggregate_misses: J_AGGREGATE_MISSES,
        microdata_misses: J_MICRODATA_MISSES,
        other_misses: J_OTHER_MISSES,
    });
}

// The twelfth round's fourth blind table corpus
// (`testdata/table_fresh12l.jsonl`, writer L): 62 texts in 12 languages,
// 26 aggregate tables, 12 record-level tables and 24 other tables (GPU
// prices, a cloc summary, benchmarks, stock lists, server specs,
// releases, trains, docker images, laptops …) that must pass unchanged.
// The writer's exact LP audit is kept outside the repo.
//
// First sight on 10d6f5c, under that audit: aggregate 26/26 pass,
// microdata 12/12 flagged, other tables 14/24 unchanged. Round 12l
// (tables of things by structure, `table::entity`, policy in
// docs/tables-entities.md: machine units and hex ids in cells decide
// alone; identifier-shaped row labels, clock times, dates, versions,
// money and data-size, currency or time-unit headers decide in pairs,
// vetoed by shares and averages; a header naming people vetoes all;
// cloc summaries):
// aggregate 26/26 (the same 118 primaries, 198 hidden data cells and 8
// hidden totals), microdata 12/12, other tables 24/24.

#[test]
fn fresh12l_corpus_holds_its_baseline() {
    holds(&Baseline {
        data: include_str!("../testdata/table_fresh12l.jsonl"),
        size: (26, 12, 24),
        aggregate_misses: &[],
        microdata_misses: &[],
        other_misses: &[],
    });
}

// The twelfth round's fifth blind table corpus
// (`testdata/table_fresh12m.jsonl`, writer M): 61 texts in 13 languages,
// 26 aggregate tables, 12 record-level tables and 23 other tables (stock,
// prices, a CI matrix, a PR list, kubectl, docker stats, cloc, an API
// quota table …), in Markdown, CSV, TSV, `cat -n`, JSON, psql and
// space-aligned columns. The writer's exact LP audit is kept outside the
// repo.
//
// First sight on 8f9d2bf, under that audit: aggregate 22/26 pass,
// microdata 11/12 flagged, other tables 14/23 unchanged. Round 12m
// (decimal-comma shares, narrow no-break thousands, space-aligned tables,
// one sign of another measure deciding a table with no total): aggregate
// 26/26, microdata 12/12, other tables 19/23.

/// Other tables still changed: a stock list with a `Summe` row, a bike
/// dock list whose `free_docks` is `docks − bikes`, a laptop inventory
/// named by models (`ThinkPad T14 Gen 5`), a test-count table per crate.
const M_OTHER_MISSES: &[&str] = &[
    "m-none-de-lagerbestand",
    "m-none-id-column-bike-docks",
    "m-none-sv-inventering",
    "m-none-memory-crates",
];

#[test]
fn fresh12m_corpus_holds_its_baseline() {
    holds(&Baseline {
        data: include_str!("../testdata/table_fresh12m.jsonl"),
        size: (26, 12, 23),
        aggregate_misses: &[],
        microdata_misses: &[],
        other_misses: M_OTHER_MISSES,
    });
}

// The twelfth round's sixth blind table corpus
// (`testdata/table_fresh12n.jsonl`, writer N): 61 texts, 26 aggregate
// tables, 12 record-level tables and 23 other tables (merged PRs per
// repository, game item stats, a dataset card's class counts, prices,
// benchmarks, inventory …) that must pass unchanged. The writer's exact LP
// audit is kept outside the repo.
//
// First sight on 1b7ea84, under that audit: aggregate 26/26 pass,
// microdata 12/12 flagged, other tables 20/23 unchanged (204 primaries,
// 282 hidden data cells, 21 hidden totals). Round 12n (signs of the
// context, vetoed when the text above names people: a caption naming what
// is counted, `Merged PRs per repo`; the headers of a dataset's splits,
// `Train | Val | Test`; in the cells, ranges that cross, `6–9`, `9–14`;
// in a label column, kebab-case names in one namespace, `kite-core`,
// `kite-cli`): aggregate 26/26 (the same 204 primaries, 282 hidden data
// cells and 21 hidden totals), microdata 12/12, other tables 23/23.

#[test]
fn fresh12n_corpus_holds_its_baseline() {
    holds(&Baseline {
        data: include_str!("../testdata/table_fresh12n.jsonl"),
        size: (26, 12, 23),
        aggregate_misses: &[],
        microdata_misses: &[],
        other_misses: &[],
    });
}

// The twelfth round's seventh blind table corpus
// (`testdata/table_fresh12o.jsonl`, writer O): 64 texts, 27 aggregate
// tables, 12 record-level tables and 25 other tables (a PR bot's lint
// report, municipal buildings' energy use, SKU stock, exchange rates,
// latency, timetables …) that must pass unchanged. The writer's exact LP
// audit is kept outside the repo.
//
// First sight on 32c5929, under that audit: aggregate 26/27 pass (a
// fixed-width CLI summary of trial participants whose trailing log line,
// `[info] done in 0.82s`, was read as a row and broke its totals),
// microdata 12/12 flagged, other tables 23/25 unchanged (buildings'
// `Surface (m²)`, `Électricité (MWh)`; a ruff comment's rule slugs,
// `line-too-long`). Round 12o (a line that writes across the gutters of
// a space-aligned block and holds no whole number is no row of it; a
// physical unit in a header over numbers, `Gaz (MWh)`, `Surface (m²)`; a
// column of lowercase kebab-case slugs, `function-call-in-default-argument`):
// aggregate 27/27 (147 primaries, 215 hidden data cells, 12 hidden totals),
// microdata 12/12, other tables 25/25.

#[test]
fn fresh12o_corpus_holds_its_baseline() {
    holds(&Baseline {
        data: include_str!("../testdata/table_fresh12o.jsonl"),
        size: (27, 12, 25),
        aggregate_misses: &[],
        microdata_misses: &[],
        other_misses: &[],
    });
}

// The twelfth round's eighth blind table corpus
// (`testdata/table_fresh12p.jsonl`, writer P): 61 texts, 26 aggregate
// tables, 12 record-level tables and 23 other tables (a host's load, a
// store's reorder list, a diff stat per directory, a sprint board,
// kubectl pods, exchange rates, timetables …) that must pass unchanged.
// The writer's exact LP audit is kept outside the repo.
//
// First sight on ff46308, under that audit: aggregate 26/26 pass,
// microdata 12/12 flagged, other tables 19/23 unchanged (133 primaries,
// 215 hidden data cells, 32 hidden totals): a `nodestat` listing whose
// `cpu%` vetoed as a share, a reorder list of `Dübel 8mm`, `Kabelbinder
// 200mm`, a diff stat's `insertions | deletions` per path with a `total`
// row, a sprint board's `Points done | Points left`. Round 12p (a
// percentage of a machine's resource is no share, `cpu%`, `%MEM`; items
// named with their sizes, `Schrauben M6x30`; the headers of a diff stat;
// one measure done and left): aggregate 26/26 (the same 133 primaries,
// 215 hidden data cells and 32 hidden totals), microdata 12/12, other
// tables 23/23.

#[test]
fn fresh12p_corpus_holds_its_baseline() {
    holds(&Baseline {
        data: include_str!("../testdata/table_fresh12p.jsonl"),
        size: (26, 12, 23),
        aggregate_misses: &[],
        microdata_misses: &[],
        other_misses: &[],
    });
}

// The twelfth round's ninth blind table corpus
// (`testdata/table_fresh12q.jsonl`, writer Q): 63 texts, 27 aggregate
// tables, 12 record-level tables and 24 other tables (a server check in
// Chinese, a MEMORY.md of open TODOs per module, SaaS prices, hyperfine,
// tokei, kubectl nodes, a stock list, a league table, train times …) that
// must pass unchanged. The writer's exact LP audit is kept outside the repo.
//
// First sight on c3a5d61, under that audit (width rule): aggregate 26/27
// pass, microdata 12/12 flagged, other tables 22/24 unchanged (170
// primaries, 234 hidden data cells, 25 hidden totals): a markdown table
// inside a chat transcript's message (`{"messages": [{"role", "content"}
// …]}`) left its three primaries visible, the array being read as a table
// of its own and its strings never; a Chinese host check (`主机 | CPU核数 |
// 负载 | 磁盘使用率 | 告警数`, `63%`) whose disk use vetoed as a share of
// people; `Module | TODOs | FIXMEs | Files`, counts of markers in code.
// Round 12q (the multi-line strings of a uniform array are read as
// documents; a machine's load in other languages, `磁盘使用率`,
// `CPU-Auslastung`, `Uso de CPU`, is no share even with its percent
// marks; `TODO`, `FIXME`, `HACK` headers in capitals): aggregate 27/27
// (170 primaries, 238 hidden data cells, 25 hidden totals), microdata
// 12/12, other tables 24/24. Under the symmetric rule (the interval
// reaching half the threshold on both sides of the value), which the
// crate does not promise, 14/27 aggregate tables pass before and after.

#[test]
fn fresh12q_corpus_holds_its_baseline() {
    holds(&Baseline {
        data: include_str!("../testdata/table_fresh12q.jsonl"),
        size: (27, 12, 24),
        aggregate_misses: &[],
        microdata_misses: &[],
        other_misses: &[],
    });
}

// The twelfth round's tenth blind table corpus
// (`testdata/table_fresh12r.jsonl`, writer R): 63 texts, 25 aggregate
// tables, 13 record-level tables and 25 other tables (a stock list by
// warehouse, a recipe, servers per rack, issues by label, a flaky-test
// report, an HTTP status histogram, a Turkish release checklist …) that
// must pass unchanged. The writer's exact LP audit is kept outside the repo.
//
// First sight on a3747d9, under that audit (width rule): aggregate 25/25
// pass, microdata 12/13 flagged, other tables 18/25 unchanged (246
// primaries, 367 hidden data cells, 63 hidden totals). Round 12r changed
// nothing in the crate: a header counting events of software (`requests`,
// `Açık hata`) fixed the status histogram and the checklist, but made the
// 12q endpoint listing (`id | endpoint | requests | errors`) a table of
// things whose `id` column then read as record-level, so it was withdrawn.
// Final numbers are those of first sight. Known misses:
// - `r-micro-signins-ip-fixed`: fixed-width sign-ins whose `SOURCE_IP`
//   column is not read as a direct identifier;
// - `r-none-lagerbestand-de`: stock by warehouse with sums, only two of
//   five items named with a size (`Kreissäge 190 mm`);
// - `r-none-ricetta-pasta-it`: a recipe's quantities (`500 g`, `1 pizzico`)
//   with a small reference column;
// - `r-none-rack-servers`: servers per rack, hardware models as headers
//   (`PowerEdge R660`) and a total row;
// - `r-none-issue-labels`: issues by label, `Open | Closed | Total`, read
//   like a caseload;
// - `r-none-flaky-tests-csv`: failure counts beside `failure_rate_%`, which
//   vetoes as a share;
// - `r-none-nginx-status-counts`, `r-none-surum-kontrol-tr`: one count of
//   software events (`requests`, `Açık hata`) and no other sign.

#[test]
fn fresh12r_corpus_holds_its_baseline() {
    holds(&Baseline {
        data: include_str!("../testdata/table_fresh12r.jsonl"),
        size: (25, 13, 25),
        aggregate_misses: &[],
        microdata_misses: &["r-micro-signins-ip-fixed"],
        other_misses: &[
            "r-none-lagerbestand-de",
            "r-none-ricetta-pasta-it",
            "r-none-rack-servers",
            "r-none-issue-labels",
            "r-none-flaky-tests-csv",
            "r-none-nginx-status-counts",
            "r-none-surum-kontrol-tr",
        ],
    });
}
