"""Generate :mod:`bgw_client.messages` from the SBE schema (``bgw.xml``).

Every template id, block length, field offset, FIX tag, enum value, null value and
``sinceVersion`` of the generated module is read from the schema here; nothing is typed by
hand. Run::

    python clients/python/src/bgw_client/codegen.py codec/schema/bgw.xml > messages.py

(``clients/python/regen.sh`` does this and refreshes the shipped copy of ``bgw.xml``.) The test
``tests/test_schema.py`` regenerates the module from ``codec/schema/bgw.xml`` and fails if the
committed file differs.

The generator uses only the standard library (``xml.etree.ElementTree``).
"""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

SBE_NS = "http://fixprotocol.io/2016/sbe"

#: SBE 1.0 primitive types: (struct format character, size in bytes).
PRIMITIVES: dict[str, tuple[str, int]] = {
    "char": ("c", 1),
    "int8": ("b", 1),
    "int16": ("h", 2),
    "int32": ("i", 4),
    "int64": ("q", 8),
    "uint8": ("B", 1),
    "uint16": ("H", 2),
    "uint32": ("I", 4),
    "uint64": ("Q", 8),
}

#: SBE 1.0 default null values of optional primitives (spec, "Range attributes").
DEFAULT_NULL: dict[str, int] = {
    "char": 0,
    "int8": -(2**7),
    "int16": -(2**15),
    "int32": -(2**31),
    "int64": -(2**63),
    "uint8": 2**8 - 1,
    "uint16": 2**16 - 1,
    "uint32": 2**32 - 1,
    "uint64": 2**64 - 1,
}

# Name parts spelt as one word in Python identifiers.
_WORDS = {"PnL": "Pnl"}


def snake(name: str) -> str:
    """``ClOrdID`` → ``cl_ord_id``, ``UnrealisedPnL`` → ``unrealised_pnl``."""
    for k, v in _WORDS.items():
        name = name.replace(k, v)
    s = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name)
    return s.lower()


def upper_snake(name: str) -> str:
    """Enum member name: ``PartialFill`` → ``PARTIAL_FILL``."""
    return snake(name).upper()


def singular(name: str) -> str:
    """``Orders`` → ``Order`` (group entry class names)."""
    return name[:-1] if name.endswith("s") else name


@dataclass
class EnumDef:
    name: str
    encoding: str
    description: str
    values: list[tuple[str, str, str]]  # (name, text, description)


@dataclass
class CharArrayDef:
    name: str
    length: int
    encoding: str
    description: str


@dataclass
class FieldDef:
    name: str
    fix_id: int
    type: str
    offset: int
    optional: bool
    description: str
    since_version: int = 0  # sinceVersion: the schema version that added the field


@dataclass
class GroupDef:
    name: str
    fix_id: int
    block_length: int
    dimension: str
    max_entries: int | None
    description: str
    fields: list[FieldDef] = field(default_factory=list)


@dataclass
class MessageDef:
    name: str
    template_id: int
    block_length: int
    description: str
    fields: list[FieldDef] = field(default_factory=list)
    groups: list[GroupDef] = field(default_factory=list)

    @property
    def min_block_length(self) -> int:
        """The shortest root block a receiver accepts: the fields of schema version 0 (the
        offset of the first field with a sinceVersion, else the block length)."""
        return next((f.offset for f in self.fields if f.since_version > 0), self.block_length)


@dataclass
class Schema:
    schema_id: int
    version: int
    byte_order: str
    composites: dict[str, list[tuple[str, str, int | None]]]  # name -> [(part, prim, nullValue)]
    enums: dict[str, EnumDef]
    arrays: dict[str, CharArrayDef]
    messages: list[MessageDef]


def _fields(elem: ET.Element) -> list[FieldDef]:
    out = []
    for f in elem.findall("field"):
        out.append(
            FieldDef(
                name=f.attrib["name"],
                fix_id=int(f.attrib["id"]),
                type=f.attrib["type"],
                offset=int(f.attrib["offset"]),
                optional=f.attrib.get("presence") == "optional",
                description=f.attrib.get("description", ""),
                since_version=int(f.attrib.get("sinceVersion", "0")),
            )
        )
    # SBE extension rule: a field added by a later version follows every older field.
    versions = [f.since_version for f in out]
    if versions != sorted(versions):
        raise ValueError(f"{elem.attrib.get('name')}: a sinceVersion field precedes an older one")
    return out


def parse_schema(xml_text: str) -> Schema:
    """Parses the schema XML into plain definitions."""
    root = ET.fromstring(xml_text)
    if root.tag != f"{{{SBE_NS}}}messageSchema":
        raise ValueError(f"not an SBE messageSchema: {root.tag}")
    types = root.find("types")
    if types is None:
        raise ValueError("schema has no <types>")
    composites: dict[str, list[tuple[str, str, int | None]]] = {}
    enums: dict[str, EnumDef] = {}
    arrays: dict[str, CharArrayDef] = {}
    for t in types:
        if t.tag == "composite":
            parts = []
            for p in t.findall("type"):
                nv = p.attrib.get("nullValue")
                parts.append((p.attrib["name"], p.attrib["primitiveType"], int(nv) if nv else None))
            composites[t.attrib["name"]] = parts
        elif t.tag == "enum":
            enums[t.attrib["name"]] = EnumDef(
                name=t.attrib["name"],
                encoding=t.attrib["encodingType"],
                description=t.attrib.get("description", ""),
                values=[
                    (v.attrib["name"], (v.text or "").strip(), v.attrib.get("description", ""))
                    for v in t.findall("validValue")
                ],
            )
        elif t.tag == "type":
            if t.attrib.get("primitiveType") != "char" or "length" not in t.attrib:
                raise ValueError(f"unsupported type {t.attrib['name']}")
            arrays[t.attrib["name"]] = CharArrayDef(
                name=t.attrib["name"],
                length=int(t.attrib["length"]),
                encoding=t.attrib.get("characterEncoding", "US-ASCII"),
                description=t.attrib.get("description", ""),
            )
        else:
            raise ValueError(f"unsupported schema element <{t.tag}>")
    messages = []
    for m in root.findall(f"{{{SBE_NS}}}message"):
        md = MessageDef(
            name=m.attrib["name"],
            template_id=int(m.attrib["id"]),
            block_length=int(m.attrib["blockLength"]),
            description=m.attrib.get("description", ""),
            fields=_fields(m),
        )
        for g in m.findall("group"):
            mx = g.attrib.get("maxEntries")
            gd = GroupDef(
                name=g.attrib["name"],
                fix_id=int(g.attrib["id"]),
                block_length=int(g.attrib["blockLength"]),
                dimension=g.attrib.get("dimensionType", "groupSizeEncoding"),
                max_entries=int(mx) if mx else None,
                description=g.attrib.get("description", ""),
                fields=_fields(g),
            )
            if any(f.since_version for f in gd.fields):
                raise ValueError(f"{md.name}.{gd.name}: sinceVersion in a group entry is not "
                                 "supported")
            md.groups.append(gd)
        messages.append(md)
    return Schema(
        schema_id=int(root.attrib["id"]),
        version=int(root.attrib.get("version", "0")),
        byte_order=root.attrib.get("byteOrder", "littleEndian"),
        composites=composites,
        enums=enums,
        arrays=arrays,
        messages=messages,
    )


def _doc(text: str, indent: str) -> str:
    text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    return f'{indent}"""{text}"""\n'


def _struct_format(schema: Schema, composite: str) -> str:
    endian = "<" if schema.byte_order == "littleEndian" else ">"
    return endian + "".join(PRIMITIVES[p][0] for _, p, _ in schema.composites[composite])


class _Gen:
    def __init__(self, schema: Schema, source_name: str) -> None:
        self.s = schema
        self.source_name = source_name
        self.out: list[str] = []

    def w(self, line: str = "") -> None:
        self.out.append(line + "\n")

    def field_codec(self, f: FieldDef) -> tuple[str, str, str | None]:
        """(codec expression, Python annotation, default expression or None)."""
        s = self.s
        opt = f.optional
        if f.since_version and not (opt or f.type in PRIMITIVES):
            # An absent versioned field reads as its null or 0: a required enum or decimal has
            # neither (the Rust codec refuses it too).
            raise ValueError(f"field {f.name}: a sinceVersion field must be an integer or "
                             "optional")
        if f.type in PRIMITIVES:
            prim = f.type
            null = DEFAULT_NULL[prim] if opt else None
            ann = "int | None" if opt else "int"
            return (f"Prim({prim!r}, {PRIMITIVES[prim][0]!r}, {PRIMITIVES[prim][1]}, null={null!r})",
                    ann, "None" if opt else "0")
        if f.type in s.enums:
            e = s.enums[f.type]
            fmt, size = PRIMITIVES[e.encoding]
            null = DEFAULT_NULL[e.encoding] if opt else None
            ann = f"{e.name} | None" if opt else e.name
            return (f"EnumCodec({e.name}, {e.encoding!r}, {fmt!r}, null={null!r})", ann,
                    "None" if opt else None)
        if f.type in s.arrays:
            a = s.arrays[f.type]
            return (f"CharArray({a.length}, {a.encoding!r})", "str", '""')
        if f.type in s.composites:
            parts = s.composites[f.type]
            names = [p for p, _, _ in parts]
            if names != ["mantissa", "exponent"]:
                raise ValueError(f"unsupported composite {f.type}")
            fmt = _struct_format(s, f.type)
            size = sum(PRIMITIVES[p][1] for _, p, _ in parts)
            null = parts[0][2]
            ann = "Decimal | None" if opt else "Decimal"
            return (f"DecimalCodec({fmt!r}, {size}, null_mantissa={null!r}, optional={opt!r})",
                    ann, "None" if opt else None)
        raise ValueError(f"field {f.name}: unknown type {f.type}")

    def describe(self, f: FieldDef) -> str:
        kind = f.type
        if f.type in self.s.arrays:
            a = self.s.arrays[f.type]
            kind = f"{f.type}: {a.length} bytes {a.encoding}, NUL-padded"
        elif f.type in self.s.composites:
            kind = f"{f.type}: exact decimal, int64 mantissa x 10^int8 exponent"
        tag = f"FIX tag {f.fix_id}" if f.fix_id < 5000 else f"id {f.fix_id}"
        opt = ", optional (None = SBE null)" if f.optional else ""
        if f.since_version:
            absent = "None" if f.optional else "0"
            opt += (f"; since schema version {f.since_version}, {absent} when an older sender "
                    "did not send it")
        desc = f.description.strip().rstrip(".")
        text = f"{f.name} ({tag}; {kind}{opt}; offset {f.offset})"
        return f"{text}: {desc}." if desc else f"{text}."

    def emit_fields(self, fields: list[FieldDef], indent: str) -> list[str]:
        specs = []
        for f in fields:
            codec, ann, default = self.field_codec(f)
            attr = snake(f.name)
            self.w(f"{indent}{attr}: {ann}" + (f" = {default}" if default is not None else ""))
            self.w(_doc(self.describe(f), indent).rstrip("\n"))
            since = f", since_version={f.since_version}" if f.since_version else ""
            specs.append(f"FieldSpec({attr!r}, {f.name!r}, {f.fix_id}, {f.offset}, {codec}"
                         f"{since})")
        return specs

    def run(self) -> str:
        s = self.s
        w = self.w
        w(f'"""SBE messages of schema {s.schema_id} version {s.version}, generated from '
          f'{self.source_name}.')
        w()
        w("Do not edit: regenerate with ``clients/python/regen.sh`` (see")
        w(":mod:`bgw_client.codegen`). Times are uint64 UTC nanoseconds since the Unix epoch;")
        w("prices and quantities are :class:`decimal.Decimal` (exact, from the SBE mantissa and")
        w("exponent); fields with presence optional are ``None`` when the wire holds the SBE null.")
        w('"""')
        w()
        w("# fmt: off")
        w("from __future__ import annotations")
        w()
        w("import enum")
        w("from dataclasses import dataclass, field")
        w("from decimal import Decimal")
        w("from typing import ClassVar")
        w()
        w("from .fields import (CharArray, DecimalCodec, EnumCodec, FieldSpec, GroupSpec, Prim,")
        w("                     SbeGroupEntry, SbeMessage)")
        w()
        w(f"SCHEMA_ID = {s.schema_id}")
        w('"""``messageSchema/@id``: the schemaId of every message header."""')
        w(f"SCHEMA_VERSION = {s.version}")
        w('"""``messageSchema/@version``: written in every message header this client encodes."""')
        w(f"HEADER_FORMAT = {_struct_format(s, 'messageHeader')!r}")
        w('"""struct format of ``messageHeader`` (blockLength, templateId, schemaId, version)."""')
        w(f"GROUP_SIZE_FORMAT = {_struct_format(s, 'groupSizeEncoding')!r}")
        w('"""struct format of ``groupSizeEncoding`` (blockLength, numInGroup)."""')
        hdr_names = [p for p, _, _ in s.composites["messageHeader"]]
        if hdr_names != ["blockLength", "templateId", "schemaId", "version"]:
            raise ValueError(f"unexpected messageHeader {hdr_names}")
        grp_names = [p for p, _, _ in s.composites["groupSizeEncoding"]]
        if grp_names != ["blockLength", "numInGroup"]:
            raise ValueError(f"unexpected groupSizeEncoding {grp_names}")
        w()
        for e in s.enums.values():
            w()
            base = "enum.IntEnum" if e.encoding != "char" else "str, enum.Enum"
            w(f"class {e.name}({base}):")
            desc = e.description or e.name
            w(_doc(f"{desc} (SBE enum {e.name}, encoding {e.encoding}).", "    ").rstrip("\n"))
            w()
            for name, text, vdesc in e.values:
                val = repr(text) if e.encoding == "char" else str(int(text))
                w(f"    {upper_snake(name)} = {val}")
                w(_doc(f"{name}" + (f": {vdesc}" if vdesc else ""), "    ").rstrip("\n"))
            w()
        registry = []
        for m in s.messages:
            group_specs = []
            for g in m.groups:
                cls = f"{m.name}{singular(g.name)}"
                w()
                w("@dataclass(kw_only=True, slots=True)")
                w(f"class {cls}(SbeGroupEntry):")
                w(_doc(f"One entry of group {g.name} (id {g.fix_id}) of {m.name}: "
                       f"{g.description.strip()} Entry block length {g.block_length}"
                       + (f", at most {g.max_entries} entries." if g.max_entries else "."),
                       "    ").rstrip("\n"))
                w()
                specs = self.emit_fields(g.fields, "    ")
                w()
                w(f"    BLOCK_LENGTH: ClassVar[int] = {g.block_length}")
                w("    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (")
                for sp in specs:
                    w(f"        {sp},")
                w("    )")
                w()
                group_specs.append(
                    f"GroupSpec({snake(g.name)!r}, {g.name!r}, {g.fix_id}, {cls}, "
                    f"{g.block_length}, max_entries={g.max_entries!r})"
                )
            w()
            w("@dataclass(kw_only=True, slots=True)")
            w(f"class {m.name}(SbeMessage):")
            minimum = (f" ({m.min_block_length} from a sender of schema version 0)"
                       if m.min_block_length != m.block_length else "")
            w(_doc(f"{m.description.strip().rstrip('.')}.\n\n    SBE template {m.template_id}, "
                   f"block length {m.block_length} bytes{minimum}.", "    ").rstrip("\n"))
            w()
            specs = self.emit_fields(m.fields, "    ")
            for g in m.groups:
                cls = f"{m.name}{singular(g.name)}"
                w(f"    {snake(g.name)}: list[{cls}] = field(default_factory=list)")
                w(_doc(f"Group {g.name} (id {g.fix_id}): {g.description.strip()}", "    ")
                  .rstrip("\n"))
            w()
            w(f"    TEMPLATE_ID: ClassVar[int] = {m.template_id}")
            w(f"    BLOCK_LENGTH: ClassVar[int] = {m.block_length}")
            w(f"    MIN_BLOCK_LENGTH: ClassVar[int] = {m.min_block_length}")
            w("    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (")
            for sp in specs:
                w(f"        {sp},")
            w("    )")
            if group_specs:
                w("    GROUPS: ClassVar[tuple[GroupSpec, ...]] = (")
                for gs in group_specs:
                    w(f"        {gs},")
                w("    )")
            else:
                w("    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()")
            w()
            registry.append((m.template_id, m.name))
        w()
        w("MESSAGES: dict[int, type[SbeMessage]] = {")
        for tid, name in registry:
            w(f"    {tid}: {name},")
        w("}")
        w('"""Every message class of the schema by template id."""')
        w()
        w("ENUMS: dict[str, type[enum.Enum]] = {")
        for e in s.enums.values():
            w(f"    {e.name!r}: {e.name},")
        w("}")
        w('"""Every enum of the schema by schema name."""')
        return "".join(self.out)


def generate(xml_text: str, source_name: str = "bgw.xml") -> str:
    """Returns the source of :mod:`bgw_client.messages` for the schema ``xml_text``."""
    return _Gen(parse_schema(xml_text), source_name).run()


def main(argv: list[str] | None = None) -> int:
    """``python -m bgw_client.codegen [SCHEMA.xml]``: prints the module (default: shipped copy)."""
    args = sys.argv[1:] if argv is None else argv
    path = Path(args[0]) if args else Path(__file__).with_name("bgw.xml")
    sys.stdout.write(generate(path.read_text(encoding="utf-8")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
