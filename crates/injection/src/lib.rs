//! Injection guard: does an inbound message or tool call carry a prompt injection?
//!
//! Re-creates the hermes-guard seed's four layers (invisible characters,
//! instruction phrasing, special tokens and homoglyphs, encoded payloads), its
//! tiers and its tool-call guard as a pure library.
//!
//! # What this crate does not do
//!
//! It reads no files, no environment, no clock and no randomness, and does no
//! network or process I/O. Everything it needs — time, session state, stored
//! text — is passed in by the caller, so every verdict is a deterministic
//! function of its inputs.

#![forbid(unsafe_code)]
