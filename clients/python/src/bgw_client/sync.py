"""Blocking strategy client: :class:`AsyncClient` run on a private event loop thread.

Every method blocks until the coroutine of the same name finishes. Keepalives run on the
loop thread, so the session stays alive while the strategy computes between calls.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine, Iterable, Iterator
from typing import Any, TypeVar

from . import wire
from .aio import AsyncClient, DecimalLike, EpochSeq, OrderSpec, PreviousEpochMessages
from .errors import ConnectionClosed, Terminated
from .messages import (Category, MassCancelRequestType, MassStatusReqType,
                       OrderCancelReplaceListOrder, OrdType, PosSide, Side, StpMode, Terminate,
                       TimeInForce)
from .wire import SbeMessage

T = TypeVar("T")


class Client:
    """A blocking, established strategy session; see :meth:`connect`.

    Use it as a context manager (``with Client.connect(...) as c:``): leaving the block sends
    Terminate (orders stay open) and stops the loop thread. Methods may be called from any
    one thread at a time.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, thread: threading.Thread,
                 inner: AsyncClient) -> None:
        self._loop = loop
        self._thread = thread
        self.aio = inner
        """The underlying :class:`AsyncClient` (its coroutines run on the loop thread)."""

    @classmethod
    def connect(cls, host: str, port: int, *, session_id: int, credentials: str,
                keepalive_ms: int = 1000, next_seq_no: int = 1,
                last_received_seq: int | None = None, session_ver_id: int = 0,
                last_read: EpochSeq | None = None,
                timeout: float = 5.0,
                max_frame_len: int = wire.DEFAULT_MAX_FRAME_LEN,
                cl_ord_ids: Callable[[], int] | None = None,
                capture: list[bytes] | None = None) -> Client:
        """Connects, negotiates and establishes; arguments as :meth:`AsyncClient.connect`
        (``session_ver_id``: the epoch asked for, 0 = whichever is current; ``last_read``: the
        previous connection's :attr:`last_read`, to recover the rest of the previous epoch)."""
        loop = asyncio.new_event_loop()
        thread = threading.Thread(target=loop.run_forever, name="bgw-client-loop", daemon=True)
        thread.start()
        fut = asyncio.run_coroutine_threadsafe(AsyncClient.connect(
            host, port, session_id=session_id, credentials=credentials,
            keepalive_ms=keepalive_ms, next_seq_no=next_seq_no,
            last_received_seq=last_received_seq, session_ver_id=session_ver_id,
            last_read=last_read, timeout=timeout,
            max_frame_len=max_frame_len, cl_ord_ids=cl_ord_ids, capture=capture), loop)
        try:
            inner = fut.result()
        except BaseException:
            loop.call_soon_threadsafe(loop.stop)
            thread.join()
            loop.close()
            raise
        return cls(loop, thread, inner)

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        if not self._thread.is_alive():
            coro.close()
            raise ConnectionClosed("client stopped")
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def _stop(self) -> None:
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()

    # session -------------------------------------------------------------------------------

    def recv(self, timeout: float | None = None) -> SbeMessage:
        """The next message (see :meth:`AsyncClient.recv`); :class:`TimeoutError` after
        ``timeout`` seconds."""
        return self._run(self.aio.recv(timeout))

    def recv_until(self, match: Callable[[SbeMessage], bool],
                   timeout: float = 5.0) -> list[SbeMessage]:
        """Messages up to and including the first that satisfies ``match``."""
        return self._run(self.aio.recv_until(match, timeout))

    def __iter__(self) -> Iterator[SbeMessage]:
        """Yields messages until the session ends (Terminate or connection closed)."""
        while True:
            try:
                yield self.recv()
            except (Terminated, ConnectionClosed):
                return

    def terminate(self, reason: str = "done", timeout: float = 5.0) -> Terminate | None:
        """Sends Terminate, waits for the gateway's, closes and stops the loop thread."""
        try:
            return self._run(self.aio.terminate(reason, timeout))
        finally:
            self._stop()

    def close(self) -> None:
        """Closes without Terminate (cancel-on-disconnect applies) and stops the thread."""
        try:
            if self._thread.is_alive():
                self._run(self.aio.close())
        finally:
            self._stop()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._thread.is_alive() and not self.aio.closed:
            self.terminate()
        else:
            self.close()

    @property
    def session_id(self) -> int:
        """FIXP SessionID."""
        return self.aio.session_id

    @property
    def session_ver_id(self) -> int:
        """The epoch in force, as the gateway answered in NegotiationResponse (see
        :attr:`AsyncClient.session_ver_id`)."""
        return self.aio.session_ver_id

    @property
    def last_seq(self) -> int:
        """Sequence number of the last gateway application message received (0 before any)."""
        return self.aio.last_seq

    @property
    def last_read(self) -> EpochSeq:
        """The last application message read in the epoch in force (see
        :attr:`AsyncClient.last_read`)."""
        return self.aio.last_read

    @property
    def previous_epoch(self) -> EpochSeq | None:
        """The previous epoch and its last message's number, as EstablishmentAck told (see
        :attr:`AsyncClient.previous_epoch`)."""
        return self.aio.previous_epoch

    def take_previous_epoch(self) -> PreviousEpochMessages | None:
        """The previous epoch's messages recovered while connecting (see
        :meth:`AsyncClient.take_previous_epoch`), once."""
        return self.aio.take_previous_epoch()

    @property
    def closed(self) -> bool:
        """True once the connection is closed."""
        return self.aio.closed

    def send(self, msg: SbeMessage) -> None:
        """Sends any schema message (see :meth:`AsyncClient.send`)."""
        self._run(self.aio.send(msg))

    def send_keepalive(self) -> None:
        """Sends a Sequence keepalive now."""
        self._run(self.aio.send_keepalive())

    def request_retransmit(self, from_seq_no: int, count: int,
                           session_ver_id: int | None = None) -> None:
        """Sends RetransmitRequest (see :meth:`AsyncClient.request_retransmit`)."""
        self._run(self.aio.request_retransmit(from_seq_no, count, session_ver_id))

    # orders --------------------------------------------------------------------------------

    def new_order(self, symbol: str, side: Side, qty: DecimalLike, *, category: Category,
                  price: DecimalLike | None = None, ord_type: OrdType | None = None,
                  time_in_force: TimeInForce = TimeInForce.GTC,
                  pos_side: PosSide = PosSide.NONE, reduce_only: bool = False,
                  stp_mode: StpMode = StpMode.DEFAULT, cl_ord_id: int = 0) -> int:
        """Sends NewOrderSingle; returns its ClOrdID (see :meth:`AsyncClient.new_order`)."""
        return self._run(self.aio.new_order(
            symbol, side, qty, category=category, price=price, ord_type=ord_type,
            time_in_force=time_in_force, pos_side=pos_side, reduce_only=reduce_only,
            stp_mode=stp_mode, cl_ord_id=cl_ord_id))

    def cancel(self, orig_cl_ord_id: int, symbol: str, side: Side, *, category: Category,
               cl_ord_id: int = 0) -> int:
        """Sends OrderCancelRequest; returns the request's ClOrdID."""
        return self._run(self.aio.cancel(orig_cl_ord_id, symbol, side, category=category,
                                         cl_ord_id=cl_ord_id))

    def replace(self, orig_cl_ord_id: int, symbol: str, side: Side, *, category: Category,
                qty: DecimalLike, price: DecimalLike | None = None,
                auto_cancel: bool = False, cl_ord_id: int = 0) -> int:
        """Sends OrderCancelReplaceRequest; returns the order's new ClOrdID (see
        :meth:`AsyncClient.replace`: ``qty`` is required, ``price`` None keeps it)."""
        return self._run(self.aio.replace(orig_cl_ord_id, symbol, side, category=category,
                                          price=price, qty=qty, auto_cancel=auto_cancel,
                                          cl_ord_id=cl_ord_id))

    def new_order_list(self, orders: Iterable[OrderSpec], *,
                       list_id: int = 0) -> tuple[int, list[int]]:
        """Sends NewOrderList; returns ``(list_id, [ClOrdID per order])``."""
        return self._run(self.aio.new_order_list(list(orders), list_id=list_id))

    def cancel_list(self, orders: Iterable[tuple[int, str, Side, Category]], *,
                    list_id: int = 0) -> tuple[int, list[int]]:
        """Sends OrderCancelList; returns ``(list_id, [request ClOrdID per item])``."""
        return self._run(self.aio.cancel_list(list(orders), list_id=list_id))

    def replace_list(self, items: Iterable[OrderCancelReplaceListOrder], *,
                     list_id: int = 0) -> int:
        """Sends OrderCancelReplaceList; returns the ListID."""
        return self._run(self.aio.replace_list(list(items), list_id=list_id))

    def mass_cancel(self, request_type: MassCancelRequestType = MassCancelRequestType.SESSION,
                    *, symbol: str = "", category: Category | None = None,
                    side: Side | None = None, cl_ord_id: int = 0) -> int:
        """Sends OrderMassCancelRequest; returns its ClOrdID."""
        return self._run(self.aio.mass_cancel(request_type, symbol=symbol, category=category,
                                              side=side, cl_ord_id=cl_ord_id))

    def mass_status(self, request_type: MassStatusReqType = MassStatusReqType.SESSION, *,
                    symbol: str = "", category: Category | None = None,
                    refresh_from_exchange: bool = False, request_id: int = 0) -> int:
        """Sends OrderMassStatusRequest; returns its MassStatusReqID."""
        return self._run(self.aio.mass_status(request_type, symbol=symbol, category=category,
                                              refresh_from_exchange=refresh_from_exchange,
                                              request_id=request_id))

    def rate_budget(self, request_id: int = 0) -> int:
        """Sends RateBudgetRequest; returns its RequestID."""
        return self._run(self.aio.rate_budget(request_id))
