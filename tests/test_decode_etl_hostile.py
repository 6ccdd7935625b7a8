"""Truncated and mutated traces end in a diagnostic with a byte offset (exit 1), never
an internal error; the events before the damage are still written."""

from __future__ import annotations

import json
import random
import struct
from pathlib import Path

import pytest
from etl_helpers import trace

from etwmc.cli import main

PLAIN = "krabsetw_powershell.etl"  # 26 plain buffers
COMPRESSED = "perfview_SelfDescribingSingleEvent.etl"  # compressed buffers
SMALL = "perfview_primitive-types.etl"


def run(path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, list]:
    out = tmp_path / "out.jsonl"
    rc = main(["decode", str(path), "-o", str(out)])
    err = capsys.readouterr().err
    assert "internal error" not in err and "Traceback" not in err, err
    events = []
    if out.exists():
        events = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return rc, err, events


@pytest.mark.parametrize("name", [PLAIN, COMPRESSED])
def test_truncated_traces_say_where(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = trace(name).read_bytes()
    whole_rc, _, whole = run(trace(name), tmp_path, capsys)
    assert whole_rc == 0
    for cut in (10, 0x47, 0x60, 0x200, len(data) // 2, len(data) - 1):
        bad = tmp_path / "cut.etl"
        bad.write_bytes(data[:cut])
        rc, err, events = run(bad, tmp_path, capsys)
        assert rc == 1, cut
        assert "ETW851" in err and "byte offset" in err, err
        assert events == whole[: len(events)]  # what was written is a prefix


def test_a_truncated_trace_keeps_the_events_before_the_damage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = trace(PLAIN).read_bytes()
    bad = tmp_path / "cut.etl"
    bad.write_bytes(data[: len(data) - 3000])
    rc, err, events = run(bad, tmp_path, capsys)
    assert rc == 1 and "truncated" in err
    assert len(events) > 50


def test_damaged_headers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = bytearray(trace(PLAIN).read_bytes())
    second = struct.unpack_from("<I", data, 0)[0]  # the second buffer starts here
    cases = {
        "buffer size": (second, struct.pack("<I", 7)),
        "buffer fill": (second + 0x30, struct.pack("<I", 0x7FFFFFFF)),
        "marker": (second + 0x48, b"\x00\x00\x12\x45"),
        "record size": (second + 0x48, struct.pack("<H", 0x20)),
        "compressed header buffer": (0x34, struct.pack("<H", 0x40)),
        "file header": (0x48, b"\xff" * 64),
    }
    for what, (at, patch) in cases.items():
        bad = tmp_path / "bad.etl"
        bad.write_bytes(bytes(data[:at]) + patch + bytes(data[at + len(patch) :]))
        rc, err, _ = run(bad, tmp_path, capsys)
        assert rc == 1, what
        assert "ETW851" in err and "byte offset" in err, (what, err)


def test_kernel_records_that_do_not_fit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A kernel (system) header whose size runs past its buffer, and one cut off by the
    buffer's fill before its header ends: the offset is the record's."""
    data = bytearray(trace(PLAIN).read_bytes())
    second = struct.unpack_from("<I", data, 0)[0]
    record = second + 0x48
    marker = struct.pack("<I", 0xC0020000)  # a 64-bit system header, no extensions
    past = data[:record] + marker + struct.pack("<H", 0xFFF0) + data[record + 6 :]
    short = bytearray(past)
    short[second + 0x30 : second + 0x34] = struct.pack("<I", 0x48 + 10)  # 10 bytes filled
    short[record + 4 : record + 6] = struct.pack("<H", 0x40)
    tiny = bytearray(short)
    tiny[record + 4 : record + 6] = struct.pack("<H", 0x10)  # less than the 32-byte header
    for bad, says in (
        (past, "a 65520-byte record runs past the end of its buffer"),
        (short, "a 64-byte record runs past the end of its buffer"),
        (tiny, "record size 16 is smaller than its 32-byte header"),
    ):
        path = tmp_path / "bad.etl"
        path.write_bytes(bytes(bad))
        rc, err, events = run(path, tmp_path, capsys)
        assert rc == 1 and f"byte offset {record}: {says}" in err, err
        assert events


def test_fuzzed_traces_never_crash(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Random byte changes and cuts: each run ends with 0 or 1, never an internal error."""
    rng = random.Random(1301)
    originals = [trace(n).read_bytes() for n in (SMALL, COMPRESSED, "airbus_lxcore_kernel.etl")]
    bad = tmp_path / "fuzz.etl"
    for i in range(120):
        data = bytearray(rng.choice(originals))
        for _ in range(rng.randint(1, 8)):
            at = rng.randrange(len(data))
            if rng.random() < 0.5:
                data[at] = rng.randrange(256)
            else:  # a plausible-looking number where the readers look for sizes
                data[at : at + 2] = struct.pack("<H", rng.choice((0, 1, 8, 0x50, 0xFFFF)))
        if rng.random() < 0.2:
            del data[rng.randrange(len(data)) :]
        bad.write_bytes(bytes(data))
        rc, _, _ = run(bad, tmp_path, capsys)
        assert rc in (0, 1), i


def test_unreadable_inputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, err, _ = run(tmp_path / "missing.etl", tmp_path, capsys)
    assert rc == 2 and "cannot read" in err and "missing.etl" in err  # README: exit codes
    empty = tmp_path / "empty.etl"
    empty.write_bytes(b"")
    rc, err, _ = run(empty, tmp_path, capsys)
    assert rc == 1 and "ETW851" in err
    bad_blob = tmp_path / "t.bin"
    bad_blob.write_bytes(b"CRIM")
    assert main(["decode", str(trace(SMALL)), "--wevt", str(bad_blob)]) == 1
    assert "ETW852" in capsys.readouterr().err
    assert main(["decode", str(trace(SMALL)), "--dll", str(bad_blob)]) == 1
    assert "ETW852" in capsys.readouterr().err
