"""The event file format: round trip, layout, and hostile files."""

from __future__ import annotations

import io
import struct
import uuid
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from etwmc.runtime.eventfile import (
    MAGIC,
    EventFileError,
    EventRecord,
    iter_events,
    read_events,
    write_events,
)

records = st.builds(
    EventRecord,
    provider_id=st.uuids(),
    id=st.integers(0, 0xFFFF),
    version=st.integers(0, 255),
    channel=st.integers(0, 255),
    level=st.integers(0, 255),
    opcode=st.integers(0, 255),
    task=st.integers(0, 0xFFFF),
    keyword=st.integers(0, 2**64 - 1),
    timestamp=st.integers(0, 2**64 - 1),
    process_id=st.integers(0, 2**32 - 1),
    thread_id=st.integers(0, 2**32 - 1),
    activity_id=st.uuids(),
    related_activity_id=st.none() | st.uuids(),
    user_data=st.binary(max_size=300),
    pointer_size=st.sampled_from([4, 8]),
)


@settings(max_examples=50)
@given(st.lists(records, max_size=5))
def test_round_trip(tmp_path_factory: pytest.TempPathFactory, recs: list[EventRecord]) -> None:
    path = tmp_path_factory.mktemp("ev") / "t.etwmc"
    assert write_events(path, recs) == len(recs)
    assert list(read_events(path)) == recs


def _file(tmp_path: Path, recs: list[EventRecord]) -> bytes:
    path = tmp_path / "f.etwmc"
    write_events(path, recs)
    return path.read_bytes()


def test_layout(tmp_path: Path) -> None:
    rec = EventRecord(provider_id=uuid.UUID(int=1), id=0x0102, user_data=b"abc")
    data = _file(tmp_path, [rec])
    assert data[:16] == MAGIC + struct.pack("<HHI", 1, 16, 0)
    assert struct.unpack_from("<I", data, 16)[0] == 88 + 3
    assert data[20:36] == uuid.UUID(int=1).bytes_le
    assert data[36:38] == b"\x02\x01"
    assert data[-3:] == b"abc" and len(data) == 16 + 4 + 88 + 3


def _read(data: bytes) -> list[EventRecord]:
    return list(iter_events(io.BytesIO(data)))


def test_hostile_files(tmp_path: Path) -> None:
    good = _file(tmp_path, [EventRecord(provider_id=uuid.uuid4(), id=1, user_data=b"xyz")])
    header, body = good[:16], good[16:]
    cases = {
        "bad magic": b"NOTETWMC" + good[8:],
        "truncated event file header": good[:10],
        "version 9": MAGIC + struct.pack("<HHI", 9, 16, 0),
        "header size": MAGIC + struct.pack("<HHI", 1, 8, 0),
        "truncated record length": header + body[:2],
        "truncated record at offset 16": good[:-1],
        "length 10": header + struct.pack("<I", 10) + body[4:],
        "length 4294967295": header + struct.pack("<I", 0xFFFF_FFFF),
        # body offsets: flags at 64, pointer size at 65, user data length at 84
        "unknown flags": header + body[: 4 + 64] + b"\x80" + body[4 + 65 :],
        "pointer size 3": header + body[: 4 + 65] + b"\x03" + body[4 + 66 :],
        "says 4 bytes": header + body[: 4 + 84] + struct.pack("<I", 4) + body[4 + 88 :],
    }
    for message, data in cases.items():
        with pytest.raises(EventFileError, match=message):
            _read(data)
    assert len(_read(good)) == 1  # the unmodified file reads


def test_empty_input_is_truncated_header() -> None:
    with pytest.raises(EventFileError, match="truncated event file header: 0"):
        _read(b"")


def test_header_only_is_an_empty_file(tmp_path: Path) -> None:
    assert _read(_file(tmp_path, [])) == []


@settings(max_examples=200)
@given(st.binary(max_size=400))
def test_garbage_after_header_never_crashes(tail: bytes) -> None:
    data = MAGIC + struct.pack("<HHI", 1, 16, 0) + tail
    try:
        _read(data)
    except EventFileError:
        pass


def test_writer_refuses_out_of_range(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="out of range"):
        write_events(tmp_path / "x", [EventRecord(provider_id=uuid.uuid4(), id=70_000)])
    with pytest.raises(ValueError, match="exceeds"):
        write_events(
            tmp_path / "y", [EventRecord(provider_id=uuid.uuid4(), id=1, user_data=b"\0" * 70_000)]
        )
