//! Literals every match of a pattern holds, so a pattern compiled on first
//! use can stay uncompiled on a text that cannot hold a match.
//!
//! [`requirements`] reads groups of literals off a parsed pattern: the
//! pattern's prefix literals, and those of each part of it as a
//! concatenation. Every match holds one literal of each group (ASCII case
//! ignored), so a text that misses a whole group holds no match, and a
//! lazy [`Pattern`](super::Pattern) answers "no match" without compiling.
//! Deriving the groups costs about as much as compiling, so they are
//! derived ahead of time ([`PackTable`](super::table::PackTable) stores
//! them [`encode`]d) and checked from their bytes ([`holds`]).
//!
//! ```
//! use palisade_common::pattern::gate::{encode, holds, requirements};
//! let hir = regex_syntax::parse(r"(?i)\b(?:user|owner)\s+(said|wrote)").unwrap();
//! let g = encode(&requirements(&hir));
//! assert!(holds(&g, b"the owner wrote"));
//! assert!(!holds(&g, b"the owner left"));
//! ```

use regex_syntax::hir::literal::{ExtractKind, Extractor};
use regex_syntax::hir::{Hir, HirKind};

/// Most literal groups one pattern is required to meet.
const GROUPS_MAX: usize = 8;
/// Most literals in one group.
const GROUP_MAX: usize = 64;
/// Longest literal of a group (longer prefixes are cut to it).
const LITERAL_MAX: usize = 24;

/// Groups of literals (ASCII lower-cased) a text must hold one of each of
/// for `h` to match somewhere in it: the prefix literals of `h`, and those
/// of each part of `h` as a concatenation (every match of `h` holds a
/// match of each part, which starts with one of the part's prefixes). A
/// part whose prefixes are infinite, many, or include the empty string
/// adds no group. Empty: no requirement.
///
/// ```
/// // (ASCII case only: Unicode `(?i)` would add `uſer` and `ſaid`.)
/// let hir = regex_syntax::parse(r"(?i-u)\b(?:user|owner)\s+(said|wrote)").unwrap();
/// let g = palisade_common::pattern::gate::requirements(&hir);
/// // The whole pattern's prefixes, the space class's bytes, the verbs.
/// assert_eq!(g.len(), 3);
/// assert_eq!(g[0], [b"user".to_vec(), b"owner".to_vec()]);
/// assert_eq!(g[1].len(), 6);
/// assert_eq!(g[2], [b"said".to_vec(), b"wrote".to_vec()]);
/// ```
pub fn requirements(h: &Hir) -> Vec<Vec<Vec<u8>>> {
    let mut out: Vec<Vec<Vec<u8>>> = Vec::new();
    let mut add = |g: Option<Vec<Vec<u8>>>| {
        if let Some(g) = g {
            if !out.contains(&g) && out.len() < GROUPS_MAX {
                out.push(g);
            }
        }
    };
    add(prefix_group(h));
    let mut h = h;
    while let HirKind::Capture(c) = h.kind() {
        h = &c.sub;
    }
    if let HirKind::Concat(subs) = h.kind() {
        for sub in subs {
            if !matches!(sub.kind(), HirKind::Look(_) | HirKind::Empty) {
                add(prefix_group(sub));
            }
        }
    }
    out
}

/// The prefix literals of `h`, ASCII lower-cased and deduplicated; `None`
/// if they are infinite, many, or one is empty.
fn prefix_group(h: &Hir) -> Option<Vec<Vec<u8>>> {
    let mut ex = Extractor::new();
    ex.kind(ExtractKind::Prefix)
        .limit_total(GROUP_MAX * 4)
        .limit_literal_len(LITERAL_MAX);
    let seq = ex.extract(h);
    let lits = seq.literals()?;
    let mut out: Vec<Vec<u8>> = Vec::new();
    for l in lits {
        let b = l.as_bytes().to_ascii_lowercase();
        if b.is_empty() {
            return None;
        }
        if !out.contains(&b) {
            out.push(b);
        }
    }
    (!out.is_empty() && out.len() <= GROUP_MAX).then_some(out)
}

fn number(mut n: usize, out: &mut Vec<u8>) {
    loop {
        let low = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(low);
            return;
        }
        out.push(low | 0x80);
    }
}

/// `groups` as bytes for [`holds`]: LEB128 counts and lengths, raw bytes.
/// No group encodes as the empty string.
///
/// ```
/// use palisade_common::pattern::gate::encode;
/// assert!(encode(&[]).is_empty());
/// assert_eq!(encode(&[vec![b"ab".to_vec()]]), [1, 1, 2, b'a', b'b']);
/// ```
pub fn encode(groups: &[Vec<Vec<u8>>]) -> Vec<u8> {
    let mut out = Vec::new();
    if groups.is_empty() {
        return out;
    }
    number(groups.len(), &mut out);
    for g in groups {
        number(g.len(), &mut out);
        for lit in g {
            number(lit.len(), &mut out);
            out.extend_from_slice(lit);
        }
    }
    out
}

/// Whether `lower` (a text, ASCII lower-cased) holds a literal of each of
/// the [`encode`]d groups in `gate`. No group, or bytes that are not
/// groups, hold for every text (a damaged gate costs a compile, never a
/// match).
///
/// ```
/// use palisade_common::pattern::gate::{encode, holds};
/// let g = encode(&[vec![b"if".to_vec(), b"when".to_vec()]]);
/// assert!(holds(&g, b"only when asked"));
/// assert!(!holds(&g, b"always"));
/// assert!(holds(&[], b"always"));
/// assert!(holds(&[0xff], b"always"));
/// ```
pub fn holds(gate: &[u8], lower: &[u8]) -> bool {
    meets(gate, lower).unwrap_or(true)
}

fn meets(gate: &[u8], lower: &[u8]) -> Option<bool> {
    if gate.is_empty() {
        return Some(true);
    }
    let mut r = Reader { bytes: gate, at: 0 };
    let groups = r.number()?;
    let mut all = true;
    for _ in 0..groups {
        let lits = r.number()?;
        let mut any = false;
        for _ in 0..lits {
            let len = r.number()?;
            let lit = r.take(len)?;
            // Every literal is read, so damage anywhere is seen.
            any = any || (all && memchr::memmem::find(lower, lit).is_some());
        }
        all = all && any;
    }
    (r.at == gate.len()).then_some(all)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn number(&mut self) -> Option<usize> {
        let mut n = 0usize;
        for shift in (0..usize::BITS).step_by(7) {
            let b = *self.bytes.get(self.at)?;
            self.at += 1;
            n |= usize::from(b & 0x7f).checked_shl(shift)?;
            if b & 0x80 == 0 {
                return Some(n);
            }
        }
        None
    }

    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let end = self.at.checked_add(n)?;
        let s = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(s)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// Whenever a pattern matches, its text holds every group.
    #[test]
    fn groups_hold_wherever_the_pattern_matches() {
        let patterns = [
            r"(?i)(?:user|owner)\s+(said|wrote)",
            r"(?i)(?P<w>decided|chose)\s+to\s+\w+",
            r"abc|abd|x[yz]",
            r"(?i)straße|é+t",
            r"\d+ apples",
            r"(?:a|b)*c",
        ];
        let texts = [
            "The USER said so",
            "owner  wrote",
            "we decided to go",
            "CHOSE to x",
            "xz abd",
            "STRAßE",
            "éét",
            "12 apples",
            "c",
            "nothing",
        ];
        for p in patterns {
            let hir = regex_syntax::parse(p).unwrap();
            let re = regex::Regex::new(p).unwrap();
            let gate = encode(&requirements(&hir));
            for t in texts {
                if re.is_match(t) {
                    assert!(
                        holds(&gate, &t.as_bytes().to_ascii_lowercase()),
                        "{p} on {t:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn damaged_gates_hold() {
        let g = encode(&[vec![b"ab".to_vec()], vec![b"cd".to_vec()]]);
        assert!(!holds(&g, b"ab"));
        for cut in 1..g.len() {
            assert!(holds(&g[..cut], b"ab"), "cut {cut}");
        }
    }
}
