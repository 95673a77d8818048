//! Walking an Aho-Corasick automaton over a text as independent streams,
//! side by side.
//!
//! One walk of a DFA is bound by the latency of two dependent table loads a
//! byte. Cutting the text into [`STREAMS`] parts and walking them together
//! overlaps those loads (1 MiB of English prose: 2.1 ms for one walk, 0.6 ms
//! for four). Each part but the last reaches `max_len - 1` bytes into the
//! next, so every occurrence lies wholly inside one part; an occurrence in
//! that reach is reported by both parts.
//!
//! ```
//! use aho_corasick::{dfa, MatchKind};
//! use palisade_common::automaton::walk;
//! let d = dfa::Builder::new().match_kind(MatchKind::Standard).build(["key", "pass"]).unwrap();
//! let text = "the pass key, the pass key. ".repeat(20);
//! let mut ends = Vec::new();
//! walk(&d, text.as_bytes(), 4, |_, end| ends.push(end)).unwrap();
//! ends.sort_unstable();
//! ends.dedup();
//! assert_eq!(ends.len(), 80);
//! assert_eq!(&text[ends[0] - 4..ends[0]], "pass");
//! ```

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::{Anchored, MatchError};

/// Texts at least this long are walked as [`STREAMS`] parts; shorter ones as
/// one (four parts already pay off on a 1 KB text).
pub const INTERLEAVE_MIN: usize = 256;

/// Parts walked side by side. The loop names its four states, so this
/// stays 4.
pub const STREAMS: usize = 4;

/// Walk `text` with the unanchored automaton `auto`, calling
/// `on_match(state, end)` for every match state reached, where `end` is the
/// offset just past the byte that reached it (the patterns of `state` end
/// there). `max_len` is the longest pattern, in bytes.
///
/// # Errors
///
/// The automaton has no unanchored start state.
///
/// ```
/// use aho_corasick::{automaton::Automaton, dfa, MatchKind};
/// use palisade_common::automaton::walk;
/// let d = dfa::Builder::new().match_kind(MatchKind::Standard).build(["ab", "b"]).unwrap();
/// let mut found = Vec::new();
/// walk(&d, b"xab", 2, |s, end| {
///     for i in 0..d.match_len(s) {
///         found.push((d.match_pattern(s, i).as_usize(), end));
///     }
/// })
/// .unwrap();
/// found.sort_unstable();
/// assert_eq!(found, [(0, 3), (1, 3)]);
/// ```
pub fn walk<A: Automaton>(
    auto: &A,
    text: &[u8],
    max_len: usize,
    on_match: impl FnMut(StateID, usize),
) -> Result<(), MatchError> {
    let streams = if text.len() >= INTERLEAVE_MIN {
        STREAMS
    } else {
        1
    };
    walk_streams(auto, text, max_len, streams, on_match)
}

/// [`walk`] with the number of parts chosen by the caller: [`STREAMS`], or
/// one (any other number walks one part).
///
/// # Errors
///
/// The automaton has no unanchored start state.
///
/// ```
/// use aho_corasick::{dfa, MatchKind};
/// use palisade_common::automaton::{walk_streams, STREAMS};
/// let d = dfa::Builder::new().match_kind(MatchKind::Standard).build(["key"]).unwrap();
/// let (mut one, mut four) = (Vec::new(), Vec::new());
/// walk_streams(&d, b"a key and a key", 3, 1, |_, end| one.push(end)).unwrap();
/// walk_streams(&d, b"a key and a key", 3, STREAMS, |_, end| four.push(end)).unwrap();
/// four.sort_unstable();
/// four.dedup();
/// assert_eq!(one, four);
/// ```
pub fn walk_streams<A: Automaton>(
    auto: &A,
    text: &[u8],
    max_len: usize,
    streams: usize,
    mut on_match: impl FnMut(StateID, usize),
) -> Result<(), MatchError> {
    let start = auto.start_state(Anchored::No)?;
    let n = text.len();
    let k = if streams == STREAMS { STREAMS } else { 1 };
    let q = n / k;
    let reach = max_len.saturating_sub(1);
    let mut parts: [&[u8]; STREAMS] = [&[]; STREAMS];
    let mut bases = [0usize; STREAMS];
    for (i, part) in parts.iter_mut().enumerate().take(k) {
        let end = if i + 1 == k {
            n
        } else {
            ((i + 1) * q + reach).min(n)
        };
        bases[i] = i * q;
        *part = &text[i * q..end];
    }
    let parts = &parts[..k];
    let mut sid = [start; STREAMS];
    // Side by side while every part has bytes left (four named states and
    // parts cut to one length, so the loop has no bounds checks)…
    let common = if k == STREAMS {
        parts.iter().map(|p| p.len()).min().unwrap_or(0)
    } else {
        0
    };
    if let [a, b, c, e] = parts {
        let (a, b, c, e) = (&a[..common], &b[..common], &c[..common], &e[..common]);
        let [mut s0, mut s1, mut s2, mut s3] = sid;
        for i in 0..common {
            s0 = auto.next_state(Anchored::No, s0, a[i]);
            s1 = auto.next_state(Anchored::No, s1, b[i]);
            s2 = auto.next_state(Anchored::No, s2, c[i]);
            s3 = auto.next_state(Anchored::No, s3, e[i]);
            if auto.is_special(s0) | auto.is_special(s1) | auto.is_special(s2) | auto.is_special(s3)
            {
                for (j, s) in [s0, s1, s2, s3].into_iter().enumerate() {
                    if auto.is_match(s) {
                        on_match(s, bases[j] + i + 1);
                    }
                }
            }
        }
        sid = [s0, s1, s2, s3];
    }
    // …then each part's rest on its own.
    for ((s, p), base) in sid.iter_mut().zip(parts).zip(bases) {
        for (i, &b) in p.iter().enumerate().skip(common) {
            *s = auto.next_state(Anchored::No, *s, b);
            if auto.is_special(*s) && auto.is_match(*s) {
                on_match(*s, base + i + 1);
            }
        }
    }
    Ok(())
}

/// Where a [`Stepper`] stopped.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Step {
    /// A match state was reached; the patterns of the state end at the offset.
    Match(StateID, usize),
    /// The limit was reached with text left.
    Paused,
    /// The text is done (or the automaton reached a dead state).
    Done,
}

/// A resumable, single-stream walk: it goes only as far as the caller asks,
/// so a reader that stops early (a claim limit, say) never scans the rest.
/// Matches come in the order an overlapping search reports them by end.
///
/// ```
/// use aho_corasick::{automaton::Automaton, dfa, MatchKind};
/// use palisade_common::automaton::{Step, Stepper};
/// let d = dfa::Builder::new().match_kind(MatchKind::Standard).build(["ab"]).unwrap();
/// let mut s = Stepper::new(&d, b"xab ab").unwrap();
/// assert_eq!(s.next_match(2), Step::Paused);
/// assert!(matches!(s.next_match(usize::MAX), Step::Match(_, 3)));
/// assert!(matches!(s.next_match(usize::MAX), Step::Match(_, 6)));
/// assert_eq!(s.next_match(usize::MAX), Step::Done);
/// ```
#[derive(Clone, Debug)]
pub struct Stepper<'a, A> {
    auto: &'a A,
    text: &'a [u8],
    sid: StateID,
    at: usize,
}

impl<'a, A: Automaton> Stepper<'a, A> {
    /// A walk of `text` from its start.
    ///
    /// # Errors
    ///
    /// The automaton has no unanchored start state.
    ///
    /// ```
    /// use aho_corasick::dfa;
    /// use palisade_common::automaton::Stepper;
    /// let d = dfa::DFA::new(["a"]).unwrap();
    /// assert_eq!(Stepper::new(&d, b"abc").unwrap().position(), 0);
    /// ```
    pub fn new(auto: &'a A, text: &'a [u8]) -> Result<Stepper<'a, A>, MatchError> {
        let sid = auto.start_state(Anchored::No)?;
        Ok(Stepper {
            auto,
            text,
            sid,
            at: 0,
        })
    }

    /// The state before the first byte (a match state only when the
    /// automaton holds an empty pattern).
    ///
    /// ```
    /// use aho_corasick::{automaton::Automaton, dfa};
    /// use palisade_common::automaton::Stepper;
    /// let d = dfa::DFA::new(["a"]).unwrap();
    /// assert!(!d.is_match(Stepper::new(&d, b"abc").unwrap().start()));
    /// ```
    pub fn start(&self) -> StateID {
        self.sid
    }

    /// Bytes walked so far.
    ///
    /// ```
    /// use aho_corasick::dfa;
    /// use palisade_common::automaton::Stepper;
    /// let d = dfa::DFA::new(["z"]).unwrap();
    /// let mut s = Stepper::new(&d, b"abc").unwrap();
    /// s.next_match(2);
    /// assert_eq!(s.position(), 2);
    /// ```
    pub fn position(&self) -> usize {
        self.at
    }

    /// Walk up to byte `limit` or the next match state, whichever is first.
    ///
    /// ```
    /// use aho_corasick::dfa;
    /// use palisade_common::automaton::{Step, Stepper};
    /// let d = dfa::DFA::new(["z"]).unwrap();
    /// let mut s = Stepper::new(&d, b"abc").unwrap();
    /// assert_eq!(s.next_match(usize::MAX), Step::Done);
    /// assert_eq!(s.position(), 3);
    /// ```
    pub fn next_match(&mut self, limit: usize) -> Step {
        let auto = self.auto;
        let bytes = self.text;
        let limit = limit.min(bytes.len());
        // State and position live in locals in the hot loop.
        let (mut sid, mut at) = (self.sid, self.at);
        while at < limit {
            sid = auto.next_state(Anchored::No, sid, bytes[at]);
            at += 1;
            if auto.is_special(sid) {
                if auto.is_dead(sid) {
                    self.at = bytes.len();
                    return Step::Done;
                }
                if auto.is_match(sid) {
                    (self.sid, self.at) = (sid, at);
                    return Step::Match(sid, at);
                }
            }
        }
        (self.sid, self.at) = (sid, at);
        if at < bytes.len() {
            Step::Paused
        } else {
            Step::Done
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aho_corasick::{dfa, AhoCorasick, MatchKind};
    use proptest::prelude::*;

    fn occurrences(
        d: &dfa::DFA,
        text: &[u8],
        max_len: usize,
        streams: usize,
    ) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let walked = walk_streams(d, text, max_len, streams, |s, end| {
            for i in 0..d.match_len(s) {
                out.push((d.match_pattern(s, i).as_usize(), end));
            }
        });
        assert!(walked.is_ok());
        out.sort_unstable();
        out.dedup();
        out
    }

    #[test]
    fn stepper_reports_what_one_walk_reports() {
        let d = dfa::Builder::new()
            .match_kind(MatchKind::Standard)
            .build(["ab", "b", "abc"]);
        assert!(d.is_ok());
        let Ok(d) = d else { return };
        let text = b"xabcab bab abc".repeat(5);
        let mut walked = Vec::new();
        assert!(walk_streams(&d, &text, 3, 1, |s, end| walked.push((s, end))).is_ok());
        let stepper = Stepper::new(&d, &text);
        assert!(stepper.is_ok());
        let Ok(mut stepper) = stepper else { return };
        let mut stepped = Vec::new();
        let mut limit = 0;
        loop {
            limit += 5;
            match stepper.next_match(limit) {
                Step::Match(s, end) => stepped.push((s, end)),
                Step::Paused => assert_eq!(stepper.position(), limit),
                Step::Done => break,
            }
        }
        assert_eq!(stepped, walked);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// One walk and four side by side report exactly the occurrences an
        /// overlapping search finds, however the cuts fall.
        #[test]
        fn streams_find_every_occurrence(
            pats in proptest::collection::vec("[ab]{1,4}", 1..6),
            text in "[abc]{0,700}",
        ) {
            let d = dfa::Builder::new().match_kind(MatchKind::Standard).build(&pats);
            prop_assert!(d.is_ok());
            let Ok(d) = d else { return Ok(()) };
            let ac = AhoCorasick::builder().match_kind(MatchKind::Standard).build(&pats);
            prop_assert!(ac.is_ok());
            let Ok(ac) = ac else { return Ok(()) };
            let mut expected: Vec<(usize, usize)> = ac
                .find_overlapping_iter(text.as_str())
                .map(|m| (m.pattern().as_usize(), m.end()))
                .collect();
            expected.sort_unstable();
            expected.dedup();
            let max_len = pats.iter().map(String::len).max().unwrap_or(0);
            prop_assert_eq!(&occurrences(&d, text.as_bytes(), max_len, 1), &expected);
            prop_assert_eq!(&occurrences(&d, text.as_bytes(), max_len, STREAMS), &expected);
        }
    }
}
