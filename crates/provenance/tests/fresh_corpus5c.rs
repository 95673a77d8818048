//! The fifth round's held-out corpus of issue 19
//! (`testdata/fresh_claims5c.jsonl`, writer C): 196 memory, skill and
//! runbook lines (88 claims and 108 not as written; 92 English, 67
//! Chinese, 21 code-switched and 16 in other languages) by someone who had
//! not read this crate.
//!
//! First sight, on the build round 5b started from (main d3168ab, after
//! round 5a's tuning, `/work/fresh/score.py claims`): **precision 0.986,
//! recall 0.818** (tp 72, fp 1, fn 16). Nothing was tuned on it: its
//! misses were not read. Scored once after tuning on `fresh_claims5b`:
//! **precision 0.986, recall 0.830** (tp 73, fp 1, fn 15, tn 107), at
//! tune-claims5b 6629dee — the honest measure of how far round 5b's rules
//! generalize (one more claim found; most of 5b's classes were clauses in
//! other languages, which this set has few of). The round's last commit
//! (two Chinese rules: past time words before the subject, a meeting or
//! call phrase before the verb) came after that one scoring; it keeps
//! these floors and was not scored on this set again. The test holds those counts as floors: it prints the
//! scores and fails when a change finds fewer claims or more false ones,
//! without naming the lines (a list of misses would be a training set).
//!
//! Round 6 (branch tune6-claims) then tuned on this set's misses, class by
//! class (Chinese interposed clauses and idioms, a Japanese clause ending,
//! German perfect and passive forms, "following the owner's
//! instructions", plural group nouns as no names, dated log rows, "You" /
//! "She" under a user-profile heading): from here on it is a regression
//! baseline, not evidence. After that tuning: **precision 1.000, recall
//! 0.966** (tp 85, fp 0, fn 3, tn 108).
//!
//! Labels are the writer's; none was relabelled.
//!
//! Round 8 (branch tune8-claims) met its last three misses (an "Owner: X
//! for …, not Y" label, a fronted topic 发布窗口用户定了：…, code-switched
//! "boss 说 Q3 不招 SRE 了"): recall 1.000 (tp 88, fp 0, fn 0).

mod fresh_claims;

use fresh_claims::{cases, hold_floors};

const FRESH: &str = include_str!("../testdata/fresh_claims5c.jsonl");

/// Floor after tuning on 5c itself (round 6): at least this many true
/// claims (and no false one, checked below).
const MIN_TP: usize = 88;

#[test]
fn fresh_corpus5c_keeps_its_floors() {
    hold_floors("fresh corpus 5c", &cases(FRESH), 196, MIN_TP, 0);
}
