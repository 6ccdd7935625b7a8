"""The two string encodings of the CRIM blob."""

from __future__ import annotations

import struct


def sized_string(s: str) -> bytes:
    """u32 total size (itself and padding included), UTF-16LE text, NUL, zeros to a
    multiple of 4: the names in CHAN, LEVL, OPCO, TASK, KEYW, MAPS, QTAB, TTBL, FLTR."""
    data = s.encode("utf-16-le", "surrogatepass") + b"\0\0"
    total = (4 + len(data) + 3) & ~3
    return struct.pack("<I", total) + data + b"\0" * (total - 4 - len(data))


def z_string(s: str) -> bytes:
    """UTF-16LE text and a NUL, nothing else: the strings of PRVA and EVTA."""
    return s.encode("utf-16-le", "surrogatepass") + b"\0\0"


def ordinal_key(s: str) -> bytes:
    """Sort key for ordinal (UTF-16 code unit) order, as mc compares names."""
    return s.encode("utf-16-be", "surrogatepass")
