"""The hostile traces of the trust campaign, generated (never committed as binaries):
each is small on disk and asked the decoder for unbounded work, memory or output."""

from __future__ import annotations

import uuid

from etl_builder import (
    compressed_trace,
    envelope,
    event,
    repeated_buffer,
    tl_field,
    tl_schema,
    trace,
)

PROVIDER = uuid.UUID("5b0e7a91-2c4d-4e6f-8a1b-3c5d7e9f0a12")
TL_STRUCT = 24
CCOUNT = 0x20
UINT8 = 2
MAX_CHUNK = 60_000  # bytes of manifest text per manifest event


def nested_struct_arrays(count: int = 65535) -> bytes:
    """A TraceLogging event whose schema nests a struct array of ``count`` elements
    around another, around an empty UInt8 array; its payload is empty."""
    schema = tl_schema(
        "Nested",
        tl_field("outer", TL_STRUCT | CCOUNT, out=1, count=count),
        tl_field("inner", TL_STRUCT | CCOUNT, out=1, count=count),
        tl_field("empty", UINT8 | CCOUNT, count=0),
    )
    return trace([[event(PROVIDER, 1, b"", schema=schema)]])


def manifest_xml(templates: str, events: str, *, guid: uuid.UUID = PROVIDER) -> bytes:
    return f"""<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
 <instrumentation xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <events>
   <provider name="Hostile-Source" guid="{{{guid}}}" resourceFileName="x" messageFileName="x"
             symbol="HostileSource">
    <templates>{templates}</templates>
    <events>{events}</events>
   </provider>
  </events>
 </instrumentation>
</instrumentationManifest>""".encode()


def inband(xml: bytes, *, pid: int = 100, tid: int = 200) -> list[bytes]:
    """The manifest events (id 0xFFFE, opcode 254) that carry ``xml`` in chunks."""
    chunks = [xml[i : i + MAX_CHUNK] for i in range(0, len(xml), MAX_CHUNK)] or [b""]
    return [
        event(PROVIDER, 0xFFFE, envelope(len(chunks), n, c), opcode=254, pid=pid, tid=tid)
        for n, c in enumerate(chunks)
    ]


def struct_of_empty_arrays(count: int = 65535, arrays: int = 98) -> bytes:
    """An in-band manifest whose only template is a struct of ``count`` elements, each
    ``arrays`` arrays of count 0; then an event of it with an empty payload."""
    members = "".join(f'<data name="a{i}" inType="win:UInt8" count="0"/>' for i in range(arrays))
    templates = f'<template tid="T"><struct name="s" count="{count}">{members}</struct></template>'
    events = '<event value="1" version="0" level="win:Informational" template="T"/>'
    xml = manifest_xml(templates, events)
    return trace([[*inband(xml), event(PROVIDER, 1, b"")]])


def expanding_buffers(buffers: int = 64, size: int = (16 << 20) - 0x48 - 48) -> bytes:
    """Compressed buffers that each expand to ``size`` bytes of small records."""
    record = event(PROVIDER, 7, b"")
    size -= size % len(record)
    return compressed_trace([repeated_buffer(record, size) for _ in range(buffers)])


def big_inband_manifest(events: int = 23_000) -> bytes:
    """An in-band manifest of ``events`` events, each with a template of its own (7 MB
    of XML for 23,000), then one event of it."""
    templates = "".join(
        f'<template tid="T{i}"><data name="Count{i}" inType="win:UInt32"/>'
        f'<data name="Text{i}" inType="win:UnicodeString"/>'
        f'<data name="Flag{i}" inType="win:Boolean"/></template>'
        for i in range(events)
    )
    body = "".join(
        f'<event value="{i + 1}" version="0" level="win:Informational" template="T{i}" '
        f'symbol="Event{i}_With_A_Longer_Symbol_Name_For_Size"/>'
        for i in range(events)
    )
    xml = manifest_xml(templates, body)
    records = inband(xml)
    payload = (5).to_bytes(4, "little") + "hi\0".encode("utf-16-le") + bytes(4)
    groups = [records[i : i + 200] for i in range(0, len(records), 200)]
    return trace([*groups, [event(PROVIDER, 1, payload)]])
