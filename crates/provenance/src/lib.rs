//! Provenance guard: does a memory or skill write claim a user decision without the user's own quoted words?
//!
//! Re-creates the provenance-gate seed's detection side as a pure library:
//!
//! | module | what it does |
//! |---|---|
//! | [`detect`] | clause-level claim detection, English and Chinese, with the not-claim rules |
//! | [`said`] | the said-text index: captured user messages, verbatim quote look-ups |
//! | [`gate`] | the evidence rules and the verdict (`provenance-gate:<reason>` rule keys) |
//! | [`replay`](mod@replay) | what a `memory` / `skill_manage` call writes, replayed over the stored text |
//! | [`capture`] | the user's own words from a turn as Hermes built it |
//!
//! ```
//! use palisade_provenance::{check_write, Gate, GateConfig, Reason, SaidIndex, Stored};
//! use serde_json::json;
//!
//! let gate = Gate::new(GateConfig::default());
//! let mut said = SaidIndex::new();
//! said.push("s1", None, "u1", "I decided we ship on Friday");
//!
//! let args = json!({"action": "add", "target": "memory",
//!                   "content": "User decided to ship on Friday (\"I decided we ship on Friday\")"});
//! assert!(check_write(&gate, "memory", &args, &Stored::default(), &said, "s1").is_pass());
//!
//! let args = json!({"action": "add", "target": "memory", "content": "User decided to ship on Friday."});
//! let report = check_write(&gate, "memory", &args, &Stored::default(), &said, "s1");
//! assert_eq!(report.reason, Some(Reason::NoQuote));
//! ```
//!
//! # What this crate does not do
//!
//! It reads no files, no environment, no clock and no randomness, and does no
//! network or process I/O. Everything it needs — time, session state, stored
//! text — is passed in by the caller, so every verdict is a deterministic
//! function of its inputs. Modes (observe/ask/block), storage of captured
//! text and evidence rows belong to the bindings.
//!
//! # Untrusted input
//!
//! All matching is linear time (`regex` lazy DFA with ASCII word boundaries,
//! `aho-corasick` prefilters); look-behind windows are bounded; at most
//! [`detect::MAX_CLAIMS_PER_SENTENCE`] claims per sentence and
//! [`detect::MAX_CANDIDATES`] candidates per text are examined (a text over
//! the bound is refused as `too_many_claims` by the gate); quote look-ups
//! touch only the candidate positions of a quote's rarest unit pair. Scanning
//! never panics and never returns an error: unreadable arguments are a
//! verdict ([`Reason::UnreadableArguments`]).

#![forbid(unsafe_code)]

pub mod capture;
pub mod detect;
pub mod gate;
mod lexicon;
pub mod replay;
pub mod said;

pub use capture::clean_capture;
pub use detect::{Claim, ClaimDetector, Scope};
pub use gate::{Gate, GateConfig, Outcome, PreparedStored, Reason, Report};
pub use lexicon::ClaimClass;
pub use replay::{check_write, check_write_cached, replay, Stored, StoredCache, WriteText};
pub use said::{SaidIndex, SearchScope};
