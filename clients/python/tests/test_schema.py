"""The client is driven by the schema: the generated module and the shipped copy of bgw.xml must
match codec/schema/bgw.xml, and the layout they describe must be self-consistent."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import bgw_client
from bgw_client import codegen, messages
from bgw_client.wire import CharArray, DecimalCodec, EnumCodec, Prim

from conftest import REPO_SCHEMA


def test_shipped_schema_is_the_repository_schema() -> None:
    shipped = resources.files("bgw_client").joinpath("bgw.xml").read_bytes()
    assert shipped == REPO_SCHEMA.read_bytes(), (
        "src/bgw_client/bgw.xml differs from codec/schema/bgw.xml: run clients/python/regen.sh")


def test_generated_module_is_up_to_date() -> None:
    expected = codegen.generate(REPO_SCHEMA.read_text(encoding="utf-8"))
    actual = Path(messages.__file__).read_text(encoding="utf-8")
    assert actual == expected, (
        "src/bgw_client/messages.py is stale: run clients/python/regen.sh")


def test_every_schema_message_and_enum_is_generated() -> None:
    s = codegen.parse_schema(REPO_SCHEMA.read_text(encoding="utf-8"))
    assert sorted(messages.MESSAGES) == sorted(m.template_id for m in s.messages)
    for m in s.messages:
        cls = messages.MESSAGES[m.template_id]
        assert cls.__name__ == m.name and cls.BLOCK_LENGTH == m.block_length
        assert [(f.name, f.offset, f.fix_id) for f in cls.FIELDS] == \
            [(f.name, f.offset, f.fix_id) for f in m.fields]
        assert [g.name for g in cls.GROUPS] == [g.name for g in m.groups]
    for e in s.enums.values():
        py = messages.ENUMS[e.name]
        assert [(m.name, str(m.value)) for m in py] == \
            [(codegen.upper_snake(n), str(int(t)) if e.encoding != "char" else t)
             for n, t, _ in e.values]
        assert getattr(bgw_client, e.name) is py


def _size(codec: object) -> int:
    assert isinstance(codec, (Prim, EnumCodec, CharArray, DecimalCodec))
    return codec.size


def test_fields_fit_their_block_and_do_not_overlap() -> None:
    blocks = [(c.__name__, c.BLOCK_LENGTH, c.FIELDS) for c in messages.MESSAGES.values()]
    for c in messages.MESSAGES.values():
        blocks += [(f"{c.__name__}.{g.name}", g.block_length, g.entry.FIELDS) for g in c.GROUPS]
    for name, block_len, fields in blocks:
        end = 0
        for f in sorted(fields, key=lambda f: f.offset):
            assert f.offset >= end, f"{name}.{f.name} overlaps the previous field"
            end = f.offset + _size(f.codec)
        assert end <= block_len, f"{name}: fields end at {end}, block is {block_len}"
