"""EVENT_DESCRIPTOR packing, traits blobs and payload encoding helpers."""

from __future__ import annotations

import datetime as dt
import struct
import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from etwmc.runtime import build_traits, pack_descriptor, parse_traits, unpack_descriptor
from etwmc.runtime import encoding as enc


def test_descriptor_layout() -> None:
    data = pack_descriptor(0x1234, 2, 16, 4, 1, 0xABCD, 0x8000_0000_0000_0005)
    assert len(data) == 16
    # EVENT_DESCRIPTOR: Id u16 @0, Version @2, Channel @3, Level @4, Opcode @5, Task u16 @6,
    # Keyword u64 @8, little-endian.
    assert data[0:2] == b"\x34\x12"
    assert data[2:6] == bytes([2, 16, 4, 1])
    assert data[6:8] == b"\xcd\xab"
    assert data[8:16] == (0x8000_0000_0000_0005).to_bytes(8, "little")


@given(
    st.tuples(
        st.integers(0, 0xFFFF),
        st.integers(0, 255),
        st.integers(0, 255),
        st.integers(0, 255),
        st.integers(0, 255),
        st.integers(0, 0xFFFF),
        st.integers(0, 2**64 - 1),
    )
)
def test_descriptor_round_trip(fields: tuple[int, ...]) -> None:
    assert tuple(unpack_descriptor(pack_descriptor(*fields))) == fields


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"id": 65536}, "id"),
        ({"id": -1}, "id"),
        ({"id": 1, "version": 256}, "version"),
        ({"id": 1, "keyword": 2**64}, "keyword"),
        ({"id": 1, "task": 1.5}, "task"),
        ({"id": True}, "id"),
    ],
)
def test_descriptor_rejects_bad_fields(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(ValueError, match=field):
        pack_descriptor(**kwargs)  # type: ignore[arg-type]


def test_unpack_wrong_size() -> None:
    with pytest.raises(ValueError, match="16 bytes"):
        unpack_descriptor(b"\0" * 15)


def test_traits_layout_and_round_trip() -> None:
    group = uuid.UUID("01234567-89ab-cdef-0123-456789abcdef")
    blob = build_traits("My-Provider", group)
    name = b"My-Provider\0"
    assert struct.unpack_from("<H", blob)[0] == len(blob) == 2 + len(name) + 19
    assert blob[2 : 2 + len(name)] == name
    assert blob[2 + len(name) :] == struct.pack("<HB", 19, 1) + group.bytes_le
    assert parse_traits(blob) == ("My-Provider", group)
    assert parse_traits(build_traits("P")) == ("P", None)


def test_traits_with_decode_guid_and_no_name() -> None:
    group = uuid.UUID("5fa0e8fd-0ac9-4ee1-98de-73c69912e6d1")
    decode = uuid.UUID("646e035b-4651-4d15-bc40-1897cc99e967")
    blob = build_traits("", group, decode_guid=decode)
    # u16 size, a lone NUL for the name, then the group and decode-GUID traits.
    assert blob == struct.pack("<H", 41) + b"\0" + struct.pack("<HB", 19, 1) + group.bytes_le + (
        struct.pack("<HB", 19, 2) + decode.bytes_le
    )
    assert parse_traits(blob) == ("", group)


def test_traits_limits() -> None:
    with pytest.raises(ValueError, match="256"):
        build_traits("x" * 260)
    with pytest.raises(ValueError, match="NUL"):
        build_traits("a\0b")
    for bad in (b"", b"\x05\x00ab", b"\x04\x00ab", b"\x07\x00a\x00\x13\x00\x01"):
        with pytest.raises(ValueError):
            parse_traits(bad)


def test_utf16_and_utf8() -> None:
    assert enc.utf16z("hé") == "hé".encode("utf-16-le") + b"\0\0"
    assert enc.utf16("😀") == "😀".encode("utf-16-le")
    assert enc.utf8z("hé") == "hé".encode() + b"\0"
    assert enc.ansiz(b"ab") == b"ab\0"
    with pytest.raises(TypeError):
        enc.utf16z(5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="NUL"):
        enc.ansiz("a\0")


def test_sid_bytes() -> None:
    # BUILTIN\Administrators: revision 1, 2 sub-authorities, authority 5 (NT), 32, 544.
    assert enc.sid_bytes("S-1-5-32-544") == bytes([1, 2, 0, 0, 0, 0, 0, 5]) + struct.pack(
        "<II", 32, 544
    )
    for bad in ("S-1", "S-2-5-32", "X-1-5", "S-1-5-" + "-".join(["1"] * 16), "S-1-5-4294967296"):
        with pytest.raises(ValueError):
            enc.sid_bytes(bad)


def test_filetime_and_systemtime() -> None:
    unix_epoch = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
    assert enc.filetime(unix_epoch) == 116_444_736_000_000_000
    assert enc.filetime(unix_epoch + dt.timedelta(microseconds=1)) == 116_444_736_000_000_010
    with pytest.raises(ValueError, match="timezone-aware"):
        enc.filetime(dt.datetime(2020, 1, 1))
    with pytest.raises(TypeError):
        enc.filetime(0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="outside the FILETIME range"):
        enc.filetime(dt.datetime(1600, 12, 31, 23, 59, tzinfo=dt.UTC))
    # 2024-02-29 was a Thursday (day of week 4, Sunday = 0).
    t = dt.datetime(2024, 2, 29, 13, 14, 15, 678_900, tzinfo=dt.timezone(dt.timedelta(hours=1)))
    assert struct.unpack("<8H", enc.systemtime(t)) == (2024, 2, 4, 29, 12, 14, 15, 678)


def test_guid_bytes() -> None:
    g = uuid.uuid4()
    assert enc.guid_bytes(g) == g.bytes_le == enc.guid_bytes("{" + str(g) + "}")
    with pytest.raises(ValueError):
        enc.guid_bytes("nope")
    with pytest.raises(TypeError):
        enc.guid_bytes(5)  # type: ignore[arg-type]
