//! Additive relations found from the numbers alone, whatever the labels
//! say: a count column (row) that equals, in every row (column) where all
//! are known, the sum of a set of other count columns (rows). Contiguous
//! blocks, non-contiguous subsets, several totals over the same parts and
//! hierarchies of subtotals are all found the same way. When a relation
//! holds on the visible numbers, the attacker knows it; a coincidence only
//! costs extra suppression, never safety.
//!
//! # The search
//!
//! Each line (column or row) gets a fingerprint: a random-weighted sum of
//! its cells over the complete lines of the other direction (wrapping
//! 64-bit arithmetic, fixed weights, so the result is deterministic). A
//! relation that holds cell by cell holds on the fingerprints, so the
//! candidates are the subsets whose fingerprints add up; the arithmetic of
//! every cell then decides ([`verify`]).
//!
//! * Targets are taken smallest first, and members are lines *dominated* by
//!   the target (no cell larger), non-zero, and not targets themselves
//!   (parts before subtotals); only when that finds nothing are targets
//!   allowed as members.
//! * With at most [`MITM_MAX`] candidate members every subset is tried by
//!   meet-in-the-middle on the fingerprints (2 × 2^10 sums); with more,
//!   the natural subsets are tried: all of them, contiguous runs next to
//!   the target, the groups that share a label, and (for rows, once
//!   leaves alone find nothing) the tops of the relations found so far:
//!   the totals that are part of no other, as a grand total over
//!   subtotals.
//! * Several disjoint member sets of one target are all kept (a total of
//!   the age columns and of the sex columns).
//!
//! Rows are searched for at most [`ROW_TARGETS`] targets (the rows with
//! the largest sums), so the cost is linear in the table size.

use std::collections::HashMap;

use super::model::{ColKind, Model, RowRole};

/// Most candidate members tried by exhaustive meet-in-the-middle.
pub(crate) const MITM_MAX: usize = 20;
/// Most count columns a table may have for the column search.
const MAX_COLS: usize = 64;
/// Rows (largest sums first) tried as unlabelled row targets.
pub(crate) const ROW_TARGETS: usize = 16;
/// Disjoint member sets kept per target.
const SETS_PER_TARGET: usize = 3;

/// A fixed pseudo-random odd weight for line `k` (splitmix64).
fn weight(k: usize) -> u64 {
    let mut z = (k as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) | 1
}

/// A subset of `items` (indices into it) with at least two members whose
/// fingerprints add up to `target`, by meet-in-the-middle. `items.len()`
/// must be at most [`MITM_MAX`].
fn subset_with_sum(items: &[u64], target: u64) -> Option<Vec<usize>> {
    let n = items.len();
    if !(2..=MITM_MAX).contains(&n) {
        return None;
    }
    let half = n / 2;
    let (a, b) = items.split_at(half);
    let sums = |part: &[u64]| -> Vec<u64> {
        let mut out = vec![0u64; 1 << part.len()];
        for mask in 1usize..out.len() {
            let low = mask.trailing_zeros() as usize;
            out[mask] = out[mask & (mask - 1)].wrapping_add(part[low]);
        }
        out
    };
    let (sa, sb) = (sums(a), sums(b));
    let mut index: HashMap<u64, Vec<u32>> = HashMap::with_capacity(sa.len());
    for (mask, &s) in sa.iter().enumerate() {
        let e = index.entry(s).or_default();
        if e.len() < 4 {
            e.push(mask as u32);
        }
    }
    for (mb, &s) in sb.iter().enumerate() {
        let Some(masks) = index.get(&target.wrapping_sub(s)) else {
            continue;
        };
        for &ma in masks {
            let total = (ma as usize).count_ones() + mb.count_ones();
            if total >= 2 {
                let mut out: Vec<usize> = (0..half).filter(|&k| ma >> k & 1 == 1).collect();
                out.extend(
                    (0..n - half)
                        .filter(|&k| mb >> k & 1 == 1)
                        .map(|k| k + half),
                );
                return Some(out);
            }
        }
    }
    None
}

/// Whether `target = Σ members` holds in every line of the other direction
/// where all of them are known, and is non-zero in at least two of them
/// (one, in a table of one line). `cell(line, other)` reads a value.
fn verify(
    target: usize,
    members: &[usize],
    others: usize,
    cell: impl Fn(usize, usize) -> Option<u64>,
) -> bool {
    let mut nonzero = 0usize;
    'lines: for o in 0..others {
        let Some(t) = cell(target, o) else {
            continue;
        };
        let mut sum: u128 = 0;
        for &k in members {
            match cell(k, o) {
                Some(v) => sum += u128::from(v),
                None => continue 'lines,
            }
        }
        if sum != u128::from(t) {
            return false;
        }
        nonzero += usize::from(t > 0);
    }
    nonzero >= others.min(2)
}

/// Candidate member sets of `t` among `cands` (sorted by line index) by
/// fingerprint: every subset when few, else the natural ones.
fn candidate_sets(
    t: usize,
    cands: &[usize],
    print: &[u64],
    groups: &[Vec<usize>],
    space: f64,
    found: &mut Vec<Vec<usize>>,
) {
    let goal = print[t];
    let sum_of = |set: &[usize]| set.iter().fold(0u64, |s, &k| s.wrapping_add(print[k]));
    let mut pool: Vec<usize> = cands.to_vec();
    for _ in 0..SETS_PER_TARGET {
        if pool.len() < 2 {
            break;
        }
        // Every subset only when the target's values leave room for far
        // more sums than there are subsets: otherwise some subset adds up
        // by coincidence (a long table of small counts), and only the
        // natural subsets are tried.
        // A handful of candidates (at most 16 subsets) are always tried.
        let exhaustive = pool.len() <= 4
            || pool.len() <= MITM_MAX && space >= (pool.len() as f64).exp2() * 1024.0;
        let set = if exhaustive {
            let items: Vec<u64> = pool.iter().map(|&k| print[k]).collect();
            subset_with_sum(&items, goal).map(|ix| ix.into_iter().map(|i| pool[i]).collect())
        } else {
            natural_set(t, &pool, groups, goal, &sum_of)
        };
        let Some(set) = set else {
            break;
        };
        pool.retain(|k| !set.contains(k));
        found.push(set);
    }
}

/// For many candidates: all of them, runs of neighbours right above or
/// below the target, and label groups.
fn natural_set(
    t: usize,
    pool: &[usize],
    groups: &[Vec<usize>],
    goal: u64,
    sum_of: &dyn Fn(&[usize]) -> u64,
) -> Option<Vec<usize>> {
    if sum_of(pool) == goal {
        return Some(pool.to_vec());
    }
    let pos = pool.partition_point(|&k| k < t);
    // Runs ending right above the target, then starting right below it.
    let mut s = 0u64;
    for a in (0..pos).rev() {
        s = s.wrapping_add(sum_of(&pool[a..=a]));
        if pos - a >= 2 && s == goal {
            return Some(pool[a..pos].to_vec());
        }
    }
    let mut s = 0u64;
    for b in pos..pool.len() {
        s = s.wrapping_add(sum_of(&pool[b..=b]));
        if b + 1 - pos >= 2 && s == goal {
            return Some(pool[pos..=b].to_vec());
        }
    }
    for g in groups {
        let set: Vec<usize> = g
            .iter()
            .copied()
            .filter(|k| pool.binary_search(k).is_ok())
            .collect();
        if set.len() >= 2 && sum_of(&set) == goal {
            return Some(set);
        }
    }
    None
}

/// Column relations (`target column = Σ member columns` in every row).
///
/// `headed`: columns of counts whose header names an identifier or a
/// measure; they are tried as targets only, and become totals when the
/// arithmetic holds.
pub(crate) fn discover_columns(m: &mut Model, headed: &[usize]) {
    let members: Vec<usize> = (0..m.ncols).filter(|&c| m.is_count_col(c)).collect();
    let cols: Vec<usize> = {
        let mut all = members.clone();
        all.extend(headed.iter().copied().filter(|c| !members.contains(c)));
        all.sort_unstable();
        all
    };
    if members.len() < 2 || cols.len() < 3 || cols.len() > MAX_COLS || m.nrows == 0 {
        return;
    }
    let complete: Vec<usize> = (0..m.nrows)
        .filter(|&r| members.iter().all(|&c| m.values.get(m.idx(r, c)).is_some()))
        .collect();
    if complete.is_empty() {
        return;
    }
    let mut print = vec![0u64; m.ncols];
    let mut sum = vec![0u128; m.ncols];
    for &r in &complete {
        let w = weight(r);
        for &c in &cols {
            let v = m.values.get(m.idx(r, c)).unwrap_or(0);
            print[c] = print[c].wrapping_add(w.wrapping_mul(v));
            sum[c] += u128::from(v);
        }
    }
    let mut order = cols.clone();
    order.sort_by_key(|&c| (sum[c], c));
    let mut is_target = vec![false; m.ncols];
    for (t, _) in &m.col_rel {
        is_target[*t] = true;
    }
    // Dominance is only a filter (the arithmetic decides), so a sample of
    // rows keeps it linear.
    let dominated = |m: &Model, c: usize, t: usize| {
        complete
            .iter()
            .take(64)
            .all(|&r| m.values.get(m.idx(r, c)) <= m.values.get(m.idx(r, t)))
    };
    let mut new_rels: Vec<(usize, Vec<usize>)> = Vec::new();
    for &t in &order {
        if sum[t] == 0
            || complete
                .iter()
                .any(|&r| m.values.get(m.idx(r, t)).is_none())
        {
            continue;
        }
        // Members of relations this target already has are not tried again.
        let known: Vec<usize> = m
            .col_rel
            .iter()
            .filter(|(k, _)| *k == t)
            .flat_map(|(_, ms)| ms.iter().copied())
            .collect();
        for leaves_only in [true, false] {
            let cands: Vec<usize> = members
                .iter()
                .copied()
                .filter(|&c| {
                    c != t
                        && sum[c] > 0
                        && sum[c] <= sum[t]
                        && !known.contains(&c)
                        && (!leaves_only || !is_target[c])
                        && dominated(m, c, t)
                })
                .collect();
            let space = complete
                .iter()
                .filter(|&&r| !m.total_row(r))
                .map(|&r| m.values.get(m.idx(r, t)).map_or(1.0, |v| v as f64 + 1.0))
                .product::<f64>();
            let mut sets = Vec::new();
            candidate_sets(t, &cands, &print, &[], space, &mut sets);
            let before = new_rels.len();
            for set in sets {
                if verify(t, &set, m.nrows, |c, r| m.values.get(m.idx(r, c))) {
                    new_rels.push((t, set));
                }
            }
            if new_rels.len() > before {
                is_target[t] = true;
                break;
            }
        }
    }
    for (t, members) in new_rels {
        if m.kinds[t] != ColKind::Total {
            m.kinds[t] = ColKind::Total;
        }
        for r in 0..m.nrows {
            let ti = m.idx(r, t);
            m.total_cell[ti] = true;
        }
        m.col_rel.push((t, members));
    }
}

/// Row relations (`target row = Σ member rows` in every count column) for
/// the rows with the largest sums that are no relation's target yet.
/// `labels` are the label columns: rows sharing a label form candidate
/// groups.
pub(crate) fn discover_rows(m: &mut Model, labels: &[Vec<&str>]) {
    let cols: Vec<usize> = (0..m.ncols).filter(|&c| m.is_count_col(c)).collect();
    // A row relation is checked column by column: with one count column a
    // coincidence is too likely to be a relation anyone could know.
    if cols.len() < 2 || m.nrows < 3 {
        return;
    }
    let mut print = vec![0u64; m.nrows];
    let mut sum = vec![0u128; m.nrows];
    let mut known = vec![true; m.nrows];
    for r in 0..m.nrows {
        for &c in &cols {
            match m.values.get(m.idx(r, c)) {
                Some(v) => {
                    print[r] = print[r].wrapping_add(weight(c).wrapping_mul(v));
                    sum[r] += u128::from(v);
                }
                None => known[r] = false,
            }
        }
    }
    let mut is_target = vec![false; m.nrows];
    for (t, _) in &m.row_rel {
        is_target[*t] = true;
    }
    // The largest rows not yet targets, smallest of them first.
    let mut targets: Vec<usize> = (0..m.nrows)
        .filter(|&r| known[r] && sum[r] > 0 && !is_target[r])
        .collect();
    if targets.len() > ROW_TARGETS {
        targets.select_nth_unstable_by_key(ROW_TARGETS - 1, |&r| std::cmp::Reverse((sum[r], r)));
        targets.truncate(ROW_TARGETS);
    }
    targets.sort_by_key(|&r| (sum[r], r));
    // Label groups: rows sharing a value in a label column.
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for col in labels {
        let mut by: HashMap<&str, Vec<usize>> = HashMap::new();
        for (r, &v) in col.iter().enumerate() {
            if !v.is_empty() {
                by.entry(v).or_default().push(r);
            }
        }
        let mut gs: Vec<Vec<usize>> = by.into_values().filter(|g| g.len() >= 2).collect();
        gs.sort();
        groups.extend(gs.into_iter().take(256));
    }
    let mut new_rels: Vec<(usize, Vec<usize>)> = Vec::new();
    for &t in &targets {
        let known_members: Vec<usize> = m
            .row_rel
            .iter()
            .chain(new_rels.iter())
            .filter(|(k, _)| *k == t)
            .flat_map(|(_, ms)| ms.iter().copied())
            .collect();
        for leaves_only in [true, false] {
            let cands: Vec<usize> = (0..m.nrows)
                .filter(|&r| {
                    r != t
                        && known[r]
                        && sum[r] > 0
                        && sum[r] <= sum[t]
                        && (!leaves_only || !is_target[r])
                        && !known_members.contains(&r)
                        && cols
                            .iter()
                            .all(|&c| m.values.get(m.idx(r, c)) <= m.values.get(m.idx(t, c)))
                })
                .collect();
            let space = cols
                .iter()
                .filter(|&&c| m.kinds[c] != ColKind::Total)
                .map(|&c| m.values.get(m.idx(t, c)).map_or(1.0, |v| v as f64 + 1.0))
                .product::<f64>();
            let mut sets = Vec::new();
            if leaves_only {
                candidate_sets(t, &cands, &print, &groups, space, &mut sets);
            } else {
                // The rows that total others and are part of no total
                // themselves (labelled or found so far): a grand total over
                // them tops a hierarchy (`Σ subtotals`) and is rarely
                // contiguous.
                let mut member = vec![false; m.nrows];
                for (_, ms) in m.row_rel.iter().chain(&new_rels) {
                    ms.iter().for_each(|&r| member[r] = true);
                }
                let tops: Vec<usize> = (0..m.nrows)
                    .filter(|&r| r != t && is_target[r] && !member[r])
                    .collect();
                let mut with_totals = groups.clone();
                with_totals.push(tops);
                candidate_sets(t, &cands, &print, &with_totals, space, &mut sets);
            }
            let before = new_rels.len();
            for set in sets {
                let ok = set.len() >= 2
                    && cols.iter().all(|&c| {
                        let tv = m.values.get(m.idx(t, c));
                        let s: Option<u128> = set
                            .iter()
                            .map(|&r| m.values.get(m.idx(r, c)).map(u128::from))
                            .sum();
                        s == tv.map(u128::from)
                    })
                    && cols
                        .iter()
                        .filter(|&&c| m.values.get(m.idx(t, c)).is_some_and(|v| v > 0))
                        .count()
                        >= 2;
                if ok {
                    new_rels.push((t, set));
                }
            }
            if new_rels.len() > before {
                is_target[t] = true;
                break;
            }
        }
    }
    let top = new_rels.iter().map(|(t, _)| sum[*t]).max();
    for (t, members) in new_rels {
        if m.roles[t] == RowRole::Detail {
            m.roles[t] = if Some(sum[t]) == top && !m.roles.contains(&RowRole::Total) {
                RowRole::Total
            } else {
                RowRole::Subtotal
            };
        }
        for &c in &cols {
            let ti = m.idx(t, c);
            m.total_cell[ti] = true;
        }
        m.row_rel.push((t, members));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meet_in_the_middle_finds_non_contiguous_subsets() {
        let items = [3u64, 10, 4, 20, 5];
        let got = subset_with_sum(&items, 12).unwrap();
        let s: u64 = got.iter().map(|&i| items[i]).sum();
        assert_eq!(s, 12);
        assert!(got.len() >= 2);
        // A single item equal to the target is no relation.
        assert_eq!(subset_with_sum(&[7, 100], 7), None);
        assert_eq!(subset_with_sum(&[1, 2], 4), None);
    }

    #[test]
    fn verify_needs_every_known_line_and_nonzero_support() {
        // Lines: 0 = 1 + 2 over three others.
        let grid = [[3u64, 5, 0], [1, 2, 0], [2, 3, 0]];
        let cell = |l: usize, o: usize| Some(grid[l][o]);
        assert!(verify(0, &[1, 2], 3, cell));
        let bad = [[3u64, 5, 1], [1, 2, 0], [2, 3, 0]];
        assert!(!verify(0, &[1, 2], 3, |l, o| Some(bad[l][o])));
        // All-zero lines prove nothing.
        let zeros = [[0u64, 0], [0, 0], [0, 0]];
        assert!(!verify(0, &[1, 2], 2, |l, o| Some(zeros[l][o])));
    }
}
