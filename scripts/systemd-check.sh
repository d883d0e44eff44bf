#!/usr/bin/env bash
# Checks the systemd packaging (deploy/systemd/) with the real systemd tools, offline (systemd
# need not run as PID 1):
#   1. `systemd-sysusers --root=TMP` creates the service user from the sysusers.d snippet;
#   2. the gateway binary validates the example configuration (`gateway check-config`, with
#      dummy credentials in the environment as the unit's EnvironmentFile gives them);
#   3. `systemd-analyze verify` on a copy of the unit whose ExecStart/ExecStartPre point at the
#      built binary (verify checks that the command exists): fails on a non-zero exit or on
#      any warning it prints;
#   4. `systemd-analyze security --offline=true` on that copy: prints the table and the overall
#      exposure level; fails above MAX_EXPOSURE (default 2.0, "OK"; override with the env var).
#
# systemd-analyze and systemd-sysusers are Debian's `systemd` package; it is installed
# (apt-get, as root, or with sudo) when missing. The gateway binary is GATEWAY_BIN, else
# target/debug/gateway (built with `cargo build -p gateway` when missing).
#
# Usage: scripts/systemd-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
unit_src=deploy/systemd/bitget-gateway.service
sysusers_src=deploy/systemd/bitget-gateway.sysusers.conf
max_exposure="${MAX_EXPOSURE:-2.0}"

if ! command -v systemd-analyze >/dev/null 2>&1 || ! command -v systemd-sysusers >/dev/null 2>&1; then
    echo "systemd-check: systemd-analyze missing, installing Debian's systemd package"
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        sudo="sudo"
    fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends systemd >/dev/null
fi
echo "systemd-check: $(systemd-analyze --version | head -n 1)"

bin="${GATEWAY_BIN:-target/debug/gateway}"
if [ ! -x "$bin" ]; then
    cargo build -q -p gateway --bin gateway
fi
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "+ systemd-sysusers --root=$work/root $sysusers_src"
mkdir -p "$work/root/etc"
systemd-sysusers --root="$work/root" "$(pwd)/$sysusers_src"
if ! grep -q '^bitget-gateway:' "$work/root/etc/passwd"; then
    echo "systemd-check: FAIL (the sysusers snippet created no bitget-gateway user)" >&2
    exit 1
fi

echo "+ gateway check-config config/gateway.example.toml"
BGW_API_KEY=check BGW_API_SECRET=check BGW_API_PASSPHRASE=check \
    "$bin" check-config config/gateway.example.toml >"$work/effective.toml"
echo "systemd-check: example configuration valid ($(wc -l <"$work/effective.toml") lines of effective configuration)"

# Same file name (the unit name is the file name), ExecStart pointed at the built binary.
unit="$work/bitget-gateway.service"
sed "s#/usr/local/bin/gateway#$bin#g" "$unit_src" >"$unit"

echo "+ systemd-analyze verify $unit_src (ExecStart -> $bin)"
if ! verify_out="$(systemd-analyze verify "$unit" 2>&1)"; then
    printf '%s\n' "$verify_out"
    echo "systemd-check: FAIL (systemd-analyze verify)" >&2
    exit 1
fi
if [ -n "$verify_out" ]; then
    printf '%s\n' "$verify_out"
    echo "systemd-check: FAIL (systemd-analyze verify printed warnings)" >&2
    exit 1
fi
echo "systemd-analyze verify: no findings"

# --threshold is in tenths: exit non-zero when the exposure is above it.
threshold="$(awk -v m="$max_exposure" 'BEGIN { printf "%d", m * 10 + 0.5 }')"
echo "+ systemd-analyze security --offline=true --threshold=$threshold $unit_src"
status=0
security_out="$(systemd-analyze security --no-pager --offline=true --threshold="$threshold" "$unit" 2>&1)" || status=$?
printf '%s\n' "$security_out"
level="$(printf '%s\n' "$security_out" | grep 'Overall exposure level' || true)"
if [ -z "$level" ]; then
    echo "systemd-check: FAIL (no exposure level printed)" >&2
    exit 1
fi
if [ "$status" -ne 0 ]; then
    echo "systemd-check: FAIL (exposure above $max_exposure: $level)" >&2
    exit 1
fi
echo "systemd-check: PASS ($level; limit $max_exposure)"
