#!/usr/bin/env bash
# The main job (README): builds in release mode, then runs the venue simulator (TLS), the
# gateway and the demo strategy in one process and prints the latency tables.
# Extra arguments go to the demo (see `./scripts/demo.sh --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --release --quiet -p bench --bin demo -- "$@"
