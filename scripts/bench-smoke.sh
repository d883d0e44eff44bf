#!/usr/bin/env bash
# Every bench at a smoke size, so that none can rot (issue 37 item 5): each runs its real binary
# with small figures and must exit 0. A bench exits non-zero when it stalls, loses or refuses
# what it should accept (its own checks: endurance's `failures`, load's with `--rates`, burst's,
# memory's, hostile's); no time is judged, the figures are only printed. Each run also has a
# wall-clock limit (`timeout`, the whole process group) so that a hang fails instead of waiting.
#
#   endurance  3 000 orders over 4 sessions with 1 000 kept open (more than the 200 per symbol
#              Bitget allows: the bench must turn the venue's caps off), one SIGKILL restart,
#              rollovers every 3 s; then 2 000 orders with the venue's open-order caps kept
#              (--venue-caps, 100 kept open) through a restart and rollovers, and the gateway's
#              own max_open_orders just above what the sessions keep open (25 kept + 8 in
#              flight per session: 36 per session, 140 for the account): the gateway's count of
#              open orders must not drift up (it would refuse orders RiskLimit or
#              OrderExceedsLimit)
#   load       two short explicit rates (200, 400 requests/s, 1 s each) on the fast venue, then
#              on the full venue with the floor: every request answered, none refused
#   burst      cancel storms of 40 orders, budget off / on / mass cancel: every order cancelled
#   memory     1 000 then 2 000 open orders over 4 sessions: every order acknowledged
#   hostile    a burst of 300 idle connections, one memory round, a 2 000-order flood beside a
#              probe session, descriptor exhaustion for 2 s: the gateway lives through each
#   peers      scripts/bench-peers.sh --smoke (50 round trips per client), skipped with a
#              message when Node.js, npm, Python 3 venv or curl is missing
#
# Usage: scripts/bench-smoke.sh [--release] [--no-build] [--only NAME[,NAME...]]
#   --release   build and run the release binaries (default: debug; a release build takes
#               minutes more)
#   --no-build  use the binaries already built (scripts/test.sh: the ones its `cargo test
#               --workspace --all-targets` built, which `cargo build -p ...` would build again
#               with another feature resolution)
#   --only      run only these (endurance, load, burst, memory, hostile, peers)
# Logs: target/bench-smoke/<name>.log (each failing run's tail is printed). The soak and the
# deterministic simulation, the other two long benches, already run in scripts/test.sh.
# Exit status: 0 when every bench passed (or peers was skipped), 1 otherwise, 2 on a usage error.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

PROFILE=debug
BUILD=1
ONLY=""
while [ $# -gt 0 ]; do
    case "$1" in
        --release) PROFILE=release ;;
        --no-build) BUILD=0 ;;
        --only) ONLY=",${2:?--only needs names},"; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench-smoke: unknown argument $1 (--help lists them)" >&2; exit 2 ;;
    esac
    shift
done
wanted() { [ -z "$ONLY" ] || [[ "$ONLY" == *",$1,"* ]]; }
for n in ${ONLY//,/ }; do
    case "$n" in
        endurance|load|burst|memory|hostile|peers) ;;
        *) echo "bench-smoke: --only: unknown bench $n (--help lists them)" >&2; exit 2 ;;
    esac
done

started=$SECONDS
if [ "$BUILD" = 1 ]; then
    echo "== bench-smoke: cargo build ($PROFILE) bitget-sim, gateway and the benches"
    flags=()
    [ "$PROFILE" = release ] && flags=(--release)
    # The same packages as bench-peers.sh builds (one feature resolution: no rebuild between).
    cargo build --quiet "${flags[@]}" -p sim --bin bitget-sim -p gateway --bin gateway \
        -p bench --bin endurance --bin load --bin burst --bin memory --bin hostile --bin peers
fi
BIN=$(realpath "${CARGO_TARGET_DIR:-$ROOT/target}")/$PROFILE
for b in bitget-sim gateway endurance load burst memory hostile peers; do
    [ -x "$BIN/$b" ] || { echo "bench-smoke: $BIN/$b is missing (build it, or drop --no-build)" >&2; exit 1; }
done
WORK="$ROOT/target/bench-smoke"
rm -rf "$WORK"
mkdir -p "$WORK"

failed=()
# run NAME LIMIT_SECONDS COMMAND...: runs COMMAND with its output in $WORK/NAME.log, under a
# wall-clock limit (SIGTERM to its process group, SIGKILL 10 s later); prints the outcome.
run() {
    local name=$1 limit=$2 t0=$SECONDS rc=0
    shift 2
    echo "== bench-smoke: $name: $*"
    timeout --kill-after=10 "$limit" "$@" >"$WORK/$name.log" 2>&1 || rc=$?
    if [ "$rc" -eq 0 ]; then
        echo "   $name passed in $((SECONDS - t0)) s"
    else
        if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
            echo "   $name FAILED: still running after ${limit} s (killed)"
        else
            echo "   $name FAILED (exit $rc) after $((SECONDS - t0)) s; last lines of $WORK/$name.log:"
        fi
        tail -n 25 "$WORK/$name.log" | sed 's/^/   | /'
        failed+=("$name")
    fi
}

if wanted endurance; then
    run endurance 120 "$BIN/endurance" --orders 3000 --sessions 4 --window 8 --open 1000 \
        --rate 300 --interval 1000 --restarts 50 --rollover-every 3s --report-ms 500 \
        --stall-secs 30 --deadline-secs 90 --work-dir "$WORK/endurance"
    run endurance-caps 120 "$BIN/endurance" --venue-caps --orders 2000 --sessions 4 --window 8 \
        --open 100 --rate 300 --interval 1000 --restarts 50 --rollover-every 2s --report-ms 500 \
        --set risk.session.max_open_orders=36 --set risk.account.max_open_orders=140 \
        --stall-secs 30 --deadline-secs 90 --work-dir "$WORK/endurance-caps"
fi
if wanted load; then
    run load-fast 60 "$BIN/load" --venue fast --rates 200,400 --step-secs 1 --sessions 2 --no-floor
    run load-full 60 "$BIN/load" --venue full --rates 200,400 --step-secs 1 --sessions 2
fi
if wanted burst; then
    run burst 90 "$BIN/burst" --orders 40
fi
if wanted memory; then
    run memory 90 "$BIN/memory" --levels 1000,2000 --sessions 4 --window 32
fi
if wanted hostile; then
    run hostile 150 "$BIN/hostile" --burst 300 --rounds 1 --flood 2000 --exhaust-secs 2 \
        --exhaust-conns 200 --probe-requests 100 --work-dir "$WORK/hostile"
fi
if wanted peers; then
    peers_flags=(--smoke "--$PROFILE")
    [ "$BUILD" = 0 ] && peers_flags+=(--no-build)
    run peers 180 ./scripts/bench-peers.sh "${peers_flags[@]}"
    grep -h 'SKIPPED' "$WORK/peers.log" | sed 's/^/   /' || true
fi

echo "== bench-smoke: $((SECONDS - started)) s in all"
if [ "${#failed[@]}" -gt 0 ]; then
    echo "bench-smoke FAILED: ${failed[*]} (logs in $WORK)" >&2
    exit 1
fi
echo "bench-smoke: every bench passed"
