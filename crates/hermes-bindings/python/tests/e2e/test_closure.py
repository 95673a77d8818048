"""palisade-closure in real Hermes turns (turn-closure-audit seed)."""

from __future__ import annotations

import json

from conftest import require

PLUGIN = ["palisade-closure"]
PREF = "From now on I prefer tabs over spaces in all my Python code, please remember that."


def _all_rows(r: dict) -> list:
    """Rows of every closure JSONL file, in the seed's layout."""
    rows = []
    for path, text in r["files"].items():
        if path.startswith(("turn.closure.audit/", "knowledge/")) and path.endswith(".jsonl"):
            rows += [dict(json.loads(line), _file=path) for line in text.splitlines() if line.strip()]
    return rows


def test_unretained_preference_becomes_a_candidate(session):
    require('closure')
    r = session([{"user": PREF, "script": [{"text": "Sure, tabs it is."}]}], PLUGIN, finalize=True,
                commands=[["turn-closure", "pending"]])
    blob = json.dumps(_all_rows(r), ensure_ascii=False)
    assert "candidate" in blob, blob[:2000]
    assert "tabs" in blob
    assert "tabs" in r["command_output"][0]["output"], r["command_output"]
    notes = [t for p, t in r["files"].items() if p.startswith("memory/") and p.endswith(".md")]
    assert notes and "<!-- turn-closure:" in notes[0] and "tabs" in notes[0], notes


def test_turn_with_a_memory_write_is_retained(session):
    require('closure')
    write = {"tool": "memory", "args": {"action": "add", "target": "user",
                                        "content": "Prefers tabs over spaces in Python code."}}
    r = session([{"user": PREF, "script": [write, {"text": "Saved."}]}], PLUGIN, finalize=True,
                commands=[["turn-closure", "last"]])
    rows = _all_rows(r)
    judgments = [row.get("judgment") for row in rows if "judgment" in row]
    assert "retained" in judgments, rows
    assert "candidate" not in judgments, rows
