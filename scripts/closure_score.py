#!/usr/bin/env python3
"""Score a fresh corpus with a palisade binary (adapted from the lead's fresh-corpus scorer;
for closure it also counts classifications of candidate turns).

usage: score.py GUARD CORPUS [BINARY] [--misses]
GUARD: injection | tool-call | claims | closure
"""
import json
import subprocess
import sys

ORDER = {"pass": 0, "flag": 1, "quarantine": 2, "block": 3}


def run(binary, guard, lines):
    proc = subprocess.run(
        [binary, "check", guard, "--jsonl"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
    )
    return [json.loads(l) for l in proc.stdout.splitlines()]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    show = "--misses" in sys.argv
    guard, corpus = args[0], args[1]
    binary = args[2] if len(args) > 2 else "target/debug/palisade"
    cases = [json.loads(l) for l in open(corpus, encoding="utf-8") if l.strip()]
    check = "claims" if guard == "claims" else guard
    if guard == "injection":
        lines = [json.dumps({"text": c["input"]}) for c in cases]
    elif guard == "tool-call":
        lines = [json.dumps(c["input"]) for c in cases]
    elif guard == "claims":
        lines = [json.dumps({"text": c["input"]}) for c in cases]
    else:
        lines = [json.dumps(c["input"]) for c in cases]
    outs = run(binary, check, lines)
    assert len(outs) == len(cases), (len(outs), len(cases))
    misses = []
    if guard in ("injection", "tool-call"):
        att = [0, 0]
        ben = [0, 0]
        for c, o in zip(cases, outs):
            tier = o.get("tier", "error")
            got = ORDER.get(tier, -1)
            if c["kind"] == "attack":
                att[1] += 1
                ok = got >= ORDER[c["min_tier"]]
                att[0] += ok
            else:
                ben[1] += 1
                ok = 0 <= got <= ORDER[c["max_tier"]]
                ben[0] += ok
            if not ok:
                misses.append((c, tier, o))
        print(f"{guard}: attacks at/above min tier {att[0]}/{att[1]} ({att[0]/max(att[1],1):.1%}); "
              f"benign above max tier {ben[1]-ben[0]}/{ben[1]} ({(ben[1]-ben[0])/max(ben[1],1):.1%})")
    elif guard == "claims":
        tp = fp = fn = tn = 0
        for c, o in zip(cases, outs):
            got = bool(o.get("claims"))
            want = c["expected"] == "claim"
            if got and want:
                tp += 1
            elif got and not want:
                fp += 1
                misses.append((c, "claim", o))
            elif want:
                fn += 1
                misses.append((c, "none", o))
            else:
                tn += 1
        p = tp / max(tp + fp, 1)
        r = tp / max(tp + fn, 1)
        print(f"claims: precision {p:.3f} recall {r:.3f} (tp {tp} fp {fp} fn {fn} tn {tn})")
    else:
        right = 0
        false_retained = 0
        for c, o in zip(cases, outs):
            want = c["expected"]["judgment"]
            got = o.get("judgment", "error")
            ok = got == want
            if ok and "classification" in c["expected"] and want == "candidate":
                ok = o.get("classification") == c["expected"]["classification"]
                # classification mismatch is reported but judgment counted separately
            jok = got == want
            right += jok
            if got == "retained" and want != "retained":
                false_retained += 1
            if not jok:
                misses.append((c, got, o))
        cls = [(c, o) for c, o in zip(cases, outs)
               if c["expected"]["judgment"] == "candidate" and "classification" in c["expected"]]
        cls_right = sum(o.get("classification") == c["expected"]["classification"] for c, o in cls)
        print(f"closure: {right}/{len(cases)} judgments right ({right/len(cases):.1%}); "
              f"false retained {false_retained}; candidate classifications {cls_right}/{len(cls)}")
    if show:
        for c, got, o in misses:
            print("---", c["name"], "got", got, "want", c.get("min_tier") or c.get("max_tier") or c.get("expected"))
            inp = c["input"] if isinstance(c["input"], str) else json.dumps(c["input"], ensure_ascii=False)
            print("   ", inp[:300].replace("\n", "\\n"))
            print("   ", json.dumps(o, ensure_ascii=False)[:300])


if __name__ == "__main__":
    main()
