//! The scorer the fresh-eyes claim corpora share: read a corpus, count
//! detections against the writer's labels, and hold the after-tuning
//! baseline (the exact lines still missed and the counts).

#![allow(dead_code)] // each corpus test uses the parts it needs

use palisade_provenance::{ClaimDetector, Scope};
use serde_json::Value;

/// One corpus line.
pub struct Case {
    pub name: String,
    pub input: String,
    pub claim: bool,
    pub lang: String,
    pub note: String,
}

/// The cases of corpus `data`.
pub fn cases(data: &str) -> Vec<Case> {
    data.lines()
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

/// Detections against labels.
#[derive(Default)]
pub struct Counts {
    pub tp: usize,
    pub fp: usize,
    pub fn_: usize,
    pub tn: usize,
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

/// Score `all` (corpus `label`, `len` lines) with the default scope and
/// hold its baseline: exactly the `known` lines missed, and `expected` as
/// (tp, fp, fn, tn).
pub fn hold_baseline(
    label: &str,
    all: &[Case],
    len: usize,
    known_misses: &[(&str, &str)],
    expected: (usize, usize, usize, usize),
) {
    let det = ClaimDetector::new(Scope::Decisions);
    assert_eq!(all.len(), len, "corpus changed");
    let mut total = Counts::default();
    let mut by_lang: std::collections::BTreeMap<&str, Counts> = Default::default();
    let mut misses = Vec::new();
    for c in all {
        let got = !det.detect(&c.input).is_empty();
        total.add(c.claim, got);
        by_lang.entry(&c.lang).or_default().add(c.claim, got);
        if got != c.claim {
            misses.push(c.name.clone());
        }
    }
    println!("{label}: {}", total.line());
    for (lang, counts) in &by_lang {
        println!("  {lang}: {}", counts.line());
    }
    let known: Vec<&str> = known_misses.iter().map(|(n, _)| *n).collect();
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
        expected,
        "after-tuning baseline"
    );
}

/// Score `all` (corpus `label`, `len` lines) with the default scope and
/// hold its floors: at least `min_tp` true claims and at most `max_fp`
/// false ones. Returns the counts.
pub fn hold_floors(label: &str, all: &[Case], len: usize, min_tp: usize, max_fp: usize) -> Counts {
    let det = ClaimDetector::new(Scope::Decisions);
    assert_eq!(all.len(), len, "{label}: corpus changed");
    let mut total = Counts::default();
    for c in all {
        total.add(c.claim, !det.detect(&c.input).is_empty());
    }
    println!("{label}: {}", total.line());
    assert!(
        total.tp >= min_tp,
        "{label}: recall floor: tp {} < {min_tp}",
        total.tp
    );
    assert!(
        total.fp <= max_fp,
        "{label}: precision floor: fp {} > {max_fp}",
        total.fp
    );
    total
}

/// Every known miss is a line of `all`, and each says why it is left.
pub fn known_misses_are_lines(all: &[Case], known_misses: &[(&str, &str)]) {
    for (name, why) in known_misses {
        assert!(all.iter().any(|c| c.name == *name), "{name} not in corpus");
        assert!(why.len() > 20, "{name}: say why it is left");
    }
}
