//! Data derived from rule patterns: the prefix-literal gate of a phrase
//! rule and the ASCII twin of any pattern. Shared by the crate and its
//! build script (`build.rs` includes this file), so the built-in rules'
//! derived data is computed once at build time with the same code that
//! computes it for custom rules at run time.

use regex_syntax::hir::literal::{ExtractKind, Extractor};
use regex_syntax::hir::Hir;

/// Longest prefix literal kept as a gate (longer ones are cut to a prefix,
/// which is still a sound gate).
pub(crate) const GATE_LITERAL_MAX: usize = 24;
/// Most prefix literals one rule may be gated by.
pub(crate) const GATE_LITERALS_MAX: usize = 64;
/// Shortest prefix literal worth a gate.
pub(crate) const GATE_LITERAL_MIN: usize = 4;

/// The prefix literals of the parsed pattern `hir` (as compiled, lower
/// case): every match of the pattern starts with one of them (look-arounds
/// such as `\b` are treated as matching everywhere, which only adds
/// candidates). `None` when the set is infinite, too large, or holds a
/// literal too short to help — then the rule is gated by its keywords alone.
///
/// Keywords are chosen by people and can be common words ("for", "next");
/// the prefix literals are derived from the pattern, so a rule whose
/// keyword occurs but none of whose match starts does is skipped without a
/// regex pass over the text.
pub(crate) fn prefix_gate_of(hir: &Hir) -> Option<Vec<String>> {
    let mut ex = Extractor::new();
    ex.kind(ExtractKind::Prefix)
        .limit_total(GATE_LITERALS_MAX * 4)
        .limit_literal_len(GATE_LITERAL_MAX);
    let seq = ex.extract(hir);
    let lits = seq.literals()?;
    if lits.is_empty() || lits.len() > GATE_LITERALS_MAX {
        return None;
    }
    let mut out: Vec<String> = Vec::with_capacity(lits.len());
    for l in lits {
        let mut bytes = l.as_bytes();
        // Cut to a character boundary: a prefix of a prefix still gates.
        let text = loop {
            match std::str::from_utf8(bytes) {
                Ok(t) => break t,
                Err(e) => bytes = &bytes[..e.valid_up_to()],
            }
        };
        if text.len() < GATE_LITERAL_MIN || text.to_lowercase() != text {
            return None;
        }
        if !out.iter().any(|o| o == text) {
            out.push(text.to_owned());
        }
    }
    Some(out)
}

/// The ASCII twin of the parsed pattern `hir`, as a pattern: every class
/// cut to its ASCII part, every literal with a non-ASCII byte made
/// impossible, every Unicode word boundary made an ASCII one, capture
/// groups made plain groups.
///
/// On an all-ASCII haystack the twin matches exactly where the original
/// does, with the same leftmost-first preference: a path through the
/// original that matches ASCII text only ever uses the ASCII members of
/// its classes and literals, and on ASCII text a Unicode word character is
/// an ASCII one. The twin has no Unicode tables, so it compiles in a small
/// fraction of the original's time and size.
pub(crate) fn ascii_twin_of(hir: &Hir) -> String {
    ascii(hir).to_string()
}

/// The ASCII twin of `hir` as a HIR (see [`ascii_twin_of`]): the shared
/// [`palisade_common::pattern::ascii_twin`].
pub(crate) fn ascii(h: &Hir) -> Hir {
    palisade_common::pattern::ascii_twin(h)
}

/// Expand the shorthands phrase-rule patterns may use.
///
/// `{B}` is an ASCII word boundary (fast on any text).
pub(crate) fn expand(pattern: &str) -> String {
    pattern.replace("{B}", r"(?-u:\b)")
}

/// A structural signal's pattern as compiled: case-insensitive unless it
/// starts with `(?-i)`; `\b` is an ASCII word boundary (a Unicode one
/// keeps the regex engine off its fast DFA on non-ASCII text).
#[allow(dead_code)] // the crate's signals are derived by build.rs; tests re-derive them
pub(crate) fn signal_pattern(pattern: &str) -> String {
    let p = pattern.replace("\\b", "(?-u:\\b)");
    if p.starts_with("(?-i)") {
        p
    } else {
        format!("(?i){p}")
    }
}
