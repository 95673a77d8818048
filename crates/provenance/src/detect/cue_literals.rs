//! The predicate cues of the lexicon: the literal prefixes of each slot's
//! patterns, grouped by the forms they can start.
//!
//! The build script (`build.rs`) runs this file over the data files and
//! compiles the result in, so a process does not extract the literals (a
//! regex parse of every lexicon pattern) at start-up; the tests run it again
//! on the same data and compare (`cues::cue_tests`).

use super::cue_groups::CUE_SLOTS;
use super::lexicon::{self, Rule};

/// Each cue group with the alternation of its slots' patterns (`None`
/// for an empty group).
pub(crate) fn cue_groups(rules: &[Rule]) -> Vec<(u16, Option<String>)> {
    CUE_SLOTS
        .iter()
        .map(|&(group, slots)| {
            let parts: Vec<String> = slots
                .iter()
                .filter_map(|&slot| lexicon::alternation(rules, slot, None))
                .collect();
            (group, (!parts.is_empty()).then(|| parts.join("|")))
        })
        .collect()
}

/// The cue literals of `groups` (ASCII lower-cased) with the groups each
/// can start, and the groups whose prefixes could not be extracted (always
/// searched). A literal that contains another literal of the same groups
/// adds nothing to the prefilter ("has decided" holds "decided") and is
/// left out.
pub(crate) fn cue_literals(groups: &[(u16, Option<String>)]) -> (Vec<(Vec<u8>, u16)>, u16) {
    let mut literals: Vec<Vec<u8>> = Vec::new();
    let mut masks: Vec<u16> = Vec::new();
    let mut index: std::collections::HashMap<Vec<u8>, usize> = std::collections::HashMap::new();
    let mut always = 0u16;
    for (group, pattern) in groups {
        // An empty slot matches nothing and needs no cue.
        let Some(pattern) = pattern else { continue };
        match prefix_literals(pattern) {
            Some(lits) => {
                for lit in lits {
                    match index.get(&lit) {
                        Some(&i) => masks[i] |= group,
                        None => {
                            index.insert(lit.clone(), literals.len());
                            literals.push(lit);
                            masks.push(*group);
                        }
                    }
                }
            }
            None => always |= group,
        }
    }
    let redundant: Vec<bool> = (0..literals.len())
        .map(|i| {
            (0..literals.len()).any(|j| {
                j != i
                    && literals[j].len() < literals[i].len()
                    && masks[j] & masks[i] == masks[i]
                    && literals[i]
                        .windows(literals[j].len())
                        .any(|w| w == literals[j].as_slice())
            })
        })
        .collect();
    let kept = literals
        .into_iter()
        .zip(masks)
        .zip(redundant)
        .filter(|(_, r)| !r)
        .map(|(lm, _)| lm)
        .collect();
    (kept, always)
}

/// The literal prefixes every match of `pattern` starts with (ASCII
/// lower-cased), or `None` when there is no finite, non-empty set.
pub(crate) fn prefix_literals(pattern: &str) -> Option<Vec<Vec<u8>>> {
    use regex_syntax::hir::literal::{ExtractKind, Extractor};
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .ok()?;
    let mut ex = Extractor::new();
    ex.kind(ExtractKind::Prefix)
        .limit_class(4)
        .limit_repeat(4)
        .limit_literal_len(12)
        .limit_total(4000);
    let seq = ex.extract(&hir);
    let lits = seq.literals()?;
    if lits.is_empty() || lits.iter().any(|l| l.as_bytes().is_empty()) {
        return None;
    }
    Some(
        lits.iter()
            .map(|l| l.as_bytes().to_ascii_lowercase())
            .collect(),
    )
}
