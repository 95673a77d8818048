//! The third fresh-eyes claim corpus of issue 19
//! (`testdata/fresh_claims3.jsonl`): 253 memory, skill, runbook and commit
//! lines (114 claims and 139 not as written; 133 English, 82 Chinese, 38
//! code-switched) written by someone who had not read this crate.
//!
//! First sight, before any tuning on it (the untouched base build of main,
//! `/work/base-bin/palisade check claims --jsonl`, scored by
//! `/work/briefs/score.py`): **precision 0.932, recall 0.596** (tp 68, fp 5,
//! fn 46, tn 134). That is the honest estimate of this round. The rules were
//! then tuned on its misses, class by class (idioms, labels and headings,
//! 甲方 and a clause-initial "Boss" as subjects, agentless frames, code-switched
//! verbs, wrapped interposed clauses; hearsay with a named source, logs
//! quoted as evidence, "confirmed the bug"), so from here on it is a
//! **regression baseline, not evidence** of accuracy: the test holds the
//! after-tuning numbers and the exact lines still missed, so a change that
//! loses a line or fixes one shows up here and the baseline is updated on
//! purpose.
//!
//! Labels are the writer's; none was relabelled.
//!
//! Round 8 (branch tune8-claims) met its last three misses (the refusal
//! idiom "won't have X" with an exemption for ordinary objects, "the
//! user's decision last time (…)", a reply that carries the decision,
//! 甲方回话了，logo 定…): tp 114, fp 0, fn 0, tn 139.

mod fresh_claims;

use fresh_claims::{cases, hold_baseline, known_misses_are_lines};
use palisade_provenance::{ClaimDetector, Scope};

const FRESH: &str = include_str!("../testdata/fresh_claims3.jsonl");

/// The lines still missed after tuning, each with the reason it is left.
const KNOWN_MISSES: &[(&str, &str)] = &[];

/// Lines the writer labelled as preferences: claims only in the wider scope.
const PREFERENCES: &[&str] = &[
    "memory-prefers-short",
    "memory-zh-pref-concise",
    "memory-zh-pref-vim",
    "memory-mx-likes-short-commit",
];

#[test]
fn fresh_corpus3_holds_its_baseline() {
    hold_baseline(
        "fresh corpus 3",
        &cases(FRESH),
        253,
        KNOWN_MISSES,
        (114, 0, 0, 139),
    );
}

/// Every known miss and preference is a line of the corpus, and each miss
/// says why it is left.
#[test]
fn fresh3_named_lines_are_corpus_lines() {
    let all = cases(FRESH);
    known_misses_are_lines(&all, KNOWN_MISSES);
    for name in PREFERENCES {
        assert!(
            all.iter().any(|c| c.name == *name && !c.claim),
            "{name} is no preference line of the corpus"
        );
    }
}

/// The seed's decisions+preferences scope: every claim the default scope
/// finds stays a claim, and the lines labelled as preferences become claims.
#[test]
fn fresh3_preferences_are_claims_in_the_wider_scope() {
    let narrow = ClaimDetector::new(Scope::Decisions);
    let wide = ClaimDetector::new(Scope::DecisionsAndPreferences);
    let mut failures = Vec::new();
    for c in cases(FRESH) {
        let found = !wide.detect(&c.input).is_empty();
        let preference = PREFERENCES.contains(&c.name.as_str());
        let narrow_found = !narrow.detect(&c.input).is_empty();
        if (preference || narrow_found) && !found {
            failures.push(format!(
                "{}: not a claim in decisions+preferences: {:?}",
                c.name, c.input
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
