"""Against the real gateway and simulator (started by clients/python/test.sh): the order flows,
batches, a fill with exact decimals, mass cancel, keepalive, retransmission, NotApplied and the
handshake refusals, through both the asyncio and the blocking API."""

from __future__ import annotations

import asyncio
import struct
import time
from decimal import Decimal
from typing import Any

import pytest

from bgw_client import (AsyncClient, BooleanType, Category, Client, EpochSeq,
                        EstablishmentRejected,
                        ExecType, ExecutionReport, ItemStatus, ListStatus, MassCancelResponse,
                        NegotiationRejectCode, NegotiationRejected, NotApplied, OrderCancelReject,
                        OrderMassCancelReport, OrderSpec, OrdRejReason, OrdStatus, Retransmission,
                        RetransmitReject, RetransmitRejectCode, Side, encode, is_final)
from bgw_client import decode
from bgw_client import messages as msgs

from conftest import creds

BTC = dict(category=Category.USDT_FUTURES)
SYM = "BTCUSDT"


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def connect(gw: tuple[str, int], sid: int, **kw: Any) -> AsyncClient:
    return await AsyncClient.connect(gw[0], gw[1], session_id=sid, credentials=creds(sid), **kw)


def is_er(cl: int, exec_type: ExecType) -> Any:
    return lambda m: isinstance(m, ExecutionReport) and m.exec_type == exec_type and \
        cl in (m.cl_ord_id, m.orig_cl_ord_id)


async def recv_all(c: AsyncClient, preds: list[Any], timeout: float = 5.0,
                   already: list[Any] | None = None) -> list[Any]:
    """Reads until every predicate has matched some message (in any order); returns them all
    (``already``: messages read before, which count too)."""
    got = list(already or [])
    todo = [p for p in preds if not any(p(m) for m in got)]
    while todo:
        m = (await c.recv_until(lambda m: any(p(m) for p in todo), timeout))
        got += m
        todo = [p for p in todo if not p(m[-1])]
    return got


def test_place_replace_cancel(gateway: tuple[str, int]) -> None:
    async def go() -> None:
        c = await connect(gateway, 1)
        cl = await c.new_order(SYM, Side.BUY, "0.01", price="50000.1", **BTC)
        new = (await c.recv_until(is_er(cl, ExecType.NEW)))[-1]
        assert isinstance(new, ExecutionReport)
        assert (new.ord_status, new.price, new.order_qty, new.cum_qty, new.leaves_qty,
                new.avg_px, new.symbol, new.side) == (
            OrdStatus.NEW, Decimal("50000.1"), Decimal("0.01"), 0, Decimal("0.01"), None, SYM,
            Side.BUY)
        assert new.order_id > 0 and new.ord_rej_reason is None
        assert abs(new.transact_time - time.time_ns()) < 60 * 10**9  # UTC ns

        cl2 = await c.replace(cl, SYM, Side.BUY, price="50000.2", qty="0.02", **BTC)
        rep = (await c.recv_until(is_er(cl2, ExecType.REPLACED)))[-1]
        assert isinstance(rep, ExecutionReport)
        assert (rep.cl_ord_id, rep.orig_cl_ord_id, rep.price, rep.order_qty, rep.leaves_qty,
                rep.order_id) == (cl2, cl, Decimal("50000.2"), Decimal("0.02"),
                                  Decimal("0.02"), new.order_id)

        cx = await c.cancel(cl2, SYM, Side.BUY, **BTC)
        done = (await c.recv_until(lambda m: is_final(m, cl2)))[-1]
        assert isinstance(done, ExecutionReport)
        assert (done.exec_type, done.ord_status, done.cl_ord_id, done.orig_cl_ord_id,
                done.leaves_qty) == (ExecType.CANCELED, OrdStatus.CANCELED, cx, cl2, 0)

        # Cancel of an unknown order: OrderCancelReject, the session goes on.
        await c.cancel(12345, SYM, Side.BUY, **BTC)
        rej = (await c.recv_until(lambda m: isinstance(m, OrderCancelReject)))[-1]
        assert isinstance(rej, OrderCancelReject) and rej.orig_cl_ord_id == 12345
        # A repeated ClOrdID: Rejected DuplicateOrder.
        await c.new_order(SYM, Side.BUY, "0.01", price="50000", cl_ord_id=cl, **BTC)
        dup = (await c.recv_until(is_er(cl, ExecType.REJECTED)))[-1]
        assert isinstance(dup, ExecutionReport)
        assert dup.ord_rej_reason == OrdRejReason.DUPLICATE_ORDER
        term = await c.terminate()
        assert term is not None and c.closed

    run(go())


def test_batch_is_answered_per_item(gateway: tuple[str, int]) -> None:
    async def go() -> None:
        c = await connect(gateway, 2)
        specs = [OrderSpec(SYM, Side.BUY, "0.01", price=f"4900{i}.5", **BTC) for i in range(3)]
        specs.append(OrderSpec(SYM, Side.BUY, "0.00001", price="49000", **BTC))  # below the lot
        lid, cls = await c.new_order_list(specs)
        got = await c.recv_until(lambda m: isinstance(m, ListStatus) and m.list_id == lid
                                 and m.last_fragment == BooleanType.YES)
        ls = got[-1]
        assert isinstance(ls, ListStatus) and ls.ref_msg_type == 107
        items = {e.cl_ord_id: e for e in ls.orders}
        assert sorted(items) == sorted(cls)
        for cl in cls[:3]:
            assert items[cl].item_status == ItemStatus.ACCEPTED and items[cl].order_id > 0
        assert items[cls[3]].item_status == ItemStatus.REJECTED
        assert items[cls[3]].ord_rej_reason is not None and items[cls[3]].text
        await recv_all(c, [is_er(cl, ExecType.NEW) for cl in cls[:3]], already=got)
        lid2, _ = await c.cancel_list([(cl, SYM, Side.BUY, Category.USDT_FUTURES)
                                       for cl in cls[:3]])
        got = await recv_all(c, [lambda m: isinstance(m, ListStatus) and m.list_id == lid2]
                             + [lambda m, cl=cl: is_final(m, cl) for cl in cls[:3]])
        assert all(m.ord_status == OrdStatus.CANCELED for m in got
                   if isinstance(m, ExecutionReport))
        await c.terminate()

    run(go())


def test_crossing_order_fills_with_exact_decimals(gateway: tuple[str, int]) -> None:
    async def go() -> None:
        c = await connect(gateway, 3)
        cl = await c.new_order(SYM, Side.BUY, "0.013", price="62000", **BTC)  # crosses; inside the 5 % band (mark ~60 000)
        got = await c.recv_until(lambda m: is_final(m, cl))
        fills = [m for m in got if isinstance(m, ExecutionReport) and m.cl_ord_id == cl
                 and m.exec_type in (ExecType.PARTIAL_FILL, ExecType.FILL)]
        last = fills[-1]
        assert (last.exec_type, last.ord_status) == (ExecType.FILL, OrdStatus.FILLED)
        assert last.cum_qty == Decimal("0.013") and last.leaves_qty == Decimal(0)
        assert sum((f.last_qty for f in fills), Decimal(0)) == last.cum_qty
        notional = sum((f.last_qty * f.last_px for f in fills), Decimal(0))
        assert last.avg_px == notional / last.cum_qty
        for f in fills:
            assert isinstance(f.last_px, Decimal) and f.last_px <= Decimal("62000")
            assert f.last_px % Decimal("0.1") == 0 and f.exec_id > 0
        await c.terminate()

    run(go())


def test_mass_cancel(gateway: tuple[str, int]) -> None:
    async def go() -> None:
        c = await connect(gateway, 4)
        cls = [await c.new_order(SYM, Side.SELL, "0.01", price=f"7000{i}", **BTC)
               for i in range(3)]
        await recv_all(c, [is_er(cl, ExecType.NEW) for cl in cls])
        rid = await c.mass_cancel()
        got = await recv_all(c, [lambda m: isinstance(m, OrderMassCancelReport)]
                             + [is_er(cl, ExecType.CANCELED) for cl in cls])
        rep = next(m for m in got if isinstance(m, OrderMassCancelReport))
        assert (rep.cl_ord_id, rep.mass_cancel_response, rep.total_affected_orders,
                rep.mass_cancel_reject_reason) == (rid, MassCancelResponse.SESSION, 3, None)
        await c.terminate()

    run(go())


def test_blocking_api(gateway: tuple[str, int]) -> None:
    with Client.connect(*gateway, session_id=6, credentials=creds(6)) as c:
        cl = c.new_order(SYM, Side.BUY, "0.01", price="50000", **BTC)
        assert isinstance(c.recv_until(is_er(cl, ExecType.NEW))[-1], ExecutionReport)
        c.cancel(cl, SYM, Side.BUY, **BTC)
        assert c.recv_until(lambda m: is_final(m, cl))[-1].ord_status == OrdStatus.CANCELED
    assert c.closed


def test_retransmission_after_reconnect(gateway: tuple[str, int]) -> None:
    async def go() -> None:
        c = await connect(gateway, 7)
        cl = await c.new_order(SYM, Side.BUY, "0.01", price="50000", **BTC)
        first = (await c.recv_until(is_er(cl, ExecType.NEW)))[-1]
        seq = c.last_seq
        await c.terminate()  # orders stay open
        # Reconnect as a strategy that processed nothing: the client asks for 1..seq again.
        c = await connect(gateway, 7, last_received_seq=0)
        got = await c.recv_until(lambda m: m == first)
        rt = got[0]
        assert isinstance(rt, Retransmission) and rt.next_seq_no == 1 and rt.count >= seq
        assert c.last_seq == seq  # the resent message carries its original number
        await c.request_retransmit(10**9, 1)
        rej = (await c.recv_until(lambda m: isinstance(m, RetransmitReject)))[-1]
        assert isinstance(rej, RetransmitReject)
        await c.cancel(cl, SYM, Side.BUY, **BTC)
        await c.recv_until(lambda m: is_final(m, cl))
        await c.terminate()

    run(go())


def test_keepalive_and_not_applied(gateway: tuple[str, int]) -> None:
    async def go() -> None:
        cap: list[bytes] = []
        c = await connect(gateway, 8, keepalive_ms=200, capture=cap)
        await asyncio.sleep(1.5)  # 7 intervals: the gateway ends a session silent for 3
        assert not c.closed
        assert any(p[2:4] == b"\x07\x00" for p in cap)  # the gateway's Sequence keepalives
        cl = await c.new_order(SYM, Side.BUY, "0.01", price="50000", **BTC)
        await c.recv_until(is_er(cl, ExecType.NEW))
        await c.mass_cancel()
        await c.recv_until(lambda m: isinstance(m, OrderMassCancelReport))
        await c.terminate()
        # Announcing a NextSeqNo above the gateway's expectation: NotApplied for the gap.
        c = await connect(gateway, 8, next_seq_no=1000)
        na = (await c.recv_until(lambda m: isinstance(m, NotApplied)))[-1]
        assert isinstance(na, NotApplied) and na.from_seq_no + na.count == 1000
        await c.terminate()

    run(go())


def test_handshake_refusals(gateway: tuple[str, int]) -> None:
    async def go() -> None:
        with pytest.raises(NegotiationRejected):
            await AsyncClient.connect(*gateway, session_id=9, credentials="wrong")
        with pytest.raises(EstablishmentRejected):
            await connect(gateway, 9, keepalive_ms=10)
        c = await connect(gateway, 9)  # the session is still usable
        await c.terminate()

    run(go())


def test_epoch_in_the_handshake(gateway: tuple[str, int]) -> None:
    """Schema version 1: the gateway answers Negotiate with a version-1 NegotiationResponse
    carrying the epoch in force (a session's first epoch is 0); naming that epoch resumes it, a
    higher one starts it (numbering from 1 again), and a lower one is then refused as stale."""
    async def go() -> None:
        cap: list[bytes] = []
        c = await connect(gateway, 13, capture=cap)
        epoch = c.session_ver_id
        assert isinstance(decode(cap[0]), msgs.NegotiationResponse)
        assert struct.unpack_from("<HHHH", cap[0]) == (25, 2, 1, 2)  # whole block, version 2
        await c.terminate()
        c = await connect(gateway, 13, session_ver_id=epoch)  # resume, naming the epoch
        assert c.session_ver_id == epoch
        await c.terminate()
        for ahead in (1, 2):  # rollovers asked for
            c = await connect(gateway, 13, session_ver_id=epoch + ahead)
            assert c.session_ver_id == epoch + ahead and c.next_seq_from_gateway == 1
            await c.terminate()
        with pytest.raises(NegotiationRejected) as r:
            await connect(gateway, 13, session_ver_id=epoch + 1)
        assert r.value.reject.code == NegotiationRejectCode.STALE_SESSION_VERSION

    run(go())


def test_the_rest_of_the_previous_epoch_after_a_rollover(gateway: tuple[str, int]) -> None:
    """Schema version 2: a strategy that lost its connection with epoch E's last reports
    unprocessed negotiates epoch E+1; EstablishmentAck names epoch E and its last message, and
    the client (``last_read``) asks for the rest of epoch E and hands it over apart, the
    original messages byte for byte, before the new epoch's; an epoch further back is
    refused."""
    async def go() -> None:
        cap: list[bytes] = []
        c = await connect(gateway, 14, capture=cap)
        epoch = c.session_ver_id
        cls = [await c.new_order(SYM, Side.BUY, "0.01", price="50000", **BTC) for _ in range(3)]
        await recv_all(c, [is_er(cl, ExecType.NEW) for cl in cls])
        # Numbers of the application messages this connection received, from the ack's.
        app = [p for p in cap if struct.unpack_from("<H", p, 2)[0] > 12]
        seq_of = {c.next_seq_from_gateway + i: p for i, p in enumerate(app)}
        first = next(n for n, p in seq_of.items() if is_er(cls[0], ExecType.NEW)(decode(p)))
        # The strategy processed the first report only; its connection drops (no Terminate:
        # cancel on disconnect adds the Canceled reports to epoch E, never sent).
        await c.close()
        await asyncio.sleep(0.5)
        c = await connect(gateway, 14, session_ver_id=epoch + 1,
                          last_read=EpochSeq(epoch, first))
        assert c.session_ver_id == epoch + 1
        prev_end = c.previous_epoch
        assert prev_end is not None and prev_end.session_ver_id == epoch
        assert prev_end.seq >= first + 2 + 3  # the other two News and the three Canceled
        prev = c.take_previous_epoch()
        assert prev is not None and prev.rejected is None and prev.session_ver_id == epoch
        assert [n for n, _ in prev.messages] == list(range(first + 1, prev_end.seq + 1))
        for n, m in prev.messages:
            if n in seq_of:  # received before the drop: the same bytes again
                assert encode(m) == seq_of[n]
        finals = [m.cl_ord_id for _, m in prev.messages
                  if isinstance(m, ExecutionReport) and m.ord_status == OrdStatus.CANCELED]
        assert sorted(finals) != [] and c.take_previous_epoch() is None
        assert c.last_read == EpochSeq(epoch + 1, c.last_seq)
        # Two epochs back (or any other): refused.
        await c.request_retransmit(1, 1, session_ver_id=epoch + 7)
        rej = (await c.recv_until(lambda m: isinstance(m, RetransmitReject)))[-1]
        assert isinstance(rej, RetransmitReject)
        assert rej.code == RetransmitRejectCode.OUT_OF_RANGE
        await c.terminate()

    run(go())
