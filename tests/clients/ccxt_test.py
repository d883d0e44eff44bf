#!/usr/bin/env python3
"""Runs the unmodified PyPI package `ccxt` (pinned in requirements.txt) against a running
bitget-sim, in Bitget's unified trading account mode (`options: {'uta': True}`).

The exchange is pointed at the simulator only through ccxt's public configuration: `urls.api`
(every REST family and the `ws.utaPrivate` / `ws.utaPublic` URLs) and `cafile` (the simulator's
self-signed certificate, used for both HTTPS and WSS by ccxt's async/pro transport).

Environment: SIM_REST_URL, SIM_WS_PRIVATE_URL, SIM_WS_PUBLIC_URL, SIM_CA_FILE, SIM_API_KEY,
SIM_API_SECRET, SIM_API_PASSPHRASE. Prints one line per check and a closing
`N passed, N failed` line; exits 1 on any failure.
"""

import asyncio
import os
import sys
import time
import traceback
from decimal import Decimal

import ccxt
import ccxt.pro


def env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        print(f"missing environment variable {name}", file=sys.stderr)
        sys.exit(2)
    return value


REST = env("SIM_REST_URL")
WS_PRIVATE = env("SIM_WS_PRIVATE_URL")
WS_PUBLIC = env("SIM_WS_PUBLIC_URL")
CA_FILE = env("SIM_CA_FILE")

SYMBOL = "BTC/USDT:USDT"  # BTCUSDT, category USDT-FUTURES
SPOT_SYMBOL = "BTC/USDT"  # BTCUSDT, category SPOT

passed = 0
failed = 0


async def check(name, coro):
    global passed, failed
    try:
        await coro
        passed += 1
        print(f"ok   {name}", flush=True)
    except Exception:  # noqa: BLE001 - every failure is reported and counted
        failed += 1
        print(f"FAIL {name}: {traceback.format_exc()}", flush=True)


def make_exchange() -> ccxt.pro.bitget:
    families = [
        "spot", "mix", "user", "p2p", "broker", "margin", "common", "tax", "convert", "copy",
        "earn", "uta",
    ]
    api = {family: REST for family in families}
    api["ws"] = {
        "public": WS_PUBLIC,
        "private": WS_PRIVATE,
        "utaPublic": WS_PUBLIC,
        "utaPrivate": WS_PRIVATE,
    }
    return ccxt.pro.bitget({
        "apiKey": env("SIM_API_KEY"),
        "secret": env("SIM_API_SECRET"),
        "password": env("SIM_API_PASSPHRASE"),
        "options": {"uta": True},
        "urls": {"api": api},
        "cafile": CA_FILE,
        "timeout": 10000,
    })


async def resting_buy_price(ex, symbol) -> float:
    """10 % under the best bid: a buy there rests and never fills."""
    book = await ex.fetch_order_book(symbol, 5)
    best_bid = book["bids"][0][0]
    assert best_bid > 0, book
    return float(ex.price_to_precision(symbol, best_bid * 0.9))


async def main() -> int:
    ex = make_exchange()
    stamp = format(int(time.time() * 1000), "x")
    state = {}
    try:
        async def load_markets():
            markets = await ex.load_markets()
            m = markets[SYMBOL]
            assert m["id"] == "BTCUSDT" and m["swap"] and m["linear"], m
            assert m["settle"] == "USDT", m
            assert m["precision"]["price"] == 0.1, m["precision"]
            assert m["precision"]["amount"] == 0.0001, m["precision"]
            assert m["limits"]["amount"]["min"] == 0.0001, m["limits"]
            s = markets[SPOT_SYMBOL]
            assert s["id"] == "BTCUSDT" and s["spot"], s
            assert m["info"]["category"] == "USDT-FUTURES"
            assert s["info"]["category"] == "SPOT"

        await check("load_markets (uta: v3 instruments for every category)", load_markets())

        async def create_order():
            price = await resting_buy_price(ex, SYMBOL)
            state["price"] = price
            client_oid = f"ccxt{stamp}"
            order = await ex.create_order(
                SYMBOL, "limit", "buy", 0.001, price, {"clientOrderId": client_oid}
            )
            assert order["id"] and order["id"].isdigit(), order
            assert order["clientOrderId"] == client_oid, order
            state["order_id"] = order["id"]
            state["client_oid"] = client_oid

        await check("create_order limit buy (uta place-order)", create_order())

        async def fetch_open_orders():
            orders = await ex.fetch_open_orders(SYMBOL)
            mine = [o for o in orders if o["id"] == state["order_id"]]
            assert len(mine) == 1, orders
            o = mine[0]
            assert o["status"] == "open", o
            assert o["side"] == "buy" and o["type"] == "limit", o
            assert o["symbol"] == SYMBOL, o
            assert Decimal(str(o["price"])) == Decimal(str(state["price"])), o
            assert Decimal(str(o["amount"])) == Decimal("0.001"), o
            assert o["clientOrderId"] == state["client_oid"], o

        await check("fetch_open_orders lists it (uta unfilled-orders)", fetch_open_orders())

        async def cancel_order():
            res = await ex.cancel_order(state["order_id"], SYMBOL)
            assert res["id"] == state["order_id"], res
            orders = await ex.fetch_open_orders(SYMBOL)
            assert all(o["id"] != state["order_id"] for o in orders), orders

        await check("cancel_order (uta cancel-order), gone from open orders", cancel_order())

        async def cancel_unknown():
            try:
                await ex.cancel_order("1", SYMBOL)
            except ccxt.OrderNotFound:
                return
            except ccxt.ExchangeError as e:
                assert "25204" in str(e), e
                return
            raise AssertionError("cancel of an unknown order was accepted")

        await check("cancel_order of an unknown order raises (25204)", cancel_unknown())

        async def fetch_order_by_client_oid():
            # ccxt url-encodes the query (clientOid=a%3Ab) but signs it decoded (clientOid=a:b).
            client_oid = f"ccxt:oid:{stamp}"
            placed = await ex.create_order(
                SYMBOL, "limit", "buy", 0.001, state["price"], {"clientOrderId": client_oid}
            )
            fetched = await ex.fetch_order(None, SYMBOL, {"clientOrderId": client_oid})
            assert fetched["id"] == placed["id"], fetched
            assert fetched["clientOrderId"] == client_oid, fetched
            assert fetched["status"] == "open", fetched
            await ex.cancel_order(placed["id"], SYMBOL)
            fetched = await ex.fetch_order(placed["id"], SYMBOL)
            assert fetched["status"] == "canceled", fetched

        await check(
            "fetch_order by a clientOrderId with ':' (order-info, query signed decoded)",
            fetch_order_by_client_oid(),
        )

        async def watch_orders():
            # watch_orders logs in and subscribes to the UTA `order` topic. The REST order below
            # travels on another connection, so first make sure the subscription is active: place
            # and cancel probe orders until a push for one of them arrives (bounded retries).
            watcher = asyncio.ensure_future(ex.watch_orders(SYMBOL))
            probes = set()
            for attempt in range(10):
                probe = await ex.create_order(
                    SYMBOL, "limit", "buy", 0.001, state["price"],
                    {"clientOrderId": f"ccxtProbe{attempt}{stamp}"},
                )
                probes.add(probe["id"])
                await ex.cancel_order(probe["id"], SYMBOL)
                done, _ = await asyncio.wait({watcher}, timeout=2)
                if done:
                    break
            assert watcher.done(), "no order push for any probe order"
            assert any(o["id"] in probes for o in watcher.result()), watcher.result()

            client_oid = f"ccxtWs{stamp}"
            order = await ex.create_order(
                SYMBOL, "limit", "buy", 0.002, state["price"], {"clientOrderId": client_oid}
            )
            seen = {}

            async def until(status):
                while status not in seen:
                    orders = await asyncio.wait_for(ex.watch_orders(SYMBOL), 10)
                    for o in orders:
                        if o["id"] == order["id"]:
                            seen[o["status"]] = o
                return seen[status]

            live = await until("open")
            assert live["clientOrderId"] == client_oid, live
            assert live["symbol"] == SYMBOL, live
            assert live["side"] == "buy" and live["type"] == "limit", live
            assert Decimal(str(live["amount"])) == Decimal("0.002"), live
            assert Decimal(str(live["price"])) == Decimal(str(state["price"])), live
            await ex.cancel_order(order["id"], SYMBOL)
            cancelled = await until("canceled")
            assert cancelled["id"] == order["id"], cancelled

        await check("watch_orders (uta order channel): open then canceled pushes", watch_orders())

        async def watch_fill():
            # A buy at 10 % over the best ask crosses the simulator's market maker at once.
            book = await ex.fetch_order_book(SYMBOL, 5)
            # 1 % over the best ask: crosses, inside the venue's 5 % price band (25206 above).
            price = float(ex.price_to_precision(SYMBOL, book["asks"][0][0] * 1.01))
            order = await ex.create_order(
                SYMBOL, "limit", "buy", 0.001, price, {"clientOrderId": f"ccxtFill{stamp}"}
            )
            # The venue pushes `new` then `filled` back to back (reference §4.2). ccxt resolves
            # a watch only with the push that arrives while it waits, so the `filled` push can
            # land between two watch_orders calls; every push updates ccxt's order cache
            # (`ex.orders`), which is where the final state is read.
            deadline = asyncio.get_running_loop().time() + 10
            while True:
                mine = [
                    o for o in (ex.orders or [])
                    if o["id"] == order["id"] and o["status"] == "closed"
                ]
                if mine:
                    break
                try:
                    await asyncio.wait_for(ex.watch_orders(SYMBOL), 1)
                except asyncio.TimeoutError:
                    if asyncio.get_running_loop().time() > deadline:
                        raise
            o = mine[-1]
            assert Decimal(str(o["filled"])) == Decimal("0.001"), o
            assert Decimal(str(o["remaining"])) == 0, o
            assert o["average"] is not None and o["average"] <= price, o
            assert o["info"]["orderStatus"] == "filled", o["info"]

        await check("watch_orders: a crossing order is pushed closed (filled) with its average", watch_fill())
    finally:
        await ex.close()

    print(f"ccxt: {passed} passed, {failed} failed", flush=True)
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
