//! Preview redaction for audit artifacts.
//!
//! A labelled secret value becomes `****`; a bare credential is masked with
//! [`palisade_common::mask::mask_secret`], keeping only the prefix that names
//! its kind (`AKIA…****`). No preview ever shows a usable credential. Three sources of secrets are recognised:
//!
//! - **labels** followed by a separator: `password: …`, `api_key=…`,
//!   identifiers ending in `_key`/`_token`/`_secret` (`STRIPE_SECRET_KEY='…'`,
//!   a quoted value is masked up to its closing quote),
//!   `token：…`, `密码：…`, `口令=…`, `令牌: …`, `暗号是…`, `密钥 …`. After
//!   `is`/`是`/`为` the value is masked only when it looks like a secret
//!   (English: has a digit, a symbol or inner capitals; Chinese: is not a
//!   question word), so "the password is required" and "forgot my password
//!   again" stay readable;
//! - **headers**: `Authorization: Bearer …`, `Authorization: Basic …`,
//!   `Cookie:`/`Set-Cookie:` values, and a bare `Bearer <token>`;
//! - **bare credentials**: `sk-…`, `ghp_…`, `github_pat_…`, `AKIA…`, Slack
//!   `xox?-…`, Google `AIza…`, JWTs, PEM private keys, passwords in URLs.
//!
//! In JSON, the value of a key such as `password`, `api_key`, `client_secret`
//! or `Authorization` is masked whatever its type; keys that merely contain
//! such a word (`tokens_used`, `session_id`, `secretary`) are not.
//!
//! Redaction is idempotent: masked values are left alone on a second pass.

use palisade_common::mask::{mask_secret, preview_line};
use regex::Regex;
use serde_json::Value;
use std::sync::LazyLock;

/// Text longer than this is cut before redaction when only a preview is
/// wanted; the cut lies far beyond any preview limit.
/// What a labelled secret value becomes.
pub const MASK: &str = "****";

const PREVIEW_WORK_CHARS: usize = 8192;

struct Patterns {
    label: Regex,
    auth: Regex,
    bearer: Regex,
    basic: Regex,
    bare: Vec<Regex>,
    url_cred: Regex,
    /// One cheap scan that every secret-bearing text matches; texts that do
    /// not match skip the other passes.
    trigger: Regex,
}

// ASCII word boundaries (`(?-u:\b)`) keep every pattern on the fast DFA
// engines even when the text holds non-ASCII (Unicode `\b` does not).
static PATTERNS: LazyLock<Patterns> = LazyLock::new(|| {
    // The patterns are constants checked by the tests below; a failure to
    // compile them is a programming error caught by every test run.
    #[allow(clippy::expect_used)] // invariant: constant patterns compile (tested)
    let re = |p: &str| Regex::new(p).expect("built-in redaction pattern compiles");
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
        bearer: re(r"(?i)(?-u:\b)bearer[ \t]+(?P<value>[A-Za-z0-9._~+/=\-]{8,})"),
        basic: re(r"(?i)(?-u:\b)basic[ \t]+(?P<value>[A-Za-z0-9+/]{12,}={0,2})"),
        bare: vec![
            re(r"(?-u:\b)sk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_\-]{20,}"),
            re(r"(?-u:\b)gh[pousr]_[A-Za-z0-9]{30,}"),
            re(r"(?-u:\b)github_pat_[A-Za-z0-9_]{30,}"),
            re(r"(?-u:\b)(?:AKIA|ASIA)[A-Z0-9]{16}(?-u:\b)"),
            re(r"(?-u:\b)xox[baprs]-[A-Za-z0-9\-]{10,}"),
            re(r"(?-u:\b)AIza[0-9A-Za-z_\-]{35}"),
            re(r"(?-u:\b)eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
            re(
                r"-----BEGIN [A-Z ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z ]*PRIVATE KEY-----|\z)",
            ),
        ],
        url_cred: re(r"(?-u:\b)[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@]+:(?P<value>[^\s/@]+)@"),
        trigger: re(concat!(
            r"(?i:key|secret|token|passw|passcode|passphrase|pwd|cookie|authorization|bearer|basic)",
            r"|密码|口令|令牌|暗号|密钥|秘钥|sk-|gh[pousr]_|github_pat_|AKIA|ASIA|xox[baprs]-|AIza|eyJ",
            r"|-----BEGIN|://[^\s:/@]+:"
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
/// assert_eq!(redact_text("key AKIAIOSFODNN7EXAMPLE"), "key AKIA…****");
/// ```
pub fn redact_text(text: &str) -> String {
    let p = &*PATTERNS;
    if !p.trigger.is_match(text) {
        return text.to_owned();
    }
    // (start, end, keep a recognisable prefix): labelled values are masked
    // whole, bare credentials keep the prefix that names their kind.
    let mut hits: Vec<(usize, usize, bool)> = Vec::new();
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
            hits.push((start, end, false));
        }
    }
    for re in [&p.auth, &p.bearer, &p.basic, &p.url_cred] {
        for caps in re.captures_iter(text) {
            if let Some(v) = caps.name("value") {
                let (s, e) = trim_value(text, v.start(), v.end());
                let val = &text[s..e];
                let strict = std::ptr::eq(re, &p.bearer) || std::ptr::eq(re, &p.basic);
                if !val.is_empty() && !is_masked(val) && (!strict || looks_token(val)) {
                    hits.push((s, e, false));
                }
            }
        }
    }
    for re in &p.bare {
        for m in re.find_iter(text) {
            hits.push((m.start(), m.end(), true));
        }
    }
    if hits.is_empty() {
        return text.to_owned();
    }
    hits.sort_unstable();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (s, e, prefix) in hits {
        if s < at {
            continue; // overlaps a span already masked
        }
        out.push_str(&text[at..s]);
        if prefix {
            out.push_str(&mask_secret(&text[s..e]));
        } else {
            out.push_str(MASK);
        }
        at = e;
    }
    out.push_str(&text[at..]);
    out
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

/// A bearer/basic token, not a word of prose ("bearer authentication").
fn looks_token(v: &str) -> bool {
    v.chars().any(|c| c.is_ascii_digit())
        || v.contains(['.', '_', '-', '~', '+', '/', '='])
        || v.len() >= 24
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
/// A string holding JSON is parsed and redacted structurally; whitespace runs
/// collapse to one space; the cut (with `…`) happens after redaction.
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
                    redact_value(&v).to_string()
                }
                _ => redact_text(&cut_chars(s, PREVIEW_WORK_CHARS.max(limit * 4))),
            }
        }
        other => redact_value(other).to_string(),
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
    let cut = cut_chars(text, PREVIEW_WORK_CHARS.max(limit * 4));
    preview_line(&collapse_whitespace(&redact_text(&cut)), limit)
}

fn cut_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => s[..i].to_owned(),
        None => s.to_owned(),
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
