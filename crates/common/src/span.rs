//! Byte spans into a string.

use serde::{Deserialize, Serialize};
use std::ops::Range;

/// A half-open byte range `start..end` into a string.
///
/// Spans returned by Palisade always lie on `char` boundaries of the string
/// they refer to, so `&text[span.range()]` never panics. A span serializes as a
/// two-element JSON array `[start, end]`.
///
/// ```
/// use palisade_common::Span;
/// let text = "key = AKIAABCDEFGHIJKLMNOP";
/// let span = Span::new(6, text.len());
/// assert_eq!(span.slice(text), Some("AKIAABCDEFGHIJKLMNOP"));
/// assert_eq!(span.len(), 20);
/// assert_eq!(serde_json::to_string(&span).unwrap(), "[6,26]");
/// ```
#[derive(
    Clone, Copy, Debug, Default, Eq, PartialEq, Ord, PartialOrd, Hash, Serialize, Deserialize,
)]
#[serde(from = "(usize, usize)", into = "(usize, usize)")]
pub struct Span {
    /// First byte of the span.
    pub start: usize,
    /// One past the last byte of the span.
    pub end: usize,
}

impl Span {
    /// A span from `start` to `end`; if `end < start` the span is empty at `start`.
    ///
    /// ```
    /// use palisade_common::Span;
    /// assert!(Span::new(5, 3).is_empty());
    /// ```
    pub fn new(start: usize, end: usize) -> Self {
        Span {
            start,
            end: end.max(start),
        }
    }

    /// The span as a `Range<usize>`, for slicing.
    ///
    /// ```
    /// use palisade_common::Span;
    /// assert_eq!(&"hello"[Span::new(1, 3).range()], "el");
    /// ```
    pub fn range(self) -> Range<usize> {
        self.start..self.end
    }

    /// Length in bytes.
    ///
    /// ```
    /// use palisade_common::Span;
    /// assert_eq!(Span::new(2, 7).len(), 5);
    /// ```
    pub fn len(self) -> usize {
        self.end - self.start
    }

    /// Whether the span covers no bytes.
    ///
    /// ```
    /// use palisade_common::Span;
    /// assert!(Span::new(4, 4).is_empty());
    /// ```
    pub fn is_empty(self) -> bool {
        self.start == self.end
    }

    /// The text the span covers, or `None` when it is out of bounds or not on
    /// `char` boundaries.
    ///
    /// ```
    /// use palisade_common::Span;
    /// assert_eq!(Span::new(0, 1).slice("é"), None);
    /// assert_eq!(Span::new(0, 2).slice("é"), Some("é"));
    /// ```
    pub fn slice(self, text: &str) -> Option<&str> {
        text.get(self.range())
    }

    /// Whether `other` lies entirely inside `self`.
    ///
    /// ```
    /// use palisade_common::Span;
    /// assert!(Span::new(0, 10).contains(Span::new(2, 5)));
    /// assert!(!Span::new(0, 10).contains(Span::new(8, 12)));
    /// ```
    pub fn contains(self, other: Span) -> bool {
        self.start <= other.start && other.end <= self.end
    }

    /// Whether the two spans share at least one byte.
    ///
    /// ```
    /// use palisade_common::Span;
    /// assert!(Span::new(0, 5).overlaps(Span::new(4, 6)));
    /// assert!(!Span::new(0, 5).overlaps(Span::new(5, 6)));
    /// ```
    pub fn overlaps(self, other: Span) -> bool {
        self.start < other.end && other.start < self.end
    }

    /// The span moved right by `offset` bytes (for spans found in a slice).
    ///
    /// ```
    /// use palisade_common::Span;
    /// assert_eq!(Span::new(1, 2).shift(10), Span::new(11, 12));
    /// ```
    pub fn shift(self, offset: usize) -> Span {
        Span::new(self.start + offset, self.end + offset)
    }
}

impl From<Range<usize>> for Span {
    fn from(r: Range<usize>) -> Self {
        Span::new(r.start, r.end)
    }
}

impl From<(usize, usize)> for Span {
    fn from((start, end): (usize, usize)) -> Self {
        Span::new(start, end)
    }
}

impl From<Span> for (usize, usize) {
    fn from(s: Span) -> Self {
        (s.start, s.end)
    }
}
