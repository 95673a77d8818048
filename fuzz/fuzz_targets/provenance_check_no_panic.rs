//! Claim detection and the provenance verdict are total and deterministic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use palisade_provenance::gate::{Gate, GateConfig};
use palisade_provenance::SaidIndex;
use std::sync::OnceLock;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    // The first line is what the user said, the rest is the write.
    let (said_text, write) = text.split_once('\n').unwrap_or(("", text));
    let mut said = SaidIndex::new();
    said.push("s", None, "", said_text);
    static GATE: OnceLock<Gate> = OnceLock::new();
    let gate = GATE.get_or_init(|| Gate::new(GateConfig::default()));
    let a = gate.check(write, &said, "s", None);
    let b = gate.check(write, &said, "s", None);
    assert_eq!(a, b, "verdicts must be deterministic");
    for claim in &a.claims {
        assert!(write.get(claim.claim.span.range()).is_some(), "claim span out of bounds");
    }
});
