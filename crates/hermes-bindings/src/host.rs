//! What the running Hermes supports, so the guards can degrade honestly.
//!
//! Hermes 0.19.0 (the newest on the package index) has no `modify` directive
//! for `pre_tool_call`, swallows a raising callback (the tool then runs: fail
//! open) and puts no timeout on Python hooks. Hermes 0.21 and later add
//! `{"action":"modify","args":{…}}`, turn a raising or timed-out
//! `pre_tool_call` callback into a block, and give every hot-path callback a
//! 30 s budget. A dispatcher asks the [`Host`] before it emits a directive and
//! records in its evidence row when it had to fall back (for example an egress
//! redaction of tool arguments that became `approve` because `modify` is
//! missing).

use serde::{Deserialize, Serialize};

/// The capabilities of the Hermes process a plugin runs in.
///
/// ```
/// use palisade_hermes::Host;
/// let old = Host::hermes_0_19();
/// assert!(!old.supports_modify);
/// assert!(!old.fail_closed_hooks);
/// let new = Host::from_version("0.22.2");
/// assert!(new.supports_modify);
/// assert_eq!(new.hook_timeout_s, Some(30));
/// ```
#[derive(Clone, Debug, Eq, PartialEq, Serialize, Deserialize)]
pub struct Host {
    /// The version string the host reported (`"0.19.0"`), or `"unknown"`.
    pub version: String,
    /// `pre_tool_call` may return `{"action":"modify","args":{…}}`.
    pub supports_modify: bool,
    /// A raising `pre_tool_call` callback blocks the call (0.21+). When false,
    /// an exception lets the tool run, so the shim must catch everything and
    /// return its own block where the guard fails closed.
    pub fail_closed_hooks: bool,
    /// The host's per-callback timeout in seconds, if it has one.
    pub hook_timeout_s: Option<u32>,
}

impl Host {
    /// Hermes 0.19.0: `block` and `approve` only, fail-open on exceptions, no timeout.
    ///
    /// ```
    /// assert_eq!(palisade_hermes::Host::hermes_0_19().version, "0.19.0");
    /// ```
    pub fn hermes_0_19() -> Host {
        Host {
            version: "0.19.0".to_owned(),
            supports_modify: false,
            fail_closed_hooks: false,
            hook_timeout_s: None,
        }
    }

    /// Hermes 0.21 and later: `modify`, fail-closed `pre_tool_call`, 30 s timeout.
    ///
    /// ```
    /// assert!(palisade_hermes::Host::hermes_0_21().fail_closed_hooks);
    /// ```
    pub fn hermes_0_21() -> Host {
        Host {
            version: "0.21.0".to_owned(),
            supports_modify: true,
            fail_closed_hooks: true,
            hook_timeout_s: Some(30),
        }
    }

    /// Capabilities for a version string such as `"0.19.0"` or `"v0.21.5"`.
    ///
    /// Anything unparseable is treated as the oldest supported host (0.19.0
    /// semantics): assuming less than the host can do only costs a fallback,
    /// assuming more would emit directives the host silently ignores.
    ///
    /// ```
    /// use palisade_hermes::Host;
    /// assert!(!Host::from_version("garbage").supports_modify);
    /// assert!(Host::from_version("v0.21.5").supports_modify);
    /// assert!(Host::from_version("1.0").supports_modify);
    /// ```
    pub fn from_version(version: &str) -> Host {
        let trimmed = version.trim().trim_start_matches(['v', 'V']);
        let mut parts = trimmed.split(|c: char| !c.is_ascii_digit());
        let major = parts.next().and_then(|p| p.parse::<u32>().ok());
        let minor = parts
            .next()
            .and_then(|p| p.parse::<u32>().ok())
            .unwrap_or(0);
        let mut host = match major {
            Some(major) if major > 0 || minor >= 21 => Host::hermes_0_21(),
            _ => Host::hermes_0_19(),
        };
        host.version = if major.is_some() {
            trimmed.to_owned()
        } else {
            "unknown".to_owned()
        };
        host
    }
}

impl Default for Host {
    /// The 0.19.0 semantics (see [`Host::from_version`] for why).
    fn default() -> Self {
        Host::hermes_0_19()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        for (v, modify) in [
            ("0.19.0", false),
            ("0.20.9", false),
            ("0.21.0", true),
            ("0.22.2", true),
            ("", false),
            ("x.y", false),
            ("2", true),
        ] {
            assert_eq!(Host::from_version(v).supports_modify, modify, "{v}");
        }
    }
}
