# Installs the pinned public Bitget clients, for scripts/client-tests.sh and
# scripts/bench-peers.sh (sourced; the caller sets CLIENTS=tests/clients and VENV=.venv-clients):
# npm `bitget-api` (and its `ws`) with tests/clients/package-lock.json, PyPI `ccxt` with
# tests/clients/requirements.txt --require-hashes. Node.js/npm and Python 3 with venv come with
# the project's machine image; they are installed from Debian's packages where missing (root).
install_clients() {
    local label=$1
    if ! command -v npm >/dev/null 2>&1 || ! python3 -c "import venv, ensurepip" >/dev/null 2>&1; then
        echo "== $label: installing nodejs, npm, python3-venv (apt-get)"
        apt-get update -qq && apt-get install -y -qq nodejs npm python3 python3-venv >/dev/null
    fi
    echo "== $label: install bitget-api (npm ci in tests/clients)"
    (cd "$CLIENTS" && npm ci --no-audit --no-fund --loglevel=error)
    echo "== $label: install ccxt (pip --require-hashes) into .venv-clients"
    if [ ! -x "$VENV/bin/python" ]; then
        python3 -m venv "$VENV"
    fi
    "$VENV/bin/pip" install --quiet --disable-pip-version-check --require-hashes \
        -r "$CLIENTS/requirements.txt"
}
