//! Palisade: guard libraries for AI agents.
//!
//! This facade re-exports the guard crates behind one feature each, so a host
//! can depend on `palisade` and enable only what it embeds. A feature only adds
//! API; it never changes a verdict.
//!
//! | feature | crate | what it decides |
//! |---|---|---|
//! | `secrets` | [`palisade_secrets`] | does a text hold a credential? The one catalogue every guard masks with (also reachable as `egress::secrets`) |
//! | `provenance` | [`palisade_provenance`] | does a memory/skill write claim a user decision without the user's own quoted words? |
//! | `egress` | [`palisade_egress`] | does outgoing text carry a credential, an upload, a small count or record-level data? |
//! | `injection` | [`palisade_injection`] | does an inbound message or tool call carry a prompt injection? |
//! | `closure` | [`palisade_closure`] | did a turn retain what it should have? |
//! | `hermes` | `palisade_hermes` | storage, configuration and the Hermes hook surface (the only part with I/O) |
//!
//! The shared text machinery and the verdict convention are always available as
//! [`common`].
//!
//! ```
//! use palisade::common::verdict::Mode;
//! assert_eq!(Mode::parse("observe"), Some(Mode::Observe));
//! ```

#![forbid(unsafe_code)]

pub use palisade_common as common;

#[cfg(feature = "closure")]
pub use palisade_closure as closure;
#[cfg(feature = "egress")]
pub use palisade_egress as egress;
#[cfg(feature = "hermes")]
pub use palisade_hermes as hermes;
#[cfg(feature = "injection")]
pub use palisade_injection as injection;
#[cfg(feature = "provenance")]
pub use palisade_provenance as provenance;
#[cfg(feature = "secrets")]
pub use palisade_secrets as secrets;
