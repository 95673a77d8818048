"""Run one real Hermes session against the fake model; print a JSON result.

    python run_session.py SPEC.json RESULT.json

This runs in its own process for every scenario: Hermes discovers plugins once
per process (when ``run_agent`` is imported) and reads ``HERMES_HOME`` then, so
each scenario needs a fresh interpreter with its own home and enabled plugins.

SPEC keys: ``home`` (dir, created), ``plugins`` (keys for ``plugins.enabled``),
``turns`` (list of ``{"user": str, "script": [steps]}``, see fake_model.py),
``toolsets``, ``env`` (extra environment), ``config`` (merged into config.yaml),
``human`` (``none``/``once``/``deny``/``always``: the simulated person at the
approval prompt), ``finalize`` (fire ``on_session_finalize`` after the last
turn, as the CLI does on exit), ``session_id``, ``directory_plugins`` (install
the ``$HERMES_HOME/plugins/`` layout instead of relying on entry points),
``commands`` (slash commands to run after the turns: ``[name, args]``; the
text ``{quarantine_id}`` in args is replaced by the newest quarantine id that
``guard_review list`` reports).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from fake_model import FakeModel  # noqa: E402

SCRUB = ("HERMES_INTERACTIVE", "HERMES_GATEWAY_SESSION", "HERMES_CRON_SESSION", "HERMES_YOLO_MODE",
         "HERMES_EXEC_ASK", "HERMES_SAFE_MODE", "OPENROUTER_API_KEY", "OPENAI_API_KEY",
         "ANTHROPIC_API_KEY", "HERMES_GUARD_MODE", "PROVENANCE_GATE_MODE", "EGRESS_GUARD_POLICY")


def _merge(dst: dict, src: dict) -> dict:
    for k, v in src.items():
        if isinstance(v, dict) and isinstance(dst.get(k), dict):
            _merge(dst[k], v)
        else:
            dst[k] = v
    return dst


def write_config(home: Path, base_url: str, plugins: list, extra: dict) -> None:
    cfg = {
        "model": {"default": "fake-model", "provider": "custom", "base_url": base_url,
                  "api_key": "fake-key", "context_length": 200000},
        "plugins": {"enabled": list(plugins), "disabled": []},
        "memory": {"memory_enabled": True, "user_profile_enabled": True, "nudge_interval": 0},
        "skills": {"creation_nudge_interval": 0},
        "security": {"tirith_enabled": False},
        "approvals": {"timeout": 5},
        "terminal": {"backend": "local", "cwd": str(home / "work")},
        # The toolchain probe runs python3/pip subprocesses (seconds per
        # session, up to 18 s when slow) for a system-prompt line the fake
        # model never reads.
        "agent": {"environment_probe": False},
    }
    _merge(cfg, extra or {})
    # JSON is valid YAML, so no YAML writer is needed.
    (home / "config.yaml").write_text(json.dumps(cfg, indent=1))


def snapshot(home: Path) -> dict:
    files = {}
    if (home / "config.yaml").exists():
        files["config.yaml"] = (home / "config.yaml").read_text(encoding="utf-8")
    for sub in ("memories", "plugin-data", "work", "knowledge", "skills", "turn.closure.audit", "memory"):
        root = home / sub
        if not root.exists():
            continue
        for p in sorted(root.rglob("*")):
            if p.is_file() and p.stat().st_size < 2_000_000:
                rel = str(p.relative_to(home))
                try:
                    files[rel] = p.read_text(encoding="utf-8")
                except UnicodeDecodeError:
                    files[rel] = f"<binary {p.stat().st_size} bytes>"
                files[rel + "#mode"] = oct(p.stat().st_mode & 0o777)
    return files


def _first_id(obj) -> str:
    """The first quarantine id in a guard_review/list result of any shape."""
    if isinstance(obj, dict):
        for key in ("id", "entry_id", "quarantine_id"):
            if isinstance(obj.get(key), (str, int)):
                return str(obj[key])
        for value in obj.values():
            found = _first_id(value)
            if found:
                return found
    if isinstance(obj, list):
        for value in obj:
            found = _first_id(value)
            if found:
                return found
    return ""


def run_commands(commands: list) -> list:
    """Run plugin slash commands the way Hermes' CLI does (handler(raw_args))."""
    if not commands:
        return []
    from hermes_cli.plugins import get_plugin_commands

    registered = get_plugin_commands()
    out = []
    for name, raw in commands:
        if "{quarantine_id}" in raw:
            from tools.registry import registry

            listing = registry.dispatch("guard_review", {"action": "list"})
            try:
                raw = raw.replace("{quarantine_id}", _first_id(json.loads(listing)))
            except ValueError:
                raw = raw.replace("{quarantine_id}", "")
            out.append({"command": "guard_review list", "output": listing})
        entry = registered.get(name)
        text = entry["handler"](raw) if entry else f"<no such command {name}>"
        out.append({"command": name, "args": raw, "output": text})
    return out


def main() -> int:
    spec = json.loads(Path(sys.argv[1]).read_text())
    out_path = Path(sys.argv[2])
    home = Path(spec["home"])
    (home / "work").mkdir(parents=True, exist_ok=True)
    turns = spec["turns"]
    model = FakeModel([t.get("script", []) for t in turns], log_path=str(home.parent / "requests.jsonl"),
                      max_seconds=float(spec.get("max_seconds", 90))).start()
    write_config(home, model.base_url, spec.get("plugins", []), spec.get("config", {}))
    if spec.get("directory_plugins"):
        # The $HERMES_HOME/plugins/<name>/ layout instead of the entry points.
        from palisade_hermes.__main__ import install_plugins

        install_plugins(home, spec.get("plugins", []), vendor=bool(spec.get("vendor")))

    for var in SCRUB:
        os.environ.pop(var, None)
    os.environ["HERMES_HOME"] = str(home)
    os.environ["HOME"] = str(home.parent)  # nothing may touch the real ~/.hermes
    os.environ.update(spec.get("env", {}))

    if spec.get("directory_plugins"):
        # As on a Hermes whose environment does not have the wheel installed:
        # only the $HERMES_HOME/plugins/ copies may provide palisade-* keys.
        from hermes_cli import plugins as hermes_plugins

        scan = hermes_plugins.PluginManager._scan_entry_points

        def scan_without_palisade(self):
            return [m for m in scan(self) if not str(m.key or m.name).startswith("palisade-")]

        hermes_plugins.PluginManager._scan_entry_points = scan_without_palisade

    t0 = time.time()
    from run_agent import AIAgent  # noqa: E402  (plugin discovery happens here)
    from hermes_cli.plugins import get_plugin_manager, invoke_hook  # noqa: E402
    t_import = time.time() - t0

    prompts: list = []
    human = spec.get("human", "none")
    if human != "none":
        os.environ["HERMES_INTERACTIVE"] = "1"
        from tools.terminal_tool import set_approval_callback

        def fake_human(command, description, **kw):
            prompts.append({"command": command, "description": description})
            return human

        set_approval_callback(fake_human)

    mgr = get_plugin_manager()
    plugins = {p["key"]: {k: p.get(k) for k in ("enabled", "error", "source")}
               for p in mgr.list_plugins() if str(p.get("key", "")).startswith("palisade")}
    commands = sorted(getattr(mgr, "_plugin_commands", {}) or {})
    cli_commands = sorted(getattr(mgr, "_cli_commands", {}) or {})
    tool_names = sorted(getattr(mgr, "_plugin_tool_names", set()) or [])

    agent = AIAgent(base_url=model.base_url, api_key="fake-key", provider="custom",
                    api_mode="chat_completions", model="fake-model",
                    enabled_toolsets=spec.get("toolsets", ["memory", "skills"]),
                    quiet_mode=True, skip_context_files=True, max_iterations=12, tool_delay=0.0,
                    platform="cli", session_id=spec.get("session_id"))
    results = []
    history = None
    try:
        for turn in turns:
            n_before = len(model.requests)
            t1 = time.time()
            res = agent.run_conversation(turn["user"], conversation_history=history)
            history = res.get("messages")
            tool_msgs = [m for m in (history or []) if m.get("role") == "tool"]
            results.append({
                "final_response": res.get("final_response"),
                "seconds": round(time.time() - t1, 3),
                "model_requests": len([r for r in model.requests[n_before:] if not r["aux"]]),
                "tool_results": [m.get("content") for m in tool_msgs],
            })
        cmd_out = run_commands(spec.get("commands", []))
        if spec.get("finalize"):
            invoke_hook("on_session_finalize", session_id=agent.session_id, platform="cli", reason="exit")
    finally:
        model.stop()

    out = {
        "import_seconds": round(t_import, 3),
        "session_id": agent.session_id,
        "plugins": plugins,
        "commands": commands,
        "cli_commands": cli_commands,
        "plugin_tools": tool_names,
        "turns": results,
        "requests": [r for r in model.requests if not r["aux"]],
        "approval_prompts": prompts,
        "command_output": cmd_out,
        "files": snapshot(home),
        "plugin_dir_files": sorted(str(p.relative_to(home)) for p in (home / "plugins").rglob("*")
                                   if p.is_file() and "__pycache__" not in p.parts)
        if (home / "plugins").exists() else [],
    }
    out_path.write_text(json.dumps(out, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
