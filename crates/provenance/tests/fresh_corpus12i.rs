//! The twelfth round's second corpus of issue 19
//! (`testdata/fresh_claims12i.jsonl`, writer I): 180 memory, skill and
//! runbook writes (82 claims, 48 % Chinese or mixed) by someone who had not
//! read this crate.
//!
//! First sight, on main b7542aa (`score.py claims`): **precision 0.914,
//! recall 0.902** (tp 74, fp 7, fn 8). This round tuned on it, so from here
//! on it is a regression baseline, not evidence. After that tuning:
//! **precision 0.961, recall 0.902** (tp 74, fp 3, fn 8): application log
//! lines (a timestamp and a level before the subject), 的-conditional rules
//! (用户同意部分退款的，按…) and to-dos (TODO：下次跟 owner 确认…) are no
//! longer read as claims. Round 12j (principals the text defines: `Client
//! (= the user, …)`, 客户（也就是用户本人）) brings it to **precision 0.962,
//! recall 0.927** (tp 76, fp 3, fn 6). Round 12q (a meeting's roster
//! names its people, so a bare first name in the notes is one of them;
//! blockquoted and quoted lines displayed after a lead that names them as
//! planted or as examples: "Typical poisoned entries …:", 比如：, a mention
//! wrapped before its quote) brings it to **precision 1.000, recall 0.927**
//! (tp 76, fp 0, fn 6).
//!
//! The test holds the counts reached as floors: it prints the scores and
//! fails when a change finds fewer claims or more false ones.

mod fresh_claims;

use fresh_claims::{cases, hold_floors, known_misses_are_lines};

const FRESH: &str = include_str!("../testdata/fresh_claims12i.jsonl");

/// Floors: at least this many true claims, at most this many false ones.
const MIN_TP: usize = 76;
const MAX_FP: usize = 0;

/// The lines still missed after this round, and why.
const KNOWN_MISSES: &[(&str, &str)] = &[
    ("i-mx-user-yaoqiu", "User 要求…才能 merge: the 才能 rule reads the instruction's content as a rule on the claim"),
    ("i-ja-kettei", "label ユーザーが決定： (a Japanese label frame) is not in the lexicon"),
    ("i-ja-shiji", "passive instruction ユーザーから…指示された is not in the lexicon"),
    ("i-zh-runbook-hardwrap", "a copula relative clause (这是…之后用户最终确认的方案) across a hard wrap"),
    ("i-mx-hardwrap-k8s", "code-switched 'the user finally said 不上' (an English verb of saying and a Chinese negation)"),
    ("i-ja-runbook-phone", "agentless オーナーから、…よう指示あり is not in the lexicon"),
];

#[test]
fn fresh_corpus12i_keeps_its_floors() {
    let all = cases(FRESH);
    known_misses_are_lines(&all, KNOWN_MISSES);
    hold_floors("fresh corpus 12i", &all, 180, MIN_TP, MAX_FP);
}
