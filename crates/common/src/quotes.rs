//! Quoted spans: `"…"`, `“…”`, `'…'` (two or more words), `「…」`, `『…』` and
//! backticks.
//!
//! Rules:
//!
//! * a straight `"` right after a digit does not open a quote — it is an inch
//!   mark (`27" wide`);
//! * a `'` opens only at the start of a word (not in `don't`), closes only at
//!   the end of one, and the quote needs at least two words;
//! * a quote does not run across a blank line; an unclosed opener is not a
//!   quote;
//! * triple-backtick fences are not inline quotes.
//!
//! ```
//! use palisade_common::quotes::quoted_spans;
//! let text = r#"User decided to ship on Friday ("I decided we ship on Friday")."#;
//! let q = quoted_spans(text);
//! assert_eq!(q.len(), 1);
//! assert_eq!(&text[q[0].inner.range()], "I decided we ship on Friday");
//! assert!(quoted_spans(r#"27" wide and 6" long"#).is_empty());
//! ```

use crate::span::Span;

/// Which marks delimit a quote.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub enum QuoteKind {
    /// `"…"`
    Straight,
    /// `“…”`
    Curly,
    /// `'…'` or `‘…’`
    Single,
    /// `「…」`
    Corner,
    /// `『…』`
    WhiteCorner,
    /// `` `…` ``
    Backtick,
}

impl QuoteKind {
    /// Whether this kind counts as evidence for a provenance claim (backticks
    /// mark code, not the user's words).
    ///
    /// ```
    /// use palisade_common::quotes::QuoteKind;
    /// assert!(QuoteKind::Corner.is_speech());
    /// assert!(!QuoteKind::Backtick.is_speech());
    /// ```
    pub fn is_speech(self) -> bool {
        !matches!(self, QuoteKind::Backtick)
    }
}

/// One quoted span.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub struct Quoted {
    /// The span including the quote marks.
    pub outer: Span,
    /// The span of the quoted words, without the marks.
    pub inner: Span,
    /// Which marks.
    pub kind: QuoteKind,
}

/// All quoted spans of `text`, sorted by start, non-overlapping (the outermost
/// quote wins; quotes nested inside another are not reported separately).
///
/// ```
/// use palisade_common::quotes::{quoted_spans, QuoteKind};
/// let text = "用户说「以后不要自动提交」, and ‘ship it now’ but don't 'x'";
/// let q = quoted_spans(text);
/// let kinds: Vec<_> = q.iter().map(|q| q.kind).collect();
/// assert_eq!(kinds, vec![QuoteKind::Corner, QuoteKind::Single]);
/// ```
pub fn quoted_spans(text: &str) -> Vec<Quoted> {
    scan(Lookahead::new(text))
}

fn scan(mut next: Lookahead<'_>) -> Vec<Quoted> {
    let text = next.text;
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        // Only opening marks matter here; skip everything else a byte at a
        // time (a byte in `MAY_OPEN` is ASCII or a lead byte, so `i` is then
        // on a char boundary).
        if !MAY_OPEN[usize::from(bytes[i])] && !next.every_char() {
            i += 1;
            continue;
        }
        let Some(c) = text[i..].chars().next() else {
            break;
        };
        let len = c.len_utf8();
        let from = i + len;
        let found = match c {
            '"' if !prev_is_digit(text, i) => next.close(Mark::Straight, from),
            '“' => next.close(Mark::Curly, from),
            '「' => next.close(Mark::Corner, from),
            '『' => next.close(Mark::WhiteCorner, from),
            '‘' => next.close_single(Mark::CurlySingle, from),
            '\'' if !prev_is_word(text, i) => next.close_single(Mark::Single, from),
            '`' => {
                if bytes[i..].starts_with(b"```") {
                    // Fences are block syntax: skip the whole marker run.
                    i += bytes[i..].iter().take_while(|&&b| b == b'`').count();
                    continue;
                }
                next.close(Mark::Backtick, from)
            }
            _ => None,
        };
        match found {
            Some((inner_end, close_len, kind)) => {
                let outer = Span::new(i, inner_end + close_len);
                out.push(Quoted {
                    outer,
                    inner: Span::new(from, inner_end),
                    kind,
                });
                i = outer.end;
            }
            None => i = from,
        }
    }
    out
}

/// Bytes that may start an opening mark: `"`, `'`, `` ` `` and the UTF-8
/// lead bytes of `“ ‘` (0xE2) and `「 『` (0xE3).
const MAY_OPEN: [bool; 256] = {
    let mut table = [false; 256];
    let bytes = b"\"'`\xE2\xE3";
    let mut k = 0;
    while k < bytes.len() {
        table[bytes[k] as usize] = true;
        k += 1;
    }
    table
};

/// Closing marks, each searched for with its own forward-only cursor.
#[derive(Clone, Copy)]
enum Mark {
    Straight,
    Curly,
    Corner,
    WhiteCorner,
    Backtick,
    Single,
    CurlySingle,
}

impl Mark {
    fn close(self) -> char {
        match self {
            Mark::Straight => '"',
            Mark::Curly => '”',
            Mark::Corner => '」',
            Mark::WhiteCorner => '』',
            Mark::Backtick => '`',
            Mark::Single => '\'',
            Mark::CurlySingle => '’',
        }
    }

    fn kind(self) -> QuoteKind {
        match self {
            Mark::Straight => QuoteKind::Straight,
            Mark::Curly => QuoteKind::Curly,
            Mark::Corner => QuoteKind::Corner,
            Mark::WhiteCorner => QuoteKind::WhiteCorner,
            Mark::Backtick => QuoteKind::Backtick,
            Mark::Single | Mark::CurlySingle => QuoteKind::Single,
        }
    }
}

/// Forward-only searches for closing marks, newlines and blank lines.
///
/// Openers are visited left to right, so every "next X at or after `from`"
/// query has a non-decreasing `from`; caching the last answer per target makes
/// the whole scan linear even when no opener is ever closed.
struct Lookahead<'t> {
    text: &'t str,
    /// Cached next position per mark (index = `Mark as usize`), or `None` when
    /// not searched yet. `Some(len)` means "none left".
    marks: [Option<usize>; 7],
    newline: Option<usize>,
    blank: Option<usize>,
    whitespace: Option<usize>,
    /// Count the words of each single-quote candidate (the old, quadratic
    /// check) and visit every character, as the oracle for tests.
    #[cfg(test)]
    count_words: bool,
}

impl<'t> Lookahead<'t> {
    fn new(text: &'t str) -> Self {
        Lookahead {
            text,
            marks: [None; 7],
            newline: None,
            blank: None,
            whitespace: None,
            #[cfg(test)]
            count_words: false,
        }
    }

    /// Whether the scan must look at every character (the test oracle does;
    /// the real scan skips bytes that cannot open a quote).
    fn every_char(&self) -> bool {
        #[cfg(test)]
        if self.count_words {
            return true;
        }
        false
    }

    /// Next position `>= from` satisfying `hit`, reusing `cache` when valid.
    fn next_where(
        text: &str,
        cache: &mut Option<usize>,
        from: usize,
        hit: impl Fn(&str, usize, char) -> bool,
    ) -> usize {
        if let Some(at) = *cache {
            if at >= from {
                return at;
            }
        }
        let found = text[from..]
            .char_indices()
            .find(|&(j, c)| hit(text, from + j, c))
            .map_or(text.len(), |(j, _)| from + j);
        *cache = Some(found);
        found
    }

    fn next_newline(&mut self, from: usize) -> usize {
        Self::next_where(self.text, &mut self.newline, from, |_, _, c| c == '\n')
    }

    /// Next newline that is followed by a blank line.
    fn next_blank(&mut self, from: usize) -> usize {
        Self::next_where(self.text, &mut self.blank, from, |t, at, c| {
            c == '\n'
                && t[at + 1..]
                    .trim_start_matches([' ', '\t', '\r'])
                    .starts_with('\n')
        })
    }

    /// The closing mark for a quote whose content starts at `from`:
    /// (inner end, closing mark length, kind).
    fn close(&mut self, mark: Mark, from: usize) -> Option<(usize, usize, QuoteKind)> {
        let close = mark.close();
        let at = Self::next_where(
            self.text,
            &mut self.marks[mark as usize],
            from,
            |_, _, c| c == close,
        );
        if at == self.text.len() || at == from {
            return None; // unclosed, or an empty quote
        }
        let limit = match mark {
            Mark::Backtick => self.next_newline(from),
            _ => self.next_blank(from),
        };
        (at < limit).then_some((at, close.len_utf8(), mark.kind()))
    }

    /// A single-quoted span: needs a word right after the opener, a closing
    /// mark at the end of a word, and two or more words inside.
    fn close_single(&mut self, mark: Mark, from: usize) -> Option<(usize, usize, QuoteKind)> {
        if !self.text[from..]
            .chars()
            .next()
            .is_some_and(char::is_alphanumeric)
        {
            return None;
        }
        let close = mark.close();
        let at = Self::next_where(
            self.text,
            &mut self.marks[mark as usize],
            from,
            |t, at, c| {
                c == close
                    && t[..at]
                        .chars()
                        .next_back()
                        .is_some_and(|b| !b.is_whitespace())
                    && t[at + c.len_utf8()..]
                        .chars()
                        .next()
                        .is_none_or(|a| !a.is_alphanumeric())
            },
        );
        if at == self.text.len() || at <= from || at >= self.next_blank(from) {
            return None;
        }
        #[cfg(test)]
        if self.count_words {
            let inner = &self.text[from..at];
            return (inner.split_whitespace().nth(1).is_some()).then_some((
                at,
                close.len_utf8(),
                QuoteKind::Single,
            ));
        }
        // Two or more words: the inner text starts with a word character and
        // the closer follows a non-whitespace one, so there is a second word
        // exactly when some whitespace lies in between. The search only moves
        // forward (`from` never decreases), which keeps the scan linear where
        // counting the words of each candidate was quadratic.
        let gap = Self::next_where(self.text, &mut self.whitespace, from, |_, _, c| {
            c.is_whitespace()
        });
        (gap < at).then_some((at, close.len_utf8(), QuoteKind::Single))
    }
}

fn prev_is_digit(text: &str, i: usize) -> bool {
    text[..i]
        .chars()
        .next_back()
        .is_some_and(|c| c.is_ascii_digit())
}

fn prev_is_word(text: &str, i: usize) -> bool {
    text[..i]
        .chars()
        .next_back()
        .is_some_and(char::is_alphanumeric)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn inners(text: &str) -> Vec<&str> {
        quoted_spans(text)
            .iter()
            .map(|q| &text[q.inner.range()])
            .collect()
    }

    #[test]
    fn cases() {
        let cases: &[(&str, &str, &[&str])] = &[
            ("straight", r#"He said "ship it" today"#, &["ship it"]),
            ("curly", "He said “ship it” today", &["ship it"]),
            ("single two words", "He said 'ship it' today", &["ship it"]),
            (
                "single one word is not a quote",
                "He said 'ship' today",
                &[],
            ),
            ("apostrophes", "don't and won't ship", &[]),
            ("curly single", "he said ‘ship it now’.", &["ship it now"]),
            (
                "corner",
                "用户说「以后不要自动提交」。",
                &["以后不要自动提交"],
            ),
            ("white corner", "用户说『好的』", &["好的"]),
            (
                "backtick",
                "run `cargo test --workspace` now",
                &["cargo test --workspace"],
            ),
            ("fence is not inline", "```\ncode\n```", &[]),
            (
                "inch marks",
                r#"27" wide. The user approved it. 6" long"#,
                &[],
            ),
            (
                "closing after digit ok",
                r#"say "ship at 5" ok"#,
                &["ship at 5"],
            ),
            ("unclosed", r#"he said "ship it"#, &[]),
            ("blank line stops", "he said \"ship\n\nit\" x", &[]),
            (
                "wrapped quote",
                "he said \"ship\n it now\" x",
                &["ship\n it now"],
            ),
            ("empty", r#"a "" b"#, &[]),
            (
                "two quotes",
                r#""one two" and "three four""#,
                &["one two", "three four"],
            ),
        ];
        for (name, text, want) in cases {
            assert_eq!(inners(text), *want, "case {name}");
        }
    }

    #[test]
    fn many_one_word_single_quotes_stay_linear() {
        // Every `'` opens a candidate that reaches the same far closer and
        // holds one word; counting the words of each was quadratic.
        let text = "-'a".repeat(200_000) + "' ";
        assert!(quoted_spans(&text).is_empty());
        let text = "-'a".repeat(1000) + " b' ";
        assert_eq!(quoted_spans(&text).len(), 1);
    }

    proptest! {
        #[test]
        fn spans_sorted_in_bounds(s in ".{0,80}") {
            let q = quoted_spans(&s);
            let mut last = 0;
            for quote in &q {
                prop_assert!(quote.outer.start >= last);
                prop_assert!(quote.outer.contains(quote.inner));
                prop_assert!(s.get(quote.outer.range()).is_some());
                prop_assert!(s.get(quote.inner.range()).is_some());
                last = quote.outer.end;
            }
        }

        #[test]
        fn quotish_never_panics(s in "[a-z \"'`“”‘’「」『』\n0-9]{0,60}") {
            let _ = quoted_spans(&s);
        }

        #[test]
        fn same_as_counting_words(s in "[a-z \"'`‘’“”「」『』\n0-9,.-]{0,60}|.{0,40}") {
            let mut naive = Lookahead::new(&s);
            naive.count_words = true;
            prop_assert_eq!(quoted_spans(&s), scan(naive));
        }
    }
}
