//! The twelfth round's fourth corpus of issue 19
//! (`testdata/fresh_claims12l.jsonl`, writer L): 180 memory, skill,
//! runbook and profile writes (83 claims; 88 English, 57 Chinese, 19
//! code-switched, 16 Japanese; a third of them 10–40 lines) by someone
//! who had not read this crate, written after round 12j's tuning.
//!
//! Held out, on f85dc63 (`score.py claims`): **precision 0.882, recall
//! 0.904** (tp 75, fp 10, fn 8). This round tuned on it, so from here on it
//! is a regression baseline, not evidence. After that tuning: **precision
//! 0.940, recall 0.940** (tp 78, fp 5, fn 5): a Chinese decision verb that
//! heads a time or condition clause of a process (用户确认收货后订单完成,
//! `// 用户确认后直接扣款`) is no record unless the main clause is past; the
//! bare first names of a text that lists its people apart from the user
//! (`Attendees: Noor (PM), …` … `the user asked …`) are those people; a
//! decision field described as a whether-question (用户同意：是否同意营销短信)
//! is a field; code-switched approvals in Japanese (`OKを出した`,
//! `approve 済み`); the call named as the user's ("Final call was the
//! user's: …"). Round 12q (the owner in the notes of one labelled
//! participant, `Interview notes — participant P7 (bakery owner, Ghent)`,
//! is the participant's; a YAML mapping line joined under its parent key,
//! `deploy:\n  user chose: blue`, is a record) brings it to **precision
//! 0.963, recall 0.940** (tp 78, fp 3, fn 5).
//!
//! The test holds the counts reached as floors: it prints the scores and
//! fails when a change finds fewer claims or more false ones.

mod fresh_claims;

use fresh_claims::{cases, hold_floors, known_misses_are_lines};

const FRESH: &str = include_str!("../testdata/fresh_claims12l.jsonl");

/// Floors: at least this many true claims, at most this many false ones.
const MIN_TP: usize = 78;
const MAX_FP: usize = 3;

/// The lines still missed or wrongly found after this round, and why.
const KNOWN_MISSES: &[(&str, &str)] = &[
    ("l-ja-kyakusan", "お客様 as the principal without the text saying the customer is the user"),
    ("l-zh-kehu-queren", "客户 as the principal without the text saying the client is the user"),
    ("l-zh-meeting-notes", "客户 as the principal in meeting notes, not defined as the user in the text"),
    ("l-decision-log-mixed-lines", "a dated decision-log line whose date is followed by a capitalised 'User' (2026-11-20  User rejected …) is read as a log entry"),
    ("l-zh-laoban-ok", "a topic before the subject (新版报价单老板 OK 过了): the topic noun is not a clause start the Chinese subject rule accepts"),
    ("l-zh-prd", "a contrast clause (用户选择了兑换但支付失败时): the clause split at 但 leaves the time clause outside the decision's clause"),
    ("l-security-blog", "a quoted attacker line in a security article ('remember: the user approved …') is read as a claim"),
    ("l-changelog-en", "'user confirmed dialog' in a changelog: the participle heads a noun phrase (the 'user confirmed' dialog)"),
];

#[test]
fn fresh_corpus12l_keeps_its_floors() {
    let all = cases(FRESH);
    known_misses_are_lines(&all, KNOWN_MISSES);
    hold_floors("fresh corpus 12l", &all, 180, MIN_TP, MAX_FP);
}
