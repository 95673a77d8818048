#!/usr/bin/env python3
"""Score a claims corpus (JSONL: name, input, expected = claim|none) with a
palisade binary's `check claims --jsonl`.

usage: score_claims.py CORPUS [BINARY] [--misses]
"""
import json
import subprocess
import sys


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    corpus = args[0]
    binary = args[1] if len(args) > 1 else "target/debug/palisade"
    cases = [json.loads(l) for l in open(corpus, encoding="utf-8") if l.strip()]
    stdin = "".join(json.dumps({"text": c["input"]}) + "\n" for c in cases)
    out = subprocess.run([binary, "check", "claims", "--jsonl"], input=stdin,
                         capture_output=True, text=True, check=False).stdout
    rows = [json.loads(l) for l in out.splitlines()]
    assert len(rows) == len(cases), (len(rows), len(cases))
    counts = {"tp": 0, "fp": 0, "fn": 0, "tn": 0}
    for case, row in zip(cases, rows):
        got = bool(row.get("claims"))
        want = case["expected"] == "claim"
        key = ("t" if got == want else "f") + ("p" if got else "n")
        counts[key] += 1
        if got != want and "--misses" in sys.argv:
            print(f"--- {case['name']} got {'claim' if got else 'none'}: {case['input']!r}")
    p = counts["tp"] / max(counts["tp"] + counts["fp"], 1)
    r = counts["tp"] / max(counts["tp"] + counts["fn"], 1)
    print(f"claims: precision {p:.3f} recall {r:.3f} "
          f"(tp {counts['tp']} fp {counts['fp']} fn {counts['fn']} tn {counts['tn']})")


if __name__ == "__main__":
    main()
