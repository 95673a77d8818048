//! Claim detection: which sentences of a write say the user made a decision.
//!
//! The detector works clause by clause on normalized text (NFKC, invisible
//! characters removed, Markdown emphasis ignored):
//!
//! 1. **Lines.** Code (fenced, indented by four spaces or a tab — but an
//!    indented list item is prose), table rows, key/value lines with an
//!    identifier key or a scalar value, QA/spec/ticket labels, data-dictionary
//!    lines and scripts are not prose and hold no claims.
//! 2. **Sentences and clauses.** Each logical line is split into sentences; a
//!    question is no claim. A contrast (`but`, `however`, 但是 …) starts a new
//!    clause, so "Usually we wait, but the user approved …" is a claim.
//! 3. **Grammar.** A claim is a *subject* (user, the user, owner, my human,
//!    a name marked as the user, `we` / the user and I, 用户, 主人, 老板,
//!    负责人, 我们) with optional parentheticals and adverbs, followed by a
//!    *decision predicate* from the lexicon (`data/claim_lexicon.json`); or
//!    a passive (`was approved by the user`); or a phrase (`per the user`,
//!    `as the user requested`, `the user's decision:`). A clause-initial
//!    first name is a subject too ("Dana picked FastAPI"), unless it is a
//!    group, company, product, system or the agent ("Legal approved",
//!    "Stripe declined", "Alice's team chose" has no bare name). A first
//!    verb in the past may share the subject with the decision verb ("the
//!    user reviewed the options and picked Postgres", 用户看了两个方案后选择了…).
//!    The rows of one table of subject forms (English and Chinese, user,
//!    we and named subjects) run in one clause loop.
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
//!    third parties and populations (repo owner, new users, 新用户, 仓库主人);
//!    field names ("the user approved column"); Chinese noun phrases and
//!    rules (用户确认码, 用户确认收货后，…, …才能注册).
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

use crate::lexicon::{self, ClaimClass, Rule, Slot};
use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::dfa::DFA;
use aho_corasick::Anchored;
use palisade_common::normalize::{normalize, Normalized};
use palisade_common::text::{line_content, logical_lines, sentences, starts_list_item};
use palisade_common::tokens::is_cjk;
use palisade_common::Span;
use regex::Regex;

/// At most this many candidate matches (subject + predicate, before the
/// not-claim rules) are examined in one text; a text with more is reported
/// as truncated, and the gate refuses it as `too_many_claims`.
pub const MAX_CANDIDATES: usize = 4096;

/// At most this many claims are examined in one sentence (the seed's bound).
pub const MAX_CLAIMS_PER_SENTENCE: usize = 101;

/// A first verb in the past tense and its object, joined by "and" to the
/// decision verb that shares its subject ("reviewed the options and picked").
const EN_LEAD: &str = r"(?:(?:[a-z]+ed|read|saw|took|thought|went|came|heard|met|spent|got|had|ran|spoke|sat|felt|left|kept|found|tried|slept on it)\b[^,.;:!?\n]{0,80}?\s+(?:and|then|and\s+then)(?:\s+(?:then|also|finally|eventually|ultimately|quickly|immediately|later))?)";

/// A Chinese first verb phrase in the past (了) before the decision verb
/// that shares its subject (用户看了两个方案后选择了…, 用户比较了…，最后决定…).
const ZH_LEAD: &str = r"(?:[^，。；！？,.;!?\n]{1,16}?[了完过][^，。；！？,.;!?\n]{0,16}?(?:之后|以后|后)?(?:[，,]\s*)?(?:最后|最终|然后|随后|还是|就|便)?)";

/// A clause-initial first name, after list markers and a short label.
const NAMED_SUBJECT_BODY: &str = r"(?:[\s>*+•\-]|\d{1,3}[.)]|\[[ xX]\])*(?:[A-Za-z]{2,12}:\s+)?(?:(?:yesterday|today|earlier|later|then|finally|eventually|ultimately|so|also|in the end|this morning|last week),?\s+)?(?P<subj>(?-i:[A-Z][a-z]{2,14}))";

/// The subject part of [`NAMED_SUBJECT_BODY`], anchored.
const NAMED_SUBJECT: &str = r"(?i)^(?:[\s>*+•\-]|\d{1,3}[.)]|\[[ xX]\])*(?:[A-Za-z]{2,12}:\s+)?(?:(?:yesterday|today|earlier|later|then|finally|eventually|ultimately|so|also|in the end|this morning|last week),?\s+)?(?-i:[A-Z][a-z]{2,14})";

/// Time words that may stand before a named subject.
const NAME_LEAD: &[&str] = &[
    "yesterday",
    "today",
    "earlier",
    "later",
    "then",
    "finally",
    "eventually",
    "ultimately",
    "so",
    "also",
];

/// Capitalised words that start a clause but name no person: groups,
/// roles, companies and products, the agent, pronouns and adverbs.
/// Sorted (binary search; a test keeps it so).
const NAME_STOP: &[&str] = &[
    "account",
    "admins",
    "after",
    "again",
    "agent",
    "all",
    "already",
    "also",
    "always",
    "amazon",
    "and",
    "android",
    "anthropic",
    "anybody",
    "anyone",
    "apache",
    "api",
    "app",
    "apple",
    "apt",
    "argo",
    "assistant",
    "atlassian",
    "audit",
    "auth",
    "azure",
    "babel",
    "background",
    "bash",
    "because",
    "before",
    "bitbucket",
    "board",
    "boss",
    "bot",
    "both",
    "brew",
    "browser",
    "budget",
    "bug",
    "build",
    "but",
    "cargo",
    "change",
    "chatgpt",
    "chrome",
    "ci",
    "claude",
    "client",
    "clients",
    "cloudflare",
    "code",
    "codex",
    "committee",
    "company",
    "compliance",
    "config",
    "context",
    "contract",
    "contractor",
    "contractors",
    "copilot",
    "corp",
    "council",
    "cron",
    "customer",
    "customers",
    "cypress",
    "data",
    "datadog",
    "db",
    "debian",
    "decision",
    "deploy",
    "design",
    "devops",
    "director",
    "discord",
    "docker",
    "draft",
    "dropbox",
    "each",
    "edge",
    "emacs",
    "engineering",
    "eslint",
    "estimate",
    "even",
    "eventually",
    "everybody",
    "everyone",
    "example",
    "excel",
    "feature",
    "figma",
    "files",
    "finally",
    "finance",
    "firefox",
    "fish",
    "fix",
    "gemini",
    "git",
    "github",
    "gitlab",
    "gmail",
    "goal",
    "google",
    "gpt",
    "grafana",
    "growth",
    "he",
    "helm",
    "her",
    "here",
    "hermes",
    "heroku",
    "his",
    "how",
    "hr",
    "human",
    "ibm",
    "if",
    "infra",
    "initially",
    "instead",
    "intel",
    "invoice",
    "issue",
    "it",
    "its",
    "jenkins",
    "jest",
    "jira",
    "just",
    "kafka",
    "kubernetes",
    "later",
    "lead",
    "leadership",
    "legal",
    "linux",
    "maintainer",
    "maintainers",
    "management",
    "manager",
    "many",
    "marketing",
    "maybe",
    "meta",
    "microsoft",
    "mock",
    "model",
    "mongo",
    "most",
    "mozilla",
    "my",
    "mysql",
    "netlify",
    "never",
    "nginx",
    "nobody",
    "node",
    "nor",
    "not",
    "note",
    "notion",
    "now",
    "npm",
    "nvidia",
    "offer",
    "often",
    "okta",
    "once",
    "one",
    "only",
    "openai",
    "ops",
    "or",
    "oracle",
    "order",
    "originally",
    "our",
    "outcome",
    "outlook",
    "owner",
    "owners",
    "partner",
    "partners",
    "patch",
    "payment",
    "paypal",
    "people",
    "perhaps",
    "persona",
    "pip",
    "plan",
    "platform",
    "playwright",
    "please",
    "policy",
    "postgres",
    "prettier",
    "previously",
    "procurement",
    "product",
    "prometheus",
    "proposal",
    "pytest",
    "python",
    "quote",
    "react",
    "recently",
    "recruiting",
    "redis",
    "refund",
    "release",
    "reminder",
    "renovate",
    "request",
    "research",
    "result",
    "review",
    "reviewers",
    "rows",
    "rust",
    "safari",
    "sales",
    "sample",
    "scenario",
    "schema",
    "security",
    "sentry",
    "server",
    "she",
    "shopify",
    "since",
    "slack",
    "snyk",
    "so",
    "some",
    "somebody",
    "someone",
    "sometimes",
    "soon",
    "spec",
    "sqlite",
    "sso",
    "staff",
    "status",
    "still",
    "story",
    "stripe",
    "summary",
    "support",
    "system",
    "task",
    "team",
    "teams",
    "telegram",
    "terraform",
    "test",
    "tests",
    "that",
    "the",
    "their",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "ticket",
    "today",
    "tonight",
    "twilio",
    "ubuntu",
    "ultimately",
    "unless",
    "until",
    "update",
    "upstream",
    "user",
    "users",
    "usually",
    "vault",
    "vendor",
    "vendors",
    "vercel",
    "version",
    "vim",
    "vite",
    "we",
    "webpack",
    "wechat",
    "what",
    "whatsapp",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whoever",
    "why",
    "windows",
    "yesterday",
    "yet",
    "you",
    "your",
    "zoom",
    "zsh",
];

/// How much of a long line the unanchored line rules read (bytes).
const LINE_HEAD: usize = 8192;

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
#[derive(Clone, Debug)]
pub struct ClaimDetector {
    scope: Scope,
    rules: Vec<(String, Slot, ClaimClass, Regex)>,
    /// The subject + predicate forms of every language, run in order.
    forms: Vec<SubjectForm>,
    en_passive: Regex,
    en_phrase: Regex,
    en_neg: Regex,
    en_passive_verb: Regex,
    cues: Cues,
    fixed: Fixed,
}

/// The language of a subject form: which subject, prefix and after rules apply.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
enum Lang {
    /// English: the determiner/previous-word subject rule and the English prefix rules.
    En,
    /// Chinese: third parties, populations and conditions before the subject.
    Zh,
}

/// The subject rule of a form.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
enum SubjectRule {
    /// The user named as such (user, the owner, Dana (the user), 用户).
    User,
    /// We / the user and I / 我们: only a clause start or a function word before it.
    We,
    /// A bare first name at the start of a clause ("Dana picked FastAPI"):
    /// not a group, company, product or the agent ([`NAME_STOP`]).
    Named,
}

/// One subject + predicate form of one language: a row of the table the
/// clause loop runs ("user decided", "we agreed", 用户决定, 我们商定).
#[derive(Clone, Debug)]
struct SubjectForm {
    lang: Lang,
    /// Which subject rule applies.
    subject_rule: SubjectRule,
    /// Trigger kinds of which one must be in the clause.
    needs: u8,
    /// Predicate cue groups of which one must be in the clause.
    cue: u16,
    /// The whole form; finds match spans only (DFA speed).
    find: Regex,
    /// The subject at the start of a match.
    subject: Regex,
    /// End-anchored predicate regexes in priority order, with class and slot.
    preds: Vec<(ClaimClass, Slot, Regex)>,
}

/// The first predicate whose end-anchored regex matches `mt`: its class,
/// slot and the byte offset where the predicate starts.
fn classify(preds: &[(ClaimClass, Slot, Regex)], mt: &str) -> Option<(ClaimClass, Slot, usize)> {
    preds
        .iter()
        .find_map(|(class, slot, re)| re.find(mt).map(|m| (*class, *slot, m.start())))
}

/// Predicate cue groups: which forms a cue literal can start.
const CUE_EN_MAIN: u16 = 1;
const CUE_EN_PREF: u16 = 2;
const CUE_EN_WE: u16 = 4;
const CUE_EN_PASSIVE: u16 = 8;
const CUE_EN_PHRASE: u16 = 16;
const CUE_ZH_MAIN: u16 = 32;
const CUE_ZH_PREF: u16 = 64;
const CUE_ZH_WE: u16 = 128;
const CUE_ALL: u16 = 255;

/// Subject triggers and predicate cues, found in one Aho-Corasick pass.
///
/// The cues are the literal prefixes of every predicate slot of the
/// lexicon, extracted from the patterns themselves (so they cannot drift
/// from the rules). A form runs its regex on a clause only when one of its
/// triggers and one of its cues are in it: a predicate match starts with one
/// of its slot's prefixes, so the skip never loses a claim.
#[derive(Clone, Debug)]
struct Cues {
    /// The DFA of triggers, contrast words and cues, walked byte by byte
    /// (no prefilter: in claim-dense text it would stop every few bytes).
    ac: Option<DFA>,
    /// The patterns of `ac`, for the tests' reference search.
    #[cfg(test)]
    literals: Vec<Vec<u8>>,
    /// The cue groups of each literal.
    masks: Vec<u16>,
    /// Groups whose prefixes could not be extracted: always searched.
    always: u16,
}

impl Cues {
    fn new(groups: &[(u16, Option<String>)]) -> Cues {
        let mut literals: Vec<Vec<u8>> = TRIGGER_WORDS
            .iter()
            .chain(CONTRAST_WORDS)
            .map(|w| w.as_bytes().to_vec())
            .collect();
        // Trigger and contrast patterns carry no cue group.
        let mut masks: Vec<u16> = vec![0; literals.len()];
        let mut always = 0u16;
        for (group, pattern) in groups {
            // An empty slot matches nothing and needs no cue.
            let Some(pattern) = pattern else { continue };
            match prefix_literals(pattern) {
                Some(lits) => {
                    for lit in lits {
                        match literals
                            .iter()
                            .skip(CUES_FROM)
                            .position(|l| *l == lit)
                            .map(|i| i + CUES_FROM)
                        {
                            Some(i) => masks[i] |= group,
                            None => {
                                literals.push(lit);
                                masks.push(*group);
                            }
                        }
                    }
                }
                None => always |= group,
            }
        }
        // A literal that contains another literal of the same groups adds
        // nothing to the prefilter ("has decided" holds "decided").
        let n = CUES_FROM;
        let redundant: Vec<bool> = (0..literals.len())
            .map(|i| {
                i >= n
                    && (n..literals.len()).any(|j| {
                        j != i
                            && literals[j].len() < literals[i].len()
                            && masks[j] & masks[i] == masks[i]
                            && literals[i]
                                .windows(literals[j].len())
                                .any(|w| w == literals[j].as_slice())
                    })
            })
            .collect();
        let mut keep = redundant.iter().map(|r| !r);
        literals.retain(|_| keep.next().unwrap_or(true));
        let mut keep = redundant.iter().map(|r| !r);
        masks.retain(|_| keep.next().unwrap_or(true));
        let ac = DFA::builder()
            .ascii_case_insensitive(true)
            .prefilter(false)
            .build(&literals)
            .ok();
        if ac.is_none() {
            always = CUE_ALL;
        }
        Cues {
            ac,
            masks,
            always,
            #[cfg(test)]
            literals,
        }
    }

    /// Every whole-word subject trigger (position, kind), every cue
    /// (position, groups) and every contrast word (position, (end, rank))
    /// of `text`: the whole walk at once (the tests' view of it).
    #[cfg(test)]
    fn scan(&self, text: &str) -> Scan {
        let mut walk = Walk::new(self, text);
        walk.finish();
        walk.scan
    }
}

/// The walk of the [`Cues`] automaton over one text, run only as far as the
/// detection reads it: a write whose claims hit the limit early is not
/// scanned to its end.
///
/// Triggers and cues are recorded where they end, as an overlapping search
/// reports them; a list read up to some entry is the same as the full
/// list's prefix. Contrast words are kept sorted by start and rank (an
/// overlapping search reports "但" before "但是" at the same start; the
/// regex the contrasts replace prefers the earlier alternative).
struct Walk<'a> {
    cues: &'a Cues,
    text: &'a str,
    /// The automaton and its state, `None` once the text is done.
    state: Option<(&'a DFA, StateID)>,
    /// Bytes walked.
    at: usize,
    /// The longest pattern (a match that starts before `p` ends before
    /// `p + max_len`).
    max_len: usize,
    scan: Scan,
}

impl<'a> Walk<'a> {
    fn new(cues: &'a Cues, text: &'a str) -> Walk<'a> {
        let mut walk = Walk {
            cues,
            text,
            state: None,
            at: 0,
            max_len: 0,
            scan: Scan::default(),
        };
        let start = cues
            .ac
            .as_ref()
            .and_then(|ac| Some((ac, ac.start_state(Anchored::No).ok()?)));
        match start {
            Some((ac, sid)) => {
                walk.state = Some((ac, sid));
                walk.max_len = ac.max_pattern_len();
                if ac.is_match(sid) {
                    walk.record(ac, sid, 0);
                }
            }
            None => {
                // No automaton (never in a tested build): every clause runs
                // every form (see `always`); the contrast words are found
                // one by one.
                let lower = text.to_ascii_lowercase();
                for (rank, word) in CONTRAST_WORDS.iter().enumerate() {
                    let rank = u8::try_from(rank).unwrap_or(u8::MAX);
                    // No contrast word overlaps itself, so non-overlapping
                    // occurrences are all occurrences.
                    for (at, _) in lower.match_indices(word) {
                        walk.scan.contrasts.push((at, (at + word.len(), rank)));
                    }
                }
                walk.scan
                    .contrasts
                    .sort_by_key(|&(start, (_, rank))| (start, rank));
                walk.at = text.len();
            }
        }
        walk
    }

    /// Record every pattern that ends at `end` in state `sid`, in the
    /// automaton's order (as `find_overlapping_iter` reports them).
    fn record(&mut self, ac: &DFA, sid: StateID, end: usize) {
        let text = self.text;
        for i in 0..ac.match_len(sid) {
            let pid = ac.match_pattern(sid, i);
            let id = pid.as_usize();
            let start = end.saturating_sub(ac.pattern_len(pid));
            if id < TRIGGER_WORDS.len() {
                if whole_word_trigger(text, start, end) {
                    self.scan.triggers.push((start, trigger_kind(id)));
                }
            } else if id < CUES_FROM {
                // The rank is the word's place in the contrast alternation.
                let rank = u8::try_from(id - TRIGGER_WORDS.len()).unwrap_or(u8::MAX);
                let list = &mut self.scan.contrasts;
                // Entries out of order by start end within `max_len` bytes,
                // so the insertion point is a few entries back at most.
                let at = list
                    .iter()
                    .rposition(|&(s, (_, r))| (s, r) <= (start, rank))
                    .map_or(0, |k| k + 1);
                list.insert(at, (start, (end, rank)));
            } else {
                let mask = self.cues.masks.get(id).copied().unwrap_or(CUE_ALL);
                self.scan.cues.push((start, mask));
            }
        }
    }

    /// Walk up to byte `limit` or the next match state, whichever is first;
    /// false when the text is done.
    fn step(&mut self, limit: usize) -> bool {
        let Some((ac, mut sid)) = self.state else {
            return false;
        };
        let bytes = self.text.as_bytes();
        let limit = limit.min(bytes.len());
        // The position lives in a local in the hot loop (one store per stop).
        let mut at = self.at;
        while at < limit {
            sid = ac.next_state(Anchored::No, sid, bytes[at]);
            at += 1;
            if ac.is_special(sid) {
                self.at = at;
                if ac.is_dead(sid) {
                    self.state = None;
                    return false;
                }
                if ac.is_match(sid) {
                    self.state = Some((ac, sid));
                    self.record(ac, sid, at);
                    return true;
                }
            }
        }
        self.at = at;
        self.state = (at < bytes.len()).then_some((ac, sid));
        self.state.is_some()
    }

    /// How far to walk so that every match that starts before `pos` is
    /// recorded (it ends before `pos + max_len`).
    fn bound(&self, pos: usize) -> usize {
        pos.saturating_add(self.max_len).saturating_sub(1)
    }

    /// Walk until every match that starts before `pos` is recorded.
    fn ensure(&mut self, pos: usize) {
        let limit = self.bound(pos);
        while self.at < limit.min(self.text.len()) && self.step(limit) {}
    }

    /// Walk to the end of the text.
    fn finish(&mut self) {
        while self.step(usize::MAX) {}
    }

    /// Entry `i` of one of the scan's lists (`pick`), walking further as
    /// needed but not past `limit`: `None` means no entry `i` starts before
    /// the position `limit` was [bound](Walk::bound) for.
    fn entry<T: Copy>(
        &mut self,
        pick: fn(&Scan) -> &[(usize, T)],
        i: usize,
        limit: usize,
    ) -> Option<(usize, T)> {
        loop {
            if let Some(&e) = pick(&self.scan).get(i) {
                return Some(e);
            }
            if self.at >= limit || !self.step(limit) {
                return None;
            }
        }
    }

    /// Entry `i` of the trigger list, as [`Walk::entry`].
    fn trigger(&mut self, i: usize, limit: usize) -> Option<(usize, u8)> {
        self.entry(|s| s.triggers.as_slice(), i, limit)
    }

    /// Entry `i` of the cue list, as [`Walk::entry`].
    fn cue(&mut self, i: usize, limit: usize) -> Option<(usize, u16)> {
        self.entry(|s| s.cues.as_slice(), i, limit)
    }

    /// Move `cursor` in the list `pick` to the first entry at or after
    /// `span.start` (or to where it would be, when none starts in `span`);
    /// returns the walk limit for reads in `span`.
    fn seek<T: Copy>(
        &mut self,
        pick: fn(&Scan) -> &[(usize, T)],
        cursor: &mut usize,
        span: Span,
    ) -> usize {
        let limit = self.bound(span.end);
        if *cursor > 0
            && pick(&self.scan)
                .get(*cursor - 1)
                .is_some_and(|e| e.0 >= span.start)
        {
            // Backwards: search the whole list, as a full scan would.
            self.finish();
            *cursor = pick(&self.scan).partition_point(|e| e.0 < span.start);
        }
        while self
            .entry(pick, *cursor, limit)
            .is_some_and(|e| e.0 < span.start)
        {
            *cursor += 1;
        }
        limit
    }
}

/// What a [`Walk`] found.
#[derive(Default)]
struct Scan {
    triggers: Vec<(usize, u8)>,
    cues: Vec<(usize, u16)>,
    /// Contrast word candidates: (start, (end, rank in [`CONTRAST_WORDS`])),
    /// before the boundary rules (see [`Marks::contrast_matches`]).
    contrasts: Vec<(usize, (usize, u8))>,
}

/// The literal prefixes every match of `pattern` starts with (ASCII
/// lower-cased), or `None` when there is no finite, non-empty set.
fn prefix_literals(pattern: &str) -> Option<Vec<Vec<u8>>> {
    use regex_syntax::hir::literal::{ExtractKind, Extractor};
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .ok()?;
    let mut ex = Extractor::new();
    ex.kind(ExtractKind::Prefix)
        .limit_class(4)
        .limit_repeat(4)
        .limit_literal_len(12)
        .limit_total(4000);
    let seq = ex.extract(&hir);
    let lits = seq.literals()?;
    if lits.is_empty() || lits.iter().any(|l| l.as_bytes().is_empty()) {
        return None;
    }
    Some(
        lits.iter()
            .map(|l| l.as_bytes().to_ascii_lowercase())
            .collect(),
    )
}

/// Bounds on the work of one detection.
struct Budget {
    claims_left: usize,
    candidates_left: usize,
    truncated: bool,
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

const KIND_EN: u8 = 1;
const KIND_EN_WE: u8 = 2;
const KIND_ZH: u8 = 4;
const KIND_ZH_WE: u8 = 8;
/// A clause that starts with a capitalised word (a possible named subject).
const KIND_NAME: u8 = 16;

/// The kind of trigger pattern `id` (see [`build_triggers`]).
fn trigger_kind(id: usize) -> u8 {
    match id {
        0..=1 | 3 => KIND_EN,
        2 => KIND_EN_WE,
        4..=10 => KIND_ZH,
        _ => KIND_ZH_WE,
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

/// A `key: value` line as the key/value rule reads it: the trimmed key,
/// the separator and the trimmed value, or `None` when the value runs onto
/// another line. The separator is the last character of the match and the
/// key the (trimmed) rest, so a plain search does what a capture pass did.
fn split_key_value<'t>(key_value: &Regex, body: &'t str) -> Option<(&'t str, &'t str, &'t str)> {
    let m = key_value.find(body)?;
    let value = &body[m.end()..];
    let head = m.as_str();
    let sep_len = head.chars().next_back()?.len_utf8();
    let (key, sep) = head.split_at(head.len() - sep_len);
    (!value.contains('\n')).then(|| (key.trim(), sep, value.trim()))
}

/// Whether an ASCII trigger is a whole word (`we` in `were` or `user` in
/// `users` is not); CJK triggers always count.
fn whole_word_trigger(text: &str, start: usize, end: usize) -> bool {
    if !text.as_bytes()[start].is_ascii() {
        return true;
    }
    let before = text[..start].chars().next_back();
    let after = text[end..].chars().next();
    !before.is_some_and(|c| c.is_ascii_alphanumeric())
        && !after.is_some_and(|c| c.is_ascii_alphanumeric())
}

/// The hand-written regexes of the not-claim rules.
#[derive(Clone, Debug)]
struct Fixed {
    label: Regex,
    ticket: Regex,
    key_value: Regex,
    ident_key: Regex,
    decision_word: Regex,
    scalar: Regex,
    script_zh: Regex,
    code_like: Regex,
    cond_any: Regex,
    cond_near: Regex,
    fact_time: Regex,
    zh_after_fact: Regex,
    zh_future: Regex,
    generic: Regex,
    reported: Regex,
    question_aux: Regex,
    field_after: Regex,
    pending_object: Regex,
    want_know: Regex,
    noun_after_user: Regex,
    asked_for_help: Regex,
    tag_question: Regex,
    aux_before: Regex,
    zh_prefix_block: Regex,
    zh_noun_after: Regex,
    zh_cond_after: Regex,
    zh_de_noun: Regex,
    zh_kv_key: Regex,
}

/// The subject triggers, predicate cues and contrast words of a text,
/// read span by span from a [`Walk`] that goes only as far as the reads.
///
/// Lines, sentences and clauses are visited in text order, so each list
/// is read through a cursor that only moves forward (a span that starts
/// before the cursor falls back to a binary search over the whole list):
/// the marks cost time linear in their number, not a search per span.
struct Marks<'a> {
    walk: Walk<'a>,
    always: u16,
    trigger_at: usize,
    cue_at: usize,
    contrast_at: usize,
}

impl<'a> Marks<'a> {
    fn new(cues: &'a Cues, text: &'a str) -> Marks<'a> {
        Marks {
            walk: Walk::new(cues, text),
            always: cues.always,
            trigger_at: 0,
            cue_at: 0,
            contrast_at: 0,
        }
    }

    /// Move the trigger cursor to the first entry at or after `span.start`
    /// (or to where it would be, when none starts in `span`); the walk
    /// limit for reads in `span`.
    fn seek_trigger(&mut self, span: Span) -> usize {
        self.walk
            .seek(|s| s.triggers.as_slice(), &mut self.trigger_at, span)
    }

    /// Move the cue cursor as [`Marks::seek_trigger`] does.
    fn seek_cue(&mut self, span: Span) -> usize {
        self.walk
            .seek(|s| s.cues.as_slice(), &mut self.cue_at, span)
    }

    /// Whether a trigger falls inside `span`.
    fn has_trigger(&mut self, span: Span) -> bool {
        let limit = self.seek_trigger(span);
        self.walk
            .trigger(self.trigger_at, limit)
            .is_some_and(|t| t.0 < span.end)
    }

    /// The kinds of triggers inside `span`.
    fn kinds(&mut self, span: Span) -> u8 {
        let limit = self.seek_trigger(span);
        let mut mask = 0u8;
        let mut i = self.trigger_at;
        while let Some(t) = self.walk.trigger(i, limit).filter(|t| t.0 < span.end) {
            mask |= t.1;
            if mask == KIND_EN | KIND_EN_WE | KIND_ZH | KIND_ZH_WE {
                break;
            }
            i += 1;
        }
        mask
    }

    /// Whether a cue falls inside `span` (every cue has a group, so this
    /// is `cues(span) != 0`, without reading past the first cue).
    fn has_cue(&mut self, span: Span) -> bool {
        if self.always != 0 {
            return true;
        }
        let limit = self.seek_cue(span);
        self.walk
            .cue(self.cue_at, limit)
            .is_some_and(|c| c.0 < span.end)
    }

    /// The cue groups inside `span`.
    fn cues(&mut self, span: Span) -> u16 {
        let limit = self.seek_cue(span);
        let mut mask = self.always;
        let mut i = self.cue_at;
        while let Some(c) = self.walk.cue(i, limit).filter(|c| c.0 < span.end) {
            mask |= c.1;
            if mask == CUE_ALL {
                break;
            }
            i += 1;
        }
        mask
    }

    /// Move the contrast cursor to the first entry at or after `start`, the
    /// start of a span whose contrasts [`Marks::next_contrast`] reads next.
    fn seek_contrast(&mut self, start: usize) {
        self.walk.ensure(start);
        let list = &self.walk.scan.contrasts;
        if self.contrast_at > 0 && list.get(self.contrast_at - 1).is_some_and(|e| e.0 >= start) {
            // Backwards: search the whole list, as a full scan would.
            self.walk.finish();
            self.contrast_at = self.walk.scan.contrasts.partition_point(|e| e.0 < start);
        }
        let list = &self.walk.scan.contrasts;
        while list.get(self.contrast_at).is_some_and(|e| e.0 < start) {
            self.contrast_at += 1;
        }
    }

    /// The first recorded contrast candidate that is a match in
    /// `text[span]` starting at or after `next` (absolute): (start, end).
    fn first_contrast(&self, text: &str, span: Span, next: usize) -> Option<(usize, usize)> {
        let bytes = text.as_bytes();
        for &(start, (end, rank)) in self.walk.scan.contrasts[self.contrast_at..]
            .iter()
            .take_while(|c| c.0 < span.end)
        {
            if start < next || end > span.end {
                continue;
            }
            if usize::from(rank) >= CONTRAST_EN {
                return Some((start, end));
            }
            // An English word starts at a word boundary (the slice start
            // is one) and needs whitespace after it, all of which the
            // match takes (`end` follows an ASCII letter: a char boundary).
            if start > span.start && is_word_byte(bytes[start - 1]) {
                continue;
            }
            let rest = &text[end..span.end];
            let ws = rest.len() - rest.trim_start_matches(char::is_whitespace).len();
            if ws > 0 {
                return Some((start, end + ws));
            }
        }
        None
    }

    /// The next contrast match in `text[span]` at or after byte `*next`
    /// (absolute; start it at `span.start` after [`Marks::seek_contrast`]),
    /// relative to `span.start`, exactly as the regex `(?i)\b(?:but|however|
    /// yet|although|though|whereas|except that)\s+|(?:但是|但|不过|然而|可是)`
    /// (ASCII `\b`) finds it in that slice with `find_iter` — leftmost
    /// first, the earlier alternative at one start, non-overlapping. `*next`
    /// moves past the match. The walk goes only as far as the match needs:
    /// a candidate is final once every candidate that starts at or before
    /// it is recorded (and sorted in).
    fn next_contrast(
        &mut self,
        text: &str,
        span: Span,
        next: &mut usize,
    ) -> Option<(usize, usize)> {
        let len = text.len();
        loop {
            match self.first_contrast(text, span, *next) {
                Some((start, end)) => {
                    if self.walk.state.is_none()
                        || self.walk.at >= self.walk.bound(start + 1).min(len)
                    {
                        *next = end;
                        let list = &self.walk.scan.contrasts;
                        while list.get(self.contrast_at).is_some_and(|e| e.0 < end) {
                            self.contrast_at += 1;
                        }
                        return Some((start - span.start, end - span.start));
                    }
                    self.walk.ensure(start + 1);
                }
                None => {
                    let limit = self.walk.bound(span.end);
                    if self.walk.state.is_none() || self.walk.at >= limit.min(len) {
                        return None;
                    }
                    // Walk on to the next recorded contrast or the span's end.
                    let before = self.walk.scan.contrasts.len();
                    while self.walk.scan.contrasts.len() == before
                        && self.walk.at < limit.min(len)
                        && self.walk.step(limit)
                    {}
                }
            }
        }
    }

    /// Every contrast match in `text[span]`, relative to `span.start` (see
    /// [`Marks::next_contrast`]).
    #[cfg(test)]
    fn contrast_matches(&mut self, text: &str, span: Span, out: &mut Vec<(usize, usize)>) {
        self.seek_contrast(span.start);
        let mut next = span.start;
        while let Some(m) = self.next_contrast(text, span, &mut next) {
            out.push(m);
        }
    }
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
    /// Build the detector with the built-in lexicon.
    ///
    /// ```
    /// use palisade_provenance::detect::{ClaimDetector, Scope};
    /// let d = ClaimDetector::new(Scope::DecisionsAndPreferences);
    /// assert_eq!(d.detect("User prefers tabs.").len(), 1);
    /// assert!(ClaimDetector::new(Scope::Decisions).detect("User prefers tabs.").is_empty());
    /// ```
    pub fn new(scope: Scope) -> ClaimDetector {
        let rules = lexicon::builtin_rules();
        let alt = |slot, class| lexicon::alternation(&rules, slot, class).unwrap_or_else(never);
        let en_subject = r"(?:\b(?-i:[A-Z][a-z]+)\s*\(\s*(?:the\s+|my\s+)?(?:user|owner)\s*\)|\b(?-i:[A-Z][a-z]+),\s+(?:the|my|our)\s+(?:user|owner),|\b(?:(?:the|my|our)\s+)?(?:user|owner)\b|\bmy\s+human\b)";
        let en_adverbs = r"(?:already|explicitly|really|actually|definitely|finally|clearly|just|also|then|now|today|yesterday|tonight|earlier|recently|eventually|ultimately|personally|firmly|formally|officially|originally|initially|previously|specifically|expressly|repeatedly|again|kindly|happily|reluctantly|verbally|quickly|immediately|since|herself|himself|themselves|has|have|had|both|this morning|last week|in chat|once again)";
        let en_main = format!(
            r"(?i)(?P<subj>{en_subject})(?:\s*:)?(?:\s*\([^()\n]{{1,40}}\))?(?:\s*,\s*[^,\n]{{1,40}}?,)?(?:\s*[—–]\s*[^—–\n]{{1,40}}?\s*[—–]|\s+--?\s+[^\n]{{1,40}}?\s+--?)?(?:\s+(?-i:[A-Z][a-z]+))?(?:\s+{en_adverbs})*(?:\s+{EN_LEAD})??(?P<neg>\s+(?:(?:does|did|do)\s*(?:n't|not)|never|no\s+longer))?\s*(?:(?P<appr>{})|(?P<rej>{})|(?P<instr>{})|(?P<pref>{}))\b",
            alt(Slot::EnPred, Some(ClaimClass::Approval)),
            alt(Slot::EnPred, Some(ClaimClass::Rejection)),
            alt(Slot::EnPredNeg, None),
            alt(Slot::EnPref, None),
        );
        let en_named = format!(
            r"(?i)^{NAMED_SUBJECT_BODY}(?:\s+{en_adverbs})*(?:\s+{EN_LEAD})??\s+(?:(?P<appr>{})|(?P<rej>{})|(?P<instr>{}))\b",
            alt(Slot::EnPred, Some(ClaimClass::Approval)),
            alt(Slot::EnPred, Some(ClaimClass::Rejection)),
            alt(Slot::EnPredNeg, None),
        );
        let en_we = format!(
            r"(?i)(?P<subj>\bwe\b|\b(?:the\s+)?(?:user|owner)\s+and\s+i\b|\bi\s+and\s+the\s+(?:user|owner)\b)(?:\s+(?:both|all|jointly|together|mutually|already|explicitly|finally|just|also|then|now|today|yesterday|eventually|ultimately|formally|officially|have|had))*\s*(?P<appr>{})\b",
            alt(Slot::EnWe, None)
        );
        let en_passive = format!(
            r"(?i)\b(?P<verb>{})\s+by\s+(?:(?:the|my|our)\s+)?(?:user|owner)\b(?P<poss>'s)?",
            alt(Slot::EnPassive, None)
        );
        let en_phrase = format!("(?i)(?P<appr>{})", alt(Slot::EnPhrase, None));
        let zh_adverbs = r"(?:已经|已|明确地|明确|明確|正式|亲自|刚刚|刚才|刚|也|再次|最终|最后|终于|今天|昨天|上午|下午|晚上|当面|口头|特别|专门|一直|还|又|自己|确实|之前|早就|主动|直接|坚决|一再|反复|多次|特意|强烈|特地|今早|并|本人|那边|在会上|在群里|都说|\s)*";
        let zh_main = format!(
            r"(?P<subj>用户|用戶|主人|老板|老闆|负责人|負責人)(?:[（(][^）)\n]{{1,20}}[）)])?{zh_adverbs}(?:{ZH_LEAD}{zh_adverbs})??(?:(?P<rej>{})|(?P<appr>{})|(?P<instr>{})|(?P<pref>{}))",
            alt(Slot::ZhPred, Some(ClaimClass::Rejection)),
            alt(Slot::ZhPred, Some(ClaimClass::Approval)),
            alt(Slot::ZhPred, Some(ClaimClass::Instruction)),
            alt(Slot::ZhPref, None),
        );
        let zh_we = format!(
            r"(?P<subj>我们|我們|咱们|我和用户|我跟用户|用户和我|我和老板|老板和我)(?:{zh_adverbs}|都|一致|共同)*(?P<appr>{})",
            alt(Slot::ZhWe, None)
        );
        let end = |slot, class| build(&format!("(?i)(?:{})$", alt(slot, class)));
        let pred = |class, slot, scope_class| (class, slot, end(slot, scope_class));
        let en_we_subject =
            r"(?i)^(?:we|(?:the\s+)?(?:user|owner)\s+and\s+i|i\s+and\s+the\s+(?:user|owner))\b";
        let zh_we_subject = "^(?:我们|我們|咱们|我和用户|我跟用户|用户和我|我和老板|老板和我)";
        let prefs = |cue: u16| {
            if scope == Scope::DecisionsAndPreferences {
                cue
            } else {
                0
            }
        };
        let slot_alt = |slots: &[Slot]| {
            let parts: Vec<String> = slots
                .iter()
                .filter_map(|&slot| lexicon::alternation(&rules, slot, None))
                .collect();
            (!parts.is_empty()).then(|| parts.join("|"))
        };
        let cues = Cues::new(&[
            (CUE_EN_MAIN, slot_alt(&[Slot::EnPred, Slot::EnPredNeg])),
            (CUE_EN_PREF, slot_alt(&[Slot::EnPref])),
            (CUE_EN_WE, slot_alt(&[Slot::EnWe])),
            (CUE_EN_PASSIVE, slot_alt(&[Slot::EnPassive])),
            (CUE_EN_PHRASE, slot_alt(&[Slot::EnPhrase])),
            (CUE_ZH_MAIN, slot_alt(&[Slot::ZhPred])),
            (CUE_ZH_PREF, slot_alt(&[Slot::ZhPref])),
            (CUE_ZH_WE, slot_alt(&[Slot::ZhWe])),
        ]);
        // The table of subject forms. Order matters only for ties (same
        // start), which the sentence step resolves by keeping the first.
        let forms = vec![
            SubjectForm {
                lang: Lang::En,
                subject_rule: SubjectRule::User,
                needs: KIND_EN,
                cue: CUE_EN_MAIN | prefs(CUE_EN_PREF),
                find: build(&en_main),
                subject: build(&format!("(?i)^{en_subject}")),
                preds: vec![
                    pred(
                        ClaimClass::Approval,
                        Slot::EnPred,
                        Some(ClaimClass::Approval),
                    ),
                    pred(
                        ClaimClass::Rejection,
                        Slot::EnPred,
                        Some(ClaimClass::Rejection),
                    ),
                    pred(ClaimClass::Instruction, Slot::EnPredNeg, None),
                    pred(ClaimClass::Preference, Slot::EnPref, None),
                ],
            },
            SubjectForm {
                lang: Lang::En,
                subject_rule: SubjectRule::We,
                needs: KIND_EN | KIND_EN_WE,
                cue: CUE_EN_WE,
                find: build(&en_we),
                subject: build(en_we_subject),
                preds: vec![pred(ClaimClass::Approval, Slot::EnWe, None)],
            },
            SubjectForm {
                lang: Lang::En,
                subject_rule: SubjectRule::Named,
                needs: KIND_NAME,
                cue: CUE_EN_MAIN,
                find: build(&en_named),
                subject: build(NAMED_SUBJECT),
                preds: vec![
                    pred(
                        ClaimClass::Approval,
                        Slot::EnPred,
                        Some(ClaimClass::Approval),
                    ),
                    pred(
                        ClaimClass::Rejection,
                        Slot::EnPred,
                        Some(ClaimClass::Rejection),
                    ),
                    pred(ClaimClass::Instruction, Slot::EnPredNeg, None),
                ],
            },
            SubjectForm {
                lang: Lang::Zh,
                subject_rule: SubjectRule::User,
                needs: KIND_ZH,
                cue: CUE_ZH_MAIN | prefs(CUE_ZH_PREF),
                find: build(&zh_main),
                subject: build("^(?:用户|用戶|主人|老板|老闆|负责人|負責人)"),
                preds: vec![
                    pred(
                        ClaimClass::Rejection,
                        Slot::ZhPred,
                        Some(ClaimClass::Rejection),
                    ),
                    pred(
                        ClaimClass::Approval,
                        Slot::ZhPred,
                        Some(ClaimClass::Approval),
                    ),
                    pred(
                        ClaimClass::Instruction,
                        Slot::ZhPred,
                        Some(ClaimClass::Instruction),
                    ),
                    pred(ClaimClass::Preference, Slot::ZhPref, None),
                ],
            },
            SubjectForm {
                lang: Lang::Zh,
                subject_rule: SubjectRule::We,
                needs: KIND_ZH | KIND_ZH_WE,
                cue: CUE_ZH_WE,
                find: build(&zh_we),
                subject: build(zh_we_subject),
                preds: vec![pred(ClaimClass::Approval, Slot::ZhWe, None)],
            },
        ];
        let compiled_rules = rules
            .iter()
            .map(|r: &Rule| {
                (
                    r.id.clone(),
                    r.slot,
                    r.class,
                    build(&format!("(?i)^(?:{})", r.pattern)),
                )
            })
            .collect();
        ClaimDetector {
            scope,
            rules: compiled_rules,
            forms,
            en_passive: build(&en_passive),
            en_phrase: build(&en_phrase),
            en_neg: build(r"(?i)\b(?:(?:does|did|do)\s*(?:n't|not)|never|no\s+longer)\b"),
            en_passive_verb: build(&format!("(?i)^(?:{})", alt(Slot::EnPassive, None))),
            cues,
            fixed: Fixed::new(),
        }
    }

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
        let mut marks = Marks::new(&self.cues, text);
        let mut budget = Budget {
            claims_left: max_claims,
            candidates_left: MAX_CANDIDATES,
            truncated: false,
        };
        let mut claims = Vec::new();
        let mut in_fence = false;
        for line in LogicalLines::new(text, 16 * 1024) {
            let content = line_content(&text[line.range()]);
            let trimmed = content.trim_start();
            if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                in_fence = !in_fence;
                continue;
            }
            let line_text = &text[line.range()];
            let named = has_ascii_uppercase;
            // The name test first: it reads the line's bytes, where the
            // trigger test may walk the automaton to the end of a long line
            // (the trigger list is sorted, so skipping a read changes none).
            if in_fence || !(named(line_text) || marks.has_trigger(line)) || !marks.has_cue(line) {
                continue;
            }
            // The line rules run only for a line that yields a claim.
            let before = claims.len();
            for sentence in sentences(line_text) {
                let sentence = sentence.shift(line.start);
                if !(marks.has_trigger(sentence) || named(&text[sentence.range()]))
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
        if self.is_question(s) {
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
            if starts_with_name(clause) {
                kinds |= KIND_NAME;
            }
            let cues = marks.cues(span);
            if kinds != 0 && cues != 0 {
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
            for form in self.forms.iter().filter(|f| f.lang == lang) {
                if kinds & form.needs == 0 || cues & form.cue == 0 {
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
                    let negated = || class == ClaimClass::Approval && self.en_neg.is_match(between);
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
                                && is_first_name(name)
                                && named_object_follows(&clause[m.end()..])
                                && self.prefix_ok(clause, name_start, past)
                        }
                        (Lang::Zh, _) => self.zh_prefix_ok(clause, subj_start),
                    };
                    let after_ok = subject_ok
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
            .then(|| self.en_passive.find_iter(clause))
            .into_iter()
            .flatten();
        for m in passive {
            if full(out) || !budget.spend() {
                return;
            }
            let mt = m.as_str();
            let Some(verb) = self.en_passive_verb.find(mt) else {
                continue;
            };
            let verb_start = m.start() + verb.start();
            if mt.ends_with("'s") || !self.passive_ok(clause, verb_start, verb.as_str()) {
                continue;
            }
            // "after it was approved by the user, …" states a fact.
            let before = &clause[floor_boundary(clause, verb_start.saturating_sub(24))..verb_start];
            let past = self
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
            .then(|| self.en_phrase.find_iter(clause))
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
            if self.fixed.noun_after_user.is_match(after) {
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
        self.rules
            .iter()
            .find(|(_, s, _, re)| *s == slot && re.is_match(pred))
            .or_else(|| self.rules.iter().find(|(_, s, _, _)| *s == slot))
            .map(|(id, _, _, _)| id.clone())
            .unwrap_or_default()
    }

    /// Whether a question: ends with `?`/`？` (not a tag like ", ok?") or a
    /// Chinese question particle.
    fn is_question(&self, s: &str) -> bool {
        let t = s.trim_end();
        if t.ends_with('?') || t.ends_with('？') {
            return !self.fixed.tag_question.is_match(t);
        }
        let t = t.trim_end_matches(['。', '.', '！', '!']);
        t.ends_with('吗') || t.ends_with('么') || t.ends_with('呢')
    }

    /// The English subject rule: who may stand before the subject.
    ///
    /// With a predicate in the simple past, "after"/"once" before the
    /// subject open a clause that states a fact ("after the user approved
    /// it, …"), not a condition.
    fn en_subject_ok(&self, clause: &str, subj_start: usize, subj: &str, past: bool) -> bool {
        let lower = subj.trim_start().to_ascii_lowercase();
        let determined = lower.starts_with("the")
            || lower.starts_with("my")
            || lower.starts_with("our")
            || subj.contains('(')
            || subj.contains(',');
        let prev = previous_word(clause, subj_start);
        if prev.as_deref() == Some("that") {
            // "verify that the user …", "make sure that the user …"
            let that_at = clause[..subj_start].trim_end().len().saturating_sub(4);
            if previous_word(clause, that_at)
                .is_some_and(|w| OBJECT_CLAUSE_VERBS.contains(&w.as_str()))
            {
                return false;
            }
        }
        let fact_time = past && matches!(prev.as_deref(), Some("after" | "once"));
        if let Some(word) = prev.as_deref().filter(|_| !fact_time) {
            if determined {
                if PREPOSITIONS.contains(&word) || OBJECT_CLAUSE_VERBS.contains(&word) {
                    return false;
                }
            } else if !BARE_OK.contains(&word) && !word.chars().all(|c| c.is_ascii_digit()) {
                return false;
            }
        }
        self.prefix_ok(clause, subj_start, past)
    }

    /// The subject rule for "we" / "the user and I": only a clause start or
    /// a function word may stand before it ("why we chose" is no claim).
    fn we_subject_ok(&self, clause: &str, subj_start: usize, past: bool) -> bool {
        let prev = previous_word(clause, subj_start);
        let fact_time = past && matches!(prev.as_deref(), Some("after" | "once"));
        if let Some(word) = prev.filter(|_| !fact_time) {
            if !BARE_OK.contains(&word.as_str()) || word == "that" {
                return false;
            }
        }
        self.prefix_ok(clause, subj_start, past)
    }

    /// The prefix rules shared by every English form: conditionals,
    /// hypotheticals, study/flow/example words, reported sources and
    /// question inversion between the clause start and `at`.
    ///
    /// `past`: the predicate is in the simple past, so the last "after" /
    /// "once" / "as soon as" before the subject marks a fact, not a condition.
    fn prefix_ok(&self, clause: &str, at: usize, past: bool) -> bool {
        let start = floor_boundary(clause, at.saturating_sub(LOOKBACK));
        let window = &clause[start..at];
        let mut lower = window.to_lowercase().replace("once again", "again");
        if past {
            if let Some(m) = self.fixed.fact_time.find_iter(&lower).last() {
                lower.replace_range(m.range(), " ");
            }
        }
        if self.fixed.cond_any.is_match(&lower) || self.fixed.generic.is_match(&lower) {
            return false;
        }
        if let Some(m) = self.fixed.cond_near.find_iter(&lower).last() {
            if !lower[m.end()..].contains([',', ':', ';', '—']) {
                return false;
            }
        }
        if self.fixed.reported.is_match(&lower) {
            let t = lower.trim_start_matches(|c: char| !c.is_alphanumeric());
            if !(t.starts_with("i ") || t.starts_with("we ") || t.starts_with("noted")) {
                return false;
            }
        }
        if start == 0 && self.fixed.question_aux.is_match(&lower) {
            return false;
        }
        true
    }

    /// What may follow an English predicate.
    fn en_after_ok(&self, clause: &str, pred: &str, end: usize) -> bool {
        if next_is_word_char(clause, end) && !pred.ends_with(' ') {
            return false;
        }
        let after = &clause[end..];
        let lp = pred.to_ascii_lowercase();
        if lp.trim_end().ends_with("picked")
            && after.trim_start().to_ascii_lowercase().starts_with("up")
            && !next_is_word_char(after.trim_start(), 2)
        {
            // "picked up the ticket" is no choice.
            return false;
        }
        if lp.trim_end().ends_with("signed off")
            && after.trim_start().to_ascii_lowercase().starts_with("with")
        {
            return false;
        }
        if self.fixed.field_after.is_match(after) || self.fixed.pending_object.is_match(after) {
            return false;
        }
        if (lp.contains("want") || lp.contains("like")) && self.fixed.want_know.is_match(after) {
            return false;
        }
        if lp.ends_with("asked for") && self.fixed.asked_for_help.is_match(after) {
            return false;
        }
        true
    }

    /// Passive voice: who may stand before the participle.
    fn passive_ok(&self, clause: &str, verb_start: usize, verb: &str) -> bool {
        let before = &clause[floor_boundary(clause, verb_start.saturating_sub(60))..verb_start];
        let lower = before.to_ascii_lowercase();
        if let Some(c) = self.fixed.aux_before.captures(&lower) {
            let aux = c.get(1).map_or("", |m| m.as_str());
            return !matches!(aux, "is" | "are" | "be" | "get");
        }
        let t = before.trim_end();
        if t.is_empty() || t.ends_with(|c: char| !c.is_alphanumeric()) {
            return true;
        }
        let weak = [
            "chosen",
            "picked",
            "selected",
            "confirmed",
            "specified",
            "decided",
            "agreed",
            "asked for",
        ];
        !weak.contains(&verb.to_ascii_lowercase().as_str())
    }

    /// The Chinese subject rule: third parties, populations, conditions,
    /// study words and reported sources before the subject.
    fn zh_prefix_ok(&self, clause: &str, subj_start: usize) -> bool {
        let start = floor_boundary(clause, subj_start.saturating_sub(LOOKBACK));
        let window = &clause[start..subj_start];
        if self.fixed.zh_prefix_block.is_match(window) {
            return false;
        }
        let lower = window.to_lowercase();
        if self.fixed.cond_any.is_match(&lower) || self.fixed.generic.is_match(&lower) {
            return false;
        }
        match window.chars().next_back() {
            Some(c) if is_cjk(c) => ZH_PREV_OK.iter().any(|w| window.ends_with(w)),
            _ => true,
        }
    }

    /// What may follow a Chinese predicate.
    fn zh_after_ok(&self, clause: &str, pred: &str, end: usize) -> bool {
        let rest_all = &clause[end..];
        let seg_end = rest_all
            .find(['，', ',', '。', '；', ';', '！', '？', '!', '?', '\n'])
            .unwrap_or(rest_all.len());
        let rest = &rest_all[..seg_end];
        // 用户同意后，我们已经合并了: a time clause whose main clause is past.
        if self.fixed.zh_after_fact.is_match(rest) {
            let tail = &rest_all[seg_end..];
            let tail = &tail[..tail
                .find(['。', '！', '!', '；', ';', '\n'])
                .unwrap_or(tail.len())];
            return (tail.contains('了') || tail.contains('已'))
                && !self.fixed.zh_future.is_match(tail);
        }
        if self.fixed.zh_noun_after.is_match(rest) {
            return false;
        }
        if rest.starts_with('的') && !rest[3..].starts_with('是') {
            return false;
        }
        if self.fixed.zh_de_noun.is_match(rest) || self.fixed.zh_cond_after.is_match(rest) {
            return false;
        }
        if pred.starts_with("要求")
            && ["较", "很", "比较", "高", "低", "严格", "越来越"]
                .iter()
                .any(|w| rest.starts_with(w))
        {
            return false;
        }
        if pred.starts_with("希望") && (rest.starts_with("能") || rest.starts_with("可以")) {
            return false;
        }
        // Whether-questions after the predicate: 用户确认是否…
        !rest.starts_with("是否")
    }

    /// Line-level not-claim rules (the generic-actor rule for non-prose).
    fn line_exempt(&self, line: &str) -> bool {
        let indent_spaces = line.len() - line.trim_start_matches(' ').len();
        let trimmed = line.trim_start();
        if trimmed.is_empty() {
            return true;
        }
        if (indent_spaces >= 4 || line.starts_with('\t') || line[indent_spaces..].starts_with('\t'))
            && !starts_list_item(trimmed)
        {
            return true;
        }
        if trimmed.starts_with('|')
            || memchr::memmem::find_iter(trimmed.as_bytes(), b" | ")
                .nth(1)
                .is_some()
            || trimmed.starts_with("//")
            || trimmed.starts_with("/*")
        {
            return true;
        }
        let body = strip_markers(trimmed);
        // The unanchored rules read the head of a long line (bounded work;
        // a line of many kilobytes is a paragraph, not a script or code).
        let head = &body[..floor_boundary(body, LINE_HEAD)];
        if self.fixed.label.is_match(body)
            || self.fixed.ticket.is_match(body)
            || self.fixed.script_zh.is_match(head)
            || self.fixed.code_like.is_match(head)
        {
            return true;
        }
        // Only the key and separator are captured (no capture pass over a
        // long value); a value running onto another line is no record.
        let kv = split_key_value(&self.fixed.key_value, body);
        if let Some((key, sep, value)) = kv {
            if sep == "=" || sep == "＝" {
                return true;
            }
            if self.fixed.ident_key.is_match(key)
                && (key.contains(['_', '.']) || has_inner_upper(key))
            {
                return true;
            }
            if self.fixed.zh_kv_key.is_match(key) {
                return true;
            }
            // A lower-case key with a one-word value is a record, not prose
            // ("user: approved", "user chose: dark").
            if key.starts_with(|c: char| c.is_lowercase()) && self.fixed.scalar.is_match(value) {
                return true;
            }
            if self.fixed.decision_word.is_match(key) && self.fixed.scalar.is_match(value) {
                let v = value.trim_end_matches(['.', ',', ';']).to_ascii_lowercase();
                let literal = matches!(
                    v.as_str(),
                    "true" | "false" | "yes" | "no" | "null" | "none" | "nil" | "n/a" | "na"
                ) || v.chars().next().is_some_and(|c| c.is_ascii_digit());
                if literal || key.starts_with(|c: char| c.is_lowercase()) {
                    return true;
                }
            }
        }
        false
    }
}

impl Default for ClaimDetector {
    fn default() -> Self {
        ClaimDetector::new(Scope::Decisions)
    }
}

impl Fixed {
    fn new() -> Fixed {
        Fixed {
            label: build(
                r"(?i)^(?:bug|issue|defect|incident|steps?|expected(?: result| behaviou?r| outcome)?|actual(?: result| behaviou?r)?|scenario|test(?: case| plan| step| scenario)?|tc|case|examples?|e\.g\.|acceptance criteria|ac|repro|steps to reproduce|ticket|changelog|release notes?|interview(?: notes?)?|policy|user story|story|fixture|mock|sample|persona|use case|flow|qa|spec|requirement|req|feature|edge case|assert(?:ion)?|input|output|prompt|transcript|log|fr|nfr|jira|q|a|given|when|then|precondition|postcondition|gherkin|测试|测试用例|用例|示例|例如|例子|比如|场景|步骤|预期|预期结果|实际结果|需求|工单|规则|话术|政策|更新日志|访谈)(?:\s*[#\w.\-/]{1,12}){0,3}\s*[:：]|^(?i:given)\s",
            ),
            ticket: build(
                r"^(?:[A-Z][A-Z0-9]{1,9}-\d+\b|#\d+\s*[:：]|v?\d+(?:\.\d+)+\s*[:：]|(?i:changelog|release)\b)",
            ),
            key_value: build(r"^(?P<key>[^:=：＝\n]{1,60}?)\s*(?P<sep>:|：|=|＝)"),
            ident_key: build(r"^[A-Za-z_][A-Za-z0-9_.\-]*$"),
            decision_word: build(
                r"(?i)decided|chose|chosen|picked|selected|approved|agreed|confirmed|signed off|rejected|vetoed|决定|同意|确认|批准|选择|拒绝",
            ),
            scalar: build(r"(?i)^[\w\-./%]+\s*[.,;]?$"),
            script_zh: build(r"话术|剧本|台词|这是.{0,30}的记录|记录如下|对话记录|聊天记录|范例"),
            code_like: build(
                r#"^\s*[{\[].*["”]\s*:|==|=>|&&|\|\||::|\(\)\s*[;{]|\{\s*$|^\s*(?:if|elif|else|return|def|fn|function|const|let|var|assert|expect)\b.*[(){};=]"#,
            ),
            cond_any: build(
                r"(?i)\b(?:if|unless|whether|until|till|once|suppose|supposing|assuming|imagine|hypothetically|lest|whenever|in case|provided that|what if|let's say|should|would|could|might)\b|如果|若是|假如|假设|要是|一旦|除非|是否|每当",
            ),
            cond_near: build(r"(?i)\b(?:when|before|after|while|as soon as|by the time)\b"),
            fact_time: build(r"(?i)\b(?:after|once|as soon as)\b"),
            zh_after_fact: build(r"^了?(?:之后|以后|后)$"),
            zh_future: build(r"才|即可|则|就会|就能|将|会|可以|可|自动|便可|再"),
            generic: build(
                r"(?i)\be\.g\.|\b(?:eg|for example|for instance|examples?|study|studies|scenarios?|flows?|personas?|simulation|simulated|stor(?:y|ies)|mock-?ups?|mocks?|prototypes?|wireframes?|demos?|walkthrough|usability|surveys?|experiments?|journey|use cases?|happy path|edge cases?|tutorials?|fixtures?|samples?|templates?|role-?play|game|hypothetical|tests?|testing|specs?|specification|requirements?|onboarding|checkout|wizard|dialog|modal|screens?|ui|ux|qa|a/b|interviews?|transcripts?|sandbox|staging users?)\b|测试中|测试|例如|比如|示例|场景|流程|用例|假定|模拟|演示",
            ),
            reported: build(
                r"(?i)\b(?:says|said|say|claims?|claimed|states|stated|mentions?|mentioned|reports?|reported|writes|wrote|suggests|suggested|argues|argued|told|tells|heard|hears|allegedly|supposedly|apparently|reportedly|rumou?rs?|according to)\b",
            ),
            question_aux: build(
                r"(?i)^\W*(?:did|does|do|has|have|had|is|was|were|should|can|could|would|will|may|might|must|shall|why|how|what|which|who)\b",
            ),
            field_after: build(
                r#"(?i)^["'”’]?\s+(?:labels?|tags?|toggles?|columns?|fields?|flags?|attributes?|property|properties|events?|states?|status|timestamps?|booleans?|bits?|enums?|values?|keys?|params?|parameters?|metrics?|counts?|rates?|badges?|checkbox(?:es)?|tables?|rows?)\b"#,
            ),
            // "agreed to nothing yet", "has chosen none so far", "confirmed
            // receipt of the email": nothing was decided.
            pending_object: build(
                r"(?i)^\s+(?:(?:to|on|upon)\s+)?(?:nothing|none|anything)(?:\s+of\s+(?:it|them|these|those|the\s+\w+))?\s*(?:,\s*)?(?:yet|so\s+far|for\s+now|at\s+this\s+point)\b|^\s+(?:the\s+)?receipt\b",
            ),
            want_know: build(
                r"(?i)^\s+to\s+(?:know|understand|learn|see (?:if|whether|how|why|what)|check (?:if|whether)|find out|ask|discuss|talk|explore|hear|clarify|compare|investigate|get a sense)\b",
            ),
            asked_for_help: build(
                r"(?i)^\s+(?:some\s+|more\s+)?(?:help|advice|clarification|an? explanation|explanations|details|info|information|examples?|ideas|suggestions|feedback|options|alternatives|a recommendation|recommendations|an? opinion|pointers|tips)\b",
            ),
            noun_after_user: build(
                r"(?i)^\s*(?:guide|manual|docs?|documentation|story|stories|agreement|interface|profile|settings|table|model|record|id|account|count|basis|limits?|quota|level|group|role|data|session|name|list|input|experience|research|base|segment|types?|object|class|page|menu|testing)\b",
            ),
            tag_question: build(
                r"(?i)[,，]\s*(?:ok|okay|right|yes|yeah|correct|got it|fine|agreed|ja|对吧|好吗|对吗)\s*[?？]$|\([^()]*[?？][^()]*\)\s*[?？]?$",
            ),
            aux_before: build(
                r"(?i)\b(was|were|been|got|gotten|is|are|be|get)\s+(?:(?:already|explicitly|personally|formally|officially|also|just|finally|later|eventually)\s+)?$",
            ),
            zh_prefix_block: build(
                r"由|待|让|請|请|提示|引导|供|允许|需要|需|须|必须|文档|据说|听说|说|称|提到|写道|表示|报告|规则|政策|条款|当|等到|只有|所有|每个|每位|部分|很多|大多数|一些|其他|各",
            ),
            zh_noun_after: build(
                r"^(?:码|碼|率|灯|燈|书|書|函|页|頁|框|按钮|弹窗|状态|字段|列|事件|回调|接口|流程|环节|机制|逻辑|时间戳|次数|人数|比例|模块|功能|协议|条款|单|数|量)",
            ),
            zh_cond_after: build(
                r"才|即可|则|就会|就能|就可以|(?:后|之后|以后|前|之前|时|的时候)(?:$|[再才就则便即]|进入|跳转|进行|开始|会|将|系统|自动|显示|可以|可|方可|生成|触发|发送|通知)",
            ),
            zh_de_noun: build(
                r"^.{0,8}?的(?:回调|请求|事件|消息|通知|记录|数据|接口|日志|报销单|订单|单据|页面|按钮|状态|字段|比例|人数)",
            ),
            zh_kv_key: build(r"状态|字段|说明|含义|定义|类型|取值|枚举"),
        }
    }
}

/// Words that may stand right before a bare `user`/`owner` subject.
const BARE_OK: &[&str] = &[
    "and",
    "but",
    "so",
    "then",
    "also",
    "now",
    "today",
    "yesterday",
    "tonight",
    "earlier",
    "later",
    "recently",
    "finally",
    "already",
    "just",
    "since",
    "because",
    "that",
    "noted",
    "note",
    "update",
    "updated",
    "fyi",
    "important",
    "decision",
    "ps",
    "nb",
    "edit",
    "correction",
    "reminder",
    "context",
    "background",
    "remember",
    "meanwhile",
    "afterwards",
    "eventually",
    "ok",
    "okay",
    "again",
    "thus",
    "hence",
    "therefore",
    "plus",
    "additionally",
    "ultimately",
    "instead",
    "originally",
    "initially",
    "previously",
    "morning",
    "afternoon",
    "evening",
    "night",
    "week",
    "month",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "am",
    "pm",
    "utc",
    "confirmed",
    "so,",
    "yes",
    "here",
    "memory",
    "heads",
];

/// Prepositions that make "the user" an object, not a subject.
const PREPOSITIONS: &[&str] = &[
    "of", "for", "to", "with", "from", "about", "at", "in", "into", "by", "on", "than", "like",
    "whom", "every", "each", "any", "no",
];

/// Verbs and wh-words after which "the user decided …" is an object clause
/// (an instruction to check or a question), not a statement.
const OBJECT_CLAUSE_VERBS: &[&str] = &[
    "check",
    "verify",
    "ensure",
    "confirm",
    "sure",
    "ask",
    "tell",
    "remind",
    "let",
    "see",
    "assume",
    "whether",
    "if",
    "once",
    "why",
    "how",
    "what",
    "which",
    "who",
    "where",
    "unless",
    "until",
    "claim",
    "pretend",
    "imply",
    "state",
    "know",
    "knows",
    "knew",
    "sure",
    "unclear",
    "unsure",
    "wonder",
    "wondering",
    "doubt",
    "guess",
    "explain",
    "show",
    "prove",
    "determine",
    "find",
];

/// Chinese words that may end the text right before a subject.
const ZH_PREV_OK: &[&str] = &[
    "被",
    "经",
    "按",
    "按照",
    "根据",
    "遵照",
    "依照",
    "方案",
    "计划",
    "提议",
    "改动",
    "变更",
    "预算",
    "这个",
    "这件事",
    "今天",
    "昨天",
    "刚才",
    "刚刚",
    "后来",
    "最后",
    "最终",
    "之前",
    "上次",
    "这次",
    "此前",
    "目前",
    "现在",
    "另外",
    "同时",
    "并且",
    "而且",
    "然后",
    "所以",
    "因此",
    "因为",
    "但",
    "但是",
    "不过",
    "已",
    "讨论后",
    "沟通后",
    "会上",
    "今早",
    "早上",
    "上午",
    "下午",
    "晚上",
    "注意",
    "补充",
    "更新",
    "重要",
    "刚",
    "经过讨论",
    "和",
    "与",
    "跟",
    "我",
    "备注",
    "记录",
    "记住",
    "确认",
];

/// Compile a built-in pattern.
fn build(pattern: &str) -> Regex {
    // Invariant: every built-in pattern (lexicon and fixed rules) is compiled
    // by the unit tests, so this cannot fail in a tested build.
    #[allow(clippy::expect_used)] // invariant stated above
    // ASCII word boundaries keep every search on the lazy DFA: a Unicode
    // `\b` makes the DFA give up on non-ASCII text (curly quotes, CJK).
    let pattern = pattern.replace(r"\b", r"(?-u:\b)");
    regex::RegexBuilder::new(&pattern)
        .dfa_size_limit(64 << 20)
        .build()
        .expect("built-in pattern compiles")
}

/// The words that start a new clause (a contrast), in the order of the
/// alternation they replace: English words first (those need a word
/// boundary before and whitespace after), then Chinese.
const CONTRAST_WORDS: &[&str] = &[
    "but",
    "however",
    "yet",
    "although",
    "though",
    "whereas",
    "except that",
    "但是",
    "但",
    "不过",
    "然而",
    "可是",
];

/// How many of [`CONTRAST_WORDS`] are English.
const CONTRAST_EN: usize = 7;

/// The first pattern id of a predicate cue in [`Cues`]: subject triggers
/// come first, then the contrast words.
const CUES_FROM: usize = TRIGGER_WORDS.len() + CONTRAST_WORDS.len();

/// An ASCII word byte, as the regex crate's ASCII `\b` sees it.
fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The subject words every claim form contains (pattern ids 0..; see
/// [`trigger_kind`]).
const TRIGGER_WORDS: &[&str] = &[
    "user",
    "owner",
    "we",
    "human",
    "用户",
    "用戶",
    "主人",
    "老板",
    "老闆",
    "负责人",
    "負責人",
    "我们",
    "我們",
    "咱们",
];

/// A pattern that matches nothing, for an empty lexicon slot.
fn never() -> String {
    r"[^\s\S]".to_owned()
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

/// Whether a predicate is in the simple (or past perfect) past tense:
/// "approved", "chose", "had decided" — not "has approved", "approves".
fn is_simple_past(pred: &str) -> bool {
    const IRREGULAR: &[&str] = &[
        "chose",
        "went",
        "gave",
        "said",
        "told",
        "made",
        "took",
        "set",
        "put",
        "shot",
        "sent",
        "wrote",
        "got",
        "held",
        "kept",
        "let",
        "stood",
        "struck",
        "drew",
        "spoke",
        "forbade",
        "overrode",
        "came",
        "ran",
        "threw",
        "swore",
        "bought",
        "brought",
        "thought",
        "sought",
        "laid",
        "paid",
        "meant",
        "left",
        "felt",
        "rang",
        "saw",
        "had",
        "ok'd",
        "okay'd",
        "oked",
        "green-lit",
        "greenlit",
        "shut",
        "signed-off",
    ];
    let Some(w) = pred.split_whitespace().next() else {
        return false;
    };
    let w = w.to_ascii_lowercase();
    w.ends_with("ed") || IRREGULAR.contains(&w.as_str())
}

/// Whether a clause starts (after list markers and a short label) with a
/// capitalised word that may be a first name (see [`NAME_STOP`]).
fn starts_with_name(clause: &str) -> bool {
    let body = strip_markers(clause);
    // A label is at most 12 bytes, so only the head can hold its ": " (the
    // first one in the head is the first one in the body).
    let head = &body[..floor_boundary(body, 14)];
    let body = match head.find(": ") {
        Some(at) if at <= 12 && body[..at].bytes().all(|b| b.is_ascii_alphabetic()) => {
            body[at + 2..].trim_start()
        }
        _ => body,
    };
    let mut words = body.split(|c: char| !c.is_ascii_alphabetic());
    let mut word: &str = words.next().unwrap_or("");
    // One leading time word may stand before the name ("Yesterday Dana …").
    if word.len() <= 10 && NAME_LEAD.contains(&word.to_ascii_lowercase().as_str()) {
        word = words.find(|w| !w.is_empty()).unwrap_or("");
    }
    word.len() >= 3
        && word.len() <= 15
        && word.as_bytes()[0].is_ascii_uppercase()
        && word.bytes().skip(1).all(|b| b.is_ascii_lowercase())
        && is_first_name(word)
}

/// Whether a capitalised word can be a first name: not a listed group,
/// company, product or common noun, and without a common-noun or bot
/// ending (Deployment, Migration, Dependabot).
fn is_first_name(word: &str) -> bool {
    const NOUN_ENDINGS: &[&str] = &[
        "tion", "sion", "ment", "ness", "ity", "ance", "ence", "ing", "ers", "ies", "ure", "ship",
        "ism", "bot", "ware", "base", "hub", "ops", "ics", "ogy", "ages",
    ];
    let lower = word.to_ascii_lowercase();
    NAME_STOP.binary_search(&lower.as_str()).is_err()
        && !NOUN_ENDINGS.iter().any(|e| lower.ends_with(e))
}

/// What follows a named subject's decision verb: an object in the same
/// clause, not "by …" (a reduced passive: "Files selected by the user").
fn named_object_follows(after: &str) -> bool {
    let t = after.trim_start();
    let word: String = t
        .chars()
        .take_while(|c| c.is_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase();
    t.chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '"' || c == '“')
        && word != "by"
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

    #[test]
    fn lexicon_examples() {
        let det = d();
        let prefs = ClaimDetector::new(Scope::DecisionsAndPreferences);
        for r in lexicon::builtin_rules() {
            // Preference rules are claims only in the wider scope.
            let positive = if matches!(r.slot, Slot::EnPref | Slot::ZhPref) {
                &prefs
            } else {
                &det
            };
            for ex in &r.examples {
                assert!(
                    !positive.detect(ex).is_empty(),
                    "{}: example not detected: {ex}",
                    r.id
                );
            }
            for ex in &r.negative_examples {
                assert!(
                    det.detect(ex).is_empty(),
                    "{}: negative example detected: {ex}",
                    r.id
                );
            }
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
mod cue_tests {
    use super::*;
    use proptest::prelude::*;

    /// The contrast regex that [`Marks::contrast_matches`] replaces: the
    /// oracle for its tests.
    fn contrast_regex() -> Regex {
        build(
            r"(?i)\b(?:but|however|yet|although|though|whereas|except that)\s+|(?:但是|但|不过|然而|可是)",
        )
    }

    /// The contrast matches of `text[span]` read from the scan.
    fn scanned_contrasts(det: &ClaimDetector, text: &str, span: Span) -> Vec<(usize, usize)> {
        let mut marks = Marks::new(&det.cues, text);
        let mut out = Vec::new();
        marks.contrast_matches(text, span, &mut out);
        out
    }

    /// One detector and one oracle regex for every proptest case (building
    /// them is slow in a debug build).
    /// The key/value split read from the pattern's capture groups, the way
    /// it was done before `split_key_value` (the reference for both tests).
    fn key_value_by_captures<'a>(re: &Regex, body: &'a str) -> Option<(&'a str, &'a str, &'a str)> {
        re.captures(body).and_then(|c| {
            let whole = c.get(0)?;
            let value = &body[whole.end()..];
            (!value.contains('\n')).then(|| {
                (
                    c.name("key").map_or("", |m| m.as_str()).trim(),
                    c.name("sep").map_or("", |m| m.as_str()),
                    value.trim(),
                )
            })
        })
    }

    fn shared() -> &'static (ClaimDetector, Regex) {
        static SHARED: std::sync::OnceLock<(ClaimDetector, Regex)> = std::sync::OnceLock::new();
        SHARED.get_or_init(|| (ClaimDetector::new(Scope::Decisions), contrast_regex()))
    }

    /// The contrast matches of `text[span]` as the regex finds them.
    fn regex_contrasts(text: &str, span: Span) -> Vec<(usize, usize)> {
        shared()
            .1
            .find_iter(&text[span.range()])
            .map(|m| (m.start(), m.end()))
            .collect()
    }

    #[test]
    fn contrast_scan_matches_the_regex() {
        let det = ClaimDetector::new(Scope::Decisions);
        for text in [
            "We wait, but the user approved it.",
            "but first, however\u{3000}\tyet",
            "abut butter but_x but\u{a0}x BUT  Y",
            "although though Although\nthough",
            "except that, EXCEPT THAT x except  that",
            "但但是但是是，不过然而可是",
            "x_but y 9but z but",
            "whereas whereasx whereas",
        ] {
            let whole = Span::new(0, text.len());
            assert_eq!(
                scanned_contrasts(&det, text, whole),
                regex_contrasts(text, whole),
                "{text:?}"
            );
        }
        // A slice: the regex sees a boundary at its start and no whitespace
        // past its end.
        let text = "xbut but";
        assert_eq!(scanned_contrasts(&det, text, Span::new(1, 5)), vec![(0, 4)]);
        assert_eq!(scanned_contrasts(&det, text, Span::new(5, 8)), vec![]);
        assert_eq!(regex_contrasts(text, Span::new(1, 5)), vec![(0, 4)]);
    }

    /// The scan as `aho_corasick`'s own overlapping iterator reports it:
    /// the reference for the hand-written walk in [`Cues::scan`].
    fn reference_scan(cues: &Cues, text: &str) -> Scan {
        use aho_corasick::{AhoCorasick, AhoCorasickKind};
        let mut scan = Scan::default();
        // Built once (slow in a debug build); every caller passes the
        // shared detector's cues.
        static REFERENCE: std::sync::OnceLock<AhoCorasick> = std::sync::OnceLock::new();
        let ac = REFERENCE.get_or_init(|| {
            AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .kind(Some(AhoCorasickKind::DFA))
                .build(&cues.literals)
                .unwrap_or_else(|e| panic!("reference automaton: {e}"))
        });
        assert_eq!(ac.patterns_len(), cues.literals.len());
        for m in ac.find_overlapping_iter(text) {
            let id = m.pattern().as_usize();
            if id < TRIGGER_WORDS.len() {
                if whole_word_trigger(text, m.start(), m.end()) {
                    scan.triggers.push((m.start(), trigger_kind(id)));
                }
            } else if id < CUES_FROM {
                let rank = u8::try_from(id - TRIGGER_WORDS.len()).unwrap_or(u8::MAX);
                scan.contrasts.push((m.start(), (m.end(), rank)));
            } else {
                scan.cues.push((m.start(), cues.masks[id]));
            }
        }
        scan.contrasts
            .sort_by_key(|&(start, (_, rank))| (start, rank));
        scan
    }

    fn assert_same_scan(det: &ClaimDetector, text: &str) {
        let (a, b) = (det.cues.scan(text), reference_scan(&det.cues, text));
        assert_eq!(a.triggers, b.triggers, "{text:?}");
        assert_eq!(a.cues, b.cues, "{text:?}");
        assert_eq!(a.contrasts, b.contrasts, "{text:?}");
    }

    #[test]
    fn scan_walk_equals_the_overlapping_iterator() {
        let det = &shared().0;
        for text in [
            "",
            "The user decided; users decided. We agreed but the owner vetoed it.",
            "USER DECIDED, the User Chose Postgres, my human picked FastAPI",
            "用户决定使用Postgres，但是我们商定了方案。老板同意了不过负责人拒绝",
            "per the user, as the user requested, the user's decision: ship",
            "was approved by the user and signed off by the owner yesterday",
        ] {
            assert_same_scan(det, text);
        }
        let flood = "\"user decided\" 'the user chose' ".repeat(50);
        assert_same_scan(det, &flood);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// The hand-written automaton walk finds what the library's
        /// overlapping iterator finds, in the same order.
        #[test]
        fn scan_walk_equals_iterator(
            parts in proptest::collection::vec(
                "(user|User|USER|owner|we|We|human|my human|用户|主人|老板|负责人|我们|咱们|decided|decide|chose|picked|approved|agreed|asked|wants|prefers|said no|signed off|vetoed|per the|as the user|决定|同意|选择|拒绝|要求|喜欢|希望|but|however|但是|但|不过|users|were|x|é|_| |  |\\n|,|\\.|。|，|'|\"|“|”)",
                0..48,
            ),
        ) {
            let det = &shared().0;
            let text: String = parts.concat();
            let (a, b) = (det.cues.scan(&text), reference_scan(&det.cues, &text));
            prop_assert_eq!(a.triggers, b.triggers);
            prop_assert_eq!(a.cues, b.cues);
            prop_assert_eq!(a.contrasts, b.contrasts);
        }

        /// Reading the marks through the lazy walk answers every query as
        /// a walk finished up front does, for spans in text order (and a
        /// few that step back).
        #[test]
        fn lazy_marks_equal_a_full_walk(
            parts in proptest::collection::vec(
                "(user|User|owner|we|用户|我们|老板|decided|chose|approved|agreed|决定|同意|per the|but|但是|但|however|x|é| |  |\\n|,|\\.|。)",
                0..48,
            ),
            mut cuts in proptest::collection::vec((0usize..200, 0usize..40), 0..12),
            in_order in any::<bool>(),
        ) {
            let det = &shared().0;
            let text: String = parts.concat();
            if in_order {
                cuts.sort_unstable();
            }
            let mut lazy = Marks::new(&det.cues, &text);
            let mut full = Marks::new(&det.cues, &text);
            full.walk.finish();
            for (start, len) in cuts {
                let a = floor_boundary(&text, start);
                let b = floor_boundary(&text, a + len);
                let span = Span::new(a, b.max(a));
                prop_assert_eq!(lazy.has_trigger(span), full.has_trigger(span));
                prop_assert_eq!(lazy.has_cue(span), full.has_cue(span));
                prop_assert_eq!(lazy.kinds(span), full.kinds(span));
                prop_assert_eq!(lazy.cues(span), full.cues(span));
                let (mut x, mut y) = (Vec::new(), Vec::new());
                lazy.contrast_matches(&text, span, &mut x);
                full.contrast_matches(&text, span, &mut y);
                prop_assert_eq!(x, y);
            }
        }

        /// The key/value split equals the capture groups it replaced.
        #[test]
        fn key_value_split_equals_captures(body in "[a-z _.：＝=:\\n\\t状态é]{0,40}") {
            let re = &shared().0.fixed.key_value;
            prop_assert_eq!(split_key_value(re, &body), key_value_by_captures(re, &body));
        }

        /// The chunked logical lines equal the whole-text split.
        #[test]
        fn chunked_logical_lines(
            parts in proptest::collection::vec("(a|the user|x y|\\n|\\n\\n| | {1,4}|\\t|- |1. |\\r\\n)", 0..60),
            chunk in 1usize..40,
        ) {
            let text: String = parts.concat();
            let chunked: Vec<Span> = LogicalLines::new(&text, chunk).collect();
            prop_assert_eq!(chunked, logical_lines(&text));
        }

        /// The scan-based contrast matches equal the regex's on random
        /// mixes of contrast words, near misses, separators and slices.
        #[test]
        fn contrast_scan_equals_regex(
            parts in proptest::collection::vec(
                "(but|BUT|But|however|yet|although|though|ALTHOUGH|whereas|except that|Except That|except  that|但是|但|不过|然而|可是|butter|abut|x|_|9|é|用户| |  |\t|\n|\u{3000}|\u{a0}|,|;|，|\\.)",
                0..40,
            ),
            cut in (0usize..64, 0usize..64),
        ) {
            let det = &shared().0;
            let text: String = parts.concat();
            let a = floor_boundary(&text, cut.0.min(cut.1));
            let b = floor_boundary(&text, cut.0.max(cut.1)).max(a);
            for span in [Span::new(0, text.len()), Span::new(a, b)] {
                prop_assert_eq!(
                    scanned_contrasts(det, &text, span),
                    regex_contrasts(&text, span),
                    "{:?} {:?}", text, span
                );
            }
        }
    }

    #[test]
    fn contrast_boundaries() {
        let det = ClaimDetector::new(Scope::Decisions);
        let clauses = |s: &str| -> Vec<usize> {
            let mut out = Vec::new();
            let mut floor = 0;
            for (word, end) in scanned_contrasts(&det, s, Span::new(0, s.len())) {
                if let Some(start) = contrast_start(s, word, floor) {
                    out.push(start);
                    floor = end;
                }
            }
            out
        };
        assert_eq!(clauses("We wait, but the user approved it."), vec![7]);
        assert_eq!(clauses("We wait  but ok"), vec![7]);
        assert_eq!(clauses("x , but y"), vec![2]);
        assert_eq!(clauses("but first"), Vec::<usize>::new());
        assert_eq!(clauses("a-but b"), Vec::<usize>::new());
        assert_eq!(clauses("a but but b"), vec![1]);
        assert_eq!(clauses("我们先等，但是用户批准了"), vec![12]);
    }

    #[test]
    fn key_value_split_equals_the_captures() {
        let det = &shared().0;
        let re = &det.fixed.key_value;
        for body in [
            "user: approved",
            "user chose : dark",
            "a b  ：  c",
            "  : x",
            "user\n: approved",
            "状态：已确认",
            "x=1",
            "k ＝ v\nmore",
            "no separator here",
            "éé: ü",
        ] {
            assert_eq!(
                split_key_value(re, body),
                key_value_by_captures(re, body),
                "{body:?}"
            );
        }
    }

    #[test]
    fn chunked_logical_lines_equal_the_whole_split() {
        let texts = [
            String::new(),
            "one line".to_owned(),
            "The user decided to\n  ship on Friday.\n- next item\n".to_owned(),
            "a\n\n  b\n   c\n\tx\nthe user\ndecided\n".repeat(40),
            "x".repeat(100) + "\n" + &" y\n".repeat(50),
        ];
        for text in &texts {
            for chunk in [1, 2, 3, 7, 64, 1 << 20] {
                let chunked: Vec<Span> = LogicalLines::new(text, chunk).collect();
                assert_eq!(chunked, logical_lines(text), "{chunk} {text:?}");
            }
        }
    }

    #[test]
    fn uppercase_test_reads_every_block() {
        for len in [0usize, 1, 31, 32, 33, 64, 65, 100] {
            let base = "é".repeat(len / 2) + &"x".repeat(len % 2);
            assert!(!has_ascii_uppercase(&base));
            for at in [0, base.len() / 2, base.len()] {
                let mut t = base.clone();
                let at = floor_boundary(&t, at);
                t.insert(at, 'Q');
                assert!(has_ascii_uppercase(&t), "{t:?}");
            }
        }
        assert!(!has_ascii_uppercase("ÉÀ 用户 ＵＳＥＲ"));
    }

    #[test]
    fn name_after_a_short_label() {
        // A label of up to 12 ASCII letters before ": " is skipped.
        assert!(starts_with_name("ABCDEFGHIJKL: Dana picked it"));
        assert!(!starts_with_name("ABCDEFGHIJKLM: Dana picked it"));
        assert!(starts_with_name("- Note: Dana picked it"));
        assert!(!starts_with_name("Note:Dana"));
        assert!(!starts_with_name("ÄBCD: Dana picked it"));
        assert!(!starts_with_name("AB CD: Dana picked it"));
        assert!(!starts_with_name("用户用户用户: Dana"));
        assert!(starts_with_name(&format!(
            "Dana picked {}",
            "x: y ".repeat(1000)
        )));
    }

    #[test]
    fn name_stop_is_sorted() {
        let mut sorted = NAME_STOP.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted, NAME_STOP);
        assert!(!is_first_name("User") && !is_first_name("Deployment"));
        assert!(is_first_name("Dana"));
    }

    #[test]
    fn every_cue_group_has_literal_prefixes() {
        let det = ClaimDetector::new(Scope::DecisionsAndPreferences);
        assert_eq!(det.cues.always, 0, "a slot has no finite prefix set");
        assert!(det.cues.masks.len() > 50, "{}", det.cues.masks.len());
        assert!(det.cues.masks.len() < 2000, "{}", det.cues.masks.len());
        for bit in 0..8 {
            assert!(
                det.cues.masks.iter().any(|m| m & (1 << bit) != 0),
                "cue group {bit} is empty"
            );
        }
        let scan = det.cues.scan("The repo uses pnpm.");
        assert!(scan.cues.is_empty() && scan.triggers.is_empty());
        let scan = det.cues.scan("The user decided; users decided.");
        assert_eq!(scan.triggers, vec![(4, KIND_EN)]);
        assert!(scan.cues.iter().any(|c| c.0 == 9 && c.1 & CUE_EN_MAIN != 0));
    }
}
