//! The regex each cue rule is matched with, built from its data pattern and
//! its language. Shared with the build script, which parses and packs the
//! built-in rules' regexes at compile time (so a process parses none of them);
//! the tests compare the packed forms with a fresh parse.

/// How a language writes words.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) enum Script {
    /// Words separated by spaces: whole-word matching.
    Spaced,
    /// No spaces between words (Chinese, Japanese): matched as written.
    Unspaced,
}

/// The script of a rule's `lang` (`None`: a language the rules do not know).
pub(crate) fn script(lang: &str) -> Option<Script> {
    match lang {
        "en" | "es" | "pt" | "de" | "fr" => Some(Script::Spaced),
        "zh" | "ja" => Some(Script::Unspaced),
        _ => None,
    }
}

/// The regex a rule with `pattern` in `lang` is matched with, `None` for an
/// unknown language.
pub(crate) fn rule_source(lang: &str, pattern: &str) -> Option<String> {
    Some(match (lang, script(lang)?) {
        // ASCII word boundaries: Unicode `\b` forces the slow engine on
        // non-ASCII text, and CJK next to a Latin word is a boundary
        // either way.
        ("en", _) => format!(r"(?i)(?-u:\b)(?:{pattern})(?:(?-u:\b)|$)"),
        // Accented letters (é, ü, ç) are not ASCII word characters, so the
        // boundary is spelled out as "not a letter or digit" and the cue
        // itself is the `c` group. The class is written outside `(?i)`:
        // folding its 800 Unicode ranges is most of what compiling it would
        // cost. Folding would only add a few combining marks whose case
        // partner is a letter (U+0345 folds with ι); outside it they count
        // as the non-letters they are.
        (_, Script::Spaced) => format!(
            r"(?i)(?:^|(?-i:[^\p{{L}}\p{{N}}_]))(?P<c>(?:{pattern}))(?:(?-i:[^\p{{L}}\p{{N}}_])|$)"
        ),
        (_, Script::Unspaced) => format!("(?i)(?:{pattern})"),
    })
}
