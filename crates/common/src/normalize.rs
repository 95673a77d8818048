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
//! # Cost
//!
//! Linear in the input. ASCII without emphasis markers is returned after one
//! scan. Otherwise one fused pass copies runs of characters NFKC leaves alone
//! (classified by a compile-time table of the BMP) as whole slices, and does
//! per-character work only where a character is removed or rewritten; the
//! offset map has one entry per such run, not per character. NFKC is
//! re-checked only around the stretches that were rewritten, so a second pass
//! (when removing a marker lets a combining mark compose) is rare.
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
use unicode_normalization::char::{canonical_combining_class, decompose_compatible};
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
/// Runs in time linear in the input. Text that needs no change (plain ASCII
/// prose, already-NFKC prose in any script) is copied in bulk; per-character
/// work happens only where a character is removed or rewritten.
///
/// ```
/// use palisade_common::normalize::normalize;
/// assert_eq!(normalize("use __FastAPI__ now").as_str(), "use FastAPI now");
/// assert_eq!(normalize("def __init__(self)").as_str(), "def init(self)");
/// assert_eq!(normalize("snake__case").as_str(), "snake__case");
/// ```
pub fn normalize(input: &str) -> Normalized {
    if input.is_ascii() && !input.contains("**") && !input.contains("__") {
        return Normalized::unchanged(input);
    }
    let (mut current, mut dirty) = single_pass(input);
    // Removing an invisible or an emphasis marker can bring a combining mark
    // next to a base it composes with; a further pass settles that. Each pass
    // only composes, so two more are enough for any input; the bound keeps the
    // loop finite regardless. Only the stretches a pass rewrote can break NFKC
    // (everything else was copied as stable starters), so only they are checked.
    for _ in 0..3 {
        if windows_are_nfkc(&current.text, &dirty) {
            break;
        }
        let (next, next_dirty) = single_pass(&current.text);
        current = compose(&current, next);
        dirty = next_dirty;
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
    /// `input` itself, with the identity map.
    fn unchanged(input: &str) -> Normalized {
        Normalized {
            text: input.to_owned(),
            pieces: Vec::new(),
            identity: true,
            original_len: input.len(),
        }
    }

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
        self.map_offset(offset, bias, |at| self.piece_index(at))
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

    /// [`Self::original_offset`], finding the piece that holds a byte with
    /// `piece_at` (a binary search, or a cursor when offsets only grow).
    fn map_offset(
        &self,
        offset: usize,
        bias: Bias,
        mut piece_at: impl FnMut(usize) -> usize,
    ) -> usize {
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
                let piece = self.pieces[piece_at(offset)];
                match piece.kind {
                    PieceKind::Copied => piece.orig.start + (offset - piece.norm.start),
                    PieceKind::Replaced => piece.orig.start,
                }
            }
            Bias::End => {
                if offset == 0 {
                    return self.pieces[0].orig.start.min(self.first_orig_start());
                }
                let piece = self.pieces[piece_at(offset - 1)];
                match piece.kind {
                    PieceKind::Copied => piece.orig.start + (offset - piece.norm.start),
                    PieceKind::Replaced => piece.orig.end,
                }
            }
        }
    }

    /// Index of the piece holding byte `offset`, searching forward from
    /// `*hint` (the previous answer); falls back to the binary search when
    /// `offset` moved backwards. Over a walk with growing offsets the total
    /// work is linear in the number of pieces.
    fn piece_index_from(&self, hint: &mut usize, offset: usize) -> usize {
        let mut k = (*hint).min(self.pieces.len().saturating_sub(1));
        if self.pieces.get(k).is_some_and(|p| p.norm.start > offset) {
            k = self.piece_index(offset);
        }
        while self
            .pieces
            .get(k + 1)
            .is_some_and(|p| p.norm.start <= offset)
        {
            k += 1;
        }
        *hint = k;
        k
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
///
/// Returns the result and the stretches of its text that were not copied
/// verbatim from stable starters of the input (see [`windows_are_nfkc`]).
///
/// The pass is the composition of three stages, fused so that unchanged text
/// is copied in bulk:
///
/// 1. characters are grouped into NFKC chunks: a chunk starts at a character
///    that cannot interact with what precedes it (class 0 and quick check
///    not `Maybe`: [`Class::Stable`] or [`Class::Compat`]) and
///    takes the non-boundary characters after it; invisibles are skipped but
///    lie inside the span of the chunk they interrupt;
/// 2. a one-character chunk that NFKC leaves alone is copied, any other chunk
///    is normalized as a whole and every output character maps to the whole
///    chunk;
/// 3. emphasis markers cancel in pairs against the output kept so far.
///
/// A "run" is a stretch of one-character chunks that are copied as they are
/// and are not emphasis markers; it goes to the output as one slice.
fn single_pass(input: &str) -> (Normalized, Vec<Span>) {
    let bytes = input.as_bytes();
    let len = bytes.len();
    let mut pass = Pass::new(input);
    // The run being collected is `input[run_start..i]`. Its last character
    // (starting at `last`) is a chunk of its own only if the character after
    // it is a visible boundary, so it stays provisional until that is known.
    let mut run_start = 0;
    let mut last: Option<usize> = None;
    let mut i = 0;
    while i < len {
        let b = bytes[i];
        if is_plain_ascii(b) {
            let end = plain_ascii_end(bytes, i + 1);
            last = Some(end - 1);
            i = end;
            continue;
        }
        let (head, class) = if b.is_ascii() {
            // `*` or `_`: a boundary. Followed by ASCII (or nothing) it is a
            // chunk of its own and only emphasis applies: it can only add or
            // drop ASCII, which never needs an NFKC re-check.
            if bytes.get(i + 1).is_none_or(u8::is_ascii) {
                pass.run(run_start, i);
                pass.emit(char::from(b), Span::new(i, i + 1));
                i += 1;
                run_start = i;
                last = None;
                continue;
            }
            (i, Class::Stable)
        } else {
            let Some(c) = input.get(i..).and_then(|rest| rest.chars().next()) else {
                break; // unreachable: `i` is always on a char boundary
            };
            match pass.classes.get(c) {
                Class::Stable => {
                    last = Some(i);
                    i += c.len_utf8();
                    continue;
                }
                Class::Compat => (i, Class::Compat),
                Class::Invisible => {
                    // Invisibles followed by a boundary (or the end) leave the
                    // run's last character a chunk of its own: close the run
                    // before them and drop them, no chunk logic needed.
                    let mut next = len;
                    let mut joining = false;
                    for (k, n) in input[i..].char_indices() {
                        match pass.classes.get(n) {
                            Class::Invisible => {}
                            class => {
                                next = i + k;
                                joining = class == Class::Joining;
                                break;
                            }
                        }
                    }
                    if !joining {
                        pass.run(run_start, i);
                        run_start = next;
                        i = next;
                        last = None;
                        continue;
                    }
                    match last {
                        Some(at) => (at, Class::Stable),
                        None => (i, Class::Invisible),
                    }
                }
                // A combining character: it belongs to the chunk of the
                // character before it, if that was in the run.
                Class::Joining => match last {
                    Some(at) => (at, Class::Stable),
                    None => (i, Class::Joining),
                },
            }
        };
        pass.run(run_start, head);
        i = pass.chunk(head, class);
        run_start = i;
        last = None;
    }
    pass.run(run_start, len);
    pass.finish()
}

/// ASCII other than the emphasis markers: a one-character chunk that NFKC
/// leaves alone when the next character is a boundary.
fn is_plain_ascii(b: u8) -> bool {
    b.is_ascii() && b != b'*' && b != b'_'
}

/// The first index at or after `from` whose byte is not plain ASCII, eight
/// bytes at a time while none of them is non-ASCII, `*` or `_`.
fn plain_ascii_end(bytes: &[u8], mut from: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let has_zero_byte = |x: u64| x.wrapping_sub(ONES) & !x & HIGH != 0;
    while let Some(Ok(word)) = bytes.get(from..from + 8).map(<[u8; 8]>::try_from) {
        let v = u64::from_le_bytes(word);
        if v & HIGH != 0 || has_zero_byte(v ^ (ONES * 0x2A)) || has_zero_byte(v ^ (ONES * 0x5F)) {
            break;
        }
        from += 8;
    }
    while from < bytes.len() && is_plain_ascii(bytes[from]) {
        from += 1;
    }
    from
}

/// How a character takes part in chunking.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
enum Class {
    /// Visible, combining class 0, NFKC quick check `Yes`: NFKC never changes
    /// it and never joins it to what precedes it (all of ASCII).
    Stable,
    /// Visible, combining class 0, quick check `No`: starts a chunk that NFKC
    /// rewrites.
    Compat,
    /// A combining mark or a character that may compose with the one before
    /// it: never starts a chunk (except at the start of the text).
    Joining,
    /// A `Default_Ignorable_Code_Point`: removed.
    Invisible,
}

/// The [`Class`] of `c`, from the tables first and the Unicode lookups
/// only for what they do not cover.
#[inline]
fn class_of(c: char) -> Class {
    let u = c as u32;
    if u < 0x80 {
        return Class::Stable;
    }
    match bmp_tag(u) {
        TAG_STABLE => Class::Stable,
        TAG_COMPAT => Class::Compat,
        TAG_INVISIBLE => Class::Invisible,
        _ => class_by_lookup(c),
    }
}

/// The two-bit [`BMP_TAGS`] entry of code point `u` (0 outside the BMP).
#[inline]
fn bmp_tag(u: u32) -> u8 {
    BMP_TAGS
        .get((u >> 2) as usize)
        .map_or(TAG_NONE, |&byte| (byte >> ((u & 3) * 2)) & 3)
}

/// [`class_of`] with a small direct-mapped memo for the characters the
/// tables leave to the Unicode lookups. A script's letters and marks repeat
/// (Devanagari, Arabic, combining marks), so most lookups hit. The memo is
/// only allocated once such a character shows up.
#[derive(Default)]
struct ClassMemo(Option<Box<[u32; 256]>>);

impl ClassMemo {
    #[inline]
    fn get(&mut self, c: char) -> Class {
        let u = c as u32;
        if u < 0x80 {
            return Class::Stable;
        }
        match bmp_tag(u) {
            TAG_STABLE => return Class::Stable,
            TAG_COMPAT => return Class::Compat,
            TAG_INVISIBLE => return Class::Invisible,
            _ => {}
        }
        self.look_up(c)
    }

    /// The memo part of [`ClassMemo::get`], kept out of line so the table
    /// fast path stays small.
    #[inline(never)]
    fn look_up(&mut self, c: char) -> Class {
        let u = c as u32;
        // An entry is `(code point + 1) << 2 | class`; 0 is empty.
        let memo = self.0.get_or_insert_with(|| Box::new([0u32; 256]));
        let slot = &mut memo[(u & 0xFF) as usize];
        if *slot >> 2 == u + 1 {
            return match *slot & 3 {
                0 => Class::Stable,
                1 => Class::Compat,
                2 => Class::Joining,
                _ => Class::Invisible,
            };
        }
        let class = class_by_lookup(c);
        let code = match class {
            Class::Stable => 0,
            Class::Compat => 1,
            Class::Joining => 2,
            Class::Invisible => 3,
        };
        *slot = ((u + 1) << 2) | code;
        class
    }
}

/// [`class_of`] for characters the [`BMP_TAGS`] fast path does not cover.
#[inline(never)]
fn class_by_lookup(c: char) -> Class {
    let u = c as u32;
    if is_default_ignorable(c) {
        return Class::Invisible;
    }
    let at = STARTERS.partition_point(|&(lo, _, _)| lo <= u);
    if let Some(&(_, hi, page)) = at.checked_sub(1).and_then(|k| STARTERS.get(k)) {
        if hi >= u {
            return if page == TAG_STABLE {
                Class::Stable
            } else {
                Class::Compat
            };
        }
    }
    if canonical_combining_class(c) != 0 {
        return Class::Joining;
    }
    match is_nfkc_quick(std::iter::once(c)) {
        IsNormalized::Yes => Class::Stable,
        IsNormalized::No => Class::Compat,
        IsNormalized::Maybe => Class::Joining,
    }
}

const TAG_NONE: u8 = 0;
const TAG_STABLE: u8 = 1;
const TAG_COMPAT: u8 = 2;
const TAG_INVISIBLE: u8 = 3;

/// The BMP part of [`is_default_ignorable`], as data for [`BMP_TAGS`] (a test
/// checks the two agree on every BMP code point).
const BMP_IGNORABLE: &[(u32, u32)] = &[
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
];

/// [`STABLE_STARTERS`] and [`COMPAT_STARTERS`] merged into one sorted
/// table (tagged [`TAG_STABLE`] / [`TAG_COMPAT`]), so one binary search
/// classifies a character; built at compile time.
const STARTERS: [(u32, u32, u8); STABLE_STARTERS.len() + COMPAT_STARTERS.len()] = {
    let mut out = [(0u32, 0u32, TAG_NONE); STABLE_STARTERS.len() + COMPAT_STARTERS.len()];
    let (mut i, mut j, mut k) = (0, 0, 0);
    while k < out.len() {
        let take_stable = j >= COMPAT_STARTERS.len()
            || (i < STABLE_STARTERS.len() && STABLE_STARTERS[i].0 < COMPAT_STARTERS[j].0);
        out[k] = if take_stable {
            i += 1;
            (
                STABLE_STARTERS[i - 1].0,
                STABLE_STARTERS[i - 1].1,
                TAG_STABLE,
            )
        } else {
            j += 1;
            (
                COMPAT_STARTERS[j - 1].0,
                COMPAT_STARTERS[j - 1].1,
                TAG_COMPAT,
            )
        };
        k += 1;
    }
    out
};

/// Two bits per BMP code point: [`TAG_STABLE`] or [`TAG_COMPAT`] when
/// [`STARTERS`] lists it, [`TAG_INVISIBLE`] for [`BMP_IGNORABLE`], else
/// [`TAG_NONE`] (16 KiB, built at compile time),
/// so [`class_of`] answers most characters with one load.
const BMP_TAGS: [u8; 0x4000] = {
    let mut tags = [0u8; 0x4000];
    let mut k = 0;
    while k < STARTERS.len() {
        let (lo, hi, tag) = STARTERS[k];
        let mut u = lo;
        while u <= hi && u < 0x10000 {
            tags[(u >> 2) as usize] |= tag << ((u & 3) * 2);
            u += 1;
        }
        k += 1;
    }
    k = 0;
    while k < BMP_IGNORABLE.len() {
        let (lo, hi) = BMP_IGNORABLE[k];
        let mut u = lo;
        while u <= hi {
            tags[(u >> 2) as usize] |= TAG_INVISIBLE << ((u & 3) * 2);
            u += 1;
        }
        k += 1;
    }
    tags
};

/// Whether `c` is in [`STABLE_STARTERS`], by [`BMP_TAGS`] first.
fn in_stable_table(c: char) -> bool {
    let u = c as u32;
    bmp_tag(u) == TAG_STABLE || (u >= 0x10000 && in_table(STABLE_STARTERS, c))
}

/// Whether `c` lies in one of the sorted, disjoint `ranges`.
fn in_table(ranges: &[(u32, u32)], c: char) -> bool {
    let u = c as u32;
    let at = ranges.partition_point(|&(lo, _)| lo <= u);
    at > 0 && ranges[at - 1].1 >= u
}

/// Whether NFKC of `text` is `text`, given that everything outside the
/// `dirty` stretches is a verbatim copy of stable starters.
///
/// A split just before a stable starter is a safe NFKC boundary (nothing
/// before it reorders or composes with anything after it), so `text` is NFKC
/// exactly when each dirty stretch, widened to the stable starters around it,
/// is. The windows are visited left to right and never overlap, so the check
/// is linear.
fn windows_are_nfkc(text: &str, dirty: &[Span]) -> bool {
    let mut done = 0usize;
    for window in dirty {
        let mut start = window.start.clamp(done, text.len());
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        // Widen left to include the nearest stable starter (a mark in the
        // window may compose with it).
        while start > done {
            let Some(c) = text[..start].chars().next_back() else {
                break;
            };
            start -= c.len_utf8();
            if class_of(c) == Class::Stable {
                break;
            }
        }
        let mut end = window.end.clamp(start, text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        // Widen right up to the next stable starter.
        while let Some(c) = text[end..].chars().next() {
            if class_of(c) == Class::Stable {
                break;
            }
            end += c.len_utf8();
        }
        if !is_nfkc_fast(&text[start..end]) {
            return false;
        }
        done = done.max(end);
    }
    true
}

/// `is_nfkc`, with ASCII and tabled stable starters skipped without lookups
/// (they are starters with quick check `Yes`, exactly what the quick check
/// assumes of ASCII).
fn is_nfkc_fast(s: &str) -> bool {
    let mut last_cc = 0u8;
    let mut maybe = false;
    for c in s.chars() {
        if c.is_ascii() || in_stable_table(c) {
            last_cc = 0;
            continue;
        }
        let cc = canonical_combining_class(c);
        if last_cc > cc && cc != 0 {
            return false;
        }
        match is_nfkc_quick(std::iter::once(c)) {
            IsNormalized::Yes => {}
            IsNormalized::No => return false,
            IsNormalized::Maybe => maybe = true,
        }
        last_cc = cc;
    }
    !maybe || is_nfkc(s)
}

/// The length of the compatibility decomposition of `c` and its last
/// character. The full-width forms of ASCII (U+FF01–U+FF5E, all of Chinese
/// full-width punctuation among them) map to ASCII by a fixed offset, which
/// saves the table lookup on the commonest case.
fn lone_decomposition(c: char) -> (usize, char) {
    let u = c as u32;
    if (0xFF01..=0xFF5E).contains(&u) {
        if let Some(ascii) = char::from_u32(u - 0xFEE0) {
            return (1, ascii);
        }
    }
    let mut count = 0usize;
    let mut single = c;
    decompose_compatible(c, |d| {
        count += 1;
        single = d;
    });
    (count, single)
}

/// Output under construction for one pass.
struct Pass<'a> {
    input: &'a str,
    text: String,
    pieces: Vec<Piece>,
    /// A `_` that follows a kept `_` waits for the next character to decide
    /// whether the pair is a word-internal `__` (kept) or a marker (dropped).
    pending_underscore: Option<Span>,
    /// Stretches of `text` written by chunks whose output may not be NFKC
    /// in place (sorted, disjoint); the rest is NFKC by construction.
    dirty: Vec<Span>,
    /// The lowest length `text` had while the current chunk was emitted.
    low_water: usize,
    /// Whether the current chunk dropped an emphasis marker or an invisible
    /// from its output: what is left of an NFKC string may not be NFKC.
    cut: bool,
    classes: ClassMemo,
    scratch: String,
}

impl<'a> Pass<'a> {
    fn new(input: &'a str) -> Self {
        Pass {
            input,
            text: String::with_capacity(input.len()),
            pieces: Vec::new(),
            pending_underscore: None,
            dirty: Vec::new(),
            low_water: 0,
            cut: false,
            classes: ClassMemo::default(),
            scratch: String::new(),
        }
    }

    /// Copy `input[start..end]`, a run of one-character chunks that stay.
    fn run(&mut self, start: usize, end: usize) {
        let Some(slice) = self.input.get(start..end).filter(|s| !s.is_empty()) else {
            return;
        };
        self.resolve_pending(slice.chars().next());
        let norm_start = self.text.len();
        self.text.push_str(slice);
        let norm = Span::new(norm_start, self.text.len());
        let orig = Span::new(start, end);
        match self.pieces.last_mut() {
            Some(last) if last.kind == PieceKind::Copied && last.orig.end == orig.start => {
                last.norm.end = norm.end;
                last.orig.end = orig.end;
            }
            _ => self.pieces.push(Piece {
                norm,
                orig,
                kind: PieceKind::Copied,
            }),
        }
    }

    /// Handle the chunk (or invisible) starting at byte `at`, whose first
    /// character has class `class`; returns where the next chunk starts.
    fn chunk(&mut self, at: usize, class: Class) -> usize {
        let input = self.input;
        let Some(head) = input.get(at..).and_then(|rest| rest.chars().next()) else {
            return input.len();
        };
        let head_end = at + head.len_utf8();
        if class == Class::Invisible {
            return head_end;
        }
        // The non-boundary characters that join the head, invisibles skipped.
        let mut end = head_end;
        let mut next = input.len();
        let mut joined = false;
        for (k, c) in input[head_end..].char_indices() {
            match self.classes.get(c) {
                Class::Invisible => continue,
                Class::Stable | Class::Compat => {
                    next = head_end + k;
                    break;
                }
                Class::Joining => {
                    joined = true;
                    end = head_end + k + c.len_utf8();
                }
            }
        }
        let span = Span::new(at, end);
        self.low_water = self.text.len();
        self.cut = false;
        let copy_head = !joined
            && match class {
                Class::Stable => true,
                Class::Compat => false,
                _ => is_nfkc_quick(std::iter::once(head)) == IsNormalized::Yes,
            };
        if copy_head {
            self.emit(head, span);
        } else if !joined && !matches!(class, Class::Joining) {
            // A lone character: NFKC is its compatibility decomposition,
            // recomposed; a one-character decomposition has nothing to
            // recompose (full-width forms, most compatibility characters).
            let (count, single) = lone_decomposition(head);
            if count == 1 {
                if !is_default_ignorable(single) {
                    self.emit(single, span);
                }
            } else {
                self.emit_nfkc(span);
            }
        } else {
            self.emit_nfkc(span);
        }
        // A chunk's NFKC output is NFKC on its own, and a split just before a
        // stable starter is safe; so the text can only fail NFKC here if the
        // output starts with something else, or if part of it was cut.
        let starts_unstable = self
            .text
            .get(self.low_water..)
            .and_then(|t| t.chars().next())
            .is_some_and(|c| class_of(c) != Class::Stable);
        let mut written = Span::new(self.low_water, self.text.len());
        if (self.cut || starts_unstable) && !written.is_empty() {
            // Keep `dirty` sorted and disjoint: absorb what this one touches.
            while let Some(prev) = self.dirty.last().copied() {
                if prev.end < written.start {
                    break;
                }
                written = Span::new(prev.start.min(written.start), prev.end.max(written.end));
                self.dirty.pop();
            }
            self.dirty.push(written);
        }
        next
    }

    /// Emit NFKC of the visible characters of `input[span]`, all mapped to `span`.
    fn emit_nfkc(&mut self, span: Span) {
        let mut chunk = std::mem::take(&mut self.scratch);
        chunk.clear();
        chunk.extend(
            self.input[span.range()]
                .chars()
                .filter(|&c| !is_default_ignorable(c)),
        );
        for c in chunk.nfkc() {
            if is_default_ignorable(c) {
                self.cut = true;
            } else {
                self.emit(c, span);
            }
        }
        self.scratch = chunk;
    }

    /// Stage 3 for one output character that came from `orig`.
    fn emit(&mut self, c: char, orig: Span) {
        self.resolve_pending(Some(c));
        match c {
            '*' if self.text.ends_with('*') => self.pop(),
            '_' if self.text.ends_with('_') => self.pending_underscore = Some(orig),
            _ => self.push(c, orig),
        }
    }

    /// Decide a pending `_` now that the character after it is known.
    fn resolve_pending(&mut self, after: Option<char>) {
        let Some(orig) = self.pending_underscore.take() else {
            return;
        };
        // The text ends with the `_` this one pairs with.
        let before = self
            .text
            .strip_suffix('_')
            .and_then(|t| t.chars().next_back());
        let word_inside =
            before.is_some_and(char::is_alphanumeric) && after.is_some_and(char::is_alphanumeric);
        if word_inside {
            self.push('_', orig);
        } else {
            self.pop();
        }
    }

    /// Append one output character and extend or start a piece.
    fn push(&mut self, c: char, orig: Span) {
        let start = self.text.len();
        self.text.push(c);
        let norm = Span::new(start, self.text.len());
        // `starts_with(c)` encodes `c` and calls memcmp, which showed up in
        // profiles; decoding the one character is cheaper.
        #[allow(clippy::chars_next_cmp)] // see the comment above
        let copied = orig.len() == norm.len()
            && self
                .input
                .get(orig.range())
                .is_some_and(|s| s.chars().next() == Some(c));
        let kind = if copied {
            PieceKind::Copied
        } else {
            PieceKind::Replaced
        };
        match self.pieces.last_mut() {
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
                    && last.orig.end == orig.start =>
            {
                last.norm.end = norm.end;
                last.orig.end = orig.end;
            }
            _ => self.pieces.push(Piece { norm, orig, kind }),
        }
    }

    /// Drop the last output character (an emphasis marker), undoing exactly
    /// what `push` did for it.
    fn pop(&mut self) {
        let Some(c) = self.text.pop() else {
            return;
        };
        self.low_water = self.low_water.min(self.text.len());
        self.cut = true;
        let n = c.len_utf8();
        if let Some(last) = self.pieces.last_mut() {
            last.norm.end = last.norm.end.saturating_sub(n);
            if last.kind == PieceKind::Copied {
                last.orig.end = last.orig.end.saturating_sub(n);
            }
            if last.norm.end <= last.norm.start {
                self.pieces.pop();
            }
        }
    }

    fn finish(mut self) -> (Normalized, Vec<Span>) {
        self.resolve_pending(None);
        let identity = self.text.len() == self.input.len() && self.text == self.input;
        let normalized = Normalized {
            identity,
            pieces: if identity { Vec::new() } else { self.pieces },
            text: self.text,
            original_len: self.input.len(),
        };
        (normalized, self.dirty)
    }
}

/// Chain two passes: `second` was computed on `first.text`.
///
/// The pieces of `second` are sorted, so their spans are mapped through
/// `first` with forward-moving cursors instead of a binary search each.
fn compose(first: &Normalized, second: Normalized) -> Normalized {
    if second.identity {
        return first.clone();
    }
    let (mut at_start, mut at_end) = (0usize, 0usize);
    let pieces = second
        .pieces
        .iter()
        .map(|p| {
            let start = first.map_offset(p.orig.start, Bias::Start, |o| {
                first.piece_index_from(&mut at_start, o)
            });
            let orig = if p.orig.is_empty() {
                Span::new(start, start)
            } else {
                let end = first.map_offset(p.orig.end, Bias::End, |o| {
                    first.piece_index_from(&mut at_end, o)
                });
                Span::new(start, end)
            };
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

/// Ranges of code points (runs of 24 or more) that are visible, have
/// canonical combining class 0 and NFKC quick check `Yes` in the Unicode
/// version of `unicode-normalization`: NFKC never changes them and never
/// composes them with what precedes them. A test checks every code point.
/// Anything outside falls back to the table lookups, so the list only has to
/// be correct, not complete.
#[rustfmt::skip]
const STABLE_STARTERS: &[(u32, u32)] = &[
    (0x0080, 0x009F),     (0x00BF, 0x0131),     (0x014A, 0x017E),     (0x0180, 0x01C3),
    (0x01CD, 0x01F0),     (0x01F4, 0x02AF),     (0x02B9, 0x02D7),     (0x02E5, 0x02FF),
    (0x0388, 0x03CF),     (0x03D7, 0x03EF),     (0x03FA, 0x0482),     (0x0488, 0x0557),
    (0x0559, 0x0586),     (0x05CA, 0x060F),     (0x061D, 0x064A),     (0x0679, 0x06D5),
    (0x06EE, 0x0710),     (0x0712, 0x072F),     (0x074B, 0x07EA),     (0x07FE, 0x0815),
    (0x082E, 0x0858),     (0x085C, 0x0896),     (0x08A0, 0x08C9),     (0x0900, 0x093B),
    (0x0960, 0x09BB),     (0x09E0, 0x09FD),     (0x09FF, 0x0A32),     (0x0A5F, 0x0ABB),
    (0x0ACE, 0x0B3B),     (0x0B5E, 0x0BBD),     (0x0BD8, 0x0C3B),     (0x0C57, 0x0CBB),
    (0x0CD7, 0x0D3A),     (0x0D58, 0x0DC9),     (0x0DE0, 0x0E32),     (0x0E4C, 0x0EB2),
    (0x0EDE, 0x0F0B),     (0x0F1A, 0x0F34),     (0x0FC7, 0x102D),     (0x103B, 0x108C),
    (0x108E, 0x10FB),     (0x10FD, 0x115E),     (0x1176, 0x11A7),     (0x11C3, 0x135C),
    (0x1360, 0x1713),     (0x1716, 0x1733),     (0x1735, 0x17B3),     (0x17B6, 0x17D1),
    (0x17DE, 0x180A),     (0x1810, 0x18A8),     (0x18AA, 0x1938),     (0x193C, 0x1A16),
    (0x1A19, 0x1A5F),     (0x1A80, 0x1AAF),     (0x1AF1, 0x1B33),     (0x1B45, 0x1B6A),
    (0x1B74, 0x1BA9),     (0x1BAC, 0x1BE5),     (0x1BF4, 0x1C36),     (0x1C38, 0x1CCF),
    (0x1CFA, 0x1D2B),     (0x1D79, 0x1D9A),     (0x1E00, 0x1E99),     (0x1E9C, 0x1F70),
    (0x1F7E, 0x1FBA),     (0x20A9, 0x20CF),     (0x218A, 0x222B),     (0x2231, 0x2328),
    (0x232B, 0x245F),     (0x24EB, 0x2A0B),     (0x2A0D, 0x2A73),     (0x2A77, 0x2ADB),
    (0x2ADD, 0x2C7B),     (0x2C7E, 0x2CEE),     (0x2CF2, 0x2D6E),     (0x2D80, 0x2DDF),
    (0x2E00, 0x2E9E),     (0x2EA0, 0x2EF2),     (0x2FD6, 0x2FFF),     (0x3001, 0x3029),
    (0x303B, 0x3098),     (0x30A0, 0x30FE),     (0x3100, 0x3130),     (0x31A0, 0x31FF),
    (0x3400, 0xA66E),     (0xA67E, 0xA69B),     (0xA6A0, 0xA6EF),     (0xA6F2, 0xA76F),
    (0xA771, 0xA7F0),     (0xA807, 0xA82B),     (0xA82D, 0xA8C3),     (0xA8C5, 0xA8DF),
    (0xA8F2, 0xA92A),     (0xA92E, 0xA952),     (0xA954, 0xA9B2),     (0xA9C1, 0xAAAF),
    (0xAAC2, 0xAAF5),     (0xAAF7, 0xAB5B),     (0xAB6A, 0xABEC),     (0xABEE, 0xD7FF),
    (0xE000, 0xF8FF),     (0xFADA, 0xFAFF),     (0xFBB2, 0xFBD2),     (0xFDC8, 0xFDEF),
    (0xFFF9, 0x101FC),     (0x101FE, 0x102DF),     (0x102E1, 0x10375),     (0x1037B, 0x10780),
    (0x107C0, 0x10A0C),     (0x10A10, 0x10A37),     (0x10A40, 0x10AE4),     (0x10AE7, 0x10D23),
    (0x10D28, 0x10D68),     (0x10D6E, 0x10EAA),     (0x10EAD, 0x10ECA),     (0x10ED0, 0x10EEF),
    (0x10F00, 0x10F45),     (0x10F51, 0x10F81),     (0x10F86, 0x11045),     (0x11047, 0x1106F),
    (0x11080, 0x110B8),     (0x110BB, 0x110FF),     (0x11103, 0x11126),     (0x11135, 0x11172),
    (0x11174, 0x111BF),     (0x111CB, 0x11234),     (0x11237, 0x112E8),     (0x112EB, 0x1133A),
    (0x11375, 0x113B7),     (0x113D1, 0x11441),     (0x1145F, 0x114AF),     (0x114C4, 0x115AE),
    (0x115C1, 0x1163E),     (0x11640, 0x116B5),     (0x116B8, 0x1172A),     (0x1172C, 0x11838),
    (0x1183B, 0x1192F),     (0x11944, 0x119DF),     (0x119E1, 0x11A33),     (0x11A48, 0x11A98),
    (0x11A9A, 0x11C3E),     (0x11C40, 0x11D41),     (0x11D46, 0x11D96),     (0x11D98, 0x11F40),
    (0x11F43, 0x1611D),     (0x16130, 0x16AEF),     (0x16AF5, 0x16B2F),     (0x16B37, 0x16D66),
    (0x16D69, 0x16FEF),     (0x16FF2, 0x1B122),     (0x1B127, 0x1BC9D),     (0x1BCA4, 0x1CCD5),
    (0x1CCFA, 0x1D126),     (0x1D129, 0x1D15D),     (0x1D18C, 0x1D1A9),     (0x1D1C1, 0x1D241),
    (0x1D260, 0x1D27F),     (0x1D282, 0x1D3FF),     (0x1D800, 0x1DF94),     (0x1DF96, 0x1DFCC),
    (0x1E06E, 0x1E08E),     (0x1E090, 0x1E12F),     (0x1E137, 0x1E2AD),     (0x1E2AF, 0x1E2EB),
    (0x1E2F0, 0x1E4EB),     (0x1E4F0, 0x1E5ED),     (0x1E5F0, 0x1E6E2),     (0x1E6F6, 0x1E8CF),
    (0x1E8D7, 0x1E943),     (0x1E94B, 0x1EDFF),     (0x1EEBC, 0x1F0FF),     (0x1F150, 0x1F169),
    (0x1F16D, 0x1F18F),     (0x1F191, 0x1F1FF),     (0x1F252, 0x1FBEF),     (0x1FBFA, 0x2F7FF),
    (0x2FA1E, 0xDFFFF),     (0xE1000, 0x10FFFF), ];

/// Ranges of code points (runs of 16 or more) that are visible, have
/// canonical combining class 0 and NFKC quick check `No`: NFKC rewrites them,
/// but a chunk starts before them (full-width forms, circled and
/// parenthesized characters, CJK compatibility ideographs, math letters).
/// A test checks every code point; the list only has to be correct.
#[rustfmt::skip]
const COMPAT_STARTERS: &[(u32, u32)] = &[
    (0x1D3C, 0x1D4D),     (0x1D4F, 0x1D6A),     (0x1D9B, 0x1DBF),     (0x2074, 0x208E),
    (0x2090, 0x209F),     (0x2150, 0x217F),     (0x2460, 0x24EA),     (0x2F00, 0x2FD5),
    (0x3131, 0x3163),     (0x3165, 0x318E),     (0x3200, 0x321E),     (0x3220, 0x3247),
    (0x3250, 0x327E),     (0x3280, 0x33FF),     (0xF900, 0xFA0D),     (0xFA2A, 0xFA6D),
    (0xFA70, 0xFAD9),     (0xFB1F, 0xFB36),     (0xFB46, 0xFBB1),     (0xFBD3, 0xFD3D),
    (0xFD50, 0xFD8F),     (0xFD92, 0xFDC7),     (0xFE30, 0xFE44),     (0xFE54, 0xFE66),
    (0xFE76, 0xFEFC),     (0xFF01, 0xFF9F),     (0xFFA1, 0xFFBE),     (0x10787, 0x107B0),
    (0x1CCD6, 0x1CCF9),     (0x1D400, 0x1D454),     (0x1D456, 0x1D49C),     (0x1D4C5, 0x1D505),
    (0x1D51E, 0x1D539),     (0x1D552, 0x1D6A6),     (0x1D6A8, 0x1D7CB),     (0x1D7CE, 0x1D7FF),
    (0x1DFCD, 0x1DFFF),     (0x1E030, 0x1E06D),     (0x1EE05, 0x1EE1F),     (0x1EE8B, 0x1EE9B),
    (0x1EEAB, 0x1EEBB),     (0x1F110, 0x1F12E),     (0x1F130, 0x1F14F),     (0x1F210, 0x1F23B),
    (0x2F800, 0x2FA1D),
];

/// The straightforward per-character implementation this module replaced,
/// kept as the oracle the fast pass is tested against.
#[cfg(test)]
mod reference {
    use super::*;

    /// Whether a new NFKC chunk may start before `c`.
    fn is_boundary_before(c: char) -> bool {
        if c.is_ascii() {
            return true;
        }
        canonical_combining_class(c) == 0
            && is_nfkc_quick(std::iter::once(c)) != IsNormalized::Maybe
    }

    /// `compose` with a binary search per piece.
    fn compose_reference(first: &Normalized, second: Normalized) -> Normalized {
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

    pub(super) fn normalize(input: &str) -> Normalized {
        if input.is_ascii() && !input.contains("**") && !input.contains("__") {
            return Normalized::unchanged(input);
        }
        let mut current = single_pass(input);
        for _ in 0..3 {
            if is_nfkc(&current.text) {
                break;
            }
            let next = single_pass(&current.text);
            current = compose_reference(&current, next);
        }
        current
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

    #[test]
    fn stable_starter_table_is_correct() {
        let mut last = 0u32;
        for &(lo, hi) in STABLE_STARTERS {
            assert!(
                lo > last && lo <= hi,
                "table sorted, ranges disjoint at {lo:#X}"
            );
            last = hi;
            for c in (lo..=hi).filter_map(char::from_u32) {
                assert!(!c.is_ascii() && !is_default_ignorable(c), "{c:?}");
                assert_eq!(canonical_combining_class(c), 0, "{:#X}", c as u32);
                assert_eq!(
                    is_nfkc_quick(std::iter::once(c)),
                    IsNormalized::Yes,
                    "{:#X}",
                    c as u32
                );
            }
        }
        let mut last = 0u32;
        for &(lo, hi) in COMPAT_STARTERS {
            assert!(
                lo > last && lo <= hi,
                "table sorted, ranges disjoint at {lo:#X}"
            );
            last = hi;
            for c in (lo..=hi).filter_map(char::from_u32) {
                assert!(!c.is_ascii() && !is_default_ignorable(c), "{c:?}");
                assert_eq!(canonical_combining_class(c), 0, "{:#X}", c as u32);
                assert_eq!(
                    is_nfkc_quick(std::iter::once(c)),
                    IsNormalized::No,
                    "{:#X}",
                    c as u32
                );
            }
        }
        for c in ('\u{80}'..='\u{FFFF}').chain(['\u{10000}', '\u{E0041}', '\u{2F800}']) {
            let tag = match (in_table(STABLE_STARTERS, c), in_table(COMPAT_STARTERS, c)) {
                (true, false) => TAG_STABLE,
                (false, true) => TAG_COMPAT,
                (false, false) if is_default_ignorable(c) => TAG_INVISIBLE,
                (false, false) => TAG_NONE,
                (true, true) => panic!("{c:?} in both tables"),
            };
            if (c as u32) < 0x10000 {
                assert_eq!(bmp_tag(c as u32), tag, "{:#X}", c as u32);
            }
            assert_eq!(in_stable_table(c), tag == TAG_STABLE, "{:#X}", c as u32);
        }
        assert!(
            STARTERS.windows(2).all(|w| w[0].1 < w[1].0),
            "merged table sorted"
        );
        for c in '\u{FF01}'..='\u{FF5E}' {
            let mut decomposed = Vec::new();
            decompose_compatible(c, |d| decomposed.push(d));
            let (count, single) = lone_decomposition(c);
            assert_eq!(decomposed, vec![single], "{c:?}");
            assert_eq!(count, 1);
        }
        let mut memo = ClassMemo::default();
        for c in [
            '\u{0901}',
            'क',
            '\u{093E}',
            '\u{0301}',
            'ا',
            '\u{10FFFF}',
            '\u{E0041}',
        ]
        .into_iter()
        .cycle()
        .take(30)
        .chain(('\u{80}'..='\u{3000}').step_by(7))
        {
            assert_eq!(memo.get(c), class_of(c), "{c:?}");
        }
        assert_eq!(class_of('Ａ'), Class::Compat);
        assert_eq!(class_of('\u{2460}'), Class::Compat);
        assert_eq!(class_of('\u{0301}'), Class::Joining);
        assert_eq!(class_of('\u{3099}'), Class::Joining);
        assert_eq!(class_of('\u{200B}'), Class::Invisible);
        assert_eq!(class_of('x'), Class::Stable);
        for c in ['用', '。', '「', 'か', 'カ', '한', 'é', 'Ж', 'λ'] {
            assert!(in_stable_table(c), "{c:?} should take the fast path");
        }
        for c in ['\u{0301}', '\u{200B}', 'Ａ', '\u{3099}', 'ﬁ', '\u{11A8}'] {
            assert!(!in_stable_table(c), "{c:?} must not take the fast path");
        }
    }

    #[test]
    fn fast_matches_reference_on_cases() {
        let cases = [
            "",
            "*",
            "__",
            "a__",
            "__a",
            "a__b",
            "a___b",
            "a____b",
            "**x**",
            "***x***",
            "x\u{0301}",
            "\u{0301}x",
            "\u{200B}\u{0301}x",
            "e\u{200B}\u{0301} **b**",
            "e**\u{0301}",
            "a_\u{200B}_b",
            "a_\u{0301}_b",
            "＊＊x＊＊",
            "＿＿x＿＿",
            "가\u{11A8} 用户**决定**",
            "\u{1100}\u{200B}\u{1161}\u{11A8}",
            "か\u{3099} カ\u{200D}\u{3099}",
            "\u{0F73}\u{0F71}\u{0323}a\u{0F73}",
            "ﬁ\u{0301}_x",
            "_\u{FE0F}_",
            "Ｔｈｅ **user** ap\u{200B}proved 「好的」",
            "ｶﾞ ﾊﾟ ｶ\u{200B}ﾞ",
            "a\u{0F72}\u{0F73}",
            "①㍿ＡＢ",
        ];
        for s in cases {
            assert_eq!(normalize(s), reference::normalize(s), "normalize({s:?})");
        }
    }

    /// The fast pass agrees with the reference on real text: every string in
    /// the shared external corpora (prompt injections with invisibles and
    /// homoglyphs, secrets, tool calls), raw and with emphasis and zero-width
    /// characters sprinkled in. Skips, and says so, when they are absent.
    #[test]
    #[allow(clippy::disallowed_methods)] // tests may read the shared corpora; the library never does
    fn fast_matches_reference_on_shared_corpora() {
        let Some(root) = crate::corpora::root() else {
            return;
        };
        let files = [
            "injection/notinject.jsonl",
            "injection/bipia-attacks.jsonl",
            "injection/purplellama-prompt-injection.jsonl",
            "secrets/noseyparker-examples.jsonl",
            "tool-calls/dcg-corpus.jsonl",
        ];
        let (mut strings, mut budget) = (0usize, 600_000usize);
        for f in files {
            let Ok(text) = std::fs::read_to_string(root.join(f)) else {
                crate::corpora::skip(&format!("{} is absent", root.join(f).display()));
                continue;
            };
            for line in text.lines() {
                let Ok(serde_json::Value::Object(obj)) = serde_json::from_str(line) else {
                    continue;
                };
                for s in obj.values().filter_map(serde_json::Value::as_str) {
                    if budget < s.len() {
                        break;
                    }
                    budget -= s.len();
                    strings += 1;
                    let decorated: String = s
                        .char_indices()
                        .flat_map(|(i, c)| {
                            let extra = match i % 7 {
                                0 => Some('\u{200B}'),
                                3 => Some('*'),
                                5 => Some('_'),
                                _ => None,
                            };
                            std::iter::once(c).chain(extra)
                        })
                        .collect();
                    for input in [s, decorated.as_str()] {
                        assert_eq!(
                            normalize(input),
                            reference::normalize(input),
                            "{f}: {input:?}"
                        );
                    }
                }
            }
        }
        println!("compared {strings} corpus strings");
    }

    /// Characters that exercise every branch: ASCII and emphasis markers,
    /// invisibles, combining marks (composing and not), full-width and
    /// compatibility forms, Hangul jamo, kana voicing marks, CJK.
    #[rustfmt::skip]
    const TRICKY: &[char] = &[
        'a', 'b', 'e', 'x', 'Z', '1', ' ', '\n', '.', '*', '*', '_', '_', '\u{200B}',
        '\u{200D}', '\u{00AD}', '\u{FE0F}', '\u{E0041}', '\u{2061}', '\u{034F}',
        '\u{0301}', '\u{0308}', '\u{0323}', '\u{0344}', '\u{0F73}', '\u{0F71}', '\u{0F72}',
        '\u{3099}', '\u{309B}', 'Ａ', 'ｅ', '＊', '＿', 'ﬁ', '用', 'か', 'カ', 'ｶ', 'ﾞ', '①',
        '㍿', '\u{AC00}', '\u{1100}', '\u{1161}', '\u{11A8}', 'é', '\u{2126}', '\u{01C5}',
        '\u{00A8}', '\u{2024}',
    ];

    fn tricky_string(max: usize) -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(TRICKY), 0..max)
            .prop_map(|chars| chars.into_iter().collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn fast_matches_reference_tricky(s in tricky_string(40)) {
            prop_assert_eq!(normalize(&s), reference::normalize(&s));
        }

        #[test]
        fn fast_matches_reference_any(s in ".{0,48}") {
            prop_assert_eq!(normalize(&s), reference::normalize(&s));
        }

        #[test]
        fn fast_idempotent_tricky(s in tricky_string(40)) {
            let once = normalize(&s);
            let twice = normalize(once.as_str());
            prop_assert_eq!(once.as_str(), twice.as_str());
        }

        #[test]
        fn nfkc_fast_matches_is_nfkc(s in tricky_string(24)) {
            prop_assert_eq!(is_nfkc_fast(&s), is_nfkc(&s));
        }
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
