//! The provenance verdict: does every claim carry the user's own words?
//!
//! A claim passes when its own span holds a quote (`"…"`, `“…”`, `'…'` of two
//! or more words, `「…」`, `『…』`; backticks are code, not speech) that
//!
//! * appears verbatim in what the user typed (match form: NFKC, case,
//!   whitespace, straight/curly quotes and trailing punctuation — nothing
//!   else; no half words across `- _ . / '`), in this session (and the
//!   sessions it was compressed from) or, with [`SearchScope::Profile`], in
//!   any retained message — or in the stored text being edited;
//! * does not drop a negation: no negation cue within 12 words / 6 CJK
//!   characters before it in the user's sentence (unless the quote itself
//!   holds one), and a quote that starts with a negation does not back an
//!   approval-type claim that is not itself negated;
//! * was not asked as a question;
//! * shares at least two content tokens with the rest of the claim;
//! * if shorter than 4 words / 4 CJK characters, is the user's whole
//!   message among their last 3 in this session.
//!
//! ```
//! use palisade_provenance::gate::{Gate, GateConfig, Reason};
//! use palisade_provenance::said::SaidIndex;
//!
//! let gate = Gate::new(GateConfig::default());
//! let mut said = SaidIndex::new();
//! said.push("s1", None, "u1", "I decided we ship on Friday");
//!
//! let ok = gate.check(r#"User decided to ship on Friday ("I decided we ship on Friday")."#, &said, "s1", None);
//! assert!(ok.is_pass());
//! let bad = gate.check("User decided to ship on Friday.", &said, "s1", None);
//! assert_eq!(bad.reason, Some(Reason::NoQuote));
//! ```

use crate::detect::{blank_spans, Claim, ClaimDetector, Scope};
use crate::lexicon::ClaimClass;
use crate::said::{match_form, quote_form, SaidIndex, SearchScope};
use palisade_common::lazy::Lazy;
use palisade_common::negation::{
    contains_negation, is_negation_word, negation_before, starts_with_negation, ZH_NEGATIONS,
};
use palisade_common::normalize::normalize;
use palisade_common::quotes::{quoted_spans, Quoted};
use palisade_common::text::sentences;
use palisade_common::tokens::{is_cjk, shared_token_count, words};
use palisade_common::verdict::RuleKey;
use palisade_common::Span;
use regex::Regex;
use serde::Serialize;
use std::collections::HashSet;
use std::sync::OnceLock;

/// The guard name in rule keys (`provenance-gate:<reason>`), as the seed spells it.
pub const GUARD: &str = "provenance-gate";

/// More claims than this in one write are refused as a whole.
pub const MAX_CLAIMS: usize = 100;

/// Only the first this-many quoted spans of a sentence are looked up.
pub const MAX_QUOTES_PER_SENTENCE: usize = 32;

/// Why a claim (or a write) failed. Stable: these are rule keys.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Reason {
    /// The claim carries no quote.
    NoQuote,
    /// The quote is not in what the user typed.
    QuoteNotSaid,
    /// The quote shares fewer than two content tokens with the claim.
    QuoteUnrelated,
    /// The quote drops a negation the user put before it.
    QuoteNegated,
    /// The quote comes from a question the user asked.
    QuoteFromQuestion,
    /// A short quote that is not the user's whole recent message.
    ShortQuote,
    /// More than [`MAX_CLAIMS`] claims in one write.
    TooManyClaims,
    /// The write's arguments could not be read.
    UnreadableArguments,
    /// Something failed inside the check (used by hosts that catch panics).
    InternalError,
}

impl Reason {
    /// The stable spelling.
    ///
    /// ```
    /// use palisade_provenance::gate::Reason;
    /// assert_eq!(Reason::QuoteNotSaid.as_str(), "quote_not_said");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::NoQuote => "no_quote",
            Reason::QuoteNotSaid => "quote_not_said",
            Reason::QuoteUnrelated => "quote_unrelated",
            Reason::QuoteNegated => "quote_negated",
            Reason::QuoteFromQuestion => "quote_from_question",
            Reason::ShortQuote => "short_quote",
            Reason::TooManyClaims => "too_many_claims",
            Reason::UnreadableArguments => "unreadable_arguments",
            Reason::InternalError => "internal_error",
        }
    }

    /// The rule key `provenance-gate:<reason>`.
    ///
    /// ```
    /// use palisade_provenance::gate::Reason;
    /// assert_eq!(Reason::NoQuote.rule_key().to_string(), "provenance-gate:no_quote");
    /// ```
    pub fn rule_key(self) -> RuleKey {
        RuleKey::new(GUARD, self.as_str())
    }

    /// How specific a failure is; the most specific quote failure is reported.
    fn rank(self) -> u8 {
        match self {
            Reason::QuoteNegated => 6,
            Reason::QuoteFromQuestion => 5,
            Reason::QuoteUnrelated => 4,
            Reason::ShortQuote => 3,
            Reason::QuoteNotSaid => 2,
            _ => 1,
        }
    }
}

/// The outcome for a claim or a write.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Backed by the user's words (or nothing to back).
    Pass,
    /// Not backed; the mode decides whether that refuses or records.
    Block,
}

impl Outcome {
    /// `"pass"` or `"block"`.
    ///
    /// ```
    /// assert_eq!(palisade_provenance::gate::Outcome::Block.as_str(), "block");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Block => "block",
        }
    }
}

/// Where a passing quote was found.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash, Serialize)]
pub enum MatchedIn {
    /// This session (or one it was compressed from).
    #[serde(rename = "this-session")]
    ThisSession,
    /// Another session of the profile.
    #[serde(rename = "profile")]
    Profile,
    /// The stored text being edited.
    #[serde(rename = "stored-text")]
    StoredText,
}

/// Who the quote says decided (recorded, not judged).
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The user speaks for themself ("I decided …").
    #[serde(rename = "self")]
    SelfSaid,
    /// The user reports someone else ("Alice decided …").
    Relayed,
    /// Neither or both.
    Unknown,
}

/// Whether the quote carries a condition (recorded, not judged).
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Condition {
    /// No condition marker.
    None,
    /// A condition marker is present (only if, unless, as long as …).
    Unresolved,
    /// No quote to read.
    Unknown,
}

/// The verdict for one claim.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct ClaimVerdict {
    /// The claim.
    pub claim: Claim,
    /// Pass or block.
    pub outcome: Outcome,
    /// Why it blocked.
    pub reason: Option<Reason>,
    /// The quote that passed, or the best failing one.
    pub quote: Option<String>,
    /// Where the passing quote was found.
    pub matched_in: Option<MatchedIn>,
    /// Index of the matched message in the [`SaidIndex`].
    pub message: Option<usize>,
    /// Sender of the matched message.
    pub sender: Option<String>,
    /// Recorded role of the quote.
    pub role: Role,
    /// Recorded condition of the quote.
    pub condition: Condition,
}

/// The verdict for a whole write.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct Report {
    /// Block when any claim blocks.
    pub outcome: Outcome,
    /// The reason of the first blocking claim (or of the write).
    pub reason: Option<Reason>,
    /// Every claim checked.
    pub claims: Vec<ClaimVerdict>,
}

impl Report {
    /// Whether the write passes.
    ///
    /// ```
    /// use palisade_provenance::gate::Report;
    /// assert!(Report::pass().is_pass());
    /// ```
    pub fn is_pass(&self) -> bool {
        self.outcome == Outcome::Pass
    }

    /// A passing report with no claims.
    ///
    /// ```
    /// assert!(palisade_provenance::gate::Report::pass().claims.is_empty());
    /// ```
    pub fn pass() -> Report {
        Report {
            outcome: Outcome::Pass,
            reason: None,
            claims: Vec::new(),
        }
    }

    /// A blocking report for the whole write (unreadable arguments, internal error).
    ///
    /// ```
    /// use palisade_provenance::gate::{Reason, Report};
    /// assert!(!Report::refused(Reason::UnreadableArguments).is_pass());
    /// ```
    pub fn refused(reason: Reason) -> Report {
        Report {
            outcome: Outcome::Block,
            reason: Some(reason),
            claims: Vec::new(),
        }
    }

    /// Merge another report into this one (several texts of one write).
    ///
    /// ```
    /// use palisade_provenance::gate::{Reason, Report};
    /// let mut r = Report::pass();
    /// r.merge(Report::refused(Reason::NoQuote));
    /// assert_eq!(r.reason, Some(Reason::NoQuote));
    /// ```
    pub fn merge(&mut self, other: Report) {
        if self.outcome == Outcome::Pass && other.outcome == Outcome::Block {
            self.outcome = Outcome::Block;
            self.reason = other.reason;
        }
        self.claims.extend(other.claims);
    }
}

/// The stored text a write edits, prepared once for
/// [`Gate::check_prepared`]: its match form (a quote already in it counts as
/// evidence) and the match forms of its sentences (an unchanged sentence is
/// not re-checked). Preparing normalizes the whole text, which is the
/// costly part of a check against a large skill file; build it once per
/// stored version and reuse it (or keep a [`crate::replay::StoredCache`]).
///
/// ```
/// use palisade_provenance::gate::PreparedStored;
/// let p = PreparedStored::new("User decided X. Build is green.");
/// assert!(p.has_sentence("user  decided x."));
/// assert!(!p.has_sentence("User decided Y."));
/// ```
#[derive(Clone, Debug, Default, Eq, PartialEq)]
pub struct PreparedStored {
    form: String,
    sentences: HashSet<String>,
}

impl PreparedStored {
    /// Prepare `stored` (the text being edited, before the write).
    ///
    /// ```
    /// let p = palisade_provenance::gate::PreparedStored::new("");
    /// assert!(!p.has_sentence(""));
    /// ```
    pub fn new(stored: &str) -> PreparedStored {
        let n = normalize(stored);
        let sentences = sentences(n.as_str())
            .into_iter()
            .map(|sp| match_form(&n.as_str()[sp.range()]))
            .filter(|f| !f.is_empty())
            .collect();
        PreparedStored {
            form: match_form(stored),
            sentences,
        }
    }

    /// Whether `sentence` (any text; compared in match form) is one of the
    /// stored sentences.
    ///
    /// ```
    /// let p = palisade_provenance::gate::PreparedStored::new("Uses fish shell.");
    /// assert!(p.has_sentence("USES FISH SHELL."));
    /// ```
    pub fn has_sentence(&self, sentence: &str) -> bool {
        let f = match_form(sentence);
        !f.is_empty() && self.sentences.contains(&f)
    }
}

/// Gate settings.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub struct GateConfig {
    /// Which decisions need a quote.
    pub scope: Scope,
    /// Where quotes may come from.
    pub search: SearchScope,
}

/// The provenance gate: a claim detector plus the evidence rules.
#[derive(Clone, Debug)]
pub struct Gate {
    detector: ClaimDetector,
    config: GateConfig,
    rules: &'static EvidenceRules,
}

/// The fixed evidence patterns, shared by every gate of a process and
/// compiled the first time a claim needs them.
#[derive(Debug)]
struct EvidenceRules {
    relayed: Lazy<Regex>,
    self_said: Lazy<Regex>,
    condition: Lazy<Regex>,
}

impl EvidenceRules {
    fn builtin() -> &'static EvidenceRules {
        static RULES: OnceLock<EvidenceRules> = OnceLock::new();
        RULES.get_or_init(|| EvidenceRules {
            relayed: Lazy::new(
                r"(?i)\b(?P<who>[a-z][a-z]+|he|she|they|my (?:boss|manager|wife|husband|team|pm|lead|cto|ceo|partner)|the (?:pm|team|boss|manager|client|customer|board|lead))\s+(?:said|says|decided|wants|wanted|approved|asked|told|thinks|suggested|agreed|chose|picked|prefers|insisted)\b|(?:他|她|他们|老板|经理|领导|同事|客户|产品)(?:说|决定|要求|同意|认为|觉得)",
                build,
            ),
            self_said: Lazy::new(
                r"(?i)\b(?:i|we)\s+(?:'ve\s+|have\s+|had\s+|just\s+|already\s+|also\s+|really\s+|do\s+|don't\s+|do not\s+)?(?:decided|decide|agree|agreed|approve|approved|chose|choose|want|wanted|picked|pick|prefer|confirm|confirmed|say|said|reject|rejected|need|insist)\b|\blet's\b|\bi'd like\b|我(?:们)?(?:已经|也|就)?(?:决定|同意|要|想|选|确认|觉得|希望|不要|不想)",
                build,
            ),
            condition: Lazy::new(
                r"(?i)\b(?:only if|if|unless|as long as|provided|assuming|once|until|in case)\b|只要|除非|如果|前提是|假如|的话|只有",
                build,
            ),
        })
    }
}

impl Gate {
    /// Build the gate.
    ///
    /// ```
    /// use palisade_provenance::gate::{Gate, GateConfig};
    /// let _gate = Gate::new(GateConfig::default());
    /// ```
    pub fn new(config: GateConfig) -> Gate {
        Gate {
            detector: ClaimDetector::new(config.scope),
            config,
            rules: EvidenceRules::builtin(),
        }
    }

    /// The claim detector inside.
    ///
    /// ```
    /// use palisade_provenance::gate::{Gate, GateConfig};
    /// assert_eq!(Gate::new(GateConfig::default()).detector().detect("User chose X.").len(), 1);
    /// ```
    pub fn detector(&self) -> &ClaimDetector {
        &self.detector
    }

    /// The settings.
    ///
    /// ```
    /// use palisade_provenance::gate::{Gate, GateConfig};
    /// assert_eq!(Gate::new(GateConfig::default()).config(), GateConfig::default());
    /// ```
    pub fn config(&self) -> GateConfig {
        self.config
    }

    /// Check one text a write adds. `stored` is the text being edited before
    /// the write (for replayed patches): a sentence already in it is not
    /// re-checked, and a quote already in it counts (`stored-text`).
    ///
    /// This prepares `stored` on every call; a host that checks several
    /// writes against the same stored text prepares it once with
    /// [`PreparedStored::new`] and calls [`Gate::check_prepared`].
    pub fn check(
        &self,
        text: &str,
        said: &SaidIndex,
        session: &str,
        stored: Option<&str>,
    ) -> Report {
        let prepared = stored.map(PreparedStored::new);
        self.check_prepared(text, said, session, prepared.as_ref())
    }

    /// [`Gate::check`] against stored text prepared once.
    ///
    /// ```
    /// use palisade_provenance::gate::{Gate, GateConfig, PreparedStored};
    /// use palisade_provenance::said::SaidIndex;
    ///
    /// let gate = Gate::new(GateConfig::default());
    /// let stored = PreparedStored::new(r#"User decided to keep Jest ("we keep jest for the unit tests")."#);
    /// let new = r#"User decided to keep Jest for now ("we keep jest for the unit tests")."#;
    /// // The quote is already in the stored text: it counts.
    /// assert!(gate.check_prepared(new, &SaidIndex::new(), "s1", Some(&stored)).is_pass());
    /// ```
    pub fn check_prepared(
        &self,
        text: &str,
        said: &SaidIndex,
        session: &str,
        stored: Option<&PreparedStored>,
    ) -> Report {
        let norm = normalize(text);
        let ntext = norm.as_str();
        let stored_form = stored.map(|p| p.form.as_str());
        let empty = HashSet::new();
        let stored_sentences = stored.map_or(&empty, |p| &p.sentences);
        let mut verified: Vec<Span> = Vec::new();
        let (mut claims, mut truncated) =
            self.detector
                .detect_limited(text, &norm, &verified, MAX_CLAIMS + 1);
        if claims.is_empty() && !truncated {
            // No claim: no quote holds one and nothing is judged.
            return Report::pass();
        }
        let mut quotes: Vec<Quoted> = quoted_spans(ntext);
        quotes.retain(|q| q.kind.is_speech());
        // Quotes of the user's own words are not claims: blank them, re-detect.
        // Only a quote that holds a detected claim needs looking up, so the
        // look-ups are bounded by the claim limit, not by the number of quotes.
        let mut checked = vec![false; quotes.len()];
        for _round in 0..2 {
            let mut added = false;
            // Quotes are sorted by start: none past the last claim holds one.
            let last_anchor = claims.iter().map(|c| c.anchor.start).max().unwrap_or(0);
            for (i, q) in quotes.iter().enumerate() {
                if q.inner.start > last_anchor {
                    break;
                }
                if checked[i] || !holds_claim(&claims, q.inner) {
                    continue;
                }
                checked[i] = true;
                let f = quote_form(&ntext[q.inner.range()]);
                if !f.is_empty() && !said.find_form(&f, session, self.config.search).is_empty() {
                    verified.push(q.inner);
                    added = true;
                }
            }
            if !added {
                break;
            }
            (claims, truncated) =
                self.detector
                    .detect_limited(text, &norm, &verified, MAX_CLAIMS + 1);
        }
        if !stored_sentences.is_empty() {
            // A sentence already in the stored text, unchanged, is not re-checked.
            claims.retain(|c| !stored_sentences.contains(&match_form(&ntext[c.sentence.range()])));
        }
        // A detection that stopped at the candidate limit is refused even
        // when every candidate it read was exempt: what it did not read may
        // hold a claim (thousands of exempt lines must not hide one).
        if claims.is_empty() && !truncated {
            return Report::pass();
        }
        if claims.len() > MAX_CLAIMS || truncated {
            claims.truncate(MAX_CLAIMS);
            let verdicts = claims
                .into_iter()
                .map(|claim| ClaimVerdict {
                    claim,
                    outcome: Outcome::Block,
                    reason: Some(Reason::TooManyClaims),
                    quote: None,
                    matched_in: None,
                    message: None,
                    sender: None,
                    role: Role::Unknown,
                    condition: Condition::Unknown,
                })
                .collect();
            return Report {
                outcome: Outcome::Block,
                reason: Some(Reason::TooManyClaims),
                claims: verdicts,
            };
        }
        let mut report = Report::pass();
        for claim in claims {
            let v = self.check_claim(ntext, &quotes, claim, said, session, stored_form);
            if v.outcome == Outcome::Block && report.outcome == Outcome::Pass {
                report.outcome = Outcome::Block;
                report.reason = v.reason;
            }
            report.claims.push(v);
        }
        report
    }

    fn check_claim(
        &self,
        ntext: &str,
        quotes: &[Quoted],
        claim: Claim,
        said: &SaidIndex,
        session: &str,
        stored: Option<&str>,
    ) -> ClaimVerdict {
        let owned = claim.normalized_span;
        // Quotes are sorted by start: the sentence's are one run of them.
        let first = quotes.partition_point(|q| q.outer.start < claim.sentence.start);
        let sentence_quotes: Vec<&Quoted> = quotes[first..]
            .iter()
            .take_while(|q| q.outer.start < claim.sentence.end)
            .take(MAX_QUOTES_PER_SENTENCE)
            .collect();
        let mine: Vec<&Quoted> = sentence_quotes
            .into_iter()
            .filter(|q| {
                owned.start <= q.outer.start && q.outer.start < owned.end.max(owned.start + 1)
            })
            .collect();
        let mut best: Option<(Reason, String)> = None;
        for q in &mine {
            let quote = &ntext[q.inner.range()];
            let rest = blank_spans(&ntext[owned.range()], &[q.outer.minus(owned.start)]);
            match self.check_quote(quote, &rest, claim.class, said, session, stored) {
                Ok((matched_in, message)) => {
                    return ClaimVerdict {
                        role: self.role(quote),
                        condition: self.condition(quote),
                        outcome: Outcome::Pass,
                        reason: None,
                        quote: Some(quote.to_owned()),
                        matched_in: Some(matched_in),
                        sender: message.and_then(|m| said.sender(m)).map(str::to_owned),
                        message,
                        claim,
                    };
                }
                Err(reason) => {
                    if best.as_ref().is_none_or(|(b, _)| reason.rank() > b.rank()) {
                        best = Some((reason, quote.to_owned()));
                    }
                }
            }
        }
        let (reason, quote) = match best {
            Some((r, q)) => (r, Some(q)),
            None => (Reason::NoQuote, None),
        };
        ClaimVerdict {
            role: quote.as_deref().map_or(Role::Unknown, |q| self.role(q)),
            condition: quote
                .as_deref()
                .map_or(Condition::Unknown, |q| self.condition(q)),
            outcome: Outcome::Block,
            reason: Some(reason),
            quote,
            matched_in: None,
            message: None,
            sender: None,
            claim,
        }
    }

    /// One quote against the evidence rules.
    fn check_quote(
        &self,
        quote: &str,
        rest: &str,
        class: ClaimClass,
        said: &SaidIndex,
        session: &str,
        stored: Option<&str>,
    ) -> Result<(MatchedIn, Option<usize>), Reason> {
        let q = quote_form(quote);
        if q.is_empty() {
            return Err(Reason::QuoteNotSaid);
        }
        if is_short(&q) {
            for m in said.last_messages(session, 3) {
                if said.message_form(m).map(quote_form).as_deref() == Some(q.as_str()) {
                    return Ok((MatchedIn::ThisSession, Some(m)));
                }
            }
            return Err(Reason::ShortQuote);
        }
        if shared_token_count(quote, rest) < 2 {
            return Err(Reason::QuoteUnrelated);
        }
        if class == ClaimClass::Approval && opens_with_negation(&q) && !contains_negation(rest) {
            return Err(Reason::QuoteNegated);
        }
        let quote_negated = contains_negation(&q);
        let mut failure = Reason::QuoteNotSaid;
        for hit in said.find_form(&q, session, self.config.search) {
            let Some(form) = said.message_form(hit.message) else {
                continue;
            };
            match judge_hit(form, hit.start, hit.end, quote_negated) {
                Ok(()) => {
                    let place = if hit.this_session {
                        MatchedIn::ThisSession
                    } else {
                        MatchedIn::Profile
                    };
                    return Ok((place, Some(hit.message)));
                }
                Err(r) => {
                    if r.rank() > failure.rank() {
                        failure = r;
                    }
                }
            }
        }
        if let Some(st) = stored {
            let mut from = 0;
            while let Some(pos) = st[from..].find(q.as_str()) {
                let start = from + pos;
                let end = start + q.len();
                if crate::said::boundary_ok(st, start, end)
                    && judge_hit(st, start, end, quote_negated).is_ok()
                {
                    return Ok((MatchedIn::StoredText, None));
                }
                from = start + 1;
                while from < st.len() && !st.is_char_boundary(from) {
                    from += 1;
                }
                if from >= st.len() {
                    break;
                }
            }
        }
        Err(failure)
    }

    fn role(&self, quote: &str) -> Role {
        let relayed = self.rules.relayed.is_match(quote)
            && self.rules.relayed.captures_iter(quote).any(|c| {
                let who = c.name("who").map_or("", |m| m.as_str()).to_lowercase();
                !matches!(
                    who.as_str(),
                    "we" | "you"
                        | "i"
                        | "let"
                        | "and"
                        | "just"
                        | "also"
                        | "then"
                        | "now"
                        | "it"
                        | "that"
                        | "this"
                )
            });
        let own = self.rules.self_said.is_match(quote);
        match (relayed, own) {
            (true, false) => Role::Relayed,
            (false, true) => Role::SelfSaid,
            _ => Role::Unknown,
        }
    }

    fn condition(&self, quote: &str) -> Condition {
        if self.rules.condition.is_match(quote) {
            Condition::Unresolved
        } else {
            Condition::None
        }
    }
}

/// Whether a claim anchor lies inside `span`. Claims come in text order
/// (sorted by anchor start), so a binary search finds the candidates.
fn holds_claim(claims: &[Claim], span: Span) -> bool {
    let i = claims.partition_point(|c| c.anchor.start < span.start);
    claims[i..]
        .iter()
        .take_while(|c| c.anchor.start < span.end)
        .any(|c| span.contains(c.anchor))
}

/// Negation and question rules for one occurrence in the user's text.
fn judge_hit(form: &str, start: usize, end: usize, quote_negated: bool) -> Result<(), Reason> {
    // The user's sentence around the occurrence (bounded look-around).
    let lo = floor(form, start.saturating_sub(2000));
    // The sentence starts after the whole delimiter ("。" is three bytes).
    let sent_start = form[lo..start]
        .rfind(['.', '!', '?', ';', '。', '！', '？', '；', '\n'])
        .map_or(lo, |i| {
            let at = lo + i;
            at + form[at..].chars().next().map_or(1, char::len_utf8)
        });
    if !quote_negated {
        let sentence = &form[sent_start..end];
        if negation_before(sentence, start - sent_start, 12, 6).is_some() {
            return Err(Reason::QuoteNegated);
        }
    }
    let hi = floor(form, (end + 2000).min(form.len()));
    let tail = &form[end..hi];
    let stop = tail.find(['.', '!', '?', ';', '。', '！', '？', '；', '\n']);
    if let Some(i) = stop {
        if tail[i..].starts_with(['?', '？']) {
            return Err(Reason::QuoteFromQuestion);
        }
    }
    Ok(())
}

/// Whether the quote opens with a negation: a negation word among its first
/// four words ("Do not, …", "I don't want …", "we should not …") or a
/// Chinese cue among its first three characters (不要…, 我不想…, 别…).
fn opens_with_negation(q: &str) -> bool {
    if starts_with_negation(q) || words(q).take(4).any(|(_, w)| is_negation_word(w)) {
        return true;
    }
    let head: String = q.chars().filter(|c| is_cjk(*c)).take(3).collect();
    !head.is_empty() && ZH_NEGATIONS.iter().any(|cue| head.contains(cue))
}

/// Shorter than 4 words (Latin) and 4 CJK characters.
fn is_short(q: &str) -> bool {
    words(q).count() < 4 && q.chars().filter(|c| is_cjk(*c)).count() < 4
}

fn floor(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn build(p: &str) -> Regex {
    // Invariant: the fixed patterns above are compiled by the unit tests.
    #[allow(clippy::expect_used)] // invariant stated above
    // ASCII word boundaries keep the searches on the lazy DFA.
    Regex::new(&p.replace(r"\b", r"(?-u:\b)")).expect("built-in pattern compiles")
}

/// Span arithmetic used above.
trait Minus {
    fn minus(self, by: usize) -> Span;
}

impl Minus for Span {
    fn minus(self, by: usize) -> Span {
        Span::new(self.start.saturating_sub(by), self.end.saturating_sub(by))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said() -> SaidIndex {
        let mut s = SaidIndex::new();
        s.push("s1", None, "u1", "I decided we ship on Friday");
        s.push(
            "s1",
            None,
            "u1",
            "Never delete the prod database without asking me",
        );
        s.push(
            "s1",
            None,
            "u1",
            "Should we delete the staging database today?",
        );
        s.push("s1", None, "u1", "can you look at the logs for me");
        s.push(
            "s0",
            None,
            "u1",
            "we will use Postgres for the events store",
        );
        s.push("s1", None, "u1", "yes");
        s
    }

    fn reason(text: &str, search: SearchScope) -> Option<Reason> {
        let gate = Gate::new(GateConfig {
            search,
            ..GateConfig::default()
        });
        gate.check(text, &said(), "s1", None).reason
    }

    #[test]
    fn evidence_rules() {
        let s = SearchScope::Session;
        assert_eq!(
            reason(
                r#"User decided to ship on Friday ("I decided we ship on Friday")."#,
                s
            ),
            None
        );
        assert_eq!(
            reason("User decided to ship on Friday.", s),
            Some(Reason::NoQuote)
        );
        assert_eq!(
            reason(
                r#"User decided to ship on Monday ("I decided we ship on Monday")."#,
                s
            ),
            Some(Reason::QuoteNotSaid)
        );
        assert_eq!(
            reason(
                r#"The user approved deleting the prod database ("can you look at the logs for me")."#,
                s
            ),
            Some(Reason::QuoteUnrelated)
        );
        assert_eq!(
            reason(
                r#"The user approved deleting the prod database ("delete the prod database")."#,
                s
            ),
            Some(Reason::QuoteNegated)
        );
        assert_eq!(
            reason(
                r#"The user approved deleting the staging database ("delete the staging database today")."#,
                s
            ),
            Some(Reason::QuoteFromQuestion)
        );
        assert_eq!(
            reason(
                r#"The user chose Postgres for events ("we will use Postgres for the events store")."#,
                s
            ),
            Some(Reason::QuoteNotSaid)
        );
        assert_eq!(
            reason(
                r#"The user chose Postgres for events ("we will use Postgres for the events store")."#,
                SearchScope::Profile
            ),
            None
        );
        assert_eq!(reason(r#"The user approved the plan ("yes")."#, s), None);
        assert_eq!(
            reason(r#"The user approved the plan ("ok sure")."#, s),
            Some(Reason::ShortQuote)
        );
    }

    #[test]
    fn each_claim_needs_its_own_quote() {
        let r = reason(
            r#"User decided to ship on Friday ("I decided we ship on Friday") and the user approved a Monday freeze."#,
            SearchScope::Session,
        );
        assert_eq!(r, Some(Reason::NoQuote));
    }

    #[test]
    fn a_cjk_full_stop_before_the_quote_is_a_sentence_end() {
        // "。" is three bytes: the user's sentence starts after all of them
        // (this panicked once, in the said text and in the stored text).
        let gate = Gate::new(GateConfig::default());
        let text = "用户决定周五发布新版本（「周五发布新版本吧」）。";
        let mut s = SaidIndex::new();
        s.push("s1", None, "u", "好的。周五发布新版本吧");
        let report = gate.check(text, &s, "s1", None);
        assert!(report.is_pass(), "{report:?}");
        let stored = "备注。周五发布新版本吧";
        let report = gate.check(text, &SaidIndex::new(), "s1", Some(stored));
        assert!(report.is_pass(), "{report:?}");
        assert_eq!(report.claims[0].matched_in, Some(MatchedIn::StoredText));
        // The question rule still reads the user's own sentence.
        let mut s = SaidIndex::new();
        s.push("s1", None, "u", "好的。周五发布新版本吧？");
        let report = gate.check(text, &s, "s1", None);
        assert_eq!(report.reason, Some(Reason::QuoteFromQuestion));
    }

    #[test]
    fn exempt_candidates_past_the_limit_do_not_hide_a_claim() {
        // Every "user: approved" line is a candidate the key/value rule
        // exempts; past the candidate limit the rest of the write is unread,
        // so the write is refused, not passed.
        let gate = Gate::new(GateConfig::default());
        let padding = "user: approved\n".repeat(crate::detect::MAX_CANDIDATES + 10);
        let text = format!("{padding}User decided to delete the prod database.\n");
        let report = gate.check(&text, &said(), "s1", None);
        assert_eq!(report.reason, Some(Reason::TooManyClaims));
        assert!(!report.is_pass());
        // Below the limit the exempt lines are simply no claims.
        let padding = "user: approved\n".repeat(100);
        assert!(gate.check(&padding, &said(), "s1", None).is_pass());
        let text = format!("{padding}User decided to delete the prod database.\n");
        assert_eq!(
            gate.check(&text, &said(), "s1", None).reason,
            Some(Reason::NoQuote)
        );
    }

    #[test]
    fn quotes_around_a_claim_do_not_hide_its_own() {
        // Many quotes before and after the claim's sentence, and in it more
        // than the per-sentence cap after its own: the claim's quote is found.
        let gate = Gate::new(GateConfig::default());
        let before = "Notes \"alpha beta\" and \"gamma delta\". ".repeat(300);
        let after = " Also \"one two\" here.".repeat(300);
        let text = format!(
            "{before}User decided to ship on Friday (\"I decided we ship on Friday\"){}.{after}",
            " \"x y\"".repeat(40)
        );
        let report = gate.check(&text, &said(), "s1", None);
        assert!(report.is_pass(), "{:?}", report.reason);
        assert_eq!(report.claims.len(), 1);
        // Quotes only after the claim: no quote of its own.
        let text = format!("User decided to ship on Friday. {after}");
        assert_eq!(
            gate.check(&text, &said(), "s1", None).reason,
            Some(Reason::NoQuote)
        );
        // A verified quote after many unverified ones still hides its claim.
        let mut s = SaidIndex::new();
        s.push("s1", None, "u", "the user decided nothing, I did");
        let text = format!("{before}Note: \"the user decided nothing, I did\".");
        assert!(gate.check(&text, &s, "s1", None).is_pass());
    }

    #[test]
    fn quoted_user_words_are_not_claims() {
        let mut s = SaidIndex::new();
        s.push("s1", None, "u", "the user decided nothing, I did");
        let gate = Gate::new(GateConfig::default());
        assert!(gate
            .check(
                r#"Note: "the user decided nothing, I did"."#,
                &s,
                "s1",
                None
            )
            .is_pass());
        assert!(!gate
            .check(r#"Note: "the user decided to ship"."#, &s, "s1", None)
            .is_pass());
    }

    #[test]
    fn stored_text_counts() {
        let gate = Gate::new(GateConfig::default());
        let stored = r#"User decided to keep Jest ("we keep jest for the unit tests")."#;
        let new = r#"User decided to keep Jest for now ("we keep jest for the unit tests")."#;
        let r = gate.check(new, &SaidIndex::new(), "s9", Some(stored));
        assert!(r.is_pass(), "{r:?}");
        assert_eq!(r.claims[0].matched_in, Some(MatchedIn::StoredText));
        // An unchanged sentence is not re-checked at all.
        assert!(gate
            .check(
                "User decided X.",
                &SaidIndex::new(),
                "s",
                Some("User decided X.")
            )
            .claims
            .is_empty());
    }

    #[test]
    fn role_and_condition() {
        let gate = Gate::new(GateConfig::default());
        assert_eq!(gate.role("I decided we ship"), Role::SelfSaid);
        assert_eq!(
            gate.role("Alice decided we're using Postgres"),
            Role::Relayed
        );
        assert_eq!(gate.role("Alice suggested X and I agree"), Role::Unknown);
        assert_eq!(
            gate.condition("ship it only if CI is green"),
            Condition::Unresolved
        );
        assert_eq!(gate.condition("ship it"), Condition::None);
    }
}
