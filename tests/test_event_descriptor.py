"""One event descriptor type: what the generators compute, what generated modules and
the runtime declare and unpack, what the WEVT and trace readers read, and what the
decoder carries are all :class:`etwmc.eventdescriptor.EventDescriptor`, read by name."""

from __future__ import annotations

import uuid
from pathlib import Path

from etl_helpers import trace

import etwmc.runtime
from etwmc.decode.etl import open_trace
from etwmc.decode.source import EventFileReader
from etwmc.descriptors import descriptor, enable_pairs
from etwmc.eventdescriptor import EventDescriptor, pack_descriptor, unpack_descriptor
from etwmc.model import Manifest
from etwmc.runtime.eventfile import EventRecord, write_events
from etwmc.validate import check_bytes
from etwmc.wevt import build_wevt
from etwmc.wevt.reader_raw import parse_blob

MANIFEST = b"""<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
 <instrumentation><events>
  <provider name="Desc-Test" guid="{0C6F1D2E-3A4B-4C5D-8E6F-7A8B9C0D1E2F}" symbol="DT"
            resourceFileName="d.dll" messageFileName="d.dll">
   <channels><channel chid="c" name="Desc-Test/Operational" type="Operational"/></channels>
   <keywords><keyword name="K" mask="0x4"/></keywords>
   <tasks><task name="Work" value="7"/></tasks>
   <events>
    <event value="3" version="2" channel="c" level="win:Warning" task="Work"
           opcode="win:Start" keywords="K" symbol="E3"/>
    <event value="4" level="win:Informational" symbol="E4"/>
   </events>
  </provider>
 </events></instrumentation>
</instrumentationManifest>"""


def _model() -> Manifest:
    checked = check_bytes(MANIFEST, "d.man")
    assert checked.ok and checked.manifest is not None, checked.diagnostics
    return checked.manifest


def test_the_generators_descriptor_is_the_runtime_type_with_named_fields() -> None:
    p = _model().providers[0]
    d = descriptor(p, p.events[0])
    assert type(d) is EventDescriptor is etwmc.runtime.EventDescriptor
    assert d == EventDescriptor(
        id=3, version=2, channel=16, level=3, opcode=1, task=7, keyword=0x8000_0000_0000_0004
    )
    assert unpack_descriptor(pack_descriptor(*d)) == d
    pairs, bits = enable_pairs([descriptor(p, e) for e in p.events])
    assert pairs == [(3, 0x8000_0000_0000_0004), (4, 0)] and bits == [0, 1]


def test_the_wevt_reader_reads_each_event_entry_as_a_descriptor() -> None:
    model = _model()
    raw = parse_blob(build_wevt(model))
    p = model.providers[0]
    assert [e.descriptor for e in raw.providers[0].events] == [descriptor(p, e) for e in p.events]


def test_trace_records_and_event_file_records_carry_one(tmp_path: Path) -> None:
    f, reader = open_trace(trace("krabsetw_powershell.etl"))
    with f:
        records = list(reader)
    assert all(type(r.descriptor) is EventDescriptor for r in records)
    ps = [r for r in records if not r.classic]
    assert {r.descriptor.id for r in ps} >= {7937, 40961}
    record = EventRecord(provider_id=uuid.uuid4(), id=9, version=1, level=2, keyword=5)
    assert record.descriptor == EventDescriptor(9, 1, 0, 2, 0, 0, 5)
    write_events(tmp_path / "e.ev", [record])
    with open(tmp_path / "e.ev", "rb") as stream:
        (rec,) = EventFileReader(stream)
    assert rec.descriptor == record.descriptor and rec.provider == record.provider_id.bytes_le
