"""Python -> Rust -> Python overhead per Hermes hook call.

    python bench/hook_overhead.py [--n 20000] [--json]

Runs inside a Hermes process: a throw-away HERMES_HOME with the four plugins
enabled, plugin discovery through ``import run_agent``, then each hook is
fired through Hermes' own ``invoke_hook`` the way the agent loop does.  It
prints p50/p90/p99 per (guard, hook) in microseconds, for the full dispatch
(``invoke_hook``: Hermes loop + our callback + JSON + Rust + back), the Rust
call alone (``Guard.handle`` on pre-encoded JSON: the guard's own work,
including its evidence writes) and, as a floor, Hermes' dispatch of a no-op
Python callback.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

PLUGINS = ["palisade-provenance", "palisade-egress", "palisade-injection", "palisade-closure"]

CASES = [
    ("provenance", "pre_tool_call", dict(tool_name="memory", args={
        "action": "add", "target": "memory", "content": "Project uses cargo nextest for CI runs."})),
    ("egress", "pre_tool_call", dict(tool_name="terminal", args={"command": "ls -la /tmp && git status"})),
    ("injection", "pre_tool_call", dict(tool_name="terminal", args={"command": "cargo test -p palisade-common"})),
    ("injection", "pre_llm_call", dict(user_message="Can you summarise the attached release notes for me?",
                                       conversation_history=[], is_first_turn=False, model="m", platform="cli")),
    ("egress", "transform_llm_output", dict(response_text="All tests pass; see the summary above.",
                                            model="m", platform="cli")),
    ("closure", "post_tool_call", dict(tool_name="terminal", args={"command": "ls"}, result="a\nb\n",
                                       duration_ms=3, status="ok")),
]


def vary(args: dict, i: int) -> dict:
    """A distinct command per call: the injection guard blocks an identical
    call repeated inside its race window (a replay), which is a different,
    durable path from the clean call measured here."""
    return dict(args, command=f"{args.get('command', '')} --test t{i}")


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()

    home = Path(tempfile.mkdtemp(prefix="palisade-bench-"))
    (home / "config.yaml").write_text(json.dumps({"plugins": {"enabled": PLUGINS},
                                                  "security": {"tirith_enabled": False}}))
    os.environ["HERMES_HOME"] = str(home)
    import run_agent  # noqa: F401  (plugin discovery, as in a real session)
    from hermes_cli.plugins import get_plugin_manager

    mgr = get_plugin_manager()
    rows = []

    def measure(label_guard: str, hook: str, callbacks: list, kwargs: dict) -> None:
        saved = mgr._hooks.get(hook, [])
        mgr._hooks[hook] = callbacks
        try:
            base = dict(kwargs, session_id="bench", task_id="t", turn_id="turn-1", tool_call_id="c1",
                        api_request_id="r1")
            for _ in range(min(500, a.n)):  # warm-up
                mgr.invoke_hook(hook, **base)
            samples = []
            for i in range(a.n):
                kw = dict(base, tool_call_id=f"c{i}")
                if "args" in kw and label_guard == "injection":
                    kw["args"] = vary(kw["args"], i)
                t0 = time.perf_counter_ns()
                mgr.invoke_hook(hook, **kw)
                samples.append((time.perf_counter_ns() - t0) / 1000.0)
        finally:
            mgr._hooks[hook] = saved
        native = []
        if label_guard in ("provenance", "egress", "injection", "closure"):
            from palisade_hermes import _shim as shim

            d, home_s = shim.dispatcher(label_guard), str(home)
            for i in range(a.n):
                kw = dict(base, tool_call_id=f"n{i}")
                if "args" in kw and label_guard == "injection":
                    kw["args"] = vary(kw["args"], i)
                text = shim.encode_kwargs(kw)
                t0 = time.perf_counter_ns()
                d.handle(hook, home_s, text)
                native.append((time.perf_counter_ns() - t0) / 1000.0)
        rows.append({"guard": label_guard, "hook": hook, "n": a.n,
                     "rust_p50_us": round(statistics.median(native), 2) if native else None,
                     "p50_us": round(statistics.median(samples), 2),
                     "p90_us": round(pct(samples, 0.90), 2), "p99_us": round(pct(samples, 0.99), 2)})

    from palisade_hermes import _shim, injection

    for guard, hook, kwargs in CASES:
        cb = injection.pre_llm_call if (guard, hook) == ("injection", "pre_llm_call") else _shim.hook_callback(guard, hook)
        measure(guard, hook, [cb], kwargs)
    measure("(no-op python callback)", "pre_tool_call", [lambda **kw: None], CASES[1][2])

    if a.json:
        print(json.dumps(rows, indent=1))
    else:
        print(f"{'guard':28} {'hook':22} {'p50 us':>8} {'p90 us':>8} {'p99 us':>8} {'rust p50':>9} {'shim p50':>9}")
        for r in rows:
            rust = r["rust_p50_us"]
            shim_cost = f"{r['p50_us'] - rust:9.1f}" if rust is not None else f"{'':9}"
            rust_s = f"{rust:9.1f}" if rust is not None else f"{'':9}"
            print(f"{r['guard']:28} {r['hook']:22} {r['p50_us']:8.1f} {r['p90_us']:8.1f} {r['p99_us']:8.1f}"
                  f" {rust_s} {shim_cost}")
        print("p50/p90/p99: the whole hook call through Hermes' invoke_hook (kwargs -> JSON -> Rust -> "
              "directive); rust p50: Guard.handle alone on pre-encoded JSON; shim p50: the difference.")
        print(f"(n={a.n} calls each, through hermes_cli.plugins.invoke_hook, HERMES_HOME={home})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
