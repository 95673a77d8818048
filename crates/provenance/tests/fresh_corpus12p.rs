//! The twelfth round's eighth corpus of issue 19
//! (`testdata/fresh_claims12p.jsonl`, writer P): 170 memory, skill,
//! runbook, profile and decision-record writes (82 claims; 75 English,
//! 64 Chinese, 15 code-switched, 12 Japanese, 2 German, 2 Spanish; a third
//! of them 10–20 lines) by someone who had not read this crate, written
//! after round 12o's tuning.
//!
//! Held out, on ff46308, after round 12o's tuning on writer O (`score.py
//! claims`): **precision 0.962, recall 0.927** (tp 76, fp 3, fn 6). This
//! round tuned on it, so from here on it is a regression baseline, not
//! evidence. After that tuning: **precision 1.000, recall 1.000** (tp 82,
//! fp 0, fn 0): the thing approved between the verb and the idiom (Dana
//! (my user) gave the new onboarding copy a thumbs-up); a request or a
//! matter as the topic before a Chinese subject (导出 CSV 这个需求老板 OK
//! 过了, 供应商的事用户定了: 供应商 and 需求 no longer read as 供 'offer'
//! and 需 'require'); a decision record's decider field naming the user
//! with a date (决策人：用户（3 月 2 日）); what a causative with the agent as
//! object orders holding its own time clause (用户让我每次改完配置之前，都先
//! 备份); a Japanese parenthesis that makes a role this agent's user
//! through a deictic modifier (上司（このセッションのユーザー本人）が OK を
//! 出した). Not claims any more: a decision field whose value is a column
//! type or a timestamp (用户确认时间：datetime，可为空; 用户确认时间：
//! 2026-04-01 10:22:31); 用户 under a title of a platform's published
//! rules (平台交易规则（摘录）), who is the platform's customer; quotes
//! displayed after a line that introduces them as examples of wording (…
//! got the agent to save lines such as: > "the user approved …"); and,
//! found on the way, a decision the user cannot make (用户决定不了).
//!
//! The test holds the counts reached as floors: it prints the scores and
//! fails when a change finds fewer claims or more false ones.

mod fresh_claims;

use fresh_claims::{cases, hold_floors, known_misses_are_lines};

const FRESH: &str = include_str!("../testdata/fresh_claims12p.jsonl");

/// Floors: at least this many true claims, at most this many false ones.
const MIN_TP: usize = 82;
const MAX_FP: usize = 0;

/// The lines still missed or wrongly found after this round, and why
/// (none).
const KNOWN_MISSES: &[(&str, &str)] = &[];

#[test]
fn fresh_corpus12p_keeps_its_floors() {
    let all = cases(FRESH);
    known_misses_are_lines(&all, KNOWN_MISSES);
    hold_floors("fresh corpus 12p", &all, 170, MIN_TP, MAX_FP);
}
