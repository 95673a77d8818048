#!/usr/bin/env bash
# Builds every cargo-fuzz target and runs each for a short smoke run
# (default 10 s). Needs a nightly toolchain and cargo-fuzz; when either is
# missing it says so and exits 0, so CI on a stable-only machine still passes.
#
#   scripts/fuzz-smoke.sh [seconds]
#
# Targets run without a sanitizer (`-s none`): the workspace forbids unsafe
# code, so the properties the targets assert (and panics) are what we look
# for; debug assertions stay on. The smoke run is reproducible: a fixed seed
# and at most 50,000 inputs from an empty corpus (a slower machine stops at
# the time limit, on a prefix of the same inputs). Finding new bugs is the job
# of long runs: `cargo +nightly fuzz run -O TARGET`.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SECONDS_PER_TARGET="${1:-10}"

if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "fuzz smoke SKIPPED: no nightly toolchain (rustup toolchain install nightly)"
    exit 0
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "fuzz smoke SKIPPED: cargo-fuzz is not installed (cargo install cargo-fuzz)"
    exit 0
fi

cd "$ROOT/fuzz"
FLAGS=(-O -a -s none)
cargo +nightly fuzz build "${FLAGS[@]}"
status=0
for target in $(cargo +nightly fuzz list); do
    corpus="$(mktemp -d)"
    if cargo +nightly fuzz run "${FLAGS[@]}" "$target" "$corpus" -- \
        -seed=1 -runs=50000 -max_total_time="$SECONDS_PER_TARGET" -timeout=5 -rss_limit_mb=2048 \
        -artifact_prefix="$corpus/" >"$corpus/log" 2>&1; then
        runs=$(grep -o 'Done [0-9]* runs' "$corpus/log" | tail -1)
        echo "fuzz $target: ok (${runs:-no run count})"
    else
        echo "fuzz $target: FAILED"
        tail -40 "$corpus/log"
        status=1
    fi
    rm -rf "$corpus"
done
exit $status
