"""Hostile traces stay bounded in time, memory and output (generated here, never
committed); decoding follows TDH where payloads and metadata disagree; what a trace names
cannot forge lines or terminal sequences in the human-readable outputs."""

from __future__ import annotations

import json
import struct
import uuid
from pathlib import Path

import hostile_traces as hostile
import pytest
from etl_builder import event, tl_field, tl_schema, trace

import etwmc.decode.output as output_module
import etwmc.decode.trace as trace_module
from etwmc.cli import main

UINT32 = 8
UNICODE = 1


def decode(
    tmp_path: Path, data: bytes, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, list[dict], str]:
    path = tmp_path / "t.etl"
    path.write_bytes(data)
    out = tmp_path / "out.jsonl"
    rc = main(["decode", str(path), "-o", str(out), *args])
    err = capsys.readouterr().err
    assert "internal error" not in err and "Traceback" not in err, err
    lines = out.read_text(encoding="utf-8").splitlines() if out.exists() else []
    return rc, [json.loads(line) for line in lines], err


def test_nested_struct_arrays_of_empty_elements_are_an_error_for_the_event(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc, events, err = decode(tmp_path, hostile.nested_struct_arrays(), capsys)
    (ev,) = [e for e in events if e["kind"] == "tracelogging"]
    assert not ev["decoded"] and "fields" not in ev
    assert "field 'inner': the event's arrays hold more than 65536 values" in ev["error"]
    assert rc == 1 and "ETW855" in err


def test_counts_larger_than_the_payload_are_an_error_before_any_loop() -> None:
    from etwmc.decode.tracelogging import decode_payload, parse_event

    schema = tl_schema("E", tl_field("a", UINT32 | 0x20, count=65535))
    with pytest.raises(ValueError, match="65535 elements need at least 262140 bytes"):
        decode_payload(parse_event(schema), bytes(8), 8)


def test_inband_struct_of_empty_arrays_is_an_error_for_the_event(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc, events, err = decode(tmp_path, hostile.struct_of_empty_arrays(), capsys)
    last = events[-1]
    assert last["kind"] == "eventsource" and not last["decoded"]
    assert "the event's arrays hold more than 65536 values" in last["error"]
    assert rc == 1


def test_expanding_buffers_stop_at_the_output_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(output_module, "OUTPUT_FLOOR", 1 << 20)
    data = hostile.expanding_buffers(buffers=4, size=1 << 20)
    rc, events, err = decode(tmp_path, data, capsys)
    limit = (1 << 20) + 256 * len(data)
    written = (tmp_path / "out.jsonl").stat().st_size
    assert rc == 1 and "ETW856" in err and f"after {limit} characters" in err
    assert limit - 1000 < written <= limit
    assert events and all(e["id"] == 7 for e in events[1:])


def test_a_manifest_larger_than_one_may_be_is_not_compiled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = hostile.big_inband_manifest(events=4000)  # 1.2 MB of XML
    rc, events, err = decode(tmp_path, data, capsys)
    assert "ETW854" in err and "grows beyond 1048576 bytes" in err
    assert not events[-1]["decoded"] and "error" not in events[-1]  # no metadata: no error
    assert rc == 0


def test_inband_manifests_share_one_budget(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    xml = hostile.manifest_xml(
        '<template tid="T"><data name="N" inType="win:UInt32"/></template>',
        '<event value="1" version="0" level="win:Informational" template="T"/>',
    )
    monkeypatch.setattr(trace_module, "MAX_INBAND_BYTES", len(xml) + 10)
    other = xml.replace(b"<event ", b'<event symbol="Changed" ')  # a second manifest
    records = [*hostile.inband(xml), *hostile.inband(other), event(hostile.PROVIDER, 1, bytes(4))]
    rc, events, err = decode(tmp_path, trace([records]), capsys)
    assert "ETW854" in err and "not compiled" in err and err.count("ETW854") == 1
    assert events[-1]["decoded"] and events[-1]["fields"] == {"N": 0}  # the first one serves
    assert rc == 0


def test_interleaved_manifest_chunks_join_per_process_and_thread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    xml = hostile.manifest_xml(
        '<template tid="T"><data name="N" inType="win:UInt32"/></template>',
        '<event value="1" version="0" level="win:Informational" template="T"/>',
    )
    a = hostile.inband(xml + b" " * 70_000, pid=1, tid=10)  # two chunks each
    b = hostile.inband(xml + b"\n" * 70_000, pid=2, tid=20)
    assert len(a) == len(b) == 2
    records = [a[0], b[0], a[1], b[1], event(hostile.PROVIDER, 1, struct.pack("<I", 9))]
    rc, events, err = decode(tmp_path, trace([records]), capsys)
    assert "ETW854" not in err, err
    assert events[-1]["decoded"] and events[-1]["fields"] == {"N": 9}
    assert rc == 0


def _tl_trace(provider_name: str, event_name: str, field_name: str) -> bytes:
    schema = tl_schema(event_name, tl_field(field_name, UNICODE))
    traits = struct.pack("<H", 3 + len(provider_name.encode())) + provider_name.encode() + b"\0"
    payload = "v\x1b[2J\0".encode("utf-16-le")
    return trace([[event(hostile.PROVIDER, 1, payload, schema=schema, traits=traits)] * 2])


def test_text_output_and_summary_escape_control_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.etl"
    path.write_bytes(_tl_trace("Evil\nProvider\x1b]0;title\x07", "Ev\r\nforged line", "f\x1b"))
    assert main(["decode", str(path), "--format", "text"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert len(lines) == 3  # the header record and two events, nothing forged
    assert "\x1b" not in out and "\x07" not in out and "\r" not in out
    assert "Evil\\x0aProvider\\x1b]0;title\\x07 Ev\\x0d\\x0aforged line" in lines[1]
    assert main(["decode", str(path), "--summary"]) == 0
    summary = capsys.readouterr().out
    assert "\x1b" not in summary and "Evil\\x0aProvider" in summary
    assert len(summary.splitlines()) == 5  # head, two providers, total... and no forged row


def test_oversized_fields_become_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(trace_module, "MAX_EVENT_JSON", 20)
    rc, events, err = decode(tmp_path, _tl_trace("P", "E", "f" * 30), capsys)
    tl = [e for e in events if e["kind"] == "tracelogging"]
    assert len(tl) == 2 and all(not e["decoded"] and "fields" not in e for e in tl)
    assert all("more than the 20 one event may write" in e["error"] for e in tl)
    assert "ETW857" in err and "2 event(s)" in err and rc == 0


def test_a_provider_that_matches_nothing_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _tl_trace("P", "E", "f")
    rc, events, err = decode(tmp_path, data, capsys, "--provider", "Typo-Name")
    assert rc == 0 and events == []
    assert "ETW858" in err and "--provider 'Typo-Name' matches no provider" in err
    rc, events, err = decode(
        tmp_path, data, capsys, "--provider", str(hostile.PROVIDER), "--provider", "Other"
    )
    assert len(events) == 2 and "ETW858" in err and "'Other'" in err
    assert str(hostile.PROVIDER) not in err


def test_trailing_bytes_are_decoded_and_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    xml = hostile.manifest_xml(
        '<template tid="T"><data name="N" inType="win:UInt32"/></template>',
        '<event value="1" version="0" level="win:Informational" template="T"/>',
    )
    records = [
        *hostile.inband(xml),
        event(hostile.PROVIDER, 1, struct.pack("<IHH", 5, 6, 7)),  # 4 bytes more
        event(hostile.PROVIDER, 1, b"\1\0"),  # shorter: an error
    ]
    data = trace([records])
    rc, events, err = decode(tmp_path, data, capsys)
    longer, shorter = events[-2:]
    assert longer["decoded"] and longer["fields"] == {"N": 5} and longer["trailing_bytes"] == 4
    assert not shorter["decoded"] and "needs 4 bytes" in shorter["error"]
    assert rc == 1
    path = tmp_path / "t.etl"
    assert main(["decode", str(path), "--summary"]) == 1
    text = capsys.readouterr().out
    assert "1  decoded, with bytes after the described fields" in text
    assert main(["decode", str(path), "--summary", "--format", "json"]) == 1
    summary = json.loads(capsys.readouterr().out)
    (mine,) = [p for p in summary["providers"] if p["provider"] == str(hostile.PROVIDER)]
    assert mine["trailing_bytes"] == 1 and mine["decoded"] == 2


def test_provider_guid_of_the_builder_is_stable() -> None:
    assert hostile.PROVIDER == uuid.UUID("5b0e7a91-2c4d-4e6f-8a1b-3c5d7e9f0a12")
