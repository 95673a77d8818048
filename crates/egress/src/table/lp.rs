//! The exact audit: each hidden count's feasible interval by linear
//! programming over every relation of the model, then repair (hide more
//! until every primary cell is wide enough) and least loss (publish again
//! every complementary cell the audit does not need).
//!
//! The attacker's system: every relation of the model, instantiated on
//! every line (a row relation in every count column, a column relation in
//! every row), with the published cells as constants, and every hidden or
//! unknown cell a variable at least `floor`. The interval of a cell is
//! `[⌈min⌉, ⌊max⌋]` of its LP relaxation (solved by `microlp`): the
//! integer interval for the two-way and hierarchical tables whose systems
//! are totally unimodular, and an outer bound otherwise, so a width
//! measured this way is never more than what is certified below it when
//! the certificate search already proved the cell (that fast path needs no
//! LP at all).
//!
//! The work is bounded: only components (hidden cells linked through
//! equations) of at most [`MAX_VARS`] variables are solved, and a table
//! gets a bounded LP work budget ([`MAX_SOLVES`]); what is left keeps its
//! certificate.

use std::collections::{HashMap, HashSet};

use microlp::{ComparisonOp, OptimizationDirection, Problem};

use super::audit::{Protection, Reason};
use super::model::Model;

/// Most variables of one component the LP solves.
pub(crate) const MAX_VARS: usize = 80;
/// LP work one table may spend, in variables solved for (a solve of a
/// component of `v` variables costs `v`), so the audit's time stays
/// bounded whatever the table.
pub(crate) const MAX_SOLVES: usize = 40_000;
/// Tables up to this many cells get every hidden count solved exactly
/// (and least loss); larger ones only where the certificates fall short.
pub(crate) const EXACT_ALL_CELLS: usize = 1_200;
/// Cells tried per repair step.
const REPAIR_TRIES: usize = 6;
/// Repair steps per failing cell.
const REPAIR_STEPS: usize = 12;

/// One equation: a relation on one line.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash, PartialOrd, Ord)]
enum Eqn {
    /// Row relation `k` in column `c`.
    Row(u32, u32),
    /// Column relation `k` in row `r`.
    Col(u32, u32),
}

/// The relations indexed by line.
pub(crate) struct System<'a> {
    m: &'a Model,
    rows_of: Vec<Vec<u32>>,
    cols_of: Vec<Vec<u32>>,
    /// Solves left.
    budget: usize,
}

impl<'a> System<'a> {
    pub fn new(m: &'a Model) -> Self {
        let mut rows_of = vec![Vec::new(); m.nrows];
        for (k, (t, ms)) in m.row_rel.iter().enumerate() {
            for &r in std::iter::once(t).chain(ms) {
                if r < m.nrows && !rows_of[r].contains(&(k as u32)) {
                    rows_of[r].push(k as u32);
                }
            }
        }
        let mut cols_of = vec![Vec::new(); m.ncols];
        for (k, (t, ms)) in m.col_rel.iter().enumerate() {
            for &c in std::iter::once(t).chain(ms) {
                if c < m.ncols && !cols_of[c].contains(&(k as u32)) {
                    cols_of[c].push(k as u32);
                }
            }
        }
        System {
            m,
            rows_of,
            cols_of,
            budget: MAX_SOLVES,
        }
    }

    fn eqns_of(&self, cell: usize, out: &mut Vec<Eqn>) {
        let (r, c) = (cell / self.m.ncols, cell % self.m.ncols);
        if self.m.is_count_col(c) {
            out.extend(self.rows_of[r].iter().map(|&k| Eqn::Row(k, c as u32)));
        }
        out.extend(self.cols_of[c].iter().map(|&k| Eqn::Col(k, r as u32)));
    }

    /// The cells of an equation with their coefficients (target −1).
    fn cells(&self, e: Eqn, out: &mut Vec<(usize, f64)>) {
        let m = self.m;
        out.clear();
        match e {
            Eqn::Row(k, c) => {
                let (t, ms) = &m.row_rel[k as usize];
                let c = c as usize;
                out.push((m.idx(*t, c), -1.0));
                out.extend(ms.iter().map(|&r| (m.idx(r, c), 1.0)));
            }
            Eqn::Col(k, r) => {
                let (t, ms) = &m.col_rel[k as usize];
                let r = r as usize;
                out.push((m.idx(r, *t), -1.0));
                out.extend(ms.iter().map(|&c| (m.idx(r, c), 1.0)));
            }
        }
    }
}

/// A variable of the attacker's system: hidden, or unknown to begin with.
fn is_var(m: &Model, prot: &Protection, cell: usize) -> bool {
    prot.hidden[cell] || m.values.get(cell).is_none()
}

/// Hidden count cells linked to `seed` through equations, with the
/// equations; `Err` with the cells seen so far (all in the same component)
/// when the component has more than [`MAX_VARS`] variables.
#[allow(clippy::type_complexity)] // internal: the component or what was seen of it
fn component(
    sys: &System<'_>,
    prot: &Protection,
    seed: usize,
) -> Result<(Vec<usize>, Vec<Eqn>), Vec<usize>> {
    let m = sys.m;
    let mut seen: HashSet<usize> = HashSet::from([seed]);
    let mut eq_seen: HashSet<Eqn> = HashSet::new();
    let mut work = vec![seed];
    let mut eqs = Vec::new();
    let mut buf = Vec::new();
    let mut cells = Vec::new();
    while let Some(cell) = work.pop() {
        buf.clear();
        sys.eqns_of(cell, &mut buf);
        for &e in &buf {
            if !eq_seen.insert(e) {
                continue;
            }
            eqs.push(e);
            sys.cells(e, &mut cells);
            for &(q, _) in &cells {
                if is_var(m, prot, q) && seen.insert(q) {
                    if seen.len() > MAX_VARS {
                        return Err(seen.into_iter().collect());
                    }
                    work.push(q);
                }
            }
        }
    }
    let mut vars: Vec<usize> = seen.into_iter().collect();
    vars.sort_unstable();
    eqs.sort_unstable();
    Ok((vars, eqs))
}

/// The LP interval `[lo, hi]` (`hi = None`: unbounded) of each cell of
/// `ask`, over the equations `eqs`. `None` when the budget is spent or the
/// solver fails.
fn intervals(
    sys: &mut System<'_>,
    prot: &Protection,
    eqs: &[Eqn],
    ask: &[usize],
) -> Option<Vec<(u64, Option<u64>)>> {
    let m = sys.m;
    let cost = 2 * ask.len() * (eqs.len() + 1);
    if sys.budget < cost {
        sys.budget = 0;
        return None;
    }
    sys.budget -= cost;
    // Variables and rows once; each solve only changes the objective.
    let mut var_ix: HashMap<usize, usize> = HashMap::new();
    let mut rows: Vec<(Vec<(usize, f64)>, f64)> = Vec::with_capacity(eqs.len());
    let mut buf = Vec::new();
    for &e in eqs {
        sys.cells(e, &mut buf);
        let mut terms = Vec::new();
        let mut rhs = 0.0;
        for &(q, a) in &buf {
            if is_var(m, prot, q) {
                let n = var_ix.len();
                let v = *var_ix.entry(q).or_insert(n);
                terms.push((v, a));
            } else {
                rhs -= a * m.values.get(q).unwrap_or(0) as f64;
            }
        }
        if !terms.is_empty() {
            rows.push((terms, rhs));
        }
    }
    let floor = prot.floor as f64;
    let mut out = Vec::with_capacity(ask.len());
    for &p in ask {
        let target = *var_ix.get(&p)?;
        let mut ends = [0.0f64; 2];
        for (k, dir) in [
            OptimizationDirection::Minimize,
            OptimizationDirection::Maximize,
        ]
        .into_iter()
        .enumerate()
        {
            let mut lp = Problem::new(dir);
            let vars: Vec<_> = (0..var_ix.len())
                .map(|v| lp.add_var(if v == target { 1.0 } else { 0.0 }, (floor, f64::INFINITY)))
                .collect();
            for (terms, rhs) in &rows {
                let expr: Vec<_> = terms.iter().map(|&(v, a)| (vars[v], a)).collect();
                lp.add_constraint(expr, ComparisonOp::Eq, *rhs);
            }
            ends[k] = match lp.solve() {
                Ok(outcome) => outcome.into_solution().ok()?.objective(),
                Err(microlp::Error::Unbounded) if k == 1 => f64::INFINITY,
                Err(_) => return None,
            };
        }
        let lo = (ends[0] - 1e-6).ceil().max(0.0) as u64;
        let hi = ends[1]
            .is_finite()
            .then(|| (ends[1] + 1e-6).floor().max(0.0) as u64);
        out.push((lo, hi));
    }
    Some(out)
}

fn width((lo, hi): (u64, Option<u64>)) -> u64 {
    hi.map_or(u64::MAX, |h| h.saturating_sub(lo))
}

/// What each hidden cell needs: primary cells their required width, the
/// others only not to be a point.
fn need(prot: &Protection, cell: usize) -> u64 {
    if prot.reason[cell] == Some(Reason::Primary) {
        prot.required_of(cell).max(1)
    } else {
        1
    }
}

/// The hidden cells of a component whose interval falls short, with all
/// intervals; `None` when the LP could not answer.
#[allow(clippy::type_complexity)] // internal: the cells and their intervals
fn shortfalls(
    sys: &mut System<'_>,
    prot: &Protection,
    cells: &[usize],
) -> Option<(Vec<usize>, Vec<(u64, Option<u64>)>)> {
    let m = sys.m;
    let ask: Vec<usize> = cells
        .iter()
        .copied()
        .filter(|&q| prot.hidden[q] && m.values.get(q).is_some())
        .collect();
    let mut eqs = Vec::new();
    let mut seen = HashSet::new();
    let mut buf = Vec::new();
    for &q in &ask {
        buf.clear();
        sys.eqns_of(q, &mut buf);
        for &e in &buf {
            if seen.insert(e) {
                eqs.push(e);
            }
        }
    }
    let iv = intervals(sys, prot, &eqs, &ask)?;
    let short = ask
        .iter()
        .zip(&iv)
        .filter(|(&q, &i)| width(i) < need(prot, q))
        .map(|(&q, _)| q)
        .collect();
    Some((short, iv.into_iter().zip(ask).map(|(i, _)| i).collect()))
}

/// The outcome of the LP audit of one table.
pub(crate) struct Verdict {
    /// Every hidden count was solved and meets its requirement.
    pub audited: bool,
}

/// Audit `prot` exactly where the components are small enough; with
/// `repair`, hide more cells until every primary cell is wide enough, then
/// publish again the complementary cells that are not needed (totals
/// first, then the largest). Sets the exact room of every solved cell.
pub(crate) fn audit(m: &Model, prot: &mut Protection, repair: bool) -> Verdict {
    let mut sys = System::new(m);
    let n = m.nrows * m.ncols;
    let mut done = vec![false; n];
    let mut audited = true;
    for seed in 0..n {
        if !prot.hidden[seed] || done[seed] || m.values.get(seed).is_none() {
            continue;
        }
        let vars = match component(&sys, prot, seed) {
            Ok((vars, _)) => vars,
            Err(seen) => {
                audited = false;
                for q in seen {
                    done[q] = true;
                }
                done[seed] = true;
                continue;
            }
        };
        let mut cells: Vec<usize> = vars
            .into_iter()
            .filter(|&q| prot.hidden[q] && m.values.get(q).is_some())
            .collect();
        // The fast path: in a larger table, a component whose every cell
        // the certificates already prove needs no LP.
        let proven = cells.iter().all(|&q| prot.width(q) >= need(prot, q));
        if n > EXACT_ALL_CELLS && proven {
            for &q in &cells {
                done[q] = true;
            }
            done[seed] = true;
            continue;
        }
        if repair && !repair_component(&mut sys, prot, &mut cells) {
            audited = false;
        }
        if repair {
            prune_component(&mut sys, prot, &mut cells);
        }
        match shortfalls(&mut sys, prot, &cells) {
            Some((short, iv)) => {
                let asked: Vec<usize> = cells
                    .iter()
                    .copied()
                    .filter(|&q| prot.hidden[q] && m.values.get(q).is_some())
                    .collect();
                for (&q, &(lo, hi)) in asked.iter().zip(&iv) {
                    prot.set_exact(m, q, lo, hi);
                }
                if !short.is_empty() {
                    audited = false;
                }
            }
            None => audited = false,
        }
        for &q in &cells {
            done[q] = true;
        }
        done[seed] = true;
    }
    Verdict { audited }
}

/// Hide more cells until no cell of the component falls short. Returns
/// whether it got there.
fn repair_component(sys: &mut System<'_>, prot: &mut Protection, cells: &mut Vec<usize>) -> bool {
    let m = sys.m;
    let floor = prot.floor;
    for _ in 0..4 * REPAIR_STEPS {
        let Some((short, _)) = shortfalls(sys, prot, cells) else {
            return false;
        };
        let Some(&p) = short.first() else {
            return true;
        };
        // Candidates: published counts in the equations of the component,
        // data cells before totals, the cell's own lines first, then the
        // smallest values.
        let mut own = Vec::new();
        sys.eqns_of(p, &mut own);
        let mut all = Vec::new();
        for &q in cells.iter() {
            sys.eqns_of(q, &mut all);
        }
        all.sort_unstable();
        all.dedup();
        let mut cands: Vec<(bool, bool, u64, usize)> = Vec::new();
        let mut buf = Vec::new();
        for &e in &all {
            sys.cells(e, &mut buf);
            for &(q, _) in &buf {
                if prot.hidden[q] {
                    continue;
                }
                let Some(v) = m.values.get(q) else { continue };
                if v <= floor {
                    continue;
                }
                cands.push((m.total_cell[q], !own.contains(&e), v, q));
            }
        }
        cands.sort_unstable();
        cands.dedup_by_key(|c| c.3);
        if cands.is_empty() {
            return false;
        }
        let before = shortfalls_width(sys, prot, cells, p).unwrap_or(0);
        let mut best: Option<(u64, usize)> = None;
        for &(_, _, _, q) in cands.iter().take(REPAIR_TRIES) {
            prot.hidden[q] = true;
            let mut trial = cells.clone();
            trial.push(q);
            let w = shortfalls_width(sys, prot, &trial, p);
            prot.hidden[q] = false;
            let Some(w) = w else { return false };
            if w >= need(prot, p) {
                best = Some((w, q));
                break;
            }
            if w > before && best.is_none_or(|(bw, _)| w > bw) {
                best = Some((w, q));
            }
        }
        let q = best.map_or(cands[0].3, |(_, q)| q);
        prot.hidden[q] = true;
        prot.reason[q] = Some(Reason::Complementary);
        cells.push(q);
        // The new cell may link further equations: take in the component.
        if let Ok((vars, _)) = component(sys, prot, q) {
            for v in vars {
                if prot.hidden[v] && m.values.get(v).is_some() && !cells.contains(&v) {
                    cells.push(v);
                }
            }
        } else {
            return false;
        }
    }
    false
}

/// The width of `p` with the hidden set as it is.
fn shortfalls_width(
    sys: &mut System<'_>,
    prot: &Protection,
    cells: &[usize],
    p: usize,
) -> Option<u64> {
    let mut eqs = Vec::new();
    let mut seen = HashSet::new();
    let mut buf = Vec::new();
    for &q in cells {
        buf.clear();
        sys.eqns_of(q, &mut buf);
        for &e in &buf {
            if seen.insert(e) {
                eqs.push(e);
            }
        }
    }
    intervals(sys, prot, &eqs, &[p]).map(|iv| width(iv[0]))
}

/// Publish again every complementary cell the component does not need:
/// totals first, then the largest values. A complementary cell that a
/// reveal leaves exactly determined protects nothing and is published with
/// it (the attacker can work it out anyway): publishing a grand total
/// fixes the sum of its hidden members, and one of them may be that sum.
fn prune_component(sys: &mut System<'_>, prot: &mut Protection, cells: &mut Vec<usize>) {
    let m = sys.m;
    let mut order: Vec<usize> = cells
        .iter()
        .copied()
        .filter(|&q| prot.reason[q] == Some(Reason::Complementary))
        .collect();
    order.sort_by_key(|&q| {
        (
            std::cmp::Reverse(m.total_cell[q]),
            std::cmp::Reverse(m.values.get(q)),
            q,
        )
    });
    for q in order {
        if !prot.hidden[q] {
            continue; // published with an earlier one
        }
        let mut shown = vec![q];
        prot.hidden[q] = false;
        let mut rest: Vec<usize> = cells.iter().copied().filter(|&c| c != q).collect();
        let kept = loop {
            match shortfalls(sys, prot, &rest) {
                Some((short, _)) if short.is_empty() => break true,
                Some((short, _))
                    if short
                        .iter()
                        .all(|&c| prot.reason[c] == Some(Reason::Complementary)) =>
                {
                    // Each is a point now (a complementary cell needs only
                    // not to be one).
                    for &c in &short {
                        prot.hidden[c] = false;
                        shown.push(c);
                    }
                    rest.retain(|c| !short.contains(c));
                }
                _ => break false,
            }
        };
        if kept {
            for &c in &shown {
                prot.reason[c] = None;
            }
            *cells = rest;
        } else {
            for &c in &shown {
                prot.hidden[c] = true;
            }
        }
    }
}
