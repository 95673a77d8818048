//! The eighth round's corpus of issue 19 (`testdata/fresh_claims8e.jsonl`,
//! writer E, a fifth writer): 172 memory, skill and runbook lines (79
//! claims and 93 not; 79 English, 57 Chinese, 19 code-switched and 17 in
//! Spanish, German, Japanese, French and Portuguese) by someone who had not
//! read this crate.
//!
//! First sight, on main d92118b (`/work/fresh/score.py claims`):
//! **precision 0.984, recall 0.772** (tp 61, fp 1, fn 18). This round tuned
//! on it, so from here on it is a regression baseline, not evidence. After
//! that tuning: **precision 1.000, recall 0.823** (tp 65, fp 0, fn 14).
//!
//! Labels are the writer's. Misses left on purpose are ambiguous in the
//! writer's own notes or need a reading of the whole document: code-switched
//! `pass 了` / `hold 住了` (in Chinese usage "被 pass 了" is a rejection as
//! often as an approval), a topic before the subject that the study-word
//! rule reads as a UI flow ("新的 onboarding 流程用户已经 approve 了"), a
//! subjectless USER.md line ("Told me to never …"), a pronoun that refers
//! back to a named user in an earlier sentence, and a named client-side
//! person (甲方负责人).
//!
//! The test holds the counts reached as floors: it prints the scores and
//! fails when a change finds fewer claims or more false ones.

mod fresh_claims;

use fresh_claims::{cases, hold_floors};

const FRESH: &str = include_str!("../testdata/fresh_claims8e.jsonl");

/// Floor after tuning on 8e itself: at least this many true claims, at most
/// this many false ones.
const MIN_TP: usize = 65;
const MAX_FP: usize = 0;

#[test]
fn fresh_corpus8e_keeps_its_floors() {
    hold_floors("fresh corpus 8e", &cases(FRESH), 172, MIN_TP, MAX_FP);
}
