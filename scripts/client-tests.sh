#!/usr/bin/env bash
# Real-client proof (issue 3): installs the pinned public Bitget clients (npm `bitget-api` with
# tests/clients/package-lock.json, PyPI `ccxt` with tests/clients/requirements.txt --require-hashes
# into .venv-clients/), starts `bitget-sim` over TLS with config/sim.example.toml on an ephemeral
# port, runs every client test against it, stops it, and exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
CLIENTS="$ROOT/tests/clients"
VENV="$ROOT/.venv-clients"

# shellcheck source=lib/clients.sh
source "$ROOT/scripts/lib/clients.sh"
install_clients "client tests"

echo "== client tests: build bitget-sim"
cargo build --quiet -p sim --bin bitget-sim
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
WORK=$(mktemp -d)
# A private copy: a shared CARGO_TARGET_DIR may be rebuilt by another checkout meanwhile.
SIM_BIN="$WORK/bitget-sim"
cp "$TARGET_DIR/debug/bitget-sim" "$SIM_BIN"

SIM_PID=""
cleanup() {
    if [ -n "$SIM_PID" ] && kill -0 "$SIM_PID" 2>/dev/null; then
        kill "$SIM_PID" 2>/dev/null || true
        wait "$SIM_PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

"$SIM_BIN" --config config/sim.example.toml --listen 127.0.0.1:0 \
    --cert-out "$WORK/sim-ca.pem" >"$WORK/sim.out" 2>"$WORK/sim.err" &
SIM_PID=$!

# Ready = the certificate is written (printed after the listener is bound) and the public time
# endpoint answers over TLS with that certificate.
REST=""
for _ in $(seq 1 100); do
    if ! kill -0 "$SIM_PID" 2>/dev/null; then
        echo "bitget-sim exited early:"; cat "$WORK/sim.out" "$WORK/sim.err"; exit 1
    fi
    if grep -q '^CA cert' "$WORK/sim.out"; then
        REST=$(awk '$1 == "REST" {print $2}' "$WORK/sim.out")
        if curl -sf --cacert "$WORK/sim-ca.pem" "$REST/api/v3/public/time" >/dev/null; then
            break
        fi
    fi
    sleep 0.1
done
if [ -z "$REST" ]; then
    echo "bitget-sim did not become ready:"; cat "$WORK/sim.out" "$WORK/sim.err"; exit 1
fi
WS_PRIVATE=$(awk '$1 == "WS" && $2 == "private" {print $3}' "$WORK/sim.out")
WS_PUBLIC=$(awk '$1 == "WS" && $2 == "public" {print $3}' "$WORK/sim.out")
echo "bitget-sim ready: $REST $WS_PRIVATE"

export SIM_REST_URL="$REST" SIM_WS_PRIVATE_URL="$WS_PRIVATE" SIM_WS_PUBLIC_URL="$WS_PUBLIC"
export SIM_CA_FILE="$WORK/sim-ca.pem"
export SIM_API_KEY=bg_demo_key SIM_API_SECRET=demo-secret SIM_API_PASSPHRASE=demo-pass

status=0
echo "== client tests: bitget-api (node)"
NODE_EXTRA_CA_CERTS="$SIM_CA_FILE" node "$CLIENTS/bitget-api.test.js" | tee "$WORK/node.log" \
    || status=1
echo "== client tests: ccxt (python)"
"$VENV/bin/python" "$CLIENTS/ccxt_test.py" | tee "$WORK/ccxt.log" || status=1

# One closing line over both clients (each prints `<name>: N passed, N failed`).
read -r total_passed total_failed < <(cat "$WORK/node.log" "$WORK/ccxt.log" |
    awk '/^[a-z-]+: [0-9]+ passed, [0-9]+ failed$/ {p += $2; f += $4; n++}
         END {if (n != 2) f++; print p + 0, f + 0}')
if [ "$total_failed" -ne 0 ] || [ "$total_passed" -eq 0 ]; then
    status=1
fi

if [ "$status" -ne 0 ]; then
    echo "client tests FAILED; simulator log:"
    tail -n 50 "$WORK/sim.err" || true
fi
echo "client-tests: $total_passed passed, $total_failed failed"
exit "$status"
