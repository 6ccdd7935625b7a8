"""MESSAGETABLE writer and reader: layout facts, per-culture tables, hostile input."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from etwmc.model import Manifest
from etwmc.msgformat import table_text
from etwmc.validate import check_bytes
from etwmc.wevt import build_message_tables, output_diagnostics
from etwmc.wevt.msgtable import (
    _ALWAYS_FITS,
    MessageTableError,
    _entry_text,
    encode_messages,
    fits,
    read_message_table,
)

MANIFEST = """<?xml version="1.0" encoding="utf-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation><events>
    <provider name="P" guid="{{00000000-0000-0000-0000-000000000001}}" symbol="P"
              resourceFileName="p.dll" messageFileName="p.dll" message="$(string.prov)">
      <events>
        <event value="1" level="win:Error" message="$(string.ev1)"/>
        <event value="2" level="win:Error" message="$(string.ev2)"/>
      </events>
    </provider>
  </events></instrumentation>
  <localization>
    <resources culture="en-US"><stringTable>
      <string id="prov" value="Provider"/>
      <string id="ev1" value="One"/>
      <string id="ev2" value="Two"/>
      <string id="unused" value="Never referenced"/>
    </stringTable></resources>
    <resources culture="de-DE"><stringTable>
      <string id="prov" value="Anbieter"/>
      <string id="ev1" value="Eins"/>
      {extra}
    </stringTable></resources>
  </localization>
</instrumentationManifest>
"""


def _manifest(extra: str = "") -> Manifest:
    checked = check_bytes(MANIFEST.format(extra=extra).encode(), "m.man")
    assert checked.manifest is not None
    return checked.manifest


def test_entry_layout_matches_mc() -> None:
    data = encode_messages({0x50000002: "Error"})
    # 1 block: (low, high, offset of first entry = 4 + 12).
    assert data[:16] == struct.pack("<IIII", 1, 0x50000002, 0x50000002, 16)
    # "Error\r\n\0" is 8 UTF-16 units = 16 bytes; + 4-byte header = 20; flags 1 = Unicode.
    assert data[16:20] == struct.pack("<HH", 20, 1)
    assert data[20:] == "Error\r\n\0".encode("utf-16-le")


def test_padding_to_four_bytes() -> None:
    data = encode_messages({1: "Ab"})  # "Ab\r\n\0" = 10 bytes -> padded to 12
    length, flags = struct.unpack_from("<HH", data, 16)
    assert (length, flags) == (16, 1)
    assert data[-2:] == b"\0\0"
    assert len(data) == 16 + 16


def test_consecutive_ids_share_a_block_and_gaps_start_new_ones() -> None:
    data = encode_messages({5: "e", 3: "c", 4: "d", 10: "x"})
    (nblocks,) = struct.unpack_from("<I", data, 0)
    assert nblocks == 2
    b0 = struct.unpack_from("<III", data, 4)
    b1 = struct.unpack_from("<III", data, 16)
    assert b0[:2] == (3, 5) and b1[:2] == (10, 10)
    assert b0[2] == 28  # right after two block records
    # The second block starts after the three entries of the first.
    assert b1[2] == 28 + 3 * 12


def test_only_referenced_strings_and_one_table_per_culture() -> None:
    tables = build_message_tables(_manifest())
    assert [c for c, _ in tables] == ["en-US", "de-DE"]
    en = read_message_table(tables[0][1])
    de = read_message_table(tables[1][1])
    assert en == {
        0x90000001: "Provider",
        0xB0000001: "One",
        0xB0000002: "Two",
        0x50000002: "Error",  # the winmeta text of win:Error
    }
    assert "Never referenced" not in en.values()
    # Same ids in every culture; a string the culture lacks is left out.
    assert de == {0x90000001: "Anbieter", 0xB0000001: "Eins", 0x50000002: "Error"}


def test_secondary_culture_text_is_used_when_present() -> None:
    tables = build_message_tables(_manifest('<string id="ev2" value="Zwei"/>'))
    assert read_message_table(tables[1][1])[0xB0000002] == "Zwei"


def test_too_long_string_is_a_diagnostic() -> None:
    m = _manifest(f'<string id="ev2" value="{"x" * 40000}"/>')
    assert "ETW653" in {d.code for d in output_diagnostics(m)}
    with pytest.raises(MessageTableError):
        build_message_tables(m)


_texts = st.text(
    alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="\0"), max_size=40
)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.integers(0, 0xFFFFFFFF), _texts, max_size=30))
def test_round_trip(messages: dict[int, str]) -> None:
    assert read_message_table(encode_messages(messages)) == messages


# --------------------------------------------------------------------------- hostile input


def _table(blocks: list[tuple[int, int, int]], tail: bytes) -> bytes:
    head = struct.pack("<I", len(blocks)) + b"".join(struct.pack("<III", *b) for b in blocks)
    return head + tail


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"", "too short"),
        (b"\x01\x00", "too short"),
        (struct.pack("<I", 1000), "claims 1000 blocks"),
        (_table([(5, 4, 16)], b""), "above high id"),
        (_table([(0, 0xFFFFFFFF, 16)], b"\0" * 8), "ids"),
        (_table([(1, 1, 400)], b"\0" * 8), "outside the table"),
        (_table([(1, 1, 16)], struct.pack("<HH", 2, 1) + b"\0" * 4), "length 2"),
        (_table([(1, 1, 16)], struct.pack("<HH", 200, 1) + b"\0" * 4), "length 200"),
        (_table([(1, 1, 28), (1, 1, 28)], struct.pack("<HH", 8, 1) + b"a\0\0\0"), "more than one"),
        (_table([(1, 1, 16)], struct.pack("<HH", 8, 1) + b"\x00\xd8\0\0"), "not valid UTF-16"),
    ],
)
def test_hostile_tables_raise_clear_errors(data: bytes, words: str) -> None:
    with pytest.raises(MessageTableError, match=words):
        read_message_table(data)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_never_crash(data: bytes) -> None:
    try:
        read_message_table(data)
    except MessageTableError:
        pass


def test_ansi_entries_decode() -> None:
    data = _table([(7, 7, 16)], struct.pack("<HH", 12, 0) + b"hi\r\n\0\0\0\0")
    assert read_message_table(data) == {7: "hi"}


@pytest.mark.parametrize("unit", ["x", "\n", "\U0001f600", "\r\n"])
def test_fits_agrees_with_the_encoded_entry_at_every_length_near_the_limits(unit: str) -> None:
    # The longest texts fits() accepts without encoding them, and the lengths where an
    # entry stops fitting, for texts of one-unit, line-feed and surrogate-pair characters.
    def encoded_fits(text: str) -> bool:
        return len(_entry_text(table_text(text))) + 4 <= 0xFFFF

    lengths = [_ALWAYS_FITS - 1, _ALWAYS_FITS, _ALWAYS_FITS + 1]
    lengths += range(16_375, 16_385)  # surrogate pairs and CR LF run out here
    lengths += range(32_755, 32_770)  # one-unit characters run out here
    for n in lengths:
        text = unit * (n // len(unit))
        assert fits(text) == encoded_fits(text), (unit, n)
