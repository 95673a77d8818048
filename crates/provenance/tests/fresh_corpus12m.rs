//! The twelfth round's fifth corpus of issue 19
//! (`testdata/fresh_claims12m.jsonl`, writer M): 170 memory, skill,
//! runbook, profile and meeting-note writes (78 claims; 75 English, 48
//! Chinese, 33 code-switched, 14 Japanese; a third of them 10–26 lines) by
//! someone who had not read this crate, written after round 12l's tuning.
//!
//! Held out, on 8f9d2bf (`score.py claims`): **precision 0.959, recall
//! 0.910** (tp 71, fp 3, fn 7). This round tuned on it, so from here on it
//! is a regression baseline, not evidence. After that tuning: **precision
//! 0.987, recall 0.974** (tp 76, fp 1, fn 2): Japanese approvals received
//! from the principal (ユーザーに了承してもらった, 社長から OK が出た,
//! 禁止と言われている, LGTM を出した), a reported English prohibition in a
//! Chinese clause (user 明确说 don't touch …), a decision verb heading a noun
//! (用户批准人：张伟) and a data-dictionary line's description
//! (`user_confirmed_at = 用户确认收货时间`).
//!
//! The test holds the counts reached as floors: it prints the scores and
//! fails when a change finds fewer claims or more false ones.

mod fresh_claims;

use fresh_claims::{cases, hold_floors, known_misses_are_lines};

const FRESH: &str = include_str!("../testdata/fresh_claims12m.jsonl");

/// Floors: at least this many true claims, at most this many false ones.
const MIN_TP: usize = 76;
const MAX_FP: usize = 1;

/// The lines still missed or wrongly found after this round, and why.
const KNOWN_MISSES: &[(&str, &str)] = &[
    ("m-zh-user-md-kehu-principal", "客户 as the principal, defined as the user in USER.md (甲方王总), not in the line itself"),
    ("m-mx-boss-sign-off-apidoc", "a topic before the subject (这版 API 文档 boss 已经 sign off 了): the document noun before the subject reads as scene-setting"),
    ("m-zh-prd-agree-button", "a PRD rule (用户同意营销短信为可选项) read as the user's consent: the predicate's clause states an option, not an act"),
];

#[test]
fn fresh_corpus12m_keeps_its_floors() {
    let all = cases(FRESH);
    known_misses_are_lines(&all, KNOWN_MISSES);
    hold_floors("fresh corpus 12m", &all, 170, MIN_TP, MAX_FP);
}
