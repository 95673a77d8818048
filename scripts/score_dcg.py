#!/usr/bin/env python3
"""Rate the destructive_command_guard open corpus the way
crates/injection/tests/external.rs does (held = tier >= quarantine).
usage: score_dcg.py BINARY [--misses]"""
import json, os, pathlib, subprocess, sys
ORDER = {"pass": 0, "flag": 1, "quarantine": 2, "block": 3}
# $PALISADE_CORPORA, else ../shared/corpora beside the workspace (as the tests find it)
CORPORA = pathlib.Path(os.environ.get("PALISADE_CORPORA")
                       or pathlib.Path(__file__).resolve().parents[2] / "shared" / "corpora")
rows = [json.loads(l) for l in open(CORPORA / "tool-calls" / "dcg-corpus.jsonl") if l.strip()]
lines = [json.dumps({"tool": "terminal", "args": {"command": r["command"]}}) for r in rows]
out = subprocess.run([sys.argv[1], "check", "tool-call", "--jsonl"], input="\n".join(lines) + "\n",
                     capture_output=True, text=True).stdout.splitlines()
bad = caught = safe = held = 0
for r, o in zip(rows, out):
    t = ORDER.get(json.loads(o).get("tier"), -1)
    if r["expect"] == "safe":
        safe += 1
        if t >= 2:
            held += 1
            if "--misses" in sys.argv: print("held safe:", r["command"][:160])
    else:
        bad += 1
        if t >= 2:
            caught += 1
        elif "--misses" in sys.argv:
            print("missed:", r["command"][:160])
print(f"dcg: dangerous+bypass {caught}/{bad} held, safe {held}/{safe} held")
