//! The secret catalogue: credentials found by data-defined rules, the
//! scanner, masking and the settle pass.
//!
//! Every guard that stores or prints text masks credentials with this crate,
//! so one catalogue decides what a secret is: egress reports its findings as
//! EG-SECRET-001, closure masks review candidates with it, and the Hermes
//! bindings mask what they store.
//!
//! Rules live in `data/*.json`, compiled in. Each has an id
//! (`egress.secret.<provider>.<n>`: the ids predate this crate and are never
//! reused), a name, a `kind`, a pattern whose last
//! participating capture group is the secret, keywords for the Aho-Corasick
//! prefilter, a description, examples and negative examples (a test proves
//! every example matches and no negative does).
//!
//! The pipeline follows gitleaks / Nosey Parker: one Aho-Corasick pass over the
//! text (a DFA walked as four interleaved streams) finds which rules'
//! keywords occur, and where; only those rules' regexes run. Each
//! candidate then passes the placeholder filter (`<your-api-key>`, `sk-...`,
//! `xxxx`, documentation keys such as `AKIAIOSFODNN7EXAMPLE`, values already
//! masked), the rule's structure check (GitHub/npm CRC32 tail, random-looking
//! value, base64 of a PEM *private* key) and, for credential-named
//! assignments, a value filter (no env references, numbers, booleans or code
//! expressions). Overlapping candidates are resolved in favour of the more
//! specific rule, then the longer match.
//!
//! Redaction settles: masking a value changes what the context rules read
//! around it (a candidate that lost to it, a window measured in bytes, a
//! line's fields), so the masked text is scanned again by those rules, with
//! the keyword hits carried over from the first pass, and anything new is
//! mapped back and masked too. A second redaction therefore finds nothing.
//!
//! There is deliberately no generic "random-looking string" rule: it would
//! flag hashes, UUIDs and IDs.
//!
//! # What this crate does not do
//!
//! It reads no files, no environment, no clock and no randomness, and does no
//! network or process I/O: the built-in rules are compiled in, custom rules
//! are passed in as text. It decides nothing about policy (warn, redact,
//! block): that is the caller's.
//!
//! # Untrusted input
//!
//! Scanning is total and linear: the regex crate guarantees linear-time
//! matching, the number of matches per rule is capped, and spans are always on
//! `char` boundaries of the scanned text.
//!
//! ```
//! use palisade_secrets::SecretScanner;
//! let scanner = SecretScanner::builtin();
//! let text = "export GITHUB_TOKEN=ghp_R8aWq2LmZ0xT5vNcK7pB3yHd9JfE1sUgQ4iO";
//! let out = scanner.redact(text);
//! assert_eq!(out.findings.len(), 1);
//! assert_eq!(out.text, "export GITHUB_TOKEN=ghp_…****");
//! assert!(scanner.scan(&out.text).is_empty());
//! ```

#![forbid(unsafe_code)]

pub mod error;
mod filters;
use palisade_common::required;

use aho_corasick::automaton::Automaton;
use aho_corasick::nfa::contiguous;
use aho_corasick::{dfa, MatchKind};
pub use error::{Error, ErrorKind};
use palisade_common::automaton::walk;
use palisade_common::mask::mask_secret;
use palisade_common::{Severity, Span};
use regex::{Regex, RegexBuilder};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

pub use filters::{is_placeholder, looks_random};

/// The built-in rule files, compiled in.
const BUILTIN_RULE_FILES: &[(&str, &str)] = &[
    ("cloud.json", include_str!("../data/cloud.json")),
    ("keys.json", include_str!("../data/keys.json")),
    ("vcs.json", include_str!("../data/vcs.json")),
    ("ai.json", include_str!("../data/ai.json")),
    ("commerce.json", include_str!("../data/commerce.json")),
    ("comms.json", include_str!("../data/comms.json")),
    ("generic.json", include_str!("../data/generic.json")),
];

/// At most this many regex matches are considered per rule and text, so a
/// pathological input cannot make the candidate list grow without bound.
/// It is far above what real inputs produce; an adversarial text padded with
/// tens of thousands of decoy assignments could hide a later one from a
/// context rule, which the size cap and the format rules (no cap hit in
/// practice) keep narrow.
const MAX_MATCHES_PER_RULE: usize = 1 << 14;

/// Bytes of one region a rule may re-read inside its own earlier matches,
/// as a multiple of the region's length (plus [`RESCAN_SLACK`]).
const RESCAN_FACTOR: usize = 4;

/// Re-reading allowed on top of [`RESCAN_FACTOR`], so short texts always
/// resume inside every match.
const RESCAN_SLACK: usize = 64 << 10;

/// How every masked preview ends ([`mask_secret`]: `AKIA…****`, or `****`
/// alone for a short value).
const MASK_TAIL: &str = "****";

/// Where a masked preview's visible first characters end (`AKIA…****`).
const ELLIPSIS: &str = "…";

/// Bytes the settle passes may scan, as a multiple of the text's length
/// (plus [`SETTLE_SLACK`]). Real texts settle after one pass; each further
/// pass masks more of the original, so this only bounds the cost of crafted
/// input (a soup of nested keys can need a dozen passes, a flood of 16,384+
/// matches per rule one pass per 16,384).
const SETTLE_FACTOR: usize = 8;

/// Settle bytes on top of [`SETTLE_FACTOR`], so a short text may take as
/// many passes as it needs.
const SETTLE_SLACK: usize = 256 << 10;

/// A structure check a rule's candidates must pass.
///
/// ```
/// use palisade_secrets::Check;
/// let c: Check = serde_json::from_str("\"github_crc32\"").unwrap();
/// assert_eq!(c, Check::GithubCrc32);
/// ```
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Check {
    /// GitHub token: the last 6 characters are base62(CRC32) of the 30 before
    /// them. A valid tail marks the finding verified; a failing tail still
    /// reports the value when it [`looks_random`].
    GithubCrc32,
    /// npm token: the same checksum scheme as GitHub.
    NpmCrc32,
    /// The value must [`looks_random`] (mixes digits and letters, or cases).
    Random,
    /// The value is base64 whose decoded prefix is a PEM *private* key header.
    Base64PrivateKey,
    /// Discord bot token: the first dot-separated segment is the base64 of
    /// the bot's user id, a 17–20 digit snowflake. A match confirms the
    /// format; a value that fails it is not reported.
    DiscordUserId,
    /// The match starts at a name boundary: not inside a longer word
    /// (`bypass:` is not `pass:`), though a camel-case hump is a boundary
    /// (`dbPassword`).
    NameBoundary,
    /// The match starts a field: at the start of the text or after `;`,
    /// whitespace, a quote, `{`, `?` or `&` (`…;Password=…`, not `DB_PASSWORD=`).
    FieldStart,
}

/// How specific a rule is; overlapping candidates go to the more specific.
///
/// ```
/// use palisade_secrets::Tier;
/// assert!(Tier::Specific > Tier::Generic);
/// ```
#[derive(
    Clone, Copy, Debug, Default, Eq, PartialEq, Hash, Ord, PartialOrd, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// Found by the name a value is assigned to (`password=…`): the value
    /// filter applies (no env references, numbers, code expressions). A
    /// match must contain one of the rule's keywords starting within its
    /// first 128 bytes: the search leaps from keyword to keyword.
    Generic,
    /// Found by surrounding context (`Bearer …`, `user:pass@`, a vendor-named
    /// variable).
    Contextual,
    /// Found by the credential's own format (a known prefix or structure).
    #[default]
    Specific,
}

/// A secret rule as written in the data files.
///
/// ```
/// use palisade_secrets::RuleSpec;
/// let spec: RuleSpec = serde_json::from_str(r#"{
///   "id": "egress.secret.acme.1", "name": "Acme key", "kind": "acme_key",
///   "pattern": "\\b(acme_[a-z0-9]{20})\\b", "keywords": ["acme_"],
///   "description": "An Acme API key.",
///   "examples": ["ACME=acme_k3j4h5g6f7d8s9a0q1w2"], "negative_examples": ["acme_short"]
/// }"#).unwrap();
/// assert_eq!(spec.kind, "acme_key");
/// ```
#[derive(Clone, Debug, Eq, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleSpec {
    /// Stable dotted id, `egress.secret.<provider>.<n>`; never reused.
    pub id: String,
    /// Human-readable name.
    pub name: String,
    /// The finding kind reported to callers (`github_token`, `private_key`, …).
    pub kind: String,
    /// Regex; the last capture group that participates in a match is the secret.
    pub pattern: String,
    /// Literals (ASCII case-insensitive) one of which must occur for the rule to run.
    pub keywords: Vec<String>,
    /// What the rule finds and why it is a secret.
    pub description: String,
    /// Texts that must produce a finding of this rule.
    pub examples: Vec<String>,
    /// Texts that must not.
    pub negative_examples: Vec<String>,
    /// Structure check, if the format has one.
    #[serde(default)]
    pub check: Option<Check>,
    /// Specificity.
    #[serde(default)]
    pub tier: Tier,
    /// Severity of a finding.
    #[serde(default = "default_severity")]
    pub severity: Severity,
    /// A regex describing the bare secret's shape, used to generate test values.
    #[serde(default)]
    pub shape: Option<String>,
    /// Where the format is documented.
    #[serde(default)]
    pub references: Vec<String>,
}

fn default_severity() -> Severity {
    Severity::High
}

/// A compiled rule.
///
/// ```
/// use palisade_secrets::SecretScanner;
/// let rule = SecretScanner::builtin().rule("egress.secret.aws.1").unwrap();
/// assert_eq!(rule.spec().kind, "aws_access_key_id");
/// ```
#[derive(Clone, Debug)]
pub struct SecretRule {
    spec: RuleSpec,
    /// Compiled on the first text in which one of the rule's keywords
    /// occurs (once per process), so clean text compiles none; a scanner
    /// from [`SecretScanner::new`] has it from the start.
    regex: OnceLock<Regex>,
    /// The bytes every match contains ([`required::Required`]), derived
    /// from the pattern on the rule's first use.
    required: OnceLock<Option<required::Required>>,
}

impl SecretRule {
    /// The rule as written in its data file.
    ///
    /// ```
    /// use palisade_secrets::SecretScanner;
    /// assert!(SecretScanner::builtin().rules().iter().all(|r| r.spec().id.starts_with("egress.secret.")));
    /// ```
    pub fn spec(&self) -> &RuleSpec {
        &self.spec
    }

    /// What every match contains, derived on first use.
    fn required(&self) -> Option<&required::Required> {
        self.required
            .get_or_init(|| required::Required::of_pattern(&ascii_boundaries(&self.spec.pattern)))
            .as_ref()
    }

    /// Whether a match may lie inside `hay`: false only when `hay` lacks
    /// bytes every match contains.
    fn may_match(&self, hay: &str) -> bool {
        self.required().is_none_or(|r| r.occurs_in(hay.as_bytes()))
    }

    /// The leftmost-first match in `slice` that starts at `pos` or later,
    /// exactly as `captures_at` finds it. When every match lies within one
    /// line, the lines that lack the bytes every match contains are passed
    /// over, and the regex reads only the stretches of lines that hold
    /// them (cut at a line's end, which no match crosses).
    fn captures_from<'h>(&self, slice: &'h str, pos: usize) -> Option<regex::Captures<'h>> {
        let regex = self.regex();
        let Some(req) = self.required().filter(|r| r.single_line()) else {
            return regex.captures_at(slice, pos);
        };
        let bytes = slice.as_bytes();
        let line_end =
            |from: usize| memchr::memchr(b'\n', &bytes[from..]).map_or(bytes.len(), |i| from + i);
        let mut start = pos;
        while start <= bytes.len() {
            let mut end = line_end(start);
            if !req.occurs_in(&bytes[start..end]) {
                start = end + 1;
                continue;
            }
            // Take in the following lines that hold the bytes too; the
            // first that does not is where the next stretch may begin.
            let mut resume = None;
            while end < bytes.len() {
                let next_end = line_end(end + 1);
                if !req.occurs_in(&bytes[end + 1..next_end]) {
                    resume = Some(next_end + 1);
                    break;
                }
                end = next_end;
            }
            if let Some(caps) = regex.captures_at(&slice[..end], start) {
                return Some(caps);
            }
            start = resume?;
        }
        None
    }

    /// The compiled pattern, compiled now if this is its first use.
    fn regex(&self) -> &Regex {
        self.regex.get_or_init(|| {
            // Invariant: a rule's regex is either compiled by
            // `SecretScanner::new` (which reports a failure as an error)
            // or is a built-in pattern, every one of which the crate's
            // tests compile (`builtin_rules_compile`); compiling is
            // deterministic, so this cannot fail at run time.
            #[allow(clippy::expect_used)] // invariant stated above
            compile_pattern(&self.spec.pattern).expect("rule pattern compiles")
        })
    }
}

/// One secret found in a text. Holds no raw secret: only its span and a
/// masked preview.
///
/// ```
/// use palisade_secrets::SecretScanner;
/// let f = &SecretScanner::builtin().scan("key: AKIAZ7QPMX3RWB5TLN2K")[0];
/// assert_eq!(f.kind, "aws_access_key_id");
/// assert_eq!(f.preview, "AKIA…****");
/// assert_eq!(f.span.start, 5);
/// ```
#[derive(Clone, Debug, Eq, PartialEq, Serialize, Deserialize)]
pub struct SecretFinding {
    /// The rule id (`egress.secret.aws.1`).
    pub rule_id: String,
    /// The finding kind (`aws_access_key_id`).
    pub kind: String,
    /// Byte span of the secret in the scanned text.
    pub span: Span,
    /// Masked preview ([`mask_secret`]).
    pub preview: String,
    /// Severity.
    pub severity: Severity,
    /// Whether a structure check (checksum, decoded header) confirmed the format.
    pub verified: bool,
}

/// A redacted text and what was replaced.
///
/// ```
/// use palisade_secrets::SecretScanner;
/// let r = SecretScanner::builtin().redact("nothing here");
/// assert_eq!(r.text, "nothing here");
/// assert!(r.findings.is_empty());
/// ```
#[derive(Clone, Debug, Eq, PartialEq, Serialize, Deserialize)]
pub struct Redacted {
    /// The text with every finding's span replaced by its preview.
    pub text: String,
    /// The findings, with spans into the *original* text, in order.
    pub findings: Vec<SecretFinding>,
}

/// A compiled set of secret rules with its keyword prefilter.
///
/// ```
/// use palisade_secrets::SecretScanner;
/// let s = SecretScanner::builtin();
/// assert!(s.rules().len() >= 60);
/// assert!(s.scan("plain words, no credentials").is_empty());
/// ```
#[derive(Clone, Debug)]
pub struct SecretScanner {
    rules: Vec<SecretRule>,
    /// The keyword automata.
    prefilter: Prefilter,
    /// The longest keyword, in bytes.
    max_keyword_len: usize,
    /// For each prefilter pattern, the rules it enables.
    keyword_rules: Vec<Vec<usize>>,
    /// No keyword can be spelled by a mask (`…****`), so the keyword hits of
    /// a redacted text are the original's minus those the masks covered.
    keywords_survive_masks: bool,
}

impl SecretScanner {
    /// The scanner over the built-in rules, compiled once per process.
    ///
    /// ```
    /// let a = palisade_secrets::SecretScanner::builtin();
    /// let b = palisade_secrets::SecretScanner::builtin();
    /// assert!(std::ptr::eq(a, b));
    /// ```
    pub fn builtin() -> &'static SecretScanner {
        static BUILTIN: OnceLock<SecretScanner> = OnceLock::new();
        BUILTIN.get_or_init(|| {
            // Invariant: the built-in rule files are compiled in and every
            // rule is compiled by the crate's own tests
            // (`builtin_rules_compile`), so building them cannot fail at run
            // time.
            #[allow(clippy::expect_used)] // invariant stated above
            SecretScanner::build(builtin_specs().expect("built-in secret rules parse"), false)
                .expect("built-in secret rules compile")
        })
    }

    /// Compile a scanner from rule specs (built-in ones from [`builtin_specs`],
    /// custom ones from [`parse_rules`]).
    ///
    /// # Errors
    ///
    /// A pattern that does not compile, an id that is not
    /// `egress.secret.<provider>.<n>` or is repeated, or a rule without keywords.
    ///
    /// ```
    /// use palisade_secrets::{parse_rules, SecretScanner};
    /// let specs = parse_rules(r#"[{"id":"egress.secret.acme.1","name":"Acme","kind":"acme_key",
    ///   "pattern":"\\b(acme_[a-z0-9]{20})\\b","keywords":["acme_"],"description":"d",
    ///   "examples":[],"negative_examples":[]}]"#).unwrap();
    /// let s = SecretScanner::new(specs).unwrap();
    /// assert_eq!(s.scan("k=acme_k3j4h5g6f7d8s9a0q1w2").len(), 1);
    /// let bad = parse_rules(r#"[{"id":"x","name":"n","kind":"k","pattern":"(","keywords":["a"],
    ///   "description":"d","examples":[],"negative_examples":[]}]"#).unwrap();
    /// assert!(SecretScanner::new(bad).is_err());
    /// ```
    pub fn new(specs: Vec<RuleSpec>) -> Result<Self, Error> {
        Self::build(specs, true)
    }

    /// [`SecretScanner::new`]; with `compile` false the regexes are left to
    /// be compiled on first use (built-in rules, which the tests compile).
    fn build(specs: Vec<RuleSpec>, compile: bool) -> Result<Self, Error> {
        let mut rules = Vec::with_capacity(specs.len());
        let mut seen = std::collections::HashSet::new();
        let mut keywords: Vec<String> = Vec::new();
        let mut keyword_rules: Vec<Vec<usize>> = Vec::new();
        for spec in specs {
            validate_id(&spec.id)?;
            if !seen.insert(spec.id.clone()) {
                return Err(Error::new(
                    ErrorKind::Rule,
                    format!("duplicate rule id `{}`", spec.id),
                ));
            }
            if spec.keywords.iter().all(|k| k.is_empty()) {
                return Err(Error::new(
                    ErrorKind::Rule,
                    format!("rule `{}` has no keywords for the prefilter", spec.id),
                ));
            }
            let regex = OnceLock::new();
            if compile {
                let compiled = compile_pattern(&spec.pattern).map_err(|e| {
                    Error::new(ErrorKind::Pattern, format!("rule `{}`: {e}", spec.id))
                })?;
                let _ = regex.set(compiled);
            }
            let index = rules.len();
            for kw in spec.keywords.iter().filter(|k| !k.is_empty()) {
                let lower = kw.to_ascii_lowercase();
                match keywords.iter().position(|k| *k == lower) {
                    Some(p) => keyword_rules[p].push(index),
                    None => {
                        keywords.push(lower);
                        keyword_rules.push(vec![index]);
                    }
                }
            }
            rules.push(SecretRule {
                spec,
                regex,
                required: OnceLock::new(),
            });
        }
        Ok(SecretScanner {
            rules,
            max_keyword_len: keywords.iter().map(String::len).max().unwrap_or(0),
            keywords_survive_masks: keywords.iter().all(|k| keyword_survives_masks(k)),
            prefilter: Prefilter::new(keywords)?,
            keyword_rules,
        })
    }

    /// The compiled rules, in file order.
    ///
    /// ```
    /// assert!(!palisade_secrets::SecretScanner::builtin().rules().is_empty());
    /// ```
    pub fn rules(&self) -> &[SecretRule] {
        &self.rules
    }

    /// The rule with this id.
    ///
    /// ```
    /// use palisade_secrets::SecretScanner;
    /// assert!(SecretScanner::builtin().rule("egress.secret.github.1").is_some());
    /// assert!(SecretScanner::builtin().rule("nope").is_none());
    /// ```
    pub fn rule(&self, id: &str) -> Option<&SecretRule> {
        self.rules.iter().find(|r| r.spec.id == id)
    }

    /// Find every secret in `text`. Never fails; spans are sorted, disjoint
    /// and on `char` boundaries. Values inside Hermes' own redaction markers
    /// (`«redacted:…»`) are left alone.
    ///
    /// ```
    /// use palisade_secrets::SecretScanner;
    /// let s = SecretScanner::builtin();
    /// let found = s.scan("DB_PASSWORD=Tr0ub4dor&3x\nDATABASE_URL=postgres://app:Zq8wLp2mXv@db:5432/app");
    /// let kinds: Vec<_> = found.iter().map(|f| f.kind.as_str()).collect();
    /// assert_eq!(kinds, ["credential_assignment", "url_password"]);
    /// assert!(s.scan("key «redacted:AKIA…» left by hermes").is_empty());
    /// ```
    pub fn scan(&self, text: &str) -> Vec<SecretFinding> {
        self.scan_filtered(text, |_| true)
    }

    /// Like [`scan`](Self::scan), keeping only candidates for which `keep`
    /// returns true when given the raw value (used for policy allowlists; the
    /// value never leaves the process).
    ///
    /// ```
    /// use palisade_secrets::SecretScanner;
    /// let s = SecretScanner::builtin();
    /// let text = "AKIAZ7QPMX3RWB5TLN2K";
    /// assert!(s.scan_filtered(text, |v| !v.starts_with("AKIAZ7")).is_empty());
    /// ```
    pub fn scan_filtered(&self, text: &str, keep: impl Fn(&str) -> bool) -> Vec<SecretFinding> {
        if text.is_empty() {
            return Vec::new();
        }
        let hits = self.keyword_hits(text);
        let (mut found, saturated) = self.find(text, &hits, &keep, Tier::Specific);
        // Settle: masking a value changes the text the rules read (a
        // candidate that lost to it may now win, a window measured in bytes
        // reaches further, a line's fields shift), so a second pass could
        // find what the first did not, and redaction would not be
        // idempotent. Scan the masked text, map what it finds back (a match
        // that takes in a mask is no finding), and mask again until a pass
        // finds nothing. Only a text with findings pays for it, and the
        // keyword pass is reused.
        //
        // Format rules need no second pass unless one ran out of its match
        // or re-reading budget: they read no context beyond a few characters
        // on either side of a match, which the mask checks cover, and every
        // match nested in one of theirs was already a candidate (the search
        // resumes inside matches), so whatever they find in the masked text
        // they found, and resolved, in the original.
        let settle_from = if saturated {
            Tier::Specific
        } else {
            Tier::Contextual
        };
        let mut settle_budget = text.len().saturating_mul(SETTLE_FACTOR) + SETTLE_SLACK;
        while !found.is_empty() {
            let masked = Masked::new(text, &found);
            match settle_budget.checked_sub(masked.text.len()) {
                Some(left) => settle_budget = left,
                None => break,
            }
            let derived = (!saturated)
                .then(|| hits.after_masking(self, &masked))
                .flatten();
            let rehits = derived.unwrap_or_else(|| self.keyword_hits(&masked.text));
            let (more, _) = self.find(&masked.text, &rehits, &keep, settle_from);
            if more.is_empty() {
                break;
            }
            found = masked.merge(text, found, &more);
        }
        hits.keep_for_reuse();
        found
    }

    /// One pass over `text` of the rules up to tier `up_to` (`Specific`:
    /// all) whose keywords `hits` found; also whether a format rule ran out
    /// of its match or re-reading budget.
    fn find(
        &self,
        text: &str,
        hits: &KeywordHits,
        keep: &impl Fn(&str) -> bool,
        up_to: Tier,
    ) -> (Vec<SecretFinding>, bool) {
        let mut candidates: Vec<Candidate> = Vec::new();
        let mut saturated = false;
        let mut regions: Vec<Span> = Vec::new();
        for (index, rule) in self.rules.iter().enumerate() {
            if rule.spec.tier > up_to {
                continue;
            }
            // Most rules' keywords do not occur: skip them before any work.
            if !hits.triggered[index] || !hits.regions(index, rule.spec.tier, text, &mut regions) {
                continue;
            }
            let specific = rule.spec.tier == Tier::Specific;
            // A credential-named assignment starts at most `GENERIC_LEAD`
            // bytes before its keyword, so the search can leap from one
            // keyword to the next instead of reading every byte of the
            // windows around them.
            let anchors = (rule.spec.tier == Tier::Generic && !hits.overflow[index])
                .then(|| hits.positions[index].as_slice());
            'regions: for &region in &regions {
                let slice = &text[region.range()];
                if !rule.may_match(slice) {
                    continue;
                }
                // Not `captures_iter`: when the filters reject a match or cut its
                // value short, the search resumes inside it, so a credential whose
                // key sits in a rejected value (`Pass:~/&paSS=…`) is still found
                // on the first pass and redaction stays idempotent. Re-reading
                // inside matches is budgeted (`RESCAN_FACTOR`): past the budget
                // the search resumes after each match, so a flood of nested keys
                // (`password=password=…`) stays linear.
                let mut pos = 0;
                let mut rescan_budget = slice.len().saturating_mul(RESCAN_FACTOR) + RESCAN_SLACK;
                for round in 0..=MAX_MATCHES_PER_RULE {
                    if pos > slice.len() {
                        break;
                    }
                    if round == MAX_MATCHES_PER_RULE {
                        saturated |= specific;
                        break;
                    }
                    if let Some(anchors) = anchors {
                        let at = region.start + pos;
                        let next = anchors.partition_point(|h| h.start < at);
                        let Some(hit) = anchors.get(next) else {
                            break 'regions;
                        };
                        let mut from = hit.start.saturating_sub(GENERIC_LEAD).max(at);
                        while !text.is_char_boundary(from) {
                            from -= 1;
                        }
                        if from >= region.end {
                            break;
                        }
                        pos = from - region.start;
                    }
                    let Some(caps) = rule.captures_from(slice, pos) else {
                        break;
                    };
                    let Some(whole) = caps.get(0) else { break };
                    let m = (1..caps.len())
                        .rev()
                        .find_map(|g| caps.get(g))
                        .unwrap_or(whole);
                    let resume = next_char_boundary(slice, pos.max(whole.start()));
                    let mut next = whole.end().max(resume);
                    // A match that takes in an earlier redaction's mask
                    // (`…****`, `****`), or starts right where one ends, reads
                    // text that redaction rewrote: the mask replaced a value,
                    // and with it any separators inside it and the word the
                    // next key was glued to, so the fields around it (a
                    // `.pgpass` line's colons, a key's name boundary) are not
                    // the original's.
                    let after_mask = text[..region.start + whole.start()].ends_with(MASK_TAIL);
                    if !m.as_str().is_empty() && !after_mask && !whole.as_str().contains(MASK_TAIL)
                    {
                        let span = Span::new(region.start + m.start(), region.start + m.end());
                        let match_start = region.start + whole.start();
                        match filters::accept(rule, text, span, match_start) {
                            Some((span, verified)) => {
                                // Resume inside the value too: this candidate may
                                // lose to an overlapping, more specific one, and a
                                // credential key inside its value must then still be
                                // found on this pass (`--secret=…sk-…=-secret=…`),
                                // or a second redaction pass would find it.
                                next = next_char_boundary(slice, m.start()).max(resume);
                                if keep(&text[span.range()]) {
                                    candidates.push(Candidate {
                                        rule: index,
                                        span,
                                        verified,
                                    });
                                }
                            }
                            None => next = m.start().max(resume),
                        }
                    }
                    let end = whole.end().max(resume);
                    if next < end {
                        match rescan_budget.checked_sub(end - next) {
                            Some(left) => rescan_budget = left,
                            None => {
                                saturated |= specific;
                                next = end;
                            }
                        }
                    }
                    pos = next;
                }
            }
        }
        // Only a text with candidates is read for Hermes' markers.
        if candidates.is_empty() {
            return (Vec::new(), saturated);
        }
        let markers = filters::hermes_markers(text);
        let chosen = resolve_overlaps(&self.rules, candidates)
            .into_iter()
            .filter(|c| !markers.iter().any(|m| m.overlaps(c.span)));
        let found = chosen
            .map(|c| {
                let rule = &self.rules[c.rule].spec;
                SecretFinding {
                    rule_id: rule.id.clone(),
                    kind: rule.kind.clone(),
                    span: c.span,
                    preview: mask_secret(&text[c.span.range()]),
                    severity: rule.severity,
                    verified: c.verified,
                }
            })
            .collect();
        (found, saturated)
    }

    /// Scan a string that is the value of a named field (a JSON or YAML key,
    /// a header name): besides the value's own content, the field name gives
    /// credential-named context (`"password": "hunter2hunter"`). Spans refer
    /// to `value`.
    ///
    /// ```
    /// use palisade_secrets::SecretScanner;
    /// let s = SecretScanner::builtin();
    /// assert!(s.scan("hunter2hunter").is_empty());
    /// let f = s.scan_keyed("db_password", "hunter2hunter", |_| true);
    /// assert_eq!(f.len(), 1);
    /// assert_eq!(f[0].span.range(), 0..13);
    /// assert!(s.scan_keyed("description", "hunter2hunter", |_| true).is_empty());
    /// ```
    pub fn scan_keyed(
        &self,
        key: &str,
        value: &str,
        keep: impl Fn(&str) -> bool,
    ) -> Vec<SecretFinding> {
        let mut found = self.scan_filtered(value, &keep);
        let plain_key = !key.is_empty()
            && key.len() <= 64
            && key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
        if !plain_key || value.len() > 256 || value.contains(['"', '\n', '\r']) {
            return found;
        }
        let probe = format!("{key}: \"{value}\"");
        let offset = key.len() + 3;
        for f in self.scan_filtered(&probe, &keep) {
            if f.span.start < offset || f.span.end > offset + value.len() {
                continue;
            }
            let span = Span::new(f.span.start - offset, f.span.end - offset);
            if found.iter().any(|g| g.span.overlaps(span)) {
                continue;
            }
            found.push(SecretFinding { span, ..f });
        }
        found.sort_by_key(|f| f.span.start);
        found
    }

    /// Scan and replace exactly each found span by its masked preview. Every
    /// other byte is unchanged; redacting the result again changes nothing.
    ///
    /// ```
    /// use palisade_secrets::SecretScanner;
    /// let s = SecretScanner::builtin();
    /// let once = s.redact("curl -H 'Authorization: Bearer 9f8e7d6c5b4a3f2e1d0c9b8a7f6e' https://api");
    /// assert_eq!(once.text, "curl -H 'Authorization: Bearer 9f8e…****' https://api");
    /// assert_eq!(s.redact(&once.text).text, once.text);
    /// ```
    pub fn redact(&self, text: &str) -> Redacted {
        let findings = self.scan(text);
        Redacted {
            text: apply_redactions(text, &findings),
            findings,
        }
    }

    /// [`scan`](Self::scan) for text that quotes other text after a lead-in
    /// of prose (`From now on, use this for deploys: db:5432:app:u:pw`,
    /// `配置：ENV API_TOKEN …`): everything `scan` finds, plus what the rules
    /// find when every colon lead-in is read as a line break.
    ///
    /// Some formats are only read at the start of a line (a `.pgpass` line,
    /// `ENV NAME value`, `$pass = ConvertTo-SecureString …`); a user who
    /// pastes one into a sentence puts it after a colon. Hosts that store
    /// what users type (review candidates, quarantined messages) mask with
    /// this; the egress guard and `palisade check secrets` keep
    /// [`scan`](Self::scan), whose precision the corpora measure. Where the
    /// two readings overlap, the wider span wins (a partial overlap becomes
    /// one span over both, previewed afresh), so findings stay sorted and
    /// disjoint. Costs a second scan only when the text has a lead-in.
    ///
    /// ```
    /// use palisade_secrets::SecretScanner;
    /// let s = SecretScanner::builtin();
    /// let text = "Always use this: db.internal:5432:app:appuser:7X8s51fbLtByHwiUmr";
    /// assert!(s.scan(text).is_empty());
    /// let found = s.scan_quoted(text);
    /// assert_eq!(&text[found[0].span.range()], "7X8s51fbLtByHwiUmr");
    /// ```
    pub fn scan_quoted(&self, text: &str) -> Vec<SecretFinding> {
        let mut found = self.scan(text);
        let Some(view) = lead_ins_as_line_breaks(text) else {
            return found;
        };
        // The view's spans are the text's; its previews are re-taken from
        // the text, in case a span covers a rewritten lead-in.
        found.extend(self.scan(&view).into_iter().map(|f| SecretFinding {
            preview: mask_secret(&text[f.span.range()]),
            ..f
        }));
        found.sort_by_key(|f| (f.span.start, std::cmp::Reverse(f.span.end)));
        let mut merged: Vec<SecretFinding> = Vec::with_capacity(found.len());
        for f in found {
            match merged.last_mut() {
                Some(last) if f.span.start < last.span.end => {
                    if f.span.end > last.span.end {
                        last.span = Span::new(last.span.start, f.span.end);
                        last.preview = mask_secret(&text[last.span.range()]);
                    }
                }
                _ => merged.push(f),
            }
        }
        merged
    }

    /// [`redact`](Self::redact) with the findings of
    /// [`scan_quoted`](Self::scan_quoted).
    ///
    /// ```
    /// use palisade_secrets::SecretScanner;
    /// let s = SecretScanner::builtin();
    /// let out = s.redact_quoted("配置：ENV SENTRY_AUTH_TOKEN 7f3c9a1e5b2d8f4a6c0e9b3d7f1a5c2e");
    /// assert_eq!(out.text, "配置：ENV SENTRY_AUTH_TOKEN 7f3c…****");
    /// ```
    pub fn redact_quoted(&self, text: &str) -> Redacted {
        let findings = self.scan_quoted(text);
        Redacted {
            text: apply_redactions(text, &findings),
            findings,
        }
    }

    fn keyword_hits(&self, text: &str) -> KeywordHits {
        let mut hits = KeywordHits::spare(self.rules.len());
        let walked = match self.prefilter.dfa_for(text.len()) {
            Some(d) => self.collect_hits(d, text, &mut hits),
            None => self.collect_hits(&self.prefilter.nfa, text, &mut hits),
        };
        if walked.is_err() {
            // An unanchored automaton always has an unanchored start state;
            // were it missing, every rule runs over the whole text (a superset).
            hits.triggered.fill(true);
            hits.overflow.fill(true);
        }
        // The prefilter reports hits by where they end; windows and anchors
        // want them by where they start.
        for &r in &hits.touched {
            let (positions, overflow) = (&mut hits.positions[r], &mut hits.overflow[r]);
            positions.sort_unstable_by_key(|p| (p.start, p.end));
            positions.dedup_by_key(|p| p.start);
            if positions.len() > MAX_WINDOWS_PER_RULE {
                *overflow = true;
                positions.clear();
            }
        }
        hits
    }

    /// Walk the keyword automaton `d` over `text`, recording in `hits`
    /// every keyword occurrence (the DFA and the NFA report the same ones:
    /// both are built from the same keywords with standard semantics).
    fn collect_hits<A: Automaton>(
        &self,
        d: &A,
        text: &str,
        hits: &mut KeywordHits,
    ) -> Result<(), aho_corasick::MatchError> {
        walk(d, text.as_bytes(), self.max_keyword_len, |state, end| {
            for i in 0..d.match_len(state) {
                let pattern = d.match_pattern(state, i);
                let hit = Span::new(end - d.pattern_len(pattern), end);
                for &r in &self.keyword_rules[pattern.as_usize()] {
                    hits.triggered[r] = true;
                    if self.rules[r].spec.tier == Tier::Specific || hits.overflow[r] {
                        continue;
                    }
                    let positions = &mut hits.positions[r];
                    if positions.is_empty() {
                        hits.touched.push(r);
                    }
                    if positions.len() >= RAW_HITS_PER_RULE {
                        hits.overflow[r] = true;
                        positions.clear();
                    } else {
                        positions.push(hit);
                    }
                }
            }
        })
    }
}

/// Texts a process scans with the contiguous NFA before it builds the DFA:
/// the NFA builds in about a third of the DFA's time but walks about four
/// times slower, so a hook or a one-line `check` never builds the DFA, and a
/// batch builds it once, after this much text (about where the saved walking
/// pays for the build).
const DFA_AFTER_BYTES: usize = 256 << 10;

/// The keyword automata: a contiguous NFA built with the scanner, and a
/// full DFA (one transition per byte, the fastest walk; a few hundred KB)
/// built once the process has scanned [`DFA_AFTER_BYTES`].
#[derive(Debug)]
struct Prefilter {
    keywords: Vec<String>,
    nfa: contiguous::NFA,
    dfa: OnceLock<Option<dfa::DFA>>,
    /// Bytes scanned with the NFA so far.
    scanned: AtomicUsize,
}

impl Clone for Prefilter {
    fn clone(&self) -> Self {
        Prefilter {
            keywords: self.keywords.clone(),
            nfa: self.nfa.clone(),
            dfa: self.dfa.clone(),
            scanned: AtomicUsize::new(self.scanned.load(Ordering::Relaxed)),
        }
    }
}

impl Prefilter {
    fn new(keywords: Vec<String>) -> Result<Prefilter, Error> {
        // Standard match semantics: every state knows all keywords ending at
        // it, so reporting the matches of each visited state finds every
        // occurrence.
        let nfa = contiguous::Builder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&keywords)
            .map_err(|e| Error::new(ErrorKind::Rule, format!("keyword prefilter: {e}")))?;
        Ok(Prefilter {
            keywords,
            nfa,
            dfa: OnceLock::new(),
            scanned: AtomicUsize::new(0),
        })
    }

    /// The DFA, once the process has scanned enough (counting a text of
    /// `len` bytes about to be scanned) to be worth building it; `None`
    /// before (walk the NFA), or if it cannot be built (it always can when
    /// the NFA could: the DFA has no size limit by default).
    fn dfa_for(&self, len: usize) -> Option<&dfa::DFA> {
        if let Some(built) = self.dfa.get() {
            return built.as_ref();
        }
        let before = self.scanned.fetch_add(len, Ordering::Relaxed);
        if before.saturating_add(len) < DFA_AFTER_BYTES {
            return None;
        }
        self.dfa
            .get_or_init(|| {
                dfa::Builder::new()
                    .ascii_case_insensitive(true)
                    .match_kind(MatchKind::Standard)
                    .build(&self.keywords)
                    .ok()
            })
            .as_ref()
    }
}

/// At most this many keyword windows per rule; beyond it the rule scans the
/// whole text (still linear).
const MAX_WINDOWS_PER_RULE: usize = 1024;
/// Raw keyword hits (several keywords may start at one place, and the
/// interleaved walk reports a hit twice where two parts overlap) collected
/// per rule before it counts as flooded and scans the whole text, as it does
/// past [`MAX_WINDOWS_PER_RULE`] distinct ones. A bound on memory.
const RAW_HITS_PER_RULE: usize = 4 * MAX_WINDOWS_PER_RULE;
/// A window reaches this many lines before and after a keyword hit.
const WINDOW_LINES_BEFORE: usize = 1;
const WINDOW_LINES_AFTER: usize = 3;
/// …and at most this many bytes before and after the hit (context rules
/// match a name within a few dozen bytes of their keyword and a value of at
/// most a few hundred).
const WINDOW_BYTES_BEFORE: usize = 160;
const WINDOW_BYTES_AFTER: usize = 1200;
/// Credential-named assignments: a name of at most ~60 bytes after the
/// keyword, a separator and a value of at most 256 bytes.
const GENERIC_WINDOW_BYTES_AFTER: usize = 400;
/// …and a match of a credential-named assignment starts at most this many
/// bytes before a keyword it contains (`encryption_key`, `--my-service-token`:
/// the keyword ends the name, and names are short; a Kubernetes
/// `name: …_PASSWORD` / `value:` pair or a `["…_token"] =` subscript puts a
/// name of up to 60 characters before its keyword).
const GENERIC_LEAD: usize = 128;

/// Which rules' keywords occurred, and where (for context rules).
#[derive(Debug)]
struct KeywordHits {
    /// Whether any of the rule's keywords occurred.
    triggered: Vec<bool>,
    /// Per context rule, each keyword start with the end of the shortest
    /// keyword there, in the order the prefilter reports them.
    positions: Vec<Vec<Span>>,
    /// The rule had more than [`MAX_WINDOWS_PER_RULE`] keyword starts.
    overflow: Vec<bool>,
    /// The context rules that recorded positions, so work on positions
    /// skips the rest.
    touched: Vec<usize>,
}

thread_local! {
    /// The keyword-hit tables of this thread's last scan, kept so that a
    /// batch of texts does not allocate and free them once per text.
    static SPARE_HITS: std::cell::RefCell<Option<KeywordHits>> =
        const { std::cell::RefCell::new(None) };
}

impl KeywordHits {
    /// Empty tables for `n` rules: this thread's spare ones, cleared, or
    /// new ones.
    fn spare(n: usize) -> KeywordHits {
        let spare = SPARE_HITS
            .try_with(|s| s.try_borrow_mut().ok().and_then(|mut s| s.take()))
            .ok()
            .flatten()
            .filter(|h| h.triggered.len() == n);
        match spare {
            Some(mut hits) => {
                hits.triggered.fill(false);
                hits.overflow.fill(false);
                // Only touched rules record positions.
                for r in hits.touched.drain(..) {
                    hits.positions[r].clear();
                }
                hits
            }
            None => KeywordHits {
                triggered: vec![false; n],
                positions: vec![Vec::new(); n],
                overflow: vec![false; n],
                touched: Vec::new(),
            },
        }
    }

    /// Keep these tables for this thread's next scan.
    fn keep_for_reuse(self) {
        let _ = SPARE_HITS.try_with(|s| {
            if let Ok(mut s) = s.try_borrow_mut() {
                *s = Some(self);
            }
        });
    }

    /// Put in `out` the regions of `text` a rule's regex must search; false
    /// when the rule's keywords do not occur. Format rules (specific tier)
    /// search the whole text: their regexes have literal prefixes and are
    /// fast. Context
    /// rules search only the lines around their keyword hits, so a long text
    /// with a few `password`/`key` mentions does not pay for a full pass of
    /// the heavier context regexes.
    fn regions(&self, rule: usize, tier: Tier, text: &str, out: &mut Vec<Span>) -> bool {
        out.clear();
        if !self.triggered[rule] {
            return false;
        }
        if tier == Tier::Specific || self.overflow[rule] {
            out.push(Span::new(0, text.len()));
            return true;
        }
        for pos in self.positions[rule].iter().map(|p| p.start) {
            let after = if tier == Tier::Generic {
                GENERIC_WINDOW_BYTES_AFTER
            } else {
                WINDOW_BYTES_AFTER
            };
            match out.last_mut() {
                // The window starts at or before `pos`, so it joins the
                // last one; only its end is needed.
                Some(last) if pos <= last.end => {
                    last.end = last.end.max(window_end(text, pos, after));
                }
                last => {
                    let w = line_window(text, pos, after);
                    match last {
                        Some(last) if w.start <= last.end => last.end = last.end.max(w.end),
                        _ => out.push(w),
                    }
                }
            }
        }
        true
    }
}

impl KeywordHits {
    /// The keyword hits of the context and credential-name rules in
    /// `masked.text`, derived from those of the original: every hit the
    /// masks leave whole, moved to its place in the masked text. Format rules
    /// get none: the settle pass does not run them. Exact when no keyword
    /// can be spelled by a mask ([`keyword_survives_masks`]); `None` when it
    /// cannot be derived (then the caller runs the prefilter again).
    fn after_masking(&self, scanner: &SecretScanner, masked: &Masked) -> Option<KeywordHits> {
        if !scanner.keywords_survive_masks || self.overflow.iter().any(|&o| o) {
            return None;
        }
        let n = self.positions.len();
        let mut hits = KeywordHits {
            triggered: vec![false; n],
            positions: vec![Vec::new(); n],
            overflow: vec![false; n],
            touched: Vec::with_capacity(self.touched.len()),
        };
        for &r in &self.touched {
            let mut kept: Vec<Span> = Vec::with_capacity(self.positions[r].len());
            for &p in self.positions[r].iter().filter(|&&p| !masked.covers(p)) {
                let p = Span::new(masked.to_masked(p.start), masked.to_masked(p.end));
                // A start repeated once the hits between are gone is one
                // position, as the prefilter pass records it.
                match kept.last_mut() {
                    Some(last) if last.start == p.start => last.end = last.end.min(p.end),
                    _ => kept.push(p),
                }
            }
            if !kept.is_empty() {
                hits.triggered[r] = true;
                hits.positions[r] = kept;
                hits.touched.push(r);
            }
        }
        Some(hits)
    }
}

/// A text with findings masked, and where each mask went.
struct Masked {
    text: String,
    /// In order, disjoint.
    pieces: Vec<Piece>,
}

/// One masked finding.
#[derive(Clone, Copy, Debug)]
struct Piece {
    /// The finding's span in the original text.
    original: Span,
    /// The preview's span in the masked text.
    masked: Span,
    /// Bytes of the preview that are the value's own first characters.
    visible: usize,
}

impl Piece {
    /// A keyword hit (original offsets) the mask does not leave whole: it
    /// reaches past the value's visible first characters into the value.
    fn covers(&self, hit: Span) -> bool {
        hit.end > self.original.start + self.visible && hit.start < self.original.end
    }
}

impl Masked {
    /// Mask `findings` (in order, disjoint, on char boundaries of `text`).
    fn new(text: &str, findings: &[SecretFinding]) -> Masked {
        let mut out = String::with_capacity(text.len());
        let mut pieces = Vec::with_capacity(findings.len());
        let mut cursor = 0;
        for f in findings {
            out.push_str(&text[cursor..f.span.start]);
            let at = out.len();
            out.push_str(&f.preview);
            pieces.push(Piece {
                original: f.span,
                masked: Span::new(at, out.len()),
                visible: f.preview.find(ELLIPSIS).unwrap_or(0),
            });
            cursor = f.span.end;
        }
        out.push_str(&text[cursor..]);
        Masked { text: out, pieces }
    }

    /// Whether a mask leaves the keyword hit `hit` (original offsets)
    /// incomplete.
    fn covers(&self, hit: Span) -> bool {
        let i = self.pieces.partition_point(|p| p.original.end <= hit.start);
        self.pieces.get(i).is_some_and(|p| p.covers(hit))
    }

    /// An original offset outside every mask, or inside a value's visible
    /// first characters, in the masked text.
    fn to_masked(&self, at: usize) -> usize {
        let i = self.pieces.partition_point(|p| p.original.start <= at);
        match i.checked_sub(1).map(|i| self.pieces[i]) {
            None => at,
            Some(p) if at < p.original.end => p.masked.start + (at - p.original.start),
            Some(p) => p.masked.end + (at - p.original.end),
        }
    }

    /// A masked-text span in the original text. An end that falls inside a
    /// preview widens to cover the whole masked value.
    fn to_original(&self, span: Span) -> Span {
        let start = {
            let i = self.pieces.partition_point(|p| p.masked.end <= span.start);
            match self.pieces.get(i) {
                Some(p) if p.masked.start <= span.start => p.original.start,
                _ => self.after(i, span.start),
            }
        };
        let end = {
            let i = self.pieces.partition_point(|p| p.masked.end < span.end);
            match self.pieces.get(i) {
                Some(p) if p.masked.start < span.end => p.original.end,
                _ => self.after(i, span.end),
            }
        };
        Span::new(start, end.max(start))
    }

    /// A masked-text offset that follows the first `i` pieces and precedes
    /// the rest, in the original text.
    fn after(&self, i: usize, at: usize) -> usize {
        match i.checked_sub(1).map(|i| self.pieces[i]) {
            None => at,
            Some(p) => p.original.end + (at - p.masked.end),
        }
    }

    /// `found` plus the findings `more` of a pass over the masked text,
    /// mapped back to `text`; a new finding that touches a masked value
    /// absorbs it. Both lists are in order, so this is one merge.
    fn merge(
        &self,
        text: &str,
        found: Vec<SecretFinding>,
        more: &[SecretFinding],
    ) -> Vec<SecretFinding> {
        let mut out: Vec<SecretFinding> = Vec::with_capacity(found.len() + more.len());
        let mut found = found.into_iter().peekable();
        for f in more {
            let mut span = self.to_original(f.span);
            while let Some(g) = found.next_if(|g| g.span.end <= span.start) {
                out.push(g);
            }
            let mut absorbed = false;
            while let Some(g) = found.next_if(|g| g.span.start < span.end) {
                span = Span::new(span.start.min(g.span.start), span.end.max(g.span.end));
                absorbed = true;
            }
            // Two new findings widened over the same masked value are one.
            while let Some(last) = out.last().filter(|l| l.span.end > span.start) {
                span = Span::new(last.span.start.min(span.start), span.end.max(last.span.end));
                absorbed = true;
                out.pop();
            }
            out.push(SecretFinding {
                span,
                preview: mask_secret(&text[span.range()]),
                verified: f.verified && !absorbed,
                ..f.clone()
            });
        }
        out.extend(found);
        out
    }
}

/// Whether no mask (`…****` or `****`, next to any text) can spell `keyword`:
/// it has no `…`, and no `*` next to another `*` or at either end (a mask's
/// stars come four in a row).
fn keyword_survives_masks(keyword: &str) -> bool {
    let b = keyword.as_bytes();
    !keyword.contains(ELLIPSIS)
        && b.iter().enumerate().all(|(i, &c)| {
            c != b'*' || (i > 0 && i + 1 < b.len() && b[i - 1] != b'*' && b[i + 1] != b'*')
        })
}

/// The lines around `pos`, bounded in bytes, on char boundaries.
fn line_window(text: &str, pos: usize, bytes_after: usize) -> Span {
    let bytes = text.as_bytes();
    let floor = pos.saturating_sub(WINDOW_BYTES_BEFORE);
    let mut start = memchr::memrchr_iter(b'\n', &bytes[floor..pos])
        .nth(WINDOW_LINES_BEFORE)
        .map_or(floor, |i| floor + i + 1);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    Span::new(start, window_end(text, pos, bytes_after).max(start))
}

/// Where the window around `pos` ends ([`line_window`]): at or after `pos`.
fn window_end(text: &str, pos: usize, bytes_after: usize) -> usize {
    let ceiling = (pos + bytes_after).min(text.len());
    let mut end = memchr::memchr_iter(b'\n', &text.as_bytes()[pos..ceiling])
        .nth(WINDOW_LINES_AFTER)
        .map_or(ceiling, |i| pos + i);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    end
}

/// The text with every colon lead-in (`…for deploys: `, `配置：`) turned
/// into a line break of the same length, or `None` when it has none: byte
/// offsets and `char` boundaries stay those of `text` (`: ` and `:\t`
/// become `:\n`, the three bytes of `：` become `  \n`).
fn lead_ins_as_line_breaks(text: &str) -> Option<String> {
    if !text.contains(": ") && !text.contains(":\t") && !text.contains('：') {
        return None;
    }
    Some(
        text.replace(": ", ":\n")
            .replace(":\t", ":\n")
            .replace('：', "  \n"),
    )
}

/// Replace each finding's span in `text` by its preview. Findings must have
/// been produced on `text` (sorted, disjoint, on char boundaries); any that
/// are not are skipped rather than panicking.
///
/// ```
/// use palisade_secrets::{apply_redactions, SecretScanner};
/// let text = "token=ghp_R8aWq2LmZ0xT5vNcK7pB3yHd9JfE1sUgQ4iO ok";
/// let found = SecretScanner::builtin().scan(text);
/// assert_eq!(apply_redactions(text, &found), "token=ghp_…**** ok");
/// ```
pub fn apply_redactions(text: &str, findings: &[SecretFinding]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut cursor = 0;
    for f in findings {
        let (start, end) = (f.span.start, f.span.end);
        if start < cursor
            || end > text.len()
            || !text.is_char_boundary(start)
            || !text.is_char_boundary(end)
        {
            continue;
        }
        out.push_str(&text[cursor..start]);
        out.push_str(&f.preview);
        cursor = end;
    }
    out.push_str(&text[cursor..]);
    out
}

/// Parse a rule file (a JSON array of [`RuleSpec`]).
///
/// # Errors
///
/// The text is not a JSON array of rule objects.
///
/// ```
/// use palisade_secrets::parse_rules;
/// assert!(parse_rules("[]").unwrap().is_empty());
/// assert!(parse_rules("{").is_err());
/// ```
pub fn parse_rules(json: &str) -> Result<Vec<RuleSpec>, Error> {
    serde_json::from_str(json)
        .map_err(|e| Error::new(ErrorKind::Rule, format!("rule file is not valid: {e}")))
}

/// The built-in rule specs, in file order.
///
/// # Errors
///
/// Only if a built-in data file is malformed, which the crate's tests rule out.
///
/// ```
/// let specs = palisade_secrets::builtin_specs().unwrap();
/// assert!(specs.len() >= 60);
/// ```
pub fn builtin_specs() -> Result<Vec<RuleSpec>, Error> {
    let mut all = Vec::new();
    for (name, text) in BUILTIN_RULE_FILES {
        let specs = parse_rules(text)
            .map_err(|e| Error::new(ErrorKind::Rule, format!("{name}: {}", e.message())))?;
        all.extend(specs);
    }
    Ok(all)
}

fn validate_id(id: &str) -> Result<(), Error> {
    let parts: Vec<&str> = id.split('.').collect();
    let ok = parts.len() == 4
        && parts[0] == "egress"
        && parts[1] == "secret"
        && !parts[2].is_empty()
        && parts[2]
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !parts[3].is_empty()
        && parts[3].chars().all(|c| c.is_ascii_digit());
    if ok {
        Ok(())
    } else {
        Err(Error::new(
            ErrorKind::Rule,
            format!("rule id `{id}` is not egress.secret.<provider>.<n>"),
        ))
    }
}

/// A rule pattern as the scanner compiles it: `\b` is made ASCII-only
/// (token boundaries are ASCII, and an ASCII boundary keeps the lazy DFA
/// usable on non-ASCII text).
fn ascii_boundaries(pattern: &str) -> String {
    pattern.replace(r"\b", r"(?-u:\b)")
}

/// The first char boundary of `s` after byte `at` (or `s.len() + 1` at the end,
/// which stops the search loop).
fn next_char_boundary(s: &str, at: usize) -> usize {
    s[at..]
        .chars()
        .next()
        .map_or(s.len() + 1, |c| at + c.len_utf8())
}

/// Compile a rule pattern ([`ascii_boundaries`]).
fn compile_pattern(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(&ascii_boundaries(pattern))
        .size_limit(32 * (1 << 20))
        .dfa_size_limit(32 * (1 << 20))
        .build()
}

#[derive(Clone, Copy, Debug)]
struct Candidate {
    rule: usize,
    span: Span,
    verified: bool,
}

/// Keep a disjoint subset: more specific tier first, then longer, then earlier.
fn resolve_overlaps(rules: &[SecretRule], mut candidates: Vec<Candidate>) -> Vec<Candidate> {
    candidates.sort_by(|a, b| {
        let ta = rules[a.rule].spec.tier;
        let tb = rules[b.rule].spec.tier;
        tb.cmp(&ta)
            .then(b.span.len().cmp(&a.span.len()))
            .then(a.span.start.cmp(&b.span.start))
            .then(a.rule.cmp(&b.rule))
    });
    let mut chosen: Vec<Candidate> = Vec::new();
    for c in candidates {
        let pos = chosen.partition_point(|x| x.span.start < c.span.start);
        let clash_before = pos > 0 && chosen[pos - 1].span.end > c.span.start;
        let clash_after = pos < chosen.len() && chosen[pos].span.start < c.span.end;
        if !clash_before && !clash_after {
            chosen.insert(pos, c);
        }
    }
    chosen
}

#[cfg(test)]
mod tests;
