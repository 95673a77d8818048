//! Loose-rate checks against the shared external corpora in
//! `../shared/corpora` (relative to the workspace). The corpora are not part
//! of the repository: when the directory is absent every test here says so
//! and passes without checking anything.

use palisade_closure::classify::{Classifier, JudgmentKind, Turn};
use palisade_closure::redact::redact_text;
use serde_json::Value;
use std::path::PathBuf;

#[path = "../../../tests/support/corpora.rs"]
mod support;

fn corpus(rel: &str) -> Option<Vec<Value>> {
    let path: PathBuf = support::root()?.join(rel);
    // Tests may read files; the library itself stays pure.
    #[allow(clippy::disallowed_methods)] // reading a test corpus, not library I/O
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(_) => {
            support::skip(&format!("{} is absent", path.display()));
            return None;
        }
    };
    Some(
        text.lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect(),
    )
}

/// Benign one-off prompts (NotInject) are mostly routine turns: they ask for
/// something once and state no preference, boundary or decision.
#[test]
fn benign_prompts_are_mostly_routine() {
    let Some(rows) = corpus("injection/notinject.jsonl") else {
        return;
    };
    let c = Classifier::new();
    let mut candidates = 0usize;
    let mut total = 0usize;
    for row in &rows {
        let Some(text) = row["text"].as_str() else {
            continue;
        };
        total += 1;
        if c.judge(&Turn::new(text, "OK.")).kind == JudgmentKind::Candidate {
            candidates += 1;
        }
    }
    eprintln!("notinject: {candidates}/{total} benign prompts became candidates");
    assert!(total > 100);
    assert!(
        candidates * 100 <= total * 15,
        "{candidates}/{total} candidates"
    );
}

/// Preview redaction is a best-effort layer (the egress guard is the full
/// secret scanner): it should still mask a good share of labelled real-format
/// secrets and never panic.
#[test]
fn secret_examples_are_partly_masked() {
    let Some(rows) = corpus("secrets/noseyparker-examples.jsonl") else {
        return;
    };
    let (mut hit, mut total, mut neg_changed, mut neg_total) = (0usize, 0usize, 0usize, 0usize);
    for row in &rows {
        let Some(text) = row["text"].as_str() else {
            continue;
        };
        let changed = redact_text(text) != text;
        if row["expect"] == "match" {
            total += 1;
            hit += usize::from(changed);
        } else {
            neg_total += 1;
            neg_changed += usize::from(changed);
        }
    }
    eprintln!(
        "noseyparker: masked {hit}/{total} positives, changed {neg_changed}/{neg_total} negatives"
    );
    assert!(total > 100);
    assert!(hit * 100 >= total * 45, "only {hit}/{total} masked");
}
