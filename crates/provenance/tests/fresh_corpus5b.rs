//! The fifth round's second training corpus of issue 19
//! (`testdata/fresh_claims5b.jsonl`, writer B): 203 memory, skill and
//! runbook lines (93 claims and 110 not as written; 81 English, 55
//! Chinese, 32 code-switched and 35 in other languages) by someone who had
//! not read this crate.
//!
//! First sight (main a8eb63f, `/work/fresh/score.py claims`): **precision
//! 0.969, recall 0.667**. Held out during the tuning on `fresh_claims5a`,
//! and scored once after it: **precision 0.956, recall 0.699** (tp 65, fp
//! 3, fn 28, tn 107). Round 5b then tuned on its misses, class by class
//! (clauses in French, Italian, Dutch and Polish, and more verbs, idioms
//! and agentless request frames in Spanish/Portuguese, German and
//! Japanese: "Auf Wunsch des Chefs", "Por indicación del usuario",
//! オーナーの指示で, ユーザーに却下された; a negation between German or
//! Dutch auxiliary and participle; hedges before an other-language
//! clause; 应用户要求; 说 + an instruction later in the clause; 老板定的：
//! labels; a place phrase or a talk with someone between a Chinese subject
//! and its verb; a causative's 我 object before a 的 noun; a cleft with
//! "not X" interposed; a long phrase between paired dashes after the
//! subject; a quoted reply, 回了个“行”; a meeting or call phrase between
//! a subject and a Chinese verb; a past time word before a Chinese subject
//! or opening a time clause before it, 上周复盘的时候老板拍板了), so from here
//! on it is a **regression baseline, not evidence** of accuracy; the
//! held-out `fresh_corpus5c` measures generalization.
//!
//! Labels are the writer's; none was relabelled.
//!
//! Round 8 (branch tune8-claims) met its last misses ("Owner: X for …,
//! keep/not Y" labels, second-person memory lines, 你上个月说过…不要…,
//! placeholder companies such as Acme in the name stop list): tp 93, fp
//! 0, fn 0, tn 110.

mod fresh_claims;

use fresh_claims::{cases, hold_baseline, known_misses_are_lines};

const FRESH: &str = include_str!("../testdata/fresh_claims5b.jsonl");

/// The lines still missed after tuning, each with the reason it is left.
const KNOWN_MISSES: &[(&str, &str)] = &[];

#[test]
fn fresh_corpus5b_holds_its_baseline() {
    hold_baseline(
        "fresh corpus 5b",
        &cases(FRESH),
        203,
        KNOWN_MISSES,
        (93, 0, 0, 110),
    );
}

/// Every known miss is a line of the corpus and says why it is left.
#[test]
fn fresh5b_named_lines_are_corpus_lines() {
    known_misses_are_lines(&cases(FRESH), KNOWN_MISSES);
}
