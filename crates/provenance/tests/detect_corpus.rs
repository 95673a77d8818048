//! Table-driven claim-detection corpus: `testdata/claims_detect.jsonl` (every
//! line must be detected) and `testdata/not_claims.jsonl` (no line may be).
//! Prints precision and recall (run with `--nocapture` to see them). The
//! corpus was written for this crate and the rules were tuned on it, so the
//! numbers are a regression guard, not a blind measurement.

use palisade_provenance::{ClaimDetector, Scope};
use serde_json::Value;

const CLAIMS: &str = include_str!("../testdata/claims_detect.jsonl");
const NOT_CLAIMS: &str = include_str!("../testdata/not_claims.jsonl");

fn cases(src: &str) -> Vec<(String, String, String)> {
    src.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value =
                serde_json::from_str(l).unwrap_or_else(|e| panic!("bad corpus line {l}: {e}"));
            let get = |k: &str| {
                v[k].as_str()
                    .unwrap_or_else(|| panic!("missing {k} in {l}"))
                    .to_owned()
            };
            (get("name"), get("input"), get("expected"))
        })
        .collect()
}

#[test]
fn detection_corpus() {
    let det = ClaimDetector::new(Scope::Decisions);
    let (mut tp, mut fn_, mut fp, mut tn) = (0usize, 0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    for (name, input, expected) in cases(CLAIMS).into_iter().chain(cases(NOT_CLAIMS)) {
        let found = !det.detect(&input).is_empty();
        match (expected.as_str(), found) {
            ("claim", true) => tp += 1,
            ("claim", false) => {
                fn_ += 1;
                failures.push(format!("{name}: missed claim: {input:?}"));
            }
            (_, true) => {
                fp += 1;
                failures.push(format!("{name}: false claim: {input:?}"));
            }
            (_, false) => tn += 1,
        }
    }
    let precision = tp as f64 / (tp + fp).max(1) as f64;
    let recall = tp as f64 / (tp + fn_).max(1) as f64;
    println!("claim corpus: tp={tp} fn={fn_} fp={fp} tn={tn} precision={precision:.3} recall={recall:.3}");
    assert!(tp + fn_ >= 200, "need at least 200 claim cases");
    assert!(fp + tn >= 250, "need at least 250 non-claim cases");
    assert!(
        failures.is_empty(),
        "{} corpus failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
