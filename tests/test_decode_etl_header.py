"""The trace's file header and the kernel's event groups, read by etwmc alone, agree
with the container library (dissect.etl, a development dependency used as an oracle)."""

from __future__ import annotations

import struct
import uuid

import pytest
from etl_helpers import TRACES, trace

from etwmc.decode.etl import TraceError, read_info
from etwmc.decode.kernel import group_guid

NAMES = sorted(p.name for p in TRACES.glob("*.etl")) if TRACES.is_dir() else ["(none)"]


@pytest.mark.parametrize("name", NAMES)
def test_file_header_agrees_with_the_container_library(name: str) -> None:
    etl_module = pytest.importorskip("dissect.etl.etl")
    path = trace(name)
    with path.open("rb") as f:
        theirs = etl_module.ETL(f).logfile_header
    data = path.read_bytes()
    filled = struct.unpack_from("<I", data, 0x30)[0]
    ours = read_info(data[:filled])
    assert ours.pointer_size == theirs.pointer_size
    assert ours.buffers == theirs.buffers_written
    assert ours.start_time == theirs.start_time
    assert ours.logger_name == str(theirs.logger_name or "")
    # the library's base is computed in floating point; ours in integers
    assert abs(ours.base - theirs.timestamp_base) <= 1


def test_kernel_groups_agree_with_the_container_library() -> None:
    utils = pytest.importorskip("dissect.etl.utils")
    for group in range(256):
        for opcode in range(256):
            expected = utils.lookup_guid(group, opcode)
            assert uuid.UUID(bytes_le=group_guid(group, opcode)) == expected, (group, opcode)


def test_file_header_that_does_not_fit() -> None:
    data = trace("perfview_primitive-types.etl").read_bytes()
    filled = struct.unpack_from("<I", data, 0x30)[0]
    head = bytearray(data[:filled])
    with pytest.raises(TraceError, match="before the file header record"):
        read_info(bytes(head[:0x50]))
    short = bytearray(head)
    short[0x48 + 4 : 0x48 + 6] = struct.pack("<H", 0x40)
    with pytest.raises(TraceError, match="cannot hold its fields"):
        read_info(bytes(short))
    other = bytearray(head)
    other[0x48 + 7] = 5  # a thread-group record, not the header
    with pytest.raises(TraceError, match="does not start a file header record"):
        read_info(bytes(other))
    pointer = bytearray(head)
    pointer[0x48 + 0x20 + 0x2C] = 6
    with pytest.raises(TraceError, match="pointer size 6"):
        read_info(bytes(pointer))
