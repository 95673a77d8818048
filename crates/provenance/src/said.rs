//! The said-text index: what the user typed, searchable for verbatim quotes.
//!
//! The caller fills a [`SaidIndex`] with captured user messages (session id,
//! parent session, sender, text). Every message is kept in *match form*
//! (NFKC, invisible characters removed, lower case, curly quotes folded to
//! straight ones, whitespace runs collapsed to one space) in one
//! concatenated buffer, and every adjacent pair of *units* (a run of letters
//! and digits, or one CJK character) is indexed by a hash. A quote lookup
//! takes the quote's rarest unit pair, checks only the positions where it
//! occurs, and compares bytes there — so it costs time proportional to the
//! number of candidate positions, not to the size of the store.
//!
//! ```
//! use palisade_provenance::said::{SaidIndex, SearchScope};
//!
//! let mut said = SaidIndex::new();
//! said.push("s1", None, "u1", "I decided we ship on Friday");
//! let hits = said.find("we ship on Friday", "s1", SearchScope::Session);
//! assert_eq!(hits.len(), 1);
//! assert!(said.find("ship on Fri", "s1", SearchScope::Session).is_empty()); // half a word
//! assert!(said.find("we ship on Friday", "other", SearchScope::Session).is_empty());
//! assert_eq!(said.find("we ship on Friday", "other", SearchScope::Profile).len(), 1);
//! ```

use palisade_common::normalize::normalize;
use palisade_common::tokens::is_cjk;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Where quotes may come from.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq, Hash)]
#[non_exhaustive]
pub enum SearchScope {
    /// This session and the sessions it was compressed from (the default).
    #[default]
    Session,
    /// Every retained message of the profile (this session is searched first).
    Profile,
}

impl SearchScope {
    /// Parse the seed's spelling (`session`, `profile`).
    ///
    /// ```
    /// use palisade_provenance::said::SearchScope;
    /// assert_eq!(SearchScope::parse("profile"), Some(SearchScope::Profile));
    /// assert_eq!(SearchScope::parse("x"), None);
    /// ```
    pub fn parse(s: &str) -> Option<SearchScope> {
        match s.trim().to_ascii_lowercase().as_str() {
            "session" => Some(SearchScope::Session),
            "profile" => Some(SearchScope::Profile),
            _ => None,
        }
    }
}

/// One occurrence of a quote in what the user typed.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct Hit {
    /// Index of the message (in push order).
    pub message: usize,
    /// Byte span of the occurrence in the message's match form.
    pub start: usize,
    /// End of the occurrence in the message's match form.
    pub end: usize,
    /// Whether the message is in the searched session chain.
    pub this_session: bool,
}

#[derive(Clone, Debug)]
struct Message {
    start: usize,
    end: usize,
    session: u32,
    sender: String,
}

/// Captured user messages with a quote index (see the [module docs](self)).
#[derive(Clone, Debug, Default)]
pub struct SaidIndex {
    text: String,
    messages: Vec<Message>,
    sessions: HashMap<String, u32>,
    parents: Vec<Option<u32>>,
    by_session: Vec<Vec<usize>>,
    postings: HashMap<u64, Vec<u32>, BuildHasherDefault<KeyHasher>>,
}

/// At most this many ancestor sessions are followed through compression links.
const MAX_CHAIN: usize = 64;

/// Candidate positions examined per quote lookup (a bound for adversarial stores).
const MAX_CANDIDATES: usize = 200_000;

impl SaidIndex {
    /// An empty index.
    ///
    /// ```
    /// assert!(palisade_provenance::said::SaidIndex::new().is_empty());
    /// ```
    pub fn new() -> SaidIndex {
        SaidIndex::default()
    }

    /// Number of messages.
    ///
    /// ```
    /// let mut s = palisade_provenance::said::SaidIndex::new();
    /// s.push("a", None, "", "hello there");
    /// assert_eq!(s.len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// Whether no message was added.
    ///
    /// ```
    /// assert!(palisade_provenance::said::SaidIndex::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// Add one user message; returns its index. `parent_session` links a
    /// session started by context compression to the one before it.
    ///
    /// ```
    /// use palisade_provenance::said::{SaidIndex, SearchScope};
    /// let mut s = SaidIndex::new();
    /// s.push("old", None, "u", "Never delete the prod database");
    /// s.push("new", Some("old"), "u", "ok");
    /// assert_eq!(s.find("delete the prod database", "new", SearchScope::Session).len(), 1);
    /// ```
    pub fn push(
        &mut self,
        session: &str,
        parent_session: Option<&str>,
        sender: &str,
        text: &str,
    ) -> usize {
        let sid = self.session_id(session);
        if let Some(parent) = parent_session.filter(|p| !p.is_empty() && *p != session) {
            let pid = self.session_id(parent);
            if self.parents[sid as usize].is_none() {
                self.parents[sid as usize] = Some(pid);
            }
        }
        let form = match_form(text);
        // Messages are separated by a newline so no quote spans two of them.
        if !self.text.is_empty() {
            self.text.push('\n');
        }
        let start = self.text.len();
        self.text.push_str(&form);
        let end = self.text.len();
        let index = self.messages.len();
        self.messages.push(Message {
            start,
            end,
            session: sid,
            sender: sender.to_owned(),
        });
        self.by_session[sid as usize].push(index);
        self.index_range(start, end);
        index
    }

    /// The sender recorded for message `index`.
    ///
    /// ```
    /// let mut s = palisade_provenance::said::SaidIndex::new();
    /// let i = s.push("a", None, "u42", "hello there");
    /// assert_eq!(s.sender(i), Some("u42"));
    /// ```
    pub fn sender(&self, index: usize) -> Option<&str> {
        self.messages.get(index).map(|m| m.sender.as_str())
    }

    /// The match form of message `index`.
    ///
    /// ```
    /// let mut s = palisade_provenance::said::SaidIndex::new();
    /// let i = s.push("a", None, "", "Ship  It’s FRIDAY");
    /// assert_eq!(s.message_form(i), Some("ship it's friday"));
    /// ```
    pub fn message_form(&self, index: usize) -> Option<&str> {
        self.messages.get(index).map(|m| &self.text[m.start..m.end])
    }

    /// The last `n` messages of the session chain of `session`, newest last.
    pub(crate) fn last_messages(&self, session: &str, n: usize) -> Vec<usize> {
        let chain = self.chain(session);
        let mut all: Vec<usize> = chain
            .iter()
            .flat_map(|&sid| {
                let list = &self.by_session[sid as usize];
                list[list.len().saturating_sub(n)..].iter().copied()
            })
            .collect();
        all.sort_unstable();
        let skip = all.len().saturating_sub(n);
        all.split_off(skip)
    }

    /// Occurrences of `quote` (any text; it is brought to match form and its
    /// trailing punctuation dropped) that do not cut a word in half. With
    /// [`SearchScope::Session`] only the session chain of `session` counts;
    /// with [`SearchScope::Profile`] every message does, this session first.
    pub fn find(&self, quote: &str, session: &str, scope: SearchScope) -> Vec<Hit> {
        let q = quote_form(quote);
        self.find_form(&q, session, scope)
    }

    /// [`SaidIndex::find`] for a quote already in quote form.
    pub(crate) fn find_form(&self, q: &str, session: &str, scope: SearchScope) -> Vec<Hit> {
        let mut hits = Vec::new();
        if q.is_empty() {
            return hits;
        }
        let chain = self.chain(session);
        let units = units(q);
        let candidates: Vec<usize> = if units.len() >= 2 {
            // The rarest unit pair of the quote picks the candidates.
            let mut best: Option<(&Vec<u32>, usize)> = None;
            for w in units.windows(2) {
                let key = pair_key(&q[w[0].0..w[0].1], &q[w[1].0..w[1].1]);
                match self.postings.get(&key) {
                    None => return hits,
                    Some(list) => {
                        if best.is_none_or(|(b, _)| list.len() < b.len()) {
                            best = Some((list, w[0].0));
                        }
                    }
                }
            }
            match best {
                // In session scope, when the session's own text is small
                // next to the candidate list (a pair common elsewhere in the
                // profile), scanning the session's messages is cheaper.
                Some((list, _))
                    if scope == SearchScope::Session && {
                        let budget = list.len().saturating_mul(256);
                        let bytes = self.chain_bytes(&chain, budget);
                        bytes < budget
                    } =>
                {
                    self.scan_chain(q, &chain)
                }
                Some((list, offset)) => list
                    .iter()
                    .take(MAX_CANDIDATES)
                    .filter_map(|&p| (p as usize).checked_sub(offset))
                    .collect(),
                None => Vec::new(),
            }
        } else {
            // One unit (or none): a bounded scan of the searched messages.
            let mut out = Vec::new();
            for (i, m) in self.messages.iter().enumerate() {
                if scope == SearchScope::Session && !chain.contains(&m.session) {
                    continue;
                }
                let body = &self.text[m.start..m.end];
                let _ = i;
                let mut from = 0;
                while let Some(pos) = body[from..].find(q) {
                    out.push(m.start + from + pos);
                    from += pos + q.len().max(1);
                    while from < body.len() && !body.is_char_boundary(from) {
                        from += 1;
                    }
                    if out.len() >= MAX_CANDIDATES || from >= body.len() {
                        break;
                    }
                }
            }
            out
        };
        for start in candidates {
            let end = start + q.len();
            if end > self.text.len()
                || !self.text.is_char_boundary(start)
                || !self.text.is_char_boundary(end)
            {
                continue;
            }
            if &self.text[start..end] != q || !boundary_ok(&self.text, start, end) {
                continue;
            }
            let Some(msg) = self.message_at(start) else {
                continue;
            };
            let m = &self.messages[msg];
            if end > m.end {
                continue;
            }
            let this_session = chain.contains(&m.session);
            if scope == SearchScope::Session && !this_session {
                continue;
            }
            hits.push(Hit {
                message: msg,
                start: start - m.start,
                end: end - m.start,
                this_session,
            });
        }
        // This session first, then oldest first.
        hits.sort_by_key(|h| (!h.this_session, h.message, h.start));
        hits
    }

    /// The text size of the messages of `chain`, counted up to `limit`.
    fn chain_bytes(&self, chain: &[u32], limit: usize) -> usize {
        let mut total = 0usize;
        for &sid in chain {
            for &i in self.by_session.get(sid as usize).into_iter().flatten() {
                if let Some(m) = self.messages.get(i) {
                    total += m.end - m.start;
                }
                if total >= limit {
                    return total;
                }
            }
        }
        total
    }

    /// Every start of `q` in the messages of `chain` (overlapping, like the
    /// postings), bounded by [`MAX_CANDIDATES`].
    fn scan_chain(&self, q: &str, chain: &[u32]) -> Vec<usize> {
        let finder = memchr::memmem::Finder::new(q.as_bytes());
        let mut out = Vec::new();
        for &sid in chain {
            for &i in self.by_session.get(sid as usize).into_iter().flatten() {
                let Some(m) = self.messages.get(i) else {
                    continue;
                };
                // Overlapping matches; the verification below drops any that
                // do not fall on word boundaries.
                let body = &self.text.as_bytes()[m.start..m.end];
                let mut from = 0;
                while let Some(pos) = body.get(from..).and_then(|h| finder.find(h)) {
                    out.push(m.start + from + pos);
                    if out.len() >= MAX_CANDIDATES {
                        return out;
                    }
                    from += pos + 1;
                }
            }
        }
        out
    }

    fn session_id(&mut self, session: &str) -> u32 {
        if let Some(&id) = self.sessions.get(session) {
            return id;
        }
        let id = u32::try_from(self.parents.len()).unwrap_or(u32::MAX);
        self.sessions.insert(session.to_owned(), id);
        self.parents.push(None);
        self.by_session.push(Vec::new());
        id
    }

    /// `session` and its compression ancestors.
    fn chain(&self, session: &str) -> Vec<u32> {
        let mut out = Vec::new();
        let mut cur = self.sessions.get(session).copied();
        while let Some(id) = cur {
            if out.contains(&id) || out.len() >= MAX_CHAIN {
                break;
            }
            out.push(id);
            cur = self.parents.get(id as usize).copied().flatten();
        }
        out
    }

    fn message_at(&self, pos: usize) -> Option<usize> {
        let i = self.messages.partition_point(|m| m.start <= pos);
        i.checked_sub(1)
    }

    fn index_range(&mut self, start: usize, end: usize) {
        let body = &self.text[start..end];
        let us = units(body);
        for w in us.windows(2) {
            let abs = start + w[0].0;
            let Ok(pos) = u32::try_from(abs) else {
                // Positions past 4 GiB are not indexed (a documented limit).
                return;
            };
            let key = pair_key(&body[w[0].0..w[0].1], &body[w[1].0..w[1].1]);
            self.postings.entry(key).or_default().push(pos);
        }
    }
}

/// The match form of user text: normalized, lower case, straight quotes,
/// single spaces.
///
/// ```
/// use palisade_provenance::said::match_form;
/// assert_eq!(match_form("  Don’t\tDELETE “prod”  "), "don't delete \"prod\"");
/// ```
pub fn match_form(text: &str) -> String {
    let n = normalize(text);
    let mut out = String::with_capacity(n.as_str().len());
    let mut space = false;
    for c in n.as_str().chars() {
        let c = match c {
            '’' | '‘' | '‚' | '′' => '\'',
            '“' | '”' | '„' | '″' => '"',
            '\0' => ' ',
            c => c,
        };
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        for l in c.to_lowercase() {
            out.push(l);
        }
    }
    out
}

/// The match form of a quote, without its trailing punctuation.
///
/// ```
/// use palisade_provenance::said::quote_form;
/// assert_eq!(quote_form("Ship it on Friday!"), "ship it on friday");
/// assert_eq!(quote_form("以后不要自动提交。"), "以后不要自动提交");
/// ```
pub fn quote_form(quote: &str) -> String {
    let f = match_form(quote);
    f.trim_end_matches(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '.' | ','
                    | '!'
                    | '?'
                    | ';'
                    | ':'
                    | '…'
                    | '。'
                    | '，'
                    | '！'
                    | '？'
                    | '；'
                    | '：'
                    | '、'
            )
    })
    .to_owned()
}

/// Units of match-form text: runs of letters/digits, or single CJK chars.
fn units(s: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut run: Option<usize> = None;
    for (i, c) in s.char_indices() {
        if is_cjk(c) {
            if let Some(st) = run.take() {
                out.push((st, i));
            }
            out.push((i, i + c.len_utf8()));
        } else if c.is_alphanumeric() {
            if run.is_none() {
                run = Some(i);
            }
        } else if let Some(st) = run.take() {
            out.push((st, i));
        }
    }
    if let Some(st) = run {
        out.push((st, s.len()));
    }
    out
}

fn fnv(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn pair_key(a: &str, b: &str) -> u64 {
    fnv(a) ^ fnv(b).rotate_left(29).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// Whether `c` joins word pieces (`foo-bar`, `snake_case`, `a.b`, `x/y`, `it's`).
fn is_joiner(c: char) -> bool {
    matches!(c, '-' | '_' | '.' | '/' | '\'')
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() && !is_cjk(c)
}

/// A match may not cut a word in half, including across `- _ . / '`.
pub(crate) fn boundary_ok(text: &str, start: usize, end: usize) -> bool {
    let first = text[start..].chars().next();
    let last = text[..end].chars().next_back();
    let mut before = text[..start].chars().rev();
    let b1 = before.next();
    let b2 = before.next();
    let ok_start = match (first, b1) {
        (Some(f), Some(p)) if is_word(f) => {
            !(is_word(p) || (is_joiner(p) && b2.is_some_and(is_word)))
        }
        _ => true,
    };
    let mut after = text[end..].chars();
    let a1 = after.next();
    let a2 = after.next();
    let ok_end = match (last, a1) {
        (Some(l), Some(n)) if is_word(l) => {
            !(is_word(n) || (is_joiner(n) && a2.is_some_and(is_word)))
        }
        _ => true,
    };
    ok_start && ok_end
}

/// A hasher for keys that are already hashes.
#[derive(Default)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 << 8) ^ u64::from(*b) ^ (self.0 >> 56);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verbatim_rules() {
        let mut s = SaidIndex::new();
        s.push(
            "s",
            None,
            "u",
            "Please use the pre-prod database for tests, okay?",
        );
        s.push("s", None, "u", "我决定以后不要自动提交代码");
        let f = |q: &str| s.find(q, "s", SearchScope::Session).len();
        assert_eq!(f("use the pre-prod database"), 1);
        assert_eq!(f("prod database for tests"), 0, "half word across '-'");
        assert_eq!(
            f("USE THE  pre-prod DATABASE."),
            1,
            "case, spaces, trailing punctuation"
        );
        assert_eq!(f("以后不要自动提交"), 1);
        assert_eq!(f("use the prod database"), 0);
    }

    #[test]
    fn many_candidates_still_correct() {
        let mut s = SaidIndex::new();
        for i in 0..2000 {
            s.push(
                "s",
                None,
                "u",
                &format!("of the thing number {i} of the other"),
            );
        }
        assert_eq!(
            s.find("thing number 1999 of", "s", SearchScope::Session)
                .len(),
            1
        );
        assert_eq!(
            s.find("of the other", "s", SearchScope::Session).len(),
            2000
        );
    }

    #[test]
    fn session_scan_agrees_with_postings() {
        let mut s = SaidIndex::new();
        for i in 0..400 {
            let session = if i % 40 == 0 { "s1" } else { "other" };
            s.push(
                session,
                None,
                "u",
                &format!("我决定周五发布新版本 {i}, ship on friday"),
            );
        }
        s.push("s1", None, "u", "well, we ship on friday then");
        // Common everywhere, rare in s1: the session scan answers.
        let session = s.find("ship on friday", "s1", SearchScope::Session);
        assert_eq!(session.len(), 11);
        assert!(session.iter().all(|h| h.this_session));
        let profile = s.find("ship on friday", "s1", SearchScope::Profile);
        assert_eq!(profile.len(), 401);
        assert_eq!(
            profile.iter().filter(|h| h.this_session).count(),
            session.len()
        );
        assert_eq!(
            s.find("我决定周五发布", "s1", SearchScope::Session).len(),
            10
        );
        assert!(s
            .find("hip on friday", "s1", SearchScope::Session)
            .is_empty());
    }
}
