#!/usr/bin/env python3
"""bench-peers client (d): ccxt over REST, the way most Python strategies reach Bitget.

The PyPI package `ccxt` (pinned in tests/clients/requirements.txt, installed into .venv-clients/
by scripts/bench-peers.sh), synchronous `ccxt.bitget` in unified-trading-account mode
(`options: {'uta': True}`), rate limiter off (`enableRateLimit: False`), unmodified and pointed at
bitget-sim through its public `urls.api` option. ccxt's synchronous transport is `requests` (one
keep-alive session); the simulator's certificate is trusted through REQUESTS_CA_BUNDLE, which
`requests` reads only with ccxt's `requests_trust_env: True` (then proxies are bypassed for the
loopback simulator through NO_PROXY).

Repeats, one request in flight: `create_order` (POST /api/v3/trade/place-order, a resting limit
buy) → its response → `cancel_order` (POST /api/v3/trade/cancel-order by orderId) → its response.
A round trip is the time of the ccxt call (its signing and parsing included). `load_markets` runs
before, untimed; the first BENCH_WARMUP iterations are not recorded.

Environment: SIM_REST_URL, SIM_CA_FILE, SIM_API_KEY, SIM_API_SECRET, SIM_API_PASSPHRASE;
BENCH_ITERATIONS (2000), BENCH_WARMUP (200), BENCH_SYMBOL (BTCUSDT), BENCH_CATEGORY
(usdt-futures or spot), BENCH_PRICE (58000), BENCH_QTY (0.001). Prints
`RESULT ccxt <leg> n=<N> p50=<us> p90=<us> p99=<us> p999=<us>` for the legs `place` and `cancel`
(exact nearest-rank percentiles, µs); exits 1 on any refused or failed request, 2 on a bad
environment.
"""

import math
import os
import sys
import time

NAME = "ccxt"


def env(name: str, default: "str | None" = None) -> str:
    value = os.environ.get(name) or default
    if not value:
        print(f"{NAME}: missing environment variable {name}", file=sys.stderr)
        sys.exit(2)
    return value


def count(name: str, default: int, minimum: int) -> int:
    raw = env(name, str(default))
    try:
        value = int(raw)
    except ValueError:
        value = minimum - 1
    if value < minimum:
        print(f"{NAME}: {name} must be an integer >= {minimum}", file=sys.stderr)
        sys.exit(2)
    return value


REST = env("SIM_REST_URL")
CA_FILE = env("SIM_CA_FILE")
ITERATIONS = count("BENCH_ITERATIONS", 2000, 1)
WARMUP = count("BENCH_WARMUP", 200, 0)
SYMBOL_ID = env("BENCH_SYMBOL", "BTCUSDT")
CATEGORY = env("BENCH_CATEGORY", "usdt-futures")
PRICE = float(env("BENCH_PRICE", "58000"))
QTY = float(env("BENCH_QTY", "0.001"))

# requests reads these for every request of a session with trust_env (verify=True, ccxt's default).
os.environ["REQUESTS_CA_BUNDLE"] = CA_FILE
os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"

import ccxt  # noqa: E402 - after REQUESTS_CA_BUNDLE, before any session exists


def percentile(sorted_ns: "list[int]", q: float) -> int:
    """Nearest rank: the smallest sample with at least `q` of them at or below it."""
    rank = min(len(sorted_ns), max(1, math.ceil(q * len(sorted_ns))))
    return sorted_ns[rank - 1]


def result_line(leg: str, samples_ns: "list[int]") -> str:
    s = sorted(samples_ns)

    def us(q: float) -> str:
        return f"{percentile(s, q) / 1e3:.1f}"

    return (
        f"RESULT {NAME} {leg} n={len(s)} p50={us(0.5)} p90={us(0.9)} p99={us(0.99)} "
        f"p999={us(0.999)}"
    )


def make_exchange() -> "ccxt.bitget":
    families = [
        "spot", "mix", "user", "p2p", "broker", "margin", "common", "tax", "convert", "copy",
        "earn", "uta",
    ]
    return ccxt.bitget({
        "apiKey": env("SIM_API_KEY"),
        "secret": env("SIM_API_SECRET"),
        "password": env("SIM_API_PASSPHRASE"),
        "options": {"uta": True},
        "urls": {"api": {family: REST for family in families}},
        "enableRateLimit": False,
        "requests_trust_env": True,
        "timeout": 10000,
    })


def unified_symbol(ex: "ccxt.bitget") -> str:
    """The ccxt symbol of BENCH_SYMBOL in BENCH_CATEGORY (e.g. BTC/USDT:USDT)."""
    for market in ex.markets.values():
        if market["id"] != SYMBOL_ID:
            continue
        if CATEGORY == "spot" and market["spot"]:
            return market["symbol"]
        if CATEGORY == "usdt-futures" and market["swap"] and market["settle"] == "USDT":
            return market["symbol"]
    raise ValueError(f"no market {SYMBOL_ID} in category {CATEGORY}")


def main() -> int:
    ex = make_exchange()
    try:
        ex.load_markets()
        symbol = unified_symbol(ex)
        place: "list[int]" = []
        cancel: "list[int]" = []
        stamp = format(int(time.time() * 1000), "x")
        now = time.perf_counter_ns
        for i in range(WARMUP + ITERATIONS):
            t0 = now()
            order = ex.create_order(
                symbol, "limit", "buy", QTY, PRICE, {"clientOrderId": f"ccxt{stamp}{i}"}
            )
            t1 = now()
            order_id = order.get("id")
            if not order_id:
                raise ValueError(f"create_order {i}: no order id in {order}")
            t2 = now()
            ex.cancel_order(order_id, symbol)
            t3 = now()
            if i >= WARMUP:
                place.append(t1 - t0)
                cancel.append(t3 - t2)
    except Exception as e:  # noqa: BLE001 - any failure ends the run with its reason
        print(f"{NAME}: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    print(result_line("place", place))
    print(result_line("cancel", cancel))
    return 0


if __name__ == "__main__":
    sys.exit(main())
