"""Hermes plugin ``palisade-egress`` (the egress-guard seed).

Checks what leaves the agent: credentials in tool arguments (redacted or
blocked), uploads to hosts not on the allowlist (Hermes' approval gate), small
counts in tables (suppressed with complementary cells) in tool results and the
final reply.  Policy: ``EGRESS_GUARD_POLICY``, then
``$HERMES_HOME/egress-guard.yaml``, then the built-in defaults.

Command: ``/guard [status|report|check <text>]``.
"""

from __future__ import annotations

from typing import Any

from . import _plugin

GUARD = "egress"


@_plugin.safe_command
def guard_command(raw_args: str = "") -> str:
    """/guard, /guard status, /guard report, /guard check <text>."""
    words = _plugin.split_args(raw_args)
    sub = words[0] if words else "status"
    if sub == "check":
        text = str(raw_args or "").strip()[len("check"):].strip()
        if not text:
            return "usage: /guard check <text>   (use made-up values: Hermes keeps your input history)"
        return _plugin.run_rendered(GUARD, "check", {"text": text})
    if sub in ("status", "report"):
        return _plugin.run_rendered(GUARD, sub, {})
    return "usage: /guard [status|report|check <text>]"


def register(ctx: Any) -> None:
    """Hermes entry point."""
    _plugin.register_guard(ctx, GUARD)
    try:
        ctx.register_command("guard", guard_command,
                             description="egress-guard: status, report, or a dry-run check",
                             args_hint="[status|report|check <text>]")
    except Exception:  # pragma: no cover
        pass
