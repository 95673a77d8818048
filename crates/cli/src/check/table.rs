//! `palisade check table --jsonl`.
//!
//! Input: `{"text", "threshold"?, "method"? ("suppress"|"round"),
//! "min_value"?, "max_rows"?, "protection_width"?, "microdata"?
//! ("keep"|"withhold")}`.
//!
//! Output: `{"text": rewritten, "suppressed": [[r, c], …], "microdata": bool,
//! "changed": bool, "audit": [{"cell": [r, c], "reason", "lo", "hi",
//! "required_width", "full_width", "protected", "exact"}, …], "tables": [per-table
//! detail: kind, span, rows, columns, hidden, rounded, microdata, withheld,
//! fallback, audit_passed, audited, narrowest {row, column, lo, hi}, loss
//! {cells, totals, value}]}`. `exact` says the interval was solved by the LP
//! audit (else it is a certified inner bound); `audited` that every hidden
//! count meets its required width.
//! `r` is the 0-based data row (the header row and a Markdown separator are
//! not counted; rows run on across several tables in one text), `c` the
//! 0-based column as written. `lo`/`hi` are the proven bounds of what an
//! attacker can infer about a hidden count (`hi: null` = unbounded); they
//! are for the vetter, not for publication.

use palisade_egress::table::{
    scan, HiddenCell, HideReason, Method, MicrodataAction, TableKind, TableOptions, TableReport,
};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;
use std::io::{self, Write};

use super::LineChecker;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    text: String,
    threshold: Option<u64>,
    method: Option<Method>,
    min_value: Option<u64>,
    max_rows: Option<usize>,
    protection_width: Option<u64>,
    microdata: Option<MicrodataAction>,
}

struct TableChecker;

/// The checker for this guard.
pub fn checker() -> Box<dyn LineChecker> {
    Box::new(TableChecker)
}

fn options(req: &Request) -> TableOptions {
    let defaults = TableOptions::default();
    TableOptions {
        threshold: req.threshold.unwrap_or(defaults.threshold),
        min_value: req.min_value.unwrap_or(defaults.min_value),
        method: req.method.unwrap_or(defaults.method),
        max_rows: req.max_rows.unwrap_or(defaults.max_rows),
        protection_width: req.protection_width,
        microdata: req.microdata.unwrap_or(defaults.microdata),
        ..defaults
    }
}

/// The answer, serialized straight from the report: a table with many
/// hidden cells has an audit list many times the size of the input, so it
/// is written as it is produced instead of being built as a `Value` first.
#[derive(Serialize)]
struct Answer<'a> {
    text: &'a str,
    suppressed: Suppressed<'a>,
    microdata: bool,
    changed: bool,
    audit: Audit<'a>,
    tables: Tables<'a>,
}

struct Suppressed<'a>(&'a TableReport);
struct Audit<'a>(&'a TableReport);
struct Tables<'a>(&'a TableReport);

/// Every hidden cell with the row offset of its table (rows run on across
/// the tables of one text).
fn hidden_cells(report: &TableReport) -> impl Iterator<Item = (usize, &HiddenCell)> {
    let mut offset = 0;
    report.tables.iter().flat_map(move |t| {
        let base = offset;
        offset += t.rows;
        t.hidden.iter().map(move |h| (base + h.row, h))
    })
}

impl Serialize for Suppressed<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(hidden_cells(self.0).map(|(r, h)| [r, h.column]))
    }
}

#[derive(Serialize)]
struct AuditEntry<'a> {
    cell: [usize; 2],
    reason: &'a HideReason,
    lo: Option<u64>,
    hi: Option<u64>,
    required_width: u64,
    full_width: bool,
    protected: bool,
    exact: bool,
}

impl Serialize for Audit<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(hidden_cells(self.0).map(|(r, h)| AuditEntry {
            cell: [r, h.column],
            reason: &h.reason,
            lo: h.lo,
            hi: h.hi,
            required_width: h.required_width,
            full_width: h.full_width,
            protected: h.protected,
            exact: h.exact,
        }))
    }
}

#[derive(Serialize)]
struct TableEntry<'a> {
    kind: &'a TableKind,
    span: &'a palisade_common::Span,
    rows: usize,
    columns: usize,
    hidden: usize,
    rounded: usize,
    microdata: bool,
    withheld: bool,
    fallback: bool,
    audit_passed: bool,
    audited: bool,
    narrowest: &'a Option<palisade_egress::table::Narrowest>,
    loss: &'a palisade_egress::table::Loss,
}

impl Serialize for Tables<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.tables.iter().map(|t| TableEntry {
            kind: &t.kind,
            span: &t.span,
            rows: t.rows,
            columns: t.columns,
            hidden: t.hidden.len(),
            rounded: t.rounded,
            microdata: t.microdata,
            withheld: t.withheld,
            fallback: t.fallback,
            audit_passed: t.audit_passed(),
            audited: t.audited,
            narrowest: &t.narrowest,
            loss: &t.loss,
        }))
    }
}

fn answer(report: &TableReport) -> Answer<'_> {
    Answer {
        text: &report.text,
        suppressed: Suppressed(report),
        microdata: report.microdata(),
        changed: report.changed(),
        audit: Audit(report),
        tables: Tables(report),
    }
}

fn report_for(input: Value) -> Result<TableReport, String> {
    let req: Request = super::parse(input)?;
    let options = options(&req);
    Ok(scan(&req.text, &options))
}

impl LineChecker for TableChecker {
    fn check(&mut self, input: Value) -> Result<Value, String> {
        let report = report_for(input)?;
        serde_json::to_value(answer(&report)).map_err(|e| format!("cannot encode: {e}"))
    }

    fn check_into(&mut self, input: Value, out: &mut dyn Write) -> Result<io::Result<()>, String> {
        let report = report_for(input)?;
        Ok(serde_json::to_writer(out, &answer(&report)).map_err(io::Error::from))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_the_contract_shape() {
        let mut c = checker();
        let out = c
            .check(json!({"text": "a,b,total\n3,9,12\n7,8,15\n10,17,27\n"}))
            .unwrap();
        assert_eq!(out["suppressed"], json!([[0, 0], [0, 1], [1, 0], [1, 1]]));
        assert_eq!(out["microdata"], json!(false));
        assert!(out["text"].as_str().unwrap().ends_with("10,17,27\n"));
        assert_eq!(out["audit"][0]["protected"], json!(true));
        assert_eq!(out["audit"][0]["exact"], json!(true));
        assert_eq!(out["tables"][0]["audited"], json!(true));
        assert_eq!(out["tables"][0]["loss"]["totals"], json!(0));
        let round = c
            .check(json!({"text": "a,n\nx,3\ny,41\n", "method": "round", "threshold": 10}))
            .unwrap();
        assert_eq!(round["suppressed"], json!([]));
        assert!(c.check(json!({"txt": "x"})).is_err());
        assert!(c.check(json!({"text": "x", "method": "shuffle"})).is_err());
    }
}
