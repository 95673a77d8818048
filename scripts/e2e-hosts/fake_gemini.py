"""A scripted Gemini API (generateContent / streamGenerateContent) on
127.0.0.1 for the Gemini CLI part of scripts/e2e-hosts.sh. The prompt names
the scenario (E2E-<NAME>); the first call with tools answers with a
run_shell_command call, a later one (a functionResponse is present) ends
with text. Calls without tools (routing, next-speaker checks) get a JSON
text that satisfies them. Every request is appended to $FAKE_API_LOG.

Usage: fake_gemini.py PORT_FILE"""
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG = os.environ.get("FAKE_API_LOG", "/dev/null")
WORK = os.environ.get("E2E_WORK", "/tmp")
TOKEN = "ghp_4tR9kLm2Qx8Vz1Nw6Yb3Hc7Jd5Fg0Ps2Ue9A"
COMMANDS = {
    "E2E-DESTRUCTIVE": f"touch {WORK}/gemini-destructive-ran; rm -rf /",
    "E2E-CREDENTIAL": f"echo GITHUB_TOKEN={TOKEN} > {WORK}/gemini-credential-out.txt",
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


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_POST(self):
        n = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(n) or b"{}")
        with open(LOG, "a") as f:
            f.write(json.dumps({"path": self.path, "body": body}) + "\n")
        if ":countTokens" in self.path:
            return self._json({"totalTokens": 10})
        contents = body.get("contents", [])
        has_tools = bool(body.get("tools"))
        done = any("functionResponse" in p for c in contents for p in c.get("parts", []) if isinstance(p, dict))
        scenario = next((s for s in COMMANDS if any(s in t for t in texts(contents))), None)
        if not has_tools:
            parts = [{"text": json.dumps({"reasoning": "scripted", "model_choice": "flash", "next_speaker": "user"})}]
        elif scenario and not done:
            parts = [{"functionCall": {"name": "run_shell_command", "args": {"command": COMMANDS[scenario], "description": "e2e"}}}]
        else:
            parts = [{"text": "Done."}]
        resp = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
                "modelVersion": "gemini-e2e"}
        if "streamGenerateContent" in self.path:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            self.wfile.write(f"data: {json.dumps(resp)}\n\n".encode())
            self.wfile.flush()
        else:
            self._json(resp)

    def do_GET(self):
        self._json({"models": []})

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
