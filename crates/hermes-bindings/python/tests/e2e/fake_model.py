"""A scripted OpenAI-compatible model server for the e2e suite (stdlib only).

It binds 127.0.0.1 on an ephemeral port, answers ``GET /v1/models`` and
``POST /v1/chat/completions`` (JSON or SSE, Hermes streams by default) and
stops itself after ``max_seconds`` or ``max_requests``.

The script is a list of turns; each turn is a list of steps, each step either
``{"tool": name, "args": {...}}`` or ``{"text": "..."}``.  The turn of a request
is the number of ``user`` messages in it minus one; the step is the number of
``tool`` messages after the last ``user`` message, so each tool result moves the
script on by one.  Past the end of a turn's steps the model answers with a
plain "done" text.  Requests without ``tools`` (auxiliary calls such as title
generation) get a plain text reply and are logged with ``aux: true``.

Every request is logged (in memory and, optionally, to a JSONL file) so a
test can check what actually reached the model.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL_ID = "fake-model"


def _turn_and_step(messages: list) -> tuple[int, int]:
    users = [i for i, m in enumerate(messages) if isinstance(m, dict) and m.get("role") == "user"]
    if not users:
        return 0, 0
    last = users[-1]
    step = sum(1 for m in messages[last + 1 :] if isinstance(m, dict) and m.get("role") == "tool")
    return len(users) - 1, step


class FakeModel:
    """Owns the HTTP server, the script and the request log."""

    def __init__(self, turns: list, log_path: str | None = None,
                 max_seconds: float = 120.0, max_requests: int = 200) -> None:
        self.turns = turns
        self.log_path = log_path
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        self._max_seconds = max_seconds
        self._max_requests = max_requests
        self._server: ThreadingHTTPServer | None = None
        self.port = 0

    # -- planning -----------------------------------------------------------
    def plan(self, body: dict) -> dict:
        if not body.get("tools"):
            return {"text": "Fake auxiliary reply."}
        turn, step = _turn_and_step(body.get("messages") or [])
        steps = self.turns[turn] if turn < len(self.turns) else []
        if step < len(steps):
            return steps[step]
        return {"text": f"done (turn {turn})"}

    def record(self, path: str, body: dict) -> None:
        row = {"t": time.time(), "path": path, "aux": not body.get("tools"), "body": body}
        with self._lock:
            self.requests.append(row)
            if self.log_path:
                with open(self.log_path, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(row) + "\n")

    # -- lifecycle ----------------------------------------------------------
    def start(self) -> "FakeModel":
        owner = self

        class Handler(_Handler):
            model = owner

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        self._server = server
        self.port = server.server_address[1]
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1},
                         daemon=True, name="fake-model").start()

        def watchdog() -> None:
            deadline = time.time() + self._max_seconds
            while time.time() < deadline and len(self.requests) < self._max_requests:
                if self._server is None:
                    return
                time.sleep(0.2)
            self.stop()

        threading.Thread(target=watchdog, daemon=True, name="fake-model-watchdog").start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


class _Handler(BaseHTTPRequestHandler):
    model: FakeModel
    server_version = "PalisadeFakeModel/0.1"

    def log_message(self, fmt, *args):  # keep stderr quiet
        pass

    def _json(self, code: int, obj: dict) -> None:
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):  # noqa: N802 (http.server naming)
        if self.path.rstrip("/").endswith("/models"):
            self._json(200, {"object": "list", "data": [
                {"id": MODEL_ID, "object": "model", "owned_by": "fake", "context_length": 200000}]})
        else:
            self._json(404, {"error": {"message": "not found"}})

    def do_POST(self):  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b"{}"
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._json(404, {"error": {"message": f"unsupported path {self.path}"}})
            return
        self.model.record(self.path, body)
        step = self.model.plan(body)
        n = len(self.model.requests)
        cid, created = f"chatcmpl-{n}", int(time.time())
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        if "tool" in step:
            call = {"id": f"call_{n:03d}", "type": "function",
                    "function": {"name": step["tool"], "arguments": json.dumps(step.get("args", {}))}}
            message = {"role": "assistant", "content": None, "tool_calls": [call]}
            finish = "tool_calls"
        else:
            message = {"role": "assistant", "content": step.get("text", "")}
            finish = "stop"
        if not body.get("stream"):
            self._json(200, {"id": cid, "object": "chat.completion", "created": created,
                             "model": MODEL_ID, "usage": usage,
                             "choices": [{"index": 0, "message": message, "finish_reason": finish}]})
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()

        def send(obj: dict) -> None:
            self.wfile.write(b"data: " + json.dumps(obj).encode() + b"\n\n")

        def chunk(delta: dict, finish_reason=None) -> None:
            send({"id": cid, "object": "chat.completion.chunk", "created": created, "model": MODEL_ID,
                  "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]})

        if "tool" in step:
            chunk({"role": "assistant", "content": None, "tool_calls": [dict(call, index=0)]})
        else:
            chunk({"role": "assistant", "content": message["content"]})
        chunk({}, finish_reason=finish)
        send({"id": cid, "object": "chat.completion.chunk", "created": created, "model": MODEL_ID,
              "choices": [], "usage": usage})
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True
