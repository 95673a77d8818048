//! Negation cues in English and Chinese.
//!
//! Guards use these to tell "approve the refund" from "don't approve the
//! refund", and "remember this" from "don't remember this".
//!
//! ```
//! use palisade_common::negation::{contains_negation, negation_before};
//! let said = "Never delete the prod database";
//! let at = said.find("delete").unwrap();
//! assert!(negation_before(said, at, 12, 6).is_some());
//! assert!(contains_negation("以后不要自动提交"));
//! assert!(!contains_negation("ship it on Friday"));
//! ```

use crate::span::Span;
use crate::tokens::{is_cjk, words};

/// English negation words (lower case; `’` is folded to `'` before lookup).
pub const EN_NEGATIONS: &[&str] = &[
    "ain't",
    "aren't",
    "can't",
    "cannot",
    "couldn't",
    "didn't",
    "doesn't",
    "don't",
    "dont",
    "hadn't",
    "hasn't",
    "haven't",
    "isn't",
    "mustn't",
    "neither",
    "never",
    "no",
    "nobody",
    "none",
    "nor",
    "not",
    "nothing",
    "nowhere",
    "shan't",
    "shouldn't",
    "wasn't",
    "weren't",
    "without",
    "won't",
    "wouldn't",
];

/// Chinese negation cues, matched as substrings.
pub const ZH_NEGATIONS: &[&str] = &[
    "不要", "不准", "不许", "不可", "不能", "不用", "不必", "无需", "无须", "禁止", "别", "勿",
    "莫", "未", "没有", "没", "甭", "不",
];

/// Whether `word` is an English negation word (any case).
///
/// ```
/// use palisade_common::negation::is_negation_word;
/// assert!(is_negation_word("Don’t"));
/// assert!(is_negation_word("NEVER"));
/// assert!(!is_negation_word("now"));
/// ```
pub fn is_negation_word(word: &str) -> bool {
    if word.is_ascii() {
        // Same answer as below, without allocating: ASCII lower-casing is
        // byte-wise and there is no `’` to fold.
        let b = word.as_bytes();
        return (b.len() >= 3 && b[b.len() - 3..].eq_ignore_ascii_case(b"n't"))
            || EN_NEGATIONS.iter().any(|n| n.eq_ignore_ascii_case(word));
    }
    let lower = word.to_lowercase().replace('’', "'");
    EN_NEGATIONS.contains(&lower.as_str()) || lower.ends_with("n't")
}

/// Whether `text` contains any negation cue.
///
/// ```
/// use palisade_common::negation::contains_negation;
/// assert!(contains_negation("do not, under any circumstances, deploy"));
/// assert!(!contains_negation("knot notation"));
/// ```
pub fn contains_negation(text: &str) -> bool {
    words(text).any(|(_, w)| is_negation_word(w))
        || ZH_NEGATIONS.iter().any(|cue| text.contains(cue))
}

/// Whether `text` starts with a negation (its first word, or a Chinese cue at
/// its first CJK character).
///
/// ```
/// use palisade_common::negation::starts_with_negation;
/// assert!(starts_with_negation("don't approve the refund"));
/// assert!(starts_with_negation("不要上线"));
/// assert!(!starts_with_negation("approve it, not later"));
/// ```
pub fn starts_with_negation(text: &str) -> bool {
    let trimmed = text.trim_start_matches(|c: char| !c.is_alphanumeric());
    match trimmed.chars().next() {
        Some(c) if is_cjk(c) => ZH_NEGATIONS.iter().any(|cue| trimmed.starts_with(cue)),
        Some(_) => words(trimmed)
            .next()
            .is_some_and(|(_, w)| is_negation_word(w)),
        None => false,
    }
}

/// The nearest negation cue before byte `pos` of `text`, looking back at most
/// `max_words` Latin words or `max_cjk` CJK characters (whichever limit is
/// reached first). `text` should be the sentence: the caller decides where a
/// sentence starts.
///
/// ```
/// use palisade_common::negation::negation_before;
/// let s = "Do not, under any circumstances, delete the prod database";
/// let at = s.find("delete").unwrap();
/// assert_eq!(negation_before(s, at, 12, 6).map(|sp| &s[sp.range()]), Some("not"));
/// assert_eq!(negation_before(s, at, 3, 6), None);
/// let zh = "以后不要自动提交代码";
/// assert!(negation_before(zh, zh.find("自动").unwrap(), 12, 6).is_some());
/// ```
pub fn negation_before(text: &str, pos: usize, max_words: usize, max_cjk: usize) -> Option<Span> {
    let mut pos = pos.min(text.len());
    while !text.is_char_boundary(pos) {
        pos -= 1;
    }
    let prefix = &text[..pos];
    // Walk back to find where the window starts, noting whether it holds any
    // word or CJK character at all (punctuation-only windows skip the scans).
    let mut word_count = 0usize;
    let mut cjk_count = 0usize;
    let mut in_word = false;
    let mut window_start = 0usize;
    let mut has_word = false;
    let mut has_cjk = false;
    for (i, c) in prefix.char_indices().rev() {
        if is_cjk(c) {
            in_word = false;
            cjk_count += 1;
            if cjk_count > max_cjk {
                window_start = i + c.len_utf8();
                break;
            }
            has_cjk = true;
        } else if c.is_alphanumeric() || c == '\'' || c == '’' {
            if !in_word {
                word_count += 1;
                if word_count > max_words {
                    // The window starts after this word.
                    window_start = prefix[i..]
                        .char_indices()
                        .find(|&(_, ch)| !(ch.is_alphanumeric() || ch == '\'' || ch == '’'))
                        .map_or(pos, |(j, _)| i + j);
                    break;
                }
                in_word = true;
            }
            has_word = true;
        } else {
            in_word = false;
        }
    }
    let window = &prefix[window_start..];
    let mut best: Option<Span> = None;
    if has_word {
        for (span, w) in words(window) {
            if is_negation_word(w) {
                best = Some(span.shift(window_start));
            }
        }
    }
    if has_cjk {
        for cue in ZH_NEGATIONS {
            if let Some(i) = window.rfind(cue) {
                let span = Span::new(window_start + i, window_start + i + cue.len());
                if best.is_none_or(|b| span.start > b.start) {
                    best = Some(span);
                }
            }
        }
    }
    best
}

/// Negation words of Spanish, Portuguese, German and French (lower case).
/// French `n'` before a verb is recognised as a word prefix.
pub const EU_NEGATIONS: &[&str] = &[
    // Spanish
    "no", "nunca", "jamás", "jamas", "tampoco", "ni", "nada", "sin", // Portuguese
    "não", "nao", "jamais", "nem", "sem", // German
    "nicht", "nie", "niemals", "kein", "keine", "keinen", "keinem", "keiner", "keines", "nichts",
    "ohne", // French
    "ne", "pas", "aucun", "aucune", "rien", "sans",
];

/// Whether `word` is a Spanish, Portuguese, German or French negation word
/// (any case), or a French verb elided with `n'` (`n'oublie`).
///
/// ```
/// use palisade_common::negation::is_eu_negation_word;
/// assert!(is_eu_negation_word("Nunca"));
/// assert!(is_eu_negation_word("niemals"));
/// assert!(is_eu_negation_word("n’enregistre"));
/// assert!(!is_eu_negation_word("notiere"));
/// ```
pub fn is_eu_negation_word(word: &str) -> bool {
    let lower = word.to_lowercase().replace('’', "'");
    EU_NEGATIONS.contains(&lower.as_str()) || (lower.starts_with("n'") && lower.len() > 2)
}

/// [`negation_before`], also reading the negation words of Spanish,
/// Portuguese, German and French ([`EU_NEGATIONS`]). The window is the same:
/// at most `max_words` Latin words or `max_cjk` CJK characters before `pos`.
///
/// ```
/// use palisade_common::negation::negation_before_in;
/// let s = "Por favor, nunca recuerdes mi dirección";
/// assert!(negation_before_in(s, s.find("recuerdes").unwrap(), 4, 3).is_some());
/// let d = "Bitte nicht merken";
/// assert!(negation_before_in(d, d.find("merken").unwrap(), 4, 3).is_some());
/// let ok = "Recuerda que prefiero té";
/// assert!(negation_before_in(ok, ok.find("prefiero").unwrap(), 4, 3).is_none());
/// ```
pub fn negation_before_in(
    text: &str,
    pos: usize,
    max_words: usize,
    max_cjk: usize,
) -> Option<Span> {
    let found = negation_before(text, pos, max_words, max_cjk);
    let mut pos = pos.min(text.len());
    while !text.is_char_boundary(pos) {
        pos -= 1;
    }
    let prefix = &text[..pos];
    if prefix.is_ascii() && found.is_some() {
        return found;
    }
    // The last `max_words` words before `pos`, nearest last; a CJK
    // character ends the window as it does in `negation_before`.
    let tail_start = prefix
        .char_indices()
        .rev()
        .find(|&(_, c)| is_cjk(c))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let window = &prefix[tail_start..];
    let recent: Vec<(Span, &str)> = words(window).collect();
    let skip = recent.len().saturating_sub(max_words);
    let eu = recent[skip..]
        .iter()
        .rev()
        .find(|(_, w)| is_eu_negation_word(w))
        .map(|(span, _)| span.shift(tail_start));
    match (found, eu) {
        (Some(a), Some(b)) => Some(if b.start > a.start { b } else { a }),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `negation_before` as it was before the punctuation-only shortcuts.
    fn negation_before_reference(
        text: &str,
        pos: usize,
        max_words: usize,
        max_cjk: usize,
    ) -> Option<Span> {
        let mut pos = pos.min(text.len());
        while !text.is_char_boundary(pos) {
            pos -= 1;
        }
        let prefix = &text[..pos];
        // Walk back to find where the window starts.
        let mut word_count = 0usize;
        let mut cjk_count = 0usize;
        let mut in_word = false;
        let mut window_start = 0usize;
        for (i, c) in prefix.char_indices().rev() {
            if is_cjk(c) {
                in_word = false;
                cjk_count += 1;
                if cjk_count > max_cjk {
                    window_start = i + c.len_utf8();
                    break;
                }
            } else if c.is_alphanumeric() || c == '\'' || c == '’' {
                if !in_word {
                    word_count += 1;
                    if word_count > max_words {
                        // The window starts after this word.
                        window_start = prefix[i..]
                            .char_indices()
                            .find(|&(_, ch)| !(ch.is_alphanumeric() || ch == '\'' || ch == '’'))
                            .map_or(pos, |(j, _)| i + j);
                        break;
                    }
                    in_word = true;
                }
            } else {
                in_word = false;
            }
        }
        let window = &prefix[window_start..];
        let mut best: Option<Span> = None;
        for (span, w) in words(window) {
            if is_negation_word(w) {
                best = Some(span.shift(window_start));
            }
        }
        for cue in ZH_NEGATIONS {
            if let Some(i) = window.rfind(cue) {
                let span = Span::new(window_start + i, window_start + i + cue.len());
                if best.is_none_or(|b| span.start > b.start) {
                    best = Some(span);
                }
            }
        }
        best
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn negation_before_same_as_reference(
            s in "[a-z'’ ,.!不要别没有用户上线0-9]{0,60}|(not|never|no|don't|!|,| |别|上线)*",
            pos in 0usize..80,
            max_words in 0usize..6,
            max_cjk in 0usize..4,
        ) {
            prop_assert_eq!(
                negation_before(&s, pos, max_words, max_cjk),
                negation_before_reference(&s, pos, max_words, max_cjk)
            );
        }

        #[test]
        fn negation_word_same_as_lowercasing(w in "[a-zA-Z'’İK]{0,10}|(?i)(no|not|never|don't|can’t|nor|none|won't|n't)") {
            let lower = w.to_lowercase().replace('’', "'");
            let want = EN_NEGATIONS.contains(&lower.as_str()) || lower.ends_with("n't");
            prop_assert_eq!(is_negation_word(&w), want);
        }
    }

    #[test]
    fn window_cases() {
        // (sentence, quoted part, expect negation)
        let cases: &[(&str, &str, bool)] = &[
            ("Never delete the prod database without asking me", "delete the prod database", true),
            ("Please delete the prod database", "delete the prod database", false),
            ("I don’t want you to ship on Friday", "ship on Friday", true),
            ("no no no no no no no no no no no no no one two three four five six seven eight nine ten eleven twelve thirteen ship it", "ship it", false),
            ("别在周五上线", "周五上线", true),
            ("我们在周五上线", "周五上线", false),
            ("不要啊啊啊啊啊啊啊上线", "上线", false),
        ];
        for (sentence, quote, want) in cases {
            let at = sentence.find(quote).unwrap();
            assert_eq!(
                negation_before(sentence, at, 12, 6).is_some(),
                *want,
                "{sentence:?} / {quote:?}"
            );
        }
    }
}
