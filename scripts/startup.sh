#!/usr/bin/env bash
# Whole-process start-up of every `palisade check GUARD --jsonl` line and
# every `palisade hook claude-code` event in scripts/startup/: the median
# wall time of 11 runs (hyperfine, shell start-up included) and, when
# valgrind is installed, the instruction count (load-independent).
#
#   bash scripts/startup.sh [BINARY]    # default target/release/palisade
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../target/release/palisade}
command -v hyperfine >/dev/null || { echo "hyperfine is not installed (apt-get install hyperfine)" >&2; exit 2; }
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
measure() { # name, command
  local json; json=$(mktemp)
  hyperfine --style none -w 3 -r 11 --export-json "$json" "$2" >/dev/null 2>&1
  local ms; ms=$(python3 -c 'import json,sys;print("%.1f"%(json.load(open(sys.argv[1]))["results"][0]["median"]*1000))' "$json")
  rm -f "$json"
  local ir="-"
  if command -v valgrind >/dev/null; then
    ir=$(bash -c "valgrind --tool=callgrind --callgrind-out-file=/dev/null $2" 2>&1 >/dev/null | grep -o 'refs: *[0-9,]*' | tr -d ', ' | cut -d: -f2)
    ir=$(python3 -c 'import sys;print("%.1f M"%(int(sys.argv[1])/1e6))' "$ir")
  fi
  printf '%-34s %8s ms %12s\n' "$1" "$ms" "$ir"
}
printf '%-34s %11s %12s\n' command "median" instructions
for g in claims provenance injection tool-call closure secrets command table; do
  measure "check $g" "$bin check $g --jsonl < $here/startup/$g.jsonl"
done
# The events of one turn, in order, in one profile (the Stop judges the turn).
for e in prompt pre post stop; do
  measure "hook claude-code $e" "$bin hook claude-code --home $home < $here/startup/hook-$e.json"
done
