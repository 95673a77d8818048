//! Content tokens: the words two texts must share to be "about" the same thing.
//!
//! Latin tokens are words of three or more letters, lower-cased, minus a short
//! stopword list. CJK tokens are character bigrams of each run of CJK
//! characters (a run of one character yields no bigram).
//!
//! ```
//! use palisade_common::tokens::content_tokens;
//! assert_eq!(content_tokens("The user wants the Postgres DB"), vec!["user", "wants", "postgres"]);
//! assert_eq!(content_tokens("使用数据库"), vec!["使用", "用数", "数据", "据库"]);
//! ```

use crate::span::Span;

/// English stopwords removed from content tokens (all lower case, ≥ 3 letters;
/// shorter words are dropped by length anyway).
pub const STOPWORDS: &[&str] = &[
    "about",
    "above",
    "after",
    "again",
    "all",
    "also",
    "and",
    "any",
    "are",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "can",
    "could",
    "did",
    "does",
    "doing",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "into",
    "its",
    "itself",
    "just",
    "let",
    "lets",
    "more",
    "most",
    "myself",
    "nor",
    "not",
    "now",
    "off",
    "once",
    "only",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "same",
    "she",
    "should",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "too",
    "under",
    "until",
    "very",
    "was",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "yes",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

/// Whether `word` (lower case) is a stopword.
///
/// ```
/// use palisade_common::tokens::is_stopword;
/// assert!(is_stopword("the"));
/// assert!(!is_stopword("postgres"));
/// ```
pub fn is_stopword(word: &str) -> bool {
    // The same key as `stop_key`, built with one copy instead of a loop.
    let mut key = [0u8; 16];
    let Some(slot) = key.get_mut(..word.len()).filter(|_| word.len() <= 15) else {
        return false;
    };
    slot.copy_from_slice(word.as_bytes());
    key[15] = word.len() as u8; // at most 15, checked above
    STOP_KEYS.binary_search(&u128::from_be_bytes(key)).is_ok()
}

/// A word of up to 15 bytes as one integer: its bytes big-endian, zero
/// padded, then its length. For words without NUL bytes the order is the
/// order of the strings, so [`STOP_KEYS`] stays sorted like [`STOPWORDS`];
/// the length keeps `"the\0"` from matching `"the"`.
const fn stop_key(word: &[u8]) -> u128 {
    let mut key: u128 = 0;
    let mut i = 0;
    while i < 15 {
        let byte = if i < word.len() { word[i] } else { 0 };
        key = (key << 8) | byte as u128;
        i += 1;
    }
    (key << 8) | (word.len() & 0xFF) as u128
}

/// [`STOPWORDS`] as [`stop_key`]s: a lookup compares integers instead of
/// calling memcmp (it sat on the hot path of [`content_tokens`]).
const STOP_KEYS: [u128; STOPWORDS.len()] = {
    let mut keys = [0u128; STOPWORDS.len()];
    let mut i = 0;
    while i < keys.len() {
        keys[i] = stop_key(STOPWORDS[i].as_bytes());
        i += 1;
    }
    keys
};

/// Whether `c` is a CJK character for tokenization (Han ideographs, kana,
/// Hangul syllables).
///
/// ```
/// use palisade_common::tokens::is_cjk;
/// assert!(is_cjk('用'));
/// assert!(is_cjk('カ'));
/// assert!(!is_cjk('a'));
/// assert!(!is_cjk('。'));
/// ```
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF
        | 0x20000..=0x2A6DF | 0x2A700..=0x2EBEF | 0x30000..=0x3134F)
}

/// Whether `c` can be part of a Latin-script word (a letter that is not CJK).
fn is_word_char(c: char) -> bool {
    c.is_alphabetic() && !is_cjk(c)
}

/// Words: maximal runs of non-CJK letters, with an apostrophe (`'` or `’`)
/// allowed between letters (`don't`). Yields the span and the word as written.
///
/// ```
/// use palisade_common::tokens::words;
/// let w: Vec<&str> = words("Don't ship v2.0 — ever").map(|(_, w)| w).collect();
/// assert_eq!(w, vec!["Don't", "ship", "v", "ever"]);
/// ```
pub fn words(text: &str) -> impl Iterator<Item = (Span, &str)> + '_ {
    let mut chars = text.char_indices().peekable();
    std::iter::from_fn(move || {
        // Skip to the next word character.
        let start = loop {
            let (i, c) = chars.next()?;
            if is_word_char(c) {
                break i;
            }
        };
        let mut end = text.len();
        while let Some(&(i, c)) = chars.peek() {
            if is_word_char(c) {
                chars.next();
                continue;
            }
            if c == '\'' || c == '’' {
                let after = text[i + c.len_utf8()..].chars().next();
                if after.is_some_and(is_word_char) {
                    chars.next();
                    continue;
                }
            }
            end = i;
            break;
        }
        Some((Span::new(start, end), &text[start..end]))
    })
}

/// Content tokens of `text`, in order of appearance, duplicates kept.
///
/// ```
/// use palisade_common::tokens::content_tokens;
/// assert_eq!(content_tokens("Ship it on FRIDAY"), vec!["ship", "friday"]);
/// assert!(content_tokens("a an it").is_empty());
/// ```
pub fn content_tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_token(text, |token| out.push(token.to_owned()));
    out
}

/// Call `f` with each content token of `text`, in order, without
/// allocating per token (ASCII words are lower-cased into one buffer, CJK
/// bigrams are slices of `text`).
fn for_each_token(text: &str, mut f: impl FnMut(&str)) {
    // Words and CJK runs are contiguous in `text`, so they are tracked as
    // byte offsets.
    let mut word_start: Option<usize> = None;
    let mut cjk_prev: Option<usize> = None;
    let mut prev: Option<char> = None;
    let mut lower = String::new();
    let mut iter = text.char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        if is_cjk(c) {
            if let Some(from) = word_start.take() {
                emit_word(&text[from..i], &mut lower, &mut f);
            }
            if let Some(p) = cjk_prev {
                f(&text[p..i + c.len_utf8()]);
            }
            cjk_prev = Some(i);
        } else if is_word_char(c) {
            cjk_prev = None;
            word_start.get_or_insert(i);
        } else if (c == '\'' || c == '’')
            && prev.is_some_and(is_word_char)
            && iter.peek().is_some_and(|&(_, n)| is_word_char(n))
        {
            // An apostrophe between letters stays inside the word.
        } else {
            if let Some(from) = word_start.take() {
                emit_word(&text[from..i], &mut lower, &mut f);
            }
            cjk_prev = None;
        }
        prev = Some(c);
    }
    if let Some(from) = word_start {
        emit_word(&text[from..], &mut lower, &mut f);
    }
}

/// Pass `word` to `f` (lower-cased, `’` folded to `'`) when it has three or
/// more letters and is not a stopword; `lower` is scratch space.
fn emit_word(word: &str, lower: &mut String, f: &mut impl FnMut(&str)) {
    if word.is_ascii() {
        // ASCII words hold letters and `'`: ASCII lower-casing is the whole
        // of `to_lowercase` and there is no `’` to fold.
        if word.bytes().filter(u8::is_ascii_alphabetic).count() < 3 {
            return;
        }
        lower.clear();
        lower.push_str(word);
        lower.make_ascii_lowercase();
        if !is_stopword(lower) {
            f(lower);
        }
        return;
    }
    let folded = word.to_lowercase().replace('’', "'");
    if folded.chars().filter(|c| c.is_alphabetic()).count() >= 3 && !is_stopword(&folded) {
        f(&folded);
    }
}

/// How many distinct content tokens `a` and `b` share.
///
/// ```
/// use palisade_common::tokens::shared_token_count;
/// assert_eq!(shared_token_count("ship on Friday", "we ship the release Friday"), 2);
/// assert_eq!(shared_token_count("lint", "linter"), 0);
/// ```
pub fn shared_token_count(a: &str, b: &str) -> usize {
    let left: std::collections::HashSet<String> = content_tokens(a).into_iter().collect();
    if left.is_empty() {
        return 0;
    }
    // `b` (often the longer text) is streamed: no token of it is allocated.
    let mut shared: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for_each_token(b, |token| {
        if let Some(kept) = left.get(token) {
            shared.insert(kept.as_str());
        }
    });
    shared.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The straightforward implementation `content_tokens` replaced.
    fn content_tokens_reference(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut cjk_run: Vec<char> = Vec::new();
        let flush_cjk = |run: &mut Vec<char>, out: &mut Vec<String>| {
            for pair in run.windows(2) {
                out.push(pair.iter().collect());
            }
            run.clear();
        };
        let mut word = String::new();
        let flush_word = |word: &mut String, out: &mut Vec<String>| {
            let lower = word.to_lowercase().replace('’', "'");
            if lower.chars().filter(|c| c.is_alphabetic()).count() >= 3 && !is_stopword(&lower) {
                out.push(lower);
            }
            word.clear();
        };
        let mut prev: Option<char> = None;
        let mut iter = text.chars().peekable();
        while let Some(c) = iter.next() {
            if is_cjk(c) {
                flush_word(&mut word, &mut out);
                cjk_run.push(c);
            } else if is_word_char(c) {
                flush_cjk(&mut cjk_run, &mut out);
                word.push(c);
            } else if (c == '\'' || c == '’')
                && prev.is_some_and(is_word_char)
                && iter.peek().is_some_and(|&n| is_word_char(n))
            {
                word.push(c);
            } else {
                flush_word(&mut word, &mut out);
                flush_cjk(&mut cjk_run, &mut out);
            }
            prev = Some(c);
        }
        flush_word(&mut word, &mut out);
        flush_cjk(&mut cjk_run, &mut out);
        out
    }

    #[test]
    fn stop_keys_sorted_and_exact() {
        for w in ["the", "yourselves", "a\0b", ""] {
            let mut key = [0u8; 16];
            key[..w.len()].copy_from_slice(w.as_bytes());
            key[15] = w.len() as u8;
            assert_eq!(u128::from_be_bytes(key), stop_key(w.as_bytes()), "{w:?}");
        }
        assert!(STOP_KEYS.windows(2).all(|w| w[0] < w[1]));
        assert!(STOPWORDS.iter().all(|w| w.len() <= 15 && is_stopword(w)));
        for w in [
            "",
            "th",
            "the\0",
            "thes",
            "thesee",
            "postgres",
            "THE",
            "yourselvess",
        ] {
            assert!(!is_stopword(w), "{w:?}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn stopword_lookup_same_as_string_search(w in "[a-z\0]{0,12}|(the|them|those|you|yours|ourselves)[a-z]?") {
            prop_assert_eq!(is_stopword(&w), STOPWORDS.binary_search(&w.as_str()).is_ok());
        }

        #[test]
        fn content_tokens_same_as_reference(s in "[a-zA-Z'’ .,用户决定使用数据库ÉéΣσßİ\n-]{0,60}") {
            prop_assert_eq!(content_tokens(&s), content_tokens_reference(&s));
        }

        #[test]
        fn shared_count_same_as_set_intersection(
            a in "[a-zA-Z' 用户决定使用数据库É]{0,40}",
            b in "[a-zA-Z' 用户决定使用数据库É]{0,60}",
        ) {
            let left: std::collections::HashSet<String> = content_tokens_reference(&a).into_iter().collect();
            let right: std::collections::HashSet<String> = content_tokens_reference(&b).into_iter().collect();
            prop_assert_eq!(shared_token_count(&a, &b), left.intersection(&right).count());
        }

        #[test]
        fn content_tokens_same_as_reference_any(s in ".{0,60}") {
            prop_assert_eq!(content_tokens(&s), content_tokens_reference(&s));
        }
    }

    #[test]
    fn stopwords_sorted_for_binary_search() {
        let mut sorted = STOPWORDS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, STOPWORDS, "keep STOPWORDS sorted");
    }

    #[test]
    fn cases() {
        let cases: &[(&str, &[&str])] = &[
            (
                "User decided to use GPUs",
                &["user", "decided", "use", "gpus"],
            ),
            ("用户决定", &["用户", "户决", "决定"]),
            ("用 a 户", &[]),
            ("混合 text 与中文", &["混合", "text", "与中", "中文"]),
            ("don't DELETE prod", &["don't", "delete", "prod"]),
            ("The THESE Yourselves ourselves", &[]),
            ("Don’t ΣΊΣΥΦΟΣ", &["don't", "σίσυφος"]),
            (
                "full-width Ｐｏｓｔｇｒｅｓ",
                &["full", "width", "ｐｏｓｔｇｒｅｓ"],
            ),
        ];
        for (input, want) in cases {
            assert_eq!(content_tokens(input), *want, "content_tokens({input:?})");
        }
    }
}
