//! Loose false-claim rate on the shared external corpora (benign prompts and
//! prompt-injection payloads are not memory lines; almost none should read as
//! a user-decision claim). Skips, and says so, when the corpora are absent.

use palisade_provenance::{ClaimDetector, Scope};
use serde_json::Value;

const DIR: &str = "/work/shared/corpora/injection";

#[test]
#[allow(clippy::disallowed_methods)] // tests may read the shared corpora; the library never does
fn external_text_rarely_reads_as_a_claim() {
    let files = [
        "notinject.jsonl",
        "bipia-attacks.jsonl",
        "purplellama-prompt-injection.jsonl",
    ];
    let det = ClaimDetector::new(Scope::Decisions);
    let (mut lines, mut flagged) = (0usize, 0usize);
    for f in files {
        let Ok(text) = std::fs::read_to_string(format!("{DIR}/{f}")) else {
            println!("skipping: {DIR}/{f} not present");
            return;
        };
        for line in text.lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            let Some(obj) = v.as_object() else { continue };
            for field in obj.values() {
                if let Some(s) = field.as_str().filter(|s| s.len() > 20) {
                    lines += 1;
                    let claims = det.detect(s);
                    if !claims.is_empty() {
                        flagged += 1;
                        println!("claim in {f}: {:?}", claims[0].text);
                    }
                }
            }
        }
    }
    let rate = flagged as f64 / lines.max(1) as f64;
    println!("shared corpora: {flagged} of {lines} strings read as claims ({rate:.3})");
    assert!(rate < 0.05, "false-claim rate {rate:.3} on external text");
}
