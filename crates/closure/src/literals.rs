//! The literal prefixes of the cue rules' widened patterns, for the
//! whole-text prefilter of [`crate::cues`]. Shared with the build script,
//! which extracts them for the built-in rules at compile time (so a process
//! parses no cue pattern at start-up); the tests compare the two.

/// A cheap superset of `pattern` for the whole-text prefilter: anchors and
/// word boundaries dropped (they make no sense on the whole text), and every
/// character class (`\w`, `\S`, `\p{Han}`, `[^。]`, …) widened to "any
/// character". What is left is mostly literals, which keeps the set's
/// automaton small; a rule's own regex decides afterwards.
pub(crate) fn prefilter_pattern(pattern: &str) -> String {
    const ANY: &str = "(?s:.)";
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('b' | 'B') => {}
                Some('w' | 'W' | 's' | 'S' | 'd' | 'D') => out.push_str(ANY),
                Some('p' | 'P') => {
                    if chars.peek() == Some(&'{') {
                        for x in chars.by_ref() {
                            if x == '}' {
                                break;
                            }
                        }
                    } else {
                        chars.next();
                    }
                    out.push_str(ANY);
                }
                Some(x) => {
                    out.push('\\');
                    out.push(x);
                }
                None => out.push('\\'),
            },
            '[' => {
                // Skip to the class's closing bracket (a `]` right after the
                // opening `[` or `[^` is a literal, as is an escaped one).
                let mut first = true;
                while let Some(x) = chars.next() {
                    match x {
                        '\\' => {
                            chars.next();
                        }
                        '^' if first => continue,
                        ']' if !first => break,
                        _ => {}
                    }
                    first = false;
                }
                out.push_str(ANY);
            }
            '^' | '$' => {}
            '(' if chars.peek() == Some(&'?') => {
                // `(?-u:\b)`: a group of flags around a boundary; keep the
                // group, the boundary inside is dropped above.
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// The literal prefixes every match of the widened pattern `src` starts
/// with, ASCII lower-cased and cut before the first non-ASCII character
/// that has case variants (the search folds ASCII case only); `None` when
/// there is no finite set of non-empty prefixes.
pub(crate) fn prefix_literals(src: &str) -> Option<Vec<String>> {
    use regex_syntax::hir::literal::{ExtractKind, Extractor};
    // Case-sensitive parse: the search is case-insensitive itself, so the
    // case variants the `(?i)` flag would spell out add nothing.
    let hir = regex_syntax::ParserBuilder::new().build().parse(src).ok()?;
    let mut ex = Extractor::new();
    ex.kind(ExtractKind::Prefix)
        .limit_class(8)
        .limit_repeat(4)
        .limit_literal_len(16)
        .limit_total(256);
    let seq = ex.extract(&hir);
    let mut out = Vec::new();
    for lit in seq.literals()? {
        let text = String::from_utf8_lossy(lit.as_bytes());
        let cut: String = text
            .chars()
            .take_while(|&c| c != '\u{FFFD}' && (c.is_ascii() || !has_case_variants(c)))
            .map(|c| c.to_ascii_lowercase())
            .collect();
        // A literal may end inside a multi-byte character (a length limit):
        // it is read up to there. Cut to nothing, it leaves no prefix.
        if cut.is_empty() {
            return None;
        }
        out.push(cut);
    }
    (!out.is_empty()).then_some(out)
}

/// Whether `(?i)` lets `c` match another character (simple case folding,
/// as the regex crate does it).
pub(crate) fn has_case_variants(c: char) -> bool {
    let mut class =
        regex_syntax::hir::ClassUnicode::new([regex_syntax::hir::ClassUnicodeRange::new(c, c)]);
    class.case_fold_simple();
    class
        .ranges()
        .iter()
        .map(|r| r.end() as u32 - r.start() as u32 + 1)
        .sum::<u32>()
        > 1
}
