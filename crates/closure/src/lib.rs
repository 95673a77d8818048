//! Closure guard: did a turn retain what it should have?
//!
//! Re-creates the turn-closure-audit seed's retention detection, candidate
//! classification, candidate ledger and promotion dry-run as a pure library.
//!
//! - [`detect`]: which tool calls are successful retention writes or deletions;
//! - [`classify`]: a turn's judgment (`retained` / `candidate` / `routine`)
//!   with reasons and a review candidate built from the user's own words;
//! - [`cues`]: the cue rules behind classification, as data with examples,
//!   in English, Chinese, Spanish, Portuguese, German, French and Japanese;
//!   cue words inside quotations, titles or reported speech are ignored;
//! - [`redact`]: secret masking for previews;
//! - [`schema`]: candidate records, receipts and deterministic ids;
//! - [`ledger`]: the append-only candidate event ledger, folded incrementally;
//! - [`promote`]: promotion dry-run buckets and writes through a caller's writer;
//! - [`distill`]: candidates proposed by a caller's model, parsed and redacted;
//! - [`session`]: hostile-safe session-id → file-name mapping;
//! - [`time`]: timezone-aware timestamps.
//!
//! ```
//! use palisade_closure::classify::{Classifier, JudgmentKind, Turn};
//! let judge = Classifier::new();
//! let j = judge.judge(&Turn::new("记住：以后都用中文回复。", "好的"));
//! assert_eq!(j.kind, JudgmentKind::Candidate);
//! let j = judge.judge(&Turn::new("Ab sofort bitte alle Daten im Format TT.MM.JJJJ.", "Verstanden."));
//! assert_eq!(j.kind, JudgmentKind::Candidate);
//! let j = judge.judge(&Turn::new("Resúmeme el artículo «Nunca más: por qué dejé Excel».", "Claro."));
//! assert_eq!(j.kind, JudgmentKind::Routine);
//! ```
//!
//! # What this crate does not do
//!
//! It reads no files, no environment, no clock and no randomness, and does no
//! network or process I/O. Everything it needs — time, session state, stored
//! text — is passed in by the caller, so every verdict is a deterministic
//! function of its inputs. Files, locking and the `/turn-closure` command
//! belong to the Hermes bindings.
//!
//! # Untrusted input
//!
//! All matching uses the `regex` crate (linear time). Texts are scanned up to
//! [`classify::MAX_SCAN_CHARS`], tool calls up to [`classify::MAX_TOOL_CALLS`],
//! patch text up to [`detect::MAX_PATCH_LINES`] lines. Judging never panics
//! and never errors; only building (custom cue rules, parsing records or
//! events) returns errors.

#![forbid(unsafe_code)]

pub mod classify;
pub mod cues;
pub mod detect;
pub mod distill;
pub mod ledger;
mod literals;
pub mod promote;
pub mod redact;
pub mod schema;
pub mod session;
mod source;
pub mod time;
