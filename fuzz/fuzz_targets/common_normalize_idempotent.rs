//! normalize is idempotent and its span map stays on char boundaries.
#![no_main]

use libfuzzer_sys::fuzz_target;
use palisade_common::{normalize::normalize, text::sentences, Span};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let once = normalize(text);
    let twice = normalize(once.as_str());
    assert_eq!(once.as_str(), twice.as_str());
    let whole = once.original_span(Span::new(0, once.as_str().len()));
    assert!(text.is_char_boundary(whole.start) && text.is_char_boundary(whole.end));
    let joined: String = sentences(text).iter().map(|s| &text[s.range()]).collect();
    assert_eq!(joined, text);
});
