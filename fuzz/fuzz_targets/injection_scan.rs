//! The injection scan and the tool-call guard never panic (not even inside a
//! layer, where the scanner would catch it and record the layer as
//! degraded), are deterministic, and report spans inside the input.
//!
//! Bounded time is libFuzzer's `-timeout` (scripts/fuzz-smoke.sh sets 5 s
//! per input; long runs use `-max_len=65536 -timeout=2`): a super-linear
//! path shows up as a timeout artifact.
#![no_main]

use libfuzzer_sys::fuzz_target;
use palisade_injection::{Scanner, SessionState, ToolCall, ToolPolicy};
use std::sync::OnceLock;

fuzz_target!(|data: &[u8]| {
    static SCANNER: OnceLock<Scanner> = OnceLock::new();
    let scanner = SCANNER.get_or_init(Scanner::new);
    let Ok(text) = std::str::from_utf8(data) else { return };
    let a = scanner.scan(text);
    let b = scanner.scan(text);
    assert_eq!(a.tier, b.tier, "the tier must be deterministic");
    // A layer that panicked is caught and recorded; for the fuzzer it is a bug.
    assert!(a.degraded.is_empty(), "a layer failed: {:?}", a.degraded);
    for f in &a.findings {
        assert!(text.get(f.span.range()).is_some(), "span out of bounds or off a char boundary");
    }
    let call = ToolCall::new("terminal", serde_json::json!({ "command": text }));
    let mut state = SessionState::new();
    let _ = scanner.check_tool_call(&call, &mut state, &ToolPolicy::default(), 0);
});
