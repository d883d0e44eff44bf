#!/usr/bin/env bash
# Tests of the Python strategy client (clients/python): creates clients/python/.venv, installs
# the pinned test dependencies (requirements-test.txt, --require-hashes: pytest, sbedecoder and
# theirs) and the package (editable, no build isolation), builds and starts the real `bitget-sim`
# (plain ws, config/sim.example.toml, ephemeral port) and `gateway` (a temporary config with
# sessions 1-14 and an operator session 20), runs pytest against them, stops both and exits
# non-zero on any failure. The last line is pytest's summary.
#
# Options: any arguments are passed to pytest (e.g. `-k fill`, `-x`).
# Environment: PYTHON (default python3, 3.11+), CARGO_TARGET_DIR, BGW_KEEP_WORK=1 keeps the
# temporary directory with the logs.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
VENV="$HERE/.venv"
PYTHON=${PYTHON:-python3}

echo "== python client: venv and pinned test dependencies"
if ! "$PYTHON" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "python client: needs Python 3.11+ with venv ($PYTHON)"; exit 1
fi
if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/pip" install --quiet --disable-pip-version-check --require-hashes \
    -r "$HERE/requirements-test.txt"
"$VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps --no-build-isolation \
    -e "$HERE"

echo "== python client: build bitget-sim and gateway"
(cd "$ROOT" && cargo build --quiet -p sim --bin bitget-sim -p gateway --bin gateway)
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
WORK=$(mktemp -d)
# Private copies: a shared CARGO_TARGET_DIR may be rebuilt by another checkout meanwhile.
cp "$TARGET_DIR/debug/bitget-sim" "$TARGET_DIR/debug/gateway" "$WORK/"

SIM_PID=""
GW_PID=""
stop() {
    local pid=$1
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        kill -INT "$pid" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
}
cleanup() {
    stop "$GW_PID"
    stop "$SIM_PID"
    if [ "${BGW_KEEP_WORK:-0}" = 1 ]; then echo "python client: logs kept in $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The logs exist before their processes start: the waits below read them at once (the shell
# opens a redirection in the child, after `&` has returned: awk found no file and set -e ended
# the script, exit 2).
: >"$WORK/sim.out"; : >"$WORK/sim.err"; : >"$WORK/gw.out"; : >"$WORK/gw.err"
"$WORK/bitget-sim" --config "$ROOT/config/sim.example.toml" --listen 127.0.0.1:0 --no-tls \
    >"$WORK/sim.out" 2>"$WORK/sim.err" &
SIM_PID=$!
REST=""
for _ in $(seq 1 100); do
    if ! kill -0 "$SIM_PID" 2>/dev/null; then
        echo "bitget-sim exited early:"; cat "$WORK/sim.out" "$WORK/sim.err"; exit 1
    fi
    REST=$(awk '$1 == "REST" {print $2}' "$WORK/sim.out")
    if [ -n "$REST" ] && curl -sf "$REST/api/v3/public/time" >/dev/null; then break; fi
    REST=""
    sleep 0.1
done
if [ -z "$REST" ]; then echo "bitget-sim did not become ready:"; cat "$WORK/sim.out" "$WORK/sim.err"; exit 1; fi
WS_PRIVATE=$(awk '$1 == "WS" && $2 == "private" {print $3}' "$WORK/sim.out")

{
    printf '[strategy]\nlisten = "127.0.0.1:0"\nkeepalive_min_ms = 100\n\n'
    for i in $(seq 1 14); do
        printf '[[session]]\nsession_id = %d\ncredentials = "py-secret-%d"\nname = "py-%d"\n\n' "$i" "$i" "$i"
    done
    printf '[[session]]\nsession_id = 20\ncredentials = "py-operator"\nrole = "operator"\n\n'
    printf '[[account]]\nname = "main"\napi_key = "bg_demo_key"\nsecret = "demo-secret"\npassphrase = "demo-pass"\n\n'
    printf '[exchange]\nws_private_url = "%s"\nrest_url = "%s"\n' "$WS_PRIVATE" "$REST"
    printf 'categories = ["USDT-FUTURES", "SPOT"]\n\n'
    printf '[rate]\ntier = "unlimited"\n\n[risk]\nmark_refresh_ms = 0\n\n'
    printf '[metrics]\nreport_interval_ms = 60000\n'
} >"$WORK/gateway.toml"

RUST_LOG=${RUST_LOG:-warn} "$WORK/gateway" --config "$WORK/gateway.toml" >"$WORK/gw.out" 2>"$WORK/gw.err" &
GW_PID=$!
GW_ADDR=""
for _ in $(seq 1 200); do
    if ! kill -0 "$GW_PID" 2>/dev/null; then
        echo "gateway exited early:"; cat "$WORK/gw.out" "$WORK/gw.err"; exit 1
    fi
    GW_ADDR=$(sed -n 's/^gateway: strategies connect to //p' "$WORK/gw.out")
    [ -n "$GW_ADDR" ] && break
    sleep 0.1
done
if [ -z "$GW_ADDR" ]; then echo "gateway did not start:"; cat "$WORK/gw.out" "$WORK/gw.err"; exit 1; fi
echo "python client: simulator $REST, gateway $GW_ADDR"

export BGW_GATEWAY="$GW_ADDR" BGW_SIM_REST="$REST" BGW_REQUIRE_GATEWAY=1
export BGW_SCHEMA="$ROOT/codec/schema/bgw.xml"
export BGW_EXAMPLES="$HERE/examples"
status=0
(cd "$HERE" && "$VENV/bin/python" -m pytest -q -p no:cacheprovider "$@") >"$WORK/pytest.log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
    cat "$WORK/pytest.log"
    echo "python client tests FAILED; gateway log (tail):"
    tail -n 30 "$WORK/gw.out" "$WORK/gw.err" || true
    tail -n 1 "$WORK/pytest.log"
else
    cat "$WORK/pytest.log"
fi
exit "$status"
