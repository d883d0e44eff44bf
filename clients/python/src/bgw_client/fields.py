"""The SBE field codecs the generated message module (:mod:`bgw_client.messages`) is built
from: primitives, enums, fixed-length text, exact decimals (``mantissa x 10^exponent``, int64
and int8, converted to and from :class:`decimal.Decimal` exactly, never through ``float``),
field and group layouts, and the message and group-entry base classes. It imports nothing of
the package but its errors, so that :mod:`bgw_client.messages` can import it and
:mod:`bgw_client.wire` can import both without a cycle.
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, ClassVar

from .errors import DecodeError, EncodeError

MIN_EXPONENT = -18
"""Smallest decimal exponent the gateway accepts (18 fractional digits)."""
MAX_EXPONENT = 18
"""Largest decimal exponent the gateway accepts."""

_I64_MIN = -(2**63)
_I64_MAX = 2**63 - 1
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
    """One schema field: Python attribute, schema name, FIX tag / id, offset in its block, and
    the schema version that added it (``sinceVersion``; 0 for the original fields)."""

    attr: str
    name: str
    fix_id: int
    offset: int
    codec: Codec
    since_version: int = 0

    def absent(self) -> Any:
        """The value of the field when the sender's version or block lacks it: the SBE null
        (``None``) of an optional field, 0 for an integer, ``""`` for text."""
        c = self.codec
        if isinstance(c, Prim):
            return None if c.null is not None else 0
        if isinstance(c, CharArray):
            return ""
        return None


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
    MIN_BLOCK_LENGTH: ClassVar[int]
    """Shortest root block accepted: the fields of schema version 0."""
    FIELDS: ClassVar[tuple[FieldSpec, ...]]
    GROUPS: ClassVar[tuple[GroupSpec, ...]]


# --------------------------------------------------------------------------------------------
# Message codec
