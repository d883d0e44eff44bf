#!/usr/bin/env bash
# The project's test command (README): installs what the tests need, then runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --all-targets
# Short soak: 3 000 orders under 30 exchange connection drops, strategy drops, duplicated and
# reordered pushes, outcome-unknown replies and one gateway SIGKILL + restart.
./scripts/soak.sh --orders 3000 --drops 30 --strategy-drops 4 --work-dir target/soak-ci
# Unmodified public Bitget clients (npm bitget-api, PyPI ccxt) against bitget-sim.
./scripts/client-tests.sh
