"""Decoder.payload_json writes what json.dumps writes for Decoder.payload's fields, or
declines (None) and leaves the event to payload: templates built by hand, with names
that JSON or str.format must escape, counted arrays, and payloads that do not fit."""

from __future__ import annotations

import json
import struct
import uuid
from typing import Any

import pytest

from etwmc.decode import DecodeError, Decoder
from etwmc.validate import check_bytes

GUID = uuid.UUID("21111111-2222-3333-4444-555555555555")

MANIFEST = """<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
 <instrumentation><events>
  <provider name="Test-Json" guid="{21111111-2222-3333-4444-555555555555}" symbol="TJ"
            resourceFileName="tj.dll" messageFileName="tj.dll">
   <templates>
    <template tid="Mixed">
     <data name="a{0}" inType="win:UInt64"/>
     <data name='q"uote' inType="win:Int8"/>
     <data name="n" inType="win:UInt16"/>
     <data name="text" inType="win:UnicodeString"/>
     <data name="vals" inType="win:UInt32" count="n"/>
     <data name="fixed" inType="win:Int16" count="2"/>
     <data name="é" inType="win:UInt8"/>
    </template>
    <template tid="Twice">
     <data name="x" inType="win:UInt32"/>
     <data name="s" inType="win:UnicodeString"/>
     <data name="x" inType="win:UInt16"/>
    </template>
    <template tid="Other">
     <data name="x" inType="win:UInt32"/>
     <data name="p" inType="win:Pointer"/>
    </template>
    <template tid="Said">
     <data name="x" inType="win:UInt32"/>
    </template>
   </templates>
   <events>
    <event value="1" template="Mixed" symbol="MixedEvent"/>
    <event value="2" template="Twice" symbol="TwiceEvent"/>
    <event value="3" template="Other" symbol="OtherEvent"/>
    <event value="4" template="Said" symbol="SaidEvent" message="$(string.said)"/>
    <event value="5" symbol="Empty"/>
   </events>
  </provider>
 </events></instrumentation>
 <localization><resources culture="en-US"><stringTable>
  <string id="said" value="x is %1"/>
 </stringTable></resources></localization>
</instrumentationManifest>
"""


@pytest.fixture(scope="module")
def decoder() -> Decoder:
    checked = check_bytes(MANIFEST.encode(), "json-test.man")
    assert checked.manifest is not None
    return Decoder(checked.manifest)


def both(decoder: Decoder, event_id: int, data: bytes) -> tuple[Any, Any]:
    found = decoder.lookup(GUID, event_id, 0)
    assert found is not None
    p, e = found
    try:
        values, _, used = decoder.payload(p, e, data, 8)
        general: Any = (json.dumps(values, ensure_ascii=False, separators=(",", ":")), used)
    except DecodeError as err:
        general = err
    return decoder.payload_json(p, e, data, 8), general


def mixed(count: int, vals: list[int], text: str = 'a "b" \\ {c}\n é\u2028') -> bytes:
    return (
        struct.pack("<QbH", 2**64 - 1, -5, count)
        + text.encode("utf-16-le")
        + b"\0\0"
        + struct.pack(f"<{len(vals)}I", *vals)
        + struct.pack("<hh", -1, 2)
        + bytes([7])
    )


def test_runs_strings_and_arrays_as_json(decoder: Decoder) -> None:
    for data in (mixed(3, [1, 2, 4_000_000_000]), mixed(0, []), mixed(1, [5]) + b"extra"):
        quick, general = both(decoder, 1, data)
        assert quick == general
        fields = json.loads(quick[0])
        assert list(fields) == ["a{0}", 'q"uote', "n", "text", "vals", "fixed", "é"]
        assert fields["a{0}"] == 2**64 - 1 and fields["fixed"] == [-1, 2] and fields["é"] == 7
    assert both(decoder, 5, b"") == (None, ("{}", 0))  # no template: payload's business


@pytest.mark.parametrize("cut", [0, 5, 12, 40, 47, 56, 59])
def test_payloads_that_do_not_fit_are_left_to_payload(decoder: Decoder, cut: int) -> None:
    data = mixed(3, [1, 2, 3])
    quick, general = both(decoder, 1, data[:cut])
    assert quick is None and isinstance(general, DecodeError)
    # a string without its NUL, and a count past the payload
    assert both(decoder, 1, data[:11] + b"a\0b\0")[0] is None
    assert both(decoder, 1, mixed(200, [1]))[0] is None


def test_templates_without_a_json_plan_are_left_to_payload(decoder: Decoder) -> None:
    twice = struct.pack("<I", 1) + "s".encode("utf-16-le") + b"\0\0" + struct.pack("<H", 2)
    quick, general = both(decoder, 2, twice)
    assert quick is None and general == ('{"x":2,"s":"s"}', len(twice))  # a dict keeps one x
    quick, general = both(decoder, 3, struct.pack("<IQ", 1, 2))
    assert quick == general == ('{"x":1,"p":"0x2"}', 12)  # a pointer has one
    assert both(decoder, 4, struct.pack("<I", 9))[0] is None  # a message to format


@pytest.mark.parametrize("size", [4, 8])
def test_a_pointer_is_written_as_the_payload_reader_shows_it(decoder: Decoder, size: int) -> None:
    found = decoder.lookup(GUID, 3, 0)
    assert found is not None
    p, e = found
    data = struct.pack("<I", 7) + (0xDEADBEEF).to_bytes(size, "little")
    values, _, used = decoder.payload(p, e, data, size)
    general = (json.dumps(values, ensure_ascii=False, separators=(",", ":")), used)
    assert (
        decoder.payload_json(p, e, data, size) == general == ('{"x":7,"p":"0xDEADBEEF"}', 4 + size)
    )
    assert decoder.payload_json(p, e, data[:-1], size) is None  # cut short: payload says why
