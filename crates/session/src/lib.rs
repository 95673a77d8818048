//! The Palisade session pipeline: a stream of host events (user message,
//! assistant text, tool call, tool result, reply, session end) in, guard
//! calls, and one finding type ([`palisade_common::GuardFinding`]) out.
//!
//! `palisade scan` (offline, a recorded session) and the Hermes plugin
//! (live, hook by hook) both run it, so the same message gets the same
//! finding offline and live:
//!
//! * [`Egress`] — every egress decision goes through one
//!   [`palisade_egress::guard::EgressGuard`] and its policy
//!   ([`Egress::offline`]: the built-in default; a host passes its
//!   configured policy to [`Egress::new`]), with the same call per event;
//! * [`finding`] — the one place where each guard's result becomes a
//!   finding: guard, kind, rule key, severity, span, masked preview, and a
//!   one-line why;
//! * [`Session`] — the stateful pipeline for a whole session (injection
//!   taint and replay window, the user's words for provenance, turns for
//!   closure);
//! * [`evidence`] — the plugin's evidence rows, built on
//!   [`palisade_common::EvidenceRow`].
//!
//! ```
//! use palisade_session::{Egress, Event, Session};
//!
//! let mut session = Session::new(Egress::offline());
//! let mut found = Vec::new();
//! let args = serde_json::json!({"command": "export KEY=AKIAZ7QPMX3RWB5TLN2K"});
//! session.handle(1, 60_000, Event::User { text: "set the key" }, &mut found);
//! session.handle(2, 120_000, Event::ToolCall { id: "c1", name: "terminal", args: &args }, &mut found);
//! session.handle(3, 180_000, Event::End, &mut found);
//! let secret = found.iter().find(|f| f.finding.kind == "secret").unwrap();
//! assert_eq!(secret.at, 2);
//! assert_eq!(secret.finding.preview, "AKIA…****");
//! assert_eq!(secret.finding.rule.to_string(), "egress-guard:EG-SECRET-001");
//! ```
//!
//! # What this crate does not do
//!
//! Like the guards, it reads no files, no environment, no clock and no
//! randomness: time and positions are the caller's, and so are storage and
//! directives. Every call is total and linear in its input.

#![forbid(unsafe_code)]

pub mod egress;
pub mod evidence;
pub mod finding;
mod pipeline;

pub use egress::{Egress, EgressOutcome};
pub use finding::Found;
pub use pipeline::{Event, Session, MAX_SAID_BYTES, MAX_TURN_CALLS, MAX_TURN_TEXT};
