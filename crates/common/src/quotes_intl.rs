//! Quotation marks of European typography that [`crate::quotes`] does not
//! read: guillemets `«…»` and `‹…›` (French, Spanish, Portuguese, Swiss
//! German) and low-high quotes `„…“` / `„…”` and `‚…‘` (German, Polish).
//!
//! Rules, as in [`crate::quotes`]: an unclosed opener is not a quote, a quote
//! does not run across a blank line, the outermost quote wins (a nested
//! `«…«…»…»` is one span). The scan is one pass, linear in the input.
//!
//! ```
//! use palisade_common::quotes_intl::intl_quoted_spans;
//! let text = "Il m'a écrit « désormais ne m'appelle plus » hier.";
//! let q = intl_quoted_spans(text);
//! assert_eq!(q.len(), 1);
//! assert_eq!(&text[q[0].inner.range()], " désormais ne m'appelle plus ");
//! assert!(intl_quoted_spans("« jamais fermé").is_empty());
//! ```

use crate::span::Span;

/// Which marks delimit an international quote.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
#[non_exhaustive]
pub enum IntlQuoteKind {
    /// `«…»`
    Guillemet,
    /// `‹…›`
    SingleGuillemet,
    /// `„…“` or `„…”`
    LowHigh,
    /// `‚…‘` or `‚…’`
    SingleLowHigh,
}

/// One quoted span.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub struct IntlQuoted {
    /// The span including the quote marks.
    pub outer: Span,
    /// The span of the quoted words, without the marks.
    pub inner: Span,
    /// Which marks.
    pub kind: IntlQuoteKind,
}

impl IntlQuoteKind {
    fn opener(c: char) -> Option<IntlQuoteKind> {
        Some(match c {
            '«' => IntlQuoteKind::Guillemet,
            '‹' => IntlQuoteKind::SingleGuillemet,
            '„' => IntlQuoteKind::LowHigh,
            '‚' => IntlQuoteKind::SingleLowHigh,
            _ => return None,
        })
    }

    fn closes(self, c: char) -> bool {
        match self {
            IntlQuoteKind::Guillemet => c == '»',
            IntlQuoteKind::SingleGuillemet => c == '›',
            IntlQuoteKind::LowHigh => c == '“' || c == '”',
            IntlQuoteKind::SingleLowHigh => c == '‘' || c == '’',
        }
    }
}

/// All guillemet and low-high quoted spans of `text`, sorted by start and
/// non-overlapping.
///
/// ```
/// use palisade_common::quotes_intl::{intl_quoted_spans, IntlQuoteKind};
/// let text = "Er sagte „ab sofort immer Tabellen“ und «nunca más».";
/// let kinds: Vec<_> = intl_quoted_spans(text).iter().map(|q| q.kind).collect();
/// assert_eq!(kinds, vec![IntlQuoteKind::LowHigh, IntlQuoteKind::Guillemet]);
/// ```
pub fn intl_quoted_spans(text: &str) -> Vec<IntlQuoted> {
    let mut out = Vec::new();
    // The open quote: its kind, where its opener starts, where its words
    // start, and how many same-kind openers are nested inside it.
    let mut open: Option<(IntlQuoteKind, usize, usize, usize)> = None;
    let mut newline_run = 0usize;
    for (i, c) in text.char_indices() {
        if c == '\n' {
            newline_run += 1;
            if newline_run >= 2 {
                open = None;
            }
            continue;
        }
        if !c.is_whitespace() {
            newline_run = 0;
        }
        match open {
            None => {
                if let Some(kind) = IntlQuoteKind::opener(c) {
                    open = Some((kind, i, i + c.len_utf8(), 0));
                }
            }
            Some((kind, start, inner, depth)) => {
                if IntlQuoteKind::opener(c) == Some(kind) && kind != IntlQuoteKind::LowHigh {
                    open = Some((kind, start, inner, depth + 1));
                } else if kind.closes(c) {
                    if depth > 0 {
                        open = Some((kind, start, inner, depth - 1));
                    } else {
                        out.push(IntlQuoted {
                            outer: Span::new(start, i + c.len_utf8()),
                            inner: Span::new(inner, i),
                            kind,
                        });
                        open = None;
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn inner(text: &str) -> Vec<&str> {
        intl_quoted_spans(text)
            .iter()
            .map(|q| &text[q.inner.range()])
            .collect()
    }

    #[test]
    fn table() {
        let cases: &[(&str, &[&str])] = &[
            ("«a» et «b»", &["a", "b"]),
            ("« avec espaces »", &[" avec espaces "]),
            ("„deutsch“ und „auch so”", &["deutsch", "auch so"]),
            ("‹un› ‚zwei‘", &["un", "zwei"]),
            ("«outer «inner» still» end", &["outer «inner» still"]),
            ("«unclosed", &[]),
            ("«across\n\nblank» no", &[]),
            ("«one\nline break» ok", &["one\nline break"]),
            ("» stray closer «", &[]),
            ("plain \"ascii\" is not ours", &[]),
        ];
        for (text, want) in cases {
            assert_eq!(inner(text), *want, "{text:?}");
        }
    }

    proptest! {
        #[test]
        fn spans_sorted_in_bounds_on_boundaries(s in "[a-z «»„“‹›‚‘\n]{0,64}") {
            let q = intl_quoted_spans(&s);
            let mut last = 0;
            for x in &q {
                prop_assert!(x.outer.start >= last);
                prop_assert!(x.outer.start < x.inner.start && x.inner.end < x.outer.end);
                prop_assert!(x.outer.end <= s.len());
                prop_assert!(s.is_char_boundary(x.inner.start) && s.is_char_boundary(x.inner.end));
                last = x.outer.end;
            }
        }
    }
}
