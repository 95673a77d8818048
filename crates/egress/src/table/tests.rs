//! Tests of the table rules: data-driven cases, an independent LP audit of
//! the suppressed output, and proptests for the invariants.

use super::*;
use proptest::prelude::*;
use serde::Deserialize;

fn run(text: &str) -> TableReport {
    scan(text, &TableOptions::default())
}

// ------------------------------------------------------------ data cases

#[derive(Deserialize)]
struct Case {
    name: String,
    input: CaseInput,
    expected: Expected,
    #[allow(dead_code)] // documentation for the reader of the file
    note: String,
}

#[derive(Deserialize)]
struct CaseInput {
    text: String,
    #[serde(flatten)]
    options: TableOptions,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Expected {
    suppressed: Option<Vec<[usize; 2]>>,
    hidden_count: Option<usize>,
    max_hidden: Option<usize>,
    microdata: Option<bool>,
    tables: Option<usize>,
    contains: Option<Vec<String>>,
    not_contains: Option<Vec<String>>,
    unchanged: Option<bool>,
    fallback: Option<bool>,
}

fn check_case(case: &Case) -> Result<(), String> {
    let r = scan(&case.input.text, &case.input.options);
    let e = &case.expected;
    let fail = |what: String| Err(format!("{what}\n--- output ---\n{}", r.text));
    if let Some(s) = &e.suppressed {
        if &r.suppressed() != s {
            return fail(format!("suppressed {:?}, expected {s:?}", r.suppressed()));
        }
    }
    if let Some(n) = e.hidden_count {
        if r.suppressed().len() != n {
            return fail(format!("{} hidden, expected {n}", r.suppressed().len()));
        }
    }
    if let Some(n) = e.max_hidden {
        if r.suppressed().len() > n {
            return fail(format!(
                "{} hidden, expected at most {n}",
                r.suppressed().len()
            ));
        }
    }
    if let Some(m) = e.microdata {
        if r.microdata() != m {
            return fail(format!("microdata {}, expected {m}", r.microdata()));
        }
    }
    if let Some(n) = e.tables {
        if r.tables.len() != n {
            return fail(format!("{} tables, expected {n}", r.tables.len()));
        }
    }
    for s in e.contains.iter().flatten() {
        if !r.text.contains(s.as_str()) {
            return fail(format!("output lacks {s:?}"));
        }
    }
    for s in e.not_contains.iter().flatten() {
        if r.text.contains(s.as_str()) {
            return fail(format!("output contains {s:?}"));
        }
    }
    if let Some(u) = e.unchanged {
        if (r.text == case.input.text) != u {
            return fail(format!("unchanged should be {u}"));
        }
    }
    if let Some(f) = e.fallback {
        if r.tables.iter().any(|t| t.fallback) != f {
            return fail(format!("fallback should be {f}"));
        }
    }
    for t in &r.tables {
        if !t.audit_passed() {
            return fail("audit did not pass".into());
        }
    }
    // Every output is a fixed point.
    let again = scan(&r.text, &case.input.options);
    if again.text != r.text {
        return fail(format!("not idempotent; second pass:\n{}", again.text));
    }
    Ok(())
}

#[test]
fn data_cases() {
    let files = [
        include_str!("../../testdata/table_positive.jsonl"),
        include_str!("../../testdata/table_negative.jsonl"),
    ];
    let mut failures = Vec::new();
    let mut count = 0;
    for file in files {
        for (i, line) in file.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let case: Case = match serde_json::from_str(line) {
                Ok(c) => c,
                Err(e) => {
                    failures.push(format!("line {}: bad case: {e}", i + 1));
                    continue;
                }
            };
            count += 1;
            if let Err(msg) = check_case(&case) {
                failures.push(format!(
                    "case {}: {msg}\nreproduce: scan({:?}, &opts)",
                    case.name, case.input.text
                ));
            }
        }
    }
    assert!(count >= 20, "only {count} cases");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

// ------------------------------------------------------------ unit tests

#[test]
fn seed_demo_keeps_totals_and_hides_fewer_than_the_seed() {
    let text = "| Town | A | B | C | Total |\n|---|---|---|---|---|\n\
| Peace Valley | 7 | 0 | 3 | 10 |\n| Hill | 8 | 12 | 9 | 29 |\n| Lake | 20 | 15 | 29 | 64 |\n\
| Total | 35 | 27 | 41 | 103 |\n";
    let r = run(text);
    assert!(r.text.contains("| Total | 35 | 27 | 41 | 103 |"));
    assert!(r
        .text
        .contains("| Peace Valley | [suppressed] | 0 | [suppressed] | 10 |"));
    let hidden = r.suppressed();
    assert!(hidden.contains(&[0, 3]));
    assert!(hidden.len() <= 6, "{hidden:?}");
    assert!(r.tables[0].audit_passed());
}

#[test]
fn aligned_markdown_stays_aligned() {
    let text = "| Region | A  | B  | Total |\n|--------|----|----|-------|\n\
| North  | 3  | 9  | 12    |\n| South  | 7  | 8  | 15    |\n| Total  | 10 | 17 | 27    |\n";
    let r = run(text);
    let widths: Vec<usize> = r.text.lines().map(|l| l.chars().count()).collect();
    assert!(widths.windows(2).all(|w| w[0] == w[1]), "{}", r.text);
    assert_eq!(r.text.matches("[suppressed]").count(), 4);
}

#[test]
fn json_string_and_uniform_array() {
    let inner = "region,n,total\nNorth,3,12\nSouth,7,15\n";
    let doc = serde_json::json!({"ok": true, "output": inner}).to_string();
    let r = run(&doc);
    let v: serde_json::Value = serde_json::from_str(&r.text).unwrap();
    assert!(v["output"].as_str().unwrap().contains("[suppressed]"));
    assert_eq!(v["ok"], serde_json::json!(true));

    let arr = r#"{"rows": [{"region": "North", "cases": 3}, {"region": "South", "cases": 40}]}"#;
    let r = run(arr);
    assert_eq!(
        r.text,
        r#"{"rows": [{"region": "North", "cases": "[suppressed]"}, {"region": "South", "cases": 40}]}"#
    );
    assert_eq!(r.tables[0].kind, TableKind::Json);
}

#[test]
fn a_table_inside_a_chat_transcript_is_read() {
    // An array of uniform objects whose strings hold documents (round
    // 12q): the messages are a table of their own, and the markdown table
    // inside a message is protected.
    let table = "Casos por tipo:\n| Tipo | Menores | Adultos | Total |\n|---|---|---|---|\n| Física | 6 | 41 | 47 |\n| Psicológica | 12 | 84 | 96 |\n| Digital | 8 | 3 | 11 |\n| Total | 26 | 128 | 154 |";
    let doc = serde_json::json!({"messages": [
        {"role": "user", "content": "resúmeme los casos"},
        {"role": "assistant", "content": table},
    ]})
    .to_string();
    let r = run(&doc);
    let v: serde_json::Value = serde_json::from_str(&r.text).unwrap();
    let content = v["messages"][1]["content"].as_str().unwrap();
    assert!(!content.contains("| 6 |"), "{content}");
    assert!(content.contains("[suppressed]"), "{content}");
    assert_eq!(v["messages"][0]["content"], "resúmeme los casos");
    assert_eq!(
        run(&r.text).text,
        r.text,
        "a second pass hides nothing more"
    );
    // A record-level array withheld whole is not read again inside.
    let mut rows = Vec::new();
    for i in 0..30 {
        rows.push(serde_json::json!({"email": format!("u{i}@example.org"), "note": "a\nb"}));
    }
    let doc = serde_json::json!({ "rows": rows }).to_string();
    let opts = TableOptions {
        microdata: MicrodataAction::Withhold,
        ..TableOptions::default()
    };
    let r = scan(&doc, &opts);
    assert!(r.microdata());
    assert!(
        serde_json::from_str::<serde_json::Value>(&r.text).is_ok(),
        "{}",
        r.text
    );
}

#[test]
fn microdata_withheld_and_id_trap() {
    let mut text = String::from("record_id,age,sex,visits\n");
    for i in 0..30 {
        text.push_str(&format!(
            "R{i:04},{},{},{}\n",
            20 + i,
            if i % 2 == 0 { "F" } else { "M" },
            i % 4
        ));
    }
    let opts = TableOptions {
        microdata: MicrodataAction::Withhold,
        ..TableOptions::default()
    };
    let r = scan(&text, &opts);
    assert!(r.microdata());
    assert_eq!(r.text, "[microdata table withheld: 30 rows]\n");

    let mut agg = String::from("id,region,cases\n");
    for i in 0..30 {
        agg.push_str(&format!("{},Region {i},{}\n", i + 1, 10 + i));
    }
    let r = scan(&agg, &opts);
    assert!(!r.microdata());
    assert_eq!(r.text, agg);
}

#[test]
fn rounding_is_deterministic_unbiased_in_shape_and_hides_percentages() {
    let text = "| g | n | % |\n|---|---|---|\n| a | 3 | 7.5% |\n| b | 37 | 92.5% |\n| Total | 40 | 100% |\n";
    let opts = TableOptions {
        method: Method::Round,
        ..TableOptions::default()
    };
    let a = scan(text, &opts);
    let b = scan(text, &opts);
    assert_eq!(a, b);
    assert!(!a.text.contains('%') || a.text.contains("| % |"));
    for line in a.text.lines().skip(2) {
        let n: u64 = line.split('|').nth(2).unwrap().trim().parse().unwrap();
        assert_eq!(n % 5, 0, "{line}");
    }
}

#[test]
fn subtotal_hierarchy_is_protected() {
    let text = "Area,A,B,Total\nN1,3,20,23\nN2,12,15,27\nNorth total,15,35,50\n\
S1,9,11,20\nS2,14,16,30\nSouth total,23,27,50\nTotal,38,62,100\n";
    let r = run(text);
    assert!(r.tables[0].audit_passed());
    assert!(r.text.contains("North total,15,35,50"));
    assert!(r.text.contains("Total,38,62,100"));
    lp_audit(text, &r, &TableOptions::default()).unwrap();
}

#[test]
fn percentage_with_visible_denominator_is_a_count() {
    let text =
        "| Clinic | Patients | Female % |\n|---|---|---|\n| A | 40 | 5% |\n| B | 60 | 50% |\n";
    let r = run(text);
    assert_eq!(r.suppressed(), vec![[0, 2]]);
}

#[test]
fn types_are_send_and_sync() {
    fn assert<T: Send + Sync>() {}
    assert::<TableReport>();
    assert::<TableOptions>();
}

// ------------------------------------------------------------ independent LP audit

const EPS: f64 = 1e-7;

// Dense tableau code reads best with explicit indices.
#[allow(clippy::needless_range_loop)]
/// min c·y subject to A y = b, y ≥ 0. `None` when infeasible,
/// `Some(f64::NEG_INFINITY)` when unbounded. Two-phase dense simplex with
/// Bland's rule (small systems only).
fn simplex_min(a: &[Vec<f64>], b: &[f64], c: &[f64]) -> Option<f64> {
    let m = a.len();
    let n = c.len();
    let width = n + m + 1;
    let mut t: Vec<Vec<f64>> = Vec::with_capacity(m);
    for i in 0..m {
        let mut row = vec![0.0; width];
        let sign = if b[i] < 0.0 { -1.0 } else { 1.0 };
        for j in 0..n {
            row[j] = sign * a[i][j];
        }
        row[n + i] = 1.0;
        row[width - 1] = sign * b[i];
        t.push(row);
    }
    let mut basis: Vec<usize> = (n..n + m).collect();
    let pivot = |t: &mut Vec<Vec<f64>>, basis: &mut Vec<usize>, r: usize, col: usize| {
        let pv = t[r][col];
        for x in t[r].iter_mut() {
            *x /= pv;
        }
        let pr = t[r].clone();
        for (i, row) in t.iter_mut().enumerate() {
            if i != r {
                let f = row[col];
                if f.abs() > EPS {
                    for k in 0..row.len() {
                        row[k] -= f * pr[k];
                    }
                }
            }
        }
        basis[r] = col;
    };
    let optimize =
        |t: &mut Vec<Vec<f64>>, basis: &mut Vec<usize>, cost: &[f64], allowed: usize| -> bool {
            for _ in 0..10_000 {
                let mut entering = None;
                for j in 0..allowed {
                    if basis.contains(&j) {
                        continue;
                    }
                    let d = cost[j] - (0..m).map(|i| cost[basis[i]] * t[i][j]).sum::<f64>();
                    if d < -EPS {
                        entering = Some(j);
                        break;
                    }
                }
                let Some(j) = entering else { return true };
                let mut best: Option<(f64, usize, usize)> = None;
                for i in 0..m {
                    if t[i][j] > EPS {
                        let ratio = t[i][width - 1] / t[i][j];
                        let better = match best {
                            None => true,
                            Some((r, _, bi)) => {
                                ratio < r - EPS || (ratio - r).abs() <= EPS && basis[i] < bi
                            }
                        };
                        if better {
                            best = Some((ratio, i, basis[i]));
                        }
                    }
                }
                let Some((_, r, _)) = best else { return false };
                pivot(t, basis, r, j);
            }
            panic!("simplex did not terminate");
        };
    let mut phase1 = vec![0.0; n + m];
    for k in n..n + m {
        phase1[k] = 1.0;
    }
    optimize(&mut t, &mut basis, &phase1, n + m);
    let infeasibility: f64 = (0..m).map(|i| phase1[basis[i]] * t[i][width - 1]).sum();
    if infeasibility > 1e-6 {
        return None;
    }
    for i in 0..m {
        if basis[i] >= n {
            if let Some(j) = (0..n).find(|&j| t[i][j].abs() > EPS && !basis.contains(&j)) {
                pivot(&mut t, &mut basis, i, j);
            }
        }
    }
    let mut cost = vec![0.0; n + m];
    cost[..n].copy_from_slice(c);
    if !optimize(&mut t, &mut basis, &cost, n) {
        return Some(f64::NEG_INFINITY);
    }
    Some((0..m).map(|i| cost[basis[i]] * t[i][width - 1]).sum())
}

/// The attacker's LP interval of every hidden count cell, from equations
/// rebuilt independently of the library (`structure`), the published cells
/// of the output and `x ≥ floor` for hidden cells.
fn lp_intervals(
    published: &[Vec<Option<u64>>],
    equations: &[Vec<(usize, usize, f64)>],
    floor: f64,
) -> Vec<((usize, usize), f64, f64)> {
    let mut vars = Vec::new();
    for (r, row) in published.iter().enumerate() {
        for (c, v) in row.iter().enumerate() {
            if v.is_none() {
                vars.push((r, c));
            }
        }
    }
    let n = vars.len();
    let mut a = Vec::new();
    let mut b = Vec::new();
    for eq in equations {
        let mut row = vec![0.0; n];
        let mut rhs = 0.0;
        let mut any = false;
        for &(r, c, coef) in eq {
            match published[r][c] {
                Some(v) => rhs -= coef * v as f64,
                None => {
                    let k = vars.iter().position(|&x| x == (r, c)).unwrap();
                    row[k] += coef;
                    rhs -= coef * floor;
                    any = true;
                }
            }
        }
        if any {
            a.push(row);
            b.push(rhs);
        }
    }
    let mut out = Vec::new();
    for k in 0..n {
        let mut c = vec![0.0; n];
        c[k] = 1.0;
        let lo = simplex_min(&a, &b, &c).expect("the true table is feasible") + floor;
        c[k] = -1.0;
        let hi = -simplex_min(&a, &b, &c).unwrap() + floor;
        out.push((vars[k], lo, hi));
    }
    out
}

/// Parse a simple CSV/Markdown output back into published counts.
fn published_grid(text: &str, marker: &str) -> Vec<Vec<Option<u64>>> {
    let mut rows = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with("|-") || t.starts_with("| -") {
            continue;
        }
        let cells: Vec<&str> = if t.starts_with('|') {
            t.trim_matches('|').split('|').map(str::trim).collect()
        } else {
            t.split(',').map(str::trim).collect()
        };
        rows.push(
            cells[1..]
                .iter()
                .map(|c| if *c == marker { None } else { c.parse().ok() })
                .collect::<Vec<Option<u64>>>(),
        );
    }
    rows.remove(0); // header
    rows
}

/// Audit `report` for a table whose structure is rebuilt by `structure`
/// from the (label-free) grid: checks every hidden count's LP interval is
/// not a point and contains the interval the library claims.
fn lp_audit(original: &str, report: &TableReport, o: &TableOptions) -> Result<(), String> {
    let truth = published_grid(original, "\u{0}");
    let published = published_grid(&report.text, &o.marker);
    let labels: Vec<String> = original
        .lines()
        .skip(1)
        .filter(|l| {
            let t = l.trim_start();
            !t.is_empty() && !t.starts_with("|-") && !t.starts_with("| -")
        })
        .map(|l| {
            let t = l.trim().trim_matches('|');
            let first = if l.trim().starts_with('|') {
                t.split('|').next().unwrap_or("")
            } else {
                t.split(',').next().unwrap_or("")
            };
            first.trim().to_string()
        })
        .collect();
    let header_line = original.lines().next().unwrap_or("");
    let total_col = header_line
        .trim()
        .trim_end_matches('|')
        .trim()
        .ends_with("Total");
    let eqs = structure(&truth, &labels, total_col);
    let floor = if o.min_value > 0 { 1.0 } else { 0.0 };
    for ((r, c), lo, hi) in lp_intervals(&published, &eqs, floor) {
        let v = truth[r][c].unwrap() as f64;
        if hi - lo < 1.0 - 1e-6 {
            return Err(format!("cell [{r},{c}] = {v} is recoverable: [{lo}, {hi}]"));
        }
        if lo > v + 1e-6 || hi < v - 1e-6 {
            return Err(format!(
                "cell [{r},{c}] = {v} outside its LP interval [{lo}, {hi}]"
            ));
        }
        let claimed = report.tables[0]
            .hidden
            .iter()
            .find(|h| h.row == r && h.column == c + 1)
            .ok_or_else(|| format!("cell [{r},{c}] hidden but not reported"))?;
        if let Some(clo) = claimed.lo {
            if (clo as f64) < lo - 1e-6 {
                return Err(format!("claimed lo {clo} below LP lo {lo} at [{r},{c}]"));
            }
        }
        match claimed.hi {
            Some(chi) if (chi as f64) > hi + 1e-6 => {
                return Err(format!("claimed hi {chi} above LP hi {hi} at [{r},{c}]"));
            }
            None if claimed.lo.is_some() && hi.is_finite() => {
                return Err(format!("claimed unbounded but LP hi {hi} at [{r},{c}]"));
            }
            _ => {}
        }
        if claimed.full_width
            && claimed.lo.is_some()
            && hi - lo + 1e-6 < claimed.required_width as f64
        {
            return Err(format!(
                "[{r},{c}] claimed protected but LP width {}",
                hi - lo
            ));
        }
    }
    Ok(())
}

/// The equations of a grid whose last column is `Total` (row sums) and
/// whose rows are labelled `Total` (grand), `… total` (subtotal of the rows
/// since the previous subtotal) or anything else (detail). Rebuilt here
/// without the library's model.
fn structure(
    grid: &[Vec<Option<u64>>],
    labels: &[String],
    total_col: bool,
) -> Vec<Vec<(usize, usize, f64)>> {
    let ncols = grid[0].len();
    let mut eqs = Vec::new();
    for r in 0..grid.len() {
        if !total_col {
            break;
        }
        let mut eq: Vec<(usize, usize, f64)> = (0..ncols - 1).map(|c| (r, c, 1.0)).collect();
        eq.push((r, ncols - 1, -1.0));
        eqs.push(eq);
    }
    let mut group = Vec::new();
    let mut subs = Vec::new();
    let mut details = Vec::new();
    for (r, label) in labels.iter().enumerate() {
        let l = label.to_lowercase();
        if l == "total" {
            let members = if subs.is_empty() {
                details.clone()
            } else {
                subs.clone()
            };
            for c in 0..ncols {
                let mut eq: Vec<(usize, usize, f64)> =
                    members.iter().map(|&m| (m, c, 1.0)).collect();
                eq.push((r, c, -1.0));
                eqs.push(eq);
            }
        } else if l.ends_with("total") {
            for c in 0..ncols {
                let mut eq: Vec<(usize, usize, f64)> = group.iter().map(|&m| (m, c, 1.0)).collect();
                eq.push((r, c, -1.0));
                eqs.push(eq);
            }
            group.clear();
            subs.push(r);
        } else {
            group.push(r);
            details.push(r);
        }
    }
    eqs
}

// ------------------------------------------------------------ proptests

/// A count: mostly small or moderate, sometimes zero.
fn count() -> impl Strategy<Value = u64> {
    prop_oneof![3 => 1u64..5, 1 => Just(0u64), 4 => 5u64..40]
}

/// A 2-D table with a total column and a total row, as CSV or Markdown.
fn table() -> impl Strategy<Value = String> {
    (2usize..5, 2usize..5, any::<bool>())
        .prop_flat_map(|(r, c, md)| (proptest::collection::vec(count(), r * c), Just((r, c, md))))
        .prop_map(|(cells, (r, c, md))| render(&cells, r, c, md))
}

fn render(cells: &[u64], rows: usize, cols: usize, md: bool) -> String {
    let mut grid: Vec<Vec<u64>> = cells.chunks(cols).map(<[u64]>::to_vec).collect();
    for row in &mut grid {
        let s = row.iter().sum();
        row.push(s);
    }
    let totals: Vec<u64> = (0..=cols)
        .map(|c| grid.iter().map(|r| r[c]).sum())
        .collect();
    let mut labels: Vec<String> = (0..rows).map(|i| format!("G{i}")).collect();
    labels.push("Total".into());
    grid.push(totals);
    let mut header = vec!["Group".to_string()];
    header.extend((0..cols).map(|c| format!("C{c}")));
    header.push("Total".into());
    let mut out = String::new();
    let line = |cells: Vec<String>| {
        if md {
            format!("| {} |\n", cells.join(" | "))
        } else {
            format!("{}\n", cells.join(","))
        }
    };
    out.push_str(&line(header.clone()));
    if md {
        out.push_str(&line(vec!["---".to_string(); header.len()]));
    }
    for (label, row) in labels.iter().zip(&grid) {
        let mut cells = vec![label.clone()];
        cells.extend(row.iter().map(u64::to_string));
        out.push_str(&line(cells));
    }
    out
}

/// Tables of varied structure: one or more groups (with `Gk total`
/// subtotal rows when there are several), with or without a total row and
/// a total column, as CSV or Markdown.
fn varied_table() -> impl Strategy<Value = String> {
    (
        1usize..4,
        2usize..4,
        2usize..5,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        proptest::collection::vec(count(), 36),
    )
        .prop_map(
            |(groups, per_group, cols, total_col, total_row, md, values)| {
                let mut next = values.into_iter().cycle();
                let mut rows: Vec<(String, Vec<u64>)> = Vec::new();
                let mut subs: Vec<Vec<u64>> = Vec::new();
                for g in 0..groups {
                    let mut sub = vec![0u64; cols];
                    for d in 0..per_group {
                        let row: Vec<u64> = (0..cols).map(|_| next.next().unwrap_or(7)).collect();
                        for (s, v) in sub.iter_mut().zip(&row) {
                            *s += v;
                        }
                        rows.push((format!("R{g}{d}"), row));
                    }
                    if groups > 1 {
                        rows.push((format!("G{g} total"), sub.clone()));
                    }
                    subs.push(sub);
                }
                if total_row {
                    let grand: Vec<u64> =
                        (0..cols).map(|c| subs.iter().map(|s| s[c]).sum()).collect();
                    rows.push(("Total".into(), grand));
                }
                let mut header = vec!["Area".to_string()];
                header.extend((0..cols).map(|c| format!("C{c}")));
                if total_col {
                    header.push("Total".into());
                }
                let line = |cells: Vec<String>| {
                    if md {
                        format!("| {} |\n", cells.join(" | "))
                    } else {
                        format!("{}\n", cells.join(","))
                    }
                };
                let mut out = line(header.clone());
                if md {
                    out.push_str(&line(vec!["---".to_string(); header.len()]));
                }
                for (label, row) in rows {
                    let mut cells = vec![label];
                    cells.extend(row.iter().map(u64::to_string));
                    if total_col {
                        cells.push(row.iter().sum::<u64>().to_string());
                    }
                    out.push_str(&line(cells));
                }
                out
            },
        )
}

/// Found by `independent_lp_audit_passes_on_varied_structures`: a row of
/// zeros and one 5 (threshold 5) ties a group's column to its subtotal, and
/// the greedy repair left a count of 1 narrowed to [1, 2]. Such a table
/// fails closed: every count is hidden rather than one recoverable.
#[test]
fn a_chain_the_repair_cannot_break_fails_closed() {
    let text = "Area,C0,C1,C2,C3,Total\n\
                R00,20,1,1,4,26\nR01,0,5,0,0,5\nR02,5,2,4,1,12\n\
                G0 total,25,8,5,5,43\n\
                R10,1,1,1,5,8\nR11,5,1,1,5,12\nR12,1,3,6,1,11\n\
                G1 total,7,5,8,11,31\n\
                R20,1,1,3,1,6\nR21,1,1,1,5,8\nR22,5,5,5,5,20\n\
                G2 total,7,7,9,11,34\nTotal,39,20,22,27,108\n";
    let o = TableOptions::default();
    let r = scan(text, &o);
    assert!(r.tables[0].audit_passed(), "{}", r.text);
    assert!(r.tables[0].fallback, "{}", r.text);
    if let Err(e) = lp_audit(text, &r, &o) {
        panic!("{e}\n{}", r.text);
    }
}

/// Between half and the full required width a table is still published,
/// with `audited: false` and its narrowest interval (not the fallback).
#[test]
fn a_primary_cell_short_of_full_width_is_published_and_reported() {
    let text = include_str!("../../testdata/table_fresh12j.jsonl")
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["name"] == "j-homeless-duty-postcodes-long")
        .and_then(|v| v["input"]["text"].as_str().map(str::to_owned))
        .unwrap_or_default();
    assert!(
        !text.is_empty(),
        "case j-homeless-duty-postcodes-long is missing"
    );
    let r = scan(
        &text,
        &TableOptions {
            threshold: 10,
            ..TableOptions::default()
        },
    );
    let t = &r.tables[0];
    assert!(!t.fallback && !t.audited && t.audit_passed(), "{t:?}");
    let n = t.narrowest.as_ref().map(|n| (n.lo, n.hi));
    assert!(matches!(n, Some((lo, Some(hi))) if hi - lo >= 5), "{n:?}");
}

#[test]
fn a_printed_crosstab_with_margins_is_protected_and_stays_aligned() {
    let text = ">>> pd.crosstab(df[\"mode\"], df[\"band\"], margins=True)\n\
                mode   <5km  5-20km  >20km  All\n\
                Bus      23      41      7   71\n\
                Car      88     152     36  276\n\
                Cycle     4      19      2   25\n\
                Rail     17      60      9   86\n\
                All     132     272     54  458\n\
                >>> # staff travel survey\n";
    let o = TableOptions::default();
    let r = scan(text, &o);
    assert_eq!(r.tables.len(), 1, "{}", r.text);
    assert_eq!(r.tables[0].kind, TableKind::FixedWidth);
    assert!(r.tables[0].audit_passed(), "{}", r.text);
    for v in r
        .text
        .split_whitespace()
        .filter_map(|w| w.parse::<u64>().ok())
    {
        assert!(!(1..5).contains(&v), "published {v} in\n{}", r.text);
    }
    let again = scan(&r.text, &o);
    assert_eq!(again.text, r.text);
    assert!(
        r.text.starts_with(">>> pd.crosstab") && r.text.ends_with(">>> # staff travel survey\n")
    );
}

#[test]
fn a_listing_of_things_in_columns_is_left_alone() {
    for text in [
        "NAME             READY   STATUS    RESTARTS   AGE\n\
         ingest-7d9f8c    1/1     Running   0          3d4h\n\
         scheduler-0      2/2     Running   3          11d\n\
         redis-cache-0    1/1     Running   1          12d\n",
        "Language    Files  Lines   Code\n\
         ----------------------------\n\
         Rust           42   9812   8120\n\
         Python          7   1204    963\n\
         Shell           2     61     44\n\
         SUM            51  11077   9127\n",
    ] {
        let r = scan(text, &TableOptions::default());
        assert_eq!(r.text, text);
        assert!(!r.changed());
    }
}

#[test]
fn a_record_listing_in_columns_is_microdata() {
    let text = "naam                 BSN         geboortedatum   gemeente\n\
                J. van der Meulen    123456782   14-02-1990      Leeuwarden\n\
                F. El Idrissi        234567891   03-07-1985      Sneek\n\
                R. Hoekstra          456789018   09-01-2002      Leeuwarden\n";
    let r = scan(text, &TableOptions::default());
    assert_eq!(r.tables.len(), 1);
    assert!(r.tables[0].microdata, "{:?}", r.tables[0]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn independent_lp_audit_passes_on_varied_structures(text in varied_table()) {
        let o = TableOptions::default();
        let r = scan(&text, &o);
        prop_assert!(r.tables.iter().all(TableResult::audit_passed), "{}", r.text);
        if let Err(e) = lp_audit(&text, &r, &o) {
            prop_assert!(false, "{}\n{}\n->\n{}", e, text, r.text);
        }
        for row in published_grid(&r.text, &o.marker) {
            for v in row.into_iter().flatten() {
                prop_assert!(!(1..5).contains(&v), "published {} in\n{}", v, r.text);
            }
        }
        let again = scan(&r.text, &o);
        prop_assert_eq!(&again.text, &r.text);
    }

    #[test]
    fn no_published_count_below_threshold(text in table()) {
        let o = TableOptions::default();
        let r = scan(&text, &o);
        for row in published_grid(&r.text, &o.marker) {
            for v in row.into_iter().flatten() {
                prop_assert!(!(1..5).contains(&v), "published {} in\n{}", v, r.text);
            }
        }
    }

    #[test]
    fn suppression_is_idempotent(text in table()) {
        let o = TableOptions::default();
        let once = scan(&text, &o);
        let twice = scan(&once.text, &o);
        prop_assert_eq!(&once.text, &twice.text);
    }

    #[test]
    fn independent_lp_audit_passes(text in table()) {
        let o = TableOptions::default();
        let r = scan(&text, &o);
        prop_assert!(r.tables[0].audit_passed() || r.tables[0].fallback, "{}", r.text);
        if let Err(e) = lp_audit(&text, &r, &o) {
            prop_assert!(false, "{}\n{}\n->\n{}", e, text, r.text);
        }
    }

    #[test]
    fn independent_lp_audit_passes_with_zeros_flagged(text in table()) {
        let o = TableOptions { min_value: 0, ..TableOptions::default() };
        let r = scan(&text, &o);
        if let Err(e) = lp_audit(&text, &r, &o) {
            prop_assert!(false, "{}\n{}\n->\n{}", e, text, r.text);
        }
    }

    #[test]
    fn rounding_is_deterministic_per_content(text in table()) {
        let o = TableOptions { method: Method::Round, ..TableOptions::default() };
        let a = scan(&text, &o);
        let b = scan(&text, &o);
        prop_assert_eq!(&a, &b);
        for row in published_grid(&a.text, &o.marker) {
            for v in row.into_iter().flatten() {
                prop_assert_eq!(v % 5, 0);
            }
        }
    }

    #[test]
    fn scanning_arbitrary_text_never_panics(text in "[a-z0-9,|\\t\\n\" -]{0,200}") {
        let r = scan(&text, &TableOptions::default());
        prop_assert!(r.text.len() + 1 > 0);
    }
}

#[test]
fn hierarchical_random_tables_pass_the_lp_audit() {
    // Deterministic sweep over small hierarchical tables (two groups of two
    // or three detail rows, subtotals, grand total, total column).
    let mut seed = 12345u64;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % 100
    };
    for _ in 0..40 {
        let cols = 2 + (next() % 2) as usize;
        let mut text = String::from("Area");
        for c in 0..cols {
            text.push_str(&format!(",C{c}"));
        }
        text.push_str(",Total\n");
        let mut grand = vec![0u64; cols + 1];
        let mut all_rows = Vec::new();
        for g in 0..2 {
            let n = 2 + (next() % 2) as usize;
            let mut sub = vec![0u64; cols + 1];
            for d in 0..n {
                let mut row: Vec<u64> = (0..cols)
                    .map(|_| {
                        let x = next();
                        if x < 35 {
                            1 + x % 4
                        } else {
                            5 + x % 30
                        }
                    })
                    .collect();
                row.push(row.iter().sum());
                for (s, v) in sub.iter_mut().zip(&row) {
                    *s += v;
                }
                all_rows.push((format!("A{g}{d}"), row));
            }
            for (s, v) in grand.iter_mut().zip(&sub) {
                *s += v;
            }
            all_rows.push((format!("Group {g} total"), sub));
        }
        all_rows.push(("Total".into(), grand));
        for (label, row) in all_rows {
            text.push_str(&label);
            for v in row {
                text.push_str(&format!(",{v}"));
            }
            text.push('\n');
        }
        let o = TableOptions::default();
        let r = scan(&text, &o);
        if let Err(e) = lp_audit(&text, &r, &o) {
            panic!("{e}\n{text}\n->\n{}", r.text);
        }
    }
}

/// A greedy-safe reference built on the independent LP audit: hide the
/// primary cells, then, while some hidden cell is a point, hide the smallest
/// visible non-total cell in its row or column.
fn greedy_reference(text: &str, o: &TableOptions) -> usize {
    let truth = published_grid(text, "\u{0}");
    let labels: Vec<String> = text
        .lines()
        .skip(1)
        .filter(|l| {
            let t = l.trim_start();
            !t.is_empty() && !t.starts_with("|-") && !t.starts_with("| -")
        })
        .map(|l| l.split(',').next().unwrap_or("").trim().to_string())
        .collect();
    let eqs = structure(&truth, &labels, true);
    let floor = if o.min_value > 0 { 1.0 } else { 0.0 };
    let ncols = truth[0].len();
    let is_total =
        |r: usize, c: usize| c == ncols - 1 || labels[r].to_lowercase().ends_with("total");
    let mut hidden: Vec<(usize, usize)> = Vec::new();
    for (r, row) in truth.iter().enumerate() {
        for (c, v) in row.iter().enumerate() {
            if let Some(v) = v {
                if *v >= o.min_value && *v < o.threshold {
                    hidden.push((r, c));
                }
            }
        }
    }
    for _ in 0..100 {
        let published: Vec<Vec<Option<u64>>> = truth
            .iter()
            .enumerate()
            .map(|(r, row)| {
                row.iter()
                    .enumerate()
                    .map(|(c, v)| if hidden.contains(&(r, c)) { None } else { *v })
                    .collect()
            })
            .collect();
        let point = lp_intervals(&published, &eqs, floor)
            .into_iter()
            .find(|(_, lo, hi)| hi - lo < 1.0 - 1e-6);
        let Some(((r, c), _, _)) = point else {
            return hidden.len();
        };
        let mut best: Option<(u64, (usize, usize))> = None;
        let candidates = (0..ncols)
            .map(|cc| (r, cc))
            .chain((0..truth.len()).map(|rr| (rr, c)));
        for (rr, cc) in candidates {
            if hidden.contains(&(rr, cc)) || is_total(rr, cc) {
                continue;
            }
            if let Some(v) = truth[rr][cc] {
                if (v as f64) > floor && best.is_none_or(|(bv, _)| v < bv) {
                    best = Some((v, (rr, cc)));
                }
            }
        }
        match best {
            Some((_, cell)) => hidden.push(cell),
            None => return usize::MAX, // the reference cannot protect this table
        }
    }
    usize::MAX
}

#[test]
fn hides_no_more_than_one_and_a_half_times_a_greedy_reference() {
    let mut seed = 99u64;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % 1000
    };
    let o = TableOptions::default();
    let (mut ours, mut reference, mut tables) = (0usize, 0usize, 0usize);
    let mut worst = 0.0f64;
    for _ in 0..60 {
        let rows = 2 + (next() % 4) as usize;
        let cols = 2 + (next() % 4) as usize;
        let cells: Vec<u64> = (0..rows * cols)
            .map(|_| {
                let x = next();
                if x < 200 {
                    1 + x % 4
                } else if x < 250 {
                    0
                } else {
                    5 + x % 60
                }
            })
            .collect();
        let text = render(&cells, rows, cols, false);
        let reference_hidden = greedy_reference(&text, &o);
        if reference_hidden == usize::MAX {
            continue;
        }
        let r = scan(&text, &o);
        let n = r.suppressed().len();
        if reference_hidden > 0 {
            worst = worst.max(n as f64 / reference_hidden as f64);
        }
        ours += n;
        reference += reference_hidden;
        tables += 1;
    }
    eprintln!(
        "{tables} tables: {ours} cells hidden, greedy reference {reference}, worst table ratio {worst:.2}"
    );
    assert!(tables >= 30);
    assert!(
        ours as f64 <= 1.5 * reference as f64,
        "{ours} hidden vs reference {reference}"
    );
}

#[test]
fn adversarial_labels_and_wide_markdown_finish() {
    // Every row claims to be a subtotal and none adds up.
    let mut text = String::from("area,a,b,total\n");
    for i in 0..5_000 {
        text.push_str(&format!("Subtotal {i},{},{},{}\n", i % 7, i % 5 + 5, i % 3));
    }
    let r = run(&text);
    assert_eq!(r.tables.len(), 1);
    assert!(r.tables[0].audit_passed());

    // A large aligned Markdown table, every cell small: re-padding stays
    // per line.
    let mut md = String::from("| g | a | b | c |\n|---|---|---|---|\n");
    for i in 0..2_000 {
        md.push_str(&format!(
            "| r{i:04} | {} | {} | {} |\n",
            1 + i % 4,
            1 + i % 3,
            2 + i % 2
        ));
    }
    let r = run(&md);
    assert_eq!(r.tables[0].hidden.len(), 6_000);
    assert!(r.text.lines().count() == 2_002);
}

// ------------------------------------------------ idempotence on odd bytes

/// A cell: a count (small or not), a word, or nothing, wrapped in bytes a
/// fuzzer likes (form feeds, NULs, tabs, quotes, spaces).
fn odd_cell() -> impl Strategy<Value = String> {
    let core = prop_oneof![
        3 => (0u64..12).prop_map(|v| v.to_string()),
        1 => (12u64..400).prop_map(|v| v.to_string()),
        1 => "[a-zA-Z%]{1,5}",
        1 => Just(String::new()),
        1 => Just("Total".to_string()),
    ];
    let wrap = prop_oneof![
        4 => Just(""),
        1 => Just("\x0c"),
        1 => Just("\0"),
        1 => Just(" "),
        1 => Just("\t"),
        1 => Just("\""),
        1 => Just("|"),
        1 => Just(";"),
        1 => Just(","),
    ];
    (wrap.clone(), core, wrap).prop_map(|(a, c, b)| format!("{a}{c}{b}"))
}

/// CSV-like text: a few rows of odd cells joined by one delimiter, with
/// odd lines (form feeds, NULs, blanks, markdown separators) among them.
fn odd_table() -> impl Strategy<Value = String> {
    let delim = prop_oneof![Just(","), Just(";"), Just("\t"), Just(" | "), Just("|")];
    let extra = prop_oneof![
        6 => Just(None),
        1 => Just(Some("\x0c")),
        1 => Just(Some("\0")),
        1 => Just(Some("")),
        1 => Just(Some("|---|---|")),
        1 => Just(Some("\x0c\0,\x0c")),
    ];
    (
        delim,
        2usize..5,
        proptest::collection::vec((proptest::collection::vec(odd_cell(), 2..5), extra), 2..7),
    )
        .prop_map(|(d, width, rows)| {
            let mut out = String::new();
            for (mut cells, extra) in rows {
                cells.truncate(width);
                out.push_str(&cells.join(d));
                out.push('\n');
                if let Some(e) = extra {
                    out.push_str(e);
                    out.push('\n');
                }
            }
            out
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    /// A second pass over any output hides nothing more: one pass never
    /// publishes a count that a second pass would find small.
    #[test]
    fn second_pass_hides_nothing_more_on_odd_bytes(text in odd_table()) {
        let o = TableOptions::default();
        let once = scan(&text, &o);
        let twice = scan(&once.text, &o);
        prop_assert_eq!(&once.text, &twice.text, "input {:?}", text);
    }
}

/// A fuzzer-style sweep (run with `--ignored`): random short texts over the
/// bytes tables are made of plus form feeds and NULs.
#[test]
#[ignore = "a long random sweep; the proptest above runs by default"]
fn random_byte_sweep_is_idempotent() {
    const ALPHABET: &[u8] = b"0123456789,,,;\t|\n\n\n\x0c\0 \"aT%-.";
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let o = TableOptions::default();
    let n = 200_000u64;
    for _ in 0..n {
        let len = 20 + (next() % 140) as usize;
        let bytes: Vec<u8> = (0..len)
            .map(|_| ALPHABET[(next() % ALPHABET.len() as u64) as usize])
            .collect();
        let text = String::from_utf8(bytes).unwrap();
        let once = scan(&text, &o);
        let twice = scan(&once.text, &o);
        assert_eq!(once.text, twice.text, "input {text:?}");
    }
}

/// Found by the sweep above: hiding the `8%` beside a bare `4` left a
/// column whose only `%` cell was gone, so a second pass read the `4` above
/// as a count and hid it; and a hidden non-number made a second pass take
/// the first row for a header. Both publish in one pass what a second hides.
#[test]
fn sweep_regressions_are_idempotent() {
    let o = TableOptions::default();
    for text in [
        ",7-\n4,\n8%,4\n",
        "7\",9\0\u{c}03%,0\n3,3 .4,1\n",
        "\n\x006\u{c}4T\n\na\x004\n\n;T\n,6,\n,7-\n4,\n8%,4\n1\n- a\0\n\n,50\n",
    ] {
        let once = scan(text, &o);
        let twice = scan(&once.text, &o);
        assert_eq!(once.text, twice.text, "input {text:?}");
    }
}

/// A large table (more hidden cells than the LP audit takes on) with a row
/// whose counts are all at the floor and whose total is small too: no set
/// of data cells can move its cells, so a total must be hidden. It used to
/// make the certificate search give up and hide every count (found on a
/// 2 MB generated table); now one total more is hidden.
#[test]
fn a_row_only_totals_can_protect_costs_a_total_not_the_table() {
    let mut seed = 7u64;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % 1000
    };
    let mut text = String::from("area,c0,c1,c2,c3,total\n");
    let mut sums = [0u64; 5];
    for r in 0..2_400 {
        let mut row: Vec<u64> = (0..4)
            .map(|_| {
                let x = next();
                if x < 250 {
                    1 + x % 4
                } else {
                    5 + x % 900
                }
            })
            .collect();
        if r == 1_200 {
            row = vec![1, 1, 1, 1];
        }
        let total: u64 = row.iter().sum();
        row.push(total);
        for (s, v) in sums.iter_mut().zip(&row) {
            *s += v;
        }
        let cells: Vec<String> = row.iter().map(u64::to_string).collect();
        text.push_str(&format!("a{r},{}\n", cells.join(",")));
    }
    let cells: Vec<String> = sums.iter().map(u64::to_string).collect();
    text.push_str(&format!("Total,{}\n", cells.join(",")));
    let r = run(&text);
    let t = &r.tables[0];
    assert!(t.hidden.len() > audit::LP_MAX_HIDDEN, "the LP must not run");
    assert!(!t.fallback, "every count hidden");
    assert!(t.audit_passed());
    assert!(
        (1..=4).contains(&t.loss.totals),
        "{} totals hidden",
        t.loss.totals
    );
    let again = run(&r.text);
    assert_eq!(again.text, r.text);
}

/// A grand total over unlabelled subtotals in a table too long for the
/// exhaustive search (found on the fresh corpus's Norwegian table: `i alt`
/// subtotals below each county, `Hele landet` at the bottom). The subtotals
/// are not contiguous, so neither the runs nor "all rows" found it, and a
/// hidden subtotal was exactly the grand total minus the others once a
/// coincidental relation kept a detail row out of "all the details".
#[test]
fn a_grand_total_over_unlabelled_subtotals_is_a_relation() {
    let mut text = String::from("| Kommune | Menn | Kvinner |\n|---|---|---|\n");
    let mut grand = [0u64; 2];
    for g in 0..5u64 {
        let mut sub = [0u64; 2];
        for k in 0..6u64 {
            // One detail row is, by coincidence, the sum of two others
            // (2, 30) = (2, 0) + (0, 30): it becomes a target, so the
            // details alone no longer add up to the grand total.
            let row = match (g, k) {
                (1, 3) => [2, 30],
                (1, 5) => [2, 0],
                (2, 0) => [0, 30],
                _ => [(g * 7 + k * 3) % 11 + 1, (g * 5 + k * 7) % 13 + 2],
            };
            sub[0] += row[0];
            sub[1] += row[1];
            text.push_str(&format!("| G{g}-{k} | {} | {} |\n", row[0], row[1]));
        }
        grand[0] += sub[0];
        grand[1] += sub[1];
        text.push_str(&format!("| Fylke {g} i alt | {} | {} |\n", sub[0], sub[1]));
    }
    text.push_str(&format!("| Hele landet | {} | {} |\n", grand[0], grand[1]));
    let raws = parse::find_tables(&text);
    let m = model::build(&raws[0], MARKER);
    let last = m.nrows - 1;
    let subtotals: Vec<usize> = (0..5).map(|g| g * 7 + 6).collect();
    assert!(
        m.row_rel
            .iter()
            .any(|(t, ms)| *t == last && *ms == subtotals),
        "{:?}",
        m.row_rel
    );
}

/// A column of counts under a header that usually names an identifier or
/// a period ("Week") is still a total when the numbers say so: the Sat and
/// Sun counts are bounded by it, so it is a relation, and the id-column
/// trap (1, 2, 3… that is no sum) stays out.
#[test]
fn a_total_under_an_identifier_header_is_found_by_its_numbers() {
    let text = "Site,Mon,Tue,Wed,Thu,Fri,Sat,Sun,Week\n\
                Leeds,12,15,11,14,18,6,3,79\n\
                York,22,25,19,24,30,9,8,137\n\
                Ripon,7,4,9,6,11,2,1,40\n\
                Hull,30,33,28,35,41,14,12,193\n";
    let raws = parse::find_tables(text);
    let m = model::build(&raws[0], MARKER);
    assert_eq!(m.col_rel.len(), 1, "{:?}", m.col_rel);
    assert_eq!(m.col_rel[0].0, 8);
    assert_eq!(m.col_rel[0].1, (1..8).collect::<Vec<_>>());
    let opts = TableOptions {
        threshold: 10,
        ..TableOptions::default()
    };
    let out = scan(text, &opts);
    // Every hidden count has room: Leeds's weekend (6 + 3 = 79 − 70) needs
    // a weekday beside it.
    assert!(out.tables[0].audit_passed() && out.tables[0].loss.totals == 0);
    let leeds = out.text.lines().nth(1).unwrap_or("");
    assert!(leeds.matches(MARKER).count() >= 3, "{leeds}");
    // The trap: an `id` column of 1..n is no one's total.
    let mut trap = String::from("id,a,b\n");
    for i in 1..=30u64 {
        trap.push_str(&format!("{i},{},{}\n", 20 + i % 7, 30 + i % 5));
    }
    let raws = parse::find_tables(&trap);
    let m = model::build(&raws[0], MARKER);
    assert!(m.col_rel.is_empty(), "{:?}", m.col_rel);
}

/// Publishing a total can leave a hidden complementary cell exactly
/// determined (the grand total fixes the sum of its hidden members); such a
/// cell protects nothing and is published with it, so least loss does not
/// stall at the first total it tries. The employment table of the third
/// fresh corpus hid 6 totals and 14 data cells before; 3 and 6 suffice.
#[test]
fn pruning_publishes_the_cells_a_reveal_determines() {
    let text = "| Area | Full-time | Part-time | Employed | Unemployed | Total |\n\
                |---|---|---|---|---|---|\n\
                | North | 88 | 31 | 119 | 9 | 128 |\n\
                | East | 64 | 12 | 76 | 7 | 83 |\n\
                | South | 120 | 44 | 164 | 18 | 182 |\n\
                | West | 23 | 5 | 28 | 2 | 30 |\n\
                | All areas | 295 | 92 | 387 | 36 | 423 |\n";
    let opts = TableOptions {
        threshold: 10,
        ..TableOptions::default()
    };
    let r = scan(text, &opts);
    let t = &r.tables[0];
    assert!(t.audit_passed() && t.audited);
    assert!(t.loss.totals <= 3, "{:?}", t.loss);
    assert!(t.loss.cells <= 6, "{:?}", t.loss);
    assert!(r.text.contains("| All areas | 295 | 92 | 387 | 36 | 423 |"));
    assert_eq!(scan(&r.text, &opts).text, r.text);
}

/// A phone or e-mail word that begins a compound header names whose
/// contact it is (`telefone_responsavel`): a direct identifier at any row
/// count. A count under such a header (`phone_calls`) is no identifier,
/// and neither is a `cell_…` column.
#[test]
fn compound_contact_headers_are_direct_identifiers() {
    let opts = TableOptions::default();
    for text in [
        "nome,turma,telefone_responsavel\nAna Souza,4A,(11) 98452-1177\nBruno Lima,4B,(11) 99731-0420\n",
        "pupil,class,email_parent\nP1,4A,ana.souza@example.org\nP2,4B,b.lima@example.org\n",
        "nome,data_nascimento,turma\nAna Souza,2015-03-11,4A\nBruno Lima,2015-07-02,4B\n",
    ] {
        assert!(scan(text, &opts).microdata(), "{text}");
    }
    for text in [
        "region,phone_calls,visits\nNorth,1234567,40\nSouth,2345678,52\n",
        "region,cell_count,visits\nNorth,1234567,40\nSouth,2345678,52\n",
    ] {
        assert!(!scan(text, &opts).microdata(), "{text}");
    }
}

#[test]
fn a_log_line_after_a_printed_table_is_no_row_of_it() {
    let text = "$ cohortctl summary --by site,outcome\n\
                [info] loaded 133 participants\n\
                site          remission    partial    no_response    total\n\
                Aldermoor            31         12              7       50\n\
                Brackwater            9         15             18       42\n\
                Cottis Hill          26          4             11       41\n\
                all sites            66         31             36      133\n\
                [info] done in 0.82s\n";
    let r = scan(text, &TableOptions::default());
    assert_eq!(r.tables.len(), 1, "{}", r.text);
    assert_eq!(r.tables[0].rows, 4, "{}", r.text);
    assert!(r.tables[0].audit_passed(), "{}", r.text);
    assert!(!r.tables[0].hidden.is_empty(), "{}", r.text);
    assert!(r.text.ends_with("[info] done in 0.82s\n"), "{}", r.text);
    assert!(
        !r.text.contains(" 4 ") && !r.text.contains(" 7 "),
        "{}",
        r.text
    );
}
