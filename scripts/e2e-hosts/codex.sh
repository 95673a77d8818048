# Sourced by scripts/e2e-hosts.sh: Codex CLI against fake_openai.py.
# Uses $CACHE, $W, $ROOT, $PALISADE_BIN, $TOKEN, pass/fail/skip from the caller.
CODEX="$CACHE/npm/node_modules/.bin/codex"
echo "== Codex $("$CODEX" --version 2>/dev/null)"
mkdir -p "$W/cx-home/.codex" "$W/cx-project"
: >"$W/cx-api.port"
FAKE_API_LOG="$W/cx-api.jsonl" python3 "$ROOT/scripts/e2e-hosts/fake_openai.py" "$W/cx-api.port" &
echo $! >"$W/cx-api.pid"
for _ in $(seq 50); do [ -s "$W/cx-api.port" ] && break; sleep 0.1; done
cat >"$W/cx-home/.codex/config.toml" <<TOML
model = "gpt-e2e"
model_provider = "fake"
[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:$(cat "$W/cx-api.port")/v1"
wire_api = "responses"
env_key = "FAKE_OPENAI_KEY"
TOML
HOME="$W/cx-home" "$PALISADE_BIN" hooks install codex --command "$PALISADE_BIN" >/dev/null \
  && pass "palisade hooks install codex" || fail "palisade hooks install codex"
last_output() {
  python3 - "$W/cx-api.jsonl" <<'PY'
import json, sys
last = ""
for line in open(sys.argv[1]):
    for i in json.loads(line)["body"].get("input", []):
        if isinstance(i, dict) and i.get("type", "").endswith("_output"):
            o = i.get("output")
            last = o if isinstance(o, str) else json.dumps(o)
print(last)
PY
}
run_codex() {
  : >"$W/cx-api.jsonl"
  (cd "$W/cx-project" && HOME="$W/cx-home" PALISADE_HOME="$W/palisade" FAKE_OPENAI_KEY=e2e \
    timeout 300 "$CODEX" exec --dangerously-bypass-hook-trust --skip-git-repo-check \
    --dangerously-bypass-approvals-and-sandbox "E2E-$1 please" >"$W/cx-$1.log" 2>&1)
}
run_codex DESTRUCTIVE
if ! grep -q "hook: PreToolUse" "$W/cx-DESTRUCTIVE.log"; then
  skip "codex: this Codex version ran no PreToolUse hook against the scripted endpoint ($(tail -2 "$W/cx-DESTRUCTIVE.log"))"
else
  if [ ! -e "$W/codex-destructive-ran" ] && last_output | grep -q "rm_root"; then
    pass "codex: destructive shell call denied, never ran"
  else fail "codex: destructive call ($(tail -3 "$W/cx-DESTRUCTIVE.log"))"; fi
  run_codex CREDENTIAL
  if [ -f "$W/codex-credential-out.txt" ] && ! grep -q "$TOKEN" "$W/codex-credential-out.txt" && grep -q "ghp_" "$W/codex-credential-out.txt"; then
    pass "codex: credential masked before the command ran ($(cat "$W/codex-credential-out.txt"))"
  else fail "codex: credential ($(cat "$W/codex-credential-out.txt" 2>/dev/null))"; fi
  run_codex INJECTED
  r="$(last_output)"
  if ! grep -q "rate this project" <<<"$r" && grep -q "withheld" <<<"$r"; then
    pass "codex: injected tool result replaced before the model saw it"
  else fail "codex: injected result reached the model: $r"; fi
fi
kill "$(cat "$W/cx-api.pid")" 2>/dev/null; rm -f "$W/cx-api.pid"
