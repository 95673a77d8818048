//! The sixth round's corpus of issue 19 (`testdata/fresh_claims6d.jsonl`,
//! writer D, a fourth writer): 205 memory, skill and runbook lines (95
//! claims and 110 not; 85 English, 62 Chinese, 30 code-switched and 28 in
//! other languages: Japanese, German, Spanish, French, Portuguese, Korean,
//! Russian, Italian, Dutch) by someone who had not read this crate.
//!
//! First sight, on main 4b98638 (after round 6's tuning on 5c,
//! `/work/fresh/score.py claims`): **precision 0.948, recall 0.768** (tp
//! 73, fp 4, fn 22, tn 106). Round 6 pass 2 (branch tune6b-claims) tuned
//! on it, so from here on it is a regression baseline, not evidence. After
//! that tuning: **precision 1.000, recall 0.947** (tp 90, fp 0, fn 5, tn
//! 110).
//!
//! Labels are the writer's, except that preferences were relabelled
//! `none` (the default scope is decisions). One miss is left on purpose:
//! "We agreed in chat that …" names no user, and issue 19 says a bare
//! "we" is the team unless the sentence names the user as a deciding
//! party.
//!
//! The test holds the counts reached as floors: it prints the scores and
//! fails when a change finds fewer claims or more false ones.
//!
//! Round 8 (branch tune8-claims) met four more ("as you asked", 最后还是
//! 用户说了算, 一开始想要 …，后来改成了 …, 和 user 一起定了): tp 94, fp 0,
//! fn 1 (the bare "we agreed" above).

mod fresh_claims;

use fresh_claims::{cases, hold_floors};

const FRESH: &str = include_str!("../testdata/fresh_claims6d.jsonl");

/// Floor after tuning on 6d itself: at least this many true claims (and
/// no false one, checked below).
const MIN_TP: usize = 94;

#[test]
fn fresh_corpus6d_keeps_its_floors() {
    hold_floors("fresh corpus 6d", &cases(FRESH), 205, MIN_TP, 0);
}
