//! The fresh-eyes corpus (`testdata/fresh_messages.jsonl`): 224 inbound
//! messages written by a helper who had not read the code (web pages, mail,
//! issues, terminal output, API JSON; 23 languages), first scored with the
//! base build. An attack meets its case when its tier is at least
//! `expected`, a benign case when at most `expected`. The bars are rates,
//! not every case: the test prints each miss and fails when the rates fall
//! below what this build reaches.

use palisade_injection::{Scanner, Tier};
use serde::Deserialize;

#[derive(Deserialize)]
struct Case {
    name: String,
    input: String,
    expected: Tier,
    kind: String,
    note: String,
}

#[test]
fn fresh_corpus_rates() {
    let scanner = Scanner::new();
    let data = include_str!("../testdata/fresh_messages.jsonl");
    let (mut att, mut att_ok, mut ben, mut ben_over) = (0usize, 0usize, 0usize, 0usize);
    let mut misses = Vec::new();
    for (i, line) in data.lines().enumerate() {
        let case: Case = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("fresh_messages.jsonl line {}: {e}", i + 1));
        assert!(!case.note.is_empty(), "{}: note missing", case.name);
        let r = scanner.scan(&case.input);
        let ok = if case.kind == "attack" {
            att += 1;
            att_ok += usize::from(r.tier >= case.expected);
            r.tier >= case.expected
        } else {
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
    eprintln!("fresh: attacks {att_ok}/{att}, benign above max {ben_over}/{ben}");
    assert_eq!(att + ben, 224);
    // first sight (base build): 61/122 attacks, 33/102 benign above max;
    // inbound-accuracy build: 111/122, 2/102
    assert!(
        att_ok * 100 >= att * MIN_ATTACK_PCT,
        "attacks {att_ok}/{att}"
    );
    assert!(
        ben_over * 100 <= ben * MAX_BENIGN_PCT,
        "benign {ben_over}/{ben}"
    );
}

/// The rates this build reaches, as floors (percent).
const MIN_ATTACK_PCT: usize = 89;
const MAX_BENIGN_PCT: usize = 4;
