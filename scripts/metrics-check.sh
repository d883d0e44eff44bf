#!/usr/bin/env bash
# Checks the gateway's Prometheus exposition with `promtool check metrics` (format and the
# Prometheus naming lints). The exposition comes from a real run: the end-to-end test
# `metrics_endpoint` (simulator + gateway in-process, orders filled, cancelled and rejected,
# /metrics scraped over HTTP) writes its last scrape to the file named by BGW_METRICS_OUT.
#
# promtool is Debian's `prometheus` package; it is installed (apt-get, as root, or with sudo)
# when missing. Prints promtool's output; exits non-zero if the test or the check fails.
#
# Usage: scripts/metrics-check.sh [OUT_FILE]   (default target/metrics-exposition.prom)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-target/metrics-exposition.prom}"
mkdir -p "$(dirname "$out")"

if ! command -v promtool >/dev/null 2>&1; then
    echo "metrics-check: promtool missing, installing Debian's prometheus package"
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        sudo="sudo"
    fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends prometheus >/dev/null
fi

rm -f "$out"
case "$out" in
    /*) abs="$out" ;;
    *) abs="$(pwd)/$out" ;;
esac
BGW_METRICS_OUT="$abs" cargo test -q -p e2e --test metrics_endpoint \
    scrape_counts_equal_what_the_strategies_saw
if [ ! -s "$out" ]; then
    echo "metrics-check: the test wrote no exposition to $out" >&2
    exit 1
fi
echo "metrics-check: $(grep -c '^bgw_' "$out") samples in $(grep -c '^# TYPE ' "$out") families ($out)"
echo "+ promtool check metrics < $out"
# promtool prints lint problems and exits 1 on any; the output is shown either way.
if promtool check metrics < "$out"; then
    echo "metrics-check: PASS"
else
    status=$?
    echo "metrics-check: FAIL (promtool exit $status)" >&2
    exit "$status"
fi
