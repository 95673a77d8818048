//! Check a memory write for decisions the user's own words do not back.
//!
//! `cargo run --example check_memory_write`

use palisade::provenance::gate::{Gate, GateConfig};
use palisade::provenance::replay::{check_write, Stored};
use palisade::provenance::SaidIndex;
use serde_json::json;

fn main() {
    // What the user typed in this session, as the host captured it.
    let mut said = SaidIndex::new();
    said.push("session-1", None, "", "I decided we ship on Friday");

    let gate = Gate::new(GateConfig::default());
    let writes = [
        json!({"action": "add", "target": "memory", "content": "User decided to ship on Friday."}),
        json!({"action": "add", "target": "memory",
               "content": "User decided to ship on Friday (\"I decided we ship on Friday\")."}),
        json!({"action": "add", "target": "memory", "content": "The PM decided to ship on Friday."}),
    ];
    for args in &writes {
        let report = check_write(
            &gate,
            "memory",
            args,
            &Stored::default(),
            &said,
            "session-1",
        );
        println!(
            "{:<6} {:<12} {}",
            report.outcome.as_str(),
            report.reason.map_or("-", |r| r.as_str()),
            args["content"]
        );
    }
}
