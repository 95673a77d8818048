//! Least loss on the fresh-eyes corpus (`testdata/table_fresh2.jsonl`),
//! against a greedy safe reference built here without the library's model:
//! each table is split again from its text, its relations are found by
//! brute force from the numbers, and for every cell that is still too
//! narrow under an LP attacker the reference hides the smallest data cell
//! of the cell's own equations that makes it safe (else the smallest that
//! widens it), a total only when no data cell helps. The library may hide
//! no more totals than the reference in any table.
//!
//! Measured on this corpus: 35 tables compared, 6 totals hidden by the
//! library against the reference's 5, the difference in the one table of
//! [`OPEN`] (and one table under it, 3 against 4); complementary cells 177
//! against 172.
//!
//! The reference takes from the library only where the tables are (span,
//! rows, columns) and how wide each primary cell must be (its reported
//! `required_width`); JSON tables are left out (their cells are tokens of a
//! document, not lines).

#![allow(missing_docs)] // integration test crate
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use microlp::{ComparisonOp, OptimizationDirection, Problem};
use palisade_egress::table::{scan, HideReason, TableKind, TableOptions, TableResult};
use serde_json::Value;

/// One equation: cells `(row, column)` with coefficients, summing to zero.
type Eqn = Vec<(usize, usize, f64)>;

/// A line-number prefix of `cat -n` or read_file (`     1\t`, `     1|`).
fn strip_prefix(line: &str) -> &str {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    let rest = &line[spaces..];
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 || spaces + digits < 6 {
        return line;
    }
    let rest = &rest[digits..];
    for sep in ["\t", "|", "→"] {
        if let Some(r) = rest.strip_prefix(sep) {
            return r;
        }
    }
    line
}

fn is_rule(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty()
        && t.chars()
            .all(|c| "-:|+ ".contains(c) || ('\u{2500}'..='\u{257F}').contains(&c))
}

/// Split a CSV line on `delim`, honouring quotes.
fn split_quoted(line: &str, delim: char) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for ch in line.chars() {
        match ch {
            '"' => quoted = !quoted,
            c if c == delim && !quoted => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// The table's lines split into cells: header first, then the data rows.
fn split_table(text: &str, t: &TableResult) -> Option<Vec<Vec<String>>> {
    let body = text.get(t.span.start..t.span.end)?;
    let lines: Vec<&str> = body
        .lines()
        .map(strip_prefix)
        .filter(|l| !l.trim().is_empty() && !is_rule(l))
        .collect();
    let pipes: &[char] = &['|', '│', '┃', '║'];
    let rows: Vec<Vec<String>> = lines
        .iter()
        .map(|l| match t.kind {
            TableKind::Markdown => {
                let l = l.trim();
                let l = l.strip_prefix(pipes).unwrap_or(l);
                let l = l.strip_suffix(pipes).unwrap_or(l);
                l.split(pipes).map(|c| c.trim().to_string()).collect()
            }
            TableKind::Tsv => l.split('\t').map(|c| c.trim().to_string()).collect(),
            _ => {
                let comma = split_quoted(l, ',');
                let cells = if comma.len() == t.columns {
                    comma
                } else {
                    split_quoted(l, ';')
                };
                cells.into_iter().map(|c| c.trim().to_string()).collect()
            }
        })
        .collect();
    rows.iter().all(|r| r.len() == t.columns).then_some(rows)
}

/// A count: digits with optional thousands commas, Markdown bold around.
fn count(cell: &str) -> Option<u64> {
    let c = cell.trim_matches('*').trim();
    if c.is_empty() || !c.bytes().all(|b| b.is_ascii_digit() || b == b',') {
        return None;
    }
    c.replace(',', "").parse().ok()
}

/// Every relation `target = Σ members` among `lines` (each a vector over
/// the other direction), members a set of two or more other lines: every
/// subset when there are few lines, else the contiguous runs beside the
/// target, all the others, and the tops of the relations found.
fn relations(lines: &[Vec<Option<u64>>]) -> Vec<(usize, Vec<usize>)> {
    let n = lines.len();
    let width = lines.first().map_or(0, Vec::len);
    let holds = |t: usize, set: &[usize]| -> bool {
        let mut nonzero = 0;
        let mut checked = 0;
        for (o, &tv) in lines[t].iter().enumerate() {
            let Some(tv) = tv else { continue };
            let Some(sum) = set.iter().map(|&k| lines[k][o]).sum::<Option<u64>>() else {
                continue;
            };
            if sum != tv {
                return false;
            }
            checked += 1;
            nonzero += usize::from(tv > 0);
        }
        checked > 0 && nonzero >= width.min(2)
    };
    let mut out = Vec::new();
    for t in 0..n {
        let rest: Vec<usize> = (0..n).filter(|&k| k != t).collect();
        let mut sets: Vec<Vec<usize>> = Vec::new();
        if rest.len() <= 12 {
            for mask in 1u32..(1 << rest.len()) {
                if mask.count_ones() >= 2 {
                    sets.push(
                        (0..rest.len())
                            .filter(|&k| mask >> k & 1 == 1)
                            .map(|k| rest[k])
                            .collect(),
                    );
                }
            }
        } else {
            sets.push(rest.clone());
            for a in 0..t {
                if t - a >= 2 {
                    sets.push((a..t).collect());
                }
            }
            for b in t + 2..n {
                sets.push((t + 1..=b).collect());
            }
        }
        for set in sets {
            if holds(t, &set) {
                out.push((t, set));
            }
        }
    }
    // Past the exhaustive size: a line over the tops of the relations found
    // (totals that are part of no other), as a grand total over subtotals.
    if n > 13 {
        let tops: Vec<usize> = (0..n)
            .filter(|&k| out.iter().any(|(t, _)| *t == k))
            .filter(|&k| !out.iter().any(|(_, ms)| ms.contains(&k)))
            .collect();
        for t in 0..n {
            let set: Vec<usize> = tops.iter().copied().filter(|&k| k != t).collect();
            if set.len() >= 2 && holds(t, &set) {
                out.push((t, set));
            }
        }
    }
    out
}

/// The LP interval of each cell of `ask` given the hidden cells.
fn intervals(
    grid: &[Vec<Option<u64>>],
    hidden: &[Vec<bool>],
    eqs: &[Eqn],
    floor: f64,
    ask: &[(usize, usize)],
) -> Vec<f64> {
    ask.iter()
        .map(|&target| {
            let mut ends = [0.0; 2];
            for (k, dir) in [
                OptimizationDirection::Minimize,
                OptimizationDirection::Maximize,
            ]
            .into_iter()
            .enumerate()
            {
                let mut lp = Problem::new(dir);
                let mut var = vec![vec![None; grid[0].len()]; grid.len()];
                for (r, row) in hidden.iter().enumerate() {
                    for (c, &h) in row.iter().enumerate() {
                        if h {
                            let obj = if (r, c) == target { 1.0 } else { 0.0 };
                            var[r][c] = Some(lp.add_var(obj, (floor, f64::INFINITY)));
                        }
                    }
                }
                for eq in eqs {
                    let mut terms = Vec::new();
                    let mut rhs = 0.0;
                    for &(r, c, a) in eq {
                        match var[r][c] {
                            Some(v) => terms.push((v, a)),
                            None => rhs -= a * grid[r][c].unwrap_or(0) as f64,
                        }
                    }
                    if !terms.is_empty() {
                        lp.add_constraint(terms, ComparisonOp::Eq, rhs);
                    }
                }
                ends[k] = match lp.solve() {
                    Ok(s) => s.into_solution().unwrap().objective(),
                    Err(microlp::Error::Unbounded) => f64::INFINITY,
                    Err(e) => panic!("reference LP failed: {e:?}"),
                };
            }
            (ends[1] + 1e-6).floor() - (ends[0] - 1e-6).ceil()
        })
        .collect()
}

/// What the reference hides in one table: `(complementary cells, of which
/// totals)`, or `None` when it cannot protect the table.
fn greedy(
    grid: &[Vec<Option<u64>>],
    need: &[Vec<u64>],
    o: &TableOptions,
) -> Option<(usize, usize)> {
    let (nr, nc) = (grid.len(), grid[0].len());
    let transposed: Vec<Vec<Option<u64>>> = (0..nc)
        .map(|c| (0..nr).map(|r| grid[r][c]).collect())
        .collect();
    let mut eqs: Vec<Eqn> = Vec::new();
    let mut total = vec![vec![false; nc]; nr];
    for (t, ms) in relations(grid) {
        for c in 0..nc {
            if grid[t][c].is_some() {
                let mut eq = vec![(t, c, -1.0)];
                eq.extend(ms.iter().map(|&m| (m, c, 1.0)));
                eqs.push(eq);
                total[t][c] = true;
            }
        }
    }
    for (t, ms) in relations(&transposed) {
        for r in 0..nr {
            if grid[r][t].is_some() {
                let mut eq = vec![(r, t, -1.0)];
                eq.extend(ms.iter().map(|&m| (r, m, 1.0)));
                eqs.push(eq);
                total[r][t] = true;
            }
        }
    }
    let floor = if o.min_value > 0 { 1.0 } else { 0.0 };
    let mut hidden = vec![vec![false; nc]; nr];
    for r in 0..nr {
        for c in 0..nc {
            if grid[r][c].is_some_and(|v| v >= o.min_value && v < o.threshold) {
                hidden[r][c] = true;
            }
        }
    }
    let primary = hidden.clone();
    let needed = |r: usize, c: usize| if primary[r][c] { need[r][c].max(1) } else { 1 } as f64;
    // Hiding more only widens intervals, so a cell found wide enough
    // stays so and is not solved again.
    let mut settled = vec![vec![false; nc]; nr];
    for _ in 0..4 * nr * nc {
        let mut failing = None;
        for (r, c) in (0..nr).flat_map(|r| (0..nc).map(move |c| (r, c))) {
            if !hidden[r][c] || settled[r][c] {
                continue;
            }
            let w = intervals(grid, &hidden, &eqs, floor, &[(r, c)])[0];
            if w + 1e-9 < needed(r, c) {
                failing = Some(((r, c), w));
                break;
            }
            settled[r][c] = true;
        }
        let Some((p, before)) = failing else {
            let comp = (0..nr)
                .flat_map(|r| (0..nc).map(move |c| (r, c)))
                .filter(|&(r, c)| hidden[r][c] && !primary[r][c]);
            let (cells, totals) = comp.fold((0, 0), |(n, t), (r, c)| {
                (n + 1, t + usize::from(total[r][c]))
            });
            return Some((cells, totals));
        };
        // Visible counts of the failing cell's own equations.
        let visible_of = |eqs: &mut dyn Iterator<Item = &Eqn>| {
            let mut out: Vec<(bool, u64, (usize, usize))> = eqs
                .flat_map(|eq| eq.iter().map(|&(r, c, _)| (r, c)))
                .filter(|&(r, c)| !hidden[r][c] && grid[r][c].is_some_and(|v| v as f64 > floor))
                .map(|(r, c)| (total[r][c], grid[r][c].unwrap_or(0), (r, c)))
                .collect();
            out.sort_unstable();
            out.dedup();
            out
        };
        let has = |eq: &Eqn, cell: (usize, usize)| eq.iter().any(|&(r, c, _)| (r, c) == cell);
        // The cell's own equations, then those of every hidden cell.
        let cands = visible_of(&mut eqs.iter().filter(|eq| has(eq, p)));
        let linked = visible_of(
            &mut eqs
                .iter()
                .filter(|eq| eq.iter().any(|&(r, c, _)| hidden[r][c])),
        );
        let mut widen = None;
        let mut safe = None;
        'pools: for (pool, is_total) in [
            (&cands, false),
            (&linked, false),
            (&cands, true),
            (&linked, true),
        ] {
            for &(_, _, (r, c)) in pool.iter().filter(|x| x.0 == is_total).take(12) {
                hidden[r][c] = true;
                let w = intervals(grid, &hidden, &eqs, floor, &[p])[0];
                hidden[r][c] = false;
                if w + 1e-9 >= needed(p.0, p.1) {
                    safe = Some((r, c));
                    break 'pools;
                }
                if w > before + 1e-9 && widen.is_none() {
                    widen = Some((r, c));
                }
            }
            if widen.is_some() {
                break;
            }
        }
        // No single cell widens it (a cycle needs several): hide the
        // smallest data cell of an equation where it is the only hidden
        // cell, else of any of its equations; a total only without one.
        let pinned = |eq: &&Eqn| eq.iter().filter(|&&(r, c, _)| hidden[r][c]).count() == 1;
        let alone: Vec<&Eqn> = eqs.iter().filter(|eq| has(eq, p)).filter(pinned).collect();
        let first_of = |eqs: &[&Eqn]| {
            cands
                .iter()
                .find(|&&(_, _, cell)| eqs.iter().any(|eq| has(eq, cell)))
                .map(|x| x.2)
        };
        let fallback = first_of(&alone).or_else(|| cands.first().map(|x| x.2));
        let Some((r, c)) = safe.or(widen).or(fallback) else {
            eprintln!(
                "stuck at {p:?} width {before} need {} hidden {hidden:?}",
                needed(p.0, p.1)
            );
            return None;
        };
        hidden[r][c] = true;
    }
    None
}

/// Tables where the library still hides more totals than the reference,
/// with why; the test fails when one of them is fixed, so the list stays
/// true.
const OPEN: &[(&str, &str)] = &[(
    "large_hier_municipalities_no_total_col",
    "2 totals vs 0: the library also knows a coincidental relation \
         (NOR-04 = NOR-06 + TRO-01 in both columns, (2, 30) = (2, 0) + (0, 30)) \
         the reference's search does not try; under it NOR-04 and NOR-06 are \
         equal and their subtotal must be hidden for width 4, and then a \
         second total so the first is not the grand total minus the others",
)];

#[test]
fn fresh_corpus_hides_no_more_totals_than_a_greedy_reference() {
    let (mut ours, mut reference, mut tables, mut skipped) = (0usize, 0usize, 0usize, 0usize);
    let (mut our_cells, mut ref_cells) = (0usize, 0usize);
    let mut worse = Vec::new();
    for line in include_str!("../testdata/table_fresh2.jsonl").lines() {
        let case: Value = serde_json::from_str(line).unwrap();
        if case["kind"] != "aggregate" {
            continue;
        }
        let name = case["name"].as_str().unwrap();
        let text = case["input"]["text"].as_str().unwrap();
        let mut o = TableOptions::default();
        if let Some(t) = case["input"]["threshold"].as_u64() {
            o.threshold = t;
        }
        let report = scan(text, &o);
        for t in &report.tables {
            if t.microdata || !t.hidden.iter().any(|h| h.reason == HideReason::Primary) {
                continue;
            }
            if t.kind == TableKind::Json || text.as_bytes().get(t.span.start) == Some(&b'"') {
                skipped += 1;
                continue;
            }
            let Some(cells) = split_table(text, t) else {
                eprintln!(
                    "{name}: the table does not split into {} columns",
                    t.columns
                );
                skipped += 1;
                continue;
            };
            let data = &cells[cells.len() - t.rows..];
            let grid: Vec<Vec<Option<u64>>> = data
                .iter()
                .map(|r| r.iter().map(|c| count(c)).collect())
                .collect();
            let mut need = vec![vec![0u64; t.columns]; t.rows];
            for h in &t.hidden {
                need[h.row][h.column] = h.required_width;
            }
            let Some((cells, totals)) = greedy(&grid, &need, &o) else {
                eprintln!("{name}: the reference cannot protect it");
                skipped += 1;
                continue;
            };
            tables += 1;
            ours += t.loss.totals;
            reference += totals;
            our_cells += t.loss.cells;
            ref_cells += cells;
            if t.loss.totals + totals > 0 {
                eprintln!("{name}: totals {} vs {totals}", t.loss.totals);
            }
            let open = OPEN.iter().any(|(n, _)| *n == name);
            if t.loss.totals > totals && !open {
                worse.push(format!(
                    "{name}: {} totals hidden, the reference {totals}",
                    t.loss.totals
                ));
            }
            if t.loss.totals <= totals && open {
                worse.push(format!("{name}: fixed, take it off the open list"));
            }
        }
    }
    eprintln!(
        "{tables} tables ({skipped} left out): totals hidden {ours} vs the reference's \
         {reference}; complementary cells {our_cells} vs {ref_cells}"
    );
    assert!(tables >= 25, "only {tables} tables compared");
    assert!(worse.is_empty(), "{}", worse.join("\n"));
}
