//! Shared text machinery and the verdict convention of the Palisade guards.
//!
//! Every guard crate builds on this one, and nothing here has side effects:
//!
//! * [`normalize`] — NFKC, Default_Ignorable_Code_Point removal and Markdown
//!   emphasis stripping, with an offset map back to the original bytes;
//! * [`text`] — line, logical-line (hard-wrap) and sentence splitting for
//!   English and Chinese;
//! * [`quotes`] — quoted spans (`"…"`, `“…”`, `'…'`, `「…」`, `『…』`, backticks);
//! * [`quotes_intl`] — guillemets (`«…»`, `‹…›`) and low-high quotes (`„…“`);
//! * [`tokens`] — content tokens (Latin words, CJK bigrams) and stopwords;
//! * [`negation`] — negation cues in English and Chinese, and (with
//!   [`negation::negation_before_in`]) Spanish, Portuguese, German and French;
//! * [`lazy`] — values (compiled rules) built from their source on first use;
//! * [`mask`] — display masking, so no raw secret or small count reaches a preview;
//! * [`verdict`] — modes and their resolution, rule keys, findings, evidence rows;
//! * [`span`] — byte spans into the original input;
//! * [`time`] — RFC 3339 timestamps ordered by instant (no clock: the caller passes "now").
//!
//! # What this crate does not do
//!
//! It reads no files, no environment, no clock and no randomness, and does no
//! network or process I/O. Every function is a deterministic function of its
//! arguments.
//!
//! # Untrusted input
//!
//! All functions here accept arbitrary `&str` input, run in time linear in its
//! length and never panic. Spans they return are sorted, in bounds and on
//! `char` boundaries of the string they were computed on.
//!
//! ```
//! use palisade_common::normalize::normalize;
//!
//! let n = normalize("The **user** de\u{200B}cided");
//! assert_eq!(n.as_str(), "The user decided");
//! let found = n.as_str().find("decided").unwrap();
//! let span = n.original_span(palisade_common::Span::new(found, found + "decided".len()));
//! assert_eq!(&"The **user** de\u{200B}cided"[span.range()], "de\u{200B}cided");
//! ```

#![forbid(unsafe_code)]

pub mod automaton;
#[cfg(test)]
#[path = "../../../tests/support/corpora.rs"]
mod corpora;
pub mod lazy;
pub mod literals;
pub mod mask;
pub mod negation;
pub mod normalize;
pub mod pattern;
pub mod quotes;
pub mod quotes_intl;
pub mod required;
pub mod span;
pub mod text;
pub mod time;
pub mod tokens;
pub mod verdict;

pub use span::Span;
pub use verdict::{EvidenceRow, Finding, GuardFinding, Mode, RuleKey, Severity, Verdict};
