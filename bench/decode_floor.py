"""The floor of ``etwmc decode``: read a trace, decompress it with etwmc's own LZXpress,
and walk its records with ``struct``, nothing more (no record object, no decoding, no
output).  Prints the number of records found.

Run: .venv/bin/python bench/decode_floor.py TRACE.etl

Whatever decoding does on top of this is what ``bench/run.py`` compares with it.
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from etwmc.decode.lzxpress import decompress  # noqa: E402

_BUFFER = struct.Struct("<I44xIH")  # BufferSize, FilledBytes, flags
_U32 = struct.Struct("<I").unpack_from
_U16 = struct.Struct("<H").unpack_from
HEADER = 0x48
COMPRESSED = 0x40
# header types whose record size is the u16 at offset 4 (kernel system headers)
_SYSTEM = frozenset({0x01, 0x02, 0x03, 0x04, 0x10, 0x11})


def records(data: bytes) -> int:
    """The records of one buffer's data (after its header)."""
    n = pos = 0
    end = len(data)
    while pos + 4 <= end:
        marker = _U32(data, pos)[0]
        if marker == 0xFFFFFFFF:
            break
        if (marker >> 16) & 0xFF in _SYSTEM and marker >> 30 == 3:
            size = _U16(data, pos + 4)[0]
        else:
            size = marker & 0xFFFF
        if size == 0:
            break
        n += 1
        pos += (size + 7) & ~7
    return n


def walk(path: str) -> int:
    n = 0
    with open(path, "rb") as f:
        while head := f.read(HEADER):
            size, filled, flags = _BUFFER.unpack(head[: _BUFFER.size])
            body = f.read(size - HEADER)
            if flags & COMPRESSED:
                data = decompress(body, filled - HEADER)
            else:
                data = body[: filled - HEADER]
            n += records(data)
    return n


if __name__ == "__main__":
    print(walk(sys.argv[1]))
