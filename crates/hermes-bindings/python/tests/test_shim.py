"""Unit tests of the Python shim: directive translation and failure policy.

These need only the installed wheel (no Hermes): a failing native call is
simulated by swapping the cached dispatcher for one that raises.
"""

from __future__ import annotations

import json
import threading

import pytest

from palisade_hermes import _shim, injection


class Raising:
    def hooks(self):
        return ["pre_tool_call", "pre_llm_call", "transform_llm_output", "on_session_end"]

    def handle(self, hook, home, kwargs_json):
        raise RuntimeError("boom")

    def command(self, name, home, args_json):
        raise RuntimeError("boom")


class Fixed:
    def __init__(self, out):
        self.out = out
        self.calls = []

    def hooks(self):
        return ["pre_tool_call"]

    def handle(self, hook, home, kwargs_json):
        self.calls.append((hook, json.loads(kwargs_json)))
        return self.out


@pytest.fixture
def swap(monkeypatch):
    def _swap(guard, obj):
        monkeypatch.setitem(_shim._DISPATCHERS, guard, obj)
        return obj
    return _swap


@pytest.mark.parametrize("guard,tool,blocked", [
    ("provenance", "memory", True),
    ("provenance", "skill_manage", True),
    ("provenance", "terminal", False),   # provenance only guards memory/skill writes
    ("egress", "terminal", True),
    ("injection", "write_file", True),
    ("closure", "memory", False),        # closure never blocks
])
def test_pre_tool_call_fails_closed_where_the_seed_does(swap, guard, tool, blocked):
    swap(guard, Raising())
    cb = _shim.hook_callback(guard, "pre_tool_call")
    out = cb(tool_name=tool, args={"content": "x"}, session_id="s", telemetry_schema_version="v1")
    if blocked:
        assert out["action"] == "block"
        assert "fail-closed" in out["message"]
    else:
        assert out is None


def test_other_hooks_never_raise(swap):
    swap("egress", Raising())
    # a transform that could not check its text withholds it (see below)
    assert "withheld" in _shim.hook_callback("egress", "transform_llm_output")(response_text="hi")
    assert _shim.hook_callback("egress", "on_session_end")(session_id="s") is None
    assert _shim.hook_callback("egress", "pre_llm_call")(user_message="hi") is None


def test_injection_scanner_error_holds_the_turn(swap):
    swap("injection", Raising())
    assert injection.pre_llm_call(session_id="s-err", turn_id="t1", user_message="hello") is None
    reply = injection.HELD.reply_for("s-err", "t1")
    assert reply and "fail-closed" in reply


def test_injection_holds_on_the_typed_directive_only(swap):
    hold = {"action": "hold", "message": "held: quarantine", "context": "[note]", "quarantine_id": "abc123def456"}
    swap("injection", Fixed(json.dumps(hold)))
    assert injection.pre_llm_call(session_id="s-h", turn_id="t1", user_message="x") is None
    reply = injection.HELD.reply_for("s-h", "t1")
    assert reply.startswith("held: quarantine")
    assert "/guard-release abc123def456" in reply
    # a context note that merely looks like a hold is just context now
    note = {"context": "[hermes-guard] BLOCK: looks like a hold but is not one"}
    swap("injection", Fixed(json.dumps(note)))
    assert injection.pre_llm_call(session_id="s-h", turn_id="t2", user_message="x") == note
    assert injection.HELD.reply_for("s-h", "t2") is None
    # another plugin's generic pre_llm_call keeps the hold's context for the model
    swap("provenance", Fixed(json.dumps(hold)))
    assert _shim.hook_callback("provenance", "pre_llm_call")(user_message="x") == {"context": "[note]"}


def test_directive_translation(swap):
    fixed = swap("egress", Fixed(json.dumps({"action": "approve", "message": "m", "rule_key": "egress-guard:EG-NET-001"})))
    out = _shim.hook_callback("egress", "pre_tool_call")(tool_name="terminal", args={"command": "x"})
    assert out == {"action": "approve", "message": "m", "rule_key": "egress-guard:EG-NET-001"}
    assert fixed.calls[0][0] == "pre_tool_call"
    assert fixed.calls[0][1]["args"] == {"command": "x"}

    swap("egress", Fixed(json.dumps({"action": "modify", "args": {"command": "echo [REDACTED]"}})))
    live = {"command": "echo sk-live"}
    out = _shim.hook_callback("egress", "pre_tool_call")(tool_name="terminal", args=live)
    assert out == {"action": "modify", "args": {"command": "echo [REDACTED]"}}
    assert live == {"command": "echo [REDACTED]"}  # 0.19.0: applied to the executed dict

    swap("egress", Fixed(json.dumps("rewritten reply")))
    assert _shim.hook_callback("egress", "transform_llm_output")(response_text="x") == "rewritten reply"

    swap("egress", Fixed("null"))
    assert _shim.hook_callback("egress", "transform_llm_output")(response_text="x") is None

    swap("provenance", Fixed(json.dumps({"context": "note"})))
    assert _shim.hook_callback("provenance", "pre_llm_call")(user_message="x") == {"context": "note"}


def test_unserialisable_kwargs_are_encoded_not_raised():
    class Obj:
        def __str__(self):
            return "<obj>"

    text = _shim.encode_kwargs({"a": {1, 2}, "b": b"\xff", "c": Obj(), "gateway": object()})
    data = json.loads(text)
    assert sorted(data["a"]) == [1, 2] and data["c"] == "<obj>" and "gateway" not in data


def test_held_turns_are_scoped_and_thread_safe():
    held = _shim.HeldTurns()
    def worker(i):
        held.hold("s", f"t{i}", f"r{i}")
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert held.reply_for("s", "t7") == "r7"
    assert held.reply_for("other", "t7") is None


def test_guard_review_refuses_owner_actions():
    for action in ("release", "delete"):
        out = json.loads(injection.guard_review({"action": action, "id": "1"}))
        assert "owner-only" in out["error"]


def test_llm_execution_short_circuits_only_held_turns():
    injection.HELD.hold("s-mw", "t-held", "held reply")
    calls = []
    def next_call(req):
        calls.append(req)
        return "provider"
    resp = injection.llm_execution(request={"messages": []}, next_call=next_call, session_id="s-mw",
                                   turn_id="t-held", api_mode="chat_completions", model="m")
    assert resp.choices[0].message.content == "held reply" and calls == []
    assert injection.llm_execution(request={}, next_call=next_call, session_id="s-mw",
                                   turn_id="t-other", api_mode="chat_completions") == "provider"
    # a non-chat wire format never carries the held text
    injection.llm_execution(request={"messages": [{"role": "user", "content": "EVIL"}]},
                            next_call=next_call, session_id="s-mw", turn_id="t-held",
                            api_mode="anthropic_messages")
    assert "EVIL" not in json.dumps(calls[-1])


def test_native_guard_builds_for_every_plugin():
    pytest.importorskip("palisade_hermes._native")
    for guard in ("provenance", "egress", "injection", "closure"):
        hooks = _shim.dispatcher(guard).hooks()
        assert isinstance(hooks, list) and hooks, guard
    with pytest.raises(Exception):
        _shim._native.Guard("nope", "0.19.0")
    # the shim applies modify itself, so the dispatcher may ask for rewrites
    assert json.loads(_shim.dispatcher("egress").host())["supports_modify"] is True
    assert json.loads(_shim._native.Guard("egress", "0.19.0").host())["supports_modify"] is False


def test_encoding_drops_live_objects_and_history():
    out = json.loads(_shim.encode_kwargs({
        "session_id": "s", "user_message": "hi", "conversation_history": [{"role": "user", "content": "x" * 1000}],
        "next_call": object(), "args": {"k": {1, 2}},
    }))
    assert out == {"session_id": "s", "user_message": "hi", "args": {"k": [1, 2]}}


# -- issue 22 item 1: lone UTF-16 surrogates never switch redaction off ------

AWS_KEY = "AKIA" + "QZ7XWJ4NB2YT6RKD"  # AWS-access-key shaped, made up


def test_lone_surrogates_become_u_fffd_one_for_one():
    text = "a\ud800b\udfffc" + "\ud83d\ude00"  # two lone surrogates, then a pair
    out = _shim.scrub_surrogates(text)
    assert out == "a\ufffdb\ufffdc\U0001F600"
    out.encode("utf-8")  # valid UTF-8 now
    assert out.index("b") == text.index("b") and out.index("c") == text.index("c")
    plain = "no surrogates here"
    assert _shim.scrub_surrogates(plain) is plain
    encoded = _shim.encode_kwargs({"response_text": json.loads('"x \\ud800 y"')})
    assert json.loads(encoded)["response_text"] == "x \ufffd y"


def test_lone_surrogate_does_not_switch_off_egress_redaction(tmp_path, monkeypatch):
    pytest.importorskip("palisade_hermes._native")
    monkeypatch.setenv("HERMES_HOME", str(tmp_path))
    text = json.loads('"key ' + AWS_KEY + ' then \\ud800 end"')
    out = _shim.hook_callback("egress", "transform_llm_output")(response_text=text, session_id="s")
    assert isinstance(out, str), out
    assert AWS_KEY not in out and "\ufffd end" in out
    result = '{"output": "export KEY=' + AWS_KEY + '\udc80"}'  # a lone low surrogate
    out = _shim.hook_callback("egress", "transform_tool_result")(
        tool_name="terminal", args={}, result=result, session_id="s")
    assert isinstance(out, str) and AWS_KEY not in out, out


def test_egress_transform_withholds_when_the_guard_cannot_run(swap):
    swap("egress", Raising())
    out = _shim.hook_callback("egress", "transform_tool_result")(result="AKIA...", tool_name="t")
    assert isinstance(out, str) and "withheld" in out and "fail-closed" in out


# -- issue 22 item 5: fallbacks and fail-closed decisions reach the log -------

def test_invalid_policy_is_logged_once_naming_the_file(tmp_path, monkeypatch, caplog):
    pytest.importorskip("palisade_hermes._native")
    monkeypatch.setenv("HERMES_HOME", str(tmp_path))
    (tmp_path / "egress-guard.yaml").write_text("rules: [unclosed")
    monkeypatch.setitem(_shim._DISPATCHERS, "egress", _shim._native.Guard("egress", "0.19.0"))
    cb = _shim.hook_callback("egress", "transform_llm_output")
    with caplog.at_level("WARNING", logger="palisade_hermes"):
        cb(response_text="hello", session_id="s")
        cb(response_text="hello again", session_id="s")
    lines = [r.getMessage() for r in caplog.records if "egress-guard.yaml" in r.getMessage()]
    assert len(lines) == 1, [r.getMessage() for r in caplog.records]


def test_broken_injection_store_is_logged_and_named_to_the_model(tmp_path, monkeypatch, caplog):
    pytest.importorskip("palisade_hermes._native")
    monkeypatch.setenv("HERMES_HOME", str(tmp_path))
    data = tmp_path / "plugin-data" / "hermes-guard"
    data.mkdir(parents=True)
    (data / "guard.sqlite3").write_bytes(b"this is not a database" * 100)
    monkeypatch.setitem(_shim._DISPATCHERS, "injection", _shim._native.Guard("injection", "0.19.0"))
    with caplog.at_level("WARNING", logger="palisade_hermes"):
        injection.pre_llm_call(session_id="s-store", turn_id="t1", user_message="hello")
    reply = injection.HELD.reply_for("s-store", "t1")
    assert reply and "could not read its store" in reply, reply
    assert any("hermes-guard" in r.getMessage() and "failed closed" in r.getMessage()
               for r in caplog.records), [r.getMessage() for r in caplog.records]


def test_plugin_list_descriptions_say_what_each_plugin_does():
    """Issue 22 item 9: Hermes 0.19.0 lists every entry point of one wheel
    with the wheel's Summary, so the Summary names each plugin key, and each
    directory plugin has its own description."""
    import pathlib
    import tomllib

    root = pathlib.Path(__file__).resolve().parents[1]
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    keys = list(project["entry-points"]["hermes_agent.plugins"])
    assert len(keys) == 4
    for key in keys:
        assert key in project["description"], key
    descriptions = set()
    for key in keys:
        text = (root / "palisade_hermes" / "plugin_dirs" / key / "plugin.yaml").read_text()
        line = next(l for l in text.splitlines() if l.startswith("description:"))
        descriptions.add(line)
    assert len(descriptions) == 4
