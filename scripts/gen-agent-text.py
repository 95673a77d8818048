#!/usr/bin/env python3
"""Clean agent-style text for throughput runs: JSON lines `{"text": …}`.

Each line is one message an agent host would pass through `palisade check
secrets --jsonl`: prose, code, logs, shell and tool output, JSON, Markdown,
Chinese; hashes, UUIDs, timestamps and the ordinary words (token counts, key
names, password-reset flows) that appear in such traffic, but no credential.
Deterministic for a seed.

    python3 scripts/gen-agent-text.py --mb 200 > /tmp/agent-200mb.jsonl
    python3 scripts/gen-agent-text.py --mb 200 --plain > /tmp/agent-200mb.txt  # the same text, no JSON

`--plain` writes the texts themselves, one after the other, for the peers
that read files (gitleaks, Kingfisher, detect-secrets) and `--text` mode.
"""
import argparse
import json
import random
import sys

WORDS = (
    "the a of to and in is for on that with as it by this be are from at or "
    "an was have not but can we which you all will one more when there their "
    "data model report export import file path result query table column row "
    "region cohort sample survey value function module service request response "
    "error warning retry timeout cache index build test deploy release branch "
    "commit merge review change update config option default parser schema "
    "record batch stream worker queue job task step plan agent tool message"
).split()

PROSE = [
    "The export finished in {n} seconds and wrote {m} rows to results.csv.",
    "Next we compare the cohorts by region and age band, then plot the {w} distribution.",
    "I read the {w} module and the failing test; the {w} path is never reached when the cache is warm.",
    "The token count for this prompt is {n}, well under the context limit of {m}.",
    "Keys in the output map are sorted by {w} name, so the diff is stable across runs.",
    "The password reset flow sends an email with a link that expires after {n} minutes.",
    "Set the API key in your environment before running the script (see the README).",
    "Summary: {n} files changed, {m} insertions(+), {k} deletions(-).",
    "Let me check the {w} configuration and rerun the {w} suite with verbose output.",
    "This change keeps the public API but moves the {w} logic behind a feature flag.",
]

CHINESE = [
    "数据已经保存，下一步是生成报告。",
    "我们按地区和年龄段比较各组的结果。",
    "测试全部通过，共耗时{n}秒。",
    "请检查配置文件中的默认选项。",
]

CODE = [
    "def load(path):\n    with open(path) as f:\n        return json.load(f)\n",
    "fn parse_{w}(input: &str) -> Result<{W}, Error> {{\n    let mut out = {W}::default();\n    for line in input.lines() {{\n        out.push(line.trim())?;\n    }}\n    Ok(out)\n}}\n",
    "export function {w}Handler(req, res) {{\n  const id = req.params.id;\n  return db.find({{ id }}).then((row) => res.json(row));\n}}\n",
    "SELECT region, COUNT(*) AS n, AVG({w}) FROM survey WHERE year = {y} GROUP BY region ORDER BY n DESC;\n",
    "class {W}Cache:\n    def __init__(self, size={n}):\n        self.size = size\n        self.items = {{}}\n\n    def get(self, key):\n        return self.items.get(key)\n",
    "for f in *.csv; do wc -l \"$f\"; done | sort -n | tail -{k}\n",
]

LOGS = [
    "{ts} INFO request_id={uuid} status=200 bytes={n} duration_ms={k}",
    "{ts} WARN worker-{k} retrying job {uuid} after timeout ({n} ms)",
    "{ts} DEBUG cache hit ratio={r} entries={m}",
    "{ts} ERROR {w} failed: connection reset by peer (attempt {k}/5)",
    "commit {sha} Merge pull request #{n} from org/feature-{w}",
    "-rw-r--r--  1 agent staff {n} Nov 30 10:{k:02d} {w}_{m}.parquet",
    "  {w}.py:{n}: in test_{w}\n    assert result == expected\nAssertionError: {m} != {k}",
    "sha256:{sha64}  dist/{w}-{k}.{n}.tar.gz",
]


def fill(rng, template):
    w = rng.choice(WORDS)
    return template.format(
        n=rng.randint(1, 99999),
        m=rng.randint(1, 9999),
        k=rng.randint(0, 59),
        y=rng.randint(2015, 2026),
        r=round(rng.random(), 3),
        w=w,
        W=w.capitalize(),
        ts="2026-11-%02dT%02d:%02d:%02dZ" % (rng.randint(1, 30), rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59)),
        uuid="%08x-%04x-4%03x-a%03x-%012x" % (rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(12), rng.getrandbits(12), rng.getrandbits(48)),
        sha="%040x" % rng.getrandbits(160),
        sha64="%064x" % rng.getrandbits(256),
    )


def message(rng):
    kind = rng.random()
    parts = []
    target = int(rng.lognormvariate(7.3, 0.9))  # median ~1.5 KB, long tail
    target = max(80, min(target, 64 << 10))
    size = 0
    while size < target:
        if kind < 0.35:
            p = fill(rng, rng.choice(PROSE)) + (" " if rng.random() < 0.8 else "\n\n")
            if rng.random() < 0.05:
                p = fill(rng, rng.choice(CHINESE))
        elif kind < 0.6:
            p = fill(rng, rng.choice(CODE)) + "\n"
        elif kind < 0.85:
            p = fill(rng, rng.choice(LOGS)) + "\n"
        else:
            p = json.dumps({"id": rng.randint(1, 10**6), "name": rng.choice(WORDS), "score": rng.random(),
                            "tags": rng.sample(WORDS, 3)}) + "\n"
        parts.append(p)
        size += len(p)
    return "".join(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=200, help="megabytes (10^6) of text to write")
    ap.add_argument("--seed", type=int, default=24)
    ap.add_argument("--plain", action="store_true", help="the texts themselves, no JSON")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    out = sys.stdout
    written = 0
    goal = int(args.mb * 1e6)
    while written < goal:
        text = message(rng)
        line = text if args.plain else json.dumps({"text": text}, ensure_ascii=False) + "\n"
        out.write(line)
        written += len(line.encode("utf-8"))


if __name__ == "__main__":
    main()
