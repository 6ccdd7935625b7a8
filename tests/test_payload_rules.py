"""One payload decoder: ``etwmc decode`` and the runtime's testing helpers read every
value with :class:`etwmc.payloadvalues.ValueReader`, so where two readers could
differ, both follow one rule (the module says why each is TDH's).  Each rule is checked
on both: the manifest decoder and the runtime's ``decode_payload``."""

from __future__ import annotations

import struct
import uuid

import pytest

from etwmc.decode import DecodeError, Decoder
from etwmc.payloadvalues import MAX_ARRAY, PayloadValueError, ValueReader
from etwmc.runtime import PayloadDecodeError, decode_payload
from etwmc.runtime.payload import Field
from etwmc.validate import check_bytes
from etwmc.winmeta import InTypeCode as In

GUID = uuid.UUID("5a5a5a5a-1111-2222-3333-444444444444")
TEMPLATES = {
    1: '<data name="v" inType="win:SID"/>',
    2: '<data name="v" inType="win:UnicodeString" length="4"/>',
    3: '<data name="v" inType="win:AnsiString" length="4"/>',
    4: '<data name="v" inType="win:FILETIME"/>',
    5: '<data name="v" inType="win:CountedUnicodeString"/>',
    6: '<data name="v" inType="win:UnicodeString"/>',
}
LAYOUTS = {
    1: (Field("v", In.SID),),
    2: (Field("v", In.UNICODE_STRING, length_const=4),),
    3: (Field("v", In.ANSI_STRING, length_const=4),),
    4: (Field("v", In.FILETIME),),
    5: (Field("v", In.COUNTED_UNICODE_STRING),),
    6: (Field("v", In.UNICODE_STRING),),
}


@pytest.fixture(scope="module")
def decoder() -> Decoder:
    templates = "".join(f'<template tid="T{n}">{t}</template>' for n, t in TEMPLATES.items())
    events = "".join(f'<event value="{n}" template="T{n}"/>' for n in TEMPLATES)
    text = f"""<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
 <instrumentation><events>
  <provider name="Rules" guid="{{{GUID}}}" symbol="R" resourceFileName="r.dll"
            messageFileName="r.dll">
   <templates>{templates}</templates><events>{events}</events>
  </provider>
 </events></instrumentation>
</instrumentationManifest>"""
    checked = check_bytes(text.encode(), "rules.man")
    assert checked.ok and checked.manifest is not None, checked.diagnostics
    return Decoder(checked.manifest)


def both(decoder: Decoder, event: int, data: bytes) -> tuple[object, object]:
    """What ``etwmc decode`` and the runtime's decoder make of one payload."""
    theirs = decode_payload(LAYOUTS[event], data)["v"]
    return decoder.decode(GUID, event, 0, data).fields["v"], theirs


def sid(subs: int) -> bytes:
    return bytes([1, subs, 0, 0, 0, 0, 0, 5]) + struct.pack(f"<{subs}I", *range(subs))


def test_a_sid_has_at_most_15_sub_authorities(decoder: Decoder) -> None:
    fifteen = "S-1-5-" + "-".join(map(str, range(15)))
    assert both(decoder, 1, sid(15)) == (fifteen, fifteen)
    with pytest.raises(DecodeError, match="no SID .revision 1, 16 sub-authorities"):
        decoder.decode(GUID, 1, 0, sid(16))
    with pytest.raises(PayloadDecodeError, match="no SID .revision 1, 16 sub-authorities"):
        decode_payload(LAYOUTS[1], sid(16))


def test_a_fixed_length_string_ends_at_its_first_nul(decoder: Decoder) -> None:
    assert both(decoder, 2, "ab\0c".encode("utf-16-le")) == ("ab", "ab")
    assert both(decoder, 3, b"ab\0c") == ("ab", "ab")


def test_a_filetime_is_a_count_shown_as_a_date_or_as_hex_past_any_date(
    decoder: Decoder,
) -> None:
    epoch = 125_911_584_000_000_000  # 2000-01-01
    assert both(decoder, 4, struct.pack("<Q", epoch)) == ("2000-01-01T00:00:00.0000000Z", epoch)
    huge = 0xFFFF_FFFF_FFFF_FFF0  # no calendar holds it: shown as the number it is
    assert both(decoder, 4, struct.pack("<Q", huge)) == ("0xFFFFFFFFFFFFFFF0", huge)


def test_broken_utf16_shows_a_replacement_character(decoder: Decoder) -> None:
    odd = struct.pack("<H", 3) + b"a\0b"  # three bytes: one character and half of one
    assert both(decoder, 5, odd) == ("a\ufffd", "a\ufffd")
    lone = "x".encode("utf-16-le") + b"\x00\xd8" + b"\0\0"  # an unpaired high surrogate
    assert both(decoder, 6, lone) == ("x\ufffd", "x\ufffd")


def test_a_string_without_its_nul_is_an_error(decoder: Decoder) -> None:
    with pytest.raises(DecodeError, match="has no NUL terminator"):
        decoder.decode(GUID, 6, 0, "abc".encode("utf-16-le"))
    with pytest.raises(PayloadDecodeError, match="has no NUL terminator"):
        decode_payload(LAYOUTS[6], "abc".encode("utf-16-le"))


def test_arrays_are_bounded_before_they_are_read() -> None:
    r = ValueReader(bytes(8))
    with pytest.raises(PayloadValueError, match="more than a payload can hold"):
        r.spend(MAX_ARRAY + 1, 0)
    with pytest.raises(PayloadValueError, match="need at least 16 bytes"):
        r.spend(4, 4)
    r.spend(MAX_ARRAY, 0)
    with pytest.raises(PayloadValueError, match="more than 65536 values"):
        r.spend(2, 0)
    empty = (Field("n", In.UINT16), Field("a", In.UNICODE_STRING, count_ref=0, length_const=0))
    with pytest.raises(PayloadDecodeError, match="field 'a'"):
        decode_payload(empty * 2, struct.pack("<H", MAX_ARRAY) * 2)


def test_the_runtime_reads_pointers_of_the_writers_size() -> None:
    layout = (Field("p", In.POINTER), Field("n", In.UINT8))
    assert decode_payload(layout, struct.pack("<IB", 7, 1), pointer_size=4) == {"p": 7, "n": 1}
    assert decode_payload(layout, struct.pack("<QB", 7, 1), pointer_size=8) == {"p": 7, "n": 1}
