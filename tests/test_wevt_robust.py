"""The binary writers never raise on a model built from bad input.

The validator reports out-of-range values, unresolved references and odd strings, but
the model it hands on may still hold them; the writers must still produce bytes (mc's
fields are fixed-width, so values are cut to size) and never a traceback.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import slow
from etwmc import winmeta as wm
from etwmc.model import (
    Channel,
    Event,
    Field,
    Filter,
    Keyword,
    Level,
    Manifest,
    Map,
    MapItem,
    Opcode,
    Provider,
    Struct,
    Task,
    Template,
    XmlNode,
)
from etwmc.validate import check_file
from etwmc.wevt import binary_outputs, build_wevt, output_diagnostics
from etwmc.wevt.crim import block_at
from etwmc.wevt.msgtable import read_message_table

INVALID = Path(__file__).resolve().parent / "manifests" / "invalid"

_ints = st.one_of(st.integers(-(2**70), 2**70), st.integers(0, 300))
_text = st.text(max_size=12)
_qn = ("", "x")


def _extent() -> st.SearchStrategy[int | str | None]:
    return st.one_of(st.none(), st.integers(-5, 70000), _text)


_fields = st.builds(
    Field,
    name=_text,
    in_type=st.one_of(st.none(), st.sampled_from(list(wm.IN_TYPES.values()))),
    in_type_text=_text,
    out_type=st.one_of(st.none(), st.sampled_from(list(wm.OUT_TYPES.values()))),
    out_type_text=st.one_of(st.none(), _text),
    map=st.one_of(st.none(), _text),
    length=_extent(),
    count=_extent(),
)
_items = st.one_of(
    _fields,
    st.builds(
        Struct,
        name=_text,
        fields=st.lists(_fields, max_size=3).map(tuple),
        count=_extent(),
        length=_extent(),
    ),
)
_user_data = st.builds(
    XmlNode,
    tag=st.tuples(_text, st.text(min_size=1, max_size=5)),
    text=st.one_of(st.none(), st.sampled_from(["%1", "%0", "%99", "x %2 y", " "])),
)
_templates = st.builds(
    Template,
    tid=_text,
    name=st.one_of(st.none(), _text),
    items=st.lists(_items, max_size=4).map(tuple),
    user_data=st.one_of(st.none(), _user_data),
)


@st.composite
def providers(draw: st.DrawFn) -> Provider:
    levels = draw(
        st.lists(st.builds(Level, name=_text, qname=st.just(_qn), value=_ints), max_size=3)
    )
    tasks = draw(st.lists(st.builds(Task, name=_text, qname=st.just(_qn), value=_ints), max_size=3))
    opcodes = draw(
        st.lists(
            st.builds(Opcode, name=_text, qname=st.just(_qn), value=_ints, task_value=_ints),
            max_size=3,
        )
    )
    keywords = draw(
        st.lists(st.builds(Keyword, name=_text, qname=st.just(_qn), mask=_ints), max_size=3)
    )
    channels = draw(
        st.lists(
            st.builds(
                Channel,
                name=_text,
                chid=st.none(),
                type=st.just("Admin"),
                value=_ints,
                imported=st.booleans(),
                index=st.one_of(st.none(), st.integers(0, 70)),
                message=st.one_of(st.none(), _text),
            ),
            max_size=3,
        )
    )
    templates = draw(st.lists(_templates, max_size=3))
    maps = draw(
        st.lists(
            st.builds(
                Map,
                kind=st.sampled_from(["value", "bit"]),
                name=_text,
                items=st.lists(
                    st.builds(MapItem, value=_ints, message=st.one_of(st.none(), _text)),
                    max_size=3,
                ).map(tuple),
            ),
            max_size=2,
        )
    )

    def pick(xs: list[object]) -> st.SearchStrategy[object]:
        return st.one_of(st.none(), st.sampled_from(xs)) if xs else st.none()

    events = [
        Event(
            value=draw(_ints),
            version=draw(_ints),
            name=draw(st.one_of(st.none(), _text)),
            attributes=draw(st.one_of(st.none(), st.sampled_from(['a=b;c="d;e"', ";;", '"']))),
            message=draw(st.one_of(st.none(), _text)),
            level=draw(pick(levels)),  # type: ignore[arg-type]
            task=draw(pick(tasks)),  # type: ignore[arg-type]
            opcode=draw(pick(opcodes)),  # type: ignore[arg-type]
            channel=draw(pick(channels)),  # type: ignore[arg-type]
            template=draw(pick(templates)),  # type: ignore[arg-type]
            keywords=(
                tuple(draw(st.lists(st.sampled_from(keywords), max_size=2))) if keywords else ()
            ),
        )
        for _ in range(draw(st.integers(0, 4)))
    ]
    filters = [
        Filter(name=draw(_text), qname=_qn, value=draw(_ints), version=draw(_ints),
               template=draw(pick(templates)))  # type: ignore[arg-type]
        for _ in range(draw(st.integers(0, 2)))
    ]  # fmt: skip
    return Provider(
        name=draw(_text),
        guid=uuid.UUID(int=draw(st.integers(0, 2**128 - 1))),
        message=draw(st.one_of(st.none(), _text)),
        control_guid=draw(st.one_of(st.none(), st.just(uuid.UUID(int=7)))),
        channels=tuple(channels),
        levels=tuple(levels),
        tasks=tuple(tasks),
        opcodes=tuple(opcodes),
        keywords=tuple(keywords),
        maps=tuple(maps),
        templates=tuple(templates),
        events=tuple(events),
        filters=tuple(filters),
        index=draw(st.integers(0, 40)),
    )


@slow
@settings(max_examples=60, deadline=None)
@given(st.lists(providers(), max_size=3), st.sampled_from([3, 5]))
def test_any_model_encodes(provs: list[Provider], version: int) -> None:
    manifest = Manifest(path="m.man", providers=tuple(provs))
    blob = build_wevt(manifest, version=version)
    assert blob[:4] == b"CRIM"
    assert int.from_bytes(blob[4:8], "little") == len(blob) - 2
    assert block_at(blob, len(blob) - 3)  # the walker reads it
    output_diagnostics(manifest)


_INVALID = sorted(INVALID.glob("*.man"))


@pytest.mark.parametrize("path", _INVALID, ids=[p.name for p in _INVALID])
def test_invalid_manifests_still_encode(path: Path) -> None:
    manifest = check_file(path).manifest
    if manifest is None:
        pytest.skip("no model for this input")
    for version in (3, 5):
        out = binary_outputs(manifest, "x", version=version)
        for name, data in out.items():
            if "_MSG" in name:
                read_message_table(data)


VALID = INVALID.parent / "valid"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('<Greeting xmlns="urn:etwmc:test">', '<Greeting xmlns="urn:etwmc:test" note="{long}">'),
        ('<template tid="FilterData">', '<template tid="FilterData" name="{long}">'),
        ('<data name="MinLevel" inType', '<data name="{long}" inType'),
    ],
    ids=["UserData value", "template name", "field name"],
)
def test_binxml_strings_longer_than_a_u16_length(tmp_path: Path, old: str, new: str) -> None:
    """A BinXML name or value holds at most 65,535 code units: compile reports a longer
    one (ETW654) instead of failing to pack it, and the writer cuts it."""
    text = (VALID / "template_edges.man").read_text(encoding="utf-8")
    assert text.count(old) == 1
    man = tmp_path / "long.man"
    man.write_text(text.replace(old, new.format(long="N" * 70_000)), encoding="utf-8")
    from etwmc.compile import compile_manifest
    from etwmc.options import CompileOptions

    result = compile_manifest(man, CompileOptions(python=False))
    assert result.files == {}
    assert [d.code for d in result.diagnostics if d.severity == 2] == ["ETW654"]
    manifest = check_file(man).manifest
    assert manifest is not None
    assert build_wevt(manifest)[:4] == b"CRIM"
