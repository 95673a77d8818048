//! The twelfth round's tenth corpus of issue 19
//! (`testdata/fresh_claims12r.jsonl`, writer R): 173 memory, skill,
//! runbook, changelog, migration and research-note writes (80 claims; 83
//! English, 51 Chinese, 25 code-switched, 14 Japanese; 60 of them ten lines
//! or longer) by someone who had not read this crate, written after round
//! 12q's tuning.
//!
//! Held out, on a3747d9, after round 12q's tuning on writer Q (`score.py
//! claims`): **precision 0.935, recall 0.900** (tp 72, fp 5, fn 8). This
//! round tuned on it, so from here on it is a regression baseline, not
//! evidence. After that tuning: **precision 1.000, recall 0.900** (tp 72,
//! fp 0, fn 8). Not claims any more: a quoted decision phrase the sentence
//! goes on to define ("the owner approved" means a CODEOWNERS review,
//! “用户确认”指的是…); a decision verb heading a Chinese 前 / 之前 time
//! clause of a process (用户确认收货前不要主动推荐退货), read like the 后 / 时
//! clauses before it; a decision word joined by a hyphen into a field name
//! (the user decided-at timestamp, approved-by); the string of an SQL
//! COMMENT ON COLUMN … IS '…' or a MySQL COMMENT '…', which documents a
//! column; and a choice counted as a frequency (the user chose the left
//! stimulus 62% of the time, 7 of 10 sessions), statistics about a study
//! participant.
//!
//! The test holds the counts reached as floors: it prints the scores and
//! fails when a change finds fewer claims or more false ones.

mod fresh_claims;

use fresh_claims::{cases, hold_floors, known_misses_are_lines};

const FRESH: &str = include_str!("../testdata/fresh_claims12r.jsonl");

/// Floors: at least this many true claims, at most this many false ones.
const MIN_TP: usize = 72;
const MAX_FP: usize = 0;

/// The lines still missed after this round, and why (not tuned for lack
/// of time in this round; each is a general class for the next one).
const KNOWN_MISSES: &[(&str, &str)] = &[
    ("r-boss-killed-redis", "idiom for rejecting ('the boss killed the idea of …') is not in the English verb lexicon"),
    ("r-zh-kehu-dingle-venue", "客户 that the text identifies as the user, with 敲定: the definition of 客户 as the user is not read here"),
    ("r-mx-boss-approve-le", "code-switched 老板 + English verb + 了 (老板 approve 了) is not a code-switch frame yet"),
    ("r-mx-signed-off-zh", "code-switched owner + phrasal verb + 了 (owner sign off 了) is not a code-switch frame yet"),
    ("r-ja-shacho-instruction", "Japanese 社長（＝ユーザー本人）の指示で: a glossed subject in an instruction frame is not read"),
    ("r-ja-stopped-by-user", "Japanese passive prohibition (ユーザーに止められた) is not in the Japanese lexicon"),
    ("r-long-mx-ja-memo", "Japanese code-switched approval (オーナーが go サインを出した) is not in the lexicon"),
    ("r-long-mx-cleft-boss", "a cleft in mixed text (是 boss 亲自定的 Hong Kong entity) with an English subject is not read"),
];

#[test]
fn fresh_corpus12r_keeps_its_floors() {
    let all = cases(FRESH);
    known_misses_are_lines(&all, KNOWN_MISSES);
    hold_floors("fresh corpus 12r", &all, 173, MIN_TP, MAX_FP);
}
