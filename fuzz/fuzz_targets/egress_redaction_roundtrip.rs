//! Redaction is idempotent, a rescan of redacted text finds nothing, and the
//! bytes outside the findings' spans are unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use palisade_egress::secrets::SecretScanner;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let scanner = SecretScanner::builtin();
    let once = scanner.redact(text);
    let twice = scanner.redact(&once.text);
    assert_eq!(once.text, twice.text, "redaction is not idempotent");
    assert!(twice.findings.is_empty(), "a rescan of redacted text found something");
    // Bytes before the first finding and after the last one are untouched.
    if let (Some(first), Some(last)) = (once.findings.first(), once.findings.last()) {
        assert!(once.text.starts_with(&text[..first.span.start]));
        assert!(once.text.ends_with(&text[last.span.end..]));
    } else {
        assert_eq!(once.text, text);
    }
});
