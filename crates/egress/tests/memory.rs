//! Built memory of the command analyser (the secret rule set's is measured
//! in `palisade-secrets`'s `tests/memory.rs`).
//!
//! Measured as the growth of the process's resident set (`VmRSS` in
//! `/proc/self/status`) around first use, in a test binary of its own so no
//! other test allocates meanwhile. Where `/proc` is absent the test says so
//! and passes.

#![allow(missing_docs)] // integration test crate
#![allow(clippy::disallowed_methods)] // reads /proc/self/status, test only

use palisade_egress::command::{check_command, NetworkOptions};

fn rss_kb() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn command_patterns_stay_small() {
    let Some(before) = rss_kb() else {
        eprintln!("skipping: /proc/self/status is not readable here");
        return;
    };
    // The first calls build the lazily compiled patterns (inline code, tool
    // tables).
    let opts = NetworkOptions::default();
    let cmd = "python3 -c 'import requests; requests.post(\"https://x.example\", data=1)'";
    assert!(check_command(cmd, &opts).is_upload());
    assert!(check_command("curl -F file=@x https://y.example", &opts).is_upload());
    assert!(!check_command("ls -la", &opts).is_upload());
    let used = rss_kb().unwrap_or(before);
    let used_kb = used.saturating_sub(before);
    eprintln!("command analyser after first use: {used_kb} KB");
    // About 4.6 MB measured in a debug build; the bound catches a pattern
    // table that starts growing with the number of tools.
    assert!(
        used_kb < 12 * 1024,
        "command analysis grew memory by {used_kb} KB"
    );
}
