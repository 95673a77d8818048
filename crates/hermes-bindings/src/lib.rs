//! Hermes bindings for the Palisade guards: the one crate with side effects.
//!
//! It maps Hermes hook calls onto the pure guard crates and owns storage
//! (`$HERMES_HOME/plugin-data/<guard>/`), configuration (environment variables
//! and policy files) and the user commands of the four seeds.

#![forbid(unsafe_code)]
