#!/usr/bin/env bash
# Fuzzing (README "Fuzzing"): runs every cargo-fuzz target in fuzz/ one after the other for
# SECONDS each (default 180) on its corpus fuzz/corpus/<target>/, and prints libFuzzer's summary.
# Uses the stable toolchain with RUSTC_BOOTSTRAP=1 (cargo-fuzz needs nightly flags); installs
# cargo-fuzz from crates.io when it is missing. A crash leaves fuzz/artifacts/<target>/crash-*
# and makes the script exit non-zero.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]   fuzz (all targets when none is named)
#   scripts/fuzz.sh --seed                  rewrite the seed corpora from the fixtures (stable tests)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
TARGETS=(sofh_stream sbe_message json_frames rest_envelope ws_control fixp_session)

if [[ "${1:-}" == "--seed" ]]; then
    export BGW_WRITE_FUZZ_CORPUS=1 BGW_SHARED_DIR="${BGW_SHARED_DIR:-$ROOT/../shared}"
    cargo test -q -p codec --test fuzz_stable seeds_run_clean
    cargo test -q -p gateway --test fuzz_stable seeds_run_clean
    exit 0
fi

SECS=${1:-180}
shift || true
if [[ $# -gt 0 ]]; then TARGETS=("$@"); fi

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "== fuzz: installing cargo-fuzz (cargo install)"
    cargo install cargo-fuzz --locked
fi

export RUSTC_BOOTSTRAP=1
cd fuzz
status=0
for t in "${TARGETS[@]}"; do
    echo "== fuzz: $t for ${SECS}s"
    mkdir -p "corpus/$t" "corpus-run/$t"
    dict=()
    case $t in json_frames | rest_envelope | ws_control) dict=(-dict=dict/json.dict) ;; esac
    # New inputs go to corpus-run/ (ignored by git); corpus/ keeps the committed seeds.
    if ! cargo fuzz run -O "$t" "corpus-run/$t" "corpus/$t" -- \
        -max_total_time="$SECS" "${dict[@]}" -print_final_stats=1 \
        -rss_limit_mb=2048 -timeout=10 2>"corpus-run/$t.log"; then
        status=1
        echo "!! $t: failed (a crash leaves fuzz/artifacts/$t/crash-*; see fuzz/corpus-run/$t.log)"
    fi
    grep -a -E "DONE|^Done [0-9]+ runs|stat::average_exec_per_sec" "corpus-run/$t.log" | tail -3 || true
done
exit $status
