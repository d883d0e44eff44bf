"""The same as place_order.py with the asyncio API.

Usage: python examples/place_order_async.py HOST:PORT SESSION_ID CREDENTIALS
Against ./scripts/paper.sh (docs/paper.md), from the repository's root:
    PYTHONPATH=clients/python/src python3 clients/python/examples/place_order_async.py 127.0.0.1:7001 2 paper-secret-2
"""
import asyncio
import sys
from decimal import Decimal

from bgw_client import AsyncClient, Category, ExecutionReport, Side, is_final


def plain(v):
    """A Decimal as written (60000, not 6E+4); anything else (None) as is."""
    return format(v, "f") if isinstance(v, Decimal) else v


async def main(host: str, port: int, session_id: int, credentials: str) -> None:
    async with await AsyncClient.connect(host, port, session_id=session_id,
                                         credentials=credentials) as gw:
        order = await gw.new_order("BTCUSDT", Side.BUY, "0.01", price="61000",
                                   category=Category.USDT_FUTURES)
        async for msg in gw:
            if isinstance(msg, ExecutionReport):
                print(msg.exec_type.name, msg.ord_status.name, *map(plain, (
                    msg.last_qty, msg.last_px, msg.cum_qty, msg.leaves_qty, msg.avg_px)))
            if is_final(msg, order):
                break


host, port = sys.argv[1].rsplit(":", 1)
asyncio.run(main(host, int(port), int(sys.argv[2]), sys.argv[3]))
