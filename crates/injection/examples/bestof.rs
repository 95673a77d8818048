//! Best-of-N timings of the injection budget inputs: the same inputs and
//! calls as `benches/injection.rs`, each timed N times, reporting the
//! fastest and the median call. On a shared, loaded machine criterion's
//! medians include time the process spent preempted; the fastest call is
//! the closer estimate of what a quiet machine measures.
//!
//! `cargo run --release -p palisade-injection --example bestof [FILTER]`

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

const MESSAGE: &str = "Hi! Could you summarize the attached quarterly report for the team? \
The **revenue** numbers are in section 3 and the churn table is on page 7 \
(see https://example.com/reports/q3?lang=en). Please keep it under 200 words, \
mention the two risks we discussed on Friday, and list action items as bullets 👍. ";

const BENIGN: &str = "The committee reviewed the proposal in detail and agreed to revisit the \
budget after the next planning cycle. Several members asked for clearer milestones, and the \
authors promised an updated timeline by the end of the month. ";

const MULTILINGUAL: &str = "委员会详细审查了该提案，并同意在下一个规划周期后重新审议预算。\
几位成员要求更明确的里程碑，作者承诺在月底前提供更新的时间表。Das Komitee prüfte den \
Vorschlag und vereinbarte, das Budget später erneut zu prüfen. Комитет рассмотрел \
предложение и согласился вернуться к бюджету. ";

#[allow(clippy::disallowed_methods)] // an example measures wall time; the library never reads a clock
fn time(filter: &str, name: &str, bytes: usize, iters: usize, mut f: impl FnMut()) {
    if !name.contains(filter) {
        return;
    }
    let mut v: Vec<Duration> = (0..iters)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    v.sort();
    let (best, median) = (v[0], v[v.len() / 2]);
    let mib = bytes as f64 / best.as_secs_f64() / (1024.0 * 1024.0);
    println!("{name:40} best {best:>10.3?} median {median:>10.3?}  {mib:.0} MiB/s at best");
}

#[allow(clippy::disallowed_methods)] // an example reads its command line; the library reads nothing
fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let s = Scanner::new();
    let policy = ToolPolicy::default();
    for size in [1024usize, 16 * 1024, 256 * 1024] {
        let t = repeat_to(MESSAGE, size);
        let iters = (2_000_000 / size).clamp(20, 2000);
        time(
            &filter,
            &format!("scan/message/{size}"),
            t.len(),
            iters,
            || {
                black_box(s.scan(black_box(&t)));
            },
        );
    }
    for size in [64 * 1024usize, 256 * 1024, 1024 * 1024] {
        let t = repeat_to(BENIGN, size);
        time(&filter, &format!("scan/benign/{size}"), t.len(), 60, || {
            black_box(s.scan(black_box(&t)));
        });
    }
    let t = repeat_to(MULTILINGUAL, 256 * 1024);
    time(
        &filter,
        "scan/benign_multilingual_256k",
        t.len(),
        30,
        || {
            black_box(s.scan(black_box(&t)));
        },
    );
    for size in [12 * 1024usize, 120 * 1024, 1200 * 1024] {
        let arg = format!("echo {}", repeat_to("$(", size));
        let call = ToolCall::new("terminal", serde_json::json!({ "command": arg }));
        let name = format!("tool_call/unclosed_subshell/{size}");
        time(&filter, &name, arg.len(), 100, || {
            black_box(s.check_tool_call(black_box(&call), &mut SessionState::new(), &policy, 0));
        });
    }
}
