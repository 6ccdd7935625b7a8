"""The MAPS (value and bit maps) and QTAB (pattern maps) elements of a WEVT block."""

from __future__ import annotations

import struct

from ..model import Map, PatternMap
from ..msgids import MessageIds
from .strings import ordinal_key, sized_string


def write_maps(
    out: bytearray, offsets: dict[int, int], maps: tuple[Map, ...], ids: MessageIds
) -> None:
    """MAPS: header, offsets of the records ordered by map name, the VMAP/BMAP records in
    manifest order (items sorted by value), then the names sorted by name."""
    start = len(out)
    n = len(maps)
    out += bytes(12 + 4 * n)
    by_name = sorted(range(n), key=lambda i: ordinal_key(maps[i].name))
    record_at: list[int] = []
    name_slots: list[int] = []
    for m in maps:
        at = len(out)
        record_at.append(at)
        offsets[id(m)] = at
        items = sorted(m.items, key=lambda it: it.value & 0xFFFFFFFF)
        flags = 1 if m.kind == "bit" else 0
        out += struct.pack(
            "<4sIIII", b"BMAP" if flags else b"VMAP", 20 + 8 * len(items), 0, flags, len(items)
        )
        name_slots.append(at + 8)
        for it in items:
            out += struct.pack("<II", it.value & 0xFFFFFFFF, ids.map_item_id(it.message))
    for k, i in enumerate(by_name):
        struct.pack_into("<I", out, name_slots[i], len(out))
        out += sized_string(maps[i].name)
        struct.pack_into("<I", out, start + 12 + 4 * k, record_at[i])
    struct.pack_into("<4sII", out, start, b"MAPS", len(out) - start, n)


def write_qtab(out: bytearray, offsets: dict[int, int], pms: tuple[PatternMap, ...]) -> None:
    """QTAB: header, record offsets, QUER records (name, format, item count, items), then
    every string in record order."""
    start = len(out)
    out += bytes(12 + 4 * len(pms))
    records = len(out)
    data = records + sum(20 + 8 * len(pm.items) for pm in pms)
    out += bytes(data - records)
    at = records
    for k, pm in enumerate(pms):
        struct.pack_into("<I", out, start + 12 + 4 * k, at)
        offsets[id(pm)] = at
        name_at = len(out)
        out += sized_string(pm.name)
        fmt_at = len(out)
        out += sized_string(pm.format)
        for j, item in enumerate(pm.items):
            n_at = len(out)
            out += sized_string(item.name)
            v_at = len(out)
            out += sized_string(item.value)
            struct.pack_into("<II", out, at + 20 + 8 * j, n_at, v_at)
        # mc's QUER size reaches the end of its strings, past the records after it.
        struct.pack_into("<4sIIII", out, at, b"QUER", len(out) - at, name_at, fmt_at, len(pm.items))
        at += 20 + 8 * len(pm.items)
    struct.pack_into("<4sII", out, start, b"QTAB", len(out) - start, len(pms))
