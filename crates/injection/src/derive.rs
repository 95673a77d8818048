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

/// Whether `h` has no choice in it: its matches are made one way only
/// (literals, classes, look-arounds and concatenations of them).
#[allow(dead_code)] // build.rs splits the built-in signals; tests re-derive them
fn choice_free(h: &Hir) -> bool {
    use regex_syntax::hir::HirKind;
    match h.kind() {
        HirKind::Empty | HirKind::Literal(_) | HirKind::Class(_) | HirKind::Look(_) => true,
        HirKind::Concat(subs) => subs.iter().all(choice_free),
        _ => false,
    }
}

/// `h` with every capture group made a plain group (a branch is searched
/// for its whole match only, and alone it may not hold group 1).
#[allow(dead_code)] // build.rs splits the built-in signals; tests re-derive them
fn uncaptured(h: &Hir) -> Hir {
    use regex_syntax::hir::{HirKind, Repetition};
    match h.kind() {
        HirKind::Capture(c) => uncaptured(&c.sub),
        HirKind::Repetition(r) => Hir::repetition(Repetition {
            sub: Box::new(uncaptured(&r.sub)),
            ..r.clone()
        }),
        HirKind::Concat(subs) => Hir::concat(subs.iter().map(uncaptured).collect()),
        HirKind::Alternation(subs) => Hir::alternation(subs.iter().map(uncaptured).collect()),
        _ => h.clone(),
    }
}

/// The branches of the parsed pattern `hir`, in order, with the gate of
/// each: groups of literals ([`requirements`]) a text must hold one of
/// each of (ASCII case ignored) for the branch to match in it (none: the
/// branch can match any text).
///
/// The pattern is `X (A1 | A2 | …) Y` read as `X A1 Y | X A2 Y | …`,
/// where `X` has no choice in it ([`choice_free`]; often empty or a
/// word boundary): that is the same regex with the same leftmost-first
/// preference, since every path through `A1` comes before every path
/// through `A2` either way. A pattern without such an alternation, or one
/// with a branch that matches the empty string, is one branch, itself.
///
/// A branch with a group none of whose literals occur in a text matches
/// nowhere in it, and leaving it out of the alternation changes no match
/// (a path that never completes never takes precedence), so a text needs
/// only its possible branches compiled.
#[allow(dead_code)] // build.rs splits the built-in signals; tests re-derive them
pub(crate) fn branches_of(hir: &Hir) -> Vec<(Hir, Vec<Vec<Vec<u8>>>)> {
    use regex_syntax::hir::HirKind;
    let whole = || vec![(hir.clone(), requirements(hir))];
    let split: Vec<Hir> = match hir.kind() {
        HirKind::Alternation(subs) => subs.iter().map(uncaptured).collect(),
        HirKind::Concat(subs) => {
            let Some(at) = subs
                .iter()
                .position(|s| !choice_free(s))
                .filter(|&i| matches!(subs[i].kind(), HirKind::Alternation(_)))
            else {
                return whole();
            };
            let HirKind::Alternation(alts) = subs[at].kind() else {
                return whole();
            };
            alts.iter()
                .map(|a| {
                    let mut parts: Vec<Hir> = subs[..at].to_vec();
                    parts.push(a.clone());
                    parts.extend(subs[at + 1..].iter().cloned());
                    uncaptured(&Hir::concat(parts))
                })
                .collect()
        }
        _ => return whole(),
    };
    // A branch that matches nothing (a non-ASCII literal in an ASCII
    // twin) is left out: it changes no match.
    let split: Vec<Hir> = split.into_iter().filter(|b| !matches_nothing(b)).collect();
    if split.len() < 2 || split.iter().any(may_match_empty) {
        return whole();
    }
    split
        .into_iter()
        .map(|b| {
            let gate = requirements(&b);
            (b, gate)
        })
        .collect()
}

/// Whether `h` matches no text at all (an empty class on every path).
/// Not `minimum_len() == None`: one impossible alternative poisons that.
#[allow(dead_code)] // build.rs splits the built-in signals; tests re-derive them
fn matches_nothing(h: &Hir) -> bool {
    use regex_syntax::hir::{Class, HirKind};
    match h.kind() {
        HirKind::Class(Class::Unicode(c)) => c.ranges().is_empty(),
        HirKind::Class(Class::Bytes(c)) => c.ranges().is_empty(),
        HirKind::Empty | HirKind::Literal(_) | HirKind::Look(_) => false,
        HirKind::Capture(c) => matches_nothing(&c.sub),
        HirKind::Repetition(r) => r.min > 0 && matches_nothing(&r.sub),
        HirKind::Concat(subs) => subs.iter().any(matches_nothing),
        HirKind::Alternation(subs) => subs.iter().all(matches_nothing),
    }
}

/// Whether `h` may match the empty string (over-approximated: a
/// look-around is taken to hold).
#[allow(dead_code)] // build.rs splits the built-in signals; tests re-derive them
fn may_match_empty(h: &Hir) -> bool {
    use regex_syntax::hir::HirKind;
    match h.kind() {
        HirKind::Empty | HirKind::Look(_) => true,
        HirKind::Literal(l) => l.0.is_empty(),
        HirKind::Class(_) => false,
        HirKind::Capture(c) => may_match_empty(&c.sub),
        HirKind::Repetition(r) => r.min == 0 || may_match_empty(&r.sub),
        HirKind::Concat(subs) => subs.iter().all(may_match_empty),
        HirKind::Alternation(subs) => subs.iter().any(may_match_empty),
    }
}

/// Groups of literals a text must hold one of each of for a pattern to
/// match somewhere in it: the shared derivation, the same one the packed
/// pattern tables store with every pattern.
#[allow(unused_imports)] // build.rs derives the built-in requirements; tests re-derive them
pub(crate) use palisade_common::pattern::gate::requirements;
