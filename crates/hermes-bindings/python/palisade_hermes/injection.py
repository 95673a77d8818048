"""Hermes plugin ``palisade-injection`` (the hermes-guard seed).

Scans every inbound message before the model sees it (L1 invisible
characters, L2 instruction phrasing, L3 special tokens and homoglyphs, L4
encoded payloads) and every tool call before it runs.  A blocked or
quarantined message never reaches the model: Hermes 0.19.0's
``pre_llm_call`` cannot veto, so the plugin records the hold and its
``llm_execution`` middleware answers that turn locally without calling the
provider.  Held messages go to the local quarantine.

Model tool: ``guard_review`` (status, list, show, simulate, clean_copy).
Owner-only slash commands: ``/guard-release <id>``, ``/guard-delete <id>``.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Optional

from . import _plugin, _shim

logger = logging.getLogger("palisade_hermes")

GUARD = "injection"
HELD = _shim.HeldTurns()

DEFAULT_HELD_REPLY = (
    "hermes-guard: this message was held before it reached the model ({why}). "
    "It was not kept for review; re-send it yourself if it is safe."
)

REVIEW_ACTIONS = ["status", "list", "show", "simulate", "clean_copy", "release", "delete"]

GUARD_REVIEW_SCHEMA = {
    "name": "guard_review",
    "description": (
        "Inspect the prompt-injection quarantine: status (posture HUD), list (recent held "
        "messages), show (one entry, preview only), simulate (run the built-in vectors in "
        "memory), clean_copy (a cleaned copy of an entry). release and delete are owner-only "
        "slash commands and are refused here."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": REVIEW_ACTIONS},
            "id": {"type": "string", "description": "quarantine entry id (show, clean_copy)"},
            "limit": {"type": "integer", "description": "how many entries (list)"},
        },
        "required": ["action"],
    },
}


def _hold_reply(directive: Any) -> Optional[str]:
    """The local reply when the native verdict is a hold, else ``None``.

    The Rust dispatcher returns the typed directive
    ``{"action": "hold", "message", "context", "quarantine_id"}`` for a
    message that must never reach the model (it also holds the turn's tool
    calls itself).  Hermes' ``pre_llm_call`` cannot veto, so the shim turns
    the hold into a real one: the turn is answered locally with ``message``
    and the provider is never called.
    """
    if not isinstance(directive, dict) or directive.get("action") != "hold":
        return None
    reply = str(directive.get("message") or DEFAULT_HELD_REPLY.format(why="held"))
    qid = directive.get("quarantine_id")
    if isinstance(qid, str) and qid:
        reply += (f" The owner can release it with /guard-release {qid} "
                  f"or delete it with /guard-delete {qid}.")
    return reply


def pre_llm_call(**kwargs: Any) -> Optional[dict]:
    """Scan the inbound message; hold the turn or add a FLAG note."""
    try:
        directive = _shim.call_native(GUARD, "pre_llm_call", kwargs)
    except Exception as exc:  # fail_closed_on_error: a detector error holds the turn
        logger.warning("palisade injection pre_llm_call failed: %s", exc)
        HELD.hold(kwargs.get("session_id"), kwargs.get("turn_id"),
                  DEFAULT_HELD_REPLY.format(why=f"the scanner failed: {type(exc).__name__}; fail-closed"))
        return None
    reply = _hold_reply(directive)
    if reply is not None:
        HELD.hold(kwargs.get("session_id"), kwargs.get("turn_id"), reply)
        return None
    return _shim.to_context(directive)


def llm_execution(**kwargs: Any) -> Any:
    """Answer a held turn locally; every other call goes to the provider."""
    next_call = kwargs.get("next_call")
    request = kwargs.get("request")
    reply = HELD.reply_for(kwargs.get("session_id"), kwargs.get("turn_id"))
    if reply is None:
        return next_call(request)
    if kwargs.get("api_mode") in (None, "", "chat_completions"):
        return _shim.local_chat_response(reply, kwargs.get("model"))
    # Other wire formats: still never send the held text; send a stand-in.
    return next_call(_withhold(request, reply))


def _withhold(request: Any, reply: str) -> Any:
    if not isinstance(request, dict):
        return request
    out = dict(request)
    msgs = out.get("messages")
    if isinstance(msgs, list):
        msgs = [dict(m) if isinstance(m, dict) else m for m in msgs]
        for m in reversed(msgs):
            if isinstance(m, dict) and m.get("role") == "user":
                m["content"] = "[message withheld by hermes-guard] " + reply
                break
        out["messages"] = msgs
    return out


def guard_review(args: Any = None, **_kw: Any) -> str:
    """The model-facing review tool; release/delete are refused (owner-only)."""
    try:
        args = args if isinstance(args, dict) else {}
        action = str(args.get("action") or "status")
        if action in ("release", "delete"):
            return json.dumps({"error": f"guard_review: {action} is owner-only. "
                                        f"Ask the user to run /guard-{action} <id> in the session."})
        if action not in REVIEW_ACTIONS:
            return json.dumps({"error": f"guard_review: unknown action {action!r}"})
        fields = {k: args[k] for k in ("id", "limit") if k in args}
        return _shim.run_command(GUARD, action, fields)
    except Exception as exc:
        return json.dumps({"error": f"guard_review failed: {exc}"})


def _owner_command(name: str):
    @_plugin.safe_command
    def handler(raw_args: str = "") -> str:
        words = _plugin.split_args(raw_args)
        if not words:
            return f"usage: /guard-{name} <id>"
        return _plugin.run_rendered(GUARD, name, {"id": words[0]})

    handler.__name__ = f"guard_{name}_command"
    return handler


guard_release_command = _owner_command("release")
guard_delete_command = _owner_command("delete")


def register(ctx: Any) -> None:
    """Hermes entry point."""
    hooks = _plugin.register_guard_except(ctx, GUARD, skip={"pre_llm_call"})
    if "pre_llm_call" in hooks:
        ctx.register_hook("pre_llm_call", pre_llm_call)
    # Only the execution middleware: a request middleware would make Hermes
    # deep-copy every request of every turn.
    try:
        ctx.register_middleware("llm_execution", llm_execution)
    except Exception as exc:  # pragma: no cover - host without middleware
        logger.warning("palisade injection: no llm_execution middleware (%s)", exc)
    try:
        ctx.register_tool("guard_review", "palisade_injection", GUARD_REVIEW_SCHEMA, guard_review,
                          description=GUARD_REVIEW_SCHEMA["description"])
    except Exception as exc:  # pragma: no cover
        logger.warning("palisade injection: guard_review not registered (%s)", exc)
    for name, fn in (("guard-release", guard_release_command), ("guard-delete", guard_delete_command)):
        try:
            ctx.register_command(name, fn, description=f"hermes-guard: {name.split('-')[1]} a quarantine entry (owner only)",
                                 args_hint="<id>")
        except Exception:  # pragma: no cover
            pass
