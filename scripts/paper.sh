#!/usr/bin/env bash
# Paper trading in one command (docs/paper.md): builds and starts bitget-sim and the gateway with
# the shipped configurations (config/paper/sim.toml, config/paper/gateway.toml), waits until the
# gateway's /readyz answers 200, prints where strategies connect (address, sessions,
# credentials), the metrics URL and the control surface, then runs until Ctrl-C or SIGTERM and
# stops the gateway first, then the simulator. Logs go to files in the run directory.
#
# Usage: ./scripts/paper.sh [--release | --debug] [--run-dir DIR] [--no-build] [--smoke]
#                           [--timeout S] [--sim-config FILE] [--gateway-config FILE]
#   --release         build and run release binaries (the default: the latency you would see
#                     in production; the first build takes a few minutes, as for demo.sh)
#   --debug           build and run debug binaries (builds much faster; the default of --smoke)
#   --run-dir DIR     run directory (default target/paper/run-<UTC timestamp>). The gateway's
#                     journal is kept there: the same DIR again resumes the sessions.
#   --no-build        use the binaries already built
#   --smoke           start, run clients/python/examples/place_order.py once (it must print
#                     the fill), stop cleanly; exit 0 or 1 (the test command runs this)
#   --timeout S       seconds to wait for each process to become ready (default 60)
#   --sim-config F, --gateway-config F   other configurations (default config/paper/*.toml)
# Environment: PYTHON (python3 by default, 3.11+) for --smoke; CARGO_TARGET_DIR; RUST_LOG;
# BGW_CONTROL_TOKEN (default: a fresh token per run, in RUN/control-token).
# Exit status: 0 after a clean stop; 1 when a process fails to start, dies unexpectedly or
# does not stop, or the smoke test fails; 2 on a usage error.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

PROFILE=""
RUN=""
BUILD=1
SMOKE=0
TIMEOUT=60
SIM_CONFIG="$ROOT/config/paper/sim.toml"
GW_CONFIG="$ROOT/config/paper/gateway.toml"
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
    case "$1" in
        --release) PROFILE=release ;;
        --debug) PROFILE=debug ;;
        --run-dir) RUN=${2:?--run-dir needs a directory}; shift ;;
        --no-build) BUILD=0 ;;
        --smoke) SMOKE=1 ;;
        --timeout) TIMEOUT=${2:?--timeout needs seconds}; shift ;;
        --sim-config) SIM_CONFIG=$(realpath "${2:?--sim-config needs a file}"); shift ;;
        --gateway-config) GW_CONFIG=$(realpath "${2:?--gateway-config needs a file}"); shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "paper.sh: unknown argument $1 (--help lists them)" >&2; exit 2 ;;
    esac
    shift
done
if [ -z "$PROFILE" ]; then
    if [ "$SMOKE" = 1 ]; then PROFILE=debug; else PROFILE=release; fi
fi
PYTHON=${PYTHON:-python3}
if [ "$SMOKE" = 1 ] && ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "paper.sh: --smoke runs the Python example and needs Python 3.11+ ($PYTHON)" >&2
    exit 1
fi

if [ "$BUILD" = 1 ]; then
    echo "== paper: cargo build ($PROFILE) bitget-sim and gateway"
    flags=()
    [ "$PROFILE" = release ] && flags=(--release)
    cargo build --quiet "${flags[@]}" -p sim --bin bitget-sim -p gateway --bin gateway
fi
BIN_DIR=$(realpath "${CARGO_TARGET_DIR:-$ROOT/target}")/$PROFILE
SIM_BIN="$BIN_DIR/bitget-sim"
GW_BIN="$BIN_DIR/gateway"
for bin in "$SIM_BIN" "$GW_BIN"; do
    [ -x "$bin" ] || { echo "paper.sh: $bin is missing (build it, or drop --no-build)" >&2; exit 1; }
done

RUN=${RUN:-$ROOT/target/paper/run-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$RUN"
RUN=$(realpath "$RUN")
# A previous run's certificate must not be taken for this run's. The logs exist before the
# processes start: the waits below read them at once.
rm -f "$RUN/sim-ca.pem"
: >"$RUN/sim.log"
: >"$RUN/gateway.log"

SIM_PID=""
GW_PID=""
STOPPING=0
STARTED=0
# Stops one child: SIGTERM, up to 15 s for it to exit, then SIGKILL. Returns its exit status
# (137 when it had to be killed).
stop_one() {
    local name=$1 pid=$2 status=0
    if kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        if kill -0 "$pid" 2>/dev/null; then
            echo "paper: $name (pid $pid) did not stop within 15 s: SIGKILL" >&2
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    wait "$pid" 2>/dev/null || status=$?
    return "$status"
}
# Every exit path: the gateway first (its open orders and sessions end while the venue is up),
# then the simulator. No child outlives the script.
cleanup() {
    local status=$? gw_status=0 sim_status=0
    trap - EXIT INT TERM HUP
    if [ -n "$GW_PID" ]; then stop_one gateway "$GW_PID" || gw_status=$?; GW_PID=""; fi
    if [ -n "$SIM_PID" ]; then stop_one bitget-sim "$SIM_PID" || sim_status=$?; SIM_PID=""; fi
    if [ "$STOPPING" = 1 ] && [ "$STARTED" = 1 ]; then
        if [ "$gw_status" = 0 ] && [ "$sim_status" = 0 ]; then
            echo "paper: gateway and bitget-sim stopped cleanly (logs in $RUN)"
        else
            echo "paper: stop not clean: gateway exit $gw_status, bitget-sim exit $sim_status (logs in $RUN)" >&2
            status=1
        fi
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'STOPPING=1; exit 0' INT TERM HUP

# Says which process died and shows its log tail, then exits 1 (cleanup stops the other).
died() {
    local name=$1 pid=$2 log=$3 status=0
    wait "$pid" 2>/dev/null || status=$?
    if [ "$name" = gateway ]; then GW_PID=""; else SIM_PID=""; fi
    echo "paper: $name exited unexpectedly (exit status $status); last lines of $log:" >&2
    tail -n 30 "$log" >&2 || true
    exit 1
}

# Each child in a session of its own (setsid): a Ctrl-C at the terminal reaches only this
# script, which then stops them in order. Real exchange keys in the environment never reach
# the simulator: the paper configuration carries its demo keys.
echo "== paper: starting bitget-sim ($SIM_CONFIG)"
(cd "$RUN" && exec setsid "$SIM_BIN" --config "$SIM_CONFIG" --cert-out "$RUN/sim-ca.pem") \
    >"$RUN/sim.log" 2>&1 </dev/null &
SIM_PID=$!
STARTED=1
REST=""
deadline=$((SECONDS + TIMEOUT))
while :; do
    kill -0 "$SIM_PID" 2>/dev/null || died bitget-sim "$SIM_PID" "$RUN/sim.log"
    REST=$(awk '$1 == "REST" {print $2; exit}' "$RUN/sim.log" || true)
    if [ -n "$REST" ] && [ -s "$RUN/sim-ca.pem" ] &&
        curl -sf --cacert "$RUN/sim-ca.pem" "$REST/api/v3/public/time" >/dev/null 2>&1; then
        break
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
        echo "paper: bitget-sim not answering after ${TIMEOUT} s; last lines of $RUN/sim.log:" >&2
        tail -n 30 "$RUN/sim.log" >&2
        exit 1
    fi
    sleep 0.1
done

echo "== paper: gateway check-config"
if ! (cd "$RUN" && env -u BGW_API_KEY -u BGW_API_SECRET -u BGW_API_PASSPHRASE \
    "$GW_BIN" check-config "$GW_CONFIG") >"$RUN/gateway-effective.toml" 2>"$RUN/check-config.err"; then
    cat "$RUN/check-config.err" >&2
    exit 1
fi

if [ -z "${BGW_CONTROL_TOKEN:-}" ]; then
    (umask 077 && od -An -N16 -tx1 /dev/urandom | tr -d ' \n' >"$RUN/control-token")
    BGW_CONTROL_TOKEN=$(cat "$RUN/control-token")
    TOKEN_HINT="BGW_CONTROL_TOKEN=\$(cat $RUN/control-token)"
else
    TOKEN_HINT="BGW_CONTROL_TOKEN=<yours, from the environment>"
fi
echo "== paper: starting gateway ($GW_CONFIG)"
(cd "$RUN" && export BGW_CONTROL_TOKEN && exec setsid env -u BGW_API_KEY -u BGW_API_SECRET \
    -u BGW_API_PASSPHRASE "$GW_BIN" --config "$GW_CONFIG") >"$RUN/gateway.log" 2>&1 </dev/null &
GW_PID=$!
STRATEGY=""
METRICS=""
deadline=$((SECONDS + TIMEOUT))
while :; do
    kill -0 "$GW_PID" 2>/dev/null || died gateway "$GW_PID" "$RUN/gateway.log"
    kill -0 "$SIM_PID" 2>/dev/null || died bitget-sim "$SIM_PID" "$RUN/sim.log"
    STRATEGY=$(sed -n 's/^gateway: strategies connect to //p' "$RUN/gateway.log" || true)
    METRICS=$(sed -n 's|^gateway: metrics at \(http://[^/]*\)/metrics.*|\1|p' "$RUN/gateway.log" || true)
    if [ -n "$STRATEGY" ] && [ -n "$METRICS" ] &&
        [ "$(curl -s -o /dev/null -w '%{http_code}' "$METRICS/readyz")" = 200 ]; then
        break
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
        echo "paper: gateway not ready after ${TIMEOUT} s (/readyz: $(curl -s "${METRICS:-http://unknown}/readyz" || echo 'no answer')); last lines of $RUN/gateway.log:" >&2
        tail -n 30 "$RUN/gateway.log" >&2
        exit 1
    fi
    sleep 0.1
done

# The [[session]] tables of the gateway's configuration: id, credentials, name, role (tab-separated).
sessions() {
    awk '
    function flush() { if (id != "") printf "%s\t%s\t%s\t%s\n", id, cred, name, role; id = cred = name = role = "" }
    /^[ \t]*\[/ { flush(); insess = ($0 ~ /^[ \t]*\[\[session\]\][ \t]*(#.*)?$/); next }
    insess && match($0, /^[ \t]*(session_id|credentials|name|role)[ \t]*=[ \t]*/) {
        key = $0; sub(/^[ \t]*/, "", key); sub(/[ \t]*=.*/, "", key)
        val = substr($0, RSTART + RLENGTH)
        if (val ~ /^"/) { val = substr(val, 2); sub(/".*$/, "", val) } else { sub(/[ \t]*(#.*)?$/, "", val) }
        if (key == "session_id") id = val; else if (key == "credentials") cred = val; else if (key == "name") name = val; else role = val
    }
    END { flush() }' "$GW_CONFIG"
}
FIRST_ID=$(sessions | awk -F '\t' '$4 == "" || $4 == "trading" {print $1; exit}')
FIRST_CRED=$(sessions | awk -F '\t' '$4 == "" || $4 == "trading" {print $2; exit}')
EXAMPLE="PYTHONPATH=clients/python/src python3 clients/python/examples/place_order.py $STRATEGY ${FIRST_ID:-1} ${FIRST_CRED:-paper-secret-1}"
cat <<EOF

Paper trading is up: bitget-sim ($REST) + gateway, ${PROFILE} build.
  Strategies connect to  $STRATEGY
  Sessions ($GW_CONFIG):
$(sessions | awk -F '\t' '{printf "    id %-4s credentials %-18s name %s%s\n", $1, $2, $3, ($4 != "" && $4 != "trading" ? "  (role " $4 ")" : "")}')
  Metrics                $METRICS/metrics   (readiness: $METRICS/readyz)
  Control surface        $TOKEN_HINT $GW_BIN ctl --url $METRICS sessions
  Logs                   $RUN/gateway.log, $RUN/sim.log (journal: $RUN/journal)
  Try it (from $ROOT):
    $EXAMPLE
Ctrl-C (or SIGTERM) stops the gateway, then the simulator.
EOF

if [ "$SMOKE" = 1 ]; then
    echo "== paper: smoke test: the Python example, session 1"
    status=0
    PYTHONPATH="$ROOT/clients/python/src" timeout 60 "$PYTHON" \
        "$ROOT/clients/python/examples/place_order.py" "$STRATEGY" 1 paper-secret-1 \
        >"$RUN/example.out" 2>&1 || status=$?
    cat "$RUN/example.out"
    first=$(head -n 1 "$RUN/example.out")
    last=$(tail -n 1 "$RUN/example.out")
    if [ "$status" != 0 ] || [[ "$first" != "NEW NEW "* ]] || [[ "$last" != "FILL FILLED 0.01 "* ]]; then
        echo "paper: smoke FAILED: the example (exit $status) did not print NEW then FILL FILLED 0.01; gateway log tail:" >&2
        tail -n 30 "$RUN/gateway.log" >&2
        exit 1
    fi
    # Logs written to a file carry no colour codes (tracing-subscriber: ANSI only on a terminal).
    for log in "$RUN/gateway.log" "$RUN/sim.log"; do
        if grep -q $'\x1b' "$log"; then
            echo "paper: smoke FAILED: $log contains ANSI escape codes" >&2
            exit 1
        fi
    done
    echo "paper: smoke: the order filled; stopping"
    STOPPING=1
    exit 0
fi

# Runs until a signal (the trap) or until a child dies.
while :; do
    kill -0 "$GW_PID" 2>/dev/null || died gateway "$GW_PID" "$RUN/gateway.log"
    kill -0 "$SIM_PID" 2>/dev/null || died bitget-sim "$SIM_PID" "$RUN/sim.log"
    sleep 0.5
done
