"""Wire format: SOFH framing, the SBE 1.0 codec driven by the generated field tables, exact
decimals.

- SOFH: 4-byte big-endian message length counting the 6-byte header, then the 2-byte
  big-endian encoding type ``0xEB50`` (SBE 1.0 little endian).
- SBE: 8-byte message header (blockLength, templateId, schemaId, version), the root block, then
  each repeating group (``groupSizeEncoding``: blockLength, numInGroup, then the entries).
- Decimals: ``mantissa x 10^exponent`` (int64, int8); converted to and from
  :class:`decimal.Decimal` exactly, never through ``float``.

Every decoding problem raises :class:`~bgw_client.errors.DecodeError` (or
:class:`~bgw_client.errors.FrameError` for the framing); nothing else escapes :func:`decode`.
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, ClassVar

from .errors import DecodeError, EncodeError, FrameError

SOFH_LEN = 6
"""Bytes of the Simple Open Framing Header."""
SOFH_ENCODING_SBE_LE = 0xEB50
"""SOFH encoding type of SBE 1.0 little endian."""
DEFAULT_MAX_FRAME_LEN = 4096
"""The gateway's default largest frame, bytes, SOFH header included."""
MIN_EXPONENT = -18
"""Smallest decimal exponent the gateway accepts (18 fractional digits)."""
MAX_EXPONENT = 18
"""Largest decimal exponent the gateway accepts."""

_SOFH = struct.Struct(">IH")
_I64_MIN = -(2**63)
_I64_MAX = 2**63 - 1


# --------------------------------------------------------------------------------------------
# Exact decimals


def decimal_from_sbe(mantissa: int, exponent: int) -> Decimal:
    """``mantissa x 10^exponent`` as an exact :class:`~decimal.Decimal` (no context rounding)."""
    sign = 1 if mantissa < 0 else 0
    digits = tuple(int(c) for c in str(abs(mantissa)))
    return Decimal((sign, digits, exponent))


def decimal_to_sbe(value: Decimal | str | int) -> tuple[int, int]:
    """``(mantissa, exponent)`` of ``value`` with the exponent in -18..18, exactly.

    Accepts a :class:`~decimal.Decimal`, a decimal string (``"0.001"``) or an ``int``; a
    ``float`` is refused (``TypeError``) because it is not exact. Raises
    :class:`~bgw_client.errors.EncodeError` when the value cannot be represented (NaN,
    infinite, more than 18 significant digits, more than 18 fractional digits after removing
    trailing zeros).
    """
    if isinstance(value, bool) or isinstance(value, float):
        raise TypeError(f"decimal fields take Decimal, str or int, not {type(value).__name__}")
    if not isinstance(value, Decimal):
        if not isinstance(value, (str, int)):
            raise TypeError(f"decimal fields take Decimal, str or int, not {type(value).__name__}")
        try:
            value = Decimal(value)
        except InvalidOperation as e:
            raise EncodeError(f"not a decimal: {value!r}") from e
    if not value.is_finite():
        raise EncodeError(f"not a finite decimal: {value}")
    sign, digits, exp = value.as_tuple()
    assert isinstance(exp, int)
    mantissa = int("".join(map(str, digits)) or "0")
    if sign:
        mantissa = -mantissa
    if exp > MAX_EXPONENT:
        mantissa *= 10 ** (exp - MAX_EXPONENT)
        exp = MAX_EXPONENT
    while exp < MIN_EXPONENT and mantissa % 10 == 0:
        mantissa //= 10
        exp += 1
    if mantissa == 0:
        exp = max(exp, MIN_EXPONENT)
    while not (_I64_MIN < mantissa <= _I64_MAX) and mantissa % 10 == 0 and exp < MAX_EXPONENT:
        mantissa //= 10
        exp += 1
    if exp < MIN_EXPONENT:
        raise EncodeError(f"{value}: more than {-MIN_EXPONENT} fractional digits")
    if not (_I64_MIN < mantissa <= _I64_MAX):
        raise EncodeError(f"{value}: mantissa does not fit int64")
    return mantissa, exp


# --------------------------------------------------------------------------------------------
# Field codecs (instantiated by the generated module, one per schema field)


class Prim:
    """An integer primitive (``uint64`` etc.); ``null`` is the SBE null of an optional field."""

    __slots__ = ("name", "st", "size", "null")

    def __init__(self, name: str, fmt: str, size: int, null: int | None = None) -> None:
        self.name = name
        self.st = struct.Struct("<" + fmt)
        self.size = size
        self.null = null

    def decode(self, buf: memoryview, off: int, where: str) -> Any:
        v = self.st.unpack_from(buf, off)[0]
        if self.null is not None and v == self.null:
            return None
        return v

    def encode(self, out: bytearray, off: int, value: Any, where: str) -> None:
        if value is None:
            if self.null is None:
                raise EncodeError(f"{where}: required")
            value = self.null
        if isinstance(value, bool) or not isinstance(value, int):
            raise EncodeError(f"{where}: {self.name} takes an int, not {type(value).__name__}")
        try:
            self.st.pack_into(out, off, value)
        except struct.error as e:
            raise EncodeError(f"{where}: {value} out of range for {self.name}") from e


class EnumCodec:
    """An SBE enum (``uint8`` or ``char`` encoding) as a Python :class:`enum.Enum`."""

    __slots__ = ("enum", "encoding", "st", "size", "null")

    def __init__(self, enum_cls: type[enum.Enum], encoding: str, fmt: str,
                 null: int | None = None) -> None:
        self.enum = enum_cls
        self.encoding = encoding
        self.st = struct.Struct("<" + ("B" if fmt == "c" else fmt))
        self.size = self.st.size
        self.null = null

    def decode(self, buf: memoryview, off: int, where: str) -> Any:
        raw = self.st.unpack_from(buf, off)[0]
        if self.null is not None and raw == self.null:
            return None
        key: int | str = chr(raw) if self.encoding == "char" else raw
        try:
            return self.enum(key)
        except ValueError:
            raise DecodeError(f"{where}: {key!r} is not a {self.enum.__name__}") from None

    def encode(self, out: bytearray, off: int, value: Any, where: str) -> None:
        if value is None:
            if self.null is None:
                raise EncodeError(f"{where}: required {self.enum.__name__}")
            self.st.pack_into(out, off, self.null)
            return
        try:
            member = self.enum(value)
        except ValueError:
            raise EncodeError(f"{where}: {value!r} is not a {self.enum.__name__}") from None
        raw = ord(member.value) if self.encoding == "char" else int(member.value)
        self.st.pack_into(out, off, raw)


class CharArray:
    """A fixed-length, NUL-padded character array (Symbol: ASCII; Text: UTF-8) as ``str``."""

    __slots__ = ("size", "encoding")

    def __init__(self, length: int, encoding: str) -> None:
        self.size = length
        self.encoding = "ascii" if encoding.upper() in ("US-ASCII", "ASCII") else encoding

    def decode(self, buf: memoryview, off: int, where: str) -> Any:
        raw = bytes(buf[off:off + self.size])
        end = raw.find(b"\0")
        if end >= 0:
            raw = raw[:end]
        try:
            return raw.decode(self.encoding)
        except UnicodeDecodeError as e:
            raise DecodeError(f"{where}: not {self.encoding}: {raw!r}") from e

    def encode(self, out: bytearray, off: int, value: Any, where: str) -> None:
        if value is None:
            value = ""
        if not isinstance(value, str):
            raise EncodeError(f"{where}: takes a str, not {type(value).__name__}")
        try:
            raw = value.encode(self.encoding)
        except UnicodeEncodeError as e:
            raise EncodeError(f"{where}: not {self.encoding}: {value!r}") from e
        if b"\0" in raw:
            raise EncodeError(f"{where}: contains NUL")
        if len(raw) > self.size:
            raise EncodeError(f"{where}: {len(raw)} bytes, at most {self.size}")
        out[off:off + len(raw)] = raw


class DecimalCodec:
    """The ``Decimal64`` composite (int64 mantissa, int8 exponent) as :class:`Decimal`."""

    __slots__ = ("st", "size", "null_mantissa", "optional")

    def __init__(self, fmt: str, size: int, null_mantissa: int | None, optional: bool) -> None:
        self.st = struct.Struct(fmt)
        self.size = size
        self.null_mantissa = null_mantissa
        self.optional = optional

    def decode(self, buf: memoryview, off: int, where: str) -> Any:
        m, e = self.st.unpack_from(buf, off)
        if m == self.null_mantissa:
            if self.optional:
                return None
            raise DecodeError(f"{where}: required decimal is null")
        if not MIN_EXPONENT <= e <= MAX_EXPONENT:
            raise DecodeError(f"{where}: exponent {e} outside {MIN_EXPONENT}..{MAX_EXPONENT}")
        return decimal_from_sbe(m, e)

    def encode(self, out: bytearray, off: int, value: Any, where: str) -> None:
        if value is None:
            if not self.optional or self.null_mantissa is None:
                raise EncodeError(f"{where}: required decimal")
            self.st.pack_into(out, off, self.null_mantissa, 0)
            return
        try:
            m, e = decimal_to_sbe(value)
        except TypeError as ex:
            raise EncodeError(f"{where}: {ex}") from None
        except EncodeError as ex:
            raise EncodeError(f"{where}: {ex}") from None
        self.st.pack_into(out, off, m, e)


Codec = Prim | EnumCodec | CharArray | DecimalCodec


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One schema field: Python attribute, schema name, FIX tag / id, offset in its block."""

    attr: str
    name: str
    fix_id: int
    offset: int
    codec: Codec


@dataclass(frozen=True, slots=True)
class GroupSpec:
    """One repeating group: attribute, schema name, id, entry class, entry block length."""

    attr: str
    name: str
    fix_id: int
    entry: type[SbeGroupEntry]
    block_length: int
    max_entries: int | None = None


class SbeGroupEntry:
    """Base of the generated group entry dataclasses."""

    __slots__ = ()
    BLOCK_LENGTH: ClassVar[int]
    FIELDS: ClassVar[tuple[FieldSpec, ...]]


class SbeMessage:
    """Base of the generated message dataclasses (one per schema message)."""

    __slots__ = ()
    TEMPLATE_ID: ClassVar[int]
    BLOCK_LENGTH: ClassVar[int]
    FIELDS: ClassVar[tuple[FieldSpec, ...]]
    GROUPS: ClassVar[tuple[GroupSpec, ...]]


# --------------------------------------------------------------------------------------------
# Message codec


def _decode_block(cls: Any, buf: memoryview, off: int, where: str) -> dict[str, Any]:
    values = {}
    for f in cls.FIELDS:
        values[f.attr] = f.codec.decode(buf, off + f.offset, f"{where}.{f.name}")
    return values


def _encode_block(cls: Any, obj: Any, out: bytearray, off: int, where: str) -> None:
    for f in cls.FIELDS:
        f.codec.encode(out, off + f.offset, getattr(obj, f.attr), f"{where}.{f.name}")


class _Codec:
    """Schema constants (from the generated module), bound lazily to avoid an import cycle."""

    def __init__(self) -> None:
        from . import messages as m

        self.messages = m.MESSAGES
        self.schema_id = m.SCHEMA_ID
        self.header = struct.Struct(m.HEADER_FORMAT)
        self.group = struct.Struct(m.GROUP_SIZE_FORMAT)


_codec: _Codec | None = None


def _c() -> _Codec:
    global _codec
    if _codec is None:
        _codec = _Codec()
    return _codec


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

    Checks the header (schemaId, a known templateId, blockLength at least the schema's), that
    the root block and every group entry lie within ``payload``, that each group's entry block
    length is at least the schema's and its count at most ``maxEntries``, and every field
    (enum values, required decimals not null, decimal exponents in -18..18, text encoding).
    A longer root block or entry (a newer schema version) is skipped over. Raises
    :class:`~bgw_client.errors.DecodeError` (``template_id`` set when known) on any problem.
    """
    c = _c()
    buf = memoryview(payload)
    if len(buf) < c.header.size:
        raise DecodeError(f"message of {len(buf)} bytes is shorter than the SBE header")
    block_len, tid, schema_id, _version = c.header.unpack_from(buf, 0)
    if schema_id != c.schema_id:
        raise DecodeError(f"schemaId {schema_id}, expected {c.schema_id}", template_id=tid)
    cls = c.messages.get(tid)
    if cls is None:
        raise DecodeError(f"unknown templateId {tid}", template_id=tid)
    name = cls.__name__
    try:
        if block_len < cls.BLOCK_LENGTH:
            raise DecodeError(f"{name}: blockLength {block_len} below the schema's "
                              f"{cls.BLOCK_LENGTH}")
        pos = c.header.size
        if pos + block_len > len(buf):
            raise DecodeError(f"{name}: root block of {block_len} bytes beyond the "
                              f"{len(buf)}-byte message")
        values = _decode_block(cls, buf, pos, name)
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
    c.header.pack_into(out, 0, cls.BLOCK_LENGTH, cls.TEMPLATE_ID, c.schema_id, 0)
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
