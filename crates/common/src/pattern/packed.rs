//! A compact byte form of a parsed pattern ([`Hir`]), so a build script can
//! parse a rule once and a process rebuild it without parsing.
//!
//! Parsing is a large part of compiling a long rule: every character of
//! the source becomes a syntax node, case folding expands letters into
//! classes, Unicode names are looked up. The packed form is the result of
//! all that, written pre-order: a tag byte per node, then its fields as
//! LEB128 numbers and raw bytes. [`unpack`] rebuilds the same [`Hir`] with
//! its smart constructors, and rejects any malformed input with `None`
//! (it never panics, and it reads each byte once).
//!
//! ```
//! use palisade_common::pattern::packed::{pack, unpack};
//! let hir = regex_syntax::parse(r"(?i)(?P<verb>ignore|skip)\s+\w{1,12}\b").unwrap();
//! let bytes = pack(&hir);
//! assert_eq!(unpack(&bytes), Some(hir));
//! assert_eq!(unpack(&bytes[..bytes.len() - 1]), None);
//! ```

use regex_syntax::hir::{
    Capture, Class, ClassBytes, ClassBytesRange, ClassUnicode, ClassUnicodeRange, Hir, HirKind,
    Look, Repetition,
};

const EMPTY: u8 = 0;
const LITERAL: u8 = 1;
const CLASS_UNICODE: u8 = 2;
const CLASS_BYTES: u8 = 3;
const LOOK: u8 = 4;
const REPETITION: u8 = 5;
const CAPTURE: u8 = 6;
const CONCAT: u8 = 7;
const ALTERNATION: u8 = 8;

/// How deep [`unpack`] follows nested nodes (the parser's own default
/// nesting limit is 250).
const MAX_DEPTH: u32 = 512;

/// The packed form of `hir`.
///
/// ```
/// let hir = regex_syntax::parse("a|b").unwrap();
/// assert!(!palisade_common::pattern::packed::pack(&hir).is_empty());
/// ```
pub fn pack(hir: &Hir) -> Vec<u8> {
    let mut out = Vec::new();
    write(hir, &mut out);
    out
}

fn number(mut n: u64, out: &mut Vec<u8>) {
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

fn write(h: &Hir, out: &mut Vec<u8>) {
    match h.kind() {
        HirKind::Empty => out.push(EMPTY),
        HirKind::Literal(lit) => {
            out.push(LITERAL);
            number(lit.0.len() as u64, out);
            out.extend_from_slice(&lit.0);
        }
        HirKind::Class(Class::Unicode(c)) => {
            out.push(CLASS_UNICODE);
            number(c.ranges().len() as u64, out);
            for r in c.ranges() {
                number(u64::from(u32::from(r.start())), out);
                number(u64::from(u32::from(r.end())), out);
            }
        }
        HirKind::Class(Class::Bytes(c)) => {
            out.push(CLASS_BYTES);
            number(c.ranges().len() as u64, out);
            for r in c.ranges() {
                out.push(r.start());
                out.push(r.end());
            }
        }
        HirKind::Look(look) => {
            out.push(LOOK);
            number(u64::from(look.as_repr()), out);
        }
        HirKind::Repetition(r) => {
            out.push(REPETITION);
            number(u64::from(r.min), out);
            number(r.max.map_or(0, |m| u64::from(m) + 1), out);
            out.push(u8::from(r.greedy));
            write(&r.sub, out);
        }
        HirKind::Capture(c) => {
            out.push(CAPTURE);
            number(u64::from(c.index), out);
            match &c.name {
                None => number(0, out),
                Some(name) => {
                    number(name.len() as u64 + 1, out);
                    out.extend_from_slice(name.as_bytes());
                }
            }
            write(&c.sub, out);
        }
        HirKind::Concat(v) | HirKind::Alternation(v) => {
            out.push(if matches!(h.kind(), HirKind::Concat(_)) {
                CONCAT
            } else {
                ALTERNATION
            });
            number(v.len() as u64, out);
            for sub in v {
                write(sub, out);
            }
        }
    }
}

/// The pattern `bytes` packs, or `None` if they are not exactly one packed
/// pattern.
///
/// ```
/// use palisade_common::pattern::packed::unpack;
/// assert_eq!(unpack(&[]), None);
/// assert_eq!(unpack(&[0]), Some(regex_syntax::hir::Hir::empty()));
/// assert_eq!(unpack(&[0, 0]), None); // trailing bytes
/// ```
pub fn unpack(bytes: &[u8]) -> Option<Hir> {
    let mut r = Reader { bytes, at: 0 };
    let hir = r.node(0)?;
    (r.at == bytes.len()).then_some(hir)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> Option<u8> {
        let b = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    fn number(&mut self) -> Option<u64> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            n |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(n);
            }
        }
        None
    }

    fn count(&mut self) -> Option<usize> {
        let n = usize::try_from(self.number()?).ok()?;
        // Every counted item takes at least one byte.
        (n <= self.bytes.len() - self.at).then_some(n)
    }

    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let end = self.at.checked_add(n)?;
        let s = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(s)
    }

    fn char(&mut self) -> Option<char> {
        char::from_u32(u32::try_from(self.number()?).ok()?)
    }

    fn node(&mut self, depth: u32) -> Option<Hir> {
        if depth > MAX_DEPTH {
            return None;
        }
        Some(match self.byte()? {
            EMPTY => Hir::empty(),
            LITERAL => {
                let n = self.count()?;
                let lit = self.take(n)?;
                Hir::literal(lit.to_vec())
            }
            CLASS_UNICODE => {
                let n = self.count()?;
                let mut ranges = Vec::with_capacity(n);
                for _ in 0..n {
                    ranges.push(ClassUnicodeRange::new(self.char()?, self.char()?));
                }
                Hir::class(Class::Unicode(ClassUnicode::new(ranges)))
            }
            CLASS_BYTES => {
                let n = self.count()?;
                let mut ranges = Vec::with_capacity(n);
                for _ in 0..n {
                    ranges.push(ClassBytesRange::new(self.byte()?, self.byte()?));
                }
                Hir::class(Class::Bytes(ClassBytes::new(ranges)))
            }
            LOOK => Hir::look(Look::from_repr(u32::try_from(self.number()?).ok()?)?),
            REPETITION => {
                let min = u32::try_from(self.number()?).ok()?;
                let max = match self.number()? {
                    0 => None,
                    m => Some(u32::try_from(m - 1).ok()?),
                };
                let greedy = match self.byte()? {
                    0 => false,
                    1 => true,
                    _ => return None,
                };
                if max.is_some_and(|m| m < min) {
                    return None;
                }
                let sub = Box::new(self.node(depth + 1)?);
                Hir::repetition(Repetition {
                    min,
                    max,
                    greedy,
                    sub,
                })
            }
            CAPTURE => {
                let index = u32::try_from(self.number()?).ok()?;
                let name = match self.count()? {
                    0 => None,
                    n => Some(std::str::from_utf8(self.take(n - 1)?).ok()?.into()),
                };
                let sub = Box::new(self.node(depth + 1)?);
                Hir::capture(Capture { index, name, sub })
            }
            tag @ (CONCAT | ALTERNATION) => {
                let n = self.count()?;
                let mut subs = Vec::with_capacity(n);
                for _ in 0..n {
                    subs.push(self.node(depth + 1)?);
                }
                if tag == CONCAT {
                    Hir::concat(subs)
                } else {
                    Hir::alternation(subs)
                }
            }
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn every_kind_of_node_survives_the_round_trip() {
        for p in [
            "",
            "abc",
            "(?i)straße|k",
            r"[^\p{L}\p{N}_]{0,3}?",
            r"(?-u:[\x00-\xff])",
            r"(?m)^\b\B$(?-u:\b)",
            r"(?P<name>x)(y)(?:z)",
            r"a{2,}b{3}c*?d+",
            r"\w+@\w+\.[a-z]{2,}",
            "用户|老板",
        ] {
            let hir = regex_syntax::ParserBuilder::new()
                .utf8(false)
                .build()
                .parse(p)
                .unwrap();
            assert_eq!(unpack(&pack(&hir)), Some(hir), "{p}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
        /// Any bytes: `unpack` returns, and what it returns packs back to
        /// bytes that unpack to the same pattern.
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            if let Some(h) = unpack(&bytes) {
                prop_assert_eq!(unpack(&pack(&h)), Some(h));
            }
        }
    }
}
