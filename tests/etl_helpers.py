"""Shared helpers for the .etl tests: where the traces are, and an independent reading
of them with the container library alone (no etwmc code), for expected values."""

from __future__ import annotations

import struct
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import SHARED

TRACES = SHARED / "traces"


def trace(name: str) -> Path:
    path = TRACES / name
    if not path.is_file():
        pytest.skip(f"../shared/traces/{name} is not present next to this checkout")
    return path


@dataclass(frozen=True)
class Raw:
    """One record as dissect.etl reads it, with the user data cut out by hand."""

    event_header: bool
    provider: uuid.UUID | None  # from the raw bytes in Windows byte order
    id: int
    opcode: int
    flags: int
    user_data: bytes
    ext_types: tuple[int, ...]


def read_raw(path: Path) -> list[Raw]:
    from dissect.etl.etl import ETL
    from dissect.etl.headers.event import EventHeader

    out = []
    with path.open("rb") as f:
        for rec in ETL(f):
            h = rec.header
            if not isinstance(h, EventHeader):
                out.append(Raw(False, None, 0, 0, 0, bytes(h.payload), ()))
                continue
            raw = bytes(h.data[: h.size])
            flags = struct.unpack_from("<H", raw, 4)[0]
            pos, types = 0x50, []
            more = bool(flags & 1)
            while more:  # each item: u16 size, u16 type, u16 linkage, u16 data size
                _, ext_type, linkage, size = struct.unpack_from("<HHHH", raw, pos)
                types.append(ext_type)
                pos += 8 + (size + 7) // 8 * 8
                more = bool(linkage & 1)
            out.append(
                Raw(
                    True,
                    uuid.UUID(bytes_le=raw[0x18:0x28]),
                    struct.unpack_from("<H", raw, 0x28)[0],
                    raw[0x2D],
                    flags,
                    raw[pos:],
                    tuple(types),
                )
            )
    return out


def utf16_strings(data: bytes) -> list[str]:
    """NUL-terminated UTF-16LE strings, in order."""
    return data.decode("utf-16-le").split("\0")[:-1]
