#!/usr/bin/env python3
"""Write a synthetic agent session of about SIZE megabytes to stdout.

    python3 scripts/gen-session.py 100 > /tmp/session-100mb.jsonl

The bundled sample sessions (examples/sessions/*.jsonl) are repeated, with
tool results padded by varied, deterministic log-like text so the regex
engines see fresh input throughout. Used for the `palisade scan` memory
figures in BENCHMARKS.md.
"""
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORDS = (
    "build deploy cache request worker shard retry timeout latency queue "
    "commit branch review config service token handler index schema table "
    "migration rollout metric alert owner cluster region bucket export job"
).split()


def main() -> None:
    target = int(float(sys.argv[1]) * 1_000_000) if len(sys.argv) > 1 else 1_000_000
    rng = random.Random(7)
    lines = []
    for name in ("leaky.jsonl", "clean.jsonl"):
        text = (ROOT / "examples" / "sessions" / name).read_text(encoding="utf-8")
        lines.extend(json.loads(l) for l in text.splitlines() if l.strip())
    written = 0
    out = sys.stdout
    while written < target:
        for msg in lines:
            if msg.get("role") == "tool":
                pad = " ".join(rng.choice(WORDS) + str(rng.randrange(1000)) for _ in range(300))
                msg = dict(msg, content=f"{msg.get('content') or ''}\n{pad}")
            row = json.dumps(msg, ensure_ascii=False) + "\n"
            out.write(row)
            written += len(row.encode("utf-8"))
            if written >= target:
                break


if __name__ == "__main__":
    main()
