"""``register(ctx)`` shared by the four plugins, plus command rendering."""

from __future__ import annotations

import json
import logging
import shlex
from typing import Any, Callable, Optional

from . import _shim

logger = logging.getLogger("palisade_hermes")

#: Hooks registered when the native dispatcher cannot be built (a broken
#: install): enough for the fail-closed ``pre_tool_call`` to hold.
FALLBACK_HOOKS = {
    "provenance": ["pre_llm_call", "pre_tool_call"],
    "egress": ["pre_tool_call", "transform_tool_result", "transform_llm_output"],
    "injection": ["pre_llm_call", "pre_tool_call"],
    "closure": ["pre_llm_call", "post_tool_call", "post_llm_call", "on_session_end"],
}


def register_guard(ctx: Any, guard: str) -> list[str]:
    """Register all of the guard's hooks (see :func:`register_guard_except`)."""
    return register_guard_except(ctx, guard, skip=set())


def register_guard_except(ctx: Any, guard: str, skip: set) -> list[str]:
    """Register the guard's hooks with Hermes; returns the hook names.

    Never raises: a plugin whose native part is missing still registers its
    ``pre_tool_call`` callback, which then refuses what the seed refuses.
    """
    try:
        hooks = list(_shim.dispatcher(guard).hooks())
    except Exception as exc:
        logger.error("palisade %s: native dispatcher unavailable (%s); failing closed", guard, exc)
        hooks = FALLBACK_HOOKS[guard]
    _shim.register_hooks(ctx, guard, [h for h in hooks if h not in skip])
    return hooks


def parse_json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return {"ok": False, "error": text}


def render(result: Any) -> str:
    """Human text for a command result (the Rust side returns JSON)."""
    if isinstance(result, str):
        return result
    if isinstance(result, dict):
        for key in ("rendered", "text", "message"):
            if isinstance(result.get(key), str) and len(result) <= 3:
                return result[key]
    return json.dumps(result, indent=2, ensure_ascii=False)


def run_rendered(guard: str, name: str, args: Optional[dict] = None) -> str:
    return render(parse_json(_shim.run_command(guard, name, args or {})))


def split_args(raw: Any) -> list[str]:
    try:
        return shlex.split(str(raw or ""))
    except ValueError:
        return str(raw or "").split()


def safe_command(fn: Callable[[str], str]) -> Callable[[str], str]:
    """Slash-command handlers never raise into Hermes."""

    def wrapper(raw_args: str = "") -> str:
        try:
            return fn(raw_args)
        except Exception as exc:
            return f"palisade: command failed: {exc}"

    wrapper.__name__ = getattr(fn, "__name__", "palisade_command")
    wrapper.__doc__ = fn.__doc__
    return wrapper
