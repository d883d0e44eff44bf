"""Codec without a gateway: exact decimals, a round trip of every message of the schema, and
defined errors (never a crash) for malformed input, including a client fed bad frames by a fake
gateway."""

from __future__ import annotations

import asyncio
import random
import struct
from decimal import Decimal
from typing import Any

import pytest

from bgw_client import (AsyncClient, CharArray, DecodeError, EncodeError, ExecutionReport,
                        FrameError, FrameReader, SessionRollover, Terminated, decimal_from_sbe,
                        decimal_to_sbe, decode, encode, encode_frame, frame)
from bgw_client import messages as msgs
from bgw_client.wire import DecimalCodec, EnumCodec, Prim


@pytest.mark.parametrize("mantissa,exponent,text", [
    (600125, -1, "60012.5"), (1, -18, "1E-18"), (-819462, -8, "-0.00819462"),
    (0, 0, "0"), (2**63 - 1, -4, "922337203685477.5807"), (-(2**63) + 1, 0, "-9223372036854775807"),
    (12, 3, "1.2E+4"), (5, 18, "5E+18"),
])
def test_decimal_exact(mantissa: int, exponent: int, text: str) -> None:
    d = decimal_from_sbe(mantissa, exponent)
    assert d == Decimal(text) and d.as_tuple().exponent == exponent
    assert decimal_to_sbe(d) == (mantissa, exponent)


def test_decimal_to_sbe_inputs() -> None:
    assert decimal_to_sbe("0.0100") == (100, -4)          # scale kept
    assert decimal_to_sbe(7) == (7, 0)
    assert decimal_to_sbe(Decimal("1E+20")) == (100, 18)   # exponent capped at 18
    assert decimal_to_sbe(Decimal("1.000000000000000000000")) == (10**18, -18)  # zeros stripped
    with pytest.raises(TypeError):
        decimal_to_sbe(0.1)  # type: ignore[arg-type]
    for bad in ("1E-19", "NaN", "Infinity", "99999999999999999999", "x"):
        with pytest.raises(EncodeError):
            decimal_to_sbe(bad)


def _sample(codec: Any, rnd: random.Random) -> Any:
    if isinstance(codec, DecimalCodec):
        if codec.optional and rnd.random() < 0.3:
            return None
        return decimal_from_sbe(rnd.randint(-(2**63) + 1, 2**63 - 1), rnd.randint(-18, 18))
    if isinstance(codec, EnumCodec):
        if codec.null is not None and rnd.random() < 0.3:
            return None
        return rnd.choice(list(codec.enum))
    if isinstance(codec, CharArray):
        if codec.encoding == "ascii":
            return "".join(rnd.choice("ABCXYZ0129") for _ in range(rnd.randint(0, codec.size)))
        return "é€ text"[: rnd.randint(0, 9)]
    assert isinstance(codec, Prim)
    bits = codec.size * 8
    if codec.name.startswith("u"):
        return rnd.choice([0, 1, 2**bits - 2, rnd.randrange(2**bits - 1)])
    return rnd.randint(-(2 ** (bits - 1)) + 1, 2 ** (bits - 1) - 1)


def _build(cls: Any, rnd: random.Random) -> Any:
    values = {f.attr: _sample(f.codec, rnd) for f in cls.FIELDS}
    for g in getattr(cls, "GROUPS", ()):
        n = rnd.randint(0, min(g.max_entries or 5, 5))
        values[g.attr] = [_build(g.entry, rnd) for _ in range(n)]
    return cls(**values)


@pytest.mark.parametrize("tid", sorted(msgs.MESSAGES))
def test_every_message_round_trips(tid: int) -> None:
    rnd = random.Random(tid)
    cls = msgs.MESSAGES[tid]
    for _ in range(20):
        m = _build(cls, rnd)
        payload = encode(m)
        block_len, got_tid, schema_id, version = struct.unpack_from("<HHHH", payload)
        assert (block_len, got_tid, schema_id, version) == (cls.BLOCK_LENGTH, tid, 1,
                                                             msgs.SCHEMA_VERSION)
        assert decode(payload) == m


# --- schema versions (SBE extension rule) ------------------------------------------------------


def _negotiate(ver: int = 7) -> msgs.Negotiate:
    return msgs.Negotiate(session_id=3, timestamp=11, client_flow=msgs.FlowType.IDEMPOTENT,
                          credentials="secret", session_ver_id=ver)


def _as_version(payload: bytes, block_len: int, version: int) -> bytes:
    """``payload`` as a sender of ``version`` with a ``block_len``-byte root block writes it."""
    b = bytearray(payload[:8 + block_len])
    struct.pack_into("<H", b, 0, block_len)
    struct.pack_into("<H", b, 6, version)
    return bytes(b)


def test_versioned_fields_come_from_the_schema() -> None:
    assert msgs.SCHEMA_VERSION == 2
    assert (msgs.Negotiate.BLOCK_LENGTH, msgs.Negotiate.MIN_BLOCK_LENGTH) == (89, 81)
    assert (msgs.NegotiationResponse.BLOCK_LENGTH,
            msgs.NegotiationResponse.MIN_BLOCK_LENGTH) == (25, 17)
    assert [(f.name, f.since_version) for f in msgs.Negotiate.FIELDS if f.since_version] == \
        [("SessionVerID", 1)]
    assert msgs.NewOrderSingle.MIN_BLOCK_LENGTH == msgs.NewOrderSingle.BLOCK_LENGTH
    assert msgs.NegotiationRejectCode.STALE_SESSION_VERSION == 4
    assert msgs.TerminationCode.SESSION_ROLLOVER == 7


def test_version_1_negotiate_round_trips_with_its_epoch() -> None:
    p = encode(_negotiate(2**64 - 1))
    assert struct.unpack_from("<HHHH", p) == (89, 1, 1, 2)
    assert struct.unpack_from("<Q", p, 8 + 81) == (2**64 - 1,)
    assert decode(p) == _negotiate(2**64 - 1)


def test_a_version_0_sender_has_no_epoch() -> None:
    full = encode(_negotiate())
    old = _as_version(full, 81, 0)
    assert decode(old) == _negotiate(0)
    # version 0 in the header: the field is not read even if the block holds it
    assert decode(_as_version(full, 89, 0)) == _negotiate(0)
    # a block that stops inside the field: absent too
    assert decode(_as_version(full, 85, 1)) == _negotiate(0)
    resp = msgs.NegotiationResponse(session_id=3, request_timestamp=11,
                                    server_flow=msgs.FlowType.RECOVERABLE, session_ver_id=4)
    assert decode(_as_version(encode(resp), 17, 0)).session_ver_id == 0  # type: ignore[attr-defined]
    # shorter than the version-0 fields: refused
    with pytest.raises(DecodeError, match="blockLength 80"):
        decode(_as_version(full, 80, 0))


def test_version_2_retransmission_fields_are_null_from_an_older_sender() -> None:
    """Schema version 2 (retransmission across one rollover): optional uint64 epochs whose
    null (2**64 - 1) is also what a version-1 sender's shorter block reads as; epoch 0 is a
    value."""
    assert [(f.name, f.since_version) for f in msgs.EstablishmentAck.FIELDS if f.since_version] \
        == [("PreviousSessionVerID", 2), ("PreviousSeqNo", 2)]
    assert (msgs.EstablishmentAck.BLOCK_LENGTH, msgs.EstablishmentAck.MIN_BLOCK_LENGTH) == (44, 28)
    assert (msgs.RetransmitRequest.BLOCK_LENGTH, msgs.RetransmitRequest.MIN_BLOCK_LENGTH) == (36, 28)
    ack = msgs.EstablishmentAck(session_id=3, request_timestamp=11, keepalive_interval=1000,
                                next_seq_no=4, previous_session_ver_id=0, previous_seq_no=9)
    assert decode(encode(ack)) == ack
    old = decode(_as_version(encode(ack), 28, 1))
    assert old.previous_session_ver_id is None  # type: ignore[attr-defined]
    assert old.previous_seq_no == 0  # type: ignore[attr-defined]
    req = msgs.RetransmitRequest(session_id=3, timestamp=11, from_seq_no=5, count=2,
                                 last_session_ver_id=None)
    p = encode(req)
    assert struct.unpack_from("<Q", p, 8 + 28) == (2**64 - 1,)
    assert decode(p) == req
    assert decode(_as_version(p, 28, 1)) == req


def test_a_newer_sender_longer_block_is_read() -> None:
    full = encode(_negotiate())
    newer = bytearray(full + b"\xee" * 5)
    struct.pack_into("<HHHH", newer, 0, 94, 1, 1, 3)
    assert decode(bytes(newer)) == _negotiate()


def _er(**kw: Any) -> ExecutionReport:
    base = dict(cl_ord_id=7, order_qty=Decimal("1"), cum_qty=Decimal("0"),
                leaves_qty=Decimal("1"), symbol="BTCUSDT", category=msgs.Category.SPOT,
                side=msgs.Side.BUY, ord_type=msgs.OrdType.LIMIT,
                time_in_force=msgs.TimeInForce.GTC, exec_type=msgs.ExecType.NEW,
                ord_status=msgs.OrdStatus.NEW, price=Decimal("10.5"))
    base.update(kw)
    return ExecutionReport(**base)


def test_null_values_are_none() -> None:
    m = decode(encode(_er(price=None)))
    assert isinstance(m, ExecutionReport)
    assert m.price is None and m.avg_px is None and m.last_qty is None
    assert m.ord_rej_reason is None and m.text == ""


def _patch(payload: bytes, cls: Any, attr: str, raw: bytes) -> bytes:
    off = 8 + next(f.offset for f in cls.FIELDS if f.attr == attr)
    b = bytearray(payload)
    b[off:off + len(raw)] = raw
    return bytes(b)


def _bad_payloads() -> list[tuple[str, bytes]]:
    er = encode(_er())
    ls = encode(msgs.ListStatus(list_id=1, ref_msg_type=107,
                                last_fragment=msgs.BooleanType.YES,
                                orders=[msgs.ListStatusOrder(cl_ord_id=i,
                                                             item_status=msgs.ItemStatus.ACCEPTED)
                                        for i in range(3)]))
    mv = encode(msgs.MovePositions(category=msgs.Category.USDT_FUTURES, positions=[]))
    return [
        ("short header", er[:5]),
        ("schema id", er[:4] + struct.pack("<H", 9) + er[6:]),
        ("unknown template", struct.pack("<HHHH", 0, 999, 1, 0)),
        ("block beyond payload", er[:-1]),
        ("block length below schema", struct.pack("<H", 10) + er[2:]),
        ("bad ExecType", _patch(er, ExecutionReport, "exec_type", b"Z")),
        ("bad Side", _patch(er, ExecutionReport, "side", b"\x09")),
        ("required decimal null", _patch(er, ExecutionReport, "order_qty",
                                         struct.pack("<q", -(2**63)))),
        ("exponent out of range", _patch(er, ExecutionReport, "price",
                                         struct.pack("<qb", 1, 19))),
        ("bad utf-8 text", _patch(er, ExecutionReport, "text", b"\xff\xfe")),
        ("non-ascii symbol", _patch(er, ExecutionReport, "symbol", b"\xc3\xa9")),
        ("group beyond payload", ls[:-1]),
        ("group header missing", ls[:8 + 19 + 2]),
        ("group entry block below schema", ls[:8 + 19] + struct.pack("<HH", 4, 3) + ls[8 + 23:]),
        ("too many entries", mv[:8 + 33] + struct.pack("<HH", 26, 11) + b"\x00" * 26 * 11),
    ]


@pytest.mark.parametrize("name,payload", _bad_payloads(), ids=[n for n, _ in _bad_payloads()])
def test_malformed_message_raises_decode_error(name: str, payload: bytes) -> None:
    with pytest.raises(DecodeError):
        decode(payload)


def test_random_bytes_never_crash() -> None:
    rnd = random.Random(1)
    seeds = [encode(_build(c, rnd)) for c in msgs.MESSAGES.values()]
    for _ in range(5000):
        b = bytearray(rnd.choice(seeds))
        for _ in range(rnd.randint(1, 4)):
            op = rnd.random()
            if op < 0.5 and b:
                b[rnd.randrange(len(b))] = rnd.randrange(256)
            elif op < 0.8:
                del b[rnd.randrange(len(b) + 1):]
            else:
                b += bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 8)))
        try:
            decode(bytes(b))
        except DecodeError:
            pass


def test_encode_refuses_what_the_schema_cannot_carry() -> None:
    with pytest.raises(EncodeError):
        encode(_er(symbol="X" * 17))
    with pytest.raises(EncodeError):
        encode(_er(cl_ord_id=-1))
    with pytest.raises(EncodeError):
        encode(_er(side=7))
    with pytest.raises(EncodeError):
        encode(_er(order_qty=None))
    with pytest.raises(EncodeError):
        encode(msgs.MovePositions(category=msgs.Category.USDT_FUTURES,
                                  positions=[msgs.MovePositionsPosition(
                                      side=msgs.Side.BUY, quantity=Decimal(1))] * 11))


def test_frame_reader() -> None:
    f = encode_frame(_er())
    r = FrameReader()
    r.feed(f[:3])
    assert r.next_payload() is None
    r.feed(f[3:] + f)
    assert r.next_payload() == f[6:] and r.next_payload() == f[6:] and r.next_payload() is None
    for bad in (struct.pack(">IH", 100, 0x5BE0), struct.pack(">IH", 5, 0xEB50),
                struct.pack(">IH", 4097, 0xEB50)):
        r = FrameReader()
        r.feed(bad)
        with pytest.raises(FrameError):
            r.next_payload()


# --- a fake gateway feeding the client bad frames ----------------------------------------------


async def _fake_gateway(frames_after_handshake: list[bytes], epoch: int | None = 1,
                        seen: list[Any] | None = None) -> tuple[asyncio.AbstractServer, int]:
    """A gateway that answers the handshake (NegotiationResponse with SessionVerID ``epoch``;
    ``None``: a version-0 gateway's 17-byte block), appends the Negotiate to ``seen``, then
    writes ``frames_after_handshake``."""
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        fr = FrameReader()
        answered = 0
        while answered < 2:
            fr.feed(await reader.read(4096))
            while (p := fr.next_payload()) is not None:
                m = decode(p)
                if isinstance(m, msgs.Negotiate):
                    if seen is not None:
                        seen.append(m)
                    resp = encode(msgs.NegotiationResponse(
                        session_id=m.session_id, request_timestamp=m.timestamp,
                        server_flow=msgs.FlowType.RECOVERABLE, session_ver_id=epoch or 99))
                    writer.write(frame(resp if epoch is not None
                                       else _as_version(resp, 17, 0)))
                    answered += 1
                elif isinstance(m, msgs.Establish):
                    writer.write(encode_frame(msgs.EstablishmentAck(
                        session_id=m.session_id, request_timestamp=m.timestamp,
                        keepalive_interval=m.keepalive_interval, next_seq_no=10)))
                    answered += 1
        for f in frames_after_handshake:
            writer.write(f)
        await writer.drain()
        await asyncio.sleep(1)
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


def test_client_stays_consistent_after_bad_frames() -> None:
    async def run() -> None:
        good = encode(_er())
        frames = [
            frame(_patch(good, ExecutionReport, "exec_type", b"Z")),   # seq 10, undecodable
            frame(struct.pack("<HHHH", 0, 999, 1, 0)),                 # seq 11, unknown template
            frame(good),                                               # seq 12
            struct.pack(">IH", 20, 0x1234) + b"\x00" * 14,             # broken SOFH
        ]
        server, port = await _fake_gateway(frames)
        async with server:
            c = await AsyncClient.connect("127.0.0.1", port, session_id=3, credentials="x")
            with pytest.raises(DecodeError) as e1:
                await c.recv(2)
            assert e1.value.template_id == 104 and "ExecType" in str(e1.value)
            with pytest.raises(DecodeError) as e2:
                await c.recv(2)
            assert e2.value.template_id == 999
            m = await c.recv(2)
            assert isinstance(m, ExecutionReport) and m.cl_ord_id == 7
            assert c.last_seq == 12 and c.next_in_seq == 13
            with pytest.raises(FrameError):
                await c.recv(2)
            assert c.closed
            with pytest.raises(FrameError):
                await c.recv(2)
            await c.close()

    asyncio.run(run())


def test_connect_sends_the_epoch_and_exposes_the_answer() -> None:
    async def run() -> None:
        seen: list[Any] = []
        server, port = await _fake_gateway([], epoch=6, seen=seen)
        async with server:
            c = await AsyncClient.connect("127.0.0.1", port, session_id=3, credentials="x",
                                          session_ver_id=6)
            assert c.session_ver_id == 6 and seen[-1].session_ver_id == 6
            await c.close()
            c = await AsyncClient.connect("127.0.0.1", port, session_id=3, credentials="x")
            assert seen[-1].session_ver_id == 0  # default: whichever epoch is current
            await c.close()
        server, port = await _fake_gateway([], epoch=None)
        async with server:
            c = await AsyncClient.connect("127.0.0.1", port, session_id=3, credentials="x")
            assert c.session_ver_id == 0  # a version-0 gateway answers no epoch
            await c.close()

    asyncio.run(run())


def test_a_rollover_terminate_raises_session_rollover() -> None:
    async def run() -> None:
        bye = encode_frame(msgs.Terminate(session_id=3,
                                          code=msgs.TerminationCode.SESSION_ROLLOVER,
                                          reason="epoch 1 ended"))
        server, port = await _fake_gateway([frame(encode(_er())), bye])
        async with server:
            c = await AsyncClient.connect("127.0.0.1", port, session_id=3, credentials="x")
            assert isinstance(await c.recv(2), ExecutionReport)
            t = await c.recv(2)
            assert isinstance(t, msgs.Terminate)
            assert t.code == msgs.TerminationCode.SESSION_ROLLOVER
            with pytest.raises(SessionRollover) as e:
                await c.recv(2)
            assert isinstance(e.value, Terminated) and e.value.terminate == t
            assert c.closed
            await c.close()
        # an ordinary Terminate is not a rollover
        fin = encode_frame(msgs.Terminate(session_id=3, code=msgs.TerminationCode.FINISHED))
        server, port = await _fake_gateway([fin])
        async with server:
            c = await AsyncClient.connect("127.0.0.1", port, session_id=3, credentials="x")
            await c.recv(2)
            with pytest.raises(Terminated) as e2:
                await c.recv(2)
            assert not isinstance(e2.value, SessionRollover)
            await c.close()

    asyncio.run(run())
