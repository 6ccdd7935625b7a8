"""The decoder: every inType and the common outTypes, from payloads packed by hand."""

from __future__ import annotations

import json
import struct
import uuid
from pathlib import Path

import pytest

from etwmc.decode import DecodeError, Decoder, filetime_text, format_message
from etwmc.validate import check_bytes

GUID = uuid.UUID("11111111-2222-3333-4444-555555555555")

MANIFEST = """<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events"
    xmlns:xs="http://www.w3.org/2001/XMLSchema">
 <instrumentation><events>
  <provider name="Test-Decode" guid="{11111111-2222-3333-4444-555555555555}" symbol="TD"
            resourceFileName="td.dll" messageFileName="td.dll">
   <tasks><task name="Work" value="7" message="$(string.task.Work)"/></tasks>
   <keywords><keyword name="Net" mask="0x1"/></keywords>
   <maps>
    <valueMap name="Color">
     <map value="1" message="$(string.red)"/><map value="2" message="$(string.green)"/>
    </valueMap>
    <bitMap name="Flags">
     <map value="0x1" message="$(string.read)"/><map value="0x4" message="$(string.write)"/>
    </bitMap>
   </maps>
   <templates>
    <template tid="Ints">
     <data name="i8" inType="win:Int8"/>
     <data name="u8" inType="win:UInt8"/>
     <data name="i16" inType="win:Int16"/>
     <data name="u16" inType="win:UInt16"/>
     <data name="i32" inType="win:Int32"/>
     <data name="u32" inType="win:UInt32"/>
     <data name="i64" inType="win:Int64"/>
     <data name="u64" inType="win:UInt64"/>
     <data name="h32" inType="win:HexInt32"/>
     <data name="h64" inType="win:HexInt64"/>
     <data name="f" inType="win:Float"/>
     <data name="d" inType="win:Double"/>
     <data name="b" inType="win:Boolean"/>
    </template>
    <template tid="Outs">
     <data name="hex8" inType="win:UInt8" outType="win:HexInt8"/>
     <data name="bool8" inType="win:UInt8" outType="xs:boolean"/>
     <data name="char" inType="win:UInt8" outType="xs:string"/>
     <data name="port" inType="win:UInt16" outType="win:Port"/>
     <data name="hex16" inType="win:UInt16" outType="win:HexInt16"/>
     <data name="pid" inType="win:UInt32" outType="win:PID"/>
     <data name="ip4" inType="win:UInt32" outType="win:IPv4"/>
     <data name="err" inType="win:UInt32" outType="win:Win32Error"/>
     <data name="status" inType="win:UInt32" outType="win:NTSTATUS"/>
     <data name="hr" inType="win:Int32" outType="win:HResult"/>
     <data name="hex64" inType="win:UInt64" outType="win:HexInt64"/>
    </template>
    <template tid="Strings">
     <data name="z" inType="win:UnicodeString"/>
     <data name="a" inType="win:AnsiString"/>
     <data name="zfix" inType="win:UnicodeString" length="4"/>
     <data name="afix" inType="win:AnsiString" length="3"/>
     <data name="utf8" inType="win:AnsiString" outType="win:Utf8"/>
     <data name="cz" inType="win:CountedUnicodeString"/>
     <data name="ca" inType="win:CountedAnsiString"/>
     <data name="cb" inType="win:CountedBinary"/>
    </template>
    <template tid="Others">
     <data name="n" inType="win:UInt16"/>
     <data name="bin" inType="win:Binary" length="n"/>
     <data name="g" inType="win:GUID"/>
     <data name="ptr" inType="win:Pointer"/>
     <data name="ft" inType="win:FILETIME"/>
     <data name="st" inType="win:SYSTEMTIME"/>
     <data name="sid" inType="win:SID"/>
     <data name="ip6" inType="win:Binary" outType="win:IPv6" length="16"/>
     <data name="sa" inType="win:Binary" outType="win:SocketAddress" length="16"/>
    </template>
    <template tid="Arrays">
     <data name="count" inType="win:UInt8"/>
     <data name="vals" inType="win:UInt16" count="count"/>
     <data name="fixed" inType="win:UInt8" count="2"/>
     <data name="names" inType="win:UnicodeString" count="2"/>
     <struct name="pairs" count="count">
      <data name="k" inType="win:UInt8"/>
      <data name="v" inType="win:AnsiString"/>
     </struct>
     <data name="color" inType="win:UInt32" map="Color"/>
     <data name="flags" inType="win:UInt32" map="Flags"/>
    </template>
   </templates>
   <events>
    <event value="1" template="Ints" level="win:Informational" task="Work" keywords="Net"
           symbol="IntsEvent" message="$(string.ints)"/>
    <event value="2" template="Outs" symbol="OutsEvent"/>
    <event value="3" template="Strings" symbol="StringsEvent" message="$(string.strings)"/>
    <event value="4" template="Others" symbol="OthersEvent"/>
    <event value="5" template="Arrays" symbol="ArraysEvent" message="$(string.arrays)"/>
    <event value="6" symbol="Empty"/>
   </events>
  </provider>
 </events></instrumentation>
 <localization><resources culture="en-US"><stringTable>
  <string id="task.Work" value="Work"/>
  <string id="red" value="Red"/><string id="green" value="Green"/>
  <string id="read" value="Read"/><string id="write" value="Write"/>
  <string id="ints" value="i8=%1 u64=%8%n100%% h=%9 x=%6!x! done%0 hidden"/>
  <string id="strings" value="[%1] [%2] [%8]%t%b%."/>
  <string id="arrays" value="%2 / %6 / %7"/>
 </stringTable></resources></localization>
</instrumentationManifest>
"""


@pytest.fixture(scope="module")
def decoder() -> Decoder:
    checked = check_bytes(MANIFEST.encode(), "decode-test.man")
    assert checked.ok, [str(d) for d in checked.diagnostics]
    assert checked.manifest is not None
    return Decoder(checked.manifest)


def utf16z(s: str) -> bytes:
    return s.encode("utf-16-le") + b"\0\0"


def test_integers_floats_boolean(decoder: Decoder) -> None:
    payload = struct.pack(
        "<bBhHiIqQIQfd i".replace(" ", ""),
        -5, 250, -300, 65000, -70000, 4000000000, -(2**40), 2**63 + 5,
        0xDEADBEEF, 0x0123456789ABCDEF, 1.5, -2.25, 1,
    )  # fmt: skip
    ev = decoder.decode(GUID, 1, 0, payload)
    assert ev.fields == {
        "i8": -5, "u8": 250, "i16": -300, "u16": 65000, "i32": -70000, "u32": 4000000000,
        "i64": -(2**40), "u64": 2**63 + 5, "h32": "0xDEADBEEF", "h64": "0x0123456789ABCDEF",
        "f": 1.5, "d": -2.25, "b": True,
    }  # fmt: skip
    assert ev.task == "Work"
    assert ev.level == "win:Informational"
    assert ev.keywords == ("Net",)
    assert ev.name == "IntsEvent"
    assert ev.message == f"i8=-5 u64={2**63 + 5}\r\n100% h=0xDEADBEEF x=ee6b2800 done"


def test_out_types(decoder: Decoder) -> None:
    payload = (
        bytes([0xAB, 1, 0x41])
        + (8080).to_bytes(2, "big")
        + struct.pack("<H", 0x1F)
        + struct.pack("<I", 4242)
        + bytes([192, 168, 1, 20])
        + struct.pack("<I", 5)
        + struct.pack("<I", 0xC0000005)
        + struct.pack("<i", -2147024891)
        + struct.pack("<Q", 255)
    )
    ev = decoder.decode(GUID, 2, 0, payload)
    assert ev.fields == {
        "hex8": "0xAB", "bool8": True, "char": "A", "port": 8080, "hex16": "0x001F",
        "pid": 4242, "ip4": "192.168.1.20", "err": "0x00000005", "status": "0xC0000005",
        "hr": "0x80070005", "hex64": "0x00000000000000FF",
    }  # fmt: skip


def test_strings(decoder: Decoder) -> None:
    payload = (
        utf16z("héllo")
        + b"ansi\xe9\0"
        + "ab".encode("utf-16-le") + b"\0\0" * 2
        + b"xyz"
        + "ü".encode() + b"\0"
        + struct.pack("<H", 6) + "abc".encode("utf-16-le")
        + struct.pack("<H", 2) + b"hi"
        + struct.pack("<H", 3) + b"\x01\x02\x03"
    )  # fmt: skip
    ev = decoder.decode(GUID, 3, 0, payload)
    assert ev.fields == {
        "z": "héllo", "a": "ansié", "zfix": "ab", "afix": "xyz", "utf8": "ü",
        "cz": "abc", "ca": "hi", "cb": "0x010203",
    }  # fmt: skip
    assert ev.message == "[héllo] [ansié] [0x010203]\t ."
    assert ev.extra == b""


def test_binary_guid_pointer_times_sid_addresses(decoder: Decoder) -> None:
    g = uuid.UUID("01234567-89ab-cdef-0123-456789abcdef")
    # 13_300_000_000 s after 1601-01-01 = Unix 1655526400 (11_644_473_600 s between the epochs).
    ft = 133_000_000_000_000_000 + 1234567
    sid = bytes([1, 2, 0, 0, 0, 0, 0, 5]) + struct.pack("<II", 32, 544)
    ip6 = bytes.fromhex("20010db8000000000000000000000001")
    sockaddr = struct.pack("<H", 2) + (443).to_bytes(2, "big") + bytes([10, 0, 0, 1]) + bytes(8)
    payload = (
        struct.pack("<H", 3) + b"\xde\xad\xbe"
        + g.bytes_le
        + struct.pack("<Q", 0x7FF612345678)
        + struct.pack("<Q", ft)
        + struct.pack("<8H", 2024, 2, 3, 29, 13, 14, 15, 16)
        + sid + ip6 + sockaddr
    )  # fmt: skip
    ev = decoder.decode(GUID, 4, 0, payload)
    assert ev.fields == {
        "n": 3, "bin": "0xDEADBE", "g": "{01234567-89AB-CDEF-0123-456789ABCDEF}",
        "ptr": "0x7FF612345678", "ft": "2022-06-18T04:26:40.1234567Z",
        "st": "2024-02-29T13:14:15.016", "sid": "S-1-5-32-544",
        "ip6": "2001:db8::1", "sa": "10.0.0.1:443",
    }  # fmt: skip
    # A 32-bit process writes 4-byte pointers.
    payload32 = payload[: 5 + 16] + struct.pack("<I", 0x1234) + payload[5 + 16 + 8 :]
    assert decoder.decode(GUID, 4, 0, payload32, pointer_size=4).fields["ptr"] == "0x1234"


def test_arrays_structs_maps(decoder: Decoder) -> None:
    payload = (
        bytes([2]) + struct.pack("<HH", 10, 20) + bytes([7, 8]) + utf16z("a") + utf16z("bc")
        + bytes([1]) + b"one\0" + bytes([2]) + b"two\0"
        + struct.pack("<I", 2) + struct.pack("<I", 0x1 | 0x4 | 0x10)
    )  # fmt: skip
    ev = decoder.decode(GUID, 5, 0, payload)
    assert ev.fields == {
        "count": 2, "vals": [10, 20], "fixed": [7, 8], "names": ["a", "bc"],
        "pairs": [{"k": 1, "v": "one"}, {"k": 2, "v": "two"}],
        "color": "Green", "flags": ["Read", "Write", "0x10"],
    }  # fmt: skip
    assert ev.message == "10, 20 / Green / Read | Write | 0x10"
    json.dumps(ev.to_json())  # every value is JSON


def test_unknown_map_value_and_empty_event(decoder: Decoder) -> None:
    payload = bytes([0]) + bytes([0, 0]) + utf16z("") + utf16z("") + struct.pack("<II", 9, 0)
    ev = decoder.decode(GUID, 5, 0, payload)
    assert ev.fields["color"] == "9"
    assert ev.fields["flags"] == []
    empty = decoder.decode(GUID, 6, 0, b"\x01\x02")
    assert empty.fields == {} and empty.extra == b"\x01\x02"


# Event 4's payload up to its SYSTEMTIME, which is in month 13.
BAD_SYSTEMTIME = struct.pack("<H", 0) + bytes(32) + struct.pack("<8H", 2024, 13, 0, 1, 0, 0, 0, 0)


@pytest.mark.parametrize(
    ("event", "payload", "field"),
    [
        (1, b"\x01", "u8"),
        (4, b"\x01", "n"),
        (3, "abc".encode("utf-16-le"), "z"),
        (4, struct.pack("<H", 50) + b"x", "bin"),
        (4, BAD_SYSTEMTIME, "st"),
        (5, bytes([200]), "vals"),
    ],
)
def test_malformed_payload_names_event_and_field(
    decoder: Decoder, event: int, payload: bytes, field: str
) -> None:
    with pytest.raises(DecodeError) as info:
        decoder.decode(GUID, event, 0, payload)
    assert f"event {event} v0" in str(info.value)
    assert f"'{field}'" in str(info.value)


def test_unknown_event_and_bad_pointer_size(decoder: Decoder) -> None:
    with pytest.raises(DecodeError, match="no metadata for event 99"):
        decoder.decode(GUID, 99, 0, b"")
    with pytest.raises(DecodeError, match="pointer size") as info:
        decoder.decode(GUID, 4, 0, b"", pointer_size=2)
    assert str(info.value) == "event 4 v0: pointer size must be 4 or 8, not 2"


def test_format_message_rules() -> None:
    assert format_message("a%1b%2c", ["X", "Y"]) == "aXbYc"
    assert format_message("%1!04d! %2!s!", ["7", "s"]) == "0007 s"
    assert format_message("100%% %! %. %0tail", []) == "100% ! . "
    assert format_message("%3 missing", ["a"]) == "%3 missing"
    assert format_message("x%ny%tz%r%b", []) == "x\r\ny\tz\r "
    assert format_message("%12", [str(i) for i in range(1, 13)]) == "12"


def test_filetime_text() -> None:
    assert filetime_text(0) == "1601-01-01T00:00:00.0000000Z"
    # 2000-01-01T00:00:00Z is 125911584000000000 in FILETIME units.
    assert filetime_text(125_911_584_000_000_000) == "2000-01-01T00:00:00.0000000Z"


def test_decode_cli(tmp_path: Path, decoder: Decoder) -> None:
    from etwmc.cli import main
    from etwmc.runtime.eventfile import EventRecord, write_events

    man = tmp_path / "t.man"
    man.write_text(MANIFEST, encoding="utf-8")
    events = tmp_path / "e.etwev"
    write_events(events, [
        EventRecord(provider_id=GUID, id=5, user_data=bytes([0, 0, 0]) + utf16z("") * 2
                    + struct.pack("<II", 1, 4), timestamp=125_911_584_000_000_000),
        EventRecord(provider_id=GUID, id=1, user_data=b"\x01"),
    ])  # fmt: skip
    out = tmp_path / "out.jsonl"
    rc = main(["decode", str(events), "--manifest", str(man), "-o", str(out)])
    data = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert rc == 1  # the second event is truncated
    assert data[0]["fields"]["color"] == "Red" and data[0]["fields"]["flags"] == ["Write"]
    assert data[0]["timestamp"] == "2000-01-01T00:00:00.0000000Z"
    assert "'u8'" in data[1]["error"]


def test_blob_metadata_decodes_like_the_manifest(decoder: Decoder, tmp_path: Path) -> None:
    """The same payloads decode the same with metadata read back from the compiled blob
    and message table (names, maps, messages), except the event symbol the blob lacks."""
    from etwmc.wevt import build_message_tables, build_wevt
    from etwmc.wevt.msgtable import read_message_table
    from etwmc.wevt.reader import read_wevt

    manifest = decoder.manifest
    blob = build_wevt(manifest)
    ((_, table),) = build_message_tables(manifest)
    from_blob = Decoder(read_wevt(blob, messages=[read_message_table(table)]))
    payload = bytes([1]) + struct.pack("<H", 5) + bytes([7, 8]) + utf16z("a") + utf16z("bc")
    payload += bytes([3]) + b"x\0" + struct.pack("<II", 1, 5)
    for event, data in ((5, payload), (1, bytes(58)), (6, b"")):
        a = decoder.decode(GUID, event, 0, data).to_json()
        b = from_blob.decode(GUID, event, 0, data).to_json()
        assert a.pop("name") is not None and b.pop("name") is None
        assert a == b
    assert from_blob.decode(GUID, 5, 0, payload).fields["color"] == "Red"

    # and through the CLI, with --wevt and --messages
    from etwmc.cli import main
    from etwmc.runtime.eventfile import EventRecord, write_events

    (tmp_path / "t.bin").write_bytes(blob)
    (tmp_path / "m.bin").write_bytes(table)
    write_events(tmp_path / "e.ev", [EventRecord(provider_id=GUID, id=5, user_data=payload)])
    out = tmp_path / "o.json"
    rc = main(["decode", str(tmp_path / "e.ev"), "--wevt", str(tmp_path / "t.bin"),
               "--messages", str(tmp_path / "m.bin"), "--format", "json",
               "-o", str(out)])  # fmt: skip
    assert rc == 0
    (item,) = json.loads(out.read_text(encoding="utf-8"))
    assert item["message"] == "5 / Red / Read | Write"
    assert item["fields"]["pairs"] == [{"k": 3, "v": "x"}]


def test_non_finite_floats_stay_json(decoder: Decoder) -> None:
    payload = bytes(42) + struct.pack("<fd", float("nan"), float("-inf")) + struct.pack("<i", 0)
    ev = decoder.decode(GUID, 1, 0, payload)
    assert (ev.fields["f"], ev.fields["d"]) == ("nan", "-inf")
    json.loads(json.dumps(ev.to_json(), allow_nan=False))


SAMPLES = Path(__file__).resolve().parents[1].parent / "shared" / "golden" / "samples"


@pytest.mark.skipif(not SAMPLES.is_dir(), reason="../shared/golden is not available")
def test_decode_with_microsoft_metadata() -> None:
    """Service Control Manager event 7000 (services.wevt): two strings, then a binary
    blob whose length is the preceding __binLength field."""
    from etwmc.wevt.reader import read_wevt

    dec = Decoder(read_wevt((SAMPLES / "services.wevt").read_bytes()))
    scm = uuid.UUID("555908d1-a6d7-4695-8e1e-26931d2012f4")
    payload = utf16z("Spooler") + utf16z("%%1053") + struct.pack("<I", 2) + b"\x05\x00"
    ev = dec.decode(scm, 7000, 0, payload)
    assert ev.provider == "Service Control Manager"
    assert ev.keywords == ("win:EventlogClassic",)
    assert ev.fields == {
        "param1": "Spooler", "param2": "%%1053", "__binLength": 2, "BinaryData": "0x0500",
    }  # fmt: skip
    with pytest.raises(DecodeError, match="event 7000 v0: field 'BinaryData'"):
        dec.decode(scm, 7000, 0, payload[:-1])


def test_decode_cli_usage_and_bad_inputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from etwmc.cli import main

    events = tmp_path / "e.ev"
    events.write_bytes(b"not an event file")
    assert main(["decode", str(events)]) == 1
    err = capsys.readouterr().err
    assert "ETW022" in err and "bad magic" in err
    blob = tmp_path / "t.bin"
    blob.write_bytes(b"CRIM")
    assert main(["decode", str(events), "--wevt", str(blob)]) == 1
    assert "CRIM size" in capsys.readouterr().err
    blob.write_bytes(b"CRIM" + struct.pack("<IHHI", 16, 5, 1, 0) + b"\0\0")
    assert main(["decode", str(events), "--wevt", str(blob)]) == 1
    err = capsys.readouterr().err
    assert "bad magic" in err and "Traceback" not in err


def test_format_message_and_the_rules_read_inserts_alike() -> None:
    # One tokenizer: an unterminated %n!fmt inserts the value, and text after %0 is
    # not shown (though the rules still check its inserts).
    from etwmc.msgformat import inserts

    assert format_message("a%1!x", ["V"]) == "aV"
    assert format_message("a%0%1", ["V"]) == "a"
    assert [i.number for i in inserts("a%0%1")] == [1]
