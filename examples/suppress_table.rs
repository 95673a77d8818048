//! Suppress small counts in a table before a reply goes out, with an audit
//! proving no hidden count can be worked out from the totals.
//!
//! `cargo run --example suppress_table`

use palisade::egress::table::{scan, TableOptions};

fn main() {
    let reply = "Patients per clinic:\n\n\
                 | clinic | diabetes | asthma | copd | total |\n\
                 |---|---|---|---|---|\n\
                 | North | 42 | 17 | 3 | 62 |\n\
                 | South | 38 | 2 | 11 | 51 |\n\
                 | East | 25 | 19 | 14 | 58 |\n\
                 | Total | 105 | 38 | 28 | 171 |\n";
    let options = TableOptions::default();
    let report = scan(reply, &options);
    println!("{}", report.text);
    for table in &report.tables {
        for cell in &table.hidden {
            println!(
                "hidden row {} column {} ({:?}): an attacker can only narrow it to {:?}..={:?}",
                cell.row, cell.column, cell.reason, cell.lo, cell.hi
            );
        }
        println!("audit passed: {}", table.audit_passed());
    }
}
