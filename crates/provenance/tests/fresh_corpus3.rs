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

use palisade_provenance::{ClaimDetector, Scope};
use serde_json::Value;

const FRESH: &str = include_str!("../testdata/fresh_claims3.jsonl");

/// The lines still missed after tuning, each with the reason it is left.
const KNOWN_MISSES: &[(&str, &str)] = &[
    (
        "memory-wont-have-ai-images",
        "'won't have X' is a refusal only in some objects; 'the user won't have to log in' and 'won't have access' are ordinary product text",
    ),
    (
        "memory-users-decision-fly-np",
        "a noun phrase that presupposes a past decision ('the user's decision last time (…) cost a week') with no verb or colon to anchor it",
    ),
    (
        "memory-zh-jiafang-huihua-logo",
        "甲方回话了，logo 定蓝色那一版: the decision (定) has no subject of its own after the lead clause; a bare 定 is too common to be a predicate",
    ),
];

/// Lines the writer labelled as preferences: claims only in the wider scope.
const PREFERENCES: &[&str] = &[
    "memory-prefers-short",
    "memory-zh-pref-concise",
    "memory-zh-pref-vim",
    "memory-mx-likes-short-commit",
];

struct Case {
    name: String,
    input: String,
    claim: bool,
    lang: String,
}

fn cases() -> Vec<Case> {
    FRESH
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value =
                serde_json::from_str(l).unwrap_or_else(|e| panic!("bad corpus line {l}: {e}"));
            let get = |k: &str| v[k].as_str().unwrap_or_default().to_owned();
            Case {
                name: get("name"),
                input: get("input"),
                claim: get("expected") == "claim",
                lang: get("lang"),
            }
        })
        .collect()
}

#[derive(Default)]
struct Counts {
    tp: usize,
    fp: usize,
    fn_: usize,
    tn: usize,
}

impl Counts {
    fn add(&mut self, want: bool, got: bool) {
        match (want, got) {
            (true, true) => self.tp += 1,
            (false, true) => self.fp += 1,
            (true, false) => self.fn_ += 1,
            (false, false) => self.tn += 1,
        }
    }

    fn line(&self) -> String {
        let p = self.tp as f64 / (self.tp + self.fp).max(1) as f64;
        let r = self.tp as f64 / (self.tp + self.fn_).max(1) as f64;
        format!(
            "tp={} fp={} fn={} tn={} precision={p:.3} recall={r:.3}",
            self.tp, self.fp, self.fn_, self.tn
        )
    }
}

#[test]
fn fresh_corpus3_holds_its_baseline() {
    let det = ClaimDetector::new(Scope::Decisions);
    let all = cases();
    assert_eq!(all.len(), 253, "corpus changed");
    let mut total = Counts::default();
    let mut by_lang: std::collections::BTreeMap<&str, Counts> = Default::default();
    let mut misses = Vec::new();
    for c in &all {
        let got = !det.detect(&c.input).is_empty();
        total.add(c.claim, got);
        by_lang.entry(&c.lang).or_default().add(c.claim, got);
        if got != c.claim {
            misses.push(c.name.clone());
        }
    }
    println!("fresh corpus 3: {}", total.line());
    for (lang, counts) in &by_lang {
        println!("  {lang}: {}", counts.line());
    }
    let known: Vec<&str> = KNOWN_MISSES.iter().map(|(n, _)| *n).collect();
    let new: Vec<&String> = misses
        .iter()
        .filter(|m| !known.contains(&m.as_str()))
        .collect();
    let fixed: Vec<&&str> = known
        .iter()
        .filter(|k| !misses.iter().any(|m| m == *k))
        .collect();
    assert!(
        new.is_empty(),
        "lines the baseline does not miss are now missed: {new:?}"
    );
    assert!(
        fixed.is_empty(),
        "known misses now met (update KNOWN_MISSES and the numbers): {fixed:?}"
    );
    assert_eq!(
        (total.tp, total.fp, total.fn_, total.tn),
        (111, 0, 3, 139),
        "after-tuning baseline"
    );
}

/// Every known miss and preference is a line of the corpus, and each miss
/// says why it is left.
#[test]
fn fresh3_named_lines_are_corpus_lines() {
    let all = cases();
    for (name, why) in KNOWN_MISSES {
        assert!(all.iter().any(|c| c.name == *name), "{name} not in corpus");
        assert!(why.len() > 20, "{name}: say why it is left");
    }
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
    for c in cases() {
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
