"""decode_payload: the inverse of the payload encoder, and safe on hostile bytes."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from etwmc.runtime import PayloadDecodeError, decode_payload
from etwmc.runtime.encoding import filetime, sid_bytes
from etwmc.runtime.payload import Field, encode


def test_round_trip_of_every_kind() -> None:
    point = (Field("X", 7), Field("Y", 7))
    layout = (
        Field("I8", 3),
        Field("U64", 10),
        Field("F", 12),
        Field("Wide", 1),
        Field("Narrow", 2),
        Field("Utf8", 2, utf8=True),
        Field("FixedWide", 1, length_const=4),
        Field("Guid", 15),
        Field("When", 17),
        Field("Sys", 18),
        Field("Sid", 19),
        Field("N", 6, derived=True),
        Field("Values", 8, count_ref=11),
        Field("Len", 8, derived=True),
        Field("Bytes", 14, length_ref=13),
        Field("Counted", 22),
        Field("CountedBin", 25),
        Field("Ptr", 16),
        Field("Point", 0, members=point),
        Field("Points", 0, count_const=2, members=point),
    )
    guid = uuid.uuid4()
    when = dt.datetime(2023, 5, 6, 7, 8, 9, tzinfo=dt.UTC)
    data = encode(
        layout,
        -5,
        2**64 - 1,
        1.25,
        "wïde",
        "narrow é",
        "ütf",
        "ab",
        guid,
        when,
        when,
        "S-1-5-32-544",
        None,
        [1, 2, 3],
        None,
        b"\x00\xff",
        "counted",
        b"raw",
        0x1234,
        (1, -2),
        [(3, 4), (5, 6)],
    )
    assert decode_payload(layout, data) == {
        "I8": -5,
        "U64": 2**64 - 1,
        "F": 1.25,
        "Wide": "wïde",
        "Narrow": "narrow é",
        "Utf8": "ütf",
        "FixedWide": "ab",
        "Guid": guid,
        "When": filetime(when),
        "Sys": (2023, 5, 6, 6, 7, 8, 9, 0),  # year, month, weekday (Saturday), day, ...
        "Sid": "S-1-5-32-544",
        "N": 3,
        "Values": [1, 2, 3],
        "Len": 2,
        "Bytes": b"\x00\xff",
        "Counted": "counted",
        "CountedBin": b"raw",
        "Ptr": 0x1234,
        "Point": {"X": 1, "Y": -2},
        "Points": [{"X": 3, "Y": 4}, {"X": 5, "Y": 6}],
    }


def test_fixed_length_sid_skips_its_padding() -> None:
    layout = (Field("Sid", 19, length_const=28), Field("After", 4))
    data = encode(layout, "S-1-5-18", 9)
    assert len(sid_bytes("S-1-5-18")) < 28
    assert decode_payload(layout, data) == {"Sid": "S-1-5-18", "After": 9}


@pytest.mark.parametrize(
    ("layout", "data", "message"),
    [
        ((Field("A", 8),), b"\x01\x02", "needs 4 bytes"),
        ((Field("A", 4),), b"\x01\x02", "left after"),
        ((Field("S", 1),), "abc".encode("utf-16-le"), "no NUL terminator"),
        ((Field("S", 2),), b"abc", "no NUL terminator"),
        ((Field("S", 22),), b"\x10\x00ab", "needs 16 bytes"),
        ((Field("Sid", 19),), b"\x02\x01" + bytes(10), "revision 2"),
        ((Field("Sid", 19),), b"\x01\x05" + bytes(10), "needs 20 bytes"),
        ((Field("B", 14),), b"ab", "needs a length"),
        ((Field("N", 8), Field("A", 4, count_ref=0)), b"\xff\xff\xff\xff", "more than"),
        ((Field("A", 4, count_ref=1), Field("N", 4)), b"\x00\x00", "comes after"),
        ((Field("P", 0, members=(Field("X", 6),)),), b"\x01", "'P.X'"),
    ],
)
def test_malformed_payloads(layout: tuple[Field, ...], data: bytes, message: str) -> None:
    with pytest.raises(PayloadDecodeError, match=message):
        decode_payload(layout, data)


kinds = st.sampled_from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16, 17, 18, 19, 22, 23, 25])
simple_fields = st.tuples(
    st.sampled_from(["a", "b", "c", "d"]), kinds, st.one_of(st.none(), st.integers(0, 3))
).map(lambda t: Field(t[0], t[1], count_const=t[2]))


@settings(max_examples=300, deadline=None)
@given(st.lists(simple_fields, min_size=1, max_size=5), st.binary(max_size=64))
def test_hostile_bytes_only_raise_payload_decode_error(fields: list[Field], data: bytes) -> None:
    try:
        decode_payload(fields, data)
    except PayloadDecodeError:
        pass


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.integers(0, 2**32 - 1), max_size=8),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=20),
)
def test_round_trip_arrays_and_text(values: list[int], text: str) -> None:
    layout = (
        Field("N", 6, derived=True),
        Field("V", 8, count_ref=0),
        Field("T", 22),
    )
    assert decode_payload(layout, encode(layout, None, values, text)) == {
        "N": len(values),
        "V": values,
        "T": text,
    }
