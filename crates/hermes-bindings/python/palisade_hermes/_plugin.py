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


def _lines(value: Any, indent: int, out: list[str], key: str = "") -> None:
    pad = "  " * indent
    label = f"{key}: " if key else ""
    if isinstance(value, dict):
        if not value:
            out.append(f"{pad}{label}{{}}")
            return
        if key:
            out.append(f"{pad}{key}:")
            indent += 1
        for k, v in value.items():
            _lines(v, indent, out, str(k))
    elif isinstance(value, list):
        if not value:
            out.append(f"{pad}{label}[]")
            return
        if all(not isinstance(v, (dict, list)) for v in value):
            out.append(f"{pad}{label}" + ", ".join(_scalar(v) for v in value))
            return
        if key:
            out.append(f"{pad}{key}:")
        for v in value[:50]:
            sub: list[str] = []
            _lines(v, indent + 1, sub)
            if sub:
                first = sub[0].lstrip()
                out.append(f"{pad}- {first}")
                out.extend(sub[1:])
        if len(value) > 50:
            out.append(f"{pad}... {len(value) - 50} more")
    else:
        out.append(f"{pad}{label}{_scalar(value)}")


def _scalar(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    text = str(v)
    return text if len(text) <= 400 else text[:400] + "…"


def render(result: Any) -> str:
    """Human text for a command result (the Rust side returns JSON).

    ``{"ok": false, "error": …}`` becomes ``<command>: error: …``; a
    successful result is printed as indented ``key: value`` lines.
    """
    if isinstance(result, str):
        return result
    if isinstance(result, dict) and "ok" in result:
        name = result.get("command", "")
        if not result.get("ok"):
            return f"{name}: error: {result.get('error')}"
        body = result.get("result")
        if isinstance(body, dict) and isinstance(body.get("message"), str) and len(body) == 1:
            return body["message"]
        out: list[str] = []
        _lines(body, 0, out)
        return "\n".join(out) if out else f"{name}: ok"
    out = []
    _lines(result, 0, out)
    return "\n".join(out)


def run_json(guard: str, name: str, args: Optional[dict] = None) -> str:
    """The raw JSON of a command (for ``--json`` and the model tool)."""
    return _shim.run_command(guard, name, args or {})


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
