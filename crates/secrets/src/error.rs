//! The error type for building a rule set.
//!
//! Scanning never fails; only parsing rule files and compiling their
//! patterns can.

use std::fmt;

/// What kind of building step failed.
///
/// ```
/// use palisade_secrets::ErrorKind;
/// assert_ne!(ErrorKind::Pattern, ErrorKind::Rule);
/// ```
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A rule's regular expression did not compile.
    Pattern,
    /// A rule file could not be parsed or a rule is malformed.
    Rule,
}

/// A building error: which step failed and a lowercase message with context.
///
/// ```
/// use palisade_secrets::{parse_rules, ErrorKind};
/// let e = parse_rules("not json").unwrap_err();
/// assert_eq!(e.kind(), ErrorKind::Rule);
/// assert!(e.to_string().starts_with("invalid rule: rule file is not valid"));
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
    /// use palisade_secrets::{Error, ErrorKind};
    /// assert_eq!(Error::new(ErrorKind::Rule, "x").kind(), ErrorKind::Rule);
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
    /// use palisade_secrets::{Error, ErrorKind};
    /// assert_eq!(Error::new(ErrorKind::Pattern, "x").kind(), ErrorKind::Pattern);
    /// ```
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message without the kind prefix.
    ///
    /// ```
    /// use palisade_secrets::{Error, ErrorKind};
    /// assert_eq!(Error::new(ErrorKind::Rule, "bad id").message(), "bad id");
    /// ```
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            ErrorKind::Pattern => "invalid rule pattern",
            ErrorKind::Rule => "invalid rule",
        };
        write!(f, "{what}: {}", self.message)
    }
}

impl std::error::Error for Error {}
