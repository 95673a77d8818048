"""A scripted OpenAI Responses API on 127.0.0.1 for the Codex part of
scripts/e2e-hosts.sh. The prompt names the scenario (E2E-<NAME>); the first
call answers with a shell tool call built for whichever shell tool the
request offers, later calls (a function_call_output is present) end the
turn with text. Every request body is appended to $FAKE_API_LOG.

Usage: fake_openai.py PORT_FILE"""
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG = os.environ.get("FAKE_API_LOG", "/dev/null")
WORK = os.environ.get("E2E_WORK", "/tmp")
TOKEN = "ghp_4tR9kLm2Qx8Vz1Nw6Yb3Hc7Jd5Fg0Ps2Ue9A"
COMMANDS = {
    "E2E-DESTRUCTIVE": f"touch {WORK}/codex-destructive-ran; rm -rf /",
    "E2E-CREDENTIAL": f"echo GITHUB_TOKEN={TOKEN} > {WORK}/codex-credential-out.txt",
    "E2E-INJECTED": f"cat {WORK}/page.html",
}


def texts(v):
    if isinstance(v, str):
        yield v
    elif isinstance(v, list):
        for x in v:
            yield from texts(x)
    elif isinstance(v, dict):
        for x in v.values():
            yield from texts(x)


def shell_call(tools, command):
    names = [t.get("name") for t in tools if isinstance(t, dict)]
    for name, args in (("shell_command", {"command": command}),
                       ("exec_command", {"cmd": command}),
                       ("shell", {"command": ["bash", "-lc", command]})):
        if name in names:
            return name, args
    return None


def sse(kind, data):
    data = dict(data, type=kind)
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        self._json({"object": "list", "data": [{"id": "gpt-e2e", "object": "model"}], "models": []})

    def do_POST(self):
        n = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(n) or b"{}")
        with open(LOG, "a") as f:
            f.write(json.dumps({"path": self.path, "body": body}) + "\n")
        items = body.get("input", [])
        done = any(isinstance(i, dict) and i.get("type", "").endswith("_output") for i in items)
        scenario = next((s for s in COMMANDS if any(s in t for t in texts(items))), None)
        out = []
        call = None if done or scenario is None else shell_call(body.get("tools", []), COMMANDS[scenario])
        if call:
            out.append({"type": "function_call", "id": "fc_1", "call_id": "call_e2e_1", "name": call[0],
                        "arguments": json.dumps(call[1]), "status": "completed"})
        else:
            out.append({"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                        "content": [{"type": "output_text", "text": "Done.", "annotations": []}]})
        resp = {"id": "resp_e2e", "object": "response", "status": "completed", "model": body.get("model"),
                "output": out, "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
                                          "input_tokens_details": {"cached_tokens": 0},
                                          "output_tokens_details": {"reasoning_tokens": 0}}}
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        chunks = [sse("response.created", {"response": dict(resp, status="in_progress", output=[])})]
        for i, item in enumerate(out):
            chunks.append(sse("response.output_item.added", {"output_index": i, "item": item}))
            chunks.append(sse("response.output_item.done", {"output_index": i, "item": item}))
        chunks.append(sse("response.completed", {"response": resp}))
        self.wfile.write(b"".join(chunks))
        self.wfile.flush()

    def _json(self, obj):
        data = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(sys.argv[1], "w") as f:
        f.write(str(server.server_address[1]))
    server.serve_forever()
