"""palisade-provenance in real Hermes turns (provenance-gate seed)."""

from __future__ import annotations

import json

from conftest import require, jsonl_rows, memory_md

PLUGIN = ["palisade-provenance"]
USER = "Let's keep it simple: we ship on Friday after the final QA pass. Please remember that."
UNQUOTED = "User decided to ship on Friday."
QUOTED = 'User decided to ship on Friday ("we ship on Friday after the final QA pass").'


def add(content: str) -> dict:
    return {"tool": "memory", "args": {"action": "add", "target": "memory", "content": content}}


def test_unquoted_decision_is_refused_then_quoted_write_passes(session):
    require('provenance')
    r = session([{"user": USER, "script": [add(UNQUOTED), add(QUOTED), {"text": "Saved with your words."}]}],
                PLUGIN, env={"PROVENANCE_GATE_MODE": "block"})
    assert r["plugins"]["palisade-provenance"]["enabled"], r["plugins"]
    first, second = r["turns"][0]["tool_results"][:2]
    # refused: the model got the seed's instruction, nothing was written
    assert "provenance-gate" in first and "Quote the user's exact words" in first, first
    assert "Nothing was written" in first, first
    mem = memory_md(r)
    assert UNQUOTED not in mem.replace(QUOTED, "")
    # the corrected, quoted write went through
    assert "error" not in json.loads(second), second
    assert QUOTED in mem
    rows = jsonl_rows(r, "provenance")
    verdicts = [row.get("verdict") for row in rows]
    assert "blocked" in verdicts and "pass" in verdicts, rows
    passed = [row for row in rows if row.get("verdict") == "pass"]
    assert any("we ship on Friday after the final QA pass" in json.dumps(row, ensure_ascii=False)
               for row in passed), passed


def test_observe_mode_writes_and_records_would_block(session):
    require('provenance')
    r = session([{"user": USER, "script": [add(UNQUOTED), {"text": "ok"}]}], PLUGIN,
                env={"PROVENANCE_GATE_MODE": "observe"})
    assert "error" not in json.loads(r["turns"][0]["tool_results"][0])
    assert UNQUOTED in memory_md(r)
    assert "would_block" in [row.get("verdict") for row in jsonl_rows(r, "provenance")]


def test_ask_mode_reaches_the_approval_gate_with_the_rule_key(session):
    require('provenance')
    # "always" persists the approved pattern key, which is how the rule key shows.
    r = session([{"user": USER, "script": [add(UNQUOTED), {"text": "ok"}]}], PLUGIN,
                env={"PROVENANCE_GATE_MODE": "ask"}, human="always")
    assert len(r["approval_prompts"]) == 1, r["approval_prompts"]
    # issue 22 item 7: the prompt asks a question, and the answer is recorded
    prompt = r["approval_prompts"][0]["description"]
    assert "Allow this write anyway?" in prompt and not prompt.endswith("Nothing was written."), prompt
    assert UNQUOTED in memory_md(r)  # approved by the (simulated) human
    verdicts = [row.get("verdict") for row in jsonl_rows(r, "provenance")]
    assert "approve" in verdicts and "approved" in verdicts, verdicts
    cfg = r["files"].get("config.yaml") or ""
    assert "plugin_rule:provenance-gate:" in cfg, cfg[-2000:]


def test_ask_mode_with_nobody_present_writes_nothing(session):
    require('provenance')
    r = session([{"user": USER, "script": [add(UNQUOTED), {"text": "ok"}]}], PLUGIN,
                env={"PROVENANCE_GATE_MODE": "ask"})
    out = r["turns"][0]["tool_results"][0]
    assert "BLOCKED" in out and "requires approval" in out, out
    assert UNQUOTED not in memory_md(r)
    verdicts = [row.get("verdict") for row in jsonl_rows(r, "provenance")]
    assert "no_approver" in verdicts, verdicts
