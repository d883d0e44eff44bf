"""Wire format: SOFH framing, the SBE 1.0 codec driven by the generated field tables, exact
decimals.

- SOFH: 4-byte big-endian message length counting the 6-byte header, then the 2-byte
  big-endian encoding type ``0xEB50`` (SBE 1.0 little endian).
- SBE: 8-byte message header (blockLength, templateId, schemaId, version), the root block, then
  each repeating group (``groupSizeEncoding``: blockLength, numInGroup, then the entries).
- Versions (the SBE extension rule): :func:`encode` writes the schema's version
  (``messages.SCHEMA_VERSION``) and the whole block. :func:`decode` accepts a root block of at
  least ``MIN_BLOCK_LENGTH`` (the fields of version 0, an older sender): a field with a
  ``sinceVersion`` is read only when the header's version is at least it and the block holds
  the field, and otherwise is absent (``None`` if optional, else 0); a longer block or entry (a
  newer sender) is skipped over.
- Decimals: ``mantissa x 10^exponent`` (int64, int8); converted to and from
  :class:`decimal.Decimal` exactly, never through ``float``.

Every decoding problem raises :class:`~bgw_client.errors.DecodeError` (or
:class:`~bgw_client.errors.FrameError` for the framing); nothing else escapes :func:`decode`.
"""

from __future__ import annotations

import struct
from typing import Any

from . import messages as _m
from .errors import DecodeError, EncodeError, FrameError
from .fields import (MAX_EXPONENT, MIN_EXPONENT, CharArray, DecimalCodec, EnumCodec, FieldSpec,
                     GroupSpec, Prim, SbeGroupEntry, SbeMessage, decimal_from_sbe,
                     decimal_to_sbe)

__all__ = [
    "MAX_EXPONENT", "MIN_EXPONENT", "CharArray", "DecimalCodec", "EnumCodec", "FieldSpec",
    "GroupSpec", "Prim", "SbeGroupEntry", "SbeMessage", "decimal_from_sbe", "decimal_to_sbe",
    "SOFH_LEN", "SOFH_ENCODING_SBE_LE", "DEFAULT_MAX_FRAME_LEN", "header_len", "template_id_of",
    "decode", "encode", "frame", "encode_frame", "FrameReader",
]

SOFH_LEN = 6
"""Bytes of the Simple Open Framing Header."""
SOFH_ENCODING_SBE_LE = 0xEB50
"""SOFH encoding type of SBE 1.0 little endian."""
DEFAULT_MAX_FRAME_LEN = 4096
"""The gateway's default largest frame, bytes, SOFH header included."""

_SOFH = struct.Struct(">IH")


def _decode_block(cls: Any, buf: memoryview, off: int, where: str, version: int = 0,
                  present: int | None = None) -> dict[str, Any]:
    """The fields of one block at ``off``; a field added after ``version`` or not within the
    ``present`` bytes of the block is absent (:meth:`FieldSpec.absent`), not read."""
    values = {}
    for f in cls.FIELDS:
        if f.since_version and (f.since_version > version
                                or (present is not None
                                    and f.offset + f.codec.size > present)):
            values[f.attr] = f.absent()
        else:
            values[f.attr] = f.codec.decode(buf, off + f.offset, f"{where}.{f.name}")
    return values


def _encode_block(cls: Any, obj: Any, out: bytearray, off: int, where: str) -> None:
    for f in cls.FIELDS:
        f.codec.encode(out, off + f.offset, getattr(obj, f.attr), f"{where}.{f.name}")


class _Codec:
    """Schema constants of the generated module: the message classes by templateId, the
    schemaId, the message header and group size layouts."""

    def __init__(self) -> None:
        self.messages = _m.MESSAGES
        self.schema_id = _m.SCHEMA_ID
        self.schema_version = _m.SCHEMA_VERSION
        self.header = struct.Struct(_m.HEADER_FORMAT)
        self.group = struct.Struct(_m.GROUP_SIZE_FORMAT)


_CODEC = _Codec()


def _c() -> _Codec:
    return _CODEC


def header_len() -> int:
    """Bytes of the SBE message header (from the schema's ``messageHeader``)."""
    return _c().header.size


def template_id_of(payload: bytes | bytearray | memoryview) -> int | None:
    """The templateId of an SBE payload, or ``None`` if it is shorter than the header."""
    c = _c()
    if len(payload) < c.header.size:
        return None
    return int(c.header.unpack_from(payload, 0)[1])


def decode(payload: bytes | bytearray | memoryview) -> SbeMessage:
    """Decodes one SBE message (the bytes after the SOFH header) into its dataclass.

    Checks the header (schemaId, a known templateId, blockLength at least the message's
    ``MIN_BLOCK_LENGTH``), that the root block and every group entry lie within ``payload``,
    that each group's entry block length is at least the schema's and its count at most
    ``maxEntries``, and every field present (enum values, required decimals not null, decimal
    exponents in -18..18, text encoding). A field added by a later schema version than the
    header's, or beyond a shorter block (an older sender), is absent: ``None`` if optional,
    else 0. A longer root block or entry (a newer schema version) is skipped over. Raises
    :class:`~bgw_client.errors.DecodeError` (``template_id`` set when known) on any problem.
    """
    c = _c()
    buf = memoryview(payload)
    if len(buf) < c.header.size:
        raise DecodeError(f"message of {len(buf)} bytes is shorter than the SBE header")
    block_len, tid, schema_id, version = c.header.unpack_from(buf, 0)
    if schema_id != c.schema_id:
        raise DecodeError(f"schemaId {schema_id}, expected {c.schema_id}", template_id=tid)
    cls = c.messages.get(tid)
    if cls is None:
        raise DecodeError(f"unknown templateId {tid}", template_id=tid)
    name = cls.__name__
    try:
        if block_len < cls.MIN_BLOCK_LENGTH:
            raise DecodeError(f"{name}: blockLength {block_len} below the schema's "
                              f"{cls.MIN_BLOCK_LENGTH}")
        pos = c.header.size
        if pos + block_len > len(buf):
            raise DecodeError(f"{name}: root block of {block_len} bytes beyond the "
                              f"{len(buf)}-byte message")
        values = _decode_block(cls, buf, pos, name, version, block_len)
        pos += block_len
        for g in cls.GROUPS:
            gname = f"{name}.{g.name}"
            if pos + c.group.size > len(buf):
                raise DecodeError(f"{gname}: group header beyond the message")
            entry_len, count = c.group.unpack_from(buf, pos)
            pos += c.group.size
            if entry_len < g.block_length:
                raise DecodeError(f"{gname}: entry blockLength {entry_len} below the schema's "
                                  f"{g.block_length}")
            if g.max_entries is not None and count > g.max_entries:
                raise DecodeError(f"{gname}: {count} entries, at most {g.max_entries}")
            if pos + entry_len * count > len(buf):
                raise DecodeError(f"{gname}: {count} entries of {entry_len} bytes beyond the "
                                  "message")
            entries = []
            for i in range(count):
                entries.append(g.entry(**_decode_block(g.entry, buf, pos, f"{gname}[{i}]")))
                pos += entry_len
            values[g.attr] = entries
        return cls(**values)
    except DecodeError as e:
        if e.template_id is None:
            e.template_id = tid
        raise
    except (struct.error, ValueError, TypeError) as e:  # defensive: never a bare crash
        raise DecodeError(f"{name}: {e}", template_id=tid) from e


def encode(msg: SbeMessage) -> bytes:
    """Encodes ``msg`` as an SBE message (header, root block, groups), without SOFH.

    Raises :class:`~bgw_client.errors.EncodeError` (a ``ValueError``) for a value the schema
    cannot carry: an int out of range, a text too long, an invalid enum, a missing required
    field, a group longer than ``maxEntries``.
    """
    c = _c()
    cls = type(msg)
    if c.messages.get(getattr(cls, "TEMPLATE_ID", -1)) is not cls:
        raise EncodeError(f"{cls.__name__} is not a message of the schema")
    size = c.header.size + cls.BLOCK_LENGTH
    groups = []
    for g in cls.GROUPS:
        entries = list(getattr(msg, g.attr))
        if g.max_entries is not None and len(entries) > g.max_entries:
            raise EncodeError(f"{cls.__name__}.{g.name}: {len(entries)} entries, at most "
                              f"{g.max_entries}")
        if len(entries) > 0xFFFF:
            raise EncodeError(f"{cls.__name__}.{g.name}: too many entries")
        groups.append((g, entries))
        size += c.group.size + g.block_length * len(entries)
    out = bytearray(size)
    c.header.pack_into(out, 0, cls.BLOCK_LENGTH, cls.TEMPLATE_ID, c.schema_id,
                       c.schema_version)
    pos = c.header.size
    _encode_block(cls, msg, out, pos, cls.__name__)
    pos += cls.BLOCK_LENGTH
    for g, entries in groups:
        c.group.pack_into(out, pos, g.block_length, len(entries))
        pos += c.group.size
        for i, e in enumerate(entries):
            if not isinstance(e, g.entry):
                raise EncodeError(f"{cls.__name__}.{g.name}[{i}]: expected {g.entry.__name__}")
            _encode_block(g.entry, e, out, pos, f"{cls.__name__}.{g.name}[{i}]")
            pos += g.block_length
    return bytes(out)


def frame(payload: bytes) -> bytes:
    """Prefixes ``payload`` with the SOFH header (length counts the 6 header bytes)."""
    return _SOFH.pack(len(payload) + SOFH_LEN, SOFH_ENCODING_SBE_LE) + payload


def encode_frame(msg: SbeMessage) -> bytes:
    """:func:`encode` then :func:`frame`: one whole frame ready for the socket."""
    return frame(encode(msg))


class FrameReader:
    """Cuts SOFH frames out of a byte stream.

    :meth:`feed` appends received bytes; :meth:`next_payload` returns the next whole frame's
    payload (after the SOFH header) or ``None``. A length below the header size or above
    ``max_frame_len``, or an encoding type other than ``0xEB50``, raises
    :class:`~bgw_client.errors.FrameError` before anything is allocated for the frame: the
    stream cannot be resynchronised and the connection must be closed.
    """

    def __init__(self, max_frame_len: int = DEFAULT_MAX_FRAME_LEN) -> None:
        self.max_frame_len = max_frame_len
        self._buf = bytearray()
        self._start = 0

    def feed(self, data: bytes) -> None:
        """Appends bytes read from the socket."""
        if self._start and self._start == len(self._buf):
            self._buf.clear()
            self._start = 0
        self._buf += data

    def next_payload(self) -> bytes | None:
        """The next whole frame's payload, or ``None`` until more bytes arrive."""
        avail = len(self._buf) - self._start
        if avail < SOFH_LEN:
            return None
        length, enc = _SOFH.unpack_from(self._buf, self._start)
        if enc != SOFH_ENCODING_SBE_LE:
            raise FrameError(f"SOFH encoding type 0x{enc:04X}, expected 0x{SOFH_ENCODING_SBE_LE:04X}")
        if length < SOFH_LEN:
            raise FrameError(f"SOFH length {length} below the {SOFH_LEN}-byte header")
        if length > self.max_frame_len:
            raise FrameError(f"SOFH length {length} above the limit {self.max_frame_len}")
        if avail < length:
            return None
        payload = bytes(self._buf[self._start + SOFH_LEN:self._start + length])
        self._start += length
        if self._start > 65536:
            del self._buf[:self._start]
            self._start = 0
        return payload

    @property
    def buffered(self) -> int:
        """Bytes received but not yet returned as a frame."""
        return len(self._buf) - self._start
