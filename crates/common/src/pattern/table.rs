//! Packed patterns looked up by their source: the parse done ahead of
//! time for patterns a crate assembles at run time.
//!
//! A guard whose regexes are assembled from data at run time (format
//! strings over a lexicon) cannot have a build script pack them one by
//! one, as [`Pattern::prepacked`] wants. It can ship a [`PackTable`]
//! instead: every built-in source with its packed parse and twin, written
//! by a test of the crate ([`PackTable::encode`]) and compiled in with
//! `include_bytes!`. [`PackTable::pattern`] hands out a prepacked pattern
//! for a source the table holds and a plain lazy one for any other, so a
//! stale table costs parse time, never a match (the crate's test fails
//! until the table is written again).
//!
//! ```
//! use palisade_common::pattern::{table::PackTable, Options};
//! let opts = Options::default();
//! let bytes: &'static [u8] = Box::leak(PackTable::encode(["(?i)ab+", r"\d"], opts).into_boxed_slice());
//! let table = PackTable::decode(bytes);
//! assert_eq!(table.len(), 2);
//! let p = table.pattern("(?i)ab+", opts);
//! assert!(p.is_packed());
//! assert_eq!(p.find("xABB").map(|m| m.as_str()), Some("ABB"));
//! assert!(!table.pattern("c", opts).is_packed());
//! ```

use super::{ascii_twin, gate, packed, parse, Options, Pattern};

/// Sources with their packed parse and ASCII twin, sorted by source.
#[derive(Clone, Debug, Default)]
pub struct PackTable {
    entries: Vec<Entry>,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    source: &'static str,
    unicode: bool,
    hir: &'static [u8],
    twin: &'static [u8],
    /// The literal groups of the parse and of the twin ([`gate`]).
    gate: &'static [u8],
    twin_gate: &'static [u8],
}

/// The first bytes of an encoded table: each entry its source, mode,
/// packed parse and twin, and their [`gate`]s.
const MAGIC: &[u8; 4] = b"PPK2";
/// The first bytes of a table of the previous format (no gates), still
/// read.
const MAGIC_V1: &[u8; 4] = b"PPK1";

impl PackTable {
    /// The table of `sources`, each parsed with `options` (a source that
    /// does not parse is left out: it is never packed, and its pattern
    /// fails as any lazy one does). The bytes are sorted by source, so the
    /// same sources give the same bytes.
    ///
    /// ```
    /// use palisade_common::pattern::{table::PackTable, Options};
    /// let a = PackTable::encode(["b", "a", "("], Options::default());
    /// let b = PackTable::encode(["a", "b"], Options::default());
    /// assert_eq!(a, b);
    /// ```
    pub fn encode<'s>(sources: impl IntoIterator<Item = &'s str>, options: Options) -> Vec<u8> {
        let mut sources: Vec<&str> = sources.into_iter().collect();
        sources.sort_unstable();
        sources.dedup();
        let mut out = MAGIC.to_vec();
        for source in sources {
            let Ok(hir) = parse(source, options) else {
                continue;
            };
            let twin = ascii_twin(&hir);
            for part in [
                source.as_bytes(),
                &[u8::from(options.unicode)],
                &packed::pack(&hir),
                &packed::pack(&twin),
                &gate::encode(&gate::requirements(&hir)),
                &gate::encode(&gate::requirements(&twin)),
            ] {
                out.extend_from_slice(&u32::try_from(part.len()).unwrap_or(u32::MAX).to_le_bytes());
                out.extend_from_slice(part);
            }
        }
        out
    }

    /// The table in `bytes` ([`PackTable::encode`]'s output). Damage ends
    /// the table where it starts: the entries before it are kept, the
    /// sources after it compile from their text.
    ///
    /// ```
    /// use palisade_common::pattern::table::PackTable;
    /// assert!(PackTable::decode(b"not a table").is_empty());
    /// ```
    pub fn decode(bytes: &'static [u8]) -> PackTable {
        let mut entries = Vec::new();
        let (mut rest, gated) = match (
            bytes.strip_prefix(MAGIC.as_slice()),
            bytes.strip_prefix(MAGIC_V1.as_slice()),
        ) {
            (Some(rest), _) => (rest, true),
            (None, Some(rest)) => (rest, false),
            (None, None) => return PackTable { entries },
        };
        let mut part = || -> Option<&'static [u8]> {
            let (len, tail) = rest.split_first_chunk::<4>()?;
            let len = usize::try_from(u32::from_le_bytes(*len)).ok()?;
            let (part, tail) = (tail.get(..len)?, tail.get(len..)?);
            rest = tail;
            Some(part)
        };
        while let Some(source) = part() {
            let (Ok(source), Some(unicode), Some(hir), Some(twin)) =
                (std::str::from_utf8(source), part(), part(), part())
            else {
                break;
            };
            let (gate, twin_gate) = if gated {
                let (Some(g), Some(t)) = (part(), part()) else {
                    break;
                };
                (g, t)
            } else {
                (&[][..], &[][..])
            };
            entries.push(Entry {
                source,
                unicode: unicode == [1],
                hir,
                twin,
                gate,
                twin_gate,
            });
        }
        entries.sort_by(|a, b| (a.source, a.unicode).cmp(&(b.source, b.unicode)));
        PackTable { entries }
    }

    /// How many sources the table holds.
    ///
    /// ```
    /// assert_eq!(palisade_common::pattern::table::PackTable::default().len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the table holds no source.
    ///
    /// ```
    /// assert!(palisade_common::pattern::table::PackTable::default().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// `source` with `options`: prepacked when the table holds it (parsed
    /// in the same Unicode mode), else compiled from its text on first use.
    ///
    /// ```
    /// use palisade_common::pattern::{table::PackTable, Options};
    /// let p = PackTable::default().pattern("a", Options::default());
    /// assert!(!p.is_packed() && p.is_match("a"));
    /// ```
    pub fn pattern(&self, source: &str, options: Options) -> Pattern {
        let key = (source, options.unicode);
        match self
            .entries
            .binary_search_by(|e| (e.source, e.unicode).cmp(&key))
        {
            Ok(i) => {
                let e = self.entries[i];
                Pattern::prepacked_gated(source, options, [e.hir, e.twin], [e.gate, e.twin_gate])
            }
            Err(_) => Pattern::lazy_with(source, options),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn leak(v: Vec<u8>) -> &'static [u8] {
        Box::leak(v.into_boxed_slice())
    }

    #[test]
    fn a_truncated_table_keeps_what_came_before() {
        let o = Options::default();
        let bytes = PackTable::encode(["a+", "b+", "c+"], o);
        for cut in 0..bytes.len() {
            let t = PackTable::decode(leak(bytes[..cut].to_vec()));
            assert!(t.len() <= 2, "cut {cut}");
            for s in ["a+", "b+", "c+"] {
                let p = t.pattern(s, o);
                let hit = s.chars().next().unwrap().to_string().repeat(2);
                assert_eq!(
                    p.find(&hit).map(|m| m.as_str()),
                    Some(hit.as_str()),
                    "cut {cut}"
                );
            }
        }
        assert_eq!(PackTable::decode(leak(bytes)).len(), 3);
    }

    /// A text without a literal of each group is answered without a
    /// compile; one with them compiles and finds what the source finds.
    #[test]
    fn gated_patterns_stay_uncompiled_on_texts_without_their_literals() {
        let o = Options::default();
        let src = r"(?i)\b(?:user|owner)\s+(said|wrote)";
        let t = PackTable::decode(leak(PackTable::encode([src], o)));
        let p = t.pattern(src, o);
        assert!(p.find("the user left").is_none());
        assert!(p.find("l'utilisateur a dit").is_none());
        assert!(!p.is_built());
        let plain = Pattern::lazy(src);
        for text in [
            "The USER said",
            "owner  wrote",
            "the user left",
            "usér said",
        ] {
            assert_eq!(
                p.find(text).map(|m| m.range()),
                plain.find(text).map(|m| m.range()),
                "{text}"
            );
        }
        assert!(p.is_built());
        // A table of the previous format (no gates) still serves.
        let hir = parse("a+", o).unwrap();
        let mut v1 = MAGIC_V1.to_vec();
        for part in [
            &b"a+"[..],
            &[1],
            &packed::pack(&hir),
            &packed::pack(&ascii_twin(&hir)),
        ] {
            v1.extend_from_slice(&u32::try_from(part.len()).unwrap().to_le_bytes());
            v1.extend_from_slice(part);
        }
        let t = PackTable::decode(leak(v1));
        assert_eq!(t.len(), 1);
        let p = t.pattern("a+", o);
        assert!(p.is_packed());
        assert_eq!(p.find("baa").map(|m| m.range()), Some(1..3));
    }

    #[test]
    fn the_unicode_mode_is_part_of_the_key() {
        let ascii = Options {
            unicode: false,
            ..Options::default()
        };
        let t = PackTable::decode(leak(PackTable::encode([r"\w"], ascii)));
        assert!(t.pattern(r"\w", ascii).is_packed());
        let p = t.pattern(r"\w", Options::default());
        assert!(!p.is_packed());
        assert!(p.is_match("é"));
    }
}
