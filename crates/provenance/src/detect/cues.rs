//! The prefilter: one Aho-Corasick walk finds subject triggers, contrast
//! words and predicate cues, read lazily span by span ([`Marks`]).

use super::*;
use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::dfa::DFA;
use aho_corasick::nfa::contiguous::NFA;
use palisade_common::automaton::{Step, Stepper};
use palisade_common::literals::PairTable;

/// Subject triggers and predicate cues, found in one Aho-Corasick pass.
///
/// The cues are the literal prefixes of every predicate slot of the
/// lexicon, extracted from the patterns themselves (so they cannot drift
/// from the rules; the build script extracts them, see `cue_literals.rs`).
/// A form runs its regex on a clause only when one of its triggers and one
/// of its cues are in it: a predicate match starts with one of its slot's
/// prefixes, so the skip never loses a claim.
///
/// A text shorter than [`AUTOMATON_FROM`] is read through a pair table
/// (nothing to build; every occurrence found up front, then handed out
/// in the automaton's order). Longer texts are walked lazily with a
/// contiguous NFA, built on first use, and from [`DFA_FROM`] bytes with
/// the same patterns' DFA (it walks faster but costs tens of milliseconds
/// to build). All three report the same matches in the same order.
#[derive(Debug)]
pub(super) struct Cues {
    /// The same patterns by their first two bytes: nothing to build, so a
    /// one-shot process (a hook, one `check` line) pays for no automaton;
    /// it serves texts shorter than [`AUTOMATON_FROM`].
    table: PairTable,
    /// The NFA of triggers, contrast words and cues, walked byte by byte
    /// (no prefilter: in claim-dense text it would stop every few bytes),
    /// built the first time a text of [`AUTOMATON_FROM`] bytes or more
    /// comes (`None` inside: it failed to build, and the table serves).
    ac: OnceLock<Option<NFA>>,
    /// The same automaton as a DFA, for long texts.
    dfa: OnceLock<Option<DFA>>,
    /// The patterns of `ac`.
    pub(super) literals: Vec<Vec<u8>>,
    /// The cue groups of each literal.
    pub(super) masks: Vec<u16>,
    /// Groups whose prefixes could not be extracted: always searched.
    pub(super) always: u16,
}

/// Texts at least this long are walked with the DFA.
pub(super) const DFA_FROM: usize = 64 * 1024;

/// Texts at least this long are walked with an automaton, shorter ones
/// through the pair table.
pub(super) const AUTOMATON_FROM: usize = 16 * 1024;

// The cue literals the build script extracted from the lexicon.
include!(concat!(env!("OUT_DIR"), "/cue_literals.rs"));

impl Cues {
    /// The cues of the built-in lexicon, extracted at compile time.
    pub(super) fn builtin() -> Cues {
        Cues::with_table(
            BUILT_CUES.iter().map(|&(lit, mask)| (lit.to_vec(), mask)),
            BUILT_ALWAYS,
            Some(BUILT_TABLE.clone()),
        )
    }

    /// The cues of predicate groups given as pattern alternations (the
    /// run-time extraction the build script does; the tests compare).
    #[cfg(test)]
    pub(super) fn new(groups: &[(u16, Option<String>)]) -> Cues {
        let (literals, always) = super::cue_literals::cue_literals(groups);
        Cues::from_literals(literals.into_iter(), always)
    }

    /// The automaton of the trigger and contrast words followed by the cue
    /// literals with their groups.
    #[cfg(test)]
    fn from_literals(cues: impl Iterator<Item = (Vec<u8>, u16)>, always: u16) -> Cues {
        Cues::with_table(cues, always, None)
    }

    /// [`Cues::from_literals`] with the pair table built at build time
    /// (`None`: built here from the literals).
    fn with_table(
        cues: impl Iterator<Item = (Vec<u8>, u16)>,
        always: u16,
        table: Option<PairTable>,
    ) -> Cues {
        let mut literals: Vec<Vec<u8>> = TRIGGER_WORDS
            .iter()
            .chain(CONTRAST_WORDS)
            .map(|w| w.as_bytes().to_vec())
            .collect();
        // Trigger and contrast patterns carry no cue group.
        let mut masks: Vec<u16> = vec![0; literals.len()];
        for (lit, mask) in cues {
            literals.push(lit);
            masks.push(mask);
        }
        Cues {
            table: table.unwrap_or_else(|| PairTable::new(&literals, true)),
            ac: OnceLock::new(),
            dfa: OnceLock::new(),
            literals,
            masks,
            always,
        }
    }

    /// Every occurrence of the patterns in `text` as `(end, pattern)`, in
    /// the order an overlapping automaton walk reports them: by end, then
    /// the longer pattern first (a state reports its own pattern before
    /// those of its suffixes), then by pattern.
    fn table_matches(&self, text: &[u8]) -> Vec<(usize, u32)> {
        let mut found: Vec<(usize, usize, u32)> = Vec::new();
        self.table.for_each(text, |id, start, end| {
            found.push((
                end,
                usize::MAX - (end - start),
                u32::try_from(id).unwrap_or(u32::MAX),
            ));
        });
        found.sort_unstable();
        found.into_iter().map(|(end, _, id)| (end, id)).collect()
    }

    /// The NFA of the patterns, built on first use.
    pub(super) fn nfa(&self) -> Option<&NFA> {
        self.ac
            .get_or_init(|| {
                NFA::builder()
                    .ascii_case_insensitive(true)
                    .prefilter(false)
                    .build(&self.literals)
                    .ok()
            })
            .as_ref()
    }

    /// The DFA of the same patterns, built on first use.
    fn dfa(&self) -> Option<&DFA> {
        self.dfa
            .get_or_init(|| {
                DFA::builder()
                    .ascii_case_insensitive(true)
                    .prefilter(false)
                    .build(&self.literals)
                    .ok()
            })
            .as_ref()
    }

    /// Every whole-word subject trigger (position, kind), every cue
    /// (position, groups) and every contrast word (position, (end, rank))
    /// of `text`: the whole walk at once (the tests' view of it).
    #[cfg(test)]
    pub(super) fn scan(&self, text: &str) -> Scan {
        let mut walk = Walk::new(self, text);
        walk.finish();
        walk.scan
    }

    /// [`Cues::scan`] with the DFA whatever the text's length.
    #[cfg(test)]
    pub(super) fn scan_with_dfa(&self, text: &str) -> Scan {
        let mut walk = Walk::with(self, text, Via::Dfa);
        walk.finish();
        walk.scan
    }

    /// [`Cues::scan`] with the NFA whatever the text's length.
    #[cfg(test)]
    pub(super) fn scan_with_nfa(&self, text: &str) -> Scan {
        let mut walk = Walk::with(self, text, Via::Nfa);
        walk.finish();
        walk.scan
    }
}

/// The automaton behind a match state.
#[derive(Clone, Copy)]
enum Auto<'a> {
    Nfa(&'a NFA),
    Dfa(&'a DFA),
}

/// The automaton a [`Walk`] steps through.
enum Stepping<'a> {
    Nfa(&'a NFA, Stepper<'a, NFA>),
    Dfa(&'a DFA, Stepper<'a, DFA>),
    /// Every occurrence the pair table found, `(end, pattern)` in the
    /// order an overlapping automaton walk reports them (by end, then the
    /// longer pattern first, then by pattern), and the next one to report.
    Table(Vec<(usize, u32)>, usize),
}

/// How a [`Walk`] finds the patterns.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Via {
    Table,
    Nfa,
    Dfa,
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
pub(super) struct Walk<'a> {
    pub(super) cues: &'a Cues,
    pub(super) text: &'a str,
    /// The automaton's resumable walk (shared with the other guards),
    /// `None` once the text is done.
    state: Option<Stepping<'a>>,
    /// Bytes walked.
    pub(super) at: usize,
    /// The longest pattern (a match that starts before `p` ends before
    /// `p + max_len`).
    pub(super) max_len: usize,
    pub(super) scan: Scan,
}

impl<'a> Walk<'a> {
    pub(super) fn new(cues: &'a Cues, text: &'a str) -> Walk<'a> {
        let via = if text.len() >= DFA_FROM {
            Via::Dfa
        } else if text.len() >= AUTOMATON_FROM {
            Via::Nfa
        } else {
            Via::Table
        };
        Walk::with(cues, text, via)
    }

    /// A walk through the table, the NFA or the DFA (`via`; an automaton
    /// that failed to build falls back to the next simpler one).
    pub(super) fn with(cues: &'a Cues, text: &'a str, via: Via) -> Walk<'a> {
        let mut walk = Walk {
            cues,
            text,
            state: None,
            at: 0,
            max_len: 0,
            scan: Scan::default(),
        };
        let bytes = text.as_bytes();
        let dfa = (via == Via::Dfa).then(|| cues.dfa()).flatten();
        let nfa = (via != Via::Table && dfa.is_none())
            .then(|| cues.nfa())
            .flatten();
        // An automaton that failed to build, or that has no unanchored
        // start (aho-corasick's always have one), leaves the table.
        let stepping = dfa
            .and_then(|d| Stepper::new(d, bytes).ok().map(|s| Stepping::Dfa(d, s)))
            .or_else(|| nfa.and_then(|a| Stepper::new(a, bytes).ok().map(|s| Stepping::Nfa(a, s))))
            .unwrap_or_else(|| Stepping::Table(cues.table_matches(bytes), 0));
        walk.max_len = cues.literals.iter().map(Vec::len).max().unwrap_or(0);
        match stepping {
            Stepping::Table(found, mut next) => {
                // Empty patterns end before the first byte.
                while let Some(&(0, id)) = found.get(next) {
                    walk.record_id(id as usize, 0);
                    next += 1;
                }
                walk.state = Some(Stepping::Table(found, next));
            }
            Stepping::Nfa(a, st) => {
                let sid = st.start();
                walk.state = Some(Stepping::Nfa(a, st));
                if a.is_match(sid) {
                    walk.record(Auto::Nfa(a), sid, 0);
                }
            }
            Stepping::Dfa(a, st) => {
                let sid = st.start();
                walk.state = Some(Stepping::Dfa(a, st));
                if a.is_match(sid) {
                    walk.record(Auto::Dfa(a), sid, 0);
                }
            }
        }
        walk
    }

    /// Record every pattern that ends at `end` in state `sid`, in the
    /// automaton's order (as `find_overlapping_iter` reports them).
    fn record(&mut self, auto: Auto<'a>, sid: StateID, end: usize) {
        match auto {
            Auto::Nfa(a) => self.record_in(a, sid, end),
            Auto::Dfa(a) => self.record_in(a, sid, end),
        }
    }

    /// [`Walk::record`] for one automaton type.
    fn record_in<A: Automaton>(&mut self, ac: &A, sid: StateID, end: usize) {
        for i in 0..ac.match_len(sid) {
            self.record_id(ac.match_pattern(sid, i).as_usize(), end);
        }
    }

    /// Record pattern `id`, which ends at `end`.
    fn record_id(&mut self, id: usize, end: usize) {
        let text = self.text;
        {
            let start = end.saturating_sub(self.cues.literals.get(id).map_or(0, Vec::len));
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
    pub(super) fn step(&mut self, limit: usize) -> bool {
        let (step, auto) = match self.state.as_mut() {
            None => return false,
            Some(Stepping::Table(found, next)) => {
                let limit = limit.min(self.text.len());
                let Some(&(end, _)) = found.get(*next).filter(|&&(end, _)| end <= limit) else {
                    self.at = self.at.max(limit);
                    if self.at >= self.text.len() {
                        self.state = None;
                        return false;
                    }
                    return true;
                };
                self.at = end;
                let from = *next;
                while found.get(*next).is_some_and(|&(e, _)| e == end) {
                    *next += 1;
                }
                let ids: Vec<u32> = found[from..*next].iter().map(|&(_, id)| id).collect();
                for id in ids {
                    self.record_id(id as usize, end);
                }
                return true;
            }
            Some(Stepping::Nfa(a, st)) => {
                let step = st.next_match(limit);
                self.at = st.position();
                (step, Auto::Nfa(a))
            }
            Some(Stepping::Dfa(a, st)) => {
                let step = st.next_match(limit);
                self.at = st.position();
                (step, Auto::Dfa(a))
            }
        };
        match step {
            Step::Match(sid, end) => {
                self.record(auto, sid, end);
                true
            }
            Step::Paused => true,
            Step::Done => {
                self.state = None;
                false
            }
        }
    }

    /// How far to walk so that every match that starts before `pos` is
    /// recorded (it ends before `pos + max_len`).
    pub(super) fn bound(&self, pos: usize) -> usize {
        pos.saturating_add(self.max_len).saturating_sub(1)
    }

    /// Walk until every match that starts before `pos` is recorded.
    pub(super) fn ensure(&mut self, pos: usize) {
        let limit = self.bound(pos);
        while self.at < limit.min(self.text.len()) && self.step(limit) {}
    }

    /// Walk to the end of the text.
    pub(super) fn finish(&mut self) {
        while self.step(usize::MAX) {}
    }

    /// Entry `i` of one of the scan's lists (`pick`), walking further as
    /// needed but not past `limit`: `None` means no entry `i` starts before
    /// the position `limit` was [bound](Walk::bound) for.
    pub(super) fn entry<T: Copy>(
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
    pub(super) fn trigger(&mut self, i: usize, limit: usize) -> Option<(usize, u8)> {
        self.entry(|s| s.triggers.as_slice(), i, limit)
    }

    /// Entry `i` of the cue list, as [`Walk::entry`].
    pub(super) fn cue(&mut self, i: usize, limit: usize) -> Option<(usize, u16)> {
        self.entry(|s| s.cues.as_slice(), i, limit)
    }

    /// Move `cursor` in the list `pick` to the first entry at or after
    /// `span.start` (or to where it would be, when none starts in `span`);
    /// returns the walk limit for reads in `span`.
    pub(super) fn seek<T: Copy>(
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
pub(super) struct Scan {
    pub(super) triggers: Vec<(usize, u8)>,
    pub(super) cues: Vec<(usize, u16)>,
    /// Contrast word candidates: (start, (end, rank in [`CONTRAST_WORDS`])),
    /// before the boundary rules (see [`Marks::contrast_matches`]).
    pub(super) contrasts: Vec<(usize, (usize, u8))>,
}

pub(super) const KIND_EN: u8 = 1;
pub(super) const KIND_EN_WE: u8 = 2;
pub(super) const KIND_ZH: u8 = 4;
pub(super) const KIND_ZH_WE: u8 = 8;
/// A clause that starts with a capitalised word (a possible named subject).
pub(super) const KIND_NAME: u8 = 16;

/// The kind of trigger pattern `id` (see [`build_triggers`]).
pub(super) fn trigger_kind(id: usize) -> u8 {
    match id {
        0..=1 | 3..=5 | 17..=21 => KIND_EN,
        2 => KIND_EN_WE,
        6..=13 | 22.. => KIND_ZH,
        _ => KIND_ZH_WE,
    }
}

/// The subject triggers, predicate cues and contrast words of a text,
/// read span by span from a [`Walk`] that goes only as far as the reads.
///
/// Lines, sentences and clauses are visited in text order, so each list
/// is read through a cursor that only moves forward (a span that starts
/// before the cursor falls back to a binary search over the whole list):
/// the marks cost time linear in their number, not a search per span.
pub(super) struct Marks<'a> {
    pub(super) walk: Walk<'a>,
    pub(super) always: u16,
    pub(super) trigger_at: usize,
    pub(super) cue_at: usize,
    pub(super) contrast_at: usize,
}

impl<'a> Marks<'a> {
    pub(super) fn new(cues: &'a Cues, text: &'a str) -> Marks<'a> {
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
    pub(super) fn seek_trigger(&mut self, span: Span) -> usize {
        self.walk
            .seek(|s| s.triggers.as_slice(), &mut self.trigger_at, span)
    }

    /// Move the cue cursor as [`Marks::seek_trigger`] does.
    pub(super) fn seek_cue(&mut self, span: Span) -> usize {
        self.walk
            .seek(|s| s.cues.as_slice(), &mut self.cue_at, span)
    }

    /// Whether a trigger falls inside `span`.
    pub(super) fn has_trigger(&mut self, span: Span) -> bool {
        let limit = self.seek_trigger(span);
        self.walk
            .trigger(self.trigger_at, limit)
            .is_some_and(|t| t.0 < span.end)
    }

    /// The kinds of triggers inside `span`.
    pub(super) fn kinds(&mut self, span: Span) -> u8 {
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
    pub(super) fn has_cue(&mut self, span: Span) -> bool {
        if self.always != 0 {
            return true;
        }
        let limit = self.seek_cue(span);
        self.walk
            .cue(self.cue_at, limit)
            .is_some_and(|c| c.0 < span.end)
    }

    /// The cue groups inside `span`.
    pub(super) fn cues(&mut self, span: Span) -> u16 {
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
    pub(super) fn seek_contrast(&mut self, start: usize) {
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
    pub(super) fn first_contrast(
        &self,
        text: &str,
        span: Span,
        next: usize,
    ) -> Option<(usize, usize)> {
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
    pub(super) fn next_contrast(
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
    pub(super) fn contrast_matches(
        &mut self,
        text: &str,
        span: Span,
        out: &mut Vec<(usize, usize)>,
    ) {
        self.seek_contrast(span.start);
        let mut next = span.start;
        while let Some(m) = self.next_contrast(text, span, &mut next) {
            out.push(m);
        }
    }
}

/// The first pattern id of a predicate cue in [`Cues`]: subject triggers
/// come first, then the contrast words.
pub(super) const CUES_FROM: usize = TRIGGER_WORDS.len() + CONTRAST_WORDS.len();

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
        let mut marks = Marks::new(&det.grammar.cues, text);
        let mut out = Vec::new();
        marks.contrast_matches(text, span, &mut out);
        out
    }

    /// One detector and one oracle regex for every proptest case (building
    /// them is slow in a debug build).
    /// The key/value split read from the pattern's capture groups, the way
    /// it was done before `split_key_value` (the reference for both tests).
    fn key_value_by_captures<'a>(re: &Re, body: &'a str) -> Option<(&'a str, &'a str, &'a str)> {
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
        let (a, b) = (
            det.grammar.cues.scan(text),
            reference_scan(&det.grammar.cues, text),
        );
        assert_eq!(a.triggers, b.triggers, "{text:?}");
        assert_eq!(a.cues, b.cues, "{text:?}");
        assert_eq!(a.contrasts, b.contrasts, "{text:?}");
        for c in [
            det.grammar.cues.scan_with_dfa(text),
            det.grammar.cues.scan_with_nfa(text),
        ] {
            assert_eq!(c.triggers, b.triggers, "{text:?}");
            assert_eq!(c.cues, b.cues, "{text:?}");
            assert_eq!(c.contrasts, b.contrasts, "{text:?}");
        }
    }

    /// The literals compiled in by the build script are the ones the
    /// lexicon gives now (the build reran when the data changed).
    #[test]
    fn built_cues_equal_the_run_time_extraction() {
        let rules = lexicon::builtin_rules();
        let fresh = Cues::new(&super::super::cue_literals::cue_groups(&rules));
        let built = Cues::builtin();
        assert_eq!(built.literals, fresh.literals);
        assert_eq!(built.masks, fresh.masks);
        assert_eq!(built.always, fresh.always);
        // The pair table written at build time is the one built here.
        assert_eq!(built.table, fresh.table);
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
            let (a, b) = (det.grammar.cues.scan(&text), reference_scan(&det.grammar.cues, &text));
            prop_assert_eq!(&a.triggers, &b.triggers);
            prop_assert_eq!(&a.cues, &b.cues);
            prop_assert_eq!(&a.contrasts, &b.contrasts);
            for c in [det.grammar.cues.scan_with_dfa(&text), det.grammar.cues.scan_with_nfa(&text)] {
                prop_assert_eq!(&c.triggers, &b.triggers);
                prop_assert_eq!(&c.cues, &b.cues);
                prop_assert_eq!(&c.contrasts, &b.contrasts);
            }
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
            let mut lazy = Marks::new(&det.grammar.cues, &text);
            let mut full = Marks::new(&det.grammar.cues, &text);
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
            let re = &shared().0.grammar.fixed.key_value;
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
        let re = &det.grammar.fixed.key_value;
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
        assert_eq!(
            det.grammar.cues.always, 0,
            "a slot has no finite prefix set"
        );
        assert!(
            det.grammar.cues.masks.len() > 50,
            "{}",
            det.grammar.cues.masks.len()
        );
        assert!(
            det.grammar.cues.masks.len() < 6000,
            "{}",
            det.grammar.cues.masks.len()
        );
        for bit in 0..11 {
            assert!(
                det.grammar.cues.masks.iter().any(|m| m & (1 << bit) != 0),
                "cue group {bit} is empty"
            );
        }
        let scan = det.grammar.cues.scan("The repo uses pnpm.");
        assert!(scan.cues.is_empty() && scan.triggers.is_empty());
        // Subject words alone are no predicate cue (a label or frame cue
        // that is a bare subject word would send every line with a subject
        // through the form regexes).
        let scan = det
            .grammar
            .cues
            .scan("the user the owner the boss user 用户用户已经 老板");
        assert!(scan.cues.is_empty(), "{:?}", scan.cues);
        let scan = det.grammar.cues.scan("The user decided; users decided.");
        assert_eq!(scan.triggers, vec![(4, KIND_EN)]);
        assert!(scan.cues.iter().any(|c| c.0 == 9 && c.1 & CUE_EN_MAIN != 0));
    }
}
