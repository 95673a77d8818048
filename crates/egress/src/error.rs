//! The error type for building a policy.
//!
//! Scanning never fails; only turning configuration into a validated policy
//! can. (Secret rules are built by `palisade-secrets`, with its own error.)

use std::fmt;

/// What kind of building step failed.
///
/// ```
/// use palisade_egress::{Error, ErrorKind};
/// assert_eq!(Error::new(ErrorKind::Policy, "x").kind(), ErrorKind::Policy);
/// ```
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A policy is invalid (unknown preset, bad mode, bad regex, …).
    Policy,
}

/// A building error: which step failed and a lowercase message with context.
///
/// ```
/// use palisade_egress::{Error, ErrorKind};
/// let e = Error::new(ErrorKind::Policy, "unknown preset `prod`");
/// assert_eq!(e.kind(), ErrorKind::Policy);
/// assert_eq!(e.to_string(), "invalid policy: unknown preset `prod`");
/// ```
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

impl Error {
    /// An error of `kind` with a message (lowercase, with context).
    ///
    /// ```
    /// use palisade_egress::{Error, ErrorKind};
    /// assert_eq!(Error::new(ErrorKind::Policy, "x").kind(), ErrorKind::Policy);
    /// ```
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
        }
    }

    /// Which step failed.
    ///
    /// ```
    /// use palisade_egress::{Error, ErrorKind};
    /// assert_eq!(Error::new(ErrorKind::Policy, "x").kind(), ErrorKind::Policy);
    /// ```
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message without the kind prefix.
    ///
    /// ```
    /// use palisade_egress::{Error, ErrorKind};
    /// assert_eq!(Error::new(ErrorKind::Policy, "bad mode").message(), "bad mode");
    /// ```
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            ErrorKind::Policy => "invalid policy",
        };
        write!(f, "{what}: {}", self.message)
    }
}

impl std::error::Error for Error {}
