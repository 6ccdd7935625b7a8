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

from collections.abc import Callable, Sequence

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

# Members read from the enum class in a loop cost more than the comparisons.
_SID = InTypeCode.SID
_NULL = InTypeCode.NULL


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
    first_member = len(top)
    for item in top:
        name = sized_string(item.name)
        if isinstance(item, Struct):
            entries.append(_struct_entry(item, first_member, top, name_at))
            first_member += len(item.fields)
        else:
            entries.append(_field_entry(item, top, 0, offsets, maps, name_at))
        names.append(name)
        name_at += len(name)
    base = len(top)
    for s in structs:
        for f in s.fields:
            name = sized_string(f.name)
            entries.append(_field_entry(f, s.fields, base, offsets, maps, name_at))
            names.append(name)
            name_at += len(name)
        base += len(s.fields)
    flags = TEMPLATE_USER_DATA if t.user_data is not None else TEMPLATE_EVENT_DATA
    out += TEMP_HEADER.layout.pack(TEMP, name_at - start, len(top), total, props_at, flags, tid)
    out += bx
    out += b"".join(entries)
    out += b"".join(names)


def _extent(
    value: int | str | None, siblings: Sequence[Field | Struct], base: int, fixed: int, var: int
) -> tuple[int, int]:
    """(flag, value) of a count or length: a constant, or the index of the first of
    ``siblings`` it names (0 for none) counted from ``base``."""
    if value is None or value == 0:  # a constant 0 is the same as no attribute
        return 0, 0
    if isinstance(value, int):
        return fixed, value & 0xFFFF
    at = next((i for i, item in enumerate(siblings) if item.name == value), 0)
    return var, (at + base) & 0xFFFF


def _field_entry(
    f: Field,
    siblings: Sequence[Field | Struct],
    base: int,
    offsets: dict[int, int],
    maps: Callable[[str], Map | None],
    name_at: int,
) -> bytes:
    count, length, in_type = f.count, f.length, f.in_type
    cflag = lflag = 0
    if count is not None:
        cflag, count = _extent(count, siblings, base, PROP_FIXED_COUNT, PROP_VAR_COUNT)
    if length is not None:
        lflag, length = _extent(length, siblings, base, PROP_FIXED_LENGTH, PROP_VAR_LENGTH)
        if lflag == PROP_FIXED_LENGTH and in_type is not None and in_type.code == _SID:
            lflag = 0
    map_at = 0
    if f.map is not None:
        m = maps(f.map)
        map_at = offsets.get(id(m), 0) if m is not None else 0
    return PROPERTY.layout.pack(
        cflag | lflag,
        (in_type.code if in_type is not None else _NULL) & 0xFF,
        _out_code(f) & 0xFF,
        0,
        map_at,
        count or 0,
        length or 0,
        name_at,
    )


def _struct_entry(s: Struct, first: int, siblings: Sequence[Field | Struct], name_at: int) -> bytes:
    cflag, count = _extent(s.count, siblings, 0, PROP_FIXED_COUNT, PROP_VAR_COUNT)
    lflag, length = _extent(s.length, siblings, 0, PROP_FIXED_LENGTH, PROP_VAR_LENGTH)
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
