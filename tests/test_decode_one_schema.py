"""One JSON Lines schema for every decode input: events the runtime wrote to an event
file, and the same events in an .etl trace, decode to the same JSON, key by key; the
text format and the summary read both alike."""

from __future__ import annotations

import json
import logging
import uuid
from pathlib import Path

import pytest
from etl_builder import START, event, trace

from etwmc.cli import main
from etwmc.guid import provider_guid
from etwmc.runtime import EtwLoggingHandler
from etwmc.runtime.backends.inproc import Session
from etwmc.runtime.eventfile import EventRecord, read_events
from etwmc.runtime.providers import python_logging

MANIFEST = Path(python_logging.__file__).parent / "python_logging.man"
GUID = provider_guid("Etwmc-Python-Logging")
KEYS = [
    "provider", "provider_name", "name", "id", "version", "channel", "level", "opcode", "task",
    "keyword", "timestamp", "pid", "tid", "activity_id", "related_activity_id", "kind",
    "decoded", "message", "fields",
]  # fmt: skip


def _as_trace_record(r: EventRecord) -> bytes:
    related = None if r.related_activity_id is None else r.related_activity_id.bytes_le
    return event(
        r.provider_id, r.id, r.user_data, version=r.version, channel=r.channel, level=r.level,
        opcode=r.opcode, task=r.task, keyword=r.keyword, pid=r.process_id, tid=r.thread_id,
        ticks=r.timestamp - START, activity=r.activity_id.bytes_le, related=related,
        pointer=r.pointer_size,
    )  # fmt: skip


@pytest.fixture
def inputs(tmp_path: Path, etw_session: Session) -> tuple[Path, Path]:
    """An event file the runtime wrote, and a trace holding the same events."""
    events = tmp_path / "log.etwmc"
    logger = logging.Logger(f"etwmc.test.{uuid.uuid4().hex[:8]}", level=1)
    with etw_session.backend.session("file", path=events) as s:
        s.enable(GUID, level=5)
        handler = EtwLoggingHandler(backend=etw_session.backend)
        logger.addHandler(handler)
        logger.warning("disk %s is full", "C:")
        logger.error("line one\nline two")
        logger.removeHandler(handler)
        handler.close()
    records = list(read_events(events))
    assert len(records) == 2
    etl = tmp_path / "log.etl"
    etl.write_bytes(trace([[_as_trace_record(r) for r in records]]))
    return events, etl


def _decode(path: Path, *args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    rc = main(["decode", str(path), "--manifest", str(MANIFEST), *args])
    out, err = capsys.readouterr()
    assert "internal error" not in err
    return rc, out


def test_an_event_file_and_a_trace_decode_to_the_same_json(
    inputs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    events, etl = inputs
    rc, text = _decode(events, capsys=capsys)
    from_file = [json.loads(line) for line in text.splitlines()]
    assert rc == 0
    rc, text = _decode(etl, capsys=capsys)
    from_trace = [json.loads(line) for line in text.splitlines()]
    assert rc == 0
    from_trace = [e for e in from_trace if e["kind"] != "classic"]  # the file header record
    assert len(from_file) == len(from_trace) == 2
    for a, b in zip(from_file, from_trace, strict=True):
        assert list(a) == list(b) == KEYS
        for key in KEYS:
            assert a[key] == b[key], key
            assert type(a[key]) is type(b[key]), key
    first = from_file[0]
    assert first["provider"] == str(GUID) and first["provider_name"] == "Etwmc-Python-Logging"
    assert first["kind"] == "manifest" and first["decoded"] is True
    assert first["fields"]["Message"] == "disk C: is full" and first["level"] == 3
    assert first["timestamp"].endswith("Z") and first["activity_id"] is None


@pytest.mark.parametrize("which", [0, 1])
def test_text_format_and_summary_read_both_inputs(
    which: int, inputs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path = inputs[which]
    rc, text = _decode(path, "--format", "text", capsys=capsys)
    lines = [line for line in text.splitlines() if "[classic]" not in line]
    assert rc == 0 and len(lines) == 2
    assert "Etwmc-Python-Logging" in lines[0] and "[manifest]" in lines[0]
    assert "disk C: is full" in lines[0] and "line one line two" in lines[1]
    rc, summary = _decode(path, "--summary", capsys=capsys)
    assert rc == 0
    row = f"{2:>9} {2:>9}  {GUID}  Etwmc-Python-Logging (manifest)"
    assert row in summary.splitlines()
    rc, summary = _decode(path, "--summary", "--format", "json", capsys=capsys)
    (mine,) = [p for p in json.loads(summary)["providers"] if p["provider"] == str(GUID)]
    assert (mine["events"], mine["decoded"]) == (2, 2)
    rc, text = _decode(path, "--provider", "etwmc-python-logging", capsys=capsys)
    assert len(text.splitlines()) == 2


def test_json_format_is_one_array_for_both(
    inputs: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for path in inputs:
        out = tmp_path / "out.json"
        assert main(["decode", str(path), "--manifest", str(MANIFEST), "-o", str(out),
                     "--format", "json"]) == 0  # fmt: skip
        items = json.loads(out.read_text(encoding="utf-8"))
        assert [e["fields"]["Message"] for e in items if "fields" in e] == [
            "disk C: is full",
            "line one\nline two",
        ]
