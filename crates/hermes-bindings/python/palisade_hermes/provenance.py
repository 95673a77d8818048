"""Hermes plugin ``palisade-provenance`` (the provenance-gate seed).

Refuses a ``memory`` / ``skill_manage`` write that states a user decision
without the user's own quoted words.  ``PROVENANCE_GATE_MODE`` picks
``block`` (default), ``observe`` or ``ask`` (Hermes' approval gate with
``rule_key = provenance-gate:<reason>``).

Commands: ``hermes provenance-gate report|log|check|purge``.
"""

from __future__ import annotations

import argparse
from typing import Any

from . import _plugin

GUARD = "provenance"


def _setup(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="pg_command")
    rep = sub.add_parser("report", help="counts by verdict and reason, newest flagged claims")
    rep.add_argument("--days", type=int, default=None)
    log = sub.add_parser("log", help="evidence rows, newest first")
    log.add_argument("--limit", type=int, default=None)
    log.add_argument("--verdict", choices=["pass", "blocked", "would_block"], default=None)
    chk = sub.add_parser("check", help="dry run on a text; writes no rows")
    chk.add_argument("text")
    chk.add_argument("--session", default=None)
    pur = sub.add_parser("purge", help="delete stored user text and evidence rows")
    group = pur.add_mutually_exclusive_group(required=True)
    group.add_argument("--older-than", type=int, dest="older_than", default=None)
    group.add_argument("--all", action="store_true")
    for sp in (rep, log, chk, pur):
        sp.add_argument("--json", action="store_true", help="print the raw JSON result")


def _cli(args: argparse.Namespace) -> int:
    name = getattr(args, "pg_command", None) or "report"
    fields = {k: v for k, v in vars(args).items()
              if k in ("days", "limit", "verdict", "text", "session", "older_than", "all") and v not in (None, False)}
    for key in ("days", "limit", "older_than"):
        if key in fields and fields[key] < 0:
            print(f"provenance-gate: --{key.replace('_', '-')} must be zero or more")
            return 2
    raw = _plugin.run_json(GUARD, name, fields)
    result = _plugin.parse_json(raw)
    print(raw if getattr(args, "json", False) else _plugin.render(result))
    return 0 if isinstance(result, dict) and result.get("ok") else 1


def register(ctx: Any) -> None:
    """Hermes entry point."""
    _plugin.register_guard(ctx, GUARD)
    try:
        ctx.register_cli_command("provenance-gate", help="provenance-gate evidence and dry runs",
                                 setup_fn=_setup, handler_fn=_cli,
                                 description="report, log, check and purge for palisade-provenance")
    except Exception:  # pragma: no cover - older hosts
        pass
