#!/usr/bin/env bash
# The soak test (bench::soak): simulator + the real gateway binary + strategy sessions under
# exchange, strategy and process faults; prints the counts and exits 1 on any lost, repeated or
# duplicated order. Options go to the `soak` binary (`--help`); `--release` builds optimised.
# Default: 20 000 orders, 110 exchange connection drops, 8 strategy drops, one SIGKILL.
# `--sweep full` runs 16 configurations (sessions 1-16, windows 1-64, one symbol or all; four
# with session rollovers and ended orders evicted at once), `--sweep short` the two of the test
# command (the second with rollovers, eviction and journal disk-full episodes). `--disk-faults N`
# puts the journal on a tmpfs (root) filled N times. `--rollover-every 3s`, `--retention-ms N`,
# `--retention-orders N` set the gateway's [strategy] rollover and [tracker] retention.
set -euo pipefail
cd "$(dirname "$0")/.."
profile=()
args=()
for a in "$@"; do
    if [[ "$a" == "--release" ]]; then profile=(--release); else args+=("$a"); fi
done
cargo build -q "${profile[@]}" -p gateway --bin gateway -p bench --bin soak
dir="${CARGO_TARGET_DIR:-target}/debug"
[[ ${#profile[@]} -gt 0 ]] && dir="${CARGO_TARGET_DIR:-target}/release"
exec "$dir/soak" "${args[@]}"
