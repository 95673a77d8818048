//! False claims on the shared open corpora: benign prompts, prompt-injection
//! payloads, secret-scanner examples and tool calls are not memory lines, and
//! none of their strings may read as a user-decision claim (issue 19's bar: 0
//! of them). The in-the-wild jailbreaks are persona text written *about* a
//! user ("HGTTG will provide the answer the user wants"); they are held to a
//! loose rate instead, as before. Skips, and says so, when the corpora are
//! absent.

use palisade_provenance::{ClaimDetector, Scope};
use serde_json::Value;
use std::path::Path;

#[path = "../../../tests/support/corpora.rs"]
mod support;

/// Persona text about a user: a loose rate, not zero.
const LOOSE: &str = "inthewild_jailbreak_llms.jsonl";

/// Every string leaf of a JSON value longer than 20 bytes.
fn strings<'v>(v: &'v Value, out: &mut Vec<&'v str>) {
    match v {
        Value::String(s) if s.len() > 20 => out.push(s),
        Value::Array(items) => items.iter().for_each(|x| strings(x, out)),
        Value::Object(map) => map.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

/// The `.json` / `.jsonl` files under `dir`, sorted.
#[allow(clippy::disallowed_methods)] // tests may read the shared corpora; the library never does
fn corpus_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            corpus_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "json" || e == "jsonl") {
            out.push(p);
        }
    }
}

#[test]
#[allow(clippy::disallowed_methods)] // tests may read the shared corpora; the library never does
fn open_corpora_hold_no_claims() {
    let Some(dir) = support::root() else { return };
    let mut files = Vec::new();
    corpus_files(&dir, &mut files);
    if files.is_empty() {
        support::skip(&format!("no corpus files under {}", dir.display()));
        return;
    }
    let det = ClaimDetector::new(Scope::Decisions);
    let (mut count, mut flagged) = (0usize, Vec::new());
    let (mut loose_count, mut loose_flagged) = (0usize, 0usize);
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        let values: Vec<Value> = if f.extension().is_some_and(|e| e == "jsonl") {
            text.lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect()
        } else {
            serde_json::from_str(&text).into_iter().collect()
        };
        for v in &values {
            let mut leaves = Vec::new();
            strings(v, &mut leaves);
            let loose = f.file_name().is_some_and(|n| n == LOOSE);
            for s in leaves {
                let claim = det.detect(s).first().map(|c| c.text.clone());
                match (loose, claim) {
                    (true, c) => {
                        loose_count += 1;
                        loose_flagged += usize::from(c.is_some());
                    }
                    (false, c) => {
                        count += 1;
                        if let Some(c) = c {
                            flagged.push(format!("{}: {c:?}", f.display()));
                        }
                    }
                }
            }
        }
    }
    println!(
        "open corpora: {} of {count} strings read as claims",
        flagged.len()
    );
    println!("jailbreak personas: {loose_flagged} of {loose_count} strings read as claims");
    assert!(
        count > 5000,
        "only {count} strings read: corpora incomplete?"
    );
    assert!(
        loose_flagged * 100 < loose_count.max(1),
        "jailbreak persona false-claim rate {loose_flagged}/{loose_count} is 1 % or more"
    );
    assert!(
        flagged.is_empty(),
        "claims in non-memory text:\n{}",
        flagged.join("\n")
    );
}
