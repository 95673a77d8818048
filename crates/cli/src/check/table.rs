//! `palisade check table --jsonl`.
//!
//! Input: `{"text", "threshold"?, "method"? ("suppress"|"round"),
//! "min_value"?, "max_rows"?, "protection_width"?, "microdata"?
//! ("keep"|"withhold")}`.
//!
//! Output: `{"text": rewritten, "suppressed": [[r, c], …], "microdata": bool,
//! "changed": bool, "audit": [{"cell": [r, c], "reason", "lo", "hi",
//! "required_width", "full_width", "protected"}, …], "tables": [per-table detail]}`.
//! `r` is the 0-based data row (the header row and a Markdown separator are
//! not counted; rows run on across several tables in one text), `c` the
//! 0-based column as written. `lo`/`hi` are the proven bounds of what an
//! attacker can infer about a hidden count (`hi: null` = unbounded); they
//! are for the vetter, not for publication.

use palisade_egress::table::{scan, Method, MicrodataAction, TableOptions};
use serde::Deserialize;
use serde_json::{json, Value};

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

impl LineChecker for TableChecker {
    fn check(&mut self, input: Value) -> Result<Value, String> {
        let req: Request = super::parse(input)?;
        let defaults = TableOptions::default();
        let options = TableOptions {
            threshold: req.threshold.unwrap_or(defaults.threshold),
            min_value: req.min_value.unwrap_or(defaults.min_value),
            method: req.method.unwrap_or(defaults.method),
            max_rows: req.max_rows.unwrap_or(defaults.max_rows),
            protection_width: req.protection_width,
            microdata: req.microdata.unwrap_or(defaults.microdata),
            ..defaults
        };
        let report = scan(&req.text, &options);
        let mut audit = Vec::new();
        let mut offset = 0;
        for t in &report.tables {
            for h in &t.hidden {
                audit.push(json!({
                    "cell": [h.row + offset, h.column],
                    "reason": h.reason,
                    "lo": h.lo,
                    "hi": h.hi,
                    "required_width": h.required_width,
                    "full_width": h.full_width,
                    "protected": h.protected,
                }));
            }
            offset += t.rows;
        }
        let tables: Vec<Value> = report
            .tables
            .iter()
            .map(|t| {
                json!({
                    "kind": t.kind,
                    "span": t.span,
                    "rows": t.rows,
                    "columns": t.columns,
                    "hidden": t.hidden.len(),
                    "rounded": t.rounded,
                    "microdata": t.microdata,
                    "withheld": t.withheld,
                    "fallback": t.fallback,
                    "audit_passed": t.audit_passed(),
                })
            })
            .collect();
        Ok(json!({
            "text": report.text,
            "suppressed": report.suppressed(),
            "microdata": report.microdata(),
            "changed": report.changed(),
            "audit": audit,
            "tables": tables,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let round = c
            .check(json!({"text": "a,n\nx,3\ny,41\n", "method": "round", "threshold": 10}))
            .unwrap();
        assert_eq!(round["suppressed"], json!([]));
        assert!(c.check(json!({"txt": "x"})).is_err());
        assert!(c.check(json!({"text": "x", "method": "shuffle"})).is_err());
    }
}
