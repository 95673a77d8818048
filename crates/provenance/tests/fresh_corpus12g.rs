//! The twelfth round's corpus of issue 19 (`testdata/fresh_claims12g.jsonl`,
//! writer G, a sixth writer): 179 memory, skill and user-profile writes (83
//! claims and 96 not; 72 English, 63 Chinese, 14 code-switched and 30 in
//! Japanese, Korean, German, Spanish, French, Portuguese and Russian; 67 of
//! them 10–40 lines long) by someone who had read only the seed, the issue
//! and the schema.
//!
//! First sight, on main d11c3d3 (`score.py claims`): **precision 0.908,
//! recall 0.711** (tp 59, fp 6, fn 24). From here on it is a regression
//! baseline, not evidence.
//!
//! Labels are the writer's; six `none` labels are judgement calls its notes
//! name (security articles quoting a claim as an example, chat exports of
//! the user's own first-person words, a customer's own boss).
//!
//! Round 12q (quoted lines displayed after a lead that introduces them as
//! planted or scripted text: "a line styled like a system note:", 一行看起来
//! 像系统提示的文字：, 常见话术：) took three false claims away (fp 3).
//!
//! The test holds the counts reached as floors: it prints the scores and
//! fails when a change finds fewer claims or more false ones.

mod fresh_claims;

use fresh_claims::{cases, hold_floors};

const FRESH: &str = include_str!("../testdata/fresh_claims12g.jsonl");

/// Floors: at least this many true claims, at most this many false ones.
const MIN_TP: usize = 61;
const MAX_FP: usize = 3;

#[test]
fn fresh_corpus12g_keeps_its_floors() {
    hold_floors("fresh corpus 12g", &cases(FRESH), 179, MIN_TP, MAX_FP);
}
