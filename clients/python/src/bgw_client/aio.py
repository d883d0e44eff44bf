"""asyncio strategy client: the FIXP session and the order messages.

``await AsyncClient.connect(host, port, session_id=..., credentials=...)`` opens the TCP
connection (TCP_NODELAY), sends Negotiate (client flow Idempotent, the epoch asked for in
``session_ver_id``) and Establish, and returns once EstablishmentAck arrived;
:attr:`AsyncClient.session_ver_id` is the epoch the gateway answered. From then on:

- a reader task decodes every frame and queues the messages for :meth:`AsyncClient.recv`
  (the gateway's Sequence keepalives are consumed, not queued);
- a keepalive task sends Sequence (with the client's next sequence number) whenever the client
  has written nothing for half the keepalive interval, and closes the connection with
  :class:`~bgw_client.errors.KeepaliveTimeout` after three silent intervals of the gateway;
- the gateway's application messages (template > 12) are numbered from
  EstablishmentAck.NextSeqNo; Sequence and Retransmission reset the number, as the Rust
  reference client ``strategy-client`` does. :attr:`AsyncClient.last_seq` is the number of the
  last one received; pass it as ``last_received_seq`` when reconnecting and the client asks for
  the missed ones (RetransmitRequest, at most 10 000 per request) before anything else.
- the client's own application messages are numbered from Establish.NextSeqNo (default 1);
  a gap the gateway sees is answered with NotApplied, queued like any other message.
- after a rollover (schema version 2, as CME iLink 3 serves the previous UUID),
  EstablishmentAck tells the epoch before the one in force and the number of its last
  message (:attr:`AsyncClient.previous_epoch`). Pass the previous connection's
  :attr:`AsyncClient.last_read` as ``last_read`` when connecting: if it is short of that
  epoch's end, the client asks for the rest (RetransmitRequest ``LastSessionVerID``) before
  :meth:`AsyncClient.connect` returns and hands it over, marked as that epoch's, with
  :meth:`AsyncClient.take_previous_epoch`, before any message of the new epoch reaches
  :meth:`AsyncClient.recv`.

Errors: a frame that does not decode is raised from :meth:`recv` as
:class:`~bgw_client.errors.DecodeError` and the session goes on; a broken SOFH frame, the end
of the connection or a gateway Terminate close the client and every later call raises (a
Terminate with code SessionRollover as :class:`~bgw_client.errors.SessionRollover`: the gateway
ended the epoch, connect again).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import socket
import time
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, TypeVar

from . import wire
from .errors import (BgwError, ConnectionClosed, DecodeError, EstablishmentRejected,
                     FrameError, KeepaliveTimeout, NegotiationRejected, SessionError,
                     SessionRollover, Terminated)
from .messages import (BooleanType, Category, Establish, EstablishmentAck,
                       EstablishmentReject, FlowType, MassCancelRequestType, MassStatusReqType,
                       Negotiate, NegotiationReject, NegotiationResponse, NewOrderList,
                       NewOrderListOrder, NewOrderSingle, NotApplied, OrderCancelList,
                       OrderCancelListOrder, OrderCancelReplaceList,
                       OrderCancelReplaceListOrder, OrderCancelReplaceRequest,
                       OrderCancelRequest, OrderMassCancelRequest, OrderMassStatusRequest,
                       OrdType, PosSide, RateBudgetRequest, Retransmission,
                       RetransmitReject, RetransmitRequest, Sequence, Side, StpMode, Terminate, TerminationCode,
                       TimeInForce)
from .wire import SbeMessage

DecimalLike = Decimal | str | int
"""A price or quantity: :class:`~decimal.Decimal`, decimal string or int (never float)."""

M = TypeVar("M", bound=SbeMessage)

#: Templates up to this id are FIXP session messages; the gateway numbers the ones above.
LAST_SESSION_TEMPLATE = NotApplied.TEMPLATE_ID
#: Most messages one RetransmitRequest may ask for (docs/protocol.md).
MAX_RETRANSMIT_COUNT = 10_000


def terminated(m: Terminate) -> Terminated:
    """The error a gateway Terminate ends the session with: :class:`SessionRollover` for code
    SessionRollover (the epoch ended; connect again), else :class:`Terminated`."""
    if m.code == TerminationCode.SESSION_ROLLOVER:
        return SessionRollover(m)
    return Terminated(m)


def now_ns() -> int:
    """Current UTC time in nanoseconds since the Unix epoch (TransactTime, Timestamp)."""
    return time.time_ns()


class ClOrdIdSource:
    """Hands out ClOrdIDs (u64) unique within a session across reconnects and restarts.

    Starts at the current UTC time in microseconds and counts up by one, so a restarted
    strategy never reuses a ClOrdID of an earlier run unless it sent more than a million
    per second. ListIDs and request ids are taken from the same counter.
    """

    def __init__(self, start: int | None = None) -> None:
        self._it = itertools.count(start if start is not None else time.time_ns() // 1000)

    def __call__(self) -> int:
        return next(self._it)


@dataclass(frozen=True, slots=True)
class OrderSpec:
    """One order of a batch (:meth:`AsyncClient.new_order_list`); fields as in
    :meth:`AsyncClient.new_order`. ``cl_ord_id`` 0 = assign one."""

    symbol: str
    side: Side
    qty: DecimalLike
    category: Category
    price: DecimalLike | None = None
    ord_type: OrdType | None = None
    time_in_force: TimeInForce = TimeInForce.GTC
    pos_side: PosSide = PosSide.NONE
    reduce_only: bool = False
    stp_mode: StpMode = StpMode.DEFAULT
    cl_ord_id: int = 0


@dataclass(frozen=True)
class EpochSeq:
    """A sequence number of the gateway's flow in one epoch: the last message read in it
    (:attr:`AsyncClient.last_read`), or the last message of the previous epoch
    (:attr:`AsyncClient.previous_epoch`)."""

    session_ver_id: int
    """The epoch (FIXP session version, SessionVerID)."""
    seq: int
    """A sequence number in it (0: none)."""


@dataclass
class PreviousEpochMessages:
    """The previous epoch's messages a connection recovered during its handshake
    (:meth:`AsyncClient.take_previous_epoch`)."""

    session_ver_id: int
    """The epoch they belong to."""
    messages: list[tuple[int, SbeMessage]]
    """The messages after ``last_read``, each with its sequence number in that epoch, in
    order: the original frames the gateway kept."""
    rejected: RetransmitReject | None = None
    """Set when the gateway refused a request (e.g. Unavailable: the epoch's journal segments
    are no longer kept); ``messages`` then holds what came before."""


class AsyncClient:
    """An established strategy session (create it with :meth:`connect`).

    All ``send``-type coroutines return as soon as the frame is handed to the socket; answers
    arrive through :meth:`recv` / ``async for``. Not safe for use from several event loops.
    """

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *,
                 session_id: int, keepalive_ms: int, max_frame_len: int,
                 cl_ord_ids: Callable[[], int] | None, capture: list[bytes] | None) -> None:
        self._reader = reader
        self._writer = writer
        self._frames = wire.FrameReader(max_frame_len)
        self.session_id = session_id
        """FIXP SessionID of this session."""
        self.session_ver_id = 0
        """The epoch (FIXP session version) in force, as the gateway answered in
        NegotiationResponse.SessionVerID: 1 and up (0 from a gateway of schema version 0)."""
        self.keepalive_ms = keepalive_ms
        """Keepalive interval agreed in Establish / EstablishmentAck, ms."""
        self.next_cl_ord_id: Callable[[], int] = cl_ord_ids or ClOrdIdSource()
        """Source of ClOrdIDs / ListIDs / request ids used when none is given."""
        self.capture = capture
        """If a list, every SBE payload received (after SOFH) is appended to it."""
        self.next_seq_from_gateway = 0
        """EstablishmentAck.NextSeqNo: the number of the gateway's next live message."""
        self._next_in_seq = 1
        self._last_seq = 0
        self._next_out_seq = 1
        self._queue: asyncio.Queue[SbeMessage | BaseException] = asyncio.Queue()
        self._closed: BaseException | None = None
        self._last_send = time.monotonic()
        self._last_recv = time.monotonic()
        self._tasks: list[asyncio.Task[None]] = []
        # Handshake answers go to their own queue until the reader sees EstablishmentAck (or a
        # reject); from then on everything goes to the main queue, in order.
        self._handshake_queue: asyncio.Queue[SbeMessage | BaseException] = asyncio.Queue()
        self._handshake: asyncio.Queue[SbeMessage | BaseException] | None = \
            self._handshake_queue
        self._write_lock = asyncio.Lock()
        self._retransmit_todo: list[tuple[int, int]] = []
        self._retransmit_left = 0
        self.previous_epoch: EpochSeq | None = None
        """EstablishmentAck PreviousSessionVerID / PreviousSeqNo (CME iLink 3 PreviousUUID /
        PreviousSeqNo): the epoch before the one in force and the number of its last message;
        ``None`` before the session's first rollover or from a gateway of schema version
        below 2."""
        # Application messages of a previous epoch's Retransmission still to come: not
        # numbered in the epoch in force.
        self._other_epoch_left = 0
        self._recovered: PreviousEpochMessages | None = None

    # ---------------------------------------------------------------------------------------
    # connection

    @classmethod
    async def connect(cls, host: str, port: int, *, session_id: int, credentials: str,
                      keepalive_ms: int = 1000, next_seq_no: int = 1,
                      last_received_seq: int | None = None, session_ver_id: int = 0,
                      last_read: EpochSeq | None = None,
                      timeout: float = 5.0,
                      max_frame_len: int = wire.DEFAULT_MAX_FRAME_LEN,
                      cl_ord_ids: Callable[[], int] | None = None,
                      capture: list[bytes] | None = None) -> AsyncClient:
        """Connects, negotiates and establishes the session.

        - ``session_id``, ``credentials``: as configured in the gateway's ``[[session]]``.
        - ``keepalive_ms``: keepalive interval asked for, ms (gateway default range
          100..60 000).
        - ``next_seq_no``: number of the client's next application message (1 restarts the
          numbering; a number above the gateway's expectation is answered NotApplied).
        - ``last_received_seq``: number of the last gateway application message the strategy
          processed in an earlier connection; if EstablishmentAck shows newer ones, they are
          requested again (Retransmission, then the original messages, arrive via
          :meth:`recv`).
        - ``session_ver_id``: the epoch (FIXP session version) asked for: 0 = whichever is
          current; the current one = resume it; a higher one = end the current epoch and start
          that one (a rollover: numbering restarts on both flows, so pass ``next_seq_no=1``);
          a lower one is refused (NegotiationRejected, code StaleSessionVersion). The epoch in
          force is :attr:`session_ver_id` afterwards.
        - ``last_read``: the last message the strategy read before this connection (the
          previous connection's :attr:`last_read`). When EstablishmentAck names its epoch as
          the previous one and that epoch's last message is later, the rest is asked for
          (RetransmitRequest ``LastSessionVerID``) before this returns:
          :meth:`take_previous_epoch`.
        - ``timeout``: seconds for the TCP connect and each handshake answer (and for the
          previous epoch's recovery).
        - ``capture``: a list that receives every raw SBE payload (tests, audits).

        Raises :class:`~bgw_client.errors.NegotiationRejected`,
        :class:`~bgw_client.errors.EstablishmentRejected`,
        :class:`~bgw_client.errors.Terminated` (or its :class:`~bgw_client.errors.SessionRollover`),
        :class:`TimeoutError`, ``OSError``, or :class:`~bgw_client.errors.EncodeError` for a
        ``session_ver_id`` outside uint64.
        """
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        c = cls(reader, writer, session_id=session_id, keepalive_ms=keepalive_ms,
                max_frame_len=max_frame_len, cl_ord_ids=cl_ord_ids, capture=capture)
        c._next_out_seq = next_seq_no
        c._tasks.append(asyncio.create_task(c._read_loop(), name="bgw-reader"))
        try:
            ts = now_ns()
            await c._write(Negotiate(session_id=session_id, timestamp=ts,
                                     client_flow=FlowType.IDEMPOTENT, credentials=credentials,
                                     session_ver_id=session_ver_id))
            m = await c._handshake_reply(timeout, (NegotiationResponse, NegotiationReject))
            if isinstance(m, NegotiationReject):
                raise NegotiationRejected(m)
            assert isinstance(m, NegotiationResponse)
            c.session_ver_id = m.session_ver_id
            await c._write(Establish(session_id=session_id, timestamp=ts,
                                     keepalive_interval=keepalive_ms, next_seq_no=next_seq_no))
            m = await c._handshake_reply(timeout, (EstablishmentAck, EstablishmentReject))
            if isinstance(m, EstablishmentReject):
                raise EstablishmentRejected(m)
            assert isinstance(m, EstablishmentAck)
        except BaseException:
            await c.close()
            raise
        c.keepalive_ms = m.keepalive_interval
        if m.previous_session_ver_id is not None:
            c.previous_epoch = EpochSeq(m.previous_session_ver_id, m.previous_seq_no)
        c._tasks.append(asyncio.create_task(c._keepalive_loop(), name="bgw-keepalive"))
        prev = c.previous_epoch
        if (last_read is not None and prev is not None
                and last_read.session_ver_id == prev.session_ver_id
                and last_read.seq < prev.seq):
            try:
                c._recovered = await c._recover_previous(prev.session_ver_id,
                                                         last_read.seq + 1, prev.seq, timeout)
            except BaseException:
                await c.close()
                raise
        if last_received_seq is not None and m.next_seq_no > last_received_seq + 1:
            first = last_received_seq + 1
            c._retransmit_todo = [
                (s, min(MAX_RETRANSMIT_COUNT, m.next_seq_no - s))
                for s in range(first, m.next_seq_no, MAX_RETRANSMIT_COUNT)
            ]
            await c._next_retransmit_request()
        return c

    async def _recover_previous(self, epoch: int, first: int, last: int,
                                timeout: float) -> PreviousEpochMessages:
        """Asks for the previous epoch ``epoch``'s messages ``first ..= last`` (at most
        :data:`MAX_RETRANSMIT_COUNT` a request) and collects them; the messages of the epoch
        in force that arrive meanwhile go back to the queue, in order, for :meth:`recv`."""
        got = PreviousEpochMessages(session_ver_id=epoch, messages=[])
        later: list[SbeMessage | BaseException] = []
        deadline = time.monotonic() + timeout
        seq = first
        try:
            while seq <= last and got.rejected is None:
                count = min(MAX_RETRANSMIT_COUNT, last - seq + 1)
                await self._write(RetransmitRequest(
                    session_id=self.session_id, timestamp=now_ns(), from_seq_no=seq,
                    count=count, last_session_ver_id=epoch))
                left: int | None = None
                while left != 0:
                    wait = deadline - time.monotonic()
                    if wait <= 0:
                        raise TimeoutError("the previous epoch's messages did not come")
                    try:
                        m = await asyncio.wait_for(self._queue.get(), wait)
                    except asyncio.TimeoutError:
                        raise TimeoutError(
                            "the previous epoch's messages did not come") from None
                    if (left is None and isinstance(m, Retransmission)
                            and m.session_ver_id == epoch):
                        left = m.count
                    elif left is None and isinstance(m, RetransmitReject):
                        got.rejected = m
                        break
                    elif (left and not isinstance(m, BaseException)
                          and m.TEMPLATE_ID > LAST_SESSION_TEMPLATE):
                        got.messages.append((seq, m))
                        seq += 1
                        left -= 1
                    else:
                        later.append(m)
                        if isinstance(m, BaseException):
                            return got
        finally:
            # What came for the epoch in force goes first, then what the reader queued since.
            while not self._queue.empty():
                later.append(self._queue.get_nowait())
            for item in later:
                self._queue.put_nowait(item)
        return got

    def take_previous_epoch(self) -> PreviousEpochMessages | None:
        """The previous epoch's messages this connection recovered during :meth:`connect`
        (see ``last_read``), once; ``None`` when nothing was missing or asked for."""
        got, self._recovered = self._recovered, None
        return got

    @property
    def last_read(self) -> EpochSeq:
        """The last application message read in the epoch in force (``seq`` 0 before any):
        what to pass as ``last_read`` when connecting again."""
        return EpochSeq(self.session_ver_id, self._last_seq)

    async def _handshake_reply(self, timeout: float, want: tuple[type, ...]) -> SbeMessage:
        queue = self._handshake_queue
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no handshake answer from the gateway")
            try:
                m = await asyncio.wait_for(queue.get(), left)
            except asyncio.TimeoutError:
                raise TimeoutError("no handshake answer from the gateway") from None
            if isinstance(m, BaseException):
                raise m
            if isinstance(m, want):
                return m
            if isinstance(m, Terminate):
                raise terminated(m)
            if isinstance(m, Sequence):
                continue
            raise SessionError(f"unexpected {type(m).__name__} during the handshake")

    async def close(self) -> None:
        """Closes the connection without Terminate (the gateway then applies the session's
        cancel-on-disconnect setting). Idempotent."""
        if self._closed is None:
            self._closed = ConnectionClosed("connection closed by the client")
        current = asyncio.current_task()
        for t in self._tasks:
            if t is not current:
                t.cancel()
        for t in self._tasks:
            if t is not current:
                with contextlib.suppress(BaseException):
                    await t
        self._writer.close()
        with contextlib.suppress(Exception):
            await self._writer.wait_closed()

    async def terminate(self, reason: str = "done", timeout: float = 5.0) -> Terminate | None:
        """Sends Terminate (Finished), waits up to ``timeout`` s for the gateway's Terminate,
        then closes. The session's open orders stay open. Returns the gateway's Terminate, or
        ``None`` if none came. Application messages that arrive meanwhile stay queued and
        can still be read with :meth:`recv` (until the queue is empty)."""
        try:
            if self._closed is None:
                await self._write(Terminate(session_id=self.session_id,
                                            code=TerminationCode.FINISHED, reason=reason))
                deadline = time.monotonic() + timeout
                while (left := deadline - time.monotonic()) > 0:
                    if isinstance(self._closed, Terminated):
                        return self._closed.terminate  # type: ignore[no-any-return]
                    if self._closed is not None:
                        return None
                    await asyncio.sleep(min(left, 0.005))
            elif isinstance(self._closed, Terminated):
                return self._closed.terminate  # type: ignore[no-any-return]
            return None
        finally:
            await self.close()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._closed is None:
            await self.terminate()
        else:
            await self.close()

    @property
    def closed(self) -> bool:
        """True once the connection is closed (by either side or after an error)."""
        return self._closed is not None

    @property
    def last_seq(self) -> int:
        """Sequence number of the last gateway application message received (0 before any);
        resent messages after a Retransmission carry their original numbers."""
        return self._last_seq

    @property
    def next_in_seq(self) -> int:
        """Sequence number the gateway's next application message will carry."""
        return self._next_in_seq

    @property
    def next_out_seq(self) -> int:
        """Sequence number of the client's next application message (sent in Sequence)."""
        return self._next_out_seq

    # ---------------------------------------------------------------------------------------
    # reading

    async def _read_loop(self) -> None:
        err: BaseException
        try:
            while True:
                data = await self._reader.read(65536)
                if not data:
                    err = ConnectionClosed("connection closed by the gateway")
                    break
                self._last_recv = time.monotonic()
                self._frames.feed(data)
                while (payload := self._frames.next_payload()) is not None:
                    await self._on_payload(payload)
        except FrameError as e:
            err = e
        except asyncio.CancelledError:
            return
        except OSError as e:
            err = ConnectionClosed(f"connection error: {e}")
        self._fail(err)
        self._writer.close()

    def _fail(self, err: BaseException) -> None:
        if self._closed is not None:
            return
        self._closed = err
        target = self._handshake if self._handshake is not None else self._queue
        target.put_nowait(err)

    async def _on_payload(self, payload: bytes) -> None:
        if self.capture is not None:
            self.capture.append(payload)
        target = self._handshake if self._handshake is not None else self._queue
        tid = wire.template_id_of(payload)
        try:
            msg = wire.decode(payload)
        except DecodeError as e:
            e.payload = payload
            if tid is not None and tid > LAST_SESSION_TEMPLATE:
                self._count_in()
            target.put_nowait(e)
            return
        if isinstance(msg, Sequence):
            self._next_in_seq = msg.next_seq_no
            if self._handshake is not None:
                target.put_nowait(msg)
            return
        if isinstance(msg, EstablishmentAck) and self._handshake is not None:
            self.next_seq_from_gateway = msg.next_seq_no
            self._next_in_seq = msg.next_seq_no
            self._handshake = None
            target.put_nowait(msg)
            return
        if isinstance(msg, Retransmission) and msg.session_ver_id not in (None,
                                                                           self.session_ver_id):
            # Another epoch's messages (the previous one's): not numbered in this one.
            self._other_epoch_left = msg.count
        elif isinstance(msg, Retransmission):
            self._next_in_seq = msg.next_seq_no
            self._retransmit_left = msg.count
        elif msg.TEMPLATE_ID > LAST_SESSION_TEMPLATE and self._other_epoch_left > 0:
            self._other_epoch_left -= 1
        elif msg.TEMPLATE_ID > LAST_SESSION_TEMPLATE:
            self._count_in()
        elif isinstance(msg, Terminate):
            target.put_nowait(msg)
            self._fail(terminated(msg))
            return
        target.put_nowait(msg)

    def _count_in(self) -> None:
        self._last_seq = self._next_in_seq
        self._next_in_seq += 1
        if self._retransmit_left > 0:
            self._retransmit_left -= 1
            if self._retransmit_left == 0 and self._retransmit_todo:
                asyncio.get_running_loop().create_task(self._next_retransmit_request())

    async def _next_retransmit_request(self) -> None:
        if self._retransmit_todo and self._closed is None:
            first, count = self._retransmit_todo.pop(0)
            await self.request_retransmit(first, count)

    async def recv(self, timeout: float | None = None) -> SbeMessage:
        """The next message from the gateway (Sequence keepalives excluded).

        Returns a generated dataclass (:class:`~bgw_client.messages.ExecutionReport`,
        :class:`~bgw_client.messages.ListStatus`, ...). Raises :class:`TimeoutError` after
        ``timeout`` seconds (``None`` = wait forever), :class:`~bgw_client.errors.DecodeError`
        for a message that does not decode (the session continues), and once the queue is
        drained after the end of the connection its reason
        (:class:`~bgw_client.errors.Terminated`, :class:`~bgw_client.errors.SessionRollover`
        when the gateway ended the epoch, :class:`~bgw_client.errors.ConnectionClosed`,
        :class:`~bgw_client.errors.FrameError`, :class:`~bgw_client.errors.KeepaliveTimeout`).
        """
        if self._queue.empty() and self._closed is not None:
            raise self._closed
        try:
            item = await asyncio.wait_for(self._queue.get(), timeout)
        except asyncio.TimeoutError:
            raise TimeoutError(f"no message from the gateway within {timeout} s") from None
        if isinstance(item, BaseException):
            raise item
        return item

    async def recv_until(self, match: Callable[[SbeMessage], bool],
                         timeout: float = 5.0) -> list[SbeMessage]:
        """Reads messages until one satisfies ``match``; returns all of them (the match last).
        Raises :class:`TimeoutError` if none matches within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        got: list[SbeMessage] = []
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no matching message within {timeout} s; got "
                                   f"{[type(m).__name__ for m in got]}")
            m = await self.recv(left)
            got.append(m)
            if match(m):
                return got

    def __aiter__(self) -> AsyncIterator[SbeMessage]:
        return self._iter()

    async def _iter(self) -> AsyncIterator[SbeMessage]:
        while True:
            try:
                yield await self.recv()
            except (Terminated, ConnectionClosed):
                return

    # ---------------------------------------------------------------------------------------
    # writing

    async def _write(self, msg: SbeMessage) -> None:
        data = wire.encode_frame(msg)
        if len(data) > self._frames.max_frame_len:
            raise wire.EncodeError(f"{type(msg).__name__}: frame of {len(data)} bytes above "
                                   f"the limit {self._frames.max_frame_len}")
        if self._closed is not None and not isinstance(msg, Terminate):
            raise self._closed
        async with self._write_lock:
            self._writer.write(data)
            self._last_send = time.monotonic()
            if msg.TEMPLATE_ID > LAST_SESSION_TEMPLATE:
                self._next_out_seq += 1
            await self._writer.drain()

    async def send(self, msg: SbeMessage) -> None:
        """Sends any message of the schema as is (``transact_time`` / ``timestamp`` 0 is set to
        now). Prefer the typed helpers below."""
        for attr in ("transact_time", "timestamp"):
            if getattr(msg, attr, None) == 0:
                setattr(msg, attr, now_ns())
        await self._write(msg)

    async def _keepalive_loop(self) -> None:
        interval = self.keepalive_ms / 1000.0
        try:
            while self._closed is None:
                await asyncio.sleep(interval / 4)
                now = time.monotonic()
                if now - self._last_recv > 3 * interval:
                    self._fail(KeepaliveTimeout(
                        f"gateway silent for {now - self._last_recv:.3f} s "
                        f"(keepalive {self.keepalive_ms} ms)"))
                    self._writer.close()
                    return
                if now - self._last_send >= interval / 2:
                    await self._write(Sequence(next_seq_no=self._next_out_seq))
        except asyncio.CancelledError:
            return
        except (BgwError, OSError) as e:
            self._fail(e if isinstance(e, BgwError) else ConnectionClosed(str(e)))

    async def send_keepalive(self) -> None:
        """Sends a Sequence (FIXP keepalive) with the client's next sequence number now."""
        await self._write(Sequence(next_seq_no=self._next_out_seq))

    async def request_retransmit(self, from_seq_no: int, count: int,
                                 session_ver_id: int | None = None) -> None:
        """Sends RetransmitRequest for the gateway's messages ``from_seq_no ..
        from_seq_no + count - 1`` (count ≤ 10 000) of epoch ``session_ver_id`` (``None``: the
        epoch in force; the previous one, :attr:`previous_epoch`: its messages while the
        gateway keeps them). Answered by Retransmission (its ``session_ver_id`` names the
        epoch) and the original messages (or RetransmitReject), via :meth:`recv`; another
        epoch's messages do not change :attr:`last_seq`."""
        await self._write(RetransmitRequest(session_id=self.session_id, timestamp=now_ns(),
                                            from_seq_no=from_seq_no, count=count,
                                            last_session_ver_id=session_ver_id))

    async def new_order(self, symbol: str, side: Side, qty: DecimalLike, *,
                        category: Category, price: DecimalLike | None = None,
                        ord_type: OrdType | None = None,
                        time_in_force: TimeInForce = TimeInForce.GTC,
                        pos_side: PosSide = PosSide.NONE, reduce_only: bool = False,
                        stp_mode: StpMode = StpMode.DEFAULT, cl_ord_id: int = 0) -> int:
        """Sends NewOrderSingle; returns its ClOrdID.

        ``qty`` in base units and ``price`` in quote units are exact decimals (Decimal, str or
        int). ``ord_type`` defaults to Limit with a price and Market without one. ``cl_ord_id``
        0 takes the next from :attr:`next_cl_ord_id`. Answered by ExecutionReports (New, then
        PartialFill / Fill / Canceled..., or Rejected).
        """
        cl = cl_ord_id or self.next_cl_ord_id()
        await self._write(NewOrderSingle(
            cl_ord_id=cl, transact_time=now_ns(), price=price, order_qty=qty, symbol=symbol,
            category=category, side=side,
            ord_type=ord_type or (OrdType.LIMIT if price is not None else OrdType.MARKET),
            time_in_force=time_in_force, pos_side=pos_side,
            reduce_only=BooleanType(int(reduce_only)), stp_mode=stp_mode))
        return cl

    async def cancel(self, orig_cl_ord_id: int, symbol: str, side: Side, *,
                     category: Category, cl_ord_id: int = 0) -> int:
        """Sends OrderCancelRequest for the order ``orig_cl_ord_id``; returns the request's
        ClOrdID. Answered by ExecutionReport Canceled or OrderCancelReject."""
        cl = cl_ord_id or self.next_cl_ord_id()
        await self._write(OrderCancelRequest(
            cl_ord_id=cl, orig_cl_ord_id=orig_cl_ord_id, transact_time=now_ns(),
            symbol=symbol, category=category, side=side))
        return cl

    async def replace(self, orig_cl_ord_id: int, symbol: str, side: Side, *,
                      category: Category, qty: DecimalLike, price: DecimalLike | None = None,
                      auto_cancel: bool = False, cl_ord_id: int = 0) -> int:
        """Sends OrderCancelReplaceRequest; returns the new ClOrdID, which the order carries
        from then on. Answered by ExecutionReport Replaced or OrderCancelReject.

        ``qty`` (base units) is the order's new total quantity and is required: the gateway
        refuses a replace without one (OrderCancelReject ``OrderQty is required``, as in FIX 35=G). ``price`` ``None`` keeps
        the current price. ``auto_cancel``: cancel the order if the modification fails.
        """
        cl = cl_ord_id or self.next_cl_ord_id()
        await self._write(OrderCancelReplaceRequest(
            cl_ord_id=cl, orig_cl_ord_id=orig_cl_ord_id, transact_time=now_ns(), price=price,
            order_qty=qty, symbol=symbol, category=category, side=side,
            auto_cancel=BooleanType(int(auto_cancel))))
        return cl

    async def new_order_list(self, orders: Iterable[OrderSpec], *,
                             list_id: int = 0) -> tuple[int, list[int]]:
        """Sends NewOrderList (a batch place, at most 82 orders per message); returns
        ``(list_id, [ClOrdID per order])``. Answered by one ExecutionReport per order and
        ListStatus (per-item results; match entries by ClOrdID)."""
        entries = []
        for o in orders:
            entries.append(NewOrderListOrder(
                cl_ord_id=o.cl_ord_id or self.next_cl_ord_id(), price=o.price,
                order_qty=o.qty, symbol=o.symbol, category=o.category, side=o.side,
                ord_type=o.ord_type or (OrdType.LIMIT if o.price is not None
                                        else OrdType.MARKET),
                time_in_force=o.time_in_force, pos_side=o.pos_side,
                reduce_only=BooleanType(int(o.reduce_only)), stp_mode=o.stp_mode))
        lid = list_id or self.next_cl_ord_id()
        await self._write(NewOrderList(list_id=lid, transact_time=now_ns(), orders=entries))
        return lid, [e.cl_ord_id for e in entries]

    async def cancel_list(self, orders: Iterable[tuple[int, str, Side, Category]], *,
                          list_id: int = 0) -> tuple[int, list[int]]:
        """Sends OrderCancelList for ``(orig_cl_ord_id, symbol, side, category)`` items;
        returns ``(list_id, [request ClOrdID per item])``. Answered by ListStatus and
        ExecutionReports."""
        entries = [OrderCancelListOrder(cl_ord_id=self.next_cl_ord_id(), orig_cl_ord_id=o,
                                        symbol=s, side=sd, category=cat)
                   for o, s, sd, cat in orders]
        lid = list_id or self.next_cl_ord_id()
        await self._write(OrderCancelList(list_id=lid, transact_time=now_ns(), orders=entries))
        return lid, [e.cl_ord_id for e in entries]

    async def replace_list(self, items: Iterable[OrderCancelReplaceListOrder], *,
                           list_id: int = 0) -> int:
        """Sends OrderCancelReplaceList (entries built by the caller; ``cl_ord_id`` 0 is
        assigned); returns the ListID."""
        entries = list(items)
        for e in entries:
            if not e.cl_ord_id:
                e.cl_ord_id = self.next_cl_ord_id()
        lid = list_id or self.next_cl_ord_id()
        await self._write(OrderCancelReplaceList(list_id=lid, transact_time=now_ns(),
                                                 orders=entries))
        return lid

    async def mass_cancel(self, request_type: MassCancelRequestType =
                          MassCancelRequestType.SESSION, *, symbol: str = "",
                          category: Category | None = None, side: Side | None = None,
                          cl_ord_id: int = 0) -> int:
        """Sends OrderMassCancelRequest (scope Session, Symbol, Side or Account; ``category``
        narrows any scope); returns its ClOrdID. Answered by one Canceled ExecutionReport per
        order, then OrderMassCancelReport."""
        cl = cl_ord_id or self.next_cl_ord_id()
        await self._write(OrderMassCancelRequest(
            cl_ord_id=cl, transact_time=now_ns(), symbol=symbol,
            mass_cancel_request_type=request_type, category=category, side=side))
        return cl

    async def mass_status(self, request_type: MassStatusReqType = MassStatusReqType.SESSION,
                          *, symbol: str = "", category: Category | None = None,
                          refresh_from_exchange: bool = False, request_id: int = 0) -> int:
        """Sends OrderMassStatusRequest; returns its MassStatusReqID. Answered by one
        ExecutionReport (ExecType OrderStatus) per open order, then OrderMassStatusEnd."""
        rid = request_id or self.next_cl_ord_id()
        await self._write(OrderMassStatusRequest(
            mass_status_req_id=rid, transact_time=now_ns(), symbol=symbol,
            mass_status_req_type=request_type, category=category,
            refresh_from_exchange=BooleanType(int(refresh_from_exchange))))
        return rid

    async def rate_budget(self, request_id: int = 0) -> int:
        """Sends RateBudgetRequest; returns its RequestID (answered by RateBudgetReport)."""
        rid = request_id or self.next_cl_ord_id()
        await self._write(RateBudgetRequest(request_id=rid, transact_time=now_ns()))
        return rid


def is_final(m: Any, cl_ord_id: int) -> bool:
    """True if ``m`` ends the life of the order whose current ClOrdID is ``cl_ord_id``: an
    ExecutionReport with OrdStatus Filled, Canceled or Rejected whose ClOrdID is it, or whose
    OrigClOrdID is it (the report answering a cancel request carries the request's ClOrdID)."""
    from .messages import ExecutionReport, OrdStatus

    return (isinstance(m, ExecutionReport) and cl_ord_id in (m.cl_ord_id, m.orig_cl_ord_id)
            and m.ord_status in (OrdStatus.FILLED, OrdStatus.CANCELED, OrdStatus.REJECTED))
