"""The one shim all four plugins share: Hermes kwargs -> Rust -> directive.

Every Hermes hook callback built here does the same three things:

1. encode the keyword arguments Hermes passed as JSON (objects JSON cannot
   hold, such as the gateway runner, are reduced to their ``str``; nothing in
   them is needed by a guard);
2. call the native dispatcher of its guard (``_native.handle``), which releases
   the GIL, decides, writes its evidence and returns a directive as JSON;
3. turn that directive into what Hermes 0.19.0 honours for the hook.

Hermes 0.19.0 swallows an exception raised by a hook and then runs the tool
anyway (fail open), and it has no hook timeout.  So no callback here ever
raises: on an internal error a ``pre_tool_call`` callback returns the guard's
fail-closed ``block`` (where the seed fails closed), an egress ``transform_*``
callback returns a stand-in that withholds the text it could not check, and
every other callback returns ``None``.

Python strings may hold lone UTF-16 surrogates (``json.loads('"\\ud800"')``
makes one) which no UTF-8 string can carry to Rust.  ``encode_kwargs`` replaces
each lone surrogate with U+FFFD (one code point for one code point, so
character offsets stay where they were; a valid pair written as two
surrogates becomes the one character it encodes) and the guard decides on that
text; a transform hook then returns the guard's rewrite of it.  The Rust side is linear-time and bounds its lock waits, so
a call never holds the agent for long.
"""

from __future__ import annotations

import atexit
import json
import logging
import re
import threading
import time
from types import SimpleNamespace
from typing import Any, Callable, Optional

logger = logging.getLogger("palisade_hermes")

try:  # The native module is the whole guard; without it every guard fails closed.
    from . import _native
    _NATIVE_ERROR: Optional[str] = None
except Exception as exc:  # pragma: no cover - exercised only by a broken install
    _native = None  # type: ignore[assignment]
    _NATIVE_ERROR = f"{type(exc).__name__}: {exc}"

#: Seed names, used in messages the model sees and in rule keys.
SEED_NAME = {
    "provenance": "provenance-gate",
    "egress": "egress-guard",
    "injection": "hermes-guard",
    "closure": "turn-closure-audit",
}

#: Tools each guard must refuse when it cannot decide (the seeds' fail-closed
#: scope).  ``None`` means every tool; an empty set means the guard never
#: blocks (closure only observes).
FAIL_CLOSED_TOOLS: dict[str, Optional[frozenset]] = {
    "provenance": frozenset({"memory", "skill_manage"}),
    "egress": None,
    "injection": None,
    "closure": frozenset(),
}

#: Keyword arguments that are live Python objects, not data, plus the
#: conversation history, which no guard reads and which grows with every turn
#: (encoding it would make each ``pre_llm_call``/``post_llm_call`` cost
#: O(session length)).  They are dropped before encoding.
_DROP_KWARGS = frozenset({"assistant_message", "gateway", "session_store", "event", "next_call",
                          "conversation_history"})


def hermes_home() -> str:
    """The active profile's home, resolved at call time (profile-aware)."""
    try:
        from hermes_constants import get_hermes_home

        return str(get_hermes_home())
    except Exception:  # outside Hermes (benchmarks, unit tests)
        import os

        return os.environ.get("HERMES_HOME") or os.path.expanduser("~/.hermes")


def _default(obj: Any) -> Any:
    if isinstance(obj, (set, frozenset, tuple)):
        return list(obj)
    if isinstance(obj, bytes):
        return obj.decode("utf-8", "replace")
    return str(obj)


_SURROGATE = re.compile("[\ud800-\udfff]")


def scrub_surrogates(text: str) -> str:
    """``text`` with every lone UTF-16 surrogate replaced by U+FFFD.

    A pair of surrogates that encodes one character becomes that character;
    every other surrogate becomes one U+FFFD, so offsets of the text around it
    do not move.  Text without surrogates is returned as is (one regex scan).
    """
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def encode_kwargs(kwargs: dict) -> str:
    """JSON for the native side (valid UTF-8); never raises on odd values."""
    clean = {k: v for k, v in kwargs.items() if k not in _DROP_KWARGS}
    return scrub_surrogates(json.dumps(clean, default=_default, ensure_ascii=False))


def native_available() -> bool:
    """True when the native module imported."""
    return _native is not None


def host_version() -> str:
    """The running hermes-agent version ("" outside Hermes)."""
    try:
        from importlib.metadata import version

        return version("hermes-agent")
    except Exception:
        return ""


_DISPATCHERS: dict[str, Any] = {}
_DISPATCHERS_LOCK = threading.Lock()


def dispatcher(guard: str) -> Any:
    """The guard's native dispatcher, built once per process.

    Building reads the seeds' environment variables and the host version once;
    storage paths come from ``hermes_home()`` on every call.
    """
    found = _DISPATCHERS.get(guard)
    if found is not None:
        return found
    if _native is None:
        raise RuntimeError(f"palisade native module unavailable ({_NATIVE_ERROR})")
    with _DISPATCHERS_LOCK:
        found = _DISPATCHERS.get(guard)
        if found is None:
            # The shim applies ``modify`` to the live args dict (see
            # to_pre_tool_call), so the dispatcher may ask for rewrites.
            found = _native.Guard(guard, host_version(), inplace_modify=True)
            if not _DISPATCHERS:
                atexit.register(flush_all)
            _DISPATCHERS[guard] = found
    return found


def flush_all() -> None:
    """Write what the dispatchers still buffer (batched pass decisions).

    Registered with ``atexit``; also safe to call any time.  Never raises.
    """
    for guard, d in list(_DISPATCHERS.items()):
        try:
            flush = getattr(d, "flush", None)
            err = flush() if flush else None
            if err:
                logger.warning("palisade %s: buffered decisions not written: %s", guard, err)
        except Exception as exc:  # pragma: no cover - interpreter shutdown
            logger.warning("palisade %s: flush failed: %s", guard, exc)


def log_warnings(guard: str, d: Any) -> None:
    """Log what the native side fell back on or failed closed for (an invalid
    policy file, an unreadable store), one warning per distinct reason."""
    take = getattr(d, "take_warnings", None)
    if take is None:
        return
    try:
        for text in take():
            logger.warning("palisade %s: %s", guard, text)
    except Exception:  # pragma: no cover - logging must never break a hook
        pass


def call_native(guard: str, hook: str, kwargs: dict) -> Any:
    """Run one hook through Rust; returns the decoded Python return value.

    ``None`` is "no opinion", a dict is a directive, a str is replacement text.
    Raises on any failure: callers decide what a failure means for the hook.
    """
    d = dispatcher(guard)
    out = d.handle(hook, hermes_home(), encode_kwargs(kwargs))
    log_warnings(guard, d)
    if not out or out == "null":
        return None
    return json.loads(out)


def fail_closed_block(guard: str, tool_name: Any, error: BaseException) -> Optional[dict]:
    """The ``block`` a guard returns when it could not decide, or ``None``."""
    scope = FAIL_CLOSED_TOOLS.get(guard, frozenset())
    if scope is not None and tool_name not in scope:
        return None
    return {
        "action": "block",
        "message": (
            f"{SEED_NAME.get(guard, guard)}: the guard could not check this call "
            f"({type(error).__name__}), so it was refused (fail-closed). Nothing was run."
        ),
    }


# --------------------------------------------------------------------------
# Directive translation (Rust directive -> what Hermes 0.19.0 honours)
# --------------------------------------------------------------------------

def to_pre_tool_call(directive: Any, args: Any) -> Optional[dict]:
    """``block``/``approve`` pass through; ``modify`` rewrites the live args.

    Hermes 0.19.0 has no ``modify`` directive, but the ``args`` dict it passes
    is the object that is executed, so a modify is applied in place there and
    the directive is still returned for hosts that understand it.
    """
    if not isinstance(directive, dict):
        return None
    action = directive.get("action")
    if action == "block":
        return {"action": "block", "message": str(directive.get("message") or "blocked by palisade")}
    if action == "approve":
        out = {"action": "approve", "message": str(directive.get("message") or "")}
        if directive.get("rule_key"):
            out["rule_key"] = str(directive["rule_key"])
        return out
    if action == "modify" and isinstance(directive.get("args"), dict):
        if isinstance(args, dict):
            args.update(directive["args"])
        # 0.21+ merges this itself (idempotent after the in-place update);
        # 0.19.0 ignores an action it does not know.
        return {"action": "modify", "args": dict(directive["args"])}
    return None


def withheld_text(guard: str, error: BaseException) -> str:
    """The stand-in a transform hook returns for text it could not check."""
    return (f"[{SEED_NAME.get(guard, guard)}: this text was withheld because the guard could not "
            f"check it ({type(error).__name__}; fail-closed).]")


def to_text(value: Any) -> Optional[str]:
    """For transform hooks: the replacement text (a str), if any."""
    return value if isinstance(value, str) else None


def to_context(directive: Any) -> Optional[dict]:
    """For ``pre_llm_call``: ``{"context": str}`` or ``None``."""
    if isinstance(directive, str) and directive:
        return {"context": directive}
    if not isinstance(directive, dict):
        return None
    ctx = directive.get("context")
    if isinstance(ctx, str) and ctx:
        return {"context": ctx}
    return None


# --------------------------------------------------------------------------
# Held turns: a message the guard stops never reaches the model
# --------------------------------------------------------------------------

class HeldTurns:
    """Turns whose inbound message a guard held, keyed by (session, turn).

    ``pre_llm_call`` cannot veto in Hermes 0.19.0, so the injection plugin
    records the hold here and an ``llm_execution`` middleware answers every
    provider call of that turn locally, without calling the provider.
    """

    def __init__(self, ttl_seconds: float = 3600.0) -> None:
        self._lock = threading.Lock()
        self._held: dict[tuple[str, str], tuple[float, str]] = {}
        self._ttl = ttl_seconds

    def hold(self, session_id: Any, turn_id: Any, reply: str) -> None:
        now = time.monotonic()
        with self._lock:
            if len(self._held) > 1024:  # bounded: drop expired entries
                self._held = {k: v for k, v in self._held.items() if now - v[0] < self._ttl}
            self._held[(str(session_id or ""), str(turn_id or ""))] = (now, reply)

    def reply_for(self, session_id: Any, turn_id: Any) -> Optional[str]:
        with self._lock:
            hit = self._held.get((str(session_id or ""), str(turn_id or "")))
        return hit[1] if hit else None


def local_chat_response(text: str, model: Any) -> SimpleNamespace:
    """A chat-completions response built locally, shaped like Hermes' own
    streamed result (``agent/chat_completion_helpers.py``)."""
    message = SimpleNamespace(role="assistant", content=text, tool_calls=None, reasoning_content=None)
    choice = SimpleNamespace(index=0, message=message, finish_reason="stop")
    usage = SimpleNamespace(prompt_tokens=0, completion_tokens=0, total_tokens=0)
    return SimpleNamespace(id="palisade-held", model=str(model or ""), choices=[choice], usage=usage)


# --------------------------------------------------------------------------
# Callback factories
# --------------------------------------------------------------------------

def hook_callback(guard: str, hook: str) -> Callable[..., Any]:
    """A ``**kwargs`` callback for ``hook`` that never raises."""

    if hook == "pre_tool_call":
        def _pre_tool_call(**kwargs: Any) -> Optional[dict]:
            try:
                return to_pre_tool_call(call_native(guard, hook, kwargs), kwargs.get("args"))
            except Exception as exc:
                logger.warning("palisade %s %s failed: %s", guard, hook, exc)
                return fail_closed_block(guard, kwargs.get("tool_name"), exc)

        _pre_tool_call.__name__ = f"palisade_{guard}_pre_tool_call"
        return _pre_tool_call

    if hook == "pre_llm_call":
        def _pre_llm_call(**kwargs: Any) -> Optional[dict]:
            try:
                return to_context(call_native(guard, hook, kwargs))
            except Exception as exc:
                logger.warning("palisade %s %s failed: %s", guard, hook, exc)
                return None

        _pre_llm_call.__name__ = f"palisade_{guard}_pre_llm_call"
        return _pre_llm_call

    if hook.startswith("transform_"):
        def _transform(**kwargs: Any) -> Optional[str]:
            try:
                return to_text(call_native(guard, hook, kwargs))
            except Exception as exc:
                logger.warning("palisade %s %s failed: %s", guard, hook, exc)
                # Text the egress guard could not check may hold a credential.
                return withheld_text(guard, exc) if guard == "egress" else None

        _transform.__name__ = f"palisade_{guard}_{hook}"
        return _transform

    def _observer(**kwargs: Any) -> None:
        try:
            call_native(guard, hook, kwargs)
        except Exception as exc:
            logger.warning("palisade %s %s failed: %s", guard, hook, exc)
        return None

    _observer.__name__ = f"palisade_{guard}_{hook}"
    return _observer


def run_command(guard: str, name: str, args: Optional[dict] = None) -> str:
    """Run one of the guard's user commands in Rust; returns its JSON text."""
    try:
        args_json = scrub_surrogates(json.dumps(args or {}, ensure_ascii=False))
        d = dispatcher(guard)
        out = d.command(name, hermes_home(), args_json)
        log_warnings(guard, d)
        return out
    except Exception as exc:
        return json.dumps({"ok": False, "error": f"{SEED_NAME.get(guard, guard)}: {name} failed: {exc}"})


def register_hooks(ctx: Any, guard: str, hooks: list[str]) -> None:
    """Register one callback per hook; a failing registration never stops the rest."""
    for hook in hooks:
        try:
            ctx.register_hook(hook, hook_callback(guard, hook))
        except Exception as exc:  # pragma: no cover - depends on host version
            logger.warning("palisade %s: could not register %s: %s", guard, hook, exc)
