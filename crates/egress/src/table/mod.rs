//! Small-cell suppression, rounding and microdata detection for tables in
//! outgoing text (the seed's `smallcell` and `microdata` rules,
//! `EG-CELL-001` and `EG-MICRO-001`).
//!
//! [`scan`] finds every table in a text, protects its small counts and
//! returns the rewritten text with a [`TableReport`] saying what was hidden,
//! why, and how far an attacker could narrow each hidden value.
//!
//! ```
//! use palisade_egress::table::{scan, TableOptions};
//! let text = "| Region | A | B | Total |\n|---|---|---|---|\n\
//!             | North | 3 | 9 | 12 |\n| South | 7 | 8 | 15 |\n| Total | 10 | 17 | 27 |\n";
//! let report = scan(text, &TableOptions::default());
//! assert!(!report.text.contains("| 3 |"));
//! // The 3 and the three cells that would give it away by subtraction.
//! assert_eq!(report.suppressed(), vec![[0, 1], [0, 2], [1, 1], [1, 2]]);
//! // Totals stay visible.
//! assert!(report.text.contains("| Total | 10 | 17 | 27 |"));
//! ```
//!
//! # What is a table
//!
//! * Markdown pipe tables (with or without the outer pipes; a separator line
//!   or pipe-edged lines).
//! * CSV, TSV and semicolon-separated blocks of two or more lines with the
//!   same number of fields; `"…"` quoting, so `"1,232"` is one cell.
//! * Lines with `cat -n` (`     1\t`) or read_file (`     1|`, `     1→`)
//!   line-number prefixes: the prefix is kept and not part of the table.
//! * Space-aligned columns (a printed data frame, R's `addmargins`,
//!   `column -t`): three or more lines split where every line has a space.
//!   Tool output is full of such listings of things (`kubectl get`, `cloc`,
//!   coverage), so one is protected only when it is record-level, or its
//!   numbers hold both a total row and a total column, or a total beside a
//!   header naming people. A protected one is rewritten with its columns
//!   re-padded, so a second pass reads the same columns.
//! * JSON: when the whole text is a JSON document, strings that hold a table
//!   are scanned (and re-encoded in place), and an array of two or more
//!   objects with the same keys and scalar values is a table whose header is
//!   the keys. The rest of the document keeps its formatting byte for byte.
//!
//! Columns are counts (non-negative integers, `1,232` included), labels,
//! percentages (a header with `%`, `pct`, `percent`, `rate`, `share`, or
//! cells ending in `%`), identifiers (`id`, `…_id`, `code`, `year`, `age` …,
//! never treated as counts) or other numbers (decimals: left alone). Total
//! rows and columns are found by label (`Total`, `All`, `Subtotal`,
//! `North total`, `合计`, `小计` …) and by arithmetic, and checked against
//! the numbers.
//!
//! # Cell coordinates
//!
//! `[r, c]`: `r` is the 0-based index of a **data row**: the header row (and
//! a Markdown separator line) is not counted, so the first row under the
//! header is `r = 0`. `c` is the 0-based index of the column as written,
//! label columns included. When a text holds several tables,
//! [`TableReport::suppressed`] numbers rows consecutively across them in
//! document order; each [`TableResult`] has its own table-local cells.
//!
//! # Suppression and its audit
//!
//! Primary cells are counts from `min_value` to `threshold − 1` (totals
//! included: no published count is below the threshold). Complementary
//! cells are then added until the audit passes. For every hidden cell the
//! guard holds a certificate: a perturbation of hidden cells that keeps
//! every published cell and every total/subtotal equation, proving that the
//! attacker's feasible interval contains `[lo, hi]`.
//!
//! * Every hidden count gets `hi > lo`: it cannot be worked out
//!   ([`HiddenCell::protected`], [`TableResult::audit_passed`]). If the local
//!   search cannot certify a cell at all, or after the exact audit's repair a
//!   hidden count is still a point or a primary cell is narrower than half
//!   its protection width, every count of the table is hidden instead
//!   ([`TableResult::fallback`]).
//! * A primary cell also aims for `hi − lo ≥` the protection width (default
//!   `threshold − 1`: the interval holds at least `threshold` values, as many
//!   as `0..threshold`), capped by what its visible totals allow (row and
//!   column caps, and the Fréchet bounds of its two-way block);
//!   [`HiddenCell::full_width`] says whether it got there. Complementary
//!   cells are not sensitive and need only not be recoverable.
//!
//! The attacker is assumed to know every equation, integrality, and that a
//! hidden cell is at least 1 when zeros are never hidden (at least 0 with
//! `min_value: 0`). All hidden cells share one marker, so primary and
//! complementary cells cannot be told apart. Complementary cells are chosen
//! to lose little: patterns whose cells are already hidden first, then the
//! fewest new cells, then the smallest values. Totals are hidden only where
//! no pattern of data cells reaches the requirement (a row whose counts
//! all sit at the floor can only move with its total). The certificates are
//! outer products of null patterns over rows and columns (rectangles, and
//! through subtotal chains); a fully hidden flat block gets its exact
//! Fréchet interval. The search is local and bounded per cell, so the
//! audit is linear in the table size. The reported interval is a proven
//! *inner* bound of the attacker's interval, meant for the vetter, not for
//! publication. An independent LP audit in the tests checks both claims on
//! random tables.
//!
//! # The exact audit and least loss
//!
//! Relations are found from the numbers, whatever the labels say: any
//! count column (row) equal to the sum of a set of other count columns
//! (rows) in every row (column) where all are known, contiguous or not,
//! several totals over the same parts, hierarchies of subtotals. Labels
//! only propose candidates; the arithmetic decides. After the
//! certificates, an LP audit (`microlp`) solves each hidden count's
//! interval over every relation, hidden cells at least the floor, and hides
//! more cells (data cells before totals, the cell's own lines first, the
//! smallest values) until every primary cell is as wide as required; it
//! then publishes again every complementary cell the audit does not need,
//! totals first, then the largest. The result says whether every hidden
//! count met its width ([`TableResult::audited`]), the narrowest primary
//! interval ([`TableResult::narrowest`]) and what the protection cost
//! ([`TableResult::loss`]); [`HiddenCell::exact`] marks intervals solved by
//! the LP rather than certified from below. The LP is bounded (components
//! of at most 80 variables, a work budget per table); in tables of more
//! than 1,200 cells it runs only where the certificates fall short. A
//! second pass never hides more: its input has no small count left.

//! # Percentages
//!
//! When a count is hidden, percentage cells in its row are hidden too: a
//! percentage column named after a count column (`Referred %`, `Visit
//! rate`) only where that count is hidden, any other percentage column in
//! every row with a hidden count. A percentage whose denominator is visible
//! (a total column, an `n`/`N`/`total` column, the only count column, or a
//! base stated as `N = 50` in a header or the total row) is a count: it is
//! hidden when the count it implies is small. When the shares of a column
//! sum to 100 and only one of them is hidden, the smallest other share is
//! hidden too, so it cannot be recomputed as 100 minus the rest. Not
//! handled: percentage tables whose shares tie to hidden counts through
//! several columns at once (the audit covers counts, not shares).

//! # Rounding
//!
//! With [`Method::Round`] every count is published, randomly rounded to a
//! multiple of 5: a count with remainder `r` goes up with probability
//! `r/5`, else down, so the rounding is unbiased. Totals are rounded on their
//! own. The draw is seeded by a SHA-256 hash of the table's cells, so the
//! same table always gives the same output and repeated requests cannot be
//! averaged. Percentages are hidden. Limit: a table that differs in any cell
//! gets a fresh draw, so someone who can request many slightly different
//! versions of a table can still average them.
//!
//! # Microdata
//!
//! A table with a column of direct identifiers is record-level at any row
//! count: e-mail or IP addresses (recognised by their cells), or phone
//! numbers, full names, national ids, dates of birth or street addresses
//! (a header that names them, in any of about 15 languages — `Geburtsdatum`,
//! `Fecha de nacimiento`, `PESEL`, `電話番号`, `رقم الهاتف` — and cells of
//! that shape; a `Phone` column of counts is a contact channel). Not people:
//! the IP addresses of a table of machines (a `hostname`, `server` or `node`
//! column) and role mailboxes (`support@`, `billing@`). Otherwise, a table with more than `max_rows` data rows and an identifier column
//! (`id`, `record_id`, `uuid`, `case`, `person`, `…_id` … whose values are
//! nearly all distinct) or two or more quasi-identifier columns (date of
//! birth, postcode, sex, email …) looks like one row per person: it is
//! reported as microdata. A table with total rows, percentage columns or
//! aggregate columns (`count`, `n`, `cases`, `mean` …) is an aggregate table
//! and is not microdata, whatever its `id` column is called. Microdata
//! tables are not cell-suppressed (their values are not counts); with
//! [`MicrodataAction::Withhold`] they are replaced by
//! `[microdata table withheld: N rows]`.
//!
//! # Untrusted input
//!
//! Scanning never fails and never panics. Parsing is a single pass over
//! lines; the certificate search is bounded per cell (nearby rows and
//! columns, a fixed number of candidates), so the cost is linear in the
//! table size. JSON nesting is followed to a bounded depth.

mod audit;
mod entity;
mod json;
mod lp;
mod model;
mod parse;
mod relations;
mod round;

use palisade_common::mask::mask_count;
use palisade_common::{Finding, RuleKey, Severity, Span};
use serde::{Deserialize, Serialize};

use audit::Reason;
use model::{ColKind, Model, RowRole};
use parse::RawTable;
use std::borrow::Cow;

/// Byte edits `(start, end, replacement)`; a marker borrows from the options.
type Edits<'o> = Vec<(usize, usize, Cow<'o, str>)>;

/// The marker that replaces a hidden cell.
pub const MARKER: &str = "[suppressed]";

/// Rule key of the small-cell rule.
pub const SMALL_CELL_RULE: &str = "EG-CELL-001";
/// Rule key of the microdata rule.
pub const MICRODATA_RULE: &str = "EG-MICRO-001";

/// How small cells are protected.
///
/// ```
/// use palisade_egress::table::Method;
/// assert_eq!(serde_json::from_str::<Method>("\"round\"").unwrap(), Method::Round);
/// ```
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Method {
    /// Hide small cells and the cells that would give them away.
    #[default]
    Suppress,
    /// Publish every count randomly rounded to a multiple of 5.
    Round,
}

/// What the rewrite does with a microdata table (the policy decides;
/// warn/approve/block keep it, redact withholds it).
///
/// ```
/// use palisade_egress::table::MicrodataAction;
/// assert_eq!(MicrodataAction::default(), MicrodataAction::Keep);
/// ```
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum MicrodataAction {
    /// Leave the table in the text; the finding is still reported.
    #[default]
    Keep,
    /// Replace the table with `[microdata table withheld: N rows]`.
    Withhold,
}

/// Settings of the table rules; the policy converts into this.
///
/// ```
/// use palisade_egress::table::{Method, TableOptions};
/// let o: TableOptions = serde_json::from_str(r#"{"threshold": 10, "method": "round"}"#).unwrap();
/// assert_eq!(o.threshold, 10);
/// assert_eq!(o.method, Method::Round);
/// assert_eq!(o.min_value, 1);
/// assert_eq!(o.max_rows, 20);
/// ```
#[derive(Clone, Debug, Eq, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TableOptions {
    /// Counts below this are small (default 5).
    pub threshold: u64,
    /// Smallest count that is flagged (default 1; 0 also flags zeros).
    pub min_value: u64,
    /// Suppress or round (default suppress).
    pub method: Method,
    /// More data rows than this with an identifier column is microdata (default 20).
    pub max_rows: usize,
    /// Width `hi − lo` a primary cell's feasible interval aims for (capped
    /// by its visible totals); `None` means `threshold − 1` (as many values
    /// as `0..threshold`). Every hidden cell is at least non-recoverable.
    pub protection_width: Option<u64>,
    /// What replaces a hidden cell (default `[suppressed]`).
    pub marker: String,
    /// What to do with a microdata table.
    pub microdata: MicrodataAction,
}

impl Default for TableOptions {
    fn default() -> Self {
        TableOptions {
            threshold: 5,
            min_value: 1,
            method: Method::Suppress,
            max_rows: 20,
            protection_width: None,
            marker: MARKER.to_string(),
            microdata: MicrodataAction::Keep,
        }
    }
}

impl TableOptions {
    /// The protection width in force.
    ///
    /// ```
    /// use palisade_egress::table::TableOptions;
    /// assert_eq!(TableOptions::default().width(), 4);
    /// ```
    pub fn width(&self) -> u64 {
        self.protection_width
            .unwrap_or(self.threshold.saturating_sub(1))
            .max(1)
    }
}

/// The format a table was found in.
///
/// ```
/// use palisade_egress::table::TableKind;
/// assert_eq!(serde_json::to_string(&TableKind::Tsv).unwrap(), "\"tsv\"");
/// ```
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TableKind {
    /// A Markdown pipe table.
    Markdown,
    /// Comma-, semicolon- or pipe-separated lines (`sqlite3` list mode,
    /// `psql -A`).
    Csv,
    /// Tab-separated lines.
    Tsv,
    /// A JSON array of uniform objects.
    Json,
    /// Space-aligned columns (`column -t`, a printed data frame, R output).
    FixedWidth,
}

/// Why a cell was hidden.
///
/// ```
/// use palisade_egress::table::HideReason;
/// assert_eq!(serde_json::to_string(&HideReason::Complementary).unwrap(), "\"complementary\"");
/// ```
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum HideReason {
    /// A small count.
    Primary,
    /// Hidden so a small count cannot be worked out from the totals.
    Complementary,
    /// A percentage that would give a hidden or small count away.
    Percentage,
    /// Hidden because the table could not be protected cell by cell.
    Fallback,
}

/// One hidden cell and its audit.
///
/// ```
/// use palisade_egress::table::{scan, TableOptions};
/// let r = scan("a,b,total\n3,9,12\n7,8,15\n10,17,27\n", &TableOptions::default());
/// let cell = &r.tables[0].hidden[0];
/// assert_eq!((cell.row, cell.column), (0, 0));
/// assert!(cell.protected);
/// ```
#[derive(Clone, Debug, Eq, PartialEq, Serialize, Deserialize)]
pub struct HiddenCell {
    /// 0-based data row (header excluded).
    pub row: usize,
    /// 0-based column as written.
    pub column: usize,
    /// Why it is hidden.
    pub reason: HideReason,
    /// Proven lower end of the attacker's interval (counts only).
    pub lo: Option<u64>,
    /// Proven upper end; `None` with `lo` set means unbounded.
    pub hi: Option<u64>,
    /// The width the audit aimed for (the protection width, capped by what
    /// the cell's visible totals allow).
    pub required_width: u64,
    /// Whether the proven width reaches `required_width`.
    pub full_width: bool,
    /// Whether the cell cannot be worked out: its proven interval is not a
    /// point. Always true for suppressed counts unless the table could not
    /// be protected at all.
    pub protected: bool,
    /// Whether `lo`/`hi` are the exact interval from the LP audit (else a
    /// certified inner bound: the attacker's interval is at least as wide).
    #[serde(default)]
    pub exact: bool,
}

/// The narrowest interval among a table's hidden primary counts.
///
/// ```
/// use palisade_egress::table::{scan, TableOptions};
/// let r = scan("a,b,total\n3,9,12\n7,8,15\n10,17,27\n", &TableOptions::default());
/// let n = r.tables[0].narrowest.as_ref().unwrap();
/// assert_eq!((n.row, n.column), (0, 0));
/// assert!(n.hi.unwrap() - n.lo >= 4);
/// ```
#[derive(Clone, Debug, Eq, PartialEq, Serialize, Deserialize)]
pub struct Narrowest {
    /// 0-based data row of the cell.
    pub row: usize,
    /// 0-based column.
    pub column: usize,
    /// Lower end of its interval.
    pub lo: u64,
    /// Upper end (`None`: unbounded).
    pub hi: Option<u64>,
}

/// What protecting a table cost: the cells hidden beyond the small counts.
///
/// ```
/// use palisade_egress::table::{scan, TableOptions};
/// let r = scan("a,b,total\n3,9,12\n7,8,15\n10,17,27\n", &TableOptions::default());
/// let loss = &r.tables[0].loss;
/// assert_eq!((loss.cells, loss.totals), (3, 0));
/// assert_eq!(loss.value, 9 + 7 + 8);
/// ```
#[derive(Clone, Debug, Default, Eq, PartialEq, Serialize, Deserialize)]
pub struct Loss {
    /// Complementary (and fallback) counts hidden.
    pub cells: usize,
    /// Of which totals or subtotals.
    pub totals: usize,
    /// Their summed value.
    pub value: u64,
}

/// What happened to one table.
///
/// ```
/// use palisade_egress::table::{scan, TableKind, TableOptions};
/// let r = scan("| x | n |\n|---|---|\n| a | 12 |\n", &TableOptions::default());
/// assert_eq!(r.tables[0].kind, TableKind::Markdown);
/// assert!(r.tables[0].hidden.is_empty());
/// ```
#[derive(Clone, Debug, Eq, PartialEq, Serialize, Deserialize)]
pub struct TableResult {
    /// Where the table was found.
    pub kind: TableKind,
    /// Its byte span in the input (for a table inside a JSON string: the
    /// string literal's span).
    pub span: Span,
    /// Data rows (header excluded).
    pub rows: usize,
    /// Columns.
    pub columns: usize,
    /// Hidden cells, in row-major order.
    pub hidden: Vec<HiddenCell>,
    /// Counts rewritten by rounding.
    pub rounded: usize,
    /// Whether the table looks like record-level data.
    pub microdata: bool,
    /// Whether it was withheld as microdata.
    pub withheld: bool,
    /// Whether every count had to be hidden to protect it.
    pub fallback: bool,
    /// Whether every hidden count meets its required width, proven by a
    /// certificate or solved exactly by the LP audit over every relation.
    #[serde(default)]
    pub audited: bool,
    /// The narrowest interval of a hidden primary count.
    #[serde(default)]
    pub narrowest: Option<Narrowest>,
    /// What the protection cost.
    #[serde(default)]
    pub loss: Loss,
}

impl TableResult {
    /// Whether no hidden count can be worked out (every proven interval is
    /// wider than a point). See [`HiddenCell::full_width`] for the width
    /// target.
    ///
    /// ```
    /// use palisade_egress::table::{scan, TableOptions};
    /// let r = scan("a,b,total\n3,9,12\n7,8,15\n10,17,27\n", &TableOptions::default());
    /// assert!(r.tables[0].audit_passed());
    /// ```
    pub fn audit_passed(&self) -> bool {
        self.hidden.iter().all(|h| h.protected)
    }
}

/// The result of [`scan`].
///
/// ```
/// use palisade_egress::table::{scan, TableOptions};
/// let r = scan("no tables here", &TableOptions::default());
/// assert_eq!(r.text, "no tables here");
/// assert!(!r.changed());
/// ```
#[derive(Clone, Debug, Eq, PartialEq, Serialize, Deserialize)]
pub struct TableReport {
    /// The rewritten text.
    pub text: String,
    /// Every table found, in document order.
    pub tables: Vec<TableResult>,
}

impl TableReport {
    /// Whether the text was rewritten.
    ///
    /// ```
    /// use palisade_egress::table::{scan, TableOptions};
    /// assert!(scan("a,n\nx,3\ny,40\n", &TableOptions::default()).changed());
    /// ```
    pub fn changed(&self) -> bool {
        self.tables
            .iter()
            .any(|t| !t.hidden.is_empty() || t.rounded > 0 || t.withheld)
    }

    /// Hidden cells as `[row, column]`, rows numbered consecutively across
    /// tables (see the module docs).
    ///
    /// ```
    /// use palisade_egress::table::{scan, TableOptions};
    /// let r = scan("a,n\nx,3\ny,40\n", &TableOptions::default());
    /// assert_eq!(r.suppressed(), vec![[0, 1]]);
    /// ```
    pub fn suppressed(&self) -> Vec<[usize; 2]> {
        let mut out = Vec::new();
        let mut offset = 0;
        for t in &self.tables {
            out.extend(t.hidden.iter().map(|h| [h.row + offset, h.column]));
            offset += t.rows;
        }
        out
    }

    /// Whether any table is record-level data.
    ///
    /// ```
    /// use palisade_egress::table::{scan, TableOptions};
    /// assert!(!scan("a,n\nx,3\n", &TableOptions::default()).microdata());
    /// ```
    pub fn microdata(&self) -> bool {
        self.tables.iter().any(|t| t.microdata)
    }

    /// Findings in the shared convention: one `egress-guard:EG-CELL-001`
    /// per table with hidden or rounded cells, one `egress-guard:EG-MICRO-001`
    /// per microdata table. Previews never hold a raw count.
    ///
    /// ```
    /// use palisade_egress::table::{scan, TableOptions};
    /// let r = scan("a,n\nx,3\ny,40\n", &TableOptions::default());
    /// let f = r.findings(&TableOptions::default());
    /// assert_eq!(f[0].rule.to_string(), "egress-guard:EG-CELL-001");
    /// assert_eq!(f[0].preview, "<5 (1 cell hidden)");
    /// ```
    pub fn findings(&self, options: &TableOptions) -> Vec<Finding> {
        let mut out = Vec::new();
        for t in &self.tables {
            if !t.hidden.is_empty() || t.rounded > 0 {
                let what = if t.rounded > 0 {
                    format!("{} counts rounded", t.rounded)
                } else if t.hidden.len() == 1 {
                    "1 cell hidden".to_string()
                } else {
                    format!("{} cells hidden", t.hidden.len())
                };
                out.push(Finding::new(
                    RuleKey::new("egress-guard", SMALL_CELL_RULE),
                    t.span,
                    format!("{} ({what})", mask_count(options.threshold)),
                    Severity::Medium,
                ));
            }
            if t.microdata {
                out.push(Finding::new(
                    RuleKey::new("egress-guard", MICRODATA_RULE),
                    t.span,
                    format!("record-level table: {} rows", t.rows),
                    Severity::Medium,
                ));
            }
        }
        out
    }
}

/// Find every table in `text`, protect it per `options`, and return the
/// rewritten text with what was done. Never fails.
///
/// ```
/// use palisade_egress::table::{scan, Method, TableOptions};
/// let opts = TableOptions { method: Method::Round, ..TableOptions::default() };
/// let r = scan("a,n\nx,3\ny,40\n", &opts);
/// assert_eq!(r, scan("a,n\nx,3\ny,40\n", &opts)); // deterministic per content
/// assert!(r.text.ends_with("y,40\n"));
/// ```
pub fn scan(text: &str, options: &TableOptions) -> TableReport {
    let mut tables = Vec::new();
    let rewritten = scan_text(text, options, 0, &mut tables);
    TableReport {
        text: rewritten,
        tables,
    }
}

/// Deepest JSON-in-string nesting scanned.
const MAX_NESTING: usize = 4;

fn scan_text(text: &str, o: &TableOptions, depth: usize, out: &mut Vec<TableResult>) -> String {
    let trimmed = text.trim_start();
    if depth < MAX_NESTING
        && (trimmed.starts_with('{') || trimmed.starts_with('['))
        && serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
    {
        if let Some(node) = json::parse(text) {
            let mut edits = Vec::new();
            walk_json(text, &node, o, depth, &mut edits, out);
            return apply_edits(text, edits, std::iter::empty(), "");
        }
    }
    let mut edits = Vec::new();
    let raws = parse::find_tables(text);
    // Tables whose hidden cells simply take the marker: their edits are
    // read off the hidden list at the end instead of being stored (on a
    // large table the edit list was one of the largest allocations).
    let mut marked = Vec::new();
    for (k, raw) in raws.iter().enumerate() {
        let (e, result, marks) = process(text, raw, o);
        edits.extend(e);
        if marks {
            marked.push((k, out.len()));
        }
        out.push(result);
    }
    let results: &[TableResult] = out;
    let spans = marked.iter().flat_map(|&(k, at)| {
        let raw = &raws[k];
        results[at].hidden.iter().map(move |h| {
            let cell = raw.rows.cell(h.row, h.column);
            (cell.start, cell.end)
        })
    });
    apply_edits(text, edits, spans, &o.marker)
}

fn walk_json<'o>(
    text: &str,
    node: &json::Node,
    o: &'o TableOptions,
    depth: usize,
    edits: &mut Edits<'o>,
    out: &mut Vec<TableResult>,
) {
    match node {
        json::Node::Str(s, a, b) => {
            if s.contains('\n') {
                let before = out.len();
                let new = scan_text(s, o, depth + 1, out);
                for t in &mut out[before..] {
                    t.span = Span::new(*a, *b);
                }
                if new != *s {
                    if let Ok(lit) = serde_json::to_string(&new) {
                        edits.push((*a, *b, Cow::Owned(lit)));
                    }
                }
            }
        }
        json::Node::Scalar(..) => {}
        json::Node::Object(members) => {
            for (_, v) in members {
                walk_json(text, v, o, depth, edits, out);
            }
        }
        json::Node::Array(items) => {
            let tables = uniform_objects(items);
            if !tables.is_empty() {
                let from = edits.len();
                let mut withheld = false;
                for raw in &tables {
                    let (e, result, _) = process(text, raw, o);
                    withheld |= result.withheld;
                    edits.extend(e);
                    out.push(result);
                }
                // A chat transcript or a list of notes (`[{"role", "content"}
                // …]`) is such an array too, and its multi-line strings are
                // documents, not cells: a table written inside one is read
                // like any other (round 12q). No count spans lines, so no
                // edit of the array's own table lies inside them; one that
                // would is left to that table.
                if !withheld {
                    let taken: Vec<(usize, usize)> =
                        edits[from..].iter().map(|e| (e.0, e.1)).collect();
                    for v in items {
                        if let json::Node::Object(members) = v {
                            for (_, cell) in members {
                                if let json::Node::Str(_, a, b) = cell {
                                    if !taken.iter().any(|&(x, y)| x < *b && *a < y) {
                                        walk_json(text, cell, o, depth, edits, out);
                                    }
                                }
                            }
                        }
                    }
                }
                return;
            }
            for v in items {
                walk_json(text, v, o, depth, edits, out);
            }
        }
    }
}

/// An array of two or more objects with the same keys and scalar values,
/// as one table (several consecutive ones past [`parse::MAX_TABLE_BYTES`]);
/// empty when the array is no such table.
fn uniform_objects<'a>(items: &'a [json::Node]) -> Vec<RawTable<'a>> {
    let mut tables = Vec::new();
    if items.len() < 2 {
        return tables;
    }
    let json::Node::Object(first) = &items[0] else {
        return tables;
    };
    if first.len() < 2 {
        return tables;
    }
    let keys: Vec<&str> = first.iter().map(|(k, _)| k.as_str()).collect();
    let cell_of = |node: &'a json::Node| -> Option<parse::Cell<'a>> {
        match node {
            json::Node::Str(s, a, b) => Some(parse::Cell {
                text: s.as_str(),
                start: *a,
                end: *b,
            }),
            json::Node::Scalar(s, a, b) => Some(parse::Cell {
                text: if s == "null" { "" } else { s.as_str() },
                start: *a,
                end: *b,
            }),
            _ => None,
        }
    };
    let header: Vec<parse::Cell<'a>> = keys
        .iter()
        .map(|k| parse::Cell {
            text: k,
            start: 0,
            end: 0,
        })
        .collect();
    let finish = |rows: parse::Grid<'a>, start: usize, end: usize| RawTable {
        kind: TableKind::Json,
        header: Some(header.clone()),
        rows,
        start,
        end,
        lines: Vec::new(),
    };
    let mut rows: Option<parse::Grid<'a>> = None;
    let (mut start, mut end) = (usize::MAX, 0);
    let mut row = Vec::with_capacity(keys.len());
    for item in items {
        let json::Node::Object(members) = item else {
            return Vec::new();
        };
        if members.len() != keys.len() {
            return Vec::new();
        }
        row.clear();
        for key in &keys {
            let Some((_, v)) = members.iter().find(|(k, _)| k == key) else {
                return Vec::new();
            };
            let Some(cell) = cell_of(v) else {
                return Vec::new();
            };
            row.push(cell);
        }
        // Members appear in text order, so a row starts at its first cell.
        let row_start = row.iter().map(|c| c.start).min().unwrap_or(0);
        let row_end = row.iter().map(|c| c.end).max().unwrap_or(0);
        let grid = rows.get_or_insert_with(|| parse::Grid::decoded("", row_start));
        if !grid.push_row(&row) {
            let mut next = parse::Grid::decoded("", row_start);
            if !next.push_row(&row) {
                return Vec::new(); // one object longer than a table may be
            }
            if let Some(done) = rows.replace(next) {
                tables.push(finish(done, start, end));
            }
            (start, end) = (usize::MAX, 0);
        }
        start = start.min(row_start);
        end = end.max(row_end);
    }
    if let Some(done) = rows {
        tables.push(finish(done, start, end));
    }
    tables
}

/// Byte edits `(start, end, replacement)` for one table, and its result.
///
/// The flag says whether every hidden cell of the result is also to be
/// replaced by the marker (then those edits are not in the list).
fn process<'o>(
    text: &str,
    raw: &RawTable<'_>,
    o: &'o TableOptions,
) -> (Edits<'o>, TableResult, bool) {
    // What the text above the table says (a caption, a dataset card); an
    // array of JSON objects has no caption.
    let ctx = match raw.kind {
        TableKind::Json => entity::Context::default(),
        _ => entity::Context::before(text, raw.start),
    };
    let m = model::build_in(raw, &o.marker, &ctx);
    let microdata = is_microdata(raw, &m, o.max_rows);
    let mut result = TableResult {
        kind: raw.kind,
        span: Span::new(raw.start, raw.end),
        rows: m.nrows,
        columns: m.ncols,
        hidden: Vec::new(),
        rounded: 0,
        microdata,
        withheld: false,
        fallback: false,
        audited: true,
        narrowest: None,
        loss: Loss::default(),
    };
    let mut edits = Vec::new();
    // Space-aligned columns are everywhere in tool output (`ls -l`, `ps`,
    // `kubectl get`, `cloc`, coverage): such a block is a table of counts
    // to protect only when it is record-level, or a cross-tab whose numbers
    // hold both a total row and a total column (`pd.crosstab(…,
    // margins=True)`, R's `addmargins`), or holds a total and a header
    // naming people. A listing of things with a `SUM` row is none of these.
    let totals = u8::from(!m.row_rel.is_empty()) + u8::from(!m.col_rel.is_empty());
    // A listing of entities: one sign of another kind of measure and no
    // total in its numbers (policy: docs/tables-entities.md).
    if totals == 0
        && !microdata
        && entity::evidence(
            &m.headers,
            raw.rows.len(),
            raw.columns(),
            |r, c| raw.rows.text(r, c),
            &ctx,
        )
        .things_without_totals()
    {
        return (edits, result, false);
    }
    let people = m.headers.iter().any(|h| entity::names_people(h));
    if raw.kind == TableKind::FixedWidth && !microdata && !(totals == 2 || totals == 1 && people) {
        return (edits, result, false);
    }
    if microdata {
        if o.microdata == MicrodataAction::Withhold {
            result.withheld = true;
            let note = format!("[microdata table withheld: {} rows]", m.nrows);
            let (start, end, note) = match raw.kind {
                TableKind::Json => json_array_span(text, raw.start, raw.end)
                    .map(|(a, b)| (a, b, serde_json::to_string(&note).unwrap_or_default()))
                    .unwrap_or((raw.start, raw.end, note)),
                _ => (raw.start, raw.end, note),
            };
            edits.push((start, end, Cow::Owned(note)));
        }
        return (edits, result, false);
    }
    // Plain text tables: each hidden cell's span takes the marker as is.
    let mut marks = false;
    match o.method {
        Method::Round => {
            let values = round::round_table(raw, &m);
            for (cell, v) in values {
                let (r, c) = (cell / m.ncols, cell % m.ncols);
                let original = m.values.get(cell);
                if original != Some(v) {
                    result.rounded += 1;
                    let raw_cell = &raw.rows.cell(r, c);
                    edits.push(replacement(
                        text,
                        raw.kind,
                        raw_cell,
                        Cow::Owned(v.to_string()),
                    ));
                }
            }
            for r in 0..m.nrows {
                for c in 0..m.ncols {
                    if m.kinds[c] == ColKind::Percent
                        && !model::is_marker(raw.rows.text(r, c), &o.marker)
                        && replaceable(raw.rows.text(r, c))
                    {
                        result.hidden.push(HiddenCell {
                            row: r,
                            column: c,
                            reason: HideReason::Percentage,
                            lo: None,
                            hi: None,
                            required_width: 0,
                            full_width: true,
                            protected: true,
                            exact: false,
                        });
                        edits.push(replacement(
                            text,
                            raw.kind,
                            &raw.rows.cell(r, c),
                            Cow::Borrowed(&o.marker),
                        ));
                    }
                }
            }
        }
        Method::Suppress => {
            let settings = audit::Settings {
                threshold: o.threshold,
                min_value: o.min_value,
                width: o.width(),
            };
            let prot = audit::protect(&m, &settings);
            result.fallback = prot.fallback;
            result.audited = prot.audited;
            let pct = percent_hidden(raw, &m, &prot.hidden, o);
            // Exact sizes: on a large table these two lists are the
            // largest allocations, and doubling growth would waste a third.
            let n_hidden = prot
                .hidden
                .iter()
                .zip(&pct)
                .filter(|(h, p)| **h || **p)
                .count();
            result.hidden.reserve_exact(n_hidden);
            marks = raw.kind != TableKind::Json;
            if !marks {
                edits.reserve_exact(n_hidden);
            }
            for r in 0..m.nrows {
                for c in 0..m.ncols {
                    let cell = m.idx(r, c);
                    let reason = if prot.hidden[cell] {
                        match prot.reason[cell] {
                            Some(Reason::Primary) => HideReason::Primary,
                            Some(Reason::Fallback) => HideReason::Fallback,
                            _ => HideReason::Complementary,
                        }
                    } else if pct[cell] {
                        HideReason::Percentage
                    } else {
                        continue;
                    };
                    if prot.hidden[cell] && reason != HideReason::Primary {
                        if let Some(v) = m.values.get(cell) {
                            result.loss.cells += 1;
                            result.loss.totals += usize::from(m.total_cell[cell]);
                            result.loss.value = result.loss.value.saturating_add(v);
                        }
                    }
                    let (lo, hi, required_width, full_width, protected) = if prot.hidden[cell] {
                        match prot.interval(&m, cell) {
                            Some((lo, hi)) => (
                                Some(lo),
                                hi,
                                prot.required_of(cell),
                                prot.width(cell) >= prot.required_of(cell).max(1),
                                prot.width(cell) >= 1,
                            ),
                            None => (None, None, 0, true, true),
                        }
                    } else {
                        (None, None, 0, true, true)
                    };
                    result.hidden.push(HiddenCell {
                        row: r,
                        column: c,
                        reason,
                        lo,
                        hi,
                        required_width,
                        full_width,
                        protected,
                        exact: prot.hidden[cell] && prot.exact[cell],
                    });
                    if reason == HideReason::Primary {
                        if let Some(lo) = lo {
                            let w = hi.map_or(u64::MAX, |h| h - lo);
                            let narrower = result
                                .narrowest
                                .as_ref()
                                .is_none_or(|n| w < n.hi.map_or(u64::MAX, |h| h - n.lo));
                            if narrower {
                                result.narrowest = Some(Narrowest {
                                    row: r,
                                    column: c,
                                    lo,
                                    hi,
                                });
                            }
                        }
                    }
                    if !marks {
                        edits.push(replacement(
                            text,
                            raw.kind,
                            &raw.rows.cell(r, c),
                            Cow::Borrowed(&o.marker),
                        ));
                    }
                }
            }
            if raw.kind == TableKind::Markdown
                && !result.hidden.is_empty()
                && raw.lines.len() <= REALIGN_MAX_LINES
            {
                let cell_edits: Edits<'o> = result
                    .hidden
                    .iter()
                    .map(|h| {
                        let cell = raw.rows.cell(h.row, h.column);
                        (cell.start, cell.end, Cow::Borrowed(o.marker.as_str()))
                    })
                    .collect();
                if let Some(aligned) = realign_markdown(text, raw, &cell_edits) {
                    edits = aligned;
                    marks = false;
                }
            }
            if raw.kind == TableKind::FixedWidth && !result.hidden.is_empty() {
                edits = realign_fixed(text, raw, &result.hidden, &o.marker);
                marks = false;
            }
        }
    }
    (edits, result, marks)
}

fn replacement<'o>(
    text: &str,
    kind: TableKind,
    cell: &parse::Cell<'_>,
    value: Cow<'o, str>,
) -> (usize, usize, Cow<'o, str>) {
    match kind {
        TableKind::Json => {
            let was_string = text.as_bytes().get(cell.start) == Some(&b'"');
            let is_number = value.bytes().all(|b| b.is_ascii_digit()) && !value.is_empty();
            let lit = if is_number && !was_string {
                value
            } else {
                Cow::Owned(serde_json::to_string(&*value).unwrap_or_default())
            };
            (cell.start, cell.end, lit)
        }
        _ => (cell.start, cell.end, value),
    }
}

/// The `[` … `]` around a JSON array whose cells span `start..end`.
fn json_array_span(text: &str, start: usize, end: usize) -> Option<(usize, usize)> {
    let open = text.get(..start)?.rfind('[')?;
    let close = end + text.get(end..)?.find(']')? + 1;
    Some((open, close))
}

/// Whether a percentage-column cell may be replaced by the marker: not when
/// it holds tabs or other control characters. Such a cell is no share, and
/// replacing it would change how its line splits under another delimiter,
/// so a second pass could read a different table (found by the
/// `egress_table_audit` fuzz target).
fn replaceable(text: &str) -> bool {
    !text.trim().contains(char::is_control)
}

/// Percentage cells to hide, per the seed's naming rules, plus percentages
/// whose visible denominator makes them small counts.
fn percent_hidden(raw: &RawTable<'_>, m: &Model, hidden: &[bool], o: &TableOptions) -> Vec<bool> {
    let mut out = vec![false; m.nrows * m.ncols];
    let pct_cols: Vec<usize> = (0..m.ncols)
        .filter(|&c| m.kinds[c] == ColKind::Percent)
        .collect();
    if pct_cols.is_empty() {
        return out;
    }
    let count_cols: Vec<usize> = (0..m.ncols).filter(|&c| m.is_count_col(c)).collect();
    let total_col = (0..m.ncols).find(|&c| m.kinds[c] == ColKind::Total);
    let denominator_col = count_cols.iter().copied().find(|&c| {
        let h = m.headers[c].to_lowercase();
        matches!(
            h.as_str(),
            "n" | "total" | "count" | "base" | "denominator" | "all" | "population"
        )
    });
    let single_count = (count_cols.len() == 1).then(|| count_cols[0]);
    // A stated base: `N = 50` in a header or a total-row label.
    let stated_base = stated_n(raw, m);
    // A share with a decimal comma (`22,3 %`) is a number too.
    let number =
        |t: &str| model::parse_number(t).or_else(|| model::parse_number(&t.replacen(',', ".", 1)));
    for &p in &pct_cols {
        let related = count_cols
            .iter()
            .copied()
            .find(|&c| named_after(&m.headers[p], &m.headers[c]));
        for r in 0..m.nrows {
            let cell = m.idx(r, p);
            let text = raw.rows.text(r, p);
            // Only a number can give a count away; hiding text would change
            // what a second pass reads as the header or the column's kind.
            if model::is_marker(text, &o.marker) || !replaceable(text) || number(text).is_none() {
                continue;
            }
            let by_name = match related {
                Some(c) => hidden[m.idx(r, c)],
                None => count_cols.iter().any(|&c| hidden[m.idx(r, c)]),
            };
            let by_value = number(text).is_some_and(|pv| {
                let denominator = total_col
                    .or(denominator_col)
                    .or(single_count.filter(|_| related.is_none()))
                    .filter(|&c| c != p && !hidden[m.idx(r, c)])
                    .and_then(|c| m.values.get(m.idx(r, c)))
                    .or(stated_base.filter(|_| m.roles[r] == RowRole::Detail));
                denominator.is_some_and(|d| {
                    let share = if pv <= 1.0 && !text.contains('%') && pv > 0.0 {
                        pv * 100.0
                    } else {
                        pv
                    };
                    let n = (share * d as f64 / 100.0).round();
                    n >= o.min_value as f64 && n < o.threshold as f64
                })
            });
            // A column that is percentages by the shape of its cells (not
            // by its header) may still hold a bare integer: nothing says it
            // is a share, and once the `%` cells beside it are hidden a
            // second pass would read the column as counts. A small one is
            // treated as a count.
            let by_shape = !model::is_percent_header(&m.headers[p])
                && !text.contains('%')
                && model::parse_count(text).is_some_and(|v| v >= o.min_value && v < o.threshold);
            if by_name || by_value || by_shape {
                out[cell] = true;
            }
        }
        // Shares of one whole add up to 100: a single hidden share in a
        // column would be 100 minus the others, so hide a second one.
        let details: Vec<usize> = (0..m.nrows)
            .filter(|&r| m.roles[r] == RowRole::Detail)
            .collect();
        let shares: Vec<Option<f64>> = details
            .iter()
            .map(|&r| number(raw.rows.text(r, p)))
            .collect();
        let hidden_now: Vec<usize> = details
            .iter()
            .copied()
            .filter(|&r| out[m.idx(r, p)] || model::is_marker(raw.rows.text(r, p), &o.marker))
            .collect();
        let sum: f64 = shares.iter().flatten().sum();
        let sums_to_whole = shares.iter().all(Option::is_some) && (sum - 100.0).abs() <= 1.0;
        if sums_to_whole && hidden_now.len() == 1 {
            let partner = details
                .iter()
                .zip(&shares)
                .filter(|(&r, _)| !hidden_now.contains(&r))
                .min_by(|a, b| a.1.unwrap_or(0.0).total_cmp(&b.1.unwrap_or(0.0)))
                .map(|(&r, _)| r);
            if let Some(r) = partner {
                out[m.idx(r, p)] = true;
            }
        }
    }
    out
}

/// `N = 50` (or `n=50`) stated in a header or a total-row label.
fn stated_n(raw: &RawTable<'_>, m: &Model) -> Option<u64> {
    let find = |s: &str| -> Option<u64> {
        let bytes = s.as_bytes();
        let mut k = 0;
        while k < bytes.len() {
            let b = bytes[k];
            let word_start = k == 0 || !bytes[k - 1].is_ascii_alphanumeric();
            if (b == b'n' || b == b'N') && word_start {
                let rest = s[k + 1..].trim_start();
                if let Some(after) = rest.strip_prefix('=') {
                    let digits: String = after
                        .trim_start()
                        .chars()
                        .take_while(|c| c.is_ascii_digit() || *c == ',')
                        .collect();
                    if let Some(v) = model::parse_count(&digits) {
                        return Some(v);
                    }
                }
            }
            k += 1;
        }
        None
    };
    let header = raw.header.iter().flatten().find_map(|c| find(c.text));
    header.or_else(|| {
        (0..m.nrows)
            .filter(|&r| m.roles[r] == RowRole::Total)
            .flat_map(|r| raw.rows.row(r).iter())
            .find_map(|c| find(c.text))
    })
}

/// Whether percentage header `pct` is named after count header `count`
/// (`Referred %` ↔ `Referred`, `Visit rate` ↔ `Visits`).
fn named_after(pct: &str, count: &str) -> bool {
    const PCT_WORDS: &[&str] = &[
        "%",
        "pct",
        "percent",
        "percentage",
        "rate",
        "share",
        "proportion",
        "ratio",
        "of",
        "the",
        "in",
    ];
    let words = |s: &str| -> Vec<String> {
        s.to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty() && !PCT_WORDS.contains(w))
            .map(|w| w.strip_suffix('s').unwrap_or(w).to_string())
            .collect()
    };
    let (a, b) = (words(pct), words(count));
    !a.is_empty() && a == b
}

/// Record-level data: many rows, an identifier or quasi-identifiers, and no
/// sign of aggregation.
fn is_microdata(raw: &RawTable<'_>, m: &Model, max_rows: usize) -> bool {
    if (0..m.ncols).any(|c| is_direct_identifier_column(raw, m, c)) {
        return true;
    }
    let details = (0..m.nrows)
        .filter(|&r| m.roles[r] == RowRole::Detail)
        .count();
    if details <= max_rows || raw.header.is_none() {
        return false;
    }
    if m.roles.iter().any(|&r| r != RowRole::Detail)
        || m.kinds
            .iter()
            .any(|&k| matches!(k, ColKind::Percent | ColKind::Total))
        || m.headers.iter().any(|h| is_aggregate_header(h))
    {
        return false;
    }
    let distinct_share = |c: usize| -> f64 {
        let mut seen: Vec<&str> = raw.rows.iter().map(|r| r.text(c)).collect();
        let filled = seen.iter().filter(|s| !s.trim().is_empty()).count();
        seen.sort_unstable();
        seen.dedup();
        if filled == 0 {
            0.0
        } else {
            seen.len() as f64 / raw.rows.len() as f64
        }
    };
    let quasi = m.headers.iter().filter(|h| is_quasi_identifier(h)).count();
    // One row per category combination, with counts beside it: a frequency
    // table, whatever its first column is called.
    let label_cols: Vec<usize> = (0..m.ncols)
        .filter(|&c| m.kinds[c] == ColKind::Label)
        .collect();
    if quasi == 0 && !label_cols.is_empty() && (0..m.ncols).any(|c| m.is_count_col(c)) {
        let mut keys: Vec<Vec<&str>> = raw
            .rows
            .iter()
            .map(|row| label_cols.iter().map(|&c| row.text(c)).collect())
            .collect();
        keys.sort_unstable();
        let before = keys.len();
        keys.dedup();
        if keys.len() == before {
            return false;
        }
    }
    let id_col =
        (0..m.ncols).any(|c| is_record_id_header(&m.headers[c]) && distinct_share(c) >= 0.9);
    id_col || quasi >= 2
}

/// What a direct identifier's cells look like.
#[derive(Clone, Copy)]
enum IdShape {
    Email,
    Ip,
    Phone,
    FullName,
    NationalId,
    BirthDate,
    Address,
}

/// The shape a header announces, if it names a direct identifier: the
/// whole header (`telefone`, `data_nascimento`), or a phone or e-mail word
/// that begins a compound header and names whose contact it is
/// (`telefone_responsavel`, `email_parent`, `phone_guardian`: a
/// [`CONTACT_OWNERS`] word; `phone_calls` counts calls).
fn announced_identifier(h: &str) -> Option<IdShape> {
    let h = norm_header(h);
    identifier_header(&h).or_else(|| {
        let (first, whose) = h.split_once('_')?;
        match identifier_header(first)? {
            shape @ (IdShape::Phone | IdShape::Email)
                if first != "cell" && first != "mail" && CONTACT_OWNERS.contains(&whose) =>
            {
                Some(shape)
            }
            _ => None,
        }
    })
}

/// Whose contact a compound phone or e-mail header names (normalised:
/// lower case, `_` between words).
const CONTACT_OWNERS: &[&str] = &[
    "responsavel",
    "responsável",
    "parent",
    "parents",
    "guardian",
    "guardians",
    "tutor",
    "mae",
    "mãe",
    "pai",
    "mother",
    "father",
    "emergency",
    "contact",
    "home",
    "work",
    "personal",
    "private",
    "owner",
    "client",
    "customer",
    "patient",
    "student",
    "family",
    "familia",
    "eltern",
    "contacto",
    "contato",
    "parent_1",
    "parent_2",
];

/// The shape a whole (normalised) header announces.
fn identifier_header(h: &str) -> Option<IdShape> {
    Some(match h {
        "email"
        | "e_mail"
        | "email_address"
        | "e_mail_address"
        | "mail"
        | "correo"
        | "correo_electrónico"
        | "courriel"
        | "adresse_e_mail"
        | "e_mail_adresse"
        | "邮箱"
        | "メール"
        | "メールアドレス"
        | "이메일"
        | "البريد_الإلكتروني" => IdShape::Email,
        "ip" | "ip_address" | "ipv4" | "ip_addr" | "client_ip" | "source_ip" => IdShape::Ip,
        "phone"
        | "telephone"
        | "tel"
        | "mobile"
        | "phone_number"
        | "mobile_number"
        | "contact_number"
        | "cell"
        | "cell_phone"
        | "telefon"
        | "telefonnummer"
        | "handy"
        | "teléfono"
        | "telefono"
        | "téléphone"
        | "telefone"
        | "telefoon"
        | "numer_telefonu"
        | "телефон"
        | "電話"
        | "電話番号"
        | "携帯"
        | "手机"
        | "手机号"
        | "电话"
        | "联系电话"
        | "전화"
        | "전화번호"
        | "휴대폰"
        | "هاتف"
        | "الهاتف"
        | "رقم_الهاتف"
        | "الجوال"
        | "telefon_numarası" => IdShape::Phone,
        // Not a plain `name`: aggregate tables name regions and teams.
        "full_name"
        | "fullname"
        | "patient_name"
        | "respondent_name"
        | "participant_name"
        | "person_name"
        | "client_name"
        | "student_name"
        | "employee_name"
        | "姓名"
        | "氏名"
        | "nombre_completo"
        | "nom_complet"
        | "nome_completo"
        | "vollständiger_name"
        | "imię_i_nazwisko"
        | "jméno_a_příjmení"
        | "фио"
        | "성명" => IdShape::FullName,
        "ssn"
        | "social_security_number"
        | "national_id"
        | "national_insurance_number"
        | "national_insurance"
        | "ni_number"
        | "ni_no"
        | "insurance_number"
        | "nino"
        | "nhs_number"
        | "nhs_no"
        | "passport"
        | "passport_number"
        | "tax_id"
        | "身份证号"
        | "pesel"
        | "dni"
        | "nif"
        | "nie"
        | "codice_fiscale"
        | "cpf"
        | "bsn"
        | "personnummer"
        | "henkilötunnus"
        | "steuer_id"
        | "sozialversicherungsnummer"
        | "numéro_de_sécurité_sociale"
        | "マイナンバー"
        | "주민등록번호"
        | "снилс"
        | "инн"
        | "tc_kimlik_no" => IdShape::NationalId,
        "dob"
        | "date_of_birth"
        | "birth_date"
        | "birthdate"
        | "birthday"
        | "出生日期"
        | "geburtsdatum"
        | "geb_datum"
        | "fecha_de_nacimiento"
        | "fecha_nacimiento"
        | "date_de_naissance"
        | "date_naissance"
        | "data_di_nascita"
        | "data_de_nascimento"
        | "data_nascimento"
        | "data_nasc"
        | "dt_nascimento"
        | "fecha_nac"
        | "fecha_de_nac"
        | "data_urodzenia"
        | "geboortedatum"
        | "datum_narození"
        | "дата_рождения"
        | "生年月日"
        | "생년월일"
        | "تاريخ_الميلاد"
        | "doğum_tarihi" => IdShape::BirthDate,
        "address" | "street_address" | "home_address" | "street" | "address_line_1" | "住址"
        | "住所" | "adresse" | "anschrift" | "dirección" | "direccion" | "domicilio"
        | "indirizzo" | "endereço" | "adres" | "адрес" | "주소" | "العنوان" => {
            IdShape::Address
        }
        _ => return None,
    })
}

fn looks_like(shape: IdShape, v: &str) -> bool {
    let v = v.trim();
    let digits = v.bytes().filter(u8::is_ascii_digit).count();
    let letters = v.chars().filter(|c| c.is_alphabetic()).count();
    match shape {
        IdShape::Email => looks_like_email(v),
        IdShape::Ip => looks_like_ipv4(v),
        IdShape::Phone => {
            digits >= 7
                && v.chars()
                    .all(|c| c.is_ascii_digit() || " +-().".contains(c))
        }
        IdShape::FullName => {
            digits == 0
                && v.split_whitespace()
                    .filter(|w| w.chars().any(char::is_alphabetic))
                    .count()
                    >= 2
                || (!v.is_ascii() && letters >= 2 && digits == 0)
        }
        IdShape::NationalId => digits >= 6 && v.len() <= 24,
        IdShape::BirthDate => {
            digits >= 6 && v.chars().all(|c| c.is_ascii_digit() || "-/. ".contains(c))
        }
        IdShape::Address => digits >= 1 && letters >= 3 && v.contains(' '),
    }
}

/// Headers of a column that names machines.
fn names_machines(h: &str) -> bool {
    matches!(
        norm_header(h).as_str(),
        "hostname"
            | "host"
            | "host_name"
            | "server"
            | "node"
            | "instance"
            | "machine"
            | "device"
            | "vm"
            | "pod"
            | "container"
            | "fqdn"
    )
}

/// Mailboxes of a role or team (`support@`, `billing@`): shared, not a
/// person's.
const ROLE_MAILBOXES: &[&str] = &[
    "support",
    "sales",
    "billing",
    "info",
    "admin",
    "help",
    "helpdesk",
    "contact",
    "noreply",
    "no-reply",
    "no_reply",
    "security",
    "abuse",
    "postmaster",
    "hr",
    "jobs",
    "careers",
    "press",
    "team",
    "office",
    "hello",
    "service",
    "ops",
    "devops",
    "it",
    "finance",
    "legal",
    "privacy",
    "webmaster",
    "marketing",
    "accounts",
    "orders",
    "invoices",
    "feedback",
    "dpo",
];

fn looks_like_email(v: &str) -> bool {
    let Some((local, domain)) = v.split_once('@') else {
        return false;
    };
    !ROLE_MAILBOXES.contains(&local.to_ascii_lowercase().as_str())
        && !local.is_empty()
        && !local.contains(char::is_whitespace)
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && domain
            .chars()
            .all(|c| c.is_alphanumeric() || c == '.' || c == '-')
}

fn looks_like_ipv4(v: &str) -> bool {
    let parts: Vec<&str> = v.split('.').collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.len() <= 3
                && p.bytes().all(|b| b.is_ascii_digit())
                && p.parse::<u16>().is_ok_and(|n| n <= 255)
        })
}

/// A column of direct identifiers (e-mail addresses, IP addresses, phone
/// numbers, full names, national ids, dates of birth, street addresses):
/// its cells name a person, so the table is record-level at any row count.
/// E-mail and IP addresses are recognised by their cells alone; the others
/// need a header that names them *and* cells of that shape (a `Phone`
/// column of counts is a contact channel, not phone numbers). At least half
/// of the filled cells must have the shape.
fn is_direct_identifier_column(raw: &RawTable<'_>, m: &Model, c: usize) -> bool {
    let announced = announced_identifier(&m.headers[c]);
    // A table of machines (a `hostname`, `server` or `node` column): its
    // IP addresses name hosts, not people.
    let machines = m.headers.iter().any(|h| names_machines(h));
    let shapes: &[IdShape] = match announced {
        Some(IdShape::Email) | None if machines => &[IdShape::Email],
        Some(IdShape::Email) | None => &[IdShape::Email, IdShape::Ip],
        Some(IdShape::Ip) if machines => return false,
        Some(shape @ IdShape::Ip) => &[shape],
        Some(shape) => &[shape, IdShape::Email, IdShape::Ip],
    };
    let mut filled = 0usize;
    let mut hits = 0usize;
    for row in raw.rows.iter() {
        let t = model::clean(row.text(c));
        if model::is_marker(t, MARKER) {
            continue;
        }
        filled += 1;
        if shapes.iter().any(|&s| looks_like(s, t)) {
            hits += 1;
        }
    }
    hits > 0 && hits * 2 >= filled
}

fn norm_header(h: &str) -> String {
    h.trim().to_lowercase().replace([' ', '-', '.'], "_")
}

fn is_record_id_header(h: &str) -> bool {
    let h = norm_header(h);
    matches!(
        h.as_str(),
        "id" | "uuid"
            | "guid"
            | "record"
            | "case"
            | "person"
            | "patient"
            | "subject"
            | "participant"
            | "respondent"
            | "mrn"
            | "nhs"
            | "nhs_number"
            | "ssn"
            | "email"
            | "编号"
    ) || h.ends_with("_id")
        || h.starts_with("id_")
        || h.ends_with("_uuid")
        || h.ends_with("_number") && !h.starts_with("number")
}

fn is_quasi_identifier(h: &str) -> bool {
    let h = norm_header(h);
    matches!(
        h.as_str(),
        "dob"
            | "date_of_birth"
            | "birth_date"
            | "birthdate"
            | "postcode"
            | "post_code"
            | "zip"
            | "zipcode"
            | "zip_code"
            | "email"
            | "name"
            | "full_name"
            | "first_name"
            | "last_name"
            | "surname"
            | "phone"
            | "address"
            | "sex"
            | "gender"
            | "age"
            | "ethnicity"
            | "出生日期"
            | "姓名"
            | "性别"
            | "年龄"
    )
}

fn is_aggregate_header(h: &str) -> bool {
    let h = norm_header(h);
    matches!(
        h.as_str(),
        "count"
            | "counts"
            | "n"
            | "num"
            | "number"
            | "freq"
            | "frequency"
            | "total"
            | "sum"
            | "mean"
            | "average"
            | "avg"
            | "median"
            | "cases"
            | "people"
            | "persons"
            | "patients"
            | "households"
            | "respondents"
            | "records"
            | "visits_total"
            | "人数"
            | "数量"
            | "合计"
    ) || h.starts_with("n_") && h.len() > 2
        || h.starts_with("count_")
        || h.ends_with("_count")
        || h.starts_with("num_")
}

/// Longest Markdown table re-padded after suppression.
const REALIGN_MAX_LINES: usize = 5_000;

/// A fixed-width table rebuilt line by line with its hidden cells marked:
/// every column padded to its widest cell (counts to the right, text to
/// the left), two spaces apart, each line keeping its indentation; a dashed
/// rule is redrawn under the new widths. A second pass finds the same
/// columns, so it hides nothing more.
fn realign_fixed<'o>(
    text: &str,
    raw: &RawTable<'_>,
    hidden: &[HiddenCell],
    marker: &str,
) -> Edits<'o> {
    let ncols = raw.columns();
    let mut rows: Vec<Vec<String>> = Vec::new();
    if let Some(h) = &raw.header {
        rows.push(h.iter().map(|c| c.text.to_string()).collect());
    }
    let first_data = rows.len();
    for r in raw.rows.iter() {
        rows.push(r.iter().map(|c| c.text.to_string()).collect());
    }
    for h in hidden {
        if let Some(cell) = rows
            .get_mut(first_data + h.row)
            .and_then(|r| r.get_mut(h.column))
        {
            *cell = marker.to_string();
        }
    }
    let widths: Vec<usize> = (0..ncols)
        .map(|c| {
            rows.iter()
                .map(|r| r.get(c).map_or(0, |t| t.chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let numeric: Vec<bool> = (0..ncols)
        .map(|c| {
            rows[first_data..].iter().all(|r| {
                r.get(c)
                    .is_none_or(|t| t.is_empty() || t == marker || model::parse_number(t).is_some())
            })
        })
        .collect();
    let render = |cells: &[String]| -> String {
        let mut line = String::new();
        for (c, w) in widths.iter().enumerate() {
            let t = cells.get(c).map_or("", String::as_str);
            let pad = w.saturating_sub(t.chars().count());
            if c > 0 {
                line.push_str("  ");
            }
            if numeric[c] {
                line.extend(std::iter::repeat_n(' ', pad));
                line.push_str(t);
            } else {
                line.push_str(t);
                if c + 1 < ncols {
                    line.extend(std::iter::repeat_n(' ', pad));
                }
            }
        }
        line.trim_end().to_string()
    };
    let rule_line = |ch: char| -> String {
        widths
            .iter()
            .map(|&w| ch.to_string().repeat(w))
            .collect::<Vec<_>>()
            .join("  ")
    };
    let mut edits = Vec::with_capacity(raw.lines.len());
    let mut next_row = 0;
    for &(a, b) in &raw.lines {
        let line = text.get(a..b).unwrap_or("");
        let indent: String = line.chars().take_while(|&c| c == ' ').collect();
        let body = if parse::is_dash_rule(line) {
            rule_line(if line.contains('=') { '=' } else { '-' })
        } else {
            let Some(cells) = rows.get(next_row) else {
                break;
            };
            next_row += 1;
            render(cells)
        };
        edits.push((a, b, Cow::Owned(format!("{indent}{body}"))));
    }
    edits
}

/// Rewrite a Markdown table's lines so hidden cells keep the columns
/// aligned: when the original lines were padded to common column widths,
/// re-pad every line of the table to the new widths. `None` when the table
/// was not aligned (then the plain cell edits keep its shape).
fn realign_markdown<'o>(
    text: &str,
    raw: &RawTable<'_>,
    edits: &[(usize, usize, Cow<'o, str>)],
) -> Option<Edits<'o>> {
    // Re-padding is cosmetic: very large tables keep their plain edits.
    if raw.lines.len() < 2 || raw.lines.len() > REALIGN_MAX_LINES || edits.len() > 50_000 {
        return None;
    }
    let mut sorted: Vec<&(usize, usize, Cow<'o, str>)> = edits.iter().collect();
    sorted.sort_by_key(|e| e.0);
    // Aligned: every line has its pipes at the same character columns.
    let pipe_cols = |s: &str| -> Vec<usize> {
        s.chars()
            .enumerate()
            .filter(|&(_, ch)| ch == '|')
            .map(|(i, _)| i)
            .collect()
    };
    let first = pipe_cols(text.get(raw.lines[0].0..raw.lines[0].1)?);
    if first.len() < 2 {
        return None;
    }
    for &(a, b) in &raw.lines[1..] {
        if pipe_cols(text.get(a..b)?) != first {
            return None;
        }
    }
    let mut out = Vec::new();
    // Rebuild each line: cells with edits get the replacement, then pad.
    let mut lines: Vec<Vec<(String, bool)>> = Vec::new();
    for &(a, b) in &raw.lines {
        let line = text.get(a..b)?;
        let mut cells = Vec::new();
        let mut prev = None;
        for (bi, ch) in line.char_indices() {
            if ch == '|' {
                if let Some(p) = prev {
                    let mut cell = String::new();
                    let (ca, cb) = (a + p + 1, a + bi);
                    let mut pos = ca;
                    let from = sorted.partition_point(|e| e.0 < ca);
                    let upto = sorted.partition_point(|e| e.0 < cb);
                    for (ea, eb, rep) in sorted[from..upto].iter().copied().filter(|e| e.1 <= cb) {
                        cell.push_str(text.get(pos..*ea)?);
                        cell.push_str(rep);
                        pos = *eb;
                    }
                    cell.push_str(text.get(pos..cb)?);
                    let piece = text.get(ca..cb)?;
                    let right = piece.starts_with("  ") && !piece.ends_with("  ");
                    cells.push((cell.trim().to_string(), right));
                }
                prev = Some(bi);
            }
        }
        lines.push(cells);
    }
    let ncols = lines.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![3usize; ncols];
    for (li, cells) in lines.iter().enumerate() {
        if li == 1 {
            continue; // the separator adapts to the others
        }
        for (c, (cell, _)) in cells.iter().enumerate() {
            widths[c] = widths[c].max(cell.chars().count());
        }
    }
    for (li, (&(a, b), cells)) in raw.lines.iter().zip(&lines).enumerate() {
        let line = text.get(a..b)?;
        let lead = &line[..line.find('|')?];
        let mut s = String::from(lead);
        s.push('|');
        for (c, (cell, right)) in cells.iter().enumerate() {
            let w = widths[c];
            if li == 1 {
                let left = cell.starts_with(':');
                let right = cell.ends_with(':');
                let dashes = w.saturating_sub(usize::from(left) + usize::from(right));
                s.push(' ');
                if left {
                    s.push(':');
                }
                s.push_str(&"-".repeat(dashes));
                if right {
                    s.push(':');
                }
                s.push_str(" |");
            } else {
                let pad = w.saturating_sub(cell.chars().count());
                s.push(' ');
                if *right {
                    s.push_str(&" ".repeat(pad));
                    s.push_str(cell);
                } else {
                    s.push_str(cell);
                    s.push_str(&" ".repeat(pad));
                }
                s.push_str(" |");
            }
        }
        out.push((a, b, Cow::Owned(s)));
    }
    Some(out)
}

/// Apply `edits` and replace every span of `marks` (in text order) with
/// `marker`, merging the two in order.
fn apply_edits(
    text: &str,
    mut edits: Edits<'_>,
    marks: impl Iterator<Item = (usize, usize)>,
    marker: &str,
) -> String {
    edits.sort_by_key(|e| (e.0, e.1));
    let mut marks = marks.peekable();
    if edits.is_empty() && marks.peek().is_none() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + edits.len() * 8);
    let mut pos = 0;
    let mut edits = edits.into_iter().peekable();
    loop {
        let take_mark = match (marks.peek(), edits.peek()) {
            (None, None) => break,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(m), Some(e)) => (m.0, m.1) <= (e.0, e.1),
        };
        let (a, b, rep): (usize, usize, &str) = if take_mark {
            let Some((a, b)) = marks.next() else { break };
            (a, b, marker)
        } else {
            let Some((a, b, rep)) = edits.next() else {
                break;
            };
            if a < pos || b < a || b > text.len() {
                continue; // overlapping or out of range: never happens by construction
            }
            out.push_str(&text[pos..a]);
            out.push_str(&rep);
            pos = b;
            continue;
        };
        if a < pos || b < a || b > text.len() {
            continue; // overlapping or out of range: never happens by construction
        }
        out.push_str(&text[pos..a]);
        out.push_str(rep);
        pos = b;
    }
    out.push_str(&text[pos..]);
    out
}

#[cfg(test)]
mod tests;
