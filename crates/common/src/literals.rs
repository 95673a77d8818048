//! Which literals of a fixed set occur in a short text, found without
//! building an automaton.
//!
//! A guard gates its rules by literal keywords, and an Aho-Corasick
//! automaton over a few thousand keywords costs 10–25 million instructions
//! to build, several milliseconds: more than the whole scan of the short
//! text a one-shot process (a host hook, one `check` line) reads. A
//! [`PairTable`] costs a sort of the keywords to build and finds every
//! occurrence in one pass: at each offset the text's next two bytes are
//! looked up in a bit set of the keywords' first two bytes; keywords of two
//! or three bytes that start with that pair are compared there, and for the
//! longer ones the next four bytes are looked up in a second bit set (of a
//! hash of the keywords' first four bytes), then only the keywords that
//! start with those four bytes are compared. The work is linear in the
//! text, times at most the largest group of keywords that share a first
//! pair or quad (a property of the rule data, not of the text): common
//! pairs such as `in` or `th` start hundreds of keywords, common quads few.
//! Long texts are still better served by an automaton, which pays for its
//! build in fewer comparisons; callers switch at a length of their choice.
//!
//! ```
//! use palisade_common::literals::PairTable;
//! let t = PairTable::new(["pass", "key", "k", "password"], true);
//! let mut found = Vec::new();
//! t.for_each(b"My PASSWORD key", |lit, start, end| found.push((lit, start, end)));
//! assert_eq!(found, [(0, 3, 7), (3, 3, 11), (2, 12, 13), (1, 12, 15)]);
//! ```

/// A set of literals, each found wherever it occurs (overlapping
/// occurrences included), optionally ignoring ASCII case.
///
/// A table built at run time ([`PairTable::new`]) owns its contents; one
/// written by a build script ([`PairTable::to_rust`]) borrows them from
/// static data ([`PairTable::from_static`]) and costs nothing to build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairTable {
    /// The literals as compared (ASCII lower-cased when case-insensitive).
    lits: Cow<'static, [Cow<'static, [u8]>]>,
    /// One bit per two-byte prefix that some literal starts with.
    pairs: Cow<'static, [u64]>,
    /// `(prefix, literal)` for the literals of two or three bytes, sorted.
    by_pair: Cow<'static, [(u16, u32)]>,
    /// One bit per [`quad_hash`] of the first four bytes of a longer literal.
    quads: Cow<'static, [u64]>,
    /// `(first four bytes, literal)` for the literals of four bytes or
    /// more, sorted.
    by_quad: Cow<'static, [(u32, u32)]>,
    /// One bit per byte that is a whole literal.
    singles: [u64; 4],
    /// `(byte, literal)` for the one-byte literals, sorted.
    by_byte: Cow<'static, [(u8, u32)]>,
    /// Empty literals: present in every text.
    empty: Cow<'static, [u32]>,
    ascii_case_insensitive: bool,
}

use std::borrow::Cow;

const PAIR_WORDS: usize = (1 << 16) / 64;

/// Bits of the quad filter's hash (a bit set of `1 << QUAD_BITS` bits).
const QUAD_BITS: u32 = 16;
const QUAD_WORDS: usize = (1 << QUAD_BITS) / 64;

/// The filter bit of a literal's (or a text offset's) first four bytes.
fn quad_hash(q: u32) -> usize {
    (q.wrapping_mul(0x9E37_79B1) >> (32 - QUAD_BITS)) as usize
}

impl PairTable {
    /// The table of `literals` (their order gives the indices reported),
    /// compared ASCII case-insensitively when asked.
    ///
    /// ```
    /// let t = palisade_common::literals::PairTable::new(["ab"], false);
    /// assert_eq!(t.len(), 1);
    /// assert!(!t.is_empty());
    /// ```
    pub fn new<I, L>(literals: I, ascii_case_insensitive: bool) -> PairTable
    where
        I: IntoIterator<Item = L>,
        L: AsRef<[u8]>,
    {
        let fold = |b: &u8| {
            if ascii_case_insensitive {
                b.to_ascii_lowercase()
            } else {
                *b
            }
        };
        let lits: Vec<Cow<'static, [u8]>> = literals
            .into_iter()
            .map(|l| Cow::Owned(l.as_ref().iter().map(fold).collect()))
            .collect();
        let mut pairs = vec![0u64; PAIR_WORDS];
        let mut by_pair = Vec::new();
        let mut quads = vec![0u64; QUAD_WORDS];
        let mut by_quad = Vec::new();
        let mut singles = [0; 4];
        let mut by_byte = Vec::new();
        let mut empty = Vec::new();
        for (i, lit) in (0u32..).zip(&lits) {
            match **lit {
                [] => empty.push(i),
                [b] => {
                    set(&mut singles, usize::from(b));
                    by_byte.push((b, i));
                }
                [a, b, c, d, ..] => {
                    set(&mut pairs, usize::from(u16::from_be_bytes([a, b])));
                    let q = u32::from_be_bytes([a, b, c, d]);
                    set(&mut quads, quad_hash(q));
                    by_quad.push((q, i));
                }
                [a, b, ..] => {
                    let key = u16::from_be_bytes([a, b]);
                    set(&mut pairs, usize::from(key));
                    by_pair.push((key, i));
                }
            }
        }
        by_pair.sort_unstable();
        by_quad.sort_unstable();
        by_byte.sort_unstable();
        PairTable {
            lits: Cow::Owned(lits),
            pairs: Cow::Owned(pairs),
            by_pair: Cow::Owned(by_pair),
            quads: Cow::Owned(quads),
            by_quad: Cow::Owned(by_quad),
            singles,
            by_byte: Cow::Owned(by_byte),
            empty: Cow::Owned(empty),
            ascii_case_insensitive,
        }
    }

    /// A table from its parts as [`PairTable::to_rust`] writes them: no
    /// copy, no sort. Parts that did not come from `to_rust` make a table
    /// that misses literals or reports wrong ones; it never panics.
    ///
    /// ```
    /// use palisade_common::literals::PairTable;
    /// use std::borrow::Cow;
    /// static LITS: [Cow<'static, [u8]>; 1] = [Cow::Borrowed(b"ab")];
    /// static PAIRS: [u64; 1024] = {
    ///     let mut p = [0u64; 1024];
    ///     p[0x6162 / 64] = 1 << (0x6162 % 64);
    ///     p
    /// };
    /// static QUADS: [u64; 1024] = [0; 1024];
    /// static T: PairTable = PairTable::from_static(
    ///     &LITS, &PAIRS, &[(0x6162, 0)], &QUADS, &[], [0; 4], &[], &[], false,
    /// );
    /// assert_eq!(T, PairTable::new(["ab"], false));
    /// ```
    #[allow(clippy::too_many_arguments)] // the parts of one table, as `to_rust` writes them
    pub const fn from_static(
        lits: &'static [Cow<'static, [u8]>],
        pairs: &'static [u64],
        by_pair: &'static [(u16, u32)],
        quads: &'static [u64],
        by_quad: &'static [(u32, u32)],
        singles: [u64; 4],
        by_byte: &'static [(u8, u32)],
        empty: &'static [u32],
        ascii_case_insensitive: bool,
    ) -> PairTable {
        PairTable {
            lits: Cow::Borrowed(lits),
            pairs: Cow::Borrowed(pairs),
            by_pair: Cow::Borrowed(by_pair),
            quads: Cow::Borrowed(quads),
            by_quad: Cow::Borrowed(by_quad),
            singles,
            by_byte: Cow::Borrowed(by_byte),
            empty: Cow::Borrowed(empty),
            ascii_case_insensitive,
        }
    }

    /// A Rust expression that builds this table with
    /// [`PairTable::from_static`] (for a build script to write into
    /// `OUT_DIR` and a crate to `include!` as a `static`).
    ///
    /// ```
    /// let t = palisade_common::literals::PairTable::new(["ab", "c"], true);
    /// assert!(t.to_rust().starts_with("::palisade_common::literals::PairTable::from_static("));
    /// ```
    pub fn to_rust(&self) -> String {
        use std::fmt::Write as _;
        let mut s = String::from("::palisade_common::literals::PairTable::from_static(&[");
        for l in self.lits.iter() {
            let _ = write!(
                s,
                "::std::borrow::Cow::Borrowed(b\"{}\"),",
                l.escape_ascii()
            );
        }
        let _ = write!(
            s,
            "], &{:?}, &{:?}, &{:?}, &{:?}, {:?}, &{:?}, &{:?}, {})",
            &*self.pairs,
            &*self.by_pair,
            &*self.quads,
            &*self.by_quad,
            self.singles,
            &*self.by_byte,
            &*self.empty,
            self.ascii_case_insensitive
        );
        s
    }

    /// How many literals the table holds.
    pub fn len(&self) -> usize {
        self.lits.len()
    }

    /// Whether the table holds no literal.
    pub fn is_empty(&self) -> bool {
        self.lits.is_empty()
    }

    /// Call `found(literal, start, end)` for every occurrence of every
    /// literal in `text`, by start offset, then by literal order within
    /// the group of literals sharing the first two bytes (one-byte
    /// literals first). An empty literal is reported once, at offset 0.
    ///
    /// ```
    /// use palisade_common::literals::PairTable;
    /// let t = PairTable::new(["aa", ""], false);
    /// let mut found = Vec::new();
    /// t.for_each(b"aaa", |lit, start, _| found.push((lit, start)));
    /// assert_eq!(found, [(1, 0), (0, 0), (0, 1)]);
    /// ```
    pub fn for_each(&self, text: &[u8], mut found: impl FnMut(usize, usize, usize)) {
        for &i in self.empty.iter() {
            found(i as usize, 0, 0);
        }
        let fold = |b: u8| {
            if self.ascii_case_insensitive {
                b.to_ascii_lowercase()
            } else {
                b
            }
        };
        let same = |window: &[u8], lit: &[u8]| {
            if self.ascii_case_insensitive {
                window.eq_ignore_ascii_case(lit)
            } else {
                window == lit
            }
        };
        // Matches at one offset, reported in literal order: the two-byte
        // and the four-byte groups are searched apart.
        let mut here: Vec<(u32, usize)> = Vec::new();
        // The next four bytes, folded, the first in the high byte; `have`
        // counts how many of them are real.
        let mut window: u32 = 0;
        let mut have = 0usize;
        for (k, &b) in text.iter().take(4).enumerate() {
            window |= u32::from(fold(b)) << (24 - 8 * k);
            have += 1;
        }
        for at in 0..text.len() {
            if at > 0 {
                window <<= 8;
                have -= 1;
                if let Some(&b) = text.get(at + 3) {
                    window |= u32::from(fold(b));
                    have += 1;
                }
            }
            let b0 = (window >> 24) as u8;
            if get(&self.singles, usize::from(b0)) {
                let from = self.by_byte.partition_point(|&(b, _)| b < b0);
                for &(_, i) in self.by_byte[from..].iter().take_while(|&&(b, _)| b == b0) {
                    found(i as usize, at, at + 1);
                }
            }
            if have < 2 {
                continue;
            }
            let key = (window >> 16) as u16;
            if !get(&self.pairs, usize::from(key)) {
                continue;
            }
            let rest = text.get(at..).unwrap_or_default();
            let from = self.by_pair.partition_point(|&(k, _)| k < key);
            for &(_, i) in self.by_pair[from..].iter().take_while(|&&(k, _)| k == key) {
                let lit = &self.lits[i as usize];
                if rest.get(..lit.len()).is_some_and(|w| same(w, lit)) {
                    here.push((i, at + lit.len()));
                }
            }
            if have == 4 && get(&self.quads, quad_hash(window)) {
                let from = self.by_quad.partition_point(|&(q, _)| q < window);
                let n = here.len();
                for &(_, i) in self.by_quad[from..]
                    .iter()
                    .take_while(|&&(q, _)| q == window)
                {
                    let lit = &self.lits[i as usize];
                    let tail = lit.get(4..).unwrap_or_default();
                    let matched = rest.get(4..lit.len()).is_some_and(|w| same(w, tail));
                    if matched {
                        here.push((i, at + lit.len()));
                    }
                }
                if n > 0 && here.len() > n {
                    here.sort_unstable();
                }
            }
            for (i, end) in here.drain(..) {
                found(i as usize, at, end);
            }
        }
    }
}

fn set(bits: &mut [u64], i: usize) {
    if let Some(w) = bits.get_mut(i / 64) {
        *w |= 1 << (i % 64);
    }
}

fn get(bits: &[u64], i: usize) -> bool {
    bits.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use aho_corasick::{AhoCorasick, MatchKind};
    use proptest::prelude::*;

    fn ours(lits: &[String], text: &str, ci: bool) -> Vec<(usize, usize, usize)> {
        let mut v = Vec::new();
        PairTable::new(lits, ci).for_each(text.as_bytes(), |l, s, e| v.push((l, s, e)));
        v.sort_unstable();
        v
    }

    fn reference(lits: &[String], text: &str, ci: bool) -> Vec<(usize, usize, usize)> {
        let nonempty: Vec<(usize, &String)> = lits
            .iter()
            .enumerate()
            .filter(|(_, l)| !l.is_empty())
            .collect();
        let ac = AhoCorasick::builder()
            .ascii_case_insensitive(ci)
            .match_kind(MatchKind::Standard)
            .build(nonempty.iter().map(|(_, l)| l.as_bytes()))
            .unwrap();
        let mut v: Vec<(usize, usize, usize)> = ac
            .find_overlapping_iter(text)
            .map(|m| (nonempty[m.pattern().as_usize()].0, m.start(), m.end()))
            .collect();
        v.extend(
            lits.iter()
                .enumerate()
                .filter(|(_, l)| l.is_empty())
                .map(|(i, _)| (i, 0, 0)),
        );
        v.sort_unstable();
        v
    }

    #[test]
    fn finds_what_aho_corasick_finds() {
        let lits: Vec<String> = ["he", "she", "his", "hers", "h", "é", "Ké", "ss"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        for text in ["ushers", "SHE said HIS", "ké Ké KÉ", "", "h", "sss"] {
            for ci in [false, true] {
                assert_eq!(
                    ours(&lits, text, ci),
                    reference(&lits, text, ci),
                    "{text:?} {ci}"
                );
            }
        }
    }

    proptest! {
        #[test]
        fn agrees_with_aho_corasick(
            lits in proptest::collection::vec("[abAB\u{e9}]{0,6}", 0..16),
            text in "[abAB\u{e9} ]{0,40}",
            ci in any::<bool>(),
        ) {
            prop_assert_eq!(ours(&lits, &text, ci), reference(&lits, &text, ci));
        }
    }
}
