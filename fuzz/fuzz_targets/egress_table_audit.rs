//! Every table the suppressor rewrites passes its own audit, and suppression
//! is idempotent.
#![no_main]

use libfuzzer_sys::fuzz_target;
use palisade_egress::table::{scan, TableOptions};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let options = TableOptions::default();
    let report = scan(text, &options);
    for table in &report.tables {
        assert!(table.audit_passed() || table.fallback, "a hidden cell can be worked out");
    }
    let again = scan(&report.text, &options);
    assert_eq!(again.text, report.text, "suppression is not idempotent");
});
