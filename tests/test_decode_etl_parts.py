"""The pieces of trace decoding, on inputs built by hand: LZXpress, the EventSource
manifest envelope and its chunks, TraceLogging schemas, and the output writers."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import struct
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from etwmc.decode import DecodeError
from etwmc.decode.etl import Record
from etwmc.decode.event import Event
from etwmc.decode.eventsource import EnvelopeError, ManifestCollector, parse_envelope
from etwmc.decode.jsonline import JsonLines
from etwmc.decode.lzxpress import LzxpressError, decompress
from etwmc.decode.output import render, summary_text
from etwmc.decode.trace import TraceDecoder
from etwmc.decode.tracelogging import decode_payload, parse_event, provider_name
from etwmc.eventdescriptor import EventDescriptor

# --------------------------------------------------------------------------- LZXpress


def flags(*bits: int) -> bytes:
    """A flag word: the given bits (1 = match) first, then literals."""
    word = 0
    for i, b in enumerate(bits):
        word |= b << (31 - i)
    return struct.pack("<I", word)


def match(distance: int, length: int) -> bytes:
    """A short match token (length 3..9)."""
    assert 3 <= length <= 9
    return struct.pack("<H", ((distance - 1) << 3) | (length - 3))


def test_lzxpress_literals_and_matches() -> None:
    assert decompress(flags() + b"hello", 100) == b"hello"
    # "abc", then a 9-byte match 3 back (overlapping: the pattern repeats)
    stream = flags(0, 0, 0, 1) + b"abc" + match(3, 9)
    assert decompress(stream, 100) == b"abc" + b"abcabcabc"
    # a match that does not overlap, then more literals
    stream = flags(0, 0, 0, 0, 1, 0) + b"wxyz" + match(4, 4) + b"!"
    assert decompress(stream, 100) == b"wxyzwxyz!"


def test_lzxpress_long_lengths() -> None:
    # length 7 in the token continues in a half byte (15 = a byte follows: 200 - 3 - 7 - 15)
    stream = flags(0, 1) + b"a" + struct.pack("<H", 7) + bytes([15, 200 - 25])
    assert decompress(stream, 1000) == b"a" * 201
    # 255 in that byte continues in a u16
    stream = flags(0, 1) + b"b" + struct.pack("<H", 7) + bytes([15, 255]) + struct.pack("<H", 5000)
    assert decompress(stream, 10_000) == b"b" * (1 + 5000 + 3)


def test_lzxpress_is_bounded_and_checked() -> None:
    huge = flags(0, 1) + b"a" + struct.pack("<H", 7) + bytes([15, 255])
    huge += struct.pack("<H", 0) + struct.pack("<I", 0xFFFFFFF0)
    with pytest.raises(LzxpressError, match="beyond 4096"):
        decompress(huge, 4096)
    with pytest.raises(LzxpressError, match="back"):
        decompress(flags(1) + match(5, 3), 100)  # nothing to copy from yet
    with pytest.raises(LzxpressError, match="cut short"):
        decompress(b"\0\0", 100)
    with pytest.raises(LzxpressError, match="beyond 3"):
        decompress(flags() + b"hello", 3)


# --------------------------------------------------------------------------- EventSource

GUID = uuid.UUID("7a1e0e0c-5c3b-4d5e-9f10-111213141516")
MANIFEST = f"""<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
 <instrumentation xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <events>
   <provider name="My-Source" guid="{{{GUID}}}" resourceFileName="x" messageFileName="x"
             symbol="MySource">
    <tasks><task name="Work" value="1"/></tasks>
    <templates>
     <template tid="T"><data name="Count" inType="win:Int32"/>
      <data name="Text" inType="win:UnicodeString"/></template>
    </templates>
    <events>
     <event value="1" version="0" level="win:Informational" task="Work" opcode="win:Start"
            template="T" message="$(string.m)"/>
    </events>
   </provider>
  </events>
 </instrumentation>
 <localization><resources culture="en-US"><stringTable>
  <string id="m" value="work %1 on %2"/>
 </stringTable></resources></localization>
</instrumentationManifest>""".encode()


def envelope(total: int, number: int, chunk: bytes, magic: int = 0x5B) -> bytes:
    return struct.pack("<BBBBHH", 1, 1, 0, magic, total, number) + chunk


def record(event_id: int, opcode: int, data: bytes, **kw: Any) -> Record:
    names = ("version", "channel", "level", "task", "keyword")
    descriptor = dict(id=event_id, version=0, channel=0, level=4, opcode=opcode, task=0, keyword=0)
    descriptor.update((k, kw.pop(k)) for k in names if k in kw)
    fields: dict[str, Any] = dict(
        offset=0, classic=False, provider=GUID.bytes_le,
        descriptor=EventDescriptor(**descriptor), time=125_911_584_000_000_000, pid=1, tid=2,
        activity=b"", related=b"", schema=b"", traits=b"", data=data, pointer_size=8,
    )  # fmt: skip
    fields.update(kw)
    return Record(**fields)


def decoded(dec: TraceDecoder, records: Sequence[Record]) -> list[dict[str, Any]]:
    """The events as their JSON lines hold them."""
    return [json.loads(line) for line in dec.json_lines(records)]


def test_envelope_rules() -> None:
    env = parse_envelope(envelope(2, 1, b"<x/>"))
    assert (env.total, env.number, env.chunk) == (2, 1, b"<x/>")
    with pytest.raises(EnvelopeError, match="magic"):
        parse_envelope(envelope(1, 0, b"", magic=0x5C))
    with pytest.raises(EnvelopeError, match="chunk 2 of 2"):
        parse_envelope(envelope(2, 2, b""))
    with pytest.raises(EnvelopeError, match="less than an envelope"):
        parse_envelope(b"\x01\x01")


def test_chunks_join_in_order_once() -> None:
    c = ManifestCollector()
    p = GUID.bytes_le
    assert c.add(p, (1, 2), parse_envelope(envelope(3, 0, b"ab"))) is None
    assert c.add(p, (1, 2), parse_envelope(envelope(3, 2, b"ef"))) is None
    assert c.add(p, (1, 2), parse_envelope(envelope(3, 1, b"cd"))) == b"abcdef"
    for i, part in enumerate((b"ab", b"cd", b"ef")):  # the same manifest again
        assert c.add(p, (1, 2), parse_envelope(envelope(3, i, part))) is None
    # a chunk 0 starts over
    assert c.add(p, (1, 2), parse_envelope(envelope(2, 0, b"x"))) is None
    assert c.add(p, (1, 2), parse_envelope(envelope(2, 0, b"y"))) is None
    assert c.add(p, (1, 2), parse_envelope(envelope(2, 1, b"z"))) == b"yz"


def test_inband_manifest_in_two_chunks_decodes_later_events() -> None:
    half = len(MANIFEST) // 2
    payload = struct.pack("<i", -7) + "déjà\0".encode("utf-16-le")
    records = [
        record(1, 1, payload),  # before its manifest: no metadata yet
        record(0xFFFE, 254, envelope(2, 0, MANIFEST[:half])),
        record(0xFFFE, 254, envelope(2, 1, MANIFEST[half:])),
        record(1, 1, payload),
        record(1, 1, payload + b"\0"),
    ]
    dec = TraceDecoder()
    events = decoded(dec, records)
    assert [e["kind"] for e in events] == ["manifest"] + ["eventsource"] * 4
    assert not events[0]["decoded"] and "error" not in events[0]
    ok = events[3]
    assert ok["decoded"] and ok["fields"] == {"Count": -7, "Text": "déjà"}
    assert ok["message"] == "work -7 on déjà" and ok["name"] == "WorkStart"
    assert ok["provider_name"] == "My-Source" and ok["timestamp"] == "2000-01-01T00:00:00.0000000Z"
    # one byte more than the metadata describes: decoded, the byte counted (as TDH does)
    assert events[4]["decoded"] and events[4]["trailing_bytes"] == 1
    assert events[4]["fields"] == ok["fields"]
    assert events[1]["fields"]["TotalChunks"] == 2 and events[2]["decoded"]
    count = dec.counts[str(GUID)]
    assert (count.events, count.decoded, count.trailing, dec.misfits) == (5, 4, 1, 0)
    assert dec.diagnostics == []


def test_unusable_inband_manifest_is_a_warning() -> None:
    dec = TraceDecoder(label="t.etl")
    events = decoded(dec, [record(0xFFFE, 254, envelope(1, 0, b"<not xml"))])
    assert events[0]["decoded"]  # the envelope itself is fine
    (d,) = dec.diagnostics
    assert d.code == "ETW854" and str(GUID) in d.message
    bad = decoded(dec, [record(0xFFFE, 254, envelope(1, 0, b"", magic=1))])
    assert not bad[0]["decoded"] and "magic" in bad[0]["error"]


def test_inband_manifests_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    import etwmc.decode.inband as inband_module

    monkeypatch.setattr(inband_module, "MAX_INBAND", 1)
    other = MANIFEST.replace(str(GUID).encode(), b"11111111-2222-3333-4444-555555555555")
    dec = TraceDecoder(label="t.etl")
    recs = [
        record(0xFFFE, 254, envelope(1, 0, MANIFEST)),
        record(0xFFFE, 254, envelope(1, 0, other)),
        record(0xFFFE, 254, envelope(1, 0, other)),
    ]
    events = decoded(dec, recs)
    assert all(e["decoded"] for e in events)
    (d,) = dec.diagnostics
    assert d.code == "ETW854" and "after 1 in-band manifests" in d.message


def test_provider_filter_by_eventsource_name() -> None:
    from etwmc.guid import provider_guid

    guid = provider_guid("My-Source")
    recs = [record(5, 0, b"", provider=guid.bytes_le), record(5, 0, b"")]
    events = decoded(TraceDecoder(providers=["my-source"]), recs)
    assert [e["provider"] for e in events] == [str(guid)]


# --------------------------------------------------------------------------- TraceLogging


def schema(name: str, *fields: bytes, tags: bytes = b"\0") -> bytes:
    body = tags + name.encode() + b"\0" + b"".join(fields)
    return struct.pack("<H", len(body) + 2) + body


def field(name: str, *type_bytes: int) -> bytes:
    return name.encode() + b"\0" + bytes(type_bytes)


def test_tracelogging_arrays_structs_and_outtypes() -> None:
    meta = schema(
        "Ev",
        field("n", 0x08),  # UInt32
        field("v", 0x40 | 0x05),  # Int16, counted in the payload
        field("c", 0x20 | 0x04) + struct.pack("<H", 3),  # three UInt8s
        field("h", 0x88, 0x04),  # UInt32 shown as hex
        field("s", 0x98, 0x02),  # a struct (24) of the next two fields
        field("ip", 0x88, 0x08),  # UInt32 as IPv4
        field("port", 0x86, 0x07),  # UInt16 as a port (big-endian)
        field("w", 0xC6, 0x82, 0x01),  # UInt16 chars as a string, with a tag byte
    )
    ev = parse_event(meta)
    payload = (
        struct.pack("<I", 5)
        + struct.pack("<Hhh", 2, -1, 300)
        + bytes([1, 2, 3])
        + struct.pack("<I", 255)
        + bytes([127, 0, 0, 1])
        + bytes([1, 187])
        + struct.pack("<H", 3)
        + "hi\0".encode("utf-16-le")
    )
    got = decode_payload(ev, payload, 8)
    assert got == {
        "n": 5,
        "v": [-1, 300],
        "c": [1, 2, 3],
        "h": "0x000000FF",
        "s": {"ip": "127.0.0.1", "port": 443},
        "w": "hi",
    }
    with pytest.raises(DecodeError, match="bytes left"):
        decode_payload(ev, payload + b"\0", 8)
    with pytest.raises(DecodeError, match="'w'"):
        decode_payload(ev, payload[:-2], 8)


def test_tracelogging_schemas_that_lie() -> None:
    with pytest.raises(DecodeError, match="ends early"):
        parse_event(schema("E", field("x", 0x20 | 0x04)))  # a constant count without a count
    with pytest.raises(DecodeError, match="no NUL"):
        parse_event(struct.pack("<H", 6) + b"\0abc")
    with pytest.raises(DecodeError, match="lacks fields"):
        parse_event(schema("E", field("s", 0x98, 0x05), field("a", 0x04)))
    with pytest.raises(DecodeError, match="does not fit"):
        parse_event(struct.pack("<H", 99) + b"\0E\0")
    ev = parse_event(schema("E", field("a", 0x40 | 0x04)))
    too_many = "field 'a': 200 elements need at least 200 bytes at offset 2, 0 left"
    with pytest.raises(DecodeError, match=too_many):
        decode_payload(ev, struct.pack("<H", 200), 8)
    assert provider_name(struct.pack("<H", 6) + b"abc\0") == "abc"
    assert provider_name(b"\x01") is None


def test_tracelogging_record_with_broken_schema_is_an_error_not_a_crash() -> None:
    recs = [record(0, 0, b"\x01", schema=b"\x05\x00\x00E"), record(0, 0, b"", schema=b"x")]
    events = decoded(TraceDecoder(), recs)
    assert all(e["kind"] == "tracelogging" and "error" in e for e in events)


# --------------------------------------------------------------------------- output


def as_object(ev: Event) -> dict[str, Any]:
    """What an event's JSON line holds, made here without the line writer."""
    head = ev.head

    def guid(raw: bytes) -> str | None:
        return None if not raw or raw == bytes(16) else str(uuid.UUID(bytes_le=raw))

    stamp = None
    if ev.time is not None:
        seconds, frac = divmod(ev.time, 10_000_000)
        with contextlib.suppress(OverflowError):  # past any date: null
            when = dt.datetime(1601, 1, 1) + dt.timedelta(seconds=seconds)
            stamp = when.strftime("%Y-%m-%dT%H:%M:%S") + f".{frac:07d}Z"
    obj = {
        "provider": head.provider,
        "provider_name": head.provider_name,
        "name": head.name,
        **head.descriptor._asdict(),
        "timestamp": stamp,
        "pid": ev.pid,
        "tid": ev.tid,
        "activity_id": guid(ev.activity),
        "related_activity_id": guid(ev.related),
        "kind": head.kind,
        "decoded": ev.decoded,
        "message": ev.message,
    }
    if ev.fields_json is not None:
        obj["fields"] = json.loads(ev.fields_json)
        if ev.trailing_bytes:
            obj["trailing_bytes"] = ev.trailing_bytes
    elif ev.error is not None:
        obj["error"] = ev.error
    return obj


def test_event_json_is_plain_json_and_text_keeps_lines() -> None:
    ev = next(TraceDecoder().events([record(3, 0, b"", classic=True)]))
    line = JsonLines().line(ev)
    assert json.loads(line) == as_object(ev) and "\n" not in line
    ev = ev._replace(fields_json=json.dumps({"a": "x\ny"}), decoded=True)
    (text,) = render([ev], "text")
    assert text.count("\n") == 1 and 'a="x\\ny"' in text
    assert "".join(render([], "json")) == "[]\n"
    assert json.loads("".join(render([ev, ev], "json"))) == [as_object(ev), as_object(ev)]
    with pytest.raises(ValueError, match="render_records"):
        render([ev], "jsonl")  # JSON Lines are render_records', never an array in disguise


def test_summary_lists_reasons() -> None:
    dec = TraceDecoder()
    decoded(dec, [record(3, 0, b""), record(3, 0, b"", classic=True)])
    text = summary_text(dec.counts)
    assert "no metadata for the provider" in text and text.rstrip().endswith("total")


@pytest.mark.parametrize(
    "head, extra",
    [
        ({}, {}),
        ({}, {"decoded": True, "fields_json": '{"q":"a \\"quoted\\"\\\\ tab\\t","é":null}'}),
        ({}, {"decoded": True, "fields_json": "[1,-2]", "trailing_bytes": 3}),
        ({"name": 'we"ird', "provider_name": "Prov\u00e9"}, {"error": "x \u2028 y"}),
        ({"provider": None}, {"message": "line\nbreak", "pid": None, "time": None}),
        ({}, {"activity": bytes(range(16)), "related": bytes(16)}),
        ({}, {"related": bytes(range(16)), "time": 2**62}),  # past any date: null
    ],
)
def test_event_json_equals_the_standard_encoder(
    head: dict[str, Any], extra: dict[str, Any]
) -> None:
    ev = next(TraceDecoder().events([record(9, 1, b"")]))
    ev = ev._replace(head=ev.head._replace(**head), **extra)
    want = as_object(ev)
    writer = JsonLines()
    for _ in range(2):  # the second time from what the writer keeps
        assert writer.line(ev) == json.dumps(want, ensure_ascii=False, separators=(",", ":"))


def test_inband_manifests_are_lowered_without_being_validated() -> None:
    """A trace's own manifests are the provider's: no one reads their diagnostics, so
    neither etwmc's XSD nor its rules are loaded to check them."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from test_decode_etl_parts import MANIFEST, envelope, record\n"
        "from etwmc.decode.trace import TraceDecoder\n"
        "dec = TraceDecoder()\n"
        "events = list(dec.events([record(0xFFFE, 254, envelope(1, 0, MANIFEST)),\n"
        "                          record(1, 1, bytes(4) + b'x\\0\\0\\0')]))\n"
        "assert events[-1].decoded and events[-1].head.kind == 'eventsource', events\n"
        "print(sorted(m for m in ('etwmc.schema', 'etwmc.rules') if m in sys.modules))\n"
    )
    tests = str(Path(__file__).parent)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tests, check=True
    )
    assert out.stdout.strip() == "[]", out.stderr
