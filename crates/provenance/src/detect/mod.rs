//! Claim detection: which sentences of a write say the user made a decision.
//!
//! The detector works clause by clause on normalized text (NFKC, invisible
//! characters removed, Markdown emphasis ignored):
//!
//! 1. **Lines.** Code (fenced, indented by four spaces or a tab — but an
//!    indented list item is prose), table rows (but a dated log row with a
//!    sentence in a cell is prose: `| 2025-04-07 | the user vetoed … |`),
//!    key/value lines with an
//!    identifier key or a scalar value, QA/spec/ticket labels, data-dictionary
//!    lines and scripts are not prose and hold no claims.
//! 2. **Sentences and clauses.** Each logical line is split into sentences; a
//!    question is no claim. A contrast (`but`, `however`, 但是 …) starts a new
//!    clause, so "Usually we wait, but the user approved …" is a claim.
//! 3. **Grammar** (`detect/grammar.rs`, data in `data/claim_grammar.json`
//!    and `data/claim_lexicon.json`). A claim is a *subject* (user, the
//!    user, owner, the boss, a clause-initial Boss, my human, a name or
//!    role marked as the user ("my principal (Alex, the user)"), "it was
//!    the owner who", the user and I, 用户, 主人, 老板, 负责人, 甲方,
//!    我和用户) with optional parentheticals and adverbs, followed by a
//!    *decision predicate* from the lexicon (verbs, idioms and phrasal verbs
//!    per language: "put the kibosh on", 拍板, 叫停); a code-switched clause
//!    (an English verb after a Chinese subject, 用户 approved 了, or a
//!    Chinese verb after an English subject, owner 同意了); a passive (`was
//!    approved by the user`); a phrase (`per the user`, `as the user
//!    requested`, `the user's decision:`); a Chinese agentless frame
//!    (按用户的要求, 得到老板首肯, 由老板定在…, 在用户的坚持下); or a
//!    label at the start of a clause, after heading marks and a log
//!    entry's date (`Owner: use X`, `Decision (user, 14 May):`, `Hard rule
//!    from the user:`, `## Don'ts (set by the user)`, `2024-05-09 ·
//!    decided by: user ·`, 用户：以后…). A
//!    clause-initial first name is a subject too ("Dana picked FastAPI"),
//!    and so are "You", "She" and "They" in a write headed as the user's
//!    profile (`# USER.md`, `# About you`: "You decided to stop …") and
//!    "You" with a verb in the past at the head of a list item of a bare
//!    memory entry (no heading: "- You chose the 07:30 digest"),
//!    unless it is a group, company, product, system or the agent ("Legal
//!    approved", "Stripe declined", "Alice's team chose" has no bare name).
//!    A first verb in the past may share the subject with the decision verb
//!    ("the user reviewed the options and picked Postgres",
//!    用户看了两个方案后选择了…). The rows of one table of subject forms
//!    (English, Chinese and code-switched; user, we and named subjects) run
//!    in one clause loop. Clauses in other languages (Japanese, Korean,
//!    Arabic, Hebrew, Persian, Turkish, Hindi, Vietnamese, Thai,
//!    Indonesian, Spanish/Portuguese, German, French, Italian, Dutch,
//!    Polish, Russian) are whole-clause lexicon
//!    rules (slot `other_lang`): the subject words lead each pattern and
//!    are its prefilter cues, the verb is in a past or perfect form, and a
//!    condition or question word before it (إذا, هل, wenn, si …) or a
//!    hedge (forse, vielleicht, 多分 …) makes it none; agentless request
//!    frames (auf Wunsch des Chefs, por indicación del usuario, sur
//!    demande de l'utilisatrice, オーナーの指示で) are rules of the slot too,
//!    and so are the English and Chinese clauses addressed to the user
//!    that lead with their own subject words ("as you asked", 你上个月
//!    说过，…不要…).
//! 4. **Prefilter.** One Aho-Corasick walk finds the subject words, the
//!    contrast words and the predicate cues (the literal prefixes of the
//!    lexicon's patterns); a clause without a cue, or without a subject word
//!    or a clause-initial name, skips the form regexes. The walk goes only
//!    as far as the detection reads, so a write that reaches the claim
//!    limit early is not scanned to its end.
//! 5. **Not claims.** Negated and modal forms (the grammar admits neither,
//!    except instructions such as "doesn't want"); conditionals and
//!    hypotheticals before the subject ("after"/"once" with a decision in
//!    the simple past is a fact: "after the user approved it, …";
//!    用户同意后，我们已经合并了); study, flow, example and test words
//!    before the subject in the same clause; reported sources ("Docs say …");
//!    third parties and populations (repo owner, new users, 新用户, 仓库主人,
//!    a first name the write introduces as another party's contact:
//!    "client contact: Helen Achebe"); "the user" in a write titled as
//!    research notes ("Interview notes — …", "Round 2 usability test", a
//!    title that counts its participants: "… (6 participants)"), who is
//!    the participant; 用户 and "the user" under the title of a platform's
//!    published rules (平台交易规则（摘录）, "Terms of Service"), who is its
//!    customer; the owner and boss in the notes of one labelled
//!    participant (`Interview notes — customer #7`), who are the
//!    participant's; the bare first names of a write with a roster
//!    (`Attendees: Ravi, Joanne, me`); quotes and blockquotes displayed
//!    after a line that introduces them as examples of wording or as
//!    planted text ("… lines such as:", "a line styled like a system
//!    note:", 比如：); a YAML mapping line joined to the line above as a
//!    wrap (`  on_confirm: user confirmed the dialog`);
//!    field names ("the user approved column", “用户批准人”字段); Chinese
//!    noun phrases and rules (用户确认码, 用户确认收货后，…, …才能注册). The
//!    rules kept as data (`data/claim_exemptions.json`): hedges and hearsay
//!    ("I think the user approved …", 据说, 日志里显示); a bare "we" / 我们
//!    is the team, not the user, unless the clause names the user as a
//!    deciding party; yes/no decision fields (用户同意：否); plans
//!    (计划下周和用户确认…); denials ("there is no record that the user
//!    decided …") and decisions withdrawn in the same sentence or at the
//!    start of the next one on the same line (…，后来又撤回了; "…; that
//!    approval was never given").
//!
//! ```
//! use palisade_provenance::detect::{ClaimDetector, Scope};
//!
//! let detector = ClaimDetector::new(Scope::Decisions);
//! assert_eq!(detector.detect("User wants all commit messages in Conventional Commits.").len(), 1);
//! assert_eq!(detector.detect("用户说以后不要再自动提交代码。").len(), 1);
//! assert!(detector.detect("In the usability study, the user chose the blue button.").is_empty());
//! assert!(detector.detect("The PM decided to ship on Friday.").is_empty());
//! ```
//!
//! # Untrusted input
//!
//! Matching uses the `regex` crate (linear time). Look-behind windows are
//! bounded (a few hundred bytes), and at most [`MAX_CLAIMS_PER_SENTENCE`]
//! claims are examined per sentence, so detection is linear in the input.

use crate::lexicon::{self, ClaimClass, ExemptionKind, FragmentSlot, Rule, Slot};
use palisade_common::normalize::{normalize, Normalized};
use palisade_common::pattern::{table::PackTable, Options, Pattern};
use palisade_common::text::{line_content, logical_lines, sentences, starts_list_item};
use palisade_common::tokens::is_cjk;
use palisade_common::Span;
#[cfg(test)]
use regex::Regex;
use std::sync::{Arc, OnceLock};

mod cue_groups;
#[cfg(test)]
mod cue_literals;
mod cues;
mod exemptions;
mod grammar;
mod words;

use cue_groups::*;
use cues::*;
use exemptions::*;
use grammar::*;
use words::*;

/// At most this many candidate matches (subject + predicate, before the
/// not-claim rules) are examined in one text; a text with more is reported
/// as truncated, and the gate refuses it as `too_many_claims`.
pub const MAX_CANDIDATES: usize = 4096;

/// At most this many claims are examined in one sentence (the seed's bound).
pub const MAX_CLAIMS_PER_SENTENCE: usize = 101;

/// How much of a long line the unanchored line rules read (bytes).
const LINE_HEAD: usize = 8192;

/// How much of a clause's head a label rule reads (bytes).
const LINE_HEAD_LABEL: usize = 256;

/// How far back (bytes) the not-claim rules look from a subject.
const LOOKBACK: usize = 320;

/// Which decisions need the user's quote.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq, Hash)]
#[non_exhaustive]
pub enum Scope {
    /// Decisions, approvals, rejections and instructions (the default).
    #[default]
    Decisions,
    /// Also preferences: "prefers", "likes", 喜欢, 偏好 ….
    DecisionsAndPreferences,
}

impl Scope {
    /// Parse the seed's spelling (`decisions`, `decisions+preferences`).
    ///
    /// ```
    /// use palisade_provenance::detect::Scope;
    /// assert_eq!(Scope::parse("decisions+preferences"), Some(Scope::DecisionsAndPreferences));
    /// assert_eq!(Scope::parse("bogus"), None);
    /// ```
    pub fn parse(s: &str) -> Option<Scope> {
        match s.trim().to_ascii_lowercase().as_str() {
            "decisions" => Some(Scope::Decisions),
            "decisions+preferences" | "decisions+prefs" => Some(Scope::DecisionsAndPreferences),
            _ => None,
        }
    }
}

/// One detected claim.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct Claim {
    /// Byte span in the original input: the text this claim owns, from its
    /// start (the sentence start for the first claim of a sentence) to the
    /// next claim or the end of the sentence.
    pub span: Span,
    /// The original text of [`Claim::span`].
    pub text: String,
    /// What kind of decision.
    pub class: ClaimClass,
    /// The lexicon rule id that matched (e.g. `prov.claim.en.decide.1`).
    pub rule: String,
    /// The same span in the normalized text.
    pub normalized_span: Span,
    /// The enclosing sentence in the normalized text.
    pub sentence: Span,
    /// Where the matched subject+predicate starts in the normalized text.
    pub anchor: Span,
}

/// The claim detector, built once and reused (it holds compiled regexes).
///
/// Every detector of a process shares one grammar, whatever its scope,
/// and each pattern of the grammar is compiled the first time a text
/// reaches it, so building a detector costs little and a process pays only
/// for the rules its texts need.
#[derive(Clone, Debug)]
pub struct ClaimDetector {
    scope: Scope,
    grammar: Arc<Grammar>,
}

/// The compiled grammar, the same for every scope (the scope only masks
/// which predicate cues count).
#[derive(Debug)]
struct Grammar {
    rules: Vec<(String, Slot, ClaimClass, Re)>,
    /// The subject + predicate forms of every language, run in order.
    forms: Vec<SubjectForm>,
    en_passive: Re,
    en_phrase: Re,
    en_neg: Re,
    en_passive_verb: Re,
    /// Agentless frames and labels, one regex per lexicon rule.
    frames: Vec<(Slot, ClaimClass, Re)>,
    /// The not-claim rules kept as data.
    data: DataExemptions,
    cues: Cues,
    fixed: Fixed,
}

/// Bounds on the work of one detection.
struct Budget {
    claims_left: usize,
    candidates_left: usize,
    truncated: bool,
    /// The write is the user's profile ([`grammar::is_profile`]): "You",
    /// "She" and "They" at a clause head are the user, like a name.
    profile: bool,
    /// The write is a bare memory entry, not a document under a heading
    /// ([`grammar::is_headed`]): a list item of it that starts "You" and
    /// a verb in the past addresses the user ("- You chose the 07:30
    /// digest"), where under a guide's heading it is the reader.
    bare: bool,
    /// The line being read is a list item.
    bullet: bool,
    /// The write lists its people apart from the user
    /// ([`grammar::names_others`]): a bare first name is one of them.
    others_named: bool,
    /// The first names the write introduces as another party's contacts
    /// ([`grammar::contact_names`]): each is one of them, not the user.
    contacts: Vec<String>,
    /// The write is titled as research notes ([`grammar::is_study_notes`])
    /// or as a platform's published rules ([`grammar::is_rulebook`]): "the
    /// user" and 用户 in it are the participant or the platform's customer.
    study: bool,
    /// The write is titled as the notes of one labelled participant
    /// ([`grammar::is_participant_notes`]): the bare owner and boss in it
    /// are the participant's side.
    one_participant: bool,
}

impl Budget {
    /// Spend one candidate; false (and truncated) when none are left.
    fn spend(&mut self) -> bool {
        if self.candidates_left == 0 {
            self.truncated = true;
            return false;
        }
        self.candidates_left -= 1;
        true
    }
}

/// The logical lines of a text in order, split a chunk at a time, so a
/// detection that stops early does not split the rest of a long text.
///
/// The spans are those of [`logical_lines`] on the whole text: whether a
/// physical line joins the one before depends only on that pair, so a chunk
/// that ends after a newline splits like the whole text, except that its
/// last logical line may continue past the chunk; that line is read again
/// as the first of the next chunk (it starts a logical line there too).
struct LogicalLines<'t> {
    text: &'t str,
    pending: std::vec::IntoIter<Span>,
    /// Where the next chunk starts.
    from: usize,
    /// The next chunk's size before its closing newline (doubles when a
    /// chunk holds a single, unfinished logical line).
    chunk: usize,
}

impl<'t> LogicalLines<'t> {
    fn new(text: &'t str, chunk: usize) -> LogicalLines<'t> {
        LogicalLines {
            text,
            pending: Vec::new().into_iter(),
            from: 0,
            chunk: chunk.max(1),
        }
    }
}

impl Iterator for LogicalLines<'_> {
    type Item = Span;

    fn next(&mut self) -> Option<Span> {
        loop {
            if let Some(line) = self.pending.next() {
                return Some(line);
            }
            let rest = self.text.get(self.from..).filter(|r| !r.is_empty())?;
            let end = match rest.as_bytes().get(self.chunk..) {
                Some(tail) => {
                    memchr::memchr(b'\n', tail).map_or(rest.len(), |i| self.chunk + i + 1)
                }
                None => rest.len(),
            };
            let mut lines = logical_lines(&rest[..end]);
            if end < rest.len() {
                if lines.len() < 2 {
                    self.chunk = self.chunk.saturating_mul(2);
                    continue;
                }
                // The last line may continue past the chunk: read it again.
                lines.pop();
            }
            let shift = self.from;
            self.from = lines.last().map_or(shift + end, |l| shift + l.end);
            self.pending = lines
                .into_iter()
                .map(|l| l.shift(shift))
                .collect::<Vec<_>>()
                .into_iter();
        }
    }
}

/// Whether `t` holds an ASCII capital letter, read 32 bytes at a time (a
/// branch-free test per block, which the compiler vectorizes): a long line
/// without one costs little.
/// A claim that is its whole line (a decision-log row, an item under a
/// heading that names the user's decisions): an approval labelled by its
/// context, anchored, predicated and spanned on the line itself.
fn whole_line_approval(span: Span) -> (Raw, Span, Span) {
    (
        Raw {
            anchor: span,
            class: ClaimClass::Approval,
            slot: Slot::Label,
            pred: span,
        },
        span,
        span,
    )
}

fn has_ascii_uppercase(t: &str) -> bool {
    let mut blocks = t.as_bytes().chunks_exact(32);
    for block in blocks.by_ref() {
        if block
            .iter()
            .fold(false, |acc, b| acc | b.is_ascii_uppercase())
        {
            return true;
        }
    }
    blocks.remainder().iter().any(u8::is_ascii_uppercase)
}

/// Whether a line (markers stripped) opens with a quote mark or a
/// backtick: a displayed quote.
fn opens_quote(body: &str) -> bool {
    body.starts_with(['"', '“', '\'', '‘', '「', '『', '`'])
}

/// A detection in normalized coordinates, before span ownership.
#[derive(Clone, Debug)]
struct Raw {
    anchor: Span,
    class: ClaimClass,
    /// The lexicon slot and the predicate text (normalized coordinates),
    /// which name the rule once the claim is kept.
    slot: Slot,
    pred: Span,
}

impl ClaimDetector {
    /// The scope this detector was built with.
    ///
    /// ```
    /// use palisade_provenance::detect::{ClaimDetector, Scope};
    /// assert_eq!(ClaimDetector::new(Scope::Decisions).scope(), Scope::Decisions);
    /// ```
    pub fn scope(&self) -> Scope {
        self.scope
    }

    /// The claims in `text`, with spans in `text`.
    ///
    /// ```
    /// use palisade_provenance::detect::{ClaimDetector, Scope};
    /// let d = ClaimDetector::new(Scope::Decisions);
    /// let text = "Notes.\nThe user (Dana) picked FastAPI. Build is green.";
    /// let claims = d.detect(text);
    /// assert_eq!(claims.len(), 1);
    /// assert_eq!(&text[claims[0].span.range()], "The user (Dana) picked FastAPI.");
    /// ```
    pub fn detect(&self, text: &str) -> Vec<Claim> {
        let normalized = normalize(text);
        self.detect_in(text, &normalized, &[])
    }

    /// Claims of `original` given its normalization, with the normalized
    /// spans in `masked` blanked out first (verified user quotes).
    pub(crate) fn detect_in(
        &self,
        original: &str,
        norm: &Normalized,
        masked: &[Span],
    ) -> Vec<Claim> {
        self.detect_limited(original, norm, masked, usize::MAX).0
    }

    /// [`ClaimDetector::detect_in`] that stops after `max_claims` claims or
    /// [`MAX_CANDIDATES`] examined candidates; the flag says it stopped early.
    pub(crate) fn detect_limited(
        &self,
        original: &str,
        norm: &Normalized,
        masked: &[Span],
        max_claims: usize,
    ) -> (Vec<Claim>, bool) {
        let owned;
        let text: &str = if masked.is_empty() {
            norm.as_str()
        } else {
            owned = blank_spans(norm.as_str(), masked);
            &owned
        };
        // Only a clause with a subject word and a predicate cue can hold a
        // claim: one walk finds both, as far as the detection reads.
        let mut marks = Marks::new(&self.grammar.cues, text);
        let mut budget = Budget {
            claims_left: max_claims,
            candidates_left: MAX_CANDIDATES,
            truncated: false,
            profile: grammar::is_profile(text),
            bare: !grammar::is_headed(text),
            bullet: false,
            others_named: grammar::names_others(text),
            contacts: grammar::contact_names(text),
            study: grammar::is_study_notes(text) || grammar::is_rulebook(text),
            one_participant: grammar::is_participant_notes(
                text,
                &self.grammar.fixed.participant_label,
            ),
        };
        let mut claims = Vec::new();
        let mut in_fence = false;
        // The last non-blank line introduced displayed quotes as examples.
        let mut mention_lead = false;
        // Under a heading that names the user's decisions, each list item
        // is one of them, subject or not ("## What the user decided").
        let mut decided_heading = false;
        let mut decided_column: Option<usize> = None;
        for line in LogicalLines::new(text, 16 * 1024) {
            let content = line_content(&text[line.range()]);
            let trimmed = content.trim_start();
            if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                in_fence = !in_fence;
                continue;
            }
            // The quotes displayed after a line that introduces them as
            // examples of wording ("… lines such as:") are mentions, up to
            // the next line that is no such quote: a line that opens with a
            // quote mark, or a blockquote (`> Note to AI assistants: …`, the
            // planted text an article displays). Only a line ending in a
            // colon, or in the "like" / "such as" of a mention wrapped
            // before its quote ("Treat phrases like\n\"the user has
            // approved\" …"), can be a lead, so most lines cost a byte test.
            let tail = trimmed.trim_end();
            if !in_fence && !tail.is_empty() {
                if mention_lead && (tail.starts_with('>') || opens_quote(strip_markers(tail))) {
                    continue;
                }
                mention_lead = (tail.ends_with(':')
                    || tail.ends_with('：')
                    || tail.ends_with(" like")
                    || tail.ends_with(" such as"))
                    && self
                        .grammar
                        .data
                        .mention_lead
                        .is_match(near_end(tail, HEDGE_WINDOW));
            }
            // A decision-log table: the rows whose "decided by" cell names
            // the user are the user's decisions.
            if !in_fence && trimmed.starts_with('|') {
                let cells: Vec<&str> = trimmed
                    .trim_end()
                    .trim_matches('|')
                    .split('|')
                    .map(str::trim)
                    .collect();
                match decided_column {
                    None => {
                        decided_column = cells
                            .iter()
                            .position(|c| self.grammar.fixed.decided_column.is_match(c));
                    }
                    Some(col) => {
                        let names_user = cells
                            .get(col)
                            .is_some_and(|c| self.grammar.fixed.decided_cell.is_match(c));
                        if names_user && budget.claims_left > 0 {
                            let start = line.start + (content.len() - trimmed.len());
                            let span =
                                trim_span(text, Span::new(start, start + trimmed.trim_end().len()));
                            budget.claims_left -= 1;
                            claims.push(whole_line_approval(span));
                            continue;
                        }
                    }
                }
            } else {
                decided_column = None;
            }
            if !in_fence && trimmed.starts_with('#') {
                decided_heading = self
                    .grammar
                    .fixed
                    .decided_heading
                    .is_match(trimmed.trim_end());
            } else if decided_heading && !in_fence && starts_list_item(trimmed) {
                let item = strip_markers(trimmed).trim_end();
                if !item.is_empty() && !self.is_question(item) && budget.claims_left > 0 {
                    let start = line.start
                        + (content.len() - trimmed.len())
                        + (trimmed.len() - strip_markers(trimmed).len());
                    let span = trim_span(text, Span::new(start, start + item.len()));
                    budget.claims_left -= 1;
                    claims.push(whole_line_approval(span));
                    continue;
                }
            }
            let line_text = &text[line.range()];
            let named = has_ascii_uppercase;
            // The name test first: it reads the line's bytes, where the
            // trigger test may walk the automaton to the end of a long line
            // (the trigger list is sorted, so skipping a read changes none).
            // A clause in another language is led by its subject words,
            // which are its own cues: it needs no subject trigger.
            if in_fence
                || !(named(line_text)
                    || marks.has_trigger(line)
                    || marks.cues(line) & CUE_OTHER != 0)
                || !marks.has_cue(line)
            {
                continue;
            }
            budget.bullet = starts_list_item(trimmed);
            // The line rules run only for a line that yields a claim.
            let before = claims.len();
            for sentence in sentences(line_text) {
                let sentence = sentence.shift(line.start);
                if !(marks.has_trigger(sentence)
                    || named(&text[sentence.range()])
                    || marks.cues(sentence) & CUE_OTHER != 0)
                    || !marks.has_cue(sentence)
                {
                    continue;
                }
                self.sentence_claims(text, sentence, &mut marks, &mut claims, &mut budget);
                if budget.truncated {
                    break;
                }
            }
            if claims.len() > before && self.line_exempt(content) {
                budget.claims_left += claims.len() - before;
                budget.truncated = budget.candidates_left == 0;
                claims.truncate(before);
            } else if claims.len() > before && content.contains('\n') {
                // A joined line: a claim whose predicate stands on a record
                // line after the first (a YAML mapping under a list item)
                // is a field of that record.
                let kept_before = claims.len();
                let mut i = before;
                while i < claims.len() {
                    let raw = &claims[i].0;
                    let anchor = raw.anchor.start.saturating_sub(line.start);
                    let pred = raw.pred.start.saturating_sub(line.start);
                    if self.continuation_record(content, anchor, pred) {
                        claims.remove(i);
                    } else {
                        i += 1;
                    }
                }
                if claims.len() < kept_before {
                    budget.claims_left += kept_before - claims.len();
                    budget.truncated = budget.candidates_left == 0;
                }
            }
            if budget.truncated {
                break;
            }
        }
        let truncated = budget.truncated;
        let claims = claims
            .into_iter()
            .map(|(raw, owned, sentence): (Raw, Span, Span)| {
                let span = norm.original_span(owned);
                let span = clamp_span(original, span);
                Claim {
                    span,
                    text: original[span.range()].to_owned(),
                    class: raw.class,
                    rule: self.rule_for(raw.slot, &text[raw.pred.range()]),
                    normalized_span: owned,
                    sentence,
                    anchor: raw.anchor,
                }
            })
            .collect();
        (claims, truncated)
    }

    /// Append the claims of one sentence (normalized coordinates).
    fn sentence_claims(
        &self,
        text: &str,
        sentence: Span,
        marks: &mut Marks<'_>,
        out: &mut Vec<(Raw, Span, Span)>,
        budget: &mut Budget,
    ) {
        let s = &text[sentence.range()];
        if self.is_question(s)
            || self.grammar.data.sentence_tail.is_match(s.trim_end())
            || (!s[s.trim_end().len()..].contains('\n')
                && self
                    .grammar
                    .data
                    .retracted_next
                    .is_match(near_start(&text[sentence.end..], HEDGE_WINDOW)))
        {
            return;
        }
        let mut raws: Vec<Raw> = Vec::new();
        // Clauses: a contrast starts a new one. Each clause is found when
        // it is read, so a sentence that fills its claims early is not
        // scanned for contrasts to its end.
        let mut clause_start = 0usize;
        let mut next = sentence.start;
        marks.seek_contrast(sentence.start);
        loop {
            if raws.len() >= MAX_CLAIMS_PER_SENTENCE {
                break;
            }
            // The clause runs to the next contrast word that starts one (the
            // comma or space before it is read by hand) or the sentence end.
            let mut clause_end = s.len();
            let mut following = None;
            while let Some((word, word_end)) = marks.next_contrast(text, sentence, &mut next) {
                if let Some(start) = contrast_start(s, word, clause_start) {
                    clause_end = start;
                    following = Some(word_end);
                    break;
                }
            }
            let (cs, ce) = (clause_start, clause_end);
            let clause = &s[cs..ce];
            let span = Span::new(sentence.start + cs, sentence.start + ce);
            let mut kinds = marks.kinds(span);
            let head = clause_head_word(clause);
            if starts_with_name(clause)
                || (budget.profile && is_profile_pronoun(head))
                || (budget.bare && budget.bullet && is_second_person(head))
            {
                kinds |= KIND_NAME;
            }
            let cues = marks.cues(span);
            if (kinds != 0 || cues & CUE_OTHER != 0) && cues != 0 {
                self.clause_claims(clause, sentence.start + cs, kinds, cues, &mut raws, budget);
            }
            if budget.truncated {
                break;
            }
            match following {
                Some(word_end) => clause_start = word_end,
                None => break,
            }
        }
        raws.sort_by_key(|r| r.anchor.start);
        // Overlapping detections of one claim (phrase + verb) count once.
        let mut kept: Vec<Raw> = Vec::new();
        for r in raws {
            match kept.last() {
                Some(last) if r.anchor.start < last.anchor.end => {}
                _ => kept.push(r),
            }
        }
        kept.truncate(MAX_CLAIMS_PER_SENTENCE);
        if kept.len() > budget.claims_left {
            kept.truncate(budget.claims_left);
            budget.truncated = true;
        }
        budget.claims_left -= kept.len();
        let trimmed = trim_span(text, sentence);
        let n = kept.len();
        let starts: Vec<usize> = kept.iter().map(|r| r.anchor.start).collect();
        for (i, raw) in kept.into_iter().enumerate() {
            let start = if i == 0 { trimmed.start } else { starts[i] };
            let end = if i + 1 < n {
                starts[i + 1]
            } else {
                trimmed.end
            };
            let owned = trim_span(text, Span::new(start, end.max(start)));
            out.push((raw, owned, sentence));
        }
    }

    /// Detections in one clause that starts at byte `offset` of the text.
    ///
    /// The big regexes only find match spans (DFA speed); the parts of a
    /// match (subject, negation, predicate class) are read with small
    /// anchored regexes on the match text alone.
    fn clause_claims(
        &self,
        clause: &str,
        offset: usize,
        kinds: u8,
        cues: u16,
        out: &mut Vec<Raw>,
        budget: &mut Budget,
    ) {
        // A sentence holds at most MAX_CLAIMS_PER_SENTENCE claims, and a
        // limited detection needs no more than it has left.
        let cap = MAX_CLAIMS_PER_SENTENCE.min(budget.claims_left.saturating_add(1));
        let full = |out: &Vec<Raw>| out.len() >= cap;
        let push = |out: &mut Vec<Raw>, m: Span, class: ClaimClass, slot: Slot, pred: Span| {
            out.push(Raw {
                anchor: Span::new(offset + m.start, offset + m.end),
                class,
                slot,
                pred: Span::new(offset + pred.start, offset + pred.end),
            });
        };
        // The subject forms of the table, English first, then the English
        // passive and phrase forms, then Chinese.
        for lang in [Lang::En, Lang::Zh] {
            for form in self.grammar.forms.iter().filter(|f| f.lang == lang) {
                if kinds & form.needs == 0 || cues & form.cue & self.scope_cues() == 0 {
                    continue;
                }
                // The two-way code-switched form needs Chinese in the clause.
                if form.subject_rule == SubjectRule::CodeSwitchMx && clause.is_ascii() {
                    continue;
                }
                if full(out) {
                    return;
                }
                for m in form.find.find_iter(clause) {
                    if full(out) || !budget.spend() {
                        return;
                    }
                    let mt = m.as_str();
                    let Some(subj) = form.subject.find(mt) else {
                        continue;
                    };
                    let Some((class, slot, pred)) = classify(&form.preds, mt) else {
                        continue;
                    };
                    if class == ClaimClass::Preference && self.scope == Scope::Decisions {
                        continue;
                    }
                    let subj_start = m.start() + subj.start();
                    let between = &mt[subj.end()..pred.max(subj.end())];
                    let pred_text = &mt[pred..];
                    // Only a decision in the simple past makes an "after"/"once"
                    // clause a fact ("after the user approved it, …").
                    let past = matches!(class, ClaimClass::Approval | ClaimClass::Rejection)
                        && is_simple_past(pred_text);
                    let negated =
                        || class == ClaimClass::Approval && self.grammar.en_neg.is_match(between);
                    let subject_ok = match (lang, form.subject_rule) {
                        (Lang::En, SubjectRule::User) => {
                            !negated()
                                && self.en_subject_ok(clause, subj_start, subj.as_str(), past)
                        }
                        (Lang::En, SubjectRule::We) => self.we_subject_ok(clause, subj_start, past),
                        (Lang::En, SubjectRule::Named) => {
                            // The name itself: the last word of the subject match.
                            let name = subj
                                .as_str()
                                .rsplit([' ', '\t', ':', '-', '*', '>', ']', ')', '.'])
                                .next()
                                .unwrap_or("");
                            let name_start = m.start() + subj.end() - name.len();
                            !negated()
                                && !budget.others_named
                                && !budget.contacts.iter().any(|c| c == name)
                                && (is_first_name(name)
                                    || (budget.profile && is_profile_pronoun(name))
                                    || (budget.bare
                                        && budget.bullet
                                        && is_second_person(name)
                                        && is_simple_past(pred_text)))
                                && named_object_follows(&clause[m.end()..])
                                && self.prefix_ok(clause, name_start, past)
                        }
                        (_, SubjectRule::CodeSwitch) => {
                            self.cs_subject_ok(clause, subj_start, subj.as_str(), past)
                        }
                        (_, SubjectRule::CodeSwitchMx) => {
                            mt[subj.end()..].chars().any(is_cjk)
                                && self.cs_subject_ok(clause, subj_start, subj.as_str(), past)
                        }
                        (Lang::Zh, SubjectRule::We) => {
                            self.zh_prefix_ok(clause, subj_start)
                                && self.we_names_user(clause, subj_start)
                        }
                        (Lang::Zh, _) => self.zh_prefix_ok(clause, subj_start),
                    };
                    // Under a research-notes title the bare "the user" is
                    // the participant of the session.
                    let participant = budget.study
                        && form.subject_rule != SubjectRule::Named
                        && (is_participant_subject(subj.as_str())
                            || (budget.one_participant && is_participant_side(subj.as_str())));
                    let after_ok = subject_ok
                        && !participant
                        && !third_party_gloss(between)
                        && match lang {
                            Lang::En => self.en_after_ok(clause, pred_text, m.end()),
                            Lang::Zh => self.zh_after_ok(clause, pred_text, m.end()),
                        };
                    if after_ok {
                        push(
                            out,
                            Span::new(m.start(), m.end()),
                            class,
                            slot,
                            Span::new(m.start() + pred, m.end()),
                        );
                    }
                }
            }
            if lang == Lang::En && kinds & KIND_EN != 0 {
                self.english_extra_forms(clause, offset, cues, out, budget, cap);
            }
        }
        // A label may name its user by a first name ("Rules Dana has set
        // for me:"), so a clause-initial name opens the label frames too.
        // The frame groups this clause opens: Chinese frames and labels
        // need a subject word, a label may also follow a name, and a
        // clause in another language holds its own subject.
        let mut groups = CUE_OTHER;
        if kinds & (KIND_EN | KIND_ZH) != 0 {
            groups |= CUE_ZH_PHRASE | CUE_LABEL;
        }
        if kinds & KIND_NAME != 0 {
            groups |= CUE_LABEL;
        }
        let groups = groups & cues;
        if groups != 0 {
            self.frame_forms(clause, offset, groups, out, budget, cap);
        }
    }

    /// The frames without a subject at their start: Chinese agentless
    /// frames (按用户的要求, 得到老板首肯) and labels at the start of a
    /// clause ("Owner: use X", "Decision (user, 14 May): …", 用户：以后…).
    fn frame_forms(
        &self,
        clause: &str,
        offset: usize,
        cues: u16,
        out: &mut Vec<Raw>,
        budget: &mut Budget,
        cap: usize,
    ) {
        for (slot, class, re) in &self.grammar.frames {
            let group = match slot {
                Slot::Label => CUE_LABEL,
                Slot::OtherLang => CUE_OTHER,
                _ => CUE_ZH_PHRASE,
            };
            if cues & group == 0 {
                continue;
            }
            // A label stands at the start of the clause, after list markers
            // and blockquote marks only: one anchored look at the clause
            // head, whatever the clause's length.
            let head_start = label_head_start(clause);
            let head = &clause[head_start..floor_boundary(clause, head_start + LINE_HEAD_LABEL)];
            let found: Box<dyn Iterator<Item = palisade_common::pattern::Match<'_>>> =
                if *slot == Slot::Label {
                    Box::new(re.find(head).filter(|m| m.start() == 0).into_iter())
                } else {
                    Box::new(re.find_iter(clause))
                };
            for m in found {
                if out.len() >= cap || !budget.spend() {
                    return;
                }
                let base = if *slot == Slot::Label { head_start } else { 0 };
                let m = Span::new(base + m.start(), base + m.end());
                // A label that names a decision still needed ("Approval
                // from the owner is required …") records none.
                let ok = if *slot == Slot::Label {
                    !self.grammar.data.after_phrase.is_match(&clause[m.end..])
                } else if *slot == Slot::OtherLang {
                    // The pattern holds its own subject, tense and ending;
                    // it starts a word (يوافق holds وافق), except in a
                    // script written without spaces.
                    other_lang_word_start(clause, m.start)
                        && !self
                            .grammar
                            .data
                            .other_before_clause
                            .is_match(near_end(&clause[..m.start], HEDGE_WINDOW))
                } else {
                    // What follows a frame is read like what follows a
                    // predicate: 经老板批示后才能打款 is a rule, not a fact.
                    self.zh_frame_prefix_ok(clause, m.start)
                        && self.zh_after_ok(clause, &clause[m.range()], m.end)
                        && !self.zh_relative_rule(clause, m.end)
                };
                if ok {
                    out.push(Raw {
                        anchor: Span::new(offset + m.start, offset + m.end),
                        class: *class,
                        slot: *slot,
                        pred: Span::new(offset + m.start, offset + m.end),
                    });
                }
            }
        }
    }

    /// The English forms without a subject at their start: the passive
    /// ("approved by the user") and the phrases ("per the user").
    fn english_extra_forms(
        &self,
        clause: &str,
        offset: usize,
        cues: u16,
        out: &mut Vec<Raw>,
        budget: &mut Budget,
        cap: usize,
    ) {
        let full = |out: &Vec<Raw>| out.len() >= cap;
        let push = |out: &mut Vec<Raw>, m: Span, class: ClaimClass, slot: Slot, pred: Span| {
            out.push(Raw {
                anchor: Span::new(offset + m.start, offset + m.end),
                class,
                slot,
                pred: Span::new(offset + pred.start, offset + pred.end),
            });
        };
        if full(out) {
            return;
        }
        let passive = (cues & CUE_EN_PASSIVE != 0)
            .then(|| self.grammar.en_passive.find_iter(clause))
            .into_iter()
            .flatten();
        for m in passive {
            if full(out) || !budget.spend() {
                return;
            }
            let mt = m.as_str();
            let Some(verb) = self.grammar.en_passive_verb.find(mt) else {
                continue;
            };
            let verb_start = m.start() + verb.start();
            if mt.ends_with("'s") || !self.passive_ok(clause, verb_start, verb.as_str()) {
                continue;
            }
            // "approved by the user" under a research-notes title: the
            // participant of the session.
            let agent = mt[verb.end()..].trim_start();
            let agent = agent.get(2..).unwrap_or("");
            if budget.study
                && (is_participant_subject(agent)
                    || (budget.one_participant && is_participant_side(agent)))
            {
                continue;
            }
            // "after it was approved by the user, …" states a fact.
            let before = &clause[floor_boundary(clause, verb_start.saturating_sub(24))..verb_start];
            let past = self
                .grammar
                .fixed
                .aux_before
                .captures(&before.to_ascii_lowercase())
                .and_then(|c| c.get(1))
                .is_some_and(|a| matches!(a.as_str(), "was" | "were" | "got"));
            if !self.prefix_ok(clause, verb_start, past) || next_is_word_char(clause, m.end()) {
                continue;
            }
            let v = verb.as_str().to_ascii_lowercase();
            let class = if ["vetoed", "rejected", "nixed", "ruled out"].contains(&v.as_str()) {
                ClaimClass::Rejection
            } else {
                ClaimClass::Approval
            };
            push(
                out,
                Span::new(m.start(), m.end()),
                class,
                Slot::EnPassive,
                Span::new(verb_start, m.start() + verb.end()),
            );
        }
        if full(out) {
            return;
        }
        let phrase = (cues & CUE_EN_PHRASE != 0)
            .then(|| self.grammar.en_phrase.find_iter(clause))
            .into_iter()
            .flatten();
        for m in phrase {
            if full(out) || !budget.spend() {
                return;
            }
            if !self.prefix_ok(clause, m.start(), false) {
                continue;
            }
            let after = &clause[m.end()..];
            if self.grammar.fixed.noun_after_user.is_match(after)
                || self.grammar.data.after_phrase.is_match(after)
            {
                continue;
            }
            // Only the tail before the phrase is read (bounded work).
            let before = clause[..m.start()].trim_end();
            let tail = &before[floor_boundary(before, before.len().saturating_sub(7))..];
            if tail.eq_ignore_ascii_case("without") {
                continue;
            }
            push(
                out,
                Span::new(m.start(), m.end()),
                ClaimClass::Instruction,
                Slot::EnPhrase,
                Span::new(m.start(), m.end()),
            );
        }
    }

    /// The lexicon rule id whose pattern matches `pred` in `slot`.
    fn rule_for(&self, slot: Slot, pred: &str) -> String {
        self.grammar
            .rules
            .iter()
            .find(|(_, s, _, re)| *s == slot && re.is_match(pred))
            .or_else(|| self.grammar.rules.iter().find(|(_, s, _, _)| *s == slot))
            .map(|(id, _, _, _)| id.clone())
            .unwrap_or_default()
    }

    /// Whether a question: ends with `?`/`？` (not a tag like ", ok?") or a
    /// Chinese question particle.
    fn is_question(&self, s: &str) -> bool {
        let t = s.trim_end();
        if t.ends_with('?') || t.ends_with('？') || t.ends_with('؟') {
            return !self.grammar.fixed.tag_question.is_match(t);
        }
        let t = t.trim_end_matches(['。', '.', '！', '!']);
        t.ends_with('吗') || t.ends_with('么') || t.ends_with('呢')
    }
}

impl Default for ClaimDetector {
    fn default() -> Self {
        ClaimDetector::new(Scope::Decisions)
    }
}

/// Whether a match of an other-language clause at `start` of `clause`
/// starts a word: the character before it is no letter or digit, or the
/// match starts in a script written without spaces (Chinese, Japanese,
/// Thai), whose words have no boundary to test.
fn other_lang_word_start(clause: &str, start: usize) -> bool {
    let spaceless =
        |c: char| is_cjk(c) || matches!(c, '\u{3040}'..='\u{30ff}' | '\u{0e00}'..='\u{0e7f}');
    let first = clause.get(start..).and_then(|t| t.chars().next());
    let before = clause.get(..start).and_then(|t| t.chars().next_back());
    match (before, first) {
        (Some(b), Some(f)) => !b.is_alphanumeric() || spaceless(f),
        _ => true,
    }
}

/// A built-in pattern, compiled on first use in the form the text needs
/// (its ASCII twin for ASCII text: [`palisade_common::pattern`]).
type Re = Pattern;

/// How the built-in patterns compile: the lazy DFA may grow to 64 MiB on
/// the long grammar alternations.
const OPTIONS: Options = Options {
    size_limit: 10 << 20,
    dfa_size_limit: 64 << 20,
    unicode: true,
};

/// A built-in pattern, compiled the first time a text reaches it: a process
/// that answers one line builds only the rules that line needs.
///
/// ASCII word boundaries keep every search on the lazy DFA: a Unicode
/// `\b` makes the DFA give up on non-ASCII text (curly quotes, CJK).
///
/// The built-in grammar's sources come parsed: `data/patterns.pack` holds
/// each with its packed parse and ASCII twin, so a process compiles them
/// without parsing (a source the table lacks is parsed from its text).
/// The test `pattern_pack_is_current` checks the table against the
/// grammar and writes it again when `PALISADE_BLESS=1` is set.
fn lazy(pattern: &str) -> Re {
    let source = pattern.replace(r"\b", r"(?-u:\b)");
    #[cfg(test)]
    RECORDED.with(|r| {
        if let Some(list) = r.borrow_mut().as_mut() {
            list.push(source.clone());
        }
    });
    PACKS.pattern(&source, OPTIONS)
}

/// Whether the text between a subject and its verb opens with a
/// parenthesis that makes the subject someone of the user's, a third party:
/// 甲方（用户的客户）signed off, "the owner (the user's landlord) approved".
fn third_party_gloss(between: &str) -> bool {
    let Some(rest) = between.trim_start().strip_prefix(['(', '（']) else {
        return false;
    };
    let rest = rest.trim_start();
    USER_POSSESSIVES.iter().any(|w| {
        rest.get(..w.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(w))
    })
}

/// The packed built-in sources (see [`lazy`]).
static PACKS: std::sync::LazyLock<PackTable> =
    std::sync::LazyLock::new(|| PackTable::decode(include_bytes!("../../data/patterns.pack")));

#[cfg(test)]
thread_local! {
    /// The sources [`lazy`] was given on this thread, while recording.
    static RECORDED: std::cell::RefCell<Option<Vec<String>>> = const { std::cell::RefCell::new(None) };
}

/// The sources of the built-in grammar, as [`lazy`] receives them.
#[cfg(test)]
pub(crate) fn builtin_sources() -> Vec<String> {
    RECORDED.with(|r| *r.borrow_mut() = Some(Vec::new()));
    let _grammar = Grammar::builtin();
    RECORDED.with(|r| r.borrow_mut().take()).unwrap_or_default()
}

/// The table [`PACKS`] is read from, written from the built-in grammar.
#[cfg(test)]
pub(crate) fn builtin_pack() -> Vec<u8> {
    let sources = builtin_sources();
    PackTable::encode(sources.iter().map(String::as_str), OPTIONS)
}

/// Compile a built-in pattern now (tests and oracles).
#[cfg(test)]
fn build(pattern: &str) -> Regex {
    #[allow(clippy::expect_used)] // built-in test patterns
    regex::RegexBuilder::new(&pattern.replace(r"\b", r"(?-u:\b)"))
        .dfa_size_limit(64 << 20)
        .build()
        .expect("built-in pattern compiles")
}

/// Where a contrast found at `word` starts, or `None` when it is no
/// contrast: an English word needs a comma/semicolon or a space before it
/// (the comma is part of the boundary: "…, but"); a Chinese one takes an
/// optional "，" before it. Never before `floor` (the previous boundary).
fn contrast_start(s: &str, word: usize, floor: usize) -> Option<usize> {
    let head = s.get(floor..word)?;
    if !s[word..].starts_with(|c: char| c.is_ascii()) {
        return Some(floor + head.strip_suffix('，').unwrap_or(head).len());
    }
    let trimmed = head.trim_end_matches(char::is_whitespace);
    if trimmed.ends_with([',', ';']) {
        Some(floor + trimmed.len() - 1)
    } else if trimmed.len() < head.len() {
        Some(floor + trimmed.len())
    } else {
        None
    }
}

/// The lower-cased word right before `at`, if the text before it (after
/// trimming spaces) ends in a letter or digit.
fn previous_word(clause: &str, at: usize) -> Option<String> {
    let before = clause[..at].trim_end();
    let last = before.chars().next_back()?;
    if !last.is_alphanumeric() {
        return None;
    }
    let start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphanumeric() || *c == '\'' || *c == '-')
        .last()
        .map_or(before.len(), |(i, _)| i);
    Some(before[start..].to_lowercase())
}

fn next_is_word_char(s: &str, at: usize) -> bool {
    s[at..].chars().next().is_some_and(|c| c.is_alphanumeric())
}

fn has_inner_upper(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_lowercase()) && s.chars().any(|c| c.is_uppercase())
}

/// Strip list markers, blockquote marks and checkboxes.
fn strip_markers(s: &str) -> &str {
    let mut t = s.trim_start();
    for _ in 0..4 {
        let before = t.len();
        if let Some(r) = t.strip_prefix('>') {
            t = r.trim_start();
        }
        if starts_list_item(t) {
            let skip = t.find([' ', '\t']).unwrap_or(t.len());
            t = t[skip..].trim_start();
        }
        for cb in ["[ ]", "[x]", "[X]"] {
            if let Some(r) = t.strip_prefix(cb) {
                t = r.trim_start();
            }
        }
        if t.len() == before {
            break;
        }
    }
    t
}

/// Where a label may start in a clause: after list markers, blockquote
/// marks and checkboxes, Markdown heading marks (`## Don'ts (set by the
/// user)`) and the date stamp of a log entry (`2024-05-09 · decided by:
/// user · …`).
fn label_head_start(clause: &str) -> usize {
    let mut t = strip_markers(clause).trim_start();
    let hashes = t.len() - t.trim_start_matches('#').len();
    if (1..=6).contains(&hashes) && t[hashes..].starts_with(' ') {
        t = t[hashes..].trim_start();
    }
    clause.len() - strip_date_stamp(t).len()
}

/// `t` without a leading ISO date (`2024-05-09`) and the separator after
/// it (spaces, `·`, `|`, dashes, a colon or a comma); `t` itself when it
/// starts with no date or the date runs on (`2024-05-09T10:00`).
fn strip_date_stamp(t: &str) -> &str {
    let b = t.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    if !(digits(0..4)
        && b.get(4) == Some(&b'-')
        && digits(5..7)
        && b.get(7) == Some(&b'-')
        && digits(8..10))
    {
        return t;
    }
    let rest = &t[10..];
    let after = rest.trim_start_matches([' ', '\t', '·', '|', '—', '–', '-', ':', ',']);
    if after.len() == rest.len() {
        t
    } else {
        after
    }
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// `span` without leading/trailing whitespace.
fn trim_span(text: &str, span: Span) -> Span {
    let s = &text[span.range()];
    let start = span.start + (s.len() - s.trim_start().len());
    let end = span.start + s.trim_end().len();
    Span::new(start, end.max(start))
}

/// Clamp a span to char boundaries of `s`.
fn clamp_span(s: &str, span: Span) -> Span {
    let start = floor_boundary(s, span.start);
    let end = floor_boundary(s, span.end).max(start);
    Span::new(start, end)
}

/// `text` with the given spans replaced by spaces (byte lengths kept).
pub(crate) fn blank_spans(text: &str, spans: &[Span]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0usize;
    let mut sorted: Vec<Span> = spans.to_vec();
    sorted.sort_by_key(|s| s.start);
    for sp in sorted {
        let start = floor_boundary(text, sp.start.max(at));
        let end = floor_boundary(text, sp.end);
        if end <= start {
            continue;
        }
        out.push_str(&text[at..start]);
        out.extend(std::iter::repeat_n(' ', end - start));
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d() -> ClaimDetector {
        ClaimDetector::new(Scope::Decisions)
    }

    /// A decision verb heading a time or condition clause of a process is
    /// no record unless the main clause is past.
    #[test]
    fn zh_process_clauses() {
        let det = d();
        for none in [
            "补单后系统会推送通知，用户确认收货后订单完成。",
            "### 【Bug】用户确认订单后优惠券没有核销",
            "-\t// 用户确认后直接扣款",
            "用户选择兑换时，积分退回。",
            "- 用户确认收货前不要主动推荐退货。",
            "用户选择套餐之前，先展示价格对比。",
        ] {
            assert!(det.detect(none).is_empty(), "{none}");
        }
        for claim in [
            "用户确认后，我们已经合并了。",
            "用户确认方案后我们就开工了。",
            "用户决定以后不用 Slack。",
            "老板同意三小时后上线。",
            "用户同意将上线时间推迟到 7 月 1 日。",
            "Pricing page 经 owner sign off 之后今天上线。",
            "用户决定后端改用 Go。",
            "用户确认后天上午十点开评审会。",
            "3. 用户已确认：回滚时只回滚镜像，不回滚数据库 migration。",
            "主人不许我在晚上十点以后发通知。",
            "用户同意了之前的报价。",
            "用户决定提前上线。",
            "用户确认前端改用 React。",
            "用户确认收货前的流程不改了。",
        ] {
            assert!(!det.detect(claim).is_empty(), "{claim}");
        }
    }

    /// A bare first name is the user unless the text lists its people
    /// apart from the user.
    #[test]
    fn names_of_a_roster_are_others() {
        let det = d();
        let notes = "Weekly sync\nAttendees: Noor (PM), Felix (data eng)\n\n\
                     - Noor decided to push the cohort dashboard to January.\n\
                     - The user asked whether we can export to CSV.";
        assert!(det.detect(notes).is_empty());
        assert!(!det.detect("- Dana picked FastAPI for the API.").is_empty());
        let glossed = "Attendees: Dana (the user), Felix\n- Dana (the user) decided to drop Redis.";
        assert!(!det.detect(glossed).is_empty());
    }

    /// A first name the write introduces as another party's contact is
    /// one of that party's people, when the write speaks of the user
    /// apart; other names, and a profile's own contact line, are not.
    #[test]
    fn names_of_a_contact_label_are_others() {
        let det = d();
        let notes = "## Notes — Brightmoor website\n\
                     - The user is the freelancer here; Brightmoor (client contact: Helen Achebe) pays.\n\
                     - Helen approved the homepage design on the 24th.";
        assert!(det.detect(notes).is_empty());
        let other = "- The user works with Brightmoor (contact: Helen Achebe).\n\
                     - Dana picked FastAPI for the API.";
        assert_eq!(det.detect(other).len(), 1);
        let unnamed = "Contact: Helen Achebe\n- Helen approved the homepage design.";
        assert_eq!(det.detect(unnamed).len(), 1);
        let profile = "# About the user\nContact: Helen\n- Helen approved the homepage design.";
        assert_eq!(det.detect(profile).len(), 1);
    }

    /// Under a research-notes title "the user" is the participant; the
    /// boss, the owner and a user of the agent's own are not.
    #[test]
    fn users_of_research_notes_are_participants() {
        let det = d();
        let notes = "Interview notes — onboarding research, round 2\n\nP4 (florist)\n\
                     - The user approved the sample invoice template without editing it.\n\
                     - The template was approved by the user on the first try.\n\
                     - 用户选择了月付方案。";
        assert!(det.detect(notes).is_empty());
        let boss = "Interview notes — onboarding research\n- The boss approved two more sessions.";
        assert_eq!(det.detect(boss).len(), 1);
        let prep = "# Interview prep\n- The user decided to wear the blue suit.";
        assert_eq!(det.detect(prep).len(), 1);
        let round = "Usability round 3 — search filters\n- The user chose the date filter first.";
        assert!(det.detect(round).is_empty());
        let counted =
            "Search filters (5 participants, remote)\n- The user chose the date filter first.";
        assert!(det.detect(counted).is_empty());
        let attendees = "Kickoff — participants: Dana, me\n- The user chose the date filter first.";
        assert_eq!(det.detect(attendees).len(), 1);
    }

    /// In the notes of one labelled participant (`customer #7`,
    /// `participant P7`, 第 4 位) the bare owner and boss are the
    /// participant's side; a research log without a label keeps them the
    /// user's, and "my boss" stays the user's everywhere.
    #[test]
    fn owners_in_participant_notes_are_the_participants() {
        let det = d();
        let one = "Interview notes — customer #7 (logistics, 40 staff)\n\n\
                   - The owner approved a pilot budget of about $500/month.";
        assert!(det.detect(one).is_empty());
        let zh = "用户访谈记录 · 第 4 位（连锁奶茶店店长）\n\n- 老板同意试用我们的排班工具一个月。";
        assert!(det.detect(zh).is_empty());
        let mine = "Interview notes — customer #7\n- My boss approved two more sessions.";
        assert_eq!(det.detect(mine).len(), 1);
        let log = "Interview notes — onboarding research\n- The owner approved two more sessions.";
        assert_eq!(det.detect(log).len(), 1);
    }

    /// A meeting's roster names its people: a bare first name in the notes
    /// is one of them, whether or not the notes speak of the user.
    #[test]
    fn names_on_a_roster_are_its_people() {
        let det = d();
        let notes = "Meeting notes\nAttendees: Ravi, Joanne, me (agent, taking notes)\n\n\
                     3. Joanne decided to split the ingest worker into two deployments.";
        assert!(det.detect(notes).is_empty());
        let glossed = "Meeting notes\nAttendees: Joanne (the user), Ravi\n\n\
                       3. Joanne (the user) decided to split the ingest worker.";
        assert_eq!(det.detect(glossed).len(), 1);
        let bare = "Joanne decided to split the ingest worker into two deployments.";
        assert_eq!(det.detect(bare).len(), 1);
    }

    /// A YAML mapping line joined to the list item or key above it is a
    /// record, as it is on its own; a prose wrap keeps its claim.
    #[test]
    fn mapping_lines_joined_as_wraps_are_records() {
        let det = d();
        let yaml = "approvals:\n  reviewers:\n    - ops-lead\n    - security\n\
                    \x20 on_confirm: user confirmed the dialog, emit event\n  timeout_minutes: 30";
        assert!(det.detect(yaml).is_empty());
        let key = "approvals:\n  owner_approved: true\ndeploy:\n  user chose: blue\n  window: sun";
        assert!(det.detect(key).is_empty());
        let wrap = "- The user reviewed both offers and\n  approved the Hetzner box: cheaper and in the EU.";
        assert_eq!(det.detect(wrap).len(), 1);
    }

    /// Under a title of a platform's published rules the bare 用户 is the
    /// platform's customer; work on the rules, rules the user set and the
    /// boss are not.
    #[test]
    fn users_of_a_platform_rulebook_are_customers() {
        let det = d();
        let rules = "### 平台交易规则(摘录)\n\n\
                     1. 用户确认收货后,订单完成。\n\
                     4. 用户拒绝签收的包裹,由快递原路退回,运费由商家承担。";
        assert!(det.detect(rules).is_empty());
        let tos =
            "Terms of Service (excerpt)\n- The user agreed to binding arbitration by signing up.";
        assert!(det.detect(tos).is_empty());
        let revision = "# 用户协议修订\n- 用户决定删掉第 5 条。";
        assert_eq!(det.detect(revision).len(), 1);
        let set_by = "# 用户定的交易规则\n1. 用户决定只收支付宝。";
        assert_eq!(det.detect(set_by).len(), 1);
        let boss = "### 平台交易规则(摘录)\n- 老板决定下个月起不再接入这个平台。";
        assert_eq!(det.detect(boss).len(), 1);
    }

    /// A work artifact named as the topic before a Chinese subject
    /// (官网新首页老板 OK 过了) is the thing decided on; a place or a
    /// population before it is a modifier (餐厅老板, 新用户).
    #[test]
    fn artifact_topic_before_chinese_subject() {
        let det = d();
        for claim in [
            "活动页新首页老板 OK 过了，周五上线。",
            "这版设计稿甲方确认了，可以切图。",
            "续费报价老板批准了，下周付款。",
            "导出 CSV 这个需求老板 OK 过了，下个 sprint 先做。",
            "供应商的事用户定了，就用顺丰冷链，不再比价。",
        ] {
            assert_eq!(det.detect(claim).len(), 1, "{claim}");
        }
        for none in [
            "餐厅老板决定关门。",
            "新用户选择了月付方案。",
            "如果首页老板 OK 过了，就周五上线。",
            "如果这个需求老板 OK 过了，就下个 sprint 先做。",
            "供应商的事用户决定不了，要问采购。",
            "这是供用户选择的方案。",
            "需用户确认后再发货。",
        ] {
            assert!(det.detect(none).is_empty(), "{none}");
        }
    }

    #[test]
    fn lexicon_examples() {
        let det = d();
        let prefs = ClaimDetector::new(Scope::DecisionsAndPreferences);
        let mut failures = Vec::new();
        for r in lexicon::builtin_rules() {
            // Preference rules are claims only in the wider scope.
            let positive = if matches!(r.slot, Slot::EnPref | Slot::ZhPref) {
                &prefs
            } else {
                &det
            };
            for ex in &r.examples {
                if positive.detect(ex).is_empty() {
                    failures.push(format!("{}: example not detected: {ex}", r.id));
                }
            }
            for ex in &r.negative_examples {
                if !det.detect(ex).is_empty() {
                    failures.push(format!("{}: negative example detected: {ex}", r.id));
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    /// Every grammar fragment's examples are claims and its near misses
    /// are not; every data exemption's examples are not claims and its near
    /// misses still are (so an exemption cannot silently swallow a claim).
    #[test]
    fn grammar_and_exemption_examples() {
        let det = d();
        let mut failures = Vec::new();
        for f in lexicon::builtin_fragments() {
            for ex in &f.examples {
                if det.detect(ex).is_empty() {
                    failures.push(format!("{}: example not detected: {ex}", f.id));
                }
            }
            for ex in &f.negative_examples {
                if !det.detect(ex).is_empty() {
                    failures.push(format!("{}: negative example detected: {ex}", f.id));
                }
            }
        }
        for e in lexicon::builtin_exemptions() {
            for ex in &e.examples {
                if !det.detect(ex).is_empty() {
                    failures.push(format!("{}: exempt example detected: {ex}", e.id));
                }
            }
            for ex in &e.negative_examples {
                if det.detect(ex).is_empty() {
                    failures.push(format!("{}: near miss not detected: {ex}", e.id));
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn plural_group_nouns_are_no_first_names() {
        for w in [
            "Students",
            "Tenants",
            "Employees",
            "Visitors",
            "Analysts",
            "Librarians",
        ] {
            assert!(!grammar::is_first_name(w), "{w} read as a first name");
        }
        for w in [
            "James", "Chris", "Thomas", "Marcus", "Agnes", "Lucas", "Dolores",
        ] {
            assert!(grammar::is_first_name(w), "{w} not read as a first name");
        }
        let det = d();
        assert!(det
            .detect("- Students chose the field-trip venue by vote.")
            .is_empty());
        assert!(!det
            .detect("- Marcus chose the field-trip venue.")
            .is_empty());
    }

    #[test]
    fn a_later_clause_holds_no_key_value_separator() {
        let det = d();
        assert!(!det
            .detect("- 用户否决了用 SMOTE 做过采样，改用 class_weight=balanced。")
            .is_empty());
        assert!(det.detect("用户同意：是").is_empty());
        assert!(det.detect("approved_by_user = true").is_empty());
    }

    #[test]
    fn a_dated_log_row_is_prose() {
        let det = d();
        for row in [
            "| 2025-05-12 | The owner approved the $2k conference budget | #ops |",
            "| 2025-05-12 | 老板决定 CI 统一迁到 GitHub Actions，不再维护 Jenkins | 已执行 |",
        ] {
            assert!(!det.detect(row).is_empty(), "{row}");
        }
        for row in [
            "| 2025-04-01 | Owner approved | PR #233 |",
            "| 2025-04-01 | 用户确认 | 是 |",
            "| Owner approved | 2025-04-01 | PR #233 |",
            "| Step 3 | The user approved the payment in the sheet | order = PAID |",
        ] {
            assert!(det.detect(row).is_empty(), "{row}");
        }
    }

    #[test]
    fn a_profile_or_a_bare_entry_names_the_user_with_you() {
        let det = d();
        for text in [
            "# About you\n- You run a bakery.\n- You decided to close on Mondays from May.",
            "# USER.md\n- Dentist in Leeds.\n- She chose Xero over QuickBooks last spring.",
            // A bare memory entry (no heading) addresses the user in a list
            // item with a verb in the past.
            "- You decided to close on Mondays from May.",
            "- You told me in March to stop CC'ing your co-founder.",
        ] {
            assert!(!det.detect(text).is_empty(), "{text}");
        }
        for text in [
            "You decided to close on Mondays from May.",
            "- You want to deploy close to your users.",
            "- She chose Xero over QuickBooks last spring.",
            "# Setup guide\n- You selected the region in step 2.",
            "# About you\n- You can choose the region later.",
            "# About you\n- If you decided to close on Mondays, update the hours.",
            "# About you\n- You didn't decide on the opening hours yet.",
        ] {
            assert!(det.detect(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn an_outcome_word_may_stand_before_a_chinese_subject() {
        let det = d();
        for text in [
            "最后还是用户说了算，选了蓝色主题。",
            "讨论了一周，结果老板拍板用 Kafka。",
        ] {
            assert!(!det.detect(text).is_empty(), "{text}");
        }
        for text in [
            "是用 A 还是用户决定用 B？",
            "最后还是新用户决定要不要注册。",
        ] {
            assert!(det.detect(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn round_12j_structural_rules() {
        let det = d();
        for text in [
            // A flow word that names an artifact's kind sets no scene.
            "Rewrote the onboarding email as plain text, as the user asked.",
            // "Release" heads a release-notes line only before a version.
            "- Release cadence: the user decided to ship every two weeks.",
            // A parenthesis that defines the subject as the user.
            "老板（也就是用户本人）已经拍板了。",
            // 暂时 is no time clause.
            "用户决定暂时保持原方案。",
        ] {
            assert!(!det.detect(text).is_empty(), "{text}");
        }
        for text in [
            "In the onboarding flow, the user chose the free plan.",
            "Release 2.4: the user decided to ship every two weeks.",
            // A parenthesis that makes the subject someone of the user's.
            "甲方（用户的客户）signed off on 交付物了。",
            "The owner (the user's landlord) approved the repairs.",
            // A note whose value is a yes/no field.
            "备注：用户同意：是/否 这一列在旧表里叫 agree_flag。",
            // A time clause (…时) before the main verb is a condition.
            "用户拒绝退款方案时保持原状态",
        ] {
            assert!(det.detect(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn spans_map_to_original() {
        let det = d();
        let text = "Ｔｈｅ ｕｓｅｒ de\u{200B}cided to ship. ok";
        let c = det.detect(text);
        assert_eq!(c.len(), 1);
        assert_eq!(
            &text[c[0].span.range()],
            "Ｔｈｅ ｕｓｅｒ de\u{200B}cided to ship."
        );
    }

    #[test]
    fn two_claims_own_their_spans() {
        let det = d();
        let text = "User decided X (\"a b c d\") and the user approved Y.";
        let c = det.detect(text);
        assert_eq!(c.len(), 2, "{c:?}");
        assert!(c[0].text.contains("a b c d"));
        assert!(c[1].text.starts_with("the user approved"));
    }

    #[test]
    fn blanking_keeps_offsets() {
        let t = "ab“cd”ef";
        let b = blank_spans(t, &[Span::new(2, 11)]);
        assert_eq!(b.len(), t.len());
    }
}

#[cfg(test)]
mod pack_tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// `data/patterns.pack` is the table of the grammar as it is now: every
    /// built-in source is packed, and nothing else. After a change to the
    /// grammar or the lexicon, `PALISADE_BLESS=1 cargo test -p
    /// palisade-provenance pattern_pack_is_current` writes it again.
    #[test]
    #[allow(clippy::disallowed_methods)] // a test that rewrites its data file when asked; never in the library
    fn pattern_pack_is_current() {
        let fresh = builtin_pack();
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/patterns.pack");
        if std::env::var_os("PALISADE_BLESS").is_some_and(|v| v == "1") {
            std::fs::write(path, &fresh).unwrap();
            return;
        }
        let shipped = include_bytes!("../../data/patterns.pack");
        assert!(
            shipped[..] == fresh[..],
            "data/patterns.pack is stale ({} bytes, the grammar gives {}): run \
             PALISADE_BLESS=1 cargo test -p palisade-provenance pattern_pack_is_current",
            shipped.len(),
            fresh.len()
        );
        let sources = builtin_sources();
        assert!(sources.len() > 20, "{} sources", sources.len());
        for s in &sources {
            let p = PACKS.pattern(s, OPTIONS);
            assert!(p.is_packed(), "{s} is not in the table");
            // The packed parse compiles to what the text compiles to.
            let plain = Pattern::lazy_with(s.as_str(), OPTIONS);
            for text in [
                "The user decided to use Postgres.",
                "用户决定用 A，不用 B",
                "",
            ] {
                let (a, b) = (
                    p.find(text).map(|m| m.range()),
                    plain.find(text).map(|m| m.range()),
                );
                assert_eq!(a, b, "{s} on {text:?}");
            }
        }
    }
}
