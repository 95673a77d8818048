# Sourced by scripts/e2e-hosts.sh: Gemini CLI against fake_gemini.py
# (GOOGLE_GEMINI_BASE_URL). Uses $CACHE, $W, $ROOT, $PALISADE_BIN, $TOKEN,
# pass/fail/skip from the caller.
GEMINI="$CACHE/npm/node_modules/.bin/gemini"
if [ ! -x "$GEMINI" ]; then
  skip "gemini: @google/gemini-cli is not installed"
  return 0 2>/dev/null || true
fi
echo "== Gemini CLI $("$GEMINI" --version 2>/dev/null)"
mkdir -p "$W/gm-home/.gemini" "$W/gm-project"
: >"$W/gm-api.port"
FAKE_API_LOG="$W/gm-api.jsonl" python3 "$ROOT/scripts/e2e-hosts/fake_gemini.py" "$W/gm-api.port" &
echo $! >"$W/gm-api.pid"
for _ in $(seq 50); do [ -s "$W/gm-api.port" ] && break; sleep 0.1; done
echo '{"security":{"auth":{"selectedType":"gemini-api-key"},"folderTrust":{"enabled":false}}}' >"$W/gm-home/.gemini/settings.json"
HOME="$W/gm-home" "$PALISADE_BIN" hooks install gemini --command "$PALISADE_BIN" >/dev/null \
  && pass "palisade hooks install gemini" || fail "palisade hooks install gemini"
last_response() {
  python3 - "$W/gm-api.jsonl" <<'PY'
import json, sys
last = ""
for line in open(sys.argv[1]):
    for c in json.loads(line)["body"].get("contents", []):
        for p in c.get("parts", []):
            if isinstance(p, dict) and "functionResponse" in p:
                last = json.dumps(p["functionResponse"].get("response"))
print(last)
PY
}
run_gemini() {
  : >"$W/gm-api.jsonl"
  (cd "$W/gm-project" && HOME="$W/gm-home" PALISADE_HOME="$W/palisade" GEMINI_API_KEY=e2e \
    GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$(cat "$W/gm-api.port")" \
    timeout 300 "$GEMINI" -p "E2E-$1 please" --yolo >"$W/gm-$1.log" 2>&1)
}
run_gemini DESTRUCTIVE
if [ ! -e "$W/gemini-destructive-ran" ] && grep -q "rm_root" "$W/gm-DESTRUCTIVE.log"; then
  pass "gemini: destructive shell call denied, never ran"
else fail "gemini: destructive call ($(grep -v '^ ' "$W/gm-DESTRUCTIVE.log" | tail -3))"; fi
run_gemini CREDENTIAL
if [ -f "$W/gemini-credential-out.txt" ] && ! grep -q "$TOKEN" "$W/gemini-credential-out.txt" && grep -q "ghp_" "$W/gemini-credential-out.txt"; then
  pass "gemini: credential masked before the command ran ($(cat "$W/gemini-credential-out.txt"))"
else fail "gemini: credential ($(cat "$W/gemini-credential-out.txt" 2>/dev/null))"; fi
run_gemini INJECTED
r="$(last_response)"
if ! grep -q "rate this project" <<<"$r" && grep -q "withheld" <<<"$r"; then
  pass "gemini: injected tool result replaced before the model saw it"
else fail "gemini: injected result reached the model: $r"; fi
kill "$(cat "$W/gm-api.pid")" 2>/dev/null; rm -f "$W/gm-api.pid"
