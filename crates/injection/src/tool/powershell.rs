//! PowerShell string folding: names and paths assembled from literals.
//!
//! ## What it does
//! Folds what a reader of the command line cannot see at once: a
//! parenthesized concatenation of string literals (`('Remo'+'ve-It'+'em')`)
//! becomes one literal, an environment variable joined with a literal
//! (`($env:USERPROFILE+'\Documents')`) becomes the path it names, a
//! variable assigned such a string (`$c=('Remo'+'ve-It'+'em')`) is replaced
//! where it is invoked (`& $c`, `iex $c`), a literal invoked with the
//! call operator (`& 'Remove-Item'`) reads as the command itself, and a
//! `foreach ($t in $ts) { … }` over an array of literals is unrolled (the
//! body once per item, `$t` replaced). The tool
//! guard runs its PowerShell rules over the folded text.
//!
//! ## Why
//! `& ('Remo'+'ve-It'+'em') -Recurse -Force -Path ('C:'+'\')` deletes the
//! drive; no pattern over the raw text names `Remove-Item` or `C:\`.
//!
//! ## Limits
//! Literals only (no format operators, `-join`, char codes); at most
//! [`MAX_VARS`] variables. Linear: each step is one regex pass.

use regex::{Captures, Regex};
use std::collections::HashMap;
use std::sync::OnceLock;

/// Most variables remembered.
const MAX_VARS: usize = 16;

/// A quoted literal: `'…'` or `"…"` without expansion inside.
const LITERAL: &str = r#"(?:'[^'\n]*'|"[^"$`\n]*")"#;

/// The four folding patterns; `None` only if one failed to compile (the
/// test below compiles them).
fn regexes() -> Option<&'static [Regex; 4]> {
    static RE: OnceLock<Option<[Regex; 4]>> = OnceLock::new();
    RE.get_or_init(|| {
        let compile = |p: String| Regex::new(&p).ok();
        Some([
            // ('a' + 'b' + …)
            compile(format!(r"\(\s*({LITERAL}(?:\s*\+\s*{LITERAL})+)\s*\)"))?,
            // ($env:NAME + 'rest')
            compile(format!(
                r"(?i)\(\s*(\$env:[a-z_][a-z0-9_]*)\s*\+\s*({LITERAL})\s*\)"
            ))?,
            // $name = 'literal'
            compile(format!(r"(?i)\$([a-z_][a-z0-9_]*)\s*=\s*({LITERAL})"))?,
            // & 'literal' / & $name / iex $name
            compile(format!(
                r"(?i)(?:&|\biex\b|\binvoke-expression\b)\s*(?:({LITERAL})|\$([a-z_][a-z0-9_]*)\b)"
            ))?,
        ])
    })
    .as_ref()
}

fn unquote(lit: &str) -> &str {
    lit.get(1..lit.len().saturating_sub(1)).unwrap_or("")
}

/// The concatenated contents of `'a' + "b" + …`.
fn join_literals(list: &str) -> String {
    let mut out = String::new();
    let mut rest = list;
    while let Some(start) = rest.find(['\'', '"']) {
        let quote = &rest[start..start + 1];
        let Some(len) = rest[start + 1..].find(quote) else {
            break;
        };
        out.push_str(&rest[start + 1..start + 1 + len]);
        rest = &rest[start + len + 2..];
    }
    out
}

/// `text` with PowerShell string assembly folded, or `None` when there is
/// nothing to fold.
///
/// ```text
/// & ('Remo'+'ve-It'+'em') -Recurse -Path ('C:'+'\')  →  Remove-Item -Recurse -Path 'C:\'
/// ```
pub(crate) fn fold(text: &str) -> Option<String> {
    let looped = unroll_foreach(text);
    let text = looped.as_deref().unwrap_or(text);
    if !text.contains('+') {
        return looped;
    }
    let [concat, env_join, assign, invoke] = regexes()?;
    let joined = concat.replace_all(text, |c: &Captures<'_>| {
        format!("'{}'", join_literals(&c[1]))
    });
    let joined = env_join.replace_all(&joined, |c: &Captures<'_>| {
        format!("{}{}", &c[1], unquote(&c[2]))
    });
    let mut vars: HashMap<String, String> = HashMap::new();
    for c in assign.captures_iter(&joined).take(MAX_VARS) {
        vars.insert(c[1].to_ascii_lowercase(), unquote(&c[2]).to_owned());
    }
    let invoked = invoke.replace_all(&joined, |c: &Captures<'_>| match (c.get(1), c.get(2)) {
        (Some(lit), _) => unquote(lit.as_str()).to_owned(),
        (None, Some(name)) => vars
            .get(&name.as_str().to_ascii_lowercase())
            .cloned()
            .unwrap_or_else(|| c[0].to_owned()),
        _ => c[0].to_owned(),
    });
    if invoked == text {
        return looped;
    }
    Some(invoked.into_owned())
}

/// Most loop bodies unrolled, items per array, and bytes per body.
const MAX_LOOPS: usize = 4;
const MAX_ITEMS: usize = 16;
const MAX_BODY: usize = 2048;

/// `$ts = @("$env:USERPROFILE\Documents", …)` … `foreach ($t in $ts) { … $t … }`:
/// the text with each loop body appended once per item, the loop variable
/// replaced by the item, or `None` when there is no such loop.
fn unroll_foreach(text: &str) -> Option<String> {
    if !text.to_ascii_lowercase().contains("foreach") {
        return None;
    }
    static RE: OnceLock<Option<[Regex; 2]>> = OnceLock::new();
    let [array, each] = RE
        .get_or_init(|| {
            Some([
                Regex::new(
                    r#"(?i)\$([a-z_][a-z0-9_]*)\s*=\s*@\(\s*((?:"[^"\n]*"|'[^'\n]*')(?:\s*,\s*(?:"[^"\n]*"|'[^'\n]*'))*)\s*\)"#,
                )
                .ok()?,
                Regex::new(r"(?i)\bforeach\s*\(\s*\$([a-z_][a-z0-9_]*)\s+in\s+\$([a-z_][a-z0-9_]*)\s*\)\s*\{").ok()?,
            ])
        })
        .as_ref()?;
    let mut arrays: HashMap<String, Vec<String>> = HashMap::new();
    for c in array.captures_iter(text).take(MAX_VARS) {
        let items = c[2]
            .split(',')
            .map(|i| unquote(i.trim()).to_owned())
            .take(MAX_ITEMS)
            .collect();
        arrays.insert(c[1].to_ascii_lowercase(), items);
    }
    let mut out = text.to_owned();
    let mut unrolled = false;
    for c in each.captures_iter(text).take(MAX_LOOPS) {
        let Some(items) = arrays.get(&c[2].to_ascii_lowercase()) else {
            continue;
        };
        let Some(whole) = c.get(0) else { continue };
        let rest = &text[whole.end()..];
        let mut depth = 1usize;
        let mut end = None;
        for (i, b) in rest.bytes().enumerate().take(MAX_BODY) {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else { continue };
        let body = &rest[..end];
        let var = format!("${}", &c[1]);
        for item in items {
            out.push('\n');
            out.push_str(&replace_var(body, &var, item));
        }
        unrolled = true;
    }
    unrolled.then_some(out)
}

/// `body` with the variable `var` (`$t`, case-insensitive, not a prefix of
/// a longer name) replaced by `value`.
fn replace_var(body: &str, var: &str, value: &str) -> String {
    let lower = body.to_ascii_lowercase();
    let needle = var.to_ascii_lowercase();
    let mut out = String::with_capacity(body.len());
    let mut last = 0;
    for (at, _) in lower.match_indices(&needle) {
        let after = lower.as_bytes().get(at + needle.len());
        if after.is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_') || at < last {
            continue;
        }
        out.push_str(&body[last..at]);
        out.push_str(value);
        last = at + needle.len();
    }
    out.push_str(&body[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_paths_fold() {
        assert!(regexes().is_some());
        assert_eq!(
            fold("& ('Remo'+'ve-It'+'em') -Recurse -Force -Path ('C:'+'\\')").as_deref(),
            Some("Remove-Item -Recurse -Force -Path 'C:\\'")
        );
        assert_eq!(
            fold("$c=('Remo'+'ve-It'+'em'); & $c -Recurse -Force ($env:USERPROFILE+'\\Documents')")
                .as_deref(),
            Some("$c='Remove-Item'; Remove-Item -Recurse -Force $env:USERPROFILE\\Documents")
        );
        assert_eq!(
            fold("Write-Host ('a' + 'b')").as_deref(),
            Some("Write-Host 'ab'")
        );
        assert_eq!(fold("Get-ChildItem -Recurse"), None);
        let unrolled = fold("$ts = @(\"$env:USERPROFILE\\Documents\", 'D:\\x')\nforeach ($t in $ts) { Remove-Item $t -Recurse; $tx }")
            .unwrap_or_default();
        assert!(unrolled.ends_with("\n Remove-Item $env:USERPROFILE\\Documents -Recurse; $tx \n Remove-Item D:\\x -Recurse; $tx "), "{unrolled}");
        assert_eq!(fold("foreach ($f in Get-ChildItem) { $f }"), None);
        assert_eq!(fold("$x = 1 + 2"), None);
    }
}
