"""Build small ``.etl`` traces by hand, for the tests: a file header buffer, then buffers
of EVENT_HEADER records (plain or LZXpress-compressed).  The layout is the one
etwmc/decode/etl.py documents; nothing here uses etwmc's own reader."""

from __future__ import annotations

import struct
import uuid
from collections.abc import Sequence

BUFFER_HEADER = 0x48
START = 131_000_000_000_000_000  # a FILETIME in 2016
EXT_RELATED = 1
EXT_SCHEMA = 11
EXT_TRAITS = 12


def _buffer(body: bytes, filled: int, *, compressed: bool = False) -> bytes:
    size = BUFFER_HEADER + len(body)
    if not compressed:  # a compressed buffer's size is its data's: no padding to decode
        size = (size + 7) & ~7
    head = bytearray(BUFFER_HEADER)
    struct.pack_into("<I", head, 0, size)
    struct.pack_into("<I", head, 0x30, filled)
    struct.pack_into("<H", head, 0x34, 0x40 if compressed else 0)
    return bytes(head) + body + bytes(size - BUFFER_HEADER - len(body))


def _header_record(buffers: int) -> bytes:
    """A 64-bit kernel record of hook id 0 holding a TRACE_LOGFILE_HEADER."""
    payload = bytearray(0x118)
    struct.pack_into("<I", payload, 0x24, buffers)
    struct.pack_into("<I", payload, 0x2C, 8)  # PointerSize
    struct.pack_into("<QQQII", payload, 0xF8, 0, 10_000_000, START, 1, 0)  # clock: QPC at 10 MHz
    payload += "hand-made\0".encode("utf-16-le") + "x.etl\0".encode("utf-16-le")
    size = 0x20 + len(payload)
    head = struct.pack("<HBBHBBIIQII", 2, 0x02, 0xC0, size, 0, 0, 0, 0, 0, 0, 0)
    return _pad(head + bytes(payload))


def _pad(record: bytes) -> bytes:
    return record + bytes(-len(record) % 8)


def event(
    provider: uuid.UUID,
    event_id: int = 1,
    data: bytes = b"",
    *,
    version: int = 0,
    opcode: int = 0,
    level: int = 4,
    pid: int = 100,
    tid: int = 200,
    ticks: int = 0,
    schema: bytes | None = None,
    traits: bytes | None = None,
    channel: int = 0,
    task: int = 0,
    keyword: int = 0,
    activity: bytes = bytes(16),
    related: bytes | None = None,
    pointer: int = 8,
) -> bytes:
    """One EVENT_HEADER record (64-bit unless ``pointer`` is 4), 8-byte aligned."""
    pairs = ((EXT_RELATED, related), (EXT_SCHEMA, schema), (EXT_TRAITS, traits))
    items = [(t, b) for t, b in pairs if b is not None]
    ext = b""
    for i, (kind, item) in enumerate(items):
        more = 1 if i + 1 < len(items) else 0
        ext += struct.pack("<HHHH", 8 + len(item), kind, more, len(item)) + _pad(item)
    size = 0x50 + len(ext) + len(data)
    flags = 1 if items else 0
    head = struct.pack(
        "<HBBHHIIQ16sHBBBBHQQ16s",
        size, 0x13 if pointer == 8 else 0x12, 0xC0, flags, 0, tid, pid, ticks, provider.bytes_le,
        event_id, version, channel, level, opcode, task, keyword, 0, activity,
    )  # fmt: skip
    return _pad(head + ext + data)


def trace(buffers: Sequence[Sequence[bytes]]) -> bytes:
    """A trace: the file header buffer, then one plain buffer per list of records."""
    out = [_header_buffer(len(buffers) + 1)]
    for records in buffers:
        body = b"".join(records)
        out.append(_buffer(body, BUFFER_HEADER + len(body)))
    return b"".join(out)


def _header_buffer(count: int) -> bytes:
    body = _header_record(count)
    return _buffer(body, BUFFER_HEADER + len(body))


def repeated_buffer(record: bytes, size: int) -> bytes:
    """A compressed buffer whose ``size`` bytes of records are ``record`` over and over:
    the record as literals, then one long match (LZXpress, MS-XCA plain LZ77)."""
    assert len(record) % 8 == 0 and size % len(record) == 0 and len(record) <= 8192
    literals = len(record)
    body = b""
    pos = 0
    while pos < literals:  # flag words of 32 literals, the last one ends with the match
        n = min(32, literals - pos)
        last = pos + n >= literals and n < 32
        word = (1 << (31 - n)) if last else 0
        body += struct.pack("<I", word) + record[pos : pos + n]
        pos += n
    if literals % 32 == 0:
        body += struct.pack("<I", 1 << 31)
    length = size - literals - 3
    token = struct.pack("<H", ((literals - 1) << 3) | 7)
    body += token + bytes([15, 255]) + struct.pack("<H", 0) + struct.pack("<I", length)
    return _buffer(body, BUFFER_HEADER + size, compressed=True)


def compressed_trace(buffers: Sequence[bytes]) -> bytes:
    """A trace of the file header buffer and the given (compressed) buffers."""
    return _header_buffer(len(buffers) + 1) + b"".join(buffers)


def tl_schema(name: str, *fields: bytes) -> bytes:
    """A TraceLogging event schema (extended item 11): size, no tags, name, fields."""
    body = b"\0" + name.encode() + b"\0" + b"".join(fields)
    return struct.pack("<H", 2 + len(body)) + body


def tl_field(name: str, in_type: int, out: int | None = None, count: int | None = None) -> bytes:
    """A TraceLogging field: name, inType (bit 7: an outType follows), constant count."""
    raw = name.encode() + b"\0" + bytes([in_type | (0x80 if out is not None else 0)])
    if out is not None:
        raw += bytes([out])
    if count is not None:
        raw += struct.pack("<H", count)
    return raw


def envelope(total: int, number: int, chunk: bytes) -> bytes:
    """An EventSource manifest event's payload."""
    return struct.pack("<BBBBHH", 1, 1, 0, 0x5B, total, number) + chunk
