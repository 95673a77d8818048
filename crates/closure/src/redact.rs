//! Preview redaction for audit artifacts.
//!
//! Two layers, so no preview ever shows a usable credential:
//!
//! - **the secret catalogue** ([`palisade_secrets`], the same rules that
//!   `palisade check secrets` and the egress guard use, read with
//!   [`SecretScanner::redact_quoted`] so a config line quoted after a colon
//!   counts as a line start): every credential it finds is replaced by its
//!   masked preview, keeping only the prefix that names its kind
//!   (`AKIA…****`, `ghp_…****`);
//! - **closure's own labels** on top, because a review candidate quotes the
//!   user's prose, where a secret is named rather than formatted: a value
//!   after a label and a separator becomes `****` whatever it looks like —
//!   `password: …`, `api_key=…`, identifiers ending in
//!   `_key`/`_token`/`_secret` (`STRIPE_SECRET_KEY='…'`, a quoted value is
//!   masked up to its closing quote), `token：…`, `密码：…`, `口令=…`,
//!   `令牌: …`, `暗号是…`, `密钥 …`, and `Authorization:` / `Cookie:`
//!   header values. After `is`/`是`/`为` the value is masked only when it
//!   looks like a secret (English: has a digit, a symbol or inner capitals;
//!   Chinese: is not a question word), so "the password is required" and
//!   "forgot my password again" stay readable.
//!
//! Where both layers find something, the union of their spans becomes
//! `****`. In JSON, the value of a key such as `password`, `api_key`,
//! `client_secret` or `Authorization` is masked whatever its type; keys that
//! merely contain such a word (`tokens_used`, `session_id`, `secretary`) are
//! not.
//!
//! Redaction is idempotent: masked values are left alone on a second pass,
//! and a text is redacted again until nothing changes (a mask can change
//! what a context rule reads around it), at most [`MAX_ROUNDS`] times.

use palisade_common::mask::preview_line;
use palisade_common::pattern::Pattern;
use palisade_secrets::SecretScanner;
use serde_json::Value;
use std::ops::Range;
use std::sync::LazyLock;

/// What a labelled secret value becomes.
pub const MASK: &str = "****";

/// Redaction passes over one text before it is returned: the first masks
/// what both layers find, later ones only what an earlier mask exposed
/// (none in practice; the bound keeps a crafted text from looping).
pub const MAX_ROUNDS: usize = 4;

/// Text longer than this is cut before redaction when only a preview is
/// wanted; the cut lies far beyond any preview limit.
const PREVIEW_WORK_CHARS: usize = 8192;

/// Each compiled on first use, in the form the text needs (most texts
/// stop at the trigger, and pay for nothing else).
struct Patterns {
    label: Pattern,
    auth: Pattern,
    /// One cheap scan that every labelled text matches; texts that do not
    /// match skip the label passes.
    trigger: Pattern,
}

// ASCII word boundaries (`(?-u:\b)`) keep every pattern on the fast DFA
// engines even when the text holds non-ASCII (Unicode `\b` does not).
static PATTERNS: LazyLock<Patterns> = LazyLock::new(|| {
    // Constants the tests below compile (`patterns_compile`).
    let re = |p: &str| Pattern::lazy(p);
    Patterns {
        label: re(concat!(
            r"(?i)(?P<label>(?-u:\b)(?:[a-z0-9_\-]*(?:api[_\- ]?key|access[_\- ]?key|secret[_\- ]?key|",
            r"client[_\- ]?secret|private[_\- ]?key|access[_\- ]?token|refresh[_\- ]?token|auth[_\- ]?token|",
            r"_key|_token|_secret|_password|_pass|secret|token|password|passwd|passcode|passphrase|pwd|cookie))",
            r"(?-u:\b)|密码|口令|令牌|暗号|密钥|秘钥)",
            r#"(?P<sep>[ \t]*(?:=>|:=|[:=：])[ \t]*["'`]?|[ \t]+["'`]|[ \t]+(?:is|was)[ \t]+|[ \t]*(?:是|为)[ \t]*)"#,
            r#"(?P<value>[^\s,，;；"'`}\]。！!？?、]+)"#
        )),
        auth: re(concat!(
            r"(?i)(?-u:\b)(?:proxy-)?authorization(?-u:\b)[ \t]*[:=：][ \t]*",
            r"(?:(?:bearer|basic|token|digest)[ \t]+)?(?P<value>[^\s,;]+)"
        )),
        trigger: re(concat!(
            r"(?i:key|secret|token|pass|pwd|cookie|authorization)",
            r"|密码|口令|令牌|暗号|密钥|秘钥"
        )),
    }
});

/// Mask secrets in free text.
///
/// ```
/// use palisade_closure::redact::redact_text;
/// assert_eq!(redact_text("password: hunter2"), "password: ****");
/// assert_eq!(redact_text("暗号: PUBLIC-TEST-CODE"), "暗号: ****");
/// assert_eq!(redact_text("密码是abc12345"), "密码是****");
/// assert_eq!(redact_text("Authorization: Bearer abcdefghijklmnop1234"), "Authorization: Bearer ****");
/// assert_eq!(redact_text("I forgot my password again"), "I forgot my password again");
/// assert_eq!(redact_text("the password is required"), "the password is required");
/// assert_eq!(redact_text("key AKIAZ7QPMX3RWB5TLN2K"), "key AKIA…****");
/// // Anything `palisade check secrets` masks, closure masks too.
/// assert_eq!(redact_text("npm i --token npm_R8aWq2LmZ0xT5vNcK7pB3yHd9JfE1sUgQ4iO"), "npm i --token npm_…****");
/// ```
pub fn redact_text(text: &str) -> String {
    let mut out = redact_once(text);
    for _ in 1..MAX_ROUNDS {
        let next = redact_once(&out);
        if next == out {
            break;
        }
        out = next;
    }
    out
}

/// The given ranges of `text`, joined by a space, with every secret found in
/// the *whole* text masked — so a secret that spans lines or sentence ends is
/// masked even when only part of it lies in a range. Ranges are clamped to
/// the text and to `char` boundaries; a mask that straddles a range's edge
/// is shown once, in the first range it reaches.
///
/// ```
/// use palisade_closure::redact::redact_ranges;
/// let t = "Always use this key.\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----";
/// let body = t.find("MIIE").unwrap();
/// let out = redact_ranges(t, &[0..20, body..body + 32]);
/// assert!(!out.contains("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"), "{out}");
/// assert!(out.starts_with("Always use this key. "));
/// ```
pub fn redact_ranges(text: &str, ranges: &[Range<usize>]) -> String {
    let masks = masks(text);
    let mut shown = vec![false; masks.len()];
    let mut pieces: Vec<String> = Vec::with_capacity(ranges.len());
    for r in ranges {
        let start = floor_boundary(text, r.start.min(text.len()));
        let end = floor_boundary(text, r.end.min(text.len())).max(start);
        let mut piece = String::with_capacity(end - start);
        let mut at = start;
        for (i, m) in masks.iter().enumerate() {
            if m.end <= at || m.start >= end {
                continue;
            }
            if m.start > at {
                piece.push_str(&text[at..m.start]);
            }
            if !shown[i] {
                piece.push_str(&m.with);
                shown[i] = true;
            }
            at = m.end.min(end).max(at);
        }
        if at < end {
            piece.push_str(&text[at..end]);
        }
        pieces.push(piece);
    }
    pieces.join(" ")
}

/// One pass of both layers over `text`.
fn redact_once(text: &str) -> String {
    let masks = masks(text);
    if masks.is_empty() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for m in &masks {
        out.push_str(&text[at..m.start]);
        out.push_str(&m.with);
        at = m.end;
    }
    out.push_str(&text[at..]);
    out
}

/// A span of the text to replace, and what replaces it.
struct Mask {
    start: usize,
    end: usize,
    with: String,
}

/// Every masked span of `text`, sorted and disjoint: the catalogue's
/// findings (their masked previews) and the label values (`****`);
/// overlapping spans merge into one `****`.
fn masks(text: &str) -> Vec<Mask> {
    // `redact_quoted`: a user quotes config lines and commands after a lead-in
    // of prose, where the plain scan would not read them as a line start.
    let mut hits: Vec<Mask> = SecretScanner::builtin()
        .redact_quoted(text)
        .findings
        .into_iter()
        .map(|f| Mask {
            start: f.span.start,
            end: f.span.end,
            with: f.preview,
        })
        .collect();
    label_hits(text, &mut hits);
    hits.sort_unstable_by_key(|m| (m.start, std::cmp::Reverse(m.end)));
    let mut merged: Vec<Mask> = Vec::with_capacity(hits.len());
    for m in hits {
        match merged.last_mut() {
            Some(last) if m.start < last.end => {
                last.end = last.end.max(m.end);
                if last.with != MASK {
                    last.with = MASK.to_owned();
                }
            }
            _ => merged.push(m),
        }
    }
    merged
}

/// Closure's own layer: values after a secret-naming label or an
/// `Authorization:` header, masked whole.
fn label_hits(text: &str, hits: &mut Vec<Mask>) {
    let p = &*PATTERNS;
    if !p.trigger.is_match(text) {
        return;
    }
    let mut push = |start: usize, end: usize| {
        hits.push(Mask {
            start,
            end,
            with: MASK.to_owned(),
        })
    };
    for caps in p.label.captures_iter(text) {
        let (Some(value), Some(sep)) = (caps.name("value"), caps.name("sep")) else {
            continue;
        };
        let (start, mut end) = trim_value(text, value.start(), value.end());
        // A quoted value runs to its closing quote (on the same line, within
        // 512 bytes), so "correct horse battery" is masked whole.
        if let Some(q) = sep
            .as_str()
            .chars()
            .last()
            .filter(|c| matches!(c, '"' | '\'' | '`'))
        {
            let rest = &text[start..];
            let limit = rest.len().min(512);
            if let Some(close) = rest
                .char_indices()
                .take_while(|(i, _)| *i < limit)
                .find_map(|(i, c)| {
                    if c == q || c == '\n' {
                        Some((i, c))
                    } else {
                        None
                    }
                })
            {
                if close.1 == q {
                    end = start + close.0;
                }
            }
        }
        let v = &text[start..end];
        if v.is_empty() || is_masked(v) {
            continue;
        }
        let raw_sep = sep.as_str();
        let sep = raw_sep.trim();
        // A `:`/`=` separator, or a quoted value, is an assignment: mask it.
        let hard = sep.contains([':', '=', '：']) || sep.starts_with(['"', '\'', '`']);
        let keep = if hard {
            true
        } else if sep == "是" || sep == "为" {
            !["多少", "什么", "啥", "哪个", "空", "必填"]
                .iter()
                .any(|q| v.starts_with(q))
        } else if sep.is_empty() {
            // An English label followed only by spaces: prose, unless the value
            // is unmistakably a credential.
            looks_secret(v) && v.chars().count() >= 8
        } else {
            looks_secret(v)
        };
        if keep {
            push(start, end);
        }
    }
    for caps in p.auth.captures_iter(text) {
        if let Some(v) = caps.name("value") {
            let (s, e) = trim_value(text, v.start(), v.end());
            let val = &text[s..e];
            if !val.is_empty() && !is_masked(val) {
                push(s, e);
            }
        }
    }
}

/// The largest `char` boundary of `text` at or below `at`.
fn floor_boundary(text: &str, mut at: usize) -> usize {
    while at > 0 && !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Drop trailing sentence punctuation from a value span.
fn trim_value(text: &str, start: usize, end: usize) -> (usize, usize) {
    let v = text[start..end].trim_end_matches(['.', ':', ')', '(', '>', '`']);
    (start, start + v.len())
}

fn is_masked(v: &str) -> bool {
    v.ends_with("****") || v == "[REDACTED]"
}

/// English value shape of a secret: a digit, a symbol, or a capital after the
/// first letter; at least four characters.
fn looks_secret(v: &str) -> bool {
    v.chars().count() >= 4
        && (v.chars().any(|c| c.is_ascii_digit())
            || v.chars().any(|c| !c.is_alphanumeric())
            || v.chars().skip(1).any(char::is_uppercase))
}

/// Whether a JSON key names a secret value.
///
/// ```
/// use palisade_closure::redact::is_sensitive_key;
/// assert!(is_sensitive_key("password"));
/// assert!(is_sensitive_key("clientSecret"));
/// assert!(is_sensitive_key("Authorization"));
/// assert!(is_sensitive_key("暗号"));
/// assert!(!is_sensitive_key("tokens_used"));
/// assert!(!is_sensitive_key("session_id"));
/// assert!(!is_sensitive_key("secretary"));
/// assert!(!is_sensitive_key("token_count"));
/// ```
pub fn is_sensitive_key(key: &str) -> bool {
    let k = key.trim();
    if ["暗号", "密码", "口令", "令牌", "密钥", "秘钥"]
        .iter()
        .any(|z| k.contains(z))
    {
        return true;
    }
    // Split snake, kebab, spaces and camelCase into lower-case words.
    let mut words: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in k.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    let Some(last) = words.last() else {
        return false;
    };
    if matches!(
        last.as_str(),
        "count"
            | "used"
            | "limit"
            | "type"
            | "len"
            | "length"
            | "expires"
            | "expiry"
            | "ttl"
            | "name"
            | "id"
            | "ids"
            | "url"
            | "path"
            | "file"
            | "hint"
            | "policy"
            | "required"
            | "set"
            | "at"
    ) {
        return false;
    }
    let joined = words.concat();
    words.iter().any(|w| {
        matches!(
            w.as_str(),
            "password"
                | "passwd"
                | "passcode"
                | "passphrase"
                | "pwd"
                | "secret"
                | "token"
                | "apikey"
                | "authorization"
                | "cookie"
                | "credential"
                | "credentials"
                | "privatekey"
        )
    }) || ["apikey", "accesskey", "privatekey", "setcookie"]
        .iter()
        .any(|j| joined.contains(j))
}

/// Mask secrets inside a JSON value: sensitive keys' values are masked
/// whole, strings elsewhere go through [`redact_text`].
///
/// ```
/// use palisade_closure::redact::redact_value;
/// use serde_json::json;
/// let v = redact_value(&json!({"token":"public-test-token","tokens_used":5,"note":"暗号: X1"}));
/// assert_eq!(v, json!({"token":"****","tokens_used":5,"note":"暗号: ****"}));
/// ```
pub fn redact_value(value: &Value) -> Value {
    redact_value_depth(value, 0)
}

fn redact_value_depth(value: &Value, depth: usize) -> Value {
    if depth > 64 {
        return Value::String("****".into());
    }
    match value {
        Value::String(s) => Value::String(redact_text(s)),
        Value::Array(a) => {
            Value::Array(a.iter().map(|v| redact_value_depth(v, depth + 1)).collect())
        }
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| {
                    let v = if is_sensitive_key(k) {
                        match v {
                            Value::Null => Value::Null,
                            Value::String(s) if is_masked(s) => v.clone(),
                            Value::String(_) => Value::String(MASK.into()),
                            _ => Value::String("****".into()),
                        }
                    } else {
                        redact_value_depth(v, depth + 1)
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// A one-line redacted preview of any value, at most `limit` characters.
///
/// A string holding JSON is parsed and redacted structurally, then its
/// serialized form is redacted as text too (a rule may need the key beside a
/// value); whitespace runs collapse to one space; the cut (with `…`) happens
/// after redaction.
///
/// ```
/// use palisade_closure::redact::preview;
/// use serde_json::json;
/// let p = preview(&json!({"token":"public-test-token","nested":{"Authorization":"Bearer public-test-bearer"},"note":"暗号: PUBLIC-TEST-CODE"}), 220);
/// assert!(!p.contains("public-test-token") && !p.contains("public-test-bearer") && !p.contains("PUBLIC-TEST-CODE"));
/// assert_eq!(preview(&json!("a\n\n  b"), 220), "a b");
/// ```
pub fn preview(value: &Value, limit: usize) -> String {
    let text = match value {
        Value::Null => String::new(),
        Value::String(s) => {
            let t = s.trim();
            let looks_json = (t.starts_with('{') || t.starts_with('['))
                && (t.ends_with('}') || t.ends_with(']'));
            match looks_json.then(|| serde_json::from_str::<Value>(t)) {
                Some(Ok(v)) if t.len() <= crate::detect::MAX_PARSE_BYTES => {
                    redact_text(&redact_value(&v).to_string())
                }
                _ => redact_prefix(s, PREVIEW_WORK_CHARS.max(limit * 4)),
            }
        }
        other => redact_text(&redact_value(other).to_string()),
    };
    preview_line(&collapse_whitespace(&text), limit)
}

/// A redacted preview of plain text (see [`preview`]).
///
/// ```
/// use palisade_closure::redact::preview_text;
/// assert_eq!(preview_text("token = abc123xyz", 50), "token = ****");
/// ```
pub fn preview_text(text: &str, limit: usize) -> String {
    let red = redact_prefix(text, PREVIEW_WORK_CHARS.max(limit * 4));
    preview_line(&collapse_whitespace(&red), limit)
}

/// The first `max` characters of `s`, redacted. When the cut splits a word,
/// that word is dropped after redaction: half a credential may no longer
/// look like one, and its first half must not show. (A single word longer
/// than `max` is kept from its start: its cut end lies far beyond any
/// preview limit.)
fn redact_prefix(s: &str, max: usize) -> String {
    let Some((i, _)) = s.char_indices().nth(max) else {
        return redact_text(s);
    };
    let red = redact_text(&s[..i]);
    let splits_word =
        !s[i..].starts_with(char::is_whitespace) && !s[..i].ends_with(char::is_whitespace);
    match red.rfind(char::is_whitespace) {
        Some(w) if splits_word => red[..w].to_owned(),
        _ => red,
    }
}

/// Collapse every whitespace run to one space and trim.
///
/// ```
/// use palisade_closure::redact::collapse_whitespace;
/// assert_eq!(collapse_whitespace("  a \t b\n"), "a b");
/// ```
pub fn collapse_whitespace(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_compile_and_are_idempotent() {
        let p = &*PATTERNS;
        assert!(p.label.compiles() && p.auth.compiles() && p.trigger.compiles());
        let samples = [
            "password: hunter2, token=abc123",
            "set-cookie: a=b; Path=/",
            "curl https://alice:s3cret@example.com/x",
            "Authorization: Basic dXNlcjpwYXNzd29yZA==",
            "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----",
            "口令：芝麻开门 令牌=abc",
            "ghp_abcdefghijklmnopqrstuvwxyz0123456789 and sk-abcdefghijklmnopqrstuvwxyz",
        ];
        for s in samples {
            let once = redact_text(s);
            assert_ne!(once, s, "{s}");
            assert_eq!(redact_text(&once), once, "{s}");
        }
        assert_eq!(
            redact_text("set-cookie: a=b; Path=/"),
            "set-cookie: ****; Path=/"
        );
        assert_eq!(redact_text("basic auth is fine"), "basic auth is fine");
        assert_eq!(
            redact_text("this session was great"),
            "this session was great"
        );
        assert_eq!(redact_text("tokens: 5"), "tokens: 5");
        assert_eq!(redact_text("密码是多少？"), "密码是多少？");
    }
}
