//! Text normalization with an offset map back to the original input.
//!
//! [`normalize`] applies, in order:
//!
//! 1. removal of every Unicode `Default_Ignorable_Code_Point` (zero-width
//!    characters and joiners, soft hyphen, invisible operators U+2061–2064,
//!    U+180E, U+034F, bidi controls, variation selectors, tag characters …);
//! 2. NFKC, which also folds full-width letters and compatibility forms;
//! 3. Markdown emphasis: `**` is dropped everywhere, `__` where it flanks a
//!    word (so `snake__case` keeps its underscores but `__bold__` loses them).
//!
//! The result is idempotent (`normalize(normalize(x)) == normalize(x)`), and
//! [`Normalized::original_span`] maps any span of the normalized text back to
//! the bytes of the original input it came from, so a guard can match on the
//! normalized copy and still report exact spans of what the caller passed in.
//!
//! ```
//! use palisade_common::{normalize::normalize, Span};
//!
//! let input = "Ｕｓｅｒ dec\u{00AD}ided";
//! let n = normalize(input);
//! assert_eq!(n.as_str(), "User decided");
//! // "User" in the normalized text came from the four full-width letters.
//! assert_eq!(&input[n.original_span(Span::new(0, 4)).range()], "Ｕｓｅｒ");
//! ```

use crate::span::Span;
use unicode_normalization::char::canonical_combining_class;
use unicode_normalization::{is_nfkc, is_nfkc_quick, IsNormalized, UnicodeNormalization};

/// Normalized text plus the map from its bytes to the original input's bytes.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct Normalized {
    text: String,
    /// Sorted, non-overlapping pieces covering `text`; empty means "identity".
    pieces: Vec<Piece>,
    identity: bool,
    original_len: usize,
}

/// One stretch of normalized output and the original bytes it came from.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
struct Piece {
    norm: Span,
    orig: Span,
    /// `Copied` pieces map byte for byte; `Replaced` pieces map only as a whole.
    kind: PieceKind,
}

#[derive(Clone, Copy, Debug, Eq, PartialEq)]
enum PieceKind {
    Copied,
    Replaced,
}

/// Normalize `input` for matching (see the [module docs](self)).
///
/// ```
/// use palisade_common::normalize::normalize;
/// assert_eq!(normalize("use __FastAPI__ now").as_str(), "use FastAPI now");
/// assert_eq!(normalize("def __init__(self)").as_str(), "def init(self)");
/// assert_eq!(normalize("snake__case").as_str(), "snake__case");
/// ```
pub fn normalize(input: &str) -> Normalized {
    if input.is_ascii() && !input.contains("**") && !input.contains("__") {
        return Normalized {
            text: input.to_owned(),
            pieces: Vec::new(),
            identity: true,
            original_len: input.len(),
        };
    }
    let mut current = single_pass(input);
    // Removing an invisible or an emphasis marker can bring a combining mark
    // next to a base it composes with; a further pass settles that. Each pass
    // only composes, so two more are enough for any input; the bound keeps the
    // loop finite regardless.
    for _ in 0..3 {
        if is_nfkc(&current.text) {
            break;
        }
        let next = single_pass(&current.text);
        current = compose(&current, next);
    }
    current
}

/// Whether `c` is a Unicode `Default_Ignorable_Code_Point` (Unicode 15.1).
///
/// ```
/// use palisade_common::normalize::is_default_ignorable;
/// assert!(is_default_ignorable('\u{200B}'));
/// assert!(is_default_ignorable('\u{E0041}'));
/// assert!(!is_default_ignorable('a'));
/// ```
pub fn is_default_ignorable(c: char) -> bool {
    matches!(c as u32,
        0x00AD | 0x034F | 0x061C | 0x115F..=0x1160 | 0x17B4..=0x17B5 | 0x180B..=0x180F
        | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x206F | 0x3164 | 0xFE00..=0xFE0F
        | 0xFEFF | 0xFFA0 | 0xFFF0..=0xFFF8 | 0x1BCA0..=0x1BCA3 | 0x1D173..=0x1D17A
        | 0xE0000..=0xE0FFF)
}

impl Normalized {
    /// The normalized text.
    ///
    /// ```
    /// assert_eq!(palisade_common::normalize::normalize("ａｂｃ").as_str(), "abc");
    /// ```
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Consume and return the normalized text.
    ///
    /// ```
    /// let s: String = palisade_common::normalize::normalize("x").into_string();
    /// assert_eq!(s, "x");
    /// ```
    pub fn into_string(self) -> String {
        self.text
    }

    /// Whether normalization changed nothing (the map is the identity).
    ///
    /// ```
    /// use palisade_common::normalize::normalize;
    /// assert!(normalize("plain ascii").is_identity());
    /// assert!(!normalize("ｆｕｌｌ").is_identity());
    /// ```
    pub fn is_identity(&self) -> bool {
        self.identity
    }

    /// Map a byte offset of the normalized text to the original input.
    ///
    /// `Bias::Start` maps to the first original byte that produced the
    /// character at `offset`; `Bias::End` treats `offset` as the end of a span
    /// and maps to one past the last original byte that produced the character
    /// before it.
    ///
    /// ```
    /// use palisade_common::normalize::{normalize, Bias};
    /// let n = normalize("a\u{200B}b");
    /// assert_eq!(n.original_offset(1, Bias::Start), 4);
    /// assert_eq!(n.original_offset(1, Bias::End), 1);
    /// ```
    pub fn original_offset(&self, offset: usize, bias: Bias) -> usize {
        if self.identity {
            return offset.min(self.original_len);
        }
        if self.pieces.is_empty() {
            return 0;
        }
        match bias {
            Bias::Start => {
                if offset >= self.text.len() {
                    return self.original_len;
                }
                let piece = self.pieces[self.piece_index(offset)];
                match piece.kind {
                    PieceKind::Copied => piece.orig.start + (offset - piece.norm.start),
                    PieceKind::Replaced => piece.orig.start,
                }
            }
            Bias::End => {
                if offset == 0 {
                    return self.pieces[0].orig.start.min(self.first_orig_start());
                }
                let piece = self.pieces[self.piece_index(offset - 1)];
                match piece.kind {
                    PieceKind::Copied => piece.orig.start + (offset - piece.norm.start),
                    PieceKind::Replaced => piece.orig.end,
                }
            }
        }
    }

    /// Map a span of the normalized text to the span of the original input
    /// that produced it. The result is on `char` boundaries of the original.
    ///
    /// ```
    /// use palisade_common::{normalize::normalize, Span};
    /// let input = "the us\u{200D}er ap\u{200B}proved";
    /// let n = normalize(input);
    /// let at = n.as_str().find("approved").unwrap();
    /// let span = n.original_span(Span::new(at, at + 8));
    /// assert_eq!(&input[span.range()], "ap\u{200B}proved");
    /// ```
    pub fn original_span(&self, span: Span) -> Span {
        if span.is_empty() {
            let at = self.original_offset(span.start, Bias::Start);
            return Span::new(at, at);
        }
        Span::new(
            self.original_offset(span.start, Bias::Start),
            self.original_offset(span.end, Bias::End),
        )
    }

    fn first_orig_start(&self) -> usize {
        self.pieces.first().map_or(0, |p| p.orig.start)
    }

    /// Index of the piece whose normalized range contains byte `offset`.
    fn piece_index(&self, offset: usize) -> usize {
        // Pieces are sorted and contiguous; find the last with start <= offset.
        self.pieces
            .partition_point(|p| p.norm.start <= offset)
            .saturating_sub(1)
    }
}

/// Which side of a character an offset mapping should land on.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Bias {
    /// The offset is the start of a span.
    Start,
    /// The offset is the end of a span.
    End,
}

/// One pass of invisible removal, NFKC and emphasis stripping over `input`.
fn single_pass(input: &str) -> Normalized {
    // Stage 1 + 2: chunk the visible characters at NFKC-safe boundaries and
    // normalize each chunk on its own, recording where each output char came from.
    let mut chars: Vec<(char, Span)> = Vec::with_capacity(input.len());
    let mut chunk = String::new();
    let mut chunk_span: Option<Span> = None;
    let flush = |chunk: &mut String, span: &mut Option<Span>, out: &mut Vec<(char, Span)>| {
        let Some(s) = span.take() else { return };
        let mut chars = chunk.chars();
        match (chars.next(), chars.next()) {
            // Most chunks are one character that NFKC leaves alone (all of
            // ASCII, CJK ideographs, most letters): copy it without running
            // the normalizer.
            (Some(c), None)
                if c.is_ascii() || is_nfkc_quick(std::iter::once(c)) == IsNormalized::Yes =>
            {
                out.push((c, s));
            }
            _ => {
                for c in chunk.nfkc() {
                    if !is_default_ignorable(c) {
                        out.push((c, s));
                    }
                }
            }
        }
        chunk.clear();
    };
    for (i, c) in input.char_indices() {
        if is_default_ignorable(c) {
            continue;
        }
        let end = i + c.len_utf8();
        if chunk_span.is_some() && is_boundary_before(c) {
            flush(&mut chunk, &mut chunk_span, &mut chars);
        }
        chunk.push(c);
        chunk_span = Some(match chunk_span {
            Some(s) => Span::new(s.start, end),
            None => Span::new(i, end),
        });
    }
    flush(&mut chunk, &mut chunk_span, &mut chars);

    // Stage 3: emphasis markers cancel in pairs against what was already kept.
    let mut kept: Vec<(char, Span)> = Vec::with_capacity(chars.len());
    for idx in 0..chars.len() {
        let (c, span) = chars[idx];
        match c {
            '*' if kept.last().is_some_and(|&(p, _)| p == '*') => {
                kept.pop();
            }
            '_' if kept.last().is_some_and(|&(p, _)| p == '_') => {
                let before = kept.len().checked_sub(2).map(|j| kept[j].0);
                let after = chars.get(idx + 1).map(|&(n, _)| n);
                let word_inside = before.is_some_and(char::is_alphanumeric)
                    && after.is_some_and(char::is_alphanumeric);
                if word_inside {
                    kept.push((c, span));
                } else {
                    kept.pop();
                }
            }
            _ => kept.push((c, span)),
        }
    }

    build(kept, input)
}

/// Whether a new NFKC chunk may start before `c`.
fn is_boundary_before(c: char) -> bool {
    if c.is_ascii() {
        return true;
    }
    canonical_combining_class(c) == 0 && is_nfkc_quick(std::iter::once(c)) != IsNormalized::Maybe
}

/// Assemble output text and merged pieces from per-char provenance.
fn build(chars: Vec<(char, Span)>, input: &str) -> Normalized {
    let mut text = String::with_capacity(chars.len());
    let mut pieces: Vec<Piece> = Vec::new();
    for (c, orig) in chars {
        let start = text.len();
        text.push(c);
        let norm = Span::new(start, text.len());
        let copied = orig.len() == norm.len()
            && input
                .get(orig.range())
                .is_some_and(|s| s.starts_with(c) && s.len() == c.len_utf8());
        let kind = if copied {
            PieceKind::Copied
        } else {
            PieceKind::Replaced
        };
        match pieces.last_mut() {
            // Several output chars from one replaced chunk share one piece.
            Some(last)
                if kind == PieceKind::Replaced
                    && last.kind == PieceKind::Replaced
                    && last.orig == orig =>
            {
                last.norm.end = norm.end;
            }
            Some(last)
                if kind == PieceKind::Copied
                    && last.kind == PieceKind::Copied
                    && last.orig.end == orig.start
                    && last.norm.end == norm.start =>
            {
                last.norm.end = norm.end;
                last.orig.end = orig.end;
            }
            _ => pieces.push(Piece { norm, orig, kind }),
        }
    }
    let identity = text == input;
    Normalized {
        identity,
        pieces: if identity { Vec::new() } else { pieces },
        text,
        original_len: input.len(),
    }
}

/// Chain two passes: `second` was computed on `first.text`.
fn compose(first: &Normalized, second: Normalized) -> Normalized {
    if second.identity {
        return first.clone();
    }
    let pieces = second
        .pieces
        .iter()
        .map(|p| {
            let orig = first.original_span(p.orig);
            let kind = if p.kind == PieceKind::Copied && orig.len() == p.norm.len() {
                PieceKind::Copied
            } else {
                PieceKind::Replaced
            };
            Piece {
                norm: p.norm,
                orig,
                kind,
            }
        })
        .collect();
    Normalized {
        identity: false,
        text: second.text,
        pieces,
        original_len: first.original_len,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn check_map(input: &str) {
        let n = normalize(input);
        let len = n.as_str().len();
        let s = n.original_span(Span::new(0, len));
        assert!(s.end <= input.len());
        assert!(input.is_char_boundary(s.start) && input.is_char_boundary(s.end));
    }

    #[test]
    fn cases() {
        let cases: &[(&str, &str, &str)] = &[
            ("ascii", "The user decided", "The user decided"),
            ("full-width", "Ｔｈｅ ｕｓｅｒ", "The user"),
            (
                "zero-width inside word",
                "de\u{200B}ci\u{200C}ded",
                "decided",
            ),
            ("soft hyphen", "ap\u{00AD}proved", "approved"),
            ("invisible operators", "a\u{2061}b\u{2064}c", "abc"),
            ("mongolian vowel separator", "us\u{180E}er", "user"),
            ("cgj", "us\u{034F}er", "user"),
            ("variation selector", "ok\u{FE0F}", "ok"),
            ("tag characters", "hi\u{E0041}\u{E0042}", "hi"),
            ("bold", "**User** decided", "User decided"),
            ("underscore bold", "__User__ decided", "User decided"),
            ("snake case kept", "snake__case", "snake__case"),
            ("triple star", "***x***", "*x*"),
            ("ligature", "ﬁle", "file"),
            ("chinese full-width punctuation", "用户决定！", "用户决定!"),
            ("chinese unchanged", "用户决定使用", "用户决定使用"),
            ("composition", "e\u{0301}", "\u{00E9}"),
            (
                "composition across invisible",
                "e\u{200B}\u{0301}",
                "\u{00E9}",
            ),
            ("composition across emphasis", "e**\u{0301}", "\u{00E9}"),
        ];
        for (name, input, want) in cases {
            let n = normalize(input);
            assert_eq!(n.as_str(), *want, "case {name}: normalize({input:?})");
            assert_eq!(
                normalize(n.as_str()).as_str(),
                *want,
                "case {name}: not idempotent"
            );
            check_map(input);
        }
    }

    #[test]
    fn spans_map_back() {
        let input = "Ｔｈｅ **user** ap\u{200B}proved";
        let n = normalize(input);
        assert_eq!(n.as_str(), "The user approved");
        let at = n.as_str().find("user").unwrap();
        assert_eq!(
            &input[n.original_span(Span::new(at, at + 4)).range()],
            "user"
        );
        let at = n.as_str().find("approved").unwrap();
        assert_eq!(
            &input[n.original_span(Span::new(at, at + 8)).range()],
            "ap\u{200B}proved"
        );
        assert_eq!(&input[n.original_span(Span::new(0, 3)).range()], "Ｔｈｅ");
    }

    proptest! {
        #[test]
        fn idempotent(s in ".{0,64}") {
            let once = normalize(&s);
            let twice = normalize(once.as_str());
            prop_assert_eq!(once.as_str(), twice.as_str());
        }

        #[test]
        fn idempotent_markdownish(s in "[a-z_*\u{200B}\u{0301} ]{0,32}") {
            let once = normalize(&s);
            let twice = normalize(once.as_str());
            prop_assert_eq!(once.as_str(), twice.as_str());
        }

        #[test]
        fn spans_on_boundaries(s in ".{0,64}", a in 0usize..80, b in 0usize..80) {
            let n = normalize(&s);
            let len = n.as_str().len();
            let (mut a, mut b) = (a.min(len), b.min(len));
            if a > b { std::mem::swap(&mut a, &mut b); }
            while !n.as_str().is_char_boundary(a) { a -= 1; }
            while !n.as_str().is_char_boundary(b) { b += 1; }
            let span = n.original_span(Span::new(a, b));
            prop_assert!(span.start <= span.end);
            prop_assert!(span.end <= s.len());
            prop_assert!(s.is_char_boundary(span.start));
            prop_assert!(s.is_char_boundary(span.end));
        }
    }
}
