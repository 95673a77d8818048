//! The second fresh-eyes claim corpus of issue 19
//! (`testdata/fresh_claims2.jsonl`): 268 memory, skill and runbook lines (124
//! claims and 144 not as written; 146 English, 82 Chinese, 40 code-switched)
//! written by someone who had not read this crate.
//!
//! First sight, before any tuning on it (base build 0e3a0fc, `palisade check
//! claims --jsonl`, scored by `/work/fresh/score.py`): precision 0.915,
//! recall 0.871 (tp 108, fp 10, fn 16, tn 134). The rules were then tuned on
//! its misses, class by class, so from here on it is a **regression
//! baseline, not evidence** of accuracy: the test holds the after-tuning
//! numbers and the exact lines still missed, so a change that loses a line
//! or fixes one shows up here and the baseline is updated on purpose.
//!
//! Labels are the writer's, except where a line's `note` says `RELABEL`
//! (one line, `en-n-per-user-fact`, none -> claim, with the reason there);
//! the first-sight numbers above are on the writer's labels. On the writer's
//! labels the after-tuning numbers are tp 121, fp 1, fn 3, tn 143.

use palisade_provenance::{ClaimDetector, Scope};
use serde_json::Value;

const FRESH: &str = include_str!("../testdata/fresh_claims2.jsonl");

/// The lines still missed after tuning, each with the reason it is left.
const KNOWN_MISSES: &[(&str, &str)] = &[
    (
        "en-c-usr-okd",
        "the abbreviated subject 'usr' is no subject word (a new trigger word changes the prefilter's table)",
    ),
    (
        "en-c-table-decision-log",
        "table rows are not prose: the seed's generic-actor rule exempts them, and UI-step tables look the same",
    ),
    (
        "en-c-inversion",
        "'not only did the user approve' puts a bare verb after an inverted subject; the grammar has no base-form slot",
    ),
];

struct Case {
    name: String,
    input: String,
    claim: bool,
    lang: String,
    note: String,
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
                note: get("note"),
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
fn fresh_corpus2_holds_its_baseline() {
    let det = ClaimDetector::new(Scope::Decisions);
    let all = cases();
    assert_eq!(all.len(), 268, "corpus changed");
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
    println!("fresh corpus 2: {}", total.line());
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
        (122, 0, 3, 143),
        "after-tuning baseline"
    );
}

/// Every known miss is a line of the corpus, and each says why it is left.
#[test]
fn known_misses_are_corpus_lines() {
    let all = cases();
    for (name, why) in KNOWN_MISSES {
        assert!(all.iter().any(|c| c.name == *name), "{name} not in corpus");
        assert!(why.len() > 20, "{name}: say why it is left");
    }
}

/// The seed's decisions+preferences scope: every claim the default scope
/// finds stays a claim, and the lines labelled as preferences become claims.
#[test]
fn fresh2_preferences_are_claims_in_the_wider_scope() {
    let narrow = ClaimDetector::new(Scope::Decisions);
    let wide = ClaimDetector::new(Scope::DecisionsAndPreferences);
    let mut failures = Vec::new();
    let mut prefs = 0;
    for c in cases() {
        let found = !wide.detect(&c.input).is_empty();
        let preference = !c.claim && c.note.starts_with("Preference");
        prefs += usize::from(preference);
        let narrow_found = !narrow.detect(&c.input).is_empty();
        if (preference || narrow_found) && !found {
            failures.push(format!(
                "{}: not a claim in decisions+preferences: {:?}",
                c.name, c.input
            ));
        }
    }
    assert!(prefs >= 5, "only {prefs} preference lines");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
