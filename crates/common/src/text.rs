//! Lines, logical lines and sentences, for English and Chinese.
//!
//! All splitters return spans that **partition** their input: concatenating
//! the pieces in order gives the input back, byte for byte. Line terminators
//! and the whitespace after a sentence end belong to the piece before them.
//!
//! ```
//! use palisade_common::text::sentences;
//! let text = "User decided X. 用户决定使用Postgres。 He said \"no. never\" ok";
//! let parts: Vec<&str> = sentences(text).iter().map(|s| &text[s.range()]).collect();
//! assert_eq!(parts, vec!["User decided X. ", "用户决定使用Postgres。 ", "He said \"no. never\" ok"]);
//! ```

use crate::span::Span;

/// The longest prefix of `text` at most `max` bytes long, cut on a char
/// boundary (never inside a character).
///
/// ```
/// use palisade_common::text::head;
/// assert_eq!(head("aé", 2), "a");
/// assert_eq!(head("abc", 10), "abc");
/// ```
pub fn head(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Physical lines, each including its `\n` terminator (the last may lack one).
///
/// ```
/// use palisade_common::text::lines;
/// let t = "a\nb\r\nc";
/// let l: Vec<&str> = lines(t).map(|s| &t[s.range()]).collect();
/// assert_eq!(l, vec!["a\n", "b\r\n", "c"]);
/// ```
pub fn lines(text: &str) -> impl Iterator<Item = Span> + '_ {
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= text.len() {
            return None;
        }
        let end = text[start..]
            .find('\n')
            .map_or(text.len(), |i| start + i + 1);
        let span = Span::new(start, end);
        start = end;
        Some(span)
    })
}

/// The content of a line span without its `\r\n` / `\n` terminator.
///
/// ```
/// use palisade_common::text::line_content;
/// assert_eq!(line_content("abc\r\n"), "abc");
/// ```
pub fn line_content(line: &str) -> &str {
    line.trim_end_matches(['\n', '\r'])
}

/// Logical lines: physical lines with hard-wrapped continuations joined.
///
/// A line continues the previous one when the previous line is not blank and
/// either the line is indented by one to three spaces (and does not start a
/// list item), or the previous line stops right after a subject: "the
/// user", "the owner", "the boss", "my human", 用户, 老板, 主人, 负责人.
///
/// ```
/// use palisade_common::text::logical_lines;
/// let t = "The user decided to\n  ship on Friday.\n- next item\n";
/// let l: Vec<&str> = logical_lines(t).iter().map(|s| &t[s.range()]).collect();
/// assert_eq!(l, vec!["The user decided to\n  ship on Friday.\n", "- next item\n"]);
/// ```
pub fn logical_lines(text: &str) -> Vec<Span> {
    let mut out: Vec<Span> = Vec::new();
    let mut prev_content: Option<&str> = None;
    for line in lines(text) {
        let content = line_content(&text[line.range()]);
        let joins = prev_content.is_some_and(|prev| continues(prev, content));
        match out.last_mut() {
            Some(last) if joins => last.end = line.end,
            _ => out.push(line),
        }
        prev_content = Some(content);
    }
    out
}

/// Whether `line` is a hard-wrapped continuation of `prev`.
fn continues(prev: &str, line: &str) -> bool {
    if prev.trim().is_empty() || line.trim().is_empty() {
        return false;
    }
    let indent = line.len() - line.trim_start_matches(' ').len();
    let rest = &line[indent..];
    if (1..=3).contains(&indent) && !rest.starts_with('\t') && !starts_list_item(rest) {
        return true;
    }
    ends_with_the_user(prev)
}

/// Whether `s` starts with a Markdown list marker (`-`, `*`, `+`, `1.`, `1)`).
///
/// ```
/// use palisade_common::text::starts_list_item;
/// assert!(starts_list_item("- x"));
/// assert!(starts_list_item("12) x"));
/// assert!(!starts_list_item("-x"));
/// ```
pub fn starts_list_item(s: &str) -> bool {
    let b = s.as_bytes();
    match b.first() {
        Some(b'-' | b'*' | b'+') => b.get(1).is_none_or(|c| *c == b' ' || *c == b'\t'),
        Some(c) if c.is_ascii_digit() => {
            let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
            digits <= 9
                && matches!(b.get(digits), Some(b'.' | b')'))
                && b.get(digits + 1).is_none_or(|c| *c == b' ' || *c == b'\t')
        }
        _ => false,
    }
}

/// Subject words a hard-wrapped line may stop after, its verb on the next
/// line: English (after a non-letter) and Chinese.
const WRAP_SUBJECTS_EN: &[&str] = &["the user", "the owner", "the boss", "my human"];
const WRAP_SUBJECTS_ZH: &[&str] = &["用户", "用戶", "老板", "老闆", "主人", "负责人", "負責人"];

fn ends_with_the_user(line: &str) -> bool {
    let t = line.trim_end();
    let en = WRAP_SUBJECTS_EN.iter().any(|w| {
        let n = w.len();
        t.len() >= n
            && t.is_char_boundary(t.len() - n)
            && t[t.len() - n..].eq_ignore_ascii_case(w)
            && t[..t.len() - n]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphanumeric())
    });
    en || WRAP_SUBJECTS_ZH.iter().any(|w| t.ends_with(w))
}

/// Sentences of `text`: logical lines split at sentence ends.
///
/// A sentence ends after `.`, `!`, `?` or `;` followed by whitespace (or the
/// end of the text), or after `。`, `！`, `？`, `；`; closing quotes and
/// brackets right after the mark stay with the sentence. An end inside a
/// quotation does not split, and neither does the period of a common
/// abbreviation (`e.g.`, `Dr.`) or a decimal point.
///
/// ```
/// use palisade_common::text::sentences;
/// let t = "Use e.g. Postgres. Then stop! 好的；继续";
/// let s: Vec<&str> = sentences(t).iter().map(|s| &t[s.range()]).collect();
/// assert_eq!(s, vec!["Use e.g. Postgres. ", "Then stop! ", "好的；", "继续"]);
/// ```
pub fn sentences(text: &str) -> Vec<Span> {
    let mut out = Vec::new();
    for line in logical_lines(text) {
        split_sentences(text, line, &mut out);
    }
    out
}

/// Sentences of one logical line, appended to `out`.
fn split_sentences(text: &str, line: Span, out: &mut Vec<Span>) {
    let s = &text[line.range()];
    let bytes = s.as_bytes();
    let mut start = 0usize;
    let mut quote = QuoteState::default();
    let mut i = 0usize;
    while i < s.len() {
        // Only quote marks and sentence ends change anything; every other
        // character is skipped a byte at a time. A byte in `MAY_MATTER` is
        // ASCII or a lead byte, so `i` is then on a char boundary.
        if !MAY_MATTER[usize::from(bytes[i])] {
            i += 1;
            continue;
        }
        let Some(c) = s[i..].chars().next() else {
            break;
        };
        let was_inside = quote.inside();
        quote.feed(s, i, c);
        let ends = !quote.inside() && ends_sentence(s, start, i, c, was_inside);
        i += c.len_utf8();
        if !ends {
            continue;
        }
        // Keep closing quotes/brackets and the following whitespace.
        let mut end = i;
        for (j, n) in s[i..].char_indices() {
            if !(CLOSERS.contains(&n) || n.is_whitespace()) {
                break;
            }
            if n == '"' {
                quote.feed(s, i + j, n);
            }
            end = i + j + n.len_utf8();
        }
        out.push(Span::new(line.start + start, line.start + end));
        start = end;
        i = end;
    }
    if start < s.len() {
        out.push(Span::new(line.start + start, line.end));
    }
}

/// Whether `c` at byte `i` of `s` (outside any quotation) ends the sentence
/// that started at byte `start`.
fn ends_sentence(s: &str, start: usize, i: usize, c: char, was_inside: bool) -> bool {
    match c {
        // A quotation that closes right after a sentence end ends the sentence too.
        '"' | '”' | '」' | '』' if was_inside => {
            let before = s[..i].chars().next_back();
            let next = s[i + c.len_utf8()..].chars().next();
            match before {
                Some('。' | '！' | '？') => true,
                Some('.' | '!' | '?') => next.is_none_or(char::is_whitespace),
                _ => false,
            }
        }
        '。' | '！' | '？' | '；' => true,
        '.' | '!' | '?' | ';' => {
            let after = &s[i + 1..];
            let next = after.trim_start_matches(CLOSERS).chars().next();
            let spaced = next.is_none_or(char::is_whitespace);
            spaced && !(c == '.' && is_abbreviation(&s[start..i]))
        }
        _ => false,
    }
}

/// Bytes that may start a quote mark or a sentence end: `"`, `.`, `!`, `?`,
/// `;`, and the UTF-8 lead bytes of `“ ”` (0xE2), `「 」 『 』 。` (0xE3) and
/// `！ ？ ；` (0xEF).
const MAY_MATTER: [bool; 256] = {
    let mut table = [false; 256];
    let mut k = 0;
    let bytes = b"\".!?;\xE2\xE3\xEF";
    while k < bytes.len() {
        table[bytes[k] as usize] = true;
        k += 1;
    }
    table
};

/// Marks that may follow a sentence end and still belong to it.
const CLOSERS: &[char] = &['"', '”', '’', '\'', ')', ']', '」', '』', '）', '】', '》'];

/// Abbreviations whose period does not end a sentence (lower case, no period).
const ABBREVIATIONS: &[&str] = &[
    "approx", "cf", "dr", "e.g", "fig", "i.e", "incl", "jr", "mr", "mrs", "ms", "prof", "sr", "vs",
];

fn is_abbreviation(before: &str) -> bool {
    let word = before
        .rsplit(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or("");
    ABBREVIATIONS.iter().any(|a| a.eq_ignore_ascii_case(word))
}

/// Tracks whether the scan is inside a quotation.
#[derive(Default)]
struct QuoteState {
    straight: bool,
    depth: u32,
}

impl QuoteState {
    fn inside(&self) -> bool {
        self.straight || self.depth > 0
    }

    fn feed(&mut self, s: &str, i: usize, c: char) {
        match c {
            '"' => {
                let after_digit = s[..i]
                    .chars()
                    .next_back()
                    .is_some_and(|p| p.is_ascii_digit());
                if self.straight || !after_digit {
                    self.straight = !self.straight;
                }
            }
            '“' | '「' | '『' => self.depth = self.depth.saturating_add(1),
            '”' | '」' | '』' => self.depth = self.depth.saturating_sub(1),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The per-character splitter `split_sentences` replaced.
    fn split_sentences_reference(text: &str, line: Span, out: &mut Vec<Span>) {
        let s = &text[line.range()];
        let mut start = 0usize;
        let mut quote = QuoteState::default();
        let mut iter = s.char_indices().peekable();
        while let Some((i, c)) = iter.next() {
            let was_inside = quote.inside();
            quote.feed(s, i, c);
            if quote.inside() {
                continue;
            }
            let ends = match c {
                // A quotation that closes right after a sentence end ends the sentence too.
                '"' | '”' | '」' | '』' if was_inside => {
                    let before = s[..i].chars().next_back();
                    let next = s[i + c.len_utf8()..].chars().next();
                    match before {
                        Some('。' | '！' | '？') => true,
                        Some('.' | '!' | '?') => next.is_none_or(char::is_whitespace),
                        _ => false,
                    }
                }
                '。' | '！' | '？' | '；' => true,
                '.' | '!' | '?' | ';' => {
                    let after = &s[i + 1..];
                    let next = after.trim_start_matches(CLOSERS).chars().next();
                    let spaced = next.is_none_or(char::is_whitespace);
                    spaced && !(c == '.' && is_abbreviation_reference(&s[start..i]))
                }
                _ => false,
            };
            if !ends {
                continue;
            }
            // Keep closing quotes/brackets and the following whitespace.
            let mut end = i + c.len_utf8();
            while let Some(&(j, n)) = iter.peek() {
                if CLOSERS.contains(&n) || n.is_whitespace() {
                    if n == '"' {
                        quote.feed(s, j, n);
                    }
                    end = j + n.len_utf8();
                    iter.next();
                } else {
                    break;
                }
            }
            out.push(Span::new(line.start + start, line.start + end));
            start = end;
        }
        if start < s.len() {
            out.push(Span::new(line.start + start, line.end));
        }
    }

    fn is_abbreviation_reference(before: &str) -> bool {
        let word = before
            .rsplit(|c: char| c.is_whitespace() || c == '(')
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        ABBREVIATIONS.contains(&word.as_str())
    }

    fn sentences_reference(text: &str) -> Vec<Span> {
        let mut out = Vec::new();
        for line in logical_lines(text) {
            split_sentences_reference(text, line, &mut out);
        }
        out
    }

    fn pieces(t: &str) -> Vec<&str> {
        sentences(t).iter().map(|s| &t[s.range()]).collect()
    }

    #[test]
    fn sentence_cases() {
        let cases: &[(&str, &str, &[&str])] = &[
            ("english", "One. Two? Three!", &["One. ", "Two? ", "Three!"]),
            ("semicolon", "a b; c d", &["a b; ", "c d"]),
            ("decimal", "version 2.0 ships", &["version 2.0 ships"]),
            ("domain", "see example.com now", &["see example.com now"]),
            (
                "chinese",
                "用户决定了。我们开始吧！好吗？",
                &["用户决定了。", "我们开始吧！", "好吗？"],
            ),
            ("chinese semicolon", "一；二", &["一；", "二"]),
            (
                "quote protects",
                "He said \"stop. now\" and left. Next",
                &["He said \"stop. now\" and left. ", "Next"],
            ),
            (
                "curly protects",
                "He said “stop. now” ok. X",
                &["He said “stop. now” ok. ", "X"],
            ),
            (
                "corner protects",
                "用户说「不要。提交」好。下一句",
                &["用户说「不要。提交」好。", "下一句"],
            ),
            (
                "closing quote kept",
                "He said \"stop.\" Then",
                &["He said \"stop.\" ", "Then"],
            ),
            (
                "inch mark not a quote",
                "27\" wide. The user approved. 6\" long",
                &["27\" wide. ", "The user approved. ", "6\" long"],
            ),
            ("lines split", "one\ntwo", &["one\n", "two"]),
            (
                "hard wrap joins",
                "The user decided\n  to ship. Next",
                &["The user decided\n  to ship. ", "Next"],
            ),
            (
                "the user wrap",
                "We asked the user\nand they agreed.",
                &["We asked the user\nand they agreed."],
            ),
            (
                "abbreviation",
                "Ask Dr. Smith first.",
                &["Ask Dr. Smith first."],
            ),
            (
                "full-width question",
                "Should we delete?",
                &["Should we delete?"],
            ),
        ];
        for (name, input, want) in cases {
            assert_eq!(pieces(input), *want, "case {name}");
        }
    }

    #[test]
    fn logical_line_cases() {
        let cases: &[(&str, &str, usize)] = &[
            ("list items stay separate", "- a\n  - b\n", 2),
            ("indent 4 is not a wrap", "a\n    code\n", 2),
            ("blank line", "a\n\n  b\n", 3),
            ("wrap", "a\n b\n  c\n   d\n", 1),
            ("the user wrap", "told the user\nsomething", 1),
            ("theuser no", "told xthe user\nsomething", 2),
            (
                "the boss wrap",
                "after the review the boss\nruled it out",
                1,
            ),
            ("zh subject wrap", "会上老板\n拍板了", 1),
            ("boss inside a word", "the bigboss\nsomething", 2),
        ];
        for (name, input, want) in cases {
            assert_eq!(logical_lines(input).len(), *want, "case {name}");
        }
    }

    proptest! {
        #[test]
        fn sentences_partition_input(s in ".{0,120}") {
            let spans = sentences(&s);
            let mut at = 0;
            for span in &spans {
                prop_assert_eq!(span.start, at);
                prop_assert!(s.get(span.range()).is_some());
                prop_assert!(!span.is_empty());
                at = span.end;
            }
            prop_assert_eq!(at, s.len());
        }

        #[test]
        fn sentences_same_as_reference(s in "[a-zA-Z .!?;\"“”「」『』。！？；’')\n 0-9(]{0,120}|(e\\.g\\.|Dr\\.|DR\\.|vs\\.|x\\.|\\. |“|”|\")*") {
            prop_assert_eq!(sentences(&s), sentences_reference(&s));
        }

        #[test]
        fn sentences_same_as_reference_any(s in ".{0,120}") {
            prop_assert_eq!(sentences(&s), sentences_reference(&s));
        }

        #[test]
        fn sentences_partition_prose(s in "[a-zA-Z .!?;\"“”。！？；\n 0-9]{0,120}") {
            let joined: String = sentences(&s).iter().map(|sp| &s[sp.range()]).collect();
            prop_assert_eq!(joined, s);
        }
    }
}
