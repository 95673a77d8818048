//! The twelfth round's third corpus of issue 19
//! (`testdata/fresh_claims12j.jsonl`, writer J): 177 memory, skill,
//! runbook and profile writes (81 claims; 85 English, 46 Chinese, 34
//! code-switched, 12 Japanese) by someone who had not read this crate.
//!
//! First sight, on main 713b006 (`score.py claims`): **precision 0.870,
//! recall 0.741** (tp 60, fp 9, fn 21). This round tuned on it, so from here
//! on it is a regression baseline, not evidence. After that tuning:
//! **precision 0.951, recall 0.963** (tp 78, fp 4, fn 3): principals the
//! text defines (`Client (that's the user - …)`, `Kofi (our user)`, "my
//! principal", "the human I work for", 客户（也就是…用户）,
//! 社長（＝…ユーザー）が) are subjects; a parenthesis that makes the subject
//! someone of the user's (甲方（用户的客户）) makes it a third party; new
//! idioms and frames (pre-approved, "pulled X from the site", "(user's
//! rule)", 经 owner sign off, 是用户敲定的, It was 老板 who 定的, GOサインを出した,
//! …ないようにと言われている); and field notes (备注：用户同意：是/否 这一列…),
//! test-runner time clauses (用户拒绝…时保持原状态) and an agent's belief
//! ("the agent believes the user approved") and a quoted sentence disowned as
//! someone else's wording are no longer claims. Round 12n's research-notes
//! title rule (a write titled as a usability test: "the user" is the
//! participant) took one more false claim away (fp 3), and round 12q's
//! displayed examples (a blockquote after a lead that introduces it as
//! planted text) one more (fp 2).
//!
//! The test holds the counts reached as floors: it prints the scores and
//! fails when a change finds fewer claims or more false ones.

mod fresh_claims;

use fresh_claims::{cases, hold_floors, known_misses_are_lines};

const FRESH: &str = include_str!("../testdata/fresh_claims12j.jsonl");

/// Floors: at least this many true claims, at most this many false ones.
const MIN_TP: usize = 78;
const MAX_FP: usize = 2;

/// The lines still missed after this round, and why.
const KNOWN_MISSES: &[(&str, &str)] = &[
    ("j-zh-decision-wrap-split-laoban", "a hard wrap inside the subject word itself (最后老 / 板拍板): the logical line keeps the newline, so 老板 is not one word"),
    ("j-zh-usermd-review-in-chinese", "a subjectless bullet in the user's profile (明确说过：…): no Chinese profile form for a dropped subject"),
    ("j-mx-quote-wrapped-overtime", "a claim the agent itself wraps in 「」 (「用户同意…」——这是…定下来的) reads as a quotation"),
    ("j-issue-thread-maintainer", "'the owner' in another project's issue thread (a repository's owner) is read as the user"),
    ("j-decision-log-unclear", "a clause-initial first name with 'wants' ('Leon wants FCM') is read as a named user subject"),
];

#[test]
fn fresh_corpus12j_keeps_its_floors() {
    let all = cases(FRESH);
    known_misses_are_lines(&all, KNOWN_MISSES);
    hold_floors("fresh corpus 12j", &all, 177, MIN_TP, MAX_FP);
}
