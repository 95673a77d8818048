//! Masking values for display.
//!
//! Every preview a guard emits goes through here, so no raw secret and no raw
//! small count ever reaches a finding, a message or an audit row.

/// The marker put after a kept prefix.
pub const ELLIPSIS: &str = "…";

/// Mask a secret for display: a short recognisable prefix, then `…****`.
///
/// At most four characters are kept, and only when the value is long enough
/// (≥ 16 chars) that four characters reveal little; shorter values are fully
/// masked. The prefix is what identifies the kind of credential (`AKIA`,
/// `ghp_`, `sk-a`), never enough to use it.
///
/// ```
/// use palisade_common::mask::mask_secret;
/// assert_eq!(mask_secret("AKIAIOSFODNN7EXAMPLE"), "AKIA…****");
/// assert_eq!(mask_secret("hunter2"), "****");
/// assert_eq!(mask_secret(""), "****");
/// ```
pub fn mask_secret(value: &str) -> String {
    mask_secret_keep(value, 4)
}

/// Like [`mask_secret`] with a caller-chosen prefix length, capped at 8
/// characters and at a quarter of the value.
///
/// ```
/// use palisade_common::mask::mask_secret_keep;
/// assert_eq!(mask_secret_keep("ghp_abcdefghijklmnopqrstuvwxyz0123456789", 6), "ghp_ab…****");
/// assert_eq!(mask_secret_keep("short-secret-value", 8), "shor…****");
/// ```
pub fn mask_secret_keep(value: &str, keep: usize) -> String {
    let chars = value.chars().count();
    if chars < 16 {
        return "****".to_owned();
    }
    let keep = keep.min(8).min(chars / 4);
    let prefix: String = value.chars().take(keep).collect();
    format!("{prefix}{ELLIPSIS}****")
}

/// Mask a count below a disclosure threshold: `<threshold`.
///
/// ```
/// use palisade_common::mask::mask_count;
/// assert_eq!(mask_count(5), "<5");
/// ```
pub fn mask_count(threshold: u64) -> String {
    format!("<{threshold}")
}

/// Shorten `text` to at most `max` characters for a one-line preview,
/// replacing line breaks with spaces and ending in `…` when cut.
///
/// This does not mask anything: mask secrets first.
///
/// ```
/// use palisade_common::mask::preview_line;
/// assert_eq!(preview_line("curl -T x\nhttps://a", 100), "curl -T x https://a");
/// assert_eq!(preview_line("abcdef", 4), "abc…");
/// ```
pub fn preview_line(text: &str, max: usize) -> String {
    let flat: String = text
        .chars()
        .map(|c| {
            if c == '\n' || c == '\r' || c == '\t' {
                ' '
            } else {
                c
            }
        })
        .collect();
    if flat.chars().count() <= max {
        return flat;
    }
    let mut out: String = flat.chars().take(max.saturating_sub(1)).collect();
    out.push_str(ELLIPSIS);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn mask_never_reveals_more_than_a_quarter(s in ".{0,80}") {
            let m = mask_secret(&s);
            let shown = m.trim_end_matches("****").trim_end_matches(ELLIPSIS);
            prop_assert!(shown.chars().count() * 4 <= s.chars().count().max(1));
            prop_assert!(s.starts_with(shown));
        }

        #[test]
        fn preview_is_bounded(s in ".{0,200}", max in 1usize..100) {
            let p = preview_line(&s, max);
            prop_assert!(p.chars().count() <= max);
            prop_assert!(!p.contains('\n'));
        }
    }
}
