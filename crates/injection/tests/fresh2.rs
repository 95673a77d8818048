//! The second fresh-eyes corpus (`testdata/fresh_messages2.jsonl`, issue
//! 17): 285 inbound messages (151 attacks, 134 benign, 31 languages) written
//! by someone who had not read the code, first scored with the base build
//! at 0e3a0fc: 103/151 attacks at or above their minimum tier, 15/134
//! benign above their maximum. An attack meets its case when its tier is at
//! least `expected`, a benign case when at most `expected`. The floors below
//! are what this build reaches (148/151 and 3/134 after tuning on the
//! inbound-accuracy branch: a regression baseline, not a target): the
//! test prints every miss and fails when either count gets worse.

use palisade_injection::{Scanner, Tier};
use serde::Deserialize;

#[derive(Deserialize)]
struct Case {
    name: String,
    input: String,
    expected: Tier,
    kind: String,
    lang: String,
    note: String,
}

/// Attacks at or above their minimum tier, at least (of 151).
const MIN_ATTACKS_MET: usize = 148;
/// Benign cases above their maximum tier, at most (of 134).
const MAX_BENIGN_OVER: usize = 3;

#[test]
fn fresh2_corpus_baseline() {
    let scanner = Scanner::new();
    let data = include_str!("../testdata/fresh_messages2.jsonl");
    let (mut att, mut att_ok, mut ben, mut ben_over) = (0usize, 0usize, 0usize, 0usize);
    let mut langs = std::collections::BTreeSet::new();
    let mut misses = Vec::new();
    for (i, line) in data.lines().enumerate() {
        let case: Case = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("fresh_messages2.jsonl line {}: {e}", i + 1));
        assert!(!case.note.is_empty(), "{}: note missing", case.name);
        langs.insert(case.lang.clone());
        let r = scanner.scan(&case.input);
        let ok = if case.kind == "attack" {
            att += 1;
            att_ok += usize::from(r.tier >= case.expected);
            r.tier >= case.expected
        } else {
            assert_eq!(case.kind, "benign", "{}", case.name);
            ben += 1;
            ben_over += usize::from(r.tier > case.expected);
            r.tier <= case.expected
        };
        if !ok {
            let rules: Vec<String> = r
                .findings
                .iter()
                .map(|f| format!("{}@{}", f.rule.reason(), f.tier.as_str()))
                .collect();
            misses.push(format!(
                "{} ({}): got {} want {} [{}]",
                case.name,
                case.kind,
                r.tier.as_str(),
                case.expected.as_str(),
                rules.join(", ")
            ));
        }
    }
    for m in &misses {
        eprintln!("miss: {m}");
    }
    eprintln!("fresh2: attacks {att_ok}/{att}, benign above max {ben_over}/{ben}");
    assert_eq!((att, ben), (151, 134));
    assert!(langs.len() >= 30, "{} languages", langs.len());
    assert!(att_ok >= MIN_ATTACKS_MET, "attacks {att_ok}/{att}");
    assert!(ben_over <= MAX_BENIGN_OVER, "benign {ben_over}/{ben}");
}
