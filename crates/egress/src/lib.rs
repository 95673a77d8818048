//! Egress guard: does outgoing text carry a credential, an upload to an
//! unlisted host, a small count or record-level data?
//!
//! Re-creates the egress-guard seed's rules (secrets, network, small cells,
//! microdata) and its policy as a pure library.
//!
//! # What this crate does not do
//!
//! It reads no files, no environment, no clock and no randomness, and does no
//! network or process I/O. Policy files are parsed by the caller into
//! policy types; everything is a deterministic function of its inputs.

#![forbid(unsafe_code)]

pub mod command;
pub mod error;
pub mod guard;
pub mod policy;
pub mod table;

/// The secret catalogue (EG-SECRET-001's rules, scanner and masking), which
/// lives in [`palisade_secrets`] so every guard masks with the same rules.
///
/// ```
/// use palisade_egress::secrets::SecretScanner;
/// assert!(!SecretScanner::builtin().rules().is_empty());
/// ```
pub use palisade_secrets as secrets;

pub use error::{Error, ErrorKind};
