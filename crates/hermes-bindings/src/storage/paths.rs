//! Where each guard's data lives, and filename-safe session ids.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// `$HERMES_HOME/plugin-data/<plugin>/`, where `plugin` is a guard's plugin
/// key (`provenance-gate`, `egress-guard`, `hermes-guard`, `turn-closure-audit`).
///
/// ```
/// use std::path::Path;
/// let d = palisade_hermes::storage::paths::data_dir(Path::new("/h"), "egress-guard");
/// assert_eq!(d, Path::new("/h/plugin-data/egress-guard"));
/// ```
pub fn data_dir(home: &Path, plugin: &str) -> PathBuf {
    home.join("plugin-data").join(plugin)
}

/// The closure trail's folder under `$HERMES_HOME`, as in the
/// turn-closure-audit seed ("What it writes"): `turns.jsonl`, `latest/`,
/// `candidates/events/`. The seed's compatibility surfaces sit beside it:
/// [`CLOSURE_REVIEW_DIR`] and [`CLOSURE_NOTES_DIR`]. The other three guards
/// use [`data_dir`]; the closure plugin keeps the seed's layout so tools
/// written for the seed (its `/turn-closure path`, scope-recall, a human
/// reading `knowledge/review/`) find our files where they find the seed's.
///
/// ```
/// assert_eq!(palisade_hermes::storage::paths::CLOSURE_DIR, "turn.closure.audit");
/// ```
pub const CLOSURE_DIR: &str = "turn.closure.audit";

/// The seed's review-candidate folder under `$HERMES_HOME`
/// (`turn-closure-candidates-<YYYY-MM-DD>.jsonl`).
///
/// ```
/// assert_eq!(palisade_hermes::storage::paths::CLOSURE_REVIEW_DIR, "knowledge/review");
/// ```
pub const CLOSURE_REVIEW_DIR: &str = "knowledge/review";

/// The seed's daily-note folder under `$HERMES_HOME` (`<YYYY-MM-DD>.md`).
///
/// ```
/// assert_eq!(palisade_hermes::storage::paths::CLOSURE_NOTES_DIR, "memory");
/// ```
pub const CLOSURE_NOTES_DIR: &str = "memory";

/// Hex SHA-256 of `bytes`.
///
/// ```
/// assert!(palisade_hermes::storage::paths::sha256_hex(b"").starts_with("e3b0c442"));
/// ```
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// A single path component for a session id that can never leave its folder.
///
/// Characters outside `[A-Za-z0-9_-]` become `_`, the readable part is
/// capped at 48 characters, and a 16-hex-digit SHA-256 of the raw id is
/// appended so distinct ids never collide (`../../x`, `__x` and `..\x` all
/// map to different names). The result is never empty, never `.` or `..`,
/// contains no separator or NUL, and is at most 66 bytes.
///
/// ```
/// use palisade_hermes::storage::paths::safe_component;
/// let c = safe_component("../../etc/passwd");
/// assert!(!c.contains('/') && !c.contains(".."));
/// assert_ne!(safe_component("a/b"), safe_component("a_b"));
/// assert!(safe_component("").starts_with("session--"));
/// ```
pub fn safe_component(id: &str) -> String {
    let mut readable: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(48)
        .collect();
    if readable.trim_matches('_').is_empty() {
        readable = "session".to_owned();
    }
    let hash = sha256_hex(id.as_bytes());
    format!("{readable}--{}", &hash[..16])
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn component_is_one_safe_segment(id in any::<String>()) {
            let c = safe_component(&id);
            prop_assert!(!c.is_empty() && c.len() <= 66);
            prop_assert!(c.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
            let base = Path::new("/base");
            let joined = base.join(&c);
            prop_assert_eq!(joined.parent(), Some(base));
        }
    }

    #[test]
    fn hostile_ids() {
        let long = "x".repeat(100_000);
        for id in [
            "../../x",
            "..",
            ".",
            "a\0b",
            "/abs",
            "C:\\win",
            "用户会话",
            &long,
            "\u{202e}evil",
        ] {
            let c = safe_component(id);
            assert!(c.len() <= 66, "{id:?}");
            assert!(!c.contains(['/', '\\', '\0', '.']), "{id:?} -> {c}");
        }
    }
}
