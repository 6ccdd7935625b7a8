"""Payload encoding of generated write functions: every inType, counts and lengths,
structs, and clear errors that write nothing."""

from __future__ import annotations

import struct
import uuid
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType

import pytest
from codegen_helpers import generate, load, manifest

from etwmc.runtime.backends.inproc import InProcBackend, Session

GUID = uuid.UUID("0c6a2c4e-1f0b-4c59-9e1a-6b1d0f3a7e21")
BODY = """
      <templates>
        <template tid="Scalars">
          <data name="i8" inType="win:Int8"/><data name="u8" inType="win:UInt8"/>
          <data name="i16" inType="win:Int16"/><data name="u16" inType="win:UInt16"/>
          <data name="i32" inType="win:Int32"/><data name="u32" inType="win:UInt32"/>
          <data name="i64" inType="win:Int64"/><data name="u64" inType="win:UInt64"/>
          <data name="f" inType="win:Float"/><data name="d" inType="win:Double"/>
          <data name="b" inType="win:Boolean"/><data name="g" inType="win:GUID"/>
          <data name="p" inType="win:Pointer"/><data name="h32" inType="win:HexInt32"/>
          <data name="h64" inType="win:HexInt64"/>
          <data name="s" inType="win:UnicodeString"/><data name="a" inType="win:AnsiString"/>
        </template>
        <template tid="Complex">
          <data name="n" inType="win:UInt16"/>
          <data name="arr" inType="win:UInt32" count="n"/>
          <data name="len" inType="win:UInt16"/>
          <data name="blob" inType="win:Binary" length="len"/>
          <data name="fixed" inType="win:UnicodeString" length="4"/>
          <data name="cs" inType="win:CountedUnicodeString"/>
          <data name="cb" inType="win:CountedBinary"/>
          <data name="ft" inType="win:FILETIME"/>
          <data name="st" inType="win:SYSTEMTIME"/>
          <data name="sid" inType="win:SID"/>
          <data name="k" inType="win:UInt8"/>
          <struct name="pairs" count="k">
            <data name="x" inType="win:UInt8"/>
            <data name="y" inType="win:AnsiString"/>
          </struct>
        </template>
      </templates>
      <events>
        <event value="1" symbol="Scalars" level="win:Informational" template="Scalars"/>
        <event value="2" symbol="Complex" level="win:Informational" template="Complex"/>
      </events>
"""
G = uuid.UUID("12345678-1234-5678-9abc-def012345678")
WHEN = datetime(2024, 2, 29, 13, 14, 15, 678000, tzinfo=UTC)


@pytest.fixture(scope="module")
def mod(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    _, path = generate(manifest(BODY), tmp_path_factory.mktemp("payload"))
    return load(path)


@pytest.fixture()
def session(mod: ModuleType) -> Session:
    b = InProcBackend()
    s = b.session().enable(GUID)
    mod.register(b)
    yield s
    mod.unregister()
    s.stop()


SCALARS = dict(
    i8=-5, u8=250, i16=-300, u16=65535, i32=-70000, u32=4_000_000_000, i64=-(2**40),
    u64=2**64 - 1, f=1.5, d=-2.25, b=True, g=G, p=0xDEADBEEF, h32=0xABCDEF01, h64=2**63,
    s="h\u00e9llo \U0001f600", a="caf\u00e9 \u20ac",
)  # fmt: skip


def test_scalars_and_strings(mod: ModuleType, session: Session) -> None:
    assert mod.write_Scalars(*SCALARS.values()) == 0
    [rec] = session.events()
    v = SCALARS
    want = struct.pack(
        "<bBhHiIqQfdi16sQIQ",
        v["i8"], v["u8"], v["i16"], v["u16"], v["i32"], v["u32"], v["i64"], v["u64"],
        v["f"], v["d"], 1, G.bytes_le, v["p"], v["h32"], v["h64"],
    )  # fmt: skip
    want += "h\u00e9llo \U0001f600\0".encode("utf-16-le") + b"caf\xe9 \x80\0"
    assert rec.user_data == want


def test_counts_lengths_structs_and_time_types(mod: ModuleType, session: Session) -> None:
    mod.write_Complex(
        [1, 2, 3], b"\x00\xff", "ab", "cnt", b"\x01\x02\x03", WHEN, WHEN, "S-1-5-21-7-8",
        [(1, "x"), {"y": "yz", "x": 2}],
    )  # fmt: skip
    [rec] = session.events()
    ticks = (int(WHEN.timestamp()) + 11644473600) * 10_000_000 + 678000 * 10
    want = (
        struct.pack("<H3I", 3, 1, 2, 3)
        + struct.pack("<H", 2) + b"\x00\xff"
        + "ab\0\0".encode("utf-16-le")
        + struct.pack("<H", 6) + "cnt".encode("utf-16-le")
        + struct.pack("<H", 3) + b"\x01\x02\x03"
        + struct.pack("<Q", ticks)
        + struct.pack("<8H", 2024, 2, 4, 29, 13, 14, 15, 678)
        + bytes([1, 3, 0, 0, 0, 0, 0, 5]) + struct.pack("<3I", 21, 7, 8)
        + bytes([2]) + b"\x01x\0" + b"\x02yz\0"
    )  # fmt: skip
    assert rec.user_data == want


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("u32", -1, "outside 0..4294967295"),
        ("i8", 128, "outside -128..127"),
        ("u64", 2**64, "outside"),
        ("u16", "7", "expected int, got str"),
        ("s", b"bytes", "expected str, got bytes"),
        ("g", "not-a-uuid", "expected uuid.UUID, got str"),
        ("f", "x", "expected float"),
        ("a", "\u4e2d", "can't encode"),  # not in Windows-1252
    ],
)
def test_wrong_values_raise_one_clear_error_and_write_nothing(
    mod: ModuleType, session: Session, field: str, value: object, problem: str
) -> None:
    args = dict(SCALARS, **{field: value})
    with pytest.raises(mod.EventError) as err:
        mod.write_Scalars(*args.values())
    assert err.value.event == "Scalars" and err.value.field == field
    assert problem in str(err.value)
    assert session.events() == []


@pytest.mark.parametrize(
    ("index", "value", "field", "problem"),
    [
        (0, [1, 2**32], "arr", "outside"),
        (2, "toolong", "fixed", "holds 4"),
        (7, "S-2-x", "sid", "not a SID"),
        (8, [(1, "x"), (2,)], "pairs", "tuple of 2"),
        (8, [(1, 5)], "pairs.y", "expected str"),
        (8, [{"x": 1}], "pairs", "expected the keys"),
        (5, "naive?", "ft", "expected datetime"),
    ],
)
def test_complex_errors_name_the_field(
    mod: ModuleType, session: Session, index: int, value: object, field: str, problem: str
) -> None:
    args: list[object] = [[1], b"", "a", "b", b"", WHEN, WHEN, "S-1-5-18", []]
    args[index] = value
    with pytest.raises(mod.EventError) as err:
        mod.write_Complex(*args)
    assert err.value.field == field and problem in err.value.problem
    assert session.events() == []


def test_count_fields_are_filled_from_the_sequences(mod: ModuleType) -> None:
    import inspect

    params = list(inspect.signature(mod.write_Complex).parameters)
    assert "n" not in params and "len" not in params and "k" not in params
    assert params[:2] == ["arr", "blob"]


def test_activity_ids_are_passed(mod: ModuleType, session: Session) -> None:
    a, r = uuid.uuid4(), uuid.uuid4()
    mod.write_Scalars(*SCALARS.values(), activity_id=a, related_activity_id=r)
    [rec] = session.events()
    assert rec.activity_id == a and rec.related_activity_id == r


def test_generated_module_is_black_exact_and_ascii(tmp_path: Path) -> None:
    from codegen_helpers import black_check

    text, _ = generate(manifest(BODY), tmp_path)
    assert text.isascii()
    assert black_check(text) == text


def test_activity_ids_are_keyword_only(mod: ModuleType, session: Session) -> None:
    with pytest.raises(TypeError, match="keyword-only"):
        mod.write_Scalars(*SCALARS.values(), uuid.uuid4())
    assert session.events() == []


def test_derived_counts_must_agree(tmp_path: Path) -> None:
    body = """
      <templates>
        <template tid="T">
          <data name="n" inType="win:UInt8"/>
          <data name="xs" inType="win:UInt8" count="n"/>
          <data name="ys" inType="win:UInt16" count="n"/>
        </template>
      </templates>
      <events><event value="1" symbol="Two" level="win:Error" template="T"/></events>
"""
    _, path = generate(manifest(body), tmp_path)
    m = load(path)
    b = InProcBackend()
    with b.session() as s, m.registration(b):
        s.enable(GUID)
        m.write_Two([1, 2], [3, 4])
        with pytest.raises(m.EventError) as err:
            m.write_Two([1, 2], [3])
        assert err.value.field == "n" and "disagree" in err.value.problem
        with pytest.raises(m.EventError) as err:
            m.write_Two(5, [3])
        assert err.value.field == "n" and "expected a sequence" in err.value.problem
        assert [e.user_data for e in s.events()] == [b"\x02\x01\x02\x03\x00\x04\x00"]
