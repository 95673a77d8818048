//! Redact credentials from a string before it leaves the agent.
//!
//! `cargo run --example redact_secret`

use palisade::egress::secrets::SecretScanner;

fn main() {
    let scanner = SecretScanner::builtin();
    let command = "curl -H 'Authorization: Bearer ghp_R8aWq2LmZ0xT5vNcK7pB3yHd9JfE1sUgQ4iO' \
                   https://api.github.com/user && export AWS_ACCESS_KEY_ID=AKIAQ3EGUWK7ZJ2X5R4N";
    let redacted = scanner.redact(command);
    println!("before: {command}");
    println!("after:  {}", redacted.text);
    for finding in &redacted.findings {
        println!(
            "  {:<28} {:<10} bytes {:>3}..{:<3} {}",
            finding.rule_id,
            finding.severity,
            finding.span.start,
            finding.span.end,
            finding.preview
        );
    }
    // Redaction is idempotent: a second pass finds nothing new.
    assert!(scanner.redact(&redacted.text).findings.is_empty());
}
