"""The TTBL element: TEMP records with their BinXML, property entries and names.

TEMP: "TEMP", size, top-level item count, property count (struct members included),
offset of the property entries, flags (1 EventData, 2 UserData), template id, the
BinXML, 20-byte property entries, then the property names.  Struct members follow all
top-level entries, struct after struct.  A property's count/length is a constant
(flags 0x8/0x2) or the index of the property holding it (0x10/0x4; for a struct
member the index counts from the struct's first member's position); a constant 0 is
the same as none, and win:SID never gets the fixed-length flag.  outType is the one
written or the inType's default.
"""

from __future__ import annotations

from collections.abc import Callable

from .. import winmeta as wm
from ..model import Field, Map, Provider, Struct, Template
from ..winmeta import InTypeCode
from .binxml import encode_template
from .crim import (
    LIST_HEADER,
    PROP_FIXED_COUNT,
    PROP_FIXED_LENGTH,
    PROP_STRUCT,
    PROP_VAR_COUNT,
    PROP_VAR_LENGTH,
    PROPERTY,
    STRUCT_PROPERTY,
    TEMP,
    TEMP_HEADER,
    TEMPLATE_EVENT_DATA,
    TEMPLATE_USER_DATA,
    Kind,
    sized_string,
)


def write_ttbl(out: bytearray, offsets: dict[int, int], p: Provider, *, legacy_ids: bool) -> None:
    """TTBL: header, then one TEMP record per template in manifest order."""
    start = len(out)
    out += bytes(LIST_HEADER.size)
    for t in p.templates:
        _temp(out, offsets, p, t, legacy_ids)
    LIST_HEADER.layout.pack_into(
        out, start, Kind.TTBL.signature, len(out) - start, len(p.templates)
    )


def _temp(
    out: bytearray, offsets: dict[int, int], p: Provider, t: Template, legacy_ids: bool
) -> None:
    start = len(out)
    offsets[id(t)] = start
    tid, bx = encode_template(t, legacy_ids=legacy_ids)
    top = t.items
    structs = [s for s in top if isinstance(s, Struct)]
    total = len(top) + sum(len(s.fields) for s in structs)
    props_at = start + TEMP_HEADER.size + len(bx)
    # The names follow the entries: each entry's name offset is known as it is packed.
    names: list[bytes] = []
    entries: list[bytes] = []
    name_at = props_at + PROPERTY.size * total  # STRUCT_PROPERTY's size too
    maps = p.map_named
    index = {item.name: i for i, item in reversed(list(enumerate(top)))}
    first_member = len(top)
    for item in top:
        name = sized_string(item.name)
        if isinstance(item, Struct):
            entries.append(_struct_entry(item, first_member, index, name_at))
            first_member += len(item.fields)
        else:
            entries.append(_field_entry(item, index, 0, offsets, maps, name_at))
        names.append(name)
        name_at += len(name)
    base = len(top)
    for s in structs:
        local = {f.name: i for i, f in reversed(list(enumerate(s.fields)))}
        for f in s.fields:
            name = sized_string(f.name)
            entries.append(_field_entry(f, local, base, offsets, maps, name_at))
            names.append(name)
            name_at += len(name)
        base += len(s.fields)
    flags = TEMPLATE_USER_DATA if t.user_data is not None else TEMPLATE_EVENT_DATA
    out += TEMP_HEADER.layout.pack(TEMP, name_at - start, len(top), total, props_at, flags, tid)
    out += bx
    out += b"".join(entries)
    out += b"".join(names)


def _extent(
    value: int | str | None, index: dict[str, int], base: int, fixed: int, var: int
) -> tuple[int, int]:
    if value is None or value == 0:  # a constant 0 is the same as no attribute
        return 0, 0
    if isinstance(value, int):
        return fixed, value & 0xFFFF
    return var, (index.get(value, 0) + base) & 0xFFFF


def _field_entry(
    f: Field,
    index: dict[str, int],
    base: int,
    offsets: dict[int, int],
    maps: Callable[[str], Map | None],
    name_at: int,
) -> bytes:
    cflag, count = _extent(f.count, index, base, PROP_FIXED_COUNT, PROP_VAR_COUNT)
    lflag, length = _extent(f.length, index, base, PROP_FIXED_LENGTH, PROP_VAR_LENGTH)
    if lflag == PROP_FIXED_LENGTH and f.in_type is not None and f.in_type.code == InTypeCode.SID:
        lflag = 0
    in_code = f.in_type.code if f.in_type is not None else InTypeCode.NULL
    map_at = 0
    if f.map is not None:
        m = maps(f.map)
        map_at = offsets.get(id(m), 0) if m is not None else 0
    return PROPERTY.layout.pack(
        cflag | lflag, in_code & 0xFF, _out_code(f) & 0xFF, 0, map_at, count, length, name_at
    )


def _struct_entry(s: Struct, first: int, index: dict[str, int], name_at: int) -> bytes:
    cflag, count = _extent(s.count, index, 0, PROP_FIXED_COUNT, PROP_VAR_COUNT)
    lflag, length = _extent(s.length, index, 0, PROP_FIXED_LENGTH, PROP_VAR_LENGTH)
    return STRUCT_PROPERTY.layout.pack(
        PROP_STRUCT | cflag | lflag,
        first & 0xFFFF,
        len(s.fields) & 0xFFFF,
        0,
        count,
        length,
        name_at,
    )


def _out_code(f: Field) -> int:
    if f.out_type is not None:
        return f.out_type.code
    if f.in_type is None:
        return 0
    # An outType winmeta does not define (a few manifests write "xs:HexInt32") counts
    # as none: the default is stored.
    ot = wm.out_type(f.in_type.default_out)
    return ot.code if ot is not None else 0
