//! Session id → file name, safe for hostile ids.
//!
//! `session_filename(id)`:
//!
//! 1. An empty (or all-whitespace) id becomes `unknown-session`.
//! 2. Every run of characters outside `[A-Za-z0-9._-]` becomes one `_`, then
//!    leading and trailing `.`, `_` and `-` are stripped, so the stem can never
//!    be `.`, `..`, hidden, option-like or contain a separator.
//! 3. An empty stem becomes `session`; a Windows device name (`CON`, `NUL`,
//!    `COM1` …) gets a `session_` prefix; the stem is cut to 80 characters.
//! 4. `--` and the first 16 hex digits of SHA-256 over the raw id's UTF-8
//!    bytes are appended, so distinct ids that sanitize alike (`a/b`, `a_b`)
//!    still get distinct names.
//!
//! The result is a single path component of at most 98 ASCII characters.
//! (The seed used 12 hex digits of SHA-1; this is deliberately not
//! byte-compatible.)

use sha2::{Digest, Sha256};

/// The file stem for a session id (append your own extension).
///
/// ```
/// use palisade_closure::session::session_filename;
/// let name = session_filename("../../outside/probe");
/// assert!(name.starts_with("outside_probe--"));
/// assert!(!name.contains('/') && !name.starts_with('.'));
/// assert_ne!(session_filename("a/b"), session_filename("a_b"));
/// assert!(session_filename("").starts_with("unknown-session--"));
/// assert!(session_filename("中文会话").starts_with("session--"));
/// ```
pub fn session_filename(session_id: &str) -> String {
    let key = if session_id.trim().is_empty() {
        "unknown-session"
    } else {
        session_id
    };
    let mut stem = String::with_capacity(key.len().min(256));
    let mut in_bad = false;
    for c in key.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
            stem.push(c);
            in_bad = false;
        } else if !in_bad {
            stem.push('_');
            in_bad = true;
        }
        if stem.len() > 400 {
            break;
        }
    }
    let mut stem = stem
        .trim_matches(|c| matches!(c, '.' | '_' | '-'))
        .to_owned();
    if stem.is_empty() {
        stem = "session".into();
    }
    let upper = stem.split('.').next().unwrap_or("").to_ascii_uppercase();
    let reserved = matches!(upper.as_str(), "CON" | "PRN" | "AUX" | "NUL")
        || ((upper.starts_with("COM") || upper.starts_with("LPT"))
            && upper.len() == 4
            && upper.as_bytes()[3].is_ascii_digit());
    if reserved {
        stem = format!("session_{stem}");
    }
    stem.truncate(80); // ASCII only, so any byte index is a char boundary
    let stem = stem.trim_end_matches(['.', '_', '-']);
    let digest = Sha256::digest(key.as_bytes());
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("{stem}--{hex}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_ids_stay_one_component() {
        for id in [
            "..",
            ".",
            "/",
            "\\..\\x",
            "a\0b",
            "-rf",
            "CON",
            "con.txt",
            "__x__",
            "a b\tc",
            "...",
            &"x".repeat(500),
        ] {
            let n = session_filename(id);
            assert!(!n.contains(['/', '\\', '\0']), "{id:?} -> {n}");
            assert!(!n.starts_with(['.', '-', '_']), "{id:?} -> {n}");
            assert!(n.len() <= 98, "{id:?}");
            assert!(!n.to_ascii_uppercase().starts_with("CON--"), "{id:?}");
        }
        assert!(session_filename("a b\tc").starts_with("a_b_c--"));
        assert!(session_filename("session:2026/05").starts_with("session_2026_05--"));
    }
}
