"""Place one limit order and print its ExecutionReports until the order is done.

Usage: python examples/place_order.py HOST:PORT SESSION_ID CREDENTIALS
Against ./scripts/paper.sh (docs/paper.md), from the repository's root:
    PYTHONPATH=clients/python/src python3 clients/python/examples/place_order.py 127.0.0.1:7001 1 paper-secret-1
"""
import sys
from decimal import Decimal

from bgw_client import Category, Client, ExecutionReport, Side, is_final


def plain(v):
    """A Decimal as written (60000, not 6E+4); anything else (None) as is."""
    return format(v, "f") if isinstance(v, Decimal) else v


host, port = sys.argv[1].rsplit(":", 1)
with Client.connect(host, int(port), session_id=int(sys.argv[2]), credentials=sys.argv[3]) as gw:
    order = gw.new_order("BTCUSDT", Side.BUY, "0.01", price="61000", category=Category.USDT_FUTURES)
    for msg in gw:
        if isinstance(msg, ExecutionReport):
            print(msg.exec_type.name, msg.ord_status.name, *map(plain, (
                msg.last_qty, msg.last_px, msg.cum_qty, msg.leaves_qty, msg.avg_px)))
        if is_final(msg, order):
            break
