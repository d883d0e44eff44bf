#!/usr/bin/env bash
# The project's test command (README): installs what the tests need, then runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --all-targets
# The gateway's Prometheus exposition from a real run (e2e metrics_endpoint), checked by
# promtool (installs Debian's prometheus package when missing).
./scripts/metrics-check.sh target/metrics-exposition.prom
# The operator's files (deploy/prometheus, deploy/grafana): promtool check config and rules, the
# alert rules' unit tests (promtool test rules), the dashboard's PromQL parsed by promtool and
# its names checked against that scrape, then a real Prometheus scraping the demo's gateway.
./scripts/prometheus-check.sh target/metrics-exposition.prom
# The systemd unit (deploy/systemd/): systemd-analyze verify, and systemd-analyze security's
# exposure level at most 2.0 (installs Debian's systemd package when missing).
./scripts/systemd-check.sh
# Short soak sweep: 4 sessions × 16 and 8 × 32 orders in flight (3 500 orders), each run under
# exchange connection drops, strategy drops, duplicated and reordered pushes, outcome-unknown
# replies, delayed replies and pushes and one gateway SIGKILL + restart.
./scripts/soak.sh --sweep short --work-dir target/soak-ci
# Unmodified public Bitget clients (npm bitget-api, PyPI ccxt) against bitget-sim.
./scripts/client-tests.sh
# The Python strategy client (clients/python, pinned test deps in clients/python/.venv) against
# bitget-sim + gateway, cross-checked with the third-party sbedecoder.
./clients/python/test.sh
# Paper trading in one command (docs/paper.md): bitget-sim + gateway with config/paper/, one order
# through the Python example (it must fill), a clean stop; fixed ports 18443, 7001 and 9184.
./scripts/paper.sh --smoke
# Every bench at a smoke size, with the debug binaries `cargo test` built (endurance with a
# restart and rollovers, load on both venues, burst, memory, hostile, the peers where Node.js and
# Python are present): each must carry every order it places; no time is judged.
./scripts/bench-smoke.sh --no-build
