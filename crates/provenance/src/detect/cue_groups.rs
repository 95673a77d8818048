//! The predicate cue groups: which subject forms a cue literal can start,
//! and the lexicon slots behind each group (read by the library and by the
//! build script, which extracts the literals: `cue_literals.rs`).

use super::lexicon::Slot;

/// Predicate cue groups: which forms a cue literal can start.
pub(crate) const CUE_EN_MAIN: u16 = 1;
pub(crate) const CUE_EN_PREF: u16 = 2;
pub(crate) const CUE_EN_WE: u16 = 4;
pub(crate) const CUE_EN_PASSIVE: u16 = 8;
pub(crate) const CUE_EN_PHRASE: u16 = 16;
pub(crate) const CUE_ZH_MAIN: u16 = 32;
pub(crate) const CUE_ZH_PREF: u16 = 64;
pub(crate) const CUE_ZH_WE: u16 = 128;
pub(crate) const CUE_ZH_PHRASE: u16 = 256;
pub(crate) const CUE_LABEL: u16 = 512;
/// English verbs after a Chinese subject: their own group, so English text
/// ("decided") does not wake the code-switched form.
pub(crate) const CUE_MX: u16 = 1024;
/// Whole clauses in other languages (the subject words are the cues, so
/// these clauses need no English or Chinese subject trigger).
pub(crate) const CUE_OTHER: u16 = 2048;
pub(crate) const CUE_ALL: u16 = 4095;

/// The slots behind each cue group.
#[cfg_attr(not(test), allow(dead_code))] // read by the build script and the tests
pub(crate) const CUE_SLOTS: &[(u16, &[Slot])] = &[
    (CUE_EN_MAIN, &[Slot::EnPred, Slot::EnPredNeg]),
    (CUE_EN_PREF, &[Slot::EnPref]),
    (CUE_EN_WE, &[Slot::EnWe]),
    (CUE_EN_PASSIVE, &[Slot::EnPassive]),
    (CUE_EN_PHRASE, &[Slot::EnPhrase]),
    (CUE_ZH_MAIN, &[Slot::ZhPred]),
    (CUE_MX, &[Slot::MxPred]),
    (CUE_ZH_PREF, &[Slot::ZhPref]),
    (CUE_ZH_WE, &[Slot::ZhWe]),
    (CUE_ZH_PHRASE, &[Slot::ZhPhrase]),
    (CUE_LABEL, &[Slot::Label]),
    (CUE_OTHER, &[Slot::OtherLang]),
];
