"""The MAPS (value and bit maps) and QTAB (pattern maps) elements of a WEVT block."""

from __future__ import annotations

import struct

from ..model import Map, PatternMap
from ..msgids import MessageIds
from .crim import (
    BMAP,
    LIST_HEADER,
    MAP_IS_BITMAP,
    MAP_ITEM,
    MAP_RECORD,
    QUER,
    QUER_ITEM,
    QUER_RECORD,
    RECORD_REF,
    VMAP,
    Kind,
    ordinal_key,
    sized_string,
)

_NAME_AT = 8  # where a VMAP/BMAP record holds its name's offset (MAP_RECORD's "name")
_u32 = struct.Struct("<I").pack_into


def write_maps(
    out: bytearray, offsets: dict[int, int], maps: tuple[Map, ...], ids: MessageIds
) -> None:
    """MAPS: header, offsets of the records ordered by map name, the VMAP/BMAP records in
    manifest order (items sorted by value), then the names sorted by name."""
    start = len(out)
    n = len(maps)
    out += bytes(LIST_HEADER.size + RECORD_REF.size * n)
    by_name = sorted(range(n), key=lambda i: ordinal_key(maps[i].name))
    record_at: list[int] = []
    name_slots: list[int] = []
    for m in maps:
        at = len(out)
        record_at.append(at)
        offsets[id(m)] = at
        items = sorted(m.items, key=lambda it: it.value & 0xFFFFFFFF)
        flags = MAP_IS_BITMAP if m.kind == "bit" else 0
        size = MAP_RECORD.size + MAP_ITEM.size * len(items)
        out += MAP_RECORD.layout.pack(BMAP if flags else VMAP, size, 0, flags, len(items))
        name_slots.append(at + _NAME_AT)
        for it in items:
            out += MAP_ITEM.layout.pack(it.value & 0xFFFFFFFF, ids.map_item_id(it.message))
    refs = start + LIST_HEADER.size
    for k, i in enumerate(by_name):
        _u32(out, name_slots[i], len(out))
        out += sized_string(maps[i].name)
        RECORD_REF.layout.pack_into(out, refs + RECORD_REF.size * k, record_at[i])
    LIST_HEADER.layout.pack_into(out, start, Kind.MAPS.signature, len(out) - start, n)


def write_qtab(out: bytearray, offsets: dict[int, int], pms: tuple[PatternMap, ...]) -> None:
    """QTAB: header, record offsets, QUER records (name, format, item count, items), then
    every string in record order."""
    start = len(out)
    refs = start + LIST_HEADER.size
    out += bytes(LIST_HEADER.size + RECORD_REF.size * len(pms))
    records = len(out)
    data = records + sum(QUER_RECORD.size + QUER_ITEM.size * len(pm.items) for pm in pms)
    out += bytes(data - records)
    at = records
    for k, pm in enumerate(pms):
        RECORD_REF.layout.pack_into(out, refs + RECORD_REF.size * k, at)
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
            QUER_ITEM.layout.pack_into(out, at + QUER_RECORD.size + QUER_ITEM.size * j, n_at, v_at)
        # mc's QUER size reaches the end of its strings, past the records after it.
        QUER_RECORD.layout.pack_into(out, at, QUER, len(out) - at, name_at, fmt_at, len(pm.items))
        at += QUER_RECORD.size + QUER_ITEM.size * len(pm.items)
    LIST_HEADER.layout.pack_into(out, start, Kind.QTAB.signature, len(out) - start, len(pms))
