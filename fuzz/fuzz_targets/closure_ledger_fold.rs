//! Folding arbitrary event lines into the candidate ledger never panics and
//! is deterministic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use palisade_closure::ledger::Ledger;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let events: Vec<serde_json::Value> = text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let fold = || {
        let mut ledger = Ledger::new();
        for e in &events {
            let _ = ledger.apply_value(e);
        }
        let mut views: Vec<String> = ledger.views().map(|v| format!("{v:?}")).collect();
        views.sort();
        views
    };
    assert_eq!(fold(), fold());
});
