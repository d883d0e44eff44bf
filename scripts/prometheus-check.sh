#!/usr/bin/env bash
# Checks the operator's files in deploy/ with the real tools that consume them:
#   - deploy/prometheus/prometheus.yml and its rule file: `promtool check config` (which checks
#     the rules too);
#   - the alert rules' unit tests: `promtool test rules` (each alert firing and not firing);
#   - the Grafana dashboard deploy/grafana/bitget-gateway.json: structure, and every PromQL
#     expression written as a recording rule and parsed by `promtool check rules`;
#   - every metric and label name the rules and the dashboard use, against a real scrape of the
#     gateway (the file scripts/metrics-check.sh writes; it is run first when missing);
#   - a real `prometheus` server scraping the demo's gateway every second with the rules loaded
#     (scripts/prometheus_live.py).
# promtool is Debian's `prometheus` package, installed when missing (as scripts/metrics-check.sh).
#
# Usage: scripts/prometheus-check.sh [EXPOSITION_FILE]   (default target/metrics-exposition.prom)
set -euo pipefail
cd "$(dirname "$0")/.."
expo="${1:-target/metrics-exposition.prom}"

if ! command -v promtool >/dev/null 2>&1 || [ ! -s "$expo" ]; then
    # Installs promtool when missing and writes the exposition from a real run.
    ./scripts/metrics-check.sh "$expo"
fi

echo "+ promtool check config deploy/prometheus/prometheus.yml"
promtool check config deploy/prometheus/prometheus.yml
echo "+ promtool test rules deploy/prometheus/tests/bitget-gateway.rules.test.yml"
promtool test rules deploy/prometheus/tests/bitget-gateway.rules.test.yml

dash_rules="$(mktemp --suffix=.yml)"
trap 'rm -f "$dash_rules"' EXIT
echo "+ deploy/grafana/dashboard.py (the committed JSON is what it writes)"
python3 deploy/grafana/dashboard.py "$dash_rules"
if ! cmp -s "$dash_rules" deploy/grafana/bitget-gateway.json; then
    echo "prometheus-check: FAIL deploy/grafana/bitget-gateway.json differs from what deploy/grafana/dashboard.py writes" >&2
    exit 1
fi
echo "+ scripts/deploy_exprs.py (dashboard structure; names against $expo)"
python3 scripts/deploy_exprs.py deploy/grafana/bitget-gateway.json \
    deploy/prometheus/bitget-gateway.rules.yml "$expo" "$dash_rules"
echo "+ promtool check rules <the dashboard's expressions as recording rules>"
promtool check rules "$dash_rules"
# A real Prometheus server scraping a real gateway (the demo, debug build: what the test
# command's `cargo test --all-targets` built): the rules evaluate without error and stay quiet on
# a clean run, every dashboard query answers, the histogram's p99 agrees with the HDR one.
cargo build -q -p bench --bin demo
echo "+ scripts/prometheus_live.py ${CARGO_TARGET_DIR:-target}/debug/demo --orders 20000 --relay 0"
python3 scripts/prometheus_live.py "${CARGO_TARGET_DIR:-target}/debug/demo" --orders 20000 --relay 0
echo "prometheus-check: PASS"
