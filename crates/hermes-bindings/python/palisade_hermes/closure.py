"""Hermes plugin ``palisade-closure`` (the turn-closure-audit seed).

Judges every finished turn: was what the user asked to be remembered actually
retained (a memory or skill write), or does the turn become a review
candidate?  It only observes; it never blocks.

Command: ``/turn-closure [recent|last|status|path|pending|report] [N]``,
``/turn-closure promote --dry-run [--candidate ID]`` and the owner's opt-in
``/turn-closure promote --apply --candidate ID`` (one candidate; a slash
command is typed by the user, the model cannot call it).

Files (the seed's layout): ``$HERMES_HOME/turn.closure.audit/`` (turns,
latest snapshots, candidate events), ``memory/<day>.md`` (daily note) and
``knowledge/review/turn-closure-candidates-<day>.jsonl``.
"""

from __future__ import annotations

from typing import Any

from . import _plugin

GUARD = "closure"
SUBCOMMANDS = ("recent", "last", "status", "path", "pending", "report", "promote")


@_plugin.safe_command
def turn_closure_command(raw_args: str = "") -> str:
    """/turn-closure [recent|last|status|path|pending|report] [N] | promote (--dry-run | --apply) [--candidate ID]."""
    words = _plugin.split_args(raw_args)
    sub = words[0] if words else "recent"
    if sub not in SUBCOMMANDS:
        return "usage: /turn-closure [" + "|".join(SUBCOMMANDS) + "] [N]"
    args: dict = {}
    rest = words[1:]
    if sub == "promote":
        args["dry_run"] = "--dry-run" in rest
        args["apply"] = "--apply" in rest
        if "--candidate" in rest:
            i = rest.index("--candidate")
            if i + 1 < len(rest):
                args["candidate"] = rest[i + 1]
        if args["dry_run"] == args["apply"]:
            return "usage: /turn-closure promote --dry-run [--candidate ID] | promote --apply --candidate ID"
        if args["apply"] and "candidate" not in args:
            return "turn-closure: promote --apply needs --candidate ID (one candidate at a time)"
    else:
        for w in rest:
            if w.isdigit():
                args["n"] = int(w)
    return _plugin.run_rendered(GUARD, sub, args)


def register(ctx: Any) -> None:
    """Hermes entry point."""
    _plugin.register_guard(ctx, GUARD)
    try:
        ctx.register_command("turn-closure", turn_closure_command,
                             description="turn-closure-audit: recent judgments and review candidates",
                             args_hint="[recent|last|status|path|pending|report] [N] | promote --dry-run|--apply [--candidate ID]")
    except Exception:  # pragma: no cover
        pass
