//! Candidate filters: placeholders, structure checks, credential-assignment
//! values, Hermes markers.

use super::{Check, SecretRule, Tier};
use aho_corasick::AhoCorasick;
use palisade_common::Span;
use std::sync::OnceLock;

/// Whether `haystack` contains any of `words`, ASCII case-insensitively,
/// with one automaton per word list built on first use.
fn contains_any(
    cell: &'static OnceLock<Option<AhoCorasick>>,
    words: &[&str],
    haystack: &str,
) -> bool {
    let automaton = cell.get_or_init(|| {
        AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(words)
            .ok()
    });
    match automaton {
        Some(a) => a.is_match(haystack),
        // Building only fails for pattern sets too large for the
        // automaton's state ids, never for these short word lists; were it
        // to fail, the plain search gives the same answer.
        None => {
            let lower = haystack.to_ascii_lowercase();
            words.iter().any(|w| lower.contains(w))
        }
    }
}

/// Whether `value` is a placeholder, a documentation example or an already
/// masked value rather than a secret: `<your-api-key>`, `sk-...`, `xxxx`,
/// `${TOKEN}`, `AKIAIOSFODNN7EXAMPLE`, `ghp_…****`, `********`, `changeme`.
///
/// Documentation example keys (AWS's `…EXAMPLE` keys and the like) are
/// treated as placeholders: they are published on purpose and flagging them
/// would make every tutorial a finding.
///
/// ```
/// use palisade_secrets::is_placeholder;
/// assert!(is_placeholder("<your-api-key>"));
/// assert!(is_placeholder("sk-..."));
/// assert!(is_placeholder("AKIAIOSFODNN7EXAMPLE"));
/// assert!(is_placeholder("ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"));
/// assert!(is_placeholder("AKIA…****"));
/// assert!(!is_placeholder("ghp_R8aWq2LmZ0xT5vNcK7pB3yHd9JfE1sUgQ4iO"));
/// ```
pub fn is_placeholder(value: &str) -> bool {
    if value.trim().is_empty() {
        return true;
    }
    if value.contains('…') || value.contains("****") || value.contains('«') || value.contains('»')
    {
        return true;
    }
    if is_documentation_key(value) {
        return true;
    }
    const MARKERS: &[&str] = &[
        "xxxx",
        "your",
        "example",
        "placeholder",
        "changeme",
        "change_me",
        "change-me",
        "replace",
        "redacted",
        "insert",
        "dummy",
        "not-a-real",
        "not_a_real",
        "notarealtoken",
        "<",
        ">",
        "${",
        "{{",
        "...",
        "todo",
        "fixme",
        "_here",
        "-here",
        "here_",
        "here-",
        " here",
    ];
    static MARKER_WORDS: OnceLock<Option<AhoCorasick>> = OnceLock::new();
    if contains_any(&MARKER_WORDS, MARKERS, value) {
        return true;
    }
    if has_interpolation_template(value) {
        return true;
    }
    // A whole value that is a variable reference: `$password`, `$DB_PASS`.
    if let Some(name) = value.strip_prefix('$') {
        if name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return true;
        }
    }
    // A run of six identical alphanumerics in a short value: AAAAAA, 000000.
    if value.len() <= 128 {
        let mut run = 0;
        let mut last = '\0';
        for c in value.chars() {
            if c == last && c.is_ascii_alphanumeric() {
                run += 1;
                if run >= 6 {
                    return true;
                }
            } else {
                run = 1;
                last = c;
            }
        }
    }
    false
}

/// Credentials published on purpose in vendors' documentation and tools,
/// copied verbatim into countless tutorials, READMEs and tests: jwt.io's
/// sample token (matched by its signature), the Azurite / storage-emulator
/// account key, Stripe's documented test keys, Mailgun's and GitHub's
/// documentation keys. AWS's `…EXAMPLE` keys are caught by the `example`
/// marker.
const DOCUMENTATION_KEYS: &[&str] = &[
    // jwt.io's HS256 sample ("John Doe", secret `your-256-bit-secret`).
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    // Azurite / Azure Storage Emulator `devstoreaccount1` key.
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
    // Stripe's documented test-mode keys.
    "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
    "sk_test_BQokikJOvBiI2HlWgH4olfQ2",
    "sk_test_26PHem9AhJZvU623DfE1x4sd",
    "rk_test_26PHem9AhJZvU623DfE1x4sd",
    // Mailgun's documentation key.
    "key-3ax6xnjp29jd6fds4gc373sgvjxteol0",
    // GitHub's REST documentation token.
    "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    // Google reCAPTCHA v2's published test secret key.
    "6LeIxAcTAAAAAGG-vFI1TnRWxMZNFuojJ4WifJWe",
    // RFC 7515's JWS example (HS256), matched by its signature.
    "dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
    // The Telegram Bot API documentation's example token.
    "110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw",
    // Discord's API reference example bot token.
    "MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs",
    // Slack's API documentation example bot token.
    "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy",
];

/// Whether `value` is, or (for a JWT) ends with, a documentation key.
fn is_documentation_key(value: &str) -> bool {
    DOCUMENTATION_KEYS
        .iter()
        .any(|k| value == *k || (value.starts_with("eyJ") && value.ends_with(k)))
}

/// Whether a token body looks machine-generated rather than like a word or
/// an identifier: it mixes digits with letters, or mixes cases often.
///
/// This is a plausibility check for candidates a rule already matched, not a
/// detector on its own.
///
/// ```
/// use palisade_secrets::looks_random;
/// assert!(looks_random("9f8e7d6c5b4a3f2e1d0c"));
/// assert!(looks_random("hXkQpLmWzRtYvBnJcDfGsAeU"));
/// assert!(!looks_random("learn-is-a-python-library"));
/// assert!(!looks_random("BearerAuthentication"));
/// ```
pub fn looks_random(value: &str) -> bool {
    let mut digits = 0usize;
    let mut upper = 0usize;
    let mut lower = 0usize;
    let mut case_changes = 0usize;
    let mut prev_upper: Option<bool> = None;
    for c in value.chars() {
        if c.is_ascii_digit() {
            digits += 1;
        } else if c.is_ascii_alphabetic() {
            let is_upper = c.is_ascii_uppercase();
            if is_upper {
                upper += 1;
            } else {
                lower += 1;
            }
            if prev_upper.is_some_and(|p| p != is_upper) {
                case_changes += 1;
            }
            prev_upper = Some(is_upper);
        }
    }
    let letters = upper + lower;
    (digits > 0 && letters > 0) || (upper >= 2 && lower >= 2 && case_changes >= 6)
}

/// Decide one candidate: `None` to drop it, `Some((span, verified))` to keep
/// it (a credential assignment's span may be trimmed to the value proper).
/// Values found by context (not by their own format) longer than this many
/// characters are not credentials: they are prose, blobs or code.
pub(super) const MAX_CONTEXT_VALUE_CHARS: usize = 256;

pub(super) fn accept(
    rule: &SecretRule,
    text: &str,
    span: Span,
    match_start: usize,
) -> Option<(Span, bool)> {
    // A value in a URL query (`?user=a&password=b&ssl=true`) ends at the
    // next `&name=`, whatever rule found it.
    let in_query = matches!(text[..match_start].chars().next_back(), Some('?' | '&'));
    let span = if rule.spec.tier == Tier::Generic || (in_query && rule.spec.tier != Tier::Specific)
    {
        trim_query_tail(text, span)
    } else {
        span
    };
    let value = &text[span.range()];
    // Context rules match values with unbounded repetitions (a bounded
    // repetition of a Unicode class costs hundreds of KB of automaton per
    // rule); the length bound is applied here instead.
    if rule.spec.tier != Tier::Specific && value.chars().nth(MAX_CONTEXT_VALUE_CHARS).is_some() {
        return None;
    }
    if is_placeholder(value) {
        return None;
    }
    // The visible prefix of a value masked earlier (`xoxb-…****`), or a value
    // that runs into such a prefix: a mask shows up to four characters of
    // the secret it hides, and a candidate reaching into them overlapped
    // that secret on the pass that masked it, where it lost.
    let rest = &text[span.end..];
    if rest.starts_with('…') || rest.starts_with("****") || runs_into_mask_prefix(rest) {
        return None;
    }
    let spec = &rule.spec;
    let mut verified = false;
    match spec.check {
        Some(Check::GithubCrc32) | Some(Check::NpmCrc32) => {
            verified = crc32_tail_ok(value);
            if !verified && !looks_random(token_body(value)) {
                return None;
            }
        }
        Some(Check::Random) if !looks_random(token_body(value)) => return None,
        Some(Check::Random) => {}
        Some(Check::NameBoundary) if !name_boundary(text, match_start) => return None,
        Some(Check::NameBoundary) => {}
        Some(Check::FieldStart) if !field_start(text, match_start) => return None,
        Some(Check::FieldStart) => {}
        Some(Check::DiscordUserId) => {
            if !discord_user_id(value) {
                return None;
            }
            verified = true;
        }
        Some(Check::Base64PrivateKey) => {
            if !base64_private_key(value) {
                return None;
            }
            verified = true;
        }
        None => {}
    }
    if spec.kind == "basic_auth" && basic_pair_is_placeholder(value) {
        return None;
    }
    if spec.tier != Tier::Specific && is_stop_value(value) {
        return None;
    }
    if spec.tier != Tier::Specific && password_is_user(text, span) {
        return None;
    }
    if spec.tier == Tier::Generic && !assignment_value_ok(text, span) {
        return None;
    }
    if spec.tier == Tier::Generic && (names_a_non_secret(text, span) || in_arn(text, match_start)) {
        return None;
    }
    Some((span, verified))
}

/// HTTP Basic credentials whose decoded `user:password` has a placeholder,
/// a stock value or the user name as its password: `username:password`,
/// `aladdin:opensesame`, `admin:admin`, `user:<password>`.
fn basic_pair_is_placeholder(value: &str) -> bool {
    use base64::Engine as _;
    let trimmed = value.trim_end_matches('=');
    let Ok(bytes) = base64::engine::general_purpose::STANDARD_NO_PAD.decode(trimmed) else {
        return false;
    };
    let Ok(pair) = std::str::from_utf8(&bytes) else {
        return false;
    };
    let Some((user, password)) = pair.split_once(':') else {
        return false;
    };
    password.is_empty()
        || is_placeholder(password)
        || is_stop_value(password)
        || password.eq_ignore_ascii_case(user)
}

/// `postgres://postgres:postgres@…`: a password equal to its user name is a
/// default, not a secret.
fn password_is_user(text: &str, span: Span) -> bool {
    let Some(before) = text[..span.start].strip_suffix(':') else {
        return false;
    };
    // The user name runs back to a `/` or any whitespace (which may be a
    // multi-byte space such as U+2006).
    let user = before
        .rsplit(|c: char| c == '/' || c.is_whitespace())
        .next()
        .unwrap_or_default();
    !user.is_empty() && user.eq_ignore_ascii_case(&text[span.range()])
}

/// `password=s3cret&user=bob`: a value ends where the next `&name=` begins.
fn trim_query_tail(text: &str, span: Span) -> Span {
    let value = &text[span.range()];
    let bytes = value.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b != b'&' || i == 0 {
            continue;
        }
        let rest = &value[i + 1..];
        let name_len = rest
            .bytes()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'.' || *c == b'-')
            .count();
        if name_len > 0 && rest.as_bytes().get(name_len) == Some(&b'=') {
            return Span::new(span.start, span.start + i);
        }
    }
    span
}

/// Whether `start` begins a field of a connection string or query.
fn field_start(text: &str, start: usize) -> bool {
    match text[..start].chars().next_back() {
        None => true,
        Some(c) => c.is_whitespace() || matches!(c, ';' | '"' | '\'' | '{' | '?' | '&'),
    }
}

/// Whether a name starting at `start` begins a word (or a camel-case hump).
fn name_boundary(text: &str, start: usize) -> bool {
    let Some(prev) = text[..start].chars().next_back() else {
        return true;
    };
    if !prev.is_alphanumeric() {
        return true;
    }
    // After an escaped line break or tab inside a JSON string (`…\\nclient_secret=`).
    let before = &text[..start];
    if before.ends_with("\\n") || before.ends_with("\\r") || before.ends_with("\\t") {
        return true;
    }
    // `password`, `secret` and `token` are long enough to keep their meaning
    // inside a name (`PGPASSWORD`, `jwtsecret`, `apptoken`); short keys
    // (`pass` in `bypass`) are not.
    let head = text.as_bytes().get(start..start + 6).unwrap_or_default();
    if head.eq_ignore_ascii_case(b"passwo")
        || head.eq_ignore_ascii_case(b"passwd")
        || head.eq_ignore_ascii_case(b"secret")
        || head
            .get(..5)
            .is_some_and(|h| h.eq_ignore_ascii_case(b"token"))
    {
        return true;
    }
    let first = text[start..].chars().next();
    (prev.is_ascii_lowercase() || prev.is_ascii_digit())
        && first.is_some_and(|c| c.is_ascii_uppercase())
}

/// The part of a token after its vendor prefix (`ghp_`, `sk-`, `hf_`).
fn token_body(value: &str) -> &str {
    let cut = value
        .char_indices()
        .take(12)
        .find(|&(_, c)| c == '_' || c == '-')
        .map(|(i, _)| i + 1)
        .unwrap_or(0);
    let body = &value[cut..];
    if body.is_empty() {
        value
    } else {
        body
    }
}

const BASE62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// GitHub and npm tokens: `prefix_` + 30 random + 6 base62 digits of CRC32(random).
fn crc32_tail_ok(value: &str) -> bool {
    let Some(underscore) = value.find('_') else {
        return false;
    };
    let rest = &value[underscore + 1..];
    if rest.len() != 36 || !rest.is_ascii() {
        return false;
    }
    let (body, tail) = rest.split_at(30);
    let mut n = crc32fast::hash(body.as_bytes());
    let mut digits = [b'0'; 6];
    for slot in digits.iter_mut().rev() {
        *slot = BASE62[(n % 62) as usize];
        n /= 62;
    }
    n == 0 && tail.as_bytes() == digits
}

fn base64_private_key(value: &str) -> bool {
    use base64::Engine as _;
    let take = value.len().min(64) / 4 * 4;
    match base64::engine::general_purpose::STANDARD.decode(&value.as_bytes()[..take]) {
        Ok(bytes) => {
            let head = String::from_utf8_lossy(&bytes);
            head.contains("PRIVATE KEY")
        }
        Err(_) => false,
    }
}

/// Whether a Discord bot token's first segment is the base64 (unpadded) of a
/// 17–20 digit user id.
fn discord_user_id(value: &str) -> bool {
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    use base64::Engine as _;
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new()
            .with_decode_allow_trailing_bits(true)
            .with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    let head = value.split('.').next().unwrap_or_default();
    match LENIENT.decode(head) {
        Ok(id) => (17..=20).contains(&id.len()) && id.iter().all(u8::is_ascii_digit),
        Err(_) => false,
    }
}

/// Values that name a type, a literal or a variable instead of holding a secret.
fn is_stop_value(value: &str) -> bool {
    const STOP: &[&str] = &[
        "true",
        "false",
        "null",
        "none",
        "nil",
        "undefined",
        "yes",
        "no",
        "on",
        "off",
        "required",
        "optional",
        "str",
        "string",
        "int",
        "integer",
        "bool",
        "boolean",
        "bytes",
        "any",
        "object",
        "secret",
        "secrets",
        "password",
        "passwd",
        "pass",
        "token",
        "key",
        "value",
        "env",
        "default",
        "empty",
        "hidden",
        "masked",
        "unset",
        "omitted",
        "sensitive",
        "admin",
        "root",
        "user",
        "username",
        "guest",
        "test",
        "foo",
        "bar",
        "baz",
        "pwd",
        "secure",
        "auto",
        "disabled",
        "enabled",
        "base64",
        "bearer",
        "basic",
        "apikey",
        "api_key",
        "oauth",
        "oauth2",
        "jwt",
        "letmein",
        "qwerty",
        "12345678",
        // Stock passwords of documentation and vendor defaults.
        "opensesame",
        "open sesame",
        "changeit",
        "password1",
        "password123",
        "passw0rd",
        "p@ssw0rd",
    ];
    let lower = value.trim().to_ascii_lowercase();
    if STOP.contains(&lower.as_str()) {
        return true;
    }
    // `open_sesame`, `pass-word`: the same stock value with separators.
    let squashed: String = lower
        .chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .collect();
    squashed.len() != lower.len() && STOP.contains(&squashed.as_str())
}

/// Names whose `…_key` / `…_secret` / `…_token` is an identifier or public
/// half, not a credential: `public_key`, `publishable_key`, `idempotency_key`,
/// `cache_key`, `sort_key`, `key_id`… The name is the identifier right
/// before the separator (`=`, `:`, `=>`, quotes, blanks) ahead of the value.
fn names_a_non_secret(text: &str, span: Span) -> bool {
    // Bounded look-back: names are short, and a long run without a
    // separator must not make each candidate cost the whole text.
    let head = &text[look_back(text, span.start, 128)..span.start];
    let head = head.trim_end_matches([' ', '\t', '"', '\'', '`', '=', ':', '>']);
    let name_start = head
        .char_indices()
        .rev()
        .find(|&(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let name = &head[name_start..];
    const NON_SECRET: &[&str] = &[
        "public",
        "publishable",
        "site_key",
        "sitekey",
        "site-key",
        "idempotency",
        "cache",
        "sort",
        "partition",
        "primary",
        "foreign",
        "routing",
        "dedup",
        "lookup",
        "key_id",
        "keyid",
        "key-id",
        "token_type",
        "tokentype",
        "hash",
        "checksum",
        "digest",
        "fingerprint",
    ];
    static NON_SECRET_WORDS: OnceLock<Option<AhoCorasick>> = OnceLock::new();
    contains_any(&NON_SECRET_WORDS, NON_SECRET, name)
}

/// The char boundary at most `max` bytes before `end`.
fn look_back(text: &str, end: usize, max: usize) -> usize {
    let mut start = end.saturating_sub(max);
    while start < end && !text.is_char_boundary(start) {
        start += 1;
    }
    start
}

/// `arn:aws:secretsmanager:…:secret:prod/db`: the word `secret` in an ARN
/// names a resource.
fn in_arn(text: &str, match_start: usize) -> bool {
    let from = look_back(text, match_start, 256);
    let token_start = text[from..match_start]
        .char_indices()
        .rev()
        .find(|&(_, c)| c.is_whitespace() || matches!(c, '"' | '\'' | '=' | '`'))
        .map_or(0, |(i, c)| i + c.len_utf8())
        + from;
    text[token_start..match_start]
        .get(..4)
        .is_some_and(|h| h.eq_ignore_ascii_case("arn:"))
}

/// `Verb-Noun` with a common PowerShell verb (`ConvertTo-SecureString`,
/// `Get-Content`, `Read-Host`).
fn is_cmdlet(value: &str) -> bool {
    const VERBS: &[&str] = &[
        "Get",
        "Set",
        "New",
        "Read",
        "ConvertTo",
        "ConvertFrom",
        "Invoke",
        "Import",
        "Export",
        "Out",
        "Select",
        "Where",
        "Write",
        "Add",
        "Remove",
    ];
    let Some((verb, noun)) = value.split_once('-') else {
        return false;
    };
    VERBS.contains(&verb)
        && noun.len() >= 3
        && noun.starts_with(|c: char| c.is_ascii_uppercase())
        && noun.chars().all(|c| c.is_ascii_alphanumeric())
}

/// Ruby `#{expr}` or Python `%(name)s` interpolation: `#{` closed by `}`
/// with no blank inside, or `%(` + identifier + `)` + a conversion letter.
/// (A random key may contain `#{` or `%(` on its own; these shapes it does
/// not produce by chance often.)
fn has_interpolation_template(value: &str) -> bool {
    let bytes = value.as_bytes();
    for (i, w) in bytes.windows(2).enumerate() {
        if w != b"#{" && w != b"%(" {
            continue;
        }
        // Both markers are ASCII, so `i + 2` is a char boundary.
        let rest = &value[i + 2..];
        if w == b"#{" {
            if let Some(end) = rest.find('}') {
                let inner = &rest[..end];
                if !inner.is_empty() && !inner.contains(char::is_whitespace) {
                    return true;
                }
            }
        } else if w == b"%(" {
            let name_len = rest
                .bytes()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
                .count();
            let after = &rest.as_bytes()[name_len..];
            if name_len > 0
                && after.first() == Some(&b')')
                && after.get(1).is_some_and(u8::is_ascii_alphabetic)
            {
                return true;
            }
        }
    }
    false
}

/// Credential-named assignments: reject references, expressions and prose.
fn assignment_value_ok(text: &str, span: Span) -> bool {
    let value = &text[span.range()];
    let before = text[..span.start].chars().next_back();
    let after = text[span.end..].chars().next();
    // `\"value\"`: quoted inside an escaped JSON string (a log line's body).
    let escaped_quotes =
        text[..span.start].ends_with("\\\"") && text[span.end..].starts_with("\\\"");
    let quoted = escaped_quotes
        || matches!(
            (before, after),
            (Some('"'), Some('"')) | (Some('\''), Some('\'')) | (Some('`'), Some('`'))
        );
    if value.chars().count() < 4 || !value.chars().any(|c| c.is_alphanumeric()) {
        return false;
    }
    // Code, not a value: concatenation, calls, interpolated variables, routes.
    if value.contains(" + ")
        || value.starts_with(['+', '.', ',', ':', ' '])
        || value.ends_with(['+', ' '])
        || has_call(value)
        || has_interpolation(value)
    {
        return false;
    }
    if value.contains('/')
        && value
            .chars()
            .all(|c| c.is_ascii_lowercase() || "/#_.-".contains(c))
    {
        return false;
    }
    if value.starts_with('$') || value.starts_with('%') || value.starts_with('@') {
        return false;
    }
    // The default of a shell or compose expansion: `${DB_PASSWORD:-postgres}`,
    // `${TOKEN:?unset}`.
    if text[..span.start].ends_with(':') && value.starts_with(['-', '=', '?', '+']) {
        return false;
    }
    // A CSS selector or fragment id (`#add-password`, `#reset-token`).
    if value.strip_prefix('#').is_some_and(|rest| {
        !rest.is_empty()
            && rest
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '-' || c == '_')
    }) {
        return false;
    }
    // A YAML tag, not a value: `!vault |` (Ansible Vault), `!secret db_pw`
    // (Home Assistant), `!Ref DbPassword` (CloudFormation).
    if !quoted && is_yaml_tag(value) {
        return false;
    }
    // A PowerShell cmdlet call (`$pass = ConvertTo-SecureString …`).
    if !quoted && is_cmdlet(value) {
        return false;
    }
    let lower = value.to_ascii_lowercase();
    const REFERENCES: &[&str] = &[
        "environ",
        "getenv",
        "process.env",
        "secrets.",
        "vault:",
        "ssm:",
        "arn:aws",
        "file://",
        "keyring",
        "input(",
        "prompt(",
    ];
    if REFERENCES.iter().any(|r| lower.contains(r)) {
        return false;
    }
    if value.starts_with('/') || value.starts_with("~/") || value.starts_with("./") {
        return false;
    }
    if lower.starts_with("http://") || lower.starts_with("https://") {
        return false;
    }
    if value
        .chars()
        .all(|c| c.is_ascii_digit() || c == '.' || c == '-' || c == '_')
    {
        return false;
    }
    if is_bcrypt_like(value) || is_namespaced_id(value) {
        return false;
    }
    if quoted {
        // A quoted sentence is prose, not a passphrase.
        return value.split_whitespace().count() <= 5;
    }
    // Unquoted: code expressions (`get_password()`, `cfg["x"]`, `self.secret`).
    if matches!(after, Some('(') | Some('[') | Some('.')) {
        return false;
    }
    let identifier = value
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
    let has_digit = value.chars().any(|c| c.is_ascii_digit());
    if identifier && !has_digit && (value.contains('_') || value.contains('.')) {
        return false;
    }
    if value.chars().all(|c| c.is_ascii_alphabetic()) {
        // `PASSWORD=letmein` is a value; `password: required` in prose is not.
        let separator = separator_before(text, span.start);
        if separator != Some('=') {
            return false;
        }
    }
    true
}

/// `!name`: a YAML tag (`!Ref`, `!!binary`, `!env_var`, `!Fn::GetAtt`).
fn is_yaml_tag(value: &str) -> bool {
    let Some(name) = value.strip_prefix('!') else {
        return false;
    };
    let name = name.strip_prefix('!').unwrap_or(name);
    !name.is_empty()
        && name.len() <= 24
        && name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '_' | '-'))
}

/// The assignment operator just before a value, if it is directly adjacent
/// (no spaces): `=` in `KEY=value`.
fn separator_before(text: &str, start: usize) -> Option<char> {
    text[..start].chars().next_back()
}

/// `name(` inside a value: a function call.
fn has_call(value: &str) -> bool {
    let bytes = value.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| {
        b == b'('
            && i >= 3
            && bytes[i - 3..i]
                .iter()
                .all(|c| c.is_ascii_alphabetic() || *c == b'_')
            && bytes[i..].contains(&b')')
    })
}

/// `$NAME`, `${…}`, `$(…)`: shell or template interpolation.
fn has_interpolation(value: &str) -> bool {
    let bytes = value.as_bytes();
    bytes.windows(2).any(|w| {
        w[0] == b'$' && (w[1].is_ascii_uppercase() || w[1] == b'{' || w[1] == b'(' || w[1] == b'_')
    })
}

/// `user:1234:cart`, `tenant:acme:v2`: a colon-namespaced cache or storage
/// key made of lowercase words and numbers, not a credential.
fn is_namespaced_id(value: &str) -> bool {
    let mut parts = 0usize;
    for part in value.split(':') {
        parts += 1;
        let word = !part.is_empty()
            && (part.bytes().all(|b| b.is_ascii_digit())
                || part
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || matches!(b, b'_' | b'-' | b'.')));
        if !word {
            return false;
        }
    }
    parts >= 3
}

fn is_bcrypt_like(value: &str) -> bool {
    value.starts_with("$2a$")
        || value.starts_with("$2b$")
        || value.starts_with("$2y$")
        || value.starts_with("$argon2")
        || value.starts_with("pbkdf2_")
        || value.starts_with("{SSHA}")
}

/// Whether `rest`, the text right after a candidate, is the tail of a
/// masked preview's visible prefix: one to three characters, then `…****`
/// ([`mask_secret`](palisade_common::mask::mask_secret) keeps at most four).
fn runs_into_mask_prefix(rest: &str) -> bool {
    rest.char_indices()
        .skip(1)
        .take(3)
        .any(|(i, _)| rest[i..].starts_with("…****"))
}

/// Spans of Hermes' own redaction markers (`«redacted:…»`), bounded in length.
pub(super) fn hermes_markers(text: &str) -> Vec<Span> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(rel) = text[from..].find('«') {
        let start = from + rel;
        let open_end = start + '«'.len_utf8();
        let mut window_end = (open_end + 512).min(text.len());
        while !text.is_char_boundary(window_end) {
            window_end -= 1;
        }
        match text[open_end..window_end].find('»') {
            Some(close) => {
                let end = open_end + close + '»'.len_utf8();
                out.push(Span::new(start, end));
                from = end;
            }
            None => from = open_end,
        }
    }
    out
}
