"""TraceDecoder.json_lines (what `etwmc decode` writes) writes each line as the standard
JSON encoder would, and what the decoder and the line writer keep (routes per
descriptor, heads written, GUID texts, dates) changes no line and no count: on every
real trace, and on records built by hand where provider names change in the middle of
a trace."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import struct
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from etl_helpers import trace
from hypothesis import given, settings
from hypothesis import strategies as st
from test_decode_etl_parts import GUID, MANIFEST, envelope, record, schema

import etwmc.decode.jsonline as jsonline_module
import etwmc.decode.trace as trace_module
from conftest import LARGE_TRACE, SHARED, sized_cases, slow
from etwmc.decode.etl import PassRecord, Record, open_trace
from etwmc.decode.event import EventHead
from etwmc.decode.jsonline import HEAD, TAIL, JsonLines, Stamps
from etwmc.decode.metadata import load_manifest
from etwmc.decode.output import summary_json
from etwmc.decode.trace import TraceDecoder
from etwmc.eventdescriptor import EventDescriptor
from etwmc.model import Manifest

MANIFESTS = (
    "Win10-17134_Microsoft-Windows-DotNETRuntime.xml",
    "Win10-17134_Microsoft-Windows-DotNETRuntimeRundown.xml",
    "Win10-17134_Microsoft-Windows-PowerShell.xml",
)
TRACES = [
    "airbus_AMSITrace.etl",
    "airbus_lxcore_kernel.etl",
    "krabsetw_powershell.etl",
    "perfview_SelfDescribingSingleEvent.etl",
    "perfview_gcevents_PerfViewData.etl",
    "perfview_gcrundownevents_PerfViewData.clrRundown.etl",
    "perfview_primitive-types.etl",
    "syzygy_process_data_64_v3.etl",
    "perfview_net.4.5.2.x86.etl",
]


@contextlib.contextmanager
def nothing_kept() -> Iterator[None]:
    """The decoder and the line writer keep nothing: every route, head, GUID text and
    date is made again for each event."""
    with contextlib.ExitStack() as stack:
        for module, name in (
            (trace_module, "MAX_ROUTES"),
            (trace_module, "MAX_CACHED"),
            (jsonline_module, "MAX_HEADS"),
            (jsonline_module, "MAX_CACHED"),
        ):
            stack.enter_context(mock.patch.object(module, name, 0))
        yield


def both(
    records: Sequence[Record],
    manifests: Sequence[Manifest] = (),
    walked: Sequence[Record | PassRecord] | None = None,
    **kw: Any,
) -> tuple[list[str], list[str], TraceDecoder, TraceDecoder]:
    """The lines of json_lines with what is kept and with nothing kept, and the two
    decoders.  The first reads ``walked`` when given (the same records as the reader's
    walk() yields them: kernel and MOF records as PassRecord), so that its fast paths (the
    pass-through lines, decoded events written without an Event) are held to the
    general one: with no route kept, every record takes it."""
    a = TraceDecoder(manifests, **kw)
    kept = list(a.json_lines(records if walked is None else walked))
    with nothing_kept():
        b = TraceDecoder(manifests, **kw)
        plain = list(b.json_lines(records))
    return kept, plain, a, b


def assert_same(
    records: Sequence[Record],
    manifests: Sequence[Manifest] = (),
    walked: Sequence[Record | PassRecord] | None = None,
    **kw: Any,
) -> None:
    fast, plain, a, b = both(records, manifests, walked, **kw)
    assert len(fast) == len(plain)
    for x, y in zip(fast, plain, strict=True):
        assert x == y
        obj = json.loads(x)
        assert x == json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
        assert list(obj)[: len(HEAD)] == list(HEAD) and set(obj) <= {*HEAD, *TAIL}
    assert summary_json(a.counts) == summary_json(b.counts)
    assert (a.misfits, a.diagnostics) == (b.misfits, b.diagnostics)


@pytest.mark.parametrize(
    "name",
    sized_cases([SHARED / "traces" / n for n in TRACES], limit=LARGE_TRACE, value=lambda p: p.name),
)
def test_real_traces_with_and_without_manifests(name: str) -> None:
    f, reader = open_trace(trace(name))
    with f:
        records = list(reader)
        walked = list(reader.walk())
    models = [load_manifest(str(trace(m)))[0] for m in MANIFESTS]
    assert_same(records, walked=walked)
    assert_same(records, [m for m in models if m is not None], walked=walked)


@slow
def test_real_trace_filtered_by_provider() -> None:
    f, reader = open_trace(trace("perfview_net.4.5.2.x86.etl"))
    with f:
        records = list(reader)
        walked = list(reader.walk())
    kernel_image = "2cb15d1d-5fc1-11d2-abe1-00a0c911f518"
    wanted = ["PerfView", kernel_image, "System.Threading.Tasks.TplEventSource"]
    fast, _, a, _ = both(records, walked=walked, providers=wanted)
    assert_same(records, walked=walked, providers=wanted)
    kinds = {json.loads(line)["kind"] for line in fast}
    assert kinds == {"classic", "eventsource"}


def classic(provider: bytes, opcode: int, **kw: Any) -> Record:
    fields: dict[str, Any] = dict(classic=True, provider=provider, level=0, pid=7, tid=8)
    fields.update(kw)
    return record(0, opcode, b"\x01\x02", **fields)


def test_descriptors_past_the_kept_ones_write_the_same_lines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(trace_module, "MAX_ROUTES", 1)
    f, reader = open_trace(trace("krabsetw_powershell.etl"))
    with f:
        records = list(reader)
    model = load_manifest(str(trace("Win10-17134_Microsoft-Windows-PowerShell.xml")))[0]
    assert model is not None
    assert_same(records, [model])
    assert_same(records, [model], providers=["Microsoft-Windows-PowerShell"])
    a = TraceDecoder([model])
    list(a.json_lines(records))
    assert len(a._routes) == 1


def test_records_take_the_name_and_metadata_their_provider_gets_later() -> None:
    """An EventSource's manifest names its provider and describes its events in the
    middle of the trace: the records of that GUID after it carry the name and decode,
    those before do not."""
    half = len(MANIFEST) // 2
    payload = struct.pack("<i", 5) + "x\0".encode("utf-16-le")
    act = bytes(range(16))
    records = [
        classic(GUID.bytes_le, 1),
        classic(GUID.bytes_le, 1, time=None, pid=None, tid=None),
        record(1, 1, payload),  # no metadata yet
        record(0xFFFE, 254, envelope(2, 0, MANIFEST[:half])),
        classic(GUID.bytes_le, 1),
        record(1, 1, payload, activity=act),
        record(0xFFFE, 254, envelope(2, 1, MANIFEST[half:])),
        classic(GUID.bytes_le, 1),
        classic(GUID.bytes_le, 2, time=-5),
        record(1, 1, payload, activity=act, related=act),  # decoded
        record(1, 1, payload + b"\0"),  # a byte too many
        record(1, 1, payload[:3]),  # cut short
        record(2, 0, b""),  # not in the manifest
    ]
    fast, _, a, _ = both(records)
    events = [json.loads(line) for line in fast]
    names = [e["provider_name"] for e in events]
    assert names == [None] * 6 + ["My-Source"] * 7
    assert [e["decoded"] for e in events[9:]] == [True, True, False, False]
    assert (
        events[9]["fields"] == {"Count": 5, "Text": "x"} and events[9]["message"] == "work 5 on x"
    )
    assert (
        events[9]["related_activity_id"] == events[5]["activity_id"] == str(uuid.UUID(bytes_le=act))
    )
    # a byte more than the metadata describes: decoded, the byte counted (as TDH does)
    assert events[10]["fields"] == {"Count": 5, "Text": "x"} and events[10]["trailing_bytes"] == 1
    assert "'Count'" in events[11]["error"]
    assert "error" not in events[12] and a.misfits == 1
    assert events[1]["timestamp"] is None and events[8]["timestamp"] is None
    assert_same(records)
    assert_same(records, providers=["my-source"])  # filtered by a name it gets later


def test_classic_records_named_by_tracelogging_traits() -> None:
    traits = struct.pack("<H", 9) + b"TlName\0"
    meta = schema("Ev")
    records = [
        classic(GUID.bytes_le, 3),
        record(1, 0, b"", schema=meta, traits=traits),
        classic(GUID.bytes_le, 3),
        classic(GUID.bytes_le, 3, activity=b"\x01" * 16, related=bytes(16)),
    ]
    fast, _, _, _ = both(records)
    assert [json.loads(line)["provider_name"] for line in fast] == [
        None,
        "TlName",
        "TlName",
        "TlName",
    ]
    assert json.loads(fast[3])["activity_id"] == "01010101-0101-0101-0101-010101010101"
    assert_same(records)
    assert_same(records, providers=["tlname"])


def test_counts_past_their_bounds_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    import etwmc.decode.counts as counts_module

    monkeypatch.setattr(counts_module, "MAX_PROVIDERS", 2)
    monkeypatch.setattr(counts_module, "MAX_REASONS", 1)
    other = bytes(range(16))
    records = [
        record(5, 0, b""),  # no metadata: its provider's first reason
        classic(GUID.bytes_le, 1),  # a second reason for the same provider
        classic(other, 1),
        classic(bytes(range(1, 17)), 1),  # a third provider: counted with the others
        classic(b"", 4),  # no provider at all
        classic(other, 1),
        classic(GUID.bytes_le, 1),
    ]
    assert_same(records)
    a = TraceDecoder()
    list(a.json_lines(records))
    assert a.counts[str(GUID)].reasons["other reasons"] == 2


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.integers(0, 3 * 10_000_000),  # second 0 (fewer than 8 digits) and the next
            st.integers(0, 2_650_467_743_999_999_999),  # up to the last second of 9999
        ),
        max_size=20,
    )
)
def test_timestamps_as_datetime_writes_them(times: list[int]) -> None:
    """Each timestamp, whatever came before it (the second kept, or not), is what
    datetime writes for it, with the 7 digits of its 100 ns fraction."""
    stamps = Stamps()
    lines = JsonLines(stamps)
    head = EventHead(None, None, None, EventDescriptor(1), "classic")
    bare = lines.bare_line(head)
    for t in sorted(times) + times:
        seconds, frac = divmod(t, 10_000_000)
        when = dt.datetime(1601, 1, 1) + dt.timedelta(seconds=seconds)
        want = f'"{when:%Y-%m-%dT%H:%M:%S}.{frac:07d}Z"'
        assert stamps.json(t) == want
        assert json.loads(bare(t, 1, 2))["timestamp"] == want[1:-1]


PLAIN_MANIFEST = MANIFEST.replace(b' message="$(string.m)"', b"")


def test_decoded_events_of_a_kept_route(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The events of one kept route, whether its JSON plan writes their fields or not
    (a payload cut short, fields too large), are written as the general path writes
    them."""
    assert PLAIN_MANIFEST != MANIFEST
    path = tmp_path / "plain.man"
    path.write_bytes(PLAIN_MANIFEST)
    model = load_manifest(str(path))[0]
    assert model is not None
    monkeypatch.setattr(trace_module, "MAX_EVENT_JSON", 40)
    payload = struct.pack("<i", 5) + "x\0".encode("utf-16-le")
    act = bytes(range(16))
    records = [
        record(1, 1, payload),  # makes the route
        record(1, 1, payload, activity=act),
        record(1, 1, payload, activity=act, related=act),
        record(1, 1, payload + b"\0\0"),  # two bytes too many
        record(1, 1, payload[:3]),  # cut short
        record(1, 1, struct.pack("<i", 5) + ("y" * 40 + "\0").encode("utf-16-le")),  # too large
        record(1, 1, payload),
    ]
    lines = [json.loads(x) for x in TraceDecoder([model]).json_lines(records)]
    assert [x["decoded"] for x in lines] == [True] * 4 + [False] * 2 + [True]
    assert lines[1]["fields"] == {"Count": 5, "Text": "x"} and lines[1]["message"] is None
    assert (
        lines[2]["related_activity_id"] == lines[1]["activity_id"] == str(uuid.UUID(bytes_le=act))
    )
    assert lines[3]["trailing_bytes"] == 2 and "trailing_bytes" not in lines[6]
    assert "'Count'" in lines[4]["error"] and "40 one event may write" in lines[5]["error"]
    assert_same(records, [model])
