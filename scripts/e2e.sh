#!/usr/bin/env bash
# End-to-end suite for the palisade-hermes wheel: real hermes-agent 0.19.0 turns
# against a scripted fake model on 127.0.0.1.
#
#   scripts/e2e.sh [pytest args...]
#
# Needs only the Rust toolchain and Python 3.11-3.13. It creates (or reuses) a
# venv, installs maturin, pytest and hermes-agent==0.19.0 from the package
# index, builds the wheel with maturin, installs it and runs the suite.
#
# Environment:
#   PALISADE_E2E_VENV   venv to create/reuse (default: target/e2e-venv)
#   PALISADE_PYTHON     interpreter used to create the venv (default: python3.11, then python3)
#   CARGO_TARGET_DIR    where maturin's cargo build goes (default: target/)
#   PALISADE_E2E_JOBS   parallel pytest workers (default: the number of CPUs, at
#                       most 4; 1 runs serially). Every scenario is its own
#                       Hermes process with its own home and fake-model port.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

PKG="crates/hermes-bindings/python"
HERMES_VERSION="0.19.0"
VENV="${PALISADE_E2E_VENV:-$ROOT/target/e2e-venv}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

T_START=$(date +%s)
step() { printf '\n== e2e [%ss]: %s\n' "$(( $(date +%s) - T_START ))" "$*"; }

pick_python() {
    local candidates=("${PALISADE_PYTHON:-}" python3.11 python3.12 python3.13 python3)
    for py in "${candidates[@]}"; do
        [ -n "$py" ] || continue
        command -v "$py" >/dev/null 2>&1 || continue
        if "$py" -c 'import sys; sys.exit(0 if (3, 11) <= sys.version_info[:2] < (3, 14) else 1)'; then
            echo "$py"
            return 0
        fi
    done
    echo "e2e: need Python >=3.11,<3.14 (hermes-agent $HERMES_VERSION); set PALISADE_PYTHON" >&2
    return 1
}

venv_ok() {
    [ -x "$VENV/bin/python" ] &&
        "$VENV/bin/python" - "$HERMES_VERSION" <<'PY' 2>/dev/null
import sys
from importlib.metadata import version
ok = version("hermes-agent") == sys.argv[1]
version("maturin"); version("pytest"); version("pytest-xdist")
sys.exit(0 if ok else 1)
PY
}

if venv_ok; then
    step "reusing venv $VENV"
else
    PY="$(pick_python)"
    step "creating venv $VENV with $("$PY" --version)"
    rm -rf "$VENV"
    "$PY" -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --upgrade pip
    "$VENV/bin/python" -m pip install -q "hermes-agent==$HERMES_VERSION" "maturin>=1.5,<2" "pytest>=7" \
        "pytest-xdist>=3"
fi

step "building the wheel (maturin build --release)"
rm -rf "$CARGO_TARGET_DIR/wheels/palisade_hermes-"*.whl
"$VENV/bin/maturin" build --release --quiet -m "$PKG/Cargo.toml" -i "$VENV/bin/python" \
    -o "$CARGO_TARGET_DIR/wheels"
WHEEL="$(ls -t "$CARGO_TARGET_DIR"/wheels/palisade_hermes-*.whl | head -n 1)"

step "installing $(basename "$WHEEL")"
"$VENV/bin/python" -m pip install -q --force-reinstall --no-deps "$WHEEL"

step "pytest $PKG/tests"
# `pytest`, not `python -m pytest`: the latter puts the working directory on
# sys.path, and the source tree's palisade_hermes (no native module) would
# shadow the installed wheel.
JOBS="${PALISADE_E2E_JOBS:-$(nproc 2>/dev/null || echo 1)}"
[ "$JOBS" -gt 4 ] 2>/dev/null && JOBS=4
PARALLEL=()
if [ "$JOBS" -gt 1 ] 2>/dev/null; then
    PARALLEL=(-n "$JOBS")
fi
"$VENV/bin/pytest" -q -p no:cacheprovider ${PARALLEL[@]+"${PARALLEL[@]}"} "$PKG/tests" "$@"
step "done"
