//! PowerShell string folding: names and paths assembled from literals.
//!
//! ## What it does
//! Folds what a reader of the command line cannot see at once: a
//! parenthesized concatenation of string literals (`('Remo'+'ve-It'+'em')`)
//! becomes one literal, an environment variable joined with a literal
//! (`($env:USERPROFILE+'\Documents')`) becomes the path it names, a
//! variable assigned such a string (`$c=('Remo'+'ve-It'+'em')`) is replaced
//! where it is invoked (`& $c`, `iex $c`), and a literal invoked with the
//! call operator (`& 'Remove-Item'`) reads as the command itself. The tool
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
    if !text.contains('+') {
        return None;
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
    (invoked != text).then(|| invoked.into_owned())
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
        assert_eq!(fold("$x = 1 + 2"), None);
    }
}
