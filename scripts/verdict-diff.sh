#!/usr/bin/env bash
# Verdicts of a `palisade` binary on the injection and provenance testdata,
# one output file per input file, so two builds can be compared with `cmp`
# (or `diff -r`):
#
#   scripts/verdict-diff.sh OLD_BIN /tmp/base
#   scripts/verdict-diff.sh target/release/palisade /tmp/branch
#   diff -r /tmp/base /tmp/branch && echo identical
#
# injection testdata *messages*.jsonl → `{"text": input}` → check injection
# injection testdata tool_calls*.jsonl → `{"tool","args","tainted"}` → check tool-call
# provenance testdata *.jsonl → `{"text": input}` → check claims
set -euo pipefail
bin=$1
out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
for f in "$root"/crates/injection/testdata/*messages*.jsonl; do
  python3 -c 'import json,sys
for l in sys.stdin:
    l=l.strip()
    if l: print(json.dumps({"text": json.loads(l)["input"]}))' < "$f" \
    | "$bin" check injection --jsonl > "$out/injection-$(basename "$f")" || true
done
for f in "$root"/crates/injection/testdata/tool_calls*.jsonl; do
  python3 -c 'import json,sys
for l in sys.stdin:
    l=l.strip()
    if not l: continue
    i=json.loads(l)["input"]
    print(json.dumps({k: i[k] for k in ("tool","args","tainted") if k in i}))' < "$f" \
    | "$bin" check tool-call --jsonl > "$out/tool-call-$(basename "$f")" || true
done
for f in "$root"/crates/provenance/testdata/*.jsonl; do
  python3 -c 'import json,sys
for l in sys.stdin:
    l=l.strip()
    if not l: continue
    d=json.loads(l)
    i=d.get("input", d.get("text"))
    if isinstance(i, str): print(json.dumps({"text": i}))' < "$f" \
    | "$bin" check claims --jsonl > "$out/claims-$(basename "$f")" || true
done
wc -l "$out"/* | tail -1
