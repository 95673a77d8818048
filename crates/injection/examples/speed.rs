//! Wall-clock timings of the message path and the tool-call guard, without
//! criterion (a quick check that builds only this crate):
//! `cargo run --release -p palisade-injection --example speed`.
//!
//! Prints: scanner build; the first pass over the 220-message fresh corpus
//! (lazy regex compiles included) and a second pass, per message; and the
//! tool-call shapes of the criterion bench (median of runs).

// An example measures wall time; the library never reads a clock.
#![allow(clippy::disallowed_methods)]

use palisade_injection::{Scanner, SessionState, ToolCall, ToolPolicy};
use std::hint::black_box;
use std::time::{Duration, Instant};

fn repeat_to(unit: &str, bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + unit.len());
    while s.len() < bytes {
        s.push_str(unit);
    }
    s
}

fn median(mut f: impl FnMut(), runs: usize) -> Duration {
    let mut v: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    v.sort();
    v[runs / 2]
}

fn main() {
    let t = Instant::now();
    let s = Scanner::new();
    println!("scanner build: {:?}", t.elapsed());
    let texts: Vec<String> = include_str!("../testdata/fresh_messages.jsonl")
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["input"].as_str().map(str::to_owned))
        .collect();
    for pass in ["first", "second"] {
        let t = Instant::now();
        for text in &texts {
            black_box(s.scan(black_box(text)));
        }
        let e = t.elapsed();
        println!(
            "{pass} pass, {} messages: {:?} total, {:?} per message",
            texts.len(),
            e,
            e / texts.len() as u32
        );
    }
    let policy = ToolPolicy::default();
    let mut shapes: Vec<(String, ToolCall)> = Vec::new();
    let one_k = repeat_to(
        "sudo -u app env A=1 timeout 30 git -C ./repo status && r''m -rf ./build | tee -a log.txt; echo \"$(date)\" ; ",
        1024,
    );
    shapes.push((
        "command_1k".into(),
        ToolCall::new("terminal", serde_json::json!({ "command": one_k })),
    ));
    for size in [12 * 1024usize, 120 * 1024, 1200 * 1024] {
        let arg = format!("echo {}", repeat_to("$(", size));
        shapes.push((
            format!("unclosed_subshell/{size}"),
            ToolCall::new("terminal", serde_json::json!({ "command": arg })),
        ));
    }
    for size in [40 * 1024usize, 400 * 1024, 4 * 1024 * 1024] {
        let arg = repeat_to("ls -la src && git status -sb | head -5; ", size);
        shapes.push((
            format!("commands/{size}"),
            ToolCall::new("terminal", serde_json::json!({ "command": arg })),
        ));
    }
    for (name, call) in &shapes {
        let runs = if name.contains("4194304") || name.contains("1228800") {
            5
        } else {
            51
        };
        let d = median(
            || {
                black_box(s.check_tool_call(black_box(call), &mut SessionState::new(), &policy, 0));
            },
            runs,
        );
        println!("tool_call {name}: {d:?} (median of {runs})");
    }
}
