"""`etwmc decode TRACE.etl` on real traces (../shared/traces).

Expected values come from reading the traces independently of etwmc's decoders: the
container library (dissect.etl) gives each record, the user data is cut out and its
strings and integers unpacked by hand in the test.
"""

from __future__ import annotations

import datetime as dt
import json
import struct
import uuid
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from etl_helpers import Raw, read_raw, trace, utf16_strings

from conftest import slow
from etwmc.cli import main
from etwmc.decode.etl import PassRecord, open_trace, pass_kind
from etwmc.decode.metadata import load_manifest
from etwmc.decode.trace import TraceDecoder

POWERSHELL = uuid.UUID("a0c1853b-5c40-4b15-8766-3cf1c58f985a")
RUNDOWN = uuid.UUID("a669021c-c450-4609-a035-5af59af4df18")
X86 = "perfview_net.4.5.2.x86.etl"


def decode(name: str, *manifests: str, providers: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    models = []
    for m in manifests:
        model, _ = load_manifest(str(trace(m)))
        assert model is not None
        models.append(model)
    f, reader = open_trace(trace(name))
    with f:
        lines = TraceDecoder(models, providers=providers).json_lines(reader)
        return [json.loads(line) for line in lines]


@cache
def raw(name: str) -> list[Raw]:
    return read_raw(trace(name))


@cache
def x86_events() -> list[dict[str, Any]]:
    return decode(X86)


ALL = [
    "airbus_AMSITrace.etl",
    "airbus_lxcore_kernel.etl",
    "krabsetw_powershell.etl",
    "perfview_SelfDescribingSingleEvent.etl",
    "perfview_gcevents_PerfViewData.etl",
    "perfview_gcrundownevents_PerfViewData.clrRundown.etl",
    "perfview_primitive-types.etl",
    "syzygy_process_data_64_v3.etl",
]


# --------------------------------------------------------------------------- container


@pytest.mark.parametrize("name", ALL)
def test_records_match_the_container_library(name: str) -> None:
    """Same records, same order, same user data and provider GUIDs (in the right byte
    order) as an independent reading; compressed traces included."""
    f, reader = open_trace(trace(name))
    with f:
        mine = list(reader)
    theirs = raw(name)
    assert len(mine) == len(theirs)
    for a, b in zip(mine, theirs, strict=True):
        assert a.classic == (not b.event_header)
        if b.event_header:
            assert uuid.UUID(bytes_le=a.provider) == b.provider
            assert (a.descriptor.id, a.descriptor.opcode) == (b.id, b.opcode)
            assert a.data == b.user_data
            assert bool(a.schema) == (11 in b.ext_types)
        else:
            assert a.data == b.user_data


@pytest.mark.parametrize("name", ALL)
def test_walk_passes_kernel_and_mof_records_without_their_payload(name: str) -> None:
    """walk() yields what iteration yields, but a PassRecord for each kernel and classic
    MOF record: the same provider, descriptor, time and ids, through its kind."""
    f, reader = open_trace(trace(name))
    with f:
        whole = list(reader)
        walked = list(reader.walk())
    assert len(walked) == len(whole)
    passed = 0
    for w, r in zip(walked, whole, strict=True):
        if isinstance(w, PassRecord):
            passed += 1
            assert r.classic and not r.activity and not r.related and not r.schema
            assert pass_kind(w.kind) == (r.provider, r.descriptor)
            assert (w.time, w.pid, w.tid) == (r.time, r.pid, r.tid)
        else:
            assert w == r
    # WPP messages are Records still (the traces here hold none)
    assert passed == sum(r.classic for r in whole)


@slow
def test_records_of_the_compressed_x86_trace() -> None:
    f, reader = open_trace(trace(X86))
    with f:
        mine = list(reader)
    theirs = raw(X86)
    assert len(mine) == len(theirs) == 168_298
    assert sum(not r.classic for r in mine) == sum(r.event_header for r in theirs) == 40_498
    assert all(a.data == b.user_data for a, b in zip(mine, theirs, strict=True))
    assert {r.pointer_size for r in mine if not r.classic} == {4, 8}


def test_timestamps_agree_with_the_container_library() -> None:
    """The library's own FILETIME of each record, shown to the 100 ns."""
    from dissect.etl.etl import ETL

    path = trace("krabsetw_powershell.etl")
    with path.open("rb") as f:
        etl = ETL(f)
        theirs = [etl.get_filetime_for_event(rec.header.time_delta) for rec in etl]
    events = decode("krabsetw_powershell.etl")
    assert len(events) == len(theirs)
    epoch = dt.datetime(1601, 1, 1, tzinfo=dt.UTC)
    for ev, filetime in zip(events, theirs, strict=True):
        stamp = ev["timestamp"]
        assert stamp.endswith("Z") and len(stamp.split(".")[1]) == 8  # 7 digits, then Z
        whole = dt.datetime.fromisoformat(stamp[:19] + "+00:00")
        seconds = (whole - epoch) // dt.timedelta(seconds=1)
        assert seconds * 10_000_000 + int(stamp[20:27]) == filetime


# --------------------------------------------------------------------------- manifest-based


def test_all_powershell_events_decode_with_their_manifest() -> None:
    name = "krabsetw_powershell.etl"
    events = decode(name, "Win10-17134_Microsoft-Windows-PowerShell.xml")
    ps = [(e, r) for e, r in zip(events, raw(name), strict=True) if e["kind"] == "manifest"]
    assert len(ps) == 112
    assert {e["provider"] for e, _ in ps} == {str(POWERSHELL)}
    assert all(e["decoded"] and "error" not in e for e, _ in ps)
    assert {e["provider_name"] for e, _ in ps} == {"Microsoft-Windows-PowerShell"}
    checked = 0
    for ev, r in ps:
        if ev["id"] in (7937, 7942, 53504):  # templates of UnicodeStrings only
            assert list(ev["fields"].values()) == utf16_strings(r.user_data)
            checked += 1
    assert checked > 50
    starts = [e for e, _ in ps if e["id"] == 40961]
    assert starts and all(e["fields"] == {} for e in starts)


def test_powershell_field_values_read_by_hand() -> None:
    name = "krabsetw_powershell.etl"
    events = decode(name, "Win10-17134_Microsoft-Windows-PowerShell.xml")
    first = next((e, r) for e, r in zip(events, raw(name), strict=True) if e["id"] == 53504)
    ev, r = first
    param1, param2 = utf16_strings(r.user_data)
    assert ev["fields"] == {"param1": param1, "param2": param2}
    assert param1.isdigit() and param2 == "DefaultAppDomain"
    assert ev["pid"] > 0 and ev["tid"] > 0 and ev["level"] == 4


def _method_events(events: list[dict[str, Any]], name: str) -> Iterator[tuple[dict, Raw]]:
    for ev, r in zip(events, raw(name), strict=True):
        if ev["provider"] == str(RUNDOWN) and ev["id"] == 144 and ev["version"] == 1:
            yield ev, r


def test_rundown_integers_and_strings_read_by_hand() -> None:
    """MethodDCEndVerbose v1: u64 MethodID, ModuleID, MethodStartAddress; u32 size,
    token, flags; three UnicodeStrings; u16 ClrInstanceID."""
    name = "perfview_gcrundownevents_PerfViewData.clrRundown.etl"
    events = decode(name, "Win10-17134_Microsoft-Windows-DotNETRuntimeRundown.xml")
    seen = 0
    for ev, r in _method_events(events, name):
        ints = struct.unpack_from("<QQQIII", r.user_data)
        strings = r.user_data[36:-2].decode("utf-16-le").split("\0")[:3]
        clr = struct.unpack("<H", r.user_data[-2:])[0]
        f = ev["fields"]
        got = (f["MethodID"], f["ModuleID"], f["MethodStartAddress"], f["MethodSize"])
        assert got == ints[:4]
        assert (f["MethodToken"], f["MethodFlags"]) == ints[4:]
        assert [f["MethodNamespace"], f["MethodName"], f["MethodSignature"]] == strings
        assert f["ClrInstanceID"] == clr
        seen += 1
    assert seen > 10


def test_rundown_decodes_alike_from_the_manifest_and_its_compiled_temp_bin(
    tmp_path: Path,
) -> None:
    from etwmc.wevt import build_message_tables, build_wevt

    name = "perfview_gcrundownevents_PerfViewData.clrRundown.etl"
    man = trace("Win10-17134_Microsoft-Windows-DotNETRuntimeRundown.xml")
    model, _ = load_manifest(str(man))
    assert model is not None
    (tmp_path / "rdTEMP.BIN").write_bytes(build_wevt(model))
    ((_, table),) = build_message_tables(model)
    (tmp_path / "rd_MSG00001.bin").write_bytes(table)
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert main(["decode", str(trace(name)), "--manifest", str(man), "-o", str(a)]) == 0
    rc = main(["decode", str(trace(name)), "--wevt", str(tmp_path / "rdTEMP.BIN"),
               "--messages", str(tmp_path / "rd_MSG00001.bin"), "-o", str(b)])  # fmt: skip
    assert rc == 0
    assert a.read_bytes() == b.read_bytes()
    events = [json.loads(line) for line in a.read_text(encoding="utf-8").splitlines()]
    rundown = [e for e in events if e["provider"] == str(RUNDOWN)]
    assert len(rundown) == 110
    # ids 10 and 280 are not in the 1803 manifest: no metadata, so no error either
    missing = [e for e in rundown if not e["decoded"]]
    assert sorted(e["id"] for e in missing) == [10, 280]
    assert not any("error" in e for e in rundown)


def test_rundown_decodes_alike_from_a_resource_dll(tmp_path: Path) -> None:
    from etwmc.pe import resource_dll

    name = "perfview_gcrundownevents_PerfViewData.clrRundown.etl"
    man = trace("Win10-17134_Microsoft-Windows-DotNETRuntimeRundown.xml")
    model, _ = load_manifest(str(man))
    assert model is not None
    dll = tmp_path / "rundown.dll"
    dll.write_bytes(resource_dll(model))
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert main(["decode", str(trace(name)), "--manifest", str(man), "-o", str(a)]) == 0
    assert main(["decode", str(trace(name)), "--dll", str(dll), "-o", str(b)]) == 0
    assert a.read_bytes() == b.read_bytes()


def test_gc_events_that_do_not_fit_say_why() -> None:
    name = "perfview_gcevents_PerfViewData.etl"
    events = decode(name, "Win10-17134_Microsoft-Windows-DotNETRuntime.xml")
    clr = [e for e in events if e["provider"] == "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4"]
    assert len(clr) == 69
    # 49 fit the manifest exactly (as counted in ../shared/traces/README.md); two events
    # 204 v3 are longer than it describes: decoded as TDH does, the rest counted
    exact = [e for e in clr if e["decoded"] and "trailing_bytes" not in e]
    longer = [e for e in clr if "trailing_bytes" in e]
    assert len(exact) == 49
    assert [(e["id"], e["version"], e["trailing_bytes"], e["decoded"]) for e in longer] == [
        (204, 3, 360, True)
    ] * 2
    for e in clr:
        assert ("fields" in e) == e["decoded"]
        if "error" in e:
            assert not e["decoded"] and f"event {e['id']}" in e["error"]


# --------------------------------------------------------------------------- EventSource


def _inband_manifests() -> dict[uuid.UUID, ET.Element]:
    """Each EventSource's manifest, joined by hand from its manifest events."""
    chunks: dict[uuid.UUID, list[bytes]] = {}
    for r in raw(X86):
        if r.event_header and r.id == 0xFFFE and r.opcode == 254:
            fmt, _, _, magic, total, number = struct.unpack_from("<BBBBHH", r.user_data)
            assert (fmt, magic) == (1, 0x5B)
            if number == 0:
                chunks[r.provider] = []  # type: ignore[index]
            chunks[r.provider].append(r.user_data[8:])  # type: ignore[index]
    ns = "{http://schemas.microsoft.com/win/2004/08/events}"
    out = {}
    for guid, parts in chunks.items():
        root = ET.fromstring(b"".join(parts))
        out[guid] = next(root.iter(f"{ns}provider"))
    return out


_FIXED = {"win:UInt8": "B", "win:UInt16": "H", "win:UInt32": "I", "win:UInt64": "Q",
          "win:Int32": "i", "win:Int64": "q", "win:Boolean": "i"}  # fmt: skip


@slow
def test_eventsource_providers_decode_from_their_inband_manifests() -> None:
    ns = "{http://schemas.microsoft.com/win/2004/08/events}"
    manifests = _inband_manifests()
    assert len(manifests) == 3
    events = x86_events()
    by_hand = 0
    for guid, provider in manifests.items():
        templates = {t.get("tid"): t for t in provider.iter(f"{ns}template")}
        layout = {}
        for e in provider.iter(f"{ns}event"):
            t = templates.get(e.get("template"))
            fields = [] if t is None else list(t.iter(f"{ns}data"))
            layout[(int(e.get("value", "0")), int(e.get("version", "0")))] = fields
        mine = [(e, r) for e, r in zip(events, raw(X86), strict=True) if r.provider == guid]
        assert mine and all(e["kind"] == "eventsource" for e, _ in mine)
        assert {e["provider_name"] for e, _ in mine} == {provider.get("name")}
        for ev, r in mine:
            if ev["id"] == 0xFFFE:
                assert ev["decoded"] and ev["fields"]["Magic"] == 0x5B
                continue
            fields = layout[(ev["id"], ev["version"])]
            types = [d.get("inType") for d in fields]
            fixed = all(t in _FIXED for t in types)
            fmt = "<" + "".join(_FIXED[t] for t in types) if fixed else ""  # type: ignore[index]
            if fixed and struct.calcsize(fmt) < len(r.user_data):  # a later version's payload
                extra = len(r.user_data) - struct.calcsize(fmt)
                assert ev["decoded"] and ev["trailing_bytes"] == extra
                assert list(ev["fields"]) == [d.get("name") for d in fields]
                continue
            if fixed and struct.calcsize(fmt) > len(r.user_data):
                assert not ev["decoded"] and "needs" in ev["error"]
                continue
            if fixed and not any(d.get("map") for d in fields):
                values = struct.unpack(fmt, r.user_data)
                values = tuple(
                    bool(v) if t == "win:Boolean" else v for v, t in zip(values, types, strict=True)
                )
                assert ev["fields"] == dict(
                    zip([d.get("name") for d in fields], values, strict=True)
                )
                by_hand += 1
            else:
                assert ev["decoded"], ev.get("error")
                assert list(ev["fields"]) == [d.get("name") for d in fields]
    assert by_hand > 10  # the by-hand path ran


# --------------------------------------------------------------------------- TraceLogging


def test_tracelogging_primitive_types_read_by_hand() -> None:
    name = "perfview_primitive-types.etl"
    events = decode(name)
    tl = [(e, r) for e, r in zip(events, raw(name), strict=True) if e["kind"] == "tracelogging"]
    assert len(tl) == 5
    for ev, r in tl:
        assert ev["decoded"] and ev["name"] == "PrimitiveTypesTest"
        assert ev["provider_name"] == "solar_system"
        d = r.user_data
        end = d.index(b"\0")
        text = d[:end].decode("ascii")
        boolean, char, i16, i32, u16, u32, i64, u64 = struct.unpack_from("<BBhiHIQQ", d, end + 1)
        guid = uuid.UUID(bytes_le=d[end + 31 : end + 47])
        (filetime,) = struct.unpack_from("<Q", d, end + 47)
        f = ev["fields"]
        assert (f["string_type"], f["boolean_type"], f["char_type"]) == (
            text,
            bool(boolean),
            chr(char),
        )
        assert (f["int16_type"], f["int32_type"], f["uint16_type"], f["uint32_type"]) == (
            i16, i32, u16, u32,
        )  # fmt: skip
        assert (f["int64_type"], f["uint64_type"]) == (i64, u64)  # the schema says UInt64 twice
        assert f["guid_type"] == "{" + str(guid).upper() + "}"
        when = dt.datetime(1601, 1, 1) + dt.timedelta(microseconds=filetime // 10)
        assert f["file_time_type"].startswith(when.strftime("%Y-%m-%dT%H:%M:%S"))
        assert list(f) == [
            "string_type", "boolean_type", "char_type", "int16_type", "int32_type",
            "uint16_type", "uint32_type", "int64_type", "uint64_type", "guid_type",
            "file_time_type", "system_time_type",
        ]  # fmt: skip


def test_tracelogging_amsi_scripts_read_by_hand() -> None:
    name = "airbus_AMSITrace.etl"
    events = decode(name)
    tl = [(e, r) for e, r in zip(events, raw(name), strict=True) if e["kind"] == "tracelogging"]
    assert len(tl) == 19
    for ev, r in tl:
        assert ev["decoded"] and ev["name"] == "AmsiScript"
        assert ev["provider_name"] == "AmsiTrace"
        engine, script, rest = r.user_data.decode("utf-16-le").split("\0", 2)
        (count,) = struct.unpack_from("<H", rest.encode("utf-16-le"))
        raw_script = rest.encode("utf-16-le")[2 : 2 + 2 * count].decode("utf-16-le")
        assert ev["fields"] == {"Engine": engine, "Script": script, "Raw Script": raw_script}


def test_tracelogging_structs_and_kernel_events() -> None:
    events = decode("perfview_SelfDescribingSingleEvent.etl")
    (tl,) = [e for e in events if e["kind"] == "tracelogging"]
    assert tl["decoded"] and tl["provider_name"] == "MySource" and tl["name"] == "TestEvent"
    assert tl["fields"] == {"a": {"b": "Hello", "c": "World!"}}
    lx = [e for e in decode("airbus_lxcore_kernel.etl") if e["kind"] == "tracelogging"]
    assert len(lx) == 2 and all(e["decoded"] and e["name"] == "BreakPoint" for e in lx)
    assert {e["provider_name"] for e in lx} == {"Microsoft.Windows.Subsystem.LxCore"}


# --------------------------------------------------------------------------- classic, CLI


def test_classic_only_trace_passes(capsys: pytest.CaptureFixture[str]) -> None:
    path = trace("syzygy_process_data_64_v3.etl")
    assert main(["decode", str(path)]) == 0
    out, err = capsys.readouterr()
    events = [json.loads(line) for line in out.splitlines()]
    assert len(events) == len(raw(path.name))
    for e in events:
        assert e["kind"] == "classic" and e["decoded"] is False
        assert "error" not in e and "fields" not in e
    process = "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c"  # the kernel's Process events
    assert process in {e["provider"] for e in events}
    assert err == ""


KEYS = ["provider", "provider_name", "name", "id", "version", "channel", "level", "opcode", "task",
        "keyword", "timestamp", "pid", "tid", "activity_id", "related_activity_id", "kind",
        "decoded", "message"]  # fmt: skip


def test_jsonl_keys_and_types(tmp_path: Path) -> None:
    out = tmp_path / "e.jsonl"
    path = trace("krabsetw_powershell.etl")
    man = trace("Win10-17134_Microsoft-Windows-PowerShell.xml")
    assert main(["decode", str(path), "--manifest", str(man), "-o", str(out)]) == 0
    for line in out.read_text(encoding="utf-8").splitlines():
        e = json.loads(line)
        assert list(e)[: len(KEYS)] == KEYS
        assert set(e) - set(KEYS) <= {"fields", "error"}
        for k in ("id", "version", "level", "opcode", "task", "keyword"):
            assert isinstance(e[k], int)
        assert e["timestamp"].endswith("Z") and e["kind"] in ("manifest", "classic")
        uuid.UUID(e["provider"])
        assert e["provider"] == e["provider"].lower() and "{" not in e["provider"]
    assert not list(tmp_path.glob(".e.jsonl.*"))  # the temporary file was renamed


def test_formats_summary_and_provider_filter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(trace("perfview_primitive-types.etl"))
    assert main(["decode", path, "--format", "json"]) == 0
    events = json.loads(capsys.readouterr().out)
    assert len(events) == 7
    assert main(["decode", path, "--provider", "solar_system", "--format", "text"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 5 and all("solar_system PrimitiveTypesTest" in ln for ln in lines)
    guid = events[-1]["provider"]
    assert main(["decode", path, "--provider", "{" + guid.upper() + "}"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 5
    assert main(["decode", path, "--summary", "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["events"], summary["decoded"]) == (7, 5)
    (sol,) = [p for p in summary["providers"] if p["provider_name"] == "solar_system"]
    assert sol["kinds"] == {"tracelogging": 5} and sol["not_decoded"] == {}
    out = tmp_path / "x.jsonl"
    assert main(["decode", path, "--summary", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "solar_system" in text and text.rstrip().endswith("total")
    assert len(out.read_text(encoding="utf-8").splitlines()) == 7


def test_output_is_deterministic(tmp_path: Path) -> None:
    path = str(trace("airbus_AMSITrace.etl"))
    a, b = tmp_path / "a", tmp_path / "b"
    assert main(["decode", path, "-o", str(a)]) == 0
    assert main(["decode", path, "-o", str(b)]) == 0
    assert a.read_bytes() == b.read_bytes()


@slow
def test_eventsource_counts_of_the_x86_trace() -> None:
    counts: dict[str, list[int]] = {}
    for e in x86_events():
        if e["kind"] == "eventsource":
            c = counts.setdefault(e["provider_name"], [0, 0])
            c[0] += 1
            c[1] += e["decoded"]
    names = {p.get("name") for p in _inband_manifests().values()}
    assert set(counts) == names
    assert all(decoded > 0 for _, decoded in counts.values())


def test_progress_bar_only_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io
    import sys

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    term = Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    assert main(["decode", str(trace("perfview_primitive-types.etl"))]) == 0
    out = capsys.readouterr().out
    assert "\r[" in term.getvalue() and "events" in term.getvalue()
    assert term.getvalue().endswith("\r")  # the bar is cleared at the end
    assert "\r" not in out and len(out.splitlines()) == 7
