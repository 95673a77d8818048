"""Shared fixtures for the palisade-hermes suite.

The e2e tests need hermes-agent 0.19.0 and this wheel installed in the running
interpreter (``scripts/e2e.sh`` sets that up).  Without them the whole suite
is skipped with the reason, never faked.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
RUNNER = HERE / "e2e" / "run_session.py"


def _missing() -> str | None:
    if importlib.util.find_spec("run_agent") is None:
        return "hermes-agent is not installed in this interpreter (run scripts/e2e.sh)"
    try:
        from palisade_hermes import _native  # noqa: F401
    except Exception as exc:  # pragma: no cover
        return f"palisade_hermes native module not importable: {exc}"
    return None


MISSING = _missing()


def pytest_collection_modifyitems(config, items):
    if MISSING:
        skip = pytest.mark.skip(reason=MISSING)
        for item in items:
            if "e2e" in str(item.fspath):
                item.add_marker(skip)


class Session:
    """Runs one scenario in a fresh interpreter and returns its result dict."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp = tmp_path
        self.n = 0

    def __call__(self, turns: list, plugins: list, **spec) -> dict:
        self.n += 1
        root = self.tmp / f"s{self.n}"
        root.mkdir()
        spec = dict(spec, turns=turns, plugins=plugins, home=str(root / "home"))
        spec_path, out_path = root / "spec.json", root / "result.json"
        spec_path.write_text(json.dumps(spec))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("HERMES_", "PROVENANCE_GATE", "EGRESS_GUARD"))}
        proc = subprocess.run([sys.executable, str(RUNNER), str(spec_path), str(out_path)],
                              capture_output=True, text=True, timeout=150, env=env, cwd=str(root))
        if proc.returncode != 0 or not out_path.exists():
            raise AssertionError(f"session runner failed (rc={proc.returncode}):\n"
                                 f"--- stdout\n{proc.stdout[-4000:]}\n--- stderr\n{proc.stderr[-8000:]}")
        result = json.loads(out_path.read_text())
        result["home"] = spec["home"]
        result["stderr"] = proc.stderr
        return result


#: A command per guard that reaches the guard crate itself, so a guard that
#: palisade-hermes reports as not wired in yet ("guard_unavailable") is skipped
#: with that reason instead of failing or passing by accident.
_PROBES = {
    "provenance": ("check", {"text": "User decided to ship on Friday."}),
    "egress": ("check", {"text": "plain text"}),
    "injection": ("simulate", {}),
    "closure": ("status", {}),
}


def require(*guards: str) -> None:
    """Skip the calling test when a guard's Rust side is not available."""
    import tempfile

    from palisade_hermes import _native

    with tempfile.TemporaryDirectory() as home:
        for guard in guards:
            g = _native.Guard(guard, "0.19.0")
            if guard == "closure":  # no command reaches the judge: judge one turn
                turn = {"session_id": "probe", "turn_id": "t1"}
                g.handle("post_llm_call", home, json.dumps(dict(turn, user_message="hi", assistant_response="hello")))
                g.handle("on_session_end", home, json.dumps(dict(turn, completed=True, interrupted=False)))
                last = json.loads(g.command("last", home, "{}"))
                out = {"ok": "guard_unavailable" not in json.dumps(last), "error": json.dumps(last)}
            else:
                name, args = _PROBES[guard]
                out = json.loads(g.command(name, home, json.dumps(args)))
            if not out.get("ok") and "guard_unavailable" in str(out.get("error")):
                pytest.skip(f"the Rust {guard} guard is not wired into palisade-hermes yet: {out['error']}")


@pytest.fixture
def session(tmp_path: Path) -> Session:
    return Session(tmp_path)


def plugin_files(result: dict, guard_dir_hint: str = "") -> dict:
    """plugin-data files (content by relative path), optionally filtered."""
    return {k: v for k, v in result["files"].items()
            if k.startswith("plugin-data/") and not k.endswith("#mode") and guard_dir_hint in k}


def jsonl_rows(result: dict, hint: str = "") -> list:
    rows = []
    for path, text in plugin_files(result, hint).items():
        if not path.endswith(".jsonl"):
            continue
        for line in text.splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row, dict):
                row["_file"] = path
                rows.append(row)
    return rows


def memory_md(result: dict, target: str = "MEMORY.md") -> str:
    return result["files"].get(f"memories/{target}", "")
