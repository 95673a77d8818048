//! Folding arbitrary event lines into the candidate ledger never panics, and
//! the view does not depend on the order the events arrive in.
//!
//! Order independence holds for a set of events, so events whose id occurs
//! more than once (the first arrival wins by design) are left out.
#![no_main]

use std::collections::HashMap;

use libfuzzer_sys::fuzz_target;
use palisade_closure::ledger::{CandidateEvent, Ledger};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let values: Vec<serde_json::Value> = text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    // Malformed events are rejected, never a panic.
    let mut raw = Ledger::new();
    for v in &values {
        let _ = raw.apply_value(v);
    }

    let events: Vec<CandidateEvent> = values.iter().filter_map(|v| CandidateEvent::from_value(v).ok()).collect();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for e in &events {
        *seen.entry(e.event_id.as_str()).or_default() += 1;
    }
    let unique: Vec<&CandidateEvent> = events.iter().filter(|e| seen[e.event_id.as_str()] == 1).collect();
    let fold = |order: &mut dyn Iterator<Item = &&CandidateEvent>| {
        let mut ledger = Ledger::new();
        for e in order {
            let _ = ledger.apply((*e).clone());
        }
        let mut views: Vec<String> = ledger.views().map(|v| format!("{v:?}")).collect();
        views.sort();
        views
    };
    assert_eq!(
        fold(&mut unique.iter()),
        fold(&mut unique.iter().rev()),
        "the view depends on arrival order"
    );
});
