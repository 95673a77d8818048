//! Closure guard: did a turn retain what it should have?
//!
//! Re-creates the turn-closure-audit seed's retention detection, candidate
//! classification, candidate ledger and promotion dry-run as a pure library.
//!
//! # What this crate does not do
//!
//! It reads no files, no environment, no clock and no randomness, and does no
//! network or process I/O. Everything it needs — time, session state, stored
//! text — is passed in by the caller, so every verdict is a deterministic
//! function of its inputs.

#![forbid(unsafe_code)]
