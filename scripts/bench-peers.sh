#!/usr/bin/env bash
# Peers side by side (issue 12 item 5): one `bitget-sim` (release unless --debug; TLS,
# config/sim.example.toml, ephemeral port) and four clients that run, one after the other and
# one request in flight, the same flow many times: place a resting limit buy → wait for its ack
# → cancel it → wait for the cancel's ack. Prints one table of the place and cancel round trips (p50/p90/p99/p99.9, µs)
# per client and each peer's ratio to the gateway (peer / gateway: above 1, the gateway is
# faster).
#
#   gateway     the `gateway` process (generated config: the sim's URLs and CA, the demo account,
#               one strategy session, rate budget "unlimited") driven by the Rust reference client
#               (`peers`, bench/src/peers_main.rs); ack = the first ExecutionReport for the
#               ClOrdID (New; Canceled for the cancel)
#   bitget-api  npm `bitget-api` WebsocketAPIClient (bench/peers/bitget-api.js); ack = the reply
#   raw-ws      bare Node `ws`, hand-built JSON and login signature (bench/peers/raw-ws.js)
#   ccxt        PyPI `ccxt` over REST, rate limiter off (bench/peers/ccxt_peer.py); ack = the
#               HTTP response
# Percentiles: HdrHistogram (3 significant digits) for the gateway, exact nearest-rank for the
# others. The gateway runs alone (it is stopped before the peers start), so the account's pushes
# of the peers' orders cost it nothing.
#
# Usage: scripts/bench-peers.sh [--iterations N] [--warmup N] [--pin-gateway] [--debug | --release]
#                               [--no-build] [--smoke]
#   --iterations N   recorded iterations per client (env BENCH_PEERS_ITERATIONS; default 2000)
#   --warmup N       iterations before those, not recorded (env BENCH_PEERS_WARMUP; default 200)
#   --pin-gateway    pin the gateway's io thread to core 0 and its tracker to core 1 ([io] core,
#                    [tracker] core; env BENCH_PEERS_PIN_GATEWAY=1). Default: not pinned, the
#                    example configuration's defaults.
#   --debug          build and run the debug binaries (the figures are then not the gateway's);
#   --release        the release ones (the default, but with --smoke)
#   --no-build       use the binaries already built (bitget-sim, gateway, peers)
#   --smoke          the test command's run (scripts/bench-smoke.sh): debug unless --release, 50
#                    iterations after 10 (unless given), and skipped (exit 0, with a message)
#                    when Node.js, npm, Python 3 with venv or curl is missing rather than
#                    installed
# Installs the pinned clients like scripts/client-tests.sh (npm ci in tests/clients, pip
# --require-hashes into .venv-clients/), builds the binaries (release unless --debug), stops every
# process it started on exit, and exits non-zero if any client fails (a refused or unanswered
# request, or no answer for 10 s, fails a client).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
CLIENTS="$ROOT/tests/clients"
VENV="$ROOT/.venv-clients"

ITERATIONS=${BENCH_PEERS_ITERATIONS:-}
WARMUP=${BENCH_PEERS_WARMUP:-}
PIN_GATEWAY=${BENCH_PEERS_PIN_GATEWAY:-0}
PROFILE=""
SMOKE=0
BUILD=1
while [ $# -gt 0 ]; do
    case "$1" in
        --debug) PROFILE=debug; shift ;;
        --release) PROFILE=release; shift ;;
        --smoke) SMOKE=1; shift ;;
        --no-build) BUILD=0; shift ;;
        --iterations) ITERATIONS=${2:-}; shift 2 || shift ;;
        --iterations=*) ITERATIONS=${1#*=}; shift ;;
        --warmup) WARMUP=${2:-}; shift 2 || shift ;;
        --warmup=*) WARMUP=${1#*=}; shift ;;
        --pin-gateway) PIN_GATEWAY=1; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench-peers: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
if [ -z "$PROFILE" ]; then
    if [ "$SMOKE" = 1 ]; then PROFILE=debug; else PROFILE=release; fi
fi
if [ "$SMOKE" = 1 ]; then
    ITERATIONS=${ITERATIONS:-50}
    WARMUP=${WARMUP:-10}
    missing=""
    command -v node >/dev/null 2>&1 || missing="$missing node"
    command -v npm >/dev/null 2>&1 || missing="$missing npm"
    command -v curl >/dev/null 2>&1 || missing="$missing curl"
    python3 -c "import venv, ensurepip" >/dev/null 2>&1 || missing="$missing python3-venv"
    if [ -n "$missing" ]; then
        echo "bench-peers: SKIPPED (smoke): missing$missing (the peers are Node.js and Python clients)"
        exit 0
    fi
fi
ITERATIONS=${ITERATIONS:-2000}
WARMUP=${WARMUP:-200}
if ! [[ "$ITERATIONS" =~ ^[1-9][0-9]*$ ]] || ! [[ "$WARMUP" =~ ^[0-9]+$ ]]; then
    echo "bench-peers: --iterations must be a positive integer, --warmup a non-negative one" >&2
    exit 2
fi

# The order every client sends: a buy ~3 % under the simulator's starting mid (60000; its walk
# stays within tens of USDT), so it rests until cancelled, and inside the gateway's pre-trade
# price band (the instrument's 5 % buy limit ratio around the mark price).
export BENCH_SYMBOL=BTCUSDT BENCH_CATEGORY=usdt-futures BENCH_PRICE=58000 BENCH_QTY=0.001
export BENCH_ITERATIONS="$ITERATIONS" BENCH_WARMUP="$WARMUP" BENCH_CLIENTS_DIR="$CLIENTS"

# shellcheck source=lib/clients.sh
source "$ROOT/scripts/lib/clients.sh"
install_clients bench-peers

if [ "$BUILD" = 1 ]; then
    echo "== bench-peers: build ($PROFILE) bitget-sim, gateway, peers"
    build_flags=()
    [ "$PROFILE" = release ] && build_flags=(--release)
    cargo build "${build_flags[@]}" --quiet -p sim --bin bitget-sim -p gateway --bin gateway -p bench --bin peers
fi
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
WORK=$(mktemp -d)
# Private copies: a shared target dir may be rebuilt by another checkout meanwhile.
for b in bitget-sim gateway peers; do
    cp "$TARGET_DIR/$PROFILE/$b" "$WORK/$b"
done

SIM_PID=""
GW_PID=""
CLIENT_PID=""
# A child that has exited but is not yet reaped still has /proc/<pid>: it is not "alive".
alive() {
    [ -n "$1" ] && [ -r "/proc/$1/stat" ] && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]
}
# stop PID SIGNAL: sends SIGNAL, waits up to 5 s, then SIGKILL; reaps the process.
stop() {
    local pid=$1 sig=$2
    [ -n "$pid" ] || return 0
    if alive "$pid"; then
        kill "-$sig" "$pid" 2>/dev/null || true
        for _ in $(seq 1 50); do
            alive "$pid" || break
            sleep 0.1
        done
        if alive "$pid"; then
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    wait "$pid" 2>/dev/null || true
}
cleanup() {
    stop "$CLIENT_PID" TERM
    stop "$GW_PID" INT
    stop "$SIM_PID" TERM
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Each log exists before its process starts: the waits below read it at once (a background
# process opens its redirections only once it runs; awk on a missing file ended the script).
: >"$WORK/sim.out"
: >"$WORK/sim.err"
"$WORK/bitget-sim" --config config/sim.example.toml --listen 127.0.0.1:0 \
    --cert-out "$WORK/sim-ca.pem" >"$WORK/sim.out" 2>"$WORK/sim.err" &
SIM_PID=$!
# Ready = the certificate is written (printed after the listener is bound) and the public time
# endpoint answers over TLS with that certificate.
REST=""
for _ in $(seq 1 100); do
    if ! alive "$SIM_PID"; then
        echo "bitget-sim exited early:"; cat "$WORK/sim.out" "$WORK/sim.err"; exit 1
    fi
    if grep -q '^CA cert' "$WORK/sim.out"; then
        REST=$(awk '$1 == "REST" {print $2}' "$WORK/sim.out")
        if curl -sf --cacert "$WORK/sim-ca.pem" "$REST/api/v3/public/time" >/dev/null; then
            break
        fi
        REST=""
    fi
    sleep 0.1
done
if [ -z "$REST" ]; then
    echo "bitget-sim did not become ready:"; cat "$WORK/sim.out" "$WORK/sim.err"; exit 1
fi
WS_PRIVATE=$(awk '$1 == "WS" && $2 == "private" {print $3}' "$WORK/sim.out")
echo "bitget-sim ready: $REST $WS_PRIVATE"
export SIM_REST_URL="$REST" SIM_WS_PRIVATE_URL="$WS_PRIVATE" SIM_CA_FILE="$WORK/sim-ca.pem"
export SIM_API_KEY=bg_demo_key SIM_API_SECRET=demo-secret SIM_API_PASSPHRASE=demo-pass

cat >"$WORK/gateway.toml" <<EOF
# Generated by scripts/bench-peers.sh.
[strategy]
listen = "127.0.0.1:0"

[[session]]
session_id = 1
credentials = "bench-peers"
name = "bench-peers"

[exchange]
ws_private_url = "$WS_PRIVATE"
rest_url = "$REST"
api_key = "bg_demo_key"
secret = "demo-secret"
passphrase = "demo-pass"
ca_cert_pem_path = "$WORK/sim-ca.pem"
categories = ["USDT-FUTURES"]

[rate]
# The benchmark sends far above Bitget's 10 orders/s (the simulator enforces no quota either).
tier = "unlimited"
EOF
if [ "$PIN_GATEWAY" = 1 ]; then
    printf '\n[io]\ncore = 0\n\n[tracker]\ncore = 1\n' >>"$WORK/gateway.toml"
    GW_MODE="io thread pinned to core 0, tracker to core 1"
else
    GW_MODE="not pinned"
fi

# Each client's RESULT lines go to results.txt; its output to <name>.out / <name>.err.
: >"$WORK/results.txt"
status=0
failed_clients=""
run_client() {
    local name=$1
    shift
    echo "== bench-peers: $name ($WARMUP warm-up + $ITERATIONS recorded iterations)"
    local started=$SECONDS rc=0
    "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
    CLIENT_PID=$!
    wait "$CLIENT_PID" || rc=$?
    CLIENT_PID=""
    grep -a '^RESULT ' "$WORK/$name.out" >>"$WORK/results.txt" || true
    if [ "$rc" -ne 0 ] || [ "$(grep -ac "^RESULT $name " "$WORK/$name.out")" -ne 2 ]; then
        echo "   $name FAILED (exit $rc):"
        tail -n 20 "$WORK/$name.out" "$WORK/$name.err" | sed 's/^/   /'
        status=1
        failed_clients="$failed_clients $name"
    else
        echo "   done in $((SECONDS - started)) s"
    fi
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)

# (a) The gateway, started for its turn only: it subscribes to the account's pushes, which the
# other clients' orders would otherwise also cost it (and the simulator) while they run.
: >"$WORK/gateway-process.out"
: >"$WORK/gateway-process.err"
"$WORK/gateway" --config "$WORK/gateway.toml" >"$WORK/gateway-process.out" 2>"$WORK/gateway-process.err" &
GW_PID=$!
GW_ADDR=""
for _ in $(seq 1 200); do
    if ! alive "$GW_PID"; then
        break
    fi
    GW_ADDR=$(awk '/strategies connect to/ {print $NF}' "$WORK/gateway-process.out")
    [ -n "$GW_ADDR" ] && break
    sleep 0.1
done
if [ -z "$GW_ADDR" ]; then
    echo "   gateway did not start:"
    tail -n 20 "$WORK/gateway-process.out" "$WORK/gateway-process.err" | sed 's/^/   /'
    status=1
    failed_clients="$failed_clients gateway"
else
    run_client gateway "$WORK/peers" --addr "$GW_ADDR" --session-id 1 \
        --credentials bench-peers --iterations "$ITERATIONS" --warmup "$WARMUP" \
        --symbol "$BENCH_SYMBOL" --category "$BENCH_CATEGORY" --price "$BENCH_PRICE" \
        --qty "$BENCH_QTY" --name gateway
fi
stop "$GW_PID" INT
grep -q "gateway latency, whole run" "$WORK/gateway-process.out" || echo "   (the gateway did not stop on SIGINT: no latency table)"
GW_PID=""

# (b), (c): Node trusts the simulator's certificate through NODE_EXTRA_CA_CERTS.
run_client bitget-api env NODE_EXTRA_CA_CERTS="$SIM_CA_FILE" node bench/peers/bitget-api.js
run_client raw-ws env NODE_EXTRA_CA_CERTS="$SIM_CA_FILE" node bench/peers/raw-ws.js
# (d)
run_client ccxt "$VENV/bin/python" bench/peers/ccxt_peer.py

echo
# Other work on the machine (2 vCPUs here) shows in the figures: say how busy it was.
echo "load average (1/5/15 min) before the clients: $LOAD_BEFORE; after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "Place → ack and cancel → ack round trips, µs ($ITERATIONS recorded after $WARMUP warm-up"
echo "iterations per client, one request in flight; one bitget-sim, $BENCH_SYMBOL $BENCH_CATEGORY"
echo "limit buy $BENCH_QTY @ $BENCH_PRICE). Gateway threads: $GW_MODE."
echo "x = peer / gateway (above 1: the gateway is faster)."
awk '
    $1 == "RESULT" {
        c = $2; l = $3
        if (!(c in seen)) { seen[c] = 1; order[++nc] = c }
        for (i = 4; i <= NF; i++) { split($i, kv, "="); v[c, l, kv[1]] = kv[2] }
        have[c, l] = 1
    }
    END {
        split("p50 p90 p99 p999", qs, " ")
        printf "%-11s %-7s %6s %9s %9s %9s %9s   %7s %7s %7s %7s\n", "client", "leg", "n", \
            "p50", "p90", "p99", "p99.9", "x p50", "x p90", "x p99", "x p99.9"
        nl = split("place cancel", legs, " ")
        for (li = 1; li <= nl; li++) {
            l = legs[li]
            for (ci = 1; ci <= nc; ci++) {
                c = order[ci]
                if (!have[c, l]) continue
                printf "%-11s %-7s %6s", c, l, v[c, l, "n"]
                for (qi = 1; qi <= 4; qi++) printf " %9.1f", v[c, l, qs[qi]]
                printf "  "
                for (qi = 1; qi <= 4; qi++) {
                    g = v["gateway", l, qs[qi]]
                    if (have["gateway", l] && g > 0) printf " %7.2f", v[c, l, qs[qi]] / g
                    else printf " %7s", "-"
                }
                printf "\n"
            }
        }
    }' "$WORK/results.txt"

if [ "$status" -ne 0 ]; then
    echo
    echo "bench-peers FAILED:$failed_clients; simulator log (last lines):"
    tail -n 20 "$WORK/sim.err" || true
fi
exit "$status"
