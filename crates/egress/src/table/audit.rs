//! Complementary suppression with a certified audit.
//!
//! # The attacker
//!
//! The attacker sees every published cell and knows every additive relation
//! of the table (row totals, column totals, subtotals, the grand total), that
//! cells are integers, and that a hidden cell is at least `floor` (1 when
//! zeros are never hidden, `min_value: 1`; 0 otherwise). The feasible
//! interval of a hidden cell is the range of values it takes over all tables
//! that satisfy all of that.
//!
//! # The certificate
//!
//! Relations come in two separable families: row relations (`target row =
//! Σ member rows`, in every count column) and column relations (`target
//! column = Σ member columns`, in every row). A *row pattern* is an integer
//! vector over rows that every row relation maps to zero; a *column pattern*
//! likewise over columns. Their outer product `σ ⊗ τ` is then zero on every
//! equation of the table, so adding `t·(σ ⊗ τ)` to the true table gives
//! another table the attacker cannot rule out, for every integer `t` that
//! keeps the cells on its support at or above `floor`. When every cell of the
//! support is hidden, that proves the hidden cell at the pattern's corner can
//! take every value in `[x − dec, x + inc]`: an inner bound of its feasible
//! interval. The classic 2-D rectangle is `(e_i − e_i') ⊗ (e_j − e_j')`;
//! subtotal hierarchies give patterns such as `e_d + e_sub − e_d' − e_sub'`.
//! Patterns with disjoint supports add up.
//!
//! Each hidden cell gets certificates until its proven width reaches the
//! required width; complementary cells are chosen as the cheapest support
//! (fewest newly hidden cells, then the smallest values) that proves it.
//! Every newly hidden cell is itself certified by the same pattern. Because
//! hiding more cells only removes information, a certificate stays valid
//! whatever else is hidden later.
//!
//! The search is local (nearby rows and columns, bounded per cell), so it is
//! linear in the table size. A cell it cannot certify at all makes the whole
//! table's counts hidden (the fallback), which is always safe; so does a
//! cell the exact audit leaves a point, or a primary cell it leaves
//! narrower than half its required width.

use super::model::Model;

/// Why a cell is hidden.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) enum Reason {
    Primary,
    Complementary,
    Fallback,
}

/// The outcome of protecting one table's counts.
#[derive(Clone, Debug)]
pub(crate) struct Protection {
    pub hidden: Vec<bool>,
    pub reason: Vec<Option<Reason>>,
    /// Proven increase and decrease room per cell, stored in 32 bits each
    /// (see [`Protection::set_room`]): four bytes a cell, not sixteen.
    room: Vec<(u32, u32)>,
    /// Width each hidden cell was required to reach (saturated at `u32::MAX`).
    required: Vec<u32>,
    pub floor: u64,
    pub fallback: bool,
    /// Cells whose room is the exact LP interval (not only a certificate).
    pub exact: Vec<bool>,
    /// Whether every hidden count meets its requirement, proven by a
    /// certificate or solved exactly by the LP audit.
    pub audited: bool,
}

/// Stored room meaning "unbounded"; finite room saturates one below it,
/// which only understates what is proven (still a valid inner bound).
const UNBOUNDED: u32 = u32::MAX;

fn pack(x: u64) -> u32 {
    if x == u64::MAX {
        UNBOUNDED
    } else {
        u32::try_from(x).unwrap_or(UNBOUNDED - 1).min(UNBOUNDED - 1)
    }
}

fn unpack(x: u32) -> u64 {
    if x == UNBOUNDED {
        u64::MAX
    } else {
        u64::from(x)
    }
}

impl Protection {
    /// Proven (increase, decrease) room of a cell (`u64::MAX` = unbounded).
    pub fn room_of(&self, cell: usize) -> (u64, u64) {
        let (i, d) = self.room[cell];
        (unpack(i), unpack(d))
    }

    fn set_room(&mut self, cell: usize, (inc, dec): (u64, u64)) {
        self.room[cell] = (pack(inc), pack(dec));
    }

    /// The width a hidden cell was required to reach.
    pub fn required_of(&self, cell: usize) -> u64 {
        u64::from(self.required[cell])
    }

    /// Proven interval `(lo, hi)` of a hidden cell; `hi == None` is unbounded.
    pub fn interval(&self, m: &Model, cell: usize) -> Option<(u64, Option<u64>)> {
        let v = m.values.get(cell)?;
        let (inc, dec) = self.room_of(cell);
        let lo = v.saturating_sub(dec);
        let hi = if inc == u64::MAX {
            None
        } else {
            Some(v.saturating_add(inc))
        };
        Some((lo, hi))
    }

    /// Record the exact interval `[lo, hi]` the LP audit found for a cell.
    pub fn set_exact(&mut self, m: &Model, cell: usize, lo: u64, hi: Option<u64>) {
        let Some(v) = m.values.get(cell) else { return };
        let inc = hi.map_or(u64::MAX, |h| h.saturating_sub(v));
        self.set_room(cell, (inc, v.saturating_sub(lo)));
        self.exact[cell] = true;
    }

    /// Proven width of a hidden cell (`u64::MAX` = unbounded).
    pub fn width(&self, cell: usize) -> u64 {
        let (inc, dec) = self.room_of(cell);
        inc.saturating_add(dec)
    }
}

/// Settings of the protection.
pub(crate) struct Settings {
    pub threshold: u64,
    pub min_value: u64,
    pub width: u64,
}

/// One list per line, all in one allocation (offsets and items): a table
/// of half a million rows would otherwise pay a vector header and a heap
/// block per row for lists of one or two entries.
struct Lists<T> {
    at: Vec<u32>,
    items: Vec<T>,
}

impl<T: Copy> Lists<T> {
    /// Lists for lines `0..n` from `(line, item)` pairs sorted by line
    /// (stably: items keep their order within a line).
    fn build(n: usize, pairs: &[(u32, T)]) -> Self {
        debug_assert!(pairs.windows(2).all(|w| w[0].0 <= w[1].0));
        let mut at = vec![0u32; n + 1];
        for &(line, _) in pairs {
            if let Some(slot) = at.get_mut(line as usize + 1) {
                *slot += 1;
            }
        }
        for k in 0..n {
            at[k + 1] += at[k];
        }
        Lists {
            at,
            items: pairs.iter().map(|&(_, item)| item).collect(),
        }
    }

    /// The list of line `i` (empty out of range).
    fn get(&self, i: usize) -> &[T] {
        match (self.at.get(i), self.at.get(i + 1)) {
            (Some(&a), Some(&b)) => self.items.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// Rows (or columns) of patterns, per dimension. Line and relation numbers
/// are 32-bit: a table has at most [`super::parse::MAX_ROWS`] rows.
struct Patterns {
    /// Null pattern of each leaf (a row that is no relation's target);
    /// empty where it does not close.
    closure: Lists<(u32, i32)>,
    /// Leaves whose closure contains each row (a few, nearest first).
    holders: Lists<u32>,
    /// All leaves in order.
    leaves: Vec<u32>,
    /// Relations each row is a member of.
    member_of: Lists<u32>,
}

impl Patterns {
    /// Relations line `i` is a member of.
    fn member_of(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.member_of.get(i).iter().map(|&k| k as usize)
    }

    /// The closed pattern of leaf `leaf`, if it has one.
    fn closure(&self, leaf: usize) -> Option<&[(u32, i32)]> {
        let c = self.closure.get(leaf);
        (!c.is_empty()).then_some(c)
    }
}

const MAX_PATTERN: usize = 12;
/// Candidates looked at after the first one that meets the requirement.
const PATIENCE: usize = 32;
const MAX_HOLDERS: usize = 3;

fn patterns(n: usize, rels: &[(usize, Vec<usize>)], usable: &[bool]) -> Patterns {
    let mut member_pairs: Vec<(u32, u32)> = Vec::new();
    let mut target_pairs: Vec<(u32, u32)> = Vec::new();
    for (k, (t, members)) in rels.iter().enumerate() {
        if *t < n {
            target_pairs.push((*t as u32, k as u32));
        }
        for &m in members {
            if m < n {
                member_pairs.push((m as u32, k as u32));
            }
        }
    }
    member_pairs.sort_by_key(|&(line, _)| line);
    target_pairs.sort_by_key(|&(line, _)| line);
    let member_of = Lists::build(n, &member_pairs);
    drop(member_pairs);
    let target_of = Lists::build(n, &target_pairs);
    drop(target_pairs);
    let mut closure_pairs: Vec<(u32, (u32, i32))> = Vec::new();
    let mut holder_pairs: Vec<(u32, u32)> = Vec::new();
    let mut holders_of = vec![0u8; n];
    let mut leaves = Vec::new();
    for (leaf, &usable) in usable.iter().enumerate().take(n) {
        // Lines with no counts (label columns) can carry no pattern.
        if !target_of.get(leaf).is_empty() || !usable {
            continue;
        }
        leaves.push(leaf as u32);
        let Some(pattern) = close(leaf, rels, &member_of, &target_of) else {
            continue;
        };
        for &(r, _) in &pattern {
            if usize::from(holders_of[r]) < MAX_HOLDERS {
                holders_of[r] += 1;
                holder_pairs.push((r as u32, leaf as u32));
            }
        }
        closure_pairs.extend(pattern.iter().map(|&(r, v)| (leaf as u32, (r as u32, v))));
    }
    holder_pairs.sort_by_key(|&(line, _)| line);
    Patterns {
        closure: Lists::build(n, &closure_pairs),
        holders: Lists::build(n, &holder_pairs),
        leaves,
        member_of,
    }
}

/// The all-positive null pattern through `leaf`: the leaf plus the targets
/// of the relations it is in, transitively. `None` when it does not close
/// within the bound or does not verify.
fn close(
    leaf: usize,
    rels: &[(usize, Vec<usize>)],
    member_of: &Lists<u32>,
    target_of: &Lists<u32>,
) -> Option<Vec<(usize, i32)>> {
    let mut sigma: Vec<(usize, i32)> = vec![(leaf, 1)];
    let get = |s: &[(usize, i32)], r: usize| s.iter().find(|e| e.0 == r).map_or(0, |e| e.1);
    let rel_sum = |s: &[(usize, i32)], k: usize| -> i32 {
        let t = rels[k].0;
        let mut sum = -get(s, t);
        for &(r, v) in s {
            if member_of.get(r).contains(&(k as u32)) {
                sum += v;
            }
        }
        sum
    };
    let mut steps = 0;
    let mut work = vec![leaf];
    while let Some(r) = work.pop() {
        steps += 1;
        if steps > 4 * MAX_PATTERN || sigma.len() > MAX_PATTERN {
            return None;
        }
        for &k in member_of.get(r) {
            let k = k as usize;
            let sum = rel_sum(&sigma, k);
            if sum != 0 {
                let t = rels[k].0;
                match sigma.iter_mut().find(|e| e.0 == t) {
                    Some(e) => e.1 += sum,
                    None => sigma.push((t, sum)),
                }
                work.push(t);
            }
        }
    }
    sigma.retain(|e| e.1 != 0);
    // Verify: every relation touching the support sums to zero.
    for &(r, _) in &sigma {
        for &k in member_of.get(r).iter().chain(target_of.get(r)) {
            if rel_sum(&sigma, k as usize) != 0 {
                return None;
            }
        }
    }
    Some(sigma)
}

/// Null patterns through `i` with `σ_i = ±1`, small supports first.
fn patterns_through(p: &Patterns, i: usize, window: usize) -> Vec<Vec<(usize, i32)>> {
    let mut out: Vec<Vec<(usize, i32)>> = Vec::new();
    let pos = p.leaves.partition_point(|&l| (l as usize) < i);
    let widen = |c: &[(u32, i32)]| -> Vec<(usize, i32)> {
        c.iter().map(|&(r, v)| (r as usize, v)).collect()
    };
    for &leaf in p.holders.get(i) {
        let leaf = leaf as usize;
        let Some(base) = p.closure(leaf) else {
            continue;
        };
        let base = widen(base);
        if base.iter().any(|&(r, v)| r == i && v.abs() == 1) {
            out.push(base.clone());
        }
        let lo = pos.saturating_sub(window);
        let hi = (pos + window).min(p.leaves.len());
        let mut near: Vec<usize> = p.leaves[lo..hi].iter().map(|&l| l as usize).collect();
        near.sort_by_key(|&l| l.abs_diff(i));
        for other in near {
            if other == leaf {
                continue;
            }
            let Some(second) = p.closure(other) else {
                continue;
            };
            let mut diff = base.clone();
            for &(r, v) in second {
                let r = r as usize;
                match diff.iter_mut().find(|e| e.0 == r) {
                    Some(e) => e.1 -= v,
                    None => diff.push((r, -v)),
                }
            }
            diff.retain(|e| e.1 != 0);
            if diff.len() <= MAX_PATTERN && diff.iter().any(|&(r, v)| r == i && v.abs() == 1) {
                out.push(diff);
            }
        }
    }
    out.sort_by_key(Vec::len);
    out
}

struct Candidate {
    cells: Vec<(usize, i32)>,
    /// Totals it newly hides.
    new_totals: usize,
    new: usize,
    new_sum: u64,
}

impl Candidate {
    /// What it costs: totals first, then cells, then their values.
    fn cost(&self) -> (usize, usize, u64) {
        (self.new_totals, self.new, self.new_sum)
    }
}

/// Protect the counts of `m`: primary cells, then certified complementary
/// cells.
pub(crate) fn protect(m: &Model, s: &Settings) -> Protection {
    let n = m.nrows * m.ncols;
    let floor = u64::from(s.min_value > 0);
    let mut prot = Protection {
        hidden: vec![false; n],
        reason: vec![None; n],
        room: vec![(0, 0); n],
        required: vec![0; n],
        floor,
        fallback: false,
        exact: vec![false; n],
        audited: true,
    };
    let mut queue = Vec::new();
    for r in 0..m.nrows {
        for c in 0..m.ncols {
            let cell = m.idx(r, c);
            if let Some(v) = m.values.get(cell) {
                if v >= s.min_value && v < s.threshold {
                    prot.hidden[cell] = true;
                    prot.reason[cell] = Some(Reason::Primary);
                    queue.push(cell);
                }
            }
        }
    }
    if queue.is_empty() {
        return prot;
    }
    let rows = patterns(m.nrows, &m.row_rel, &vec![true; m.nrows]);
    let count_cols: Vec<bool> = (0..m.ncols).map(|c| m.is_count_col(c)).collect();
    let cols = patterns(m.ncols, &m.col_rel, &count_cols);
    let caps = caps(m, floor, &rows, &cols);
    let certified = certify_all(m, s, &caps, &mut prot, queue);
    // The exact audit: repairs what the certificates could not prove and
    // publishes again what is not needed. Tables too large for it keep
    // their certificates.
    let hidden_counts = prot.hidden.iter().filter(|&&h| h).count();
    let small = hidden_counts <= LP_MAX_HIDDEN;
    let verdict = small.then(|| super::lp::audit(m, &mut prot, true));
    let lp_ok = verdict.as_ref().is_some_and(|v| v.audited);
    prot.audited = lp_ok || (certified && all_proven(m, &prot));
    // A hidden cell the attacker can narrow to a point, or a primary cell
    // to less than half its required width, fails closed. The exact audit's
    // repair is greedy (one cell at a time) and can miss a chain that needs
    // several cells hidden at once. Between half and the full width the
    // table is published with `audited: false` and its narrowest interval.
    if (!certified && !lp_ok) || (!prot.audited && !all_within_half(m, &prot)) {
        // Fallback: hide every count cell, then certify again (nothing new
        // can be needed: every support is already hidden).
        prot.fallback = true;
        let mut all = Vec::new();
        for cell in 0..n {
            // Zeros stay visible when they are never hidden: the attacker
            // may assume a hidden cell is at least `floor`.
            if m.values.get(cell).is_some_and(|v| v >= floor) {
                if !prot.hidden[cell] {
                    prot.hidden[cell] = true;
                    prot.reason[cell] = Some(Reason::Fallback);
                }
                prot.set_room(cell, (0, 0));
                all.push(cell);
            }
        }
        certify_all(m, s, &caps, &mut prot, all);
        let small = prot.hidden.iter().filter(|&&h| h).count() <= LP_MAX_HIDDEN;
        let lp_ok = small && super::lp::audit(m, &mut prot, false).audited;
        prot.audited = lp_ok || all_proven(m, &prot);
    }
    prot
}

/// Whether no hidden cell is a point and every primary cell's proven width
/// is at least half its requirement (see [`protect`]).
fn all_within_half(m: &Model, prot: &Protection) -> bool {
    (0..prot.hidden.len()).all(|cell| {
        if !prot.hidden[cell] || m.values.get(cell).is_none() {
            return true;
        }
        let w = prot.width(cell);
        let half = if prot.reason[cell] == Some(Reason::Primary) {
            prot.required_of(cell).div_ceil(2)
        } else {
            0
        };
        w >= half.max(1)
    })
}

/// Most hidden cells of a table the LP audit takes on.
pub(crate) const LP_MAX_HIDDEN: usize = 2_000;

/// Whether every hidden count's proven room meets its requirement.
fn all_proven(m: &Model, prot: &Protection) -> bool {
    (0..prot.hidden.len()).all(|cell| {
        !prot.hidden[cell]
            || m.values.get(cell).is_none()
            || prot.width(cell) >= prot.required_of(cell).max(1)
    })
}

/// Patterns through the most recently used rows and columns. Cells are
/// certified mostly in row-major order, so a few entries catch nearly every
/// repeat; a bounded cache keeps memory linear in the cells, not in rows ×
/// patterns (a per-row cache cost more than the table itself).
struct PatternCache {
    rows: Lru,
    cols: Lru,
    wide_rows: Lru,
    wide_cols: Lru,
}

/// Entries kept per cache.
const CACHE_ENTRIES: usize = 64;

#[derive(Default)]
struct Lru {
    entries: std::collections::VecDeque<(usize, Vec<Pattern>)>,
}

impl Lru {
    fn get_or(&mut self, key: usize, make: impl FnOnce() -> Vec<Pattern>) -> usize {
        if let Some(pos) = self.entries.iter().position(|e| e.0 == key) {
            return pos;
        }
        if self.entries.len() >= CACHE_ENTRIES {
            self.entries.pop_front();
        }
        self.entries.push_back((key, make()));
        self.entries.len() - 1
    }

    fn at(&self, pos: usize) -> &[Pattern] {
        self.entries.get(pos).map_or(&[], |e| e.1.as_slice())
    }
}

type Pattern = Vec<(usize, i32)>;

/// Certify every cell in `queue` (and every cell hidden on the way).
/// Returns `false` when some cell has no certificate at all.
fn certify_all(
    m: &Model,
    s: &Settings,
    caps: &Caps<'_>,
    prot: &mut Protection,
    mut queue: Vec<usize>,
) -> bool {
    let mut cache = PatternCache {
        rows: Lru::default(),
        cols: Lru::default(),
        wide_rows: Lru::default(),
        wide_cols: Lru::default(),
    };
    let full_block = fully_hidden_flat_block(m, prot);
    let mut k = 0;
    while k < queue.len() {
        let p = queue[k];
        k += 1;
        // Primary cells need the protection width; complementary cells are
        // not sensitive themselves and need only not to be recoverable.
        let req = if prot.reason[p] == Some(Reason::Primary) {
            required(m, prot, caps, p, s.width)
        } else {
            1
        };
        prot.required[p] = u32::try_from(req).unwrap_or(u32::MAX);
        if prot.width(p) >= req {
            continue;
        }
        if let Some(block) = &full_block {
            if let Some(room) = frechet_room(m, prot, block, p) {
                prot.set_room(p, room);
                continue;
            }
        }
        // A local attempt, then a wider second look, with data cells only;
        // then, when data cells cannot protect the cell, a look that may
        // hide totals. All are bounded per cell (window and candidate
        // limits), so the audit stays linear.
        // A table small enough for the exact audit leaves totals to its
        // repair, which tries every data cell of the component first.
        let looks = if m.nrows * m.ncols <= super::lp::EXACT_ALL_CELLS {
            &ATTEMPTS[..2]
        } else {
            &ATTEMPTS[..]
        };
        let mut done = false;
        for (k, attempt) in looks.iter().enumerate() {
            let (i, j) = (p / m.ncols, p % m.ncols);
            let (rows_cache, cols_cache) = if k == 0 {
                (&mut cache.rows, &mut cache.cols)
            } else {
                (&mut cache.wide_rows, &mut cache.wide_cols)
            };
            let window = attempt.window;
            let row_at = rows_cache.get_or(i, || patterns_through(caps.rows, i, window));
            let col_at = cols_cache.get_or(j, || patterns_through(caps.cols, j, window));
            let (row_pats, col_pats) = (rows_cache.at(row_at), cols_cache.at(col_at));
            if certify(m, prot, row_pats, col_pats, p, req, attempt, &mut queue) {
                done = true;
                break;
            }
        }
        if !done && prot.width(p) == 0 {
            return false;
        }
    }
    true
}

/// Whether a certificate may hide published totals.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
enum Totals {
    /// Only data cells (and cells already hidden).
    Keep,
    /// Totals too, each counted before any number of data cells.
    LastResort,
}

/// One look for certificates of a cell.
struct Attempt {
    /// Leaves on each side of the cell whose patterns are combined.
    window: usize,
    /// Whether the best candidate is paid for even when it falls short.
    settle: bool,
    totals: Totals,
}

/// The looks, in order: near, wide, wide with totals. The wide look
/// with data cells settles for what it finds, so a total is hidden only
/// where data cells cannot reach the requirement.
const ATTEMPTS: [Attempt; 3] = [
    Attempt {
        window: 3,
        settle: false,
        totals: Totals::Keep,
    },
    Attempt {
        window: 64,
        settle: true,
        totals: Totals::Keep,
    },
    Attempt {
        window: 64,
        settle: true,
        totals: Totals::LastResort,
    },
];

/// Whether the table is one flat two-way block (one row relation, one
/// column relation) whose member cells are all hidden, with known values.
/// Returns the block's row and column membership.
fn fully_hidden_flat_block(m: &Model, prot: &Protection) -> Option<(Vec<bool>, Vec<bool>)> {
    if m.row_rel.len() != 1 || m.col_rel.len() != 1 {
        return None;
    }
    let (rows, cols) = (&m.row_rel[0].1, &m.col_rel[0].1);
    let full = rows.iter().all(|&r| {
        cols.iter().all(|&c| {
            let cell = m.idx(r, c);
            prot.hidden[cell] && m.values.get(cell).is_some()
        })
    });
    if !full {
        return None;
    }
    let mut in_rows = vec![false; m.nrows];
    let mut in_cols = vec![false; m.ncols];
    rows.iter().for_each(|&r| in_rows[r] = true);
    cols.iter().for_each(|&c| in_cols[c] = true);
    Some((in_rows, in_cols))
}

/// The exact interval of a cell of a fully hidden flat block with visible
/// margins: the Fréchet bounds of a two-way table, `y ∈ [max(0, R + C − N),
/// min(R, C)]` after removing the floors, which are sharp when the margins
/// are the only relations. `None` when the cell is not in the block or a
/// margin is hidden.
fn frechet_room(
    m: &Model,
    prot: &Protection,
    block: &(Vec<bool>, Vec<bool>),
    p: usize,
) -> Option<(u64, u64)> {
    let (i, j) = (p / m.ncols, p % m.ncols);
    let ((tk, rows), (tl, cols)) = (&m.row_rel[0], &m.col_rel[0]);
    if !block.0[i] || !block.1[j] {
        return None;
    }
    let visible = |cell: usize| (!prot.hidden[cell]).then(|| m.values.get(cell)).flatten();
    let f = prot.floor;
    let r = visible(m.idx(i, *tl))?.checked_sub(f * cols.len() as u64)?;
    let c = visible(m.idx(*tk, j))?.checked_sub(f * rows.len() as u64)?;
    let n = visible(m.idx(*tk, *tl))?.checked_sub(f * (rows.len() * cols.len()) as u64)?;
    let v = m.values.get(p)?.checked_sub(f)?;
    let lo = (r + c).saturating_sub(n);
    let hi = r.min(c);
    if v < lo || v > hi {
        return None; // inconsistent margins: leave it to the search
    }
    Some((hi - v, v - lo))
}

/// The width a hidden cell must reach: the configured width, capped by what
/// its visible totals allow. A cell of a row whose total is `T` lies in
/// `[floor, T − Σ others' floors]`, so it can never be uncertain by more
/// than that, however much else is hidden.
fn required(m: &Model, prot: &Protection, caps: &Caps<'_>, p: usize, width: u64) -> u64 {
    let (i, j) = (p / m.ncols, p % m.ncols);
    let floor = prot.floor;
    let own = m.values.get(p).map_or(floor, |v| v.min(floor));
    let mut cap = u64::MAX;
    let mut consider = |target: usize, floors: u64| {
        if !prot.hidden[target] {
            if let Some(t) = m.values.get(target) {
                let others = floors.saturating_sub(own);
                cap = cap.min(t.saturating_sub(others).saturating_sub(floor));
            }
        }
    };
    for k in caps.rows.member_of(i) {
        consider(m.idx(m.row_rel[k].0, j), caps.row_floors[k * m.ncols + j]);
    }
    for k in caps.cols.member_of(j) {
        consider(m.idx(i, m.col_rel[k].0), caps.col_floors[k * m.nrows + i]);
    }
    // Within a block with both margins and its grand total visible, the
    // Fréchet bounds of a two-way table are the widest the cell can be:
    // y ∈ [max(0, R + C − N), min(R, C)] over the floors-removed margins.
    let visible = |cell: usize| (!prot.hidden[cell]).then(|| m.values.get(cell)).flatten();
    for k in caps.rows.member_of(i) {
        for l in caps.cols.member_of(j) {
            let (tk, tl) = (m.row_rel[k].0, m.col_rel[l].0);
            let (Some(r), Some(c), Some(n)) = (
                visible(m.idx(i, tl)),
                visible(m.idx(tk, j)),
                visible(m.idx(tk, tl)),
            ) else {
                continue;
            };
            let r = r.saturating_sub(caps.col_floors[l * m.nrows + i]);
            let c = c.saturating_sub(caps.row_floors[k * m.ncols + j]);
            let n = n.saturating_sub(caps.block_floors[k * caps.ncol_rels + l]);
            let hi = r.min(c);
            let lo = (r + c).saturating_sub(n);
            cap = cap.min(hi.saturating_sub(lo));
        }
    }
    width.min(cap).max(1)
}

/// Patterns of both dimensions and, per relation and line, the sum of the
/// members' floors (`min(x, floor)`).
struct Caps<'a> {
    rows: &'a Patterns,
    cols: &'a Patterns,
    row_floors: Vec<u64>,
    col_floors: Vec<u64>,
    /// Sum of floors over (row relation k's members × column relation l's members).
    block_floors: Vec<u64>,
    ncol_rels: usize,
}

fn caps<'a>(m: &Model, floor: u64, rows: &'a Patterns, cols: &'a Patterns) -> Caps<'a> {
    let f = |cell: usize| m.values.get(cell).map_or(floor, |v| v.min(floor));
    let mut row_floors = vec![0u64; m.row_rel.len() * m.ncols];
    for (k, (_, members)) in m.row_rel.iter().enumerate() {
        for c in 0..m.ncols {
            row_floors[k * m.ncols + c] = members.iter().map(|&r| f(m.idx(r, c))).sum();
        }
    }
    let mut col_floors = vec![0u64; m.col_rel.len() * m.nrows];
    for (k, (_, members)) in m.col_rel.iter().enumerate() {
        for r in 0..m.nrows {
            col_floors[k * m.nrows + r] = members.iter().map(|&c| f(m.idx(r, c))).sum();
        }
    }
    let ncol_rels = m.col_rel.len();
    let mut block_floors = vec![0u64; m.row_rel.len() * ncol_rels];
    for k in 0..m.row_rel.len() {
        for (l, (_, members)) in m.col_rel.iter().enumerate() {
            block_floors[k * ncol_rels + l] =
                members.iter().map(|&c| row_floors[k * m.ncols + c]).sum();
        }
    }
    Caps {
        rows,
        cols,
        row_floors,
        col_floors,
        block_floors,
        ncol_rels,
    }
}

/// Certificates accumulated for one cell. Patterns may share cells: each
/// one is given, greedily, as much room as the cells it moves still have
/// left (`t_k`), so the sum is a feasible combined perturbation and its
/// increase and decrease are proven room for `p` (the two directions are
/// separate perturbations, each feasible on its own).
struct Acc {
    p: usize,
    /// Cell, room left in the increase direction, room left in the decrease direction.
    res: Vec<(usize, u64, u64)>,
    inc: u64,
    dec: u64,
    /// How far `p` itself can still go down.
    p_budget: u64,
}

impl Acc {
    fn new(p: usize, p_budget: u64) -> Self {
        Acc {
            p,
            res: Vec::new(),
            inc: 0,
            dec: 0,
            p_budget,
        }
    }

    fn room(&self, prot: &Protection, m: &Model, q: usize) -> (u64, u64) {
        match self.res.iter().find(|e| e.0 == q) {
            Some(&(_, a, b)) => (a, b),
            None => {
                let r = m.values.get(q).map_or(0, |v| v - prot.floor.min(v));
                (r, r)
            }
        }
    }

    /// What `cand` would add: (increase, decrease) of `p`.
    fn gain(&self, prot: &Protection, m: &Model, cand: &Candidate) -> (u64, u64) {
        let (mut inc, mut dec) = (u64::MAX, self.p_budget);
        for &(q, sq) in &cand.cells {
            if q == self.p {
                continue;
            }
            // A cell with coefficient `sq` moves `|sq|` per unit of `t`.
            let (ri, rd) = self.room(prot, m, q);
            let a = u64::from(sq.unsigned_abs());
            if sq < 0 {
                inc = inc.min(ri / a);
            } else {
                dec = dec.min(rd / a);
            }
        }
        (inc, dec)
    }

    fn add(&mut self, prot: &Protection, m: &Model, cand: &Candidate) {
        let (inc, dec) = self.gain(prot, m, cand);
        for &(q, sq) in &cand.cells {
            if q == self.p {
                continue;
            }
            let (ri, rd) = self.room(prot, m, q);
            let a = u64::from(sq.unsigned_abs());
            let updated = if sq < 0 {
                (q, ri.saturating_sub(inc.saturating_mul(a)), rd)
            } else {
                (q, ri, rd.saturating_sub(dec.saturating_mul(a)))
            };
            match self.res.iter_mut().find(|e| e.0 == q) {
                Some(e) => *e = updated,
                None => self.res.push(updated),
            }
        }
        self.inc = self.inc.saturating_add(inc);
        self.dec = self.dec.saturating_add(dec);
        self.p_budget -= dec.min(self.p_budget);
    }

    fn width(&self) -> u64 {
        self.inc.saturating_add(self.dec)
    }
}

/// Look for certificates of `p` within `window`; apply the best found.
/// Returns `true` when `p` reaches `req`.
#[allow(clippy::too_many_arguments)] // internal helper: the state of one search
fn certify(
    m: &Model,
    prot: &mut Protection,
    row_pats: &[Pattern],
    col_pats: &[Pattern],
    p: usize,
    req: u64,
    attempt: &Attempt,
    queue: &mut Vec<usize>,
) -> bool {
    let (window, last) = (attempt.window, attempt.settle);
    let (i, j) = (p / m.ncols, p % m.ncols);
    let Some(xp) = m.values.get(p) else {
        return true;
    };
    let room_p = xp.saturating_sub(prot.floor);
    let limit = if window > 8 { 4096 } else { 256 };
    let mut acc = Acc::new(p, room_p);
    let mut chosen: Vec<Candidate> = Vec::new();
    // A paid candidate hides cells that can make further patterns free, so
    // search again after paying, a few rounds at most.
    for _round in 0..4 {
        let mut evaluated = 0usize;
        let mut best_paid: Option<(Candidate, u64)> = None;
        // Once a paid candidate meets the requirement, look a little further
        // for a cheaper one, then stop: patterns come nearest and smallest
        // first, so the search stays bounded per cell.
        let mut patience = usize::MAX;
        'outer: for sigma in row_pats {
            if best_paid
                .as_ref()
                .is_some_and(|(b, w)| *w >= req && b.new <= 1 && b.new_totals == 0)
            {
                break;
            }
            for tau in col_pats {
                evaluated += 1;
                if evaluated > limit || patience == 0 {
                    break 'outer;
                }
                if patience != usize::MAX {
                    patience -= 1;
                }
                let Some(cand) = evaluate(m, prot, &chosen, sigma, tau, (i, j), attempt.totals)
                else {
                    continue;
                };
                let (gi, gd) = acc.gain(prot, m, &cand);
                if gi == 0 && gd == 0 {
                    continue;
                }
                if cand.new == 0 {
                    acc.add(prot, m, &cand);
                    chosen.push(cand);
                    if acc.width() >= req {
                        break 'outer;
                    }
                } else {
                    let w = acc.width().saturating_add(gi).saturating_add(gd);
                    let better = match &best_paid {
                        None => true,
                        Some((b, bw)) => {
                            let (meets, bmeets) = (w >= req, *bw >= req);
                            if meets != bmeets {
                                meets
                            } else if meets {
                                cand.cost() < b.cost()
                            } else {
                                (w, std::cmp::Reverse((cand.new_totals, cand.new)))
                                    > (*bw, std::cmp::Reverse((b.new_totals, b.new)))
                            }
                        }
                    };
                    if better {
                        if w >= req && patience == usize::MAX {
                            patience = PATIENCE;
                        }
                        best_paid = Some((cand, w));
                    }
                }
            }
        }
        if acc.width() >= req {
            break;
        }
        match best_paid {
            // Pay for new cells only when that reaches the requirement, or
            // on the last attempt when it is the best there is.
            Some((paid, w)) if w >= req || last => {
                acc.add(prot, m, &paid);
                chosen.push(paid);
                if w >= req {
                    break;
                }
            }
            _ => break,
        }
    }
    for cand in &chosen {
        apply(m, prot, cand, p, queue);
    }
    let (cur_inc, cur_dec) = prot.room_of(p);
    if acc.width() > cur_inc.saturating_add(cur_dec) {
        prot.set_room(p, (acc.inc, acc.dec));
    }
    prot.width(p) >= req
}

/// The support of `σ ⊗ τ` as a candidate for `p`, or `None` when some cell
/// of it cannot be hidden or the pattern is not a unit at `p`.
fn evaluate(
    m: &Model,
    prot: &Protection,
    chosen: &[Candidate],
    sigma: &[(usize, i32)],
    tau: &[(usize, i32)],
    (i, j): (usize, usize),
    totals: Totals,
) -> Option<Candidate> {
    let si = sigma.iter().find(|e| e.0 == i)?.1;
    let tj = tau.iter().find(|e| e.0 == j)?.1;
    let sp = si * tj;
    if sp.abs() != 1 {
        return None;
    }
    let floor = prot.floor;
    let (mut new, mut new_sum, mut new_totals) = (0usize, 0u64, 0usize);
    // Check first, allocate only for candidates that qualify.
    for &(r, a) in sigma {
        for &(c, b) in tau {
            if !(1..=4).contains(&(a * b).abs()) || !m.is_count_col(c) {
                return None;
            }
            let cell = m.idx(r, c);
            let v = m.values.get(cell)?;
            if !prot.hidden[cell] {
                let pending = chosen.iter().any(|k| k.cells.iter().any(|e| e.0 == cell));
                if !pending {
                    if v <= floor || m.total_cell[cell] && totals == Totals::Keep {
                        return None;
                    }
                    new_totals += usize::from(m.total_cell[cell]);
                    new += 1;
                    new_sum = new_sum.saturating_add(v);
                }
            }
        }
    }
    let mut cells = Vec::with_capacity(sigma.len() * tau.len());
    for &(r, a) in sigma {
        for &(c, b) in tau {
            cells.push((m.idx(r, c), a * b * sp));
        }
    }
    Some(Candidate {
        cells,
        new_totals,
        new,
        new_sum,
    })
}

/// Hide the candidate's cells and record each one's own proven room.
fn apply(m: &Model, prot: &mut Protection, cand: &Candidate, p: usize, queue: &mut Vec<usize>) {
    let floor = prot.floor;
    let room = |cell: usize| m.values.get(cell).map_or(0, |v| v - floor.min(v));
    for &(q, sq) in &cand.cells {
        if !prot.hidden[q] {
            prot.hidden[q] = true;
            prot.reason[q] = Some(Reason::Complementary);
            queue.push(q);
        }
        // A partner that moves by more than one per unit of `t` only takes
        // every other value; it is certified on its own turn instead.
        if q == p || sq.unsigned_abs() != 1 {
            continue;
        }
        let (mut inc, mut dec) = (u64::MAX, u64::MAX);
        for &(k, sk) in &cand.cells {
            let a = u64::from(sk.unsigned_abs());
            if sk.signum() == sq.signum() {
                dec = dec.min(room(k) / a);
            } else {
                inc = inc.min(room(k) / a);
            }
        }
        let (ci, cd) = prot.room_of(q);
        if inc.saturating_add(dec) > ci.saturating_add(cd) {
            prot.set_room(q, (inc, dec));
        }
    }
}
