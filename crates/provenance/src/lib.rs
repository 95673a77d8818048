//! Provenance guard: does a memory or skill write claim a user decision without the user's own quoted words?
//!
//! Re-creates the provenance-gate seed's detection side (claim detection,
//! quote evidence, write replay, capture cleaning) as a pure library.
//!
//! # What this crate does not do
//!
//! It reads no files, no environment, no clock and no randomness, and does no
//! network or process I/O. Everything it needs — time, session state, stored
//! text — is passed in by the caller, so every verdict is a deterministic
//! function of its inputs.

#![forbid(unsafe_code)]

pub mod detect;
mod lexicon;

pub use detect::{Claim, ClaimDetector, Scope};
pub use lexicon::ClaimClass;
pub mod gate;
pub mod said;

pub use gate::{Gate, GateConfig, Outcome, Reason, Report};
pub use said::{SaidIndex, SearchScope};
pub mod capture;
pub mod replay;

pub use capture::clean_capture;
pub use replay::{check_write, replay, Stored, WriteText};
